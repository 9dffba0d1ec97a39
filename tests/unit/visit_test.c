/*
 * tests/unit/visit_test.c - nvtxw_payload_visit event sequences: every
 * predefined type, every array kind, strings of every width and form,
 * nested schemas, unions, enums, pointers, the NVIDIA helper schemas and
 * spec conformance checks 40-42.
 */
#define _POSIX_C_SOURCE 200809L /* test_util.h */
#include <check.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "nvtxw/error.h"
#include "nvtxw/helper_types.h"
#include "nvtxw/payload.h"
#include "test_util.h"
#include "visit_recorder.h"

#define E(type, name)                                                                              \
    { 0, NVTX_PAYLOAD_ENTRY_TYPE_##type, name, NULL, 0, 0, NULL, NULL }
#define EF(type, name, flags, detail)                                                              \
    { flags, type, name, NULL, detail, 0, NULL, NULL }
#define FIXED NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_FIXED_SIZE
#define ZT NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_ZERO_TERMINATED
#define LI NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_INDEX
#define LPI NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_PAYLOAD_INDEX
#define PTR NVTX_PAYLOAD_ENTRY_FLAG_POINTER
#define T(x) NVTX_PAYLOAD_ENTRY_TYPE_##x

static uint64_t add(nvtxw_schema_registry_t* r, const nvtxPayloadSchemaEntry_t* es, size_t n,
                    uint64_t type, const char* name) {
    nvtxPayloadSchemaAttr_t a;
    uint64_t id = 0;
    nvtxwResultCode_t rc;
    memset(&a, 0, sizeof a);
    a.fieldMask = NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES |
                  NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NAME;
    a.name = name;
    a.type = type;
    a.entries = es;
    a.numEntries = n;
    rc = nvtxw_schema_registry_add_schema(r, &a, &id);
    ck_assert_msg(rc == NVTXW_RESULT_SUCCESS, "register %s: %s", name, nvtxw_last_error());
    return id;
}

#define STATIC NVTX_PAYLOAD_SCHEMA_TYPE_STATIC
#define DYNAMIC NVTX_PAYLOAD_SCHEMA_TYPE_DYNAMIC

static void expect(const nvtxw_schema_registry_t* r, const nvtxPayloadData_t* p, size_t n,
                   const char* expected) {
    nvtxwResultCode_t rc;
    const char* got = record(r, p, n, &rc, NULL);
    ck_assert_msg(rc == NVTXW_RESULT_SUCCESS, "visit failed: %s (events: %s)", nvtxw_last_error(),
                  got);
    ck_assert_str_eq(got, expected);
}

/* One predefined payload: "B1 P0(type,size,NAME) F() <values> /F /P /B". */
static void expect_predef(uint64_t type, const void* data, size_t size, const char* values) {
    char want[1024];
    nvtxPayloadData_t p = {type, size, data};
    snprintf(want, sizeof want, "B1 P0(%llu,%zu,%s) F()%s /F /P /B", (unsigned long long)type, size,
             nvtxw_entry_type_name(type), values);
    expect(NULL, &p, 1, want);
}

START_TEST(predefined_integers) {
    int8_t i8 = -5;
    uint8_t u8 = 250;
    int16_t i16 = -300;
    uint16_t u16 = 65000;
    int32_t i32[3] = {1, -2, 3};
    uint32_t u32 = 4000000000u;
    int64_t i64 = INT64_MIN;
    uint64_t u64 = UINT64_MAX;
    long l = -7;
    unsigned long ul = 7;
    long long ll = -8;
    unsigned long long ull = 8;
    short s = -9;
    unsigned short us = 9;
    int in = -10;
    unsigned int ui = 10;
    size_t sz = 11;
    char c = 'A';
    unsigned char uc = 200;
    expect_predef(T(INT8), &i8, 1, " S-5");
    expect_predef(T(UINT8), &u8, 1, " U250");
    expect_predef(T(INT16), &i16, 2, " S-300");
    expect_predef(T(UINT16), &u16, 2, " U65000");
    expect_predef(T(INT32), i32, 12, " [3 S1 S-2 S3 ]"); /* conformance 42 */
    expect_predef(T(INT32), i32, 13, " [3 S1 S-2 S3 ]"); /* trailing byte ignored */
    expect_predef(T(UINT32), &u32, 4, " U4000000000");
    expect_predef(T(INT64), &i64, 8, " S-9223372036854775808");
    expect_predef(T(UINT64), &u64, 8, " U18446744073709551615");
    expect_predef(T(LONG), &l, sizeof l, " S-7");
    expect_predef(T(ULONG), &ul, sizeof ul, " U7");
    expect_predef(T(LONGLONG), &ll, sizeof ll, " S-8");
    expect_predef(T(ULONGLONG), &ull, sizeof ull, " U8");
    expect_predef(T(SHORT), &s, sizeof s, " S-9");
    expect_predef(T(USHORT), &us, sizeof us, " U9");
    expect_predef(T(INT), &in, sizeof in, " S-10");
    expect_predef(T(UINT), &ui, sizeof ui, " U10");
    expect_predef(T(SIZE), &sz, sizeof sz, " U11");
    expect_predef(T(CHAR), &c, 1, " S65");
    expect_predef(T(UCHAR), &uc, 1, " U200");
}
END_TEST

START_TEST(predefined_special_integers) {
    uint32_t u32 = 0xFF00FF00u;
    uint64_t u64 = 0x123456789ull;
    uint16_t c16 = 0x263A;
    uint32_t c32 = 0x1F600;
    wchar_t wc = L'x';
    uint8_t c8 = 'z';
    uintptr_t addr = 0xdeadbeef;
    uint8_t bytes[3] = {1, 0xab, 0};
    uint8_t i128[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    expect_predef(T(COLOR_ARGB), &u32, 4, " U4278255360");
    expect_predef(T(CATEGORY), &u32, 4, " U4278255360");
    expect_predef(T(RANGE_ID), &u64, 8, " U4886718345");
    expect_predef(T(SCOPE_ID), &u64, 8, " U4886718345");
    expect_predef(T(PID_UINT32), &u32, 4, " U4278255360");
    expect_predef(T(PID_UINT64), &u64, 8, " U4886718345");
    expect_predef(T(TID_UINT32), &u32, 4, " U4278255360");
    expect_predef(T(TID_UINT64), &u64, 8, " U4886718345");
    expect_predef(T(ADDRESS), &addr, sizeof addr, " U3735928559");
    expect_predef(T(CHAR8), &c8, 1, " U122");
    expect_predef(T(CHAR16), &c16, 2, " U9786");
    expect_predef(T(CHAR32), &c32, 4, " U128512");
    expect_predef(T(WCHAR), &wc, sizeof wc, " U120");
    expect_predef(T(BYTE), bytes, 3, " X01ab00");
    expect_predef(T(INT128), i128, 16, " X0102030405060708090a0b0c0d0e0f10");
    expect_predef(T(UINT128), i128, 16, " X0102030405060708090a0b0c0d0e0f10");
    expect_predef(T(UNION_SELECTOR), &u32, 4, " U4278255360");
}
END_TEST

START_TEST(predefined_floats) {
    float f = 1.5f;
    double d[2] = {-2.25, 1e300};
    long double ld = 0.125L;
    uint16_t half[4] = {0x3C00, 0xC000, 0x0001, 0x7C00}; /* 1, -2, 2^-24, inf */
    uint16_t bf = 0x3FC0;                                /* 1.5 */
    uint32_t tf32 = 0x40490FDB;                          /* float pi */
    /* binary128 1.0 and 1 + 2^-60 (rounds to 1.0) and 2^-1074 */
    uint64_t q1[2] = {0, 0x3FFF000000000000ull};
    uint64_t q2[2] = {0x1000ull, 0x3FFF000000000000ull};
    uint64_t q3[2] = {0, (uint64_t)(16383 - 1074) << 48};
    uint64_t q4[2] = {0, 0xC000800000000000ull}; /* -3 */
    expect_predef(T(FLOAT), &f, 4, " D1.5");
    expect_predef(T(FLOAT32), &f, 4, " D1.5");
    expect_predef(T(DOUBLE), d, 16, " [2 D-2.25 D1.0000000000000001e+300 ]");
    expect_predef(T(FLOAT64), d, 8, " D-2.25");
    expect_predef(T(LONGDOUBLE), &ld, sizeof ld, " D0.125");
    expect_predef(T(FLOAT16), half, 8, " [4 D1 D-2 D5.9604644775390625e-08 Dinf ]");
    expect_predef(T(BF16), &bf, 2, " D1.5");
    expect_predef(T(TF32), &tf32, 4, " D3.1415927410125732");
    expect_predef(T(FLOAT128), q1, 16, " D1");
    expect_predef(T(FLOAT128), q2, 16, " D1");
    expect_predef(T(FLOAT128), q3, 16, " D4.9406564584124654e-324");
    expect_predef(T(FLOAT128), q4, 16, " D-3");
}
END_TEST

START_TEST(predefined_strings) {
    const uint16_t u16[] = {'h', 0xD83D, 0xDE00, 'i', 0};
    const uint32_t u32[] = {'o', 0x1F600, 0x110000, 0xD800, 'k'};
    nvtxPayloadData_t sm = {T(CSTRING_UTF8), SIZE_MAX, "abc"};
    expect_predef(T(CSTRING_UTF8), "hello", 5, " T\"hello\"");
    expect_predef(T(CSTRING), "ab\0cd", 5, " T\"ab\"");
    expect_predef(T(CSTRING_UTF8), "", 1, " T\"\"");
    expect_predef(T(CSTRING_UTF8),
                  "a\xff"
                  "b\xc3",
                  4,
                  " T\"a\xef\xbf\xbd"
                  "b\xef\xbf\xbd\"");
    expect_predef(T(CSTRING_UTF16), u16, sizeof u16, " T\"h\xf0\x9f\x98\x80i\"");
    expect_predef(T(CSTRING_UTF32), u32, sizeof u32,
                  " T\"o\xf0\x9f\x98\x80\xef\xbf\xbd\xef\xbf\xbdk\"");
    /* unpaired high surrogate at the end */
    expect_predef(T(CSTRING_UTF16), u16, 4, " T\"h\xef\xbf\xbd\"");
    expect(NULL, &sm, 1, "B1 P0(76,4,CSTRING_UTF8) F() T\"abc\" /F /P /B"); /* conformance 42 */
}
END_TEST

START_TEST(skipped_and_raw) {
    int32_t v = 4;
    uint8_t raw[2] = {0xca, 0xfe};
    nvtxPayloadData_t p[4] = {{T(INT32), 0, &v},
                              {NVTX_TYPE_PAYLOAD_SCHEMA_REFERENCED, 4, &v},
                              {NVTX_TYPE_PAYLOAD_SCHEMA_RAW, 2, raw},
                              {T(INT32), 4, &v}};
    /* conformance 40: size 0 ignored, the call succeeds */
    expect(NULL, p, 4, "B4 P2(1023,2,<raw>) F() Xcafe /F /P P3(15,4,INT32) F() S4 /F /P /B");
    expect(NULL, NULL, 0, "B0 /B");
}
END_TEST

static const char* resolve(void* ctx, uint64_t handle) {
    (void)ctx;
    return handle == 0x1234 ? "registered" : NULL;
}

START_TEST(array_kinds) {
    nvtxw_schema_registry_t* r = nvtxw_schema_registry_create();
    nvtxPayloadSchemaEntry_t es[] = {EF(T(UINT16), "fixed", FIXED, 2), EF(T(INT8), "n", 0, 0),
                                     EF(T(INT32), "li", LI, 1),        EF(T(UINT8), "zt", ZT, 0),
                                     EF(T(BYTE), "raw", FIXED, 3),     EF(T(INT16), "lpi", LPI, 1)};
    uint64_t id = add(r, es, 6, DYNAMIC, "arrays");
    uint8_t buf[64];
    uint16_t f[2] = {7, 8};
    int8_t n = 2;
    int32_t li[2] = {-1, 5};
    uint8_t zt[3] = {9, 8, 0};
    int16_t lpi[3] = {1, 2, 3};
    uint32_t count = 3;
    nvtxPayloadData_t p[2] = {{id, 0, buf}, {T(UINT32), 4, &count}};
    char want[512];
    size_t off = 0;
    memset(buf, 0xEE, sizeof buf);
    memcpy(buf, f, 4), off = 4;
    memcpy(buf + off, &n, 1), off = 8; /* li aligned to 4 */
    memcpy(buf + off, li, 8), off += 8;
    memcpy(buf + off, zt, 3), off += 3;
    memcpy(buf + off, "\x01\x02\x03", 3), off += 3;
    off = (off + 1) & ~(size_t)1;
    memcpy(buf + off, lpi, 6), off += 6;
    p[0].size = off;
    snprintf(want, sizeof want,
             "B2 P0(%llu,%zu,arrays) F(fixed) [2 U7 U8 ] /F F(n) S2 /F F(li) [2 S-1 S5 ] /F "
             "F(zt) [2 U9 U8 ] /F F(raw) X010203 /F F(lpi) [3 S1 S2 S3 ] /F /P "
             "P1(16,4,UINT32) F() U3 /F /P /B",
             (unsigned long long)id, off);
    expect(r, p, 2, want);
    nvtxw_schema_registry_destroy(r);
}
END_TEST

START_TEST(multi_dimensional) {
    nvtxw_schema_registry_t* r = nvtxw_schema_registry_create();
    nvtxPayloadSchemaEntry_t es[] = {EF(T(UINT8), "dims", FIXED, 2), EF(T(INT8), "m", LI, 0)};
    nvtxPayloadSchemaEntry_t ls[] = {EF(T(UINT8), "m", LPI, 1)};
    uint64_t id = add(r, es, 2, DYNAMIC, "md");
    uint64_t lid = add(r, ls, 1, DYNAMIC, "lpi");
    uint8_t buf[8] = {2, 3, 1, 2, 3, 4, 5, 6};
    uint64_t dims[2] = {3, 2};
    nvtxPayloadData_t p[2] = {{id, 8, buf}, {T(UINT64), 16, dims}};
    char want[512];
    snprintf(want, sizeof want,
             "B1 P0(%llu,8,md) F(dims) [2 U2 U3 ] /F F(m) [2 [3 S1 S2 S3 ] [3 S4 S5 S6 ] ] /F /P "
             "/B",
             (unsigned long long)id);
    expect(r, p, 1, want);
    p[0] = (nvtxPayloadData_t){lid, 6, buf + 2};
    snprintf(want, sizeof want,
             "B2 P0(%llu,6,lpi) F(m) [3 [2 U1 U2 ] [2 U3 U4 ] [2 U5 U6 ] ] /F /P P1(18,16,UINT64) "
             "F() [2 U3 U2 ] /F /P /B",
             (unsigned long long)lid);
    expect(r, p, 2, want);
    nvtxw_schema_registry_destroy(r);
}
END_TEST

START_TEST(string_forms) {
    nvtxw_schema_registry_t* r = nvtxw_schema_registry_create();
    nvtxPayloadSchemaEntry_t es[] = {
        EF(T(CSTRING), "fixed", 0, 4),     EF(T(CSTRING_UTF8), "fx", FIXED, 3),
        EF(T(UINT8), "len", 0, 0),         EF(T(CSTRING_UTF8), "li", LI, 2),
        EF(T(CSTRING_UTF16), "zt", ZT, 0), EF(T(CSTRING_UTF8), "names", ZT, 3),
        EF(T(CSTRING_UTF32), "w", 0, 2),
    };
    uint64_t id = add(r, es, 7, DYNAMIC, "strings");
    uint8_t buf[64];
    uint16_t zt[3] = {'o', 'k', 0};
    uint32_t w[2] = {0x263A, 0};
    size_t off;
    nvtxPayloadData_t p;
    char want[512];
    memset(buf, 0, sizeof buf);
    memcpy(buf, "abcd", 4);
    memcpy(buf + 4, "x\0y", 3);
    buf[7] = 3;
    memcpy(buf + 8, "xyz", 3);
    memcpy(buf + 12, zt, 6); /* aligned to 2 from 11 */
    memcpy(buf + 18, "ab\0cd\0\0\0\0", 9);
    off = 28; /* 27 aligned to 4 */
    memcpy(buf + off, w, 8);
    p = (nvtxPayloadData_t){id, off + 8, buf};
    snprintf(want, sizeof want,
             "B1 P0(%llu,%zu,strings) F(fixed) T\"abcd\" /F F(fx) T\"x\" /F F(len) U3 /F "
             "F(li) T\"xyz\" /F F(zt) T\"ok\" /F F(names) [2 T\"ab\" T\"cd\" ] /F "
             "F(w) T\"\xe2\x98\xba\" /F /P /B",
             (unsigned long long)id, off + 8);
    expect(r, &p, 1, want);
    nvtxw_schema_registry_destroy(r);
}
END_TEST

START_TEST(pointers_and_offsets) {
    nvtxw_schema_registry_t* r = nvtxw_schema_registry_create();
    nvtxPayloadSchemaEntry_t es[] = {
        EF(T(CSTRING_UTF8), "p", 0, 0),
        EF(T(CSTRING_UTF8), "nul", PTR, 0),
        EF(T(CSTRING_UTF8), "fixed", PTR, 2),
        EF(T(INT32), "arr", PTR | FIXED, 2),
        EF(T(CSTRING_UTF8), "base", NVTX_PAYLOAD_ENTRY_FLAG_OFFSET_FROM_BASE, 0),
        EF(T(UINT8), "here", NVTX_PAYLOAD_ENTRY_FLAG_OFFSET_FROM_HERE | ZT, 0),
    };
    uint64_t id = add(r, es, 6, STATIC, "ptrs");
    char blob[16] = "hello\0world";
    int32_t ints[2] = {-4, 4};
    struct {
        const char* p;
        const char* nul;
        const char* fixed;
        const int32_t* arr;
        size_t base;
        size_t here;
        char tail[8];
    } s = {blob, NULL, blob + 6, ints, offsetof(__typeof__(s), tail), 0, "tl\0\3\4\0"};
    nvtxPayloadData_t p[3] = {{id, sizeof s, &s},
                              {NVTX_TYPE_PAYLOAD_SCHEMA_REFERENCED, sizeof blob, blob},
                              {NVTX_TYPE_PAYLOAD_SCHEMA_REFERENCED, sizeof ints, ints}};
    char want[512];
    s.here = 3; /* from the end of "here" (offset 48) to tail + 3 */
    snprintf(want, sizeof want,
             "B3 P0(%llu,%zu,ptrs) F(p) T\"hello\" /F F(nul) N /F F(fixed) T\"wo\" /F "
             "F(arr) [2 S-4 S4 ] /F F(base) T\"tl\" /F F(here) [2 U3 U4 ] /F /P /B",
             (unsigned long long)id, sizeof s);
    expect(r, p, 3, want);
    nvtxw_schema_registry_destroy(r);
}
END_TEST

START_TEST(foreign_pointer_deep_copy) {
    nvtxw_schema_registry_t* r = nvtxw_schema_registry_create();
    nvtxPayloadSchemaEntry_t es[] = {
        EF(T(CSTRING_UTF8), "s", PTR | NVTX_PAYLOAD_ENTRY_FLAG_DEEP_COPY, 0)};
    nvtxPayloadSchemaAttr_t a;
    uint64_t id;
    const char* text = "outside";
    nvtxPayloadData_t p;
    nvtxw_visit_options_t opt = {sizeof opt, NULL, NULL, NVTXW_VISIT_ALLOW_FOREIGN_POINTERS, NULL};
    nvtxwResultCode_t rc;
    memset(&a, 0, sizeof a);
    a.fieldMask = 0x3C;
    a.type = STATIC;
    a.flags = NVTX_PAYLOAD_SCHEMA_FLAG_DEEP_COPY;
    a.entries = es;
    a.numEntries = 1;
    ck_assert_int_eq(nvtxw_schema_registry_add_schema(r, &a, &id), NVTXW_RESULT_SUCCESS);
    p = (nvtxPayloadData_t){id, sizeof text, &text};
    ck_assert_ptr_nonnull(strstr(record(r, &p, 1, &rc, &opt), "F(s) T\"outside\" /F"));
    ck_assert_int_eq(rc, NVTXW_RESULT_SUCCESS);
    record(r, &p, 1, &rc, NULL);
    ck_assert_int_eq(rc, NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "points into no payload"));
    nvtxw_schema_registry_destroy(r);
}
END_TEST

START_TEST(nested_schemas) {
    nvtxw_schema_registry_t* r = nvtxw_schema_registry_create();
    nvtxPayloadSchemaEntry_t ie[] = {E(INT16, "a"), E(UINT8, "b")};
    uint64_t in = add(r, ie, 2, STATIC, "inner");
    nvtxPayloadSchemaEntry_t de[] = {EF(T(UINT8), "n", 0, 0), EF(T(UINT8), "v", LI, 0)};
    uint64_t dyn = add(r, de, 2, DYNAMIC, "dyn");
    nvtxPayloadSchemaEntry_t oe[] = {EF(in, "one", 0, 0), EF(in, "two", FIXED, 2),
                                     EF(dyn, "d", 0, 0), EF(T(UINT16), "after", 0, 0),
                                     EF(in, "ptr", PTR, 0)};
    uint64_t out = add(r, oe, 5, DYNAMIC, "outer");
    uint8_t buf[64];
    int16_t target[2] = {42, 7};
    const void* tp = target;
    uint16_t after = 513;
    nvtxPayloadData_t p[2];
    char want[768];
    memset(buf, 0, sizeof buf);
    buf[0] = 1, buf[2] = 2;                /* one = {1, 2} */
    buf[4] = 3, buf[6] = 4;                /* two[0] */
    buf[8] = 5, buf[10] = 6;               /* two[1] */
    buf[12] = 2, buf[13] = 9, buf[14] = 8; /* d = {n=2, v=[9,8]} */
    memcpy(buf + 16, &after, 2);           /* alignUp(15, 2) = 16 */
    memcpy(buf + 24, &tp, sizeof tp);      /* alignUp(18, 8) */
    p[0] = (nvtxPayloadData_t){out, 32, buf};
    p[1] = (nvtxPayloadData_t){NVTX_TYPE_PAYLOAD_SCHEMA_REFERENCED, 4, target};
    snprintf(want, sizeof want,
             "B2 P0(%llu,32,outer) F(one) {%llu F(a) S1 /F F(b) U2 /F } /F F(two) [2 {%llu F(a) "
             "S3 /F F(b) U4 /F } {%llu F(a) S5 /F F(b) U6 /F } ] /F F(d) {%llu F(n) U2 /F F(v) "
             "[2 U9 U8 ] /F } /F F(after) U513 /F F(ptr) {%llu F(a) S42 /F F(b) U7 /F } /F /P /B",
             (unsigned long long)out, (unsigned long long)in, (unsigned long long)in,
             (unsigned long long)in, (unsigned long long)dyn, (unsigned long long)in);
    expect(r, p, 2, want);
    nvtxw_schema_registry_destroy(r);
}
END_TEST

START_TEST(unions_and_enums) {
    nvtxw_schema_registry_t* r = nvtxw_schema_registry_create();
    nvtxPayloadSchemaEntry_t ue[] = {E(INT32, "i"), E(FLOAT, "f")};
    uint64_t u = add(r, ue, 2, NVTX_PAYLOAD_SCHEMA_TYPE_UNION, "u");
    nvtxPayloadSchemaEntry_t ie[] = {EF(T(UNION_SELECTOR), "sel", 0, 1), E(UINT8, "b"),
                                     E(INT64, "l")};
    uint64_t iu = add(r, ie, 3, NVTX_PAYLOAD_SCHEMA_TYPE_UNION_WITH_INTERNAL_SELECTOR, "iu");
    nvtxPayloadEnum_t ev[] = {{"A", 1, 1}, {"B", 2, 1}, {"C", 4, 1}, {"ZERO", 0, 0}};
    nvtxPayloadEnumAttr_t ea = {NVTX_PAYLOAD_ENUM_ATTR_FIELD_ENTRIES |
                                    NVTX_PAYLOAD_ENUM_ATTR_FIELD_NUM_ENTRIES |
                                    NVTX_PAYLOAD_ENUM_ATTR_FIELD_SIZE,
                                NULL,
                                ev,
                                4,
                                2,
                                0,
                                NULL};
    uint64_t en;
    nvtxPayloadSchemaEntry_t oe[4];
    uint64_t out;
    struct {
        uint32_t sel;
        union {
            int32_t i;
            float f;
        } u;
        struct {
            uint8_t sel;
            union {
                uint8_t b;
                int64_t l;
            } m;
        } iu[2];
        uint16_t e[4];
    } s;
    nvtxPayloadData_t p;
    char want[768];
    ck_assert_int_eq(nvtxw_schema_registry_add_enum(r, &ea, &en), NVTXW_RESULT_SUCCESS);
    oe[0] = (nvtxPayloadSchemaEntry_t)EF(T(UINT32), "sel", 0, 0);
    oe[1] = (nvtxPayloadSchemaEntry_t)EF(u, "u", 0, 0);
    oe[2] = (nvtxPayloadSchemaEntry_t)EF(iu, "iu", FIXED, 2);
    oe[3] = (nvtxPayloadSchemaEntry_t)EF(en, "e", FIXED, 4);
    out = add(r, oe, 4, STATIC, "outer");
    memset(&s, 0, sizeof s);
    s.sel = 1;
    s.u.f = 2.5f;
    s.iu[0].sel = 0, s.iu[0].m.b = 200;
    s.iu[1].sel = 1, s.iu[1].m.l = -1;
    s.e[0] = 2, s.e[1] = 5, s.e[2] = 0, s.e[3] = 9;
    p = (nvtxPayloadData_t){out, sizeof s, &s};
    ck_assert_uint_eq(nvtxw_schema_static_size(nvtxw_schema_registry_find_schema(r, out)),
                      sizeof s);
    snprintf(want, sizeof want,
             "B1 P0(%llu,%zu,outer) F(sel) U1 /F F(u) {%llu F(f) D2.5 /F } /F F(iu) [2 {%llu "
             "F(sel) U0 /F F(b) U200 /F } {%llu F(sel) U1 /F F(l) S-1 /F } ] /F F(e) [4 E2=B "
             "E5=A|C E0=ZERO E9=- ] /F /P /B",
             (unsigned long long)out, sizeof s, (unsigned long long)u, (unsigned long long)iu,
             (unsigned long long)iu);
    expect(r, &p, 1, want);
    nvtxw_schema_registry_destroy(r);
}
END_TEST

static int stop_info(void* ctx, const nvtxw_field_info_t* f) {
    uint64_t* seen = ctx;
    seen[0] = f->time_domain_id;
    seen[1] = f->scope_id;
    seen[2] = f->entry_index;
    return 0;
}

START_TEST(field_info_semantics) {
    nvtxw_schema_registry_t* r = nvtxw_schema_registry_create();
    nvtxSemanticsScope_t scope = {{sizeof scope, NVTX_SEMANTIC_ID_SCOPE_V1, 1, NULL}, 31000000};
    nvtxSemanticsTime_t time = {{sizeof time, NVTX_SEMANTIC_ID_TIME_V1, 1, &scope.header}, 4242};
    nvtxPayloadSchemaEntry_t es[] = {E(INT64, "ts")};
    nvtxw_visitor_t v;
    uint64_t seen[3] = {0, 0, 9};
    int64_t ts = 1;
    uint64_t id;
    nvtxPayloadData_t p;
    es[0].semantics = &time.header;
    es[0].flags = NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP;
    id = add(r, es, 1, STATIC, "t");
    p = (nvtxPayloadData_t){id, 8, &ts};
    memset(&v, 0, sizeof v);
    v.struct_size = sizeof v;
    v.field_begin = stop_info;
    ck_assert_int_eq(nvtxw_payload_visit(r, &p, 1, &v, seen, NULL), NVTXW_RESULT_SUCCESS);
    ck_assert_uint_eq(seen[0], 4242);
    ck_assert_uint_eq(seen[1], 31000000);
    ck_assert_uint_eq(seen[2], 0);
    nvtxw_schema_registry_destroy(r);
}
END_TEST

START_TEST(visitor_stops) {
    int32_t v[3] = {1, 2, 3};
    nvtxPayloadData_t p = {T(INT32), 12, v};
    recorder_t rec;
    memset(&rec, 0, sizeof rec);
    rec.stop_at = 5; /* B P F [ S1 */
    ck_assert_int_eq(nvtxw_payload_visit(NULL, &p, 1, &recorder_visitor, &rec, NULL),
                     NVTXW_RESULT_FAILED);
    ck_assert_str_eq(rec.text, "B1 P0(15,12,INT32) F() [3 S1");
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "visitor stopped at payload 0"));
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "on_signed"));
}
END_TEST

