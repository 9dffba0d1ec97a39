/*
 * tests/unit/malformed_test.c - malformed schemas and payloads: each case
 * asserts the result code and that nvtxw_last_error() names the entry (for
 * schemas) or the payload index and field path (for payloads).
 */
#define _POSIX_C_SOURCE 200809L /* test_util.h */
#include <check.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "nvtxw/error.h"
#include "nvtxw/payload.h"
#include "test_util.h"
#include "visit_recorder.h"

#define EF(type, name, flags, detail)                                                              \
    { flags, type, name, NULL, detail, 0, NULL, NULL }
#define FIXED NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_FIXED_SIZE
#define ZT NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_ZERO_TERMINATED
#define LI NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_INDEX
#define LPI NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_PAYLOAD_INDEX
#define PTR NVTX_PAYLOAD_ENTRY_FLAG_POINTER
#define T(x) NVTX_PAYLOAD_ENTRY_TYPE_##x
#define STATIC NVTX_PAYLOAD_SCHEMA_TYPE_STATIC
#define DYNAMIC NVTX_PAYLOAD_SCHEMA_TYPE_DYNAMIC
#define UNION NVTX_PAYLOAD_SCHEMA_TYPE_UNION
#define IUNION NVTX_PAYLOAD_SCHEMA_TYPE_UNION_WITH_INTERNAL_SELECTOR
#define N(a) (sizeof(a) / sizeof((a)[0]))
#define INV NVTXW_RESULT_INVALID_ARGUMENT

static nvtxw_schema_registry_t* reg;

static void setup(void) { reg = nvtxw_schema_registry_create(); }
static void teardown(void) { nvtxw_schema_registry_destroy(reg); }

static nvtxPayloadSchemaAttr_t attr_of(const nvtxPayloadSchemaEntry_t* es, size_t n,
                                       uint64_t type) {
    nvtxPayloadSchemaAttr_t a;
    memset(&a, 0, sizeof a);
    a.fieldMask = NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES |
                  NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES;
    a.type = type;
    a.entries = es;
    a.numEntries = n;
    return a;
}

static uint64_t ok(const nvtxPayloadSchemaEntry_t* es, size_t n, uint64_t type) {
    nvtxPayloadSchemaAttr_t a = attr_of(es, n, type);
    uint64_t id = 0;
    ck_assert_msg(nvtxw_schema_registry_add_schema(reg, &a, &id) == NVTXW_RESULT_SUCCESS, "%s",
                  nvtxw_last_error());
    return id;
}

static void has(const char* needle) {
    ck_assert_msg(strstr(nvtxw_last_error(), needle) != NULL, "\"%s\" not in \"%s\"", needle,
                  nvtxw_last_error());
}

/* Registration must fail with `code`; the message must hold both needles. */
static void bad_attr(const nvtxPayloadSchemaAttr_t* a, nvtxwResultCode_t code, const char* n1,
                     const char* n2) {
    uint64_t id = 0;
    size_t before = nvtxw_schema_registry_count(reg);
    ck_assert_int_eq(nvtxw_schema_registry_add_schema(reg, a, &id), code);
    ck_assert_uint_eq(nvtxw_schema_registry_count(reg), before);
    has(n1);
    if (n2)
        has(n2);
}

static void bad_schema(const nvtxPayloadSchemaEntry_t* es, size_t n, uint64_t type, const char* n1,
                       const char* n2) {
    nvtxPayloadSchemaAttr_t a = attr_of(es, n, type);
    bad_attr(&a, INV, n1, n2);
}

/* ---- schema errors --------------------------------------------------- */

