/*
 * tests/unit/report_semantics_test.c - NVTXW semantics the report sink must
 * keep, checked by reading the report back (spec 1.5, 2.4, 2.13, 2.15):
 * streams still open at SessionEnd, a stream closed and another opened,
 * handles of one session used with another's, counter batch timestamps,
 * POINTER entries into REFERENCED payloads and into a batch's flexData
 * (stored with origin addresses, resolved by nvtxw_reader_visit_event),
 * DEEP_COPY pointers into producer memory (rejected: a report stores bytes,
 * not addresses), SIZE_MAX C strings, registered strings in payloads, and
 * REFERENCED payloads without bytes (refused).
 */
#define _GNU_SOURCE
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nvtxw/backend.h"
#include "nvtxw/error.h"
#include "nvtxw/helpers.h"
#include "nvtxw/reader.h"
#include "nvtxw/resource.h"
#include "test_util.h"

static const nvtxwInterface_t* T;
static char dir[PATH_MAX];
static char path[PATH_MAX + 64];

#define ck_assert_ok(expr) ck_assert_msg((expr) == NVTXW_RESULT_SUCCESS, "%s", nvtxw_last_error())

static nvtxwSessionHandle_t begin(const char* name, nvtxDomainHandle_t* domain) {
    nvtxwSessionAttributes_t attr;
    nvtxwSessionHandle_t session = NULL;
    char config[PATH_MAX + 128];
    snprintf(path, sizeof path, "%s/%s.nvtxw", dir, name);
    snprintf(config, sizeof config, "Sink=report|Output=%s|Overwrite=yes", path);
    nvtxwSessionAttributesInit(&attr);
    attr.name = name;
    attr.configString = config;
    ck_assert_ok(T->SessionBegin(&attr, &session));
    ck_assert_ok(nvtxwDomainRegister(T, session, "sem", domain));
    return session;
}

static nvtxwStreamHandle_t open_stream(nvtxwSessionHandle_t s, nvtxDomainHandle_t d,
                                       const char* name) {
    nvtxwStreamHandle_t stream = NULL;
    ck_assert_ok(nvtxwStreamOpen(T, s, name, d, NULL, 0, &stream));
    return stream;
}

static nvtxw_reader_t* open_reader(void) {
    nvtxw_reader_options_t options;
    nvtxw_reader_t* reader = NULL;
    memset(&options, 0, sizeof options);
    options.struct_size = sizeof options;
    ck_assert_msg(nvtxw_reader_open(path, &options, &reader) == 0, "%s", nvtxw_last_error());
    ck_assert_uint_eq(nvtxw_reader_damage_count(reader), 0);
    return reader;
}

/* The next record of `kind`, or NULL at the end. */
static const nvtxw_record_t* next_of(nvtxw_reader_t* reader, nvtxw_record_kind_t kind) {
    const nvtxw_record_t* r;
    while (nvtxw_reader_next(reader, &r) == 0 && r != NULL) {
        if (r->kind == kind)
            return r;
    }
    return NULL;
}

static nvtxwResultCode_t write_int(nvtxwStreamHandle_t stream, int64_t value) {
    nvtxPayloadData_t payload = {NVTX_PAYLOAD_ENTRY_TYPE_INT64, sizeof value, &value};
    return T->EventWrite(stream, &payload, 1);
}

/* ---- Collecting visitor ------------------------------------------------------ */

typedef struct collected {
    char text[512]; /* strings and string handles, ';'-separated */
} collected;

static int collect_string(void* ctx, const char* utf8, size_t length) {
    collected* c = ctx;
    size_t used = strlen(c->text);
    snprintf(c->text + used, sizeof c->text - used, "%.*s;", (int)length, utf8);
    return 0;
}

static int collect_handle(void* ctx, uint64_t handle, const char* text) {
    (void)handle;
    return collect_string(ctx, text ? text : "(unknown)", strlen(text ? text : "(unknown)"));
}

static void visit(const nvtxw_reader_t* reader, const nvtxw_record_t* r, collected* out) {
    nvtxw_visitor_t visitor;
    memset(&visitor, 0, sizeof visitor);
    visitor.struct_size = sizeof visitor;
    visitor.on_string = collect_string;
    visitor.on_string_handle = collect_handle;
    memset(out, 0, sizeof *out);
    ck_assert_msg(nvtxw_reader_visit_event(reader, r, &visitor, out) == 0, "%s",
                  nvtxw_last_error());
}

