/*
 * common/pubmap.h - registries that readers use without locks while one
 * writer at a time adds to them (docs/threading.md, "Registrations during
 * writes").
 *
 * Two shapes: pubmap, a hash map from 64-bit IDs to pointers (open
 * addressing, linear probing, power-of-two capacity, at most half full), and
 * pubvec, an array of pointers indexed from 0 (NULL = not set).
 *
 * Contract: writers (put, set, reserve) are serialized by the caller (the
 * core's registration mutex); readers (get) may run on any thread at the
 * same time and never wait. Values are never removed or replaced, only
 * added, so a reader that finds a value may keep using it until the map is
 * freed.
 *
 * How: a table is never changed in a way a reader could see half done, and
 * never freed while readers may hold it.
 *   - Insert into a live table: the ID (or nothing, for a pubvec) is written
 *     first, then the value is stored with release; readers load the value
 *     with acquire, so whoever sees the value sees its ID and everything the
 *     writer built before publishing it (a registration's copy).
 *   - Grow: the entries are copied into a new table twice as large, which is
 *     published with a release store of the table pointer; readers load it
 *     with acquire. The old table is retired, not freed: it is linked from
 *     the new one and freed with the map (_free), when no reader can be
 *     left (SessionEnd has waited for every writer). Growth is geometric, so
 *     the retired tables together are smaller than the live one.
 * A reader holding an older table misses only values added after it loaded
 * the table pointer, which it cannot have been told about: an ID reaches a
 * writer thread only after its registration returned.
 *
 * A zeroed pubmap / pubvec is empty and valid. Every function that
 * allocates returns 0, or -1 when out of memory, leaving the map unchanged.
 */
#ifndef NVTXW_COMMON_PUBMAP_H
#define NVTXW_COMMON_PUBMAP_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "common/idmap.h"

typedef struct pubmap_table pubmap_table;
typedef struct pubvec_table pubvec_table;

typedef struct pubmap {
    _Atomic(pubmap_table*) table; /* NULL while empty */
    size_t count;                 /* the writer's own */
} pubmap;

typedef struct pubvec {
    _Atomic(pubvec_table*) table; /* NULL while empty */
} pubvec;

/* A pubmap's table, in the header for the inline pubmap_get. */
typedef struct pubmap_slot {
    uint64_t id;          /* written before value, never changed after */
    _Atomic(void*) value; /* NULL = empty; published with release */
} pubmap_slot;

struct pubmap_table {
    size_t capacity;       /* a power of two */
    pubmap_table* retired; /* the table this one replaced, freed with the map */
    pubmap_slot slots[];
};

/* The value stored under `id`, or NULL. Lock-free. Inline: payload visits
 * look up each payload's schema here. */
static inline void* pubmap_get(const pubmap* map, uint64_t id) {
    /* acquire pairs with the release that published the table; the cast
     * drops const only to load */
    pubmap_table* table =
        atomic_load_explicit((_Atomic(pubmap_table*)*)&map->table, memory_order_acquire);
    size_t mask, i;
    void* value;
    if (table == NULL)
        return NULL;
    mask = table->capacity - 1;
    /* acquire on each value: its ID, written before, is then visible */
    for (i = idmap_hash(id) & mask;
         (value = atomic_load_explicit(&table->slots[i].value, memory_order_acquire)) != NULL;
         i = (i + 1) & mask) {
        if (table->slots[i].id == id)
            return value;
    }
    return NULL;
}
/* Makes room for `extra` more puts, so that they cannot fail. */
int pubmap_reserve(pubmap* map, size_t extra);
/* Stores a non-NULL value under an ID that is not yet present. */
int pubmap_put(pubmap* map, uint64_t id, void* value);
/* Number of values; the writer's side (serialized with puts). */
size_t pubmap_count(const pubmap* map);
/* Frees the tables (and each value with free_value, when not NULL). No
 * reader or writer may run. */
void pubmap_free(pubmap* map, void (*free_value)(void*));

/* The value at `index`, or NULL (not set, or past the end). Lock-free. */
/* Inline: the write path resolves every registered string handle here. */
struct pubvec_table {
    size_t capacity;
    pubvec_table* retired;
    _Atomic(void*) items[];
};
static inline void* pubvec_get(const pubvec* vec, size_t index) {
    /* acquire pairs with the release that published the table and the
     * value; the cast drops const only to load */
    pubvec_table* table =
        atomic_load_explicit((_Atomic(pubvec_table*)*)&vec->table, memory_order_acquire);
    if (table == NULL || index >= table->capacity)
        return NULL;
    return atomic_load_explicit(&table->items[index], memory_order_acquire);
}
/* Makes index `index` settable without failing. */
int pubvec_reserve(pubvec* vec, size_t index);
/* Sets a non-NULL value at an index not yet set. */
int pubvec_set(pubvec* vec, size_t index, void* value);
/* Frees the tables (and each value set with free_value, when not NULL). No
 * reader or writer may run. */
void pubvec_free(pubvec* vec, void (*free_value)(void*));

#endif /* NVTXW_COMMON_PUBMAP_H */
