/*
 * tests/unit/merge_test.c - nvtxw_reader_replay_many: reports written
 * through the backend table (Sink=report) merged into one report and read
 * back: domains unified by name, strings deduplicated, identical static
 * schemas registered once, static IDs registered differently renumbered, stream
 * renaming, the domain and stream filters, time order and the time window,
 * and stream records on several threads (the same output, damage, counts
 * and message naming a failed record as one thread; should_stop on the
 * calling thread).
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvtxw/nvtxw.h"
#include "test_util.h"

#define STATIC_ID (NVTX_PAYLOAD_SCHEMA_ID_STATIC_START + 7)

static char dir[PATH_MAX];

static void path_in(char* out, size_t size, const char* name) {
    ck_assert_int_lt(snprintf(out, size, "%s/%s", dir, name), (int)size);
}

/* Begins a session writing report `name` in the test directory. */
static nvtxwSessionHandle_t begin_report(const char* name) {
    nvtxwSessionAttributes_t sattr;
    nvtxwSessionHandle_t session = NULL;
    char config[PATH_MAX + 64], path[PATH_MAX];
    path_in(path, sizeof path, name);
    snprintf(config, sizeof config, "Sink=report|Output=%s|Overwrite=yes", path);
    sattr.structSize = sizeof sattr;
    sattr.name = name;
    sattr.configString = config;
    ck_assert_int_eq(tu_get_interface_or_fail()->SessionBegin(&sattr, &session),
                     NVTXW_RESULT_SUCCESS);
    return session;
}

/* Domains "d" and "e"; in "d": strings "shared" and `own`, a static schema
 * (one uint64 field named `field`), a stream "s" with three counter
 * samples at base, base + 10, base + 20. */
