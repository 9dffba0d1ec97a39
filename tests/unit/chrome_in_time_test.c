/*
 * tests/unit/chrome_in_time_test.c - chrome_time_to_ns and chrome_id_value
 * (tools/replay/chrome/chrome_in_time.c): Trace Event Format microseconds as exact
 * integer nanoseconds (no double on the way, so absolute clocks keep every
 * digit), half-to-even rounding of digits below a nanosecond, exponents,
 * signs, strings that are not numbers, overflow; IDs as numbers, hex text
 * and hashed names.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chrome_in.h"
#include "run_suite.h"

static int64_t ns(const char* text) {
    int64_t value = 12345;
    ck_assert_msg(chrome_time_to_ns(text, strlen(text), &value) == 0, "'%s' rejected", text);
    return value;
}

static int rejected(const char* text) {
    int64_t value;
    return chrome_time_to_ns(text, strlen(text), &value) != 0;
}

START_TEST(test_plain) {
    ck_assert_int_eq(ns("0"), 0);
    ck_assert_int_eq(ns("1"), 1000);
    ck_assert_int_eq(ns("123.456"), 123456);
    ck_assert_int_eq(ns("123.4"), 123400);
    ck_assert_int_eq(ns("0.001"), 1);
    ck_assert_int_eq(ns("007.5"), 7500);
    ck_assert_int_eq(ns("100"), 100000);
    ck_assert_int_eq(ns("-1.5"), -1500);
    ck_assert_int_eq(ns("+2"), 2000);
}
END_TEST

/* Values a double cannot carry to the nanosecond. */
START_TEST(test_no_drift) {
    ck_assert_int_eq(ns("1700000000123456.789"), 1700000000123456789LL);
    ck_assert_int_eq(ns("9223372036854775.807"), INT64_MAX);
    ck_assert_int_eq(ns("-9223372036854775.808"), INT64_MIN);
    for (int64_t i = 0; i < 2000; i++) {
        char text[64];
        int64_t v = 1700000000000000000LL + i * 7919;
        snprintf(text, sizeof text, "%lld.%03lld", (long long)(v / 1000), (long long)(v % 1000));
        ck_assert_int_eq(ns(text), v);
    }
}
END_TEST

START_TEST(test_half_even) {
    ck_assert_int_eq(ns("0.0005"), 0);     /* 0.5 ns -> 0 (even) */
    ck_assert_int_eq(ns("0.0015"), 2);     /* 1.5 -> 2 */
    ck_assert_int_eq(ns("0.0025"), 2);     /* 2.5 -> 2 */
    ck_assert_int_eq(ns("0.00250001"), 3); /* above half */
    ck_assert_int_eq(ns("0.0024999"), 2);
    ck_assert_int_eq(ns("1.2345"), 1234);
    ck_assert_int_eq(ns("1.2355"), 1236);
    ck_assert_int_eq(ns("0.0004999"), 0);
    ck_assert_int_eq(ns("0.0009"), 1);
    ck_assert_int_eq(ns("0.00001"), 0);
    ck_assert_int_eq(ns("-0.0015"), -2);
    ck_assert_int_eq(ns("0.00150000000000000000000000000000000000000000000001"), 2);
    ck_assert_int_eq(ns("0.00250000000000000000000000000000000000000000000001"), 3);
}
END_TEST

START_TEST(test_exponent) {
    ck_assert_int_eq(ns("1e-3"), 1);
    ck_assert_int_eq(ns("1E3"), 1000000);
    ck_assert_int_eq(ns("1.5e+2"), 150000);
    ck_assert_int_eq(ns("12345e-5"), 123); /* 0.12345 us = 123.45 ns */
    ck_assert_int_eq(ns("2.5e-4"), 0);     /* 0.25 ns */
    ck_assert_int_eq(ns("1e-400"), 0);
    ck_assert_int_eq(ns("0e999"), 0);
}
END_TEST

START_TEST(test_rejected) {
    ck_assert(rejected(""));
    ck_assert(rejected("-"));
    ck_assert(rejected("abc"));
    ck_assert(rejected("1.2.3"));
    ck_assert(rejected("1e"));
    ck_assert(rejected("1e+"));
    ck_assert(rejected("12x"));
    ck_assert(rejected("."));
    ck_assert(rejected("9223372036854775.808")); /* INT64_MAX + 1 */
    ck_assert(rejected("1e400"));
    ck_assert(rejected("99999999999999999999"));
}
END_TEST

START_TEST(test_ids) {
    ck_assert_uint_eq(chrome_id_value("42", 2), 42);
    ck_assert_uint_eq(chrome_id_value("0x2a", 4), 42);
    ck_assert_uint_eq(chrome_id_value("0xEA9648AA6042DCB8", 18), 0xEA9648AA6042DCB8ull);
    ck_assert_uint_eq(chrome_id_value("-1", 2), UINT64_MAX);
    ck_assert_uint_eq(chrome_id_value("18446744073709551615", 20), UINT64_MAX);
    ck_assert_uint_ne(chrome_id_value("stream 7", 8), 0);
    ck_assert_uint_eq(chrome_id_value("stream 7", 8), chrome_id_value("stream 7", 8));
    ck_assert_uint_ne(chrome_id_value("stream 7", 8), chrome_id_value("stream 8", 8));
}
END_TEST

int main(void) {
    Suite* s = suite_create("chrome_in_time");
    TCase* tc = tcase_create("core");
    tcase_add_test(tc, test_plain);
    tcase_add_test(tc, test_no_drift);
    tcase_add_test(tc, test_half_even);
    tcase_add_test(tc, test_exponent);
    tcase_add_test(tc, test_rejected);
    tcase_add_test(tc, test_ids);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
