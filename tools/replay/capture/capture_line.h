/*
 * tools/replay/capture/capture_line.h - one line of a capture being read, shared by
 * the line parser (capture_lines.c) and the registrations (capture_regs.c).
 */
#ifndef NVTXW_CAPTURE_LINE_H
#define NVTXW_CAPTURE_LINE_H

#include "capture_reader.h"

enum value_type {
    V_NONE,
    V_U64,
    V_I64,
    V_F64,
    V_TEXT,
    V_REF,
    V_MAP,
    V_PAYLOADS,
    V_POINTS,
    V_SAMPLE,
    V_HEX
};

#define MAX_ATTRS 7

typedef struct line_value {
    int present;
    yaml_mark_t mark;
    uint64_t u;
    int64_t i;
    double d;
    char* text;
} line_value;

typedef struct line {
    yaml_mark_t start;
    int kind; /* -1 until the kind key */
    line_value value;
    line_value attrs[MAX_ATTRS];
    capture_domain* domain;
    capture_stream* stream;
    const char* stream_name;
    capture_payloads payloads;
    unsigned char* data; /* counter sample, or hex bytes */
    size_t data_size;
    nvtxSyncPoint_t* points;
    size_t point_count;
    char* json; /* inline schema, enum or counter semantics */
    size_t json_length, json_capacity;
    char* semantics_json;
} line;

#define ATTR(l, n) (&(l)->attrs[n])

/* Prints "CALL failed (result N): nvtxw_last_error()" at `mark`; -1. */
int capture_call_failed(capture_reader* r, yaml_mark_t mark, const char* call,
                        nvtxwResultCode_t status);
/* Capture ID -> session ID: IDs below the dynamic range are the same in
 * both; dynamic ones must have been registered in this capture. */
int capture_map_id(capture_reader* r, const capture_idmap* map, const line_value* v,
                   const char* what, uint64_t* out);
/* Records a dynamic capture `id` (when present) -> `value`. */
int capture_remember(capture_reader* r, capture_idmap* map, const line_value* id, uint64_t value);

/* Registration lines; each returns 0 or -1 after printing the error. */
int capture_reg_category(capture_reader* r, line* l);
int capture_reg_string(capture_reader* r, line* l);
int capture_reg_resource(capture_reader* r, line* l);
int capture_reg_scope(capture_reader* r, line* l);
int capture_reg_time_domain(capture_reader* r, line* l);
/* `kind` is "schema" or "enum": the line's mapping is one such item. */
int capture_reg_inline(capture_reader* r, line* l, const char* kind);
int capture_reg_schemas_file(capture_reader* r, line* l);
int capture_reg_counter(capture_reader* r, line* l);

#endif /* NVTXW_CAPTURE_LINE_H */
