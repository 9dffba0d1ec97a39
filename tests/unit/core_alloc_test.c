/*
 * tests/unit/core_alloc_test.c - allocation-failure sweep through the whole
 * backend: for n = 0, 1, 2, ... a full producer scenario (every function
 * table member, the 13 helper schemas, enough events to flush report chunks,
 * streams left open for SessionEnd) runs with the (n+1)th allocation and all
 * later ones failing, until a run succeeds with no failure at all. Every
 * sink but backend is swept (report, text, null, json, stats, capture,
 * sqlite; SQLite's own allocations are not injected).
 *
 * Every call must return a clean code with a message of its own (the message
 * is reset to a sentinel before each call), nothing may crash, and once the
 * hook is reset a new session must work from the same process. Each run is a
 * fork()ed child that ends with exit(), so under ASan LeakSanitizer checks
 * every run for leaks; the parent only looks at the exit status.
 *
 * The reader is swept the same way over a report of that scenario: open,
 * every record in stream and in time order with every event visited, then
 * a replay of it into a second report (the library side of nvtxw-replay).
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nvtxw/backend.h"
#include "nvtxw/error.h"
#include "nvtxw/helpers.h"
#include "nvtxw/reader.h"
#include "test_util.h"

NVTXW_API void nvtxw_alloc_fail_after(long count);
NVTXW_API int nvtxw_grow_array(void** items, size_t* capacity, size_t need, size_t size,
                               size_t first);
NVTXW_API void nvtxw_free(void* ptr);

/* Child exit codes: an injected failure happened (and was clean), or the
 * whole scenario ran without one; anything else is a test failure. */
#define EXIT_INJECTED 0
#define EXIT_COMPLETE 42
#define EXIT_BROKEN 3

#define EVENTS 300 /* 1 KiB messages: more than one 256 KiB chunk */
#define MESSAGE_SIZE 1000
#define SENTINEL "cannot get interface: version 999"

static const nvtxwInterface_t* T;
static char dir[PATH_MAX];

typedef struct run {
    int failures; /* calls that returned an error */
    const char* sink;
    long iteration;
} run;

/* Sets the thread's message to a known text, so a failing call that does
 * not set its own message is caught. */
static void reset_message(void) {
    const void* iface;
    (void)nvtxwGetInterface((nvtxwInterfaceVersion_t)999, &iface);
}

static void broken(const run* r, const char* what, const char* detail) {
    fprintf(stderr, "sink=%s n=%ld: %s: %s\n", r->sink, r->iteration, what, detail);
    exit(EXIT_BROKEN);
}

/* Checks the result of one call: success, or a clean code with a message. */
static void checked(run* r, nvtxwResultCode_t rc, const char* what) {
    const char* message = nvtxw_last_error();
    if (rc == NVTXW_RESULT_SUCCESS)
        return;
    r->failures++;
    if (rc != NVTXW_RESULT_FAILED && rc != NVTXW_RESULT_INVALID_ARGUMENT &&
        rc != NVTXW_RESULT_NOT_SUPPORTED)
        broken(r, what, "unexpected result code");
    if (message[0] == '\0' || strncmp(message, SENTINEL, strlen(SENTINEL)) == 0)
        broken(r, what, "failed without a message of its own");
}

#define CALL(r, expr) (reset_message(), checked((r), (expr), #expr))

typedef struct handles {
    nvtxwSessionHandle_t session;
    nvtxDomainHandle_t domain;
    nvtxStringHandle_t string;
    nvtxwStreamHandle_t a, b;
    nvtxwEventHelperSchemaIds_t ids;
    uint64_t scope, counter, time_domain, enumeration;
} handles;

static void begin(run* r, handles* h, const char* name) {
    nvtxwSessionAttributes_t attr;
    char config[PATH_MAX + 64];
    snprintf(config, sizeof config, "Sink=%s|Output=%s/%s-%ld|Overwrite=yes", r->sink, dir, name,
             r->iteration);
    nvtxwSessionAttributesInit(&attr);
    attr.name = name;
    attr.configString = config;
    CALL(r, T->SessionBegin(&attr, &h->session));
}

static void register_enum(run* r, handles* h) {
    static const nvtxPayloadEnum_t values[] = {{"ON", 1, 0}, {"OFF", 2, 0}};
    nvtxPayloadEnumAttr_t attr;
    memset(&attr, 0, sizeof attr);
    attr.fieldMask = NVTX_PAYLOAD_ENUM_ATTR_FIELD_ENTRIES |
                     NVTX_PAYLOAD_ENUM_ATTR_FIELD_NUM_ENTRIES | NVTX_PAYLOAD_ENUM_ATTR_FIELD_SIZE;
    attr.entries = values;
    attr.numEntries = 2;
    attr.sizeOfEnum = 4;
    CALL(r, T->EnumRegister(h->domain, &attr, &h->enumeration));
}