/* ---- Streams ---------------------------------------------------------------- */

START_TEST(session_end_closes_open_streams) {
    nvtxDomainHandle_t d;
    nvtxwSessionHandle_t s = begin("open-at-end", &d);
    nvtxwStreamHandle_t a = open_stream(s, d, "a"), b = open_stream(s, d, "b");
    const nvtxw_record_t* r;
    nvtxw_reader_t* reader;
    int closes = 0, events[2] = {0, 0};
    ck_assert_ok(write_int(a, 1));
    ck_assert_ok(write_int(b, 2));
    ck_assert_ok(write_int(b, 3));
    ck_assert_ok(T->SessionEnd(s));
    reader = open_reader();
    while (nvtxw_reader_next(reader, &r) == 0 && r != NULL) {
        closes += r->kind == NVTXW_RECORD_STREAM_CLOSE;
        if (r->kind == NVTXW_RECORD_EVENT)
            events[r->stream]++;
    }
    ck_assert_int_eq(closes, 2);
    ck_assert_int_eq(events[0], 1);
    ck_assert_int_eq(events[1], 2);
    nvtxw_reader_close(reader);
}
END_TEST

START_TEST(stream_closed_then_new_name) {
    nvtxDomainHandle_t d;
    nvtxwSessionHandle_t s = begin("reopen", &d);
    nvtxwStreamHandle_t first = open_stream(s, d, "first"), again = NULL, second;
    const nvtxw_record_t* r;
    nvtxw_reader_t* reader;
    int64_t value;
    ck_assert_ok(write_int(first, 10));
    ck_assert_ok(T->StreamClose(first));
    ck_assert_int_eq(write_int(first, 11), NVTXW_RESULT_INVALID_ARGUMENT);
    /* Names stay unique among closed streams too: the report keeps both. */
    ck_assert_int_eq(nvtxwStreamOpen(T, s, "first", d, NULL, 0, &again),
                     NVTXW_RESULT_INVALID_ARGUMENT);
    second = open_stream(s, d, "second");
    ck_assert_ok(write_int(second, 20));
    ck_assert_ok(T->SessionEnd(s));
    reader = open_reader();
    ck_assert_uint_eq(nvtxw_reader_stream_count(reader), 2);
    r = next_of(reader, NVTXW_RECORD_STREAM_OPEN);
    ck_assert_str_eq(r->u.stream_open.name, "first");
    r = next_of(reader, NVTXW_RECORD_STREAM_OPEN);
    ck_assert_str_eq(r->u.stream_open.name, "second");
    r = next_of(reader, NVTXW_RECORD_EVENT);
    memcpy(&value, r->u.event.payloads[0].payload, sizeof value);
    ck_assert_int_eq(r->stream, 0);
    ck_assert_int_eq(value, 10);
    r = next_of(reader, NVTXW_RECORD_EVENT);
    memcpy(&value, r->u.event.payloads[0].payload, sizeof value);
    ck_assert_int_eq(r->stream, 1);
    ck_assert_int_eq(value, 20);
    ck_assert_ptr_null(next_of(reader, NVTXW_RECORD_EVENT));
    nvtxw_reader_close(reader);
}
END_TEST

/* Every call taking two handles (or a handle inside a payload or attr)
 * rejects a handle of another session. */
