/*
 * fuzz/roundtrip_fuzz.c - libFuzzer target for the report writer, driven
 * through the whole NVTXW API: arbitrary bytes as a capture file
 * (docs/capture-format.md) replayed into Sink=report, and every report the
 * replay finishes read back. Where capture_fuzz checks the capture reader
 * and writer, this one checks what a producer's calls become in a report:
 * the report sink's encodings (compact records, repeated shapes, interned
 * strings, field lanes) with schemas, payloads and call sequences no test
 * wrote, and the reader on reports the writer really produces.
 *
 * The replay itself may refuse the input (exit status 1, no crash, leak or
 * sanitizer report). When it succeeds, the report must:
 * - open without damage and read to its end in stream order, every event's
 *   payloads visited without error;
 * - hold one event record per EventWrite, one counter-sample record per
 *   CounterWrite and one no-value record per CounterNoValueWrite that
 *   returned success (counted by wrapping the function table; batches
 *   store one record per member, so with a batch the counts are skipped);
 * - give back every accepted event's values: each event record, visited
 *   with the report's registry, gives the same values (integers, floats
 *   bit for bit, strings, bytes, enums, string handles, arrays, nested
 *   objects, schema IDs) as a copy of the payloads the call was given,
 *   visited the same way (events with a payload of unknown size, over 64
 *   KiB, or beyond the first 4096 are only counted);
 * - give the same number of records in time order;
 * - replay through the reader into another sink (json, text, stats,
 *   sqlite or perfetto, by the input's size), JSON be valid JSON
 *   (fuzz_json.h), a database pass SQLite's integrity check and a Perfetto
 *   trace be a sequence of whole Trace.packet fields, the same bytes as
 *   when every event is walked (a REFERENCED payload added to each makes
 *   the sink decline its direct encoding).
 * Anything else aborts with what differed: a report the writer called
 * finished that loses, damages or garbles what it accepted.
 */
#define _POSIX_C_SOURCE 200809L
#include <sqlite3.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_json.h"
#include "fuzz_temp.h"
#include "nvtxw/nvtxw.h"
#include "nvtxw/payload.h"
#include "nvtxw/reader.h"
#include "replay_input.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
nvtxwResultCode_t nvtxwGetInterface(nvtxwInterfaceVersion_t version, const void** ifaceOut);

/* What the replay's calls wrote, by their results. */
typedef struct accepted {
    uint64_t events, samples, no_values;
    int batches; /* a batch succeeded: its members' records are not counted */
} accepted;

/* Copies of the accepted events' payloads, in call order, to compare with
 * what the report gives back. */
#define LOG_EVENTS 4096
#define LOG_PAYLOADS 16       /* per event */
#define LOG_PAYLOAD_MAX 65536 /* bytes of one payload */
#define LOG_STREAMS 64

typedef struct logged_event {
    uint32_t stream;                          /* index among the successful StreamOpen calls */
    uint32_t count;                           /* payloads; 0 with `skip` */
    int skip;                                 /* not copied (see the file comment): only counted */
    nvtxPayloadData_t payloads[LOG_PAYLOADS]; /* payload: the copy */
    uint64_t origins[LOG_PAYLOADS];           /* where the producer's bytes were */
} logged_event;

typedef struct event_log {
    logged_event* events; /* grown as calls come, up to LOG_EVENTS */
    size_t count, capacity;
    int overflow; /* more events than LOG_EVENTS: those after are not compared */
    nvtxwStreamHandle_t streams[LOG_STREAMS];
    size_t stream_count;
    int stream_overflow; /* more streams: no values are compared */
} event_log;

static const nvtxwInterface_t* real;
static nvtxwInterface_t counting;
static accepted calls;
static event_log log_;

