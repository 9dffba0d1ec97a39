/*
 * tools/replay/capture/capture_lines.c - one capture line -> one NVTXW call
 * (docs/capture-format.md, "Lines").
 *
 * A line is a mapping. Its kind is its first key other than "domain" and
 * "stream" (which may only come before it); a line of "domain" alone
 * registers that domain. Each kind has a value type and a fixed set of
 * attribute keys; scalars are converted as they are read, lists and
 * mappings (event payloads, inline schemas, sync points, counter values)
 * are consumed as they stream by, so the line's domain or stream must
 * already be known. The call is made at the line's MAPPING_END.
 */
#define _POSIX_C_SOURCE 200809L
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "capture_line.h"
#include "capture_reader.h"
#include "nvtxw/error.h"
#include "tool_alloc.h"

enum kind {
    K_HEADER,
    K_SESSION,
    K_CATEGORY,
    K_STRING,
    K_RESOURCE,
    K_SCOPE,
    K_SCHEMA,
    K_ENUM,
    K_SCHEMAS,
    K_COUNTER,
    K_TIME_DOMAIN,
    K_STREAM_OPEN,
    K_STREAM_CLOSE,
    K_EVENT,
    K_SAMPLE,
    K_NO_VALUE,
    K_SYNC,
    K_CONVERSION,
    K_DOMAIN
};

typedef struct attr_spec {
    const char* key;
    enum value_type type;
} attr_spec;

typedef struct kind_spec {
    const char* key;
    enum value_type type;
    int on_stream; /* needs "stream" before the kind key */
    attr_spec attrs[MAX_ATTRS];
} kind_spec;

static const kind_spec kinds[] = {
    [K_HEADER] = {"nvtxw_capture", V_U64, 0, {{0}}},
    [K_SESSION] = {"session", V_TEXT, 0, {{"config", V_TEXT}}},
    [K_CATEGORY] = {"category", V_U64, 0, {{"name", V_TEXT}}},
    [K_STRING] = {"string", V_TEXT, 0, {{"handle", V_U64}}},
    [K_RESOURCE] = {"resource", V_TEXT, 0, {{"type", V_U64}, {"id", V_U64}, {"handle", V_U64}}},
    [K_SCOPE] = {"scope", V_TEXT, 0, {{"parent", V_U64}, {"id", V_U64}}},
    [K_SCHEMA] = {"schema", V_MAP, 0, {{"id", V_U64}}},
    [K_ENUM] = {"enum", V_MAP, 0, {{"id", V_U64}}},
    [K_SCHEMAS] = {"schemas", V_TEXT, 0, {{0}}},
    [K_COUNTER] = {"counter",
                   V_TEXT,
                   0,
                   {{"id", V_U64},
                    {"type", V_REF},
                    {"scope", V_U64},
                    {"description", V_TEXT},
                    {"semantics", V_MAP}}},
    [K_TIME_DOMAIN] = {"time_domain",
                       V_U64,
                       0,
                       {{"type", V_U64},
                        {"scope", V_U64},
                        {"resolution", V_I64},
                        {"start", V_U64},
                        {"flags", V_U64}}},
    [K_STREAM_OPEN] = {"stream_open",
                       V_TEXT,
                       0,
                       {{"scope", V_U64},
                        {"time_domain", V_U64},
                        {"interleaving", V_I64},
                        {"ordering", V_I64},
                        {"skid", V_I64},
                        {"skid_amount", V_I64}}},
    [K_STREAM_CLOSE] = {"stream_close", V_TEXT, 0, {{0}}},
    [K_EVENT] = {"event", V_PAYLOADS, 1, {{"scope", V_U64}}},
    [K_SAMPLE] = {"counter_sample", V_REF, 1, {{"ts", V_I64}, {"value", V_SAMPLE}, {"hex", V_HEX}}},
    [K_NO_VALUE] = {"counter_no_value", V_REF, 1, {{"ts", V_I64}, {"reason", V_U64}}},
    [K_SYNC] = {"sync", V_POINTS, 1, {{"src", V_U64}, {"dst", V_U64}}},
    [K_CONVERSION] = {"conversion",
                      V_F64,
                      1,
                      {{"src", V_U64}, {"dst", V_U64}, {"src_ts", V_I64}, {"dst_ts", V_I64}}},
};
#define KIND_COUNT (sizeof kinds / sizeof kinds[0])

