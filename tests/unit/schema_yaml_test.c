/*
 * tests/unit/schema_yaml_test.c - YAML payload schemas (nvtxw/schema_yaml.h,
 * docs/schemas.md).
 *
 *  - the shipped schemas/nvtxw-helpers.yaml registers exactly what NVIDIA's
 *    nvtxwEventSchemasRegister registers (spec 4.3), entry by entry, and the
 *    counters file the layouts of spec 4.6;
 *  - load -> dump -> load reproduces every attr for each shipped file and for
 *    tests/data/schemas/all-keys.yaml, which uses every key of the format;
 *  - bad input fails with the right code and a "name:LINE:COLUMN: problem"
 *    message, hostile input fails cleanly, and injected allocation failures
 *    are handled on every path.
 * Data files are found through the top_srcdir environment variable that
 * tests/local.mk exports, so the test runs out of tree and under distcheck.
 */
#define _POSIX_C_SOURCE 200809L /* test_util.h */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "nvtxw/error.h"
#include "nvtxw/schema_yaml.h"

#include "schema_yaml_check.h"
#include "test_util.h"

/* ------------------------------------------------------------------------- */
/* The helpers' schemas (spec 4.3)                                            */
/* ------------------------------------------------------------------------- */

typedef struct expected_entry {
    uint64_t flags;
    uint64_t type;
    const char* name;
    uint64_t offset;
} expected_entry_t;

typedef struct expected_schema {
    uint64_t type;
    uint64_t flags;
    size_t size;
    size_t count;
    expected_entry_t entries[5];
} expected_schema_t;

/* Spelled as the numbers spec 4.3 gives, not via our own tables. */
#define TS_MARK(off)                                                                               \
    { 14336, 17, "timestamp", off }
#define TS_BEGIN(off)                                                                              \
    { 6144, 17, "timestampBegin", off }
#define TS_END(off)                                                                                \
    { 10240, 17, "timestampEnd", off }
#define COLOR(off)                                                                                 \
    { 0, 69, "color", off }
#define CATEGORY(off)                                                                              \
    { 0, 68, "category", off }
#define RANGEID                                                                                    \
    { 0, 67, "rangeId", 0 }
#define MSGREG(off)                                                                                \
    { 1024, 80, "message", off }

static const expected_schema_t helper_schemas[13] = {
    {1, 32, 16, 3, {TS_MARK(0), COLOR(8), CATEGORY(12)}},
    {1, 32, 24, 4, {TS_MARK(0), COLOR(8), CATEGORY(12), MSGREG(16)}},
    {1, 16, 24, 4, {TS_BEGIN(0), TS_END(8), COLOR(16), CATEGORY(20)}},
    {1, 16, 32, 5, {TS_BEGIN(0), TS_END(8), COLOR(16), CATEGORY(20), MSGREG(24)}},
    {1, 24, 24, 4, {TS_BEGIN(0), TS_END(8), COLOR(16), CATEGORY(20)}},
    {1, 24, 32, 5, {TS_BEGIN(0), TS_END(8), COLOR(16), CATEGORY(20), MSGREG(24)}},
    {1, 40, 16, 3, {TS_BEGIN(0), COLOR(8), CATEGORY(12)}},
    {1, 40, 24, 4, {TS_BEGIN(0), COLOR(8), CATEGORY(12), MSGREG(16)}},
    {1, 48, 8, 1, {TS_END(0)}},
    {1, 56, 24, 4, {RANGEID, TS_BEGIN(8), COLOR(16), CATEGORY(20)}},
    {1, 56, 32, 5, {RANGEID, TS_BEGIN(8), COLOR(16), CATEGORY(20), MSGREG(24)}},
    {1, 64, 16, 2, {RANGEID, TS_END(8)}},
    {2, 0, 0, 1, {{1056, 76, "message", 0}}},
};

/* The attr nvtxwEventSchemasRegister passes for descriptor `index`. */
static void helper_attr(size_t index, nvtxPayloadSchemaEntry_t* entries,
                        nvtxPayloadSchemaAttr_t* attr) {
    const expected_schema_t* expected = &helper_schemas[index];
    memset(attr, 0, sizeof *attr);
    memset(entries, 0, 5 * sizeof *entries);
    for (size_t i = 0; i < expected->count; i++) {
        entries[i].flags = expected->entries[i].flags;
        entries[i].type = expected->entries[i].type;
        entries[i].name = expected->entries[i].name;
        entries[i].offset = expected->entries[i].offset;
    }
    attr->fieldMask = 0x7C;
    attr->type = expected->type;
    attr->flags = expected->flags;
    attr->entries = entries;
    attr->numEntries = expected->count;
    attr->payloadStaticSize = expected->size;
}

