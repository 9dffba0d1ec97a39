/*
 * sink/json/json_sink.c - Sink=json: the Chrome Trace Event Format, object
 * container, as read by Perfetto UI, chrome://tracing, speedscope and the
 * Chrome DevTools trace engine (docs/chrome-json.md). Streamed: nothing is
 * kept per event beyond open split ranges.
 *
 * Output grammar (one event per line, NL = "\n"):
 *   file     := '{"traceEvents":[' [ NL meta { ',' NL event }* ] NL
 *               '],"displayTimeUnit":"ns","otherData":{"generator":"nvtxw",'
 *               '"session":' STRING ',"timestampBase_ns":' INT '}}' NL
 *   event    := meta | '{"name":' STRING [ ',"cat":' STRING ] ',"ph":"' PH '"'
 *               ',"ts":' MICROS [ ',"dur":' MICROS ] ',"pid":' INT ',"tid":' INT
 *               [ ',"id":"0x' HEX '"' ] [ ',"s":"t"' ] [ ',"cname":' STRING ]
 *               [ ',"args":{' members '}' ] '}'
 *   PH       := X | B | E | b | e | i | C     (mapping in json_stream.c)
 *   meta     := '{"name":"' ( process_name | process_sort_index | thread_name
 *               | thread_sort_index ) '","ph":"M","pid":' INT ',"tid":' INT
 *               ',"args":{' ( '"name":' STRING | '"sort_index":' INT ) '}}'
 *   MICROS   := [ '-' ] DIGITS '.' DIGIT DIGIT DIGIT  (exact: integer ns / 1000)
 *   members  := the event's payload fields (grammar in json_visit.c)
 * Timestamps are rebased to the session's smallest timestamp, which becomes
 * 0: events are rebased to the first timestamp the sink sees (session-wide,
 * set once by compare-and-swap), or to the producer's TimestampBase= hint,
 * and, when the smallest one written is not that base (an older one came
 * later, or the hint was off), a second pass at SessionEnd shifts every
 * "ts" (json_shift.c); Perfetto
 * rejects negative timestamps. "timestampBase_ns" gives the base back, so
 * ts * 1000 + timestampBase_ns is the producer's timestamp. pid 1 is the
 * session's process (named after the session when a stream or task row
 * lands in it); each distinct stream scope path gets the next pid (2, 3, ...),
 * a `thread[...]` scope its parent's;
 * the tid of a stream is its open order in the session plus 1. A task scope
 * (path ending in `task[KEY]`, docs/tasks.md) gets a row of its own in its
 * parent's process, tid 2^32 + n, announced at registration
 * (json_task.c); task events are also written there.
 *
 * Concurrency: every element is written with a leading ",\n" except the
 * array's first, which is always metadata (a stream's events follow its own
 * thread_name), written by a serialized call that drops the ",": streams
 * never agree on who is first. Each stream collects whole events in its own
 * buffer and appends them with one write(2) on an O_APPEND descriptor,
 * made by the sink's one writer thread when it has one (json_write: the
 * buffers are written in the order they are handed over, so the bytes are
 * those the streams' own writes would have made).
 * The file is written under PATH.tmp-XXXXXX (common/output_file.h; PATH
 * itself with Overwrite=in-place) and renamed to PATH at SessionEnd;
 * a faulty session removes it.
 */
#define _POSIX_C_SOURCE 200809L
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "common/output_file.h"
#include "nvtxw/loader.h"
#include "sink/json/json_internal.h"
#include "sink/shared/sink_registry.h"
#include "sink/shared/task_scope.h"

nvtxwResultCode_t json_write_all(json_sink* cs, const char* data, size_t size) {
    int err = output_write_all(cs->fd, data, size);
    if (err != 0)
        return error_set(NVTXW_RESULT_FAILED, "cannot write JSON output \"%s\": %s", cs->path,
                         strerror(err));
    return NVTXW_RESULT_SUCCESS;
}

/* The writer thread's job: one buffer of whole elements (offload_run_fn). */
static nvtxwResultCode_t write_job(void* owner, const void* meta, const char* data, size_t size,
                                   strbuf* scratch) {
    (void)meta, (void)scratch;
    return json_write_all(owner, data, size);
}

