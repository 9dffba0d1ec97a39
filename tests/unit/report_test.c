/*
 * report_test.c - the report end to end: many threads writing their own
 * streams into Sink=report at once, read back complete and in order (per
 * stream and merged by time); and a producer killed with SIGKILL in the middle
 * of a session, whose temporary report reads back up to its last complete
 * chunk; and events of a shape the sink remembers checked as the core
 * checks them.
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nvtxw/backend.h"
#include "nvtxw/error.h"
#include "nvtxw/extension.h"
#include "nvtxw/helpers.h"
#include "nvtxw/reader.h"
#include "test_util.h"

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define EVENTS_PER_THREAD 3000
#else
#define EVENTS_PER_THREAD 20000
#endif
#define THREADS 8

static const nvtxwInterface_t* T;
/* Appended to every session's config: the compression-thread variants. */
static const char* extra_config = "";
static char temp_dir[] = "/tmp/nvtxw-report-XXXXXX";

typedef struct writer_arg {
    nvtxwEventWriter_t writer;
    int thread;
    int failed;
} writer_arg;

static void message_of(char* out, size_t size, int thread, long seq) {
    snprintf(out, size, "t%d-%ld", thread, seq);
}

/* Range `seq` of a thread: begins at seq*10 + thread, lasts 5 + seq % 7. */
static nvtxwResultCode_t write_range(const nvtxwEventWriter_t* w, int thread, long seq) {
    nvtxwEventAttributesUtf8_t attr;
    char message[32];
    int64_t begin = seq * 10 + thread;
    memset(&attr, 0, sizeof attr);
    message_of(message, sizeof message, thread, seq);
    attr.message = message;
    attr.category = (uint32_t)thread + 1;
    return nvtxwRangePushPopWriteUtf8(w, begin, begin + 5 + seq % 7, attr);
}

static void* writer_main(void* p) {
    writer_arg* arg = p;
    long seq;
    for (seq = 0; seq < EVENTS_PER_THREAD && !arg->failed; seq++)
        arg->failed = write_range(&arg->writer, arg->thread, seq) != NVTXW_RESULT_SUCCESS;
    return NULL;
}

static nvtxwSessionHandle_t begin_report(const char* path, nvtxDomainHandle_t* domain,
                                         nvtxwEventHelperSchemaIds_t* ids) {
    nvtxwSessionAttributes_t attr;
    nvtxwSessionHandle_t session;
    char config[4300];
    snprintf(config, sizeof config, "Sink=report|Output=%s|Overwrite=yes%s", path, extra_config);
    nvtxwSessionAttributesInit(&attr);
    attr.name = "report-test";
    attr.configString = config;
    ck_assert_msg(T->SessionBegin(&attr, &session) == 0, "%s", nvtxw_last_error());
    ck_assert_int_eq(nvtxwDomainRegister(T, session, "test", domain), 0);
    ck_assert_int_eq(nvtxwEventSchemasRegister(T, *domain, NVTXW_EVENT_HELPER_SCHEMA_ALL, ids), 0);
    return session;
}

static void open_writer(nvtxwSessionHandle_t session, nvtxDomainHandle_t domain,
                        const nvtxwEventHelperSchemaIds_t* ids, int thread,
                        nvtxwEventWriter_t* writer) {
    nvtxwStreamHandle_t stream;
    char name[32];
    snprintf(name, sizeof name, "thread-%d", thread);
    ck_assert_int_eq(nvtxwStreamOpen(T, session, name, domain, NULL, 0, &stream), 0);
    ck_assert_int_eq(nvtxwEventWriterInit(writer, T, stream, ids), 0);
}

/* Checks one event record against the range it must be. */
static void check_range(const nvtxw_record_t* r, int thread, long seq) {
    nvtxwRangeEventUtf8Payload_t range;
    char message[32];
    ck_assert_int_eq(r->u.event.count, 2);
    ck_assert_uint_eq(r->u.event.payloads[0].size, sizeof range);
    memcpy(&range, r->u.event.payloads[0].payload, sizeof range);
    ck_assert_int_eq(range.timestampBegin, seq * 10 + thread);
    ck_assert_int_eq(range.timestampEnd, seq * 10 + thread + 5 + seq % 7);
    ck_assert_uint_eq(range.attr.category, (uint32_t)thread + 1);
    message_of(message, sizeof message, thread, seq);
    ck_assert_uint_eq(r->u.event.payloads[1].size, strlen(message));
    ck_assert_int_eq(memcmp(r->u.event.payloads[1].payload, message, strlen(message)), 0);
    ck_assert(r->has_timestamp);
    ck_assert_int_eq(r->timestamp, seq * 10 + thread);
}

