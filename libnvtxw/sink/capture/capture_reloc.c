/*
 * sink/capture/capture_reloc.c - Sink=capture's relocated form: a payload
 * whose bytes hold pointers, written as hex with every pointer slot zeroed
 * plus a list of where the pointers led (docs/capture-format.md,
 * "Pointers"):
 *
 *   ,"hex":"...","pointers":[[AT,PAYLOAD,OFFSET],...]
 *
 * AT is the slot's byte offset in this payload, PAYLOAD the index of the
 * event's payload the pointer leads into and OFFSET the byte in it. The
 * reader puts the address of its own copy of that byte back in the slot.
 * Slots are found at fixed positions only (top-level entries with a
 * resolved offset, nested schemas by value and their FIXED_SIZE arrays),
 * the positions the report reader's replay rewrites as well; a pointer
 * anywhere else (in a union member, after a variable-size part, inside
 * pointed-to data) cannot be located without parsing and is refused.
 */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "sink/capture/capture_internal.h"

#define RELOC_MAX_DEPTH 32
#define FORM_FLAGS                                                                                 \
    (NVTX_PAYLOAD_ENTRY_FLAG_POINTER | NVTX_PAYLOAD_ENTRY_FLAG_OFFSET_FROM_BASE |                  \
     NVTX_PAYLOAD_ENTRY_FLAG_OFFSET_FROM_HERE)

typedef struct reloc_walk {
    const nvtxw_schema_registry_t* registry;
    const core_event* event;
    size_t index;        /* the payload being written */
    unsigned char* copy; /* its bytes; slots are zeroed here */
    size_t size;
    strbuf* list; /* "[AT,PAYLOAD,OFFSET]" items, comma separated */
} reloc_walk;

/* Non-zero when the schema, or one it nests or points to, has a POINTER. */
static int schema_has_pointers(const nvtxw_schema_registry_t* registry, uint64_t id,
                               unsigned depth) {
    const nvtxw_schema_t* s = nvtxw_schema_registry_find_schema(registry, id);
    nvtxPayloadSchemaAttr_t a;
    size_t i;
    if (s == NULL || depth > RELOC_MAX_DEPTH)
        return 0;
    nvtxw_schema_get_attr(s, &a);
    for (i = 0; i < a.numEntries; i++) {
        if ((a.entries[i].flags & NVTX_PAYLOAD_ENTRY_FLAG_POINTER) ||
            schema_has_pointers(registry, a.entries[i].type, depth + 1))
            return 1;
    }
    return 0;
}

static nvtxwResultCode_t refuse(const reloc_walk* w, const char* what) {
    return error_set(NVTXW_RESULT_NOT_SUPPORTED,
                     "cannot write payload %zu (schema %" PRIu64 ") to a capture: %s", w->index,
                     w->event->payloads[w->index].schemaId, what);
}

/* The pointer in the slot at `at`: NULL stays zero without an item;
 * otherwise it must lead into a payload of the event. */
static nvtxwResultCode_t relocate(reloc_walk* w, size_t at) {
    uintptr_t value;
    size_t j;
    if (at > w->size || w->size - at < sizeof value)
        return refuse(w, "a pointer lies beyond the payload's end");
    memcpy(&value, w->copy + at, sizeof value);
    if (value == 0)
        return NVTXW_RESULT_SUCCESS;
    for (j = 0; j < w->event->count; j++) {
        const nvtxPayloadData_t* p = &w->event->payloads[j];
        uintptr_t start = (uintptr_t)p->payload;
        if (p->payload != NULL && p->size > 0 && value >= start &&
            value - start < core_payload_bytes(p)) {
            memset(w->copy + at, 0, sizeof value);
            return strbuf_printf(w->list, "%s[%zu,%zu,%" PRIuPTR "]", w->list->length ? "," : "",
                                 at, j, value - start)
                       ? error_oom("a capture line")
                       : NVTXW_RESULT_SUCCESS;
        }
    }
    return refuse(w, "a pointer leads outside the event's payloads (producer memory is not "
                     "captured)");
}

static nvtxwResultCode_t walk_object(reloc_walk* w, const nvtxw_schema_t* schema, size_t base,
                                     unsigned depth);

/* Entry `e` at `at` (from the payload's start) when it is not a pointer:
 * nested schemas with pointers by value, alone or in a FIXED_SIZE array. */
