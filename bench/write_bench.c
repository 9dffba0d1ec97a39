/*
 * bench/write_bench.c - the write-path targets of DESIGN.md section 7,
 * measured in one run on one machine and printed as ratios against
 * baselines measured in the same run (absolute rates mean nothing across
 * machines; ratios do). Never part of `make check`: it prints, never fails
 * on a missed target. Exit 1 only when a measurement itself cannot be made.
 *
 * The workload: N push/pop ranges (the unit of every rate, for both
 * writers), names drawn from ~50 realistic region names, monotonic
 * nanosecond timestamps with log-uniform gaps from a seeded PRNG, nested up
 * to depth 4. It is generated once into memory before any timing, so the
 * timed loops only replay it.
 *
 * Measurements (each run 3 times, interleaved, best kept):
 *   write   helpers (nvtxwRangePushPopWriteUtf8) into Sink=report,
 *           Compression=3, versus OTF2's writer with the same events
 *           (Enter + Leave per range); both timed from open to close;
 *   scaling 2 threads on 2 streams of one session (N/2 ranges each) versus
 *           1 thread writing N;
 *   size    the finished .nvtxw versus the OTF2 archive and versus a compact
 *           Chrome Trace Event JSON of the same ranges;
 *   null    Sink=null (validation only), as a reference.
 */
#define _XOPEN_SOURCE 700

#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <otf2/otf2.h>

#include "nvtxw/nvtxw.h"

#define MAX_DEPTH 4
#define REPEATS 3
#define MAX_THREADS 2

/* Region names as they appear in HPC and ML traces; the mix of short and
 * long names matters for the JSON and OTF2 sizes. */
static const char* const NAMES[] = {"MPI_Allreduce",     "MPI_Isend",
                                    "MPI_Irecv",         "MPI_Waitall",
                                    "MPI_Barrier",       "MPI_Bcast",
                                    "MPI_Alltoall",      "compute_fluxes",
                                    "update_velocity",   "apply_boundary",
                                    "halo_exchange",     "pack_halo",
                                    "unpack_halo",       "timestep",
                                    "solver_iteration",  "cg_solve",
                                    "preconditioner",    "spmv",
                                    "dot_product",       "axpy",
                                    "assemble_matrix",   "compute_residual",
                                    "check_convergence", "write_checkpoint",
                                    "read_input",        "forward",
                                    "backward",          "optimizer_step",
                                    "allreduce_grads",   "data_loader_next",
                                    "h2d_copy",          "d2h_copy",
                                    "kernel_launch",     "cudaMemcpyAsync",
                                    "cudaStreamSync",    "attention",
                                    "layer_norm",        "matmul",
                                    "softmax",           "embedding_lookup",
                                    "loss_compute",      "fft_forward",
                                    "fft_inverse",       "particle_push",
                                    "neighbor_search",   "force_compute",
                                    "integrate",         "rebalance",
                                    "io_flush",          "init_mesh"};
#define NAME_COUNT (sizeof NAMES / sizeof NAMES[0])

/* One trace operation: enter region `name`, or leave (name < 0). */
typedef struct op {
    int64_t ts;
    int32_t name;
} op;

typedef struct trace {
    op* ops;
    size_t count;
    uint64_t ranges;
} trace;

static uint32_t name_length[NAME_COUNT];
static char temp_dir[4096]; /* removed on every exit path once set */

/* ---- Errors and files ---------------------------------------------------- */

static int remove_entry(const char* path, const struct stat* st, int type, struct FTW* ftw) {
    (void)st, (void)type, (void)ftw;
    return remove(path);
}

