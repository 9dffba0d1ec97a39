/*
 * tests/unit/capture_sink_test.c - Sink=capture (docs/capture-format.md)
 * seen from a producer; also meant to run under TSan:
 *   - streams written from several threads at once: every line is whole,
 *     each stream keeps all its events in order (buffers flush many times);
 *   - the same single-threaded calls give byte-identical files;
 *   - payloads with pointers into the event are written relocated; a
 *     pointer into producer memory is refused with NOT_SUPPORTED and the
 *     session stays usable;
 *   - a batch event's string in flexData is written by value;
 *   - text that is not UTF-8 is written as U+FFFD, control bytes escaped.
 */
#define _GNU_SOURCE
#include <check.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvtxw/error.h"
#include "nvtxw/helpers.h"
#include "test_util.h"

#define THREADS 4
#define EVENTS 4000

static const nvtxwInterface_t* T;
static char dir[PATH_MAX];

static nvtxwSessionHandle_t begin(const char* name) {
    nvtxwSessionAttributes_t attr;
    nvtxwSessionHandle_t session = NULL;
    char config[PATH_MAX + 64];
    snprintf(config, sizeof config, "Sink=capture|Output=%s/%s|Overwrite=yes", dir, name);
    nvtxwSessionAttributesInit(&attr);
    attr.name = name;
    attr.configString = config;
    ck_assert_msg(T->SessionBegin(&attr, &session) == 0, "%s", nvtxw_last_error());
    return session;
}

static char* read_output(const char* name) {
    char path[PATH_MAX + 32];
    size_t size;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return tu_read_file_or_fail(path, &size);
}

typedef struct writer_arg {
    nvtxwEventWriter_t writer;
    int failed;
} writer_arg;

static void* writer_main(void* p) {
    writer_arg* arg = p;
    nvtxwEventAttributesUtf8_t utf8;
    char message[64];
    int i;
    memset(&utf8, 0, sizeof utf8);
    utf8.message = message;
    for (i = 0; i < EVENTS && !arg->failed; i++) {
        snprintf(message, sizeof message, "range %d with some text to fill the buffer", i);
        arg->failed = nvtxwRangePushPopWriteUtf8(&arg->writer, 10 * i, 10 * i + 5, utf8) != 0;
    }
    return NULL;
}

/* Checks that every line is one whole object and that stream wN's events
 * come in order, EVENTS of them. */
static void check_lines(char* text) {
    long next[THREADS] = {0};
    char* save = NULL;
    char* line;
    int i;
    for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        int stream;
        long begin;
        const char* ts;
        size_t length = strlen(line);
        ck_assert_msg(line[0] == '{' && line[length - 1] == '}', "broken line: %.80s", line);
        if (sscanf(line, "{\"stream\":\"w%d\",\"event\":", &stream) != 1)
            continue;
        ck_assert_int_lt(stream, THREADS);
        ts = strstr(line, "\"timestampBegin\":");
        ck_assert_ptr_nonnull(ts);
        begin = strtol(ts + 17, NULL, 10);
        ck_assert_int_eq(begin, 10 * next[stream]);
        next[stream]++;
    }
    for (i = 0; i < THREADS; i++)
        ck_assert_int_eq(next[i], EVENTS);
}

START_TEST(streams_on_threads) {
    nvtxwSessionHandle_t session = begin("threads.jsonl");
    nvtxDomainHandle_t domain;
    nvtxwEventHelperSchemaIds_t ids;
    pthread_t threads[THREADS];
    writer_arg args[THREADS];
    char* text;
    int i;
    ck_assert_int_eq(nvtxwDomainRegister(T, session, "d", &domain), 0);
    ck_assert_int_eq(nvtxwEventSchemasRegister(T, domain, NVTXW_EVENT_HELPER_SCHEMA_ALL, &ids), 0);
    memset(args, 0, sizeof args);
    for (i = 0; i < THREADS; i++) {
        nvtxwStreamHandle_t stream;
        char name[16];
        snprintf(name, sizeof name, "w%d", i);
        ck_assert_int_eq(nvtxwStreamOpen(T, session, name, domain, NULL, 0, &stream), 0);
        nvtxwEventWriterInit(&args[i].writer, T, stream, &ids);
        pthread_create(&threads[i], NULL, writer_main, &args[i]);
    }
    for (i = 0; i < THREADS; i++) {
        pthread_join(threads[i], NULL);
        ck_assert_int_eq(args[i].failed, 0);
    }
    ck_assert_msg(T->SessionEnd(session) == 0, "%s", nvtxw_last_error());
    text = read_output("threads.jsonl");
    ck_assert_msg(strncmp(text, "{\"nvtxw_capture\":1}\n{\"session\":\"threads.jsonl\"}\n", 48) ==
                      0,
                  "%.60s", text);
    check_lines(text);
    free(text);
}
END_TEST

