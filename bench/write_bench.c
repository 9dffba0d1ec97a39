/*
 * bench/write_bench.c - the write and read targets of DESIGN.md section 7
 * (issue 12), measured in one run on one machine and printed as ratios
 * against baselines measured in the same run (absolute rates mean nothing
 * across machines; ratios do). Never part of `make check`: it prints OK or
 * MISSED, never fails on a missed target. Exit 1 only when a measurement
 * itself cannot be made (an API call fails, or what is read back is not
 * what was written).
 *
 * The workload: N push/pop ranges, names drawn from 50 realistic region
 * names, monotonic nanosecond timestamps with log-uniform gaps from a
 * seeded PRNG, nested up to depth 4. From it: the profiler trace (the same
 * operations with a mark as every 8th and a counter sample as every 16th
 * event), two halves for 2 threads and 8 streams for the merged read, each
 * from its own seed. All are generated before any timing, so the timed
 * loops only replay them.
 *
 * Measurements (each REPEATS times, interleaved, best kept; bench/README.md
 * describes every printed line):
 *   write-reg   nvtxwRangePushPopWrite (registered strings), Sink=report,
 *               default compression, vs OTF2's writer (Enter + Leave);
 *   write-utf8  the same with nvtxwRangePushPopWriteUtf8, vs OTF2;
 *   profiler    split push/pop, marks and int64 counter samples, vs OTF2
 *               Enter/Leave, ParameterString and Metric;
 *   scaling     2 threads on 2 streams (N/2 each) vs 1 thread (write-reg),
 *               both with CompressionThreads=0;
 *   null        Sink=null (write-reg workload) vs OTF2's writer;
 *   bytes       the write-reg report vs the OTF2 archive and a compact
 *               Chrome JSON;
 *   read        the write-reg report through the reader, every payload
 *               visited, vs OTF2's reader on the archive;
 *   merge       an 8-stream report read in time order vs OTF2's global
 *               event reader on an 8-location archive;
 *   time        per range, all on the writer's thread (CompressionThreads=0):
 *               Sink=null (the core); Sink=report at Compression=-7 minus
 *               that (encoding, writing and the cheapest compression); the
 *               default level minus that (a difference of two runs, which
 *               noise can make negative); and what the default run (with
 *               its compression thread) leaves on the writer's thread.
 */
#define _XOPEN_SOURCE 700

#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "write_bench.h"

#define REPEATS 3
/* The cheapest report setting: the library has no "store uncompressed"
 * option (docs/config.md: Compression is a zstd level, -7 to 22). */
#define FAST_COMPRESSION "-7"

/* Region names as they appear in HPC and ML traces; the mix of short and
 * long names matters for the JSON and OTF2 sizes. */