START_TEST(s_unknown_type) {
    nvtxPayloadSchemaEntry_t es[] = {EF(999, "x", 0, 0)};
    bad_schema(es, 1, STATIC, "entry 0 \"x\"", "unknown entry type 999");
}
END_TEST
START_TEST(s_invalid_type) {
    nvtxPayloadSchemaEntry_t es[] = {EF(T(INT8), "a", 0, 0), EF(0, "bad", 0, 0)};
    bad_schema(es, 2, STATIC, "entry 1 \"bad\"", "unknown entry type 0");
}
END_TEST
START_TEST(s_nested_unregistered) {
    nvtxPayloadSchemaEntry_t es[] = {EF(40000000, "n", 0, 0)};
    bad_schema(es, 1, STATIC, "entry 0 \"n\"", "registered earlier");
}
END_TEST
START_TEST(s_li_not_earlier) {
    nvtxPayloadSchemaEntry_t es[] = {EF(T(INT8), "a", 0, 0), EF(T(INT8), "b", 0, 0),
                                     EF(T(INT32), "values", LI, 5)};
    bad_schema(es, 3, DYNAMIC, "entry 2 \"values\"",
               "array length index 5 is not an earlier entry");
}
END_TEST
START_TEST(s_li_self) {
    nvtxPayloadSchemaEntry_t es[] = {EF(T(INT32), "self", LI, 0)};
    bad_schema(es, 1, DYNAMIC, "entry 0 \"self\"", "not an earlier entry");
}
END_TEST
START_TEST(s_li_float_source) {
    nvtxPayloadSchemaEntry_t es[] = {EF(T(FLOAT), "f", 0, 0), EF(T(INT32), "v", LI, 0)};
    bad_schema(es, 2, DYNAMIC, "entry 1 \"v\"", "not an embedded integer");
}
END_TEST
START_TEST(s_li_pointer_source) {
    nvtxPayloadSchemaEntry_t es[] = {EF(T(INT32), "p", PTR, 0), EF(T(INT32), "v", LI, 0)};
    bad_schema(es, 2, DYNAMIC, "entry 1 \"v\"", "not an embedded integer");
}
END_TEST
START_TEST(s_li_too_many_dims) {
    nvtxPayloadSchemaEntry_t es[] = {EF(T(UINT8), "d", FIXED, 9), EF(T(INT32), "v", LI, 0)};
    bad_schema(es, 2, DYNAMIC, "entry 1 \"v\"", "9 dimensions");
}
END_TEST
START_TEST(s_li_string_array_source) {
    nvtxPayloadSchemaEntry_t es[] = {EF(T(UINT8), "d", FIXED, 2), EF(T(CSTRING), "s", LI, 0)};
    bad_schema(es, 2, DYNAMIC, "entry 1 \"s\"", "string length entry 0 is an array");
}
END_TEST
START_TEST(s_zt_in_static) {
    nvtxPayloadSchemaEntry_t es[] = {EF(T(INT32), "a", ZT, 0)};
    bad_schema(es, 1, STATIC, "entry 0 \"a\"", "only allowed in DYNAMIC");
}
END_TEST
START_TEST(s_li_in_static) {
    nvtxPayloadSchemaEntry_t es[] = {EF(T(INT32), "n", 0, 0), EF(T(INT32), "a", LI, 0)};
    bad_schema(es, 2, STATIC, "entry 1 \"a\"", "only allowed in DYNAMIC");
}
END_TEST
START_TEST(s_lpi_string_in_static) {
    nvtxPayloadSchemaEntry_t es[] = {EF(T(CSTRING_UTF8), "m", LPI, 1)};
    bad_schema(es, 1, STATIC, "entry 0 \"m\"", "only allowed in DYNAMIC");
}
END_TEST
START_TEST(s_array_of_union) {
    nvtxPayloadSchemaEntry_t ue[] = {EF(T(INT32), "i", 0, 0)};
    uint64_t u = ok(ue, 1, UNION);
    nvtxPayloadSchemaEntry_t es[] = {EF(T(INT32), "sel", 0, 0), EF(u, "us", FIXED, 2)};
    bad_schema(es, 2, STATIC, "entry 1 \"us\"", "arrays of UNION");
}
END_TEST
START_TEST(s_union_selector_not_earlier) {
    nvtxPayloadSchemaEntry_t ue[] = {EF(T(INT32), "i", 0, 0)};
    uint64_t u = ok(ue, 1, UNION);
    nvtxPayloadSchemaEntry_t es[] = {EF(u, "u", 0, 0), EF(T(INT32), "sel", 0, 0)};
    bad_schema(es, 2, STATIC, "entry 0 \"u\"", "selector index 0 is not an earlier entry");
}
END_TEST
START_TEST(s_union_selector_not_integer) {
    nvtxPayloadSchemaEntry_t ue[] = {EF(T(INT32), "i", 0, 0)};
    uint64_t u = ok(ue, 1, UNION);
    nvtxPayloadSchemaEntry_t es[] = {EF(T(DOUBLE), "sel", 0, 0), EF(u, "u", 0, 0)};
    bad_schema(es, 2, STATIC, "entry 1 \"u\"", "not an embedded integer");
}
END_TEST
START_TEST(s_array_of_dynamic) {
    nvtxPayloadSchemaEntry_t de[] = {EF(T(INT32), "i", 0, 0)};
    uint64_t d = ok(de, 1, DYNAMIC);
    nvtxPayloadSchemaEntry_t es[] = {EF(d, "ds", FIXED, 2)};
    bad_schema(es, 1, DYNAMIC, "entry 0 \"ds\"", "arrays of DYNAMIC schemas");
}
END_TEST
START_TEST(s_fixed_zero) {
    nvtxPayloadSchemaEntry_t es[] = {EF(T(INT32), "z", FIXED, 0)};
    bad_schema(es, 1, STATIC, "entry 0 \"z\"", "fixed-size array with length 0");
}
END_TEST
START_TEST(s_fixed_string_zero) {
    nvtxPayloadSchemaEntry_t es[] = {EF(T(CSTRING_UTF16), "s", FIXED, 0)};
    bad_schema(es, 1, STATIC, "entry 0 \"s\"", "fixed-size string with length 0");
}
END_TEST
START_TEST(s_pointer_and_offset) {
    nvtxPayloadSchemaEntry_t es[] = {
        EF(T(INT32), "po", PTR | NVTX_PAYLOAD_ENTRY_FLAG_OFFSET_FROM_BASE, 0)};
    bad_schema(es, 1, STATIC, "entry 0 \"po\"", "combine POINTER");
}
END_TEST
START_TEST(s_bad_array_kind) {
    nvtxPayloadSchemaEntry_t es[] = {EF(T(INT32), "k", 0x50, 1)};
    bad_schema(es, 1, STATIC, "entry 0 \"k\"", "unknown array kind 0x50");
}
END_TEST
START_TEST(s_internal_union_no_selector) {
    nvtxPayloadSchemaEntry_t es[] = {EF(T(INT32), "a", 0, 0), EF(T(INT8), "b", 0, 0)};
    bad_schema(es, 2, IUNION, "UNION_SELECTOR", NULL);
}
END_TEST
START_TEST(s_internal_union_two_selectors) {
    nvtxPayloadSchemaEntry_t es[] = {EF(T(UNION_SELECTOR), "s1", 0, 4), EF(T(INT8), "m", 0, 0),
                                     EF(T(UNION_SELECTOR), "s2", 0, 4)};
    bad_schema(es, 3, IUNION, "entry 2 \"s2\"", "second UNION_SELECTOR");
}
END_TEST
START_TEST(s_static_size_too_small) {
    nvtxPayloadSchemaEntry_t es[] = {EF(T(INT64), "a", 0, 0), EF(T(INT64), "b", 0, 0)};
    nvtxPayloadSchemaAttr_t a = attr_of(es, 2, STATIC);
    a.fieldMask |= NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_STATIC_SIZE | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NAME;
    a.payloadStaticSize = 12;
    a.name = "small";
    bad_attr(&a, INV, "schema \"small\"", "payloadStaticSize 12 is smaller than the 16 bytes");
}
END_TEST
START_TEST(s_union_member_variable) {
    nvtxPayloadSchemaEntry_t es[] = {EF(T(INT32), "a", 0, 0), EF(T(INT8), "zt", ZT, 0)};
    bad_schema(es, 2, UNION, "entry 1 \"zt\"", "union members must have a fixed size");
}
END_TEST
START_TEST(s_union_in_union) {
    nvtxPayloadSchemaEntry_t ue[] = {EF(T(INT32), "i", 0, 0)};
    uint64_t u = ok(ue, 1, UNION);
    nvtxPayloadSchemaEntry_t es[] = {EF(T(INT32), "a", 0, 0), EF(u, "inner", 0, 0)};
    bad_schema(es, 2, UNION, "entry 1 \"inner\"", "cannot be a union member");
}
END_TEST
START_TEST(s_selector_array) {
    nvtxPayloadSchemaEntry_t es[] = {EF(T(UNION_SELECTOR), "sels", FIXED, 2)};
    bad_schema(es, 1, STATIC, "entry 0 \"sels\"", "arrays of UNION_SELECTOR");
}
END_TEST
START_TEST(s_pack_align_not_pow2) {
    nvtxPayloadSchemaEntry_t es[] = {EF(T(INT32), "a", 0, 0)};
    nvtxPayloadSchemaAttr_t a = attr_of(es, 1, STATIC);
    a.fieldMask |= NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ALIGNMENT;
    a.packAlign = 3;
    bad_attr(&a, INV, "packAlign 3", NULL);
}
END_TEST
START_TEST(s_schema_type) {
    nvtxPayloadSchemaEntry_t es[] = {EF(T(INT32), "a", 0, 0)};
    bad_schema(es, 1, 7, "unknown schema type 7", NULL);
}
END_TEST
START_TEST(s_name_null) {
    nvtxPayloadSchemaEntry_t es[] = {EF(T(INT32), "a", 0, 0)};
    nvtxPayloadSchemaAttr_t a = attr_of(es, 1, STATIC);
    a.fieldMask |= NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NAME;
    bad_attr(&a, INV, "NAME bit set but name is NULL", NULL);
}
END_TEST
START_TEST(s_no_entries) {
    nvtxPayloadSchemaEntry_t es[] = {EF(T(INT32), "a", 0, 0)};
    nvtxPayloadSchemaAttr_t a = attr_of(es, 0, STATIC);
    bad_attr(&a, INV, "numEntries=0", NULL);
    a = attr_of(NULL, 1, STATIC);
    bad_attr(&a, INV, "entries=", NULL);
}
END_TEST
START_TEST(s_semantics_too_small) {
    nvtxSemanticsHeader_t h = {8, NVTX_SEMANTIC_ID_TIME_V1, 1, NULL};
    nvtxPayloadSchemaEntry_t es[] = {EF(T(INT64), "ts", 0, 0)};
    es[0].semantics = &h;
    bad_schema(es, 1, STATIC, "entry 0", "structSize 8");
}
END_TEST
START_TEST(s_semantics_cycle) {
    nvtxSemanticsHeader_t h = {16, 99, 1, NULL};
    nvtxPayloadSchemaEntry_t es[] = {EF(T(INT64), "ts", 0, 0)};
    h.next = &h;
    es[0].semantics = &h;
    bad_schema(es, 1, STATIC, "entry 0", "semantics chain longer");
}
END_TEST
START_TEST(s_offset_too_large) {
    nvtxPayloadSchemaEntry_t es[] = {EF(T(INT64), "far", 0, 0)};
    es[0].offset = UINT64_MAX - 2;
    bad_schema(es, 1, STATIC, "entry 0 \"far\"", "too large");
}
END_TEST
START_TEST(s_fixed_overflow) {
    nvtxPayloadSchemaEntry_t es[] = {EF(T(INT64), "huge", FIXED, UINT64_MAX / 4)};
    bad_schema(es, 1, STATIC, "entry 0 \"huge\"", "overflows");
}
END_TEST
START_TEST(s_referenced_as_entry) {
    nvtxPayloadSchemaEntry_t es[] = {EF(NVTX_TYPE_PAYLOAD_SCHEMA_REFERENCED, "r", 0, 0)};
    bad_schema(es, 1, STATIC, "entry 0 \"r\"", "unknown entry type 1022");
}
END_TEST
START_TEST(s_nesting_too_deep) {
    nvtxPayloadSchemaEntry_t es[] = {EF(T(INT8), "leaf", 0, 0)};
    uint64_t id = ok(es, 1, STATIC);
    int k;
    for (k = 1; k < 32; k++) {
        es[0] = (nvtxPayloadSchemaEntry_t)EF(id, "in", 0, 0);
        id = ok(es, 1, STATIC);
    }
    es[0] = (nvtxPayloadSchemaEntry_t)EF(id, "in", 0, 0);
    bad_schema(es, 1, STATIC, "nesting depth 33", NULL);
}
END_TEST
START_TEST(s_enum_errors) {
    nvtxPayloadEnum_t ev[] = {{"A", 1, 0}};
    nvtxPayloadEnumAttr_t a = {NVTX_PAYLOAD_ENUM_ATTR_FIELD_ENTRIES |
                                   NVTX_PAYLOAD_ENUM_ATTR_FIELD_NUM_ENTRIES |
                                   NVTX_PAYLOAD_ENUM_ATTR_FIELD_SIZE,
                               NULL,
                               ev,
                               1,
                               3,
                               0,
                               NULL};
    uint64_t id;
    ck_assert_int_eq(nvtxw_schema_registry_add_enum(reg, &a, &id), INV);
    has("sizeOfEnum 3");
    a.sizeOfEnum = 0;
    ck_assert_int_eq(nvtxw_schema_registry_add_enum(reg, &a, &id), INV);
    has("sizeOfEnum 0");
    a.sizeOfEnum = 4;
    a.fieldMask |= NVTX_PAYLOAD_ENUM_ATTR_FIELD_NAME;
    ck_assert_int_eq(nvtxw_schema_registry_add_enum(reg, &a, &id), INV);
    has("NAME bit set");
    a.fieldMask &= ~(uint64_t)NVTX_PAYLOAD_ENUM_ATTR_FIELD_NAME;
    a.entries = NULL;
    ck_assert_int_eq(nvtxw_schema_registry_add_enum(reg, &a, &id), INV);
    has("entries=");
    a.entries = ev;
    a.fieldMask |= NVTX_PAYLOAD_ENUM_ATTR_FIELD_SCHEMA_ID;
    a.schemaId = 5;
    ck_assert_int_eq(nvtxw_schema_registry_add_enum(reg, &a, &id), INV);
    has("static ID 5 outside");
    ck_assert_uint_eq(nvtxw_schema_registry_count(reg), 0);
}
END_TEST

