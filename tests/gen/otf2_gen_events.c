/*
 * tests/gen/otf2_gen_events.c - the events of nvtxw-otf2-gen (otf2_gen.c
 * lists them). Every event goes through put(), which counts it per location
 * and in total, and takes one timestamp from stamp() or stamp_after(), which
 * never move a location's clock backwards; inject_here() places the --inject
 * fault. The random choices come from one splitmix64 in a fixed order, so
 * the events depend only on the options.
 */
#include "config.h"

#include <stddef.h>

#include "otf2_gen.h"

/* ---- Accounting, randomness, time ---------------------------------------- */

/* Accounts one event written on `l`. */
static void put(gen* g, loc* l, OTF2_ErrorCode code, const char* what) {
    gen_check(g, code, what);
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
    gen_check(g, OTF2_AttributeList_AddUint32(g->attributes, A_LINE, 10 + below(g, 990)),
              "AttributeList_AddUint32");
    gen_check(g, OTF2_AttributeList_AddStringRef(g->attributes, A_FILE, S_SOURCE),
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

void gen_generate(gen* g) {
    prologue(g);
    do
        iteration(g);
    while (g->status == OTF2_SUCCESS && g->total < g->opt.events);
    epilogue(g);
}
