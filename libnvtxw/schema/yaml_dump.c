/*
 * schema/yaml_dump.c - writes a registry's schemas and enums as YAML
 * (docs/schemas.md) through libyaml's emitter, in registration order.
 *
 * Output shape (the loader's grammar, yaml_load.c):
 *
 *   version: 1
 *   items:
 *   - enum: {name, id, size, values: [{name, value, flag}]}
 *   - schema: {name, id, kind, flags, role, size, align, entries: [...]}
 *
 * Spelling rules, so that load(dump(load(x))) registers identical attrs:
 *  - a key is written iff the matching fieldMask bit is set; `id` only for
 *    static IDs (dynamic ones are reassigned by the loading registry);
 *  - numbers with a symbolic name are written by name, others as integers
 *    (the loader accepts both everywhere);
 *  - a schema or enum used as an entry type is written by name when that
 *    name is unique in the registry and is no predefined type name, else by
 *    ID; names starting with a digit are double-quoted so that they do not
 *    read back as numbers. Entry references (length_index, selector) follow
 *    the same rule among the schema's entries;
 *  - entry flag bits are split into the flags list, `array`, `semantic` and
 *    `role`; bits without a name go into the flags list as one integer.
 * Of an entry's semantics chain the first time, scope and counter
 * extension are written (as time_domain, scope and counter); other
 * extensions have no YAML form and are not written.
 *
 * Errors are sticky: after the first failure every emit is skipped and the
 * first message is kept, which keeps the writers free of error plumbing.
 */
#include "config.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <yaml.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "common/utf8.h"
#include "nvtxw/schema_yaml.h"
#include "schema/yaml_internal.h"

typedef struct dumper {
    yaml_emitter_t emitter;
    const nvtxw_schema_registry_t* registry;
    nvtxw_write_fn write;
    void* write_ctx;
    int write_failed;
    nvtxwResultCode_t status;
} dumper_t;

static int dumper_output(void* data, unsigned char* buffer, size_t size) {
    dumper_t* dumper = data;
    if (dumper->write(dumper->write_ctx, (const char*)buffer, size) != 0) {
        dumper->write_failed = 1;
        return 0;
    }
    return 1;
}

/* Emits `event` (initialized by `ok`) unless an earlier step failed. */
static void emit(dumper_t* dumper, int ok, yaml_event_t* event) {
    if (dumper->status != NVTXW_RESULT_SUCCESS) {
        if (ok)
            yaml_event_delete(event);
        return;
    }
    if (!ok) {
        dumper->status = error_oom("a YAML event");
        return;
    }
    if (yaml_emitter_emit(&dumper->emitter, event))
        return;
    if (dumper->write_failed)
        dumper->status =
            error_set(NVTXW_RESULT_FAILED, "cannot dump schemas: the write callback failed");
    else
        dumper->status = error_set(NVTXW_RESULT_FAILED, "cannot dump schemas: libyaml: %s",
                                   dumper->emitter.problem ? dumper->emitter.problem : "error");
}

static void emit_scalar_style(dumper_t* dumper, const char* text, yaml_scalar_style_t style) {
    yaml_event_t event;
    int ok = yaml_scalar_event_initialize(&event, NULL, NULL, (yaml_char_t*)text, (int)strlen(text),
                                          1, 1, style);
    /* libyaml refuses text that is not UTF-8 the same way as out of memory:
     * tell them apart (registered names are repaired, other text may not). */
    if (!ok && dumper->status == NVTXW_RESULT_SUCCESS) {
        char* repaired = utf8_dup_repaired(text);
        if (repaired != NULL && strcmp(repaired, text) != 0)
            dumper->status = error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                                       "cannot dump schemas: \"%s\" is not UTF-8", repaired);
        nvtxw_free(repaired);
    }
    emit(dumper, ok, &event);
}

static void emit_string(dumper_t* dumper, const char* text) {
    emit_scalar_style(dumper, text, YAML_ANY_SCALAR_STYLE);
}

/* A name the loader must not mistake for a number is double-quoted. */
static void emit_name(dumper_t* dumper, const char* name) {
    int digit = name[0] >= '0' && name[0] <= '9';
    emit_scalar_style(dumper, name,
                      digit ? YAML_DOUBLE_QUOTED_SCALAR_STYLE : YAML_ANY_SCALAR_STYLE);
}

