/*
 * tools/common/tool_progress.h - the progress line of a long run on a
 * terminal (tool_progress.c): what was done, its rate, the bytes written so
 * far and, when the total is known, the percentage and the time left:
 *
 *   nvtxw-replay: records [#######.......] 45.1%  12.3 M  8.10 M/s  231 MB  ETA 0:12
 *
 * A thread redraws it 5 times a second on stderr and clears it at the end.
 * Tools start it only when stderr is a terminal and -q was not given.
 */
#ifndef NVTXW_TOOL_PROGRESS_H
#define NVTXW_TOOL_PROGRESS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

typedef struct tool_progress {
    const char* tool;
    const char* unit;                 /* "records", "events", ... */
    const atomic_uint_fast64_t* done; /* read by the thread */
    uint64_t total;                   /* 0: unknown (no percentage, no ETA) */
    const char* output;               /* files named OUTPUT* count as written; NULL: none */
    double start;                     /* seconds, CLOCK_MONOTONIC */
    atomic_int stop;
    pthread_t thread;
    int running;
} tool_progress;

/* Starts drawing when `enabled`; `done` is counted by the caller and must
 * outlive tool_progress_end. Drawing is best effort: a thread that cannot
 * start means no progress line, never a failed run. */
void tool_progress_begin(tool_progress* p, int enabled, const char* tool, const char* unit,
                         const atomic_uint_fast64_t* done, uint64_t total, const char* output);
/* Stops drawing and clears the line. Safe when it never started. */
void tool_progress_end(tool_progress* p);

/* The bytes of the files whose path starts with `prefix` (the output and
 * the temporaries next to it). */
uint64_t tool_progress_written(const char* prefix);

#endif /* NVTXW_TOOL_PROGRESS_H */
