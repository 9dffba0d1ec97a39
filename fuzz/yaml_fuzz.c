/*
 * fuzz/yaml_fuzz.c - libFuzzer target for the YAML schema loader and dumper.
 *
 * Input: any bytes, loaded with nvtxw_schema_yaml_load_string into a fresh
 * registry. When the load succeeds (items registered before an error stay
 * registered, so a failing load is checked too), the registry is dumped,
 * the dump is loaded into a second fresh registry, and the two registries
 * must hold the same attributes entry by entry, semantics chains included
 * (docs/schemas.md, "Dumping": load(dump(load(x))) == load(x)). The dump of
 * the second registry must equal the first dump byte for byte. Any
 * difference aborts with both dumps on stderr. See fuzz/README.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvtxw/error.h"
#include "nvtxw/schema_yaml.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

typedef struct text {
    char* data;
    size_t size;
    size_t capacity;
} text_t;

static int text_write(void* ctx, const char* data, size_t size) {
    text_t* text = ctx;
    if (text->size + size + 1 > text->capacity) {
        size_t capacity = (text->size + size + 1) * 2;
        char* grown = realloc(text->data, capacity);
        if (grown == NULL)
            return -1;
        text->data = grown;
        text->capacity = capacity;
    }
    memcpy(text->data + text->size, data, size);
    text->size += size;
    text->data[text->size] = '\0';
    return 0;
}

static const char* first_dump;
static const char* second_dump;

static void mismatch(const char* what, size_t item, size_t entry) {
    fprintf(stderr,
            "round trip mismatch: %s (item %zu, entry %zu)\n--- dump 1\n%s\n--- dump 2\n%s\n", what,
            item, entry, first_dump ? first_dump : "", second_dump ? second_dump : "");
    abort();
}

#define CHECK(cond, what, item, entry)                                                             \
    do {                                                                                           \
        if (!(cond))                                                                               \
            mismatch(what, item, entry);                                                           \
    } while (0)

/* NULL and "" are different attributes: both must survive the round trip. */
static int same_string(const char* a, const char* b) {
    if (a == NULL || b == NULL)
        return a == b;
    return strcmp(a, b) == 0;
}

static int same_counter(const nvtxSemanticsCounter_t* a, const nvtxSemanticsCounter_t* b) {
    return a->flags == b->flags && same_string(a->unit, b->unit) &&
           a->unitScaleNumerator == b->unitScaleNumerator &&
           a->unitScaleDenominator == b->unitScaleDenominator && a->limitType == b->limitType &&
           a->min.u64 == b->min.u64 && a->max.u64 == b->max.u64;
}

static int same_semantics(const nvtxSemanticsHeader_t* a, const nvtxSemanticsHeader_t* b) {
    for (; a != NULL && b != NULL; a = a->next, b = b->next) {
        if (a->semanticId != b->semanticId || a->version != b->version ||
            a->structSize != b->structSize)
            return 0;
        if (a->semanticId == NVTX_SEMANTIC_ID_TIME_V1 &&
            ((const nvtxSemanticsTime_t*)a)->timeDomainId !=
                ((const nvtxSemanticsTime_t*)b)->timeDomainId)
            return 0;
        if (a->semanticId == NVTX_SEMANTIC_ID_SCOPE_V1 &&
            ((const nvtxSemanticsScope_t*)a)->scopeId != ((const nvtxSemanticsScope_t*)b)->scopeId)
            return 0;
        if (a->semanticId == NVTX_SEMANTIC_ID_COUNTERS_V1 &&
            !same_counter((const nvtxSemanticsCounter_t*)a, (const nvtxSemanticsCounter_t*)b))
            return 0;
    }
    return a == NULL && b == NULL;
}

/* Both registries are fresh and register in the same order, so even dynamic
 * IDs must match exactly. */
