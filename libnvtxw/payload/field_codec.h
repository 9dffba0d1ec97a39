/*
 * payload/field_codec.h - the schema-driven payload encoding of report
 * records (docs/report-records.md, payload encoding 4 "fields"): a payload
 * of a STATIC schema stored entry by entry from its finalized layout instead
 * of as raw bytes. Shared by the report sink (encode) and the reader
 * (decode); both derive the same plan from the same registered schema, so
 * the plan itself is never stored.
 *
 * A plan is a list of operations over the payload's bytes, in offset order:
 *
 *   FIELD_UVAR  unsigned integer of 1, 2, 4 or 8 bytes     -> uvar
 *   FIELD_SVAR  signed integer of 1, 2, 4 or 8 bytes       -> svar
 *   FIELD_TS    8-byte integer with TIMESTAMP semantics    -> svar(value - event time)
 *   FIELD_HANDLE registered string handle (8 bytes)        -> uvar(low 32 bits), see below
 *   FIELD_RAW   anything else (floats, bytes, unions, long arrays) -> the bytes as they are
 *
 * Nested STATIC schemas are flattened; fixed-size arrays of integers become
 * one operation per element (up to a budget, else raw). Bytes no entry
 * covers (padding) are not stored and read back as zero. A handle is stored
 * by its low half when its high half is the domain's handle serial (every
 * handle libnvtxw's core accepted is); the decoder puts the serial back.
 *
 * Eligible: STATIC schemas of inline entries only (no POINTER or OFFSET
 * forms, hence no variable size), of at most FIELD_MAX_OPS operations.
 * Anything else has no plan and keeps the raw encodings.
 */
#ifndef NVTXW_PAYLOAD_FIELD_CODEC_H
#define NVTXW_PAYLOAD_FIELD_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "nvtxw/payload.h"

enum { FIELD_RAW = 0, FIELD_UVAR, FIELD_SVAR, FIELD_TS, FIELD_HANDLE };

#define FIELD_MAX_OPS 64

typedef struct field_op {
    uint32_t offset;
    uint32_t size; /* bytes: 1, 2, 4 or 8 for integers; any for FIELD_RAW */
    uint8_t kind;
    uint8_t code; /* kind and size in one (field_codec.c): one dispatch per field */
    uint8_t lane; /* min(index, FIELD_LANES - 1): the lane it takes */
} field_op;

/* Fields may go to separate byte sequences ("lanes", the columns of report
 * chunks): field k goes to lane min(k, FIELD_LANES - 1). */
#define FIELD_LANES 6

typedef struct field_plan {
    uint32_t static_size; /* payload bytes the plan describes exactly */
    uint32_t op_count;
    uint32_t bound; /* most encoded bytes */
    int has_gaps;   /* bytes no operation covers (read back as zero) */
    field_op ops[FIELD_MAX_OPS];
} field_plan;

/* Fills `plan` for a registered (finalized) `schema`. Returns 1 when the
 * schema is eligible, 0 when it keeps the raw encodings. */
int field_plan_make(const nvtxw_schema_t* schema, field_plan* plan);

/* Non-zero for a DYNAMIC schema whose only entry is a zero-terminated
 * UTF-8 (or locale) string held inline, such as the event helpers' message:
 * its payloads are stored in the chunk's string dictionary. */
int field_schema_is_inline_string(const nvtxw_schema_t* schema);

/* A handle the fields encoding can store: 0, or one of the domain whose
 * handle serial is `serial` (restored from its low half). */
static inline int field_handle_restorable(uint64_t handle, uint32_t serial) {
    return handle == 0 || ((handle >> 32) == serial && (handle & 0xFFFFFFFFu) != 0);
}

/* Encodes `payload` (exactly plan->static_size bytes) at `out` (room for
 * plan->bound bytes). Returns the end of the encoding, or NULL when a
 * value cannot be stored this way (a handle of another domain): the caller
 * then stores the payload raw. */
uint8_t* field_encode(const field_plan* plan, const uint8_t* payload, int64_t event_ts,
                      uint32_t serial, uint8_t* out);
/* The same into lanes: lanes[k] is where lane k's next byte goes (each with
 * room for plan->bound bytes) and is advanced. Returns 0, or -1 for a value
 * that cannot be stored (then the lanes hold a partial encoding). Lane k
 * holds field k and the last lane the fields from FIELD_LANES - 1 on, so
 * the lanes one after another are field_encode's bytes. */
int field_encode_lanes(const field_plan* plan, const uint8_t* payload, int64_t event_ts,
                       uint32_t serial, uint8_t* lanes[FIELD_LANES]);

/* Decodes from [*in, end) into `out` (plan->static_size bytes, every byte
 * written). Returns 0 and advances *in, or -1 with *problem set (a static
 * string) when the bytes end early or a value does not fit its field. */
int field_decode(const field_plan* plan, const uint8_t** in, const uint8_t* end, int64_t event_ts,
                 uint32_t serial, uint8_t* out, const char** problem);

/* A lane being decoded: [p, end). */
typedef struct field_input {
    const uint8_t* p;
    const uint8_t* end;
} field_input;
/* The same from lanes: field k from lanes[min(k, FIELD_LANES - 1)], each
 * advanced past what it gave (the layout field_encode_lanes writes). */
int field_decode_lanes(const field_plan* plan, field_input lanes[FIELD_LANES], int64_t event_ts,
                       uint32_t serial, uint8_t* out, const char** problem);
/* field_decode_lanes for a caller that knows each of the plan's lanes holds
 * at least plan->bound bytes: no end checks (the bytes are still checked
 * for values that do not fit their fields). */
int field_decode_lanes_unchecked(const field_plan* plan, field_input lanes[FIELD_LANES],
                                 int64_t event_ts, uint32_t serial, uint8_t* out,
                                 const char** problem);

/* A run of records of one plan decoded lane by lane: record r's payload at
 * out + r * stride and its event time (an int64_t, for FIELD_TS) at
 * times + r * stride. */
typedef struct field_run {
    uint8_t* out;
    const uint8_t* times;
    size_t stride;
    size_t count;
} field_run;

/* Whether runs of `plan` can be decoded column by column: every field has
 * a lane of its own (at most FIELD_LANES fields). */
static inline int field_plan_decodes_runs(const field_plan* plan) {
    return plan->op_count <= FIELD_LANES;
}

/* Decodes the fields of run->count records, field by field: each lane's
 * values one after another, with one dispatch per field instead of per
 * value. For a caller that knows each of the plan's lanes holds at least
 * run->count * plan->bound bytes (no end checks; values are still checked
 * against their fields). Returns 0, or -1 with *problem set: the lanes are
 * then partly consumed and the caller decodes the records one by one from
 * where it started, which names the record at fault. */
int field_decode_run_unchecked(const field_plan* plan, field_input lanes[FIELD_LANES],
                               const field_run* run, uint32_t serial, const char** problem);

#endif /* NVTXW_PAYLOAD_FIELD_CODEC_H */
