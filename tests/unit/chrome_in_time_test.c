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

/* A second implementation, in integer steps, for texts
 * of up to 18 digits and 6 decimals: the common form ("123.456") has its
 * own path in chrome_time_to_ns, and every length of integer and fraction
 * around its limits (15 digits, 3 decimals) must give what the general
 * parse gives. */
static int64_t oracle_ns(int negative, uint64_t whole, uint64_t fraction, int decimals) {
    uint64_t pow10 = 1, ns, below, half;
    for (int i = 0; i < decimals; i++)
        pow10 *= 10;
    if (decimals <= 3) {
        uint64_t up = 1;
        for (int i = decimals; i < 3; i++)
            up *= 10;
        ns = whole * 1000 + fraction * up;
    } else {
        uint64_t unit = pow10 / 1000; /* fraction units per nanosecond */
        ns = whole * 1000 + fraction / unit;
        below = fraction % unit;
        half = unit / 2;
        if (below > half || (below == half && (ns & 1)))
            ns++;
    }
    return negative ? -(int64_t)ns : (int64_t)ns;
}

START_TEST(test_plain_against_oracle) {
    uint64_t seed = 0x9E3779B97F4A7C15ULL;
    for (int n = 0; n < 200000; n++) {
        char text[64];
        int int_digits, decimals, negative;
        uint64_t whole = 0, fraction = 0, pow10 = 1;
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        int_digits = 1 + (int)(seed >> 60) % 16; /* 1..16: across the 15-digit limit */
        decimals = (int)(seed >> 56) % 7;        /* 0..6: across the 3-decimal limit */
        negative = (int)(seed >> 55) & 1;
        for (int i = 0; i < int_digits; i++) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            whole = whole * 10 + (seed >> 33) % 10;
        }
        whole %= 9000000000000000ULL; /* 16 digits: still within int64 nanoseconds */
        for (int i = 0; i < decimals; i++) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            fraction = fraction * 10 + (seed >> 33) % 10;
            pow10 *= 10;
        }
        if (decimals > 0)
            snprintf(text, sizeof text, "%s%0*llu.%0*llu", negative ? "-" : "", int_digits,
                     (unsigned long long)whole, decimals, (unsigned long long)fraction);
        else
            snprintf(text, sizeof text, "%s%0*llu", negative ? "-" : "", int_digits,
                     (unsigned long long)whole);
        ck_assert_msg(ns(text) == oracle_ns(negative, whole, fraction, decimals),
                      "%s: %lld, expected %lld", text, (long long)ns(text),
                      (long long)oracle_ns(negative, whole, fraction, decimals));
    }
    ck_assert_int_eq(ns("999999999999999.999"), 999999999999999999LL); /* the plain path's top */
    ck_assert_int_eq(ns("-0"), 0);
    ck_assert_int_eq(ns("5."), 5000); /* no decimals after the point: the general parse */
    ck_assert(rejected("--1"));
    ck_assert(rejected("1.-5"));
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
    tcase_add_test(tc, test_plain_against_oracle);
    tcase_add_test(tc, test_no_drift);
    tcase_add_test(tc, test_half_even);
    tcase_add_test(tc, test_exponent);
    tcase_add_test(tc, test_rejected);
    tcase_add_test(tc, test_ids);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