static void check_schema(const nvtxw_schema_t* sa, const nvtxw_schema_t* sb, size_t item) {
    nvtxPayloadSchemaAttr_t a, b;
    nvtxw_schema_get_attr(sa, &a);
    nvtxw_schema_get_attr(sb, &b);
    CHECK(a.fieldMask == b.fieldMask, "schema fieldMask", item, 0);
    CHECK(same_string(a.name, b.name), "schema name", item, 0);
    CHECK(a.type == b.type && a.flags == b.flags, "schema type or flags", item, 0);
    CHECK(a.numEntries == b.numEntries, "numEntries", item, 0);
    CHECK(a.payloadStaticSize == b.payloadStaticSize, "payloadStaticSize", item, 0);
    CHECK(a.packAlign == b.packAlign && a.schemaId == b.schemaId, "packAlign or id", item, 0);
    for (size_t i = 0; i < a.numEntries; i++) {
        const nvtxPayloadSchemaEntry_t* x = &a.entries[i];
        const nvtxPayloadSchemaEntry_t* y = &b.entries[i];
        CHECK(x->flags == y->flags && x->type == y->type, "entry flags or type", item, i);
        CHECK(same_string(x->name, y->name), "entry name", item, i);
        CHECK(same_string(x->description, y->description), "entry description", item, i);
        CHECK(x->arrayOrUnionDetail == y->arrayOrUnionDetail, "entry detail", item, i);
        CHECK(x->offset == y->offset, "entry offset", item, i);
        CHECK(same_semantics(x->semantics, y->semantics), "entry semantics", item, i);
    }
}

static void check_enum(const nvtxw_enum_t* ea, const nvtxw_enum_t* eb, size_t item) {
    nvtxPayloadEnumAttr_t a, b;
    nvtxw_enum_get_attr(ea, &a);
    nvtxw_enum_get_attr(eb, &b);
    CHECK(a.fieldMask == b.fieldMask && a.schemaId == b.schemaId, "enum fieldMask or id", item, 0);
    CHECK(same_string(a.name, b.name), "enum name", item, 0);
    CHECK(a.numEntries == b.numEntries && a.sizeOfEnum == b.sizeOfEnum, "enum size", item, 0);
    for (size_t i = 0; i < a.numEntries; i++) {
        CHECK(same_string(a.entries[i].name, b.entries[i].name), "enum value name", item, i);
        CHECK(a.entries[i].value == b.entries[i].value, "enum value", item, i);
        CHECK(a.entries[i].isFlag == b.entries[i].isFlag, "enum isFlag", item, i);
    }
}

static void check_same(const nvtxw_schema_registry_t* a, const nvtxw_schema_registry_t* b) {
    size_t count = nvtxw_schema_registry_count(a);
    CHECK(count == nvtxw_schema_registry_count(b), "registration count", count, 0);
    for (size_t i = 0; i < count; i++) {
        const nvtxw_schema_t *sa, *sb;
        const nvtxw_enum_t *ea, *eb;
        nvtxw_schema_registry_at(a, i, &sa, &ea);
        nvtxw_schema_registry_at(b, i, &sb, &eb);
        CHECK((sa == NULL) == (sb == NULL), "schema vs enum", i, 0);
        if (sa != NULL)
            check_schema(sa, sb, i);
        else
            check_enum(ea, eb, i);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    nvtxw_schema_registry_t* first = nvtxw_schema_registry_create();
    nvtxw_schema_registry_t* second = nvtxw_schema_registry_create();
    text_t dump1 = {NULL, 0, 0};
    text_t dump2 = {NULL, 0, 0};
    if (first == NULL || second == NULL)
        abort();
    (void)nvtxw_schema_yaml_load_string(first, (const char*)data, size, "fuzz");
    if (nvtxw_schema_yaml_dump(first, text_write, &dump1) != NVTXW_RESULT_SUCCESS) {
        fprintf(stderr, "dump failed: %s\n", nvtxw_last_error());
        abort();
    }
    first_dump = dump1.data;
    if (nvtxw_schema_yaml_load_string(second, dump1.data, dump1.size, "dump") !=
        NVTXW_RESULT_SUCCESS) {
        fprintf(stderr, "reload failed: %s\n%s\n", nvtxw_last_error(), dump1.data);
        abort();
    }
    check_same(first, second);
    if (nvtxw_schema_yaml_dump(second, text_write, &dump2) != NVTXW_RESULT_SUCCESS)
        abort();
    second_dump = dump2.data;
    CHECK(dump1.size == dump2.size && memcmp(dump1.data, dump2.data, dump1.size) == 0,
          "second dump differs", 0, 0);
    first_dump = second_dump = NULL;
    free(dump1.data);
    free(dump2.data);
    nvtxw_schema_registry_destroy(second);
    nvtxw_schema_registry_destroy(first);
    return 0;
}
