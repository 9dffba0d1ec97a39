/*
 * bench/write_bench.h - what the three files of bench/write_bench share: the
 * workload (a trace of timed operations generated once into memory), the
 * error exit and the clock. write_bench.c drives the measurements and prints
 * the figures, write_bench_nvtxw.c writes and reads with libnvtxw,
 * write_bench_otf2.c with OTF2 (the baseline).
 */
#ifndef WRITE_BENCH_H
#define WRITE_BENCH_H

#include <stddef.h>
#include <stdint.h>

#define MAX_DEPTH 4
#define MAX_THREADS 2
#define MERGE_STREAMS 8

/* Operation kinds. A range trace holds ENTER and LEAVE only; the profiler
 * trace also holds MARK (an instant named `name`) and SAMPLE (the int64
 * counter takes `value`). */
enum { OP_ENTER, OP_LEAVE, OP_MARK, OP_SAMPLE };

typedef struct op {
    int64_t ts;    /* nanoseconds, non-decreasing along the trace */
    int64_t value; /* OP_SAMPLE only */
    int32_t name;  /* index in NAMES: OP_ENTER, OP_MARK */
    int32_t kind;
} op;

typedef struct trace {
    op* ops;
    size_t count;    /* operations: every one is one write call */
    uint64_t ranges; /* ENTER/LEAVE pairs */
    uint64_t marks, samples;
} trace;

extern const char* const NAMES[];
extern const uint32_t NAME_COUNT;
extern uint32_t name_length[]; /* strlen of NAMES[i], set before any run */

/* Prints "write_bench: error: ..." on stderr, removes the temporary
 * directory and exits 1: a measurement could not be made. */
_Noreturn void fail(const char* format, ...) __attribute__((format(printf, 1, 2)));
void* xmalloc(size_t size);
double now(void);
void remove_tree(const char* path);

/* ---- write_bench_nvtxw.c ------------------------------------------------- */

/* How the nvtxw side writes a trace:
 *   NV_REG      one nvtxwRangePushPopWrite per range (registered-string
 *               message), written when the range ends;
 *   NV_UTF8     the same with nvtxwRangePushPopWriteUtf8 (UTF-8 message);
 *   NV_SPLIT    every operation as it happens: nvtxwRangePushWrite
 *               (registered string), nvtxwRangePopWrite, nvtxwMarkWrite
 *               (registered string), nvtxwCounterInt64Write. */
typedef enum nv_mode { NV_REG, NV_UTF8, NV_SPLIT } nv_mode;

void nv_setup(void);
void nv_finalize(void);
/* One session with one stream per trace; threaded: one thread per stream
 * (at most MAX_THREADS), else the streams are written in turn by the
 * caller. Returns the seconds from SessionBegin to SessionEnd. */
double nv_write(const char* config, nv_mode mode, const trace* traces, int count, int threaded);

/* What a read saw: records of kind EVENT and COUNTER_SAMPLE, the sum of the
 * signed and of the unsigned integer fields the payload visitor decoded
 * (timestamps are signed; colors, categories, string handles unsigned), and
 * whether the record timestamps were in non-decreasing order (all records
 * as read, so only meaningful for a merged read). */
typedef struct nv_read_result {
    uint64_t events, samples;
    uint64_t signed_sum, unsigned_sum; /* modulo 2^64 */
    int in_time_order;
} nv_read_result;

/* Reads every record of the report (merged: the reader's time order) and
 * every event's payload: with `visit`, through the generic payload visitor
 * (nvtxw_reader_visit_event: what a schema-agnostic consumer does); without,
 * as the helper structs the payload bytes are (what a consumer that knows
 * its schemas does: the timestamps are read from the decoded bytes).
 * Returns the seconds from nvtxw_reader_open to nvtxw_reader_close. */
double nv_read(const char* path, int merged, int visit, nv_read_result* out);

/* ---- write_bench_otf2.c -------------------------------------------------- */

/* A complete archive "trace" in directory `path` (created fresh), one
 * location per trace (Enter/Leave, marks as ParameterString, samples as a
 * one-member int64 Metric); returns the seconds from OTF2_Archive_Open to
 * OTF2_Archive_Close. */
double otf2_write(const char* path, const trace* traces, int count);

/* in_time_order: of all Enter/Leave callbacks in the order they came. */
typedef struct otf2_read_result {
    uint64_t events;     /* Enter + Leave callbacks */
    uint64_t region_sum; /* sum of their region refs */
    uint64_t time_sum;   /* sum of their timestamps, modulo 2^64 */
    int in_time_order;
} otf2_read_result;

/* Reads archive `path` (its traces.otf2): global definitions, then per
 * location its local definitions and events (merged: OTF2's global event
 * reader, in time order across locations) with Enter/Leave callbacks;
 * returns the seconds from OTF2_Reader_Open to OTF2_Reader_Close. */
double otf2_read(const char* path, int merged, otf2_read_result* out);

#endif /* WRITE_BENCH_H */
