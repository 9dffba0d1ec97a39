/*
 * tests/unit/pubmap_test.c - the lock-free registries of common/pubmap.h:
 * pubvec's segments (no item ever moves), pubmap's dense range for
 * dynamic IDs beside its hash table, failures that leave the map as it
 * was, and a reader running beside the writer (TSan sees the publishing).
 *
 * pubmap's functions are hidden in libnvtxw, so the test compiles
 * pubmap.c itself; allocation comes from libnvtxw (failure injection).
 */
#define _POSIX_C_SOURCE 200809L /* test_util.h */
#include "config.h"

#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "common/pubmap.h"
#include "nvtxw/export.h"
#include "nvtxw/nvtx_types.h"
#include "test_util.h"

NVTXW_API void nvtxw_alloc_fail_after(long count);

/* Distinct non-NULL values that say which index or ID they were put at. */
#define VALUE(n) ((void*)(uintptr_t)(((uint64_t)(n) << 1) | 1))

static size_t freed;
static void count_free(void* value) {
    ck_assert_ptr_nonnull(value);
    freed++;
}

/* Indexes on both sides of each segment boundary (16, 48, 112, ...). */
static const size_t edges[] = {0, 1, 15, 16, 47, 48, 111, 112, 1007, 1008, 65535, 262127, 262128};

START_TEST(pubvec_keeps_items_across_segments) {
    pubvec vec = {0};
    size_t offset;
    ck_assert_uint_eq(pubvec_segment(0, &offset), 0);
    ck_assert_uint_eq(offset, 0);
    ck_assert_uint_eq(pubvec_segment(15, &offset), 0);
    ck_assert_uint_eq(offset, 15);
    ck_assert_uint_eq(pubvec_segment(16, &offset), 1);
    ck_assert_uint_eq(offset, 0);
    ck_assert_uint_eq(pubvec_segment(47, &offset), 1);
    ck_assert_uint_eq(offset, 31);
    ck_assert_uint_eq(pubvec_segment(48, &offset), 2);
    ck_assert_uint_eq(offset, 0);
    ck_assert_ptr_null(pubvec_get(&vec, 0)); /* empty and valid */
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
        ck_assert_int_eq(pubvec_set(&vec, edges[i], VALUE(edges[i])), 0);
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
        ck_assert_ptr_eq(pubvec_get(&vec, edges[i]), VALUE(edges[i]));
    ck_assert_ptr_null(pubvec_get(&vec, 2));      /* in a segment, never set */
    ck_assert_ptr_null(pubvec_get(&vec, 300000)); /* past every segment set */
    ck_assert_ptr_null(pubvec_get(&vec, SIZE_MAX));
    ck_assert_int_eq(pubvec_reserve(&vec, SIZE_MAX), -1);
    freed = 0;
    pubvec_free(&vec, count_free);
    ck_assert_uint_eq(freed, sizeof edges / sizeof edges[0]);
    ck_assert_ptr_null(pubvec_get(&vec, 0)); /* freed: empty again */
}
END_TEST

START_TEST(pubvec_failure_leaves_it_unchanged) {
    pubvec vec = {0};
    ck_assert_int_eq(pubvec_set(&vec, 3, VALUE(3)), 0);
    nvtxw_alloc_fail_after(0);
    ck_assert_int_eq(pubvec_set(&vec, 100, VALUE(100)), -1); /* a new segment */
    ck_assert_int_eq(pubvec_set(&vec, 4, VALUE(4)), 0);      /* its segment exists */
    nvtxw_alloc_fail_after(-1);
    ck_assert_ptr_eq(pubvec_get(&vec, 3), VALUE(3));
    ck_assert_ptr_eq(pubvec_get(&vec, 4), VALUE(4));
    ck_assert_ptr_null(pubvec_get(&vec, 100));
    ck_assert_int_eq(pubvec_set(&vec, 100, VALUE(100)), 0);
    ck_assert_ptr_eq(pubvec_get(&vec, 100), VALUE(100));
    pubvec_free(&vec, NULL);
}
END_TEST

/* Dynamic IDs in the dense range, static ones in the hash table: both
 * found, counted and freed; an ID below the base is never dense. */
