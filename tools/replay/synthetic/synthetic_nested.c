/*
 * tools/replay/synthetic/synthetic_nested.c - the `nested` generator: deep push/pop
 * nesting over many domains and categories, with payload samples that use
 * every payload entry type (synthetic_nested_payload.c).
 *
 * Domain k is "synthetic.nested.k" with `categories` named categories and
 * one registered name per nesting level. Every (thread, domain) pair is a
 * stream "thread T/domain K" with the scope "node0/process0" (registered
 * in each domain).
 * An iteration of a stream is
 *   start range "iteration" (start/end role, range ID unique per stream)
 *   push levels 1..d (d = depth every 4th iteration, else 1..depth at
 *     random), odd levels with a registered-string name, even ones with a
 *     UTF-8 message; under each push, half the time one complete leaf
 *     range; every `payload_every`-th push also writes a payload sample
 *   d pops, then the end of the iteration range.
 * Iterations run over all streams in turn, each stream keeps one clock: no
 * per-event state, since pops carry no name.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synthetic_nested.h"
#include "tool_alloc.h"

enum { P_THREADS = 2, P_DOMAINS, P_CATEGORIES, P_DEPTH, P_ITERATIONS, P_PAYLOAD_EVERY };

static const synth_param params[] = {
    SYNTH_COMMON_PARAMS,
    {"threads", 2, 1, 256},
    {"domains", 4, 1, 64},
    {"categories", 8, 1, 4096},
    {"depth", 16, 1, 4096},
    {"iterations", 150, 1, UINT64_C(1) << 40},
    {"payload_every", 8, 0, UINT64_C(1) << 40},
};

#define HELPER_SCHEMAS                                                                             \
    (NVTXW_EVENT_HELPER_SCHEMA_RANGE_PUSH_REG_STRING | NVTXW_EVENT_HELPER_SCHEMA_RANGE_PUSH_UTF8 | \
     NVTXW_EVENT_HELPER_SCHEMA_RANGE_POP | NVTXW_EVENT_HELPER_SCHEMA_RANGE_PUSHPOP_REG_STRING |    \
     NVTXW_EVENT_HELPER_SCHEMA_RANGE_START_REG_STRING | NVTXW_EVENT_HELPER_SCHEMA_RANGE_END)

static const uint32_t palette[] = {0xFFE53935u, 0xFF8E24AAu, 0xFF3949ABu, 0xFF039BE5u,
                                   0xFF43A047u, 0xFFFDD835u, 0xFFFB8C00u, 0xFF6D4C41u};

typedef struct nested_domain {
    nvtxDomainHandle_t handle;
    nested_schemas payload;
    nvtxStringHandle_t iteration, leaf;
    nvtxStringHandle_t* levels; /* depth names */
} nested_domain;

typedef struct nested_stream {
    nvtxwEventWriter_t w;
    int64_t clock;
    uint64_t pushes;
} nested_stream;

typedef struct nested_state {
    synth_run* run;
    uint64_t threads, domains, depth;
    nested_domain* dom;
    nested_stream* streams; /* threads x domains, thread-major */
} nested_state;

static int string(synth_run* run, nvtxDomainHandle_t d, const char* text, nvtxStringHandle_t* out) {
    return synth_check(run, run->t->StringRegister(d, text, out), "register string %s", text);
}

static int setup_domain(nested_state* s, uint64_t k, nvtxwEventHelperSchemaIds_t* ids) {
    synth_run* run = s->run;
    nested_domain* d = &s->dom[k];
    char name[64];
    snprintf(name, sizeof name, "synthetic.nested.%llu", (unsigned long long)k);
    if (synth_domain(run, name, HELPER_SCHEMAS, &d->handle, ids) ||
        nested_register_payloads(run, d->handle, &d->payload) ||
        string(run, d->handle, "iteration", &d->iteration) ||
        string(run, d->handle, "leaf", &d->leaf))
        return 1;
    for (uint64_t c = 1; c <= run->value[P_CATEGORIES]; c++) {
        snprintf(name, sizeof name, "category %llu", (unsigned long long)c);
        if (synth_check(run, nvtxwCategoryRegister(run->t, d->handle, (uint32_t)c, name),
                        "register category %s", name))
            return 1;
    }
    for (uint64_t l = 0; l < s->depth; l++) {
        snprintf(name, sizeof name, "level %llu", (unsigned long long)l + 1);
        if (string(run, d->handle, name, &d->levels[l]))
            return 1;
    }
    return 0;
}

static int setup(nested_state* s) {
    synth_run* run = s->run;
    for (uint64_t k = 0; k < s->domains; k++) {
        nvtxwEventHelperSchemaIds_t ids;
        if (setup_domain(s, k, &ids))
            return 1;
        uint64_t scope;
        if (synth_scope(run, s->dom[k].handle, "node0/process0", &scope))
            return 1;
        for (uint64_t t = 0; t < s->threads; t++) {
            char name[64];
            nvtxwStreamHandle_t stream;
            snprintf(name, sizeof name, "thread %llu/domain %llu", (unsigned long long)t,
                     (unsigned long long)k);
            if (synth_stream(run, s->dom[k].handle, name, scope, &stream))
                return 1;
            nvtxwEventWriterInit(&s->streams[t * s->domains + k].w, run->t, stream, &ids);
        }
    }
    return 0;
}

