/*
 * common/pubmap.c - lock-free readable registries (see pubmap.h for the
 * publishing and retiring rules).
 */
#include "common/pubmap.h"

#include "common/alloc.h"
#include "common/idmap.h"

char pubmap_released_mark;

static _Atomic(void*)* vec_segment(const pubvec* vec, unsigned s);

/* Readers take the table with acquire: it pairs with the release that
 * published it, so its copied slots are visible. The casts drop const only
 * to load: C11's atomic_load takes a non-const pointer. */
static pubmap_table* map_table(const pubmap* map, memory_order order) {
    return atomic_load_explicit((_Atomic(pubmap_table*)*)&map->table, order);
}

/* The writer's probe: the slot of `id`, or the empty slot it would take. */
static pubmap_slot* map_find(pubmap_table* table, uint64_t id) {
    size_t mask = table->capacity - 1, i = idmap_hash(id) & mask;
    while (atomic_load_explicit(&table->slots[i].value, memory_order_relaxed) != NULL &&
           table->slots[i].id != id)
        i = (i + 1) & mask;
    return &table->slots[i];
}

/* Copies into a table of `capacity` slots and publishes it; the old one is
 * retired (linked from the new one), since readers may still hold it. */
static int map_grow(pubmap* map, size_t capacity) {
    pubmap_table* old = map_table(map, memory_order_relaxed);
    pubmap_table* table;
    size_t i;
    if (capacity > (SIZE_MAX - sizeof *table) / sizeof table->slots[0] / 2)
        return -1;
    table = nvtxw_calloc(1, sizeof *table + capacity * sizeof table->slots[0]);
    if (table == NULL)
        return -1;
    table->capacity = capacity;
    table->retired = old;
    for (i = 0; old != NULL && i < old->capacity; i++) {
        void* value = atomic_load_explicit(&old->slots[i].value, memory_order_relaxed);
        pubmap_slot* slot;
        if (value == NULL)
            continue;
        slot = map_find(table, old->slots[i].id);
        slot->id = old->slots[i].id;
        atomic_store_explicit(&slot->value, value, memory_order_relaxed);
    }
    atomic_store_explicit(&map->table, table, memory_order_release);
    return 0;
}

int pubmap_reserve(pubmap* map, size_t extra) {
    pubmap_table* table = map_table(map, memory_order_relaxed);
    size_t capacity = table ? table->capacity : 16;
    if (extra > SIZE_MAX / 2 - map->hashed)
        return -1;
    while ((map->hashed + extra) * 2 > capacity) {
        if (capacity > SIZE_MAX / 4)
            return -1;
        capacity *= 2;
    }
    return table != NULL && capacity == table->capacity ? 0 : map_grow(map, capacity);
}

void pubmap_init_dense(pubmap* map, uint64_t base) { map->dense_base = base; }

/* The chunk of dense index `index`, made (a spare reused, or a new one)
 * and published when missing; NULL when out of memory or retired. */
static pubmap_chunk* dense_chunk(pubmap* map, size_t index) {
    size_t at = index >> PUBMAP_CHUNK_BITS;
    pubmap_chunk* chunk = pubvec_get(&map->dense, at);
    if (chunk != NULL)
        return chunk != PUBMAP_RELEASED ? chunk : NULL;
    if ((chunk = map->spare) != NULL) {
        /* a racing reader of a released ID may still read it: slots change
         * only atomically */
        for (unsigned i = 0; i < PUBMAP_CHUNK_IDS; i++)
            atomic_store_explicit(&chunk->slots[i], NULL, memory_order_relaxed);
        chunk->live = chunk->stored = 0;
    } else if ((chunk = nvtxw_calloc(1, sizeof *chunk)) == NULL) {
        return NULL;
    }
    /* release (in pubvec_set): readers that take the chunk see it cleared */
    if (pubvec_set(&map->dense, at, chunk) != 0) {
        if (chunk != map->spare)
            nvtxw_free(chunk);
        return NULL;
    }
    if (chunk == map->spare)
        map->spare = chunk->next_spare;
    else
        map->chunks++;
    return chunk;
}

