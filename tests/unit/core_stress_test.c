/*
 * tests/unit/core_stress_test.c - the concurrent write path (conformance 46,
 * DESIGN section 3 "Threading"): THREADS threads, each with its own stream
 * of one session, write EVENTS events each with no producer locking. The
 * events are what nvtxwRangePushPopWriteUtf8 sends (spec 4.3/4.4): a
 * push/pop range header plus an unterminated UTF-8 message payload, built by
 * hand against schemas registered by hand.
 *
 * Sink=text: after SessionEnd the file must hold, per stream, exactly its
 * events in its order with intact content, every record's lines adjacent
 * (no interleaving). Sink=null: every call succeeds, also while another
 * session is begun and ended over and over on the main thread. CI runs this under
 * TSan; the event count is smaller there so the test stays well under 20 s
 * on two cores.
 */
#define _GNU_SOURCE
#include <check.h>
#include <dirent.h>
#include <inttypes.h>
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
#include "test_util.h"

#define THREADS 8

#if defined(__SANITIZE_THREAD__)
#define UNDER_TSAN 1
#elif defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UNDER_TSAN 1
#elif __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
/* Sized so each run stays well under 20 s on two cores (measured: ~8 s
 * plain, ~12 s TSan, ~15 s ASan on a loaded 2-core machine).
 * -DEVENTS=N overrides. */
#ifndef EVENTS
#if defined(UNDER_TSAN)
#define EVENTS 5000
#elif defined(UNDER_ASAN)
#define EVENTS 10000
#else
#define EVENTS 20000
#endif
#endif

/* nvtxwRangeEventUtf8Payload_t (spec 4.2). */
typedef struct range_utf8 {
    int64_t timestampBegin, timestampEnd;
    uint32_t color, category;
} range_utf8;

static const nvtxPayloadSchemaEntry_t range_entries[] = {
    {NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP | NVTX_PAYLOAD_ENTRY_FLAG_RANGE_BEGIN,
     NVTX_PAYLOAD_ENTRY_TYPE_INT64, "timestampBegin", NULL, 0, 0, NULL, NULL},
    {NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP | NVTX_PAYLOAD_ENTRY_FLAG_RANGE_END,
     NVTX_PAYLOAD_ENTRY_TYPE_INT64, "timestampEnd", NULL, 0, 8, NULL, NULL},
    {0, NVTX_PAYLOAD_ENTRY_TYPE_COLOR_ARGB, "color", NULL, 0, 16, NULL, NULL},
    {0, NVTX_PAYLOAD_ENTRY_TYPE_CATEGORY, "category", NULL, 0, 20, NULL, NULL},
};
static const nvtxPayloadSchemaEntry_t message_entry[] = {
    {NVTX_PAYLOAD_ENTRY_FLAG_EVENT_MESSAGE | NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_ZERO_TERMINATED,
     NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF8, "message", NULL, 0, 0, NULL, NULL},
};

typedef struct worker {
    const nvtxwInterface_t* t;
    nvtxwStreamHandle_t stream;
    uint64_t range_schema, message_schema;
    int index;
    int failures;           /* calls that did not return SUCCESS */
    char first_error[1100]; /* the first of them, for the report */
} worker;

static const nvtxwInterface_t* T;
static char dir[PATH_MAX], out_path[PATH_MAX + 16];

static void setup(void) {
    tu_make_temp_dir_or_fail(dir, sizeof dir, "nvtxw-stress");
    snprintf(out_path, sizeof out_path, "%s/out.txt", dir);
    T = tu_get_interface_or_fail();
}

static void teardown(void) { tu_remove_tree(dir); }

/* The message of event j of thread i: distinct per thread, with non-ASCII
 * UTF-8 and a length that varies with j. */
static int message_of(int i, int j, char* buf, size_t size) {
    return snprintf(buf, size, "thread %d \xc3\xa9v\xc3\xa9nement %d %.*s", i, j, j % 7, "xxxxxxx");
}

static range_utf8 header_of(int i, int j) {
    range_utf8 h;
    memset(&h, 0, sizeof h);
    h.timestampBegin = (int64_t)j * 10 + i;
    h.timestampEnd = h.timestampBegin + 5;
    h.color = 0xff000000u | (uint32_t)i;
    h.category = (uint32_t)i + 1;
    return h;
}

static void* worker_main(void* arg) {
    worker* w = arg;
    int j;
    for (j = 0; j < EVENTS; j++) {
        range_utf8 h = header_of(w->index, j);
        char message[96];
        nvtxPayloadData_t payloads[2] = {{w->range_schema, sizeof h, &h},
                                         {w->message_schema, 0, message}};
        nvtxwResultCode_t rc;
        payloads[1].size = (size_t)message_of(w->index, j, message, sizeof message);
        rc = w->t->EventWrite(w->stream, payloads, 2);
        if (rc != NVTXW_RESULT_SUCCESS && w->failures++ == 0)
            snprintf(w->first_error, sizeof w->first_error, "event %d: rc=%d %s", j, rc,
                     nvtxw_last_error());
    }
    return NULL;
}

