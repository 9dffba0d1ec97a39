/*
 * tests/unit/helpers_test.c - the inline helpers of nvtxw/helpers.h (spec
 * 4.3-4.6; conformance items 47-51) against the recording backend
 * libmockbackend, loaded through nvtxwLoadInterface.
 *
 * Expected schemas and payload bytes are written out from the spec's numbers
 * (flags 14336, offsets, sizes...), not derived from the header's own
 * structs, so a wrong layout in the header cannot confirm itself.
 */
#define _GNU_SOURCE /* setenv, realpath */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "loader_test_util.h"
#include "nvtxw/helpers.h"
#include "test_util.h"

static const nvtxwInterface_t* iface;
static nvtxwModuleHandle_t module;
static const mock_log_t* mlog;
static char domain_storage, stream_storage, session_storage;
#define DOMAIN ((nvtxDomainHandle_t)&domain_storage)
#define STREAM ((nvtxwStreamHandle_t)&stream_storage)
#define SESSION ((nvtxwSessionHandle_t)&session_storage)

static void load_mock(void) {
    unsetenv(NVTXW_LIBRARY_ENV_VAR);
    ck_assert_int_eq(nvtxwLoadInterface(backend_path("libmockbackend"), &iface, &module),
                     NVTXW_RESULT_SUCCESS);
    mlog = mock_log_of(module);
}

static void unload_mock(void) { nvtxwUnload(module); }

static void reset_mock(void) {
    mock_backend_reset_t reset;
    void* address = must_dlsym(module, "mock_backend_reset");
    memcpy(&reset, &address, sizeof reset);
    reset();
}

static const mock_call_t* call_at(size_t index) {
    ck_assert_uint_lt(index, mlog->callCount);
    return &mlog->calls[index];
}

/* ------------------------------------------------------ spec 4.3 table */

typedef struct expected_entry {
    uint64_t flags;
    uint64_t type;
    const char* name;
    uint64_t offset;
} expected_entry_t;

typedef struct expected_schema {
    uint64_t flags;
    uint64_t type;
    size_t staticSize;
    size_t numEntries;
    expected_entry_t entries[5];
} expected_schema_t;

#define TS(role, name, offset)                                                                     \
    { 2048 | (role), 17, name, offset }
#define COLOR(offset)                                                                              \
    { 0, 69, "color", offset }
#define CATEGORY(offset)                                                                           \
    { 0, 68, "category", offset }
#define RANGEID                                                                                    \
    { 0, 67, "rangeId", 0 }
#define MSGREG(offset)                                                                             \
    { 1024, 80, "message", offset }
#define MARK 12288
#define BEGIN 4096
#define END 8192

static const expected_schema_t expected_schemas[13] = {
    {32, 1, 16, 3, {TS(MARK, "timestamp", 0), COLOR(8), CATEGORY(12)}},
    {32, 1, 24, 4, {TS(MARK, "timestamp", 0), COLOR(8), CATEGORY(12), MSGREG(16)}},
    {16,
     1,
     24,
     4,
     {TS(BEGIN, "timestampBegin", 0), TS(END, "timestampEnd", 8), COLOR(16), CATEGORY(20)}},
    {16,
     1,
     32,
     5,
     {TS(BEGIN, "timestampBegin", 0), TS(END, "timestampEnd", 8), COLOR(16), CATEGORY(20),
      MSGREG(24)}},
    {24,
     1,
     24,
     4,
     {TS(BEGIN, "timestampBegin", 0), TS(END, "timestampEnd", 8), COLOR(16), CATEGORY(20)}},
    {24,
     1,
     32,
     5,
     {TS(BEGIN, "timestampBegin", 0), TS(END, "timestampEnd", 8), COLOR(16), CATEGORY(20),
      MSGREG(24)}},
    {40, 1, 16, 3, {TS(BEGIN, "timestamp", 0), COLOR(8), CATEGORY(12)}},
    {40, 1, 24, 4, {TS(BEGIN, "timestamp", 0), COLOR(8), CATEGORY(12), MSGREG(16)}},
    {48, 1, 8, 1, {TS(END, "timestamp", 0)}},
    {56, 1, 24, 4, {RANGEID, TS(BEGIN, "timestamp", 8), COLOR(16), CATEGORY(20)}},
    {56, 1, 32, 5, {RANGEID, TS(BEGIN, "timestamp", 8), COLOR(16), CATEGORY(20), MSGREG(24)}},
    {64, 1, 16, 2, {RANGEID, TS(END, "timestamp", 8)}},
    {0, 2, 0, 1, {{1056, 76, "message", 0}}}};

/* Mask bits whose schemas also register the shared message schema. */
#define UTF8_BITS 0x255u

/* Compares one recorded SchemaRegister call with spec 4.3 entry `index`. */
static void expect_schema(const mock_call_t* call, size_t index) {
    const expected_schema_t* want = &expected_schemas[index];
    const nvtxPayloadSchemaAttr_t* got = &call->schemaAttr;

    ck_assert_str_eq(call->member, "SchemaRegister");
    ck_assert_ptr_eq(call->handle, DOMAIN);
    ck_assert_int_eq(call->outIsNull, 0);
    ck_assert_uint_eq(got->fieldMask, 0x7C);
    ck_assert_int_eq(call->hasText, 0); /* no name */
    ck_assert_uint_eq(got->type, want->type);
    ck_assert_uint_eq(got->flags, want->flags);
    ck_assert_uint_eq(got->numEntries, want->numEntries);
    ck_assert_uint_eq(got->payloadStaticSize, want->staticSize);
    ck_assert_uint_eq(got->packAlign, 0);
    ck_assert_uint_eq(got->schemaId, 0);
    ck_assert_ptr_null(got->extension);
    for (size_t i = 0; i < want->numEntries; ++i) {
        const mock_entry_t* e = &call->entries[i];
        ck_assert_msg(e->entry.flags == want->entries[i].flags, "schema %zu entry %zu flags", index,
                      i);
        ck_assert_uint_eq(e->entry.type, want->entries[i].type);
        ck_assert_str_eq(e->name, want->entries[i].name);
        ck_assert_int_eq(e->hasDescription, 0);
        ck_assert_uint_eq(e->entry.arrayOrUnionDetail, 0);
        ck_assert_uint_eq(e->entry.offset, want->entries[i].offset);
        ck_assert_ptr_null(e->entry.semantics);
        ck_assert_ptr_null(e->entry.reserved);
    }
}

