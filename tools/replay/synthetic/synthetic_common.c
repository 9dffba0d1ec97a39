/*
 * tools/replay/synthetic/synthetic_common.c - what every synthetic generator shares:
 * the seeded random sequence, session and registration calls with error
 * messages, and the counted writes behind the events=N knob.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "synthetic.h"
#include "tool_interrupt.h"

/* splitmix64 (Steele, Lea, Flood 2014): one 64-bit state, full period,
 * and the same sequence on every platform, which is what makes a spec
 * reproduce byte-identical reports. */
uint64_t synth_random(synth_run* run) {
    uint64_t z = (run->rng += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

uint64_t synth_uniform(synth_run* run, uint64_t lo, uint64_t hi) {
    uint64_t span = hi - lo + 1;
    return span == 0 ? synth_random(run) : lo + synth_random(run) % span;
}

int synth_more(const synth_run* run, uint64_t i, uint64_t iterations) {
    uint64_t events = run->value[SYNTH_EVENTS];
    return events != 0 ? run->written < events : i < iterations;
}

int synth_check(const synth_run* run, nvtxwResultCode_t rc, const char* what, ...) {
    va_list ap;
    if (rc == NVTXW_RESULT_SUCCESS)
        return 0;
    if (tool_interrupted())
        return 1; /* the calls fail because the run was asked to stop; nothing to say */
    fprintf(stderr, "%s: error: --synthetic %s: cannot ", run->ctx->tool, run->generator);
    va_start(ap, what);
    vfprintf(stderr, what, ap);
    va_end(ap);
    fprintf(stderr, ": %s\n", nvtxw_last_error());
    return 1;
}

int synth_session_begin(synth_run* run) {
    nvtxwSessionAttributes_t attr;
    char name[64];
    snprintf(name, sizeof name, "synthetic-%s", run->generator);
    nvtxwSessionAttributesInit(&attr);
    attr.name = name;
    attr.configString = run->ctx->config;
    return synth_check(run, run->t->SessionBegin(&attr, &run->session), "begin the session");
}

int synth_session_end(synth_run* run, int status) {
    nvtxwResultCode_t rc = run->t->SessionEnd(run->session);
    if (status != 0)
        return status;
    return synth_check(run, rc, "end the session");
}

int synth_scope(synth_run* run, nvtxDomainHandle_t domain, const char* path, uint64_t* id) {
    return synth_check(run, nvtxwScopeRegister(run->t, domain, path, id), "register scope %s",
                       path);
}

int synth_domain(synth_run* run, const char* name, uint32_t schemas, nvtxDomainHandle_t* domain,
                 nvtxwEventHelperSchemaIds_t* ids) {
    return synth_check(run, nvtxwDomainRegister(run->t, run->session, name, domain),
                       "register domain %s", name) ||
           synth_check(run, nvtxwEventSchemasRegister(run->t, *domain, schemas, ids),
                       "register the helper schemas in %s", name);
}

int synth_stream(synth_run* run, nvtxDomainHandle_t domain, const char* name, uint64_t scope,
                 nvtxwStreamHandle_t* out) {
    nvtxwStreamAttributes_t attr;
    nvtxwStreamAttributesInit(&attr);
    attr.name = name;
    attr.domain = domain;
    attr.scopeId = scope;
    return synth_check(run, run->t->StreamOpen(run->session, &attr, out), "open stream %s", name);
}

int synth_schema(synth_run* run, nvtxDomainHandle_t domain, const char* name, uint64_t type,
                 uint64_t flags, const nvtxPayloadSchemaEntry_t* entries, size_t count, size_t size,
                 uint64_t* id) {
    nvtxPayloadSchemaAttr_t attr;
    memset(&attr, 0, sizeof attr);
    attr.fieldMask = NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NAME | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE |
                     NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_FLAGS | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES |
                     NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES;
    if (size != 0)
        attr.fieldMask |= NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_STATIC_SIZE;
    attr.name = name;
    attr.type = type;
    attr.flags = flags;
    attr.entries = entries;
    attr.numEntries = count;
    attr.payloadStaticSize = size;
    return synth_check(run, run->t->SchemaRegister(domain, &attr, id), "register schema %s", name);
}

int synth_counter(synth_run* run, nvtxDomainHandle_t domain, const char* name, uint64_t type,
                  uint64_t scope, uint64_t* id) {
    nvtxCounterAttr_t attr;
    memset(&attr, 0, sizeof attr);
    attr.structSize = sizeof attr;
    attr.schemaId = type;
    attr.name = name;
    attr.scopeId = scope;
    attr.counterId = NVTX_COUNTER_ID_NONE;
    return synth_check(run, run->t->CounterRegister(domain, &attr, id), "register counter %s",
                       name);
}

int synth_write(synth_run* run, nvtxwStreamHandle_t stream, uint64_t schema, const void* payload,
                size_t size) {
    nvtxPayloadData_t data = {schema, size, payload};
    run->written++;
    return synth_check(run, run->t->EventWrite(stream, &data, 1), "write an event");
}

int synth_range(synth_run* run, const nvtxwEventWriter_t* w, int64_t begin, int64_t end,
                nvtxStringHandle_t name, uint32_t category, uint32_t color) {
    nvtxwEventAttributes_t attr = {color, category, name};
    run->written++;
    return synth_check(run, nvtxwRangePushPopWrite(w, begin, end, attr), "write a range");
}

int synth_sample_i64(synth_run* run, nvtxwStreamHandle_t stream, int64_t ts, uint64_t counter,
                     int64_t value) {
    run->written++;
    return synth_check(run, nvtxwCounterInt64Write(run->t, stream, ts, counter, value),
                       "write a counter sample");
}

int synth_sample_f64(synth_run* run, nvtxwStreamHandle_t stream, int64_t ts, uint64_t counter,
                     double value) {
    run->written++;
    return synth_check(run, nvtxwCounterFloat64Write(run->t, stream, ts, counter, value),
                       "write a counter sample");
}

int synth_close(synth_run* run, nvtxwStreamHandle_t* streams, size_t count, size_t stride) {
    for (size_t i = 0; i < count; i++) {
        nvtxwStreamHandle_t* s = (nvtxwStreamHandle_t*)(void*)((char*)streams + i * stride);
        if (*s != NULL && synth_check(run, run->t->StreamClose(*s), "close a stream"))
            return 1;
        *s = NULL;
    }
    return 0;
}