START_TEST(pubmap_dense_and_hashed_ids) {
    const uint64_t base = NVTX_SCOPE_ID_DYNAMIC_START;
    pubmap map = {0};
    pubmap_init_dense(&map, base);
    ck_assert(pubmap_is_dense(&map, base));
    ck_assert(!pubmap_is_dense(&map, base - 1));
    ck_assert(!pubmap_is_dense(&map, UINT64_MAX));
    for (uint64_t i = 0; i < 100000; i++)
        ck_assert_int_eq(pubmap_put(&map, base + i, VALUE(i)), 0);
    for (uint64_t id = NVTX_SCOPE_ID_STATIC_START; id < NVTX_SCOPE_ID_STATIC_START + 1000; id++)
        ck_assert_int_eq(pubmap_put(&map, id, VALUE(id)), 0);
    ck_assert_int_eq(pubmap_put(&map, UINT64_MAX, VALUE(7)), 0); /* past the range: hashed */
    ck_assert_uint_eq(pubmap_count(&map), 101001);
    for (uint64_t i = 0; i < 100000; i += 997)
        ck_assert_ptr_eq(pubmap_get(&map, base + i), VALUE(i));
    ck_assert_ptr_eq(pubmap_get(&map, NVTX_SCOPE_ID_STATIC_START + 999),
                     VALUE(NVTX_SCOPE_ID_STATIC_START + 999));
    ck_assert_ptr_eq(pubmap_get(&map, UINT64_MAX), VALUE(7));
    ck_assert_ptr_null(pubmap_get(&map, base + 100000));
    ck_assert_ptr_null(pubmap_get(&map, NVTX_SCOPE_ID_STATIC_START + 1000));
    ck_assert_ptr_null(pubmap_get(&map, 5));
    /* the dense range holds pointers only: the hash table stayed small */
    ck_assert_uint_le(atomic_load(&map.table)->capacity, 4096);
    freed = 0;
    pubmap_free(&map, count_free);
    ck_assert_uint_eq(freed, 101001);
    ck_assert_uint_eq(pubmap_count(&map), 0);
}
END_TEST

/* Released IDs read as NULL but stay taken; the hashed ones keep their
 * slot, so IDs probed past them are still found, also after the table
 * grows; _free skips them. */
START_TEST(pubmap_release_keeps_the_slot) {
    const uint64_t base = NVTX_SCOPE_ID_DYNAMIC_START, first = NVTX_SCOPE_ID_STATIC_START;
    pubmap map = {0};
    pubmap_init_dense(&map, base);
    for (uint64_t i = 0; i < 100; i++) {
        ck_assert_int_eq(pubmap_put(&map, base + i, VALUE(i)), 0);
        ck_assert_int_eq(pubmap_put(&map, first + i, VALUE(first + i)), 0);
    }
    for (uint64_t i = 0; i < 100; i += 2) {
        ck_assert_ptr_eq(pubmap_release(&map, base + i), VALUE(i));
        ck_assert_ptr_eq(pubmap_release(&map, first + i), VALUE(first + i));
    }
    ck_assert_ptr_null(pubmap_release(&map, base + 0));   /* twice */
    ck_assert_ptr_null(pubmap_release(&map, base + 100)); /* never put */
    ck_assert_ptr_null(pubmap_release(&map, first + 100));
    for (uint64_t i = 100; i < 5000; i++) /* grows the table past the released slots */
        ck_assert_int_eq(pubmap_put(&map, first + i, VALUE(first + i)), 0);
    for (uint64_t i = 0; i < 100; i++) {
        void* dense = i % 2 ? VALUE(i) : NULL;
        void* hashed = i % 2 ? VALUE(first + i) : NULL;
        ck_assert_ptr_eq(pubmap_get(&map, base + i), dense);
        ck_assert_ptr_eq(pubmap_get(&map, first + i), hashed);
        ck_assert(pubmap_taken(&map, base + i) && pubmap_taken(&map, first + i));
    }
    for (uint64_t i = 100; i < 5000; i++)
        ck_assert_ptr_eq(pubmap_get(&map, first + i), VALUE(first + i));
    ck_assert(!pubmap_taken(&map, base + 100));
    freed = 0;
    pubmap_free(&map, count_free);
    ck_assert_uint_eq(freed, 100 + 4900);
}
END_TEST

/* IDs stored and released one after the other: a chunk whose IDs are all
 * released is reused, so 100,000 of them keep two chunks; a chunk with one
 * live ID stays, with that value intact, while its neighbours' chunks are
 * reused around it; retired IDs read as released. */
