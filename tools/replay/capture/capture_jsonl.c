/*
 * tools/replay/capture/capture_jsonl.c - JSON Lines captures, a line at a
 * time: through yajl where libyaml would read the line the same way,
 * through libyaml alone (capture_input.c) otherwise.
 *
 * Contract: the events (types, scalar texts and styles, marks) are the ones
 * libyaml gives for the line with "--- " before it, so the rest of the
 * reader cannot tell which parser read a line, and whatever is wrong with a
 * line yajl does not take (syntax, UTF-8, control characters, tokens over
 * 16 MiB, flow YAML that is not JSON) is found and said by libyaml, as
 * before. yajl reads a line when
 *   - it is at most JSONL_FAST_LINE bytes (a longer line streams through
 *     libyaml, whose memory the token cap bounds);
 *   - its bytes are ones libyaml reads as yajl does: printable UTF-8 without
 *     tabs (libyaml refuses DEL, C1 controls, U+FFFE and U+FFFF, reads NEL,
 *     U+2028, U+2029 and CR as line breaks, skips U+FEFF in places), and
 *     each \u escape of a surrogate is half of a whole pair (yajl decodes a
 *     lone one to '?' or to invalid UTF-8, libyaml refuses it);
 *   - it holds one JSON object or array and nothing but spaces around it;
 *   - no key spans JSONL_KEY_SPAN bytes or more to its value (libyaml gives
 *     up a possible simple key after 1,024 characters, then fails).
 * Scalars: strings and keys double-quoted, numbers, true, false and null
 * plain, with their text as written. Marks are libyaml's: 0-based line,
 * column in characters plus 4 (the "--- ").
 *
 * Events of a line are queued once yajl has read all of it (a line it
 * rejects halfway must give libyaml all its events), so memory is bounded
 * by JSONL_FAST_LINE: at most 16 bytes per event and a copy of the texts.
 * NVTXW_CAPTURE_PARSER=libyaml sends every line to libyaml (tests compare
 * the two ways).
 */
#define _POSIX_C_SOURCE 200809L
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_parse.h>

#include "capture_reader.h"
#include "tool_alloc.h"

#define JSONL_FAST_LINE ((size_t)1 << 20)
#define JSONL_KEY_SPAN 1000

typedef struct jsonl_event {
    unsigned char type;  /* yaml_event_type_t */
    unsigned char plain; /* a scalar in plain style, else double-quoted */
    uint32_t column;     /* libyaml's: characters before the token + 4 */
    uint32_t text, length;
} jsonl_event;

struct capture_jsonl {
    yajl_handle yajl;
    int libyaml_only;
    int started;
    /* the line yajl reads */
    const unsigned char* text;
    size_t length;
    int ascii;
    size_t prev_end;                  /* byte after the previous token */
    size_t counted_at, counted_chars; /* characters before byte counted_at */
    size_t key_start;                 /* of the last key, or SIZE_MAX */
    size_t depth, values, value_end;  /* nesting, top-level values, end of the first */
    int out_of_memory;
    /* its events */
    jsonl_event* events;
    size_t count, next, capacity;
    char* texts;
    size_t texts_length, texts_capacity;
    size_t line; /* 0-based */
};

/* ---- the bytes yajl may read ---- */

/* The UTF-8 character at s[0] (>= 0x80): its length, or 0 when libyaml
 * refuses it (the read handler's check) or reads it unlike yajl: NEL,
 * U+2028 and U+2029 are line breaks to it, U+FEFF is skipped in places. */
static size_t multibyte(const unsigned char* s, size_t left) {
    capture_utf8 u = {0, 0, 0};
    size_t n = 0;
    do {
        if (n == left || capture_utf8_feed(&u, s[n++]) != NULL)
            return 0;
    } while (u.needed > 0);
    return u.value == 0x85 || u.value == 0x2028 || u.value == 0x2029 || u.value == 0xFEFF ? 0 : n;
}

