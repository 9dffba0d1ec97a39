/*
 * tools/replay/chrome/chrome_in.h - Chrome Trace Event Format input of nvtxw-replay
 * (docs/chrome-input.md): the entry point (chrome_in_main.c), the streaming
 * reader (chrome_in_json.c), one event as a small tree and the string
 * tables (chrome_in_doc.c), exact numbers (chrome_in_time.c), the metadata
 * pass (chrome_in_meta.c) and its scan (chrome_in_scan.c), registrations and payloads
 * (chrome_in_write.c) and the phase mapping (chrome_in_events.c).
 */
#ifndef NVTXW_CHROME_IN_H
#define NVTXW_CHROME_IN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "nvtxw/nvtxw.h"
#include "replay_input.h"

/* Bounds that keep memory independent of the file: one string or number
 * token, one event's tree, the nesting inside an event. */
#define CHROME_TOKEN_MAX (16u << 20)
#define CHROME_EVENT_MAX (16u << 20)
#define CHROME_DEPTH_MAX 64

#define CHROME_BYTES(b) (UINT64_C(0x0101010101010101) * (uint64_t)(b))

/* The first '"' or backslash in data[i, len), or len: the hot loop of both
 * passes, as most bytes of a trace are in strings. Eight bytes at a time: a
 * byte equal to b makes (w ^ b) - 1 borrow into its top bit; the lowest
 * such bit is exact (borrows only run upwards). */
static inline size_t chrome_string_stop(const unsigned char* data, size_t i, size_t len) {
    for (; i + 8 <= len; i += 8) {
        uint64_t w, quote, backslash, hits;
        memcpy(&w, data + i, sizeof w);
        quote = w ^ CHROME_BYTES('"');
        backslash = w ^ CHROME_BYTES('\\');
        hits = ((quote - CHROME_BYTES(1)) & ~quote) | ((backslash - CHROME_BYTES(1)) & ~backslash);
        hits &= CHROME_BYTES(0x80);
        if (hits != 0) {
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            return i + (size_t)(__builtin_ctzll(hits) >> 3);
#else
            break;
#endif
        }
    }
    while (i < len && data[i] != '"' && data[i] != '\\')
        i++;
    return i;
}

/* ---- exact numbers (chrome_in_time.c) ---- */

/* Microseconds as decimal text (JSON number syntax, sign and exponent
 * allowed) to nanoseconds, rounded half to even; 0, or -1 when the text is
 * not a number or the result does not fit int64. */
int chrome_time_to_ns(const char* text, size_t len, int64_t* out);
/* An event or flow ID: decimal or 0x-hex text as its value, a negative
 * decimal as its two's complement, anything else hashed (never 0). */
uint64_t chrome_id_value(const char* text, size_t len);

/* ---- one JSON value as a tree (chrome_in_doc.c) ---- */

typedef enum cj_type { CJ_NULL, CJ_BOOL, CJ_NUMBER, CJ_STRING, CJ_OBJECT, CJ_ARRAY } cj_type;

#define CJ_NONE UINT32_MAX
#define CJ_ROOT_SLOTS 32
/* The deepest a doc nests: the reader's bound (CHROME_DEPTH_MAX below the
 * event array) and the top-level member around it. */
#define CJ_DEPTH (CHROME_DEPTH_MAX + 2)

/* 16 bytes a node: the trees are what the reader's thread hands over
 * (chrome_in_pipe.c), and their bytes are what crossing CPUs costs.
 * Nodes are stored in document order (a container's first child, if any,
 * is the node after it) and linked to their next sibling. Every value has
 * a text in the doc's text arena, NUL-terminated: a string's or number's
 * text (`len` bytes; JSON "\u0000" makes a C string shorter than `len`),
 * "" for the others. An object member's key is stored just before it
 * (key_len bytes and a NUL), so it needs no offset of its own. */
typedef struct cj_node {
    unsigned type : 3;     /* cj_type */
    unsigned filled : 1;   /* a container with children */
    unsigned member : 1;   /* an object member: it has a key, maybe "" */
    unsigned key_len : 27; /* the member's key, else 0 */
    uint32_t text;         /* offset of the value's text */
    uint32_t len;          /* text bytes (0 for a container); bool: 1 true, 0 false */
    uint32_t next;         /* next sibling, CJ_NONE for the last */
} cj_node;