int pubmap_reserve_id(pubmap* map, uint64_t id) {
    if (pubmap_is_dense(map, id))
        return dense_chunk(map, (size_t)(id - map->dense_base)) != NULL ? 0 : -1;
    return pubmap_reserve(map, 1);
}

int pubmap_put(pubmap* map, uint64_t id, void* value) {
    pubmap_slot* slot;
    if (pubmap_is_dense(map, id)) {
        size_t index = (size_t)(id - map->dense_base);
        pubmap_chunk* chunk = dense_chunk(map, index);
        if (chunk == NULL)
            return -1;
        /* release: a reader that sees the value sees its contents */
        atomic_store_explicit(&chunk->slots[index & (PUBMAP_CHUNK_IDS - 1)], value,
                              memory_order_release);
        chunk->live++;
        chunk->stored++;
        map->count++;
        return 0;
    }
    if (pubmap_reserve(map, 1) != 0)
        return -1;
    slot = map_find(map_table(map, memory_order_relaxed), id);
    slot->id = id;
    /* release: a reader that sees the value sees the ID and the value's
     * contents */
    atomic_store_explicit(&slot->value, value, memory_order_release);
    map->hashed++;
    map->count++;
    return 0;
}

/* A chunk whose IDs were all stored and all released: nothing can name
 * them again, so the chunk is reused for a later range (pubmap.h). */
static void dense_retire(pubmap* map, size_t at, pubmap_chunk* chunk) {
    pubvec_replace(&map->dense, at, PUBMAP_RELEASED);
    chunk->next_spare = map->spare;
    map->spare = chunk;
}

/* The dense branch of pubmap_release: the chunk looked up once. */
static void* dense_release(pubmap* map, size_t index) {
    pubmap_chunk* chunk = pubvec_get(&map->dense, index >> PUBMAP_CHUNK_BITS);
    _Atomic(void*)* cell;
    void* value;
    if (chunk == NULL || chunk == PUBMAP_RELEASED)
        return NULL;
    cell = &chunk->slots[index & (PUBMAP_CHUNK_IDS - 1)];
    value = atomic_load_explicit(cell, memory_order_relaxed);
    if (value == NULL || value == PUBMAP_RELEASED)
        return NULL;
    atomic_store_explicit(cell, PUBMAP_RELEASED, memory_order_relaxed);
    if (--chunk->live == 0 && chunk->stored == PUBMAP_CHUNK_IDS)
        dense_retire(map, index >> PUBMAP_CHUNK_BITS, chunk);
    return value;
}

void* pubmap_release(pubmap* map, uint64_t id) {
    void* value;
    if (pubmap_is_dense(map, id))
        return dense_release(map, (size_t)(id - map->dense_base));
    if ((value = pubmap_get(map, id)) == NULL)
        return NULL;
    /* relaxed: nothing is published; the slot's ID stays, so the probe
     * chains of other IDs are unchanged. The retired tables too: a reader
     * may still hold one, and must not find the value about to be freed */
    for (pubmap_table* table = map_table(map, memory_order_relaxed); table != NULL;
         table = table->retired) {
        pubmap_slot* slot = map_find(table, id);
        if (slot->id == id && atomic_load_explicit(&slot->value, memory_order_relaxed) != NULL)
            atomic_store_explicit(&slot->value, PUBMAP_RELEASED, memory_order_relaxed);
    }
    return value;
}

size_t pubmap_chunk_count(const pubmap* map) { return map->chunks; }

size_t pubmap_count(const pubmap* map) { return map->count; }

static void chunk_free(pubmap_chunk* chunk, void (*free_value)(void*)) {
    for (unsigned i = 0; free_value != NULL && i < PUBMAP_CHUNK_IDS; i++) {
        void* value = atomic_load_explicit(&chunk->slots[i], memory_order_relaxed);
        if (value != NULL && value != PUBMAP_RELEASED)
            free_value(value);
    }
    nvtxw_free(chunk);
}

