/*
 * tools/replay/capture/capture_input.c - capture bytes -> libyaml.
 *
 * The file is read into one buffer, which both parsers read from: libyaml
 * through its read handler (here), the JSON Lines reader a line at a time
 * (capture_jsonl.c). libyaml reads
 *   - YAML: the whole file as it is;
 *   - JSON Lines: one line at a time (the lines yajl does not take), with
 *     "--- " before it, so the line is a YAML document of its own (JSON is
 *     flow YAML), and the end of the stream after its newline. Marks on such
 *     lines are 4 columns right of the file's; capture_error takes them back.
 * The read handler checks UTF-8 and control bytes itself (libyaml would
 * report those by byte offset only) and refuses to hand over more than
 * CAPTURE_MAX_TOKEN bytes between two events: libyaml buffers a whole
 * scalar, so that is what bounds a 100 MB string. JSON writes characters
 * beyond U+FFFF as a surrogate pair "\uD83D\uDE00", which YAML does not
 * accept: the handler hands such a pair to libyaml as the one escape
 * "\U0001F600" (later columns of that line are then 2 off in libyaml's
 * messages).
 */
#define _POSIX_C_SOURCE 200809L
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "capture_reader.h"
#include "tool_alloc.h"

/* Bytes asked of fread at a time. */
#define INPUT_CHUNK ((size_t)64 << 10)

/* ---- the buffer ---- */

int capture_input_open(capture_reader* r) {
    r->in = nvtxw_malloc(INPUT_CHUNK);
    if (r->in == NULL)
        return -1;
    r->in_capacity = INPUT_CHUNK;
    r->in_pos = r->in_end = 0;
    r->in_eof = 0;
    return 0;
}

void capture_input_close(capture_reader* r) {
    nvtxw_free(r->in);
    r->in = NULL;
}

int capture_input_fill(capture_reader* r, size_t want) {
    size_t need = want > INPUT_CHUNK ? want + INPUT_CHUNK : INPUT_CHUNK;
    if (r->in_end - r->in_pos >= want || r->in_eof)
        return 0;
    if (r->in_pos > 0) {
        memmove(r->in, r->in + r->in_pos, r->in_end - r->in_pos);
        r->in_end -= r->in_pos;
        r->in_pos = 0;
    }
    if (r->in_capacity < need) {
        unsigned char* grown = nvtxw_realloc(r->in, need);
        if (grown == NULL)
            return -1;
        r->in = grown;
        r->in_capacity = need;
    }
    while (r->in_end < want && !r->in_eof) {
        size_t room = r->in_capacity - r->in_end;
        size_t got = fread(r->in + r->in_end, 1, room, r->file);
        r->in_end += got;
        if (got < room)
            r->in_eof = 1; /* end of file or error: take() tells which */
    }
    return 0;
}

/* ---- read handler ---- */

static int refuse(capture_reader* r, const char* problem, size_t column) {
    if (r->input_problem == NULL) {
        r->input_problem = problem;
        r->err_line = r->line;
        r->err_column = column;
    }
    return 0;
}

