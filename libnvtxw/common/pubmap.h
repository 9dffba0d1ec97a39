/*
 * common/pubmap.h - registries that readers use without locks while one
 * writer at a time adds to them (docs/threading.md, "Registrations during
 * writes").
 *
 * Two shapes: pubvec, an array of pointers indexed from 0 (NULL = not set),
 * and pubmap, a hash map from 64-bit IDs to pointers (open addressing,
 * linear probing, power-of-two capacity, at most half full) that can keep a
 * range of dense IDs in chunks of 256 instead (pubmap_init_dense: the
 * dynamic IDs NVTXW hands out one after the other), found through a pubvec.
 *
 * Contract: writers (put, set, reserve) are serialized by the caller (the
 * core's registration mutex); readers (get) may run on any thread at the
 * same time and never wait. Values are never removed or replaced, only
 * added, so a reader that finds a value may keep using it until the map is
 * freed. The one exception is pubmap_release, for registries whose
 * producer may declare an ID dead (a released scope): its caller
 * guarantees that no reader still uses the value, and from then on readers
 * find NULL under the ID while the writer still sees it as taken.
 *
 * How: nothing is changed in a way a reader could see half done, and
 * nothing a reader may hold is freed before the map.
 *   - Insert: the ID (or nothing, for a pubvec) is written first, then the
 *     value is stored with release; readers load the value with acquire, so
 *     whoever sees the value sees its ID and everything the writer built
 *     before publishing it (a registration's copy).
 *   - A pubvec never moves an item: it is a list of segments, segment s
 *     holding 16 << s items, each allocated when its first index is
 *     reserved and published with release. Its memory is at most twice the
 *     items and nothing is copied (10^6 registered strings: 8 MiB of
 *     pointers, where a table grown by copying kept 16).
 *   - A pubmap's dense range is a pubvec of chunks, each holding the values
 *     of 256 consecutive IDs. A chunk whose 256 IDs were all stored and
 *     then released is retired: its pubvec entry becomes PUBMAP_RELEASED
 *     (every ID of it reads as released) and the chunk is reused for a
 *     later range, never freed before the map. A reader racing the release
 *     of the very ID it looks up may then read a slot of the reused chunk
 *     (NULL or another ID's value) but never freed memory; lookups of live
 *     IDs are never affected. So 10^8 IDs registered and released one
 *     after the other keep a few chunks and 8 bytes of pubvec per 256 IDs.
 *   - A pubmap's hash table grows by copying into a new table twice as
 *     large, published with a release store of the table pointer. The old
 *     table is retired, not freed: it is linked from the new one and freed
 *     with the map (_free), when no reader can be left (SessionEnd has
 *     waited for every writer). Growth is geometric, so the retired tables
 *     together are smaller than the live one; IDs in the dense range never
 *     reach the table, so registries of many dynamic IDs (10^5 task scopes)
 *     cost a pointer each instead of four slots.
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
typedef struct pubmap_chunk pubmap_chunk;

/* Segment s of a pubvec holds indexes [16 * (2^s - 1), 16 * (2^(s+1) - 1)). */
#define PUBVEC_SEGMENTS 40
#define PUBVEC_FIRST_BITS 4
#define PUBVEC_MAX_ITEMS ((UINT64_C(1) << (PUBVEC_SEGMENTS + PUBVEC_FIRST_BITS)) - 16)

typedef struct pubvec {
    _Atomic(_Atomic(void*)*) segments[PUBVEC_SEGMENTS]; /* NULL until reserved */
} pubvec;

typedef struct pubmap {
    _Atomic(pubmap_table*) table; /* NULL while empty */
    size_t count;                 /* the writer's own: all values */
    size_t hashed;                /* the writer's own: values in the table */
    uint64_t dense_base;          /* 0: no dense range (pubmap_init_dense) */
    pubvec dense;                 /* ID dense_base + i in chunk i >> PUBMAP_CHUNK_BITS */
    pubmap_chunk* spare;          /* the writer's: retired chunks, to reuse */
    size_t chunks;                /* the writer's: chunks allocated */
} pubmap;

/* ---- pubvec ---------------------------------------------------------------- */

/* The segment of `index` and the position in it. */
static inline unsigned pubvec_segment(size_t index, size_t* offset) {
    unsigned long long n = (index >> PUBVEC_FIRST_BITS) + 1; /* s holds n in [2^s, 2^(s+1)) */
#if defined(__GNUC__) || defined(__clang__)
    unsigned s = (unsigned)(sizeof n * 8 - 1) - (unsigned)__builtin_clzll(n);
#else
    unsigned s = 0;
    while (n >> (s + 1))
        s++;
#endif
    *offset = index - ((((size_t)1 << s) - 1) << PUBVEC_FIRST_BITS);
    return s;
}

/* The value at `index`, or NULL (not set, or past the end). Lock-free.
 * Inline: the write path resolves every registered string handle here. */
