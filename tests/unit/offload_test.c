/*
 * tests/unit/offload_test.c - the compression threads' job queue
 * (sink/shared/offload.h): each lane's jobs run in submission order on its
 * worker, a job's error reaches the lane's next submission and its drain,
 * and job buffers belong to the worker: many lanes that each submitted
 * big jobs keep only the worker's few spares once drained (each lane kept
 * its own before, 1 MiB per open stream of the report sink), and a
 * worker's lanes together queue at most OFFLOAD_WORKER_DEPTH jobs.
 *
 * offload.c and what it uses are hidden in libnvtxw, so the test compiles
 * them itself; allocation comes from libnvtxw.
 */
#define _GNU_SOURCE
#include "config.h"

#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "common/error_internal.h"
#include "nvtxw/error.h"
#include "sink/shared/offload.h"
#include "test_util.h"

#define LANES 64
#define JOB_BYTES (512u * 1024u)

typedef struct lane_log {
    offload_lane lane;
    uint64_t next_expected; /* the sequence number the next job must carry */
    uint64_t out_of_order;
    uint64_t fail_at; /* a job with this sequence number fails (0: none) */
} lane_log;

static nvtxwResultCode_t run_job(void* owner, const void* meta, const char* data, size_t size,
                                 strbuf* scratch) {
    lane_log* log = owner;
    uint64_t seq;
    (void)scratch;
    memcpy(&seq, meta, sizeof seq);
    if (seq != log->next_expected || size != JOB_BYTES ||
        (unsigned char)data[size - 1] != seq % 251)
        log->out_of_order++;
    log->next_expected = seq + 1;
    if (log->fail_at != 0 && seq == log->fail_at)
        return error_set(NVTXW_RESULT_FAILED, "job %llu of the lane failed",
                         (unsigned long long)seq);
    return NVTXW_RESULT_SUCCESS;
}

static int fill_job(void* ctx, strbuf* out) {
    const uint64_t* seq = ctx;
    if (strbuf_reserve(out, JOB_BYTES) != 0)
        return -1;
    memset(out->data, (int)(*seq % 251), JOB_BYTES);
    out->length = JOB_BYTES;
    return 0;
}

static nvtxwResultCode_t submit(lane_log* log, uint64_t seq) {
    return offload_submit(&log->lane, &seq, sizeof seq, fill_job, &seq);
}

static lane_log logs[LANES];

/* 64 lanes on one worker, 8 jobs of 512 KiB each: every lane's jobs in
 * order; once drained, the heap keeps at most the worker's spares
 * (OFFLOAD_SPARE_MAX buffers), not two buffers per lane (64 MiB). Under a
 * sanitizer's allocator mallinfo2 says nothing (0): the order still counts. */
START_TEST(lanes_in_order_buffers_shared) {
    offload_pool pool;
    size_t before, after;
    offload_pool_start(&pool, 1);
    ck_assert_int_eq(pool.count, 1);
    for (int i = 0; i < LANES; i++) {
        memset(&logs[i], 0, sizeof logs[i]);
        offload_lane_init(&logs[i].lane, &pool, (uint64_t)i, run_job, &logs[i]);
        ck_assert(offload_lane_active(&logs[i].lane));
    }
    before = tu_heap_in_use();
    for (uint64_t seq = 0; seq < 8; seq++) {
        for (int i = 0; i < LANES; i++)
            ck_assert_int_eq(submit(&logs[i], seq), NVTXW_RESULT_SUCCESS);
    }
    for (int i = 0; i < LANES; i++) {
        ck_assert_int_eq(offload_drain(&logs[i].lane), NVTXW_RESULT_SUCCESS);
        ck_assert_uint_eq(logs[i].next_expected, 8);
        ck_assert_uint_eq(logs[i].out_of_order, 0);
    }
    after = tu_heap_in_use();
    if (before != 0)
        ck_assert_msg(after < before + (OFFLOAD_SPARE_MAX + 1) * (size_t)JOB_BYTES * 2,
                      "%zu bytes kept after the drain", after - before);
    offload_pool_stop(&pool);
}
END_TEST

