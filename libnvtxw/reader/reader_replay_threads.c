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
#include "common/thread.h"
#include "reader/reader_replay.h"

/* How often the calling thread wakes to poll opts.should_stop. */
#define POLL_NANOSECONDS 20000000L
/* Records a worker replays between two looks at the stop flag. */
#define WORKER_PUBLISH 1024

typedef struct stream_job {
    size_t input, stream;
    /* Set by the worker that replayed it: the damage its reader listed
     * meanwhile, items [damage_from, damage_to) of workers[worker]. */
    size_t worker, damage_from, damage_to;
} stream_job;

/* The order the jobs are taken in: the most chunks first. */
typedef struct job_order {
    size_t chunks, job;
} job_order;

typedef struct replay_pool {
    replay_state* st; /* the caller's: read-only while the workers run */
    stream_job* jobs; /* by (input, stream) */
    job_order* order; /* the jobs as taken: the most chunks first */
    size_t job_count;
    atomic_size_t next_job;
    atomic_int stop;
    atomic_uint_fast64_t* records; /* per input: read by the workers so far */
    struct replay_worker* workers;
    pthread_mutex_t lock; /* the fields below */
    pthread_cond_t finished_cond;
    size_t finished;
    nvtxwResultCode_t failure; /* the first worker's failure */
    char message[NVTXW_ERROR_MAX];
} replay_pool;

typedef struct replay_worker {
    replay_pool* pool;
    replay_state state;   /* a copy of the caller's with its own scratch */
    replay_input* inputs; /* copies of the caller's, on this worker's readers */
    nvtxw_reader_t** readers;
    size_t index; /* in the pool's workers */
    pthread_t thread;
    int started;
} replay_worker;

static int pool_stopped(void* context) {
    return atomic_load_explicit(&((replay_pool*)context)->stop, memory_order_relaxed);
}

static int jobs_by_chunks(const void* a, const void* b) {
    const job_order *x = a, *y = b;
    if (x->chunks != y->chunks)
        return x->chunks < y->chunks ? 1 : -1;
    return x->job < y->job ? -1 : x->job > y->job;
}

static nvtxwResultCode_t make_jobs(replay_pool* pool) {
    const replay_state* st = pool->st;
    size_t i, s, n = 0;
    for (i = 0; i < st->input_count; i++)
        n += st->inputs[i].stream_count;
    pool->jobs = nvtxw_calloc(n + 1, sizeof *pool->jobs);
    pool->order = nvtxw_calloc(n + 1, sizeof *pool->order);
    if (pool->jobs == NULL || pool->order == NULL)
        return error_oom("the replay's stream jobs");
    for (i = 0; i < st->input_count; i++) {
        const nvtxw_reader_t* reader = st->inputs[i].reader;
        for (s = 0; s < st->inputs[i].stream_count; s++) {
            stream_job* job = &pool->jobs[pool->job_count++];
            job->input = i;
            job->stream = s;
            pool->order[pool->job_count - 1].chunks = reader->streams[s].count;
            pool->order[pool->job_count - 1].job = pool->job_count - 1;
        }
    }
    qsort(pool->order, pool->job_count, sizeof *pool->order, jobs_by_chunks);
    return NVTXW_RESULT_SUCCESS;
}

/* Opens the worker's readers; *same = 0 when a file no longer reads as the
 * caller's reader did (more streams or records: still being written). */