static void write_session(const char* name) {
    nvtxwSessionHandle_t session = begin(name);
    nvtxDomainHandle_t domain;
    nvtxwEventHelperSchemaIds_t ids;
    writer_arg arg;
    nvtxwStreamHandle_t stream;
    ck_assert_int_eq(nvtxwDomainRegister(T, session, "d", &domain), 0);
    ck_assert_int_eq(nvtxwEventSchemasRegister(T, domain, NVTXW_EVENT_HELPER_SCHEMA_ALL, &ids), 0);
    ck_assert_int_eq(nvtxwStreamOpen(T, session, "w0", domain, NULL, 0, &stream), 0);
    memset(&arg, 0, sizeof arg);
    nvtxwEventWriterInit(&arg.writer, T, stream, &ids);
    writer_main(&arg);
    ck_assert_int_eq(arg.failed, 0);
    ck_assert_int_eq(T->StreamClose(stream), 0);
    ck_assert_int_eq(T->SessionEnd(session), 0);
}

START_TEST(deterministic) {
    char *a, *b;
    write_session("a.jsonl");
    write_session("b.jsonl");
    a = read_output("a.jsonl");
    b = read_output("b.jsonl");
    /* Only the session line differs (its name). */
    ck_assert_str_eq(strchr(strchr(a, '\n') + 1, '\n'), strchr(strchr(b, '\n') + 1, '\n'));
    free(a);
    free(b);
}
END_TEST

/* A static schema { p: POINTER to INT32, v: INT32 }, DEEP_COPY when asked. */
static uint64_t pointer_schema(nvtxDomainHandle_t domain, int deep_copy) {
    nvtxPayloadSchemaEntry_t entries[2];
    nvtxPayloadSchemaAttr_t attr;
    uint64_t id = 0;
    memset(entries, 0, sizeof entries);
    entries[0].type = NVTX_PAYLOAD_ENTRY_TYPE_INT32;
    entries[0].flags =
        NVTX_PAYLOAD_ENTRY_FLAG_POINTER | (deep_copy ? NVTX_PAYLOAD_ENTRY_FLAG_DEEP_COPY : 0);
    entries[0].name = "p";
    entries[1].type = NVTX_PAYLOAD_ENTRY_TYPE_INT32;
    entries[1].name = "v";
    memset(&attr, 0, sizeof attr);
    attr.fieldMask = NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES |
                     NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES |
                     NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_FLAGS;
    attr.type = NVTX_PAYLOAD_SCHEMA_TYPE_STATIC;
    attr.flags = deep_copy ? NVTX_PAYLOAD_SCHEMA_FLAG_DEEP_COPY : 0;
    attr.entries = entries;
    attr.numEntries = 2;
    ck_assert_msg(T->SchemaRegister(domain, &attr, &id) == 0, "%s", nvtxw_last_error());
    return id;
}

typedef struct pointer_data {
    const int32_t* p;
    int32_t v;
} pointer_data;

/* Pointers into the event's payloads are written relocated: the slot
 * zeroed in the hex, [AT, PAYLOAD, OFFSET] in "pointers"; a NULL pointer
 * has no item. */
