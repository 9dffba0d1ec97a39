/*
 * tests/unit/forward_test.c - Sink=backend: a session through our table is
 * forwarded call for call into another NVTXW v2 backend.
 *
 * Targets: the recording mock (tests/backend/libmockbackend: exact calls,
 * translated IDs, rewritten string handles and scope IDs), our own library
 * (libnvtxw3.so with Sink=text: the same text as a direct Sink=text run),
 * an incomplete table (libmockincomplete), a library without the entry
 * symbol (libnosymbol), one refusing version 2 (libmocknofinalize) and a
 * missing file. The test keeps its own dlopen reference to the mock, so the
 * sink's nvtxwUnload leaves the module (and its log) in place.
 */
#define _XOPEN_SOURCE 700
#include <check.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "loader_test_util.h"
#include "nvtxw/helpers.h"
#include "nvtxw/nvtxw.h"
#include "test_util.h"

#define DYN NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START
#define STATIC_SCOPE (NVTX_SCOPE_ID_STATIC_START + 5)
#define STATIC_SCHEMA (NVTX_PAYLOAD_SCHEMA_ID_STATIC_START + 9)
#define CLOCK_RAW NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_MONOTONIC_RAW

static const nvtxwInterface_t* table(void) {
    const void* iface = NULL;
    ck_assert_int_eq(nvtxwGetInterface(NVTXW_INTERFACE_VERSION, &iface), NVTXW_RESULT_SUCCESS);
    return iface;
}

static nvtxwResultCode_t begin(const char* config, nvtxwSessionHandle_t* session) {
    nvtxwSessionAttributes_t attr;
    nvtxwSessionAttributesInit(&attr);
    attr.name = "fwd";
    attr.configString = config;
    *session = NULL;
    return table()->SessionBegin(&attr, session);
}

/* "Backend=<path of test backend `name`>" plus `extra`. */
static const char* backend_config(const char* name, const char* extra) {
    static char config[2 * PATH_MAX];
    snprintf(config, sizeof config, "Backend=%s%s", backend_path(name), extra);
    return config;
}

/* The mock, loaded by the test itself and reset. */
static void* mock_open(void) {
    void* module = dlopen(backend_path("libmockbackend"), RTLD_NOW);
    void (*reset)(void);
    void* address;
    ck_assert_ptr_nonnull(module);
    address = must_dlsym(module, "mock_backend_reset");
    memcpy(&reset, &address, sizeof reset);
    reset();
    return module;
}

/* ---- The scenario every forwarding test runs ------------------------------ */

typedef struct ids {
    nvtxDomainHandle_t domain;
    nvtxStringHandle_t hello;
    uint64_t scope, inner, outer, fixed, colors, counter, clock;
    nvtxwStreamHandle_t stream;
} ids;

/* inner = {label: registered string, where: scope ID}; outer = {ts, obj:
 * inner, msg: registered string}, both static layouts with dynamic IDs. */
static void register_schemas(const nvtxwInterface_t* t, ids* r) {
    nvtxPayloadSchemaEntry_t inner[2] = {
        {0, NVTX_PAYLOAD_ENTRY_TYPE_NVTX_REGISTERED_STRING_HANDLE, "label", NULL, 0, 0, NULL, NULL},
        {0, NVTX_PAYLOAD_ENTRY_TYPE_SCOPE_ID, "where", NULL, 0, 8, NULL, NULL}};
    nvtxPayloadSchemaEntry_t outer[3] = {
        {NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP | NVTX_PAYLOAD_ENTRY_FLAG_MARK,
         NVTX_PAYLOAD_ENTRY_TYPE_INT64, "ts", NULL, 0, 0, NULL, NULL},
        {0, 0, "obj", NULL, 0, 8, NULL, NULL},
        {NVTX_PAYLOAD_ENTRY_FLAG_EVENT_MESSAGE,
         NVTX_PAYLOAD_ENTRY_TYPE_NVTX_REGISTERED_STRING_HANDLE, "msg", NULL, 0, 24, NULL, NULL}};
    nvtxPayloadSchemaEntry_t fixed[1] = {
        {0, NVTX_PAYLOAD_ENTRY_TYPE_INT64, "v", NULL, 0, 0, NULL, NULL}};
    nvtxPayloadEnum_t values[2] = {{"red", 1, 0}, {"blue", 2, 0}};
    nvtxPayloadEnumAttr_t e = {0x1E, "colors", values, 2, 4, 0, NULL};
    nvtxPayloadSchemaAttr_t a = {0x74, "inner", NVTX_PAYLOAD_SCHEMA_TYPE_STATIC, 0, inner, 2, 16, 0,
                                 0,    NULL};
    ck_assert_int_eq(t->SchemaRegister(r->domain, &a, &r->inner), 0);
    outer[1].type = r->inner;
    a.name = "outer", a.entries = outer, a.numEntries = 3, a.payloadStaticSize = 32;
    ck_assert_int_eq(t->SchemaRegister(r->domain, &a, &r->outer), 0);
    a.fieldMask |= NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_SCHEMA_ID;
    a.name = "fixed", a.entries = fixed, a.numEntries = 1, a.payloadStaticSize = 8;
    a.schemaId = STATIC_SCHEMA;
    ck_assert_int_eq(t->SchemaRegister(r->domain, &a, NULL), 0);
    ck_assert_int_eq(t->EnumRegister(r->domain, &e, &r->colors), 0);
}

