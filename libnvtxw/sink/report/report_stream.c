/*
 * sink/report/report_stream.c - the report sink's write path: stream records
 * (docs/report-records.md, "Stream chunks") built in the stream's own
 * buffer, compressed and written by the stream's own container encoder.
 *
 * Concurrency: every function here runs on the stream's writer thread and
 * touches only that stream's state, immutable registrations and plans, and
 * the registration log through report_sync_registrations (lock-free unless
 * registrations are pending). Each record is appended whole or not at all:
 * a failed build rewinds the buffer to the record's start.
 */
#include "config.h"

#include <assert.h>
#include <string.h>
#include <xxhash.h>

#include "common/alloc.h"
#include "common/compiler.h"
#include "common/error_internal.h"
#include "common/slot_hash.h"
#include "sink/report/report_internal.h"

/* ---- Lane positions ----------------------------------------------------- */
/*
 * The compact records (almost every record) write through st->at, the lanes'
 * write positions, after one check of st->room, a lower bound of every lane's
 * free bytes that each such record lowers by its size bound: no per-lane
 * capacity check and no length update per record. Records written through
 * strbuf (full events, counter values other than int64, sync and conversion
 * records) and the chunk's assembly need the lengths: lanes_sync brings them
 * up to date and lanes_reload takes the positions back (and recomputes
 * `room`) when they are done.
 */

/* Free bytes kept in every lane when lanes grow, so that growth is rare. */
#define LANE_SLACK 4096

static void lanes_sync(report_stream* st) {
    unsigned i;
    for (i = 0; i < REPORT_LANES; i++)
        if (st->lanes[i].data != NULL)
            st->lanes[i].length = (size_t)(st->at[i] - (uint8_t*)st->lanes[i].data);
}

static void lanes_reload(report_stream* st) {
    size_t room = SIZE_MAX;
    unsigned i;
    for (i = 0; i < REPORT_LANES; i++) {
        strbuf* lane = &st->lanes[i];
        size_t free = lane->data != NULL ? lane->capacity - lane->length - 1 : 0;
        st->at[i] = lane->data != NULL ? (uint8_t*)lane->data + lane->length : NULL;
        if (free < room)
            room = free;
    }
    st->room = room;
}

/* Room for `bound` more bytes in every lane. Returns 0 or -1 (out of
 * memory; the positions are unchanged). */
static int lanes_make_room(report_stream* st, size_t bound) {
    unsigned i;
    int status = 0;
    if (bound < st->room)
        return 0;
    if (bound > SIZE_MAX / 2)
        return -1;
    lanes_sync(st);
    for (i = 0; i < REPORT_LANES && status == 0; i++)
        status = strbuf_reserve(&st->lanes[i], bound + LANE_SLACK);
    lanes_reload(st);
    return status;
}

/* Bytes the lanes hold. */
static size_t stream_chunk_bytes(const report_stream* st) {
    size_t total = 0;
    unsigned i;
    for (i = 0; i < REPORT_LANES; i++)
        if (st->lanes[i].data != NULL)
            total += (size_t)(st->at[i] - (uint8_t*)st->lanes[i].data);
    return total;
}

/* ---- Chunks ------------------------------------------------------------- */

/* A chunk without timestamps yet: deltas start from 0, and the first
 * timestamp is both the least and the greatest. */
static void stream_reset_times(report_stream* st) {
    st->has_ts = 0;
    st->prev_ts = 0;
    st->min_ts = INT64_MAX;
    st->max_ts = INT64_MIN;
}

static void stream_reset_chunk(report_stream* st) {
    unsigned i;
    for (i = 0; i < REPORT_LANES; i++)
        strbuf_clear(&st->lanes[i]);
    st->records = 0;
    stream_reset_times(st);
    idmap_free(&st->intern_index);
    st->intern_count = 0;
    strbuf_clear(&st->dict_data);
    st->sref_count = 0;
    memset(st->shapes, 0, sizeof st->shapes); /* their references were the old chunk's */
    st->chunk_epoch++;                        /* the pointer cache's entries are the old chunk's */
    lanes_reload(st);
}

/* A chunk for the compression thread (offload_fill_fn). */
static int assemble_into(void* st, strbuf* out) { return report_chunk_assemble(st, out); }

/* Compresses and writes a chunk on a compression thread (offload_run_fn). */
static nvtxwResultCode_t write_chunk(void* owner, const void* meta, const char* data, size_t size,
                                     strbuf* scratch) {
    report_stream* st = owner;
    (void)scratch; /* the container encoder has its own */
    return container_write_chunk(st->encoder, meta, data, size);
}

/* Compresses and writes the buffered records as one chunk: on the
 * compression thread, or on this one when there is none, or when the
 * stream closes (`last`) and the thread has nothing of it left to do. */
static nvtxwResultCode_t stream_flush(report_stream* st, int last) {
    container_chunk_meta meta;
    nvtxwResultCode_t status;
    if (st->records == 0)
        return NVTXW_RESULT_SUCCESS;
    /* Schemas and strings these records use must be in the file first. */
    status = report_sync_registrations(st->rs);
    if (status != NVTXW_RESULT_SUCCESS)
        return status;
    memset(&meta, 0, sizeof meta);
    meta.kind = REPORT_CHUNK_EVENTS;
    meta.record_count = st->records;
    meta.stream_id = st->stream->index;
    meta.first_ts = st->has_ts ? st->min_ts : 0;
    meta.last_ts = st->has_ts ? st->max_ts : 0;
    lanes_sync(st); /* the assembly reads the lengths */
    if (offload_hands_over(&st->lane, last)) {
        status = offload_submit(&st->lane, &meta, sizeof meta, assemble_into, st);
    } else {
        strbuf_clear(&st->assembled);
        status = report_chunk_assemble(st, &st->assembled) != 0
                     ? error_oom("a report chunk")
                     : container_write_chunk(st->encoder, &meta, st->assembled.data,
                                             st->assembled.length);
    }
    stream_reset_chunk(st);
    return status;
}

