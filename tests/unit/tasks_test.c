/*
 * tests/unit/tasks_test.c - the task model (nvtxw/tasks.h, schemas/tasks.yaml,
 * docs/tasks.md) through libnvtxw's backend into its sinks, and through a
 * recording table standing for any other backend:
 *   - layout: every payload struct of nvtxw/tasks.h matches its schema in
 *     schemas/tasks.yaml (static size, entry offsets, types, flags, IDs) and
 *     the enum's values match nvtxw_task_state_t;
 *   - any table: the helpers make exactly the expected calls (schema, enum
 *     and string registrations, escaped scope paths, payload bytes);
 *   - bad use: NULL arguments, zero IDs, a too small ids struct, an
 *     unregistered scope, end before begin, a state out of range, link 0,
 *     registering twice: NVTXW_RESULT_INVALID_ARGUMENT (or the backend's
 *     error), and nothing written;
 *   - Sink=json: one scenario (3 tasks, one recycled, on 2 workers: states,
 *     suspensions, a causal link, a steal, a sleep) checked by
 *     tests/unit/tasks_check.py (task rows, gaps, flows bound to the right
 *     slices) and exact lines here;
 *   - Sink=stats: the same scenario's task_sum and task_suspend_sum rows in
 *     CSV, text and JSON;
 *   - report round trip: the scenario as a report, read back (task scopes,
 *     the static schema IDs, every event) and replayed through the reader
 *     into Sink=stats and Sink=json: the same tables and the same JSON as
 *     written directly;
 *   - threads: 4 workers write task events at once into Sink=json and
 *     Sink=stats (run under TSan by scripts/test);
 *   - throughput (only with NVTXW_TASKS_BENCH_SLICES=N in the environment,
 *     as `make bench` does): MB/s of JSON for N task slices, each written
 *     on its worker's row and its task's row.
 */
#define _GNU_SOURCE
#include <check.h>
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "nvtxw/backend.h"
#include "nvtxw/error.h"
#include "nvtxw/helpers.h"
#include "nvtxw/payload.h"
#include "nvtxw/reader.h"
#include "nvtxw/schema_yaml.h"
#include "nvtxw/tasks.h"
#include "test_util.h"

#define OK(call) ck_assert_msg((call) == NVTXW_RESULT_SUCCESS, "%s: %s", #call, nvtxw_last_error())
#define BAD(call) ck_assert_int_eq((call), NVTXW_RESULT_INVALID_ARGUMENT)

static const nvtxwInterface_t* T;
static char dir[PATH_MAX];

static void setup(void) {
    T = tu_get_interface_or_fail();
    tu_make_temp_dir_or_fail(dir, sizeof dir, "nvtxw-tasks");
}

static void teardown(void) { ck_assert_int_eq(tu_remove_tree(dir), 0); }

static void path_in_dir(char* path, size_t size, const char* name) {
    ck_assert_int_lt(snprintf(path, size, "%s/%s", dir, name), (int)size);
}

static const char* srcdir(void) {
    const char* top = getenv("top_srcdir");
    ck_assert_msg(top != NULL, "top_srcdir is not set (run through make check)");
    return top;
}

/* ---- Layout: C structs against schemas/tasks.yaml ---------------------------- */

typedef struct layout {
    uint64_t id;
    const char* name;
    size_t size;
    size_t count;
    size_t offsets[8];
} layout;

static const layout layouts[] = {
    {NVTXW_TASK_SLICE_SCHEMA_ID,
     "nvtxw_task_slice",
     sizeof(nvtxw_task_slice_payload_t),
     5,
     {offsetof(nvtxw_task_slice_payload_t, begin), offsetof(nvtxw_task_slice_payload_t, end),
      offsetof(nvtxw_task_slice_payload_t, task), offsetof(nvtxw_task_slice_payload_t, name),
      offsetof(nvtxw_task_slice_payload_t, flow_in)}},
    {NVTXW_TASK_STATE_SCHEMA_ID,
     "nvtxw_task_state",
     sizeof(nvtxw_task_state_payload_t),
     6,
     {offsetof(nvtxw_task_state_payload_t, time), offsetof(nvtxw_task_state_payload_t, task),
      offsetof(nvtxw_task_state_payload_t, label), offsetof(nvtxw_task_state_payload_t, reason),
      offsetof(nvtxw_task_state_payload_t, suspended_at),
      offsetof(nvtxw_task_state_payload_t, state)}},
    {NVTXW_TASK_WAKE_SCHEMA_ID,
     "nvtxw_task_wake",
     sizeof(nvtxw_task_wake_payload_t),
     4,
     {offsetof(nvtxw_task_wake_payload_t, time), offsetof(nvtxw_task_wake_payload_t, task),
      offsetof(nvtxw_task_wake_payload_t, cause), offsetof(nvtxw_task_wake_payload_t, flow_out)}},
    {NVTXW_TASK_STEAL_SCHEMA_ID,
     "nvtxw_task_steal",
     sizeof(nvtxw_task_steal_payload_t),
     6,
     {offsetof(nvtxw_task_steal_payload_t, time), offsetof(nvtxw_task_steal_payload_t, task),
      offsetof(nvtxw_task_steal_payload_t, label), offsetof(nvtxw_task_steal_payload_t, thief),
      offsetof(nvtxw_task_steal_payload_t, victim),
      offsetof(nvtxw_task_steal_payload_t, victim_queue_depth)}},
    {NVTXW_WORKER_SLEEP_SCHEMA_ID,
     "nvtxw_worker_sleep",
     sizeof(nvtxw_worker_sleep_payload_t),
     4,
     {offsetof(nvtxw_worker_sleep_payload_t, begin), offsetof(nvtxw_worker_sleep_payload_t, end),
      offsetof(nvtxw_worker_sleep_payload_t, label),
      offsetof(nvtxw_worker_sleep_payload_t, reason)}},
};