/* The escape at s[0] == '\\': its length, or 0 when yajl and libyaml could
 * read it differently (a surrogate that is not half of a pair). */
static size_t escape(const unsigned char* s, size_t left) {
    unsigned high, low;
    if (left < 2)
        return 0;
    if (s[1] != 'u')
        return 2;
    if (left < 6 || capture_hex4((const char*)s + 2, &high) != 0)
        return 0;
    if (high < 0xD800 || high > 0xDFFF)
        return 6;
    if (high > 0xDBFF || left < 12 || s[6] != '\\' || s[7] != 'u' ||
        capture_hex4((const char*)s + 8, &low) != 0 || low < 0xDC00 || low > 0xDFFF)
        return 0;
    return 12;
}

/* 1 when every byte of the line reads the same in yajl and libyaml; sets
 * *ascii when all are ASCII (columns are then byte offsets). */
#define BYTES(b) (0x0101010101010101u * (uint64_t)(b))
/* 8 bytes with none below 0x20, at or above 0x7F, or a backslash. */
static int plain_word(const unsigned char* s) {
    uint64_t w, low, high, backslash;
    memcpy(&w, s, sizeof w);
    low = (w - BYTES(0x20)) & ~w;
    high = w + BYTES(0x01); /* a 0x7F or above sets bit 7 */
    backslash = ((w ^ BYTES('\\')) - BYTES(0x01)) & ~(w ^ BYTES('\\'));
    return ((low | high | w | backslash) & BYTES(0x80)) == 0;
}

static int same_bytes(const unsigned char* s, size_t length, int* ascii) {
    size_t i = 0, n;
    *ascii = 1;
    while (i < length) {
        unsigned c = s[i];
        if (i + 8 <= length && plain_word(s + i))
            i += 8;
        else if (c >= 0x20 && c < 0x7F && c != '\\')
            i++;
        else if (c == '\\' && (n = escape(s + i, length - i)) != 0)
            i += n;
        else if (c >= 0x80 && (n = multibyte(s + i, length - i)) != 0)
            i += n, *ascii = 0;
        else
            return 0;
    }
    return 1;
}

/* ---- yajl's callbacks -> queued events ---- */

/* libyaml's column of byte `at` of the line (at never decreases). */
static uint32_t column_of(struct capture_jsonl* j, size_t at) {
    if (j->ascii)
        return (uint32_t)(at + 4);
    for (; j->counted_at < at; j->counted_at++)
        j->counted_chars += (j->text[j->counted_at] & 0xC0) != 0x80;
    return (uint32_t)(j->counted_chars + 4);
}

/* Queues an event for a token that ends at byte `end`; it starts at the
 * first byte after the previous token that is not a space, ',' or ':'. A
 * scalar's text is `text`, or with `text` NULL the token as written (true,
 * false, null). Returns the start, or SIZE_MAX to stop yajl. */
static size_t push(struct capture_jsonl* j, yaml_event_type_t type, size_t end, const void* text,
                   size_t length) {
    size_t start = j->prev_end;
    int plain = type == YAML_SCALAR_EVENT && text == NULL;
    jsonl_event* e;
    while (start < end && (j->text[start] == ' ' || j->text[start] == ',' || j->text[start] == ':'))
        start++;
    if (j->key_start != SIZE_MAX && start - j->key_start >= JSONL_KEY_SPAN)
        return SIZE_MAX;
    if (plain)
        text = j->text + start, length = end - start;
    j->prev_end = end;
    j->key_start = SIZE_MAX;
    if (nvtxw_grow_array((void**)&j->events, &j->capacity, j->count + 1, sizeof *j->events, 64) !=
            0 ||
        (type == YAML_SCALAR_EVENT && nvtxw_grow_array((void**)&j->texts, &j->texts_capacity,
                                                       j->texts_length + length + 1, 1, 64) != 0)) {
        j->out_of_memory = 1;
        return SIZE_MAX;
    }
    e = &j->events[j->count++];
    e->type = (unsigned char)type;
    e->plain = (unsigned char)plain;
    e->column = type == YAML_DOCUMENT_START_EVENT ? 0 : column_of(j, start);
    e->text = (uint32_t)j->texts_length;
    e->length = (uint32_t)length;
    if (type == YAML_SCALAR_EVENT) {
        memcpy(j->texts + j->texts_length, text, length);
        j->texts[j->texts_length + length] = '\0';
        j->texts_length += length + 1;
    }
    return start;
}

