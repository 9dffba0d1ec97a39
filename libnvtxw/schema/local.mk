# YAML payload schemas (libyaml event API).
libnvtxw_libnvtxw_la_SOURCES += \
	libnvtxw/schema/yaml_load.c \
	libnvtxw/schema/yaml_dump.c
