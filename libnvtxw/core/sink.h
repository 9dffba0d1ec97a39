/*
 * core/sink.h - the internal interface between the core and the outputs.
 *
 * The core validates every call at the table (handles, state, IDs, attribute
 * structs) and hands sinks validated, immutable, borrowed data: a sink may
 * assert, never re-validate (STYLE rule 3). The one exception is payload
 * content, which is validated by walking it: sinks walk event payloads with
 * core_event_visit(), which fails on malformed or unregistered content; a
 * sink must then discard whatever it buffered for that event and return the
 * error, so a rejected event leaves no trace. A sink may instead check a
 * payload whose schema has a fast plan with core_fast_payload_valid (the
 * same checks, inline), and call core_event_visit when that says no.
 *
 * Threading (docs/threading.md): registration and lifecycle callbacks
 * (everything but the write path) are called one at a time per session,
 * under the core's registration mutex, but may run while other threads
 * write. Write callbacks for distinct streams run concurrently with each
 * other and with registration callbacks, and take no lock per event: they
 * touch their stream's state (`stream_state`), registrations made before
 * the write (read through the core's lookups below, which are lock-free),
 * and per-registration state of their own only when it is published the
 * way common/pubmap.h publishes (grow by copy, release store, acquire load,
 * retire the old table until the session ends) or guarded by a lock the
 * sink takes on a rare path.
 *
 * Errors: a callback returns NVTXW_RESULT_* and sets the message with
 * error_set(). A failure other than INVALID_ARGUMENT or NOT_SUPPORTED makes
 * the session faulty. Every callback may be NULL: the core then returns
 * NVTXW_RESULT_NOT_SUPPORTED for that operation (session_end excepted).
 */
#ifndef NVTXW_CORE_SINK_H
#define NVTXW_CORE_SINK_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/idmap.h"
#include "common/pubmap.h"
#include "nvtxw/abi.h"
#include "nvtxw/loader.h"
#include "nvtxw/payload.h"
#include "nvtxw/share.h"

typedef struct core_session core_session;
typedef struct core_domain core_domain;
typedef struct core_stream core_stream;

/*
 * Domains and streams as the core hands them to sinks: borrowed, owned by
 * the core. The fields above the "core's own" line are a sink's to read; they
 * are set when the domain is registered or the stream opened and do not
 * change until the session ends or the stream closes. A domain's registries
 * are read through the functions below, never through its maps: they hold
 * every registration that returned before the write began (common/pubmap.h).
 */

/* One registered scope; `path` as registered (ABI spec 2.10 escapes), in
 * the same block (one allocation per scope: 10^5 task scopes). */
typedef struct core_scope {
    uint64_t id;
    uint64_t parent;
    /* Open streams, counters, time domains and live child scopes that name
     * it: a scope is released only at 0. The core's own, under reg_mutex. */
    size_t users;
    char path[];
} core_scope;

#define CORE_PLAN_CACHE_BITS 3 /* log2 of the schemas a stream keeps at hand */
#define CORE_PLAN_CACHE (1u << CORE_PLAN_CACHE_BITS)

struct core_domain {
    char* name;     /* "" for the default domain */
    uint32_t index; /* order of registration in the session, from 0 */
    nvtxw_schema_registry_t* schemas;
    uint32_t serial; /* process-unique; high half of this domain's string handles */

    /* The core's own. */
    core_session* session;
    uint64_t handle;
    /* Registries: written under the session's reg_mutex, read lock-free. */
    pubvec strings;      /* index -> char*; handle = serial << 32 | index + 1 */
    size_t string_count; /* strings registered (the writer's side) */
    pubmap categories;   /* category -> char* name */
    pubmap scopes;       /* scope ID -> core_scope* */
    pubmap counters;     /* counter ID -> core_counter* (owned copies) */
    pubmap time_domains; /* time domain ID -> nvtxTimeDomainAttr_t* */
    pubmap fast_plans;   /* schema ID -> core_fast_plan* (core/fast_check.c) */
    uint64_t next_scope_id, next_counter_id, next_time_domain_id; /* dynamic IDs */
};