/* A value as a tree, built by cj_doc_add/cj_doc_key/cj_doc_close; nodes[0]
 * is its root. */
typedef struct cj_doc {
    cj_node* nodes;
    size_t count, cap;
    char* text;
    size_t text_len, text_cap;
    uint32_t open;  /* the container being filled, CJ_NONE when none */
    unsigned depth; /* open containers */
    uint32_t containers[CJ_DEPTH], last[CJ_DEPTH]; /* the open ones, their last child */
    uint32_t pending_key_len;
    int has_pending_key;
    /* The root object's members by key once it is complete (cj_get). */
    uint16_t root_slots[CJ_ROOT_SLOTS]; /* node + 1, 0 for none */
    int root_indexed;
} cj_doc;

void cj_doc_reset(cj_doc* doc);
void cj_doc_free(cj_doc* doc);
/* Appends a value in the open container (or as the root); containers stay
 * open until cj_doc_close. 0, or -1 when the doc would exceed
 * CHROME_EVENT_MAX bytes or memory runs out. */
int cj_doc_add(cj_doc* doc, cj_type type, const char* text, size_t len);
int cj_doc_key(cj_doc* doc, const char* key, size_t len);
void cj_doc_close(cj_doc* doc);
/* Indexes the complete root object's members by key (the first of
 * duplicates, as a walk finds it) for cj_get: every event is asked for a
 * dozen of its members. The trees handed to chrome_reader_cb are indexed,
 * and so are chrome_parse_value's. */
void cj_doc_index(cj_doc* doc);
static inline const char* cj_text(const cj_doc* doc, uint32_t node) {
    return doc->text + doc->nodes[node].text;
}
static inline const char* cj_key(const cj_doc* doc, uint32_t node) {
    const cj_node* n = &doc->nodes[node];
    return doc->text + n->text - (n->member ? n->key_len + 1u : 0u);
}
/* The first child of a container, CJ_NONE when it has none (or is not one). */
static inline uint32_t cj_first(const cj_doc* doc, uint32_t node) {
    const cj_node* n = &doc->nodes[node];
    return n->filled ? node + 1 : CJ_NONE;
}
static inline int cj_key_is(const cj_doc* doc, uint32_t node, const char* key, size_t len) {
    return doc->nodes[node].key_len == len && memcmp(cj_key(doc, node), key, len) == 0;
}
static inline unsigned cj_root_hash(const char* key, size_t len) {
    unsigned h = (unsigned)len * 31u;
    if (len > 0)
        h += (unsigned char)key[0] * 7u + (unsigned char)key[len - 1];
    return h & (CJ_ROOT_SLOTS - 1);
}
/* cj_get's walk of an object's members. */
uint32_t cj_get_walk(const cj_doc* doc, uint32_t object, const char* key, size_t len);
/* The member `key` of object node `object`, or CJ_NONE. Inline: with a
 * literal key the length and the root slot fold to constants (every event
 * is asked for a dozen members). */
static inline uint32_t cj_get(const cj_doc* doc, uint32_t object, const char* key) {
    size_t len = strlen(key);
    if (object == 0 && doc->root_indexed) {
        for (unsigned j = cj_root_hash(key, len); doc->root_slots[j] != 0;
             j = (j + 1) & (CJ_ROOT_SLOTS - 1)) {
            if (cj_key_is(doc, doc->root_slots[j] - 1u, key, len))
                return doc->root_slots[j] - 1u;
        }
        return CJ_NONE;
    }
    return cj_get_walk(doc, object, key, len);
}
/* Appends node's compact JSON text to a growable buffer; 0 or -1. */
typedef struct cj_buf {
    char* data;
    size_t len, cap;
} cj_buf;
int cj_buf_grow(cj_buf* buf, size_t len);
static inline int cj_buf_put(cj_buf* buf, const void* data, size_t len) {
    if (buf->len + len > buf->cap && cj_buf_grow(buf, len) != 0)
        return -1;
    if (len > 0)
        memcpy(buf->data + buf->len, data, len);
    buf->len += len;
    return 0;
}
int cj_write_json(const cj_doc* doc, uint32_t node, cj_buf* out);

