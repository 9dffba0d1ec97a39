/*
 * sink/capture/capture_json.c - JSON spelling for Sink=capture: strings with
 * JSON escapes, doubles that read back to the same bits (%.17g), bytes as
 * hex, and schemas/enums/counter semantics as one-line JSON in the key set
 * of docs/schemas.md (attributes by number where the YAML allows numbers,
 * so that every bit reads back; a key is written when its fieldMask bit is
 * set, as the YAML dumper does).
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <strings.h>

#include "common/utf8.h"
#include "nvtxw/payload.h"
#include "sink/capture/capture_internal.h"

/* JSON string: '"', '\\' and control characters escaped; bytes that are not
 * UTF-8 (the API does not check registered strings) become U+FFFD, since a
 * capture is UTF-8 text. */
int capture_json_string(strbuf* buf, const char* text, size_t length) {
    static const char hex[] = "0123456789abcdef";
    const unsigned char* s = (const unsigned char*)text;
    size_t i = 0, start = 0;
    if (strbuf_append(buf, "\"", 1))
        return 1;
    while (i < length) {
        unsigned char c = s[i];
        size_t n = utf8_sequence_length(s + i, length - i);
        char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
        const char* out = esc;
        size_t out_length = 6;
        if (n > 0 && c >= 0x20 && c != '"' && c != '\\' && c != 0x7F) {
            i += n;
            continue;
        }
        if (n == 0)
            out = "\\ufffd", n = 1;
        else if (c == '"' || c == '\\')
            esc[1] = (char)c, out_length = 2;
        if (strbuf_append(buf, text + start, i - start) || strbuf_append(buf, out, out_length))
            return 1;
        i += n;
        start = i;
    }
    return strbuf_append(buf, text + start, length - start) || strbuf_append(buf, "\"", 1);
}

int capture_json_double(strbuf* buf, double value) {
    if (isnan(value))
        return strbuf_append(buf, "\"nan\"", 5);
    if (isinf(value))
        return value < 0 ? strbuf_append(buf, "\"-inf\"", 6) : strbuf_append(buf, "\"inf\"", 5);
    return strbuf_printf(buf, "%.17g", value);
}

int capture_json_hex(strbuf* buf, const void* data, size_t size) {
    static const char hex[] = "0123456789abcdef";
    const unsigned char* bytes = data;
    size_t i;
    if (strbuf_append(buf, "\"", 1))
        return 1;
    for (i = 0; i < size; i++) {
        char pair[2] = {hex[bytes[i] >> 4], hex[bytes[i] & 15]};
        if (strbuf_append(buf, pair, 2))
            return 1;
    }
    return strbuf_append(buf, "\"", 1);
}

static int key_string(strbuf* buf, const char* key, const char* text) {
    return strbuf_printf(buf, ",\"%s\":", key) || capture_json_string(buf, text, strlen(text));
}

static int key_u64(strbuf* buf, const char* key, uint64_t value) {
    return strbuf_printf(buf, ",\"%s\":%" PRIu64, key, value);
}

/* Counter limits: typed as limit_type says, else the raw bits. */
static int key_limit(strbuf* buf, const char* key, int64_t type, nvtxCounterLimit_t limit) {
    if (type == NVTX_COUNTER_LIMIT_I64)
        return strbuf_printf(buf, ",\"%s\":%" PRId64, key, limit.i64);
    if (type == NVTX_COUNTER_LIMIT_U64)
        return key_u64(buf, key, limit.u64);
    if (type == NVTX_COUNTER_LIMIT_F64 && isfinite(limit.f64))
        return strbuf_printf(buf, ",\"%s\":", key) || capture_json_double(buf, limit.f64);
    if (type == NVTX_COUNTER_LIMIT_F64)
        return strbuf_printf(buf, ",\"%s\":%s", key,
                             isnan(limit.f64) ? ".nan"
                             : limit.f64 < 0  ? "-.inf"
                                              : ".inf");
    return key_u64(buf, key, limit.u64);
}

