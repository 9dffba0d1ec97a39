/*
 * tests/gen/otf2_gen.c - nvtxw-otf2-gen: writes a synthetic OTF2 archive for
 * the tests and the benchmark of nvtxw-otf2-import.
 *
 *   nvtxw-otf2-gen -o DIR [--ranks R] [--threads T] [--events N] [--seed S]
 *                  [--inject KIND]
 *
 * Writes DIR/traces.otf2, DIR/traces.def and DIR/traces/ with OTF2's writer
 * (POSIX substrate, no compression, 1 MiB event and 4 MiB definition
 * chunks, every full event chunk flushed to disk: memory is constant in N,
 * about 5 MiB per location with OTF2's file buffer). The archive depends
 * only on the options (a seeded splitmix64, no clock): the files are
 * byte-identical except the trace identifier in traces.otf2, which OTF2
 * draws itself. It refuses an existing DIR/traces.otf2. Exit 0 on success,
 * 1 on failure, 2 on a usage error. Links OTF2 only, never libnvtxw.
 *
 * The archive, for R ranks of T threads:
 * - Clock: 2.095 GHz ticks, globalOffset 123456789012. Every location has
 *   two local ClockOffset definitions, +30*k ticks at the start and +45*k at
 *   the end (k = 1 + id % 4), which OTF2 interpolates into every timestamp:
 *   a reader that skips the local definitions reads times that are off.
 *   Causality holds in corrected time too: a receive is after its send, a
 *   task runs after its creation, a collective ends after all began.
 * - System tree "machine" > "node<k>" (2 ranks per node); location group r is
 *   process "MPI Rank r"; location r*T+t is CPU thread t of rank r ("Master
 *   thread", "OMP thread <t>"); location R*T is the METRIC location "power
 *   sensor" in rank 0's group. Every Location declares its exact number of
 *   events.
 * - Each master: ProgramBegin, Enter main, MeasurementOnOff OFF then ON, one
 *   I/O operation on its pre-created POSIX handle, one RMA epoch (window
 *   create, put, get, a blocking completion of each, destroy); then the
 *   iterations; then Leave main, ProgramEnd(0). After the first iteration,
 *   every location writes one BufferFlush.
 * - One iteration: masters Enter solve; every rank runs one OpenMP parallel
 *   region (ThreadFork, ThreadTeamBegin/End around "!$omp parallel" on each
 *   thread, ThreadJoin) with nested compute_<k> calls and one explicit task
 *   (below); then the masters exchange messages: a blocking ring on
 *   MPI_COMM_WORLD (i sends to i+1), a non-blocking ring (i to i-1, Isend and
 *   IrecvRequest, then MPI_Wait completions), a blocking ring on row_comm
 *   (the even ranks: comm rank i is world rank 2i) when it has two members,
 *   an MPI_Allreduce on MPI_COMM_WORLD and, every other iteration, on
 *   row_comm; masters Leave solve; the power sensor samples every 10 us.
 *   Every send has exactly one receive, matched in order per (comm, sender,
 *   receiver, tag); ranks in events are comm ranks.
 * - Tasks: ThreadTaskCreate on a random thread of the team (creatingThread =
 *   its location id, generation numbers from 1 per creator), run on a random
 *   thread (ThreadTaskSwitch to it, Enter "!$omp task", Leave), in a quarter
 *   of the cases suspended there (ThreadTaskSwitch to that thread's implicit
 *   task, generation 0) and resumed on the next thread of the team, then
 *   ThreadTaskComplete and a switch back to the implicit task. Every slice of
 *   a task runs inside its own Enter/Leave of "!$omp task" on the location
 *   running it, so Enter/Leave nest per location.
 * - User functions (main, solve, compute_0..9, at most 4 deep) carry the
 *   synchronous metric PAPI_TOT_INS (a Metric event at the time of every
 *   Enter and Leave), a quarter of the Enters the attributes line and file,
 *   an eighth of them a Parameter event (size, iterations or mode).
 * - Timestamps never decrease per location; gaps are 20 to ~4000 ticks.
 *
 * --events N: whole iterations are written until at least N events are, then
 * the epilogue (2 events per rank): the total exceeds N by less than one
 * iteration (about 45 events per CPU thread) plus 2*R, and holds at least
 * one iteration (with the prologue, ~60 events per thread).
 *
 * --inject KIND writes one fault on location 0, at OTF2 event position 100
 * (1-based) or the first suitable event after it, and prints "nvtxw-otf2-gen:
 * injected KIND at location 0, event P" on stdout; everything else stays
 * valid. nonmonotonic: event 100 is 1000 ticks earlier than event 99 (OTF2's
 * writer refuses that, so the timestamp is patched into traces/0.evt after
 * closing). unknown-region: one compute_<k> call (its Enter and its Leave)
 * references region 9999. unknown-metric: one PAPI_TOT_INS Metric event
 * references metric 9999. Neither id is defined.
 */
#define _POSIX_C_SOURCE 200809L
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <otf2/otf2.h>

#define TOOL "nvtxw-otf2-gen"
#define MAX_RANKS 4096
#define MAX_THREADS 256

#define TIMER_RESOLUTION UINT64_C(2095000000)
#define GLOBAL_OFFSET UINT64_C(123456789012)
#define REALTIME_NS UINT64_C(1700000000000000000) /* globalOffset as UTC time */
#define SAMPLE_PERIOD 20950                       /* ticks: the sensor samples every 10 us */
#define FLUSH_TICKS 20950                         /* a BufferFlush lasts 10 us */
#define OFF_TICKS 100000                          /* measurement off for ~48 us */
#define SYNC_TICKS 200                            /* > 45 * OFFSET_STEPS - 30 */
#define OFFSET_STEPS 4 /* clock offsets: +30*k at the start, +45*k at the end, k = 1+id%4 */

#define INJECT_POSITION 100
#define BAD_ID 9999

enum inject { INJECT_NONE, INJECT_NONMONOTONIC, INJECT_UNKNOWN_REGION, INJECT_UNKNOWN_METRIC };
static const char* const inject_names[] = {"nonmonotonic", "unknown-region", "unknown-metric"};

/* Definition ids. Strings that events reference have fixed ids; the others
 * are numbered as the global definitions are written. */
enum { S_EMPTY, S_PROGRAM, S_ARG1, S_ARG2, S_EXPLICIT, S_IMPLICIT, S_SOURCE, S_FIXED };
enum {
    R_MAIN,
    R_SOLVE,
    R_COMPUTE0,
    R_MPI_SEND = R_COMPUTE0 + 10,
    R_MPI_RECV,
    R_MPI_ISEND,
    R_MPI_IRECV,
    R_MPI_WAIT,
    R_MPI_ALLREDUCE,
    R_OMP_PARALLEL,
    R_OMP_TASK,
    R_COUNT
};
enum { G_MPI_LOCATIONS, G_WORLD, G_ROW, G_OMP_LOCATIONS, G_TEAM0 }; /* team of rank r: G_TEAM0+r */
enum { C_WORLD, C_ROW, C_TEAM0 };                                   /* team of rank r: C_TEAM0+r */
enum { MM_INSTRUCTIONS, MM_POWER, MM_TEMPERATURE };
enum { M_SYNC, M_ASYNC, M_SENSOR }; /* classes and the instance share one id space */
enum { P_SIZE, P_ITERATIONS, P_MODE };
enum { A_LINE, A_FILE };
enum { N_MACHINE }; /* node k is 1 + k */
enum { WIN = 0, IO_PARADIGM = 0, IO_FILE = 0 };

typedef struct options {
    const char* dir;
    uint32_t ranks, threads;
    uint64_t events, seed;
    int inject;
} options;

