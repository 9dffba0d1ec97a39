/*
 * sink/shared/scope_process.c - scope paths to process numbers (see
 * scope_process.h).
 */
#include "config.h"

#include <string.h>

#include "common/alloc.h"
#include "common/text_hash.h"
#include "sink/shared/scope_process.h"

/* The number of a known path, or 0. By hash first: a session with 300,000
 * processes (a Chrome trace with one pid per event) spent minutes comparing
 * paths; a hash shared by two paths falls back to the scan. */
static uint64_t known_process(const scope_process_table* t, const char* path, uint64_t hash) {
    uintptr_t number = (uintptr_t)idmap_get(&t->hashes, hash);
    size_t i;
    if (number == 0 || strcmp(t->paths[number - 2], path) == 0)
        return number;
    for (i = 0; i < t->count; i++)
        if (strcmp(t->paths[i], path) == 0)
            return i + 2;
    return 0;
}

int scope_process_number(scope_process_table* t, const char* path, uint64_t* number, int* is_new) {
    uint64_t hash = text_hash_cstr(path);
    char** paths = t->paths;
    char* copy;
    *is_new = 0;
    if ((*number = known_process(t, path, hash)) != 0)
        return 0;
    if (t->count == t->capacity) {
        size_t capacity = t->capacity ? t->capacity * 2 : 8;
        if ((paths = nvtxw_reallocarray(paths, capacity, sizeof *paths)) == NULL)
            return -1;
        t->paths = paths;
        t->capacity = capacity;
    }
    if ((copy = nvtxw_strdup(path)) == NULL)
        return -1;
    if (idmap_get(&t->hashes, hash) == NULL &&
        idmap_put(&t->hashes, hash, (void*)(uintptr_t)(t->count + 2)) != 0) {
        nvtxw_free(copy);
        return -1;
    }
    paths[t->count] = copy;
    *number = ++t->count + 1;
    *is_new = 1;
    return 0;
}

void scope_process_table_free(scope_process_table* t) {
    size_t i;
    for (i = 0; i < t->count; i++)
        nvtxw_free(t->paths[i]);
    nvtxw_free(t->paths);
    idmap_free(&t->hashes);
    memset(t, 0, sizeof *t);
}
