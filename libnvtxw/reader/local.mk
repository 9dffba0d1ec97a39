# The report reader (nvtxw/reader.h): records of docs/report-records.md read
# back through the container layer, in stream or time order, and replayed
# through any NVTXW function table.
libnvtxw_libnvtxw_la_SOURCES += \
	libnvtxw/reader/reader_internal.h \
	libnvtxw/reader/reader_cursor.c \
	libnvtxw/reader/reader_registrations.c \
	libnvtxw/reader/reader_records.c \
	libnvtxw/reader/reader_merge.c \
	libnvtxw/reader/reader_open.c \
	libnvtxw/reader/reader_access.c \
	libnvtxw/reader/reader_replay.h \
	libnvtxw/reader/reader_replay.c \
	libnvtxw/reader/reader_replay_regs.c \
	libnvtxw/reader/reader_replay_merge.c \
	libnvtxw/reader/reader_replay_threads.c