START_TEST(pointer_relocated) {
    nvtxwSessionHandle_t session = begin("pointer.jsonl");
    nvtxDomainHandle_t domain;
    nvtxwStreamHandle_t stream;
    nvtxPayloadData_t payloads[2];
    pointer_data data, other;
    static const char text4[] = "abcd";
    uint64_t id;
    char *text, *line;
    ck_assert_int_eq(nvtxwDomainRegister(T, session, "d", &domain), 0);
    id = pointer_schema(domain, 0);
    ck_assert_int_eq(nvtxwStreamOpen(T, session, "w0", domain, NULL, 0, &stream), 0);
    memset(&data, 0, sizeof data);
    memset(&other, 0, sizeof other);
    data.v = 5;
    data.p = &other.v; /* into payload 1 */
    other.v = 7;
    other.p = &other.v; /* into its own payload */
    payloads[0] = (nvtxPayloadData_t){id, sizeof data, &data};
    payloads[1] = (nvtxPayloadData_t){id, sizeof other, &other};
    ck_assert_msg(T->EventWrite(stream, payloads, 2) == 0, "%s", nvtxw_last_error());
    other.p = NULL;
    ck_assert_msg(T->EventWrite(stream, &payloads[1], 1) == 0, "%s", nvtxw_last_error());
    /* With a C string whose size the tool measures (SIZE_MAX): written
     * as its measured bytes. */
    data.p = &data.v;
    payloads[1] = (nvtxPayloadData_t){NVTX_PAYLOAD_ENTRY_TYPE_CSTRING, SIZE_MAX, text4};
    ck_assert_msg(T->EventWrite(stream, payloads, 2) == 0, "%s", nvtxw_last_error());
    ck_assert_int_eq(T->SessionEnd(session), 0);
    text = read_output("pointer.jsonl");
    ck_assert_msg(strstr(text, "\"pointers\":[[0,0,8]]},{\"schema\":\"cstring\","
                               "\"hex\":\"6162636400\"}]}\n") != NULL,
                  "%s", text);
    line = sizeof(void*) == 8
               ? "{\"stream\":\"w0\",\"event\":[{\"schema\":4294967296,\"hex\":"
                 "\"00000000000000000500000000000000\",\"pointers\":[[0,1,8]]},"
                 "{\"schema\":4294967296,\"hex\":\"00000000000000000700000000000000\","
                 "\"pointers\":[[0,1,8]]}]}\n"
                 "{\"stream\":\"w0\",\"event\":[{\"schema\":4294967296,\"hex\":"
                 "\"00000000000000000700000000000000\"}]}\n"
               : "\"pointers\":[[0,1,4]]";
    ck_assert_msg(strstr(text, line) != NULL, "%s", text);
    free(text);
}
END_TEST

/* A DEEP_COPY pointer into the producer's memory cannot be captured: the
 * event is refused with NOT_SUPPORTED and the session stays usable. */
START_TEST(pointer_refused) {
    nvtxwSessionHandle_t session = begin("refused.jsonl");
    nvtxDomainHandle_t domain;
    nvtxwStreamHandle_t stream;
    nvtxPayloadData_t payload;
    static const int32_t outside = 9;
    pointer_data data;
    uint64_t id;
    ck_assert_int_eq(nvtxwDomainRegister(T, session, "d", &domain), 0);
    id = pointer_schema(domain, 1);
    ck_assert_int_eq(nvtxwStreamOpen(T, session, "w0", domain, NULL, 0, &stream), 0);
    memset(&data, 0, sizeof data);
    data.p = &outside;
    payload = (nvtxPayloadData_t){id, sizeof data, &data};
    ck_assert_int_eq(T->EventWrite(stream, &payload, 1), NVTXW_RESULT_NOT_SUPPORTED);
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "cannot write payload 0"));
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "outside the event's payloads"));
    data.p = &data.v;
    ck_assert_msg(T->EventWrite(stream, &payload, 1) == 0, "%s", nvtxw_last_error());
    ck_assert_int_eq(T->StreamClose(stream), 0);
    ck_assert_int_eq(T->SessionEnd(session), 0);
}
END_TEST

/* A schema of `type` holding pointer_schema's entries once, and an outer
 * static schema { ts: INT64, sel: UINT32 (the union's selector), in: that
 * schema, a FIXED_SIZE array of 2 when `fixed` }. Returns the outer ID. */
