# report_test: the report end to end (threads, time order, a killed writer).
check_PROGRAMS += tests/unit/report_test
TESTS += tests/unit/report_test
tests_unit_report_test_SOURCES = tests/unit/report_test.c
tests_unit_report_test_CFLAGS = $(TEST_CFLAGS) -pthread
tests_unit_report_test_LDADD = $(TEST_LIBS) -lpthread

# report_semantics_test: NVTXW semantics kept by the report (open streams at
# SessionEnd, reopened streams, foreign handles, counter batches, pointers
# into REFERENCED payloads and flexData, DEEP_COPY, SIZE_MAX strings).
check_PROGRAMS += tests/unit/report_semantics_test
TESTS += tests/unit/report_semantics_test
tests_unit_report_semantics_test_SOURCES = tests/unit/report_semantics_test.c
tests_unit_report_semantics_test_CFLAGS = $(TEST_CFLAGS)
tests_unit_report_semantics_test_LDADD = $(TEST_LIBS)
