/*
 * tools/replay/synthetic/synthetic.h - the synthetic workload generators of
 * nvtxw-replay --synthetic (docs/synthetic.md).
 *
 * A generator is a table of integer parameters plus a run function that
 * drives one session through the NVTXW function table. synthetic_spec.c
 * parses "NAME[:key=value,...]" against the table; synthetic_common.c holds
 * what every generator shares: the seeded random sequence, the session, the
 * error messages. Generators write in time order per stream and keep state
 * proportional to their size parameters (ranks, workers, depth...), never
 * to the number of events, so memory stays flat however long they run.
 */
#ifndef NVTXW_SYNTHETIC_H
#define NVTXW_SYNTHETIC_H

#include <stddef.h>
#include <stdint.h>

#include "nvtxw/helpers.h"
#include "nvtxw/nvtxw.h"
#include "replay_input.h"

#define SYNTH_MAX_PARAMS 16

/* One integer parameter: its default and accepted range (inclusive). */
typedef struct synth_param {
    const char* name;
    uint64_t def;
    uint64_t min;
    uint64_t max;
} synth_param;

/* Every generator's table starts with these two (indices 0 and 1). */
#define SYNTH_SEED 0
#define SYNTH_EVENTS 1
#define SYNTH_COMMON_PARAMS                                                                        \
    {"seed", 1, 0, UINT64_MAX}, { "events", 0, 0, UINT64_C(1) << 40 }

/* One run of a generator: the parsed parameters and the session state. */
typedef struct synth_run {
    const replay_input_ctx* ctx;
    const char* generator;
    const nvtxwInterface_t* t;
    const nvtxwExtensionInterface_t* ext; /* or NULL */
    nvtxwSessionHandle_t session;
    uint64_t rng;     /* splitmix64 state */
    uint64_t written; /* EventWrite and CounterWrite calls so far */
    uint64_t value[SYNTH_MAX_PARAMS];
} synth_run;

typedef struct synth_generator {
    const char* name;
    const synth_param* params;
    size_t param_count;
    int (*run)(synth_run* run); /* 0, or 1 with the error printed */
} synth_generator;

extern const synth_generator synth_mpi;
extern const synth_generator synth_gpu;
extern const synth_generator synth_nested;
extern const synth_generator synth_tasks;

/* Parses `spec` into *run (generator, parameter values, seeded random
 * sequence); 0, or 1 with the error printed. *gen_out is the generator. */
int synth_spec_parse(synth_run* run, const char* spec, const synth_generator** gen_out);

/* ---- synthetic_common.c ---- */

/* The next number of the run's random sequence (splitmix64). */
uint64_t synth_random(synth_run* run);
/* Uniform in [lo, hi] (hi >= lo). */
uint64_t synth_uniform(synth_run* run, uint64_t lo, uint64_t hi);

/* Non-zero while the run should start another iteration: `i` below
 * `iterations`, or, with events=N, fewer than N records written. */
int synth_more(const synth_run* run, uint64_t i, uint64_t iterations);

/* 0 on success; else prints "TOOL: error: --synthetic NAME: cannot WHAT:
 * <nvtxw_last_error()>" and returns 1. `what` is a printf format. */
int synth_check(const synth_run* run, nvtxwResultCode_t rc, const char* what, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* SessionBegin with ctx->config, name "synthetic-NAME"; 0 or 1. */
int synth_session_begin(synth_run* run);
/* SessionEnd; 0 or 1. `status` is the run's status so far: a failed run
 * still ends its session (the caller removes the output). */
int synth_session_end(synth_run* run, int status);

/* Registers domain `name` and the NVIDIA helper schemas of `schemas`
 * (NVTXW_EVENT_HELPER_SCHEMA_* bits) in it; 0 or 1. */
int synth_domain(synth_run* run, const char* name, uint32_t schemas, nvtxDomainHandle_t* domain,
                 nvtxwEventHelperSchemaIds_t* ids);
/* Registers `path` under the root; 0 or 1. */
int synth_scope(synth_run* run, nvtxDomainHandle_t domain, const char* path, uint64_t* id);
/* Opens stream `name` on `domain` with default scope `scope`; 0 or 1. */
int synth_stream(synth_run* run, nvtxDomainHandle_t domain, const char* name, uint64_t scope,
                 nvtxwStreamHandle_t* out);
/* Closes the `count` streams at `streams`, `stride` bytes apart (an array
 * of handles, or the stream members of an array of structs), and clears
 * them; NULL ones are skipped. 0 or 1. */
int synth_close(synth_run* run, nvtxwStreamHandle_t* streams, size_t count, size_t stride);
/* Registers a static schema named `name` with event role `flags`; 0 or 1. */
int synth_schema(synth_run* run, nvtxDomainHandle_t domain, const char* name, uint64_t type,
                 uint64_t flags, const nvtxPayloadSchemaEntry_t* entries, size_t count, size_t size,
                 uint64_t* id);
/* Registers a counter with a predefined sample type and a scope; 0 or 1. */
int synth_counter(synth_run* run, nvtxDomainHandle_t domain, const char* name, uint64_t type,
                  uint64_t scope, uint64_t* id);

/* One payload of schema `schema`; counts the event. 0 or 1. */
int synth_write(synth_run* run, nvtxwStreamHandle_t stream, uint64_t schema, const void* payload,
                size_t size);
/* A helper push/pop range with a registered-string name; 0 or 1. */
int synth_range(synth_run* run, const nvtxwEventWriter_t* w, int64_t begin, int64_t end,
                nvtxStringHandle_t name, uint32_t category, uint32_t color);
/* One int64 or double counter sample; 0 or 1. */
int synth_sample_i64(synth_run* run, nvtxwStreamHandle_t stream, int64_t ts, uint64_t counter,
                     int64_t value);
int synth_sample_f64(synth_run* run, nvtxwStreamHandle_t stream, int64_t ts, uint64_t counter,
                     double value);

/* Builds a schema entry (no description, no semantics). */
#define SYNTH_ENTRY(flags, type, name, detail, offset)                                             \
    { (flags), (type), (name), NULL, (detail), (offset), NULL, NULL }
#define SYNTH_TS_BEGIN NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP | NVTX_PAYLOAD_ENTRY_FLAG_RANGE_BEGIN
#define SYNTH_TS_END NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP | NVTX_PAYLOAD_ENTRY_FLAG_RANGE_END
#define SYNTH_TS_MARK NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP | NVTX_PAYLOAD_ENTRY_FLAG_MARK

#endif /* NVTXW_SYNTHETIC_H */
