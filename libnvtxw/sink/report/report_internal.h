/*
 * sink/report/report_internal.h - state of the report sink (Sink=report), shared
 * by its registration side (report_sink.c), its write path
 * (report_stream.c) and its payload plans (report_plan.c).
 *
 * Records follow docs/report-records.md; chunks go through the container
 * layer (format/container.h), one encoder per stream, so streams compress and
 * write concurrently with no shared lock. The registration log has its own
 * encoder; it is flushed before any stream chunk that may depend on it and
 * at the end, under `reg_mutex` (never contended in steady state).
 */
#ifndef NVTXW_SINK_REPORT_INTERNAL_H
#define NVTXW_SINK_REPORT_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "common/idmap.h"
#include "common/pubmap.h"
#include "common/strbuf.h"
#include "common/varint.h"
#include "core/sink.h"
#include "format/container.h"
#include "payload/field_codec.h"
#include "sink/shared/offload.h"

/* Container chunk kinds (docs/report-records.md). */
#define REPORT_CHUNK_REGISTRATIONS 1u
#define REPORT_CHUNK_EVENTS 2u

/* Raw bytes a stream buffers before it compresses and writes a chunk. */
#define REPORT_CHUNK_TARGET (256u * 1024u)
/* Registration chunks are smaller: a damaged one costs the registrations it
 * holds (and the events that need them), so the log is cut finer than the
 * events. The session record has a chunk of its own (report_create). */
#define REPORT_REG_CHUNK_TARGET (16u * 1024u)

/* Lanes of an event chunk (docs/report-records.md, "Lanes"): the bytes of
 * a record are spread over them so that like fields of successive records
 * sit together, which zstd compresses far better. */
enum {
    LANE_MAIN =
        0, /* record kinds, whole records of other kinds, counts, schema references, strings */
    LANE_TIME = 1,   /* dt of compact records and integer samples */
    LANE_FIELDS = 2, /* field k of a fields payload: lane 2 + min(k, FIELD_LANES - 1) */
    LANE_VALUES = LANE_FIELDS + FIELD_LANES, /* integer sample values */
    REPORT_LANES
};
/* Subkinds of extension records (REC_EXTENSION). */
#define EXTENSION_INDEX_MARKER 1u

/* Record kinds. */
enum {
    REC_SESSION = 0x01,
    REC_DOMAIN = 0x02,
    REC_CATEGORY = 0x03,
    REC_STRING = 0x04,
    REC_RESOURCE = 0x05,
    REC_SCOPE = 0x06,
    REC_SCHEMA = 0x07,
    REC_ENUM = 0x08,
    REC_COUNTER = 0x09,
    REC_TIME_DOMAIN = 0x0A,
    REC_STREAM_OPEN = 0x0B,
    REC_STREAM_CLOSE = 0x0C,
    REC_EVENT = 0x20,
    REC_COUNTER_SAMPLE = 0x21,
    REC_COUNTER_NO_VALUE = 0x22,
    REC_SYNC_POINTS = 0x23,
    REC_CONVERSION = 0x24,
    REC_EVENT_COMPACT = 0x25,
    REC_COUNTER_SAMPLE_INT = 0x26,
    REC_EXTENSION = 0x7F
};

/* Payload encodings. */
enum {
    PAYLOAD_RAW = 0,
    PAYLOAD_TS_RELATIVE = 1,
    PAYLOAD_INTERNED = 2,
    PAYLOAD_ORIGIN = 3,
    PAYLOAD_FIELDS = 4
};

/* Schema references of compact event records: distinct schemas a chunk
 * numbers (later ones are written by ID). */
#define REPORT_SREF_MAX 32
/* Event shapes a stream remembers (direct-mapped by the first payload's
 * schema ID, a power of two), and their most payloads (report_stream.c). */
#define REPORT_SHAPES_BITS 3
#define REPORT_SHAPES (1u << REPORT_SHAPES_BITS)
#define REPORT_SHAPE_PAYLOADS 2
/* The shape of a compact record: its schemas, their plans and the chunk's
 * references to them. */
typedef struct report_shape {
    uint32_t count;     /* payloads; 0 = empty */
    unsigned lanes;     /* lanes its records use: LANE_FIELDS + field lanes */
    int has_interned;   /* one of them is PAYLOAD_INTERNED */
    int check_handles;  /* with strings, fields with handles: check those first */
    size_t fixed_bound; /* most bytes of a record, strings' bytes aside */
    /* A fields payload alone or followed by an interned string: written by
     * put_direct_again; `checked` when the core has fast plans for both and
     * the first's holds the event's timestamp, so the sink checks such
     * events itself (report_event_write). */
    int direct, checked;
    struct {
        uint64_t schema_id;
        const core_fast_plan* fast;      /* NULL when its payloads need the walk */
        const struct payload_plan* plan; /* with PAYLOAD_FIELDS */
        uint32_t static_size;            /* with PAYLOAD_FIELDS: the payload's size */
        uint32_t sref;
        uint8_t encoding; /* PAYLOAD_FIELDS or PAYLOAD_INTERNED */
    } p[REPORT_SHAPE_PAYLOADS];
} report_shape;
/* Interned strings remembered by the producer's pointer (direct-mapped, a
 * power of two; REPORT_INTERN_CACHE_BITS its log2). */