/* One push at `level` (0-based), its leaf and payload sample. */
static int push(nested_state* s, nested_stream* st, const nested_domain* d, uint64_t level) {
    synth_run* run = s->run;
    uint32_t category = (uint32_t)synth_uniform(run, 1, run->value[P_CATEGORIES]);
    uint32_t color = palette[level % 8];
    uint64_t every = run->value[P_PAYLOAD_EVERY];
    nvtxwResultCode_t rc;
    run->written++;
    if (level % 2 == 0) {
        nvtxwEventAttributes_t a = {color, category, d->levels[level]};
        rc = nvtxwRangePushWrite(&st->w, st->clock, a);
    } else {
        char msg[32];
        nvtxwEventAttributesUtf8_t a = {color, category, 0, msg};
        snprintf(msg, sizeof msg, "depth %llu", (unsigned long long)level + 1);
        rc = nvtxwRangePushWriteUtf8(&st->w, st->clock, a);
    }
    if (synth_check(run, rc, "write a push"))
        return 1;
    st->clock += (int64_t)synth_uniform(run, 50, 500);
    if (synth_uniform(run, 0, 1) == 1) {
        int64_t end = st->clock + (int64_t)synth_uniform(run, 100, 2000);
        if (synth_range(run, &st->w, st->clock, end, d->leaf, category, 0))
            return 1;
        st->clock = end + 50;
    }
    if (every != 0 && ++st->pushes % every == 0) {
        if (nested_write_payloads(run, st->w.stream, &d->payload, st->clock, category))
            return 1;
        st->clock += 100;
    }
    return 0;
}

static int iteration(nested_state* s, nested_stream* st, const nested_domain* d, uint64_t i,
                     uint64_t id) {
    synth_run* run = s->run;
    uint64_t depth = i % 4 == 0 ? s->depth : synth_uniform(run, 1, s->depth);
    nvtxwEventAttributes_t a = {0, 0, d->iteration};
    run->written += 2;
    if (synth_check(run, nvtxwRangeStartWrite(&st->w, st->clock, id, a), "write a range start"))
        return 1;
    for (uint64_t l = 0; l < depth; l++) {
        if (push(s, st, d, l))
            return 1;
    }
    for (uint64_t l = 0; l < depth; l++) {
        run->written++;
        st->clock += (int64_t)synth_uniform(run, 50, 500);
        if (synth_check(run, nvtxwRangePopWrite(&st->w, st->clock), "write a pop"))
            return 1;
    }
    st->clock += 100;
    if (synth_check(run, nvtxwRangeEndWrite(&st->w, st->clock, id), "write a range end"))
        return 1;
    st->clock += (int64_t)synth_uniform(run, 200, 2000);
    return 0;
}

static int iterate(nested_state* s) {
    uint64_t count = s->threads * s->domains;
    for (uint64_t i = 0; synth_more(s->run, i, s->run->value[P_ITERATIONS]); i++) {
        for (uint64_t k = 0; k < count; k++) {
            /* range IDs: the stream in the high bits, the iteration below */
            if (iteration(s, &s->streams[k], &s->dom[k % s->domains], i, ((k + 1) << 40) | (i + 1)))
                return 1;
        }
    }
    return 0;
}

static int run_nested(synth_run* run) {
    nested_state s;
    int status = 1;
    memset(&s, 0, sizeof s);
    s.run = run;
    s.threads = run->value[P_THREADS];
    s.domains = run->value[P_DOMAINS];
    s.depth = run->value[P_DEPTH];
    int allocated;
    s.dom = nvtxw_calloc(s.domains, sizeof *s.dom);
    s.streams = nvtxw_calloc(s.threads * s.domains, sizeof *s.streams);
    allocated = s.dom != NULL && s.streams != NULL;
    for (uint64_t k = 0; allocated && k < s.domains; k++)
        allocated = (s.dom[k].levels = nvtxw_calloc(s.depth, sizeof *s.dom[k].levels)) != NULL;
    if (!allocated)
        fprintf(stderr, "%s: error: --synthetic nested: out of memory\n", run->ctx->tool);
    else
        status = setup(&s) || iterate(&s) ||
                 synth_close(run, &s.streams[0].w.stream, s.threads * s.domains, sizeof *s.streams);
    for (uint64_t k = 0; s.dom != NULL && k < s.domains; k++)
        nvtxw_free(s.dom[k].levels);
    nvtxw_free(s.dom);
    nvtxw_free(s.streams);
    return status;
}

const synth_generator synth_nested = {"nested", params, sizeof params / sizeof params[0],
                                      run_nested};
