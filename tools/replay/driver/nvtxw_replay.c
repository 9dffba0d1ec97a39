/*
 * tools/replay/driver/nvtxw_replay.c - nvtxw-replay: reports, capture files,
 * Chrome trace JSON and synthetic workloads into any sink.
 *
 *   nvtxw-replay REPORT.nvtxw... [--to SINK | --stats[=FMT] | --backend LIB] [-o OUT]
 *                [--streams P,...] [--domains P,...] [--from T] [--until T]
 *
 * A thin client of the public API: the reports are opened with
 * nvtxw_reader_open and replayed (merged) with nvtxw_reader_replay_many into
 * one session whose configString selects the sink. Exit status: 0 success (also when a
 * damaged report's readable part replayed; damage is a warning), 1 failure,
 * 2 usage error.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nvtxw/nvtxw.h"
#include "replay_patterns.h"
#include "replay_sources.h"
#include "tool_alloc.h"
#include "tool_interrupt.h"
#include "tool_memory.h"
#include "tool_output.h"
#include "tool_progress.h"

#define TOOL "nvtxw-replay"

static const char usage_text[] =
    "Usage: " TOOL " INPUT... [--to SINK | --stats[=FORMAT] | --backend LIB] [-o OUT]\n"
    "                    [--streams PATTERN,...] [--domains PATTERN,...] [--from T] [--until T]\n"
    "       " TOOL " --synthetic NAME[:KEY=VALUE,...] [INPUT...] [options] [-o OUT]\n"
    "\n"
    "Replays every record of the inputs (registrations, events, counters, time\n"
    "synchronization) through libnvtxw's NVTXW backend into SINK. An INPUT is a\n"
    "report (.nvtxw), a capture file (JSON Lines or YAML) or a Chrome trace (JSON);\n"
    "--synthetic generates a workload (tasks, mpi, gpu, nested). Several inputs\n"
    "merge into one session (domains unified by name, streams renamed NAME#2...).\n"
    "\n"
    "Generators and their parameters with defaults (docs/synthetic.md); each also\n"
    "takes seed=1 and events=N (at least N records; values take k, M or G):\n"
    "  tasks   workers=4 tasks=2000 live=256 fanout=4 depth=6 slices=4 wait=20\n"
    "          slice=20000\n"
    "  mpi     ranks=8 ranks_per_node=4 iterations=500 messages=2 collective_every=4\n"
    "          bytes=65536 compute=50000\n"
    "  gpu     threads=4 devices=2 streams=4 launches=2500 copy_every=4 sync_every=16\n"
    "          kernel=20000 bytes=1048576\n"
    "  nested  threads=2 domains=4 categories=8 depth=16 iterations=150\n"
    "          payload_every=8\n"
    "\n"
    "Options: --to SINK            report, perfetto, json, stats, text, sqlite,\n"
    "                              capture or null; default: from the extension of\n"
    "                              OUT in any case (.nvtxw .pftrace .perfetto-trace\n"
    "                              .json .txt .sqlite .csv .jsonl; another one is an\n"
    "                              error), text without one\n"
    "         --stats[=FORMAT]     range statistics (text, csv or json; default text)\n"
    "         --stats-reports LIST which statistics tables, comma-separated: nvtx_sum,\n"
    "                              nvtx_pushpop_sum, nvtx_startend_sum,\n"
    "                              nvtx_pushpop_trace, task_sum, task_suspend_sum,\n"
    "                              counter_sum (default nvtx_sum, and the task and\n"
    "                              counter tables when there are tasks or counters)\n"
    "         --task-rows N|all    task_sum rows (default 20 in text, all in csv, json)\n"
    "         --backend LIB        forward to another NVTXW v2 backend (absolute path)\n"
    "         --allow-relative-backend\n"
    "                              accept a relative --backend path (made absolute\n"
    "                              from the current directory)\n"
    "         -o, --output OUT     output file ('-' = standard output, the default;\n"
    "                              the report, perfetto, json and sqlite sinks need\n"
    "                              a file)\n"
    "         --compression L      zstd level, -7 to 22: of a report (default 1), or\n"
    "                              of a Perfetto trace's packets (default: none;\n"
    "                              reading them needs Perfetto from 2026-07 on)\n"
    "         --payload-json       sqlite: also write every event's payloads as JSON\n"
    "                              text (payload_json; PayloadJson=yes)\n"
    "         --sqlite-indexes LIST  sqlite: the indexes to build, comma-separated:\n"
    "                              start, stream, text, counter, all or none (default\n"
    "                              text,counter; SqliteIndexes=)\n"
    "         --force              allow OUT to be one of the inputs (replaced when\n"
    "                              the replay succeeds)\n"
    "         --order stream|time  record order (default stream): input after input, or\n"
    "                              merged by timestamp across all inputs\n"
    "         --threads N|auto     replay a report's streams on N threads (default 1;\n"
    "                              auto: one per CPU): faster, but the order of\n"
    "                              events across streams in the output varies\n"
    "                              (needs --order stream)\n"
    "         --streams P,...      keep the streams named P (a name as printed, glob\n"
    "                              characters and all), else matching glob P\n"
    "         --domains P,...      keep the domains named P, else matching glob P\n"
    "         --from T, --until T  keep stream records with a timestamp in [from, until]:\n"
    "                              nanoseconds, or with a unit: 1.5ms, 2s, 3e9, 4G\n"
    "         -q, --quiet          no progress line (it is drawn only on a terminal)\n"
    "         -h, --help           show this help\n"
    "         -V, --version        show the version\n";

typedef struct options {
    replay_source* sources; /* the inputs and --synthetic specs, in order */
    size_t source_count;
    const char** inputs; /* the report paths (temporaries for other sources) */
    size_t input_count;
    const char** streams; /* --streams patterns */
    size_t stream_count;
    const char** domains; /* --domains patterns */
    size_t domain_count;
    int has_from, has_to;
    const char* compression; /* --compression, checked; NULL: the sink's default */
    int64_t from, to;
    const char* sink;
    const char* output;
    int order;
    unsigned threads;           /* --threads: report stream records on N threads */
    const char* stats_format;   /* --stats: NULL, or text/csv/json */
    const char* stats_reports;  /* --stats-reports, or NULL (the sink's default) */
    const char* task_rows;      /* --task-rows, or NULL (the sink's default) */
    int payload_json;           /* --payload-json: PayloadJson=yes (sqlite) */
    const char* sqlite_indexes; /* --sqlite-indexes: SqliteIndexes= (sqlite), or NULL */
    const char* backend;        /* --backend */
    int allow_relative_backend;
    int force;                   /* --force: the output may be an input */
    int quiet;                   /* -q: no progress line */
    int progress;                /* draw one: stderr is a terminal and not -q */
    const char* progress_output; /* its "written": files named so* (NULL: none) */
} options;

