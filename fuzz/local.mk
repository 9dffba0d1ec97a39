# libFuzzer targets: ./configure CC=clang --enable-fuzzing, then
# `make fuzz/visit_fuzz` and run it (not part of make check). The target
# compiles the library sources into itself so that every library function is
# instrumented (coverage and sanitizers), and needs no libtool library.
EXTRA_DIST += fuzz/visit_fuzz.c fuzz/README.md
EXTRA_DIST += fuzz/yaml_fuzz.c fuzz/yaml_fuzz.dict
EXTRA_DIST += fuzz/registry_fuzz.c
if ENABLE_FUZZING
noinst_PROGRAMS += fuzz/visit_fuzz
fuzz_visit_fuzz_SOURCES = fuzz/visit_fuzz.c $(libnvtxw_libnvtxw_la_SOURCES)
fuzz_visit_fuzz_CPPFLAGS = $(AM_CPPFLAGS) -DNVTXW_BUILDING_LIBRARY
fuzz_visit_fuzz_CFLAGS = $(AM_CFLAGS) -fsanitize=fuzzer,address,undefined $(ZSTD_CFLAGS) $(YAML_CFLAGS)
fuzz_visit_fuzz_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer,address,undefined
fuzz_visit_fuzz_LDADD = $(ZSTD_LIBS) $(YAML_LIBS)
noinst_PROGRAMS += fuzz/yaml_fuzz
fuzz_yaml_fuzz_SOURCES = fuzz/yaml_fuzz.c $(libnvtxw_libnvtxw_la_SOURCES)
fuzz_yaml_fuzz_CPPFLAGS = $(AM_CPPFLAGS) -DNVTXW_BUILDING_LIBRARY
fuzz_yaml_fuzz_CFLAGS = $(AM_CFLAGS) -fsanitize=fuzzer,address,undefined $(ZSTD_CFLAGS) $(YAML_CFLAGS)
fuzz_yaml_fuzz_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer,address,undefined
fuzz_yaml_fuzz_LDADD = $(ZSTD_LIBS) $(YAML_LIBS)
noinst_PROGRAMS += fuzz/registry_fuzz
fuzz_registry_fuzz_SOURCES = fuzz/registry_fuzz.c $(libnvtxw_libnvtxw_la_SOURCES)
fuzz_registry_fuzz_CPPFLAGS = $(AM_CPPFLAGS) -DNVTXW_BUILDING_LIBRARY
fuzz_registry_fuzz_CFLAGS = $(AM_CFLAGS) -fsanitize=fuzzer,address,undefined $(ZSTD_CFLAGS) $(YAML_CFLAGS)
fuzz_registry_fuzz_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer,address,undefined
fuzz_registry_fuzz_LDADD = $(ZSTD_LIBS) $(YAML_LIBS)
endif
