/*
 * payload/visit.c - nvtxw_payload_visit: the event loop over the payloads of
 * one event (spec 2.4, 7.3), predefined-type and RAW payloads, pointer
 * resolution, the field path and error messages.
 *
 * Per payload, in array order:
 *   size 0                           -> no events
 *   NULL pointer                     -> error
 *   schema REFERENCED                -> no events (SIZE_MAX: error, its
 *                                       bytes could not be told)
 *   size SIZE_MAX                    -> predefined C-string types only: the
 *                                       length is taken from the producer's
 *                                       memory (in-process use); else error
 *   RAW (1023)                       -> payload_begin(.., "<raw>"), one field
 *                                       "" holding on_bytes(all)
 *   predefined type (< 1<<24)        -> payload_begin(.., type name), one
 *                                       field "": a string, a scalar, or an
 *                                       array of size/elementSize elements
 *   registered schema                -> payload_begin(.., schema name), its
 *                                       fields (visit_entry.c)
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "payload/visit_internal.h"

/* Writes the field path ("ops[3].name") into buf. */
static void format_path(const visit_state_t* vs, char* buf, size_t size) {
    size_t used = 0;
    size_t k;
    buf[0] = '\0';
    for (k = 0; k < vs->path_len && used < size; k++) {
        const visit_path_item_t* item = &vs->path[k];
        int n;
        if (item->name == NULL)
            n = snprintf(buf + used, size - used, "[%llu]", (unsigned long long)item->index);
        else if (item->name[0] == '\0')
            n = snprintf(buf + used, size - used, "%s<entry %zu>", k ? "." : "", item->entry);
        else
            n = snprintf(buf + used, size - used, "%s%s", k ? "." : "", item->name);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

/* "payload I (schema S "name")" plus ": field "path"" when inside a field. */
static void format_where(const visit_state_t* vs, char* buf, size_t size) {
    char path[512];
    format_path(vs, path, sizeof path);
    if (vs->path_len > 0)
        snprintf(buf, size, "payload %zu (schema %llu \"%s\"): field \"%s\"", vs->index,
                 (unsigned long long)vs->schema_id, vs->schema_name, path);
    else
        snprintf(buf, size, "payload %zu (schema %llu \"%s\")", vs->index,
                 (unsigned long long)vs->schema_id, vs->schema_name);
}

int visit_fail(visit_state_t* vs, const char* format, ...) {
    char where[768];
    char detail[NVTXW_ERROR_MAX];
    va_list args;
    va_start(args, format);
    vsnprintf(detail, sizeof detail, format, args);
    va_end(args);
    format_where(vs, where, sizeof where);
    return error_set(NVTXW_RESULT_INVALID_ARGUMENT, "cannot decode %s: %s", where, detail);
}

int visit_stopped(visit_state_t* vs, int result, const char* callback) {
    char where[768];
    if (result == 0)
        return 0;
    format_where(vs, where, sizeof where);
    return error_set(NVTXW_RESULT_FAILED, "visitor stopped at %s: %s returned %d", where, callback,
                     result);
}

int visit_need(visit_state_t* vs, const visit_region_t* region, size_t pos, size_t n) {
    if (pos <= region->size && n <= region->size - pos)
        return 0;
    if (region->payload == vs->index)
        return visit_fail(vs, "needs %zu bytes at offset %zu, payload has %zu", n, pos,
                          region->size);
    return visit_fail(vs, "needs %zu bytes at offset %zu, payload %zu has %zu", n, pos,
                      region->payload, region->size);
}

int visit_path_push(visit_state_t* vs, const char* name, size_t entry, uint64_t index) {
    visit_path_item_t* item;
    if (vs->path_len == VISIT_MAX_PATH)
        return visit_fail(vs, "nesting deeper than %d path elements", VISIT_MAX_PATH);
    item = &vs->path[vs->path_len++];
    item->name = name;
    item->entry = entry;
    item->index = index;
    return 0;
}

int visit_resolve_pointer(visit_state_t* vs, uintptr_t address, int allow_foreign,
                          visit_region_t* region, size_t* pos) {
    size_t j;
    memset(region, 0, sizeof *region);
    *pos = 0;
    if (address == 0)
        return 0;
    for (j = 0; j < vs->count; j++) {
        const nvtxPayloadData_t* p = &vs->payloads[j];
        uint64_t start = vs->origins ? vs->origins[j] : (uint64_t)(uintptr_t)p->payload;
        if (p->payload == NULL || p->size == 0 || p->size == SIZE_MAX)
            continue;
        if (address >= start && address - start < p->size) {
            region->data = p->payload;
            region->size = p->size;
            region->payload = j;
            *pos = (size_t)(address - start);
            return 0;
        }
    }
    if (!allow_foreign)
        return visit_fail(vs, "pointer 0x%llx points into no payload of the event",
                          (unsigned long long)address);
    /* In-process deep copy: the producer's memory, unbounded by design. */
    region->data = (const uint8_t*)address;
    region->size = UINTPTR_MAX - address;
    region->payload = SIZE_MAX;
    return 0;
}

static int visit_field_begin(visit_state_t* vs, const nvtxw_field_info_t* field) {
    return VISIT_CALL(vs, field_begin, field);
}

/* Elements of a predefined numeric payload: scalar, or an array. */
static int predefined_values(visit_state_t* vs, const entry_type_info_t* info, const uint8_t* data,
                             size_t size) {
    size_t esize = info->category == ENTRY_CAT_SELECTOR ? 4 : info->size;
    size_t n = size / esize; /* trailing bytes are ignored (spec 2.4) */
    size_t k;
    int status;
    if (n == 0)
        return visit_fail(vs, "needs %zu bytes for one %s, payload has %zu", esize, info->name,
                          size);
    if (info->type == NVTX_PAYLOAD_ENTRY_TYPE_BYTE)
        return VISIT_CALL(vs, on_bytes, data, size);
    if (n == 1)
        return visit_emit_number(vs, info, data, esize);
    status = VISIT_CALL(vs, array_begin, (uint64_t)n);
    for (k = 0; k < n && status == 0; k++)
        status = visit_emit_number(vs, info, data + k * esize, esize);
    return status ? status : VISIT_CALL0(vs, array_end);
}

static int visit_predefined(visit_state_t* vs, const nvtxPayloadData_t* p, size_t size) {
    const entry_type_info_t* info = registry_entry_type(p->schemaId);
    nvtxw_field_info_t field;
    int status;
    memset(&field, 0, sizeof field);
    field.name = field.description = "";
    field.type = p->schemaId;
    if (info == NULL)
        return visit_fail(vs, "unknown predefined type %llu", (unsigned long long)p->schemaId);
    vs->schema_name = info->name;
    status = VISIT_CALL(vs, payload_begin, vs->index, p->schemaId, size, info->name);
    if (status == 0)
        status = visit_path_push(vs, "", 0, 0);
    if (status != 0)
        return status;
    status = visit_field_begin(vs, &field);
    if (status == 0 && info->category == ENTRY_CAT_STRING) {
        if (size < info->unit)
            status = visit_fail(vs, "needs %u bytes for one code unit, payload has %zu",
                                (unsigned)info->unit, size);
        else
            status = visit_emit_string(vs, p->payload, size / info->unit, info->unit);
    } else if (status == 0) {
        status = predefined_values(vs, info, p->payload, size);
    }
    if (status == 0)
        status = VISIT_CALL(vs, field_end, &field);
    visit_path_pop(vs);
    return status ? status : VISIT_CALL(vs, payload_end, vs->index);
}

static int visit_raw(visit_state_t* vs, const nvtxPayloadData_t* p) {
    nvtxw_field_info_t field;
    int status;
    memset(&field, 0, sizeof field);
    field.name = field.description = "";
    field.type = NVTX_PAYLOAD_ENTRY_TYPE_BYTE;
    vs->schema_name = "<raw>";
    status = VISIT_CALL(vs, payload_begin, vs->index, p->schemaId, p->size, "<raw>");
    if (status == 0)
        status = visit_field_begin(vs, &field);
    if (status == 0)
        status = VISIT_CALL(vs, on_bytes, p->payload, p->size);
    if (status == 0)
        status = VISIT_CALL(vs, field_end, &field);
    return status ? status : VISIT_CALL(vs, payload_end, vs->index);
}

/* First entry of a STATIC (or union) schema that the payload cannot hold.
 * A payload shorter than the static size whose entries all fit (tail padding
 * or a larger payloadStaticSize not sent) is decoded, as in spec 7.3. */
static int check_static_size(visit_state_t* vs, const nvtxw_schema_t* schema, size_t size) {
    size_t i;
    if (schema->attr.type == NVTX_PAYLOAD_SCHEMA_TYPE_DYNAMIC || size >= schema->static_size)
        return 0;
    for (i = 0; i < schema->attr.numEntries; i++) {
        const finalized_entry_t* fe = &schema->fin[i];
        if (fe->offset > size || fe->inline_size > size - fe->offset) {
            const char* name = schema->entries[i].name;
            int status = visit_path_push(vs, name ? name : "", i, 0);
            if (status == 0)
                status = visit_fail(vs,
                                    "needs %zu bytes at offset %zu, payload has %zu "
                                    "(schema static size %zu)",
                                    fe->inline_size, fe->offset, size, schema->static_size);
            vs->path_len = 0;
            return status;
        }
    }
    return 0;
}

static int visit_schema_payload(visit_state_t* vs, const nvtxPayloadData_t* p) {
    const nvtxw_schema_t* schema = nvtxw_schema_registry_find_schema(vs->registry, p->schemaId);
    visit_region_t region;
    size_t consumed = 0;
    int flat, status;
    if (schema == NULL)
        return visit_fail(
            vs, "schema ID %llu is not registered%s", (unsigned long long)p->schemaId,
            nvtxw_schema_registry_find_enum(vs->registry, p->schemaId) ? " (it is an enum)" : "");
    vs->schema_name = registry_schema_label(schema);
    flat = schema->flat && p->size >= schema->static_size; /* most payloads */
    if (!flat && schema->attr.type == NVTX_PAYLOAD_SCHEMA_TYPE_UNION)
        return visit_fail(vs, "a UNION schema with an external selector cannot be a payload");
    status = flat ? 0 : check_static_size(vs, schema, p->size);
    if (status == 0)
        status = VISIT_CALL(vs, payload_begin, vs->index, p->schemaId, p->size, vs->schema_name);
    if (status != 0)
        return status;
    if (flat) {
        status = visit_flat(vs, schema, p->payload);
    } else {
        region.data = p->payload;
        region.size = p->size;
        region.payload = vs->index;
        status = visit_fields(vs, schema, &region, 0, 0, 0, &consumed);
    }
    return status ? status : VISIT_CALL(vs, payload_end, vs->index);
}

/* SIZE_MAX on a predefined C-string type: code units up to NUL, plus it. */
static int string_size(visit_state_t* vs, const nvtxPayloadData_t* p, size_t* size) {
    const entry_type_info_t* info = registry_entry_type(p->schemaId);
    const uint8_t* s = p->payload;
    size_t units = 0;
    static const uint8_t zero[4] = {0, 0, 0, 0};
    if (p->schemaId >= NVTX_PAYLOAD_SCHEMA_ID_STATIC_START || info == NULL ||
        info->category != ENTRY_CAT_STRING)
        return visit_fail(vs, "size SIZE_MAX is only allowed for predefined C-string types");
    while (memcmp(s + units * info->unit, zero, info->unit) != 0)
        units++;
    *size = (units + 1) * info->unit;
    return 0;
}

static int visit_one(visit_state_t* vs, const nvtxPayloadData_t* given) {
    nvtxPayloadData_t p = *given;
    vs->schema_id = p.schemaId;
    vs->schema_name = "";
    vs->path_len = 0;
    vs->depth = 0;
    vs->slot_top = 0;
    /* the common case first: a registered schema's payload of known size */
    if (p.schemaId >= NVTX_PAYLOAD_SCHEMA_ID_STATIC_START && p.payload != NULL && p.size != 0 &&
        p.size != SIZE_MAX)
        return visit_schema_payload(vs, &p);
    if (p.size == 0)
        return 0;
    if (p.payload == NULL)
        return visit_fail(vs, "payload pointer is NULL with size %zu", p.size);
    if (p.schemaId == NVTX_TYPE_PAYLOAD_SCHEMA_REFERENCED) /* bytes to point into: no events */
        return p.size == SIZE_MAX ? visit_fail(vs, "a REFERENCED payload needs its size (SIZE_MAX "
                                                   "is for predefined C strings only)")
                                  : 0;
    if (p.size == SIZE_MAX) {
        int status = string_size(vs, &p, &p.size);
        if (status != 0)
            return status;
    }
    if (p.schemaId == NVTX_TYPE_PAYLOAD_SCHEMA_RAW)
        return visit_raw(vs, &p);
    if (p.schemaId < NVTX_PAYLOAD_SCHEMA_ID_STATIC_START)
        return visit_predefined(vs, &p, p.size);
    return visit_schema_payload(vs, &p);
}

static void state_init(visit_state_t* vs, const nvtxw_visitor_t* visitor, void* ctx,
                       const nvtxw_visit_options_t* options) {
    /* Member by member, not memset: this runs once per event, and GCC
     * turns a memset of this size into `rep stos`, slow to start. */
    vs->registry = NULL;
    vs->payloads = NULL;
    vs->count = 0;
    vs->resolve = NULL;
    vs->resolve_ctx = NULL;
    vs->flags = 0;
    vs->origins = NULL;
    vs->index = 0;
    vs->schema_id = 0;
    vs->schema_name = "";
    vs->depth = 0;
    vs->v = visitor;
    if (visitor->struct_size < sizeof *visitor) {
        memset(&vs->short_visitor, 0, sizeof vs->short_visitor);
        memcpy(&vs->short_visitor, visitor, visitor->struct_size);
        vs->v = &vs->short_visitor;
    }
    vs->ctx = ctx;
    if (options != NULL) {
        if (options->struct_size >= offsetof(nvtxw_visit_options_t, resolve_ctx) + sizeof(void*)) {
            vs->resolve = options->resolve_string;
            vs->resolve_ctx = options->resolve_ctx;
        }
        if (options->struct_size >= offsetof(nvtxw_visit_options_t, flags) + sizeof(uint32_t))
            vs->flags = options->flags;
        if (options->struct_size >=
            offsetof(nvtxw_visit_options_t, payload_origins) + sizeof(const uint64_t*))
            vs->origins = options->payload_origins;
    }
    vs->scratch = vs->inline_scratch;
    vs->scratch_capacity = sizeof vs->inline_scratch;
    vs->path_len = 0;
    vs->slot_top = 0;
}

nvtxwResultCode_t nvtxw_payload_visit(const nvtxw_schema_registry_t* registry,
                                      const nvtxPayloadData_t* payloads, size_t count,
                                      const nvtxw_visitor_t* visitor, void* ctx,
                                      const nvtxw_visit_options_t* options) {
    visit_state_t vs;
    size_t i;
    int status;
    if (visitor == NULL || (payloads == NULL && count > 0))
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot visit payloads: visitor=%p, payloads=%p, count=%zu",
                         (const void*)visitor, (const void*)payloads, count);
    state_init(&vs, visitor, ctx, options);
    vs.registry = registry;
    vs.payloads = payloads;
    vs.count = count;
    vs.index = 0;
    vs.schema_name = "";
    status = VISIT_CALL(&vs, begin_payloads, count);
    for (i = 0; i < count && status == 0; i++) {
        vs.index = i;
        status = visit_one(&vs, &payloads[i]);
    }
    vs.path_len = 0;
    if (status == 0)
        status = VISIT_CALL0(&vs, end_payloads);
    if (vs.scratch != vs.inline_scratch)
        nvtxw_free(vs.scratch);
    return status;
}

/* Walks one payload of a DYNAMIC schema with a visitor that does nothing,
 * to learn how many bytes it occupies (event batches, spec 2.13). */
nvtxwResultCode_t nvtxw_payload_measure(const nvtxw_schema_registry_t* registry, uint64_t schema_id,
                                        const void* data, size_t size, size_t* consumed) {
    nvtxw_visitor_t quiet;
    const nvtxw_schema_t* schema = nvtxw_schema_registry_find_schema(registry, schema_id);
    nvtxPayloadData_t payload;
    visit_region_t region;
    visit_state_t vs;
    int status;
    if (consumed == NULL || (data == NULL && size > 0))
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot measure payload: consumed=%p, data=%p, size=%zu", (void*)consumed,
                         data, size);
    memset(&quiet, 0, sizeof quiet);
    quiet.struct_size = sizeof quiet;
    payload.schemaId = schema_id;
    payload.size = size;
    payload.payload = data;
    state_init(&vs, &quiet, NULL, NULL);
    vs.registry = registry;
    vs.payloads = &payload;
    vs.count = 1;
    vs.schema_id = schema_id;
    vs.schema_name = schema ? registry_schema_label(schema) : "";
    if (schema == NULL)
        return visit_fail(&vs, "schema ID %llu is not registered", (unsigned long long)schema_id);
    region.data = data;
    region.size = size;
    region.payload = 0;
    *consumed = 0;
    status = check_static_size(&vs, schema, size);
    if (status == 0)
        status = visit_fields(&vs, schema, &region, 0, 0, 0, consumed);
    if (vs.scratch != vs.inline_scratch)
        nvtxw_free(vs.scratch);
    if (status == 0 && schema->attr.type != NVTX_PAYLOAD_SCHEMA_TYPE_DYNAMIC &&
        *consumed < schema->static_size)
        *consumed = schema->static_size;
    return status;
}