static void line_free(line* l) {
    size_t i;
    nvtxw_free(l->value.text);
    for (i = 0; i < MAX_ATTRS; i++)
        nvtxw_free(l->attrs[i].text);
    capture_payloads_clear(&l->payloads);
    nvtxw_free(l->payloads.items);
    nvtxw_free(l->payloads.buffers);
    nvtxw_free(l->payloads.relocs);
    nvtxw_free(l->data);
    nvtxw_free(l->points);
    nvtxw_free(l->json);
    nvtxw_free(l->semantics_json);
}

/* ---- domains and the session ---- */

static void domain_free(capture_domain* d) {
    size_t i;
    nvtxw_free(d->name);
    nvtxw_schema_registry_destroy(d->mirror);
    capture_names_free(&d->schema_names, NULL);
    capture_idmap_free(&d->schema_ids);
    capture_idmap_free(&d->mirror_to_target);
    capture_idmap_free(&d->strings);
    capture_idmap_free(&d->scopes);
    capture_idmap_free(&d->time_domains);
    capture_idmap_free(&d->counter_ids);
    capture_names_free(&d->counter_names, NULL);
    capture_names_free(&d->string_texts, NULL);
    for (i = 0; i < d->counter_count; i++)
        nvtxw_free(d->counters[i]);
    nvtxw_free(d->counters);
    nvtxw_free(d);
}

void capture_session_free(capture_reader* r) {
    size_t i;
    for (i = 0; i < r->domain_count; i++)
        domain_free(r->domains[i]);
    nvtxw_free(r->domains);
    capture_names_free(&r->streams, free);
    nvtxw_free(r->session_name);
    nvtxw_free(r->session_config);
}

capture_domain* capture_domain_find(capture_reader* r, const char* name) {
    size_t i;
    for (i = 0; i < r->domain_count; i++) {
        if (strcmp(r->domains[i]->name, name) == 0)
            return r->domains[i];
    }
    return NULL;
}

static int session_begin(capture_reader* r, yaml_mark_t mark) {
    nvtxwSessionAttributes_t attr = {sizeof attr, NULL, NULL};
    nvtxwResultCode_t status;
    char* config = NULL;
    const char* tool_config = r->ctx->config ? r->ctx->config : "";
    if (r->session != NULL)
        return 0;
    /* The first value of a key wins: the tool's settings come first. */
    if (r->session_config != NULL) {
        config = nvtxw_malloc(strlen(tool_config) + strlen(r->session_config) + 2);
        if (config == NULL)
            return capture_error(r, mark, "out of memory");
        sprintf(config, "%s|%s", tool_config, r->session_config);
    }
    attr.name = r->session_name ? r->session_name : "capture";
    attr.configString = config ? config : tool_config;
    status = r->ctx->iface->SessionBegin(&attr, &r->session);
    nvtxw_free(config);
    if (status != NVTXW_RESULT_SUCCESS)
        return capture_call_failed(r, mark, "SessionBegin", status);
    return 0;
}

static capture_domain* domain_register(capture_reader* r, const char* name, yaml_mark_t mark) {
    nvtxwDomainAttributes_t attr = {sizeof attr, name};
    capture_domain* d;
    nvtxwResultCode_t status;
    if (session_begin(r, mark) != 0)
        return NULL;
    if (r->domain_count == r->domain_capacity) {
        size_t want = r->domain_capacity ? r->domain_capacity * 2 : 8;
        capture_domain** grown = nvtxw_realloc(r->domains, want * sizeof *grown);
        if (grown == NULL)
            return capture_error(r, mark, "out of memory"), NULL;
        r->domains = grown;
        r->domain_capacity = want;
    }
    d = nvtxw_calloc(1, sizeof *d);
    if (d == NULL || (d->name = nvtxw_strdup(name)) == NULL ||
        (d->mirror = nvtxw_schema_registry_create()) == NULL) {
        if (d != NULL)
            domain_free(d);
        return capture_error(r, mark, "out of memory"), NULL;
    }
    status = r->ctx->iface->DomainRegister(r->session, &attr, &d->handle);
    if (status != NVTXW_RESULT_SUCCESS) {
        domain_free(d);
        return capture_call_failed(r, mark, "DomainRegister", status), NULL;
    }
    r->domains[r->domain_count++] = d;
    return d;
}

/* The line's domain: named ones must be registered; the default domain ""
 * is registered on first use. */
