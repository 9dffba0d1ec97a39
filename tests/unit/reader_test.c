/*
 * tests/unit/reader_test.c - the report reader (nvtxw/reader.h) against
 * reports built by tests/unit/report_encoder.h, an independent encoder of
 * docs/report-records.md: every record kind, the four payload encodings,
 * interned dictionaries, delta timestamps, stream and time order on three
 * streams, seek_stream, truncation, malformed records, versions, foreign
 * ABIs, extension records and random chunk contents.
 *
 * The encoder uses the container API, which the library does not export, so
 * the format/ sources are linked in (tests/unit/reader.mk).
 */
#define _GNU_SOURCE
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nvtxw/backend.h"
#include "nvtxw/error.h"
#include "nvtxw/reader.h"
#include "report_encoder.h"
#include "test_util.h"

#define S_ID ((uint64_t)1 << 24)
#define E_ID (NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START)
#define EV_ID (NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START + 1)
#define PTR_ID (NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START + 2)
#define MSG_ID (((uint64_t)1 << 24) + 5)
#define C_ID (NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START + 7)
#define T_ID (NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START + 9)
#define FULL_REGISTRATIONS 20
#define FULL_STREAM_RECORDS 14

static char dir[64];
static char path[128];

static void setup(void) {
    tu_make_temp_dir_or_fail(dir, sizeof dir, "nvtxw-reader");
    snprintf(path, sizeof path, "%s/r.nvtxw", dir);
}

static void teardown(void) { tu_remove_tree(dir); }

/* ---- building reports --------------------------------------------------- */

typedef struct report {
    container_writer_t* writer;
    container_encoder_t* enc;
    enc_buf b;
} report;

static void report_begin(report* r, const char* file) {
    container_options opts;
    container_options_init(&opts);
    opts.overwrite = 1;
    memset(r, 0, sizeof *r);
    r->writer = container_writer_create(file, &opts);
    ck_assert_ptr_nonnull(r->writer);
    r->enc = container_encoder_create(r->writer, 0);
    ck_assert_ptr_nonnull(r->enc);
}

static void report_end(report* r) {
    container_encoder_destroy(r->enc);
    ck_assert_int_eq(container_writer_finish(r->writer), NVTXW_RESULT_SUCCESS);
    enc_free(&r->b);
}

static void regs_chunk(report* r) {
    enc_chunk(r->enc, ENC_KIND_REGISTRATIONS, CONTAINER_STREAM_SESSION, 0, 0, &r->b);
}

static void schemas(enc_buf* b) {
    enc_record(b, 0x08); /* enum "colors" with a dynamic ID */
    enc_uvar(b, 1);
    enc_uvar(b, NVTX_PAYLOAD_ENUM_ATTR_FIELD_NAME | NVTX_PAYLOAD_ENUM_ATTR_FIELD_ENTRIES |
                    NVTX_PAYLOAD_ENUM_ATTR_FIELD_NUM_ENTRIES | NVTX_PAYLOAD_ENUM_ATTR_FIELD_SIZE |
                    NVTX_PAYLOAD_ENUM_ATTR_FIELD_SCHEMA_ID);
    enc_str(b, "colors");
    enc_uvar(b, 4);
    enc_uvar(b, E_ID);
    enc_uvar(b, 2);
    enc_str(b, "red");
    enc_uvar(b, 1);
    enc_u8(b, 0);
    enc_str(b, "blue");
    enc_uvar(b, 2);
    enc_u8(b, 0);
    enc_schema(b, 1, "ev", NVTX_PAYLOAD_SCHEMA_TYPE_STATIC, 24, EV_ID, 3);
    enc_entry(b, NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP, NVTX_PAYLOAD_ENTRY_TYPE_INT64, "ts", 0, 0);
    enc_entry(b, 0, E_ID, "color", 0, 8);
    enc_entry(b, 0, NVTX_PAYLOAD_ENTRY_TYPE_NVTX_REGISTERED_STRING_HANDLE, "msg", 0, 16);
    enc_schema(b, 1, "msg", NVTX_PAYLOAD_SCHEMA_TYPE_DYNAMIC, 0, MSG_ID, 1);
    enc_entry(b,
              NVTX_PAYLOAD_ENTRY_FLAG_EVENT_MESSAGE | NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_ZERO_TERMINATED,
              NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF8, "message", 0, 0);
    enc_record(b, 0x7F); /* an extension registration record, skipped */
    enc_uvar(b, 9);
    enc_bytes(b, "xyz", 3);
    enc_schema(b, 1, "ptr", NVTX_PAYLOAD_SCHEMA_TYPE_STATIC, 8, PTR_ID, 1);
    enc_entry(b, NVTX_PAYLOAD_ENTRY_FLAG_POINTER, NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF8, "p", 0, 0);
}

static void counter_and_clock(enc_buf* b) {
    enc_record(b, 0x09);
    enc_uvar(b, 1);
    enc_uvar(b, C_ID);
    enc_uvar(b, NVTX_PAYLOAD_ENTRY_TYPE_INT64);
    enc_str(b, "ctr");
    enc_str(b, "d");
    enc_uvar(b, S_ID);
    enc_uvar(b, 2); /* semantics: scope, counters */
    enc_uvar(b, NVTX_SEMANTIC_ID_SCOPE_V1);
    enc_uvar(b, 1);
    enc_uvar(b, S_ID);
    enc_uvar(b, NVTX_SEMANTIC_ID_COUNTERS_V1);
    enc_uvar(b, 2);
    enc_uvar(b, NVTX_COUNTER_FLAG_LIMIT_MIN);
    enc_str(b, "ms");
    enc_uvar(b, 1);
    enc_uvar(b, 1000);
    enc_svar(b, NVTX_COUNTER_LIMIT_I64);
    enc_uvar(b, 0);
    enc_uvar(b, 10);
    enc_record(b, 0x0A);
    enc_uvar(b, 1);
    enc_uvar(b, T_ID);
    enc_uvar(b, S_ID);
    enc_uvar(b, 14);
    enc_uvar(b, 2);
    enc_svar(b, 1000000000);
    enc_uvar(b, 1);
}

/* A domain record (format 2: name, then the writer's string handle serial). */
static void enc_domain(enc_buf* b, const char* name) {
    enc_record(b, 0x02);
    enc_str(b, name);
    enc_uvar(b, 0);
}

/* The 17 records of the first registration chunk. */
static void registrations(enc_buf* b, const uint8_t* abi) {
    enc_session(b, "sess", "Sink=report", abi);
    enc_domain(b, "");
    enc_domain(b, "app");
    enc_record(b, 0x03);
    enc_uvar(b, 1);
    enc_uvar(b, 7);
    enc_str(b, "cat");
    enc_record(b, 0x04);
    enc_uvar(b, 1);
    enc_str(b, "hello");
    enc_record(b, 0x04);
    enc_uvar(b, 1);
    enc_str(b, "world");
    enc_record(b, 0x05);
    enc_uvar(b, 1);
    enc_svar(b, 0x10001);
    enc_uvar(b, 0xdead);
    enc_svar(b, 3);
    enc_str(b, "world");
    enc_uvar(b, 2);
    enc_record(b, 0x06);
    enc_uvar(b, 1);
    enc_uvar(b, S_ID);
    enc_uvar(b, 1);
    enc_str(b, "/proc[1]");
    schemas(b);
    counter_and_clock(b);
    enc_stream_open(b, 1, "s0", S_ID, T_ID);
    enc_stream_open(b, 1, "s1", S_ID, T_ID);
    enc_stream_open(b, 1, "s2", S_ID, T_ID);
}

static void ev_payload(uint8_t out[24], int64_t ts, uint32_t color, uint64_t handle) {
    memset(out, 0, 24);
    memcpy(out, &ts, 8);
    memcpy(out + 8, &color, 4);
    memcpy(out + 16, &handle, 8);
}

/* Stream 0, first chunk (base 100): 7 records plus an extension. */
static void stream0(enc_buf* b) {
    uint8_t ev[24];
    int64_t sample = 42;
    uint64_t target = 0x2000;
    ev_payload(ev, 5, 2, ((uint64_t)0xABCD << 32) | 2);
    enc_event(b, 100, 1, 0, 0, 2); /* ts 100: the chunk's first base is 0 */
    enc_payload(b, EV_ID, 1, ev, sizeof ev);
    enc_uvar(b, MSG_ID); /* interned: new entry 0 */
    enc_u8(b, 2);
    enc_uvar(b, 0);
    enc_bytes(b, "hi", 2);
    enc_event(b, 0, 0, 0, 0, 1); /* no timestamp: interned entry 0 again */
    enc_uvar(b, MSG_ID);
    enc_u8(b, 2);
    enc_uvar(b, 0);
    enc_record(b, 0x21); /* counter sample at 90 */
    enc_svar(b, -10);
    enc_uvar(b, C_ID);
    enc_bytes(b, &sample, 8);
    enc_record(b, 0x22); /* no value at 95 */
    enc_svar(b, 5);
    enc_uvar(b, C_ID);
    enc_u8(b, 2);
    enc_record(b, 0x23);
    enc_uvar(b, T_ID);
    enc_uvar(b, 14);
    enc_uvar(b, 2);
    enc_svar(b, 1);
    enc_svar(b, -2);
    enc_svar(b, 3);
    enc_svar(b, 4);
    enc_record(b, 0x24);
    enc_uvar(b, T_ID);
    enc_uvar(b, 14);
    enc_f64(b, 1.5);
    enc_svar(b, 10);
    enc_svar(b, -20);
    enc_record(b, 0x7F);
    enc_uvar(b, 3);
    enc_bytes(b, "ext", 3);
    enc_event(b, 300, 1, 1, S_ID, 2); /* ts 395, scoped, pointer payloads */
    enc_uvar(b, PTR_ID);
    enc_u8(b, 3);
    enc_uvar(b, 0x1000);
    enc_bytes(b, &target, 8);
    enc_uvar(b, NVTX_TYPE_PAYLOAD_SCHEMA_REFERENCED);
    enc_u8(b, 3);
    enc_uvar(b, 0x2000);
    enc_bytes(b, "ptr!", 5);
}

/* Timestamped raw events; the first dt is absolute (base 0). */
static void raw_events(enc_buf* b, const int64_t* ts, int n) {
    int64_t prev = 0;
    for (int i = 0; i < n; i++) {
        int32_t v = (int32_t)ts[i];
        enc_event(b, (int64_t)((uint64_t)ts[i] - (uint64_t)prev), 1, 0, 0, 1);
        enc_payload(b, NVTX_PAYLOAD_ENTRY_TYPE_INT32, 0, &v, 4);
        prev = ts[i];
    }
}

static void build_full(const char* file, const uint8_t* abi) {
    static const int64_t ts1[] = {50, 150, 250}, ts2[] = {75, 150, 80};
    report r;
    report_begin(&r, file);
    registrations(&r.b, abi);
    regs_chunk(&r);
    stream0(&r.b);
    enc_chunk(r.enc, ENC_KIND_EVENTS, 0, 90, 395, &r.b);
    raw_events(&r.b, ts1, 3);
    enc_chunk(r.enc, ENC_KIND_EVENTS, 1, 50, 250, &r.b);
    raw_events(&r.b, ts2, 3);
    enc_chunk(r.enc, ENC_KIND_EVENTS, 2, 75, 150, &r.b);
    enc_event(&r.b, 400, 1, 0, 0, 1); /* stream 0, second chunk: a fresh dictionary */
    enc_uvar(&r.b, MSG_ID);
    enc_u8(&r.b, 2);
    enc_uvar(&r.b, 0);
    enc_bytes(&r.b, "again", 5);
    enc_chunk(r.enc, ENC_KIND_EVENTS, 0, 400, 400, &r.b);
    for (int s = 0; s < 3; s++) {
        enc_record(&r.b, 0x0C);
        enc_uvar(&r.b, (uint64_t)s);
    }
    regs_chunk(&r);
    report_end(&r);
}

/* ---- reading helpers ---------------------------------------------------- */

static nvtxw_reader_t* open_ok(const char* file, int order) {
    nvtxw_reader_options_t opts = {sizeof opts, order, 0};
    nvtxw_reader_t* reader = NULL;
    nvtxwResultCode_t rc = nvtxw_reader_open(file, &opts, &reader);
    ck_assert_msg(rc == NVTXW_RESULT_SUCCESS, "open: %s", nvtxw_last_error());
    return reader;
}

static const nvtxw_record_t* next(nvtxw_reader_t* reader) {
    const nvtxw_record_t* rec = NULL;
    ck_assert_int_eq(nvtxw_reader_next(reader, &rec), NVTXW_RESULT_SUCCESS);
    return rec;
}

static size_t count_rest(nvtxw_reader_t* reader) {
    size_t n = 0;
    while (next(reader) != NULL)
        n++;
    return n;
}

/* Text trace of an event's values. */
typedef struct trace {
    char text[512];
} trace;

static int tr_add(void* ctx, const char* format, ...) {
    trace* t = ctx;
    size_t used = strlen(t->text);
    va_list args;
    va_start(args, format);
    vsnprintf(t->text + used, sizeof t->text - used, format, args);
    va_end(args);
    return 0;
}
static int tr_signed(void* c, int64_t v) { return tr_add(c, "%lld ", (long long)v); }
static int tr_unsigned(void* c, uint64_t v) { return tr_add(c, "%llu ", (unsigned long long)v); }
static int tr_string(void* c, const char* s, size_t n) { return tr_add(c, "'%.*s' ", (int)n, s); }
static int tr_enum(void* c, uint64_t v, const char* n) {
    return tr_add(c, "E%llu:%s ", (unsigned long long)v, n ? n : "?");
}
static int tr_handle(void* c, uint64_t h, const char* s) {
    (void)h;
    return tr_add(c, "H:%s ", s ? s : "?");
}

