/*
 * tests/unit/format_test.c - nvtxw_payload_format_json / _text against golden
 * files, plus their error paths and nvtxw_write_to_file.
 *
 * Each golden case registers schemas covering one family of value kinds,
 * encodes an event's payloads, formats them both ways and checks each output
 * three times: (1) against an expectation the case assembles from its own
 * input (expect_t: every value printed with printf from the bytes it encoded,
 * escapes written by hand with their derivation, in the shapes nvtxw/format.h
 * specifies), (2) byte for byte against tests/data/golden/<case>.json and
 * <case>.txt (located through the top_srcdir environment variable that
 * tests/local.mk exports), and, for JSON, (3) with an independent parser,
 * Python's json module (python3 must be on PATH; without it the test fails).
 * test_expect_catches_mutation shows that (1) reports a changed value.
 *
 * Regenerating: NVTXW_UPDATE_GOLDEN=1 make check TESTS=tests/unit/format_test
 * rewrites the golden files of every case whose output still matches its
 * input-derived expectation and then FAILS by design ("rewrote FILE: review
 * the diff, then run again without NVTXW_UPDATE_GOLDEN"), so a leaked
 * variable can never turn the test green.
 *
 * The byte layouts assume LP64 (ADDRESS and size_t are 8 bytes).
 */
#define _POSIX_C_SOURCE 200809L /* test_util.h */
#include <check.h>
#include <float.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvtxw/error.h"
#include "nvtxw/format.h"
#include "nvtxw/payload.h"
#include "test_util.h"

/* ------------------------------------------------------------------------- */
/* Output capture, golden files, JSON validation                              */
/* ------------------------------------------------------------------------- */

typedef struct capture {
    char* data;
    size_t size;
    size_t capacity;
    size_t calls;
    size_t max_chunk;
    long fail_at_call; /* 1-based call that fails; 0 = never */
} capture_t;

static int capture_write(void* ctx, const char* data, size_t size) {
    capture_t* capture = ctx;

    capture->calls++;
    if (capture->fail_at_call > 0 && capture->calls >= (size_t)capture->fail_at_call)
        return -5;
    if (size > capture->max_chunk)
        capture->max_chunk = size;
    if (capture->size + size + 1 > capture->capacity) {
        size_t capacity = (capture->size + size + 1) * 2;
        char* grown = realloc(capture->data, capacity);
        ck_assert_ptr_nonnull(grown);
        capture->data = grown;
        capture->capacity = capacity;
    }
    memcpy(capture->data + capture->size, data, size);
    capture->size += size;
    capture->data[capture->size] = '\0';
    return 0;
}

static void capture_free(capture_t* capture) {
    free(capture->data);
    memset(capture, 0, sizeof *capture);
}

static void golden_path(char* path, size_t size, const char* name, const char* ext) {
    const char* top = getenv("top_srcdir");

    ck_assert_msg(top != NULL, "top_srcdir is not set (run through make check)");
    snprintf(path, size, "%s/tests/data/golden/%s.%s", top, name, ext);
}

static void golden_update(const char* path, const capture_t* got) {
    FILE* file = fopen(path, "wb");

    ck_assert_msg(file != NULL, "cannot write %s", path);
    ck_assert_uint_eq(fwrite(got->data, 1, got->size, file), got->size);
    ck_assert_int_eq(fclose(file), 0);
}

/* Compares `got` with golden/<name>.<ext>. In update mode
 * (NVTXW_UPDATE_GOLDEN=1) it rewrites the file instead and appends its path
 * to `rewritten`: the caller then fails the test. */
static void check_golden(const char* name, const char* ext, const capture_t* got, char* rewritten,
                         size_t rewritten_size) {
    char path[4096];
    char* expected;
    size_t size = 0;
    const char* update = getenv("NVTXW_UPDATE_GOLDEN");

    golden_path(path, sizeof path, name, ext);
    if (update != NULL && strcmp(update, "1") == 0) {
        size_t used = strlen(rewritten);
        golden_update(path, got);
        snprintf(rewritten + used, rewritten_size - used, "%s%s", used > 0 ? ", " : "", path);
        return;
    }
    expected = tu_read_file_or_null(path, &size);
    ck_assert_msg(expected != NULL, "cannot open golden file %s", path);
    ck_assert_msg(size == got->size && memcmp(expected, got->data, got->size) == 0,
                  "%s differs; got %zu bytes:\n%.2000s", path, got->size,
                  got->data ? got->data : "");
    free(expected);
}

/* ------------------------------------------------------------------------- */
/* Expected output written from the input                                     */
/* ------------------------------------------------------------------------- */

/* The JSON and text a case must produce, assembled from the case's own input
 * in the shapes of nvtxw/format.h: JSON {"count":N,"payloads":[{"index":I,
 * "schemaId":S,"size":Z,"schemaName":..,"fields":{"k":v,..}},..]}, text
 * "[I] title: k=v, k=v\n". Values are printed by the case with printf from
 * the values it encoded, never copied from a golden file. */
typedef struct expect {
    char json[4096];
    char text[4096];
    int fields; /* in the current payload; -1 before the first payload */
} expect_t;

static void expect_append(char* buffer, size_t size, const char* format, ...) {
    size_t used = strlen(buffer);
    va_list args;
    int n;

    va_start(args, format);
    n = vsnprintf(buffer + used, size - used, format, args);
    va_end(args);
    ck_assert_msg(n >= 0 && (size_t)n < size - used, "expectation longer than %zu bytes", size);
}

/* printf into one of 64 rotating buffers: values for expect_field (one
 * call uses a few; double_array one per element). */
static const char* S(const char* format, ...) {
    static char buffers[64][512];
    static unsigned next;
    char* buffer = buffers[next++ % 64];
    va_list args;
    int n;

    va_start(args, format);
    n = vsnprintf(buffer, sizeof buffers[0], format, args);
    va_end(args);
    ck_assert(n >= 0 && (size_t)n < sizeof buffers[0]);
    return buffer;
}

static void expect_init(expect_t* e, size_t count) {
    e->json[0] = '\0';
    e->text[0] = '\0';
    e->fields = -1;
    expect_append(e->json, sizeof e->json, "{\"count\":%zu,\"payloads\":[", count);
}

static void expect_close_payload(expect_t* e) {
    if (e->fields >= 0) {
        expect_append(e->json, sizeof e->json, "}}");
        expect_append(e->text, sizeof e->text, "\n");
    }
}

/* json_name is the JSON value of "schemaName" (quoted, or null); title the
 * text line's title. */
static void expect_payload(expect_t* e, size_t index, uint64_t schema_id, size_t size,
                           const char* json_name, const char* title) {
    int first = e->fields < 0;

    expect_close_payload(e);
    expect_append(e->json, sizeof e->json,
                  "%s{\"index\":%zu,\"schemaId\":%" PRIu64 ",\"size\":%zu,\"schemaName\":%s,"
                  "\"fields\":{",
                  first ? "" : ",", index, schema_id, size, json_name);
    expect_append(e->text, sizeof e->text, "[%zu] %s:", index, title);
    e->fields = 0;
}

