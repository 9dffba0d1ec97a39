/*
 * tools/replay/synthetic/synthetic_nested_payload.c - the `nested` generator's
 * payload sample: one mark event whose payloads use every entry type and
 * every entry form of the ABI (spec 3.2-3.4).
 *
 * The event carries four payloads:
 *   0  synthetic_everything (static, mark role): every predefined scalar
 *      type, fixed strings of each encoding, a pointer string into payload
 *      2, an offset-from-base string, a fixed array, nested schemas (alone
 *      and in a fixed array), a union with an external selector, a union
 *      with an internal selector, an enum, a flag enum, a hidden field, a
 *      registered string;
 *   1  synthetic_variable (dynamic): length-indexed and zero-terminated
 *      arrays and strings, and an array whose length is payload 3;
 *   2  the pointed-to string (NVTX_TYPE_PAYLOAD_SCHEMA_REFERENCED);
 *   3  a predefined UINT32 payload: the length of payload 1's last array.
 * Offsets are explicit (offsetof) in the static schemas; the dynamic one
 * is laid out most-aligned first so that no entry needs padding.
 */
#include "config.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

#include "synthetic_nested.h"

typedef struct inner {
    int16_t a;
    uint8_t b;
    uint32_t level; /* enum synthetic_level */
} inner;

typedef union value {
    int64_t i;
    double d;
    char s[8];
} value;

typedef struct tagged {
    uint8_t sel;
    union {
        uint8_t b;
        int64_t l;
    } m;
} tagged;

typedef struct everything {
    int64_t ts;
    nvtxStringHandle_t message;
    uint64_t range_id;
    uint32_t category, color;
    char c;
    unsigned char uc;
    short s;
    unsigned short us;
    int i;
    unsigned int ui;
    long l;
    unsigned long ul;
    long long ll;
    unsigned long long ull;
    int8_t i8;
    uint8_t u8;
    int16_t i16;
    uint16_t u16;
    int32_t i32;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
    float f;
    double d;
    long double ld;
    size_t size;
    void* address;
    wchar_t wc;
    uint8_t c8;
    uint16_t c16;
    uint32_t c32;
    uint8_t bytes[4];
    _Alignas(16) unsigned char i128[16];
    _Alignas(16) unsigned char u128[16];
    uint16_t f16;
    float f32;
    double f64;
    _Alignas(16) unsigned char f128[16];
    uint16_t bf16;
    uint32_t tf32;
    uint64_t scope;
    uint32_t pid32;
    uint64_t pid64;
    uint32_t tid32;
    uint64_t tid64;
    char fixed[8];
    char utf8[12];
    uint16_t utf16[6];
    uint32_t utf32[4];
    const char* pointer; /* into payload 2 */
    size_t base;         /* offset of `tail` from the payload's start */
    int32_t ints[4];
    inner one;
    inner two[2];
    uint32_t kind; /* selects `val`'s member */
    value val;
    tagged tag;
    uint32_t level;
    uint16_t flags;
    uint32_t hidden;
    nvtxStringHandle_t name;
    char tail[8];
} everything;