static const char* visit(nvtxw_reader_t* reader, const nvtxw_record_t* rec, trace* t) {
    nvtxw_visitor_t v;
    memset(&v, 0, sizeof v);
    memset(t, 0, sizeof *t);
    v.struct_size = sizeof v;
    v.on_signed = tr_signed;
    v.on_unsigned = tr_unsigned;
    v.on_string = tr_string;
    v.on_enum = tr_enum;
    v.on_string_handle = tr_handle;
    ck_assert_msg(nvtxw_reader_visit_event(reader, rec, &v, t) == NVTXW_RESULT_SUCCESS, "visit: %s",
                  nvtxw_last_error());
    return t->text;
}

/* ---- tests -------------------------------------------------------------- */

static void check_registrations(nvtxw_reader_t* reader) {
    const nvtxw_record_t* r = next(reader);
    nvtxPayloadSchemaAttr_t attr;
    ck_assert_int_eq(r->kind, NVTXW_RECORD_SESSION);
    ck_assert_str_eq(r->u.session.name, "sess");
    ck_assert_str_eq(r->u.session.config, "Sink=report");
    ck_assert_uint_eq(r->u.session.pointer_size, sizeof(void*));
    r = next(reader);
    ck_assert(r->kind == NVTXW_RECORD_DOMAIN && r->domain == 0 && !strcmp(r->u.domain.name, ""));
    r = next(reader);
    ck_assert(r->kind == NVTXW_RECORD_DOMAIN && r->domain == 1 && !strcmp(r->u.domain.name, "app"));
    r = next(reader);
    ck_assert(r->kind == NVTXW_RECORD_CATEGORY && r->domain == 1 && r->u.category.id == 7);
    ck_assert_str_eq(r->u.category.name, "cat");
    r = next(reader);
    ck_assert(r->kind == NVTXW_RECORD_STRING && r->u.string.index == 0);
    ck_assert_str_eq(r->u.string.text, "hello");
    r = next(reader);
    ck_assert(r->kind == NVTXW_RECORD_STRING && r->u.string.index == 1);
    r = next(reader);
    ck_assert(r->kind == NVTXW_RECORD_RESOURCE && r->u.resource.identifier_type == 0x10001);
    ck_assert(r->u.resource.identifier == 0xdead && r->u.resource.message_type == 3);
    ck_assert(r->u.resource.message_string == 2 && !strcmp(r->u.resource.message, "world"));
    r = next(reader);
    ck_assert(r->kind == NVTXW_RECORD_SCOPE && r->u.scope.id == S_ID && r->u.scope.parent == 1);
    ck_assert_str_eq(r->u.scope.path, "/proc[1]");
    r = next(reader);
    ck_assert(r->kind == NVTXW_RECORD_ENUM && nvtxw_enum_id(r->u.enumeration.enumeration) == E_ID);
    r = next(reader);
    ck_assert(r->kind == NVTXW_RECORD_SCHEMA && nvtxw_schema_id(r->u.schema.schema) == EV_ID);
    nvtxw_schema_get_attr(r->u.schema.schema, &attr);
    ck_assert(attr.numEntries == 3 && attr.payloadStaticSize == 24 && !strcmp(attr.name, "ev"));
    ck_assert_str_eq(attr.entries[2].name, "msg");
    ck_assert_ptr_null(attr.entries[0].description);
    r = next(reader);
    ck_assert(r->kind == NVTXW_RECORD_SCHEMA && nvtxw_schema_id(r->u.schema.schema) == MSG_ID);
    r = next(reader); /* the 0x7F record was skipped */
    ck_assert(r->kind == NVTXW_RECORD_SCHEMA && nvtxw_schema_id(r->u.schema.schema) == PTR_ID);
    r = next(reader);
    ck_assert(r->kind == NVTXW_RECORD_COUNTER && r->u.counter.attr.counterId == C_ID);
    ck_assert(r->u.counter.attr.schemaId == 17 && r->u.counter.attr.scopeId == S_ID);
    ck_assert_str_eq(r->u.counter.attr.name, "ctr");
    ck_assert_int_eq(r->u.counter.attr.semantics->semanticId, NVTX_SEMANTIC_ID_SCOPE_V1);
    {
        const nvtxSemanticsCounter_t* c =
            (const nvtxSemanticsCounter_t*)r->u.counter.attr.semantics->next;
        ck_assert_int_eq(c->header.semanticId, NVTX_SEMANTIC_ID_COUNTERS_V1);
        ck_assert(c->header.version == 2 && c->unitScaleDenominator == 1000 && c->max.u64 == 10);
        ck_assert_str_eq(c->unit, "ms");
        ck_assert_ptr_null(c->header.next);
    }
    r = next(reader);
    ck_assert(r->kind == NVTXW_RECORD_TIME_DOMAIN && r->u.time_domain.attr.timeDomainId == T_ID);
    ck_assert(r->u.time_domain.attr.timerResolution == 1000000000 &&
              r->u.time_domain.attr.timestampTypeId == 14);
    for (uint64_t s = 0; s < 3; s++) {
        r = next(reader);
        ck_assert(r->kind == NVTXW_RECORD_STREAM_OPEN && r->stream == s && r->domain == 1);
        ck_assert(r->u.stream_open.scope_id == S_ID && r->u.stream_open.time_domain_id == T_ID);
        ck_assert(r->u.stream_open.ordering_skid == -1 &&
                  r->u.stream_open.ordering_skid_amount == -100);
    }
}

START_TEST(every_record_kind) {
    trace t;
    const nvtxw_record_t* r;
    nvtxw_reader_t* reader;
    build_full(path, NULL);
    reader = open_ok(path, NVTXW_READER_ORDER_STREAM);
    ck_assert_uint_eq(nvtxw_reader_stream_count(reader), 3);
    ck_assert_uint_eq(nvtxw_reader_domain_count(reader), 2);
    /* names are known from open on, before any record is read */
    ck_assert_str_eq(nvtxw_reader_stream_name(reader, 0), "s0");
    ck_assert_str_eq(nvtxw_reader_stream_name(reader, 2), "s2");
    ck_assert_ptr_null(nvtxw_reader_stream_name(reader, 3));
    ck_assert_str_eq(nvtxw_reader_domain_name(reader, 0), "");
    ck_assert_str_eq(nvtxw_reader_domain_name(reader, 1), "app");
    ck_assert_ptr_null(nvtxw_reader_domain_name(reader, 2));
    ck_assert_str_eq(nvtxw_reader_string(reader, 1, ((uint64_t)77 << 32) | 1), "hello");
    ck_assert_ptr_null(nvtxw_reader_string(reader, 1, 3));
    ck_assert_ptr_null(nvtxw_reader_string(reader, 0, 1));
    check_registrations(reader);
    for (uint64_t s = 0; s < 3; s++) { /* the second registration chunk */
        r = next(reader);
        ck_assert(r->kind == NVTXW_RECORD_STREAM_CLOSE && r->stream == s && r->domain == 1);
    }
    r = next(reader); /* stream 0: ts-relative + interned */
    ck_assert(r->kind == NVTXW_RECORD_EVENT && r->stream == 0 && r->has_timestamp &&
              r->timestamp == 100 && r->u.event.count == 2 && !r->u.event.has_scope);
    ck_assert_ptr_null(r->u.event.origins);
    ck_assert_str_eq(visit(reader, r, &t), "105 E2:blue H:world 'hi' ");
    r = next(reader);
    ck_assert(r->kind == NVTXW_RECORD_EVENT && !r->has_timestamp);
    ck_assert_str_eq(visit(reader, r, &t), "'hi' ");
    r = next(reader);
    ck_assert(r->kind == NVTXW_RECORD_COUNTER_SAMPLE && r->timestamp == 90 &&
              r->u.counter_sample.counter_id == C_ID && r->u.counter_sample.size == 8);
    ck_assert_int_eq(*(const int64_t*)r->u.counter_sample.data, 42);
    r = next(reader);
    ck_assert(r->kind == NVTXW_RECORD_COUNTER_NO_VALUE && r->timestamp == 95 &&
              r->u.counter_no_value.reason == 2);
    r = next(reader);
    ck_assert(r->kind == NVTXW_RECORD_SYNC_POINTS && !r->has_timestamp &&
              r->u.sync_points.count == 2 && r->u.sync_points.points[0].dst == -2 &&
              r->u.sync_points.points[1].src == 3 && r->u.sync_points.src_domain == T_ID);
    r = next(reader);
    ck_assert(r->kind == NVTXW_RECORD_CONVERSION_FACTOR && r->u.conversion_factor.slope == 1.5 &&
              r->u.conversion_factor.timestamp_dst == -20 &&
              r->u.conversion_factor.dst_domain == 14);
    r = next(reader); /* encoding 3: the pointer resolves through the origins */
    ck_assert(r->kind == NVTXW_RECORD_EVENT && r->timestamp == 395 && r->u.event.has_scope &&
              r->u.event.scope == S_ID && r->u.event.origins != NULL);
    ck_assert_uint_eq(r->u.event.origins[1], 0x2000);
    ck_assert_str_eq(visit(reader, r, &t), "'ptr!' ");
    r = next(reader);
    ck_assert(r->kind == NVTXW_RECORD_EVENT && r->timestamp == 400);
    ck_assert_str_eq(visit(reader, r, &t), "'again' ");
    ck_assert_uint_eq(count_rest(reader), 6);
    ck_assert_uint_eq(nvtxw_reader_damage_count(reader), 0);
    ck_assert_uint_eq(nvtxw_reader_record_count(reader), FULL_REGISTRATIONS + FULL_STREAM_RECORDS);
    nvtxw_reader_close(reader);
}
END_TEST

/* Stream records as "stream:key" (key = timestamp, or '-' without one). */
static void order_string(nvtxw_reader_t* reader, char* out, size_t size) {
    const nvtxw_record_t* r;
    out[0] = '\0';
    while ((r = next(reader)) != NULL) {
        size_t used = strlen(out);
        if (r->kind < NVTXW_RECORD_EVENT)
            continue;
        if (r->has_timestamp)
            snprintf(out + used, size - used, "%llu:%lld ", (unsigned long long)r->stream,
                     (long long)r->timestamp);
        else
            snprintf(out + used, size - used, "%llu:- ", (unsigned long long)r->stream);
    }
}

START_TEST(stream_and_time_order) {
    char got[512];
    nvtxw_reader_t* reader;
    build_full(path, NULL);
    reader = open_ok(path, NVTXW_READER_ORDER_STREAM);
    order_string(reader, got, sizeof got);
    ck_assert_str_eq(got, "0:100 0:- 0:90 0:95 0:- 0:- 0:395 0:400 1:50 1:150 1:250 "
                          "2:75 2:150 2:80 ");
    nvtxw_reader_close(reader);
    reader = open_ok(path, NVTXW_READER_ORDER_TIME);
    order_string(reader, got, sizeof got);
    ck_assert_str_eq(got, "1:50 2:75 0:100 0:- 0:90 0:95 0:- 0:- 1:150 2:150 2:80 1:250 "
                          "0:395 0:400 ");
    nvtxw_reader_close(reader);
}
END_TEST

START_TEST(seek_stream) {
    char got[512];
    nvtxw_reader_t* reader;
    build_full(path, NULL);
    reader = open_ok(path, NVTXW_READER_ORDER_TIME);
    ck_assert_int_eq(nvtxw_reader_seek_stream(reader, 3), NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_int_eq(nvtxw_reader_seek_stream(reader, 2), NVTXW_RESULT_SUCCESS);
    order_string(reader, got, sizeof got);
    ck_assert_str_eq(got, "2:75 2:150 2:80 ");
    ck_assert_int_eq(nvtxw_reader_seek_stream(reader, 0), NVTXW_RESULT_SUCCESS);
    ck_assert_ptr_nonnull(next(reader)); /* a record, then seek again mid-stream */
    ck_assert_int_eq(nvtxw_reader_seek_stream(reader, 1), NVTXW_RESULT_SUCCESS);
    order_string(reader, got, sizeof got);
    ck_assert_str_eq(got, "1:50 1:150 1:250 ");
    nvtxw_reader_close(reader);
}
END_TEST

/* Copies the first `size` bytes of `from` to `to`. */
static void truncate_copy(const char* from, const char* to, off_t size) {
    char buf[4096];
    int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    off_t left = size;
    ck_assert(in >= 0 && out >= 0);
    while (left > 0) {
        ssize_t n = read(in, buf, (size_t)(left < (off_t)sizeof buf ? left : (off_t)sizeof buf));
        ck_assert(n > 0);
        ck_assert(write(out, buf, (size_t)n) == n);
        left -= n;
    }
    close(in);
    close(out);
}

/* File offsets of every chunk of a finished report, in file order. */
static size_t chunk_offsets(const char* file, uint64_t* offsets, uint32_t* kinds, size_t max) {
    container_reader_t* c = container_reader_open(file, 0);
    size_t n, i, j;
    ck_assert_ptr_nonnull(c);
    n = container_reader_chunk_count(c);
    ck_assert(n <= max);
    for (i = 0; i < n; i++) {
        offsets[i] = container_reader_chunk_info(c, i)->offset;
        kinds[i] = container_reader_chunk_info(c, i)->meta.kind;
    }
    container_reader_close(c);
    for (i = 1; i < n; i++) /* sort by offset */
        for (j = i; j > 0 && offsets[j - 1] > offsets[j]; j--) {
            uint64_t o = offsets[j];
            uint32_t k = kinds[j];
            offsets[j] = offsets[j - 1], kinds[j] = kinds[j - 1];
            offsets[j - 1] = o, kinds[j - 1] = k;
        }
    return n;
}

START_TEST(truncated_reports) {
    char cut[192];
    uint64_t offsets[16];
    uint32_t kinds[16];
    size_t n;
    struct stat st;
    build_full(path, NULL);
    n = chunk_offsets(path, offsets, kinds, 16);
    ck_assert_uint_eq(n, 6);
    ck_assert(kinds[0] == 1 && kinds[5] == 1);
    ck_assert_int_eq(stat(path, &st), 0);
    snprintf(cut, sizeof cut, "%s/cut.nvtxw", dir);
    /* cut points: before the last registration chunk, inside it, inside the
     * trailer, inside each event chunk */
    off_t points[] = {(off_t)offsets[5],      (off_t)offsets[5] + 70, st.st_size - 1,
                      (off_t)offsets[4] + 30, (off_t)offsets[3] + 64, (off_t)offsets[2] + 10,
                      (off_t)offsets[1] + 1};
    size_t expect[] = {FULL_REGISTRATIONS - 3 + FULL_STREAM_RECORDS,
                       FULL_REGISTRATIONS - 3 + FULL_STREAM_RECORDS,
                       FULL_REGISTRATIONS + FULL_STREAM_RECORDS,
                       FULL_REGISTRATIONS - 3 + FULL_STREAM_RECORDS - 1,
                       FULL_REGISTRATIONS - 3 + FULL_STREAM_RECORDS - 4,
                       FULL_REGISTRATIONS - 3 + FULL_STREAM_RECORDS - 7,
                       FULL_REGISTRATIONS - 3};
    for (size_t k = 0; k < sizeof points / sizeof points[0]; k++) {
        nvtxw_reader_t* reader;
        uint64_t offset, length;
        const char* reason;
        truncate_copy(path, cut, points[k]);
        reader = open_ok(cut, k % 2 ? NVTXW_READER_ORDER_TIME : NVTXW_READER_ORDER_STREAM);
        ck_assert_msg(count_rest(reader) == expect[k], "cut %zu at %lld", k, (long long)points[k]);
        ck_assert_uint_ge(nvtxw_reader_damage_count(reader), 1);
        ck_assert_int_eq(nvtxw_reader_damage(reader, 0, &offset, &length, &reason),
                         NVTXW_RESULT_SUCCESS);
        ck_assert_ptr_nonnull(reason);
        if (k >= 3)
            ck_assert_uint_le(offset, (uint64_t)points[k]);
        nvtxw_reader_close(reader);
    }
    truncate_copy(path, cut, (off_t)offsets[0] + 100); /* inside the session's chunk */
    {
        nvtxw_reader_t* reader = (nvtxw_reader_t*)1;
        ck_assert_int_ne(nvtxw_reader_open(cut, NULL, &reader), NVTXW_RESULT_SUCCESS);
        ck_assert_ptr_null(reader);
        ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "session record"));
    }
}
END_TEST

