/*
 * tests/unit/register_race_test.c - registrations and StreamOpen while other
 * threads write (docs/threading.md, "Registrations and StreamOpen during
 * writes"); meant to run under TSan and ASan as well.
 *
 *   - WRITERS threads write marks (a registered string, a registered
 *     category), ranges and events of their own static schema on their own
 *     streams (opened on a registered scope), while two registrar threads
 *     keep registering strings, categories, scopes, schemas, counters and
 *     time domains, one in the writers' domain, the other alternating
 *     between that domain and a second one, and an opener thread opens,
 *     writes and closes streams in both domains. The registries grow (and
 *     are copied) many times while the writers read them.
 *     The report is read back: every event is there, in order, with the
 *     right string, category and payload values; every registration is
 *     there once, in its domain, under the ID or handle its call returned,
 *     and the IDs are distinct. The same run into Sink=text (each writer's
 *     string counted in the text) and Sink=null (every call succeeded).
 *   - task rows: WRITERS threads write slices of their own task while a
 *     registrar registers TASK_REGS more task scopes (the JSON and stats
 *     sinks' per-domain task maps grow under the writers' lookups); every
 *     slice is on its task's row (Sink=json) or in its task's row of
 *     task_sum (Sink=stats), and every task got its row.
 *   - registrations racing SessionEnd: each is either done (and in the
 *     report) or refused with "its session is ending" or "not a domain of
 *     an open session"; none crashes.
 */
#define _GNU_SOURCE
#include <check.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvtxw/backend.h"
#include "nvtxw/error.h"
#include "nvtxw/extension.h"
#include "nvtxw/helpers.h"
#include "nvtxw/reader.h"
#include "nvtxw/tasks.h"
#include "test_util.h"

#define WRITERS 4
#define WRITES 1500   /* per writer: a mark, a range and a schema event each */
#define REGS 600      /* per registrar: a string, a category, a scope, a schema each */
#define OPENS 24      /* streams the opener opens, writes and closes */
#define SLICES 1000   /* per writer, of its own task */
#define TASK_REGS 800 /* task scopes registered while the slices are written */

static const nvtxwInterface_t* T;
static char dir[PATH_MAX];

/* One static schema event: the writer's own schema. */
typedef struct value_payload {
    uint64_t value;
    int64_t timestamp;
} value_payload;

static uint64_t value_schema(nvtxDomainHandle_t domain, const char* name) {
    nvtxPayloadSchemaEntry_t entries[2];
    nvtxPayloadSchemaAttr_t attr;
    uint64_t id = 0;
    memset(entries, 0, sizeof entries);
    entries[0].type = NVTX_PAYLOAD_ENTRY_TYPE_UINT64;
    entries[0].name = "value";
    entries[0].offset = offsetof(value_payload, value);
    entries[1].type = NVTX_PAYLOAD_ENTRY_TYPE_INT64;
    entries[1].flags = NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP;
    entries[1].name = "time";
    entries[1].offset = offsetof(value_payload, timestamp);
    memset(&attr, 0, sizeof attr);
    attr.fieldMask = NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES |
                     NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES |
                     NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NAME |
                     NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_STATIC_SIZE;
    attr.name = name;
    attr.type = NVTX_PAYLOAD_SCHEMA_TYPE_STATIC;
    attr.entries = entries;
    attr.numEntries = 2;
    attr.payloadStaticSize = sizeof(value_payload);
    if (T->SchemaRegister(domain, &attr, &id) != NVTXW_RESULT_SUCCESS)
        return 0;
    return id;
}

/* ---- Writers --------------------------------------------------------------- */

typedef struct writer_arg {
    nvtxwEventWriter_t writer;
    nvtxStringHandle_t string; /* "w<i>-base" */
    uint32_t category;         /* i + 1 */
    uint64_t schema;           /* "w<i>-values" */
    _Atomic int* go;
    char failure[512];
} writer_arg;

