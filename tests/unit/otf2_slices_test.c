/*
 * tests/unit/otf2_slices_test.c - how nvtxw-otf2-import cuts a process read
 * in turns into slices, one worker each (tools/otf2-import/slices.c). The
 * workers' scheduling relies on two promises: a process never has more
 * slices than workers (a slice ahead in time waits for the others, so one
 * that no worker could take would stall them), and no slice holds more
 * locations open than the memory budget allows. Checked on random
 * processes, event counts skewed towards the first locations, zeros and
 * all, by taking slices until none is left, as worker.c does.
 */
#include "config.h"

#include <check.h>
#include <stdint.h>
#include <string.h>

#include "otf2_import.h"
#include "run_suite.h"
#include "test_random.h"

#define MAX_LOCATIONS 64

static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;

static uint64_t next_random(void) { return tu_random(&rng_state); }

static uint64_t events_at(const void* ctx, size_t i) { return ((const uint64_t*)ctx)[i]; }

/* Random event counts: even, skewed to the front or back, or with zeros. */
static void random_events(uint64_t* events, size_t length) {
    unsigned shape = (unsigned)(next_random() % 4);
    for (size_t i = 0; i < length; i++) {
        uint64_t base = 1000 + next_random() % 1000;
        switch (shape) {
        case 0:
            events[i] = base;
            break;
        case 1:
            events[i] = i < 2 ? base * 100 : base;
            break;
        case 2:
            events[i] = i + 2 >= length ? base * 100 : base;
            break;
        default:
            events[i] = next_random() % 3 == 0 ? 0 : base;
        }
    }
}

/* Takes every slice of a process as worker.c does; checks each. */
static void take_all(const uint64_t* events, size_t length, size_t slices, size_t max_open) {
    size_t first = 0, taken = 0;
    while (first < length) {
        size_t n;
        ck_assert_msg(slices > 0, "locations %zu..%zu left with no slice", first, length);
        n = turns_slice_length(events_at, events + first, length - first, slices, max_open);
        ck_assert_msg(n >= 1 && n <= max_open, "a slice of %zu locations (at most %zu)", n,
                      max_open);
        first += n;
        slices--;
        taken++;
    }
    ck_assert_uint_eq(first, length);
    ck_assert_uint_eq(slices, 0); /* every slice counted was taken */
    (void)taken;
}

START_TEST(slices_fit_workers_and_budget) {
    uint64_t events[MAX_LOCATIONS];
    for (int round = 0; round < 20000; round++) {
        size_t length = 1 + (size_t)(next_random() % MAX_LOCATIONS);
        size_t threads = 1 + (size_t)(next_random() % 8);
        size_t max_open = 1 + (size_t)(next_random() % 12);
        uint64_t process = 0, others = next_random() % 3 == 0 ? 0 : next_random() % 200000;
        size_t slices;
        random_events(events, length);
        for (size_t i = 0; i < length; i++)
            process += events[i];
        slices = turns_slices(process, process + others, length, threads, max_open);
        if (slices == 0) { /* refused only when the budget needs more slices than workers */
            ck_assert_uint_gt((length + max_open - 1) / max_open, threads);
            continue;
        }
        ck_assert_uint_le(slices, threads);
        ck_assert_uint_le(slices, length);
        ck_assert_uint_le(length, slices * max_open);
        take_all(events, length, slices, max_open);
    }
}
END_TEST

/* A process of a worker's share or less is one slice; one of all the
 * events is cut into one per worker; slices follow the events. */
START_TEST(slices_follow_events) {
    uint64_t skewed[8] = {700, 100, 100, 100, 0, 0, 0, 0};
    ck_assert_uint_eq(turns_slices(100, 400, 8, 4, 12), 1);
    ck_assert_uint_eq(turns_slices(101, 400, 8, 4, 12), 2);
    ck_assert_uint_eq(turns_slices(400, 400, 8, 2, 12), 2);
    ck_assert_uint_eq(turns_slices(400, 400, 3, 8, 12), 3); /* one a location at most */
    ck_assert_uint_eq(turns_slices(10, 400, 12, 2, 6), 2);  /* the budget asks for two */
    ck_assert_uint_eq(turns_slices(10, 400, 13, 2, 6), 0);  /* and here for three */
    ck_assert_uint_eq(turns_slice_length(events_at, skewed, 8, 2, 12), 1); /* 700 of 1000 */
    ck_assert_uint_eq(turns_slice_length(events_at, skewed, 8, 2, 4), 4);  /* 4 must stay */
    ck_assert_uint_eq(turns_slice_length(events_at, skewed, 8, 1, 12), 8);
}
END_TEST

static Suite* slices_suite(void) {
    Suite* s = suite_create("otf2_slices");
    TCase* tc = tcase_create("slices");
    tcase_add_test(tc, slices_fit_workers_and_budget);
    tcase_add_test(tc, slices_follow_events);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(slices_suite()); }
