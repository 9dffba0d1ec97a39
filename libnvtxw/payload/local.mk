# The payload schema engine: registry, finalization, visitor, formatters.
libnvtxw_libnvtxw_la_SOURCES += \
	libnvtxw/payload/entry_types.c \
	libnvtxw/payload/registry.c \
	libnvtxw/payload/semantics.c \
	libnvtxw/payload/semantics.h \
	libnvtxw/payload/registry_internal.h \
	libnvtxw/payload/fixed_layout.h \
	libnvtxw/payload/finalize.c \
	libnvtxw/payload/visit.c \
	libnvtxw/payload/visit_internal.h \
	libnvtxw/payload/visit_entry.c \
	libnvtxw/payload/visit_number.c \
	libnvtxw/payload/visit_string.c \
	libnvtxw/payload/format_common.c \
	libnvtxw/payload/format_common.h \
	libnvtxw/payload/format_json.c \
	libnvtxw/payload/format_text.c
libnvtxw_libnvtxw_la_SOURCES += libnvtxw/payload/registry_restore.c libnvtxw/payload/registry_restore.h
libnvtxw_libnvtxw_la_SOURCES += libnvtxw/payload/remap.c libnvtxw/payload/remap.h
libnvtxw_libnvtxw_la_SOURCES += libnvtxw/payload/field_codec.c libnvtxw/payload/field_codec.h