#define T_(x) NVTX_PAYLOAD_ENTRY_TYPE_##x
#define EV_(type, field) SYNTH_ENTRY(0, T_(type), #field, 0, offsetof(everything, field))
#define EVF_(flags, type, field, detail)                                                           \
    SYNTH_ENTRY(flags, T_(type), #field, detail, offsetof(everything, field))
#define FIXED_ NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_FIXED_SIZE

/* The scalar part of synthetic_everything: every predefined type. */
static const nvtxPayloadSchemaEntry_t scalar_entries[] = {
    EVF_(SYNTH_TS_MARK, INT64, ts, 0),
    EVF_(NVTX_PAYLOAD_ENTRY_FLAG_EVENT_MESSAGE, NVTX_REGISTERED_STRING_HANDLE, message, 0),
    EV_(RANGE_ID, range_id),
    EV_(CATEGORY, category),
    EV_(COLOR_ARGB, color),
    EV_(CHAR, c),
    EV_(UCHAR, uc),
    EV_(SHORT, s),
    EV_(USHORT, us),
    EV_(INT, i),
    EV_(UINT, ui),
    EV_(LONG, l),
    EV_(ULONG, ul),
    EV_(LONGLONG, ll),
    EV_(ULONGLONG, ull),
    EV_(INT8, i8),
    EV_(UINT8, u8),
    EV_(INT16, i16),
    EV_(UINT16, u16),
    EV_(INT32, i32),
    EV_(UINT32, u32),
    EV_(INT64, i64),
    EV_(UINT64, u64),
    EV_(FLOAT, f),
    EV_(DOUBLE, d),
    EV_(LONGDOUBLE, ld),
    EV_(SIZE, size),
    EV_(ADDRESS, address),
    EV_(WCHAR, wc),
    EV_(CHAR8, c8),
    EV_(CHAR16, c16),
    EV_(CHAR32, c32),
    EVF_(FIXED_, BYTE, bytes, 4),
    EV_(INT128, i128),
    EV_(UINT128, u128),
    EV_(FLOAT16, f16),
    EV_(FLOAT32, f32),
    EV_(FLOAT64, f64),
    EV_(FLOAT128, f128),
    EV_(BF16, bf16),
    EV_(TF32, tf32),
    EV_(SCOPE_ID, scope),
    EV_(PID_UINT32, pid32),
    EV_(PID_UINT64, pid64),
    EV_(TID_UINT32, tid32),
    EV_(TID_UINT64, tid64),
    EVF_(0, CSTRING, fixed, 8),
    EVF_(0, CSTRING_UTF8, utf8, 12),
    EVF_(0, CSTRING_UTF16, utf16, 6),
    EVF_(0, CSTRING_UTF32, utf32, 4),
    EVF_(NVTX_PAYLOAD_ENTRY_FLAG_POINTER, CSTRING_UTF8, pointer, 0),
    EVF_(NVTX_PAYLOAD_ENTRY_FLAG_OFFSET_FROM_BASE, CSTRING_UTF8, base, 0),
    EVF_(FIXED_, INT32, ints, 4)};
#define SCALAR_COUNT (sizeof scalar_entries / sizeof scalar_entries[0])
#define EVERYTHING_COUNT (SCALAR_COUNT + 10)

/* Payload 1's layout, most-aligned first (no padding anywhere):
 *   uint32 count; uint32 length; double samples[count];
 *   char16 zt16[] (NUL-terminated); uint16 matrix[payload 3's value];
 *   char utf8[length]; uint8 zt_bytes[] (0-terminated). */
#define VAR_COUNT 7

static int register_enums(synth_run* run, nvtxDomainHandle_t domain, nested_schemas* out) {
    static const nvtxPayloadEnum_t levels[] = {{"low", 0, 0}, {"mid", 1, 0}, {"high", 2, 0}};
    static const nvtxPayloadEnum_t flags[] = {{"READ", 1, 1}, {"WRITE", 2, 1}, {"SYNC", 4, 1}};
    nvtxPayloadEnumAttr_t e;
    memset(&e, 0, sizeof e);
    e.fieldMask = NVTX_PAYLOAD_ENUM_ATTR_FIELD_NAME | NVTX_PAYLOAD_ENUM_ATTR_FIELD_ENTRIES |
                  NVTX_PAYLOAD_ENUM_ATTR_FIELD_NUM_ENTRIES | NVTX_PAYLOAD_ENUM_ATTR_FIELD_SIZE;
    e.name = "synthetic_level";
    e.entries = levels;
    e.numEntries = 3;
    e.sizeOfEnum = 4;
    if (synth_check(run, run->t->EnumRegister(domain, &e, &out->level_enum), "register enum %s",
                    e.name))
        return 1;
    e.name = "synthetic_access";
    e.entries = flags;
    e.sizeOfEnum = 2;
    return synth_check(run, run->t->EnumRegister(domain, &e, &out->flags_enum), "register enum %s",
                       e.name);
}

/* synthetic_inner, synthetic_value (union), synthetic_tagged (union with
 * an internal selector). */
static int register_parts(synth_run* run, nvtxDomainHandle_t domain, nested_schemas* out) {
    const nvtxPayloadSchemaEntry_t in[] = {
        SYNTH_ENTRY(0, T_(INT16), "a", 0, offsetof(inner, a)),
        SYNTH_ENTRY(0, T_(UINT8), "b", 0, offsetof(inner, b)),
        SYNTH_ENTRY(0, out->level_enum, "level", 0, offsetof(inner, level))};
    static const nvtxPayloadSchemaEntry_t val[] = {SYNTH_ENTRY(0, T_(INT64), "i", 0, 0),
                                                   SYNTH_ENTRY(0, T_(DOUBLE), "d", 0, 0),
                                                   SYNTH_ENTRY(0, T_(CSTRING_UTF8), "s", 8, 0)};
    static const nvtxPayloadSchemaEntry_t tag[] = {
        SYNTH_ENTRY(0, T_(UNION_SELECTOR), "sel", 1, offsetof(tagged, sel)),
        SYNTH_ENTRY(0, T_(UINT8), "b", 0, offsetof(tagged, m)),
        SYNTH_ENTRY(0, T_(INT64), "l", 0, offsetof(tagged, m))};
    return synth_schema(run, domain, "synthetic_inner", NVTX_PAYLOAD_SCHEMA_TYPE_STATIC, 0, in, 3,
                        sizeof(inner), &out->inner) ||
           synth_schema(run, domain, "synthetic_value", NVTX_PAYLOAD_SCHEMA_TYPE_UNION, 0, val, 3,
                        sizeof(value), &out->value) ||
           synth_schema(run, domain, "synthetic_tagged",
                        NVTX_PAYLOAD_SCHEMA_TYPE_UNION_WITH_INTERNAL_SELECTOR, 0, tag, 3,
                        sizeof(tagged), &out->tagged);
}

static int register_everything(synth_run* run, nvtxDomainHandle_t domain, nested_schemas* out) {
    nvtxPayloadSchemaEntry_t e[EVERYTHING_COUNT];
    size_t n = SCALAR_COUNT;
    size_t kind_index;
    memcpy(e, scalar_entries, sizeof scalar_entries);
    e[n++] =
        (nvtxPayloadSchemaEntry_t)SYNTH_ENTRY(0, out->inner, "one", 0, offsetof(everything, one));
    e[n++] = (nvtxPayloadSchemaEntry_t)SYNTH_ENTRY(FIXED_, out->inner, "two", 2,
                                                   offsetof(everything, two));
    kind_index = n;
    e[n++] = (nvtxPayloadSchemaEntry_t)EV_(UINT32, kind);
    e[n++] = (nvtxPayloadSchemaEntry_t)SYNTH_ENTRY(0, out->value, "val", kind_index,
                                                   offsetof(everything, val));
    e[n++] =
        (nvtxPayloadSchemaEntry_t)SYNTH_ENTRY(0, out->tagged, "tag", 0, offsetof(everything, tag));
    e[n++] = (nvtxPayloadSchemaEntry_t)SYNTH_ENTRY(0, out->level_enum, "level", 0,
                                                   offsetof(everything, level));
    e[n++] = (nvtxPayloadSchemaEntry_t)SYNTH_ENTRY(0, out->flags_enum, "flags", 0,
                                                   offsetof(everything, flags));
    e[n++] = (nvtxPayloadSchemaEntry_t)EVF_(NVTX_PAYLOAD_ENTRY_FLAG_HIDE, UINT32, hidden, 0);
    e[n++] = (nvtxPayloadSchemaEntry_t)EV_(NVTX_REGISTERED_STRING_HANDLE, name);
    e[n++] = (nvtxPayloadSchemaEntry_t)EVF_(0, CSTRING_UTF8, tail, 8);
    return synth_schema(run, domain, "synthetic_everything", NVTX_PAYLOAD_SCHEMA_TYPE_STATIC,
                        NVTX_PAYLOAD_SCHEMA_FLAG_MARK, e, n, sizeof(everything), &out->everything);
}

static int register_variable(synth_run* run, nvtxDomainHandle_t domain, nested_schemas* out) {
    static const nvtxPayloadSchemaEntry_t v[VAR_COUNT + 1] = {
        SYNTH_ENTRY(0, T_(UINT32), "count", 0, 0),
        SYNTH_ENTRY(0, T_(UINT32), "length", 0, 0),
        SYNTH_ENTRY(NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_INDEX, T_(DOUBLE), "samples", 0, 0),
        SYNTH_ENTRY(NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_ZERO_TERMINATED, T_(CSTRING_UTF16), "zt16", 0, 0),
        SYNTH_ENTRY(NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_PAYLOAD_INDEX, T_(UINT16), "matrix", 3, 0),
        SYNTH_ENTRY(NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_INDEX, T_(CSTRING_UTF8), "utf8", 1, 0),
        SYNTH_ENTRY(NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_ZERO_TERMINATED, T_(UINT8), "zt_bytes", 0, 0)};
    return synth_schema(run, domain, "synthetic_variable", NVTX_PAYLOAD_SCHEMA_TYPE_DYNAMIC, 0, v,
                        VAR_COUNT, 0, &out->variable);
}

int nested_register_payloads(synth_run* run, nvtxDomainHandle_t domain, nested_schemas* out) {
    return register_enums(run, domain, out) || register_parts(run, domain, out) ||
           register_everything(run, domain, out) || register_variable(run, domain, out) ||
           synth_check(run, run->t->StringRegister(domain, "payload sample", &out->message),
                       "register a string");
}

/* Payload 0's scalars from the random sequence. */
static void fill_scalars(synth_run* run, everything* p) {
    uint64_t r = synth_random(run);
    p->c = (char)('a' + r % 26);
    p->uc = (unsigned char)r;
    p->s = (short)(r >> 8);
    p->us = (unsigned short)(r >> 16);
    p->i = (int)(r >> 3);
    p->ui = (unsigned int)(r >> 5);
    p->l = -(long)(r >> 20);
    p->ul = (unsigned long)r;
    p->ll = (long long)(r >> 1) * -1;
    p->ull = r;
    p->i8 = (int8_t)(r >> 40);
    p->u8 = (uint8_t)(r >> 48);
    p->i16 = (int16_t)(r >> 24);
    p->u16 = (uint16_t)(r >> 32);
    p->i32 = (int32_t)(r >> 12);
    p->u32 = (uint32_t)(r >> 28);
    p->i64 = -(int64_t)(r >> 2);
    p->u64 = synth_random(run);
    p->f = (float)(r % 10000) / 8.0f;
    p->d = (double)(r % 1000000) / 1024.0;
    p->ld = (long double)p->d * 3;
    p->size = (size_t)(r % 65536);
    p->address = (void*)(uintptr_t)(r & ~(uint64_t)7);
    p->wc = (wchar_t)(0x3B1 + r % 24); /* Greek small letters */
    p->c8 = (uint8_t)('A' + r % 26);
    p->c16 = (uint16_t)(0x3B1 + r % 24);
    p->c32 = (uint32_t)(0x1F600 + r % 16);
    memcpy(p->bytes, &r, 4);
    memcpy(p->i128, &r, 8);
    memcpy(p->u128 + 8, &r, 8);
    p->f16 = 0x3C00; /* 1.0 */
    p->f32 = 0.5f;
    p->f64 = -2.25;
    p->f128[15] = 0x3F; /* 1.0 in binary128: 0x3FFF << 112 */
    p->f128[14] = 0xFF;
    p->bf16 = 0x4049; /* 3.140625 */
    p->tf32 = 0x40490000u;
}

/* Payload 0's strings and structures. */
static void fill_structures(synth_run* run, everything* p, const nested_schemas* ids,
                            const char* pointed) {
    static const uint16_t utf16[6] = {'h', 0xE9, 'l', 'l', 'o', 0};
    static const uint32_t utf32[4] = {0x1F680, 'o', 'k', 0};
    uint64_t r = synth_random(run);
    memcpy(p->fixed, "fixed-8!", 8); /* all 8 units used, no NUL */
    snprintf(p->utf8, sizeof p->utf8, "caf\xc3\xa9 %u", (unsigned)(r % 100));
    memcpy(p->utf16, utf16, sizeof utf16);
    memcpy(p->utf32, utf32, sizeof utf32);
    p->pointer = pointed;
    p->base = offsetof(everything, tail);
    memcpy(p->tail, "tail", 5);
    for (int k = 0; k < 4; k++)
        p->ints[k] = (int32_t)(r >> (8 * k)) % 1000 - 500;
    p->one = (inner){(int16_t)(r % 600) - 300, (uint8_t)(r >> 9), (uint32_t)(r % 3)};
    p->two[0] = (inner){-1, 1, 0};
    p->two[1] = (inner){(int16_t)(r >> 20), 2, 2};
    p->kind = (uint32_t)(r % 3);
    if (p->kind == 0)
        p->val.i = -(int64_t)(r >> 4);
    else if (p->kind == 1)
        p->val.d = (double)(r % 1000) / 16.0;
    else
        memcpy(p->val.s, "union", 6);
    p->tag.sel = (uint8_t)(r >> 7) & 1;
    if (p->tag.sel == 0)
        p->tag.m.b = (uint8_t)(r >> 11);
    else
        p->tag.m.l = (int64_t)(r >> 13);
    p->level = (uint32_t)(r >> 17) % 3;
    p->flags = (uint16_t)((r >> 19) & 7);
    p->hidden = 0xDEADBEEFu;
    p->name = ids->message;
}

/* Payload 1 into buf (at least NESTED_VARIABLE_MAX bytes); its size. */
static size_t fill_variable(synth_run* run, unsigned char* buf, uint32_t rows) {
    uint32_t count = (uint32_t)synth_uniform(run, 0, 4);
    uint32_t length = (uint32_t)synth_uniform(run, 0, 11);
    static const char text[] = "variable-len";
    static const uint16_t zt16[4] = {'z', 't', 0x3BB, 0}; /* "zt" and U+03BB */
    size_t at = 8;
    memcpy(buf, &count, 4);
    memcpy(buf + 4, &length, 4);
    for (uint32_t k = 0; k < count; k++, at += 8) {
        double v = (double)k * 0.25 + (double)count;
        memcpy(buf + at, &v, 8);
    }
    memcpy(buf + at, zt16, sizeof zt16);
    at += sizeof zt16;
    for (uint32_t k = 0; k < rows; k++, at += 2) {
        uint16_t v = (uint16_t)(k * 7);
        memcpy(buf + at, &v, 2);
    }
    memcpy(buf + at, text, length);
    at += length;
    for (uint32_t k = 0; k < count; k++)
        buf[at++] = (uint8_t)(k + 1);
    buf[at++] = 0;
    return at;
}

int nested_write_payloads(synth_run* run, nvtxwStreamHandle_t stream, const nested_schemas* ids,
                          int64_t ts, uint32_t category) {
    static const char pointed[] = "pointed-to string";
    everything p;
    unsigned char var[NESTED_VARIABLE_MAX];
    uint32_t rows = (uint32_t)synth_uniform(run, 0, 3);
    nvtxPayloadData_t data[4];
    memset(&p, 0, sizeof p);
    p.ts = ts;
    p.message = ids->message;
    p.range_id = synth_uniform(run, 1, 1000000);
    p.category = category;
    p.color = 0xFF00897Bu;
    p.scope = NVTX_SCOPE_NONE;
    fill_scalars(run, &p);
    fill_structures(run, &p, ids, pointed);
    data[0] = (nvtxPayloadData_t){ids->everything, sizeof p, &p};
    data[1] = (nvtxPayloadData_t){ids->variable, fill_variable(run, var, rows), var};
    data[2] = (nvtxPayloadData_t){NVTX_TYPE_PAYLOAD_SCHEMA_REFERENCED, sizeof pointed, pointed};
    data[3] = (nvtxPayloadData_t){T_(UINT32), sizeof rows, &rows};
    run->written++;
    return synth_check(run, run->t->EventWrite(stream, data, 4), "write the payload sample");
}
