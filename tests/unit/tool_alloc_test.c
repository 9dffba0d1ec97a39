/*
 * tests/unit/tool_alloc_test.c - allocation-failure walk through whole tool
 * runs: nvtxw-replay (tool_alloc_replay_test) and nvtxw-otf2-import
 * (tool_alloc_import_test).
 *
 * The tool's own main() is compiled into this program renamed tool_main
 * (-Dmain=tool_main). For each command line, for n = 0, 1, 2, ... a fork()ed
 * child runs tool_main with the (n+1)th allocation of the process and every
 * later one refused (the tools allocate through libnvtxw's wrappers, so the
 * hook counts the tool's and the library's allocations together; those of
 * OTF2, yajl, libyaml, zstd and libc are not injected), until a run meets no
 * refusal. Every run that met one must:
 *   - exit with status 1 (not 0: a refused allocation that still reports
 *     success would be silent loss; not a signal or a sanitizer's status);
 *   - say why on stderr in the tool's "TOOL: error: ..." form;
 *   - leave no file in the output folder (no output, no temporary file).
 * and no run may print a sanitizer's report: the child ends with exit(), so
 * under ASan LeakSanitizer checks every run for leaks (its exit status is 1,
 * like a clean failure: the log tells them apart).
 *
 * A walk of more than WALK_RUNS allocations takes every one of the first
 * WALK_EVERY, then a stride that keeps the runs near WALK_RUNS, and ends with
 * the last allocation; NVTXW_ALLOC_WALK=all (`make check-long`) walks every
 * one.
 */
#define _GNU_SOURCE
#undef main /* this file's main is Check's; the tool's is tool_main */
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/alloc.h"
#include "run_suite.h"
#include "test_util.h"
#include "tool_alloc.h" /* the tools' copy of the declarations: must agree */

int tool_main(int argc, char** argv);

#if defined(TOOL_ALLOC_REPLAY)
#define TOOL "nvtxw-replay" /* as in the tool's messages */
#elif defined(TOOL_ALLOC_IMPORT)
#define TOOL "nvtxw-otf2-import"
#else
#error "define TOOL_ALLOC_REPLAY or TOOL_ALLOC_IMPORT"
#endif

#define WALK_EVERY 200
#define WALK_RUNS 350
#define MAX_ARGS 16

static char dir[PATH_MAX];     /* inputs */
static char out[PATH_MAX + 8]; /* the output folder, empty between runs */

/* What the child saw, in memory shared with the parent: its exit status
 * does not say whether an allocation was refused. */
typedef struct child_report {
    long granted; /* allocations that succeeded */
    long refused; /* allocations that the hook refused */
} child_report;
static child_report* shared;

static void record_counts(void) {
    shared->granted = nvtxw_alloc_granted();
    shared->refused = nvtxw_alloc_refused();
}

/* Runs tool_main with `argv` in a child whose allocations fail after `n`
 * (n < 0: never, and nothing is counted); returns the wait status and what
 * the child counted. */
static int run_tool(char* const* argv, long n, const char* log, child_report* seen) {
    int status = 0, argc = 0;
    pid_t pid;
    while (argv[argc] != NULL)
        argc++;
    shared->granted = shared->refused = -1;
    fflush(NULL);
    pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
            _exit(97);
        close(fd);
        /* writable copies, as a real argv is (tools may split options in place) */
        static char* args[MAX_ARGS + 1];
        for (int i = 0; i < argc && i < MAX_ARGS; i++)
            args[i] = strdup(argv[i]);
        atexit(record_counts);
        nvtxw_alloc_fail_after(n);
        exit(tool_main(argc < MAX_ARGS ? argc : MAX_ARGS, args));
    }
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    *seen = *shared;
    return status;
}

/* The names left in the output folder, or "" when it is empty; removes them. */
static void leftovers(char* names, size_t size) {
    DIR* d = opendir(out);
    struct dirent* e;
    size_t used = 0;
    names[0] = '\0';
    ck_assert_ptr_nonnull(d);
    while ((e = readdir(d)) != NULL) {
        char path[PATH_MAX * 2];
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        used += (size_t)snprintf(names + used, used < size ? size - used : 0, "%s ", e->d_name);
        snprintf(path, sizeof path, "%s/%s", out, e->d_name);
        tu_remove_tree(path);
    }
    closedir(d);
    if (used >= size)
        names[size - 1] = '\0';
}

/* The last lines of a log, for a failure message. */
static const char* log_tail(const char* log, char* buf, size_t size) {
    size_t length = 0;
    char* text = tu_read_file_or_null(log, &length);
    const char* start;
    if (text == NULL)
        return "(no log)";
    start = length > size - 1 ? text + length - (size - 1) : text;
    snprintf(buf, size, "%s", start);
    free(text);
    return buf;
}

/* A sanitizer's report in the log fails the run whatever its exit status
 * (ASan's, LeakSanitizer's included, is 1 like the tool's own failure). */
