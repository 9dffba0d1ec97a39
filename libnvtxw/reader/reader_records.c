/*
 * reader/reader_records.c - the records of stream chunks
 * (docs/report-records.md, "Stream chunks"). A timestamped record's time is
 * the previous timestamped record's plus its dt (the first one's base is 0);
 * records without a timestamp store dt = 0 and leave the base alone:
 *
 *   record := kind:u8 body
 *   0x20 event          svar dt, u8 flags (bit 0 timestamp, bit 1 scope),
 *                       [uvar scope], uvar n, n x payload
 *   0x21 counter sample svar dt, uvar counterId, bytes sample
 *   0x22 no value       svar dt, uvar counterId, u8 reason
 *   0x23 sync points    uvar src, uvar dst, uvar n, n x (svar src, svar dst)
 *   0x24 conversion     uvar src, uvar dst, f64 slope, svar tsSrc, svar tsDst
 *   0x25 compact event  svar dt, uvar n, n x (sref, body in the schema's
 *                       implied encoding)                   (format 2)
 *   0x26 int64 sample   svar dt, uvar counterId, svar value (format 2)
 *   0x7F extension      uvar subkind, bytes body            (skipped)
 *   payload := uvar schemaId, u8 encoding, then by encoding
 *     0 raw             bytes data
 *     1 ts-relative     bytes data (TIMESTAMP slots hold value - event time)
 *     2 interned        uvar index [bytes data when index == dictionary size]
 *     3 with origin     uvar origin, bytes data
 *     4 fields          the schema's entries one by one (payload/field_codec.h)
 *
 * Payload and sample bytes are copied into the stream's arena, so that they
 * are aligned for any type (the chunk buffer packs them at odd offsets);
 * ts-relative ones are restored in the copy, fields payloads decoded into
 * it. Interned strings of 1-byte units are borrowed from the chunk buffer.
 */
#include "config.h"

#include <stddef.h>
#include <string.h>

#include "common/alloc.h"
#include "common/compiler.h"
#include "payload/field_codec.h"
#include "payload/registry_internal.h"
#include "reader/reader_internal.h"

#define FLAG_TIMESTAMP 0x1u
#define FLAG_SCOPE 0x2u

/* The timestamp of a record with `dt` (modulo 2^64, as written). */
static int64_t advance_time(reader_stream_cursor* cur, int64_t dt) {
    cur->now = (int64_t)((uint64_t)cur->now + (uint64_t)dt);
    cur->has_now = 1;
    return cur->now;
}

/* Most TIMESTAMP slots the writer stores relative per schema (its first
 * ones in entry order); docs/report-records.md, "Reader notes". */
#define RELATIVE_MAX_SLOTS 8

/* A TIMESTAMP slot the writer stored relative: a top-level, non-array,
 * non-POINTER entry of a predefined 8-byte type other than DOUBLE, FLOAT64
 * and ADDRESS, at a resolved offset. */
static int relative_slot(const nvtxw_schema_t* schema, size_t i) {
    const nvtxPayloadSchemaEntry_t* e = &schema->entries[i];
    size_t offset = schema->fin[i].offset;
    return (e->flags & NVTXW_PAYLOAD_ENTRY_FLAG_SEMANTIC_MASK) ==
               NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP &&
           NVTXW_PAYLOAD_ENTRY_ARRAY_KIND(e->flags) == 0 &&
           (e->flags & NVTX_PAYLOAD_ENTRY_FLAG_POINTER) == 0 &&
           e->type < NVTX_PAYLOAD_SCHEMA_ID_STATIC_START && nvtxw_entry_type_size(e->type) == 8 &&
           e->type != NVTX_PAYLOAD_ENTRY_TYPE_DOUBLE &&
           e->type != NVTX_PAYLOAD_ENTRY_TYPE_FLOAT64 &&
           e->type != NVTX_PAYLOAD_ENTRY_TYPE_ADDRESS && offset != SIZE_MAX &&
           offset <= UINT32_MAX - 8;
}

