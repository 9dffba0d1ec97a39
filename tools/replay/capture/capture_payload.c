/*
 * tools/replay/capture/capture_payload.c - payload fields given by name -> the
 * schema's binary layout (docs/capture-format.md, "Payloads").
 *
 *   payload := {schema: REF, FIELD: VALUE, ...}   fields by entry name
 *            | {schema: REF, hex: "00ff.."}        the bytes as they are
 *            | {schema: TYPE, value: V | [V, ...]} a predefined type
 * Layout comes from the mirror registry (the same schemas as the session):
 * in schemas of fixed layout the fields may come in any order; in schemas
 * with variable-size parts they come in entry order (skipped entries are
 * zero or empty), each placed after the previous one at its alignment.
 * C strings behind a POINTER entry are appended to the payload and pointed
 * to there, which is where the NVTXW validators look for them.
 * What cannot be given by name (unions, pointers to other data, UTF-16/32
 * strings, 128-bit and half floats) is given as hex.
 */
#define _POSIX_C_SOURCE 200809L
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "capture_reader.h"
#include "tool_alloc.h"

#define ARRAY_KIND(flags) (((flags) >> 4) & 7)
enum { ARR_NONE = 0, ARR_FIXED = 1, ARR_ZT = 2, ARR_INDEX = 3 };

typedef struct patch {
    size_t at, target;
} patch;

typedef struct encoder {
    capture_reader* r;
    capture_domain* d;
    unsigned char* buf;
    size_t size, capacity;
    patch* patches; /* pointer fields -> their text in `tail` */
    size_t patch_count, patch_capacity;
    unsigned char* tail; /* pointed-to strings, placed after the object */
    size_t tail_size, tail_capacity;
    capture_payloads* out; /* the event's payloads ("pointers" go there); NULL for samples */
} encoder;

static int reserve(encoder* e, size_t end) {
    if (end > CAPTURE_MAX_PAYLOAD)
        return CAPTURE_FAIL(e->r, "payload larger than 64 MiB");
    if (end > e->capacity) {
        size_t want = e->capacity ? e->capacity * 2 : 64;
        unsigned char* grown;
        while (want < end)
            want *= 2;
        if ((grown = nvtxw_realloc(e->buf, want)) == NULL)
            return CAPTURE_FAIL(e->r, "out of memory");
        memset(grown + e->capacity, 0, want - e->capacity);
        e->buf = grown;
        e->capacity = want;
    }
    if (end > e->size)
        e->size = end;
    return 0;
}

static size_t align_up(size_t v, size_t a) { return a > 1 ? (v + a - 1) / a * a : v; }

int capture_resolve_schema(capture_reader* r, capture_domain* d, const char* name, uint64_t number,
                           yaml_mark_t mark, uint64_t* out) {
    void* found;
    uint64_t t;
    if (name == NULL) {
        if (number >= NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START &&
            capture_idmap_get(&d->schema_ids, number, out) == 0)
            return 0;
        *out = number;
        return 0;
    }
    if ((found = capture_names_get(&d->schema_names, name)) != NULL) {
        *out = (uint64_t)(uintptr_t)found;
        return 0;
    }
    for (t = 1; t < 128; t++) {
        const char* type = nvtxw_entry_type_name(t);
        if (type != NULL && strcasecmp(type, name) == 0) {
            *out = t;
            return 0;
        }
    }
    return capture_error(r, mark, "unknown schema \"%s\" in domain \"%s\"", name, d->name);
}

/* ---- scalars ---- */

static int is_null(const capture_reader* r) {
    const char* s = (const char*)r->event.data.scalar.value;
    return capture_is_plain(r) && (!strcmp(s, "null") || !strcmp(s, "~") || s[0] == '\0');
}

static int enum_value(encoder* e, uint64_t type, const char* what, uint64_t* v, size_t* size) {
    const nvtxw_enum_t* en = nvtxw_schema_registry_find_enum(e->d->mirror, type);
    nvtxPayloadEnumAttr_t attr;
    size_t i;
    nvtxw_enum_get_attr(en, &attr);
    *size = attr.sizeOfEnum;
    if (capture_is_plain(e->r) && e->r->event.data.scalar.value[0] >= '0' &&
        e->r->event.data.scalar.value[0] <= '9')
        return capture_u64(e->r, what, v);
    if (capture_expect_scalar(e->r, what) != 0)
        return -1;
    for (i = 0; i < attr.numEntries; i++) {
        if (attr.entries[i].name &&
            !strcmp(attr.entries[i].name, (const char*)e->r->event.data.scalar.value)) {
            *v = attr.entries[i].value;
            return 0;
        }
    }
    return CAPTURE_FAIL(e->r, "%s: \"%.60s\" is not a value of enum \"%s\"", what,
                        (const char*)e->r->event.data.scalar.value, attr.name ? attr.name : "");
}

