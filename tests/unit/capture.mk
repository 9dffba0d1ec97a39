# tests/unit/capture.mk - nvtxw-replay's JSON Lines capture reader
# (tools/replay/capture/capture_jsonl.c): the events of every case read
# through yajl equal libyaml's, and yajl takes exactly the lines it may.
check_PROGRAMS += tests/unit/capture_events_test
TESTS += tests/unit/capture_events_test
tests_unit_capture_events_test_SOURCES = tests/unit/capture_events_test.c \
	tools/replay/capture/capture_read.c tools/replay/capture/capture_input.c \
	tools/replay/capture/capture_jsonl.c tools/replay/capture/capture_maps.c \
	tools/replay/capture/capture_lines.c tools/replay/capture/capture_regs.c \
	tools/replay/capture/capture_payload.c tools/replay/capture/capture_replay.c \
	tools/common/tool_interrupt.c
tests_unit_capture_events_test_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools/replay/capture \
	-I$(top_srcdir)/tools/replay -I$(top_srcdir)/tools/common \
	-DCAPTURE_SCHEMAS_DIR='"$(pkgdatadir)/schemas"' \
	-DCAPTURE_SOURCE_SCHEMAS_DIR='"$(abs_top_srcdir)/schemas"'
tests_unit_capture_events_test_CFLAGS = $(TEST_CFLAGS) $(YAML_CFLAGS) $(YAJL_CFLAGS)
tests_unit_capture_events_test_LDADD = $(TEST_LIBS) $(YAML_LIBS) $(YAJL_LIBS) -lm
