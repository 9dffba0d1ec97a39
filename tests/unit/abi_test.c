/*
 * abi_test.c - the NVTXW v2 ABI as our public headers spell it, checked
 * against ../shared/spec/nvtxw-abi.md: sections 1-3 (function table, attribute
 * structs, constants), 4.1-4.2 (helper types) and the conformance list of
 * section 8, items 1-27.
 *
 * Every layout fact is checked twice: by _Static_assert (a wrong header does
 * not compile) and by a runtime Check assertion that names the struct, member
 * or macro (so a report says what is wrong). Expected numbers are literals
 * from the spec, never recomputed from the headers. Layout numbers are LP64;
 * on other data models the test is skipped (exit 77), never passed.
 */
#include <check.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nvtxw/nvtxw.h>

#include "run_suite.h"

#define ABI_LP64 (UINTPTR_MAX == UINT64_MAX && SIZE_MAX == UINT64_MAX)

/* Type codes, so that a macro's type is checked as well as its value. */
enum type_code {
    T_OTHER,
    T_SCHAR,
    T_UCHAR,
    T_SHORT,
    T_USHORT,
    T_INT,
    T_UINT,
    T_LONG,
    T_ULONG,
    T_LLONG,
    T_ULLONG
};
#define TYPE_CODE(x)                                                                               \
    _Generic((x), signed char                                                                      \
             : T_SCHAR, unsigned char                                                              \
             : T_UCHAR, short                                                                      \
             : T_SHORT, unsigned short                                                             \
             : T_USHORT, int                                                                       \
             : T_INT, unsigned int                                                                 \
             : T_UINT, long                                                                        \
             : T_LONG, unsigned long                                                               \
             : T_ULONG, long long                                                                  \
             : T_LLONG, unsigned long long                                                         \
             : T_ULLONG, default                                                                   \
             : T_OTHER)
/* The code of a typedef'd integer type (int16_t, uint64_t...). */
#define TYPE_CODE_OF(T) TYPE_CODE((T)0)

#define STATIC_EQ(a, b, what) _Static_assert((a) == (b), what)