START_TEST(dynamic_cursor_rule) {
    /* Header rule: implicit entries after a variable-size one follow the cursor. */
    nvtxw_schema_registry_t* r = nvtxw_schema_registry_create();
    nvtxPayloadSchemaEntry_t es[] = {EF(T(CSTRING_UTF8), "s", ZT, 0), E(UINT32, "x"),
                                     E(UINT8, "y")};
    uint64_t id = add(r, es, 3, DYNAMIC, "cur");
    uint8_t buf[16] = {'h', 'i', 0, 0xAA, 7, 0, 0, 0, 5};
    nvtxPayloadData_t p = {id, 9, buf};
    char want[256];
    snprintf(want, sizeof want, "B1 P0(%llu,9,cur) F(s) T\"hi\" /F F(x) U7 /F F(y) U5 /F /P /B",
             (unsigned long long)id);
    expect(r, &p, 1, want);
    nvtxw_schema_registry_destroy(r);
}
END_TEST

/* The 13 helper schemas exactly as nvtxwEventSchemasRegister builds them
 * (spec 4.3: explicit offsetof offsets, fieldMask 0x7C) decode the real
 * helper payload structs of nvtxw/helper_types.h field by field. */
#define HTS(role, n, s, f)                                                                         \
    { NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP | (role), T(INT64), n, NULL, 0, offsetof(s, f), NULL, NULL }
