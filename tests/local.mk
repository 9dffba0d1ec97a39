# Tests. `make check` runs the three rings of STYLE rule 17: Check unit tests
# per module, CLI golden tests, round trips. Slow runs go to `make check-long`.
TEST_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
TEST_LIBS = libnvtxw/libnvtxw.la $(CHECK_LIBS)
AM_TESTS_ENVIRONMENT = \
	top_srcdir='$(top_srcdir)'; export top_srcdir; \
	top_builddir='$(top_builddir)'; export top_builddir; \
	CC='$(CC)'; export CC; CXX='$(CXX)'; export CXX; \
	NVTX3_INCLUDE='$(NVTX3_INCLUDE)'; export NVTX3_INCLUDE; \
	CK_DEFAULT_TIMEOUT=60; export CK_DEFAULT_TIMEOUT; \
	NVTXW_SANITIZERS='$(SANITIZER_FLAGS)'; export NVTXW_SANITIZERS;
# Whether this build has OTF2 (the importer): tests that also cover it fail
# when it is missing from a build that should have it.
if HAVE_OTF2
AM_TESTS_ENVIRONMENT += NVTXW_HAVE_OTF2=yes; export NVTXW_HAVE_OTF2;
else
AM_TESTS_ENVIRONMENT += NVTXW_HAVE_OTF2=no; export NVTXW_HAVE_OTF2;
endif

include tests/backend/local.mk
include tests/unit/local.mk
include tests/cli/local.mk
include tests/gen/local.mk
include tests/otf2/local.mk
include tests/mpi/local.mk
include tests/perfetto/local.mk
include tests/layout/local.mk

# Optional checks this configuration cannot run, one quoted line each:
# `make check` prints them as "not run: ..." (check-local) and scripts/test
# repeats them in its closing summary, so a check never drops out unnoticed.
SKIPPED_CHECKS =
if !HAVE_NVTX3
SKIPPED_CHECKS += 'tests/unit/abi_nvidia_test (our public types against NVIDIA nvtx3 headers, byte for byte): this build has no NVIDIA nvtx3 headers (none under /usr/local/cuda*/include, or --without-nvtx3); install the CUDA toolkit or pass --with-nvtx3=DIR'
endif
if !HAVE_OTF2
SKIPPED_CHECKS += 'tests/otf2/import_test.sh, bad_input_test.sh, checker_test.sh and the OTF2 round trips of tests/cli (nvtxw-otf2-import against the python3-otf2 oracle): this build has no OTF2 >= 2.3 (not found, or --without-otf2); install libopen-trace-format2-dev and configure --with-otf2'
endif
include tests/record/local.mk
check-local:
	@for line in $(SKIPPED_CHECKS); do echo "not run: $$line"; done

# check-long: after `make check`, the allocation-failure walks of the tools
# over every allocation (check-alloc-walk, tests/unit/tool_alloc.mk), then
# the headless viewer-engine check of the JSON
# sink (tests/viewer/viewer_test.sh: Node 20 and npm; the engine is installed
# from the npm registry into tests/viewer/engine of the build directory), then
# the task model's view of the synthetic `tasks` workload in that engine
# (tests/viewer/tasks_viewer_test.sh).
# `make check-viewer` runs only the viewer checks (after a make check that
# already passed, as scripts/test does).
check-long: check
	$(MAKE) $(AM_MAKEFLAGS) check-alloc-walk
	$(MAKE) $(AM_MAKEFLAGS) check-viewer
check-viewer: all
	top_srcdir='$(top_srcdir)' top_builddir='$(top_builddir)' \
	  bash '$(top_srcdir)/tests/viewer/viewer_test.sh'
	top_srcdir='$(top_srcdir)' top_builddir='$(top_builddir)' \
	  bash '$(top_srcdir)/tests/viewer/tasks_viewer_test.sh'
.PHONY: check-long check-viewer
EXTRA_DIST += tests/testlib.sh
EXTRA_DIST += tests/viewer/viewer_test.sh tests/viewer/check_trace.mjs tests/viewer/check_flows.mjs \
	tests/viewer/package.json tests/viewer/package-lock.json \
	tests/viewer/tasks_viewer_test.sh tests/viewer/check_tasks.mjs tests/viewer/tasks_expect.py \
	tests/viewer/viewer_common.mjs tests/viewer/otf2_expect.py
distclean-local: clean-viewer-engine
clean-viewer-engine:
	rm -rf tests/viewer/engine
.PHONY: clean-viewer-engine