static size_t token_end(const struct capture_jsonl* j) { return yajl_get_bytes_consumed(j->yajl); }

static int on_literal(void* ctx) {
    return push(ctx, YAML_SCALAR_EVENT, token_end(ctx), NULL, 0) != SIZE_MAX;
}

static int on_boolean(void* ctx, int value) {
    (void)value;
    return on_literal(ctx);
}

static int on_number(void* ctx, const char* text, size_t length) {
    (void)text, (void)length; /* the token as written */
    return on_literal(ctx);
}

static int on_string(void* ctx, const unsigned char* text, size_t length) {
    return push(ctx, YAML_SCALAR_EVENT, token_end(ctx), text, length) != SIZE_MAX;
}

static int on_key(void* ctx, const unsigned char* text, size_t length) {
    struct capture_jsonl* j = ctx;
    size_t start = push(j, YAML_SCALAR_EVENT, token_end(j), text, length);
    j->key_start = start;
    return start != SIZE_MAX;
}

static int open_node(struct capture_jsonl* j, yaml_event_type_t type) {
    if (j->depth++ == 0 && j->values++ > 0)
        return 0; /* a second value on the line */
    return push(j, type, token_end(j), NULL, 0) != SIZE_MAX;
}

static int close_node(struct capture_jsonl* j, yaml_event_type_t type) {
    if (--j->depth == 0)
        j->value_end = token_end(j);
    return push(j, type, token_end(j), NULL, 0) != SIZE_MAX;
}

static int on_start_map(void* ctx) { return open_node(ctx, YAML_MAPPING_START_EVENT); }

static int on_end_map(void* ctx) { return close_node(ctx, YAML_MAPPING_END_EVENT); }

static int on_start_array(void* ctx) { return open_node(ctx, YAML_SEQUENCE_START_EVENT); }

static int on_end_array(void* ctx) { return close_node(ctx, YAML_SEQUENCE_END_EVENT); }

static const yajl_callbacks callbacks = {
    on_literal,   on_boolean, NULL,       NULL,           on_number,    on_string,
    on_start_map, on_key,     on_end_map, on_start_array, on_end_array,
};

/* A new yajl handle: one per capture, again after a line it rejected
 * (it keeps the state of a value it has not finished). */
static int new_handle(struct capture_jsonl* j) {
    if (j->yajl != NULL)
        yajl_free(j->yajl);
    j->yajl = yajl_alloc(&callbacks, NULL, j);
    if (j->yajl == NULL)
        return -1;
    /* UTF-8 is checked by same_bytes; values follow each other, a line each */
    yajl_config(j->yajl, yajl_dont_validate_strings, 1);
    yajl_config(j->yajl, yajl_allow_multiple_values, 1);
    return 0;
}

static size_t skip_spaces(const unsigned char* s, size_t length, size_t i) {
    while (i < length && s[i] == ' ')
        i++;
    return i;
}

/* Queues the events of a line (newline and a CR before it left out) when
 * yajl may read it: 0; 1 when it is libyaml's; -1 out of memory. */
