# tests/unit/loader.mk - reference loader, config-string parser and helper
# headers (spec 4.3-4.6, 5; conformance items 47-55), driven through the test
# backends of tests/backend/.
#
# loader_test is linked -no-install: no libtool wrapper script, so
# /proc/self/exe is the test itself and LD_LIBRARY_PATH is not set behind our
# back; its default-search test re-executes it in a clean environment.
check_PROGRAMS += tests/unit/loader_test tests/unit/helpers_test
TESTS += tests/unit/loader_test tests/unit/helpers_test
tests_unit_loader_test_SOURCES = tests/unit/loader_test.c tests/unit/loader_test_util.h
tests_unit_loader_test_CFLAGS = $(TEST_CFLAGS)
tests_unit_loader_test_LDADD = $(TEST_LIBS)
tests_unit_loader_test_LDFLAGS = $(AM_LDFLAGS) -no-install
tests_unit_helpers_test_SOURCES = tests/unit/helpers_test.c tests/unit/loader_test_util.h
tests_unit_helpers_test_CFLAGS = $(TEST_CFLAGS)
tests_unit_helpers_test_LDADD = $(TEST_LIBS)
