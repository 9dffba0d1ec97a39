/*
 * tests/unit/schema_yaml_check.h - helpers shared by the YAML schema tests:
 * data files under top_srcdir, dumping to a string, and the comparison of
 * two registries attribute by attribute (strings: NULL and "" differ;
 * counter limits: bit for bit).
 */
#ifndef NVTXW_TESTS_SCHEMA_YAML_CHECK_H
#define NVTXW_TESTS_SCHEMA_YAML_CHECK_H

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvtxw/error.h"
#include "nvtxw/schema_yaml.h"

/* ------------------------------------------------------------------------- */
/* Helpers                                                                    */
/* ------------------------------------------------------------------------- */

static inline char* data_path(const char* relative) {
    const char* top = getenv("top_srcdir");
    size_t size;
    char* path;
    if (top == NULL || top[0] == '\0')
        top = ".";
    size = strlen(top) + strlen(relative) + 2;
    path = malloc(size);
    ck_assert_ptr_nonnull(path);
    snprintf(path, size, "%s/%s", top, relative);
    return path;
}

static inline nvtxw_schema_registry_t* load_data(const char* relative) {
    nvtxw_schema_registry_t* registry = nvtxw_schema_registry_create();
    char* path = data_path(relative);
    nvtxwResultCode_t code;
    ck_assert_ptr_nonnull(registry);
    code = nvtxw_schema_yaml_load_file(registry, path);
    ck_assert_msg(code == NVTXW_RESULT_SUCCESS, "%s: %s", path, nvtxw_last_error());
    free(path);
    return registry;
}

typedef struct buffer {
    char* data;
    size_t size;
    int fail; /* non-zero: every write fails */
} buffer_t;

static inline int buffer_write(void* ctx, const char* data, size_t size) {
    buffer_t* buffer = ctx;
    char* grown;
    if (buffer->fail)
        return 1;
    grown = realloc(buffer->data, buffer->size + size + 1);
    ck_assert_ptr_nonnull(grown);
    memcpy(grown + buffer->size, data, size);
    buffer->data = grown;
    buffer->size += size;
    buffer->data[buffer->size] = '\0';
    return 0;
}

static inline char* dump_text(const nvtxw_schema_registry_t* registry) {
    buffer_t buffer = {NULL, 0, 0};
    nvtxwResultCode_t code = nvtxw_schema_yaml_dump(registry, buffer_write, &buffer);
    ck_assert_msg(code == NVTXW_RESULT_SUCCESS, "dump: %s", nvtxw_last_error());
    ck_assert_ptr_nonnull(buffer.data);
    return buffer.data;
}

/* NULL and "" are the same absent name (the registry may store either). */
static inline int same_string(const char* a, const char* b) {
    return strcmp(a ? a : "", b ? b : "") == 0;
}

/* Registration index of schema/enum `id`, or SIZE_MAX. */
static inline size_t index_of(const nvtxw_schema_registry_t* registry, uint64_t id) {
    for (size_t i = 0; i < nvtxw_schema_registry_count(registry); i++) {
        const nvtxw_schema_t* schema;
        const nvtxw_enum_t* enumeration;
        nvtxw_schema_registry_at(registry, i, &schema, &enumeration);
        if ((schema && nvtxw_schema_id(schema) == id) ||
            (enumeration && nvtxw_enum_id(enumeration) == id))
            return i;
    }
    return SIZE_MAX;
}

/* IDs match when both are the same static ID, or both dynamic IDs of the
 * items at the same registration index (dynamic IDs may differ between
 * registries). */
static inline void check_same_id(const nvtxw_schema_registry_t* a, uint64_t ida,
                                 const nvtxw_schema_registry_t* b, uint64_t idb,
                                 const char* where) {
    if (ida < NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START) {
        ck_assert_msg(ida == idb, "%s: id %llu != %llu", where, (unsigned long long)ida,
                      (unsigned long long)idb);
        return;
    }
    ck_assert_msg(idb >= NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START, "%s: dynamic vs static id", where);
    ck_assert_msg(index_of(a, ida) == index_of(b, idb), "%s: ids refer to different items", where);
}

static inline void check_same_counter(const nvtxSemanticsCounter_t* a,
                                      const nvtxSemanticsCounter_t* b) {
    ck_assert_uint_eq(a->flags, b->flags);
    ck_assert((a->unit == NULL) == (b->unit == NULL));
    ck_assert(same_string(a->unit, b->unit));
    ck_assert_uint_eq(a->unitScaleNumerator, b->unitScaleNumerator);
    ck_assert_uint_eq(a->unitScaleDenominator, b->unitScaleDenominator);
    ck_assert_int_eq(a->limitType, b->limitType);
    ck_assert_uint_eq(a->min.u64, b->min.u64); /* the bits: -0.0 and NaN included */
    ck_assert_uint_eq(a->max.u64, b->max.u64);
}

static inline void check_same_semantics(const nvtxSemanticsHeader_t* a,
                                        const nvtxSemanticsHeader_t* b) {
    for (; a != NULL && b != NULL; a = a->next, b = b->next) {
        ck_assert_uint_eq(a->semanticId, b->semanticId);
        ck_assert_uint_eq(a->version, b->version);
        ck_assert_uint_eq(a->structSize, b->structSize);
        if (a->semanticId == NVTX_SEMANTIC_ID_TIME_V1)
            ck_assert_uint_eq(((const nvtxSemanticsTime_t*)a)->timeDomainId,
                              ((const nvtxSemanticsTime_t*)b)->timeDomainId);
        if (a->semanticId == NVTX_SEMANTIC_ID_SCOPE_V1)
            ck_assert_uint_eq(((const nvtxSemanticsScope_t*)a)->scopeId,
                              ((const nvtxSemanticsScope_t*)b)->scopeId);
        if (a->semanticId == NVTX_SEMANTIC_ID_COUNTERS_V1)
            check_same_counter((const nvtxSemanticsCounter_t*)a, (const nvtxSemanticsCounter_t*)b);
    }
    ck_assert(a == NULL && b == NULL);
}

