/*
 * tests/unit/otf2_task_set_test.c - nvtxw-otf2-import's task set
 * (tools/otf2-import/task_set.c) against a plain array searched linearly:
 * random adds, finds and removals (the importer adds a task at first sight
 * and removes it once completed), keys that differ in one field only, a
 * set emptied and refilled, and the table's size following the tasks alive
 * at once rather than all tasks ever added.
 */
#include "config.h"

#include <check.h>
#include <stdint.h>
#include <string.h>

#include "otf2_import.h"
#include "run_suite.h"
#include "test_random.h"

#define REF_MAX 4096

/* The oracle: keys and values in insertion order, removal by swap. */
typedef struct reference {
    task_key keys[REF_MAX];
    uint64_t values[REF_MAX];
    size_t count;
} reference;

static reference ref;

static int ref_find(const task_key* key, size_t* index) {
    for (size_t i = 0; i < ref.count; i++) {
        if (memcmp(&ref.keys[i], key, sizeof *key) == 0) {
            *index = i;
            return 1;
        }
    }
    return 0;
}

static uint64_t rng_state = 0x2545F4914F6CDD1DULL;

static uint64_t next_random(void) { return tu_random(&rng_state); }

/* Keys from a small space, so adds meet present keys and removals absent
 * ones; neighbours differ in one field. */
static task_key random_key(unsigned space) {
    uint64_t r = next_random() % space;
    return thread_task_key((uint32_t)(r % 3), (uint32_t)(r / 3 % 5), (uint32_t)(r / 15));
}

/* Every key of the oracle is found with its value, and the set holds no
 * more. */
static void assert_same(const task_set* set) {
    ck_assert_uint_eq(set->count, ref.count);
    for (size_t i = 0; i < ref.count; i++) {
        size_t index;
        ck_assert_msg(task_set_find(set, &ref.keys[i], &index), "key %zu of %zu lost", i,
                      ref.count);
        ck_assert_uint_eq(set->values[index], ref.values[i]);
        ck_assert_int_eq(memcmp(&set->keys[index], &ref.keys[i], sizeof ref.keys[i]), 0);
    }
}

static void random_operations(task_set* set, unsigned space, int steps, int add_percent) {
    for (int step = 0; step < steps; step++) {
        task_key key = random_key(space);
        size_t index, ref_index;
        int present = ref_find(&key, &ref_index);
        if ((int)(next_random() % 100) < add_percent) {
            uint64_t value = next_random();
            ck_assert_int_eq(task_set_add(set, &key, value), 0);
            if (!present && ref.count < REF_MAX) {
                ref.keys[ref.count] = key;
                ref.values[ref.count++] = value;
            }
        } else if (next_random() % 2) {
            uint64_t value = 0;
            ck_assert_int_eq(task_set_remove(set, &key, &value), present);
            if (present) {
                ck_assert_uint_eq(value, ref.values[ref_index]);
                ref.keys[ref_index] = ref.keys[--ref.count];
                ref.values[ref_index] = ref.values[ref.count];
            }
        } else {
            ck_assert_int_eq(task_set_find(set, &key, &index), present);
        }
        if (step % 97 == 0)
            assert_same(set);
    }
    assert_same(set);
}

START_TEST(matches_reference) {
    task_set set;
    memset(&set, 0, sizeof set);
    ref.count = 0;
    random_operations(&set, 1500, 60000, 55); /* grows to about 1000 */
    random_operations(&set, 1500, 60000, 30); /* drains */
    random_operations(&set, 1500, 60000, 70); /* refills */
    task_set_free(&set);
    ck_assert_uint_eq(set.count, 0);
    ck_assert_ptr_null(set.slots);
}
END_TEST

/* A million tasks added and each removed soon after, at most 100 alive:
 * the table stays sized by those 100 (a set without deletion, or with
 * tombstones that are never reused, would grow to the million). */
START_TEST(size_follows_live_tasks) {
    task_set set;
    memset(&set, 0, sizeof set);
    for (uint32_t i = 0; i < 1000000; i++) {
        task_key key = thread_task_key(1, i % 7, i);
        ck_assert_int_eq(task_set_add(&set, &key, i), 0);
        if (i >= 100) {
            task_key old = thread_task_key(1, (i - 100) % 7, i - 100);
            if (!task_set_remove(&set, &old, NULL))
                ck_abort_msg("task %u not found to remove", i - 100);
        }
    }
    ck_assert_uint_eq(set.count, 100);
    ck_assert_uint_le(set.slot_count, 256);
    ck_assert_uint_le(set.capacity, 128);
    for (uint32_t i = 1000000 - 100; i < 1000000; i++) {
        task_key key = thread_task_key(1, i % 7, i);
        size_t index;
        ck_assert(task_set_find(&set, &key, &index));
        ck_assert_uint_eq(set.values[index], i);
    }
    task_set_free(&set);
}
END_TEST

START_TEST(empty_set) {
    task_set set;
    task_key key = thread_task_key(0, 0, 0);
    size_t index;
    memset(&set, 0, sizeof set);
    ck_assert_int_eq(task_set_find(&set, &key, &index), 0);
    ck_assert_int_eq(task_set_remove(&set, &key, NULL), 0);
    ck_assert_int_eq(task_set_add(&set, &key, 5), 0);
    ck_assert_int_eq(task_set_add(&set, &key, 6), 0); /* present: value kept */
    ck_assert(task_set_find(&set, &key, &index));
    ck_assert_uint_eq(set.values[index], 5);
    ck_assert_int_eq(task_set_remove(&set, &key, NULL), 1);
    ck_assert_int_eq(task_set_remove(&set, &key, NULL), 0);
    ck_assert_uint_eq(set.count, 0);
    task_set_free(&set);
}
END_TEST

static Suite* task_set_suite(void) {
    Suite* s = suite_create("otf2_task_set");
    TCase* tc = tcase_create("task_set");
    tcase_add_test(tc, empty_set);
    tcase_add_test(tc, matches_reference);
    tcase_add_test(tc, size_follows_live_tasks);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(task_set_suite()); }
