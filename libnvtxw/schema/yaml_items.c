/*
 * schema/yaml_items.c - parses the body of one `schema:` or `enum:` item
 * (grammar in yaml_load.c, format in docs/schemas.md), builds the NVTX
 * attribute struct and registers it.
 *
 * An item's memory (entries, strings, semantics) lives only until it is
 * registered: the registry copies everything. Entry references by name
 * (length_index, selector) may point anywhere in the schema, so they are kept
 * as strings and resolved once all entries are read.
 */
#include "config.h"

#include <string.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "schema/yaml_internal.h"

/* What the loader keeps per entry besides the NVTX entry itself. */
typedef struct entry_extra {
    char* reference; /* detail given as an entry name; resolved at the end */
    yaml_mark_t reference_mark;
    const char* detail_key; /* the key that set arrayOrUnionDetail, for conflicts */
    int has_time;
    int has_scope;
    int json; /* `json: true`: the JSON-text semantic (nvtxw/payload.h) */
    nvtxSemanticsTime_t time;
    nvtxSemanticsHeader_t json_text;
    nvtxSemanticsScope_t scope;
    schema_yaml_counter_t counter;
} entry_extra_t;

typedef struct schema_builder {
    nvtxPayloadSchemaAttr_t attr;
    char* name;
    nvtxPayloadSchemaEntry_t* entries;
    entry_extra_t* extras;
    size_t count;
    size_t capacity;
} schema_builder_t;

enum {
    SCHEMA_NAME,
    SCHEMA_ID,
    SCHEMA_KIND,
    SCHEMA_FLAGS,
    SCHEMA_ROLE,
    SCHEMA_SIZE,
    SCHEMA_ALIGN,
    SCHEMA_ENTRIES
};
static const char* const schema_keys[] = {"name", "id",   "kind",  "flags",
                                          "role", "size", "align", "entries"};

enum {
    ENTRY_NAME,
    ENTRY_DESCRIPTION,
    ENTRY_TYPE,
    ENTRY_OFFSET,
    ENTRY_FLAGS,
    ENTRY_ARRAY,
    ENTRY_LENGTH,
    ENTRY_SELECTOR,
    ENTRY_SEMANTIC,
    ENTRY_ROLE,
    ENTRY_TIME_DOMAIN,
    ENTRY_SCOPE,
    ENTRY_COUNTER,
    ENTRY_JSON
};
static const char* const entry_keys[] = {
    "name",     "description", "type", "offset",      "flags", "array",   "length",
    "selector", "semantic",    "role", "time_domain", "scope", "counter", "json"};

/* ---- names shared by schemas and enums ----------------------------------- */

int schema_yaml_registry_find_name(const nvtxw_schema_registry_t* registry, const char* name,
                                   uint64_t* id) {
    size_t count = nvtxw_schema_registry_count(registry);
    int found = 0;
    for (size_t i = 0; i < count && found < 2; i++) {
        const nvtxw_schema_t* schema;
        const nvtxw_enum_t* enumeration;
        nvtxPayloadEnumAttr_t enum_attr;
        nvtxw_schema_registry_at(registry, i, &schema, &enumeration);
        if (schema != NULL && strcmp(nvtxw_schema_name(schema), name) == 0) {
            *id = found++ ? *id : nvtxw_schema_id(schema);
        } else if (enumeration != NULL) {
            nvtxw_enum_get_attr(enumeration, &enum_attr);
            if ((enum_attr.fieldMask & NVTX_PAYLOAD_ENUM_ATTR_FIELD_NAME) &&
                enum_attr.name != NULL && strcmp(enum_attr.name, name) == 0)
                *id = found++ ? *id : nvtxw_enum_id(enumeration);
        }
    }
    return found;
}

/* Reads the item's `name:`; names must be new and distinct from type names,
 * so that every reference by name has exactly one meaning. */
static int read_item_name(schema_yaml_loader_t* loader, const char* what, char** out) {
    yaml_mark_t mark = loader->event.start_mark;
    uint64_t unused;
    if (schema_yaml_read_string(loader, what, out))
        return -1;
    if ((*out)[0] == '\0')
        return 0;
    if (schema_yaml_value_of(&schema_yaml_entry_types, *out, strlen(*out), &unused) == 0)
        return schema_yaml_loader_fail(loader, mark, "name \"%s\" is a predefined type name", *out);
    if (schema_yaml_registry_find_name(loader->registry, *out, &unused) > 0)
        return schema_yaml_loader_fail(loader, mark, "duplicate name \"%s\": already registered",
                                       *out);
    return 0;
}