static int parse_line(capture_reader* r, const unsigned char* text, size_t length) {
    struct capture_jsonl* j = r->lines;
    size_t first = skip_spaces(text, length, 0);
    yajl_status status;
    if (first == length || (text[first] != '{' && text[first] != '[') ||
        !same_bytes(text, length, &j->ascii))
        return 1;
    j->text = text;
    j->length = length;
    j->prev_end = j->counted_at = j->counted_chars = 0;
    j->key_start = SIZE_MAX;
    j->depth = j->values = 0;
    j->count = j->next = j->texts_length = 0;
    j->line = r->line - 1;
    if (push(j, YAML_DOCUMENT_START_EVENT, 0, NULL, 0) == SIZE_MAX)
        return -1;
    status = yajl_parse(j->yajl, text, length);
    if (j->out_of_memory)
        return -1;
    if (status != yajl_status_ok || j->depth != 0 || j->values != 1 ||
        skip_spaces(text, length, j->value_end) != length) {
        j->count = 0;
        return new_handle(j) == 0 ? 1 : -1;
    }
    return push(j, YAML_DOCUMENT_END_EVENT, length, NULL, 0) == SIZE_MAX ? -1 : 0;
}

/* ---- lines ---- */

/* The line at in_pos: *length without its newline, *consumed with it.
 * 0, 1 when it is longer than JSONL_FAST_LINE, -1 out of memory. */
static int find_line(capture_reader* r, size_t* length, size_t* consumed) {
    size_t scanned = 0;
    for (;;) {
        size_t available = r->in_end - r->in_pos;
        const unsigned char* newline =
            memchr(r->in + r->in_pos + scanned, '\n', available - scanned);
        if (newline != NULL) {
            *length = (size_t)(newline - (r->in + r->in_pos));
            *consumed = *length + 1;
            return 0;
        }
        if (r->in_eof) {
            *length = *consumed = available;
            return 0;
        }
        if (available > JSONL_FAST_LINE)
            return 1;
        scanned = available;
        if (capture_input_fill(r, available + 1) != 0)
            return -1;
    }
}

static int out_of_memory(capture_reader* r) {
    yaml_mark_t mark = {0, r->line - 1, 4};
    return capture_error(r, mark, "out of memory");
}

/* Characters in s[0, n). */
static size_t characters(const unsigned char* s, size_t n) {
    size_t count = 0, i;
    for (i = 0; i < n; i++)
        count += (s[i] & 0xC0) != 0x80;
    return count;
}

/* Reads the next line that is not empty: its events queued (0), libyaml
 * started on it (0), or the end of the file (1); -1 after an error. */
static int next_line(capture_reader* r) {
    struct capture_jsonl* j = r->lines;
    size_t length, consumed;
    int found;
    for (;;) {
        if (capture_input_fill(r, 1) != 0)
            return out_of_memory(r);
        if (r->in_pos == r->in_end)
            return ferror(r->file) ? capture_yaml_start(r) : 1; /* libyaml says "read error" */
        if (r->in[r->in_pos] != '\n')
            break;
        r->in_pos++, r->line++; /* an empty line: no document */
    }
    if ((found = find_line(r, &length, &consumed)) < 0)
        return out_of_memory(r);
    if (found == 0 && !j->libyaml_only && !ferror(r->file)) {
        const unsigned char* text = r->in + r->in_pos;
        int ended = consumed > length;
        int status =
            parse_line(r, text, length - (ended && length > 0 && text[length - 1] == '\r'));
        if (status < 0)
            return out_of_memory(r);
        if (status == 0) {
            r->lines_by_yajl++;
            r->in_pos += consumed;
            if (ended)
                r->line++, r->column = 1;
            else
                r->column = 1 + characters(text, length);
            return 0;
        }
    }
    r->lines_by_libyaml++;
    return capture_yaml_start(r);
}

/* Makes r->event the event `e` (NULL: one without data) of `line`. Written
 * in place, field by field: a copy of a whole yaml_event_t per event was a
 * tenth of the reading time. */