static nvtxw_reader_t* open_reader(const char* path, int order) {
    nvtxw_reader_options_t options;
    nvtxw_reader_t* reader = NULL;
    memset(&options, 0, sizeof options);
    options.struct_size = sizeof options;
    options.order = order;
    ck_assert_msg(nvtxw_reader_open(path, &options, &reader) == 0, "%s", nvtxw_last_error());
    return reader;
}

/* The report at `path` holds `streams` streams, stream k (thread k) the
 * ranges 0...events-1 of write_range in order, and no damage. */
static void check_ranges_read_back(const char* path, int streams, long events) {
    nvtxw_reader_t* reader = open_reader(path, NVTXW_READER_ORDER_STREAM);
    long* next = calloc((size_t)streams, sizeof *next);
    const nvtxw_record_t* r;
    ck_assert_ptr_nonnull(next);
    ck_assert_uint_eq(nvtxw_reader_stream_count(reader), (size_t)streams);
    ck_assert_uint_eq(nvtxw_reader_damage_count(reader), 0);
    while (nvtxw_reader_next(reader, &r) == 0 && r != NULL) {
        if (r->kind != NVTXW_RECORD_EVENT)
            continue;
        ck_assert_uint_lt(r->stream, (uint64_t)streams);
        check_range(r, (int)r->stream, next[r->stream]++);
    }
    for (int i = 0; i < streams; i++)
        ck_assert_int_eq(next[i], events);
    free(next);
    nvtxw_reader_close(reader);
}

static void threads_write_streams(void);

START_TEST(threads_write_streams_concurrently) { threads_write_streams(); }
END_TEST

/* The writers' threads compress (the path of 1-CPU machines). */
START_TEST(threads_write_streams_without_compression_threads) {
    extra_config = "|CompressionThreads=0";
    threads_write_streams();
    extra_config = "";
}
END_TEST

/* More compression threads than the default: 8 streams dealt out to 3. */
START_TEST(threads_write_streams_with_three_compression_threads) {
    extra_config = "|CompressionThreads=3";
    threads_write_streams();
    extra_config = "";
}
END_TEST

static void threads_write_streams(void) {
    writer_arg args[THREADS];
    pthread_t threads[THREADS];
    nvtxwEventHelperSchemaIds_t ids;
    nvtxDomainHandle_t domain;
    char path[4200];
    int i;
    snprintf(path, sizeof path, "%s/threads.nvtxw", temp_dir);
    nvtxwSessionHandle_t session = begin_report(path, &domain, &ids);
    memset(args, 0, sizeof args);
    for (i = 0; i < THREADS; i++) {
        open_writer(session, domain, &ids, i, &args[i].writer);
        args[i].thread = i;
    }
    for (i = 0; i < THREADS; i++)
        ck_assert_int_eq(pthread_create(&threads[i], NULL, writer_main, &args[i]), 0);
    for (i = 0; i < THREADS; i++) {
        pthread_join(threads[i], NULL);
        ck_assert_msg(!args[i].failed, "thread %d: %s", i, nvtxw_last_error());
    }
    ck_assert_msg(T->SessionEnd(session) == 0, "%s", nvtxw_last_error());
    check_ranges_read_back(path, THREADS, EVENTS_PER_THREAD);
}

START_TEST(time_order_merges_streams) {
    nvtxwEventHelperSchemaIds_t ids;
    nvtxDomainHandle_t domain;
    nvtxwEventWriter_t writers[3];
    char path[4200];
    const nvtxw_record_t* r;
    nvtxw_reader_t* reader;
    int64_t last = INT64_MIN;
    long seq, events = 0;
    int i;
    snprintf(path, sizeof path, "%s/time.nvtxw", temp_dir);
    nvtxwSessionHandle_t session = begin_report(path, &domain, &ids);
    for (i = 0; i < 3; i++)
        open_writer(session, domain, &ids, i, &writers[i]);
    /* Stream i writes its ranges in order; across streams they interleave. */
    for (i = 0; i < 3; i++)
        for (seq = 0; seq < 40000; seq++)
            ck_assert_int_eq(write_range(&writers[i], i, seq), 0);
    ck_assert_int_eq(T->SessionEnd(session), 0);
    reader = open_reader(path, NVTXW_READER_ORDER_TIME);
    while (nvtxw_reader_next(reader, &r) == 0 && r != NULL) {
        if (r->kind != NVTXW_RECORD_EVENT)
            continue;
        ck_assert_int_ge(r->timestamp, last);
        ck_assert_int_eq(r->timestamp % 10, (int64_t)r->stream);
        last = r->timestamp;
        events++;
    }
    ck_assert_int_eq(events, 3 * 40000);
    nvtxw_reader_close(reader);
}
END_TEST

