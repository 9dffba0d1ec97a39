/*
 * nvtxw/reader.h - reading reports (.nvtxw) back: the registrations and the
 * stream records of a session, rebuilt in memory, and a replay of them
 * through any NVTXW function table.
 *
 * The file layout is docs/report-format.md (container) and
 * docs/report-records.md (records). A report whose writer crashed is read up
 * to the damage and past it where chunks are intact; every damaged range is
 * listed (nvtxw_reader_damage).
 *
 * Ownership: a record returned by nvtxw_reader_next, and everything it points
 * to (names, payloads, sample bytes, which are aligned for any type), is
 * borrowed from the reader and lives
 * until the next nvtxw_reader_next, nvtxw_reader_seek_stream or
 * nvtxw_reader_close. Schemas, enums, registries and registered strings live
 * until nvtxw_reader_close. Inputs are copied.
 *
 * Threading: a reader is used by one thread at a time; several readers may
 * read the same file.
 *
 * Errors: functions return NVTXW_RESULT_* codes; nvtxw_last_error() holds
 * the message.
 */
#ifndef NVTXW_READER_H
#define NVTXW_READER_H

#include <stddef.h>
#include <stdint.h>

#include "nvtxw/abi.h"
#include "nvtxw/export.h"
#include "nvtxw/payload.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nvtxw_reader nvtxw_reader_t;

/* Order of stream records. Registrations always come first, in log order. */
typedef enum nvtxw_reader_order {
    /* Each stream's records in write order, streams by index. */
    NVTXW_READER_ORDER_STREAM = 0,
    /* Merged across streams by timestamp; ties by stream index, then write
     * order. Records without a timestamp take their stream's current time
     * (the last timestamp before them), so they keep their place. Memory:
     * one decoded chunk per stream, and up to 4 KiB per stream of records
     * decoded ahead. */
    NVTXW_READER_ORDER_TIME = 1
} nvtxw_reader_order_t;

/* Ignore the footer index and scan every chunk (nvtxw_reader_options_t.flags). */
#define NVTXW_READER_SCAN (1u << 0)

typedef struct nvtxw_reader_options {
    size_t struct_size; /* sizeof(nvtxw_reader_options_t) */
    int order;          /* nvtxw_reader_order_t; default STREAM */
    uint32_t flags;     /* NVTXW_READER_* */
} nvtxw_reader_options_t;

/* Record kinds; the values are the record kinds of docs/report-records.md. */
typedef enum nvtxw_record_kind {
    NVTXW_RECORD_SESSION = 0x01,
    NVTXW_RECORD_DOMAIN = 0x02,
    NVTXW_RECORD_CATEGORY = 0x03,
    NVTXW_RECORD_STRING = 0x04,
    NVTXW_RECORD_RESOURCE = 0x05,
    NVTXW_RECORD_SCOPE = 0x06,
    NVTXW_RECORD_SCHEMA = 0x07,
    NVTXW_RECORD_ENUM = 0x08,
    NVTXW_RECORD_COUNTER = 0x09,
    NVTXW_RECORD_TIME_DOMAIN = 0x0A,
    NVTXW_RECORD_STREAM_OPEN = 0x0B,
    NVTXW_RECORD_STREAM_CLOSE = 0x0C,
    NVTXW_RECORD_EVENT = 0x20,
    NVTXW_RECORD_COUNTER_SAMPLE = 0x21,
    NVTXW_RECORD_COUNTER_NO_VALUE = 0x22,
    NVTXW_RECORD_SYNC_POINTS = 0x23,
    NVTXW_RECORD_CONVERSION_FACTOR = 0x24
} nvtxw_record_kind_t;

/* "no stream" / "no domain" in nvtxw_record_t. */
#define NVTXW_READER_NONE UINT64_MAX

/*
 * One record. Which member of `u` is valid follows from `kind`. Strings are
 * NUL-terminated UTF-8 (a name that was NULL at registration reads "").
 * struct_size = sizeof(nvtxw_record_t) of the library; members are only
 * appended.
 */
