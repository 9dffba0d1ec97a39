/*
 * sink/json/json_internal.h - state shared by the Chrome/Perfetto JSON
 * sink's files (output grammar in json_sink.c):
 *   json_sink.c    session side: output file, metadata, ops table
 *   json_stream.c  streams and the write path (events, counters)
 *   json_visit.c   the visitor that splits an event into attributes
 *                  (role, timestamps, message, range ID, category,
 *                  color) and "args"
 *   json_encode.c  JSON text (json_put_*): strings, exact microseconds,
 *                  numbers, cname table, the open-range map
 *   json_cache.c   per-stream caches of what events repeat: escaped
 *                  registry strings, schema roles, JSON-text values
 *   json_shift.c   the pass that makes every "ts" non-negative
 *   json_task.c    task scopes: their rows (pseudo-threads)
 */
#ifndef NVTXW_SINK_JSON_INTERNAL_H
#define NVTXW_SINK_JSON_INTERNAL_H

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

/* A stream's pending events are written once they exceed this many bytes. */
#define CHROME_FLUSH_BYTES (64 * 1024)
/* Containers that may be open inside one "args" value (the visitor's own
 * limit is lower: 32 schema levels times 9 dimensions). */
#define CHROME_MAX_DEPTH 320

/* The row of a task scope (a scope whose path's last node is `task[KEY]`,
 * docs/tasks.md): a pseudo-thread of the process of the task's parent. */
typedef struct json_task {
    uint64_t pid, tid;
} json_task;

/* Task rows have tids from here on (stream tids are open order + 1), in
 * registration order; their thread_sort_index is the tid, so they sort
 * after the streams. Below 2^53, so exact in every JSON reader. */
#define CHROME_TASK_TID_BASE (UINT64_C(1) << 32)

typedef struct json_sink {
    sink base;
    int fd; /* O_APPEND: each write(2) holds whole events */
    /* The writer thread (json_write): at most one, so that the file holds
     * what was handed over in the order it was (sink/shared/offload.h runs
     * one thread's jobs first in, first out); none when the config asks
     * for no threads or the system refuses one: then each call writes. */
    offload_pool writer;
    /* The one lane of every write, metadata and all streams': its buffers
     * in flight (two, plus one per thread handing over at that moment) are
     * the sink's, not each stream's, so memory does not grow with the
     * number of streams. Submissions from several threads are safe (the
     * lane's state is under the worker's lock, sink/shared/offload.c). */
    offload_lane lane;
    char* path;      /* final name */
    output_file out; /* out.written: the file written (common/output_file.h) */
    char* session_name;
    strbuf line; /* metadata events (serialized calls only) */
    /* The last bytes of closed streams, gathered until they fill a buffer
     * (StreamClose and SessionEnd are serialized calls): handing each
     * closing stream's few hundred bytes over alone cost a wake-up of the
     * writer thread per stream (100,000 one-event threads: 6.1 s). */
    strbuf closed_tail;
    int element_written;           /* the array has its first element (serialized calls) */
    int session_process_named;     /* pid 1's process_name was written */
    scope_process_table processes; /* pid P >= 2: scope paths (sink/shared/) */
    _Atomic int64_t base_ns;       /* CHROME_BASE_UNSET until the first timestamp */
    int64_t min_rel;               /* smallest rebased ts of closed streams (INT64_MAX: none) */
    /* TimestampBase= (docs/chrome-json.md, Time): the session's smallest
     * timestamp as the producer knows it, taken as the base by the first
     * timestamp unless far from it; has_base_hint 0 without the key. */
    int has_base_hint;
    int64_t base_hint;
    /* Task rows: task_maps[domain index] is a pubmap from a task scope ID
     * to its json_task (both owned). Filled by scope registrations (under
     * the core's registration mutex), read without a lock by the write
     * path while registrations go on (common/pubmap.h). */
    pubvec task_maps;
    uint64_t task_count;
    /* The session's time domain: the default of its first stream
     * (sink/shared/time_map.h); set by the first StreamOpen. */
    uint64_t time_domain;
    int time_domain_set;
} json_sink;

