# merge_test: nvtxw_reader_replay_many (issue 4 item 6), through the public
# API only.
check_PROGRAMS += tests/unit/merge_test
TESTS += tests/unit/merge_test
tests_unit_merge_test_SOURCES = tests/unit/merge_test.c
tests_unit_merge_test_CFLAGS = $(TEST_CFLAGS)
tests_unit_merge_test_LDADD = $(TEST_LIBS)
