# tests/unit/chrome_in.mk - the exact number parsing of nvtxw-replay's Chrome
# trace input (tools/replay/chrome/chrome_in_time.c): microseconds to nanoseconds
# without floating point, rounding half to even, and event IDs.
check_PROGRAMS += tests/unit/chrome_in_time_test
TESTS += tests/unit/chrome_in_time_test
tests_unit_chrome_in_time_test_SOURCES = tests/unit/chrome_in_time_test.c \
	tools/replay/chrome/chrome_in_time.c
tests_unit_chrome_in_time_test_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools/replay/chrome \
	-I$(top_srcdir)/tools/replay
tests_unit_chrome_in_time_test_CFLAGS = $(TEST_CFLAGS)
tests_unit_chrome_in_time_test_LDADD = $(TEST_LIBS)