START_TEST(test_layout_matches_yaml) {
    char path[PATH_MAX];
    nvtxw_schema_registry_t* registry = nvtxw_schema_registry_create();
    const nvtxw_enum_t* states;
    nvtxPayloadEnumAttr_t enum_attr;
    size_t i, j;
    snprintf(path, sizeof path, "%s/schemas/tasks.yaml", srcdir());
    ck_assert_ptr_nonnull(registry);
    OK(nvtxw_schema_yaml_load_file(registry, path));
    ck_assert_uint_eq(nvtxw_schema_registry_count(registry), 6);
    for (i = 0; i < sizeof layouts / sizeof layouts[0]; i++) {
        const nvtxw_schema_t* schema = nvtxw_schema_registry_find_schema(registry, layouts[i].id);
        nvtxPayloadSchemaAttr_t attr;
        ck_assert_msg(schema != NULL, "schema 0x%llx missing", (unsigned long long)layouts[i].id);
        nvtxw_schema_get_attr(schema, &attr);
        ck_assert_str_eq(nvtxw_schema_name(schema), layouts[i].name);
        ck_assert_uint_eq(attr.payloadStaticSize, layouts[i].size);
        ck_assert_uint_eq(nvtxw_schema_static_size(schema), layouts[i].size);
        ck_assert_uint_eq(attr.numEntries, layouts[i].count);
        for (j = 0; j < layouts[i].count; j++)
            ck_assert_msg(nvtxw_schema_entry_offset(schema, j) == layouts[i].offsets[j],
                          "%s entry %zu: YAML offset %zu, C offset %zu", layouts[i].name, j,
                          nvtxw_schema_entry_offset(schema, j), layouts[i].offsets[j]);
    }
    states = nvtxw_schema_registry_find_enum(registry, NVTXW_TASK_STATE_ENUM_ID);
    ck_assert_ptr_nonnull(states);
    nvtxw_enum_get_attr(states, &enum_attr);
    ck_assert_uint_eq(enum_attr.sizeOfEnum, sizeof(uint32_t));
    ck_assert_uint_eq(enum_attr.numEntries, NVTXW_TASK_STATE_COUNT);
    ck_assert_str_eq(enum_attr.entries[NVTXW_TASK_SUSPENDED - 1].name, "suspended");
    ck_assert_uint_eq(enum_attr.entries[NVTXW_TASK_SUSPENDED - 1].value, NVTXW_TASK_SUSPENDED);
    ck_assert_str_eq(enum_attr.entries[NVTXW_TASK_DELETED - 1].name, "deleted");
    ck_assert_uint_eq(enum_attr.entries[NVTXW_TASK_DELETED - 1].value, NVTXW_TASK_DELETED);
    nvtxw_schema_registry_destroy(registry);
}
END_TEST

/* The public structs' LP64 layouts (the ABI spec's reference model): they
 * only ever grow at the end. */
START_TEST(test_struct_layouts) {
    if (sizeof(void*) != 8 || sizeof(size_t) != 8)
        return; /* not LP64: the YAML comparison above still holds */
    ck_assert_uint_eq(offsetof(nvtxw_task_ids_t, struct_size), 0);
    ck_assert_uint_eq(offsetof(nvtxw_task_ids_t, state_enum), 8);
    ck_assert_uint_eq(offsetof(nvtxw_task_ids_t, slice), 16);
    ck_assert_uint_eq(offsetof(nvtxw_task_ids_t, state), 24);
    ck_assert_uint_eq(offsetof(nvtxw_task_ids_t, wake), 32);
    ck_assert_uint_eq(offsetof(nvtxw_task_ids_t, steal), 40);
    ck_assert_uint_eq(offsetof(nvtxw_task_ids_t, sleep), 48);
    ck_assert_uint_eq(offsetof(nvtxw_task_ids_t, state_names), 56);
    ck_assert_uint_eq(offsetof(nvtxw_task_ids_t, steal_name), 56 + 8 * NVTXW_TASK_STATE_COUNT);
    ck_assert_uint_eq(offsetof(nvtxw_task_ids_t, sleep_name), 64 + 8 * NVTXW_TASK_STATE_COUNT);
    ck_assert_uint_eq(sizeof(nvtxw_task_ids_t), 136);
    ck_assert_uint_eq(sizeof(nvtxw_task_slice_payload_t), 40);
    ck_assert_uint_eq(sizeof(nvtxw_task_state_payload_t), 48);
    ck_assert_uint_eq(offsetof(nvtxw_task_state_payload_t, state), 40);
    ck_assert_uint_eq(sizeof(nvtxw_task_wake_payload_t), 32);
    ck_assert_uint_eq(sizeof(nvtxw_task_steal_payload_t), 40);
    ck_assert_uint_eq(offsetof(nvtxw_task_steal_payload_t, victim_queue_depth), 32);
    ck_assert_uint_eq(sizeof(nvtxw_worker_sleep_payload_t), 32);
}
END_TEST

/* ---- Any table: a recording backend ------------------------------------------ */

/* What the recording table saw; one test at a time uses it. */
static struct {
    nvtxPayloadSchemaAttr_t schemas[8];
    char schema_names[8][32];
    size_t schema_count, enum_count, string_count, event_count;
    char scope_path[128];
    uint64_t scope_parent;
    nvtxPayloadData_t last;
    unsigned char last_bytes[64];
} rec;