START_TEST(pubmap_dense_chunks_reused) {
    const uint64_t base = NVTX_SCOPE_ID_DYNAMIC_START;
    pubmap map = {0};
    pubmap_init_dense(&map, base);
    for (uint64_t i = 0; i < 100000; i++) {
        ck_assert_int_eq(pubmap_put(&map, base + i, VALUE(i)), 0);
        if (i % 10000 != 5) /* these stay */
            ck_assert_ptr_eq(pubmap_release(&map, base + i), VALUE(i));
    }
    /* 10 chunks hold a live ID; one more is the last, not yet full */
    ck_assert_uint_le(pubmap_chunk_count(&map), 10 + 2);
    for (uint64_t i = 0; i < 100000; i++) {
        ck_assert_ptr_eq(pubmap_get(&map, base + i), i % 10000 == 5 ? VALUE(i) : NULL);
        ck_assert(pubmap_taken(&map, base + i));
    }
    ck_assert(!pubmap_taken(&map, base + 100000));
    ck_assert_ptr_null(pubmap_release(&map, base + 6)); /* a retired chunk's */
    freed = 0;
    pubmap_free(&map, count_free);
    ck_assert_uint_eq(freed, 10);
}
END_TEST

START_TEST(pubmap_reserved_put_cannot_fail) {
    const uint64_t base = NVTX_COUNTER_ID_DYNAMIC_START;
    pubmap map = {0};
    pubmap_init_dense(&map, base);
    ck_assert_int_eq(pubmap_reserve_id(&map, base + 5000), 0);
    ck_assert_int_eq(pubmap_reserve_id(&map, 123), 0);
    nvtxw_alloc_fail_after(0);
    ck_assert_int_eq(pubmap_put(&map, base + 5000, VALUE(1)), 0);
    ck_assert_int_eq(pubmap_put(&map, 123, VALUE(2)), 0);
    ck_assert_int_eq(pubmap_put(&map, base + 100000, VALUE(3)), -1); /* not reserved */
    nvtxw_alloc_fail_after(-1);
    ck_assert_ptr_eq(pubmap_get(&map, base + 5000), VALUE(1));
    ck_assert_ptr_eq(pubmap_get(&map, 123), VALUE(2));
    ck_assert_ptr_null(pubmap_get(&map, base + 100000));
    ck_assert_uint_eq(pubmap_count(&map), 2);
    pubmap_free(&map, NULL);
}
END_TEST

/* A reader beside the writer: every value it finds is the one put under
 * that ID, and once the writer is done it finds them all. */
#define RACE_IDS 200000
static pubmap race_map;
static atomic_int race_done;

static void* race_reader(void* arg) {
    uint64_t base = *(const uint64_t*)arg, seen = 0;
    while (!atomic_load(&race_done)) {
        for (uint64_t i = 0; i < RACE_IDS; i += 101) {
            void* value = pubmap_get(&race_map, base + i);
            if (value != NULL && value != VALUE(i))
                return (void*)1;
            seen += value != NULL;
        }
    }
    (void)seen;
    return NULL;
}

START_TEST(pubmap_reader_beside_writer) {
    uint64_t base = NVTX_SCOPE_ID_DYNAMIC_START;
    pthread_t reader;
    void* result = (void*)2;
    pubmap_init_dense(&race_map, base);
    atomic_store(&race_done, 0);
    ck_assert_int_eq(pthread_create(&reader, NULL, race_reader, &base), 0);
    for (uint64_t i = 0; i < RACE_IDS; i++) {
        ck_assert_int_eq(pubmap_put(&race_map, base + i, VALUE(i)), 0);
        if (i % 4 == 0) /* the hash side too */
            ck_assert_int_eq(pubmap_put(&race_map, NVTX_SCOPE_ID_STATIC_START + i, VALUE(i)), 0);
    }
    atomic_store(&race_done, 1);
    ck_assert_int_eq(pthread_join(reader, &result), 0);
    ck_assert_ptr_null(result);
    for (uint64_t i = 0; i < RACE_IDS; i++)
        ck_assert_ptr_eq(pubmap_get(&race_map, base + i), VALUE(i));
    pubmap_free(&race_map, NULL);
}
END_TEST

int main(void) {
    Suite* suite = suite_create("pubmap");
    TCase* tc = tcase_create("pubmap");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, pubvec_keeps_items_across_segments);
    tcase_add_test(tc, pubvec_failure_leaves_it_unchanged);
    tcase_add_test(tc, pubmap_dense_and_hashed_ids);
    tcase_add_test(tc, pubmap_release_keeps_the_slot);
    tcase_add_test(tc, pubmap_dense_chunks_reused);
    tcase_add_test(tc, pubmap_reserved_put_cannot_fail);
    tcase_add_test(tc, pubmap_reader_beside_writer);
    suite_add_tcase(suite, tc);
    return tu_run_suite(suite);
}