static inline void check_same_schema(const nvtxw_schema_registry_t* ra, const nvtxw_schema_t* sa,
                                     const nvtxw_schema_registry_t* rb, const nvtxw_schema_t* sb) {
    nvtxPayloadSchemaAttr_t a, b;
    nvtxw_schema_get_attr(sa, &a);
    nvtxw_schema_get_attr(sb, &b);
    ck_assert_uint_eq(a.fieldMask, b.fieldMask);
    ck_assert(same_string(a.name, b.name));
    ck_assert_uint_eq(a.type, b.type);
    ck_assert_uint_eq(a.flags, b.flags);
    ck_assert_uint_eq(a.numEntries, b.numEntries);
    ck_assert_uint_eq(a.payloadStaticSize, b.payloadStaticSize);
    ck_assert_uint_eq(a.packAlign, b.packAlign);
    check_same_id(ra, a.schemaId, rb, b.schemaId, "schema");
    for (size_t i = 0; i < a.numEntries; i++) {
        const nvtxPayloadSchemaEntry_t* x = &a.entries[i];
        const nvtxPayloadSchemaEntry_t* y = &b.entries[i];
        ck_assert_uint_eq(x->flags, y->flags);
        if (x->type < NVTX_PAYLOAD_SCHEMA_ID_STATIC_START)
            ck_assert_uint_eq(x->type, y->type);
        else
            check_same_id(ra, x->type, rb, y->type, "entry type");
        ck_assert(same_string(x->name, y->name) && (x->name == NULL) == (y->name == NULL));
        ck_assert(same_string(x->description, y->description) &&
                  (x->description == NULL) == (y->description == NULL));
        ck_assert_uint_eq(x->arrayOrUnionDetail, y->arrayOrUnionDetail);
        ck_assert_uint_eq(x->offset, y->offset);
        check_same_semantics(x->semantics, y->semantics);
    }
}

static inline void check_same_enum(const nvtxw_schema_registry_t* ra, const nvtxw_enum_t* ea,
                                   const nvtxw_schema_registry_t* rb, const nvtxw_enum_t* eb) {
    nvtxPayloadEnumAttr_t a, b;
    nvtxw_enum_get_attr(ea, &a);
    nvtxw_enum_get_attr(eb, &b);
    ck_assert_uint_eq(a.fieldMask, b.fieldMask);
    ck_assert(same_string(a.name, b.name));
    ck_assert_uint_eq(a.numEntries, b.numEntries);
    ck_assert_uint_eq(a.sizeOfEnum, b.sizeOfEnum);
    check_same_id(ra, a.schemaId, rb, b.schemaId, "enum");
    for (size_t i = 0; i < a.numEntries; i++) {
        ck_assert(same_string(a.entries[i].name, b.entries[i].name));
        ck_assert_uint_eq(a.entries[i].value, b.entries[i].value);
        ck_assert_int_eq(a.entries[i].isFlag, b.entries[i].isFlag);
    }
}

/* Both registries hold the same registrations, in the same order. */
static inline void check_same_registry(const nvtxw_schema_registry_t* a,
                                       const nvtxw_schema_registry_t* b) {
    ck_assert_uint_eq(nvtxw_schema_registry_count(a), nvtxw_schema_registry_count(b));
    for (size_t i = 0; i < nvtxw_schema_registry_count(a); i++) {
        const nvtxw_schema_t *sa, *sb;
        const nvtxw_enum_t *ea, *eb;
        nvtxw_schema_registry_at(a, i, &sa, &ea);
        nvtxw_schema_registry_at(b, i, &sb, &eb);
        ck_assert((sa == NULL) == (sb == NULL));
        if (sa != NULL)
            check_same_schema(a, sa, b, sb);
        else
            check_same_enum(a, ea, b, eb);
    }
}

/* Loads `text`, dumps it, reloads the dump: same attrs, same dump. Returns
 * the dump (to free). */
static inline char* roundtrip_text(const char* text) {
    nvtxw_schema_registry_t* first = nvtxw_schema_registry_create();
    nvtxw_schema_registry_t* second = nvtxw_schema_registry_create();
    char *dumped, *again;
    ck_assert_msg(nvtxw_schema_yaml_load_string(first, text, strlen(text), "rt") ==
                      NVTXW_RESULT_SUCCESS,
                  "%s", nvtxw_last_error());
    dumped = dump_text(first);
    ck_assert_msg(nvtxw_schema_yaml_load_string(second, dumped, strlen(dumped), "dump") ==
                      NVTXW_RESULT_SUCCESS,
                  "%s\n%s", nvtxw_last_error(), dumped);
    check_same_registry(first, second);
    again = dump_text(second);
    ck_assert_str_eq(dumped, again);
    free(again);
    nvtxw_schema_registry_destroy(second);
    nvtxw_schema_registry_destroy(first);
    return dumped;
}

#endif /* NVTXW_TESTS_SCHEMA_YAML_CHECK_H */
