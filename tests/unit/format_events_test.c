/*
 * tests/unit/format_events_test.c - the formatters' visitor callbacks driven
 * by scripted event sequences, for what the real visitor never produces:
 * invalid UTF-8, values handed over in unusual forms, broken event grammar
 * and nesting deeper than the fixed stack.
 *
 * The program is linked with the formatter sources and error.c instead of
 * libnvtxw; this file supplies nvtxw_payload_visit (running the current
 * script) and nvtxw_entry_type_name.
 */
#define _POSIX_C_SOURCE 200809L /* test_util.h */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nvtxw/error.h"
#include "nvtxw/format.h"
#include "test_util.h"

typedef int (*script_fn)(const nvtxw_visitor_t* v, void* ctx);
static script_fn script;

nvtxwResultCode_t nvtxw_payload_visit(const nvtxw_schema_registry_t* registry,
                                      const nvtxPayloadData_t* payloads, size_t count,
                                      const nvtxw_visitor_t* visitor, void* ctx,
                                      const nvtxw_visit_options_t* options) {
    (void)registry;
    (void)payloads;
    (void)count;
    (void)options;
    return script(visitor, ctx) == 0 ? NVTXW_RESULT_SUCCESS : NVTXW_RESULT_FAILED;
}

const char* nvtxw_entry_type_name(uint64_t type) {
    return type == NVTX_PAYLOAD_ENTRY_TYPE_INT32 ? "INT32" : NULL;
}

/* Calls a callback when the formatter has one; non-zero stops the script. */
#define CALL(member, ...)                                                                          \
    do {                                                                                           \
        if (v->member != NULL && v->member(ctx, __VA_ARGS__) != 0)                                 \
            return -1;                                                                             \
    } while (0)
#define CALL0(member)                                                                              \
    do {                                                                                           \
        if (v->member != NULL && v->member(ctx) != 0)                                              \
            return -1;                                                                             \
    } while (0)

static nvtxw_field_info_t field(const char* name, uint64_t type) {
    nvtxw_field_info_t info;

    memset(&info, 0, sizeof info);
    info.name = name;
    info.description = "";
    info.type = type;
    return info;
}

typedef struct sink {
    char data[8192];
    size_t size;
} sink_t;

static int sink_write(void* ctx, const char* data, size_t size) {
    sink_t* sink = ctx;

    ck_assert_uint_lt(sink->size + size, sizeof sink->data);
    memcpy(sink->data + sink->size, data, size);
    sink->size += size;
    sink->data[sink->size] = '\0';
    return 0;
}

static void expect(script_fn s, const char* json, const char* text) {
    sink_t out;

    script = s;
    memset(&out, 0, sizeof out);
    ck_assert_int_eq(nvtxw_payload_format_json(NULL, NULL, 1, NULL, sink_write, &out),
                     NVTXW_RESULT_SUCCESS);
    ck_assert_str_eq(out.data, json);
    memset(&out, 0, sizeof out);
    ck_assert_int_eq(nvtxw_payload_format_text(NULL, NULL, 1, NULL, sink_write, &out),
                     NVTXW_RESULT_SUCCESS);
    ck_assert_str_eq(out.data, text);
}

static void expect_failure(script_fn s, const char* problem) {
    char message[512];
    sink_t out;

    script = s;
    memset(&out, 0, sizeof out);
    ck_assert_int_eq(nvtxw_payload_format_json(NULL, NULL, 1, NULL, sink_write, &out),
                     NVTXW_RESULT_FAILED);
    snprintf(message, sizeof message, "cannot format payloads as JSON: %s", problem);
    ck_assert_str_eq(nvtxw_last_error(), message);
    ck_assert_int_eq(nvtxw_payload_format_text(NULL, NULL, 1, NULL, sink_write, &out),
                     NVTXW_RESULT_FAILED);
    snprintf(message, sizeof message, "cannot format payloads as text: %s", problem);
    ck_assert_str_eq(nvtxw_last_error(), message);
}

/* A payload with one field `name` of `type` whose value `value` produces. */
#define ONE_FIELD_SCRIPT(fn, name, type, value)                                                    \
    static int fn(const nvtxw_visitor_t* v, void* ctx) {                                           \
        nvtxw_field_info_t f = field(name, type);                                                  \
        CALL(begin_payloads, 1);                                                                   \
        CALL(payload_begin, 0, 0x1000000, 4, NULL);                                                \
        CALL(field_begin, &f);                                                                     \
        value;                                                                                     \
        CALL(field_end, &f);                                                                       \
        CALL(payload_end, 0);                                                                      \
        CALL0(end_payloads);                                                                       \
        return 0;                                                                                  \
    }

/* Bytes that start no well-formed sequence: lone continuation, overlong,
 * surrogate, above U+10FFFF, truncated. */