int report_chunk_assemble(const report_stream* st, strbuf* out) {
    uint8_t table[VARINT_MAX_BYTES * (REPORT_LANES + 1)], *p = table;
    size_t total = 0;
    unsigned i;
    p += varint_put(p, REPORT_LANES);
    for (i = 0; i < REPORT_LANES; i++) {
        p += varint_put(p, st->lanes[i].length);
        total += st->lanes[i].length;
    }
    if (strbuf_reserve(out, (size_t)(p - table) + total) != 0 ||
        strbuf_append(out, (const char*)table, (size_t)(p - table)) != 0)
        return -1;
    for (i = 0; i < REPORT_LANES; i++)
        if (st->lanes[i].length != 0 &&
            strbuf_append(out, st->lanes[i].data, st->lanes[i].length) != 0)
            return -1;
    return 0;
}

/* Delta of `ts` from the previous timestamped record (modulo 2^64). */
static int64_t stream_delta(const report_stream* st, int64_t ts) {
    return (int64_t)((uint64_t)ts - (uint64_t)st->prev_ts); /* prev_ts is 0 in a new chunk */
}

static void stream_note_ts(report_stream* st, int64_t ts) {
    if (ts < st->min_ts)
        st->min_ts = ts;
    if (ts > st->max_ts)
        st->max_ts = ts;
    st->prev_ts = ts;
    st->has_ts = 1;
}

/* What a failed record rolls back: the lanes that records append to
 * piece by piece (compact records commit their lanes only when whole), and
 * the dictionary state (report-records.md: the reader's dictionary grows
 * only with the records it reads). */
typedef struct chunk_mark {
    size_t main, time, values, intern_count, dict_length;
    uint32_t sref_count;
} chunk_mark;

/* A lane's position as an offset (which survives the lane's growth). */
static size_t lane_offset(const report_stream* st, unsigned lane) {
    return st->lanes[lane].data != NULL ? (size_t)(st->at[lane] - (uint8_t*)st->lanes[lane].data)
                                        : 0;
}

static void lane_seek(report_stream* st, unsigned lane, size_t offset) {
    if (st->lanes[lane].data != NULL)
        st->at[lane] = (uint8_t*)st->lanes[lane].data + offset;
}

static chunk_mark stream_mark(const report_stream* st) {
    chunk_mark m = {lane_offset(st, LANE_MAIN),   lane_offset(st, LANE_TIME),
                    lane_offset(st, LANE_VALUES), st->intern_count,
                    st->dict_data.length,         st->sref_count};
    return m;
}

/* Takes the lanes (positions) and the dictionary back to `m`. */
static void stream_rewind(report_stream* st, const chunk_mark* m) {
    lane_seek(st, LANE_MAIN, m->main);
    lane_seek(st, LANE_TIME, m->time);
    lane_seek(st, LANE_VALUES, m->values);
    st->intern_count = m->intern_count;
    st->dict_data.length = m->dict_length;
    st->sref_count = m->sref_count;
    /* a shape may name a reference the rewind took back */
    memset(st->shapes, 0, sizeof st->shapes);
}

/* Flushes the chunk when it has reached its target size. */
static nvtxwResultCode_t stream_flush_if_full(report_stream* st) {
    if (stream_chunk_bytes(st) >= REPORT_CHUNK_TARGET || st->records == UINT32_MAX)
        return stream_flush(st, 0);
    return NVTXW_RESULT_SUCCESS;
}

/* Counts a whole record. The lanes are summed every 32 records: a chunk
 * may pass the target by 32 records. */
static inline nvtxwResultCode_t stream_count_record(report_stream* st) {
    if ((++st->records & 31) == 0 || st->records == UINT32_MAX)
        return stream_flush_if_full(st);
    return NVTXW_RESULT_SUCCESS;
}

/* Ends a record built from `mark` (build_status 0): notes its timestamp
 * (when it has one) and flushes a full chunk. A failed build is undone
 * (mark NULL: the build left nothing to undo). */
static nvtxwResultCode_t stream_end_record(report_stream* st, int build_status,
                                           const chunk_mark* mark, int has_ts, int64_t ts) {
    if (build_status != 0) {
        if (mark != NULL)
            stream_rewind(st, mark);
        return error_oom("a report record");
    }
    if (has_ts)
        stream_note_ts(st, ts);
    return stream_count_record(st);
}

/* ---- Streams ------------------------------------------------------------ */

nvtxwResultCode_t report_stream_open(sink* s, const core_stream* stream, void** state) {
    report_sink* rs = (report_sink*)s;
    report_stream* st = nvtxw_calloc(1, sizeof *st);
    nvtxwResultCode_t status;
    if (st == NULL)
        return error_oom("a report stream");
    st->rs = rs;
    st->stream = stream;
    st->serial = stream->domain->serial;
    offload_lane_init(&st->lane, &rs->compressors, stream->index, write_chunk, st);
    st->chunk_epoch = 1; /* the zeroed pointer cache holds no entry of it */
    stream_reset_times(st);
    st->encoder = container_encoder_create(rs->writer, rs->compression);
    status = st->encoder ? report_stream_record(rs, stream, 1) : NVTXW_RESULT_FAILED;
    if (status != NVTXW_RESULT_SUCCESS) {
        if (st->encoder != NULL)
            container_encoder_destroy(st->encoder);
        nvtxw_free(st);
        return status;
    }
    *state = st;
    return NVTXW_RESULT_SUCCESS;
}

/* Frees the chunk's buffers; the stream's next record makes them again
 * (lanes_make_room, intern_index, strbuf appends). Only between chunks. */
static void stream_free_buffers(report_stream* st) {
    for (unsigned i = 0; i < REPORT_LANES; i++)
        strbuf_free(&st->lanes[i]);
    strbuf_free(&st->assembled);
    strbuf_free(&st->dict_data);
    idmap_free(&st->intern_index);
    nvtxw_free(st->interned);
    st->interned = NULL;
    st->intern_capacity = 0;
    lanes_reload(st);
}