/* ---- string-keyed table (chrome_in_table.c) ---- */

typedef struct ct_slot {
    char* key;
    size_t len;
    uint64_t value;
} ct_slot;

typedef struct ct_table {
    ct_slot* slots;
    size_t cap, count;
} ct_table;

/* The value slot of `key`; with `insert`, a missing key is added with value
 * 0 and *added set. NULL when missing (or out of memory with insert). */
uint64_t* ct_find(ct_table* table, const char* key, size_t len, int insert, int* added);
void ct_free(ct_table* table);
/* Removes `key` (if present): tables of open ranges shrink as they close. */
void ct_remove(ct_table* table, const char* key, size_t len);

/* ---- the streaming reader (chrome_in_json.c) ---- */

typedef struct chrome_reader_cb {
    /* One element of the event array as a complete tree (root node 0),
     * `index` counting from 0, `offset` the byte where it starts. Returns
     * 0, or -1 to stop (the callee printed why). */
    int (*event)(void* user, const cj_doc* doc, uint64_t index, uint64_t offset);
    /* A top-level member of the object form other than traceEvents whose
     * name is in `wanted` (NULL-terminated); the others are counted. */
    int (*member)(void* user, const char* key, const cj_doc* doc);
    const char* const* wanted;
    /* The reader's messages (errors, with their newline), or NULL for
     * stderr. */
    void (*say)(void* user, const char* text);
    /* A file whose every token the first pass's scan found within
     * CHROME_TOKEN_MAX, or NULL: when the file read is still that one, the
     * reader does not scan its tokens again. */
    const struct chrome_file_id* bounded;
    /* Nonzero: events are handed over without their root index (the
     * callee runs cj_doc_index, on its own thread: chrome_in_pipe.c). */
    int unindexed;
} chrome_reader_cb;

/* A file as it was when read: the same device, inode, size and time of the
 * last change mean the same bytes. */
typedef struct chrome_file_id {
    uint64_t dev, ino, size;
    int64_t mtime_sec, mtime_nsec, ctime_sec, ctime_nsec;
} chrome_file_id;
/* The id of an open file; 0, or -1 when fstat fails. */
int chrome_file_identify(int fd, chrome_file_id* id);

typedef struct chrome_read_result {
    uint64_t events;
    int truncated;           /* the event array was not closed */
    uint64_t ignored_keys;   /* top-level members not wanted */
    char ignored_names[256]; /* the first of them, comma-separated */
} chrome_read_result;

/* Whether the import may use a second thread: more than one CPU online, or
 * NVTXW_CHROME_PARSE_THREAD set (=0: never, else always). */
int chrome_use_threads(void);
/* A setting from the environment (diagnostics and tests): the decimal
 * number in variable `name`, or `otherwise` when it is unset or not one. */
uint64_t chrome_env_number(const char* name, uint64_t otherwise);

/* Reads `path` once, front to back, in bounded memory. 0, or 1 with the
 * error printed (naming path:line:column). */
int chrome_read(const char* tool, const char* path, const chrome_reader_cb* cb, void* user,
                chrome_read_result* result);
/* chrome_read with the reader (yajl and the trees) on a thread of its own
 * and the callbacks on the calling thread, in the same order
 * (chrome_in_pipe.c). `member` is not called; `say` must be NULL. One
 * thread when the machine has one CPU, no thread can start, or
 * NVTXW_CHROME_PARSE_THREAD=0. */
int chrome_read_pipelined(const char* tool, const char* path, const chrome_reader_cb* cb,
                          void* user, chrome_read_result* result);
/* Line and column (from 1) of byte `offset` of `path`, by reading it again:
 * only errors pay for it. */
void chrome_locate(const char* path, uint64_t offset, uint64_t* line, uint64_t* column);

/* ---- the import (chrome_in_meta.c, chrome_in_write.c, chrome_in_events.c) ---- */