typedef struct loc {
    OTF2_EvtWriter* writer;
    uint32_t id;
    uint64_t now;          /* the clock (raw ticks): never behind the last event */
    uint64_t last;         /* timestamp of the last event */
    uint64_t events;       /* events written: the position of the last one */
    uint64_t instructions; /* PAPI_TOT_INS */
    uint64_t requests;     /* last MPI request id */
    uint32_t generation;   /* last task generation number created here */
} loc;

/* What comm rank i sends in the current round, and its request ids. */
typedef struct message {
    uint32_t tag;
    uint64_t bytes, send_request, recv_request;
} message;

typedef struct gen {
    options opt;
    OTF2_Archive* archive;
    OTF2_AttributeList* attributes;
    loc* locs; /* R*T CPU threads, then the metric location */
    message* messages;
    uint32_t location_count;
    uint64_t rng, total, end, next_sample, iteration;
    int injected;
    uint64_t position;         /* --inject: the event position of the fault */
    uint64_t marker, bad_time; /* --inject nonmonotonic: event 100's times */
    OTF2_ErrorCode status;     /* the first failure, sticky */
    const char* failed;        /* the call that failed first */
} gen;

/* ---- Errors, randomness, time -------------------------------------------- */

/* Records the first failure; later calls go on harmlessly and the driver
 * checks g->status once per iteration. */
static void check(gen* g, OTF2_ErrorCode code, const char* what) {
    if (code != OTF2_SUCCESS && g->status == OTF2_SUCCESS) {
        g->status = code;
        g->failed = what;
    }
}

/* Accounts one event written on `l`. */
static void put(gen* g, loc* l, OTF2_ErrorCode code, const char* what) {
    check(g, code, what);
    l->events++;
    g->total++;
}