static nvtxwResultCode_t walk_nested(reloc_walk* w, const nvtxPayloadSchemaEntry_t* e, size_t at,
                                     unsigned depth) {
    const nvtxw_schema_t* nested = nvtxw_schema_registry_find_schema(w->registry, e->type);
    uint64_t array = e->flags & NVTXW_PAYLOAD_ENTRY_FLAG_ARRAY_MASK;
    size_t stride, k, n;
    nvtxwResultCode_t status = NVTXW_RESULT_SUCCESS;
    if (nested == NULL || !schema_has_pointers(w->registry, e->type, 0))
        return NVTXW_RESULT_SUCCESS;
    if ((e->flags & FORM_FLAGS) != 0 || at == SIZE_MAX || nvtxw_schema_is_variable_size(nested) ||
        (array != 0 && array != NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_FIXED_SIZE))
        return refuse(w, "it holds pointers at positions known only while parsing");
    stride = nvtxw_schema_static_size(nested);
    n = array ? (size_t)e->arrayOrUnionDetail : 1;
    for (k = 0; k < n && status == NVTXW_RESULT_SUCCESS; k++)
        status = walk_object(w, nested, at + k * stride, depth + 1);
    return status;
}

static nvtxwResultCode_t walk_object(reloc_walk* w, const nvtxw_schema_t* schema, size_t base,
                                     unsigned depth) {
    nvtxPayloadSchemaAttr_t attr;
    size_t i;
    nvtxwResultCode_t status = NVTXW_RESULT_SUCCESS;
    if (depth > RELOC_MAX_DEPTH || base > w->size)
        return refuse(w, "it nests too deep or lies beyond the payload's end");
    nvtxw_schema_get_attr(schema, &attr);
    if (attr.type != NVTX_PAYLOAD_SCHEMA_TYPE_STATIC &&
        attr.type != NVTX_PAYLOAD_SCHEMA_TYPE_DYNAMIC)
        return schema_has_pointers(w->registry, nvtxw_schema_id(schema), 0)
                   ? refuse(w, "it holds pointers in a union")
                   : NVTXW_RESULT_SUCCESS;
    for (i = 0; i < attr.numEntries && status == NVTXW_RESULT_SUCCESS; i++) {
        const nvtxPayloadSchemaEntry_t* e = &attr.entries[i];
        size_t at = nvtxw_schema_entry_offset(schema, i);
        if ((e->flags & FORM_FLAGS) != NVTX_PAYLOAD_ENTRY_FLAG_POINTER)
            status = walk_nested(w, e, at == SIZE_MAX ? SIZE_MAX : base + at, depth);
        else if (at == SIZE_MAX)
            status = refuse(w, "it holds a pointer at a position known only while parsing");
        else if (schema_has_pointers(w->registry, e->type, 0))
            status = refuse(w, "it points to data that holds pointers");
        else
            status = relocate(w, base + at);
    }
    return status;
}

nvtxwResultCode_t capture_relocated(strbuf* out, const nvtxw_schema_registry_t* registry,
                                    const core_event* event, size_t index) {
    const nvtxPayloadData_t* p = &event->payloads[index];
    const nvtxw_schema_t* schema = nvtxw_schema_registry_find_schema(registry, p->schemaId);
    strbuf list = {0};
    reloc_walk w = {registry, event, index, NULL, p->size > 0 ? core_payload_bytes(p) : 0, &list};
    nvtxwResultCode_t status = NVTXW_RESULT_SUCCESS;
    if (w.size > 0 && (w.copy = nvtxw_malloc(w.size)) == NULL)
        return error_oom("a capture line");
    if (w.size > 0)
        memcpy(w.copy, p->payload, w.size);
    if (schema != NULL)
        status = walk_object(&w, schema, 0, 0);
    if (status == NVTXW_RESULT_SUCCESS &&
        (strbuf_append(out, ",\"hex\":", 7) || capture_json_hex(out, w.copy, w.size) ||
         (list.length > 0 &&
          (strbuf_append(out, ",\"pointers\":[", 13) ||
           strbuf_append(out, list.data, list.length) || strbuf_append(out, "]", 1)))))
        status = error_oom("a capture line");
    nvtxw_free(w.copy);
    strbuf_free(&list);
    return status;
}