#define REPORT_INTERN_CACHE_BITS 7
#define REPORT_INTERN_CACHE (1u << REPORT_INTERN_CACHE_BITS)

#define PLAN_MAX_TIMESTAMPS 8

/* How payloads of one schema are stored; computed at registration, published
 * complete and read-only afterwards (so the write path reads it without
 * locks). */
typedef struct payload_plan {
    uint8_t encoding;     /* PAYLOAD_RAW, _TS_RELATIVE, _INTERNED or _FIELDS */
    uint8_t fallback;     /* with _FIELDS: the encoding of a payload it cannot store */
    uint8_t has_pointers; /* entries (or nested ones) hold POINTERs */
    uint8_t has_handles;  /* the fields plan stores string handles */
    uint8_t ts_count;
    uint32_t ts_offsets[PLAN_MAX_TIMESTAMPS]; /* 8-byte TIMESTAMP slots */
    field_plan fields;                        /* with _FIELDS */
} payload_plan;

typedef struct report_sink {
    sink base;
    container_writer_t* writer;
    int compression;
    char* path;
    /* Registration log: serialized calls, or the write path under reg_mutex. */
    pthread_mutex_t reg_mutex;
    container_encoder_t* reg_encoder;
    strbuf reg;
    uint32_t reg_records;
    _Atomic int reg_pending; /* reg holds records not yet written */
    /* A shared report (nvtxw/share.h): a rank other than 0 writes no
     * registration chunk (rank 0's log holds them all); every rank hashes
     * its registration records, which SessionEnd compares across ranks.
     * Stream-close records are left out: each rank closes its streams when
     * it is done with them, and the log's closes say nothing by their
     * order. */
    int reg_discard;
    uint64_t reg_hash;
    size_t reg_hash_stop; /* the record's bytes from here on are not hashed (0: all are) */
    /* Index markers (report_reg_begin_at): the registration chunk being
     * filled (counted from 1), and the chunk of the last marker for domain
     * records, stream-open records and each domain's strings. */
    uint64_t reg_chunk;
    uint64_t domain_marker, stream_marker;
    uint64_t* string_markers; /* by domain index */
    size_t string_marker_count;
    /* Domain index -> pubmap* of schema ID -> payload_plan*: registrations
     * add, the write path reads without a lock (report_plan.c). */
    pubvec plans;
    /* Compression threads (sink/shared/offload.h); none: streams compress
     * on their writers' threads. */
    offload_pool compressors;
} report_sink;

/* One interned string of a chunk's dictionary. */
typedef struct intern_entry {
    uint64_t hash;
    uint32_t offset, length; /* in report_stream.dict_data */
} intern_entry;

typedef struct report_stream {
    report_sink* rs;
    const core_stream* stream;
    container_encoder_t* encoder;
    strbuf lanes[REPORT_LANES]; /* the chunk being built */
    /* Where each lane's next byte goes; lanes[i].length is brought up to
     * date from it only around writes through strbuf (report_stream.c,
     * "Lane positions"). `room`: free bytes every lane has at least. */
    uint8_t* at[REPORT_LANES];
    size_t room;
    strbuf assembled; /* a whole chunk, lane table first (no compression thread) */
    uint32_t records;
    int has_ts;
    int64_t prev_ts, min_ts, max_ts;
    /* Per-chunk string dictionary (reset with each chunk). */
    idmap intern_index; /* hash -> entry index + 1 */
    intern_entry* interned;
    size_t intern_count, intern_capacity;
    strbuf dict_data;
    /* Schema references of this chunk's compact records (reset with it). */
    uint64_t srefs[REPORT_SREF_MAX];
    uint32_t sref_count;
    /* Dictionary entries by the producer's pointer; `chunk_epoch` tells
     * this chunk's entries from older ones. */
    struct {
        const void* data;
        uint32_t size, index, epoch;
    } intern_cache[REPORT_INTERN_CACHE];
    uint32_t chunk_epoch;
    uint32_t serial; /* the stream's domain's string handle serial */
    /* Shapes of recent compact records (report_stream.c, put_event_again),
     * valid for this chunk; count 0: an empty slot. */
    report_shape shapes[REPORT_SHAPES];
    /* Full chunks handed to a compression thread (inactive: compressed on
     * the writer's thread). */
    offload_lane lane;
    /* Last plans looked up (the write path's few schemas), round robin. */
    struct {
        uint64_t schema_id;
        const payload_plan* plan;
    } plan_cache[8];
    unsigned plan_cache_next;
} report_stream;