static uint64_t next_random(gen* g) {
    uint64_t z = (g->rng += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

static uint32_t below(gen* g, uint32_t n) { return (uint32_t)(next_random(g) % n); }

/* Log-uniform gaps of 20 to ~4000 ticks (10 ns to 2 us). */
static uint64_t gap(gen* g) {
    uint64_t r = next_random(g);
    unsigned shift = 4 + (unsigned)(r % 9);
    return 20 + ((r >> 8) & ((UINT64_C(1) << shift) - 1));
}

/* Whether the event about to be written on `l` is the place for the fault;
 * if so, records that it is injected there. */
static int inject_here(gen* g, const loc* l, int kind) {
    if (g->opt.inject != kind || g->injected || l->id != 0 || l->events + 1 < INJECT_POSITION)
        return 0;
    g->injected = 1;
    g->position = l->events + 1;
    return 1;
}

/* Moves the clock of `l` forward (no event). */
static void advance(gen* g, loc* l, uint64_t delta) {
    l->now += delta;
    if (l->now > g->end)
        g->end = l->now;
}

/* --inject nonmonotonic: OTF2's writer refuses a decreasing timestamp, so
 * event 100 of location 0 is written at a marker time, in a timestamp
 * record of its own (events 100 and 101 are at least one tick after their
 * predecessors), and patch_marker overwrites it once the archive is closed.
 * Returns the delta to use. */
static uint64_t inject_stamp(gen* g, loc* l, uint64_t delta) {
    uint64_t position = l->events + 1;
    if (position != INJECT_POSITION && position != INJECT_POSITION + 1)
        return delta;
    if (delta == 0)
        delta = 1;
    if (inject_here(g, l, INJECT_NONMONOTONIC)) {
        g->marker = l->now + delta;
        g->bad_time = l->last - 1000;
    }
    return delta;
}

/* The timestamp of the next event on `l`, `delta` ticks after the clock.
 * Every event takes exactly one stamp. */
static uint64_t stamp_after(gen* g, loc* l, uint64_t delta) {
    if (g->opt.inject == INJECT_NONMONOTONIC && l->id == 0)
        delta = inject_stamp(g, l, delta);
    advance(g, l, delta);
    l->last = l->now;
    return l->now;
}

static uint64_t stamp(gen* g, loc* l) { return stamp_after(g, l, gap(g)); }

/* A barrier: the locations first, first+stride, ... (count of them) go on
 * from the latest of their clocks plus SYNC_TICKS, which exceeds any
 * difference of two locations' clock offsets: what happens after a barrier
 * stays after what happened before it, also in corrected time. */
static void sync_clocks(gen* g, uint32_t first, uint32_t count, uint32_t stride) {
    uint64_t latest = 0;
    for (uint32_t i = 0; i < count; i++)
        if (g->locs[first + i * stride].now > latest)
            latest = g->locs[first + i * stride].now;
    for (uint32_t i = 0; i < count; i++)
        g->locs[first + i * stride].now = latest + SYNC_TICKS;
}

static loc* master(gen* g, uint32_t rank) { return &g->locs[rank * g->opt.threads]; }

static void sync_masters(gen* g) { sync_clocks(g, 0, g->opt.ranks, g->opt.threads); }

static void sync_team(gen* g, uint32_t rank) {
    sync_clocks(g, rank * g->opt.threads, g->opt.threads, 1);
}

/* ---- User functions ------------------------------------------------------ */

static void put_enter(gen* g, loc* l, OTF2_AttributeList* attributes, OTF2_RegionRef region) {
    put(g, l, OTF2_EvtWriter_Enter(l->writer, attributes, stamp(g, l), region), "Enter");
}

static void put_leave(gen* g, loc* l, OTF2_RegionRef region) {
    put(g, l, OTF2_EvtWriter_Leave(l->writer, NULL, stamp(g, l), region), "Leave");
}

/* PAPI_TOT_INS at the time of the event just written. */
static void put_instructions(gen* g, loc* l) {
    OTF2_Type type = OTF2_TYPE_UINT64;
    OTF2_MetricValue value;
    OTF2_MetricRef metric = M_SYNC;
    if (inject_here(g, l, INJECT_UNKNOWN_METRIC))
        metric = BAD_ID;
    l->instructions += 1000 + below(g, 50000);
    value.unsigned_int = l->instructions;
    put(g, l,
        OTF2_EvtWriter_Metric(l->writer, NULL, stamp_after(g, l, 0), metric, 1, &type, &value),
        "Metric");
}

static void put_parameter(gen* g, loc* l) {
    uint32_t r = below(g, 3);
    OTF2_ErrorCode code;
    if (r == 0)
        code = OTF2_EvtWriter_ParameterInt(l->writer, NULL, stamp(g, l), P_SIZE,
                                           (int64_t)below(g, 1 << 20) - 1000);
    else if (r == 1)
        code = OTF2_EvtWriter_ParameterUnsignedInt(l->writer, NULL, stamp(g, l), P_ITERATIONS,
                                                   below(g, 1000));
    else
        code = OTF2_EvtWriter_ParameterString(l->writer, NULL, stamp(g, l), P_MODE,
                                              below(g, 2) ? S_EXPLICIT : S_IMPLICIT);
    put(g, l, code, "Parameter");
}

/* The attribute list for an Enter: NULL for three in four. OTF2 empties the
 * list when it writes the event. */
static OTF2_AttributeList* enter_attributes(gen* g) {
    if (below(g, 4) != 0)
        return NULL;
    check(g, OTF2_AttributeList_AddUint32(g->attributes, A_LINE, 10 + below(g, 990)),
          "AttributeList_AddUint32");
    check(g, OTF2_AttributeList_AddStringRef(g->attributes, A_FILE, S_SOURCE),
          "AttributeList_AddStringRef");
    return g->attributes;
}

static void enter_user(gen* g, loc* l, OTF2_RegionRef region) {
    put_enter(g, l, enter_attributes(g), region);
    put_instructions(g, l);
    if (below(g, 8) == 0)
        put_parameter(g, l);
}

static void leave_user(gen* g, loc* l, OTF2_RegionRef region) {
    put_leave(g, l, region);
    put_instructions(g, l);
}

/* One or two compute_<k> calls, each nesting at most `depth` levels. */
static void work(gen* g, loc* l, int depth) {
    uint32_t calls = 1 + below(g, 2);
    for (uint32_t i = 0; i < calls; i++) {
        OTF2_RegionRef region = R_COMPUTE0 + below(g, 10);
        if (inject_here(g, l, INJECT_UNKNOWN_REGION))
            region = BAD_ID;
        enter_user(g, l, region);
        if (depth > 1 && below(g, 2) == 0)
            work(g, l, depth - 1);
        leave_user(g, l, region);
    }
}

/* ---- OpenMP -------------------------------------------------------------- */

static void team_begin(gen* g, uint32_t rank) {
    for (uint32_t t = 0; t < g->opt.threads; t++) {
        loc* l = &g->locs[rank * g->opt.threads + t];
        put(g, l, OTF2_EvtWriter_ThreadTeamBegin(l->writer, NULL, stamp(g, l), C_TEAM0 + rank),
            "ThreadTeamBegin");
        put_enter(g, l, NULL, R_OMP_PARALLEL);
        work(g, l, 2);
    }
}

static void team_end(gen* g, uint32_t rank) {
    for (uint32_t t = 0; t < g->opt.threads; t++) {
        loc* l = &g->locs[rank * g->opt.threads + t];
        put_leave(g, l, R_OMP_PARALLEL);
        put(g, l, OTF2_EvtWriter_ThreadTeamEnd(l->writer, NULL, stamp(g, l), C_TEAM0 + rank),
            "ThreadTeamEnd");
    }
}

/* Makes task (creator, generation) of the rank's team run on `l`;
 * generation 0 is the implicit task of location `creator`. */
static void task_switch(gen* g, loc* l, uint32_t rank, uint32_t creator, uint32_t generation) {
    put(g, l,
        OTF2_EvtWriter_ThreadTaskSwitch(l->writer, NULL, stamp(g, l), C_TEAM0 + rank, creator,
                                        generation),
        "ThreadTaskSwitch");
}

/* One slice of the task on `l`: switch to it, run it inside "!$omp task". */
static void task_slice(gen* g, loc* l, uint32_t rank, uint32_t creator, uint32_t generation) {
    task_switch(g, l, rank, creator, generation);
    put_enter(g, l, NULL, R_OMP_TASK);
    work(g, l, 1);
    put_leave(g, l, R_OMP_TASK);
}

/* One explicit task, created, run and completed inside the parallel region;
 * the other threads work meanwhile. */
static void run_task(gen* g, uint32_t rank) {
    uint32_t threads = g->opt.threads, first = rank * threads;
    loc* creator = &g->locs[first + below(g, threads)];
    loc* runner = &g->locs[first + below(g, threads)];
    uint32_t creating = creator->id, generation = ++creator->generation;
    put(g, creator,
        OTF2_EvtWriter_ThreadTaskCreate(creator->writer, NULL, stamp(g, creator), C_TEAM0 + rank,
                                        creating, generation),
        "ThreadTaskCreate");
    sync_team(g, rank);
    task_slice(g, runner, rank, creating, generation);
    if (below(g, 4) == 0) { /* suspended, resumed by the next thread */
        task_switch(g, runner, rank, runner->id, 0);
        for (uint32_t t = 0; t < threads; t++)
            work(g, &g->locs[first + t], 1);
        sync_team(g, rank);
        runner = &g->locs[first + (runner->id - first + 1) % threads];
        task_slice(g, runner, rank, creating, generation);
    }
    put(g, runner,
        OTF2_EvtWriter_ThreadTaskComplete(runner->writer, NULL, stamp(g, runner), C_TEAM0 + rank,
                                          creating, generation),
        "ThreadTaskComplete");
    task_switch(g, runner, rank, runner->id, 0);
}

static void parallel_region(gen* g, uint32_t rank) {
    loc* m = master(g, rank);
    put(g, m,
        OTF2_EvtWriter_ThreadFork(m->writer, NULL, stamp(g, m), OTF2_PARADIGM_OPENMP,
                                  g->opt.threads),
        "ThreadFork");
    sync_team(g, rank);
    team_begin(g, rank);
    run_task(g, rank);
    sync_team(g, rank);
    team_end(g, rank);
    sync_team(g, rank);
    put(g, m, OTF2_EvtWriter_ThreadJoin(m->writer, NULL, stamp(g, m), OTF2_PARADIGM_OPENMP),
        "ThreadJoin");
}

/* ---- MPI ----------------------------------------------------------------- */

static uint32_t comm_size(const gen* g, OTF2_CommRef comm) {
    return comm == C_WORLD ? g->opt.ranks : (g->opt.ranks + 1) / 2;
}

/* The master of comm rank i (row_comm holds the even world ranks). */
static loc* comm_master(gen* g, OTF2_CommRef comm, uint32_t i) {
    return master(g, comm == C_WORLD ? i : 2 * i);
}

static message* draw_message(gen* g, uint32_t i) {
    message* m = &g->messages[i];
    m->tag = below(g, 64);
    m->bytes = UINT64_C(8) << below(g, 17); /* 8 B to 512 KiB */
    return m;
}

/* Comm rank i sends to i+1 (MPI_Send); after all sent, receives from i-1. */
static void blocking_ring(gen* g, OTF2_CommRef comm) {
    uint32_t n = comm_size(g, comm);
    if (n < 2)
        return;
    for (uint32_t i = 0; i < n; i++) {
        loc* l = comm_master(g, comm, i);
        message* m = draw_message(g, i);
        put_enter(g, l, NULL, R_MPI_SEND);
        put(g, l,
            OTF2_EvtWriter_MpiSend(l->writer, NULL, stamp(g, l), (i + 1) % n, comm, m->tag,
                                   m->bytes),
            "MpiSend");
        put_leave(g, l, R_MPI_SEND);
    }
    sync_masters(g);
    for (uint32_t i = 0; i < n; i++) {
        loc* l = comm_master(g, comm, i);
        uint32_t from = (i + n - 1) % n;
        const message* m = &g->messages[from];
        put_enter(g, l, NULL, R_MPI_RECV);
        put(g, l,
            OTF2_EvtWriter_MpiRecv(l->writer, NULL, stamp(g, l), from, comm, m->tag, m->bytes),
            "MpiRecv");
        put_leave(g, l, R_MPI_RECV);
    }
}

/* Comm rank i posts a receive from i+1 and sends to i-1, computes, then
 * waits for both (one MPI_Wait each). */
static void post_nonblocking(gen* g, OTF2_CommRef comm, uint32_t i, uint32_t n) {
    loc* l = comm_master(g, comm, i);
    message* m = draw_message(g, i);
    m->recv_request = ++l->requests;
    m->send_request = ++l->requests;
    put_enter(g, l, NULL, R_MPI_IRECV);
    put(g, l, OTF2_EvtWriter_MpiIrecvRequest(l->writer, NULL, stamp(g, l), m->recv_request),
        "MpiIrecvRequest");
    put_leave(g, l, R_MPI_IRECV);
    put_enter(g, l, NULL, R_MPI_ISEND);
    put(g, l,
        OTF2_EvtWriter_MpiIsend(l->writer, NULL, stamp(g, l), (i + n - 1) % n, comm, m->tag,
                                m->bytes, m->send_request),
        "MpiIsend");
    put_leave(g, l, R_MPI_ISEND);
    work(g, l, 1);
}

static void wait_nonblocking(gen* g, OTF2_CommRef comm, uint32_t i, uint32_t n) {
    loc* l = comm_master(g, comm, i);
    const message* m = &g->messages[i];
    uint32_t from = (i + 1) % n;
    const message* in = &g->messages[from];
    put_enter(g, l, NULL, R_MPI_WAIT);
    put(g, l, OTF2_EvtWriter_MpiIsendComplete(l->writer, NULL, stamp(g, l), m->send_request),
        "MpiIsendComplete");
    put_leave(g, l, R_MPI_WAIT);
    put_enter(g, l, NULL, R_MPI_WAIT);
    put(g, l,
        OTF2_EvtWriter_MpiIrecv(l->writer, NULL, stamp(g, l), from, comm, in->tag, in->bytes,
                                m->recv_request),
        "MpiIrecv");
    put_leave(g, l, R_MPI_WAIT);
}

static void nonblocking_ring(gen* g, OTF2_CommRef comm) {
    uint32_t n = comm_size(g, comm);
    if (n < 2)
        return;
    for (uint32_t i = 0; i < n; i++)
        post_nonblocking(g, comm, i, n);
    sync_masters(g);
    for (uint32_t i = 0; i < n; i++)
        wait_nonblocking(g, comm, i, n);
}

static void allreduce(gen* g, OTF2_CommRef comm) {
    uint32_t n = comm_size(g, comm);
    uint64_t bytes = UINT64_C(8) << below(g, 10);
    for (uint32_t i = 0; i < n; i++) {
        loc* l = comm_master(g, comm, i);
        put_enter(g, l, NULL, R_MPI_ALLREDUCE);
        put(g, l, OTF2_EvtWriter_MpiCollectiveBegin(l->writer, NULL, stamp(g, l)),
            "MpiCollectiveBegin");
    }
    sync_masters(g);
    for (uint32_t i = 0; i < n; i++) {
        loc* l = comm_master(g, comm, i);
        put(g, l,
            OTF2_EvtWriter_MpiCollectiveEnd(l->writer, NULL, stamp(g, l),
                                            OTF2_COLLECTIVE_OP_ALLREDUCE, comm,
                                            OTF2_UNDEFINED_UINT32, bytes, bytes),
            "MpiCollectiveEnd");
        put_leave(g, l, R_MPI_ALLREDUCE);
    }
}

/* ---- The run: prologue, iterations, epilogue ------------------------------ */

static void io_operation(gen* g, uint32_t rank) {
    loc* l = master(g, rank);
    uint64_t bytes = UINT64_C(4096) * (rank + 1);
    put(g, l,
        OTF2_EvtWriter_IoOperationBegin(l->writer, NULL, stamp(g, l), rank,
                                        OTF2_IO_OPERATION_MODE_WRITE, OTF2_IO_OPERATION_FLAG_NONE,
                                        bytes, 1),
        "IoOperationBegin");
    put(g, l, OTF2_EvtWriter_IoOperationComplete(l->writer, NULL, stamp(g, l), rank, bytes, 1),
        "IoOperationComplete");
}

/* Each master puts to its right neighbour and gets from it, completing each
 * operation blocking (matching ids 1 and 2). */
static void rma_epoch(gen* g) {
    uint32_t ranks = g->opt.ranks;
    for (uint32_t r = 0; r < ranks; r++) {
        loc* l = master(g, r);
        put(g, l, OTF2_EvtWriter_RmaWinCreate(l->writer, NULL, stamp(g, l), WIN), "RmaWinCreate");
    }
    sync_masters(g);
    for (uint32_t r = 0; r < ranks; r++) {
        loc* l = master(g, r);
        uint32_t peer = (r + 1) % ranks;
        put(g, l, OTF2_EvtWriter_RmaPut(l->writer, NULL, stamp(g, l), WIN, peer, 65536, 1),
            "RmaPut");
        put(g, l, OTF2_EvtWriter_RmaOpCompleteBlocking(l->writer, NULL, stamp(g, l), WIN, 1),
            "RmaOpCompleteBlocking");
        put(g, l, OTF2_EvtWriter_RmaGet(l->writer, NULL, stamp(g, l), WIN, peer, 4096, 2),
            "RmaGet");
        put(g, l, OTF2_EvtWriter_RmaOpCompleteBlocking(l->writer, NULL, stamp(g, l), WIN, 2),
            "RmaOpCompleteBlocking");
    }
    sync_masters(g);
    for (uint32_t r = 0; r < ranks; r++) {
        loc* l = master(g, r);
        put(g, l, OTF2_EvtWriter_RmaWinDestroy(l->writer, NULL, stamp(g, l), WIN), "RmaWinDestroy");
    }
}

static void prologue(gen* g) {
    static const OTF2_StringRef args[2] = {S_ARG1, S_ARG2};
    for (uint32_t r = 0; r < g->opt.ranks; r++) {
        loc* l = master(g, r);
        put(g, l, OTF2_EvtWriter_ProgramBegin(l->writer, NULL, stamp(g, l), S_PROGRAM, 2, args),
            "ProgramBegin");
        enter_user(g, l, R_MAIN);
        put(g, l,
            OTF2_EvtWriter_MeasurementOnOff(l->writer, NULL, stamp(g, l), OTF2_MEASUREMENT_OFF),
            "MeasurementOnOff");
        put(g, l,
            OTF2_EvtWriter_MeasurementOnOff(l->writer, NULL, stamp_after(g, l, OFF_TICKS),
                                            OTF2_MEASUREMENT_ON),
            "MeasurementOnOff");
        io_operation(g, r);
    }
    sync_masters(g);
    rma_epoch(g);
}

/* The sensor's samples (power in W, temperature in C) up to the latest
 * clock, skipping those that fall into its own BufferFlush. */
static void sample_sensor(gen* g) {
    static const OTF2_Type types[2] = {OTF2_TYPE_DOUBLE, OTF2_TYPE_INT64};
    loc* sensor = &g->locs[g->location_count - 1];
    for (; g->next_sample <= g->end; g->next_sample += SAMPLE_PERIOD) {
        OTF2_MetricValue values[2];
        if (g->next_sample < sensor->now)
            continue;
        values[0].floating_point = 150.0 + below(g, 2000) / 40.0;
        values[1].signed_int = 55 + (int64_t)below(g, 10);
        put(g, sensor,
            OTF2_EvtWriter_Metric(sensor->writer, NULL,
                                  stamp_after(g, sensor, g->next_sample - sensor->now), M_SENSOR, 2,
                                  types, values),
            "Metric");
    }
}

static void flush_all(gen* g) {
    for (uint32_t i = 0; i < g->location_count; i++) {
        loc* l = &g->locs[i];
        uint64_t start = stamp(g, l);
        put(g, l, OTF2_EvtWriter_BufferFlush(l->writer, NULL, start, start + FLUSH_TICKS),
            "BufferFlush");
        advance(g, l, FLUSH_TICKS);
    }
}

static void iteration(gen* g) {
    uint32_t ranks = g->opt.ranks;
    for (uint32_t r = 0; r < ranks; r++)
        enter_user(g, master(g, r), R_SOLVE);
    for (uint32_t r = 0; r < ranks; r++)
        parallel_region(g, r);
    sync_masters(g);
    blocking_ring(g, C_WORLD);
    nonblocking_ring(g, C_WORLD);
    blocking_ring(g, C_ROW);
    allreduce(g, C_WORLD);
    if (g->iteration % 2 == 1)
        allreduce(g, C_ROW);
    for (uint32_t r = 0; r < ranks; r++)
        leave_user(g, master(g, r), R_SOLVE);
    sample_sensor(g);
    if (g->iteration == 0)
        flush_all(g);
    g->iteration++;
}

static void epilogue(gen* g) {
    for (uint32_t r = 0; r < g->opt.ranks; r++) {
        loc* l = master(g, r);
        leave_user(g, l, R_MAIN);
        put(g, l, OTF2_EvtWriter_ProgramEnd(l->writer, NULL, stamp(g, l), 0), "ProgramEnd");
    }
}

static void generate(gen* g) {
    prologue(g);
    do
        iteration(g);
    while (g->status == OTF2_SUCCESS && g->total < g->opt.events);
    epilogue(g);
}

/* ---- Global definitions -------------------------------------------------- */

typedef struct defs {
    gen* g;
    OTF2_GlobalDefWriter* w;
    OTF2_StringRef next_string;
} defs;

/* Defines a string with the next free id and returns the id. At most one
 * call per expression: the archive must not depend on evaluation order. */
static OTF2_StringRef def_string(defs* d, const char* format, ...) {
    char text[128];
    va_list args;
    va_start(args, format);
    vsnprintf(text, sizeof text, format, args);
    va_end(args);
    check(d->g, OTF2_GlobalDefWriter_WriteString(d->w, d->next_string, text), "WriteString");
    return d->next_string++;
}

static void def_fixed_strings(defs* d) {
    static const char* const fixed[S_FIXED] = {"",         "./solver", "--grid=256", "--steps=1000",
                                               "explicit", "implicit", "solver.c"};
    for (uint32_t i = 0; i < S_FIXED; i++)
        check(d->g, OTF2_GlobalDefWriter_WriteString(d->w, i, fixed[i]), "WriteString");
    d->next_string = S_FIXED;
}

/* Clock, paradigms, system tree and location groups. */
static void def_clock_and_tree(defs* d) {
    gen* g = d->g;
    uint64_t length = g->end - GLOBAL_OFFSET + 45 * OFFSET_STEPS + 1;
    OTF2_StringRef node = def_string(d, "node");
    check(g,
          OTF2_GlobalDefWriter_WriteClockProperties(d->w, TIMER_RESOLUTION, GLOBAL_OFFSET, length,
                                                    REALTIME_NS),
          "WriteClockProperties");
    check(g,
          OTF2_GlobalDefWriter_WriteParadigm(d->w, OTF2_PARADIGM_MPI, def_string(d, "MPI"),
                                             OTF2_PARADIGM_CLASS_PROCESS),
          "WriteParadigm");
    check(g,
          OTF2_GlobalDefWriter_WriteParadigm(d->w, OTF2_PARADIGM_OPENMP, def_string(d, "OpenMP"),
                                             OTF2_PARADIGM_CLASS_THREAD_FORK_JOIN),
          "WriteParadigm");
    OTF2_StringRef machine = def_string(d, "machine");
    check(g,
          OTF2_GlobalDefWriter_WriteSystemTreeNode(d->w, N_MACHINE, machine, machine,
                                                   OTF2_UNDEFINED_SYSTEM_TREE_NODE),
          "WriteSystemTreeNode");
    for (uint32_t k = 0; k < (g->opt.ranks + 1) / 2; k++)
        check(g,
              OTF2_GlobalDefWriter_WriteSystemTreeNode(d->w, 1 + k, def_string(d, "node%u", k),
                                                       node, N_MACHINE),
              "WriteSystemTreeNode");
    for (uint32_t r = 0; r < g->opt.ranks; r++)
        check(g,
              OTF2_GlobalDefWriter_WriteLocationGroup(d->w, r, def_string(d, "MPI Rank %u", r),
                                                      OTF2_LOCATION_GROUP_TYPE_PROCESS, 1 + r / 2,
                                                      OTF2_UNDEFINED_LOCATION_GROUP),
              "WriteLocationGroup");
}

static void def_locations(defs* d) {
    gen* g = d->g;
    OTF2_StringRef first = d->next_string;
    def_string(d, "Master thread");
    for (uint32_t t = 1; t < g->opt.threads; t++)
        def_string(d, "OMP thread %u", t);
    for (uint32_t i = 0; i + 1 < g->location_count; i++)
        check(g,
              OTF2_GlobalDefWriter_WriteLocation(d->w, i, first + i % g->opt.threads,
                                                 OTF2_LOCATION_TYPE_CPU_THREAD, g->locs[i].events,
                                                 i / g->opt.threads),
              "WriteLocation");
    check(g,
          OTF2_GlobalDefWriter_WriteLocation(
              d->w, g->location_count - 1, def_string(d, "power sensor"), OTF2_LOCATION_TYPE_METRIC,
              g->locs[g->location_count - 1].events, 0),
          "WriteLocation");
}

static void def_region(defs* d, OTF2_RegionRef id, const char* name, OTF2_RegionRole role,
                       OTF2_Paradigm paradigm) {
    OTF2_StringRef s = def_string(d, "%s", name);
    check(d->g,
          OTF2_GlobalDefWriter_WriteRegion(
              d->w, id, s, s, S_EMPTY, role, paradigm, OTF2_REGION_FLAG_NONE,
              paradigm == OTF2_PARADIGM_USER ? S_SOURCE : S_EMPTY, 0, 0),
          "WriteRegion");
}

static void def_regions(defs* d) {
    static const char* const mpi[] = {"MPI_Send",  "MPI_Recv", "MPI_Isend",
                                      "MPI_Irecv", "MPI_Wait", "MPI_Allreduce"};
    char name[32];
    def_region(d, R_MAIN, "main", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER);
    def_region(d, R_SOLVE, "solve", OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER);
    for (uint32_t k = 0; k < 10; k++) {
        snprintf(name, sizeof name, "compute_%u", k);
        def_region(d, R_COMPUTE0 + k, name, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER);
    }
    for (uint32_t i = 0; i < 6; i++)
        def_region(d, R_MPI_SEND + i, mpi[i],
                   R_MPI_SEND + i == R_MPI_ALLREDUCE ? OTF2_REGION_ROLE_COLL_ALL2ALL
                                                     : OTF2_REGION_ROLE_POINT2POINT,
                   OTF2_PARADIGM_MPI);
    def_region(d, R_OMP_PARALLEL, "!$omp parallel", OTF2_REGION_ROLE_PARALLEL,
               OTF2_PARADIGM_OPENMP);
    def_region(d, R_OMP_TASK, "!$omp task", OTF2_REGION_ROLE_TASK, OTF2_PARADIGM_OPENMP);
}

/* Members: first, first+stride, ... (count of them). */
static void def_group(defs* d, OTF2_GroupRef id, const char* name, OTF2_GroupType type,
                      OTF2_Paradigm paradigm, uint64_t first, uint32_t count, uint64_t stride) {
    uint64_t* members = malloc((count ? count : 1) * sizeof *members);
    if (members == NULL) {
        check(d->g, OTF2_ERROR_MEM_ALLOC_FAILED, "malloc");
        return;
    }
    for (uint32_t i = 0; i < count; i++)
        members[i] = first + i * stride;
    check(d->g,
          OTF2_GlobalDefWriter_WriteGroup(d->w, id, def_string(d, "%s", name), type, paradigm,
                                          OTF2_GROUP_FLAG_NONE, count, members),
          "WriteGroup");
    free(members);
}

static void def_comm(defs* d, OTF2_CommRef id, const char* name, OTF2_GroupRef group,
                     OTF2_CommRef parent) {
    check(d->g,
          OTF2_GlobalDefWriter_WriteComm(d->w, id, def_string(d, "%s", name), group, parent,
                                         OTF2_COMM_FLAG_NONE),
          "WriteComm");
}

static void def_groups(defs* d) {
    uint32_t ranks = d->g->opt.ranks, threads = d->g->opt.threads;
    char name[48];
    def_group(d, G_MPI_LOCATIONS, "MPI locations", OTF2_GROUP_TYPE_COMM_LOCATIONS,
              OTF2_PARADIGM_MPI, 0, ranks, threads);
    def_group(d, G_WORLD, "MPI_COMM_WORLD", OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, 0, ranks,
              1);
    def_group(d, G_ROW, "row_comm", OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, 0,
              (ranks + 1) / 2, 2);
    def_group(d, G_OMP_LOCATIONS, "OpenMP locations", OTF2_GROUP_TYPE_COMM_LOCATIONS,
              OTF2_PARADIGM_OPENMP, 0, ranks * threads, 1);
    def_comm(d, C_WORLD, "MPI_COMM_WORLD", G_WORLD, OTF2_UNDEFINED_COMM);
    def_comm(d, C_ROW, "row_comm", G_ROW, C_WORLD);
    for (uint32_t r = 0; r < ranks; r++) {
        snprintf(name, sizeof name, "Thread team %u", r);
        def_group(d, G_TEAM0 + r, name, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_OPENMP,
                  (uint64_t)r * threads, threads, 1);
        def_comm(d, C_TEAM0 + r, name, G_TEAM0 + r, OTF2_UNDEFINED_COMM);
    }
}

static void def_member(defs* d, OTF2_MetricMemberRef id, const char* name, OTF2_MetricType type,
                       OTF2_MetricMode mode, OTF2_Type value_type, const char* unit) {
    OTF2_StringRef s = def_string(d, "%s", name);
    check(d->g,
          OTF2_GlobalDefWriter_WriteMetricMember(d->w, id, s, s, type, mode, value_type,
                                                 OTF2_BASE_DECIMAL, 0, def_string(d, "%s", unit)),
          "WriteMetricMember");
}

static void def_metrics(defs* d) {
    static const OTF2_MetricMemberRef sync[1] = {MM_INSTRUCTIONS};
    static const OTF2_MetricMemberRef async[2] = {MM_POWER, MM_TEMPERATURE};
    gen* g = d->g;
    def_member(d, MM_INSTRUCTIONS, "PAPI_TOT_INS", OTF2_METRIC_TYPE_PAPI,
               OTF2_METRIC_ACCUMULATED_START, OTF2_TYPE_UINT64, "#");
    def_member(d, MM_POWER, "power", OTF2_METRIC_TYPE_OTHER, OTF2_METRIC_ABSOLUTE_POINT,
               OTF2_TYPE_DOUBLE, "W");
    def_member(d, MM_TEMPERATURE, "temperature", OTF2_METRIC_TYPE_OTHER, OTF2_METRIC_ABSOLUTE_LAST,
               OTF2_TYPE_INT64, "C");
    check(g,
          OTF2_GlobalDefWriter_WriteMetricClass(d->w, M_SYNC, 1, sync, OTF2_METRIC_SYNCHRONOUS,
                                                OTF2_RECORDER_KIND_CPU),
          "WriteMetricClass");
    check(g,
          OTF2_GlobalDefWriter_WriteMetricClass(d->w, M_ASYNC, 2, async, OTF2_METRIC_ASYNCHRONOUS,
                                                OTF2_RECORDER_KIND_ABSTRACT),
          "WriteMetricClass");
    check(g,
          OTF2_GlobalDefWriter_WriteMetricInstance(d->w, M_SENSOR, M_ASYNC, g->location_count - 1,
                                                   OTF2_SCOPE_SYSTEM_TREE_NODE, 1),
          "WriteMetricInstance");
    for (uint32_t i = 0; i + 1 < g->location_count; i++)
        check(g, OTF2_GlobalDefWriter_WriteMetricClassRecorder(d->w, M_SYNC, i),
              "WriteMetricClassRecorder");
}

/* Parameters, attributes, the RMA window and the I/O definitions (one
 * pre-created handle per rank on one regular file). */
static void def_misc(defs* d) {
    gen* g = d->g;
    OTF2_StringRef file = def_string(d, "out.dat");
    check(g,
          OTF2_GlobalDefWriter_WriteParameter(d->w, P_SIZE, def_string(d, "size"),
                                              OTF2_PARAMETER_TYPE_INT64),
          "WriteParameter");
    check(g,
          OTF2_GlobalDefWriter_WriteParameter(d->w, P_ITERATIONS, def_string(d, "iterations"),
                                              OTF2_PARAMETER_TYPE_UINT64),
          "WriteParameter");
    check(g,
          OTF2_GlobalDefWriter_WriteParameter(d->w, P_MODE, def_string(d, "mode"),
                                              OTF2_PARAMETER_TYPE_STRING),
          "WriteParameter");
    check(g,
          OTF2_GlobalDefWriter_WriteAttribute(d->w, A_LINE, def_string(d, "line"), S_EMPTY,
                                              OTF2_TYPE_UINT32),
          "WriteAttribute");
    check(g,
          OTF2_GlobalDefWriter_WriteAttribute(d->w, A_FILE, def_string(d, "file"), S_EMPTY,
                                              OTF2_TYPE_STRING),
          "WriteAttribute");
    check(g,
          OTF2_GlobalDefWriter_WriteRmaWin(d->w, WIN, def_string(d, "win"), C_WORLD,
                                           OTF2_RMA_WIN_FLAG_NONE),
          "WriteRmaWin");
    OTF2_StringRef posix = def_string(d, "POSIX");
    check(g,
          OTF2_GlobalDefWriter_WriteIoParadigm(d->w, IO_PARADIGM, posix, def_string(d, "POSIX I/O"),
                                               OTF2_IO_PARADIGM_CLASS_SERIAL,
                                               OTF2_IO_PARADIGM_FLAG_OS, 0, NULL, NULL, NULL),
          "WriteIoParadigm");
    check(g, OTF2_GlobalDefWriter_WriteIoRegularFile(d->w, IO_FILE, file, 1), "WriteIoRegularFile");
    for (uint32_t r = 0; r < g->opt.ranks; r++) {
        check(g,
              OTF2_GlobalDefWriter_WriteIoHandle(d->w, r, file, IO_FILE, IO_PARADIGM,
                                                 OTF2_IO_HANDLE_FLAG_PRE_CREATED,
                                                 OTF2_UNDEFINED_COMM, OTF2_UNDEFINED_IO_HANDLE),
              "WriteIoHandle");
        check(g,
              OTF2_GlobalDefWriter_WriteIoPreCreatedHandleState(
                  d->w, r, OTF2_IO_ACCESS_MODE_WRITE_ONLY, OTF2_IO_STATUS_FLAG_NONE),
              "WriteIoPreCreatedHandleState");
    }
}

static void write_global_defs(gen* g) {
    defs d = {g, OTF2_Archive_GetGlobalDefWriter(g->archive), 0};
    if (d.w == NULL) {
        check(g, OTF2_ERROR_PROCESSED_WITH_FAULTS, "OTF2_Archive_GetGlobalDefWriter");
        return;
    }
    def_fixed_strings(&d);
    def_clock_and_tree(&d);
    def_locations(&d);
    def_regions(&d);
    def_groups(&d);
    def_metrics(&d);
    def_misc(&d);
}

/* ---- The archive --------------------------------------------------------- */

static OTF2_FlushType pre_flush(void* user, OTF2_FileType type, OTF2_LocationRef location,
                                void* caller, bool final) {
    (void)user, (void)type, (void)location, (void)caller, (void) final;
    return OTF2_FLUSH;
}

/* No post-flush callback: OTF2 writes no BufferFlush records of its own, so
 * the archive holds exactly the events above. */
static OTF2_FlushCallbacks flush_callbacks = {pre_flush, NULL};

/* The chunks of one OTF2 buffer. OTF2 flushes a buffer only when a chunk
 * allocation fails, so an event buffer gets one chunk: asking for a second
 * makes OTF2 write the full one to its file (pre_flush says OTF2_FLUSH) and
 * free it. That keeps the memory constant in the number of events.
 * Definition buffers may hold up to MAX_CHUNKS. */
#define MAX_CHUNKS 64

typedef struct chunk_pool {
    uint32_t count;
    void* chunks[MAX_CHUNKS];
} chunk_pool;

static void* chunk_allocate(void* user, OTF2_FileType type, OTF2_LocationRef location,
                            void** per_buffer, uint64_t size) {
    chunk_pool* pool = *per_buffer;
    void* chunk;
    (void)user, (void)location;
    if (pool == NULL && (pool = *per_buffer = calloc(1, sizeof *pool)) == NULL)
        return NULL;
    if (pool->count == (type == OTF2_FILETYPE_EVENTS ? 1 : MAX_CHUNKS))
        return NULL;
    chunk = malloc(size);
    if (chunk != NULL)
        pool->chunks[pool->count++] = chunk;
    return chunk;
}

static void chunk_free_all(void* user, OTF2_FileType type, OTF2_LocationRef location,
                           void** per_buffer, bool final) {
    chunk_pool* pool = *per_buffer;
    (void)user, (void)type, (void)location;
    if (pool == NULL)
        return;
    for (uint32_t i = 0; i < pool->count; i++)
        free(pool->chunks[i]);
    pool->count = 0;
    if (final) {
        free(pool);
        *per_buffer = NULL;
    }
}

static const OTF2_MemoryCallbacks memory_callbacks = {chunk_allocate, chunk_free_all};

static void open_writers(gen* g) {
    check(g, OTF2_Archive_SetFlushCallbacks(g->archive, &flush_callbacks, NULL),
          "OTF2_Archive_SetFlushCallbacks");
    check(g, OTF2_Archive_SetMemoryCallbacks(g->archive, &memory_callbacks, NULL),
          "OTF2_Archive_SetMemoryCallbacks");
    check(g, OTF2_Archive_SetSerialCollectiveCallbacks(g->archive),
          "OTF2_Archive_SetSerialCollectiveCallbacks");
    check(g, OTF2_Archive_SetCreator(g->archive, TOOL " " PACKAGE_VERSION),
          "OTF2_Archive_SetCreator");
    check(g, OTF2_Archive_SetMachineName(g->archive, "machine"), "OTF2_Archive_SetMachineName");
    check(g, OTF2_Archive_SetDescription(g->archive, "synthetic MPI+OpenMP trace"),
          "OTF2_Archive_SetDescription");
    check(g, OTF2_Archive_OpenEvtFiles(g->archive), "OTF2_Archive_OpenEvtFiles");
    for (uint32_t i = 0; i < g->location_count && g->status == OTF2_SUCCESS; i++) {
        g->locs[i].id = i;
        g->locs[i].now = GLOBAL_OFFSET + 1000;
        g->locs[i].writer = OTF2_Archive_GetEvtWriter(g->archive, i);
        if (g->locs[i].writer == NULL)
            check(g, OTF2_ERROR_PROCESSED_WITH_FAULTS, "OTF2_Archive_GetEvtWriter");
    }
}

/* Closes the event writers after checking OTF2 counted what we declare. */
static void close_writers(gen* g) {
    for (uint32_t i = 0; i < g->location_count; i++) {
        uint64_t counted = 0;
        if (g->locs[i].writer == NULL)
            continue;
        check(g, OTF2_EvtWriter_GetNumberOfEvents(g->locs[i].writer, &counted),
              "OTF2_EvtWriter_GetNumberOfEvents");
        if (counted != g->locs[i].events)
            check(g, OTF2_ERROR_INTEGRITY_FAULT, "counting events");
        check(g, OTF2_Archive_CloseEvtWriter(g->archive, g->locs[i].writer),
              "OTF2_Archive_CloseEvtWriter");
    }
    check(g, OTF2_Archive_CloseEvtFiles(g->archive), "OTF2_Archive_CloseEvtFiles");
}

/* Each location's two clock offsets, at the first and the last timestamp. */
static void write_local_defs(gen* g) {
    check(g, OTF2_Archive_OpenDefFiles(g->archive), "OTF2_Archive_OpenDefFiles");
    for (uint32_t i = 0; i < g->location_count && g->status == OTF2_SUCCESS; i++) {
        OTF2_DefWriter* w = OTF2_Archive_GetDefWriter(g->archive, i);
        if (w == NULL) {
            check(g, OTF2_ERROR_PROCESSED_WITH_FAULTS, "OTF2_Archive_GetDefWriter");
            break;
        }
        int64_t k = 1 + i % OFFSET_STEPS;
        check(g, OTF2_DefWriter_WriteClockOffset(w, GLOBAL_OFFSET, 30 * k, 0.0),
              "WriteClockOffset");
        check(g, OTF2_DefWriter_WriteClockOffset(w, g->end, 45 * k, 0.0), "WriteClockOffset");
        check(g, OTF2_Archive_CloseDefWriter(g->archive, w), "OTF2_Archive_CloseDefWriter");
    }
    check(g, OTF2_Archive_CloseDefFiles(g->archive), "OTF2_Archive_CloseDefFiles");
}

/* Finds the one timestamp record (OTF2_BUFFER_TIMESTAMP = 5, then the raw
 * 8-byte time in this machine's byte order) holding the marker in the first
 * chunk of location 0 and writes the bad time over it; returns 0 on
 * success. */
static int patch_marker(const gen* g) {
    enum { CHUNK = 1024 * 1024, RECORD = 9 };
    char path[4200];
    unsigned char pattern[RECORD], *chunk = malloc(CHUNK);
    size_t size = 0, found = 0, at = 0;
    FILE* f;
    int status = -1;
    snprintf(path, sizeof path, "%s/traces/0.evt", g->opt.dir);
    f = fopen(path, "r+b");
    if (chunk == NULL || f == NULL)
        goto end;
    pattern[0] = 5;
    memcpy(pattern + 1, &g->marker, 8);
    size = fread(chunk, 1, CHUNK, f);
    for (size_t i = 0; i + RECORD <= size; i++)
        if (memcmp(chunk + i, pattern, RECORD) == 0)
            found++, at = i;
    if (found != 1 || fseek(f, (long)at + 1, SEEK_SET) != 0 || fwrite(&g->bad_time, 8, 1, f) != 1)
        goto end;
    status = 0;
end:
    if (f != NULL && fclose(f) != 0)
        status = -1;
    if (status != 0)
        fprintf(stderr, TOOL ": error: --inject nonmonotonic: cannot patch \"%s\" (%zu markers)\n",
                path, found);
    free(chunk);
    return status;
}

static void report_failure(const gen* g) {
    if (g->status == OTF2_ERROR_INTEGRITY_FAULT && strcmp(g->failed, "counting events") == 0)
        fprintf(stderr, TOOL ": error: OTF2 counted other event numbers than the generator\n");
    else
        fprintf(stderr, TOOL ": error: cannot write \"%s/traces.otf2\": %s failed: %s: %s\n",
                g->opt.dir, g->failed, OTF2_Error_GetName(g->status),
                OTF2_Error_GetDescription(g->status));
}

/* Writes the whole archive; returns the exit status. */
static int run(const options* opt) {
    gen g;
    int status = 1;
    memset(&g, 0, sizeof g);
    g.opt = *opt;
    g.rng = opt->seed;
    g.location_count = opt->ranks * opt->threads + 1;
    g.next_sample = GLOBAL_OFFSET + SAMPLE_PERIOD;
    g.locs = calloc(g.location_count, sizeof *g.locs);
    g.messages = calloc(opt->ranks, sizeof *g.messages);
    g.attributes = OTF2_AttributeList_New();
    if (g.locs == NULL || g.messages == NULL || g.attributes == NULL) {
        fprintf(stderr, TOOL ": error: out of memory\n");
        goto end;
    }
    g.archive = OTF2_Archive_Open(opt->dir, "traces", OTF2_FILEMODE_WRITE, 1024 * 1024,
                                  4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (g.archive == NULL) {
        fprintf(stderr, TOOL ": error: cannot create the OTF2 archive \"%s/traces.otf2\"\n",
                opt->dir);
        goto end;
    }
    open_writers(&g);
    if (g.status == OTF2_SUCCESS)
        generate(&g);
    close_writers(&g);
    if (g.status == OTF2_SUCCESS)
        write_local_defs(&g);
    if (g.status == OTF2_SUCCESS)
        write_global_defs(&g);
    check(&g, OTF2_Archive_Close(g.archive), "OTF2_Archive_Close");
    g.archive = NULL;
    if (g.status != OTF2_SUCCESS) {
        report_failure(&g);
        goto end;
    }
    if (opt->inject != INJECT_NONE && !g.injected) {
        fprintf(stderr,
                TOOL ": error: --inject: location 0 has fewer than %d events; raise --events\n",
                INJECT_POSITION);
        goto end;
    }
    if (opt->inject == INJECT_NONMONOTONIC && patch_marker(&g) != 0)
        goto end;
    if (opt->inject != INJECT_NONE)
        printf(TOOL ": injected %s at location 0, event %" PRIu64 "\n",
               inject_names[opt->inject - 1], g.position);
    status = 0;
end:
    if (g.archive != NULL)
        OTF2_Archive_Close(g.archive);
    OTF2_AttributeList_Delete(g.attributes);
    free(g.messages);
    free(g.locs);
    return status;
}

/* ---- Options ------------------------------------------------------------- */

static const char usage_text[] =
    "Usage: " TOOL " -o DIR [--ranks R] [--threads T] [--events N] [--seed S]\n"
    "                      [--inject KIND]\n"
    "\n"
    "Writes a synthetic OTF2 archive DIR/traces.otf2 (with DIR/traces.def and\n"
    "DIR/traces/): R MPI ranks of T OpenMP threads plus one metric location,\n"
    "deterministic for a seed. DIR is created if needed; an existing\n"
    "DIR/traces.otf2 is an error.\n"
    "\n"
    "Options: -o DIR         output directory\n"
    "         --ranks R      MPI ranks, 1 to 4096 (default 2)\n"
    "         --threads T    threads per rank, 1 to 256 (default 2)\n"
    "         --events N     approximate total event count (default 20000): whole\n"
    "                        iterations until N, so up to one iteration (~45 events\n"
    "                        per thread) more\n"
    "         --seed S       seed of the pseudo-random choices (default 1)\n"
    "         --inject KIND  one deliberate fault on location 0 at event 100:\n"
    "                        nonmonotonic, unknown-region or unknown-metric\n"
    "         --help, --version\n";

static int usage_error(const char* format, const char* detail) {
    fprintf(stderr, TOOL ": error: ");
    fprintf(stderr, format, detail);
    fprintf(stderr, "\n(try " TOOL " --help)\n");
    return 2;
}

/* Parses a decimal in [min, max]; returns 0 on success. */
static int parse_number(const char* text, uint64_t min, uint64_t max, uint64_t* out) {
    char* end = NULL;
    uint64_t v;
    if (text[0] < '0' || text[0] > '9')
        return -1;
    errno = 0;
    v = strtoull(text, &end, 10);
    if (errno != 0 || *end != '\0' || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

static int parse_inject(const char* text, int* out) {
    for (int i = 0; i < 3; i++)
        if (strcmp(text, inject_names[i]) == 0) {
            *out = INJECT_NONMONOTONIC + i;
            return 0;
        }
    return -1;
}

/* Applies option `name` with `value`; returns -1 to go on, else the exit
 * status. */
static int apply_option(options* o, const char* name, const char* value) {
    uint64_t v = 0;
    if (strcmp(name, "-o") == 0) {
        o->dir = value;
    } else if (strcmp(name, "--ranks") == 0 || strcmp(name, "--threads") == 0) {
        int ranks = name[2] == 'r';
        if (parse_number(value, 1, ranks ? MAX_RANKS : MAX_THREADS, &v) != 0)
            return usage_error(ranks ? "--ranks takes 1 to 4096, not '%s'"
                                     : "--threads takes 1 to 256, not '%s'",
                               value);
        *(ranks ? &o->ranks : &o->threads) = (uint32_t)v;
    } else if (strcmp(name, "--events") == 0) {
        if (parse_number(value, 1, UINT64_C(1) << 40, &o->events) != 0)
            return usage_error("--events takes a positive count, not '%s'", value);
    } else if (strcmp(name, "--seed") == 0) {
        if (parse_number(value, 0, UINT64_MAX, &o->seed) != 0)
            return usage_error("--seed takes an unsigned integer, not '%s'", value);
    } else if (strcmp(name, "--inject") == 0) {
        if (parse_inject(value, &o->inject) != 0)
            return usage_error(
                "--inject takes nonmonotonic, unknown-region or unknown-metric, not '%s'", value);
    } else {
        return usage_error("unknown option %s", name);
    }
    return -1;
}

/* Returns -1 to go on, else the exit status. */
static int parse_options(int argc, char** argv, options* o) {
    *o = (options){NULL, 2, 2, 20000, 1, INJECT_NONE};
    for (int i = 1; i < argc; i++) {
        const char* a = argv[i];
        int status;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(usage_text, stdout);
            return 0;
        }
        if (strcmp(a, "--version") == 0) {
            printf(TOOL " %s (OTF2 %s)\n", PACKAGE_VERSION, OTF2_VERSION);
            return 0;
        }
        if (i + 1 == argc)
            return a[0] == '-' ? usage_error("option %s needs a value", a)
                               : usage_error("unexpected argument '%s'", a);
        status = apply_option(o, a, argv[++i]);
        if (status >= 0)
            return status;
    }
    if (o->dir == NULL)
        return usage_error("%s", "no output directory (-o DIR)");
    return -1;
}

/* Creates DIR when missing; refuses an existing DIR/traces.otf2. */
static int prepare_dir(const char* dir) {
    char anchor[4096];
    struct stat st;
    if ((size_t)snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir) >= sizeof anchor) {
        fprintf(stderr, TOOL ": error: directory name too long: \"%s\"\n", dir);
        return -1;
    }
    if (stat(anchor, &st) == 0) {
        fprintf(stderr, TOOL ": error: \"%s\" exists; not overwriting an archive\n", anchor);
        return -1;
    }
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, TOOL ": error: cannot create directory \"%s\": %s\n", dir, strerror(errno));
        return -1;
    }
    return 0;
}

int main(int argc, char** argv) {
    options opt;
    int status = parse_options(argc, argv, &opt);
    if (status >= 0)
        return status;
    if (prepare_dir(opt.dir) != 0)
        return 1;
    return run(&opt);
}