START_TEST(handles_of_another_session) {
    nvtxDomainHandle_t da, db;
    nvtxwSessionHandle_t a = begin("session-a", &da), b = begin("session-b", &db);
    nvtxwStreamHandle_t sa = open_stream(a, da, "sa"), st = NULL;
    nvtxwStreamAttributes_t sattr;
    nvtxStringHandle_t foreign;
    nvtxw_resource_attributes_t resource;
    nvtxPayloadData_t payload = {NVTX_PAYLOAD_ENTRY_TYPE_NVTX_REGISTERED_STRING_HANDLE,
                                 sizeof foreign, &foreign};
    ck_assert_ok(T->StringRegister(db, "of b", &foreign));
    nvtxwStreamAttributesInit(&sattr);
    sattr.name = "foreign-domain";
    sattr.domain = db;
    ck_assert_int_eq(T->StreamOpen(a, &sattr, &st), NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "another session"));
    ck_assert_ptr_null(st);
    ck_assert_int_eq(T->EventWrite(sa, &payload, 1), NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "not registered"));
    memset(&resource, 0, sizeof resource);
    resource.version = NVTXW_NVTX_VERSION;
    resource.size = sizeof resource;
    resource.identifierType = NVTXW_RESOURCE_TYPE_GENERIC_HANDLE;
    resource.messageType = NVTXW_MESSAGE_TYPE_REGISTERED;
    resource.message.registered = foreign;
    ck_assert_int_eq(T->ResourceRegister(da, (const nvtxResourceAttributes_t*)&resource),
                     NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_ok(T->SessionEnd(b));
    ck_assert_ok(T->SessionEnd(a));
}
END_TEST

/* ---- Counters ---------------------------------------------------------------- */

START_TEST(counter_batch_timestamps_read_back) {
    nvtxDomainHandle_t d;
    nvtxwSessionHandle_t s = begin("counters", &d);
    nvtxwStreamHandle_t st = open_stream(s, d, "c");
    int64_t values[3] = {7, 8, 9}, times[3] = {300, 100, 200}, value;
    nvtxCounterBatch_t batch;
    nvtxCounterAttr_t attr;
    uint64_t id;
    const nvtxw_record_t* r;
    nvtxw_reader_t* reader;
    int i;
    memset(&attr, 0, sizeof attr);
    attr.structSize = sizeof attr;
    attr.schemaId = NVTX_PAYLOAD_ENTRY_TYPE_INT64;
    attr.name = "count";
    ck_assert_ok(T->CounterRegister(d, &attr, &id));
    memset(&batch, 0, sizeof batch);
    batch.counterId = id;
    batch.counters = values;
    batch.countersSize = sizeof values;
    batch.timestamps = times;
    batch.timestampsSize = sizeof times;
    ck_assert_ok(T->CounterBatchWrite(st, &batch));
    ck_assert_ok(T->SessionEnd(s));
    reader = open_reader();
    for (i = 0; i < 3; i++) {
        r = next_of(reader, NVTXW_RECORD_COUNTER_SAMPLE);
        ck_assert_ptr_nonnull(r);
        ck_assert(r->has_timestamp);
        ck_assert_int_eq(r->timestamp, times[i]);
        ck_assert_uint_eq(r->u.counter_sample.counter_id, id);
        ck_assert_uint_eq(r->u.counter_sample.size, 8);
        memcpy(&value, r->u.counter_sample.data, sizeof value);
        ck_assert_int_eq(value, values[i]);
    }
    nvtxw_reader_close(reader);
}
END_TEST

/* ---- Pointers ------------------------------------------------------------------ */

typedef struct named_point {
    int64_t ts;
    const char* name;
} named_point;

static uint64_t pointer_schema(nvtxDomainHandle_t d, uint64_t extra_flags) {
    static nvtxPayloadSchemaEntry_t entries[2];
    nvtxPayloadSchemaAttr_t attr;
    uint64_t id = 0;
    memset(entries, 0, sizeof entries);
    entries[0].flags = NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP | NVTX_PAYLOAD_ENTRY_FLAG_MARK;
    entries[0].type = NVTX_PAYLOAD_ENTRY_TYPE_INT64;
    entries[0].name = "ts";
    entries[1].flags = NVTX_PAYLOAD_ENTRY_FLAG_POINTER |
                       NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_ZERO_TERMINATED | extra_flags;
    entries[1].type = NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF8;
    entries[1].name = "name";
    memset(&attr, 0, sizeof attr);
    attr.fieldMask = NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_FLAGS |
                     NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES |
                     NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES |
                     NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_STATIC_SIZE;
    attr.type = NVTX_PAYLOAD_SCHEMA_TYPE_STATIC;
    attr.flags = extra_flags ? NVTX_PAYLOAD_SCHEMA_FLAG_DEEP_COPY : 0;
    attr.entries = entries;
    attr.numEntries = 2;
    attr.payloadStaticSize = sizeof(named_point);
    ck_assert_ok(T->SchemaRegister(d, &attr, &id));
    return id;
}

