/*
 * common/handles.c - generational handle tables (see handles.h).
 */
#include "common/handles.h"

#include "common/alloc.h"

#include <sched.h>

_Static_assert((uint64_t)HANDLE_MAX_BLOCKS* HANDLE_BLOCK_SLOTS < HANDLE_SLOT_MASK,
               "slot numbers must not reach the kind bits");
_Static_assert(sizeof(handle_slot) == HANDLE_SLOT_BYTES, "a slot is one cache line long");

static uint64_t handle_make(const handle_table* table, uint32_t generation, uint32_t slot) {
    return (uint64_t)generation << 32 | (uint64_t)table->kind << HANDLE_KIND_SHIFT |
           ((uint64_t)slot + 1);
}

/* Takes a slot from the free list or a new one (mutex held); UINT32_MAX if none. */
static uint32_t slot_take(handle_table* table) {
    uint32_t slot;
    if (table->free_head != 0) {
        slot = table->free_head - 1;
        table->free_head = handle_slot_at(table, slot)->next_free;
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

uint64_t handle_insert(handle_table* table, void* object) {
    uint64_t handle = 0;
    uint32_t slot, generation;
    handle_slot* entry;
    pthread_mutex_lock(&table->mutex);
    slot = slot_take(table);
    if (slot != UINT32_MAX) {
        entry = handle_slot_at(table, slot);
        generation =
            handle_state_generation(atomic_load_explicit(&entry->state, memory_order_relaxed));
        if (generation == 0) /* fresh slot; never 0: handle 0 must stay invalid */
            generation = table->first_generation;
        if (generation > table->last_generation)
            table->last_generation = generation;
        atomic_store_explicit(&entry->object, object, memory_order_relaxed);
        /* Publishes the object, entered by the caller: whoever sees this
         * generation sees the object, and nobody enters before the caller
         * leaves. */
        atomic_store_explicit(&entry->state, handle_state_free(generation) | 1,
                              memory_order_release);
        handle = handle_make(table, generation, slot);
        table->live++;
    }
    pthread_mutex_unlock(&table->mutex);
    return handle;
}

void* handle_lookup(handle_table* table, uint64_t handle) {
    handle_slot* entry = handle_slot_of(table, handle);
    if (entry == NULL || handle_state_generation(atomic_load_explicit(
                             &entry->state, memory_order_acquire)) != handle_generation_of(handle))
        return NULL;
    return atomic_load_explicit(&entry->object, memory_order_relaxed);
}

handle_status handle_failure(const handle_table* table, uint64_t handle) {
    uint32_t kind = handle_kind(handle);
    int known =
        kind == HANDLE_KIND_SESSION || kind == HANDLE_KIND_DOMAIN || kind == HANDLE_KIND_STREAM;
    return known && kind != table->kind ? HANDLE_WRONG_KIND : HANDLE_STALE;
}

handle_status handle_enter_wait(handle_table* table, uint64_t handle, void** object) {
    handle_status status;
    while ((status = handle_enter(table, handle, object)) == HANDLE_BUSY)
        sched_yield(); /* a write in progress: they are short */
    return status;
}

void handle_release(handle_table* table, uint64_t handle) {
    uint32_t generation = handle_generation_of(handle);
    handle_slot* entry;
    pthread_mutex_lock(&table->mutex);
    entry = handle_slot_of(table, handle);
    if (entry != NULL && handle_state_generation(atomic_load_explicit(
                             &entry->state, memory_order_relaxed)) == generation) {
        atomic_store_explicit(&entry->object, NULL, memory_order_relaxed);
        table->live--;
        if (generation == UINT32_MAX) {
            /* Its generations are used up: retire the slot (generation 0,
             * which no handle has, and never on the free list), so no
             * generation is handed out twice. */
            atomic_store_explicit(&entry->state, handle_state_free(0) | 1, memory_order_release);
        } else {
            /* Vacant under the next generation, and busy: a handle guessing
             * that generation cannot enter before handle_insert fills it. */
            atomic_store_explicit(&entry->state, handle_state_free(generation + 1) | 1,
                                  memory_order_release);
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
