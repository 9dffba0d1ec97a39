/*
 * sink/perfetto/perfetto_internal.h - state shared by the Perfetto sink's
 * files (docs/perfetto.md; the file's layout is in perfetto_sink.c):
 *   perfetto_sink.c    session side: the output file, process and task
 *                      tracks, the ops table
 *   perfetto_stream.c  streams: their sequences, tracks, clock and packets
 *   perfetto_event.c   the write path: events and counters to TrackEvents
 *   perfetto_visit.c   the visitor that splits an event into attributes
 *                      and debug annotations
 *   perfetto_direct.c  the same for events of fixed-layout payloads, read
 *                      without the visitor
 *   perfetto_intern.c  a sequence's interning tables
 *   perfetto_pb.c/.h   the protobuf wire format
 */
#ifndef NVTXW_SINK_PERFETTO_INTERNAL_H
#define NVTXW_SINK_PERFETTO_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "common/idmap.h"
#include "common/output_file.h"
#include "common/pubmap.h"
#include "common/strbuf.h"
#include "core/sink.h"
#include "sink/shared/field_kind.h"
#include "sink/shared/offload.h"
#include "sink/shared/scope_process.h"
#include "sink/shared/time_map.h"

/* A stream's pending packets are written once they exceed this many bytes
 * (session packets too), or, with compression, the larger size: a zstd
 * frame each, handed to a compression thread. 256 KiB instead of 64 KiB
 * there cut the hand-overs 4x and the sink's CPU time by 0.07-0.12 s per
 * million records (nested, gpu: bench/README.md), for 1 % fewer bytes. */
#define PERFETTO_FLUSH_BYTES (64 * 1024)
#define PERFETTO_FRAME_BYTES (256 * 1024)
/* Strings one interning table holds before its sequence starts a new
 * incremental state (bounded memory for names that never repeat). */
#define PERFETTO_INTERN_LIMIT 16384
/* Containers that may be open inside one debug annotation (frames are
 * allocated as deep as events go: a stream costs little until then). */
#define PERFETTO_MAX_DEPTH 320
/* Slots of a stream's cache of iids by string address (a power of two). */
#define PERFETTO_STABLE_BITS 6
#define PERFETTO_STABLE_SLOTS (1u << PERFETTO_STABLE_BITS)
/* log2 of the slots of a stream's cache of top-level fields. */
#define PERFETTO_FIELD_BITS 6
/* log2 of the schema roles a stream keeps at hand. */
#define PERFETTO_ROLE_BITS 3
/* log2 of the schema plans a stream keeps at hand (perfetto_direct.c), the
 * most fields a plan has, the most payloads of an event encoded directly. */
#define PERFETTO_DIRECT_BITS 4
#define PERFETTO_DIRECT_FIELDS 32
#define PERFETTO_DIRECT_PAYLOADS 4
/* Slices a stream's own track keeps track of, open at once (deeper whole
 * ranges go to a lane), and ended slices it remembers (a power of two). */
#define PERFETTO_MAX_NEST 4096
#define PERFETTO_RECENT_SLICES 32
/* Overlapping whole start/end ranges of one group on one stream: lanes. */
#define PERFETTO_MAX_LANES 4096

/* Compression contexts a session keeps for reuse (more are made while
 * more streams flush at once, and freed after). */
#define PERFETTO_CONTEXTS 8

/* Sequence IDs: the session's packets (process and task tracks) are on
 * sequence 1, stream N's (N = open order from 0) on N + 2. */
#define PERFETTO_SESSION_SEQUENCE 1
/* The sequence-scoped incremental clock of every stream (clock IDs 64-127
 * are sequence-scoped) and the builtin clock it is mapped to, BOOTTIME,
 * the default clock of a trace. */
#define PERFETTO_CLOCK_INCREMENTAL 64
#define PERFETTO_CLOCK_BOOTTIME 6

/*
 * Track UUIDs: a kind in the low 3 bits, a number above it, so that the
 * UUIDs events carry are short varints. Tracks of one stream (counters,
 * lanes) number from (stream index + 1) << 24; split start/end ranges get
 * a track per range ID, a hash with the top bit set.
 */
enum {
    PERFETTO_TRACK_PROCESS = 1, /* n = the process number (scope_process.h) */
    PERFETTO_TRACK_STREAM = 2,  /* n = stream index + 1 */
    PERFETTO_TRACK_TASK = 3,    /* n = task number + 1 */
    PERFETTO_TRACK_COUNTER = 4, /* stream-local */
    PERFETTO_TRACK_LANE = 5     /* stream-local */
};
#define PERFETTO_UUID(n, kind) ((uint64_t)(n) << 3 | (uint64_t)(kind))
#define PERFETTO_LOCAL_TRACKS (UINT64_C(1) << 24)

