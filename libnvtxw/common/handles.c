/*
 * common/handles.c - generational handle tables (see handles.h).
 */
#include "common/handles.h"

#include "common/alloc.h"

#include <sched.h>

/* Low 32 bits of a handle: kind << HANDLE_KIND_SHIFT | (slot + 1). */
#define HANDLE_KIND_SHIFT 24
#define HANDLE_SLOT_MASK ((1u << HANDLE_KIND_SHIFT) - 1)

_Static_assert((uint64_t)HANDLE_MAX_BLOCKS* HANDLE_BLOCK_SLOTS < HANDLE_SLOT_MASK,
               "slot numbers must not reach the kind bits");
_Static_assert(sizeof(handle_slot) == HANDLE_SLOT_BYTES, "a slot is one cache line long");

static uint64_t handle_make(const handle_table* table, uint32_t generation, uint32_t slot) {
    return (uint64_t)generation << 32 | (uint64_t)table->kind << HANDLE_KIND_SHIFT |
           ((uint64_t)slot + 1);
}

uint32_t handle_kind(uint64_t handle) { return (uint32_t)handle >> HANDLE_KIND_SHIFT; }

/* The slot of index `slot`, or NULL when its block does not exist. */
static handle_slot* slot_at(handle_table* table, uint32_t slot) {
    handle_slot* block;
    if (slot / HANDLE_BLOCK_SLOTS >= HANDLE_MAX_BLOCKS)
        return NULL;
    block = atomic_load_explicit(&table->blocks[slot / HANDLE_BLOCK_SLOTS], memory_order_acquire);
    return block ? &block[slot % HANDLE_BLOCK_SLOTS] : NULL;
}

/* The slot a value of this table's kind names, or NULL (0, another kind, a
 * generation of 0, a slot never handed out). */
static handle_slot* slot_of(handle_table* table, uint64_t handle) {
    uint32_t low = (uint32_t)handle;
    if (handle_kind(handle) != table->kind || (low & HANDLE_SLOT_MASK) == 0 || handle >> 32 == 0)
        return NULL;
    return slot_at(table, (low & HANDLE_SLOT_MASK) - 1);
}

static uint32_t generation_of(uint64_t handle) { return (uint32_t)(handle >> 32); }

/* Takes a slot from the free list or a new one (mutex held); UINT32_MAX if none. */
static uint32_t slot_take(handle_table* table) {
    uint32_t slot;
    if (table->free_head != 0) {
        slot = table->free_head - 1;
        table->free_head = slot_at(table, slot)->next_free;
        return slot;
    }
    slot = table->used;
    if (slot / HANDLE_BLOCK_SLOTS >= HANDLE_MAX_BLOCKS)
        return UINT32_MAX;
    if (slot % HANDLE_BLOCK_SLOTS == 0) {
        handle_slot* block = nvtxw_calloc(HANDLE_BLOCK_SLOTS, sizeof *block);
        if (block == NULL)
            return UINT32_MAX;
        atomic_store_explicit(&table->blocks[slot / HANDLE_BLOCK_SLOTS], block,
                              memory_order_release);
    }
    table->used++;
    return slot;
}

/* State words: generation << 1 | busy. */
static uint64_t state_free(uint32_t generation) { return (uint64_t)generation << 1; }
static uint32_t state_generation(uint64_t state) { return (uint32_t)(state >> 1); }

uint64_t handle_insert(handle_table* table, void* object) {
    uint64_t handle = 0;
    uint32_t slot, generation;
    handle_slot* entry;
    pthread_mutex_lock(&table->mutex);
    slot = slot_take(table);
    if (slot != UINT32_MAX) {
        entry = slot_at(table, slot);
        generation = state_generation(atomic_load_explicit(&entry->state, memory_order_relaxed));
        if (generation == 0) /* fresh slot; never 0: handle 0 must stay invalid */
            generation = table->first_generation;
        if (generation > table->last_generation)
            table->last_generation = generation;
        atomic_store_explicit(&entry->object, object, memory_order_relaxed);
        /* Publishes the object: whoever sees this generation sees it. */
        atomic_store_explicit(&entry->state, state_free(generation), memory_order_release);
        handle = handle_make(table, generation, slot);
        table->live++;
    }
    pthread_mutex_unlock(&table->mutex);
    return handle;
}