struct core_stream {
    core_domain* domain;
    uint64_t index; /* order of opening in the session, from 0 */
    char* name;
    uint64_t scope_id;
    uint64_t time_domain_id;
    int16_t order_interleaving;
    int16_t ordering_type;
    int32_t ordering_skid;
    int64_t ordering_skid_amount;

    /* The core's own. */
    core_session* session;
    uint64_t handle;
    struct handle_slot* handle_slot; /* the handle's slot: write calls leave it by a store */
    size_t slot;                     /* position in session->streams while open */
    void* sink_state;
    /* Fast plans looked up last, direct-mapped by schema ID (write path;
     * this stream's thread only); plan NULL = an empty slot. */
    struct {
        uint64_t schema_id;
        const struct core_fast_plan* plan;
    } plan_cache[CORE_PLAN_CACHE];
};

/* Text of a string handle of this domain, or NULL when not registered here.
 * Inline: the write path checks every registered-string handle with it. */
static inline const char* core_domain_string(const core_domain* domain, uint64_t handle) {
    uint64_t index = handle & UINT32_MAX;
    if ((handle >> 32) != domain->serial || index == 0)
        return NULL;
    return (const char*)pubvec_get(&domain->strings, (size_t)(index - 1));
}
/* A schema whose payloads validate by size and handles alone
 * (core/fast_check.c): made at its registration, never changed or freed
 * before the session ends. */
#define CORE_FAST_MAX_HANDLES 4
#define CORE_FAST_MAX_SCOPES 4
#define CORE_FAST_MAX_SEQUENCE 32
#define CORE_FAST_SEQ_STRING 0 /* sequence[i]: a NUL-terminated byte string */

typedef struct core_fast_plan {
    size_t min_size; /* bytes a payload needs */
    /* A packed DYNAMIC schema: each entry in order, a scalar of
     * sequence[i] bytes or CORE_FAST_SEQ_STRING; 0 entries for others. */
    size_t sequence_count;
    uint8_t sequence[CORE_FAST_MAX_SEQUENCE];
    int has_timestamp;       /* the first TIMESTAMP entry is a plain 8-byte int */
    size_t timestamp_offset; /* ... at this offset */
    size_t handle_count;     /* registered string handles to check ... */
    size_t handle_offsets[CORE_FAST_MAX_HANDLES]; /* ... at these offsets */
    size_t scope_count;                           /* SCOPE_ID values to check ... */
    size_t scope_offsets[CORE_FAST_MAX_SCOPES];   /* ... at these offsets */
} core_fast_plan;

/* Non-zero when `id` may be used as a scope in this domain: NONE, ROOT or a
 * registered scope. Lock-free. */
int core_domain_scope_known(const core_domain* domain, uint64_t id);
/* Non-zero when `id` was a scope of this domain and was released. */
int core_domain_scope_released(const core_domain* domain, uint64_t id);
/* " (released)" when `id` was released, else "": for messages about an
 * unknown scope. */
const char* core_scope_released_note(const core_domain* domain, uint64_t id);

/* The fast plan of a schema of this domain, or NULL when its payloads need
 * the walk. Lock-free. */
const core_fast_plan* core_fast_plan_of(const core_domain* domain, uint64_t schema_id);

/* Whether payload `p` (size not 0) of a schema whose fast plan is `plan` is
 * valid: what core_event_fast_check checks of it, inline, for a sink that
 * remembers the schemas of a stream's recent events and checks a later one
 * itself instead of calling core_event_visit. Every handle is then 0 or a
 * string of `domain`, every SCOPE_ID a scope it knows, and a timestamp, when the plan has one, is
 * at plan->timestamp_offset. 0 means "ask core_event_visit", not "invalid". */
