/*
 * tests/unit/merge_test.c - nvtxw_reader_replay_many: reports written
 * through the backend table (Sink=report) merged into one report and read
 * back: domains unified by name, strings deduplicated, identical static
 * schemas registered once, a static-ID clash naming both inputs, stream
 * renaming, the domain and stream filters, time order and the time window.
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "nvtxw/nvtxw.h"
#include "test_util.h"

#define STATIC_ID (NVTX_PAYLOAD_SCHEMA_ID_STATIC_START + 7)

static char dir[PATH_MAX];

static void path_in(char* out, size_t size, const char* name) {
    ck_assert_int_lt(snprintf(out, size, "%s/%s", dir, name), (int)size);
}

/* Domains "d" and "e"; in "d": strings "shared" and `own`, a static schema
 * (one uint64 field named `field`), a stream "s" with three counter
 * samples at base, base + 10, base + 20. */
static void write_input(const char* name, const char* own, const char* field, int64_t base) {
    const nvtxwInterface_t* t = tu_get_interface_or_fail();
    nvtxPayloadSchemaEntry_t entry;
    nvtxPayloadSchemaAttr_t schema;
    nvtxwSessionAttributes_t sattr;
    nvtxwSessionHandle_t session;
    nvtxDomainHandle_t d, e;
    nvtxStringHandle_t s1, s2;
    nvtxwStreamHandle_t stream;
    uint64_t id = 0, counter = 0;
    char config[PATH_MAX + 64], path[PATH_MAX];
    memset(&entry, 0, sizeof entry);
    entry.type = NVTX_PAYLOAD_ENTRY_TYPE_UINT64;
    entry.name = field;
    path_in(path, sizeof path, name);
    snprintf(config, sizeof config, "Sink=report|Output=%s|Overwrite=yes", path);
    sattr.structSize = sizeof sattr;
    sattr.name = name;
    sattr.configString = config;
    ck_assert_int_eq(t->SessionBegin(&sattr, &session), NVTXW_RESULT_SUCCESS);
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
    ck_assert_int_eq(nvtxw_reader_open(pa, &ropts, &readers[0]), NVTXW_RESULT_SUCCESS);
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

START_TEST(test_static_clash) {
    merged m;
    const char* message;
    write_input("a.nvtxw", "only a", "x", 0);
    write_input("b.nvtxw", "only b", "y", 0);
    ck_assert_int_eq(merge("a.nvtxw", "b.nvtxw", NULL, &m), NVTXW_RESULT_INVALID_ARGUMENT);
    message = nvtxw_last_error();
    ck_assert_msg(strstr(message, "a.nvtxw\"") && strstr(message, "b.nvtxw\"") &&
                      strstr(message, "static schema ID 16777223"),
                  "message: %s", message);
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
    ck_assert_int_eq(nvtxw_reader_open(pa, &ropts, &readers[0]), NVTXW_RESULT_SUCCESS);
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
    tcase_add_test(tc, test_unified);
    tcase_add_test(tc, test_static_clash);
    tcase_add_test(tc, test_time_order);
    tcase_add_test(tc, test_filters);
    tcase_add_test(tc, test_bad_arguments);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(merge_suite()); }
