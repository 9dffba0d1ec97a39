/*
 * abi_nvidia_test.c - coexistence of our headers with NVIDIA's nvtx3 headers
 * (spec section 10; built only when configure found them).
 *
 * abi_nvidia_order1.c includes ours first, abi_nvidia_order2.c NVIDIA's
 * first; each reports every shared struct layout (sizeof, alignof, offsetof,
 * member size and type) and every shared macro (value and type) as that
 * translation unit sees it. This file includes only our headers and holds
 * the same list computed from them alone. The list itself is written once,
 * in abi_facts.inc (an X-macro file each of the three files expands with its
 * own FACT_* macros), so all three evaluate exactly the same facts. The
 * checks:
 *  (a) both include orders agree;
 *  (b) both equal our headers alone (in order 2 NVIDIA's definitions win, so
 *      this is where a difference between NVIDIA's headers and ours shows);
 *  (c) documented exceptions:
 *      - constants the CUDA 13.0 revision lacks (NVTX_PAYLOAD_ENTRY_TYPE_RANGE_ID,
 *        NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_PUSH/POP/START/END) are present with
 *        the 2026 values in both orders;
 *      - NVTX_COUNTER_BATCH_FLAG_{BEGIN,END}TIME_INTERVAL_PAIR are compared
 *        only in order 1, where ours define them; NVIDIA's spelling,
 *        (1 << 32) on an int, folds to 0, so order 2 does not evaluate them;
 *      - NVTX_PAYLOAD_ENTRY_FLAG_IS_ARRAY is NVIDIA's alone (ours never
 *        defines it): 0x30 (2025) or 0x70 (2026), the same in both orders.
 * nvtxResourceAttributes_t (nvToolsExt.h) and our nvtxw_resource_attributes_t
 * are distinct types: besides their layouts, a struct filled through
 * NVIDIA's type is compared byte for byte with one filled through ours.
 */
#include <check.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include <nvtxw/nvtxw.h>

#include "run_suite.h"

#include "abi_fact_record.h"

/* Our headers alone: the mirror struct and the NVTXW_ constants. */
#define RES_T nvtxw_resource_attributes_t
#define RES_STRUCT_SIZE NVTXW_RESOURCE_ATTRIB_STRUCT_SIZE
#define RES_NVTX_VERSION NVTXW_NVTX_VERSION
#define RES_TYPE_UNKNOWN NVTXW_RESOURCE_TYPE_UNKNOWN
#define RES_TYPE_GENERIC_POINTER NVTXW_RESOURCE_TYPE_GENERIC_POINTER
#define RES_TYPE_GENERIC_HANDLE NVTXW_RESOURCE_TYPE_GENERIC_HANDLE
#define RES_TYPE_GENERIC_THREAD_NATIVE NVTXW_RESOURCE_TYPE_GENERIC_THREAD_NATIVE
#define RES_TYPE_GENERIC_THREAD_POSIX NVTXW_RESOURCE_TYPE_GENERIC_THREAD_POSIX
#define RES_MESSAGE_UNKNOWN NVTXW_MESSAGE_UNKNOWN
#define RES_MESSAGE_TYPE_ASCII NVTXW_MESSAGE_TYPE_ASCII
#define RES_MESSAGE_TYPE_UNICODE NVTXW_MESSAGE_TYPE_UNICODE
#define RES_MESSAGE_TYPE_REGISTERED NVTXW_MESSAGE_TYPE_REGISTERED

/* Ours define the counter batch flags with the intended values. */
#define ABI_REPORT_COUNTER_BATCH_FLAGS 1

/* Exported by abi_nvidia_order1.c / abi_nvidia_order2.c. */
const struct abi_fact* abi_nvidia_order1_facts(size_t* count);
const struct abi_fact* abi_nvidia_order2_facts(size_t* count);
const struct abi_fact* abi_nvidia_order2_nvidia_alone(size_t* count);
size_t abi_nvidia_order1_resource_bytes(int variant, const void* pointer, const char* text,
                                        void* out, size_t out_size);
size_t abi_nvidia_order2_resource_bytes(int variant, const void* pointer, const char* text,
                                        void* out, size_t out_size);
int64_t abi_nvidia_order1_is_array(void);

/* Our headers alone. */
static const struct abi_fact ours[] = {
#include "abi_facts.inc"
};

#define N_OURS (sizeof(ours) / sizeof(ours[0]))

