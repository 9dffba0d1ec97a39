/*
 * sink/text/text_stream.c - the text sink's streams and write path (record
 * grammar in text_sink.c). Runs concurrently across streams: every function
 * here touches only its stream's buffer and appends with one write(2).
 */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "nvtxw/format.h"
#include "sink/text/text_internal.h"

/* Appends the finished record (build_status 0) and clears the buffer. */
static nvtxwResultCode_t stream_emit(text_stream* st, int build_status) {
    nvtxwResultCode_t status;
    if (build_status != 0 || strbuf_append(&st->line, "\n", 1) != 0) {
        strbuf_clear(&st->line);
        return error_oom("a text output line");
    }
    status = text_write_all(st->sink, &st->line);
    strbuf_clear(&st->line);
    return status;
}

static int stream_prefix(text_stream* st, const char* kind) {
    return strbuf_printf(&st->line, "%s stream=", kind) ||
           strbuf_append_quoted(&st->line, st->stream->name);
}

nvtxwResultCode_t text_stream_open(sink* s, const core_stream* stream, void** state) {
    text_stream* st = nvtxw_calloc(1, sizeof *st);
    nvtxwResultCode_t status;
    if (st == NULL)
        return error_oom("a text stream");
    st->sink = (text_sink*)s;
    st->stream = stream;
    status =
        stream_emit(st, strbuf_append(&st->line, "stream_open ", 12) ||
                            strbuf_append_quoted(&st->line, stream->name) ||
                            strbuf_append(&st->line, " domain=", 8) ||
                            strbuf_append_quoted(&st->line, stream->domain->name) ||
                            strbuf_printf(&st->line,
                                          " scope=%" PRIu64 " time_domain=%" PRIu64
                                          " ordering=%d/%d/%d/%" PRId64,
                                          stream->scope_id, stream->time_domain_id,
                                          stream->order_interleaving, stream->ordering_type,
                                          stream->ordering_skid, stream->ordering_skid_amount));
    /* The core never sees a stream whose open failed: it is ours to free. */
    if (status != NVTXW_RESULT_SUCCESS) {
        strbuf_free(&st->line);
        nvtxw_free(st);
        return status;
    }
    *state = st;
    return NVTXW_RESULT_SUCCESS;
}

nvtxwResultCode_t text_stream_close(sink* s, const core_stream* stream, void* state) {
    text_stream* st = state;
    nvtxwResultCode_t status;
    (void)s;
    status = stream_emit(st, strbuf_append(&st->line, "stream_close ", 13) ||
                                 strbuf_append_quoted(&st->line, stream->name));
    strbuf_free(&st->line);
    nvtxw_free(st);
    return status;
}

/* StreamFlush: a line, so that the call order shows it (its lines are
 * written as they come; the line buffer is kept). */
nvtxwResultCode_t text_stream_flush(void* state) {
    text_stream* st = state;
    return stream_emit(st, stream_prefix(st, "flush"));
}

/* Collects formatter output into the stream's record, indenting each line. */
static int append_indented(void* ctx, const char* data, size_t size) {
    text_stream* st = ctx;
    size_t i, start = 0;
    for (i = 0; i < size; i++) {
        int at_line_start = st->line.length > 0 && st->line.data[st->line.length - 1] == '\n';
        if (i == start && at_line_start && strbuf_append(&st->line, "  ", 2) != 0)
            return 1;
        if (data[i] == '\n') {
            if (strbuf_append(&st->line, data + start, i + 1 - start) != 0)
                return 1;
            start = i + 1;
        }
    }
    return start < size && strbuf_append(&st->line, data + start, size - start) != 0;
}

static const char* resolve_string(void* ctx, uint64_t handle) {
    return core_domain_string(ctx, handle);
}

nvtxwResultCode_t text_event_write(void* state, const core_event* event) {
    text_stream* st = state;
    core_event_facts facts;
    nvtxw_visit_options_t options;
    nvtxwResultCode_t status =
        core_event_visit(event, NULL, NULL, NVTXW_VISIT_ALLOW_FOREIGN_POINTERS, &facts);
    if (status != NVTXW_RESULT_SUCCESS)
        return status;
    if (stream_prefix(st, "event") ||
        (facts.has_timestamp && strbuf_printf(&st->line, " ts=%" PRId64, facts.timestamp)) ||
        (event->scope_id != NVTX_SCOPE_NONE &&
         strbuf_printf(&st->line, " scope=%" PRIu64, event->scope_id)) ||
        strbuf_append(&st->line, "\n", 1))
        return stream_emit(st, 1);
    memset(&options, 0, sizeof options);
    options.struct_size = sizeof options;
    options.resolve_string = resolve_string;
    options.resolve_ctx = event->stream->domain;
    options.flags = NVTXW_VISIT_ALLOW_FOREIGN_POINTERS;
    status = nvtxw_payload_format_text(event->stream->domain->schemas, event->payloads,
                                       event->count, &options, append_indented, st);
    if (status != NVTXW_RESULT_SUCCESS) {
        strbuf_clear(&st->line);
        return status;
    }
    st->line.length--; /* stream_emit adds the final newline */
    return stream_emit(st, 0);
}

nvtxwResultCode_t text_counter_write(void* state, int64_t timestamp, const core_counter* counter,
                                     const void* data, size_t size) {
    text_stream* st = state;
    const unsigned char* bytes = data;
    int status = stream_prefix(st, "counter_sample") ||
                 strbuf_printf(&st->line, " ts=%" PRId64 " counter=%" PRIu64 " bytes=", timestamp,
                               counter->id);
    size_t i;
    for (i = 0; status == 0 && i < size; i++)
        status = strbuf_printf(&st->line, "%02x", bytes[i]);
    return stream_emit(st, status);
}

nvtxwResultCode_t text_counter_no_value_write(void* state, int64_t timestamp,
                                              const core_counter* counter, uint8_t reason) {
    text_stream* st = state;
    return stream_emit(st,
                       stream_prefix(st, "counter_no_value") ||
                           strbuf_printf(&st->line, " ts=%" PRId64 " counter=%" PRIu64 " reason=%u",
                                         timestamp, counter->id, (unsigned)reason));
}

nvtxwResultCode_t text_sync_points_write(void* state, uint64_t src, uint64_t dst,
                                         const nvtxSyncPoint_t* points, size_t count) {
    text_stream* st = state;
    int status = stream_prefix(st, "sync") ||
                 strbuf_printf(&st->line, " src=%" PRIu64 " dst=%" PRIu64 " points=", src, dst);
    size_t i;
    for (i = 0; status == 0 && i < count; i++)
        status = strbuf_printf(&st->line, "%s(%" PRId64 ",%" PRId64 ")", i ? " " : "",
                               points[i].src, points[i].dst);
    return stream_emit(st, status);
}

nvtxwResultCode_t text_conversion_factor_write(void* state, uint64_t src, uint64_t dst,
                                               double slope, int64_t ts_src, int64_t ts_dst) {
    text_stream* st = state;
    return stream_emit(st, stream_prefix(st, "conversion") ||
                               strbuf_printf(&st->line,
                                             " src=%" PRIu64 " dst=%" PRIu64
                                             " slope=%.17g anchor=(%" PRId64 ",%" PRId64 ")",
                                             src, dst, slope, ts_src, ts_dst));
}