static void register_all(const nvtxwInterface_t* t, nvtxwSessionHandle_t session, ids* r) {
    nvtxScopeAttr_t scope = {sizeof scope, "thread", 0, STATIC_SCOPE};
    nvtxTimeDomainAttr_t clock = {0, NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_MONOTONIC, 0, 0, 0, 0};
    nvtxCounterAttr_t counter = {
        sizeof counter, NVTX_PAYLOAD_ENTRY_TYPE_INT64, "ctr", NULL, 0, NULL, 0};
    ck_assert_int_eq(nvtxwDomainRegister(t, session, "dom", &r->domain), 0);
    ck_assert_int_eq(nvtxwCategoryRegister(t, r->domain, 7, "cat7"), 0);
    ck_assert_int_eq(t->StringRegister(r->domain, "hello", &r->hello), 0);
    ck_assert_int_eq(nvtxwScopeRegister(t, r->domain, "node/proc", &r->scope), 0);
    scope.parentScope = r->scope;
    ck_assert_int_eq(t->ScopeRegister(r->domain, &scope, NULL), 0);
    register_schemas(t, r);
    counter.scopeId = r->scope;
    ck_assert_int_eq(t->CounterRegister(r->domain, &counter, &r->counter), 0);
    clock.scopeId = r->scope;
    ck_assert_int_eq(t->TimeDomainRegister(r->domain, &clock, &r->clock), 0);
    ck_assert_int_eq(nvtxwStreamOpen(t, session, "s0", r->domain, NULL, r->clock, &r->stream), 0);
}

typedef struct outer_payload {
    int64_t ts;
    uint64_t label, where, msg;
} outer_payload;

/* libnvtxw's StreamFlush: forwarded to a target that has it, else
 * nothing to do (the mock has no extension table). */
static void flush_stream(nvtxwStreamHandle_t stream) {
    const nvtxwExtensionInterface_t* ext = NULL;
    ck_assert_int_eq(nvtxwGetInterface(NVTXW_EXTENSION_INTERFACE_VERSION, (const void**)&ext), 0);
    ck_assert_msg(ext->StreamFlush(stream) == 0, "%s", nvtxw_last_error());
}

static void write_all(const nvtxwInterface_t* t, const ids* r) {
    outer_payload o = {100, (uint64_t)(uintptr_t)r->hello, r->scope, (uint64_t)(uintptr_t)r->hello};
    outer_payload two[2] = {o, o};
    nvtxPayloadData_t p[2] = {{r->outer, sizeof o, &o},
                              {NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF8, 3, "abc"}};
    nvtxEventBatch_t batch = {r->outer, sizeof two, two, STATIC_SCOPE, 0, NULL, 0, 0};
    int64_t value = 42;
    two[1].ts = 150;
    ck_assert_int_eq(t->EventWrite(r->stream, p, 2), 0);
    ck_assert_int_eq(t->EventBatchWrite(r->stream, &batch), 0);
    ck_assert_int_eq(t->CounterWrite(r->stream, 200, r->counter, &value, sizeof value), 0);
    ck_assert_int_eq(t->CounterNoValueWrite(r->stream, 210, r->counter, 2), 0);
    ck_assert_int_eq(t->TimeSyncPointWrite(r->stream, r->clock, CLOCK_RAW, 5, 6), 0);
    ck_assert_int_eq(t->TimestampConversionFactorWrite(r->stream, r->clock, CLOCK_RAW, 1.5, 7, 8),
                     0);
    flush_stream(r->stream);
    ck_assert_int_eq(t->StreamClose(r->stream), 0);
}