/* A job that fails: the lane's next submission returns its error and
 * message, and so does the drain; another lane is not affected. */
START_TEST(error_reaches_the_lane) {
    offload_pool pool;
    nvtxwResultCode_t rc = NVTXW_RESULT_SUCCESS;
    offload_pool_start(&pool, 1);
    memset(&logs[0], 0, sizeof logs[0]);
    memset(&logs[1], 0, sizeof logs[1]);
    logs[0].fail_at = 2;
    offload_lane_init(&logs[0].lane, &pool, 0, run_job, &logs[0]);
    offload_lane_init(&logs[1].lane, &pool, 0, run_job, &logs[1]);
    for (uint64_t seq = 0; seq < 40 && rc == NVTXW_RESULT_SUCCESS; seq++)
        rc = submit(&logs[0], seq);
    ck_assert_int_eq(rc, NVTXW_RESULT_FAILED);
    ck_assert_str_eq(nvtxw_last_error(), "job 2 of the lane failed");
    ck_assert_int_eq(submit(&logs[1], 0), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(offload_drain(&logs[0].lane), NVTXW_RESULT_FAILED);
    ck_assert_str_eq(nvtxw_last_error(), "job 2 of the lane failed");
    ck_assert_int_eq(offload_drain(&logs[1].lane), NVTXW_RESULT_SUCCESS);
    ck_assert_uint_eq(logs[0].out_of_order, 0);
    offload_pool_stop(&pool);
}
END_TEST

/* The worker's bound over all its lanes: with its thread held inside the
 * first job, a producer submitting one job on each of 64 lanes gets
 * OFFLOAD_WORKER_DEPTH of them queued (the held one included) and then
 * waits, however many lanes are left; released, every job runs. */
static atomic_int held = 1, submitted = 0;

static nvtxwResultCode_t run_held(void* owner, const void* meta, const char* data, size_t size,
                                  strbuf* scratch) {
    const struct timespec pause = {0, 1000 * 1000};
    while (atomic_load(&held))
        nanosleep(&pause, NULL);
    return run_job(owner, meta, data, size, scratch);
}

static void* submit_on_every_lane(void* arg) {
    (void)arg;
    for (int i = 0; i < LANES; i++) {
        ck_assert_int_eq(submit(&logs[i], 0), NVTXW_RESULT_SUCCESS);
        atomic_fetch_add(&submitted, 1);
    }
    return NULL;
}

START_TEST(worker_bounds_its_lanes_together) {
    const struct timespec pause = {0, 50 * 1000 * 1000};
    offload_pool pool;
    pthread_t producer;
    int queued;
    offload_pool_start(&pool, 1);
    for (int i = 0; i < LANES; i++) {
        memset(&logs[i], 0, sizeof logs[i]);
        offload_lane_init(&logs[i].lane, &pool, (uint64_t)i, run_held, &logs[i]);
    }
    ck_assert_int_eq(pthread_create(&producer, NULL, submit_on_every_lane, NULL), 0);
    while (atomic_load(&submitted) < OFFLOAD_WORKER_DEPTH)
        nanosleep(&pause, NULL);
    nanosleep(&pause, NULL); /* time for more, which must not come */
    queued = atomic_load(&submitted);
    ck_assert_int_eq(queued, OFFLOAD_WORKER_DEPTH);
    atomic_store(&held, 0);
    pthread_join(producer, NULL);
    queued = atomic_load(&submitted);
    ck_assert_int_eq(queued, LANES);
    for (int i = 0; i < LANES; i++) {
        ck_assert_int_eq(offload_drain(&logs[i].lane), NVTXW_RESULT_SUCCESS);
        ck_assert_uint_eq(logs[i].next_expected, 1);
    }
    offload_pool_stop(&pool);
}
END_TEST

static Suite* offload_suite(void) {
    Suite* s = suite_create("offload");
    TCase* tc = tcase_create("offload");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, lanes_in_order_buffers_shared);
    tcase_add_test(tc, error_reaches_the_lane);
    tcase_add_test(tc, worker_bounds_its_lanes_together);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(offload_suite()); }