/* sizeof / alignof / offsetof, each statically and at run time. */
#define EXPECT_SIZE(T, n)                                                                          \
    do {                                                                                           \
        STATIC_EQ(sizeof(T), n, "sizeof(" #T ") != " #n);                                          \
        ck_assert_msg(sizeof(T) == (size_t)(n), "sizeof(%s) is %zu, expected %zu", #T, sizeof(T),  \
                      (size_t)(n));                                                                \
    } while (0)
#define EXPECT_ALIGN(T, n)                                                                         \
    do {                                                                                           \
        STATIC_EQ(alignof(T), n, "alignof(" #T ") != " #n);                                        \
        ck_assert_msg(alignof(T) == (size_t)(n), "alignof(%s) is %zu, expected %zu", #T,           \
                      alignof(T), (size_t)(n));                                                    \
    } while (0)
#define EXPECT_OFF(T, m, n)                                                                        \
    do {                                                                                           \
        STATIC_EQ(offsetof(T, m), n, "offsetof(" #T ", " #m ") != " #n);                           \
        ck_assert_msg(offsetof(T, m) == (size_t)(n), "offsetof(%s, %s) is %zu, expected %zu", #T,  \
                      #m, offsetof(T, m), (size_t)(n));                                            \
    } while (0)
/* Member type: size of the member and the type code of an integer member. */
#define EXPECT_MEMBER_SIZE(T, m, n)                                                                \
    do {                                                                                           \
        STATIC_EQ(sizeof(((T*)0)->m), n, "sizeof(" #T "." #m ") != " #n);                          \
        ck_assert_msg(sizeof(((T*)0)->m) == (size_t)(n), "sizeof(%s.%s) is %zu, expected %zu", #T, \
                      #m, sizeof(((T*)0)->m), (size_t)(n));                                        \
    } while (0)
#define EXPECT_MEMBER_INT(T, m, IT)                                                                \
    do {                                                                                           \
        STATIC_EQ(TYPE_CODE(((T*)0)->m), TYPE_CODE_OF(IT), #T "." #m " is not " #IT);              \
        ck_assert_msg(TYPE_CODE(((T*)0)->m) == TYPE_CODE_OF(IT), "%s.%s is not %s", #T, #m, #IT);  \
    } while (0)

/* Macro value (compared as int64_t; every ABI constant fits). */
#define EXPECT_VAL(M, v)                                                                           \
    do {                                                                                           \
        STATIC_EQ((int64_t)(M), (int64_t)(v), #M " != " #v);                                       \
        ck_assert_msg((int64_t)(M) == (int64_t)(v), "%s is %lld, expected %lld (%s)", #M,          \
                      (long long)(M), (long long)(v), #v);                                         \
    } while (0)
/* Macro value and type. */
#define EXPECT_TVAL(M, v, IT)                                                                      \
    do {                                                                                           \
        EXPECT_VAL(M, v);                                                                          \
        STATIC_EQ(TYPE_CODE(M), TYPE_CODE_OF(IT), #M " is not of type " #IT);                      \
        ck_assert_msg(TYPE_CODE(M) == TYPE_CODE_OF(IT), "%s has type code %d, expected %s (%d)",   \
                      #M, (int)TYPE_CODE(M), #IT, (int)TYPE_CODE_OF(IT));                          \
    } while (0)

/* A function-table slot: offset and exact function pointer type (spec 1.4). */
#define EXPECT_SLOT(m, off, FT)                                                                    \
    do {                                                                                           \
        EXPECT_OFF(nvtxwInterface_v2_t, m, off);                                                   \
        STATIC_EQ(_Generic(((nvtxwInterface_v2_t*)0)->m, FT : 1, default : 0), 1,                  \
                  "nvtxwInterface_v2_t." #m " is not " #FT);                                       \
        ck_assert_msg(_Generic(((nvtxwInterface_v2_t*)0)->m, FT : 1, default : 0),                 \
                      "nvtxwInterface_v2_t.%s is not %s", #m, #FT);                                \
    } while (0)

#if ABI_LP64

/* ---- Section 1: result codes, versions, handles, the function table -------- */

START_TEST(test_result_codes) {
    /* item 17 */
    EXPECT_VAL(NVTXW_RESULT_SUCCESS, 0);
    EXPECT_VAL(NVTXW_RESULT_FAILED, 1);
    EXPECT_VAL(NVTXW_RESULT_INVALID_ARGUMENT, 2);
    EXPECT_VAL(NVTXW_RESULT_LIBRARY_NOT_FOUND, 3);
    EXPECT_VAL(NVTXW_RESULT_LIBRARY_LOAD_FAILED, 4);
    EXPECT_VAL(NVTXW_RESULT_LIBRARY_SYMBOL_MISSING, 5);
    EXPECT_VAL(NVTXW_RESULT_INTERFACE_VERSION_NOT_SUPPORTED, 6);
    EXPECT_VAL(NVTXW_RESULT_NOT_SUPPORTED, 7);
    ck_assert_int_eq(TYPE_CODE_OF(nvtxwResultCode_t), TYPE_CODE_OF(int32_t));
    ck_assert_int_eq(TYPE_CODE_OF(nvtxwInterfaceVersion_t), TYPE_CODE_OF(int32_t));
}
END_TEST

START_TEST(test_entry_point_names) {
    /* item 18 (the loader's NVTXW3_LIBRARY / libnvtxw3.so are not in these headers) */
    EXPECT_VAL(NVTXW_INTERFACE_VERSION, 2);
    ck_assert_str_eq(NVTXW_GET_INTERFACE_SYMBOL_NAME, "nvtxwGetInterface");
    ck_assert_str_eq(NVTXW_FINALIZE_SYMBOL_NAME, "nvtxwFinalize");
    ck_assert_uint_eq(sizeof(NVTXW_GET_INTERFACE_SYMBOL_NAME), sizeof("nvtxwGetInterface"));
    ck_assert_uint_eq(sizeof(NVTXW_FINALIZE_SYMBOL_NAME), sizeof("nvtxwFinalize"));
    ck_assert_int_eq(_Generic((nvtxwGetInterface_t)0,
                              nvtxwResultCode_t(*)(nvtxwInterfaceVersion_t, const void**) : 1,
                              default : 0),
                     1);
    ck_assert_int_eq(_Generic((nvtxwFinalize_t)0, void (*)(void) : 1, default : 0), 1);
}
END_TEST

START_TEST(test_handles) {
    /* spec 1.3: all handles are 8 bytes on LP64 */
    EXPECT_SIZE(nvtxwSessionHandle_t, 8);
    EXPECT_SIZE(nvtxwStreamHandle_t, 8);
    EXPECT_SIZE(nvtxDomainHandle_t, 8);
    EXPECT_SIZE(nvtxStringHandle_t, 8);
    EXPECT_SIZE(nvtxRangeId_t, 8);
    ck_assert_int_eq(TYPE_CODE_OF(nvtxRangeId_t), TYPE_CODE_OF(uint64_t));
    ck_assert_int_eq(
        _Generic((nvtxDomainHandle_t)0, struct nvtxDomainRegistration_st * : 1, default : 0), 1);
    ck_assert_int_eq(
        _Generic((nvtxStringHandle_t)0, struct nvtxStringRegistration_st * : 1, default : 0), 1);
}
END_TEST

START_TEST(test_interface_table_layout) {
    /* items 1 and 2 */
    EXPECT_SIZE(nvtxwInterface_v2_t, 512);
    EXPECT_SIZE(nvtxwInterface_t, 512);
    EXPECT_ALIGN(nvtxwInterface_v2_t, alignof(void*));
    EXPECT_SIZE(nvtxwInterface_v2_t, 64 * sizeof(void*)); /* 64 slots */
    ck_assert_int_eq(_Generic((nvtxwInterface_t*)0, nvtxwInterface_v2_t * : 1, default : 0), 1);
    ck_assert_int_eq(_Generic((nvtxwInterface_t*)0, struct nvtxwInterface_v2 * : 1, default : 0),
                     1);

    EXPECT_SLOT(SessionBegin, 0,
                nvtxwResultCode_t(*)(const nvtxwSessionAttributes_t*, nvtxwSessionHandle_t*));
    EXPECT_SLOT(SessionEnd, 8, nvtxwResultCode_t(*)(nvtxwSessionHandle_t));
    EXPECT_SLOT(DomainRegister, 16,
                nvtxwResultCode_t(*)(nvtxwSessionHandle_t, const nvtxwDomainAttributes_t*,
                                     nvtxDomainHandle_t*));
    EXPECT_SLOT(CategoryRegister, 24,
                nvtxwResultCode_t(*)(nvtxDomainHandle_t, uint32_t, const char*));
    EXPECT_SLOT(StringRegister, 32,
                nvtxwResultCode_t(*)(nvtxDomainHandle_t, const char*, nvtxStringHandle_t*));
    EXPECT_SLOT(ResourceRegister, 40,
                nvtxwResultCode_t(*)(nvtxDomainHandle_t, const nvtxResourceAttributes_t*));
    EXPECT_SLOT(ScopeRegister, 48,
                nvtxwResultCode_t(*)(nvtxDomainHandle_t, const nvtxScopeAttr_t*, uint64_t*));
    EXPECT_SLOT(
        SchemaRegister, 56,
        nvtxwResultCode_t(*)(nvtxDomainHandle_t, const nvtxPayloadSchemaAttr_t*, uint64_t*));
    EXPECT_SLOT(EnumRegister, 64,
                nvtxwResultCode_t(*)(nvtxDomainHandle_t, const nvtxPayloadEnumAttr_t*, uint64_t*));
    EXPECT_SLOT(CounterRegister, 72,
                nvtxwResultCode_t(*)(nvtxDomainHandle_t, const nvtxCounterAttr_t*, uint64_t*));
    EXPECT_SLOT(TimeDomainRegister, 80,
                nvtxwResultCode_t(*)(nvtxDomainHandle_t, const nvtxTimeDomainAttr_t*, uint64_t*));
    EXPECT_SLOT(StreamOpen, 88,
                nvtxwResultCode_t(*)(nvtxwSessionHandle_t, const nvtxwStreamAttributes_t*,
                                     nvtxwStreamHandle_t*));
    EXPECT_SLOT(StreamClose, 96, nvtxwResultCode_t(*)(nvtxwStreamHandle_t));
    EXPECT_SLOT(EventWrite, 104,
                nvtxwResultCode_t(*)(nvtxwStreamHandle_t, const nvtxPayloadData_t*, size_t));
    EXPECT_SLOT(EventBatchWrite, 112,
                nvtxwResultCode_t(*)(nvtxwStreamHandle_t, const nvtxEventBatch_t*));
    EXPECT_SLOT(CounterWrite, 120,
                nvtxwResultCode_t(*)(nvtxwStreamHandle_t, int64_t, uint64_t, const void*, size_t));
    EXPECT_SLOT(CounterNoValueWrite, 128,
                nvtxwResultCode_t(*)(nvtxwStreamHandle_t, int64_t, uint64_t, uint8_t));
    EXPECT_SLOT(CounterBatchWrite, 136,
                nvtxwResultCode_t(*)(nvtxwStreamHandle_t, const nvtxCounterBatch_t*));
    EXPECT_SLOT(TimeSyncPointWrite, 144,
                nvtxwResultCode_t(*)(nvtxwStreamHandle_t, uint64_t, uint64_t, int64_t, int64_t));
    EXPECT_SLOT(TimeSyncPointTableWrite, 152,
                nvtxwResultCode_t(*)(nvtxwStreamHandle_t, uint64_t, uint64_t,
                                     const nvtxSyncPoint_t*, size_t));
    EXPECT_SLOT(
        TimestampConversionFactorWrite, 160,
        nvtxwResultCode_t(*)(nvtxwStreamHandle_t, uint64_t, uint64_t, double, int64_t, int64_t));

    /* reserved: 43 slots of void (*)(void) filling the table from byte 168 */
    EXPECT_OFF(nvtxwInterface_v2_t, reserved, 168);
    EXPECT_MEMBER_SIZE(nvtxwInterface_v2_t, reserved, 43 * 8);
    EXPECT_MEMBER_SIZE(nvtxwInterface_v2_t, reserved[0], 8);
    STATIC_EQ(sizeof(((nvtxwInterface_v2_t*)0)->reserved) /
                  sizeof(((nvtxwInterface_v2_t*)0)->reserved[0]),
              43, "reserved has 43 elements");
    ck_assert_uint_eq(sizeof(((nvtxwInterface_v2_t*)0)->reserved) /
                          sizeof(((nvtxwInterface_v2_t*)0)->reserved[0]),
                      43);
    ck_assert_int_eq(
        _Generic(((nvtxwInterface_v2_t*)0)->reserved[0], void (*)(void) : 1, default : 0), 1);
    EXPECT_OFF(nvtxwInterface_v2_t, reserved[42], 504);
    ck_assert_uint_eq(offsetof(nvtxwInterface_v2_t, reserved) + 43 * sizeof(void*),
                      sizeof(nvtxwInterface_v2_t));
    /* 21 baseline members + 43 reserved = 64 slots, no padding in between */
    ck_assert_uint_eq(offsetof(nvtxwInterface_v2_t, reserved) / sizeof(void*), 21);
}
END_TEST

static nvtxwResultCode_t fake_session_end(nvtxwSessionHandle_t session) {
    (void)session;
    return NVTXW_RESULT_SUCCESS;
}

static int has_evaluations;

static const nvtxwInterface_t* counted(const nvtxwInterface_t* iface) {
    has_evaluations++;
    return iface;
}

START_TEST(test_interface_has) {
    nvtxwInterface_t table;
    memset(&table, 0, sizeof(table));
    table.SessionEnd = fake_session_end;
    const nvtxwInterface_t* none = NULL;

    ck_assert_int_eq(NVTXW_INTERFACE_HAS(none, SessionEnd), 0);
    ck_assert_int_ne(NVTXW_INTERFACE_HAS(&table, SessionEnd), 0);
    ck_assert_int_eq(NVTXW_INTERFACE_HAS(&table, SessionBegin), 0);
    ck_assert_int_eq(NVTXW_INTERFACE_HAS(&table, TimestampConversionFactorWrite), 0);
    ck_assert_int_eq(NVTXW_INTERFACE_HAS(&table, reserved[0]), 0);
    ck_assert_int_eq(NVTXW_INTERFACE_HAS(&table, reserved[42]), 0);
    table.reserved[42] = (void (*)(void))fake_session_end;
    ck_assert_int_ne(NVTXW_INTERFACE_HAS(&table, reserved[42]), 0);

    /* spec 1.4: iface is evaluated twice when non-NULL, once when NULL */
    has_evaluations = 0;
    ck_assert_int_ne(NVTXW_INTERFACE_HAS(counted(&table), SessionEnd), 0);
    ck_assert_int_eq(has_evaluations, 2);
    has_evaluations = 0;
    ck_assert_int_eq(NVTXW_INTERFACE_HAS(counted(NULL), SessionEnd), 0);
    ck_assert_int_eq(has_evaluations, 1);

    /* NVTX_NULLPTR is NULL in C */
    ck_assert_ptr_null(NVTX_NULLPTR);
}
END_TEST

/* ---- Section 2: attribute structs ------------------------------------------ */

START_TEST(test_session_domain_stream_attributes) {
    /* items 4, 5, 6; spec 2.1-2.3 */
    EXPECT_SIZE(nvtxwSessionAttributes_t, 24);
    EXPECT_ALIGN(nvtxwSessionAttributes_t, 8);
    EXPECT_OFF(nvtxwSessionAttributes_t, structSize, 0);
    EXPECT_OFF(nvtxwSessionAttributes_t, name, 8);
    EXPECT_OFF(nvtxwSessionAttributes_t, configString, 16);
    EXPECT_MEMBER_INT(nvtxwSessionAttributes_t, structSize, size_t);
    ck_assert_int_eq(
        _Generic((struct nvtxwSessionAttributes_v1*)0, nvtxwSessionAttributes_t * : 1, default : 0),
        1);

    EXPECT_SIZE(nvtxwDomainAttributes_t, 16);
    EXPECT_OFF(nvtxwDomainAttributes_t, structSize, 0);
    EXPECT_OFF(nvtxwDomainAttributes_t, name, 8);
    EXPECT_MEMBER_INT(nvtxwDomainAttributes_t, structSize, size_t);
    ck_assert_int_eq(
        _Generic((struct nvtxwDomainAttributes_v1*)0, nvtxwDomainAttributes_t * : 1, default : 0),
        1);

    EXPECT_SIZE(nvtxwStreamAttributes_t, 56);
    EXPECT_ALIGN(nvtxwStreamAttributes_t, 8);
    EXPECT_OFF(nvtxwStreamAttributes_t, structSize, 0);
    EXPECT_OFF(nvtxwStreamAttributes_t, name, 8);
    EXPECT_OFF(nvtxwStreamAttributes_t, domain, 16);
    EXPECT_OFF(nvtxwStreamAttributes_t, scopeId, 24);
    EXPECT_OFF(nvtxwStreamAttributes_t, timeDomainId, 32);
    EXPECT_OFF(nvtxwStreamAttributes_t, orderInterleaving, 40);
    EXPECT_OFF(nvtxwStreamAttributes_t, orderingType, 42);
    EXPECT_OFF(nvtxwStreamAttributes_t, orderingSkid, 44);
    EXPECT_OFF(nvtxwStreamAttributes_t, orderingSkidAmount, 48);
    EXPECT_MEMBER_INT(nvtxwStreamAttributes_t, scopeId, uint64_t);
    EXPECT_MEMBER_INT(nvtxwStreamAttributes_t, timeDomainId, uint64_t);
    EXPECT_MEMBER_INT(nvtxwStreamAttributes_t, orderInterleaving, int16_t);
    EXPECT_MEMBER_INT(nvtxwStreamAttributes_t, orderingType, int16_t);
    EXPECT_MEMBER_INT(nvtxwStreamAttributes_t, orderingSkid, int32_t);
    EXPECT_MEMBER_INT(nvtxwStreamAttributes_t, orderingSkidAmount, int64_t);
    ck_assert_int_eq(
        _Generic((struct nvtxwStreamAttributes_v1*)0, nvtxwStreamAttributes_t * : 1, default : 0),
        1);
}
END_TEST

START_TEST(test_payload_data_and_semantics_header) {
    /* items 7, 14; spec 2.4, 2.5 */
    EXPECT_SIZE(nvtxPayloadData_t, 24);
    EXPECT_OFF(nvtxPayloadData_t, schemaId, 0);
    EXPECT_OFF(nvtxPayloadData_t, size, 8);
    EXPECT_OFF(nvtxPayloadData_t, payload, 16);
    EXPECT_MEMBER_INT(nvtxPayloadData_t, schemaId, uint64_t);
    EXPECT_MEMBER_INT(nvtxPayloadData_t, size, size_t);

    EXPECT_SIZE(nvtxSemanticsHeader_t, 16);
    EXPECT_ALIGN(nvtxSemanticsHeader_t, 8);
    EXPECT_OFF(nvtxSemanticsHeader_t, structSize, 0);
    EXPECT_OFF(nvtxSemanticsHeader_t, semanticId, 4);
    EXPECT_OFF(nvtxSemanticsHeader_t, version, 6);
    EXPECT_OFF(nvtxSemanticsHeader_t, next, 8);
    EXPECT_MEMBER_INT(nvtxSemanticsHeader_t, structSize, uint32_t);
    EXPECT_MEMBER_INT(nvtxSemanticsHeader_t, semanticId, uint16_t);
    EXPECT_MEMBER_INT(nvtxSemanticsHeader_t, version, uint16_t);

    /* spec 2.18 */
    EXPECT_SIZE(nvtxPayloadEntryTypeInfo_t, 4);
    EXPECT_ALIGN(nvtxPayloadEntryTypeInfo_t, 2);
    EXPECT_OFF(nvtxPayloadEntryTypeInfo_t, size, 0);
    EXPECT_OFF(nvtxPayloadEntryTypeInfo_t, align, 2);
}
END_TEST

START_TEST(test_schema_structs) {
    /* items 8, 9, 10; spec 2.6-2.9 */
    EXPECT_SIZE(nvtxPayloadSchemaEntry_t, 64);
    EXPECT_OFF(nvtxPayloadSchemaEntry_t, flags, 0);
    EXPECT_OFF(nvtxPayloadSchemaEntry_t, type, 8);
    EXPECT_OFF(nvtxPayloadSchemaEntry_t, name, 16);
    EXPECT_OFF(nvtxPayloadSchemaEntry_t, description, 24);
    EXPECT_OFF(nvtxPayloadSchemaEntry_t, arrayOrUnionDetail, 32);
    EXPECT_OFF(nvtxPayloadSchemaEntry_t, offset, 40);
    EXPECT_OFF(nvtxPayloadSchemaEntry_t, semantics, 48);
    EXPECT_OFF(nvtxPayloadSchemaEntry_t, reserved, 56);
    EXPECT_MEMBER_INT(nvtxPayloadSchemaEntry_t, flags, uint64_t);
    EXPECT_MEMBER_INT(nvtxPayloadSchemaEntry_t, type, uint64_t);

    EXPECT_SIZE(nvtxPayloadSchemaAttr_t, 80);
    EXPECT_OFF(nvtxPayloadSchemaAttr_t, fieldMask, 0);
    EXPECT_OFF(nvtxPayloadSchemaAttr_t, name, 8);
    EXPECT_OFF(nvtxPayloadSchemaAttr_t, type, 16);
    EXPECT_OFF(nvtxPayloadSchemaAttr_t, flags, 24);
    EXPECT_OFF(nvtxPayloadSchemaAttr_t, entries, 32);
    EXPECT_OFF(nvtxPayloadSchemaAttr_t, numEntries, 40);
    EXPECT_OFF(nvtxPayloadSchemaAttr_t, payloadStaticSize, 48);
    EXPECT_OFF(nvtxPayloadSchemaAttr_t, packAlign, 56);
    EXPECT_OFF(nvtxPayloadSchemaAttr_t, schemaId, 64);
    EXPECT_OFF(nvtxPayloadSchemaAttr_t, extension, 72);
    EXPECT_MEMBER_INT(nvtxPayloadSchemaAttr_t, numEntries, size_t);
    EXPECT_MEMBER_INT(nvtxPayloadSchemaAttr_t, schemaId, uint64_t);

    EXPECT_SIZE(nvtxPayloadEnum_t, 24);
    EXPECT_OFF(nvtxPayloadEnum_t, name, 0);
    EXPECT_OFF(nvtxPayloadEnum_t, value, 8);
    EXPECT_OFF(nvtxPayloadEnum_t, isFlag, 16);
    EXPECT_MEMBER_INT(nvtxPayloadEnum_t, isFlag, int8_t);

    EXPECT_SIZE(nvtxPayloadEnumAttr_t, 56);
    EXPECT_OFF(nvtxPayloadEnumAttr_t, fieldMask, 0);
    EXPECT_OFF(nvtxPayloadEnumAttr_t, name, 8);
    EXPECT_OFF(nvtxPayloadEnumAttr_t, entries, 16);
    EXPECT_OFF(nvtxPayloadEnumAttr_t, numEntries, 24);
    EXPECT_OFF(nvtxPayloadEnumAttr_t, sizeOfEnum, 32);
    EXPECT_OFF(nvtxPayloadEnumAttr_t, schemaId, 40);
    EXPECT_OFF(nvtxPayloadEnumAttr_t, extension, 48);
}
END_TEST

START_TEST(test_scope_time_batch_structs) {
    /* items 11, 12; spec 2.10-2.13 */
    EXPECT_SIZE(nvtxScopeAttr_t, 32);
    EXPECT_OFF(nvtxScopeAttr_t, structSize, 0);
    EXPECT_OFF(nvtxScopeAttr_t, path, 8);
    EXPECT_OFF(nvtxScopeAttr_t, parentScope, 16);
    EXPECT_OFF(nvtxScopeAttr_t, scopeId, 24);
    EXPECT_MEMBER_INT(nvtxScopeAttr_t, structSize, size_t);

    /* no size field: scopeId is the first member */
    EXPECT_SIZE(nvtxTimeDomainAttr_t, 48);
    EXPECT_OFF(nvtxTimeDomainAttr_t, scopeId, 0);
    EXPECT_OFF(nvtxTimeDomainAttr_t, timestampTypeId, 8);
    EXPECT_OFF(nvtxTimeDomainAttr_t, timeDomainId, 16);
    EXPECT_OFF(nvtxTimeDomainAttr_t, timerFlags, 24);
    EXPECT_OFF(nvtxTimeDomainAttr_t, timerResolution, 32);
    EXPECT_OFF(nvtxTimeDomainAttr_t, timerStart, 40);
    EXPECT_MEMBER_INT(nvtxTimeDomainAttr_t, scopeId, uint64_t);
    EXPECT_MEMBER_INT(nvtxTimeDomainAttr_t, timerResolution, int64_t);

    EXPECT_SIZE(nvtxSyncPoint_t, 16);
    EXPECT_OFF(nvtxSyncPoint_t, src, 0);
    EXPECT_OFF(nvtxSyncPoint_t, dst, 8);
    EXPECT_MEMBER_INT(nvtxSyncPoint_t, src, int64_t);
    EXPECT_MEMBER_INT(nvtxSyncPoint_t, dst, int64_t);

    EXPECT_SIZE(nvtxEventBatch_t, 64);
    EXPECT_OFF(nvtxEventBatch_t, eventSchemaId, 0);
    EXPECT_OFF(nvtxEventBatch_t, size, 8);
    EXPECT_OFF(nvtxEventBatch_t, events, 16);
    EXPECT_OFF(nvtxEventBatch_t, scope, 24);
    EXPECT_OFF(nvtxEventBatch_t, flags, 32);
    EXPECT_OFF(nvtxEventBatch_t, flexData, 40);
    EXPECT_OFF(nvtxEventBatch_t, flexDataSize, 48);
    EXPECT_OFF(nvtxEventBatch_t, flexDataOffset, 56);
}
END_TEST

START_TEST(test_counter_structs) {
    /* item 13; spec 2.14, 2.15 */
    EXPECT_SIZE(nvtxCounterAttr_t, 56);
    EXPECT_OFF(nvtxCounterAttr_t, structSize, 0);
    EXPECT_OFF(nvtxCounterAttr_t, schemaId, 8);
    EXPECT_OFF(nvtxCounterAttr_t, name, 16);
    EXPECT_OFF(nvtxCounterAttr_t, description, 24);
    EXPECT_OFF(nvtxCounterAttr_t, scopeId, 32);
    EXPECT_OFF(nvtxCounterAttr_t, semantics, 40);
    EXPECT_OFF(nvtxCounterAttr_t, counterId, 48);

    EXPECT_SIZE(nvtxCounterBatch_t, 48);
    EXPECT_OFF(nvtxCounterBatch_t, counterId, 0);
    EXPECT_OFF(nvtxCounterBatch_t, counters, 8);
    EXPECT_OFF(nvtxCounterBatch_t, countersSize, 16);
    EXPECT_OFF(nvtxCounterBatch_t, flags, 24);
    EXPECT_OFF(nvtxCounterBatch_t, timestamps, 32);
    EXPECT_OFF(nvtxCounterBatch_t, timestampsSize, 40);
    ck_assert_int_eq(
        _Generic(((nvtxCounterBatch_t*)0)->timestamps, const int64_t* : 1, default : 0), 1);
}
END_TEST

START_TEST(test_semantic_extensions) {
    /* spec 2.5 */
    EXPECT_VAL(NVTX_SEMANTIC_ID_SCOPE_V1, 1);
    EXPECT_VAL(NVTX_SEMANTIC_ID_TIME_V1, 2);
    EXPECT_VAL(NVTX_TIME_SEMANTIC_VERSION, 1);
    EXPECT_VAL(NVTX_SEMANTIC_ID_COUNTERS_V1, 5);
    EXPECT_VAL(NVTX_COUNTER_SEMANTIC_VERSION, 2);

    EXPECT_SIZE(nvtxSemanticsScope_t, 24);
    EXPECT_OFF(nvtxSemanticsScope_t, header, 0);
    EXPECT_OFF(nvtxSemanticsScope_t, scopeId, 16);
    EXPECT_SIZE(nvtxSemanticsTime_t, 24);
    EXPECT_OFF(nvtxSemanticsTime_t, header, 0);
    EXPECT_OFF(nvtxSemanticsTime_t, timeDomainId, 16);

    EXPECT_SIZE(nvtxCounterLimit_t, 8);
    EXPECT_OFF(nvtxCounterLimit_t, i64, 0);
    EXPECT_OFF(nvtxCounterLimit_t, u64, 0);
    EXPECT_OFF(nvtxCounterLimit_t, f64, 0);
    EXPECT_SIZE(nvtxSemanticsCounter_t, 72);
    EXPECT_OFF(nvtxSemanticsCounter_t, header, 0);
    EXPECT_OFF(nvtxSemanticsCounter_t, flags, 16);
    EXPECT_OFF(nvtxSemanticsCounter_t, unit, 24);
    EXPECT_OFF(nvtxSemanticsCounter_t, unitScaleNumerator, 32);
    EXPECT_OFF(nvtxSemanticsCounter_t, unitScaleDenominator, 40);
    EXPECT_OFF(nvtxSemanticsCounter_t, limitType, 48);
    EXPECT_OFF(nvtxSemanticsCounter_t, min, 56);
    EXPECT_OFF(nvtxSemanticsCounter_t, max, 64);
    EXPECT_MEMBER_INT(nvtxSemanticsCounter_t, limitType, int64_t);

    /* counter semantic flags and limit types */
    EXPECT_VAL(NVTX_COUNTER_FLAGS_NONE, 0);
    EXPECT_VAL(NVTX_COUNTER_FLAG_NORMALIZE, 2);
    EXPECT_VAL(NVTX_COUNTER_FLAG_LIMIT_MIN, 4);
    EXPECT_VAL(NVTX_COUNTER_FLAG_LIMIT_MAX, 8);
    EXPECT_VAL(NVTX_COUNTER_FLAG_LIMITS, 12);
    EXPECT_VAL(NVTX_COUNTER_FLAG_VALUETYPE_ABSOLUTE, 16);
    EXPECT_VAL(NVTX_COUNTER_FLAG_VALUETYPE_DELTA, 32);
    EXPECT_VAL(NVTX_COUNTER_FLAG_VALUETYPE_DELTA_SINCE_START, 48);
    EXPECT_VAL(NVTX_COUNTER_FLAG_INTERPOLATION_POINT, 256);
    EXPECT_VAL(NVTX_COUNTER_FLAG_INTERPOLATION_SINCE_LAST, 512);
    EXPECT_VAL(NVTX_COUNTER_FLAG_INTERPOLATION_UNTIL_NEXT, 768);
    EXPECT_VAL(NVTX_COUNTER_FLAG_INTERPOLATION_LINEAR, 1024);
    EXPECT_VAL(NVTX_COUNTER_LIMIT_UNDEFINED, 0);
    EXPECT_VAL(NVTX_COUNTER_LIMIT_I64, 1);
    EXPECT_VAL(NVTX_COUNTER_LIMIT_U64, 2);
    EXPECT_VAL(NVTX_COUNTER_LIMIT_F64, 3);
}
END_TEST

START_TEST(test_resource_attributes) {
    /* item 15; spec 2.16: our mirror of nvtxResourceAttributes_v0 */
    EXPECT_SIZE(nvtxw_resource_attributes_t, 32);
    EXPECT_ALIGN(nvtxw_resource_attributes_t, 8);
    EXPECT_VAL(NVTXW_RESOURCE_ATTRIB_STRUCT_SIZE, 32);
    ck_assert_int_eq(TYPE_CODE(NVTXW_RESOURCE_ATTRIB_STRUCT_SIZE), TYPE_CODE_OF(uint16_t));
    EXPECT_OFF(nvtxw_resource_attributes_t, version, 0);
    EXPECT_OFF(nvtxw_resource_attributes_t, size, 2);
    EXPECT_OFF(nvtxw_resource_attributes_t, identifierType, 4);
    EXPECT_OFF(nvtxw_resource_attributes_t, identifier, 8);
    EXPECT_OFF(nvtxw_resource_attributes_t, identifier.pValue, 8);
    EXPECT_OFF(nvtxw_resource_attributes_t, identifier.ullValue, 8);
    EXPECT_OFF(nvtxw_resource_attributes_t, messageType, 16);
    EXPECT_OFF(nvtxw_resource_attributes_t, message, 24);
    EXPECT_OFF(nvtxw_resource_attributes_t, message.ascii, 24);
    EXPECT_OFF(nvtxw_resource_attributes_t, message.unicode, 24);
    EXPECT_OFF(nvtxw_resource_attributes_t, message.registered, 24);
    EXPECT_MEMBER_SIZE(nvtxw_resource_attributes_t, identifier, 8);
    EXPECT_MEMBER_SIZE(nvtxw_resource_attributes_t, message, 8);
    EXPECT_MEMBER_INT(nvtxw_resource_attributes_t, version, uint16_t);
    EXPECT_MEMBER_INT(nvtxw_resource_attributes_t, size, uint16_t);
    EXPECT_MEMBER_INT(nvtxw_resource_attributes_t, identifierType, int32_t);
    EXPECT_MEMBER_INT(nvtxw_resource_attributes_t, identifier.ullValue, uint64_t);
    EXPECT_MEMBER_INT(nvtxw_resource_attributes_t, messageType, int32_t);
    ck_assert_int_eq(_Generic(((nvtxw_resource_attributes_t*)0)->message.registered,
                              nvtxStringHandle_t : 1, default : 0),
                     1);

    EXPECT_VAL(NVTXW_NVTX_VERSION, 3);
    EXPECT_VAL(NVTXW_RESOURCE_TYPE_UNKNOWN, 0);
    EXPECT_VAL(NVTXW_RESOURCE_TYPE_GENERIC_POINTER, 0x10001);
    EXPECT_VAL(NVTXW_RESOURCE_TYPE_GENERIC_HANDLE, 0x10002);
    EXPECT_VAL(NVTXW_RESOURCE_TYPE_GENERIC_THREAD_NATIVE, 0x10003);
    EXPECT_VAL(NVTXW_RESOURCE_TYPE_GENERIC_THREAD_POSIX, 0x10004);
    EXPECT_VAL(NVTXW_MESSAGE_UNKNOWN, 0);
    EXPECT_VAL(NVTXW_MESSAGE_TYPE_ASCII, 1);
    EXPECT_VAL(NVTXW_MESSAGE_TYPE_UNICODE, 2);
    EXPECT_VAL(NVTXW_MESSAGE_TYPE_REGISTERED, 3);
}
END_TEST

/* ---- Section 4: helper types ------------------------------------------------- */

START_TEST(test_helper_types) {
    /* item 16; spec 4.1 */
    EXPECT_SIZE(nvtxwEventAttributes_t, 16);
    EXPECT_OFF(nvtxwEventAttributes_t, color, 0);
    EXPECT_OFF(nvtxwEventAttributes_t, category, 4);
    EXPECT_OFF(nvtxwEventAttributes_t, message, 8);
    EXPECT_MEMBER_INT(nvtxwEventAttributes_t, color, uint32_t);
    EXPECT_MEMBER_INT(nvtxwEventAttributes_t, category, uint32_t);

    EXPECT_SIZE(nvtxwEventAttributesUtf8_t, 24);
    EXPECT_OFF(nvtxwEventAttributesUtf8_t, color, 0);
    EXPECT_OFF(nvtxwEventAttributesUtf8_t, category, 4);
    EXPECT_OFF(nvtxwEventAttributesUtf8_t, messageLength, 8);
    EXPECT_OFF(nvtxwEventAttributesUtf8_t, message, 16);
    EXPECT_MEMBER_INT(nvtxwEventAttributesUtf8_t, messageLength, uint32_t);

    EXPECT_SIZE(nvtxwEventHelperSchemaIds_t, 104);
    EXPECT_OFF(nvtxwEventHelperSchemaIds_t, markUtf8, 0);
    EXPECT_OFF(nvtxwEventHelperSchemaIds_t, markRegString, 8);
    EXPECT_OFF(nvtxwEventHelperSchemaIds_t, rangePushPopUtf8, 16);
    EXPECT_OFF(nvtxwEventHelperSchemaIds_t, rangePushPopRegString, 24);
    EXPECT_OFF(nvtxwEventHelperSchemaIds_t, rangeStartEndUtf8, 32);
    EXPECT_OFF(nvtxwEventHelperSchemaIds_t, rangeStartEndRegString, 40);
    EXPECT_OFF(nvtxwEventHelperSchemaIds_t, rangePushUtf8, 48);
    EXPECT_OFF(nvtxwEventHelperSchemaIds_t, rangePushRegString, 56);
    EXPECT_OFF(nvtxwEventHelperSchemaIds_t, rangePop, 64);
    EXPECT_OFF(nvtxwEventHelperSchemaIds_t, rangeStartUtf8, 72);
    EXPECT_OFF(nvtxwEventHelperSchemaIds_t, rangeStartRegString, 80);
    EXPECT_OFF(nvtxwEventHelperSchemaIds_t, rangeEnd, 88);
    EXPECT_OFF(nvtxwEventHelperSchemaIds_t, eventMessageUtf8, 96);

    EXPECT_SIZE(nvtxwEventWriter_t, 120);
    EXPECT_OFF(nvtxwEventWriter_t, iface, 0);
    EXPECT_OFF(nvtxwEventWriter_t, stream, 8);
    EXPECT_OFF(nvtxwEventWriter_t, schemaIds, 16);
    ck_assert_int_eq(
        _Generic(((nvtxwEventWriter_t*)0)->iface, const nvtxwInterface_t* : 1, default : 0), 1);

    EXPECT_VAL(NVTXW_EVENT_HELPER_SCHEMA_MARK_UTF8, 1 << 0);
    EXPECT_VAL(NVTXW_EVENT_HELPER_SCHEMA_MARK_REG_STRING, 1 << 1);
    EXPECT_VAL(NVTXW_EVENT_HELPER_SCHEMA_RANGE_PUSHPOP_UTF8, 1 << 2);
    EXPECT_VAL(NVTXW_EVENT_HELPER_SCHEMA_RANGE_PUSHPOP_REG_STRING, 1 << 3);
    EXPECT_VAL(NVTXW_EVENT_HELPER_SCHEMA_RANGE_STARTEND_UTF8, 1 << 4);
    EXPECT_VAL(NVTXW_EVENT_HELPER_SCHEMA_RANGE_STARTEND_REG_STRING, 1 << 5);
    EXPECT_VAL(NVTXW_EVENT_HELPER_SCHEMA_RANGE_PUSH_UTF8, 1 << 6);
    EXPECT_VAL(NVTXW_EVENT_HELPER_SCHEMA_RANGE_PUSH_REG_STRING, 1 << 7);
    EXPECT_VAL(NVTXW_EVENT_HELPER_SCHEMA_RANGE_POP, 1 << 8);
    EXPECT_VAL(NVTXW_EVENT_HELPER_SCHEMA_RANGE_START_UTF8, 1 << 9);
    EXPECT_VAL(NVTXW_EVENT_HELPER_SCHEMA_RANGE_START_REG_STRING, 1 << 10);
    EXPECT_VAL(NVTXW_EVENT_HELPER_SCHEMA_RANGE_END, 1 << 11);
    EXPECT_VAL(NVTXW_EVENT_HELPER_SCHEMA_ALL, 0xFFF);
}
END_TEST

START_TEST(test_helper_payload_structs) {
    /* item 16; spec 4.2 */
    EXPECT_SIZE(nvtxwEventUtf8HeaderAttr_t, 8);
    EXPECT_OFF(nvtxwEventUtf8HeaderAttr_t, color, 0);
    EXPECT_OFF(nvtxwEventUtf8HeaderAttr_t, category, 4);

    EXPECT_SIZE(nvtxwEventUtf8Payload_t, 16);
    EXPECT_OFF(nvtxwEventUtf8Payload_t, timestamp, 0);
    EXPECT_OFF(nvtxwEventUtf8Payload_t, attr.color, 8);
    EXPECT_OFF(nvtxwEventUtf8Payload_t, attr.category, 12);
    EXPECT_MEMBER_INT(nvtxwEventUtf8Payload_t, timestamp, int64_t);

    EXPECT_SIZE(nvtxwEventRegStringPayload_t, 24);
    EXPECT_OFF(nvtxwEventRegStringPayload_t, timestamp, 0);
    EXPECT_OFF(nvtxwEventRegStringPayload_t, attr.color, 8);
    EXPECT_OFF(nvtxwEventRegStringPayload_t, attr.category, 12);
    EXPECT_OFF(nvtxwEventRegStringPayload_t, attr.message, 16);

    EXPECT_SIZE(nvtxwRangePopPayload_t, 8);
    EXPECT_OFF(nvtxwRangePopPayload_t, timestamp, 0);
    EXPECT_MEMBER_INT(nvtxwRangePopPayload_t, timestamp, int64_t);

    EXPECT_SIZE(nvtxwRangeEventUtf8Payload_t, 24);
    EXPECT_OFF(nvtxwRangeEventUtf8Payload_t, timestampBegin, 0);
    EXPECT_OFF(nvtxwRangeEventUtf8Payload_t, timestampEnd, 8);
    EXPECT_OFF(nvtxwRangeEventUtf8Payload_t, attr.color, 16);
    EXPECT_OFF(nvtxwRangeEventUtf8Payload_t, attr.category, 20);

    EXPECT_SIZE(nvtxwRangeEventRegStringPayload_t, 32);
    EXPECT_OFF(nvtxwRangeEventRegStringPayload_t, timestampBegin, 0);
    EXPECT_OFF(nvtxwRangeEventRegStringPayload_t, timestampEnd, 8);
    EXPECT_OFF(nvtxwRangeEventRegStringPayload_t, attr.color, 16);
    EXPECT_OFF(nvtxwRangeEventRegStringPayload_t, attr.category, 20);
    EXPECT_OFF(nvtxwRangeEventRegStringPayload_t, attr.message, 24);

    EXPECT_SIZE(nvtxwRangeIdEventUtf8Payload_t, 24);
    EXPECT_OFF(nvtxwRangeIdEventUtf8Payload_t, rangeId, 0);
    EXPECT_OFF(nvtxwRangeIdEventUtf8Payload_t, timestamp, 8);
    EXPECT_OFF(nvtxwRangeIdEventUtf8Payload_t, attr.color, 16);
    EXPECT_OFF(nvtxwRangeIdEventUtf8Payload_t, attr.category, 20);
    EXPECT_MEMBER_INT(nvtxwRangeIdEventUtf8Payload_t, rangeId, uint64_t);

    EXPECT_SIZE(nvtxwRangeIdEventRegStringPayload_t, 32);
    EXPECT_OFF(nvtxwRangeIdEventRegStringPayload_t, rangeId, 0);
    EXPECT_OFF(nvtxwRangeIdEventRegStringPayload_t, timestamp, 8);
    EXPECT_OFF(nvtxwRangeIdEventRegStringPayload_t, attr.color, 16);
    EXPECT_OFF(nvtxwRangeIdEventRegStringPayload_t, attr.category, 20);
    EXPECT_OFF(nvtxwRangeIdEventRegStringPayload_t, attr.message, 24);

    EXPECT_SIZE(nvtxwRangeEndPayload_t, 16);
    EXPECT_OFF(nvtxwRangeEndPayload_t, rangeId, 0);
    EXPECT_OFF(nvtxwRangeEndPayload_t, timestamp, 8);
}
END_TEST

/* ---- Section 3: constants ----------------------------------------------------- */

START_TEST(test_stream_ordering) {
    /* item 26; spec 3.1 (values and types) */
    EXPECT_TVAL(NVTXW_STREAM_ORDER_INTERLEAVING_NONE, 0, int16_t);
    EXPECT_TVAL(NVTXW_STREAM_ORDER_INTERLEAVING_SCOPE, 1, int16_t);
    EXPECT_TVAL(NVTXW_STREAM_ORDERING_TYPE_UNKNOWN, 0, int16_t);
    EXPECT_TVAL(NVTXW_STREAM_ORDERING_TYPE_STRICT, 1, int16_t);
    EXPECT_TVAL(NVTXW_STREAM_ORDERING_TYPE_PACKED_RANGE_START, 2, int16_t);
    EXPECT_TVAL(NVTXW_STREAM_ORDERING_TYPE_PACKED_RANGE_END, 3, int16_t);
    EXPECT_TVAL(NVTXW_STREAM_ORDERING_SKID_NONE, 0, int32_t);
    EXPECT_TVAL(NVTXW_STREAM_ORDERING_SKID_TIME_NS, 1, int32_t);
    EXPECT_TVAL(NVTXW_STREAM_ORDERING_SKID_EVENT_COUNT, 2, int32_t);
}
END_TEST

START_TEST(test_entry_types) {
    /* items 19, 20; spec 3.2 */
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_TYPE_INVALID, 0);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_TYPE_CHAR, 1);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_TYPE_UCHAR, 2);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_TYPE_SHORT, 3);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_TYPE_USHORT, 4);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_TYPE_INT, 5);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_TYPE_UINT, 6);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_TYPE_LONG, 7);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_TYPE_ULONG, 8);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_TYPE_LONGLONG, 9);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_TYPE_ULONGLONG, 10);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_TYPE_INT8, 11);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_TYPE_UINT8, 12);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_TYPE_INT16, 13);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_TYPE_UINT16, 14);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_TYPE_INT32, 15);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_TYPE_UINT32, 16);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_TYPE_INT64, 17);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_TYPE_UINT64, 18);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_TYPE_FLOAT, 19);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_TYPE_DOUBLE, 20);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_TYPE_LONGDOUBLE, 21);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_TYPE_SIZE, 22);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_TYPE_ADDRESS, 23);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_TYPE_WCHAR, 24);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_TYPE_CHAR8, 25);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_TYPE_CHAR16, 26);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_TYPE_CHAR32, 27);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_TYPE_INFO_ARRAY_SIZE, 28);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_TYPE_BYTE, 32);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_TYPE_INT128, 33);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_TYPE_UINT128, 34);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_TYPE_FLOAT16, 42);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_TYPE_FLOAT32, 43);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_TYPE_FLOAT64, 44);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_TYPE_FLOAT128, 45);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_TYPE_BF16, 50);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_TYPE_TF32, 52);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_TYPE_RANGE_ID, 67);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_TYPE_CATEGORY, 68);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_TYPE_COLOR_ARGB, 69);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_TYPE_SCOPE_ID, 70);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_TYPE_PID_UINT32, 71);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_TYPE_PID_UINT64, 72);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_TYPE_TID_UINT32, 73);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_TYPE_TID_UINT64, 74);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_TYPE_CSTRING, 75);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF8, 76);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF16, 77);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF32, 78);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_TYPE_NVTX_REGISTERED_STRING_HANDLE, 80);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_TYPE_UNION_SELECTOR, 100);
    EXPECT_VAL(NVTX_TYPE_PAYLOAD_SCHEMA_REFERENCED, 1022);
    EXPECT_VAL(NVTX_TYPE_PAYLOAD_SCHEMA_RAW, 1023);
}
END_TEST

