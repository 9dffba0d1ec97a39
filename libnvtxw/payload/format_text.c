/*
 * payload/format_text.c - nvtxw_payload_format_text: the visitor's events as
 * human-readable text, one line per payload.
 *
 *   output   := { payload }*
 *   payload  := '[' I '] ' title ':' [ ' ' field { ', ' field }* ] '\n'
 *   title    := name of the schema | name of the predefined entry type
 *               ("INT32") | '<schema_' S '>'
 *   field    := key '=' value
 *   key      := name of the field | '<field_' K '>'  (unnamed; K = the field's
 *               0-based position in its object)
 *   value    := integer | float | string | hex | enum | handle | 'null'
 *             | '[' [ value { ', ' value }* ] ']'
 *             | '{' [ field { ', ' field }* ] '}'
 *   integer  := exact decimal; in ADDRESS fields '0x' and 16 lowercase hex
 *               digits, in COLOR_ARGB fields '0x' and 8 (also when the
 *               visitor hands the value over as raw bytes of that size)
 *   float    := shortest %.Ng (N <= 17) that reads back equal
 *             | 'nan' | 'inf' | '-inf'
 *   hex      := '0x' { two lowercase hex digits per byte, memory order }
 *   enum     := enumerator name (flags joined by '|') | integer
 *   handle   := string of the registered text | '<handle:' H '>'
 *   string   := '"' chars '"' with C escapes: \" \\ \n \r \t; other bytes
 *               below 0x20, DEL and bytes that start no well-formed UTF-8
 *               sequence as \x and two lowercase hex digits; valid non-ASCII
 *               UTF-8 copied as is.
 * Titles and keys are escaped the same way, without quotes, so a payload
 * always stays on one line. A field without a value is 'null'.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/error_internal.h"
#include "common/utf8.h"
#include "nvtxw/format.h"
#include "payload/format_common.h"

/* The escape for the character at s, or NULL when it is copied as is;
 * *consumed receives the character's length in bytes. */
static const char* text_escape(const unsigned char* s, size_t available, size_t* consumed,
                               char scratch[8]) {
    *consumed = 1;
    switch (s[0]) {
    case '"':
        return "\\\"";
    case '\\':
        return "\\\\";
    case '\n':
        return "\\n";
    case '\r':
        return "\\r";
    case '\t':
        return "\\t";
    default:
        break;
    }
    if (s[0] >= 0x80) {
        *consumed = utf8_sequence_length(s, available);
        if (*consumed != 0)
            return NULL;
        *consumed = 1;
    } else if (s[0] >= 0x20 && s[0] != 0x7F) {
        return NULL;
    }
    snprintf(scratch, 8, "\\x%02x", s[0]);
    return scratch;
}

static int text_write_escaped(format_out_t* out, const char* text, size_t length) {
    const unsigned char* s = (const unsigned char*)text;
    size_t start = 0;
    size_t i = 0;
    char scratch[8];

    while (i < length) {
        size_t consumed;
        const char* escape = text_escape(s + i, length - i, &consumed, scratch);

        if (escape != NULL) {
            if (format_write(out, text + start, i - start) != 0 ||
                format_write_str(out, escape) != 0)
                return -1;
            start = i + consumed;
        }
        i += consumed;
    }
    return format_write(out, text + start, length - start);
}

static int text_write_quoted(format_out_t* out, const char* text, size_t length) {
    if (format_write_char(out, '"') != 0 || text_write_escaped(out, text, length) != 0)
        return -1;
    return format_write_char(out, '"');
}

/* Claims the slot of the next value and writes the ", " before it. */
static int text_value(format_state_t* state) {
    size_t position;

    if (format_value_slot(state, &position) != 0)
        return -1;
    return position > 0 ? format_write_str(&state->out, ", ") : 0;
}

static int text_write_title(format_out_t* out, uint64_t schema_id, const char* schema_name) {
    const char* type_name = NULL;

    if (schema_name != NULL && schema_name[0] != '\0')
        return text_write_escaped(out, schema_name, strlen(schema_name));
    if (schema_id < NVTX_PAYLOAD_SCHEMA_ID_STATIC_START)
        type_name = nvtxw_entry_type_name(schema_id);
    if (type_name != NULL)
        return format_write_str(out, type_name);
    if (format_write_str(out, "<schema_") != 0 || format_write_u64(out, schema_id) != 0)
        return -1;
    return format_write_char(out, '>');
}

static int text_payload_begin(void* ctx, size_t index, uint64_t schema_id, size_t size,
                              const char* schema_name) {
    format_state_t* state = ctx;
    format_out_t* out = &state->out;

    (void)size;
    if (format_payload_open(state) != 0)
        return -1;
    if (format_write_char(out, '[') != 0 || format_write_u64(out, index) != 0 ||
        format_write_str(out, "] ") != 0 || text_write_title(out, schema_id, schema_name) != 0)
        return -1;
    return format_write_char(out, ':');
}

static int text_payload_end(void* ctx, size_t index) {
    format_state_t* state = ctx;

    (void)index;
    if (format_payload_close(state) != 0)
        return -1;
    return format_write_char(&state->out, '\n');
}

static int text_end_payloads(void* ctx) { return format_payloads_end(ctx); }

