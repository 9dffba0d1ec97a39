/*
 * tests/unit/misuse_test.c - API misuse that NVTXW does not allow, refused
 * by the core instead of crashing the host (docs/threading.md); meant to run
 * under ASan and TSan as well:
 *   - handles carry their kind: a domain handle given to SessionEnd, a
 *     session handle given to StreamClose or EventWrite, a stream handle
 *     given to a registration are refused by name, and the session they
 *     belong to goes on working;
 *   - attribute structs whose structSize no struct has (SIZE_MAX, 2^40) are
 *     refused; a larger size a newer producer could send is accepted;
 *   - names that are not UTF-8 (domain, category, schema, entry, counter,
 *     stream) are repaired at registration, one U+FFFD per bad byte, the
 *     same in every sink (the SQLite output was lost);
 *   - two threads on one stream (the report sink's encoder double-freed its
 *     buffer): every call either writes or is refused as "in use by another
 *     thread", and the report holds exactly the events that were accepted;
 *   - StreamClose while another thread writes to that stream: refused while
 *     a write is in progress, then the stream closes and later writes find
 *     a stale handle;
 *   - SessionEnd while other threads write: it waits for the writes in
 *     progress, later writes are refused (the session is ending, then the
 *     handle is stale), and the report holds exactly the accepted events;
 *   - a stale stream handle whose slot another stream now has is refused
 *     and never disturbs the new stream;
 *   - a stream handle guessed while StreamOpen makes it is refused until
 *     the stream is ready, never entered half made.
 */
#define _GNU_SOURCE
#include <check.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvtxw/backend.h"
#include "nvtxw/error.h"
#include "nvtxw/helpers.h"
#include "nvtxw/reader.h"
#include "test_util.h"

#define WRITERS 4
#define WRITES 20000
/* Writers go on past WRITES until some call was refused, up to this many:
 * on a machine whose other core is busy (make -j2 check) the threads can
 * run one after another for a long time before two are inside at once. */
#define MAX_WRITES 4000000

static const nvtxwInterface_t* T;
static char dir[PATH_MAX];

static nvtxwSessionHandle_t begin(const char* sink, const char* name) {
    return tu_sink_session_or_fail(T, sink, dir, name);
}

/* Events in a report, and whether it read without damage. */
static long report_events(const char* name) {
    nvtxw_reader_options_t options;
    nvtxw_reader_t* reader = NULL;
    const nvtxw_record_t* r;
    char path[PATH_MAX + 32];
    long events = 0;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    memset(&options, 0, sizeof options);
    options.struct_size = sizeof options;
    ck_assert_msg(nvtxw_reader_open(path, &options, &reader) == 0, "%s", nvtxw_last_error());
    while (nvtxw_reader_next(reader, &r) == 0 && r != NULL)
        events += r->kind == NVTXW_RECORD_EVENT;
    ck_assert_int_eq(nvtxw_reader_damage_count(reader), 0);
    nvtxw_reader_close(reader);
    return events;
}