START_TEST(helpers_match_spec) {
    nvtxw_schema_registry_t* registry = load_data("schemas/nvtxw-helpers.yaml");
    ck_assert_uint_eq(nvtxw_schema_registry_count(registry), 13);
    for (size_t i = 0; i < 13; i++) {
        const expected_schema_t* expected = &helper_schemas[i];
        const nvtxw_schema_t* schema;
        const nvtxw_enum_t* enumeration;
        nvtxPayloadSchemaAttr_t attr;
        nvtxw_schema_registry_at(registry, i, &schema, &enumeration);
        ck_assert_ptr_nonnull(schema);
        nvtxw_schema_get_attr(schema, &attr);
        ck_assert_uint_eq(attr.fieldMask & ~(uint64_t)NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_SCHEMA_ID,
                          0x7C);
        ck_assert_uint_ge(attr.schemaId, NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START);
        ck_assert_ptr_null(attr.name);
        ck_assert_uint_eq(attr.type, expected->type);
        ck_assert_uint_eq(attr.flags, expected->flags);
        ck_assert_uint_eq(attr.payloadStaticSize, expected->size);
        ck_assert_uint_eq(attr.packAlign, 0);
        ck_assert_uint_eq(attr.numEntries, expected->count);
        for (size_t e = 0; e < expected->count; e++) {
            const nvtxPayloadSchemaEntry_t* entry = &attr.entries[e];
            ck_assert_uint_eq(entry->flags, expected->entries[e].flags);
            ck_assert_uint_eq(entry->type, expected->entries[e].type);
            ck_assert_str_eq(entry->name, expected->entries[e].name);
            ck_assert_ptr_null(entry->description);
            ck_assert_uint_eq(entry->arrayOrUnionDetail, 0);
            ck_assert_uint_eq(entry->offset, expected->entries[e].offset);
            ck_assert_ptr_null(entry->semantics);
        }
    }
    nvtxw_schema_registry_destroy(registry);
}
END_TEST

/* Registering the helpers' attrs directly gives the same registry. */
START_TEST(helpers_match_direct_registration) {
    nvtxw_schema_registry_t* loaded = load_data("schemas/nvtxw-helpers.yaml");
    nvtxw_schema_registry_t* direct = nvtxw_schema_registry_create();
    for (size_t i = 0; i < 13; i++) {
        nvtxPayloadSchemaEntry_t entries[5];
        nvtxPayloadSchemaAttr_t attr;
        uint64_t id = 0;
        helper_attr(i, entries, &attr);
        ck_assert_int_eq(nvtxw_schema_registry_add_schema(direct, &attr, &id),
                         NVTXW_RESULT_SUCCESS);
    }
    check_same_registry(direct, loaded);
    nvtxw_schema_registry_destroy(direct);
    nvtxw_schema_registry_destroy(loaded);
}
END_TEST

