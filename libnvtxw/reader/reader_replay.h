/*
 * reader/reader_replay.h - state of nvtxw_reader_replay and
 * nvtxw_reader_replay_many shared by reader_replay.c (the driver: inputs,
 * order, stream records, events rewritten with remap_event_patch),
 * reader_replay_regs.c (registrations with ID mapping) and
 * reader_replay_merge.c (what several inputs share: target domains, string
 * and static-ID deduplication, stream names, filters). The ID maps and
 * rewriting rules are payload/remap.h's, shared with the forwarding sink.
 */
#ifndef NVTXW_READER_REPLAY_H
#define NVTXW_READER_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "payload/remap.h"
#include "reader/reader_internal.h"

/* An input's domain -> new session: handle (NULL when filtered out),
 * strings by the input's string index, dynamic ID maps. */
typedef remap_domain replay_domain;

/* Owned string keys -> value (and an optional owned `extra`); open
 * addressing, grown at half load. */
typedef struct replay_dict_entry {
    char* key;
    char* extra;
    uint64_t value;
} replay_dict_entry;
typedef struct replay_dict {
    replay_dict_entry* slots;
    size_t capacity, count;
} replay_dict;

/* The entry for `key`; a new one (value 0, extra NULL) has *added = 1.
 * NULL when out of memory. */
replay_dict_entry* replay_dict_get(replay_dict* dict, const char* key, int* added);
/* The entry for `key` or NULL. */
replay_dict_entry* replay_dict_find(const replay_dict* dict, const char* key);
void replay_dict_free(replay_dict* dict);

/* A domain of the new session: every input domain of that name maps here.
 * strings: text -> handle; statics: "kind:id" -> input index, extra = the
 * registration's signature (what must be equal to share the ID). */
typedef struct replay_target {
    char* name;
    nvtxDomainHandle_t handle;
    replay_dict strings, statics;
    uint64_t category_max; /* highest category ID registered in it */
} replay_target;

/* What to do with a static ID registration (replay_static_claim). */
enum {
    REPLAY_CLAIM_REGISTER = 1, /* first seen: register it as it is */
    REPLAY_CLAIM_SHARED,       /* an earlier input registered the same: skip */
    REPLAY_CLAIM_RENUMBER,     /* taken with other attributes: register under a new
                                  ID, then replay_static_renumbered */
    REPLAY_CLAIM_RENUMBERED    /* an earlier input renumbered the same attributes:
                                  skip, use `renumbered` (replay_static_renumbered) */
};
typedef struct replay_claim {
    int action;
    uint64_t renumbered; /* REPLAY_CLAIM_RENUMBERED: the new session's ID */
    size_t first_input;  /* renumbering: the input that kept the ID */
    const char* key;     /* renumbering: its statics key (scratch) */
} replay_claim;

/* Per stream: whether each open split push (role RANGE_PUSH) was kept by
 * the time window, so its pop follows it. */
typedef struct replay_stack {
    uint8_t* kept;
    size_t count, capacity;
} replay_stack;

enum { REPLAY_STREAM_NONE = 0, REPLAY_STREAM_OPEN = 1, REPLAY_STREAM_SKIPPED = 2 };

typedef struct replay_input {
    nvtxw_reader_t* reader;
    size_t index;           /* among the inputs */
    replay_domain* domains; /* by the input's domain index */
    size_t* target_of;      /* its target index; SIZE_MAX = filtered out */
    size_t domain_count, domain_capacity;
    nvtxwStreamHandle_t* streams; /* by the input's stream index */
    uint8_t* stream_state;        /* REPLAY_STREAM_* */
    uint8_t* closing;             /* closed in the report: StreamClose at the end */
    replay_stack* stacks;
    uint64_t* stream_records; /* records replayed per stream, on one thread */
    size_t stream_count;
    const nvtxw_record_t* head; /* next stream record, borrowed from reader */
    int64_t now;                /* time of its last timestamped record */
} replay_input;

