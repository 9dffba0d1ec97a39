/*
 * reader/reader_internal.h - state of a report reader (nvtxw/reader.h),
 * shared by reader_open.c (open, registration log, accessors),
 * reader_cursor.c (primitive decoding, arenas, damage),
 * reader_registrations.c and reader_records.c (record grammars),
 * reader_merge.c (stream and time order) and reader_replay*.c.
 *
 * Memory: the registries, registered strings and stream table live until
 * close; each stream being read holds one decompressed chunk, its interned
 * dictionary and an arena for its pending record; registration records use
 * one arena reset per record. Nothing grows with the file's size except the
 * container's chunk list (O(chunks)) and the damage list.
 */
#ifndef NVTXW_READER_INTERNAL_H
#define NVTXW_READER_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "common/idmap.h"
#include "common/varint.h"
#include "format/container.h"
#include "nvtxw/error.h"
#include "nvtxw/reader.h"
#include "payload/field_codec.h"

/* The record layer's container chunk kinds (docs/report-records.md). */
#define READER_KIND_REGISTRATIONS 1u
#define READER_KIND_EVENTS 2u

/* Bump allocator freed as a whole; a zeroed arena is empty and valid. Its
 * common cases (room in the head block; one standard block to rewind) are
 * inline: every stream record allocates. */
#define READER_ARENA_BLOCK 4096
#define READER_ARENA_ALIGN 16

typedef struct reader_arena_block reader_arena_block;
struct reader_arena_block {
    reader_arena_block* next;
    size_t used, size;
    _Alignas(READER_ARENA_ALIGN) unsigned char data[];
};
typedef struct reader_arena {
    reader_arena_block* head;
} reader_arena;

void* reader_arena_alloc_slow(reader_arena* arena, size_t size);
void reader_arena_reset(reader_arena* arena);
void reader_arena_rewind_slow(reader_arena* arena);

static inline void* reader_arena_alloc(reader_arena* arena, size_t size) {
    reader_arena_block* block = arena->head;
    size_t need = (size + READER_ARENA_ALIGN - 1) & ~(size_t)(READER_ARENA_ALIGN - 1);
    void* p;
    if (block == NULL || size == 0 || size > READER_ARENA_BLOCK || block->size - block->used < need)
        return reader_arena_alloc_slow(arena, size);
    p = block->data + block->used;
    block->used += need;
    return p;
}

/* Empties the arena for the next record but keeps one block for it. */
static inline void reader_arena_rewind(reader_arena* arena) {
    reader_arena_block* head = arena->head;
    if (head != NULL && head->next == NULL && head->size == READER_ARENA_BLOCK)
        head->used = 0;
    else
        reader_arena_rewind_slow(arena);
}

/* Bounds-checked reading of one decompressed chunk. `problem` names the
 * first failure (a static string); every getter returns 0 or -1. */
typedef struct reader_cursor {
    const uint8_t* p;
    const uint8_t* end;
    const char* problem;
} reader_cursor;

static inline int reader_fail(reader_cursor* c, const char* problem) {
    if (c->problem == NULL)
        c->problem = problem;
    return -1;
}
/* The getters every record uses are inline with their common case (a byte
 * left, a one-byte varint); the rest is out of line. */
