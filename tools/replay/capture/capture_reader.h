/*
 * tools/replay/capture/capture_reader.h - the capture file reader
 * (docs/capture-format.md), shared by its parts:
 *   capture_replay.c  the input's entry point (replay_input.h), the header
 *                     sniffer;
 *   capture_input.c   bytes -> libyaml: the input buffer, libyaml's read
 *                     handler (UTF-8 and control checks, token size cap,
 *                     positions, the JSON Lines document markers);
 *   capture_jsonl.c   JSON Lines: each line through yajl when libyaml would
 *                     read it the same, else through libyaml alone;
 *   capture_read.c    the event stream, errors and scalar conversions;
 *   capture_lines.c   one line (mapping) -> one NVTXW call (capture_line.h);
 *   capture_regs.c    the registration lines;
 *   capture_payload.c payload fields given by name -> schema binary layout;
 *   capture_maps.c    the ID and name maps.
 * Everything is one-pass: memory is bounded by the definitions (domains,
 * streams, schemas, counters, ID maps) and by one line.
 */
#ifndef NVTXW_CAPTURE_READER_H
#define NVTXW_CAPTURE_READER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <yaml.h>

#include "nvtxw/nvtxw.h"
#include "nvtxw/payload.h"
#include "replay_input.h"

/* libyaml buffers a whole scalar: no token may take more input than this
 * between two parser events. */
#define CAPTURE_MAX_TOKEN ((size_t)16 << 20)
/* Bytes of one payload being encoded, sync points of one line. */
#define CAPTURE_MAX_PAYLOAD ((size_t)64 << 20)
#define CAPTURE_VERSION 1

/* uint64 -> uint64 map (open addressing; key 0 is never stored). */
typedef struct capture_idmap {
    uint64_t *keys, *values;
    size_t capacity, count;
} capture_idmap;

/* 0 when found. */
int capture_idmap_get(const capture_idmap* map, uint64_t key, uint64_t* value);
/* 0, or -1 when out of memory. */
int capture_idmap_put(capture_idmap* map, uint64_t key, uint64_t value);
void capture_idmap_free(capture_idmap* map);

/* Owned string -> pointer map (open addressing). */
typedef struct capture_names {
    char** keys;
    void** values;
    size_t capacity, count;
} capture_names;

void* capture_names_get(const capture_names* names, const char* key);
/* Inserts or replaces; 0, or -1 when out of memory. */
int capture_names_put(capture_names* names, const char* key, void* value);
/* Frees keys; calls free_value on each value when not NULL. */
void capture_names_free(capture_names* names, void (*free_value)(void*));

typedef struct capture_counter {
    uint64_t target_id;
    uint64_t type; /* predefined type or mirror schema ID */
    size_t sample_size;
} capture_counter;

/* One domain of the capture: its handle, a mirror registry holding the
 * same schemas (for names and layouts), and capture ID -> session ID maps. */
typedef struct capture_domain {
    char* name;
    nvtxDomainHandle_t handle;
    nvtxw_schema_registry_t* mirror;
    capture_names schema_names; /* name -> (uintptr) mirror ID */
    capture_idmap schema_ids;   /* capture ID -> mirror ID */
    capture_idmap mirror_to_target;
    capture_idmap strings, scopes, time_domains; /* capture ID -> session */
    capture_idmap counter_ids;                   /* capture ID -> capture_counter* */
    capture_names counter_names;                 /* name -> capture_counter* */
    capture_counter** counters;
    size_t counter_count, counter_capacity;
    capture_names string_texts; /* text -> (uintptr) session handle */
} capture_domain;

typedef struct capture_stream {
    nvtxwStreamHandle_t handle;
    capture_domain* domain;
} capture_stream;

/* A UTF-8 character read a byte at a time (capture_utf8_feed). */
typedef struct capture_utf8 {
    unsigned needed; /* continuation bytes still expected */
    uint32_t min;    /* overlong check for the current sequence */
    uint32_t value;  /* code point so far; the character once needed is 0 */
} capture_utf8;

/* The whole reader. */
typedef struct capture_reader {
    const replay_input_ctx* ctx;
    const char* path;
    FILE* file;
    int jsonl; /* JSON Lines: capture_jsonl.c reads it line by line */
    /* input buffer (capture_input.c): bytes [in_pos, in_end) are read and
     * not yet consumed; in_eof once fread stopped (end or error) */
    unsigned char* in;
    size_t in_pos, in_end, in_capacity;
    int in_eof;
    /* read handler */
    int line_done;      /* JSON Lines: the line libyaml reads has ended */
    size_t line_base;   /* lines of the file before libyaml's first */
    const char* inject; /* pending injected bytes */
    char carry[16];     /* bytes read ahead, to hand over before the file's next */
    size_t carry_length, carry_next;
    size_t line, column; /* 1-based position of the next input byte */
    capture_utf8 utf8;   /* the character being read */
    size_t since_event;  /* input bytes handed over since the last event */
    size_t err_line, err_column;
    const char* input_problem; /* set when the handler refused input */
    /* parser */
    yaml_parser_t parser;
    int parser_live;    /* initialized, not yet deleted */
    yaml_event_t event; /* from libyaml, or built by capture_jsonl.c */
    int has_event;
    int event_from_yaml;                    /* event owns libyaml's allocations */
    struct capture_jsonl* lines;            /* the JSON Lines reader's state */
    size_t lines_by_yajl, lines_by_libyaml; /* JSON Lines: how each was read */
    int failed;                             /* a message was printed */
    /* session */
    nvtxwSessionHandle_t session;
    int header_seen;
    char* session_name;
    char* session_config;
    capture_domain** domains;
    size_t domain_count, domain_capacity;
    capture_names streams; /* name -> capture_stream* */
    char* dir;             /* the capture's directory, for "schemas" files */
} capture_reader;

