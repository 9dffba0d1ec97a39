/*
 * tests/unit/sqlite_test.c - Sink=sqlite through the NVTXW v2 table, driven
 * by the helpers of nvtxw/helpers.h with known timestamps, then read back
 * with the sqlite3 API: exact rows of every table the session touched, and
 * the example queries of docs/sqlite-schema.md (range summary, top-N
 * longest ranges, one stream's events in a time window) with their exact
 * results. Payloads: by default each event's payloads as bytes in
 * `payload` (exact bytes checked) and no JSON text; with PayloadJson=yes
 * payload_json and value_json too, a field read both ways; a bad
 * PayloadJson value fails SessionBegin naming the key. Four threads write
 * four streams at once (TSan in CI), with enough rows that pops close
 * pushes of earlier batches. A bad Output path fails SessionBegin naming
 * the path; an existing output needs Overwrite. Streams closed while their
 * batches wait for the inserter thread keep their rows; an insert failing
 * there (RLIMIT_FSIZE) reaches the writer and SessionEnd, and no file is
 * left.
 * test_bench prints the rows/s of 1M ranges (NVTXW_SQLITE_BENCH_RANGES
 * overrides the count).
 */
#define _GNU_SOURCE
#include <check.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "nvtxw/abi.h"
#include "nvtxw/backend.h"
#include "nvtxw/error.h"
#include "nvtxw/helpers.h"
#include "test_util.h"

#define OK(call) ck_assert_int_eq((call), NVTXW_RESULT_SUCCESS)

static const nvtxwInterface_t* T;
static char dir[PATH_MAX], out_path[PATH_MAX + 16];

static void setup(void) {
    tu_make_temp_dir_or_fail(dir, sizeof dir, "nvtxw-sqlite");
    snprintf(out_path, sizeof out_path, "%s/out.sqlite", dir);
    T = tu_get_interface_or_fail();
}

static void teardown(void) { tu_remove_tree(dir); }

static nvtxwResultCode_t try_begin(const char* output, const char* extra,
                                   nvtxwSessionHandle_t* session) {
    nvtxwSessionAttributes_t attr;
    char config[PATH_MAX + 256];
    snprintf(config, sizeof config, "Sink=sqlite|Output=%s%s", output, extra);
    nvtxwSessionAttributesInit(&attr);
    attr.name = "sqlite-test";
    attr.configString = config;
    return T->SessionBegin(&attr, session);
}

static nvtxwSessionHandle_t begin(void) {
    nvtxwSessionHandle_t session = NULL;
    nvtxwResultCode_t rc = try_begin(out_path, "|Overwrite=yes", &session);
    ck_assert_msg(rc == NVTXW_RESULT_SUCCESS, "SessionBegin: %s", nvtxw_last_error());
    return session;
}

static void end(nvtxwSessionHandle_t session) {
    nvtxwResultCode_t rc = T->SessionEnd(session);
    ck_assert_msg(rc == NVTXW_RESULT_SUCCESS, "SessionEnd: %s", nvtxw_last_error());
}

/* Every row of `sql` as "a|b|c\n" lines (NULL as "-"); caller frees. */
static char* query(sqlite3* db, const char* sql) {
    sqlite3_stmt* stmt = NULL;
    char* text = NULL;
    size_t size = 0;
    FILE* out = open_memstream(&text, &size);
    int rc, i;
    ck_assert_msg(sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) == SQLITE_OK, "%s: %s", sql,
                  sqlite3_errmsg(db));
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        for (i = 0; i < sqlite3_column_count(stmt); i++) {
            const unsigned char* v = sqlite3_column_text(stmt, i);
            fprintf(out, "%s%s", i ? "|" : "", v ? (const char*)v : "-");
        }
        fputc('\n', out);
    }
    ck_assert_msg(rc == SQLITE_DONE, "%s: %s", sql, sqlite3_errmsg(db));
    sqlite3_finalize(stmt);
    fclose(out);
    return text;
}

static void expect(sqlite3* db, const char* sql, const char* expected) {
    char* got = query(db, sql);
    ck_assert_msg(strcmp(got, expected) == 0, "%s\ngot:\n%s\nexpected:\n%s", sql, got, expected);
    free(got);
}