static nvtxwResultCode_t log_stream_open(nvtxwSessionHandle_t session,
                                         const nvtxwStreamAttributes_t* attr,
                                         nvtxwStreamHandle_t* stream) {
    nvtxwResultCode_t result = real->StreamOpen(session, attr, stream);
    if (result == NVTXW_RESULT_SUCCESS) {
        if (log_.stream_count < LOG_STREAMS)
            log_.streams[log_.stream_count++] = *stream;
        else
            log_.stream_overflow = 1;
    }
    return result;
}

/* Copies an accepted event into the log (or notes it as only counted). */
static void log_event(nvtxwStreamHandle_t stream, const nvtxPayloadData_t* payloads, size_t count) {
    logged_event* e;
    size_t i;
    if (log_.count == log_.capacity) {
        size_t capacity = log_.capacity ? 2 * log_.capacity : 16;
        logged_event* grown;
        if (log_.count == LOG_EVENTS ||
            (grown = realloc(log_.events, capacity * sizeof *grown)) == NULL) {
            log_.overflow = 1;
            return;
        }
        log_.events = grown;
        log_.capacity = capacity;
    }
    e = &log_.events[log_.count++];
    memset(e, 0, sizeof *e);
    for (i = 0; i < log_.stream_count && log_.streams[i] != stream; i++)
        ;
    e->stream = (uint32_t)i;
    e->skip = i == log_.stream_count || count > LOG_PAYLOADS;
    for (i = 0; !e->skip && i < count; i++) {
        const nvtxPayloadData_t* p = &payloads[i];
        void* copy;
        if (p->size > LOG_PAYLOAD_MAX || (p->size > 0 && p->payload == NULL) ||
            (copy = malloc(p->size ? p->size : 1)) == NULL) {
            e->skip = 1;
            break;
        }
        memcpy(copy, p->payload ? p->payload : "", p->size);
        e->payloads[i].schemaId = p->schemaId;
        e->payloads[i].size = p->size;
        e->payloads[i].payload = copy;
        e->origins[i] = (uint64_t)(uintptr_t)p->payload;
        e->count = (uint32_t)i + 1;
    }
}

static void log_free(void) {
    size_t i, k;
    for (i = 0; i < log_.count; i++)
        for (k = 0; k < log_.events[i].count; k++)
            free((void*)log_.events[i].payloads[k].payload);
    free(log_.events);
    memset(&log_, 0, sizeof log_);
}

static nvtxwResultCode_t count_event(nvtxwStreamHandle_t stream, const nvtxPayloadData_t* payloads,
                                     size_t count) {
    nvtxwResultCode_t result = real->EventWrite(stream, payloads, count);
    if (result == NVTXW_RESULT_SUCCESS) {
        calls.events++;
        log_event(stream, payloads, count);
    }
    return result;
}

static nvtxwResultCode_t count_event_batch(nvtxwStreamHandle_t stream,
                                           const nvtxEventBatch_t* batch) {
    nvtxwResultCode_t result = real->EventBatchWrite(stream, batch);
    calls.batches |= result == NVTXW_RESULT_SUCCESS;
    return result;
}

static nvtxwResultCode_t count_sample(nvtxwStreamHandle_t stream, int64_t timestamp,
                                      uint64_t counter, const void* data, size_t size) {
    nvtxwResultCode_t result = real->CounterWrite(stream, timestamp, counter, data, size);
    calls.samples += result == NVTXW_RESULT_SUCCESS;
    return result;
}

static nvtxwResultCode_t count_no_value(nvtxwStreamHandle_t stream, int64_t timestamp,
                                        uint64_t counter, uint8_t reason) {
    nvtxwResultCode_t result = real->CounterNoValueWrite(stream, timestamp, counter, reason);
    calls.no_values += result == NVTXW_RESULT_SUCCESS;
    return result;
}

static nvtxwResultCode_t count_sample_batch(nvtxwStreamHandle_t stream,
                                            const nvtxCounterBatch_t* batch) {
    nvtxwResultCode_t result = real->CounterBatchWrite(stream, batch);
    calls.batches |= result == NVTXW_RESULT_SUCCESS;
    return result;
}

