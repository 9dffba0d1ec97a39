/*
 * payload/remap.c - ID maps, translated registration attrs and payload
 * rewriting for re-issuing calls into another session (see remap.h).
 */
#include "config.h"

#include <string.h>

#include "common/alloc.h"
#include "nvtxw/nvtx_types.h"
#include "payload/remap.h"

#define DYNAMIC NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START
#define REMAP_MAX_DEPTH 32
#define FORM_FLAGS                                                                                 \
    (NVTX_PAYLOAD_ENTRY_FLAG_POINTER | NVTX_PAYLOAD_ENTRY_FLAG_OFFSET_FROM_BASE |                  \
     NVTX_PAYLOAD_ENTRY_FLAG_OFFSET_FROM_HERE)

/* ---- ID maps ------------------------------------------------------------ */

static size_t slot_of(const remap_ids* map, uint64_t id) {
    size_t mask = map->capacity - 1;
    size_t pos = (size_t)((id * 0x9E3779B97F4A7C15ull) >> 17) & mask;
    while (map->keys[pos] != 0 && map->keys[pos] != id)
        pos = (pos + 1) & mask;
    return pos;
}

uint64_t remap_id(const remap_ids* map, uint64_t id) {
    size_t pos;
    if (map->capacity == 0 || (id < DYNAMIC && !map->has_static) || id == 0)
        return id;
    pos = slot_of(map, id);
    return map->keys[pos] == id ? map->values[pos] : id;
}

int remap_id_put(remap_ids* map, uint64_t id, uint64_t value) {
    return id < DYNAMIC ? 0 : remap_id_put_any(map, id, value);
}

int remap_id_put_any(remap_ids* map, uint64_t id, uint64_t value) {
    size_t pos;
    if (id == 0)
        return 0;
    if ((map->count + 1) * 2 > map->capacity) {
        remap_ids grown = {NULL, NULL, map->capacity ? map->capacity * 2 : 16, 0, map->has_static};
        size_t i;
        grown.keys = nvtxw_calloc(grown.capacity, sizeof *grown.keys);
        grown.values = nvtxw_calloc(grown.capacity, sizeof *grown.values);
        if (grown.keys == NULL || grown.values == NULL) {
            remap_ids_free(&grown);
            return -1;
        }
        for (i = 0; i < map->capacity; i++)
            if (map->keys[i] != 0)
                remap_id_put_any(&grown, map->keys[i], map->values[i]);
        remap_ids_free(map);
        *map = grown;
    }
    map->has_static |= id < DYNAMIC;
    pos = slot_of(map, id);
    map->count += map->keys[pos] == 0;
    map->keys[pos] = id;
    map->values[pos] = value;
    return 0;
}

void remap_ids_free(remap_ids* map) {
    nvtxw_free(map->keys);
    nvtxw_free(map->values);
    memset(map, 0, sizeof *map);
}

/* ---- Domains and strings ------------------------------------------------- */

nvtxStringHandle_t* remap_string_slot(remap_domain* domain, size_t index) {
    if (index >= domain->string_capacity) {
        size_t capacity = domain->string_capacity ? domain->string_capacity : 16;
        nvtxStringHandle_t* grown;
        while (capacity <= index)
            capacity *= 2;
        grown = nvtxw_reallocarray(domain->strings, capacity, sizeof *grown);
        if (grown == NULL)
            return NULL;
        memset(grown + domain->string_capacity, 0,
               (capacity - domain->string_capacity) * sizeof *grown);
        domain->strings = grown;
        domain->string_capacity = capacity;
    }
    if (index >= domain->string_count)
        domain->string_count = index + 1;
    return &domain->strings[index];
}

uint64_t remap_string(const remap_domain* domain, uint64_t handle) {
    uint64_t index = handle & UINT32_MAX;
    if (index == 0 || index > domain->string_count || domain->strings[index - 1] == NULL)
        return handle;
    return (uint64_t)(uintptr_t)domain->strings[index - 1];
}

void remap_domain_clear(remap_domain* domain) {
    nvtxw_free(domain->strings);
    remap_ids_free(&domain->schemas);
    remap_ids_free(&domain->scopes);
    remap_ids_free(&domain->counters);
    remap_ids_free(&domain->time_domains);
    remap_ids_free(&domain->categories);
    memset(domain, 0, sizeof *domain);
}

/* ---- Registration attrs -------------------------------------------------- */