/* Registered string: a capture handle, or the text of a registered string. */
static int string_handle(encoder* e, const char* what, uint64_t* v) {
    capture_reader* r = e->r;
    void* handle;
    if (capture_is_plain(r) && r->event.data.scalar.value[0] >= '0' &&
        r->event.data.scalar.value[0] <= '9') {
        uint64_t h;
        if (capture_u64(r, what, &h) != 0)
            return -1;
        if (h == 0) {
            *v = 0;
            return 0;
        }
        if (capture_idmap_get(&e->d->strings, h, v) != 0)
            return CAPTURE_FAIL(r, "%s: unknown string handle %" PRIu64, what, h);
        return 0;
    }
    if (capture_expect_scalar(r, what) != 0)
        return -1;
    handle = capture_names_get(&e->d->string_texts, (const char*)r->event.data.scalar.value);
    if (handle == NULL)
        return CAPTURE_FAIL(r, "%s: \"%.60s\" is not a registered string of domain \"%s\"", what,
                            (const char*)r->event.data.scalar.value, e->d->name);
    *v = (uint64_t)(uintptr_t)handle;
    return 0;
}

static int is_signed_type(uint64_t t) {
    return t == NVTX_PAYLOAD_ENTRY_TYPE_CHAR || t == NVTX_PAYLOAD_ENTRY_TYPE_SHORT ||
           t == NVTX_PAYLOAD_ENTRY_TYPE_INT || t == NVTX_PAYLOAD_ENTRY_TYPE_LONG ||
           t == NVTX_PAYLOAD_ENTRY_TYPE_LONGLONG || t == NVTX_PAYLOAD_ENTRY_TYPE_INT8 ||
           t == NVTX_PAYLOAD_ENTRY_TYPE_INT16 || t == NVTX_PAYLOAD_ENTRY_TYPE_INT32 ||
           t == NVTX_PAYLOAD_ENTRY_TYPE_INT64 || t == NVTX_PAYLOAD_ENTRY_TYPE_WCHAR;
}

static int is_float_type(uint64_t t) {
    return t == NVTX_PAYLOAD_ENTRY_TYPE_FLOAT || t == NVTX_PAYLOAD_ENTRY_TYPE_DOUBLE ||
           t == NVTX_PAYLOAD_ENTRY_TYPE_FLOAT32 || t == NVTX_PAYLOAD_ENTRY_TYPE_FLOAT64;
}

static void store_uint(unsigned char* at, uint64_t v, size_t size) {
    uint8_t u8 = (uint8_t)v;
    uint16_t u16 = (uint16_t)v;
    uint32_t u32 = (uint32_t)v;
    memcpy(at,
           size == 1   ? (void*)&u8
           : size == 2 ? (void*)&u16
           : size == 4 ? (void*)&u32
                       : &v,
           size);
}

