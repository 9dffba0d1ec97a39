/*
 * tools/record/nvtxw_record.c - nvtxw-record: runs a program with NVTX's
 * injection set to libnvtxw-inject.so, so that its NVTX annotations are
 * recorded into a report (or any file sink) without Nsight Systems.
 *
 *   nvtxw-record [-o OUT] [--to SINK] [--stats[=FMT]] [--quiet] [--] PROGRAM [ARGS...]
 *
 * The program runs as a child with NVTX_INJECTION64_PATH and the
 * recorder's variables (rec_session.c) in its environment; its exit
 * status is ours (128 + N when signal N killed it, as shells report it).
 * Afterwards: a program that never called NVTX gets an empty report
 * written here; a program killed before it could finish leaves its report
 * under the temporary name libnvtxw wrote it to, which is renamed to OUT
 * (readable up to its last complete chunk). The program's recording says
 * in a status file (NVTXW_RECORD_STATUS) whether it began, ended or
 * failed; a failed one (a full disk) makes the status 1 when the program's
 * was 0. Exit status 125 for our own
 * errors before the program ran, 127 when it cannot be run. With --stats
 * the report, once written, is read back into the stats sink on standard
 * output (nsys's --stats=true).
 */
#define _GNU_SOURCE
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nvtxw/nvtxw.h"
#include "tool_output.h"

#define TOOL "nvtxw-record"
#define STATUS_OURS 125
#define STATUS_CANNOT_RUN 127

#ifndef NVTXW_INJECT_DIR
#define NVTXW_INJECT_DIR "/usr/local/lib/nvtxw"
#endif

static const char usage_text[] =
    "Usage: " TOOL " [-o OUT] [--to SINK] [--stats[=FORMAT]] [--quiet] [--] PROGRAM [ARGS...]\n"
    "\n"
    "Runs PROGRAM with NVTX's injection set to libnvtxw-inject.so: its NVTX marks,\n"
    "ranges, domains, categories, registered strings, thread names, payloads,\n"
    "counters, sync objects and resources are recorded, each thread on its own\n"
    "stream, and written to OUT when it exits.\n"
    "The exit status is PROGRAM's (128 + N when signal N killed it).\n"
    "\n"
    "Options: -o, --output OUT  the report or file to write (default: PROGRAM's\n"
    "                           name with .nvtxw); its extension chooses the sink\n"
    "                           as in nvtxw-replay (.nvtxw .pftrace .json .txt\n"
    "                           .sqlite .csv .jsonl)\n"
    "         --to SINK         report, perfetto, json, stats, text, sqlite or\n"
    "                           capture, whatever OUT's extension\n"
    "         --stats[=FORMAT]  then print the report's range statistics on standard\n"
    "                           output (text, csv or json; default text); OUT must\n"
    "                           be a report\n"
    "         --quiet           no message when the report is written\n"
    "         -h, --help        this text\n"
    "\n"
    "Child processes that exec another NVTX-annotated program write OUT with\n"
    "their process ID before its extension (OUT.PID.nvtxw). Environment:\n"
    "NVTXW_INJECT_LIBRARY overrides the injection library's path (default\n" NVTXW_INJECT_DIR
    "/libnvtxw-inject.so). See docs/record.md.\n";

typedef struct options {
    const char* output;
    const char* sink;
    const char* stats; /* --stats: the format, else NULL */
    int quiet;
    char** program; /* PROGRAM ARGS..., NULL-terminated */
} options;

static int usage_error(const char* message, const char* detail) {
    fprintf(stderr, "%s: error: %s%s%s\nTry '%s --help'.\n", TOOL, message, detail ? ": " : "",
            detail ? detail : "", TOOL);
    return 2;
}

