/*
 * tasks/tasks_internal.h - shared by the task helpers' files:
 *   tasks_register.c  schemas (the C form of schemas/tasks.yaml), mark
 *                     names, task scopes
 *   tasks_write.c     one function per task event
 */
#ifndef NVTXW_TASKS_INTERNAL_H
#define NVTXW_TASKS_INTERNAL_H

#include <stddef.h>

#include "nvtxw/tasks.h"

/* Non-zero when `ids` is usable: not NULL and struct_size covers the
 * fields up to the end of the member at `end_offset`. */
#define TASKS_IDS_COVER(ids, member)                                                               \
    ((ids) != NULL &&                                                                              \
     (ids)->struct_size >= offsetof(nvtxw_task_ids_t, member) + sizeof((ids)->member))

#endif /* NVTXW_TASKS_INTERNAL_H */
