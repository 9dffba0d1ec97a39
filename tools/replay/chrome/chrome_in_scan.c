/*
 * tools/replay/chrome/chrome_in_scan.c - the first pass over a Trace Event
 * Format file without a parser (chrome_scan_meta in chrome_in.h).
 *
 * The first pass needs little of most events: that "ph" is a string, and
 * their pid and tid, to learn the threads in the order they first appear.
 * Only metadata ("M") and counter ("C") events and otherData need their
 * values read. So this pass only finds where each event and each of its
 * top-level members begins and ends (strings skipped eight bytes at a time,
 * containers by their brackets), takes ph, pid and tid as their bytes, and
 * hands the M and C events and otherData one at a time to yajl
 * (chrome_parse_value) and to the code of the parser's pass
 * (chrome_meta_event, chrome_meta_member).
 *
 * It does not check the JSON: the second pass parses every byte with yajl
 * and stops at the first error, and up to that error both passes see the
 * same events. Whatever the scan does not take as it is -- an error of any
 * event it hands on, an escape in a top-level key, ph not a plain string,
 * a pid or tid that is not a plain string or a number, an event or an
 * ignored top-level member larger than CHROME_EVENT_MAX, text after the
 * document, a file that ends inside an event -- makes it give up (2), and
 * the parser's first pass reads the file from the start and says what is
 * wrong where, in the words it always used.
 *
 * Memory: one 256 KiB buffer, grown only to hold one event (or one
 * top-level member) whole, at most CHROME_EVENT_MAX plus a chunk.
 */
#define _POSIX_C_SOURCE 200809L /* fileno */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "chrome_in.h"
#include "tool_alloc.h"
#include "tool_interrupt.h"

#define SCAN_CHUNK (256u << 10)
#define SCAN_MAX ((size_t)CHROME_EVENT_MAX + SCAN_CHUNK)

/* What the span functions return instead of an end. */
#define MORE ((size_t)-1) /* the bytes end first: read more and scan again */
#define ODD ((size_t)-2)  /* left to the parser's pass */

enum { SCAN_OK = 0, SCAN_STOP = 1, SCAN_ODD = 2 };
/* What peek returns instead of a byte. */
enum { PEEK_END = -1, PEEK_STOP = -2, PEEK_ODD = -3 };

typedef struct scan {
    chrome_import* im;
    FILE* file;
    unsigned char* buf;
    size_t cap, pos, len; /* the unread bytes are buf[pos, len) */
    uint64_t base;        /* the file offset of buf[0] */
    int eof;
    uint64_t events;
    size_t longest; /* the longest span (event, member, key): bounds every token */
    cj_doc doc;
} scan;

/* ---- spans in the bytes at hand ---- */

static const unsigned char delimiter[256] = {
    [' '] = 1, ['\t'] = 1, ['\r'] = 1, ['\n'] = 1, [','] = 1, [':'] = 1,
    ['['] = 1, [']'] = 1,  ['{'] = 1,  ['}'] = 1,  [0] = 1,
};