nvtxwResultCode_t report_stream_close(sink* s, const core_stream* stream, void* state) {
    report_stream* st = state;
    nvtxwResultCode_t status = stream_flush(st, 1), drained, closed;
    drained = offload_drain(&st->lane);
    if (status == NVTXW_RESULT_SUCCESS)
        status = drained;
    container_encoder_destroy(st->encoder);
    closed = report_stream_record((report_sink*)s, stream, 0);
    stream_free_buffers(st);
    nvtxw_free(st);
    return status != NVTXW_RESULT_SUCCESS ? status : closed;
}

/* StreamFlush: the buffered records as a chunk (on the compression thread
 * when there is one), then the buffers freed. An open stream then holds
 * about 5 KiB (its pointer cache, shapes and plan cache) instead of its
 * chunk's buffers (about 0.4 MiB once a chunk was full). */
nvtxwResultCode_t report_stream_flush(void* state) {
    report_stream* st = state;
    nvtxwResultCode_t status = stream_flush(st, 0);
    stream_free_buffers(st);
    return status;
}

/* ---- Payloads ----------------------------------------------------------- */
/*
 * An event record is encoded in one pass through a cursor into space
 * reserved up front (the record's exact upper bound), so the hot path does
 * no per-field capacity checks. Everything that could make a payload take
 * another encoding is decided before the first byte is written
 * (event_layout_make), so a record is never rewritten.
 */

static uint8_t* put_uvar(uint8_t* p, uint64_t value) { return p + varint_put(p, value); }

/* put_uvar for a lane that takes one value per record (time deltas, int64
 * samples): its reservation, the record's bound, leaves VARINT_MAX_BYTES
 * there, which varint_put_wide may use whole. */
static uint8_t* put_uvar_wide(uint8_t* p, uint64_t value) { return p + varint_put_wide(p, value); }

static uint8_t* put_bytes(uint8_t* p, const void* data, size_t size) {
    p = put_uvar(p, size);
    if (size > 0)
        memcpy(p, data, size);
    return p + size;
}

/* The pointer cache's slot of a string by its address and size: a
 * multiplicative hash, as names sit at regular strides (a table of
 * fixed-size entries would otherwise fill a fraction of the slots). */
static unsigned intern_slot(const void* data, size_t size) {
    uint64_t key = (uint64_t)(uintptr_t)data ^ ((uint64_t)size << 48);
    return slot_hash(key, REPORT_INTERN_CACHE_BITS);
}

/* The entry `index` of this chunk holds exactly these bytes. */
static int intern_matches(const report_stream* st, uint64_t index, const void* data, size_t size) {
    const intern_entry* entry = &st->interned[index];
    return index < st->intern_count && entry->length == size &&
           memcmp(st->dict_data.data + entry->offset, data, size) == 0;
}

/* Index of `data` in the chunk's dictionary. A new string is added with
 * the next index and *is_new set (the record then carries its bytes, and the
 * reader appends it the same way). Producers pass the same pointer for the
 * same name, so a pointer cache answers most lookups with one comparison of
 * the bytes and no hashing. Returns -1 when out of memory. */
static int intern_index(report_stream* st, const void* data, size_t size, uint64_t* index,
                        int* is_new) {
    unsigned slot = intern_slot(data, size);
    uint64_t hash;
    uintptr_t found;
    intern_entry* entry;
    if (st->intern_cache[slot].data == data && st->intern_cache[slot].size == size &&
        st->intern_cache[slot].epoch == st->chunk_epoch &&
        intern_matches(st, st->intern_cache[slot].index, data, size))
        return *is_new = 0, *index = st->intern_cache[slot].index, 0;
    hash = XXH3_64bits(data, size);
    found = (uintptr_t)idmap_get(&st->intern_index, hash);
    if (found != 0 && intern_matches(st, found - 1, data, size)) {
        *is_new = 0;
        *index = found - 1;
    } else {
        if (st->intern_count == st->intern_capacity) {
            size_t capacity = st->intern_capacity ? st->intern_capacity * 2 : 64;
            intern_entry* grown = nvtxw_reallocarray(st->interned, capacity, sizeof *grown);
            if (grown == NULL)
                return -1;
            st->interned = grown;
            st->intern_capacity = capacity;
        }
        entry = &st->interned[st->intern_count];
        entry->hash = hash;
        entry->offset = (uint32_t)st->dict_data.length;
        entry->length = (uint32_t)size;
        if (strbuf_append(&st->dict_data, data, size) != 0)
            return -1;
        *is_new = 1;
        *index = st->intern_count++;
        /* On a hash collision the older entry keeps the index slot. */
        if ((found == 0 || found - 1 >= st->intern_count - 1) &&
            idmap_put(&st->intern_index, hash, (void*)(uintptr_t)st->intern_count) != 0)
            return -1;
    }
    st->intern_cache[slot].data = data;
    st->intern_cache[slot].size = (uint32_t)size;
    st->intern_cache[slot].index = (uint32_t)*index;
    st->intern_cache[slot].epoch = st->chunk_epoch;
    return 0;
}

static uint8_t* put_interned(report_stream* st, uint8_t* p, const void* data, size_t size) {
    uint64_t index;
    int is_new;
    if (intern_index(st, data, size, &index, &is_new) != 0)
        return NULL;
    p = put_uvar(p, index);
    return is_new ? put_bytes(p, data, size) : p;
}

/* Payload bytes with TIMESTAMP slots stored relative to `event_ts`. */
static uint8_t* put_ts_relative(uint8_t* p, const payload_plan* plan, const void* data, size_t size,
                                int64_t event_ts) {
    uint8_t* start;
    size_t i;
    p = put_bytes(p, data, size);
    start = p - size;
    for (i = 0; i < plan->ts_count; i++) {
        uint64_t value;
        if ((size_t)plan->ts_offsets[i] + 8 > size)
            continue; /* cannot happen for a validated STATIC payload */
        memcpy(&value, start + plan->ts_offsets[i], 8);
        value -= (uint64_t)event_ts;
        memcpy(start + plan->ts_offsets[i], &value, 8);
    }
    return p;
}