typedef struct nvtxw_record {
    size_t struct_size;
    nvtxw_record_kind_t kind;
    uint64_t stream; /* stream index; NVTXW_READER_NONE for most registrations */
    uint64_t domain; /* domain index; NVTXW_READER_NONE for the session record */
    int has_timestamp;
    int64_t timestamp;
    union {
        struct {
            const char* name;
            const char* config; /* as given to SessionBegin ("" if NULL) */
            uint8_t pointer_size, long_size, wchar_size, long_double_size;
            uint8_t byte_order; /* 1 = little-endian */
        } session;
        struct {
            const char* name; /* "" = the default domain */
        } domain;
        struct {
            uint32_t id;
            const char* name;
        } category;
        struct {
            uint64_t index; /* in its domain, from 0 */
            const char* text;
        } string;
        struct {
            int32_t identifier_type;
            uint64_t identifier;
            int32_t message_type; /* NVTXW_MESSAGE_* */
            const char* message;
            uint64_t message_string; /* registered string index + 1; 0 = none */
        } resource;
        struct {
            uint64_t id;
            uint64_t parent;
            const char* path;
        } scope;
        struct {
            const nvtxw_schema_t* schema; /* in nvtxw_reader_registry(domain) */
        } schema;
        struct {
            const nvtxw_enum_t* enumeration; /* in nvtxw_reader_registry(domain) */
        } enumeration;
        struct {
            /* counterId is the assigned ID; semantics rebuilt (counter units
             * included). Pointers borrowed like the record. */
            nvtxCounterAttr_t attr;
        } counter;
        struct {
            nvtxTimeDomainAttr_t attr; /* timeDomainId is the assigned ID */
        } time_domain;
        struct {
            const char* name;
            uint64_t scope_id;
            uint64_t time_domain_id;
            int16_t order_interleaving;
            int16_t ordering_type;
            int32_t ordering_skid;
            int64_t ordering_skid_amount;
        } stream_open;
        struct {
            /* Rebuilt payloads: timestamp-relative slots restored, interned
             * strings expanded. origins is NULL unless the event was stored
             * with payload addresses (then pass it as payload_origins, as
             * nvtxw_reader_visit_event does). */
            const nvtxPayloadData_t* payloads;
            size_t count;
            const uint64_t* origins;
            int has_scope;
            uint64_t scope; /* batch default scope when has_scope */
        } event;
        struct {
            uint64_t counter_id;
            const void* data;
            size_t size;
        } counter_sample;
        struct {
            uint64_t counter_id;
            uint8_t reason; /* NVTX_COUNTER_SAMPLE_* */
        } counter_no_value;
        struct {
            uint64_t src_domain;
            uint64_t dst_domain;
            const nvtxSyncPoint_t* points;
            size_t count;
        } sync_points;
        struct {
            uint64_t src_domain;
            uint64_t dst_domain;
            double slope;
            int64_t timestamp_src;
            int64_t timestamp_dst;
        } conversion_factor;
    } u;
} nvtxw_record_t;

/*
 * Opens a report. opts may be NULL (stream order, index used). Fails when
 * the file cannot be read, is not a report, has a newer major version, was
 * written on another ABI (pointer, long, wchar_t, long double sizes or byte
 * order differ from this platform's: the payload bytes would be misread), or
 * has no readable session record (the message then names the offset and
 * reason of the first damage). Reads the whole registration log and
 * rebuilds the per-domain schema registries before returning. Damage does
 * not fail the call: see nvtxw_reader_damage. A damaged registration chunk
 * costs the registrations it held: strings of it read as NULL
 * (nvtxw_reader_string), later ones keep their numbers, and event chunks
 * of a stream whose stream-open record it held are damage.
 */
NVTXW_API nvtxwResultCode_t nvtxw_reader_open(const char* path, const nvtxw_reader_options_t* opts,
                                              nvtxw_reader_t** out);
/* Accepts NULL. */
NVTXW_API void nvtxw_reader_close(nvtxw_reader_t* reader);