static inline int core_fast_payload_valid(const core_domain* domain, const core_fast_plan* plan,
                                          const nvtxPayloadData_t* p) {
    const uint8_t* data = (const uint8_t*)p->payload;
    size_t i, at = 0;
    if (data == NULL || p->size == SIZE_MAX || p->size < plan->min_size)
        return 0;
    /* The walk's rules for these entries: a scalar needs its bytes, a
     * string ends at its NUL or at the payload's end; bytes after the last
     * entry are ignored. */
    for (i = 0; i < plan->sequence_count; i++) {
        if (plan->sequence[i] != CORE_FAST_SEQ_STRING) {
            if (p->size - at < plan->sequence[i])
                return 0; /* the walk names what is missing */
            at += plan->sequence[i];
        } else if (at < p->size) {
            const uint8_t* nul = (const uint8_t*)memchr(data + at, 0, p->size - at);
            at = nul != NULL ? (size_t)(nul - data) + 1 : p->size;
        }
    }
    for (i = 0; i < plan->handle_count; i++) {
        uint64_t handle;
        memcpy(&handle, (const uint8_t*)p->payload + plan->handle_offsets[i], sizeof handle);
        if (handle != 0 && core_domain_string(domain, handle) == NULL)
            return 0;
    }
    for (i = 0; i < plan->scope_count; i++) {
        uint64_t scope;
        memcpy(&scope, (const uint8_t*)p->payload + plan->scope_offsets[i], sizeof scope);
        if (!core_domain_scope_known(domain, scope))
            return 0;
    }
    return 1;
}

/* Name of a registered category of this domain, or NULL. */
const char* core_domain_category(const core_domain* domain, uint64_t category);
/* A registered scope of this domain, or NULL (also for NONE and ROOT). */
const core_scope* core_domain_scope(const core_domain* domain, uint64_t scope_id);

/* Defaults and limits of the report sink's keys (docs/config.md). */
#define CORE_DEFAULT_COMPRESSION 1
#define CORE_MAX_COMPRESSION_THREADS 64

/* Session options parsed from the config string (docs/config.md). */
typedef struct core_config {
    const char* raw;         /* the config string as given ("" when NULL) */
    const char* sink;        /* "report" (default), "text", "null" */
    const char* output;      /* output path; NULL = derived from the session name */
    int overwrite;           /* OUTPUT_* of common/output_file.h (default OUTPUT_REPLACE) */
    int compression;         /* zstd level for the report sink */
    int compression_given;   /* Compression= was in the config string */
    int compression_threads; /* compression threads of the report and perfetto sinks; -1 = default
                              */
    /* Backend=: the library Sink=backend forwards to; BackendConfig=: the
     * first line of that library's config string. NULL when absent. */
    const char* backend;
    const char* backend_config;
    /* SessionBeginShared's share (nvtxw/share.h), NULL otherwise; only a
     * sink with takes_share gets one. */
    const nvtxwShare_t* share;
} core_config;

/* A sink's own yes/no key (docs/config.md: yes/no, true/false, on/off,
 * 1/0): the first value of `key` in config->raw sets *out, else *out =
 * `fallback`. Another value gives INVALID_ARGUMENT with a message naming
 * the key and the value (*out is then `fallback`). */
nvtxwResultCode_t core_config_bool(const core_config* config, const char* key, int fallback,
                                   int* out);

/* A sink's own key of any other kind: the first value of `key` in
 * config->raw as [*begin, *end) (trimmed, inside the config string) and 1,
 * or 0 when the key is absent. */
int core_config_value(const core_config* config, const char* key, const char** begin,
                      const char** end);

/* [*begin, *end) without its leading and trailing blanks (the config
 * grammar's: space, tab, vertical tab): one
 * item of a comma-separated value (StatsReports=, SqliteIndexes=). */
static inline void core_config_trim(const char** begin, const char** end) {
    while (*begin < *end && nvtxw_config_is_space(**begin))
        (*begin)++;
    while (*end > *begin && nvtxw_config_is_space((*end)[-1]))
        (*end)--;
}

/* One counter as registered (borrowed from the core). */
typedef struct core_counter {
    uint64_t id;
    uint64_t schema_id; /* predefined numeric type or schema ID */
    const char* name;
    const char* description;
    uint64_t scope_id;
    const nvtxSemanticsHeader_t* semantics; /* deep copy, may be NULL */
    size_t sample_size;                     /* bytes of one sample */
} core_counter;

