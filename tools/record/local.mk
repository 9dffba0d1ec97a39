# nvtxw-record and libnvtxw-inject.so (docs/record.md): NVTX-annotated
# programs recorded through NVTX's injection interface. The injection
# library is a module NVTX loads with dlopen (NVTX_INJECTION64_PATH), so it
# goes to $(pkglibdir), not the linker's path; nvtxw-record finds it there.
pkglib_LTLIBRARIES = tools/record/libnvtxw-inject.la
tools_record_libnvtxw_inject_la_SOURCES = \
	tools/record/nvtx_inject_abi.h \
	tools/record/rec_internal.h \
	tools/record/rec_inject.c \
	tools/record/rec_session.c \
	tools/record/rec_events.c \
	tools/record/rec_counters.c \
	tools/record/rec_sync.c \
	tools/record/rec_clock.c
tools_record_libnvtxw_inject_la_CPPFLAGS = $(TOOL_CPPFLAGS)
tools_record_libnvtxw_inject_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
tools_record_libnvtxw_inject_la_LDFLAGS = -module -avoid-version -shared -no-undefined
tools_record_libnvtxw_inject_la_LIBADD = libnvtxw/libnvtxw.la

bin_PROGRAMS += tools/record/nvtxw-record
tools_record_nvtxw_record_SOURCES = \
	tools/record/nvtxw_record.c \
	tools/common/tool_output.c \
	tools/common/tool_output.h
tools_record_nvtxw_record_CPPFLAGS = $(TOOL_CPPFLAGS) -DNVTXW_INJECT_DIR='"$(pkglibdir)"'
tools_record_nvtxw_record_LDADD = libnvtxw/libnvtxw.la
dist_man1_MANS += docs/nvtxw-record.1
