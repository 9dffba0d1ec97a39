# tests/unit/reader.mk - the report reader (libnvtxw/reader/). Test reports
# are built by tests/unit/report_encoder.h through the container API, which
# the library does not export: the format/ sources and common/alloc.c are
# linked in, with reader_test_shim.c for the error internals they call.
check_PROGRAMS += tests/unit/reader_test
TESTS += tests/unit/reader_test
tests_unit_reader_test_SOURCES = tests/unit/reader_test.c tests/unit/report_encoder.h \
	tests/unit/reader_test_shim.c \
	libnvtxw/format/container_layout.c libnvtxw/format/container_io.c \
	libnvtxw/format/container_writer.c libnvtxw/format/container_share.c \
	libnvtxw/format/container_reader.c \
	libnvtxw/format/container_scan.c libnvtxw/common/alloc.c libnvtxw/common/output_file.c
tests_unit_reader_test_CFLAGS = $(TEST_CFLAGS) $(ZSTD_CFLAGS) $(XXHASH_CFLAGS)
tests_unit_reader_test_LDADD = $(TEST_LIBS) $(ZSTD_LIBS) $(XXHASH_LIBS) -lpthread