/* Reads a static ID; the registry checks that it is unused. */
static int read_static_id(schema_yaml_loader_t* loader, uint64_t* out) {
    if (schema_yaml_read_u64(loader, "id", UINT64_MAX, out))
        return -1;
    if (*out < NVTX_PAYLOAD_SCHEMA_ID_STATIC_START || *out >= NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START)
        return schema_yaml_loader_fail(
            loader, loader->event.start_mark, "id %llu out of range (static IDs are %llu to %llu)",
            (unsigned long long)*out, (unsigned long long)NVTX_PAYLOAD_SCHEMA_ID_STATIC_START,
            (unsigned long long)NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START - 1);
    return 0;
}

int schema_yaml_read_flag_list(schema_yaml_loader_t* loader, const schema_yaml_name_table_t* table,
                               const char* what, uint64_t* flags) {
    uint64_t value;
    if (schema_yaml_expect(loader, YAML_SEQUENCE_START_EVENT, "flags"))
        return -1;
    for (;;) {
        if (schema_yaml_loader_next(loader))
            return -1;
        if (loader->event.type == YAML_SEQUENCE_END_EVENT)
            return 0;
        if (schema_yaml_read_symbol(loader, table, what, UINT64_MAX, &value))
            return -1;
        *flags |= value;
    }
}

/* ---- entries --------------------------------------------------------------- */

/* Reads an entry type: a predefined name, an earlier schema or enum, or an ID. */
static int read_entry_type(schema_yaml_loader_t* loader, uint64_t* type) {
    const char* text;
    size_t length;
    int found;
    if (schema_yaml_expect(loader, YAML_SCALAR_EVENT, "type"))
        return -1;
    if (schema_yaml_scalar_is_number(loader))
        return schema_yaml_read_u64(loader, "type", UINT64_MAX, type);
    text = (const char*)loader->event.data.scalar.value;
    length = loader->event.data.scalar.length;
    if (schema_yaml_value_of(&schema_yaml_entry_types, text, length, type) == 0)
        return 0;
    /* "" is no name: unnamed items cannot be referred to by name. */
    found = length > 0 && length == strlen(text)
                ? schema_yaml_registry_find_name(loader->registry, text, type)
                : 0;
    if (found == 1)
        return 0;
    return schema_yaml_loader_fail(loader, loader->event.start_mark,
                                   found
                                       ? "ambiguous type \"%.*s\": several items have that name"
                                       : "unknown type \"%.*s\" (neither predefined nor an earlier "
                                         "schema or enum)",
                                   (int)(length < 64 ? length : 64), text);
}

/* Records that `key` sets the entry's detail; two such keys conflict. */
static int claim_detail(schema_yaml_loader_t* loader, entry_extra_t* extra, const char* key,
                        yaml_mark_t mark) {
    if (extra->detail_key != NULL)
        return schema_yaml_loader_fail(loader, mark,
                                       "\"%s\" conflicts with \"%s\": both set arrayOrUnionDetail",
                                       key, extra->detail_key);
    extra->detail_key = key;
    return 0;
}

/* Reads an entry reference (an index, or a name resolved later). */
static int read_reference(schema_yaml_loader_t* loader, entry_extra_t* extra, const char* what,
                          uint64_t* detail) {
    if (schema_yaml_expect(loader, YAML_SCALAR_EVENT, what))
        return -1;
    if (schema_yaml_scalar_is_number(loader))
        return schema_yaml_read_u64(loader, what, UINT64_MAX, detail);
    extra->reference_mark = loader->event.start_mark;
    return schema_yaml_read_string(loader, what, &extra->reference);
}

