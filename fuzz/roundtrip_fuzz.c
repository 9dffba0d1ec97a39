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
 * - give the same number of records in time order;
 * - replay through the reader into Sink=json, and that JSON be valid
 *   (fuzz_json.h).
 * Anything else aborts with what differed: a report the writer called
 * finished that loses, damages or garbles what it accepted.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fuzz_json.h"
#include "fuzz_temp.h"
#include "nvtxw/nvtxw.h"
#include "nvtxw/reader.h"
#include "replay_input.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
nvtxwResultCode_t nvtxwGetInterface(nvtxwInterfaceVersion_t version, const void** ifaceOut);

/* What the replay's calls wrote, by their results. */
typedef struct accepted {
    uint64_t events, samples, no_values;
    int batches; /* a batch succeeded: its members' records are not counted */
} accepted;

static const nvtxwInterface_t* real;
static nvtxwInterface_t counting;
static accepted calls;

static nvtxwResultCode_t count_event(nvtxwStreamHandle_t stream, const nvtxPayloadData_t* payloads,
                                     size_t count) {
    nvtxwResultCode_t result = real->EventWrite(stream, payloads, count);
    calls.events += result == NVTXW_RESULT_SUCCESS;
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

static void setup(void) {
    if (nvtxwGetInterface(NVTXW_INTERFACE_VERSION, (const void**)&real) != NVTXW_RESULT_SUCCESS)
        abort();
    counting = *real;
    counting.EventWrite = count_event;
    counting.EventBatchWrite = count_event_batch;
    counting.CounterWrite = count_sample;
    counting.CounterNoValueWrite = count_no_value;
    counting.CounterBatchWrite = count_sample_batch;
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

/* Reads the report through in `order`; returns its record count and, in
 * stream order, checks damage, payloads and the accepted counts. */
static uint64_t read_back(const char* path, int order) {
    nvtxw_reader_options_t options = {sizeof options, order, 0};
    nvtxw_visitor_t quiet = {0};
    nvtxw_reader_t* reader;
    accepted found = {0, 0, 0, 0};
    uint64_t records = 0;
    quiet.struct_size = sizeof quiet;
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
            if (nvtxw_reader_visit_event(reader, record, &quiet, NULL) != NVTXW_RESULT_SUCCESS)
                fail(path, "event %llu (record %llu) does not visit",
                     (unsigned long long)found.events, (unsigned long long)records);
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

/* The report replayed by the reader into Sink=json: the replay must
 * succeed and the JSON be valid. */
static void replay_to_json(const char* path) {
    char json[FUZZ_TEMP_NAME_MAX], config[FUZZ_TEMP_NAME_MAX + 64];
    nvtxw_reader_t* reader;
    fuzz_temp_write(json, "roundtrip-json", NULL, 0);
    snprintf(config, sizeof config, "Sink=json|Output=%s|Overwrite=in-place", json);
    if (nvtxw_reader_open(path, NULL, &reader) != NVTXW_RESULT_SUCCESS)
        fail(path, "does not open again");
    if (nvtxw_reader_replay(reader, real, config, NULL) != NVTXW_RESULT_SUCCESS)
        fail(path, "does not replay into Sink=json");
    nvtxw_reader_close(reader);
    fuzz_json_check("roundtrip_fuzz", json);
    unlink(json);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    replay_input_ctx ctx;
    char input[FUZZ_TEMP_NAME_MAX], output[FUZZ_TEMP_NAME_MAX], config[FUZZ_TEMP_NAME_MAX + 64];
    int fd;
    if (real == NULL)
        setup();
    fuzz_temp_write(input, "roundtrip", data, size);
    /* the output's name: a temporary file's, the file itself removed so that
     * the sink creates it */
    fuzz_temp_name(output, "roundtrip-out");
    if ((fd = mkstemp(output)) < 0 || close(fd) != 0 || unlink(output) != 0)
        abort();
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
        replay_to_json(output);
    }
    unlink(input);
    unlink(output);
    return 0;
}