/* The table of a second replay into Sink=perfetto: every event gets one
 * more payload, REFERENCED bytes, which add nothing to the trace but make
 * the sink walk the event instead of reading it directly (its direct
 * encoding declines such payloads): both traces must be the same bytes. */
static nvtxwInterface_t walking;

static nvtxwResultCode_t walk_event(nvtxwStreamHandle_t stream, const nvtxPayloadData_t* payloads,
                                    size_t count) {
    static const uint64_t spare = 0;
    nvtxPayloadData_t more[16];
    if (count >= sizeof more / sizeof more[0]) /* more than the direct encoding takes */
        return real->EventWrite(stream, payloads, count);
    memcpy(more, payloads, count * sizeof *more);
    more[count].schemaId = NVTX_TYPE_PAYLOAD_SCHEMA_REFERENCED;
    more[count].size = sizeof spare;
    more[count].payload = &spare;
    return real->EventWrite(stream, more, count + 1);
}

static void setup(void) {
    if (nvtxwGetInterface(NVTXW_INTERFACE_VERSION, (const void**)&real) != NVTXW_RESULT_SUCCESS)
        abort();
    counting = *real;
    counting.StreamOpen = log_stream_open;
    counting.EventWrite = count_event;
    counting.EventBatchWrite = count_event_batch;
    counting.CounterWrite = count_sample;
    counting.CounterNoValueWrite = count_no_value;
    counting.CounterBatchWrite = count_sample_batch;
    walking = *real;
    walking.EventWrite = walk_event;
}

/* Aborts with what the report `path` got wrong and the library's last
 * error. */
static void fail(const char* path, const char* format, ...) {
    va_list args;
    fprintf(stderr, "roundtrip_fuzz: report %s: ", path);
    va_start(args, format);
    vfprintf(stderr, format, args);
    va_end(args);
    fprintf(stderr, "%s%s\n", nvtxw_last_error()[0] ? ": " : "", nvtxw_last_error());
    abort();
}

/* The values a visit gives, as text: what two visits of one event compare. */
typedef struct trace {
    char text[16384];
    size_t length;
    int full; /* text cut: the comparison is skipped */
} trace;

static int add(void* ctx, const char* format, ...) {
    trace* t = ctx;
    va_list args;
    int n;
    if (t->full)
        return 0;
    va_start(args, format);
    n = vsnprintf(t->text + t->length, sizeof t->text - t->length, format, args);
    va_end(args);
    if (n < 0 || (size_t)n >= sizeof t->text - t->length)
        t->full = 1;
    else
        t->length += (size_t)n;
    return 0;
}

static int add_bytes(trace* t, const char* tag, const void* data, size_t size) {
    const unsigned char* b = data;
    size_t i;
    add(t, "%s%zu:", tag, size);
    for (i = 0; i < size && !t->full; i++)
        add(t, "%02x", b[i]);
    return add(t, ";");
}

static int on_payload_begin(void* c, size_t index, uint64_t schema_id, size_t size,
                            const char* name) {
    (void)size; /* a stored payload may be shorter (no padding) */
    (void)name;
    return add(c, "P%zu:%llu;", index, (unsigned long long)schema_id);
}
static int on_object_begin(void* c, uint64_t schema_id) {
    return add(c, "{%llu;", (unsigned long long)schema_id);
}
static int on_object_end(void* c) { return add(c, "};"); }
static int on_array_begin(void* c, uint64_t length) {
    return add(c, "[%llu;", (unsigned long long)length);
}
static int on_array_end(void* c) { return add(c, "];"); }
static int on_signed(void* c, int64_t v) { return add(c, "i%lld;", (long long)v); }
static int on_unsigned(void* c, uint64_t v) { return add(c, "u%llu;", (unsigned long long)v); }
static int on_float(void* c, double v) {
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    return add(c, "f%016llx;", (unsigned long long)bits);
}
static int on_string(void* c, const char* utf8, size_t length) {
    return add_bytes(c, "s", utf8, length);
}
static int on_bytes(void* c, const void* data, size_t size) {
    return add_bytes(c, "b", data, size);
}
static int on_enum(void* c, uint64_t v, const char* name) {
    (void)name;
    return add(c, "e%llu;", (unsigned long long)v);
}
static int on_string_handle(void* c, uint64_t handle, const char* text) {
    (void)text; /* resolved by neither visit: the handle is what was stored */
    return add(c, "h%llu;", (unsigned long long)handle);
}
static int on_null(void* c) { return add(c, "n;"); }

