/*
 * tools/replay/chrome/chrome_in_json.c - the streaming reader of Trace Event Format
 * files (chrome_in.h), on yajl's callback parser (docs/DESIGN-notes.md says
 * why yajl and not libyaml).
 *
 * Accepted shapes (Trace Event Format, "JSON Array Format" and "JSON Object
 * Format"):
 *     file   = array | object
 *     array  = "[" [ event { "," event } ] [ "," ] [ "]" ]
 *     object = "{" member { "," member } "}"   -- "traceEvents": array,
 *                                                  other members counted
 *     event  = a JSON object
 * An array that is not closed (the file ends after an event, with or
 * without a comma, as Chrome writes it when tracing stops abruptly) is
 * accepted with a warning; a file that ends inside an event is an error.
 *
 * Memory: the file is read in 256 KiB chunks; each event is built as a
 * tree (chrome_in_doc.c), handed to the callback and dropped. A scan of
 * each chunk before yajl sees it bounds a single string or number token to
 * CHROME_TOKEN_MAX bytes (yajl would buffer a token that spans chunks
 * without limit); nesting is bounded by CHROME_DEPTH_MAX; an event's tree
 * by CHROME_EVENT_MAX. Errors name path:line:column, found by reading the
 * file again up to the byte at fault.
 */
#define _POSIX_C_SOURCE 200809L /* fileno */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yajl/yajl_parse.h>

#include "chrome_in.h"
#include "tool_alloc.h"
#include "tool_interrupt.h"

#define CHUNK (256u << 10)
#define CHUNK_MIN 4096u

typedef enum build_mode { BUILD_NONE, BUILD_EVENT, BUILD_MEMBER, BUILD_SKIP } build_mode;

typedef struct reader {
    const char* tool;
    const char* path;
    const chrome_reader_cb* cb;
    void* user;
    chrome_read_result* result;
    yajl_handle yajl;
    uint64_t chunk_offset; /* file offset of the chunk being parsed */
    unsigned depth;        /* open containers */
    unsigned events_depth; /* depth inside the event array, 0 before it */
    int object_form;
    int events_closed;
    build_mode mode;
    unsigned build_depth; /* depth at which the built value started */
    uint64_t build_offset;
    char member[64]; /* the top-level member being read */
    cj_doc doc;
    int failed; /* the error is printed */
    /* token scan */
    int skip_token_scan; /* the file is the one the scan bounded (chrome_reader_cb.bounded) */
    int in_string, escaped;
    int token_is_string; /* the token being scanned began with a quote */
    uint64_t token_run, token_start;
} reader;

void chrome_locate(const char* path, uint64_t offset, uint64_t* line, uint64_t* column) {
    FILE* file = fopen(path, "rb");
    uint64_t at = 0;
    int c;
    *line = 1;
    *column = 1;
    if (file == NULL)
        return;
    while (at < offset && (c = getc(file)) != EOF) {
        at++;
        if (c == '\n') {
            ++*line;
            *column = 1;
        } else if ((c & 0xC0) != 0x80) {
            ++*column; /* columns count characters, not UTF-8 continuation bytes */
        }
    }
    fclose(file);
}

static uint64_t here(const reader* r) { return r->chunk_offset + yajl_get_bytes_consumed(r->yajl); }

/* Every message of the reader goes through here: to stderr, or to the
 * caller's hook (chrome_reader_cb.say). */
static void say(reader* r, const char* format, ...) __attribute__((format(printf, 2, 3)));

static void say(reader* r, const char* format, ...) {
    char text[1024];
    va_list args;
    va_start(args, format);
    if (r->cb->say == NULL) {
        vfprintf(stderr, format, args);
    } else {
        vsnprintf(text, sizeof text, format, args);
        r->cb->say(r->user, text);
    }
    va_end(args);
}

static int fail_at(reader* r, uint64_t offset, const char* format, ...)
    __attribute__((format(printf, 3, 4)));

