# tests/unit/otf2_ticks.mk - nvtxw-otf2-import's clock conversion
# (tools/otf2-import/ticks.c) against its definition in 128-bit integers.
if HAVE_OTF2
check_PROGRAMS += tests/unit/otf2_ticks_test
TESTS += tests/unit/otf2_ticks_test
endif
tests_unit_otf2_ticks_test_SOURCES = tests/unit/otf2_ticks_test.c tools/otf2-import/ticks.c
tests_unit_otf2_ticks_test_CPPFLAGS = $(tools_otf2_import_nvtxw_otf2_import_CPPFLAGS) \
	-I$(top_srcdir)/tools/otf2-import -I$(top_srcdir)/tests/unit
tests_unit_otf2_ticks_test_CFLAGS = $(tools_otf2_import_nvtxw_otf2_import_CFLAGS) $(CHECK_CFLAGS)
tests_unit_otf2_ticks_test_LDADD = $(CHECK_LIBS)
