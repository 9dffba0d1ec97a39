# share_test: one report written by several ranks (nvtxw/share.h,
# SessionBeginShared), the ranks being threads, through the public API only.
check_PROGRAMS += tests/unit/share_test
TESTS += tests/unit/share_test
tests_unit_share_test_SOURCES = tests/unit/share_test.c
tests_unit_share_test_CFLAGS = $(TEST_CFLAGS)
tests_unit_share_test_LDADD = $(TEST_LIBS)
