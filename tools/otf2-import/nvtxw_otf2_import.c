/*
 * nvtxw-otf2-import - convert an OTF2 archive through the NVTXW API.
 *
 *   nvtxw-otf2-import ARCHIVE/traces.otf2 -o OUT [--to SINK | --stats[=FMT] | --backend LIB]
 *                     [--threads N] [--part I/N] [--locations LIST] [--keep-going] [--quiet]
 *   mpirun -np N nvtxw-otf2-import --mpi ARCHIVE/traces.otf2 -o OUT.nvtxw [options]
 *
 * Thin: parses the arguments, picks the sink and the output file, and calls
 * import_run (import.c) with libnvtxw's own function table. Exit status:
 * 0 success, 1 failure (nothing left under OUT), 2 usage error.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "otf2_import.h"
#include "tool_interrupt.h"
#include "tool_memory.h"
#include "tool_output.h"
#include "tool_share.h"
#ifdef HAVE_MPI
#include "tool_mpi.h"
#endif

static const char usage_text[] =
    "Usage: " TOOL " ARCHIVE/traces.otf2 -o OUT [options]\n"
    "\n"
    "Converts an OTF2 archive (Score-P and other OTF2 writers) through the NVTXW\n"
    "API: locations become streams, regions push/pop ranges, metrics counters,\n"
    "MPI messages matched send/receive pairs, tasks task scopes (docs/otf2-mapping.md).\n"
    "\n"
    "Options: -o, --output OUT     output file; the sink follows its extension, in any\n"
    "                              letter case: .nvtxw report, .pftrace Perfetto\n"
    "                              trace, .json Chrome/Perfetto JSON, .txt text,\n"
    "                              .sqlite SQLite, .csv statistics\n"
    "                              ('-': standard output, for text and statistics)\n"
    "         --force              allow OUT to be the archive's anchor file\n"
    "         --to SINK            report, perfetto, json, stats, text, sqlite or null\n"
    "         --stats[=FORMAT]     range statistics (text, csv or json) instead\n"
    "         --task-rows N|all    task_sum rows (default 20 in text, all in csv, json)\n"
    "         --backend LIB        forward to another NVTXW v2 backend (absolute path)\n"
    "         --allow-relative-backend  accept a relative --backend path\n"
    "         --threads N|auto     read N locations at a time (default 1; auto: one\n"
    "                              per CPU)\n"
    "         --compression L      zstd level, -7 to 22: of a report (default 1), or\n"
    "                              of a Perfetto trace's packets (default: none;\n"
    "                              reading them needs Perfetto from 2026-07 on)\n"
    "         --part I/N           convert part I of N, 1-based (1/4 .. 4/4: every\n"
    "                              Nth location from the I-th); nvtxw-replay merges\n"
    "                              the parts\n"
    "         --mpi                started by mpirun: the job's ranks convert shares of\n"
    "                              the locations (balanced by events) into one report\n"
    "         --locations LIST     only these location IDs (e.g. 0,4,10-19)\n"
    "         --keep-going         keep what is readable of a damaged location and go on\n"
    "         -q, --quiet          no progress bar and no summary\n"
    "         -h, --help           show this help\n"
    "         -V, --version        show the version\n";

typedef struct cli {
    import_options opts;
    const char* output;
    const char* sink;
    const char* stats_format;
    const char* task_rows; /* --task-rows, or NULL (the sink's default) */
    const char* backend;
    int allow_relative_backend;
    int force; /* --force: the output may be the anchor file */
    int quiet;
    const char* compression; /* --compression, checked; NULL: the sink's default */
    int mpi;                 /* --mpi */
} cli;

/* --mpi: usage errors, the same on every rank, are printed by rank 0. */
static int quiet_usage;

static int usage_error(const char* fmt, const char* detail) {
    if (quiet_usage)
        return 2;
    fprintf(stderr, TOOL ": error: ");
    fprintf(stderr, fmt, detail);
    fprintf(stderr, "\nTry '" TOOL " --help'.\n");
    return 2;
}