#define SAME NULL /* the text value is the JSON value */

static void expect_field(expect_t* e, const char* key, const char* json, const char* text) {
    expect_append(e->json, sizeof e->json, "%s\"%s\":%s", e->fields > 0 ? "," : "", key, json);
    expect_append(e->text, sizeof e->text, "%s %s=%s", e->fields > 0 ? "," : "", key,
                  text != NULL ? text : json);
    e->fields++;
}

static void expect_done(expect_t* e) {
    expect_close_payload(e);
    expect_append(e->json, sizeof e->json, "]}");
}

/* NULL when the `got_size` bytes at `got` are `want`; else "WHAT: byte N
 * differs from the input: want "...", got "..."" (up to 40 bytes of each
 * from the first difference). */
static const char* expect_mismatch(const char* what, const char* want, const char* got,
                                   size_t got_size) {
    static char message[512];
    size_t i = 0, want_size = strlen(want), want_rest, got_rest;

    while (i < want_size && i < got_size && want[i] == got[i])
        i++;
    if (i == want_size && i == got_size)
        return NULL;
    want_rest = want_size - i < 40 ? want_size - i : 40;
    got_rest = got_size - i < 40 ? got_size - i : 40;
    snprintf(message, sizeof message,
             "%s: byte %zu differs from the input: want \"%.*s\", got \"%.*s\"", what, i,
             (int)want_rest, want + i, (int)got_rest, got + i);
    return message;
}

/* A double as nvtxw/format.h prints it, found with printf: the shortest
 * %.Ng (N <= 17) that strtod reads back to the same bits; nan/inf as words
 * (quoted in JSON). */
static const char* shortest(double value, int json) {
    int precision;

    if (isnan(value))
        return json ? "\"nan\"" : "nan";
    if (isinf(value))
        return value > 0 ? (json ? "\"inf\"" : "inf") : (json ? "\"-inf\"" : "-inf");
    for (precision = 1; precision <= 17; precision++) {
        char text[32];
        double back;
        snprintf(text, sizeof text, "%.*g", precision, value);
        back = strtod(text, NULL);
        if (memcmp(&back, &value, sizeof back) == 0)
            return S("%s", text);
    }
    ck_abort_msg("%.17g does not read back", value);
    return NULL;
}

/* "[a,b,..]" (JSON) or "[a, b, ..]" (text) of `count` shortest doubles. */
static const char* double_array(const double* values, size_t count, int json) {
    char buffer[512] = "[";
    size_t i;

    for (i = 0; i < count; i++)
        expect_append(buffer, sizeof buffer, "%s%s", i > 0 ? (json ? "," : ", ") : "",
                      shortest(values[i], json));
    return S("%s]", buffer);
}

/* Strict: UTF-8 only, no NaN/Infinity literals, nothing after the value. */
#define JSON_CHECKER                                                                               \
    "python3 -c 'import json,sys; json.loads(sys.stdin.buffer.read().decode(\"utf-8\"), "          \
    "parse_constant=lambda c: sys.exit(\"non-standard constant \" + c))'"

static void check_json_valid(const char* name, const capture_t* got) {
    FILE* pipe = popen(JSON_CHECKER, "w");
    int status;

    ck_assert_msg(pipe != NULL, "cannot run python3");
    ck_assert_uint_eq(fwrite(got->data, 1, got->size, pipe), got->size);
    status = pclose(pipe);
    ck_assert_msg(status == 0, "%s: JSON rejected by python3 (status %d):\n%.2000s", name, status,
                  got->data);
}

/* Formats both ways; checks both outputs against `want`, the JSON with
 * python3, then both against the golden files (or rewrites them and fails). */
static void run_case(const char* name, const nvtxw_schema_registry_t* registry,
                     const nvtxPayloadData_t* payloads, size_t count,
                     const nvtxw_visit_options_t* options, const expect_t* want) {
    capture_t json = {0};
    capture_t text = {0};
    char rewritten[8192] = "";
    const char* wrong;
    nvtxwResultCode_t result;

    result = nvtxw_payload_format_json(registry, payloads, count, options, capture_write, &json);
    ck_assert_msg(result == NVTXW_RESULT_SUCCESS, "%s (json): %s", name, nvtxw_last_error());
    wrong = expect_mismatch(S("%s json", name), want->json, json.data, json.size);
    ck_assert_msg(wrong == NULL, "%s", wrong);
    check_json_valid(name, &json);
    result = nvtxw_payload_format_text(registry, payloads, count, options, capture_write, &text);
    ck_assert_msg(result == NVTXW_RESULT_SUCCESS, "%s (text): %s", name, nvtxw_last_error());
    wrong = expect_mismatch(S("%s text", name), want->text, text.data, text.size);
    ck_assert_msg(wrong == NULL, "%s", wrong);
    check_golden(name, "json", &json, rewritten, sizeof rewritten);
    check_golden(name, "txt", &text, rewritten, sizeof rewritten);
    capture_free(&json);
    capture_free(&text);
    ck_assert_msg(rewritten[0] == '\0',
                  "rewrote %s: review the diff, then run again without NVTXW_UPDATE_GOLDEN",
                  rewritten);
}

/* ------------------------------------------------------------------------- */
/* Registry of test schemas                                                   */
/* ------------------------------------------------------------------------- */

#define ID_SCALARS 0x1000001u
#define ID_FLOATS 0x1000002u
#define ID_STRINGS 0x1000003u
#define ID_COLOR 0x1000004u
#define ID_PERM 0x1000005u
#define ID_ENUMS 0x1000006u
#define ID_HANDLES 0x1000007u
#define ID_POINT 0x1000008u
#define ID_SHAPE 0x1000009u
#define ID_GRID 0x100000Au
#define ID_VALUE_U 0x100000Bu
#define ID_TAGGED 0x100000Cu
#define ID_POINTERS 0x100000Du
#define ID_UNKNOWN 0x1FFFFFFu

#define ENTRY(flags, type, name, detail, offset)                                                   \
    { (flags), (type), (name), NULL, (detail), (offset), NULL, NULL }
#define FIXED NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_FIXED_SIZE
#define T(x) NVTX_PAYLOAD_ENTRY_TYPE_##x

static nvtxw_schema_registry_t* registry;

static void add_schema(const char* name, uint64_t type, const nvtxPayloadSchemaEntry_t* entries,
                       size_t count, size_t size, uint64_t id) {
    nvtxPayloadSchemaAttr_t attr = {0};

    attr.fieldMask = NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES |
                     NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES |
                     NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_SCHEMA_ID;
    if (name != NULL)
        attr.fieldMask |= NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NAME;
    if (size != 0)
        attr.fieldMask |= NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_STATIC_SIZE;
    attr.name = name;
    attr.type = type;
    attr.entries = entries;
    attr.numEntries = count;
    attr.payloadStaticSize = size;
    attr.schemaId = id;
    ck_assert_msg(nvtxw_schema_registry_add_schema(registry, &attr, NULL) == NVTXW_RESULT_SUCCESS,
                  "schema %s: %s", name ? name : "(unnamed)", nvtxw_last_error());
}