/* Encodes one scalar of element type `t` at e->buf + at. */
static int encode_scalar(encoder* e, uint64_t t, size_t at, const char* what) {
    capture_reader* r = e->r;
    size_t size = nvtxw_entry_type_size(t);
    uint64_t v = 0;
    if (t >= NVTX_PAYLOAD_SCHEMA_ID_STATIC_START) {
        if (nvtxw_schema_registry_find_enum(e->d->mirror, t) == NULL)
            return CAPTURE_FAIL(r, "%s: nested schema value must be a mapping", what);
        if (enum_value(e, t, what, &v, &size) != 0 || reserve(e, at + size) != 0)
            return -1;
        store_uint(e->buf + at, v, size);
        return 0;
    }
    if (reserve(e, at + size) != 0)
        return -1;
    if (is_float_type(t)) {
        double d;
        if (capture_double(r, what, &d) != 0)
            return -1;
        if (size == 4) {
            float f = (float)d;
            memcpy(e->buf + at, &f, 4);
        } else
            memcpy(e->buf + at, &d, 8);
        return 0;
    }
    if (t == NVTX_PAYLOAD_ENTRY_TYPE_NVTX_REGISTERED_STRING_HANDLE) {
        if (string_handle(e, what, &v) != 0)
            return -1;
    } else if (t == NVTX_PAYLOAD_ENTRY_TYPE_SCOPE_ID) {
        if (capture_u64(r, what, &v) != 0)
            return -1;
        if (v >= NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START && capture_idmap_get(&e->d->scopes, v, &v))
            return CAPTURE_FAIL(r, "%s: unknown scope %s", what,
                                (const char*)r->event.data.scalar.value);
    } else if (is_signed_type(t)) {
        int64_t i;
        if (capture_i64(r, what, &i) != 0)
            return -1;
        if (size < 8 &&
            (i < -((int64_t)1 << (size * 8 - 1)) || i >= ((int64_t)1 << (size * 8 - 1))))
            return CAPTURE_FAIL(r, "%s: value %" PRId64 " out of range (%zu bytes)", what, i, size);
        v = (uint64_t)i;
    } else if (size >= 1 && size <= 8 && (size & (size - 1)) == 0 &&
               t != NVTX_PAYLOAD_ENTRY_TYPE_FLOAT16 && t != NVTX_PAYLOAD_ENTRY_TYPE_BF16 &&
               t != NVTX_PAYLOAD_ENTRY_TYPE_TF32) {
        if (capture_u64(r, what, &v) != 0)
            return -1;
        if (size < 8 && v >> (size * 8) != 0)
            return CAPTURE_FAIL(r, "%s: value %" PRIu64 " out of range (%zu bytes)", what, v, size);
    } else {
        const char* name = nvtxw_entry_type_name(t);
        return CAPTURE_FAIL(r, "%s: type %s cannot be given by name (give the payload as hex)",
                            what, name ? name : "?");
    }
    store_uint(e->buf + at, v, size);
    return 0;
}

/* ---- strings ---- */

static int is_string_type(uint64_t t) {
    return t >= NVTX_PAYLOAD_ENTRY_TYPE_CSTRING && t <= NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF32;
}

/* A string field; *cursor advances past embedded variable strings. */
static int encode_string(encoder* e, const nvtxPayloadSchemaEntry_t* entry, size_t at,
                         size_t* cursor, const char* what) {
    const char* text;
    size_t length, kind = ARRAY_KIND(entry->flags);
    if (entry->type == NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF16 ||
        entry->type == NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF32)
        return CAPTURE_FAIL(e->r, "%s: UTF-16/32 strings cannot be given by name (use hex)", what);
    if (entry->flags & NVTX_PAYLOAD_ENTRY_FLAG_POINTER) {
        if (kind != ARR_NONE || entry->arrayOrUnionDetail != 0)
            return CAPTURE_FAIL(e->r, "%s: this pointer form cannot be given by name", what);
        if (reserve(e, at + sizeof(void*)) != 0)
            return -1;
        if (is_null(e->r))
            return 0;
        if (capture_text(e->r, what, &text) != 0)
            return -1;
        if (e->patch_count == e->patch_capacity) {
            size_t want = e->patch_capacity ? e->patch_capacity * 2 : 8;
            patch* grown = nvtxw_realloc(e->patches, want * sizeof *grown);
            if (grown == NULL)
                return CAPTURE_FAIL(e->r, "out of memory");
            e->patches = grown;
            e->patch_capacity = want;
        }
        /* The text goes after the object, where the end fixes its address. */
        length = strlen(text) + 1;
        if (e->tail_size + length > e->tail_capacity) {
            size_t want = e->tail_capacity ? e->tail_capacity * 2 : 64;
            unsigned char* grown;
            while (want < e->tail_size + length)
                want *= 2;
            if (want > CAPTURE_MAX_PAYLOAD || (grown = nvtxw_realloc(e->tail, want)) == NULL)
                return CAPTURE_FAIL(e->r, "payload larger than 64 MiB");
            e->tail = grown;
            e->tail_capacity = want;
        }
        memcpy(e->tail + e->tail_size, text, length);
        e->patches[e->patch_count].at = at;
        e->patches[e->patch_count++].target = e->tail_size;
        e->tail_size += length;
        return 0;
    }
    if (capture_text(e->r, what, &text) != 0)
        return -1;
    length = strlen(text);
    if ((kind == ARR_NONE || kind == ARR_FIXED) && entry->arrayOrUnionDetail > 0) {
        if (length > entry->arrayOrUnionDetail)
            return CAPTURE_FAIL(e->r, "%s: %zu bytes do not fit the field's %" PRIu64, what, length,
                                entry->arrayOrUnionDetail);
        if (reserve(e, at + entry->arrayOrUnionDetail) != 0)
            return -1;
        memcpy(e->buf + at, text, length);
        return 0;
    }
    if (kind == ARR_ZT && entry->arrayOrUnionDetail == 0) {
        if (reserve(e, at + length + 1) != 0)
            return -1;
        memcpy(e->buf + at, text, length);
        *cursor = at + length + 1;
        return 0;
    }
    return CAPTURE_FAIL(e->r, "%s: this string form cannot be given by name (use hex)", what);
}

