/*
 * sink/text/text_sink.c - Sink=text: one line per call, stable, human-readable.
 *
 * Output grammar (one record per line; strings in double quotes with C
 * escapes; payload lines indented by two spaces and produced by
 * nvtxw_payload_format_text):
 *   session "NAME"
 *   domain "D"
 *   category domain="D" id=N name="..."
 *   string domain="D" handle=0xH text="..."
 *   resource domain="D" type=0xT id=0xI message="..."
 *   scope domain="D" id=N parent=P path="..."
 *   schema domain="D" id=N name="..." type=T flags=F size=S entries=E
 *   enum domain="D" id=N name="..." size=S values=V
 *   counter domain="D" id=N name="..." schema=S scope=C sample_size=B
 *   time_domain domain="D" id=N type=T scope=C resolution=R start=S flags=F
 *   stream_open "S" domain="D" scope=C time_domain=T ordering=I/T/K/A
 *   event stream="S" [ts=N] [scope=C]
 *     [I] schema: field=value, ...
 *   counter_sample stream="S" ts=N counter=ID bytes=HEX
 *   counter_no_value stream="S" ts=N counter=ID reason=R
 *   sync stream="S" src=A dst=B points=(s,d) ...
 *   conversion stream="S" src=A dst=B slope=X anchor=(s,d)
 *   flush stream="S"
 *   stream_close "S"
 *   session_end
 *
 * Concurrency: each stream builds its record in its own buffer and appends it
 * with one write(2) on an O_APPEND descriptor, so lines of different streams
 * never interleave and no lock is taken.
 */
#define _POSIX_C_SOURCE 200809L
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "common/output_file.h"
#include "common/strbuf.h"
#include "nvtxw/format.h"
#include "sink/shared/sink_registry.h"
#include "sink/text/text_internal.h"

/* Writes the whole buffer, retrying short writes. */
nvtxwResultCode_t text_write_all(text_sink* ts, const strbuf* buf) {
    int err = output_write_all(ts->fd, buf->data, buf->length);
    if (err != 0)
        return error_set(NVTXW_RESULT_FAILED, "cannot write text output \"%s\": %s", ts->path,
                         strerror(err));
    return NVTXW_RESULT_SUCCESS;
}

/* Emits the registration line built in ts->line. */
static nvtxwResultCode_t text_flush_line(text_sink* ts, int build_status) {
    nvtxwResultCode_t status;
    if (build_status != 0 || strbuf_append(&ts->line, "\n", 1) != 0) {
        strbuf_clear(&ts->line);
        return error_oom("a text output line");
    }
    status = text_write_all(ts, &ts->line);
    strbuf_clear(&ts->line);
    return status;
}

static int text_open_output(const core_config* config, const char* path) {
    int flags = O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC;
    if (strcmp(path, "-") == 0)
        return dup(STDOUT_FILENO);
    flags |= config->overwrite ? O_TRUNC : O_EXCL;
    return open(path, flags, 0644);
}

static nvtxwResultCode_t text_create(const core_config* config, const char* session_name,
                                     sink** out) {
    text_sink* ts = nvtxw_calloc(1, sizeof *ts);
    if (ts == NULL)
        return error_oom("the text sink");
    ts->base.ops = &sink_text_ops;
    ts->path =
        config->output ? nvtxw_strdup(config->output) : sink_default_output(session_name, ".txt");
    ts->fd = ts->path ? text_open_output(config, ts->path) : -1;
    if (ts->fd < 0) {
        nvtxwResultCode_t status =
            ts->path ? error_set(NVTXW_RESULT_FAILED, "cannot open text output \"%s\": %s%s",
                                 ts->path, strerror(errno),
                                 errno == EEXIST ? " (set Overwrite=yes to replace it)" : "")
                     : error_oom("the output path");
        nvtxw_free(ts->path);
        nvtxw_free(ts);
        return status;
    }
    *out = &ts->base;
    return text_flush_line(ts, strbuf_append(&ts->line, "session ", 8) ||
                                   strbuf_append_quoted(&ts->line, session_name));
}

static nvtxwResultCode_t text_destroy(sink* s, int faulty) {
    text_sink* ts = (text_sink*)s;
    nvtxwResultCode_t status = NVTXW_RESULT_SUCCESS;
    if (!faulty)
        status = text_flush_line(ts, strbuf_append(&ts->line, "session_end", 11));
    if (close(ts->fd) != 0 && status == NVTXW_RESULT_SUCCESS)
        status = error_set(NVTXW_RESULT_FAILED, "cannot close text output \"%s\": %s", ts->path,
                           strerror(errno));
    strbuf_free(&ts->line);
    nvtxw_free(ts->path);
    nvtxw_free(ts);
    return status;
}

/* `KIND domain="D" ` prefix of a registration line. */
static int text_domain_prefix(text_sink* ts, const char* kind, const core_domain* domain) {
    return strbuf_printf(&ts->line, "%s domain=", kind) ||
           strbuf_append_quoted(&ts->line, domain->name) || strbuf_append(&ts->line, " ", 1);
}

static nvtxwResultCode_t text_domain(sink* s, const core_domain* domain) {
    text_sink* ts = (text_sink*)s;
    return text_flush_line(ts, strbuf_append(&ts->line, "domain ", 7) ||
                                   strbuf_append_quoted(&ts->line, domain->name));
}

static nvtxwResultCode_t text_category(sink* s, const core_domain* domain, uint32_t category,
                                       const char* name) {
    text_sink* ts = (text_sink*)s;
    return text_flush_line(ts, text_domain_prefix(ts, "category", domain) ||
                                   strbuf_printf(&ts->line, "id=%" PRIu32 " name=", category) ||
                                   strbuf_append_quoted(&ts->line, name));
}