static void add_enum(const char* name, const nvtxPayloadEnum_t* entries, size_t count, size_t size,
                     uint64_t id) {
    nvtxPayloadEnumAttr_t attr = {0};

    attr.fieldMask = NVTX_PAYLOAD_ENUM_ATTR_FIELD_NAME | NVTX_PAYLOAD_ENUM_ATTR_FIELD_ENTRIES |
                     NVTX_PAYLOAD_ENUM_ATTR_FIELD_NUM_ENTRIES | NVTX_PAYLOAD_ENUM_ATTR_FIELD_SIZE |
                     NVTX_PAYLOAD_ENUM_ATTR_FIELD_SCHEMA_ID;
    attr.name = name;
    attr.entries = entries;
    attr.numEntries = count;
    attr.sizeOfEnum = size;
    attr.schemaId = id;
    ck_assert_msg(nvtxw_schema_registry_add_enum(registry, &attr, NULL) == NVTXW_RESULT_SUCCESS,
                  "enum %s: %s", name, nvtxw_last_error());
}

typedef struct scalars {
    int8_t i8;
    int16_t i16;
    int32_t i32;
    int64_t i64;
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64;
    char c;
    long long ll;
    size_t sz;
    uint64_t addr;
    uint32_t color;
    uint32_t category;
} scalars_t;

static void register_scalars(void) {
    static const nvtxPayloadSchemaEntry_t entries[] = {
        ENTRY(0, T(INT8), "i8", 0, offsetof(scalars_t, i8)),
        ENTRY(0, T(INT16), "i16", 0, offsetof(scalars_t, i16)),
        ENTRY(0, T(INT32), "i32", 0, offsetof(scalars_t, i32)),
        ENTRY(0, T(INT64), "i64", 0, offsetof(scalars_t, i64)),
        ENTRY(0, T(UINT8), "u8", 0, offsetof(scalars_t, u8)),
        ENTRY(0, T(UINT16), "u16", 0, offsetof(scalars_t, u16)),
        ENTRY(0, T(UINT32), "u32", 0, offsetof(scalars_t, u32)),
        ENTRY(0, T(UINT64), "u64", 0, offsetof(scalars_t, u64)),
        ENTRY(0, T(CHAR), "c", 0, offsetof(scalars_t, c)),
        ENTRY(0, T(LONGLONG), "ll", 0, offsetof(scalars_t, ll)),
        ENTRY(0, T(SIZE), "sz", 0, offsetof(scalars_t, sz)),
        ENTRY(0, T(ADDRESS), "addr", 0, offsetof(scalars_t, addr)),
        ENTRY(0, T(COLOR_ARGB), "color", 0, offsetof(scalars_t, color)),
        ENTRY(0, T(CATEGORY), "category", 0, offsetof(scalars_t, category)),
    };
    add_schema("scalars", NVTX_PAYLOAD_SCHEMA_TYPE_STATIC, entries,
               sizeof entries / sizeof entries[0], sizeof(scalars_t), ID_SCALARS);
}

typedef struct floats {
    float f[4];
    double d[12];
} floats_t;

static void register_floats(void) {
    static const nvtxPayloadSchemaEntry_t entries[] = {
        ENTRY(FIXED, T(FLOAT), "f", 4, offsetof(floats_t, f)),
        ENTRY(FIXED, T(DOUBLE), "d", 12, offsetof(floats_t, d)),
    };
    add_schema("floats", NVTX_PAYLOAD_SCHEMA_TYPE_STATIC, entries, 2, sizeof(floats_t), ID_FLOATS);
}

typedef struct strings {
    char quotes[16];
    char controls[16];
    char utf8[24];
    char invalid[16];
    char empty[4];
    uint16_t utf16[8];
    uint16_t bad_utf16[4];
} strings_t;

static void register_strings(void) {
    static const nvtxPayloadSchemaEntry_t entries[] = {
        ENTRY(0, T(CSTRING), "quotes", 16, offsetof(strings_t, quotes)),
        ENTRY(0, T(CSTRING_UTF8), "tab\there \"key\"", 16, offsetof(strings_t, controls)),
        ENTRY(0, T(CSTRING_UTF8), "utf8", 24, offsetof(strings_t, utf8)),
        ENTRY(0, T(CSTRING_UTF8), "invalid", 16, offsetof(strings_t, invalid)),
        ENTRY(0, T(CSTRING_UTF8), "empty", 4, offsetof(strings_t, empty)),
        ENTRY(0, T(CSTRING_UTF16), "utf16", 8, offsetof(strings_t, utf16)),
        ENTRY(0, T(CSTRING_UTF16), "bad_utf16", 4, offsetof(strings_t, bad_utf16)),
    };
    add_schema("odd \"name\"\n\\", NVTX_PAYLOAD_SCHEMA_TYPE_STATIC, entries,
               sizeof entries / sizeof entries[0], sizeof(strings_t), ID_STRINGS);
}

typedef struct enums {
    uint32_t color_known;
    uint32_t color_unknown;
    uint8_t perm_flags;
    uint8_t perm_zero;
    uint8_t bytes[5];
    uint8_t byte;
} enums_t;

static void register_enums(void) {
    static const nvtxPayloadEnum_t colors[] = {{"RED", 1, 0}, {"GREEN", 2, 0}, {"BLUE", 3, 0}};
    static const nvtxPayloadEnum_t perms[] = {{"R", 1, 1}, {"W", 2, 1}, {"X", 4, 1}};
    static const nvtxPayloadSchemaEntry_t entries[] = {
        ENTRY(0, ID_COLOR, "color_known", 0, offsetof(enums_t, color_known)),
        ENTRY(0, ID_COLOR, "color_unknown", 0, offsetof(enums_t, color_unknown)),
        ENTRY(0, ID_PERM, "perm_flags", 0, offsetof(enums_t, perm_flags)),
        ENTRY(0, ID_PERM, "perm_zero", 0, offsetof(enums_t, perm_zero)),
        ENTRY(FIXED, T(BYTE), "bytes", 5, offsetof(enums_t, bytes)),
        ENTRY(0, T(BYTE), "byte", 0, offsetof(enums_t, byte)),
    };
    add_enum("color", colors, 3, 4, ID_COLOR);
    add_enum("perm", perms, 3, 1, ID_PERM);
    add_schema("enums", NVTX_PAYLOAD_SCHEMA_TYPE_STATIC, entries,
               sizeof entries / sizeof entries[0], sizeof(enums_t), ID_ENUMS);
}

static void register_handles(void) {
    static const nvtxPayloadSchemaEntry_t entries[] = {
        ENTRY(0, T(NVTX_REGISTERED_STRING_HANDLE), "known", 0, 0),
        ENTRY(0, T(NVTX_REGISTERED_STRING_HANDLE), "unknown", 0, 8),
    };
    add_schema("handles", NVTX_PAYLOAD_SCHEMA_TYPE_STATIC, entries, 2, 16, ID_HANDLES);
}

