/*
 * tests/unit/capture_events_test.c - the JSON Lines reader of nvtxw-replay's
 * capture input (tools/replay/capture/capture_jsonl.c) against libyaml: every
 * case is read twice, by default (yajl for the lines it may take) and with
 * NVTXW_CAPTURE_PARSER=libyaml (every line through libyaml, as the reader did
 * before yajl), and the two event streams must be the same event for event:
 * type, line, column, scalar bytes and style, and where reading stops. Each
 * case also says how many lines yajl must take, so a fast path that never
 * runs, or one that takes a line libyaml would read differently, fails.
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture_reader.h"
#include "run_suite.h"

#define MAX_EVENTS 4096

typedef struct recorded {
    yaml_event_type_t type;
    size_t line, column;
    int plain;
    size_t length;
    char text[64]; /* the scalar's first bytes */
} recorded;

typedef struct reading {
    recorded events[MAX_EVENTS];
    size_t count;
    int status; /* 0: read to the end; -1: stopped at an error */
    size_t by_yajl, by_libyaml;
} reading;

static char path[64];

static void write_case(const char* text, size_t length) {
    FILE* f;
    strcpy(path, "/tmp/capture_events_XXXXXX");
    ck_assert_int_ge(mkstemp(path), 0);
    f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(text, 1, length, f), length);
    fclose(f);
}

/* Reads the case file to its STREAM_END or first error. */
static void read_events(const char* parser, reading* out) {
    static replay_input_ctx ctx = {.tool = "capture_events_test"};
    capture_reader r;
    if (parser != NULL)
        setenv("NVTXW_CAPTURE_PARSER", parser, 1);
    else
        unsetenv("NVTXW_CAPTURE_PARSER");
    memset(out, 0, sizeof *out);
    ck_assert_int_eq(capture_reader_open(&r, &ctx, path), 0);
    ck_assert_int_eq(r.jsonl, 1);
    for (;;) {
        recorded* e;
        if (capture_next(&r) != 0) {
            out->status = -1;
            break;
        }
        ck_assert_uint_lt(out->count, MAX_EVENTS);
        e = &out->events[out->count++];
        e->type = r.event.type;
        e->line = r.event.start_mark.line;
        e->column = r.event.start_mark.column;
        if (e->type == YAML_SCALAR_EVENT) {
            e->plain = r.event.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
            e->length = r.event.data.scalar.length;
            memcpy(e->text, r.event.data.scalar.value,
                   e->length < sizeof e->text ? e->length : sizeof e->text);
        }
        if (e->type == YAML_STREAM_END_EVENT)
            break;
    }
    out->by_yajl = r.lines_by_yajl;
    out->by_libyaml = r.lines_by_libyaml;
    capture_reader_close(&r);
}

static reading by_default, by_libyaml;

/* Reads `text` both ways and compares; `columns` 0 leaves columns out (a
 * surrogate pair: libyaml counts it as the one escape it is handed). */
static void check_case(const char* name, const char* text, size_t length, size_t yajl_lines,
                       int columns) {
    size_t i;
    write_case(text, length);
    read_events(NULL, &by_default);
    read_events("libyaml", &by_libyaml);
    unlink(path);
    ck_assert_msg(by_default.by_yajl == yajl_lines, "%s: %zu lines through yajl, expected %zu",
                  name, by_default.by_yajl, yajl_lines);
    ck_assert_msg(by_libyaml.by_yajl == 0, "%s: NVTXW_CAPTURE_PARSER=libyaml used yajl", name);
    ck_assert_msg(by_default.status == by_libyaml.status, "%s: status %d by default, %d by libyaml",
                  name, by_default.status, by_libyaml.status);
    ck_assert_msg(by_default.count == by_libyaml.count, "%s: %zu events by default, %zu by libyaml",
                  name, by_default.count, by_libyaml.count);
    for (i = 0; i < by_default.count; i++) {
        const recorded *a = &by_default.events[i], *b = &by_libyaml.events[i];
        ck_assert_msg(a->type == b->type, "%s: event %zu: type %d vs %d", name, i, a->type,
                      b->type);
        if (a->type == YAML_STREAM_START_EVENT || a->type == YAML_DOCUMENT_START_EVENT ||
            a->type == YAML_DOCUMENT_END_EVENT)
            continue; /* marks nobody reads: libyaml's depend on the next line */
        ck_assert_msg(a->line == b->line && (!columns || a->column == b->column),
                      "%s: event %zu (type %d): at %zu:%zu by default, %zu:%zu by libyaml", name, i,
                      a->type, a->line, a->column, b->line, b->column);
        if (a->type == YAML_SCALAR_EVENT)
            ck_assert_msg(a->plain == b->plain && a->length == b->length &&
                              memcmp(a->text, b->text, sizeof a->text) == 0,
                          "%s: event %zu: scalar \"%.*s\" (plain %d) vs \"%.*s\" (plain %d)", name,
                          i, (int)a->length, a->text, a->plain, (int)b->length, b->text, b->plain);
    }
}

