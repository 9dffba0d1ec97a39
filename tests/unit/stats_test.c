/*
 * tests/unit/stats_test.c - Sink=stats through the NVTXW v2 table, driven by
 * the event helpers of nvtxw/helpers.h with known timestamps.
 *
 * The golden session (write_golden) covers whole, split push/pop and split
 * start/end ranges, UTF-8 and registered-string names in the default and a
 * named domain, start and end halves on different streams, and ranges left
 * open. Its output is compared byte for byte with tests/data/golden/
 * stats-golden.{txt,csv,json}; the JSON is also checked by python3's json
 * module, which recomputes the percentages, nesting and footer. Regenerate
 * the golden files with
 *   NVTXW_UPDATE_GOLDEN=1 make check TESTS=tests/unit/stats_test
 * and review the diff by eye. Four threads writing concurrently (each on its
 * own stream, start/end halves crossing threads) run under TSan in CI.
 */
#define _GNU_SOURCE
#include <check.h>
#include <limits.h>
#include <pthread.h>
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
        return;
    }
    expected = tu_read_file_or_fail(path, NULL);
    ck_assert_msg(strcmp(expected, got) == 0, "%s differs; got:\n%s", path, got);
    free(expected);
}

/* Runs `script` under python3 with `input` on stdin; its stdout must equal
 * `expected`. A missing python3 fails the test. */
static void check_python(const char* script, const char* input, const char* expected) {
    char in_path[PATH_MAX + 16], out_file[PATH_MAX + 16], command[3 * PATH_MAX + 4096];
    FILE* f;
    char* got;
    int status;
    snprintf(in_path, sizeof in_path, "%s/py.in", dir);
    snprintf(out_file, sizeof out_file, "%s/py.out", dir);
    f = fopen(in_path, "wb");
    ck_assert_ptr_nonnull(f);
    fputs(input, f);
    fclose(f);
    snprintf(command, sizeof command, "python3 -c '%s' < '%s' > '%s'", script, in_path, out_file);
    f = popen(command, "r");
    ck_assert_msg(f != NULL, "cannot run python3");
    status = pclose(f);
    got = tu_read_file_or_fail(out_file, NULL);
    unlink(in_path);
    unlink(out_file);
    ck_assert_msg(status == 0, "python3 failed (status %d; is it installed?) on:\n%s", status,
                  input);
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

/* Stream "main" (default domain): outer [0,1000] holding inner 300 and
 * inner 400 (which holds leaf 100); work 100, 300, 200 (odd median 200);
 * a push left open. Stream "io" (domain net): send 500 and recv 600 as
 * registered strings; a pop and an end without partners. start/end "async"
 * halves cross the two streams both ways; start 99 never ends. */
static void write_golden(nvtxwSessionHandle_t session) {
    nvtxDomainHandle_t def, net;
    nvtxwEventWriter_t m, io;
    OK(nvtxwDomainRegister(T, session, NULL, &def));
    OK(nvtxwDomainRegister(T, session, "net", &net));
    OK(nvtxwEventWriterOpen(T, session, "main", def, NULL, 0, &m));
    OK(nvtxwEventWriterOpen(T, session, "io", net, NULL, 0, &io));
    OK(nvtxwRangePushPopWriteUtf8(&m, 0, 1000, utf8("outer")));
    OK(nvtxwRangePushWriteUtf8(&m, 100, utf8("inner")));
    OK(nvtxwRangePopWrite(&m, 400));
    OK(nvtxwRangePushWrite(&m, 500, reg(def, "inner")));
    OK(nvtxwRangePushWriteUtf8(&m, 550, utf8("leaf")));
    OK(nvtxwRangePopWrite(&m, 650));
    OK(nvtxwRangePopWrite(&m, 900));
    OK(nvtxwRangePushPopWriteUtf8(&m, 2000, 2100, utf8("work")));
    OK(nvtxwRangePushPopWriteUtf8(&m, 2200, 2500, utf8("work")));
    OK(nvtxwRangePushPopWriteUtf8(&m, 2600, 2800, utf8("work")));
    OK(nvtxwRangePushPopWrite(&io, 3000, 3500, reg(net, "send")));
    OK(nvtxwRangeStartEndWrite(&io, 3000, 3600, reg(net, "recv")));
    OK(nvtxwRangeStartWriteUtf8(&m, 4000, 7, utf8("async")));
    OK(nvtxwRangeEndWrite(&io, 4700, 7));
    OK(nvtxwRangeEndWrite(&m, 5100, 8));
    OK(nvtxwRangeStartWrite(&io, 5000, 8, reg(net, "async")));
    OK(nvtxwRangePushWriteUtf8(&m, 6000, utf8("dangling")));
    OK(nvtxwRangeStartWriteUtf8(&m, 6100, 99, utf8("never")));
    OK(nvtxwRangePopWrite(&io, 6200));
    OK(nvtxwRangeEndWrite(&io, 6300, 1234));
    OK(T->SessionEnd(session));
}

static char* golden_output(const char* format) {
    write_golden(begin("golden", format, ALL_REPORTS));
    return tu_read_file_or_fail(out_path, NULL);
}

START_TEST(golden_text) {
    char* got = golden_output("text");
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
    /* An existing output without Overwrite=yes. */
    f = fopen(out_path, "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    snprintf(config, sizeof config, "Sink=stats|Output=%s", out_path);
    expect_begin_error(config, NVTXW_RESULT_FAILED, "set Overwrite=yes");
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
    tcase_add_test(tc, golden_text);
    tcase_add_test(tc, golden_csv);
    tcase_add_test(tc, golden_json);
    tcase_add_test(tc, report_selection_and_empty);
    tcase_add_test(tc, bad_config);
    tcase_add_test(tc, four_threads);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(stats_suite()); }
