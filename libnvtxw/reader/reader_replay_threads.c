/*
 * reader/reader_replay_threads.c - phase 2 of nvtxw_reader_replay_many in
 * stream order on several threads (nvtxw_replay_options_t.threads).
 *
 * NVTXW lets distinct streams be written concurrently, and in stream order
 * every stream's records are replayed whole, one stream after another; so
 * the streams are the jobs: each worker thread takes the next stream (the
 * ones of most chunks first, so one long stream does not start last),
 * replays it from its own reader of the same file, and takes another. A
 * reader is not shared between threads (its cursors, arenas and plans
 * change as it reads), so each worker opens every input again; after phase
 * 1 the replay's maps (domains, IDs, strings, stream handles) are only read,
 * and each stream's time-window stack is touched by the one worker that
 * replays it.
 *
 * The calling thread does no replaying: it polls opts.should_stop (so the
 * caller's callback runs on the calling thread, as with one thread), keeps
 * the caller's readers' record counts up to date for it (the records the
 * workers have read), and at the end gives the caller's readers the damage
 * the workers' readers found, so nvtxw_reader_damage lists what one thread
 * would have. A report that grew between the opens (a report still being
 * written) is replayed on the calling thread alone: the workers would see
 * more than the caller's reader.
 */
#define _GNU_SOURCE /* clock_gettime, pthread_cond_timedwait */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "reader/reader_replay.h"

/* How often the calling thread wakes to poll opts.should_stop. */
#define POLL_NANOSECONDS 20000000L
/* Records a worker replays between two looks at the stop flag. */
#define WORKER_PUBLISH 1024

typedef struct stream_job {
    size_t input, stream;
    size_t chunks; /* the order: most first */
} stream_job;

typedef struct replay_pool {
    replay_state* st; /* the caller's: read-only while the workers run */
    stream_job* jobs;
    size_t job_count;
    atomic_size_t next_job;
    atomic_int stop;
    atomic_uint_fast64_t* records; /* per input: read by the workers so far */
    pthread_mutex_t lock;          /* the fields below */
    pthread_cond_t finished_cond;
    size_t finished;
    nvtxwResultCode_t failure; /* the first worker's failure */
    char message[NVTXW_ERROR_MAX];
} replay_pool;

typedef struct replay_worker {
    replay_pool* pool;
    replay_state state;     /* a copy of the caller's with its own scratch */
    replay_input* inputs;   /* copies of the caller's, on this worker's readers */
    nvtxw_reader_t** readers;
    pthread_t thread;
    int started;
} replay_worker;

static int pool_stopped(void* context) {
    return atomic_load_explicit(&((replay_pool*)context)->stop, memory_order_relaxed);
}

static int jobs_by_chunks(const void* a, const void* b) {
    const stream_job *x = a, *y = b;
    if (x->chunks != y->chunks)
        return x->chunks < y->chunks ? 1 : -1;
    if (x->input != y->input)
        return x->input < y->input ? -1 : 1;
    return x->stream < y->stream ? -1 : x->stream > y->stream;
}

static nvtxwResultCode_t make_jobs(replay_pool* pool) {
    const replay_state* st = pool->st;
    size_t i, s, n = 0;
    for (i = 0; i < st->input_count; i++)
        n += st->inputs[i].stream_count;
    pool->jobs = nvtxw_calloc(n + 1, sizeof *pool->jobs);
    if (pool->jobs == NULL)
        return error_oom("the replay's stream jobs");
    for (i = 0; i < st->input_count; i++) {
        const nvtxw_reader_t* reader = st->inputs[i].reader;
        for (s = 0; s < st->inputs[i].stream_count; s++) {
            stream_job* job = &pool->jobs[pool->job_count++];
            job->input = i;
            job->stream = s;
            job->chunks = reader->streams[s].count;
        }
    }
    qsort(pool->jobs, pool->job_count, sizeof *pool->jobs, jobs_by_chunks);
    return NVTXW_RESULT_SUCCESS;
}

/* Opens the worker's readers; *same = 0 when a file no longer reads as the
 * caller's reader did (more streams or records: still being written). */
