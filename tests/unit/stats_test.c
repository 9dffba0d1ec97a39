/*
 * tests/unit/stats_test.c - Sink=stats through the NVTXW v2 table, driven by
 * the event helpers of nvtxw/helpers.h with known timestamps.
 *
 * The golden session (write_golden) covers whole, split push/pop and split
 * start/end ranges, UTF-8 and registered-string names in the default and a
 * named domain, start and end halves on different streams, and ranges left
 * open. Its timestamps come from one table (golden_ranges), from which the
 * test recomputes every summary row (instances, total, min, max, average,
 * median, sample standard deviation, time percentage, order) and every
 * push/pop trace row (nesting, child time, range IDs), independently of the
 * sink. Each of the text, CSV and JSON outputs is read back by python3
 * (normalize_script: numbers and names only, per report) and compared with
 * that model, then byte for byte with tests/data/golden/
 * stats-golden.{txt,csv,json}; the JSON is also checked by python3's json
 * module for percentages summing to 100, nesting and footer.
 * model_catches_mutation shows the model comparison reports a changed value.
 * Regenerate the golden files with
 *   NVTXW_UPDATE_GOLDEN=1 make check TESTS=tests/unit/stats_test
 * which rewrites each file whose output agrees with the model and then FAILS
 * by design; review the diff, then run again without the variable. Four
 * threads writing concurrently (each on its own stream, start/end halves
 * crossing threads) run under TSan in CI.
 */
#define _GNU_SOURCE
#include <check.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nvtxw/abi.h"
#include "nvtxw/backend.h"
#include "nvtxw/error.h"
#include "nvtxw/helpers.h"
#include "test_util.h"

#define ALL_REPORTS "nvtx_sum,nvtx_pushpop_sum,nvtx_startend_sum,nvtx_pushpop_trace"

static const nvtxwInterface_t* T;
static char dir[PATH_MAX], out_path[PATH_MAX + 16];

static void setup(void) {
    tu_make_temp_dir_or_fail(dir, sizeof dir, "nvtxw-stats");
    snprintf(out_path, sizeof out_path, "%s/out", dir);
    T = tu_get_interface_or_fail();
}

static void teardown(void) { tu_remove_tree(dir); }

static void check_golden(const char* got, const char* ext) {
    char path[PATH_MAX + 64];
    const char* top = getenv("top_srcdir");
    char* expected;
    ck_assert_msg(top != NULL, "top_srcdir is not set (run through make check)");
    snprintf(path, sizeof path, "%s/tests/data/golden/stats-golden.%s", top, ext);
    if (getenv("NVTXW_UPDATE_GOLDEN") != NULL && strcmp(getenv("NVTXW_UPDATE_GOLDEN"), "1") == 0) {
        FILE* f = fopen(path, "wb");
        ck_assert_ptr_nonnull(f);
        ck_assert_uint_eq(fwrite(got, 1, strlen(got), f), strlen(got));
        ck_assert_int_eq(fclose(f), 0);
        ck_abort_msg("rewrote %s: review the diff, then run again without NVTXW_UPDATE_GOLDEN",
                     path);
    }
    expected = tu_read_file_or_fail(path, NULL);
    ck_assert_msg(strcmp(expected, got) == 0, "%s differs; got:\n%s", path, got);
    free(expected);
}

/* Writes `text` to `dir`/`name` and returns that path (static storage). */
static const char* temp_input(const char* name, const char* text) {
    static char path[PATH_MAX + 16];
    FILE* f;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
    return path;
}

/* Runs `script` under python3 with `input` on stdin; its output must equal
 * `expected`. A missing python3 fails the test. */
static void check_python(const char* script, const char* input, const char* expected) {
    const char* in_path = temp_input("py.in", input);
    char* got;
    int status = tu_run_python(dir, "check", script, in_path, &got);
    unlink(in_path);
    ck_assert_msg(status == 0, "python3 failed (status %d; is it installed?) on:\n%s\n%s", status,
                  input, got);
    ck_assert_msg(strcmp(got, expected) == 0, "python3 printed:\n%s\nexpected:\n%s", got, expected);
    free(got);
}

static nvtxwSessionHandle_t begin(const char* name, const char* format, const char* reports) {
    nvtxwSessionAttributes_t attr;
    nvtxwSessionHandle_t session = NULL;
    char config[PATH_MAX + 256];
    snprintf(config, sizeof config,
             "Sink=stats|Output=%s|Overwrite=yes|StatsFormat=%s|StatsReports=%s", out_path, format,
             reports);
    nvtxwSessionAttributesInit(&attr);
    attr.name = name;
    attr.configString = config;
    ck_assert_int_eq(T->SessionBegin(&attr, &session), NVTXW_RESULT_SUCCESS);
    return session;
}

static nvtxwEventAttributesUtf8_t utf8(const char* message) {
    nvtxwEventAttributesUtf8_t attr = {0, 0, 0, message};
    return attr;
}