/* array: { length_index: REF } | { length_payload_index: INT } */
static int read_array_mapping(schema_yaml_loader_t* loader, nvtxPayloadSchemaEntry_t* entry,
                              entry_extra_t* extra) {
    static const char* const keys[] = {"length_index", "length_payload_index"};
    uint32_t seen = 0;
    int key;
    if (schema_yaml_loader_next(loader))
        return -1;
    key = schema_yaml_read_key(loader, keys, 2, "array", &seen);
    if (key < 0 || schema_yaml_loader_next(loader))
        return -1;
    if (key == 0) {
        entry->flags |= NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_INDEX;
        if (read_reference(loader, extra, "length_index", &entry->arrayOrUnionDetail))
            return -1;
    } else {
        entry->flags |= NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_PAYLOAD_INDEX;
        if (schema_yaml_read_u64(loader, "length_payload_index", UINT64_MAX,
                                 &entry->arrayOrUnionDetail))
            return -1;
    }
    if (schema_yaml_loader_next(loader))
        return -1;
    if (loader->event.type != YAML_MAPPING_END_EVENT)
        return schema_yaml_loader_fail(
            loader, loader->event.start_mark,
            "array takes exactly one of length_index, length_payload_index");
    return 0;
}

/* array: INT | zero_terminated | mapping */
static int read_array(schema_yaml_loader_t* loader, nvtxPayloadSchemaEntry_t* entry,
                      entry_extra_t* extra) {
    yaml_mark_t mark = loader->event.start_mark;
    if (loader->event.type == YAML_MAPPING_START_EVENT)
        return claim_detail(loader, extra, "array", mark) ||
               read_array_mapping(loader, entry, extra);
    if (schema_yaml_expect(loader, YAML_SCALAR_EVENT, "array"))
        return -1;
    if (schema_yaml_scalar_is_number(loader)) {
        entry->flags |= NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_FIXED_SIZE;
        return claim_detail(loader, extra, "array", mark) ||
               schema_yaml_read_u64(loader, "array length", UINT64_MAX, &entry->arrayOrUnionDetail);
    }
    if (strcmp((const char*)loader->event.data.scalar.value, "zero_terminated") == 0) {
        entry->flags |= NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_ZERO_TERMINATED;
        return 0;
    }
    return schema_yaml_loader_fail(loader, mark,
                                   "bad array \"%.64s\" (expected a length, zero_terminated, "
                                   "{length_index: ...} or {length_payload_index: N})",
                                   (const char*)loader->event.data.scalar.value);
}

/* Reads the value of entry key `key` (current event: the value's first). */
static int read_entry_value(schema_yaml_loader_t* loader, int key, nvtxPayloadSchemaEntry_t* entry,
                            entry_extra_t* extra) {
    yaml_mark_t mark = loader->event.start_mark;
    uint64_t value;
    switch (key) {
    case ENTRY_NAME:
        return schema_yaml_read_string(loader, "entry name", (char**)&entry->name);
    case ENTRY_DESCRIPTION:
        return schema_yaml_read_string(loader, "description", (char**)&entry->description);
    case ENTRY_TYPE:
        return read_entry_type(loader, &entry->type);
    case ENTRY_OFFSET:
        return schema_yaml_read_u64(loader, "offset", UINT64_MAX, &entry->offset);
    case ENTRY_FLAGS:
        return schema_yaml_read_flag_list(loader, &schema_yaml_entry_flags, "entry flag",
                                          &entry->flags);
    case ENTRY_ARRAY:
        return read_array(loader, entry, extra);
    case ENTRY_LENGTH:
        return claim_detail(loader, extra, "length", mark) ||
               schema_yaml_read_u64(loader, "length", UINT64_MAX, &entry->arrayOrUnionDetail);
    case ENTRY_SELECTOR:
        return claim_detail(loader, extra, "selector", mark) ||
               read_reference(loader, extra, "selector", &entry->arrayOrUnionDetail);
    case ENTRY_SEMANTIC:
        if (schema_yaml_read_symbol(loader, &schema_yaml_entry_semantics, "semantic", 3, &value))
            return -1;
        entry->flags |= value << YAML_ENTRY_SEMANTIC_SHIFT;
        return 0;
    case ENTRY_ROLE:
        if (schema_yaml_read_symbol(loader, &schema_yaml_entry_roles, "entry role", 7, &value))
            return -1;
        entry->flags |= value << YAML_ENTRY_ROLE_SHIFT;
        return 0;
    case ENTRY_TIME_DOMAIN:
        extra->has_time = 1;
        return schema_yaml_read_u64(loader, "time_domain", UINT64_MAX, &extra->time.timeDomainId);
    case ENTRY_SCOPE:
        extra->has_scope = 1;
        return schema_yaml_read_u64(loader, "scope", UINT64_MAX, &extra->scope.scopeId);
    case ENTRY_JSON:
        return schema_yaml_read_bool(loader, "json", &extra->json);
    default:
        return schema_yaml_read_counter(loader, &extra->counter);
    }
}

