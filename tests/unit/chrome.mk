# tests/unit/chrome.mk - Sink=json (chrome_test.c): a golden session with
# every event kind, checked event by event against the calls that made it and
# byte for byte against tests/data/golden/chrome-session.json; every output
# parsed by python3's json module and checked for Trace Event Format
# semantics, 4 writer threads on 4 streams (also run under TSan by CI), bad
# outputs, and the MB/s of JSON written (set NVTXW_CHROME_BENCH_RANGES=1000000
# for the DESIGN figure). Regenerate the golden file with
#   NVTXW_UPDATE_GOLDEN=1 make check TESTS=tests/unit/chrome_test
# which rewrites it and fails by design; review the diff, then run again
# without the variable.
check_PROGRAMS += tests/unit/chrome_test
TESTS += tests/unit/chrome_test
tests_unit_chrome_test_SOURCES = tests/unit/chrome_test.c
tests_unit_chrome_test_CFLAGS = $(TEST_CFLAGS) -pthread
tests_unit_chrome_test_LDADD = $(TEST_LIBS) -lpthread -lm
EXTRA_DIST += tests/data/golden/chrome-session.json
