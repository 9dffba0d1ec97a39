# libnvtxw: the writer library. Subdirectories add their sources to
# libnvtxw_libnvtxw_la_SOURCES.
lib_LTLIBRARIES += libnvtxw/libnvtxw.la
libnvtxw_libnvtxw_la_SOURCES =
libnvtxw_libnvtxw_la_CPPFLAGS = $(AM_CPPFLAGS) -DNVTXW_BUILDING_LIBRARY
libnvtxw_libnvtxw_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden $(ZSTD_CFLAGS) $(YAML_CFLAGS) $(YAJL_CFLAGS) \
	$(SQLITE_CFLAGS)
libnvtxw_libnvtxw_la_LIBADD = $(ZSTD_LIBS) $(YAML_LIBS) $(YAJL_LIBS) $(SQLITE_LIBS)
libnvtxw_libnvtxw_la_LDFLAGS = $(AM_LDFLAGS) -version-info $(NVTXW_LT_VERSION) -no-undefined

nvtxwincludedir = $(includedir)/nvtxw
nvtxwinclude_HEADERS = \
	libnvtxw/include/nvtxw/abi.h \
	libnvtxw/include/nvtxw/backend.h \
	libnvtxw/include/nvtxw/error.h \
	libnvtxw/include/nvtxw/export.h \
	libnvtxw/include/nvtxw/extension.h \
	libnvtxw/include/nvtxw/format.h \
	libnvtxw/include/nvtxw/helper_types.h \
	libnvtxw/include/nvtxw/helpers.h \
	libnvtxw/include/nvtxw/loader.h \
	libnvtxw/include/nvtxw/nvtx_types.h \
	libnvtxw/include/nvtxw/nvtxw.h \
	libnvtxw/include/nvtxw/payload.h \
	libnvtxw/include/nvtxw/reader.h \
	libnvtxw/include/nvtxw/resource.h \
	libnvtxw/include/nvtxw/schema_yaml.h \
	libnvtxw/include/nvtxw/share.h \
	libnvtxw/include/nvtxw/tasks.h

include libnvtxw/common/local.mk
include libnvtxw/payload/local.mk
include libnvtxw/schema/local.mk
include libnvtxw/loader/local.mk
include libnvtxw/format/local.mk
include libnvtxw/reader/local.mk
include libnvtxw/core/local.mk
include libnvtxw/sink/local.mk
include libnvtxw/tasks/local.mk

# The backend is also installed as libnvtxw3.so, the file name the reference
# loader searches for (NVTXW3_LIBRARY, default search): spec 5.1-5.2.
install-exec-hook: install-nvtxw3-link
install-nvtxw3-link:
	cd $(DESTDIR)$(libdir) && rm -f libnvtxw3.so && $(LN_S) libnvtxw.so libnvtxw3.so
uninstall-hook: uninstall-nvtxw3-link
uninstall-nvtxw3-link:
	rm -f $(DESTDIR)$(libdir)/libnvtxw3.so
# The same name in the build tree, for tests that load the backend as a
# foreign producer would.
all-local: libnvtxw/.libs/libnvtxw3.so
libnvtxw/.libs/libnvtxw3.so: libnvtxw/libnvtxw.la
	cd libnvtxw/.libs && rm -f libnvtxw3.so && $(LN_S) libnvtxw.so libnvtxw3.so
CLEANFILES += libnvtxw/.libs/libnvtxw3.so
.PHONY: install-nvtxw3-link uninstall-nvtxw3-link
