# tests/unit/stats.mk - Sink=stats (stats_test.c): the nsys-style range
# summaries and push/pop trace in text, CSV and JSON against golden files in
# tests/data/golden/ (JSON checked by python3's json module), split ranges
# across streams, unclosed ranges, bad config, and four threads writing at
# once (also run under TSan by CI). Regenerate the golden files with
#   NVTXW_UPDATE_GOLDEN=1 make check TESTS=tests/unit/stats_test
# and review the diff by eye.
check_PROGRAMS += tests/unit/stats_test
TESTS += tests/unit/stats_test
tests_unit_stats_test_SOURCES = tests/unit/stats_test.c
tests_unit_stats_test_CFLAGS = $(TEST_CFLAGS) -pthread
tests_unit_stats_test_LDADD = $(TEST_LIBS) -lpthread
EXTRA_DIST += \
	tests/data/golden/stats-golden.txt \
	tests/data/golden/stats-golden.csv \
	tests/data/golden/stats-golden.json