/* ---- Into the recording mock ----------------------------------------------- */

static const char* const expected_calls[] = {"SessionBegin",
                                             "DomainRegister",
                                             "CategoryRegister",
                                             "StringRegister",
                                             "ScopeRegister",
                                             "ScopeRegister",
                                             "SchemaRegister",
                                             "SchemaRegister",
                                             "SchemaRegister",
                                             "EnumRegister",
                                             "CounterRegister",
                                             "TimeDomainRegister",
                                             "StreamOpen",
                                             "EventWrite",
                                             "EventBatchWrite",
                                             "EventBatchWrite",
                                             "CounterWrite",
                                             "CounterNoValueWrite",
                                             "TimeSyncPointTableWrite",
                                             "TimestampConversionFactorWrite",
                                             "StreamClose",
                                             "ScopeRegister", /* released: kept there */
                                             "SessionEnd"};
#define EXPECTED_COUNT (sizeof expected_calls / sizeof expected_calls[0])

static uint64_t u64_at(const mock_payload_t* p, size_t offset) {
    uint64_t value;
    memcpy(&value, p->bytes + offset, 8);
    return value;
}

/* The mock hands out IDs DYN, DYN+1, ... across kinds, in call order. */
static void check_registrations(const mock_log_t* log) {
    const mock_call_t* c = log->calls;
    ck_assert_str_eq(c[0].text, "fwd");
    ck_assert_str_eq(c[1].text, "dom");
    ck_assert_uint_eq(c[2].u64[0], 7);
    ck_assert_str_eq(c[3].text, "hello");
    ck_assert_uint_eq(c[4].scopeAttr.scopeId, NVTX_SCOPE_NONE);
    ck_assert_uint_eq(c[4].assignedId, DYN + 0);
    ck_assert_uint_eq(c[5].scopeAttr.scopeId, STATIC_SCOPE); /* static kept */
    ck_assert_int_eq(c[5].outIsNull, 1);
    ck_assert_uint_eq(c[5].scopeAttr.parentScope, DYN + 0); /* parent mapped */
    ck_assert_uint_eq(c[6].assignedId, DYN + 1);            /* inner */
    ck_assert_uint_eq(c[6].schemaAttr.fieldMask & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_SCHEMA_ID, 0);
    ck_assert_uint_eq(c[7].entries[1].entry.type, DYN + 1); /* nested type mapped */
    ck_assert_uint_eq(c[7].assignedId, DYN + 2);            /* outer */
    ck_assert_uint_eq(c[8].schemaAttr.schemaId, STATIC_SCHEMA);
    ck_assert_int_eq(c[8].outIsNull, 1);
    ck_assert_str_eq(c[9].text, "colors");
    ck_assert_uint_eq(c[9].assignedId, DYN + 3);
    ck_assert_uint_eq(c[10].counterAttr.scopeId, DYN + 0);
    ck_assert_uint_eq(c[10].counterAttr.counterId, NVTX_COUNTER_ID_NONE);
    ck_assert_uint_eq(c[10].assignedId, DYN + 4);
    ck_assert_uint_eq(c[11].timeDomainAttr.scopeId, DYN + 0);
    ck_assert_uint_eq(c[11].assignedId, DYN + 5);
    ck_assert_str_eq(c[12].text, "s0");
    ck_assert_uint_eq(c[12].streamAttr.timeDomainId, DYN + 5);
    ck_assert_ptr_eq(c[12].streamAttr.domain, c[2].handle);
}

/* `handle` is the mock's string handle, `p` an outer payload as sent. */
static void check_outer(const mock_payload_t* p, uint64_t handle, int64_t ts) {
    int64_t got_ts;
    ck_assert_uint_eq(p->schemaId, DYN + 2);
    ck_assert_uint_eq(p->size, sizeof(outer_payload));
    memcpy(&got_ts, p->bytes, 8);
    ck_assert_int_eq(got_ts, ts);
    ck_assert_uint_eq(u64_at(p, 8), handle);   /* nested string handle rewritten */
    ck_assert_uint_eq(u64_at(p, 16), DYN + 0); /* nested scope ID rewritten */
    ck_assert_uint_eq(u64_at(p, 24), handle);  /* top-level string handle rewritten */
}