/* ---- objects ---- */

static int encode_fields(encoder* e, uint64_t schema_id, size_t base, size_t* end);

static int encode_array(encoder* e, const nvtxPayloadSchemaEntry_t* entry, size_t at,
                        size_t* cursor, const char* what) {
    size_t kind = ARRAY_KIND(entry->flags), n = 0;
    size_t size = nvtxw_entry_type_size(entry->type);
    if (entry->type == NVTX_PAYLOAD_ENTRY_TYPE_BYTE) {
        unsigned char* bytes = NULL;
        size_t count;
        if (capture_hex(e->r, what, &bytes, &count) != 0)
            return -1;
        if ((kind == ARR_FIXED && count != entry->arrayOrUnionDetail) ||
            reserve(e, at + count) != 0) {
            nvtxw_free(bytes);
            return kind == ARR_FIXED ? CAPTURE_FAIL(e->r, "%s: expected %" PRIu64 " bytes", what,
                                                    entry->arrayOrUnionDetail)
                                     : -1;
        }
        memcpy(e->buf + at, bytes, count);
        nvtxw_free(bytes);
        *cursor = at + count;
        return 0;
    }
    if (e->r->event.type != YAML_SEQUENCE_START_EVENT)
        return CAPTURE_FAIL(e->r, "wrong type for %s: expected a list", what);
    if (entry->type >= NVTX_PAYLOAD_SCHEMA_ID_STATIC_START &&
        nvtxw_schema_registry_find_enum(e->d->mirror, entry->type) != NULL) {
        nvtxPayloadEnumAttr_t attr;
        nvtxw_enum_get_attr(nvtxw_schema_registry_find_enum(e->d->mirror, entry->type), &attr);
        size = attr.sizeOfEnum;
    } else if (entry->type >= NVTX_PAYLOAD_SCHEMA_ID_STATIC_START || size == 0)
        return CAPTURE_FAIL(e->r, "%s: arrays of this type cannot be given by name (use hex)",
                            what);
    if (capture_next(e->r) != 0)
        return -1;
    for (; e->r->event.type != YAML_SEQUENCE_END_EVENT; n++) {
        if (encode_scalar(e, entry->type, at + n * size, what) != 0 || capture_next(e->r) != 0)
            return -1;
    }
    if (kind == ARR_FIXED && n != entry->arrayOrUnionDetail)
        return CAPTURE_FAIL(e->r, "%s: expected %" PRIu64 " elements, found %zu", what,
                            entry->arrayOrUnionDetail, n);
    if (kind == ARR_ZT && reserve(e, at + (n + 1) * size) != 0)
        return -1;
    *cursor = at + (n + (kind == ARR_ZT)) * size;
    return 0;
}

static int encode_entry(encoder* e, const nvtxPayloadSchemaEntry_t* entry, size_t at,
                        size_t* cursor, const char* what) {
    size_t kind = ARRAY_KIND(entry->flags);
    if (entry->flags &
        (NVTX_PAYLOAD_ENTRY_FLAG_OFFSET_FROM_BASE | NVTX_PAYLOAD_ENTRY_FLAG_OFFSET_FROM_HERE))
        return CAPTURE_FAIL(e->r, "%s: offset entries cannot be given by name (use hex)", what);
    if (is_string_type(entry->type))
        return encode_string(e, entry, at, cursor, what);
    if (entry->flags & NVTX_PAYLOAD_ENTRY_FLAG_POINTER)
        return CAPTURE_FAIL(e->r, "%s: pointer entries cannot be given by name (use hex)", what);
    if (kind != ARR_NONE)
        return encode_array(e, entry, at, cursor, what);
    if (entry->type >= NVTX_PAYLOAD_SCHEMA_ID_STATIC_START &&
        nvtxw_schema_registry_find_schema(e->d->mirror, entry->type) != NULL) {
        if (e->r->event.type != YAML_MAPPING_START_EVENT)
            return CAPTURE_FAIL(e->r, "wrong type for %s: expected a mapping", what);
        return capture_next(e->r) != 0 ? -1 : encode_fields(e, entry->type, at, cursor);
    }
    return encode_scalar(e, entry->type, at, what);
}