static int is_predefined_string(uint64_t schema_id) {
    return schema_id >= NVTX_PAYLOAD_ENTRY_TYPE_CSTRING &&
           schema_id <= NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF32;
}

/* Every handle the fields plan stores can be restored from its low half. */
static int handles_restorable(const report_stream* st, const field_plan* plan,
                              const uint8_t* data) {
    uint32_t i;
    for (i = 0; i < plan->op_count; i++) {
        uint64_t v;
        if (plan->ops[i].kind != FIELD_HANDLE)
            continue;
        memcpy(&v, data + plan->ops[i].offset, 8);
        if (!field_handle_restorable(v, st->serial))
            return 0;
    }
    return 1;
}

/* The encoding one payload gets (PAYLOAD_ORIGIN decided per event). */
static uint8_t payload_encoding(const report_stream* st, const nvtxPayloadData_t* payload,
                                size_t size, const payload_plan* plan) {
    if (is_predefined_string(payload->schemaId))
        return PAYLOAD_INTERNED;
    if (plan == NULL)
        return PAYLOAD_RAW;
    if (plan->encoding == PAYLOAD_FIELDS &&
        (size != plan->fields.static_size ||
         (plan->has_handles && !handles_restorable(st, &plan->fields, payload->payload))))
        return plan->fallback;
    return plan->encoding;
}

/* The body of one payload in `encoding`; NULL when out of memory. */
static uint8_t* put_payload_body(report_stream* st, uint8_t* p, const nvtxPayloadData_t* payload,
                                 size_t size, const payload_plan* plan, uint8_t encoding,
                                 int64_t event_ts) {
    switch (encoding) {
    case PAYLOAD_INTERNED:
        return put_interned(st, p, payload->payload, size);
    case PAYLOAD_FIELDS:
        return field_encode(&plan->fields, payload->payload, event_ts, st->serial, p);
    case PAYLOAD_TS_RELATIVE:
        return put_ts_relative(p, plan, payload->payload, size, event_ts);
    case PAYLOAD_ORIGIN:
        return put_bytes(put_uvar(p, (uintptr_t)payload->payload), payload->payload, size);
    default:
        return put_bytes(p, payload->payload, size);
    }
}

/* The plan of a registered schema, through the stream's small cache. */
static const payload_plan* stream_plan(report_stream* st, uint64_t schema_id) {
    const payload_plan* plan;
    unsigned i;
    for (i = 0; i < 8; i++) {
        if (st->plan_cache[i].plan != NULL && st->plan_cache[i].schema_id == schema_id)
            return st->plan_cache[i].plan;
    }
    plan = report_plan_find(st->rs, st->stream->domain->index, schema_id);
    if (plan != NULL) {
        i = st->plan_cache_next++ % 8;
        st->plan_cache[i].schema_id = schema_id;
        st->plan_cache[i].plan = plan;
    }
    return plan;
}

/* A schema reference of a compact record: its index + 1 in the chunk's
 * table, or a new entry (table size + 1) or 0, each followed by the ID. */
static uint8_t* put_sref(report_stream* st, uint8_t* p, uint64_t schema_id) {
    uint32_t i;
    for (i = 0; i < st->sref_count; i++)
        if (st->srefs[i] == schema_id)
            return put_uvar(p, i + 1);
    if (st->sref_count == REPORT_SREF_MAX)
        return put_uvar(put_uvar(p, 0), schema_id);
    st->srefs[st->sref_count++] = schema_id;
    return put_uvar(put_uvar(p, st->sref_count), schema_id);
}

/* ---- Lanes ------------------------------------------------------------- */

/* Where a compact record's next byte goes in each lane. */
typedef struct lane_cursors {
    uint8_t* at[REPORT_LANES];
} lane_cursors;

/* Reserves `bound` bytes in each of the first `count` lanes (a record's
 * bound, whatever lane its bytes take). Returns 0 or -1 (out of memory). */
static int lanes_open(report_stream* st, size_t bound, unsigned count, lane_cursors* c) {
    unsigned i;
    for (i = 0; i < count; i++) {
        strbuf* lane = &st->lanes[i];
        if (lane->capacity - lane->length <= bound && strbuf_reserve(lane, bound) != 0)
            return -1;
        c->at[i] = (uint8_t*)lane->data + lane->length;
    }
    return 0;
}

/* Lanes are bytes, not strings: unlike the rest of strbuf's users they are
 * left without a terminating NUL (their lengths say where they end). */
static void lanes_commit(report_stream* st, const lane_cursors* c, unsigned count) {
    unsigned i;
    for (i = 0; i < count; i++)
        st->lanes[i].length = (size_t)(c->at[i] - (uint8_t*)st->lanes[i].data);
}

/* A fields payload into the field lanes. Returns 0, or -1 for a handle of
 * another domain. */
static int put_fields_lanes(report_stream* st, lane_cursors* c, const payload_plan* plan,
                            const void* payload, int64_t event_ts) {
    return field_encode_lanes(&plan->fields, payload, event_ts, st->serial, &c->at[LANE_FIELDS]);
}

/* ---- Records ------------------------------------------------------------ */

#define EVENT_MAX_PAYLOADS 64

/* What an event record needs: plans, payload sizes and encodings, its size
 * bound, and whether it fits the compact form. */
typedef struct event_layout {
    const payload_plan* plans[EVENT_MAX_PAYLOADS];
    size_t sizes[EVENT_MAX_PAYLOADS];
    uint8_t encodings[EVENT_MAX_PAYLOADS];
    size_t stored; /* payloads of non-zero size */
    size_t bound;  /* bytes the record can take at most */
    int compact;   /* REC_EVENT_COMPACT: timestamp, no scope, implied encodings */
} event_layout;

/* Encodings a compact record implies (the reader derives the same). */
static int compact_encoding(uint8_t encoding) {
    return encoding == PAYLOAD_FIELDS || encoding == PAYLOAD_INTERNED;
}