START_TEST(pointer_into_referenced_payload) {
    nvtxDomainHandle_t d;
    nvtxwSessionHandle_t s = begin("referenced", &d);
    nvtxwStreamHandle_t st = open_stream(s, d, "p");
    uint64_t schema = pointer_schema(d, 0);
    char blob[32] = "xx-pointed-to";
    named_point point = {42, blob + 3};
    nvtxPayloadData_t payloads[2] = {{schema, sizeof point, &point},
                                     {NVTX_TYPE_PAYLOAD_SCHEMA_REFERENCED, sizeof blob, blob}};
    const nvtxw_record_t* r;
    nvtxw_reader_t* reader;
    collected c;
    ck_assert_ok(T->EventWrite(st, payloads, 2));
    memset(blob, 0, sizeof blob); /* the report holds a copy, not the address */
    ck_assert_ok(T->SessionEnd(s));
    reader = open_reader();
    r = next_of(reader, NVTXW_RECORD_EVENT);
    ck_assert_ptr_nonnull(r);
    ck_assert_ptr_nonnull(r->u.event.origins);
    ck_assert_int_eq(r->timestamp, 42);
    visit(reader, r, &c);
    ck_assert_str_eq(c.text, "pointed-to;");
    nvtxw_reader_close(reader);
}
END_TEST

/* Batch events point into flexData; its usable region starts at
 * flexDataOffset (spec 2.13). */
START_TEST(batch_pointers_into_flex_data) {
    nvtxDomainHandle_t d;
    nvtxwSessionHandle_t s = begin("flex", &d);
    nvtxwStreamHandle_t st = open_stream(s, d, "b");
    uint64_t schema = pointer_schema(d, 0);
    static const char names[] = "head\0alpha\0beta\0gamma";
    named_point points[3] = {{1, names + 5}, {2, names + 11}, {3, names + 16}};
    nvtxEventBatch_t batch;
    const nvtxw_record_t* r;
    nvtxw_reader_t* reader;
    collected c;
    int i;
    static const char* const expected[3] = {"alpha;", "beta;", "gamma;"};
    memset(&batch, 0, sizeof batch);
    batch.eventSchemaId = schema;
    batch.events = points;
    batch.size = sizeof points;
    batch.flexData = names;
    batch.flexDataOffset = 5;
    batch.flexDataSize = sizeof names - 5;
    ck_assert_ok(T->EventBatchWrite(st, &batch));
    ck_assert_ok(T->SessionEnd(s));
    reader = open_reader();
    for (i = 0; i < 3; i++) {
        r = next_of(reader, NVTXW_RECORD_EVENT);
        ck_assert_ptr_nonnull(r);
        ck_assert_int_eq(r->timestamp, i + 1);
        visit(reader, r, &c);
        ck_assert_str_eq(c.text, expected[i]);
    }
    nvtxw_reader_close(reader);
}
END_TEST

