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
 *
 * Scan ahead: on a machine with more than one CPU and a file of at least
 * AHEAD_MIN bytes, a second thread scans the second half of the file while
 * the calling thread scans the first (the scan runs alone, before the
 * parser's pass, so the other CPU is free). The helper starts at the first
 * place after the middle that looks like the start of an event ("}" "," "{"
 * '"', white space between), which it cannot know to be one: it may lie in
 * a string or deeper in an object. So it only records what it finds, in
 * order (the first event of each thread, the offsets of the events to be
 * parsed), and the calling thread takes the records only when its own scan
 * arrives exactly at that offset at the start of an event; anywhere else
 * the records are dropped and the calling thread scans on alone. Taken,
 * they are applied as the calling thread would have found them (the same
 * thread order, names, counters, last events), and it goes on after the
 * helper's last event. The records are a few bytes per thread and per
 * parsed (M, C) event: more than AHEAD_RECORDS of them end the helper
 * (the calling thread then scans the rest itself).
 */
#define _POSIX_C_SOURCE 200809L /* fileno */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

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

#define AHEAD_MIN (16u << 20)
#define AHEAD_RECORDS (1u << 16)

struct ahead;

typedef struct scan {
    chrome_import* im;
    struct ahead* ahead;  /* the helper's results it fills (its own scan), or NULL */
    struct ahead* helper; /* the helper working ahead of it (the calling thread's), or NULL */
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
            if (s->ahead != NULL)
                return PEEK_ODD; /* the helper's results are dropped; the caller reads on */
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

static int ahead_take(scan* s, size_t at, size_t end, const event_scan* ev);

/* Whether the event's values are read by the parser (chrome_meta_event). */
static int needs_tree(const unsigned char* b, const event_scan* ev) {
    return !ev->ph.found || ev->odd_key || b[ev->ph.at] != '"' || ev->ph.escaped ||
           (ev->ph.end - ev->ph.at == 3 && (b[ev->ph.at + 1] == 'M' || b[ev->ph.at + 1] == 'C'));
}

static int take_event(scan* s, size_t at, size_t end, const event_scan* ev) {
    chrome_import* im = s->im;
    const unsigned char* b = s->buf;
    uint32_t thread;
    int status;
    if (s->ahead != NULL)
        return ahead_take(s, at, end, ev);
    im->event_index = s->events;
    im->event_offset = s->base + at;
    if (needs_tree(b, ev))
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

/* ---- scan ahead (see the top of the file) ---- */

#define AHEAD_TAKEN 3 /* ahead_meet: the helper's records were taken */

/* What the helper found, in file order: the first event of a thread (its
 * keys), or an event to be parsed (its bytes in the file). */
typedef struct ahead_record {
    uint64_t local;  /* the event's number, from the helper's first */
    uint64_t offset; /* the event's first byte in the file */
    size_t key;      /* a thread: its pid and tid keys, one after the other in `keys` */
    uint32_t len;    /* a thread: its pid key's bytes; a tree: the event's */
    uint32_t tid_len;
    int tree;
} ahead_record;

typedef struct ahead_thread {
    size_t key;
    uint32_t pid_len, tid_len;
    uint64_t last_local; /* its last event */
} ahead_thread;

typedef struct ahead {
    const char* path;
    uint64_t middle;
    uint64_t records_max;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t found;
    int start_known; /* under lock */
    uint64_t start;  /* under lock: the helper's first event, UINT64_MAX for none */
    int start_read;  /* the calling thread's: it has seen start_known */
    atomic_int stop; /* the calling thread no longer needs the records */
    /* the helper's own until the join */
    int status;
    uint64_t events, end; /* events taken; where it stopped (a '{', the ']', the file's end) */
    size_t longest;
    ahead_record* records;
    size_t record_count, record_cap;
    ahead_thread* threads;
    size_t thread_count, thread_cap;
    uint32_t last_thread; /* of the previous event, when thread_count > 0 */
    ct_table index;       /* pid key, 0x1f, tid key -> threads[] */
    cj_buf keys, pid_key, tid_key, scratch;
} ahead;

static int ahead_record_add(ahead* a, const ahead_record* r) {
    if (nvtxw_grow_array((void**)&a->records, &a->record_cap, a->record_count + 1,
                         sizeof *a->records, 256) != 0)
        return SCAN_ODD;
    a->records[a->record_count++] = *r;
    return SCAN_OK;
}

static int ahead_is_last_thread(const ahead* a) {
    const ahead_thread* t = a->thread_count > 0 ? &a->threads[a->last_thread] : NULL;
    return t != NULL && t->pid_len == a->pid_key.len && t->tid_len == a->tid_key.len &&
           !memcmp(a->keys.data + t->key, a->pid_key.data, t->pid_len) &&
           !memcmp(a->keys.data + t->key + t->pid_len, a->tid_key.data, t->tid_len);
}

/* The thread of the event (keys in pid_key, tid_key): its last event
 * moves on, or it is new (a record). */
static int ahead_thread_event(ahead* a, uint64_t local, uint64_t offset) {
    cj_buf* key = &a->scratch;
    uint64_t* slot;
    int added;
    if (ahead_is_last_thread(a)) {
        a->threads[a->last_thread].last_local = local;
        return SCAN_OK;
    }
    key->len = 0;
    if (cj_buf_put(key, a->pid_key.data, a->pid_key.len) || cj_buf_put(key, "\x1f", 1) ||
        cj_buf_put(key, a->tid_key.data, a->tid_key.len) ||
        (slot = ct_find(&a->index, key->data, key->len, 1, &added)) == NULL)
        return SCAN_ODD;
    if (added) {
        ahead_thread t = {a->keys.len, (uint32_t)a->pid_key.len, (uint32_t)a->tid_key.len, local};
        ahead_record r = {local, offset, a->keys.len, t.pid_len, t.tid_len, 0};
        if (cj_buf_put(&a->keys, a->pid_key.data, a->pid_key.len) ||
            cj_buf_put(&a->keys, a->tid_key.data, a->tid_key.len) ||
            nvtxw_grow_array((void**)&a->threads, &a->thread_cap, a->thread_count + 1,
                             sizeof *a->threads, 64) != 0 ||
            ahead_record_add(a, &r) != SCAN_OK)
            return SCAN_ODD;
        *slot = a->thread_count;
        a->threads[a->thread_count++] = t;
    }
    a->last_thread = (uint32_t)*slot;
    a->threads[*slot].last_local = local;
    return SCAN_OK;
}

/* take_event on the helper's thread: recorded, not applied. */
static int ahead_take(scan* s, size_t at, size_t end, const event_scan* ev) {
    ahead* a = s->ahead;
    const unsigned char* b = s->buf;
    int status;
    if (!needs_tree(b, ev)) {
        if ((status = id_key(b, &ev->pid, &a->pid_key)) == 0)
            status = id_key(b, &ev->tid, &a->tid_key);
        if (status < 0)
            return SCAN_ODD;
        if (status == 0)
            return ahead_thread_event(a, s->events, s->base + at);
    }
    {
        ahead_record r = {s->events, s->base + at, 0, (uint32_t)(end - at), 0, 1};
        return ahead_record_add(a, &r);
    }
}

/* The first place at or after the middle that looks like an event's start:
 * '}', ',', '{', '"' with white space between; the scan is left at the
 * '{'. SCAN_OK, or SCAN_ODD when there is none. */
static int ahead_find_start(scan* h) {
    for (;;) {
        const unsigned char* close = memchr(h->buf + h->pos, '}', h->len - h->pos);
        size_t brace;
        int c;
        if (close == NULL) {
            h->pos = h->len;
            if ((c = refill(h)) <= 0)
                return c == PEEK_STOP ? SCAN_STOP : SCAN_ODD;
            continue;
        }
        h->pos = (size_t)(close - h->buf) + 1;
        if ((c = peek(h)) != ',') {
            if (c < 0)
                return not_taken(c);
            continue;
        }
        h->pos++;
        if ((c = peek(h)) != '{') {
            if (c < 0)
                return not_taken(c);
            continue;
        }
        for (brace = h->pos;;) { /* the '{' stays unread while more is read */
            size_t i = skip_space(h->buf, brace + 1, h->len);
            if (i < h->len) {
                if (h->buf[i] == '"')
                    return SCAN_OK;
                h->pos = brace + 1;
                break;
            }
            if ((c = refill(h)) <= 0)
                return c == PEEK_STOP ? SCAN_STOP : SCAN_ODD;
            brace = h->pos;
        }
    }
}

/* The helper's events, from its start to the array's ']', the file's end,
 * or AHEAD_RECORDS records (then it ends at the next event's '{'). */
static int ahead_scan_events(scan* h) {
    ahead* a = h->ahead;
    int c = '{';
    for (;;) {
        event_scan ev;
        size_t end;
        int status;
        if (c == PEEK_END)
            return SCAN_OK; /* a truncated array: the calling thread says so */
        if (c != '{')
            return not_taken(c);
        if (atomic_load_explicit(&a->stop, memory_order_relaxed))
            return SCAN_STOP;
        if (a->record_count + a->thread_count >= a->records_max)
            return SCAN_OK;
        if ((status = span(h, SPAN_EVENT, &ev, NULL, &end)) != SCAN_OK ||
            (status = take_event(h, h->pos, end, &ev)) != SCAN_OK)
            return status;
        h->events++;
        h->pos = end;
        if ((c = peek(h)) == ',') {
            h->pos++;
            c = peek(h);
        } else if (c == ']') {
            return SCAN_OK;
        }
    }
}

static void ahead_publish_start(ahead* a, uint64_t start) {
    pthread_mutex_lock(&a->lock);
    a->start = start;
    a->start_known = 1;
    pthread_cond_broadcast(&a->found);
    pthread_mutex_unlock(&a->lock);
}

static void* ahead_main(void* arg) {
    ahead* a = arg;
    scan h;
    int status = SCAN_ODD;
    memset(&h, 0, sizeof h);
    h.ahead = a;
    h.cap = SCAN_CHUNK;
    h.base = a->middle;
    if ((h.file = fopen(a->path, "rb")) != NULL && (h.buf = nvtxw_malloc(h.cap)) != NULL &&
        fseeko(h.file, (off_t)a->middle, SEEK_SET) == 0)
        status = ahead_find_start(&h);
    ahead_publish_start(a, status == SCAN_OK ? h.base + h.pos : UINT64_MAX);
    if (status == SCAN_OK)
        status = ahead_scan_events(&h);
    a->status = status;
    a->events = h.events;
    a->end = h.base + h.pos;
    a->longest = h.longest;
    if (h.file != NULL)
        fclose(h.file);
    nvtxw_free(h.buf);
    return NULL;
}

static void ahead_free(ahead* a) {
    nvtxw_free(a->records);
    nvtxw_free(a->threads);
    ct_free(&a->index);
    nvtxw_free(a->keys.data);
    nvtxw_free(a->pid_key.data);
    nvtxw_free(a->tid_key.data);
    nvtxw_free(a->scratch.data);
    pthread_cond_destroy(&a->found);
    pthread_mutex_destroy(&a->lock);
    nvtxw_free(a);
}

/* The smallest file scanned on two threads, and the most records the helper
 * keeps (NVTXW_CHROME_SCAN_AHEAD_MIN and _RECORDS reach the helper's paths
 * with small files in tests; the first also makes the scan say what the
 * helper did). */
static uint64_t ahead_min(void) {
    return chrome_env_number("NVTXW_CHROME_SCAN_AHEAD_MIN", AHEAD_MIN);
}
static uint64_t ahead_records(void) {
    return chrome_env_number("NVTXW_CHROME_SCAN_AHEAD_RECORDS", AHEAD_RECORDS);
}

/* Starts the helper on the second half of the file, when it pays; NULL
 * otherwise (also when a thread cannot be had: the scan runs alone). */
static ahead* ahead_start(const char* path, FILE* file) {
    chrome_file_id id;
    ahead* a;
    if (!chrome_use_threads() || chrome_file_identify(fileno(file), &id) != 0 ||
        id.size < ahead_min() || id.size < 2 || (a = nvtxw_calloc(1, sizeof *a)) == NULL)
        return NULL;
    a->path = path;
    a->middle = id.size / 2;
    a->records_max = ahead_records();
    atomic_init(&a->stop, 0);
    pthread_mutex_init(&a->lock, NULL);
    pthread_cond_init(&a->found, NULL);
    if (pthread_create(&a->thread, NULL, ahead_main, a) != 0) {
        ahead_free(a);
        return NULL;
    }
    return a;
}

/* Stops the helper and drops its records. */
static void ahead_abandon(scan* s) {
    ahead* a = s->helper;
    if (a == NULL)
        return;
    atomic_store(&a->stop, 1);
    pthread_join(a->thread, NULL);
    ahead_free(a);
    s->helper = NULL;
}

/* Reads `len` bytes at `offset` of the scanned file into `out`. */
static int read_at(scan* s, uint64_t offset, size_t len, cj_buf* out) {
    size_t got = 0;
    out->len = 0;
    if (len > out->cap && cj_buf_grow(out, len) != 0)
        return -1;
    while (got < len) {
        ssize_t n = pread(fileno(s->file), out->data + got, len - got, (off_t)(offset + got));
        if (n <= 0)
            return -1;
        got += (size_t)n;
    }
    out->len = len;
    return 0;
}

/* One record, applied as take_event would have at that event. */
static int ahead_apply_record(scan* s, const ahead* a, const ahead_record* r, cj_buf* bytes) {
    chrome_import* im = s->im;
    uint32_t thread;
    im->event_index = s->events + r->local;
    im->event_offset = r->offset;
    if (r->tree)
        return read_at(s, r->offset, r->len, bytes) != 0
                   ? SCAN_ODD
                   : tree_event(s, (const unsigned char*)bytes->data, bytes->len);
    if (chrome_thread_by_key(im, a->keys.data + r->key, r->len, a->keys.data + r->key + r->len,
                             r->tid_len, &thread) != 0)
        return SCAN_ODD;
    im->threads[thread].last_seen = im->event_index;
    return SCAN_OK;
}

/* The helper's records into the import, in file order; then each of its
 * threads' last event, and the scan goes on where the helper stopped. */
static int ahead_apply(scan* s, const ahead* a) {
    chrome_import* im = s->im;
    cj_buf bytes = {NULL, 0, 0};
    int status = SCAN_OK;
    for (size_t i = 0; i < a->record_count && status == SCAN_OK; i++)
        status = ahead_apply_record(s, a, &a->records[i], &bytes);
    nvtxw_free(bytes.data);
    for (size_t i = 0; i < a->thread_count && status == SCAN_OK; i++) {
        const ahead_thread* t = &a->threads[i];
        uint64_t last = s->events + t->last_local;
        uint32_t thread;
        if (chrome_thread_by_key(im, a->keys.data + t->key, t->pid_len,
                                 a->keys.data + t->key + t->pid_len, t->tid_len, &thread) != 0)
            return SCAN_ODD;
        if (im->threads[thread].last_seen < last)
            im->threads[thread].last_seen = last;
    }
    if (status != SCAN_OK || fseeko(s->file, (off_t)a->end, SEEK_SET) != 0)
        return SCAN_ODD;
    s->events += a->events;
    if (a->longest > s->longest)
        s->longest = a->longest;
    s->base = a->end;
    s->pos = s->len = 0;
    s->eof = 0;
    return SCAN_OK;
}

/* At the start of an event: takes the helper's records when this is where
 * it started (AHEAD_TAKEN), drops them once the scan is past it. */
static int ahead_meet(scan* s) {
    ahead* a = s->helper;
    uint64_t here = s->base + s->pos, start;
    int status;
    if (here < a->middle)
        return SCAN_OK;
    if (!a->start_read) { /* once: then start is the calling thread's to read */
        pthread_mutex_lock(&a->lock);
        while (!a->start_known)
            pthread_cond_wait(&a->found, &a->lock);
        a->start_read = 1;
        pthread_mutex_unlock(&a->lock);
    }
    start = a->start;
    if (start == UINT64_MAX) { /* no start found, or the helper failed before it */
        ahead_abandon(s);
        return SCAN_OK;
    }
    if (here < start)
        return SCAN_OK;
    if (here > start) { /* its start was no event of this array */
        if (getenv("NVTXW_CHROME_SCAN_AHEAD_MIN") != NULL)
            fprintf(stderr, "%s: note: %s: scan ahead dropped: byte %llu was no event's start\n",
                    s->im->ctx->tool, s->im->path, (unsigned long long)start);
        ahead_abandon(s);
        return SCAN_OK;
    }
    pthread_join(a->thread, NULL);
    s->helper = NULL;
    status = a->status == SCAN_OK ? ahead_apply(s, a) : SCAN_OK;
    if (a->status == SCAN_OK && status == SCAN_OK)
        status = AHEAD_TAKEN;
    if (getenv("NVTXW_CHROME_SCAN_AHEAD_MIN") != NULL)
        fprintf(stderr, "%s: note: %s: scan ahead %s at byte %llu (%llu events, %zu records)\n",
                s->im->ctx->tool, s->im->path, status == AHEAD_TAKEN ? "taken" : "dropped",
                (unsigned long long)start, (unsigned long long)a->events,
                a->record_count + a->thread_count);
    ahead_free(a);
    return status;
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
        if (s->helper != NULL && (status = ahead_meet(s)) != SCAN_OK) {
            if (status != AHEAD_TAKEN)
                return status;
            if ((c = peek(s)) == ']') { /* the helper's last event was the array's */
                s->pos++;
                return SCAN_OK;
            }
            continue; /* an event the helper left, or the end of a truncated file */
        }
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
        s.helper = ahead_start(im->path, s.file);
        status = scan_document(&s);
        ahead_abandon(&s); /* not met (its start was no event), or the scan ended first */
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