nvtxwResultCode_t json_write_closing(json_sink* cs, const char* data, size_t size) {
    nvtxwResultCode_t status;
    if (size >= CHROME_FLUSH_BYTES)
        return json_write(cs, data, size);
    if (strbuf_append(&cs->closed_tail, data, size) != 0)
        return error_oom("the JSON of closed streams");
    if (cs->closed_tail.length < CHROME_FLUSH_BYTES)
        return NVTXW_RESULT_SUCCESS;
    status = json_write(cs, cs->closed_tail.data, cs->closed_tail.length);
    strbuf_clear(&cs->closed_tail);
    return status;
}

typedef struct pending_bytes {
    const char* data;
    size_t size;
} pending_bytes;

static int copy_pending(void* ctx, strbuf* out) {
    const pending_bytes* p = ctx;
    return strbuf_append(out, p->data, p->size);
}

nvtxwResultCode_t json_write(json_sink* cs, const char* data, size_t size) {
    pending_bytes p = {data, size};
    if (!offload_lane_active(&cs->lane))
        return json_write_all(cs, data, size);
    return offload_submit(&cs->lane, NULL, 0, copy_pending, &p);
}

int json_put_meta(strbuf* out, const char* what, uint64_t pid, uint64_t tid, const char* text,
                  uint64_t sort) {
    if (strbuf_append(out, ",\n{\"name\":\"", 11) || strbuf_append(out, what, strlen(what)) ||
        strbuf_append(out, "\",\"ph\":\"M\",\"pid\":", 17) || json_put_u64(out, pid) ||
        strbuf_append(out, ",\"tid\":", 7) || json_put_u64(out, tid))
        return -1;
    if (text != NULL)
        return strbuf_append(out, ",\"args\":{\"name\":", 16) || json_put_cstring(out, text) ||
               strbuf_append(out, "}}", 2);
    return strbuf_append(out, ",\"args\":{\"sort_index\":", 22) || json_put_u64(out, sort) ||
           strbuf_append(out, "}}", 2);
}

/* Writes the metadata events built in cs->line (build_status 0). */
/* Writes the metadata line; the array's first element loses its leading
 * ",". Metadata is written by serialized calls only, and a stream's events
 * follow its own thread_name, so the first element is always metadata. */
static nvtxwResultCode_t json_flush_line(json_sink* cs, int build_status) {
    size_t skip = 0;
    nvtxwResultCode_t status;
    if (build_status == 0 && !cs->element_written && cs->line.length > 0 &&
        cs->line.data[0] == ',') {
        skip = 1;
        cs->element_written = 1;
    }
    status = build_status != 0 ? error_oom("JSON metadata")
                               : json_write(cs, cs->line.data + skip, cs->line.length - skip);
    strbuf_clear(&cs->line);
    return status;
}

/* pid 1, the session's process, is named after the session when its first
 * row appears: a session whose streams all have scopes shows no empty
 * process. */
static nvtxwResultCode_t session_process(json_sink* cs) {
    const char* name = cs->session_name[0] ? cs->session_name : "nvtxw-session";
    if (cs->session_process_named)
        return NVTXW_RESULT_SUCCESS;
    cs->session_process_named = 1;
    return json_flush_line(cs, json_put_meta(&cs->line, "process_name", 1, 0, name, 0) ||
                                   json_put_meta(&cs->line, "process_sort_index", 1, 0, NULL, 1));
}

/* A process's metadata, named after its scope path without escapes. 0, or
 * -1 out of memory. */
static int process_meta(json_sink* cs, uint64_t pid, const char* path) {
    strbuf name = {NULL, 0, 0};
    int status = scope_path_display(path, &name) ||
                 json_put_meta(&cs->line, "process_name", pid, 0, name.data, 0) ||
                 json_put_meta(&cs->line, "process_sort_index", pid, 0, NULL, pid);
    strbuf_free(&name);
    return status;
}

nvtxwResultCode_t json_scope_process_id(json_sink* cs, const core_domain* domain, uint64_t scope_id,
                                        uint64_t* pid) {
    const core_scope* scope = core_domain_scope(domain, scope_id);
    int is_new;
    *pid = 1;
    if (scope == NULL)
        return session_process(cs); /* no scope, ROOT or a predefined one */
    if (scope_process_number(&cs->processes, scope->path, pid, &is_new) != 0)
        return error_oom("the JSON process table");
    return is_new ? json_flush_line(cs, process_meta(cs, *pid, scope->path)) : NVTXW_RESULT_SUCCESS;
}