START_TEST(test_entry_flags) {
    /* item 21; spec 3.3 */
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_FLAG_UNUSED, 0);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_FLAG_POINTER, 2);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_FLAG_OFFSET_FROM_BASE, 4);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_FLAG_OFFSET_FROM_HERE, 8);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_FIXED_SIZE, 16);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_ZERO_TERMINATED, 32);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_INDEX, 48);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_PAYLOAD_INDEX, 64);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_FLAG_DEEP_COPY, 256);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_FLAG_HIDE, 512);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_FLAG_EVENT_MESSAGE, 1024);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP, 2048);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_FLAG_RANGE_BEGIN, 4096);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_FLAG_RANGE_END, 8192);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_FLAG_MARK, 12288);
    EXPECT_VAL(NVTX_PAYLOAD_ENTRY_FLAG_COUNTER, 16384);

    /* Our field masks. IS_ARRAY is 0x70 in the 2026 spec; NVIDIA's macro of that
     * name is never defined by our headers (design decision in nvtx_types.h). */
    EXPECT_VAL(NVTXW_PAYLOAD_ENTRY_FLAG_ARRAY_MASK, 0x70);
    EXPECT_VAL(NVTXW_PAYLOAD_ENTRY_FLAG_SEMANTIC_MASK, 0xC00);
    EXPECT_VAL(NVTXW_PAYLOAD_ENTRY_FLAG_ROLE_MASK, 0x7000);