static int parse_part(const char* text, cli* c) {
    unsigned i, n;
    char extra;
    if (strchr(text, '-') != NULL || sscanf(text, "%u/%u%c", &i, &n, &extra) != 2 || i == 0 ||
        n == 0 || i > n)
        return usage_error("--part takes I/N with 1 <= I <= N, not '%s'", text);
    c->opts.part = i;
    c->opts.parts = n;
    return -1;
}

static int valid_location_list(const char* list) {
    size_t n = strspn(list, "0123456789,-");
    return list[0] != '\0' && list[n] == '\0';
}

/* One option with a value; -1 to go on, else the exit status. */
static int parse_value(cli* c, const char* a, const char* value) {
    if (!strcmp(a, "-o") || !strcmp(a, "--output"))
        c->output = value;
    else if (!strcmp(a, "--to"))
        c->sink = value;
    else if (!strcmp(a, "--backend"))
        c->backend = value;
    else if (!strcmp(a, "--task-rows")) {
        if (!tool_row_count_ok(value))
            return usage_error("--task-rows takes a number of rows or 'all', not '%s'", value);
        c->task_rows = value;
    } else if (!strcmp(a, "--threads") && tool_parse_threads(value, 4096, &c->opts.threads) != 0)
        return usage_error("--threads takes a number from 1 to 4096 or 'auto', not '%s'", value);
    else if (!strcmp(a, "--part"))
        return parse_part(value, c);
    else if (!strcmp(a, "--compression")) {
        if (!tool_compression_ok(value))
            return usage_error("--compression takes a zstd level from -7 to 22, not '%s'", value);
        c->compression = value;
    } else if (!strcmp(a, "--locations")) {
        if (!valid_location_list(value))
            return usage_error("--locations takes IDs and ranges (0,4,10-19), not '%s'", value);
        c->opts.locations = value;
    }
    return -1;
}

static int takes_value(const char* a) {
    static const char* const names[] = {"-o",          "--output",      "--to",
                                        "--backend",   "--threads",     "--part",
                                        "--locations", "--compression", "--task-rows"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (!strcmp(a, names[i]))
            return 1;
    }
    return 0;
}

static int parse_flag(cli* c, const char* a) {
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
        tool_put_stdout(usage_text);
        return 0;
    }
    if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
        printf(TOOL " %s (libnvtxw %s, OTF2 %s)\n", PACKAGE_VERSION, nvtxw_version(), OTF2_VERSION);
        return 0;
    }
    if (!strcmp(a, "-q") || !strcmp(a, "--quiet"))
        c->quiet = 1;
    else if (!strcmp(a, "--keep-going"))
        c->opts.keep_going = 1;
    else if (!strcmp(a, "--mpi"))
        c->mpi = 1;
    else if (!strcmp(a, "--allow-relative-backend"))
        c->allow_relative_backend = 1;
    else if (!strcmp(a, "--force"))
        c->force = 1;
    else if (!strcmp(a, "--stats") || !strncmp(a, "--stats=", 8))
        c->stats_format = a[7] == '=' ? a + 8 : "text";
    else
        return usage_error("unknown option %s", a);
    return -1;
}