static int parse(int argc, char** argv, options* o) {
    int i;
    for (i = 1; i < argc; i++) {
        const char* a = argv[i];
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (a[0] != '-' || a[1] == '\0')
            break;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            tool_put_stdout(usage_text);
            exit(tool_finish_stdout(TOOL, 0));
        } else if (strcmp(a, "--quiet") == 0) {
            o->quiet = 1;
        } else if (strcmp(a, "--stats") == 0) {
            o->stats = "text";
        } else if (strncmp(a, "--stats=", 8) == 0) {
            o->stats = a + 8;
            if (strcmp(o->stats, "text") != 0 && strcmp(o->stats, "csv") != 0 &&
                strcmp(o->stats, "json") != 0)
                return usage_error("unknown --stats format (text, csv or json)", o->stats);
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0 || strcmp(a, "--to") == 0) {
            if (i + 1 == argc)
                return usage_error("option needs a value", a);
            if (strcmp(a, "--to") == 0)
                o->sink = argv[++i];
            else
                o->output = argv[++i];
        } else if (strncmp(a, "--output=", 9) == 0) {
            o->output = a + 9;
        } else if (strncmp(a, "--to=", 5) == 0) {
            o->sink = a + 5;
        } else {
            return usage_error("unknown option", a);
        }
    }
    if (i == argc)
        return usage_error("no program to run", NULL);
    o->program = argv + i;
    return 0;
}

static const char* const file_sinks[] = {"report", "perfetto", "json",   "stats",
                                         "text",   "sqlite",   "capture"};

static int sink_known(const char* sink) {
    size_t i;
    for (i = 0; i < sizeof file_sinks / sizeof file_sinks[0]; i++)
        if (strcmp(sink, file_sinks[i]) == 0)
            return 1;
    return 0;
}

/* `path` made absolute (the program may change directory); 0 or -1. */
static int absolute(const char* path, char* out, size_t size) {
    char cwd[PATH_MAX];
    if (path[0] == '/')
        return snprintf(out, size, "%s", path) < (int)size ? 0 : -1;
    if (getcwd(cwd, sizeof cwd) == NULL)
        return -1;
    return snprintf(out, size, "%s/%s", cwd, path) < (int)size ? 0 : -1;
}

/* The default output: the program's name with .nvtxw. */
static void default_output(const char* program, char* out, size_t size) {
    const char* base = strrchr(program, '/');
    snprintf(out, size, "%s.nvtxw", base != NULL ? base + 1 : program);
}

/* The file's identity, to tell whether the run replaced it. */
typedef struct file_id {
    int exists;
    dev_t dev;
    ino_t ino;
} file_id;

static file_id identify(const char* path) {
    struct stat st;
    file_id id = {0, 0, 0};
    if (stat(path, &st) == 0)
        id.exists = 1, id.dev = st.st_dev, id.ino = st.st_ino;
    return id;
}

/* A temporary report left by a killed run (OUT.tmp-XXXXXX, common/
 * output_file.h) renamed to OUT; 1 when one was, 0 when none is there. */
static int rescue_temporary(const char* output) {
    char dir[PATH_MAX], prefix[PATH_MAX], found[2 * PATH_MAX + 2];
    const char* slash = strrchr(output, '/');
    size_t prefix_length;
    struct dirent* entry;
    DIR* d;
    int count = 0;
    snprintf(dir, sizeof dir, "%.*s", (int)(slash - output), output);
    snprintf(prefix, sizeof prefix, "%s.tmp-", slash + 1);
    prefix_length = strlen(prefix);
    if ((d = opendir(dir[0] != '\0' ? dir : "/")) == NULL)
        return 0;
    while ((entry = readdir(d)) != NULL)
        if (strncmp(entry->d_name, prefix, prefix_length) == 0 &&
            strlen(entry->d_name) == prefix_length + 6) {
            snprintf(found, sizeof found, "%s/%s", dir, entry->d_name);
            count++;
        }
    closedir(d);
    if (count != 1 || strlen(found) >= PATH_MAX || rename(found, output) != 0)
        return 0;
    return 1;
}

/* An empty but valid output for a program that never called NVTX. */
static int write_empty(const char* output, const char* sink, const char* name) {
    const nvtxwInterface_t* iface = NULL;
    nvtxwSessionAttributes_t attr;
    nvtxwSessionHandle_t session = NULL;
    char config[PATH_MAX + 64];
    snprintf(config, sizeof config, "Sink=%s|Output=%s", sink, output);
    nvtxwSessionAttributesInit(&attr);
    attr.name = name;
    attr.configString = config;
    if (nvtxwGetInterface(NVTXW_INTERFACE_VERSION, (const void**)&iface) != 0 ||
        iface->SessionBegin(&attr, &session) != NVTXW_RESULT_SUCCESS ||
        iface->SessionEnd(session) != NVTXW_RESULT_SUCCESS) {
        fprintf(stderr, "%s: error: cannot write the empty report %s: %s\n", TOOL, output,
                nvtxw_last_error());
        return -1;
    }
    return 0;
}

