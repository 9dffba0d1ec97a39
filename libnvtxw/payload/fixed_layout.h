/*
 * payload/fixed_layout.h - the layout the walk reads a schema's payloads
 * by, for a sink that encodes common payloads itself instead of taking
 * the visitor's callbacks (sink/perfetto/perfetto_direct.c). Reading
 * these, a sink sees exactly the values, in the order and with the field
 * infos, that the walk would report. Never installed.
 *
 * A schema has a fixed layout when it is STATIC and every entry is held
 * inline at a fixed offset inside its static size, read by no other entry,
 * and is one of: a predefined number or registered string handle; a
 * fixed-size array of predefined numbers (not BYTE: that is one on_bytes);
 * an enum. A payload of at least the static size is then walked entry by
 * entry: field_begin, the value (an array: array_begin, each element,
 * array_end), field_end.
 */
#ifndef NVTXW_PAYLOAD_FIXED_LAYOUT_H
#define NVTXW_PAYLOAD_FIXED_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "nvtxw/payload.h"

/* How the walk reads and reports one number or handle: its width and
 * callback, chosen once at finalization (finalize.c). */
typedef enum flat_op {
    FLAT_OP_NONE = 0, /* not one of these */
    FLAT_OP_UNSIGNED_1,
    FLAT_OP_UNSIGNED_2,
    FLAT_OP_UNSIGNED_4,
    FLAT_OP_UNSIGNED_8,
    FLAT_OP_SIGNED_1,
    FLAT_OP_SIGNED_2,
    FLAT_OP_SIGNED_4,
    FLAT_OP_SIGNED_8,
    FLAT_OP_FLOAT32,     /* FLOAT, FLOAT32, TF32: binary32 */
    FLAT_OP_FLOAT64,     /* DOUBLE, FLOAT64 */
    FLAT_OP_FLOAT_OTHER, /* FLOAT16, BF16, LONGDOUBLE, FLOAT128: converted */
    FLAT_OP_HANDLE_8,    /* registered string handle of 8 bytes */
    FLAT_OP_HANDLE       /* registered string handle of element_size (< 8) bytes */
} flat_op_t;

/* One entry of a schema of fixed layout. */
typedef struct fixed_field {
    const nvtxw_field_info_t* field; /* as field_begin reports it; lives with the schema */
    size_t offset;                   /* of its value (or first element) in the payload */
    size_t size;                     /* bytes of its value (or of one element) */
    flat_op_t op;                    /* of the value or each element; NONE for an enum */
    size_t elements;                 /* 0: one value; else a fixed array of this many */
    const nvtxw_enum_t* enumeration; /* an enum (an unsigned of `size` bytes), else NULL */
} fixed_field;

/* Fills out[0 .. n-1] with the n entries of `schema` when its layout is
 * fixed and n <= capacity, and returns n; returns 0 otherwise. */
size_t fixed_layout_of(const nvtxw_schema_t* schema, fixed_field* out, size_t capacity);

/* The field info the walk reports for entry `index` of `schema` (lives
 * with the schema), or NULL when there is no such entry. */
const nvtxw_field_info_t* fixed_field_info(const nvtxw_schema_t* schema, size_t index);

/* Bytes of the scratch the walk gives fixed_enum_name. */
#define FIXED_ENUM_NAMES 256

/* The name the walk reports with on_enum for `value` of `enumeration`: its
 * entry's name; for a flags enum, the names of the flags that make it up
 * joined by '|', written to `scratch` (cut with "..." when longer than
 * `size`, at least 4); or NULL when it has none. */
const char* fixed_enum_name(const nvtxw_enum_t* enumeration, uint64_t value, char* scratch,
                            size_t size);

#endif /* NVTXW_PAYLOAD_FIXED_LAYOUT_H */
