/*
 * payload/registry.c - per-domain registry of payload schemas and enums.
 *
 * Registrations live in an array in registration order; a hash map from
 * IDs to the same items makes the visitor's per-event lookups O(1). Both
 * are published tables (common/pubmap.h): lookups, count and at may run on
 * any thread while one thread at a time adds (the core's registration
 * mutex), so writers decode payloads while schemas are being registered.
 * An item is complete (its schema finalized) before it is published. Schema and enum IDs share one
 * namespace (spec 3.5): static IDs in [1<<24, 1<<32) are the caller's, dynamic ones are handed out
 * from 1<<32 upward. Everything the caller passes is deep-copied (spec conformance 39): names,
 * descriptions, entries and semantics chains. Of the semantics chain the known extensions (scope,
 * time, counters) are copied by their struct size; unknown extensions are dropped because their
 * layout, and thus what a copy must include, is unknown.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "common/pubmap.h"
#include "common/utf8.h"
#include "payload/registry_internal.h"
#include "payload/semantics.h"

typedef struct registry_item {
    nvtxw_schema_t* schema;
    nvtxw_enum_t* enumeration;
    uint64_t id;
} registry_item_t;

struct nvtxw_schema_registry {
    pubvec items;         /* registration order: index -> registry_item_t* */
    pubmap by_id;         /* ID -> registry_item_t* */
    _Atomic size_t count; /* items published; release after each one */
    uint64_t next_dynamic;
};

static const registry_item_t* registry_lookup(const nvtxw_schema_registry_t* registry,
                                              uint64_t id) {
    return registry ? pubmap_get(&registry->by_id, id) : NULL;
}

/* Number of published items. Acquire: pairs with registry_commit's release,
 * so every item below the count is visible (the cast only drops const). */
static size_t registry_published(const nvtxw_schema_registry_t* registry) {
    return atomic_load_explicit((_Atomic size_t*)&registry->count, memory_order_acquire);
}

/* Makes room for one more registration so that committing cannot fail;
 * *item receives its (empty) item. */
static nvtxwResultCode_t registry_reserve(nvtxw_schema_registry_t* registry,
                                          registry_item_t** item) {
    size_t count = atomic_load_explicit(&registry->count, memory_order_relaxed);
    if (pubvec_reserve(&registry->items, count) != 0 || pubmap_reserve(&registry->by_id, 1) != 0 ||
        (*item = nvtxw_calloc(1, sizeof **item)) == NULL)
        return error_oom("the schema registry");
    return NVTXW_RESULT_SUCCESS;
}

/* Publishes a complete registration: in the order array, in the ID map,
 * then the count (release). Cannot fail after registry_reserve. */
static void registry_commit(nvtxw_schema_registry_t* registry, registry_item_t* item, uint64_t id,
                            nvtxw_schema_t* schema, nvtxw_enum_t* enumeration) {
    size_t count = atomic_load_explicit(&registry->count, memory_order_relaxed);
    item->id = id;
    item->schema = schema;
    item->enumeration = enumeration;
    pubvec_set(&registry->items, count, item);
    pubmap_put(&registry->by_id, id, item);
    atomic_store_explicit(&registry->count, count + 1, memory_order_release);
}

nvtxw_schema_registry_t* nvtxw_schema_registry_create(void) {
    nvtxw_schema_registry_t* registry = nvtxw_calloc(1, sizeof *registry);
    if (registry != NULL)
        registry->next_dynamic = NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START;
    return registry;
}

static void schema_free(nvtxw_schema_t* schema) {
    size_t i;
    if (schema == NULL)
        return;
    if (schema->entries != NULL) {
        for (i = 0; i < schema->attr.numEntries; i++) {
            nvtxw_free((char*)schema->entries[i].name);
            nvtxw_free((char*)schema->entries[i].description);
            semantics_free(schema->entries[i].semantics);
        }
    }
    nvtxw_free(schema->entries);
    nvtxw_free(schema->fin);
    nvtxw_free((char*)schema->attr.name);
    nvtxw_free(schema);
}

static void enum_free(nvtxw_enum_t* enumeration) {
    size_t i;
    if (enumeration == NULL)
        return;
    if (enumeration->entries != NULL) {
        for (i = 0; i < enumeration->attr.numEntries; i++)
            nvtxw_free((char*)enumeration->entries[i].name);
    }
    nvtxw_free(enumeration->entries);
    nvtxw_free(enumeration->sorted);
    nvtxw_free((char*)enumeration->attr.name);
    nvtxw_free(enumeration);
}