#define HE(type, n, s, f)                                                                          \
    { 0, T(type), n, NULL, 0, offsetof(s, f), NULL, NULL }
#define HMSG(s)                                                                                    \
    {                                                                                              \
        NVTX_PAYLOAD_ENTRY_FLAG_EVENT_MESSAGE, T(NVTX_REGISTERED_STRING_HANDLE), "message", NULL,  \
            0, offsetof(s, attr.message), NULL, NULL                                               \
    }
#define HB NVTX_PAYLOAD_ENTRY_FLAG_RANGE_BEGIN
#define HEND NVTX_PAYLOAD_ENTRY_FLAG_RANGE_END
typedef nvtxwEventUtf8Payload_t mu_t;
typedef nvtxwEventRegStringPayload_t mr_t;
typedef nvtxwRangeEventUtf8Payload_t ru_t;
typedef nvtxwRangeEventRegStringPayload_t rr_t;
typedef nvtxwRangeIdEventUtf8Payload_t iu_t;
typedef nvtxwRangeIdEventRegStringPayload_t ir_t;
typedef nvtxwRangeEndPayload_t re_t;
typedef nvtxwRangePopPayload_t rp_t;

START_TEST(helper_payload_structs) {
    static const nvtxPayloadSchemaEntry_t mu[] = {
        HTS(NVTX_PAYLOAD_ENTRY_FLAG_MARK, "timestamp", mu_t, timestamp),
        HE(COLOR_ARGB, "color", mu_t, attr.color), HE(CATEGORY, "category", mu_t, attr.category)};
    static const nvtxPayloadSchemaEntry_t mr[] = {
        HTS(NVTX_PAYLOAD_ENTRY_FLAG_MARK, "timestamp", mr_t, timestamp),
        HE(COLOR_ARGB, "color", mr_t, attr.color), HE(CATEGORY, "category", mr_t, attr.category),
        HMSG(mr_t)};
    static const nvtxPayloadSchemaEntry_t ru[] = {HTS(HB, "timestampBegin", ru_t, timestampBegin),
                                                  HTS(HEND, "timestampEnd", ru_t, timestampEnd),
                                                  HE(COLOR_ARGB, "color", ru_t, attr.color),
                                                  HE(CATEGORY, "category", ru_t, attr.category)};
    static const nvtxPayloadSchemaEntry_t rr[] = {
        HTS(HB, "timestampBegin", rr_t, timestampBegin),
        HTS(HEND, "timestampEnd", rr_t, timestampEnd), HE(COLOR_ARGB, "color", rr_t, attr.color),
        HE(CATEGORY, "category", rr_t, attr.category), HMSG(rr_t)};
    static const nvtxPayloadSchemaEntry_t pu[] = {HTS(HB, "timestamp", mu_t, timestamp),
                                                  HE(COLOR_ARGB, "color", mu_t, attr.color),
                                                  HE(CATEGORY, "category", mu_t, attr.category)};
    static const nvtxPayloadSchemaEntry_t pr[] = {
        HTS(HB, "timestamp", mr_t, timestamp), HE(COLOR_ARGB, "color", mr_t, attr.color),
        HE(CATEGORY, "category", mr_t, attr.category), HMSG(mr_t)};
    static const nvtxPayloadSchemaEntry_t pop[] = {HTS(HEND, "timestamp", rp_t, timestamp)};
    static const nvtxPayloadSchemaEntry_t su[] = {
        HE(RANGE_ID, "rangeId", iu_t, rangeId), HTS(HB, "timestamp", iu_t, timestamp),
        HE(COLOR_ARGB, "color", iu_t, attr.color), HE(CATEGORY, "category", iu_t, attr.category)};
    static const nvtxPayloadSchemaEntry_t sr[] = {
        HE(RANGE_ID, "rangeId", ir_t, rangeId), HTS(HB, "timestamp", ir_t, timestamp),
        HE(COLOR_ARGB, "color", ir_t, attr.color), HE(CATEGORY, "category", ir_t, attr.category),
        HMSG(ir_t)};
    static const nvtxPayloadSchemaEntry_t end[] = {HE(RANGE_ID, "rangeId", re_t, rangeId),
                                                   HTS(HEND, "timestamp", re_t, timestamp)};
    static const nvtxPayloadSchemaEntry_t msg[] = {{NVTX_PAYLOAD_ENTRY_FLAG_EVENT_MESSAGE | ZT,
                                                    T(CSTRING_UTF8), "message", NULL, 0, 0, NULL,
                                                    NULL}};
    mu_t vmu = {-5, {0xFF112233u, 7}};
    mr_t vmr = {INT64_MAX, {0x80000001u, UINT32_MAX, (nvtxStringHandle_t)0x1234}};
    ru_t vru = {10, 20, {1, 2}};
    rr_t vrr = {INT64_MIN, -1, {3, 4, NULL}};
    rp_t vrp = {42};
    iu_t viu = {UINT64_MAX, 11, {5, 6}};
    ir_t vir = {9, 12, {7, 8, (nvtxStringHandle_t)0x1234}};
    re_t vre = {0x8000000000000000ull, 13};
    const char* r1 = " F(timestamp) S-5 /F F(color) U4279312947 /F F(category) U7 /F";
    const char* r2 = " F(timestamp) S9223372036854775807 /F F(color) U2147483649 /F F(category) "
                     "U4294967295 /F F(message) H4660=registered /F";
    const char* r3 = " F(timestampBegin) S10 /F F(timestampEnd) S20 /F F(color) U1 /F F(category) "
                     "U2 /F";
    const char* r4 = " F(timestampBegin) S-9223372036854775808 /F F(timestampEnd) S-1 /F F(color) "
                     "U3 /F F(category) U4 /F F(message) H0=- /F";
    const char* r7 = " F(timestamp) S-5 /F F(color) U4279312947 /F F(category) U7 /F";
    const char* r9 = " F(rangeId) U18446744073709551615 /F F(timestamp) S11 /F F(color) U5 /F "
                     "F(category) U6 /F";
    const char* r10 = " F(rangeId) U9 /F F(timestamp) S12 /F F(color) U7 /F F(category) U8 /F "
                      "F(message) H4660=registered /F";
    struct {
        const nvtxPayloadSchemaEntry_t* e;
        size_t n;
        uint64_t flags, type;
        size_t size;
        const void* data;
        const char* fields;
    } d[13] = {{mu, 3, 32, STATIC, sizeof vmu, &vmu, r1},
               {mr, 4, 32, STATIC, sizeof vmr, &vmr, r2},
               {ru, 4, 16, STATIC, sizeof vru, &vru, r3},
               {rr, 5, 16, STATIC, sizeof vrr, &vrr, r4},
               {ru, 4, 24, STATIC, sizeof vru, &vru, r3},
               {rr, 5, 24, STATIC, sizeof vrr, &vrr, r4},
               {pu, 3, 40, STATIC, sizeof vmu, &vmu, r7},
               {pr, 4, 40, STATIC, sizeof vmr, &vmr,
                " F(timestamp) S9223372036854775807 /F F(color) U2147483649 /F F(category) "
                "U4294967295 /F F(message) H4660=registered /F"},
               {pop, 1, 48, STATIC, sizeof vrp, &vrp, " F(timestamp) S42 /F"},
               {su, 4, 56, STATIC, sizeof viu, &viu, r9},
               {sr, 5, 56, STATIC, sizeof vir, &vir, r10},
               {end, 2, 64, STATIC, sizeof vre, &vre,
                " F(rangeId) U9223372036854775808 /F F(timestamp) S13 /F"},
               {msg, 1, 0, DYNAMIC, 0, NULL, NULL}};
    nvtxw_schema_registry_t* r = nvtxw_schema_registry_create();
    nvtxw_visit_options_t opt = {sizeof opt, resolve, NULL, 0, NULL};
    uint64_t ids[13];
    char want[1024];
    int k;
    for (k = 0; k < 13; k++) {
        nvtxPayloadSchemaAttr_t a;
        memset(&a, 0, sizeof a);
        a.fieldMask = 0x7C;
        a.type = d[k].type;
        a.flags = d[k].flags;
        a.entries = d[k].e;
        a.numEntries = d[k].n;
        a.payloadStaticSize = d[k].size;
        ck_assert_int_eq(nvtxw_schema_registry_add_schema(r, &a, &ids[k]), NVTXW_RESULT_SUCCESS);
    }
    for (k = 0; k < 12; k++) {
        nvtxPayloadData_t p[2] = {{ids[k], d[k].size, d[k].data}, {ids[12], 3, "abc"}};
        nvtxwResultCode_t rc;
        snprintf(want, sizeof want,
                 "B2 P0(%llu,%zu,)%s /P P1(%llu,3,) F(message) T\"abc\" /F /P /B",
                 (unsigned long long)ids[k], d[k].size, d[k].fields, (unsigned long long)ids[12]);
        ck_assert_str_eq(record(r, p, 2, &rc, &opt), want);
        ck_assert_int_eq(rc, NVTXW_RESULT_SUCCESS);
    }
    { /* conformance 41: a NULL message travels as {id, 1, ""}, present and empty */
        nvtxPayloadData_t p[2] = {{ids[0], sizeof vmu, &vmu}, {ids[12], 1, ""}};
        snprintf(want, sizeof want, "P1(%llu,1,) F(message) T\"\" /F /P /B",
                 (unsigned long long)ids[12]);
        ck_assert_ptr_nonnull(strstr(record(r, p, 2, &(nvtxwResultCode_t){0}, NULL), want));
    }
    nvtxw_schema_registry_destroy(r);
}
END_TEST