static nvtxwResultCode_t worker_open(replay_worker* w, replay_pool* pool, int* same) {
    const replay_state* st = pool->st;
    size_t i;
    w->pool = pool;
    w->readers = nvtxw_calloc(st->input_count, sizeof *w->readers);
    w->inputs = nvtxw_calloc(st->input_count, sizeof *w->inputs);
    if (w->readers == NULL || w->inputs == NULL)
        return error_oom("a replay thread");
    for (i = 0; i < st->input_count; i++) {
        const nvtxw_reader_t* mine = st->inputs[i].reader;
        nvtxw_reader_options_t opts = {sizeof opts, mine->order, mine->flags};
        nvtxwResultCode_t status = nvtxw_reader_open(mine->path, &opts, &w->readers[i]);
        if (status != NVTXW_RESULT_SUCCESS)
            return status;
        if (nvtxw_reader_stream_count(w->readers[i]) != mine->stream_count ||
            nvtxw_reader_record_total(w->readers[i]) != nvtxw_reader_record_total(mine))
            *same = 0;
        w->inputs[i] = st->inputs[i]; /* shares the maps and stream handles */
        w->inputs[i].reader = w->readers[i];
        w->inputs[i].head = NULL;
    }
    w->state = *st;
    memset(&w->state.scratch, 0, sizeof w->state.scratch);
    w->state.inputs = w->inputs;
    w->state.replayed = 0;
    w->state.polled = 1; /* replay_one polls at multiples of 1024: never at the start */
    w->state.opts.should_stop = pool_stopped;
    w->state.opts.stop_context = pool;
    return NVTXW_RESULT_SUCCESS;
}

static void worker_close(replay_worker* w, size_t input_count) {
    size_t i;
    for (i = 0; w->readers != NULL && i < input_count; i++)
        nvtxw_reader_close(w->readers[i]);
    nvtxw_free(w->readers);
    nvtxw_free(w->inputs);
    reader_arena_reset(&w->state.scratch);
}

/* Replays every record of one stream. */
static nvtxwResultCode_t worker_stream(replay_worker* w, const stream_job* job) {
    replay_input* in = &w->inputs[job->input];
    replay_pool* pool = w->pool;
    const nvtxw_record_t* rec = NULL;
    uint64_t unpublished = 0;
    nvtxwResultCode_t status = nvtxw_reader_seek_stream(in->reader, job->stream);
    while (status == NVTXW_RESULT_SUCCESS &&
           (status = nvtxw_reader_next(in->reader, &rec)) == NVTXW_RESULT_SUCCESS && rec != NULL) {
        status = replay_one(&w->state, in, rec);
        if (++unpublished == WORKER_PUBLISH) {
            atomic_fetch_add_explicit(&pool->records[job->input], unpublished,
                                      memory_order_relaxed);
            unpublished = 0;
        }
    }
    atomic_fetch_add_explicit(&pool->records[job->input], unpublished, memory_order_relaxed);
    return status;
}

static void* worker_main(void* arg) {
    replay_worker* w = arg;
    replay_pool* pool = w->pool;
    nvtxwResultCode_t status = NVTXW_RESULT_SUCCESS;
    while (status == NVTXW_RESULT_SUCCESS && !pool_stopped(pool)) {
        size_t job = atomic_fetch_add(&pool->next_job, 1);
        if (job >= pool->job_count)
            break;
        status = worker_stream(w, &pool->jobs[job]);
    }
    pthread_mutex_lock(&pool->lock);
    if (status != NVTXW_RESULT_SUCCESS && pool->failure == NVTXW_RESULT_SUCCESS &&
        !atomic_load(&pool->stop)) {
        pool->failure = status;
        snprintf(pool->message, sizeof pool->message, "%s", nvtxw_last_error());
    }
    if (status != NVTXW_RESULT_SUCCESS)
        atomic_store(&pool->stop, 1);
    pool->finished++;
    pthread_cond_signal(&pool->finished_cond);
    pthread_mutex_unlock(&pool->lock);
    return NULL;
}

/* The caller's readers count the records the workers read (for the
 * caller's progress line and nvtxw_reader_record_count). */
static void publish_counts(replay_pool* pool, const uint64_t* before) {
    size_t i;
    for (i = 0; i < pool->st->input_count; i++)
        pool->st->inputs[i].reader->returned =
            before[i] + atomic_load_explicit(&pool->records[i], memory_order_relaxed);
}

/* Waits for `started` workers, polling opts.should_stop at once and then
 * every POLL_NANOSECONDS. */
