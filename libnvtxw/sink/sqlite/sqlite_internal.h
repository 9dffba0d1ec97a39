/*
 * sink/sqlite/sqlite_internal.h - state shared by the sqlite sink's files:
 * sqlite_sink.c (lifecycle, output file), sqlite_db.c (schema DDL,
 * prepared statements, the final pass), sqlite_flush.c (the batched
 * inserts) and
 * sqlite_regs.c (registrations, streams), sqlite_event.c (the
 * write path: event analysis) and sqlite_counter.c (counters, sync).
 *
 * Concurrency: one SQLite connection per session, opened with
 * SQLITE_OPEN_NOMUTEX and serialized by `lock`. Writers never touch it per
 * event: each stream fills its own batch of rows (sqlite_batch) and hands
 * the full batch to the sink's inserter thread (sqlite_flush.c), which
 * inserts it under the lock into the load's one transaction; so the
 * per-event path is lock-free, and a writer takes the queue's lock once per
 * several thousand rows. SQLite accepts one writer at a time anyway; the
 * thread keeps it busy while the streams fill the next batches.
 * Event IDs are reserved per stream in blocks from one atomic counter, so a
 * row has its final ID before it is inserted (push/pop pairing needs it).
 */
#ifndef NVTXW_SINK_SQLITE_INTERNAL_H
#define NVTXW_SINK_SQLITE_INTERNAL_H

#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "common/output_file.h"
#include "common/strbuf.h"
#include "core/sink.h"

/* Rows a stream buffers before it flushes, and event IDs it reserves. */
#define SQLITE_BATCH_ROWS 8192
/* Full batches handed to the inserter thread and not yet inserted, at most
 * (a stream that would exceed it waits): one inserted, one queued. */
#define SQLITE_BATCHES_IN_FLIGHT 2
#define SQLITE_ARENA_LIMIT (8u << 20) /* bytes of text/JSON before a flush */
#define SQLITE_ID_BLOCK 4096

/* events.event_type: the schema role of spec 3.4 (table event_types). */
enum {
    SQLITE_TYPE_EVENT = 0, /* no role */
    SQLITE_TYPE_COUNTER_GROUP = 1,
    SQLITE_TYPE_PUSHPOP = 2,
    SQLITE_TYPE_STARTEND = 3,
    SQLITE_TYPE_MARK = 4,
    SQLITE_TYPE_PUSH = 5,
    SQLITE_TYPE_POP = 6,
    SQLITE_TYPE_START = 7,
    SQLITE_TYPE_END = 8,
    SQLITE_TYPE_COUNT = 9
};

/* Prepared statements, indexes into sqlite_sink.stmts (SQL in sqlite_db.c). */
enum {
    SQ_EVENT,
    SQ_EVENT_END,
    SQ_SAMPLE,
    SQ_SYNC,
    SQ_DOMAIN,
    SQ_STRING,
    SQ_CATEGORY,
    SQ_RESOURCE,
    SQ_SCOPE,
    SQ_SCHEMA,
    SQ_SCHEMA_ENTRY,
    SQ_ENUM,
    SQ_ENUM_VALUE,
    SQ_COUNTER,
    SQ_TIME_DOMAIN,
    SQ_STREAM,
    SQ_DOMAIN_YAML,
    SQ_COUNTER_NAME_USED,
    SQ_COUNT
};

/* A buffered events row; text, payload bytes and JSON live in the
 * stream's arena (offsets, so the arena may grow). */
typedef struct sqlite_event_row {
    int64_t id, start, end;
    uint64_t range_id, text_id, scope_id;
    uint32_t category, color;
    size_t text, text_length;       /* text == SIZE_MAX: none */
    size_t payload, payload_length; /* the payload column (sqlite_event.c) */
    size_t json, json_length;       /* json_length == 0: NULL (PayloadJson=no) */
    unsigned char type, has_start, has_end, has_range_id;
} sqlite_event_row;

/* A buffered counter_samples row; data and JSON live in the arena. */
typedef struct sqlite_sample_row {
    uint64_t counter_id;
    int64_t timestamp;
    double value;
    size_t data, data_length, json, json_length;
    int has_value;
    int reason; /* CounterNoValueWrite reason, -1 for a sample */
} sqlite_sample_row;