static uint64_t outer_schema(nvtxDomainHandle_t domain, uint64_t type, int fixed) {
    nvtxPayloadSchemaEntry_t inner[2], outer[3];
    nvtxPayloadSchemaAttr_t attr;
    uint64_t inner_id = 0, outer_id = 0;
    memset(inner, 0, sizeof inner);
    inner[0].type = NVTX_PAYLOAD_ENTRY_TYPE_INT32;
    inner[0].flags = NVTX_PAYLOAD_ENTRY_FLAG_POINTER;
    inner[0].name = "p";
    inner[1].type = NVTX_PAYLOAD_ENTRY_TYPE_INT32;
    inner[1].name = "v";
    memset(&attr, 0, sizeof attr);
    attr.fieldMask = NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES |
                     NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES;
    attr.type = type;
    attr.entries = inner;
    attr.numEntries = 2;
    ck_assert_msg(T->SchemaRegister(domain, &attr, &inner_id) == 0, "%s", nvtxw_last_error());
    memset(outer, 0, sizeof outer);
    outer[0].type = NVTX_PAYLOAD_ENTRY_TYPE_INT64;
    outer[0].name = "ts";
    outer[1].type = NVTX_PAYLOAD_ENTRY_TYPE_UINT32;
    outer[1].name = "sel";
    outer[2].type = inner_id;
    outer[2].name = "in";
    outer[2].flags = fixed ? NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_FIXED_SIZE : 0;
    outer[2].arrayOrUnionDetail = fixed ? 2 : 1; /* fixed: length; union: selector index */
    attr.type = NVTX_PAYLOAD_SCHEMA_TYPE_STATIC;
    attr.entries = outer;
    attr.numEntries = 3;
    ck_assert_msg(T->SchemaRegister(domain, &attr, &outer_id) == 0, "%s", nvtxw_last_error());
    return outer_id;
}

/* Pointers inside nested schemas by value, in a FIXED_SIZE array, are
 * relocated at their place in the payload; a pointer in a union member is
 * found only by parsing, so the event is refused. */
START_TEST(pointer_nested) {
    nvtxwSessionHandle_t session = begin("nested.jsonl");
    nvtxDomainHandle_t domain;
    nvtxwStreamHandle_t stream;
    nvtxPayloadData_t payload;
    uint64_t fixed_id, union_id;
    struct {
        int64_t ts;
        uint32_t sel;
        pointer_data in[2];
    } data;
    char* text;
    if (sizeof(void*) != 8)
        return; /* the offsets below are those of 64-bit platforms */
    ck_assert_int_eq(nvtxwDomainRegister(T, session, "d", &domain), 0);
    fixed_id = outer_schema(domain, NVTX_PAYLOAD_SCHEMA_TYPE_STATIC, 1);
    union_id = outer_schema(domain, NVTX_PAYLOAD_SCHEMA_TYPE_UNION, 0);
    ck_assert_int_eq(nvtxwStreamOpen(T, session, "w0", domain, NULL, 0, &stream), 0);
    memset(&data, 0, sizeof data);
    data.in[0].p = &data.in[1].v;
    data.in[1].p = &data.in[0].v;
    data.in[0].v = 1;
    data.in[1].v = 2;
    payload = (nvtxPayloadData_t){fixed_id, sizeof data, &data};
    ck_assert_msg(T->EventWrite(stream, &payload, 1) == 0, "%s", nvtxw_last_error());
    payload.schemaId = union_id;
    ck_assert_int_eq(T->EventWrite(stream, &payload, 1), NVTXW_RESULT_NOT_SUPPORTED);
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "it holds pointers in a union"));
    ck_assert_int_eq(T->SessionEnd(session), 0);
    text = read_output("nested.jsonl");
    ck_assert_msg(strstr(text, "\"hex\":\"00000000000000000000000000000000"
                               "00000000000000000100000000000000"
                               "00000000000000000200000000000000\","
                               "\"pointers\":[[16,0,40],[32,0,24]]}]}\n") != NULL,
                  "%s", text);
    free(text);
}
END_TEST

/* A batch event whose string lives in flexData: written by value, the
 * flexData itself left out. */