#ifdef NVTX_PAYLOAD_ENTRY_FLAG_IS_ARRAY
    ck_abort_msg("nvtxw headers define NVIDIA's unguarded NVTX_PAYLOAD_ENTRY_FLAG_IS_ARRAY");
#endif
#ifdef NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_TYPE
    ck_abort_msg("nvtxw headers define NVIDIA's unguarded NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_TYPE");
#endif

    /* The array kind is a 3-bit field, read as a value */
    ck_assert_int_eq(NVTXW_PAYLOAD_ENTRY_ARRAY_KIND(NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_INDEX |
                                                    NVTX_PAYLOAD_ENTRY_FLAG_POINTER |
                                                    NVTX_PAYLOAD_ENTRY_FLAG_DEEP_COPY),
                     NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_INDEX);
    ck_assert_int_eq(
        NVTXW_PAYLOAD_ENTRY_ARRAY_KIND(NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_PAYLOAD_INDEX |
                                       NVTX_PAYLOAD_ENTRY_FLAG_EVENT_MESSAGE),
        NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_PAYLOAD_INDEX);
    ck_assert_int_eq(NVTXW_PAYLOAD_ENTRY_ARRAY_KIND(NVTX_PAYLOAD_ENTRY_FLAG_MARK |
                                                    NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP),
                     0);
    ck_assert_int_eq(NVTXW_PAYLOAD_ENTRY_ARRAY_KIND(0x7F), 0x70);
    /* MARK is the BEGIN|END bit pattern: roles are a field value */
    ck_assert_int_eq(NVTX_PAYLOAD_ENTRY_FLAG_MARK,
                     NVTX_PAYLOAD_ENTRY_FLAG_RANGE_BEGIN | NVTX_PAYLOAD_ENTRY_FLAG_RANGE_END);
    ck_assert_int_eq((NVTX_PAYLOAD_ENTRY_FLAG_MARK | NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP) &
                         NVTXW_PAYLOAD_ENTRY_FLAG_ROLE_MASK,
                     NVTX_PAYLOAD_ENTRY_FLAG_MARK);
    ck_assert_int_eq((NVTX_PAYLOAD_ENTRY_FLAG_MARK | NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP) &
                         NVTXW_PAYLOAD_ENTRY_FLAG_SEMANTIC_MASK,
                     NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP);
    /* the helper schema entry flags of spec 4.3 */
    ck_assert_int_eq(NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP | NVTX_PAYLOAD_ENTRY_FLAG_MARK, 14336);
    ck_assert_int_eq(NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP | NVTX_PAYLOAD_ENTRY_FLAG_RANGE_BEGIN, 6144);
    ck_assert_int_eq(NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP | NVTX_PAYLOAD_ENTRY_FLAG_RANGE_END, 10240);
    ck_assert_int_eq(NVTX_PAYLOAD_ENTRY_FLAG_EVENT_MESSAGE |
                         NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_ZERO_TERMINATED,
                     1056);
}
END_TEST