/* Adds the event time back to every slot of the payload's arena copy. */
static int restore_relative(nvtxw_reader_t* reader, reader_stream_cursor* cur, uint64_t schema_id,
                            int64_t ts, nvtxPayloadData_t* p) {
    const nvtxw_schema_registry_t* registry =
        reader->domains[reader->streams[cur->stream].domain].registry;
    const nvtxw_schema_t* schema = nvtxw_schema_registry_find_schema(registry, schema_id);
    uint8_t* copy;
    size_t i, slots = 0;
    if (schema == NULL || schema->attr.type != NVTX_PAYLOAD_SCHEMA_TYPE_STATIC)
        return reader_fail(&cur->cur, "ts-relative payload of a schema that is not STATIC");
    copy = (uint8_t*)(uintptr_t)p->payload; /* the stream arena's copy */
    for (i = 0; i < schema->attr.numEntries && slots < RELATIVE_MAX_SLOTS; i++) {
        uint64_t value;
        size_t at = schema->fin[i].offset;
        if (!relative_slot(schema, i))
            continue;
        slots++;
        if (at > p->size || p->size - at < 8)
            return reader_fail(&cur->cur, "ts-relative payload shorter than its timestamp slot");
        memcpy(&value, copy + at, 8);
        value += (uint64_t)ts;
        memcpy(copy + at, &value, 8);
    }
    return 0;
}

/* An aligned copy of chunk bytes in the stream's arena. */
static int aligned_copy(reader_stream_cursor* cur, const uint8_t* data, size_t size,
                        const void** out) {
    void* copy = reader_arena_alloc(&cur->arena, size);
    if (copy == NULL)
        return reader_fail(&cur->cur, "out of memory");
    if (size > 0)
        memcpy(copy, data, size);
    *out = copy;
    return 0;
}

/* Interned strings of 1-byte code units need no alignment: they are
 * handed out borrowed from the chunk buffer, which stays until the record's
 * stream moves on (nvtxw/reader.h's lifetime rule). UTF-16 and UTF-32
 * strings are copied to be aligned for their units. */
static int string_bytes(reader_stream_cursor* cur, nvtxPayloadData_t* p, const uint8_t* data) {
    if (p->schemaId == NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF16 ||
        p->schemaId == NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF32)
        return aligned_copy(cur, data, p->size, &p->payload);
    p->payload = data;
    return 0;
}

static int interned(reader_stream_cursor* cur, nvtxPayloadData_t* p) {
    reader_cursor* c = &cur->cur;
    uint64_t index;
    const uint8_t* data;
    if (reader_get_bounded(c, cur->dict_count, "interned index beyond the dictionary", &index))
        return -1;
    if (index < cur->dict_count) {
        p->size = cur->dict[index].size;
        return string_bytes(cur, p, cur->buffer + cur->dict[index].offset);
    }
    if (reader_get_bytes(c, &data, &p->size) != 0)
        return -1;
    if (cur->dict_count == cur->dict_capacity) {
        size_t capacity = cur->dict_capacity ? cur->dict_capacity * 2 : 64;
        reader_dict_entry* grown = nvtxw_reallocarray(cur->dict, capacity, sizeof *grown);
        if (grown == NULL)
            return reader_fail(c, "out of memory");
        cur->dict = grown;
        cur->dict_capacity = capacity;
    }
    cur->dict[cur->dict_count].offset = (size_t)(data - cur->buffer);
    cur->dict[cur->dict_count].size = p->size;
    cur->dict_count++;
    return string_bytes(cur, p, data);
}

/* ---- Lanes (format 2) ---------------------------------------------------- */

int reader_split_lanes(reader_stream_cursor* cur, size_t size) {
    reader_cursor table = {cur->buffer, cur->buffer + size, NULL};
    uint64_t count, lengths[READER_LANES];
    const uint8_t* at;
    unsigned i;
    cur->cur.problem = NULL;
    if (reader_get_uvar(&table, &count) != 0 || count != READER_LANES) {
        cur->cur.problem = table.problem ? table.problem : "lane count is not 9";
        return -1;
    }
    for (i = 0; i < READER_LANES; i++) {
        if (reader_get_bounded(&table, reader_left(&table), "lane length exceeds the chunk",
                               &lengths[i]) != 0) {
            cur->cur.problem = table.problem;
            return -1;
        }
    }
    at = table.p;
    for (i = 0; i < READER_LANES; i++) {
        reader_cursor* lane = i == READER_LANE_MAIN ? &cur->cur : &cur->lanes[i];
        if (lengths[i] > (uint64_t)(table.end - at)) {
            cur->cur.problem = "lane lengths exceed the chunk";
            return -1;
        }
        lane->p = at;
        lane->end = at + lengths[i];
        lane->problem = NULL;
        if (i >= READER_LANE_FIELDS && i < READER_LANE_FIELDS + FIELD_LANES) {
            cur->fields[i - READER_LANE_FIELDS].p = at;
            cur->fields[i - READER_LANE_FIELDS].end = at + lengths[i];
        }
        at += lengths[i];
    }
    if (at != table.end) {
        cur->cur.problem = "bytes after the last lane";
        return -1;
    }
    cur->fast_room = 0;
    return 0;
}