static const char bad_utf8[] = "a\x80"
                               "b\xc0\xaf"
                               "c\xed\xa0\x80"
                               "d\xf4\x90\x80\x80"
                               "e\xe2\x82";
ONE_FIELD_SCRIPT(script_bad_utf8, "s", NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF8,
                 CALL(on_string, bad_utf8, sizeof bad_utf8 - 1))

START_TEST(test_invalid_utf8) {
    expect(script_bad_utf8,
           "{\"count\":1,\"payloads\":[{\"index\":0,\"schemaId\":16777216,\"size\":4,"
           "\"schemaName\":null,\"fields\":{\"s\":\"a\\ufffdb\\ufffd\\ufffdc\\ufffd\\ufffd\\ufffd"
           "d\\ufffd\\ufffd\\ufffd\\ufffde\\ufffd\\ufffd\"}}]}",
           "[0] <schema_16777216>: s=\"a\\x80b\\xc0\\xafc\\xed\\xa0\\x80d\\xf4\\x90\\x80\\x80"
           "e\\xe2\\x82\"\n");
}
END_TEST

static const char all_controls[] = "\x01\x02\x08\x09\x0a\x0b\x0c\x0d\x1b\x1f\x7f\0!";
ONE_FIELD_SCRIPT(script_controls, "", NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF8,
                 CALL(on_string, all_controls, sizeof all_controls - 1))

START_TEST(test_controls) {
    expect(script_controls,
           "{\"count\":1,\"payloads\":[{\"index\":0,\"schemaId\":16777216,\"size\":4,"
           "\"schemaName\":null,\"fields\":{\"<field_0>\":\"\\u0001\\u0002\\b\\t\\n\\u000b\\f"
           "\\r\\u001b\\u001f\x7f\\u0000!\"}}]}",
           "[0] <schema_16777216>: <field_0>=\"\\x01\\x02\\x08\\t\\n\\x0b\\x0c\\r\\x1b\\x1f\\x7f"
           "\\x00!\"\n");
}
END_TEST

static const unsigned char address_bytes[8] = {0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11};
ONE_FIELD_SCRIPT(script_address_bytes, "a", NVTX_PAYLOAD_ENTRY_TYPE_ADDRESS,
                 CALL(on_bytes, address_bytes, sizeof address_bytes))
static const unsigned char color_bytes[4] = {0x10, 0x00, 0xff, 0x80};
ONE_FIELD_SCRIPT(script_color_bytes, "c", NVTX_PAYLOAD_ENTRY_TYPE_COLOR_ARGB,
                 CALL(on_bytes, color_bytes, sizeof color_bytes))

/* Text reads ADDRESS and COLOR_ARGB bytes as host-order integers. */
START_TEST(test_hex_bytes) {
    uint64_t address;
    uint32_t color;
    char text[128];

    memcpy(&address, address_bytes, sizeof address);
    memcpy(&color, color_bytes, sizeof color);
    snprintf(text, sizeof text, "[0] <schema_16777216>: a=0x%016llx\n",
             (unsigned long long)address);
    expect(script_address_bytes,
           "{\"count\":1,\"payloads\":[{\"index\":0,\"schemaId\":16777216,\"size\":4,"
           "\"schemaName\":null,\"fields\":{\"a\":\"0x8877665544332211\"}}]}",
           text);
    snprintf(text, sizeof text, "[0] <schema_16777216>: c=0x%08x\n", (unsigned)color);
    expect(script_color_bytes,
           "{\"count\":1,\"payloads\":[{\"index\":0,\"schemaId\":16777216,\"size\":4,"
           "\"schemaName\":null,\"fields\":{\"c\":\"0x1000ff80\"}}]}",
           text);
}
END_TEST

ONE_FIELD_SCRIPT(script_no_value, "n", NVTX_PAYLOAD_ENTRY_TYPE_INT32, (void)0)
ONE_FIELD_SCRIPT(script_null_string, "n", NVTX_PAYLOAD_ENTRY_TYPE_CSTRING, CALL(on_string, NULL, 0))

START_TEST(test_absent_values) {
    const char* json = "{\"count\":1,\"payloads\":[{\"index\":0,\"schemaId\":16777216,\"size\":4,"
                       "\"schemaName\":null,\"fields\":{\"n\":null}}]}";
    expect(script_no_value, json, "[0] <schema_16777216>: n=null\n");
    expect(script_null_string, json, "[0] <schema_16777216>: n=null\n");
}
END_TEST

