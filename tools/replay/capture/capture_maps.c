/*
 * tools/replay/capture/capture_maps.c - the capture reader's two small maps
 * (capture_reader.h): uint64 -> uint64 and owned string -> pointer, open
 * addressing with linear probing, grown at half load.
 */
#define _POSIX_C_SOURCE 200809L
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "capture_reader.h"
#include "tool_alloc.h"

static size_t hash_u64(uint64_t key) {
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    return (size_t)key;
}

static size_t hash_text(const char* s) {
    uint64_t h = 1469598103934665603ULL;
    for (; *s != '\0'; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return (size_t)h;
}

int capture_idmap_get(const capture_idmap* map, uint64_t key, uint64_t* value) {
    size_t i;
    if (map->capacity == 0 || key == 0)
        return -1;
    for (i = hash_u64(key) & (map->capacity - 1); map->keys[i] != 0;
         i = (i + 1) & (map->capacity - 1)) {
        if (map->keys[i] == key) {
            *value = map->values[i];
            return 0;
        }
    }
    return -1;
}

static int idmap_grow(capture_idmap* map) {
    capture_idmap bigger = {0};
    size_t i;
    bigger.capacity = map->capacity ? map->capacity * 2 : 64;
    bigger.keys = nvtxw_calloc(bigger.capacity, sizeof *bigger.keys);
    bigger.values = nvtxw_calloc(bigger.capacity, sizeof *bigger.values);
    if (bigger.keys == NULL || bigger.values == NULL) {
        capture_idmap_free(&bigger);
        return -1;
    }
    for (i = 0; i < map->capacity; i++) {
        if (map->keys[i] != 0)
            capture_idmap_put(&bigger, map->keys[i], map->values[i]);
    }
    capture_idmap_free(map);
    *map = bigger;
    return 0;
}

int capture_idmap_put(capture_idmap* map, uint64_t key, uint64_t value) {
    size_t i;
    if (key == 0)
        return 0;
    if ((map->count + 1) * 2 > map->capacity && idmap_grow(map) != 0)
        return -1;
    for (i = hash_u64(key) & (map->capacity - 1); map->keys[i] != 0 && map->keys[i] != key;
         i = (i + 1) & (map->capacity - 1))
        ;
    map->count += map->keys[i] == 0;
    map->keys[i] = key;
    map->values[i] = value;
    return 0;
}

void capture_idmap_free(capture_idmap* map) {
    nvtxw_free(map->keys);
    nvtxw_free(map->values);
    memset(map, 0, sizeof *map);
}

static size_t names_slot(const capture_names* names, const char* key) {
    size_t i;
    for (i = hash_text(key) & (names->capacity - 1);
         names->keys[i] != NULL && strcmp(names->keys[i], key) != 0;
         i = (i + 1) & (names->capacity - 1))
        ;
    return i;
}

void* capture_names_get(const capture_names* names, const char* key) {
    size_t i;
    if (names->capacity == 0)
        return NULL;
    i = names_slot(names, key);
    return names->keys[i] ? names->values[i] : NULL;
}

static int names_grow(capture_names* names) {
    capture_names bigger = {0};
    size_t i;
    bigger.capacity = names->capacity ? names->capacity * 2 : 64;
    bigger.keys = nvtxw_calloc(bigger.capacity, sizeof *bigger.keys);
    bigger.values = nvtxw_calloc(bigger.capacity, sizeof *bigger.values);
    if (bigger.keys == NULL || bigger.values == NULL) {
        nvtxw_free(bigger.keys);
        nvtxw_free(bigger.values);
        return -1;
    }
    for (i = 0; i < names->capacity; i++) {
        if (names->keys[i] != NULL) {
            size_t j = names_slot(&bigger, names->keys[i]);
            bigger.keys[j] = names->keys[i];
            bigger.values[j] = names->values[i];
        }
    }
    nvtxw_free(names->keys);
    nvtxw_free(names->values);
    bigger.count = names->count;
    *names = bigger;
    return 0;
}

int capture_names_put(capture_names* names, const char* key, void* value) {
    size_t i;
    if ((names->count + 1) * 2 > names->capacity && names_grow(names) != 0)
        return -1;
    i = names_slot(names, key);
    if (names->keys[i] == NULL) {
        if ((names->keys[i] = nvtxw_strdup(key)) == NULL)
            return -1;
        names->count++;
    }
    names->values[i] = value;
    return 0;
}

void capture_names_free(capture_names* names, void (*free_value)(void*)) {
    size_t i;
    for (i = 0; i < names->capacity; i++) {
        if (names->keys[i] != NULL && free_value != NULL)
            free_value(names->values[i]);
        nvtxw_free(names->keys[i]);
    }
    nvtxw_free(names->keys);
    nvtxw_free(names->values);
    memset(names, 0, sizeof *names);
}
