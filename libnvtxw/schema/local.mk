# YAML payload schemas (libyaml event API; docs/schemas.md).
libnvtxw_libnvtxw_la_SOURCES += \
	libnvtxw/schema/yaml_internal.h \
	libnvtxw/schema/yaml_names.c \
	libnvtxw/schema/yaml_load.c \
	libnvtxw/schema/yaml_items.c \
	libnvtxw/schema/yaml_counter.c \
	libnvtxw/schema/yaml_dump.c