static nvtxwResultCode_t rec_schema(nvtxDomainHandle_t d, const nvtxPayloadSchemaAttr_t* attr,
                                    uint64_t* out) {
    (void)d;
    ck_assert_uint_lt(rec.schema_count, 8);
    rec.schemas[rec.schema_count] = *attr;
    snprintf(rec.schema_names[rec.schema_count++], 32, "%s", attr->name);
    *out = attr->schemaId;
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t rec_enum(nvtxDomainHandle_t d, const nvtxPayloadEnumAttr_t* attr,
                                  uint64_t* out) {
    (void)d;
    rec.enum_count++;
    *out = attr->schemaId;
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t rec_string(nvtxDomainHandle_t d, const char* text,
                                    nvtxStringHandle_t* out) {
    (void)d, (void)text;
    *out = (nvtxStringHandle_t)(uintptr_t)(0x100 + rec.string_count++);
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t rec_scope(nvtxDomainHandle_t d, const nvtxScopeAttr_t* attr,
                                   uint64_t* out) {
    (void)d;
    snprintf(rec.scope_path, sizeof rec.scope_path, "%s", attr->path);
    rec.scope_parent = attr->parentScope;
    *out = 0x100000042ULL;
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t rec_event(nvtxwStreamHandle_t s, const nvtxPayloadData_t* p, size_t n) {
    (void)s;
    ck_assert_uint_eq(n, 1);
    ck_assert_uint_le(p->size, sizeof rec.last_bytes);
    rec.last = *p;
    memcpy(rec.last_bytes, p->payload, p->size);
    rec.event_count++;
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwInterface_t recording_table(void) {
    nvtxwInterface_t t;
    memset(&t, 0, sizeof t);
    memset(&rec, 0, sizeof rec);
    t.SchemaRegister = rec_schema;
    t.EnumRegister = rec_enum;
    t.StringRegister = rec_string;
    t.ScopeRegister = rec_scope;
    t.EventWrite = rec_event;
    return t;
}

#define FAKE_DOMAIN ((nvtxDomainHandle_t)(uintptr_t)0x10)
#define FAKE_STREAM ((nvtxwStreamHandle_t)(uintptr_t)0x20)

START_TEST(test_any_table) {
    nvtxwInterface_t t = recording_table();
    nvtxw_task_ids_t ids;
    nvtxw_task_wake_payload_t wake;
    nvtxw_task_state_payload_t state;
    uint64_t scope = 0;
    memset(&ids, 0, sizeof ids);
    ids.struct_size = sizeof ids;
    OK(nvtxw_task_schemas_register(&t, FAKE_DOMAIN, &ids));
    ck_assert_uint_eq(rec.enum_count, 1);
    ck_assert_uint_eq(rec.schema_count, 5);
    ck_assert_uint_eq(rec.string_count, NVTXW_TASK_STATE_COUNT + 2);
    ck_assert_str_eq(rec.schema_names[0], "nvtxw_task_slice");
    ck_assert_uint_eq(rec.schemas[0].flags, NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_STARTEND);
    ck_assert_uint_eq(rec.schemas[4].flags, NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_PUSHPOP);
    ck_assert_uint_eq(rec.schemas[1].payloadStaticSize, sizeof(nvtxw_task_state_payload_t));
    ck_assert_uint_eq(ids.slice, NVTXW_TASK_SLICE_SCHEMA_ID);
    ck_assert_uint_eq(ids.sleep, NVTXW_WORKER_SLEEP_SCHEMA_ID);
    ck_assert_uint_eq(ids.state_enum, NVTXW_TASK_STATE_ENUM_ID);
    ck_assert_ptr_eq(ids.sleep_name, (nvtxStringHandle_t)(uintptr_t)(0x100 + 9));

    OK(nvtxw_task_scope_register(&t, FAKE_DOMAIN, 77, "a/b[2]\\x", &scope));
    ck_assert_str_eq(rec.scope_path, "task[a\\/b\\[2\\]\\\\x]");
    ck_assert_uint_eq(rec.scope_parent, 77);
    ck_assert_uint_eq(scope, 0x100000042ULL);
    OK(nvtxw_task_scope_register_id(&t, FAKE_DOMAIN, 77, 12, 3, &scope));
    ck_assert_str_eq(rec.scope_path, "task[12.3]");
    OK(nvtxw_task_scope_register_id(&t, FAKE_DOMAIN, 77, 12, 0, &scope));
    ck_assert_str_eq(rec.scope_path, "task[12]");

    OK(nvtxw_task_wake_write(&t, FAKE_STREAM, &ids, scope, 4500, ids.steal_name, 77));
    ck_assert_uint_eq(rec.last.schemaId, NVTXW_TASK_WAKE_SCHEMA_ID);
    ck_assert_uint_eq(rec.last.size, sizeof wake);
    memcpy(&wake, rec.last_bytes, sizeof wake);
    ck_assert_int_eq(wake.time, 4500);
    ck_assert_uint_eq(wake.task, scope);
    ck_assert_ptr_eq(wake.cause, ids.steal_name);
    ck_assert_uint_eq(wake.flow_out, 77);

    /* The resumption: the slice, then the RESUMED mark naming the suspension. */
    OK(nvtxw_task_resume_write(&t, FAKE_STREAM, &ids, scope, NULL, 3000, ids.sleep_name, 6000, 7000,
                               77));
    ck_assert_uint_eq(rec.event_count, 3);
    ck_assert_uint_eq(rec.last.schemaId, NVTXW_TASK_STATE_SCHEMA_ID);
    memcpy(&state, rec.last_bytes, sizeof state);
    ck_assert_int_eq(state.time, 6000);
    ck_assert_int_eq(state.suspended_at, 3000);
    ck_assert_uint_eq(state.state, NVTXW_TASK_RESUMED);
    ck_assert_ptr_eq(state.label, ids.state_names[NVTXW_TASK_RESUMED - 1]);
    ck_assert_ptr_eq(state.reason, ids.sleep_name);
}
END_TEST

START_TEST(test_bad_use) {
    nvtxwInterface_t t = recording_table();
    nvtxw_task_ids_t ids, zero, small;
    uint64_t scope = 0;
    memset(&ids, 0, sizeof ids);
    ids.struct_size = sizeof ids;
    OK(nvtxw_task_schemas_register(&t, FAKE_DOMAIN, &ids));
    memset(&zero, 0, sizeof zero);
    zero.struct_size = sizeof zero;
    small = ids;
    small.struct_size = offsetof(nvtxw_task_ids_t, slice); /* covers state_enum only */

    BAD(nvtxw_task_schemas_register(NULL, FAKE_DOMAIN, &zero));
    BAD(nvtxw_task_schemas_register(&t, NULL, &zero));
    BAD(nvtxw_task_schemas_register(&t, FAKE_DOMAIN, NULL));
    BAD(nvtxw_task_schemas_register(&t, FAKE_DOMAIN, &small));
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "struct_size"));
    BAD(nvtxw_task_scope_register(&t, FAKE_DOMAIN, 1, NULL, &scope));
    BAD(nvtxw_task_scope_register(&t, FAKE_DOMAIN, 1, "", &scope));
    BAD(nvtxw_task_scope_register(&t, FAKE_DOMAIN, 1, "k", NULL));
    BAD(nvtxw_task_scope_register(&t, NULL, 1, "k", &scope));
    BAD(nvtxw_task_scope_register_id(NULL, FAKE_DOMAIN, 1, 1, 0, &scope));

    rec.event_count = 0;
    BAD(nvtxw_task_slice_write(NULL, FAKE_STREAM, &ids, 5, NULL, 1, 2, 0));
    BAD(nvtxw_task_slice_write(&t, NULL, &ids, 5, NULL, 1, 2, 0));
    BAD(nvtxw_task_slice_write(&t, FAKE_STREAM, NULL, 5, NULL, 1, 2, 0));
    BAD(nvtxw_task_slice_write(&t, FAKE_STREAM, &zero, 5, NULL, 1, 2, 0));
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "schema ID in ids is 0"));
    BAD(nvtxw_task_slice_write(&t, FAKE_STREAM, &small, 5, NULL, 1, 2, 0));
    BAD(nvtxw_task_slice_write(&t, FAKE_STREAM, &ids, 0, NULL, 1, 2, 0));
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "task scope is 0"));
    BAD(nvtxw_task_slice_write(&t, FAKE_STREAM, &ids, 5, NULL, 2, 1, 0));
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "before begin"));
    BAD(nvtxw_task_state_write(&t, FAKE_STREAM, &ids, 5, 1, (nvtxw_task_state_t)0, NULL));
    BAD(nvtxw_task_state_write(&t, FAKE_STREAM, &ids, 5, 1, (nvtxw_task_state_t)9, NULL));
    BAD(nvtxw_task_state_write(&t, FAKE_STREAM, &zero, 5, 1, NVTXW_TASK_CREATED, NULL));
    BAD(nvtxw_task_wake_write(&t, FAKE_STREAM, &ids, 5, 1, NULL, 0));
    BAD(nvtxw_task_wake_write(&t, FAKE_STREAM, &ids, 0, 1, NULL, 7));
    BAD(nvtxw_task_resume_write(&t, FAKE_STREAM, &ids, 5, NULL, 10, NULL, 5, 20, 7));
    BAD(nvtxw_task_resume_write(&t, FAKE_STREAM, &ids, 5, NULL, 1, NULL, 5, 4, 7));
    BAD(nvtxw_task_resume_write(&t, FAKE_STREAM, &zero, 5, NULL, 1, NULL, 5, 6, 7));
    zero.slice = ids.slice; /* the mark's schema still 0: not even the slice is written */
    BAD(nvtxw_task_resume_write(&t, FAKE_STREAM, &zero, 5, NULL, 1, NULL, 5, 6, 7));
    zero.slice = 0;
    BAD(nvtxw_task_steal_write(&t, FAKE_STREAM, &ids, 0, 1, 1, 0, 3));
    BAD(nvtxw_task_steal_write(&t, FAKE_STREAM, &zero, 5, 1, 1, 0, 3));
    BAD(nvtxw_worker_sleep_write(&t, FAKE_STREAM, &ids, 9, 8, NULL));
    BAD(nvtxw_worker_sleep_write(&t, FAKE_STREAM, &zero, 8, 9, NULL));
    BAD(nvtxw_worker_sleep_write(&t, NULL, &ids, 8, 9, NULL));
    ck_assert_uint_eq(rec.event_count, 0);
}
END_TEST