static nvtxwResultCode_t worker_open(replay_worker* w, replay_pool* pool, int* same) {
    const replay_state* st = pool->st;
    size_t i;
    w->pool = pool;
    w->index = (size_t)(w - pool->workers);
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
static nvtxwResultCode_t worker_stream(replay_worker* w, stream_job* job) {
    replay_input* in = &w->inputs[job->input];
    replay_pool* pool = w->pool;
    const nvtxw_record_t* rec = NULL;
    uint64_t unpublished = 0;
    nvtxwResultCode_t status = nvtxw_reader_seek_stream(in->reader, job->stream);
    job->worker = w->index;
    job->damage_from = in->reader->damage_count;
    w->state.stream_record = 0; /* this stream's records, counted here (not in the shared array) */
    while (status == NVTXW_RESULT_SUCCESS &&
           (status = nvtxw_reader_next(in->reader, &rec)) == NVTXW_RESULT_SUCCESS && rec != NULL) {
        w->state.stream_record += rec->kind >= NVTXW_RECORD_EVENT;
        status = replay_one(&w->state, in, rec);
        if (++unpublished == WORKER_PUBLISH) {
            atomic_fetch_add_explicit(&pool->records[job->input], unpublished,
                                      memory_order_relaxed);
            unpublished = 0;
        }
    }
    atomic_fetch_add_explicit(&pool->records[job->input], unpublished, memory_order_relaxed);
    job->damage_to = in->reader->damage_count;
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
        status = worker_stream(w, &pool->jobs[pool->order[job].job]);
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

/* Damage items [first, end) of a worker's reader that the caller's reader
 * does not list. */
static nvtxwResultCode_t absorb_damage(nvtxw_reader_t* to, const nvtxw_reader_t* from, size_t first,
                                       size_t end) {
    size_t i, j;
    for (i = first; i < end; i++) {
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

static int worker_start(replay_worker* w) { return thread_start(&w->thread, worker_main, w); }

/* The caller's readers end where one thread leaves them: every record
 * returned (nvtxw_reader_next gives NULL), no chunk held. */
static void readers_finish(replay_state* st) {
    for (size_t i = 0; i < st->input_count; i++) {
        nvtxw_reader_t* reader = st->inputs[i].reader;
        for (size_t s = 0; reader->cursors != NULL && s < reader->stream_count; s++)
            reader_cursor_free(&reader->cursors[s]);
        reader->pending = NULL;
        reader->phase = READER_PHASE_DONE;
        st->inputs[i].head = NULL;
    }
}

/* The damage the workers found, in the order one thread finds it: stream
 * after stream, input after input; then what their readers found at open
 * (which the caller's readers found too). */
static nvtxwResultCode_t gather_damage(replay_pool* pool, size_t count) {
    replay_state* st = pool->st;
    nvtxwResultCode_t status = NVTXW_RESULT_SUCCESS;
    size_t j, w, in;
    for (j = 0; j < pool->job_count && status == NVTXW_RESULT_SUCCESS; j++) {
        const stream_job* job = &pool->jobs[j];
        if (job->damage_to > job->damage_from)
            status = absorb_damage(st->inputs[job->input].reader,
                                   pool->workers[job->worker].readers[job->input], job->damage_from,
                                   job->damage_to);
    }
    for (w = 0; w < count && status == NVTXW_RESULT_SUCCESS; w++)
        for (in = 0; in < st->input_count && status == NVTXW_RESULT_SUCCESS; in++)
            status = absorb_damage(st->inputs[in].reader, pool->workers[w].readers[in], 0,
                                   pool->workers[w].readers[in]->damage_count);
    return status;
}

/* Nothing is replayed until the threads start: a worker that cannot open
 * its readers (a file removed or renamed since, no file descriptors left)
 * or a first thread that cannot start leaves the stream records to the
 * calling thread (*ran = 0), as an input that grew does. */
static nvtxwResultCode_t run_pool(replay_pool* pool, size_t count, int* ran) {
    replay_state* st = pool->st;
    replay_worker* workers = pool->workers;
    nvtxwResultCode_t status = NVTXW_RESULT_SUCCESS;
    uint64_t* before = nvtxw_calloc(st->input_count, sizeof *before);
    size_t i, started = 0;
    int same = 1;
    if (before == NULL)
        return error_oom("the replay threads");
    for (i = 0; i < count && status == NVTXW_RESULT_SUCCESS && same; i++)
        status = worker_open(&workers[i], pool, &same);
    for (i = 0; i < st->input_count; i++) /* the head phase 1 read is read again */
        before[i] = st->inputs[i].reader->returned - (st->inputs[i].head != NULL);
    for (i = 0; status == NVTXW_RESULT_SUCCESS && same && i < count; i++) {
        if (worker_start(&workers[i]) != 0)
            break; /* the ones started do the work */
        workers[i].started = 1;
        started++;
    }
    if (started == 0) {
        nvtxw_free(before);
        return NVTXW_RESULT_SUCCESS; /* *ran stays 0: one thread replays */
    }
    *ran = 1;
    status = wait_workers(pool, started, before);
    for (i = 0; i < count; i++) {
        if (workers[i].started)
            pthread_join(workers[i].thread, NULL);
        st->replayed += workers[i].state.replayed;
    }
    if (status == NVTXW_RESULT_SUCCESS)
        readers_finish(st);
    if (gather_damage(pool, count) != NVTXW_RESULT_SUCCESS && status == NVTXW_RESULT_SUCCESS)
        status = error_oom("the damage list");
    nvtxw_free(before);
    return status;
}

nvtxwResultCode_t replay_streams_threaded(replay_state* st, size_t threads, int* ran) {
    replay_pool pool;
    nvtxwResultCode_t status;
    size_t i, count;
    *ran = 0;
    memset(&pool, 0, sizeof pool);
    pool.st = st;
    if ((status = make_jobs(&pool)) != NVTXW_RESULT_SUCCESS) {
        nvtxw_free(pool.jobs);
        nvtxw_free(pool.order);
        return status;
    }
    count = threads < pool.job_count ? threads : pool.job_count;
    if (count < 2) {
        nvtxw_free(pool.jobs);
        nvtxw_free(pool.order);
        return NVTXW_RESULT_SUCCESS; /* one stream: nothing to share */
    }
    pool.workers = nvtxw_calloc(count, sizeof *pool.workers);
    pool.records = nvtxw_calloc(st->input_count, sizeof *pool.records);
    pthread_mutex_init(&pool.lock, NULL);
    pthread_cond_init(&pool.finished_cond, NULL);
    status = pool.workers != NULL && pool.records != NULL ? run_pool(&pool, count, ran)
                                                          : error_oom("the replay threads");
    for (i = 0; pool.workers != NULL && i < count; i++)
        worker_close(&pool.workers[i], st->input_count);
    pthread_cond_destroy(&pool.finished_cond);
    pthread_mutex_destroy(&pool.lock);
    nvtxw_free(pool.workers);
    nvtxw_free((void*)pool.records);
    nvtxw_free(pool.jobs);
    nvtxw_free(pool.order);
    return status;
}
