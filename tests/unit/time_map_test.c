/*
 * tests/unit/time_map_test.c - sink/shared/time_map.h: timestamps of other
 * time domains in the session's, as the JSON and Perfetto sinks convert
 * them: conversion factors either way round, one sync point (an offset),
 * two and more (the line through the first and the latest), the stream's
 * default domain and NONE, domains without a conversion (counted),
 * conversions between two other domains (ignored), slopes that are not
 * finite or 0 (ignored), rounding, clamping to int64, the domain limit,
 * the session's domain taken from the first stream opened, and the time
 * semantic of a semantics chain.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>

#include "sink/shared/time_map.h"

enum { SESSION = 100, GPU = 200, OTHER = 300, THIRD = 400 };

START_TEST(factor_either_way) {
    time_map m;
    time_map_init(&m, SESSION, GPU);
    ck_assert_int_eq(time_map_factor(&m, GPU, SESSION, 2.0, 100, 5000), 0);
    ck_assert_int_eq(time_map_convert(&m, NVTX_TIME_DOMAIN_ID_NONE, 150), 5100); /* default */
    ck_assert_int_eq(time_map_convert(&m, GPU, 90), 4980);
    ck_assert_int_eq(time_map_convert(&m, SESSION, 150), 150);
    /* the session's into GPU: inverted (slope 1/0.5 = 2) */
    ck_assert_int_eq(time_map_factor(&m, SESSION, GPU, 0.5, 1000, 0), 0);
    ck_assert_int_eq(time_map_convert(&m, GPU, 10), 1020);
    ck_assert_uint_eq(m.unconverted, 0);
    time_map_free(&m);
}
END_TEST

START_TEST(sync_points) {
    time_map m;
    nvtxSyncPoint_t one = {7, 1007}, two[2] = {{0, 10000}, {1000, 12000}}, later = {2000, 16000};
    time_map_init(&m, SESSION, SESSION);
    ck_assert_int_eq(time_map_points(&m, OTHER, SESSION, &one, 1), 0);
    ck_assert_int_eq(time_map_convert(&m, OTHER, 50), 1050); /* an offset */
    ck_assert_int_eq(time_map_points(&m, GPU, SESSION, two, 2), 0);
    ck_assert_int_eq(time_map_convert(&m, GPU, 500), 11000);
    ck_assert_int_eq(time_map_convert(&m, GPU, -1), 9998);
    /* a later point: the line through the first and the latest */
    ck_assert_int_eq(time_map_points(&m, GPU, SESSION, &later, 1), 0);
    ck_assert_int_eq(time_map_convert(&m, GPU, 1000), 13000);
    /* the session's on the source side: the pairs read the other way */
    ck_assert_int_eq(time_map_points(&m, SESSION, THIRD, two, 2), 0);
    ck_assert_int_eq(time_map_convert(&m, THIRD, 11000), 500);
    /* the same point twice defines no slope: it stays an offset */
    time_map_free(&m);
    time_map_init(&m, SESSION, SESSION);
    ck_assert_int_eq(time_map_points(&m, OTHER, SESSION, &one, 1), 0);
    ck_assert_int_eq(time_map_points(&m, OTHER, SESSION, &one, 1), 0);
    ck_assert_int_eq(time_map_convert(&m, OTHER, 8), 1008);
    time_map_free(&m);
}
END_TEST

START_TEST(latest_conversion_wins) {
    time_map m;
    nvtxSyncPoint_t p = {0, 1};
    time_map_init(&m, SESSION, SESSION);
    ck_assert_int_eq(time_map_factor(&m, GPU, SESSION, 3.0, 0, 0), 0);
    ck_assert_int_eq(time_map_convert(&m, GPU, 10), 30);
    ck_assert_int_eq(time_map_points(&m, GPU, SESSION, &p, 1), 0); /* now an offset of 1 */
    ck_assert_int_eq(time_map_convert(&m, GPU, 10), 11);
    ck_assert_int_eq(time_map_factor(&m, GPU, SESSION, 1.5, 0, 0), 0);
    ck_assert_int_eq(time_map_convert(&m, GPU, 3), 5); /* 4.5 rounds away from 0 */
    time_map_free(&m);
}
END_TEST