static capture_domain* line_domain(capture_reader* r, line* l) {
    if (l->domain == NULL && (l->domain = capture_domain_find(r, "")) == NULL)
        l->domain = domain_register(r, "", l->start);
    return l->domain;
}

/* ---- streams and writes ---- */

static int do_stream_open(capture_reader* r, line* l) {
    nvtxwStreamAttributes_t attr;
    capture_stream* s;
    nvtxwResultCode_t status;
    memset(&attr, 0, sizeof attr);
    attr.structSize = sizeof attr;
    attr.name = l->value.text;
    attr.domain = l->domain->handle;
    if (capture_names_get(&r->streams, l->value.text) != NULL)
        return capture_error(r, l->value.mark, "stream \"%s\" is already open", l->value.text);
    if ((ATTR(l, 0)->present &&
         capture_map_id(r, &l->domain->scopes, ATTR(l, 0), "scope", &attr.scopeId)) ||
        (ATTR(l, 1)->present && capture_map_id(r, &l->domain->time_domains, ATTR(l, 1),
                                               "time domain", &attr.timeDomainId)))
        return -1;
    attr.orderInterleaving = (int16_t)ATTR(l, 2)->i;
    attr.orderingType = (int16_t)ATTR(l, 3)->i;
    attr.orderingSkid = (int32_t)ATTR(l, 4)->i;
    attr.orderingSkidAmount = ATTR(l, 5)->i;
    if ((s = nvtxw_calloc(1, sizeof *s)) == NULL)
        return capture_error(r, l->start, "out of memory");
    s->domain = l->domain;
    status = r->ctx->iface->StreamOpen(r->session, &attr, &s->handle);
    if (status != NVTXW_RESULT_SUCCESS) {
        nvtxw_free(s);
        return capture_call_failed(r, l->start, "StreamOpen", status);
    }
    if (capture_names_put(&r->streams, l->value.text, s) != 0) {
        nvtxw_free(s);
        return capture_error(r, l->start, "out of memory");
    }
    return 0;
}

static int do_stream_close(capture_reader* r, line* l) {
    capture_stream* s = capture_names_get(&r->streams, l->value.text);
    nvtxwResultCode_t status;
    if (s == NULL)
        return capture_error(r, l->value.mark, "unmatched stream_close: stream \"%s\" is not open",
                             l->value.text);
    status = r->ctx->iface->StreamClose(s->handle);
    nvtxw_free(s);
    capture_names_put(&r->streams, l->value.text, NULL); /* replaces: cannot fail */
    return status ? capture_call_failed(r, l->start, "StreamClose", status) : 0;
}

static int do_event(capture_reader* r, line* l) {
    nvtxwResultCode_t status;
    if (ATTR(l, 0)->present) {
        nvtxEventBatch_t batch;
        if (l->payloads.count > 2)
            return capture_error(r, ATTR(l, 0)->mark,
                                 "an event with a scope has one payload, or two with flexData");
        memset(&batch, 0, sizeof batch);
        batch.eventSchemaId = l->payloads.items[0].schemaId;
        batch.size = l->payloads.items[0].size;
        batch.events = l->payloads.items[0].payload;
        if (l->payloads.count == 2) {
            batch.flexData = l->payloads.items[1].payload;
            batch.flexDataSize = l->payloads.items[1].size;
        }
        if (capture_map_id(r, &l->stream->domain->scopes, ATTR(l, 0), "scope", &batch.scope) != 0)
            return -1;
        status = r->ctx->iface->EventBatchWrite(l->stream->handle, &batch);
        return status ? capture_call_failed(r, l->start, "EventBatchWrite", status) : 0;
    }
    status = r->ctx->iface->EventWrite(l->stream->handle, l->payloads.items, l->payloads.count);
    return status ? capture_call_failed(r, l->start, "EventWrite", status) : 0;
}

/* The counter a line names: a capture counter ID or a counter name. */
static capture_counter* find_counter(capture_reader* r, capture_domain* d, const line_value* v) {
    uint64_t found;
    capture_counter* c = NULL;
    if (v->text != NULL)
        c = capture_names_get(&d->counter_names, v->text);
    else if (capture_idmap_get(&d->counter_ids, v->u, &found) == 0)
        c = (capture_counter*)(uintptr_t)found;
    if (c == NULL && v->text != NULL)
        capture_error(r, v->mark, "unknown counter \"%s\" in domain \"%s\"", v->text, d->name);
    else if (c == NULL)
        capture_error(r, v->mark, "unknown counter %" PRIu64 " in domain \"%s\"", v->u, d->name);
    return c;
}

