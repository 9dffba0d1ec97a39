/*
 * reader/reader_replay.h - state of nvtxw_reader_replay shared by
 * reader_replay.c (records to table calls, events rewritten with
 * remap_event_patch) and reader_replay_regs.c (registrations with ID
 * mapping). The ID maps and rewriting rules are payload/remap.h's, shared
 * with the forwarding sink.
 */
#ifndef NVTXW_READER_REPLAY_H
#define NVTXW_READER_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "payload/remap.h"
#include "reader/reader_internal.h"

/* Report domain -> new session: handle, strings by report string index,
 * dynamic ID maps. */
typedef remap_domain replay_domain;

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

/* Registration records (reader_replay_regs.c); SUCCESS or the call's code. */
nvtxwResultCode_t replay_registration(replay_state* st, const nvtxw_record_t* rec);
/* reader_arena_alloc as a remap_alloc_fn over st->scratch. */
void* replay_scratch_alloc(void* st, size_t size);

#endif /* NVTXW_READER_REPLAY_H */