static void ids_as_array(const nvtxwEventHelperSchemaIds_t* ids, uint64_t out[13]) {
    memcpy(out, ids, 13 * sizeof out[0]);
}

START_TEST(schemas_register_all_makes_13_calls) {
    nvtxwEventHelperSchemaIds_t ids;
    uint64_t got[13];

    memset(&ids, 0xFF, sizeof ids);
    ck_assert_int_eq(nvtxwEventSchemasRegister(iface, DOMAIN, NVTXW_EVENT_HELPER_SCHEMA_ALL, &ids),
                     NVTXW_RESULT_SUCCESS);
    ck_assert_uint_eq(mlog->callCount, 13);
    ids_as_array(&ids, got);
    for (size_t i = 0; i < 13; ++i) {
        expect_schema(call_at(i), i);
        ck_assert_uint_ne(got[i], 0);
        ck_assert_uint_eq(got[i], call_at(i)->assignedId);
    }
}
END_TEST

START_TEST(schemas_register_single_bits) {
    for (unsigned bit = 0; bit < 12; ++bit) {
        nvtxwEventHelperSchemaIds_t ids;
        uint64_t got[13];
        int utf8 = (UTF8_BITS >> bit) & 1u;

        reset_mock();
        memset(&ids, 0xFF, sizeof ids);
        ck_assert_int_eq(nvtxwEventSchemasRegister(iface, DOMAIN, 1u << bit, &ids),
                         NVTXW_RESULT_SUCCESS);
        ck_assert_uint_eq(mlog->callCount, utf8 ? 2 : 1);
        expect_schema(call_at(0), bit);
        if (utf8)
            expect_schema(call_at(1), 12);
        ids_as_array(&ids, got);
        for (unsigned i = 0; i < 13; ++i) {
            int selected = i == bit || (i == 12 && utf8);
            ck_assert_msg((got[i] != 0) == selected, "bit %u: id %u", bit, i);
        }
    }
}
END_TEST

START_TEST(schemas_register_counts_of_spec) {
    nvtxwEventHelperSchemaIds_t ids;

    ck_assert_int_eq(
        nvtxwEventSchemasRegister(iface, DOMAIN, NVTXW_EVENT_HELPER_SCHEMA_MARK_UTF8, &ids),
        NVTXW_RESULT_SUCCESS);
    ck_assert_uint_eq(mlog->callCount, 2);
    reset_mock();
    ck_assert_int_eq(
        nvtxwEventSchemasRegister(iface, DOMAIN, NVTXW_EVENT_HELPER_SCHEMA_MARK_REG_STRING, &ids),
        NVTXW_RESULT_SUCCESS);
    ck_assert_uint_eq(mlog->callCount, 1);
    reset_mock();
    ck_assert_int_eq(nvtxwEventSchemasRegister(iface, DOMAIN, 0x3, &ids), NVTXW_RESULT_SUCCESS);
    ck_assert_uint_eq(mlog->callCount, 3);
}
END_TEST