int capture_json_counter_semantics(strbuf* buf, const nvtxSemanticsHeader_t* h) {
    nvtxSemanticsCounter_t c;
    memset(&c, 0, sizeof c);
    memcpy(&c, h, h->structSize < sizeof c ? h->structSize : sizeof c);
    return strbuf_printf(buf,
                         "{\"flags\":[%" PRIu64 "],\"value_type\":%" PRIu64
                         ",\"interpolation\":%" PRIu64,
                         c.flags & ~(uint64_t)0x730, (c.flags >> 4) & 3, (c.flags >> 8) & 7) ||
           (c.unit != NULL && key_string(buf, "unit", c.unit)) ||
           key_u64(buf, "unit_scale_numerator", c.unitScaleNumerator) ||
           key_u64(buf, "unit_scale_denominator", c.unitScaleDenominator) ||
           strbuf_printf(buf, ",\"limit_type\":%" PRId64, c.limitType) ||
           key_limit(buf, "min", c.limitType, c.min) || key_limit(buf, "max", c.limitType, c.max) ||
           strbuf_append(buf, "}", 1);
}

static int entry_semantics(strbuf* buf, const nvtxSemanticsHeader_t* h) {
    int time = 0, scope = 0, counter = 0, json = 0;
    for (; h != NULL; h = h->next) {
        if (h->semanticId == NVTXW_SEMANTIC_ID_JSON_TEXT && !json++ &&
            strbuf_append(buf, ",\"json\":true", 12))
            return 1;
        if (h->semanticId == NVTX_SEMANTIC_ID_TIME_V1 && !time++ &&
            key_u64(buf, "time_domain", ((const nvtxSemanticsTime_t*)h)->timeDomainId))
            return 1;
        if (h->semanticId == NVTX_SEMANTIC_ID_SCOPE_V1 && !scope++ &&
            key_u64(buf, "scope", ((const nvtxSemanticsScope_t*)h)->scopeId))
            return 1;
        if (h->semanticId == NVTX_SEMANTIC_ID_COUNTERS_V1 && !counter++ &&
            (strbuf_append(buf, ",\"counter\":", 11) || capture_json_counter_semantics(buf, h)))
            return 1;
    }
    return 0;
}

/* A nested schema or enum by its name, as docs/schemas.md allows, when it
 * has one that cannot be read as anything else; else by ID. */
static const char* item_name(const nvtxw_schema_registry_t* registry, uint64_t id) {
    const nvtxw_schema_t* schema = nvtxw_schema_registry_find_schema(registry, id);
    const nvtxw_enum_t* enumeration = nvtxw_schema_registry_find_enum(registry, id);
    const char* name = NULL;
    nvtxPayloadEnumAttr_t attr;
    uint64_t t;
    if (schema != NULL)
        name = nvtxw_schema_name(schema);
    else if (enumeration != NULL) {
        nvtxw_enum_get_attr(enumeration, &attr);
        name = attr.name;
    }
    if (name == NULL || name[0] == '\0')
        return NULL;
    for (t = 1; t < 256; t++) {
        const char* type = nvtxw_entry_type_name(t);
        if (type != NULL && strcasecmp(type, name) == 0)
            return NULL;
    }
    return name;
}

static int entry_json(strbuf* buf, const nvtxw_schema_registry_t* registry,
                      const nvtxPayloadSchemaEntry_t* e) {
    const char* item =
        e->type >= NVTX_PAYLOAD_SCHEMA_ID_STATIC_START ? item_name(registry, e->type) : NULL;
    const char* type =
        e->type < NVTX_PAYLOAD_SCHEMA_ID_STATIC_START ? nvtxw_entry_type_name(e->type) : NULL;
    char lower[32];
    size_t i;
    if (strbuf_append(buf, "{\"type\":", 8))
        return 1;
    if (item != NULL) {
        if (capture_json_string(buf, item, strlen(item)))
            return 1;
    } else if (type != NULL && strlen(type) < sizeof lower) {
        for (i = 0; type[i] != '\0'; i++)
            lower[i] = (char)(type[i] >= 'A' && type[i] <= 'Z' ? type[i] - 'A' + 'a' : type[i]);
        lower[i] = '\0';
        if (!strcmp(lower, "nvtx_registered_string_handle"))
            strcpy(lower, "registered_string");
        if (strbuf_printf(buf, "\"%s\"", lower))
            return 1;
    } else if (strbuf_printf(buf, "%" PRIu64, e->type))
        return 1;
    return (e->name != NULL && key_string(buf, "name", e->name)) ||
           (e->description != NULL && key_string(buf, "description", e->description)) ||
           (e->offset != 0 && key_u64(buf, "offset", e->offset)) ||
           (e->flags != 0 && strbuf_printf(buf, ",\"flags\":[%" PRIu64 "]", e->flags)) ||
           (e->arrayOrUnionDetail != 0 && key_u64(buf, "length", e->arrayOrUnionDetail)) ||
           entry_semantics(buf, e->semantics) || strbuf_append(buf, "}", 1);
}

