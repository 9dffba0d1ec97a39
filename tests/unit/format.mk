# tests/unit/format.mk - JSON and text payload formatters (format_test.c):
# each output is checked against an expectation the test prints from its own
# input, then against golden files in tests/data/golden/, every JSON output
# also by python3's json module. Regenerate the golden files with
#   NVTXW_UPDATE_GOLDEN=1 make check TESTS=tests/unit/format_test
# which rewrites them and fails by design; review the diff, then run again
# without the variable.

check_PROGRAMS += tests/unit/format_test
TESTS += tests/unit/format_test
tests_unit_format_test_SOURCES = tests/unit/format_test.c
tests_unit_format_test_CFLAGS = $(TEST_CFLAGS)
tests_unit_format_test_LDADD = $(TEST_LIBS)

# The formatters' callbacks driven by scripted events (grammar violations,
# invalid UTF-8, depth): linked with their sources, not with libnvtxw.
check_PROGRAMS += tests/unit/format_events_test
TESTS += tests/unit/format_events_test
tests_unit_format_events_test_SOURCES = tests/unit/format_events_test.c \
	libnvtxw/payload/format_common.c libnvtxw/payload/format_json.c \
	libnvtxw/payload/format_text.c libnvtxw/common/error.c libnvtxw/common/utf8.c \
	libnvtxw/common/alloc.c libnvtxw/common/json_value.c libnvtxw/common/strbuf.c
tests_unit_format_events_test_CFLAGS = $(TEST_CFLAGS) $(YAJL_CFLAGS)
tests_unit_format_events_test_LDADD = $(CHECK_LIBS) $(YAJL_LIBS)

EXTRA_DIST += \
	tests/data/golden/scalars.json \
	tests/data/golden/scalars.txt \
	tests/data/golden/floats.json \
	tests/data/golden/floats.txt \
	tests/data/golden/strings.json \
	tests/data/golden/strings.txt \
	tests/data/golden/enums.json \
	tests/data/golden/enums.txt \
	tests/data/golden/handles_resolved.json \
	tests/data/golden/handles_resolved.txt \
	tests/data/golden/handles_unresolved.json \
	tests/data/golden/handles_unresolved.txt \
	tests/data/golden/nested.json \
	tests/data/golden/nested.txt \
	tests/data/golden/grid.json \
	tests/data/golden/grid.txt \
	tests/data/golden/union.json \
	tests/data/golden/union.txt \
	tests/data/golden/event.json \
	tests/data/golden/event.txt