/*
 * The next record: registrations first (log order), then stream records in
 * the chosen order. *out is NULL at the end (result SUCCESS). Malformed
 * records are not errors: the rest of their chunk is skipped and listed as
 * damage. Errors are out of memory and I/O failures.
 */
NVTXW_API nvtxwResultCode_t nvtxw_reader_next(nvtxw_reader_t* reader, const nvtxw_record_t** out);

/* Number of streams (stream-open records). */
NVTXW_API size_t nvtxw_reader_stream_count(const nvtxw_reader_t* reader);
/* Number of domains (domain records). */
NVTXW_API size_t nvtxw_reader_domain_count(const nvtxw_reader_t* reader);
/* The name stream `stream` (0 .. stream_count - 1) was opened with, known
 * from nvtxw_reader_open on, valid until close; NULL when out of range. */
NVTXW_API const char* nvtxw_reader_stream_name(const nvtxw_reader_t* reader, uint64_t stream);
/* The name of domain `domain` ("" for the default domain); NULL when out of
 * range. */
NVTXW_API const char* nvtxw_reader_domain_name(const nvtxw_reader_t* reader, uint64_t domain);

/*
 * Restricts the following nvtxw_reader_next calls to the records of one
 * stream, from its first record (registrations are not repeated).
 * INVALID_ARGUMENT when `stream` is out of range.
 */
NVTXW_API nvtxwResultCode_t nvtxw_reader_seek_stream(nvtxw_reader_t* reader, uint64_t stream);

/* The schemas and enums of a domain; NULL when out of range. */
NVTXW_API const nvtxw_schema_registry_t* nvtxw_reader_registry(const nvtxw_reader_t* reader,
                                                               uint64_t domain);
/*
 * Text of a registered string handle value as it appears in payloads (the
 * writer's handle: its low 32 bits are the string index + 1 in the domain),
 * or NULL when unknown.
 */
NVTXW_API const char* nvtxw_reader_string(const nvtxw_reader_t* reader, uint64_t domain,
                                          uint64_t handle);

/* Walks an EVENT record's payloads with the domain's registry, string
 * resolver and payload origins (nvtxw_payload_visit). */
NVTXW_API nvtxwResultCode_t nvtxw_reader_visit_event(const nvtxw_reader_t* reader,
                                                     const nvtxw_record_t* record,
                                                     const nvtxw_visitor_t* visitor, void* ctx);

/*
 * Damaged ranges: the container's (truncation, bad chunks...) in file order,
 * then record-level damage found so far (a chunk that decodes but whose
 * record `record` is malformed: offset = the chunk's file offset, length =
 * its span is not known, so 0). reason is a static or reader-owned string
 * valid until close. Record-level damage of stream chunks is found while
 * reading, so the count grows as nvtxw_reader_next advances.
 */
NVTXW_API size_t nvtxw_reader_damage_count(const nvtxw_reader_t* reader);
NVTXW_API nvtxwResultCode_t nvtxw_reader_damage(const nvtxw_reader_t* reader, size_t i,
                                                uint64_t* offset, uint64_t* length,
                                                const char** reason);
/* Records returned so far by nvtxw_reader_next. */
NVTXW_API uint64_t nvtxw_reader_record_count(const nvtxw_reader_t* reader);
/* Records the file's chunks declare (registrations included), known from
 * open on without reading them: what nvtxw_reader_next will return for an
 * undamaged report, an estimate otherwise (for progress). 0 for NULL. */
NVTXW_API uint64_t nvtxw_reader_record_total(const nvtxw_reader_t* reader);
/* The smallest and the largest record timestamp that the file's event
 * chunks declare in their headers (docs/report-records.md), known from open
 * on without reading them: 1 when there is an event chunk with times (then
 * *first and *last are set, each unless NULL), else 0 (also for a NULL
 * reader). A chunk whose records have no timestamp declares 0 and 0 and is
 * skipped, as is one whose records are all at time 0. A hint for a sink
 * that rebases times, such as the json sink's TimestampBase=
 * (docs/chrome-json.md): damaged chunks are not counted, filters of a
 * replay are not applied, and the times are those of the report's time
 * domains, not converted. */
