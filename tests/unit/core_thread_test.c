/*
 * tests/unit/core_thread_test.c - concurrency of the core and the sinks
 * beyond one session's plain write path (DESIGN section 3 "Threading",
 * spec section 6); meant to run under TSan as well:
 *   - report sink: writers on distinct streams flush chunks at the same time
 *     while registrations made between write bursts are pending, so several
 *     threads reach report_sync_registrations together; the events use the
 *     strings registered in between and must read back resolved;
 *   - several sessions, one per thread, each thread serializing its own
 *     session's calls (all three sinks, streams closed and reopened);
 *   - a session turning faulty on several writer threads at once (the file
 *     size limit makes every write fail): every thread gets the failure,
 *     later calls get the saved fault, SessionEnd still closes.
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nvtxw/backend.h"
#include "nvtxw/error.h"
#include "nvtxw/helpers.h"
#include "nvtxw/reader.h"
#include "test_util.h"

#define THREADS 4
#define ROUNDS 3
#define BURST 300 /* 1 KiB messages: each burst flushes a 256 KiB chunk */
#define MESSAGE_SIZE 1000

static const nvtxwInterface_t* T;
static char dir[PATH_MAX];

static nvtxwSessionHandle_t begin(const char* sink, const char* name) {
    return tu_sink_session_or_fail(T, sink, dir, name);
}

static nvtxw_reader_t* open_reader(const char* name) {
    nvtxw_reader_options_t options;
    nvtxw_reader_t* reader = NULL;
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    memset(&options, 0, sizeof options);
    options.struct_size = sizeof options;
    ck_assert_msg(nvtxw_reader_open(path, &options, &reader) == 0, "%s", nvtxw_last_error());
    return reader;
}

/* ---- Registrations between write bursts ---------------------------------- */

typedef struct burst_shared {
    pthread_barrier_t start, done;
    nvtxStringHandle_t round_string; /* written by main between bursts */
    int round;
} burst_shared;

typedef struct burst_arg {
    burst_shared* shared;
    nvtxwEventWriter_t writer;
    int thread;
    int failed;
} burst_arg;

/* One burst: a mark naming the round's registered string, then ranges with
 * 1 KiB messages so that every thread flushes a chunk. */
static int write_burst(burst_arg* arg) {
    static _Thread_local char message[MESSAGE_SIZE + 1];
    nvtxwEventAttributes_t reg;
    nvtxwEventAttributesUtf8_t utf8;
    int64_t base = (int64_t)arg->shared->round * 100000;
    int i;
    memset(&reg, 0, sizeof reg);
    reg.message = arg->shared->round_string;
    if (nvtxwMarkWrite(&arg->writer, base, reg) != 0)
        return -1;
    memset(message, 'a' + arg->thread, MESSAGE_SIZE);
    memset(&utf8, 0, sizeof utf8);
    utf8.message = message;
    for (i = 0; i < BURST; i++) {
        snprintf(message, 8, "%07d", i);
        message[7] = 'x';
        if (nvtxwRangePushPopWriteUtf8(&arg->writer, base + i, base + i + 1, utf8) != 0)
            return -1;
    }
    return 0;
}

static void* burst_main(void* p) {
    burst_arg* arg = p;
    int round;
    for (round = 0; round < ROUNDS; round++) {
        pthread_barrier_wait(&arg->shared->start);
        if (!arg->failed && write_burst(arg) != 0) {
            arg->failed = 1;
            fprintf(stderr, "thread %d: %s\n", arg->thread, nvtxw_last_error());
        }
        pthread_barrier_wait(&arg->shared->done);
    }
    return NULL;
}

/* Main thread: registrations while every writer waits at a barrier. */
static void register_round(nvtxDomainHandle_t domain, burst_shared* shared, int round) {
    char text[32];
    uint64_t scope;
    snprintf(text, sizeof text, "round-%d", round);
    ck_assert_int_eq(T->StringRegister(domain, text, &shared->round_string), 0);
    ck_assert_int_eq(nvtxwScopeRegister(T, domain, text, &scope), 0);
    shared->round = round;
}

