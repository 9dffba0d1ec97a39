# tests/unit/stats.mk - Sink=stats (stats_test.c): the nsys-style range
# summaries and push/pop trace in text, CSV and JSON, each read back and
# compared with figures the test recomputes from the timestamps it feeds,
# then with golden files in tests/data/golden/ (JSON also checked by python3's
# json module); split ranges across streams, unclosed ranges, bad config, and
# four threads writing at once (also run under TSan by CI). Regenerate the
# golden files with
#   NVTXW_UPDATE_GOLDEN=1 make check TESTS=tests/unit/stats_test
# which rewrites them and fails by design; review the diff, then run again
# without the variable.
check_PROGRAMS += tests/unit/stats_test
TESTS += tests/unit/stats_test
tests_unit_stats_test_SOURCES = tests/unit/stats_test.c
tests_unit_stats_test_CFLAGS = $(TEST_CFLAGS) -pthread
tests_unit_stats_test_LDADD = $(TEST_LIBS) -lpthread
EXTRA_DIST += \
	tests/data/golden/stats-golden.txt \
	tests/data/golden/stats-golden.csv \
	tests/data/golden/stats-golden.json