/* Child of the crash test: writes ranges forever, reporting progress. */
static void crash_child(const char* path, int progress_fd) {
    nvtxwEventHelperSchemaIds_t ids;
    nvtxDomainHandle_t domain;
    nvtxwEventWriter_t writer;
    nvtxwSessionHandle_t session = begin_report(path, &domain, &ids);
    long seq;
    open_writer(session, domain, &ids, 0, &writer);
    for (seq = 0;; seq++) {
        if (write_range(&writer, 0, seq) != NVTXW_RESULT_SUCCESS)
            _exit(3);
        if (seq == 300000 && write(progress_fd, "x", 1) != 1)
            _exit(4);
    }
}

/* The temporary file a killed writer left in `dir`, or "" when none. */
static void find_temp_report(const char* dir, char* out, size_t size) {
    DIR* d = opendir(dir);
    struct dirent* entry;
    out[0] = '\0';
    ck_assert_ptr_nonnull(d);
    while ((entry = readdir(d)) != NULL) {
        if (strncmp(entry->d_name, "crash.nvtxw.tmp", 15) == 0)
            snprintf(out, size, "%s/%s", dir, entry->d_name);
    }
    closedir(d);
}

START_TEST(killed_writer_leaves_readable_report) {
    char path[4200], temp[4400];
    int pipe_fds[2], status;
    long next = 0;
    char byte;
    const nvtxw_record_t* r;
    nvtxw_reader_t* reader;
    pid_t child;
    snprintf(path, sizeof path, "%s/crash.nvtxw", temp_dir);
    ck_assert_int_eq(pipe(pipe_fds), 0);
    child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) {
        close(pipe_fds[0]);
        crash_child(path, pipe_fds[1]);
    }
    close(pipe_fds[1]);
    ck_assert_int_eq(read(pipe_fds[0], &byte, 1), 1); /* 300,000 ranges written */
    kill(child, SIGKILL);
    ck_assert_int_eq(waitpid(child, &status, 0), child);
    ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    close(pipe_fds[0]);

    ck_assert_int_ne(access(path, F_OK), 0); /* never committed under the final name */
    find_temp_report(temp_dir, temp, sizeof temp);
    ck_assert_msg(temp[0] != '\0', "no temporary report left in %s", temp_dir);
    reader = open_reader(temp, NVTXW_READER_ORDER_STREAM);
    ck_assert_uint_ge(nvtxw_reader_damage_count(reader), 1); /* no trailer: unfinished */
    while (nvtxw_reader_next(reader, &r) == 0 && r != NULL) {
        if (r->kind == NVTXW_RECORD_EVENT)
            check_range(r, 0, next++);
    }
    /* Every complete chunk reads back: chunks hold ~256 KiB of records. */
    ck_assert_int_ge(next, 200000);
    nvtxw_reader_close(reader);
}
END_TEST

/* Every stream record kind the sink writes, interleaved over several chunks:
 * compact records (reg-string ranges and marks, UTF-8 ranges with interned
 * messages, int64 samples) through the lanes' write positions, the others
 * (double samples, no-value samples, sync points, conversion factors)
 * through the lanes' buffers, so both ways into a chunk meet in every
 * chunk, and lanes grow while records of both kinds are in them. Read back
 * in stream order, every record must be the one written. */
#define MIXED_RECORDS 150000
#define MIXED_KINDS 8

static int64_t mixed_ts(long i) { return 1000 + i * 13; }