static int writer_round(writer_arg* arg, int i) {
    nvtxwEventAttributes_t mark;
    nvtxwEventAttributesUtf8_t range;
    value_payload value;
    nvtxPayloadData_t data;
    char text[32];
    memset(&mark, 0, sizeof mark);
    mark.message = arg->string;
    mark.category = arg->category;
    if (nvtxwMarkWrite(&arg->writer, 3 * i, mark) != 0)
        return -1;
    snprintf(text, sizeof text, "range-%d", i);
    memset(&range, 0, sizeof range);
    range.message = text;
    if (nvtxwRangePushPopWriteUtf8(&arg->writer, 3 * i, 3 * i + 1, range) != 0)
        return -1;
    value.value = (uint64_t)i;
    value.timestamp = 3 * i + 2;
    data.schemaId = arg->schema;
    data.size = sizeof value;
    data.payload = &value;
    return T->EventWrite(arg->writer.stream, &data, 1);
}

static void* writer_main(void* p) {
    writer_arg* arg = p;
    int i;
    while (!atomic_load(arg->go))
        sched_yield();
    for (i = 0; i < WRITES; i++) {
        if (writer_round(arg, i) != 0) {
            snprintf(arg->failure, sizeof arg->failure, "write %d: %s", i, nvtxw_last_error());
            break;
        }
    }
    return NULL;
}

/* ---- Registrars ------------------------------------------------------------ */

/* What one registration round returned, checked against the report. */
typedef struct reg_record {
    int domain; /* 0 = "main", 1 = "other" */
    uint64_t string, scope, schema, counter, time_domain;
    uint32_t category;
} reg_record;

typedef struct registrar_arg {
    nvtxDomainHandle_t domains[2];
    int id; /* 0: main only; 1: alternates */
    _Atomic int* go;
    reg_record regs[REGS];
    char failure[512];
} registrar_arg;

