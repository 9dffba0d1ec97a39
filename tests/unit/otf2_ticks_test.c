/*
 * tests/unit/otf2_ticks_test.c - nvtxw-otf2-import's clock conversion
 * (tools/otf2-import/ticks.c) against floor((t - offset) * 10^9 / res)
 * computed here with one 128-bit division: resolutions from 1 tick/s to
 * 2^64 - 1 (each path: nanoseconds, the precomputed inverse, the 128-bit
 * fallback), ticks at both ends of the range and around every multiple of
 * the resolution, before and after the global offset, and results that do
 * not fit an int64.
 */
#include "config.h"

#include <check.h>
#include <stdint.h>

#include "otf2_import.h"
#include "run_suite.h"
#include "test_random.h"

/* The definition, in one division: 0 and *ns, or -1 out of range. */
static int reference(uint64_t res, uint64_t offset, uint64_t ticks, int64_t* ns) {
    __int128 scaled = ((__int128)ticks - (__int128)offset) * 1000000000;
    __int128 q = scaled / (__int128)res;
    if (scaled % (__int128)res != 0 && scaled < 0)
        q -= 1;
    if (q > INT64_MAX || q < INT64_MIN)
        return -1;
    *ns = (int64_t)q;
    return 0;
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;

static uint64_t next_random(void) { return tu_random(&rng_state); }

static void check_one(const otf2_defs* defs, uint64_t ticks) {
    int64_t want = 0, got = 0;
    int want_status = reference(defs->timer_resolution, defs->global_offset, ticks, &want);
    int got_status = import_ticks_to_ns(defs, ticks, &got);
    if (got_status == want_status && (got_status != 0 || got == want))
        return; /* not a ck_assert: Check marks every one through a pipe */
    ck_abort_msg("res %llu offset %llu ticks %llu: got %d/%lld, want %d/%lld",
                 (unsigned long long)defs->timer_resolution,
                 (unsigned long long)defs->global_offset, (unsigned long long)ticks, got_status,
                 (long long)got, want_status, (long long)want);
}

static const uint64_t resolutions[] = {1,
                                       3,
                                       7,
                                       1000,
                                       1000000,
                                       999999937,
                                       1000000000,
                                       1000000007,
                                       2400000000ULL,
                                       3000000001ULL,
                                       UINT64_MAX / 1000000000 - 1,
                                       UINT64_MAX / 1000000000,
                                       UINT64_MAX / 1000000000 + 1,
                                       (uint64_t)1 << 62,
                                       UINT64_MAX - 1,
                                       UINT64_MAX};

static const uint64_t offsets[] = {0,         1, 1000000000, 69081994439935227ULL, UINT64_MAX / 2,
                                   UINT64_MAX};

START_TEST(every_path_exact) {
    otf2_defs defs = {0};
    uint64_t res = resolutions[_i];
    for (size_t o = 0; o < sizeof offsets / sizeof offsets[0]; o++) {
        uint64_t offset = offsets[o];
        import_clock_set(&defs, res, offset);
        ck_assert_uint_eq(defs.resolution_inverse, UINT64_MAX / res);
        for (uint64_t d = 0; d < 64; d++) { /* both ends, the offset, around it */
            check_one(&defs, d);
            check_one(&defs, UINT64_MAX - d);
            check_one(&defs, offset + d);
            check_one(&defs, offset - d);
        }
        for (uint64_t k = 1; k < 2000; k++) { /* around multiples of res */
            uint64_t m = offset + k * res;
            check_one(&defs, m);
            check_one(&defs, m - 1);
            check_one(&defs, m + 1);
        }
        for (int k = 0; k < 20000; k++) {
            uint64_t r = next_random();
            check_one(&defs, r);
            check_one(&defs, offset + (r >> (k % 64)));
        }
    }
}
END_TEST

static Suite* ticks_suite(void) {
    Suite* s = suite_create("otf2_ticks");
    TCase* tc = tcase_create("ticks");
    tcase_add_loop_test(tc, every_path_exact, 0, sizeof resolutions / sizeof resolutions[0]);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(ticks_suite()); }
