# The container layer of the report format (docs/report-format.md): chunked,
# checksummed (xxHash), zstd-compressed, indexed files, written lock-free by
# many threads and read back with crash recovery. Internal: nothing exported.
libnvtxw_libnvtxw_la_SOURCES += \
	libnvtxw/format/container.h \
	libnvtxw/format/container_layout.h \
	libnvtxw/format/container_layout.c \
	libnvtxw/format/container_io.c \
	libnvtxw/format/container_writer_internal.h \
	libnvtxw/format/container_writer.c \
	libnvtxw/format/container_share.c \
	libnvtxw/format/container_reader_internal.h \
	libnvtxw/format/container_reader.c \
	libnvtxw/format/container_scan.c
libnvtxw_libnvtxw_la_CFLAGS += $(XXHASH_CFLAGS)
libnvtxw_libnvtxw_la_LIBADD += $(XXHASH_LIBS)