/* ---- The scenario ---------------------------------------------------------------- */

static nvtxwSessionHandle_t begin_session(const char* config) {
    nvtxwSessionAttributes_t attr;
    nvtxwSessionHandle_t session = NULL;
    nvtxwSessionAttributesInit(&attr);
    attr.name = "tasks";
    attr.configString = config;
    ck_assert_msg(T->SessionBegin(&attr, &session) == NVTXW_RESULT_SUCCESS, "%s: %s", config,
                  nvtxw_last_error());
    return session;
}

static nvtxwStreamHandle_t open_worker(nvtxwSessionHandle_t session, nvtxDomainHandle_t domain,
                                       uint64_t scope, const char* name) {
    nvtxwStreamAttributes_t attr;
    nvtxwStreamHandle_t stream = NULL;
    memset(&attr, 0, sizeof attr);
    attr.structSize = sizeof attr;
    attr.name = name;
    attr.domain = domain;
    attr.scopeId = scope;
    OK(T->StreamOpen(session, &attr, &stream));
    return stream;
}

/*
 * Process[7] with workers 0 and 1 and three tasks: 1 ("task[1]"), B
 * ("task[io\/read\[3\]]") and 1.1 (task 1's object recycled). Times in ns:
 *   w0: 1 created 1000; 1 runs 2000-3000, suspended (future) 3000; B runs
 *       3000-5000, suspended (future) 5000; wake of 1 (future set, link 77)
 *       4500; sleep 5000-8000 (no work)
 *   w1: steal of 1 at 5900 (thief 1, victim 0, depth 3); 1 resumed
 *       6000-7000 (suspended 3000, link 77); 1 completed 7000, deleted
 *       7100; 1.1 runs 7200-7500; B resumed 7600-7700 (suspended 5000,
 *       future); 1.1 resumed 7800-7900 (suspended 7500, no reason)
 */
static void write_scenario(const char* config) {
    nvtxwSessionHandle_t session = begin_session(config);
    nvtxDomainHandle_t domain = NULL;
    nvtxScopeAttr_t process = {sizeof process, "Process[7]", NVTX_SCOPE_ROOT, NVTX_SCOPE_NONE};
    nvtxw_task_ids_t ids;
    nvtxStringHandle_t fib, future, woke, idle;
    uint64_t proc = 0, a = 0, b = 0, a2 = 0;
    nvtxwStreamHandle_t w0, w1;
    OK(T->DomainRegister(session, NULL, &domain));
    memset(&ids, 0, sizeof ids);
    ids.struct_size = sizeof ids;
    OK(nvtxw_task_schemas_register(T, domain, &ids));
    OK(T->ScopeRegister(domain, &process, &proc));
    OK(nvtxw_task_scope_register_id(T, domain, proc, 1, 0, &a));
    OK(nvtxw_task_scope_register(T, domain, proc, "io/read[3]", &b));
    OK(nvtxw_task_scope_register_id(T, domain, proc, 1, 1, &a2));
    OK(T->StringRegister(domain, "fib", &fib));
    OK(T->StringRegister(domain, "future", &future));
    OK(T->StringRegister(domain, "future set", &woke));
    OK(T->StringRegister(domain, "no work", &idle));
    w0 = open_worker(session, domain, proc, "worker 0");
    w1 = open_worker(session, domain, proc, "worker 1");
    OK(nvtxw_task_state_write(T, w0, &ids, a, 1000, NVTXW_TASK_CREATED, NULL));
    OK(nvtxw_task_slice_write(T, w0, &ids, a, fib, 2000, 3000, 0));
    OK(nvtxw_task_state_write(T, w0, &ids, a, 3000, NVTXW_TASK_SUSPENDED, future));
    OK(nvtxw_task_slice_write(T, w0, &ids, b, fib, 3000, 5000, 0));
    OK(nvtxw_task_wake_write(T, w0, &ids, a, 4500, woke, 77));
    OK(nvtxw_task_state_write(T, w0, &ids, b, 5000, NVTXW_TASK_SUSPENDED, future));
    OK(nvtxw_worker_sleep_write(T, w0, &ids, 5000, 8000, idle));
    OK(nvtxw_task_steal_write(T, w1, &ids, a, 5900, 1, 0, 3));
    OK(nvtxw_task_resume_write(T, w1, &ids, a, fib, 3000, future, 6000, 7000, 77));
    OK(nvtxw_task_state_write(T, w1, &ids, a, 7000, NVTXW_TASK_COMPLETED, NULL));
    OK(nvtxw_task_state_write(T, w1, &ids, a, 7100, NVTXW_TASK_DELETED, NULL));
    OK(nvtxw_task_slice_write(T, w1, &ids, a2, fib, 7200, 7500, 0));
    OK(nvtxw_task_resume_write(T, w1, &ids, b, fib, 5000, future, 7600, 7700, 0));
    OK(nvtxw_task_resume_write(T, w1, &ids, a2, fib, 7500, NULL, 7800, 7900, 0));
    /* An unregistered task scope is the backend's INVALID_ARGUMENT. */
    BAD(nvtxw_task_slice_write(T, w1, &ids, a2 + 1000, fib, 8000, 8100, 0));
    OK(T->StreamClose(w0));
    OK(T->StreamClose(w1));
    OK(T->SessionEnd(session));
}

