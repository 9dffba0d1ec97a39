# tests/unit/tool_alloc.mk - allocation-failure walks through whole runs of
# nvtxw-replay and nvtxw-otf2-import (tests/unit/tool_alloc_test.c): each
# program compiles its tool's sources with the tool's main renamed tool_main
# (which then has no prototype of its own: -Wno-missing-prototypes; the tools
# themselves are built with every warning).
TOOL_ALLOC_CFLAGS = $(CHECK_CFLAGS) -Wno-missing-prototypes
check_PROGRAMS += tests/unit/tool_alloc_replay_test
TESTS += tests/unit/tool_alloc_replay_test
TOOL_ALLOC_TESTS = tests/unit/tool_alloc_replay_test
tests_unit_tool_alloc_replay_test_SOURCES = tests/unit/tool_alloc_test.c \
	$(tools_replay_nvtxw_replay_SOURCES)
tests_unit_tool_alloc_replay_test_CPPFLAGS = $(tools_replay_nvtxw_replay_CPPFLAGS) \
	-I$(top_srcdir)/libnvtxw -Dmain=tool_main -DTOOL_ALLOC_REPLAY
tests_unit_tool_alloc_replay_test_CFLAGS = $(tools_replay_nvtxw_replay_CFLAGS) $(TOOL_ALLOC_CFLAGS)
tests_unit_tool_alloc_replay_test_LDADD = $(tools_replay_nvtxw_replay_LDADD) $(CHECK_LIBS)

if HAVE_OTF2
check_PROGRAMS += tests/unit/tool_alloc_import_test
TESTS += tests/unit/tool_alloc_import_test
TOOL_ALLOC_TESTS += tests/unit/tool_alloc_import_test
endif
tests_unit_tool_alloc_import_test_SOURCES = tests/unit/tool_alloc_test.c \
	$(tools_otf2_import_nvtxw_otf2_import_SOURCES)
nodist_tests_unit_tool_alloc_import_test_SOURCES = \
	$(nodist_tools_otf2_import_nvtxw_otf2_import_SOURCES)
tests_unit_tool_alloc_import_test_CPPFLAGS = $(tools_otf2_import_nvtxw_otf2_import_CPPFLAGS) \
	-I$(top_srcdir)/libnvtxw -Dmain=tool_main -DTOOL_ALLOC_IMPORT
tests_unit_tool_alloc_import_test_CFLAGS = $(tools_otf2_import_nvtxw_otf2_import_CFLAGS) \
	$(TOOL_ALLOC_CFLAGS)
tests_unit_tool_alloc_import_test_LDADD = $(tools_otf2_import_nvtxw_otf2_import_LDADD) \
	$(CHECK_LIBS)

# make check walks every allocation of the first 200 and a stride of the
# rest (about 350 runs per command line); check-alloc-walk (part of
# check-long) walks every one.
check-alloc-walk:
	NVTXW_ALLOC_WALK=all $(MAKE) $(AM_MAKEFLAGS) check TESTS='$(TOOL_ALLOC_TESTS)'
.PHONY: check-alloc-walk
