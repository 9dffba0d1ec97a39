/*
 * tools/replay/capture/capture_read.c - the capture's event stream: libyaml
 * events (capture_input.c feeds the parser) or the JSON Lines reader's
 * (capture_jsonl.c), the messages that name a position, and the checks and
 * conversions of scalars.
 */
#define _POSIX_C_SOURCE 200809L
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "capture_reader.h"
#include "tool_alloc.h"
#include "tool_interrupt.h"

/* ---- messages ---- */

static void vreport(capture_reader* r, size_t line, size_t column, const char* format,
                    va_list args) {
    fprintf(stderr, "%s: error: %s:%zu:%zu: ", r->ctx->tool, r->path, line, column);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    r->failed = 1;
}

static size_t mark_column(const capture_reader* r, yaml_mark_t mark) {
    if (r->jsonl)
        return mark.column >= 4 ? mark.column - 4 + 1 : 1;
    return mark.column + 1;
}

int capture_error(capture_reader* r, yaml_mark_t mark, const char* format, ...) {
    va_list args;
    if (tool_interrupted())
        return -1; /* the calls fail because the run was asked to stop; nothing to say */
    va_start(args, format);
    vreport(r, mark.line + 1, mark_column(r, mark), format, args);
    va_end(args);
    return -1;
}

/* "while parsing a flow mapping" -> "flow mapping". */
static const char* context_noun(const char* context) {
    if (strncmp(context, "while parsing a ", 16) == 0)
        return context + 16;
    if (strncmp(context, "while scanning a ", 17) == 0)
        return context + 17;
    return context;
}

/* A mark of libyaml's parser, counted from the file's first line. */
static yaml_mark_t parser_mark(const capture_reader* r, yaml_mark_t mark) {
    mark.line += r->line_base;
    return mark;
}

static int parser_error(capture_reader* r) {
    if (r->input_problem != NULL) {
        yaml_mark_t mark = r->event.end_mark;
        if (r->input_problem[0] == 'a' && r->has_event) /* token cap: where it starts */
            return capture_error(r, mark, "%s", r->input_problem);
        fprintf(stderr, "%s: error: %s:%zu:%zu: %s\n", r->ctx->tool, r->path, r->err_line,
                r->err_column, r->input_problem);
        r->failed = 1;
        return -1;
    }
    /* JSON Lines: a line that does not close what it opened fails at the
     * next line's injected "---" (or at the end): name the line itself. */
    if (r->jsonl && r->parser.context != NULL &&
        r->parser.problem_mark.line > r->parser.context_mark.line)
        return capture_error(r, parser_mark(r, r->parser.context_mark),
                             "line ends inside this %s (truncated or split line): %s",
                             context_noun(r->parser.context),
                             r->parser.problem ? r->parser.problem : "syntax error");
    if (r->parser.context != NULL)
        return capture_error(r, parser_mark(r, r->parser.problem_mark), "%s (%s at %zu:%zu)",
                             r->parser.problem ? r->parser.problem : "syntax error",
                             r->parser.context, r->parser.context_mark.line + r->line_base + 1,
                             mark_column(r, r->parser.context_mark));
    return capture_error(r, parser_mark(r, r->parser.problem_mark), "%s",
                         r->parser.problem ? r->parser.problem : "syntax error");
}

yaml_event_t* capture_own_event(capture_reader* r) {
    if (r->has_event && r->event_from_yaml)
        yaml_event_delete(&r->event);
    r->has_event = 1;
    r->event_from_yaml = 0;
    return &r->event;
}

int capture_yaml_next(capture_reader* r) {
    yaml_event_t next;
    if (!yaml_parser_parse(&r->parser, &next))
        return parser_error(r);
    next.start_mark.line += r->line_base;
    next.end_mark.line += r->line_base;
    *capture_own_event(r) = next;
    r->event_from_yaml = 1;
    r->since_event = 0;
    if (next.type == YAML_ALIAS_EVENT ||
        (next.type == YAML_SCALAR_EVENT && next.data.scalar.anchor != NULL) ||
        ((next.type == YAML_MAPPING_START_EVENT || next.type == YAML_SEQUENCE_START_EVENT) &&
         next.data.mapping_start.anchor != NULL))
        return CAPTURE_FAIL(r, "aliases and anchors are not supported");
    return 0;
}