static nvtxw_visitor_t tracer(void) {
    nvtxw_visitor_t v;
    memset(&v, 0, sizeof v);
    v.struct_size = sizeof v;
    v.payload_begin = on_payload_begin;
    v.object_begin = on_object_begin;
    v.object_end = on_object_end;
    v.array_begin = on_array_begin;
    v.array_end = on_array_end;
    v.on_signed = on_signed;
    v.on_unsigned = on_unsigned;
    v.on_float = on_float;
    v.on_string = on_string;
    v.on_bytes = on_bytes;
    v.on_enum = on_enum;
    v.on_string_handle = on_string_handle;
    v.on_null = on_null;
    return v;
}

/* Starts an empty trace. */
static void trace_clear(trace* t) {
    t->length = 0;
    t->full = 0;
    t->text[0] = '\0';
}

/* The stored event `record` visited through the reader's own entry point
 * into t: every event the report holds must visit. */
static void trace_stored(trace* t, const char* path, const nvtxw_reader_t* reader,
                         const nvtxw_record_t* record, uint64_t records) {
    nvtxw_visitor_t v = tracer();
    trace_clear(t);
    if (nvtxw_reader_visit_event(reader, record, &v, t) != NVTXW_RESULT_SUCCESS)
        fail(path, "event of record %llu does not visit", (unsigned long long)records);
}

/* Compares `stored`, the trace of event record `record`, with the next
 * logged event of its stream (*cursor: per stream, the log index to search
 * from), visited with the report's registry. */
static void compare_event(const char* path, const nvtxw_reader_t* reader,
                          const nvtxw_record_t* record, const trace* stored, size_t* cursor) {
    static trace written;
    const nvtxw_schema_registry_t* registry = nvtxw_reader_registry(reader, record->domain);
    nvtxw_visitor_t v = tracer();
    nvtxw_visit_options_t options;
    const logged_event* e;
    size_t* at = &cursor[record->stream];
    while (*at < log_.count && log_.events[*at].stream != record->stream)
        (*at)++;
    if (*at == log_.count) {
        if (!log_.overflow)
            fail(path, "holds an event on stream %llu that no accepted call wrote",
                 (unsigned long long)record->stream);
        return;
    }
    e = &log_.events[(*at)++];
    if (e->skip || registry == NULL)
        return;
    memset(&options, 0, sizeof options);
    options.struct_size = sizeof options;
    options.payload_origins = e->origins;
    trace_clear(&written);
    if (nvtxw_payload_visit(registry, e->payloads, e->count, &v, &written, &options) !=
        NVTXW_RESULT_SUCCESS)
        return; /* the copy cannot be walked without the producer's memory */
    if (!written.full && !stored->full &&
        (written.length != stored->length || memcmp(written.text, stored->text, written.length))) {
        fprintf(stderr, "roundtrip_fuzz: written: %.2000s\nroundtrip_fuzz: read:    %.2000s\n",
                written.text, stored->text);
        fail(path, "event %zu of stream %llu reads back with other values",
             (size_t)(e - log_.events), (unsigned long long)record->stream);
    }
}

/* Reads the report through in `order`; returns its record count and, in
 * stream order, checks damage, payloads and the accepted counts. */
