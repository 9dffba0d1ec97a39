/*
 * nvtxw-replay - replay a report through libnvtxw's own backend.
 *
 *   nvtxw-replay REPORT.nvtxw [--to SINK | --stats[=FMT] | --backend LIB] [-o OUT]
 *
 * A thin client of the public API: the report is opened with
 * nvtxw_reader_open and replayed with nvtxw_reader_replay into a session
 * whose configString selects the sink. Exit status: 0 success (also when a
 * damaged report's readable part replayed; damage is a warning), 1 failure,
 * 2 usage error.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "nvtxw/nvtxw.h"

#define TOOL "nvtxw-replay"

static const char usage_text[] =
    "Usage: " TOOL " REPORT.nvtxw [--to SINK | --stats[=FORMAT] | --backend LIB] [-o OUT]\n"
    "\n"
    "Replays every record of a report (registrations, events, counters, time\n"
    "synchronization) through libnvtxw's NVTXW backend into SINK.\n"
    "\n"
    "Options: --to SINK            report, json, stats, text or null; default: from\n"
    "                              the extension of OUT (.nvtxw .json .txt), else text\n"
    "         --stats[=FORMAT]     range statistics (text, csv or json; default text)\n"
    "         --backend LIB        forward to another NVTXW v2 backend (absolute path)\n"
    "         -o, --output OUT     output file ('-' = standard output, the default)\n"
    "         --order stream|time  record order (default stream)\n"
    "         -h, --help           show this help\n"
    "         -V, --version        show the version\n";

typedef struct options {
    const char* input;
    const char* sink;
    const char* output;
    int order;
    const char* stats_format; /* --stats: NULL, or text/csv/json */
    const char* backend;      /* --backend */
} options;

static int usage_error(const char* message, const char* detail) {
    fprintf(stderr, TOOL ": error: ");
    fprintf(stderr, message, detail);
    fprintf(stderr, "\nTry '" TOOL " --help'.\n");
    return 2;
}

static const char* const sink_names[] = {"report", "json", "stats", "text", "null"};

static int known_sink(const char* name) {
    for (size_t i = 0; i < sizeof sink_names / sizeof sink_names[0]; i++) {
        if (!strcmp(name, sink_names[i]))
            return 1;
    }
    return 0;
}

/* The sink an output file's extension implies, or NULL. */
static const char* sink_for_output(const char* output) {
    const char* dot = strrchr(output, '.');
    if (dot == NULL)
        return NULL;
    return !strcmp(dot, ".nvtxw")  ? "report"
           : !strcmp(dot, ".json") ? "json"
           : !strcmp(dot, ".txt")  ? "text"
                                   : NULL;
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
        o->sink = sink_for_output(o->output);
        if (o->sink == NULL)
            o->sink = "text";
    } else if (!known_sink(o->sink)) {
        return usage_error("unknown sink '%s' (report, json, stats, text or null)", o->sink);
    }
    return -1;
}

/* Returns -1 to go on, else the exit status. */
static int parse(int argc, char** argv, options* o) {
    for (int i = 1; i < argc; i++) {
        const char* a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage_text, stdout);
            return 0;
        }
        if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
            printf(TOOL " %s\n", nvtxw_version());
            return 0;
        }
        if (!strcmp(a, "--stats") || !strncmp(a, "--stats=", 8)) {
            o->stats_format = a[7] == '=' ? a + 8 : "text";
        } else if (!strcmp(a, "--to") || !strcmp(a, "-o") || !strcmp(a, "--output") ||
                   !strcmp(a, "--order") || !strcmp(a, "--backend")) {
            if (i + 1 == argc)
                return usage_error("option %s needs a value", a);
            if (!strcmp(a, "--to"))
                o->sink = argv[++i];
            else if (!strcmp(a, "--backend"))
                o->backend = argv[++i];
            else if (!strcmp(a, "--order"))
                o->order = !strcmp(argv[++i], "time")   ? NVTXW_READER_ORDER_TIME
                           : !strcmp(argv[i], "stream") ? NVTXW_READER_ORDER_STREAM
                                                        : -1;
            else
                o->output = argv[++i];
        } else if (a[0] == '-' && a[1] != '\0') {
            return usage_error("unknown option %s", a);
        } else if (o->input != NULL) {
            return usage_error("more than one report given (%s)", a);
        } else {
            o->input = a;
        }
    }
    if (o->input == NULL)
        return usage_error("%s", "no report given");
    if (o->order < 0)
        return usage_error("%s", "--order takes 'stream' or 'time'");
    return choose_sink(o);
}

static void warn_damage(const nvtxw_reader_t* reader, uint64_t records) {
    for (size_t i = 0; i < nvtxw_reader_damage_count(reader); i++) {
        uint64_t offset, length;
        const char* reason;
        nvtxw_reader_damage(reader, i, &offset, &length, &reason);
        fprintf(stderr,
                TOOL ": warning: report damaged at offset %" PRIu64 " (%s); %" PRIu64
                     " records recovered\n",
                offset, reason, records);
    }
}

int main(int argc, char** argv) {
    options o = {NULL, NULL, "-", NVTXW_READER_ORDER_STREAM, NULL, NULL};
    nvtxw_reader_options_t ropts = {sizeof ropts, 0, 0};
    nvtxw_reader_t* reader = NULL;
    const void* iface = NULL;
    char config[8400];
    uint64_t records = 0;
    int status = parse(argc, argv, &o);
    if (status >= 0)
        return status;
    if (snprintf(config, sizeof config, "Sink=%s|Output=%s|Overwrite=yes|StatsFormat=%s|Backend=%s",
                 o.sink, o.output, o.stats_format ? o.stats_format : "text",
                 o.backend ? o.backend : "") >= (int)sizeof config)
        return usage_error("output path too long: %s", o.output);
    ropts.order = o.order;
    if (nvtxwGetInterface(NVTXW_INTERFACE_VERSION, &iface) != NVTXW_RESULT_SUCCESS ||
        nvtxw_reader_open(o.input, &ropts, &reader) != NVTXW_RESULT_SUCCESS) {
        fprintf(stderr, TOOL ": error: %s\n", nvtxw_last_error());
        return 1;
    }
    if (nvtxw_reader_replay(reader, iface, config, &records) != NVTXW_RESULT_SUCCESS) {
        fprintf(stderr, TOOL ": error: %s\n", nvtxw_last_error());
        status = 1;
    } else {
        warn_damage(reader, records);
        status = 0;
    }
    nvtxw_reader_close(reader);
    nvtxwFinalize();
    return status;
}