typedef struct point {
    int32_t x;
    int32_t y;
} point_t;

typedef struct shape {
    char name[8];
    point_t origin;
    point_t corners[3];
    int16_t unnamed_a;
    uint16_t unnamed_b;
    int32_t dup1;
    int32_t dup2;
} shape_t;

static void register_nested(void) {
    static const nvtxPayloadSchemaEntry_t point[] = {
        ENTRY(0, T(INT32), "x", 0, offsetof(point_t, x)),
        ENTRY(0, T(INT32), "y", 0, offsetof(point_t, y)),
    };
    static const nvtxPayloadSchemaEntry_t shape[] = {
        ENTRY(0, T(CSTRING_UTF8), "name", 8, offsetof(shape_t, name)),
        ENTRY(0, ID_POINT, "origin", 0, offsetof(shape_t, origin)),
        ENTRY(FIXED, ID_POINT, "corners", 3, offsetof(shape_t, corners)),
        ENTRY(0, T(INT16), NULL, 0, offsetof(shape_t, unnamed_a)),
        ENTRY(0, T(UINT16), "", 0, offsetof(shape_t, unnamed_b)),
        ENTRY(0, T(INT32), "dup", 0, offsetof(shape_t, dup1)),
        ENTRY(0, T(INT32), "dup", 0, offsetof(shape_t, dup2)),
    };
    add_schema("point", NVTX_PAYLOAD_SCHEMA_TYPE_STATIC, point, 2, sizeof(point_t), ID_POINT);
    add_schema("shape", NVTX_PAYLOAD_SCHEMA_TYPE_STATIC, shape, sizeof shape / sizeof shape[0],
               sizeof(shape_t), ID_SHAPE);
}

/* DYNAMIC: dims[2], cells[dims[0]][dims[1]] (row-major), count, values[count]. */
static void register_grid(void) {
    static const nvtxPayloadSchemaEntry_t grid[] = {
        ENTRY(FIXED, T(UINT32), "dims", 2, 0),
        ENTRY(NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_INDEX, T(INT16), "cells", 0, 0),
        ENTRY(0, T(UINT8), "count", 0, 0),
        ENTRY(NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_INDEX, T(DOUBLE), "values", 2, 0),
        ENTRY(NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_ZERO_TERMINATED, T(UINT16), "zt", 0, 0),
    };
    add_schema("grid", NVTX_PAYLOAD_SCHEMA_TYPE_DYNAMIC, grid, sizeof grid / sizeof grid[0], 0,
               ID_GRID);
}

typedef struct tagged {
    uint32_t selector;
    uint32_t pad;
    union {
        int64_t i;
        double d;
        char s[8];
    } value;
} tagged_t;

static void register_union(void) {
    static const nvtxPayloadSchemaEntry_t members[] = {
        ENTRY(0, T(INT64), "i", 0, 0),
        ENTRY(0, T(DOUBLE), "d", 0, 0),
        ENTRY(0, T(CSTRING_UTF8), "s", 8, 0),
    };
    static const nvtxPayloadSchemaEntry_t tagged[] = {
        ENTRY(0, T(UINT32), "selector", 0, offsetof(tagged_t, selector)),
        ENTRY(0, ID_VALUE_U, "value", 0, offsetof(tagged_t, value)),
    };
    add_schema("value_u", NVTX_PAYLOAD_SCHEMA_TYPE_UNION, members, 3, 8, ID_VALUE_U);
    add_schema("tagged", NVTX_PAYLOAD_SCHEMA_TYPE_STATIC, tagged, 2, sizeof(tagged_t), ID_TAGGED);
}

typedef struct pointers {
    const char* text;
    const char* missing;
} pointers_t;

static void register_pointers(void) {
    static const nvtxPayloadSchemaEntry_t entries[] = {
        ENTRY(NVTX_PAYLOAD_ENTRY_FLAG_POINTER, T(CSTRING_UTF8), "text", 0,
              offsetof(pointers_t, text)),
        ENTRY(NVTX_PAYLOAD_ENTRY_FLAG_POINTER, T(CSTRING_UTF8), "missing", 0,
              offsetof(pointers_t, missing)),
    };
    add_schema(NULL, NVTX_PAYLOAD_SCHEMA_TYPE_STATIC, entries, 2, sizeof(pointers_t), ID_POINTERS);
}

static void setup(void) {
    registry = nvtxw_schema_registry_create();
    ck_assert_ptr_nonnull(registry);
    register_scalars();
    register_floats();
    register_strings();
    register_enums();
    register_handles();
    register_nested();
    register_grid();
    register_union();
    register_pointers();
}

static void teardown(void) {
    nvtxw_schema_registry_destroy(registry);
    registry = NULL;
}

static nvtxPayloadData_t payload(uint64_t schema_id, const void* data, size_t size) {
    nvtxPayloadData_t p;

    p.schemaId = schema_id;
    p.size = size;
    p.payload = data;
    return p;
}

/* ------------------------------------------------------------------------- */
/* Golden cases                                                               */
/* ------------------------------------------------------------------------- */

/* Every value is printed from the struct: addr and color in hex in text
 * only (nvtxw/format.h), CHAR as its code ('A' = 65). */
static void expect_scalars(expect_t* e, const scalars_t* s) {
    expect_init(e, 1);
    expect_payload(e, 0, ID_SCALARS, sizeof *s, "\"scalars\"", "scalars");
    expect_field(e, "i8", S("%d", s->i8), SAME);
    expect_field(e, "i16", S("%d", s->i16), SAME);
    expect_field(e, "i32", S("%" PRId32, s->i32), SAME);
    expect_field(e, "i64", S("%" PRId64, s->i64), SAME);
    expect_field(e, "u8", S("%u", s->u8), SAME);
    expect_field(e, "u16", S("%u", s->u16), SAME);
    expect_field(e, "u32", S("%" PRIu32, s->u32), SAME);
    expect_field(e, "u64", S("%" PRIu64, s->u64), SAME);
    expect_field(e, "c", S("%d", s->c), SAME);
    expect_field(e, "ll", S("%lld", s->ll), SAME);
    expect_field(e, "sz", S("%zu", s->sz), SAME);
    expect_field(e, "addr", S("%" PRIu64, s->addr), S("0x%016" PRIx64, s->addr));
    expect_field(e, "color", S("%" PRIu32, s->color), S("0x%08" PRIx32, s->color));
    expect_field(e, "category", S("%" PRIu32, s->category), SAME);
    expect_done(e);
}

static void make_scalars(scalars_t* s) {
    memset(s, 0, sizeof *s);
    s->i8 = INT8_MIN;
    s->i16 = INT16_MIN;
    s->i32 = INT32_MIN;
    s->i64 = INT64_MIN;
    s->u8 = UINT8_MAX;
    s->u16 = UINT16_MAX;
    s->u32 = UINT32_MAX;
    s->u64 = UINT64_MAX;
    s->c = 'A';
    s->ll = LLONG_MAX;
    s->sz = 12345;
    s->addr = 0x00007fff12345678u;
    s->color = 0x80ff0010u;
    s->category = 7;
}