static uint64_t read_back(const char* path, int order) {
    nvtxw_reader_options_t options = {sizeof options, order, 0};
    static trace stored;
    nvtxw_reader_t* reader;
    accepted found = {0, 0, 0, 0};
    uint64_t records = 0;
    size_t cursor[LOG_STREAMS] = {0};
    if (nvtxw_reader_open(path, &options, &reader) != NVTXW_RESULT_SUCCESS)
        fail(path, "does not open");
    for (;;) {
        const nvtxw_record_t* record = NULL;
        if (nvtxw_reader_next(reader, &record) != NVTXW_RESULT_SUCCESS)
            fail(path, "record %llu does not read (%s order)", (unsigned long long)records + 1,
                 order == NVTXW_READER_ORDER_STREAM ? "stream" : "time");
        if (record == NULL)
            break;
        records++;
        if (order != NVTXW_READER_ORDER_STREAM)
            continue;
        if (record->kind == NVTXW_RECORD_EVENT) {
            found.events++;
            trace_stored(&stored, path, reader, record, records);
            if (!calls.batches && !log_.stream_overflow && record->stream < LOG_STREAMS)
                compare_event(path, reader, record, &stored, cursor);
        }
        found.samples += record->kind == NVTXW_RECORD_COUNTER_SAMPLE;
        found.no_values += record->kind == NVTXW_RECORD_COUNTER_NO_VALUE;
    }
    if (nvtxw_reader_damage_count(reader) != 0)
        fail(path, "%zu damaged ranges", nvtxw_reader_damage_count(reader));
    nvtxw_reader_close(reader);
    if (order == NVTXW_READER_ORDER_STREAM && !calls.batches &&
        (found.events != calls.events || found.samples != calls.samples ||
         found.no_values != calls.no_values)) {
        fail(path,
             "holds %llu events, %llu counter samples and %llu no-value records; the calls "
             "accepted %llu, %llu and %llu",
             (unsigned long long)found.events, (unsigned long long)found.samples,
             (unsigned long long)found.no_values, (unsigned long long)calls.events,
             (unsigned long long)calls.samples, (unsigned long long)calls.no_values);
    }
    return records;
}

/* SQLite's own check of the database the sqlite sink wrote. */
static void sqlite_check(const char* path) {
    sqlite3* db = NULL;
    sqlite3_stmt* statement = NULL;
    const unsigned char* verdict;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &statement, NULL) != SQLITE_OK ||
        sqlite3_step(statement) != SQLITE_ROW)
        fail(path, "is not an SQLite database: %s", db ? sqlite3_errmsg(db) : "(no handle)");
    verdict = sqlite3_column_text(statement, 0);
    if (verdict == NULL || strcmp((const char*)verdict, "ok") != 0)
        fail(path, "fails SQLite's integrity check: %s", verdict ? (const char*)verdict : "NULL");
    sqlite3_finalize(statement);
    sqlite3_close(db);
}

/* A varint of the protobuf wire format at *p (before end); -1 when cut. */
static int read_varint(const unsigned char** p, const unsigned char* end, uint64_t* value) {
    unsigned shift;
    *value = 0;
    for (shift = 0; *p < end && shift < 64; shift += 7) {
        unsigned char byte = *(*p)++;
        *value |= (uint64_t)(byte & 0x7F) << shift;
        if ((byte & 0x80) == 0)
            return 0;
    }
    return -1;
}

/* The whole file `path` (NULL when larger than `capacity`). */
static unsigned char* read_whole(const char* path, unsigned char* buffer, size_t capacity,
                                 size_t* size) {
    FILE* f = fopen(path, "rb");
    if (f == NULL)
        fail(path, "output missing");
    *size = fread(buffer, 1, capacity, f);
    fclose(f);
    return *size == capacity ? NULL : buffer;
}

/* The Perfetto sink's file: nothing but Trace.packet fields (number 1,
 * length-delimited), each whole, and the same bytes as `walked`, the
 * trace of the same report written through the walk. */
