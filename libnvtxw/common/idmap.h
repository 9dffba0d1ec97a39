/*
 * common/idmap.h - a hash map from 64-bit IDs to pointers (open addressing,
 * linear probing, power-of-two capacity, at most 50% full).
 *
 * Not thread-safe for writers; concurrent lookups are safe while nobody
 * inserts. Registries that writers read while registrations insert use
 * common/pubmap.h instead.
 */
#ifndef NVTXW_COMMON_IDMAP_H
#define NVTXW_COMMON_IDMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct idmap_slot {
    uint64_t id;
    void* value; /* NULL = empty slot */
} idmap_slot;

typedef struct idmap {
    idmap_slot* slots;
    size_t capacity; /* 0 or a power of two */
    size_t count;
} idmap;

/* The slot hash of both ID maps (idmap, pubmap): the splitmix64 finalizer,
 * since IDs are often sequential and this spreads them. */
static inline size_t idmap_hash(uint64_t id) {
    id ^= id >> 30;
    id *= UINT64_C(0xbf58476d1ce4e5b9);
    id ^= id >> 27;
    id *= UINT64_C(0x94d049bb133111eb);
    id ^= id >> 31;
    return (size_t)id;
}

/* A zeroed idmap is empty and valid. */
void idmap_free(idmap* map);
/* The value stored under `id`, or NULL. */
void* idmap_get(const idmap* map, uint64_t id);
/* Stores a non-NULL value under an ID that is not yet present. Returns 0, or
 * -1 when out of memory (the map is unchanged). */
int idmap_put(idmap* map, uint64_t id, void* value);

#endif /* NVTXW_COMMON_IDMAP_H */