static size_t entry_align(encoder* e, const nvtxPayloadSchemaEntry_t* entry, size_t pack) {
    size_t a = 1;
    if (entry->type >= NVTX_PAYLOAD_SCHEMA_ID_STATIC_START) {
        const nvtxw_schema_t* s = nvtxw_schema_registry_find_schema(e->d->mirror, entry->type);
        const nvtxw_enum_t* en = nvtxw_schema_registry_find_enum(e->d->mirror, entry->type);
        nvtxPayloadEnumAttr_t attr;
        if (s != NULL)
            a = nvtxw_schema_alignment(s);
        else if (en != NULL)
            nvtxw_enum_get_attr(en, &attr), a = attr.sizeOfEnum;
    } else if (entry->flags & NVTX_PAYLOAD_ENTRY_FLAG_POINTER)
        a = sizeof(void*);
    else
        a = nvtxw_entry_type_align(entry->type);
    if (a == 0)
        a = 1;
    return pack > 0 && pack < a ? pack : a;
}

/* Index of the entry named `key`, or -1. */
static long find_entry(const nvtxPayloadSchemaAttr_t* attr, const char* key) {
    size_t i;
    for (i = 0; i < attr->numEntries; i++) {
        if (attr->entries[i].name != NULL && strcmp(attr->entries[i].name, key) == 0)
            return (long)i;
    }
    return -1;
}

/* Offset of entry k: resolved by the registry, else after the cursor. */
static size_t entry_at(encoder* e, const nvtxw_schema_t* s, const nvtxPayloadSchemaAttr_t* attr,
                       size_t k, size_t base, size_t cursor) {
    size_t offset = nvtxw_schema_entry_offset(s, k);
    if (offset != SIZE_MAX)
        return base + offset;
    return align_up(cursor, entry_align(e, &attr->entries[k], attr->packAlign));
}

/* One field: the current event is its key. `seen` marks given entries. */
static int encode_field(encoder* e, const nvtxw_schema_t* s, const nvtxPayloadSchemaAttr_t* attr,
                        int in_order, unsigned char* seen, long* last, size_t base,
                        size_t* cursor) {
    const char* key;
    long k;
    size_t at, after;
    if (capture_text(e->r, "a field name", &key) != 0)
        return -1;
    if ((k = find_entry(attr, key)) < 0)
        return CAPTURE_FAIL(e->r, "unknown field \"%.60s\" in schema \"%s\"", key,
                            nvtxw_schema_name(s));
    if (seen[k])
        return CAPTURE_FAIL(e->r, "duplicate field \"%s\"", key);
    if (k != *last + 1 && in_order)
        return CAPTURE_FAIL(e->r,
                            "field \"%s\" out of order (schema \"%s\" has variable-size "
                            "parts: every field, in entry order)",
                            key, nvtxw_schema_name(s));
    seen[k] = 1;
    *last = k;
    at = entry_at(e, s, attr, (size_t)k, base, *cursor);
    after = at + nvtxw_entry_type_size(attr->entries[k].type);
    /* `key` dies with the next event; the entry's name stays. */
    if (capture_next(e->r) != 0 ||
        encode_entry(e, &attr->entries[k], at, &after, attr->entries[k].name) != 0 ||
        capture_next(e->r) != 0)
        return -1;
    if (in_order)
        *cursor = after;
    return 0;
}

/* The fields of one object of `schema_id` at `base`; the current event is
 * the first key (or MAPPING_END); returns at the MAPPING_END. Fixed-layout
 * schemas take their fields in any order (absent ones stay 0), schemas
 * with variable-size parts every field in entry order. */