static void emit_u64(dumper_t* dumper, uint64_t value) {
    char text[24];
    snprintf(text, sizeof text, "%" PRIu64, value);
    emit_scalar_style(dumper, text, YAML_PLAIN_SCALAR_STYLE);
}

static void emit_mapping(dumper_t* dumper, int start, int flow) {
    yaml_event_t event;
    int ok =
        start ? yaml_mapping_start_event_initialize(
                    &event, NULL, NULL, 1, flow ? YAML_FLOW_MAPPING_STYLE : YAML_ANY_MAPPING_STYLE)
              : yaml_mapping_end_event_initialize(&event);
    emit(dumper, ok, &event);
}

static void emit_sequence(dumper_t* dumper, int start, int flow) {
    yaml_event_t event;
    int ok = start ? yaml_sequence_start_event_initialize(&event, NULL, NULL, 1,
                                                          flow ? YAML_FLOW_SEQUENCE_STYLE
                                                               : YAML_ANY_SEQUENCE_STYLE)
                   : yaml_sequence_end_event_initialize(&event);
    emit(dumper, ok, &event);
}

static void emit_key_u64(dumper_t* dumper, const char* key, uint64_t value) {
    emit_string(dumper, key);
    emit_u64(dumper, value);
}

/* Writes `value` by its name in `table`, or as an integer. */
static void emit_key_symbol(dumper_t* dumper, const char* key,
                            const schema_yaml_name_table_t* table, uint64_t value) {
    const char* name = schema_yaml_name_of(table, value);
    emit_string(dumper, key);
    if (name != NULL)
        emit_string(dumper, name);
    else
        emit_u64(dumper, value);
}

/* Writes `flags: [names..., rest]` for the bits of `table` and the `rest`
 * bits; with `always`, also the empty list. */
static void emit_flag_list(dumper_t* dumper, const schema_yaml_name_table_t* table, uint64_t flags,
                           uint64_t rest, int always) {
    int any = rest != 0;
    for (size_t i = 0; i < table->count; i++)
        any |= (flags & table->rows[i].value) != 0;
    if (!any && !always)
        return;
    emit_string(dumper, "flags");
    emit_sequence(dumper, 1, 1);
    for (size_t i = 0; i < table->count; i++) {
        if (flags & table->rows[i].value)
            emit_string(dumper, table->rows[i].name);
    }
    if (rest != 0)
        emit_u64(dumper, rest);
    emit_sequence(dumper, 0, 1);
}

/* ---- references ------------------------------------------------------------ */

/* The name of schema or enum `id`, or NULL when it has none. */
static const char* item_name(const nvtxw_schema_registry_t* registry, uint64_t id) {
    const nvtxw_schema_t* schema = nvtxw_schema_registry_find_schema(registry, id);
    const nvtxw_enum_t* enumeration;
    nvtxPayloadEnumAttr_t attr;
    if (schema != NULL)
        return nvtxw_schema_name(schema);
    enumeration = nvtxw_schema_registry_find_enum(registry, id);
    if (enumeration == NULL)
        return NULL;
    nvtxw_enum_get_attr(enumeration, &attr);
    return (attr.fieldMask & NVTX_PAYLOAD_ENUM_ATTR_FIELD_NAME) ? attr.name : NULL;
}

static void emit_entry_type(dumper_t* dumper, uint64_t type) {
    const char* name = schema_yaml_name_of(&schema_yaml_entry_types, type);
    uint64_t unused;
    emit_string(dumper, "type");
    if (name != NULL) {
        emit_string(dumper, name);
        return;
    }
    name = item_name(dumper->registry, type);
    if (name != NULL && name[0] != '\0' &&
        schema_yaml_value_of(&schema_yaml_entry_types, name, strlen(name), &unused) != 0 &&
        schema_yaml_registry_find_name(dumper->registry, name, &unused) == 1)
        emit_name(dumper, name);
    else
        emit_u64(dumper, type);
}

