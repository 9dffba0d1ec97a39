/*
 * sink/report/report_plan.c - per-schema payload plans of the report sink:
 * how payloads of a schema are stored (docs/report-records.md, payload
 * encodings). Plans are made when a schema is registered (under the core's
 * registration mutex), complete before they are published, and only read
 * afterwards; the write path finds them without a lock (plans_of).
 *
 *   interned      DYNAMIC schema whose only entry is a zero-terminated UTF-8
 *                 (or locale) string held inline: the event helpers' message
 *   fields        STATIC schema of inline entries (payload/field_codec.h):
 *                 stored entry by entry, integers as varints
 *   ts-relative   other STATIC schemas with TIMESTAMP entries that are plain
 *                 8-byte integers at fixed offsets (up to PLAN_MAX_TIMESTAMPS),
 *                 and the fallback of `fields` for a payload it cannot store
 *   raw           everything else
 * and `has_pointers` when an entry, or an entry of a nested schema, is a
 * POINTER: such events store every payload with its origin address.
 */
#include "config.h"

#include "common/alloc.h"
#include "common/error_internal.h"
#include "sink/report/report_internal.h"

#define PLAN_MAX_NESTING 32

static int entry_is_timestamp_slot(const nvtxPayloadSchemaEntry_t* e) {
    uint64_t size = nvtxw_entry_type_size(e->type);
    return (e->flags & NVTXW_PAYLOAD_ENTRY_FLAG_SEMANTIC_MASK) ==
               NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP &&
           NVTXW_PAYLOAD_ENTRY_ARRAY_KIND(e->flags) == 0 &&
           (e->flags & NVTX_PAYLOAD_ENTRY_FLAG_POINTER) == 0 &&
           e->type < NVTX_PAYLOAD_SCHEMA_ID_STATIC_START && size == 8 &&
           e->type != NVTX_PAYLOAD_ENTRY_TYPE_DOUBLE &&
           e->type != NVTX_PAYLOAD_ENTRY_TYPE_FLOAT64 && e->type != NVTX_PAYLOAD_ENTRY_TYPE_ADDRESS;
}

/* Non-zero when the schema or one it nests holds POINTER entries. */
static int schema_has_pointers(const nvtxw_schema_registry_t* registry,
                               const nvtxw_schema_t* schema, unsigned depth) {
    nvtxPayloadSchemaAttr_t attr;
    size_t i;
    if (depth > PLAN_MAX_NESTING)
        return 1; /* registration already bounds nesting; stay conservative */
    nvtxw_schema_get_attr(schema, &attr);
    for (i = 0; i < attr.numEntries; i++) {
        const nvtxPayloadSchemaEntry_t* e = &attr.entries[i];
        const nvtxw_schema_t* nested;
        if (e->flags & NVTX_PAYLOAD_ENTRY_FLAG_POINTER)
            return 1;
        nested = e->type >= NVTX_PAYLOAD_SCHEMA_ID_STATIC_START
                     ? nvtxw_schema_registry_find_schema(registry, e->type)
                     : NULL;
        if (nested != NULL && schema_has_pointers(registry, nested, depth + 1))
            return 1;
    }
    return 0;
}

static void plan_timestamps(const nvtxw_schema_t* schema, const nvtxPayloadSchemaAttr_t* attr,
                            payload_plan* plan) {
    size_t i;
    for (i = 0; i < attr->numEntries && plan->ts_count < PLAN_MAX_TIMESTAMPS; i++) {
        size_t offset = nvtxw_schema_entry_offset(schema, i);
        if (entry_is_timestamp_slot(&attr->entries[i]) && offset != SIZE_MAX &&
            offset <= UINT32_MAX - 8)
            plan->ts_offsets[plan->ts_count++] = (uint32_t)offset;
    }
    if (plan->ts_count > 0)
        plan->encoding = PAYLOAD_TS_RELATIVE;
}

/* The fields encoding; `fallback` keeps what plan_timestamps chose. */
static void plan_fields(const nvtxw_schema_t* schema, payload_plan* plan) {
    uint32_t i;
    if (!field_plan_make(schema, &plan->fields))
        return;
    plan->fallback = plan->encoding;
    plan->encoding = PAYLOAD_FIELDS;
    for (i = 0; i < plan->fields.op_count; i++)
        plan->has_handles |= plan->fields.ops[i].kind == FIELD_HANDLE;
}

static void plan_make(const core_domain* domain, const nvtxw_schema_t* schema, payload_plan* plan) {
    nvtxPayloadSchemaAttr_t attr;
    nvtxw_schema_get_attr(schema, &attr);
    plan->encoding = PAYLOAD_RAW;
    plan->has_pointers = (uint8_t)schema_has_pointers(domain->schemas, schema, 0);
    if (field_schema_is_inline_string(schema))
        plan->encoding = PAYLOAD_INTERNED;
    else if (attr.type == NVTX_PAYLOAD_SCHEMA_TYPE_STATIC && !plan->has_pointers) {
        plan_timestamps(schema, &attr, plan);
        plan_fields(schema, plan);
    }
}

/* The plan map of a domain (made when its first schema is registered).
 * The per-domain maps are published in a pubvec and the plans in pubmaps
 * (common/pubmap.h): registrations add to them while writers look plans up
 * without a lock. */
static pubmap* plans_of(report_sink* rs, uint32_t domain_index) {
    pubmap* map = pubvec_get(&rs->plans, domain_index);
    if (map != NULL)
        return map;
    map = nvtxw_calloc(1, sizeof *map);
    if (map == NULL || pubvec_set(&rs->plans, domain_index, map) != 0) {
        nvtxw_free(map);
        return NULL;
    }
    return map;
}

nvtxwResultCode_t report_plan_schema(report_sink* rs, const core_domain* domain,
                                     const nvtxw_schema_t* schema) {
    pubmap* map = plans_of(rs, domain->index);
    payload_plan* plan = nvtxw_calloc(1, sizeof *plan);
    if (plan != NULL)
        plan_make(domain, schema, plan); /* complete before it is published */
    if (map == NULL || plan == NULL || pubmap_put(map, nvtxw_schema_id(schema), plan) != 0) {
        nvtxw_free(plan);
        return error_oom("a payload plan");
    }
    return NVTXW_RESULT_SUCCESS;
}

/* Lock-free (write path). */
const payload_plan* report_plan_find(const report_sink* rs, uint32_t domain_index,
                                     uint64_t schema_id) {
    const pubmap* map = pubvec_get(&rs->plans, domain_index);
    return map ? pubmap_get(map, schema_id) : NULL;
}

static void plan_map_free(void* map) {
    pubmap_free(map, nvtxw_free);
    nvtxw_free(map);
}

void report_plans_free(report_sink* rs) { pubvec_free(&rs->plans, plan_map_free); }