static int encode_fields(encoder* e, uint64_t schema_id, size_t base, size_t* end) {
    const nvtxw_schema_t* s = nvtxw_schema_registry_find_schema(e->d->mirror, schema_id);
    nvtxPayloadSchemaAttr_t attr;
    unsigned char* seen;
    int in_order, status = 0;
    long last = -1;
    size_t cursor;
    nvtxw_schema_get_attr(s, &attr);
    if (attr.type != NVTX_PAYLOAD_SCHEMA_TYPE_STATIC &&
        attr.type != NVTX_PAYLOAD_SCHEMA_TYPE_DYNAMIC)
        return CAPTURE_FAIL(e->r, "schema \"%s\": unions cannot be given by name (use hex)",
                            nvtxw_schema_name(s));
    in_order = nvtxw_schema_is_variable_size(s);
    cursor = in_order ? base : base + nvtxw_schema_static_size(s);
    if (reserve(e, base + nvtxw_schema_static_size(s)) != 0)
        return -1;
    if ((seen = nvtxw_calloc(attr.numEntries + 1, 1)) == NULL)
        return CAPTURE_FAIL(e->r, "out of memory");
    while (status == 0 && e->r->event.type != YAML_MAPPING_END_EVENT)
        status = encode_field(e, s, &attr, in_order, seen, &last, base, &cursor);
    nvtxw_free(seen);
    if (status != 0)
        return -1;
    if (in_order && last + 1 != (long)attr.numEntries)
        return CAPTURE_FAIL(e->r,
                            "missing field \"%s\" of schema \"%s\" (variable-size schemas "
                            "need every field)",
                            attr.entries[last + 1].name ? attr.entries[last + 1].name : "",
                            nvtxw_schema_name(s));
    *end = in_order ? cursor : base + nvtxw_schema_static_size(s);
    return 0;
}

/* ---- payloads ---- */

static void encoder_free(encoder* e) {
    nvtxw_free(e->buf);
    nvtxw_free(e->patches);
    nvtxw_free(e->tail);
}

/* The value of a predefined-type payload: a scalar, a list, or a string. */
static int encode_value(encoder* e, uint64_t type) {
    if (is_string_type(type)) {
        const char* text;
        if (type != NVTX_PAYLOAD_ENTRY_TYPE_CSTRING && type != NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF8)
            return CAPTURE_FAIL(e->r, "UTF-16/32 payloads cannot be given by value (use hex)");
        size_t length;
        if (capture_text(e->r, "value", &text) != 0 || reserve(e, length = strlen(text)) != 0)
            return -1;
        if (length > 0) /* an empty value is an empty payload, and no buffer */
            memcpy(e->buf, text, length);
        return 0;
    }
    if (nvtxw_entry_type_size(type) == 0)
        return CAPTURE_FAIL(e->r, "type %" PRIu64 " cannot be given by value (use hex)", type);
    if (e->r->event.type == YAML_SEQUENCE_START_EVENT) {
        size_t n = 0, size = nvtxw_entry_type_size(type);
        if (capture_next(e->r) != 0)
            return -1;
        for (; e->r->event.type != YAML_SEQUENCE_END_EVENT; n++) {
            if (encode_scalar(e, type, n * size, "value") != 0 || capture_next(e->r) != 0)
                return -1;
        }
        return 0;
    }
    return encode_scalar(e, type, 0, "value");
}

/* One [AT, PAYLOAD, OFFSET] item at the current event (its SEQUENCE_START). */
static int read_pointer(encoder* e, capture_reloc* out) {
    capture_reader* r = e->r;
    uint64_t at;
    out->mark = r->event.start_mark;
    if (r->event.type != YAML_SEQUENCE_START_EVENT)
        return CAPTURE_FAIL(r, "wrong type for a pointer: expected [AT, PAYLOAD, OFFSET]");
    if (capture_next(r) || capture_u64(r, "pointer slot", &at) || capture_next(r) ||
        capture_u64(r, "pointer payload", &out->target) || capture_next(r) ||
        capture_u64(r, "pointer offset", &out->offset) || capture_next(r))
        return -1;
    if (r->event.type != YAML_SEQUENCE_END_EVENT)
        return CAPTURE_FAIL(r, "a pointer is [AT, PAYLOAD, OFFSET]: three numbers");
    if (at > e->size || e->size - at < sizeof(void*))
        return capture_error(r, out->mark,
                             "pointer slot at byte %" PRIu64 " does not fit a payload of %zu bytes",
                             at, e->size);
    out->at = (size_t)at;
    out->payload = e->out->count;
    return 0;
}

/* "pointers": [[AT, PAYLOAD, OFFSET], ...] after "hex". At most one item
 * per byte of the payload, so the list is bounded by the payload. */