/* The rows every rendering of the scenario's stats must hold (CSV). */
static const char* const csv_rows[] = {
    "Running Time (ns),Slices,Suspended Time (ns),Suspensions,First Start (ns),Last End (ns),"
    "Task,Name\n"
    "2100,2,2600,1,3000,7700,io/read[3],fib\n"
    "2000,2,3000,1,2000,7000,1,fib\n"
    "400,2,300,1,7200,7900,1.1,fib\n",
    "Time (%),Total Time (ns),Suspensions,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),"
    "Reason\n"
    "94.915,5600,2,2800.000,2800.000,2600,3000,282.843,future\n"
    "5.085,300,1,300.000,300.000,300,300,0.000,(none)\n",
};

static char* stats_of(const char* format, void (*write)(const char*)) {
    char path[PATH_MAX], config[2 * PATH_MAX];
    path_in_dir(path, sizeof path, format);
    snprintf(config, sizeof config,
             "Sink=stats|Output=%s|Overwrite=yes|StatsFormat=%s|"
             "StatsReports=task_sum,task_suspend_sum",
             path, format);
    write(config);
    return tu_read_file_or_fail(path, NULL);
}

START_TEST(test_stats) {
    char* csv = stats_of("csv", write_scenario);
    char* text = stats_of("text", write_scenario);
    char* json = stats_of("json", write_scenario);
    ck_assert_msg(strstr(csv, csv_rows[0]) == csv, "task_sum:\n%s", csv);
    ck_assert_msg(strstr(csv, csv_rows[1]) != NULL, "task_suspend_sum:\n%s", csv);
    ck_assert_ptr_nonnull(strstr(text, "** Task Time Summary (task_sum):"));
    ck_assert_ptr_nonnull(strstr(text, "** Task Suspension Summary (task_suspend_sum):"));
    ck_assert_msg(strstr(text, "    94.9             5600            2    2800.0    2800.0      "
                               "2600      3000        282.8  future\n") != NULL,
                  "%s", text);
    ck_assert_msg(strstr(json, "{\"running_ns\": 2000, \"slices\": 2, \"suspended_ns\": 3000, "
                               "\"suspensions\": 1, \"first_start_ns\": 2000, \"last_end_ns\": "
                               "7000, \"task\": \"1\", \"name\": \"fib\"}") != NULL,
                  "%s", json);
    ck_assert_ptr_nonnull(strstr(json, "\"reason\": \"(none)\""));
    free(csv);
    free(text);
    free(json);
}
END_TEST

/* Runs tests/unit/tasks_check.py on a trace; fails the test on any failure. */
static void check_trace(const char* path) {
    char command[3 * PATH_MAX], output[16384];
    FILE* pipe;
    size_t n;
    snprintf(command, sizeof command, "python3 '%s/tests/unit/tasks_check.py' '%s' 2>&1", srcdir(),
             path);
    pipe = popen(command, "r");
    ck_assert_msg(pipe != NULL, "cannot run python3");
    n = fread(output, 1, sizeof output - 1, pipe);
    output[n] = '\0';
    ck_assert_msg(pclose(pipe) == 0, "tasks_check.py on %s (is python3 installed?):\n%s", path,
                  output);
    ck_assert_ptr_nonnull(strstr(output, " checks, 0 failed"));
}

static char* json_of(const char* name, void (*write)(const char*)) {
    char path[PATH_MAX], config[2 * PATH_MAX];
    path_in_dir(path, sizeof path, name);
    snprintf(config, sizeof config, "Sink=json|Output=%s|Overwrite=yes", path);
    write(config);
    check_trace(path);
    return tu_read_file_or_fail(path, NULL);
}

START_TEST(test_json) {
    char* json = json_of("tasks.json", write_scenario);
    /* Task rows: pid 2 is Process[7]; tids from 2^32 in registration order. */
    ck_assert_ptr_nonnull(strstr(json, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":2,\"tid\":"
                                       "4294967297,\"args\":{\"name\":\"task io/read[3]\","
                                       "\"task_path\":\"task[io\\\\/read\\\\[3\\\\]]\","
                                       "\"task_scope\":"));
    ck_assert_ptr_nonnull(strstr(json, "{\"name\":\"flow\",\"cat\":\"nvtx\",\"ph\":\"f\",\"ts\":"
                                       "5.000,\"pid\":2,\"tid\":4294967296,\"id\":\"0x4d\","
                                       "\"bp\":\"e\"}"));
    ck_assert_ptr_nonnull(strstr(json, "{\"name\":\"flow\",\"cat\":\"nvtx\",\"ph\":\"s\",\"ts\":"
                                       "3.500,\"pid\":2,\"tid\":1,\"id\":\"0x4d\"}"));
    ck_assert_ptr_nonnull(strstr(json, "{\"name\":\"suspended\",\"cat\":\"nvtx\",\"ph\":\"i\","
                                       "\"ts\":2.000,\"pid\":2,\"tid\":4294967296,\"s\":\"t\","));
    ck_assert_uint_eq(tu_count_substr(json, "\"ph\":\"f\""), 1);
    /* a reason of 0 is no reason: left out, not the string "0x0" (which the
     * Chrome input read back as a reason named "0x0") */
    ck_assert_uint_eq(tu_count_substr(json, "\"0x0\""), 0);
    ck_assert_ptr_nonnull(strstr(json, "\"args\":{\"task\":4294967299,\"suspended_at\":7500,"
                                       "\"state\":\"resumed\"}"));
    free(json);
}
END_TEST