const char* capture_utf8_feed(capture_utf8* u, unsigned c) {
    if (u->needed > 0) {
        if ((c & 0xC0) != 0x80)
            return "invalid UTF-8";
        u->value = u->value << 6 | (c & 0x3F);
        if (--u->needed > 0)
            return NULL;
        if (u->value < u->min || u->value > 0x10FFFF || (u->value >= 0xD800 && u->value <= 0xDFFF))
            return "invalid UTF-8";
        if (u->value <= 0x9F && u->value != 0x85)
            return "control character in the input";
        return u->value == 0xFFFE || u->value == 0xFFFF
                   ? "noncharacter U+FFFE or U+FFFF in the input"
                   : NULL;
    }
    u->value = c;
    if (c < 0x80)
        return (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F
                   ? "control character in the input"
                   : NULL;
    if ((c & 0xE0) == 0xC0)
        u->needed = 1, u->min = 0x80, u->value = c & 0x1F;
    else if ((c & 0xF0) == 0xE0)
        u->needed = 2, u->min = 0x800, u->value = c & 0x0F;
    else if ((c & 0xF8) == 0xF0)
        u->needed = 3, u->min = 0x10000, u->value = c & 0x07;
    else
        return "invalid UTF-8";
    return NULL;
}

/* One byte of the input, through the position, UTF-8 and size checks;
 * EOF at the end or when refused (input_problem set). */
static int take(capture_reader* r) {
    const char* problem;
    int c, in_sequence;
    if (r->in_pos == r->in_end && capture_input_fill(r, 1) != 0) {
        refuse(r, "out of memory", r->column);
        return EOF;
    }
    if (r->in_pos == r->in_end) {
        if (ferror(r->file))
            refuse(r, "read error", r->column);
        else if (r->utf8.needed > 0)
            refuse(r, "invalid UTF-8 (sequence cut at the end of the file)", r->column);
        return EOF;
    }
    c = r->in[r->in_pos++];
    in_sequence = r->utf8.needed > 0;
    if ((problem = capture_utf8_feed(&r->utf8, (unsigned)c)) != NULL) {
        /* a sequence found wrong at a later byte is named at its first,
         * whose column is already counted */
        refuse(r, problem, in_sequence && r->column > 1 ? r->column - 1 : r->column);
        return EOF;
    }
    if (++r->since_event > CAPTURE_MAX_TOKEN) {
        refuse(r, "a token (string, key or number) longer than 16 MiB", r->column);
        return EOF;
    }
    if (c == '\n') {
        r->line++, r->column = 1;
        r->line_done = r->jsonl;
    } else if ((c & 0xC0) != 0x80)
        r->column++;
    return c;
}

int capture_hex4(const char* s, unsigned* value) {
    unsigned v = 0;
    int i;
    for (i = 0; i < 4; i++) {
        char c = s[i];
        unsigned d = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
                     : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                     : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
                                            : 16;
        if (d == 16)
            return -1;
        v = v << 4 | d;
    }
    *value = v;
    return 0;
}

/* After a backslash in a JSON line: reads the escape's bytes into carry
 * (never past the line's newline), turning a surrogate pair into one \U
 * escape. */
static void read_escape(capture_reader* r) {
    char* s = r->carry;
    size_t n = 1;
    unsigned high, low;
    int c;
    s[0] = '\\';
    while (n < 12 && !r->line_done && (c = take(r)) != EOF) {
        s[n++] = (char)c;
        if ((n == 2 && c != 'u') ||
            (n == 6 && (capture_hex4(s + 2, &high) || high < 0xD800 || high > 0xDBFF)) ||
            (n == 7 && c != '\\') || (n == 8 && c != 'u'))
            break;
    }
    if (n == 12 && capture_hex4(s + 8, &low) == 0 && low >= 0xDC00 && low <= 0xDFFF) {
        snprintf(s, sizeof r->carry, "\\U%08X", 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00));
        n = 10;
    }
    r->carry_length = n;
    r->carry_next = 0;
}

static int read_handler(void* data, unsigned char* buffer, size_t size, size_t* size_read) {
    capture_reader* r = data;
    size_t n = 0;
    *size_read = 0;
    while (n < size && r->input_problem == NULL) {
        int c;
        if (r->inject != NULL && *r->inject != '\0') {
            buffer[n++] = (unsigned char)*r->inject++;
            continue;
        }
        if (r->carry_next < r->carry_length) {
            buffer[n++] = (unsigned char)r->carry[r->carry_next++];
            continue;
        }
        if (r->line_done || (c = take(r)) == EOF)
            break;
        if (r->jsonl && c == '\\')
            read_escape(r);
        else
            buffer[n++] = (unsigned char)c;
    }
    if (r->input_problem != NULL)
        return 0;
    *size_read = n;
    return 1;
}

/* ---- libyaml's parser ---- */

int capture_yaml_start(capture_reader* r) {
    if (!yaml_parser_initialize(&r->parser)) {
        fprintf(stderr, "%s: error: out of memory\n", r->ctx->tool);
        r->failed = 1;
        return -1;
    }
    r->parser_live = 1;
    yaml_parser_set_input(&r->parser, read_handler, r);
    r->since_event = 0;
    r->carry_length = r->carry_next = 0;
    r->line_done = 0;
    r->inject = r->jsonl ? "--- " : NULL;
    r->line_base = r->line - 1;
    return 0;
}

void capture_yaml_stop(capture_reader* r) {
    if (r->parser_live)
        yaml_parser_delete(&r->parser);
    r->parser_live = 0;
}