int remap_semantics(const remap_domain* domain, const nvtxSemanticsHeader_t* src,
                    remap_alloc_fn alloc, void* ctx, const nvtxSemanticsHeader_t** out) {
    nvtxSemanticsHeader_t** tail = (nvtxSemanticsHeader_t**)out;
    *out = NULL;
    for (; src != NULL; src = src->next) {
        nvtxSemanticsHeader_t* copy = alloc(ctx, src->structSize);
        if (copy == NULL)
            return -1;
        memcpy(copy, src, src->structSize);
        copy->next = NULL;
        if (src->semanticId == NVTX_SEMANTIC_ID_SCOPE_V1)
            ((nvtxSemanticsScope_t*)copy)->scopeId =
                remap_id(&domain->scopes, ((nvtxSemanticsScope_t*)copy)->scopeId);
        else if (src->semanticId == NVTX_SEMANTIC_ID_TIME_V1)
            ((nvtxSemanticsTime_t*)copy)->timeDomainId =
                remap_id(&domain->time_domains, ((nvtxSemanticsTime_t*)copy)->timeDomainId);
        *tail = copy;
        tail = (nvtxSemanticsHeader_t**)&copy->next;
    }
    return 0;
}

int remap_schema_attr(const remap_domain* domain, nvtxPayloadSchemaAttr_t* attr,
                      remap_alloc_fn alloc, void* ctx) {
    nvtxPayloadSchemaEntry_t* entries = NULL;
    size_t i;
    if (attr->numEntries > 0) {
        entries = alloc(ctx, attr->numEntries * sizeof *entries);
        if (entries == NULL)
            return -1;
    }
    for (i = 0; i < attr->numEntries; i++) {
        entries[i] = attr->entries[i];
        entries[i].type = remap_id(&domain->schemas, entries[i].type);
        if (remap_semantics(domain, attr->entries[i].semantics, alloc, ctx,
                            &entries[i].semantics) != 0)
            return -1;
    }
    attr->entries = entries;
    if (attr->schemaId >= DYNAMIC) {
        attr->fieldMask &= ~(uint64_t)NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_SCHEMA_ID;
        attr->schemaId = 0;
    }
    return 0;
}

int remap_counter_attr(const remap_domain* domain, nvtxCounterAttr_t* attr, remap_alloc_fn alloc,
                       void* ctx) {
    attr->schemaId = remap_id(&domain->schemas, attr->schemaId);
    attr->scopeId = remap_id(&domain->scopes, attr->scopeId);
    if (attr->counterId >= DYNAMIC)
        attr->counterId = NVTX_COUNTER_ID_NONE;
    return remap_semantics(domain, attr->semantics, alloc, ctx, &attr->semantics);
}

/* ---- Event payloads ------------------------------------------------------ */

static void patch_u64(uint8_t* at, uint64_t (*map)(const remap_domain*, uint64_t),
                      const remap_domain* domain) {
    uint64_t value;
    memcpy(&value, at, 8);
    value = map(domain, value);
    memcpy(at, &value, 8);
}

static uint64_t map_scope(const remap_domain* domain, uint64_t id) {
    return remap_id(&domain->scopes, id);
}

static void patch_category(uint8_t* at, const remap_domain* domain) {
    uint32_t value;
    memcpy(&value, at, 4);
    value = (uint32_t)remap_id(&domain->categories, value);
    memcpy(at, &value, 4);
}

static void patch_pointer(const remap_event* ev, uint8_t* at) {
    uintptr_t value;
    size_t j;
    memcpy(&value, at, sizeof value);
    if (value == 0 || ev->origins == NULL)
        return;
    for (j = 0; j < ev->count; j++) {
        if (ev->origins[j] != 0 && value >= ev->origins[j] &&
            value - ev->origins[j] < ev->copies[j].size) {
            value = (uintptr_t)ev->copies[j].payload + (uintptr_t)(value - ev->origins[j]);
            memcpy(at, &value, sizeof value);
            return;
        }
    }
}

static void patch_object(const remap_event* ev, const nvtxw_schema_t* schema, uint8_t* data,
                         size_t size, unsigned depth);

/* `n` elements of one entry at data[at]: nested objects, string handles,
 * scope IDs or categories (these only when a merge renumbered one); other
 * types hold nothing to translate. */