static nvtxwEventAttributes_t reg(nvtxDomainHandle_t domain, const char* text) {
    nvtxwEventAttributes_t attr = {0, 0, 0};
    ck_assert_int_eq(T->StringRegister(domain, text, &attr.message), NVTXW_RESULT_SUCCESS);
    return attr;
}

#define OK(call) ck_assert_int_eq((call), NVTXW_RESULT_SUCCESS)

/* Every range the golden session completes, in start order within each
 * style: the timestamps write_golden feeds and the source of the model. */
typedef struct golden_range {
    int startend;       /* 0: push/pop, 1: start/end */
    const char* name;   /* as printed: a name in domain "net" reads "net:NAME" */
    const char* stream; /* push/pop ranges: the stream of both halves */
    int64_t begin, end;
} golden_range;

enum {
    R_OUTER,
    R_INNER1,
    R_INNER2,
    R_LEAF,
    R_WORK1,
    R_WORK2,
    R_WORK3,
    R_SEND,
    R_RECV,
    R_ASYNC,
    R_NET_ASYNC,
    R_COUNT
};

static const golden_range golden_ranges[R_COUNT] = {
    [R_OUTER] = {0, "outer", "main", 0, 1000},
    [R_INNER1] = {0, "inner", "main", 100, 400},
    [R_INNER2] = {0, "inner", "main", 500, 900},
    [R_LEAF] = {0, "leaf", "main", 550, 650},
    [R_WORK1] = {0, "work", "main", 2000, 2100},
    [R_WORK2] = {0, "work", "main", 2200, 2500},
    [R_WORK3] = {0, "work", "main", 2600, 2800},
    [R_SEND] = {0, "net:send", "io", 3000, 3500},
    [R_RECV] = {1, "net:recv", NULL, 3000, 3600},
    [R_ASYNC] = {1, "async", NULL, 4000, 4700},         /* start on main, end on io */
    [R_NET_ASYNC] = {1, "net:async", NULL, 5000, 5100}, /* start on io, end on main */
};

#define B(r) golden_ranges[r].begin
#define E(r) golden_ranges[r].end

/* What stays unmatched (the footer), one call each below: the push
 * "dangling", the start "never", the pop on io's empty stack, the end of
 * range ID 1234 that never started; no ID is reused, no event is
 * incomplete. */
static const int golden_unclosed[6] = {1, 1, 1, 1, 0, 0};

/* Stream "main" (default domain): outer holding inner 1 and inner 2
 * (which holds leaf); work x3 (odd median); a push left open. Stream "io"
 * (domain net): send and recv as registered strings; a pop and an end
 * without partners. start/end "async" halves cross the two streams both
 * ways; start 99 never ends. */
static void write_golden(nvtxwSessionHandle_t session) {
    nvtxDomainHandle_t def, net;
    nvtxwEventWriter_t m, io;
    OK(nvtxwDomainRegister(T, session, NULL, &def));
    OK(nvtxwDomainRegister(T, session, "net", &net));
    OK(nvtxwEventWriterOpen(T, session, "main", def, NULL, 0, &m));
    OK(nvtxwEventWriterOpen(T, session, "io", net, NULL, 0, &io));
    OK(nvtxwRangePushPopWriteUtf8(&m, B(R_OUTER), E(R_OUTER), utf8("outer")));
    OK(nvtxwRangePushWriteUtf8(&m, B(R_INNER1), utf8("inner")));
    OK(nvtxwRangePopWrite(&m, E(R_INNER1)));
    OK(nvtxwRangePushWrite(&m, B(R_INNER2), reg(def, "inner")));
    OK(nvtxwRangePushWriteUtf8(&m, B(R_LEAF), utf8("leaf")));
    OK(nvtxwRangePopWrite(&m, E(R_LEAF)));
    OK(nvtxwRangePopWrite(&m, E(R_INNER2)));
    OK(nvtxwRangePushPopWriteUtf8(&m, B(R_WORK1), E(R_WORK1), utf8("work")));
    OK(nvtxwRangePushPopWriteUtf8(&m, B(R_WORK2), E(R_WORK2), utf8("work")));
    OK(nvtxwRangePushPopWriteUtf8(&m, B(R_WORK3), E(R_WORK3), utf8("work")));
    OK(nvtxwRangePushPopWrite(&io, B(R_SEND), E(R_SEND), reg(net, "send")));
    OK(nvtxwRangeStartEndWrite(&io, B(R_RECV), E(R_RECV), reg(net, "recv")));
    OK(nvtxwRangeStartWriteUtf8(&m, B(R_ASYNC), 7, utf8("async")));
    OK(nvtxwRangeEndWrite(&io, E(R_ASYNC), 7));
    OK(nvtxwRangeEndWrite(&m, E(R_NET_ASYNC), 8));
    OK(nvtxwRangeStartWrite(&io, B(R_NET_ASYNC), 8, reg(net, "async")));
    OK(nvtxwRangePushWriteUtf8(&m, 6000, utf8("dangling")));
    OK(nvtxwRangeStartWriteUtf8(&m, 6100, 99, utf8("never")));
    OK(nvtxwRangePopWrite(&io, 6200));
    OK(nvtxwRangeEndWrite(&io, 6300, 1234));
    OK(T->SessionEnd(session));
}

