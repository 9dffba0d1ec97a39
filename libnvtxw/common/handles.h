/*
 * common/handles.h - generational handle tables.
 *
 * The NVTXW handles we give out (sessions, domains, streams) are opaque
 * values, not pointers:
 *
 *   value = generation << 32 | kind << 24 | (slot + 1)
 *
 * Releasing a handle bumps its slot's generation, so a stale handle (a
 * stream used after StreamClose, a session after SessionEnd) no longer
 * resolves and the call fails cleanly instead of touching freed memory. The
 * kind (one per table) keeps a handle of one kind from resolving in another
 * table: a domain handle given to SessionEnd is refused, not taken for a
 * session.
 *
 * Slots live in fixed blocks that are never moved while handles are live,
 * so lookups are lock-free and may run concurrently with inserts and
 * releases of other slots (the write path looks up streams while another
 * session opens its own). Inserts and releases take the table's mutex.
 * Generations are never reused, not even after handle_table_reset: a slot
 * whose generation would wrap is retired.
 *
 * Entering: a call that uses the object behind a handle for longer than a
 * lookup (a write, StreamClose, SessionEnd) enters the handle's slot first:
 * one compare-and-swap of the slot's state (generation << 1 | busy) from
 * "this generation, free" to "this generation, busy". One thread at a time
 * is inside a slot; a second one is told HANDLE_BUSY instead of racing the
 * first (two writers on one stream, a close during a write), and a stale
 * handle fails the swap without writing anything, so it cannot disturb the
 * slot's next owner. A handle that is ever entered is released only from
 * inside its slot, so its object is never freed while another thread uses
 * it. Leaving is one store.
 *
 * A slot without an object is busy too: a vacant slot (released, waiting
 * for its next handle) under its next generation, so a handle guessing that
 * generation cannot enter it; and a slot being filled, which handle_insert
 * hands to its caller entered, so nobody enters the new handle before the
 * caller has set up what its leave needs (the handle itself, the slot) and
 * left.
 *
 * handle_table_reset (nvtxwFinalize) frees the blocks: no other call may run
 * during it.
 */
#ifndef NVTXW_COMMON_HANDLES_H
#define NVTXW_COMMON_HANDLES_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#define HANDLE_BLOCK_SLOTS 1024u
#define HANDLE_MAX_BLOCKS 4096u /* 4 Mi live handles per table */

/* The kinds of handle, one per table; 0 is no kind (not a handle of ours). */
enum { HANDLE_KIND_SESSION = 1, HANDLE_KIND_DOMAIN = 2, HANDLE_KIND_STREAM = 3 };

/* A slot is a cache line long: writers on distinct streams enter distinct
 * slots, and the state words of two slots 64 bytes apart never share a line,
 * which would bounce between their cores on every write (measured: 2
 * threads on 2 streams lost 17 % of their rate with 24-byte slots). */
#define HANDLE_SLOT_BYTES 64

typedef struct handle_slot {
    /* generation << 1 | busy. While the slot is free, the generation its
     * next handle gets; 0 for a slot never used. */
    _Atomic uint64_t state;
    _Atomic(void*) object; /* NULL while free */
    uint32_t next_free;    /* free-list link (slot + 1), under the mutex */
    char pad[HANDLE_SLOT_BYTES - sizeof(uint64_t) - sizeof(void*) - sizeof(uint32_t)];
} handle_slot;

typedef struct handle_table {
    pthread_mutex_t mutex;
    uint32_t kind; /* HANDLE_KIND_* of every handle of this table */
    _Atomic(handle_slot*) blocks[HANDLE_MAX_BLOCKS];
    uint32_t used;      /* slots ever handed out */
    uint32_t free_head; /* slot + 1 of the first free slot, 0 = none */
    uint32_t live;
    /* Fresh slots start at first_generation, raised past every generation
     * handed out (last_generation) by a reset. */
    uint32_t first_generation, last_generation;
} handle_table;

#define HANDLE_TABLE_INIT(kind)                                                                    \
    { PTHREAD_MUTEX_INITIALIZER, (kind), {NULL}, 0, 0, 0, 1, 0 }

/* What handle_enter found. */
typedef enum handle_status {
    HANDLE_ENTERED,    /* the caller is inside the slot: *object is valid */
    HANDLE_STALE,      /* 0, released, or never ours */
    HANDLE_WRONG_KIND, /* a handle of another table (handle_kind tells which) */
    HANDLE_BUSY        /* another thread is inside the slot */
} handle_status;

/* Returns the new handle, entered by the caller (who leaves it once the
 * object is ready to be entered by others, or releases it), or 0 when out of
 * memory or slots. */
uint64_t handle_insert(handle_table* table, void* object);
/* The object of a live handle, or NULL for 0, stale or foreign values. */
void* handle_lookup(handle_table* table, uint64_t handle);
/* Why a value that did not resolve in `table` failed: HANDLE_WRONG_KIND for
 * a handle of another of our tables, else HANDLE_STALE. */