/* Settles the sink; -1 to go on, else the exit status. */
static int choose_sink(cli* c) {
    static const char* const sinks[] = {"report", "json",   "perfetto", "stats",
                                        "text",   "sqlite", "null"};
    int chosen = (c->sink != NULL) + (c->stats_format != NULL) + (c->backend != NULL);
    if (chosen > 1)
        return usage_error("%s", "--to, --stats and --backend exclude each other");
    if (c->stats_format != NULL) {
        if (strcmp(c->stats_format, "text") && strcmp(c->stats_format, "csv") &&
            strcmp(c->stats_format, "json"))
            return usage_error("--stats takes text, csv or json, not '%s'", c->stats_format);
        c->sink = "stats";
    } else if (c->backend != NULL) {
        c->sink = "backend";
    } else if (c->sink == NULL) {
        if (c->output == NULL)
            return usage_error("%s", "no output given (-o OUT)");
        if ((c->sink = tool_sink_for_output(c->output)) == NULL || !strcmp(c->sink, "capture"))
            return usage_error("cannot tell the sink from the extension of '%s': use .nvtxw, "
                               ".pftrace, .json, .txt, .sqlite or .csv (in any letter case), "
                               "or --to",
                               c->output);
        if (!strcmp(c->sink, "stats"))
            c->stats_format = "csv";
    } else {
        size_t i = 0;
        while (i < sizeof sinks / sizeof sinks[0] && strcmp(c->sink, sinks[i]))
            i++;
        if (i == sizeof sinks / sizeof sinks[0])
            return usage_error(
                "unknown sink '%s' (report, perfetto, json, stats, text, sqlite or null)", c->sink);
    }
    if (c->output == NULL)
        c->output = "-";
    if (!tool_config_value_ok(c->output) ||
        (c->backend != NULL && !tool_config_value_ok(c->backend)))
        return usage_error("paths with '|' or line breaks are not supported: '%s'",
                           tool_config_value_ok(c->output) ? c->backend : c->output);
    if (!strcmp(c->output, "-") && tool_sink_needs_file(c->sink))
        return usage_error("the %s sink writes files only: name one with -o OUT", c->sink);
    return -1;
}

static int parse(int argc, char** argv, cli* c) {
    int status = -1;
    for (int i = 1; i < argc && status < 0; i++) {
        const char* a = argv[i];
        if (takes_value(a))
            status = i + 1 == argc ? usage_error("option %s needs a value", a)
                                   : parse_value(c, a, argv[++i]);
        else if (a[0] == '-' && a[1] != '\0')
            status = parse_flag(c, a);
        else if (c->opts.archive != NULL)
            return usage_error("more than one archive given ('%s')", a);
        else
            c->opts.archive = a;
    }
    if (status >= 0)
        return status;
    if (c->opts.archive == NULL)
        return usage_error("%s", "no archive given");
    if ((status = choose_sink(c)) >= 0)
        return status;
    if (c->mpi && strcmp(c->sink, "report") != 0)
        return usage_error("--mpi writes one report (-o OUT.nvtxw), not the %s sink; convert "
                           "the report to other outputs with nvtxw-replay",
                           c->backend ? "backend" : c->sink);
    if (c->mpi && c->opts.parts != 1)
        return usage_error("%s", "--mpi and --part exclude each other: the ranks share the "
                                 "locations among themselves");
    if (!c->force && tool_same_file(c->output, c->opts.archive))
        return usage_error("the output '%s' is the archive's anchor file and would be replaced "
                           "(--force replaces it)",
                           c->output);
    return -1;
}

static int check_backend(cli* c, char* resolved) {
    if (c->backend == NULL || c->backend[0] == '/')
        return 0;
    if (!c->allow_relative_backend)
        return usage_error("--backend needs an absolute path, not '%s' (pass "
                           "--allow-relative-backend to accept it)",
                           c->backend);
    if (realpath(c->backend, resolved) == NULL) {
        fprintf(stderr, TOOL ": error: --backend '%s': %s\n", c->backend, strerror(errno));
        return 1;
    }
    c->backend = resolved;
    return 0;
}

/* What the run skipped or could not read (always said; --mpi: by each rank
 * of its own locations). */