START_TEST(test_scalars) {
    scalars_t s;
    nvtxPayloadData_t p;
    expect_t want;

    make_scalars(&s);
    expect_scalars(&want, &s);
    p = payload(ID_SCALARS, &s, sizeof s);
    run_case("scalars", registry, &p, 1, NULL, &want);
}
END_TEST

/* The expectation itself is a check: one changed digit in either output is
 * reported at its byte, and the unchanged output passes. */
START_TEST(test_expect_catches_mutation) {
    scalars_t s;
    nvtxPayloadData_t p;
    expect_t want;
    capture_t json = {0};
    capture_t text = {0};
    const char* wrong;
    char* digit;

    make_scalars(&s);
    expect_scalars(&want, &s);
    p = payload(ID_SCALARS, &s, sizeof s);
    ck_assert_int_eq(nvtxw_payload_format_json(registry, &p, 1, NULL, capture_write, &json),
                     NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(nvtxw_payload_format_text(registry, &p, 1, NULL, capture_write, &text),
                     NVTXW_RESULT_SUCCESS);
    ck_assert_ptr_null(expect_mismatch("scalars json", want.json, json.data, json.size));
    ck_assert_ptr_null(expect_mismatch("scalars text", want.text, text.data, text.size));

    digit = strstr(json.data, "\"i8\":-128,") + 8; /* i8 = -127 */
    *digit = '7';
    wrong = expect_mismatch("scalars json", want.json, json.data, json.size);
    ck_assert_ptr_nonnull(wrong);
    ck_assert_str_eq(wrong, S("scalars json: byte %td differs from the input: want \"%.40s\", "
                              "got \"%.40s\"",
                              digit - json.data, want.json + (digit - json.data), digit));
    ck_assert_ptr_nonnull(strstr(wrong, "want \"8,\"i16\":-32768,"));

    digit = strstr(text.data, "color=0x80ff0010") + 15; /* color = 0x80ff0011 */
    *digit = '1';
    wrong = expect_mismatch("scalars text", want.text, text.data, text.size);
    ck_assert_ptr_nonnull(wrong);
    ck_assert_ptr_nonnull(strstr(wrong, "want \"0, category=7\n\", got \"1, category=7\n\""));
    text.size--; /* a lost last byte is a difference too */
    *digit = '0';
    ck_assert_ptr_nonnull(strstr(expect_mismatch("scalars text", want.text, text.data, text.size),
                                 "want \"\n\", got \"\""));
    capture_free(&json);
    capture_free(&text);
}
END_TEST

START_TEST(test_floats) {
    floats_t f = {{1.5f, -0.0f, 0.1f, FLT_MAX},
                  {NAN, INFINITY, -INFINITY, -0.0, 0.0, 1e300, 5e-324, 0.1, 1.0 / 3.0,
                   2.2250738585072014e-308, DBL_MAX, 123456789.0}};
    nvtxPayloadData_t p = payload(ID_FLOATS, &f, sizeof f);
    /* The floats widen exactly to double, printed as doubles: 0.1f is
     * 0.100000001490116119384765625, so "0.10000000149011612". */
    double widened[4] = {f.f[0], f.f[1], f.f[2], f.f[3]};
    expect_t want;

    expect_init(&want, 1);
    expect_payload(&want, 0, ID_FLOATS, sizeof f, "\"floats\"", "floats");
    expect_field(&want, "f", double_array(widened, 4, 1), double_array(widened, 4, 0));
    expect_field(&want, "d", double_array(f.d, 12, 1), double_array(f.d, 12, 0));
    expect_done(&want);
    run_case("floats", registry, &p, 1, NULL, &want);
}
END_TEST

START_TEST(test_strings) {
    /* U+00E9, U+20AC, U+1F600; an unpaired high surrogate in bad_utf16. */
    strings_t s = {"say \"hi\" \\o/",
                   "a\tb\nc\r\x01\x1f\x7f|",
                   "h\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
                   "ab\xff\xfe\xc0\x80\xed\xa0\x80z",
                   "",
                   {'h', 0xE9, 0xD83D, 0xDE00, '!', 0, 0, 0},
                   {'x', 0xD800, 'y', 0}};
    nvtxPayloadData_t p = payload(ID_STRINGS, &s, sizeof s);
    expect_t want;

    /* Escapes by hand (nvtxw/format.h): " and \ as \" \\ in both; \t \n \r
     * as such in both; 0x01 0x1f as \u0001 \u001f in JSON, \x01 \x1f in
     * text; DEL copied in JSON, \x7f in text. Valid UTF-8 is copied. The
     * invalid bytes FF, FE, C0 80 (overlong), ED A0 80 (a surrogate) are 7
     * maximal ill-formed subparts of one byte each: 7 x U+FFFD (EF BF BD).
     * UTF-16 'h' E9 D83D+DE00 '!' is "h" C3 A9 F0 9F 98 80 "!" (U+1F600);
     * the lone D800 is one U+FFFD. */
    const char* fffd = "\xef\xbf\xbd";
    const char* invalid = S("\"ab%s%s%s%s%s%s%sz\"", fffd, fffd, fffd, fffd, fffd, fffd, fffd);

    expect_init(&want, 1);
    expect_payload(&want, 0, ID_STRINGS, sizeof s, "\"odd \\\"name\\\"\\n\\\\\"",
                   "odd \\\"name\\\"\\n\\\\");
    expect_field(&want, "quotes", "\"say \\\"hi\\\" \\\\o/\"", SAME);
    expect_field(&want, "tab\\there \\\"key\\\"", "\"a\\tb\\nc\\r\\u0001\\u001f\x7f|\"",
                 "\"a\\tb\\nc\\r\\x01\\x1f\\x7f|\"");
    expect_field(&want, "utf8", S("\"%s\"", s.utf8), SAME);
    expect_field(&want, "invalid", invalid, SAME);
    expect_field(&want, "empty", "\"\"", SAME);
    expect_field(&want, "utf16", "\"h\xc3\xa9\xf0\x9f\x98\x80!\"", SAME);
    expect_field(&want, "bad_utf16", S("\"x%sy\"", fffd), SAME);
    expect_done(&want);
    run_case("strings", registry, &p, 1, NULL, &want);
}
END_TEST

START_TEST(test_enums) {
    enums_t e = {2, 9, 5, 0, {0x00, 0x01, 0xab, 0xcd, 0xff}, 0x7f};
    nvtxPayloadData_t p = payload(ID_ENUMS, &e, sizeof e);
    expect_t want;

    /* color 2 is GREEN; 9 matches no enumerator, so the number; perm 5 =
     * R (1) | X (4); perm 0 sets no flag, so the number; bytes as hex in
     * memory order. */
    expect_init(&want, 1);
    expect_payload(&want, 0, ID_ENUMS, sizeof e, "\"enums\"", "enums");
    expect_field(&want, "color_known", "\"GREEN\"", "GREEN");
    expect_field(&want, "color_unknown", S("%" PRIu32, e.color_unknown), SAME);
    expect_field(&want, "perm_flags", "\"R|X\"", "R|X");
    expect_field(&want, "perm_zero", S("%u", e.perm_zero), SAME);
    expect_field(
        &want, "bytes",
        S("\"0x%02x%02x%02x%02x%02x\"", e.bytes[0], e.bytes[1], e.bytes[2], e.bytes[3], e.bytes[4]),
        S("0x%02x%02x%02x%02x%02x", e.bytes[0], e.bytes[1], e.bytes[2], e.bytes[3], e.bytes[4]));
    expect_field(&want, "byte", S("\"0x%02x\"", e.byte), S("0x%02x", e.byte));
    expect_done(&want);
    run_case("enums", registry, &p, 1, NULL, &want);
}
END_TEST

static const char* resolve(void* ctx, uint64_t handle) {
    (void)ctx;
    return handle == 1 ? "registered \"one\"\n" : NULL;
}

static const uint64_t handles[2] = {1, 77};

/* Handle 1 resolves to resolve()'s text (escaped: \" and \n), 77 does not. */
START_TEST(test_handles_resolved) {
    nvtxPayloadData_t p = payload(ID_HANDLES, handles, sizeof handles);
    nvtxw_visit_options_t options = {0};
    expect_t want;

    options.struct_size = sizeof options;
    options.resolve_string = resolve;
    expect_init(&want, 1);
    expect_payload(&want, 0, ID_HANDLES, sizeof handles, "\"handles\"", "handles");
    expect_field(&want, "known", "\"registered \\\"one\\\"\\n\"", SAME);
    expect_field(&want, "unknown", S("{\"handle\":%" PRIu64 "}", handles[1]),
                 S("<handle:%" PRIu64 ">", handles[1]));
    expect_done(&want);
    run_case("handles_resolved", registry, &p, 1, &options, &want);
}
END_TEST

START_TEST(test_handles_unresolved) {
    nvtxPayloadData_t p = payload(ID_HANDLES, handles, sizeof handles);
    expect_t want;
    int i;

    expect_init(&want, 1);
    expect_payload(&want, 0, ID_HANDLES, sizeof handles, "\"handles\"", "handles");
    for (i = 0; i < 2; i++)
        expect_field(&want, i == 0 ? "known" : "unknown", S("{\"handle\":%" PRIu64 "}", handles[i]),
                     S("<handle:%" PRIu64 ">", handles[i]));
    expect_done(&want);
    run_case("handles_unresolved", registry, &p, 1, NULL, &want);
}
END_TEST

START_TEST(test_nested) {
    shape_t s = {"tri", {1, -1}, {{0, 0}, {4, 0}, {0, 3}}, -7, 65535, 1, 2};
    nvtxPayloadData_t p = payload(ID_SHAPE, &s, sizeof s);
    char json[256] = "[", text[256] = "[";
    expect_t want;
    int i;

    for (i = 0; i < 3; i++) {
        expect_append(json, sizeof json, "%s{\"x\":%d,\"y\":%d}", i > 0 ? "," : "", s.corners[i].x,
                      s.corners[i].y);
        expect_append(text, sizeof text, "%s{x=%d, y=%d}", i > 0 ? ", " : "", s.corners[i].x,
                      s.corners[i].y);
    }
    /* The NULL and the empty name are keyed by position (3 and 4); both
     * "dup" fields are kept. */
    expect_init(&want, 1);
    expect_payload(&want, 0, ID_SHAPE, sizeof s, "\"shape\"", "shape");
    expect_field(&want, "name", S("\"%s\"", s.name), SAME);
    expect_field(&want, "origin", S("{\"x\":%d,\"y\":%d}", s.origin.x, s.origin.y),
                 S("{x=%d, y=%d}", s.origin.x, s.origin.y));
    expect_field(&want, "corners", S("%s]", json), S("%s]", text));
    expect_field(&want, "<field_3>", S("%d", s.unnamed_a), SAME);
    expect_field(&want, "<field_4>", S("%u", s.unnamed_b), SAME);
    expect_field(&want, "dup", S("%" PRId32, s.dup1), SAME);
    expect_field(&want, "dup", S("%" PRId32, s.dup2), SAME);
    expect_done(&want);
    run_case("nested", registry, &p, 1, NULL, &want);
}
END_TEST

START_TEST(test_grid) {
    /* dims {2,3} @0, cells 6 x int16 @8, count @20, values 2 x double @24,
     * zt {5, 6, 0} @40. */
    unsigned char buffer[46];
    uint32_t dims[2] = {2, 3};
    int16_t cells[6] = {1, 2, 3, -4, -5, -6};
    uint8_t count = 2;
    double values[2] = {0.5, -2.25};
    uint16_t zt[3] = {5, 6, 0};
    char json[256] = "[", text[256] = "[";
    nvtxPayloadData_t p;
    expect_t want;
    uint32_t row, column;

    memset(buffer, 0, sizeof buffer);
    memcpy(buffer, dims, sizeof dims);
    memcpy(buffer + 8, cells, sizeof cells);
    memcpy(buffer + 20, &count, 1);
    memcpy(buffer + 24, values, sizeof values);
    memcpy(buffer + 40, zt, sizeof zt);
    p = payload(ID_GRID, buffer, sizeof buffer);
    /* cells: dims[0] rows of dims[1], row-major; zt stops before its 0. */
    for (row = 0; row < dims[0]; row++) {
        expect_append(json, sizeof json, "%s[", row > 0 ? "," : "");
        expect_append(text, sizeof text, "%s[", row > 0 ? ", " : "");
        for (column = 0; column < dims[1]; column++) {
            expect_append(json, sizeof json, "%s%d", column > 0 ? "," : "",
                          cells[row * dims[1] + column]);
            expect_append(text, sizeof text, "%s%d", column > 0 ? ", " : "",
                          cells[row * dims[1] + column]);
        }
        expect_append(json, sizeof json, "]");
        expect_append(text, sizeof text, "]");
    }
    expect_init(&want, 1);
    expect_payload(&want, 0, ID_GRID, sizeof buffer, "\"grid\"", "grid");
    expect_field(&want, "dims", S("[%" PRIu32 ",%" PRIu32 "]", dims[0], dims[1]),
                 S("[%" PRIu32 ", %" PRIu32 "]", dims[0], dims[1]));
    expect_field(&want, "cells", S("%s]", json), S("%s]", text));
    expect_field(&want, "count", S("%u", count), SAME);
    expect_field(&want, "values", double_array(values, count, 1), double_array(values, count, 0));
    expect_field(&want, "zt", S("[%u,%u]", zt[0], zt[1]), S("[%u, %u]", zt[0], zt[1]));
    expect_done(&want);
    run_case("grid", registry, &p, 1, NULL, &want);
}
END_TEST

START_TEST(test_union) {
    tagged_t t[3];
    nvtxPayloadData_t p[3];
    expect_t want;
    int i;

    memset(t, 0, sizeof t);
    t[0].selector = 0;
    t[0].value.i = -42;
    t[1].selector = 1;
    t[1].value.d = 2.5;
    t[2].selector = 2;
    memcpy(t[2].value.s, "union", 6);
    /* The selector picks the member by position: i, d, s. */
    expect_init(&want, 3);
    for (i = 0; i < 3; i++) {
        const char* json = i == 0   ? S("{\"i\":%" PRId64 "}", t[i].value.i)
                           : i == 1 ? S("{\"d\":%s}", shortest(t[i].value.d, 1))
                                    : S("{\"s\":\"%s\"}", t[i].value.s);
        const char* text = i == 0   ? S("{i=%" PRId64 "}", t[i].value.i)
                           : i == 1 ? S("{d=%s}", shortest(t[i].value.d, 0))
                                    : S("{s=\"%s\"}", t[i].value.s);
        p[i] = payload(ID_TAGGED, &t[i], sizeof t[i]);
        expect_payload(&want, (size_t)i, ID_TAGGED, sizeof t[i], "\"tagged\"", "tagged");
        expect_field(&want, "selector", S("%" PRIu32, t[i].selector), SAME);
        expect_field(&want, "value", json, text);
    }
    expect_done(&want);
    run_case("union", registry, p, 3, NULL, &want);
}
END_TEST

/* Predefined types, skipped payloads (size 0, REFERENCED), RAW, pointers
 * into a referenced payload and NULL strings, all in one event. */
START_TEST(test_event) {
    static const char referenced[] = "pointed \"to\"";
    int32_t ints[3] = {1, -2, 3};
    uint64_t big = UINT64_MAX;
    uint16_t wide[3] = {'h', 'i', 0};
    unsigned char raw[4] = {0xde, 0xad, 0xbe, 0xef};
    double unused = 1.0;
    pointers_t ptrs = {referenced + 1, NULL};
    nvtxPayloadData_t p[8];
    expect_t want;

    p[0] = payload(T(INT32), ints, sizeof ints);
    p[1] = payload(T(CSTRING_UTF8), "abc", SIZE_MAX);
    p[2] = payload(T(DOUBLE), &unused, 0);
    p[3] = payload(NVTX_TYPE_PAYLOAD_SCHEMA_RAW, raw, sizeof raw);
    p[4] = payload(T(UINT64), &big, sizeof big);
    p[5] = payload(T(CSTRING_UTF16), wide, sizeof wide);
    p[6] = payload(NVTX_TYPE_PAYLOAD_SCHEMA_REFERENCED, referenced, sizeof referenced);
    p[7] = payload(ID_POINTERS, &ptrs, sizeof ptrs);
    /* Predefined types are titled by type name, RAW "<raw>", the unnamed
     * schema null / "<schema_ID>". p[1]'s size SIZE_MAX is measured: "abc"
     * and its NUL, 4. p[2] (size 0) and p[6] (REFERENCED) have no entry.
     * "text" points 1 byte into the referenced bytes: `ointed "to"`. */
    expect_init(&want, 8);
    expect_payload(&want, 0, T(INT32), sizeof ints, "\"INT32\"", "INT32");
    expect_field(&want, "<field_0>", S("[%d,%d,%d]", ints[0], ints[1], ints[2]),
                 S("[%d, %d, %d]", ints[0], ints[1], ints[2]));
    expect_payload(&want, 1, T(CSTRING_UTF8), 4, "\"CSTRING_UTF8\"", "CSTRING_UTF8");
    expect_field(&want, "<field_0>", "\"abc\"", SAME);
    expect_payload(&want, 3, NVTX_TYPE_PAYLOAD_SCHEMA_RAW, sizeof raw, "\"<raw>\"", "<raw>");
    expect_field(&want, "<field_0>", S("\"0x%02x%02x%02x%02x\"", raw[0], raw[1], raw[2], raw[3]),
                 S("0x%02x%02x%02x%02x", raw[0], raw[1], raw[2], raw[3]));
    expect_payload(&want, 4, T(UINT64), sizeof big, "\"UINT64\"", "UINT64");
    expect_field(&want, "<field_0>", S("%" PRIu64, big), SAME);
    expect_payload(&want, 5, T(CSTRING_UTF16), sizeof wide, "\"CSTRING_UTF16\"", "CSTRING_UTF16");
    expect_field(&want, "<field_0>", S("\"%c%c\"", wide[0], wide[1]), SAME);
    expect_payload(&want, 7, ID_POINTERS, sizeof ptrs, "null", S("<schema_%u>", ID_POINTERS));
    expect_field(&want, "text", "\"ointed \\\"to\\\"\"", SAME);
    expect_field(&want, "missing", "null", SAME);
    expect_done(&want);
    run_case("event", registry, p, 8, NULL, &want);
}
END_TEST

START_TEST(test_no_payloads) {
    capture_t json = {0};
    capture_t text = {0};

    ck_assert_int_eq(nvtxw_payload_format_json(registry, NULL, 0, NULL, capture_write, &json),
                     NVTXW_RESULT_SUCCESS);
    ck_assert_str_eq(json.data, "{\"count\":0,\"payloads\":[]}");
    ck_assert_int_eq(nvtxw_payload_format_text(registry, NULL, 0, NULL, capture_write, &text),
                     NVTXW_RESULT_SUCCESS);
    ck_assert_uint_eq(text.size, 0);
    capture_free(&json);
    capture_free(&text);
}
END_TEST

/* Every double prints as its shortest round-trip decimal, subnormals too;
 * the text reads back to the same bits (checked with strtod here). */
START_TEST(test_float_shortest) {
    static const double values[] = {5e-324,    1e-323, 2.2250738585072009e-308, 1.5e-323, -0.0,
                                    0.1 + 0.2, 1e23,   -9223372036854775808.0,  4e-320};
    static const char expected[] =
        "{\"count\":1,\"payloads\":[{\"index\":0,\"schemaId\":20,\"size\":72,"
        "\"schemaName\":\"DOUBLE\",\"fields\":{\"<field_0>\":[5e-324,1e-323,"
        "2.225073858507201e-308,1.5e-323,-0,0.30000000000000004,1e+23,"
        "-9.223372036854776e+18,4e-320]}}]}";
    nvtxPayloadData_t p = payload(T(DOUBLE), values, sizeof values);
    capture_t json = {0};
    const char* cursor;
    size_t i;

    ck_assert_int_eq(nvtxw_payload_format_json(registry, &p, 1, NULL, capture_write, &json),
                     NVTXW_RESULT_SUCCESS);
    ck_assert_str_eq(json.data, expected);
    cursor = strstr(json.data, ">\":[") + 3;
    for (i = 0; i < sizeof values / sizeof values[0]; i++) {
        char* end;
        double back = strtod(cursor + 1, &end);
        ck_assert(memcmp(&back, &values[i], sizeof back) == 0);
        cursor = end;
    }
    check_json_valid("float_shortest", &json);
    capture_free(&json);
}
END_TEST

/* ------------------------------------------------------------------------- */
/* Streaming and errors                                                       */
/* ------------------------------------------------------------------------- */

#define MANY 3000

/* Output far larger than the formatter's buffer arrives in bounded chunks. */
/* INT64_MIN, INT64_MIN + 1, ...: about 20 bytes of output each. */
static const int64_t* many_values(void) {
    static int64_t values[MANY];
    size_t i;

    for (i = 0; i < MANY; i++)
        values[i] = INT64_MIN + (int64_t)i;
    return values;
}

START_TEST(test_large_output) {
    capture_t json = {0};
    nvtxPayloadData_t p = payload(T(INT64), many_values(), MANY * sizeof(int64_t));
    ck_assert_int_eq(nvtxw_payload_format_json(registry, &p, 1, NULL, capture_write, &json),
                     NVTXW_RESULT_SUCCESS);
    ck_assert_uint_gt(json.size, (size_t)MANY * 20);
    ck_assert_uint_gt(json.calls, 10);
    ck_assert_uint_le(json.max_chunk, 4096);
    ck_assert_ptr_nonnull(strstr(json.data, "[-9223372036854775808,-9223372036854775807,"));
    ck_assert_ptr_nonnull(strstr(json.data, ",-9223372036854772809]"));
    check_json_valid("large", &json);
    capture_free(&json);
}
END_TEST

static void check_write_failure(long fail_at_call, size_t values_size) {
    nvtxPayloadData_t p = payload(T(INT64), many_values(), values_size);
    capture_t json = {0};
    capture_t text = {0};

    json.fail_at_call = fail_at_call;
    text.fail_at_call = fail_at_call;
    ck_assert_int_eq(nvtxw_payload_format_json(registry, &p, 1, NULL, capture_write, &json),
                     NVTXW_RESULT_FAILED);
    ck_assert_str_eq(nvtxw_last_error(), "cannot format payloads as JSON: write function "
                                         "returned -5, bytes_written=0");
    ck_assert_uint_eq(json.calls, 1);
    ck_assert_int_eq(nvtxw_payload_format_text(registry, &p, 1, NULL, capture_write, &text),
                     NVTXW_RESULT_FAILED);
    ck_assert_str_eq(nvtxw_last_error(), "cannot format payloads as text: write function "
                                         "returned -5, bytes_written=0");
    ck_assert_uint_eq(text.calls, 1); /* never called again after failing */
    capture_free(&json);
    capture_free(&text);
}

/* Failing at the final flush and in the middle of the walk. */
START_TEST(test_write_failure) {
    check_write_failure(1, 8);
    check_write_failure(1, MANY * 8);
}
END_TEST

START_TEST(test_write_failure_later) {
    nvtxPayloadData_t p = payload(T(INT64), many_values(), MANY * sizeof(int64_t));
    capture_t json = {0};

    json.fail_at_call = 3;
    ck_assert_int_eq(nvtxw_payload_format_json(registry, &p, 1, NULL, capture_write, &json),
                     NVTXW_RESULT_FAILED);
    ck_assert_str_eq(nvtxw_last_error(), "cannot format payloads as JSON: write function "
                                         "returned -5, bytes_written=8192");
    ck_assert_uint_eq(json.calls, 3);
    capture_free(&json);
}
END_TEST

/* An unknown schema fails with the visitor's code and words, given context. */
START_TEST(test_unknown_schema) {
    static const nvtxw_visitor_t silent = {.struct_size = sizeof(nvtxw_visitor_t)};
    uint64_t value = 1;
    nvtxPayloadData_t p = payload(ID_UNKNOWN, &value, sizeof value);
    capture_t out = {0};
    nvtxwResultCode_t expected;
    char visitor_message[1024];
    char message[1200];

    expected = nvtxw_payload_visit(registry, &p, 1, &silent, NULL, NULL);
    ck_assert_int_ne(expected, NVTXW_RESULT_SUCCESS);
    snprintf(visitor_message, sizeof visitor_message, "%s", nvtxw_last_error());
    ck_assert_uint_gt(strlen(visitor_message), 0);

    ck_assert_int_eq(nvtxw_payload_format_json(registry, &p, 1, NULL, capture_write, &out),
                     expected);
    snprintf(message, sizeof message, "cannot format payloads as JSON: %s", visitor_message);
    ck_assert_str_eq(nvtxw_last_error(), message);
    ck_assert_int_eq(nvtxw_payload_format_text(registry, &p, 1, NULL, capture_write, &out),
                     expected);
    snprintf(message, sizeof message, "cannot format payloads as text: %s", visitor_message);
    ck_assert_str_eq(nvtxw_last_error(), message);
    capture_free(&out);
}
END_TEST

START_TEST(test_null_write) {
    ck_assert_int_eq(nvtxw_payload_format_json(registry, NULL, 0, NULL, NULL, NULL),
                     NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "write function is NULL"));
    ck_assert_int_eq(nvtxw_payload_format_text(registry, NULL, 0, NULL, NULL, NULL),
                     NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "write function is NULL"));
}
END_TEST

