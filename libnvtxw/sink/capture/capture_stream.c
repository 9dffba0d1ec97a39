/*
 * sink/capture/capture_stream.c - Sink=capture's streams and write path
 * (line grammar in docs/capture-format.md). Runs concurrently across
 * streams: everything here touches only its stream's buffer until
 * capture_sink_write hands whole lines over under the sink's lock.
 * Payloads are decoded with the streaming visitor and written by field
 * name when the reader can encode them back (capture_schema_form), as hex
 * when their bytes hold no pointers; an event with a payload that holds
 * pointers and has no by-name form is written whole as hex with its
 * pointers relocated (capture_reloc.c).
 */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "sink/capture/capture_internal.h"

/* Ends the stream's current line; writes the buffer once it is large. */
static nvtxwResultCode_t end_line(capture_stream* st, size_t line_start, int build_status,
                                  int force) {
    if (build_status != 0 || strbuf_append(&st->lines, "}\n", 2) != 0) {
        st->lines.length = line_start;
        return error_oom("a capture line");
    }
    if (force || st->lines.length >= CAPTURE_FLUSH_BYTES)
        return capture_sink_write(st->sink, &st->lines);
    return NVTXW_RESULT_SUCCESS;
}

static int stream_prefix(capture_stream* st, const char* kind) {
    return strbuf_append(&st->lines, "{\"stream\":", 10) ||
           capture_json_string(&st->lines, st->stream->name, strlen(st->stream->name)) ||
           strbuf_printf(&st->lines, ",\"%s\":", kind);
}

nvtxwResultCode_t capture_stream_open(sink* s, const core_stream* stream, void** state) {
    capture_stream* st = nvtxw_calloc(1, sizeof *st);
    nvtxwResultCode_t status;
    if (st == NULL)
        return error_oom("a capture stream");
    st->sink = (capture_sink*)s;
    st->stream = stream;
    status = end_line(
        st, 0,
        strbuf_append(&st->lines, "{\"domain\":", 10) ||
            capture_json_string(&st->lines, stream->domain->name, strlen(stream->domain->name)) ||
            strbuf_append(&st->lines, ",\"stream_open\":", 15) ||
            capture_json_string(&st->lines, stream->name, strlen(stream->name)) ||
            strbuf_printf(
                &st->lines,
                ",\"scope\":%" PRIu64 ",\"time_domain\":%" PRIu64
                ",\"interleaving\":%d,\"ordering\":%d,\"skid\":%d,\"skid_amount\":%" PRId64,
                stream->scope_id, stream->time_domain_id, stream->order_interleaving,
                stream->ordering_type, stream->ordering_skid, stream->ordering_skid_amount),
        1);
    if (status != NVTXW_RESULT_SUCCESS) {
        strbuf_free(&st->lines);
        nvtxw_free(st);
        return status;
    }
    *state = st;
    return NVTXW_RESULT_SUCCESS;
}

nvtxwResultCode_t capture_stream_close(sink* s, const core_stream* stream, void* state) {
    capture_stream* st = state;
    nvtxwResultCode_t status;
    (void)s;
    status = end_line(st, st->lines.length,
                      strbuf_append(&st->lines, "{\"stream_close\":", 16) ||
                          capture_json_string(&st->lines, stream->name, strlen(stream->name)),
                      1);
    strbuf_free(&st->lines);
    nvtxw_free(st);
    return status;
}

/* ---- payloads through the visitor ---- */

/*
 * All payloads of an event are walked in one visit (pointers may lead from
 * one payload into another). Each payload takes its own form, decided at
 * its payload_begin: by field name, or as hex, whose bytes are written at
 * once while the walk through its fields is ignored (`skip`). REFERENCED
 * payloads (batch flexData) produce no visitor events: what the event
 * points to there is written where it is used, by name.
 */
typedef struct writer {
    strbuf* out;
    const capture_stream* st;
    const core_event* event; /* NULL for a counter sample */
    int first;               /* no comma before the next item at this level */
    int skip;                /* inside a payload written as hex */
    int sample;              /* a counter sample: the bare value, no schema key */
    int bare;                /* this payload is a predefined type: its one field is the value */
    size_t written;          /* payloads written so far */
} writer;

static int sep(writer* w) {
    int status = w->first ? 0 : strbuf_append(w->out, ",", 1);
    w->first = 0;
    return status;
}

/* A schema by its name when it has one (names are unique in a domain:
 * the reader's schema loader refuses duplicates), predefined types by
 * their lowercase type name, else by ID. */