START_TEST(test_schema_types_and_flags) {
    /* items 22, 23; spec 3.4 */
    EXPECT_VAL(NVTX_PAYLOAD_SCHEMA_TYPE_INVALID, 0);
    EXPECT_VAL(NVTX_PAYLOAD_SCHEMA_TYPE_STATIC, 1);
    EXPECT_VAL(NVTX_PAYLOAD_SCHEMA_TYPE_DYNAMIC, 2);
    EXPECT_VAL(NVTX_PAYLOAD_SCHEMA_TYPE_UNION, 3);
    EXPECT_VAL(NVTX_PAYLOAD_SCHEMA_TYPE_UNION_WITH_INTERNAL_SELECTOR, 4);

    EXPECT_VAL(NVTX_PAYLOAD_SCHEMA_FLAG_NONE, 0);
    EXPECT_VAL(NVTX_PAYLOAD_SCHEMA_FLAG_DEEP_COPY, 2);
    EXPECT_VAL(NVTX_PAYLOAD_SCHEMA_FLAG_REFERENCED, 4);
    EXPECT_VAL(NVTX_PAYLOAD_SCHEMA_FLAG_COUNTER_GROUP, 8);
    EXPECT_VAL(NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_PUSHPOP, 16);
    EXPECT_VAL(NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_STARTEND, 24);
    EXPECT_VAL(NVTX_PAYLOAD_SCHEMA_FLAG_MARK, 32);
    EXPECT_VAL(NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_PUSH, 40);
    EXPECT_VAL(NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_POP, 48);
    EXPECT_VAL(NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_START, 56);
    EXPECT_VAL(NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_END, 64);

    EXPECT_VAL(NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NAME, 2);
    EXPECT_VAL(NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE, 4);
    EXPECT_VAL(NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_FLAGS, 8);
    EXPECT_VAL(NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES, 16);
    EXPECT_VAL(NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES, 32);
    EXPECT_VAL(NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_STATIC_SIZE, 64);
    EXPECT_VAL(NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ALIGNMENT, 128);
    EXPECT_VAL(NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_SCHEMA_ID, 256);
    EXPECT_VAL(NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_EXTENSION, 512);
    /* the helpers' fieldMask of spec 4.3 */
    ck_assert_int_eq(NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_FLAGS |
                         NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES |
                         NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES |
                         NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_STATIC_SIZE,
                     0x7C);

    EXPECT_VAL(NVTX_PAYLOAD_ENUM_ATTR_FIELD_NAME, 2);
    EXPECT_VAL(NVTX_PAYLOAD_ENUM_ATTR_FIELD_ENTRIES, 4);
    EXPECT_VAL(NVTX_PAYLOAD_ENUM_ATTR_FIELD_NUM_ENTRIES, 8);
    EXPECT_VAL(NVTX_PAYLOAD_ENUM_ATTR_FIELD_SIZE, 16);
    EXPECT_VAL(NVTX_PAYLOAD_ENUM_ATTR_FIELD_SCHEMA_ID, 32);
    EXPECT_VAL(NVTX_PAYLOAD_ENUM_ATTR_FIELD_EXTENSION, 64);
}
END_TEST