/* A push already flushed whose pop came later: UPDATE events SET end. */
typedef struct sqlite_end_update {
    int64_t id, end;
} sqlite_end_update;

/* A batch of rows: what a stream buffers, then hands whole to the inserter
 * thread (sqlite_flush.c), which empties it and keeps it as a spare. Text,
 * payload bytes and JSON live in the arena (offsets, so it may grow). */
typedef struct sqlite_batch {
    sqlite_event_row* events;
    size_t event_count, event_capacity;
    sqlite_sample_row* samples;
    size_t sample_count, sample_capacity;
    sqlite_end_update* updates;
    size_t update_count, update_capacity;
    strbuf arena;
    int64_t domain_index, stream_index; /* of the stream that filled it */
    struct sqlite_batch* next;          /* in the queue or the spares */
} sqlite_batch;

/* An open push: its row is events[row] of the stream's batch while
 * generation is current. */
typedef struct sqlite_frame {
    int64_t id;
    size_t row;
    uint64_t generation;
} sqlite_frame;

/* The optional indexes (SqliteIndexes=, docs/sqlite-schema.md), built at
 * SessionEnd; events(range_id) is always built (the range pairing uses it). */
enum {
    SQLITE_INDEX_START = 1,   /* events(start) */
    SQLITE_INDEX_STREAM = 2,  /* events(stream_id, start) */
    SQLITE_INDEX_TEXT = 4,    /* events(text_id), partial */
    SQLITE_INDEX_COUNTER = 8, /* counter_samples(counter_id, timestamp) */
    SQLITE_INDEX_ALL = 15,
    SQLITE_INDEX_DEFAULT = SQLITE_INDEX_TEXT | SQLITE_INDEX_COUNTER
};

/* SqliteIndexes= of the config as SQLITE_INDEX_* bits into *out
 * (SQLITE_INDEX_DEFAULT without the key). sqlite_db.c. */
nvtxwResultCode_t sqlite_parse_indexes(const core_config* config, unsigned* out);

/* The inserter thread and its queue of full batches (sqlite_flush.c). */
typedef struct sqlite_inserter {
    pthread_t thread;
    int started, stopping;
    pthread_mutex_t lock;
    pthread_cond_t queued; /* a batch was queued, or stopping */
    pthread_cond_t done;   /* a batch was inserted */
    sqlite_batch *head, *tail, *spares;
    unsigned out;             /* batches queued or being inserted */
    nvtxwResultCode_t status; /* the first failed insert's */
    char message[1024];       /* NVTXW_ERROR_MAX */
} sqlite_inserter;

typedef struct sqlite_sink {
    sink base;
    sqlite3* db;
    pthread_mutex_t lock; /* serializes every use of db and stmts */
    sqlite_inserter inserter;
    sqlite3_stmt* stmts[SQ_COUNT];
    char* path;      /* final output path */
    output_file out; /* out.written: the database while it is written (common/output_file.h) */
    int committed;   /* out is the output: nothing to remove */
    _Atomic int64_t next_event_id;
    const core_domain** domains; /* registered domains (for the YAML dump) */
    size_t domain_count, domain_capacity;
    int payload_json; /* PayloadJson=yes: fill payload_json and value_json */
    unsigned indexes; /* SQLITE_INDEX_* bits: SqliteIndexes= */
} sqlite_sink;

typedef struct sqlite_stream {
    sqlite_sink* sink;
    const core_stream* stream;
    sqlite_batch* rows; /* the batch being filled; never NULL while open */
    sqlite_frame* stack;
    size_t depth, stack_capacity;
    uint64_t generation; /* flushes so far */
    int64_t next_id, id_limit;
} sqlite_stream;

/* sqlite_db.c */
/* Creates the tables, the event_types rows and prepares the statements. */
nvtxwResultCode_t sqlite_db_init(sqlite_sink* ss);
/* Pairs start/end halves, adds the indexes and finalizes the statements. */
nvtxwResultCode_t sqlite_db_finish(sqlite_sink* ss);
void sqlite_db_close(sqlite_sink* ss);
/* The error of a failed SQLite call, naming `what` and the database. */
nvtxwResultCode_t sqlite_db_error(sqlite_sink* ss, const char* what);
/* Steps and resets a bound statement, keeping its bindings (caller holds
 * the lock). */