/* Every mark's string handle must read back as its round's text. */
static void check_bursts(void) {
    nvtxw_reader_t* reader = open_reader("bursts.nvtxw");
    const nvtxw_record_t* r;
    long marks = 0, ranges = 0;
    while (nvtxw_reader_next(reader, &r) == 0 && r != NULL) {
        nvtxwEventRegStringPayload_t mark;
        char text[32];
        const char* found;
        if (r->kind != NVTXW_RECORD_EVENT)
            continue;
        if (r->u.event.count == 2) {
            ranges++;
            continue;
        }
        ck_assert_uint_eq(r->u.event.payloads[0].size, sizeof mark);
        memcpy(&mark, r->u.event.payloads[0].payload, sizeof mark);
        snprintf(text, sizeof text, "round-%d", (int)(mark.timestamp / 100000));
        found = nvtxw_reader_string(reader, r->domain, (uint64_t)(uintptr_t)mark.attr.message);
        ck_assert_ptr_nonnull(found);
        ck_assert_str_eq(found, text);
        marks++;
    }
    ck_assert_int_eq(nvtxw_reader_damage_count(reader), 0);
    ck_assert_int_eq(marks, THREADS * ROUNDS);
    ck_assert_int_eq(ranges, (long)THREADS * ROUNDS * BURST);
    nvtxw_reader_close(reader);
}

START_TEST(report_registrations_between_bursts) {
    nvtxwSessionHandle_t session = begin("report", "bursts.nvtxw");
    nvtxwEventHelperSchemaIds_t ids;
    nvtxDomainHandle_t domain;
    burst_shared shared;
    burst_arg args[THREADS];
    pthread_t threads[THREADS];
    int i, round;
    ck_assert_int_eq(nvtxwDomainRegister(T, session, "bursts", &domain), 0);
    ck_assert_int_eq(nvtxwEventSchemasRegister(T, domain, NVTXW_EVENT_HELPER_SCHEMA_ALL, &ids), 0);
    memset(&shared, 0, sizeof shared);
    pthread_barrier_init(&shared.start, NULL, THREADS + 1);
    pthread_barrier_init(&shared.done, NULL, THREADS + 1);
    memset(args, 0, sizeof args);
    for (i = 0; i < THREADS; i++) {
        nvtxwStreamHandle_t stream;
        char name[16];
        snprintf(name, sizeof name, "writer-%d", i);
        ck_assert_int_eq(nvtxwStreamOpen(T, session, name, domain, NULL, 0, &stream), 0);
        nvtxwEventWriterInit(&args[i].writer, T, stream, &ids);
        args[i].shared = &shared;
        args[i].thread = i;
        ck_assert_int_eq(pthread_create(&threads[i], NULL, burst_main, &args[i]), 0);
    }
    for (round = 0; round < ROUNDS; round++) {
        register_round(domain, &shared, round);
        pthread_barrier_wait(&shared.start);
        pthread_barrier_wait(&shared.done);
    }
    for (i = 0; i < THREADS; i++) {
        pthread_join(threads[i], NULL);
        ck_assert_msg(!args[i].failed, "writer %d failed", i);
    }
    pthread_barrier_destroy(&shared.start);
    pthread_barrier_destroy(&shared.done);
    ck_assert_msg(T->SessionEnd(session) == 0, "%s", nvtxw_last_error());
    check_bursts();
}
END_TEST

/* ---- Sessions in parallel -------------------------------------------------- */

typedef struct session_arg {
    int thread;
    int failed;
    char where[256];
} session_arg;