/* ---- The model: reports recomputed from golden_ranges --------------------- */

typedef struct model_row {
    int startend;
    const char* name;
    int instances;
    int64_t total, min, max, durations[R_COUNT];
} model_row;

static int64_t duration(int r) { return E(r) - B(r); }

static int compare_i64(const void* a, const void* b) {
    int64_t x = *(const int64_t*)a, y = *(const int64_t*)b;
    return (x > y) - (x < y);
}

/* docs/stats.md: by total descending, then name, then style. */
static int compare_rows(const void* a, const void* b) {
    const model_row *x = a, *y = b;
    int by_name = strcmp(x->name, y->name);
    if (x->total != y->total)
        return x->total > y->total ? -1 : 1;
    return by_name != 0 ? by_name : x->startend - y->startend;
}

/* Appends the rows of one summary report: `style` -1 for nvtx_sum (every
 * range, with a Style column), else only ranges of that style. Figures are
 * printed with `decimals` as the format does (text 1, CSV and JSON 3). */
static void model_summary(char* out, size_t size, const char* report, int style, int decimals) {
    model_row rows[R_COUNT];
    int count = 0, r, i;
    int64_t grand = 0;
    memset(rows, 0, sizeof rows);
    for (r = 0; r < R_COUNT; r++) {
        const golden_range* g = &golden_ranges[r];
        if (style >= 0 && g->startend != style)
            continue;
        for (i = 0; i < count; i++)
            if (rows[i].startend == g->startend && strcmp(rows[i].name, g->name) == 0)
                break;
        if (i == count) {
            rows[count].startend = g->startend;
            rows[count++].name = g->name;
        }
        rows[i].durations[rows[i].instances++] = duration(r);
        rows[i].total += duration(r);
        grand += duration(r);
    }
    for (i = 0; i < count; i++)
        qsort(rows[i].durations, (size_t)rows[i].instances, sizeof(int64_t), compare_i64);
    qsort(rows, (size_t)count, sizeof rows[0], compare_rows);
    for (i = 0; i < count; i++) {
        const model_row* x = &rows[i];
        int n = x->instances, k;
        double avg = (double)x->total / n, squares = 0, median;
        median = n % 2 ? (double)x->durations[n / 2]
                       : (x->durations[n / 2 - 1] + x->durations[n / 2]) / 2.0;
        for (k = 0; k < n; k++)
            squares += (x->durations[k] - avg) * (x->durations[k] - avg);
        snprintf(out + strlen(out), size - strlen(out),
                 "%s|%.*f|%lld|%d|%.*f|%.*f|%lld|%lld|%.*f|%s%s%s\n", report, decimals,
                 100.0 * (double)x->total / (double)grand, (long long)x->total, n, decimals, avg,
                 decimals, median, (long long)x->durations[0], (long long)x->durations[n - 1],
                 decimals, n > 1 ? sqrt(squares / (n - 1)) : 0.0,
                 style >= 0 ? "" : (x->startend ? "StartEnd" : "PushPop"), style >= 0 ? "" : "|",
                 x->name);
    }
}

/* The enclosing push/pop range nearest in, on the same stream, or -1. */
static int model_parent(int r) {
    int p, best = -1;
    for (p = 0; p < R_COUNT; p++)
        if (p != r && !golden_ranges[p].startend &&
            strcmp(golden_ranges[p].stream, golden_ranges[r].stream) == 0 && B(p) <= B(r) &&
            E(r) <= E(p) && (best < 0 || B(p) >= B(best)))
            best = p;
    return best;
}

/* nvtx_pushpop_trace: push/pop ranges in start order (the table's order, so
 * range ID = index + 1), level = number of ancestors. */
static void model_trace(char* out, size_t size) {
    int r, c;
    for (r = 0; r < R_COUNT; r++) {
        int64_t child = 0;
        int children = 0, level = 0, parent, a;
        if (golden_ranges[r].startend)
            continue; /* not in the push/pop trace, and no stream of its own */
        parent = model_parent(r);
        ck_assert(r == 0 || B(r - 1) <= B(r));
        for (c = 0; c < R_COUNT; c++)
            if (!golden_ranges[c].startend && model_parent(c) == r) {
                child += duration(c);
                children++;
            }
        for (a = parent; a >= 0; a = model_parent(a))
            level++;
        snprintf(out + strlen(out), size - strlen(out),
                 "nvtx_pushpop_trace|%lld|%lld|%lld|%lld|%lld|%s|%s|%d|%d|%d|", (long long)B(r),
                 (long long)E(r), (long long)duration(r), (long long)child,
                 (long long)(duration(r) - child), golden_ranges[r].name, golden_ranges[r].stream,
                 level, children, r + 1);
        if (parent >= 0)
            snprintf(out + strlen(out), size - strlen(out), "%d", parent + 1);
        snprintf(out + strlen(out), size - strlen(out), "\n");
    }
}