nvtxwResultCode_t json_process_id(json_sink* cs, const core_stream* stream, uint64_t* pid) {
    const core_scope* scope = core_domain_scope(stream->domain, stream->scope_id);
    /* A stream of a thread scope (`thread[...]`, as the OTF2 importer
     * registers locations) is a row of its parent's process, next to its
     * sibling threads and the process's task rows. */
    const json_task* task = json_task_find(cs, stream->domain, stream->scope_id);
    /* A stream whose scope is a task scope is a row of the task's process,
     * not a process named "task[KEY]". */
    if (task != NULL) {
        *pid = task->pid;
        return NVTXW_RESULT_SUCCESS;
    }
    if (scope != NULL && strncmp(task_scope_last_node(scope->path), "thread[", 7) == 0 &&
        core_domain_scope(stream->domain, scope->parent) != NULL)
        return json_scope_process_id(cs, stream->domain, scope->parent, pid);
    return json_scope_process_id(cs, stream->domain, stream->scope_id, pid);
}

nvtxwResultCode_t json_task_meta(json_sink* cs, const json_task* task, const char* name,
                                 const char* path, uint64_t scope_id) {
    strbuf* out = &cs->line;
    int status = json_put_meta(out, "thread_name", task->pid, task->tid, name, 0);
    /* reopen the args object json_put_meta closed: "...}}" -> "...," */
    if (status == 0) {
        out->length -= 2;
        status = strbuf_append(out, ",\"task_path\":", 13) || json_put_cstring(out, path) ||
                 strbuf_append(out, ",\"task_scope\":", 14) || json_put_u64(out, scope_id) ||
                 strbuf_append(out, "}}", 2);
    }
    return json_flush_line(cs, status || json_put_meta(out, "thread_sort_index", task->pid,
                                                       task->tid, NULL, task->tid));
}

/* Opens the file written until SessionEnd (common/output_file.h). */
static nvtxwResultCode_t json_open(json_sink* cs, const core_config* config) {
    int err;
    if (strcmp(cs->path, "-") == 0)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot open JSON output \"-\": the json sink writes files only");
    cs->fd = output_file_open(&cs->out, cs->path, config->overwrite, O_WRONLY | O_APPEND);
    if (cs->fd >= 0)
        return NVTXW_RESULT_SUCCESS;
    err = errno;
    if (err == ENOMEM)
        return error_oom("the JSON output path");
    if (err == EEXIST && config->overwrite == OUTPUT_KEEP)
        return error_set(NVTXW_RESULT_FAILED,
                         "cannot open JSON output \"%s\": %s (set Overwrite=yes to replace it)",
                         cs->path, strerror(EEXIST));
    return error_set(NVTXW_RESULT_FAILED, "cannot open JSON output \"%s\": %s (writing %s)",
                     cs->path, strerror(err), cs->out.written);
}

static void json_free(json_sink* cs) {
    json_tasks_free(cs);
    scope_process_table_free(&cs->processes);
    strbuf_free(&cs->line);
    strbuf_free(&cs->closed_tail);
    nvtxw_free(cs->session_name);
    output_file_free(&cs->out);
    nvtxw_free(cs->path);
    nvtxw_free(cs);
}

/* Waits for the writes handed over (every stream is closed), then ends the
 * writer thread: the first error of those writes. */
static nvtxwResultCode_t json_writer_stop(json_sink* cs) {
    nvtxwResultCode_t status = offload_drain(&cs->lane);
    offload_pool_stop(&cs->writer);
    return status;
}

/* The first TimestampBase= value of the config string (points into it). */
typedef struct base_hint_text {
    const char* value;
    size_t length;
} base_hint_text;

static int base_hint_consume(void* state, const char* key_begin, const char* key_end,
                             const char* value_begin, const char* value_end) {
    base_hint_text* hint = state;
    if ((size_t)(key_end - key_begin) != 13 || strncmp(key_begin, "TimestampBase", 13) != 0 ||
        hint->value != NULL)
        return 0; /* another key, or a later duplicate: the first one wins */
    hint->value = value_begin;
    hint->length = (size_t)(value_end - value_begin);
    return 0;
}