static void print_notes(const importer* im) {
    for (int k = 0; k < EK_COUNT; k++) {
        uint64_t n = atomic_load(&im->skipped[k]);
        if (n != 0)
            fprintf(stderr, TOOL ": skipped %" PRIu64 " %s events (no mapping)\n", n,
                    event_name(k));
    }
    if (atomic_load(&im->skipped[EK_COUNT]) != 0)
        fprintf(stderr,
                TOOL ": skipped %" PRIu64 " attribute lists on records that carry no payload "
                     "(counter samples, range begins)\n",
                (uint64_t)atomic_load(&im->skipped[EK_COUNT]));
    if (atomic_load(&im->unfinished) != 0)
        fprintf(stderr,
                TOOL ": skipped %" PRIu64 " operations whose end never came (MpiCollectiveBegin, "
                     "RmaCollectiveBegin or IoOperationBegin without its end)\n",
                (uint64_t)atomic_load(&im->unfinished));
    if (atomic_load(&im->scopeless_tasks) != 0)
        fprintf(stderr,
                TOOL ": %" PRIu64 " task events have no task scope (the archive defines no "
                     "thread teams or multi-threaded processes)\n",
                (uint64_t)atomic_load(&im->scopeless_tasks));
    if (atomic_load(&im->unclosed) != 0)
        fprintf(stderr,
                TOOL ": %" PRIu64 " %s still open at the end of their location (kept open: no "
                     "Leave)\n",
                (uint64_t)atomic_load(&im->unclosed),
                atomic_load(&im->unclosed) == 1 ? "range was" : "ranges were");
    if (im->incomplete_locations != 0)
        fprintf(stderr,
                TOOL ": %" PRIu64 " location%s incomplete, %" PRIu64 " declared event%s not read\n",
                im->incomplete_locations, im->incomplete_locations == 1 ? "" : "s",
                im->unread_events, im->unread_events == 1 ? "" : "s");
}

static void print_summary(const importer* im, const cli* c, double seconds) {
    uint64_t events = atomic_load(&im->events_done);
    print_notes(im);
    /* -> OUT, the backend, or OUT through the backend (its Output=) */
    int named = strcmp(c->output, "-") != 0 || c->backend == NULL;
    if (!c->quiet)
        fprintf(stderr,
                TOOL ": %" PRIu64
                     " events from %zu locations in %.2f s (%.2f M events/s) -> %s%s%s\n",
                events, im->selected_count, seconds, seconds > 0 ? events / seconds / 1e6 : 0.0,
                named ? c->output : c->backend, named && c->backend ? " through " : "",
                named && c->backend ? c->backend : "");
}