static void model_text(char* out, size_t size, int decimals) {
    int i;
    out[0] = '\0';
    model_summary(out, size, "nvtx_sum", -1, decimals);
    model_summary(out, size, "nvtx_pushpop_sum", 0, decimals);
    model_summary(out, size, "nvtx_startend_sum", 1, decimals);
    model_trace(out, size);
    snprintf(out + strlen(out), size - strlen(out), "unclosed");
    for (i = 0; i < 6; i++)
        snprintf(out + strlen(out), size - strlen(out), "|%d", golden_unclosed[i]);
    snprintf(out + strlen(out), size - strlen(out), "\n");
}

/* Reads one stats output (F = text, csv or json) and prints the figures of
 * each row as "report|col|col|..." in the format's own printing (JSON
 * floats with 3 decimals), the footer counts as "unclosed|...". The line
 * shapes are docs/stats.md's; nothing is recomputed here. */
static const char* const normalize_script =
    "import csv,json,re,sys\n"
    "d=sys.stdin.read()\n"
    "S=[\"nvtx_sum\",\"nvtx_pushpop_sum\",\"nvtx_startend_sum\"]\n"
    "TR=\"nvtx_pushpop_trace\"\n"
    "def out(k,cells): print(\"|\".join([k]+[str(c) for c in cells]))\n"
    "if F==\"json\":\n"
    "  j=json.loads(d); r=j[\"reports\"]\n"
    "  for k in S:\n"
    "    for x in r[k]:\n"
    "      c=[\"%.3f\"%x[\"time_pct\"],x[\"total_ns\"],x[\"instances\"],\"%.3f\"%x[\"avg_ns\"],"
    "\"%.3f\"%x[\"med_ns\"],x[\"min_ns\"],x[\"max_ns\"],\"%.3f\"%x[\"stddev_ns\"]]\n"
    "      out(k,c+([x[\"style\"]] if k==S[0] else [])+[x[\"range\"]])\n"
    "  for x in r[TR]:\n"
    "    out(TR,[x[f] for f in (\"start_ns\",\"end_ns\",\"duration_ns\",\"dur_child_ns\","
    "\"dur_nonchild_ns\",\"name\",\"stream\",\"level\",\"num_child\",\"range_id\")]"
    "+[\"\" if x[\"parent_id\"] is None else x[\"parent_id\"]])\n"
    "  u=j[\"unclosed\"]; out(\"unclosed\",[u[k] for k in (\"pushpop\",\"startend\","
    "\"unmatched_pop\",\"unmatched_end\",\"reused_range_id\",\"incomplete\")])\n"
    "elif F==\"csv\":\n"
    "  blocks=d.strip(\"\\n\").split(\"\\n\\n\")\n"
    "  for k,b in zip(S+[TR,\"unclosed\"],blocks):\n"
    "    for row in list(csv.reader(b.splitlines()))[1:]: out(k,row)\n"
    "else:\n"
    "  k=None; rows=False\n"
    "  for line in d.splitlines():\n"
    "    m=re.match(r\"\\*\\* .*\\((\\w+)\\):$\",line)\n"
    "    if m: k=m.group(1); rows=False\n"
    "    elif line.startswith(\"Ranges not closed\"): "
    "out(\"unclosed\",re.findall(r\"\\d+\",line))\n"
    "    elif line.startswith(\" ---\"): rows=True\n"
    "    elif not line: rows=False\n"
    "    elif rows: c=line.split(); out(k,c+[\"\"]*(k==TR and len(c)==10))\n";

/* NULL when `output` (in `format`) reads back as the model; else a message
 * naming the first line that differs. */
static const char* model_mismatch(const char* format, const char* output) {
    static char message[1024];
    char want[8192], script[4096], what[64];
    char* got;
    int status;
    model_text(want, sizeof want, strcmp(format, "text") == 0 ? 1 : 3);
    snprintf(script, sizeof script, "F=\"%s\"\n%s", format, normalize_script);
    status = tu_run_python(dir, "model", script, temp_input("model.in", output), &got);
    if (status != 0) {
        snprintf(message, sizeof message, "%s: python3 failed (status %d; installed?): %.900s",
                 format, status, got);
        free(got);
        return message;
    }
    snprintf(what, sizeof what, "%s (against the model)", format);
    status = tu_first_line_difference(what, want, got, message, sizeof message);
    free(got);
    return status != 0 ? message : NULL;
}

static char* golden_output(const char* format) {
    write_golden(begin("golden", format, ALL_REPORTS));
    return tu_read_file_or_fail(out_path, NULL);
}

