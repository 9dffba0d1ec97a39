/*
 * sink/report/report_regs.c - the report sink's registration records
 * (docs/report-records.md, "Registration chunks"): one function per
 * registration kind, each appending one record to the registration log.
 * Registration calls are serialized by the caller (NVTXW contract).
 */
#include "config.h"

#include <string.h>

#include "common/error_internal.h"
#include "sink/report/report_internal.h"

/* ---- Registrations --------------------------------------------------------- */

nvtxwResultCode_t report_domain(sink* s, const core_domain* domain) {
    report_sink* rs = (report_sink*)s;
    size_t start = report_reg_begin_at(rs, REC_DOMAIN, 0, domain->index);
    int status = rec_str(&rs->reg, domain->name);
    /* the serial is the process's own (its string handles' high bits, which
     * readers ignore): ranks of a shared report may differ in it */
    rs->reg_hash_stop = rs->reg.length;
    return report_reg_finish(rs, status || rec_uvar(&rs->reg, domain->serial), start);
}

nvtxwResultCode_t report_category(sink* s, const core_domain* domain, uint32_t category,
                                  const char* name) {
    report_sink* rs = (report_sink*)s;
    size_t start = report_reg_begin(rs, REC_CATEGORY);
    return report_reg_finish(rs,
                             rec_uvar(&rs->reg, domain->index) || rec_uvar(&rs->reg, category) ||
                                 rec_str(&rs->reg, name),
                             start);
}

nvtxwResultCode_t report_string(sink* s, const core_domain* domain, uint64_t handle,
                                const char* text) {
    report_sink* rs = (report_sink*)s;
    /* implied: strings are numbered in registration order (handle = index + 1) */
    size_t start = report_reg_begin_at(rs, REC_STRING, domain->index, (handle & UINT32_MAX) - 1);
    return report_reg_finish(rs, rec_uvar(&rs->reg, domain->index) || rec_str(&rs->reg, text),
                             start);
}

nvtxwResultCode_t report_resource(sink* s, const core_domain* domain,
                                  const core_resource* resource) {
    report_sink* rs = (report_sink*)s;
    strbuf* b = &rs->reg;
    size_t start = report_reg_begin(rs, REC_RESOURCE);
    uint64_t string_ref = resource->message_handle ? (resource->message_handle & UINT32_MAX) : 0;
    return report_reg_finish(rs,
                             rec_uvar(b, domain->index) || rec_svar(b, resource->identifier_type) ||
                                 rec_uvar(b, resource->identifier) ||
                                 rec_svar(b, resource->message_type) ||
                                 rec_str(b, resource->message) || rec_uvar(b, string_ref),
                             start);
}

nvtxwResultCode_t report_scope(sink* s, const core_domain* domain, uint64_t id, uint64_t parent,
                               const char* path) {
    report_sink* rs = (report_sink*)s;
    strbuf* b = &rs->reg;
    size_t start = report_reg_begin(rs, REC_SCOPE);
    return report_reg_finish(rs,
                             rec_uvar(b, domain->index) || rec_uvar(b, id) || rec_uvar(b, parent) ||
                                 rec_str(b, path),
                             start);
}

/* `semantics`: count, then per known extension its id, version and fields. */
static int rec_semantics(strbuf* b, const nvtxSemanticsHeader_t* chain) {
    const nvtxSemanticsHeader_t* h;
    size_t count = 0;
    int status;
    for (h = chain; h != NULL; h = h->next)
        count++;
    status = rec_uvar(b, count);
    for (h = chain; status == 0 && h != NULL; h = h->next) {
        status = rec_uvar(b, h->semanticId) || rec_uvar(b, h->version);
        if (status == 0 && h->semanticId == NVTX_SEMANTIC_ID_SCOPE_V1)
            status = rec_uvar(b, ((const nvtxSemanticsScope_t*)h)->scopeId);
        else if (status == 0 && h->semanticId == NVTX_SEMANTIC_ID_TIME_V1)
            status = rec_uvar(b, ((const nvtxSemanticsTime_t*)h)->timeDomainId);
        else if (status == 0 && h->semanticId == NVTX_SEMANTIC_ID_COUNTERS_V1) {
            const nvtxSemanticsCounter_t* c = (const nvtxSemanticsCounter_t*)h;
            status = rec_uvar(b, c->flags) || rec_str(b, c->unit) ||
                     rec_uvar(b, c->unitScaleNumerator) || rec_uvar(b, c->unitScaleDenominator) ||
                     rec_svar(b, c->limitType) || rec_uvar(b, c->min.u64) ||
                     rec_uvar(b, c->max.u64);
        }
    }
    return status;
}