int reader_get_u8_slow(reader_cursor* c);
int reader_get_uvar_slow(reader_cursor* c, uint64_t* out);
static inline int reader_get_u8(reader_cursor* c, uint8_t* out) {
    if (c->p >= c->end) {
        *out = 0; /* defined on every path: callers may read it after a failure */
        return reader_get_u8_slow(c);
    }
    *out = *c->p++;
    return 0;
}
static inline int reader_get_uvar(reader_cursor* c, uint64_t* out) {
    if (c->p < c->end && *c->p < 0x80) {
        *out = *c->p++;
        return 0;
    }
    *out = 0;
    return reader_get_uvar_slow(c, out);
}
static inline int reader_get_svar(reader_cursor* c, int64_t* out) {
    uint64_t z;
    int status = reader_get_uvar(c, &z);
    *out = (int64_t)((z >> 1) ^ (~(z & 1) + 1));
    return status;
}
int reader_get_f64(reader_cursor* c, double* out);
/* A `bytes` field: *data points into the chunk. */
int reader_get_bytes(reader_cursor* c, const uint8_t** data, size_t* size);
/* A `str` field copied NUL-terminated into the arena. */
int reader_get_str(reader_cursor* c, reader_arena* arena, const char** out);
/* A uvar that must be <= limit (what names it, for the problem). */
static inline int reader_get_bounded(reader_cursor* c, uint64_t limit, const char* what,
                                     uint64_t* out) {
    if (reader_get_uvar(c, out) != 0)
        return -1;
    return *out <= limit ? 0 : reader_fail(c, what);
}
static inline size_t reader_left(const reader_cursor* c) { return (size_t)(c->end - c->p); }
/* As reader_get_svar, with multi-byte values decoded inline too (when ten
 * bytes are left): for the time lane, whose deltas are rarely one byte. */
static inline int reader_get_svar_long(reader_cursor* c, int64_t* out) {
    uint64_t z;
    const uint8_t* p = c->p;
    if (reader_left(c) < VARINT_MAX_BYTES || varint_get_unbounded(&p, &z) != 0)
        return reader_get_svar(c, out);
    c->p = p;
    *out = varint_unzigzag(z);
    return 0;
}

typedef struct reader_domain {
    char* name;
    nvtxw_schema_registry_t* registry;
    char** strings;
    size_t string_count, string_capacity;
    uint32_t serial;           /* high half of the writer's string handles (format 2) */
    idmap plans;               /* schema ID -> reader_plan* (reader_records.c), made on first use */
    uint32_t string_anchor[2]; /* per pass: see reg_losses */
    int lost;                  /* a placeholder for a domain record of a damaged chunk */
} reader_domain;

/* How payloads of one schema are decoded: the encoding a compact record
 * implies for it (0 = none) and its fields plan. */
typedef struct reader_plan reader_plan;
void reader_plans_free(reader_domain* domain);

/* Schema references of compact records: the writer's per-chunk table. */
#define READER_SREF_MAX 32
/* Lanes of a format-2 event chunk (docs/report-records.md, "Lanes"). */
enum {
    READER_LANE_MAIN = 0,
    READER_LANE_TIME = 1,
    READER_LANE_FIELDS = 2,
    READER_LANE_VALUES = 8,
    READER_LANES = 9
};

typedef struct reader_stream_info {
    uint64_t domain; /* NVTXW_READER_NONE for a lost stream */
    char* name;
    int lost;            /* a placeholder for a stream-open record of a damaged chunk */
    size_t first, count; /* container chunks [first, first + count) */
} reader_stream_info;

typedef struct reader_dict_entry {
    size_t offset, size; /* in the chunk buffer */
} reader_dict_entry;

