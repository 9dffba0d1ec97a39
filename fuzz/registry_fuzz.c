/*
 * fuzz/registry_fuzz.c - libFuzzer target for schema registration and
 * visiting with schemas built from the input.
 *
 * Input layout (every field one byte unless noted; missing bytes read 0):
 *   enum        sizeOfEnum pick (1, 2, 4, 8); its values include negative
 *               ones and flags
 *   count       1 + count % 4 schemas follow
 *   per schema: type (0..5, 5 = invalid), entry count (1 + n % 8), packAlign
 *               pick, payloadStaticSize (0 = not given), schema flags, then
 *               per entry: flags byte (array kind, form bits, DEEP_COPY),
 *               type pick (predefined types, earlier schemas, the enum,
 *               unknown IDs), detail byte, offset byte
 *   split       where payload 0 ends; bit 7 of the byte after it picks
 *               payload 1's schema (UINT8 or REFERENCED)
 *   rest        payload bytes, copied into exact-size heap buffers so that
 *               any read past a payload is an ASan error
 * Each schema that registers is visited with payload 0 (and 1). A schema
 * made only of predefined types must register again, with the same layout,
 * from its nvtxw_schema_get_attr() copy in a fresh registry.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nvtxw/payload.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

#define T(x) NVTX_PAYLOAD_ENTRY_TYPE_##x
#define MAX_SCHEMAS 4
#define MAX_ENTRIES 8

typedef struct reader {
    const uint8_t* data;
    size_t size;
    size_t pos;
} reader_t;

static uint8_t next(reader_t* r) { return r->pos < r->size ? r->data[r->pos++] : 0; }

static volatile uint64_t sink;

static void touch(const void* p, size_t n) {
    const volatile uint8_t* b = p;
    size_t k;
    for (k = 0; k < n; k++)
        sink += b[k];
}

static int f_string(void* c, const char* s, size_t n) {
    (void)c;
    touch(s, n + 1); /* the NUL is part of the contract */
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
static int f_field(void* c, const nvtxw_field_info_t* f) {
    (void)c;
    touch(f->name, strlen(f->name));
    touch(f->description, strlen(f->description));
    return 0;
}

static uint64_t pick_type(uint8_t b, const uint64_t* ids, size_t nids, uint64_t enum_id) {
    static const uint64_t types[] = {T(CHAR),
                                     T(UCHAR),
                                     T(SHORT),
                                     T(INT),
                                     T(LONG),
                                     T(ULONGLONG),
                                     T(INT8),
                                     T(UINT8),
                                     T(INT16),
                                     T(UINT16),
                                     T(INT32),
                                     T(UINT32),
                                     T(INT64),
                                     T(UINT64),
                                     T(FLOAT),
                                     T(DOUBLE),
                                     T(LONGDOUBLE),
                                     T(SIZE),
                                     T(ADDRESS),
                                     T(WCHAR),
                                     T(CHAR8),
                                     T(CHAR16),
                                     T(CHAR32),
                                     T(BYTE),
                                     T(INT128),
                                     T(FLOAT16),
                                     T(FLOAT128),
                                     T(BF16),
                                     T(TF32),
                                     T(RANGE_ID),
                                     T(CATEGORY),
                                     T(COLOR_ARGB),
                                     T(CSTRING),
                                     T(CSTRING_UTF8),
                                     T(CSTRING_UTF16),
                                     T(CSTRING_UTF32),
                                     T(NVTX_REGISTERED_STRING_HANDLE),
                                     T(UNION_SELECTOR),
                                     0,
                                     29,
                                     NVTX_TYPE_PAYLOAD_SCHEMA_RAW,
                                     NVTX_PAYLOAD_SCHEMA_ID_STATIC_START + 7};
    size_t n = sizeof types / sizeof types[0];
    if (b < n)
        return types[b];
    if (b % 8 == 0 && enum_id != 0)
        return enum_id;
    return nids > 0 ? ids[b % nids] : types[b % n];
}

static uint64_t pick_detail(uint8_t b) {
    static const uint64_t big[] = {UINT64_MAX, SIZE_MAX / 2,    (uint64_t)1 << 32,     4096,
                                   65535,      UINT64_MAX / 16, 0x7fffffffffffffffull, 255};
    return (b & 0xC0) == 0xC0 ? big[b & 7] : (uint64_t)(b & 0x3F);
}

static void read_entry(reader_t* r, nvtxPayloadSchemaEntry_t* e, const uint64_t* ids, size_t nids,
                       uint64_t enum_id) {
    uint8_t f = next(r);
    memset(e, 0, sizeof *e);
    e->flags = (uint64_t)(f & 0x7) << 4 | (uint64_t)((f >> 3) & 0x7) << 1 |
               ((f & 0x40) ? NVTX_PAYLOAD_ENTRY_FLAG_DEEP_COPY : 0) |
               ((f & 0x80) ? NVTX_PAYLOAD_ENTRY_FLAG_EVENT_MESSAGE : 0);
    e->type = pick_type(next(r), ids, nids, enum_id);
    e->arrayOrUnionDetail = pick_detail(next(r));
    e->offset = pick_detail(next(r));
    e->name = (f & 1) ? "" : "field";
}