static void mixed_write(const char* path) {
    nvtxwEventHelperSchemaIds_t ids;
    nvtxwEventWriter_t w;
    nvtxDomainHandle_t domain;
    nvtxwSessionHandle_t session = begin_report(path, &domain, &ids);
    nvtxStringHandle_t names[50];
    uint64_t c_int, c_double;
    char text[32];
    open_writer(session, domain, &ids, 0, &w);
    for (int k = 0; k < 50; k++) {
        snprintf(text, sizeof text, "name-%d", k);
        ck_assert_int_eq(T->StringRegister(domain, text, &names[k]), 0);
    }
    ck_assert_int_eq(nvtxwCounterInt64Register(T, domain, "i", NULL, &c_int), 0);
    ck_assert_int_eq(nvtxwCounterFloat64Register(T, domain, "d", NULL, &c_double), 0);
    for (long i = 0; i < MIXED_RECORDS; i++) {
        int64_t ts = mixed_ts(i);
        nvtxwEventAttributes_t reg = {(uint32_t)i, (uint32_t)(i % 5), names[i % 50]};
        nvtxwEventAttributesUtf8_t utf8 = {0, 3, 0, text};
        nvtxwResultCode_t r;
        snprintf(text, sizeof text, "m%ld", i % 97);
        switch (i % MIXED_KINDS) {
        case 0:
            r = nvtxwRangePushPopWrite(&w, ts, ts + i % 1000, reg);
            break;
        case 1:
            r = nvtxwRangePushPopWriteUtf8(&w, ts, ts + 7, utf8);
            break;
        case 2:
            r = nvtxwMarkWrite(&w, ts, reg);
            break;
        case 3:
            r = nvtxwCounterInt64Write(T, w.stream, ts, c_int, i * 3 - 70000);
            break;
        case 4:
            r = nvtxwCounterFloat64Write(T, w.stream, ts, c_double, (double)i * 0.5);
            break;
        case 5:
            r = T->CounterNoValueWrite(w.stream, ts, c_int, 1);
            break;
        case 6:
            r = T->TimeSyncPointWrite(w.stream, NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_MONOTONIC,
                                      NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_REALTIME, ts, -ts);
            break;
        default:
            r = T->TimestampConversionFactorWrite(w.stream, NVTX_TIMESTAMP_TYPE_CPU_TSC,
                                                  NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_MONOTONIC,
                                                  0.25 + (double)i, ts, ts / 2);
            break;
        }
        ck_assert_msg(r == NVTXW_RESULT_SUCCESS, "record %ld: %s", i, nvtxw_last_error());
    }
    ck_assert_int_eq(T->StreamClose(w.stream), 0);
    ck_assert_int_eq(T->SessionEnd(session), 0);
}

/* Checks stream record `i` (kinds as mixed_write writes them). */
static void mixed_check(nvtxw_reader_t* reader, const nvtxw_record_t* r, long i) {
    int64_t ts = mixed_ts(i);
    char text[32];
    double d;
    switch (i % MIXED_KINDS) {
    case 0: {
        nvtxwRangeEventRegStringPayload_t range;
        ck_assert_int_eq(r->kind, NVTXW_RECORD_EVENT);
        ck_assert_int_eq(r->u.event.count, 1);
        ck_assert_uint_eq(r->u.event.payloads[0].size, sizeof range);
        memcpy(&range, r->u.event.payloads[0].payload, sizeof range);
        ck_assert_int_eq(range.timestampBegin, ts);
        ck_assert_int_eq(range.timestampEnd, ts + i % 1000);
        ck_assert_uint_eq(range.attr.color, (uint32_t)i);
        ck_assert_uint_eq(range.attr.category, (uint32_t)(i % 5));
        snprintf(text, sizeof text, "name-%ld", i % 50);
        ck_assert_str_eq(
            nvtxw_reader_string(reader, r->domain, (uint64_t)(uintptr_t)range.attr.message), text);
        break;
    }
    case 1:
        ck_assert_int_eq(r->kind, NVTXW_RECORD_EVENT);
        ck_assert_int_eq(r->u.event.count, 2);
        snprintf(text, sizeof text, "m%ld", i % 97);
        ck_assert_uint_eq(r->u.event.payloads[1].size, strlen(text));
        ck_assert_int_eq(memcmp(r->u.event.payloads[1].payload, text, strlen(text)), 0);
        break;
    case 2: {
        nvtxwEventRegStringPayload_t mark;
        ck_assert_int_eq(r->kind, NVTXW_RECORD_EVENT);
        memcpy(&mark, r->u.event.payloads[0].payload, sizeof mark);
        ck_assert_int_eq(mark.timestamp, ts);
        ck_assert_uint_eq(mark.attr.color, (uint32_t)i);
        break;
    }
    case 3: {
        int64_t v;
        ck_assert_int_eq(r->kind, NVTXW_RECORD_COUNTER_SAMPLE);
        ck_assert_uint_eq(r->u.counter_sample.size, 8);
        memcpy(&v, r->u.counter_sample.data, 8);
        ck_assert_int_eq(v, i * 3 - 70000);
        break;
    }
    case 4:
        ck_assert_int_eq(r->kind, NVTXW_RECORD_COUNTER_SAMPLE);
        memcpy(&d, r->u.counter_sample.data, 8);
        ck_assert(d == (double)i * 0.5);
        break;
    case 5:
        ck_assert_int_eq(r->kind, NVTXW_RECORD_COUNTER_NO_VALUE);
        ck_assert_uint_eq(r->u.counter_no_value.reason, 1);
        break;
    case 6:
        ck_assert_int_eq(r->kind, NVTXW_RECORD_SYNC_POINTS);
        ck_assert_uint_eq(r->u.sync_points.count, 1);
        ck_assert_int_eq(r->u.sync_points.points[0].src, ts);
        ck_assert_int_eq(r->u.sync_points.points[0].dst, -ts);
        return; /* no timestamp of its own */
    default:
        ck_assert_int_eq(r->kind, NVTXW_RECORD_CONVERSION_FACTOR);
        ck_assert(r->u.conversion_factor.slope == 0.25 + (double)i);
        ck_assert_int_eq(r->u.conversion_factor.timestamp_dst, ts / 2);
        return;
    }
    ck_assert_msg(r->has_timestamp && r->timestamp == ts, "record %ld: time %lld, want %lld", i,
                  (long long)r->timestamp, (long long)ts);
}