static int event_layout_make(report_stream* st, const core_event* event,
                             const core_event_facts* facts, event_layout* l) {
    size_t i;
    int with_origin = 0;
    l->stored = 0;
    l->bound = 4 + 3 * VARINT_MAX_BYTES;
    for (i = 0; i < event->count; i++) {
        uint64_t id = event->payloads[i].schemaId;
        l->plans[i] = id >= NVTX_PAYLOAD_SCHEMA_ID_STATIC_START ? stream_plan(st, id) : NULL;
        with_origin |= l->plans[i] != NULL && l->plans[i]->has_pointers;
        l->sizes[i] = event->payloads[i].size ? core_payload_bytes(&event->payloads[i]) : 0;
        l->stored += l->sizes[i] != 0;
        if (l->sizes[i] > SIZE_MAX / 4 - l->bound)
            return -1;
        /* a fields encoding can exceed the raw size: at most plan->bound */
        l->bound += 1 + 4 * VARINT_MAX_BYTES + l->sizes[i] +
                    (l->plans[i] != NULL ? l->plans[i]->fields.bound : 0);
    }
    l->compact = facts->has_timestamp && event->scope_id == 0 && !with_origin;
    for (i = 0; i < event->count; i++) {
        if (l->sizes[i] == 0)
            continue;
        l->encodings[i] = with_origin
                              ? PAYLOAD_ORIGIN
                              : payload_encoding(st, &event->payloads[i], l->sizes[i], l->plans[i]);
        l->compact &= compact_encoding(l->encodings[i]);
    }
    return 0;
}

/* The head of a 0x25 record: its kind and payload count in the main lane,
 * its time delta in the time lane. */
static void put_compact_head(const report_stream* st, lane_cursors* c, int64_t ts,
                             uint64_t payloads) {
    *c->at[LANE_MAIN]++ = REC_EVENT_COMPACT;
    c->at[LANE_TIME] = put_uvar_wide(c->at[LANE_TIME], varint_zigzag(stream_delta(st, ts)));
    c->at[LANE_MAIN] = put_uvar(c->at[LANE_MAIN], payloads);
}

/* 0x25: svar dt (time lane), uvar n, n x (sref, body in the schema's
 * implied encoding: fields in the field lanes, strings in the main lane).
 * Returns 0, or -1 when out of memory (dictionary growth). */
static int put_compact_event(report_stream* st, lane_cursors* c, const core_event* event,
                             const core_event_facts* facts, const event_layout* l) {
    size_t i;
    put_compact_head(st, c, facts->timestamp, l->stored);
    for (i = 0; i < event->count; i++) {
        const nvtxPayloadData_t* payload = &event->payloads[i];
        if (l->sizes[i] == 0)
            continue;
        c->at[LANE_MAIN] = put_sref(st, c->at[LANE_MAIN], payload->schemaId);
        if (l->encodings[i] == PAYLOAD_FIELDS) {
            if (put_fields_lanes(st, c, l->plans[i], payload->payload, facts->timestamp) != 0)
                return -1; /* cannot happen: payload_encoding checked the handles */
        } else if ((c->at[LANE_MAIN] = put_interned(st, c->at[LANE_MAIN], payload->payload,
                                                    l->sizes[i])) == NULL) {
            return -1;
        }
    }
    return 0;
}

/* 0x20: svar dt, u8 flags, [uvar scope], uvar n, n x (uvar schemaId, u8
 * encoding, body). */
static uint8_t* put_full_event(report_stream* st, uint8_t* p, const core_event* event,
                               const core_event_facts* facts, const event_layout* l) {
    unsigned flags = (facts->has_timestamp ? 1u : 0u) | (event->scope_id ? 2u : 0u);
    size_t i;
    *p++ = REC_EVENT;
    p = put_uvar(p, varint_zigzag(facts->has_timestamp ? stream_delta(st, facts->timestamp) : 0));
    *p++ = (uint8_t)flags;
    if (event->scope_id)
        p = put_uvar(p, event->scope_id);
    p = put_uvar(p, l->stored);
    for (i = 0; p != NULL && i < event->count; i++) {
        if (l->sizes[i] == 0)
            continue;
        p = put_uvar(p, event->payloads[i].schemaId);
        *p++ = l->encodings[i];
        p = put_payload_body(st, p, &event->payloads[i], l->sizes[i], l->plans[i], l->encodings[i],
                             facts->timestamp);
    }
    return p;
}

/* The chunk's reference of a schema it already numbered, 0 if none. */
static uint32_t sref_known(const report_stream* st, uint64_t schema_id) {
    uint32_t i;
    for (i = 0; i < st->sref_count; i++)
        if (st->srefs[i] == schema_id)
            return i + 1;
    return 0;
}

/* The slot of the shapes whose first payload has this schema. */
static inline unsigned shape_slot(uint64_t first_schema) {
    return slot_hash(first_schema, REPORT_SHAPES_BITS);
}

/* The remembered shape of events whose first payload has this schema. */
static inline report_shape* shape_of(report_stream* st, uint64_t first_schema) {
    report_shape* shape = &st->shapes[shape_slot(first_schema)];
    return shape->count != 0 && shape->p[0].schema_id == first_schema ? shape : NULL;
}

/* A shape put_direct_again writes: a fields payload, alone or followed by
 * an interned string; checked by the sink when the core's fast plans say
 * what makes its payloads valid and where the timestamp is. */
static void shape_note_direct(report_stream* st, report_shape* shape) {
    uint32_t i;
    shape->direct =
        shape->p[0].encoding == PAYLOAD_FIELDS &&
        (shape->count == 1 || (shape->count == 2 && shape->p[1].encoding == PAYLOAD_INTERNED));
    shape->checked = shape->direct;
    for (i = 0; i < shape->count; i++) {
        shape->p[i].fast = core_fast_plan_of(st->stream->domain, shape->p[i].schema_id);
        shape->checked &= shape->p[i].fast != NULL;
    }
    if (shape->checked)
        shape->checked = shape->p[0].fast->has_timestamp;
}

/* The lanes a fields payload of this plan writes to, main and time lanes
 * included. */
