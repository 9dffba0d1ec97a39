# Tests. `make check` runs the three rings of STYLE rule 17: Check unit tests
# per module, CLI golden tests, round trips. Slow runs go to `make check-long`.
TEST_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
TEST_LIBS = libnvtxw/libnvtxw.la $(CHECK_LIBS)
AM_TESTS_ENVIRONMENT = \
	top_srcdir='$(top_srcdir)'; export top_srcdir; \
	top_builddir='$(top_builddir)'; export top_builddir; \
	CC='$(CC)'; export CC; CXX='$(CXX)'; export CXX; \
	NVTX3_INCLUDE='$(NVTX3_INCLUDE)'; export NVTX3_INCLUDE; \
	CK_DEFAULT_TIMEOUT=60; export CK_DEFAULT_TIMEOUT;

include tests/backend/local.mk
include tests/unit/local.mk
include tests/cli/local.mk

check-long: check
.PHONY: check-long
