# nvtxw-replay: replay a report through libnvtxw's own backend into a sink.
bin_PROGRAMS += tools/replay/nvtxw-replay
tools_replay_nvtxw_replay_SOURCES = tools/replay/nvtxw_replay.c \
	tools/replay/replay_input.h tools/replay/replay_inputs.c tools/replay/replay_inputs.h \
	tools/replay/replay_pending.c \
	tools/replay/capture_internal.h tools/replay/capture_read.c tools/replay/capture_maps.c \
	tools/replay/capture_lines.c tools/replay/capture_line.h tools/replay/capture_regs.c \
	tools/replay/capture_payload.c tools/replay/capture_replay.c \
	tools/common/tool_output.c tools/common/tool_output.h
tools_replay_nvtxw_replay_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools/common \
	-DCAPTURE_SCHEMAS_DIR='"$(pkgdatadir)/schemas"' \
	-DCAPTURE_SOURCE_SCHEMAS_DIR='"$(abs_top_srcdir)/schemas"'
tools_replay_nvtxw_replay_CFLAGS = $(AM_CFLAGS) $(YAML_CFLAGS)
tools_replay_nvtxw_replay_LDADD = libnvtxw/libnvtxw.la $(YAML_LIBS)
dist_man1_MANS += docs/nvtxw-replay.1