static int fail_at(reader* r, uint64_t offset, const char* format, ...) {
    uint64_t line, column;
    char what[768];
    va_list args;
    chrome_locate(r->path, offset, &line, &column);
    va_start(args, format);
    vsnprintf(what, sizeof what, format, args);
    va_end(args);
    say(r, "%s: error: %s:%llu:%llu: %s\n", r->tool, r->path, (unsigned long long)line,
        (unsigned long long)column, what);
    r->failed = 1;
    return 0; /* stops yajl */
}

static void note_ignored(reader* r, const char* key) {
    chrome_read_result* res = r->result;
    size_t used = strlen(res->ignored_names);
    res->ignored_keys++;
    if (used + strlen(key) + 3 < sizeof res->ignored_names)
        snprintf(res->ignored_names + used, sizeof res->ignored_names - used, "%s%s",
                 used ? ", " : "", key);
}

/* A value begins where no tree is being built: decides what it is. */
static int value_outside(reader* r, cj_type type, size_t len) {
    int container = type == CJ_OBJECT || type == CJ_ARRAY;
    /* yajl reports the offset after the token: step back to its start
     * (a container's bracket, a number's text; strings stay approximate) */
    uint64_t start = here(r) - (container ? 1 : len);
    if (r->depth == 0) {
        if (!container)
            return fail_at(r, here(r), "not a trace: the file must hold a JSON array or object");
        r->object_form = type == CJ_OBJECT;
        if (!r->object_form)
            r->events_depth = 1;
        return 1;
    }
    if (r->events_depth != 0 && r->depth == r->events_depth && !r->events_closed) {
        if (type != CJ_OBJECT)
            return fail_at(r, start, "event #%llu is not a JSON object",
                           (unsigned long long)r->result->events);
        r->mode = BUILD_EVENT;
    } else if (r->object_form && r->depth == 1 && !strcmp(r->member, "traceEvents")) {
        if (type != CJ_ARRAY)
            return fail_at(r, here(r), "\"traceEvents\" must be an array");
        if (r->events_depth != 0)
            return fail_at(r, here(r), "a second \"traceEvents\" member");
        r->events_depth = 2;
        return 1;
    } else if (r->object_form && r->depth == 1) {
        int wanted = 0;
        for (const char* const* w = r->cb->wanted; w != NULL && *w != NULL; w++)
            wanted |= !strcmp(*w, r->member);
        if (!wanted)
            note_ignored(r, r->member);
        r->mode = wanted ? BUILD_MEMBER : container ? BUILD_SKIP : BUILD_NONE;
        if (r->mode == BUILD_NONE)
            return 1;
    } else {
        return 1; /* inside a skipped member */
    }
    r->build_depth = r->depth;
    r->build_offset = start;
    cj_doc_reset(&r->doc);
    return 1;
}

/* The built value is complete: hands it over. */
static int deliver(reader* r) {
    build_mode mode = r->mode;
    int status;
    r->mode = BUILD_NONE;
    if (mode == BUILD_EVENT) {
        if (!r->cb->unindexed)
            cj_doc_index(&r->doc);
        status = r->cb->event(r->user, &r->doc, r->result->events, r->build_offset);
        r->result->events++;
    } else if (mode == BUILD_MEMBER) {
        cj_doc_index(&r->doc);
        status = r->cb->member != NULL ? r->cb->member(r->user, r->member, &r->doc) : 0;
    } else {
        return 1;
    }
    if (status != 0)
        r->failed = 1;
    return status == 0;
}

static int add(reader* r, cj_type type, const char* text, size_t len) {
    int container = type == CJ_OBJECT || type == CJ_ARRAY;
    if (r->mode == BUILD_NONE && !value_outside(r, type, container || type == CJ_NUMBER ? len : 0))
        return 0;
    if (container && ++r->depth > CHROME_DEPTH_MAX + r->events_depth)
        return fail_at(r, here(r), "JSON nested deeper than %u levels", CHROME_DEPTH_MAX);
    if (r->mode == BUILD_EVENT || r->mode == BUILD_MEMBER) {
        if (cj_doc_add(&r->doc, type, text, len) != 0)
            return fail_at(r, here(r), "%s larger than %u MiB",
                           r->mode == BUILD_EVENT ? "an event" : "a top-level member",
                           CHROME_EVENT_MAX >> 20);
        if (!container && r->depth == r->build_depth)
            return deliver(r); /* a scalar member value */
    }
    return 1;
}