/* Enumerators registered from negative C values ((uint64_t)-1) match the
 * sizeOfEnum bytes of the payload for every enum width. */
START_TEST(enum_negative_values) {
    nvtxw_schema_registry_t* r = nvtxw_schema_registry_create();
    nvtxPayloadEnum_t ev[] = {
        {"MINUS_ONE", (uint64_t)-1, 0}, {"MINUS_TWO", (uint64_t)-2, 0}, {"ONE", 1, 0}};
    nvtxPayloadEnum_t fv[] = {{"HIGH", (uint64_t)INT64_MIN, 1}, {"LOW", 1, 1}};
    size_t sizes[4] = {1, 2, 4, 8};
    uint8_t buf[24];
    char want[512];
    int k;
    for (k = 0; k < 4; k++) {
        nvtxPayloadEnumAttr_t ea = {0x1C, NULL, ev, 3, sizes[k], 0, NULL};
        nvtxPayloadSchemaEntry_t es[1] = {EF(0, "e", FIXED, 3)};
        uint64_t en, id;
        nvtxPayloadData_t p;
        ck_assert_int_eq(nvtxw_schema_registry_add_enum(r, &ea, &en), NVTXW_RESULT_SUCCESS);
        es[0].type = en;
        id = add(r, es, 1, STATIC, "neg");
        memset(buf, 0xFF, sizeof buf); /* element 0: -1 */
        memset(buf + sizes[k], 0xFF, sizes[k]);
        buf[sizes[k]] = 0xFE;                    /* little-endian -2 */
        memset(buf + 2 * sizes[k], 0, sizes[k]); /* element 2: 1 */
        buf[2 * sizes[k]] = 1;
        p = (nvtxPayloadData_t){id, 3 * sizes[k], buf};
        snprintf(want, sizeof want,
                 "B1 P0(%llu,%zu,neg) F(e) [3 E%llu=MINUS_ONE E%llu=MINUS_TWO E1=ONE ] /F /P /B",
                 (unsigned long long)id, 3 * sizes[k],
                 (unsigned long long)(UINT64_MAX >> (64 - 8 * sizes[k])),
                 (unsigned long long)((UINT64_MAX >> (64 - 8 * sizes[k])) - 1));
        expect(r, &p, 1, want);
    }
    {
        nvtxPayloadEnumAttr_t fa = {0x1C, NULL, fv, 2, 1, 0, NULL};
        nvtxPayloadSchemaEntry_t es[1] = {EF(0, "f", 0, 0)};
        uint64_t en, id;
        uint8_t v = 0x81;
        nvtxPayloadData_t p;
        fv[0].value = (uint64_t)(int64_t)INT8_MIN; /* 0x80 as a signed char flag */
        ck_assert_int_eq(nvtxw_schema_registry_add_enum(r, &fa, &en), NVTXW_RESULT_SUCCESS);
        es[0].type = en;
        id = add(r, es, 1, STATIC, "flags");
        p = (nvtxPayloadData_t){id, 1, &v};
        ck_assert_ptr_nonnull(
            strstr(record(r, &p, 1, &(nvtxwResultCode_t){0}, NULL), "F(f) E129=HIGH|LOW /F"));
    }
    nvtxw_schema_registry_destroy(r);
}
END_TEST