START_TEST(counters_match_spec) {
    nvtxw_schema_registry_t* registry = load_data("schemas/nvtxw-counters.yaml");
    static const uint64_t types[2] = {17, 20};
    static const char* const names[2] = {"nvtxw_counter_int64", "nvtxw_counter_float64"};
    ck_assert_uint_eq(nvtxw_schema_registry_count(registry), 2);
    for (size_t i = 0; i < 2; i++) {
        const nvtxw_schema_t* schema;
        const nvtxw_enum_t* enumeration;
        nvtxPayloadSchemaAttr_t attr;
        nvtxw_schema_registry_at(registry, i, &schema, &enumeration);
        nvtxw_schema_get_attr(schema, &attr);
        ck_assert_str_eq(attr.name, names[i]);
        ck_assert_uint_eq(attr.type, NVTX_PAYLOAD_SCHEMA_TYPE_STATIC);
        ck_assert_uint_eq(attr.flags, NVTX_PAYLOAD_SCHEMA_FLAG_COUNTER_GROUP);
        ck_assert_uint_eq(attr.payloadStaticSize, 8);
        ck_assert_uint_eq(attr.numEntries, 1);
        ck_assert_uint_eq(attr.entries[0].type, types[i]);
        ck_assert_uint_eq(attr.entries[0].flags, NVTX_PAYLOAD_ENTRY_FLAG_COUNTER);
        ck_assert_str_eq(attr.entries[0].name, "value");
        ck_assert_uint_eq(nvtxw_schema_static_size(schema), 8);
    }
    nvtxw_schema_registry_destroy(registry);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Round trips                                                                */
/* ------------------------------------------------------------------------- */

static const char* const roundtrip_files[] = {
    "schemas/nvtxw-helpers.yaml",
    "schemas/nvtxw-counters.yaml",
    "tests/data/schemas/all-keys.yaml",
};

START_TEST(roundtrip) {
    nvtxw_schema_registry_t* first = load_data(roundtrip_files[_i]);
    nvtxw_schema_registry_t* second = nvtxw_schema_registry_create();
    char* text = dump_text(first);
    char* again;
    nvtxwResultCode_t code = nvtxw_schema_yaml_load_string(second, text, strlen(text), "dump");
    ck_assert_msg(code == NVTXW_RESULT_SUCCESS, "%s\n%s", nvtxw_last_error(), text);
    check_same_registry(first, second);
    again = dump_text(second);
    ck_assert_str_eq(text, again); /* the dump is a fixed point */
    free(again);
    free(text);
    nvtxw_schema_registry_destroy(second);
    nvtxw_schema_registry_destroy(first);
}
END_TEST

static const nvtxPayloadSchemaEntry_t* find_entry(const nvtxPayloadSchemaAttr_t* attr,
                                                  const char* name, size_t* index) {
    for (size_t i = 0; i < attr->numEntries; i++) {
        if (attr->entries[i].name && strcmp(attr->entries[i].name, name) == 0) {
            *index = i;
            return &attr->entries[i];
        }
    }
    ck_abort_msg("no entry %s", name);
    return NULL;
}

/* Spot checks that the keys of all-keys.yaml mean what docs/schemas.md says. */
START_TEST(all_keys_meaning) {
    nvtxw_schema_registry_t* registry = load_data("tests/data/schemas/all-keys.yaml");
    const nvtxw_schema_t *point, *everything;
    const nvtxw_enum_t *gpu_kind, *access;
    nvtxPayloadSchemaAttr_t attr;
    nvtxPayloadEnumAttr_t enum_attr;
    const nvtxPayloadSchemaEntry_t* entry;
    const nvtxSemanticsTime_t* time;
    size_t index;
    nvtxw_schema_registry_at(registry, 0, &point, &gpu_kind);
    nvtxw_enum_get_attr(gpu_kind, &enum_attr);
    ck_assert_uint_eq(enum_attr.schemaId, 0x1000001);
    ck_assert_uint_eq(enum_attr.entries[2].value, UINT64_MAX);
    nvtxw_schema_registry_at(registry, 1, &point, &access);
    nvtxw_enum_get_attr(access, &enum_attr);
    ck_assert_int_eq(enum_attr.entries[1].isFlag, 1);
    nvtxw_schema_registry_at(registry, 2, &point, &access);
    nvtxw_schema_get_attr(point, &attr);
    ck_assert_uint_eq(attr.schemaId, 16777300);
    ck_assert_uint_eq(attr.flags,
                      NVTX_PAYLOAD_SCHEMA_FLAG_DEEP_COPY | NVTX_PAYLOAD_SCHEMA_FLAG_REFERENCED);
    ck_assert_uint_eq(attr.packAlign, 8);
    ck_assert_str_eq(attr.entries[0].description, "horizontal, in pixels");
    nvtxw_schema_registry_at(registry, 5, &everything, &access);
    nvtxw_schema_get_attr(everything, &attr);
    ck_assert_uint_eq(attr.flags, NVTX_PAYLOAD_SCHEMA_FLAG_COUNTER_GROUP);
    entry = find_entry(&attr, "timestamp", &index);
    ck_assert_uint_eq(entry->flags,
                      NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP | NVTX_PAYLOAD_ENTRY_FLAG_MARK);
    time = (const nvtxSemanticsTime_t*)entry->semantics;
    ck_assert_uint_eq(time->header.semanticId, NVTX_SEMANTIC_ID_TIME_V1);
    ck_assert_uint_eq(time->timeDomainId, 16777217);
    ck_assert_uint_eq(time->header.next->semanticId, NVTX_SEMANTIC_ID_SCOPE_V1);
    ck_assert_uint_eq(((const nvtxSemanticsScope_t*)time->header.next)->scopeId, 21);
    ck_assert_uint_eq(find_entry(&attr, "kind", &index)->type, 0x1000001);
    ck_assert_uint_eq(find_entry(&attr, "kind", &index)->flags, NVTX_PAYLOAD_ENTRY_FLAG_COUNTER);
    ck_assert_uint_eq(find_entry(&attr, "mode", &index)->flags, NVTX_PAYLOAD_ENTRY_FLAG_HIDE);
    ck_assert_uint_eq(find_entry(&attr, "value", &index)->arrayOrUnionDetail, 4);
    entry = find_entry(&attr, "label", &index);
    ck_assert_uint_eq(entry->arrayOrUnionDetail, 8);
    ck_assert_uint_eq(entry->flags, NVTX_PAYLOAD_ENTRY_FLAG_EVENT_MESSAGE);
    entry = find_entry(&attr, "samples", &index);
    ck_assert_uint_eq(entry->flags, NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_INDEX);
    ck_assert_uint_eq(entry->arrayOrUnionDetail, 7);
    entry = find_entry(&attr, "grid", &index);
    ck_assert_uint_eq(entry->flags, NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_FIXED_SIZE);
    ck_assert_uint_eq(entry->arrayOrUnionDetail, 4);
    entry = find_entry(&attr, "text", &index);
    ck_assert_uint_eq(entry->flags, NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_ZERO_TERMINATED);
    ck_assert_ptr_nonnull(entry->semantics); /* json: true */
    ck_assert_uint_eq(entry->semantics->semanticId, NVTXW_SEMANTIC_ID_JSON_TEXT);
    ck_assert_uint_eq(entry->semantics->version, NVTXW_SEMANTIC_JSON_TEXT_VERSION);
    ck_assert_uint_eq(entry->semantics->structSize, sizeof(nvtxSemanticsHeader_t));
    ck_assert_ptr_null(entry->semantics->next);
    entry = find_entry(&attr, "other", &index);
    ck_assert_uint_eq(entry->flags, NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_PAYLOAD_INDEX);
    ck_assert_uint_eq(entry->arrayOrUnionDetail, 1);
    ck_assert_uint_eq(find_entry(&attr, "wide", &index)->flags,
                      NVTX_PAYLOAD_ENTRY_FLAG_POINTER | NVTX_PAYLOAD_ENTRY_FLAG_DEEP_COPY);
    ck_assert_uint_eq(find_entry(&attr, "rel2", &index)->flags,
                      NVTX_PAYLOAD_ENTRY_FLAG_OFFSET_FROM_HERE);
    nvtxw_schema_registry_destroy(registry);
}
END_TEST

/* Unknown bits and values without names survive the round trip as numbers. */
START_TEST(roundtrip_numeric_values) {
    static const char text[] =
        "items:\n"
        "  - schema:\n"
        "      kind: dynamic\n"
        "      flags: [deep_copy, 0x80000]\n"
        "      role: 12\n"
        "      entries:\n"
        "        - {name: a, type: int32, flags: [0x10000], semantic: 3, role: 6}\n"
        "        - {name: b, type: cstring, array: zero_terminated, length: 3}\n";
    nvtxw_schema_registry_t* first = nvtxw_schema_registry_create();
    nvtxw_schema_registry_t* second = nvtxw_schema_registry_create();
    nvtxwResultCode_t code = nvtxw_schema_yaml_load_string(first, text, strlen(text), "num");
    char* dumped;
    ck_assert_msg(code == NVTXW_RESULT_SUCCESS, "%s", nvtxw_last_error());
    dumped = dump_text(first);
    ck_assert_int_eq(nvtxw_schema_yaml_load_string(second, dumped, strlen(dumped), NULL),
                     NVTXW_RESULT_SUCCESS);
    check_same_registry(first, second);
    ck_assert_ptr_nonnull(strstr(dumped, "flags: [deep_copy, 524288]"));
    ck_assert_ptr_nonnull(strstr(dumped, "role: 12"));
    ck_assert_ptr_nonnull(strstr(dumped, "flags: [65536], semantic: 3, role: 6"));
    ck_assert_ptr_nonnull(strstr(dumped, "array: zero_terminated, length: 3"));
    free(dumped);
    nvtxw_schema_registry_destroy(second);
    nvtxw_schema_registry_destroy(first);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Errors                                                                     */
/* ------------------------------------------------------------------------- */

typedef struct bad_case {
    const char* yaml;
    nvtxwResultCode_t code;
    const char* where;  /* "bad.yaml:LINE:COLUMN: " */
    const char* phrase; /* names the problem */
} bad_case_t;

#define HEAD "items:\n  - schema:\n      kind: static\n"
#define ENTRY1 "      entries: [{name: a, type: int32}]\n"

static const bad_case_t bad_cases[] = {
    /* YAML syntax */
    {"items: [\n", NVTXW_RESULT_INVALID_ARGUMENT,
     "bad.yaml:2:1: ", "did not find expected node content"},
    {"items:\n  - schema: {kind: static\n", NVTXW_RESULT_INVALID_ARGUMENT,
     "bad.yaml:3:1: ", "did not find expected ',' or '}'"},
    {"items: []\n\txx: 1\n", NVTXW_RESULT_INVALID_ARGUMENT,
     "bad.yaml:2:1: ", "found character that cannot start any token"},
    /* structure and keys */
    {"itemz: []\n", NVTXW_RESULT_INVALID_ARGUMENT, "bad.yaml:1:1: ", "unknown key \"itemz\""},
    {"version: 1\n", NVTXW_RESULT_INVALID_ARGUMENT,
     "bad.yaml:1:1: ", "missing required key \"items\" in the document"},
    {"version: 2\nitems: []\n", NVTXW_RESULT_INVALID_ARGUMENT,
     "bad.yaml:1:10: ", "unsupported version 2"},
    {"- a\n", NVTXW_RESULT_INVALID_ARGUMENT, "bad.yaml:1:1: ", "expected a mapping"},
    {"items:\n  - table: {}\n", NVTXW_RESULT_INVALID_ARGUMENT,
     "bad.yaml:2:5: ", "unknown key \"table\" in item"},
    {HEAD ENTRY1 "      colour: red\n", NVTXW_RESULT_INVALID_ARGUMENT,
     "bad.yaml:5:7: ", "unknown key \"colour\" in schema"},
    {HEAD "      entries: [{name: a, type: int32, size: 4}]\n", NVTXW_RESULT_INVALID_ARGUMENT,
     "bad.yaml:4:40: ", "unknown key \"size\" in entry"},
    {HEAD ENTRY1 "      kind: dynamic\n", NVTXW_RESULT_INVALID_ARGUMENT,
     "bad.yaml:5:7: ", "duplicate key \"kind\" in schema"},
    {"items:\n  - schema:\n      size: 4\n" ENTRY1, NVTXW_RESULT_INVALID_ARGUMENT,
     "bad.yaml:3:7: ", "missing required key \"kind\" in schema"},
    {HEAD "      size: 4\n", NVTXW_RESULT_INVALID_ARGUMENT,
     "bad.yaml:3:7: ", "missing required key \"entries\" in schema"},
    {HEAD "      entries: []\n", NVTXW_RESULT_INVALID_ARGUMENT,
     "bad.yaml:4:16: ", "entries must not be empty"},
    {HEAD "      entries: [{name: a}]\n", NVTXW_RESULT_INVALID_ARGUMENT,
     "bad.yaml:4:17: ", "missing required key \"type\" in entry"},
    /* values */
    {HEAD "      entries: [{name: a, type: int33}]\n", NVTXW_RESULT_INVALID_ARGUMENT,
     "bad.yaml:4:33: ", "unknown type \"int33\""},
    {"items:\n  - schema:\n      kind: stable\n" ENTRY1, NVTXW_RESULT_INVALID_ARGUMENT,
     "bad.yaml:3:13: ", "unknown schema kind \"stable\" (expected static, dynamic"},
    {HEAD "      size: 12x\n" ENTRY1, NVTXW_RESULT_INVALID_ARGUMENT,
     "bad.yaml:4:13: ", "bad number \"12x\" for size"},
    {HEAD "      size: 99999999999999999999999\n" ENTRY1, NVTXW_RESULT_INVALID_ARGUMENT,
     "bad.yaml:4:13: ", "out of range for size"},
    {HEAD "      flags: [deep_copy, shallow]\n" ENTRY1, NVTXW_RESULT_INVALID_ARGUMENT,
     "bad.yaml:4:26: ", "unknown schema flag \"shallow\""},
    {HEAD "      entries: [{name: a, type: int32, flags: [ponter]}]\n",
     NVTXW_RESULT_INVALID_ARGUMENT, "bad.yaml:4:48: ", "unknown entry flag \"ponter\""},
    {HEAD "      role: marker\n" ENTRY1, NVTXW_RESULT_INVALID_ARGUMENT,
     "bad.yaml:4:13: ", "unknown schema role \"marker\""},
    {HEAD "      id: 5\n" ENTRY1, NVTXW_RESULT_INVALID_ARGUMENT,
     "bad.yaml:4:11: ", "id 5 out of range"},
    {"items:\n  - enum: {size: 3, values: [{name: a, value: 1}]}\n", NVTXW_RESULT_INVALID_ARGUMENT,
     "bad.yaml:2:18: ", "enum size 3 out of range"},
    {"items:\n  - enum: {size: 4, values: [{name: a, value: 1, flag: maybe}]}\n",
     NVTXW_RESULT_INVALID_ARGUMENT, "bad.yaml:2:56: ", "bad boolean \"maybe\""},
    {HEAD "      entries: [{name: a, type: int32, json: maybe}]\n", NVTXW_RESULT_INVALID_ARGUMENT,
     "bad.yaml:4:46: ", "bad boolean \"maybe\" for json"},
    {HEAD "      entries: [{name: a, type: int32, json: true}]\n", NVTXW_RESULT_INVALID_ARGUMENT,
     "bad.yaml:", "the JSON-text semantic needs a CSTRING_UTF8 or CSTRING entry"},
    {HEAD "      entries: [{name: a, type: int32, array: 4, length: 3}]\n",
     NVTXW_RESULT_INVALID_ARGUMENT, "bad.yaml:4:58: ", "\"length\" conflicts with \"array\""},
    {HEAD "      entries: [{name: a, type: int32, array: {length_index: n}}]\n",
     NVTXW_RESULT_INVALID_ARGUMENT, "bad.yaml:4:62: ", "no entry named \"n\""},
    {HEAD "      entries: [{name: a, type: int32, array: sometimes}]\n",
     NVTXW_RESULT_INVALID_ARGUMENT, "bad.yaml:4:47: ", "bad array \"sometimes\""},
    /* names */
    {"items:\n  - schema: {name: p, kind: static, entries: [{type: int8}]}\n"
     "  - schema: {name: p, kind: static, entries: [{type: int8}]}\n",
     NVTXW_RESULT_INVALID_ARGUMENT, "bad.yaml:3:20: ", "duplicate name \"p\""},
    {"items:\n  - enum: {name: int64, size: 8, values: [{name: a, value: 1}]}\n",
     NVTXW_RESULT_INVALID_ARGUMENT, "bad.yaml:2:18: ", "is a predefined type name"},
    {"items:\n  - schema: {name: outer, kind: static, entries: [{type: inner}]}\n"
     "  - schema: {name: inner, kind: static, entries: [{type: int8}]}\n",
     NVTXW_RESULT_INVALID_ARGUMENT, "bad.yaml:2:58: ", "unknown type \"inner\""},
    {"items:\n  - schema: {kind: static, entries: [{type: int8}]}\n"
     "  - schema: {kind: static, entries: [{type: ''}]}\n",
     NVTXW_RESULT_INVALID_ARGUMENT, "bad.yaml:3:45: ", "unknown type \"\""},
    {"items:\n  - schema: &a {kind: static}\n", NVTXW_RESULT_INVALID_ARGUMENT,
     "bad.yaml:2:13: ", "anchors are not supported"},
    {"items:\n  - schema: {kind: static, entries: [{type: int8}]}\n  - *a\n",
     NVTXW_RESULT_INVALID_ARGUMENT, "bad.yaml:3:5: ", "aliases are not supported"},
    {"items:\n  - schema: !!map {kind: static}\n", NVTXW_RESULT_INVALID_ARGUMENT,
     "bad.yaml:2:13: ", "tags are not supported"},
    {"items:\n  - schema: {kind: static, entries: [{type: int8}]}\n    enum: {}\n",
     NVTXW_RESULT_INVALID_ARGUMENT, "bad.yaml:3:5: ", "exactly one schema: or enum:"},
    /* the registry's verdict, placed at the item */
    {HEAD "      size: 2\n      entries: [{name: a, type: int32}]\n", NVTXW_RESULT_INVALID_ARGUMENT,
     "bad.yaml:3:7: ", "smaller than"},
};

START_TEST(bad_yaml) {
    const bad_case_t* bad = &bad_cases[_i];
    nvtxw_schema_registry_t* registry = nvtxw_schema_registry_create();
    nvtxwResultCode_t code =
        nvtxw_schema_yaml_load_string(registry, bad->yaml, strlen(bad->yaml), "bad.yaml");
    const char* message = nvtxw_last_error();
    ck_assert_msg(code == bad->code, "case %d: code %d: %s", _i, code, message);
    ck_assert_msg(strncmp(message, bad->where, strlen(bad->where)) == 0,
                  "case %d: expected position \"%s\" in \"%s\"", _i, bad->where, message);
    ck_assert_msg(strstr(message, bad->phrase) != NULL, "case %d: expected \"%s\" in \"%s\"", _i,
                  bad->phrase, message);
    nvtxw_schema_registry_destroy(registry);
}
END_TEST

/* Items before the bad one stay registered; nothing after it is. */
START_TEST(bad_item_keeps_earlier_items) {
    static const char text[] = "items:\n"
                               "  - enum: {name: e, size: 1, values: [{name: a, value: 1}]}\n"
                               "  - schema: {kind: static, entries: [{type: nope}]}\n"
                               "  - enum: {name: f, size: 1, values: [{name: a, value: 1}]}\n";
    nvtxw_schema_registry_t* registry = nvtxw_schema_registry_create();
    ck_assert_int_eq(nvtxw_schema_yaml_load_string(registry, text, strlen(text), NULL),
                     NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_msg(strstr(nvtxw_last_error(), "<string>:3:45: unknown type \"nope\"") != NULL, "%s",
                  nvtxw_last_error());
    ck_assert_uint_eq(nvtxw_schema_registry_count(registry), 1);
    nvtxw_schema_registry_destroy(registry);
}
END_TEST

START_TEST(empty_input_registers_nothing) {
    nvtxw_schema_registry_t* registry = nvtxw_schema_registry_create();
    ck_assert_int_eq(nvtxw_schema_yaml_load_string(registry, "", 0, NULL), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(nvtxw_schema_yaml_load_string(registry, "items: []\n", 10, NULL),
                     NVTXW_RESULT_SUCCESS);
    ck_assert_uint_eq(nvtxw_schema_registry_count(registry), 0);
    nvtxw_schema_registry_destroy(registry);
}
END_TEST

START_TEST(bad_arguments_and_files) {
    nvtxw_schema_registry_t* registry = nvtxw_schema_registry_create();
    buffer_t failing = {NULL, 0, 1};
    char* path = data_path("tests/data/schemas/no-such-file.yaml");
    ck_assert_int_eq(nvtxw_schema_yaml_load_string(NULL, "", 0, NULL),
                     NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_int_eq(nvtxw_schema_yaml_load_file(registry, NULL), NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_int_eq(nvtxw_schema_yaml_dump(NULL, buffer_write, &failing),
                     NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_int_eq(nvtxw_schema_yaml_load_file(registry, path), NVTXW_RESULT_FAILED);
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "no-such-file.yaml"));
    ck_assert_int_eq(nvtxw_schema_yaml_dump(registry, buffer_write, &failing), NVTXW_RESULT_FAILED);
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "write callback failed"));
    free(path);
    nvtxw_schema_registry_destroy(registry);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Hostile input                                                              */
/* ------------------------------------------------------------------------- */

static void expect_failure(const char* text, size_t length, const char* phrase) {
    nvtxw_schema_registry_t* registry = nvtxw_schema_registry_create();
    nvtxwResultCode_t code = nvtxw_schema_yaml_load_string(registry, text, length, "hostile");
    ck_assert_int_eq(code, NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_msg(strstr(nvtxw_last_error(), phrase) != NULL, "expected \"%s\" in \"%s\"", phrase,
                  nvtxw_last_error());
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "hostile:"));
    nvtxw_schema_registry_destroy(registry);
}

static void expect_text_failure(const char* text, const char* phrase) {
    expect_failure(text, strlen(text), phrase);
}

START_TEST(hostile_deep_nesting) {
    size_t depth = 200000;
    char* text = malloc(depth + 16);
    memcpy(text, "items: ", 7);
    memset(text + 7, '[', depth);
    expect_failure(text, depth + 7, "expected a mapping for an item");
    free(text);
}
END_TEST

START_TEST(hostile_too_many_entries) {
    static const char head[] = HEAD "      entries:\n";
    static const char line[] = "        - {type: int8}\n";
    size_t count = 65536;
    size_t length = strlen(head) + count * strlen(line);
    char* text = malloc(length + 1);
    char* at = text;
    memcpy(at, head, strlen(head));
    at += strlen(head);
    for (size_t i = 0; i < count; i++, at += strlen(line))
        memcpy(at, line, strlen(line));
    expect_failure(text, length, "too many entries (limit 65535)");
    free(text);
}
END_TEST

START_TEST(hostile_long_string_and_numbers) {
    size_t length = 100000;
    char* text = malloc(length + 64);
    int used = snprintf(text, 64, HEAD "      name: ");
    memset(text + used, 'x', length);
    expect_failure(text, (size_t)used + length, "schema name is too long");
    expect_text_failure(HEAD "      entries: [{type: 0x1FFFFFFFFFFFFFFFF}]\n",
                        "out of range for type");
    expect_text_failure("items: [{schema: {kind: static, entries: [{type: \"a\\0b\"}]}}]\n",
                        "unknown type");
    expect_text_failure(HEAD "      entries: [{name: \"a\\0b\", type: int8}]\n",
                        "contains a NUL character");
    free(text);
}
END_TEST

/* Every allocation failure on the load and dump paths fails cleanly (the
 * sanitizer build checks for leaks). */
START_TEST(allocation_failures) {
    char* path = data_path("tests/data/schemas/all-keys.yaml");
    nvtxw_schema_registry_t* source = load_data("tests/data/schemas/all-keys.yaml");
    int loaded = 0;
    int dumped = 0;
    for (long budget = 0; !(loaded && dumped) && budget < 100000; budget++) {
        nvtxw_schema_registry_t* registry = nvtxw_schema_registry_create();
        buffer_t buffer = {NULL, 0, 0};
        nvtxwResultCode_t code;
        if (registry == NULL)
            continue;
        nvtxw_alloc_fail_after(budget);
        code = nvtxw_schema_yaml_load_file(registry, path);
        if (code == NVTXW_RESULT_SUCCESS)
            loaded = 1;
        else
            ck_assert_msg(code == NVTXW_RESULT_FAILED, "budget %ld: %s", budget,
                          nvtxw_last_error());
        nvtxw_alloc_fail_after(budget);
        code = nvtxw_schema_yaml_dump(source, buffer_write, &buffer);
        nvtxw_alloc_fail_after(-1);
        if (code == NVTXW_RESULT_SUCCESS)
            dumped = 1;
        else
            ck_assert_int_eq(code, NVTXW_RESULT_FAILED);
        free(buffer.data);
        nvtxw_schema_registry_destroy(registry);
    }
    nvtxw_alloc_fail_after(-1);
    ck_assert(loaded && dumped);
    nvtxw_schema_registry_destroy(source);
    free(path);
}
END_TEST

static Suite* schema_yaml_suite(void) {
    Suite* suite = suite_create("schema_yaml");
    TCase* shipped = tcase_create("shipped");
    TCase* roundtrips = tcase_create("roundtrip");
    TCase* errors = tcase_create("errors");
    TCase* hostile = tcase_create("hostile");
    tcase_add_test(shipped, helpers_match_spec);
    tcase_add_test(shipped, helpers_match_direct_registration);
    tcase_add_test(shipped, counters_match_spec);
    tcase_add_loop_test(roundtrips, roundtrip, 0,
                        (int)(sizeof roundtrip_files / sizeof roundtrip_files[0]));
    tcase_add_test(roundtrips, all_keys_meaning);
    tcase_add_test(roundtrips, roundtrip_numeric_values);
    tcase_add_loop_test(errors, bad_yaml, 0, (int)(sizeof bad_cases / sizeof bad_cases[0]));
    tcase_add_test(errors, bad_item_keeps_earlier_items);
    tcase_add_test(errors, empty_input_registers_nothing);
    tcase_add_test(errors, bad_arguments_and_files);
    tcase_add_test(hostile, hostile_deep_nesting);
    tcase_add_test(hostile, hostile_too_many_entries);
    tcase_add_test(hostile, hostile_long_string_and_numbers);
    tcase_add_test(hostile, allocation_failures);
    suite_add_tcase(suite, shipped);
    suite_add_tcase(suite, roundtrips);
    suite_add_tcase(suite, errors);
    suite_add_tcase(suite, hostile);
    return suite;
}

int main(void) { return tu_run_suite(schema_yaml_suite()); }
