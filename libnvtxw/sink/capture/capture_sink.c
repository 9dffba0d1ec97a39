/*
 * sink/capture/capture_sink.c - Sink=capture: the session as a capture file
 * (docs/capture-format.md), JSON Lines that nvtxw-replay reads back into
 * the same calls. Registrations here; streams and the write path in
 * capture_stream.c; concurrency in capture_internal.h.
 *
 * IDs are written as this session saw them (string handles as their
 * per-domain index, handle & 0xffffffff): a reader maps every dynamic one
 * to what its own session returns, and replaying the same calls into a
 * fresh session returns the same IDs, so capture -> report -> capture
 * reproduces the file byte for byte.
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
#include "sink/capture/capture_internal.h"
#include "sink/shared/sink_registry.h"

nvtxwResultCode_t capture_sink_write(capture_sink* cs, strbuf* buf) {
    nvtxwResultCode_t status = NVTXW_RESULT_SUCCESS;
    int err;
    pthread_mutex_lock(&cs->lock);
    err = output_write_all(cs->fd, buf->data, buf->length);
    pthread_mutex_unlock(&cs->lock);
    if (err != 0)
        status = error_set(NVTXW_RESULT_FAILED, "cannot write capture output \"%s\": %s", cs->path,
                           strerror(err));
    strbuf_clear(buf);
    return status;
}

/* Ends the registration line built in cs->line and writes it. */
static nvtxwResultCode_t emit(capture_sink* cs, int build_status) {
    if (build_status != 0 || strbuf_append(&cs->line, "}\n", 2) != 0) {
        strbuf_clear(&cs->line);
        return error_oom("a capture line");
    }
    return capture_sink_write(cs, &cs->line);
}

/* `{"domain":"D","KIND":` */
static int begin(capture_sink* cs, const core_domain* domain, const char* kind) {
    return strbuf_append(&cs->line, "{\"domain\":", 10) ||
           capture_json_string(&cs->line, domain->name, strlen(domain->name)) ||
           strbuf_printf(&cs->line, ",\"%s\":", kind);
}

static int open_output(const core_config* config, const char* path) {
    int flags = O_WRONLY | O_CREAT | O_CLOEXEC;
    if (strcmp(path, "-") == 0)
        return dup(STDOUT_FILENO);
    flags |= config->overwrite ? O_TRUNC : O_EXCL;
    return open(path, flags, 0644);
}

static nvtxwResultCode_t capture_create(const core_config* config, const char* session_name,
                                        sink** out) {
    capture_sink* cs = nvtxw_calloc(1, sizeof *cs);
    if (cs == NULL)
        return error_oom("the capture sink");
    cs->base.ops = &sink_capture_ops;
    cs->path =
        config->output ? nvtxw_strdup(config->output) : sink_default_output(session_name, ".jsonl");
    cs->fd = cs->path ? open_output(config, cs->path) : -1;
    if (cs->fd < 0) {
        nvtxwResultCode_t status =
            cs->path ? error_set(NVTXW_RESULT_FAILED, "cannot open capture output \"%s\": %s%s",
                                 cs->path, strerror(errno),
                                 errno == EEXIST ? " (set Overwrite=yes to replace it)" : "")
                     : error_oom("the output path");
        nvtxw_free(cs->path);
        nvtxw_free(cs);
        return status;
    }
    pthread_mutex_init(&cs->lock, NULL);
    *out = &cs->base;
    return emit(cs, strbuf_append(&cs->line, "{\"nvtxw_capture\":1}\n{\"session\":", 31) ||
                        capture_json_string(&cs->line, session_name, strlen(session_name)));
}

static nvtxwResultCode_t capture_destroy(sink* s, int faulty) {
    capture_sink* cs = (capture_sink*)s;
    nvtxwResultCode_t status = NVTXW_RESULT_SUCCESS;
    (void)faulty;
    if (close(cs->fd) != 0)
        status = error_set(NVTXW_RESULT_FAILED, "cannot close capture output \"%s\": %s", cs->path,
                           strerror(errno));
    pthread_mutex_destroy(&cs->lock);
    strbuf_free(&cs->line);
    pubmap_free(&cs->forms, NULL);
    nvtxw_free(cs->path);
    nvtxw_free(cs);
    return status;
}

static nvtxwResultCode_t capture_domain_reg(sink* s, const core_domain* domain) {
    capture_sink* cs = (capture_sink*)s;
    return emit(cs, strbuf_append(&cs->line, "{\"domain\":", 10) ||
                        capture_json_string(&cs->line, domain->name, strlen(domain->name)));
}

static nvtxwResultCode_t capture_category(sink* s, const core_domain* domain, uint32_t category,
                                          const char* name) {
    capture_sink* cs = (capture_sink*)s;
    return emit(cs, begin(cs, domain, "category") ||
                        strbuf_printf(&cs->line, "%" PRIu32 ",\"name\":", category) ||
                        capture_json_string(&cs->line, name, strlen(name)));
}

static nvtxwResultCode_t capture_string(sink* s, const core_domain* domain, uint64_t handle,
                                        const char* text) {
    capture_sink* cs = (capture_sink*)s;
    return emit(cs, begin(cs, domain, "string") ||
                        capture_json_string(&cs->line, text, strlen(text)) ||
                        strbuf_printf(&cs->line, ",\"handle\":%" PRIu64, handle & 0xFFFFFFFFu));
}

