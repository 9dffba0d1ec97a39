/*
 * reader/reader_replay_patch.c - rewriting an event's payload copies for
 * replay into a new session. Registered string handles are the report
 * writer's values (low 32 bits: string index + 1) and must become the new
 * session's; POINTER values are the producer's addresses (the event's
 * origins) and must point into the copies. Only fixed positions are known
 * without parsing: top-level entries with a resolved offset, elements of
 * FIXED_SIZE arrays, and the same inside nested schemas by value, up to
 * REPLAY_MAX_DEPTH levels. Every access is bounds-checked.
 */
#include "config.h"

#include <string.h>

#include "nvtxw/nvtx_types.h"
#include "reader/reader_replay.h"

#define REPLAY_MAX_DEPTH 32
#define FORM_FLAGS                                                                                 \
    (NVTX_PAYLOAD_ENTRY_FLAG_POINTER | NVTX_PAYLOAD_ENTRY_FLAG_OFFSET_FROM_BASE |                  \
     NVTX_PAYLOAD_ENTRY_FLAG_OFFSET_FROM_HERE)

typedef struct patch_ctx {
    const replay_state* st;
    const replay_domain* domain;
    const nvtxw_schema_registry_t* registry;
    const nvtxw_record_t* rec;
    nvtxPayloadData_t* copies;
} patch_ctx;

static void patch_handle(const patch_ctx* pc, uint8_t* at) {
    uint64_t handle, index;
    memcpy(&handle, at, 8);
    index = handle & UINT32_MAX;
    if (index == 0 || index > pc->domain->string_count)
        return;
    handle = (uint64_t)(uintptr_t)pc->domain->strings[index - 1];
    memcpy(at, &handle, 8);
}

static void patch_pointer(const patch_ctx* pc, uint8_t* at) {
    const uint64_t* origins = pc->rec->u.event.origins;
    uintptr_t value;
    size_t j;
    memcpy(&value, at, sizeof value);
    if (value == 0 || origins == NULL)
        return;
    for (j = 0; j < pc->rec->u.event.count; j++) {
        if (value >= origins[j] && value - origins[j] < pc->copies[j].size) {
            value = (uintptr_t)pc->copies[j].payload + (uintptr_t)(value - origins[j]);
            memcpy(at, &value, sizeof value);
            return;
        }
    }
}

static void patch_object(const patch_ctx* pc, const nvtxw_schema_t* schema, uint8_t* data,
                         size_t size, unsigned depth);

/* `n` elements of one entry at data[at]. */
static void patch_elements(const patch_ctx* pc, const nvtxPayloadSchemaEntry_t* e, uint8_t* data,
                           size_t size, size_t at, uint64_t n, unsigned depth) {
    const nvtxw_schema_t* nested = nvtxw_schema_registry_find_schema(pc->registry, e->type);
    size_t stride = nested ? nvtxw_schema_static_size(nested) : 8;
    uint64_t k;
    if (nested == NULL && e->type != NVTX_PAYLOAD_ENTRY_TYPE_NVTX_REGISTERED_STRING_HANDLE)
        return;
    if (nested != NULL && (nvtxw_schema_is_variable_size(nested) || stride == 0))
        return;
    for (k = 0; k < n && at <= size && stride <= size - at; k++, at += stride) {
        if (nested != NULL)
            patch_object(pc, nested, data + at, stride, depth + 1);
        else
            patch_handle(pc, data + at);
    }
}

static void patch_object(const patch_ctx* pc, const nvtxw_schema_t* schema, uint8_t* data,
                         size_t size, unsigned depth) {
    nvtxPayloadSchemaAttr_t attr;
    size_t i;
    if (depth > REPLAY_MAX_DEPTH)
        return;
    nvtxw_schema_get_attr(schema, &attr);
    if (attr.type != NVTX_PAYLOAD_SCHEMA_TYPE_STATIC &&
        attr.type != NVTX_PAYLOAD_SCHEMA_TYPE_DYNAMIC)
        return; /* union members overlap: which one holds data is only known by parsing */
    for (i = 0; i < attr.numEntries; i++) {
        const nvtxPayloadSchemaEntry_t* e = &attr.entries[i];
        size_t at = nvtxw_schema_entry_offset(schema, i);
        uint64_t array = e->flags & NVTXW_PAYLOAD_ENTRY_FLAG_ARRAY_MASK;
        if (at == SIZE_MAX || at > size)
            continue;
        if ((e->flags & FORM_FLAGS) == NVTX_PAYLOAD_ENTRY_FLAG_POINTER) {
            if (size - at >= sizeof(uintptr_t))
                patch_pointer(pc, data + at);
        } else if ((e->flags & FORM_FLAGS) == 0 && array == 0) {
            patch_elements(pc, e, data, size, at, 1, depth);
        } else if ((e->flags & FORM_FLAGS) == 0 &&
                   array == NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_FIXED_SIZE) {
            patch_elements(pc, e, data, size, at, e->arrayOrUnionDetail, depth);
        }
    }
}

void replay_patch_event(const replay_state* st, const nvtxw_record_t* rec,
                        nvtxPayloadData_t* copies) {
    patch_ctx pc;
    size_t i, k;
    pc.st = st;
    pc.domain = &st->domains[rec->domain];
    pc.registry = nvtxw_reader_registry(st->reader, rec->domain);
    pc.rec = rec;
    pc.copies = copies;
    for (i = 0; i < rec->u.event.count; i++) {
        const nvtxPayloadData_t* src = &rec->u.event.payloads[i];
        uint8_t* data = (uint8_t*)(uintptr_t)copies[i].payload;
        const nvtxw_schema_t* schema =
            nvtxw_schema_registry_find_schema(pc.registry, src->schemaId);
        if (schema != NULL)
            patch_object(&pc, schema, data, copies[i].size, 0);
        else if (src->schemaId == NVTX_PAYLOAD_ENTRY_TYPE_NVTX_REGISTERED_STRING_HANDLE)
            for (k = 0; k + 8 <= copies[i].size; k += 8)
                patch_handle(&pc, data + k);
    }
}