NVTXW_API int nvtxw_reader_time_range(const nvtxw_reader_t* reader, int64_t* first, int64_t* last);

/*
 * Replays every remaining record through `iface` (an NVTXW v2 table, e.g.
 * from nvtxwGetInterface) into a new session: SessionBegin with the recorded
 * name and `config` as configString (NULL: the recorded config), then
 * DomainRegister, the *Register calls with the recorded attributes (static
 * IDs as given, dynamic IDs mapped from the report's to the new session's),
 * StreamOpen/Close, EventWrite (EventBatchWrite for events with a batch
 * scope), CounterWrite, CounterNoValueWrite, TimeSyncPointTableWrite,
 * TimestampConversionFactorWrite, and SessionEnd. Registered string handles
 * and pointers at fixed positions of event payloads are rewritten to the new
 * session's handles and payload addresses. Stops at the first failing call
 * (the session is still ended) and returns its result; the message names the
 * record. *records_out (may be NULL) receives the records replayed.
 */
NVTXW_API nvtxwResultCode_t nvtxw_reader_replay(nvtxw_reader_t* reader,
                                                const nvtxwInterface_t* iface, const char* config,
                                                uint64_t* records_out);

/*
 * Options of nvtxw_reader_replay_many. struct_size = sizeof of the caller's
 * struct (members are only appended); a zeroed struct (or NULL) replays
 * everything input after input.
 *
 * Filters. streams / domains: fnmatch(3) glob patterns matched against the
 * recorded stream and domain names (the default domain's name is ""); a
 * stream is kept when its name matches one of `streams` (none given: all)
 * and its domain matches one of `domains` (none given: all). A domain that
 * does not match is not registered at all: its registrations and streams are
 * dropped. The time window keeps stream records whose timestamp t has
 * from <= t (has_from) and t <= to (has_to): a whole range event (push/pop
 * or start/end with both times in one event) is kept when its begin, which
 * is its record timestamp, lies in the window; a split RANGE_PUSH event by
 * its own time and its RANGE_POP exactly when the push it closes was kept
 * (a pop without a push by its own time); every other event (marks, split
 * start/end halves) and counter samples by their own timestamp. Records
 * without a timestamp (events without a TIMESTAMP entry, sync points,
 * conversion factors) and all registrations are always kept.
 */
/* A static ID that two inputs of nvtxw_reader_replay_many registered with
 * different attributes (two OTF2 imports each with their own time domain
 * 0x10000001, say): the later input's registration and every reference to
 * it (events, nested schemas, counters, streams, sync points) use
 * `renumbered` in the new session. Told once per input and ID. */
typedef struct nvtxw_replay_renumbered {
    size_t struct_size;     /* sizeof(nvtxw_replay_renumbered_t) */
    const char* kind;       /* "schema", "enum", "scope", "counter",
                               "time domain" or "category" */
    const char* domain;     /* the domain's name */
    uint64_t id;            /* the static ID in input_path */
    uint64_t renumbered;    /* its ID in the new session */
    const char* input_path; /* the report whose registration was renumbered */
    const char* first_path; /* the report that registered `id` first */
} nvtxw_replay_renumbered_t;