static int on_end(void* ctx) {
    reader* r = ctx;
    if (r->mode == BUILD_EVENT || r->mode == BUILD_MEMBER)
        cj_doc_close(&r->doc);
    if (r->depth-- == r->build_depth + 1 && r->mode != BUILD_NONE)
        return deliver(r);
    if (r->depth + 1 == r->events_depth)
        r->events_closed = 1;
    return 1;
}

static int on_null(void* ctx) { return add(ctx, CJ_NULL, "", 0); }

static int on_bool(void* ctx, int value) { return add(ctx, CJ_BOOL, "", value ? 1 : 0); }

static int on_number(void* ctx, const char* text, size_t len) {
    return add(ctx, CJ_NUMBER, text, len);
}

static int on_string(void* ctx, const unsigned char* text, size_t len) {
    return add(ctx, CJ_STRING, (const char*)text, len);
}

static int on_start_map(void* ctx) { return add(ctx, CJ_OBJECT, "", 0); }

static int on_start_array(void* ctx) { return add(ctx, CJ_ARRAY, "", 0); }

static int on_key(void* ctx, const unsigned char* key, size_t len) {
    reader* r = ctx;
    if (r->mode == BUILD_EVENT || r->mode == BUILD_MEMBER) {
        if (cj_doc_key(&r->doc, (const char*)key, len) != 0)
            return fail_at(r, here(r), "an event larger than %u MiB", CHROME_EVENT_MAX >> 20);
    } else if (r->mode == BUILD_NONE && r->depth == 1) {
        snprintf(r->member, sizeof r->member, "%.*s", (int)(len < 60 ? len : 60), (const char*)key);
    }
    return 1;
}

static const yajl_callbacks callbacks = {
    on_null,      on_bool, NULL,   NULL,           on_number, on_string,
    on_start_map, on_key,  on_end, on_start_array, on_end,
};

/* Bytes that end a number or literal token outside strings. */
static unsigned char delimiter[256];

static void init_delimiters(void) {
    for (const char* p = " \t\r\n,:[]{}"; *p != '\0'; p++)
        delimiter[(unsigned char)*p] = 1;
    delimiter[0] = 1;
}

static int token_too_long(reader* r) {
    fail_at(r, r->token_start, "a %s longer than %u MiB", r->token_is_string ? "string" : "token",
            CHROME_TOKEN_MAX >> 20);
    return -1;
}

/* Inside a string from data[i]: skips to the closing quote or the chunk's
 * end (the hot loop: most bytes of a trace are in strings). */
static size_t scan_string(reader* r, const unsigned char* data, size_t i, size_t len) {
    size_t start = i;
    if (r->escaped) {
        r->escaped = 0;
        i++;
    }
    i = chrome_string_stop(data, i, len);
    if (i < len) {
        if (data[i] == '\\')
            r->escaped = 1;
        else
            r->in_string = 0;
        i++;
    }
    r->token_run += i - start;
    return i;
}

/* Bounds every string and number token before yajl buffers it. 0, or -1
 * with the error printed. */
static int scan_tokens(reader* r, const unsigned char* data, size_t len) {
    size_t i = 0;
    if (!delimiter[' '])
        init_delimiters();
    while (i < len) {
        unsigned char c = data[i];
        if (r->in_string) {
            i = scan_string(r, data, i, len);
        } else if (c == '"') {
            r->in_string = r->token_is_string = 1;
            r->token_run = 0;
            r->token_start = r->chunk_offset + i++;
        } else if (delimiter[c]) {
            r->token_run = 0;
            i++;
        } else {
            if (r->token_run++ == 0) {
                r->token_start = r->chunk_offset + i;
                r->token_is_string = 0;
            }
            i++;
        }
        if (r->token_run > CHROME_TOKEN_MAX)
            return token_too_long(r);
    }
    return 0;
}