#define TRY(arg, expr)                                                                             \
    do {                                                                                           \
        if ((expr) != NVTXW_RESULT_SUCCESS) {                                                      \
            snprintf((arg)->where, sizeof(arg)->where, "%s: %s", #expr, nvtxw_last_error());       \
            return -1;                                                                             \
        }                                                                                          \
    } while (0)

/* One session's life, every call from this thread: registrations, a stream
 * closed and reopened under a new name, writes, SessionEnd. */
static int one_session(session_arg* arg, const char* sink, int round) {
    nvtxwSessionAttributes_t attr;
    nvtxwSessionHandle_t session;
    nvtxDomainHandle_t domain;
    nvtxwStreamHandle_t stream;
    nvtxwEventHelperSchemaIds_t ids;
    nvtxwEventWriter_t writer;
    nvtxwEventAttributesUtf8_t utf8;
    nvtxStringHandle_t string;
    char config[PATH_MAX + 64];
    int i;
    snprintf(config, sizeof config, "Sink=%s|Output=%s/parallel-%d-%d|Overwrite=yes", sink, dir,
             arg->thread, round);
    nvtxwSessionAttributesInit(&attr);
    attr.configString = config;
    TRY(arg, T->SessionBegin(&attr, &session));
    TRY(arg, nvtxwDomainRegister(T, session, "parallel", &domain));
    TRY(arg, T->StringRegister(domain, "shared text", &string));
    TRY(arg, nvtxwEventSchemasRegister(T, domain, NVTXW_EVENT_HELPER_SCHEMA_ALL, &ids));
    TRY(arg, nvtxwStreamOpen(T, session, "first", domain, "/scope", 0, &stream));
    nvtxwEventWriterInit(&writer, T, stream, &ids);
    memset(&utf8, 0, sizeof utf8);
    utf8.message = "range";
    for (i = 0; i < 2000; i++)
        TRY(arg, nvtxwRangePushPopWriteUtf8(&writer, i, i + 1, utf8));
    TRY(arg, T->StreamClose(stream));
    TRY(arg, nvtxwStreamOpen(T, session, "second", domain, NULL, 0, &stream));
    nvtxwEventWriterInit(&writer, T, stream, &ids);
    for (i = 0; i < 2000; i++)
        TRY(arg, nvtxwRangePushPopWriteUtf8(&writer, i, i + 1, utf8));
    TRY(arg, T->SessionEnd(session));
    return 0;
}

static void* session_main(void* p) {
    static const char* const sinks[] = {"report", "text", "null"};
    session_arg* arg = p;
    int round;
    for (round = 0; round < 3 && !arg->failed; round++)
        arg->failed = one_session(arg, sinks[(arg->thread + round) % 3], round) != 0;
    return NULL;
}

START_TEST(sessions_in_parallel) {
    session_arg args[THREADS];
    pthread_t threads[THREADS];
    int i;
    memset(args, 0, sizeof args);
    for (i = 0; i < THREADS; i++) {
        args[i].thread = i;
        ck_assert_int_eq(pthread_create(&threads[i], NULL, session_main, &args[i]), 0);
    }
    for (i = 0; i < THREADS; i++) {
        pthread_join(threads[i], NULL);
        ck_assert_msg(!args[i].failed, "thread %d: %s", i, args[i].where);
    }
}
END_TEST

/* ---- A session turning faulty on several threads --------------------------- */

typedef struct faulty_arg {
    nvtxwEventWriter_t writer;
    pthread_barrier_t* start;
    nvtxwResultCode_t first, after;
    char first_message[512], after_message[512];
} faulty_arg;

/* Messages of random letters: the report must not compress them away
 * before the file reaches its size limit. */
static void random_message(char* message, uint64_t* seed) {
    size_t i;
    for (i = 0; i < MESSAGE_SIZE; i++) {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        message[i] = (char)('a' + *seed % 26);
    }
    message[MESSAGE_SIZE] = '\0';
}

static void* faulty_main(void* p) {
    faulty_arg* arg = p;
    nvtxwEventAttributesUtf8_t utf8;
    char message[MESSAGE_SIZE + 1];
    uint64_t seed = (uint64_t)(uintptr_t)arg | 1;
    long i;
    memset(&utf8, 0, sizeof utf8);
    utf8.message = message;
    pthread_barrier_wait(arg->start);
    arg->first = NVTXW_RESULT_SUCCESS;
    for (i = 0; i < 100000 && arg->first == NVTXW_RESULT_SUCCESS; i++) {
        random_message(message, &seed);
        arg->first = nvtxwRangePushPopWriteUtf8(&arg->writer, i, i + 1, utf8);
    }
    snprintf(arg->first_message, sizeof arg->first_message, "%s", nvtxw_last_error());
    arg->after = nvtxwRangePushPopWriteUtf8(&arg->writer, i, i + 1, utf8);
    snprintf(arg->after_message, sizeof arg->after_message, "%s", nvtxw_last_error());
    return NULL;
}

static void faulty_fail(const char* what, int thread, const char* detail) {
    fprintf(stderr, "%s (thread %d): %s\n", what, thread, detail);
    exit(1);
}

/* Child: a 256 KiB file size limit, THREADS writers on their own streams. */
static void faulty_child(const char* sink) {
    struct rlimit limit = {1 << 18, 1 << 18};
    nvtxwSessionHandle_t session;
    nvtxDomainHandle_t domain;
    nvtxwEventHelperSchemaIds_t ids;
    pthread_barrier_t start;
    faulty_arg args[THREADS];
    pthread_t threads[THREADS];
    nvtxwResultCode_t rc;
    int i;
    signal(SIGXFSZ, SIG_IGN); /* writes past the limit fail with EFBIG */
    if (setrlimit(RLIMIT_FSIZE, &limit) != 0)
        faulty_fail("setrlimit", -1, strerror(errno));
    session = begin(sink, "faulty");
    if (nvtxwDomainRegister(T, session, "faulty", &domain) != 0 ||
        nvtxwEventSchemasRegister(T, domain, NVTXW_EVENT_HELPER_SCHEMA_ALL, &ids) != 0)
        faulty_fail("registration", -1, nvtxw_last_error());
    pthread_barrier_init(&start, NULL, THREADS);
    memset(args, 0, sizeof args);
    for (i = 0; i < THREADS; i++) {
        nvtxwStreamHandle_t stream;
        char name[16];
        snprintf(name, sizeof name, "w%d", i);
        if (nvtxwStreamOpen(T, session, name, domain, NULL, 0, &stream) != 0)
            faulty_fail("stream open", i, nvtxw_last_error());
        nvtxwEventWriterInit(&args[i].writer, T, stream, &ids);
        args[i].start = &start;
        pthread_create(&threads[i], NULL, faulty_main, &args[i]);
    }
    for (i = 0; i < THREADS; i++) {
        pthread_join(threads[i], NULL);
        if (args[i].first != NVTXW_RESULT_FAILED)
            faulty_fail("no write failed", i, args[i].first_message);
        if (args[i].after != NVTXW_RESULT_FAILED ||
            strstr(args[i].after_message, "session is faulty") == NULL ||
            strstr(args[i].after_message, strerror(EFBIG)) == NULL)
            faulty_fail("write after the fault", i, args[i].after_message);
    }
    pthread_barrier_destroy(&start);
    if ((rc = T->SessionEnd(session)) != NVTXW_RESULT_FAILED)
        faulty_fail("SessionEnd of the faulty session", rc, nvtxw_last_error());
    exit(0);
}

static void faulty_run(const char* sink) {
    int status = 0;
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0)
        faulty_child(sink);
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
}

START_TEST(faulty_on_many_writers_text) { faulty_run("text"); }
END_TEST

START_TEST(faulty_on_many_writers_report) { faulty_run("report"); }
END_TEST

/* ---- Suite ----------------------------------------------------------------- */

static void setup(void) { tu_make_temp_dir_or_fail(dir, sizeof dir, "nvtxw-thread"); }

static void teardown(void) { ck_assert_int_eq(tu_remove_tree(dir), 0); }

int main(void) {
    Suite* suite = suite_create("core_thread");
    TCase* tc = tcase_create("threads");
    T = tu_get_interface();
    if (T == NULL)
        return EXIT_FAILURE;
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, report_registrations_between_bursts);
    tcase_add_test(tc, sessions_in_parallel);
    tcase_add_test(tc, faulty_on_many_writers_text);
    tcase_add_test(tc, faulty_on_many_writers_report);
    suite_add_tcase(suite, tc);
    return tu_run_suite(suite);
}