typedef struct nvtxw_replay_options {
    size_t struct_size; /* sizeof(nvtxw_replay_options_t) */
    /* NVTXW_READER_ORDER_STREAM: input after input, each in its reader's
     * order. NVTXW_READER_ORDER_TIME: merged across inputs by timestamp
     * (ties by input position); open the readers with
     * NVTXW_READER_ORDER_TIME so that each input is in time order too. */
    int order;
    /* Stream and domain name patterns: a pattern that is the exact name of
     * a stream (domain) of some input matches that name only; any other is
     * an fnmatch(3) glob, so a name holding glob characters ("CUDA[0:13]")
     * can be given as it is printed. None: all. */
    const char* const* streams;
    size_t stream_pattern_count;
    const char* const* domains;
    size_t domain_pattern_count;
    int has_from, has_to;
    int64_t from, to; /* inclusive window, in the recorded timestamps */
    /* Called for each renumbered static ID (NULL: not told), on the calling
     * thread, before the input's records that use it are replayed. */
    void (*on_renumber)(void* context, const nvtxw_replay_renumbered_t* renumbered);
    void* renumber_context;
    /* Polled every 1024 records, filtered ones included (NULL: never): a
     * non-zero return stops the replay with NVTXW_RESULT_FAILED ("replay
     * stopped by the caller"); the session is still ended. For a cancel
     * button or a signal handler's flag. */
    int (*should_stop)(void* context);
    void* stop_context;
    /* Stream order only: replay the stream records on this many threads
     * (0 or 1: the calling thread; at most one per stream is used). Each
     * stream is replayed whole by one thread, distinct streams concurrently,
     * as NVTXW allows, so `iface` must take concurrent writes to distinct
     * streams (libnvtxw's sinks do). Each thread opens every input again by
     * its path (the readers passed in are not shared between threads); the
     * calling thread waits, polls should_stop (on itself, as with one
     * thread) and keeps the readers' record counts current. What changes:
     * the order of calls across streams (so of the lines of a text or
     * capture output), never a stream's own order. An input that no longer
     * reads as when it was opened (a report still being written) is
     * replayed on the calling thread. Time order ignores it. */
    size_t threads;
} nvtxw_replay_options_t;

/*
 * Replays several reports into ONE new session of `iface` (as
 * nvtxw_reader_replay does for one). The readers are borrowed and must stay
 * open until the call returns; each is read from its current position.
 *
 * Session: SessionBegin with the first input's recorded name and `config`
 * (NULL: the first input's recorded config); the other inputs' session
 * records are not replayed (nvtxw_reader_open already requires every input
 * to have this platform's ABI).
 *
 * Merging: first the registrations of every input, input after input, then
 * the stream records in opts->order. Domains are unified by name: every
 * input's domain "x" is one DomainRegister. Registered strings with the same
 * text in one domain share one handle (payloads are rewritten to it).
 * Schemas, enums, scopes, counters, time domains and categories with a static
 * ID are registered once when the inputs agree on their attributes; when a
 * later input registered the same static ID with different attributes, its
 * registration gets a new ID in the new session (a dynamic one; for a
 * category, the lowest ID above every category of that domain) and all its
 * references are rewritten to it; opts->on_renumber is told. Inputs that
 * agree with each other on such renumbered attributes share the new ID.
 * Dynamic IDs are always mapped to the new session's. A stream whose name is already used in
 * the new session is renamed "NAME#2", then "NAME#3"..., the first free one
 * in input order.
 *
 * Time: timestamps are replayed unchanged, never resampled. Each input's time
 * domains (static ones shared like the other static IDs, dynamic ones
 * remapped), its streams' time domain IDs, sync point tables and conversion
 * factors are replayed, so a viewer converts every stream with its own
 * input's time domains; inputs whose streams use the same registered time
 * domain (same static ID and attributes) or the default one are on one time
 * base as they are. Time order compares the raw timestamps.
 *
 * Damage: each reader's damage list grows as it is read (see
 * nvtxw_reader_damage); damage is not an error. Stops at the first failing
 * call (the session is still ended) and returns its result; the message
 * names the input and record. *records_out (may be NULL) receives the
 * records replayed (records dropped by the filters not counted).
 */
NVTXW_API nvtxwResultCode_t nvtxw_reader_replay_many(nvtxw_reader_t* const* readers, size_t count,
                                                     const nvtxwInterface_t* iface,
                                                     const char* config,
                                                     const nvtxw_replay_options_t* opts,
                                                     uint64_t* records_out);

#ifdef __cplusplus
}
#endif

#endif /* NVTXW_READER_H */