static void check_writes(const mock_log_t* log) {
    const mock_call_t* c = log->calls;
    /* Handles are consecutive: session, domain, string, stream. */
    uint64_t handle = (uint64_t)(uintptr_t)c[2].handle + 1;
    nvtxSyncPoint_t point;
    check_outer(&c[13].payloads[0], handle, 100);
    ck_assert_uint_eq(c[13].payloadCount, 2);
    ck_assert_uint_eq(c[13].payloads[1].schemaId, NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF8);
    ck_assert_int_eq(memcmp(c[13].payloads[1].bytes, "abc", 3), 0);
    check_outer(&c[14].payloads[0], handle, 100);
    check_outer(&c[15].payloads[0], handle, 150);
    ck_assert_uint_eq(c[16].u64[0], DYN + 4);
    ck_assert_int_eq(c[16].i64[0], 200);
    ck_assert_uint_eq(u64_at(&c[16].payloads[0], 0), 42);
    ck_assert_uint_eq(c[17].u64[0], DYN + 4);
    ck_assert_uint_eq(c[17].u64[1], 2);
    ck_assert_uint_eq(c[18].u64[0], DYN + 5);
    ck_assert_uint_eq(c[18].u64[1], CLOCK_RAW);
    ck_assert_uint_eq(c[18].u64[2], 1);
    memcpy(&point, c[18].payloads[0].bytes, sizeof point);
    ck_assert_int_eq(point.src, 5);
    ck_assert_int_eq(point.dst, 6);
    ck_assert_uint_eq(c[19].u64[0], DYN + 5);
    ck_assert(c[19].f64 == 1.5);
    ck_assert_int_eq(c[19].i64[1], 8);
    ck_assert_ptr_eq(c[13].handle, c[20].handle); /* the stream */
}

/* A scope registered and released (libnvtxw's extension): forwarded when
 * the target has the extension (it then forgets the scope too), accepted
 * and kept by the target otherwise. */
static void release_a_scope(const ids* r) {
    const nvtxwExtensionInterface_t* ext = NULL;
    uint64_t task = 0;
    ck_assert_int_eq(nvtxwGetInterface(NVTXW_EXTENSION_INTERFACE_VERSION, (const void**)&ext), 0);
    ck_assert_int_eq(nvtxwScopeRegister(table(), r->domain, "task[1]", &task), 0);
    ck_assert_msg(ext->ScopeRelease(r->domain, task) == 0, "%s", nvtxw_last_error());
}

START_TEST(test_forward_to_mock) {
    void* module = mock_open();
    const mock_log_t* log = mock_log_of(module);
    nvtxwSessionHandle_t session;
    ids r;
    size_t i;
    ck_assert_int_eq(begin(backend_config("libmockbackend", ""), &session), 0);
    register_all(table(), session, &r);
    /* Our IDs differ from the target's: the translation is exercised. */
    ck_assert_uint_eq(r.inner, DYN + 0);
    ck_assert_uint_eq(r.scope, DYN + 0);
    write_all(table(), &r);
    release_a_scope(&r); /* the mock has no extension table */
    ck_assert_int_eq(table()->SessionEnd(session), 0);
    ck_assert_uint_eq(log->callCount, EXPECTED_COUNT);
    for (i = 0; i < EXPECTED_COUNT; i++)
        ck_assert_str_eq(log->calls[i].member, expected_calls[i]);
    check_registrations(log);
    check_writes(log);
    ck_assert_int_eq(log->finalizeCount, 1); /* unloaded with nvtxwUnload */
    dlclose(module);
}
END_TEST

/* ---- Calls racing a call in progress (the mock's gate) --------------------- */

typedef struct racer {
    nvtxwSessionHandle_t session;
    nvtxwStreamHandle_t stream;
    nvtxDomainHandle_t domain;
    nvtxwResultCode_t result;
    atomic_int done;
} racer;

static void* racer_write(void* arg) {
    racer* r = arg;
    nvtxPayloadData_t p = {NVTX_PAYLOAD_ENTRY_TYPE_INT32, 4, "\1\0\0\0"};
    r->result = table()->EventWrite(r->stream, &p, 1);
    atomic_store(&r->done, 1);
    return NULL;
}

static void* racer_open(void* arg) {
    racer* r = arg;
    r->result = nvtxwStreamOpen(table(), r->session, "late", r->domain, NULL, 0, &r->stream);
    atomic_store(&r->done, 1);
    return NULL;
}

static void* racer_end(void* arg) {
    racer* r = arg;
    r->result = table()->SessionEnd(r->session);
    atomic_store(&r->done, 1);
    return NULL;
}