/* Writes entry index `target` by name when that name is unique. */
static void emit_entry_reference(dumper_t* dumper, const schema_yaml_entry_index_t* index,
                                 const nvtxPayloadSchemaAttr_t* attr, uint64_t target) {
    if (index->sorted != NULL && target < attr->numEntries) {
        const char* name = attr->entries[target].name;
        if (name != NULL && name[0] != '\0' &&
            schema_yaml_entry_index_find(index, name) == (long)target) {
            emit_name(dumper, name);
            return;
        }
    }
    emit_u64(dumper, target);
}

/* ---- entries ---------------------------------------------------------------- */

/* Non-zero when `type` is a registered union with an external selector. */
static int is_external_union(const nvtxw_schema_registry_t* registry, uint64_t type) {
    const nvtxw_schema_t* schema = nvtxw_schema_registry_find_schema(registry, type);
    nvtxPayloadSchemaAttr_t attr;
    if (schema == NULL)
        return 0;
    nvtxw_schema_get_attr(schema, &attr);
    return attr.type == NVTX_PAYLOAD_SCHEMA_TYPE_UNION;
}

/* Writes array / length / selector, the keys that carry arrayOrUnionDetail. */
static void emit_entry_detail(dumper_t* dumper, const schema_yaml_entry_index_t* index,
                              const nvtxPayloadSchemaAttr_t* attr, size_t i) {
    const nvtxPayloadSchemaEntry_t* entry = &attr->entries[i];
    uint64_t kind = NVTXW_PAYLOAD_ENTRY_ARRAY_KIND(entry->flags);
    uint64_t detail = entry->arrayOrUnionDetail;
    if (kind == NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_FIXED_SIZE) {
        emit_key_u64(dumper, "array", detail);
        return;
    }
    if (kind == NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_INDEX ||
        kind == NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_PAYLOAD_INDEX) {
        int local = kind == NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_INDEX;
        emit_string(dumper, "array");
        emit_mapping(dumper, 1, 1);
        emit_string(dumper, local ? "length_index" : "length_payload_index");
        if (local)
            emit_entry_reference(dumper, index, attr, detail);
        else
            emit_u64(dumper, detail);
        emit_mapping(dumper, 0, 1);
        return;
    }
    if (kind == NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_ZERO_TERMINATED) {
        emit_string(dumper, "array");
        emit_string(dumper, "zero_terminated");
    }
    if (kind == 0 && is_external_union(dumper->registry, entry->type)) {
        emit_string(dumper, "selector");
        emit_entry_reference(dumper, index, attr, detail);
    } else if (detail != 0) {
        emit_key_u64(dumper, "length", detail);
    }
}

/* The counter semantic as registered, fields beyond its structSize zero. */
static void counter_of(const nvtxSemanticsHeader_t* header, nvtxSemanticsCounter_t* counter) {
    size_t size = header->structSize < sizeof *counter ? header->structSize : sizeof *counter;
    memset(counter, 0, sizeof *counter);
    memcpy(counter, header, size);
    if (size < offsetof(nvtxSemanticsCounter_t, unitScaleNumerator))
        counter->unit = NULL;
}

static void emit_key_limit(dumper_t* dumper, const char* key, int64_t type,
                           nvtxCounterLimit_t limit) {
    char text[YAML_DOUBLE_CHARS];
    if (limit.u64 == 0)
        return;
    if (type == NVTX_COUNTER_LIMIT_F64)
        schema_yaml_format_double(limit.f64, text);
    else if (type == NVTX_COUNTER_LIMIT_I64)
        snprintf(text, sizeof text, "%" PRId64, limit.i64);
    else
        snprintf(text, sizeof text, "%" PRIu64, limit.u64);
    emit_string(dumper, key);
    emit_scalar_style(dumper, text, YAML_PLAIN_SCALAR_STYLE);
}

