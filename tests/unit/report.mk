# report_test: the report end to end (threads, time order, a killed writer).
check_PROGRAMS += tests/unit/report_test
TESTS += tests/unit/report_test
tests_unit_report_test_SOURCES = tests/unit/report_test.c
tests_unit_report_test_CFLAGS = $(TEST_CFLAGS) -pthread
tests_unit_report_test_LDADD = $(TEST_LIBS) -lpthread