const char* const NAMES[] = {"MPI_Allreduce",     "MPI_Isend",
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
#define NAMES_LENGTH (sizeof NAMES / sizeof NAMES[0])
const uint32_t NAME_COUNT = NAMES_LENGTH;
uint32_t name_length[NAMES_LENGTH];

static char temp_dir[4096]; /* removed on every exit path once set */

/* ---- Errors and files ---------------------------------------------------- */

static int remove_entry(const char* path, const struct stat* st, int type, struct FTW* ftw) {
    (void)st, (void)type, (void)ftw;
    return remove(path);
}

void remove_tree(const char* path) {
    struct stat st;
    if (lstat(path, &st) == 0)
        nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

_Noreturn void fail(const char* format, ...) {
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

void* xmalloc(size_t size) {
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

double now(void) {
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
    trace tr = {xmalloc(2 * ranges * sizeof(op)), 0, ranges, 0, 0};
    uint64_t rng = seed, pushed = 0;
    int64_t ts = INT64_C(259200000000000); /* 3 days of uptime, as a CLOCK_MONOTONIC value */
    int depth = 0;
    while (pushed < ranges || depth > 0) {
        uint64_t r = splitmix64(&rng);
        int push = pushed < ranges && (depth == 0 || (depth < MAX_DEPTH && (r & 1) != 0));
        op* o = &tr.ops[tr.count++];
        ts += next_gap(&rng);
        o->ts = ts;
        o->value = 0;
        o->name = push ? (int32_t)((r >> 1) % NAME_COUNT) : -1;
        o->kind = push ? OP_ENTER : OP_LEAVE;
        depth += push ? 1 : -1;
        pushed += (uint64_t)push;
    }
    return tr;
}

/* The profiler trace: `tr`'s operations with an instant as every 8th event,
 * halfway between its neighbours in time: a counter sample as every 16th
 * (a random walk around 1 GiB, like a heap gauge), a mark otherwise (a
 * random name). */
static trace profile_make(const trace* tr, uint64_t seed) {
    trace pt = {xmalloc((tr->count + tr->count / 7 + 2) * sizeof(op)), 0, tr->ranges, 0, 0};
    uint64_t rng = seed;
    int64_t prev = tr->ops[0].ts, gauge = INT64_C(1) << 30;
    for (size_t i = 0; i < tr->count; i++) {
        if ((pt.count + 1) % 8 == 0) {
            uint64_t r = splitmix64(&rng);
            op* o = &pt.ops[pt.count++];
            o->ts = prev + (tr->ops[i].ts - prev) / 2;
            o->name = (int32_t)(r % NAME_COUNT);
            o->kind = pt.count % 16 == 0 ? OP_SAMPLE : OP_MARK;
            gauge += (int64_t)(r >> 44) - (INT64_C(1) << 19);
            o->value = o->kind == OP_SAMPLE ? gauge : 0;
            *(o->kind == OP_SAMPLE ? &pt.samples : &pt.marks) += 1;
        }
        pt.ops[pt.count++] = tr->ops[i];
        prev = tr->ops[i].ts;
    }
    return pt;
}

/* Modulo 2^64, as the readers' sums. */
static uint64_t ts_sum(const trace* traces, int count) {
    uint64_t sum = 0;
    for (int t = 0; t < count; t++)
        for (size_t i = 0; i < traces[t].count; i++)
            sum += (uint64_t)traces[t].ops[i].ts;
    return sum;
}

static uint64_t region_sum(const trace* tr) {
    uint64_t sum = 0;
    for (size_t i = 0; i < tr->count; i++)
        if (tr->ops[i].kind == OP_ENTER)
            sum += 2 * (uint64_t)tr->ops[i].name; /* Enter and Leave */
    return sum;
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
        if (o->kind == OP_ENTER) {
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

/* ---- Measurements -------------------------------------------------------- */

/* The runs of one repetition, in the order they run. */
enum {
    R_REG,        /* nvtxw report, registered strings, 1 thread */
    R_OTF2,       /* OTF2 writer, the range trace */
    R_UTF8,       /* nvtxw report, UTF-8 messages */
    R_PROFILE,    /* nvtxw report, the profiler trace */
    R_OTF2_PROF,  /* OTF2 writer, the profiler trace */
    R_TWO,        /* nvtxw report, 2 threads on 2 streams, CompressionThreads=0 */
    R_NULL,       /* nvtxw Sink=null */
    R_FAST,       /* nvtxw report, Compression=FAST_COMPRESSION, CompressionThreads=0 */
    R_SYNC,       /* nvtxw report, default level, CompressionThreads=0 */
    R_READ,       /* nvtxw reader, the R_REG report, payloads as structs */
    R_READ_VISIT, /* the same through the generic payload visitor */
    R_OTF2_READ,  /* OTF2 reader, the R_OTF2 archive */
    R_MERGE,      /* nvtxw reader, 8 streams, time order */
    R_OTF2_MERGE, /* OTF2 global event reader, 8 locations */
    RUN_KINDS
};

typedef struct workloads {
    trace full, profile, halves[2], merge[MERGE_STREAMS];
} workloads;

typedef struct results {
    double seconds[RUN_KINDS][REPEATS];
    uint64_t nvtxw_bytes, otf2_bytes, json_bytes, merge_events;
} results;

typedef struct paths {
    char reg[4200], utf8[4200], profile[4200], two[4200], fast[4200], merge[4200];
    char otf2[4200], otf2_profile[4200], otf2_merge[4200];
} paths;

static double best(const results* r, int kind) {
    double b = r->seconds[kind][0];
    for (int i = 1; i < REPEATS; i++)
        if (r->seconds[kind][i] < b)
            b = r->seconds[kind][i];
    return b;
}

static void print_run(const char* what, int run, uint64_t units, const char* unit, double seconds) {
    printf("run %d  %-34s %7.3f s  %6.2f M %s/s\n", run + 1, what, seconds, units / seconds / 1e6,
           unit);
    fflush(stdout);
}

static const char* report_config_with(char* buf, size_t size, const char* output,
                                      const char* compression, const char* extra) {
    if ((size_t)snprintf(buf, size, "Sink=report|Output=%s|Overwrite=yes%s%s%s", output,
                         compression != NULL ? "|Compression=" : "",
                         compression != NULL ? compression : "", extra) >= size)
        fail("config string too long for \"%s\"", output);
    return buf;
}

static const char* report_config(char* buf, size_t size, const char* output,
                                 const char* compression) {
    return report_config_with(buf, size, output, compression, "");
}

/* What the readers return must be what was written: every event, every
 * timestamp, in time order when merged. */
static void check_reads(const workloads* w, const nv_read_result* nv, const otf2_read_result* ot,
                        const nv_read_result* nvm, const otf2_read_result* otm) {
    uint64_t n = w->full.ranges, merge_ops = 0, sum = ts_sum(&w->full, 1);
    uint64_t merge_sum = ts_sum(w->merge, MERGE_STREAMS), regions = region_sum(&w->full);
    for (int i = 0; i < MERGE_STREAMS; i++)
        merge_ops += w->merge[i].count;
    if (nv->events != n || nv->signed_sum != sum)
        fail("report read back: %" PRIu64 " events, timestamp sum %" PRIu64 ", expected %" PRIu64
             " and %" PRIu64,
             nv->events, nv->signed_sum, n, sum);
    if (ot->events != 2 * n || ot->time_sum != sum || ot->region_sum != regions)
        fail("OTF2 archive read back: %" PRIu64 " events, timestamp sum %" PRIu64
             ", region sum %" PRIu64 ", expected %" PRIu64 ", %" PRIu64 " and %" PRIu64,
             ot->events, ot->time_sum, ot->region_sum, 2 * n, sum, regions);
    if (nvm->events != merge_ops || !nvm->in_time_order || nvm->signed_sum != merge_sum)
        fail("merged report read back: %" PRIu64 " events%s, timestamp sum %" PRIu64
             ", expected %" PRIu64 " in time order and %" PRIu64,
             nvm->events, nvm->in_time_order ? "" : " out of time order", nvm->signed_sum,
             merge_ops, merge_sum);
    if (otm->events != merge_ops || !otm->in_time_order || otm->time_sum != merge_sum)
        fail("merged OTF2 read back: %" PRIu64 " events%s, timestamp sum %" PRIu64
             ", expected %" PRIu64 " in time order and %" PRIu64,
             otm->events, otm->in_time_order ? "" : " out of time order", otm->time_sum, merge_ops,
             merge_sum);
}

/* Before each timed write: the page cache's dirty pages (the previous
 * run's output, 120 MB after an OTF2 run) are written out first, so that a
 * run does not pay for another's writeback. The report sink fsyncs its file
 * at SessionEnd (docs/report-format.md), and that fsync would otherwise
 * wait for whatever the disk still had queued. */
static void settle(void) { sync(); }

static void measure_writes(const workloads* w, const paths* p, const char* level, int i,
                           results* r) {
    char config[8500];
    uint64_t n = w->full.ranges, events = w->profile.count;
    double* s;
    s = &r->seconds[R_REG][i];
    settle();
    *s = nv_write(report_config(config, sizeof config, p->reg, level), NV_REG, &w->full, 1, 1);
    print_run("nvtxw report reg-string, 1 thread", i, n, "ranges", *s);
    s = &r->seconds[R_OTF2][i];
    settle();
    *s = otf2_write(p->otf2, &w->full, 1);
    print_run("otf2 write", i, n, "ranges", *s);
    s = &r->seconds[R_UTF8][i];
    settle();
    *s = nv_write(report_config(config, sizeof config, p->utf8, level), NV_UTF8, &w->full, 1, 1);
    print_run("nvtxw report utf8", i, n, "ranges", *s);
    s = &r->seconds[R_PROFILE][i];
    settle();
    *s = nv_write(report_config(config, sizeof config, p->profile, level), NV_SPLIT, &w->profile, 1,
                  1);
    print_run("nvtxw report profiler", i, events, "events", *s);
    s = &r->seconds[R_OTF2_PROF][i];
    settle();
    *s = otf2_write(p->otf2_profile, &w->profile, 1);
    print_run("otf2 write profiler", i, events, "events", *s);
    s = &r->seconds[R_TWO][i];
    settle();
    *s = nv_write(report_config_with(config, sizeof config, p->two, level, "|CompressionThreads=0"),
                  NV_REG, w->halves, 2, 1);
    print_run("nvtxw report 2 threads, no compression thread", i, n, "ranges", *s);
    s = &r->seconds[R_NULL][i];
    settle();
    *s = nv_write("Sink=null", NV_REG, &w->full, 1, 1);
    print_run("nvtxw null", i, n, "ranges", *s);
    s = &r->seconds[R_FAST][i];
    settle();
    *s = nv_write(report_config_with(config, sizeof config, p->fast, FAST_COMPRESSION,
                                     "|CompressionThreads=0"),
                  NV_REG, &w->full, 1, 1);
    print_run("nvtxw report Compression=" FAST_COMPRESSION ", no thread", i, n, "ranges", *s);
    s = &r->seconds[R_SYNC][i];
    settle();
    *s =
        nv_write(report_config_with(config, sizeof config, p->fast, level, "|CompressionThreads=0"),
                 NV_REG, &w->full, 1, 1);
    print_run("nvtxw report, no compression thread", i, n, "ranges", *s);
}

static void measure_reads(const workloads* w, const paths* p, int i, results* r) {
    nv_read_result nv, nvv, nvm;
    otf2_read_result ot, otm;
    uint64_t n = w->full.ranges;
    double* s;
    s = &r->seconds[R_READ][i];
    *s = nv_read(p->reg, 0, 0, &nv);
    print_run("nvtxw read reg-string report", i, n, "ranges", *s);
    s = &r->seconds[R_READ_VISIT][i];
    *s = nv_read(p->reg, 0, 1, &nvv);
    print_run("nvtxw read and visit", i, n, "ranges", *s);
    s = &r->seconds[R_OTF2_READ][i];
    *s = otf2_read(p->otf2, 0, &ot);
    print_run("otf2 read", i, n, "ranges", *s);
    s = &r->seconds[R_MERGE][i];
    *s = nv_read(p->merge, 1, 0, &nvm);
    print_run("nvtxw read 8 streams, time order", i, r->merge_events, "events", *s);
    s = &r->seconds[R_OTF2_MERGE][i];
    *s = otf2_read(p->otf2_merge, 1, &otm);
    print_run("otf2 read 8 locations, time order", i, r->merge_events, "events", *s);
    check_reads(w, &nv, &ot, &nvm, &otm);
    if (nvv.events != nv.events || nvv.signed_sum != nv.signed_sum ||
        nvv.unsigned_sum != nv.unsigned_sum)
        fail("visited read back: %" PRIu64 " events, sums %" PRIu64 " and %" PRIu64
             ", the struct read %" PRIu64 ", %" PRIu64 " and %" PRIu64,
             nvv.events, nvv.signed_sum, nvv.unsigned_sum, nv.events, nv.signed_sum,
             nv.unsigned_sum);
}

static void make_paths(paths* p) {
#define PATH(member, name) snprintf(p->member, sizeof p->member, "%s/" name, temp_dir)
    PATH(reg, "reg.nvtxw");
    PATH(utf8, "utf8.nvtxw");
    PATH(profile, "profile.nvtxw");
    PATH(two, "two.nvtxw");
    PATH(fast, "fast.nvtxw");
    PATH(merge, "merge.nvtxw");
    PATH(otf2, "otf2");
    PATH(otf2_profile, "otf2-profile");
    PATH(otf2_merge, "otf2-merge");
#undef PATH
}

/* Interleaves the measurements so a change of machine load hits them all.
 * The merge inputs are written once, untimed. */
static void measure(const workloads* w, const char* level, results* r) {
    paths p;
    char config[8500];
    make_paths(&p);
    r->merge_events = 0;
    for (int i = 0; i < MERGE_STREAMS; i++)
        r->merge_events += w->merge[i].count;
    nv_write(report_config(config, sizeof config, p.merge, level), NV_SPLIT, w->merge,
             MERGE_STREAMS, 0);
    otf2_write(p.otf2_merge, w->merge, MERGE_STREAMS);
    for (int i = 0; i < REPEATS; i++) {
        measure_writes(w, &p, level, i, r);
        measure_reads(w, &p, i, r);
    }
    r->nvtxw_bytes = tree_bytes(p.reg);
    r->otf2_bytes = tree_bytes(p.otf2);
}

/* ---- Report -------------------------------------------------------------- */

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

/* One "A vs B" line: rates in M units/s and their ratio against a target. */
static void print_ratio(const char* line, const char* a, double rate_a, const char* b,
                        double rate_b, const char* unit, double target) {
    double ratio = rate_a / rate_b;
    printf("%-10s %s %6.2f M %s/s  %s %6.2f M %s/s  ratio %5.2fx (target >= %.1fx) %s\n", line, a,
           rate_a, unit, b, rate_b, unit, ratio, target, verdict(ratio >= target));
}

static void print_table(const results* r, const workloads* w) {
    double n = (double)w->full.ranges, events = (double)w->profile.count;
    double reg = n / best(r, R_REG) / 1e6, otf2 = n / best(r, R_OTF2) / 1e6;
    double vs_otf2 = (double)r->nvtxw_bytes / (double)r->otf2_bytes;
    double json_factor = (double)r->json_bytes / (double)r->nvtxw_bytes;
    double read = n / best(r, R_READ) / 1e6, otf2_read = n / best(r, R_OTF2_READ) / 1e6;
    double core = best(r, R_NULL) / n * 1e9, fast = best(r, R_FAST) / n * 1e9;
    double sync = best(r, R_SYNC) / n * 1e9;
    printf("\n%" PRIu64 " ranges (profiler %" PRIu64 " events, merge %" PRIu64
           " events), best of %d runs, rates in M/s, sizes in MB (1e6 B)\n",
           w->full.ranges, (uint64_t)w->profile.count, r->merge_events, REPEATS);
    print_ratio("write-reg", "nvtxw", reg, "otf2", otf2, "ranges", 2.0);
    print_ratio("write-utf8", "nvtxw", n / best(r, R_UTF8) / 1e6, "otf2", otf2, "ranges", 1.5);
    print_ratio("profiler", "nvtxw", events / best(r, R_PROFILE) / 1e6, "otf2",
                events / best(r, R_OTF2_PROF) / 1e6, "events", 2.0);
    /* Both without compression threads: on 2 cores the default's extra
     * thread would take the second core the second writer needs. */
    print_ratio("scaling", "2 threads", n / best(r, R_TWO) / 1e6, "1 thread",
                n / best(r, R_SYNC) / 1e6, "ranges", 1.8);
    print_ratio("null", "nvtxw Sink=null", n / best(r, R_NULL) / 1e6, "otf2", otf2, "ranges", 4.0);
    printf("bytes      nvtxw %8.2f MB  otf2 %8.2f MB  ratio %5.3fx (target <= 0.25x) %s\n",
           r->nvtxw_bytes / 1e6, r->otf2_bytes / 1e6, vs_otf2, verdict(vs_otf2 <= 0.25));
    printf("bytes      nvtxw %8.2f MB  chrome json %8.2f MB  ratio 1/%.1f (target <= 1/20) %s\n",
           r->nvtxw_bytes / 1e6, r->json_bytes / 1e6, json_factor, verdict(json_factor >= 20.0));
    printf("bytes      per range: %.2f B in .nvtxw, %.2f B in OTF2, %.2f B in JSON\n",
           r->nvtxw_bytes / n, r->otf2_bytes / n, r->json_bytes / n);
    printf("read       nvtxw %6.2f M ranges/s (%.2f M records/s)  otf2 %6.2f M ranges/s "
           "(%.2f M events/s)  ratio %5.2fx (target >= 2.0x) %s\n",
           read, read, otf2_read, 2 * otf2_read, read / otf2_read,
           verdict(read / otf2_read >= 2.0));
    print_ratio("read+visit", "nvtxw", n / best(r, R_READ_VISIT) / 1e6, "otf2", otf2_read, "ranges",
                2.0);
    print_ratio("merge", "nvtxw 8 streams", r->merge_events / best(r, R_MERGE) / 1e6,
                "otf2 8 locations", r->merge_events / best(r, R_OTF2_MERGE) / 1e6, "events", 1.0);
    /* The last two are differences of runs: within the noise of a run they
     * may come out below 0, and are labelled as differences. */
    printf(
        "time       core %.1f ns  encode+write+compress at -7 %.1f ns  level 1 over -7 %+.1f ns  "
        "(per range, CompressionThreads=0); default run %.1f ns per range on the writer's "
        "thread\n",
        core, fast - core, sync - fast, best(r, R_REG) / n * 1e9);
}

/* ---- Driver -------------------------------------------------------------- */

typedef struct options {
    uint64_t ranges;
    uint64_t seed;
    const char* dir;
    const char* level; /* -c: NULL = the library's default compression */
    int keep;
} options;

static void usage(FILE* out) {
    fputs("usage: write_bench [-n RANGES] [-s SEED] [-d DIR] [-c LEVEL] [-k]\n"
          "  -n RANGES  ranges per measurement (default 5000000)\n"
          "  -s SEED    workload PRNG seed (default 42)\n"
          "  -d DIR     parent of the temporary directory (default $TMPDIR or /tmp)\n"
          "  -c LEVEL   report runs add |Compression=LEVEL (default: the library's default)\n"
          "  -k         keep the outputs (last run of each) for inspection\n",
          out);
}

static _Noreturn void bad_value(int c, const char* value) {
    fprintf(stderr, "write_bench: error: bad value \"%s\" for -%c\n", value, c);
    exit(2);
}

static options parse_options(int argc, char** argv) {
    options opt = {5000000, 42, getenv("TMPDIR"), NULL, 0};
    int c;
    while ((c = getopt(argc, argv, "n:s:d:c:kh")) != -1) {
        char* end = NULL;
        if (c == 'n' || c == 's') {
            uint64_t v = strtoull(optarg, &end, 10);
            if (end == optarg || *end != '\0' || (c == 'n' && v < 2 * MERGE_STREAMS))
                bad_value(c, optarg);
            *(c == 'n' ? &opt.ranges : &opt.seed) = v;
        } else if (c == 'c') {
            (void)strtol(optarg, &end, 10);
            if (end == optarg || *end != '\0')
                bad_value(c, optarg);
            opt.level = optarg;
        } else if (c == 'd') {
            opt.dir = optarg;
        } else if (c == 'k') {
            opt.keep = 1;
        } else {
            usage(c == 'h' ? stdout : stderr);
            exit(c == 'h' ? 0 : 2);
        }
    }
    if (optind != argc) {
        usage(stderr);
        exit(2);
    }
    if (opt.dir == NULL || opt.dir[0] == '\0')
        opt.dir = "/tmp";
    return opt;
}

static void setup(const options* opt) {
    for (size_t i = 0; i < NAMES_LENGTH; i++)
        name_length[i] = (uint32_t)strlen(NAMES[i]);
    nv_setup();
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

/* Seeds: the range trace `seed` (as before issue 12, so old figures stay
 * comparable), the halves seed+1 and seed+2, the profiler's instants
 * seed+3, the merge streams seed+4 on. */
static void make_workloads(const options* opt, workloads* w) {
    uint64_t n = opt->ranges, per_stream = n / MERGE_STREAMS;
    w->full = trace_make(n, opt->seed);
    w->halves[0] = trace_make(n / 2, opt->seed + 1);
    w->halves[1] = trace_make(n - n / 2, opt->seed + 2);
    w->profile = profile_make(&w->full, opt->seed + 3);
    for (int i = 0; i < MERGE_STREAMS; i++)
        w->merge[i] =
            trace_make(i + 1 < MERGE_STREAMS ? per_stream : n - per_stream * (MERGE_STREAMS - 1),
                       opt->seed + 4 + (uint64_t)i);
}

static void free_workloads(workloads* w) {
    free(w->full.ops), free(w->profile.ops), free(w->halves[0].ops), free(w->halves[1].ops);
    for (int i = 0; i < MERGE_STREAMS; i++)
        free(w->merge[i].ops);
}

int main(int argc, char** argv) {
    options opt = parse_options(argc, argv);
    static workloads w;
    static results r;
    char json[4200];
    double start = now();
    setup(&opt);
    print_loadavg("at start");
    make_workloads(&opt, &w);
    printf("workload %" PRIu64 " ranges, %u names, depth <= %d, %.3f s of trace time, "
           "seed %" PRIu64 ", report compression %s\n",
           w.full.ranges, NAME_COUNT, MAX_DEPTH,
           (w.full.ops[w.full.count - 1].ts - w.full.ops[0].ts) / 1e9, opt.seed,
           opt.level != NULL ? opt.level : "default");
    measure(&w, opt.level, &r);
    snprintf(json, sizeof json, "%s/bench.json", temp_dir);
    write_chrome(json, &w.full);
    r.json_bytes = tree_bytes(json);
    print_loadavg("at end");
    print_table(&r, &w);
    printf("total      %.1f s\n", now() - start);
    if (opt.keep)
        printf("kept       %s\n", temp_dir);
    else
        remove_tree(temp_dir);
    free_workloads(&w);
    nv_finalize();
    return 0;
}