static int usage_error2(const char* message, const char* detail, const char* detail2) {
    fprintf(stderr, TOOL ": error: ");
    fprintf(stderr, message, detail, detail2);
    fprintf(stderr, "\nTry '" TOOL " --help'.\n");
    return 2;
}

static int usage_error(const char* message, const char* detail) {
    return usage_error2(message, detail, NULL);
}

static const char* const sink_names[] = {"report", "json",   "perfetto", "stats",
                                         "text",   "sqlite", "null",     "capture"};

static int known_sink(const char* name) {
    for (size_t i = 0; i < sizeof sink_names / sizeof sink_names[0]; i++) {
        if (!strcmp(name, sink_names[i]))
            return 1;
    }
    return 0;
}

/* Settles the sink from --to, --stats, --backend and -o; -1 = fine. */
static int choose_sink(options* o) {
    int chosen = (o->sink != NULL) + (o->stats_format != NULL) + (o->backend != NULL);
    if (chosen > 1)
        return usage_error("%s", "--to, --stats and --backend exclude each other");
    if (o->stats_format != NULL) {
        if (strcmp(o->stats_format, "text") && strcmp(o->stats_format, "csv") &&
            strcmp(o->stats_format, "json"))
            return usage_error("--stats takes text, csv or json, not '%s'", o->stats_format);
        o->sink = "stats";
    } else if (o->backend != NULL) {
        o->sink = "backend";
    } else if (o->sink == NULL) {
        if (!tool_output_has_extension(o->output))
            o->sink = "text"; /* standard output, a FIFO, /dev/null, a name like OUT */
        else if ((o->sink = tool_sink_for_output(o->output)) == NULL)
            return usage_error2("cannot tell the sink from the extension of '%s': use %s, or --to",
                                o->output, tool_output_extensions);
        else if (!strcmp(o->sink, "stats"))
            o->stats_format = "csv";
    } else if (!known_sink(o->sink)) {
        return usage_error(
            "unknown sink '%s' (report, perfetto, json, stats, text, sqlite, capture or null)",
            o->sink);
    }
    if (!strcmp(o->output, "-") && tool_sink_needs_file(o->sink))
        return usage_error("the %s sink writes files only: name one with -o OUT", o->sink);
    if (o->payload_json && strcmp(o->sink, "sqlite") != 0)
        return usage_error("--payload-json is for the sqlite sink (-o OUT.sqlite or --to sqlite), "
                           "not %s",
                           o->sink);
    if (o->sqlite_indexes != NULL && strcmp(o->sink, "sqlite") != 0)
        return usage_error("--sqlite-indexes is for the sqlite sink (-o OUT.sqlite or --to "
                           "sqlite), not %s",
                           o->sink);
    return -1;
}