/* Reading position in one stream. */
typedef struct reader_stream_cursor {
    uint64_t stream;
    uint32_t serial;   /* the stream's domain's handle serial (format 2) */
    size_t next_chunk; /* next container chunk to load, from info.first */
    uint8_t* buffer;
    size_t capacity;
    reader_cursor cur;                 /* the main lane (a format-1 chunk's whole bytes) */
    reader_cursor lanes[READER_LANES]; /* format 2: time and values lanes (others unused) */
    field_input fields[FIELD_LANES];   /* format 2: the field lanes */
    /* Bytes the time lane and the first `fast_lanes` field lanes each hold
     * at least (a lower bound: measured now and then, lowered by each record
     * decoded without end checks; 0 after any other record). */
    size_t fast_room;
    unsigned fast_lanes;
    size_t chunk; /* container index of the loaded chunk */
    uint64_t record_number;
    int64_t now;         /* last timestamp of the chunk: the delta base */
    int has_now;         /* a timestamped record was read in this chunk */
    int64_t chunk_first; /* the chunk's first_ts: order key before has_now */
    reader_dict_entry* dict;
    size_t dict_count, dict_capacity;
    struct {
        uint64_t schema_id;
        const reader_plan* plan; /* NULL for predefined string schemas */
    } srefs[READER_SREF_MAX];
    uint32_t sref_count;
    reader_arena arena; /* the pending record's memory */
    /* A run of compact records of one schema decoded ahead, lane by lane
     * (reader_records.c) into `run` (RUN_BYTES, allocated on the first
     * run): run_count slots of run_stride bytes (a reader_run_slot, then
     * the payload), run_next the next to hand out. */
    uint8_t* run;
    size_t run_stride;
    uint32_t run_count, run_next;
    nvtxw_record_t head;
    int64_t key;
    int has_head;
    int loaded;  /* a chunk is in buffer */
    int started; /* the first record was looked for */
} reader_stream_cursor;

typedef struct reader_damage_item {
    uint64_t offset, length;
    char* reason; /* owned */
} reader_damage_item;

enum { READER_PHASE_REGISTRATIONS, READER_PHASE_STREAMS, READER_PHASE_DONE };

/* A stream in the time-order tournament tree (reader_merge.c), with its
 * head's key beside it: the merge compares keys without touching the
 * cursors. */
typedef struct reader_heap_item {
    int64_t key;
    size_t stream;
} reader_heap_item;

struct nvtxw_reader {
    container_reader_t* container;
    char* path;
    int order;
    uint32_t flags; /* nvtxw_reader_options_t.flags it was opened with */
    unsigned major; /* report format major version of the file */
    /* session record */
    int has_session;
    char* session_name;
    char* session_config;
    uint8_t abi[5]; /* pointer, long, wchar_t, long double sizes; byte order */
    reader_domain* domains;
    size_t domain_count, domain_capacity;
    reader_stream_info* streams;
    size_t stream_count, stream_capacity;
    /* registration log: container chunk indices in file order, and how many
     * records of each the first pass decoded whole (extension records
     * included: the emitting pass decodes them again) */
    size_t* reg_chunks;
    uint64_t* reg_ok;
    size_t reg_chunk_count;
    reader_damage_item* damage;
    size_t damage_count, damage_capacity;
    int reg_damaged;                    /* a registration chunk was skipped, in part or whole */
    uint64_t reg_lost_records;          /* registration records skipped or dropped so far */
    uint64_t lost_strings, lost_others; /* placeholders filled in (reader_registrations.c) */
    /* Numbers after a lost registration chunk (reader_registrations.c). Per
     * pass (0 opening, 1 emitting): how many losses were passed, and for
     * domains, stream opens and each domain's strings the loss count when
     * their numbering was last known (at the start, or at an index marker).
     * A record of a kind whose numbering predates the last loss has no known
     * number (a report written before markers): it is dropped and counted,
     * never handed out under another record's number. */
    uint32_t reg_losses[2], domain_anchor[2], stream_anchor[2];
    uint8_t* reg_lossy;       /* per registration chunk: records were lost at its end */
    uint64_t reg_dropped;     /* records dropped so (opening pass) */
    uint64_t reg_orphans;     /* records dropped for naming a lost domain, string or stream */
    size_t reg_damage_seen;   /* container damage entries note_damage_before has passed */
    uint64_t reg_loss_offset; /* offset of the first damage in the registration log */
    uint64_t* reg_drop;       /* the record just decoded is dropped: the count it goes to */
    int reg_lost_unknown;     /* damage of unknown content precedes: markers may skip more,
                                 and records naming what it may have held are orphans */
    /* iteration */
    int phase;
    size_t reg_pos;        /* registration chunk being emitted */
    uint64_t reg_record;   /* records of it emitted */
    reader_cursor reg_cur; /* inside reg_buffer */
    int reg_loaded;
    uint8_t* reg_buffer;
    size_t reg_capacity;
    uint64_t emit_domains, emit_streams;
    uint64_t* emit_strings; /* per domain */
    reader_arena reg_arena;
    nvtxw_record_t record;
    reader_stream_cursor* cursors; /* one per stream */
    reader_heap_item* heap;        /* time order: the tournament tree, 2 x tree_size */
    size_t tree_size;              /* leaves: a power of two >= stream_count */
    size_t current;                /* stream order: stream being read */
    int single;                    /* seek_stream: only `current` */
    reader_stream_cursor* pending; /* returned head, advanced on the next call */
    uint64_t returned;
};