void nvtxw_schema_registry_destroy(nvtxw_schema_registry_t* registry) {
    size_t i, count;
    if (registry == NULL)
        return;
    count = atomic_load_explicit(&registry->count, memory_order_relaxed);
    for (i = 0; i < count; i++) {
        registry_item_t* item = pubvec_get(&registry->items, i);
        schema_free(item->schema);
        enum_free(item->enumeration);
    }
    pubvec_free(&registry->items, nvtxw_free);
    pubmap_free(&registry->by_id, NULL);
    nvtxw_free(registry);
}

/* Checks the ID rules shared by schemas and enums; *id receives the ID to use
 * (a dynamic one is only reserved when the registration commits). */
static nvtxwResultCode_t registry_pick_id(const nvtxw_schema_registry_t* registry, int has_static,
                                          uint64_t requested, const uint64_t* id_out,
                                          const char* what, uint64_t* id) {
    if (!has_static) {
        if (id_out == NULL)
            return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                             "cannot register %s: no static ID given and the ID output is NULL",
                             what);
        if (registry->next_dynamic == 0)
            return error_set(NVTXW_RESULT_FAILED, "cannot register %s: dynamic IDs exhausted",
                             what);
        *id = registry->next_dynamic;
        return NVTXW_RESULT_SUCCESS;
    }
    if (requested < NVTX_PAYLOAD_SCHEMA_ID_STATIC_START ||
        requested >= NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot register %s: static ID %llu outside [%llu, %llu)", what,
                         (unsigned long long)requested,
                         (unsigned long long)NVTX_PAYLOAD_SCHEMA_ID_STATIC_START,
                         (unsigned long long)NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START);
    if (registry_lookup(registry, requested) != NULL)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot register %s: ID %llu is already used by %s", what,
                         (unsigned long long)requested,
                         registry_lookup(registry, requested)->schema ? "a schema" : "an enum");
    *id = requested;
    return NVTXW_RESULT_SUCCESS;
}

uint64_t registry_exchange_next_dynamic(nvtxw_schema_registry_t* registry, uint64_t next) {
    uint64_t old = registry->next_dynamic;
    registry->next_dynamic = next;
    return old;
}

static void registry_publish_id(nvtxw_schema_registry_t* registry, int has_static, uint64_t id,
                                uint64_t* id_out) {
    if (!has_static)
        registry->next_dynamic++;
    if (id_out != NULL)
        *id_out = id;
}

/* Names and descriptions are kept as UTF-8: text that is not is repaired
 * here (U+FFFD), the same for every sink (docs/threading.md, "Names").
 * NULL stays NULL. */
static char* dup_name(const char* text) { return text ? utf8_dup_repaired(text) : NULL; }

static nvtxwResultCode_t entries_copy(nvtxw_schema_t* schema, const nvtxPayloadSchemaEntry_t* src,
                                      size_t count) {
    char context[256];
    size_t i;
    schema->entries = nvtxw_calloc(count, sizeof *schema->entries);
    if (schema->entries == NULL)
        return error_oom("schema entries");
    schema->attr.numEntries = count; /* from here on schema_free walks them */
    for (i = 0; i < count; i++) {
        nvtxPayloadSchemaEntry_t* dst = &schema->entries[i];
        nvtxwResultCode_t status;
        dst->flags = src[i].flags;
        dst->type = src[i].type;
        dst->arrayOrUnionDetail = src[i].arrayOrUnionDetail;
        dst->offset = src[i].offset;
        dst->name = dup_name(src[i].name);
        dst->description = dup_name(src[i].description);
        if ((src[i].name && !dst->name) || (src[i].description && !dst->description))
            return error_oom("schema entry names");
        snprintf(context, sizeof context, "register schema \"%s\": entry %zu \"%s\"",
                 registry_schema_label(schema), i, dst->name ? dst->name : "");
        status = semantics_copy(src[i].semantics, context, &dst->semantics);
        if (status != NVTXW_RESULT_SUCCESS)
            return status;
    }
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t schema_check_attr(const nvtxPayloadSchemaAttr_t* attr) {
    const uint64_t required = NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE |
                              NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES |
                              NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES;
    const char* name =
        (attr->fieldMask & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NAME) && attr->name ? attr->name : "";
    if ((attr->fieldMask & required) != required)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot register schema \"%s\": fieldMask 0x%llx lacks TYPE, ENTRIES or "
                         "NUM_ENTRIES",
                         name, (unsigned long long)attr->fieldMask);
    if ((attr->fieldMask & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NAME) && attr->name == NULL)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot register schema: NAME bit set but name is NULL");
    if (attr->entries == NULL || attr->numEntries == 0)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot register schema \"%s\": entries=%p, numEntries=%zu (need at least "
                         "one)",
                         name, (const void*)attr->entries, attr->numEntries);
    if (attr->type < NVTX_PAYLOAD_SCHEMA_TYPE_STATIC ||
        attr->type > NVTX_PAYLOAD_SCHEMA_TYPE_UNION_WITH_INTERNAL_SELECTOR)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot register schema \"%s\": unknown schema type %llu", name,
                         (unsigned long long)attr->type);
    if ((attr->fieldMask & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ALIGNMENT) &&
        (attr->packAlign & (attr->packAlign - 1)) != 0)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot register schema \"%s\": packAlign %zu is not a power of two", name,
                         attr->packAlign);
    return NVTXW_RESULT_SUCCESS;
}