/* A child task registered below its parent task's scope gets its row in
 * the parent's process, not a process of its own. */
static void write_nested(const char* config) {
    nvtxwSessionHandle_t session = begin_session(config);
    nvtxDomainHandle_t domain = NULL;
    nvtxScopeAttr_t process = {sizeof process, "Process[7]", NVTX_SCOPE_ROOT, NVTX_SCOPE_NONE};
    nvtxw_task_ids_t ids;
    uint64_t proc = 0, parent = 0, child = 0;
    nvtxwStreamHandle_t w0;
    OK(T->DomainRegister(session, NULL, &domain));
    memset(&ids, 0, sizeof ids);
    ids.struct_size = sizeof ids;
    OK(nvtxw_task_schemas_register(T, domain, &ids));
    OK(T->ScopeRegister(domain, &process, &proc));
    OK(nvtxw_task_scope_register(T, domain, proc, "parent", &parent));
    OK(nvtxw_task_scope_register(T, domain, parent, "child", &child));
    w0 = open_worker(session, domain, proc, "worker 0");
    OK(nvtxw_task_slice_write(T, w0, &ids, child, NULL, 100, 200, 0));
    OK(T->StreamClose(w0));
    OK(T->SessionEnd(session));
}

START_TEST(test_nested_task) {
    char path[PATH_MAX], config[2 * PATH_MAX];
    char* json;
    path_in_dir(path, sizeof path, "nested.json");
    snprintf(config, sizeof config, "Sink=json|Output=%s|Overwrite=yes", path);
    write_nested(config);
    json = tu_read_file_or_fail(path, NULL);
    /* Process[7] only: no stream or task row is in the session's process */
    ck_assert_uint_eq(tu_count_substr(json, "\"process_name\""), 1);
    ck_assert_ptr_nonnull(strstr(json, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":2,"
                                       "\"tid\":4294967297,\"args\":{\"name\":\"task child\","
                                       "\"task_path\":\"task[child]\",\"task_scope\":"));
    ck_assert_ptr_nonnull(strstr(json, "\"ph\":\"X\",\"ts\":0.000,\"dur\":0.100,\"pid\":2,"
                                       "\"tid\":4294967297,"));
    free(json);
}
END_TEST

/* Hostile but legal use: a task scope registered and never used, a task
 * scope as a stream's default scope, one task on two streams at once, a
 * task below a task with slices of both, a 64 KiB key of escapes and a key
 * with bytes that are not UTF-8. Every sink must take it; the JSON must stay
 * JSON (tasks_check.py parses it). */
static void write_hostile(const char* config) {
    nvtxwSessionHandle_t session = begin_session(config);
    nvtxDomainHandle_t domain = NULL;
    nvtxScopeAttr_t process = {sizeof process, "Process[9]", NVTX_SCOPE_ROOT, NVTX_SCOPE_NONE};
    nvtxw_task_ids_t ids;
    uint64_t proc = 0, unused = 0, home = 0, shared = 0, parent = 0, child = 0, big = 0, bytes = 0;
    nvtxwStreamHandle_t w0, w1, on_task;
    char* key = malloc(65537);
    ck_assert_ptr_nonnull(key);
    for (size_t i = 0; i < 65536; i++)
        key[i] = "/[]\\\"\n"[i % 6];
    key[65536] = '\0';
    OK(T->DomainRegister(session, NULL, &domain));
    memset(&ids, 0, sizeof ids);
    ids.struct_size = sizeof ids;
    OK(nvtxw_task_schemas_register(T, domain, &ids));
    OK(T->ScopeRegister(domain, &process, &proc));
    OK(nvtxw_task_scope_register(T, domain, proc, "never used", &unused));
    OK(nvtxw_task_scope_register(T, domain, proc, "home", &home));
    OK(nvtxw_task_scope_register(T, domain, proc, "shared", &shared));
    OK(nvtxw_task_scope_register(T, domain, proc, "parent", &parent));
    OK(nvtxw_task_scope_register(T, domain, parent, "child", &child));
    OK(nvtxw_task_scope_register(T, domain, proc, key, &big));
    OK(nvtxw_task_scope_register(T, domain, proc, "bad \xff\xfe utf8 \xc0\x80", &bytes));
    w0 = open_worker(session, domain, proc, "worker 0");
    w1 = open_worker(session, domain, proc, "worker 1");
    on_task = open_worker(session, domain, home, "stream on a task");
    OK(nvtxw_task_slice_write(T, w0, &ids, shared, NULL, 100, 300, 0));
    OK(nvtxw_task_slice_write(T, w1, &ids, shared, NULL, 200, 400, 0));
    OK(nvtxw_task_slice_write(T, w0, &ids, parent, NULL, 400, 900, 0));
    OK(nvtxw_task_slice_write(T, w0, &ids, child, NULL, 500, 600, 0));
    OK(nvtxw_task_state_write(T, w0, &ids, child, 600, NVTXW_TASK_SUSPENDED, NULL));
    OK(nvtxw_task_slice_write(T, w1, &ids, big, NULL, 500, 700, 0));
    OK(nvtxw_task_slice_write(T, w1, &ids, bytes, NULL, 800, 900, 0));
    OK(nvtxw_task_slice_write(T, on_task, &ids, home, NULL, 100, 200, 0));
    OK(nvtxw_task_state_write(T, on_task, &ids, home, 250, NVTXW_TASK_COMPLETED, NULL));
    OK(T->StreamClose(on_task));
    OK(T->StreamClose(w0));
    OK(T->StreamClose(w1));
    OK(T->SessionEnd(session));
    free(key);
}

