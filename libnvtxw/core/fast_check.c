/*
 * core/fast_check.c - validation of common payloads without walking them.
 *
 * Most events use a few simple schemas: fixed structs of scalars (the event
 * helpers' range and mark headers) and an inline UTF-8 message. For those the
 * full visitor walk proves nothing a size check does not: every scalar of a
 * STATIC schema lies at a fixed offset, and a zero-terminated inline string
 * cannot point anywhere. A "fast plan", made once when the schema is
 * registered (a serialized call), records that a schema qualifies and where
 * its first TIMESTAMP lives; the write path then checks sizes only.
 *
 * A schema qualifies when it is
 *   STATIC, every entry a predefined scalar or fixed array of one, or an
 *   enum (any value is valid) without a TIMESTAMP flag, with no
 *   POINTER/OFFSET flags and no time semantics; up to CORE_FAST_MAX_HANDLES
 *   plain registered string handles and CORE_FAST_MAX_SCOPES plain SCOPE_ID
 *   values are allowed, each checked by one lookup in the domain's string or
 *   scope table (the checks the full walk makes); or
 *   DYNAMIC with a single inline zero-terminated UTF-8/locale string entry;
 *   or DYNAMIC and packed (packAlign 1, or only 1-byte entries), with up to
 *   CORE_FAST_MAX_SEQUENCE entries, each such a string or a plain
 *   predefined scalar as above (no handles, scopes, enums or TIMESTAMPs):
 *   a "sequence", checked by stepping over the scalars and finding each
 *   string's NUL, which is all the walk would check (the Chrome input's
 *   args: 9 % of its import's time was the walk of them).
 * A string's only semantics may be the JSON-text mark, which the walk does
 * not check. Anything else takes the full walk in core_event_visit.
 */
#include "config.h"

#include <string.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "common/slot_hash.h"
#include "core/core_internal.h"

#define ADDRESSING_FLAGS                                                                           \
    (NVTX_PAYLOAD_ENTRY_FLAG_POINTER | NVTX_PAYLOAD_ENTRY_FLAG_OFFSET_FROM_BASE |                  \
     NVTX_PAYLOAD_ENTRY_FLAG_OFFSET_FROM_HERE)

/* A single registered string handle at a fixed offset. */
static int entry_fast_handle(const nvtxPayloadSchemaEntry_t* e, size_t offset,
                             core_fast_plan* plan) {
    if (NVTXW_PAYLOAD_ENTRY_ARRAY_KIND(e->flags) != 0 || e->semantics != NULL ||
        (e->flags & ADDRESSING_FLAGS) || offset == SIZE_MAX ||
        plan->handle_count == CORE_FAST_MAX_HANDLES)
        return 0;
    plan->handle_offsets[plan->handle_count++] = offset;
    return 1;
}

/* A single SCOPE_ID at a fixed offset (an array of them: the walk). */
static int entry_fast_scope(const nvtxPayloadSchemaEntry_t* e, size_t offset,
                            core_fast_plan* plan) {
    if (NVTXW_PAYLOAD_ENTRY_ARRAY_KIND(e->flags) != 0 || e->semantics != NULL ||
        (e->flags & ADDRESSING_FLAGS) || offset == SIZE_MAX ||
        plan->scope_count == CORE_FAST_MAX_SCOPES ||
        nvtxw_entry_type_size(e->type) != sizeof(uint64_t) ||
        (e->flags & NVTXW_PAYLOAD_ENTRY_FLAG_SEMANTIC_MASK) == NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP)
        return 0;
    plan->scope_offsets[plan->scope_count++] = offset;
    return 1;
}

/* An enum value at a fixed offset: every value is valid (one without a
 * name is reported as a number). Not a TIMESTAMP: the plan's timestamp
 * must be the first TIMESTAMP entry, and this one is not a plain int. */
static int entry_fast_enum(const nvtxPayloadSchemaEntry_t* e, size_t offset) {
    return NVTXW_PAYLOAD_ENTRY_ARRAY_KIND(e->flags) == 0 && e->semantics == NULL &&
           (e->flags & ADDRESSING_FLAGS) == 0 && offset != SIZE_MAX &&
           (e->flags & NVTXW_PAYLOAD_ENTRY_FLAG_SEMANTIC_MASK) != NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP;
}

/* A predefined number (any value is valid) with nothing that sends the
 * walk elsewhere: no semantics, no addressing flags; the size of one. */
static size_t entry_plain_number(const nvtxPayloadSchemaEntry_t* e) {
    size_t size = nvtxw_entry_type_size(e->type);
    if (e->type >= NVTX_PAYLOAD_ENTRY_TYPE_CSTRING || e->type == NVTX_PAYLOAD_ENTRY_TYPE_INVALID ||
        e->type == NVTX_PAYLOAD_ENTRY_TYPE_SCOPE_ID || e->semantics != NULL ||
        (e->flags & ADDRESSING_FLAGS))
        return 0;
    return size;
}