/* The least of the bytes left in the time lane and the first `lanes` field
 * lanes. */
static size_t fast_lanes_room(const reader_stream_cursor* cur, unsigned lanes) {
    size_t room = reader_left(&cur->lanes[READER_LANE_TIME]);
    unsigned i;
    for (i = 0; i < lanes; i++)
        if ((size_t)(cur->fields[i].end - cur->fields[i].p) < room)
            room = (size_t)(cur->fields[i].end - cur->fields[i].p);
    return room;
}

/* A failure in another lane, reported as the record's problem. */
static int lane_fail(reader_stream_cursor* cur, const reader_cursor* lane) {
    return reader_fail(&cur->cur, lane->problem ? lane->problem : "invalid lane bytes");
}

/* ---- Plans (format 2) ---------------------------------------------------- */

struct reader_plan {
    uint8_t encoding; /* implied by a compact record: 4 fields, 2 interned, 0 none */
    field_plan fields;
};

void reader_plans_free(reader_domain* domain) {
    size_t i;
    for (i = 0; i < domain->plans.capacity; i++)
        if (domain->plans.slots != NULL && domain->plans.slots[i].value != NULL)
            nvtxw_free(domain->plans.slots[i].value);
    idmap_free(&domain->plans);
}

/* The plan of a registered schema of the stream's domain, made on first
 * use; NULL with c->problem set when the schema is unknown. */
static const reader_plan* plan_of(nvtxw_reader_t* reader, reader_stream_cursor* cur,
                                  uint64_t schema_id) {
    reader_domain* d = &reader->domains[reader->streams[cur->stream].domain];
    reader_plan* plan = idmap_get(&d->plans, schema_id);
    const nvtxw_schema_t* schema;
    if (plan != NULL)
        return plan;
    schema = nvtxw_schema_registry_find_schema(d->registry, schema_id);
    if (schema == NULL)
        return reader_fail(&cur->cur, "payload of an unregistered schema"), NULL;
    plan = nvtxw_calloc(1, sizeof *plan);
    if (plan == NULL)
        return reader_fail(&cur->cur, "out of memory"), NULL;
    if (field_plan_make(schema, &plan->fields))
        plan->encoding = 4;
    else if (field_schema_is_inline_string(schema))
        plan->encoding = 2;
    if (idmap_put(&d->plans, schema_id, plan) != 0) {
        nvtxw_free(plan);
        return reader_fail(&cur->cur, "out of memory"), NULL;
    }
    return plan;
}

/* A fields payload decoded into the arena: from the field lanes of a
 * compact record, or (in_main) from the main lane of a full record
 * (encoding 4). */
static int fields_payload(reader_stream_cursor* cur, const reader_plan* plan, int64_t ts,
                          int in_main, nvtxPayloadData_t* p) {
    uint32_t serial = cur->serial;
    const char* problem = NULL;
    uint8_t* out;
    int status;
    if (plan->encoding != 4)
        return reader_fail(&cur->cur, "fields payload of a schema without a fields layout");
    out = reader_arena_alloc(&cur->arena, plan->fields.static_size);
    if (out == NULL)
        return reader_fail(&cur->cur, "out of memory");
    status = in_main
                 ? field_decode(&plan->fields, &cur->cur.p, cur->cur.end, ts, serial, out, &problem)
                 : field_decode_lanes(&plan->fields, cur->fields, ts, serial, out, &problem);
    if (status != 0)
        return reader_fail(&cur->cur, problem);
    p->payload = out;
    p->size = plan->fields.static_size;
    return 0;
}