int capture_next(capture_reader* r) {
    return r->jsonl ? capture_jsonl_next(r) : capture_yaml_next(r);
}

/* ---- open / close ---- */

/* JSON Lines when the first byte that is not blank is '{'. */
static int detect_jsonl(FILE* file) {
    int c;
    while ((c = getc(file)) == ' ' || c == '\t' || c == '\r' || c == '\n')
        ;
    rewind(file);
    return c == '{';
}

int capture_reader_open(capture_reader* r, const replay_input_ctx* ctx, const char* path) {
    const char* slash;
    memset(r, 0, sizeof *r);
    r->ctx = ctx;
    r->path = path;
    r->line = r->column = 1;
    if ((r->file = fopen(path, "rb")) == NULL) {
        fprintf(stderr, "%s: error: cannot open '%s': %s\n", ctx->tool, path, strerror(errno));
        return -1;
    }
    r->jsonl = detect_jsonl(r->file);
    slash = strrchr(path, '/');
    r->dir = slash ? nvtxw_strndup(path, (size_t)(slash - path)) : nvtxw_strdup(".");
    if (r->dir == NULL || capture_input_open(r) != 0 ||
        (r->jsonl ? capture_jsonl_open(r) : capture_yaml_start(r)) != 0) {
        if (!r->failed)
            fprintf(stderr, "%s: error: out of memory\n", ctx->tool);
        capture_reader_close(r);
        return -1;
    }
    return 0;
}

void capture_reader_close(capture_reader* r) {
    if (r->has_event && r->event_from_yaml)
        yaml_event_delete(&r->event);
    r->has_event = 0;
    capture_yaml_stop(r);
    capture_jsonl_close(r);
    capture_input_close(r);
    if (r->file != NULL)
        fclose(r->file);
    r->file = NULL;
    nvtxw_free(r->dir);
    r->dir = NULL;
}

/* ---- values ---- */

static const char* kind_name(yaml_event_type_t type) {
    switch (type) {
    case YAML_MAPPING_START_EVENT:
        return "a mapping";
    case YAML_SEQUENCE_START_EVENT:
        return "a list";
    default:
        return "the end of the line";
    }
}

int capture_is_plain(const capture_reader* r) {
    return r->event.type == YAML_SCALAR_EVENT &&
           r->event.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

int capture_expect_scalar(capture_reader* r, const char* what) {
    if (r->event.type != YAML_SCALAR_EVENT)
        return CAPTURE_FAIL(r, "wrong type for %s: expected a scalar, found %s", what,
                            kind_name(r->event.type));
    return 0;
}

static int wrong_number(capture_reader* r, const char* what, const char* expected) {
    if (r->event.type != YAML_SCALAR_EVENT)
        return CAPTURE_FAIL(r, "wrong type for %s: expected %s, found %s", what, expected,
                            kind_name(r->event.type));
    return CAPTURE_FAIL(r, "wrong type for %s: expected %s, found %s\"%.40s\"", what, expected,
                        capture_is_plain(r) ? "" : "the string ",
                        (const char*)r->event.data.scalar.value);
}

/* Parses decimal or 0x hex digits exactly to 64 bits (never through a
 * double); 1 = not a number, 2 = out of range. */
static int parse_u64(const char* s, uint64_t* out) {
    unsigned base = 10;
    uint64_t v = 0, limit;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && s[2] != '\0')
        base = 16, s += 2;
    if (*s == '\0')
        return 1;
    limit = UINT64_MAX / base; /* v * base + d fits while v < limit, or v == limit and d small */
    for (; *s != '\0'; s++) {
        unsigned d = (unsigned)(*s - '0');
        if (d > 9)
            d = *s >= 'a' && *s <= 'f'   ? (unsigned)(*s - 'a' + 10)
                : *s >= 'A' && *s <= 'F' ? (unsigned)(*s - 'A' + 10)
                                         : 99;
        if (d >= base)
            return 1;
        if (v > limit || (v == limit && d > UINT64_MAX % base))
            return 2;
        v = v * base + d;
    }
    *out = v;
    return 0;
}

