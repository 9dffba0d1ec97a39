# Test backends, built as real shared objects for dlopen (libtool modules
# that are never installed: -rpath /nowhere makes libtool build the .so).
#   libmockbackend     recording v2 backend (mock_backend.h)
#   libnosymbol        shared object without nvtxwGetInterface
#   libmocknofinalize  nvtxwGetInterface without nvtxwFinalize
# Tests find them as $top_builddir/tests/backend/.libs/<name>.so.
TEST_MODULE_LDFLAGS = $(AM_LDFLAGS) -module -avoid-version -shared -rpath /nowhere

check_LTLIBRARIES = tests/backend/libmockbackend.la tests/backend/libnosymbol.la \
	tests/backend/libmocknofinalize.la

tests_backend_libmockbackend_la_SOURCES = tests/backend/mock_backend.c \
	tests/backend/mock_backend.h
tests_backend_libmockbackend_la_LDFLAGS = $(TEST_MODULE_LDFLAGS)

tests_backend_libnosymbol_la_SOURCES = tests/backend/nosymbol.c
tests_backend_libnosymbol_la_LDFLAGS = $(TEST_MODULE_LDFLAGS)

tests_backend_libmocknofinalize_la_SOURCES = tests/backend/mock_nofinalize.c
tests_backend_libmocknofinalize_la_LDFLAGS = $(TEST_MODULE_LDFLAGS)

#   libmockincomplete  v2 table with most members NULL (forward_test)
check_LTLIBRARIES += tests/backend/libmockincomplete.la
tests_backend_libmockincomplete_la_SOURCES = tests/backend/mock_incomplete.c
tests_backend_libmockincomplete_la_LDFLAGS = $(TEST_MODULE_LDFLAGS)