#define CHROME_BASE_UNSET INT64_MIN

/* Start/end ranges open on one stream: range ID -> name and category. */
typedef struct json_range {
    uint64_t id;
    char* label; /* "name\0cat\0"; NULL = empty slot */
} json_range;

typedef struct json_range_map {
    json_range* slots;
    size_t capacity; /* 0 or a power of two */
    size_t count;
} json_range_map;

/* What the visitor learned about the current event. */
typedef struct json_event {
    int role;          /* schema role (flags >> 3 & 0xF) of the first payload having one */
    const char* title; /* first non-empty schema name, for events without a message */
    int has_begin, has_end, has_point, has_message, has_range_id, has_category, has_color;
    int has_flow_out, has_flow_in; /* top-level integer fields "flow_out" / "flow_in" */
    int64_t begin, end, point;
    uint64_t range_id, flow_out, flow_in;
    uint64_t category;
    uint32_t color;
    const json_task* task; /* first top-level scope_id field naming a task scope */
} json_event;

/* Per-stream caches (json_cache.c), direct-mapped, allocated once a stream
 * has made CHROME_CACHE_AFTER lookups: a trace of many threads with a few
 * events each does not pay 19 KiB per stream for them. */
#define CHROME_CACHE_AFTER 64
#define CHROME_TEXT_CACHE_BITS 8
#define CHROME_ROLE_CACHE_BITS 3
#define CHROME_VALUE_CACHE_BITS 4

/* A registry-owned string and its JSON string (quotes included). */
typedef struct json_text_slot {
    const char* text; /* NULL: empty */
    char escaped[55]; /* copied whole (a constant size copies fastest) */
    unsigned char length;
} json_text_slot;

typedef struct json_role_slot {
    uint64_t schema_id;
    int known, role;
} json_role_slot;

/* The last valid, compact JSON-text value of a field. */
typedef struct json_value_slot {
    const nvtxw_field_info_t* field; /* NULL: empty */
    size_t length;
    char text[112];
} json_value_slot;

typedef struct json_caches {
    json_text_slot texts[1u << CHROME_TEXT_CACHE_BITS];
    json_role_slot roles[1u << CHROME_ROLE_CACHE_BITS];
    json_value_slot values[1u << CHROME_VALUE_CACHE_BITS];
} json_caches;

/* One open container of an "args" value. */
typedef struct json_frame {
    unsigned char is_array;
    unsigned char has_value; /* object: the open field got its value */
    uint32_t items;          /* values (array) or fields (object) written */
    uint32_t fields;         /* object: field_begin events, for unnamed keys */
} json_frame;

typedef struct json_stream {
    json_sink* sink;
    const core_stream* stream;
    uint64_t pid, tid;
    /* ',"id":"STREAM NAME"' on its counter samples: viewers key a process's
     * counter series by name and id, so a counter written from several
     * streams of one process stays one series per stream (whatever the
     * order the streams were opened in). */
    char* counter_series;
    int64_t last_ns;       /* last timestamp written: events without one use it */
    int64_t min_rel;       /* smallest rebased ts written (INT64_MAX: none) */
    uint64_t saturated;    /* times and durations out of int64 nanoseconds, written as its limit */
    uint64_t json_invalid; /* JSON-text fields that were not JSON, written as strings */
    uint64_t next_id;      /* synthetic async IDs of whole start/end ranges */
    strbuf out;            /* pending whole events, each starting with ",\n" */
    strbuf args;           /* the current event's "args" members */
    strbuf name;           /* the current event's message */
    strbuf stack;          /* split push/pop: names, each NUL-terminated */
    size_t* stack_ends;    /* end offset of each pushed name in `stack` */
    size_t stack_depth, stack_capacity;
    json_range_map ranges;
    /* The current event's category as event_category gave it, and whether
     * that text is registry-owned (json_put_stable may keep it). */
    const char* event_cat;
    int event_cat_stable;
    json_caches* caches; /* NULL: not yet (or out of memory: lookups go uncached) */
    uint32_t uncached;   /* lookups made without caches */
    /* Visitor state for the current event. */
    json_event ev;
    int numeric_only;                /* counters: only scalar numbers become args */
    int field_kind;                  /* enum sink_field_kind of the open top-level field */
    int field_flow;                  /* its enum sink_field_flow */
    const nvtxw_field_info_t* field; /* the open field, at any depth */
    int key_written;                 /* the open top-level field's key is in `args` */
    const char* field_name;
    uint64_t field_type;        /* entry type of the open top-level field */
    uint64_t field_time_domain; /* ... and its time domain (NONE: the stream's) */
    time_map times;             /* the stream's time domains into the session's */
    uint64_t payload_schema;
    size_t depth; /* open containers; frames[0] is "args" itself */
    json_frame frames[CHROME_MAX_DEPTH + 1];
} json_stream;