static nvtxDomainHandle_t register_schemas(nvtxwSessionHandle_t s, uint64_t* range,
                                           uint64_t* message) {
    nvtxwDomainAttributes_t dattr = {sizeof dattr, "stress"};
    nvtxPayloadSchemaAttr_t a;
    nvtxDomainHandle_t d = NULL;
    ck_assert_int_eq(T->DomainRegister(s, &dattr, &d), NVTXW_RESULT_SUCCESS);
    memset(&a, 0, sizeof a);
    a.fieldMask = 0x7C; /* TYPE|FLAGS|ENTRIES|NUM_ENTRIES|STATIC_SIZE, as the helpers */
    a.type = NVTX_PAYLOAD_SCHEMA_TYPE_STATIC;
    a.flags = NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_PUSHPOP;
    a.entries = range_entries;
    a.numEntries = 4;
    a.payloadStaticSize = sizeof(range_utf8);
    ck_assert_int_eq(T->SchemaRegister(d, &a, range), NVTXW_RESULT_SUCCESS);
    a.type = NVTX_PAYLOAD_SCHEMA_TYPE_DYNAMIC;
    a.flags = 0;
    a.entries = message_entry;
    a.numEntries = 1;
    a.payloadStaticSize = 0;
    ck_assert_int_eq(T->SchemaRegister(d, &a, message), NVTXW_RESULT_SUCCESS);
    return d;
}

/* Lifecycle churn of an unrelated session, run on the main thread while the
 * workers write: the process-wide handle tables are shared by all
 * sessions, so lookups on the write path race with inserts and releases. */
static void churn_other_sessions(void) {
    int round;
    for (round = 0; round < 200; round++) {
        nvtxwSessionAttributes_t attr = {sizeof attr, "churn", "Sink=null"};
        nvtxwStreamAttributes_t sattr;
        nvtxwSessionHandle_t s = NULL;
        nvtxwStreamHandle_t st = NULL;
        nvtxDomainHandle_t d = NULL;
        int64_t v = round;
        nvtxPayloadData_t payload = {NVTX_PAYLOAD_ENTRY_TYPE_INT64, sizeof v, &v};
        memset(&sattr, 0, sizeof sattr);
        sattr.structSize = sizeof sattr;
        sattr.name = "churn";
        ck_assert_int_eq(T->SessionBegin(&attr, &s), NVTXW_RESULT_SUCCESS);
        ck_assert_int_eq(T->DomainRegister(s, NULL, &d), NVTXW_RESULT_SUCCESS);
        ck_assert_int_eq(T->StreamOpen(s, &sattr, &st), NVTXW_RESULT_SUCCESS);
        ck_assert_int_eq(T->EventWrite(st, &payload, 1), NVTXW_RESULT_SUCCESS);
        if (round % 2 == 0)
            ck_assert_int_eq(T->StreamClose(st), NVTXW_RESULT_SUCCESS);
        ck_assert_int_eq(T->SessionEnd(s), NVTXW_RESULT_SUCCESS);
    }
}

/* Opens one stream per worker (lifecycle calls are serialized by the
 * caller), runs the workers concurrently (and `during` on this thread, if
 * given), closes the streams. */
static void run_workers(nvtxwSessionHandle_t s, worker* workers, void (*during)(void)) {
    pthread_t threads[THREADS];
    uint64_t range = 0, message = 0;
    nvtxDomainHandle_t d = register_schemas(s, &range, &message);
    int i;
    for (i = 0; i < THREADS; i++) {
        nvtxwStreamAttributes_t attr;
        char name[16];
        snprintf(name, sizeof name, "t%d", i);
        memset(&attr, 0, sizeof attr);
        attr.structSize = sizeof attr;
        attr.name = name;
        attr.domain = d;
        memset(&workers[i], 0, sizeof workers[i]);
        workers[i].t = T;
        workers[i].index = i;
        workers[i].range_schema = range;
        workers[i].message_schema = message;
        ck_assert_int_eq(T->StreamOpen(s, &attr, &workers[i].stream), NVTXW_RESULT_SUCCESS);
    }
    for (i = 0; i < THREADS; i++)
        ck_assert_int_eq(pthread_create(&threads[i], NULL, worker_main, &workers[i]), 0);
    if (during != NULL)
        during();
    for (i = 0; i < THREADS; i++)
        ck_assert_int_eq(pthread_join(threads[i], NULL), 0);
    for (i = 0; i < THREADS; i++) {
        ck_assert_msg(workers[i].failures == 0, "thread %d: %d failed calls, first: %s", i,
                      workers[i].failures, workers[i].first_error);
        ck_assert_int_eq(T->StreamClose(workers[i].stream), NVTXW_RESULT_SUCCESS);
    }
}

/* ---- Checking the text output ------------------------------------------------ */

typedef struct checker {
    const worker* w; /* any worker: the schema IDs */
    int next[THREADS];
    char line[3][256]; /* expected event record, rebuilt per event */
} checker;

