/*
 * common/idmap.c - open-addressing hash map from uint64 IDs to pointers.
 */
#include "common/idmap.h"

#include "common/alloc.h"

void idmap_free(idmap* map) {
    nvtxw_free(map->slots);
    map->slots = NULL;
    map->capacity = map->count = 0;
}

static idmap_slot* idmap_find(idmap_slot* slots, size_t capacity, uint64_t id) {
    size_t mask = capacity - 1, i = idmap_hash(id) & mask;
    while (slots[i].value != NULL && slots[i].id != id)
        i = (i + 1) & mask;
    return &slots[i];
}

void* idmap_get(const idmap* map, uint64_t id) {
    if (map->capacity == 0)
        return NULL;
    return idmap_find(map->slots, map->capacity, id)->value;
}

static int idmap_grow(idmap* map) {
    size_t capacity = map->capacity ? map->capacity * 2 : 16, i;
    idmap_slot* slots;
    if (capacity < map->capacity)
        return -1;
    slots = nvtxw_calloc(capacity, sizeof *slots);
    if (slots == NULL)
        return -1;
    for (i = 0; i < map->capacity; i++) {
        if (map->slots[i].value != NULL)
            *idmap_find(slots, capacity, map->slots[i].id) = map->slots[i];
    }
    nvtxw_free(map->slots);
    map->slots = slots;
    map->capacity = capacity;
    return 0;
}

int idmap_put(idmap* map, uint64_t id, void* value) {
    idmap_slot* slot;
    if ((map->count + 1) * 2 > map->capacity && idmap_grow(map) != 0)
        return -1;
    slot = idmap_find(map->slots, map->capacity, id);
    slot->id = id;
    slot->value = value;
    map->count++;
    return 0;
}
