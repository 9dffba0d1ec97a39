/*
 * payload/format_json.c - nvtxw_payload_format_json: the visitor's events as
 * one line of RFC 8259 JSON, with no trailing newline.
 *
 *   output   := '{"count":' N ',"payloads":[' [ payload { ',' payload }* ] ']}'
 *   payload  := '{"index":' I ',"schemaId":' S ',"size":' Z
 *               ',"schemaName":' ( string | 'null' ) ',"fields":' object '}'
 *   object   := '{' [ key ':' value { ',' key ':' value }* ] '}'
 *   key      := string of the field name | '"<field_' K '>"'  (unnamed; K = the
 *               field's 0-based position in its object)
 *   value    := integer | float | string | hex | enum | handle | 'null'
 *             | '[' [ value { ',' value }* ] ']' | object
 *   integer  := exact decimal of the int64 / uint64
 *   float    := shortest %.Ng (N <= 17) that reads back equal
 *             | '"nan"' | '"inf"' | '"-inf"'
 *   hex      := '"0x' { two lowercase hex digits per byte, memory order } '"'
 *   enum     := string of the enumerator name (flags joined by '|') | integer
 *   handle   := string of the registered text | '{"handle":' H '}'
 *   string   := '"' chars '"': '"' and '\' backslash-escaped; \b \f \n \r \t;
 *               other bytes below 0x20 as \u00xx; bytes that start no
 *               well-formed UTF-8 sequence as \ufffd; everything else (DEL
 *               and valid non-ASCII UTF-8 included) copied as is.
 * A field without a value is 'null'. Duplicate names in one object are kept
 * (valid JSON; RFC 8259 leaves their meaning to the reader). A string of a
 * field marked as JSON text (NVTXW_SEMANTIC_ID_JSON_TEXT) is written as the
 * JSON value it holds, compacted, when it is one (else as a string).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/error_internal.h"
#include "common/json_value.h"
#include "common/utf8.h"
#include "nvtxw/format.h"
#include "payload/format_common.h"

/* The escape for the character at s, or NULL when it is copied as is;
 * *consumed receives the character's length in bytes. */
static const char* json_escape(const unsigned char* s, size_t available, size_t* consumed,
                               char scratch[8]) {
    *consumed = 1;
    switch (s[0]) {
    case '"':
        return "\\\"";
    case '\\':
        return "\\\\";
    case '\b':
        return "\\b";
    case '\f':
        return "\\f";
    case '\n':
        return "\\n";
    case '\r':
        return "\\r";
    case '\t':
        return "\\t";
    default:
        break;
    }
    if (s[0] < 0x20) {
        snprintf(scratch, 8, "\\u%04x", s[0]);
        return scratch;
    }
    if (s[0] < 0x80)
        return NULL;
    *consumed = utf8_sequence_length(s, available);
    if (*consumed != 0)
        return NULL;
    *consumed = 1;
    return "\\ufffd";
}

static int json_write_string(format_out_t* out, const char* text, size_t length) {
    const unsigned char* s = (const unsigned char*)text;
    size_t start = 0;
    size_t i = 0;
    char scratch[8];

    if (format_write_char(out, '"') != 0)
        return -1;
    while (i < length) {
        size_t consumed;
        const char* escape = json_escape(s + i, length - i, &consumed, scratch);

        if (escape != NULL) {
            if (format_write(out, text + start, i - start) != 0 ||
                format_write_str(out, escape) != 0)
                return -1;
            start = i + consumed;
        }
        i += consumed;
    }
    if (format_write(out, text + start, length - start) != 0)
        return -1;
    return format_write_char(out, '"');
}

static int json_write_cstring(format_out_t* out, const char* text) {
    return json_write_string(out, text, strlen(text));
}

/* Claims the slot of the next value and writes the ',' before it. */
static int json_value(format_state_t* state) {
    size_t position;

    if (format_value_slot(state, &position) != 0)
        return -1;
    return position > 0 ? format_write_char(&state->out, ',') : 0;
}

static int json_begin_payloads(void* ctx, size_t count) {
    format_out_t* out = &((format_state_t*)ctx)->out;

    if (format_write_str(out, "{\"count\":") != 0 || format_write_u64(out, count) != 0)
        return -1;
    return format_write_str(out, ",\"payloads\":[");
}

static int json_end_payloads(void* ctx) {
    format_state_t* state = ctx;

    if (format_payloads_end(state) != 0)
        return -1;
    return format_write_str(&state->out, "]}");
}

static int json_payload_begin(void* ctx, size_t index, uint64_t schema_id, size_t size,
                              const char* schema_name) {
    format_state_t* state = ctx;
    format_out_t* out = &state->out;

    if (format_payload_open(state) != 0)
        return -1;
    if ((state->payloads > 1 && format_write_char(out, ',') != 0) ||
        format_write_str(out, "{\"index\":") != 0 || format_write_u64(out, index) != 0 ||
        format_write_str(out, ",\"schemaId\":") != 0 || format_write_u64(out, schema_id) != 0 ||
        format_write_str(out, ",\"size\":") != 0 || format_write_u64(out, size) != 0 ||
        format_write_str(out, ",\"schemaName\":") != 0)
        return -1;
    if (schema_name != NULL && schema_name[0] != '\0') {
        if (json_write_cstring(out, schema_name) != 0)
            return -1;
    } else if (format_write_str(out, "null") != 0) {
        return -1;
    }
    return format_write_str(out, ",\"fields\":{");
}

