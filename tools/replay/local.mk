# nvtxw-replay: reports and the other inputs into any sink. The driver
# (driver/) runs reports through the reader and hands every other input to
# its producer, one folder each (capture/, chrome/, synthetic/), through
# replay_input.h. A producer includes replay_input.h, tools/common/ and the
# public API, never the driver or another producer (tests/layout/).
bin_PROGRAMS += tools/replay/nvtxw-replay
tools_replay_nvtxw_replay_SOURCES = tools/replay/replay_input.h \
	tools/replay/driver/nvtxw_replay.c \
	tools/replay/driver/replay_sources.c tools/replay/driver/replay_sources.h \
	tools/replay/driver/replay_patterns.c tools/replay/driver/replay_patterns.h \
	tools/replay/chrome/chrome_in.h tools/replay/chrome/chrome_in_doc.c \
	tools/replay/chrome/chrome_in_events.c tools/replay/chrome/chrome_in_json.c \
	tools/replay/chrome/chrome_in_main.c tools/replay/chrome/chrome_in_meta.c \
	tools/replay/chrome/chrome_in_pipe.c tools/replay/chrome/chrome_in_scan.c \
	tools/replay/chrome/chrome_in_time.c tools/replay/chrome/chrome_in_write.c \
	tools/replay/synthetic/synthetic.h tools/replay/synthetic/synthetic_spec.c \
	tools/replay/synthetic/synthetic_common.c tools/replay/synthetic/synthetic_mpi.c \
	tools/replay/synthetic/synthetic_gpu.c tools/replay/synthetic/synthetic_nested.c \
	tools/replay/synthetic/synthetic_nested.h \
	tools/replay/synthetic/synthetic_nested_payload.c \
	tools/replay/synthetic/synthetic_tasks.c \
	tools/replay/capture/capture_reader.h tools/replay/capture/capture_read.c \
	tools/replay/capture/capture_input.c tools/replay/capture/capture_jsonl.c \
	tools/replay/capture/capture_maps.c tools/replay/capture/capture_lines.c \
	tools/replay/capture/capture_line.h tools/replay/capture/capture_regs.c \
	tools/replay/capture/capture_payload.c tools/replay/capture/capture_replay.c \
	tools/common/tool_alloc.h tools/common/tool_output.c tools/common/tool_output.h \
	tools/common/tool_interrupt.c tools/common/tool_interrupt.h \
	tools/common/tool_progress.c tools/common/tool_progress.h \
	tools/common/tool_memory.c tools/common/tool_memory.h
tools_replay_nvtxw_replay_CPPFLAGS = $(TOOL_CPPFLAGS) -I$(top_srcdir)/tools/replay \
	-DCAPTURE_SCHEMAS_DIR='"$(pkgdatadir)/schemas"' \
	-DCAPTURE_SOURCE_SCHEMAS_DIR='"$(abs_top_srcdir)/schemas"'
tools_replay_nvtxw_replay_CFLAGS = $(AM_CFLAGS) $(YAJL_CFLAGS) $(YAML_CFLAGS)
tools_replay_nvtxw_replay_LDADD = libnvtxw/libnvtxw.la $(YAJL_LIBS) $(YAML_LIBS) -lm
dist_man1_MANS += docs/nvtxw-replay.1