START_TEST(schemas_register_rejects_bad_arguments) {
    nvtxwEventHelperSchemaIds_t ids;
    nvtxwInterface_t partial = *iface;

    partial.SchemaRegister = NULL;
    ck_assert_int_eq(nvtxwEventSchemasRegister(iface, DOMAIN, 0, &ids),
                     NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_int_eq(nvtxwEventSchemasRegister(iface, DOMAIN, 1u << 12, &ids),
                     NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_int_eq(nvtxwEventSchemasRegister(iface, DOMAIN, 0xFFFu | (1u << 12), &ids),
                     NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_int_eq(nvtxwEventSchemasRegister(iface, DOMAIN, 0x80000000u, &ids),
                     NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_int_eq(nvtxwEventSchemasRegister(NULL, DOMAIN, 1, &ids),
                     NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_int_eq(nvtxwEventSchemasRegister(&partial, DOMAIN, 1, &ids),
                     NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_int_eq(nvtxwEventSchemasRegister(iface, NULL, 1, &ids),
                     NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_int_eq(nvtxwEventSchemasRegister(iface, DOMAIN, 1, NULL),
                     NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_uint_eq(mlog->callCount, 0);
    /* linked with libnvtxw: a refused helper call leaves a message */
    ck_assert_msg(strstr(nvtxw_last_error(), "cannot call nvtxwEventSchemasRegister: one of "
                                             "these holds: iface == NULL,") != NULL,
                  "%s", nvtxw_last_error());
}
END_TEST

/* Write helpers refused before any backend call say which and why. */
START_TEST(refused_write_helpers_leave_a_message) {
    nvtxwEventAttributes_t attr = {0, 0, 0};
    nvtxwEventWriter_t empty;
    memset(&empty, 0, sizeof empty);
    ck_assert_int_eq(nvtxwRangePushWrite(NULL, 5, attr), NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_str_eq(nvtxw_last_error(), "cannot call nvtxwRangePushWrite: writer == NULL");
    ck_assert_int_eq(nvtxwRangePopWrite(&empty, 6), NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_msg(strstr(nvtxw_last_error(), "cannot call an event write helper: one of these "
                                             "holds: the writer has no table") != NULL,
                  "%s", nvtxw_last_error());
    ck_assert_int_eq(nvtxwCounterInt64Write(iface, NULL, 1, 2, 3), NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_msg(strstr(nvtxw_last_error(), "cannot call nvtxwCounterInt64Write:") != NULL &&
                      strstr(nvtxw_last_error(), "stream == NULL") != NULL,
                  "%s", nvtxw_last_error());
    ck_assert_uint_eq(mlog->callCount, 0);
}
END_TEST

START_TEST(schemas_register_stops_at_first_failure) {
    nvtxwEventHelperSchemaIds_t ids;
    uint64_t got[13];

    mock_set_result(module, "SchemaRegister", NVTXW_RESULT_NOT_SUPPORTED);
    memset(&ids, 0xFF, sizeof ids);
    ck_assert_int_eq(nvtxwEventSchemasRegister(iface, DOMAIN, NVTXW_EVENT_HELPER_SCHEMA_ALL, &ids),
                     NVTXW_RESULT_NOT_SUPPORTED);
    ck_assert_uint_eq(mlog->callCount, 1);
    ids_as_array(&ids, got);
    for (size_t i = 0; i < 13; ++i)
        ck_assert_uint_eq(got[i], 0);
}
END_TEST

/* ------------------------------------------------- writes (spec 4.4) */

static nvtxwEventWriter_t writer;

/* Registers ALL schemas and builds `writer` on STREAM; clears the log. */
static void setup_writer(void) {
    nvtxwEventHelperSchemaIds_t ids;

    load_mock();
    ck_assert_int_eq(nvtxwEventSchemasRegister(iface, DOMAIN, NVTXW_EVENT_HELPER_SCHEMA_ALL, &ids),
                     NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(nvtxwEventWriterInit(&writer, iface, STREAM, &ids), NVTXW_RESULT_SUCCESS);
    reset_mock();
}

static void put32(unsigned char* bytes, size_t offset, uint32_t value) {
    memcpy(bytes + offset, &value, sizeof value);
}

static void put64(unsigned char* bytes, size_t offset, uint64_t value) {
    memcpy(bytes + offset, &value, sizeof value);
}

/* The last call must be EventWrite on STREAM with `count` payloads, the
 * first one {schemaId, size, bytes}. */
static const mock_call_t* expect_event(size_t count, uint64_t schemaId, const unsigned char* bytes,
                                       size_t size) {
    const mock_call_t* call = call_at(mlog->callCount - 1);

    ck_assert_uint_eq(mlog->callCount, 1);
    ck_assert_str_eq(call->member, "EventWrite");
    ck_assert_ptr_eq(call->handle, STREAM);
    ck_assert_uint_eq(call->payloadCount, count);
    ck_assert_uint_eq(call->payloads[0].schemaId, schemaId);
    ck_assert_uint_eq(call->payloads[0].size, size);
    ck_assert_mem_eq(call->payloads[0].bytes, bytes, size);
    return call;
}

/* The message payload {eventMessageUtf8, size, pointer}. */
static void expect_message(const mock_call_t* call, const void* pointer, const char* text,
                           size_t size) {
    ck_assert_uint_eq(call->payloads[1].schemaId, writer.schemaIds.eventMessageUtf8);
    ck_assert_uint_eq(call->payloads[1].size, size);
    ck_assert_ptr_eq(call->payloads[1].pointer, pointer);
    ck_assert_mem_eq(call->payloads[1].bytes, text, size);
}

#define TS1 INT64_C(0x1122334455667788)
#define TS2 INT64_C(-5)
#define RID UINT64_C(0xA1A2A3A4A5A6A7A8)
#define COLOR_ARGB 0xFF00FF00u
#define CAT 7u

static nvtxwEventAttributesUtf8_t utf8_attr(const char* message, uint32_t length) {
    nvtxwEventAttributesUtf8_t a;
    memset(&a, 0, sizeof a);
    a.color = COLOR_ARGB;
    a.category = CAT;
    a.message = message;
    a.messageLength = length;
    return a;
}

static nvtxwEventAttributes_t reg_attr(void) {
    nvtxwEventAttributes_t a;
    a.color = COLOR_ARGB;
    a.category = CAT;
    a.message = (nvtxStringHandle_t)&domain_storage;
    return a;
}

START_TEST(write_mark_utf8) {
    static const char message[] = "hello";
    unsigned char want[16] = {0};
    const mock_call_t* call;

    put64(want, 0, (uint64_t)TS1);
    put32(want, 8, COLOR_ARGB);
    put32(want, 12, CAT);
    ck_assert_int_eq(nvtxwMarkWriteUtf8(&writer, TS1, utf8_attr(message, 0)), NVTXW_RESULT_SUCCESS);
    call = expect_event(2, writer.schemaIds.markUtf8, want, 16);
    expect_message(call, message, "hello", 5); /* no terminator sent */
}
END_TEST

START_TEST(write_utf8_message_length_used_verbatim) {
    static const char message[] = "coverage-plus-trailing-bytes";

    ck_assert_int_eq(nvtxwMarkWriteUtf8(&writer, 1, utf8_attr(message, 8)), NVTXW_RESULT_SUCCESS);
    expect_message(call_at(0), message, "coverage", 8);
}
END_TEST

START_TEST(write_utf8_null_or_empty_message_sends_one_nul) {
    const mock_call_t* call;

    ck_assert_int_eq(nvtxwMarkWriteUtf8(&writer, 1, utf8_attr(NULL, 0)), NVTXW_RESULT_SUCCESS);
    call = call_at(0);
    ck_assert_uint_eq(call->payloadCount, 2);
    ck_assert_uint_eq(call->payloads[1].schemaId, writer.schemaIds.eventMessageUtf8);
    ck_assert_uint_eq(call->payloads[1].size, 1);
    ck_assert_int_eq(call->payloads[1].bytes[0], '\0');
    reset_mock();
    ck_assert_int_eq(nvtxwMarkWriteUtf8(&writer, 1, utf8_attr("", 0)), NVTXW_RESULT_SUCCESS);
    ck_assert_uint_eq(call_at(0)->payloads[1].size, 1);
    ck_assert_int_eq(call_at(0)->payloads[1].bytes[0], '\0');
    /* A NULL message with a length is still "no message". */
    reset_mock();
    ck_assert_int_eq(nvtxwMarkWriteUtf8(&writer, 1, utf8_attr(NULL, 9)), NVTXW_RESULT_SUCCESS);
    ck_assert_uint_eq(call_at(0)->payloads[1].size, 1);
}
END_TEST

START_TEST(write_mark_reg_string) {
    unsigned char want[24] = {0};
    nvtxwEventAttributes_t a = reg_attr();

    put64(want, 0, (uint64_t)TS1);
    put32(want, 8, COLOR_ARGB);
    put32(want, 12, CAT);
    memcpy(want + 16, &a.message, 8);
    ck_assert_int_eq(nvtxwMarkWrite(&writer, TS1, a), NVTXW_RESULT_SUCCESS);
    expect_event(1, writer.schemaIds.markRegString, want, 24);
}
END_TEST

/* Expected header of the complete-range UTF-8 schemas (24 bytes). */
static void range_utf8_bytes(unsigned char want[24]) {
    memset(want, 0, 24);
    put64(want, 0, (uint64_t)TS1);
    put64(want, 8, (uint64_t)TS2);
    put32(want, 16, COLOR_ARGB);
    put32(want, 20, CAT);
}

static void range_reg_bytes(unsigned char want[32], nvtxStringHandle_t message) {
    memset(want, 0, 32);
    range_utf8_bytes(want);
    memcpy(want + 24, &message, 8);
}

START_TEST(write_range_push_pop_utf8) {
    unsigned char want[24];
    const mock_call_t* call;

    range_utf8_bytes(want);
    ck_assert_int_eq(nvtxwRangePushPopWriteUtf8(&writer, TS1, TS2, utf8_attr("range", 0)),
                     NVTXW_RESULT_SUCCESS);
    call = expect_event(2, writer.schemaIds.rangePushPopUtf8, want, 24);
    ck_assert_uint_eq(call->payloads[1].size, 5);
    ck_assert_mem_eq(call->payloads[1].bytes, "range", 5);
}
END_TEST

START_TEST(write_range_push_pop_reg_string) {
    unsigned char want[32];
    nvtxwEventAttributes_t a = reg_attr();

    range_reg_bytes(want, a.message);
    ck_assert_int_eq(nvtxwRangePushPopWrite(&writer, TS1, TS2, a), NVTXW_RESULT_SUCCESS);
    expect_event(1, writer.schemaIds.rangePushPopRegString, want, 32);
}
END_TEST

START_TEST(write_range_start_end_utf8) {
    unsigned char want[24];
    const mock_call_t* call;

    range_utf8_bytes(want);
    ck_assert_int_eq(nvtxwRangeStartEndWriteUtf8(&writer, TS1, TS2, utf8_attr("se", 0)),
                     NVTXW_RESULT_SUCCESS);
    call = expect_event(2, writer.schemaIds.rangeStartEndUtf8, want, 24);
    ck_assert_uint_eq(call->payloads[1].size, 2);
}
END_TEST

START_TEST(write_range_start_end_reg_string) {
    unsigned char want[32];
    nvtxwEventAttributes_t a = reg_attr();

    range_reg_bytes(want, a.message);
    ck_assert_int_eq(nvtxwRangeStartEndWrite(&writer, TS1, TS2, a), NVTXW_RESULT_SUCCESS);
    expect_event(1, writer.schemaIds.rangeStartEndRegString, want, 32);
}
END_TEST

START_TEST(write_range_push_utf8) {
    unsigned char want[16] = {0};
    const mock_call_t* call;

    put64(want, 0, (uint64_t)TS1);
    put32(want, 8, COLOR_ARGB);
    put32(want, 12, CAT);
    ck_assert_int_eq(nvtxwRangePushWriteUtf8(&writer, TS1, utf8_attr("push", 0)),
                     NVTXW_RESULT_SUCCESS);
    call = expect_event(2, writer.schemaIds.rangePushUtf8, want, 16);
    ck_assert_mem_eq(call->payloads[1].bytes, "push", 4);
}
END_TEST

START_TEST(write_range_push_reg_string) {
    unsigned char want[24] = {0};
    nvtxwEventAttributes_t a = reg_attr();

    put64(want, 0, (uint64_t)TS1);
    put32(want, 8, COLOR_ARGB);
    put32(want, 12, CAT);
    memcpy(want + 16, &a.message, 8);
    ck_assert_int_eq(nvtxwRangePushWrite(&writer, TS1, a), NVTXW_RESULT_SUCCESS);
    expect_event(1, writer.schemaIds.rangePushRegString, want, 24);
}
END_TEST

START_TEST(write_range_pop) {
    unsigned char want[8];

    put64(want, 0, (uint64_t)TS2);
    ck_assert_int_eq(nvtxwRangePopWrite(&writer, TS2), NVTXW_RESULT_SUCCESS);
    expect_event(1, writer.schemaIds.rangePop, want, 8);
}
END_TEST

START_TEST(write_range_start_utf8) {
    unsigned char want[24] = {0};
    const mock_call_t* call;

    put64(want, 0, RID);
    put64(want, 8, (uint64_t)TS1);
    put32(want, 16, COLOR_ARGB);
    put32(want, 20, CAT);
    ck_assert_int_eq(nvtxwRangeStartWriteUtf8(&writer, TS1, RID, utf8_attr("start", 0)),
                     NVTXW_RESULT_SUCCESS);
    call = expect_event(2, writer.schemaIds.rangeStartUtf8, want, 24);
    ck_assert_mem_eq(call->payloads[1].bytes, "start", 5);
}
END_TEST

START_TEST(write_range_start_reg_string) {
    unsigned char want[32] = {0};
    nvtxwEventAttributes_t a = reg_attr();

    put64(want, 0, RID);
    put64(want, 8, (uint64_t)TS1);
    put32(want, 16, COLOR_ARGB);
    put32(want, 20, CAT);
    memcpy(want + 24, &a.message, 8);
    ck_assert_int_eq(nvtxwRangeStartWrite(&writer, TS1, RID, a), NVTXW_RESULT_SUCCESS);
    expect_event(1, writer.schemaIds.rangeStartRegString, want, 32);
}
END_TEST

START_TEST(write_range_end) {
    unsigned char want[16];

    put64(want, 0, RID);
    put64(want, 8, (uint64_t)TS2);
    ck_assert_int_eq(nvtxwRangeEndWrite(&writer, TS2, RID), NVTXW_RESULT_SUCCESS);
    expect_event(1, writer.schemaIds.rangeEnd, want, 16);
}
END_TEST

START_TEST(write_backend_result_forwarded) {
    mock_set_result(module, "EventWrite", NVTXW_RESULT_NOT_SUPPORTED);
    ck_assert_int_eq(nvtxwRangePopWrite(&writer, 1), NVTXW_RESULT_NOT_SUPPORTED);
    ck_assert_int_eq(nvtxwMarkWriteUtf8(&writer, 1, utf8_attr("x", 0)), NVTXW_RESULT_NOT_SUPPORTED);
}
END_TEST

/* Every write helper once: one EventWrite each. */
static void write_all(const nvtxwEventWriter_t* w, nvtxwResultCode_t expected) {
    nvtxwEventAttributesUtf8_t u = utf8_attr("m", 0);
    nvtxwEventAttributes_t r = reg_attr();

    ck_assert_int_eq(nvtxwMarkWriteUtf8(w, 1, u), expected);
    ck_assert_int_eq(nvtxwMarkWrite(w, 1, r), expected);
    ck_assert_int_eq(nvtxwRangePushPopWriteUtf8(w, 1, 2, u), expected);
    ck_assert_int_eq(nvtxwRangePushPopWrite(w, 1, 2, r), expected);
    ck_assert_int_eq(nvtxwRangeStartEndWriteUtf8(w, 1, 2, u), expected);
    ck_assert_int_eq(nvtxwRangeStartEndWrite(w, 1, 2, r), expected);
    ck_assert_int_eq(nvtxwRangePushWriteUtf8(w, 1, u), expected);
    ck_assert_int_eq(nvtxwRangePushWrite(w, 1, r), expected);
    ck_assert_int_eq(nvtxwRangePopWrite(w, 2), expected);
    ck_assert_int_eq(nvtxwRangeStartWriteUtf8(w, 1, 9, u), expected);
    ck_assert_int_eq(nvtxwRangeStartWrite(w, 1, 9, r), expected);
    ck_assert_int_eq(nvtxwRangeEndWrite(w, 2, 9), expected);
}

START_TEST(write_each_helper_is_one_event_write) {
    write_all(&writer, NVTXW_RESULT_SUCCESS);
    ck_assert_uint_eq(mlog->callCount, 12);
    for (size_t i = 0; i < 12; ++i)
        ck_assert_str_eq(call_at(i)->member, "EventWrite");
}
END_TEST

START_TEST(write_rejects_unusable_writer) {
    nvtxwEventWriter_t w = writer;
    nvtxwInterface_t noWrite = *iface;

    write_all(NULL, NVTXW_RESULT_INVALID_ARGUMENT);
    w.iface = NULL;
    write_all(&w, NVTXW_RESULT_INVALID_ARGUMENT);
    noWrite.EventWrite = NULL;
    w.iface = &noWrite;
    write_all(&w, NVTXW_RESULT_INVALID_ARGUMENT);
    w = writer;
    w.stream = NULL;
    write_all(&w, NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_int_eq(nvtxwEventWriterInit(&w, iface, STREAM, NULL), NVTXW_RESULT_SUCCESS);
    write_all(&w, NVTXW_RESULT_INVALID_ARGUMENT); /* every schema ID 0 */
    /* UTF-8 writes also need the message schema. */
    w = writer;
    w.schemaIds.eventMessageUtf8 = 0;
    ck_assert_int_eq(nvtxwMarkWriteUtf8(&w, 1, utf8_attr("x", 0)), NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_uint_eq(mlog->callCount, 0);
}
END_TEST

START_TEST(writer_init_rules) {
    nvtxwEventHelperSchemaIds_t ids;
    nvtxwEventWriter_t w;
    uint64_t got[13];

    ck_assert_int_eq(nvtxwEventWriterInit(NULL, iface, STREAM, NULL),
                     NVTXW_RESULT_INVALID_ARGUMENT);
    memset(&w, 0xFF, sizeof w);
    ck_assert_int_eq(nvtxwEventWriterInit(&w, iface, STREAM, NULL), NVTXW_RESULT_SUCCESS);
    ck_assert_ptr_eq(w.iface, iface);
    ck_assert_ptr_eq(w.stream, STREAM);
    ids_as_array(&w.schemaIds, got);
    for (size_t i = 0; i < 13; ++i)
        ck_assert_uint_eq(got[i], 0);
    /* Copied by value; no validation of the handles. */
    memset(&ids, 0, sizeof ids);
    ids.rangeEnd = 77;
    ck_assert_int_eq(nvtxwEventWriterInit(&w, NULL, NULL, &ids), NVTXW_RESULT_SUCCESS);
    ids.rangeEnd = 78;
    ck_assert_uint_eq(w.schemaIds.rangeEnd, 77);
    ck_assert_ptr_null(w.iface);
    ck_assert_uint_eq(mlog->callCount, 0);
}
END_TEST

/* ------------------------------------------------- setup (spec 4.5) */

START_TEST(attributes_init) {
    nvtxwStreamAttributes_t stream;
    nvtxwSessionAttributes_t session;
    nvtxwDomainAttributes_t domain;
    unsigned char zeros[sizeof stream] = {0};

    memset(&stream, 0xFF, sizeof stream);
    ck_assert_int_eq(nvtxwStreamAttributesInit(&stream), NVTXW_RESULT_SUCCESS);
    ck_assert_uint_eq(stream.structSize, 56);
    ck_assert_mem_eq((unsigned char*)&stream + 8, zeros, sizeof stream - 8);
    memset(&session, 0xFF, sizeof session);
    ck_assert_int_eq(nvtxwSessionAttributesInit(&session), NVTXW_RESULT_SUCCESS);
    ck_assert_uint_eq(session.structSize, 24);
    ck_assert_ptr_null(session.name);
    ck_assert_ptr_null(session.configString);
    memset(&domain, 0xFF, sizeof domain);
    ck_assert_int_eq(nvtxwDomainAttributesInit(&domain), NVTXW_RESULT_SUCCESS);
    ck_assert_uint_eq(domain.structSize, 16);
    ck_assert_ptr_null(domain.name);
    ck_assert_int_eq(nvtxwStreamAttributesInit(NULL), NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_int_eq(nvtxwSessionAttributesInit(NULL), NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_int_eq(nvtxwDomainAttributesInit(NULL), NVTXW_RESULT_INVALID_ARGUMENT);
}
END_TEST

START_TEST(category_register) {
    ck_assert_int_eq(nvtxwCategoryRegister(iface, DOMAIN, 0, "x"), NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_int_eq(nvtxwCategoryRegister(iface, DOMAIN, 1, NULL), NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_int_eq(nvtxwCategoryRegister(iface, NULL, 1, "x"), NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_int_eq(nvtxwCategoryRegister(NULL, DOMAIN, 1, "x"), NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_uint_eq(mlog->callCount, 0);
    ck_assert_int_eq(nvtxwCategoryRegister(iface, DOMAIN, 42, "cat"), NVTXW_RESULT_SUCCESS);
    ck_assert_str_eq(call_at(0)->member, "CategoryRegister");
    ck_assert_ptr_eq(call_at(0)->handle, DOMAIN);
    ck_assert_uint_eq(call_at(0)->u64[0], 42);
    ck_assert_str_eq(call_at(0)->text, "cat");
    mock_set_result(module, "CategoryRegister", NVTXW_RESULT_NOT_SUPPORTED);
    ck_assert_int_eq(nvtxwCategoryRegister(iface, DOMAIN, 42, "cat"), NVTXW_RESULT_NOT_SUPPORTED);
    ck_assert_uint_eq(mlog->callCount, 2);
}
END_TEST

START_TEST(domain_scope_time_domain_register) {
    nvtxDomainHandle_t domain = NULL;
    uint64_t id = 99;

    ck_assert_int_eq(nvtxwDomainRegister(iface, NULL, "d", &domain), NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_int_eq(nvtxwDomainRegister(iface, SESSION, "d", &domain), NVTXW_RESULT_SUCCESS);
    ck_assert_ptr_nonnull(domain);
    ck_assert_uint_eq(call_at(0)->domainAttr.structSize, 16);
    ck_assert_str_eq(call_at(0)->text, "d");
    ck_assert_int_eq(nvtxwScopeRegister(iface, DOMAIN, "/node/rank0", &id), NVTXW_RESULT_SUCCESS);
    ck_assert_uint_eq(id, call_at(1)->assignedId);
    ck_assert_uint_eq(call_at(1)->scopeAttr.structSize, 32);
    ck_assert_str_eq(call_at(1)->text, "/node/rank0");
    ck_assert_uint_eq(call_at(1)->scopeAttr.parentScope, NVTX_SCOPE_ROOT);
    ck_assert_uint_eq(call_at(1)->scopeAttr.scopeId, NVTX_SCOPE_NONE);
    ck_assert_int_eq(nvtxwTimeDomainRegister(iface, DOMAIN, 15, &id), NVTXW_RESULT_SUCCESS);
    ck_assert_uint_eq(call_at(2)->timeDomainAttr.timestampTypeId, 15);
    ck_assert_uint_eq(call_at(2)->timeDomainAttr.scopeId, 0);
    ck_assert_uint_eq(call_at(2)->timeDomainAttr.timeDomainId, 0);
    ck_assert_uint_eq(call_at(2)->timeDomainAttr.timerFlags, 0);
    ck_assert_int_eq(call_at(2)->timeDomainAttr.timerResolution, 0);
    ck_assert_uint_eq(call_at(2)->timeDomainAttr.timerStart, 0);
    ck_assert_int_eq(nvtxwScopeRegister(iface, NULL, "x", &id), NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_int_eq(nvtxwTimeDomainRegister(iface, DOMAIN, 15, NULL),
                     NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_uint_eq(mlog->callCount, 3);
}
END_TEST

START_TEST(stream_open_with_scope_in_default_domain) {
    nvtxwStreamHandle_t stream = NULL;
    const mock_call_t* open;

    ck_assert_int_eq(nvtxwStreamOpen(iface, SESSION, "s", NULL, "/proc", 33, &stream),
                     NVTXW_RESULT_SUCCESS);
    ck_assert_uint_eq(mlog->callCount, 3);
    ck_assert_str_eq(call_at(0)->member, "DomainRegister");
    ck_assert_int_eq(call_at(0)->hasText, 0); /* NULL name: default domain */
    ck_assert_str_eq(call_at(1)->member, "ScopeRegister");
    open = call_at(2);
    ck_assert_str_eq(open->member, "StreamOpen");
    ck_assert_ptr_eq(open->handle, SESSION);
    ck_assert_uint_eq(open->streamAttr.structSize, 56);
    ck_assert_str_eq(open->text, "s");
    ck_assert_ptr_null(open->streamAttr.domain);
    ck_assert_uint_eq(open->streamAttr.scopeId, call_at(1)->assignedId);
    ck_assert_uint_eq(open->streamAttr.timeDomainId, 33);
    ck_assert_int_eq(open->streamAttr.orderingType, 0);
    ck_assert_ptr_nonnull(stream);
}
END_TEST

START_TEST(stream_open_without_scope) {
    nvtxwStreamHandle_t stream = NULL;

    ck_assert_int_eq(nvtxwStreamOpen(iface, SESSION, "s", DOMAIN, "", 0, &stream),
                     NVTXW_RESULT_SUCCESS);
    ck_assert_uint_eq(mlog->callCount, 1);
    ck_assert_ptr_eq(call_at(0)->streamAttr.domain, DOMAIN);
    ck_assert_uint_eq(call_at(0)->streamAttr.scopeId, NVTX_SCOPE_NONE);
    ck_assert_int_eq(nvtxwStreamOpen(iface, NULL, "s", DOMAIN, NULL, 0, &stream),
                     NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_int_eq(nvtxwStreamOpen(iface, SESSION, "s", DOMAIN, NULL, 0, NULL),
                     NVTXW_RESULT_INVALID_ARGUMENT);
}
END_TEST

START_TEST(event_writer_open) {
    nvtxwEventWriter_t w;

    ck_assert_int_eq(nvtxwEventWriterOpen(iface, SESSION, "s", DOMAIN, NULL, 0, &w),
                     NVTXW_RESULT_SUCCESS);
    ck_assert_uint_eq(mlog->callCount, 14);
    ck_assert_str_eq(call_at(13)->member, "StreamOpen");
    ck_assert_ptr_eq(w.iface, iface);
    ck_assert_ptr_nonnull(w.stream);
    ck_assert_uint_eq(w.schemaIds.markUtf8, call_at(0)->assignedId);
    ck_assert_uint_eq(w.schemaIds.eventMessageUtf8, call_at(12)->assignedId);
    /* The domain is passed as is: NULL fails in schema registration. */
    reset_mock();
    ck_assert_int_eq(nvtxwEventWriterOpen(iface, SESSION, "s", NULL, NULL, 0, &w),
                     NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_uint_eq(mlog->callCount, 0);
}
END_TEST

START_TEST(load_interface_returns_full_table) {
    ck_assert_ptr_nonnull(iface->SessionBegin);
    ck_assert_ptr_nonnull(iface->TimestampConversionFactorWrite);
    for (size_t i = 0; i < 43; ++i)
        ck_assert_ptr_null((void*)iface->reserved[i]);
    ck_assert_int_eq(mlog->getInterfaceCount, 1);
}
END_TEST

START_TEST(load_interface_failures) {
    const nvtxwInterface_t* table = iface;
    nvtxwModuleHandle_t other = module;

    ck_assert_int_eq(nvtxwLoadInterface(NULL, NULL, &other), NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_int_eq(nvtxwLoadInterface("/nonexistent/x.so", &table, &other),
                     NVTXW_RESULT_LIBRARY_LOAD_FAILED);
    ck_assert_ptr_null(table);
    ck_assert_ptr_null(other);
    /* The backend's own refusal is returned and the backend unloaded. */
    table = iface;
    ck_assert_int_eq(nvtxwLoadInterface(backend_path("libmocknofinalize"), &table, &other),
                     NVTXW_RESULT_INTERFACE_VERSION_NOT_SUPPORTED);
    ck_assert_ptr_null(table);
    ck_assert_ptr_null(other);
    /* Default search honours NVTXW3_LIBRARY; NULL moduleOut keeps it loaded. */
    setenv(NVTXW_LIBRARY_ENV_VAR, backend_path("libmockbackend"), 1);
    ck_assert_int_eq(nvtxwLoadInterfaceDefault(&table, NULL), NVTXW_RESULT_SUCCESS);
    ck_assert_ptr_eq(table, iface);
}
END_TEST

/* ------------------------------------------------ counters (spec 4.6) */

START_TEST(counter_register) {
    uint64_t id = 5;
    const nvtxCounterAttr_t* attr;

    ck_assert_int_eq(nvtxwCounterInt64Register(iface, DOMAIN, "q", NULL, &id),
                     NVTXW_RESULT_SUCCESS);
    attr = &call_at(0)->counterAttr;
    ck_assert_str_eq(call_at(0)->member, "CounterRegister");
    ck_assert_uint_eq(attr->structSize, 56);
    ck_assert_uint_eq(attr->schemaId, 17);
    ck_assert_str_eq(call_at(0)->text, "q");
    ck_assert_ptr_null(attr->description);
    ck_assert_uint_eq(attr->scopeId, NVTX_SCOPE_NONE);
    ck_assert_ptr_null(attr->semantics);
    ck_assert_uint_eq(attr->counterId, NVTX_COUNTER_ID_NONE);
    ck_assert_uint_eq(id, call_at(0)->assignedId);
    ck_assert_int_eq(nvtxwCounterFloat64Register(iface, DOMAIN, "u", NULL, &id),
                     NVTXW_RESULT_SUCCESS);
    ck_assert_uint_eq(call_at(1)->counterAttr.schemaId, 20);
    ck_assert_int_eq(nvtxwCounterRegister(iface, DOMAIN, "z", 0, NULL, &id),
                     NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_int_eq(nvtxwCounterRegister(iface, NULL, "z", 17, NULL, &id),
                     NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_int_eq(nvtxwCounterRegister(iface, DOMAIN, "z", 17, NULL, NULL),
                     NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_uint_eq(mlog->callCount, 2);
}
END_TEST

START_TEST(counter_write) {
    int64_t i = -42;
    double d = 3.5;

    ck_assert_int_eq(nvtxwCounterInt64Write(iface, STREAM, 10, 7, i), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(nvtxwCounterFloat64Write(iface, STREAM, 11, 8, d), NVTXW_RESULT_SUCCESS);
    ck_assert_str_eq(call_at(0)->member, "CounterWrite");
    ck_assert_ptr_eq(call_at(0)->handle, STREAM);
    ck_assert_int_eq(call_at(0)->i64[0], 10);
    ck_assert_uint_eq(call_at(0)->u64[0], 7);
    ck_assert_uint_eq(call_at(0)->payloads[0].size, 8);
    ck_assert_mem_eq(call_at(0)->payloads[0].bytes, &i, 8);
    ck_assert_uint_eq(call_at(1)->payloads[0].size, 8);
    ck_assert_mem_eq(call_at(1)->payloads[0].bytes, &d, 8);
    ck_assert_int_eq(nvtxwCounterInt64Write(iface, NULL, 1, 7, 1), NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_int_eq(nvtxwCounterFloat64Write(NULL, STREAM, 1, 7, 1),
                     NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_uint_eq(mlog->callCount, 2);
}
END_TEST

static Suite* helpers_suite(void) {
    Suite* s = suite_create("helpers");
    TCase* schemas = tcase_create("schemas");
    TCase* writes = tcase_create("writes");
    TCase* setup = tcase_create("setup");
    TCase* counters = tcase_create("counters");

    tcase_add_checked_fixture(schemas, load_mock, unload_mock);
    tcase_add_test(schemas, schemas_register_all_makes_13_calls);
    tcase_add_test(schemas, refused_write_helpers_leave_a_message);
    tcase_add_test(schemas, schemas_register_single_bits);
    tcase_add_test(schemas, schemas_register_counts_of_spec);
    tcase_add_test(schemas, schemas_register_rejects_bad_arguments);
    tcase_add_test(schemas, schemas_register_stops_at_first_failure);
    suite_add_tcase(s, schemas);

    tcase_add_checked_fixture(writes, setup_writer, unload_mock);
    tcase_add_test(writes, write_mark_utf8);
    tcase_add_test(writes, write_utf8_message_length_used_verbatim);
    tcase_add_test(writes, write_utf8_null_or_empty_message_sends_one_nul);
    tcase_add_test(writes, write_mark_reg_string);
    tcase_add_test(writes, write_range_push_pop_utf8);
    tcase_add_test(writes, write_range_push_pop_reg_string);
    tcase_add_test(writes, write_range_start_end_utf8);
    tcase_add_test(writes, write_range_start_end_reg_string);
    tcase_add_test(writes, write_range_push_utf8);
    tcase_add_test(writes, write_range_push_reg_string);
    tcase_add_test(writes, write_range_pop);
    tcase_add_test(writes, write_range_start_utf8);
    tcase_add_test(writes, write_range_start_reg_string);
    tcase_add_test(writes, write_range_end);
    tcase_add_test(writes, write_backend_result_forwarded);
    tcase_add_test(writes, write_each_helper_is_one_event_write);
    tcase_add_test(writes, write_rejects_unusable_writer);
    tcase_add_test(writes, writer_init_rules);
    suite_add_tcase(s, writes);

    tcase_add_checked_fixture(setup, load_mock, unload_mock);
    tcase_add_test(setup, attributes_init);
    tcase_add_test(setup, category_register);
    tcase_add_test(setup, domain_scope_time_domain_register);
    tcase_add_test(setup, stream_open_with_scope_in_default_domain);
    tcase_add_test(setup, stream_open_without_scope);
    tcase_add_test(setup, event_writer_open);
    tcase_add_test(setup, load_interface_returns_full_table);
    tcase_add_test(setup, load_interface_failures);
    suite_add_tcase(s, setup);

    tcase_add_checked_fixture(counters, load_mock, unload_mock);
    tcase_add_test(counters, counter_register);
    tcase_add_test(counters, counter_write);
    suite_add_tcase(s, counters);
    return s;
}

int main(void) { return tu_run_suite(helpers_suite()); }