#define CASE(name, text, yajl_lines) check_case(name, text, sizeof text - 1, yajl_lines, 1)

#define HEAD "{\"nvtxw_capture\":1}\n"

START_TEST(test_json_lines_by_yajl) {
    CASE("plain", HEAD "{\"domain\":\"\",\"stream_open\":\"s\"}\n", 2);
    CASE("spaces", HEAD "  { \"a\" : [ 1 , -2.5e+3 , true , false , null ] ,\"b\":{} }  \n", 2);
    CASE("numbers", HEAD "{\"a\":[0,-0,1e5,1.5E-3,18446744073709551616,123456789012345678901]}\n",
         2);
    CASE("no final newline", HEAD "{\"a\":1}", 2);
    CASE("CRLF", "{\"nvtxw_capture\":1}\r\n{\"a\":1}\r\n", 2);
    CASE("empty lines", "\n\n" HEAD "\n\n{\"a\":1}\n\n", 2);
    CASE("top-level list", HEAD "[{\"a\":1},{\"b\":[2,[3,{}]]}]\n", 2);
    CASE("UTF-8 columns", HEAD "{\"é\":\"ü😀€\",\"x\":\"abc\",\"y\":5}\n", 2);
    CASE("escapes", HEAD "{\"a\":\"\\\"q\\\" \\\\ \\/ \\b\\f\\n\\r\\t \\u00e9\\u0001 \\u0000x\"}\n",
         2);
    CASE("escaped backslash before u", HEAD "{\"a\":\"\\\\ud83d\"}\n", 2);
    CASE("key of 900 bytes",
         HEAD "{\"k12345678901234567890123456789012345678901234567890123456789012345678901234567890"
              "12345678901234567890123456789012345678901234567890123456789012345678901234567890"
              "12345678901234567890123456789012345678901234567890123456789012345678901234567890"
              "12345678901234567890123456789012345678901234567890123456789012345678901234567890"
              "12345678901234567890123456789012345678901234567890123456789012345678901234567890"
              "12345678901234567890123456789012345678901234567890123456789012345678901234567890"
              "12345678901234567890123456789012345678901234567890123456789012345678901234567890"
              "12345678901234567890123456789012345678901234567890123456789012345678901234567890"
              "12345678901234567890123456789012345678901234567890123456789012345678901234567890"
              "12345678901234567890123456789012345678901234567890123456789012345678901234567890"
              "12345678901234567890123456789012345678901234567890123456789012345678901234567890"
              "\":1}\n",
         2);
    /* a pair is one escape to libyaml: its columns after it are 2 less */
    check_case("surrogate pair", HEAD "{\"a\":\"\\ud83d\\ude00\",\"b\":1}\n",
               sizeof HEAD "{\"a\":\"\\ud83d\\ude00\",\"b\":1}\n" - 1, 2, 0);
}
END_TEST

