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

#include <string.h>
#include <xxhash.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "sink/report/report_internal.h"

/* ---- Chunks ------------------------------------------------------------- */

static void stream_reset_chunk(report_stream* st) {
    strbuf_clear(&st->chunk);
    st->records = 0;
    st->has_ts = 0;
    st->prev_ts = st->min_ts = st->max_ts = 0;
    idmap_free(&st->intern_index);
    st->intern_count = 0;
    strbuf_clear(&st->dict_data);
}

/* Compresses and writes the buffered records as one chunk. */
static nvtxwResultCode_t stream_flush(report_stream* st) {
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
    meta.first_ts = st->min_ts;
    meta.last_ts = st->max_ts;
    status = container_write_chunk(st->encoder, &meta, st->chunk.data, st->chunk.length);
    stream_reset_chunk(st);
    return status;
}

/* Delta of `ts` from the previous timestamped record (modulo 2^64). */
static int64_t stream_delta(const report_stream* st, int64_t ts) {
    uint64_t base = st->has_ts ? (uint64_t)st->prev_ts : 0;
    return (int64_t)((uint64_t)ts - base);
}

static void stream_note_ts(report_stream* st, int64_t ts) {
    if (!st->has_ts || ts < st->min_ts)
        st->min_ts = ts;
    if (!st->has_ts || ts > st->max_ts)
        st->max_ts = ts;
    st->prev_ts = ts;
    st->has_ts = 1;
}

/* Ends a record built from `start` (build_status 0): notes its timestamp
 * (when it has one) and flushes a full chunk. A failed build is undone. */