static unsigned lanes_of_plan(const payload_plan* plan) {
    uint32_t ops = plan->fields.op_count;
    return LANE_FIELDS + (ops < FIELD_LANES ? ops : FIELD_LANES);
}

/* Remembers a compact record's shape (its schemas, their plans and
 * references) for put_event_again, in its slot. */
static void remember_event(report_stream* st, const core_event* event, const event_layout* l) {
    report_shape shape;
    size_t i;
    if (!l->compact || event->count > REPORT_SHAPE_PAYLOADS)
        return;
    memset(&shape, 0, sizeof shape);
    for (i = 0; i < event->count; i++) {
        uint64_t id = event->payloads[i].schemaId;
        if (l->sizes[i] == 0 || (l->encodings[i] == PAYLOAD_FIELDS && l->plans[i] == NULL) ||
            (shape.p[i].sref = sref_known(st, id)) == 0)
            return;
        shape.p[i].schema_id = id;
        shape.p[i].plan = l->plans[i];
        shape.p[i].encoding = l->encodings[i];
        shape.has_interned |= l->encodings[i] == PAYLOAD_INTERNED;
    }
    shape.count = (uint32_t)event->count;
    shape.lanes = LANE_FIELDS;
    shape.fixed_bound = 4 * VARINT_MAX_BYTES;
    for (i = 0; i < event->count; i++) {
        if (shape.p[i].encoding != PAYLOAD_FIELDS)
            continue;
        shape.p[i].static_size = shape.p[i].plan->fields.static_size;
        shape.fixed_bound += shape.p[i].plan->fields.bound + VARINT_MAX_BYTES;
        shape.check_handles |= shape.has_interned && shape.p[i].plan->has_handles;
        if (lanes_of_plan(shape.p[i].plan) > shape.lanes)
            shape.lanes = lanes_of_plan(shape.p[i].plan);
    }
    shape_note_direct(st, &shape);
    st->shapes[shape_slot(shape.p[0].schema_id)] = shape;
}

static int put_event(report_stream* st, const core_event* event, const core_event_facts* facts) {
    event_layout l;
    lane_cursors c;
    uint8_t* p;
    if (event_layout_make(st, event, facts, &l) != 0)
        return -1;
    if (l.compact) {
        if (lanes_open(st, l.bound, LANE_VALUES, &c) != 0 ||
            put_compact_event(st, &c, event, facts, &l) != 0)
            return -1;
        lanes_commit(st, &c, LANE_VALUES);
        remember_event(st, event, &l);
        return 0;
    }
    if (strbuf_reserve(&st->lanes[LANE_MAIN], l.bound) != 0)
        return -1;
    p = (uint8_t*)st->lanes[LANE_MAIN].data + st->lanes[LANE_MAIN].length;
    if ((p = put_full_event(st, p, event, facts, &l)) == NULL)
        return -1;
    st->lanes[LANE_MAIN].length = (size_t)(p - (uint8_t*)st->lanes[LANE_MAIN].data);
    st->lanes[LANE_MAIN].data[st->lanes[LANE_MAIN].length] = '\0';
    return 0;
}

/* The remembered shape the event has, or NULL; *bound is then its
 * record's size bound. */
static const report_shape* shape_matching(report_stream* st, const core_event* event,
                                          const core_event_facts* facts, size_t* bound) {
    const report_shape* shape;
    size_t i;
    if (!facts->has_timestamp || event->scope_id != 0 || event->count == 0 ||
        (shape = shape_of(st, event->payloads[0].schemaId)) == NULL || shape->count != event->count)
        return NULL;
    *bound = shape->fixed_bound;
    for (i = 0; i < event->count; i++) {
        const nvtxPayloadData_t* payload = &event->payloads[i];
        if (payload->schemaId != shape->p[i].schema_id || payload->size == 0 ||
            payload->size == SIZE_MAX)
            return NULL;
        if (shape->p[i].encoding == PAYLOAD_FIELDS) {
            if (payload->size != shape->p[i].static_size)
                return NULL;
        } else {
            if (payload->size > SIZE_MAX / 4)
                return NULL;
            *bound += payload->size + 3 * VARINT_MAX_BYTES;
        }
    }
    return shape;
}

/* The interned string of a direct record: its index in the chunk's
 * dictionary, added when new. On failure (out of memory) the dictionary is
 * as it was. */
static int direct_string(report_stream* st, const nvtxPayloadData_t* string, uint64_t* index,
                         int* is_new) {
    size_t count = st->intern_count, dict_length = st->dict_data.length;
    if (intern_index(st, string->payload, string->size, index, is_new) == 0)
        return 0;
    st->intern_count = count;
    st->dict_data.length = dict_length;
    return -1;
}

/* put_event_again for the most common shapes: one fields payload (a push,
 * a pop, a mark, a whole range with a registered name), or one followed by
 * an interned string (the same with a UTF-8 message). Its handles are
 * checked and its string interned first, so nothing can fail once the
 * record has begun, and it is written straight into the lanes. Returns as
 * put_event_again. */
static int put_direct_again(report_stream* st, const report_shape* shape, const core_event* event,
                            int64_t ts) {
    const nvtxPayloadData_t* fields = &event->payloads[0];
    const nvtxPayloadData_t* string = &event->payloads[1];
    size_t bound = shape->fixed_bound;
    uint64_t index = 0;
    uint8_t* main;
    int encoded, is_new = 0;
    if (fields->size != shape->p[0].static_size ||
        (shape->count == 2 && (string->schemaId != shape->p[1].schema_id || string->size == 0 ||
                               string->size > REPORT_CHUNK_TARGET)))
        return 0;
    if (shape->count == 2)
        bound += string->size + 3 * VARINT_MAX_BYTES;
    if (lanes_make_room(st, bound) != 0 ||
        (shape->count == 2 && direct_string(st, string, &index, &is_new) != 0))
        return -1;
    main = st->at[LANE_MAIN];
    main[0] = REC_EVENT_COMPACT;
    main[1] = (uint8_t)shape->count; /* a one-byte uvar */
    main = put_uvar(main + 2, shape->p[0].sref);
    st->at[LANE_TIME] = put_uvar_wide(st->at[LANE_TIME], varint_zigzag(stream_delta(st, ts)));
    /* Only a handle can fail, and the event was checked: every handle is
     * 0 or a string of the stream's domain, whose serial st->serial is. */
    encoded = field_encode_lanes(&shape->p[0].plan->fields, fields->payload, ts, st->serial,
                                 &st->at[LANE_FIELDS]);
    assert(encoded == 0);
    (void)encoded;
    if (shape->count == 2) {
        main = put_uvar(put_uvar(main, shape->p[1].sref), index);
        if (is_new)
            main = put_bytes(main, string->payload, string->size);
    }
    st->at[LANE_MAIN] = main;
    st->room -= bound;
    return 1;
}

