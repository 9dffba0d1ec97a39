# Shared internals: error messages, the allocator wrapper, growable buffers.
libnvtxw_libnvtxw_la_SOURCES += \
	libnvtxw/common/alloc.c \
	libnvtxw/common/alloc.h \
	libnvtxw/common/error.c \
	libnvtxw/common/error_internal.h