/* An output that is also an input would be replaced by the replay of
 * itself: refused unless --force; -1 = fine. */
static int check_output_not_input(const options* o) {
    if (o->force || !strcmp(o->output, "-"))
        return -1;
    for (size_t i = 0; i < o->source_count; i++)
        if (o->sources[i].kind != REPLAY_INPUT_SYNTHETIC &&
            tool_same_file(o->output, o->sources[i].name))
            return usage_error("the output '%s' is also an input and would be replaced by the "
                               "result (--force replaces it)",
                               o->output);
    return -1;
}

/* Time suffixes: units of nanoseconds, and the k/M/G multipliers
 * --synthetic's events= takes. */
static const struct {
    const char* suffix;
    int64_t factor;
} time_suffixes[] = {{"", 1},           {"ns", 1},   {"us", 1000},   {"ms", 1000000},
                     {"s", 1000000000}, {"k", 1000}, {"M", 1000000}, {"G", 1000000000}};

/* A timestamp in the recorded unit (nanoseconds for most producers): an
 * integer or decimal number (1e9 too) with an optional suffix ns, us, ms,
 * s, k, M or G; the result must be a whole number in int64. 0 or -1. */
static int parse_time(const char* text, int64_t* out) {
    char* end;
    long long whole;
    double real;
    size_t i;
    errno = 0;
    whole = strtoll(text, &end, 10);
    if (end == text)
        return -1;
    if (*end == '.' || *end == 'e' || *end == 'E' || errno != 0) {
        errno = 0;
        real = strtod(text, &end);
        if (errno != 0)
            return -1;
    } else {
        real = NAN;
    }
    for (i = 0; i < sizeof time_suffixes / sizeof time_suffixes[0]; i++) {
        int64_t factor = time_suffixes[i].factor;
        double scaled;
        if (strcmp(end, time_suffixes[i].suffix) != 0)
            continue;
        if (isnan(real)) { /* exact integer arithmetic */
            if (whole > INT64_MAX / factor || whole < INT64_MIN / factor)
                return -1;
            *out = (int64_t)whole * factor;
            return 0;
        }
        scaled = real * (double)factor;
        if (!(scaled >= -9.2233720368547758e18 && scaled < 9.2233720368547758e18))
            return -1;
        /* whole up to the decimal's rounding (1.1ms is 1100000.0000000002) */
        if (fabs(scaled - nearbyint(scaled)) > 1e-9 * fmax(1.0, fabs(scaled)))
            return -1;
        *out = (int64_t)nearbyint(scaled);
        return 0;
    }
    return -1;
}

/* Splits a comma-separated list into patterns (argv is modified). */
static void add_patterns(char* list, const char** patterns, size_t* count) {
    for (char* p = strtok(list, ","); p != NULL; p = strtok(NULL, ","))
        patterns[(*count)++] = p;
}