/* Minimal registrations: session, domain 0 with the "msg" and "ev" schemas
 * (and enum), one stream per `streams`. */
static void small_registrations(report* r, int streams) {
    enc_session(&r->b, "small", "", NULL);
    enc_domain(&r->b, "");
    enc_domain(&r->b, "app");
    schemas(&r->b);
    for (int s = 0; s < streams; s++)
        enc_stream_open(&r->b, 1, s ? "t1" : "t0", 0, 0);
    regs_chunk(r);
}

static void counter_sample(enc_buf* b, int64_t dt) {
    int32_t v = 1;
    enc_record(b, 0x21);
    enc_svar(b, dt);
    enc_uvar(b, 5);
    enc_bytes(b, &v, 4);
}

static int damage_mentions(nvtxw_reader_t* reader, const char* text) {
    for (size_t i = 0; i < nvtxw_reader_damage_count(reader); i++) {
        const char* reason;
        nvtxw_reader_damage(reader, i, NULL, NULL, &reason);
        if (strstr(reason, text) != NULL)
            return 1;
    }
    return 0;
}

START_TEST(malformed_records_skipped) {
    report r;
    nvtxw_reader_t* reader;
    report_begin(&r, path);
    small_registrations(&r, 1);
    counter_sample(&r.b, 0);
    counter_sample(&r.b, 1);
    enc_record(&r.b, 0x55); /* unknown kind without a length: the chunk ends here */
    counter_sample(&r.b, 1);
    enc_chunk(r.enc, ENC_KIND_EVENTS, 0, 10, 12, &r.b);
    counter_sample(&r.b, 0); /* an 11-byte varint */
    enc_record(&r.b, 0x21);
    for (int k = 0; k < 11; k++)
        enc_u8(&r.b, 0xFF);
    enc_chunk(r.enc, ENC_KIND_EVENTS, 0, 20, 20, &r.b);
    enc_event(&r.b, 0, 1, 0, 0, (uint64_t)1 << 40); /* payload count beyond the chunk */
    enc_chunk(r.enc, ENC_KIND_EVENTS, 0, 30, 30, &r.b);
    enc_event(&r.b, 0, 1, 0, 0, 1); /* a length beyond the chunk */
    enc_uvar(&r.b, 15);
    enc_u8(&r.b, 0);
    enc_uvar(&r.b, 1000);
    enc_chunk(r.enc, ENC_KIND_EVENTS, 0, 40, 40, &r.b);
    enc_event(&r.b, 0, 0, 0, 0, 1); /* ts-relative payload without an event timestamp */
    enc_payload(&r.b, EV_ID, 1, "0123456789abcdef01234567", 24);
    enc_event(&r.b, 0, 1, 0, 0, 1); /* ts-relative payload of a DYNAMIC schema */
    enc_payload(&r.b, MSG_ID, 1, "x", 1);
    enc_chunk(r.enc, ENC_KIND_EVENTS, 0, 50, 50, &r.b);
    counter_sample(&r.b, 0); /* events of a stream nobody opened */
    enc_chunk(r.enc, ENC_KIND_EVENTS, 7, 60, 60, &r.b);
    counter_sample(&r.b, 0);
    enc_chunk(r.enc, ENC_KIND_EVENTS, 0, 70, 70, &r.b);
    report_end(&r);

    reader = open_ok(path, NVTXW_READER_ORDER_STREAM);
    ck_assert_uint_eq(count_rest(reader), 8 + 2 + 1 + 1);
    ck_assert(damage_mentions(reader, "malformed record 2 in chunk of stream 0: unknown record"));
    ck_assert(damage_mentions(reader, "malformed record 1 in chunk of stream 0: varint"));
    ck_assert(damage_mentions(reader, "payload count exceeds the chunk"));
    ck_assert(damage_mentions(reader, "length exceeds the chunk"));
    ck_assert(damage_mentions(reader, "without a timestamp"));
    ck_assert(damage_mentions(
        reader,
        "records of stream 7, which no readable stream-open record declares; chunk skipped"));
    ck_assert_uint_eq(nvtxw_reader_damage_count(reader), 6);
    nvtxw_reader_close(reader);
}
END_TEST

/* Format 2's compact records (docs/report-records.md): 0x25 events with
 * schema references and fields payloads, 0x26 int64 samples, encoding 4 in
 * a 0x20 event, each in its lanes; and each way they can be malformed,
 * a cut lane and a bad lane table included. */
typedef struct ev_fields {
    int64_t ts;
    uint32_t color;
    uint32_t pad;
    uint64_t msg;
} ev_fields;

/* A compact "ev" event in the lanes of `L`; `with_id` for a new (or an
 * unnumbered) reference. Its fields: ts in field lane 0, color 1, msg 2. */
static void compact_ev(enc_buf* L, int64_t dt, uint64_t sref, int with_id, uint64_t color,
                       uint64_t msg) {
    enc_record(&L[0], 0x25);
    enc_svar(&L[ENC_LANE_TIME], dt);
    enc_uvar(&L[0], 1);
    enc_uvar(&L[0], sref);
    if (with_id)
        enc_uvar(&L[0], EV_ID);
    enc_svar(&L[ENC_LANE_FIELDS], 0); /* ts - event time */
    enc_uvar(&L[ENC_LANE_FIELDS + 1], color);
    enc_uvar(&L[ENC_LANE_FIELDS + 2], msg);
}

static ev_fields ev_of(const nvtxw_record_t* rec) {
    ev_fields v;
    ck_assert_int_eq(rec->kind, NVTXW_RECORD_EVENT);
    ck_assert_uint_eq(rec->u.event.count, 1);
    ck_assert_uint_eq(rec->u.event.payloads[0].schemaId, EV_ID);
    ck_assert_uint_eq(rec->u.event.payloads[0].size, sizeof v);
    memcpy(&v, rec->u.event.payloads[0].payload, sizeof v);
    return v;
}

START_TEST(compact_records) {
    report r;
    nvtxw_reader_t* reader;
    const nvtxw_record_t* rec;
    ev_fields v;
    int64_t sample;
    enc_buf L[ENC_LANES];
    memset(L, 0, sizeof L);
    report_begin(&r, path);
    enc_session(&r.b, "compact", "", NULL);
    enc_domain(&r.b, "");
    enc_record(&r.b, 0x02); /* domain 1 with handle serial 3 */
    enc_str(&r.b, "app");
    enc_uvar(&r.b, 3);
    schemas(&r.b);
    enc_stream_open(&r.b, 1, "t0", 0, 0);
    regs_chunk(&r);
    compact_ev(L, 100, 1, 1, 2, 7); /* numbers EV_ID as reference 1 */
    compact_ev(L, 5, 1, 0, 0, 0);   /* reference 1 */
    enc_lane_chunk(r.enc, 0, 100, 105, L);
    compact_ev(L, 200, 1, 1, 1, 0); /* a new chunk numbers from 1 again */
    enc_record(&L[0], 0x25);        /* reference 1, existing */
    enc_svar(&L[ENC_LANE_TIME], 5);
    enc_uvar(&L[0], 1);
    enc_uvar(&L[0], 1);
    enc_svar(&L[ENC_LANE_FIELDS], -3); /* ts 3 before the event */
    enc_uvar(&L[ENC_LANE_FIELDS + 1], 0xFFFFFFFFu);
    enc_uvar(&L[ENC_LANE_FIELDS + 2], 0);
    enc_record(&L[0], 0x26); /* int64 sample */
    enc_svar(&L[ENC_LANE_TIME], 1);
    enc_uvar(&L[0], C_ID);
    enc_svar(&L[ENC_LANE_VALUES], -42);
    enc_event(&L[0], 1, 1, 0, 0, 1); /* encoding 4 in a full event record: main lane only */
    enc_uvar(&L[0], EV_ID);
    enc_u8(&L[0], 4);
    enc_svar(&L[0], 0);
    enc_uvar(&L[0], 1);
    enc_uvar(&L[0], 2);
    enc_lane_chunk(r.enc, 0, 200, 207, L);
    compact_ev(L, 300, 2, 1, 0, 0); /* reference 2 with an empty table: beyond it */
    enc_lane_chunk(r.enc, 0, 300, 300, L);
    enc_record(&L[0], 0x25); /* a compact payload of a POINTER schema */
    enc_svar(&L[ENC_LANE_TIME], 400);
    enc_uvar(&L[0], 1);
    enc_uvar(&L[0], 0);
    enc_uvar(&L[0], PTR_ID);
    enc_lane_chunk(r.enc, 0, 400, 400, L);
    compact_ev(L, 500, 1, 1, (uint64_t)1 << 33, 0); /* a 4-byte enum holding 2^33 */
    enc_lane_chunk(r.enc, 0, 500, 500, L);
    enc_record(&L[0], 0x25); /* an unregistered schema */
    enc_svar(&L[ENC_LANE_TIME], 600);
    enc_uvar(&L[0], 1);
    enc_uvar(&L[0], 1);
    enc_uvar(&L[0], EV_ID + 100);
    enc_lane_chunk(r.enc, 0, 600, 600, L);
    compact_ev(L, 700, 1, 1, 0, (uint64_t)1 << 32); /* a handle index of 33 bits */
    enc_lane_chunk(r.enc, 0, 700, 700, L);
    compact_ev(L, 800, 1, 1, 0, 0); /* its time lane cut: the record ends early */
    L[ENC_LANE_TIME].size = 0;
    enc_lane_chunk(r.enc, 0, 800, 800, L);
    enc_uvar(&L[0], 7); /* a lane table of 7 lanes */
    for (int i = 0; i < 7; i++)
        enc_uvar(&L[0], 0);
    {
        container_chunk_meta meta = {ENC_KIND_EVENTS, 1, 0, 900, 900};
        ck_assert_int_eq(container_write_chunk(r.enc, &meta, L[0].data, L[0].size), 0);
        L[0].size = 0;
    }
    for (int i = 0; i < ENC_LANES; i++)
        enc_free(&L[i]);
    report_end(&r);

    reader = open_ok(path, NVTXW_READER_ORDER_STREAM);
    while ((rec = next(reader)) != NULL && rec->kind != NVTXW_RECORD_EVENT)
        ;
    ck_assert_ptr_nonnull(rec);
    v = ev_of(rec);
    ck_assert_int_eq(rec->timestamp, 100);
    ck_assert_int_eq(v.ts, 100);
    ck_assert_uint_eq(v.color, 2);
    ck_assert_uint_eq(v.pad, 0);
    ck_assert_uint_eq(v.msg, (uint64_t)3 << 32 | 7); /* the serial restored */
    rec = next(reader);
    ck_assert_ptr_nonnull(rec); /* the second compact event of chunk 1 */
    v = ev_of(rec);
    ck_assert_int_eq(rec->timestamp, 105);
    ck_assert_uint_eq(v.msg, 0);
    rec = next(reader);
    v = ev_of(rec);
    ck_assert_int_eq(rec->timestamp, 200);
    ck_assert_uint_eq(v.color, 1);
    rec = next(reader);
    v = ev_of(rec);
    ck_assert_int_eq(rec->timestamp, 205);
    ck_assert_int_eq(v.ts, 202);
    ck_assert_uint_eq(v.color, 0xFFFFFFFFu);
    rec = next(reader);
    ck_assert_int_eq(rec->kind, NVTXW_RECORD_COUNTER_SAMPLE);
    ck_assert_int_eq(rec->timestamp, 206);
    ck_assert_uint_eq(rec->u.counter_sample.counter_id, C_ID);
    ck_assert_uint_eq(rec->u.counter_sample.size, 8);
    memcpy(&sample, rec->u.counter_sample.data, 8);
    ck_assert_int_eq(sample, -42);
    rec = next(reader);
    v = ev_of(rec);
    ck_assert_int_eq(rec->timestamp, 207);
    ck_assert_uint_eq(v.msg, (uint64_t)3 << 32 | 2);
    ck_assert_uint_eq(count_rest(reader), 0);
    ck_assert(damage_mentions(reader, "schema reference beyond the chunk's table"));
    ck_assert(
        damage_mentions(reader, "compact event payload of a schema with no implied encoding"));
    ck_assert(damage_mentions(reader, "payload field value exceeds its type"));
    ck_assert(damage_mentions(reader, "payload of an unregistered schema"));
    ck_assert(damage_mentions(reader, "string handle index exceeds 32 bits"));
    ck_assert(damage_mentions(reader, "record ends inside a varint"));
    ck_assert(damage_mentions(reader, "lane count is not 9"));
    ck_assert_uint_eq(nvtxw_reader_damage_count(reader), 7);
    nvtxw_reader_close(reader);
}
END_TEST