static int rec_schema_entry(strbuf* b, const nvtxPayloadSchemaEntry_t* e) {
    return rec_uvar(b, e->flags) || rec_uvar(b, e->type) || rec_str(b, e->name) ||
           rec_str(b, e->description) || rec_uvar(b, e->arrayOrUnionDetail) ||
           rec_uvar(b, e->offset) || rec_semantics(b, e->semantics);
}

nvtxwResultCode_t report_schema(sink* s, const core_domain* domain, const nvtxw_schema_t* schema) {
    report_sink* rs = (report_sink*)s;
    strbuf* b = &rs->reg;
    nvtxPayloadSchemaAttr_t a;
    nvtxwResultCode_t status;
    size_t start, i;
    int build;
    nvtxw_schema_get_attr(schema, &a);
    if ((status = report_plan_schema(rs, domain, schema)) != NVTXW_RESULT_SUCCESS)
        return status;
    start = report_reg_begin(rs, REC_SCHEMA);
    build = rec_uvar(b, domain->index) || rec_uvar(b, a.fieldMask) || rec_str(b, a.name) ||
            rec_uvar(b, a.type) || rec_uvar(b, a.flags) || rec_uvar(b, a.payloadStaticSize) ||
            rec_uvar(b, a.packAlign) || rec_uvar(b, a.schemaId) || rec_uvar(b, a.numEntries);
    for (i = 0; build == 0 && i < a.numEntries; i++)
        build = rec_schema_entry(b, &a.entries[i]);
    return report_reg_finish(rs, build, start);
}

nvtxwResultCode_t report_enum(sink* s, const core_domain* domain, const nvtxw_enum_t* enumeration) {
    report_sink* rs = (report_sink*)s;
    strbuf* b = &rs->reg;
    nvtxPayloadEnumAttr_t a;
    size_t start, i;
    int build;
    nvtxw_enum_get_attr(enumeration, &a);
    start = report_reg_begin(rs, REC_ENUM);
    build = rec_uvar(b, domain->index) || rec_uvar(b, a.fieldMask) || rec_str(b, a.name) ||
            rec_uvar(b, a.sizeOfEnum) || rec_uvar(b, a.schemaId) || rec_uvar(b, a.numEntries);
    for (i = 0; build == 0 && i < a.numEntries; i++)
        build = rec_str(b, a.entries[i].name) || rec_uvar(b, a.entries[i].value) ||
                rec_u8(b, a.entries[i].isFlag != 0);
    return report_reg_finish(rs, build, start);
}

nvtxwResultCode_t report_counter(sink* s, const core_domain* domain, const core_counter* counter) {
    report_sink* rs = (report_sink*)s;
    strbuf* b = &rs->reg;
    size_t start = report_reg_begin(rs, REC_COUNTER);
    return report_reg_finish(
        rs,
        rec_uvar(b, domain->index) || rec_uvar(b, counter->id) || rec_uvar(b, counter->schema_id) ||
            rec_str(b, counter->name) || rec_str(b, counter->description) ||
            rec_uvar(b, counter->scope_id) || rec_semantics(b, counter->semantics),
        start);
}

nvtxwResultCode_t report_time_domain(sink* s, const core_domain* domain,
                                     const nvtxTimeDomainAttr_t* attr) {
    report_sink* rs = (report_sink*)s;
    strbuf* b = &rs->reg;
    size_t start = report_reg_begin(rs, REC_TIME_DOMAIN);
    return report_reg_finish(rs,
                             rec_uvar(b, domain->index) || rec_uvar(b, attr->timeDomainId) ||
                                 rec_uvar(b, attr->scopeId) || rec_uvar(b, attr->timestampTypeId) ||
                                 rec_uvar(b, attr->timerFlags) ||
                                 rec_svar(b, attr->timerResolution) ||
                                 rec_uvar(b, attr->timerStart),
                             start);
}

nvtxwResultCode_t report_stream_record(report_sink* rs, const core_stream* stream, int open) {
    strbuf* b = &rs->reg;
    size_t start = open ? report_reg_begin_at(rs, REC_STREAM_OPEN, 0, stream->index)
                        : report_reg_begin(rs, REC_STREAM_CLOSE);
    if (!open)
        return report_reg_finish(rs, rec_uvar(b, stream->index), start);
    return report_reg_finish(
        rs,
        rec_uvar(b, stream->domain->index) || rec_str(b, stream->name) ||
            rec_uvar(b, stream->scope_id) || rec_uvar(b, stream->time_domain_id) ||
            rec_svar(b, stream->order_interleaving) || rec_svar(b, stream->ordering_type) ||
            rec_svar(b, stream->ordering_skid) || rec_svar(b, stream->ordering_skid_amount),
        start);
}