static void register_all(run* r, handles* h) {
    nvtxCounterAttr_t counter;
    CALL(r, nvtxwDomainRegister(T, h->session, "alloc", &h->domain));
    if (h->domain == NULL)
        return; /* the helpers below reject a NULL domain without a message */
    CALL(r, T->StringRegister(h->domain, "registered", &h->string));
    CALL(r, T->CategoryRegister(h->domain, 1, "category"));
    CALL(r, nvtxwScopeRegister(T, h->domain, "/node/process", &h->scope));
    CALL(r, nvtxwEventSchemasRegister(T, h->domain, NVTXW_EVENT_HELPER_SCHEMA_ALL, &h->ids));
    register_enum(r, h);
    memset(&counter, 0, sizeof counter);
    counter.structSize = sizeof counter;
    counter.schemaId = NVTX_PAYLOAD_ENTRY_TYPE_INT64;
    counter.name = "bytes";
    CALL(r, T->CounterRegister(h->domain, &counter, &h->counter));
    CALL(r, nvtxwTimeDomainRegister(T, h->domain, NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_MONOTONIC,
                                    &h->time_domain));
    CALL(r, nvtxwStreamOpen(T, h->session, "a", h->domain, NULL, 0, &h->a));
    CALL(r, nvtxwStreamOpen(T, h->session, "b", h->domain, NULL, 0, &h->b));
}

/* Ranges with distinct 1 KiB messages (new dictionary entries every event),
 * marks with a registered string, and two interned strings in one event. */
static void write_events(run* r, handles* h) {
    static char message[MESSAGE_SIZE + 1];
    nvtxwEventWriter_t writer;
    nvtxwEventAttributesUtf8_t utf8;
    nvtxwEventAttributes_t reg;
    nvtxPayloadData_t pair[2];
    int i;
    nvtxwEventWriterInit(&writer, T, h->a, &h->ids);
    memset(message, 'm', MESSAGE_SIZE);
    memset(&utf8, 0, sizeof utf8);
    memset(&reg, 0, sizeof reg);
    reg.message = h->string;
    utf8.message = message;
    for (i = 0; i < EVENTS; i++) {
        snprintf(message, 16, "%06d", i);
        message[6] = 'm';
        CALL(r, nvtxwRangePushPopWriteUtf8(&writer, i * 10, i * 10 + 5, utf8));
    }
    writer.stream = h->b;
    CALL(r, nvtxwMarkWrite(&writer, 7, reg));
    pair[0].schemaId = pair[1].schemaId = NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF8;
    pair[0].payload = "first";
    pair[1].payload = "second";
    pair[0].size = pair[1].size = SIZE_MAX;
    CALL(r, T->EventWrite(h->b, pair, 2));
}

static void write_batches(run* r, handles* h) {
    nvtxwEventUtf8Payload_t marks[3];
    nvtxEventBatch_t batch;
    nvtxCounterBatch_t counters;
    int64_t values[4] = {1, 2, 3, 4}, times[4] = {10, 20, 30, 40};
    char flex[32] = "flex data";
    memset(marks, 0, sizeof marks);
    marks[1].timestamp = 1;
    marks[2].timestamp = 2;
    memset(&batch, 0, sizeof batch);
    batch.eventSchemaId = h->ids.markUtf8;
    batch.events = marks;
    batch.size = sizeof marks;
    batch.flexData = flex;
    batch.flexDataSize = sizeof flex;
    CALL(r, T->EventBatchWrite(h->a, &batch));
    CALL(r, T->CounterWrite(h->a, 5, h->counter, &values[0], sizeof values[0]));
    CALL(r, T->CounterNoValueWrite(h->a, 6, h->counter, NVTX_COUNTER_SAMPLE_UNCHANGED));
    memset(&counters, 0, sizeof counters);
    counters.counterId = h->counter;
    counters.counters = values;
    counters.countersSize = sizeof values;
    counters.timestamps = times;
    counters.timestampsSize = sizeof times;
    CALL(r, T->CounterBatchWrite(h->b, &counters));
}

static void write_time_sync(run* r, handles* h) {
    nvtxSyncPoint_t points[2] = {{1, 100}, {2, 200}};
    uint64_t tsc = NVTX_TIMESTAMP_TYPE_CPU_TSC;
    CALL(r, T->TimeSyncPointWrite(h->a, h->time_domain, tsc, 1, 2));
    CALL(r, T->TimeSyncPointTableWrite(h->a, h->time_domain, tsc, points, 2));
    CALL(r, T->TimestampConversionFactorWrite(h->b, h->time_domain, tsc, 2.0, 0, 0));
}