START_TEST(batch_pointer_outside_flex_data_rejected) {
    nvtxDomainHandle_t d;
    nvtxwSessionHandle_t s = begin("flex-bad", &d);
    nvtxwStreamHandle_t st = open_stream(s, d, "b");
    uint64_t schema = pointer_schema(d, 0);
    static const char names[] = "head\0alpha";
    named_point point = {1, names};
    nvtxEventBatch_t batch;
    memset(&batch, 0, sizeof batch);
    batch.eventSchemaId = schema;
    batch.events = &point;
    batch.size = sizeof point;
    batch.flexData = names;
    batch.flexDataOffset = 5; /* "head" is outside the usable region */
    batch.flexDataSize = sizeof names - 5;
    ck_assert_int_eq(T->EventBatchWrite(st, &batch), NVTXW_RESULT_INVALID_ARGUMENT);
    batch.flexDataOffset = SIZE_MAX;
    ck_assert_int_eq(T->EventBatchWrite(st, &batch), NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_ok(T->SessionEnd(s));
}
END_TEST

START_TEST(deep_copy_foreign_pointer_rejected) {
    nvtxDomainHandle_t d;
    nvtxwSessionHandle_t s = begin("deep-copy", &d);
    nvtxwStreamHandle_t st = open_stream(s, d, "p");
    uint64_t schema = pointer_schema(d, NVTX_PAYLOAD_ENTRY_FLAG_DEEP_COPY);
    named_point point = {1, "producer memory"};
    nvtxPayloadData_t payload = {schema, sizeof point, &point};
    ck_assert_int_eq(T->EventWrite(st, &payload, 1), NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_msg(strstr(nvtxw_last_error(), "pointer") != NULL, "%s", nvtxw_last_error());
    ck_assert_msg(strstr(nvtxw_last_error(), "stream \"p\"") != NULL, "%s", nvtxw_last_error());
    /* Not a fault: the session goes on. */
    ck_assert_ok(write_int(st, 1));
    ck_assert_ok(T->SessionEnd(s));
}
END_TEST

/* ---- Strings --------------------------------------------------------------------- */

START_TEST(size_max_strings_read_back) {
    nvtxDomainHandle_t d;
    nvtxwSessionHandle_t s = begin("size-max", &d);
    nvtxwStreamHandle_t st = open_stream(s, d, "s");
    static const uint16_t utf16[] = {'w', 'i', 'd', 'e', 0};
    nvtxPayloadData_t payloads[2] = {{NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF8, SIZE_MAX, "narrow"},
                                     {NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF16, SIZE_MAX, utf16}};
    const nvtxw_record_t* r;
    nvtxw_reader_t* reader;
    collected c;
    ck_assert_ok(T->EventWrite(st, payloads, 2));
    ck_assert_ok(T->SessionEnd(s));
    reader = open_reader();
    r = next_of(reader, NVTXW_RECORD_EVENT);
    ck_assert_ptr_nonnull(r);
    ck_assert_uint_eq(r->u.event.count, 2);
    ck_assert_uint_eq(r->u.event.payloads[0].size, 7);
    ck_assert_uint_eq(r->u.event.payloads[1].size, sizeof utf16);
    visit(reader, r, &c);
    ck_assert_str_eq(c.text, "narrow;wide;");
    nvtxw_reader_close(reader);
}
END_TEST

START_TEST(registered_strings_in_payloads) {
    nvtxDomainHandle_t d;
    nvtxwSessionHandle_t s = begin("registered", &d);
    nvtxwStreamHandle_t st = open_stream(s, d, "s");
    nvtxStringHandle_t h[2];
    nvtxPayloadData_t payload = {NVTX_PAYLOAD_ENTRY_TYPE_NVTX_REGISTERED_STRING_HANDLE, sizeof h,
                                 h};
    const nvtxw_record_t* r;
    nvtxw_reader_t* reader;
    collected c;
    ck_assert_ok(T->StringRegister(d, "one", &h[0]));
    ck_assert_ok(T->StringRegister(d, "two", &h[1]));
    ck_assert_ok(T->EventWrite(st, &payload, 1));
    ck_assert_ok(T->SessionEnd(s));
    reader = open_reader();
    r = next_of(reader, NVTXW_RECORD_EVENT);
    ck_assert_ptr_nonnull(r);
    ck_assert_str_eq(nvtxw_reader_string(reader, r->domain, (uint64_t)(uintptr_t)h[0]), "one");
    ck_assert_str_eq(nvtxw_reader_string(reader, r->domain, (uint64_t)(uintptr_t)h[1]), "two");
    visit(reader, r, &c);
    ck_assert_str_eq(c.text, "one;two;");
    nvtxw_reader_close(reader);
}
END_TEST

/* After refused events: the session is not faulty, a later event is
 * written, and the report holds it alone. */
static void expect_only_a_later_event(nvtxwSessionHandle_t s, nvtxwStreamHandle_t st) {
    nvtxw_reader_t* reader;
    ck_assert_ok(write_int(st, 7));
    ck_assert_ok(T->SessionEnd(s));
    reader = open_reader();
    ck_assert_ptr_nonnull(next_of(reader, NVTXW_RECORD_EVENT));
    ck_assert_ptr_null(next_of(reader, NVTXW_RECORD_EVENT));
    nvtxw_reader_close(reader);
}

/* A REFERENCED payload is bytes for pointers to land in: without a pointer,
 * or with SIZE_MAX (its length cannot be told), the event is refused with a
 * message, not stored (the report sink copies a payload's bytes). */
START_TEST(referenced_payload_without_bytes_refused) {
    nvtxDomainHandle_t d;
    nvtxwSessionHandle_t s = begin("referenced-bad", &d);
    nvtxwStreamHandle_t st = open_stream(s, d, "s");
    int64_t v = 5;
    char blob[16] = "no terminator!!";
    nvtxPayloadData_t null_ref[2] = {{NVTX_PAYLOAD_ENTRY_TYPE_INT64, 8, &v},
                                     {NVTX_TYPE_PAYLOAD_SCHEMA_REFERENCED, 64, NULL}};
    nvtxPayloadData_t unsized_ref[2] = {{NVTX_PAYLOAD_ENTRY_TYPE_INT64, 8, &v},
                                        {NVTX_TYPE_PAYLOAD_SCHEMA_REFERENCED, SIZE_MAX, blob}};
    ck_assert_int_eq(T->EventWrite(st, null_ref, 2), NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "payload pointer is NULL with size 64"));
    ck_assert_int_eq(T->EventWrite(st, unsized_ref, 2), NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "REFERENCED payload needs its size"));
    expect_only_a_later_event(s, st);
}
END_TEST