int capture_json_schema(strbuf* buf, const nvtxw_schema_registry_t* registry,
                        const nvtxw_schema_t* schema) {
    nvtxPayloadSchemaAttr_t a;
    size_t i;
    uint64_t m;
    nvtxw_schema_get_attr(schema, &a);
    m = a.fieldMask;
    static const char* const kinds[] = {NULL, "static", "dynamic", "union",
                                        "union_with_internal_selector"};
    if ((a.type < 5 && kinds[a.type] != NULL ? strbuf_printf(buf, "{\"kind\":\"%s\"", kinds[a.type])
                                             : strbuf_printf(buf, "{\"kind\":%" PRIu64, a.type)) ||
        ((m & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NAME) && a.name && key_string(buf, "name", a.name)) ||
        ((m & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_SCHEMA_ID) &&
         a.schemaId < NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START && key_u64(buf, "id", a.schemaId)) ||
        ((m & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_FLAGS) &&
         strbuf_printf(buf, ",\"flags\":[%" PRIu64 "]", a.flags)) ||
        ((m & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_STATIC_SIZE) &&
         key_u64(buf, "size", a.payloadStaticSize)) ||
        ((m & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ALIGNMENT) && key_u64(buf, "align", a.packAlign)) ||
        strbuf_append(buf, ",\"entries\":[", 12))
        return 1;
    for (i = 0; i < a.numEntries; i++) {
        if ((i > 0 && strbuf_append(buf, ",", 1)) || entry_json(buf, registry, &a.entries[i]))
            return 1;
    }
    return strbuf_append(buf, "]}", 2);
}

int capture_json_enum(strbuf* buf, const nvtxw_enum_t* enumeration) {
    nvtxPayloadEnumAttr_t a;
    size_t i;
    nvtxw_enum_get_attr(enumeration, &a);
    if (strbuf_printf(buf, "{\"size\":%zu", a.sizeOfEnum) ||
        ((a.fieldMask & NVTX_PAYLOAD_ENUM_ATTR_FIELD_NAME) && a.name &&
         key_string(buf, "name", a.name)) ||
        ((a.fieldMask & NVTX_PAYLOAD_ENUM_ATTR_FIELD_SCHEMA_ID) &&
         a.schemaId < NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START && key_u64(buf, "id", a.schemaId)) ||
        strbuf_append(buf, ",\"values\":[", 11))
        return 1;
    for (i = 0; i < a.numEntries; i++) {
        const nvtxPayloadEnum_t* v = &a.entries[i];
        if ((i > 0 && strbuf_append(buf, ",", 1)) || strbuf_append(buf, "{\"name\":", 8) ||
            capture_json_string(buf, v->name ? v->name : "", v->name ? strlen(v->name) : 0) ||
            strbuf_printf(buf, ",\"value\":%" PRIu64 "%s}", v->value,
                          v->isFlag ? ",\"flag\":true" : ""))
            return 1;
    }
    return strbuf_append(buf, "]}", 2);
}

/* ---- which payloads can be written by field name ---- */

