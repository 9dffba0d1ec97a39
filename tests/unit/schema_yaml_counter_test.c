/*
 * tests/unit/schema_yaml_counter_test.c - YAML payload schemas, second part:
 * counter semantics (docs/schemas.md, "Counter semantics") with their error
 * positions, exact round trips of the attributes the dump once lost (empty
 * names and descriptions, counter limit bits), and a failing write callback
 * during a dump.
 */
#define _POSIX_C_SOURCE 200809L /* test_util.h */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvtxw/error.h"
#include "nvtxw/schema_yaml.h"
#include "schema_yaml_check.h"
#include "test_util.h"

/* The counter semantics of all-keys.yaml (docs/schemas.md, "Counter
 * semantics"): every key, limits read by limit_type, chain after time/scope. */
START_TEST(counter_semantics_meaning) {
    nvtxw_schema_registry_t* registry = load_data("tests/data/schemas/all-keys.yaml");
    const nvtxw_schema_t* gauges;
    const nvtxw_enum_t* unused;
    nvtxPayloadSchemaAttr_t attr;
    const nvtxSemanticsCounter_t* c;
    size_t count = nvtxw_schema_registry_count(registry);
    nvtxw_schema_registry_at(registry, count - 1, &gauges, &unused);
    nvtxw_schema_get_attr(gauges, &attr);
    c = (const nvtxSemanticsCounter_t*)attr.entries[0].semantics;
    ck_assert_uint_eq(c->header.semanticId, NVTX_SEMANTIC_ID_COUNTERS_V1);
    ck_assert_uint_eq(c->header.version, NVTX_COUNTER_SEMANTIC_VERSION);
    ck_assert_uint_eq(c->header.structSize, sizeof(nvtxSemanticsCounter_t));
    ck_assert_ptr_null(c->header.next);
    ck_assert_uint_eq(c->flags, NVTX_COUNTER_FLAG_NORMALIZE | NVTX_COUNTER_FLAG_LIMITS |
                                    NVTX_COUNTER_FLAG_VALUETYPE_DELTA |
                                    NVTX_COUNTER_FLAG_INTERPOLATION_LINEAR);
    ck_assert_str_eq(c->unit, "MiB/s");
    ck_assert_uint_eq(c->unitScaleNumerator, 1);
    ck_assert_uint_eq(c->unitScaleDenominator, 1048576);
    ck_assert_int_eq(c->limitType, NVTX_COUNTER_LIMIT_F64);
    ck_assert(c->min.f64 == -0.5 && c->max.f64 == 1e300);
    c = (const nvtxSemanticsCounter_t*)attr.entries[1].semantics;
    ck_assert_int_eq(c->limitType, NVTX_COUNTER_LIMIT_I64);
    ck_assert_ptr_null(c->unit);
    ck_assert(c->min.i64 == INT64_MIN && c->max.i64 == 7);
    c = (const nvtxSemanticsCounter_t*)attr.entries[2].semantics;
    ck_assert(c->limitType == NVTX_COUNTER_LIMIT_U64 && c->max.u64 == UINT64_MAX);
    c = (const nvtxSemanticsCounter_t*)attr.entries[3].semantics;
    ck_assert(isinf(c->min.f64) && c->min.f64 < 0 && isnan(c->max.f64));
    nvtxw_schema_registry_destroy(registry);
}
END_TEST

/* Empty entry names and descriptions are attributes of their own ("" is not
 * NULL) and were dropped by the dump; unnamed schemas and enums keep their
 * NAME bit. */
START_TEST(roundtrip_empty_strings) {
    char* dumped = roundtrip_text(
        "items:\n"
        "  - enum: {name: '', size: 1, values: [{name: '', value: 1}]}\n"
        "  - schema: {kind: static, entries: [{name: '', description: '', type: int8}]}\n"
        "  - schema: {name: '', kind: static, entries: [{type: 4294967296}]}\n");
    ck_assert_ptr_nonnull(strstr(dumped, "{name: '', type: int8, description: ''}"));
    free(dumped);
}
END_TEST

/* Counter limits keep their exact bits: -0.0, the extremes, subnormals,
 * limit types without a name (raw bits), an empty counter. */
START_TEST(roundtrip_counter_limits) {
    char* dumped = roundtrip_text(
        "items:\n"
        "  - schema:\n"
        "      kind: static\n"
        "      entries:\n"
        "        - {type: double, counter: {limit_type: f64, min: -0.0, max: 4.9e-324}}\n"
        "        - {type: double, counter: {limit_type: f64, min: 2.2250738585072014e-308, "
        "max: 1.7976931348623157e308}}\n"
        "        - {type: double, counter: {limit_type: 0xffffffffffffffff, min: -1, max: 1}}\n"
        "        - {type: double, counter: {flags: [0x40000], value_type: 3, interpolation: 7}}\n"
        "        - {type: double, counter: {}, time_domain: 3}\n");
    ck_assert_ptr_nonnull(strstr(dumped, "min: -0, max: 5e-324"));
    ck_assert_ptr_nonnull(strstr(dumped, "max: 1.7976931348623157e+308"));
    ck_assert_ptr_nonnull(
        strstr(dumped, "limit_type: 18446744073709551615, min: 18446744073709551615"));
    ck_assert_ptr_nonnull(
        strstr(dumped, "flags: [262144], value_type: delta_since_start, interpolation: 7"));
    ck_assert_ptr_nonnull(strstr(dumped, "time_domain: 3, counter: {}"));
    free(dumped);
}
END_TEST

typedef struct counting_writer {
    int calls;
    int fail_at; /* this call and every later one fail */
    size_t bytes;
} counting_writer_t;