/* Fails unless python3's json module parses `path` as UTF-8. */
static void assert_json_file(const char* path) {
    char command[2 * PATH_MAX];
    snprintf(command, sizeof command,
             "python3 -c 'import json,sys; json.load(open(sys.argv[1], encoding=\"utf-8\"))' "
             "'%s'",
             path);
    ck_assert_msg(system(command) == 0, "%s is not JSON in UTF-8", path);
}

START_TEST(test_hostile) {
    char path[PATH_MAX], config[2 * PATH_MAX];
    char *json, *csv, *stats;
    path_in_dir(path, sizeof path, "hostile.json");
    snprintf(config, sizeof config, "Sink=json|Output=%s|Overwrite=yes", path);
    write_hostile(config);
    assert_json_file(path);
    json = tu_read_file_or_fail(path, NULL);
    csv = stats_of("csv", write_hostile);
    stats = stats_of("json", write_hostile);
    path_in_dir(path, sizeof path, "json");
    assert_json_file(path);
    /* the JSON row of a task is named when the task is registered (an
     * unused task is an empty row); the stats list tasks with a slice */
    ck_assert_uint_eq(tu_count_substr(json, "\"task_path\":\"task[never used]\""), 1);
    ck_assert_uint_eq(tu_count_substr(csv, "never used"), 0);
    ck_assert_ptr_nonnull(strstr(csv, "\n400,2,0,0,100,400,shared,\n"));
    ck_assert_ptr_nonnull(strstr(csv, "\n500,1,0,0,400,900,parent,\n"));
    ck_assert_ptr_nonnull(strstr(csv, "\n100,1,0,0,500,600,child,\n"));
    ck_assert_ptr_nonnull(strstr(csv, "\n100,1,0,0,100,200,home,\n"));
    /* the task's path was repaired at registration: U+FFFD per bad byte */
    ck_assert_ptr_nonnull(strstr(stats, "\"task\": \"bad \xEF\xBF\xBD\xEF\xBF\xBD utf8"));
    /* a stream on a task scope is a row of the task's process */
    ck_assert_ptr_nonnull(strstr(json, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":2,"
                                       "\"tid\":3,\"args\":{\"name\":\"stream on a task\"}}"));
    /* Process[9] only: no stream or task row is in the session's process */
    ck_assert_uint_eq(tu_count_substr(json, "\"process_name\""), 1);
    /* the shared task: one row, both workers' slices on it */
    ck_assert_uint_eq(tu_count_substr(json, "\"name\":\"task shared\""), 1);
    free(json);
    free(csv);
    free(stats);
}
END_TEST

/* ---- Report round trip ---------------------------------------------------------- */

static char report_path[PATH_MAX];

static void write_report(void) {
    char config[2 * PATH_MAX];
    path_in_dir(report_path, sizeof report_path, "tasks.nvtxw");
    snprintf(config, sizeof config, "Sink=report|Output=%s|Overwrite=yes", report_path);
    write_scenario(config);
}

static void replay_report(const char* config) {
    nvtxw_reader_t* reader = NULL;
    OK(nvtxw_reader_open(report_path, NULL, &reader));
    OK(nvtxw_reader_replay(reader, T, config, NULL));
    nvtxw_reader_close(reader);
}

START_TEST(test_report_round_trip) {
    nvtxw_reader_t* reader = NULL;
    const nvtxw_record_t* record;
    size_t task_scopes = 0, task_schemas = 0, events = 0;
    char *direct, *replayed;
    write_report();
    OK(nvtxw_reader_open(report_path, NULL, &reader));
    while (nvtxw_reader_next(reader, &record) == NVTXW_RESULT_SUCCESS && record != NULL) {
        if (record->kind == NVTXW_RECORD_SCOPE && strncmp(record->u.scope.path, "task[", 5) == 0)
            task_scopes++;
        else if (record->kind == NVTXW_RECORD_SCHEMA &&
                 (nvtxw_schema_id(record->u.schema.schema) >> 16) == 0x5441)
            task_schemas++;
        else if (record->kind == NVTXW_RECORD_EVENT)
            events++;
    }
    nvtxw_reader_close(reader);
    ck_assert_uint_eq(task_scopes, 3);
    ck_assert_uint_eq(task_schemas, 5);
    ck_assert_uint_eq(events, 17); /* 14 calls, three of them resumptions (2 events each) */

    direct = stats_of("csv", write_scenario);
    replayed = stats_of("csv", replay_report);
    ck_assert_str_eq(replayed, direct);
    free(direct);
    free(replayed);
    direct = json_of("direct.json", write_scenario);
    replayed = json_of("replayed.json", replay_report);
    ck_assert_str_eq(replayed, direct);
    free(direct);
    free(replayed);
}
END_TEST

/* ---- Threads ---------------------------------------------------------------------- */

#define WORKERS 4
#define TASKS_PER_WORKER 200

typedef struct worker_job {
    nvtxwStreamHandle_t stream;
    const nvtxw_task_ids_t* ids;
    const uint64_t* tasks; /* WORKERS * TASKS_PER_WORKER scopes */
    int index;
    nvtxwResultCode_t status;
} worker_job;

/* Worker i runs its tasks in two slices around a suspension, and wakes
 * the tasks of worker i + 1 (links are unique per task). */
static void* worker_main(void* arg) {
    worker_job* job = arg;
    int k;
    for (k = 0; k < TASKS_PER_WORKER && job->status == NVTXW_RESULT_SUCCESS; k++) {
        int64_t t = 10000 + (int64_t)k * 100;
        uint64_t mine = job->tasks[job->index * TASKS_PER_WORKER + k];
        int next = (job->index + 1) % WORKERS;
        uint64_t other = job->tasks[next * TASKS_PER_WORKER + k];
        uint64_t link = (uint64_t)(next * TASKS_PER_WORKER + k + 1);
        job->status = nvtxw_task_slice_write(T, job->stream, job->ids, mine, NULL, t, t + 10, 0);
        if (job->status == NVTXW_RESULT_SUCCESS)
            job->status =
                nvtxw_task_wake_write(T, job->stream, job->ids, other, t + 20, NULL, link);
        if (job->status == NVTXW_RESULT_SUCCESS)
            job->status =
                nvtxw_task_resume_write(T, job->stream, job->ids, mine, NULL, t + 10, NULL, t + 50,
                                        t + 60, (uint64_t)(job->index * TASKS_PER_WORKER + k + 1));
    }
    return NULL;
}

