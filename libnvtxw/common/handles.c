/*
 * common/handles.c - generational handle tables (see handles.h).
 */
#include "common/handles.h"

#include "common/alloc.h"

#include <sched.h>

/* Low 32 bits of a handle: kind << HANDLE_KIND_SHIFT | (slot + 1). */
#define HANDLE_KIND_SHIFT 24
#define HANDLE_SLOT_MASK ((1u << HANDLE_KIND_SHIFT) - 1)

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
        handle = handle_make(table, generation, slot);
        table->live++;
    }
    pthread_mutex_unlock(&table->mutex);
    return handle;
}

void* handle_lookup(handle_table* table, uint64_t handle) {
    handle_slot* entry = slot_of(table, handle);
    if (entry == NULL ||
        atomic_load_explicit(&entry->generation, memory_order_acquire) != generation_of(handle))
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
    uint32_t generation = generation_of(handle);
    if (entry == NULL)
        return handle_failure(table, handle);
    /* A stale handle whose slot was reused should not make the new owner's
     * calls busy: look before taking the slot. */
    if (atomic_load_explicit(&entry->generation, memory_order_acquire) != generation)
        return HANDLE_STALE;
    if (atomic_exchange_explicit(&entry->busy, 1, memory_order_acquire) != 0)
        return HANDLE_BUSY;
    /* Released between the look and the exchange: leave again. */
    if (atomic_load_explicit(&entry->generation, memory_order_acquire) != generation) {
        atomic_store_explicit(&entry->busy, 0, memory_order_release);
        return HANDLE_STALE;
    }
    *object = atomic_load_explicit(&entry->object, memory_order_relaxed);
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
    if (entry != NULL)
        atomic_store_explicit(&entry->busy, 0, memory_order_release);
}

void handle_release(handle_table* table, uint64_t handle) {
    uint32_t generation = generation_of(handle);
    handle_slot* entry;
    pthread_mutex_lock(&table->mutex);
    entry = slot_of(table, handle);
    if (entry != NULL &&
        atomic_load_explicit(&entry->generation, memory_order_relaxed) == generation) {
        atomic_store_explicit(&entry->object, NULL, memory_order_relaxed);
        atomic_store_explicit(&entry->generation, generation + 1, memory_order_release);
        entry->next_free = table->free_head;
        table->free_head = (uint32_t)handle & HANDLE_SLOT_MASK; /* slot + 1 */
        table->live--;
        /* After the new generation: whoever enters next sees it. */
        atomic_store_explicit(&entry->busy, 0, memory_order_release);
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