static int schema_ref(strbuf* out, uint64_t schema_id, const char* name) {
    char lower[64];
    size_t i, length = name ? strlen(name) : 0;
    if (length == 0 ||
        (schema_id < NVTX_PAYLOAD_SCHEMA_ID_STATIC_START && length >= sizeof lower) ||
        schema_id == NVTX_TYPE_PAYLOAD_SCHEMA_RAW || (name[0] >= '0' && name[0] <= '9'))
        return strbuf_printf(out, "%" PRIu64, schema_id);
    if (schema_id >= NVTX_PAYLOAD_SCHEMA_ID_STATIC_START)
        return capture_json_string(out, name, length);
    for (i = 0; i < length; i++)
        lower[i] = (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] - 'A' + 'a' : name[i]);
    return capture_json_string(out, lower, length);
}

/* The form of one payload: predefined types are written by value unless
 * they are UTF-16/32 strings or have no plain value. */
static int payload_form(const capture_stream* st, const nvtxPayloadData_t* p) {
    void* form;
    if (p->schemaId < NVTX_PAYLOAD_SCHEMA_ID_STATIC_START) {
        size_t size = nvtxw_entry_type_size(p->schemaId);
        if (p->schemaId == NVTX_PAYLOAD_ENTRY_TYPE_CSTRING ||
            p->schemaId == NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF8)
            return CAPTURE_FORM_NAMES;
        return size >= 1 && size <= 8 && p->schemaId != NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF16 &&
                       p->schemaId != NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF32 &&
                       p->schemaId != NVTX_PAYLOAD_ENTRY_TYPE_FLOAT16 &&
                       p->schemaId != NVTX_PAYLOAD_ENTRY_TYPE_BF16 &&
                       p->schemaId != NVTX_PAYLOAD_ENTRY_TYPE_TF32
                   ? CAPTURE_FORM_NAMES
                   : CAPTURE_FORM_HEX;
    }
    if (p->schemaId == NVTX_TYPE_PAYLOAD_SCHEMA_RAW)
        return CAPTURE_FORM_HEX;
    form = pubmap_get(&st->sink->forms, ((uint64_t)st->stream->domain->index << 48) + p->schemaId);
    return form ? (int)(intptr_t)form : CAPTURE_FORM_NONE;
}

static const char* schema_name_of(const core_domain* domain, uint64_t id) {
    const nvtxw_schema_t* schema;
    if (id < NVTX_PAYLOAD_SCHEMA_ID_STATIC_START)
        return nvtxw_entry_type_name(id);
    schema = nvtxw_schema_registry_find_schema(domain->schemas, id);
    return schema ? nvtxw_schema_name(schema) : NULL;
}

/* `{"schema":REF,"hex":"..."}` for payload `index` of the event. */
static int write_hex_payload(writer* w, size_t index) {
    const nvtxPayloadData_t* p = &w->event->payloads[index];
    return strbuf_append(w->out, "{\"schema\":", 10) ||
           schema_ref(w->out, p->schemaId, schema_name_of(w->st->stream->domain, p->schemaId)) ||
           strbuf_append(w->out, ",\"hex\":", 7) || capture_json_hex(w->out, p->payload, p->size) ||
           strbuf_append(w->out, "}", 1);
}