/* The attr as stored: fields whose bit is absent read as 0/NULL, the
 * reserved extension is not kept. */
static void schema_copy_attr(nvtxw_schema_t* schema, const nvtxPayloadSchemaAttr_t* attr,
                             uint64_t id) {
    uint64_t mask = attr->fieldMask & ~(uint64_t)NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_EXTENSION;
    schema->attr.fieldMask = mask | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_SCHEMA_ID;
    schema->attr.type = attr->type;
    schema->attr.flags = (mask & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_FLAGS) ? attr->flags : 0;
    schema->attr.payloadStaticSize =
        (mask & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_STATIC_SIZE) ? attr->payloadStaticSize : 0;
    schema->attr.packAlign =
        (mask & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ALIGNMENT) ? attr->packAlign : 0;
    schema->attr.schemaId = id;
}

nvtxwResultCode_t nvtxw_schema_registry_add_schema(nvtxw_schema_registry_t* registry,
                                                   const nvtxPayloadSchemaAttr_t* attr,
                                                   uint64_t* id_out) {
    nvtxwResultCode_t status;
    nvtxw_schema_t* schema = NULL;
    registry_item_t* item = NULL;
    int has_static;
    uint64_t id = 0;

    if (registry == NULL || attr == NULL)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot register schema: registry or attr is NULL");
    status = schema_check_attr(attr);
    if (status != NVTXW_RESULT_SUCCESS)
        goto error;
    has_static = (attr->fieldMask & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_SCHEMA_ID) != 0;
    status = registry_pick_id(registry, has_static, attr->schemaId, id_out, "schema", &id);
    if (status != NVTXW_RESULT_SUCCESS)
        goto error;
    status = registry_reserve(registry, &item);
    if (status != NVTXW_RESULT_SUCCESS)
        goto error;
    schema = nvtxw_calloc(1, sizeof *schema);
    if (schema == NULL) {
        status = error_oom("a schema");
        goto error;
    }
    schema_copy_attr(schema, attr, id);
    if (attr->fieldMask & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NAME) {
        schema->attr.name = dup_name(attr->name);
        if (schema->attr.name == NULL) {
            status = error_oom("a schema name");
            goto error;
        }
    }
    status = entries_copy(schema, attr->entries, attr->numEntries);
    if (status != NVTXW_RESULT_SUCCESS)
        goto error;
    schema->attr.entries = schema->entries;
    status = finalize_schema(registry, schema);
    if (status != NVTXW_RESULT_SUCCESS)
        goto error;
    registry_commit(registry, item, id, schema, NULL);
    registry_publish_id(registry, has_static, id, id_out);
    return NVTXW_RESULT_SUCCESS;
error:
    schema_free(schema);
    nvtxw_free(item);
    return status;
}

static nvtxwResultCode_t enum_check_attr(const nvtxPayloadEnumAttr_t* attr) {
    const uint64_t required = NVTX_PAYLOAD_ENUM_ATTR_FIELD_ENTRIES |
                              NVTX_PAYLOAD_ENUM_ATTR_FIELD_NUM_ENTRIES |
                              NVTX_PAYLOAD_ENUM_ATTR_FIELD_SIZE;
    size_t size = attr->sizeOfEnum;
    if ((attr->fieldMask & required) != required)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot register enum: fieldMask 0x%llx lacks ENTRIES, NUM_ENTRIES or "
                         "SIZE",
                         (unsigned long long)attr->fieldMask);
    if ((attr->fieldMask & NVTX_PAYLOAD_ENUM_ATTR_FIELD_NAME) && attr->name == NULL)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot register enum: NAME bit set but name is NULL");
    if (attr->entries == NULL || attr->numEntries == 0)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot register enum: entries=%p, numEntries=%zu (need at least one)",
                         (const void*)attr->entries, attr->numEntries);
    if (size != 1 && size != 2 && size != 4 && size != 8)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot register enum: sizeOfEnum %zu is not 1, 2, 4 or 8", size);
    return NVTXW_RESULT_SUCCESS;
}

