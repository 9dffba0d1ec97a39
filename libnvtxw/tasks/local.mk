# The task model helpers (nvtxw/tasks.h, docs/tasks.md): registration of the
# task schemas and scopes, and one call per task event, over any NVTXW table.
libnvtxw_libnvtxw_la_SOURCES += \
	libnvtxw/tasks/tasks_internal.h \
	libnvtxw/tasks/tasks_register.c \
	libnvtxw/tasks/tasks_write.c
