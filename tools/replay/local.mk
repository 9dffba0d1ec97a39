# nvtxw-replay: replay a report through libnvtxw's own backend into a sink.
bin_PROGRAMS += tools/replay/nvtxw-replay
tools_replay_nvtxw_replay_SOURCES = tools/replay/nvtxw_replay.c \
	tools/replay/replay_input.h tools/replay/replay_inputs.c tools/replay/replay_inputs.h \
	tools/replay/chrome_in.h tools/replay/chrome_in_doc.c tools/replay/chrome_in_events.c \
	tools/replay/chrome_in_json.c tools/replay/chrome_in_main.c tools/replay/chrome_in_meta.c \
	tools/replay/chrome_in_time.c tools/replay/chrome_in_write.c \
	tools/replay/synthetic.h tools/replay/synthetic_spec.c tools/replay/synthetic_common.c \
	tools/replay/synthetic_mpi.c tools/replay/synthetic_gpu.c tools/replay/synthetic_nested.c \
	tools/replay/synthetic_nested.h tools/replay/synthetic_nested_payload.c \
	tools/replay/synthetic_tasks.c \
	tools/replay/capture_internal.h tools/replay/capture_read.c tools/replay/capture_maps.c \
	tools/replay/capture_lines.c tools/replay/capture_line.h tools/replay/capture_regs.c \
	tools/replay/capture_payload.c tools/replay/capture_replay.c \
	tools/common/tool_output.c tools/common/tool_output.h
tools_replay_nvtxw_replay_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools/common \
	-DCAPTURE_SCHEMAS_DIR='"$(pkgdatadir)/schemas"' \
	-DCAPTURE_SOURCE_SCHEMAS_DIR='"$(abs_top_srcdir)/schemas"'
tools_replay_nvtxw_replay_CFLAGS = $(AM_CFLAGS) $(YAJL_CFLAGS) $(YAML_CFLAGS)
tools_replay_nvtxw_replay_LDADD = libnvtxw/libnvtxw.la $(YAJL_LIBS) $(YAML_LIBS)
dist_man1_MANS += docs/nvtxw-replay.1