#define REG_TRY(arg, expr)                                                                         \
    do {                                                                                           \
        if ((expr) != NVTXW_RESULT_SUCCESS) {                                                      \
            snprintf((arg)->failure, sizeof(arg)->failure, "%s: %s", #expr, nvtxw_last_error());   \
            return -1;                                                                             \
        }                                                                                          \
    } while (0)

static int register_round(registrar_arg* arg, int k) {
    reg_record* r = &arg->regs[k];
    nvtxDomainHandle_t domain;
    nvtxStringHandle_t string = NULL;
    char name[64];
    r->domain = arg->id == 0 ? 0 : k % 2;
    domain = arg->domains[r->domain];
    snprintf(name, sizeof name, "r%d-%d", arg->id, k);
    REG_TRY(arg, T->StringRegister(domain, name, &string));
    r->string = (uint64_t)(uintptr_t)string;
    r->category = (uint32_t)(1000 + 10000 * arg->id + k);
    REG_TRY(arg, nvtxwCategoryRegister(T, domain, r->category, name));
    REG_TRY(arg, nvtxwScopeRegister(T, domain, name, &r->scope));
    if ((r->schema = value_schema(domain, name)) == 0) {
        snprintf(arg->failure, sizeof arg->failure, "schema %s: %s", name, nvtxw_last_error());
        return -1;
    }
    if (k % 8 == 0) {
        REG_TRY(arg, nvtxwCounterRegister(T, domain, name, NVTX_PAYLOAD_ENTRY_TYPE_INT64, NULL,
                                          &r->counter));
        REG_TRY(arg,
                nvtxwTimeDomainRegister(T, domain, NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_MONOTONIC,
                                        &r->time_domain));
    }
    return 0;
}

static void* registrar_main(void* p) {
    registrar_arg* arg = p;
    int k;
    while (!atomic_load(arg->go))
        sched_yield();
    for (k = 0; k < REGS && register_round(arg, k) == 0; k++)
        ;
    return NULL;
}

/* ---- Opener ---------------------------------------------------------------- */

typedef struct opener_arg {
    nvtxwSessionHandle_t session;
    nvtxDomainHandle_t domains[2];
    nvtxwEventHelperSchemaIds_t ids[2];
    _Atomic int* go;
    char failure[512];
} opener_arg;

static int open_write_close(opener_arg* arg, int n) {
    nvtxwStreamHandle_t stream;
    nvtxwEventWriter_t writer;
    nvtxwEventAttributesUtf8_t mark;
    char name[32];
    int i;
    snprintf(name, sizeof name, "opened-%d", n);
    REG_TRY(arg, nvtxwStreamOpen(T, arg->session, name, arg->domains[n % 2], NULL, 0, &stream));
    nvtxwEventWriterInit(&writer, T, stream, &arg->ids[n % 2]);
    memset(&mark, 0, sizeof mark);
    mark.message = name;
    for (i = 0; i < 10; i++)
        REG_TRY(arg, nvtxwMarkWriteUtf8(&writer, i, mark));
    REG_TRY(arg, T->StreamClose(stream));
    return 0;
}

static void* opener_main(void* p) {
    opener_arg* arg = p;
    int n;
    while (!atomic_load(arg->go))
        sched_yield();
    for (n = 0; n < OPENS && open_write_close(arg, n) == 0; n++)
        ;
    return NULL;
}

/* ---- The run ----------------------------------------------------------------- */

typedef struct race {
    nvtxwSessionHandle_t session;
    nvtxDomainHandle_t domains[2];
    writer_arg writers[WRITERS];
    registrar_arg registrars[2];
    opener_arg opener;
    _Atomic int go;
} race;

/* Registrations made before the threads start: what the writers use. */
static void race_prepare(race* r, const char* sink, const char* output) {
    nvtxwEventHelperSchemaIds_t ids[2];
    int i, d;
    memset(r, 0, sizeof *r);
    r->session = tu_sink_session_or_fail(T, sink, dir, output);
    ck_assert_int_eq(nvtxwDomainRegister(T, r->session, "main", &r->domains[0]), 0);
    ck_assert_int_eq(nvtxwDomainRegister(T, r->session, "other", &r->domains[1]), 0);
    for (d = 0; d < 2; d++)
        ck_assert_int_eq(
            nvtxwEventSchemasRegister(T, r->domains[d], NVTXW_EVENT_HELPER_SCHEMA_ALL, &ids[d]), 0);
    for (i = 0; i < WRITERS; i++) {
        writer_arg* w = &r->writers[i];
        nvtxwStreamHandle_t stream;
        char name[32];
        snprintf(name, sizeof name, "w%d-base", i);
        ck_assert_int_eq(T->StringRegister(r->domains[0], name, &w->string), 0);
        w->category = (uint32_t)i + 1;
        ck_assert_int_eq(nvtxwCategoryRegister(T, r->domains[0], w->category, name), 0);
        snprintf(name, sizeof name, "w%d-values", i);
        ck_assert_uint_ne(w->schema = value_schema(r->domains[0], name), 0);
        snprintf(name, sizeof name, "writer-%d", i);
        ck_assert_int_eq(nvtxwStreamOpen(T, r->session, name, r->domains[0], name, 0, &stream), 0);
        nvtxwEventWriterInit(&w->writer, T, stream, &ids[0]);
        w->go = &r->go;
    }
    for (i = 0; i < 2; i++) {
        memcpy(r->registrars[i].domains, r->domains, sizeof r->domains);
        r->registrars[i].id = i;
        r->registrars[i].go = &r->go;
    }
    r->opener.session = r->session;
    memcpy(r->opener.domains, r->domains, sizeof r->domains);
    memcpy(r->opener.ids, ids, sizeof ids);
    r->opener.go = &r->go;
}

static void race_run(race* r) {
    pthread_t threads[WRITERS + 3];
    int i;
    for (i = 0; i < WRITERS; i++)
        ck_assert_int_eq(pthread_create(&threads[i], NULL, writer_main, &r->writers[i]), 0);
    for (i = 0; i < 2; i++)
        ck_assert_int_eq(
            pthread_create(&threads[WRITERS + i], NULL, registrar_main, &r->registrars[i]), 0);
    ck_assert_int_eq(pthread_create(&threads[WRITERS + 2], NULL, opener_main, &r->opener), 0);
    atomic_store(&r->go, 1);
    for (i = 0; i < WRITERS + 3; i++)
        pthread_join(threads[i], NULL);
    for (i = 0; i < WRITERS; i++)
        ck_assert_msg(r->writers[i].failure[0] == '\0', "writer %d: %s", i, r->writers[i].failure);
    for (i = 0; i < 2; i++)
        ck_assert_msg(r->registrars[i].failure[0] == '\0', "registrar %d: %s", i,
                      r->registrars[i].failure);
    ck_assert_msg(r->opener.failure[0] == '\0', "opener: %s", r->opener.failure);
    ck_assert_msg(T->SessionEnd(r->session) == 0, "%s", nvtxw_last_error());
}

/* ---- Reading the report back ------------------------------------------------- */

/* What the report holds, by domain index (0 main, 1 other). */
typedef struct seen {
    nvtxw_reader_t* reader;
    long marks[WRITERS], ranges[WRITERS], values[WRITERS];
    long opened_marks, opened_streams;
    int writer_of_stream[WRITERS + OPENS + 1]; /* stream index -> writer, -1 other */
} seen;

/* The registration records of one round must be in the report, once. */
static int is_round(const nvtxw_record_t* rec, const reg_record* reg, const char* name) {
    if (rec->domain != (uint64_t)reg->domain)
        return 0;
    switch (rec->kind) {
    case NVTXW_RECORD_STRING:
        return strcmp(rec->u.string.text, name) == 0 &&
               rec->u.string.index + 1 == (reg->string & UINT32_MAX);
    case NVTXW_RECORD_CATEGORY:
        return rec->u.category.id == reg->category && strcmp(rec->u.category.name, name) == 0;
    case NVTXW_RECORD_SCOPE:
        return rec->u.scope.id == reg->scope && strcmp(rec->u.scope.path, name) == 0;
    case NVTXW_RECORD_SCHEMA:
        return nvtxw_schema_id(rec->u.schema.schema) == reg->schema &&
               strcmp(nvtxw_schema_name(rec->u.schema.schema), name) == 0;
    case NVTXW_RECORD_COUNTER:
        return rec->u.counter.attr.counterId == reg->counter &&
               strcmp(rec->u.counter.attr.name, name) == 0;
    default:
        return 0;
    }
}

/* Counts, per registrar round, the records that match it: 4 or 5 each. */
static void check_registrations(const char* path, const race* r) {
    static int matches[2][REGS];
    nvtxw_reader_t* reader = NULL;
    nvtxw_reader_options_t options;
    const nvtxw_record_t* rec;
    int a, k;
    memset(&options, 0, sizeof options);
    options.struct_size = sizeof options;
    memset(matches, 0, sizeof matches);
    ck_assert_msg(nvtxw_reader_open(path, &options, &reader) == 0, "%s", nvtxw_last_error());
    while (nvtxw_reader_next(reader, &rec) == 0 && rec != NULL) {
        char name[64];
        int id;
        const char* text = rec->kind == NVTXW_RECORD_STRING     ? rec->u.string.text
                           : rec->kind == NVTXW_RECORD_CATEGORY ? rec->u.category.name
                           : rec->kind == NVTXW_RECORD_SCOPE    ? rec->u.scope.path
                           : rec->kind == NVTXW_RECORD_SCHEMA
                               ? nvtxw_schema_name(rec->u.schema.schema)
                           : rec->kind == NVTXW_RECORD_COUNTER ? rec->u.counter.attr.name
                                                               : NULL;
        if (text == NULL || sscanf(text, "r%d-%d", &a, &k) != 2 || a < 0 || a > 1 || k < 0 ||
            k >= REGS)
            continue;
        snprintf(name, sizeof name, "r%d-%d", a, k);
        id = is_round(rec, &r->registrars[a].regs[k], name);
        ck_assert_msg(id, "record kind %d of \"%s\" does not match what its call returned",
                      (int)rec->kind, text);
        matches[a][k]++;
    }
    for (a = 0; a < 2; a++)
        for (k = 0; k < REGS; k++)
            ck_assert_msg(matches[a][k] == (k % 8 == 0 ? 5 : 4),
                          "registrar %d round %d: %d records", a, k, matches[a][k]);
    nvtxw_reader_close(reader);
}

/* IDs one registrar got must differ from every other's (same kind, same
 * domain); sorting would do, a quadratic scan over 1200 is fast enough. */
static void check_distinct(const race* r) {
    int a, k, b, j;
    for (a = 0; a < 2; a++)
        for (k = 0; k < REGS; k++)
            for (b = a; b < 2; b++)
                for (j = (b == a ? k + 1 : 0); j < REGS; j++) {
                    const reg_record* x = &r->registrars[a].regs[k];
                    const reg_record* y = &r->registrars[b].regs[j];
                    if (x->domain != y->domain)
                        continue;
                    ck_assert_uint_ne(x->string, y->string);
                    ck_assert_uint_ne(x->scope, y->scope);
                    ck_assert_uint_ne(x->schema, y->schema);
                    ck_assert(x->counter == 0 || x->counter != y->counter);
                    ck_assert(x->time_domain == 0 || x->time_domain != y->time_domain);
                }
}

static void check_event(seen* s, const nvtxw_record_t* rec) {
    int w = rec->stream < WRITERS + OPENS + 1 ? s->writer_of_stream[rec->stream] : -1;
    if (w < 0) {
        s->opened_marks++;
        return;
    }
    if (rec->u.event.count == 1 && rec->u.event.payloads[0].size == sizeof(value_payload)) {
        value_payload v;
        memcpy(&v, rec->u.event.payloads[0].payload, sizeof v);
        ck_assert_uint_eq(v.value, (uint64_t)s->values[w]);
        ck_assert_int_eq(v.timestamp, 3 * s->values[w] + 2);
        s->values[w]++;
    } else if (rec->u.event.count == 1) {
        nvtxwEventRegStringPayload_t mark;
        char text[32];
        const char* found;
        ck_assert_uint_eq(rec->u.event.payloads[0].size, sizeof mark);
        memcpy(&mark, rec->u.event.payloads[0].payload, sizeof mark);
        ck_assert_int_eq(mark.timestamp, 3 * s->marks[w]);
        ck_assert_uint_eq(mark.attr.category, (uint32_t)w + 1);
        snprintf(text, sizeof text, "w%d-base", w);
        found = nvtxw_reader_string(s->reader, rec->domain, (uint64_t)(uintptr_t)mark.attr.message);
        ck_assert_ptr_nonnull(found);
        ck_assert_str_eq(found, text);
        s->marks[w]++;
    } else {
        char text[32];
        snprintf(text, sizeof text, "range-%ld", s->ranges[w]);
        ck_assert_uint_eq(rec->u.event.payloads[1].size, strlen(text));
        ck_assert(memcmp(rec->u.event.payloads[1].payload, text, strlen(text)) == 0);
        s->ranges[w]++;
    }
}

static void check_events(const char* path) {
    nvtxw_reader_options_t options;
    const nvtxw_record_t* rec;
    seen s;
    int i;
    memset(&s, 0, sizeof s);
    memset(&options, 0, sizeof options);
    options.struct_size = sizeof options;
    ck_assert_msg(nvtxw_reader_open(path, &options, &s.reader) == 0, "%s", nvtxw_last_error());
    for (i = 0; i < WRITERS + OPENS + 1; i++)
        s.writer_of_stream[i] = -1;
    while (nvtxw_reader_next(s.reader, &rec) == 0 && rec != NULL) {
        int w;
        if (rec->kind == NVTXW_RECORD_STREAM_OPEN) {
            ck_assert_uint_lt(rec->stream, WRITERS + OPENS + 1);
            if (sscanf(rec->u.stream_open.name, "writer-%d", &w) == 1)
                s.writer_of_stream[rec->stream] = w;
            else if (strncmp(rec->u.stream_open.name, "opened-", 7) == 0)
                s.opened_streams++;
        } else if (rec->kind == NVTXW_RECORD_EVENT) {
            check_event(&s, rec);
        }
    }
    ck_assert_int_eq(nvtxw_reader_damage_count(s.reader), 0);
    for (i = 0; i < WRITERS; i++) {
        ck_assert_int_eq(s.marks[i], WRITES);
        ck_assert_int_eq(s.ranges[i], WRITES);
        ck_assert_int_eq(s.values[i], WRITES);
    }
    ck_assert_int_eq(s.opened_streams, OPENS);
    ck_assert_int_eq(s.opened_marks, OPENS * 10);
    nvtxw_reader_close(s.reader);
}

static void report_path(char* path, size_t size, const char* name) {
    ck_assert_int_lt(snprintf(path, size, "%s/%s", dir, name), (int)size);
}

START_TEST(registrations_during_writes_report) {
    static race r;
    char path[PATH_MAX + 32];
    race_prepare(&r, "report", "race.nvtxw");
    race_run(&r);
    report_path(path, sizeof path, "race.nvtxw");
    check_events(path);
    check_registrations(path, &r);
    check_distinct(&r);
}
END_TEST

/* Text output: each writer's registered string once per mark. */
static long count_of(const char* text, const char* needle) {
    long n = 0;
    for (text = strstr(text, needle); text != NULL; text = strstr(text + 1, needle))
        n++;
    return n;
}

START_TEST(registrations_during_writes_text) {
    static race r;
    char path[PATH_MAX + 32], needle[32];
    char* text;
    int i;
    race_prepare(&r, "text", "race.txt");
    race_run(&r);
    check_distinct(&r);
    report_path(path, sizeof path, "race.txt");
    text = tu_read_file_or_null(path, NULL);
    ck_assert_ptr_nonnull(text);
    for (i = 0; i < WRITERS; i++) {
        /* each mark's message, plus the string and category lines */
        snprintf(needle, sizeof needle, "\"w%d-base\"", i);
        ck_assert_int_eq(count_of(text, needle), WRITES + 2);
    }
    /* opener: each mark names its stream and has it as message; the open
     * and close lines name it too */
    ck_assert_int_eq(count_of(text, "\"opened-"), OPENS * (2 * 10 + 2));
    free(text);
}
END_TEST

START_TEST(registrations_during_writes_null) {
    static race r;
    race_prepare(&r, "null", "race.null");
    race_run(&r);
    check_distinct(&r);
}
END_TEST

/* ---- Task rows while task scopes are registered ---------------------------------- */

typedef struct task_writer {
    nvtxwStreamHandle_t stream;
    const nvtxw_task_ids_t* ids;
    uint64_t task;
    _Atomic int* go;
    nvtxwResultCode_t failed;
} task_writer;

typedef struct task_registrar {
    nvtxDomainHandle_t domain;
    const nvtxwExtensionInterface_t* ext;
    _Atomic int* go;
    int done;
    char failure[512];
} task_registrar;

static void* task_writer_main(void* p) {
    task_writer* w = p;
    int i;
    while (!atomic_load(w->go))
        sched_yield();
    for (i = 0; i < SLICES && w->failed == NVTXW_RESULT_SUCCESS; i++)
        w->failed = nvtxw_task_slice_write(T, w->stream, w->ids, w->task, 0, 10 * i, 10 * i + 5, 0);
    return NULL;
}

static void* task_registrar_main(void* p) {
    task_registrar* r = p;
    uint64_t scope;
    while (!atomic_load(r->go))
        sched_yield();
    for (; r->done < TASK_REGS; r->done++) {
        /* every other one released at once (libnvtxw's extension): the
         * writers look up their own scopes in the same registry meanwhile */
        if (nvtxw_task_scope_register_id(T, r->domain, NVTX_SCOPE_NONE, 1000 + r->done, 0,
                                         &scope) != 0 ||
            (r->done % 2 == 1 && r->ext->ScopeRelease(r->domain, scope) != 0)) {
            snprintf(r->failure, sizeof r->failure, "task %d: %s", r->done, nvtxw_last_error());
            break;
        }
    }
    return NULL;
}

/* Runs the writers (tasks "0" .. "WRITERS-1", one stream each) and the
 * registrar (tasks "1000" ...) into `sink`, then ends the session. */
static void task_race(const char* sink, const char* output) {
    static nvtxw_task_ids_t ids;
    task_writer writers[WRITERS];
    task_registrar registrar;
    pthread_t threads[WRITERS + 1];
    nvtxDomainHandle_t domain;
    _Atomic int go = 0;
    nvtxwSessionHandle_t session = tu_sink_session_or_fail(T, sink, dir, output);
    int i;
    ck_assert_int_eq(nvtxwDomainRegister(T, session, "main", &domain), 0);
    ids.struct_size = sizeof ids;
    ck_assert_msg(nvtxw_task_schemas_register(T, domain, &ids) == 0, "%s", nvtxw_last_error());
    for (i = 0; i < WRITERS; i++) {
        char name[32];
        snprintf(name, sizeof name, "worker-%d", i);
        writers[i] = (task_writer){.ids = &ids, .go = &go};
        ck_assert_int_eq(nvtxwStreamOpen(T, session, name, domain, name, 0, &writers[i].stream), 0);
        ck_assert_int_eq(
            nvtxw_task_scope_register_id(T, domain, NVTX_SCOPE_NONE, i, 0, &writers[i].task), 0);
        ck_assert_int_eq(pthread_create(&threads[i], NULL, task_writer_main, &writers[i]), 0);
    }
    registrar = (task_registrar){.domain = domain, .go = &go};
    ck_assert_int_eq(
        nvtxwGetInterface(NVTXW_EXTENSION_INTERFACE_VERSION, (const void**)&registrar.ext), 0);
    ck_assert_int_eq(pthread_create(&threads[WRITERS], NULL, task_registrar_main, &registrar), 0);
    atomic_store(&go, 1);
    for (i = 0; i <= WRITERS; i++)
        pthread_join(threads[i], NULL);
    for (i = 0; i < WRITERS; i++)
        ck_assert_msg(writers[i].failed == 0, "writer %d: %s", i, nvtxw_last_error());
    ck_assert_msg(registrar.failure[0] == '\0', "%s", registrar.failure);
    ck_assert_msg(T->SessionEnd(session) == 0, "%s", nvtxw_last_error());
}

/* Every slice twice (worker row and task row, docs/chrome-json.md "Tasks"),
 * and one task row per registered task. */
START_TEST(task_rows_during_registrations_json) {
    char path[PATH_MAX + 32], needle[64];
    char* json;
    int i;
    task_race("json", "tasks.json");
    report_path(path, sizeof path, "tasks.json");
    json = tu_read_file_or_null(path, NULL);
    ck_assert_ptr_nonnull(json);
    ck_assert_int_eq(count_of(json, "\"ph\":\"X\""), 2 * WRITERS * SLICES);
    for (i = 0; i < WRITERS; i++) {
        snprintf(needle, sizeof needle, "\"name\":\"task %d\"", i);
        ck_assert_int_eq(count_of(json, needle), 1);
    }
    snprintf(needle, sizeof needle, "\"name\":\"task %d\"", 1000 + TASK_REGS - 1);
    ck_assert_int_eq(count_of(json, needle), 1);
    ck_assert_int_eq(count_of(json, "\"name\":\"task "), WRITERS + TASK_REGS);
    free(json);
}
END_TEST

/* task_sum (docs/stats.md): each writer's task with SLICES slices of 5 ns,
 * no suspension, from 0 to 10 * (SLICES - 1) + 5; the tasks registered
 * during the writes have no slice, so no row. */
START_TEST(task_rows_during_registrations_stats) {
    char path[PATH_MAX + 32], needle[64];
    char* text;
    task_race("stats|StatsFormat=csv|StatsReports=task_sum", "tasks.csv");
    report_path(path, sizeof path, "tasks.csv");
    text = tu_read_file_or_null(path, NULL);
    ck_assert_ptr_nonnull(text);
    for (int i = 0; i < WRITERS; i++) {
        snprintf(needle, sizeof needle, "\n%d,%d,0,0,0,%d,%d,", 5 * SLICES, SLICES,
                 10 * (SLICES - 1) + 5, i);
        ck_assert_msg(count_of(text, needle) == 1, "%s in:\n%.2000s", needle + 1, text);
    }
    /* a row without slices would have empty First Start and Last End */
    ck_assert_msg(count_of(text, "\n5000,") == WRITERS && count_of(text, ",,,") == 0, "%.2000s",
                  text);
    free(text);
}
END_TEST

/* ---- Registrations racing SessionEnd ------------------------------------------ */

typedef struct ender_arg {
    nvtxDomainHandle_t domain;
    int id;
    _Atomic int done; /* registrations that succeeded */
    nvtxwResultCode_t refused;
    char message[512];
} ender_arg;

static void* ender_main(void* p) {
    ender_arg* arg = p;
    char name[32];
    for (;;) {
        nvtxStringHandle_t string;
        uint64_t scope;
        nvtxwResultCode_t rc;
        int n = atomic_load(&arg->done);
        snprintf(name, sizeof name, "end%d-%d", arg->id, n);
        rc = arg->id == 0 ? T->StringRegister(arg->domain, name, &string)
                          : nvtxwScopeRegister(T, arg->domain, name, &scope);
        if (rc != NVTXW_RESULT_SUCCESS) {
            arg->refused = rc;
            snprintf(arg->message, sizeof arg->message, "%s", nvtxw_last_error());
            return NULL;
        }
        atomic_store(&arg->done, n + 1);
    }
}

/* Every name a registrar was told it registered is in the report. */
static void check_ended(const char* path, ender_arg* args) {
    nvtxw_reader_options_t options;
    nvtxw_reader_t* reader = NULL;
    const nvtxw_record_t* rec;
    long found[2] = {0, 0};
    memset(&options, 0, sizeof options);
    options.struct_size = sizeof options;
    ck_assert_msg(nvtxw_reader_open(path, &options, &reader) == 0, "%s", nvtxw_last_error());
    while (nvtxw_reader_next(reader, &rec) == 0 && rec != NULL) {
        int a, n;
        const char* text = rec->kind == NVTXW_RECORD_STRING  ? rec->u.string.text
                           : rec->kind == NVTXW_RECORD_SCOPE ? rec->u.scope.path
                                                             : "";
        if (sscanf(text, "end%d-%d", &a, &n) == 2 && a >= 0 && a < 2 && n == found[a])
            found[a]++;
    }
    ck_assert_int_eq(nvtxw_reader_damage_count(reader), 0);
    ck_assert_int_ge(found[0], atomic_load(&args[0].done));
    ck_assert_int_ge(found[1], atomic_load(&args[1].done));
    nvtxw_reader_close(reader);
}

START_TEST(registrations_racing_session_end) {
    nvtxwSessionHandle_t session = tu_sink_session_or_fail(T, "report", dir, "end.nvtxw");
    ender_arg args[2];
    pthread_t threads[2];
    char path[PATH_MAX + 32];
    int i;
    memset(args, 0, sizeof args);
    for (i = 0; i < 2; i++) {
        args[i].id = i;
        ck_assert_int_eq(nvtxwDomainRegister(T, session, i ? "b" : "a", &args[i].domain), 0);
        ck_assert_int_eq(pthread_create(&threads[i], NULL, ender_main, &args[i]), 0);
    }
    while (atomic_load(&args[0].done) < 200 || atomic_load(&args[1].done) < 200)
        sched_yield();
    ck_assert_msg(T->SessionEnd(session) == 0, "%s", nvtxw_last_error());
    for (i = 0; i < 2; i++) {
        pthread_join(threads[i], NULL);
        ck_assert_int_eq(args[i].refused, NVTXW_RESULT_INVALID_ARGUMENT);
        ck_assert_msg(strstr(args[i].message, "its session is ending") != NULL ||
                          strstr(args[i].message, "is not a domain of an open session") != NULL,
                      "registrar %d: %s", i, args[i].message);
    }
    report_path(path, sizeof path, "end.nvtxw");
    check_ended(path, args);
}
END_TEST

/* ---- Suite ------------------------------------------------------------------- */

static void setup(void) { tu_make_temp_dir_or_fail(dir, sizeof dir, "nvtxw-register-race"); }

static void teardown(void) { ck_assert_int_eq(tu_remove_tree(dir), 0); }

int main(void) {
    Suite* suite = suite_create("register_race");
    TCase* tc = tcase_create("race");
    T = tu_get_interface();
    if (T == NULL)
        return EXIT_FAILURE;
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, registrations_during_writes_report);
    tcase_add_test(tc, registrations_during_writes_text);
    tcase_add_test(tc, registrations_during_writes_null);
    tcase_add_test(tc, task_rows_during_registrations_json);
    tcase_add_test(tc, task_rows_during_registrations_stats);
    tcase_add_test(tc, registrations_racing_session_end);
    suite_add_tcase(suite, tc);
    return tu_run_suite(suite);
}