START_TEST(every_record_kind_across_chunks) {
    char path[4200];
    nvtxw_reader_t* reader;
    const nvtxw_record_t* r;
    long i = 0;
    snprintf(path, sizeof path, "%s/mixed.nvtxw", temp_dir);
    mixed_write(path);
    reader = open_reader(path, NVTXW_READER_ORDER_STREAM);
    while (nvtxw_reader_next(reader, &r) == NVTXW_RESULT_SUCCESS && r != NULL) {
        if (r->kind < NVTXW_RECORD_EVENT)
            continue; /* registrations */
        ck_assert_int_lt(i, MIXED_RECORDS);
        mixed_check(reader, r, i++);
    }
    ck_assert_int_eq(i, MIXED_RECORDS);
    ck_assert_uint_eq(nvtxw_reader_damage_count(reader), 0);
    nvtxw_reader_close(reader);
}
END_TEST

/* ---- Many schemas through the stream's caches -------------------------------- */
/*
 * The write path keeps a few schemas per stream at hand, direct-mapped by
 * schema ID: the core's fast plans and the report sink's event shapes. 24
 * STATIC schemas (more than either holds, so slots are shared) written in a
 * scrambled order, single and paired with a UTF-8 string, some with more
 * string handles than a one-payload shape checks itself (3), must read back
 * byte for byte.
 */
#define SHAPE_SCHEMAS 24
#define SHAPE_EVENTS 60000

typedef struct shape_event {
    int64_t ts;
    uint64_t h[3];
    uint32_t a;
    int16_t b;
    int16_t pad; /* zero: padding reads back as zero */
} shape_event;

/* Schema k: ts, then (k % 4) handles, then a and b when k is odd. */
static size_t shape_schema(int k, nvtxPayloadSchemaEntry_t* e) {
    size_t n = 0;
    memset(e, 0, 6 * sizeof *e);
    e[n].flags = NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP;
    e[n].type = NVTX_PAYLOAD_ENTRY_TYPE_INT64;
    e[n].name = "ts";
    e[n++].offset = offsetof(shape_event, ts);
    for (int j = 0; j < k % 4; j++) {
        e[n].type = NVTX_PAYLOAD_ENTRY_TYPE_NVTX_REGISTERED_STRING_HANDLE;
        e[n].name = "h";
        e[n++].offset = offsetof(shape_event, h) + 8 * (size_t)j;
    }
    if (k % 2) {
        e[n].type = NVTX_PAYLOAD_ENTRY_TYPE_UINT32;
        e[n].name = "a";
        e[n++].offset = offsetof(shape_event, a);
        e[n].type = NVTX_PAYLOAD_ENTRY_TYPE_INT16;
        e[n].name = "b";
        e[n++].offset = offsetof(shape_event, b);
    }
    return n;
}

/* Bytes of schema k's payloads: up to its last entry, padded to 8. */
static size_t shape_size(int k) {
    if (k % 2)
        return sizeof(shape_event);
    return offsetof(shape_event, h) + 8 * (size_t)(k % 4);
}

/* Event i: its schema, its payload, and whether a string follows. */
static int shape_make(long i, const nvtxStringHandle_t* names, shape_event* ev, int* with_text) {
    uint64_t x = (uint64_t)i * 0x9E3779B97F4A7C15u;
    int k = (int)((x >> 40) % SHAPE_SCHEMAS);
    memset(ev, 0, sizeof *ev);
    ev->ts = 1000000 + i * 13 - (long)((x >> 20) % 50);
    for (int j = 0; j < k % 4; j++)
        ev->h[j] = (uint64_t)(uintptr_t)names[(i + j) % 5];
    if (k % 2) {
        ev->a = (uint32_t)(x >> 8);
        ev->b = (int16_t)(x >> 30);
    }
    *with_text = (x >> 50) % 3 == 0;
    return k;
}