typedef struct replay_state {
    const nvtxwInterface_t* t;
    const char* config;
    nvtxw_replay_options_t opts; /* zero-filled beyond the caller's size */
    nvtxwSessionHandle_t session;
    replay_input* inputs;
    size_t input_count;
    replay_input* in; /* input whose record is being replayed */
    replay_target* targets;
    size_t target_count, target_capacity;
    replay_dict stream_names; /* names used in the new session */
    uint8_t* stream_exact;    /* per opts.streams pattern: compared exactly */
    uint8_t* domain_exact;    /* per opts.domains pattern */
    reader_arena scratch;     /* per record */
    uint64_t replayed;
    uint64_t polled; /* records since the start, for opts.should_stop */
    /* The number of the stream record being replayed within its stream,
     * from 1, for messages: the same on one thread and on several (where a
     * worker's reader counts only what it read). Set before replay_one. */
    uint64_t stream_record;
} replay_state;

/* One record of `in` (reader_replay.c): a registration or a stream record
 * (dropped by the filters or replayed); polls opts.should_stop. */
nvtxwResultCode_t replay_one(replay_state* st, replay_input* in, const nvtxw_record_t* rec);

/* Phase 2 in stream order on `threads` threads (reader_replay_threads.c).
 * *ran = 0 when it did not replay anything (a single stream; an input that
 * grew since it was opened): the caller replays on its own thread. */
nvtxwResultCode_t replay_streams_threaded(replay_state* st, size_t threads, int* ran);

/* Registration records (reader_replay_regs.c); SUCCESS or the call's code. */
nvtxwResultCode_t replay_registration(replay_state* st, const nvtxw_record_t* rec);
/* reader_arena_alloc as a remap_alloc_fn over st->scratch. */
void* replay_scratch_alloc(void* st, size_t size);

/* reader_replay_merge.c */
/* Whether `name` passes a pattern list (none = all): pattern i is compared
 * exactly when exact[i], else as an fnmatch glob. */
int replay_match(const char* const* patterns, const uint8_t* exact, size_t count, const char* name);
/* Sets st->stream_exact and st->domain_exact: a pattern that is the name of
 * a stream (domain) of some input is exact. SUCCESS or out of memory. */
nvtxwResultCode_t replay_patterns_resolve(replay_state* st);
/* Index of the target domain named `name`, registered on first use. */
nvtxwResultCode_t replay_target_for(replay_state* st, const char* name, size_t* index);
/* The handle of `text` in target `target`, registered on first use. */
nvtxwResultCode_t replay_target_string(replay_state* st, size_t target, const char* text,
                                       nvtxStringHandle_t* out);
/* A static ID registration of kind `kind` in target `target` whose
 * attributes are `signature`: what to do with it (replay_claim). */
nvtxwResultCode_t replay_static_claim(replay_state* st, size_t target, int kind, uint64_t id,
                                      const char* signature, replay_claim* claim);
/* After a renumbering claim: records the new ID (RENUMBER) and tells the
 * caller's on_renumber. */
nvtxwResultCode_t replay_static_renumbered(replay_state* st, size_t target, int kind, uint64_t id,
                                           const replay_claim* claim, uint64_t renumbered);
/* A category ID no input registered in target `target` so far. */
uint64_t replay_new_category(replay_state* st, size_t target);
/* Signatures of registrations, in st->scratch; NULL when out of memory. */
const char* replay_schema_signature(replay_state* st, const nvtxw_schema_t* schema);
const char* replay_enum_signature(replay_state* st, const nvtxw_enum_t* enumeration);
/* A unique stream name: `name`, else "name#2", "name#3"... (in scratch). */
nvtxwResultCode_t replay_stream_name(replay_state* st, const char* name, const char** out);
/* Frees targets and stream names. */
void replay_merge_free(replay_state* st);
/* The time window: 1 when a stream record of `in` is kept, 0 when dropped,
 * -1 out of memory. */
int replay_window_keep(replay_state* st, replay_input* in, const nvtxw_record_t* rec);

#endif /* NVTXW_READER_REPLAY_H */