/* While a write is in progress on a stream (held in the target), another
 * thread's StreamClose and EventWrite on that stream are refused, and
 * SessionEnd waits for the write, then closes the stream and ends: the
 * guarantees of docs/threading.md, without depending on timing. */
START_TEST(test_write_in_progress) {
    void* module = mock_open();
    const mock_log_t* log = mock_log_of(module);
    nvtxPayloadData_t p = {NVTX_PAYLOAD_ENTRY_TYPE_INT32, 4, "\2\0\0\0"};
    racer writer, ender;
    pthread_t a, b;
    size_t i, write_at = 0, close_at = 0, end_at = 0;
    memset(&writer, 0, sizeof writer);
    memset(&ender, 0, sizeof ender);
    ck_assert_int_eq(begin(backend_config("libmockbackend", ""), &writer.session), 0);
    ck_assert_int_eq(nvtxwDomainRegister(table(), writer.session, "dom", &writer.domain), 0);
    ck_assert_int_eq(
        nvtxwStreamOpen(table(), writer.session, "s", writer.domain, NULL, 0, &writer.stream), 0);
    mock_hold(module, "EventWrite");
    ck_assert_int_eq(pthread_create(&a, NULL, racer_write, &writer), 0);
    mock_wait_held(module);
    ck_assert_int_eq(table()->StreamClose(writer.stream), NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "in use by another thread"));
    ck_assert_int_eq(table()->EventWrite(writer.stream, &p, 1), NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "in use by another thread"));
    ender.session = writer.session;
    ck_assert_int_eq(pthread_create(&b, NULL, racer_end, &ender), 0);
    nanosleep(&(struct timespec){0, 100 * 1000 * 1000}, NULL); /* SessionEnd still waits */
    ck_assert_int_eq(atomic_load(&ender.done), 0);
    ck_assert_int_eq(atomic_load(&writer.done), 0);
    mock_release(module);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    ck_assert_int_eq(writer.result, NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(ender.result, NVTXW_RESULT_SUCCESS);
    for (i = 0; i < log->callCount; i++) { /* the write, then the close, then the end */
        if (strcmp(log->calls[i].member, "EventWrite") == 0)
            write_at = i;
        else if (strcmp(log->calls[i].member, "StreamClose") == 0)
            close_at = i;
        else if (strcmp(log->calls[i].member, "SessionEnd") == 0)
            end_at = i;
    }
    ck_assert_uint_gt(write_at, 0);
    ck_assert_uint_gt(close_at, write_at);
    ck_assert_uint_gt(end_at, close_at);
    dlclose(module);
}
END_TEST

/* While a lifecycle call of a session is in progress (a StreamOpen held in
 * the target), another thread's lifecycle calls of that session are refused
 * ("session handle ... is in use by another thread"); once it returns they
 * work. */
START_TEST(test_session_in_use) {
    void* module = mock_open();
    nvtxDomainHandle_t other;
    nvtxwStreamHandle_t stream = NULL;
    racer opener;
    pthread_t a;
    memset(&opener, 0, sizeof opener);
    ck_assert_int_eq(begin(backend_config("libmockbackend", ""), &opener.session), 0);
    ck_assert_int_eq(nvtxwDomainRegister(table(), opener.session, "dom", &opener.domain), 0);
    mock_hold(module, "StreamOpen");
    ck_assert_int_eq(pthread_create(&a, NULL, racer_open, &opener), 0);
    mock_wait_held(module);
    ck_assert_int_eq(
        nvtxwStreamOpen(table(), opener.session, "s2", opener.domain, NULL, 0, &stream),
        NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "is in use by another thread"));
    ck_assert_ptr_null(stream);
    ck_assert_int_eq(nvtxwDomainRegister(table(), opener.session, "other", &other),
                     NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "is in use by another thread"));
    ck_assert_int_eq(table()->SessionEnd(opener.session), NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "is in use by another thread"));
    mock_release(module);
    pthread_join(a, NULL);
    ck_assert_int_eq(opener.result, NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(nvtxwDomainRegister(table(), opener.session, "other", &other), 0);
    ck_assert_int_eq(table()->SessionEnd(opener.session), NVTXW_RESULT_SUCCESS);
    dlclose(module);
}
END_TEST