/* Facts of order 2 that are not compared (see the top of this file). */
static const char* const order2_exceptions[] = {
    "NVTX_COUNTER_BATCH_FLAG_BEGINTIME_INTERVAL_PAIR",
    "NVTX_COUNTER_BATCH_FLAG_ENDTIME_INTERVAL_PAIR",
};
#define N_ORDER2_EXCEPTIONS (sizeof(order2_exceptions) / sizeof(order2_exceptions[0]))

static int is_order2_exception(const char* name) {
    for (size_t i = 0; i < N_ORDER2_EXCEPTIONS; i++) {
        if (strcmp(name, order2_exceptions[i]) == 0) {
            return 1;
        }
    }
    return 0;
}

static const struct abi_fact* find_fact(const struct abi_fact* list, size_t count,
                                        const char* name) {
    for (size_t i = 0; i < count; i++) {
        if (strcmp(list[i].name, name) == 0) {
            return &list[i];
        }
    }
    return NULL;
}

static void expect_same(const char* where, const struct abi_fact* got,
                        const struct abi_fact* expected, const char* expected_where) {
    ck_assert_msg(got != NULL, "%s: %s is missing", where, expected->name);
    ck_assert_msg(got->value == expected->value, "%s: %s is %lld (0x%llx), %s: %lld (0x%llx)",
                  where, got->name, (long long)got->value, (unsigned long long)got->value,
                  expected_where, (long long)expected->value, (unsigned long long)expected->value);
    ck_assert_msg(got->type == expected->type, "%s: %s has type code %d, %s: %d", where, got->name,
                  got->type, expected_where, expected->type);
}

/* ---- (b) each order equals our headers alone ------------------------------ */

START_TEST(test_order1_equals_ours) {
    size_t n1;
    const struct abi_fact* order1 = abi_nvidia_order1_facts(&n1);
    expect_same("ours then NVIDIA", find_fact(order1, n1, ours[_i].name), &ours[_i],
                "our headers alone");
}
END_TEST

START_TEST(test_order2_equals_ours) {
    size_t n2;
    const struct abi_fact* order2 = abi_nvidia_order2_facts(&n2);
    const struct abi_fact* got = find_fact(order2, n2, ours[_i].name);
    if (is_order2_exception(ours[_i].name)) {
        ck_assert_msg(got == NULL, "NVIDIA then ours: %s is an exception but was reported",
                      ours[_i].name);
        return;
    }
    expect_same("NVIDIA then ours", got, &ours[_i], "our headers alone");
}
END_TEST

/* ---- (a) both orders agree -------------------------------------------------- */

START_TEST(test_orders_agree) {
    size_t n1, n2;
    const struct abi_fact* order1 = abi_nvidia_order1_facts(&n1);
    const struct abi_fact* order2 = abi_nvidia_order2_facts(&n2);
    ck_assert_uint_lt((size_t)_i, n1);
    if (is_order2_exception(order1[_i].name)) {
        ck_assert_ptr_null(find_fact(order2, n2, order1[_i].name));
        return;
    }
    expect_same("NVIDIA then ours", find_fact(order2, n2, order1[_i].name), &order1[_i],
                "ours then NVIDIA");
}
END_TEST

/* All three translation units expand the one list in abi_facts.inc, so they
 * cannot list different facts and the former "the three lists match" checks
 * (every name an order reports is known here) are unnecessary. What remains:
 * the counts, which catch a wrong ABI_REPORT_COUNTER_BATCH_FLAGS in an order
 * file, and no name listed twice (find_fact would hide the second copy). */
START_TEST(test_fact_lists_complete) {
    size_t n1, n2;
    abi_nvidia_order1_facts(&n1);
    abi_nvidia_order2_facts(&n2);
    ck_assert_uint_eq(n1, N_OURS);
    ck_assert_uint_eq(n2, N_OURS - N_ORDER2_EXCEPTIONS);
    for (size_t i = 0; i < N_OURS; i++) {
        ck_assert_msg(find_fact(ours, i, ours[i].name) == NULL, "%s is listed twice", ours[i].name);
    }
}
END_TEST

/* ---- (c) documented exceptions --------------------------------------------- */

static void expect_value_in_both_orders(const char* name, int64_t value) {
    size_t n1, n2;
    const struct abi_fact* order1 = abi_nvidia_order1_facts(&n1);
    const struct abi_fact* order2 = abi_nvidia_order2_facts(&n2);
    const struct abi_fact* f1 = find_fact(order1, n1, name);
    const struct abi_fact* f2 = find_fact(order2, n2, name);
    ck_assert_msg(f1 != NULL, "ours then NVIDIA: %s missing", name);
    ck_assert_msg(f2 != NULL, "NVIDIA then ours: %s missing", name);
    ck_assert_msg(f1->value == value, "ours then NVIDIA: %s is %lld, expected %lld", name,
                  (long long)f1->value, (long long)value);
    ck_assert_msg(f2->value == value, "NVIDIA then ours: %s is %lld, expected %lld", name,
                  (long long)f2->value, (long long)value);
}