/* `counter: {...}`, each key only when its field is non-zero. */
static void emit_counter(dumper_t* dumper, const nvtxSemanticsHeader_t* header) {
    nvtxSemanticsCounter_t c;
    const uint64_t fields = YAML_COUNTER_VALUE_TYPE_MASK | YAML_COUNTER_INTERPOLATION_MASK;
    uint64_t named = NVTX_COUNTER_FLAG_NORMALIZE | NVTX_COUNTER_FLAG_LIMITS;
    uint64_t value_type, interpolation;
    counter_of(header, &c);
    value_type = (c.flags & YAML_COUNTER_VALUE_TYPE_MASK) >> YAML_COUNTER_VALUE_TYPE_SHIFT;
    interpolation = (c.flags & YAML_COUNTER_INTERPOLATION_MASK) >> YAML_COUNTER_INTERPOLATION_SHIFT;
    emit_string(dumper, "counter");
    emit_mapping(dumper, 1, 1);
    emit_flag_list(dumper, &schema_yaml_counter_flags, c.flags, c.flags & ~(named | fields), 0);
    if (value_type != 0)
        emit_key_symbol(dumper, "value_type", &schema_yaml_counter_value_types, value_type);
    if (interpolation != 0)
        emit_key_symbol(dumper, "interpolation", &schema_yaml_counter_interpolations,
                        interpolation);
    if (c.unit != NULL) {
        emit_string(dumper, "unit");
        emit_string(dumper, c.unit);
    }
    if (c.unitScaleNumerator != 0)
        emit_key_u64(dumper, "unit_scale_numerator", c.unitScaleNumerator);
    if (c.unitScaleDenominator != 0)
        emit_key_u64(dumper, "unit_scale_denominator", c.unitScaleDenominator);
    if (c.limitType != 0)
        emit_key_symbol(dumper, "limit_type", &schema_yaml_counter_limit_types,
                        (uint64_t)c.limitType);
    emit_key_limit(dumper, "min", c.limitType, c.min);
    emit_key_limit(dumper, "max", c.limitType, c.max);
    emit_mapping(dumper, 0, 1);
}

/* Writes the first time, scope, JSON-text and counter semantic of the chain. */
static void emit_entry_semantics(dumper_t* dumper, const nvtxSemanticsHeader_t* header) {
    int time_done = 0;
    int scope_done = 0;
    int json_done = 0;
    const nvtxSemanticsHeader_t* counter = NULL;
    for (; header != NULL; header = header->next) {
        if (header->semanticId == NVTX_SEMANTIC_ID_TIME_V1 && !time_done &&
            header->structSize >= sizeof(nvtxSemanticsTime_t)) {
            emit_key_u64(dumper, "time_domain",
                         ((const nvtxSemanticsTime_t*)(const void*)header)->timeDomainId);
            time_done = 1;
        } else if (header->semanticId == NVTX_SEMANTIC_ID_SCOPE_V1 && !scope_done &&
                   header->structSize >= sizeof(nvtxSemanticsScope_t)) {
            emit_key_u64(dumper, "scope",
                         ((const nvtxSemanticsScope_t*)(const void*)header)->scopeId);
            scope_done = 1;
        } else if (header->semanticId == NVTXW_SEMANTIC_ID_JSON_TEXT && !json_done) {
            emit_string(dumper, "json");
            emit_scalar_style(dumper, "true", YAML_PLAIN_SCALAR_STYLE);
            json_done = 1;
        } else if (header->semanticId == NVTX_SEMANTIC_ID_COUNTERS_V1 && counter == NULL) {
            counter = header;
        }
    }
    if (counter != NULL)
        emit_counter(dumper, counter);
}