static void emit(capture_reader* r, yaml_event_type_t type, const jsonl_event* e, size_t line,
                 size_t column) {
    struct capture_jsonl* j = r->lines;
    yaml_event_t* event = capture_own_event(r);
    yaml_mark_t mark;
    mark.index = 0;
    mark.line = line;
    mark.column = column;
    event->type = type;
    event->start_mark = event->end_mark = mark;
    if (type == YAML_SCALAR_EVENT) {
        event->data.scalar.anchor = event->data.scalar.tag = NULL;
        event->data.scalar.value = (yaml_char_t*)j->texts + e->text;
        event->data.scalar.length = e->length;
        event->data.scalar.plain_implicit = e->plain;
        event->data.scalar.quoted_implicit = !e->plain;
        event->data.scalar.style =
            e->plain ? YAML_PLAIN_SCALAR_STYLE : YAML_DOUBLE_QUOTED_SCALAR_STYLE;
    } else if (type == YAML_MAPPING_START_EVENT) {
        event->data.mapping_start.anchor = event->data.mapping_start.tag = NULL;
        event->data.mapping_start.implicit = 1;
        event->data.mapping_start.style = YAML_FLOW_MAPPING_STYLE;
    } else if (type == YAML_SEQUENCE_START_EVENT) {
        event->data.sequence_start.anchor = event->data.sequence_start.tag = NULL;
        event->data.sequence_start.implicit = 1;
        event->data.sequence_start.style = YAML_FLOW_SEQUENCE_STYLE;
    } else if (type == YAML_DOCUMENT_START_EVENT) {
        memset(&event->data.document_start, 0, sizeof event->data.document_start);
    } else if (type == YAML_DOCUMENT_END_EVENT)
        event->data.document_end.implicit = 1;
}

int capture_jsonl_next(capture_reader* r) {
    struct capture_jsonl* j = r->lines;
    for (;;) {
        int status;
        if (r->parser_live) { /* a line libyaml reads */
            if (capture_yaml_next(r) != 0)
                return -1;
            if (r->event.type == YAML_STREAM_START_EVENT)
                continue;
            if (r->event.type != YAML_STREAM_END_EVENT)
                return 0;
            capture_yaml_stop(r);
            continue;
        }
        if (j->next < j->count) {
            const jsonl_event* e = &j->events[j->next++];
            emit(r, (yaml_event_type_t)e->type, e, j->line, e->column);
            return 0;
        }
        if (!j->started) {
            j->started = 1;
            emit(r, YAML_STREAM_START_EVENT, NULL, 0, 0);
            return 0;
        }
        if ((status = next_line(r)) < 0)
            return -1;
        if (status == 1) { /* where libyaml puts the end: after the last character */
            emit(r, YAML_STREAM_END_EVENT, NULL, r->line - 1, r->column == 1 ? 0 : r->column + 3);
            return 0;
        }
    }
}

int capture_jsonl_open(capture_reader* r) {
    const char* parser = getenv("NVTXW_CAPTURE_PARSER");
    struct capture_jsonl* j = nvtxw_calloc(1, sizeof *j);
    if (j == NULL)
        return -1;
    r->lines = j;
    if (parser != NULL && *parser != '\0' && strcmp(parser, "libyaml") != 0 &&
        strcmp(parser, "auto") != 0) {
        fprintf(stderr, "%s: error: NVTXW_CAPTURE_PARSER='%s': expected libyaml or auto\n",
                r->ctx->tool, parser);
        r->failed = 1;
        return -1;
    }
    j->libyaml_only = parser != NULL && strcmp(parser, "libyaml") == 0;
    return new_handle(j);
}

void capture_jsonl_close(capture_reader* r) {
    struct capture_jsonl* j = r->lines;
    if (j == NULL)
        return;
    if (j->yajl != NULL)
        yajl_free(j->yajl);
    nvtxw_free(j->events);
    nvtxw_free(j->texts);
    nvtxw_free(j);
    r->lines = NULL;
}