static sqlite3* open_db(void) {
    sqlite3* db = NULL;
    ck_assert_int_eq(sqlite3_open_v2(out_path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    return db;
}

static nvtxwEventAttributesUtf8_t utf8(uint32_t color, uint32_t category, const char* message) {
    nvtxwEventAttributesUtf8_t attr = {color, category, 0, message};
    return attr;
}

static nvtxwEventAttributes_t reg(nvtxDomainHandle_t domain, const char* text) {
    nvtxwEventAttributes_t attr = {0, 0, 0};
    OK(T->StringRegister(domain, text, &attr.message));
    return attr;
}

/* The helper schema IDs of stream main (write_session). */
static nvtxwEventHelperSchemaIds_t main_ids;

/* main (default domain, scope "node/proc"): outer 0..1000 (red, cat 3) holds
 * split inner 100..400 and registered inner 500..900; mark "tick" at 50;
 * work 2000..2100, 2200..2500; start 7 at 4000 ended on io at 4500.
 * io (domain net): send 3000..3500 pushpop, recv 3000..3600 startend. */
static void write_session(nvtxwSessionHandle_t session) {
    nvtxDomainHandle_t def, net;
    nvtxwEventWriter_t m, io;
    uint64_t ints, floats, clock1, clock2;
    nvtxSyncPoint_t point = {10, 20};
    OK(nvtxwDomainRegister(T, session, NULL, &def));
    OK(nvtxwDomainRegister(T, session, "net", &net));
    OK(nvtxwCategoryRegister(T, def, 3, "compute"));
    OK(nvtxwEventWriterOpen(T, session, "main", def, "node/proc", 0, &m));
    OK(nvtxwEventWriterOpen(T, session, "io", net, NULL, 0, &io));
    main_ids = m.schemaIds;
    OK(nvtxwRangePushPopWriteUtf8(&m, 0, 1000, utf8(0xffff0000u, 3, "outer")));
    OK(nvtxwMarkWriteUtf8(&m, 50, utf8(0, 0, "tick")));
    OK(nvtxwRangePushWriteUtf8(&m, 100, utf8(0, 0, "inner")));
    OK(nvtxwRangePopWrite(&m, 400));
    OK(nvtxwRangePushWrite(&m, 500, reg(def, "inner")));
    OK(nvtxwRangePopWrite(&m, 900));
    OK(nvtxwRangePushPopWriteUtf8(&m, 2000, 2100, utf8(0, 0, "work")));
    OK(nvtxwRangePushPopWriteUtf8(&m, 2200, 2500, utf8(0, 0, "work")));
    OK(nvtxwRangePushPopWrite(&io, 3000, 3500, reg(net, "send")));
    OK(nvtxwRangeStartEndWrite(&io, 3000, 3600, reg(net, "recv")));
    OK(nvtxwRangeStartWriteUtf8(&m, 4000, 7, utf8(0, 0, "async")));
    OK(nvtxwRangeEndWrite(&io, 4500, 7));
    OK(nvtxwCounterInt64Register(T, def, "queue", NULL, &ints));
    OK(nvtxwCounterFloat64Register(T, def, "load", NULL, &floats));
    OK(nvtxwCounterInt64Write(T, m.stream, 3000, ints, 5));
    OK(nvtxwCounterFloat64Write(T, m.stream, 3100, floats, 1.5));
    OK(T->CounterNoValueWrite(m.stream, 3200, ints, NVTX_COUNTER_SAMPLE_UNAVAILABLE));
    OK(nvtxwTimeDomainRegister(T, net, NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_MONOTONIC, &clock1));
    OK(nvtxwTimeDomainRegister(T, net, NVTX_TIMESTAMP_TYPE_TOOL_PROVIDED, &clock2));
    OK(T->TimeSyncPointTableWrite(io.stream, clock1, clock2, &point, 1));
}

/* Appends `value` as unsigned LEB128 (the payload column's headers). */
static size_t put_uvar(unsigned char* out, uint64_t value) {
    size_t n = 0;
    for (; value >= 0x80; value >>= 7)
        out[n++] = (unsigned char)(value | 0x80);
    out[n++] = (unsigned char)value;
    return n;
}

/* Appends a payload as docs/sqlite-schema.md lays it out in `payload`. */
static size_t put_payload(unsigned char* out, uint64_t schema, const void* data, size_t size) {
    size_t n = put_uvar(out, schema);
    n += put_uvar(out + n, size);
    memcpy(out + n, data, size);
    return n + size;
}

/* The payload column of the row `sql` selects equals the two payloads of
 * nvtxwRangePushPopWriteUtf8(0, 1000, {0xffff0000, 3, "outer"}). */
static void expect_outer_payload(sqlite3* db, const char* sql) {
    nvtxwRangeEventUtf8Payload_t range = {0, 1000, {0xffff0000u, 3}};
    unsigned char expected[128];
    size_t n = put_payload(expected, main_ids.rangePushPopUtf8, &range, sizeof range);
    sqlite3_stmt* stmt = NULL;
    n += put_payload(expected + n, main_ids.eventMessageUtf8, "outer", 5);
    ck_assert_int_eq(sqlite3_prepare_v2(db, sql, -1, &stmt, NULL), SQLITE_OK);
    ck_assert_int_eq(sqlite3_step(stmt), SQLITE_ROW);
    ck_assert_int_eq(sqlite3_column_type(stmt, 0), SQLITE_BLOB);
    ck_assert_int_eq(sqlite3_column_bytes(stmt, 0), (int)n);
    ck_assert_mem_eq(sqlite3_column_blob(stmt, 0), expected, n);
    sqlite3_finalize(stmt);
}

START_TEST(test_rows) {
    nvtxwSessionHandle_t session = begin();
    sqlite3* db;
    write_session(session);
    end(session);
    ck_assert_int_eq(access(out_path, F_OK), 0);
    db = open_db();
    expect(db, "SELECT id, name FROM domains ORDER BY id", "0|\n1|net\n");
    expect(db,
           "SELECT s.id, s.name, s.domain_id, c.path FROM streams s"
           " LEFT JOIN scopes c ON c.domain_id = s.domain_id AND c.id = s.scope_id",
           "0|main|0|node/proc\n1|io|1|-\n");
    expect(db, "SELECT domain_id, value FROM strings ORDER BY value", "0|inner\n1|recv\n1|send\n");
    expect(db, "SELECT * FROM categories", "0|3|compute\n");
    expect(db,
           "SELECT e.start, e.end, t.name, e.range_id, e.category, e.color, e.text,"
           " e.text_id IS NOT NULL, e.domain_id, e.stream_id, e.scope_id IS NOT NULL"
           " FROM events e JOIN event_types t ON t.id = e.event_type ORDER BY e.id",
           "0|1000|pushpop|-|3|4294901760|outer|0|0|0|1\n"
           "50|-|mark|-|-|-|tick|0|0|0|1\n"
           "100|400|push|-|-|-|inner|0|0|0|1\n"
           "400|-|pop|-|-|-|-|0|0|0|1\n"
           "500|900|push|-|-|-|inner|1|0|0|1\n"
           "900|-|pop|-|-|-|-|0|0|0|1\n"
           "2000|2100|pushpop|-|-|-|work|0|0|0|1\n"
           "2200|2500|pushpop|-|-|-|work|0|0|0|1\n"
           "4000|4500|start|7|-|-|async|0|0|0|1\n"
           "3000|3500|pushpop|-|-|-|send|1|1|1|0\n"
           "3000|3600|startend|-|-|-|recv|1|1|1|0\n"
           "4500|-|end|7|-|-|-|0|1|1|0\n");
    /* the default: payloads as bytes, no JSON text */
    expect(db, "SELECT count(*), count(payload), count(payload_json) FROM events", "12|12|0\n");
    expect_outer_payload(db, "SELECT payload FROM events WHERE text = 'outer'");
    expect(db,
           "SELECT c.name, s.timestamp, s.value, s.no_value_reason, quote(s.data), s.value_json"
           " FROM counter_samples s JOIN counters c ON c.id = s.counter_id ORDER BY s.timestamp",
           "queue|3000|5.0|-|X'0500000000000000'|-\nload|3100|1.5|-|X'000000000000F83F'|-\n"
           "queue|3200|-|2|NULL|-\n");
    expect(db, "SELECT stream_id, timestamp_src, timestamp_dst, slope FROM sync_points",
           "1|10|20|-\n");
    sqlite3_close(db);
}
END_TEST

/* The example of docs/sqlite-schema.md that reads a field both ways. */
static const char doc_field_query[] =
    "SELECT hex(substr(payload, 15, 8)) AS end_bytes,"
    " json_extract(payload_json, '$.payloads[0].fields.timestampEnd') AS end_json"
    " FROM events WHERE text = 'outer'";

/* PayloadJson=yes: payload_json and value_json as well, the same payload
 * BLOB; a field read both ways (docs/sqlite-schema.md, example queries). */
START_TEST(test_payload_json) {
    nvtxwSessionHandle_t session = NULL;
    nvtxwResultCode_t rc = try_begin(out_path, "|PayloadJson=yes", &session);
    sqlite3* db;
    ck_assert_msg(rc == NVTXW_RESULT_SUCCESS, "SessionBegin: %s", nvtxw_last_error());
    write_session(session);
    end(session);
    db = open_db();
    expect(db, "SELECT count(*), count(payload), count(payload_json) FROM events", "12|12|12\n");
    expect_outer_payload(db, "SELECT payload FROM events WHERE text = 'outer'");
    expect(db, doc_field_query, "E803000000000000|1000\n");
    expect(db,
           "SELECT json_extract(payload_json, '$.payloads[1].fields.message')"
           " FROM events WHERE text = 'outer'",
           "outer\n");
    expect(db, "SELECT timestamp, value_json FROM counter_samples ORDER BY timestamp",
           "3000|{\"count\":1,\"payloads\":[{\"index\":0,\"schemaId\":17,\"size\":8,"
           "\"schemaName\":\"INT64\",\"fields\":{\"<field_0>\":5}}]}\n"
           "3100|{\"count\":1,\"payloads\":[{\"index\":0,\"schemaId\":20,\"size\":8,"
           "\"schemaName\":\"DOUBLE\",\"fields\":{\"<field_0>\":1.5}}]}\n"
           "3200|-\n");
    sqlite3_close(db);
}
END_TEST

/* PayloadJson takes yes/no words only: another value fails SessionBegin
 * naming the key and the value, before any file is made. */
START_TEST(test_payload_json_values) {
    nvtxwSessionHandle_t session = NULL;
    sqlite3* db;
    ck_assert_int_eq(try_begin(out_path, "|PayloadJson=maybe", &session),
                     NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_msg(strstr(nvtxw_last_error(), "PayloadJson=\"maybe\"") != NULL, "message: %s",
                  nvtxw_last_error());
    ck_assert_int_ne(access(out_path, F_OK), 0);
    ck_assert_int_eq(try_begin(out_path, "|PayloadJson=off|PayloadJson=yes", &session),
                     NVTXW_RESULT_SUCCESS); /* the first occurrence wins */
    write_session(session);
    end(session);
    db = open_db();
    expect(db, "SELECT count(payload_json) FROM events", "0\n");
    sqlite3_close(db);
}
END_TEST

/* The example queries of docs/sqlite-schema.md, with their results. */
START_TEST(test_doc_queries) {
    nvtxwSessionHandle_t session = begin();
    sqlite3* db;
    write_session(session);
    end(session);
    db = open_db();
    expect(db,
           "SELECT name, style, count(*) AS instances, sum(duration) AS total,"
           " round(avg(duration), 1) AS avg, min(duration) AS min, max(duration) AS max"
           " FROM ranges GROUP BY name, style ORDER BY total DESC, name",
           "outer|PushPop|1|1000|1000.0|1000|1000\n"
           "inner|PushPop|2|700|350.0|300|400\n"
           "net:recv|StartEnd|1|600|600.0|600|600\n"
           "async|StartEnd|1|500|500.0|500|500\n"
           "net:send|PushPop|1|500|500.0|500|500\n"
           "work|PushPop|2|400|200.0|100|300\n");
    expect(db, "SELECT name, start, duration FROM ranges ORDER BY duration DESC, start LIMIT 3",
           "outer|0|1000\nnet:recv|3000|600\nnet:send|3000|500\n");
    expect(db,
           "SELECT e.start, e.end, t.name, e.text FROM events e"
           " JOIN streams s ON s.id = e.stream_id JOIN event_types t ON t.id = e.event_type"
           " WHERE s.name = 'main' AND e.start < 1000 AND ifnull(e.end, e.start) >= 450"
           " ORDER BY e.start",
           "0|1000|pushpop|outer\n500|900|push|inner\n900|-|pop|-\n");
    expect(db, doc_field_query, "E803000000000000|-\n"); /* no JSON by default */
    sqlite3_close(db);
}
END_TEST

#define THREAD_RANGES 20000

static void* thread_main(void* arg) {
    nvtxwEventWriter_t* w = arg;
    int64_t t = 0;
    int i;
    for (i = 0; i < THREAD_RANGES; i++, t += 10) {
        if (nvtxwRangePushWriteUtf8(w, t, utf8(0, 0, "outer")) != NVTXW_RESULT_SUCCESS ||
            nvtxwRangePushPopWriteUtf8(w, t + 1, t + 3, utf8(0, 0, "leaf")) != NVTXW_RESULT_SUCCESS)
            return (void*)1;
    }
    for (i = 0; i < THREAD_RANGES; i++) /* pops close pushes of earlier batches */
        if (nvtxwRangePopWrite(w, t + i) != NVTXW_RESULT_SUCCESS)
            return (void*)1;
    return NULL;
}

START_TEST(test_threads) {
    nvtxwSessionHandle_t session = begin();
    nvtxDomainHandle_t domain;
    nvtxwEventHelperSchemaIds_t ids;
    nvtxwEventWriter_t writers[4];
    pthread_t threads[4];
    sqlite3* db;
    char name[16], expected[256];
    int i;
    OK(nvtxwDomainRegister(T, session, NULL, &domain));
    OK(nvtxwEventSchemasRegister(T, domain, NVTXW_EVENT_HELPER_SCHEMA_ALL, &ids));
    for (i = 0; i < 4; i++) {
        nvtxwStreamHandle_t stream;
        snprintf(name, sizeof name, "worker%d", i);
        OK(nvtxwStreamOpen(T, session, name, domain, NULL, 0, &stream));
        OK(nvtxwEventWriterInit(&writers[i], T, stream, &ids));
    }
    for (i = 0; i < 4; i++)
        ck_assert_int_eq(pthread_create(&threads[i], NULL, thread_main, &writers[i]), 0);
    for (i = 0; i < 4; i++) {
        void* result;
        ck_assert_int_eq(pthread_join(threads[i], &result), 0);
        ck_assert_ptr_null(result);
    }
    end(session);
    db = open_db();
    expect(db, "SELECT count(*), count(DISTINCT id) FROM events", "240000|240000\n");
    /* push i of a stream opens at 10i and its pop comes at 200000 + (19999 - i). */
    snprintf(expected, sizeof expected, "leaf|80000|160000\nouter|80000|%lld\n",
             4LL * (THREAD_RANGES * (200000LL + 19999) - 10LL * THREAD_RANGES * 19999 / 2 -
                    (long long)THREAD_RANGES * 19999 / 2));
    expect(db, "SELECT name, count(*), sum(duration) FROM ranges GROUP BY name ORDER BY name",
           expected);
    sqlite3_close(db);
}
END_TEST

/* Counter names are distinct per domain: a taken name gets " #2", " #3";
 * another domain may use it as it is. */
START_TEST(test_distinct_counter_names) {
    nvtxwSessionHandle_t session = begin();
    nvtxDomainHandle_t a, b;
    uint64_t id;
    sqlite3* db;
    ck_assert_int_eq(nvtxwDomainRegister(T, session, "a", &a), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(nvtxwDomainRegister(T, session, "b", &b), NVTXW_RESULT_SUCCESS);
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(nvtxwCounterInt64Register(T, a, "queue", NULL, &id), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(nvtxwCounterInt64Register(T, b, "queue", NULL, &id), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(nvtxwCounterInt64Register(T, a, "queue #2x", NULL, &id), NVTXW_RESULT_SUCCESS);
    end(session);
    db = open_db();
    expect(db,
           "SELECT d.name, c.name FROM counters c JOIN domains d ON d.id = c.domain_id "
           "ORDER BY c.domain_id, c.id",
           "a|queue\na|queue #2\na|queue #3\na|queue #2x\nb|queue\n");
    sqlite3_close(db);
}
END_TEST

/* The events and counter indexes SqliteIndexes= asks for, by name in
 * sqlite_master, with the rows the same whichever are built; a name it
 * does not know fails SessionBegin, naming it, before any file is made. */
static const char index_query[] = "SELECT name FROM sqlite_master WHERE type = 'index'"
                                  " AND name NOT LIKE 'sqlite_autoindex%' ORDER BY name";

static void expect_indexes(const char* extra, const char* expected) {
    nvtxwSessionHandle_t session = NULL;
    nvtxwResultCode_t rc = try_begin(out_path, extra, &session);
    sqlite3* db;
    ck_assert_msg(rc == NVTXW_RESULT_SUCCESS, "SessionBegin %s: %s", extra, nvtxw_last_error());
    write_session(session);
    end(session);
    db = open_db();
    expect(db, index_query, expected);
    expect(db, "SELECT count(*), sum(end IS NOT NULL) FROM events", "12|8\n");
    expect(db, "SELECT count(*) FROM ranges", "8\n");
    sqlite3_close(db);
}

START_TEST(test_indexes) {
    nvtxwSessionHandle_t session = NULL;
    expect_indexes("", "counter_samples_counter\nevents_range\nevents_text_id\n");
    expect_indexes("|SqliteIndexes=all", "counter_samples_counter\nevents_range\nevents_start\n"
                                         "events_stream\nevents_text_id\n");
    expect_indexes("|SqliteIndexes=none", "events_range\n");
    expect_indexes("|SqliteIndexes= start , stream", "events_range\nevents_start\nevents_stream\n");
    expect_indexes("|SqliteIndexes=none,text", "events_range\nevents_text_id\n");
    tu_remove_tree(dir);
    tu_make_temp_dir_or_fail(dir, sizeof dir, "nvtxw-sqlite");
    ck_assert_int_eq(try_begin(out_path, "|SqliteIndexes=start, time ,text", &session),
                     NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_msg(strstr(nvtxw_last_error(), "SqliteIndexes names \"time\"") != NULL, "message: %s",
                  nvtxw_last_error());
    ck_assert_int_eq(try_begin(out_path, "|SqliteIndexes=start,,text", &session),
                     NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_int_ne(access(out_path, F_OK), 0);
}
END_TEST

START_TEST(test_bad_output) {
    nvtxwSessionHandle_t session = NULL;
    char bad[PATH_MAX + 32];
    snprintf(bad, sizeof bad, "%s/missing/out.sqlite", dir);
    ck_assert_int_ne(try_begin(bad, "", &session), NVTXW_RESULT_SUCCESS);
    ck_assert_msg(strstr(nvtxw_last_error(), bad) != NULL, "message: %s", nvtxw_last_error());
    end(begin());
    ck_assert_int_ne(try_begin(out_path, "|Overwrite=no", &session), NVTXW_RESULT_SUCCESS);
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "Overwrite=yes"));
}
END_TEST

/* Streams closed while their batches wait for the inserter thread keep
 * every row, under their own stream ID: three streams one after the other,
 * each closed after 3.5 batches of ranges, then a fourth left open. The
 * same with CompressionThreads=0 (no inserter thread). */
START_TEST(test_closed_streams_keep_their_rows) {
    static const char* const configs[] = {"|Overwrite=yes", "|Overwrite=yes|CompressionThreads=0"};
    size_t c;
    for (c = 0; c < sizeof configs / sizeof configs[0]; c++) {
        nvtxwSessionHandle_t session = NULL;
        nvtxDomainHandle_t domain;
        nvtxwEventWriter_t w;
        sqlite3* db;
        char name[16];
        long i;
        int s;
        ck_assert_msg(try_begin(out_path, configs[c], &session) == NVTXW_RESULT_SUCCESS, "%s: %s",
                      configs[c], nvtxw_last_error());
        OK(nvtxwDomainRegister(T, session, NULL, &domain));
        for (s = 0; s < 4; s++) {
            snprintf(name, sizeof name, "s%d", s);
            OK(nvtxwEventWriterOpen(T, session, name, domain, NULL, 0, &w));
            for (i = 0; i < 28000 + s; i++)
                OK(nvtxwRangePushPopWriteUtf8(&w, 100 * i, 100 * i + s + 1, utf8(0, 0, name)));
            if (s < 3)
                OK(T->StreamClose(w.stream));
        }
        end(session);
        db = open_db();
        expect(db,
               "SELECT st.name, count(*), count(DISTINCT e.id), sum(e.end - e.start), min(e.text),"
               " max(e.text) FROM events e JOIN streams st ON st.id = e.stream_id"
               " GROUP BY st.name ORDER BY st.name",
               "s0|28000|28000|28000|s0|s0\ns1|28001|28001|56002|s1|s1\n"
               "s2|28002|28002|84006|s2|s2\ns3|28003|28003|112012|s3|s3\n");
        sqlite3_close(db);
    }
}
END_TEST

/* Child of disk_full_on_inserter_thread (tu_run_child_or_fail). */
static void disk_full_child(int fd) {
    struct rlimit limit = {4 << 20, 4 << 20}; /* an empty database is 2 MB */
    nvtxwSessionHandle_t session = NULL;
    nvtxDomainHandle_t domain;
    nvtxwEventWriter_t writer;
    nvtxwResultCode_t rc = 0;
    char name[32], message[1200];
    long i;
    int n, left;
    signal(SIGXFSZ, SIG_IGN); /* a write past the limit fails with EFBIG instead */
    if (setrlimit(RLIMIT_FSIZE, &limit) != 0 || try_begin(out_path, "", &session) != 0 ||
        nvtxwDomainRegister(T, session, "app", &domain) != 0 ||
        nvtxwEventWriterOpen(T, session, "w", domain, "", 0, &writer) != 0)
        _exit(2);
    for (i = 0; i < 2000000 && rc == 0; i++) {
        snprintf(name, sizeof name, "range %ld", i);
        rc = nvtxwRangePushPopWriteUtf8(&writer, 1000 * (int64_t)i, 1000 * (int64_t)i + 500,
                                        utf8(0, 0, name));
    }
    n = snprintf(message, sizeof message, "write %ld: rc %d: %s", i, rc, nvtxw_last_error());
    if (n < 0 || (size_t)n >= sizeof message)
        n = (int)sizeof message - 1;
    left = access(out_path, F_OK) == 0;
    if (rc != NVTXW_RESULT_FAILED || strstr(message, "cannot insert an event") == NULL ||
        strstr(message, out_path) == NULL || i == 2000000 || T->SessionEnd(session) == 0 || left)
        n = write(fd, message, (size_t)n) < 0 ? 3 : 1;
    else if (access(out_path, F_OK) == 0)
        n = write(fd, "the output is left", 18) < 0 ? 3 : 1;
    else
        n = write(fd, "OK", 2) != 2 ? 3 : 0;
    _exit(n);
}

/* An insert that fails on the inserter thread (the file limit reached) is
 * returned by a later write, with SQLite's words and the output's name;
 * SessionEnd fails too and leaves no file under the output's name. */
START_TEST(disk_full_on_inserter_thread) { tu_run_child_or_fail(disk_full_child); }
END_TEST

START_TEST(test_bench) {
    const char* env = getenv("NVTXW_SQLITE_BENCH_RANGES");
    long count = env ? atol(env) : 1000000, i, failed = 0;
    nvtxwSessionHandle_t session = begin();
    nvtxDomainHandle_t domain;
    nvtxwEventWriter_t w;
    struct timespec t0, t1;
    sqlite3* db;
    char expected[64];
    double seconds;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    OK(nvtxwDomainRegister(T, session, NULL, &domain));
    OK(nvtxwEventWriterOpen(T, session, "bench", domain, NULL, 0, &w));
    /* one check at the end: a Check assertion per call (it records its
     * place in a file) took half the time measured */
    for (i = 0; i < count; i++)
        failed += nvtxwRangePushPopWriteUtf8(&w, i * 10, i * 10 + 5, utf8(0, 0, "range")) !=
                  NVTXW_RESULT_SUCCESS;
    ck_assert_msg(failed == 0, "%ld writes failed: %s", failed, nvtxw_last_error());
    end(session);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    printf("sqlite sink: %ld ranges in %.3f s = %.0f rows/s\n", count, seconds,
           (double)count / seconds);
    db = open_db();
    snprintf(expected, sizeof expected, "%ld\n", count);
    expect(db, "SELECT count(*) FROM ranges", expected);
    sqlite3_close(db);
}
END_TEST

static Suite* sqlite_suite(void) {
    Suite* s = suite_create("sqlite");
    TCase* tc = tcase_create("sink");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_rows);
    tcase_add_test(tc, test_payload_json);
    tcase_add_test(tc, test_payload_json_values);
    tcase_add_test(tc, test_doc_queries);
    tcase_add_test(tc, test_threads);
    tcase_add_test(tc, test_distinct_counter_names);
    tcase_add_test(tc, test_indexes);
    tcase_add_test(tc, test_bad_output);
    tcase_add_test(tc, test_closed_streams_keep_their_rows);
    tcase_add_test(tc, disk_full_on_inserter_thread);
    /* A measurement, not a check: run by `make bench`, or on request. */
    if (getenv("NVTXW_SQLITE_BENCH_RANGES") != NULL)
        tcase_add_test(tc, test_bench);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(sqlite_suite()); }