/* Two payloads, the first one without fields; predefined type title. */
static int script_titles(const nvtxw_visitor_t* v, void* ctx) {
    nvtxw_field_info_t f = field("", NVTX_PAYLOAD_ENTRY_TYPE_INT32);

    CALL(begin_payloads, 3);
    CALL(payload_begin, 0, 0x1000000, 0, "");
    CALL(payload_end, 0);
    CALL(payload_begin, 2, NVTX_PAYLOAD_ENTRY_TYPE_INT32, 8, NULL);
    CALL(field_begin, &f);
    CALL(array_begin, 2);
    CALL(on_signed, -1);
    CALL(on_float, -NAN);
    CALL0(array_end);
    CALL(field_end, &f);
    CALL(payload_end, 2);
    CALL0(end_payloads);
    return 0;
}

START_TEST(test_titles) {
    expect(script_titles,
           "{\"count\":3,\"payloads\":[{\"index\":0,\"schemaId\":16777216,\"size\":0,"
           "\"schemaName\":null,\"fields\":{}},{\"index\":2,\"schemaId\":15,\"size\":8,"
           "\"schemaName\":null,\"fields\":{\"<field_0>\":[-1,\"nan\"]}}]}",
           "[0] <schema_16777216>:\n[2] INT32: <field_0>=[-1, nan]\n");
}
END_TEST

static int script_deep(const nvtxw_visitor_t* v, void* ctx) {
    nvtxw_field_info_t f = field("deep", NVTX_PAYLOAD_ENTRY_TYPE_INT32);
    int i;

    CALL(begin_payloads, 1);
    CALL(payload_begin, 0, 0x1000000, 4, "deep");
    CALL(field_begin, &f);
    for (i = 0; i < 100000; i++) {
        CALL(array_begin, 1);
        CALL(object_begin, 0x1000000);
        CALL(field_begin, &f);
    }
    return 0;
}

START_TEST(test_too_deep) {
    expect_failure(script_deep, "arrays and objects nested too deeply inside a payload");
}
END_TEST

ONE_FIELD_SCRIPT(script_two_values, "x", NVTX_PAYLOAD_ENTRY_TYPE_INT32, CALL(on_signed, 1);
                 CALL(on_signed, 2))
ONE_FIELD_SCRIPT(script_stray_end, "x", NVTX_PAYLOAD_ENTRY_TYPE_INT32, CALL0(array_end))
ONE_FIELD_SCRIPT(script_open_array, "x", NVTX_PAYLOAD_ENTRY_TYPE_INT32, CALL(array_begin, 1))

static int script_value_outside(const nvtxw_visitor_t* v, void* ctx) {
    CALL(begin_payloads, 1);
    CALL(on_signed, 1);
    return 0;
}

static int script_field_in_array(const nvtxw_visitor_t* v, void* ctx) {
    nvtxw_field_info_t f = field("x", NVTX_PAYLOAD_ENTRY_TYPE_INT32);

    CALL(begin_payloads, 1);
    CALL(payload_begin, 0, 0x1000000, 4, NULL);
    CALL(field_begin, &f);
    CALL(array_begin, 1);
    CALL(field_begin, &f);
    return 0;
}

static int script_unclosed_payload(const nvtxw_visitor_t* v, void* ctx) {
    CALL(begin_payloads, 1);
    CALL(payload_begin, 0, 0x1000000, 4, NULL);
    CALL0(end_payloads);
    return 0;
}

static int script_nested_payload(const nvtxw_visitor_t* v, void* ctx) {
    CALL(begin_payloads, 1);
    CALL(payload_begin, 0, 0x1000000, 4, NULL);
    CALL(payload_begin, 1, 0x1000000, 4, NULL);
    return 0;
}

/* Broken event grammar stops the walk instead of producing invalid output. */
START_TEST(test_grammar) {
    expect_failure(script_two_values, "value outside of a field or second value of a field");
    expect_failure(script_value_outside, "value outside of a payload");
    expect_failure(script_stray_end, "array_end or object_end without matching begin");
    expect_failure(script_open_array, "field_end without field_begin");
    expect_failure(script_field_in_array, "field_begin outside of an object");
    expect_failure(script_unclosed_payload, "end_payloads inside a payload");
    expect_failure(script_nested_payload, "payload_begin inside another payload");
}
END_TEST

static Suite* format_events_suite(void) {
    Suite* suite = suite_create("format_events");
    TCase* tcase = tcase_create("scripted");

    tcase_add_test(tcase, test_invalid_utf8);
    tcase_add_test(tcase, test_controls);
    tcase_add_test(tcase, test_hex_bytes);
    tcase_add_test(tcase, test_absent_values);
    tcase_add_test(tcase, test_titles);
    tcase_add_test(tcase, test_too_deep);
    tcase_add_test(tcase, test_grammar);
    suite_add_tcase(suite, tcase);
    return suite;
}

int main(void) { return tu_run_suite(format_events_suite()); }