START_TEST(test_schema_role_decoding) {
    /* item 22: the role is a 4-bit field in bits 3-6, not a bit set */
    ck_assert_int_eq(NVTXW_PAYLOAD_SCHEMA_ROLE(NVTX_PAYLOAD_SCHEMA_FLAG_NONE), 0);
    ck_assert_int_eq(NVTXW_PAYLOAD_SCHEMA_ROLE(NVTX_PAYLOAD_SCHEMA_FLAG_COUNTER_GROUP), 1);
    ck_assert_int_eq(NVTXW_PAYLOAD_SCHEMA_ROLE(NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_PUSHPOP), 2);
    ck_assert_int_eq(NVTXW_PAYLOAD_SCHEMA_ROLE(NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_STARTEND), 3);
    ck_assert_int_eq(NVTXW_PAYLOAD_SCHEMA_ROLE(NVTX_PAYLOAD_SCHEMA_FLAG_MARK), 4);
    ck_assert_int_eq(NVTXW_PAYLOAD_SCHEMA_ROLE(NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_PUSH), 5);
    ck_assert_int_eq(NVTXW_PAYLOAD_SCHEMA_ROLE(NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_POP), 6);
    ck_assert_int_eq(NVTXW_PAYLOAD_SCHEMA_ROLE(NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_START), 7);
    ck_assert_int_eq(NVTXW_PAYLOAD_SCHEMA_ROLE(NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_END), 8);

    /* STARTEND carries the COUNTER_GROUP and PUSHPOP bits but decodes as role 3 */
    ck_assert_int_eq(NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_STARTEND,
                     NVTX_PAYLOAD_SCHEMA_FLAG_COUNTER_GROUP |
                         NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_PUSHPOP);
    ck_assert_int_ne(NVTXW_PAYLOAD_SCHEMA_ROLE(NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_STARTEND),
                     NVTXW_PAYLOAD_SCHEMA_ROLE(NVTX_PAYLOAD_SCHEMA_FLAG_COUNTER_GROUP));
    ck_assert_int_ne(NVTXW_PAYLOAD_SCHEMA_ROLE(NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_STARTEND),
                     NVTXW_PAYLOAD_SCHEMA_ROLE(NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_PUSHPOP));
    /* RANGE_END (8<<3) uses bit 6 and shares no bit with the roles 1-7 */
    ck_assert_int_eq(NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_END & 0x38, 0);

    /* DEEP_COPY and REFERENCED sit below the field and do not change the role */
    const uint64_t low = NVTX_PAYLOAD_SCHEMA_FLAG_DEEP_COPY | NVTX_PAYLOAD_SCHEMA_FLAG_REFERENCED;
    ck_assert_uint_eq(NVTXW_PAYLOAD_SCHEMA_ROLE(low | NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_STARTEND), 3);
    ck_assert_uint_eq(NVTXW_PAYLOAD_SCHEMA_ROLE(low | NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_END), 8);
    ck_assert_uint_eq(NVTXW_PAYLOAD_SCHEMA_ROLE(low), 0);
    /* bits above the field do not leak into it */
    ck_assert_uint_eq(NVTXW_PAYLOAD_SCHEMA_ROLE((uint64_t)0xFFFFFFFFFFFFFF80u), 0);
    ck_assert_uint_eq(NVTXW_PAYLOAD_SCHEMA_ROLE((uint64_t)0x80 | NVTX_PAYLOAD_SCHEMA_FLAG_MARK), 4);
    ck_assert_uint_eq(NVTXW_PAYLOAD_SCHEMA_ROLE(UINT64_MAX), 15);
}
END_TEST