static void perfetto_check(const char* path, const char* walked) {
    static unsigned char buffer[1 << 22], other[1 << 22];
    const unsigned char *p = buffer, *end;
    size_t size, other_size;
    uint64_t tag, length;
    if (read_whole(path, buffer, sizeof buffer, &size) == NULL ||
        read_whole(walked, other, sizeof other, &other_size) == NULL)
        return; /* too large to check here */
    for (end = buffer + size; p < end; p += length) {
        if (read_varint(&p, end, &tag) != 0 || tag != (1u << 3 | 2) ||
            read_varint(&p, end, &length) != 0 || length > (uint64_t)(end - p))
            fail(path, "Perfetto trace: no whole Trace.packet at byte %zu", (size_t)(p - buffer));
    }
    if (size != other_size || memcmp(buffer, other, size) != 0)
        fail(path, "Perfetto trace: %zu bytes read directly, %zu walked, not the same", size,
             other_size);
}

/* The report at `path` replayed through `table` into `config`. */
static void replay_with(const char* path, const nvtxwInterface_t* table, const char* config,
                        const char* sink) {
    nvtxw_reader_t* reader;
    if (nvtxw_reader_open(path, NULL, &reader) != NVTXW_RESULT_SUCCESS)
        fail(path, "does not open again");
    if (nvtxw_reader_replay(reader, table, config, NULL) != NVTXW_RESULT_SUCCESS)
        fail(path, "does not replay into Sink=%s", sink);
    nvtxw_reader_close(reader);
}

/* The report replayed by the reader into another sink, chosen by the
 * input's size so that each input always takes the same one: the replay
 * must succeed, JSON be valid JSON, a database pass SQLite's check and a
 * Perfetto trace be framed whole. */
static void replay_to_sink(const char* path, size_t choice) {
    static const char* const sinks[] = {"json", "text", "stats", "sqlite", "perfetto"};
    const char* sink = sinks[choice % 5];
    char out[FUZZ_TEMP_NAME_MAX], walked[FUZZ_TEMP_NAME_MAX], config[FUZZ_TEMP_NAME_MAX + 64];
    fuzz_temp_write(out, "roundtrip-sink", NULL, 0);
    snprintf(config, sizeof config, "Sink=%s|Output=%s|Overwrite=in-place", sink, out);
    replay_with(path, real, config, sink);
    if (strcmp(sink, "json") == 0) {
        fuzz_json_check("roundtrip_fuzz", out);
    } else if (strcmp(sink, "sqlite") == 0) {
        sqlite_check(out);
    } else if (strcmp(sink, "perfetto") == 0) {
        fuzz_temp_write(walked, "roundtrip-walked", NULL, 0);
        snprintf(config, sizeof config, "Sink=perfetto|Output=%s|Overwrite=in-place", walked);
        replay_with(path, &walking, config, sink);
        perfetto_check(out, walked);
        unlink(walked);
    }
    unlink(out);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    replay_input_ctx ctx;
    char input[FUZZ_TEMP_NAME_MAX], output[FUZZ_TEMP_NAME_MAX], config[FUZZ_TEMP_NAME_MAX + 64];
    if (real == NULL)
        setup();
    fuzz_temp_write(input, "roundtrip", data, size);
    fuzz_temp_write(output, "roundtrip-out", NULL, 0); /* replaced at SessionEnd */
    snprintf(config, sizeof config, "Sink=report|Output=%s|CompressionThreads=0", output);
    ctx.tool = "roundtrip_fuzz";
    ctx.iface = &counting;
    ctx.config = config;
    calls = (accepted){0, 0, 0, 0};
    if (capture_replay(&ctx, input) == 0) {
        uint64_t in_stream_order = read_back(output, NVTXW_READER_ORDER_STREAM);
        uint64_t in_time_order = read_back(output, NVTXW_READER_ORDER_TIME);
        if (in_stream_order != in_time_order)
            fail(output, "%llu records in stream order, %llu in time order",
                 (unsigned long long)in_stream_order, (unsigned long long)in_time_order);
        replay_to_sink(output, size);
    }
    log_free();
    unlink(input);
    unlink(output);
    return 0;
}