START_TEST(many_schemas_share_the_caches) {
    char path[4200], config[4300], text[16];
    nvtxwSessionAttributes_t attr;
    nvtxwSessionHandle_t session;
    nvtxDomainHandle_t domain;
    nvtxwStreamHandle_t stream;
    nvtxStringHandle_t names[5];
    uint64_t ids[SHAPE_SCHEMAS];
    nvtxw_reader_t* reader;
    const nvtxw_record_t* r;
    long i;
    snprintf(path, sizeof path, "%s/shapes.nvtxw", temp_dir);
    snprintf(config, sizeof config, "Sink=report|Output=%s|Overwrite=yes%s", path, extra_config);
    nvtxwSessionAttributesInit(&attr);
    attr.configString = config;
    ck_assert_int_eq(T->SessionBegin(&attr, &session), 0);
    ck_assert_int_eq(nvtxwDomainRegister(T, session, "shapes", &domain), 0);
    for (int j = 0; j < 5; j++) {
        snprintf(text, sizeof text, "s%d", j);
        ck_assert_int_eq(T->StringRegister(domain, text, &names[j]), 0);
    }
    for (int k = 0; k < SHAPE_SCHEMAS; k++) {
        nvtxPayloadSchemaEntry_t entries[6];
        nvtxPayloadSchemaAttr_t schema;
        memset(&schema, 0, sizeof schema);
        schema.fieldMask =
            NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES |
            NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_STATIC_SIZE;
        schema.type = NVTX_PAYLOAD_SCHEMA_TYPE_STATIC;
        schema.entries = entries;
        schema.numEntries = shape_schema(k, entries);
        schema.payloadStaticSize = shape_size(k);
        ck_assert_msg(T->SchemaRegister(domain, &schema, &ids[k]) == 0, "%s", nvtxw_last_error());
    }
    ck_assert_int_eq(nvtxwStreamOpen(T, session, "s", domain, NULL, 0, &stream), 0);
    for (i = 0; i < SHAPE_EVENTS; i++) {
        shape_event ev;
        int with_text, k = shape_make(i, names, &ev, &with_text);
        snprintf(text, sizeof text, "t%ld", i % 11);
        nvtxPayloadData_t p[2] = {{ids[k], shape_size(k), &ev},
                                  {NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF8, strlen(text), text}};
        ck_assert_msg(T->EventWrite(stream, p, with_text ? 2 : 1) == 0, "event %ld: %s", i,
                      nvtxw_last_error());
    }
    ck_assert_int_eq(T->SessionEnd(session), 0);
    reader = open_reader(path, NVTXW_READER_ORDER_STREAM);
    i = 0;
    while (nvtxw_reader_next(reader, &r) == NVTXW_RESULT_SUCCESS && r != NULL) {
        shape_event want;
        int with_text, k;
        if (r->kind != NVTXW_RECORD_EVENT)
            continue;
        ck_assert_int_lt(i, SHAPE_EVENTS);
        k = shape_make(i, names, &want, &with_text);
        ck_assert_int_eq(r->u.event.count, with_text ? 2 : 1);
        ck_assert_uint_eq(r->u.event.payloads[0].schemaId, ids[k]);
        ck_assert_uint_eq(r->u.event.payloads[0].size, shape_size(k));
        ck_assert_msg(memcmp(r->u.event.payloads[0].payload, &want, shape_size(k)) == 0,
                      "event %ld (schema %d): payload differs", i, k);
        ck_assert_int_eq(r->timestamp, want.ts);
        if (with_text) {
            snprintf(text, sizeof text, "t%ld", i % 11);
            ck_assert_uint_eq(r->u.event.payloads[1].size, strlen(text));
            ck_assert_int_eq(memcmp(r->u.event.payloads[1].payload, text, strlen(text)), 0);
        }
        i++;
    }
    ck_assert_int_eq(i, SHAPE_EVENTS);
    ck_assert_uint_eq(nvtxw_reader_damage_count(reader), 0);
    nvtxw_reader_close(reader);
}
END_TEST

