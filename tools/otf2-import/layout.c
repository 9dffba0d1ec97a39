/*
 * tools/otf2-import/layout.c - the event schemas and their payload layouts.
 *
 * schemas/otf2-events.yaml is compiled in (otf2_events_yaml.inc, generated
 * by tools/otf2-import/local.mk) and loaded into a registry, which finalizes
 * the schemas: entry offsets and sizes come from there, so the YAML file is
 * the one description of every payload the importer writes.
 */
#include "config.h"

#include <string.h>

#include "otf2_import.h"

static const char events_yaml[] =
#include "otf2_events_yaml.inc"
    ;

/* Static IDs of the event schemas, in event_schema order. */
static const uint64_t schema_ids[ES_COUNT] = {
    0x4F540006, 0x4F540007, /* enter, leave */
    0x4F540001, 0x4F540002, 0x4F540003, 0x4F540004, 0x4F540005, 0x4F540010, 0x4F540011,
    0x4F540012, 0x4F540013, 0x4F540014, 0x4F540015, 0x4F540016, 0x4F540017, 0x4F540020,
    0x4F540021, 0x4F540022, 0x4F540023, 0x4F540024, 0x4F540025, 0x4F540026, 0x4F540030,
    0x4F540031, 0x4F540032, 0x4F540033, 0x4F540040, 0x4F540041, 0x4F540042, 0x4F540050,
    0x4F540051, 0x4F540060, 0x4F540061, 0x4F540062, 0x4F540063, 0x4F540064, 0x4F540065};

/* The size of an entry type: predefined, or one of the file's enums. */
static size_t type_size(const nvtxw_schema_registry_t* registry, uint64_t type) {
    const nvtxw_enum_t* e;
    nvtxPayloadEnumAttr_t attr;
    size_t size = nvtxw_entry_type_size(type);
    if (size != 0 || (e = nvtxw_schema_registry_find_enum(registry, type)) == NULL)
        return size;
    nvtxw_enum_get_attr(e, &attr);
    return attr.sizeOfEnum;
}

static int layout_of(const nvtxw_schema_registry_t* registry, const nvtxw_schema_t* schema,
                     schema_layout* out) {
    nvtxPayloadSchemaAttr_t attr;
    nvtxw_schema_get_attr(schema, &attr);
    if (attr.numEntries > LAYOUT_MAX_ENTRIES)
        return -1;
    out->id = nvtxw_schema_id(schema);
    out->size = nvtxw_schema_static_size(schema);
    out->count = attr.numEntries;
    for (size_t i = 0; i < attr.numEntries; i++) {
        size_t size = type_size(registry, attr.entries[i].type);
        size_t offset = nvtxw_schema_entry_offset(schema, i);
        if (NVTXW_PAYLOAD_ENTRY_ARRAY_KIND(attr.entries[i].flags) != 0) {
            /* a trailing inline string (dynamic schemas): its start */
            if (i + 1 != attr.numEntries || i == 0)
                return -1;
            out->string_offset = out->offsets[i - 1] + out->sizes[i - 1];
            out->count = i;
            break;
        }
        if ((size != 1 && size != 2 && size != 4 && size != 8) || offset > UINT16_MAX)
            return -1;
        out->offsets[i] = (uint16_t)offset;
        out->sizes[i] = (uint8_t)size;
    }
    if (out->string_offset != 0)
        out->size = out->string_offset;
    return 0;
}

nvtxwResultCode_t layouts_load(layouts* out) {
    memset(out, 0, sizeof *out);
    out->registry = nvtxw_schema_registry_create();
    if (out->registry == NULL) {
        import_error("out of memory");
        return NVTXW_RESULT_FAILED;
    }
    if (nvtxw_schema_yaml_load_string(out->registry, events_yaml, sizeof events_yaml - 1,
                                      "otf2-events.yaml") != NVTXW_RESULT_SUCCESS) {
        import_error("cannot load the built-in event schemas: %s", nvtxw_last_error());
        return NVTXW_RESULT_FAILED;
    }
    for (size_t i = 0; i < ES_COUNT; i++) {
        const nvtxw_schema_t* s = nvtxw_schema_registry_find_schema(out->registry, schema_ids[i]);
        if (s == NULL || layout_of(out->registry, s, &out->schema[i]) != 0) {
            import_error("built-in event schema 0x%llx is missing or too large",
                         (unsigned long long)schema_ids[i]);
            return NVTXW_RESULT_FAILED;
        }
    }
    return NVTXW_RESULT_SUCCESS;
}

void layouts_free(layouts* l) {
    nvtxw_schema_registry_destroy(l->registry);
    l->registry = NULL;
}

void layout_fill(const schema_layout* layout, void* buf, const uint64_t* values, size_t count) {
    unsigned char* p = buf;
    memset(buf, 0, layout->size);
    for (size_t i = 0; i < count && i < layout->count; i++) {
        uint64_t v = values[i];
        switch (layout->sizes[i]) {
        case 1: {
            uint8_t x = (uint8_t)v;
            memcpy(p + layout->offsets[i], &x, 1);
            break;
        }
        case 2: {
            uint16_t x = (uint16_t)v;
            memcpy(p + layout->offsets[i], &x, 2);
            break;
        }
        case 4: {
            uint32_t x = (uint32_t)v;
            memcpy(p + layout->offsets[i], &x, 4);
            break;
        }
        default:
            memcpy(p + layout->offsets[i], &v, 8);
            break;
        }
    }
}
