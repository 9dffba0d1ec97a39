/*
 * common/json_value.h - JSON text carried by a string field (the
 * NVTXW_SEMANTIC_ID_JSON_TEXT semantic, nvtxw/payload.h) checked and written
 * compactly, for the outputs that write JSON (the JSON and Perfetto sinks,
 * the payload JSON formatter). The text is parsed by yajl
 * (UTF-8 checked; numbers kept as their text, so nothing is rounded) and
 * written again without whitespace by yajl's generator.
 */
#ifndef NVTXW_COMMON_JSON_VALUE_H
#define NVTXW_COMMON_JSON_VALUE_H

#include <stddef.h>

#include "common/strbuf.h"
#include "nvtxw/payload.h"

/* The deepest a JSON-text value may nest (objects and arrays); deeper text
 * is taken as not JSON (yajl's generator refuses it too). */
#define JSON_VALUE_MAX_DEPTH 128

/* 1 when a field (NULL: none) carries the JSON-text semantic (a string type
 * only). */
int json_value_field(const nvtxw_field_info_t* field);

/*
 * Appends `text` (length bytes) to `out` as one compact JSON value: 0 when
 * it was exactly one valid JSON value (then appended), 1 when it was not
 * (nothing appended: write it as a string), -1 when out of memory.
 */
int json_value_append(strbuf* out, const char* text, size_t length);

/* What json_value_walk reports, in document order; each returns 0 to go on,
 * anything else to stop the walk (it then fails). Numbers come as their
 * text, strings and keys as UTF-8 (not NUL-terminated). */
typedef struct json_value_ops {
    int (*on_null)(void* ctx);
    int (*on_bool)(void* ctx, int value);
    int (*on_number)(void* ctx, const char* text, size_t length);
    int (*on_string)(void* ctx, const char* text, size_t length);
    int (*on_key)(void* ctx, const char* text, size_t length);
    int (*on_open)(void* ctx, int is_array);
    int (*on_close)(void* ctx, int is_array);
} json_value_ops;

/* Walks `text` as one JSON value at most JSON_VALUE_MAX_DEPTH deep: 0 when
 * it was one and every callback went on, else 1 (what the callbacks saw so
 * far is to be discarded). */
int json_value_walk(const char* text, size_t length, const json_value_ops* ops, void* ctx);

#endif /* NVTXW_COMMON_JSON_VALUE_H */
