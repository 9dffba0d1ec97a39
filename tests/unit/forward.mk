# forward_test: Sink=backend forwarding into the test backends of
# tests/backend/ and into libnvtxw3.so itself (issue 4 item 5).
check_PROGRAMS += tests/unit/forward_test
TESTS += tests/unit/forward_test
tests_unit_forward_test_SOURCES = tests/unit/forward_test.c tests/unit/loader_test_util.h
tests_unit_forward_test_CFLAGS = $(TEST_CFLAGS) -pthread
tests_unit_forward_test_LDADD = $(TEST_LIBS) -lpthread