/* A schema reference of a compact record (docs/report-records.md). */
static int get_sref(nvtxw_reader_t* reader, reader_stream_cursor* cur, uint64_t* schema_id,
                    const reader_plan** plan) {
    reader_cursor* c = &cur->cur;
    uint64_t ref;
    if (reader_get_bounded(c, cur->sref_count + 1u, "schema reference beyond the chunk's table",
                           &ref) != 0)
        return -1;
    if (ref >= 1 && ref <= cur->sref_count) {
        *schema_id = cur->srefs[ref - 1].schema_id;
        *plan = cur->srefs[ref - 1].plan;
        return 0;
    }
    if (ref != 0 && cur->sref_count == READER_SREF_MAX)
        return reader_fail(c, "schema reference table overflows");
    if (reader_get_uvar(c, schema_id) != 0)
        return -1;
    *plan = NULL;
    if (*schema_id >= NVTX_PAYLOAD_SCHEMA_ID_STATIC_START &&
        (*plan = plan_of(reader, cur, *schema_id)) == NULL)
        return -1;
    if (ref != 0) {
        cur->srefs[cur->sref_count].schema_id = *schema_id;
        cur->srefs[cur->sref_count].plan = *plan;
        cur->sref_count++;
    }
    return 0;
}

static int is_string_type(uint64_t id) {
    return id >= NVTX_PAYLOAD_ENTRY_TYPE_CSTRING && id <= NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF32;
}

/* 0x25: timestamped, no scope, every payload in its schema's implied
 * encoding (predefined C strings and inline-string schemas interned,
 * fields-layout schemas as fields). */
static int compact_event_record(nvtxw_reader_t* reader, reader_stream_cursor* cur,
                                nvtxw_record_t* rec) {
    reader_cursor* c = &cur->cur;
    nvtxPayloadData_t* payloads;
    uint64_t n, k;
    int64_t dt;
    if (reader_get_svar_long(&cur->lanes[READER_LANE_TIME], &dt) != 0)
        return lane_fail(cur, &cur->lanes[READER_LANE_TIME]);
    if (reader_get_bounded(c, reader_left(c), "payload count exceeds the chunk", &n) != 0)
        return -1;
    rec->kind = NVTXW_RECORD_EVENT;
    rec->has_timestamp = 1;
    rec->timestamp = advance_time(cur, dt);
    payloads = reader_arena_alloc(&cur->arena, (size_t)n * sizeof *payloads);
    if (payloads == NULL && n != 0)
        return reader_fail(c, "out of memory");
    for (k = 0; k < n; k++) {
        nvtxPayloadData_t* p = &payloads[k];
        const reader_plan* plan;
        if (get_sref(reader, cur, &p->schemaId, &plan) != 0)
            return -1;
        if (is_string_type(p->schemaId) || (plan != NULL && plan->encoding == 2)) {
            if (interned(cur, p) != 0)
                return -1;
        } else if (plan == NULL || plan->encoding != 4) {
            return reader_fail(c, "compact event payload of a schema with no implied encoding");
        } else if (fields_payload(cur, plan, rec->timestamp, 0, p) != 0) {
            return -1;
        }
    }
    rec->u.event.payloads = payloads;
    rec->u.event.count = (size_t)n;
    return 0;
}

/* One payload; *origin_count counts encoding-3 payloads. */
static int get_payload(nvtxw_reader_t* reader, reader_stream_cursor* cur, nvtxw_record_t* rec,
                       size_t k, nvtxPayloadData_t* p, uint64_t* origins, size_t* origin_count) {
    reader_cursor* c = &cur->cur;
    const uint8_t* data;
    uint8_t encoding;
    if (reader_get_uvar(c, &p->schemaId) || reader_get_u8(c, &encoding))
        return -1;
    if (encoding == 2)
        return interned(cur, p);
    if (encoding == 4 && reader->major >= 2) {
        const reader_plan* plan = plan_of(reader, cur, p->schemaId);
        return plan == NULL ? -1 : fields_payload(cur, plan, rec->timestamp, 1, p);
    }
    if (encoding == 3) {
        if (reader_get_uvar(c, &origins[k]) != 0)
            return -1;
        (*origin_count)++;
    } else if (encoding > 3) {
        return reader_fail(c, "unknown payload encoding");
    }
    if (reader_get_bytes(c, &data, &p->size) != 0 ||
        aligned_copy(cur, data, p->size, &p->payload) != 0)
        return -1;
    if (encoding != 1)
        return 0;
    if (!rec->has_timestamp)
        return reader_fail(c, "ts-relative payload in an event without a timestamp");
    return restore_relative(reader, cur, p->schemaId, rec->timestamp, p);
}