START_TEST(golden_text) {
    char* got = golden_output("text");
    const char* wrong = model_mismatch("text", got);
    ck_assert_msg(wrong == NULL, "%s", wrong);
    check_golden(got, "txt");
    ck_assert_ptr_nonnull(strstr(got, "Ranges not closed at session end: 1 push/pop, 1 start/end; "
                                      "unmatched pops: 1, unmatched ends: 1"));
    free(got);
}
END_TEST

/* Exact numbers, one CSV line each: even median (inner), odd median and
 * sample standard deviation (work), a single instance (leaf). */
START_TEST(golden_csv) {
    char* got = golden_output("csv");
    const char* wrong = model_mismatch("csv", got);
    ck_assert_msg(wrong == NULL, "%s", wrong);
    check_golden(got, "csv");
    ck_assert_ptr_nonnull(
        strstr(got, "\n16.279,700,2,350.000,350.000,300,400,70.711,PushPop,inner\n"));
    ck_assert_ptr_nonnull(
        strstr(got, "\n13.953,600,3,200.000,200.000,100,300,100.000,PushPop,work\n"));
    ck_assert_ptr_nonnull(
        strstr(got, "\n2.326,100,1,100.000,100.000,100,100,0.000,PushPop,leaf\n"));
    ck_assert_ptr_nonnull(
        strstr(got, "\n16.279,700,1,700.000,700.000,700,700,0.000,StartEnd,async\n"));
    ck_assert_ptr_nonnull(strstr(got, "\n1,1,1,1,0,0\n"));
    free(got);
}
END_TEST

/* Percentages, nesting (level, parent name, children) and the footer, as
 * python3 reads them. */
static const char* const json_script =
    "import json,sys\n"
    "d=json.load(sys.stdin)\n"
    "r=d[\"reports\"]\n"
    "for k in (\"nvtx_sum\",\"nvtx_pushpop_sum\",\"nvtx_startend_sum\"):\n"
    "  s=sum(x[\"time_pct\"] for x in r[k]); assert abs(s-100)<0.01,(k,s)\n"
    "t=r[\"nvtx_pushpop_trace\"]; ids={x[\"range_id\"]:x[\"name\"] for x in t}\n"
    "for x in t: print(x[\"name\"],x[\"stream\"],x[\"level\"],ids.get(x[\"parent_id\"]),"
    "x[\"num_child\"],x[\"dur_nonchild_ns\"])\n"
    "print(sorted(d[\"unclosed\"].items()))\n"
    "print(d[\"session\"],len(r[\"nvtx_sum\"]),r[\"nvtx_sum\"][0][\"range\"])\n";

START_TEST(golden_json) {
    char* got = golden_output("json");
    const char* wrong = model_mismatch("json", got);
    ck_assert_msg(wrong == NULL, "%s", wrong);
    check_golden(got, "json");
    check_python(json_script, got,
                 "outer main 0 None 2 300\n"
                 "inner main 1 outer 0 300\n"
                 "inner main 1 outer 1 300\n"
                 "leaf main 2 inner 0 100\n"
                 "work main 0 None 0 100\n"
                 "work main 0 None 0 300\n"
                 "work main 0 None 0 200\n"
                 "net:send io 0 None 0 500\n"
                 "[('incomplete', 0), ('pushpop', 1), ('reused_range_id', 0), ('startend', 1), "
                 "('unmatched_end', 1), ('unmatched_pop', 1)]\n"
                 "golden 8 outer\n");
    free(got);
}
END_TEST

/* The model comparison is a check: one changed figure in any format is
 * reported with its line, and each unchanged output passes. */
START_TEST(model_catches_mutation) {
    static const struct {
        const char *format, *from, *to, *words;
    } cases[] = {
        {"csv", ",70.711,PushPop,inner\n", ",70.712,PushPop,inner\n",
         "csv (against the model) line 3: want \"nvtx_sum|16.279|700|2|350.000|350.000|300|"
         "400|70.711|PushPop|inner\", got \"nvtx_sum|16.279|700|2|350.000|350.000|300|400|"
         "70.712|PushPop|inner\""},
        {"text", "600          3     200.0     200.0       100",
         "600          4     200.0     200.0       100", "text (against the model) line 5:"},
        {"json", "\"dur_child_ns\": 100", "\"dur_child_ns\": 101",
         "json (against the model) line 19:"},
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char* got = golden_output(cases[i].format);
        char* at = strstr(got, cases[i].from);
        const char* wrong;
        ck_assert_ptr_null(model_mismatch(cases[i].format, got));
        ck_assert_msg(at != NULL && strlen(cases[i].from) == strlen(cases[i].to), "%s",
                      cases[i].from);
        memcpy(at, cases[i].to, strlen(cases[i].to));
        wrong = model_mismatch(cases[i].format, got);
        ck_assert_msg(wrong != NULL && strstr(wrong, cases[i].words) != NULL, "%s: %s",
                      cases[i].format, wrong ? wrong : "(passed)");
        free(got);
    }
}
END_TEST