static pid_t child;

static void forward_signal(int sig) {
    if (child > 0)
        kill(child, sig);
}

/* Where the program's recording says how it went (rec_session.c). */
static char status_path[PATH_MAX];

/* The environment the program runs with (in the child, before exec). */
static int child_environment(const char* library, const char* output, const char* sink) {
    char config[64], pid[24];
    if (setenv("NVTXW_RECORD_STATUS", status_path, 1) != 0)
        return -1;
    snprintf(config, sizeof config, "Sink=%s", sink);
    snprintf(pid, sizeof pid, "%ld", (long)getpid());
    return setenv("NVTX_INJECTION64_PATH", library, 1) != 0 ||
                   setenv("NVTXW_RECORD_OUTPUT", output, 1) != 0 ||
                   setenv("NVTXW_RECORD_CONFIG", config, 1) != 0 ||
                   setenv("NVTXW_RECORD_PID", pid, 1) != 0
               ? -1
               : 0;
}

/* Runs the program; its wait status, or -1. */
static int run(char** program, const char* library, const char* output, const char* sink) {
    int status;
    struct sigaction ignore, forward, old_int, old_quit;
    memset(&ignore, 0, sizeof ignore);
    ignore.sa_handler = SIG_IGN;
    memset(&forward, 0, sizeof forward);
    forward.sa_handler = forward_signal;
    /* the terminal's ^C and ^\ reach the program, in our process group:
     * we wait for it to write its report instead of dying first */
    sigaction(SIGINT, &ignore, &old_int);
    sigaction(SIGQUIT, &ignore, &old_quit);
    sigaction(SIGTERM, &forward, NULL);
    sigaction(SIGHUP, &forward, NULL);
    child = fork();
    if (child < 0) {
        fprintf(stderr, "%s: error: cannot start %s: %s\n", TOOL, program[0], strerror(errno));
        return -1;
    }
    if (child == 0) {
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGQUIT, &old_quit, NULL);
        if (child_environment(library, output, sink) != 0) {
            fprintf(stderr, "%s: error: cannot set the environment: %s\n", TOOL, strerror(errno));
            _exit(STATUS_OURS);
        }
        execvp(program[0], program);
        fprintf(stderr, "%s: error: cannot run %s: %s\n", TOOL, program[0], strerror(errno));
        _exit(STATUS_CANNOT_RUN);
    }
    while (waitpid(child, &status, 0) < 0)
        if (errno != EINTR) {
            fprintf(stderr, "%s: error: cannot wait for %s: %s\n", TOOL, program[0],
                    strerror(errno));
            return -1;
        }
    return status;
}

/* Creates the status file (empty: the program has not called NVTX yet). */
static int status_create(void) {
    const char* dir = getenv("TMPDIR");
    int fd;
    snprintf(status_path, sizeof status_path, "%s/nvtxw-record-status.XXXXXX",
             dir != NULL && dir[0] != '\0' ? dir : "/tmp");
    if ((fd = mkstemp(status_path)) < 0) {
        fprintf(stderr, "%s: error: cannot create %s: %s\n", TOOL, status_path, strerror(errno));
        return -1;
    }
    close(fd);
    return 0;
}

/* What the program's recording said: its first line, "" when it said
 * nothing (no NVTX call); the file is removed. */
static void status_read(char* line, size_t size) {
    FILE* f = fopen(status_path, "r");
    line[0] = '\0';
    if (f != NULL) {
        if (fgets(line, (int)size, f) == NULL)
            line[0] = '\0';
        fclose(f);
    }
    line[strcspn(line, "\n")] = '\0';
    unlink(status_path);
}