static void check_no_sanitizer_report(const char* what, long n, const char* log) {
    char tail[1200];
    char* text = tu_read_file_or_fail(log, NULL);
    int found = strstr(text, "Sanitizer") != NULL || strstr(text, "runtime error:") != NULL;
    free(text);
    ck_assert_msg(!found, "%s n=%ld: a sanitizer report; log:\n%s", what, n,
                  log_tail(log, tail, sizeof tail));
}

/* Checks one run that met a refused allocation (see the file comment). */
static void check_refused_run(const char* what, long n, int status, const char* log) {
    char tail[1200], left[512], prefix[64];
    size_t length = 0;
    char* text;
    ck_assert_msg(WIFEXITED(status), "%s n=%ld: killed by signal %d; log:\n%s", what, n,
                  WTERMSIG(status), log_tail(log, tail, sizeof tail));
    ck_assert_msg(WEXITSTATUS(status) == 1,
                  "%s n=%ld: exit status %d after a refused allocation (want 1); log:\n%s", what, n,
                  WEXITSTATUS(status), log_tail(log, tail, sizeof tail));
    text = tu_read_file_or_fail(log, &length);
    snprintf(prefix, sizeof prefix, "%s: error: ", TOOL);
    ck_assert_msg(strstr(text, prefix) != NULL, "%s n=%ld: no '%s' message; log:\n%s", what, n,
                  prefix, log_tail(log, tail, sizeof tail));
    free(text);
    check_no_sanitizer_report(what, n, log);
    leftovers(left, sizeof left);
    ck_assert_msg(left[0] == '\0', "%s n=%ld: files left in the output folder: %s", what, n, left);
}

/* The allocation index after `n` in a walk of `total` allocations. */
static long next_n(long n, long total) {
    const char* walk_all = getenv("NVTXW_ALLOC_WALK");
    long stride = 1;
    if (!(walk_all != NULL && strcmp(walk_all, "all") == 0) && n >= WALK_EVERY && total > WALK_RUNS)
        stride = (total - WALK_EVERY) / (WALK_RUNS - WALK_EVERY) + 1;
    if (n + stride < total)
        return n + stride;
    return n + 1 < total ? total - 1 : total; /* always end with the last one */
}

/* Walks the allocations of the run `argv` (NULL-terminated; see the file
 * comment). A first run without failures counts them and must succeed. */
static void walk(const char* what, char* const* argv) {
    char log[PATH_MAX + 16], left[512], tail[1200];
    long n, total, runs = 0;
    int status;
    child_report seen;
    snprintf(log, sizeof log, "%s/log", dir);
    status = run_tool(argv, LONG_MAX / 2, log, &seen); /* never runs out: counts */
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                  "%s: the run without failures failed (status %d); log:\n%s", what, status,
                  log_tail(log, tail, sizeof tail));
    check_no_sanitizer_report(what, -1, log);
    leftovers(left, sizeof left);
    ck_assert_msg(left[0] != '\0', "%s: the run wrote nothing to the output folder", what);
    total = seen.granted;
    ck_assert_msg(total >= 20, "%s: only %ld allocations: is the hook working?", what, total);
    for (n = 0; n < total; n = next_n(n, total), runs++) {
        status = run_tool(argv, n, log, &seen);
        if (seen.refused != 0) { /* -1: the child died before its exit handlers */
            check_refused_run(what, n, status, log);
            continue;
        }
        /* threads can make a run allocate less than the first one did */
        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                      "%s n=%ld: failed without a refused allocation (status %d); log:\n%s", what,
                      n, status, log_tail(log, tail, sizeof tail));
        check_no_sanitizer_report(what, n, log);
        leftovers(left, sizeof left);
    }
    fprintf(stderr, "%s: %ld allocations, %ld runs\n", what, total, runs);
}

static void setup(void) {
    tu_make_temp_dir_or_fail(dir, sizeof dir, "nvtxw-tool-alloc");
    snprintf(out, sizeof out, "%s/out", dir);
    ck_assert_int_eq(mkdir(out, 0755), 0);
    shared = mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    ck_assert_ptr_ne(shared, MAP_FAILED);
}

static void teardown(void) {
    munmap(shared, sizeof *shared);
    tu_remove_tree(dir);
}

/* One command line to walk: `args` after the tool's name, where "$SRC/",
 * "$TMP/" and "$OUT/" begin paths in the source tree, the inputs' folder and
 * the output folder. `prepare`, when set, first makes an input the same way
 * (a run without failures that must succeed). */
typedef struct scenario {
    const char* what;
    const char* prepare[MAX_ARGS];
    const char* args[MAX_ARGS];
} scenario;

/* `args` with the placeholders expanded, into `argv` (NULL-terminated), the
 * strings in `space` (MAX_ARGS slots of PATH_MAX * 2). */
