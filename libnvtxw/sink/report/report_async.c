/*
 * sink/report/report_async.c - compression off the producers' threads
 * (CompressionThreads=N, docs/config.md, docs/threading.md).
 *
 * A stream whose chunk is full hands a copy of it to its compressor
 * (stream index modulo N) as a job and goes on writing into its own buffer;
 * the compressor thread compresses and writes the job with the stream's own
 * encoder. So that:
 *   - order per stream holds: one compressor per stream, jobs in FIFO order,
 *     and container_write_chunk keeps one encoder's chunks in call order;
 *   - memory stays bounded: at most REPORT_ASYNC_DEPTH chunks of a stream
 *     are in flight; a producer that gets that far ahead waits for one;
 *   - registrations precede the events that use them: the producer writes
 *     pending registrations itself before it hands the chunk over;
 *   - crash safety is unchanged: a chunk is in the file once its write
 *     returns, as before; a producer killed with chunks still queued loses
 *     them as it would lose a chunk it had not filled yet;
 *   - a write error reaches the producer at its next hand-over or at
 *     StreamClose (the error message is copied from the compressor's thread).
 * The queue lock is per compressor and taken once per chunk (every
 * REPORT_CHUNK_TARGET bytes of records), never per event.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "nvtxw/error.h"
#include "sink/report/report_internal.h"

typedef struct report_job {
    struct report_job* next;
    report_stream* st;
    container_chunk_meta meta;
    strbuf data;
} report_job;

struct report_compressor {
    pthread_t thread;
    pthread_mutex_t mutex;
    pthread_cond_t work; /* a job was queued, or stop was set */
    pthread_cond_t done; /* a job was written */
    report_job *head, *tail;
    int stop;
    int idle;              /* the thread waits on `work` */
    unsigned done_waiters; /* producers waiting on `done` */
};

/* Gives a written job's buffer back to its stream; with c->mutex held.
 * Returns whether a producer waits for it. */
static int job_done(report_compressor* c, report_job* job, nvtxwResultCode_t status) {
    report_stream* st = job->st;
    if (status != NVTXW_RESULT_SUCCESS && st->async_status == NVTXW_RESULT_SUCCESS) {
        st->async_status = status;
        snprintf(st->async_message, sizeof st->async_message, "%s", nvtxw_last_error());
    }
    strbuf_clear(&job->data);
    job->next = st->spare;
    st->spare = job;
    st->in_flight--;
    return c->done_waiters > 0;
}

/* One lock section per chunk between two jobs (giving one back, taking the
 * next); the thread sleeps only when the queue is empty, and is woken only
 * then (report_async_submit). On a VM every futex wake of the other CPU
 * costs tens of microseconds, so the hand-over keeps them to about one per
 * chunk: the signals are sent after the lock is released, so the woken
 * thread does not block on the lock at once and need a second wake. */
static void* compressor_main(void* arg) {
    report_compressor* c = arg;
    pthread_mutex_lock(&c->mutex);
    for (;;) {
        report_job* job;
        nvtxwResultCode_t status;
        int wake;
        while (c->head == NULL && !c->stop) {
            c->idle = 1;
            pthread_cond_wait(&c->work, &c->mutex);
            c->idle = 0;
        }
        if (c->head == NULL)
            break; /* stop, and every job is written */
        job = c->head;
        c->head = job->next;
        if (c->head == NULL)
            c->tail = NULL;
        pthread_mutex_unlock(&c->mutex);
        status =
            container_write_chunk(job->st->encoder, &job->meta, job->data.data, job->data.length);
        pthread_mutex_lock(&c->mutex);
        wake = job_done(c, job, status);
        if (wake) {
            pthread_mutex_unlock(&c->mutex);
            pthread_cond_broadcast(&c->done);
            pthread_mutex_lock(&c->mutex);
        }
    }
    pthread_mutex_unlock(&c->mutex);
    return NULL;
}

/* A compression thread needs little stack (zstd works in its context's
 * heap): 1 MiB instead of the default 8 MiB of address space, which counts
 * against a producer's ulimit -v. */
#define COMPRESSOR_STACK (1u << 20)
static int start_thread(report_compressor* c) {
    pthread_attr_t attr;
    int status = pthread_attr_init(&attr);
    if (status != 0)
        return status;
    status = pthread_attr_setstacksize(&attr, COMPRESSOR_STACK);
    if (status == 0)
        status = pthread_create(&c->thread, &attr, compressor_main, c);
    pthread_attr_destroy(&attr);
    return status;
}

