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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "otf2_gen.h"

#define TOOL "nvtxw-otf2-gen"
#define MAX_RANKS 4096
#define MAX_THREADS 256

static const char* const inject_names[] = {"nonmonotonic", "unknown-region", "unknown-metric"};

/* ---- Errors -------------------------------------------------------------- */

/* Records the first failure; later calls go on harmlessly and the driver
 * checks g->status once per iteration. */
void gen_check(gen* g, OTF2_ErrorCode code, const char* what) {
    if (code != OTF2_SUCCESS && g->status == OTF2_SUCCESS) {
        g->status = code;
        g->failed = what;
    }
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
    gen_check(g, OTF2_Archive_SetFlushCallbacks(g->archive, &flush_callbacks, NULL),
              "OTF2_Archive_SetFlushCallbacks");
    gen_check(g, OTF2_Archive_SetMemoryCallbacks(g->archive, &memory_callbacks, NULL),
              "OTF2_Archive_SetMemoryCallbacks");
    gen_check(g, OTF2_Archive_SetSerialCollectiveCallbacks(g->archive),
              "OTF2_Archive_SetSerialCollectiveCallbacks");
    gen_check(g, OTF2_Archive_SetCreator(g->archive, TOOL " " PACKAGE_VERSION),
              "OTF2_Archive_SetCreator");
    gen_check(g, OTF2_Archive_SetMachineName(g->archive, "machine"), "OTF2_Archive_SetMachineName");
    gen_check(g, OTF2_Archive_SetDescription(g->archive, "synthetic MPI+OpenMP trace"),
              "OTF2_Archive_SetDescription");
    gen_check(g, OTF2_Archive_OpenEvtFiles(g->archive), "OTF2_Archive_OpenEvtFiles");
    for (uint32_t i = 0; i < g->location_count && g->status == OTF2_SUCCESS; i++) {
        g->locs[i].id = i;
        g->locs[i].now = GLOBAL_OFFSET + 1000;
        g->locs[i].writer = OTF2_Archive_GetEvtWriter(g->archive, i);
        if (g->locs[i].writer == NULL)
            gen_check(g, OTF2_ERROR_PROCESSED_WITH_FAULTS, "OTF2_Archive_GetEvtWriter");
    }
}

/* Closes the event writers after checking OTF2 counted what we declare. */
static void close_writers(gen* g) {
    for (uint32_t i = 0; i < g->location_count; i++) {
        uint64_t counted = 0;
        if (g->locs[i].writer == NULL)
            continue;
        gen_check(g, OTF2_EvtWriter_GetNumberOfEvents(g->locs[i].writer, &counted),
                  "OTF2_EvtWriter_GetNumberOfEvents");
        if (counted != g->locs[i].events)
            gen_check(g, OTF2_ERROR_INTEGRITY_FAULT, "counting events");
        gen_check(g, OTF2_Archive_CloseEvtWriter(g->archive, g->locs[i].writer),
                  "OTF2_Archive_CloseEvtWriter");
    }
    gen_check(g, OTF2_Archive_CloseEvtFiles(g->archive), "OTF2_Archive_CloseEvtFiles");
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
        gen_generate(&g);
    close_writers(&g);
    if (g.status == OTF2_SUCCESS)
        gen_write_local_defs(&g);
    if (g.status == OTF2_SUCCESS)
        gen_write_global_defs(&g);
    gen_check(&g, OTF2_Archive_Close(g.archive), "OTF2_Archive_Close");
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