static int w_payload_begin(void* ctx, size_t index, uint64_t schema_id, size_t size,
                           const char* name) {
    writer* w = ctx;
    (void)size;
    w->first = 0;
    w->bare = schema_id < NVTX_PAYLOAD_SCHEMA_ID_STATIC_START;
    if (w->sample)
        return w->bare ? (w->first = 1, 0) : strbuf_append(w->out, "{", 1) || (w->first = 1, 0);
    if (w->written++ > 0 && strbuf_append(w->out, ",", 1))
        return 1;
    w->skip = payload_form(w->st, &w->event->payloads[index]) != CAPTURE_FORM_NAMES;
    if (w->skip)
        return write_hex_payload(w, index);
    return strbuf_append(w->out, "{\"schema\":", 10) || schema_ref(w->out, schema_id, name);
}
static int w_payload_end(void* ctx, size_t index) {
    writer* w = ctx;
    (void)index;
    if (w->skip) {
        w->skip = 0;
        return 0;
    }
    return w->sample && w->bare ? 0 : strbuf_append(w->out, "}", 1);
}
static int w_field_begin(void* ctx, const nvtxw_field_info_t* f) {
    writer* w = ctx;
    const char* name = w->bare ? "value" : f->name;
    if (w->skip || (w->sample && w->bare))
        return 0;
    return sep(w) || capture_json_string(w->out, name, strlen(name)) ||
           strbuf_append(w->out, ":", 1) || (w->first = 1, 0);
}
static int w_field_end(void* ctx, const nvtxw_field_info_t* f) {
    (void)f;
    ((writer*)ctx)->first = 0;
    return 0;
}
static int w_open(void* ctx, const char* c) {
    writer* w = ctx;
    int status;
    if (w->skip)
        return 0;
    status = sep(w) || strbuf_append(w->out, c, 1);
    w->first = 1;
    return status;
}
static int w_close(void* ctx, const char* c) {
    writer* w = ctx;
    w->first = 0;
    return w->skip ? 0 : strbuf_append(w->out, c, 1);
}
static int w_array_begin(void* ctx, uint64_t n) {
    (void)n;
    return w_open(ctx, "[");
}
static int w_array_end(void* ctx) { return w_close(ctx, "]"); }
static int w_object_begin(void* ctx, uint64_t id) {
    (void)id;
    return w_open(ctx, "{");
}
static int w_object_end(void* ctx) { return w_close(ctx, "}"); }
static int w_signed(void* ctx, int64_t v) {
    writer* w = ctx;
    return !w->skip && (sep(w) || strbuf_printf(w->out, "%" PRId64, v));
}
static int w_unsigned(void* ctx, uint64_t v) {
    writer* w = ctx;
    return !w->skip && (sep(w) || strbuf_printf(w->out, "%" PRIu64, v));
}
static int w_float(void* ctx, double v) {
    writer* w = ctx;
    return !w->skip && (sep(w) || capture_json_double(w->out, v));
}
static int w_string(void* ctx, const char* s, size_t n) {
    writer* w = ctx;
    return !w->skip && (sep(w) || capture_json_string(w->out, s, n));
}
static int w_bytes(void* ctx, const void* d, size_t n) {
    writer* w = ctx;
    return !w->skip && (sep(w) || capture_json_hex(w->out, d, n));
}
static int w_enum(void* ctx, uint64_t v, const char* name) {
    (void)name;
    return w_unsigned(ctx, v);
}
static int w_handle(void* ctx, uint64_t h, const char* text) {
    (void)text;
    return w_unsigned(ctx, h & 0xFFFFFFFFu);
}
static int w_null(void* ctx) {
    writer* w = ctx;
    return !w->skip && (sep(w) || strbuf_append(w->out, "null", 4));
}

static const nvtxw_visitor_t capture_visitor = {
    .struct_size = sizeof(nvtxw_visitor_t),
    .payload_begin = w_payload_begin,
    .payload_end = w_payload_end,
    .field_begin = w_field_begin,
    .field_end = w_field_end,
    .array_begin = w_array_begin,
    .array_end = w_array_end,
    .object_begin = w_object_begin,
    .object_end = w_object_end,
    .on_signed = w_signed,
    .on_unsigned = w_unsigned,
    .on_float = w_float,
    .on_string = w_string,
    .on_bytes = w_bytes,
    .on_enum = w_enum,
    .on_string_handle = w_handle,
    .on_null = w_null,
};

static const char* resolve_string(void* ctx, uint64_t handle) {
    return core_domain_string(ctx, handle);
}

static void visit_options(nvtxw_visit_options_t* options, const core_stream* stream,
                          uint32_t flags) {
    memset(options, 0, sizeof *options);
    options->struct_size = sizeof *options;
    options->resolve_string = resolve_string;
    options->resolve_ctx = stream->domain;
    options->flags = flags;
}

/* Every payload of the event (REFERENCED ones and empty ones too, so that
 * indices stay) as hex with its pointers relocated: the form of events with
 * a payload that holds pointers and cannot be given by name. */
static nvtxwResultCode_t write_relocated(capture_stream* st, const core_event* event) {
    size_t i;
    nvtxwResultCode_t status = NVTXW_RESULT_SUCCESS;
    for (i = 0; i < event->count && status == NVTXW_RESULT_SUCCESS; i++) {
        const nvtxPayloadData_t* p = &event->payloads[i];
        if ((i > 0 && strbuf_append(&st->lines, ",", 1)) ||
            strbuf_append(&st->lines, "{\"schema\":", 10) ||
            schema_ref(&st->lines, p->schemaId, schema_name_of(st->stream->domain, p->schemaId)))
            return error_oom("a capture line");
        status = capture_relocated(&st->lines, st->stream->domain->schemas, event, i);
        if (status == NVTXW_RESULT_SUCCESS && strbuf_append(&st->lines, "}", 1))
            status = error_oom("a capture line");
    }
    return status;
}

/* Non-zero when a payload of the event holds pointers and has no by-name
 * form: the event is then written relocated. */
static int needs_relocation(const capture_stream* st, const core_event* event) {
    size_t i;
    for (i = 0; i < event->count; i++) {
        if (event->payloads[i].schemaId != NVTX_TYPE_PAYLOAD_SCHEMA_REFERENCED &&
            event->payloads[i].size > 0 &&
            payload_form(st, &event->payloads[i]) == CAPTURE_FORM_NONE)
            return 1;
    }
    return 0;
}