/* A resource registration (ResourceRegister), message resolved to UTF-8. */
typedef struct core_resource {
    int32_t identifier_type; /* NVTX_RESOURCE_TYPE_* value */
    uint64_t identifier;     /* pointer value or ullValue */
    int32_t message_type;    /* NVTXW_MESSAGE_TYPE_* */
    const char* message;     /* UTF-8 text; for registered strings, their text */
    uint64_t message_handle; /* registered string handle, or 0 */
} core_resource;

/*
 * One event after handle and state checks: from EventWrite, or one event of
 * an EventBatchWrite (then `count` is 1, or 2 when the batch has flexData,
 * which is passed as a REFERENCED payload the event may point into).
 */
typedef struct core_event {
    const core_stream* stream;
    const nvtxPayloadData_t* payloads;
    size_t count;
    uint64_t scope_id; /* batch default scope; NVTX_SCOPE_NONE otherwise */
} core_event;

/* What the validating walk learned about an event. */
typedef struct core_event_facts {
    int has_timestamp;
    int64_t timestamp; /* first TIMESTAMP entry (begin or point in time) */
} core_event_facts;

/*
 * Walks an event's payloads with `visitor` (may be NULL: validate only),
 * checking register-before-use for string handles, scope IDs and time
 * domains against the stream's domain, and fills `facts`. `visit_flags` are
 * NVTXW_VISIT_* flags: sinks that copy or render data at once pass
 * NVTXW_VISIT_ALLOW_FOREIGN_POINTERS (DEEP_COPY pointers into producer
 * memory are readable during the call); sinks that store payload bytes for
 * later pass 0, so such events are rejected. Returns NVTXW_RESULT_SUCCESS or
 * INVALID_ARGUMENT with a message naming the payload and field.
 */
nvtxwResultCode_t core_event_walk(const core_event* event, const nvtxw_visitor_t* visitor,
                                  void* ctx, unsigned visit_flags, core_event_facts* facts);
/* Validates without a walk the payloads of common schemas (core/fast_check.c)
 * and fills `facts`; 0 when the event needs the walk. */
int core_event_fast_check(const core_event* event, core_event_facts* facts);
/* Walks an event that core_event_fast_check found valid with `visitor`
 * alone: the checks of core_event_walk would all pass, so they are not
 * made again for every value. */
nvtxwResultCode_t core_event_walk_valid(const core_event* event, const nvtxw_visitor_t* visitor,
                                        void* ctx, unsigned visit_flags);
/* Inline: sinks that only store or count (visitor NULL) mostly take the
 * fast check, without a second call; sinks that render walk the common
 * schemas without the checking layer. */
static inline nvtxwResultCode_t core_event_visit(const core_event* event,
                                                 const nvtxw_visitor_t* visitor, void* ctx,
                                                 unsigned visit_flags, core_event_facts* facts) {
    if (core_event_fast_check(event, facts))
        return visitor == NULL ? NVTXW_RESULT_SUCCESS
                               : core_event_walk_valid(event, visitor, ctx, visit_flags);
    return core_event_walk(event, visitor, ctx, visit_flags, facts);
}

/* Walks one counter sample (`size` bytes of counter->schema_id in `domain`)
 * with `visitor`, registered strings resolved and DEEP_COPY pointers into
 * producer memory readable (the sample is rendered during the call).
 * Returns what nvtxw_payload_visit returns. */
nvtxwResultCode_t core_counter_visit(const core_domain* domain, const core_counter* counter,
                                     const void* data, size_t size, const nvtxw_visitor_t* visitor,
                                     void* ctx);

/* Bytes of a validated payload: its size, or for SIZE_MAX (predefined C
 * strings only, NUL-terminated as the core checked) the code units up to
 * and including the terminator. */
size_t core_payload_bytes(const nvtxPayloadData_t* p);

typedef struct sink sink;