static int text_field_begin(void* ctx, const nvtxw_field_info_t* field) {
    format_state_t* state = ctx;
    format_out_t* out = &state->out;
    int top_level = format_at_payload_level(state);
    size_t position;

    if (format_field_open(state, field->type, &position) != 0)
        return -1;
    if ((position > 0 || top_level) && format_write_str(out, position > 0 ? ", " : " ") != 0)
        return -1;
    if (field->name != NULL && field->name[0] != '\0') {
        if (text_write_escaped(out, field->name, strlen(field->name)) != 0)
            return -1;
    } else if (format_write_str(out, "<field_") != 0 || format_write_u64(out, position) != 0 ||
               format_write_char(out, '>') != 0) {
        return -1;
    }
    return format_write_char(out, '=');
}

static int text_array_begin(void* ctx, uint64_t length) {
    format_state_t* state = ctx;

    (void)length;
    if (text_value(state) != 0 || format_push(state, FORMAT_FRAME_ARRAY) != 0)
        return -1;
    return format_write_char(&state->out, '[');
}

static int text_object_begin(void* ctx, uint64_t schema_id) {
    format_state_t* state = ctx;

    (void)schema_id;
    if (text_value(state) != 0 || format_push(state, FORMAT_FRAME_OBJECT) != 0)
        return -1;
    return format_write_char(&state->out, '{');
}

static int text_on_signed(void* ctx, int64_t value) {
    format_state_t* state = ctx;

    return text_value(state) != 0 ? -1 : format_write_i64(&state->out, value);
}

/* Integers of ADDRESS and COLOR_ARGB fields print as fixed-width hex. */
static int text_write_unsigned(format_state_t* state, uint64_t value) {
    switch (format_current_type(state)) {
    case NVTX_PAYLOAD_ENTRY_TYPE_ADDRESS:
        return format_write_hex_u64(&state->out, value, 16);
    case NVTX_PAYLOAD_ENTRY_TYPE_COLOR_ARGB:
        return format_write_hex_u64(&state->out, value, 8);
    default:
        return format_write_u64(&state->out, value);
    }
}

static int text_on_unsigned(void* ctx, uint64_t value) {
    format_state_t* state = ctx;

    return text_value(state) != 0 ? -1 : text_write_unsigned(state, value);
}

static int text_on_float(void* ctx, double value) {
    format_state_t* state = ctx;

    if (text_value(state) != 0)
        return -1;
    if (isnan(value))
        return format_write_str(&state->out, "nan");
    if (isinf(value))
        return format_write_str(&state->out, value > 0 ? "inf" : "-inf");
    return format_write_double(&state->out, value);
}

static int text_on_string(void* ctx, const char* utf8, size_t length) {
    format_state_t* state = ctx;

    if (text_value(state) != 0)
        return -1;
    if (utf8 == NULL)
        return format_write_str(&state->out, "null");
    return text_write_quoted(&state->out, utf8, length);
}

static int text_on_bytes(void* ctx, const void* data, size_t size) {
    format_state_t* state = ctx;
    uint64_t type = format_current_type(state);
    uint32_t value32;
    uint64_t value64;

    if (text_value(state) != 0)
        return -1;
    if (type == NVTX_PAYLOAD_ENTRY_TYPE_ADDRESS || type == NVTX_PAYLOAD_ENTRY_TYPE_COLOR_ARGB) {
        if (size == sizeof value64) {
            memcpy(&value64, data, sizeof value64);
            return text_write_unsigned(state, value64);
        }
        if (size == sizeof value32) {
            memcpy(&value32, data, sizeof value32);
            return text_write_unsigned(state, value32);
        }
    }
    return format_write_hex_bytes(&state->out, data, size);
}

static int text_on_enum(void* ctx, uint64_t value, const char* name) {
    format_state_t* state = ctx;

    if (text_value(state) != 0)
        return -1;
    if (name != NULL)
        return text_write_escaped(&state->out, name, strlen(name));
    return format_write_u64(&state->out, value);
}

static int text_on_string_handle(void* ctx, uint64_t handle, const char* text) {
    format_state_t* state = ctx;
    format_out_t* out = &state->out;

    if (text_value(state) != 0)
        return -1;
    if (text != NULL)
        return text_write_quoted(out, text, strlen(text));
    if (format_write_str(out, "<handle:") != 0 || format_write_u64(out, handle) != 0)
        return -1;
    return format_write_char(out, '>');
}

static int text_on_null(void* ctx) {
    format_state_t* state = ctx;

    return text_value(state) != 0 ? -1 : format_write_str(&state->out, "null");
}

static const nvtxw_visitor_t text_visitor = {
    .struct_size = sizeof(nvtxw_visitor_t),
    .payload_begin = text_payload_begin,
    .payload_end = text_payload_end,
    .field_begin = text_field_begin,
    .field_end = format_field_end,
    .array_begin = text_array_begin,
    .array_end = format_array_end,
    .object_begin = text_object_begin,
    .object_end = format_object_end,
    .on_signed = text_on_signed,
    .on_unsigned = text_on_unsigned,
    .on_float = text_on_float,
    .on_string = text_on_string,
    .on_bytes = text_on_bytes,
    .on_enum = text_on_enum,
    .on_string_handle = text_on_string_handle,
    .on_null = text_on_null,
    .end_payloads = text_end_payloads,
};

nvtxwResultCode_t nvtxw_payload_format_text(const nvtxw_schema_registry_t* registry,
                                            const nvtxPayloadData_t* payloads, size_t count,
                                            const nvtxw_visit_options_t* options,
                                            nvtxw_write_fn write, void* write_ctx) {
    format_state_t state;
    nvtxwResultCode_t result;

    if (write == NULL)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot format payloads as text: write function is NULL");
    format_state_init(&state, write, write_ctx);
    result = nvtxw_payload_visit(registry, payloads, count, &text_visitor, &state, options);
    return format_finish(&state, result, "text");
}