static int entry_fast(const nvtxw_schema_registry_t* registry, const nvtxw_schema_t* schema,
                      size_t index, const nvtxPayloadSchemaEntry_t* e, core_fast_plan* plan) {
    uint64_t kind = NVTXW_PAYLOAD_ENTRY_ARRAY_KIND(e->flags);
    size_t size = entry_plain_number(e);
    size_t offset = nvtxw_schema_entry_offset(schema, index);
    if (e->type == NVTX_PAYLOAD_ENTRY_TYPE_NVTX_REGISTERED_STRING_HANDLE)
        return entry_fast_handle(e, offset, plan);
    if (e->type == NVTX_PAYLOAD_ENTRY_TYPE_SCOPE_ID)
        return entry_fast_scope(e, offset, plan);
    if (e->type >= NVTX_PAYLOAD_SCHEMA_ID_STATIC_START &&
        nvtxw_schema_registry_find_enum(registry, e->type) != NULL)
        return entry_fast_enum(e, offset);
    if (size == 0 || offset == SIZE_MAX ||
        (kind != 0 && kind != NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_FIXED_SIZE))
        return 0;
    if (!plan->has_timestamp && kind == 0 && size == 8 &&
        (e->flags & NVTXW_PAYLOAD_ENTRY_FLAG_SEMANTIC_MASK) == NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP &&
        e->type != NVTX_PAYLOAD_ENTRY_TYPE_DOUBLE && e->type != NVTX_PAYLOAD_ENTRY_TYPE_FLOAT64) {
        plan->has_timestamp = 1;
        plan->timestamp_offset = offset;
    }
    return 1;
}

/* A zero-terminated inline byte string whose only semantics, if any, is
 * the JSON-text mark. */
static int entry_plain_string(const nvtxPayloadSchemaEntry_t* e) {
    return (e->type == NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF8 ||
            e->type == NVTX_PAYLOAD_ENTRY_TYPE_CSTRING) &&
           NVTXW_PAYLOAD_ENTRY_ARRAY_KIND(e->flags) ==
               NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_ZERO_TERMINATED &&
           e->arrayOrUnionDetail == 0 && (e->flags & ADDRESSING_FLAGS) == 0 &&
           (e->semantics == NULL || (e->semantics->semanticId == NVTXW_SEMANTIC_ID_JSON_TEXT &&
                                     e->semantics->next == NULL));
}

/* The sequence code of an entry of a packed DYNAMIC schema, or -1. */
static int entry_sequence_code(const nvtxPayloadSchemaEntry_t* e) {
    size_t size = entry_plain_number(e);
    if (entry_plain_string(e))
        return CORE_FAST_SEQ_STRING;
    if (size == 0 || size > 16 || NVTXW_PAYLOAD_ENTRY_ARRAY_KIND(e->flags) != 0 ||
        (e->flags & NVTXW_PAYLOAD_ENTRY_FLAG_SEMANTIC_MASK) == NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP)
        return -1;
    return (int)size;
}

/* Entries one after the other: an explicit offset (finalize.c honours one
 * in DYNAMIC schemas too) puts an entry where the walk, not the sequence,
 * would look. */
static int entries_in_order(const nvtxPayloadSchemaAttr_t* attr) {
    size_t i;
    for (i = 0; i < attr->numEntries; i++) {
        if (attr->entries[i].offset != 0)
            return 0;
    }
    return 1;
}

static int dynamic_fast(const nvtxPayloadSchemaAttr_t* attr, core_fast_plan* plan) {
    int packed =
        (attr->fieldMask & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ALIGNMENT) && attr->packAlign == 1;
    size_t i;
    if (!entries_in_order(attr))
        return 0;
    if (attr->numEntries == 1 && entry_plain_string(&attr->entries[0]) &&
        attr->entries[0].semantics == NULL) {
        /* the string ends at the payload's end at the latest: nothing to
         * check (sinks take a plan without a sequence for this shape) */
        plan->min_size = 1;
        return 1;
    }
    if (attr->numEntries == 0 || attr->numEntries > CORE_FAST_MAX_SEQUENCE)
        return 0;
    for (i = 0; i < attr->numEntries; i++) {
        int code = entry_sequence_code(&attr->entries[i]);
        if (code < 0 || (code > 1 && !packed))
            return 0; /* another kind, or a scalar the walk may align */
        plan->sequence[i] = (uint8_t)code;
    }
    plan->sequence_count = attr->numEntries;
    plan->min_size = 1;
    return 1;
}