/* ---- payload errors -------------------------------------------------- */

/* Visiting must fail with `code`; the message must hold every needle. */
static void bad_visit(const nvtxPayloadData_t* p, size_t n, nvtxwResultCode_t code, const char* n1,
                      const char* n2, const char* n3) {
    nvtxwResultCode_t rc;
    record(reg, p, n, &rc, NULL);
    ck_assert_msg(rc == code, "code %d, expected %d: %s", rc, code, nvtxw_last_error());
    has(n1);
    if (n2)
        has(n2);
    if (n3)
        has(n3);
}

START_TEST(p_static_short) {
    nvtxPayloadSchemaEntry_t es[] = {EF(T(INT64), "a", 0, 0), EF(T(INT64), "b", 0, 0)};
    uint64_t id = ok(es, 2, STATIC);
    int64_t v[2] = {1, 2};
    nvtxPayloadData_t p[2] = {{T(INT8), 1, v}, {id, 12, v}};
    bad_visit(p, 2, INV, "payload 1", "field \"b\"", "needs 8 bytes at offset 8, payload has 12");
}
END_TEST
START_TEST(p_null_pointer) {
    nvtxPayloadData_t p = {T(INT32), 4, NULL};
    bad_visit(&p, 1, INV, "payload 0", "pointer is NULL", NULL);
}
END_TEST
START_TEST(p_size_max_numeric) {
    int32_t v = 1;
    nvtxPayloadData_t p = {T(INT32), SIZE_MAX, &v};
    bad_visit(&p, 1, INV, "payload 0", "SIZE_MAX", NULL);
}
END_TEST
START_TEST(p_size_max_schema) {
    nvtxPayloadSchemaEntry_t es[] = {EF(T(INT32), "a", 0, 0)};
    uint64_t id = ok(es, 1, STATIC);
    int32_t v = 1;
    nvtxPayloadData_t p = {id, SIZE_MAX, &v};
    bad_visit(&p, 1, INV, "payload 0", "SIZE_MAX", NULL);
}
END_TEST
START_TEST(p_unknown_schema) {
    int32_t v = 1;
    nvtxPayloadData_t p[2] = {{T(INT32), 4, &v}, {50000000, 4, &v}};
    bad_visit(p, 2, INV, "payload 1", "schema ID 50000000 is not registered", NULL);
}
END_TEST
START_TEST(p_enum_as_schema) {
    nvtxPayloadEnum_t ev[] = {{"A", 1, 0}};
    nvtxPayloadEnumAttr_t a = {NVTX_PAYLOAD_ENUM_ATTR_FIELD_ENTRIES |
                                   NVTX_PAYLOAD_ENUM_ATTR_FIELD_NUM_ENTRIES |
                                   NVTX_PAYLOAD_ENUM_ATTR_FIELD_SIZE,
                               NULL,
                               ev,
                               1,
                               4,
                               0,
                               NULL};
    uint64_t id;
    int32_t v = 1;
    nvtxPayloadData_t p;
    ck_assert_int_eq(nvtxw_schema_registry_add_enum(reg, &a, &id), NVTXW_RESULT_SUCCESS);
    p = (nvtxPayloadData_t){id, 4, &v};
    bad_visit(&p, 1, INV, "payload 0", "it is an enum", NULL);
}
END_TEST
START_TEST(p_unknown_predefined) {
    int32_t v = 1;
    nvtxPayloadData_t p = {28, 4, &v};
    bad_visit(&p, 1, INV, "payload 0", "unknown predefined type 28", NULL);
}
END_TEST
START_TEST(p_predefined_too_small) {
    int32_t v = 1;
    nvtxPayloadData_t p = {T(INT64), 4, &v};
    bad_visit(&p, 1, INV, "payload 0", "needs 8 bytes for one INT64, payload has 4", NULL);
}
END_TEST
START_TEST(p_utf16_too_small) {
    nvtxPayloadData_t p = {T(CSTRING_UTF16), 1, "x"};
    bad_visit(&p, 1, INV, "payload 0", "one code unit", NULL);
}
END_TEST
START_TEST(p_li_does_not_fit) {
    nvtxPayloadSchemaEntry_t es[] = {EF(T(UINT32), "n", 0, 0), EF(T(INT32), "values", LI, 0)};
    uint64_t id = ok(es, 2, DYNAMIC);
    uint32_t buf[3] = {1000000, 1, 2};
    nvtxPayloadData_t p = {id, sizeof buf, buf};
    bad_visit(&p, 1, INV, "payload 0", "field \"values\"", "array of 1000000 elements");
}
END_TEST
START_TEST(p_li_overflow) {
    nvtxPayloadSchemaEntry_t es[] = {EF(T(UINT64), "n", 0, 0), EF(T(INT64), "values", LI, 0)};
    uint64_t id = ok(es, 2, DYNAMIC);
    uint64_t buf[2] = {UINT64_MAX / 2, 0};
    nvtxPayloadData_t p = {id, sizeof buf, buf};
    bad_visit(&p, 1, INV, "payload 0", "field \"values\"", "does not fit");
}
END_TEST
START_TEST(p_md_overflow) {
    /* 2 x 2^63 elements: the product overflows 64 bits */
    nvtxPayloadSchemaEntry_t es[] = {EF(T(UINT64), "d", FIXED, 2), EF(T(INT8), "m", LI, 0)};
    uint64_t id = ok(es, 2, DYNAMIC);
    uint64_t buf[4] = {2, 1ull << 63, 0, 0};
    nvtxPayloadData_t p = {id, sizeof buf, buf};
    bad_visit(&p, 1, INV, "payload 0", "field \"m\"", "does not fit");
}
END_TEST
START_TEST(p_md_empty_rows) {
    /* {2^40, 0}: no bytes, but 2^40 empty rows would be events without end */
    nvtxPayloadSchemaEntry_t es[] = {EF(T(UINT64), "d", FIXED, 2), EF(T(INT8), "rows", LI, 0)};
    uint64_t id = ok(es, 2, DYNAMIC);
    uint64_t buf[2] = {1ull << 40, 0};
    nvtxPayloadData_t p = {id, sizeof buf, buf};
    bad_visit(&p, 1, INV, "payload 0", "field \"rows\"", "multiply to more than 4096 rows");
}
END_TEST
START_TEST(p_fixed_beyond_end) {
    nvtxPayloadSchemaEntry_t es[] = {EF(T(CSTRING_UTF8), "s", ZT, 0),
                                     EF(T(INT32), "tail", FIXED, 4)};
    uint64_t id = ok(es, 2, DYNAMIC);
    uint8_t buf[8] = {'a', 0, 0, 0, 1, 0, 0, 0};
    nvtxPayloadData_t p = {id, sizeof buf, buf};
    bad_visit(&p, 1, INV, "payload 0", "field \"tail\"", "does not fit");
}
END_TEST
START_TEST(p_pointer_nowhere) {
    nvtxPayloadSchemaEntry_t es[] = {EF(T(CSTRING_UTF8), "name", PTR, 0)};
    uint64_t id = ok(es, 1, STATIC);
    const char* s = "elsewhere";
    nvtxPayloadData_t p = {id, sizeof s, &s};
    bad_visit(&p, 1, INV, "payload 0", "field \"name\"", "points into no payload");
}
END_TEST
START_TEST(p_pointer_target_short) {
    nvtxPayloadSchemaEntry_t es[] = {EF(T(CSTRING_UTF8), "name", PTR, 8)};
    uint64_t id = ok(es, 1, STATIC);
    char blob[4] = "abc";
    const char* s = blob + 1;
    nvtxPayloadData_t p[2] = {{id, sizeof s, &s}, {NVTX_TYPE_PAYLOAD_SCHEMA_REFERENCED, 4, blob}};
    bad_visit(p, 2, INV, "field \"name\"", "needs 8 bytes at offset 1, payload 1 has 4", NULL);
}
END_TEST
START_TEST(p_array_path) {
    nvtxPayloadSchemaEntry_t ie[] = {EF(T(CSTRING_UTF8), "name", PTR, 0)};
    uint64_t in = ok(ie, 1, STATIC);
    nvtxPayloadSchemaEntry_t oe[] = {EF(in, "ops", FIXED, 2)};
    uint64_t id = ok(oe, 1, STATIC);
    char blob[4] = "ok";
    const char* ptrs[2] = {blob, "bad"};
    nvtxPayloadData_t p[2] = {{NVTX_TYPE_PAYLOAD_SCHEMA_REFERENCED, 4, blob},
                              {id, sizeof ptrs, ptrs}};
    bad_visit(p, 2, INV, "payload 1", "field \"ops[1].name\"", "points into no payload");
}
END_TEST
START_TEST(p_union_selector_range) {
    nvtxPayloadSchemaEntry_t ue[] = {EF(T(INT32), "i", 0, 0), EF(T(FLOAT), "f", 0, 0)};
    uint64_t u = ok(ue, 2, UNION);
    nvtxPayloadSchemaEntry_t es[] = {EF(T(UINT32), "sel", 0, 0), EF(u, "val", 0, 0)};
    uint64_t id = ok(es, 2, STATIC);
    uint32_t buf[2] = {2, 0};
    nvtxPayloadData_t p = {id, sizeof buf, buf};
    bad_visit(&p, 1, INV, "payload 0", "field \"val\"", "union selector 2");
}
END_TEST
START_TEST(p_union_selector_negative) {
    /* A negative signed selector is invalid, not member 0. */
    nvtxPayloadSchemaEntry_t ue[] = {EF(T(INT32), "i", 0, 0), EF(T(FLOAT), "f", 0, 0)};
    uint64_t u = ok(ue, 2, UNION);
    nvtxPayloadSchemaEntry_t es[] = {EF(T(INT32), "sel", 0, 0), EF(u, "val", 0, 0)};
    uint64_t id = ok(es, 2, STATIC);
    int32_t buf[2] = {-1, 0};
    nvtxPayloadData_t p = {id, sizeof buf, buf};
    bad_visit(&p, 1, INV, "field \"val\"", "union selector -1", NULL);
}
END_TEST
START_TEST(s_entry_error_names_schema) {
    /* Entry errors name the schema as well as the entry. */
    nvtxPayloadSchemaEntry_t es[] = {EF(T(INT8), "a", 0, 0), EF(999, "bad", 0, 0)};
    nvtxPayloadSchemaAttr_t a = attr_of(es, 2, STATIC);
    nvtxSemanticsHeader_t tiny = {4, NVTX_SEMANTIC_ID_SCOPE_V1, 1, NULL};
    a.fieldMask |= NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NAME;
    a.name = "events";
    bad_attr(&a, INV, "cannot register schema \"events\": entry 1 \"bad\"",
             "unknown entry type 999");
    es[1] = (nvtxPayloadSchemaEntry_t)EF(T(INT8), "scoped", 0, 0);
    es[1].semantics = &tiny;
    bad_attr(&a, INV, "cannot register schema \"events\": entry 1 \"scoped\"", "structSize 4");
}
END_TEST
START_TEST(p_internal_selector_range) {
    nvtxPayloadSchemaEntry_t es[] = {EF(T(UNION_SELECTOR), "kind", 0, 4), EF(T(INT32), "i", 0, 0)};
    uint64_t id = ok(es, 2, IUNION);
    uint32_t buf[2] = {1, 0};
    nvtxPayloadData_t p = {id, sizeof buf, buf};
    bad_visit(&p, 1, INV, "payload 0", "union selector 1", "1 members");
}
END_TEST
START_TEST(p_union_as_payload) {
    nvtxPayloadSchemaEntry_t ue[] = {EF(T(INT32), "i", 0, 0)};
    uint64_t u = ok(ue, 1, UNION);
    int32_t v = 0;
    nvtxPayloadData_t p = {u, 4, &v};
    bad_visit(&p, 1, INV, "payload 0", "external selector cannot be a payload", NULL);
}
END_TEST
START_TEST(p_lpi_index_range) {
    nvtxPayloadSchemaEntry_t es[] = {EF(T(INT32), "v", LPI, 3)};
    uint64_t id = ok(es, 1, DYNAMIC);
    int32_t v[2] = {1, 2};
    nvtxPayloadData_t p = {id, sizeof v, v};
    bad_visit(&p, 1, INV, "field \"v\"", "length payload index 3, event has 1", NULL);
}
END_TEST
START_TEST(p_lpi_not_integer) {
    nvtxPayloadSchemaEntry_t es[] = {EF(T(INT32), "v", LPI, 1)};
    uint64_t id = ok(es, 1, DYNAMIC);
    int32_t v[2] = {1, 2};
    float f = 2;
    nvtxPayloadData_t p[2] = {{id, sizeof v, v}, {T(FLOAT), 4, &f}};
    bad_visit(p, 2, INV, "field \"v\"", "non-integer type 19", NULL);
}
END_TEST
START_TEST(p_lpi_too_many_dims) {
    nvtxPayloadSchemaEntry_t es[] = {EF(T(INT32), "v", LPI, 1)};
    uint64_t id = ok(es, 1, DYNAMIC);
    int32_t v[2] = {1, 2};
    uint8_t dims[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    nvtxPayloadData_t p[2] = {{id, sizeof v, v}, {T(UINT8), 9, dims}};
    bad_visit(p, 2, INV, "field \"v\"", "gives 9 dimensions", NULL);
}
END_TEST
START_TEST(p_lpi_empty_source) {
    nvtxPayloadSchemaEntry_t es[] = {EF(T(INT32), "v", LPI, 1)};
    uint64_t id = ok(es, 1, DYNAMIC);
    int32_t v[2] = {1, 2};
    nvtxPayloadData_t p[2] = {{id, sizeof v, v}, {T(UINT8), 0, v}};
    bad_visit(p, 2, INV, "field \"v\"", "length payload 1 is empty", NULL);
}
END_TEST
START_TEST(p_lpi_schema_source) {
    nvtxPayloadSchemaEntry_t two[] = {EF(T(INT32), "a", 0, 0), EF(T(INT32), "b", 0, 0)};
    uint64_t src = ok(two, 2, STATIC);
    nvtxPayloadSchemaEntry_t es[] = {EF(T(INT32), "v", LPI, 1)};
    uint64_t id = ok(es, 1, DYNAMIC);
    int32_t v[2] = {1, 2};
    nvtxPayloadData_t p[2] = {{id, sizeof v, v}, {src, sizeof v, v}};
    bad_visit(p, 2, INV, "field \"v\"", "is not one integer entry", NULL);
}
END_TEST
START_TEST(p_offset_base_beyond) {
    nvtxPayloadSchemaEntry_t es[] = {
        EF(T(CSTRING_UTF8), "at", NVTX_PAYLOAD_ENTRY_FLAG_OFFSET_FROM_BASE, 0)};
    uint64_t id = ok(es, 1, STATIC);
    size_t off = 100;
    nvtxPayloadData_t p = {id, sizeof off, &off};
    bad_visit(&p, 1, INV, "field \"at\"", "offset 100 leads to 100, beyond the payload size 8",
              NULL);
}
END_TEST
START_TEST(p_offset_here_overflow) {
    nvtxPayloadSchemaEntry_t es[] = {
        EF(T(INT32), "h", NVTX_PAYLOAD_ENTRY_FLAG_OFFSET_FROM_HERE, 0)};
    uint64_t id = ok(es, 1, STATIC);
    size_t off = SIZE_MAX - 3;
    nvtxPayloadData_t p = {id, sizeof off, &off};
    bad_visit(&p, 1, INV, "field \"h\"", "beyond the payload size", NULL);
}
END_TEST
START_TEST(p_string_li_too_long) {
    nvtxPayloadSchemaEntry_t es[] = {EF(T(UINT8), "n", 0, 0), EF(T(CSTRING_UTF16), "s", LI, 0)};
    uint64_t id = ok(es, 2, DYNAMIC);
    uint8_t buf[6] = {200, 0, 'a', 0, 'b', 0};
    nvtxPayloadData_t p = {id, sizeof buf, buf};
    bad_visit(&p, 1, INV, "field \"s\"", "needs 400 bytes at offset 2, payload has 6", NULL);
}
END_TEST
START_TEST(p_string_lpi_two_values) {
    nvtxPayloadSchemaEntry_t es[] = {EF(T(CSTRING_UTF8), "s", LPI, 1)};
    uint64_t id = ok(es, 1, DYNAMIC);
    uint8_t lens[2] = {1, 1};
    nvtxPayloadData_t p[2] = {{id, 2, "ab"}, {T(UINT8), 2, lens}};
    bad_visit(p, 2, INV, "field \"s\"", "gives 2 values, expected one", NULL);
}
END_TEST
START_TEST(p_nested_dynamic_short) {
    nvtxPayloadSchemaEntry_t de[] = {EF(T(UINT8), "n", 0, 0), EF(T(INT64), "v", LI, 0)};
    uint64_t d = ok(de, 2, DYNAMIC);
    nvtxPayloadSchemaEntry_t es[] = {EF(T(INT8), "tag", 0, 0), EF(d, "inner", 0, 0)};
    uint64_t id = ok(es, 2, DYNAMIC);
    uint8_t buf[12] = {1, 0, 0, 0, 0, 0, 0, 0, 3}; /* inner aligned to 8 */
    nvtxPayloadData_t p = {id, sizeof buf, buf};
    bad_visit(&p, 1, INV, "field \"inner.v\"", "does not fit", NULL);
}
END_TEST
START_TEST(p_zt_dims_empty) {
    nvtxPayloadSchemaEntry_t es[] = {EF(T(UINT8), "d", ZT, 0), EF(T(INT8), "m", LI, 0)};
    uint64_t id = ok(es, 2, DYNAMIC);
    uint8_t buf[4] = {0, 1, 2, 3};
    nvtxPayloadData_t p = {id, sizeof buf, buf};
    bad_visit(&p, 1, INV, "field \"m\"", "gives 0 dimensions", NULL);
}
END_TEST
START_TEST(p_pointer_nested_short) {
    nvtxPayloadSchemaEntry_t ie[] = {EF(T(INT64), "a", 0, 0), EF(T(INT64), "b", 0, 0)};
    uint64_t in = ok(ie, 2, STATIC);
    nvtxPayloadSchemaEntry_t es[] = {EF(in, "obj", PTR, 0)};
    uint64_t id = ok(es, 1, STATIC);
    int64_t target = 5;
    const void* ptr = &target;
    nvtxPayloadData_t p[2] = {{id, sizeof ptr, &ptr},
                              {NVTX_TYPE_PAYLOAD_SCHEMA_REFERENCED, 8, &target}};
    bad_visit(p, 2, INV, "field \"obj\"", "needs 16 bytes at offset 0, payload 1 has 8", NULL);
}
END_TEST
START_TEST(p_visitor_stop) {
    nvtxPayloadSchemaEntry_t es[] = {EF(T(INT32), "a", 0, 0), EF(T(INT32), "b", 0, 0)};
    uint64_t id = ok(es, 2, STATIC);
    int32_t v[2] = {1, 2};
    nvtxPayloadData_t p = {id, sizeof v, v};
    recorder_t r;
    memset(&r, 0, sizeof r);
    r.stop_at = 6; /* B P F(a) S1 /F F(b) */
    ck_assert_int_eq(nvtxw_payload_visit(reg, &p, 1, &recorder_visitor, &r, NULL),
                     NVTXW_RESULT_FAILED);
    has("visitor stopped at payload 0");
    has("field \"b\"");
    has("field_begin returned 1");
}
END_TEST
START_TEST(p_bad_arguments) {
    nvtxwResultCode_t rc = nvtxw_payload_visit(reg, NULL, 2, &recorder_visitor, NULL, NULL);
    ck_assert_int_eq(rc, INV);
    has("cannot visit payloads");
    rc = nvtxw_payload_visit(reg, NULL, 0, NULL, NULL, NULL);
    ck_assert_int_eq(rc, INV);
}
END_TEST
START_TEST(p_unregistered_without_registry) {
    int32_t v = 1;
    nvtxPayloadData_t p = {NVTX_PAYLOAD_SCHEMA_ID_STATIC_START, 4, &v};
    nvtxwResultCode_t rc;
    record(NULL, &p, 1, &rc, NULL);
    ck_assert_int_eq(rc, INV);
    has("payload 0 (schema 16777216");
}
END_TEST

int main(void) {
    Suite* s = suite_create("malformed");
    TCase* ts = tcase_create("schemas");
    TCase* tp = tcase_create("payloads");
    tcase_add_checked_fixture(ts, setup, teardown);
    tcase_add_checked_fixture(tp, setup, teardown);
    tcase_add_test(ts, s_unknown_type);
    tcase_add_test(ts, s_invalid_type);
    tcase_add_test(ts, s_nested_unregistered);
    tcase_add_test(ts, s_li_not_earlier);
    tcase_add_test(ts, s_li_self);
    tcase_add_test(ts, s_li_float_source);
    tcase_add_test(ts, s_li_pointer_source);
    tcase_add_test(ts, s_li_too_many_dims);
    tcase_add_test(ts, s_li_string_array_source);
    tcase_add_test(ts, s_zt_in_static);
    tcase_add_test(ts, s_li_in_static);
    tcase_add_test(ts, s_lpi_string_in_static);
    tcase_add_test(ts, s_array_of_union);
    tcase_add_test(ts, s_union_selector_not_earlier);
    tcase_add_test(ts, s_union_selector_not_integer);
    tcase_add_test(ts, s_array_of_dynamic);
    tcase_add_test(ts, s_fixed_zero);
    tcase_add_test(ts, s_fixed_string_zero);
    tcase_add_test(ts, s_pointer_and_offset);
    tcase_add_test(ts, s_bad_array_kind);
    tcase_add_test(ts, s_internal_union_no_selector);
    tcase_add_test(ts, s_internal_union_two_selectors);
    tcase_add_test(ts, s_static_size_too_small);
    tcase_add_test(ts, s_entry_error_names_schema);
    tcase_add_test(ts, s_union_member_variable);
    tcase_add_test(ts, s_union_in_union);
    tcase_add_test(ts, s_selector_array);
    tcase_add_test(ts, s_pack_align_not_pow2);
    tcase_add_test(ts, s_schema_type);
    tcase_add_test(ts, s_name_null);
    tcase_add_test(ts, s_no_entries);
    tcase_add_test(ts, s_semantics_too_small);
    tcase_add_test(ts, s_semantics_cycle);
    tcase_add_test(ts, s_offset_too_large);
    tcase_add_test(ts, s_fixed_overflow);
    tcase_add_test(ts, s_referenced_as_entry);
    tcase_add_test(ts, s_nesting_too_deep);
    tcase_add_test(ts, s_enum_errors);
    tcase_add_test(tp, p_static_short);
    tcase_add_test(tp, p_null_pointer);
    tcase_add_test(tp, p_size_max_numeric);
    tcase_add_test(tp, p_size_max_schema);
    tcase_add_test(tp, p_unknown_schema);
    tcase_add_test(tp, p_enum_as_schema);
    tcase_add_test(tp, p_unknown_predefined);
    tcase_add_test(tp, p_predefined_too_small);
    tcase_add_test(tp, p_utf16_too_small);
    tcase_add_test(tp, p_li_does_not_fit);
    tcase_add_test(tp, p_li_overflow);
    tcase_add_test(tp, p_md_overflow);
    tcase_add_test(tp, p_md_empty_rows);
    tcase_add_test(tp, p_fixed_beyond_end);
    tcase_add_test(tp, p_pointer_nowhere);
    tcase_add_test(tp, p_pointer_target_short);
    tcase_add_test(tp, p_array_path);
    tcase_add_test(tp, p_union_selector_range);
    tcase_add_test(tp, p_union_selector_negative);
    tcase_add_test(tp, p_internal_selector_range);
    tcase_add_test(tp, p_union_as_payload);
    tcase_add_test(tp, p_lpi_index_range);
    tcase_add_test(tp, p_lpi_not_integer);
    tcase_add_test(tp, p_lpi_too_many_dims);
    tcase_add_test(tp, p_lpi_empty_source);
    tcase_add_test(tp, p_lpi_schema_source);
    tcase_add_test(tp, p_offset_base_beyond);
    tcase_add_test(tp, p_offset_here_overflow);
    tcase_add_test(tp, p_string_li_too_long);
    tcase_add_test(tp, p_string_lpi_two_values);
    tcase_add_test(tp, p_nested_dynamic_short);
    tcase_add_test(tp, p_zt_dims_empty);
    tcase_add_test(tp, p_pointer_nested_short);
    tcase_add_test(tp, p_visitor_stop);
    tcase_add_test(tp, p_bad_arguments);
    tcase_add_test(tp, p_unregistered_without_registry);
    suite_add_tcase(s, ts);
    suite_add_tcase(s, tp);
    return tu_run_suite(s);
}