/* An option with a value; -1 = fine, else the exit status. */
static int parse_value(options* o, const char* a, char* value) {
    int64_t ignored;
    if (!strcmp(a, "--to") && parse_time(value, &ignored) == 0)
        return usage_error("--to names the sink; '%s' is a time: the window's end is --until",
                           value);
    else if (!strcmp(a, "--to"))
        o->sink = value;
    else if ((!strcmp(a, "--from") || !strcmp(a, "--until")) &&
             parse_time(value, a[2] == 'f' ? &o->from : &o->to) != 0)
        return usage_error2("%s takes a time (1500000, 1.5ms, 2s, 3e9, 4G; units ns us ms s), "
                            "not '%s'",
                            a, value);
    else if (!strcmp(a, "--from"))
        o->has_from = 1;
    else if (!strcmp(a, "--until"))
        o->has_to = 1;
    else if (!strcmp(a, "--backend"))
        o->backend = value;
    else if (!strcmp(a, "--stats-reports"))
        o->stats_reports = value;
    else if (!strcmp(a, "--sqlite-indexes"))
        o->sqlite_indexes = value;
    else if (!strcmp(a, "--task-rows"))
        o->task_rows = value;
    else if (!strcmp(a, "--compression") && !tool_compression_ok(value))
        return usage_error("--compression takes a zstd level from -7 to 22, not '%s'", value);
    else if (!strcmp(a, "--compression"))
        o->compression = value;
    else if (!strcmp(a, "--synthetic"))
        o->sources[o->source_count++] = (replay_source){REPLAY_INPUT_SYNTHETIC, value};
    else if (!strcmp(a, "--streams"))
        add_patterns(value, o->streams, &o->stream_count);
    else if (!strcmp(a, "--domains"))
        add_patterns(value, o->domains, &o->domain_count);
    else if (!strcmp(a, "--threads")) {
        if (tool_parse_threads(value, 256, &o->threads) != 0)
            return usage_error("--threads takes a number from 1 to 256 or 'auto', not '%s'", value);
    } else if (!strcmp(a, "--order"))
        o->order = !strcmp(value, "time")     ? NVTXW_READER_ORDER_TIME
                   : !strcmp(value, "stream") ? NVTXW_READER_ORDER_STREAM
                                              : -1;
    else
        o->output = value;
    return -1;
}

static int takes_value(const char* a) {
    static const char* const names[] = {"--to",
                                        "-o",
                                        "--output",
                                        "--order",
                                        "--backend",
                                        "--streams",
                                        "--domains",
                                        "--from",
                                        "--synthetic",
                                        "--stats-reports",
                                        "--sqlite-indexes",
                                        "--task-rows",
                                        "--until",
                                        "--compression",
                                        "--threads"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (!strcmp(a, names[i]))
            return 1;
    }
    return 0;
}

/* Returns -1 to go on, else the exit status. */
static int parse(int argc, char** argv, options* o) {
    int status = -1;
    for (int i = 1; i < argc && status < 0; i++) {
        const char* a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            tool_put_stdout(usage_text);
            return 0;
        }
        if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
            printf(TOOL " %s (libnvtxw %s)\n", PACKAGE_VERSION, nvtxw_version());
            return 0;
        }
        if (!strcmp(a, "--allow-relative-backend"))
            o->allow_relative_backend = 1;
        else if (!strcmp(a, "--force"))
            o->force = 1;
        else if (!strcmp(a, "--payload-json"))
            o->payload_json = 1;
        else if (!strcmp(a, "-q") || !strcmp(a, "--quiet"))
            o->quiet = 1;
        else if (!strcmp(a, "--stats") || !strncmp(a, "--stats=", 8))
            o->stats_format = a[7] == '=' ? a + 8 : "text";
        else if (takes_value(a))
            status = i + 1 == argc ? usage_error("option %s needs a value", a)
                                   : parse_value(o, a, argv[++i]);
        else if (a[0] == '-' && a[1] != '\0')
            return usage_error("unknown option %s", a);
        else
            o->sources[o->source_count++] = (replay_source){REPLAY_INPUT_REPORT, a};
    }
    if (status >= 0)
        return status;
    if (o->source_count == 0)
        return usage_error("%s", "no input given");
    if (o->order < 0)
        return usage_error("%s", "--order takes 'stream' or 'time'");
    if (o->threads > 1 && o->order == NVTXW_READER_ORDER_TIME)
        return usage_error("%s", "--threads replays streams side by side: it needs --order stream");
    if (o->has_from && o->has_to && o->from > o->to)
        return usage_error("%s", "--from is after --until");
    if (o->stats_reports != NULL && !tool_config_value_ok(o->stats_reports))
        return usage_error("--stats-reports takes a comma-separated list, not '%s'",
                           o->stats_reports);
    if (o->sqlite_indexes != NULL && (!tool_config_value_ok(o->sqlite_indexes) ||
                                      o->sqlite_indexes[strspn(o->sqlite_indexes, " \t")] == '\0'))
        return usage_error("--sqlite-indexes takes a comma-separated list of start, stream, text, "
                           "counter, all or none, not '%s'",
                           o->sqlite_indexes);
    if (o->task_rows != NULL && !tool_row_count_ok(o->task_rows))
        return usage_error("--task-rows takes a number of rows or 'all', not '%s'", o->task_rows);
    if (!tool_config_value_ok(o->output) ||
        (o->backend != NULL && !tool_config_value_ok(o->backend)))
        return usage_error("paths with '|' or line breaks are not supported: '%s'",
                           tool_config_value_ok(o->output) ? o->backend : o->output);
    if ((status = choose_sink(o)) >= 0)
        return status;
    return check_output_not_input(o);
}