/* What the first pass learns about one (pid, tid). */
typedef struct chrome_thread {
    char* pid_key; /* "n:1" / "s:Spans": the pid as typed */
    char* tid_key;
    char* name; /* thread_name, or NULL */
    /* A task row of our JSON sink (thread_name args "task_path" and
     * "task_scope"): no stream; its events are copies of the worker rows'
     * and are left out; the task becomes a scope again. */
    char* task_path;
    uint64_t task_old_scope;
    int64_t sort_index;
    int has_sort;
    uint64_t first_seen;
    uint32_t process; /* index into processes */
    nvtxwStreamHandle_t stream;
    int64_t open_pushes; /* B without E so far */
    /* The index of the thread's last event (the first pass counts it): its
     * stream is closed after it, so memory follows the threads that are
     * running, not all the trace's threads. */
    uint64_t last_seen;
    int closed;
    /* The one event held back so that a flow event at the same time on this
     * thread can bind to it (chrome_in_events.c). */
    struct chrome_held* pending;
} chrome_thread;

typedef struct chrome_process {
    char* pid_key;
    char* name;   /* process_name, or NULL */
    char* labels; /* process_labels, or NULL */
    int64_t sort_index;
    int has_sort;
    uint64_t first_seen;
    uint64_t scope;
} chrome_process;

/* One counter series: (pid, C event name, args key). */
typedef struct chrome_counter {
    uint32_t process;
    int is_float;
    uint64_t id;
    char* name;
} chrome_counter;

typedef struct chrome_import {
    const replay_input_ctx* ctx;
    const char* path;
    chrome_process* processes;
    size_t process_count, process_cap;
    chrome_thread* threads;
    size_t thread_count, thread_cap;
    chrome_counter* counters;
    size_t counter_count, counter_cap;
    ct_table process_index;  /* pid key -> index */
    ct_table thread_index;   /* pid key + tid key -> index */
    ct_table counter_index;  /* pid key + name + key -> index */
    ct_table category_index; /* cat -> category ID */
    ct_table category_ids;   /* category IDs taken (4 bytes each as the key) */
    ct_table shape_index;    /* args shape -> schema ID */
    ct_table async_index;    /* async key -> its stack of open range IDs (a pointer) */
    ct_table open_ids;       /* range IDs of open async ranges */
    ct_table task_scopes;    /* a task row's old scope ID (decimal) -> its new scope */
    ct_table stream_names;   /* the names given to streams (they are unique) */
    /* The threads in Chrome's row order; streams open in it, the first
     * rows_opened of them so far (chrome_stream_open). */
    uint32_t* rows;
    size_t rows_opened;
    int late_streams;  /* streams open late and close after their last event */
    uint32_t* closing; /* threads past their last event while async ranges are open */
    size_t closing_count, closing_cap;
    char* session_name;
    int64_t base_ns; /* otherData.timestampBase_ns (a file of our JSON sink) */
    /* registrations */
    nvtxwSessionHandle_t session;
    nvtxDomainHandle_t domain;
    uint64_t schema_x, schema_x_task, schema_b, schema_e, schema_i, schema_i_scoped, schema_start,
        schema_end, schema_message, schema_flow[3], schema_args_json;
    uint32_t category_count;
    uint64_t category_lost; /* events whose `cat` got no category (the cap) */
    size_t shape_count;
    uint64_t next_range_id;  /* synthetic range IDs */
    struct chrome_held* cur; /* the event being built (chrome_in_events.c) */
    /* the event being mapped (for messages) */
    uint64_t event_index, event_offset;
    /* counts for the summary */
    uint64_t written, unmatched_end, unmatched_async, bound_flows, counter_samples, unknown_phase,
        task_copies, task_rows;
    int args_task; /* the last args payload held a task scope */
    char unknown_phases[64];
    int quiet; /* errors of events are not printed (the scan: the parser's pass says them) */
    /* The file as the scan read it, and whether it found every token
     * within CHROME_TOKEN_MAX (so the second pass need not check again). */
    chrome_file_id scanned;
    int scanned_bounded;
    cj_buf scratch, pid_key, tid_key;
    cj_buf kinds;           /* the value kinds of the args being written (chrome_in_write.c) */
    cj_buf last_thread_key; /* chrome_thread_by_key's last pid key, 0x1f, tid key */
    uint32_t last_thread;
    int has_last_thread;
} chrome_import;