/* The track of a task scope (docs/tasks.md): a track beside its process's
 * threads, named "task KEY". */
typedef struct perfetto_task {
    uint64_t uuid;
    uint64_t pid; /* its process */
} perfetto_task;

/* A TrackDescriptor to write (perfetto_put_track). */
enum {
    PERFETTO_DESC_TRACK,   /* a named track under `parent` */
    PERFETTO_DESC_ROOT,    /* uuid 0: processes and threads in rank order */
    PERFETTO_DESC_PROCESS, /* pid, process_name */
    PERFETTO_DESC_THREAD,  /* pid, tid, thread_name */
    PERFETTO_DESC_COUNTER  /* a counter track under `parent`, unit */
};

typedef struct perfetto_track_desc {
    int kind;
    uint64_t uuid, parent; /* parent 0: none */
    const char* name;      /* NULL: none */
    int has_rank;
    int32_t rank; /* sibling_order_rank */
    int no_merge; /* never merged with same-named siblings (the default merges them) */
    uint64_t pid, tid;
    const char* process_name;
    const char* thread_name;
    int unit;              /* CounterDescriptor.Unit, 0 = unspecified */
    const char* unit_name; /* NULL: none */
} perfetto_track_desc;

typedef struct perfetto_sink {
    sink base;
    int fd;          /* O_APPEND: each write(2) holds whole packets */
    char* path;      /* final name */
    output_file out; /* out.written: the file written (common/output_file.h) */
    char* session_name;
    /* Session-sequence packets (track descriptors of processes, streams and
     * tasks) wait in `line` until a stream writes packets, which may refer to
     * them, or 64 KiB are pending: one write(2) for many task tracks instead
     * of one each. Appended by serialized calls, written by any flush, under
     * line_lock; line_pending (set under the lock) lets a flush skip the
     * lock when nothing waits. */
    pthread_mutex_t line_lock;
    atomic_int line_pending;
    strbuf line;
    int session_process_named; /* process 1's track descriptor was written */
    scope_process_table processes;
    /* Task tracks: task_maps[domain index] is a pubmap from a task scope
     * ID to its perfetto_task, filled by scope registrations and read by
     * the write path without a lock (common/pubmap.h). */
    pubvec task_maps;
    uint64_t task_count;
    /* The session's time domain: the default of its first stream
     * (sink/shared/time_map.h); set by the first StreamOpen. */
    uint64_t time_domain;
    int time_domain_set;
    /* Compression= given (and not 0): each flush of a stream is one packet
     * of zstd_compressed_packets at this level; else packets as they are. */
    int compress, level;
    size_t flush_bytes; /* PERFETTO_FRAME_BYTES with compression, else PERFETTO_FLUSH_BYTES */
    /* Compression contexts not in use, taken and given back by flushes
     * without a lock (an exchange per slot); NULL = empty. */
    _Atomic(void*) contexts[PERFETTO_CONTEXTS];
    /* With compression, CompressionThreads= threads that compress and write
     * the streams' full buffers (sink/shared/offload.h); none: each stream
     * compresses on its writer's thread. */
    offload_pool compressors;
} perfetto_sink;

/* One interned string of a sequence. iid 0 = empty slot. */
typedef struct perfetto_intern_slot {
    uint64_t hash;
    uint64_t iid;
    size_t offset, length; /* of the text in the table's buffer */
} perfetto_intern_slot;

typedef struct perfetto_intern {
    perfetto_intern_slot* slots;
    size_t capacity; /* 0 or a power of two */
    size_t count;    /* iids given: 1 .. count */
    strbuf text;
} perfetto_intern;

/* The iid of `text` in `t`: 0 when it was there, 1 when it was added now
 * (the caller writes its InternedData entry), -1 out of memory. */
int perfetto_intern_find(perfetto_intern* t, const char* text, size_t length, uint64_t* iid);
void perfetto_intern_clear(perfetto_intern* t);
void perfetto_intern_free(perfetto_intern* t);

/* Lanes of a group of whole start/end ranges on one stream: a range takes
 * the first lane free at its begin, so ranges on one lane never overlap. */
typedef struct perfetto_lane_group {
    char* name;      /* the group's (and its tracks') name: the event's category, or "tasks" */
    uint64_t parent; /* its tracks' parent: the process's track, or the stream's */
    uint64_t* uuids;
    int64_t* busy_until; /* end of the last range of each lane */
    size_t count, capacity;
} perfetto_lane_group;