static void warn_damage(const char* path, const nvtxw_reader_t* reader) {
    for (size_t i = 0; i < nvtxw_reader_damage_count(reader); i++) {
        uint64_t offset, length;
        const char* reason;
        nvtxw_reader_damage(reader, i, &offset, &length, &reason);
        fprintf(stderr,
                TOOL ": warning: report damaged at offset %" PRIu64 " (%s); %" PRIu64
                     " records recovered from %s\n",
                offset, reason, nvtxw_reader_record_count(reader), path);
    }
}

/* Opens every input; 0, or 1 with the error printed. */
static int open_inputs(const options* o, nvtxw_reader_t** readers) {
    nvtxw_reader_options_t ropts = {sizeof ropts, o->order, 0};
    for (size_t i = 0; i < o->input_count; i++) {
        if (nvtxw_reader_open(o->inputs[i], &ropts, &readers[i]) != NVTXW_RESULT_SUCCESS) {
            fprintf(stderr, TOOL ": error: %s\n", nvtxw_last_error());
            return 1;
        }
    }
    return 0;
}

/* Makes --backend absolute: a relative path is refused unless
 * --allow-relative-backend, then resolved with realpath into `resolved`.
 * 0, or 1 with the error printed. */
static int check_backend(options* o, char* resolved) {
    if (o->backend == NULL || o->backend[0] == '/')
        return 0;
    if (!o->allow_relative_backend) {
        fprintf(stderr,
                TOOL ": error: --backend needs an absolute path, not '%s' (a relative path is "
                     "resolved against the current directory; pass --allow-relative-backend to "
                     "accept it)\n",
                o->backend);
        return 1;
    }
    if (realpath(o->backend, resolved) == NULL) {
        fprintf(stderr, TOOL ": error: --backend '%s': %s\n", o->backend, strerror(errno));
        return 1;
    }
    o->backend = resolved;
    return 0;
}

/* Sniffs what each input file is; 0, or 1 with the error printed. */
static int sniff_sources(options* o) {
    for (size_t i = 0; i < o->source_count; i++) {
        replay_source* source = &o->sources[i];
        if (source->kind == REPLAY_INPUT_REPORT &&
            (source->kind = replay_input_sniff(TOOL, source->name)) == REPLAY_INPUT_ERROR)
            return 1;
    }
    return 0;
}

/* One producer input without filters goes straight into the sink; merges
 * and filters go through the reader, so producers become reports first. */
static int direct_source(const options* o) {
    return o->source_count == 1 && o->sources[0].kind != REPLAY_INPUT_REPORT &&
           o->stream_count == 0 && o->domain_count == 0 && !o->has_from && !o->has_to &&
           o->order == NVTXW_READER_ORDER_STREAM;
}

/* Runs one producer input into ctx's session with an "events" progress line. */
static int run_producer(const options* o, const replay_input_ctx* ctx, const replay_source* source,
                        char* temp, size_t temp_size) {
    tool_progress bar;
    int status;
    tool_progress_begin(&bar, o->progress, TOOL, "events", tool_interrupt_writes(), 0,
                        temp != NULL ? NULL : o->progress_output);
    status = temp != NULL ? replay_input_to_report(ctx, source, temp, temp_size)
                          : replay_input_run(ctx, source);
    tool_progress_end(&bar);
    return status;
}