static int convert(cli* c, importer* im) {
    char config[PATH_MAX * 2 + 128];
    tool_output out;
    const void* iface = NULL;
    const void* ext = NULL;
    struct timespec t0, t1;
    int status;
    int to_file = c->backend == NULL && strcmp(c->sink, "null") != 0;
    if (to_file && tool_output_begin(&out, TOOL, c->output) != 0)
        return 1;
    snprintf(config, sizeof config,
             "Sink=%s|Output=%s|Overwrite=%s|StatsFormat=%s|Backend=%s%s%s%s%s", c->sink,
             to_file ? out.write_path : c->output, tool_overwrite_setting(to_file),
             c->stats_format ? c->stats_format : "text", c->backend ? c->backend : "",
             c->compression ? "|Compression=" : "", c->compression ? c->compression : "",
             c->task_rows ? "|StatsTaskRows=" : "", c->task_rows ? c->task_rows : "");
    if (nvtxwGetInterface(NVTXW_INTERFACE_VERSION, &iface) != NVTXW_RESULT_SUCCESS ||
        nvtxwGetInterface(NVTXW_EXTENSION_INTERFACE_VERSION, &ext) != NVTXW_RESULT_SUCCESS) {
        fprintf(stderr, TOOL ": error: %s\n", nvtxw_last_error());
        return to_file ? tool_output_end(&out, 1) : 1;
    }
    c->opts.ext = ext;
    c->opts.config = config;
    c->opts.iface = tool_interruptible(iface, 0);
    c->opts.registrations_during_writes = c->backend == NULL;
    c->opts.progress = !c->quiet && isatty(STDERR_FILENO);
    c->opts.progress_output = to_file ? out.write_path : NULL;
    im->opts = c->opts;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    status = import_run(im);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (status == 0 && tool_interrupted())
        status = 1; /* stopped during the session's end: the output is not whole */
    else if (status != 0 && !tool_interrupted()) /* else said by tool_interrupt_status */
        fprintf(stderr, TOOL ": error: %s\n", im->error);
    else if (status == 0)
        print_summary(im, c, (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
    return to_file ? tool_output_end(&out, status) : status;
}

#ifdef HAVE_MPI
/* --mpi: rank 0 chooses the file the ranks write (the tool's temporary);
 * every rank gets its name, "" when rank 0 could not create it. */
static int share_output(cli* c, const nvtxwShare_t* share, tool_output* out, char* path,
                        size_t size) {
    int begun = share->rank == 0 && tool_output_begin(out, TOOL, c->output) == 0;
    path[0] = '\0';
    if (begun)
        snprintf(path, size, "%s", out->write_path);
    if (share->broadcast(share->context, path, size) != 0)
        path[0] = '\0';
    return begun;
}

/* A message that only says another rank failed: that rank prints why. */
static int names_another_rank(const char* message) {
    return strstr(message, "(its message says why)") != NULL;
}

/* --mpi: the ranks convert their shares into one report, then agree on
 * the outcome: rank 0 renames the report into place only when every rank
 * succeeded. Every rank returns the same status. */
static int convert_shared(cli* c, importer* im, const nvtxwShare_t* share) {
    char config[PATH_MAX * 2 + 128], path[sizeof((tool_output*)0)->write_path];
    tool_output out;
    const void* iface = NULL;
    const void* ext = NULL;
    struct timespec t0, t1;
    int status, begun = share_output(c, share, &out, path, sizeof path);
    uint64_t failed, events;
    unsigned char final = 0;
    if (path[0] == '\0') /* rank 0 said why */
        return begun ? tool_output_end(&out, 1) : 1;
    snprintf(config, sizeof config, "Sink=report|Output=%s|Overwrite=in-place%s%s", path,
             c->compression ? "|Compression=" : "", c->compression ? c->compression : "");
    nvtxwGetInterface(NVTXW_INTERFACE_VERSION, &iface);
    nvtxwGetInterface(NVTXW_EXTENSION_INTERFACE_VERSION, &ext);
    c->opts.ext = ext;
    c->opts.config = config;
    c->opts.iface = tool_interruptible(iface, 0);
    c->opts.share = share;
    c->opts.registrations_during_writes = 0; /* every rank registers alike, up front */
    c->opts.progress = !c->quiet && share->rank == 0 && isatty(STDERR_FILENO);
    c->opts.progress_output = path;
    im->opts = c->opts;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    status = import_run(im);
    if (status != 0 && !names_another_rank(im->error))
        fprintf(stderr, TOOL ": rank %u of %u: error: %s\n", share->rank, share->ranks, im->error);
    else if (status == 0)
        print_notes(im);
    failed = tool_share_failed_rank(share, status != 0);
    events = tool_share_sum_on_root(share, atomic_load(&im->events_done));
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (share->rank == 0) {
        if (failed != 0) /* also when rank 0 is the one: the file is gone all the same */
            fprintf(stderr, TOOL ": error: rank %" PRIu64 " failed; %s not written\n", failed - 1,
                    c->output);
        final = (unsigned char)tool_output_end(&out, failed != 0);
        if (final == 0 && !c->quiet)
            fprintf(
                stderr, TOOL ": %" PRIu64 " events on %u ranks in %.2f s (%.2f M events/s) -> %s\n",
                events, share->ranks,
                (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
                events / ((double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9) / 1e6,
                c->output);
    }
    /* the rename is rank 0's: its outcome is everyone's */
    if (share->broadcast(share->context, &final, 1) != 0)
        final = 1;
    return final != 0 ? 1 : 0;
}
#endif /* HAVE_MPI */

/* Whether the command line asks for --mpi (MPI starts before parsing). */
static int wants_mpi(int argc, char** argv) {
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--mpi"))
            return 1;
        if (takes_value(argv[i]))
            i++;
    }
    return 0;
}

/* Under an address-space limit (ulimit -v): one malloc arena, and no more
 * reading threads than the limit holds (IMPORT_BASE_MEMORY for the process
 * and its session, IMPORT_THREAD_MEMORY per thread: measured 20 and 6 MiB
 * with one arena on a 17-location archive, with room), so
 * a limit of 64 MiB still imports, on fewer threads, and says so. */
#define IMPORT_BASE_MEMORY ((size_t)24 << 20)
#define IMPORT_THREAD_MEMORY ((size_t)8 << 20)
static void fit_threads(cli* c) {
    size_t limit = tool_memory_limit();
    unsigned fit =
        tool_threads_that_fit(limit, c->opts.threads, IMPORT_BASE_MEMORY, IMPORT_THREAD_MEMORY);
    if (fit < c->opts.threads && !c->quiet)
        fprintf(stderr,
                TOOL ": note: the address space is limited to %zu MiB (ulimit -v): reading %u "
                     "location%s at a time instead of %u\n",
                limit >> 20, fit, fit == 1 ? "" : "s", c->opts.threads);
    if (fit < c->opts.threads)
        c->opts.threads = fit;
}

/* Above OTF2's largest usual chunk (4 MiB) and its bookkeeping. */
#define IMPORT_MMAP_THRESHOLD ((4 << 20) + (256 << 10))

static int run(int argc, char** argv) {
    static importer im; /* large; zero-initialized */
    cli c;
    char backend_path[PATH_MAX];
    int status;
#ifdef HAVE_MPI
    tool_mpi* mpi = NULL;
#endif
#ifdef __GLIBC__
    /* OTF2 allocates a chunk-sized buffer for every definition and event
     * reader it opens (256 KiB to 4 MiB for definitions, 1 MiB for events
     * in the archives we have seen) and clears it: taken from the heap and
     * kept there when freed, those pages are touched once, where mmapped
     * each reader paid a page fault per 4 KiB (a quarter of the time of a
     * 4 M-event import; bench/README.md). Larger tables (the task
     * prescan's, registries) are still mmapped, so they return to the
     * system when freed instead of adding to the peak; glibc's adaptive
     * threshold would keep them in the heap after the first free. */
    mallopt(M_MMAP_THRESHOLD, IMPORT_MMAP_THRESHOLD);
    mallopt(M_TRIM_THRESHOLD, 2 * IMPORT_MMAP_THRESHOLD);
#endif
    memset(&c, 0, sizeof c);
    c.opts.threads = 1;
    /* A report's default level (1) is the library's: the import is bound by
     * compression, and level 1 keeps reports small. */
    c.opts.part = c.opts.parts = 1;
    if (wants_mpi(argc, argv)) {
#ifdef HAVE_MPI
        if ((mpi = tool_mpi_start(TOOL, &argc, &argv)) == NULL)
            return 1;
        quiet_usage = tool_mpi_share(mpi)->rank != 0;
#else
        return usage_error("%s", "--mpi: this " TOOL " was built without MPI (configure "
                                 "--with-mpi)");
#endif
    }
    status = parse(argc, argv, &c); /* -1: go on; else the exit status (--help: 0) */
    if (status < 0) {
        fit_threads(&c);
        status = check_backend(&c, backend_path);
        status = status == 0 ? -1 : status;
    }
    if (status < 0) {
#ifdef HAVE_MPI
        status = mpi != NULL ? convert_shared(&c, &im, tool_mpi_share(mpi)) : convert(&c, &im);
#else
        status = convert(&c, &im);
#endif
        nvtxwFinalize();
        status = tool_interrupt_status(status);
    }
#ifdef HAVE_MPI
    if (mpi != NULL)
        tool_interrupt_done();
    tool_mpi_stop(mpi);
#endif
    return status;
}

int main(int argc, char** argv) {
    tool_log_warnings_by_default();
    tool_ignore_file_size_signal();
    tool_interrupt_install(TOOL);
    return tool_finish_stdout(TOOL, run(argc, argv));
}