/* ---- capture_input.c ---- */

/* Input bytes beyond CAPTURE_MAX_TOKEN go unread until libyaml asks. */
int capture_input_open(capture_reader* r);
void capture_input_close(capture_reader* r);
/* Reads until at least `want` bytes are buffered from in_pos, or to the
 * end of the file; moves the unread bytes to the buffer's start and grows
 * it as needed. 0, or -1 when out of memory. */
int capture_input_fill(capture_reader* r, size_t want);
/* Starts libyaml: on the whole file (YAML), or on the JSON Lines line at
 * in_pos (a "--- " before it, the end of the stream after its newline).
 * 0, or -1 after printing the error. */
int capture_yaml_start(capture_reader* r);
void capture_yaml_stop(capture_reader* r);
/* Feeds one byte of UTF-8: NULL, or what is wrong. Refused, as libyaml's
 * reader refuses them (but it without a position): invalid UTF-8, controls
 * but tab, newline, CR and NEL, DEL, U+FFFE and U+FFFF. */
const char* capture_utf8_feed(capture_utf8* u, unsigned c);
/* The 4 hex digits at s as *value; 0, or -1 when one is not a hex digit. */
int capture_hex4(const char* s, unsigned* value);

/* ---- capture_jsonl.c ---- */

int capture_jsonl_open(capture_reader* r);
void capture_jsonl_close(capture_reader* r);
/* The next event of a JSON Lines capture, as libyaml gives it for the
 * file with a "--- " before every line that is not empty. */
int capture_jsonl_next(capture_reader* r);

/* ---- capture_read.c ---- */

int capture_reader_open(capture_reader* r, const replay_input_ctx* ctx, const char* path);
void capture_reader_close(capture_reader* r);
/* Next event into r->event; 0, or -1 after printing the error. */
int capture_next(capture_reader* r);
/* Frees what r->event owned and returns it, to be filled in place by the
 * JSON Lines reader (whose events own nothing). */
yaml_event_t* capture_own_event(capture_reader* r);
/* libyaml's next event into r->event, its marks counted from the file's
 * first line; 0, or -1 after printing the error. */
int capture_yaml_next(capture_reader* r);
/* Prints "TOOL: error: PATH:LINE:COL: message" for `mark`; returns -1. */
int capture_error(capture_reader* r, yaml_mark_t mark, const char* format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* The same at the current event's start. */
#define CAPTURE_FAIL(r, ...) capture_error((r), (r)->event.start_mark, __VA_ARGS__)

/* Checks on the current event. Each returns 0 or -1 (message printed). */
int capture_expect_scalar(capture_reader* r, const char* what);
int capture_u64(capture_reader* r, const char* what, uint64_t* out);
int capture_i64(capture_reader* r, const char* what, int64_t* out);
int capture_double(capture_reader* r, const char* what, double* out);
/* A scalar's text (NUL-free), borrowed until the next capture_next. */
int capture_text(capture_reader* r, const char* what, const char** out);
/* A hex string into `out` (grown); 0 or -1. */
int capture_hex(capture_reader* r, const char* what, unsigned char** out, size_t* size);
/* Skips the node that starts at the current event. */
int capture_skip(capture_reader* r);
/* Appends the node at the current event as JSON text (flow YAML that the
 * schema loader reads) to *buf; 0 or -1. */
int capture_node_json(capture_reader* r, char** buf, size_t* length, size_t* capacity);
/* Scalar text classification. */
int capture_is_plain(const capture_reader* r);

/* ---- capture_lines.c ---- */

/* Processes one line: the current event is its MAPPING_START. */
int capture_line(capture_reader* r);
int capture_finish(capture_reader* r);
void capture_session_free(capture_reader* r);
capture_domain* capture_domain_find(capture_reader* r, const char* name);

/* ---- capture_payload.c ---- */

/* Encodes the payload mapping at the current event (its MAPPING_START) for
 * `domain`, appending it to `payloads`. */
typedef struct capture_reloc {
    size_t payload, at;      /* the slot: payload index, byte offset */
    uint64_t target, offset; /* where it leads: payload index, byte offset */
    yaml_mark_t mark;        /* of the [AT, PAYLOAD, OFFSET] item */
} capture_reloc;

typedef struct capture_payloads {
    nvtxPayloadData_t* items;
    unsigned char** buffers;
    size_t count, capacity;
    capture_reloc* relocs; /* "pointers" of hex payloads, applied once all are read */
    size_t reloc_count, reloc_capacity;
} capture_payloads;

int capture_payload(capture_reader* r, capture_domain* domain, capture_payloads* out);
/* Encodes the value at the current event as one sample of `type` (a
 * predefined type or mirror schema ID) into a new buffer of `size` bytes. */
int capture_sample(capture_reader* r, capture_domain* domain, uint64_t type, size_t size,
                   unsigned char** out);
/* Puts the address of this process's copy of each "pointers" target into
 * its slot; errors name the item. Call after the event's last payload. */
int capture_payloads_relocate(capture_reader* r, capture_payloads* p);
void capture_payloads_clear(capture_payloads* p);
/* A schema reference: `name` (a schema or enum name, or a predefined type
 * name such as "int64"), or when NULL `number` (a predefined type, a static
 * ID, or a dynamic ID of this capture). Yields the mirror ID. */
int capture_resolve_schema(capture_reader* r, capture_domain* d, const char* name, uint64_t number,
                           yaml_mark_t mark, uint64_t* out);

#endif /* NVTXW_CAPTURE_READER_H */