/* Spec 7.3: a STATIC payload shorter than payloadStaticSize whose entries
 * all fit (tail padding not sent) is decoded. */
START_TEST(static_payload_without_tail) {
    nvtxw_schema_registry_t* r = nvtxw_schema_registry_create();
    nvtxPayloadSchemaEntry_t es[] = {E(INT64, "a"), E(UINT32, "b")};
    nvtxPayloadSchemaAttr_t a;
    uint64_t id;
    struct {
        int64_t a;
        uint32_t b;
    } s = {-3, 4};
    nvtxPayloadData_t p = {0, 12, &s};
    char want[256];
    memset(&a, 0, sizeof a);
    a.fieldMask = 0x7C;
    a.type = STATIC;
    a.entries = es;
    a.numEntries = 2;
    a.payloadStaticSize = 32; /* larger than the 16 the entries need */
    ck_assert_int_eq(nvtxw_schema_registry_add_schema(r, &a, &id), NVTXW_RESULT_SUCCESS);
    ck_assert_uint_eq(nvtxw_schema_static_size(nvtxw_schema_registry_find_schema(r, id)), 32);
    p.schemaId = id;
    snprintf(want, sizeof want, "B1 P0(%llu,12,) F(a) S-3 /F F(b) U4 /F /P /B",
             (unsigned long long)id);
    expect(r, &p, 1, want);
    nvtxw_schema_registry_destroy(r);
}
END_TEST