static int event_record(nvtxw_reader_t* reader, reader_stream_cursor* cur, nvtxw_record_t* rec) {
    reader_cursor* c = &cur->cur;
    nvtxPayloadData_t* payloads;
    uint64_t* origins;
    uint64_t n, k;
    size_t origin_count = 0;
    int64_t dt;
    uint8_t flags;
    if (reader_get_svar(c, &dt) || reader_get_u8(c, &flags))
        return -1;
    if (flags & ~(FLAG_TIMESTAMP | FLAG_SCOPE))
        return reader_fail(c, "unknown event flags");
    rec->has_timestamp = (flags & FLAG_TIMESTAMP) != 0;
    rec->timestamp = rec->has_timestamp ? advance_time(cur, dt) : 0;
    rec->u.event.has_scope = (flags & FLAG_SCOPE) != 0;
    if (rec->u.event.has_scope && reader_get_uvar(c, &rec->u.event.scope) != 0)
        return -1;
    if (reader_get_bounded(c, reader_left(c) / 3, "payload count exceeds the chunk", &n))
        return -1;
    payloads = reader_arena_alloc(&cur->arena, (size_t)n * sizeof *payloads);
    origins = reader_arena_alloc(&cur->arena, (size_t)n * sizeof *origins);
    if (payloads == NULL || origins == NULL)
        return reader_fail(c, "out of memory");
    for (k = 0; k < n; k++)
        if (get_payload(reader, cur, rec, (size_t)k, &payloads[k], origins, &origin_count))
            return -1;
    if (origin_count != 0 && origin_count != n)
        return reader_fail(c, "event mixes payloads with and without origin");
    rec->u.event.payloads = payloads;
    rec->u.event.count = (size_t)n;
    rec->u.event.origins = origin_count ? origins : NULL;
    return 0;
}

/* 0x26: an 8-byte integer sample stored as svar. */
static int int_sample_record(reader_stream_cursor* cur, nvtxw_record_t* rec) {
    reader_cursor* c = &cur->cur;
    int64_t dt, value;
    void* data;
    if (reader_get_svar_long(&cur->lanes[READER_LANE_TIME], &dt) != 0)
        return lane_fail(cur, &cur->lanes[READER_LANE_TIME]);
    if (reader_get_uvar(c, &rec->u.counter_sample.counter_id) != 0)
        return -1;
    if (reader_get_svar(&cur->lanes[READER_LANE_VALUES], &value) != 0)
        return lane_fail(cur, &cur->lanes[READER_LANE_VALUES]);
    data = reader_arena_alloc(&cur->arena, 8);
    if (data == NULL)
        return reader_fail(c, "out of memory");
    memcpy(data, &value, 8);
    rec->kind = NVTXW_RECORD_COUNTER_SAMPLE;
    rec->has_timestamp = 1;
    rec->timestamp = advance_time(cur, dt);
    rec->u.counter_sample.data = data;
    rec->u.counter_sample.size = 8;
    return 0;
}

static int counter_record(reader_stream_cursor* cur, nvtxw_record_t* rec, int with_value) {
    reader_cursor* c = &cur->cur;
    int64_t dt;
    const uint8_t* data;
    if (reader_get_svar(c, &dt) != 0)
        return -1;
    rec->has_timestamp = 1;
    rec->timestamp = advance_time(cur, dt);
    if (!with_value)
        return (reader_get_uvar(c, &rec->u.counter_no_value.counter_id) ||
                reader_get_u8(c, &rec->u.counter_no_value.reason))
                   ? -1
                   : 0;
    if (reader_get_uvar(c, &rec->u.counter_sample.counter_id) ||
        reader_get_bytes(c, &data, &rec->u.counter_sample.size))
        return -1;
    return aligned_copy(cur, data, rec->u.counter_sample.size, &rec->u.counter_sample.data);
}

static int sync_record(reader_stream_cursor* cur, nvtxw_record_t* rec) {
    reader_cursor* c = &cur->cur;
    nvtxSyncPoint_t* points;
    uint64_t n, k;
    if (reader_get_uvar(c, &rec->u.sync_points.src_domain) ||
        reader_get_uvar(c, &rec->u.sync_points.dst_domain) ||
        reader_get_bounded(c, reader_left(c) / 2, "sync point count exceeds the chunk", &n))
        return -1;
    points = reader_arena_alloc(&cur->arena, (size_t)n * sizeof *points);
    if (points == NULL)
        return reader_fail(c, "out of memory");
    for (k = 0; k < n; k++)
        if (reader_get_svar(c, &points[k].src) || reader_get_svar(c, &points[k].dst))
            return -1;
    rec->u.sync_points.points = points;
    rec->u.sync_points.count = (size_t)n;
    return 0;
}