/* Most events repeat the shape of a recent one: the same schemas (one or
 * two payloads, e.g. a helper's header and message; a push, its pop and a
 * mark take a shape each), a timestamp, no scope. Such an event is written
 * as put_event would (a compact record, its schemas by the chunk's
 * references) without looking anything up again. Returns 1 when written, 0
 * when the event needs put_event (nothing was written), -1 when out of
 * memory (the caller rewinds the chunk). */
static int put_event_again(report_stream* st, const core_event* event,
                           const core_event_facts* facts) {
    const report_shape* shape;
    size_t bound, i;
    lane_cursors c;
    chunk_mark mark;
    if ((shape = shape_matching(st, event, facts, &bound)) == NULL)
        return 0;
    /* A handle of another domain needs another encoding: field_encode
     * refuses it, but with a string in the record that must be known before
     * the string grows the dictionary. */
    for (i = 0; shape->check_handles && i < event->count; i++)
        if (shape->p[i].encoding == PAYLOAD_FIELDS && shape->p[i].plan->has_handles &&
            !handles_restorable(st, &shape->p[i].plan->fields, event->payloads[i].payload))
            return 0;
    if (lanes_make_room(st, bound) != 0)
        return -1;
    /* a copy of the positions: a record given up leaves no bytes behind;
     * only strings change the stream's state (the dictionary) before the
     * record is whole */
    if (shape->has_interned)
        mark = stream_mark(st);
    memcpy(c.at, st->at, sizeof c.at);
    put_compact_head(st, &c, facts->timestamp, event->count);
    for (i = 0; i < event->count; i++) {
        const nvtxPayloadData_t* payload = &event->payloads[i];
        c.at[LANE_MAIN] = put_uvar(c.at[LANE_MAIN], shape->p[i].sref);
        if (shape->p[i].encoding == PAYLOAD_FIELDS) {
            if (put_fields_lanes(st, &c, shape->p[i].plan, payload->payload, facts->timestamp) != 0)
                return 0; /* a foreign handle (only without strings: checked above) */
        } else if ((c.at[LANE_MAIN] = put_interned(st, c.at[LANE_MAIN], payload->payload,
                                                   payload->size)) == NULL) {
            stream_rewind(st, &mark);
            return -1; /* the dictionary could not grow */
        }
    }
    memcpy(st->at, c.at, sizeof c.at);
    st->room -= bound;
    return 1;
}

/* Events other than the one-fields shapes: the general repeat path, else
 * a record built through strbuf. Out of line, so that the common case does
 * not pay for this frame. */
static NVTXW_NOINLINE nvtxwResultCode_t event_write_general(report_stream* st,
                                                            const core_event* event,
                                                            const core_event_facts* facts) {
    chunk_mark mark;
    int again = put_event_again(st, event, facts); /* undoes its own failure */
    if (again != 0)
        return stream_end_record(st, again == 1 ? 0 : -1, NULL, facts->has_timestamp,
                                 facts->timestamp);
    mark = stream_mark(st); /* through strbuf (lane positions) */
    lanes_sync(st);
    again = put_event(st, event, facts) == 0 ? 1 : -1;
    lanes_reload(st);
    return stream_end_record(st, again == 1 ? 0 : -1, &mark, facts->has_timestamp,
                             facts->timestamp);
}

/* The remembered shape of an event whose payloads the sink checks itself
 * (report_shape.checked), when they are valid as core_event_visit would
 * find them; NULL when the event needs core_event_visit (then nothing is
 * said of it: the visit finds what is wrong, if anything). */
static const report_shape* shape_checked(report_stream* st, const core_event* event) {
    const core_domain* domain = st->stream->domain;
    const report_shape* shape;
    if (event->scope_id != 0 || event->count == 0 ||
        (shape = shape_of(st, event->payloads[0].schemaId)) == NULL || !shape->checked ||
        shape->count != event->count ||
        !core_fast_payload_valid(domain, shape->p[0].fast, &event->payloads[0]))
        return NULL;
    if (shape->count == 2 &&
        (event->payloads[1].schemaId != shape->p[1].schema_id || event->payloads[1].size == 0 ||
         !core_fast_payload_valid(domain, shape->p[1].fast, &event->payloads[1])))
        return NULL;
    return shape;
}

/* Writes a validated event of a direct shape with timestamp `ts`: 1 when
 * written (*status says how the record ended), 0 when it needs the general
 * path (nothing was written). */
static NVTXW_ALWAYS_INLINE int write_direct(report_stream* st, const report_shape* shape,
                                            const core_event* event, int64_t ts,
                                            nvtxwResultCode_t* status) {
    int written = put_direct_again(st, shape, event, ts);
    if (written == 0)
        return 0;
    if (written < 0) {
        *status = error_oom("a report record"); /* nothing was written */
        return 1;
    }
    stream_note_ts(st, ts);
    *status = stream_count_record(st);
    return 1;
}

/* An event the sink did not check itself: validated by core_event_visit,
 * then written as a direct shape or through the general path. Out of line,
 * so that report_event_write's common case keeps a small frame. */
