# Integration tests of nvtxw-otf2-import against an independent oracle
# (tests/otf2/otf2_oracle.py on Debian's python3-otf2) on the shared Score-P
# archives and on archives from tests/gen/nvtxw-otf2-gen. The archives stay
# outside the project: the tests read them from $NVTXW_OTF2_TEST_DATA when it
# is set in the environment, else from OTF2_TEST_ARCHIVES (by default
# ../shared/data/otf2 next to the source tree; `make check
# OTF2_TEST_ARCHIVES=/path` also reaches the build of `make distcheck`). The
# tests fail, never skip, when the folder is missing. Include this fragment
# after AM_TESTS_ENVIRONMENT is set (tests/local.mk).
OTF2_TEST_ARCHIVES = $(abs_top_srcdir)/../shared/data/otf2
AM_TESTS_ENVIRONMENT += \
	NVTXW_OTF2_TEST_DATA="$${NVTXW_OTF2_TEST_DATA:-$(OTF2_TEST_ARCHIVES)}"; \
	export NVTXW_OTF2_TEST_DATA;

# checker_test.sh tests check_import.py itself: each deliberately wrong JSON
# of tests/otf2/mutate_json.py must fail its specific check (it needs only
# the generator, not the shared archives).
if HAVE_OTF2
TESTS += tests/otf2/import_test.sh tests/otf2/bad_input_test.sh tests/otf2/checker_test.sh
endif
EXTRA_DIST += tests/otf2/otf2_oracle.py tests/otf2/check_import.py \
	tests/otf2/import_test.sh tests/otf2/bad_input_test.sh tests/otf2/local.mk \
	tests/otf2/checker_test.sh tests/otf2/mutate_json.py
