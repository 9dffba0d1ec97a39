# libFuzzer targets: ./configure CC=clang --enable-fuzzing, then
# `make fuzz/visit_fuzz` and run it (not part of make check).
EXTRA_DIST += fuzz/visit_fuzz.c fuzz/README.md
if ENABLE_FUZZING
noinst_PROGRAMS += fuzz/visit_fuzz
fuzz_visit_fuzz_SOURCES = fuzz/visit_fuzz.c
fuzz_visit_fuzz_CFLAGS = $(AM_CFLAGS) -fsanitize=fuzzer,address,undefined
fuzz_visit_fuzz_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer,address,undefined -static
fuzz_visit_fuzz_LDADD = libnvtxw/libnvtxw.la
endif
