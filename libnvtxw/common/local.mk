# Shared internals: error messages, the allocator wrapper, growable buffers.
libnvtxw_libnvtxw_la_SOURCES += \
	libnvtxw/common/alloc.c \
	libnvtxw/common/alloc.h \
	libnvtxw/common/compiler.h \
	libnvtxw/common/share_agree.h \
	libnvtxw/common/error.c \
	libnvtxw/common/error_internal.h \
	libnvtxw/common/handles.c \
	libnvtxw/common/handles.h \
	libnvtxw/common/idmap.c \
	libnvtxw/common/idmap.h \
	libnvtxw/common/json_value.c \
	libnvtxw/common/json_value.h \
	libnvtxw/common/log.c \
	libnvtxw/common/log.h \
	libnvtxw/common/output_file.c \
	libnvtxw/common/output_file.h \
	libnvtxw/common/pubmap.c \
	libnvtxw/common/pubmap.h \
	libnvtxw/common/slot_hash.h \
	libnvtxw/common/strbuf.c \
	libnvtxw/common/strbuf.h \
	libnvtxw/common/strset.c libnvtxw/common/text_hash.h \
	libnvtxw/common/strset.h \
	libnvtxw/common/struct_size.h \
	libnvtxw/common/thread.c \
	libnvtxw/common/thread.h \
	libnvtxw/common/utf8.c \
	libnvtxw/common/utf8.h \
	libnvtxw/common/varint.h
