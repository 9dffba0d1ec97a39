/*
 * sink/shared/task_scope.c - task scopes for the JSON and stats sinks
 * (task_scope.h).
 */
#include "config.h"

#include <string.h>

#include "common/alloc.h"
#include "nvtxw/nvtx_types.h"
#include "sink/shared/task_scope.h"

const char* task_scope_last_node(const char* path) {
    const char* node = path;
    const char* p;
    for (p = path; *p != '\0'; p++) {
        if (*p == '\\' && p[1] != '\0')
            p++;
        else if (*p == '/')
            node = p + 1;
    }
    return node;
}

int scope_path_display(const char* path, strbuf* out) {
    const char* p;
    for (p = path; *p != '\0'; p++) {
        if (*p == '\\' && p[1] != '\0')
            p++;
        if (strbuf_append(out, p, 1) != 0)
            return -1;
    }
    return strbuf_append(out, "", 0);
}

int task_scope_key(const char* path, strbuf* key) {
    const char* node = task_scope_last_node(path);
    const char* p;
    if (strncmp(node, "task[", 5) != 0)
        return 0;
    for (p = node + 5; *p != '\0'; p++) {
        if (*p == '\\' && p[1] != '\0')
            p++;
        else if (*p == ']')
            return p[1] == '\0' && p > node + 5 ? 1 : 0;
        if (strbuf_append(key, p, 1) != 0)
            return -1;
    }
    return 0;
}

pubmap* task_scope_domain_map(pubvec* maps, uint32_t index) {
    pubmap* map = pubvec_get(maps, index);
    if (map != NULL)
        return map;
    map = nvtxw_calloc(1, sizeof *map);
    if (map != NULL) /* keyed by scope ID: the dynamic ones are dense */
        pubmap_init_dense(map, NVTX_SCOPE_ID_DYNAMIC_START);
    if (map == NULL || pubvec_set(maps, index, map) != 0) {
        nvtxw_free(map);
        return NULL;
    }
    return map;
}

void task_scope_domain_map_free(pubmap* map, void (*free_value)(void*)) {
    pubmap_free(map, free_value);
    nvtxw_free(map);
}