/* First pass: threads, processes, names, sort indexes, counters, otherData.
 * 0, or 1 with the error printed. */
int chrome_meta_pass(chrome_import* im);
/* The first pass's work on one event's tree and on otherData (chrome_reader_cb). */
int chrome_meta_event(void* user, const cj_doc* doc, uint64_t index, uint64_t offset);
int chrome_meta_member(void* user, const char* key, const cj_doc* doc);
/* The first pass without a parser (chrome_in_scan.c): 0, 1 with the error
 * printed (I/O, interrupted), or 2 when the file needs the parser's pass
 * (anything the scan does not take; nothing was printed). */
int chrome_scan_meta(chrome_import* im);
/* One complete JSON value in memory as a tree, the same as the streamed
 * reader builds; 0, or -1 (invalid, too deep, too large: nothing printed). */
int chrome_parse_value(const unsigned char* text, size_t len, cj_doc* doc);
/* The thread of a pid key and a tid key (chrome_id_key's form), added on
 * first sight; 0, or -1 when out of memory. */
int chrome_thread_by_key(chrome_import* im, const char* pid, size_t pid_len, const char* tid,
                         size_t tid_len, uint32_t* thread);
/* Index of the thread/process of an event (both exist after the first
 * pass; the second pass finds them again by key). */
int chrome_thread_of(chrome_import* im, const cj_doc* doc, uint32_t* thread);
/* "n:TEXT" or "s:TEXT" for a pid/tid node (absent = "n:0") into `out`;
 * 0, or -1 when out of memory. */
int chrome_id_key(const cj_doc* doc, uint32_t node, cj_buf* out);

/* The slot of a task row's old scope ID in im->task_scopes (insert: add
 * it); NULL when absent (or out of memory when inserting). */
uint64_t* chrome_task_slot(chrome_import* im, uint64_t old_scope, int insert);

/* Registrations: session, domain, fixed schemas, scopes, streams and
 * counters; 0, or 1 with the error printed. */
int chrome_register(chrome_import* im);
/* Opens the streams of the rows up to and including t's (row order is
 * kept; a stream opens as late as its first event); 0, or 1 with the error
 * printed (also when t's stream was closed after its last event or the
 * thread has no row: the file changed between the passes). */
int chrome_stream_open(chrome_import* im, chrome_thread* t);
/* Opens every row's stream not opened yet (threads without events) at
 * the end; 0 or 1. */
int chrome_stream_open_all(chrome_import* im);
/* The category ID of `cat` (0 for none), registering it on first use. */
uint32_t chrome_category(chrome_import* im, const char* cat);
/* The args payload of an event: schema ID and bytes in `out` (empty
 * when there are no args). Keys named in `skip` (NULL-terminated) are left
 * out. 0, or 1 with the error printed. */
int chrome_args_payload(chrome_import* im, const cj_doc* doc, uint32_t args, const char* name,
                        const char* const* skip, cj_buf* out, uint64_t* schema);
/* Prints "TOOL: error: PATH:LINE:COL: event #N: ..." for the current event;
 * returns 1. */
int chrome_event_error(chrome_import* im, const char* format, ...)
    __attribute__((format(printf, 2, 3)));
/* Same as a warning; returns 0. */
void chrome_event_warning(chrome_import* im, const char* format, ...)
    __attribute__((format(printf, 2, 3)));
/* Fails with the backend's words; returns 1. */
int chrome_api_error(chrome_import* im, const char* what, nvtxwResultCode_t rc);
/* Prints "TOOL: error: PATH: out of memory (WHAT)" for work outside any one
 * event (registrations, the end of the trace); returns 1. */
int chrome_out_of_memory(chrome_import* im, const char* what);

/* Second pass: one event mapped to NVTXW calls; 0, or 1 with the error
 * printed. */
int chrome_map_event(chrome_import* im, const cj_doc* doc);
/* Writes what is still held back and closes the streams; 0 or 1. */
int chrome_map_finish(chrome_import* im);
void chrome_import_free(chrome_import* im);

#endif /* NVTXW_CHROME_IN_H */