/* The whole scenario; stream b stays open so SessionEnd closes it. */
static void scenario(run* r, const char* name) {
    handles h;
    memset(&h, 0, sizeof h);
    begin(r, &h, name);
    if (h.session == NULL)
        return;
    register_all(r, &h);
    /* The event helpers reject missing handles or IDs without a message. */
    if (h.a != NULL && h.b != NULL && h.ids.markUtf8 != 0)
        write_events(r, &h);
    write_batches(r, &h);
    write_time_sync(r, &h);
    CALL(r, T->StreamClose(h.a));
    CALL(r, T->SessionEnd(h.session));
}

static void child(const char* sink, long n) {
    run r = {0, sink, n};
    nvtxw_alloc_fail_after(n);
    scenario(&r, "injected");
    nvtxw_alloc_fail_after(-1);
    if (r.failures == 0)
        exit(EXIT_COMPLETE);
    /* The same process must still work once memory is back. */
    r.failures = 0;
    scenario(&r, "after");
    if (r.failures != 0)
        broken(&r, "after the hook was reset", nvtxw_last_error());
    nvtxwFinalize();
    exit(EXIT_INJECTED);
}

/* ---- The reader ---------------------------------------------------------- */

static char source[PATH_MAX + 32]; /* the report the reader sweeps read */

static int count_value(void* ctx, uint64_t value) {
    (void)value;
    ++*(uint64_t*)ctx;
    return 0;
}

/* Opens `source`, reads every record in `order`, visits every event; the
 * number of records read, or -1 after a clean failure. */
static long read_all(run* r, int order) {
    nvtxw_reader_options_t opts = {sizeof opts, order, 0};
    nvtxw_reader_t* reader = NULL;
    nvtxw_visitor_t visitor;
    uint64_t values = 0;
    long records = 0;
    memset(&visitor, 0, sizeof visitor);
    visitor.struct_size = sizeof visitor;
    visitor.on_unsigned = count_value;
    reset_message();
    checked(r, nvtxw_reader_open(source, &opts, &reader), "nvtxw_reader_open");
    if (reader == NULL)
        return -1;
    for (;;) {
        const nvtxw_record_t* rec = NULL;
        reset_message();
        checked(r, nvtxw_reader_next(reader, &rec), "nvtxw_reader_next");
        if (rec == NULL)
            break;
        records++;
        if (rec->kind == NVTXW_RECORD_EVENT)
            CALL(r, nvtxw_reader_visit_event(reader, rec, &visitor, &values));
    }
    nvtxw_reader_close(reader);
    return r->failures ? -1 : records;
}

/* Replays `source` into a report beside it. */
static void replay_all(run* r) {
    nvtxw_reader_t* reader = NULL;
    char config[PATH_MAX + 64];
    uint64_t records = 0;
    snprintf(config, sizeof config, "Sink=report|Output=%s/replayed-%ld.nvtxw", dir, r->iteration);
    reset_message();
    checked(r, nvtxw_reader_open(source, NULL, &reader), "nvtxw_reader_open");
    if (reader == NULL)
        return;
    CALL(r, nvtxw_reader_replay(reader, T, config, &records));
    nvtxw_reader_close(reader);
}

static void reader_scenario(run* r) {
    if (read_all(r, NVTXW_READER_ORDER_STREAM) >= 0)
        (void)read_all(r, NVTXW_READER_ORDER_TIME);
    replay_all(r);
}

static void reader_child(long n, long expected) {
    run r = {0, "reader", n};
    nvtxw_alloc_fail_after(n);
    reader_scenario(&r);
    nvtxw_alloc_fail_after(-1);
    if (r.failures == 0)
        exit(EXIT_COMPLETE);
    r.failures = 0; /* the same process reads the whole report once memory is back */
    if (read_all(&r, NVTXW_READER_ORDER_TIME) != expected)
        broken(&r, "after the hook was reset", nvtxw_last_error());
    nvtxwFinalize();
    exit(EXIT_INJECTED);
}