void report_compressors_start(report_sink* rs, int count) {
    int i;
    rs->compressors = count > 0 ? nvtxw_calloc((size_t)count, sizeof *rs->compressors) : NULL;
    for (i = 0; rs->compressors != NULL && i < count; i++) {
        report_compressor* c = &rs->compressors[i];
        pthread_mutex_init(&c->mutex, NULL);
        pthread_cond_init(&c->work, NULL);
        pthread_cond_init(&c->done, NULL);
        if (start_thread(c) != 0) {
            pthread_cond_destroy(&c->done);
            pthread_cond_destroy(&c->work);
            pthread_mutex_destroy(&c->mutex);
            break; /* fewer threads: compression is then on fewer (or the writers') threads */
        }
        rs->compressor_count++;
    }
}

void report_compressors_stop(report_sink* rs) {
    int i;
    for (i = 0; i < rs->compressor_count; i++) {
        report_compressor* c = &rs->compressors[i];
        pthread_mutex_lock(&c->mutex);
        c->stop = 1;
        pthread_cond_signal(&c->work);
        pthread_mutex_unlock(&c->mutex);
        pthread_join(c->thread, NULL);
        pthread_cond_destroy(&c->done);
        pthread_cond_destroy(&c->work);
        pthread_mutex_destroy(&c->mutex);
    }
    nvtxw_free(rs->compressors);
    rs->compressors = NULL;
    rs->compressor_count = 0;
}

report_compressor* report_compressor_for(report_sink* rs, uint64_t stream_index) {
    return rs->compressor_count > 0
               ? &rs->compressors[stream_index % (uint64_t)rs->compressor_count]
               : NULL;
}

/* Waits (c->mutex held) until the thread has written a job. */
static void wait_done(report_compressor* c) {
    c->done_waiters++;
    pthread_cond_wait(&c->done, &c->mutex);
    c->done_waiters--;
}

/* The first write error of the stream's jobs, raised on this thread. */
static nvtxwResultCode_t async_error(const report_stream* st) {
    return st->async_status == NVTXW_RESULT_SUCCESS
               ? NVTXW_RESULT_SUCCESS
               : error_set(st->async_status, "%s", st->async_message);
}

nvtxwResultCode_t report_async_submit(report_stream* st, const container_chunk_meta* meta) {
    report_compressor* c = st->comp;
    report_job* job;
    nvtxwResultCode_t status;
    int wake;
    pthread_mutex_lock(&c->mutex);
    while (st->in_flight >= REPORT_ASYNC_DEPTH)
        wait_done(c);
    status = async_error(st);
    job = status == NVTXW_RESULT_SUCCESS ? st->spare : NULL;
    if (job != NULL)
        st->spare = job->next;
    pthread_mutex_unlock(&c->mutex);
    if (status != NVTXW_RESULT_SUCCESS)
        return status;
    if (job == NULL && (job = nvtxw_calloc(1, sizeof *job)) == NULL)
        return error_oom("a report chunk buffer");
    /* The chunk is copied, not handed over: the writer keeps filling its
     * own lanes, whose cache lines stay on its core. A buffer the
     * compression thread had read would come back with its lines on the
     * other core, and every write call's compare-and-swap waited for the
     * stores into them (measured: 62 -> 94 ns per range with buffers
     * swapped, 2 vCPUs). One copy of 256 KiB per chunk costs about 1 ns per
     * record. */
    if (report_chunk_assemble(st, &job->data) != 0) {
        pthread_mutex_lock(&c->mutex);
        job->next = st->spare;
        st->spare = job;
        pthread_mutex_unlock(&c->mutex);
        return error_oom("a report chunk buffer");
    }
    job->st = st;
    job->meta = *meta;
    job->next = NULL;
    pthread_mutex_lock(&c->mutex);
    st->in_flight++;
    if (c->tail != NULL)
        c->tail->next = job;
    else
        c->head = job;
    c->tail = job;
    wake = c->idle;
    pthread_mutex_unlock(&c->mutex);
    if (wake) /* it waits on `work` (registered before it let the lock go) */
        pthread_cond_signal(&c->work);
    return NVTXW_RESULT_SUCCESS;
}

nvtxwResultCode_t report_async_drain(report_stream* st) {
    report_compressor* c = st->comp;
    nvtxwResultCode_t status;
    pthread_mutex_lock(&c->mutex);
    while (st->in_flight > 0)
        wait_done(c);
    status = async_error(st);
    pthread_mutex_unlock(&c->mutex);
    return status;
}

void report_async_free_spares(report_stream* st) {
    while (st->spare != NULL) {
        report_job* job = st->spare;
        st->spare = job->next;
        strbuf_free(&job->data);
        nvtxw_free(job);
    }
}