/* Record primitives; each returns 0 or -1 when out of memory. */
static inline int rec_uvar(strbuf* buf, uint64_t value) {
    uint8_t bytes[VARINT_MAX_BYTES];
    if (buf->capacity - buf->length > VARINT_MAX_BYTES) {
        buf->length += varint_put((uint8_t*)buf->data + buf->length, value);
        buf->data[buf->length] = '\0';
        return 0;
    }
    return strbuf_append(buf, (const char*)bytes, varint_put(bytes, value));
}
static inline int rec_svar(strbuf* buf, int64_t value) {
    return rec_uvar(buf, varint_zigzag(value));
}
static inline int rec_u8(strbuf* buf, unsigned value) {
    char byte = (char)(uint8_t)value;
    return strbuf_append(buf, &byte, 1);
}
static inline int rec_bytes(strbuf* buf, const void* data, size_t size) {
    return rec_uvar(buf, size) || strbuf_append(buf, (const char*)data, size);
}
static inline int rec_str(strbuf* buf, const char* text) {
    const char* s = text ? text : "";
    size_t n = 0;
    while (s[n] != '\0')
        n++;
    return rec_bytes(buf, s, n);
}

/* Writes buffered registrations as one chunk (reg_mutex held or serialized
 * context). */
nvtxwResultCode_t report_flush_registrations(report_sink* rs);
/* Called by the write path before a stream chunk: flushes pending
 * registrations so no event chunk can reach the file before the schemas it
 * needs. Lock-free when nothing is pending. */
nvtxwResultCode_t report_sync_registrations(report_sink* rs);

/* Registration records: begin takes the mutex the write path's flush also
 * takes and writes the kind byte; finish ends the record (build_status 0) or
 * drops it, and releases the mutex. */
size_t report_reg_begin(report_sink* rs, unsigned kind);
/* The same for a record numbered by its order (domain, string of `domain`,
 * stream open) that gets `index`: the first of its kind in a chunk is
 * preceded by an index marker, so a reader that lost an earlier chunk
 * numbers it right (docs/report-records.md, "Index markers"). */
size_t report_reg_begin_at(report_sink* rs, unsigned kind, uint64_t domain, uint64_t index);
nvtxwResultCode_t report_reg_finish(report_sink* rs, int build_status, size_t start);

/* Registration callbacks (report_regs.c). */
nvtxwResultCode_t report_domain(sink* s, const core_domain* domain);
nvtxwResultCode_t report_category(sink* s, const core_domain* domain, uint32_t category,
                                  const char* name);
nvtxwResultCode_t report_string(sink* s, const core_domain* domain, uint64_t handle,
                                const char* text);
nvtxwResultCode_t report_resource(sink* s, const core_domain* domain,
                                  const core_resource* resource);
nvtxwResultCode_t report_scope(sink* s, const core_domain* domain, uint64_t id, uint64_t parent,
                               const char* path);
nvtxwResultCode_t report_schema(sink* s, const core_domain* domain, const nvtxw_schema_t* schema);
nvtxwResultCode_t report_enum(sink* s, const core_domain* domain, const nvtxw_enum_t* enumeration);
nvtxwResultCode_t report_counter(sink* s, const core_domain* domain, const core_counter* counter);
nvtxwResultCode_t report_time_domain(sink* s, const core_domain* domain,
                                     const nvtxTimeDomainAttr_t* attr);
/* Stream open/close records (the stream side calls these). */
nvtxwResultCode_t report_stream_record(report_sink* rs, const core_stream* stream, int open);

/* Plans (report_plan.c). */
nvtxwResultCode_t report_plan_schema(report_sink* rs, const core_domain* domain,
                                     const nvtxw_schema_t* schema);
const payload_plan* report_plan_find(const report_sink* rs, uint32_t domain_index,
                                     uint64_t schema_id);
void report_plans_free(report_sink* rs);

/* The chunk's bytes as stored (the lane table, then the lanes), appended
 * to `out` (report_stream.c). Returns 0 or -1 when out of memory. */
int report_chunk_assemble(const report_stream* st, strbuf* out);

/* Stream side (report_stream.c). */
nvtxwResultCode_t report_stream_open(sink* s, const core_stream* stream, void** state);
nvtxwResultCode_t report_stream_close(sink* s, const core_stream* stream, void* state);
nvtxwResultCode_t report_event_write(void* state, const core_event* event);
nvtxwResultCode_t report_counter_write(void* state, int64_t timestamp, const core_counter* counter,
                                       const void* data, size_t size);
nvtxwResultCode_t report_counter_no_value_write(void* state, int64_t timestamp,
                                                const core_counter* counter, uint8_t reason);
nvtxwResultCode_t report_sync_points_write(void* state, uint64_t src, uint64_t dst,
                                           const nvtxSyncPoint_t* points, size_t count);
nvtxwResultCode_t report_stream_flush(void* state);
nvtxwResultCode_t report_conversion_factor_write(void* state, uint64_t src, uint64_t dst,
                                                 double slope, int64_t ts_src, int64_t ts_dst);

#endif /* NVTXW_SINK_REPORT_INTERNAL_H */