static void sweep(const char* sink) {
    long n, expected = 0;
    if (strcmp(sink, "reader") == 0) { /* the source report, written without failures */
        run r = {0, "report", 0};
        scenario(&r, "source");
        ck_assert_int_eq(r.failures, 0);
        snprintf(source, sizeof source, "%s/source-0", dir);
        expected = read_all(&r, NVTXW_READER_ORDER_STREAM);
        ck_assert_int_gt(expected, EVENTS);
    }
    for (n = 0; n < 100000; n++) {
        int status = 0;
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0 && expected > 0)
            reader_child(n, expected);
        if (pid == 0)
            child(sink, n);
        ck_assert_int_eq(waitpid(pid, &status, 0), pid);
        ck_assert_msg(WIFEXITED(status), "sink=%s n=%ld: child died with signal %d", sink, n,
                      WTERMSIG(status));
        if (WEXITSTATUS(status) == EXIT_COMPLETE) {
            /* every allocation of the scenario failed once, each cleanly */
            ck_assert_msg(n >= 20, "sink=%s: only %ld allocations: is the hook working?", sink, n);
            return;
        }
        ck_assert_msg(
            WEXITSTATUS(status) == EXIT_INJECTED,
            "sink=%s n=%ld: child exited with %d (3 = bad result, other = sanitizer report)", sink,
            n, WEXITSTATUS(status));
    }
    ck_abort_msg("sink=%s: the scenario never completed", sink);
}

START_TEST(alloc_sweep_report) { sweep("report"); }
END_TEST

START_TEST(alloc_sweep_text) { sweep("text"); }
END_TEST

START_TEST(alloc_sweep_null) { sweep("null"); }
END_TEST

START_TEST(alloc_sweep_json) { sweep("json"); }
END_TEST

START_TEST(alloc_sweep_perfetto) { sweep("perfetto"); }
END_TEST

START_TEST(alloc_sweep_stats) { sweep("stats"); }
END_TEST

START_TEST(alloc_sweep_capture) { sweep("capture"); }
END_TEST

START_TEST(alloc_sweep_sqlite) { sweep("sqlite"); }
END_TEST

START_TEST(alloc_sweep_reader) { sweep("reader"); }
END_TEST

/* nvtxw_grow_array: doubles from `first`, keeps what it held, and leaves the
 * array as it was when the size overflows or memory runs out. */
START_TEST(grow_array_doubles_and_fails_cleanly) {
    uint32_t* items = NULL;
    size_t capacity = 0;
    void* before;
    ck_assert_int_eq(nvtxw_grow_array((void**)&items, &capacity, 5, sizeof *items, 4), 0);
    ck_assert_uint_eq(capacity, 8);
    for (uint32_t i = 0; i < 8; i++)
        items[i] = i * 7u;
    before = items;
    ck_assert_int_eq(nvtxw_grow_array((void**)&items, &capacity, 8, sizeof *items, 4), 0);
    ck_assert_ptr_eq(items, before); /* room enough: no reallocation */
    ck_assert_int_eq(nvtxw_grow_array((void**)&items, &capacity, 33, sizeof *items, 4), 0);
    ck_assert_uint_eq(capacity, 64);
    for (uint32_t i = 0; i < 8; i++)
        ck_assert_uint_eq(items[i], i * 7u);
    before = items;
    ck_assert_int_eq(nvtxw_grow_array((void**)&items, &capacity, SIZE_MAX / 2, sizeof *items, 4),
                     -1);
    ck_assert_int_eq(nvtxw_grow_array((void**)&items, &capacity, SIZE_MAX, 1, 4), -1);
    ck_assert_ptr_eq(items, before);
    ck_assert_uint_eq(capacity, 64);
    nvtxw_alloc_fail_after(0);
    ck_assert_int_eq(nvtxw_grow_array((void**)&items, &capacity, 65, sizeof *items, 4), -1);
    nvtxw_alloc_fail_after(-1);
    ck_assert_ptr_eq(items, before);
    ck_assert_uint_eq(capacity, 64);
    ck_assert_uint_eq(items[7], 49);
    nvtxw_free(items);
}
END_TEST

static void setup(void) { tu_make_temp_dir_or_fail(dir, sizeof dir, "nvtxw-alloc"); }

static void teardown(void) { ck_assert_int_eq(tu_remove_tree(dir), 0); }

int main(void) {
    Suite* suite = suite_create("core_alloc");
    TCase* tc = tcase_create("sweep");
    T = tu_get_interface();
    if (T == NULL)
        return EXIT_FAILURE;
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, alloc_sweep_report);
    tcase_add_test(tc, alloc_sweep_text);
    tcase_add_test(tc, alloc_sweep_null);
    tcase_add_test(tc, alloc_sweep_json);
    tcase_add_test(tc, alloc_sweep_perfetto);
    tcase_add_test(tc, alloc_sweep_stats);
    tcase_add_test(tc, alloc_sweep_capture);
    tcase_add_test(tc, alloc_sweep_sqlite);
    tcase_add_test(tc, alloc_sweep_reader);
    tcase_add_test(tc, grow_array_doubles_and_fails_cleanly);
    suite_add_tcase(suite, tc);
    return tu_run_suite(suite);
}