static int conversion_record(reader_stream_cursor* cur, nvtxw_record_t* rec) {
    reader_cursor* c = &cur->cur;
    return (reader_get_uvar(c, &rec->u.conversion_factor.src_domain) ||
            reader_get_uvar(c, &rec->u.conversion_factor.dst_domain) ||
            reader_get_f64(c, &rec->u.conversion_factor.slope) ||
            reader_get_svar(c, &rec->u.conversion_factor.timestamp_src) ||
            reader_get_svar(c, &rec->u.conversion_factor.timestamp_dst))
               ? -1
               : 0;
}

static int decode_body(nvtxw_reader_t* reader, reader_stream_cursor* cur, uint8_t kind,
                       nvtxw_record_t* rec) {
    uint64_t subkind;
    const uint8_t* body;
    size_t size;
    switch (kind) {
    case NVTXW_RECORD_EVENT:
        return event_record(reader, cur, rec);
    case NVTXW_RECORD_COUNTER_SAMPLE:
        return counter_record(cur, rec, 1);
    case NVTXW_RECORD_COUNTER_NO_VALUE:
        return counter_record(cur, rec, 0);
    case NVTXW_RECORD_SYNC_POINTS:
        return sync_record(cur, rec);
    case NVTXW_RECORD_CONVERSION_FACTOR:
        return conversion_record(cur, rec);
    case 0x25:
        return reader->major >= 2 ? compact_event_record(reader, cur, rec)
                                  : reader_fail(&cur->cur, "unknown record kind");
    case 0x26:
        return reader->major >= 2 ? int_sample_record(cur, rec)
                                  : reader_fail(&cur->cur, "unknown record kind");
    case 0x7F:
        return (reader_get_uvar(&cur->cur, &subkind) || reader_get_bytes(&cur->cur, &body, &size))
                   ? -1
                   : 0;
    default:
        return reader_fail(&cur->cur, "unknown record kind");
    }
}

/* The bytes of `u` that stream records use: only those are zeroed per
 * record (the registrations' members are larger, and zeroing the whole
 * union cost more than decoding a compact record). */
#define MAX2(a, b) ((a) > (b) ? (a) : (b))
#define STREAM_MEMBERS_SIZE                                                                        \
    MAX2(MAX2(MAX2(sizeof(((nvtxw_record_t*)0)->u.event),                                          \
                   sizeof(((nvtxw_record_t*)0)->u.counter_sample)),                                \
              MAX2(sizeof(((nvtxw_record_t*)0)->u.counter_no_value),                               \
                   sizeof(((nvtxw_record_t*)0)->u.sync_points))),                                  \
         sizeof(((nvtxw_record_t*)0)->u.conversion_factor))

/* ---- Runs: compact records of one schema decoded ahead ----------------- */

/* Records of a run, and the bytes of its slots: bounded per cursor, since
 * in time order every stream's cursor holds one. */
#define RUN_MAX 32
#define RUN_BYTES 4096
/* Shorter runs cost more to set up than they save (compact_one_fields
 * tests the headers of the first RUN_MIN records). */
#define RUN_MIN 4

/* Hands out the run's next record. */
static void run_take(reader_stream_cursor* cur, nvtxw_record_t* rec) {
    reader_run_slot* slot = reader_run_slot_at(cur, cur->run_next++);
    rec->kind = NVTXW_RECORD_EVENT;
    rec->has_timestamp = 1;
    rec->timestamp = slot->timestamp;
    rec->u.event.payloads = &slot->payload;
    rec->u.event.count = 1;
}

/* How many records from the main lane's position on, at most `most`, are
 * compact records of one payload of schema reference `ref` (0x25, 1, ref). */