START_TEST(report_selection_and_empty) {
    char* got;
    nvtxwSessionHandle_t session = begin("empty", "text", "nvtx_startend_sum , nvtx_pushpop_sum");
    OK(T->SessionEnd(session));
    got = tu_read_file_or_fail(out_path, NULL);
    ck_assert_str_eq(got,
                     "** NVTX Start/End Range Summary (nvtx_startend_sum):\n\n"
                     " Time (%)  Total Time (ns)  Instances  Avg (ns)  Med (ns)  Min (ns)  "
                     "Max (ns)  StdDev (ns)  Range\n"
                     " --------  ---------------  ---------  --------  --------  --------  "
                     "--------  -----------  -----\n\n"
                     "** NVTX Push/Pop Range Summary (nvtx_pushpop_sum):\n\n"
                     " Time (%)  Total Time (ns)  Instances  Avg (ns)  Med (ns)  Min (ns)  "
                     "Max (ns)  StdDev (ns)  Range\n"
                     " --------  ---------------  ---------  --------  --------  --------  "
                     "--------  -----------  -----\n\n"
                     "Ranges not closed at session end: 0 push/pop, 0 start/end; unmatched "
                     "pops: 0, unmatched ends: 0, reused range IDs: 0, incomplete events: 0\n");
    free(got);
}
END_TEST

static void expect_begin_error(const char* config, nvtxwResultCode_t code, const char* words) {
    nvtxwSessionAttributes_t attr;
    nvtxwSessionHandle_t session = NULL;
    nvtxwSessionAttributesInit(&attr);
    attr.name = "bad";
    attr.configString = config;
    ck_assert_int_eq(T->SessionBegin(&attr, &session), code);
    ck_assert_msg(strstr(nvtxw_last_error(), words) != NULL, "message: %s", nvtxw_last_error());
}