static nvtxwResultCode_t wait_workers(replay_pool* pool, size_t started, const uint64_t* before) {
    replay_state* st = pool->st;
    nvtxwResultCode_t status = NVTXW_RESULT_SUCCESS;
    int running = 1;
    while (running) {
        struct timespec until;
        publish_counts(pool, before);
        if (st->opts.should_stop != NULL && status == NVTXW_RESULT_SUCCESS &&
            st->opts.should_stop(st->opts.stop_context)) {
            status = error_set(NVTXW_RESULT_FAILED, "replay stopped by the caller");
            atomic_store(&pool->stop, 1);
        }
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += POLL_NANOSECONDS;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_mutex_lock(&pool->lock);
        while (pool->finished < started &&
               pthread_cond_timedwait(&pool->finished_cond, &pool->lock, &until) != ETIMEDOUT)
            ;
        running = pool->finished < started;
        pthread_mutex_unlock(&pool->lock);
    }
    publish_counts(pool, before);
    if (status == NVTXW_RESULT_SUCCESS && pool->failure != NVTXW_RESULT_SUCCESS)
        status = error_set(pool->failure, "%s", pool->message);
    return status;
}

/* Damage a worker's reader found that the caller's reader does not list. */
static nvtxwResultCode_t absorb_damage(nvtxw_reader_t* to, const nvtxw_reader_t* from) {
    size_t i, j;
    for (i = 0; i < from->damage_count; i++) {
        const reader_damage_item* d = &from->damage[i];
        int known = 0;
        for (j = 0; j < to->damage_count && !known; j++)
            known = to->damage[j].offset == d->offset && to->damage[j].length == d->length &&
                    strcmp(to->damage[j].reason, d->reason) == 0;
        if (!known && reader_add_damage(to, d->offset, d->length, "%s", d->reason) != 0)
            return error_oom("the damage list");
    }
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t run_pool(replay_pool* pool, replay_worker* workers, size_t count,
                                  int* ran) {
    replay_state* st = pool->st;
    nvtxwResultCode_t status = NVTXW_RESULT_SUCCESS;
    uint64_t* before = nvtxw_calloc(st->input_count, sizeof *before);
    size_t i, started = 0;
    int same = 1;
    if (before == NULL)
        return error_oom("the replay threads");
    for (i = 0; i < count && status == NVTXW_RESULT_SUCCESS; i++)
        status = worker_open(&workers[i], pool, &same);
    if (status != NVTXW_RESULT_SUCCESS || !same) {
        nvtxw_free(before);
        return status; /* !same: *ran stays 0, one thread replays */
    }
    *ran = 1;
    for (i = 0; i < st->input_count; i++) /* the head phase 1 read is read again */
        before[i] = st->inputs[i].reader->returned - (st->inputs[i].head != NULL);
    for (i = 0; i < count; i++) {
        int err = pthread_create(&workers[i].thread, NULL, worker_main, &workers[i]);
        if (err != 0 && started == 0) {
            nvtxw_free(before);
            return error_set(NVTXW_RESULT_FAILED, "cannot start a replay thread: %s",
                             strerror(err));
        }
        if (err != 0)
            break; /* the ones started do the work */
        workers[i].started = 1;
        started++;
    }
    status = wait_workers(pool, started, before);
    for (i = 0; i < count; i++) {
        if (workers[i].started)
            pthread_join(workers[i].thread, NULL);
        st->replayed += workers[i].state.replayed;
        for (size_t k = 0; k < st->input_count && status == NVTXW_RESULT_SUCCESS; k++)
            status = absorb_damage(st->inputs[k].reader, workers[i].readers[k]);
    }
    nvtxw_free(before);
    return status;
}

nvtxwResultCode_t replay_streams_threaded(replay_state* st, size_t threads, int* ran) {
    replay_pool pool;
    replay_worker* workers;
    nvtxwResultCode_t status;
    size_t i, count;
    *ran = 0;
    memset(&pool, 0, sizeof pool);
    pool.st = st;
    if ((status = make_jobs(&pool)) != NVTXW_RESULT_SUCCESS)
        return status;
    count = threads < pool.job_count ? threads : pool.job_count;
    if (count < 2) {
        nvtxw_free(pool.jobs);
        return NVTXW_RESULT_SUCCESS; /* one stream: nothing to share */
    }
    workers = nvtxw_calloc(count, sizeof *workers);
    pool.records = nvtxw_calloc(st->input_count, sizeof *pool.records);
    pthread_mutex_init(&pool.lock, NULL);
    pthread_cond_init(&pool.finished_cond, NULL);
    status = workers != NULL && pool.records != NULL ? run_pool(&pool, workers, count, ran)
                                                     : error_oom("the replay threads");
    for (i = 0; workers != NULL && i < count; i++)
        worker_close(&workers[i], st->input_count);
    pthread_cond_destroy(&pool.finished_cond);
    pthread_mutex_destroy(&pool.lock);
    nvtxw_free(workers);
    nvtxw_free((void*)pool.records);
    nvtxw_free(pool.jobs);
    return status;
}