/* Settles o->inputs: report paths, producer inputs turned into temporary
 * reports named in temps (one PATH_MAX slot per source). 0 or 1. */
static int gather_reports(options* o, const replay_input_ctx* ctx, char* temps) {
    for (size_t i = 0; i < o->source_count; i++) {
        const replay_source* source = &o->sources[i];
        char* temp = temps + i * PATH_MAX;
        if (source->kind == REPLAY_INPUT_REPORT) {
            o->inputs[o->input_count++] = source->name;
            continue;
        }
        if (run_producer(o, ctx, source, temp, PATH_MAX) != 0) {
            temp[0] = '\0';
            return 1;
        }
        o->inputs[o->input_count++] = temp;
    }
    return 0;
}

/* A message about a temporary report gets a note naming the input it holds
 * (o->inputs[i] is the report of o->sources[i]). */
static void name_temporaries(const options* o, const char* message) {
    for (size_t i = 0; i < o->input_count; i++)
        if (o->sources[i].kind != REPLAY_INPUT_REPORT && strstr(message, o->inputs[i]) != NULL)
            fprintf(stderr, TOOL ": note: \"%s\" was the temporary report of '%s'\n", o->inputs[i],
                    o->sources[i].name);
}

/* Renumbered static IDs are said once each, the first few in full. */
#define RENUMBER_NOTES_MAX 10

typedef struct renumber_notes {
    const options* o;
    unsigned long count;
} renumber_notes;

/* The name the user gave for input `path` (a temporary report is named
 * after the source it holds). */
static const char* input_name(const options* o, const char* path) {
    for (size_t i = 0; i < o->input_count; i++)
        if (o->inputs[i] == path || strcmp(o->inputs[i], path) == 0)
            return o->sources[i].name;
    return path;
}

static void note_renumbered(void* context, const nvtxw_replay_renumbered_t* r) {
    renumber_notes* notes = context;
    if (notes->count++ < RENUMBER_NOTES_MAX)
        fprintf(stderr,
                TOOL ": note: %s ID %" PRIu64 " of domain \"%s\" in '%s' differs from its "
                     "registration in '%s'; replayed as %s ID %" PRIu64 "\n",
                r->kind, r->id, r->domain, input_name(notes->o, r->input_path),
                input_name(notes->o, r->first_path), r->kind, r->renumbered);
}

static void end_renumber_notes(const renumber_notes* notes) {
    if (notes->count > RENUMBER_NOTES_MAX)
        fprintf(stderr, TOOL ": note: %lu more static IDs renumbered\n",
                notes->count - RENUMBER_NOTES_MAX);
}

/* What the replay's periodic poll looks at: the readers, for the records
 * read so far (the progress line's count). */
typedef struct replay_poll {
    nvtxw_reader_t** readers;
    size_t count;
    atomic_uint_fast64_t records;
} replay_poll;

/* Called every 1024 records: the progress count, and whether to stop. */
static int should_stop(void* context) {
    replay_poll* poll = context;
    uint64_t records = 0;
    for (size_t i = 0; i < poll->count; i++)
        records += nvtxw_reader_record_count(poll->readers[i]);
    atomic_store_explicit(&poll->records, records, memory_order_relaxed);
    return tool_interrupted() != 0;
}

/* The records all inputs declare: the progress line's total. */
static uint64_t records_total(nvtxw_reader_t* const* readers, size_t count) {
    uint64_t total = 0;
    for (size_t i = 0; i < count; i++)
        total += nvtxw_reader_record_total(readers[i]);
    return total;
}

static void replay_options(const options* o, renumber_notes* notes, nvtxw_replay_options_t* r) {
    memset(r, 0, sizeof *r);
    r->struct_size = sizeof *r;
    r->order = o->order;
    r->streams = o->streams;
    r->stream_pattern_count = o->stream_count;
    r->domains = o->domains;
    r->domain_pattern_count = o->domain_count;
    r->has_from = o->has_from;
    r->has_to = o->has_to;
    r->from = o->from;
    r->to = o->to;
    r->on_renumber = note_renumbered;
    r->renumber_context = notes;
    r->should_stop = should_stop;
    r->threads = o->threads;
}

