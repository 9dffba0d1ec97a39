/*
 * reader/reader_replay.h - state of nvtxw_reader_replay shared by
 * reader_replay.c (records to table calls), reader_replay_regs.c
 * (registrations with ID mapping) and reader_replay_patch.c (rewriting
 * handles and pointers inside event payloads).
 */
#ifndef NVTXW_READER_REPLAY_H
#define NVTXW_READER_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "reader/reader_internal.h"

/* Report ID -> new session ID, for dynamic IDs (>= 1 << 32). */
typedef struct replay_idmap {
    uint64_t* keys; /* 0 = empty slot (dynamic IDs are never 0) */
    uint64_t* values;
    size_t capacity, count;
} replay_idmap;

typedef struct replay_domain {
    nvtxDomainHandle_t handle;
    nvtxStringHandle_t* strings; /* by report string index */
    size_t string_count, string_capacity;
    replay_idmap schemas, scopes, counters, time_domains;
} replay_domain;

typedef struct replay_state {
    nvtxw_reader_t* reader;
    const nvtxwInterface_t* t;
    const char* config;
    nvtxwSessionHandle_t session;
    replay_domain* domains;
    size_t domain_count, domain_capacity;
    nvtxwStreamHandle_t* streams; /* by stream index */
    uint8_t* closing;             /* closed in the report: StreamClose at the end */
    size_t stream_count;
    reader_arena scratch; /* per record */
} replay_state;

/* Returns `id` unchanged unless it is dynamic and mapped. */
uint64_t replay_map(const replay_idmap* map, uint64_t id);
/* Records id -> value for a dynamic `id`; 0 or -1 out of memory. */
int replay_map_put(replay_idmap* map, uint64_t id, uint64_t value);
void replay_map_free(replay_idmap* map);

/* Registration records (reader_replay_regs.c); SUCCESS or the call's code. */
nvtxwResultCode_t replay_registration(replay_state* st, const nvtxw_record_t* rec);

/* Rewrites, in the event's payload copies, registered string handles and
 * POINTER values found at fixed positions (top-level entries, fixed arrays,
 * nested schemas by value) to the new session's handles and the copies'
 * addresses. Positions only known while parsing are left as they are. */
void replay_patch_event(const replay_state* st, const nvtxw_record_t* rec,
                        nvtxPayloadData_t* copies);

#endif /* NVTXW_READER_REPLAY_H */