START_TEST(bad_config) {
    char config[PATH_MAX + 64];
    FILE* f;
    expect_begin_error("Sink=stats|Output=-|StatsFormat=xml", NVTXW_RESULT_INVALID_ARGUMENT,
                       "StatsFormat=\"xml\" is not text, csv or json");
    expect_begin_error("Sink=stats|Output=-|StatsReports=nvtx_sum,cuda_api_sum",
                       NVTXW_RESULT_INVALID_ARGUMENT, "StatsReports names \"cuda_api_sum\"");
    expect_begin_error("Sink=stats|Output=-|StatsTaskRows=0", NVTXW_RESULT_INVALID_ARGUMENT,
                       "StatsTaskRows=\"0\" is not a row count");
    expect_begin_error("Sink=stats|Output=-|StatsTaskRows=-5", NVTXW_RESULT_INVALID_ARGUMENT,
                       "StatsTaskRows=\"-5\" is not a row count");
    /* An existing output with Overwrite=no (the default replaces it). */
    f = fopen(out_path, "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    snprintf(config, sizeof config, "Sink=stats|Output=%s|Overwrite=no", out_path);
    expect_begin_error(config, NVTXW_RESULT_FAILED, "set Overwrite=yes");
}
END_TEST

/* ---- Counters --------------------------------------------------------------- */

typedef struct group_sample {
    int32_t a;
    int32_t pad;
    double b;
} group_sample;

/* Begins a stats session with the default reports (no StatsReports). */
static nvtxwSessionHandle_t begin_default(const char* format, const char* extra) {
    nvtxwSessionAttributes_t attr;
    nvtxwSessionHandle_t session = NULL;
    char config[PATH_MAX + 256];
    snprintf(config, sizeof config, "Sink=stats|Output=%s|Overwrite=yes|StatsFormat=%s%s", out_path,
             format, extra);
    nvtxwSessionAttributesInit(&attr);
    attr.name = "counters";
    attr.configString = config;
    ck_assert_int_eq(T->SessionBegin(&attr, &session), NVTXW_RESULT_SUCCESS);
    return session;
}

/* "queue" (int64, unit items) from two streams, "load" (double, unit k at
 * a 1/1000 scale) and "grp" (a schema of an int32 and a double: one series
 * per field), written out of time order within a stream; a no-value sample
 * is no sample. Ends the session. */
static void write_counters(nvtxwSessionHandle_t session) {
    nvtxSemanticsCounter_t items = {
        {sizeof items, NVTX_SEMANTIC_ID_COUNTERS_V1, NVTX_COUNTER_SEMANTIC_VERSION, NULL},
        0,
        "items",
        0,
        0,
        NVTX_COUNTER_LIMIT_UNDEFINED,
        {0},
        {0}};
    nvtxSemanticsCounter_t kilo = items;
    nvtxPayloadSchemaEntry_t entries[2];
    nvtxPayloadSchemaAttr_t schema;
    nvtxDomainHandle_t d;
    nvtxwStreamHandle_t s1, s2;
    uint64_t queue, load, grp, grp_schema = 0;
    group_sample g1 = {4, 0, 2.5}, g2 = {-1, 0, 0.25};
    kilo.unit = "k";
    kilo.unitScaleNumerator = 1;
    kilo.unitScaleDenominator = 1000;
    OK(nvtxwDomainRegister(T, session, "app", &d));
    OK(nvtxwCounterInt64Register(T, d, "queue", &items.header, &queue));
    OK(nvtxwCounterFloat64Register(T, d, "load", &kilo.header, &load));
    memset(entries, 0, sizeof entries);
    entries[0].type = NVTX_PAYLOAD_ENTRY_TYPE_INT32;
    entries[0].name = "a";
    entries[1].type = NVTX_PAYLOAD_ENTRY_TYPE_DOUBLE;
    entries[1].name = "b";
    entries[1].offset = offsetof(group_sample, b);
    memset(&schema, 0, sizeof schema);
    schema.fieldMask =
        NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES |
        NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_STATIC_SIZE;
    schema.type = NVTX_PAYLOAD_SCHEMA_TYPE_STATIC;
    schema.entries = entries;
    schema.numEntries = 2;
    schema.payloadStaticSize = sizeof(group_sample);
    OK(T->SchemaRegister(d, &schema, &grp_schema));
    OK(nvtxwCounterRegister(T, d, "grp", grp_schema, NULL, &grp));
    OK(nvtxwStreamOpen(T, session, "s1", d, "/n/p", 0, &s1));
    OK(nvtxwStreamOpen(T, session, "s2", d, "/n/p", 0, &s2));
    OK(nvtxwCounterInt64Write(T, s1, 30, queue, -3));
    OK(nvtxwCounterInt64Write(T, s1, 10, queue, 5));
    OK(nvtxwCounterInt64Write(T, s2, 20, queue, 7));
    OK(nvtxwCounterFloat64Write(T, s1, 5, load, 1500.0));
    OK(nvtxwCounterFloat64Write(T, s1, 6, load, 500.0));
    OK(T->CounterWrite(s2, 1, grp, &g1, sizeof g1));
    OK(T->CounterWrite(s2, 2, grp, &g2, sizeof g2));
    OK(T->CounterNoValueWrite(s2, 3, queue, NVTX_COUNTER_SAMPLE_UNAVAILABLE));
    OK(T->SessionEnd(session));
}

/* counter_sum joins the default reports when there are samples: per series
 * the sample and stream counts, min, max, mean, the last value by time, in
 * the counter's unit (scaled), exact integers for integer series. */
START_TEST(counter_summary) {
    char* got;
    write_counters(begin_default("csv", ""));
    got = tu_read_file_or_fail(out_path, NULL);
    ck_assert_msg(strstr(got, "\nSamples,Streams,Min,Max,Mean,Last,Unit,Counter\n"
                              "2,1,-1,4,1.500,-1,,app:grp.a\n"
                              "2,1,0.250,2.500,1.375,0.250,,app:grp.b\n"
                              "2,1,0.500,1.500,1.000,0.500,k,app:load\n"
                              "3,2,-3,7,3.000,-3,items,app:queue\n") != NULL,
                  "got:\n%s", got);
    free(got);
}
END_TEST

/* Asked-for reports are exactly those: no counter table without counter_sum. */
START_TEST(counter_summary_only_when_asked) {
    nvtxwSessionHandle_t session = begin("counters", "text", "nvtx_sum");
    char* got;
    write_counters(session);
    got = tu_read_file_or_fail(out_path, NULL);
    ck_assert_msg(strstr(got, "counter_sum") == NULL, "got:\n%s", got);
    free(got);
    session = begin("counters", "text", "counter_sum");
    write_counters(session);
    got = tu_read_file_or_fail(out_path, NULL);
    ck_assert_msg(strstr(got, "** Counter Summary (counter_sum):") != NULL &&
                      strstr(got, "items  app:queue\n") != NULL,
                  "got:\n%s", got);
    free(got);
}
END_TEST

/* Counters of one name: their rows in ID order (the first registered
 * first), whatever the series' places in memory. */
START_TEST(counter_summary_same_names_by_id) {
    nvtxwSessionHandle_t session = begin_default("csv", "");
    nvtxDomainHandle_t d;
    nvtxwStreamHandle_t s;
    uint64_t ids[24];
    char *got, *at, want[64];
    OK(nvtxwDomainRegister(T, session, "app", &d));
    for (int i = 0; i < 24; i++)
        OK(nvtxwCounterInt64Register(T, d, "dup", NULL, &ids[i]));
    for (int i = 1; i < 24; i++)
        ck_assert_uint_gt(ids[i], ids[i - 1]);
    OK(nvtxwStreamOpen(T, session, "s", d, "/n/p", 0, &s));
    for (int i = 23; i >= 0; i--) /* written in the other order */
        OK(nvtxwCounterInt64Write(T, s, 10 + i, ids[i], 100 + i));
    OK(T->SessionEnd(session));
    got = tu_read_file_or_fail(out_path, NULL);
    at = got;
    for (int i = 0; i < 24; i++) {
        snprintf(want, sizeof want, "1,1,%d,%d,%d.000,%d,,app:dup\n", 100 + i, 100 + i, 100 + i,
                 100 + i);
        ck_assert_msg((at = strstr(at, want)) != NULL, "row %d (%s) not in ID order in:\n%s", i,
                      want, got);
    }
    free(got);
}
END_TEST

/* ---- Four threads, one stream each --------------------------------------- */

#define THREADS 4
#define RANGES 2000

typedef struct worker {
    nvtxwEventWriter_t writer;
    int index;
    int failures;
} worker;

/* Thread t: RANGES push/pop "shared" of 10..50 ns, each holding a
 * "t<t>" child of 5 ns, and the start halves of its own IDs plus the end
 * halves of thread (t+1)'s IDs: every start/end range crosses threads. */
static void* work(void* arg) {
    worker* w = arg;
    char name[8];
    int i, next = (w->index + 1) % THREADS;
    snprintf(name, sizeof name, "t%d", w->index);
    for (i = 0; i < RANGES; i++) {
        int64_t at = (int64_t)i * 1000;
        uint64_t mine = ((uint64_t)w->index << 32) | (uint64_t)i;
        uint64_t theirs = ((uint64_t)next << 32) | (uint64_t)i;
        w->failures += nvtxwRangePushWriteUtf8(&w->writer, at, utf8("shared")) != 0;
        w->failures += nvtxwRangePushPopWriteUtf8(&w->writer, at + 1, at + 6, utf8(name)) != 0;
        w->failures += nvtxwRangePopWrite(&w->writer, at + 10 * (i % 5 + 1)) != 0;
        w->failures += nvtxwRangeStartWriteUtf8(&w->writer, at, mine, utf8("cross")) != 0;
        w->failures += nvtxwRangeEndWrite(&w->writer, at + 50, theirs) != 0;
    }
    return NULL;
}

START_TEST(four_threads) {
    nvtxwSessionHandle_t session = begin("threads", "csv", "nvtx_sum");
    nvtxDomainHandle_t domain;
    nvtxwEventHelperSchemaIds_t ids;
    worker workers[THREADS];
    pthread_t threads[THREADS];
    char* got;
    int i;
    OK(nvtxwDomainRegister(T, session, NULL, &domain));
    OK(nvtxwEventSchemasRegister(T, domain, NVTXW_EVENT_HELPER_SCHEMA_ALL, &ids));
    for (i = 0; i < THREADS; i++) {
        nvtxwStreamHandle_t stream;
        char name[16];
        snprintf(name, sizeof name, "worker%d", i);
        OK(nvtxwStreamOpen(T, session, name, domain, NULL, 0, &stream));
        OK(nvtxwEventWriterInit(&workers[i].writer, T, stream, &ids));
        workers[i].index = i;
        workers[i].failures = 0;
    }
    for (i = 0; i < THREADS; i++)
        ck_assert_int_eq(pthread_create(&threads[i], NULL, work, &workers[i]), 0);
    for (i = 0; i < THREADS; i++) {
        ck_assert_int_eq(pthread_join(threads[i], NULL), 0);
        ck_assert_int_eq(workers[i].failures, 0);
    }
    OK(T->SessionEnd(session));
    got = tu_read_file_or_fail(out_path, NULL);
    /* shared: 8000 x 10..50 ns, 1600 of each: total 240000, median 30. */
    ck_assert_ptr_nonnull(strstr(got, ",240000,8000,30.000,30.000,10,50,14.143,PushPop,shared\n"));
    ck_assert_ptr_nonnull(strstr(got, ",400000,8000,50.000,50.000,50,50,0.000,StartEnd,cross\n"));
    ck_assert_ptr_nonnull(strstr(got, ",10000,2000,5.000,5.000,5,5,0.000,PushPop,t3\n"));
    ck_assert_ptr_nonnull(strstr(got, "\n0,0,0,0,0,0\n"));
    free(got);
}
END_TEST

static Suite* stats_suite(void) {
    Suite* s = suite_create("stats");
    TCase* tc = tcase_create("stats");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120); /* python3 runs, slow on a loaded machine */
    tcase_add_test(tc, golden_text);
    tcase_add_test(tc, golden_csv);
    tcase_add_test(tc, golden_json);
    tcase_add_test(tc, model_catches_mutation);
    tcase_add_test(tc, report_selection_and_empty);
    tcase_add_test(tc, bad_config);
    tcase_add_test(tc, four_threads);
    tcase_add_test(tc, counter_summary);
    tcase_add_test(tc, counter_summary_only_when_asked);
    tcase_add_test(tc, counter_summary_same_names_by_id);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(stats_suite()); }