/* The json sink rebases times to the session's smallest one. Told it up
 * front (TimestampBase=, docs/chrome-json.md), it writes every time once,
 * instead of shifting the whole file at the end when a stream's earliest
 * event comes late (a PyTorch trace's whole-trace span comes last): the
 * smallest record time the inputs' chunks declare, no earlier than --from.
 * A wrong value costs only that pass. `config` itself when there is none. */
static const char* config_with_base(const options* o, const char* config,
                                    nvtxw_reader_t* const* readers, char* buf, size_t size) {
    int64_t base = 0, first, last;
    int known = 0;
    if (strcmp(o->sink, "json") != 0)
        return config;
    for (size_t i = 0; i < o->input_count; i++) {
        if (!nvtxw_reader_time_range(readers[i], &first, &last))
            continue;
        if (!known || first < base)
            base = first;
        known = 1;
    }
    if (known && o->has_from && base < o->from)
        base = o->from;
    if (!known ||
        snprintf(buf, size, "%s|TimestampBase=%lld", config, (long long)base) >= (int)size)
        return config;
    return buf;
}

/* The inputs, opened, replayed into one session with a "records" progress
 * line. */
static int replay_reports(const options* o, const replay_input_ctx* ctx, nvtxw_reader_t** readers,
                          renumber_notes* notes) {
    nvtxw_replay_options_t ropts;
    replay_poll poll = {readers, o->input_count, 0};
    tool_progress bar;
    nvtxwResultCode_t result;
    char config[8448];
    replay_options(o, notes, &ropts);
    ropts.stop_context = &poll;
    tool_progress_begin(&bar, o->progress, TOOL, "records", &poll.records,
                        records_total(readers, o->input_count), o->progress_output);
    result = nvtxw_reader_replay_many(
        readers, o->input_count, ctx->iface,
        config_with_base(o, ctx->config, readers, config, sizeof config), &ropts, NULL);
    tool_progress_end(&bar);
    return result == NVTXW_RESULT_SUCCESS ? 0 : 1;
}

static int replay(options* o, const char* config, nvtxw_reader_t** readers, char* temps) {
    renumber_notes notes = {o, 0};
    const void* iface = NULL;
    const void* ext = NULL;
    replay_input_ctx ctx = {TOOL, NULL, config, NULL};
    if (nvtxwGetInterface(NVTXW_INTERFACE_VERSION, &iface) != NVTXW_RESULT_SUCCESS ||
        nvtxwGetInterface(NVTXW_EXTENSION_INTERFACE_VERSION, &ext) != NVTXW_RESULT_SUCCESS) {
        fprintf(stderr, TOOL ": error: %s\n", nvtxw_last_error());
        return 1;
    }
    ctx.iface = tool_interruptible(iface, 1);
    ctx.ext = ext;
    if (sniff_sources(o) != 0)
        return 1;
    if (direct_source(o))
        return run_producer(o, &ctx, &o->sources[0], NULL, 0);
    if (gather_reports(o, &ctx, temps) != 0 || open_inputs(o, readers) != 0)
        return 1;
    replay_warn_unmatched(TOOL, readers, o->input_count, o->streams, o->stream_count, o->domains,
                          o->domain_count);
    if (replay_reports(o, &ctx, readers, &notes) != 0) {
        end_renumber_notes(&notes);
        if (tool_interrupted())
            return 1; /* said by tool_interrupt_status */
        fprintf(stderr, TOOL ": error: %s\n", nvtxw_last_error());
        name_temporaries(o, nvtxw_last_error());
        return 1;
    }
    end_renumber_notes(&notes);
    for (size_t i = 0; i < o->input_count; i++)
        warn_damage(o->inputs[i], readers[i]);
    return 0;
}

/* Under an address-space limit (ulimit -v): one malloc arena
 * (tool_memory_limit) and no more replay threads than the limit holds:
 * REPLAY_BASE_MEMORY for the process and its session, REPLAY_THREAD_MEMORY
 * per thread (its 1 MiB stack, its readers of the inputs, the sink's
 * buffers of the streams it writes: 1.3 MB more peak RSS per thread on the
 * report of a 200 MB PyTorch trace into JSON, with room). */