/* SIZE_MAX ("the tool finds the size") is for predefined C strings only: a
 * payload of a registered schema with it is refused, whatever the schema
 * (the helpers' STATIC header and their DYNAMIC inline message alike), and
 * nothing is read past the bytes the schema describes. */
START_TEST(size_max_of_a_schema_refused) {
    nvtxDomainHandle_t d;
    nvtxwSessionHandle_t s = begin("size-max-schema", &d);
    nvtxwStreamHandle_t st = open_stream(s, d, "s");
    nvtxwEventHelperSchemaIds_t ids;
    nvtxwEventRegStringPayload_t mark;
    char message[4] = {'a', 'b', 'c', 'd'}; /* no terminator */
    nvtxPayloadData_t header = {0, SIZE_MAX, &mark};
    nvtxPayloadData_t utf8[2] = {{0, 0, NULL}, {0, SIZE_MAX, message}};
    nvtxwRangeEventUtf8Payload_t range;
    ck_assert_ok(nvtxwEventSchemasRegister(T, d, NVTXW_EVENT_HELPER_SCHEMA_ALL, &ids));
    memset(&mark, 0, sizeof mark);
    header.schemaId = ids.markRegString;
    ck_assert_int_eq(T->EventWrite(st, &header, 1), NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "SIZE_MAX is only allowed"));
    memset(&range, 0, sizeof range);
    utf8[0].schemaId = ids.rangePushPopUtf8;
    utf8[0].size = sizeof range;
    utf8[0].payload = &range;
    utf8[1].schemaId = ids.eventMessageUtf8;
    ck_assert_int_eq(T->EventWrite(st, utf8, 2), NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "SIZE_MAX is only allowed"));
    expect_only_a_later_event(s, st);
}
END_TEST

/* ---- Suite ------------------------------------------------------------------------ */

static void setup(void) { tu_make_temp_dir_or_fail(dir, sizeof dir, "nvtxw-semantics"); }

static void teardown(void) { ck_assert_int_eq(tu_remove_tree(dir), 0); }

int main(void) {
    Suite* suite = suite_create("report_semantics");
    TCase* tc = tcase_create("semantics");
    T = tu_get_interface();
    if (T == NULL)
        return EXIT_FAILURE;
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, session_end_closes_open_streams);
    tcase_add_test(tc, stream_closed_then_new_name);
    tcase_add_test(tc, handles_of_another_session);
    tcase_add_test(tc, counter_batch_timestamps_read_back);
    tcase_add_test(tc, pointer_into_referenced_payload);
    tcase_add_test(tc, batch_pointers_into_flex_data);
    tcase_add_test(tc, batch_pointer_outside_flex_data_rejected);
    tcase_add_test(tc, deep_copy_foreign_pointer_rejected);
    tcase_add_test(tc, size_max_strings_read_back);
    tcase_add_test(tc, registered_strings_in_payloads);
    tcase_add_test(tc, referenced_payload_without_bytes_refused);
    tcase_add_test(tc, size_max_of_a_schema_refused);
    suite_add_tcase(suite, tc);
    return tu_run_suite(suite);
}
