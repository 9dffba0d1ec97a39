# Benchmarks (DESIGN.md section 7): `make bench` builds bench/write_bench and
# runs it. Never built by `make` or `make check` (EXTRA_PROGRAMS): timings
# belong in a deliberate run on a quiet machine, not in every build. OTF2 is
# its baseline, so `make bench` refuses to run when configure did not find it.
EXTRA_DIST += bench/write_bench.c bench/README.md
EXTRA_PROGRAMS = bench/write_bench
CLEANFILES += bench/write_bench$(EXEEXT)
bench_write_bench_SOURCES = bench/write_bench.c
bench_write_bench_CFLAGS = $(AM_CFLAGS) $(OTF2_CFLAGS)
bench_write_bench_LDADD = libnvtxw/libnvtxw.la $(OTF2_LIBS)

# Options go through BENCH_FLAGS, e.g. `make bench BENCH_FLAGS="-n 1000000"`.
BENCH_FLAGS =
if HAVE_OTF2
bench: bench/write_bench$(EXEEXT) tests/unit/chrome_test$(EXEEXT) tests/unit/sqlite_test$(EXEEXT)
	./bench/write_bench $(BENCH_FLAGS)
	NVTXW_CHROME_BENCH_RANGES=1000000 ./tests/unit/chrome_test | grep 'MB/s'
	NVTXW_SQLITE_BENCH_RANGES=1000000 ./tests/unit/sqlite_test | grep 'rows/s'
else
bench:
	@echo "bench: OTF2 is missing (pkg-config otf2 found nothing): install libopen-trace-format2-dev, then re-run configure" >&2
	@exit 1
endif
.PHONY: bench