START_TEST(unconverted_and_ignored) {
    time_map m;
    time_map_init(&m, SESSION, OTHER);
    ck_assert_int_eq(time_map_convert(&m, NVTX_TIME_DOMAIN_ID_NONE, 42), 42);
    ck_assert_int_eq(time_map_convert(&m, GPU, 43), 43);
    ck_assert_uint_eq(m.unconverted, 2);
    ck_assert_uint_eq(m.unconverted_domain, GPU);
    /* neither side the session's; slopes that are not finite or 0 */
    ck_assert_int_eq(time_map_factor(&m, GPU, THIRD, 2.0, 0, 0), 0);
    ck_assert_int_eq(time_map_factor(&m, GPU, SESSION, NAN, 0, 0), 0);
    ck_assert_int_eq(time_map_factor(&m, GPU, SESSION, INFINITY, 0, 0), 0);
    ck_assert_int_eq(time_map_factor(&m, GPU, SESSION, 0.0, 0, 0), 0);
    ck_assert_int_eq(time_map_factor(&m, GPU, GPU, 2.0, 0, 0), 0);
    ck_assert_int_eq(time_map_convert(&m, GPU, 44), 44);
    ck_assert_uint_eq(m.unconverted, 3);
    ck_assert_uint_eq(m.count, 0);
    time_map_free(&m);
    /* a session without a time domain converts nothing */
    time_map_init(&m, NVTX_TIME_DOMAIN_ID_NONE, NVTX_TIME_DOMAIN_ID_NONE);
    ck_assert_int_eq(time_map_factor(&m, GPU, NVTX_TIME_DOMAIN_ID_NONE, 2.0, 0, 0), 0);
    ck_assert_int_eq(time_map_convert(&m, NVTX_TIME_DOMAIN_ID_NONE, 5), 5);
    time_map_free(&m);
}
END_TEST

START_TEST(clamped) {
    time_map m;
    time_map_init(&m, SESSION, SESSION);
    ck_assert_int_eq(time_map_factor(&m, GPU, SESSION, 1e30, 0, 0), 0);
    ck_assert_int_eq(time_map_convert(&m, GPU, 1), INT64_MAX);
    ck_assert_int_eq(time_map_convert(&m, GPU, -1), INT64_MIN);
    ck_assert_int_eq(time_map_factor(&m, GPU, SESSION, 1.0, INT64_MIN, INT64_MAX), 0);
    ck_assert_int_eq(time_map_convert(&m, GPU, INT64_MAX), INT64_MAX);
    ck_assert_int_eq(time_map_factor(&m, GPU, SESSION, 1.0, 0, INT64_MIN), 0);
    ck_assert_int_eq(time_map_convert(&m, GPU, INT64_MIN), INT64_MIN);
    time_map_free(&m);
}
END_TEST

START_TEST(domain_limit) {
    time_map m;
    uint64_t d;
    time_map_init(&m, SESSION, SESSION);
    for (d = 0; d < TIME_MAP_MAX_DOMAINS + 10; d++)
        ck_assert_int_eq(time_map_factor(&m, 1000 + d, SESSION, 1.0, 0, 7), 0);
    ck_assert_uint_eq(m.count, TIME_MAP_MAX_DOMAINS);
    ck_assert_int_eq(time_map_convert(&m, 1000 + TIME_MAP_MAX_DOMAINS - 1, 1), 8);
    ck_assert_int_eq(time_map_convert(&m, 1000 + TIME_MAP_MAX_DOMAINS, 1), 1);
    ck_assert_uint_eq(m.unconverted, 1);
    time_map_free(&m);
}
END_TEST

START_TEST(first_stream_sets_the_session_domain) {
    uint64_t session = 0;
    int set = 0;
    time_map cpu, gpu;
    time_map_open(&cpu, &session, &set, SESSION);
    time_map_open(&gpu, &session, &set, GPU);
    ck_assert_int_eq(set, 1);
    ck_assert_uint_eq(session, SESSION);
    ck_assert_uint_eq(gpu.session_domain, SESSION);
    ck_assert_int_eq(time_map_factor(&gpu, GPU, SESSION, 2.0, 0, 100), 0);
    ck_assert_int_eq(time_map_convert(&gpu, NVTX_TIME_DOMAIN_ID_NONE, 5), 110);
    ck_assert_int_eq(time_map_convert(&cpu, NVTX_TIME_DOMAIN_ID_NONE, 5), 5);
    time_map_free(&cpu);
    time_map_free(&gpu);
}
END_TEST

START_TEST(semantics_chain) {
    nvtxSemanticsTime_t time = {{sizeof time, NVTX_SEMANTIC_ID_TIME_V1, 1, NULL}, GPU};
    nvtxSemanticsHeader_t other = {sizeof other, 99, 1, &time.header};
    nvtxSemanticsTime_t short_one = {
        {sizeof(nvtxSemanticsHeader_t), NVTX_SEMANTIC_ID_TIME_V1, 1, NULL}, GPU};
    ck_assert_uint_eq(time_map_semantics_domain(&other), GPU);
    ck_assert_uint_eq(time_map_semantics_domain(NULL), NVTX_TIME_DOMAIN_ID_NONE);
    ck_assert_uint_eq(time_map_semantics_domain(&short_one.header), NVTX_TIME_DOMAIN_ID_NONE);
}
END_TEST

int main(void) {
    Suite* s = suite_create("time_map");
    TCase* tc = tcase_create("time_map");
    SRunner* sr;
    int failed;
    tcase_add_test(tc, factor_either_way);
    tcase_add_test(tc, sync_points);
    tcase_add_test(tc, latest_conversion_wins);
    tcase_add_test(tc, unconverted_and_ignored);
    tcase_add_test(tc, clamped);
    tcase_add_test(tc, domain_limit);
    tcase_add_test(tc, first_stream_sets_the_session_domain);
    tcase_add_test(tc, semantics_chain);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