static nvtxwResultCode_t text_string(sink* s, const core_domain* domain, uint64_t handle,
                                     const char* text) {
    text_sink* ts = (text_sink*)s;
    return text_flush_line(ts, text_domain_prefix(ts, "string", domain) ||
                                   strbuf_printf(&ts->line, "handle=0x%" PRIx64 " text=", handle) ||
                                   strbuf_append_quoted(&ts->line, text));
}

static nvtxwResultCode_t text_resource(sink* s, const core_domain* domain,
                                       const core_resource* resource) {
    text_sink* ts = (text_sink*)s;
    return text_flush_line(
        ts, text_domain_prefix(ts, "resource", domain) ||
                strbuf_printf(&ts->line, "type=0x%" PRIx32 " id=0x%" PRIx64 " message=",
                              (uint32_t)resource->identifier_type, resource->identifier) ||
                strbuf_append_quoted(&ts->line, resource->message ? resource->message : ""));
}

static nvtxwResultCode_t text_scope(sink* s, const core_domain* domain, uint64_t id,
                                    uint64_t parent, const char* path) {
    text_sink* ts = (text_sink*)s;
    return text_flush_line(
        ts, text_domain_prefix(ts, "scope", domain) ||
                strbuf_printf(&ts->line, "id=%" PRIu64 " parent=%" PRIu64 " path=", id, parent) ||
                strbuf_append_quoted(&ts->line, path));
}

static nvtxwResultCode_t text_scope_release(sink* s, const core_domain* domain, uint64_t id) {
    text_sink* ts = (text_sink*)s;
    return text_flush_line(ts, text_domain_prefix(ts, "scope_release", domain) ||
                                   strbuf_printf(&ts->line, "id=%" PRIu64, id));
}

static nvtxwResultCode_t text_schema(sink* s, const core_domain* domain,
                                     const nvtxw_schema_t* schema) {
    text_sink* ts = (text_sink*)s;
    nvtxPayloadSchemaAttr_t attr;
    nvtxw_schema_get_attr(schema, &attr);
    return text_flush_line(
        ts, text_domain_prefix(ts, "schema", domain) ||
                strbuf_printf(&ts->line, "id=%" PRIu64 " name=", nvtxw_schema_id(schema)) ||
                strbuf_append_quoted(&ts->line, nvtxw_schema_name(schema)) ||
                strbuf_printf(&ts->line, " type=%" PRIu64 " flags=%" PRIu64 " size=%zu entries=%zu",
                              attr.type, attr.flags, nvtxw_schema_static_size(schema),
                              attr.numEntries));
}

static nvtxwResultCode_t text_enum(sink* s, const core_domain* domain,
                                   const nvtxw_enum_t* enumeration) {
    text_sink* ts = (text_sink*)s;
    nvtxPayloadEnumAttr_t attr;
    nvtxw_enum_get_attr(enumeration, &attr);
    return text_flush_line(
        ts, text_domain_prefix(ts, "enum", domain) ||
                strbuf_printf(&ts->line, "id=%" PRIu64 " name=", nvtxw_enum_id(enumeration)) ||
                strbuf_append_quoted(&ts->line, attr.name ? attr.name : "") ||
                strbuf_printf(&ts->line, " size=%zu values=%zu", attr.sizeOfEnum, attr.numEntries));
}

static nvtxwResultCode_t text_counter(sink* s, const core_domain* domain,
                                      const core_counter* counter) {
    text_sink* ts = (text_sink*)s;
    return text_flush_line(
        ts, text_domain_prefix(ts, "counter", domain) ||
                strbuf_printf(&ts->line, "id=%" PRIu64 " name=", counter->id) ||
                strbuf_append_quoted(&ts->line, counter->name) ||
                strbuf_printf(&ts->line, " schema=%" PRIu64 " scope=%" PRIu64 " sample_size=%zu",
                              counter->schema_id, counter->scope_id, counter->sample_size));
}

static nvtxwResultCode_t text_time_domain(sink* s, const core_domain* domain,
                                          const nvtxTimeDomainAttr_t* attr) {
    text_sink* ts = (text_sink*)s;
    return text_flush_line(
        ts, text_domain_prefix(ts, "time_domain", domain) ||
                strbuf_printf(&ts->line,
                              "id=%" PRIu64 " type=%" PRIu64 " scope=%" PRIu64
                              " resolution=%" PRId64 " start=%" PRIu64 " flags=%" PRIu64,
                              attr->timeDomainId, attr->timestampTypeId, attr->scopeId,
                              attr->timerResolution, attr->timerStart, attr->timerFlags));
}

const sink_ops sink_text_ops = {
    .name = "text",
    .create = text_create,
    .destroy = text_destroy,
    .domain_register = text_domain,
    .category_register = text_category,
    .string_register = text_string,
    .resource_register = text_resource,
    .scope_register = text_scope,
    .scope_release = text_scope_release,
    .schema_register = text_schema,
    .enum_register = text_enum,
    .counter_register = text_counter,
    .time_domain_register = text_time_domain,
    .stream_open = text_stream_open,
    .stream_close = text_stream_close,
    .event_write = text_event_write,
    .counter_write = text_counter_write,
    .counter_no_value_write = text_counter_no_value_write,
    .sync_points_write = text_sync_points_write,
    .conversion_factor_write = text_conversion_factor_write,
    .stream_flush = text_stream_flush,
};