static void patch_elements(const remap_event* ev, const nvtxPayloadSchemaEntry_t* e, uint8_t* data,
                           size_t size, size_t at, uint64_t n, unsigned depth) {
    /* Types below the static start are predefined (finalize.c's classify),
     * never a schema: no lookup for the common entries. */
    const nvtxw_schema_t* nested = e->type >= NVTX_PAYLOAD_SCHEMA_ID_STATIC_START
                                       ? nvtxw_schema_registry_find_schema(ev->registry, e->type)
                                       : NULL;
    int category = e->type == NVTX_PAYLOAD_ENTRY_TYPE_CATEGORY;
    size_t stride = nested ? nvtxw_schema_static_size(nested) : category ? 4 : 8;
    uint64_t k;
    if (category && ev->domain->categories.count == 0)
        return;
    if (nested == NULL && e->type != NVTX_PAYLOAD_ENTRY_TYPE_NVTX_REGISTERED_STRING_HANDLE &&
        e->type != NVTX_PAYLOAD_ENTRY_TYPE_SCOPE_ID && !category)
        return;
    if (nested != NULL && (nvtxw_schema_is_variable_size(nested) || stride == 0))
        return;
    for (k = 0; k < n && at <= size && stride <= size - at; k++, at += stride) {
        if (nested != NULL)
            patch_object(ev, nested, data + at, stride, depth + 1);
        else if (e->type == NVTX_PAYLOAD_ENTRY_TYPE_SCOPE_ID)
            patch_u64(data + at, map_scope, ev->domain);
        else if (category)
            patch_category(data + at, ev->domain);
        else
            patch_u64(data + at, remap_string, ev->domain);
    }
}

/* Whether patch_object may rewrite something of entry `e`: a pointer, or
 * an inline value or fixed array of a nested schema, a string handle, a
 * scope ID or a category. Most entries (numbers, strings) hold nothing to
 * translate: neither their offset nor a schema is looked up. */
static int entry_translatable(const nvtxPayloadSchemaEntry_t* e) {
    uint64_t form = e->flags & FORM_FLAGS, array = e->flags & NVTXW_PAYLOAD_ENTRY_FLAG_ARRAY_MASK;
    if (form == NVTX_PAYLOAD_ENTRY_FLAG_POINTER)
        return 1;
    if (form != 0 || (array != 0 && array != NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_FIXED_SIZE))
        return 0;
    return e->type >= NVTX_PAYLOAD_SCHEMA_ID_STATIC_START ||
           e->type == NVTX_PAYLOAD_ENTRY_TYPE_NVTX_REGISTERED_STRING_HANDLE ||
           e->type == NVTX_PAYLOAD_ENTRY_TYPE_SCOPE_ID ||
           e->type == NVTX_PAYLOAD_ENTRY_TYPE_CATEGORY;
}

static void patch_object(const remap_event* ev, const nvtxw_schema_t* schema, uint8_t* data,
                         size_t size, unsigned depth) {
    nvtxPayloadSchemaAttr_t attr;
    size_t i;
    if (depth > REMAP_MAX_DEPTH)
        return;
    nvtxw_schema_get_attr(schema, &attr);
    if (attr.type != NVTX_PAYLOAD_SCHEMA_TYPE_STATIC &&
        attr.type != NVTX_PAYLOAD_SCHEMA_TYPE_DYNAMIC)
        return; /* union members overlap: which one holds data is only known by parsing */
    for (i = 0; i < attr.numEntries; i++) {
        const nvtxPayloadSchemaEntry_t* e = &attr.entries[i];
        size_t at;
        uint64_t array = e->flags & NVTXW_PAYLOAD_ENTRY_FLAG_ARRAY_MASK;
        if (!entry_translatable(e) || (at = nvtxw_schema_entry_offset(schema, i)) == SIZE_MAX ||
            at > size)
            continue;
        if ((e->flags & FORM_FLAGS) == NVTX_PAYLOAD_ENTRY_FLAG_POINTER) {
            if (size - at >= sizeof(uintptr_t))
                patch_pointer(ev, data + at);
        } else if ((e->flags & FORM_FLAGS) == 0 && array == 0) {
            patch_elements(ev, e, data, size, at, 1, depth);
        } else if ((e->flags & FORM_FLAGS) == 0 &&
                   array == NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_FIXED_SIZE) {
            patch_elements(ev, e, data, size, at, e->arrayOrUnionDetail, depth);
        }
    }
}

void remap_event_patch(const remap_event* ev) {
    size_t i, k;
    for (i = 0; i < ev->count; i++) {
        uint8_t* data = (uint8_t*)(uintptr_t)ev->copies[i].payload;
        uint64_t id = ev->source_ids[i];
        const nvtxw_schema_t* schema = nvtxw_schema_registry_find_schema(ev->registry, id);
        if (schema != NULL)
            patch_object(ev, schema, data, ev->copies[i].size, 0);
        else if (id == NVTX_PAYLOAD_ENTRY_TYPE_NVTX_REGISTERED_STRING_HANDLE)
            for (k = 0; k + 8 <= ev->copies[i].size; k += 8)
                patch_u64(data + k, remap_string, ev->domain);
        else if (id == NVTX_PAYLOAD_ENTRY_TYPE_SCOPE_ID)
            for (k = 0; k + 8 <= ev->copies[i].size; k += 8)
                patch_u64(data + k, map_scope, ev->domain);
    }
}