/* Appends a zeroed entry, growing both arrays within YAML_MAX_ENTRIES. */
static int schema_add_entry(schema_yaml_loader_t* loader, schema_builder_t* builder) {
    if (builder->count == builder->capacity) {
        size_t capacity = builder->capacity ? builder->capacity * 2 : 8;
        void* grown;
        if (builder->count >= YAML_MAX_ENTRIES)
            return schema_yaml_loader_fail(loader, loader->event.start_mark,
                                           "too many entries (limit %u)", YAML_MAX_ENTRIES);
        capacity = capacity < YAML_MAX_ENTRIES ? capacity : YAML_MAX_ENTRIES;
        grown = nvtxw_reallocarray(builder->entries, capacity, sizeof *builder->entries);
        if (grown == NULL)
            return schema_yaml_loader_oom(loader, "schema entries");
        builder->entries = grown;
        grown = nvtxw_reallocarray(builder->extras, capacity, sizeof *builder->extras);
        if (grown == NULL)
            return schema_yaml_loader_oom(loader, "schema entries");
        builder->extras = grown;
        builder->capacity = capacity;
    }
    memset(&builder->entries[builder->count], 0, sizeof *builder->entries);
    memset(&builder->extras[builder->count], 0, sizeof *builder->extras);
    builder->count++;
    return 0;
}

static int read_entry(schema_yaml_loader_t* loader, schema_builder_t* builder) {
    nvtxPayloadSchemaEntry_t* entry;
    entry_extra_t* extra;
    yaml_mark_t start = loader->event.start_mark;
    uint32_t seen = 0;
    if (schema_yaml_expect(loader, YAML_MAPPING_START_EVENT, "an entry") ||
        schema_add_entry(loader, builder))
        return -1;
    entry = &builder->entries[builder->count - 1];
    extra = &builder->extras[builder->count - 1];
    for (;;) {
        int key;
        if (schema_yaml_loader_next(loader))
            return -1;
        if (loader->event.type == YAML_MAPPING_END_EVENT)
            break;
        key = schema_yaml_read_key(loader, entry_keys, sizeof entry_keys / sizeof entry_keys[0],
                                   "entry", &seen);
        if (key < 0 || schema_yaml_loader_next(loader) ||
            read_entry_value(loader, key, entry, extra))
            return -1;
    }
    return schema_yaml_require_keys(loader, entry_keys, seen, 1u << ENTRY_TYPE, start, "entry");
}

static int read_entries(schema_yaml_loader_t* loader, schema_builder_t* builder) {
    yaml_mark_t start = loader->event.start_mark;
    if (schema_yaml_expect(loader, YAML_SEQUENCE_START_EVENT, "entries"))
        return -1;
    for (;;) {
        if (schema_yaml_loader_next(loader))
            return -1;
        if (loader->event.type == YAML_SEQUENCE_END_EVENT)
            break;
        if (read_entry(loader, builder))
            return -1;
    }
    if (builder->count == 0)
        return schema_yaml_loader_fail(loader, start, "entries must not be empty");
    return 0;
}

/* ---- schema ---------------------------------------------------------------- */