/* A length-indexed POINTER array of length 0 needs no valid target (an
 * empty std::vector's data() may point anywhere). */
START_TEST(pointer_empty_array) {
    nvtxw_schema_registry_t* r = nvtxw_schema_registry_create();
    nvtxPayloadSchemaEntry_t es[] = {E(UINT32, "n"), EF(T(INT32), "v", PTR | LI, 0),
                                     EF(T(CSTRING_UTF8), "s", PTR | LI, 0)};
    uint64_t id = add(r, es, 3, STATIC, "vec");
    struct {
        uint32_t n;
        const int32_t* v;
        const char* s;
    } s = {0, (const int32_t*)(uintptr_t)0x10, "dangling"};
    nvtxPayloadData_t p = {id, sizeof s, &s};
    char want[256];
    snprintf(want, sizeof want, "B1 P0(%llu,%zu,vec) F(n) U0 /F F(v) [0 ] /F F(s) T\"\" /F /P /B",
             (unsigned long long)id, sizeof s);
    expect(r, &p, 1, want);
    nvtxw_schema_registry_destroy(r);
}
END_TEST

/* The value events of `type` over `size` bytes as a predefined payload
 * (the general decoder), e.g. " S-2": what a flat schema entry must give. */
static int predefined_value(uint64_t type, const uint8_t* data, size_t size,
                            const nvtxw_visit_options_t* options, char* out, size_t capacity) {
    nvtxPayloadData_t p = {type, size, data};
    nvtxwResultCode_t rc;
    const char* got = record(NULL, &p, 1, &rc, options);
    const char* start = strstr(got, "F()");
    const char* end = strstr(got, " /F");
    if (rc != NVTXW_RESULT_SUCCESS || start == NULL || end == NULL)
        return 0;
    start += 3;
    snprintf(out, capacity, "%.*s", (int)(end - start), start);
    return 1;
}

