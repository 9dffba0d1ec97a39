# tests/unit/container.mk - the container layer of the report format
# (libnvtxw/format/container*.c). The container API is internal (hidden), so
# the test links the format/ and common/ sources instead of libnvtxw. It
# forks (disk full under RLIMIT_FSIZE, a writer killed with SIGKILL) and runs
# 8 writer threads; CI runs it under TSan and ASan too.
check_PROGRAMS += tests/unit/container_test
TESTS += tests/unit/container_test
tests_unit_container_test_SOURCES = tests/unit/container_test.c \
	libnvtxw/format/container_layout.c libnvtxw/format/container_io.c \
	libnvtxw/format/container_writer.c libnvtxw/format/container_share.c \
	libnvtxw/format/container_reader.c \
	libnvtxw/format/container_scan.c libnvtxw/common/alloc.c libnvtxw/common/error.c \
	libnvtxw/common/output_file.c
tests_unit_container_test_CFLAGS = $(TEST_CFLAGS) $(ZSTD_CFLAGS) $(XXHASH_CFLAGS)
tests_unit_container_test_LDADD = $(CHECK_LIBS) $(ZSTD_LIBS) $(XXHASH_LIBS) -lpthread