static void write_input(const char* name, const char* own, const char* field, int64_t base) {
    const nvtxwInterface_t* t = tu_get_interface_or_fail();
    nvtxPayloadSchemaEntry_t entry;
    nvtxPayloadSchemaAttr_t schema;
    nvtxwSessionHandle_t session = begin_report(name);
    nvtxDomainHandle_t d, e;
    nvtxStringHandle_t s1, s2;
    nvtxwStreamHandle_t stream;
    uint64_t id = 0, counter = 0;
    memset(&entry, 0, sizeof entry);
    entry.type = NVTX_PAYLOAD_ENTRY_TYPE_UINT64;
    entry.name = field;
    ck_assert_int_eq(nvtxwDomainRegister(t, session, "d", &d), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(nvtxwDomainRegister(t, session, "e", &e), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(t->StringRegister(d, "shared", &s1), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(t->StringRegister(d, own, &s2), NVTXW_RESULT_SUCCESS);
    memset(&schema, 0, sizeof schema);
    schema.fieldMask =
        NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES |
        NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_SCHEMA_ID;
    schema.type = NVTX_PAYLOAD_SCHEMA_TYPE_STATIC;
    schema.entries = &entry;
    schema.numEntries = 1;
    schema.schemaId = STATIC_ID;
    ck_assert_int_eq(t->SchemaRegister(d, &schema, &id), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(nvtxwCounterInt64Register(t, d, "c", NULL, &counter), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(nvtxwStreamOpen(t, session, "s", d, "node/p", 0, &stream),
                     NVTXW_RESULT_SUCCESS);
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(nvtxwCounterInt64Write(t, stream, base + 10 * i, counter, i),
                         NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(t->SessionEnd(session), NVTXW_RESULT_SUCCESS);
}

typedef struct merged {
    int kinds[256];
    char streams[4][16];
    int64_t times[16];
    int samples;
} merged;

/* Replays inputs a and b (opened in time order) into merged.nvtxw and
 * counts its records by kind. */
static nvtxwResultCode_t merge(const char* a, const char* b, const nvtxw_replay_options_t* opts,
                               merged* out) {
    nvtxw_reader_options_t ropts = {sizeof ropts, NVTXW_READER_ORDER_TIME, 0};
    nvtxw_reader_t* readers[2] = {NULL, NULL};
    const nvtxw_record_t* rec;
    char pa[PATH_MAX], pb[PATH_MAX], po[PATH_MAX], config[PATH_MAX + 64];
    nvtxwResultCode_t status;
    path_in(pa, sizeof pa, a);
    path_in(pb, sizeof pb, b);
    path_in(po, sizeof po, "merged.nvtxw");
    snprintf(config, sizeof config, "Sink=report|Output=%s|Overwrite=yes", po);
    ck_assert_msg(nvtxw_reader_open(pa, &ropts, &readers[0]) == NVTXW_RESULT_SUCCESS, "%s",
                  nvtxw_last_error());
    ck_assert_int_eq(nvtxw_reader_open(pb, &ropts, &readers[1]), NVTXW_RESULT_SUCCESS);
    status = nvtxw_reader_replay_many(readers, 2, tu_get_interface_or_fail(), config, opts, NULL);
    nvtxw_reader_close(readers[0]);
    nvtxw_reader_close(readers[1]);
    if (status != NVTXW_RESULT_SUCCESS)
        return status;
    memset(out, 0, sizeof *out);
    ck_assert_int_eq(nvtxw_reader_open(po, NULL, &readers[0]), NVTXW_RESULT_SUCCESS);
    while (nvtxw_reader_next(readers[0], &rec) == NVTXW_RESULT_SUCCESS && rec != NULL) {
        int k = out->kinds[rec->kind]++;
        if (rec->kind == NVTXW_RECORD_STREAM_OPEN && k < 4)
            snprintf(out->streams[k], sizeof out->streams[k], "%s", rec->u.stream_open.name);
        if (rec->kind == NVTXW_RECORD_COUNTER_SAMPLE && out->samples < 16)
            out->times[out->samples++] = rec->timestamp;
    }
    /* the chunks declare exactly the records read */
    ck_assert_uint_eq(nvtxw_reader_record_total(readers[0]), nvtxw_reader_record_count(readers[0]));
    nvtxw_reader_close(readers[0]);
    return NVTXW_RESULT_SUCCESS;
}

static void setup(void) { tu_make_temp_dir_or_fail(dir, sizeof dir, "nvtxw-merge"); }
static void teardown(void) { tu_remove_tree(dir); }

START_TEST(test_unified) {
    merged m;
    write_input("a.nvtxw", "only a", "x", 0);
    write_input("b.nvtxw", "only b", "x", 5);
    ck_assert_int_eq(merge("a.nvtxw", "b.nvtxw", NULL, &m), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(m.kinds[NVTXW_RECORD_SESSION], 1);
    ck_assert_int_eq(m.kinds[NVTXW_RECORD_DOMAIN], 2);
    ck_assert_int_eq(m.kinds[NVTXW_RECORD_STRING], 3);  /* "shared" once */
    ck_assert_int_eq(m.kinds[NVTXW_RECORD_SCHEMA], 1);  /* identical static ID */
    ck_assert_int_eq(m.kinds[NVTXW_RECORD_COUNTER], 2); /* dynamic: remapped */
    ck_assert_int_eq(m.kinds[NVTXW_RECORD_STREAM_OPEN], 2);
    ck_assert_str_eq(m.streams[0], "s");
    ck_assert_str_eq(m.streams[1], "s#2");
    ck_assert_int_eq(m.kinds[NVTXW_RECORD_COUNTER_SAMPLE], 6);
}
END_TEST

/* ---- Static IDs registered differently by two inputs ---------------------- */

#define CLASH_SCOPE (NVTX_SCOPE_ID_STATIC_START + 3)
#define CLASH_CLOCK (NVTX_TIME_DOMAIN_ID_STATIC_START + 4)
#define CLASH_COUNTER (NVTX_COUNTER_ID_STATIC_START + 5)
#define CLASH_CATEGORY 5

typedef struct clash_event {
    uint64_t value;
    uint32_t category;
    uint32_t pad;
} clash_event;

/* Domain "d" with static IDs that each input registers with its own
 * attributes (`v` = 'a', 'b', ...): schema STATIC_ID (field "v<v>" and a
 * category), category 5 "cat <v>", scope "/v<v>", a time domain of
 * resolution 1000 + v, counter "count <v>"; a stream "s" on that scope and
 * clock with one event (value v, category 5) and one sample (value v). */
static void write_clash_input(const char* name, char v) {
    const nvtxwInterface_t* t = tu_get_interface_or_fail();
    nvtxPayloadSchemaEntry_t entries[2];
    nvtxPayloadSchemaAttr_t schema;
    nvtxScopeAttr_t scope = {sizeof scope, NULL, NVTX_SCOPE_ROOT, CLASH_SCOPE};
    nvtxTimeDomainAttr_t clock;
    nvtxCounterAttr_t counter;
    nvtxwStreamAttributes_t sattr;
    nvtxwSessionHandle_t session = begin_report(name);
    nvtxDomainHandle_t d;
    nvtxwStreamHandle_t stream;
    clash_event ev = {(uint64_t)v, CLASH_CATEGORY, 0};
    nvtxPayloadData_t payload = {STATIC_ID, sizeof ev, &ev};
    uint64_t id = 0;
    int64_t sample = v;
    char field[8], category[16], scope_path[8], counter_name[16];
    snprintf(field, sizeof field, "v%c", v);
    snprintf(category, sizeof category, "cat %c", v);
    snprintf(scope_path, sizeof scope_path, "/v%c", v);
    snprintf(counter_name, sizeof counter_name, "count %c", v);
    ck_assert_int_eq(nvtxwDomainRegister(t, session, "d", &d), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(t->CategoryRegister(d, CLASH_CATEGORY, category), NVTXW_RESULT_SUCCESS);
    memset(entries, 0, sizeof entries);
    entries[0].type = NVTX_PAYLOAD_ENTRY_TYPE_UINT64;
    entries[0].name = field;
    entries[1].type = NVTX_PAYLOAD_ENTRY_TYPE_CATEGORY;
    entries[1].name = "category";
    entries[1].offset = offsetof(clash_event, category);
    memset(&schema, 0, sizeof schema);
    schema.fieldMask =
        NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES |
        NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_SCHEMA_ID |
        NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_STATIC_SIZE;
    schema.type = NVTX_PAYLOAD_SCHEMA_TYPE_STATIC;
    schema.entries = entries;
    schema.numEntries = 2;
    schema.payloadStaticSize = sizeof(clash_event);
    schema.schemaId = STATIC_ID;
    ck_assert_int_eq(t->SchemaRegister(d, &schema, &id), NVTXW_RESULT_SUCCESS);
    scope.path = scope_path;
    ck_assert_int_eq(t->ScopeRegister(d, &scope, &id), NVTXW_RESULT_SUCCESS);
    memset(&clock, 0, sizeof clock);
    clock.timestampTypeId = NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_MONOTONIC;
    clock.timeDomainId = CLASH_CLOCK;
    clock.timerResolution = 1000 + v;
    ck_assert_int_eq(t->TimeDomainRegister(d, &clock, &id), NVTXW_RESULT_SUCCESS);
    memset(&counter, 0, sizeof counter);
    counter.structSize = sizeof counter;
    counter.schemaId = NVTX_PAYLOAD_ENTRY_TYPE_INT64;
    counter.name = counter_name;
    counter.counterId = CLASH_COUNTER;
    ck_assert_int_eq(t->CounterRegister(d, &counter, &id), NVTXW_RESULT_SUCCESS);
    memset(&sattr, 0, sizeof sattr);
    sattr.structSize = sizeof sattr;
    sattr.name = "s";
    sattr.domain = d;
    sattr.scopeId = CLASH_SCOPE;
    sattr.timeDomainId = CLASH_CLOCK;
    ck_assert_int_eq(t->StreamOpen(session, &sattr, &stream), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(t->EventWrite(stream, &payload, 1), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(t->CounterWrite(stream, 7, CLASH_COUNTER, &sample, sizeof sample),
                     NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(t->SessionEnd(session), NVTXW_RESULT_SUCCESS);
}

/* What a merged stream refers to, by name (looked up in the registrations
 * of the merged report). */
typedef struct clash_view {
    char field[8], category[16], scope[8], counter[16];
    int64_t resolution;
    uint64_t value;
    int64_t sample;
} clash_view;

#define CLASH_TABLE 8
typedef struct clash_regs {
    uint64_t ids[CLASH_TABLE];
    char names[CLASH_TABLE][16];
    int64_t numbers[CLASH_TABLE];
    int count;
} clash_regs;

static void regs_add(clash_regs* r, uint64_t id, const char* name, int64_t number) {
    ck_assert_int_lt(r->count, CLASH_TABLE);
    r->ids[r->count] = id;
    snprintf(r->names[r->count], sizeof r->names[0], "%s", name ? name : "");
    r->numbers[r->count++] = number;
}

static int regs_find(const clash_regs* r, uint64_t id) {
    for (int i = 0; i < r->count; i++)
        if (r->ids[i] == id)
            return i;
    ck_abort_msg("ID %llu was not registered in the merged report", (unsigned long long)id);
    return -1;
}

/* Reads `path` and resolves every stream's references through its
 * registrations into views[stream]; returns the number of streams. */
static int clash_read(const char* path, clash_view* views, int max) {
    clash_regs schemas = {0}, categories = {0}, scopes = {0}, clocks = {0}, counters = {0};
    nvtxw_reader_t* reader = NULL;
    const nvtxw_record_t* rec;
    int streams = 0;
    ck_assert_int_eq(nvtxw_reader_open(path, NULL, &reader), NVTXW_RESULT_SUCCESS);
    while (nvtxw_reader_next(reader, &rec) == NVTXW_RESULT_SUCCESS && rec != NULL) {
        clash_view* v = rec->stream < (uint64_t)max ? &views[rec->stream] : NULL;
        nvtxPayloadSchemaAttr_t a;
        switch (rec->kind) {
        case NVTXW_RECORD_SCHEMA:
            nvtxw_schema_get_attr(rec->u.schema.schema, &a);
            regs_add(&schemas, nvtxw_schema_id(rec->u.schema.schema), a.entries[0].name, 0);
            break;
        case NVTXW_RECORD_CATEGORY:
            regs_add(&categories, rec->u.category.id, rec->u.category.name, 0);
            break;
        case NVTXW_RECORD_SCOPE:
            regs_add(&scopes, rec->u.scope.id, rec->u.scope.path, 0);
            break;
        case NVTXW_RECORD_TIME_DOMAIN:
            regs_add(&clocks, rec->u.time_domain.attr.timeDomainId, NULL,
                     rec->u.time_domain.attr.timerResolution);
            break;
        case NVTXW_RECORD_COUNTER:
            regs_add(&counters, rec->u.counter.attr.counterId, rec->u.counter.attr.name, 0);
            break;
        case NVTXW_RECORD_STREAM_OPEN:
            ck_assert_ptr_nonnull(v);
            memset(v, 0, sizeof *v);
            snprintf(v->scope, sizeof v->scope, "%s",
                     scopes.names[regs_find(&scopes, rec->u.stream_open.scope_id)]);
            v->resolution = clocks.numbers[regs_find(&clocks, rec->u.stream_open.time_domain_id)];
            streams++;
            break;
        case NVTXW_RECORD_EVENT: {
            clash_event ev;
            ck_assert_ptr_nonnull(v);
            ck_assert_uint_eq(rec->u.event.payloads[0].size, sizeof ev);
            memcpy(&ev, rec->u.event.payloads[0].payload, sizeof ev);
            v->value = ev.value;
            snprintf(v->field, sizeof v->field, "%s",
                     schemas.names[regs_find(&schemas, rec->u.event.payloads[0].schemaId)]);
            snprintf(v->category, sizeof v->category, "%s",
                     categories.names[regs_find(&categories, ev.category)]);
            break;
        }
        case NVTXW_RECORD_COUNTER_SAMPLE:
            ck_assert_ptr_nonnull(v);
            memcpy(&v->sample, rec->u.counter_sample.data, sizeof v->sample);
            snprintf(v->counter, sizeof v->counter, "%s",
                     counters.names[regs_find(&counters, rec->u.counter_sample.counter_id)]);
            break;
        default:
            break;
        }
    }
    nvtxw_reader_close(reader);
    return streams;
}

static void expect_view(const clash_view* v, char c) {
    char text[16];
    ck_assert_uint_eq(v->value, (uint64_t)c);
    ck_assert_int_eq(v->sample, c);
    snprintf(text, sizeof text, "v%c", c);
    ck_assert_str_eq(v->field, text);
    snprintf(text, sizeof text, "cat %c", c);
    ck_assert_str_eq(v->category, text);
    snprintf(text, sizeof text, "/v%c", c);
    ck_assert_str_eq(v->scope, text);
    snprintf(text, sizeof text, "count %c", c);
    ck_assert_str_eq(v->counter, text);
    ck_assert_int_eq(v->resolution, 1000 + c);
}

typedef struct renumber_log {
    char lines[16][160];
    int count;
} renumber_log;

static void log_renumber(void* context, const nvtxw_replay_renumbered_t* r) {
    renumber_log* log = context;
    const char* in = strrchr(r->input_path, '/');
    const char* first = strrchr(r->first_path, '/');
    ck_assert_uint_eq(r->struct_size, sizeof *r);
    ck_assert_uint_ne(r->id, r->renumbered);
    if (log->count < 16)
        snprintf(log->lines[log->count], sizeof log->lines[0], "%s %llu %s %s %s", r->kind,
                 (unsigned long long)r->id, r->domain, in ? in + 1 : r->input_path,
                 first ? first + 1 : r->first_path);
    log->count++;
}

static int logged(const renumber_log* log, const char* line) {
    for (int i = 0; i < log->count && i < 16; i++)
        if (strcmp(log->lines[i], line) == 0)
            return 1;
    return 0;
}

/* a, b, c with b == c: b's static IDs are renumbered once and c shares b's
 * new IDs; every stream still refers to its own input's registrations. */
START_TEST(test_static_clash_renumbered) {
    nvtxw_replay_options_t opts;
    renumber_log log;
    nvtxw_reader_t* readers[3];
    const char* names[3] = {"a.nvtxw", "b.nvtxw", "c.nvtxw"};
    char path[PATH_MAX], config[PATH_MAX + 64], line[160];
    clash_view views[4];
    merged m;
    memset(&log, 0, sizeof log);
    memset(&opts, 0, sizeof opts);
    opts.struct_size = sizeof opts;
    opts.on_renumber = log_renumber;
    opts.renumber_context = &log;
    write_clash_input("a.nvtxw", 'a');
    write_clash_input("b.nvtxw", 'b');
    write_clash_input("c.nvtxw", 'b');
    for (int i = 0; i < 3; i++) {
        path_in(path, sizeof path, names[i]);
        ck_assert_int_eq(nvtxw_reader_open(path, NULL, &readers[i]), NVTXW_RESULT_SUCCESS);
    }
    path_in(path, sizeof path, "merged.nvtxw");
    snprintf(config, sizeof config, "Sink=report|Output=%s|Overwrite=yes", path);
    ck_assert_int_eq(
        nvtxw_reader_replay_many(readers, 3, tu_get_interface_or_fail(), config, &opts, NULL),
        NVTXW_RESULT_SUCCESS);
    for (int i = 0; i < 3; i++)
        nvtxw_reader_close(readers[i]);
    /* five kinds, told for b and for c (which shares b's new IDs) */
    ck_assert_int_eq(log.count, 10);
    snprintf(line, sizeof line, "schema %d d b.nvtxw a.nvtxw", STATIC_ID);
    ck_assert_msg(logged(&log, line), "missing: %s", line);
    snprintf(line, sizeof line, "category %d d c.nvtxw a.nvtxw", CLASH_CATEGORY);
    ck_assert_msg(logged(&log, line), "missing: %s", line);
    snprintf(line, sizeof line, "scope %d d b.nvtxw a.nvtxw", CLASH_SCOPE);
    ck_assert_msg(logged(&log, line), "missing: %s", line);
    snprintf(line, sizeof line, "time domain %d d b.nvtxw a.nvtxw", CLASH_CLOCK);
    ck_assert_msg(logged(&log, line), "missing: %s", line);
    snprintf(line, sizeof line, "counter %d d c.nvtxw a.nvtxw", CLASH_COUNTER);
    ck_assert_msg(logged(&log, line), "missing: %s", line);
    ck_assert_int_eq(clash_read(path, views, 4), 3);
    expect_view(&views[0], 'a');
    expect_view(&views[1], 'b');
    expect_view(&views[2], 'b');
    /* one registration per distinct set of attributes */
    ck_assert_int_eq(merge("a.nvtxw", "b.nvtxw", NULL, &m), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(m.kinds[NVTXW_RECORD_SCHEMA], 2);
    ck_assert_int_eq(m.kinds[NVTXW_RECORD_CATEGORY], 2);
    ck_assert_int_eq(m.kinds[NVTXW_RECORD_SCOPE], 2);
    ck_assert_int_eq(m.kinds[NVTXW_RECORD_TIME_DOMAIN], 2);
    ck_assert_int_eq(m.kinds[NVTXW_RECORD_COUNTER], 2);
}
END_TEST

/* The old clash: identical fields but another name is a different schema
 * too, and the merge keeps both without being told (on_renumber NULL). */
START_TEST(test_static_clash) {
    merged m;
    write_input("a.nvtxw", "only a", "x", 0);
    write_input("b.nvtxw", "only b", "y", 0);
    ck_assert_int_eq(merge("a.nvtxw", "b.nvtxw", NULL, &m), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(m.kinds[NVTXW_RECORD_SCHEMA], 2);
    ck_assert_int_eq(m.kinds[NVTXW_RECORD_COUNTER_SAMPLE], 6);
}
END_TEST

/* Time order across inputs, seen in the order of the text sink's lines. */
START_TEST(test_time_order) {
    nvtxw_reader_options_t ropts = {sizeof ropts, NVTXW_READER_ORDER_TIME, 0};
    nvtxw_replay_options_t opts;
    nvtxw_reader_t* readers[2] = {NULL, NULL};
    char pa[PATH_MAX], pb[PATH_MAX], po[PATH_MAX], config[PATH_MAX + 64];
    const char* want[] = {"ts=0 ", "ts=5 ", "ts=10 ", "ts=15 ", "ts=20 ", "ts=25 "};
    const char* p;
    char* text;
    memset(&opts, 0, sizeof opts);
    opts.struct_size = sizeof opts;
    opts.order = NVTXW_READER_ORDER_TIME;
    write_input("a.nvtxw", "only a", "x", 0);
    write_input("b.nvtxw", "only b", "x", 5);
    path_in(pa, sizeof pa, "a.nvtxw");
    path_in(pb, sizeof pb, "b.nvtxw");
    path_in(po, sizeof po, "merged.txt");
    snprintf(config, sizeof config, "Sink=text|Output=%s|Overwrite=yes", po);
    ck_assert_msg(nvtxw_reader_open(pa, &ropts, &readers[0]) == NVTXW_RESULT_SUCCESS, "%s",
                  nvtxw_last_error());
    ck_assert_int_eq(nvtxw_reader_open(pb, &ropts, &readers[1]), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(
        nvtxw_reader_replay_many(readers, 2, tu_get_interface_or_fail(), config, &opts, NULL),
        NVTXW_RESULT_SUCCESS);
    nvtxw_reader_close(readers[0]);
    nvtxw_reader_close(readers[1]);
    text = tu_read_file_or_fail(po, NULL);
    p = text;
    for (int i = 0; i < 6; i++) {
        p = strstr(p, "counter_sample");
        ck_assert_ptr_nonnull(p);
        p = strstr(p, want[i]);
        ck_assert_msg(p != NULL && strstr(text, want[i]) == p, "sample %d is not at %s", i,
                      want[i]);
    }
    free(text);
}
END_TEST

START_TEST(test_filters) {
    merged m;
    const char* domains[] = {"e"};
    const char* streams[] = {"nothing*", "s"};
    nvtxw_replay_options_t opts;
    memset(&opts, 0, sizeof opts);
    opts.struct_size = sizeof opts;
    opts.domains = domains;
    opts.domain_pattern_count = 1;
    write_input("a.nvtxw", "only a", "x", 0);
    write_input("b.nvtxw", "only b", "y", 5); /* the clash is in the dropped domain */
    ck_assert_int_eq(merge("a.nvtxw", "b.nvtxw", &opts, &m), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(m.kinds[NVTXW_RECORD_DOMAIN], 1);
    ck_assert_int_eq(m.kinds[NVTXW_RECORD_STRING] + m.kinds[NVTXW_RECORD_STREAM_OPEN], 0);
    memset(&opts, 0, sizeof opts);
    opts.struct_size = sizeof opts;
    opts.streams = streams;
    opts.stream_pattern_count = 2;
    opts.has_from = opts.has_to = 1;
    opts.from = 5;
    opts.to = 20;
    write_input("b.nvtxw", "only b", "x", 5);
    ck_assert_int_eq(merge("a.nvtxw", "b.nvtxw", &opts, &m), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(m.kinds[NVTXW_RECORD_STREAM_OPEN], 2);
    ck_assert_int_eq(m.kinds[NVTXW_RECORD_COUNTER_SAMPLE], 4); /* 10 20 | 5 15 */
}
END_TEST

/* A report with streams "a[1]", "a1" and "b*", one counter sample each. */
static void write_glob_names(const char* name) {
    const nvtxwInterface_t* t = tu_get_interface_or_fail();
    const char* streams[] = {"a[1]", "a1", "b*"};
    nvtxwSessionHandle_t session = begin_report(name);
    nvtxDomainHandle_t d;
    uint64_t counter = 0;
    ck_assert_int_eq(nvtxwDomainRegister(t, session, "d", &d), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(nvtxwCounterInt64Register(t, d, "c", NULL, &counter), NVTXW_RESULT_SUCCESS);
    for (int i = 0; i < 3; i++) {
        nvtxwStreamHandle_t stream;
        ck_assert_int_eq(nvtxwStreamOpen(t, session, streams[i], d, "node/p", 0, &stream),
                         NVTXW_RESULT_SUCCESS);
        ck_assert_int_eq(nvtxwCounterInt64Write(t, stream, i, counter, i), NVTXW_RESULT_SUCCESS);
    }
    ck_assert_int_eq(t->SessionEnd(session), NVTXW_RESULT_SUCCESS);
}

/* The streams of "globs.nvtxw" merged with "empty.nvtxw" kept by
 * `patterns`, in order, "|"-joined. */
static void kept_streams(const char* const* patterns, size_t count, char* out, size_t size) {
    nvtxw_replay_options_t opts;
    merged m;
    memset(&opts, 0, sizeof opts);
    opts.struct_size = sizeof opts;
    opts.streams = patterns;
    opts.stream_pattern_count = count;
    ck_assert_int_eq(merge("globs.nvtxw", "empty.nvtxw", &opts, &m), NVTXW_RESULT_SUCCESS);
    out[0] = '\0';
    for (int i = 0; i < m.kinds[NVTXW_RECORD_STREAM_OPEN] && i < 4; i++)
        snprintf(out + strlen(out), size - strlen(out), "%s%s", i ? "|" : "", m.streams[i]);
    ck_assert_int_eq(m.kinds[NVTXW_RECORD_COUNTER_SAMPLE], m.kinds[NVTXW_RECORD_STREAM_OPEN]);
}

/* A pattern that is a stream's exact name matches that stream only, glob
 * characters and all; any other pattern is a glob. */
START_TEST(test_exact_names_first) {
    const char* exact[] = {"a[1]"};
    const char* glob[] = {"a[1x]"};
    const char* star[] = {"b*"};
    const char* both[] = {"b*", "a?"};
    char kept[64];
    write_glob_names("globs.nvtxw");
    write_input("empty.nvtxw", "only", "x", 0); /* its stream "s" matches none */
    kept_streams(exact, 1, kept, sizeof kept);
    ck_assert_str_eq(kept, "a[1]");
    kept_streams(glob, 1, kept, sizeof kept);
    ck_assert_str_eq(kept, "a1");
    kept_streams(star, 1, kept, sizeof kept);
    ck_assert_str_eq(kept, "b*");
    kept_streams(both, 2, kept, sizeof kept);
    ck_assert_str_eq(kept, "a1|b*");
    ck_assert_str_eq(nvtxw_reader_stream_name(NULL, 0) == NULL ? "null" : "set", "null");
}
END_TEST

static int stop_on_second_poll(void* context) {
    int* polls = context;
    return ++*polls >= 2;
}

/* should_stop is polled every 1024 records: a replay it stops fails with a
 * message saying so, and the session is still ended (a readable report). */
START_TEST(test_should_stop) {
    const nvtxwInterface_t* t = tu_get_interface_or_fail();
    nvtxw_replay_options_t opts;
    nvtxw_reader_t* reader = NULL;
    nvtxwSessionHandle_t session = begin_report("many.nvtxw");
    nvtxwStreamHandle_t stream;
    nvtxDomainHandle_t d;
    uint64_t counter = 0, records = 0;
    char path[PATH_MAX], config[PATH_MAX + 64];
    int polls = 0;
    merged m;
    ck_assert_int_eq(nvtxwDomainRegister(t, session, "d", &d), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(nvtxwCounterInt64Register(t, d, "c", NULL, &counter), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(nvtxwStreamOpen(t, session, "s", d, "node/p", 0, &stream),
                     NVTXW_RESULT_SUCCESS);
    for (int i = 0; i < 5000; i++)
        ck_assert_int_eq(nvtxwCounterInt64Write(t, stream, i, counter, i), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(t->SessionEnd(session), NVTXW_RESULT_SUCCESS);
    memset(&opts, 0, sizeof opts);
    opts.struct_size = sizeof opts;
    opts.should_stop = stop_on_second_poll;
    opts.stop_context = &polls;
    path_in(path, sizeof path, "many.nvtxw");
    ck_assert_int_eq(nvtxw_reader_open(path, NULL, &reader), NVTXW_RESULT_SUCCESS);
    path_in(path, sizeof path, "stopped.nvtxw");
    snprintf(config, sizeof config, "Sink=report|Output=%s|Overwrite=yes", path);
    ck_assert_int_eq(nvtxw_reader_replay_many(&reader, 1, t, config, &opts, &records),
                     NVTXW_RESULT_FAILED);
    ck_assert_msg(strstr(nvtxw_last_error(), "replay stopped by the caller after 1024 records"),
                  "message: %s", nvtxw_last_error());
    ck_assert_int_eq(polls, 2);
    ck_assert_uint_eq(records, 1024);
    nvtxw_reader_close(reader);
    /* the first 1024 records: the registrations and the first samples */
    ck_assert_int_eq(merge("stopped.nvtxw", "stopped.nvtxw", NULL, &m), NVTXW_RESULT_SUCCESS);
    ck_assert_int_gt(m.kinds[NVTXW_RECORD_COUNTER_SAMPLE], 2 * 1000);
    ck_assert_int_lt(m.kinds[NVTXW_RECORD_COUNTER_SAMPLE], 2 * 1024);
}
END_TEST

/* ---- Stream records on several threads (opts.threads) -------------------- */

#define THREAD_STREAMS 7

/* Report `name`: domains "d" and "e", THREAD_STREAMS streams of very
 * different lengths (stream k: scale * k + 3 records), each with counter
 * samples and UTF-8 marks ("k:i" messages), times base + i. */
static void write_streams_input(const char* name, int64_t base, int scale) {
    const nvtxwInterface_t* t = tu_get_interface_or_fail();
    nvtxwSessionHandle_t session = begin_report(name);
    nvtxDomainHandle_t domains[2];
    nvtxwEventHelperSchemaIds_t ids[2];
    uint64_t counters[2] = {0, 0};
    ck_assert_int_eq(nvtxwDomainRegister(t, session, "d", &domains[0]), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(nvtxwDomainRegister(t, session, "e", &domains[1]), NVTXW_RESULT_SUCCESS);
    for (int d = 0; d < 2; d++) {
        ck_assert_int_eq(
            nvtxwEventSchemasRegister(t, domains[d], NVTXW_EVENT_HELPER_SCHEMA_ALL, &ids[d]),
            NVTXW_RESULT_SUCCESS);
        ck_assert_int_eq(nvtxwCounterInt64Register(t, domains[d], "c", NULL, &counters[d]),
                         NVTXW_RESULT_SUCCESS);
    }
    for (int k = 0; k < THREAD_STREAMS; k++) {
        nvtxwStreamHandle_t stream;
        nvtxwEventWriter_t writer;
        nvtxwEventAttributesUtf8_t attr;
        char stream_name[16], message[32];
        int d = k % 2;
        snprintf(stream_name, sizeof stream_name, "s%d", k);
        ck_assert_int_eq(nvtxwStreamOpen(t, session, stream_name, domains[d], "node/p", 0, &stream),
                         NVTXW_RESULT_SUCCESS);
        nvtxwEventWriterInit(&writer, t, stream, &ids[d]);
        for (int i = 0; i < scale * k + 3; i++) {
            if (i % 3 == 0) {
                memset(&attr, 0, sizeof attr);
                snprintf(message, sizeof message, "%d:%d", k, i);
                attr.message = message;
                ck_assert_int_eq(nvtxwMarkWriteUtf8(&writer, base + i, attr), NVTXW_RESULT_SUCCESS);
            } else {
                ck_assert_int_eq(nvtxwCounterInt64Write(t, stream, base + i, counters[d], i * k),
                                 NVTXW_RESULT_SUCCESS);
            }
        }
    }
    ck_assert_int_eq(t->SessionEnd(session), NVTXW_RESULT_SUCCESS);
}

/* Appends what a record says: kind, stream, time, and its counter value or
 * its payload bytes (the mark's message, its string as written). */
static void describe_record(const nvtxw_record_t* rec, char** text, size_t* length,
                            size_t* capacity) {
    char line[256];
    int n = snprintf(line, sizeof line, "%d %lld %lld", (int)rec->kind, (long long)rec->stream,
                     rec->has_timestamp ? (long long)rec->timestamp : -1LL);
    if (rec->kind == NVTXW_RECORD_COUNTER_SAMPLE && rec->u.counter_sample.size == 8) {
        int64_t v;
        memcpy(&v, rec->u.counter_sample.data, sizeof v);
        n += snprintf(line + n, sizeof line - (size_t)n, " =%lld", (long long)v);
    }
    if (rec->kind == NVTXW_RECORD_EVENT) {
        for (size_t i = 0; i < rec->u.event.count; i++) {
            const nvtxPayloadData_t* p = &rec->u.event.payloads[i];
            const unsigned char* b = p->payload;
            n += snprintf(line + n, sizeof line - (size_t)n, " [%zu:", (size_t)p->size);
            for (size_t j = 0; j < p->size && n < (int)sizeof line - 4; j++)
                n += snprintf(line + n, sizeof line - (size_t)n, "%02x", b[j]);
            n += snprintf(line + n, sizeof line - (size_t)n, "]");
        }
    }
    ck_assert_int_lt(n, (int)sizeof line - 2);
    line[n++] = '\n';
    if (*length + (size_t)n + 1 > *capacity) {
        *capacity = (*capacity + (size_t)n + 1) * 2;
        *text = realloc(*text, *capacity);
        ck_assert_ptr_nonnull(*text);
    }
    memcpy(*text + *length, line, (size_t)n);
    *length += (size_t)n;
    (*text)[*length] = '\0';
}

/* Replays inputs (stream order) on `threads` threads into `out` and
 * returns the output's records in stream order, one line each (malloc'd);
 * *records the records replayed, input_records[i] the records input i's
 * reader counted. */
static char* replay_threads(const char* const* inputs, size_t count, size_t threads,
                            const nvtxw_replay_options_t* base, const char* out, uint64_t* records,
                            uint64_t* input_records) {
    nvtxw_reader_t* readers[4] = {NULL};
    nvtxw_replay_options_t opts;
    const nvtxw_record_t* rec;
    char path[PATH_MAX], config[PATH_MAX + 64];
    char* text = NULL;
    size_t length = 0, capacity = 0;
    ck_assert_uint_le(count, 4);
    if (base != NULL)
        opts = *base;
    else
        memset(&opts, 0, sizeof opts);
    opts.struct_size = sizeof opts;
    opts.threads = threads;
    for (size_t i = 0; i < count; i++) {
        path_in(path, sizeof path, inputs[i]);
        ck_assert_int_eq(nvtxw_reader_open(path, NULL, &readers[i]), NVTXW_RESULT_SUCCESS);
    }
    path_in(path, sizeof path, out);
    snprintf(config, sizeof config, "Sink=report|Output=%s|Overwrite=yes", path);
    ck_assert_msg(nvtxw_reader_replay_many(readers, count, tu_get_interface_or_fail(), config,
                                           &opts, records) == NVTXW_RESULT_SUCCESS,
                  "replay on %zu threads: %s", threads, nvtxw_last_error());
    for (size_t i = 0; i < count; i++) {
        input_records[i] = nvtxw_reader_record_count(readers[i]);
        ck_assert_uint_eq(nvtxw_reader_damage_count(readers[i]), 0);
        nvtxw_reader_close(readers[i]);
    }
    ck_assert_int_eq(nvtxw_reader_open(path, NULL, &readers[0]), NVTXW_RESULT_SUCCESS);
    while (nvtxw_reader_next(readers[0], &rec) == NVTXW_RESULT_SUCCESS && rec != NULL)
        describe_record(rec, &text, &length, &capacity);
    ck_assert_uint_eq(nvtxw_reader_damage_count(readers[0]), 0);
    nvtxw_reader_close(readers[0]);
    ck_assert_ptr_nonnull(text);
    return text;
}

/* On 2, 3 and 16 threads, two inputs of seven streams each (filtered or
 * not) give the output one thread gives, record for record in stream
 * order, and the same counts. */
START_TEST(test_threads_same_records) {
    static const char* const inputs[2] = {"a.nvtxw", "b.nvtxw"};
    static const char* const keep[2] = {"s[1-5]", "s0#2"};
    static const size_t threads[3] = {2, 3, 16};
    nvtxw_replay_options_t filtered;
    write_streams_input("a.nvtxw", 0, 300);
    write_streams_input("b.nvtxw", 100000, 300);
    memset(&filtered, 0, sizeof filtered);
    filtered.streams = keep;
    filtered.stream_pattern_count = 2;
    filtered.has_from = 1;
    filtered.from = 7;
    filtered.has_to = 1;
    filtered.to = 1500;
    for (int f = 0; f < 2; f++) {
        const nvtxw_replay_options_t* opts = f ? &filtered : NULL;
        uint64_t records1 = 0, counts1[2], records = 0, counts[2];
        char* one = replay_threads(inputs, 2, 1, opts, "one.nvtxw", &records1, counts1);
        ck_assert_uint_gt(tu_count_substr(one, "\n"), f ? 2000 : 2 * 6300);
        for (int i = 0; i < 3; i++) {
            char* many =
                replay_threads(inputs, 2, threads[i], opts, "many.nvtxw", &records, counts);
            char message[512] = "";
            ck_assert_msg(tu_first_line_difference("threaded replay", one, many, message,
                                                   sizeof message) == 0,
                          "%zu threads: %s", threads[i], message);
            ck_assert_uint_eq(records, records1);
            ck_assert_uint_eq(counts[0], counts1[0]);
            ck_assert_uint_eq(counts[1], counts1[1]);
            free(many);
        }
        free(one);
    }
}
END_TEST

/* On several threads should_stop is polled on the calling thread, which
 * does no replaying, as soon as the threads start and then every 20 ms; a
 * stop ends every worker, and the session is still ended. Here the first
 * poll is phase 1's (the session record), the second the threads' first. */
typedef struct poll_log {
    int polls;
    pthread_t last;
} poll_log;

static int stop_on_second_poll_logged(void* context) {
    poll_log* log = context;
    log->last = pthread_self();
    return ++log->polls >= 2;
}

START_TEST(test_threads_should_stop) {
    nvtxw_replay_options_t opts;
    nvtxw_reader_t* reader = NULL;
    char path[PATH_MAX], config[PATH_MAX + 64];
    poll_log log = {0, pthread_self()};
    pthread_t self = pthread_self();
    uint64_t records = 0;
    merged m;
    write_streams_input("big.nvtxw", 0, 3000);
    memset(&opts, 0, sizeof opts);
    opts.struct_size = sizeof opts;
    opts.should_stop = stop_on_second_poll_logged;
    opts.stop_context = &log;
    opts.threads = 2;
    path_in(path, sizeof path, "big.nvtxw");
    ck_assert_int_eq(nvtxw_reader_open(path, NULL, &reader), NVTXW_RESULT_SUCCESS);
    path_in(path, sizeof path, "stopped.nvtxw");
    snprintf(config, sizeof config, "Sink=report|Output=%s|Overwrite=yes", path);
    ck_assert_int_eq(
        nvtxw_reader_replay_many(&reader, 1, tu_get_interface_or_fail(), config, &opts, &records),
        NVTXW_RESULT_FAILED);
    ck_assert_msg(strstr(nvtxw_last_error(), "replay stopped by the caller"), "message: %s",
                  nvtxw_last_error());
    ck_assert_int_eq(log.polls, 2);
    ck_assert(pthread_equal(log.last, self));
    ck_assert_uint_lt(records, 21 * 3000); /* far from all */
    nvtxw_reader_close(reader);
    ck_assert_int_eq(merge("stopped.nvtxw", "stopped.nvtxw", NULL, &m), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(m.kinds[NVTXW_RECORD_SESSION], 1);
    ck_assert_int_eq(m.kinds[NVTXW_RECORD_STREAM_OPEN], 2 * THREAD_STREAMS);
}
END_TEST

/* Damage found by the threads' own readers is listed by the caller's
 * reader, once, as one thread lists it: "offset length reason" lines. */
static char* damage_list(nvtxw_reader_t* reader) {
    size_t capacity = 65536, length = 0;
    char* text = malloc(capacity);
    ck_assert_ptr_nonnull(text);
    text[0] = '\0';
    for (size_t i = 0; i < nvtxw_reader_damage_count(reader); i++) {
        uint64_t offset, size;
        const char* reason;
        ck_assert_int_eq(nvtxw_reader_damage(reader, i, &offset, &size, &reason),
                         NVTXW_RESULT_SUCCESS);
        length += (size_t)snprintf(text + length, capacity - length, "%llu %llu %s\n",
                                   (unsigned long long)offset, (unsigned long long)size, reason);
        ck_assert_uint_lt(length, capacity);
    }
    return text;
}

START_TEST(test_threads_damage) {
    char path[PATH_MAX], config[PATH_MAX + 64], *damage[2];
    uint64_t records[2], counted[2];
    const nvtxw_record_t* rec;
    size_t size;
    char* bytes;
    FILE* f;
    write_streams_input("a.nvtxw", 0, 700);
    path_in(path, sizeof path, "a.nvtxw");
    bytes = tu_read_file_or_fail(path, &size);
    for (size_t at = size / 3; at < size / 3 + 8; at++) /* inside event chunks */
        bytes[at] ^= 0x5a;
    for (size_t at = 2 * size / 3; at < 2 * size / 3 + 8; at++)
        bytes[at] ^= 0x5a;
    path_in(path, sizeof path, "damaged.nvtxw");
    f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(bytes, 1, size, f), size);
    fclose(f);
    free(bytes);
    for (int threaded = 0; threaded < 2; threaded++) {
        nvtxw_replay_options_t opts;
        nvtxw_reader_t* reader = NULL;
        memset(&opts, 0, sizeof opts);
        opts.struct_size = sizeof opts;
        opts.threads = threaded ? 3 : 1;
        ck_assert_int_eq(nvtxw_reader_open(path, NULL, &reader), NVTXW_RESULT_SUCCESS);
        snprintf(config, sizeof config, "Sink=null");
        ck_assert_msg(nvtxw_reader_replay_many(&reader, 1, tu_get_interface_or_fail(), config,
                                               &opts, &records[threaded]) == NVTXW_RESULT_SUCCESS,
                      "%s", nvtxw_last_error());
        damage[threaded] = damage_list(reader);
        ck_assert_uint_ge(nvtxw_reader_damage_count(reader), 2);
        /* the reader is left as one thread leaves it: read to the end */
        ck_assert_int_eq(nvtxw_reader_next(reader, &rec), NVTXW_RESULT_SUCCESS);
        ck_assert_ptr_null(rec);
        counted[threaded] = nvtxw_reader_record_count(reader);
        nvtxw_reader_close(reader);
    }
    /* the same damage in the same order (stream after stream), not sorted */
    ck_assert_str_eq(damage[0], damage[1]);
    ck_assert_uint_eq(records[0], records[1]);
    ck_assert_uint_eq(counted[0], counted[1]);
    free(damage[0]);
    free(damage[1]);
}
END_TEST

/* Threads that cannot open the inputs again (here: renamed since the
 * caller opened them) leave the replay to the calling thread, which
 * succeeds as one thread does. */
START_TEST(test_threads_fallback) {
    char from[PATH_MAX], to[PATH_MAX], config[PATH_MAX + 64];
    uint64_t records[2];
    for (int threaded = 0; threaded < 2; threaded++) {
        nvtxw_replay_options_t opts;
        nvtxw_reader_t* reader = NULL;
        write_streams_input("a.nvtxw", 0, 300);
        path_in(from, sizeof from, "a.nvtxw");
        path_in(to, sizeof to, "moved.nvtxw");
        ck_assert_int_eq(nvtxw_reader_open(from, NULL, &reader), NVTXW_RESULT_SUCCESS);
        ck_assert_int_eq(rename(from, to), 0);
        memset(&opts, 0, sizeof opts);
        opts.struct_size = sizeof opts;
        opts.threads = threaded ? 3 : 1;
        path_in(from, sizeof from, "out.nvtxw");
        snprintf(config, sizeof config, "Sink=report|Output=%s|Overwrite=yes", from);
        ck_assert_msg(nvtxw_reader_replay_many(&reader, 1, tu_get_interface_or_fail(), config,
                                               &opts, &records[threaded]) == NVTXW_RESULT_SUCCESS,
                      "%s", nvtxw_last_error());
        ck_assert_uint_eq(nvtxw_reader_record_count(reader), nvtxw_reader_record_total(reader));
        nvtxw_reader_close(reader);
    }
    ck_assert_uint_eq(records[0], records[1]);
    ck_assert_uint_gt(records[0], 6000);
}
END_TEST

/* A backend whose CounterWrite fails on one sample: stream s5's record
 * #101 (time 100, value 500; stream k writes i * k at time i). */
static const nvtxwInterface_t* real_backend;
static nvtxwResultCode_t failing_counter_write(nvtxwStreamHandle_t stream, int64_t timestamp,
                                               uint64_t counter, const void* value, size_t size) {
    int64_t v = 0;
    if (size == sizeof v)
        memcpy(&v, value, sizeof v);
    if (timestamp == 100 && v == 500)
        return NVTXW_RESULT_FAILED;
    return real_backend->CounterWrite(stream, timestamp, counter, value, size);
}

/* A failed stream record is named by its number within its stream, the
 * same on one thread and on several (a worker's reader reads only that
 * stream: its own count would say another number). */
START_TEST(test_threads_failure_names_record) {
    char path[PATH_MAX];
    nvtxwInterface_t failing;
    real_backend = tu_get_interface_or_fail();
    failing = *real_backend;
    failing.CounterWrite = failing_counter_write;
    write_streams_input("a.nvtxw", 0, 300);
    path_in(path, sizeof path, "a.nvtxw");
    for (int threaded = 0; threaded < 2; threaded++) {
        nvtxw_replay_options_t opts;
        nvtxw_reader_t* reader = NULL;
        uint64_t records = 0;
        char want[PATH_MAX + 64];
        memset(&opts, 0, sizeof opts);
        opts.struct_size = sizeof opts;
        opts.threads = threaded ? 3 : 1;
        ck_assert_int_eq(nvtxw_reader_open(path, NULL, &reader), NVTXW_RESULT_SUCCESS);
        ck_assert_int_ne(
            nvtxw_reader_replay_many(&reader, 1, &failing, "Sink=null", &opts, &records),
            NVTXW_RESULT_SUCCESS);
        snprintf(want, sizeof want, "cannot replay record 101 of stream 5 of \"%s\"", path);
        ck_assert_msg(strstr(nvtxw_last_error(), want) != NULL, "%d threads: %s", threaded ? 3 : 1,
                      nvtxw_last_error());
        nvtxw_reader_close(reader);
    }
}
END_TEST

START_TEST(test_bad_arguments) {
    nvtxw_reader_t* none[1] = {NULL};
    const nvtxwInterface_t* t = tu_get_interface_or_fail();
    uint64_t records = 7;
    ck_assert_int_eq(nvtxw_reader_replay_many(NULL, 1, t, NULL, NULL, &records),
                     NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_int_eq(records, 0);
    ck_assert_int_eq(nvtxw_reader_replay_many(none, 0, t, NULL, NULL, NULL),
                     NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_int_eq(nvtxw_reader_replay_many(none, 1, t, NULL, NULL, NULL),
                     NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_int_eq(nvtxw_reader_replay_many(none, 1, NULL, NULL, NULL, NULL),
                     NVTXW_RESULT_INVALID_ARGUMENT);
}
END_TEST

static Suite* merge_suite(void) {
    Suite* s = suite_create("merge");
    TCase* tc = tcase_create("replay_many");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120); /* the threads tests replay 100,000 records, slow under TSan */
    tcase_add_test(tc, test_unified);
    tcase_add_test(tc, test_static_clash);
    tcase_add_test(tc, test_static_clash_renumbered);
    tcase_add_test(tc, test_time_order);
    tcase_add_test(tc, test_filters);
    tcase_add_test(tc, test_exact_names_first);
    tcase_add_test(tc, test_should_stop);
    tcase_add_test(tc, test_threads_same_records);
    tcase_add_test(tc, test_threads_should_stop);
    tcase_add_test(tc, test_threads_damage);
    tcase_add_test(tc, test_threads_fallback);
    tcase_add_test(tc, test_threads_failure_names_record);
    tcase_add_test(tc, test_bad_arguments);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(merge_suite()); }