static void expand(const char* const* args, char** argv, char (*space)[PATH_MAX * 2]) {
    const char* srcdir = getenv("top_srcdir");
    int i;
    argv[0] = (char*)TOOL;
    for (i = 0; args[i] != NULL && i + 2 < MAX_ARGS; i++) {
        const char* a = args[i];
        if (strncmp(a, "$SRC/", 5) == 0)
            snprintf(space[i], sizeof space[i], "%s/%s", srcdir ? srcdir : ".", a + 5);
        else if (strncmp(a, "$TMP/", 5) == 0)
            snprintf(space[i], sizeof space[i], "%s/%s", dir, a + 5);
        else if (strncmp(a, "$OUT/", 5) == 0)
            snprintf(space[i], sizeof space[i], "%s/%s", out, a + 5);
        else
            snprintf(space[i], sizeof space[i], "%s", a);
        argv[i + 1] = space[i];
    }
    argv[i + 1] = NULL;
}

static const scenario* scenarios(size_t* count);
static void prepare_archive(void);

START_TEST(walk_scenario) {
    static char space[MAX_ARGS][PATH_MAX * 2];
    char* argv[MAX_ARGS + 1];
    size_t count;
    const scenario* s = &scenarios(&count)[_i];
    prepare_archive();
    if (s->prepare[0] != NULL) {
        char log[PATH_MAX + 16], tail[1200];
        child_report seen;
        int status;
        snprintf(log, sizeof log, "%s/log", dir);
        expand(s->prepare, argv, space);
        status = run_tool(argv, -1, log, &seen);
        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                      "%s: making the input failed (status %d); log:\n%s", s->what, status,
                      log_tail(log, tail, sizeof tail));
    }
    expand(s->args, argv, space);
    walk(s->what, argv);
}
END_TEST

#if defined(TOOL_ALLOC_REPLAY)

static const scenario* scenarios(size_t* count) {
    static const scenario list[] = {
        {"chrome trace -> report",
         {NULL},
         {"$SRC/tests/data/chrome_phases.json", "-q", "-o", "$OUT/chrome.nvtxw", NULL}},
        {"pytorch chrome trace -> json",
         {NULL},
         {"$SRC/tests/data/pytorch_trace.json", "-q", "-o", "$OUT/pytorch.json", NULL}},
        {"capture file -> report",
         {"$SRC/tests/data/format1/capture-all.nvtxw", "-q", "-o", "$TMP/capture.jsonl", NULL},
         {"$TMP/capture.jsonl", "-q", "-o", "$OUT/capture.nvtxw", NULL}},
        {"report -> json",
         {NULL},
         {"$SRC/tests/data/format1/nested.nvtxw", "-q", "-o", "$OUT/nested.json", NULL}},
        {"report -> stats",
         {NULL},
         {"$SRC/tests/data/format1/tasks.nvtxw", "-q", "--stats=csv", "-o", "$OUT/tasks.csv",
          NULL}},
        {"two reports merged and filtered -> report",
         {NULL},
         {"$SRC/tests/data/format1/mpi.nvtxw", "$SRC/tests/data/format1/gpu.nvtxw", "-q", "--order",
          "time", "--streams", "*rank*,*stream*", "--from", "1us", "-o", "$OUT/merged.nvtxw",
          NULL}},
        {"report -> sqlite",
         {NULL},
         {"$SRC/tests/data/format1/demo.nvtxw", "-q", "-o", "$OUT/demo.sqlite", NULL}},
        {"synthetic tasks -> report",
         {NULL},
         {"--synthetic", "tasks:workers=2,tasks=40,live=8", "-q", "-o", "$OUT/tasks.nvtxw", NULL}},
    };
    *count = sizeof list / sizeof list[0];
    return list;
}

static void prepare_archive(void) {}

#elif defined(TOOL_ALLOC_IMPORT)

static const scenario* scenarios(size_t* count) {
    static const scenario list[] = {
        {"OTF2 archive -> report, 1 thread",
         {NULL},
         {"$TMP/archive/traces.otf2", "-q", "--threads", "1", "-o", "$OUT/import.nvtxw", NULL}},
        {"OTF2 archive -> json, 2 threads",
         {NULL},
         {"$TMP/archive/traces.otf2", "-q", "--threads", "2", "-o", "$OUT/import.json", NULL}},
        {"OTF2 archive -> stats",
         {NULL},
         {"$TMP/archive/traces.otf2", "-q", "--stats=json", "-o", "$OUT/import-stats.json", NULL}},
    };
    *count = sizeof list / sizeof list[0];
    return list;
}

/* $TMP/archive: 2 MPI ranks x 2 threads and a metric location, made by the
 * test generator (tests/gen/). */
static void prepare_archive(void) {
    char command[3 * PATH_MAX];
    const char* builddir = getenv("top_builddir");
    snprintf(command, sizeof command,
             "'%s/tests/gen/nvtxw-otf2-gen' -o '%s/archive' --events 1500 --seed 3 >/dev/null",
             builddir ? builddir : ".", dir);
    ck_assert_msg(system(command) == 0, "cannot make the archive: %s", command);
}

#endif

int main(void) {
    Suite* suite = suite_create(TOOL);
    TCase* tc = tcase_create("alloc_walk");
    size_t count;
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 600);
    scenarios(&count);
    tcase_add_loop_test(tc, walk_scenario, 0, (int)count);
    suite_add_tcase(suite, tc);
    return tu_run_suite(suite);
}