static int read_pointers(encoder* e) {
    capture_payloads* p = e->out;
    size_t n = 0;
    if (e->r->event.type != YAML_SEQUENCE_START_EVENT)
        return CAPTURE_FAIL(e->r, "wrong type for pointers: expected a list of [AT, PAYLOAD, "
                                  "OFFSET]");
    if (capture_next(e->r) != 0)
        return -1;
    for (; e->r->event.type != YAML_SEQUENCE_END_EVENT; n++) {
        if (n >= e->size)
            return CAPTURE_FAIL(e->r, "more pointers than the payload's %zu bytes", e->size);
        if (p->reloc_count == p->reloc_capacity) {
            size_t want = p->reloc_capacity ? p->reloc_capacity * 2 : 4;
            capture_reloc* grown = nvtxw_realloc(p->relocs, want * sizeof *grown);
            if (grown == NULL)
                return CAPTURE_FAIL(e->r, "out of memory");
            p->relocs = grown;
            p->reloc_capacity = want;
        }
        if (read_pointer(e, &p->relocs[p->reloc_count]) != 0 || capture_next(e->r) != 0)
            return -1;
        p->reloc_count++;
    }
    return 0;
}

/* "hex" (optionally followed by "pointers") or "value" (predefined types
 * only) as the payload's only keys. */
static int encode_single(encoder* e, uint64_t type, int schema) {
    const char* key;
    int status;
    if (e->r->event.type == YAML_MAPPING_END_EVENT)
        return CAPTURE_FAIL(e->r, "a payload of a predefined type needs \"value\" or \"hex\"");
    if (capture_text(e->r, "a payload key", &key) != 0)
        return -1;
    if (!strcmp(key, "hex")) {
        nvtxw_free(e->buf);
        e->buf = NULL;
        status = capture_next(e->r) || capture_hex(e->r, "hex", &e->buf, &e->size);
        e->capacity = e->size; /* capture_hex allocated exactly this much */
        if (status == 0 && (status = capture_next(e->r)) == 0 && e->out != NULL &&
            e->r->event.type == YAML_SCALAR_EVENT &&
            !strcmp((const char*)e->r->event.data.scalar.value, "pointers"))
            status = capture_next(e->r) || read_pointers(e) || capture_next(e->r);
        if (status != 0)
            return -1;
    } else if (!strcmp(key, "value") && !schema) {
        if (capture_next(e->r) || encode_value(e, type) || capture_next(e->r))
            return -1;
    } else
        return CAPTURE_FAIL(e->r, "unknown key \"%.60s\" in a payload of a predefined type", key);
    if (e->r->event.type != YAML_MAPPING_END_EVENT)
        return CAPTURE_FAIL(e->r, "a %s payload has nothing else", schema ? "hex" : "value");
    return 0;
}

/* Schema reference at the current event -> mirror ID. */
static int payload_schema(capture_reader* r, capture_domain* d, uint64_t* schema) {
    const char* key;
    if (capture_next(r) != 0 || capture_text(r, "a payload key", &key) != 0)
        return -1;
    if (strcmp(key, "schema") != 0)
        return CAPTURE_FAIL(r, "a payload starts with \"schema\"");
    if (capture_next(r) != 0 || capture_expect_scalar(r, "schema") != 0)
        return -1;
    if (capture_is_plain(r) && r->event.data.scalar.value[0] >= '0' &&
        r->event.data.scalar.value[0] <= '9')
        return capture_u64(r, "schema", schema) ||
               capture_resolve_schema(r, d, NULL, *schema, r->event.start_mark, schema);
    return capture_resolve_schema(r, d, (const char*)r->event.data.scalar.value, 0,
                                  r->event.start_mark, schema);
}

/* Object + pointed-to strings -> one buffer; pointers fixed up. */
static unsigned char* finish(encoder* e, size_t end, size_t* size) {
    unsigned char* out;
    size_t i;
    if (reserve(e, end + e->tail_size + 1) != 0)
        return NULL;
    out = e->buf;
    if (e->tail_size > 0)
        memcpy(out + end, e->tail, e->tail_size);
    for (i = 0; i < e->patch_count; i++) {
        const void* address = out + end + e->patches[i].target;
        memcpy(out + e->patches[i].at, &address, sizeof address);
    }
    *size = end + e->tail_size;
    e->buf = NULL;
    return out;
}