#define REPLAY_BASE_MEMORY ((size_t)48 << 20)
#define REPLAY_THREAD_MEMORY ((size_t)8 << 20)
static void fit_threads(options* o) {
    size_t limit;
    unsigned fit;
    if (o->threads <= 1)
        return;
    limit = tool_memory_limit();
    fit = tool_threads_that_fit(limit, o->threads, REPLAY_BASE_MEMORY, REPLAY_THREAD_MEMORY);
    if (fit < o->threads && !o->quiet)
        fprintf(stderr,
                TOOL ": note: the address space is limited to %zu MiB (ulimit -v): replaying on "
                     "%u thread%s instead of %u\n",
                limit >> 20, fit, fit == 1 ? "" : "s", o->threads);
    o->threads = fit;
}

static int run(int argc, char** argv) {
    options o = {0};
    nvtxw_reader_t** readers;
    char* temps; /* temporary reports, PATH_MAX apart */
    char config[8400];
    char backend_path[PATH_MAX];
    tool_output out;
    int to_file;
    int status;
    size_t patterns = 1;
    for (int i = 1; i < argc; i++)
        patterns += strlen(argv[i]) / 2 + 1; /* bounds the comma-separated items */
    o.output = "-";
    o.order = NVTXW_READER_ORDER_STREAM;
    o.inputs = nvtxw_calloc((size_t)argc, sizeof *o.inputs);
    o.streams = nvtxw_calloc(patterns, sizeof *o.streams);
    o.domains = nvtxw_calloc(patterns, sizeof *o.domains);
    o.sources = nvtxw_calloc((size_t)argc, sizeof *o.sources);
    readers = nvtxw_calloc((size_t)argc, sizeof *readers);
    temps = nvtxw_calloc((size_t)argc, PATH_MAX);
    if (o.inputs == NULL || o.streams == NULL || o.domains == NULL || o.sources == NULL ||
        readers == NULL || temps == NULL) {
        fprintf(stderr, TOOL ": error: out of memory\n");
        status = 1;
    } else if ((status = parse(argc, argv, &o)) < 0 &&
               (status = check_backend(&o, backend_path)) == 0 &&
               (status = (to_file = o.backend == NULL && strcmp(o.sink, "null") != 0) &&
                         tool_output_begin(&out, TOOL, o.output) != 0) == 0) {
        fit_threads(&o);
        o.progress = !o.quiet && isatty(STDERR_FILENO);
        o.progress_output = to_file ? out.write_path : NULL;
        if (snprintf(config, sizeof config,
                     "Sink=%s|Output=%s|Overwrite=%s|StatsFormat=%s|Backend=%s%s%s%s%s%s%s%s%s%s",
                     o.sink, to_file ? out.write_path : o.output, tool_overwrite_setting(to_file),
                     o.stats_format ? o.stats_format : "text", o.backend ? o.backend : "",
                     o.stats_reports ? "|StatsReports=" : "",
                     o.stats_reports ? o.stats_reports : "", o.task_rows ? "|StatsTaskRows=" : "",
                     o.task_rows ? o.task_rows : "", o.compression ? "|Compression=" : "",
                     o.compression ? o.compression : "", o.payload_json ? "|PayloadJson=yes" : "",
                     o.sqlite_indexes ? "|SqliteIndexes=" : "",
                     o.sqlite_indexes ? o.sqlite_indexes : "") >= (int)sizeof config)
            status = usage_error("output path too long: %s", o.output);
        else
            status = replay(&o, config, readers, temps);
        if (tool_interrupted() && status == 0)
            status = 1; /* stopped during the session's end: the output is not whole */
        if (to_file)
            status = tool_output_end(&out, status);
    }
    for (size_t i = 0; readers != NULL && i < (size_t)argc; i++)
        nvtxw_reader_close(readers[i]);
    for (size_t i = 0; temps != NULL && i < (size_t)argc; i++) {
        if (temps[i * PATH_MAX] != '\0')
            unlink(temps + i * PATH_MAX);
    }
    nvtxwFinalize();
    nvtxw_free(readers);
    nvtxw_free(temps);
    nvtxw_free(o.sources);
    nvtxw_free(o.inputs);
    nvtxw_free(o.streams);
    nvtxw_free(o.domains);
    return tool_interrupt_status(status);
}

int main(int argc, char** argv) {
    tool_log_warnings_by_default();
    tool_ignore_file_size_signal();
    tool_interrupt_install(TOOL);
    return tool_finish_stdout(TOOL, run(argc, argv));
}