/* Counter tracks of one stream: a counter's (or a counter group event
 * name's) numeric field to its track. Open addressing on (key, field). */
typedef struct perfetto_counter_track {
    uint64_t key;   /* counter ID, or the hash of a counter group event's name */
    uint32_t field; /* index among the sample's numeric fields */
    int is_name;    /* key is a name hash */
    uint64_t uuid;  /* 0 = empty slot */
} perfetto_counter_track;

typedef struct perfetto_counter_map {
    perfetto_counter_track* slots;
    size_t capacity, count;
} perfetto_counter_map;

/* What the visitor learned about the current event (json sink's rules). */
typedef struct perfetto_event {
    int role; /* schema role (flags >> 3 & 0xF) of the first payload having one */
    const char* title;
    /* The message when it is a registered string (lives until the session
     * ends: interned by address), else NULL and the message is st->name. */
    const char* stable_message;
    int has_begin, has_end, has_point, has_message, has_range_id, has_category;
    int has_flow_out, has_flow_in;
    int64_t begin, end, point;
    uint64_t range_id, flow_out, flow_in, category;
    const perfetto_task* task;
} perfetto_event;

/* One open container of a debug annotation. */
typedef struct perfetto_frame {
    unsigned char is_array;
    unsigned char has_value; /* object: the open entry got its value */
    size_t element;          /* pb mark of the array element the container is, or SIZE_MAX */
    size_t entry;            /* object: pb mark of the open entry, or SIZE_MAX */
    uint32_t fields;         /* object: fields begun, for unnamed keys */
} perfetto_frame;

typedef struct perfetto_direct_plan perfetto_direct_plan;

typedef struct perfetto_stream {
    perfetto_sink* sink;
    const core_stream* stream;
    uint32_t sequence;
    uint64_t uuid;         /* the stream's track */
    uint64_t process_uuid; /* its process's track */
    int state_valid;       /* the sequence's incremental state is written */
    uint64_t clock;        /* clock 64's value (valid state only) */
    size_t packet;         /* pb mark of the packet being written in `out` */
    int64_t previous_ts;   /* last timestamp of an event: events without one use it */
    uint64_t next_local;   /* stream-local tracks made */
    uint64_t open_pushes;  /* split pushes not yet popped */
    uint64_t unmatched_pops;
    uint64_t negative_times;     /* timestamps below 0, written as 0 */
    uint64_t json_invalid;       /* JSON-text fields that were not JSON, written as strings */
    uint64_t closed_pushes;      /* pushes ended at StreamClose */
    uint64_t overlapping_ranges; /* whole push/pop ranges put on a lane */
    uint64_t direct_events;      /* events encoded by perfetto_direct.c ... */
    uint64_t walked_events;      /* ... and by the visitor */
    time_map times;              /* its time domains into the session's */
    strbuf out;                  /* pending packets */
    strbuf zout;                 /* the compressed packet of a flush (no compression thread) */
    offload_lane lane;           /* flushes on a compression thread (or not) */
    strbuf interned;             /* its InternedData's contents */
    strbuf args;                 /* the current event's debug annotations */
    strbuf name;                 /* the current event's message */
    perfetto_intern names, categories, keys;
    char category_number[24]; /* an unregistered category's number, as text */
    uint64_t generation;      /* incremental states written: a new one voids `stable` */
    /* iids of strings that live until the session ends (schema field names,
     * registered categories and strings), by address: no hashing of their
     * text on the write path. Direct-mapped; table = the perfetto_intern. */
    struct perfetto_stable_iid {
        const char* text;
        const perfetto_intern* table;
        uint64_t generation, iid;
    } stable[PERFETTO_STABLE_SLOTS];
    perfetto_counter_map counter_tracks; /* (counter, field) -> its track */
    perfetto_lane_group* groups;
    size_t group_count;
    /* The stream's own track (perfetto_event.c, "nesting"): its slices that
     * contain the latest begin, outermost first (split pushes not yet popped
     * have end INT64_MAX); the last slices written; the latest end of the
     * slices written before those. */
    struct perfetto_nest {
        int64_t begin, end;
    } * nest, recent[PERFETTO_RECENT_SLICES];
    size_t nest_count, nest_capacity, recent_count;
    int64_t nest_latest_begin, forgotten_end;
    /* What a registered top-level field is to the sink, by the address of
     * its field info (which lives with its schema): its kind, whether it
     * is a flow, and its name's iid in incremental state `generation`.
     * Direct-mapped; field NULL = an empty slot. */
    struct perfetto_field_slot {
        const nvtxw_field_info_t* field;
        uint64_t generation, key_iid; /* key_iid valid while generation is the stream's */
        int kind, flow;
    } fields[1u << PERFETTO_FIELD_BITS];
    struct perfetto_field_slot* field_slot; /* the open top-level field's, or NULL */
    /* Schema roles looked up last, direct-mapped by schema ID (role -1:
     * an empty slot). */
    struct perfetto_role {
        uint64_t schema_id;
        int role;
    } roles[1u << PERFETTO_ROLE_BITS];
    /* Plans of the schemas the stream writes, direct-mapped by schema ID
     * (perfetto_direct.c); NULL = an empty slot. */
    perfetto_direct_plan* direct[1u << PERFETTO_DIRECT_BITS];
    /* Visitor state for the current event. */
    perfetto_event ev;
    int numeric_only; /* counters: only scalar numbers */
    int field_kind;   /* enum sink_field_kind of the open top-level field */
    size_t top;       /* pb mark of the open top-level annotation, or SIZE_MAX */
    const char* field_name;
    uint64_t field_type;
    uint64_t field_time_domain;      /* of the open top-level field (NONE: the stream's) */
    int field_flow;                  /* the open top-level field is "flow_out" (1), "flow_in" (2) */
    const nvtxw_field_info_t* field; /* the open field, at any depth */
    uint32_t top_fields;             /* top-level fields of the current payload */
    uint64_t payload_schema;
    size_t depth;
    perfetto_frame* frames; /* frames[depth] is the innermost; grown on demand */
    size_t frame_capacity;
    /* Counter samples: numeric top-level fields, in order. */
    struct perfetto_sample {
        const char* name; /* field name, borrowed for the call */
        int is_double;
        int64_t i;
        double d;
    } samples[16];
    size_t sample_count;
} perfetto_stream;

