/*
 * payload/format_common.h - what the JSON and text formatters share: a fixed
 * output buffer flushed to the caller's write function, exact integer and
 * shortest round-trip float rendering, hex bytes, UTF-8 checking, and the
 * fixed nesting stack that turns the visitor's events into value slots.
 *
 * Memory is constant: one format_state_t (a few KiB, on the caller's stack)
 * per formatting call, whatever the payloads hold.
 *
 * Every format_* output function returns 0, or -1 once the write function
 * has failed (output is then dropped and out.failed stays set). Grammar
 * violations of the event sequence and nesting deeper than FORMAT_MAX_DEPTH
 * are recorded in state->problem; the callbacks return non-zero, which stops
 * the visitor, and format_finish() turns the record into the error message.
 */
#ifndef NVTXW_PAYLOAD_FORMAT_COMMON_H
#define NVTXW_PAYLOAD_FORMAT_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "nvtxw/format.h"
#include "payload/registry_internal.h"

/* Bytes collected before one call of the write function. */
#define FORMAT_BUFFER_SIZE 4096
/* Objects and arrays that may be open inside one payload's fields: the
 * visitor's worst case is one object plus one array per dimension at every
 * schema nesting level, so formatting never fails on a depth the visitor
 * accepts; the check only guards the stack against a misbehaving caller. */
#define FORMAT_MAX_DEPTH ((REGISTRY_MAX_DEPTH + 1) * (REGISTRY_MAX_DIMS + 1))
/* Longest output of format_double_chars(), NUL included. */
#define FORMAT_DOUBLE_CHARS 32

typedef struct format_out {
    nvtxw_write_fn write;
    void* write_ctx;
    int failed;       /* the write function returned non-zero */
    int write_result; /* what it returned */
    uint64_t written; /* bytes accepted by the write function */
    size_t used;      /* bytes pending in buffer */
    char buffer[FORMAT_BUFFER_SIZE];
} format_out_t;

enum { FORMAT_FRAME_OBJECT = 1, FORMAT_FRAME_ARRAY = 2 };

/* One open container. An object frame holds fields (a payload's fields or a
 * nested schema); an array frame holds values. */
typedef struct format_frame {
    unsigned char kind;
    unsigned char field_open;      /* object: between field_begin and field_end */
    unsigned char field_has_value; /* object: the open field received its value */
    uint64_t field_type;           /* entry type of the innermost open field */
    size_t items;                  /* object: fields begun; array: values written */
} format_frame_t;

typedef struct format_state {
    format_out_t out;
    const char* problem;             /* first grammar or depth failure, static text */
    size_t payloads;                 /* payload_begin events seen */
    size_t depth;                    /* frames in use; frames[0] is the payload's fields */
    const nvtxw_field_info_t* field; /* the open field (format_json.c) */
    format_frame_t frames[FORMAT_MAX_DEPTH + 1];
} format_state_t;

void format_state_init(format_state_t* state, nvtxw_write_fn write, void* write_ctx);
/* Error handling after nvtxw_payload_visit returned `result`: on success the
 * buffer is flushed; on failure the message names the cause (write failure,
 * recorded problem, or the visitor's own message with `format_name` context). */
nvtxwResultCode_t format_finish(format_state_t* state, nvtxwResultCode_t result,
                                const char* format_name);

/* Buffered output. */
int format_write(format_out_t* out, const char* data, size_t size);
int format_write_str(format_out_t* out, const char* text);
int format_write_char(format_out_t* out, char c);
int format_write_u64(format_out_t* out, uint64_t value);
int format_write_i64(format_out_t* out, int64_t value);
/* Finite values only: the shortest %.Ng (N <= 17) that reads back equal
 * (so -0.0 is "-0", 5e-324 is "5e-324"), always with '.' as the decimal
 * point. */
int format_write_double(format_out_t* out, double value);
/* "0x" followed by two lowercase hex digits per byte, in memory order. */
int format_write_hex_bytes(format_out_t* out, const void* data, size_t size);
/* "0x" followed by exactly `digits` lowercase hex digits of value. */
int format_write_hex_u64(format_out_t* out, uint64_t value, int digits);

/* Nesting stack. Each returns 0, or -1 with state->problem set. */
/* Opens the payload's fields object (depth must be 0). */
int format_payload_open(format_state_t* state);
/* Closes it (depth must be 1 with no field open). */
int format_payload_close(format_state_t* state);
/* Checks that no payload is open at end_payloads. */
int format_payloads_end(format_state_t* state);
/* Starts a field in the innermost object; *position receives its 0-based
 * position there (used for "<field_K>"). */
int format_field_open(format_state_t* state, uint64_t type, size_t* position);
/* Ends the open field; *had_value tells whether a value was written. */
int format_field_close(format_state_t* state, int* had_value);
/* Claims the slot for the next value (scalar, array or object). *position
 * receives the value's index in an enclosing array, 0 when it is a field's. */
int format_value_slot(format_state_t* state, size_t* position);
/* Pushes or pops an array or object frame (after format_value_slot). */
int format_push(format_state_t* state, int kind);
int format_pop(format_state_t* state, int kind);

/* Visitor callbacks both formatters share (ctx is a format_state_t): a field
 * that got no value prints "null"; arrays close with ']', objects with '}'. */
int format_field_end(void* ctx, const nvtxw_field_info_t* field);
int format_array_end(void* ctx);
int format_object_end(void* ctx);
/* Entry type of the innermost open field (for type-aware renderings). */
uint64_t format_current_type(const format_state_t* state);
/* Non-zero when the innermost frame is the payload's fields object. */
int format_at_payload_level(const format_state_t* state);

#endif /* NVTXW_PAYLOAD_FORMAT_COMMON_H */