nvtxwResultCode_t capture_event_write(void* state, const core_event* event) {
    capture_stream* st = state;
    size_t start = st->lines.length;
    writer w = {&st->lines, st, event, 1, 0, 0, 0, 0};
    nvtxw_visit_options_t options;
    core_event_facts facts;
    nvtxwResultCode_t status =
        core_event_visit(event, NULL, NULL, NVTXW_VISIT_ALLOW_FOREIGN_POINTERS, &facts);
    if (status != NVTXW_RESULT_SUCCESS)
        return status;
    if (stream_prefix(st, "event") || strbuf_append(&st->lines, "[", 1))
        return end_line(st, start, 1, 0);
    if (needs_relocation(st, event)) {
        status = write_relocated(st, event);
    } else {
        visit_options(&options, st->stream, NVTXW_VISIT_ALLOW_FOREIGN_POINTERS);
        status = nvtxw_payload_visit(st->stream->domain->schemas, event->payloads, event->count,
                                     &capture_visitor, &w, &options);
    }
    if (status != NVTXW_RESULT_SUCCESS) {
        st->lines.length = start;
        return status;
    }
    return end_line(st, start,
                    strbuf_append(&st->lines, "]", 1) ||
                        (event->scope_id != NVTX_SCOPE_NONE &&
                         strbuf_printf(&st->lines, ",\"scope\":%" PRIu64, event->scope_id)),
                    0);
}

/* A sample by value when its type can be written by name, else as hex. */
nvtxwResultCode_t capture_counter_write(void* state, int64_t timestamp, const core_counter* counter,
                                        const void* data, size_t size) {
    capture_stream* st = state;
    size_t start = st->lines.length;
    nvtxPayloadData_t payload = {counter->schema_id, size, data};
    writer w = {&st->lines, st, NULL, 1, 0, 1, 0, 0};
    nvtxw_visit_options_t options;
    nvtxwResultCode_t status;
    int by_value = payload_form(st, &payload) == CAPTURE_FORM_NAMES &&
                   (counter->schema_id >= NVTX_PAYLOAD_SCHEMA_ID_STATIC_START ||
                    size == nvtxw_entry_type_size(counter->schema_id));
    if (stream_prefix(st, "counter_sample") ||
        strbuf_printf(&st->lines, "%" PRIu64 ",\"ts\":%" PRId64 ",\"%s\":", counter->id, timestamp,
                      by_value ? "value" : "hex"))
        return end_line(st, start, 1, 0);
    if (!by_value)
        return end_line(st, start, capture_json_hex(&st->lines, data, size), 0);
    visit_options(&options, st->stream, 0);
    status = nvtxw_payload_visit(st->stream->domain->schemas, &payload, 1, &capture_visitor, &w,
                                 &options);
    if (status != NVTXW_RESULT_SUCCESS) {
        st->lines.length = start;
        return status;
    }
    return end_line(st, start, 0, 0);
}

nvtxwResultCode_t capture_counter_no_value_write(void* state, int64_t timestamp,
                                                 const core_counter* counter, uint8_t reason) {
    capture_stream* st = state;
    size_t start = st->lines.length;
    return end_line(st, start,
                    stream_prefix(st, "counter_no_value") ||
                        strbuf_printf(&st->lines, "%" PRIu64 ",\"ts\":%" PRId64 ",\"reason\":%u",
                                      counter->id, timestamp, (unsigned)reason),
                    0);
}

nvtxwResultCode_t capture_sync_points_write(void* state, uint64_t src, uint64_t dst,
                                            const nvtxSyncPoint_t* points, size_t count) {
    capture_stream* st = state;
    size_t start = st->lines.length, i;
    int status = stream_prefix(st, "sync") || strbuf_append(&st->lines, "[", 1);
    for (i = 0; status == 0 && i < count; i++)
        status = strbuf_printf(&st->lines, "%s[%" PRId64 ",%" PRId64 "]", i ? "," : "",
                               points[i].src, points[i].dst);
    return end_line(
        st, start,
        status || strbuf_printf(&st->lines, "],\"src\":%" PRIu64 ",\"dst\":%" PRIu64, src, dst), 0);
}

nvtxwResultCode_t capture_conversion_factor_write(void* state, uint64_t src, uint64_t dst,
                                                  double slope, int64_t ts_src, int64_t ts_dst) {
    capture_stream* st = state;
    size_t start = st->lines.length;
    return end_line(st, start,
                    stream_prefix(st, "conversion") || capture_json_double(&st->lines, slope) ||
                        strbuf_printf(&st->lines,
                                      ",\"src\":%" PRIu64 ",\"dst\":%" PRIu64 ",\"src_ts\":%" PRId64
                                      ",\"dst_ts\":%" PRId64,
                                      src, dst, ts_src, ts_dst),
                    0);
}