static NVTXW_NOINLINE nvtxwResultCode_t event_write_visited(report_stream* st,
                                                            const core_event* event) {
    core_event_facts facts;
    const report_shape* shape;
    nvtxwResultCode_t status = core_event_visit(event, NULL, NULL, 0, &facts);
    if (status != NVTXW_RESULT_SUCCESS)
        return status;
    if (facts.has_timestamp && event->scope_id == 0 && event->count != 0 &&
        (shape = shape_of(st, event->payloads[0].schemaId)) != NULL && shape->direct &&
        shape->count == event->count && write_direct(st, shape, event, facts.timestamp, &status))
        return status;
    return event_write_general(st, event, &facts);
}

nvtxwResultCode_t report_event_write(void* state, const core_event* event) {
    report_stream* st = state;
    const report_shape* shape;
    nvtxwResultCode_t status;
    if (event->count > EVENT_MAX_PAYLOADS)
        return error_set(NVTXW_RESULT_NOT_SUPPORTED,
                         "cannot write event on stream \"%s\": %zu payloads, the report sink "
                         "stores at most %d per event",
                         st->stream->name, event->count, EVENT_MAX_PAYLOADS);
    /* Most events repeat a recent one's schemas: checked here in one pass
     * with the core's fast plans, without the visit's generic loop. */
    if ((shape = shape_checked(st, event)) != NULL) {
        int64_t ts;
        memcpy(&ts, (const uint8_t*)event->payloads[0].payload + shape->p[0].fast->timestamp_offset,
               sizeof ts);
        if (write_direct(st, shape, event, ts, &status))
            return status;
    }
    return event_write_visited(st, event);
}

/* Integer counter types whose 8-byte samples are stored as svar (0x26). */
static int counter_is_int64(const core_counter* counter, size_t size) {
    uint64_t t = counter->schema_id;
    return size == 8 &&
           (t == NVTX_PAYLOAD_ENTRY_TYPE_INT64 || t == NVTX_PAYLOAD_ENTRY_TYPE_UINT64 ||
            t == NVTX_PAYLOAD_ENTRY_TYPE_LONGLONG || t == NVTX_PAYLOAD_ENTRY_TYPE_ULONGLONG ||
            (nvtxw_entry_type_size(t) == 8 &&
             (t == NVTX_PAYLOAD_ENTRY_TYPE_LONG || t == NVTX_PAYLOAD_ENTRY_TYPE_ULONG ||
              t == NVTX_PAYLOAD_ENTRY_TYPE_SIZE)));
}

nvtxwResultCode_t report_counter_write(void* state, int64_t timestamp, const core_counter* counter,
                                       const void* data, size_t size) {
    report_stream* st = state;
    strbuf* b = &st->lanes[LANE_MAIN];
    chunk_mark mark;
    int build;
    if (counter_is_int64(counter, size)) {
        /* 0x26 through the lane positions, like a compact event */
        const size_t bound = 1 + 3 * VARINT_MAX_BYTES;
        int64_t value;
        memcpy(&value, data, 8);
        build = lanes_make_room(st, bound);
        if (build == 0) {
            *st->at[LANE_MAIN]++ = REC_COUNTER_SAMPLE_INT;
            st->at[LANE_TIME] =
                put_uvar_wide(st->at[LANE_TIME], varint_zigzag(stream_delta(st, timestamp)));
            st->at[LANE_MAIN] = put_uvar(st->at[LANE_MAIN], counter->id);
            st->at[LANE_VALUES] = put_uvar_wide(st->at[LANE_VALUES], varint_zigzag(value));
            st->room -= bound;
        }
        return stream_end_record(st, build, NULL, 1, timestamp); /* nothing to undo */
    }
    mark = stream_mark(st);
    lanes_sync(st);
    build = rec_u8(b, REC_COUNTER_SAMPLE) || rec_svar(b, stream_delta(st, timestamp)) ||
            rec_uvar(b, counter->id) || rec_bytes(b, data, size);
    lanes_reload(st);
    return stream_end_record(st, build, &mark, 1, timestamp);
}

nvtxwResultCode_t report_counter_no_value_write(void* state, int64_t timestamp,
                                                const core_counter* counter, uint8_t reason) {
    report_stream* st = state;
    strbuf* b = &st->lanes[LANE_MAIN];
    chunk_mark mark = stream_mark(st);
    int build;
    lanes_sync(st);
    build = rec_u8(b, REC_COUNTER_NO_VALUE) || rec_svar(b, stream_delta(st, timestamp)) ||
            rec_uvar(b, counter->id) || rec_u8(b, reason);
    lanes_reload(st);
    return stream_end_record(st, build, &mark, 1, timestamp);
}

nvtxwResultCode_t report_sync_points_write(void* state, uint64_t src, uint64_t dst,
                                           const nvtxSyncPoint_t* points, size_t count) {
    report_stream* st = state;
    strbuf* b = &st->lanes[LANE_MAIN];
    chunk_mark mark = stream_mark(st);
    size_t i;
    int build;
    lanes_sync(st);
    build =
        rec_u8(b, REC_SYNC_POINTS) || rec_uvar(b, src) || rec_uvar(b, dst) || rec_uvar(b, count);
    for (i = 0; build == 0 && i < count; i++)
        build = rec_svar(b, points[i].src) || rec_svar(b, points[i].dst);
    lanes_reload(st);
    return stream_end_record(st, build, &mark, 0, 0);
}

nvtxwResultCode_t report_conversion_factor_write(void* state, uint64_t src, uint64_t dst,
                                                 double slope, int64_t ts_src, int64_t ts_dst) {
    report_stream* st = state;
    strbuf* b = &st->lanes[LANE_MAIN];
    chunk_mark mark = stream_mark(st);
    uint64_t bits;
    uint8_t le[8];
    int i, build;
    memcpy(&bits, &slope, sizeof bits);
    for (i = 0; i < 8; i++)
        le[i] = (uint8_t)(bits >> (8 * i));
    lanes_sync(st);
    build = rec_u8(b, REC_CONVERSION) || rec_uvar(b, src) || rec_uvar(b, dst) ||
            strbuf_append(b, (const char*)le, 8) || rec_svar(b, ts_src) || rec_svar(b, ts_dst);
    lanes_reload(st);
    return stream_end_record(st, build, &mark, 0, 0);
}
