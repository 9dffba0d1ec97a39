/*
 * fuzz/visit_fuzz.c - libFuzzer target for nvtxw_payload_visit.
 *
 * Input: byte 0 selects the payload's schema (one of the registered schemas
 * below, a predefined type, RAW or REFERENCED); byte 1 selects whether a
 * second payload follows and, if so, where the first ends; the remaining
 * bytes are payload data. See fuzz/README.md.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "nvtxw/payload.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

#define EF(type, name, flags, detail)                                                              \
    { flags, type, name, NULL, detail, 0, NULL, NULL }
#define T(x) NVTX_PAYLOAD_ENTRY_TYPE_##x
#define FIXED NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_FIXED_SIZE
#define ZT NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_ZERO_TERMINATED
#define LI NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_INDEX
#define LPI NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_PAYLOAD_INDEX
#define PTR NVTX_PAYLOAD_ENTRY_FLAG_POINTER

static nvtxw_schema_registry_t* registry;
static uint64_t ids[16];
static size_t id_count;

static uint64_t add(const nvtxPayloadSchemaEntry_t* es, size_t n, uint64_t type) {
    nvtxPayloadSchemaAttr_t a;
    uint64_t id = 0;
    memset(&a, 0, sizeof a);
    a.fieldMask = NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES |
                  NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES;
    a.type = type;
    a.entries = es;
    a.numEntries = n;
    if (nvtxw_schema_registry_add_schema(registry, &a, &id) != NVTXW_RESULT_SUCCESS)
        __builtin_trap(); /* the harness schemas must be valid */
    ids[id_count++] = id;
    return id;
}

static uint64_t add_enum(void) {
    static const nvtxPayloadEnum_t ev[] = {{"A", 1, 1}, {"B", 2, 1}, {"C", 4, 1}, {"Z", 0, 0}};
    nvtxPayloadEnumAttr_t a = {NVTX_PAYLOAD_ENUM_ATTR_FIELD_ENTRIES |
                                   NVTX_PAYLOAD_ENUM_ATTR_FIELD_NUM_ENTRIES |
                                   NVTX_PAYLOAD_ENUM_ATTR_FIELD_SIZE,
                               NULL,
                               ev,
                               4,
                               2,
                               0,
                               NULL};
    uint64_t id = 0;
    if (nvtxw_schema_registry_add_enum(registry, &a, &id) != NVTXW_RESULT_SUCCESS)
        __builtin_trap();
    return id;
}

static void build(void) {
    uint64_t en, inner, un, iun, dyn;
    registry = nvtxw_schema_registry_create();
    en = add_enum();
    {
        nvtxPayloadSchemaEntry_t es[] = {
            EF(T(INT8), "i8", 0, 0),      EF(T(UINT16), "u16", 0, 0),
            EF(T(FLOAT16), "h", 0, 0),    EF(T(BF16), "bf", 0, 0),
            EF(T(FLOAT128), "q", 0, 0),   EF(T(LONGDOUBLE), "ld", 0, 0),
            EF(T(CSTRING), "fs", 0, 5),   EF(T(CSTRING_UTF16), "w", 0, 3),
            EF(en, "e", FIXED, 2),        EF(T(NVTX_REGISTERED_STRING_HANDLE), "h2", 0, 0),
            EF(T(BYTE), "raw", FIXED, 3), EF(T(INT128), "big", 0, 0)};
        inner = add(es, sizeof es / sizeof es[0], NVTX_PAYLOAD_SCHEMA_TYPE_STATIC);
    }
    {
        nvtxPayloadSchemaEntry_t es[] = {EF(T(INT32), "i", 0, 0), EF(T(DOUBLE), "d", 0, 0),
                                         EF(T(CSTRING_UTF32), "s", 0, 2)};
        un = add(es, 3, NVTX_PAYLOAD_SCHEMA_TYPE_UNION);
    }
    {
        nvtxPayloadSchemaEntry_t es[] = {EF(T(UNION_SELECTOR), "sel", 0, 1),
                                         EF(T(UINT8), "b", 0, 0), EF(T(FLOAT), "f", 0, 0)};
        iun = add(es, 3, NVTX_PAYLOAD_SCHEMA_TYPE_UNION_WITH_INTERNAL_SELECTOR);
    }
    {
        nvtxPayloadSchemaEntry_t es[] = {
            EF(T(UINT8), "n", 0, 0),
            EF(T(INT16), "li", LI, 0),
            EF(T(UINT8), "dims", FIXED, 2),
            EF(T(INT8), "md", LI, 2),
            EF(T(CSTRING_UTF8), "zt", ZT, 0),
            EF(T(CSTRING_UTF16), "zt16", ZT, 0),
            EF(T(CSTRING_UTF8), "names", ZT, 3),
            EF(T(CSTRING_UTF32), "lis", LI, 0),
            EF(T(UINT32), "u", 0, 0),
            EF(un, "un", 0, 8),
            EF(iun, "iu", ZT, 0),
            EF(T(UINT8), "zdims", ZT, 0),
            EF(T(UINT8), "zmd", LI, 11),
            EF(T(INT32), "lpi", LPI, 1),
            EF(inner, "inner", 0, 0),
            EF(T(CSTRING_UTF8), "p", PTR, 0),
            EF(T(INT64), "pa", PTR | LI, 0),
            EF(T(CSTRING_UTF8), "ob", NVTX_PAYLOAD_ENTRY_FLAG_OFFSET_FROM_BASE, 0),
            EF(T(UINT16), "oh", NVTX_PAYLOAD_ENTRY_FLAG_OFFSET_FROM_HERE | ZT, 0)};
        dyn = add(es, sizeof es / sizeof es[0], NVTX_PAYLOAD_SCHEMA_TYPE_DYNAMIC);
    }
    {
        nvtxPayloadSchemaEntry_t es[] = {EF(dyn, "d", 0, 0), EF(T(CSTRING_UTF16), "after", ZT, 0),
                                         EF(inner, "arr", FIXED, 2), EF(T(UINT32), "n", 0, 0),
                                         EF(inner, "pi", PTR | LI, 3)};
        add(es, 5, NVTX_PAYLOAD_SCHEMA_TYPE_DYNAMIC);
    }
}

