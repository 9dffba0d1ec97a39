/*
 * sink/shared/offload.c - a stream's compressed writes on worker threads
 * of its sink (contracts in offload.h).
 */
#include "config.h"

#include <pthread.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "common/thread.h"
#include "nvtxw/error.h"
#include "sink/shared/offload.h"

struct offload_job {
    offload_job* next;
    offload_lane* lane;
    strbuf data;
    alignas(max_align_t) unsigned char meta[OFFLOAD_META_MAX];
};

struct offload_worker {
    pthread_t thread;
    pthread_mutex_t mutex;
    pthread_cond_t work; /* a job was queued, or stop was set */
    pthread_cond_t done; /* a job has run */
    offload_job *head, *tail;
    /* Buffers of finished jobs, for any lane of the worker: at most
     * OFFLOAD_SPARE_MAX, so an open stream holds none (a process reading
     * many streams in turns kept 1 MiB a stream when each lane had its
     * own), and a burst of submissions from many lanes is not kept. */
    offload_job* spare;
    unsigned spare_count;
    unsigned in_flight; /* jobs of all its lanes queued or running */
    int stop;
    int idle;              /* the thread waits on `work` */
    unsigned done_waiters; /* producers waiting on `done` */
    strbuf scratch;        /* the thread's, for its jobs (offload_run_fn) */
};

/* By default one thread when a second CPU is online: a producer thread and
 * zstd then run side by side (bench/README.md). */
int offload_thread_count(const core_config* config) {
    if (config->compression_threads >= 0)
        return config->compression_threads;
    return sysconf(_SC_NPROCESSORS_ONLN) >= 2 ? 1 : 0;
}

/* Keeps an empty job among the worker's spares, with w->mutex held: NULL,
 * or the job when there are enough already (the caller frees it once the
 * lock is released). */
static offload_job* keep_spare(offload_worker* w, offload_job* job) {
    if (w->spare_count >= OFFLOAD_SPARE_MAX)
        return job;
    job->next = w->spare;
    w->spare = job;
    w->spare_count++;
    return NULL;
}

static void job_free(offload_job* job) {
    if (job != NULL) {
        strbuf_free(&job->data);
        nvtxw_free(job);
    }
}

/* A job has run, with w->mutex held: its status to its lane, its buffer
 * to the spares. Returns a job to free, and *wake whether a producer
 * waits for it. */
static offload_job* job_done(offload_worker* w, offload_job* job, nvtxwResultCode_t status,
                             int* wake) {
    offload_lane* lane = job->lane;
    if (status != NVTXW_RESULT_SUCCESS && lane->status == NVTXW_RESULT_SUCCESS) {
        lane->status = status;
        snprintf(lane->message, sizeof lane->message, "%s", nvtxw_last_error());
    }
    lane->in_flight--;
    w->in_flight--;
    *wake = w->done_waiters > 0;
    strbuf_clear(&job->data);
    return keep_spare(w, job);
}

/* One lock section per job between two jobs (giving one back, taking the
 * next); the thread sleeps only when the queue is empty, and is woken only
 * then (offload_submit). On a VM every futex wake of the other CPU costs
 * tens of microseconds, so the hand-over keeps them to about one per job:
 * the signals are sent after the lock is released, so the woken thread
 * does not block on the lock at once and need a second wake. */
static void* worker_main(void* arg) {
    offload_worker* w = arg;
    pthread_mutex_lock(&w->mutex);
    for (;;) {
        offload_job* job;
        nvtxwResultCode_t status;
        int wake;
        while (w->head == NULL && !w->stop) {
            w->idle = 1;
            pthread_cond_wait(&w->work, &w->mutex);
            w->idle = 0;
        }
        if (w->head == NULL)
            break; /* stop, and every job has run */
        job = w->head;
        w->head = job->next;
        if (w->head == NULL)
            w->tail = NULL;
        pthread_mutex_unlock(&w->mutex);
        status = job->lane->run(job->lane->owner, job->meta, job->data.data, job->data.length,
                                &w->scratch);
        pthread_mutex_lock(&w->mutex);
        job = job_done(w, job, status, &wake);
        if (wake || job != NULL) {
            pthread_mutex_unlock(&w->mutex);
            if (wake)
                pthread_cond_broadcast(&w->done);
            job_free(job);
            pthread_mutex_lock(&w->mutex);
        }
    }
    pthread_mutex_unlock(&w->mutex);
    return NULL;
}

static int start_thread(offload_worker* w) { return thread_start(&w->thread, worker_main, w); }

void offload_pool_start(offload_pool* pool, int count) {
    int i;
    pool->count = 0;
    pool->workers = count > 0 ? nvtxw_calloc((size_t)count, sizeof *pool->workers) : NULL;
    for (i = 0; pool->workers != NULL && i < count; i++) {
        offload_worker* w = &pool->workers[i];
        pthread_mutex_init(&w->mutex, NULL);
        pthread_cond_init(&w->work, NULL);
        pthread_cond_init(&w->done, NULL);
        if (start_thread(w) != 0) {
            pthread_cond_destroy(&w->done);
            pthread_cond_destroy(&w->work);
            pthread_mutex_destroy(&w->mutex);
            break; /* fewer threads: lanes share the others, or write on their own */
        }
        pool->count++;
    }
}