/* Appends damage (reason formatted; copied). Returns 0 or -1 (out of memory). */
int reader_add_damage(nvtxw_reader_t* reader, uint64_t offset, uint64_t length, const char* format,
                      ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Loads container chunk i into *buffer (grown as needed). Returns SUCCESS,
 * or the container's code with the message set. */
nvtxwResultCode_t reader_load_chunk(nvtxw_reader_t* reader, size_t i, uint8_t** buffer,
                                    size_t* capacity, size_t* size);

/* Registration records (reader_registrations.c). With `apply`, the record
 * is added to the reader's state (domains, strings, registries, streams);
 * without, only `rec` is filled (state from the first pass is looked up).
 * Returns 1 for a record, 0 for a skipped extension record, -1 malformed
 * (c->problem says why; `detail` may hold a longer message), -2 out of
 * memory. */
int reader_decode_registration(nvtxw_reader_t* reader, reader_cursor* c, nvtxw_record_t* rec,
                               reader_arena* arena, int apply, char* detail, size_t detail_size);

/* A slot of a cursor's run (reader_records.c): the record's time and
 * payload descriptor; its payload follows, READER_ARENA_ALIGN-aligned. */
typedef struct reader_run_slot {
    int64_t timestamp;
    nvtxPayloadData_t payload;
} reader_run_slot;

#define READER_RUN_SLOT_HEADER                                                                     \
    ((sizeof(reader_run_slot) + READER_ARENA_ALIGN - 1) & ~(size_t)(READER_ARENA_ALIGN - 1))

static inline reader_run_slot* reader_run_slot_at(const reader_stream_cursor* cur, size_t i) {
    return (reader_run_slot*)(cur->run + i * cur->run_stride);
}

/* Whether cur->head holds a record of the cursor's run that has records
 * after it: the next one is then handed out by reader_run_advance. */
static inline int reader_run_continues(const reader_stream_cursor* cur) {
    return cur->run_next != 0 && cur->run_next < cur->run_count;
}

/* Moves cur->head on to the run's next record, which it counts: only its
 * time and payload differ from the record before it (reader_run_continues). */
static inline void reader_run_advance(reader_stream_cursor* cur) {
    reader_run_slot* slot = reader_run_slot_at(cur, cur->run_next++);
    cur->cur.p += 3; /* its header, checked when the run was decoded */
    cur->head.timestamp = slot->timestamp;
    cur->head.u.event.payloads = &slot->payload;
    cur->key = slot->timestamp;
    cur->record_number++;
}

/* Stream records (reader_records.c), same return convention (no -2 except
 * out of memory). Fills cur->head. */
int reader_decode_stream_record(nvtxw_reader_t* reader, reader_stream_cursor* cur);

/* Splits a loaded format-2 event chunk into its lanes (cur->cur becomes
 * the main lane). Returns 0, or -1 with cur->cur.problem set. */
int reader_split_lanes(reader_stream_cursor* cur, size_t size);

/* Ordering (reader_merge.c). */
nvtxwResultCode_t reader_streams_start(nvtxw_reader_t* reader);
nvtxwResultCode_t reader_streams_next(nvtxw_reader_t* reader, const nvtxw_record_t** out);
void reader_cursor_free(reader_stream_cursor* cur);

#endif /* NVTXW_READER_INTERNAL_H */