static int read_schema_value(schema_yaml_loader_t* loader, int key, schema_builder_t* builder) {
    nvtxPayloadSchemaAttr_t* attr = &builder->attr;
    uint64_t value;
    switch (key) {
    case SCHEMA_NAME:
        attr->fieldMask |= NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NAME;
        return read_item_name(loader, "schema name", &builder->name);
    case SCHEMA_ID:
        attr->fieldMask |= NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_SCHEMA_ID;
        return read_static_id(loader, &attr->schemaId);
    case SCHEMA_KIND:
        attr->fieldMask |= NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE;
        return schema_yaml_read_symbol(loader, &schema_yaml_schema_kinds, "schema kind", UINT64_MAX,
                                       &attr->type);
    case SCHEMA_FLAGS:
        attr->fieldMask |= NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_FLAGS;
        return schema_yaml_read_flag_list(loader, &schema_yaml_schema_flags, "schema flag",
                                          &attr->flags);
    case SCHEMA_ROLE:
        attr->fieldMask |= NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_FLAGS;
        if (schema_yaml_read_symbol(loader, &schema_yaml_schema_roles, "schema role", 15, &value))
            return -1;
        attr->flags |= value << YAML_SCHEMA_ROLE_SHIFT;
        return 0;
    case SCHEMA_SIZE:
        attr->fieldMask |= NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_STATIC_SIZE;
        if (schema_yaml_read_u64(loader, "size", SIZE_MAX, &value))
            return -1;
        attr->payloadStaticSize = (size_t)value;
        return 0;
    case SCHEMA_ALIGN:
        attr->fieldMask |= NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ALIGNMENT;
        if (schema_yaml_read_u64(loader, "align", SIZE_MAX, &value))
            return -1;
        attr->packAlign = (size_t)value;
        return 0;
    default:
        attr->fieldMask |=
            NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES;
        return read_entries(loader, builder);
    }
}

/* Resolves entry references by name into indices. */
static int resolve_references(schema_yaml_loader_t* loader, schema_builder_t* builder) {
    schema_yaml_entry_index_t index = {NULL, 0};
    int status = 0;
    size_t i;
    for (i = 0; i < builder->count && builder->extras[i].reference == NULL; i++)
        ;
    if (i == builder->count)
        return 0;
    if (schema_yaml_entry_index_build(&index, builder->entries, builder->count) !=
        NVTXW_RESULT_SUCCESS)
        return schema_yaml_loader_oom(loader, "the entry name index");
    for (; i < builder->count && status == 0; i++) {
        const entry_extra_t* extra = &builder->extras[i];
        long found;
        if (extra->reference == NULL)
            continue;
        found = schema_yaml_entry_index_find(&index, extra->reference);
        if (found >= 0)
            builder->entries[i].arrayOrUnionDetail = (uint64_t)found;
        else
            status = schema_yaml_loader_fail(loader, extra->reference_mark,
                                             found == -1 ? "no entry named \"%s\" in this schema"
                                                         : "entry name \"%s\" is not unique",
                                             extra->reference);
    }
    schema_yaml_entry_index_free(&index);
    return status;
}

/* Links each entry's semantics: JSON text first, then time, scope and
 * counter. Run after the arrays stop growing, since the chain points into
 * them. */
static void link_semantics(schema_builder_t* builder) {
    for (size_t i = 0; i < builder->count; i++) {
        entry_extra_t* extra = &builder->extras[i];
        const nvtxSemanticsHeader_t* chain = NULL;
        if (extra->counter.given)
            chain = &extra->counter.semantic.header;
        if (extra->has_scope) {
            extra->scope.header.structSize = sizeof extra->scope;
            extra->scope.header.semanticId = NVTX_SEMANTIC_ID_SCOPE_V1;
            extra->scope.header.version = 1;
            extra->scope.header.next = chain;
            chain = &extra->scope.header;
        }
        if (extra->has_time) {
            extra->time.header.structSize = sizeof extra->time;
            extra->time.header.semanticId = NVTX_SEMANTIC_ID_TIME_V1;
            extra->time.header.version = NVTX_TIME_SEMANTIC_VERSION;
            extra->time.header.next = chain;
            chain = &extra->time.header;
        }
        if (extra->json) {
            extra->json_text.structSize = sizeof extra->json_text;
            extra->json_text.semanticId = NVTXW_SEMANTIC_ID_JSON_TEXT;
            extra->json_text.version = NVTXW_SEMANTIC_JSON_TEXT_VERSION;
            extra->json_text.next = chain;
            chain = &extra->json_text;
        }
        builder->entries[i].semantics = chain;
    }
}