void* handle_lookup(handle_table* table, uint64_t handle) {
    handle_slot* entry = slot_of(table, handle);
    if (entry == NULL || state_generation(atomic_load_explicit(
                             &entry->state, memory_order_acquire)) != generation_of(handle))
        return NULL;
    return atomic_load_explicit(&entry->object, memory_order_relaxed);
}

handle_status handle_failure(const handle_table* table, uint64_t handle) {
    uint32_t kind = handle_kind(handle);
    int known =
        kind == HANDLE_KIND_SESSION || kind == HANDLE_KIND_DOMAIN || kind == HANDLE_KIND_STREAM;
    return known && kind != table->kind ? HANDLE_WRONG_KIND : HANDLE_STALE;
}

handle_status handle_enter(handle_table* table, uint64_t handle, void** object) {
    handle_slot* entry = slot_of(table, handle);
    uint64_t expected = state_free(generation_of(handle));
    if (entry == NULL)
        return handle_failure(table, handle);
    /* A stale handle fails the swap and writes nothing. */
    if (!atomic_compare_exchange_strong_explicit(&entry->state, &expected, expected | 1,
                                                 memory_order_acquire, memory_order_relaxed))
        return state_generation(expected) == generation_of(handle) ? HANDLE_BUSY : HANDLE_STALE;
    *object = atomic_load_explicit(&entry->object, memory_order_relaxed);
    if (*object == NULL) { /* a free slot's next generation, guessed */
        atomic_store_explicit(&entry->state, state_free(generation_of(handle)),
                              memory_order_release);
        return HANDLE_STALE;
    }
    return HANDLE_ENTERED;
}

handle_status handle_enter_wait(handle_table* table, uint64_t handle, void** object) {
    handle_status status;
    while ((status = handle_enter(table, handle, object)) == HANDLE_BUSY)
        sched_yield(); /* a write in progress: they are short */
    return status;
}

void handle_leave(handle_table* table, uint64_t handle) {
    handle_slot* entry = slot_of(table, handle);
    /* Only the thread inside leaves, and nobody else changes the state
     * while it is inside: a store is enough. */
    if (entry != NULL)
        atomic_store_explicit(&entry->state, state_free(generation_of(handle)),
                              memory_order_release);
}

void handle_release(handle_table* table, uint64_t handle) {
    uint32_t generation = generation_of(handle);
    handle_slot* entry;
    pthread_mutex_lock(&table->mutex);
    entry = slot_of(table, handle);
    if (entry != NULL &&
        state_generation(atomic_load_explicit(&entry->state, memory_order_relaxed)) == generation) {
        atomic_store_explicit(&entry->object, NULL, memory_order_relaxed);
        table->live--;
        if (generation == UINT32_MAX) {
            /* Its generations are used up: retire the slot (generation 0,
             * which no handle has, and never on the free list), so no
             * generation is handed out twice. */
            atomic_store_explicit(&entry->state, state_free(0) | 1, memory_order_release);
        } else {
            /* The new generation and "not busy" in one store: whoever
             * enters next sees both. */
            atomic_store_explicit(&entry->state, state_free(generation + 1), memory_order_release);
            if (generation + 1 > table->last_generation)
                table->last_generation = generation + 1;
            entry->next_free = table->free_head;
            table->free_head = (uint32_t)handle & HANDLE_SLOT_MASK; /* slot + 1 */
        }
    }
    pthread_mutex_unlock(&table->mutex);
}

uint32_t handle_table_reset(handle_table* table) {
    uint32_t i, live;
    pthread_mutex_lock(&table->mutex);
    live = table->live;
    if (live == 0) {
        for (i = 0; i < HANDLE_MAX_BLOCKS; i++) {
            nvtxw_free(atomic_load_explicit(&table->blocks[i], memory_order_relaxed));
            atomic_store_explicit(&table->blocks[i], NULL, memory_order_relaxed);
        }
        table->used = table->free_head = 0;
        /* Handles from before the reset never match a fresh slot. */
        table->first_generation =
            table->last_generation == UINT32_MAX ? 1 : table->last_generation + 1;
    }
    pthread_mutex_unlock(&table->mutex);
    return live;
}