static volatile uint64_t sink;

static void touch(const void* p, size_t n) {
    const uint8_t* b = p;
    size_t k;
    for (k = 0; k < n; k++)
        sink += b[k];
}

static int f_begin(void* c, const nvtxw_field_info_t* f) {
    (void)c;
    touch(f->name, strlen(f->name));
    return 0;
}
static int f_signed(void* c, int64_t v) {
    (void)c;
    sink += (uint64_t)v;
    return 0;
}
static int f_unsigned(void* c, uint64_t v) {
    (void)c;
    sink += v;
    return 0;
}
static int f_float(void* c, double v) {
    (void)c;
    sink += v == v;
    return 0;
}
static int f_string(void* c, const char* s, size_t n) {
    (void)c;
    touch(s, n + 1);
    return 0;
}
static int f_bytes(void* c, const void* p, size_t n) {
    (void)c;
    touch(p, n);
    return 0;
}
static int f_enum(void* c, uint64_t v, const char* name) {
    (void)c;
    sink += v;
    if (name)
        touch(name, strlen(name) + 1);
    return 0;
}
static int f_handle(void* c, uint64_t h, const char* t) {
    (void)c;
    (void)t;
    sink += h;
    return 0;
}
static int f_pbegin(void* c, size_t i, uint64_t id, size_t size, const char* name) {
    (void)c;
    sink += i + id + size;
    touch(name, strlen(name));
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const uint64_t predefined[] = {T(INT8),
                                          T(UINT64),
                                          T(INT32),
                                          T(FLOAT16),
                                          T(FLOAT128),
                                          T(BF16),
                                          T(LONGDOUBLE),
                                          T(CSTRING),
                                          T(CSTRING_UTF16),
                                          T(CSTRING_UTF32),
                                          T(BYTE),
                                          T(UINT128),
                                          T(TF32),
                                          T(NVTX_REGISTERED_STRING_HANDLE),
                                          NVTX_TYPE_PAYLOAD_SCHEMA_RAW,
                                          NVTX_TYPE_PAYLOAD_SCHEMA_REFERENCED,
                                          0,
                                          29};
    nvtxw_visitor_t v;
    nvtxPayloadData_t p[2];
    size_t count = 1;
    size_t pick;
    if (registry == NULL)
        build();
    if (size < 2)
        return 0;
    memset(&v, 0, sizeof v);
    v.struct_size = sizeof v;
    v.field_begin = f_begin;
    v.on_signed = f_signed;
    v.on_unsigned = f_unsigned;
    v.on_float = f_float;
    v.on_string = f_string;
    v.on_bytes = f_bytes;
    v.on_enum = f_enum;
    v.on_string_handle = f_handle;
    v.payload_begin = f_pbegin;
    pick = data[0] % (id_count + sizeof predefined / sizeof predefined[0]);
    p[0].schemaId = pick < id_count ? ids[pick] : predefined[pick - id_count];
    p[0].payload = data + 2;
    p[0].size = size - 2;
    if (data[1] & 0x80) {
        size_t split = (size_t)(data[1] & 0x7F);
        if (split > size - 2)
            split = size - 2;
        p[0].size = split;
        p[1].schemaId = (data[1] & 0x40) ? T(UINT8) : NVTX_TYPE_PAYLOAD_SCHEMA_REFERENCED;
        p[1].payload = data + 2 + split;
        p[1].size = size - 2 - split;
        count = 2;
    }
    nvtxw_payload_visit(registry, p, count, &v, NULL, NULL);
    return 0;
}