START_TEST(test_config_passed_on) {
    void* module = mock_open();
    const mock_log_t* log = mock_log_of(module);
    nvtxwSessionHandle_t session;
    ck_assert_int_eq(
        begin(backend_config("libmockbackend", "|BackendConfig=Sink=text|# note\n"
                                               "Output=/tmp/x.txt| Foo = bar baz |Sink=backend"),
              &session),
        0);
    ck_assert_uint_eq(log->callCount, 1);
    /* Valid while the session lives: the sink owns the string. */
    ck_assert_str_eq(log->calls[0].sessionAttr.configString,
                     "Sink=text\nOutput=/tmp/x.txt\nFoo=bar baz\n");
    ck_assert_int_eq(table()->SessionEnd(session), 0);
    dlclose(module);
}
END_TEST

START_TEST(test_not_supported_forwarded) {
    void* module = mock_open();
    nvtxwSessionHandle_t session;
    nvtxDomainHandle_t domain;
    nvtxStringHandle_t s;
    const nvtxwInterface_t* t = table();
    mock_set_result(module, "CategoryRegister", NVTXW_RESULT_NOT_SUPPORTED);
    ck_assert_int_eq(begin(backend_config("libmockbackend", ""), &session), 0);
    ck_assert_int_eq(nvtxwDomainRegister(t, session, "dom", &domain), 0);
    ck_assert_int_eq(nvtxwCategoryRegister(t, domain, 3, "c"), NVTXW_RESULT_NOT_SUPPORTED);
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "CategoryRegister"));
    ck_assert_int_eq(t->StringRegister(domain, "still healthy", &s), 0);
    ck_assert_int_eq(t->SessionEnd(session), 0);
    dlclose(module);
}
END_TEST

START_TEST(test_target_failure_faults) {
    void* module = mock_open();
    nvtxwSessionHandle_t session;
    nvtxDomainHandle_t domain;
    nvtxwStreamHandle_t stream;
    const nvtxwInterface_t* t = table();
    nvtxPayloadData_t p = {NVTX_PAYLOAD_ENTRY_TYPE_INT32, 4, "\1\0\0\0"};
    mock_set_result(module, "EventWrite", NVTXW_RESULT_FAILED);
    ck_assert_int_eq(begin(backend_config("libmockbackend", ""), &session), 0);
    ck_assert_int_eq(nvtxwDomainRegister(t, session, "dom", &domain), 0);
    ck_assert_int_eq(nvtxwStreamOpen(t, session, "s", domain, NULL, 0, &stream), 0);
    ck_assert_int_eq(t->EventWrite(stream, &p, 1), NVTXW_RESULT_FAILED);
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "EventWrite"));
    ck_assert_int_eq(nvtxwCategoryRegister(t, domain, 3, "c"), NVTXW_RESULT_FAILED);
    ck_assert_int_eq(t->SessionEnd(session), NVTXW_RESULT_FAILED);
    dlclose(module);
}
END_TEST

