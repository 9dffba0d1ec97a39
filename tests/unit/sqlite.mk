# tests/unit/sqlite.mk - Sink=sqlite (sqlite_test.c): sessions written
# through the NVTXW v2 table with known ranges, marks and counters, read back
# with the sqlite3 API (exact rows, the payload bytes, PayloadJson=yes and
# its bad values, the docs/sqlite-schema.md example queries), four threads
# on four streams at once (TSan in CI), a bad Output
# path, and the rows/s of 1M ranges (printed; NVTXW_SQLITE_BENCH_RANGES
# changes the count).
check_PROGRAMS += tests/unit/sqlite_test
TESTS += tests/unit/sqlite_test
tests_unit_sqlite_test_SOURCES = tests/unit/sqlite_test.c
tests_unit_sqlite_test_CFLAGS = $(TEST_CFLAGS) $(SQLITE_CFLAGS) -pthread
tests_unit_sqlite_test_LDADD = $(TEST_LIBS) $(SQLITE_LIBS) -lpthread
