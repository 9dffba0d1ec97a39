/*
 * payload/format_common.c - output buffering, number rendering, UTF-8
 * checking and the nesting stack shared by format_json.c and format_text.c.
 *
 * Stack discipline (the visitor's grammar, nvtxw/payload.h):
 *   payload  := format_payload_open { field }* format_payload_close
 *   field    := format_field_open [ value ] format_field_close
 *   value    := format_value_slot ( scalar
 *             | format_push(ARRAY) value* format_pop(ARRAY)
 *             | format_push(OBJECT) field* format_pop(OBJECT) )
 * A field takes at most one value; an array any number. Anything else is a
 * grammar violation and stops the walk instead of producing broken output.
 */
#include "config.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error_internal.h"
#include "payload/format_common.h"

int nvtxw_write_to_file(void* file, const char* data, size_t size) {
    if (file == NULL)
        return -1;
    if (size == 0)
        return 0;
    return fwrite(data, 1, size, (FILE*)file) == size ? 0 : -1;
}

void format_state_init(format_state_t* state, nvtxw_write_fn write, void* write_ctx) {
    memset(state, 0, sizeof *state);
    state->out.write = write;
    state->out.write_ctx = write_ctx;
}

static int format_flush(format_out_t* out) {
    int result;

    if (out->failed)
        return -1;
    if (out->used == 0)
        return 0;
    result = out->write(out->write_ctx, out->buffer, out->used);
    if (result != 0) {
        out->failed = 1;
        out->write_result = result;
        return -1;
    }
    out->written += out->used;
    out->used = 0;
    return 0;
}

nvtxwResultCode_t format_finish(format_state_t* state, nvtxwResultCode_t result,
                                const char* format_name) {
    if (result == NVTXW_RESULT_SUCCESS)
        format_flush(&state->out);
    if (state->out.failed)
        return error_set(NVTXW_RESULT_FAILED,
                         "cannot format payloads as %s: write function returned %d, "
                         "bytes_written=%" PRIu64,
                         format_name, state->out.write_result, state->out.written);
    if (state->problem != NULL)
        return error_set(NVTXW_RESULT_FAILED, "cannot format payloads as %s: %s", format_name,
                         state->problem);
    if (result != NVTXW_RESULT_SUCCESS)
        error_prefix("cannot format payloads as %s", format_name);
    return result;
}

int format_write(format_out_t* out, const char* data, size_t size) {
    if (out->failed)
        return -1;
    while (size > 0) {
        size_t room = FORMAT_BUFFER_SIZE - out->used;
        size_t chunk = size < room ? size : room;

        memcpy(out->buffer + out->used, data, chunk);
        out->used += chunk;
        data += chunk;
        size -= chunk;
        if (out->used == FORMAT_BUFFER_SIZE && format_flush(out) != 0)
            return -1;
    }
    return 0;
}

int format_write_str(format_out_t* out, const char* text) {
    return format_write(out, text, strlen(text));
}

int format_write_char(format_out_t* out, char c) { return format_write(out, &c, 1); }

int format_write_u64(format_out_t* out, uint64_t value) {
    char digits[24];
    int length = snprintf(digits, sizeof digits, "%" PRIu64, value);
    return format_write(out, digits, (size_t)length);
}

int format_write_i64(format_out_t* out, int64_t value) {
    char digits[24];
    int length = snprintf(digits, sizeof digits, "%" PRId64, value);
    return format_write(out, digits, (size_t)length);
}

/* A locale with a decimal comma makes printf and strtod agree on ','; the
 * output contract wants '.', so it is swapped after the round-trip check. */
static void format_fix_decimal_point(char* text) {
    for (; *text != '\0'; text++)
        if (*text == ',')
            *text = '.';
}

/* For a normal double, 15-digit decimals lie more than two ulps apart, so
 * one that reads back is the nearest and %.15g prints it, trailing zeros
 * dropped: the search for the shortest form can start at 15. Subnormals
 * carry fewer bits and may need as little as one digit (5e-324). */
int format_write_double(format_out_t* out, double value) {
    char text[FORMAT_DOUBLE_CHARS];
    int length = 0;
    int precision = value != 0 && fabs(value) < DBL_MIN ? 1 : 15;

    for (; precision <= 17; precision++) {
        length = snprintf(text, sizeof text, "%.*g", precision, value);
        if (strtod(text, NULL) == value)
            break;
    }
    format_fix_decimal_point(text);
    return format_write(out, text, (size_t)length);
}

static const char format_hex_digits[] = "0123456789abcdef";