/* Every scalar type as an entry of a flat STATIC schema (the visitor's fast
 * path), of a schema nested at an odd offset in a DYNAMIC one, and in a
 * schema that is not flat gives the same value events as the general
 * decoder gives the type as a predefined payload; the handle is resolved. */
START_TEST(flat_schema_every_type) {
    nvtxw_visit_options_t options;
    uint8_t data[2 * 16];
    uint64_t type;
    int compared = 0;
    memset(&options, 0, sizeof options);
    options.struct_size = sizeof options;
    options.resolve_string = resolve;
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)(0x81 + 37 * i); /* negative as signed, not a NaN as a float */
    for (type = 1; type < NVTX_PAYLOAD_ENTRY_TYPE_UNION_SELECTOR; type++) {
        size_t size = nvtxw_entry_type_size(type);
        char value[256], flat[600], want[1024];
        nvtxw_schema_registry_t* r;
        uint8_t buf[3 * 16 + 8];
        nvtxPayloadData_t p;
        uint64_t one, outer, loose;
        if (size == 0 || size > 16 || (type >= T(CSTRING) && type <= T(CSTRING_UTF32)) ||
            !predefined_value(type, data, size, &options, value, sizeof value))
            continue;
        if (type == T(NVTX_REGISTERED_STRING_HANDLE)) {
            uint64_t handle = 0x1234;
            memcpy(data, &handle, sizeof handle);
            ck_assert(predefined_value(type, data, size, &options, value, sizeof value));
            ck_assert_str_eq(value, " H4660=registered");
        }
        r = nvtxw_schema_registry_create();
        {
            nvtxPayloadSchemaEntry_t fe[] = {EF(type, "x", 0, 0), EF(type, "y", 0, 0)};
            nvtxPayloadSchemaEntry_t oe[] = {E(UINT8, "n"), EF(0, "in", 0, 0)};
            nvtxPayloadSchemaEntry_t le[] = {EF(type, "x", 0, 0), EF(T(UINT8), "v", FIXED, 1)};
            one = add(r, fe, 2, STATIC, "flat");
            oe[1].type = one;
            outer = add(r, oe, 2, DYNAMIC, "outer");
            loose = add(r, le, 2, STATIC, "loose");
        }
        /* x and y hold the same bytes: both give `value` */
        memset(buf, 0, sizeof buf);
        memcpy(buf, data, size);
        memcpy(buf + size, data, size);
        p = (nvtxPayloadData_t){one, 2 * size, buf};
        snprintf(flat, sizeof flat, "F(x)%s /F F(y)%s /F", value, value);
        snprintf(want, sizeof want, "B1 P0(%llu,%zu,flat) %s /P /B", (unsigned long long)one,
                 2 * size, flat);
        {
            nvtxwResultCode_t rc;
            const char* got = record(r, &p, 1, &rc, &options);
            ck_assert_msg(rc == NVTXW_RESULT_SUCCESS, "type %llu: %s", (unsigned long long)type,
                          nvtxw_last_error());
            ck_assert_str_eq(got, want);
        }
        /* nested after one byte: the inner object at its alignment */
        {
            size_t align = nvtxw_entry_type_align(type), at = align > 1 ? align : 1;
            nvtxwResultCode_t rc;
            const char* got;
            memset(buf, 0, sizeof buf);
            buf[0] = 7;
            memcpy(buf + at, data, size);
            memcpy(buf + at + size, data, size);
            p = (nvtxPayloadData_t){outer, at + 2 * size, buf};
            got = record(r, &p, 1, &rc, &options);
            ck_assert_msg(rc == NVTXW_RESULT_SUCCESS, "type %llu nested: %s",
                          (unsigned long long)type, nvtxw_last_error());
            snprintf(want, sizeof want,
                     "B1 P0(%llu,%zu,outer) F(n) U7 /F F(in) {%llu %s } /F /P /B",
                     (unsigned long long)outer, at + 2 * size, (unsigned long long)one, flat);
            ck_assert_str_eq(got, want);
        }
        /* a fixed array makes the schema not flat: the general entry walk */
        {
            nvtxwResultCode_t rc;
            const char* got;
            memset(buf, 0, sizeof buf);
            memcpy(buf, data, size);
            buf[size] = 3;
            p = (nvtxPayloadData_t){loose, size + 1, buf};
            got = record(r, &p, 1, &rc, &options);
            ck_assert_int_eq(rc, NVTXW_RESULT_SUCCESS);
            snprintf(want, sizeof want, "B1 P0(%llu,%zu,loose) F(x)%s /F F(v) [1 U3 ] /F /P /B",
                     (unsigned long long)loose, size + 1, value);
            ck_assert_str_eq(got, want);
        }
        nvtxw_schema_registry_destroy(r);
        compared++;
    }
    ck_assert_int_ge(compared, 40); /* every integer, float and handle type */
}
END_TEST