/* TimestampBase=NS (docs/config.md): an int64 in decimal. */
static nvtxwResultCode_t json_base_hint(json_sink* cs, const char* config) {
    base_hint_text hint = {NULL, 0};
    char text[24], *end = text;
    long long value = 0;
    nvtxwConsumeConfigString(config, base_hint_consume, &hint);
    if (hint.value == NULL)
        return NVTXW_RESULT_SUCCESS;
    errno = 0;
    if (hint.length < sizeof text) {
        memcpy(text, hint.value, hint.length);
        text[hint.length] = '\0';
        value = strtoll(text, &end, 10);
    }
    if (hint.length == 0 || hint.length >= sizeof text || errno != 0 || *end != '\0')
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot begin session: TimestampBase=\"%.*s\" is not a timestamp in "
                         "nanoseconds (an int64)",
                         (int)hint.length, hint.value);
    cs->has_base_hint = 1;
    cs->base_hint = (int64_t)value;
    return NVTXW_RESULT_SUCCESS;
}

/* The array's opening; its first element comes with the first metadata. */
static int json_header(json_sink* cs) { return strbuf_append(&cs->line, "{\"traceEvents\":[", 16); }

static nvtxwResultCode_t json_create(const core_config* config, const char* session_name,
                                     sink** out) {
    json_sink* cs = nvtxw_calloc(1, sizeof *cs);
    nvtxwResultCode_t status;
    if (cs == NULL)
        return error_oom("the JSON sink");
    cs->base.ops = &sink_json_ops;
    cs->fd = -1;
    cs->min_rel = INT64_MAX;
    atomic_init(&cs->base_ns, CHROME_BASE_UNSET);
    cs->session_name = nvtxw_strdup(session_name);
    cs->path =
        config->output ? nvtxw_strdup(config->output) : sink_default_output(session_name, ".json");
    status = cs->path && cs->session_name ? json_base_hint(cs, config->raw)
                                          : error_oom("the JSON output path");
    if (status == NVTXW_RESULT_SUCCESS)
        status = json_open(cs, config);
    if (status == NVTXW_RESULT_SUCCESS) {
        /* Formatting stays on the producers' threads; the writes (a third
         * of a conversion's time, most of it the kernel's copy into the
         * page cache) go to this thread. */
        offload_pool_start(&cs->writer, offload_thread_count(config) > 0 ? 1 : 0);
        offload_lane_init(&cs->lane, &cs->writer, 0, write_job, cs);
        status = json_flush_line(cs, json_header(cs));
    }
    if (status != NVTXW_RESULT_SUCCESS) {
        json_writer_stop(cs);
        if (cs->fd >= 0) {
            close(cs->fd);
            output_file_discard(&cs->out);
        }
        json_free(cs);
        return status;
    }
    *out = &cs->base;
    return NVTXW_RESULT_SUCCESS;
}

/* base + min_rel (the smallest timestamp written, which the shift pass
 * makes 0), clamped to int64. */
static int64_t shifted_base(int64_t base, int64_t min_rel) {
    if (min_rel < 0)
        return base < INT64_MIN - min_rel ? INT64_MIN : base + min_rel;
    return base > INT64_MAX - min_rel ? INT64_MAX : base + min_rel;
}

/* The tail: the closed streams' last bytes, then closes the array and adds
 * the metadata members. */
static nvtxwResultCode_t json_finish(json_sink* cs) {
    int64_t base = atomic_load(&cs->base_ns);
    if (cs->closed_tail.length > 0) {
        nvtxwResultCode_t status = json_write(cs, cs->closed_tail.data, cs->closed_tail.length);
        strbuf_clear(&cs->closed_tail);
        if (status != NVTXW_RESULT_SUCCESS)
            return status;
    }
    base =
        base == CHROME_BASE_UNSET || cs->min_rel == INT64_MAX ? 0 : shifted_base(base, cs->min_rel);
    return json_flush_line(
        cs, strbuf_append(&cs->line, "\n],\"displayTimeUnit\":\"ns\",\"otherData\":{", 39) ||
                strbuf_append(&cs->line, "\"generator\":\"nvtxw\",\"session\":", 30) ||
                json_put_cstring(&cs->line, cs->session_name) ||
                strbuf_append(&cs->line, ",\"timestampBase_ns\":", 20) ||
                json_put_i64(&cs->line, base) || strbuf_append(&cs->line, "}}\n", 3));
}