/* Stores integer `value` of a top-level field of `kind` (enum
 * sink_field_kind; timestamps of `time_domain`, NONE = the stream's) as an
 * attribute of st->ev: 1 when the kind is an attribute (a color is
 * dropped: TrackEvent has none), 0 when it is not. Inline: both encoders
 * (perfetto_visit.c, perfetto_direct.c) call it for every integer field. */
static inline int perfetto_store_attribute(perfetto_stream* st, int kind, uint64_t time_domain,
                                           uint64_t value) {
    perfetto_event* ev = &st->ev;
    switch (kind) {
    case SINK_FIELD_BEGIN:
        ev->has_begin = 1, ev->begin = time_map_convert(&st->times, time_domain, (int64_t)value);
        return 1;
    case SINK_FIELD_END:
        ev->has_end = 1, ev->end = time_map_convert(&st->times, time_domain, (int64_t)value);
        return 1;
    case SINK_FIELD_POINT:
        ev->has_point = 1, ev->point = time_map_convert(&st->times, time_domain, (int64_t)value);
        return 1;
    case SINK_FIELD_RANGE_ID:
        ev->has_range_id = 1, ev->range_id = value;
        return 1;
    case SINK_FIELD_CATEGORY:
        ev->has_category = 1, ev->category = value;
        return 1;
    case SINK_FIELD_COLOR:
        return 1; /* TrackEvent has no color */
    default:
        return 0;
    }
}

/* ---- perfetto_sink.c ---- */
nvtxwResultCode_t perfetto_write_all(perfetto_sink* ps, const char* data, size_t size);
/* Writes the session packets waiting in ps->line: before a stream's packets,
 * which may refer to them. Any thread. */
nvtxwResultCode_t perfetto_session_packets_flush(perfetto_sink* ps);
/* Appends a TrackDescriptor packet on `sequence` to `out`. 0 or -1. */
int perfetto_put_track(strbuf* out, uint32_t sequence, const perfetto_track_desc* d);
/* Queues a TrackDescriptor packet on the session's sequence (ps->line):
 * serialized calls only. */
nvtxwResultCode_t perfetto_put_session_track(perfetto_sink* ps, const perfetto_track_desc* d);
/* The process of `stream` (described on first use) and whether the stream
 * is one of its threads (else a track under it): serialized calls only. */
nvtxwResultCode_t perfetto_stream_process(perfetto_sink* ps, const core_stream* stream,
                                          uint64_t* pid, int* is_thread);
/* The track of task scope `id` of `domain`, or NULL. Lock-free. */
const perfetto_task* perfetto_task_find(const perfetto_sink* ps, const core_domain* domain,
                                        uint64_t id);

