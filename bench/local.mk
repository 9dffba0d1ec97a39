# Benchmarks (DESIGN.md section 7): `make bench` builds bench/write_bench and
# runs it, then bench/otf2_import_bench.sh (`make bench-otf2-import` runs only
# that one). Never built by `make` or `make check` (EXTRA_PROGRAMS): timings
# belong in a deliberate run on a quiet machine, not in every build. OTF2 is
# its baseline, so `make bench` refuses to run when configure did not find it.
EXTRA_DIST += bench/write_bench.c bench/README.md bench/otf2_import_bench.sh \
	bench/synthetic_mem_bench.sh
EXTRA_DIST += bench/record_bench.sh
EXTRA_DIST += bench/chrome_in_bench.sh bench/chrome_trace_gen.py bench/perfetto_bench.sh \
	bench/converters_bench.sh
EXTRA_PROGRAMS = bench/write_bench bench/otf2_count bench/line_handoff
CLEANFILES += bench/write_bench$(EXEEXT) bench/otf2_count$(EXEEXT) bench/line_handoff$(EXEEXT)
bench_write_bench_SOURCES = bench/write_bench.c bench/write_bench.h \
	bench/write_bench_nvtxw.c bench/write_bench_otf2.c
bench_write_bench_CFLAGS = $(AM_CFLAGS) $(OTF2_CFLAGS)
bench_write_bench_LDADD = libnvtxw/libnvtxw.la $(OTF2_LIBS)

# The decoding floor of nvtxw-otf2-import (OTF2 only, no libnvtxw).
bench_otf2_count_SOURCES = bench/otf2_count.c
bench_otf2_count_CFLAGS = $(AM_CFLAGS) $(OTF2_CFLAGS)
bench_otf2_count_LDADD = $(OTF2_LIBS)

# The cost of handing 64-byte records to another thread (bench/README.md,
# "Handing the calls to another thread, tried"), printed by bench-record.
bench_line_handoff_SOURCES = bench/line_handoff.c

# Options go through BENCH_FLAGS, e.g. `make bench BENCH_FLAGS="-n 1000000"`.
BENCH_FLAGS =

# The OTF2 import benchmark (bench/README.md): the generator, the counting
# reader and the importer. Its size: NVTXW_OTF2_BENCH_EVENTS in the
# environment, e.g. `make bench-otf2-import NVTXW_OTF2_BENCH_EVENTS=2000000`.
BENCH_OTF2_IMPORT_DEPS = bench/otf2_count$(EXEEXT) tests/gen/nvtxw-otf2-gen$(EXEEXT) \
	tools/otf2-import/nvtxw-otf2-import$(EXEEXT)
BENCH_OTF2_IMPORT = top_builddir=. bash $(srcdir)/bench/otf2_import_bench.sh

if HAVE_OTF2
bench: bench/write_bench$(EXEEXT) tests/unit/chrome_test$(EXEEXT) tests/unit/sqlite_test$(EXEEXT) \
	tests/unit/tasks_test$(EXEEXT) $(BENCH_OTF2_IMPORT_DEPS) tools/replay/nvtxw-replay$(EXEEXT) \
	$(BENCH_RECORD_DEPS)
	./bench/write_bench $(BENCH_FLAGS)
	NVTXW_CHROME_BENCH_RANGES=1000000 ./tests/unit/chrome_test | grep 'MB/s'
	NVTXW_TASKS_BENCH_SLICES=1000000 ./tests/unit/tasks_test | grep 'MB/s'
	NVTXW_SQLITE_BENCH_RANGES=1000000 ./tests/unit/sqlite_test | grep 'rows/s'
	$(BENCH_PERFETTO)
	$(BENCH_CONVERTERS)
	$(BENCH_OTF2_IMPORT)
	$(BENCH_RECORD)
	$(BENCH_MPI_IN_BENCH)
bench-otf2-import: $(BENCH_OTF2_IMPORT_DEPS)
	$(BENCH_OTF2_IMPORT)
else
bench bench-otf2-import:
	@echo "bench: OTF2 is missing (pkg-config otf2 found nothing): install libopen-trace-format2-dev, then re-run configure" >&2
	@exit 1
endif
.PHONY: bench bench-otf2-import

# The --mpi import against one process (bench/README.md, "MPI import"); run
# by `make bench` when configure found MPI (BENCH_MPI_IN_BENCH). Environment,
# e.g. `make bench-mpi NVTXW_MPI_BENCH_EVENTS=4000000`.
EXTRA_DIST += bench/mpi_import_bench.sh
BENCH_MPI = top_builddir=. top_srcdir=$(srcdir) NVTXW_MPIRUN="$(MPIRUN)" \
	bash $(srcdir)/bench/mpi_import_bench.sh
if HAVE_MPI
BENCH_MPI_IN_BENCH = $(BENCH_MPI)
if HAVE_OTF2
bench-mpi: tests/gen/nvtxw-otf2-gen$(EXEEXT) tools/otf2-import/nvtxw-otf2-import$(EXEEXT) \
	tools/replay/nvtxw-replay$(EXEEXT)
	$(BENCH_MPI)
else
bench-mpi:
	@echo "bench-mpi: needs OTF2 (configure --with-otf2)" >&2
	@exit 1
endif
else
BENCH_MPI_IN_BENCH = @echo "bench: no MPI (configure --with-mpi): the --mpi figures are not measured"
bench-mpi:
	@echo "bench-mpi: needs MPI (configure --with-mpi; Debian: openmpi-bin libopenmpi-dev)" >&2
	@exit 1
endif
.PHONY: bench-mpi