static void emit_entry(dumper_t* dumper, const schema_yaml_entry_index_t* index,
                       const nvtxPayloadSchemaAttr_t* attr, size_t i) {
    const nvtxPayloadSchemaEntry_t* entry = &attr->entries[i];
    const uint64_t named =
        0x30E | NVTXW_PAYLOAD_ENTRY_FLAG_SEMANTIC_MASK | NVTXW_PAYLOAD_ENTRY_FLAG_ROLE_MASK;
    uint64_t kind = NVTXW_PAYLOAD_ENTRY_ARRAY_KIND(entry->flags);
    uint64_t rest = entry->flags & ~(named | NVTXW_PAYLOAD_ENTRY_FLAG_ARRAY_MASK);
    uint64_t semantic =
        (entry->flags & NVTXW_PAYLOAD_ENTRY_FLAG_SEMANTIC_MASK) >> YAML_ENTRY_SEMANTIC_SHIFT;
    uint64_t role = (entry->flags & NVTXW_PAYLOAD_ENTRY_FLAG_ROLE_MASK) >> YAML_ENTRY_ROLE_SHIFT;
    if (kind > NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_PAYLOAD_INDEX)
        rest |= kind; /* array kinds 5-7 have no name */
    emit_mapping(dumper, 1, 1);
    if (entry->name != NULL) {
        emit_string(dumper, "name");
        emit_string(dumper, entry->name);
    }
    emit_entry_type(dumper, entry->type);
    if (entry->offset != 0)
        emit_key_u64(dumper, "offset", entry->offset);
    emit_flag_list(dumper, &schema_yaml_entry_flags, entry->flags, rest, 0);
    emit_entry_detail(dumper, index, attr, i);
    if (semantic != 0)
        emit_key_symbol(dumper, "semantic", &schema_yaml_entry_semantics, semantic);
    if (role != 0)
        emit_key_symbol(dumper, "role", &schema_yaml_entry_roles, role);
    emit_entry_semantics(dumper, entry->semantics);
    if (entry->description != NULL) {
        emit_string(dumper, "description");
        emit_string(dumper, entry->description);
    }
    emit_mapping(dumper, 0, 1);
}

static void emit_entries(dumper_t* dumper, const nvtxPayloadSchemaAttr_t* attr) {
    schema_yaml_entry_index_t index = {NULL, 0};
    if (dumper->status == NVTXW_RESULT_SUCCESS)
        dumper->status = schema_yaml_entry_index_build(&index, attr->entries, attr->numEntries);
    emit_string(dumper, "entries");
    emit_sequence(dumper, 1, 0);
    for (size_t i = 0; i < attr->numEntries; i++)
        emit_entry(dumper, &index, attr, i);
    emit_sequence(dumper, 0, 0);
    schema_yaml_entry_index_free(&index);
}

/* ---- items ------------------------------------------------------------------ */

static void emit_schema_flags(dumper_t* dumper, const nvtxPayloadSchemaAttr_t* attr) {
    uint64_t role = (attr->flags & YAML_SCHEMA_ROLE_MASK) >> YAML_SCHEMA_ROLE_SHIFT;
    uint64_t rest = attr->flags & ~(YAML_SCHEMA_ROLE_MASK | NVTX_PAYLOAD_SCHEMA_FLAG_DEEP_COPY |
                                    NVTX_PAYLOAD_SCHEMA_FLAG_REFERENCED);
    /* FLAGS set with nothing else to say is `flags: []`. */
    emit_flag_list(dumper, &schema_yaml_schema_flags, attr->flags, rest, role == 0);
    if (role != 0)
        emit_key_symbol(dumper, "role", &schema_yaml_schema_roles, role);
}

static void emit_schema(dumper_t* dumper, const nvtxw_schema_t* schema) {
    nvtxPayloadSchemaAttr_t attr;
    nvtxw_schema_get_attr(schema, &attr);
    emit_string(dumper, "schema");
    emit_mapping(dumper, 1, 0);
    if (attr.fieldMask & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NAME) {
        emit_string(dumper, "name");
        emit_string(dumper, attr.name != NULL ? attr.name : "");
    }
    if ((attr.fieldMask & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_SCHEMA_ID) &&
        attr.schemaId < NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START)
        emit_key_u64(dumper, "id", attr.schemaId);
    if (attr.fieldMask & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE)
        emit_key_symbol(dumper, "kind", &schema_yaml_schema_kinds, attr.type);
    if (attr.fieldMask & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_FLAGS)
        emit_schema_flags(dumper, &attr);
    if (attr.fieldMask & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_STATIC_SIZE)
        emit_key_u64(dumper, "size", attr.payloadStaticSize);
    if (attr.fieldMask & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ALIGNMENT)
        emit_key_u64(dumper, "align", attr.packAlign);
    emit_entries(dumper, &attr);
    emit_mapping(dumper, 0, 0);
}