static void schema_builder_free(schema_builder_t* builder) {
    for (size_t i = 0; i < builder->count; i++) {
        nvtxw_free((void*)builder->entries[i].name);
        nvtxw_free((void*)builder->entries[i].description);
        nvtxw_free(builder->extras[i].reference);
        schema_yaml_counter_free(&builder->extras[i].counter);
    }
    nvtxw_free(builder->entries);
    nvtxw_free(builder->extras);
    nvtxw_free(builder->name);
}

static int register_schema(schema_yaml_loader_t* loader, schema_builder_t* builder,
                           yaml_mark_t start) {
    nvtxwResultCode_t code;
    uint64_t id = 0;
    if (resolve_references(loader, builder))
        return -1;
    link_semantics(builder);
    builder->attr.name = builder->name;
    builder->attr.entries = builder->entries;
    builder->attr.numEntries = builder->count;
    code = nvtxw_schema_registry_add_schema(loader->registry, &builder->attr, &id);
    if (code != NVTXW_RESULT_SUCCESS)
        return schema_yaml_loader_wrap(loader, start, code);
    return 0;
}

int schema_yaml_load_schema(schema_yaml_loader_t* loader) {
    schema_builder_t builder;
    yaml_mark_t start = loader->event.start_mark;
    uint32_t seen = 0;
    int status = -1;
    memset(&builder, 0, sizeof builder);
    if (schema_yaml_expect(loader, YAML_MAPPING_START_EVENT, "a schema"))
        goto end;
    for (;;) {
        int key;
        if (schema_yaml_loader_next(loader))
            goto end;
        if (loader->event.type == YAML_MAPPING_END_EVENT)
            break;
        key = schema_yaml_read_key(loader, schema_keys, sizeof schema_keys / sizeof schema_keys[0],
                                   "schema", &seen);
        if (key < 0 || schema_yaml_loader_next(loader) || read_schema_value(loader, key, &builder))
            goto end;
    }
    if (schema_yaml_require_keys(loader, schema_keys, seen,
                                 (1u << SCHEMA_KIND) | (1u << SCHEMA_ENTRIES), start, "schema"))
        goto end;
    status = register_schema(loader, &builder, start);
end:
    schema_builder_free(&builder);
    return status;
}

/* ---- enum ------------------------------------------------------------------ */

typedef struct enum_builder {
    nvtxPayloadEnumAttr_t attr;
    char* name;
    nvtxPayloadEnum_t* values;
    size_t count;
    size_t capacity;
} enum_builder_t;

static int enum_add_value(schema_yaml_loader_t* loader, enum_builder_t* builder) {
    if (builder->count == builder->capacity) {
        size_t capacity = builder->capacity ? builder->capacity * 2 : 8;
        void* grown;
        if (builder->count >= YAML_MAX_ENTRIES)
            return schema_yaml_loader_fail(loader, loader->event.start_mark,
                                           "too many enum values (limit %u)", YAML_MAX_ENTRIES);
        capacity = capacity < YAML_MAX_ENTRIES ? capacity : YAML_MAX_ENTRIES;
        grown = nvtxw_reallocarray(builder->values, capacity, sizeof *builder->values);
        if (grown == NULL)
            return schema_yaml_loader_oom(loader, "enum values");
        builder->values = grown;
        builder->capacity = capacity;
    }
    memset(&builder->values[builder->count], 0, sizeof *builder->values);
    builder->count++;
    return 0;
}

/* value ::= { name: STR, value: INT, flag?: BOOL } */
static int read_enum_value(schema_yaml_loader_t* loader, enum_builder_t* builder) {
    static const char* const keys[] = {"name", "value", "flag"};
    yaml_mark_t start = loader->event.start_mark;
    nvtxPayloadEnum_t* value;
    uint32_t seen = 0;
    if (schema_yaml_expect(loader, YAML_MAPPING_START_EVENT, "an enum value") ||
        enum_add_value(loader, builder))
        return -1;
    value = &builder->values[builder->count - 1];
    for (;;) {
        int key;
        int flag;
        if (schema_yaml_loader_next(loader))
            return -1;
        if (loader->event.type == YAML_MAPPING_END_EVENT)
            break;
        key = schema_yaml_read_key(loader, keys, 3, "enum value", &seen);
        if (key < 0 || schema_yaml_loader_next(loader))
            return -1;
        if (key == 0 && schema_yaml_read_string(loader, "enum value name", (char**)&value->name))
            return -1;
        if (key == 1 && schema_yaml_read_i64_or_u64(loader, "enum value", &value->value))
            return -1;
        if (key == 2 && schema_yaml_read_bool(loader, "flag", &flag))
            return -1;
        if (key == 2)
            value->isFlag = (int8_t)flag;
    }
    return schema_yaml_require_keys(loader, keys, seen, 3u, start, "enum value");
}