START_TEST(malformed_registrations) {
    report r;
    nvtxw_reader_t* reader;
    report_begin(&r, path);
    small_registrations(&r, 1);
    enc_record(&r.b, 0x04); /* a string of domain 9 */
    enc_uvar(&r.b, 9);
    enc_str(&r.b, "lost");
    enc_stream_open(&r.b, 1, "never", 0, 0);
    regs_chunk(&r);
    enc_schema(&r.b, 1, "bad", NVTX_PAYLOAD_SCHEMA_TYPE_STATIC, 0, S_ID, 1); /* 0 entries ok, */
    enc_entry(&r.b, 0, 999, "unknown-type", 0, 0); /* but an unknown entry type */
    enc_domain(&r.b, "also lost");
    regs_chunk(&r);
    report_end(&r);
    reader = open_ok(path, NVTXW_READER_ORDER_STREAM);
    ck_assert_uint_eq(nvtxw_reader_stream_count(reader), 1);
    ck_assert_uint_eq(nvtxw_reader_domain_count(reader), 2);
    ck_assert_uint_eq(count_rest(reader), 1 + 2 + 4 + 1);
    ck_assert(damage_mentions(reader, "malformed record 0 in registration chunk: domain index"));
    ck_assert(damage_mentions(reader, "schema not accepted: cannot register schema \"bad\""));
    nvtxw_reader_close(reader);
}
END_TEST

START_TEST(interned_dictionary) {
    report r;
    trace t;
    const nvtxw_record_t* rec;
    nvtxw_reader_t* reader;
    report_begin(&r, path);
    small_registrations(&r, 1);
    for (int k = 0; k < 3; k++) { /* entries 0, 1, 2 */
        char text[2] = {(char)('a' + k), 0};
        enc_event(&r.b, 1, 1, 0, 0, 1);
        enc_uvar(&r.b, MSG_ID);
        enc_u8(&r.b, 2);
        enc_uvar(&r.b, (uint64_t)k);
        enc_bytes(&r.b, text, k == 1 ? 2 : 1); /* entry 1 holds its NUL */
    }
    enc_event(&r.b, 1, 1, 0, 0, 3); /* three references in one event */
    for (int k = 2; k >= 0; k--) {
        enc_uvar(&r.b, MSG_ID);
        enc_u8(&r.b, 2);
        enc_uvar(&r.b, (uint64_t)k);
    }
    enc_event(&r.b, 1, 1, 0, 0, 1); /* index 4 with 3 entries: malformed */
    enc_uvar(&r.b, MSG_ID);
    enc_u8(&r.b, 2);
    enc_uvar(&r.b, 4);
    enc_chunk(r.enc, ENC_KIND_EVENTS, 0, 0, 5, &r.b);
    enc_event(&r.b, 1, 1, 0, 0, 1); /* a new chunk starts an empty dictionary */
    enc_uvar(&r.b, MSG_ID);
    enc_u8(&r.b, 2);
    enc_uvar(&r.b, 1);
    enc_chunk(r.enc, ENC_KIND_EVENTS, 0, 0, 1, &r.b);
    report_end(&r);
    reader = open_ok(path, NVTXW_READER_ORDER_STREAM);
    while ((rec = next(reader)) != NULL && rec->kind != NVTXW_RECORD_EVENT)
        ;
    ck_assert_str_eq(visit(reader, rec, &t), "'a' ");
    ck_assert_str_eq(visit(reader, next(reader), &t), "'b' ");
    ck_assert_str_eq(visit(reader, next(reader), &t), "'c' ");
    rec = next(reader);
    ck_assert_int_eq(rec->timestamp, 4);
    ck_assert_uint_eq(rec->u.event.payloads[1].size, 2);
    ck_assert_str_eq(visit(reader, rec, &t), "'c' 'b' 'a' ");
    ck_assert_ptr_null(next(reader));
    ck_assert(damage_mentions(reader, "malformed record 4 in chunk of stream 0: interned index"));
    ck_assert(damage_mentions(reader, "malformed record 0 in chunk of stream 0: interned index"));
    nvtxw_reader_close(reader);
}
END_TEST

START_TEST(delta_timestamps) {
    static const int64_t ts[] = {INT64_MIN + 1, -5, 1000000000000, -1000000000000, 0, INT64_MAX};
    report r;
    const nvtxw_record_t* rec;
    nvtxw_reader_t* reader;
    int i = 0;
    report_begin(&r, path);
    small_registrations(&r, 1);
    raw_events(&r.b, ts, 6);
    enc_chunk(r.enc, ENC_KIND_EVENTS, 0, 7, 7, &r.b);
    report_end(&r);
    reader = open_ok(path, NVTXW_READER_ORDER_TIME);
    while ((rec = next(reader)) != NULL)
        if (rec->kind == NVTXW_RECORD_EVENT)
            ck_assert_int_eq(rec->timestamp, ts[i++]);
    ck_assert_int_eq(i, 6);
    nvtxw_reader_close(reader);
}
END_TEST

START_TEST(newer_major_refused) {
    nvtxw_reader_t* reader = NULL;
    int fd;
    uint16_t major = CONTAINER_VERSION_MAJOR + 1;
    build_full(path, NULL);
    fd = open(path, O_WRONLY);
    ck_assert(fd >= 0 && pwrite(fd, &major, 2, 8) == 2);
    close(fd);
    ck_assert_int_ne(nvtxw_reader_open(path, NULL, &reader), NVTXW_RESULT_SUCCESS);
    ck_assert_ptr_null(reader);
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "newer than this reader"));
}
END_TEST

START_TEST(foreign_abi_refused) {
    static const uint8_t abi[5] = {4, 4, 2, 8, 0};
    nvtxw_reader_t* reader = NULL;
    build_full(path, abi);
    ck_assert_int_eq(nvtxw_reader_open(path, NULL, &reader), NVTXW_RESULT_NOT_SUPPORTED);
    ck_assert_ptr_null(reader);
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "written on another ABI (pointer 4"));
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "big-endian"));
}
END_TEST