static uint64_t add_enum(reader_t* r, nvtxw_schema_registry_t* reg) {
    static const nvtxPayloadEnum_t ev[] = {
        {"A", 1, 1}, {"B", 2, 1}, {"NEG", (uint64_t)-1, 0}, {"HIGH", (uint64_t)1 << 63, 1},
        {"Z", 0, 0}, {"A2", 1, 0}};
    static const size_t sizes[] = {1, 2, 4, 8};
    nvtxPayloadEnumAttr_t a;
    uint64_t id = 0;
    memset(&a, 0, sizeof a);
    a.fieldMask = NVTX_PAYLOAD_ENUM_ATTR_FIELD_ENTRIES | NVTX_PAYLOAD_ENUM_ATTR_FIELD_NUM_ENTRIES |
                  NVTX_PAYLOAD_ENUM_ATTR_FIELD_SIZE;
    a.entries = ev;
    a.numEntries = sizeof ev / sizeof ev[0];
    a.sizeOfEnum = sizes[next(r) & 3];
    if (nvtxw_schema_registry_add_enum(reg, &a, &id) != NVTXW_RESULT_SUCCESS)
        __builtin_trap();
    return id;
}

/* Invariant: a schema of predefined types registers again from its attr. */
static void check_round_trip(const nvtxw_schema_t* s) {
    nvtxPayloadSchemaAttr_t a;
    nvtxw_schema_registry_t* again;
    const nvtxw_schema_t* copy;
    uint64_t id = 0;
    size_t k;
    nvtxw_schema_get_attr(s, &a);
    if (a.schemaId >= NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START)
        a.fieldMask &= ~(uint64_t)NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_SCHEMA_ID; /* gets a new one */
    for (k = 0; k < a.numEntries; k++)
        if (a.entries[k].type >= NVTX_PAYLOAD_SCHEMA_ID_STATIC_START)
            return;
    again = nvtxw_schema_registry_create();
    if (again == NULL)
        return;
    if (nvtxw_schema_registry_add_schema(again, &a, &id) != NVTXW_RESULT_SUCCESS)
        __builtin_trap();
    copy = nvtxw_schema_registry_find_schema(again, id);
    if (nvtxw_schema_static_size(copy) != nvtxw_schema_static_size(s) ||
        nvtxw_schema_alignment(copy) != nvtxw_schema_alignment(s) ||
        nvtxw_schema_is_variable_size(copy) != nvtxw_schema_is_variable_size(s))
        __builtin_trap();
    nvtxw_schema_registry_destroy(again);
}

static int add_schema(reader_t* r, nvtxw_schema_registry_t* reg, uint64_t* ids, size_t nids,
                      uint64_t enum_id) {
    static const size_t packs[] = {0, 1, 2, 4, 8, 16, 3, 0};
    nvtxPayloadSchemaEntry_t es[MAX_ENTRIES];
    nvtxPayloadSchemaAttr_t a;
    size_t k;
    memset(&a, 0, sizeof a);
    a.fieldMask = NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES |
                  NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES |
                  NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_FLAGS | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NAME;
    a.name = "fuzzed";
    a.type = next(r) % 6;
    a.numEntries = 1 + next(r) % MAX_ENTRIES;
    a.packAlign = packs[next(r) & 7];
    if (a.packAlign != 0)
        a.fieldMask |= NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ALIGNMENT;
    a.payloadStaticSize = next(r);
    if (a.payloadStaticSize != 0)
        a.fieldMask |= NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_STATIC_SIZE;
    a.flags = next(r);
    for (k = 0; k < a.numEntries; k++)
        read_entry(r, &es[k], ids, nids, enum_id);
    a.entries = es;
    if (nvtxw_schema_registry_add_schema(reg, &a, &ids[nids]) != NVTXW_RESULT_SUCCESS)
        return 0;
    check_round_trip(nvtxw_schema_registry_find_schema(reg, ids[nids]));
    return 1;
}

static void visit_all(nvtxw_schema_registry_t* reg, const uint64_t* ids, size_t nids, reader_t* r) {
    size_t rest = r->size - (r->pos < r->size ? r->pos : r->size);
    size_t split = next(r);
    uint64_t second = (next(r) & 0x80) ? T(UINT8) : NVTX_TYPE_PAYLOAD_SCHEMA_REFERENCED;
    const uint8_t* bytes = r->data + (r->pos < r->size ? r->pos : r->size);
    uint8_t* b0;
    uint8_t* b1;
    nvtxw_visitor_t v;
    size_t k;
    rest = rest >= 2 ? rest - 2 : 0;
    split = split > rest ? rest : split;
    b0 = malloc(split ? split : 1);
    b1 = malloc(rest - split ? rest - split : 1);
    if (b0 != NULL && b1 != NULL) {
        memcpy(b0, bytes, split);
        memcpy(b1, bytes + split, rest - split);
        memset(&v, 0, sizeof v);
        v.struct_size = sizeof v;
        v.field_begin = f_field;
        v.on_string = f_string;
        v.on_bytes = f_bytes;
        v.on_enum = f_enum;
        for (k = 0; k < nids; k++) {
            nvtxPayloadData_t p[2] = {{ids[k], split, b0}, {second, rest - split, b1}};
            nvtxw_payload_visit(reg, p, 2, &v, NULL, NULL);
        }
    }
    free(b0);
    free(b1);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    reader_t r = {data, size, 0};
    nvtxw_schema_registry_t* reg = nvtxw_schema_registry_create();
    uint64_t ids[MAX_SCHEMAS + 1];
    size_t nids = 0;
    size_t count;
    size_t k;
    uint64_t enum_id;
    if (reg == NULL)
        return 0;
    enum_id = add_enum(&r, reg);
    count = 1 + next(&r) % MAX_SCHEMAS;
    for (k = 0; k < count; k++)
        nids += (size_t)add_schema(&r, reg, ids, nids, enum_id);
    visit_all(reg, ids, nids, &r);
    nvtxw_schema_registry_destroy(reg);
    return 0;
}