static void emit_enum(dumper_t* dumper, const nvtxw_enum_t* enumeration) {
    nvtxPayloadEnumAttr_t attr;
    nvtxw_enum_get_attr(enumeration, &attr);
    emit_string(dumper, "enum");
    emit_mapping(dumper, 1, 0);
    if (attr.fieldMask & NVTX_PAYLOAD_ENUM_ATTR_FIELD_NAME) {
        emit_string(dumper, "name");
        emit_string(dumper, attr.name != NULL ? attr.name : "");
    }
    if ((attr.fieldMask & NVTX_PAYLOAD_ENUM_ATTR_FIELD_SCHEMA_ID) &&
        attr.schemaId < NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START)
        emit_key_u64(dumper, "id", attr.schemaId);
    if (attr.fieldMask & NVTX_PAYLOAD_ENUM_ATTR_FIELD_SIZE)
        emit_key_u64(dumper, "size", attr.sizeOfEnum);
    emit_string(dumper, "values");
    emit_sequence(dumper, 1, 0);
    for (size_t i = 0; i < attr.numEntries; i++) {
        emit_mapping(dumper, 1, 1);
        emit_string(dumper, "name");
        emit_string(dumper, attr.entries[i].name != NULL ? attr.entries[i].name : "");
        emit_key_u64(dumper, "value", attr.entries[i].value);
        if (attr.entries[i].isFlag) {
            emit_string(dumper, "flag");
            emit_string(dumper, "true");
        }
        emit_mapping(dumper, 0, 1);
    }
    emit_sequence(dumper, 0, 0);
    emit_mapping(dumper, 0, 0);
}

static void emit_items(dumper_t* dumper) {
    size_t count = nvtxw_schema_registry_count(dumper->registry);
    emit_string(dumper, "items");
    emit_sequence(dumper, 1, 0);
    for (size_t i = 0; i < count && dumper->status == NVTXW_RESULT_SUCCESS; i++) {
        const nvtxw_schema_t* schema;
        const nvtxw_enum_t* enumeration;
        nvtxw_schema_registry_at(dumper->registry, i, &schema, &enumeration);
        emit_mapping(dumper, 1, 0);
        if (schema != NULL)
            emit_schema(dumper, schema);
        else
            emit_enum(dumper, enumeration);
        emit_mapping(dumper, 0, 0);
    }
    emit_sequence(dumper, 0, 0);
}

static void emit_document(dumper_t* dumper) {
    yaml_event_t event;
    emit(dumper, yaml_stream_start_event_initialize(&event, YAML_UTF8_ENCODING), &event);
    emit(dumper, yaml_document_start_event_initialize(&event, NULL, NULL, NULL, 1), &event);
    emit_mapping(dumper, 1, 0);
    emit_key_u64(dumper, "version", 1);
    emit_items(dumper);
    emit_mapping(dumper, 0, 0);
    emit(dumper, yaml_document_end_event_initialize(&event, 1), &event);
    emit(dumper, yaml_stream_end_event_initialize(&event), &event);
}

nvtxwResultCode_t nvtxw_schema_yaml_dump(const nvtxw_schema_registry_t* registry,
                                         nvtxw_write_fn write, void* write_ctx) {
    dumper_t dumper;
    if (registry == NULL || write == NULL)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot dump schemas: registry or write function is NULL");
    memset(&dumper, 0, sizeof dumper);
    dumper.registry = registry;
    dumper.write = write;
    dumper.write_ctx = write_ctx;
    dumper.status = NVTXW_RESULT_SUCCESS;
    if (!yaml_emitter_initialize(&dumper.emitter))
        return error_oom("the YAML emitter");
    yaml_emitter_set_output(&dumper.emitter, dumper_output, &dumper);
    yaml_emitter_set_unicode(&dumper.emitter, 1);
    yaml_emitter_set_width(&dumper.emitter, 100);
    emit_document(&dumper);
    if (dumper.status == NVTXW_RESULT_SUCCESS && !yaml_emitter_flush(&dumper.emitter))
        dumper.status = error_set(NVTXW_RESULT_FAILED, "cannot dump schemas: %s",
                                  dumper.write_failed ? "the write callback failed"
                                                      : "libyaml cannot flush its output");
    yaml_emitter_delete(&dumper.emitter);
    return dumper.status;
}
