# nvtxw-otf2-gen: writes synthetic OTF2 archives (tests/gen/otf2_gen.c says
# what they hold) for the OTF2 importer's tests, scripts/demo and `make
# bench`. Built by plain `make` whenever configure found OTF2, never
# installed; it links OTF2 only, never libnvtxw.
if HAVE_OTF2
noinst_PROGRAMS += tests/gen/nvtxw-otf2-gen
endif
tests_gen_nvtxw_otf2_gen_SOURCES = \
	tests/gen/otf2_gen.c \
	tests/gen/otf2_gen.h \
	tests/gen/otf2_gen_defs.c \
	tests/gen/otf2_gen_events.c
tests_gen_nvtxw_otf2_gen_CFLAGS = $(AM_CFLAGS) $(OTF2_CFLAGS)
tests_gen_nvtxw_otf2_gen_LDADD = $(OTF2_LIBS)