static void write_threads(const char* config) {
    nvtxwSessionHandle_t session = begin_session(config);
    nvtxDomainHandle_t domain = NULL;
    nvtxw_task_ids_t ids;
    static uint64_t tasks[WORKERS * TASKS_PER_WORKER];
    worker_job jobs[WORKERS];
    pthread_t threads[WORKERS];
    char name[32];
    int i;
    OK(T->DomainRegister(session, NULL, &domain));
    memset(&ids, 0, sizeof ids);
    ids.struct_size = sizeof ids;
    OK(nvtxw_task_schemas_register(T, domain, &ids));
    for (i = 0; i < WORKERS * TASKS_PER_WORKER; i++)
        OK(nvtxw_task_scope_register_id(T, domain, NVTX_SCOPE_ROOT, (uint64_t)i, 0, &tasks[i]));
    for (i = 0; i < WORKERS; i++) {
        snprintf(name, sizeof name, "worker %d", i);
        jobs[i] = (worker_job){open_worker(session, domain, NVTX_SCOPE_NONE, name), &ids, tasks, i,
                               NVTXW_RESULT_SUCCESS};
    }
    for (i = 0; i < WORKERS; i++)
        ck_assert_int_eq(pthread_create(&threads[i], NULL, worker_main, &jobs[i]), 0);
    for (i = 0; i < WORKERS; i++) {
        ck_assert_int_eq(pthread_join(threads[i], NULL), 0);
        ck_assert_int_eq(jobs[i].status, NVTXW_RESULT_SUCCESS);
        OK(T->StreamClose(jobs[i].stream));
    }
    OK(T->SessionEnd(session));
}

START_TEST(test_threads) {
    char path[PATH_MAX], config[2 * PATH_MAX];
    char* json;
    char* csv = stats_of("csv", write_threads);
    /* Every task: 2 slices of 10, one suspension of 40 (no reason). */
    ck_assert_msg(strstr(csv, "20,2,40,1,") == csv + strcspn(csv, "\n") + 1, "%s", csv);
    ck_assert_uint_eq(tu_count_substr(csv, "\n20,2,40,1,"), WORKERS * TASKS_PER_WORKER);
    ck_assert_ptr_nonnull(strstr(csv, ",32000,800,40.000,40.000,40,40,0.000,(none)\n"));
    free(csv);
    path_in_dir(path, sizeof path, "threads.json");
    snprintf(config, sizeof config, "Sink=json|Output=%s|Overwrite=yes", path);
    write_threads(config);
    json = tu_read_file_or_fail(path, NULL);
    ck_assert_uint_eq(tu_count_substr(json, "\"ph\":\"s\""), WORKERS * TASKS_PER_WORKER);
    ck_assert_uint_eq(tu_count_substr(json, "\"ph\":\"f\""), WORKERS * TASKS_PER_WORKER);
    ck_assert_uint_eq(tu_count_substr(json, "\"name\":\"thread_name\""),
                      WORKERS + WORKERS * TASKS_PER_WORKER);
    free(json);
}
END_TEST

/* ---- Throughput -------------------------------------------------------------------- */

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#define BENCH_TASKS 1000

START_TEST(test_throughput) {
    long slices = atol(getenv("NVTXW_TASKS_BENCH_SLICES")), i;
    char path[PATH_MAX], config[2 * PATH_MAX];
    nvtxwSessionHandle_t session;
    nvtxDomainHandle_t domain = NULL;
    nvtxw_task_ids_t ids;
    static uint64_t tasks[BENCH_TASKS];
    nvtxStringHandle_t name;
    nvtxwStreamHandle_t stream;
    struct stat info;
    double start, seconds;
    int failed = 0;
    path_in_dir(path, sizeof path, "bench.json");
    snprintf(config, sizeof config, "Sink=json|Output=%s|Overwrite=yes", path);
    session = begin_session(config);
    OK(T->DomainRegister(session, NULL, &domain));
    memset(&ids, 0, sizeof ids);
    ids.struct_size = sizeof ids;
    OK(nvtxw_task_schemas_register(T, domain, &ids));
    for (i = 0; i < BENCH_TASKS; i++)
        OK(nvtxw_task_scope_register_id(T, domain, NVTX_SCOPE_ROOT, (uint64_t)i, 0, &tasks[i]));
    OK(T->StringRegister(domain, "bench task", &name));
    stream = open_worker(session, domain, NVTX_SCOPE_NONE, "worker");
    start = now_seconds();
    /* No ck_assert in the loop: each one reports to the parent process. */
    for (i = 0; i < slices; i++)
        failed |= nvtxw_task_slice_write(T, stream, &ids, tasks[i % BENCH_TASKS], name,
                                         1000 * (int64_t)i, 1000 * (int64_t)i + 500, 0);
    failed |= T->SessionEnd(session);
    ck_assert_msg(failed == 0, "%s", nvtxw_last_error());
    seconds = now_seconds() - start;
    ck_assert_int_eq(stat(path, &info), 0);
    printf("tasks json: %ld task slices (2 rows each), %lld bytes in %.3f s = %.1f MB/s, "
           "%.0f slices/s\n",
           slices, (long long)info.st_size, seconds, (double)info.st_size / 1e6 / seconds,
           (double)slices / seconds);
}
END_TEST

static Suite* tasks_suite(void) {
    Suite* suite = suite_create("tasks");
    TCase* tc = tcase_create("tasks");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_layout_matches_yaml);
    tcase_add_test(tc, test_struct_layouts);
    tcase_add_test(tc, test_any_table);
    tcase_add_test(tc, test_bad_use);
    tcase_add_test(tc, test_stats);
    tcase_add_test(tc, test_json);
    tcase_add_test(tc, test_nested_task);
    tcase_add_test(tc, test_hostile);
    tcase_add_test(tc, test_report_round_trip);
    tcase_add_test(tc, test_threads);
    /* A measurement, not a check: run by `make bench`, or on request. */
    if (getenv("NVTXW_TASKS_BENCH_SLICES") != NULL)
        tcase_add_test(tc, test_throughput);
    suite_add_tcase(suite, tc);
    return suite;
}

int main(void) { return tu_run_suite(tasks_suite()); }