START_TEST(test_write_to_file) {
    int32_t value = 42;
    nvtxPayloadData_t p = payload(T(INT32), &value, sizeof value);
    FILE* file = tmpfile();
    char buffer[256];
    size_t size;

    ck_assert_ptr_nonnull(file);
    ck_assert_int_eq(nvtxw_write_to_file(file, "", 0), 0);
    ck_assert_int_eq(nvtxw_write_to_file(NULL, "x", 1), -1);
    ck_assert_int_eq(nvtxw_payload_format_json(registry, &p, 1, NULL, nvtxw_write_to_file, file),
                     NVTXW_RESULT_SUCCESS);
    rewind(file);
    size = fread(buffer, 1, sizeof buffer - 1, file);
    buffer[size] = '\0';
    ck_assert_ptr_nonnull(strstr(buffer, "\"fields\":{\"<field_0>\":42}}]}"));
    fclose(file);
}
END_TEST

static Suite* format_suite(void) {
    Suite* suite = suite_create("format");
    TCase* golden = tcase_create("golden");
    TCase* errors = tcase_create("errors");

    tcase_add_checked_fixture(golden, setup, teardown);
    tcase_add_test(golden, test_scalars);
    tcase_add_test(golden, test_expect_catches_mutation);
    tcase_add_test(golden, test_floats);
    tcase_add_test(golden, test_float_shortest);
    tcase_add_test(golden, test_strings);
    tcase_add_test(golden, test_enums);
    tcase_add_test(golden, test_handles_resolved);
    tcase_add_test(golden, test_handles_unresolved);
    tcase_add_test(golden, test_nested);
    tcase_add_test(golden, test_grid);
    tcase_add_test(golden, test_union);
    tcase_add_test(golden, test_event);
    tcase_add_test(golden, test_no_payloads);
    suite_add_tcase(suite, golden);

    tcase_add_checked_fixture(errors, setup, teardown);
    tcase_add_test(errors, test_large_output);
    tcase_add_test(errors, test_write_failure);
    tcase_add_test(errors, test_write_failure_later);
    tcase_add_test(errors, test_unknown_schema);
    tcase_add_test(errors, test_null_write);
    tcase_add_test(errors, test_write_to_file);
    suite_add_tcase(suite, errors);
    return suite;
}

int main(void) { return tu_run_suite(format_suite()); }