/* ---- json_sink.c ---- */
nvtxwResultCode_t json_write_all(json_sink* cs, const char* data, size_t size);
/* Writes whole elements: on the writer thread when the sink has one (a
 * copy is handed over; an error of that write surfaces at a later call's
 * json_write or at SessionEnd), else at once. */
nvtxwResultCode_t json_write(json_sink* cs, const char* data, size_t size);
/* A closing stream's last bytes: gathered in closed_tail, written once it
 * holds CHROME_FLUSH_BYTES (or at SessionEnd); larger ones go at once.
 * Serialized calls only. */
nvtxwResultCode_t json_write_closing(json_sink* cs, const char* data, size_t size);
/* pid of the stream's scope: 1 for none, else one per distinct scope path,
 * announced with process_name/process_sort_index metadata on first use. */
nvtxwResultCode_t json_process_id(json_sink* cs, const core_stream* stream, uint64_t* pid);

/* pid of a scope of `domain` (NVTX_SCOPE_NONE, ROOT and predefined scopes:
 * 1), announced like json_process_id's. */
nvtxwResultCode_t json_scope_process_id(json_sink* cs, const core_domain* domain, uint64_t scope_id,
                                        uint64_t* pid);

/* Writes a task row's thread_name (`name`, with the scope's `path` and ID as
 * "task_path" and "task_scope", so a reader of the JSON can fold the row back
 * into its task: docs/chrome-json.md "Tasks") and thread_sort_index (its tid). */
nvtxwResultCode_t json_task_meta(json_sink* cs, const json_task* task, const char* name,
                                 const char* path, uint64_t scope_id);

/* Appends `,\n{"name":WHAT,"ph":"M","pid":P,"tid":T,"args":{...}}` with
 * {"name":TEXT} when text is not NULL, else {"sort_index":SORT}. */
int json_put_meta(strbuf* out, const char* what, uint64_t pid, uint64_t tid, const char* text,
                  uint64_t sort);

/* ---- json_shift.c ---- */
/* Adds `shift` (> 0) to every "ts" of the closed temporary file. */
nvtxwResultCode_t json_shift_file(json_sink* cs, int64_t shift);

/* ---- json_task.c ---- */
/* A scope registration: when the path's last node is `task[KEY]`, the task
 * gets its row, announced with thread_name "task KEY" (KEY unescaped) and
 * thread_sort_index metadata. Serialized calls only. */
nvtxwResultCode_t json_task_register(json_sink* cs, const core_domain* domain, uint64_t id,
                                     uint64_t parent, const char* path);
/* The row of task scope `id` of `domain`, or NULL (not a task scope). */
const json_task* json_task_find(const json_sink* cs, const core_domain* domain, uint64_t id);
void json_tasks_free(json_sink* cs);