static int read_enum_values(schema_yaml_loader_t* loader, enum_builder_t* builder) {
    yaml_mark_t start = loader->event.start_mark;
    if (schema_yaml_expect(loader, YAML_SEQUENCE_START_EVENT, "values"))
        return -1;
    for (;;) {
        if (schema_yaml_loader_next(loader))
            return -1;
        if (loader->event.type == YAML_SEQUENCE_END_EVENT)
            break;
        if (read_enum_value(loader, builder))
            return -1;
    }
    if (builder->count == 0)
        return schema_yaml_loader_fail(loader, start, "values must not be empty");
    return 0;
}

static int read_enum_size(schema_yaml_loader_t* loader, size_t* size) {
    uint64_t value;
    if (schema_yaml_read_u64(loader, "enum size", UINT64_MAX, &value))
        return -1;
    if (value != 1 && value != 2 && value != 4 && value != 8)
        return schema_yaml_loader_fail(loader, loader->event.start_mark,
                                       "enum size %llu out of range (must be 1, 2, 4 or 8)",
                                       (unsigned long long)value);
    *size = (size_t)value;
    return 0;
}

static int read_enum_value_of_key(schema_yaml_loader_t* loader, int key, enum_builder_t* builder) {
    nvtxPayloadEnumAttr_t* attr = &builder->attr;
    switch (key) {
    case 0:
        attr->fieldMask |= NVTX_PAYLOAD_ENUM_ATTR_FIELD_NAME;
        return read_item_name(loader, "enum name", &builder->name);
    case 1:
        attr->fieldMask |= NVTX_PAYLOAD_ENUM_ATTR_FIELD_SCHEMA_ID;
        return read_static_id(loader, &attr->schemaId);
    case 2:
        attr->fieldMask |= NVTX_PAYLOAD_ENUM_ATTR_FIELD_SIZE;
        return read_enum_size(loader, &attr->sizeOfEnum);
    default:
        attr->fieldMask |=
            NVTX_PAYLOAD_ENUM_ATTR_FIELD_ENTRIES | NVTX_PAYLOAD_ENUM_ATTR_FIELD_NUM_ENTRIES;
        return read_enum_values(loader, builder);
    }
}

int schema_yaml_load_enum(schema_yaml_loader_t* loader) {
    static const char* const keys[] = {"name", "id", "size", "values"};
    enum_builder_t builder;
    yaml_mark_t start = loader->event.start_mark;
    uint32_t seen = 0;
    uint64_t id = 0;
    nvtxwResultCode_t code;
    int status = -1;
    memset(&builder, 0, sizeof builder);
    if (schema_yaml_expect(loader, YAML_MAPPING_START_EVENT, "an enum"))
        goto end;
    for (;;) {
        int key;
        if (schema_yaml_loader_next(loader))
            goto end;
        if (loader->event.type == YAML_MAPPING_END_EVENT)
            break;
        key = schema_yaml_read_key(loader, keys, 4, "enum", &seen);
        if (key < 0 || schema_yaml_loader_next(loader) ||
            read_enum_value_of_key(loader, key, &builder))
            goto end;
    }
    if (schema_yaml_require_keys(loader, keys, seen, (1u << 2) | (1u << 3), start, "enum"))
        goto end;
    builder.attr.name = builder.name;
    builder.attr.entries = builder.values;
    builder.attr.numEntries = builder.count;
    code = nvtxw_schema_registry_add_enum(loader->registry, &builder.attr, &id);
    status = code == NVTXW_RESULT_SUCCESS ? 0 : schema_yaml_loader_wrap(loader, start, code);
end:
    for (size_t i = 0; i < builder.count; i++)
        nvtxw_free((void*)builder.values[i].name);
    nvtxw_free(builder.values);
    nvtxw_free(builder.name);
    return status;
}