static int yajl_failed(reader* r, const unsigned char* data, size_t len) {
    unsigned char* message;
    char* nl;
    if (r->failed)
        return 1;
    message = yajl_get_error(r->yajl, 0, data, len);
    nl = strchr((char*)message, '\n');
    if (nl != NULL)
        *nl = '\0';
    fail_at(r, here(r), "invalid JSON: %s", (char*)message);
    yajl_free_error(r->yajl, message);
    return 1;
}

/* The file ended: a closed document, or an event array cut after an event. */
static int at_end(reader* r) {
    if (r->depth == 0 && yajl_complete_parse(r->yajl) == yajl_status_ok)
        return 0;
    if (r->events_depth != 0 && r->mode == BUILD_NONE && r->depth <= r->events_depth &&
        !r->in_string) {
        r->result->truncated = 1;
        return 0;
    }
    if (r->depth == 0)
        fail_at(r, r->chunk_offset, "no JSON value in the file");
    else if (r->mode == BUILD_EVENT) {
        uint64_t line, column;
        chrome_locate(r->path, r->build_offset, &line, &column);
        fail_at(r, r->chunk_offset, "the file ends inside event #%llu (which starts at %llu:%llu)",
                (unsigned long long)r->result->events, (unsigned long long)line,
                (unsigned long long)column);
    } else
        fail_at(r, r->chunk_offset, "the file ends before the JSON is complete");
    return 1;
}

int chrome_file_identify(int fd, chrome_file_id* id) {
    struct stat st;
    if (fstat(fd, &st) != 0)
        return -1;
    memset(id, 0, sizeof *id);
    id->dev = (uint64_t)st.st_dev;
    id->ino = (uint64_t)st.st_ino;
    id->size = (uint64_t)st.st_size;
    id->mtime_sec = (int64_t)st.st_mtim.tv_sec;
    id->mtime_nsec = (int64_t)st.st_mtim.tv_nsec;
    id->ctime_sec = (int64_t)st.st_ctim.tv_sec;
    id->ctime_nsec = (int64_t)st.st_ctim.tv_nsec;
    return 0;
}

/* Bytes of the read buffer for `file`: CHUNK, or less for a smaller regular
 * file (its size and one byte to see the end, at least CHUNK_MIN), so that
 * reading many small traces does not map and unmap a large buffer each. */