/* Splits off the next line (NUL-terminates it in place); NULL at the end. */
static char* next_line(char** cursor) {
    char *line = *cursor, *nl;
    if (*line == '\0')
        return NULL;
    nl = strchr(line, '\n');
    ck_assert_msg(nl != NULL, "unterminated last line \"%s\"", line);
    *nl = '\0';
    *cursor = nl + 1;
    return line;
}

static void expect_event(checker* c, int i, int j) {
    range_utf8 h = header_of(i, j);
    char message[96];
    message_of(i, j, message, sizeof message);
    snprintf(c->line[0], sizeof c->line[0], "event stream=\"t%d\" ts=%" PRId64, i,
             h.timestampBegin);
    snprintf(c->line[1], sizeof c->line[1],
             "  [0] <schema_%" PRIu64 ">: timestampBegin=%" PRId64 ", timestampEnd=%" PRId64
             ", color=0x%08" PRIx32 ", category=%" PRIu32,
             c->w->range_schema, h.timestampBegin, h.timestampEnd, h.color, h.category);
    snprintf(c->line[2], sizeof c->line[2], "  [1] <schema_%" PRIu64 ">: message=\"%s\"",
             c->w->message_schema, message);
}

/* One event record starting at `line`; its payload lines must follow it. */
static void check_event(checker* c, char* line, char** cursor) {
    int i = -1, k;
    ck_assert_int_eq(sscanf(line, "event stream=\"t%d\"", &i), 1);
    ck_assert_msg(i >= 0 && i < THREADS, "bad stream in \"%s\"", line);
    ck_assert_msg(c->next[i] < EVENTS, "stream t%d has more than %d events", i, EVENTS);
    expect_event(c, i, c->next[i]++);
    ck_assert_str_eq(line, c->line[0]);
    for (k = 1; k < 3; k++) {
        line = next_line(cursor);
        ck_assert_msg(line != NULL, "record of t%d cut at the end of the file", i);
        ck_assert_str_eq(line, c->line[k]);
    }
}

static void check_text_output(const worker* workers, const char* text_in) {
    char *text = strdup(text_in), *cursor = text, *line;
    checker c;
    int i, streams_closed = 0, session_end = 0;
    memset(&c, 0, sizeof c);
    c.w = &workers[0];
    ck_assert_ptr_nonnull(text);
    while ((line = next_line(&cursor)) != NULL) {
        ck_assert_msg(!session_end, "line after session_end: \"%s\"", line);
        if (strncmp(line, "event ", 6) == 0)
            check_event(&c, line, &cursor);
        else if (strncmp(line, "stream_close ", 13) == 0)
            streams_closed++;
        else if (strcmp(line, "session_end") == 0)
            session_end = 1;
        else
            ck_assert_msg(strncmp(line, "session ", 8) == 0 || strncmp(line, "domain ", 7) == 0 ||
                              strncmp(line, "schema ", 7) == 0 ||
                              strncmp(line, "stream_open ", 12) == 0,
                          "unexpected line \"%s\"", line);
    }
    for (i = 0; i < THREADS; i++)
        ck_assert_msg(c.next[i] == EVENTS, "stream t%d has %d of %d events", i, c.next[i], EVENTS);
    ck_assert_int_eq(streams_closed, THREADS);
    ck_assert(session_end);
    free(text);
}

START_TEST(stress_text_sink) {
    nvtxwSessionHandle_t s = tu_text_session_or_fail(T, "stress", out_path, NULL);
    worker workers[THREADS];
    char* text;
    run_workers(s, workers, NULL);
    ck_assert_int_eq(T->SessionEnd(s), NVTXW_RESULT_SUCCESS);
    text = tu_read_file_or_fail(out_path, NULL);
    check_text_output(workers, text);
    free(text);
}
END_TEST

START_TEST(stress_null_sink) {
    nvtxwSessionAttributes_t attr = {sizeof attr, "stress", "Sink=null"};
    nvtxwSessionHandle_t s = NULL;
    worker workers[THREADS];
    ck_assert_int_eq(T->SessionBegin(&attr, &s), NVTXW_RESULT_SUCCESS);
    run_workers(s, workers, NULL);
    ck_assert_int_eq(T->SessionEnd(s), NVTXW_RESULT_SUCCESS);
}
END_TEST

START_TEST(stress_null_sink_with_session_churn) {
    nvtxwSessionAttributes_t attr = {sizeof attr, "stress", "Sink=null"};
    nvtxwSessionHandle_t s = NULL;
    worker workers[THREADS];
    ck_assert_int_eq(T->SessionBegin(&attr, &s), NVTXW_RESULT_SUCCESS);
    run_workers(s, workers, churn_other_sessions);
    ck_assert_int_eq(T->SessionEnd(s), NVTXW_RESULT_SUCCESS);
}
END_TEST

int main(void) {
    Suite* suite = suite_create("core_stress");
    TCase* tc = tcase_create("threads");
    int result;
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, stress_text_sink);
    tcase_add_test(tc, stress_null_sink);
    tcase_add_test(tc, stress_null_sink_with_session_churn);
    suite_add_tcase(suite, tc);
    result = tu_run_suite(suite);
    nvtxwFinalize();
    return result;
}
