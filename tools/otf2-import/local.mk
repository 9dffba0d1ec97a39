# nvtxw-otf2-import: OTF2 archives through the NVTXW API (docs/otf2-mapping.md).
# Built only when configure found OTF2; OTF2 is linked into this tool alone
# (STYLE rule 1). schemas/otf2-events.yaml is compiled in as a C string.
if HAVE_OTF2
bin_PROGRAMS += tools/otf2-import/nvtxw-otf2-import
dist_man1_MANS += docs/nvtxw-otf2-import.1
endif
tools_otf2_import_nvtxw_otf2_import_SOURCES = \
	tools/otf2-import/nvtxw_otf2_import.c \
	tools/otf2-import/otf2_import.h \
	tools/otf2-import/ev_common.h \
	tools/otf2-import/event_kinds.inc \
	tools/otf2-import/def_table.c \
	tools/otf2-import/defs.c \
	tools/otf2-import/defs_check.c \
	tools/otf2-import/layout.c \
	tools/otf2-import/register.c \
	tools/otf2-import/register_scopes.c \
	tools/otf2-import/task_set.c \
	tools/otf2-import/slices.c \
	tools/otf2-import/mpi_split.c \
	tools/otf2-import/tasks.c \
	tools/otf2-import/import.c \
	tools/otf2-import/worker.c \
	tools/otf2-import/location.c \
	tools/otf2-import/ticks.c \
	tools/otf2-import/ev_region.c \
	tools/otf2-import/ev_mpi.c \
	tools/otf2-import/ev_thread.c \
	tools/otf2-import/ev_misc.c \
	tools/otf2-import/ev_io.c \
	tools/otf2-import/ev_metric.c \
	tools/common/tool_alloc.h \
	tools/common/tool_output.c \
	tools/common/tool_output.h \
	tools/common/tool_interrupt.c \
	tools/common/tool_interrupt.h \
	tools/common/tool_progress.c \
	tools/common/tool_progress.h \
	tools/common/tool_memory.c \
	tools/common/tool_memory.h \
	tools/common/tool_share.c \
	tools/common/tool_share.h \
	tools/common/tool_mpi.h
nodist_tools_otf2_import_nvtxw_otf2_import_SOURCES = tools/otf2-import/otf2_events_yaml.inc
tools_otf2_import_nvtxw_otf2_import_CPPFLAGS = $(TOOL_CPPFLAGS) -D_POSIX_C_SOURCE=200809L \
	-I$(top_builddir)/tools/otf2-import
tools_otf2_import_nvtxw_otf2_import_CFLAGS = $(AM_CFLAGS) $(OTF2_CFLAGS)
tools_otf2_import_nvtxw_otf2_import_LDADD = libnvtxw/libnvtxw.la $(OTF2_LIBS)
if HAVE_MPI
# --mpi: the share's callbacks over MPI (tools/common/tool_mpi.c)
tools_otf2_import_nvtxw_otf2_import_SOURCES += tools/common/tool_mpi.c
tools_otf2_import_nvtxw_otf2_import_CFLAGS += $(MPI_CFLAGS)
tools_otf2_import_nvtxw_otf2_import_LDADD += $(MPI_LIBS)
endif
BUILT_SOURCES += tools/otf2-import/otf2_events_yaml.inc
CLEANFILES += tools/otf2-import/otf2_events_yaml.inc

# The YAML file as the body of a C string literal, one line per line.
tools/otf2-import/otf2_events_yaml.inc: $(top_srcdir)/schemas/otf2-events.yaml
	@$(MKDIR_P) tools/otf2-import
	$(AM_V_GEN)sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' \
	  $(top_srcdir)/schemas/otf2-events.yaml > $@.tmp && mv $@.tmp $@
