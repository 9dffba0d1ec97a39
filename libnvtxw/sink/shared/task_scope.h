/*
 * sink/shared/task_scope.h - what the sinks that draw or sum tasks share
 * (docs/tasks.md): recognising a task scope by its path, and per-domain
 * maps of task scopes (domain->index selects the map).
 */
#ifndef NVTXW_SINK_SHARED_TASK_SCOPE_H
#define NVTXW_SINK_SHARED_TASK_SCOPE_H

#include <stddef.h>
#include <stdint.h>

#include "common/pubmap.h"
#include "common/strbuf.h"

/* Start of a scope path's last node: after the last '/' not escaped by
 * '\' (ABI spec 2.10). */
const char* task_scope_last_node(const char* path);

/* Appends `path` as a user reads it: every '\' escape (ABI spec 2.10) taken
 * off, "gpu[CUDA\[0:13\]]" -> "gpu[CUDA[0:13]]". 0, or -1 out of memory. */
int scope_path_display(const char* path, strbuf* out);

/* Appends KEY, unescaped, to `key` when the path's last node is `task[KEY]`
 * (KEY not empty, the node ending at its unescaped ']'): 1; 0 when the path
 * is not a task's; -1 out of memory. */
int task_scope_key(const char* path, strbuf* key);

/* The map of domain `index` in `maps` (a pubvec of pubmap*), made empty
 * with the domain's first task scope; NULL out of memory. Registrations
 * only (serialized by the core); the write path reads `maps` with
 * pubvec_get and pubmap_get, without a lock (common/pubmap.h). */
pubmap* task_scope_domain_map(pubvec* maps, uint32_t index);

/* Frees one map made by task_scope_domain_map and, with free_value (not
 * NULL), its values; for pubvec_free. */
void task_scope_domain_map_free(pubmap* map, void (*free_value)(void*));

#endif /* NVTXW_SINK_SHARED_TASK_SCOPE_H */