static int counting_write(void* ctx, const char* data, size_t size) {
    counting_writer_t* writer = ctx;
    (void)data;
    writer->calls++;
    if (writer->calls >= writer->fail_at)
        return -1;
    writer->bytes += size;
    return 0;
}

/* A dump far larger than libyaml's output buffer is written in several
 * calls; once the callback fails it is never called again. */
START_TEST(dump_write_failure_stops_output) {
    nvtxw_schema_registry_t* registry = nvtxw_schema_registry_create();
    nvtxPayloadSchemaEntry_t entries[2000];
    nvtxPayloadSchemaAttr_t attr;
    counting_writer_t all = {0, 1000000, 0};
    counting_writer_t failing = {0, 2, 0};
    uint64_t id;
    memset(entries, 0, sizeof entries);
    memset(&attr, 0, sizeof attr);
    for (size_t i = 0; i < 2000; i++) {
        entries[i].type = NVTX_PAYLOAD_ENTRY_TYPE_INT64;
        entries[i].description = "a description long enough to fill the emitter buffer";
    }
    attr.fieldMask = NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES |
                     NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES;
    attr.type = NVTX_PAYLOAD_SCHEMA_TYPE_STATIC;
    attr.entries = entries;
    attr.numEntries = 2000;
    ck_assert_int_eq(nvtxw_schema_registry_add_schema(registry, &attr, &id), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(nvtxw_schema_yaml_dump(registry, counting_write, &all), NVTXW_RESULT_SUCCESS);
    ck_assert_int_gt(all.calls, 3);
    ck_assert_int_eq(nvtxw_schema_yaml_dump(registry, counting_write, &failing),
                     NVTXW_RESULT_FAILED);
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "write callback failed"));
    ck_assert_int_eq(failing.calls, 2);
    nvtxw_schema_registry_destroy(registry);
}
END_TEST

typedef struct bad_case {
    const char* yaml;
    const char* where;  /* "bad.yaml:LINE:COLUMN: " */
    const char* phrase; /* names the problem */
} bad_case_t;

#define HEAD "items:\n  - schema:\n      kind: static\n"

static const bad_case_t bad_cases[] = {
    /* counter semantics: limits read by limit_type, at the limit's position */
    {HEAD "      entries: [{type: int8, counter: {limit_type: i64, min: 1.5}}]\n",
     "bad.yaml:4:62: ", "bad number \"1.5\" for min"},
    {HEAD "      entries: [{type: int8, counter: {max: 9223372036854775808, limit_type: i64}}]\n",
     "bad.yaml:4:45: ", "value 9223372036854775808 out of range for max"},
    {HEAD "      entries: [{type: int8, counter: {limit_type: u64, min: -1}}]\n",
     "bad.yaml:4:62: ", "bad number \"-1\" for min"},
    {HEAD "      entries: [{type: int8, counter: {limit_type: f64, min: 1e999}}]\n",
     "bad.yaml:4:62: ", "out of range for min"},
    {HEAD "      entries: [{type: int8, counter: {limit_type: f64, min: 0x10}}]\n",
     "bad.yaml:4:62: ", "bad number \"0x10\" for min"},
    {HEAD "      entries: [{type: int8, counter: {limit_type: f128}}]\n",
     "bad.yaml:4:52: ", "unknown limit_type \"f128\""},
    {HEAD "      entries: [{type: int8, counter: {value_type: 4}}]\n",
     "bad.yaml:4:52: ", "out of range for value_type"},
    {HEAD "      entries: [{type: int8, counter: {units: s}}]\n",
     "bad.yaml:4:40: ", "unknown key \"units\" in counter"},
    {HEAD "      entries: [{type: int8, counter: [normalize]}]\n",
     "bad.yaml:4:39: ", "expected a mapping for counter"},
};

START_TEST(bad_counter) {
    const bad_case_t* bad = &bad_cases[_i];
    nvtxw_schema_registry_t* registry = nvtxw_schema_registry_create();
    nvtxwResultCode_t code =
        nvtxw_schema_yaml_load_string(registry, bad->yaml, strlen(bad->yaml), "bad.yaml");
    const char* message = nvtxw_last_error();
    ck_assert_msg(code == NVTXW_RESULT_INVALID_ARGUMENT, "case %d: code %d: %s", _i, code, message);
    ck_assert_msg(strncmp(message, bad->where, strlen(bad->where)) == 0,
                  "case %d: expected position \"%s\" in \"%s\"", _i, bad->where, message);
    ck_assert_msg(strstr(message, bad->phrase) != NULL, "case %d: expected \"%s\" in \"%s\"", _i,
                  bad->phrase, message);
    ck_assert_uint_eq(nvtxw_schema_registry_count(registry), 0);
    nvtxw_schema_registry_destroy(registry);
}
END_TEST

static Suite* schema_yaml_counter_suite(void) {
    Suite* suite = suite_create("schema_yaml_counter");
    TCase* roundtrips = tcase_create("roundtrips");
    TCase* errors = tcase_create("errors");
    tcase_add_test(roundtrips, counter_semantics_meaning);
    tcase_add_test(roundtrips, roundtrip_empty_strings);
    tcase_add_test(roundtrips, roundtrip_counter_limits);
    tcase_add_test(roundtrips, dump_write_failure_stops_output);
    tcase_add_loop_test(errors, bad_counter, 0, (int)(sizeof bad_cases / sizeof bad_cases[0]));
    suite_add_tcase(suite, roundtrips);
    suite_add_tcase(suite, errors);
    return suite;
}

int main(void) { return tu_run_suite(schema_yaml_counter_suite()); }