static int enum_index_compare(const void* a, const void* b) {
    const enum_index_t* x = a;
    const enum_index_t* y = b;
    if (x->value != y->value)
        return x->value < y->value ? -1 : 1;
    return x->entry < y->entry ? -1 : (x->entry > y->entry);
}

/* Sorted index of masked values; of duplicates the last registered wins. */
static nvtxwResultCode_t enum_build_index(nvtxw_enum_t* enumeration) {
    size_t count = enumeration->attr.numEntries;
    size_t i;
    size_t kept = 0;
    size_t bits = 8 * enumeration->attr.sizeOfEnum;
    enumeration->value_mask = bits >= 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
    enumeration->sorted = nvtxw_calloc(count, sizeof *enumeration->sorted);
    if (enumeration->sorted == NULL)
        return error_oom("an enum index");
    for (i = 0; i < count; i++) {
        enumeration->sorted[i].value = enumeration->entries[i].value & enumeration->value_mask;
        enumeration->sorted[i].entry = i;
        if (enumeration->entries[i].isFlag)
            enumeration->has_flags = 1;
    }
    qsort(enumeration->sorted, count, sizeof *enumeration->sorted, enum_index_compare);
    for (i = 0; i < count; i++) {
        if (kept > 0 && enumeration->sorted[kept - 1].value == enumeration->sorted[i].value)
            kept--;
        enumeration->sorted[kept++] = enumeration->sorted[i];
    }
    enumeration->sorted_count = kept;
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t enum_copy(nvtxw_enum_t* enumeration, const nvtxPayloadEnumAttr_t* attr) {
    size_t i;
    enumeration->entries = nvtxw_calloc(attr->numEntries, sizeof *enumeration->entries);
    if (enumeration->entries == NULL)
        return error_oom("enum entries");
    enumeration->attr.numEntries = attr->numEntries;
    for (i = 0; i < attr->numEntries; i++) {
        const char* name = attr->entries[i].name ? attr->entries[i].name : "";
        enumeration->entries[i].name = dup_name(name);
        enumeration->entries[i].value = attr->entries[i].value;
        enumeration->entries[i].isFlag = attr->entries[i].isFlag;
        if (enumeration->entries[i].name == NULL)
            return error_oom("enum entry names");
    }
    enumeration->attr.entries = enumeration->entries;
    if (attr->fieldMask & NVTX_PAYLOAD_ENUM_ATTR_FIELD_NAME) {
        enumeration->attr.name = dup_name(attr->name);
        if (enumeration->attr.name == NULL)
            return error_oom("an enum name");
    }
    return enum_build_index(enumeration);
}

nvtxwResultCode_t nvtxw_schema_registry_add_enum(nvtxw_schema_registry_t* registry,
                                                 const nvtxPayloadEnumAttr_t* attr,
                                                 uint64_t* id_out) {
    nvtxwResultCode_t status;
    nvtxw_enum_t* enumeration = NULL;
    registry_item_t* item = NULL;
    int has_static;
    uint64_t id = 0;

    if (registry == NULL || attr == NULL)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot register enum: registry or attr is NULL");
    status = enum_check_attr(attr);
    if (status != NVTXW_RESULT_SUCCESS)
        goto error;
    has_static = (attr->fieldMask & NVTX_PAYLOAD_ENUM_ATTR_FIELD_SCHEMA_ID) != 0;
    status = registry_pick_id(registry, has_static, attr->schemaId, id_out, "enum", &id);
    if (status != NVTXW_RESULT_SUCCESS)
        goto error;
    status = registry_reserve(registry, &item);
    if (status != NVTXW_RESULT_SUCCESS)
        goto error;
    enumeration = nvtxw_calloc(1, sizeof *enumeration);
    if (enumeration == NULL) {
        status = error_oom("an enum");
        goto error;
    }
    enumeration->attr.fieldMask =
        (attr->fieldMask & ~(uint64_t)NVTX_PAYLOAD_ENUM_ATTR_FIELD_EXTENSION) |
        NVTX_PAYLOAD_ENUM_ATTR_FIELD_SCHEMA_ID;
    enumeration->attr.sizeOfEnum = attr->sizeOfEnum;
    enumeration->attr.schemaId = id;
    status = enum_copy(enumeration, attr);
    if (status != NVTXW_RESULT_SUCCESS)
        goto error;
    registry_commit(registry, item, id, NULL, enumeration);
    registry_publish_id(registry, has_static, id, id_out);
    return NVTXW_RESULT_SUCCESS;
error:
    enum_free(enumeration);
    nvtxw_free(item);
    return status;
}

const nvtxw_schema_t* nvtxw_schema_registry_find_schema(const nvtxw_schema_registry_t* registry,
                                                        uint64_t id) {
    const registry_item_t* item = registry_lookup(registry, id);
    return item ? item->schema : NULL;
}

const nvtxw_enum_t* nvtxw_schema_registry_find_enum(const nvtxw_schema_registry_t* registry,
                                                    uint64_t id) {
    const registry_item_t* item = registry_lookup(registry, id);
    return item ? item->enumeration : NULL;
}

size_t nvtxw_schema_registry_count(const nvtxw_schema_registry_t* registry) {
    return registry ? registry_published(registry) : 0;
}

void nvtxw_schema_registry_at(const nvtxw_schema_registry_t* registry, size_t index,
                              const nvtxw_schema_t** schema_out, const nvtxw_enum_t** enum_out) {
    const registry_item_t* item = (registry != NULL && index < registry_published(registry))
                                      ? pubvec_get(&registry->items, index)
                                      : NULL;
    if (schema_out != NULL)
        *schema_out = item ? item->schema : NULL;
    if (enum_out != NULL)
        *enum_out = item ? item->enumeration : NULL;
}

void nvtxw_schema_get_attr(const nvtxw_schema_t* schema, nvtxPayloadSchemaAttr_t* out) {
    if (out != NULL)
        *out = schema->attr;
}

uint64_t nvtxw_schema_id(const nvtxw_schema_t* schema) { return schema->attr.schemaId; }

const char* nvtxw_schema_name(const nvtxw_schema_t* schema) {
    return registry_schema_label(schema);
}

size_t nvtxw_schema_static_size(const nvtxw_schema_t* schema) { return schema->static_size; }

size_t nvtxw_schema_alignment(const nvtxw_schema_t* schema) { return schema->alignment; }

int nvtxw_schema_is_variable_size(const nvtxw_schema_t* schema) { return schema->variable; }

size_t nvtxw_schema_entry_offset(const nvtxw_schema_t* schema, size_t index) {
    return index < schema->attr.numEntries ? schema->fin[index].offset : SIZE_MAX;
}

void nvtxw_enum_get_attr(const nvtxw_enum_t* enumeration, nvtxPayloadEnumAttr_t* out) {
    if (out != NULL)
        *out = enumeration->attr;
}

uint64_t nvtxw_enum_id(const nvtxw_enum_t* enumeration) { return enumeration->attr.schemaId; }

const char* registry_enum_lookup(const nvtxw_enum_t* enumeration, uint64_t value) {
    size_t low = 0;
    size_t high = enumeration->sorted_count;
    while (low < high) {
        size_t mid = low + (high - low) / 2;
        uint64_t here = enumeration->sorted[mid].value;
        if (here == value)
            return enumeration->entries[enumeration->sorted[mid].entry].name;
        if (here < value)
            low = mid + 1;
        else
            high = mid;
    }
    return NULL;
}

const char* fixed_enum_name(const nvtxw_enum_t* e, uint64_t value, char* scratch, size_t size) {
    const char* name = registry_enum_lookup(e, value);
    uint64_t covered = 0;
    size_t used = 0, k;
    if (name != NULL || !e->has_flags || value == 0)
        return name;
    scratch[0] = '\0';
    for (k = 0; k < e->attr.numEntries; k++) {
        const nvtxPayloadEnum_t* entry = &e->entries[k];
        uint64_t bits = entry->value & e->value_mask;
        size_t length;
        if (!entry->isFlag || bits == 0 || (value & bits) != bits)
            continue;
        length = strlen(entry->name);
        covered |= bits;
        if (used + length + 2 > size) {
            memcpy(scratch + size - 4, "...", 4);
            used = size;
            continue;
        }
        if (used > 0)
            scratch[used++] = '|';
        memcpy(scratch + used, entry->name, length + 1);
        used += length;
    }
    return covered == value ? scratch : NULL;
}