static int scalar_nameable(const nvtxw_schema_registry_t* reg, uint64_t t) {
    size_t size;
    if (t >= NVTX_PAYLOAD_SCHEMA_ID_STATIC_START)
        return nvtxw_schema_registry_find_enum(reg, t) != NULL;
    size = nvtxw_entry_type_size(t);
    return size >= 1 && size <= 8 && (size & (size - 1)) == 0 &&
           t != NVTX_PAYLOAD_ENTRY_TYPE_FLOAT16 && t != NVTX_PAYLOAD_ENTRY_TYPE_BF16 &&
           t != NVTX_PAYLOAD_ENTRY_TYPE_TF32 && t != NVTX_PAYLOAD_ENTRY_TYPE_LONGDOUBLE;
}

static int schema_nameable(const nvtxw_schema_registry_t* reg, uint64_t id, int depth);

/* Mirrors what tools/replay/capture/capture_payload.c can encode. */
static int entry_nameable(const nvtxw_schema_registry_t* reg, const nvtxPayloadSchemaEntry_t* e,
                          int depth) {
    uint64_t kind = (e->flags >> 4) & 7, d = e->arrayOrUnionDetail;
    int pointer = (e->flags & NVTX_PAYLOAD_ENTRY_FLAG_POINTER) != 0;
    if (e->name == NULL || e->name[0] == '\0' ||
        (e->flags &
         (NVTX_PAYLOAD_ENTRY_FLAG_OFFSET_FROM_BASE | NVTX_PAYLOAD_ENTRY_FLAG_OFFSET_FROM_HERE)))
        return 0;
    if (e->type == NVTX_PAYLOAD_ENTRY_TYPE_CSTRING ||
        e->type == NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF8)
        return pointer ? kind == 0 && d == 0 : ((kind <= 1 && d > 0) || (kind == 2 && d == 0));
    if (pointer || e->type == NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF16 ||
        e->type == NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF32)
        return 0;
    if (e->type == NVTX_PAYLOAD_ENTRY_TYPE_BYTE)
        return kind == 1 || kind == 3;
    if (kind != 0)
        return kind <= 3 && scalar_nameable(reg, e->type);
    if (e->type >= NVTX_PAYLOAD_SCHEMA_ID_STATIC_START &&
        nvtxw_schema_registry_find_schema(reg, e->type) != NULL)
        return !nvtxw_schema_is_variable_size(nvtxw_schema_registry_find_schema(reg, e->type)) &&
               schema_nameable(reg, e->type, depth + 1);
    return scalar_nameable(reg, e->type);
}

static int schema_nameable(const nvtxw_schema_registry_t* reg, uint64_t id, int depth) {
    const nvtxw_schema_t* s = nvtxw_schema_registry_find_schema(reg, id);
    nvtxPayloadSchemaAttr_t a;
    size_t i, j;
    if (s == NULL || depth > 8)
        return 0;
    nvtxw_schema_get_attr(s, &a);
    if (a.type != NVTX_PAYLOAD_SCHEMA_TYPE_STATIC && a.type != NVTX_PAYLOAD_SCHEMA_TYPE_DYNAMIC)
        return 0;
    for (i = 0; i < a.numEntries; i++) {
        if (!entry_nameable(reg, &a.entries[i], depth))
            return 0;
        for (j = 0; j < i; j++) {
            if (!strcmp(a.entries[i].name, a.entries[j].name))
                return 0;
        }
    }
    return 1;
}

/* Hex is exact unless the payload holds pointers (addresses of this run). */
static int has_pointers(const nvtxw_schema_registry_t* reg, uint64_t id, int depth) {
    const nvtxw_schema_t* s = nvtxw_schema_registry_find_schema(reg, id);
    nvtxPayloadSchemaAttr_t a;
    size_t i;
    if (s == NULL || depth > 32)
        return 0;
    nvtxw_schema_get_attr(s, &a);
    for (i = 0; i < a.numEntries; i++) {
        if ((a.entries[i].flags & NVTX_PAYLOAD_ENTRY_FLAG_POINTER) ||
            has_pointers(reg, a.entries[i].type, depth + 1))
            return 1;
    }
    return 0;
}

int capture_schema_form(const nvtxw_schema_registry_t* registry, uint64_t schema_id) {
    if (schema_nameable(registry, schema_id, 0))
        return CAPTURE_FORM_NAMES;
    return has_pointers(registry, schema_id, 0) ? CAPTURE_FORM_NONE : CAPTURE_FORM_HEX;
}