START_TEST(test_id_ranges) {
    /* item 24; spec 3.5 (values and types) */
    EXPECT_TVAL(NVTX_PAYLOAD_SCHEMA_ID_STATIC_START, 16777216, int);
    EXPECT_TVAL(NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START, 4294967296, uint64_t);
    EXPECT_TVAL(NVTX_SCOPE_ID_STATIC_START, 16777216, int);
    EXPECT_TVAL(NVTX_SCOPE_ID_DYNAMIC_START, 4294967296, uint64_t);
    EXPECT_TVAL(NVTX_COUNTER_ID_STATIC_START, 16777216, int);
    EXPECT_TVAL(NVTX_COUNTER_ID_DYNAMIC_START, 4294967296, uint64_t);
    EXPECT_TVAL(NVTX_TIME_DOMAIN_ID_STATIC_START, 16777216, int);
    EXPECT_TVAL(NVTX_TIME_DOMAIN_ID_DYNAMIC_START, 4294967296, uint64_t);
    EXPECT_VAL(NVTX_COUNTER_ID_NONE, 0);
    EXPECT_VAL(NVTX_TIME_DOMAIN_ID_NONE, 0);
}
END_TEST

START_TEST(test_scopes) {
    /* item 25; spec 3.6 */
    EXPECT_VAL(NVTX_SCOPE_NONE, 0);
    EXPECT_VAL(NVTX_SCOPE_ROOT, 1);
    EXPECT_VAL(NVTX_SCOPE_CURRENT_HW_MACHINE, 2);
    EXPECT_VAL(NVTX_SCOPE_CURRENT_HW_SOCKET, 3);
    EXPECT_VAL(NVTX_SCOPE_CURRENT_HW_CPU_PHYSICAL, 4);
    EXPECT_VAL(NVTX_SCOPE_CURRENT_HW_CPU_LOGICAL, 5);
    EXPECT_VAL(NVTX_SCOPE_CURRENT_HW_INNERMOST, 15);
    EXPECT_VAL(NVTX_SCOPE_CURRENT_HYPERVISOR, 16);
    EXPECT_VAL(NVTX_SCOPE_CURRENT_VM, 17);
    EXPECT_VAL(NVTX_SCOPE_CURRENT_KERNEL, 18);
    EXPECT_VAL(NVTX_SCOPE_CURRENT_CONTAINER, 19);
    EXPECT_VAL(NVTX_SCOPE_CURRENT_OS, 20);
    EXPECT_VAL(NVTX_SCOPE_CURRENT_SW_PROCESS, 21);
    EXPECT_VAL(NVTX_SCOPE_CURRENT_SW_THREAD, 22);
    EXPECT_VAL(NVTX_SCOPE_CURRENT_SW_INNERMOST, 31);
}
END_TEST