static size_t chunk_size(FILE* file) {
    struct stat st;
    if (fstat(fileno(file), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0 ||
        (uint64_t)st.st_size >= CHUNK)
        return CHUNK;
    return (size_t)st.st_size + 1 > CHUNK_MIN ? (size_t)st.st_size + 1 : CHUNK_MIN;
}

static int read_all(reader* r, FILE* file, unsigned char* chunk, size_t size) {
    size_t got;
    while ((got = fread(chunk, 1, size, file)) > 0) {
        if (tool_interrupted())
            return 1; /* asked to stop: said by the tool */
        if (!r->skip_token_scan && scan_tokens(r, chunk, got) != 0)
            return 1;
        if (yajl_parse(r->yajl, chunk, got) != yajl_status_ok)
            return yajl_failed(r, chunk, got);
        r->chunk_offset += got;
    }
    if (ferror(file)) {
        say(r, "%s: error: cannot read '%s': %s\n", r->tool, r->path, strerror(errno));
        return 1;
    }
    return at_end(r);
}

/* A UTF-8 byte order mark at the start is not JSON (RFC 8259 lets a parser
 * ignore it, and editors on Windows write it): skipped, offsets still count
 * from the file's first byte. */
static void skip_bom(reader* r, FILE* file) {
    unsigned char bom[3];
    if (fread(bom, 1, sizeof bom, file) == sizeof bom && bom[0] == 0xef && bom[1] == 0xbb &&
        bom[2] == 0xbf)
        r->chunk_offset = sizeof bom;
    else
        rewind(file);
}

int chrome_read(const char* tool, const char* path, const chrome_reader_cb* cb, void* user,
                chrome_read_result* result) {
    reader r;
    FILE* file = fopen(path, "rb");
    size_t size = file != NULL ? chunk_size(file) : 0;
    unsigned char* chunk = file != NULL ? nvtxw_malloc(size) : NULL;
    int status = 1;
    memset(&r, 0, sizeof r);
    memset(result, 0, sizeof *result);
    r.tool = tool;
    r.path = path;
    r.cb = cb;
    r.user = user;
    r.result = result;
    r.doc.open = CJ_NONE;
    if (file == NULL)
        say(&r, "%s: error: cannot open '%s': %s\n", tool, path, strerror(errno));
    else if (chunk == NULL || (r.yajl = yajl_alloc(&callbacks, NULL, &r)) == NULL)
        say(&r, "%s: error: out of memory\n", tool);
    else {
        chrome_file_id id;
        r.skip_token_scan = cb->bounded != NULL && chrome_file_identify(fileno(file), &id) == 0 &&
                            !memcmp(&id, cb->bounded, sizeof id);
        skip_bom(&r, file);
        status = read_all(&r, file, chunk, size);
    }
    if (status == 0 && r.events_depth == 0) {
        say(&r, "%s: error: %s: no \"traceEvents\" array\n", tool, path);
        status = 1;
    }
    if (r.yajl != NULL)
        yajl_free(r.yajl);
    if (file != NULL)
        fclose(file);
    cj_doc_free(&r.doc);
    nvtxw_free(chunk);
    return status;
}

/* ---- one value from memory (the first pass's scan, chrome_in_scan.c) ---- */

typedef struct value_builder {
    cj_doc* doc;
    unsigned depth;
} value_builder;

/* The same tree as the streamed reader builds, within the same bounds. */
static int vb_add(void* ctx, cj_type type, const char* text, size_t len) {
    value_builder* b = ctx;
    if ((type == CJ_OBJECT || type == CJ_ARRAY) && ++b->depth > CHROME_DEPTH_MAX)
        return 0;
    return cj_doc_add(b->doc, type, text, len) == 0;
}

static int vb_null(void* ctx) { return vb_add(ctx, CJ_NULL, "", 0); }
static int vb_bool(void* ctx, int value) { return vb_add(ctx, CJ_BOOL, "", value ? 1 : 0); }
static int vb_number(void* ctx, const char* text, size_t len) {
    return vb_add(ctx, CJ_NUMBER, text, len);
}
static int vb_string(void* ctx, const unsigned char* text, size_t len) {
    return vb_add(ctx, CJ_STRING, (const char*)text, len);
}
static int vb_start_map(void* ctx) { return vb_add(ctx, CJ_OBJECT, "", 0); }
static int vb_start_array(void* ctx) { return vb_add(ctx, CJ_ARRAY, "", 0); }
static int vb_key(void* ctx, const unsigned char* key, size_t len) {
    value_builder* b = ctx;
    return cj_doc_key(b->doc, (const char*)key, len) == 0;
}
static int vb_end(void* ctx) {
    value_builder* b = ctx;
    cj_doc_close(b->doc);
    b->depth--;
    return 1;
}

static const yajl_callbacks value_callbacks = {
    vb_null,      vb_bool, NULL,   NULL,           vb_number, vb_string,
    vb_start_map, vb_key,  vb_end, vb_start_array, vb_end,
};

int chrome_parse_value(const unsigned char* text, size_t len, cj_doc* doc) {
    value_builder b = {doc, 0};
    yajl_handle yajl = yajl_alloc(&value_callbacks, NULL, &b);
    int ok;
    if (yajl == NULL)
        return -1;
    cj_doc_reset(doc);
    ok = yajl_parse(yajl, text, len) == yajl_status_ok &&
         yajl_complete_parse(yajl) == yajl_status_ok && doc->count != 0 && doc->open == CJ_NONE;
    yajl_free(yajl);
    if (ok)
        cj_doc_index(doc);
    return ok ? 0 : -1;
}