static int schema_fast(const nvtxw_schema_registry_t* registry, const nvtxw_schema_t* schema,
                       core_fast_plan* plan) {
    nvtxPayloadSchemaAttr_t attr;
    size_t i;
    nvtxw_schema_get_attr(schema, &attr);
    if (attr.type == NVTX_PAYLOAD_SCHEMA_TYPE_DYNAMIC)
        return dynamic_fast(&attr, plan);
    if (attr.type != NVTX_PAYLOAD_SCHEMA_TYPE_STATIC)
        return 0;
    for (i = 0; i < attr.numEntries; i++) {
        if (!entry_fast(registry, schema, i, &attr.entries[i], plan))
            return 0;
    }
    plan->min_size = nvtxw_schema_static_size(schema);
    return plan->min_size > 0;
}

nvtxwResultCode_t core_fast_plan_add(core_domain* domain, const nvtxw_schema_t* schema) {
    core_fast_plan plan;
    memset(&plan, 0, sizeof plan);
    core_fast_plan* copy;
    if (!schema_fast(domain->schemas, schema, &plan))
        return NVTXW_RESULT_SUCCESS; /* no plan: the full walk applies */
    copy = nvtxw_malloc(sizeof *copy);
    if (copy != NULL)
        *copy = plan; /* filled before it is published: writers read it lock-free */
    if (copy == NULL || pubmap_put(&domain->fast_plans, nvtxw_schema_id(schema), copy) != 0) {
        nvtxw_free(copy);
        return error_oom("a payload plan");
    }
    return NVTXW_RESULT_SUCCESS;
}

/* Predefined numeric payloads: whole elements only (trailing bytes ignored,
 * spec 2.4); strings of a known size; SIZE_MAX needs the walk. */
static int predefined_fast(const nvtxPayloadData_t* p) {
    size_t size = nvtxw_entry_type_size(p->schemaId);
    if (p->schemaId >= NVTX_PAYLOAD_ENTRY_TYPE_CSTRING &&
        p->schemaId <= NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF32) {
        size_t unit = p->schemaId == NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF16   ? 2
                      : p->schemaId == NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF32 ? 4
                                                                             : 1;
        return p->size != SIZE_MAX && p->size % unit == 0;
    }
    return size != 0 && p->size >= size && p->schemaId != NVTX_PAYLOAD_ENTRY_TYPE_SCOPE_ID &&
           p->schemaId != NVTX_PAYLOAD_ENTRY_TYPE_NVTX_REGISTERED_STRING_HANDLE &&
           p->schemaId < NVTX_PAYLOAD_ENTRY_TYPE_UNION_SELECTOR;
}

/* The fast plan of a schema, through the stream's direct-mapped cache (the
 * stream is the calling thread's own). Only plans are cached: a schema
 * without one takes the full walk, which costs far more than this lookup,
 * and a schema registered after a failed write finds its plan at once. */
static const core_fast_plan* stream_fast_plan(core_stream* stream, uint64_t schema_id) {
    unsigned slot = slot_hash(schema_id, CORE_PLAN_CACHE_BITS); /* one comparison */
    const core_fast_plan* plan;
    if (stream->plan_cache[slot].schema_id == schema_id && stream->plan_cache[slot].plan != NULL)
        return stream->plan_cache[slot].plan;
    plan = pubmap_get(&stream->domain->fast_plans, schema_id);
    if (plan != NULL) {
        stream->plan_cache[slot].schema_id = schema_id;
        stream->plan_cache[slot].plan = plan;
    }
    return plan;
}

const core_fast_plan* core_fast_plan_of(const core_domain* domain, uint64_t schema_id) {
    return pubmap_get(&domain->fast_plans, schema_id);
}

int core_event_fast_check(const core_event* event, core_event_facts* facts) {
    core_stream* stream = (core_stream*)event->stream;
    size_t i;
    facts->has_timestamp = 0;
    facts->timestamp = 0;
    for (i = 0; i < event->count; i++) {
        const nvtxPayloadData_t* p = &event->payloads[i];
        const core_fast_plan* plan;
        if (p->size == 0)
            continue;
        if (p->payload == NULL)
            return 0; /* the walk names it (so does core_fast_payload_valid) */
        if (p->schemaId == NVTX_TYPE_PAYLOAD_SCHEMA_REFERENCED) {
            if (p->size == SIZE_MAX)
                return 0; /* the walk refuses it */
            continue;     /* bytes that other payloads point into */
        }
        if (p->schemaId < NVTX_PAYLOAD_SCHEMA_ID_STATIC_START) {
            if (!predefined_fast(p))
                return 0;
            continue;
        }
        plan = stream_fast_plan(stream, p->schemaId);
        if (plan == NULL || !core_fast_payload_valid(stream->domain, plan, p))
            return 0;
        if (plan->has_timestamp && !facts->has_timestamp) {
            memcpy(&facts->timestamp, (const uint8_t*)p->payload + plan->timestamp_offset, 8);
            facts->has_timestamp = 1;
        }
    }
    return 1;
}