static int do_sample(capture_reader* r, line* l) {
    capture_counter* c = find_counter(r, l->stream->domain, &l->value);
    nvtxwResultCode_t status;
    if (c == NULL)
        return -1;
    if (l->data == NULL)
        return capture_error(r, l->start, "counter_sample needs \"value\" or \"hex\"");
    status = r->ctx->iface->CounterWrite(l->stream->handle, ATTR(l, 0)->i, c->target_id, l->data,
                                         l->data_size);
    return status ? capture_call_failed(r, l->start, "CounterWrite", status) : 0;
}

static int do_no_value(capture_reader* r, line* l) {
    capture_counter* c = find_counter(r, l->stream->domain, &l->value);
    nvtxwResultCode_t status;
    if (c == NULL)
        return -1;
    if (ATTR(l, 1)->u > UINT8_MAX)
        return capture_error(r, ATTR(l, 1)->mark, "reason %" PRIu64 " out of range (0-255)",
                             ATTR(l, 1)->u);
    status = r->ctx->iface->CounterNoValueWrite(l->stream->handle, ATTR(l, 0)->i, c->target_id,
                                                (uint8_t)ATTR(l, 1)->u);
    return status ? capture_call_failed(r, l->start, "CounterNoValueWrite", status) : 0;
}

static int clock_ids(capture_reader* r, line* l, uint64_t* src, uint64_t* dst) {
    const capture_idmap* map = &l->stream->domain->time_domains;
    return capture_map_id(r, map, ATTR(l, 0), "time domain", src) ||
           capture_map_id(r, map, ATTR(l, 1), "time domain", dst);
}

static int do_sync(capture_reader* r, line* l) {
    uint64_t src, dst;
    nvtxwResultCode_t status;
    if (clock_ids(r, l, &src, &dst) != 0)
        return -1;
    status = r->ctx->iface->TimeSyncPointTableWrite(l->stream->handle, src, dst, l->points,
                                                    l->point_count);
    return status ? capture_call_failed(r, l->start, "TimeSyncPointTableWrite", status) : 0;
}

static int do_conversion(capture_reader* r, line* l) {
    uint64_t src, dst;
    nvtxwResultCode_t status;
    if (clock_ids(r, l, &src, &dst) != 0)
        return -1;
    status = r->ctx->iface->TimestampConversionFactorWrite(l->stream->handle, src, dst, l->value.d,
                                                           ATTR(l, 2)->i, ATTR(l, 3)->i);
    return status ? capture_call_failed(r, l->start, "TimestampConversionFactorWrite", status) : 0;
}

/* ---- the line parser ---- */

/* Reads a scalar of `type` from the current event into v. */
static int read_scalar(capture_reader* r, enum value_type type, const char* what, line_value* v) {
    const char* text;
    v->present = 1;
    v->mark = r->event.start_mark;
    switch (type) {
    case V_U64:
        return capture_u64(r, what, &v->u);
    case V_I64:
        return capture_i64(r, what, &v->i);
    case V_F64:
        return capture_double(r, what, &v->d);
    case V_REF: /* a number, or a name */
        if (capture_is_plain(r) && r->event.data.scalar.value[0] >= '0' &&
            r->event.data.scalar.value[0] <= '9')
            return capture_u64(r, what, &v->u);
        /* fall through */
    case V_TEXT:
        if (capture_text(r, what, &text) != 0)
            return -1;
        if ((v->text = nvtxw_strdup(text)) == NULL)
            return CAPTURE_FAIL(r, "out of memory");
        return 0;
    default:
        return CAPTURE_FAIL(r, "internal: %s is not a scalar", what);
    }
}

static int read_payloads(capture_reader* r, line* l) {
    if (r->event.type != YAML_SEQUENCE_START_EVENT)
        return CAPTURE_FAIL(r, "wrong type for event: expected a list of payloads");
    if (capture_next(r) != 0)
        return -1;
    while (r->event.type != YAML_SEQUENCE_END_EVENT) {
        if (r->event.type != YAML_MAPPING_START_EVENT)
            return CAPTURE_FAIL(r, "wrong type for a payload: expected a mapping");
        if (capture_payload(r, l->stream->domain, &l->payloads) != 0 || capture_next(r) != 0)
            return -1;
    }
    if (l->payloads.count == 0)
        return CAPTURE_FAIL(r, "an event needs at least one payload");
    return capture_payloads_relocate(r, &l->payloads);
}