static int append_payload(capture_reader* r, capture_payloads* out, uint64_t schema_id,
                          unsigned char* data, size_t size) {
    if (out->count == out->capacity) {
        size_t want = out->capacity ? out->capacity * 2 : 4;
        nvtxPayloadData_t* items = nvtxw_realloc(out->items, want * sizeof *items);
        unsigned char** buffers;
        if (items != NULL)
            out->items = items;
        buffers = items ? nvtxw_realloc(out->buffers, want * sizeof *buffers) : NULL;
        if (buffers == NULL) {
            nvtxw_free(data);
            return CAPTURE_FAIL(r, "out of memory");
        }
        out->buffers = buffers;
        out->capacity = want;
    }
    out->items[out->count].schemaId = schema_id;
    out->items[out->count].size = size;
    out->items[out->count].payload = data;
    out->buffers[out->count++] = data;
    return 0;
}

static uint64_t target_of(const capture_domain* d, uint64_t mirror) {
    uint64_t target = mirror;
    if (mirror >= NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START)
        capture_idmap_get(&d->mirror_to_target, mirror, &target);
    return target;
}

int capture_payload(capture_reader* r, capture_domain* d, capture_payloads* out) {
    encoder e;
    uint64_t schema = 0;
    size_t end = 0, size = 0;
    unsigned char* data;
    int status, registered;
    memset(&e, 0, sizeof e);
    e.r = r;
    e.d = d;
    e.out = out;
    if (payload_schema(r, d, &schema) != 0 || capture_next(r) != 0)
        return -1;
    registered = schema >= NVTX_PAYLOAD_SCHEMA_ID_STATIC_START &&
                 nvtxw_schema_registry_find_schema(d->mirror, schema) != NULL;
    if (schema >= NVTX_PAYLOAD_SCHEMA_ID_STATIC_START && !registered &&
        schema != NVTX_TYPE_PAYLOAD_SCHEMA_RAW)
        return CAPTURE_FAIL(r, "unknown schema %" PRIu64, schema);
    if (!registered || (r->event.type == YAML_SCALAR_EVENT &&
                        !strcmp((const char*)r->event.data.scalar.value, "hex"))) {
        status = encode_single(&e, schema, registered || schema == NVTX_TYPE_PAYLOAD_SCHEMA_RAW);
        end = e.size;
    } else
        status = encode_fields(&e, schema, 0, &end);
    data = status == 0 ? finish(&e, end, &size) : NULL;
    encoder_free(&e);
    if (data == NULL)
        return -1;
    return append_payload(r, out, target_of(d, schema), data, size);
}

int capture_sample(capture_reader* r, capture_domain* d, uint64_t type, size_t size,
                   unsigned char** out) {
    encoder e;
    size_t end = 0, length = 0;
    int status;
    memset(&e, 0, sizeof e);
    e.r = r;
    e.d = d;
    if (type < NVTX_PAYLOAD_SCHEMA_ID_STATIC_START)
        status = encode_value(&e, type);
    else if (nvtxw_schema_registry_find_schema(d->mirror, type) == NULL)
        status = CAPTURE_FAIL(r, "the counter's type %" PRIu64 " is no schema: give \"hex\"", type);
    else if (r->event.type != YAML_MAPPING_START_EVENT)
        status = CAPTURE_FAIL(r, "wrong type for value: the counter's schema needs a mapping");
    else
        status = capture_next(r) || encode_fields(&e, type, 0, &end);
    if (status == 0 && reserve(&e, size) != 0)
        status = -1;
    if (status == 0 && e.size != size)
        status = CAPTURE_FAIL(r, "a sample of this counter has %zu bytes, not %zu", size, e.size);
    *out = status == 0 ? finish(&e, size, &length) : NULL;
    encoder_free(&e);
    return *out ? 0 : -1;
}

int capture_payloads_relocate(capture_reader* r, capture_payloads* p) {
    size_t i;
    for (i = 0; i < p->reloc_count; i++) {
        const capture_reloc* c = &p->relocs[i];
        const void* address;
        if (c->target >= p->count)
            return capture_error(r, c->mark, "pointer into payload %" PRIu64 ": the event has %zu",
                                 c->target, p->count);
        if (c->offset >= p->items[c->target].size)
            return capture_error(r, c->mark,
                                 "pointer to byte %" PRIu64 " of payload %" PRIu64
                                 ", which has %zu bytes",
                                 c->offset, c->target, p->items[c->target].size);
        address = p->buffers[c->target] + c->offset;
        memcpy(p->buffers[c->payload] + c->at, &address, sizeof address);
    }
    return 0;
}

void capture_payloads_clear(capture_payloads* p) {
    size_t i;
    for (i = 0; i < p->count; i++)
        nvtxw_free(p->buffers[i]);
    p->count = 0;
    p->reloc_count = 0;
}
