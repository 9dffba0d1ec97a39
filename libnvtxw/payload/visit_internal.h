/*
 * payload/visit_internal.h - state shared by the visitor's files: visit.c
 * (event loop, predefined payloads, pointers, errors), visit_entry.c (schema
 * entries, arrays, nested schemas, unions, enums), visit_string.c (C strings
 * and transcoding) and visit_number.c (integers and floats).
 *
 * Memory is constant per call: the field path, the slot positions and the
 * enum-name buffer live in visit_state_t. The only heap use is the string
 * scratch buffer, allocated on demand for strings that cannot be passed in
 * place and reused for the rest of the call, so it is bounded by the longest
 * string of the event, which its payload size bounds.
 */
#ifndef NVTXW_PAYLOAD_VISIT_INTERNAL_H
#define NVTXW_PAYLOAD_VISIT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/error_internal.h"
#include "payload/registry_internal.h"

#define VISIT_MAX_PATH 128
#define VISIT_INLINE_SCRATCH 1024 /* strings up to this size need no heap */
#define VISIT_ENUM_NAMES FIXED_ENUM_NAMES
/* Rows (inner arrays) a multi-dimensional array may have beyond its bytes. */
#define VISIT_MAX_EMPTY 4096

/* Bytes the visitor may read: a payload of the event, or producer memory. */
typedef struct visit_region {
    const uint8_t* data;
    size_t size;
    size_t payload; /* index in the event; SIZE_MAX for producer memory */
} visit_region_t;

typedef struct visit_path_item {
    const char* name; /* NULL for an array index */
    size_t entry;     /* entry index, names unnamed fields */
    uint64_t index;
} visit_path_item_t;

/* One object (schema instance) being walked. */
typedef struct visit_frame {
    const nvtxw_schema_t* schema;
    const visit_region_t* region;
    size_t base;   /* object start in region */
    size_t cursor; /* end of the furthest entry, from base */
    size_t* slots; /* positions in region of this schema's slot entries */
} visit_frame_t;

typedef struct visit_state {
    const nvtxw_schema_registry_t* registry;
    const nvtxPayloadData_t* payloads;
    size_t count;
    const nvtxw_visitor_t* v; /* the caller's, or `short_visitor` when it is older */
    void* ctx;
    const char* (*resolve)(void* resolve_ctx, uint64_t handle);
    void* resolve_ctx;
    uint32_t flags;
    const uint64_t* origins; /* payload_origins option, or NULL */
    size_t index;            /* payload being walked */
    uint64_t schema_id;
    const char* schema_name;
    visit_path_item_t path[VISIT_MAX_PATH];
    size_t path_len;
    unsigned depth;
    size_t slots[REGISTRY_MAX_SLOTS];
    size_t slot_top;
    char* scratch; /* inline_scratch or heap */
    size_t scratch_capacity;
    char inline_scratch[VISIT_INLINE_SCRATCH];
    char enum_names[VISIT_ENUM_NAMES];
    nvtxw_visitor_t short_visitor; /* zero-extended copy of a smaller struct_size */
} visit_state_t;

/* Every visit_* function returns 0 or an NVTXW_RESULT_* code with the error
 * message already set. */

/* Sets "cannot decode payload I (schema S "name"): field "path": ..." */
int visit_fail(visit_state_t* vs, const char* format, ...) NVTXW_PRINTF(2, 3);
/* Maps a non-zero callback result to NVTXW_RESULT_FAILED with a message. */
int visit_stopped(visit_state_t* vs, int result, const char* callback);
/* Checks that [pos, pos + n) lies inside region. */
int visit_need(visit_state_t* vs, const visit_region_t* region, size_t pos, size_t n);

int visit_path_push(visit_state_t* vs, const char* name, size_t entry, uint64_t index);
static inline void visit_path_pop(visit_state_t* vs) { vs->path_len--; }

/* Resolves a pointer value into a payload of the event (or, when allowed,
 * producer memory). *region->data is NULL for a NULL pointer. */
int visit_resolve_pointer(visit_state_t* vs, uintptr_t address, int allow_foreign,
                          visit_region_t* region, size_t* pos);

/* Integers read in host byte order; size 1, 2, 4 or 8 (others: the first
 * min(size, 8) bytes). Inline: they run for every value on the write path. */
static inline uint64_t visit_read_unsigned(const uint8_t* p, size_t size) {
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64 = 0;
    switch (size) {
    case 1:
        memcpy(&u8, p, 1);
        return u8;
    case 2:
        memcpy(&u16, p, 2);
        return u16;
    case 4:
        memcpy(&u32, p, 4);
        return u32;
    default:
        memcpy(&u64, p, size < 8 ? size : 8);
        return u64;
    }
}

static inline int64_t visit_read_signed(const uint8_t* p, size_t size) {
    int8_t i8;
    int16_t i16;
    int32_t i32;
    int64_t i64 = 0;
    switch (size) {
    case 1:
        memcpy(&i8, p, 1);
        return i8;
    case 2:
        memcpy(&i16, p, 2);
        return i16;
    case 4:
        memcpy(&i32, p, 4);
        return i32;
    default:
        memcpy(&i64, p, size < 8 ? size : 8);
        return i64;
    }
}
/* A predefined float type at p as a double (FLOAT16, BF16 exact; FLOAT128
 * rounded to the nearest). */
double visit_read_float(uint64_t type, const uint8_t* p);
/* Emits one predefined (non-string) value of `size` bytes at p. */
int visit_emit_number(visit_state_t* vs, const entry_type_info_t* info, const uint8_t* p,
                      size_t size);

/* Emits the string in the first `units` code units at p, cut at the first
 * NUL; transcodes to valid UTF-8. */
int visit_emit_string(visit_state_t* vs, const uint8_t* p, size_t units, size_t unit);
/* A C-string entry at pos of region; *consumed = bytes used there. */
int visit_string_entry(visit_state_t* vs, visit_frame_t* f, size_t i, const visit_region_t* region,
                       size_t pos, size_t* consumed);
/* Dimensions of a LENGTH_INDEX / LENGTH_PAYLOAD_INDEX entry. */
int visit_lengths(visit_state_t* vs, visit_frame_t* f, size_t i, uint64_t* dims, size_t* ndims);

/* The entries of a flat schema (nvtxw_schema_t.flat) at `base`, which holds
 * its static size: the events visit_fields gives them, without the general
 * steps. */
int visit_flat(visit_state_t* vs, const nvtxw_schema_t* schema, const uint8_t* base);
/* The fields of `schema` at pos of region; *consumed = parsed size. With
 * `as_object`, wrapped in object_begin/object_end. `selector` picks the
 * member of an external-selector UNION. */
int visit_fields(visit_state_t* vs, const nvtxw_schema_t* schema, const visit_region_t* region,
                 size_t pos, int as_object, uint64_t selector, size_t* consumed);

static inline int visit_checked(visit_state_t* vs, int result, const char* callback) {
    return result == 0 ? 0 : visit_stopped(vs, result, callback);
}

#define VISIT_CALL(vs, fn, ...)                                                                    \
    ((vs)->v->fn == NULL ? 0 : visit_checked((vs), (vs)->v->fn((vs)->ctx, __VA_ARGS__), #fn))
#define VISIT_CALL0(vs, fn)                                                                        \
    ((vs)->v->fn == NULL ? 0 : visit_checked((vs), (vs)->v->fn((vs)->ctx), #fn))

#endif /* NVTXW_PAYLOAD_VISIT_INTERNAL_H */