/* sync: [[src, dst], ...] */
static int read_points(capture_reader* r, line* l) {
    size_t capacity = 0;
    if (r->event.type != YAML_SEQUENCE_START_EVENT)
        return CAPTURE_FAIL(r, "wrong type for sync: expected a list of [src, dst] pairs");
    if (capture_next(r) != 0)
        return -1;
    while (r->event.type != YAML_SEQUENCE_END_EVENT) {
        nvtxSyncPoint_t p;
        if (r->event.type != YAML_SEQUENCE_START_EVENT)
            return CAPTURE_FAIL(r, "wrong type for a sync point: expected [src, dst]");
        if (capture_next(r) || capture_i64(r, "sync src", &p.src) || capture_next(r) ||
            capture_i64(r, "sync dst", &p.dst) || capture_next(r))
            return -1;
        if (r->event.type != YAML_SEQUENCE_END_EVENT)
            return CAPTURE_FAIL(r, "a sync point has two timestamps");
        if (l->point_count == capacity) {
            nvtxSyncPoint_t* grown;
            capacity = capacity ? capacity * 2 : 16;
            if (capacity * sizeof p > CAPTURE_MAX_PAYLOAD ||
                (grown = nvtxw_realloc(l->points, capacity * sizeof p)) == NULL)
                return CAPTURE_FAIL(r, "too many sync points in one line");
            l->points = grown;
        }
        l->points[l->point_count++] = p;
        if (capture_next(r) != 0)
            return -1;
    }
    return 0;
}

static int read_value(capture_reader* r, line* l, enum value_type type, const char* what,
                      line_value* v) {
    v->present = 1;
    v->mark = r->event.start_mark;
    switch (type) {
    case V_MAP:
        if (r->event.type != YAML_MAPPING_START_EVENT)
            return CAPTURE_FAIL(r, "wrong type for %s: expected a mapping", what);
        return capture_node_json(r, strcmp(what, "semantics") ? &l->json : &l->semantics_json,
                                 &l->json_length, &l->json_capacity);
    case V_PAYLOADS:
        return read_payloads(r, l);
    case V_POINTS:
        return read_points(r, l);
    case V_SAMPLE: {
        capture_counter* c = find_counter(r, l->stream->domain, &l->value);
        if (c == NULL)
            return -1;
        if (l->data != NULL)
            return CAPTURE_FAIL(r, "a sample has \"value\" or \"hex\", not both");
        l->data_size = c->sample_size;
        return capture_sample(r, l->stream->domain, c->type, c->sample_size, &l->data);
    }
    case V_HEX:
        if (l->data != NULL)
            return CAPTURE_FAIL(r, "a sample has \"value\" or \"hex\", not both");
        return capture_hex(r, what, &l->data, &l->data_size);
    default:
        return read_scalar(r, type, what, v);
    }
}

static int find_kind(const char* key) {
    size_t i;
    for (i = 0; i < KIND_COUNT; i++) {
        if (kinds[i].key != NULL && strcmp(kinds[i].key, key) == 0)
            return (int)i;
    }
    return -1;
}

/* "domain" or "stream" before the kind key. */
static int read_context(capture_reader* r, line* l, const char* key) {
    const char* name;
    if (l->kind >= 0)
        return CAPTURE_FAIL(r, "\"%s\" must come before the line's kind key \"%s\"", key,
                            kinds[l->kind].key);
    /* An unregistered domain is kept as l->value.text (present) until the
     * kind key says whether the line registers it. */
    if (l->domain != NULL || l->stream_name != NULL || l->value.present)
        return CAPTURE_FAIL(r, "a line has either \"domain\" or \"stream\", once");
    if (capture_next(r) != 0 || capture_text(r, key, &name) != 0)
        return -1;
    if (key[0] == 's') {
        l->stream = capture_names_get(&r->streams, name);
        if (l->stream == NULL)
            return CAPTURE_FAIL(r, "unknown stream \"%s\" (not open)", name);
        l->stream_name = "";
        return 0;
    }
    if (session_begin(r, r->event.start_mark) != 0)
        return -1;
    l->domain = capture_domain_find(r, name);
    if (l->domain == NULL && (l->value.text = nvtxw_strdup(name)) == NULL)
        return CAPTURE_FAIL(r, "out of memory");
    l->value.mark = r->event.start_mark;
    l->value.present = l->domain == NULL; /* a registration unless a kind follows */
    return 0;
}