static nvtxwResultCode_t stream_end_record(report_stream* st, int build_status, size_t start,
                                           int has_ts, int64_t ts) {
    if (build_status != 0) {
        st->chunk.length = start;
        return error_oom("a report record");
    }
    if (has_ts)
        stream_note_ts(st, ts);
    st->records++;
    if (st->chunk.length >= REPORT_CHUNK_TARGET || st->records == UINT32_MAX)
        return stream_flush(st);
    return NVTXW_RESULT_SUCCESS;
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

nvtxwResultCode_t report_stream_close(sink* s, const core_stream* stream, void* state) {
    report_stream* st = state;
    nvtxwResultCode_t status = stream_flush(st), closed;
    container_encoder_destroy(st->encoder);
    closed = report_stream_record((report_sink*)s, stream, 0);
    strbuf_free(&st->chunk);
    strbuf_free(&st->dict_data);
    idmap_free(&st->intern_index);
    nvtxw_free(st->interned);
    nvtxw_free(st);
    return status != NVTXW_RESULT_SUCCESS ? status : closed;
}

/* ---- Payloads ----------------------------------------------------------- */
/*
 * An event record is encoded in one pass through a cursor into space
 * reserved up front (the record's exact upper bound), so the hot path does
 * no per-field capacity checks.
 */

static uint8_t* put_uvar(uint8_t* p, uint64_t value) { return p + varint_put(p, value); }

static uint8_t* put_bytes(uint8_t* p, const void* data, size_t size) {
    p = put_uvar(p, size);
    if (size > 0)
        memcpy(p, data, size);
    return p + size;
}

/* Index of `data` in the chunk's dictionary. A new string is added with
 * the next index and *is_new set (the record then carries its bytes, and the
 * reader appends it the same way). Returns -1 when out of memory. */
static int intern_index(report_stream* st, const void* data, size_t size, uint64_t* index,
                        int* is_new) {
    uint64_t hash = XXH3_64bits(data, size);
    uintptr_t found = (uintptr_t)idmap_get(&st->intern_index, hash);
    intern_entry* entry;
    if (found != 0) {
        entry = &st->interned[found - 1];
        if (entry->length == size && memcmp(st->dict_data.data + entry->offset, data, size) == 0)
            return *is_new = 0, *index = found - 1, 0;
    }
    *is_new = 1;
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
    *index = st->intern_count++;
    /* On a hash collision the older entry keeps the index slot. */
    if (found == 0 && idmap_put(&st->intern_index, hash, (void*)(uintptr_t)st->intern_count) != 0)
        return -1;
    return 0;
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

/* One payload; NULL when out of memory (dictionary growth). */
static uint8_t* put_payload(report_stream* st, uint8_t* p, const nvtxPayloadData_t* payload,
                            size_t size, const payload_plan* plan, int with_origin,
                            int64_t event_ts) {
    uint64_t index;
    int is_new;
    p = put_uvar(p, payload->schemaId);
    if (with_origin) {
        *p++ = PAYLOAD_ORIGIN;
        return put_bytes(put_uvar(p, (uintptr_t)payload->payload), payload->payload, size);
    }
    if (is_predefined_string(payload->schemaId) || (plan && plan->encoding == PAYLOAD_INTERNED)) {
        *p++ = PAYLOAD_INTERNED;
        if (intern_index(st, payload->payload, size, &index, &is_new) != 0)
            return NULL;
        p = put_uvar(p, index);
        return is_new ? put_bytes(p, payload->payload, size) : p;
    }
    if (plan && plan->encoding == PAYLOAD_TS_RELATIVE) {
        *p++ = PAYLOAD_TS_RELATIVE;
        return put_ts_relative(p, plan, payload->payload, size, event_ts);
    }
    *p++ = PAYLOAD_RAW;
    return put_bytes(p, payload->payload, size);
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

/* ---- Records ------------------------------------------------------------ */

#define EVENT_MAX_PAYLOADS 64

/* What an event record needs: plans, payload sizes, its size bound. */
typedef struct event_layout {
    const payload_plan* plans[EVENT_MAX_PAYLOADS];
    size_t sizes[EVENT_MAX_PAYLOADS];
    size_t stored; /* payloads of non-zero size */
    size_t bound;  /* bytes the record can take at most */
    int with_origin;
} event_layout;

static int event_layout_make(report_stream* st, const core_event* event, event_layout* l) {
    size_t i;
    l->stored = 0;
    l->bound = 4 + 3 * VARINT_MAX_BYTES;
    l->with_origin = 0;
    for (i = 0; i < event->count; i++) {
        uint64_t id = event->payloads[i].schemaId;
        l->plans[i] = id >= NVTX_PAYLOAD_SCHEMA_ID_STATIC_START ? stream_plan(st, id) : NULL;
        l->with_origin |= l->plans[i] != NULL && l->plans[i]->has_pointers;
        l->sizes[i] = event->payloads[i].size ? core_payload_bytes(&event->payloads[i]) : 0;
        l->stored += l->sizes[i] != 0;
        if (l->sizes[i] > SIZE_MAX / 4 - l->bound)
            return -1;
        l->bound += 1 + 4 * VARINT_MAX_BYTES + l->sizes[i];
    }
    return 0;
}

static int put_event(report_stream* st, const core_event* event, const core_event_facts* facts) {
    event_layout l;
    uint8_t* p;
    size_t i;
    unsigned flags = (facts->has_timestamp ? 1u : 0u) | (event->scope_id ? 2u : 0u);
    if (event_layout_make(st, event, &l) != 0 || strbuf_reserve(&st->chunk, l.bound) != 0)
        return -1;
    p = (uint8_t*)st->chunk.data + st->chunk.length;
    *p++ = REC_EVENT;
    p = put_uvar(p, varint_zigzag(facts->has_timestamp ? stream_delta(st, facts->timestamp) : 0));
    *p++ = (uint8_t)flags;
    if (event->scope_id)
        p = put_uvar(p, event->scope_id);
    p = put_uvar(p, l.stored);
    for (i = 0; p != NULL && i < event->count; i++) {
        if (l.sizes[i] != 0)
            p = put_payload(st, p, &event->payloads[i], l.sizes[i], l.plans[i], l.with_origin,
                            facts->timestamp);
    }
    if (p == NULL)
        return -1;
    st->chunk.length = (size_t)(p - (uint8_t*)st->chunk.data);
    st->chunk.data[st->chunk.length] = '\0';
    return 0;
}

nvtxwResultCode_t report_event_write(void* state, const core_event* event) {
    report_stream* st = state;
    core_event_facts facts;
    nvtxwResultCode_t status;
    size_t start = st->chunk.length;
    if (event->count > EVENT_MAX_PAYLOADS)
        return error_set(NVTXW_RESULT_NOT_SUPPORTED,
                         "cannot write event on stream \"%s\": %zu payloads, the report sink "
                         "stores at most %d per event",
                         st->stream->name, event->count, EVENT_MAX_PAYLOADS);
    status = core_event_visit(event, NULL, NULL, 0, &facts);
    if (status != NVTXW_RESULT_SUCCESS)
        return status;
    return stream_end_record(st, put_event(st, event, &facts), start, facts.has_timestamp,
                             facts.timestamp);
}

nvtxwResultCode_t report_counter_write(void* state, int64_t timestamp, const core_counter* counter,
                                       const void* data, size_t size) {
    report_stream* st = state;
    strbuf* b = &st->chunk;
    size_t start = b->length;
    int build = rec_u8(b, REC_COUNTER_SAMPLE) || rec_svar(b, stream_delta(st, timestamp)) ||
                rec_uvar(b, counter->id) || rec_bytes(b, data, size);
    return stream_end_record(st, build, start, 1, timestamp);
}

nvtxwResultCode_t report_counter_no_value_write(void* state, int64_t timestamp,
                                                const core_counter* counter, uint8_t reason) {
    report_stream* st = state;
    strbuf* b = &st->chunk;
    size_t start = b->length;
    int build = rec_u8(b, REC_COUNTER_NO_VALUE) || rec_svar(b, stream_delta(st, timestamp)) ||
                rec_uvar(b, counter->id) || rec_u8(b, reason);
    return stream_end_record(st, build, start, 1, timestamp);
}

nvtxwResultCode_t report_sync_points_write(void* state, uint64_t src, uint64_t dst,
                                           const nvtxSyncPoint_t* points, size_t count) {
    report_stream* st = state;
    strbuf* b = &st->chunk;
    size_t start = b->length, i;
    int build =
        rec_u8(b, REC_SYNC_POINTS) || rec_uvar(b, src) || rec_uvar(b, dst) || rec_uvar(b, count);
    for (i = 0; build == 0 && i < count; i++)
        build = rec_svar(b, points[i].src) || rec_svar(b, points[i].dst);
    return stream_end_record(st, build, start, 0, 0);
}

nvtxwResultCode_t report_conversion_factor_write(void* state, uint64_t src, uint64_t dst,
                                                 double slope, int64_t ts_src, int64_t ts_dst) {
    report_stream* st = state;
    strbuf* b = &st->chunk;
    size_t start = b->length;
    uint64_t bits;
    uint8_t le[8];
    int i, build;
    memcpy(&bits, &slope, sizeof bits);
    for (i = 0; i < 8; i++)
        le[i] = (uint8_t)(bits >> (8 * i));
    build = rec_u8(b, REC_CONVERSION) || rec_uvar(b, src) || rec_uvar(b, dst) ||
            strbuf_append(b, (const char*)le, 8) || rec_svar(b, ts_src) || rec_svar(b, ts_dst);
    return stream_end_record(st, build, start, 0, 0);
}