START_TEST(flex_data_by_value) {
    nvtxwSessionHandle_t session = begin("flex.jsonl");
    nvtxDomainHandle_t domain;
    nvtxwStreamHandle_t stream;
    nvtxPayloadSchemaEntry_t entries[2];
    nvtxPayloadSchemaAttr_t attr;
    nvtxEventBatch_t batch;
    uint64_t id = 0;
    static const char flex[] = "xxhello";
    struct {
        int64_t ts;
        const char* name;
    } event = {42, flex + 2};
    char* text;
    memset(entries, 0, sizeof entries);
    entries[0].type = NVTX_PAYLOAD_ENTRY_TYPE_INT64;
    entries[0].name = "ts";
    entries[1].type = NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF8;
    entries[1].flags = NVTX_PAYLOAD_ENTRY_FLAG_POINTER;
    entries[1].name = "name";
    memset(&attr, 0, sizeof attr);
    attr.fieldMask = NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES |
                     NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES |
                     NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NAME;
    attr.name = "named";
    attr.type = NVTX_PAYLOAD_SCHEMA_TYPE_STATIC;
    attr.entries = entries;
    attr.numEntries = 2;
    ck_assert_int_eq(nvtxwDomainRegister(T, session, "d", &domain), 0);
    ck_assert_msg(T->SchemaRegister(domain, &attr, &id) == 0, "%s", nvtxw_last_error());
    ck_assert_int_eq(nvtxwStreamOpen(T, session, "w0", domain, NULL, 0, &stream), 0);
    memset(&batch, 0, sizeof batch);
    batch.eventSchemaId = id;
    batch.size = sizeof event;
    batch.events = &event;
    batch.flexData = flex;
    batch.flexDataSize = sizeof flex;
    ck_assert_msg(T->EventBatchWrite(stream, &batch) == 0, "%s", nvtxw_last_error());
    ck_assert_int_eq(T->SessionEnd(session), 0);
    text = read_output("flex.jsonl");
    ck_assert_msg(strstr(text, "{\"stream\":\"w0\",\"event\":[{\"schema\":\"named\",\"ts\":42,"
                               "\"name\":\"hello\"}]}\n") != NULL,
                  "%s", text);
    free(text);
}
END_TEST

/* Registered text is not checked by the API; the capture stays UTF-8. */
START_TEST(strings_stay_json) {
    nvtxwSessionHandle_t session = begin("utf8.jsonl");
    nvtxDomainHandle_t domain;
    nvtxStringHandle_t handle;
    char* text;
    ck_assert_int_eq(nvtxwDomainRegister(T, session, "d", &domain), 0);
    ck_assert_int_eq(T->StringRegister(domain, "a\xff\xc3(b \xf0\x9f\x98\x80", &handle), 0);
    ck_assert_int_eq(T->CategoryRegister(domain, 1, "tab\there \"q\" \\ \x01"), 0);
    ck_assert_int_eq(T->SessionEnd(session), 0);
    text = read_output("utf8.jsonl");
    ck_assert_msg(strstr(text, "\"string\":\"a\\ufffd\\ufffd(b \xf0\x9f\x98\x80\",\"handle\":1}") !=
                      NULL,
                  "%s", text);
    ck_assert_msg(strstr(text, "\"name\":\"tab\\u0009here \\\"q\\\" \\\\ \\u0001\"}") != NULL, "%s",
                  text);
    free(text);
}
END_TEST

static void setup(void) { tu_make_temp_dir_or_fail(dir, sizeof dir, "nvtxw-capture"); }

static void teardown(void) { ck_assert_int_eq(tu_remove_tree(dir), 0); }

int main(void) {
    Suite* suite = suite_create("capture_sink");
    TCase* tc = tcase_create("capture");
    T = tu_get_interface();
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, streams_on_threads);
    tcase_add_test(tc, deterministic);
    tcase_add_test(tc, pointer_relocated);
    tcase_add_test(tc, pointer_refused);
    tcase_add_test(tc, pointer_nested);
    tcase_add_test(tc, flex_data_by_value);
    tcase_add_test(tc, strings_stay_json);
    suite_add_tcase(suite, tc);
    return tu_run_suite(suite);
}
