/*
 * tests/gen/otf2_gen.h - internals of nvtxw-otf2-gen, shared by its files
 * (otf2_gen.c says what the archive holds):
 *   otf2_gen.c         options, errors (gen_check), the archive and its
 *                      event writers, the run;
 *   otf2_gen_events.c  the events, drawn from a seeded splitmix64, with one
 *                      clock per location;
 *   otf2_gen_defs.c    the local and global definitions.
 * A run (run() in otf2_gen.c) opens the event writers, calls gen_generate,
 * closes the writers, then calls gen_write_local_defs and
 * gen_write_global_defs: the definitions come last because they declare
 * what the events determine (the event count of every location, the end
 * of the clock). Every OTF2 call's result goes to gen_check; g->status
 * keeps the first failure, and run() skips the writing steps after one.
 */
#ifndef NVTXW_OTF2_GEN_H
#define NVTXW_OTF2_GEN_H

#include <otf2/otf2.h>
#include <stdint.h>

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

/* Records the first failure of an OTF2 call in g->status and g->failed;
 * later failures are dropped. `what` names the call and must outlive `g`
 * (a string literal). */
void gen_check(gen* g, OTF2_ErrorCode code, const char* what);

/* Writes every event (otf2_gen.c's list): the prologue, whole iterations
 * until g->opt.events are written, the epilogue. Needs `g` set up as run()
 * does (event writers open, g->rng and g->next_sample seeded); after a
 * failure it writes no further iteration. Leaves each location's event count, g->end (the latest
 * clock) and, for --inject, g->injected, g->position, g->marker and g->bad_time. */
void gen_generate(gen* g);

/* Writes each location's two local ClockOffset definitions; needs g->end,
 * so runs after gen_generate. Opens and closes the local definition files. */
void gen_write_local_defs(gen* g);

/* Writes the global definitions; needs the final event counts and g->end,
 * so runs after gen_generate. */
void gen_write_global_defs(gen* g);

#endif /* NVTXW_OTF2_GEN_H */