static nvtxwResultCode_t json_destroy(sink* s, int faulty) {
    json_sink* cs = (json_sink*)s;
    nvtxwResultCode_t status = faulty ? NVTXW_RESULT_FAILED : json_finish(cs);
    nvtxwResultCode_t written = json_writer_stop(cs);
    if (status == NVTXW_RESULT_SUCCESS)
        status = written;
    if (close(cs->fd) != 0 && status == NVTXW_RESULT_SUCCESS)
        status = error_set(NVTXW_RESULT_FAILED, "cannot close JSON output \"%s\": %s", cs->path,
                           strerror(errno));
    /* Without a hint the first timestamp is the base, so min_rel <= 0; a
     * hint above or below the smallest timestamp shifts either way. */
    if (status == NVTXW_RESULT_SUCCESS && cs->min_rel != 0 && cs->min_rel != INT64_MAX)
        status = json_shift_file(cs, json_rebase(0, cs->min_rel));
    if (status == NVTXW_RESULT_SUCCESS && output_file_commit(&cs->out) != 0)
        status = error_set(NVTXW_RESULT_FAILED, "cannot rename JSON output \"%s\" to \"%s\": %s%s",
                           cs->out.written, cs->path, strerror(errno),
                           errno == EEXIST ? " (set Overwrite=yes to replace it)" : "");
    else if (status != NVTXW_RESULT_SUCCESS)
        output_file_discard(&cs->out);
    json_free(cs);
    /* A faulty session's error is the core's to report. */
    return faulty ? NVTXW_RESULT_SUCCESS : status;
}

/* Registrations are read from the core's registries when events use them
 * (categories, strings, scopes, counters); nothing to write here. */
static nvtxwResultCode_t json_domain(sink* s, const core_domain* domain) {
    (void)s, (void)domain;
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t json_category(sink* s, const core_domain* domain, uint32_t category,
                                       const char* name) {
    (void)s, (void)domain, (void)category, (void)name;
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t json_string(sink* s, const core_domain* domain, uint64_t handle,
                                     const char* text) {
    (void)s, (void)domain, (void)handle, (void)text;
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t json_resource(sink* s, const core_domain* domain,
                                       const core_resource* resource) {
    (void)s, (void)domain, (void)resource;
    return NVTXW_RESULT_SUCCESS;
}

/* Task scopes get their rows here (json_task.c); other scopes are
 * read when streams use them. */
static nvtxwResultCode_t json_scope(sink* s, const core_domain* domain, uint64_t id,
                                    uint64_t parent, const char* path) {
    return json_task_register((json_sink*)s, domain, id, parent, path);
}

static nvtxwResultCode_t json_schema(sink* s, const core_domain* domain,
                                     const nvtxw_schema_t* schema) {
    (void)s, (void)domain, (void)schema;
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t json_enum(sink* s, const core_domain* domain,
                                   const nvtxw_enum_t* enumeration) {
    (void)s, (void)domain, (void)enumeration;
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t json_counter(sink* s, const core_domain* domain,
                                      const core_counter* counter) {
    (void)s, (void)domain, (void)counter;
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t json_time_domain(sink* s, const core_domain* domain,
                                          const nvtxTimeDomainAttr_t* attr) {
    (void)s, (void)domain, (void)attr;
    return NVTXW_RESULT_SUCCESS;
}

const sink_ops sink_json_ops = {
    .name = "json",
    .create = json_create,
    .destroy = json_destroy,
    .domain_register = json_domain,
    .category_register = json_category,
    .string_register = json_string,
    .resource_register = json_resource,
    .scope_register = json_scope,
    .schema_register = json_schema,
    .enum_register = json_enum,
    .counter_register = json_counter,
    .time_domain_register = json_time_domain,
    .stream_open = json_stream_open,
    .stream_close = json_stream_close,
    .event_write = json_event_write,
    .counter_write = json_counter_write,
    .counter_no_value_write = json_counter_no_value_write,
    .sync_points_write = json_sync_points_write,
    .conversion_factor_write = json_conversion_factor_write,
};
