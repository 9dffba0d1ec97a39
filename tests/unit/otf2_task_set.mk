# tests/unit/otf2_task_set.mk - nvtxw-otf2-import's task set and slices
# (tools/otf2-import/task_set.c) against a linear-search oracle.
if HAVE_OTF2
check_PROGRAMS += tests/unit/otf2_task_set_test
TESTS += tests/unit/otf2_task_set_test
endif
tests_unit_otf2_task_set_test_SOURCES = tests/unit/otf2_task_set_test.c \
	tools/otf2-import/task_set.c
tests_unit_otf2_task_set_test_CPPFLAGS = $(tools_otf2_import_nvtxw_otf2_import_CPPFLAGS) \
	-I$(top_srcdir)/tools/otf2-import -I$(top_srcdir)/tests/unit
tests_unit_otf2_task_set_test_CFLAGS = $(tools_otf2_import_nvtxw_otf2_import_CFLAGS) $(CHECK_CFLAGS)
tests_unit_otf2_task_set_test_LDADD = libnvtxw/libnvtxw.la $(CHECK_LIBS)

# tests/unit/otf2_slices_test: how a process read in turns is cut into
# slices (tools/otf2-import/slices.c).
if HAVE_OTF2
check_PROGRAMS += tests/unit/otf2_slices_test
TESTS += tests/unit/otf2_slices_test
endif
tests_unit_otf2_slices_test_SOURCES = tests/unit/otf2_slices_test.c tools/otf2-import/slices.c
tests_unit_otf2_slices_test_CPPFLAGS = $(tests_unit_otf2_task_set_test_CPPFLAGS)
tests_unit_otf2_slices_test_CFLAGS = $(tests_unit_otf2_task_set_test_CFLAGS)
tests_unit_otf2_slices_test_LDADD = $(CHECK_LIBS)