int format_write_hex_bytes(format_out_t* out, const void* data, size_t size) {
    const unsigned char* bytes = data;
    char pair[2];
    size_t i;

    if (format_write(out, "0x", 2) != 0)
        return -1;
    for (i = 0; i < size; i++) {
        pair[0] = format_hex_digits[bytes[i] >> 4];
        pair[1] = format_hex_digits[bytes[i] & 0xF];
        if (format_write(out, pair, 2) != 0)
            return -1;
    }
    return 0;
}

int format_write_hex_u64(format_out_t* out, uint64_t value, int digits) {
    char text[24];
    int length = snprintf(text, sizeof text, "0x%0*" PRIx64, digits, value);
    return format_write(out, text, (size_t)length);
}

static int format_fail(format_state_t* state, const char* problem) {
    if (state->problem == NULL)
        state->problem = problem;
    return -1;
}

static format_frame_t* format_top(format_state_t* state) {
    return state->depth > 0 ? &state->frames[state->depth - 1] : NULL;
}

int format_payload_open(format_state_t* state) {
    if (state->depth != 0)
        return format_fail(state, "payload_begin inside another payload");
    memset(&state->frames[0], 0, sizeof state->frames[0]);
    state->frames[0].kind = FORMAT_FRAME_OBJECT;
    state->depth = 1;
    state->payloads++;
    return 0;
}

int format_payloads_end(format_state_t* state) {
    return state->depth == 0 ? 0 : format_fail(state, "end_payloads inside a payload");
}

int format_payload_close(format_state_t* state) {
    if (state->depth != 1 || state->frames[0].field_open)
        return format_fail(state, "payload_end with an open field, array or object");
    state->depth = 0;
    return 0;
}

int format_field_open(format_state_t* state, uint64_t type, size_t* position) {
    format_frame_t* top = format_top(state);

    if (top == NULL || top->kind != FORMAT_FRAME_OBJECT || top->field_open)
        return format_fail(state, "field_begin outside of an object");
    top->field_open = 1;
    top->field_has_value = 0;
    top->field_type = type;
    *position = top->items++;
    return 0;
}

int format_field_close(format_state_t* state, int* had_value) {
    format_frame_t* top = format_top(state);

    if (top == NULL || top->kind != FORMAT_FRAME_OBJECT || !top->field_open)
        return format_fail(state, "field_end without field_begin");
    top->field_open = 0;
    *had_value = top->field_has_value;
    return 0;
}

int format_value_slot(format_state_t* state, size_t* position) {
    format_frame_t* top = format_top(state);

    if (top == NULL)
        return format_fail(state, "value outside of a payload");
    if (top->kind == FORMAT_FRAME_ARRAY) {
        *position = top->items++;
        return 0;
    }
    if (!top->field_open || top->field_has_value)
        return format_fail(state, "value outside of a field or second value of a field");
    top->field_has_value = 1;
    *position = 0;
    return 0;
}

int format_push(format_state_t* state, int kind) {
    format_frame_t* top = format_top(state);
    format_frame_t* frame;

    if (top == NULL)
        return format_fail(state, "array or object outside of a payload");
    if (state->depth > FORMAT_MAX_DEPTH)
        return format_fail(state, "arrays and objects nested too deeply inside a payload");
    frame = &state->frames[state->depth++];
    memset(frame, 0, sizeof *frame);
    frame->kind = (unsigned char)kind;
    frame->field_type = top->field_type;
    return 0;
}

int format_pop(format_state_t* state, int kind) {
    format_frame_t* top = format_top(state);

    if (state->depth < 2 || top->kind != kind || top->field_open)
        return format_fail(state, "array_end or object_end without matching begin");
    state->depth--;
    return 0;
}

uint64_t format_current_type(const format_state_t* state) {
    return state->depth > 0 ? state->frames[state->depth - 1].field_type : 0;
}

int format_at_payload_level(const format_state_t* state) { return state->depth == 1; }

int format_field_end(void* ctx, const nvtxw_field_info_t* field) {
    format_state_t* state = ctx;
    int had_value;

    (void)field;
    if (format_field_close(state, &had_value) != 0)
        return -1;
    return had_value ? 0 : format_write_str(&state->out, "null");
}

int format_array_end(void* ctx) {
    format_state_t* state = ctx;

    if (format_pop(state, FORMAT_FRAME_ARRAY) != 0)
        return -1;
    return format_write_char(&state->out, ']');
}

int format_object_end(void* ctx) {
    format_state_t* state = ctx;

    if (format_pop(state, FORMAT_FRAME_OBJECT) != 0)
        return -1;
    return format_write_char(&state->out, '}');
}
