/*
 * sink/shared/task_scope.c - task scopes for the JSON and stats sinks
 * (task_scope.h).
 */
#include "config.h"

#include <string.h>

#include "common/alloc.h"
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

idmap* task_scope_domain_map(idmap** maps, size_t* count, uint32_t index) {
    if (index >= *count) {
        size_t grown = (size_t)index + 1;
        idmap* all = nvtxw_reallocarray(*maps, grown, sizeof *all);
        if (all == NULL)
            return NULL;
        memset(all + *count, 0, (grown - *count) * sizeof *all);
        *maps = all;
        *count = grown;
    }
    return &(*maps)[index];
}