nvtxwResultCode_t sqlite_db_run(sqlite_sink* ss, sqlite3_stmt* stmt, const char* what);
/* sqlite_db_run, then clears the bindings. */
nvtxwResultCode_t sqlite_db_step(sqlite_sink* ss, int which, const char* what);
/* Runs SQL text (caller holds the lock). */
nvtxwResultCode_t sqlite_db_exec(sqlite_sink* ss, const char* sql, const char* what);
/* Binds a text of `length` bytes, or NULL when text is NULL. */
int sqlite_bind_text(sqlite3_stmt* stmt, int column, const char* text, size_t length);
/* Binds a uint64 bit pattern as an INTEGER, or NULL when `present` is 0. */
int sqlite_bind_u64(sqlite3_stmt* stmt, int column, uint64_t value, int present);

/* sqlite_flush.c */
/* Starts the inserter thread. */
nvtxwResultCode_t sqlite_inserter_start(sqlite_sink* ss);
/* Waits until every queued batch is inserted; the first insert's error. */
nvtxwResultCode_t sqlite_inserter_drain(sqlite_sink* ss);
/* Stops the thread once it has taken what is queued, and frees the batches. */
void sqlite_inserter_stop(sqlite_sink* ss);
/* A new empty batch, or NULL when out of memory. */
sqlite_batch* sqlite_batch_new(void);
void sqlite_batch_free(sqlite_batch* batch);
/* Hands the stream's rows to the inserter thread and takes an empty batch;
 * the error of an earlier insert, if one failed. */
nvtxwResultCode_t sqlite_stream_flush(sqlite_stream* st);

/* sqlite_event.c: the write path. Flushes when a buffer is full. */
nvtxwResultCode_t sqlite_stream_flush_if_full(sqlite_stream* st);
nvtxwResultCode_t sqlite_event_write(void* state, const core_event* event);
/* sqlite_counter.c: counters and time synchronization. */
nvtxwResultCode_t sqlite_counter_write(void* state, int64_t timestamp, const core_counter* counter,
                                       const void* data, size_t size);
nvtxwResultCode_t sqlite_counter_no_value_write(void* state, int64_t timestamp,
                                                const core_counter* counter, uint8_t reason);
nvtxwResultCode_t sqlite_sync_points_write(void* state, uint64_t src, uint64_t dst,
                                           const nvtxSyncPoint_t* points, size_t count);
nvtxwResultCode_t sqlite_conversion_factor_write(void* state, uint64_t src, uint64_t dst,
                                                 double slope, int64_t ts_src, int64_t ts_dst);
/* sqlite_counter.c */
void sqlite_stream_free(sqlite_stream* st);

/* sqlite_regs.c: registrations (serialized calls; each takes the lock). */
nvtxwResultCode_t sqlite_domain_register(sink* s, const core_domain* domain);
nvtxwResultCode_t sqlite_category_register(sink* s, const core_domain* domain, uint32_t category,
                                           const char* name);
nvtxwResultCode_t sqlite_string_register(sink* s, const core_domain* domain, uint64_t handle,
                                         const char* text);
nvtxwResultCode_t sqlite_resource_register(sink* s, const core_domain* domain,
                                           const core_resource* resource);
nvtxwResultCode_t sqlite_scope_register(sink* s, const core_domain* domain, uint64_t scope_id,
                                        uint64_t parent, const char* path);
nvtxwResultCode_t sqlite_schema_register(sink* s, const core_domain* domain,
                                         const nvtxw_schema_t* schema);
nvtxwResultCode_t sqlite_enum_register(sink* s, const core_domain* domain,
                                       const nvtxw_enum_t* enumeration);
nvtxwResultCode_t sqlite_counter_register(sink* s, const core_domain* domain,
                                          const core_counter* counter);
nvtxwResultCode_t sqlite_time_domain_register(sink* s, const core_domain* domain,
                                              const nvtxTimeDomainAttr_t* attr);
nvtxwResultCode_t sqlite_stream_open(sink* s, const core_stream* stream, void** state);
nvtxwResultCode_t sqlite_stream_close(sink* s, const core_stream* stream, void* state);
/* Stores each domain's schemas and enums as YAML (at SessionEnd). */
nvtxwResultCode_t sqlite_domains_yaml(sqlite_sink* ss);

#endif /* NVTXW_SINK_SQLITE_INTERNAL_H */