typedef struct sink_ops {
    const char* name;
    /* Takes SessionBeginShared's share (config->share): create and destroy
     * are then collective over its ranks (nvtxw/share.h). */
    int takes_share;
    /* Creates the sink's state for one session; *out receives it. */
    nvtxwResultCode_t (*create)(const core_config* config, const char* session_name, sink** out);
    /* Flushes and closes everything; also called on a faulty session, with
     * `faulty` set, to close files without committing them. Frees the sink. */
    nvtxwResultCode_t (*destroy)(sink* s, int faulty);

    nvtxwResultCode_t (*domain_register)(sink* s, const core_domain* domain);
    nvtxwResultCode_t (*category_register)(sink* s, const core_domain* domain, uint32_t category,
                                           const char* name);
    nvtxwResultCode_t (*string_register)(sink* s, const core_domain* domain, uint64_t handle,
                                         const char* text);
    nvtxwResultCode_t (*resource_register)(sink* s, const core_domain* domain,
                                           const core_resource* resource);
    nvtxwResultCode_t (*scope_register)(sink* s, const core_domain* domain, uint64_t scope_id,
                                        uint64_t parent, const char* path);
    /* libnvtxw's ScopeRelease (nvtxw/extension.h): the scope is still
     * readable during the call; no event names it afterwards. */
    nvtxwResultCode_t (*scope_release)(sink* s, const core_domain* domain, uint64_t scope_id);
    nvtxwResultCode_t (*schema_register)(sink* s, const core_domain* domain,
                                         const nvtxw_schema_t* schema);
    nvtxwResultCode_t (*enum_register)(sink* s, const core_domain* domain,
                                       const nvtxw_enum_t* enumeration);
    nvtxwResultCode_t (*counter_register)(sink* s, const core_domain* domain,
                                          const core_counter* counter);
    nvtxwResultCode_t (*time_domain_register)(sink* s, const core_domain* domain,
                                              const nvtxTimeDomainAttr_t* attr);

    /* stream_open stores the sink's per-stream state in *stream_state. */
    nvtxwResultCode_t (*stream_open)(sink* s, const core_stream* stream, void** stream_state);
    nvtxwResultCode_t (*stream_close)(sink* s, const core_stream* stream, void* stream_state);

    /* Write path: concurrent across streams. */
    nvtxwResultCode_t (*event_write)(void* stream_state, const core_event* event);
    nvtxwResultCode_t (*counter_write)(void* stream_state, int64_t timestamp,
                                       const core_counter* counter, const void* data, size_t size);
    nvtxwResultCode_t (*counter_no_value_write)(void* stream_state, int64_t timestamp,
                                                const core_counter* counter, uint8_t reason);
    nvtxwResultCode_t (*sync_points_write)(void* stream_state, uint64_t domain_src,
                                           uint64_t domain_dst, const nvtxSyncPoint_t* points,
                                           size_t count);
    nvtxwResultCode_t (*conversion_factor_write)(void* stream_state, uint64_t domain_src,
                                                 uint64_t domain_dst, double slope,
                                                 int64_t timestamp_src, int64_t timestamp_dst);
    /* libnvtxw's StreamFlush (nvtxw/extension.h), on the stream's write
     * path: write out what is buffered and free what can be made again.
     * NULL: nothing to do. */
    nvtxwResultCode_t (*stream_flush)(void* stream_state);
} sink_ops;

/* Every sink's state starts with this header. */
struct sink {
    const sink_ops* ops;
};

/* Registered sinks, looked up by config name ("report", "text", "null");
 * the table is sink/shared/sink_registry.c. */
const sink_ops* sink_find(const char* name);
/* The names sink_find knows, as "report, text, ... or capture", into buf. */
void sink_names(char* buf, size_t size);

/* Default output path: the session name ('/' replaced by '_') or
 * "nvtxw-session", plus `extension` (".txt"). Caller frees; NULL when out of
 * memory. */
char* sink_default_output(const char* session_name, const char* extension);

#endif /* NVTXW_CORE_SINK_H */