START_TEST(test_time) {
    /* item 25; spec 3.7 */
    EXPECT_VAL(NVTX_TIMESTAMP_TYPE_NONE, 0);
    EXPECT_VAL(NVTX_TIMESTAMP_TYPE_TOOL_PROVIDED, 1);
    EXPECT_VAL(NVTX_TIMESTAMP_TYPE_CPU_TSC, 10);
    EXPECT_VAL(NVTX_TIMESTAMP_TYPE_CPU_TSC_NONVIRTUALIZED, 11);
    EXPECT_VAL(NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_REALTIME, 12);
    EXPECT_VAL(NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_REALTIME_COARSE, 13);
    EXPECT_VAL(NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_MONOTONIC, 14);
    EXPECT_VAL(NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_MONOTONIC_RAW, 15);
    EXPECT_VAL(NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_MONOTONIC_COARSE, 16);
    EXPECT_VAL(NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_BOOTTIME, 17);
    EXPECT_VAL(NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_PROCESS_CPUTIME_ID, 18);
    EXPECT_VAL(NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_THREAD_CPUTIME_ID, 19);
    EXPECT_VAL(NVTX_TIMESTAMP_TYPE_WIN_QPC, 30);
    EXPECT_VAL(NVTX_TIMESTAMP_TYPE_WIN_GSTAFT, 31);
    EXPECT_VAL(NVTX_TIMESTAMP_TYPE_WIN_GSTAFTP, 32);
    EXPECT_VAL(NVTX_TIMESTAMP_TYPE_C_TIME, 40);
    EXPECT_VAL(NVTX_TIMESTAMP_TYPE_C_CLOCK, 41);
    EXPECT_VAL(NVTX_TIMESTAMP_TYPE_C_TIMESPEC_GET, 42);
    EXPECT_VAL(NVTX_TIMESTAMP_TYPE_CPP_STEADY_CLOCK, 50);
    EXPECT_VAL(NVTX_TIMESTAMP_TYPE_CPP_HIGH_RESOLUTION_CLOCK, 51);
    EXPECT_VAL(NVTX_TIMESTAMP_TYPE_CPP_SYSTEM_CLOCK, 52);
    EXPECT_VAL(NVTX_TIMESTAMP_TYPE_CPP_UTC_CLOCK, 53);
    EXPECT_VAL(NVTX_TIMESTAMP_TYPE_CPP_TAI_CLOCK, 54);
    EXPECT_VAL(NVTX_TIMESTAMP_TYPE_CPP_GPS_CLOCK, 55);
    EXPECT_VAL(NVTX_TIMESTAMP_TYPE_CPP_FILE_CLOCK, 56);
    EXPECT_VAL(NVTX_TIMESTAMP_TYPE_GPU_GLOBALTIMER, 80);

    EXPECT_VAL(NVTX_TIMER_FLAG_NONE, 0);
    EXPECT_VAL(NVTX_TIMER_FLAG_CLOCK_MONOTONIC, 2);
    EXPECT_VAL(NVTX_TIMER_FLAG_CLOCK_STEADY, 4);
    EXPECT_VAL(NVTX_TIMER_START_UNKNOWN, 0);
    EXPECT_VAL(NVTX_TIMER_START_SYSTEM_BOOT, 1);
    EXPECT_VAL(NVTX_TIMER_START_VM_BOOT, 2);
    EXPECT_VAL(NVTX_TIMER_START_UNIX_EPOCH, 3);
    EXPECT_VAL(NVTX_TIMER_START_WIN_FILETIME, 4);
    EXPECT_VAL(NVTX_TIMER_SOURCE_SAFE_CALL_AFTER_PROCESS_TEARDOWN, 0);
    EXPECT_VAL(NVTX_TIMER_SOURCE_UNSAFE_CALL_AFTER_PROCESS_TEARDOWN, 1);

    /* 2-bit field at bits 1-2 */
    EXPECT_VAL(NVTX_BATCH_FLAG_TIME_SORTED, 0);
    EXPECT_VAL(NVTX_BATCH_FLAG_TIME_SORTED_PARTIALLY, 2);
    EXPECT_VAL(NVTX_BATCH_FLAG_TIME_SORTED_PER_SCOPE, 4);
    EXPECT_VAL(NVTX_BATCH_FLAG_UNSORTED, 6);
}
END_TEST

START_TEST(test_counters) {
    /* item 25; spec 3.7, 3.8 */
    EXPECT_VAL(NVTX_COUNTER_SAMPLE_ZERO, 0);
    EXPECT_VAL(NVTX_COUNTER_SAMPLE_UNCHANGED, 1);
    EXPECT_VAL(NVTX_COUNTER_SAMPLE_UNAVAILABLE, 2);
    /* Ours carry the intended values (NVIDIA's spelling folds to 0). */
    EXPECT_TVAL(NVTX_COUNTER_BATCH_FLAG_BEGINTIME_INTERVAL_PAIR, 0x100000000, uint64_t);
    EXPECT_TVAL(NVTX_COUNTER_BATCH_FLAG_ENDTIME_INTERVAL_PAIR, 0x200000000, uint64_t);
    /* they stay clear of the NVTX_BATCH_FLAG_* ordering field */
    ck_assert_uint_eq(NVTX_COUNTER_BATCH_FLAG_BEGINTIME_INTERVAL_PAIR & NVTX_BATCH_FLAG_UNSORTED,
                      0);
}
END_TEST

START_TEST(test_misc_nvtx_values) {
    /* item 27; spec 3.9 */
    EXPECT_TVAL(NVTX_PAYLOAD_TYPE_EXT, (int32_t)0xDFBD0009, int32_t);
    ck_assert_int_lt(NVTX_PAYLOAD_TYPE_EXT, 0);
    ck_assert_uint_eq((uint32_t)NVTX_PAYLOAD_TYPE_EXT, 0xDFBD0009u);
    EXPECT_VAL(NVTX_EXT_PAYLOAD_COMPATID, 0x0104);
    EXPECT_VAL(NVTX_EXT_PAYLOAD_MODULEID, 2);
    EXPECT_VAL(NVTX_EXT_COUNTERS_COMPATID, 0x0102);
    EXPECT_VAL(NVTX_EXT_COUNTERS_MODULEID, 4);
    /* NVTX_VERSION itself is left to nvToolsExt.h (it skips its body when set) */
#ifdef NVTX_VERSION
    ck_abort_msg("nvtxw headers define NVTX_VERSION");
#endif
}
END_TEST

static Suite* abi_suite(void) {
    Suite* s = suite_create("abi");
    TCase* tc;

    tc = tcase_create("interface");
    tcase_add_test(tc, test_result_codes);
    tcase_add_test(tc, test_entry_point_names);
    tcase_add_test(tc, test_handles);
    tcase_add_test(tc, test_interface_table_layout);
    tcase_add_test(tc, test_interface_has);
    suite_add_tcase(s, tc);

    tc = tcase_create("structs");
    tcase_add_test(tc, test_session_domain_stream_attributes);
    tcase_add_test(tc, test_payload_data_and_semantics_header);
    tcase_add_test(tc, test_schema_structs);
    tcase_add_test(tc, test_scope_time_batch_structs);
    tcase_add_test(tc, test_counter_structs);
    tcase_add_test(tc, test_semantic_extensions);
    tcase_add_test(tc, test_resource_attributes);
    suite_add_tcase(s, tc);

    tc = tcase_create("helpers");
    tcase_add_test(tc, test_helper_types);
    tcase_add_test(tc, test_helper_payload_structs);
    suite_add_tcase(s, tc);

    tc = tcase_create("constants");
    tcase_add_test(tc, test_stream_ordering);
    tcase_add_test(tc, test_entry_types);
    tcase_add_test(tc, test_entry_flags);
    tcase_add_test(tc, test_schema_types_and_flags);
    tcase_add_test(tc, test_schema_role_decoding);
    tcase_add_test(tc, test_id_ranges);
    tcase_add_test(tc, test_scopes);
    tcase_add_test(tc, test_time);
    tcase_add_test(tc, test_counters);
    tcase_add_test(tc, test_misc_nvtx_values);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(abi_suite()); }

#else /* !ABI_LP64 */

int main(void) {
    fprintf(stderr, "abi_test: layout numbers are LP64; skipped on this data model\n");
    return 77; /* automake SKIP */
}

#endif