static int read_key(capture_reader* r, line* l) {
    const char* key;
    size_t i;
    if (capture_text(r, "a key", &key) != 0)
        return -1;
    if (!strcmp(key, "domain") || !strcmp(key, "stream"))
        return read_context(r, l, !strcmp(key, "domain") ? "domain" : "stream");
    if (l->kind < 0) {
        int kind = find_kind(key);
        if (kind < 0)
            return CAPTURE_FAIL(r, "unknown line kind \"%.60s\"", key);
        if (l->domain == NULL && l->value.present && l->value.text[0] != '\0')
            return CAPTURE_FAIL(r, "unknown domain \"%s\" (not registered)", l->value.text);
        nvtxw_free(l->value.text); /* "" names the default domain, registered on use */
        memset(&l->value, 0, sizeof l->value);
        if (kinds[kind].on_stream != (l->stream != NULL))
            return CAPTURE_FAIL(r,
                                kinds[kind].on_stream ? "\"%s\" needs \"stream\" before it"
                                                      : "\"%s\" takes no \"stream\"",
                                key);
        l->kind = kind;
        if (!kinds[kind].on_stream && kind != K_HEADER && kind != K_SESSION &&
            kind != K_STREAM_CLOSE && line_domain(r, l) == NULL)
            return -1;
        /* `key` dies with the next event: name the value by the table's key. */
        return capture_next(r) != 0
                   ? -1
                   : read_value(r, l, kinds[kind].type, kinds[kind].key, &l->value);
    }
    for (i = 0; i < MAX_ATTRS && kinds[l->kind].attrs[i].key != NULL; i++) {
        if (strcmp(kinds[l->kind].attrs[i].key, key) == 0) {
            if (l->attrs[i].present)
                return CAPTURE_FAIL(r, "duplicate key \"%s\"", key);
            return capture_next(r) != 0 ? -1
                                        : read_value(r, l, kinds[l->kind].attrs[i].type,
                                                     kinds[l->kind].attrs[i].key, &l->attrs[i]);
        }
    }
    if (strcmp(kinds[l->kind].key, key) == 0)
        return CAPTURE_FAIL(r, "duplicate key \"%s\"", key);
    return CAPTURE_FAIL(r, "unknown key \"%.60s\" in a %s line", key, kinds[l->kind].key);
}

static int do_header(capture_reader* r, line* l) {
    if (r->header_seen)
        return capture_error(r, l->start, "a second nvtxw_capture header");
    if (l->value.u == 0 || l->value.u > CAPTURE_VERSION)
        return capture_error(r, l->value.mark,
                             "capture format version %" PRIu64 " is not supported (this reader "
                             "reads version %d)",
                             l->value.u, CAPTURE_VERSION);
    r->header_seen = 1;
    return 0;
}

/* A capture's config may tune the session (Compression=, StatsReports=...)
 * but never choose where its replay goes: a capture file is data, and the
 * tool's -o / --to / --backend decide that. */
static int check_config(capture_reader* r, const line_value* config) {
    static const char* const refused[] = {"Sink", "Output", "Overwrite", "Backend",
                                          "BackendConfig"};
    const char* item = config->text;
    while (*item != '\0') {
        size_t length = strcspn(item, "|\r\n"), key = strcspn(item, "=|\r\n"), i;
        while (key > 0 && (item[key - 1] == ' ' || item[key - 1] == '\t'))
            key--;
        for (i = 0; i < sizeof refused / sizeof refused[0]; i++) {
            if (key == strlen(refused[i]) && strncasecmp(item, refused[i], key) == 0)
                return capture_error(r, config->mark,
                                     "config key \"%s\" is not allowed in a capture (the "
                                     "replaying tool chooses the output)",
                                     refused[i]);
        }
        item += length + (item[length] != '\0');
    }
    return 0;
}