int capture_u64(capture_reader* r, const char* what, uint64_t* out) {
    int status;
    if (!capture_is_plain(r))
        return wrong_number(r, what, "an unsigned integer");
    status = parse_u64((const char*)r->event.data.scalar.value, out);
    if (status == 2)
        return CAPTURE_FAIL(r, "value %s out of range for %s (maximum 18446744073709551615)",
                            (const char*)r->event.data.scalar.value, what);
    return status ? wrong_number(r, what, "an unsigned integer") : 0;
}

int capture_i64(capture_reader* r, const char* what, int64_t* out) {
    const char* s = (const char*)r->event.data.scalar.value;
    uint64_t v;
    int negative, status;
    if (!capture_is_plain(r))
        return wrong_number(r, what, "an integer");
    negative = s[0] == '-';
    status = parse_u64(s + negative, &v);
    if (status == 1)
        return wrong_number(r, what, "an integer");
    if (status == 2 || v > (uint64_t)INT64_MAX + (uint64_t)negative)
        return CAPTURE_FAIL(r, "value %s out of range for %s (a signed 64-bit integer)", s, what);
    *out = negative ? (int64_t)(0 - v) : (int64_t)v;
    return 0;
}

int capture_double(capture_reader* r, const char* what, double* out) {
    const char* s = (const char*)r->event.data.scalar.value;
    char* end;
    if (r->event.type != YAML_SCALAR_EVENT)
        return wrong_number(r, what, "a number");
    if (!strcmp(s, "inf") || !strcmp(s, ".inf") || !strcmp(s, "-inf") || !strcmp(s, "-.inf") ||
        !strcmp(s, "nan") || !strcmp(s, ".nan")) {
        *out = s[0] == '-' ? -INFINITY : s[strlen(s) - 1] == 'f' ? INFINITY : NAN;
        return 0;
    }
    if (!capture_is_plain(r) || s[0] == '\0' || strpbrk(s, "xXpP") != NULL)
        return wrong_number(r, what, "a number");
    errno = 0;
    *out = strtod(s, &end);
    if (*end != '\0')
        return wrong_number(r, what, "a number");
    return 0;
}

int capture_text(capture_reader* r, const char* what, const char** out) {
    if (capture_expect_scalar(r, what) != 0)
        return -1;
    if (strlen((const char*)r->event.data.scalar.value) != r->event.data.scalar.length)
        return CAPTURE_FAIL(r, "%s contains a NUL character", what);
    *out = (const char*)r->event.data.scalar.value;
    return 0;
}