static void remove_tree(const char* path) {
    struct stat st;
    if (lstat(path, &st) == 0)
        nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static _Noreturn void fail(const char* format, ...) {
    va_list args;
    fputs("write_bench: error: ", stderr);
    va_start(args, format);
    vfprintf(stderr, format, args);
    va_end(args);
    fputc('\n', stderr);
    if (temp_dir[0] != '\0')
        remove_tree(temp_dir);
    exit(1);
}

static void* xmalloc(size_t size) {
    void* p = malloc(size);
    if (p == NULL)
        fail("cannot allocate %zu bytes", size);
    return p;
}

static uint64_t tree_bytes_total;

static int add_entry(const char* path, const struct stat* st, int type, struct FTW* ftw) {
    (void)path, (void)ftw;
    if (type == FTW_F)
        tree_bytes_total += (uint64_t)st->st_size;
    return 0;
}

/* Bytes of all regular files under `path` (a file or a directory). */
static uint64_t tree_bytes(const char* path) {
    tree_bytes_total = 0;
    if (nftw(path, add_entry, 16, FTW_PHYS) != 0)
        fail("cannot measure \"%s\": %s", path, strerror(errno));
    return tree_bytes_total;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- The workload -------------------------------------------------------- */

static uint64_t splitmix64(uint64_t* state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

/* Log-uniform gaps from 20 ns to ~32 us: short calls next to long phases,
 * so range durations spread over three orders of magnitude. */
static int64_t next_gap(uint64_t* rng) {
    uint64_t r = splitmix64(rng);
    unsigned shift = 4 + (unsigned)(r % 12);
    return 20 + (int64_t)((r >> 8) & ((1u << shift) - 1));
}

/* A random walk over nesting depth 0..MAX_DEPTH; always ends at depth 0. */
static trace trace_make(uint64_t ranges, uint64_t seed) {
    trace tr = {xmalloc(2 * ranges * sizeof(op)), 0, ranges};
    uint64_t rng = seed, pushed = 0;
    int64_t ts = INT64_C(259200000000000); /* 3 days of uptime, as a CLOCK_MONOTONIC value */
    int depth = 0;
    while (pushed < ranges || depth > 0) {
        uint64_t r = splitmix64(&rng);
        int push = pushed < ranges && (depth == 0 || (depth < MAX_DEPTH && (r & 1) != 0));
        ts += next_gap(&rng);
        tr.ops[tr.count].ts = ts;
        tr.ops[tr.count].name = push ? (int32_t)((r >> 1) % NAME_COUNT) : -1;
        tr.count++;
        depth += push ? 1 : -1;
        pushed += (uint64_t)push;
    }
    return tr;
}

/* ---- nvtxw --------------------------------------------------------------- */

static const nvtxwInterface_t* iface;

typedef struct worker {
    nvtxwEventWriter_t writer;
    const trace* tr;
    char error[512]; /* "" on success; copied here because errors are thread-local */
} worker;

/* Ranges are written when they end (as a tracer learns them), one call each. */
static nvtxwResultCode_t replay_nvtxw(const nvtxwEventWriter_t* writer, const trace* tr) {
    int64_t begin[MAX_DEPTH];
    int32_t name[MAX_DEPTH];
    int depth = 0;
    for (size_t i = 0; i < tr->count; i++) {
        const op* o = &tr->ops[i];
        nvtxwEventAttributesUtf8_t attr = {0, 0, 0, NULL};
        nvtxwResultCode_t result;
        if (o->name >= 0) {
            begin[depth] = o->ts;
            name[depth++] = o->name;
            continue;
        }
        depth--;
        attr.message = NAMES[name[depth]];
        attr.messageLength = name_length[name[depth]];
        result = nvtxwRangePushPopWriteUtf8(writer, begin[depth], o->ts, attr);
        if (result != NVTXW_RESULT_SUCCESS)
            return result;
    }
    return NVTXW_RESULT_SUCCESS;
}

static void* worker_main(void* arg) {
    worker* w = arg;
    nvtxwResultCode_t result = replay_nvtxw(&w->writer, w->tr);
    if (result != NVTXW_RESULT_SUCCESS)
        snprintf(w->error, sizeof w->error, "write failed (%d): %s", (int)result,
                 nvtxw_last_error());
    return NULL;
}

static void check_nvtxw(nvtxwResultCode_t result, const char* what) {
    if (result != NVTXW_RESULT_SUCCESS)
        fail("%s failed (%d): %s", what, (int)result, nvtxw_last_error());
}

/* One helper writer per stream; the schemas are registered once per domain,
 * as helpers.h recommends for several streams. */
static void open_writers(nvtxwSessionHandle_t session, worker* workers, int count) {
    nvtxDomainHandle_t domain = NULL;
    nvtxwEventHelperSchemaIds_t ids;
    check_nvtxw(nvtxwDomainRegister(iface, session, "bench", &domain), "DomainRegister");
    check_nvtxw(nvtxwEventSchemasRegister(iface, domain, NVTXW_EVENT_HELPER_SCHEMA_ALL, &ids),
                "nvtxwEventSchemasRegister");
    for (int i = 0; i < count; i++) {
        nvtxwStreamHandle_t stream = NULL;
        char name[32];
        snprintf(name, sizeof name, "thread-%d", i);
        check_nvtxw(
            nvtxwStreamOpen(iface, session, name, domain, NULL, NVTX_TIME_DOMAIN_ID_NONE, &stream),
            "nvtxwStreamOpen");
        check_nvtxw(nvtxwEventWriterInit(&workers[i].writer, iface, stream, &ids),
                    "nvtxwEventWriterInit");
    }
}

static void run_workers(worker* workers, int count) {
    pthread_t threads[MAX_THREADS];
    for (int i = 0; i < count; i++)
        if (pthread_create(&threads[i], NULL, worker_main, &workers[i]) != 0)
            fail("cannot create a thread");
    for (int i = 0; i < count; i++)
        pthread_join(threads[i], NULL);
    for (int i = 0; i < count; i++)
        if (workers[i].error[0] != '\0')
            fail("thread %d: %s", i, workers[i].error);
}

/* One session, one stream and thread per trace; returns the seconds from
 * SessionBegin to SessionEnd (the report is complete and renamed then). */
static double run_nvtxw(const char* config, const trace* traces, int count) {
    nvtxwSessionAttributes_t attr;
    nvtxwSessionHandle_t session = NULL;
    worker workers[MAX_THREADS];
    double start = now();
    memset(workers, 0, sizeof workers);
    nvtxwSessionAttributesInit(&attr);
    attr.name = "write_bench";
    attr.configString = config;
    check_nvtxw(iface->SessionBegin(&attr, &session), "SessionBegin");
    open_writers(session, workers, count);
    for (int i = 0; i < count; i++)
        workers[i].tr = &traces[i];
    run_workers(workers, count);
    for (int i = 0; i < count; i++)
        check_nvtxw(iface->StreamClose(workers[i].writer.stream), "StreamClose");
    check_nvtxw(iface->SessionEnd(session), "SessionEnd");
    return now() - start;
}

/* ---- OTF2 ---------------------------------------------------------------- */

static void check_otf2(OTF2_ErrorCode code, const char* what) {
    if (code != OTF2_SUCCESS)
        fail("%s failed: %s: %s", what, OTF2_Error_GetName(code), OTF2_Error_GetDescription(code));
}

static OTF2_FlushType pre_flush(void* user, OTF2_FileType type, OTF2_LocationRef location,
                                void* caller, bool final) {
    (void)user, (void)type, (void)location, (void)caller, (void) final;
    return OTF2_FLUSH;
}

/* No post-flush callback: OTF2 then writes no BufferFlush records, so the
 * archive holds exactly the workload's events. */
static OTF2_FlushCallbacks flush_callbacks = {pre_flush, NULL};

static void replay_otf2(OTF2_EvtWriter* writer, const trace* tr) {
    OTF2_RegionRef stack[MAX_DEPTH];
    int depth = 0;
    for (size_t i = 0; i < tr->count; i++) {
        const op* o = &tr->ops[i];
        OTF2_ErrorCode code;
        if (o->name >= 0) {
            stack[depth++] = (OTF2_RegionRef)o->name;
            code = OTF2_EvtWriter_Enter(writer, NULL, (OTF2_TimeStamp)o->ts, stack[depth - 1]);
        } else {
            code = OTF2_EvtWriter_Leave(writer, NULL, (OTF2_TimeStamp)o->ts, stack[--depth]);
        }
        if (code != OTF2_SUCCESS)
            check_otf2(code, "OTF2_EvtWriter_Enter/Leave");
    }
}

/* String 0 is "", 1..NAME_COUNT the region names, then the system tree's. */
static void write_definitions(OTF2_GlobalDefWriter* defs, const trace* tr) {
    const OTF2_StringRef machine = NAME_COUNT + 1, process = NAME_COUNT + 2,
                         thread = NAME_COUNT + 3;
    uint64_t first = (uint64_t)tr->ops[0].ts, last = (uint64_t)tr->ops[tr->count - 1].ts;
    check_otf2(OTF2_GlobalDefWriter_WriteClockProperties(defs, 1000000000, first, last - first,
                                                         OTF2_UNDEFINED_TIMESTAMP),
               "WriteClockProperties");
    check_otf2(OTF2_GlobalDefWriter_WriteString(defs, 0, ""), "WriteString");
    for (uint32_t i = 0; i < NAME_COUNT; i++)
        check_otf2(OTF2_GlobalDefWriter_WriteString(defs, i + 1, NAMES[i]), "WriteString");
    check_otf2(OTF2_GlobalDefWriter_WriteString(defs, machine, "node0"), "WriteString");
    check_otf2(OTF2_GlobalDefWriter_WriteString(defs, process, "process 0"), "WriteString");
    check_otf2(OTF2_GlobalDefWriter_WriteString(defs, thread, "thread 0"), "WriteString");
    for (uint32_t i = 0; i < NAME_COUNT; i++)
        check_otf2(OTF2_GlobalDefWriter_WriteRegion(defs, i, i + 1, i + 1, 0,
                                                    OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER,
                                                    OTF2_REGION_FLAG_NONE, 0, 0, 0),
                   "WriteRegion");
    check_otf2(OTF2_GlobalDefWriter_WriteSystemTreeNode(defs, 0, machine, machine,
                                                        OTF2_UNDEFINED_SYSTEM_TREE_NODE),
               "WriteSystemTreeNode");
    check_otf2(OTF2_GlobalDefWriter_WriteLocationGroup(defs, 0, process,
                                                       OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                       OTF2_UNDEFINED_LOCATION_GROUP),
               "WriteLocationGroup");
    check_otf2(OTF2_GlobalDefWriter_WriteLocation(defs, 0, thread, OTF2_LOCATION_TYPE_CPU_THREAD,
                                                  2 * tr->ranges, 0),
               "WriteLocation");
}

/* Events of location 0, then its (empty) local definitions, as a serial
 * OTF2 producer closes them. */
static void write_location(OTF2_Archive* archive, const trace* tr) {
    OTF2_EvtWriter* events;
    OTF2_DefWriter* local;
    check_otf2(OTF2_Archive_OpenEvtFiles(archive), "OTF2_Archive_OpenEvtFiles");
    events = OTF2_Archive_GetEvtWriter(archive, 0);
    if (events == NULL)
        fail("OTF2_Archive_GetEvtWriter failed");
    replay_otf2(events, tr);
    check_otf2(OTF2_Archive_CloseEvtWriter(archive, events), "OTF2_Archive_CloseEvtWriter");
    check_otf2(OTF2_Archive_CloseEvtFiles(archive), "OTF2_Archive_CloseEvtFiles");
    check_otf2(OTF2_Archive_OpenDefFiles(archive), "OTF2_Archive_OpenDefFiles");
    local = OTF2_Archive_GetDefWriter(archive, 0);
    if (local == NULL)
        fail("OTF2_Archive_GetDefWriter failed");
    check_otf2(OTF2_Archive_CloseDefWriter(archive, local), "OTF2_Archive_CloseDefWriter");
    check_otf2(OTF2_Archive_CloseDefFiles(archive), "OTF2_Archive_CloseDefFiles");
}

/* A complete archive "trace" in directory `path` (created fresh); returns
 * the seconds from OTF2_Archive_Open to OTF2_Archive_Close. */
static double run_otf2(const char* path, const trace* tr) {
    OTF2_Archive* archive;
    OTF2_GlobalDefWriter* defs;
    double start;
    remove_tree(path);
    start = now();
    archive = OTF2_Archive_Open(path, "trace", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                                OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (archive == NULL)
        fail("OTF2_Archive_Open(\"%s\") failed", path);
    check_otf2(OTF2_Archive_SetFlushCallbacks(archive, &flush_callbacks, NULL),
               "OTF2_Archive_SetFlushCallbacks");
    check_otf2(OTF2_Archive_SetSerialCollectiveCallbacks(archive),
               "OTF2_Archive_SetSerialCollectiveCallbacks");
    write_location(archive, tr);
    defs = OTF2_Archive_GetGlobalDefWriter(archive);
    if (defs == NULL)
        fail("OTF2_Archive_GetGlobalDefWriter failed");
    write_definitions(defs, tr);
    check_otf2(OTF2_Archive_Close(archive), "OTF2_Archive_Close");
    return now() - start;
}

/* ---- Chrome Trace Event JSON --------------------------------------------- */

/* Microseconds with 3 decimals from nanoseconds (non-negative). */
static void put_us(FILE* out, int64_t ns) {
    fprintf(out, "%" PRId64 ".%03d", ns / 1000, (int)(ns % 1000));
}

/* The most compact form a Chrome exporter would write: one "X" event per
 * range, in the order the ranges end, ts relative to the trace start (which
 * keeps the numbers short: the conservative choice for our ratio). */
static void write_chrome(const char* path, const trace* tr) {
    FILE* out = fopen(path, "w");
    int64_t begin[MAX_DEPTH], origin = tr->ops[0].ts;
    int32_t name[MAX_DEPTH];
    int depth = 0, first = 1;
    if (out == NULL)
        fail("cannot create \"%s\": %s", path, strerror(errno));
    fputs("{\"traceEvents\":[", out);
    for (size_t i = 0; i < tr->count; i++) {
        const op* o = &tr->ops[i];
        if (o->name >= 0) {
            begin[depth] = o->ts;
            name[depth++] = o->name;
            continue;
        }
        depth--;
        fprintf(out, "%s{\"name\":\"%s\",\"ph\":\"X\",\"ts\":", first ? "" : ",",
                NAMES[name[depth]]);
        put_us(out, begin[depth] - origin);
        fputs(",\"dur\":", out);
        put_us(out, o->ts - begin[depth]);
        fputs(",\"pid\":1,\"tid\":1}", out);
        first = 0;
    }
    fputs("]}\n", out);
    if (ferror(out) || fclose(out) != 0)
        fail("cannot write \"%s\"", path);
}

/* ---- Report -------------------------------------------------------------- */

typedef struct results {
    double write[REPEATS], otf2[REPEATS], two[REPEATS], null[REPEATS];
    uint64_t nvtxw_bytes, otf2_bytes, json_bytes;
} results;

static double best(const double* seconds) {
    double b = seconds[0];
    for (int i = 1; i < REPEATS; i++)
        if (seconds[i] < b)
            b = seconds[i];
    return b;
}

static void print_loadavg(const char* when) {
    char line[128] = "unavailable";
    FILE* in = fopen("/proc/loadavg", "r");
    if (in != NULL) {
        if (fgets(line, sizeof line, in) == NULL)
            strcpy(line, "unavailable");
        fclose(in);
    }
    line[strcspn(line, "\n")] = '\0';
    printf("machine  %ld cores online, /proc/loadavg %s: %s\n", sysconf(_SC_NPROCESSORS_ONLN), when,
           line);
}

static const char* verdict(int ok) { return ok ? "OK" : "MISSED"; }

static void print_table(const results* r, uint64_t n) {
    double write = n / best(r->write) / 1e6, otf2 = n / best(r->otf2) / 1e6;
    double two = n / best(r->two) / 1e6, null = n / best(r->null) / 1e6;
    double vs_otf2 = (double)r->nvtxw_bytes / (double)r->otf2_bytes;
    double json_factor = (double)r->json_bytes / (double)r->nvtxw_bytes;
    printf("\n%" PRIu64 " ranges, best of %d runs, rates in M ranges/s, sizes in MB (1e6 B)\n", n,
           REPEATS);
    printf("write    nvtxw %6.2f M ranges/s  otf2 %6.2f M ranges/s  ratio %5.2fx "
           "(target >= 2.0x) %s\n",
           write, otf2, write / otf2, verdict(write / otf2 >= 2.0));
    printf("scaling  1 thread %6.2f M ranges/s  2 threads %6.2f M ranges/s  ratio %5.2fx "
           "(target >= 1.8x) %s\n",
           write, two, two / write, verdict(two / write >= 1.8));
    printf("size     nvtxw %8.2f MB  otf2 %8.2f MB  ratio %5.3fx (target <= 0.5x) %s\n",
           r->nvtxw_bytes / 1e6, r->otf2_bytes / 1e6, vs_otf2, verdict(vs_otf2 <= 0.5));
    printf("size     nvtxw %8.2f MB  chrome json %8.2f MB  ratio 1/%.1f (target <= 1/20) %s\n",
           r->nvtxw_bytes / 1e6, r->json_bytes / 1e6, json_factor, verdict(json_factor >= 20.0));
    printf("null     nvtxw Sink=null %6.2f M ranges/s (reference: validation only; report "
           "sink runs at %.2fx of it)\n",
           null, write / null);
    printf("bytes    %.2f B/range in .nvtxw, %.2f in OTF2, %.2f in JSON\n",
           (double)r->nvtxw_bytes / n, (double)r->otf2_bytes / n, (double)r->json_bytes / n);
}

/* ---- Driver -------------------------------------------------------------- */

typedef struct options {
    uint64_t ranges;
    uint64_t seed;
    const char* dir;
    int keep;
} options;

static void usage(FILE* out) {
    fputs("usage: write_bench [-n RANGES] [-s SEED] [-d DIR] [-k]\n"
          "  -n RANGES  ranges per measurement (default 5000000)\n"
          "  -s SEED    workload PRNG seed (default 42)\n"
          "  -d DIR     parent of the temporary directory (default $TMPDIR or /tmp)\n"
          "  -k         keep the outputs (last run of each) for inspection\n",
          out);
}

static options parse_options(int argc, char** argv) {
    options opt = {5000000, 42, getenv("TMPDIR"), 0};
    int c;
    while ((c = getopt(argc, argv, "n:s:d:kh")) != -1) {
        char* end = NULL;
        if (c == 'n' || c == 's') {
            uint64_t v = strtoull(optarg, &end, 10);
            if (end == optarg || *end != '\0' || (c == 'n' && v < 2)) {
                fprintf(stderr, "write_bench: error: bad value \"%s\" for -%c\n", optarg, c);
                exit(2);
            }
            *(c == 'n' ? &opt.ranges : &opt.seed) = v;
        } else if (c == 'd') {
            opt.dir = optarg;
        } else if (c == 'k') {
            opt.keep = 1;
        } else {
            usage(c == 'h' ? stdout : stderr);
            exit(c == 'h' ? 0 : 2);
        }
    }
    if (opt.dir == NULL || opt.dir[0] == '\0')
        opt.dir = "/tmp";
    return opt;
}

static void setup(const options* opt) {
    const void* table = NULL;
    for (size_t i = 0; i < NAME_COUNT; i++)
        name_length[i] = (uint32_t)strlen(NAMES[i]);
    if (nvtxwGetInterface(NVTXW_INTERFACE_VERSION, &table) != NVTXW_RESULT_SUCCESS)
        fail("nvtxwGetInterface failed: %s", nvtxw_last_error());
    iface = table;
    if ((size_t)snprintf(temp_dir, sizeof temp_dir, "%s/write_bench.XXXXXX", opt->dir) >=
        sizeof temp_dir)
        fail("directory name too long: \"%s\"", opt->dir);
    if (mkdtemp(temp_dir) == NULL) {
        int err = errno;
        char name[sizeof temp_dir];
        strcpy(name, temp_dir);
        temp_dir[0] = '\0';
        fail("cannot create \"%s\": %s", name, strerror(err));
    }
}

static void print_run(const char* what, int run, uint64_t ranges, double seconds) {
    printf("run %d  %-28s %7.3f s  %6.2f M ranges/s\n", run + 1, what, seconds,
           ranges / seconds / 1e6);
    fflush(stdout);
}

/* Interleaves the measurements so a change of machine load hits them all. */
static void measure(const trace* full, const trace* halves, results* r) {
    char report[4200], report2[4200], otf2[4200], config[8500], config2[8500];
    snprintf(report, sizeof report, "%s/bench.nvtxw", temp_dir);
    snprintf(report2, sizeof report2, "%s/bench2.nvtxw", temp_dir);
    snprintf(otf2, sizeof otf2, "%s/otf2", temp_dir);
    snprintf(config, sizeof config, "Sink=report|Output=%s|Overwrite=yes|Compression=3", report);
    snprintf(config2, sizeof config2, "Sink=report|Output=%s|Overwrite=yes|Compression=3", report2);
    for (int i = 0; i < REPEATS; i++) {
        r->write[i] = run_nvtxw(config, full, 1);
        print_run("nvtxw report, 1 thread", i, full->ranges, r->write[i]);
        r->otf2[i] = run_otf2(otf2, full);
        print_run("otf2", i, full->ranges, r->otf2[i]);
        r->two[i] = run_nvtxw(config2, halves, 2);
        print_run("nvtxw report, 2 threads", i, full->ranges, r->two[i]);
        r->null[i] = run_nvtxw("Sink=null", full, 1);
        print_run("nvtxw null, 1 thread", i, full->ranges, r->null[i]);
    }
    r->nvtxw_bytes = tree_bytes(report);
    r->otf2_bytes = tree_bytes(otf2);
}

int main(int argc, char** argv) {
    options opt = parse_options(argc, argv);
    trace full, halves[2];
    results r;
    char json[4200];
    double start = now();
    setup(&opt);
    print_loadavg("at start");
    full = trace_make(opt.ranges, opt.seed);
    halves[0] = trace_make(opt.ranges / 2, opt.seed + 1);
    halves[1] = trace_make(opt.ranges - opt.ranges / 2, opt.seed + 2);
    printf("workload %" PRIu64 " ranges, %zu names, depth <= %d, %.3f s of trace time, "
           "seed %" PRIu64 "\n",
           full.ranges, NAME_COUNT, MAX_DEPTH, (full.ops[full.count - 1].ts - full.ops[0].ts) / 1e9,
           opt.seed);
    measure(&full, halves, &r);
    snprintf(json, sizeof json, "%s/bench.json", temp_dir);
    write_chrome(json, &full);
    r.json_bytes = tree_bytes(json);
    print_loadavg("at end");
    print_table(&r, opt.ranges);
    printf("total    %.1f s\n", now() - start);
    if (opt.keep)
        printf("kept     %s\n", temp_dir);
    else
        remove_tree(temp_dir);
    free(full.ops), free(halves[0].ops), free(halves[1].ops);
    nvtxwFinalize();
    return 0;
}