static int json_payload_end(void* ctx, size_t index) {
    format_state_t* state = ctx;

    (void)index;
    if (format_payload_close(state) != 0)
        return -1;
    return format_write_str(&state->out, "}}");
}

static int json_field_begin(void* ctx, const nvtxw_field_info_t* field) {
    format_state_t* state = ctx;
    format_out_t* out = &state->out;
    size_t position;

    if (format_field_open(state, field->type, &position) != 0)
        return -1;
    state->field = field;
    if (position > 0 && format_write_char(out, ',') != 0)
        return -1;
    if (field->name != NULL && field->name[0] != '\0') {
        if (json_write_cstring(out, field->name) != 0)
            return -1;
    } else if (format_write_str(out, "\"<field_") != 0 || format_write_u64(out, position) != 0 ||
               format_write_str(out, ">\"") != 0) {
        return -1;
    }
    return format_write_char(out, ':');
}

static int json_array_begin(void* ctx, uint64_t length) {
    format_state_t* state = ctx;

    (void)length;
    if (json_value(state) != 0 || format_push(state, FORMAT_FRAME_ARRAY) != 0)
        return -1;
    return format_write_char(&state->out, '[');
}

static int json_object_begin(void* ctx, uint64_t schema_id) {
    format_state_t* state = ctx;

    (void)schema_id;
    if (json_value(state) != 0 || format_push(state, FORMAT_FRAME_OBJECT) != 0)
        return -1;
    return format_write_char(&state->out, '{');
}

static int json_on_signed(void* ctx, int64_t value) {
    format_state_t* state = ctx;

    return json_value(state) != 0 ? -1 : format_write_i64(&state->out, value);
}

static int json_on_unsigned(void* ctx, uint64_t value) {
    format_state_t* state = ctx;

    return json_value(state) != 0 ? -1 : format_write_u64(&state->out, value);
}

static int json_on_float(void* ctx, double value) {
    format_state_t* state = ctx;

    if (json_value(state) != 0)
        return -1;
    if (isnan(value))
        return format_write_str(&state->out, "\"nan\"");
    if (isinf(value))
        return format_write_str(&state->out, value > 0 ? "\"inf\"" : "\"-inf\"");
    return format_write_double(&state->out, value);
}

static int json_on_string(void* ctx, const char* utf8, size_t length) {
    format_state_t* state = ctx;

    if (json_value(state) != 0)
        return -1;
    if (utf8 == NULL)
        return format_write_str(&state->out, "null");
    if (json_value_field(state->field)) {
        strbuf value = {0};
        int valid = json_value_append(&value, utf8, length);
        if (valid == 0)
            valid = format_write(&state->out, value.data, value.length);
        strbuf_free(&value);
        if (valid <= 0)
            return valid;
    }
    return json_write_string(&state->out, utf8, length);
}

static int json_on_bytes(void* ctx, const void* data, size_t size) {
    format_state_t* state = ctx;
    format_out_t* out = &state->out;

    if (json_value(state) != 0 || format_write_char(out, '"') != 0 ||
        format_write_hex_bytes(out, data, size) != 0)
        return -1;
    return format_write_char(out, '"');
}

static int json_on_enum(void* ctx, uint64_t value, const char* name) {
    format_state_t* state = ctx;

    if (json_value(state) != 0)
        return -1;
    if (name != NULL)
        return json_write_cstring(&state->out, name);
    return format_write_u64(&state->out, value);
}

static int json_on_string_handle(void* ctx, uint64_t handle, const char* text) {
    format_state_t* state = ctx;
    format_out_t* out = &state->out;

    if (json_value(state) != 0)
        return -1;
    if (text != NULL)
        return json_write_cstring(out, text);
    if (format_write_str(out, "{\"handle\":") != 0 || format_write_u64(out, handle) != 0)
        return -1;
    return format_write_char(out, '}');
}

static int json_on_null(void* ctx) {
    format_state_t* state = ctx;

    return json_value(state) != 0 ? -1 : format_write_str(&state->out, "null");
}

static const nvtxw_visitor_t json_visitor = {
    .struct_size = sizeof(nvtxw_visitor_t),
    .begin_payloads = json_begin_payloads,
    .payload_begin = json_payload_begin,
    .payload_end = json_payload_end,
    .field_begin = json_field_begin,
    .field_end = format_field_end,
    .array_begin = json_array_begin,
    .array_end = format_array_end,
    .object_begin = json_object_begin,
    .object_end = format_object_end,
    .on_signed = json_on_signed,
    .on_unsigned = json_on_unsigned,
    .on_float = json_on_float,
    .on_string = json_on_string,
    .on_bytes = json_on_bytes,
    .on_enum = json_on_enum,
    .on_string_handle = json_on_string_handle,
    .on_null = json_on_null,
    .end_payloads = json_end_payloads,
};

nvtxwResultCode_t nvtxw_payload_format_json(const nvtxw_schema_registry_t* registry,
                                            const nvtxPayloadData_t* payloads, size_t count,
                                            const nvtxw_visit_options_t* options,
                                            nvtxw_write_fn write, void* write_ctx) {
    format_state_t state;
    nvtxwResultCode_t result;

    if (write == NULL)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot format payloads as JSON: write function is NULL");
    format_state_init(&state, write, write_ctx);
    result = nvtxw_payload_visit(registry, payloads, count, &json_visitor, &state, options);
    return format_finish(&state, result, "JSON");
}