static size_t run_length(const reader_cursor* c, uint8_t ref, size_t most) {
    const uint8_t* p = c->p;
    const uint8_t want[4] = {0x25, 1, ref, 0}, keep[4] = {0xFF, 0xFF, 0xFF, 0};
    uint32_t header, mask;
    size_t n = 0;
    /* Each header is read as the first three bytes of a 4-byte load: one
     * compare per record, with a byte to spare after the last (a record
     * that ends the lane is decoded on its own). */
    if (reader_left(c) == 0)
        return 0;
    memcpy(&header, want, 4);
    memcpy(&mask, keep, 4);
    if (most > (reader_left(c) - 1) / 3)
        most = (reader_left(c) - 1) / 3;
    for (; n < most; n++, p += 3) {
        uint32_t word;
        memcpy(&word, p, 4);
        if ((word & mask) != header)
            break;
    }
    return n;
}

/* Whether the RUN_MIN - 1 records after the one at `p` (3 * RUN_MIN bytes
 * readable) have its header (0x25, one payload, `ref`). */
static inline int run_ahead(const uint8_t* p, uint8_t ref) {
    int i;
    for (i = 1; i < RUN_MIN; i++)
        if (p[3 * i + 2] != ref || p[3 * i] != 0x25 || p[3 * i + 1] != 1)
            return 0;
    return 1;
}

/* Decodes, when the chunk has several compact records of the schema of
 * reference `ref` in a row, up to RUN_MAX of them lane by lane into the
 * cursor's run (each lane holds `need` bytes per record: cur->fast_room is
 * measured). Returns 1 with the run's first record handed out into `rec`,
 * 0 when there is no run or it does not decode (nothing consumed: the
 * records are then decoded one by one, which names any fault). Out of
 * line: inlined, its frame made every compact record dearer. */
static NVTXW_NOINLINE int decode_run(reader_stream_cursor* cur, const reader_plan* plan,
                                     uint8_t ref, size_t need, nvtxw_record_t* rec) {
    reader_cursor* c = &cur->cur;
    reader_cursor* time = &cur->lanes[READER_LANE_TIME];
    const uint8_t* time_start = time->p;
    field_input start[FIELD_LANES];
    size_t stride = READER_RUN_SLOT_HEADER + ((plan->fields.static_size + READER_ARENA_ALIGN - 1) &
                                              ~(size_t)(READER_ARENA_ALIGN - 1));
    size_t n, i;
    int64_t now = cur->now;
    const char* problem = NULL;
    field_run run;
    if (!field_plan_decodes_runs(&plan->fields) || (n = run_length(c, ref, RUN_MAX)) < RUN_MIN)
        return 0;
    if (n > RUN_BYTES / stride)
        n = RUN_BYTES / stride;
    if (n > cur->fast_room / need)
        n = cur->fast_room / need;
    if (n < RUN_MIN)
        return 0;
    if (cur->run == NULL && (cur->run = nvtxw_malloc(RUN_BYTES)) == NULL)
        return 0; /* one by one, which needs no more memory */
    cur->run_stride = stride;
    for (i = 0; i < n; i++) {
        reader_run_slot* slot = reader_run_slot_at(cur, i);
        uint64_t z;
        if (varint_get_unbounded(&time->p, &z) != 0) {
            time->p = time_start;
            return 0;
        }
        now = (int64_t)((uint64_t)now + (uint64_t)varint_unzigzag(z));
        slot->timestamp = now;
        slot->payload.schemaId = cur->srefs[ref - 1].schema_id;
        slot->payload.size = plan->fields.static_size;
        slot->payload.payload = (uint8_t*)slot + READER_RUN_SLOT_HEADER;
    }
    memcpy(start, cur->fields, sizeof start);
    run.out = cur->run + READER_RUN_SLOT_HEADER;
    run.times = cur->run + offsetof(reader_run_slot, timestamp);
    run.stride = stride;
    run.count = n;
    if (field_decode_run_unchecked(&plan->fields, cur->fields, &run, cur->serial, &problem) != 0) {
        time->p = time_start;
        memcpy(cur->fields, start, sizeof start);
        return 0;
    }
    c->p += 3; /* the others' headers are taken by reader_run_advance, which
                * hands them out (cursor_fill) */
    cur->fast_room -= n * need;
    cur->now = now;
    cur->has_now = 1;
    cur->run_count = (uint32_t)n;
    cur->run_next = 0;
    run_take(cur, rec);
    return 1;
}

/* Most records of a format-2 chunk: 0x25 with one fields payload whose
 * schema the chunk's table already numbers, while the time and field lanes
 * hold the longest encoding (cur->fast_room, measured once for many
 * records). Such a record is decoded here without the general steps and
 * without end checks, into one arena allocation for the payload and its
 * descriptor. Returns 1 when decoded, 0 when the record needs the general
 * path (nothing was consumed), -1 when malformed (as the general path would
 * report it). */