static nvtxwResultCode_t capture_resource(sink* s, const core_domain* domain,
                                          const core_resource* r) {
    capture_sink* cs = (capture_sink*)s;
    const char* message = r->message ? r->message : "";
    return emit(cs, begin(cs, domain, "resource") ||
                        capture_json_string(&cs->line, message, strlen(message)) ||
                        strbuf_printf(&cs->line, ",\"type\":%" PRIu32 ",\"id\":%" PRIu64,
                                      (uint32_t)r->identifier_type, r->identifier) ||
                        (r->message_handle != 0 && strbuf_printf(&cs->line, ",\"handle\":%" PRIu64,
                                                                 r->message_handle & 0xFFFFFFFFu)));
}

static nvtxwResultCode_t capture_scope(sink* s, const core_domain* domain, uint64_t id,
                                       uint64_t parent, const char* path) {
    capture_sink* cs = (capture_sink*)s;
    return emit(
        cs, begin(cs, domain, "scope") || capture_json_string(&cs->line, path, strlen(path)) ||
                strbuf_printf(&cs->line, ",\"parent\":%" PRIu64 ",\"id\":%" PRIu64, parent, id));
}

static uint64_t form_key(const core_domain* domain, uint64_t id) {
    return ((uint64_t)domain->index << 48) + id;
}

static nvtxwResultCode_t capture_schema(sink* s, const core_domain* domain,
                                        const nvtxw_schema_t* schema) {
    capture_sink* cs = (capture_sink*)s;
    uint64_t id = nvtxw_schema_id(schema);
    intptr_t form = capture_schema_form(domain->schemas, id);
    if (pubmap_put(&cs->forms, form_key(domain, id), (void*)form) != 0)
        return error_oom("the capture sink's schema table");
    return emit(cs, begin(cs, domain, "schema") ||
                        capture_json_schema(&cs->line, domain->schemas, schema) ||
                        (id >= NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START &&
                         strbuf_printf(&cs->line, ",\"id\":%" PRIu64, id)));
}

static nvtxwResultCode_t capture_enum(sink* s, const core_domain* domain,
                                      const nvtxw_enum_t* enumeration) {
    capture_sink* cs = (capture_sink*)s;
    uint64_t id = nvtxw_enum_id(enumeration);
    return emit(cs, begin(cs, domain, "enum") || capture_json_enum(&cs->line, enumeration) ||
                        (id >= NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START &&
                         strbuf_printf(&cs->line, ",\"id\":%" PRIu64, id)));
}

static nvtxwResultCode_t capture_counter(sink* s, const core_domain* domain,
                                         const core_counter* c) {
    capture_sink* cs = (capture_sink*)s;
    const nvtxSemanticsHeader_t* h = c->semantics;
    while (h != NULL && h->semanticId != NVTX_SEMANTIC_ID_COUNTERS_V1)
        h = h->next;
    return emit(
        cs,
        begin(cs, domain, "counter") || capture_json_string(&cs->line, c->name, strlen(c->name)) ||
            strbuf_printf(&cs->line, ",\"id\":%" PRIu64 ",\"type\":%" PRIu64 ",\"scope\":%" PRIu64,
                          c->id, c->schema_id, c->scope_id) ||
            (c->description != NULL &&
             (strbuf_append(&cs->line, ",\"description\":", 15) ||
              capture_json_string(&cs->line, c->description, strlen(c->description)))) ||
            (h != NULL && (strbuf_append(&cs->line, ",\"semantics\":", 13) ||
                           capture_json_counter_semantics(&cs->line, h))));
}

static nvtxwResultCode_t capture_time_domain(sink* s, const core_domain* domain,
                                             const nvtxTimeDomainAttr_t* a) {
    capture_sink* cs = (capture_sink*)s;
    return emit(cs, begin(cs, domain, "time_domain") ||
                        strbuf_printf(&cs->line,
                                      "%" PRIu64 ",\"type\":%" PRIu64 ",\"scope\":%" PRIu64
                                      ",\"resolution\":%" PRId64 ",\"start\":%" PRIu64
                                      ",\"flags\":%" PRIu64,
                                      a->timeDomainId, a->timestampTypeId, a->scopeId,
                                      a->timerResolution, a->timerStart, a->timerFlags));
}

const sink_ops sink_capture_ops = {
    .name = "capture",
    .create = capture_create,
    .destroy = capture_destroy,
    .domain_register = capture_domain_reg,
    .category_register = capture_category,
    .string_register = capture_string,
    .resource_register = capture_resource,
    .scope_register = capture_scope,
    .schema_register = capture_schema,
    .enum_register = capture_enum,
    .counter_register = capture_counter,
    .time_domain_register = capture_time_domain,
    .stream_open = capture_stream_open,
    .stream_close = capture_stream_close,
    .event_write = capture_event_write,
    .counter_write = capture_counter_write,
    .counter_no_value_write = capture_counter_no_value_write,
    .sync_points_write = capture_sync_points_write,
    .conversion_factor_write = capture_conversion_factor_write,
};