START_TEST(bad_arguments) {
    nvtxw_reader_t* reader = NULL;
    nvtxw_reader_options_t opts = {sizeof opts, 7, 0};
    const nvtxw_record_t* rec;
    build_full(path, NULL);
    ck_assert_int_eq(nvtxw_reader_open(NULL, NULL, &reader), NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_int_eq(nvtxw_reader_open(path, &opts, &reader), NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_int_ne(nvtxw_reader_open("/nonexistent/x.nvtxw", NULL, &reader),
                     NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(nvtxw_reader_next(NULL, &rec), NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_int_eq(nvtxw_reader_damage(NULL, 0, NULL, NULL, NULL), NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_ptr_null(nvtxw_reader_registry(NULL, 0));
    ck_assert_uint_eq(nvtxw_reader_stream_count(NULL), 0);
    ck_assert_ptr_null(nvtxw_reader_stream_name(NULL, 0));
    ck_assert_ptr_null(nvtxw_reader_domain_name(NULL, 0));
    nvtxw_reader_close(NULL);
    opts.order = NVTXW_READER_ORDER_STREAM;
    opts.flags = NVTXW_READER_SCAN;
    ck_assert_int_eq(nvtxw_reader_open(path, &opts, &reader), NVTXW_RESULT_SUCCESS);
    ck_assert_ptr_nonnull(nvtxw_reader_registry(reader, 1));
    ck_assert_ptr_null(nvtxw_reader_registry(reader, 2));
    ck_assert_uint_eq(count_rest(reader), FULL_REGISTRATIONS + FULL_STREAM_RECORDS);
    ck_assert_ptr_null(next(reader)); /* stays at the end */
    nvtxw_reader_close(reader);
}
END_TEST

/* Random bytes as stream and registration chunk contents: never a crash,
 * hang or unbounded allocation (run under ASan/UBSan too). */
START_TEST(random_chunks) {
    uint64_t x = 0x9E3779B97F4A7C15ull;
    report r;
    nvtxw_reader_t* reader;
    report_begin(&r, path);
    small_registrations(&r, 2);
    for (int c = 0; c < 300; c++) {
        size_t n = (size_t)(c % 97) + 1;
        for (size_t k = 0; k < n; k++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            enc_u8(&r.b, k == 0 ? (uint8_t)(0x20 + x % 5) : (uint8_t)(x >> 24));
        }
        r.b.records = 1;
        if (c % 50 == 0)
            regs_chunk(&r);
        else
            enc_chunk(r.enc, ENC_KIND_EVENTS, (uint64_t)(c % 2), (int64_t)x, 0, &r.b);
    }
    report_end(&r);
    for (int order = 0; order < 2; order++) {
        const nvtxw_record_t* rec;
        reader = open_ok(path, order);
        while ((rec = next(reader)) != NULL) {
            if (rec->kind == NVTXW_RECORD_EVENT) {
                trace t;
                nvtxw_visitor_t v;
                memset(&v, 0, sizeof v);
                v.struct_size = sizeof v;
                nvtxw_reader_visit_event(reader, rec, &v, &t);
            }
        }
        ck_assert_uint_gt(nvtxw_reader_damage_count(reader), 0);
        nvtxw_reader_close(reader);
    }
}
END_TEST

/* Replays the full report through the library's own backend into the text
 * sink: every registration and record goes through the table, handles and
 * pointers rewritten. */
START_TEST(replay_to_text) {
    char out[192], config[256], text[16384];
    const void* iface = NULL;
    nvtxw_reader_t* reader;
    uint64_t records = 0;
    FILE* f;
    size_t n;
    build_full(path, NULL);
    snprintf(out, sizeof out, "%s/out.txt", dir);
    snprintf(config, sizeof config, "Sink=text|Output=%s|Overwrite=yes", out);
    ck_assert_int_eq(nvtxwGetInterface(NVTXW_INTERFACE_VERSION, &iface), NVTXW_RESULT_SUCCESS);
    reader = open_ok(path, NVTXW_READER_ORDER_TIME);
    ck_assert_msg(nvtxw_reader_replay(reader, iface, config, &records) == NVTXW_RESULT_SUCCESS,
                  "replay: %s", nvtxw_last_error());
    ck_assert_uint_eq(records, FULL_REGISTRATIONS + FULL_STREAM_RECORDS);
    nvtxw_reader_close(reader);
    f = fopen(out, "r");
    ck_assert_ptr_nonnull(f);
    n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    ck_assert_ptr_nonnull(strstr(text, "world"));
    ck_assert_ptr_nonnull(strstr(text, "ptr!"));
    ck_assert_ptr_nonnull(strstr(text, "again"));
    unlink(out);
}
END_TEST

/* Writes a small session through the backend table into the report sink. */
/* The attributes of a STATIC schema of `count` entries. */
static void static_schema(nvtxPayloadSchemaAttr_t* schema, nvtxPayloadSchemaEntry_t* entries,
                          size_t count) {
    memset(schema, 0, sizeof *schema);
    schema->fieldMask = NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE |
                        NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES |
                        NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES;
    schema->type = NVTX_PAYLOAD_SCHEMA_TYPE_STATIC;
    schema->entries = entries;
    schema->numEntries = count;
}

static void write_through_table(const nvtxwInterface_t* t, const char* file) {
    char config[256];
    nvtxwSessionAttributes_t sattr = {sizeof sattr, "rt", config};
    nvtxwDomainAttributes_t dattr = {sizeof dattr, "dom"};
    nvtxwStreamAttributes_t stattr;
    nvtxPayloadSchemaEntry_t entries[2] = {
        {NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP, NVTX_PAYLOAD_ENTRY_TYPE_INT64, "ts", NULL, 0, 0, NULL,
         NULL},
        {0, NVTX_PAYLOAD_ENTRY_TYPE_NVTX_REGISTERED_STRING_HANDLE, "msg", NULL, 0, 8, NULL, NULL}};
    nvtxPayloadSchemaAttr_t schema;
    nvtxwSessionHandle_t session;
    nvtxDomainHandle_t domain;
    nvtxwStreamHandle_t stream;
    nvtxStringHandle_t str;
    nvtxSyncPoint_t sync[1] = {{1, 2}};
    uint64_t id, counter;
    nvtxCounterAttr_t cattr = {sizeof cattr, NVTX_PAYLOAD_ENTRY_TYPE_INT64, "c", NULL, 0, NULL, 0};
    snprintf(config, sizeof config, "Sink=report|Output=%s|Overwrite=yes", file);
    static_schema(&schema, entries, 2);
    memset(&stattr, 0, sizeof stattr);
    stattr.structSize = sizeof stattr;
    stattr.name = "w0";
    ck_assert_int_eq(t->SessionBegin(&sattr, &session), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(t->DomainRegister(session, &dattr, &domain), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(t->StringRegister(domain, "named", &str), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(t->SchemaRegister(domain, &schema, &id), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(t->CounterRegister(domain, &cattr, &counter), NVTXW_RESULT_SUCCESS);
    stattr.domain = domain;
    ck_assert_int_eq(t->StreamOpen(session, &stattr, &stream), NVTXW_RESULT_SUCCESS);
    for (int64_t k = 0; k < 50; k++) {
        struct {
            int64_t ts;
            uint64_t msg;
        } ev = {1000 - 7 * k, (uint64_t)(uintptr_t)str};
        int64_t v = k * k;
        nvtxPayloadData_t p[2] = {{id, sizeof ev, &ev},
                                  {NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF8, 3, k % 2 ? "odd" : "evn"}};
        ck_assert_int_eq(t->EventWrite(stream, p, 2), NVTXW_RESULT_SUCCESS);
        ck_assert_int_eq(t->CounterWrite(stream, 2000 + k, counter, &v, 8), NVTXW_RESULT_SUCCESS);
    }
    ck_assert_int_eq(t->TimeSyncPointTableWrite(stream, 14, 12, sync, 1), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(t->StreamClose(stream), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(t->SessionEnd(session), NVTXW_RESULT_SUCCESS);
}

/* One line per record: kind, stream, time and the event's decoded values. */
static void describe(nvtxw_reader_t* reader, const nvtxw_record_t* r, char* out, size_t size) {
    trace t;
    int n = snprintf(out, size, "%d s%lld t%d:%lld ", (int)r->kind,
                     r->stream == NVTXW_READER_NONE ? -1LL : (long long)r->stream, r->has_timestamp,
                     (long long)r->timestamp);
    if (r->kind == NVTXW_RECORD_EVENT)
        snprintf(out + n, size - (size_t)n, "%s", visit(reader, r, &t));
    else if (r->kind == NVTXW_RECORD_COUNTER_SAMPLE)
        snprintf(out + n, size - (size_t)n, "%lld",
                 (long long)*(const int64_t*)r->u.counter_sample.data);
    else if (r->kind == NVTXW_RECORD_STRING)
        snprintf(out + n, size - (size_t)n, "%s", r->u.string.text);
}

/* nvtxw_reader_time_range: the smallest and largest timestamp of the
 * records read back (events from 1000 down to 657, counter samples 2000 to
 * 2049), known from the chunk headers at open; 0 for NULL. */
START_TEST(time_range_from_chunk_headers) {
    const void* iface = NULL;
    nvtxw_reader_t* reader;
    const nvtxw_record_t* rec;
    int64_t first = 1, last = 1, lo = INT64_MAX, hi = INT64_MIN;
    ck_assert_int_eq(nvtxwGetInterface(NVTXW_INTERFACE_VERSION, &iface), NVTXW_RESULT_SUCCESS);
    write_through_table(iface, path);
    reader = open_ok(path, NVTXW_READER_ORDER_STREAM);
    ck_assert_int_eq(nvtxw_reader_time_range(reader, &first, &last), 1);
    while ((rec = next(reader)) != NULL) {
        if (rec->has_timestamp && rec->timestamp < lo)
            lo = rec->timestamp;
        if (rec->has_timestamp && rec->timestamp > hi)
            hi = rec->timestamp;
    }
    ck_assert_int_eq(lo, 657);
    ck_assert_int_eq(hi, 2049);
    ck_assert_int_eq(first, lo);
    ck_assert_int_eq(last, hi);
    nvtxw_reader_close(reader);
    ck_assert_int_eq(nvtxw_reader_time_range(NULL, &first, &last), 0);
}
END_TEST

/* A chunk whose records carry no time declares 0 and 0 in its header: the
 * range must skip it, not widen down to 0 (a stream holding only a sync
 * point table beside events at epoch times). NULL outputs are allowed. */
START_TEST(time_range_skips_untimed_chunks) {
    const nvtxwInterface_t* t = NULL;
    char config[256];
    nvtxwSessionAttributes_t sattr = {sizeof sattr, "untimed", config};
    nvtxwDomainAttributes_t dattr = {sizeof dattr, "dom"};
    nvtxwStreamAttributes_t stattr;
    nvtxPayloadSchemaEntry_t entries[1] = {{NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP,
                                            NVTX_PAYLOAD_ENTRY_TYPE_INT64, "ts", NULL, 0, 0, NULL,
                                            NULL}};
    nvtxPayloadSchemaAttr_t schema;
    nvtxwSessionHandle_t session;
    nvtxDomainHandle_t domain;
    nvtxwStreamHandle_t timed, untimed;
    nvtxSyncPoint_t sync[1] = {{1, 2}};
    uint64_t id;
    int64_t first = 1, last = 1;
    const int64_t epoch = 1700000000000000000LL;
    nvtxw_reader_t* reader;
    ck_assert_int_eq(nvtxwGetInterface(NVTXW_INTERFACE_VERSION, (const void**)&t),
                     NVTXW_RESULT_SUCCESS);
    snprintf(config, sizeof config, "Sink=report|Output=%s|Overwrite=yes", path);
    static_schema(&schema, entries, 1);
    memset(&stattr, 0, sizeof stattr);
    stattr.structSize = sizeof stattr;
    ck_assert_int_eq(t->SessionBegin(&sattr, &session), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(t->DomainRegister(session, &dattr, &domain), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(t->SchemaRegister(domain, &schema, &id), NVTXW_RESULT_SUCCESS);
    stattr.domain = domain;
    stattr.name = "timed";
    ck_assert_int_eq(t->StreamOpen(session, &stattr, &timed), NVTXW_RESULT_SUCCESS);
    stattr.name = "untimed";
    ck_assert_int_eq(t->StreamOpen(session, &stattr, &untimed), NVTXW_RESULT_SUCCESS);
    for (int64_t k = 0; k < 10; k++) {
        int64_t ts = epoch + 10 * k;
        nvtxPayloadData_t p = {id, sizeof ts, &ts};
        ck_assert_int_eq(t->EventWrite(timed, &p, 1), NVTXW_RESULT_SUCCESS);
    }
    ck_assert_int_eq(t->TimeSyncPointTableWrite(untimed, 14, 12, sync, 1), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(t->SessionEnd(session), NVTXW_RESULT_SUCCESS);
    reader = open_ok(path, NVTXW_READER_ORDER_STREAM);
    ck_assert_int_eq(nvtxw_reader_time_range(reader, &first, &last), 1);
    ck_assert_int_eq(first, epoch);
    ck_assert_int_eq(last, epoch + 90);
    ck_assert_int_eq(nvtxw_reader_time_range(reader, NULL, &last), 1);
    ck_assert_int_eq(nvtxw_reader_time_range(reader, NULL, NULL), 1);
    nvtxw_reader_close(reader);
}
END_TEST

/* Producer -> report sink -> reader -> replay -> report sink -> reader: the
 * two reports read back record for record alike. */
START_TEST(round_trip_through_report_sink) {
    char second[192], a[600], b[600];
    const void* iface = NULL;
    nvtxw_reader_t *ra, *rb;
    const nvtxw_record_t *x, *y;
    uint64_t records = 0, events = 0;
    ck_assert_int_eq(nvtxwGetInterface(NVTXW_INTERFACE_VERSION, &iface), NVTXW_RESULT_SUCCESS);
    write_through_table(iface, path);
    snprintf(second, sizeof second, "%s/second.nvtxw", dir);
    ra = open_ok(path, NVTXW_READER_ORDER_STREAM);
    snprintf(a, sizeof a, "Sink=report|Output=%s|Overwrite=yes", second);
    ck_assert_msg(nvtxw_reader_replay(ra, iface, a, &records) == NVTXW_RESULT_SUCCESS, "%s",
                  nvtxw_last_error());
    ck_assert_uint_eq(nvtxw_reader_damage_count(ra), 0);
    nvtxw_reader_close(ra);
    ra = open_ok(path, NVTXW_READER_ORDER_STREAM);
    rb = open_ok(second, NVTXW_READER_ORDER_STREAM);
    do {
        x = next(ra);
        y = next(rb);
        ck_assert((x == NULL) == (y == NULL));
        if (x == NULL)
            break;
        describe(ra, x, a, sizeof a);
        describe(rb, y, b, sizeof b);
        ck_assert_str_eq(a, b);
        if (x->kind == NVTXW_RECORD_EVENT) {
            ck_assert_int_eq(x->timestamp, 1000 - 7 * (int64_t)events);
            trace t;
            char expect[64];
            snprintf(expect, sizeof expect, "%lld H:named '%s' ", (long long)x->timestamp,
                     events % 2 ? "odd" : "evn");
            ck_assert_str_eq(visit(ra, x, &t), expect);
            events++;
        }
    } while (1);
    ck_assert_uint_eq(events, 50);
    ck_assert_uint_eq(nvtxw_reader_record_count(ra), records);
    nvtxw_reader_close(ra);
    nvtxw_reader_close(rb);
}
END_TEST

/* A report through the library's sink whose registration log spans
 * several chunks: stream "early" opened before 2000 strings, "late" after
 * them, 100 INT64 events on each. */
#define DAMAGE_STRINGS 2000
static void write_long_registration_log(const char* file) {
    const nvtxwInterface_t* t = NULL;
    char config[256], text[64];
    nvtxwSessionAttributes_t sattr = {sizeof sattr, "damage", config};
    nvtxwDomainAttributes_t dattr = {sizeof dattr, "dom"};
    nvtxwStreamAttributes_t stattr;
    nvtxwSessionHandle_t session;
    nvtxDomainHandle_t domain;
    nvtxwStreamHandle_t streams[2];
    ck_assert_int_eq(nvtxwGetInterface(NVTXW_INTERFACE_VERSION, (const void**)&t),
                     NVTXW_RESULT_SUCCESS);
    snprintf(config, sizeof config, "Sink=report|Output=%s", file);
    memset(&stattr, 0, sizeof stattr);
    stattr.structSize = sizeof stattr;
    ck_assert_int_eq(t->SessionBegin(&sattr, &session), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(t->DomainRegister(session, &dattr, &domain), NVTXW_RESULT_SUCCESS);
    stattr.domain = domain;
    stattr.name = "early";
    ck_assert_int_eq(t->StreamOpen(session, &stattr, &streams[0]), NVTXW_RESULT_SUCCESS);
    for (int k = 0; k < DAMAGE_STRINGS; k++) {
        nvtxStringHandle_t h;
        snprintf(text, sizeof text, "string %04d of the registration log", k);
        ck_assert_int_eq(t->StringRegister(domain, text, &h), NVTXW_RESULT_SUCCESS);
    }
    stattr.name = "late";
    ck_assert_int_eq(t->StreamOpen(session, &stattr, &streams[1]), NVTXW_RESULT_SUCCESS);
    for (int64_t k = 0; k < 200; k++) {
        nvtxPayloadData_t p = {NVTX_PAYLOAD_ENTRY_TYPE_INT64, 8, &k};
        ck_assert_int_eq(t->EventWrite(streams[k % 2], &p, 1), NVTXW_RESULT_SUCCESS);
    }
    ck_assert_int_eq(t->StreamClose(streams[0]), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(t->StreamClose(streams[1]), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(t->SessionEnd(session), NVTXW_RESULT_SUCCESS);
}

/* A copy of `from` with one byte inverted at `at`. */
static void flip_copy(const char* from, const char* to, uint64_t at) {
    size_t size = 0;
    char* data = tu_read_file_or_null(from, &size);
    FILE* f;
    ck_assert_ptr_nonnull(data);
    ck_assert_uint_lt(at, size);
    data[at] = (char)~data[at];
    f = fopen(to, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(data, 1, size, f), size);
    fclose(f);
    free(data);
}

static size_t count_events(nvtxw_reader_t* reader) {
    const nvtxw_record_t* rec;
    size_t n = 0;
    while ((rec = next(reader)) != NULL)
        n += rec->kind == NVTXW_RECORD_EVENT;
    return n;
}

static int has_damage_at(nvtxw_reader_t* reader, uint64_t at, const char* text) {
    for (size_t i = 0; i < nvtxw_reader_damage_count(reader); i++) {
        uint64_t offset;
        const char* reason;
        nvtxw_reader_damage(reader, i, &offset, NULL, &reason);
        if (offset == at && strstr(reason, text) != NULL)
            return 1;
    }
    return 0;
}

/* The strings of write_long_registration_log after one chunk was lost:
 * some are gone, the others keep their numbers. */
static void check_some_strings_lost(nvtxw_reader_t* reader) {
    size_t strings = 0;
    for (uint64_t h = 1; h <= DAMAGE_STRINGS; h++) {
        const char* text = nvtxw_reader_string(reader, 0, h);
        char want[64];
        snprintf(want, sizeof want, "string %04d of the registration log", (int)(h - 1));
        if (text != NULL)
            ck_assert_str_eq(text, want);
        strings += text != NULL;
    }
    ck_assert_uint_lt(strings, DAMAGE_STRINGS);
    ck_assert_uint_gt(strings, DAMAGE_STRINGS / 2);
}

/* One damaged registration chunk costs the registrations it held and the
 * events that need them, each said with its offset and reason; the session
 * record has a chunk of its own, and when that one is damaged the refusal
 * says where and why. */
START_TEST(damaged_registration_chunk_costs_its_records) {
    uint64_t offsets[64], regs[64];
    uint32_t kinds[64];
    size_t n, nregs = 0, i;
    char copy[192];
    nvtxw_reader_t* reader;
    write_long_registration_log(path);
    n = chunk_offsets(path, offsets, kinds, 64);
    size_t before_events = 0; /* registration chunks before the first event chunk */
    for (i = 0; i < n; i++) {
        if (kinds[i] == 1)
            regs[nregs++] = offsets[i];
        else if (before_events == 0)
            before_events = nregs;
    }
    ck_assert_uint_ge(nregs, 4);               /* session, then 16 KiB pieces of the log */
    ck_assert_uint_lt(regs[1] - regs[0], 400); /* the session's chunk holds it alone */
    snprintf(copy, sizeof copy, "%s/flipped.nvtxw", dir);
    /* a middle chunk: only strings are lost */
    flip_copy(path, copy, regs[2] + (regs[3] - regs[2]) / 2);
    reader = open_ok(copy, NVTXW_READER_ORDER_STREAM);
    ck_assert(has_damage_at(reader, regs[2], "registration chunk"));
    ck_assert_uint_eq(nvtxw_reader_stream_count(reader), 2);
    check_some_strings_lost(reader);
    ck_assert_uint_eq(count_events(reader), 200);
    nvtxw_reader_close(reader);
    /* the last chunk before the events holds the late stream's open: its
     * events are skipped and counted */
    ck_assert_uint_ge(before_events, 4);
    flip_copy(path, copy, regs[before_events - 1] + 70);
    reader = open_ok(copy, NVTXW_READER_ORDER_STREAM);
    ck_assert(has_damage_at(reader, regs[before_events - 1], "registration chunk"));
    ck_assert(damage_mentions(reader, "100 records of stream 1, which no readable stream-open "
                                      "record declares (a registration chunk is damaged)"));
    ck_assert_uint_eq(count_events(reader), 100);
    nvtxw_reader_close(reader);
    /* the session's own chunk: refused, naming the offset and the reason */
    flip_copy(path, copy, regs[0] + 70);
    reader = (nvtxw_reader_t*)1;
    ck_assert_int_eq(nvtxw_reader_open(copy, NULL, &reader), NVTXW_RESULT_FAILED);
    ck_assert_ptr_null(reader);
    {
        char want[128];
        snprintf(want, sizeof want, "no readable session record: damage at offset %llu: ",
                 (unsigned long long)regs[0]);
        ck_assert_msg(strstr(nvtxw_last_error(), want) != NULL, "%s", nvtxw_last_error());
    }
}
END_TEST

/* Opens `file` ignoring its footer index (as for a crashed writer's file). */
static nvtxw_reader_t* open_scanning(const char* file) {
    nvtxw_reader_options_t opts;
    nvtxw_reader_t* reader = NULL;
    memset(&opts, 0, sizeof opts);
    opts.struct_size = sizeof opts;
    opts.flags = NVTXW_READER_SCAN;
    ck_assert_int_eq(nvtxw_reader_open(file, &opts, &reader), NVTXW_RESULT_SUCCESS);
    return reader;
}

/* Without a usable index (a crashed writer's file) a damaged chunk is found
 * by the scan, not listed as a chunk: one whose payload is damaged (its
 * header still says it held registrations) or whose header is damaged must
 * still cost only its own records, not every later registration chunk
 * (whose index markers skip the records it held). */
START_TEST(damaged_registration_chunk_found_by_a_scan_costs_its_records) {
    uint64_t offsets[64], regs[64];
    uint32_t kinds[64];
    size_t n, nregs = 0, i;
    char copy[192];
    write_long_registration_log(path);
    n = chunk_offsets(path, offsets, kinds, 64);
    for (i = 0; i < n; i++)
        if (kinds[i] == 1)
            regs[nregs++] = offsets[i];
    ck_assert_uint_ge(nregs, 4);
    snprintf(copy, sizeof copy, "%s/flipped.nvtxw", dir);
    for (int in_header = 0; in_header <= 1; in_header++) {
        nvtxw_reader_t* reader;
        flip_copy(path, copy, in_header ? regs[2] + 8 : regs[2] + (regs[3] - regs[2]) / 2);
        reader = open_scanning(copy);
        ck_assert(has_damage_at(reader, regs[2],
                                in_header ? "bad chunk header" : "payload checksum mismatch"));
        ck_assert(!damage_mentions(reader, "index marker"));
        ck_assert_uint_eq(nvtxw_reader_stream_count(reader), 2);
        check_some_strings_lost(reader);
        ck_assert_uint_eq(count_events(reader), 200);
        nvtxw_reader_close(reader);
    }
}
END_TEST

/* Writes a report with `write` at `path` and a copy at `copy` whose third
 * of four registration chunks is damaged, in its payload or (`in_header`)
 * its header; its offset in `*at`. */
static void damage_third_chunk(void (*write)(const char*), int in_header, char* copy,
                               size_t copy_size, uint64_t* at) {
    uint64_t offsets[32], regs[4];
    uint32_t kinds[32];
    size_t n, nregs = 0;
    write(path);
    n = chunk_offsets(path, offsets, kinds, 32);
    for (size_t i = 0; i < n; i++)
        if (kinds[i] == 1 && nregs < 4)
            regs[nregs++] = offsets[i];
    ck_assert_uint_eq(nregs, 4);
    snprintf(copy, copy_size, "%s/flipped.nvtxw", dir);
    flip_copy(path, copy, in_header ? regs[2] + 8 : regs[2] + (regs[3] - regs[2]) / 2);
    *at = regs[2];
}

static void write_and_damage_third_chunk(void (*write)(const char*), char* copy, size_t copy_size,
                                         uint64_t* at) {
    damage_third_chunk(write, 0, copy, copy_size, at);
}

/* A report written before index markers: the registration log in four
 * chunks (session; domain "app" with strings 0-1 and stream A; strings 2-3
 * and stream B; strings 4-5 and stream C), then 3 events of each stream. */
static void write_markerless_log(const char* file) {
    static const int64_t ts[] = {10, 20, 30};
    static const char* const names[] = {"A", "B", "C"};
    char text[32];
    report r;
    report_begin(&r, file);
    enc_session(&r.b, "old", "", NULL);
    regs_chunk(&r);
    for (int k = 0; k < 3; k++) {
        if (k == 0)
            enc_domain(&r.b, "app");
        for (int i = 2 * k; i < 2 * k + 2; i++) {
            snprintf(text, sizeof text, "string %d", i);
            enc_record(&r.b, 0x04);
            enc_uvar(&r.b, 0);
            enc_str(&r.b, text);
        }
        enc_stream_open(&r.b, 0, names[k], 0, 0);
        regs_chunk(&r);
    }
    for (uint64_t stream = 0; stream < 3; stream++) {
        raw_events(&r.b, ts, 3);
        enc_chunk(r.enc, ENC_KIND_EVENTS, stream, 10, 30, &r.b);
    }
    report_end(&r);
}

/* Without markers the numbers after a lost chunk are unknown: the later
 * strings and stream are dropped and counted, never read under the lost
 * ones' numbers (string 4 as string 2, stream C with B's events). */
START_TEST(damaged_chunk_without_markers_drops_later_numbers) {
    uint64_t lost;
    char copy[192];
    nvtxw_reader_t* reader;
    const nvtxw_record_t* rec;
    write_and_damage_third_chunk(write_markerless_log, copy, sizeof copy, &lost);
    reader = open_ok(path, NVTXW_READER_ORDER_STREAM); /* undamaged: all of it */
    ck_assert_uint_eq(nvtxw_reader_stream_count(reader), 3);
    ck_assert_str_eq(nvtxw_reader_string(reader, 0, 5), "string 4");
    ck_assert_uint_eq(count_events(reader), 9);
    nvtxw_reader_close(reader);
    for (int order = NVTXW_READER_ORDER_STREAM; order <= NVTXW_READER_ORDER_TIME; order++) {
        size_t strings = 0, streams = 0, events = 0;
        reader = open_ok(copy, order);
        ck_assert(has_damage_at(reader, lost, "registration chunk"));
        ck_assert(damage_mentions(reader, "3 domain, string and stream-open records after this "
                                          "damaged registration chunk carry no index marker"));
        ck_assert(damage_mentions(reader, "3 records of stream 1, which no readable stream-open "
                                          "record declares"));
        ck_assert(damage_mentions(reader, "3 records of stream 2, which no readable stream-open "
                                          "record declares"));
        ck_assert_uint_eq(nvtxw_reader_stream_count(reader), 1);
        ck_assert_str_eq(nvtxw_reader_stream_name(reader, 0), "A");
        ck_assert_str_eq(nvtxw_reader_string(reader, 0, 1), "string 0");
        ck_assert_str_eq(nvtxw_reader_string(reader, 0, 2), "string 1");
        for (uint64_t h = 3; h <= 6; h++)
            ck_assert_ptr_null(nvtxw_reader_string(reader, 0, h));
        while ((rec = next(reader)) != NULL) { /* what is handed out agrees */
            strings += rec->kind == NVTXW_RECORD_STRING;
            streams += rec->kind == NVTXW_RECORD_STREAM_OPEN;
            events += rec->kind == NVTXW_RECORD_EVENT;
            if (rec->kind == NVTXW_RECORD_STRING)
                ck_assert_uint_lt(rec->u.string.index, 2);
            if (rec->kind == NVTXW_RECORD_EVENT)
                ck_assert_uint_eq(rec->stream, 0);
        }
        ck_assert_uint_eq(strings, 2);
        ck_assert_uint_eq(streams, 1);
        ck_assert_uint_eq(events, 3);
        nvtxw_reader_close(reader);
    }
}
END_TEST

/* Small registration records for the damage tests below. */
static void enc_string(enc_buf* b, uint64_t domain, const char* text) {
    enc_record(b, 0x04);
    enc_uvar(b, domain);
    enc_str(b, text);
}

static void enc_category(enc_buf* b, uint64_t domain, uint64_t id, const char* name) {
    enc_record(b, 0x03);
    enc_uvar(b, domain);
    enc_uvar(b, id);
    enc_str(b, name);
}

static void enc_stream_close(enc_buf* b, uint64_t stream) {
    enc_record(b, 0x0C);
    enc_uvar(b, stream);
}

/* A resource named by string `string_plus_one` (0: by its message). */
static void enc_resource(enc_buf* b, uint64_t domain, uint64_t string_plus_one) {
    enc_record(b, 0x05);
    enc_uvar(b, domain);
    enc_svar(b, 1);
    enc_uvar(b, 42);
    enc_svar(b, 1);
    enc_str(b, "res");
    enc_uvar(b, string_plus_one);
}

/* An index marker (not a counted record): the next record of `kind` has
 * number `index` (all below 128, so one byte each). */
static void enc_marker(enc_buf* b, uint8_t kind, uint8_t domain, uint8_t index) {
    const uint8_t body[3] = {kind, domain, index};
    enc_u8(b, 0x7F);
    enc_uvar(b, 1);
    enc_bytes(b, body, sizeof body);
}

static void three_events(report* r, uint64_t stream) {
    static const int64_t ts[] = {10, 20, 30};
    raw_events(&r->b, ts, 3);
    enc_chunk(r->enc, ENC_KIND_EVENTS, stream, 10, 30, &r->b);
}

/* A report without markers whose third registration chunk (domain "lib"
 * and its stream B) will be lost; the fourth names both. */
static void write_markerless_orphans(const char* file) {
    report r;
    report_begin(&r, file);
    enc_session(&r.b, "old", "", NULL);
    regs_chunk(&r);
    enc_domain(&r.b, "app"); /* domain 0 */
    enc_string(&r.b, 0, "s0");
    enc_stream_open(&r.b, 0, "A", 0, 0); /* stream 0 */
    regs_chunk(&r);
    enc_domain(&r.b, "lib"); /* domain 1, lost */
    enc_string(&r.b, 0, "s1");
    enc_stream_open(&r.b, 1, "B", 0, 0); /* stream 1, lost */
    regs_chunk(&r);
    enc_string(&r.b, 1, "lib s0");      /* names a lost domain */
    enc_category(&r.b, 1, 7, "libcat"); /* too */
    enc_string(&r.b, 0, "s2");          /* number unknown without markers */
    enc_resource(&r.b, 0, 1);           /* names s0: kept */
    enc_resource(&r.b, 0, 2);           /* names the lost s1 */
    enc_stream_close(&r.b, 1);          /* a lost stream */
    enc_category(&r.b, 0, 3, "appcat");
    enc_stream_close(&r.b, 0);
    regs_chunk(&r);
    three_events(&r, 0);
    three_events(&r, 1);
    report_end(&r);
}

/* What a reader hands out after damage to its registration log, by kind:
 * strings and categories per domain, resources per string named (index +
 * 1), closes and events per stream; each stream open is checked against
 * `names` (NULL for a stream whose open is lost), of `streams` streams. */
#define TALLY_MAX 8
typedef struct tally {
    size_t strings[TALLY_MAX], categories[TALLY_MAX], resources[TALLY_MAX];
    size_t opens, closes[TALLY_MAX], events[TALLY_MAX];
} tally;

static void tally_records(nvtxw_reader_t* reader, const char* const* names, uint64_t streams,
                          tally* t) {
    const nvtxw_record_t* rec;
    ck_assert_uint_le(streams, TALLY_MAX);
    memset(t, 0, sizeof *t);
    while ((rec = next(reader)) != NULL) {
        if (rec->kind == NVTXW_RECORD_STRING || rec->kind == NVTXW_RECORD_CATEGORY) {
            ck_assert_uint_lt(rec->domain, TALLY_MAX);
            (rec->kind == NVTXW_RECORD_STRING ? t->strings : t->categories)[rec->domain]++;
        } else if (rec->kind == NVTXW_RECORD_RESOURCE) {
            ck_assert_uint_lt(rec->u.resource.message_string, TALLY_MAX);
            t->resources[rec->u.resource.message_string]++;
        } else if (rec->kind == NVTXW_RECORD_STREAM_OPEN) {
            ck_assert_uint_lt(rec->stream, streams);
            ck_assert_ptr_nonnull(names[rec->stream]);
            ck_assert_str_eq(rec->u.stream_open.name, names[rec->stream]);
            t->opens++;
        } else if (rec->kind == NVTXW_RECORD_STREAM_CLOSE || rec->kind == NVTXW_RECORD_EVENT) {
            ck_assert_uint_lt(rec->stream, streams);
            (rec->kind == NVTXW_RECORD_EVENT ? t->events : t->closes)[rec->stream]++;
        }
    }
}

/* Whether `counts` holds `want` at `at` and 0 elsewhere. */
static void assert_only(const size_t* counts, size_t at, size_t want) {
    for (size_t i = 0; i < TALLY_MAX; i++)
        ck_assert_msg(counts[i] == (i == at ? want : 0), "%zu at %zu", counts[i], i);
}

/* Records that name a lost domain, string or stream are dropped one by one
 * and counted; they do not cost the rest of their chunk. */
START_TEST(records_naming_lost_registrations_are_dropped_alone) {
    uint64_t lost;
    char copy[192];
    write_and_damage_third_chunk(write_markerless_orphans, copy, sizeof copy, &lost);
    for (int order = NVTXW_READER_ORDER_STREAM; order <= NVTXW_READER_ORDER_TIME; order++) {
        static const char* const names[] = {"A", NULL};
        tally t;
        nvtxw_reader_t* reader = open_ok(copy, order);
        ck_assert(has_damage_at(reader, lost, "registration chunk"));
        ck_assert(!damage_mentions(reader, "malformed record"));
        ck_assert(damage_mentions(reader, "1 domain, string and stream-open records after"));
        ck_assert(damage_mentions(reader,
                                  "4 records after this damage to the registration log name "
                                  "a domain, string or stream whose record was lost"));
        ck_assert_uint_eq(nvtxw_reader_domain_count(reader), 1);
        tally_records(reader, names, 2, &t);
        assert_only(t.categories, 0, 1); /* "appcat" */
        assert_only(t.resources, 1, 1);  /* the one naming s0 */
        assert_only(t.closes, 0, 1);
        assert_only(t.strings, 0, 1);
        assert_only(t.events, 0, 3);
        ck_assert_uint_eq(t.opens, 1);
        nvtxw_reader_close(reader);
    }
}
END_TEST

/* Begins a report with index markers: the session's chunk, then domain 0
 * "app" with its marker, in a chunk left open. */
static void begin_marked_report(report* r, const char* file) {
    report_begin(r, file);
    enc_session(&r->b, "new", "", NULL);
    regs_chunk(r);
    enc_marker(&r->b, 0x02, 0, 0);
    enc_domain(&r->b, "app");
}

/* A report with markers whose third chunk (domain "lib", streams 1 and 2)
 * will be lost. The fourth closes stream 1 before a marker fills its
 * placeholder and stream 2 after, and opens stream 4 in the lost domain. */
static void write_marked_orphans(const char* file) {
    report r;
    begin_marked_report(&r, file);
    enc_marker(&r.b, 0x0B, 0, 0);
    enc_stream_open(&r.b, 0, "A", 0, 0);
    regs_chunk(&r);
    enc_marker(&r.b, 0x02, 0, 1);
    enc_domain(&r.b, "lib");
    enc_marker(&r.b, 0x0B, 0, 1);
    enc_stream_open(&r.b, 0, "B", 0, 0);
    enc_stream_open(&r.b, 1, "B2", 0, 0);
    regs_chunk(&r);
    enc_stream_close(&r.b, 1);
    enc_marker(&r.b, 0x04, 1, 0);
    enc_string(&r.b, 1, "lib s0");
    enc_marker(&r.b, 0x0B, 0, 3);
    enc_stream_open(&r.b, 0, "C", 0, 0); /* 3 */
    enc_stream_open(&r.b, 1, "D", 0, 0); /* 4, in the lost domain */
    enc_stream_open(&r.b, 0, "E", 0, 0); /* 5 */
    enc_stream_close(&r.b, 2);
    enc_stream_close(&r.b, 3);
    enc_stream_close(&r.b, 0);
    regs_chunk(&r);
    for (uint64_t stream = 0; stream < 6; stream++)
        three_events(&r, stream);
    report_end(&r);
}

/* Both passes drop the same closes (the opening pass used to drop a close
 * its count had not reached while the emitting pass handed it out), and a
 * stream opened in a lost domain keeps its number so later ones keep
 * theirs. */
START_TEST(closes_and_opens_of_lost_streams_are_dropped_in_both_passes) {
    static const char* const names[] = {"A", NULL, NULL, "C", NULL, "E"};
    uint64_t lost;
    char copy[192];
    write_and_damage_third_chunk(write_marked_orphans, copy, sizeof copy, &lost);
    for (int order = NVTXW_READER_ORDER_STREAM; order <= NVTXW_READER_ORDER_TIME; order++) {
        tally t;
        nvtxw_reader_t* reader = open_ok(copy, order);
        ck_assert(has_damage_at(reader, lost, "registration chunk"));
        ck_assert(!damage_mentions(reader, "malformed record"));
        ck_assert(damage_mentions(reader,
                                  "4 records after this damage to the registration log name "
                                  "a domain, string or stream whose record was lost"));
        ck_assert(damage_mentions(reader, "3 records of stream 4, which no readable stream-open"));
        ck_assert_uint_eq(nvtxw_reader_stream_count(reader), 6);
        for (uint64_t s = 0; s < 6; s++)
            if (names[s] != NULL)
                ck_assert_str_eq(nvtxw_reader_stream_name(reader, s), names[s]);
        tally_records(reader, names, 6, &t);
        ck_assert_uint_eq(t.opens, 3);
        for (uint64_t s = 0; s < 6; s++) {
            ck_assert_uint_eq(t.closes[s], s == 0 || s == 3);
            ck_assert_uint_eq(t.events[s], names[s] != NULL ? 3 : 0);
        }
        nvtxw_reader_close(reader);
    }
}
END_TEST

/* A report with markers whose third chunk (domain "lib" with a string and
 * a stream) will be lost. The fourth names "lib" before a marker gives it a
 * placeholder (101 strings, their marker skipped) and after (a marker for
 * its strings, a string, a category, a stream open), between records of
 * the later domain "late"; it ends in a record of "lib" cut short. */
static void write_lost_domain_named_later(const char* file) {
    report r;
    begin_marked_report(&r, file);
    regs_chunk(&r);
    enc_marker(&r.b, 0x02, 0, 1);
    enc_domain(&r.b, "lib"); /* domain 1, lost */
    enc_marker(&r.b, 0x04, 1, 0);
    enc_string(&r.b, 1, "lib s0");
    enc_marker(&r.b, 0x0B, 0, 0);
    enc_stream_open(&r.b, 1, "L", 0, 0); /* stream 0, lost */
    regs_chunk(&r);
    enc_marker(&r.b, 0x04, 1, 1);
    for (int i = 1; i <= 100; i++) {
        char text[32];
        snprintf(text, sizeof text, "lib s%d", i);
        enc_string(&r.b, 1, text);
    }
    enc_marker(&r.b, 0x02, 0, 2);
    enc_domain(&r.b, "late"); /* domain 2: domain 1 becomes a placeholder */
    enc_marker(&r.b, 0x04, 1, 101);
    enc_string(&r.b, 1, "lib s101");
    enc_category(&r.b, 1, 7, "libcat");
    enc_marker(&r.b, 0x04, 2, 0);
    enc_string(&r.b, 2, "late s0");
    enc_marker(&r.b, 0x0B, 0, 1);
    enc_stream_open(&r.b, 2, "M", 0, 0); /* 1 */
    enc_stream_open(&r.b, 1, "N", 0, 0); /* 2, in the lost domain */
    enc_stream_open(&r.b, 0, "P", 0, 0); /* 3 */
    enc_record(&r.b, 0x03);              /* a category of "lib" whose name is cut */
    enc_uvar(&r.b, 1);
    enc_uvar(&r.b, 8);
    enc_uvar(&r.b, 100);
    regs_chunk(&r);
    for (uint64_t stream = 0; stream < 4; stream++)
        three_events(&r, stream);
    report_end(&r);
}

/* A domain lost with its chunk stays lost when a later marker numbers past
 * it: its strings are neither filled in under the placeholder nor refused
 * as a marker skipping more than the damage held, and every record naming
 * it is dropped and counted once (the cut one as malformed alone). */
START_TEST(records_of_a_lost_domain_stay_dropped_after_its_placeholder) {
    static const char* const names[] = {NULL, "M", NULL, "P"};
    uint64_t lost;
    char copy[192];
    write_and_damage_third_chunk(write_lost_domain_named_later, copy, sizeof copy, &lost);
    for (int order = NVTXW_READER_ORDER_STREAM; order <= NVTXW_READER_ORDER_TIME; order++) {
        tally t;
        nvtxw_reader_t* reader = open_ok(copy, order);
        ck_assert(has_damage_at(reader, lost, "registration chunk"));
        ck_assert(!damage_mentions(reader, "index marker"));
        ck_assert(damage_mentions(reader, "malformed record 107 in registration chunk"));
        ck_assert(damage_mentions(reader, "103 records after this damage to the registration log "
                                          "name a domain, string or stream whose record was lost"));
        ck_assert_uint_eq(nvtxw_reader_domain_count(reader), 3);
        ck_assert_str_eq(nvtxw_reader_domain_name(reader, 2), "late");
        ck_assert_str_eq(nvtxw_reader_string(reader, 2, 1), "late s0");
        for (uint64_t h = 1; h <= 102; h++)
            ck_assert_ptr_null(nvtxw_reader_string(reader, 1, h));
        ck_assert_uint_eq(nvtxw_reader_stream_count(reader), 4);
        tally_records(reader, names, 4, &t);
        assert_only(t.strings, 2, 1);
        assert_only(t.categories, 0, 0);
        ck_assert_uint_eq(t.opens, 2);
        for (uint64_t s = 0; s < 4; s++)
            ck_assert_uint_eq(t.events[s], names[s] != NULL ? 3 : 0);
        nvtxw_reader_close(reader);
    }
}
END_TEST

/* A registration chunk whose fourth record (after a marker and three
 * strings) is malformed loses it and the two strings after it; the next
 * chunk's marker skips those three. */
static void write_malformed_after_marker(const char* file) {
    report r;
    begin_marked_report(&r, file);
    enc_marker(&r.b, 0x04, 0, 0);
    enc_string(&r.b, 0, "s0");
    enc_string(&r.b, 0, "s1");
    enc_string(&r.b, 0, "s2");
    enc_string(&r.b, 5, "names no domain"); /* malformed: nothing was lost before */
    enc_string(&r.b, 0, "s4");
    enc_string(&r.b, 0, "s5");
    regs_chunk(&r);
    enc_marker(&r.b, 0x04, 0, 6);
    enc_string(&r.b, 0, "s6");
    regs_chunk(&r);
    report_end(&r);
}

/* What a malformed record costs is counted in records as the chunk's
 * record count counts them, without its markers: the next marker may skip
 * all of them (it was refused when markers were counted as records). */
START_TEST(malformed_record_after_markers_costs_what_the_marker_skips) {
    nvtxw_reader_t* reader;
    write_malformed_after_marker(path);
    reader = open_ok(path, NVTXW_READER_ORDER_STREAM);
    ck_assert(damage_mentions(reader, "malformed record 4 in registration chunk: domain index "
                                      "out of range"));
    ck_assert(!damage_mentions(reader, "index marker"));
    for (uint64_t h = 1; h <= 3; h++) {
        char want[8];
        snprintf(want, sizeof want, "s%d", (int)(h - 1));
        ck_assert_str_eq(nvtxw_reader_string(reader, 0, h), want);
    }
    for (uint64_t h = 4; h <= 6; h++)
        ck_assert_ptr_null(nvtxw_reader_string(reader, 0, h));
    ck_assert_str_eq(nvtxw_reader_string(reader, 0, 7), "s6");
    nvtxw_reader_close(reader);
}
END_TEST

/* A report with markers whose third chunk (domain "lib", stream "L") will
 * have its header damaged; the fourth names "lib" first. */
static void write_domain_named_after_unknown_damage(const char* file) {
    report r;
    begin_marked_report(&r, file);
    regs_chunk(&r);
    enc_marker(&r.b, 0x02, 0, 1);
    enc_domain(&r.b, "lib"); /* domain 1 */
    enc_marker(&r.b, 0x0B, 0, 0);
    enc_stream_open(&r.b, 1, "L", 0, 0); /* stream 0 */
    regs_chunk(&r);
    enc_string(&r.b, 1, "lib s0");
    enc_category(&r.b, 1, 7, "libcat");
    enc_string(&r.b, 0, "app s0");
    enc_marker(&r.b, 0x02, 0, 2);
    enc_domain(&r.b, "late"); /* domain 2 */
    enc_marker(&r.b, 0x0B, 0, 1);
    enc_stream_open(&r.b, 2, "M", 0, 0); /* stream 1 */
    regs_chunk(&r);
    three_events(&r, 0);
    three_events(&r, 1);
    report_end(&r);
}

/* A range with a damaged header, found by a scan, may have held
 * registrations: records naming what it may have held are dropped alone
 * and counted, as after a known loss, not taken as malformed records that
 * cost the rest of their chunk. */
START_TEST(records_naming_what_unknown_damage_held_are_dropped_alone) {
    uint64_t lost;
    char copy[192];
    nvtxw_reader_t* reader;
    damage_third_chunk(write_domain_named_after_unknown_damage, 1, copy, sizeof copy, &lost);
    reader = open_scanning(copy);
    ck_assert(has_damage_at(reader, lost, "bad chunk header"));
    ck_assert(!damage_mentions(reader, "malformed record"));
    ck_assert(has_damage_at(reader, lost, "2 records after this damage to the registration log"));
    ck_assert_uint_eq(nvtxw_reader_domain_count(reader), 3);
    ck_assert_str_eq(nvtxw_reader_domain_name(reader, 2), "late");
    ck_assert_str_eq(nvtxw_reader_string(reader, 0, 1), "app s0");
    ck_assert_ptr_null(nvtxw_reader_string(reader, 1, 1));
    ck_assert_uint_eq(nvtxw_reader_stream_count(reader), 2);
    ck_assert_str_eq(nvtxw_reader_stream_name(reader, 1), "M");
    ck_assert_uint_eq(count_events(reader), 3);
    nvtxw_reader_close(reader);
}
END_TEST

/* Time order against a second implementation: a merge that scans every
 * stream's head for the least (timestamp, stream index). Stream counts
 * around powers of two, streams without events, timestamps that tie across
 * streams and go back within one, and one stream long enough for several
 * chunks. */
#define MERGE_MAX_STREAMS 33
#define MERGE_LONG 70000

static void merge_write(const nvtxwInterface_t* t, const char* file, int streams,
                        int64_t* const ts[], const size_t* counts) {
    char config[256];
    nvtxwSessionAttributes_t sattr = {sizeof sattr, "merge", config};
    nvtxwDomainAttributes_t dattr = {sizeof dattr, "dom"};
    nvtxPayloadSchemaEntry_t entry = {NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP,
                                      NVTX_PAYLOAD_ENTRY_TYPE_INT64,
                                      "ts",
                                      NULL,
                                      0,
                                      0,
                                      NULL,
                                      NULL};
    nvtxPayloadSchemaAttr_t schema;
    nvtxwSessionHandle_t session;
    nvtxDomainHandle_t domain;
    nvtxwStreamHandle_t handles[MERGE_MAX_STREAMS];
    uint64_t id;
    snprintf(config, sizeof config, "Sink=report|Output=%s|Overwrite=yes", file);
    static_schema(&schema, &entry, 1);
    ck_assert_int_eq(t->SessionBegin(&sattr, &session), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(t->DomainRegister(session, &dattr, &domain), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(t->SchemaRegister(domain, &schema, &id), NVTXW_RESULT_SUCCESS);
    for (int k = 0; k < streams; k++) {
        nvtxwStreamAttributes_t stattr;
        char name[16];
        memset(&stattr, 0, sizeof stattr);
        snprintf(name, sizeof name, "s%d", k);
        stattr.structSize = sizeof stattr;
        stattr.name = name;
        stattr.domain = domain;
        ck_assert_int_eq(t->StreamOpen(session, &stattr, &handles[k]), NVTXW_RESULT_SUCCESS);
    }
    for (int k = 0; k < streams; k++) {
        for (size_t i = 0; i < counts[k]; i++) {
            nvtxPayloadData_t p = {id, sizeof ts[k][i], &ts[k][i]};
            ck_assert_int_eq(t->EventWrite(handles[k], &p, 1), NVTXW_RESULT_SUCCESS);
        }
    }
    for (int k = 0; k < streams; k++)
        ck_assert_int_eq(t->StreamClose(handles[k]), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(t->SessionEnd(session), NVTXW_RESULT_SUCCESS);
}

START_TEST(time_order_matches_a_linear_merge) {
    static const int stream_counts[] = {1, 2, 3, 5, 8, 13, 33};
    const void* iface = NULL;
    uint64_t rng = 0x2545F4914F6CDD1Du;
    ck_assert_int_eq(nvtxwGetInterface(NVTXW_INTERFACE_VERSION, &iface), NVTXW_RESULT_SUCCESS);
    for (size_t c = 0; c < sizeof stream_counts / sizeof stream_counts[0]; c++) {
        int streams = stream_counts[c];
        int64_t* ts[MERGE_MAX_STREAMS];
        size_t counts[MERGE_MAX_STREAMS], heads[MERGE_MAX_STREAMS] = {0}, total = 0, got = 0;
        nvtxw_reader_t* reader;
        const nvtxw_record_t* r;
        for (int k = 0; k < streams; k++) {
            int64_t now = 0;
            rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
            counts[k] = k == 2 ? MERGE_LONG : (k % 4 == 3 ? 0 : (size_t)(rng % 300));
            ts[k] = malloc((counts[k] + 1) * sizeof *ts[k]);
            ck_assert_ptr_nonnull(ts[k]);
            for (size_t i = 0; i < counts[k]; i++) {
                rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
                now += (int64_t)(rng % 8) - (rng % 16 == 0 ? 9 : 0); /* ties; sometimes back */
                ts[k][i] = now;
            }
            total += counts[k];
        }
        merge_write(iface, path, streams, ts, counts);
        reader = open_ok(path, NVTXW_READER_ORDER_TIME);
        while ((r = next(reader)) != NULL) {
            int best = -1;
            if (r->kind != NVTXW_RECORD_EVENT)
                continue;
            for (int k = 0; k < streams; k++)
                if (heads[k] < counts[k] && (best < 0 || ts[k][heads[k]] < ts[best][heads[best]]))
                    best = k;
            ck_assert_int_ge(best, 0);
            ck_assert_msg(r->stream == (uint64_t)best && r->timestamp == ts[best][heads[best]],
                          "%d streams, record %zu: got %llu:%lld, want %d:%lld", streams, got,
                          (unsigned long long)r->stream, (long long)r->timestamp, best,
                          (long long)ts[best][heads[best]]);
            heads[best]++;
            got++;
        }
        ck_assert_uint_eq(got, total);
        ck_assert_uint_eq(nvtxw_reader_damage_count(reader), 0);
        nvtxw_reader_close(reader);
        for (int k = 0; k < streams; k++)
            free(ts[k]);
    }
}
END_TEST

/* Runs: streams whose events are mostly of one schema (decoded ahead lane
 * by lane, reader_records.c) interrupted now and then by an event of
 * another schema and a counter sample. Every event reads back with its
 * values in stream order, in time order, and after a seek made in the
 * middle of a run. Stream s event k: time 1000 + 10 k + s, value
 * k * 1000003 + s (a multi-byte varint), and every 37th event of schema
 * "other" (value and flag). */
#define RUN_EVENTS 300
typedef struct run_event {
    int64_t ts;
    uint64_t msg;
    uint32_t value;
} run_event;
typedef struct other_event {
    int64_t ts;
    int8_t flag;
} other_event;

static void write_runs(const char* file) {
    const nvtxwInterface_t* t = NULL;
    char config[256];
    nvtxwSessionAttributes_t sattr = {sizeof sattr, "runs", config};
    nvtxwDomainAttributes_t dattr = {sizeof dattr, "dom"};
    nvtxwStreamAttributes_t stattr;
    nvtxPayloadSchemaEntry_t run_entries[3] = {
        {NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP, NVTX_PAYLOAD_ENTRY_TYPE_INT64, "ts", NULL, 0, 0, NULL,
         NULL},
        {0, NVTX_PAYLOAD_ENTRY_TYPE_NVTX_REGISTERED_STRING_HANDLE, "msg", NULL, 0, 8, NULL, NULL},
        {0, NVTX_PAYLOAD_ENTRY_TYPE_UINT32, "value", NULL, 0, 16, NULL, NULL}};
    nvtxPayloadSchemaEntry_t other_entries[2] = {
        {NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP, NVTX_PAYLOAD_ENTRY_TYPE_INT64, "ts", NULL, 0, 0, NULL,
         NULL},
        {0, NVTX_PAYLOAD_ENTRY_TYPE_INT8, "flag", NULL, 0, 8, NULL, NULL}};
    nvtxPayloadSchemaAttr_t run_schema, other_schema;
    nvtxwSessionHandle_t session;
    nvtxDomainHandle_t domain;
    nvtxwStreamHandle_t streams[2];
    nvtxStringHandle_t str;
    uint64_t run_id, other_id, counter;
    nvtxCounterAttr_t cattr = {sizeof cattr, NVTX_PAYLOAD_ENTRY_TYPE_INT64, "c", NULL, 0, NULL, 0};
    ck_assert_int_eq(nvtxwGetInterface(NVTXW_INTERFACE_VERSION, (const void**)&t),
                     NVTXW_RESULT_SUCCESS);
    snprintf(config, sizeof config, "Sink=report|Output=%s|Overwrite=yes", file);
    static_schema(&run_schema, run_entries, 3);
    static_schema(&other_schema, other_entries, 2);
    ck_assert_int_eq(t->SessionBegin(&sattr, &session), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(t->DomainRegister(session, &dattr, &domain), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(t->StringRegister(domain, "step", &str), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(t->SchemaRegister(domain, &run_schema, &run_id), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(t->SchemaRegister(domain, &other_schema, &other_id), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(t->CounterRegister(domain, &cattr, &counter), NVTXW_RESULT_SUCCESS);
    for (int s = 0; s < 2; s++) {
        memset(&stattr, 0, sizeof stattr);
        stattr.structSize = sizeof stattr;
        stattr.name = s ? "w1" : "w0";
        stattr.domain = domain;
        ck_assert_int_eq(t->StreamOpen(session, &stattr, &streams[s]), NVTXW_RESULT_SUCCESS);
    }
    for (int64_t k = 0; k < RUN_EVENTS; k++) {
        for (int s = 0; s < 2; s++) {
            int64_t ts = 1000 + 10 * k + s, v = k;
            run_event ev = {ts, (uint64_t)(uintptr_t)str, (uint32_t)(k * 1000003 + s)};
            other_event other = {ts, (int8_t)-k};
            nvtxPayloadData_t p = {k % 37 == 36 ? other_id : run_id,
                                   k % 37 == 36 ? sizeof other : sizeof ev,
                                   k % 37 == 36 ? (const void*)&other : (const void*)&ev};
            ck_assert_int_eq(t->EventWrite(streams[s], &p, 1), NVTXW_RESULT_SUCCESS);
            if (k % 50 == 49)
                ck_assert_int_eq(t->CounterWrite(streams[s], ts, counter, &v, 8),
                                 NVTXW_RESULT_SUCCESS);
        }
    }
    for (int s = 0; s < 2; s++)
        ck_assert_int_eq(t->StreamClose(streams[s]), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(t->SessionEnd(session), NVTXW_RESULT_SUCCESS);
}

/* Checks an event of stream s as write_runs wrote its k-th; returns k. */
static int64_t check_run_event(const nvtxw_record_t* rec) {
    int s = (int)rec->stream;
    int64_t k = (rec->timestamp - 1000 - s) / 10;
    const nvtxPayloadData_t* p = &rec->u.event.payloads[0];
    ck_assert_int_eq(rec->timestamp, 1000 + 10 * k + s);
    ck_assert_uint_eq(rec->u.event.count, 1);
    if (k % 37 == 36) {
        const other_event* o = p->payload;
        ck_assert_uint_eq(p->size, sizeof *o);
        ck_assert_int_eq(o->ts, rec->timestamp);
        ck_assert_int_eq(o->flag, (int8_t)-k);
    } else {
        const run_event* e = p->payload;
        ck_assert_uint_eq(p->size, sizeof *e);
        ck_assert_int_eq(e->ts, rec->timestamp);
        ck_assert_uint_eq(e->value, (uint32_t)(k * 1000003 + s));
        ck_assert_uint_ne(e->msg, 0);
    }
    return k;
}

START_TEST(runs_of_one_schema) {
    int64_t expect[2] = {0, 0}, last = INT64_MIN;
    const nvtxw_record_t* rec;
    nvtxw_reader_t* reader;
    write_runs(path);
    for (int order = 0; order < 2; order++) {
        reader = open_ok(path, order ? NVTXW_READER_ORDER_TIME : NVTXW_READER_ORDER_STREAM);
        expect[0] = expect[1] = 0;
        last = INT64_MIN;
        while ((rec = next(reader)) != NULL) {
            if (rec->kind != NVTXW_RECORD_EVENT)
                continue;
            ck_assert_int_eq(check_run_event(rec), expect[rec->stream]++);
            if (order) { /* time order: the two streams interleave */
                ck_assert_int_gt(rec->timestamp, last);
                last = rec->timestamp;
            }
        }
        ck_assert_int_eq(expect[0], RUN_EVENTS);
        ck_assert_int_eq(expect[1], RUN_EVENTS);
        ck_assert_uint_eq(nvtxw_reader_damage_count(reader), 0);
        nvtxw_reader_close(reader);
    }
    /* a seek in the middle of a run starts the stream over */
    reader = open_ok(path, NVTXW_READER_ORDER_STREAM);
    expect[0] = 0;
    while (expect[0] < 10 && (rec = next(reader)) != NULL)
        if (rec->kind == NVTXW_RECORD_EVENT)
            ck_assert_int_eq(check_run_event(rec), expect[0]++);
    ck_assert_int_eq(nvtxw_reader_seek_stream(reader, 0), NVTXW_RESULT_SUCCESS);
    expect[0] = 0;
    while ((rec = next(reader)) != NULL) {
        ck_assert_uint_eq(rec->stream, 0);
        if (rec->kind == NVTXW_RECORD_EVENT)
            ck_assert_int_eq(check_run_event(rec), expect[0]++);
    }
    ck_assert_int_eq(expect[0], RUN_EVENTS);
    nvtxw_reader_close(reader);
}
END_TEST

int main(void) {
    Suite* s = suite_create("reader");
    TCase* tc = tcase_create("reader");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, every_record_kind);
    tcase_add_test(tc, stream_and_time_order);
    tcase_add_test(tc, seek_stream);
    tcase_add_test(tc, truncated_reports);
    tcase_add_test(tc, malformed_records_skipped);
    tcase_add_test(tc, malformed_registrations);
    tcase_add_test(tc, compact_records);
    tcase_add_test(tc, interned_dictionary);
    tcase_add_test(tc, delta_timestamps);
    tcase_add_test(tc, newer_major_refused);
    tcase_add_test(tc, foreign_abi_refused);
    tcase_add_test(tc, bad_arguments);
    tcase_add_test(tc, random_chunks);
    tcase_add_test(tc, replay_to_text);
    tcase_add_test(tc, round_trip_through_report_sink);
    tcase_add_test(tc, damaged_registration_chunk_costs_its_records);
    tcase_add_test(tc, damaged_chunk_without_markers_drops_later_numbers);
    tcase_add_test(tc, records_naming_lost_registrations_are_dropped_alone);
    tcase_add_test(tc, closes_and_opens_of_lost_streams_are_dropped_in_both_passes);
    tcase_add_test(tc, records_of_a_lost_domain_stay_dropped_after_its_placeholder);
    tcase_add_test(tc, records_naming_what_unknown_damage_held_are_dropped_alone);
    tcase_add_test(tc, malformed_record_after_markers_costs_what_the_marker_skips);
    tcase_add_test(tc, damaged_registration_chunk_found_by_a_scan_costs_its_records);
    tcase_add_test(tc, time_order_matches_a_linear_merge);
    tcase_add_test(tc, runs_of_one_schema);
    tcase_add_test(tc, time_range_from_chunk_headers);
    tcase_add_test(tc, time_range_skips_untimed_chunks);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