/* Writes `size` bytes of packets: as they are, or compressed into one
 * packet (zstd_compressed_packets) with Compression=, through `scratch`.
 * Any thread, no lock. */
nvtxwResultCode_t perfetto_write_packets(perfetto_sink* ps, const char* data, size_t size,
                                         strbuf* scratch);

/* ---- perfetto_stream.c ---- */
nvtxwResultCode_t perfetto_stream_open(sink* s, const core_stream* stream, void** state);
nvtxwResultCode_t perfetto_stream_close(sink* s, const core_stream* stream, void* state);
/* Before an event (before its visit, which interns argument names): the
 * sequence's incremental state, written when it has none or when an
 * interning table is full. 0 or -1. */
int perfetto_stream_prepare(perfetto_stream* st);
/* Starts a packet of the stream at `ts` (in the stream's clock): the
 * timestamp as a delta of the incremental clock, or absolute when it goes
 * back. The caller adds the packet's data and ends it with
 * perfetto_packet_end. */
int perfetto_packet_begin(perfetto_stream* st, int64_t ts);
/* Ends the packet: adds the InternedData collected since the last packet
 * ended (the event's argument names, then the packet's own strings), wraps
 * it as a Trace field and appends it to the pending packets. */
int perfetto_packet_end(perfetto_stream* st);
/* Writes pending packets when they exceed the sink's flush_bytes (all of
 * them when the stream `closing`): through its compression thread, or
 * itself when there is none, or when closing and the thread has nothing
 * of the stream left to do. */
nvtxwResultCode_t perfetto_stream_flush(perfetto_stream* st, int closing);
/* The iid of a string of `table` in the stream's sequence, its
 * InternedData entry (field `number` of InternedData) added to the packet
 * when new. 0 or -1. */
int perfetto_stream_intern(perfetto_stream* st, perfetto_intern* table, uint32_t number,
                           const char* text, size_t length, uint64_t* iid);
/* perfetto_stream_intern for a NUL-terminated string that lives, unchanged,
 * until the session ends: found by its address when seen before. */
int perfetto_stream_intern_stable(perfetto_stream* st, perfetto_intern* table, uint32_t number,
                                  const char* text, uint64_t* iid);
/* A stream-local track UUID of `kind`; 0 when the stream has made them all. */
uint64_t perfetto_stream_local_uuid(perfetto_stream* st, unsigned kind);

/* ---- perfetto_event.c ---- */
nvtxwResultCode_t perfetto_event_write(void* state, const core_event* event);
nvtxwResultCode_t perfetto_counter_write(void* state, int64_t timestamp,
                                         const core_counter* counter, const void* data,
                                         size_t size);
nvtxwResultCode_t perfetto_counter_no_value_write(void* state, int64_t timestamp,
                                                  const core_counter* counter, uint8_t reason);
nvtxwResultCode_t perfetto_sync_points_write(void* state, uint64_t src, uint64_t dst,
                                             const nvtxSyncPoint_t* points, size_t count);
nvtxwResultCode_t perfetto_conversion_factor_write(void* state, uint64_t src, uint64_t dst,
                                                   double slope, int64_t ts_src, int64_t ts_dst);
/* Ends the pushes still open when the stream closes, at its last time. */
int perfetto_close_pushes(perfetto_stream* st);

/* ---- perfetto_direct.c ---- */
/* Fills st->ev and st->args from `event` as the visitor would when every
 * payload has a fixed layout this file encodes (after perfetto_visit_reset):
 * 1 = done, 0 = not such an event (nothing was written: take the
 * visitor), -1 = out of memory. */
int perfetto_direct_event(perfetto_stream* st, const core_event* event);
/* Frees the stream's plans. */
void perfetto_direct_free(perfetto_stream* st);

/* ---- perfetto_visit.c ---- */
extern const nvtxw_visitor_t perfetto_visitor;
void perfetto_visit_reset(perfetto_stream* st, int numeric_only);

/*
 * The value of a JSON-text field (common/json_value.h) into the open
 * debug annotation `args` ends with: scalars as bool_value, int_value,
 * uint_value, double_value, string_value, null as legacy_json_value "null"
 * (as the visitor writes a missing value), objects as dict_entries named by
 * their keys, arrays as array_values (perfetto_json.c). 0 when written; 1
 * when the text is not one JSON value (`args` as it was: write the string);
 * -1 when out of memory.
 */
int perfetto_put_json(strbuf* args, const char* text, size_t length);

#endif /* NVTXW_SINK_PERFETTO_INTERNAL_H */