/* Lines libyaml must read: yajl would read them otherwise, or not at all. */
START_TEST(test_lines_left_to_libyaml) {
    CASE("lone high surrogate", HEAD "{\"a\":\"\\ud83d x\"}\n", 1);
    CASE("lone low surrogate", HEAD "{\"a\":\"\\ude00\"}\n", 1);
    CASE("two high surrogates", HEAD "{\"a\":\"\\ud83d\\ud83d\"}\n", 1);
    CASE("two low surrogates", HEAD "{\"a\":\"\\ude00\\ude00\"}\n", 1);
    CASE("tab between tokens", HEAD "{\"a\":\t1}\n{\"b\":2}\n", 2);
    CASE("tab in a string", HEAD "{\"a\":\"x\ty\"}\n", 1);
    CASE("CR inside a line", HEAD "{\"a\":1,\r\"b\":2}\n", 1);
    CASE("NEL", HEAD "{\"a\":\"x\xc2\x85y\"}\n", 1);
    CASE("C1 control", HEAD "{\"a\":\"x\xc2\x9fy\"}\n", 1);
    CASE("DEL", HEAD "{\"a\":\"x\x7fy\"}\n", 1);
    CASE("line separator", HEAD "{\"a\":\"x\xe2\x80\xa8y\"}\n", 1);
    CASE("BOM inside", HEAD "{\"a\":\"x\xef\xbb\xbfy\"}\n", 1);
    CASE("noncharacter", HEAD "{\"a\":\"x\xef\xbf\xbey\"}\n", 1);
    CASE("invalid UTF-8", HEAD "{\"a\":\"\xff\"}\n{\"b\":1}\n", 1);
    CASE("control byte", HEAD "{\"a\":\"\x01\"}\n", 1);
    CASE("two values", HEAD "{\"a\":1} {\"b\":2}\n", 1);
    CASE("trailing garbage", HEAD "{\"a\":1} x\n", 1);
    CASE("trailing number", HEAD "{\"a\":1} 5\n{\"b\":2}\n", 1);
    CASE("top-level scalar", HEAD "5\n\"abc\"\ntrue\n", 1);
    CASE("flow YAML", HEAD "{a: 1, 'b': [x, y]}\n{\"c\":0x10}\n", 1);
    CASE("blanks only", HEAD "   \n{\"a\":1}\n", 2);
    CASE("comment", HEAD "# a comment\n{\"a\":1}\n", 2);
    CASE("truncated line", HEAD "{\"a\":[1\n{\"b\":2}\n", 1);
    CASE("truncated last line", HEAD "{\"a\":[1", 1);
    CASE("unterminated string", HEAD "{\"a\":\"x}\n{\"b\":2}\n", 1);
    CASE("backslash at the end", HEAD "{\"a\":\"x\\\n{\"b\":2}\n", 1);
    CASE("CR at the end of the file", HEAD "{\"a\":1}\r", 1);
}
END_TEST

/* A key of 1,000 bytes or more up to its value, and lines over 1 MiB. */
START_TEST(test_long_keys_and_lines) {
    size_t key = 1100, huge = (size_t)3 << 20;
    char* text = malloc(huge + 64);
    size_t n = 0;
    ck_assert_ptr_nonnull(text);
    n += (size_t)sprintf(text, "%s{\"", HEAD);
    memset(text + n, 'k', key);
    n += key;
    n += (size_t)sprintf(text + n, "\":1}\n{\"a\":2}\n");
    check_case("long key", text, n, 1, 1); /* libyaml refuses the key: reading stops there */
    n = (size_t)sprintf(text, "%s{\"a\":\"", HEAD);
    memset(text + n, 'x', huge);
    n += huge;
    n += (size_t)sprintf(text + n, "\"}\n{\"b\":2}\n");
    check_case("3 MiB line", text, n, 2, 1);
    free(text);
}
END_TEST

static Suite* capture_events_suite(void) {
    Suite* s = suite_create("capture_events");
    TCase* tc = tcase_create("both_parsers");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_json_lines_by_yajl);
    tcase_add_test(tc, test_lines_left_to_libyaml);
    tcase_add_test(tc, test_long_keys_and_lines);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(capture_events_suite()); }