static inline void* pubvec_get(const pubvec* vec, size_t index) {
    size_t offset;
    unsigned s;
    _Atomic(void*)* segment;
    if (index >= PUBVEC_MAX_ITEMS)
        return NULL;
    s = pubvec_segment(index, &offset);
    /* acquire pairs with the release that published the segment and the
     * value; the cast drops const only to load */
    segment =
        atomic_load_explicit((_Atomic(_Atomic(void*)*)*)&vec->segments[s], memory_order_acquire);
    return segment != NULL ? atomic_load_explicit(&segment[offset], memory_order_acquire) : NULL;
}

/* Makes index `index` settable without failing. */
int pubvec_reserve(pubvec* vec, size_t index);
/* Sets a non-NULL value at an index not yet set. */
int pubvec_set(pubvec* vec, size_t index, void* value);
/* Replaces the value at an index already set (published with release). */
void pubvec_replace(pubvec* vec, size_t index, void* value);
/* Frees the segments (and each value set with free_value, when not NULL).
 * No reader or writer may run. */
void pubvec_free(pubvec* vec, void (*free_value)(void*));

/* ---- pubmap ---------------------------------------------------------------- */

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

/* The value left under a released ID: readers get NULL, pubmap_taken 1. */
extern char pubmap_released_mark;
#define PUBMAP_RELEASED ((void*)&pubmap_released_mark)

#define PUBMAP_CHUNK_BITS 8
#define PUBMAP_CHUNK_IDS (1u << PUBMAP_CHUNK_BITS)

/* The values of PUBMAP_CHUNK_IDS consecutive dense IDs. */
struct pubmap_chunk {
    _Atomic(void*) slots[PUBMAP_CHUNK_IDS]; /* NULL, a value or PUBMAP_RELEASED */
    uint32_t live, stored;                  /* the writer's: values not released, ever stored */
    pubmap_chunk* next_spare;               /* the writer's: in pubmap.spare */
};

/* Keeps the IDs from `base` (not 0) on in a pubvec, the rest in the hash
 * table. Only on an empty map, before any reader. */
void pubmap_init_dense(pubmap* map, uint64_t base);

/* Is `id` one of the dense range's? */
static inline int pubmap_is_dense(const pubmap* map, uint64_t id) {
    /* SIZE_MAX: a 32-bit size_t would cut the index down to another's */
    return map->dense_base != 0 && id >= map->dense_base &&
           id - map->dense_base < PUBVEC_MAX_ITEMS && id - map->dense_base <= SIZE_MAX;
}

/* The value stored under `id`, PUBMAP_RELEASED, or NULL. Lock-free. */
static inline void* pubmap_get_raw(const pubmap* map, uint64_t id) {
    pubmap_table* table;
    size_t mask, i;
    void* value;
    if (pubmap_is_dense(map, id)) {
        size_t index = (size_t)(id - map->dense_base);
        pubmap_chunk* chunk = pubvec_get(&map->dense, index >> PUBMAP_CHUNK_BITS);
        if (chunk == NULL || chunk == PUBMAP_RELEASED)
            return chunk; /* never stored, or all of the chunk released */
        return atomic_load_explicit(&chunk->slots[index & (PUBMAP_CHUNK_IDS - 1)],
                                    memory_order_acquire);
    }
    /* acquire pairs with the release that published the table; the cast
     * drops const only to load */
    table = atomic_load_explicit((_Atomic(pubmap_table*)*)&map->table, memory_order_acquire);
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

/* The value stored under `id`, or NULL (never stored, or released).
 * Lock-free. Inline: payload visits look up each payload's schema here. */
static inline void* pubmap_get(const pubmap* map, uint64_t id) {
    void* value = pubmap_get_raw(map, id);
    return value != PUBMAP_RELEASED ? value : NULL;
}

/* Non-zero when `id` was ever stored, released or not. */
static inline int pubmap_taken(const pubmap* map, uint64_t id) {
    return pubmap_get_raw(map, id) != NULL;
}

/* Makes room for `extra` more puts of IDs outside the dense range, so that
 * they cannot fail. */
int pubmap_reserve(pubmap* map, size_t extra);
/* Makes the put of `id` unable to fail (any ID). */
int pubmap_reserve_id(pubmap* map, uint64_t id);
/* Stores a non-NULL value under an ID that is not yet present. */
int pubmap_put(pubmap* map, uint64_t id, void* value);
/* Replaces the value under `id` with PUBMAP_RELEASED and returns it, or
 * returns NULL (and changes nothing) when `id` holds no live value. Never
 * fails: the slot stays (a pointer's worth of memory), so the ID is never
 * taken again and concurrent readers of other IDs are not disturbed. The
 * caller guarantees no reader still uses the value before freeing it. */
void* pubmap_release(pubmap* map, uint64_t id);
/* Chunks the dense range has allocated (in use or spare); the writer's. */
size_t pubmap_chunk_count(const pubmap* map);
/* Number of values stored, released ones included; the writer's side
 * (serialized with puts). */
size_t pubmap_count(const pubmap* map);
/* Frees the tables (and each value with free_value, when not NULL). No
 * reader or writer may run. */
void pubmap_free(pubmap* map, void (*free_value)(void*));

#endif /* NVTXW_COMMON_PUBMAP_H */
