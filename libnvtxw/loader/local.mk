# Reference backend loader (spec 5): nvtxwLoad, nvtxwUnload, nvtxwGetError.
# dlopen comes from LIBS (configure's AC_SEARCH_LIBS for dlopen).
libnvtxw_libnvtxw_la_SOURCES += \
	libnvtxw/loader/loader.c \
	libnvtxw/loader/loader_internal.h