START_TEST(test_2026_constants_in_both_orders) {
    expect_value_in_both_orders("NVTX_PAYLOAD_ENTRY_TYPE_RANGE_ID", 67);
    expect_value_in_both_orders("NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_PUSH", 40);
    expect_value_in_both_orders("NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_POP", 48);
    expect_value_in_both_orders("NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_START", 56);
    expect_value_in_both_orders("NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_END", 64);
    expect_value_in_both_orders("NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_PAYLOAD_INDEX", 64);
    expect_value_in_both_orders(
        "NVTXW_PAYLOAD_SCHEMA_ROLE(NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_STARTEND)", 3);
}
END_TEST

START_TEST(test_counter_batch_flags_order1_only) {
    size_t n1, n2;
    const struct abi_fact* order1 = abi_nvidia_order1_facts(&n1);
    const struct abi_fact* order2 = abi_nvidia_order2_facts(&n2);
    const struct abi_fact* begin = find_fact(order1, n1, order2_exceptions[0]);
    const struct abi_fact* end = find_fact(order1, n1, order2_exceptions[1]);
    ck_assert_ptr_nonnull(begin);
    ck_assert_ptr_nonnull(end);
    ck_assert_int_eq(begin->value, INT64_C(0x100000000));
    ck_assert_int_eq(end->value, INT64_C(0x200000000));
    ck_assert_int_eq(begin->type, TYPE_CODE((uint64_t)0));
    ck_assert_int_eq(end->type, TYPE_CODE((uint64_t)0));
    ck_assert_ptr_null(find_fact(order2, n2, order2_exceptions[0]));
    ck_assert_ptr_null(find_fact(order2, n2, order2_exceptions[1]));
}
END_TEST

START_TEST(test_nvidia_alone) {
    size_t n;
    const struct abi_fact* alone = abi_nvidia_order2_nvidia_alone(&n);
    for (size_t i = 0; i < n; i++) {
        printf("NVIDIA nvtx3 headers alone: %s = %lld (0x%llx)\n", alone[i].name,
               (long long)alone[i].value, (unsigned long long)alone[i].value);
    }
    const struct abi_fact* is_array = find_fact(alone, n, "NVTX_PAYLOAD_ENTRY_FLAG_IS_ARRAY");
    ck_assert_ptr_nonnull(is_array);
    ck_assert_msg(is_array->value == 0x30 || is_array->value == 0x70,
                  "NVTX_PAYLOAD_ENTRY_FLAG_IS_ARRAY is 0x%llx, neither 2025 (0x30) nor 2026 (0x70)",
                  (unsigned long long)is_array->value);
    ck_assert_msg(abi_nvidia_order1_is_array() == is_array->value,
                  "NVTX_PAYLOAD_ENTRY_FLAG_IS_ARRAY differs between orders: 0x%llx vs 0x%llx",
                  (unsigned long long)abi_nvidia_order1_is_array(),
                  (unsigned long long)is_array->value);
    /* NVIDIA's headers must define their counter batch flags; 0 is what
     * their spelling folds to, and order 2 does not evaluate them */
    const struct abi_fact* batch =
        find_fact(alone, n, "defined(NVTX_COUNTER_BATCH_FLAG_BEGINTIME_INTERVAL_PAIR)");
    ck_assert_ptr_nonnull(batch);
    ck_assert_int_eq(batch->value, 1);
    const struct abi_fact* range_id =
        find_fact(alone, n, "defined(NVTX_PAYLOAD_ENTRY_TYPE_RANGE_ID)");
    ck_assert_ptr_nonnull(range_id);
    if (range_id->value == 0) {
        printf("NVIDIA nvtx3 headers are an older (CUDA 13.0) revision: RANGE_ID and the split "
               "range roles come from nvtxw in both orders\n");
    }
}
END_TEST

/* ---- distinct resource attribute types, byte for byte ------------------------ */

typedef size_t (*resource_bytes_fn)(int variant, const void* pointer, const char* text, void* out,
                                    size_t out_size);

static const wchar_t wide_text[] = L"wide name";
static const char ascii_text[] = "resource name";