static int hex_digit(char c) {
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

int capture_hex(capture_reader* r, const char* what, unsigned char** out, size_t* size) {
    const char* s;
    size_t length, i;
    if (capture_text(r, what, &s) != 0)
        return -1;
    length = strlen(s);
    if (length % 2 != 0)
        return CAPTURE_FAIL(r, "%s: odd number of hex digits", what);
    *out = nvtxw_malloc(length / 2 + 1);
    if (*out == NULL)
        return CAPTURE_FAIL(r, "out of memory");
    for (i = 0; i < length; i += 2) {
        int hi = hex_digit(s[i]), lo = hex_digit(s[i + 1]);
        if (hi < 0 || lo < 0) {
            nvtxw_free(*out);
            *out = NULL;
            return CAPTURE_FAIL(r, "%s: bad hex digit at offset %zu", what, i);
        }
        (*out)[i / 2] = (unsigned char)(hi << 4 | lo);
    }
    *size = length / 2;
    return 0;
}

int capture_skip(capture_reader* r) {
    int depth = 0;
    do {
        if (r->event.type == YAML_MAPPING_START_EVENT || r->event.type == YAML_SEQUENCE_START_EVENT)
            depth++;
        else if (r->event.type == YAML_MAPPING_END_EVENT ||
                 r->event.type == YAML_SEQUENCE_END_EVENT)
            depth--;
        if (depth > 0 && capture_next(r) != 0)
            return -1;
    } while (depth > 0);
    return 0;
}

/* ---- node -> JSON text ---- */

static int append(capture_reader* r, char** buf, size_t* length, size_t* capacity, const char* s,
                  size_t n) {
    if (*length + n + 1 > *capacity) {
        size_t want = *capacity ? *capacity * 2 : 256;
        char* grown;
        while (want < *length + n + 1)
            want *= 2;
        if (want > CAPTURE_MAX_PAYLOAD || (grown = nvtxw_realloc(*buf, want)) == NULL)
            return CAPTURE_FAIL(r, "inline definition too large");
        *buf = grown;
        *capacity = want;
    }
    memcpy(*buf + *length, s, n);
    *length += n;
    (*buf)[*length] = '\0';
    return 0;
}

/* A scalar as flow YAML: plain ones stay plain (so numbers stay numbers)
 * unless they hold flow indicators; others are double-quoted with JSON
 * escapes, which YAML reads the same. */
static int append_scalar(capture_reader* r, char** buf, size_t* length, size_t* capacity) {
    const char* s = (const char*)r->event.data.scalar.value;
    size_t n = r->event.data.scalar.length, i;
    if (capture_is_plain(r) && n > 0 && strcspn(s, ",[]{}#:\"'&*!|>%@`") == n)
        return append(r, buf, length, capacity, s, n);
    if (append(r, buf, length, capacity, "\"", 1) != 0)
        return -1;
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        char esc[8];
        int status;
        if (c == '"' || c == '\\')
            esc[0] = '\\', esc[1] = (char)c, status = append(r, buf, length, capacity, esc, 2);
        else if (c < 0x20) {
            snprintf(esc, sizeof esc, "\\u%04x", c);
            status = append(r, buf, length, capacity, esc, 6);
        } else
            status = append(r, buf, length, capacity, (const char*)&s[i], 1);
        if (status != 0)
            return -1;
    }
    return append(r, buf, length, capacity, "\"", 1);
}

int capture_node_json(capture_reader* r, char** buf, size_t* length, size_t* capacity) {
    /* need_comma[depth]: an item was written at that depth; in mappings,
     * keys and values alternate (odd count = a key is pending its value). */
    size_t count[64];
    int is_map[64];
    int depth = 0;
    do {
        yaml_event_type_t type = r->event.type;
        int status = 0;
        if (type == YAML_MAPPING_END_EVENT || type == YAML_SEQUENCE_END_EVENT) {
            depth--;
            status =
                append(r, buf, length, capacity, type == YAML_MAPPING_END_EVENT ? "}" : "]", 1);
        } else {
            if (depth > 0) {
                size_t c = count[depth - 1]++;
                const char* sep = is_map[depth - 1] ? (c % 2 ? ": "
                                                       : c   ? ", "
                                                             : "")
                                  : c               ? ", "
                                                    : "";
                status = append(r, buf, length, capacity, sep, strlen(sep));
            }
            if (status == 0 && type == YAML_SCALAR_EVENT)
                status = append_scalar(r, buf, length, capacity);
            else if (status == 0) {
                if (depth == 64)
                    return CAPTURE_FAIL(r, "nesting deeper than 64 levels");
                is_map[depth] = type == YAML_MAPPING_START_EVENT;
                count[depth++] = 0;
                status = append(r, buf, length, capacity, is_map[depth - 1] ? "{" : "[", 1);
            }
        }
        if (status != 0 || (depth > 0 && capture_next(r) != 0))
            return -1;
    } while (depth > 0);
    return 0;
}
