# libnvtxw: the writer library. Subdirectories add their sources to
# libnvtxw_libnvtxw_la_SOURCES.
lib_LTLIBRARIES += libnvtxw/libnvtxw.la
libnvtxw_libnvtxw_la_SOURCES =
libnvtxw_libnvtxw_la_CPPFLAGS = $(AM_CPPFLAGS) -DNVTXW_BUILDING_LIBRARY
libnvtxw_libnvtxw_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden $(ZSTD_CFLAGS) $(YAML_CFLAGS)
libnvtxw_libnvtxw_la_LIBADD = $(ZSTD_LIBS) $(YAML_LIBS)
libnvtxw_libnvtxw_la_LDFLAGS = $(AM_LDFLAGS) -version-info $(NVTXW_LT_VERSION) -no-undefined

nvtxwincludedir = $(includedir)/nvtxw
nvtxwinclude_HEADERS = \
	libnvtxw/include/nvtxw/abi.h \
	libnvtxw/include/nvtxw/error.h \
	libnvtxw/include/nvtxw/export.h \
	libnvtxw/include/nvtxw/format.h \
	libnvtxw/include/nvtxw/helper_types.h \
	libnvtxw/include/nvtxw/nvtx_types.h \
	libnvtxw/include/nvtxw/nvtxw.h \
	libnvtxw/include/nvtxw/payload.h \
	libnvtxw/include/nvtxw/resource.h \
	libnvtxw/include/nvtxw/schema_yaml.h

include libnvtxw/common/local.mk
include libnvtxw/payload/local.mk
include libnvtxw/schema/local.mk