static void assert_refused(nvtxwResultCode_t result, const char* expected) {
    ck_assert_int_eq(result, NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_msg(strstr(nvtxw_last_error(), expected) != NULL, "message \"%s\" lacks \"%s\"",
                  nvtxw_last_error(), expected);
}

/* ---- Handles carry their kind ---------------------------------------------- */

START_TEST(handle_of_another_kind_refused) {
    nvtxwSessionHandle_t session = begin("report", "kinds.nvtxw");
    nvtxwEventHelperSchemaIds_t ids;
    nvtxwEventWriter_t writer;
    nvtxwEventAttributesUtf8_t utf8;
    nvtxDomainHandle_t domain;
    nvtxwStreamHandle_t stream;
    nvtxStringHandle_t string;
    ck_assert_int_eq(nvtxwDomainRegister(T, session, "kinds", &domain), 0);
    ck_assert_int_eq(nvtxwEventSchemasRegister(T, domain, NVTXW_EVENT_HELPER_SCHEMA_ALL, &ids), 0);
    ck_assert_int_eq(nvtxwStreamOpen(T, session, "main", domain, NULL, 0, &stream), 0);
    /* The first handle of each table has the same slot and generation: only
     * the kind tells them apart. */
    assert_refused(T->SessionEnd((nvtxwSessionHandle_t)domain),
                   "is a domain handle, not a session handle");
    assert_refused(T->SessionEnd((nvtxwSessionHandle_t)stream),
                   "is a stream handle, not a session handle");
    assert_refused(T->StreamClose((nvtxwStreamHandle_t)session),
                   "is a session handle, not a stream handle");
    assert_refused(T->StreamClose((nvtxwStreamHandle_t)domain),
                   "is a domain handle, not a stream handle");
    assert_refused(T->StringRegister((nvtxDomainHandle_t)stream, "x", &string),
                   "is a stream handle, not a domain handle");
    assert_refused(T->StringRegister((nvtxDomainHandle_t)session, "x", &string),
                   "is a session handle, not a domain handle");
    memset(&utf8, 0, sizeof utf8);
    utf8.message = "after the misuse";
    nvtxwEventWriterInit(&writer, T, (nvtxwStreamHandle_t)session, &ids);
    assert_refused(nvtxwMarkWriteUtf8(&writer, 1, utf8), "is a session handle, not a stream");
    /* Nothing was ended, closed or registered by mistake. */
    nvtxwEventWriterInit(&writer, T, stream, &ids);
    ck_assert_msg(nvtxwMarkWriteUtf8(&writer, 2, utf8) == 0, "%s", nvtxw_last_error());
    ck_assert_int_eq(T->StreamClose(stream), 0);
    ck_assert_msg(T->SessionEnd(session) == 0, "%s", nvtxw_last_error());
    ck_assert_int_eq(report_events("kinds.nvtxw"), 1);
    assert_refused(T->SessionEnd(session), "is not an open session");
}
END_TEST

/* A stale handle whose slot now belongs to another stream is refused, and
 * never disturbs the new owner (it fails the slot's swap, writing nothing). */
START_TEST(stale_handle_after_slot_reuse) {
    nvtxwSessionHandle_t session = begin("report", "reuse.nvtxw");
    nvtxwEventHelperSchemaIds_t ids;
    nvtxwEventWriter_t old_writer, new_writer;
    nvtxwEventAttributesUtf8_t utf8;
    nvtxDomainHandle_t domain;
    nvtxwStreamHandle_t old_stream, new_stream;
    int i;
    ck_assert_int_eq(nvtxwDomainRegister(T, session, "reuse", &domain), 0);
    ck_assert_int_eq(nvtxwEventSchemasRegister(T, domain, NVTXW_EVENT_HELPER_SCHEMA_ALL, &ids), 0);
    ck_assert_int_eq(nvtxwStreamOpen(T, session, "old", domain, NULL, 0, &old_stream), 0);
    ck_assert_int_eq(T->StreamClose(old_stream), 0);
    ck_assert_int_eq(nvtxwStreamOpen(T, session, "new", domain, NULL, 0, &new_stream), 0);
    /* Same slot, next generation. */
    ck_assert_uint_eq((uint64_t)(uintptr_t)new_stream & 0xffffffffu,
                      (uint64_t)(uintptr_t)old_stream & 0xffffffffu);
    ck_assert_uint_eq((uint64_t)(uintptr_t)new_stream >> 32,
                      ((uint64_t)(uintptr_t)old_stream >> 32) + 1);
    nvtxwEventWriterInit(&old_writer, T, old_stream, &ids);
    nvtxwEventWriterInit(&new_writer, T, new_stream, &ids);
    memset(&utf8, 0, sizeof utf8);
    utf8.message = "reuse";
    for (i = 0; i < 100; i++) {
        assert_refused(nvtxwMarkWriteUtf8(&old_writer, i, utf8), "is not an open stream");
        assert_refused(T->StreamClose(old_stream), "is not an open stream");
        ck_assert_msg(nvtxwMarkWriteUtf8(&new_writer, i, utf8) == 0, "%s", nvtxw_last_error());
    }
    ck_assert_msg(T->SessionEnd(session) == 0, "%s", nvtxw_last_error());
    ck_assert_int_eq(report_events("reuse.nvtxw"), 100);
}
END_TEST

/* ---- Attribute sizes -------------------------------------------------------- */

/* A structSize no attribute struct has (an uninitialised struct) is
 * refused; a larger size that a newer producer could send is accepted. */
START_TEST(implausible_struct_size_refused) {
    nvtxwSessionAttributes_t session_attr;
    nvtxwStreamAttributes_t stream_attr;
    nvtxScopeAttr_t scope_attr;
    nvtxCounterAttr_t counter_attr;
    nvtxwSessionHandle_t session = NULL;
    nvtxwStreamHandle_t stream = NULL;
    nvtxDomainHandle_t domain;
    uint64_t id;
    char config[PATH_MAX + 64];
    snprintf(config, sizeof config, "Sink=null|Output=%s/sizes", dir);
    nvtxwSessionAttributesInit(&session_attr);
    session_attr.configString = config;
    session_attr.structSize = SIZE_MAX;
    assert_refused(T->SessionBegin(&session_attr, &session), "expected 24 to 4096");
    ck_assert_ptr_null(session);
    session_attr.structSize = 4097;
    assert_refused(T->SessionBegin(&session_attr, &session), "attr->structSize=4097");
    session_attr.structSize = 4096; /* a newer, larger struct: the prefix is read */
    ck_assert_msg(T->SessionBegin(&session_attr, &session) == 0, "%s", nvtxw_last_error());
    ck_assert_int_eq(nvtxwDomainRegister(T, session, "sizes", &domain), 0);

    nvtxwStreamAttributesInit(&stream_attr);
    stream_attr.name = "s";
    stream_attr.domain = domain;
    stream_attr.structSize = (size_t)1 << 40;
    assert_refused(T->StreamOpen(session, &stream_attr, &stream),
                   "attr->structSize is larger than any attribute struct");
    ck_assert_ptr_null(stream);

    memset(&scope_attr, 0, sizeof scope_attr);
    scope_attr.structSize = SIZE_MAX;
    scope_attr.path = "host";
    assert_refused(T->ScopeRegister(domain, &scope_attr, &id),
                   "cannot register scope: attr->structSize is larger");
    memset(&counter_attr, 0, sizeof counter_attr);
    counter_attr.structSize = SIZE_MAX / 2;
    counter_attr.schemaId = NVTX_PAYLOAD_ENTRY_TYPE_INT64;
    counter_attr.name = "c";
    assert_refused(T->CounterRegister(domain, &counter_attr, &id),
                   "cannot register counter: attr->structSize is larger");
    ck_assert_msg(T->SessionEnd(session) == 0, "%s", nvtxw_last_error());
}
END_TEST

/* ---- Names that are not UTF-8 ------------------------------------------------ */

#define FFFD "\xEF\xBF\xBD"

/* Registers names with bytes that are not UTF-8 in every kind of name. */
static void register_bad_names(nvtxwSessionHandle_t session) {
    nvtxPayloadSchemaEntry_t entry;
    nvtxPayloadSchemaAttr_t schema;
    nvtxCounterAttr_t counter;
    nvtxDomainHandle_t domain, same;
    nvtxwStreamHandle_t stream, again;
    uint64_t id;
    ck_assert_int_eq(nvtxwDomainRegister(T, session, "dom\xff", &domain), 0);
    ck_assert_int_eq(T->CategoryRegister(domain, 7, "cat\xfe\xfe"), 0);
    memset(&entry, 0, sizeof entry);
    entry.type = NVTX_PAYLOAD_ENTRY_TYPE_INT64;
    entry.name = "entry\xc3"; /* a truncated sequence */
    memset(&schema, 0, sizeof schema);
    schema.fieldMask = NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NAME | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE |
                       NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES |
                       NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES;
    schema.name = "schema\xed\xa0\x80"; /* a surrogate */
    schema.type = NVTX_PAYLOAD_SCHEMA_TYPE_STATIC;
    schema.entries = &entry;
    schema.numEntries = 1;
    ck_assert_msg(T->SchemaRegister(domain, &schema, &id) == 0, "%s", nvtxw_last_error());
    memset(&counter, 0, sizeof counter);
    counter.structSize = sizeof counter;
    counter.schemaId = NVTX_PAYLOAD_ENTRY_TYPE_INT64;
    counter.name = "counter\x80";
    counter.scopeId = NVTX_SCOPE_NONE;
    ck_assert_msg(T->CounterRegister(domain, &counter, &id) == 0, "%s", nvtxw_last_error());
    ck_assert_int_eq(nvtxwStreamOpen(T, session, "stream\xff", domain, NULL, 0, &stream), 0);
    /* Another invalid byte at the same place repairs to the same name. */
    assert_refused(nvtxwStreamOpen(T, session, "stream\xfe", domain, NULL, 0, &again),
                   "a stream of that name exists");
    /* The repaired domain name finds the domain again. */
    ck_assert_int_eq(nvtxwDomainRegister(T, session, "dom\xfe", &same), 0);
    ck_assert_ptr_eq(same, domain);
}

START_TEST(names_not_utf8_repaired) {
    char path[PATH_MAX + 32];
    char* text;
    nvtxwSessionHandle_t session = begin("text", "names.txt");
    register_bad_names(session);
    ck_assert_msg(T->SessionEnd(session) == 0, "%s", nvtxw_last_error());
    snprintf(path, sizeof path, "%s/names.txt", dir);
    text = tu_read_file_or_fail(path, NULL);
    ck_assert_ptr_nonnull(strstr(text, "dom" FFFD "\""));
    ck_assert_ptr_nonnull(strstr(text, "cat" FFFD FFFD "\""));
    ck_assert_ptr_nonnull(strstr(text, "schema" FFFD FFFD FFFD));
    ck_assert_ptr_nonnull(strstr(text, "counter" FFFD));
    ck_assert_ptr_nonnull(strstr(text, "stream" FFFD "\""));
    ck_assert_ptr_null(strstr(text, "\xff"));
    free(text);
    /* SQLite stores the schemas as YAML (entry names included: the text
     * dump has none), which libyaml refuses for text that is not UTF-8: the
     * whole output was lost at SessionEnd. */
    session = begin("sqlite", "names.sqlite");
    register_bad_names(session);
    ck_assert_msg(T->SessionEnd(session) == 0, "%s", nvtxw_last_error());
}
END_TEST

/* ---- Two threads on one stream ----------------------------------------------- */

typedef struct shared_writer {
    nvtxwEventWriter_t writer;
    pthread_barrier_t* start;
    atomic_int* any_refused;
    long accepted, refused, other;
    char other_message[256];
} shared_writer;

static void count_result(shared_writer* w, nvtxwResultCode_t result, const char* refusal) {
    if (result == NVTXW_RESULT_SUCCESS) {
        w->accepted++;
    } else if (result == NVTXW_RESULT_INVALID_ARGUMENT &&
               strstr(nvtxw_last_error(), refusal) != NULL) {
        w->refused++;
    } else if (w->other++ == 0) {
        snprintf(w->other_message, sizeof w->other_message, "result %d: %s", (int)result,
                 nvtxw_last_error());
    }
}

static void* same_stream_main(void* p) {
    shared_writer* w = p;
    nvtxwEventAttributesUtf8_t utf8;
    char message[600];
    int i;
    memset(message, 'm', sizeof message - 1);
    message[sizeof message - 1] = '\0';
    memset(&utf8, 0, sizeof utf8);
    utf8.message = message; /* long messages: the encoder's buffer grows */
    pthread_barrier_wait(w->start);
    for (i = 0; i < WRITES || (i < MAX_WRITES && !atomic_load(w->any_refused)); i++) {
        count_result(w, nvtxwRangePushPopWriteUtf8(&w->writer, i, i + 1, utf8),
                     "in use by another thread");
        if (w->refused == 1)
            atomic_store(w->any_refused, 1);
    }
    return NULL;
}

static void same_stream_run(const char* sink, const char* name) {
    nvtxwSessionHandle_t session = begin(sink, name);
    nvtxwEventHelperSchemaIds_t ids;
    nvtxDomainHandle_t domain;
    nvtxwStreamHandle_t stream;
    pthread_barrier_t start;
    shared_writer writers[WRITERS];
    pthread_t threads[WRITERS];
    long accepted = 0, refused = 0;
    atomic_int any_refused = 0;
    int i;
    ck_assert_int_eq(nvtxwDomainRegister(T, session, "shared", &domain), 0);
    ck_assert_int_eq(nvtxwEventSchemasRegister(T, domain, NVTXW_EVENT_HELPER_SCHEMA_ALL, &ids), 0);
    ck_assert_int_eq(nvtxwStreamOpen(T, session, "one", domain, NULL, 0, &stream), 0);
    pthread_barrier_init(&start, NULL, WRITERS);
    memset(writers, 0, sizeof writers);
    for (i = 0; i < WRITERS; i++) {
        nvtxwEventWriterInit(&writers[i].writer, T, stream, &ids);
        writers[i].start = &start;
        writers[i].any_refused = &any_refused;
        ck_assert_int_eq(pthread_create(&threads[i], NULL, same_stream_main, &writers[i]), 0);
    }
    for (i = 0; i < WRITERS; i++) {
        pthread_join(threads[i], NULL);
        ck_assert_msg(writers[i].other == 0, "writer %d: %ld unexpected results, first: %s", i,
                      writers[i].other, writers[i].other_message);
        accepted += writers[i].accepted;
        refused += writers[i].refused;
    }
    pthread_barrier_destroy(&start);
    ck_assert_int_ge(accepted + refused, (long)WRITERS * WRITES);
    ck_assert_int_gt(accepted, 0);
    /* Four threads on two cores collide long before MAX_WRITES each: a run
     * with no refusal means the guard let two writers in at once. */
    ck_assert_int_gt(refused, 0);
    ck_assert_msg(T->SessionEnd(session) == 0, "%s", nvtxw_last_error());
    if (strcmp(sink, "report") == 0)
        ck_assert_int_eq(report_events(name), accepted);
}

START_TEST(two_threads_one_stream_report) { same_stream_run("report", "shared.nvtxw"); }
END_TEST

START_TEST(two_threads_one_stream_json) { same_stream_run("json", "shared.json"); }
END_TEST

START_TEST(two_threads_one_stream_perfetto) { same_stream_run("perfetto", "shared.pftrace"); }
END_TEST

/* ---- StreamClose and SessionEnd racing writes ------------------------------ */

typedef struct racing_writer {
    nvtxwEventWriter_t writer;
    atomic_int* started;
    long accepted;
    int stopped_stale; /* the last write found a closed stream */
    char last_error[256];
} racing_writer;

/* Writes until the stream is gone (a write refused while the closer is
 * inside is tried again); counts what was accepted. */
static void* racing_main(void* p) {
    racing_writer* w = p;
    nvtxwEventAttributesUtf8_t utf8;
    int64_t t;
    memset(&utf8, 0, sizeof utf8);
    utf8.message = "racing";
    atomic_fetch_add(w->started, 1);
    for (t = 0;; t++) {
        nvtxwResultCode_t result = nvtxwRangePushPopWriteUtf8(&w->writer, t, t + 1, utf8);
        if (result == NVTXW_RESULT_SUCCESS) {
            w->accepted++;
            continue;
        }
        snprintf(w->last_error, sizeof w->last_error, "%s", nvtxw_last_error());
        /* The closer is inside the stream for a moment: try again. */
        if (result == NVTXW_RESULT_INVALID_ARGUMENT &&
            strstr(w->last_error, "in use by another thread") != NULL)
            continue;
        w->stopped_stale = result == NVTXW_RESULT_INVALID_ARGUMENT &&
                           (strstr(w->last_error, "is not an open stream") != NULL ||
                            strstr(w->last_error, "its session is ending") != NULL);
        return NULL;
    }
}

static void wait_started(atomic_int* started, int count) {
    while (atomic_load(started) < count)
        sched_yield();
}

START_TEST(stream_close_while_writing) {
    nvtxwSessionHandle_t session = begin("report", "close.nvtxw");
    nvtxwEventHelperSchemaIds_t ids;
    nvtxDomainHandle_t domain;
    nvtxwStreamHandle_t stream;
    racing_writer w;
    atomic_int started = 0;
    pthread_t thread;
    nvtxwResultCode_t result;
    long refusals = 0;
    ck_assert_int_eq(nvtxwDomainRegister(T, session, "close", &domain), 0);
    ck_assert_int_eq(nvtxwEventSchemasRegister(T, domain, NVTXW_EVENT_HELPER_SCHEMA_ALL, &ids), 0);
    ck_assert_int_eq(nvtxwStreamOpen(T, session, "closing", domain, NULL, 0, &stream), 0);
    memset(&w, 0, sizeof w);
    nvtxwEventWriterInit(&w.writer, T, stream, &ids);
    w.started = &started;
    ck_assert_int_eq(pthread_create(&thread, NULL, racing_main, &w), 0);
    wait_started(&started, 1);
    while ((result = T->StreamClose(stream)) != NVTXW_RESULT_SUCCESS) {
        assert_refused(result, "in use by another thread");
        refusals++;
    }
    pthread_join(thread, NULL);
    ck_assert_msg(w.stopped_stale, "the writer stopped on: %s", w.last_error);
    assert_refused(T->StreamClose(stream), "is not an open stream");
    ck_assert_msg(T->SessionEnd(session) == 0, "%s", nvtxw_last_error());
    ck_assert_int_eq(report_events("close.nvtxw"), w.accepted);
    (void)refusals; /* how often the close met a write depends on scheduling */
}
END_TEST

START_TEST(session_end_while_writing) {
    nvtxwSessionHandle_t session = begin("report", "end.nvtxw");
    nvtxwEventHelperSchemaIds_t ids;
    nvtxDomainHandle_t domain;
    racing_writer w[WRITERS];
    pthread_t threads[WRITERS];
    atomic_int started = 0;
    long accepted = 0;
    int i;
    ck_assert_int_eq(nvtxwDomainRegister(T, session, "end", &domain), 0);
    ck_assert_int_eq(nvtxwEventSchemasRegister(T, domain, NVTXW_EVENT_HELPER_SCHEMA_ALL, &ids), 0);
    memset(w, 0, sizeof w);
    for (i = 0; i < WRITERS; i++) {
        nvtxwStreamHandle_t stream;
        char name[16];
        snprintf(name, sizeof name, "w%d", i);
        ck_assert_int_eq(nvtxwStreamOpen(T, session, name, domain, NULL, 0, &stream), 0);
        nvtxwEventWriterInit(&w[i].writer, T, stream, &ids);
        w[i].started = &started;
        ck_assert_int_eq(pthread_create(&threads[i], NULL, racing_main, &w[i]), 0);
    }
    wait_started(&started, WRITERS);
    ck_assert_msg(T->SessionEnd(session) == 0, "%s", nvtxw_last_error());
    for (i = 0; i < WRITERS; i++) {
        pthread_join(threads[i], NULL);
        ck_assert_msg(w[i].stopped_stale, "writer %d stopped on: %s", i, w[i].last_error);
        accepted += w[i].accepted;
    }
    ck_assert_int_eq(report_events("end.nvtxw"), accepted);
}
END_TEST

/* ---- Handles guessed before they are handed out ------------------------------ */

#define GUESS_ROUNDS 20000

typedef struct guessing_writer {
    const nvtxwEventHelperSchemaIds_t* ids;
    _Atomic uint64_t guess; /* the handle the next StreamOpen will return; 0 = stop */
    long accepted;
    char unexpected[256]; /* a refusal other than the two a guess may get */
} guessing_writer;

/* Writes marks with the guessed handle of the stream about to be opened. */
static void* guessing_main(void* p) {
    guessing_writer* g = p;
    nvtxwEventAttributesUtf8_t utf8;
    uint64_t guess;
    int64_t t = 0;
    memset(&utf8, 0, sizeof utf8);
    utf8.message = "guessed";
    while ((guess = atomic_load(&g->guess)) != 0) {
        nvtxwEventWriter_t writer;
        nvtxwResultCode_t result;
        nvtxwEventWriterInit(&writer, T, (nvtxwStreamHandle_t)(uintptr_t)guess, g->ids);
        result = nvtxwMarkWriteUtf8(&writer, t++, utf8);
        if (result == NVTXW_RESULT_SUCCESS)
            g->accepted++;
        else if (g->unexpected[0] == '\0' &&
                 (result != NVTXW_RESULT_INVALID_ARGUMENT ||
                  (strstr(nvtxw_last_error(), "is not an open stream") == NULL &&
                   strstr(nvtxw_last_error(), "in use by another thread") == NULL)))
            snprintf(g->unexpected, sizeof g->unexpected, "%d: %s", (int)result,
                     nvtxw_last_error());
    }
    return NULL;
}

/* Stream handles are predictable (a closed stream's slot comes back with
 * the next generation), so another thread may use one while StreamOpen is
 * still making it. A write that enters the stream before StreamOpen has set
 * it up left through a slot not yet recorded (a NULL dereference): now the
 * new handle is entered by StreamOpen itself until it is ready, and a guess
 * is refused until then. Every write either lands in the stream the guess
 * names or is refused as stale or busy. */
START_TEST(handle_guessed_while_stream_opens) {
    nvtxwSessionHandle_t session = begin("report", "guess.nvtxw");
    nvtxwEventHelperSchemaIds_t ids;
    nvtxDomainHandle_t domain;
    nvtxwStreamHandle_t stream;
    guessing_writer g;
    pthread_t thread;
    nvtxwResultCode_t result;
    ck_assert_int_eq(nvtxwDomainRegister(T, session, "guess", &domain), 0);
    ck_assert_int_eq(nvtxwEventSchemasRegister(T, domain, NVTXW_EVENT_HELPER_SCHEMA_ALL, &ids), 0);
    ck_assert_int_eq(nvtxwStreamOpen(T, session, "s", domain, NULL, 0, &stream), 0);
    memset(&g, 0, sizeof g);
    g.ids = &ids;
    atomic_store(&g.guess, (uint64_t)(uintptr_t)stream + (UINT64_C(1) << 32));
    ck_assert_int_eq(pthread_create(&thread, NULL, guessing_main, &g), 0);
    for (int round = 0; round < GUESS_ROUNDS; round++) {
        char name[32];
        snprintf(name, sizeof name, "s%d", round); /* names are unique in a session */
        while ((result = T->StreamClose(stream)) != NVTXW_RESULT_SUCCESS)
            assert_refused(result, "in use by another thread");
        ck_assert_msg(nvtxwStreamOpen(T, session, name, domain, NULL, 0, &stream) == 0, "%s",
                      nvtxw_last_error());
        ck_assert_uint_eq((uint64_t)(uintptr_t)stream, atomic_load(&g.guess));
        atomic_store(&g.guess, (uint64_t)(uintptr_t)stream + (UINT64_C(1) << 32));
    }
    atomic_store(&g.guess, 0);
    pthread_join(thread, NULL);
    ck_assert_msg(g.unexpected[0] == '\0', "a guessed write was refused with %s", g.unexpected);
    ck_assert_msg(T->SessionEnd(session) == 0, "%s", nvtxw_last_error());
    ck_assert_int_eq(report_events("guess.nvtxw"), g.accepted);
}
END_TEST

/* ---- Suite ----------------------------------------------------------------- */

static void setup(void) { tu_make_temp_dir_or_fail(dir, sizeof dir, "nvtxw-misuse"); }

static void teardown(void) { ck_assert_int_eq(tu_remove_tree(dir), 0); }

int main(void) {
    Suite* suite = suite_create("misuse");
    TCase* tc = tcase_create("misuse");
    T = tu_get_interface();
    if (T == NULL)
        return EXIT_FAILURE;
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, handle_of_another_kind_refused);
    tcase_add_test(tc, stale_handle_after_slot_reuse);
    tcase_add_test(tc, implausible_struct_size_refused);
    tcase_add_test(tc, names_not_utf8_repaired);
    tcase_add_test(tc, two_threads_one_stream_report);
    tcase_add_test(tc, two_threads_one_stream_json);
    tcase_add_test(tc, two_threads_one_stream_perfetto);
    tcase_add_test(tc, stream_close_while_writing);
    tcase_add_test(tc, session_end_while_writing);
    tcase_add_test(tc, handle_guessed_while_stream_opens);
    suite_add_tcase(suite, tc);
    return tu_run_suite(suite);
}