handle_status handle_failure(const handle_table* table, uint64_t handle);
/* As handle_enter, but waits while another thread is inside: for SessionEnd,
 * which waits for writes in progress on its streams. */
handle_status handle_enter_wait(handle_table* table, uint64_t handle, void** object);
/* Invalidates a handle and leaves its slot: later lookups and entries
 * return NULL / HANDLE_STALE. The caller is inside the slot, or the handle
 * was never entered by anyone (never published, or of a table whose
 * handles are only looked up); it may then free the object. */
void handle_release(handle_table* table, uint64_t handle);
/* Frees the blocks when no handle is live (nvtxwFinalize); returns the number
 * of handles still live (then nothing is freed). */
uint32_t handle_table_reset(handle_table* table);

/* ---- The write path's part, inline: every write call enters and leaves
 * its stream's slot. ---- */

/* Low 32 bits of a handle: kind << HANDLE_KIND_SHIFT | (slot + 1). */
#define HANDLE_KIND_SHIFT 24
#define HANDLE_SLOT_MASK ((1u << HANDLE_KIND_SHIFT) - 1)

/* The HANDLE_KIND_* a value claims (0 for none); says nothing of liveness. */
static inline uint32_t handle_kind(uint64_t handle) {
    return (uint32_t)handle >> HANDLE_KIND_SHIFT;
}

static inline uint32_t handle_generation_of(uint64_t handle) { return (uint32_t)(handle >> 32); }
static inline uint64_t handle_state_free(uint32_t generation) { return (uint64_t)generation << 1; }
static inline uint32_t handle_state_generation(uint64_t state) { return (uint32_t)(state >> 1); }

static inline handle_slot* handle_slot_at(handle_table* table, uint32_t slot) {
    handle_slot* block;
    if (slot / HANDLE_BLOCK_SLOTS >= HANDLE_MAX_BLOCKS)
        return NULL;
    block = atomic_load_explicit(&table->blocks[slot / HANDLE_BLOCK_SLOTS], memory_order_acquire);
    return block ? &block[slot % HANDLE_BLOCK_SLOTS] : NULL;
}

static inline handle_slot* handle_slot_of(handle_table* table, uint64_t handle) {
    uint32_t low = (uint32_t)handle;
    if (handle_kind(handle) != table->kind || (low & HANDLE_SLOT_MASK) == 0 || handle >> 32 == 0)
        return NULL;
    return handle_slot_at(table, (low & HANDLE_SLOT_MASK) - 1);
}

/* Why entering `handle` found `state` instead of its free state: another
 * thread inside a live handle of this generation, or a vacant slot (or one
 * being filled) whose next generation was guessed. */
static inline handle_status handle_busy_or_stale(handle_slot* entry, uint64_t handle,
                                                 uint64_t state) {
    if (handle_state_generation(state) != handle_generation_of(handle))
        return HANDLE_STALE;
    return atomic_load_explicit(&entry->object, memory_order_relaxed) ? HANDLE_BUSY : HANDLE_STALE;
}

/* Enters a live handle's slot; on HANDLE_ENTERED *object is its object and
 * the caller must handle_leave or handle_release. Lock-free. */
static inline handle_status handle_enter(handle_table* table, uint64_t handle, void** object) {
    handle_slot* entry = handle_slot_of(table, handle);
    uint64_t expected = handle_state_free(handle_generation_of(handle));
    if (entry == NULL)
        return handle_failure(table, handle);
    /* A stale handle fails the swap and writes nothing. */
    if (!atomic_compare_exchange_strong_explicit(&entry->state, &expected, expected | 1,
                                                 memory_order_acquire, memory_order_relaxed))
        return handle_busy_or_stale(entry, handle, expected);
    *object = atomic_load_explicit(&entry->object, memory_order_relaxed);
    if (*object == NULL) { /* not reached while handle_release's contract is kept */
        atomic_store_explicit(&entry->state, expected, memory_order_release);
        return HANDLE_STALE;
    }
    return HANDLE_ENTERED;
}

/* Leaves the entered slot `entry` of `handle` (handle_slot_of, kept by the
 * caller: a slot never moves while its handle lives). */
static inline void handle_leave_slot(handle_slot* entry, uint64_t handle) {
    /* Only the thread inside leaves, and nobody else changes the state
     * while it is inside: a store is enough. */
    atomic_store_explicit(&entry->state, handle_state_free(handle_generation_of(handle)),
                          memory_order_release);
}

/* Leaves an entered slot. */
static inline void handle_leave(handle_table* table, uint64_t handle) {
    handle_slot* entry = handle_slot_of(table, handle);
    /* Only the thread inside leaves, and nobody else changes the state
     * while it is inside: a store is enough. */
    if (entry != NULL)
        atomic_store_explicit(&entry->state, handle_state_free(handle_generation_of(handle)),
                              memory_order_release);
}

#endif /* NVTXW_COMMON_HANDLES_H */
