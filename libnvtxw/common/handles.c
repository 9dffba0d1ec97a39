/*
 * common/handles.c - generational handle tables (see handles.h).
 */
#include "common/handles.h"

#include "common/alloc.h"

static uint64_t handle_make(uint32_t generation, uint32_t slot) {
    return (uint64_t)generation << 32 | ((uint64_t)slot + 1);
}

/* The slot of index `slot`, or NULL when its block does not exist. */
static handle_slot* slot_at(handle_table* table, uint32_t slot) {
    handle_slot* block;
    if (slot / HANDLE_BLOCK_SLOTS >= HANDLE_MAX_BLOCKS)
        return NULL;
    block = atomic_load_explicit(&table->blocks[slot / HANDLE_BLOCK_SLOTS], memory_order_acquire);
    return block ? &block[slot % HANDLE_BLOCK_SLOTS] : NULL;
}

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

uint64_t handle_insert(handle_table* table, void* object) {
    uint64_t handle = 0;
    uint32_t slot, generation;
    handle_slot* entry;
    pthread_mutex_lock(&table->mutex);
    slot = slot_take(table);
    if (slot != UINT32_MAX) {
        entry = slot_at(table, slot);
        generation = atomic_load_explicit(&entry->generation, memory_order_relaxed);
        if (generation == 0) /* fresh slot; never 0: handle 0 must stay invalid */
            generation = (table->epoch << 16) | 1;
        atomic_store_explicit(&entry->object, object, memory_order_relaxed);
        atomic_store_explicit(&entry->generation, generation, memory_order_release);
        handle = handle_make(generation, slot);
        table->live++;
    }
    pthread_mutex_unlock(&table->mutex);
    return handle;
}

void* handle_lookup(handle_table* table, uint64_t handle) {
    uint32_t slot = (uint32_t)handle - 1, generation = (uint32_t)(handle >> 32);
    handle_slot* entry;
    if ((uint32_t)handle == 0 || generation == 0)
        return NULL;
    entry = slot_at(table, slot);
    if (entry == NULL || slot >= HANDLE_MAX_BLOCKS * HANDLE_BLOCK_SLOTS)
        return NULL;
    if (atomic_load_explicit(&entry->generation, memory_order_acquire) != generation)
        return NULL;
    return atomic_load_explicit(&entry->object, memory_order_relaxed);
}

void handle_release(handle_table* table, uint64_t handle) {
    uint32_t slot = (uint32_t)handle - 1, generation = (uint32_t)(handle >> 32);
    handle_slot* entry;
    pthread_mutex_lock(&table->mutex);
    entry = (uint32_t)handle ? slot_at(table, slot) : NULL;
    if (entry != NULL &&
        atomic_load_explicit(&entry->generation, memory_order_relaxed) == generation) {
        atomic_store_explicit(&entry->object, NULL, memory_order_relaxed);
        atomic_store_explicit(&entry->generation, generation + 1, memory_order_release);
        entry->next_free = table->free_head;
        table->free_head = slot + 1;
        table->live--;
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
        table->epoch++;
    }
    pthread_mutex_unlock(&table->mutex);
    return live;
}
