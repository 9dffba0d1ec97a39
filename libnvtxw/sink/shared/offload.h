/*
 * sink/shared/offload.h - a stream's compressed writes handed to worker
 * threads of its sink (CompressionThreads=N, docs/config.md,
 * docs/threading.md), for sinks whose streams compress what they write,
 * and for the JSON sink's writer thread (one thread and one lane for all
 * its streams: the jobs run in the order they were submitted, so its file
 * holds them in that order).
 *
 * A sink starts a pool of N threads; each of its streams has a lane, served
 * by the pool's thread (stream index modulo N). A stream whose buffer is
 * full submits a copy of it as a job and goes on writing into its own
 * buffer; the thread runs the lane's function on the job (compress and
 * write). So that:
 *   - order per stream holds: one thread per lane, jobs in FIFO order;
 *   - memory stays bounded: at most OFFLOAD_DEPTH jobs of a lane, and
 *     OFFLOAD_WORKER_DEPTH of all the lanes of a worker, are in flight; a
 *     producer that gets that far ahead waits for one; a job's
 *     buffer goes back to the worker's few spares, so an open stream
 *     holds no buffer of its own here;
 *   - what a job needs in the file first (registrations, descriptors) is
 *     written by the producer itself before it submits;
 *   - a job's error reaches the producer at its next submission or at the
 *     drain (the message is copied from the worker's thread).
 * The lock is per worker and taken about twice per job, never per event.
 * A lane may take submissions from several threads at once (the JSON
 * sink's one lane): its state is under the worker's lock, and the jobs in
 * flight may then exceed OFFLOAD_DEPTH by one per thread submitting.
 */
#ifndef NVTXW_SINK_SHARED_OFFLOAD_H
#define NVTXW_SINK_SHARED_OFFLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "common/strbuf.h"
#include "core/sink.h"
#include "nvtxw/abi.h"

/* Jobs of one lane queued or running at most, and of all the lanes of a
 * worker: with many streams written in turns (each flushed as it is left:
 * StreamFlush) the lanes' bound alone would let every stream queue 2 jobs
 * behind a slower compression thread, 2 x 256 KiB a stream. */
#define OFFLOAD_DEPTH 2
#define OFFLOAD_WORKER_DEPTH 16
/* Empty job buffers a worker keeps for the next submissions of any of its
 * lanes (more are freed). */
#define OFFLOAD_SPARE_MAX 4
/* Bytes of a job's metadata (a copy of what the submitter passes). */
#define OFFLOAD_META_MAX 64

typedef struct offload_worker offload_worker;
typedef struct offload_job offload_job;

/* Runs one job on a worker's thread: the lane's jobs one at a time, in
 * submission order. `meta` is the submitter's metadata, aligned for any
 * type; `scratch` is the worker's own buffer (shared by every lane of the
 * worker, so one per thread, not per stream). An error status is kept,
 * with nvtxw_last_error(), for the lane. */
typedef nvtxwResultCode_t (*offload_run_fn)(void* owner, const void* meta, const char* data,
                                            size_t size, strbuf* scratch);

/* Fills a job's (empty) buffer on the submitter's thread: 0, or -1 when
 * out of memory. */
typedef int (*offload_fill_fn)(void* ctx, strbuf* out);

typedef struct offload_pool {
    offload_worker* workers;
    int count;
} offload_pool;

typedef struct offload_lane {
    offload_worker* worker; /* NULL: the lane's owner writes on its own thread */
    offload_run_fn run;
    void* owner;
    /* Under the worker's mutex: jobs in flight and the first error of a
     * job. The buffers belong to the worker (its spares), not the lane. */
    unsigned in_flight;
    nvtxwResultCode_t status;
    char message[1024]; /* NVTXW_ERROR_MAX */
} offload_lane;

/* The number of worker threads the config asks for: CompressionThreads=,
 * else 1 when a second CPU is online, else 0. */
int offload_thread_count(const core_config* config);

/* Starts up to `count` threads (fewer if the system refuses one; then
 * lanes share the others, or none). */
void offload_pool_start(offload_pool* pool, int count);
/* Joins the threads: every lane must be drained first. */
void offload_pool_stop(offload_pool* pool);

/* A lane of the pool's thread `index` modulo its count; with no thread it
 * stays inactive and its owner writes on its own thread. */
void offload_lane_init(offload_lane* lane, offload_pool* pool, uint64_t index, offload_run_fn run,
                       void* owner);
static inline int offload_lane_active(const offload_lane* lane) { return lane->worker != NULL; }

/* Queues a job: `meta` (meta_size <= OFFLOAD_META_MAX bytes, copied) and a
 * buffer filled by `fill`. Waits while OFFLOAD_DEPTH jobs are in flight;
 * returns the first error of an earlier job instead of queueing. */
nvtxwResultCode_t offload_submit(offload_lane* lane, const void* meta, size_t meta_size,
                                 offload_fill_fn fill, void* fill_ctx);
/* Whether the owner hands a full buffer over (offload_submit) rather than
 * writing it on its own thread: whenever the lane has a thread, except for
 * the `last` buffer of a closing stream when no job of the lane is queued
 * or running. Handing that one over would cost the close a wake-up of the
 * thread and a wait for it (tens of microseconds on a VM; 100,000
 * one-event streams closed in 5.6 s instead of 2.5 s). */
int offload_hands_over(offload_lane* lane, int last);
/* Waits until every job of the lane has run: their first error, if any. */
nvtxwResultCode_t offload_drain(offload_lane* lane);

#endif /* NVTXW_SINK_SHARED_OFFLOAD_H */