/* What became of the output; the exit status to return. */
static int finish(const options* o, const char* output, const char* sink, file_id before,
                  int status) {
    file_id after = identify(output);
    int replaced =
        after.exists && (!before.exists || after.dev != before.dev || after.ino != before.ino);
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    const char* base = strrchr(o->program[0], '/');
    char said[1200];
    status_read(said, sizeof said);
    if (WIFEXITED(status) && code == STATUS_CANNOT_RUN && !replaced)
        return code;
    if (strncmp(said, "failed", 6) == 0) {
        /* the program ran; its recording did not make it: the tool failed */
        fprintf(stderr, "%s: error: %s ran, but its report %s was not written (%s)\n", TOOL,
                o->program[0], output, said);
        return code != 0 ? code : 1;
    }
    if (!replaced && rescue_temporary(output)) {
        fprintf(stderr,
                "%s: %s did not finish its report; %s holds it up to its last complete "
                "chunk\n",
                TOOL, o->program[0], output);
        return code;
    }
    if (!replaced && said[0] == '\0' &&
        write_empty(output, sink, base != NULL ? base + 1 : o->program[0]) != 0)
        return code != 0 ? code : 1;
    if (!replaced && said[0] != '\0') {
        fprintf(stderr,
                "%s: error: %s ran, but its report %s is not there (its recording said "
                "\"%s\")\n",
                TOOL, o->program[0], output, said);
        return code != 0 ? code : 1;
    }
    if (!o->quiet)
        fprintf(stderr, "%s: %s%s\n", TOOL, replaced ? "wrote " : "no NVTX call; wrote an empty ",
                output);
    return code;
}

/* --stats: the report read back into the stats sink, on standard output;
 * 0 or -1 (said on stderr). */
static int print_stats(const char* report, const char* format) {
    const nvtxwInterface_t* iface = NULL;
    nvtxw_reader_t* reader = NULL;
    char config[64];
    nvtxwResultCode_t result;
    snprintf(config, sizeof config, "Sink=stats|Output=-|StatsFormat=%s", format);
    fflush(stdout);
    if (nvtxwGetInterface(NVTXW_INTERFACE_VERSION, (const void**)&iface) != 0 ||
        nvtxw_reader_open(report, NULL, &reader) != NVTXW_RESULT_SUCCESS) {
        fprintf(stderr, "%s: error: cannot read %s for its statistics: %s\n", TOOL, report,
                nvtxw_last_error());
        return -1;
    }
    result = nvtxw_reader_replay(reader, iface, config, NULL);
    if (result != NVTXW_RESULT_SUCCESS)
        fprintf(stderr, "%s: error: cannot print the statistics of %s: %s\n", TOOL, report,
                nvtxw_last_error());
    nvtxw_reader_close(reader);
    return result == NVTXW_RESULT_SUCCESS ? 0 : -1;
}

int main(int argc, char** argv) {
    options o = {NULL, NULL, NULL, 0, NULL};
    char output[PATH_MAX], library[PATH_MAX], found[PATH_MAX], given[PATH_MAX];
    const char* env_library = getenv("NVTXW_INJECT_LIBRARY");
    const char* sink;
    file_id before;
    int status;
    tool_ignore_file_size_signal();
    if ((status = parse(argc, argv, &o)) != 0)
        return status;
    if (o.output == NULL)
        default_output(o.program[0], given, sizeof given), o.output = given;
    sink = o.sink != NULL ? o.sink : tool_sink_for_output(o.output);
    if (sink == NULL)
        sink = tool_output_has_extension(o.output) ? NULL : "report";
    if (sink == NULL || !sink_known(sink))
        return usage_error(o.sink != NULL ? "unknown sink" : "unknown output extension",
                           o.sink != NULL ? o.sink : o.output);
    if (!tool_config_value_ok(o.output) || absolute(o.output, output, sizeof output) != 0)
        return usage_error("output path cannot be used", o.output);
    if (o.stats != NULL && strcmp(sink, "report") != 0)
        return usage_error("--stats reads the report back, so OUT must be a report (.nvtxw)",
                           o.output);
    snprintf(found, sizeof found, "%s",
             env_library != NULL && env_library[0] != '\0' ? env_library
                                                           : NVTXW_INJECT_DIR
                 "/libnvtxw-inject.so");
    if (access(found, R_OK) != 0 || absolute(found, library, sizeof library) != 0) {
        fprintf(stderr,
                "%s: error: cannot read the injection library %s: %s (set "
                "NVTXW_INJECT_LIBRARY)\n",
                TOOL, found, strerror(errno));
        return STATUS_OURS;
    }
    before = identify(output);
    if (status_create() != 0)
        return STATUS_OURS;
    status = run(o.program, library, output, sink);
    if (status < 0)
        return STATUS_OURS;
    status = finish(&o, output, sink, before, status);
    if (o.stats != NULL && identify(output).exists && print_stats(output, o.stats) != 0 &&
        status == 0)
        status = 1;
    return tool_finish_stdout(TOOL, status);
}