/* The spares, then the chunks in use (their live values with free_value),
 * found segment by segment in the pubvec. */
static void dense_free(pubmap* map, void (*free_value)(void*)) {
    while (map->spare != NULL) {
        pubmap_chunk* next = map->spare->next_spare;
        nvtxw_free(map->spare);
        map->spare = next;
    }
    for (unsigned s = 0; s < PUBVEC_SEGMENTS; s++) {
        _Atomic(void*)* segment = vec_segment(&map->dense, s);
        for (size_t i = 0; segment != NULL && i < (size_t)1 << (PUBVEC_FIRST_BITS + s); i++) {
            void* chunk = atomic_load_explicit(&segment[i], memory_order_relaxed);
            if (chunk != NULL && chunk != PUBMAP_RELEASED)
                chunk_free(chunk, free_value);
        }
    }
    map->chunks = 0;
    pubvec_free(&map->dense, NULL);
}

void pubmap_free(pubmap* map, void (*free_value)(void*)) {
    pubmap_table* table = map_table(map, memory_order_relaxed);
    size_t i;
    for (i = 0; free_value != NULL && table != NULL && i < table->capacity; i++) {
        void* value = atomic_load_explicit(&table->slots[i].value, memory_order_relaxed);
        if (value != NULL && value != PUBMAP_RELEASED)
            free_value(value);
    }
    while (table != NULL) {
        pubmap_table* retired = table->retired;
        nvtxw_free(table);
        table = retired;
    }
    atomic_store_explicit(&map->table, NULL, memory_order_relaxed);
    dense_free(map, free_value);
    map->count = map->hashed = 0;
}

/* ---- pubvec ----------------------------------------------------------------- */

static _Atomic(void*)* vec_segment(const pubvec* vec, unsigned s) {
    return atomic_load_explicit((_Atomic(_Atomic(void*)*)*)&vec->segments[s], memory_order_relaxed);
}

int pubvec_reserve(pubvec* vec, size_t index) {
    size_t offset;
    unsigned s;
    _Atomic(void*)* segment;
    if ((uint64_t)index >= PUBVEC_MAX_ITEMS)
        return -1;
    s = pubvec_segment(index, &offset);
    if (vec_segment(vec, s) != NULL)
        return 0;
    segment = nvtxw_calloc((size_t)1 << (PUBVEC_FIRST_BITS + s), sizeof *segment);
    if (segment == NULL)
        return -1;
    /* release: readers that take the segment see it zeroed */
    atomic_store_explicit(&vec->segments[s], segment, memory_order_release);
    return 0;
}

int pubvec_set(pubvec* vec, size_t index, void* value) {
    size_t offset;
    unsigned s;
    if (pubvec_reserve(vec, index) != 0)
        return -1;
    s = pubvec_segment(index, &offset);
    atomic_store_explicit(&vec_segment(vec, s)[offset], value, memory_order_release);
    return 0;
}

void pubvec_replace(pubvec* vec, size_t index, void* value) {
    size_t offset;
    unsigned s = pubvec_segment(index, &offset);
    atomic_store_explicit(&vec_segment(vec, s)[offset], value, memory_order_release);
}

void pubvec_free(pubvec* vec, void (*free_value)(void*)) {
    for (unsigned s = 0; s < PUBVEC_SEGMENTS; s++) {
        _Atomic(void*)* segment = vec_segment(vec, s);
        size_t count;
        if (segment == NULL)
            continue; /* (a segment past what size_t indexes never is) */
        count = (size_t)1 << (PUBVEC_FIRST_BITS + s);
        for (size_t i = 0; free_value != NULL && i < count; i++) {
            void* value = atomic_load_explicit(&segment[i], memory_order_relaxed);
            if (value != NULL)
                free_value(value);
        }
        nvtxw_free(segment);
        atomic_store_explicit(&vec->segments[s], NULL, memory_order_relaxed);
    }
}