/* The target rejecting a call we validated is a fault, not the caller's. */
START_TEST(test_target_invalid_argument_faults) {
    void* module = mock_open();
    nvtxwSessionHandle_t session;
    nvtxDomainHandle_t domain;
    uint64_t id = 0;
    const nvtxwInterface_t* t = table();
    mock_set_result(module, "ScopeRegister", NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_int_eq(begin(backend_config("libmockbackend", ""), &session), 0);
    ck_assert_int_eq(nvtxwDomainRegister(t, session, "dom", &domain), 0);
    ck_assert_int_eq(nvtxwScopeRegister(t, domain, "a", &id), NVTXW_RESULT_FAILED);
    ck_assert_int_eq(t->SessionEnd(session), NVTXW_RESULT_FAILED);
    dlclose(module);
}
END_TEST

/* ---- Bad targets ------------------------------------------------------------ */

static void begin_fails(const char* config, nvtxwResultCode_t code, const char* words) {
    nvtxwSessionHandle_t session;
    ck_assert_int_eq(begin(config, &session), code);
    ck_assert_ptr_null(session);
    ck_assert_msg(strstr(nvtxw_last_error(), words) != NULL, "message: %s", nvtxw_last_error());
}

START_TEST(test_bad_targets) {
    begin_fails(backend_config("libnosymbol", ""), NVTXW_RESULT_LIBRARY_SYMBOL_MISSING,
                "library symbol missing");
    begin_fails("Backend=/nonexistent/libnvtxw-nothing.so", NVTXW_RESULT_LIBRARY_LOAD_FAILED,
                "library load failed");
    begin_fails(backend_config("libmocknofinalize", ""),
                NVTXW_RESULT_INTERFACE_VERSION_NOT_SUPPORTED, "interface ID not supported");
    begin_fails("Backend=libmockbackend.so", NVTXW_RESULT_INVALID_ARGUMENT, "absolute");
    begin_fails("Sink=backend", NVTXW_RESULT_INVALID_ARGUMENT, "Backend=");
}
END_TEST

/* NVTXW3_LIBRARY chose the producer's backend; it must not redirect ours. */
START_TEST(test_env_not_consulted) {
    void* module = mock_open();
    nvtxwSessionHandle_t session;
    setenv("NVTXW3_LIBRARY", "/nonexistent/libnvtxw3.so", 1);
    ck_assert_int_eq(begin(backend_config("libmockbackend", ""), &session), 0);
    unsetenv("NVTXW3_LIBRARY");
    ck_assert_int_eq(table()->SessionEnd(session), 0);
    dlclose(module);
}
END_TEST

START_TEST(test_incomplete_table) {
    const nvtxwInterface_t* t = table();
    nvtxwSessionHandle_t session;
    nvtxDomainHandle_t domain;
    nvtxwStreamHandle_t stream;
    nvtxStringHandle_t s;
    uint64_t id = 0;
    nvtxPayloadData_t p = {NVTX_PAYLOAD_ENTRY_TYPE_INT32, 4, "\1\0\0\0"};
    int64_t value = 1;
    ck_assert_int_eq(begin(backend_config("libmockincomplete", ""), &session), 0);
    ck_assert_int_eq(nvtxwDomainRegister(t, session, "dom", &domain), 0);
    ck_assert_int_eq(nvtxwCategoryRegister(t, domain, 3, "c"), NVTXW_RESULT_NOT_SUPPORTED);
    ck_assert_int_eq(t->StringRegister(domain, "x", &s), NVTXW_RESULT_NOT_SUPPORTED);
    ck_assert_int_eq(nvtxwScopeRegister(t, domain, "a", &id), NVTXW_RESULT_NOT_SUPPORTED);
    ck_assert_int_eq(nvtxwCounterInt64Register(t, domain, "c", NULL, &id),
                     NVTXW_RESULT_NOT_SUPPORTED);
    ck_assert_int_eq(nvtxwStreamOpen(t, session, "s", domain, NULL, 0, &stream), 0);
    ck_assert_int_eq(t->EventWrite(stream, &p, 1), 0);
    ck_assert_int_eq(t->CounterWrite(stream, 1, id, &value, sizeof value),
                     NVTXW_RESULT_NOT_SUPPORTED);
    ck_assert_int_eq(t->TimeSyncPointWrite(stream, 14, 15, 1, 2), NVTXW_RESULT_NOT_SUPPORTED);
    ck_assert_int_eq(t->SessionEnd(session), 0);
}
END_TEST

/* ---- Into our own library, compared with a direct run ----------------------- */

static char* slurp(const char* path) {
    FILE* f = fopen(path, "rb");
    char* text;
    long size;
    ck_assert_ptr_nonnull(f);
    fseek(f, 0, SEEK_END);
    size = ftell(f);
    fseek(f, 0, SEEK_SET);
    text = calloc(1, (size_t)size + 1);
    ck_assert_uint_eq(fread(text, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    return text;
}

/* Registered string handles carry a per-domain serial in their high half,
 * which differs between the two sessions: "handle=0x<serial><8 digits>"
 * becomes "handle=0x#<8 digits>". */
static void mask_handles(char* text) {
    char* at = text;
    while ((at = strstr(at, "handle=0x")) != NULL) {
        char* digits = at + strlen("handle=0x");
        size_t n = strspn(digits, "0123456789abcdef");
        if (n > 8) {
            digits[0] = '#';
            memmove(digits + 1, digits + n - 8, strlen(digits + n - 8) + 1);
        }
        at = digits;
    }
}

static void run_scenario(const char* config) {
    nvtxwSessionHandle_t session;
    ids r;
    ck_assert_msg(begin(config, &session) == 0, "%s", nvtxw_last_error());
    register_all(table(), session, &r);
    write_all(table(), &r);
    release_a_scope(&r);
    ck_assert_msg(table()->SessionEnd(session) == 0, "%s", nvtxw_last_error());
}

START_TEST(test_forward_to_own_library) {
    char dir[] = "/tmp/nvtxw-forward-XXXXXX", direct[PATH_MAX], forwarded[PATH_MAX];
    char config[3 * PATH_MAX], library[PATH_MAX], relative[PATH_MAX];
    const char* top = getenv("top_builddir");
    char *a, *b;
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(direct, sizeof direct, "%s/direct.txt", dir);
    snprintf(forwarded, sizeof forwarded, "%s/forwarded.txt", dir);
    snprintf(relative, sizeof relative, "%s/libnvtxw/.libs/libnvtxw3.so", top ? top : ".");
    ck_assert_ptr_nonnull(realpath(relative, library));
    snprintf(config, sizeof config, "Sink=text|Output=%s", direct);
    run_scenario(config);
    snprintf(config, sizeof config, "Backend=%s|BackendConfig=Sink=text|Output=%s", library,
             forwarded);
    run_scenario(config);
    a = slurp(direct);
    b = slurp(forwarded);
    mask_handles(a);
    mask_handles(b);
    ck_assert_ptr_nonnull(strstr(a, "\nscope_release domain=\"dom\" id="));
    ck_assert_ptr_nonnull(strstr(a, "\nflush stream="));
    ck_assert_str_eq(b, a);
    free(a);
    free(b);
    unlink(direct);
    unlink(forwarded);
    rmdir(dir);
}
END_TEST

/* ---- Streams written from several threads ------------------------------------ */

#define THREADS 4
#define EVENTS_PER_THREAD 2000

typedef struct writer {
    nvtxwStreamHandle_t stream;
    uint64_t schema;
    nvtxStringHandle_t message;
    int failures;
} writer;

static void* write_stream(void* arg) {
    writer* w = arg;
    outer_payload o = {0, (uint64_t)(uintptr_t)w->message, NVTX_SCOPE_ROOT,
                       (uint64_t)(uintptr_t)w->message};
    nvtxPayloadData_t p = {w->schema, sizeof o, &o};
    for (o.ts = 0; o.ts < EVENTS_PER_THREAD; o.ts++)
        w->failures += table()->EventWrite(w->stream, &p, 1) != NVTXW_RESULT_SUCCESS;
    return NULL;
}

/* Forwarding takes no lock: distinct streams run concurrently (own library
 * as the target, Sink=null there). */
START_TEST(test_concurrent_streams) {
    char config[2 * PATH_MAX], library[PATH_MAX], relative[PATH_MAX], name[16];
    const char* top = getenv("top_builddir");
    nvtxwSessionHandle_t session;
    pthread_t threads[THREADS];
    writer w[THREADS];
    ids r;
    int i;
    snprintf(relative, sizeof relative, "%s/libnvtxw/.libs/libnvtxw3.so", top ? top : ".");
    ck_assert_ptr_nonnull(realpath(relative, library));
    snprintf(config, sizeof config, "Backend=%s|BackendConfig=Sink=null", library);
    ck_assert_int_eq(begin(config, &session), 0);
    register_all(table(), session, &r);
    for (i = 0; i < THREADS; i++) {
        snprintf(name, sizeof name, "t%d", i);
        w[i] = (writer){NULL, r.outer, r.hello, 0};
        ck_assert_int_eq(nvtxwStreamOpen(table(), session, name, r.domain, NULL, 0, &w[i].stream),
                         0);
    }
    for (i = 0; i < THREADS; i++)
        ck_assert_int_eq(pthread_create(&threads[i], NULL, write_stream, &w[i]), 0);
    for (i = 0; i < THREADS; i++) {
        pthread_join(threads[i], NULL);
        ck_assert_int_eq(w[i].failures, 0);
    }
    ck_assert_int_eq(table()->SessionEnd(session), 0);
}
END_TEST

static Suite* forward_suite(void) {
    Suite* s = suite_create("forward");
    TCase* tc = tcase_create("backend sink");
    tcase_add_test(tc, test_forward_to_mock);
    tcase_add_test(tc, test_config_passed_on);
    tcase_add_test(tc, test_not_supported_forwarded);
    tcase_add_test(tc, test_target_failure_faults);
    tcase_add_test(tc, test_target_invalid_argument_faults);
    tcase_add_test(tc, test_bad_targets);
    tcase_add_test(tc, test_env_not_consulted);
    tcase_add_test(tc, test_incomplete_table);
    tcase_add_test(tc, test_forward_to_own_library);
    tcase_add_test(tc, test_concurrent_streams);
    tcase_add_test(tc, test_write_in_progress);
    tcase_add_test(tc, test_session_in_use);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(forward_suite()); }
