# producer_test: a producer that is not linked against libnvtxw. It carries
# the reference loader (compiled in, as a producer built on NVIDIA's loader
# would) and reaches the backend only through dlopen of libnvtxw3.so.
check_PROGRAMS += tests/unit/producer_test
TESTS += tests/unit/producer_test
tests_unit_producer_test_SOURCES = tests/unit/producer_test.c libnvtxw/loader/loader.c \
	libnvtxw/common/error.c libnvtxw/common/alloc.c
tests_unit_producer_test_CFLAGS = $(TEST_CFLAGS)
tests_unit_producer_test_LDADD = $(CHECK_LIBS)
tests_unit_producer_test_LDFLAGS = $(AM_LDFLAGS) -no-install
