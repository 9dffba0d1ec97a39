# libFuzzer targets: ./configure CC=clang --enable-fuzzing, then
# `make fuzz/visit_fuzz` and run it (not part of make check). The target
# compiles the library sources into itself so that every library function is
# instrumented (coverage and sanitizers), and needs no libtool library.
EXTRA_DIST += fuzz/visit_fuzz.c fuzz/README.md
EXTRA_DIST += fuzz/yaml_fuzz.c fuzz/yaml_fuzz.dict
EXTRA_DIST += fuzz/registry_fuzz.c fuzz/reader_fuzz.c
EXTRA_DIST += fuzz/capture_fuzz.c fuzz/capture_fuzz.dict
if ENABLE_FUZZING
# Each target compiles the library's sources itself, instrumented.
FUZZ_FLAGS = -fsanitize=fuzzer,address,undefined
FUZZ_CPPFLAGS = $(AM_CPPFLAGS) -DNVTXW_BUILDING_LIBRARY
FUZZ_CFLAGS = $(AM_CFLAGS) $(FUZZ_FLAGS) $(ZSTD_CFLAGS) $(YAML_CFLAGS) $(XXHASH_CFLAGS)
FUZZ_LDADD = $(ZSTD_LIBS) $(YAML_LIBS) $(XXHASH_LIBS) $(SQLITE_LIBS)
noinst_PROGRAMS += fuzz/visit_fuzz fuzz/yaml_fuzz fuzz/registry_fuzz fuzz/reader_fuzz
fuzz_visit_fuzz_SOURCES = fuzz/visit_fuzz.c $(libnvtxw_libnvtxw_la_SOURCES)
fuzz_visit_fuzz_CPPFLAGS = $(FUZZ_CPPFLAGS)
fuzz_visit_fuzz_CFLAGS = $(FUZZ_CFLAGS)
fuzz_visit_fuzz_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_FLAGS)
fuzz_visit_fuzz_LDADD = $(FUZZ_LDADD)
fuzz_yaml_fuzz_SOURCES = fuzz/yaml_fuzz.c $(libnvtxw_libnvtxw_la_SOURCES)
fuzz_yaml_fuzz_CPPFLAGS = $(FUZZ_CPPFLAGS)
fuzz_yaml_fuzz_CFLAGS = $(FUZZ_CFLAGS)
fuzz_yaml_fuzz_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_FLAGS)
fuzz_yaml_fuzz_LDADD = $(FUZZ_LDADD)
fuzz_registry_fuzz_SOURCES = fuzz/registry_fuzz.c $(libnvtxw_libnvtxw_la_SOURCES)
fuzz_registry_fuzz_CPPFLAGS = $(FUZZ_CPPFLAGS)
fuzz_registry_fuzz_CFLAGS = $(FUZZ_CFLAGS)
fuzz_registry_fuzz_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_FLAGS)
fuzz_registry_fuzz_LDADD = $(FUZZ_LDADD)
fuzz_reader_fuzz_SOURCES = fuzz/reader_fuzz.c $(libnvtxw_libnvtxw_la_SOURCES)
fuzz_reader_fuzz_CPPFLAGS = $(FUZZ_CPPFLAGS)
fuzz_reader_fuzz_CFLAGS = $(FUZZ_CFLAGS)
fuzz_reader_fuzz_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_FLAGS)
fuzz_reader_fuzz_LDADD = $(FUZZ_LDADD)
# The capture reader is nvtxw-replay's (tools/replay/capture/).
noinst_PROGRAMS += fuzz/capture_fuzz
fuzz_capture_fuzz_SOURCES = fuzz/capture_fuzz.c tools/replay/capture/capture_read.c \
	tools/replay/capture/capture_maps.c tools/replay/capture/capture_lines.c \
	tools/replay/capture/capture_regs.c tools/replay/capture/capture_payload.c \
	tools/replay/capture/capture_replay.c $(libnvtxw_libnvtxw_la_SOURCES)
fuzz_capture_fuzz_CPPFLAGS = $(FUZZ_CPPFLAGS) -I$(top_srcdir)/tools/replay \
	-DCAPTURE_SCHEMAS_DIR='"$(pkgdatadir)/schemas"' \
	-DCAPTURE_SOURCE_SCHEMAS_DIR='"$(abs_top_srcdir)/schemas"'
fuzz_capture_fuzz_CFLAGS = $(FUZZ_CFLAGS)
fuzz_capture_fuzz_LDFLAGS = $(AM_LDFLAGS) $(FUZZ_FLAGS)
fuzz_capture_fuzz_LDADD = $(FUZZ_LDADD)
endif