/* ---- json_stream.c ---- */
nvtxwResultCode_t json_stream_open(sink* s, const core_stream* stream, void** state);
nvtxwResultCode_t json_stream_close(sink* s, const core_stream* stream, void* state);
nvtxwResultCode_t json_event_write(void* state, const core_event* event);
nvtxwResultCode_t json_counter_write(void* state, int64_t timestamp, const core_counter* counter,
                                     const void* data, size_t size);
nvtxwResultCode_t json_counter_no_value_write(void* state, int64_t timestamp,
                                              const core_counter* counter, uint8_t reason);
nvtxwResultCode_t json_sync_points_write(void* state, uint64_t src, uint64_t dst,
                                         const nvtxSyncPoint_t* points, size_t count);
nvtxwResultCode_t json_conversion_factor_write(void* state, uint64_t src, uint64_t dst,
                                               double slope, int64_t ts_src, int64_t ts_dst);

/* ---- json_visit.c ---- */
extern const nvtxw_visitor_t json_visitor;
/* Clears the per-event visitor state; `numeric_only` for counter samples. */
void json_visit_reset(json_stream* st, int numeric_only);

/* ---- json_cache.c ---- */
/* Appends `text` as json_put_cstring does; `text` must stay unchanged at
 * its address until the session ends (a registered name, a domain name, a
 * schema's field name, a literal). 0, or -1 when out of memory. */
int json_put_stable(json_stream* st, strbuf* out, const char* text);
/* Frees the stream's caches (at its close). */
void json_caches_free(json_stream* st);
/* The role (schema flags >> 3 & 0xF) of a registered schema of the
 * stream's domain, or -1 when there is none. */
int json_schema_role(json_stream* st, uint64_t schema_id);
/* json_value_append into st->args for a JSON-text `field`: 0 written, 1
 * not JSON (nothing written), -1 out of memory. */
int json_put_value(json_stream* st, const nvtxw_field_info_t* field, const char* text,
                   size_t length);

/* ---- json_encode.c (each returns 0, or -1 when out of memory) ---- */
/* A JSON string: escapes '"', '\\', control characters; bytes that start no
 * well-formed UTF-8 sequence become \ufffd. */
int json_put_string(strbuf* out, const char* text, size_t length);
int json_put_cstring(strbuf* out, const char* text);
int json_put_u64(strbuf* out, uint64_t value);
int json_put_i64(strbuf* out, int64_t value);
/* The json_format_* write a number at `at`, which has room for
 * JSON_NUMBER_MAX bytes, and return its end (no terminator): for writers
 * that reserve once for several members. */
#define JSON_NUMBER_MAX 24
char* json_format_u64(char* at, uint64_t value);
char* json_format_i64(char* at, int64_t value);
/* Nanoseconds as json_put_micros writes them. */
char* json_format_micros(char* at, int64_t ns);
/* Finite: shortest %.Ng that reads back equal; else "nan"/"inf"/"-inf" strings. */
int json_put_double(strbuf* out, double value);
/* Nanoseconds as microseconds with exactly 3 decimals: -12.345, 0.000. */
int json_put_micros(strbuf* out, int64_t ns);
/* "0x" lowercase hex, as a JSON string. */
int json_put_hex_id(strbuf* out, uint64_t value);
char* json_format_hex_id(char* at, uint64_t value);
/* Reserved trace-viewer color name nearest to an ARGB color (alpha ignored). */
const char* json_cname(uint32_t argb);
/* Timestamp minus base, saturated to the int64 range (a difference
 * outside it needs a session spanning more than 2^63 ns) ... */
int64_t json_rebase(int64_t ts, int64_t base);
/* ... counting each saturated difference in *saturated. */
int64_t json_rebase_counted(int64_t ts, int64_t base, uint64_t* saturated);

int json_ranges_put(json_range_map* map, uint64_t id, const char* name, const char* cat);
/* Removes the range and returns its label (caller frees), or NULL. */
char* json_ranges_take(json_range_map* map, uint64_t id);
void json_ranges_free(json_range_map* map);

#endif /* NVTXW_SINK_JSON_INTERNAL_H */
