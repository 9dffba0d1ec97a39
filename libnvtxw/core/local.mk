# The core: sessions, domains, registries, streams, validation, the table.
libnvtxw_libnvtxw_la_SOURCES += \
	libnvtxw/core/interface.c \
	libnvtxw/core/core_internal.h \
	libnvtxw/core/domain.c \
	libnvtxw/core/event_check.c \
	libnvtxw/core/fast_check.c \
	libnvtxw/core/registrations.c \
	libnvtxw/core/session.c \
	libnvtxw/core/sink.h \
	libnvtxw/core/stream.c \
	libnvtxw/core/write.c \
	libnvtxw/core/write_batch.c