/* What abi_nvidia_order*_resource_bytes writes, built through our mirror. */
static void fill_ours(int variant, nvtxw_resource_attributes_t* attr) {
    memset(attr, 0, sizeof(*attr));
    attr->version = NVTXW_NVTX_VERSION;
    attr->size = NVTXW_RESOURCE_ATTRIB_STRUCT_SIZE;
    switch (variant) {
    case 0:
        attr->identifierType = NVTXW_RESOURCE_TYPE_GENERIC_THREAD_POSIX;
        attr->identifier.ullValue = UINT64_C(0x0123456789ABCDEF);
        attr->messageType = NVTXW_MESSAGE_TYPE_REGISTERED;
        attr->message.registered = (nvtxStringHandle_t)(uintptr_t)UINT64_C(0xFEDCBA9876543210);
        break;
    case 1:
        attr->identifierType = NVTXW_RESOURCE_TYPE_GENERIC_POINTER;
        attr->identifier.pValue = wide_text;
        attr->messageType = NVTXW_MESSAGE_TYPE_ASCII;
        attr->message.ascii = ascii_text;
        break;
    default:
        attr->identifierType = NVTXW_RESOURCE_TYPE_GENERIC_HANDLE;
        attr->identifier.pValue = ascii_text;
        attr->messageType = NVTXW_MESSAGE_TYPE_UNICODE;
        attr->message.unicode = wide_text;
        break;
    }
}

/* _i: order (0 or 1) * 3 + variant (0..2) */
START_TEST(test_resource_attributes_bytes) {
    const resource_bytes_fn fns[2] = {abi_nvidia_order1_resource_bytes,
                                      abi_nvidia_order2_resource_bytes};
    const char* const orders[2] = {"ours then NVIDIA", "NVIDIA then ours"};
    const int order = _i / 3;
    const int variant = _i % 3;

    nvtxw_resource_attributes_t from_nvidia;
    memset(&from_nvidia, 0xA5, sizeof(from_nvidia));
    size_t nvidia_size =
        fns[order](variant, wide_text, ascii_text, &from_nvidia, sizeof(from_nvidia));
    ck_assert_msg(nvidia_size == sizeof(nvtxw_resource_attributes_t),
                  "%s: sizeof(nvtxResourceAttributes_t) is %zu, ours %zu", orders[order],
                  nvidia_size, sizeof(nvtxw_resource_attributes_t));

    /* read through our type what was written through NVIDIA's */
    ck_assert_uint_eq(from_nvidia.version, 3);
    ck_assert_uint_eq(from_nvidia.size, 32);
    nvtxw_resource_attributes_t expected;
    fill_ours(variant, &expected);
    ck_assert_int_eq(from_nvidia.identifierType, expected.identifierType);
    ck_assert_uint_eq(from_nvidia.identifier.ullValue, expected.identifier.ullValue);
    ck_assert_int_eq(from_nvidia.messageType, expected.messageType);
    ck_assert_ptr_eq(from_nvidia.message.ascii, expected.message.ascii);

    /* and the whole byte image, padding included (both zeroed first) */
    ck_assert_msg(memcmp(&from_nvidia, &expected, sizeof(expected)) == 0,
                  "%s, variant %d: nvtxResourceAttributes_t and nvtxw_resource_attributes_t "
                  "byte images differ",
                  orders[order], variant);
}
END_TEST

static Suite* abi_nvidia_suite(void) {
    Suite* s = suite_create("abi_nvidia");
    TCase* tc;
    size_t n1;

    abi_nvidia_order1_facts(&n1);

    tc = tcase_create("ours_then_nvidia");
    tcase_add_loop_test(tc, test_order1_equals_ours, 0, (int)N_OURS);
    suite_add_tcase(s, tc);

    tc = tcase_create("nvidia_then_ours");
    tcase_add_loop_test(tc, test_order2_equals_ours, 0, (int)N_OURS);
    suite_add_tcase(s, tc);

    tc = tcase_create("orders_agree");
    tcase_add_loop_test(tc, test_orders_agree, 0, (int)n1);
    tcase_add_test(tc, test_fact_lists_complete);
    suite_add_tcase(s, tc);

    tc = tcase_create("exceptions");
    tcase_add_test(tc, test_2026_constants_in_both_orders);
    tcase_add_test(tc, test_counter_batch_flags_order1_only);
    tcase_add_test(tc, test_nvidia_alone);
    suite_add_tcase(s, tc);

    tc = tcase_create("resource_attributes");
    tcase_add_loop_test(tc, test_resource_attributes_bytes, 0, 6);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(abi_nvidia_suite()); }