static int compact_one_fields(reader_stream_cursor* cur, nvtxw_record_t* rec) {
    reader_cursor* c = &cur->cur;
    reader_cursor* time = &cur->lanes[READER_LANE_TIME];
    const reader_plan* plan;
    const char* problem = NULL;
    nvtxPayloadData_t* payload;
    uint64_t z;
    uint8_t ref;
    size_t need;
    unsigned lanes;
    if (reader_left(c) < 3 || c->p[1] != 1 || (ref = c->p[2]) == 0 || ref > cur->sref_count ||
        (plan = cur->srefs[ref - 1].plan) == NULL || plan->encoding != 4)
        return 0;
    need = plan->fields.bound + VARINT_MAX_BYTES; /* the fields, and dt in the time lane */
    lanes = plan->fields.op_count < FIELD_LANES ? plan->fields.op_count : FIELD_LANES;
    if (cur->fast_room < need || cur->fast_lanes < lanes) {
        cur->fast_room = fast_lanes_room(cur, lanes);
        cur->fast_lanes = lanes;
        if (cur->fast_room < need)
            return 0; /* the chunk's last records: checked */
    }
    /* a run needs the next RUN_MIN - 1 records to be of the same schema:
     * testing their headers here keeps the cost of alternating or nested
     * schemas (push, pop, push, push, pop, ...) to three compares */
    if (reader_left(c) >= 3 * RUN_MIN && run_ahead(c->p, ref) &&
        decode_run(cur, plan, ref, need, rec))
        return 1;
    payload = reader_arena_alloc(&cur->arena,
                                 sizeof *payload + READER_ARENA_ALIGN + plan->fields.static_size);
    if (payload == NULL)
        return 0; /* the general path reports it */
    c->p += 3;
    if (varint_get_unbounded(&time->p, &z) != 0)
        return lane_fail(cur, time);
    rec->kind = NVTXW_RECORD_EVENT;
    rec->has_timestamp = 1;
    rec->timestamp = advance_time(cur, varint_unzigzag(z));
    payload->schemaId = cur->srefs[ref - 1].schema_id;
    payload->size = plan->fields.static_size;
    payload->payload = (uint8_t*)payload + ((sizeof *payload + READER_ARENA_ALIGN - 1) &
                                            ~(size_t)(READER_ARENA_ALIGN - 1));
    cur->fast_room -= need;
    if (field_decode_lanes_unchecked(&plan->fields, cur->fields, rec->timestamp, cur->serial,
                                     (uint8_t*)payload->payload, &problem) != 0)
        return reader_fail(c, problem);
    rec->u.event.payloads = payload;
    rec->u.event.count = 1;
    return 1;
}

/* A record that could not be decoded: -2 when out of memory, else -1. */
static int record_failed(const reader_stream_cursor* cur) {
    return cur->cur.problem && strcmp(cur->cur.problem, "out of memory") == 0 ? -2 : -1;
}

int reader_decode_stream_record(nvtxw_reader_t* reader, reader_stream_cursor* cur) {
    nvtxw_record_t* rec = &cur->head;
    uint8_t kind;
    int fast;
    reader_arena_rewind(&cur->arena);
    rec->struct_size = sizeof *rec;
    rec->stream = cur->stream;
    rec->domain = reader->streams[cur->stream].domain;
    rec->has_timestamp = 0;
    rec->timestamp = 0;
    memset(&rec->u, 0, STREAM_MEMBERS_SIZE);
    if (cur->cur.p < cur->cur.end && *cur->cur.p == 0x25 && reader->major >= 2 &&
        (fast = compact_one_fields(cur, rec)) != 0) {
        if (fast < 0)
            return record_failed(cur);
        cur->key = rec->timestamp;
        return 1;
    }
    cur->fast_room = 0; /* the general path does not count what it takes */
    if (reader_get_u8(&cur->cur, &kind) != 0)
        return -1;
    rec->kind = (nvtxw_record_kind_t)kind;
    if (decode_body(reader, cur, kind, rec) != 0)
        return record_failed(cur);
    cur->key = rec->has_timestamp ? rec->timestamp : cur->has_now ? cur->now : cur->chunk_first;
    return kind == 0x7F ? 0 : 1;
}