/* Refused with INVALID_ARGUMENT and a message holding `text`. */
static void assert_refused(nvtxwResultCode_t result, const char* text) {
    ck_assert_int_eq(result, NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_msg(strstr(nvtxw_last_error(), text) != NULL, "message \"%s\" lacks \"%s\"",
                  nvtxw_last_error(), text);
}

/* The sink checks the events of a shape it remembers itself (with the
 * core's fast plans, without the visit): it must refuse what the visit
 * refuses, leaving no trace, and write the rest as before. Ten good events
 * of each helper shape, then bad ones of the same schemas, then one more
 * good one of each. */
START_TEST(remembered_shapes_are_still_checked) {
    char path[4200];
    nvtxwEventHelperSchemaIds_t ids;
    nvtxDomainHandle_t domain, other;
    nvtxStringHandle_t name, foreign;
    nvtxwEventWriter_t w;
    nvtxwEventAttributes_t reg;
    nvtxwEventAttributesUtf8_t utf8;
    nvtxwRangeEventRegStringPayload_t header;
    nvtxw_reader_t* reader;
    const nvtxw_record_t* r;
    long regs = 0, texts = 0;
    snprintf(path, sizeof path, "%s/checked.nvtxw", temp_dir);
    nvtxwSessionHandle_t session = begin_report(path, &domain, &ids);
    ck_assert_int_eq(nvtxwDomainRegister(T, session, "other", &other), 0);
    ck_assert_int_eq(T->StringRegister(domain, "name", &name), 0);
    ck_assert_int_eq(T->StringRegister(other, "foreign", &foreign), 0);
    open_writer(session, domain, &ids, 0, &w);
    memset(&reg, 0, sizeof reg);
    memset(&utf8, 0, sizeof utf8);
    reg.message = name;
    utf8.message = "text";
    for (int i = 0; i < 10; i++) {
        ck_assert_int_eq(nvtxwRangePushPopWrite(&w, 10 * i, 10 * i + 5, reg), 0);
        ck_assert_int_eq(nvtxwRangePushPopWriteUtf8(&w, 10 * i, 10 * i + 6, utf8), 0);
    }
    reg.message = foreign; /* a string of another domain */
    assert_refused(nvtxwRangePushPopWrite(&w, 100, 105, reg), "string handle");
    reg.message = (nvtxStringHandle_t)((uintptr_t)name + 1000); /* never registered */
    assert_refused(nvtxwRangePushPopWrite(&w, 100, 105, reg),
                   "is not registered in the stream's domain");
    memset(&header, 0, sizeof header);
    header.timestampBegin = 100;
    header.timestampEnd = 105;
    {
        nvtxPayloadData_t p[2] = {{ids.rangePushPopRegString, sizeof header, NULL},
                                  {ids.eventMessageUtf8, 4, "text"}};
        assert_refused(T->EventWrite(w.stream, p, 1), "payload 0"); /* no bytes */
        p[0].payload = &header;
        p[0].size = sizeof header - 1;
        assert_refused(T->EventWrite(w.stream, p, 1), "payload 0"); /* too short */
        p[0].schemaId = ids.rangePushPopUtf8;
        p[0].size = sizeof(nvtxwRangeEventUtf8Payload_t);
        p[1].payload = NULL;
        assert_refused(T->EventWrite(w.stream, p, 2), "payload 1"); /* message without bytes */
    }
    reg.message = name;
    ck_assert_int_eq(nvtxwRangePushPopWrite(&w, 200, 205, reg), 0);
    ck_assert_int_eq(nvtxwRangePushPopWriteUtf8(&w, 200, 206, utf8), 0);
    ck_assert_msg(T->SessionEnd(session) == 0, "%s", nvtxw_last_error());
    reader = open_reader(path, NVTXW_READER_ORDER_STREAM);
    while (nvtxw_reader_next(reader, &r) == NVTXW_RESULT_SUCCESS && r != NULL) {
        const nvtxPayloadData_t* p = r->u.event.payloads;
        if (r->kind != NVTXW_RECORD_EVENT)
            continue;
        if (p[0].schemaId == ids.rangePushPopRegString) {
            const nvtxwRangeEventRegStringPayload_t* range = p[0].payload;
            ck_assert_int_eq(r->u.event.count, 1);
            ck_assert_int_eq(range->timestampEnd - range->timestampBegin, 5);
            ck_assert_str_eq(
                nvtxw_reader_string(reader, r->domain, (uint64_t)(uintptr_t)range->attr.message),
                "name");
            regs++;
        } else {
            ck_assert_uint_eq(p[0].schemaId, ids.rangePushPopUtf8);
            ck_assert_int_eq(r->u.event.count, 2);
            ck_assert_uint_eq(p[1].size, 4);
            ck_assert_int_eq(memcmp(p[1].payload, "text", 4), 0);
            texts++;
        }
    }
    ck_assert_int_eq(nvtxw_reader_damage_count(reader), 0);
    nvtxw_reader_close(reader);
    ck_assert_int_eq(regs, 11);
    ck_assert_int_eq(texts, 11);
}
END_TEST

/* libnvtxw's StreamFlush (nvtxw/extension.h) on streams written one after
 * the other, as a converter reading many threads in turns writes them:
 * each stream's buffered records go out as a chunk and its buffers are
 * freed, so 64 open streams that each hold about 100 KiB of records hold
 * far less once flushed than without the flush (measured in the same
 * run), and writing on after a flush reads back as if it had not been
 * there: every range of every stream, in order, over both halves. */
#define FLUSH_STREAMS 64
#define FLUSH_EVENTS 4000

/* Writes ranges [from, from + FLUSH_EVENTS) on every stream, flushing each
 * after its turn when `flush`; returns the heap the session then holds
 * above `base`. */
static size_t write_turns(nvtxwEventWriter_t* writers, long from, int flush, size_t base) {
    const nvtxwExtensionInterface_t* ext = NULL;
    size_t now;
    ck_assert_int_eq(nvtxwGetInterface(NVTXW_EXTENSION_INTERFACE_VERSION, (const void**)&ext), 0);
    ck_assert(NVTXW_EXTENSION_HAS(ext, StreamFlush));
    for (int i = 0; i < FLUSH_STREAMS; i++) {
        for (long seq = from; seq < from + FLUSH_EVENTS; seq++)
            ck_assert_msg(write_range(&writers[i], i, seq) == 0, "%s", nvtxw_last_error());
        if (flush)
            ck_assert_msg(ext->StreamFlush(writers[i].stream) == 0, "%s", nvtxw_last_error());
    }
    now = tu_heap_in_use();
    return now > base ? now - base : 0;
}

static size_t streams_in_turns(const char* name, int flush) {
    nvtxwEventWriter_t writers[FLUSH_STREAMS];
    nvtxwEventHelperSchemaIds_t ids;
    nvtxDomainHandle_t domain;
    char path[4200];
    size_t base, held;
    snprintf(path, sizeof path, "%s/%s.nvtxw", temp_dir, name);
    nvtxwSessionHandle_t session = begin_report(path, &domain, &ids);
    for (int i = 0; i < FLUSH_STREAMS; i++)
        open_writer(session, domain, &ids, i, &writers[i]);
    base = tu_heap_in_use();
    held = write_turns(writers, 0, flush, base);
    write_turns(writers, FLUSH_EVENTS, flush, base);
    ck_assert_msg(T->SessionEnd(session) == 0, "%s", nvtxw_last_error());
    check_ranges_read_back(path, FLUSH_STREAMS, 2 * FLUSH_EVENTS);
    return held;
}

START_TEST(flushed_streams_free_their_buffers) {
    size_t kept = streams_in_turns("unflushed", 0);
    size_t flushed = streams_in_turns("flushed", 1);
    /* 0 under a sanitizer's allocator: then only the content is checked
     * (and its leak check says whether the freed buffers are freed) */
    if (kept > 0)
        ck_assert_msg(flushed * 4 < kept,
                      "64 streams held %zu bytes after their flush, %zu without it", flushed, kept);
}
END_TEST

/* StreamFlush refuses what is not an open stream, like every stream call;
 * an empty stream flushes to nothing. */
START_TEST(stream_flush_refuses_closed_streams) {
    const nvtxwExtensionInterface_t* ext = NULL;
    nvtxwEventHelperSchemaIds_t ids;
    nvtxDomainHandle_t domain;
    nvtxwEventWriter_t writer;
    char path[4200];
    snprintf(path, sizeof path, "%s/flush-misuse.nvtxw", temp_dir);
    ck_assert_int_eq(nvtxwGetInterface(NVTXW_EXTENSION_INTERFACE_VERSION, (const void**)&ext), 0);
    nvtxwSessionHandle_t session = begin_report(path, &domain, &ids);
    open_writer(session, domain, &ids, 0, &writer);
    ck_assert_int_eq(ext->StreamFlush(writer.stream), 0);
    ck_assert_int_eq(ext->StreamFlush(NULL), NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_int_eq(T->StreamClose(writer.stream), 0);
    ck_assert_int_eq(ext->StreamFlush(writer.stream), NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "flush stream"));
    ck_assert_int_eq(T->SessionEnd(session), 0);
}
END_TEST

int main(void) {
    Suite* suite = suite_create("report");
    TCase* tc = tcase_create("report");
    if (nvtxwGetInterface(2, (const void**)&T) != 0 || mkdtemp(temp_dir) == NULL) {
        fprintf(stderr, "report_test: cannot get the interface or a temp dir\n");
        return 1;
    }
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, threads_write_streams_concurrently);
    tcase_add_test(tc, threads_write_streams_without_compression_threads);
    tcase_add_test(tc, threads_write_streams_with_three_compression_threads);
    tcase_add_test(tc, time_order_merges_streams);
    tcase_add_test(tc, killed_writer_leaves_readable_report);
    tcase_add_test(tc, every_record_kind_across_chunks);
    tcase_add_test(tc, many_schemas_share_the_caches);
    tcase_add_test(tc, remembered_shapes_are_still_checked);
    tcase_add_test(tc, flushed_streams_free_their_buffers);
    tcase_add_test(tc, stream_flush_refuses_closed_streams);
    suite_add_tcase(suite, tc);
    return tu_run_suite(suite);
}