void offload_pool_stop(offload_pool* pool) {
    int i;
    for (i = 0; i < pool->count; i++) {
        offload_worker* w = &pool->workers[i];
        pthread_mutex_lock(&w->mutex);
        w->stop = 1;
        pthread_cond_signal(&w->work);
        pthread_mutex_unlock(&w->mutex);
        pthread_join(w->thread, NULL);
        strbuf_free(&w->scratch);
        while (w->spare != NULL) {
            offload_job* job = w->spare;
            w->spare = job->next;
            job_free(job);
        }
        pthread_cond_destroy(&w->done);
        pthread_cond_destroy(&w->work);
        pthread_mutex_destroy(&w->mutex);
    }
    nvtxw_free(pool->workers);
    pool->workers = NULL;
    pool->count = 0;
}

void offload_lane_init(offload_lane* lane, offload_pool* pool, uint64_t index, offload_run_fn run,
                       void* owner) {
    memset(lane, 0, sizeof *lane);
    lane->worker = pool->count > 0 ? &pool->workers[index % (uint64_t)pool->count] : NULL;
    lane->run = run;
    lane->owner = owner;
}

/* Waits (w->mutex held) until the thread has run a job. */
static void wait_done(offload_worker* w) {
    w->done_waiters++;
    pthread_cond_wait(&w->done, &w->mutex);
    w->done_waiters--;
}

/* The first error of the lane's jobs, raised on this thread. */
static nvtxwResultCode_t lane_error(const offload_lane* lane) {
    return lane->status == NVTXW_RESULT_SUCCESS ? NVTXW_RESULT_SUCCESS
                                                : error_set(lane->status, "%s", lane->message);
}

static void give_back(offload_worker* w, offload_job* job) {
    strbuf_clear(&job->data); /* fill's contract: an empty buffer */
    pthread_mutex_lock(&w->mutex);
    job = keep_spare(w, job);
    pthread_mutex_unlock(&w->mutex);
    job_free(job);
}

nvtxwResultCode_t offload_submit(offload_lane* lane, const void* meta, size_t meta_size,
                                 offload_fill_fn fill, void* fill_ctx) {
    offload_worker* w = lane->worker;
    offload_job* job;
    nvtxwResultCode_t status;
    int wake;
    if (meta_size > OFFLOAD_META_MAX)
        return error_set(NVTXW_RESULT_FAILED, "internal error: %zu bytes of job metadata",
                         meta_size);
    pthread_mutex_lock(&w->mutex);
    while (lane->in_flight >= OFFLOAD_DEPTH || w->in_flight >= OFFLOAD_WORKER_DEPTH)
        wait_done(w);
    status = lane_error(lane);
    job = status == NVTXW_RESULT_SUCCESS ? w->spare : NULL;
    if (job != NULL) {
        w->spare = job->next;
        w->spare_count--;
    }
    pthread_mutex_unlock(&w->mutex);
    if (status != NVTXW_RESULT_SUCCESS)
        return status;
    if (job == NULL && (job = nvtxw_calloc(1, sizeof *job)) == NULL)
        return error_oom("a buffer for a compression thread");
    /* The buffer is filled with a copy, not handed over: the writer keeps
     * filling its own, whose cache lines stay on its core. A buffer the
     * worker had read would come back with its lines on the other core, and
     * the writer's stores (and compare-and-swaps) waited for them
     * (measured on the report sink: 62 -> 94 ns per range with buffers
     * swapped, 2 vCPUs). A copy of 256 KiB costs about 1 ns per record. */
    if (fill(fill_ctx, &job->data) != 0) {
        give_back(w, job);
        return error_oom("a buffer for a compression thread");
    }
    job->lane = lane;
    if (meta_size > 0)
        memcpy(job->meta, meta, meta_size);
    job->next = NULL;
    pthread_mutex_lock(&w->mutex);
    lane->in_flight++;
    w->in_flight++;
    if (w->tail != NULL)
        w->tail->next = job;
    else
        w->head = job;
    w->tail = job;
    wake = w->idle;
    pthread_mutex_unlock(&w->mutex);
    if (wake) /* it waits on `work` (registered before it let the lock go) */
        pthread_cond_signal(&w->work);
    return NVTXW_RESULT_SUCCESS;
}

int offload_hands_over(offload_lane* lane, int last) {
    offload_worker* w = lane->worker;
    int busy;
    if (w == NULL || !last)
        return w != NULL;
    pthread_mutex_lock(&w->mutex);
    busy = lane->in_flight > 0;
    pthread_mutex_unlock(&w->mutex);
    return busy;
}

nvtxwResultCode_t offload_drain(offload_lane* lane) {
    offload_worker* w = lane->worker;
    nvtxwResultCode_t status;
    if (w == NULL)
        return NVTXW_RESULT_SUCCESS;
    pthread_mutex_lock(&w->mutex);
    while (lane->in_flight > 0)
        wait_done(w);
    status = lane_error(lane);
    pthread_mutex_unlock(&w->mutex);
    return status;
}
