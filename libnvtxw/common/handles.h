/*
 * common/handles.h - generational handle tables.
 *
 * The NVTXW handles we give out (sessions, domains, streams) are opaque
 * values, not pointers: value = generation << 32 | (slot + 1). Releasing a
 * handle bumps its slot's generation, so a stale handle (a stream used after
 * StreamClose, a session after SessionEnd) no longer resolves and the call
 * fails cleanly instead of touching freed memory.
 *
 * Slots live in fixed blocks that are never moved, so lookups are lock-free
 * and may run concurrently with inserts and releases of other slots (the
 * write path looks up streams while another session opens its own). Inserts
 * and releases take the table's mutex.
 */
#ifndef NVTXW_COMMON_HANDLES_H
#define NVTXW_COMMON_HANDLES_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#define HANDLE_BLOCK_SLOTS 1024u
#define HANDLE_MAX_BLOCKS 4096u /* 4 Mi live handles per table */

typedef struct handle_slot {
    _Atomic uint32_t generation;
    _Atomic(void*) object;
    uint32_t next_free; /* free-list link (slot + 1), under the mutex */
} handle_slot;

typedef struct handle_table {
    pthread_mutex_t mutex;
    _Atomic(handle_slot*) blocks[HANDLE_MAX_BLOCKS];
    uint32_t used;      /* slots ever handed out */
    uint32_t free_head; /* slot + 1 of the first free slot, 0 = none */
    uint32_t live;
    uint32_t epoch; /* bumped by reset, so handles from before stay stale */
} handle_table;

#define HANDLE_TABLE_INIT                                                                          \
    { PTHREAD_MUTEX_INITIALIZER, {NULL}, 0, 0, 0, 0 }

/* Returns the new handle, or 0 when out of memory or slots. */
uint64_t handle_insert(handle_table* table, void* object);
/* The object of a live handle, or NULL for 0, stale or foreign values. */
void* handle_lookup(handle_table* table, uint64_t handle);
/* Invalidates a live handle; later lookups return NULL. */
void handle_release(handle_table* table, uint64_t handle);
/* Frees the blocks when no handle is live (nvtxwFinalize); returns the number
 * of handles still live (then nothing is freed). */
uint32_t handle_table_reset(handle_table* table);

#endif /* NVTXW_COMMON_HANDLES_H */
