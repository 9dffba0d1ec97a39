/*
 * tasks/tasks_internal.h - shared by the task helpers' files:
 *   tasks_register.c  schemas (the C form of schemas/tasks.yaml), mark
 *                     names, task scopes
 *   tasks_write.c     one function per task event
 */
#ifndef NVTXW_TASKS_INTERNAL_H
#define NVTXW_TASKS_INTERNAL_H

#include <stddef.h>

#include "common/strbuf.h"
#include "nvtxw/tasks.h"

/* Non-zero when `ids` is not NULL and its struct_size covers `member`
 * (and so every member before it). */
#define TASKS_IDS_COVER(ids, member)                                                               \
    ((ids) != NULL &&                                                                              \
     (ids)->struct_size >= offsetof(nvtxw_task_ids_t, member) + sizeof((ids)->member))

/* The last node of a scope path (ABI spec 2.10: '/' separates nodes, '\'
 * escapes the next character). */
const char* tasks_last_node(const char* path);
/* Appends the unescaped KEY of a path whose last node is `task[KEY]` (KEY not
 * empty) to `key`: 1, 0 when the path is not a task's (`key` may hold part of
 * it), -1 out of memory. The JSON and stats sinks recognise task scopes by it. */
int tasks_path_key(const char* path, strbuf* key);

#endif /* NVTXW_TASKS_INTERNAL_H */
