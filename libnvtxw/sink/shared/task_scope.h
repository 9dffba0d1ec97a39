/*
 * sink/shared/task_scope.h - what the sinks that draw or sum tasks share
 * (docs/tasks.md): recognising a task scope by its path, and per-domain
 * maps of task scopes (domain->index selects the map).
 */
#ifndef NVTXW_SINK_SHARED_TASK_SCOPE_H
#define NVTXW_SINK_SHARED_TASK_SCOPE_H

#include <stddef.h>
#include <stdint.h>

#include "common/idmap.h"
#include "common/strbuf.h"

/* Start of a scope path's last node: after the last '/' not escaped by
 * '\' (ABI spec 2.10). */
const char* task_scope_last_node(const char* path);

/* Appends KEY, unescaped, to `key` when the path's last node is `task[KEY]`
 * (KEY not empty, the node ending at its unescaped ']'): 1; 0 when the path
 * is not a task's; -1 out of memory. */
int task_scope_key(const char* path, strbuf* key);

/* The map at `index` of the array *maps of *count maps, grown (zeroed maps)
 * to cover it; NULL out of memory. Registration calls only. */
idmap* task_scope_domain_map(idmap** maps, size_t* count, uint32_t index);

#endif /* NVTXW_SINK_SHARED_TASK_SCOPE_H */