static int do_session(capture_reader* r, line* l) {
    if (ATTR(l, 0)->present && check_config(r, ATTR(l, 0)) != 0)
        return -1;
    if (r->session != NULL || r->session_name != NULL)
        return capture_error(r, l->start,
                             "\"session\" must come before every other line but the "
                             "header, once");
    r->session_name = l->value.text;
    r->session_config = ATTR(l, 0)->text;
    l->value.text = ATTR(l, 0)->text = NULL;
    return 0;
}

static int dispatch(capture_reader* r, line* l) {
    switch ((enum kind)l->kind) {
    case K_HEADER:
        return do_header(r, l);
    case K_SESSION:
        return do_session(r, l);
    case K_CATEGORY:
        return capture_reg_category(r, l);
    case K_STRING:
        return capture_reg_string(r, l);
    case K_RESOURCE:
        return capture_reg_resource(r, l);
    case K_SCOPE:
        return capture_reg_scope(r, l);
    case K_SCHEMA:
    case K_ENUM:
        return capture_reg_inline(r, l, kinds[l->kind].key);
    case K_SCHEMAS:
        return capture_reg_schemas_file(r, l);
    case K_COUNTER:
        return capture_reg_counter(r, l);
    case K_TIME_DOMAIN:
        return capture_reg_time_domain(r, l);
    case K_STREAM_OPEN:
        return do_stream_open(r, l);
    case K_STREAM_CLOSE:
        return do_stream_close(r, l);
    case K_EVENT:
        return do_event(r, l);
    case K_SAMPLE:
        return do_sample(r, l);
    case K_NO_VALUE:
        return do_no_value(r, l);
    case K_SYNC:
        return do_sync(r, l);
    case K_CONVERSION:
        return do_conversion(r, l);
    case K_DOMAIN:
        break;
    }
    return 0;
}

/* Required values per kind, beyond the kind's own value. */
static int check_required(capture_reader* r, line* l) {
    if ((l->kind == K_SAMPLE || l->kind == K_NO_VALUE) && !ATTR(l, 0)->present)
        return capture_error(r, l->start, "missing key \"ts\" in a %s line", kinds[l->kind].key);
    if ((l->kind == K_SYNC || l->kind == K_CONVERSION) &&
        (!ATTR(l, 0)->present || !ATTR(l, 1)->present))
        return capture_error(r, l->start, "missing key \"src\" or \"dst\" in a %s line",
                             kinds[l->kind].key);
    if (l->kind == K_RESOURCE && (!ATTR(l, 0)->present || !ATTR(l, 1)->present))
        return capture_error(r, l->start, "missing key \"type\" or \"id\" in a resource line");
    return 0;
}

int capture_line(capture_reader* r) {
    line l;
    int status = 0;
    memset(&l, 0, sizeof l);
    l.kind = -1;
    l.start = r->event.start_mark;
    if (capture_next(r) != 0)
        status = -1;
    while (status == 0 && r->event.type != YAML_MAPPING_END_EVENT) {
        status = read_key(r, &l);
        if (status == 0)
            status = capture_next(r);
    }
    if (status == 0 && l.kind < 0 && l.stream != NULL)
        status = capture_error(r, l.start,
                               "a \"stream\" line needs a kind (event, counter_sample, "
                               "counter_no_value, sync or conversion)");
    if (status == 0 && l.kind < 0 && l.domain == NULL && !l.value.present)
        status = capture_error(r, l.start, "empty line mapping");
    if (status == 0 && !r->header_seen && l.kind != K_HEADER)
        status = capture_error(r, l.start,
                               "not a capture: the first line must be {\"nvtxw_capture\": 1}");
    if (status == 0 && l.kind < 0) { /* {"domain": D} */
        if (l.domain != NULL)
            status =
                capture_error(r, l.start, "domain \"%s\" is already registered", l.domain->name);
        else if (domain_register(r, l.value.text, l.value.mark) == NULL)
            status = -1;
    } else if (status == 0 && (status = check_required(r, &l)) == 0)
        status = dispatch(r, &l);
    line_free(&l);
    return status;
}

int capture_finish(capture_reader* r) {
    nvtxwResultCode_t status;
    yaml_mark_t end = r->event.end_mark;
    if (!r->header_seen)
        return capture_error(r, end, "not a capture: no {\"nvtxw_capture\": 1} header");
    if (session_begin(r, end) != 0)
        return -1;
    status = r->ctx->iface->SessionEnd(r->session);
    r->session = NULL;
    return status ? capture_call_failed(r, end, "SessionEnd", status) : 0;
}