static size_t skip_space(const unsigned char* b, size_t i, size_t n) {
    while (i < n && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t'))
        i++;
    return i;
}

/* From the opening quote at b[i]: the index after the closing quote;
 * *escaped set when the string holds a backslash. */
static size_t string_end(const unsigned char* b, size_t i, size_t n, int* escaped) {
    for (i++;;) {
        i = chrome_string_stop(b, i, n);
        if (i >= n)
            return MORE;
        if (b[i] == '"')
            return i + 1;
        *escaped = 1;
        i += 2; /* the backslash and the byte it escapes */
    }
}

/* A number or a literal: up to the next delimiter. */
static size_t token_end(const unsigned char* b, size_t i, size_t n) {
    size_t start = i;
    while (i < n && !delimiter[b[i]])
        i++;
    return i == n ? MORE : i == start ? ODD : i;
}

/* An object or array from its bracket at b[i], by brackets and strings
 * alone (the parser's pass checks the rest); `depth` levels are open
 * around it. */
static size_t container_end(const unsigned char* b, size_t i, size_t n, unsigned depth) {
    unsigned open = 0;
    int escaped = 0;
    while (i < n) {
        unsigned char c = b[i];
        if (c == '"') {
            i = string_end(b, i, n, &escaped);
            if (i == MORE)
                return MORE;
            continue;
        }
        if (c == '{' || c == '[') {
            if (depth + ++open > CHROME_DEPTH_MAX)
                return ODD;
        } else if ((c == '}' || c == ']') && --open == 0) {
            return i + 1;
        }
        i++;
    }
    return MORE;
}

static size_t value_end(const unsigned char* b, size_t i, size_t n, unsigned depth, int* escaped) {
    if (b[i] == '"')
        return string_end(b, i, n, escaped);
    if (b[i] == '{' || b[i] == '[')
        return container_end(b, i, n, depth);
    return token_end(b, i, n);
}

/* A member of an event that the scan reads: where its value is. */
typedef struct member_span {
    size_t at, end;
    int found, escaped;
} member_span;

typedef struct event_scan {
    member_span ph, pid, tid;
    int odd_key; /* a key with an escape: it might spell one of the three */
} event_scan;

static member_span* wanted_member(event_scan* ev, const unsigned char* key, size_t len) {
    if (len == 2 && key[0] == 'p' && key[1] == 'h')
        return &ev->ph;
    if (len == 3 && !memcmp(key, "pid", 3))
        return &ev->pid;
    if (len == 3 && !memcmp(key, "tid", 3))
        return &ev->tid;
    return NULL;
}

/* The event object from its '{' at b[i]: the index after its '}', with
 * where ph, pid and tid are (the first of each, as the parser's pass
 * takes them). */
static size_t event_end(const unsigned char* b, size_t i, size_t n, event_scan* ev) {
    memset(ev, 0, sizeof *ev);
    i = skip_space(b, i + 1, n);
    if (i < n && b[i] == '}')
        return i + 1;
    for (;;) {
        size_t key = i + 1, value, end;
        int key_escaped = 0, value_escaped = 0;
        member_span* m;
        if (i >= n)
            return MORE;
        if (b[i] != '"')
            return ODD;
        if ((i = string_end(b, i, n, &key_escaped)) == MORE)
            return MORE;
        ev->odd_key |= key_escaped;
        m = wanted_member(ev, b + key, i - 1 - key);
        i = skip_space(b, i, n);
        if (i >= n)
            return MORE;
        if (b[i] != ':')
            return ODD;
        if ((value = skip_space(b, i + 1, n)) >= n)
            return MORE;
        if ((end = value_end(b, value, n, 1, &value_escaped)) == MORE || end == ODD)
            return end;
        if (m != NULL && !m->found) {
            m->found = 1;
            m->at = value;
            m->end = end;
            m->escaped = value_escaped;
        }
        if ((i = skip_space(b, end, n)) >= n)
            return MORE;
        if (b[i] == '}')
            return i + 1;
        if (b[i] != ',')
            return ODD;
        i = skip_space(b, i + 1, n);
    }
}

/* ---- the buffer ---- */

/* Moves the unread bytes to the front and reads more after them, growing
 * the buffer when they fill it (one event larger than a chunk). 1 when
 * bytes were added, 0 at the end of the file, PEEK_STOP on a read error
 * (printed) or an interrupt, PEEK_ODD past the bounds. */
static int refill(scan* s) {
    size_t got;
    if (s->eof)
        return 0;
    if (s->pos > 0) {
        memmove(s->buf, s->buf + s->pos, s->len - s->pos);
        s->base += s->pos;
        s->len -= s->pos;
        s->pos = 0;
    }
    if (s->len == s->cap) {
        unsigned char* grown;
        if (s->cap >= SCAN_MAX || (grown = nvtxw_realloc(s->buf, s->cap * 2)) == NULL)
            return PEEK_ODD; /* the parser's pass says what is too large */
        s->buf = grown;
        s->cap *= 2;
    }
    got = fread(s->buf + s->len, 1, s->cap - s->len, s->file);
    if (got == 0) {
        if (ferror(s->file)) {
            fprintf(stderr, "%s: error: cannot read '%s': %s\n", s->im->ctx->tool, s->im->path,
                    strerror(errno));
            return PEEK_STOP;
        }
        s->eof = 1;
        return 0;
    }
    s->len += got;
    return tool_interrupted() ? PEEK_STOP : 1; /* asked to stop: said by the tool */
}

/* The next byte that is not white space (not consumed), or PEEK_*. */
static int peek(scan* s) {
    for (;;) {
        int status;
        s->pos = skip_space(s->buf, s->pos, s->len);
        if (s->pos < s->len)
            return s->buf[s->pos];
        if ((status = refill(s)) <= 0)
            return status == 0 ? PEEK_END : status;
    }
}

/* A byte or a PEEK_* that the scan does not take there. */
static int not_taken(int c) { return c == PEEK_STOP ? SCAN_STOP : SCAN_ODD; }

typedef enum span_kind { SPAN_STRING, SPAN_VALUE, SPAN_EVENT } span_kind;

/* The end of the string, value or event that starts at the unread bytes,
 * read whole into the buffer: SCAN_OK with *end, or SCAN_STOP/SCAN_ODD. */
static int span(scan* s, span_kind kind, event_scan* ev, int* escaped, size_t* end) {
    for (;;) {
        size_t e = kind == SPAN_EVENT    ? event_end(s->buf, s->pos, s->len, ev)
                   : kind == SPAN_STRING ? string_end(s->buf, s->pos, s->len, escaped)
                                         : value_end(s->buf, s->pos, s->len, 1, escaped);
        int status;
        if (e == ODD)
            return SCAN_ODD;
        if (e != MORE) {
            *end = e;
            if (e - s->pos > s->longest)
                s->longest = e - s->pos;
            return SCAN_OK;
        }
        if ((status = refill(s)) <= 0)
            return status == PEEK_STOP ? SCAN_STOP : SCAN_ODD; /* the file ends inside */
    }
}

/* ---- events ---- */

/* The pid or tid key (chrome_id_key's form) from its bytes; 0, 1 when the
 * value needs the parser, -1 when out of memory. */
static int id_key(const unsigned char* b, const member_span* m, cj_buf* out) {
    out->len = 0;
    if (!m->found)
        return cj_buf_put(out, "n:0", 3);
    if (b[m->at] == '"' && !m->escaped)
        return cj_buf_put(out, "s:", 2) || cj_buf_put(out, b + m->at + 1, m->end - m->at - 2) ? -1
                                                                                              : 0;
    if (b[m->at] == '-' || (b[m->at] >= '0' && b[m->at] <= '9'))
        return cj_buf_put(out, "n:", 2) || cj_buf_put(out, b + m->at, m->end - m->at) ? -1 : 0;
    return 1;
}

/* An event whose values matter (M, C) or that the bytes alone do not
 * settle: parsed and read as the parser's pass reads it. */
static int tree_event(scan* s, const unsigned char* text, size_t len) {
    chrome_import* im = s->im;
    if (chrome_parse_value(text, len, &s->doc) != 0 ||
        chrome_meta_event(im, &s->doc, im->event_index, im->event_offset) != 0)
        return SCAN_ODD;
    return SCAN_OK;
}

static int take_event(scan* s, size_t at, size_t end, const event_scan* ev) {
    chrome_import* im = s->im;
    const unsigned char* b = s->buf;
    uint32_t thread;
    int status;
    im->event_index = s->events;
    im->event_offset = s->base + at;
    if (!ev->ph.found || ev->odd_key || b[ev->ph.at] != '"' || ev->ph.escaped ||
        (ev->ph.end - ev->ph.at == 3 && (b[ev->ph.at + 1] == 'M' || b[ev->ph.at + 1] == 'C')))
        return tree_event(s, b + at, end - at);
    if ((status = id_key(b, &ev->pid, &im->pid_key)) == 0)
        status = id_key(b, &ev->tid, &im->tid_key);
    if (status > 0)
        return tree_event(s, b + at, end - at);
    if (status < 0)
        return SCAN_ODD; /* out of memory: the parser's pass says so */
    if (chrome_thread_by_key(im, im->pid_key.data, im->pid_key.len, im->tid_key.data,
                             im->tid_key.len, &thread) != 0)
        return SCAN_ODD;
    im->threads[thread].last_seen = im->event_index;
    return SCAN_OK;
}

/* The elements of the event array, after its '['. An array the file ends
 * in (a truncated trace) is taken, with *truncated set: the second pass
 * warns. */
static int scan_events(scan* s, int* truncated) {
    int c = peek(s);
    if (c == ']') {
        s->pos++;
        return SCAN_OK;
    }
    for (;;) {
        event_scan ev;
        size_t end;
        int status;
        if (c == PEEK_END) {
            *truncated = 1;
            return SCAN_OK;
        }
        if (c != '{')
            return not_taken(c);
        if ((status = span(s, SPAN_EVENT, &ev, NULL, &end)) != SCAN_OK ||
            (status = take_event(s, s->pos, end, &ev)) != SCAN_OK)
            return status;
        s->events++;
        s->pos = end;
        c = peek(s);
        if (c == ',') {
            s->pos++;
            c = peek(s);
        } else if (c == ']') {
            s->pos++;
            return SCAN_OK;
        } else if (c != PEEK_END) {
            return not_taken(c);
        }
    }
}

/* ---- the document ---- */

static int key_is(const scan* s, size_t end, const char* name) {
    size_t len = strlen(name);
    return end - s->pos - 2 == len && !memcmp(s->buf + s->pos + 1, name, len);
}

/* One top-level member of the object form, from its key. */
static int scan_member(scan* s, int* seen_events, int* truncated) {
    size_t end;
    int escaped = 0, is_events, is_other, status, c;
    if ((status = span(s, SPAN_STRING, NULL, &escaped, &end)) != SCAN_OK)
        return status;
    if (escaped)
        return SCAN_ODD;
    is_events = key_is(s, end, "traceEvents");
    is_other = key_is(s, end, "otherData");
    s->pos = end;
    if ((c = peek(s)) != ':')
        return not_taken(c);
    s->pos++;
    if ((c = peek(s)) < 0)
        return not_taken(c);
    if (is_events) {
        if (*seen_events || c != '[')
            return SCAN_ODD;
        *seen_events = 1;
        s->pos++;
        return scan_events(s, truncated);
    }
    if ((status = span(s, SPAN_VALUE, NULL, &escaped, &end)) != SCAN_OK)
        return status;
    if (is_other) {
        if (chrome_parse_value(s->buf + s->pos, end - s->pos, &s->doc) != 0 ||
            chrome_meta_member(s->im, "otherData", &s->doc) != 0)
            return SCAN_ODD;
    }
    s->pos = end;
    return SCAN_OK;
}

static int scan_object(scan* s) {
    int seen_events = 0, truncated = 0, c = peek(s);
    for (;;) {
        int status;
        if (c != '"')
            return not_taken(c);
        if ((status = scan_member(s, &seen_events, &truncated)) != SCAN_OK || truncated)
            return status;
        c = peek(s);
        if (c == '}') {
            s->pos++;
            return seen_events ? SCAN_OK : SCAN_ODD;
        }
        if (c != ',')
            return not_taken(c);
        s->pos++;
        c = peek(s);
    }
}

static int scan_document(scan* s) {
    int c = peek(s), status, truncated = 0;
    if (c != '[' && c != '{')
        return not_taken(c);
    s->pos++;
    status = c == '[' ? scan_events(s, &truncated) : scan_object(s);
    if (status != SCAN_OK)
        return status;
    c = peek(s);
    return c == PEEK_END ? SCAN_OK : not_taken(c);
}

int chrome_scan_meta(chrome_import* im) {
    scan s;
    int status = SCAN_ODD;
    memset(&s, 0, sizeof s);
    s.im = im;
    s.doc.open = CJ_NONE;
    s.cap = SCAN_CHUNK;
    if ((s.file = fopen(im->path, "rb")) == NULL || (s.buf = nvtxw_malloc(s.cap)) == NULL) {
        status = SCAN_ODD; /* the parser's pass says why */
    } else {
        im->quiet = 1;
        if (peek(&s) >= 0 && s.pos == 0 && s.len >= 3 && !memcmp(s.buf, "\xef\xbb\xbf", 3))
            s.pos = 3; /* a UTF-8 byte order mark, as the parser's pass skips it */
        status = scan_document(&s);
        im->quiet = 0;
        /* every token lies inside a span, and between them is white
         * space and punctuation (or the scan gave up) */
        im->scanned_bounded = status == SCAN_OK && s.longest <= CHROME_TOKEN_MAX &&
                              chrome_file_identify(fileno(s.file), &im->scanned) == 0;
    }
    if (s.file != NULL)
        fclose(s.file);
    nvtxw_free(s.buf);
    cj_doc_free(&s.doc);
    return status;
}
