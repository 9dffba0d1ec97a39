/*
 * tests/unit/registry_test.c - schema/enum registry and finalization: ID
 * rules (spec conformance 32-36), layouts compared with real C structs,
 * variable-size detection, get_attr round trips, input copying (39) and an
 * allocation-failure sweep.
 */
#define _POSIX_C_SOURCE 200809L /* test_util.h */
#include <check.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "nvtxw/error.h"
#include "nvtxw/payload.h"
#include "test_util.h"

#define E(type, name)                                                                              \
    { 0, NVTX_PAYLOAD_ENTRY_TYPE_##type, name, NULL, 0, 0, NULL, NULL }
#define MASK_BASE                                                                                  \
    (NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES |                \
     NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES)

static const nvtxPayloadSchemaEntry_t one_int[] = {E(INT32, "x")};

static nvtxPayloadSchemaAttr_t schema_attr(const nvtxPayloadSchemaEntry_t* entries, size_t n,
                                           uint64_t type) {
    nvtxPayloadSchemaAttr_t a;
    memset(&a, 0, sizeof a);
    a.fieldMask = MASK_BASE;
    a.type = type;
    a.entries = entries;
    a.numEntries = n;
    return a;
}

static nvtxwResultCode_t add_static_id(nvtxw_schema_registry_t* r, uint64_t id) {
    nvtxPayloadSchemaAttr_t a = schema_attr(one_int, 1, NVTX_PAYLOAD_SCHEMA_TYPE_STATIC);
    a.fieldMask |= NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_SCHEMA_ID;
    a.schemaId = id;
    return nvtxw_schema_registry_add_schema(r, &a, NULL);
}

static const nvtxPayloadEnum_t colors[] = {{"RED", 1, 0}, {"GREEN", 2, 0}, {"BLUE", 4, 1}};

static nvtxPayloadEnumAttr_t enum_attr(void) {
    nvtxPayloadEnumAttr_t a;
    memset(&a, 0, sizeof a);
    a.fieldMask = NVTX_PAYLOAD_ENUM_ATTR_FIELD_ENTRIES | NVTX_PAYLOAD_ENUM_ATTR_FIELD_NUM_ENTRIES |
                  NVTX_PAYLOAD_ENUM_ATTR_FIELD_SIZE;
    a.entries = colors;
    a.numEntries = 3;
    a.sizeOfEnum = 4;
    return a;
}

START_TEST(static_id_ranges) {
    nvtxw_schema_registry_t* r = nvtxw_schema_registry_create();
    ck_assert_int_eq(add_static_id(r, 16777215), NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "16777215"));
    ck_assert_int_eq(add_static_id(r, 4294967296ULL), NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_int_eq(add_static_id(r, 16777216), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(add_static_id(r, 4294967295ULL), NVTXW_RESULT_SUCCESS);
    ck_assert_ptr_nonnull(nvtxw_schema_registry_find_schema(r, 16777216));
    ck_assert_ptr_nonnull(nvtxw_schema_registry_find_schema(r, 4294967295ULL));
    ck_assert_uint_eq(nvtxw_schema_registry_count(r), 2);
    nvtxw_schema_registry_destroy(r);
}
END_TEST

START_TEST(id_reuse_rejected) {
    nvtxw_schema_registry_t* r = nvtxw_schema_registry_create();
    nvtxw_schema_registry_t* other = nvtxw_schema_registry_create();
    nvtxPayloadEnumAttr_t e = enum_attr();
    ck_assert_int_eq(add_static_id(r, 20000000), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(add_static_id(r, 20000000), NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "already used by a schema"));
    e.fieldMask |= NVTX_PAYLOAD_ENUM_ATTR_FIELD_SCHEMA_ID;
    e.schemaId = 20000000;
    ck_assert_int_eq(nvtxw_schema_registry_add_enum(r, &e, NULL), NVTXW_RESULT_INVALID_ARGUMENT);
    e.schemaId = 20000001;
    ck_assert_int_eq(nvtxw_schema_registry_add_enum(r, &e, NULL), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(add_static_id(r, 20000001), NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "already used by an enum"));
    ck_assert_int_eq(add_static_id(other, 20000000), NVTXW_RESULT_SUCCESS);
    ck_assert_ptr_nonnull(nvtxw_schema_registry_find_enum(r, 20000001));
    ck_assert_ptr_null(nvtxw_schema_registry_find_schema(r, 20000001));
    nvtxw_schema_registry_destroy(r);
    nvtxw_schema_registry_destroy(other);
}
END_TEST

START_TEST(dynamic_ids_and_id_out) {
    nvtxw_schema_registry_t* r = nvtxw_schema_registry_create();
    nvtxPayloadSchemaAttr_t a = schema_attr(one_int, 1, NVTX_PAYLOAD_SCHEMA_TYPE_STATIC);
    nvtxPayloadEnumAttr_t e = enum_attr();
    uint64_t ids[4] = {0};
    const nvtxw_schema_t* s;
    const nvtxw_enum_t* en;
    ck_assert_int_eq(nvtxw_schema_registry_add_schema(r, &a, NULL), NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_int_eq(nvtxw_schema_registry_add_enum(r, &e, NULL), NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_int_eq(nvtxw_schema_registry_add_schema(r, &a, &ids[0]), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(nvtxw_schema_registry_add_enum(r, &e, &ids[1]), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(nvtxw_schema_registry_add_schema(r, &a, &ids[2]), NVTXW_RESULT_SUCCESS);
    ck_assert_uint_ge(ids[0], NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START);
    ck_assert_uint_ne(ids[0], ids[1]);
    ck_assert_uint_ne(ids[1], ids[2]);
    ck_assert_uint_ne(ids[0], ids[2]);
    /* Registration order, schema or enum. */
    nvtxw_schema_registry_at(r, 1, &s, &en);
    ck_assert_ptr_null(s);
    ck_assert_uint_eq(nvtxw_enum_id(en), ids[1]);
    nvtxw_schema_registry_at(r, 2, &s, &en);
    ck_assert_uint_eq(nvtxw_schema_id(s), ids[2]);
    ck_assert_ptr_null(en);
    nvtxw_schema_registry_at(r, 3, &s, &en);
    ck_assert_ptr_null(s);
    ck_assert_ptr_null(en);
    nvtxw_schema_registry_destroy(r);
}
END_TEST

START_TEST(required_fields) {
    nvtxw_schema_registry_t* r = nvtxw_schema_registry_create();
    nvtxPayloadSchemaAttr_t a = schema_attr(one_int, 1, NVTX_PAYLOAD_SCHEMA_TYPE_STATIC);
    nvtxPayloadEnumAttr_t e = enum_attr();
    uint64_t bits[3] = {NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE, NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES,
                        NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES};
    uint64_t ebits[3] = {NVTX_PAYLOAD_ENUM_ATTR_FIELD_ENTRIES,
                         NVTX_PAYLOAD_ENUM_ATTR_FIELD_NUM_ENTRIES,
                         NVTX_PAYLOAD_ENUM_ATTR_FIELD_SIZE};
    uint64_t id;
    int k;
    for (k = 0; k < 3; k++) {
        a.fieldMask = MASK_BASE & ~bits[k];
        ck_assert_int_eq(nvtxw_schema_registry_add_schema(r, &a, &id),
                         NVTXW_RESULT_INVALID_ARGUMENT);
        e.fieldMask = enum_attr().fieldMask & ~ebits[k];
        ck_assert_int_eq(nvtxw_schema_registry_add_enum(r, &e, &id), NVTXW_RESULT_INVALID_ARGUMENT);
    }
    ck_assert_uint_eq(nvtxw_schema_registry_count(r), 0);
    nvtxw_schema_registry_destroy(r);
}
END_TEST

/* Registers and returns the schema (fails the test on error). */
static const nvtxw_schema_t* reg(nvtxw_schema_registry_t* r, nvtxPayloadSchemaAttr_t* a) {
    uint64_t id = 0;
    nvtxwResultCode_t rc = nvtxw_schema_registry_add_schema(r, a, &id);
    ck_assert_msg(rc == NVTXW_RESULT_SUCCESS, "register: %s", nvtxw_last_error());
    return nvtxw_schema_registry_find_schema(r, id);
}

struct natural {
    char c;
    double d;
    int16_t s;
    int32_t i;
    char name[5];
    uint64_t arr[3];
    uint8_t tail;
};

START_TEST(layout_natural) {
    nvtxw_schema_registry_t* r = nvtxw_schema_registry_create();
    nvtxPayloadSchemaEntry_t es[] = {E(CHAR, "c"),    E(DOUBLE, "d"),     E(INT16, "s"),
                                     E(INT32, "i"),   E(CSTRING, "name"), E(UINT64, "arr"),
                                     E(UINT8, "tail")};
    nvtxPayloadSchemaAttr_t a = schema_attr(es, 7, NVTX_PAYLOAD_SCHEMA_TYPE_STATIC);
    const nvtxw_schema_t* s;
    es[4].arrayOrUnionDetail = 5;
    es[5].flags = NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_FIXED_SIZE;
    es[5].arrayOrUnionDetail = 3;
    s = reg(r, &a);
    ck_assert_uint_eq(nvtxw_schema_entry_offset(s, 0), offsetof(struct natural, c));
    ck_assert_uint_eq(nvtxw_schema_entry_offset(s, 1), offsetof(struct natural, d));
    ck_assert_uint_eq(nvtxw_schema_entry_offset(s, 2), offsetof(struct natural, s));
    ck_assert_uint_eq(nvtxw_schema_entry_offset(s, 3), offsetof(struct natural, i));
    ck_assert_uint_eq(nvtxw_schema_entry_offset(s, 4), offsetof(struct natural, name));
    ck_assert_uint_eq(nvtxw_schema_entry_offset(s, 5), offsetof(struct natural, arr));
    ck_assert_uint_eq(nvtxw_schema_entry_offset(s, 6), offsetof(struct natural, tail));
    ck_assert_uint_eq(nvtxw_schema_static_size(s), sizeof(struct natural));
    ck_assert_uint_eq(nvtxw_schema_alignment(s), _Alignof(struct natural));
    ck_assert_int_eq(nvtxw_schema_is_variable_size(s), 0);
    nvtxw_schema_registry_destroy(r);
}
END_TEST

#pragma pack(push, 1)
struct pack1 {
    char c;
    double d;
    int16_t s;
    int32_t i;
};
#pragma pack(pop)
#pragma pack(push, 2)
struct pack2 {
    char c;
    double d;
    char c2;
    int32_t i;
};
#pragma pack(pop)
#pragma pack(push, 4)
struct pack4 {
    char c;
    double d;
    int16_t s;
    int64_t l;
};
#pragma pack(pop)

START_TEST(layout_pack_align) {
    nvtxw_schema_registry_t* r = nvtxw_schema_registry_create();
    nvtxPayloadSchemaEntry_t e1[] = {E(CHAR, "c"), E(DOUBLE, "d"), E(INT16, "s"), E(INT32, "i")};
    nvtxPayloadSchemaEntry_t e2[] = {E(CHAR, "c"), E(DOUBLE, "d"), E(CHAR, "c2"), E(INT32, "i")};
    nvtxPayloadSchemaEntry_t e4[] = {E(CHAR, "c"), E(DOUBLE, "d"), E(INT16, "s"), E(INT64, "l")};
    nvtxPayloadSchemaAttr_t a = schema_attr(e1, 4, NVTX_PAYLOAD_SCHEMA_TYPE_STATIC);
    const nvtxw_schema_t* s;
    a.fieldMask |= NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ALIGNMENT;
    a.packAlign = 1;
    s = reg(r, &a);
    ck_assert_uint_eq(nvtxw_schema_entry_offset(s, 1), offsetof(struct pack1, d));
    ck_assert_uint_eq(nvtxw_schema_entry_offset(s, 2), offsetof(struct pack1, s));
    ck_assert_uint_eq(nvtxw_schema_entry_offset(s, 3), offsetof(struct pack1, i));
    ck_assert_uint_eq(nvtxw_schema_static_size(s), sizeof(struct pack1));
    a.entries = e2;
    a.packAlign = 2;
    s = reg(r, &a);
    ck_assert_uint_eq(nvtxw_schema_entry_offset(s, 1), offsetof(struct pack2, d));
    ck_assert_uint_eq(nvtxw_schema_entry_offset(s, 2), offsetof(struct pack2, c2));
    ck_assert_uint_eq(nvtxw_schema_entry_offset(s, 3), offsetof(struct pack2, i));
    ck_assert_uint_eq(nvtxw_schema_static_size(s), sizeof(struct pack2));
    a.entries = e4;
    a.packAlign = 4;
    s = reg(r, &a);
    ck_assert_uint_eq(nvtxw_schema_entry_offset(s, 1), offsetof(struct pack4, d));
    ck_assert_uint_eq(nvtxw_schema_entry_offset(s, 3), offsetof(struct pack4, l));
    ck_assert_uint_eq(nvtxw_schema_static_size(s), sizeof(struct pack4));
    ck_assert_uint_eq(nvtxw_schema_alignment(s), _Alignof(struct pack4));
    nvtxw_schema_registry_destroy(r);
}
END_TEST

struct inner {
    int16_t a;
    double b;
};
struct outer {
    char tag;
    struct inner in;
    struct inner pair[2];
    int32_t last;
};

START_TEST(layout_nested_and_explicit) {
    nvtxw_schema_registry_t* r = nvtxw_schema_registry_create();
    nvtxPayloadSchemaEntry_t ie[] = {E(INT16, "a"), E(DOUBLE, "b")};
    nvtxPayloadSchemaAttr_t a = schema_attr(ie, 2, NVTX_PAYLOAD_SCHEMA_TYPE_STATIC);
    const nvtxw_schema_t* in = reg(r, &a);
    nvtxPayloadSchemaEntry_t oe[] = {E(CHAR, "tag"), E(INT32, "in"), E(INT32, "pair"),
                                     E(INT32, "last")};
    nvtxPayloadSchemaEntry_t xe[] = {E(INT32, "b"), E(INT8, "a"), E(INT64, "c")};
    const nvtxw_schema_t* s;
    oe[1].type = oe[2].type = nvtxw_schema_id(in);
    oe[2].flags = NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_FIXED_SIZE;
    oe[2].arrayOrUnionDetail = 2;
    a = schema_attr(oe, 4, NVTX_PAYLOAD_SCHEMA_TYPE_STATIC);
    s = reg(r, &a);
    ck_assert_uint_eq(nvtxw_schema_static_size(in), sizeof(struct inner));
    ck_assert_uint_eq(nvtxw_schema_entry_offset(s, 1), offsetof(struct outer, in));
    ck_assert_uint_eq(nvtxw_schema_entry_offset(s, 2), offsetof(struct outer, pair));
    ck_assert_uint_eq(nvtxw_schema_entry_offset(s, 3), offsetof(struct outer, last));
    ck_assert_uint_eq(nvtxw_schema_static_size(s), sizeof(struct outer));
    /* Explicit offsets: entry 0 at 8, then a at 2, then c implicit after 12. */
    xe[0].offset = 8;
    xe[1].offset = 2;
    a = schema_attr(xe, 3, NVTX_PAYLOAD_SCHEMA_TYPE_STATIC);
    s = reg(r, &a);
    ck_assert_uint_eq(nvtxw_schema_entry_offset(s, 0), 8);
    ck_assert_uint_eq(nvtxw_schema_entry_offset(s, 1), 2);
    ck_assert_uint_eq(nvtxw_schema_entry_offset(s, 2), 16);
    ck_assert_uint_eq(nvtxw_schema_static_size(s), 24);
    /* Given static size larger than needed is kept. */
    a.fieldMask |= NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_STATIC_SIZE;
    a.payloadStaticSize = 40;
    ck_assert_uint_eq(nvtxw_schema_static_size(reg(r, &a)), 40);
    nvtxw_schema_registry_destroy(r);
}
END_TEST

START_TEST(layout_unions) {
    nvtxw_schema_registry_t* r = nvtxw_schema_registry_create();
    nvtxPayloadSchemaEntry_t ue[] = {E(INT8, "b"), E(DOUBLE, "d"), E(CSTRING, "s")};
    nvtxPayloadSchemaEntry_t ie[] = {E(INT32, "i"), E(UNION_SELECTOR, "sel"), E(INT64, "l")};
    nvtxPayloadSchemaAttr_t a = schema_attr(ue, 3, NVTX_PAYLOAD_SCHEMA_TYPE_UNION);
    const nvtxw_schema_t* s;
    ue[2].arrayOrUnionDetail = 12;
    s = reg(r, &a);
    ck_assert_uint_eq(nvtxw_schema_entry_offset(s, 2), 0);
    ck_assert_uint_eq(nvtxw_schema_static_size(s), 16);
    ck_assert_uint_eq(nvtxw_schema_alignment(s), 8);
    ie[1].arrayOrUnionDetail = 2;
    a = schema_attr(ie, 3, NVTX_PAYLOAD_SCHEMA_TYPE_UNION_WITH_INTERNAL_SELECTOR);
    s = reg(r, &a);
    ck_assert_uint_eq(nvtxw_schema_entry_offset(s, 1), 0);
    ck_assert_uint_eq(nvtxw_schema_entry_offset(s, 0), 8);
    ck_assert_uint_eq(nvtxw_schema_entry_offset(s, 2), 8);
    ck_assert_uint_eq(nvtxw_schema_static_size(s), 16);
    nvtxw_schema_registry_destroy(r);
}
END_TEST

START_TEST(variable_size) {
    nvtxw_schema_registry_t* r = nvtxw_schema_registry_create();
    nvtxPayloadSchemaEntry_t de[] = {E(UINT32, "n"), E(INT16, "v"), E(INT64, "after"),
                                     E(INT8, "explicit")};
    nvtxPayloadSchemaAttr_t a = schema_attr(de, 4, NVTX_PAYLOAD_SCHEMA_TYPE_DYNAMIC);
    const nvtxw_schema_t* s;
    const nvtxw_schema_t* fixed;
    nvtxPayloadSchemaEntry_t pe[] = {E(INT32, "p")};
    de[1].flags = NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_INDEX;
    de[1].arrayOrUnionDetail = 0;
    de[3].offset = 2;
    s = reg(r, &a);
    ck_assert_int_ne(nvtxw_schema_is_variable_size(s), 0);
    ck_assert_uint_eq(nvtxw_schema_entry_offset(s, 1), 4);
    ck_assert_uint_eq(nvtxw_schema_entry_offset(s, 2), SIZE_MAX);
    ck_assert_uint_eq(nvtxw_schema_entry_offset(s, 3), 2);
    /* A pointer to variable data keeps the schema fixed-size. */
    pe[0].flags = NVTX_PAYLOAD_ENTRY_FLAG_POINTER | NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_ZERO_TERMINATED;
    a = schema_attr(pe, 1, NVTX_PAYLOAD_SCHEMA_TYPE_STATIC);
    fixed = reg(r, &a);
    ck_assert_int_eq(nvtxw_schema_is_variable_size(fixed), 0);
    ck_assert_uint_eq(nvtxw_schema_static_size(fixed), sizeof(void*));
    a = schema_attr(pe, 1, NVTX_PAYLOAD_SCHEMA_TYPE_DYNAMIC);
    ck_assert_int_eq(nvtxw_schema_is_variable_size(reg(r, &a)), 0);
    nvtxw_schema_registry_destroy(r);
}
END_TEST

static void compare_attr(const nvtxPayloadSchemaAttr_t* x, const nvtxPayloadSchemaAttr_t* y) {
    size_t i;
    ck_assert_uint_eq(x->type, y->type);
    ck_assert_uint_eq(x->flags, y->flags);
    ck_assert_uint_eq(x->numEntries, y->numEntries);
    ck_assert_uint_eq(x->payloadStaticSize, y->payloadStaticSize);
    ck_assert_uint_eq(x->packAlign, y->packAlign);
    ck_assert_str_eq(x->name, y->name);
    for (i = 0; i < x->numEntries; i++) {
        const nvtxPayloadSchemaEntry_t* a = &x->entries[i];
        const nvtxPayloadSchemaEntry_t* b = &y->entries[i];
        ck_assert_uint_eq(a->flags, b->flags);
        ck_assert_uint_eq(a->type, b->type);
        ck_assert_uint_eq(a->offset, b->offset);
        ck_assert_uint_eq(a->arrayOrUnionDetail, b->arrayOrUnionDetail);
        ck_assert_str_eq(a->name, b->name);
        ck_assert_int_eq(a->description == NULL, b->description == NULL);
    }
}

START_TEST(get_attr_round_trip) {
    nvtxw_schema_registry_t* r = nvtxw_schema_registry_create();
    nvtxw_schema_registry_t* r2 = nvtxw_schema_registry_create();
    nvtxSemanticsTime_t time = {{sizeof time, NVTX_SEMANTIC_ID_TIME_V1, 1, NULL}, 77};
    nvtxPayloadSchemaEntry_t es[] = {E(INT64, "ts"), E(UINT32, "n"), E(FLOAT, "v")};
    nvtxPayloadSchemaAttr_t a = schema_attr(es, 3, NVTX_PAYLOAD_SCHEMA_TYPE_DYNAMIC);
    nvtxPayloadSchemaAttr_t got;
    nvtxPayloadSchemaAttr_t got2;
    const nvtxw_schema_t* s;
    const nvtxw_schema_t* s2;
    uint64_t id;
    es[0].semantics = &time.header;
    es[0].flags = NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP;
    es[0].description = "time";
    es[2].flags = NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_INDEX;
    es[2].arrayOrUnionDetail = 1;
    a.fieldMask |= NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NAME | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_FLAGS |
                   NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_SCHEMA_ID;
    a.name = "rt";
    a.flags = NVTX_PAYLOAD_SCHEMA_FLAG_MARK;
    a.schemaId = 30000000;
    ck_assert_int_eq(nvtxw_schema_registry_add_schema(r, &a, NULL), NVTXW_RESULT_SUCCESS);
    s = nvtxw_schema_registry_find_schema(r, 30000000);
    nvtxw_schema_get_attr(s, &got);
    ck_assert_uint_eq(got.schemaId, 30000000);
    ck_assert(got.fieldMask & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_SCHEMA_ID);
    compare_attr(&a, &got);
    ck_assert_ptr_nonnull(got.entries[0].semantics);
    ck_assert_uint_eq(((const nvtxSemanticsTime_t*)got.entries[0].semantics)->timeDomainId, 77);
    ck_assert_int_eq(nvtxw_schema_registry_add_schema(r2, &got, &id), NVTXW_RESULT_SUCCESS);
    s2 = nvtxw_schema_registry_find_schema(r2, 30000000);
    ck_assert_ptr_nonnull(s2);
    nvtxw_schema_get_attr(s2, &got2);
    compare_attr(&got, &got2);
    ck_assert_str_eq(nvtxw_schema_name(s2), "rt");
    nvtxw_schema_registry_destroy(r);
    nvtxw_schema_registry_destroy(r2);
}
END_TEST

START_TEST(inputs_are_copied) {
    nvtxw_schema_registry_t* r = nvtxw_schema_registry_create();
    char name[16] = "original";
    char field[16] = "field";
    nvtxPayloadEnum_t en[2] = {{NULL, 1, 0}, {NULL, 2, 1}};
    char ename[2][8] = {"ONE", "TWO"};
    nvtxPayloadEnumAttr_t ea = enum_attr();
    nvtxPayloadSchemaEntry_t* es = calloc(2, sizeof *es);
    nvtxPayloadSchemaAttr_t a = schema_attr(es, 2, NVTX_PAYLOAD_SCHEMA_TYPE_STATIC);
    nvtxPayloadSchemaAttr_t got;
    nvtxPayloadEnumAttr_t egot;
    uint64_t id, eid;
    en[0].name = ename[0];
    en[1].name = ename[1];
    ea.entries = en;
    ea.numEntries = 2;
    ck_assert_int_eq(nvtxw_schema_registry_add_enum(r, &ea, &eid), NVTXW_RESULT_SUCCESS);
    es[0].type = NVTX_PAYLOAD_ENTRY_TYPE_INT32;
    es[0].name = field;
    es[1].type = eid;
    a.fieldMask |= NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NAME;
    a.name = name;
    ck_assert_int_eq(nvtxw_schema_registry_add_schema(r, &a, &id), NVTXW_RESULT_SUCCESS);
    memset(name, 'X', sizeof name - 1);
    memset(field, 'Y', sizeof field - 1);
    memset(ename, 'Z', sizeof ename);
    memset(es, 0xAB, 2 * sizeof *es);
    free(es);
    memset(en, 0xCD, sizeof en);
    nvtxw_schema_get_attr(nvtxw_schema_registry_find_schema(r, id), &got);
    ck_assert_str_eq(got.name, "original");
    ck_assert_str_eq(got.entries[0].name, "field");
    ck_assert_uint_eq(got.entries[1].type, eid);
    nvtxw_enum_get_attr(nvtxw_schema_registry_find_enum(r, eid), &egot);
    ck_assert_str_eq(egot.entries[0].name, "ONE");
    ck_assert_uint_eq(egot.entries[1].value, 2);
    nvtxw_schema_registry_destroy(r);
}
END_TEST

/* Registers a nested schema with names, semantics and an enum; returns the
 * first failing result or success. */
static nvtxwResultCode_t build_all(nvtxw_schema_registry_t* r) {
    nvtxSemanticsCounter_t counter;
    nvtxSemanticsScope_t scope = {{sizeof scope, NVTX_SEMANTIC_ID_SCOPE_V1, 1, NULL}, 5};
    nvtxPayloadSchemaEntry_t ie[] = {E(INT16, "a"), E(CSTRING_UTF8, "s")};
    nvtxPayloadSchemaEntry_t oe[] = {E(UINT32, "n"), E(INT32, "in"), E(INT32, "e")};
    nvtxPayloadSchemaAttr_t a = schema_attr(ie, 2, NVTX_PAYLOAD_SCHEMA_TYPE_STATIC);
    nvtxPayloadEnumAttr_t ea = enum_attr();
    uint64_t in_id, e_id, out_id;
    nvtxwResultCode_t rc;
    memset(&counter, 0, sizeof counter);
    counter.header.structSize = sizeof counter;
    counter.header.semanticId = NVTX_SEMANTIC_ID_COUNTERS_V1;
    counter.header.next = &scope.header;
    counter.unit = "bytes";
    ie[1].arrayOrUnionDetail = 8;
    ie[0].semantics = &counter.header;
    ie[0].description = "desc";
    a.fieldMask |= NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NAME;
    a.name = "inner";
    rc = nvtxw_schema_registry_add_schema(r, &a, &in_id);
    if (rc != NVTXW_RESULT_SUCCESS)
        return rc;
    ea.fieldMask |= NVTX_PAYLOAD_ENUM_ATTR_FIELD_NAME;
    ea.name = "colors";
    rc = nvtxw_schema_registry_add_enum(r, &ea, &e_id);
    if (rc != NVTXW_RESULT_SUCCESS)
        return rc;
    oe[1].type = in_id;
    oe[1].flags = NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_INDEX;
    oe[2].type = e_id;
    a = schema_attr(oe, 3, NVTX_PAYLOAD_SCHEMA_TYPE_DYNAMIC);
    return nvtxw_schema_registry_add_schema(r, &a, &out_id);
}

START_TEST(alloc_failure_sweep) {
    long n;
    int succeeded = 0;
    for (n = 0; n < 1000 && !succeeded; n++) {
        nvtxw_schema_registry_t* r;
        nvtxwResultCode_t rc;
        nvtxw_alloc_fail_after(n);
        r = nvtxw_schema_registry_create();
        if (r == NULL) {
            nvtxw_alloc_fail_after(-1);
            continue;
        }
        rc = build_all(r);
        nvtxw_alloc_fail_after(-1);
        if (rc == NVTXW_RESULT_SUCCESS) {
            succeeded = 1;
            ck_assert_uint_eq(nvtxw_schema_registry_count(r), 3);
        } else {
            ck_assert_int_eq(rc, NVTXW_RESULT_FAILED);
            ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "memory"));
            ck_assert_uint_lt(nvtxw_schema_registry_count(r), 3);
        }
        nvtxw_schema_registry_destroy(r);
    }
    ck_assert_int_eq(succeeded, 1);
    ck_assert_int_gt(n, 10);
}
END_TEST

START_TEST(entry_type_table) {
    ck_assert_uint_eq(nvtxw_entry_type_size(NVTX_PAYLOAD_ENTRY_TYPE_INT64), 8);
    ck_assert_uint_eq(nvtxw_entry_type_size(NVTX_PAYLOAD_ENTRY_TYPE_LONG), sizeof(long));
    ck_assert_uint_eq(nvtxw_entry_type_size(NVTX_PAYLOAD_ENTRY_TYPE_LONGDOUBLE),
                      sizeof(long double));
    ck_assert_uint_eq(nvtxw_entry_type_align(NVTX_PAYLOAD_ENTRY_TYPE_LONGDOUBLE),
                      _Alignof(long double));
    ck_assert_uint_eq(nvtxw_entry_type_size(NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF16), sizeof(void*));
    ck_assert_uint_eq(nvtxw_entry_type_size(NVTX_PAYLOAD_ENTRY_TYPE_FLOAT16), 2);
    ck_assert_uint_eq(nvtxw_entry_type_size(NVTX_PAYLOAD_ENTRY_TYPE_TF32), 4);
    ck_assert_uint_eq(nvtxw_entry_type_size(NVTX_PAYLOAD_ENTRY_TYPE_CATEGORY), 4);
    ck_assert_uint_eq(nvtxw_entry_type_size(NVTX_PAYLOAD_ENTRY_TYPE_UNION_SELECTOR), 0);
    ck_assert_uint_eq(nvtxw_entry_type_size(28), 0);
    ck_assert_str_eq(nvtxw_entry_type_name(NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF8), "CSTRING_UTF8");
    ck_assert_str_eq(nvtxw_entry_type_name(NVTX_PAYLOAD_ENTRY_TYPE_INT64), "INT64");
    ck_assert_ptr_null(nvtxw_entry_type_name(1022));
}
END_TEST

int main(void) {
    Suite* s = suite_create("registry");
    TCase* tc = tcase_create("core");
    tcase_add_test(tc, static_id_ranges);
    tcase_add_test(tc, id_reuse_rejected);
    tcase_add_test(tc, dynamic_ids_and_id_out);
    tcase_add_test(tc, required_fields);
    tcase_add_test(tc, layout_natural);
    tcase_add_test(tc, layout_pack_align);
    tcase_add_test(tc, layout_nested_and_explicit);
    tcase_add_test(tc, layout_unions);
    tcase_add_test(tc, variable_size);
    tcase_add_test(tc, get_attr_round_trip);
    tcase_add_test(tc, inputs_are_copied);
    tcase_add_test(tc, alloc_failure_sweep);
    tcase_add_test(tc, entry_type_table);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