/* Value callbacks that stop the walk at the value *ctx counts down to. */
static int stop_on_count(void* ctx) { return --*(int*)ctx == 0 ? 1 : 0; }
static int stop_on_count_signed(void* ctx, int64_t value) {
    (void)value;
    return stop_on_count(ctx);
}
static int stop_on_count_unsigned(void* ctx, uint64_t value) {
    (void)value;
    return stop_on_count(ctx);
}
static int stop_on_count_float(void* ctx, double value) {
    (void)value;
    return stop_on_count(ctx);
}

/* A callback that stops the walk of a flat schema: the error names the
 * entry being walked and the callback, as for any other schema. */
START_TEST(flat_schema_stops) {
    static const char* const callbacks[] = {"field_begin", "on_unsigned", "field_end", "on_signed"};
    static const int stop_events[] = {6, 7, 8, 4};
    static const char* const fields[] = {"\"b\"", "\"b\"", "\"b\"", "\"a\""};
    nvtxw_schema_registry_t* r = nvtxw_schema_registry_create();
    nvtxPayloadSchemaEntry_t es[] = {E(INT32, "a"), E(UINT16, "b"), E(DOUBLE, "c")};
    uint64_t id = add(r, es, 3, STATIC, "three");
    struct {
        int32_t a;
        uint16_t b;
        double c;
    } v = {-5, 9, 0.5};
    nvtxPayloadData_t p = {id, sizeof v, &v};
    for (size_t k = 0; k < 4; k++) {
        recorder_t rec;
        memset(&rec, 0, sizeof rec);
        rec.stop_at = stop_events[k]; /* B P F(a) S /F F(b) U /F ... */
        ck_assert_int_eq(nvtxw_payload_visit(r, &p, 1, &recorder_visitor, &rec, NULL),
                         NVTXW_RESULT_FAILED);
        ck_assert_msg(strstr(nvtxw_last_error(), callbacks[k]) != NULL, "%s: %s", callbacks[k],
                      nvtxw_last_error());
        ck_assert_msg(strstr(nvtxw_last_error(), fields[k]) != NULL, "%s: %s", fields[k],
                      nvtxw_last_error());
        ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "schema"));
    }
    /* A visitor of values only (no field_begin, no field_end) takes the
     * flat walk's other loop: its stops are named the same way. */
    for (int k = 1; k <= 3; k++) {
        static const char* const value_callbacks[] = {"", "on_signed", "on_unsigned", "on_float"};
        static const char* const value_fields[] = {"", "\"a\"", "\"b\"", "\"c\""};
        nvtxw_visitor_t values;
        int stop_at = k;
        memset(&values, 0, sizeof values);
        values.struct_size = sizeof values;
        values.on_signed = stop_on_count_signed;
        values.on_unsigned = stop_on_count_unsigned;
        values.on_float = stop_on_count_float;
        ck_assert_int_eq(nvtxw_payload_visit(r, &p, 1, &values, &stop_at, NULL),
                         NVTXW_RESULT_FAILED);
        ck_assert_msg(strstr(nvtxw_last_error(), value_callbacks[k]) != NULL, "%s: %s",
                      value_callbacks[k], nvtxw_last_error());
        ck_assert_msg(strstr(nvtxw_last_error(), value_fields[k]) != NULL, "%s: %s",
                      value_fields[k], nvtxw_last_error());
    }
    nvtxw_schema_registry_destroy(r);
}
END_TEST

int main(void) {
    Suite* s = suite_create("visit");
    TCase* tc = tcase_create("core");
    tcase_add_test(tc, predefined_integers);
    tcase_add_test(tc, predefined_special_integers);
    tcase_add_test(tc, predefined_floats);
    tcase_add_test(tc, predefined_strings);
    tcase_add_test(tc, skipped_and_raw);
    tcase_add_test(tc, array_kinds);
    tcase_add_test(tc, multi_dimensional);
    tcase_add_test(tc, string_forms);
    tcase_add_test(tc, pointers_and_offsets);
    tcase_add_test(tc, foreign_pointer_deep_copy);
    tcase_add_test(tc, nested_schemas);
    tcase_add_test(tc, unions_and_enums);
    tcase_add_test(tc, field_info_semantics);
    tcase_add_test(tc, visitor_stops);
    tcase_add_test(tc, dynamic_cursor_rule);
    tcase_add_test(tc, helper_payload_structs);
    tcase_add_test(tc, enum_negative_values);
    tcase_add_test(tc, static_payload_without_tail);
    tcase_add_test(tc, pointer_empty_array);
    tcase_add_test(tc, flat_schema_every_type);
    tcase_add_test(tc, flat_schema_stops);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
