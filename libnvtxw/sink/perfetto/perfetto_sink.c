/*
 * sink/perfetto/perfetto_sink.c - Sink=perfetto: Perfetto's native trace
 * format, a `Trace` protobuf message (docs/perfetto.md), as Perfetto UI and
 * trace_processor read it. Streamed: nothing is kept per event.
 *
 * File layout (field numbers are those of perfetto_trace.proto):
 *   file     := { Trace.packet(1) = packet }*
 *   packet   := session packets, on sequence 1, made by serialized calls and
 *                 written before the next stream packets (which may refer
 *                 to them) or 64 KiB at a time:
 *                 the root track (uuid 0: processes and threads in explicit
 *                 order), a process track per process, the track of every
 *                 stream (a thread, or a track under its process) and task
 *               | stream packets, on sequence (stream open order + 2), in
 *                 the order the stream wrote them:
 *                 [incremental state] [clock snapshot] { track event
 *                 | counter track }*
 *   incremental state := sequence_flags INCREMENTAL_STATE_CLEARED |
 *                 NEEDS_INCREMENTAL_STATE, trace_packet_defaults {
 *                 timestamp_clock_id 64, track_event_defaults { track_uuid =
 *                 the stream's track } }, written before the stream's first
 *                 event and again when an interning table is full
 *   clock snapshot := clock 64 (incremental) and BOOTTIME both at the
 *                 stream's time T: timestamps of the sequence's later
 *                 packets are deltas on clock 64, so BOOTTIME = the
 *                 producer's nanoseconds (perfetto_stream.c)
 *   track event := timestamp, sequence_flags NEEDS_INCREMENTAL_STATE,
 *                 [interned_data: names, categories, annotation names first
 *                 used], track_event { type, [track_uuid], name_iid,
 *                 category_iids, debug_annotations, flow ids, counter value }
 *
 * Concurrency: every packet is a whole Trace field, so the file is valid
 * whatever order streams append in. Each stream collects whole packets in
 * its own buffer and appends them with one write(2) on an O_APPEND
 * descriptor. The file is written under PATH.tmp-XXXXXX (common/
 * output_file.h; PATH itself with Overwrite=in-place) and renamed to PATH
 * at SessionEnd; a faulty session removes it.
 */
#define _POSIX_C_SOURCE 200809L
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <zstd.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "common/output_file.h"
#include "sink/perfetto/perfetto_internal.h"
#include "sink/perfetto/perfetto_pb.h"
#include "sink/shared/sink_registry.h"
#include "sink/shared/task_scope.h"

nvtxwResultCode_t perfetto_write_all(perfetto_sink* ps, const char* data, size_t size) {
    int err = output_write_all(ps->fd, data, size);
    if (err != 0)
        return error_set(NVTXW_RESULT_FAILED, "cannot write Perfetto output \"%s\": %s", ps->path,
                         strerror(err));
    return NVTXW_RESULT_SUCCESS;
}

/* A compression context from the session's spares, or a new one. */
static ZSTD_CCtx* context_take(perfetto_sink* ps) {
    size_t i;
    for (i = 0; i < PERFETTO_CONTEXTS; i++) {
        void* cctx = atomic_exchange(&ps->contexts[i], NULL);
        if (cctx != NULL)
            return cctx;
    }
    return ZSTD_createCCtx();
}

static void context_give(perfetto_sink* ps, ZSTD_CCtx* cctx) {
    size_t i;
    for (i = 0; i < PERFETTO_CONTEXTS; i++) {
        void* expected = NULL;
        if (atomic_compare_exchange_strong(&ps->contexts[i], &expected, cctx))
            return;
    }
    ZSTD_freeCCtx(cctx);
}

/* Trace.packet { zstd_compressed_packets(133): zstd frame of the packets }:
 * Perfetto's trace processor (since 2026-07) decompresses the frame and
 * reads the packets in it as if they were in the file. */
nvtxwResultCode_t perfetto_write_packets(perfetto_sink* ps, const char* data, size_t size,
                                         strbuf* scratch) {
    size_t bound = ZSTD_compressBound(size), field, z;
    uint8_t head[2 * VARINT_MAX_BYTES + 3];
    ZSTD_CCtx* cctx;
    if (!ps->compress)
        return perfetto_write_all(ps, data, size);
    strbuf_clear(scratch);
    if (strbuf_reserve(scratch, bound + sizeof head) != 0 || (cctx = context_take(ps)) == NULL)
        return error_oom("a compressed Perfetto packet");
    z = ZSTD_compressCCtx(cctx, scratch->data + sizeof head, bound, data, size, ps->level);
    context_give(ps, cctx);
    if (ZSTD_isError(z))
        return error_set(NVTXW_RESULT_FAILED, "cannot compress Perfetto packets: %s",
                         ZSTD_getErrorName(z));
    /* the packet's head, right before the frame: tag 1, length, tag 133, length */
    field = varint_put(head, 133 << 3 | PB_LEN) + varint_put(head, z) + z;
    size = 0;
    head[size++] = 0x0A;
    size += varint_put(head + size, field);
    size += varint_put(head + size, 133 << 3 | PB_LEN);
    size += varint_put(head + size, z);
    memcpy(scratch->data + sizeof head - size, head, size);
    return perfetto_write_all(ps, scratch->data + sizeof head - size, size + z);
}

int perfetto_put_track(strbuf* out, uint32_t sequence, const perfetto_track_desc* d) {
    size_t packet = pb_open(out, 1), track, sub;
    if (packet == SIZE_MAX || pb_varint(out, 10, sequence) != 0 ||
        (track = pb_open(out, 60)) == SIZE_MAX || pb_varint(out, 1, d->uuid) != 0 ||
        (d->parent != 0 && pb_varint(out, 5, d->parent) != 0) ||
        (d->name != NULL && pb_cstring(out, 2, d->name) != 0) ||
        (d->has_rank && pb_varint(out, 12, (uint64_t)(int64_t)d->rank) != 0) ||
        (d->no_merge && pb_varint(out, 15, 2) != 0)) /* SIBLING_MERGE_BEHAVIOR_NONE */
        return -1;
    if (d->kind == PERFETTO_DESC_PROCESS) {
        if ((sub = pb_open(out, 3)) == SIZE_MAX || pb_varint(out, 1, d->pid) != 0 ||
            pb_cstring(out, 6, d->process_name) != 0 || pb_close(out, sub) != 0)
            return -1;
    } else if (d->kind == PERFETTO_DESC_THREAD) {
        if ((sub = pb_open(out, 4)) == SIZE_MAX || pb_varint(out, 1, d->pid) != 0 ||
            pb_varint(out, 2, d->tid) != 0 || pb_cstring(out, 5, d->thread_name) != 0 ||
            pb_close(out, sub) != 0)
            return -1;
    } else if (d->kind == PERFETTO_DESC_COUNTER) {
        if ((sub = pb_open(out, 8)) == SIZE_MAX ||
            (d->unit != 0 && pb_varint(out, 3, (uint64_t)d->unit) != 0) ||
            (d->unit_name != NULL && pb_cstring(out, 6, d->unit_name) != 0) ||
            pb_close(out, sub) != 0)
            return -1;
    } else if (d->kind == PERFETTO_DESC_ROOT) {
        /* processes and threads in the order of their ranks */
        if (pb_varint(out, 19, 1) != 0 || pb_varint(out, 20, 1) != 0)
            return -1;
    }
    return pb_close(out, track) || pb_close(out, packet);
}

/* Writes ps->line; line_lock held. */
static nvtxwResultCode_t line_write_locked(perfetto_sink* ps) {
    nvtxwResultCode_t status = NVTXW_RESULT_SUCCESS;
    if (ps->line.length > 0)
        status = perfetto_write_all(ps, ps->line.data, ps->line.length);
    strbuf_clear(&ps->line);
    atomic_store_explicit(&ps->line_pending, 0, memory_order_relaxed);
    return status;
}

nvtxwResultCode_t perfetto_session_packets_flush(perfetto_sink* ps) {
    nvtxwResultCode_t status;
    if (!atomic_load_explicit(&ps->line_pending, memory_order_acquire))
        return NVTXW_RESULT_SUCCESS;
    pthread_mutex_lock(&ps->line_lock);
    status = line_write_locked(ps);
    pthread_mutex_unlock(&ps->line_lock);
    return status;
}

nvtxwResultCode_t perfetto_put_session_track(perfetto_sink* ps, const perfetto_track_desc* d) {
    nvtxwResultCode_t status = NVTXW_RESULT_SUCCESS;
    size_t mark;
    pthread_mutex_lock(&ps->line_lock);
    mark = ps->line.length;
    if (perfetto_put_track(&ps->line, PERFETTO_SESSION_SEQUENCE, d) != 0) {
        ps->line.length = mark; /* no half packet */
        status = error_oom("a Perfetto track descriptor");
    } else if (ps->line.length >= PERFETTO_FLUSH_BYTES) {
        status = line_write_locked(ps);
    } else {
        atomic_store_explicit(&ps->line_pending, 1, memory_order_release);
    }
    pthread_mutex_unlock(&ps->line_lock);
    return status;
}

/* Process 1, the session's, is described when its first track appears: a
 * session whose streams all have scopes shows no empty process. */
static nvtxwResultCode_t session_process(perfetto_sink* ps) {
    perfetto_track_desc d = {0};
    if (ps->session_process_named)
        return NVTXW_RESULT_SUCCESS;
    ps->session_process_named = 1;
    d.kind = PERFETTO_DESC_PROCESS;
    d.uuid = PERFETTO_UUID(1, PERFETTO_TRACK_PROCESS);
    d.pid = 1;
    d.process_name = ps->session_name[0] ? ps->session_name : "nvtxw-session";
    d.has_rank = 1;
    d.rank = 1;
    return perfetto_put_session_track(ps, &d);
}

/* The process of scope `scope_id` of `domain` (process 1 for none, ROOT and
 * predefined scopes), described on first use. */
static nvtxwResultCode_t scope_process(perfetto_sink* ps, const core_domain* domain,
                                       uint64_t scope_id, uint64_t* pid) {
    const core_scope* scope = core_domain_scope(domain, scope_id);
    perfetto_track_desc d = {0};
    strbuf name = {0};
    int is_new;
    nvtxwResultCode_t status;
    *pid = 1;
    if (scope == NULL)
        return session_process(ps);
    if (scope_process_number(&ps->processes, scope->path, pid, &is_new) != 0)
        return error_oom("the Perfetto process table");
    if (!is_new)
        return NVTXW_RESULT_SUCCESS;
    d.kind = PERFETTO_DESC_PROCESS;
    d.uuid = PERFETTO_UUID(*pid, PERFETTO_TRACK_PROCESS);
    d.pid = *pid;
    d.has_rank = 1;
    d.rank = (int32_t)(*pid > INT32_MAX ? INT32_MAX : *pid);
    if (scope_path_display(scope->path, &name) != 0) {
        strbuf_free(&name);
        return error_oom("a Perfetto process name");
    }
    d.process_name = name.data != NULL ? name.data : "";
    status = perfetto_put_session_track(ps, &d);
    strbuf_free(&name);
    return status;
}

nvtxwResultCode_t perfetto_stream_process(perfetto_sink* ps, const core_stream* stream,
                                          uint64_t* pid, int* is_thread) {
    const core_scope* scope = core_domain_scope(stream->domain, stream->scope_id);
    const perfetto_task* task = perfetto_task_find(ps, stream->domain, stream->scope_id);
    *is_thread = 0;
    /* A stream whose scope is a task scope is a track of the task's
     * process, not a process named "task[KEY]". */
    if (task != NULL) {
        *pid = task->pid;
        return NVTXW_RESULT_SUCCESS;
    }
    if (scope == NULL) {
        *is_thread = 1;
        return scope_process(ps, stream->domain, stream->scope_id, pid);
    }
    /* A `thread[...]` scope (as the OTF2 importer registers locations) is a
     * thread of its parent's process. */
    if (strncmp(task_scope_last_node(scope->path), "thread[", 7) == 0 &&
        core_domain_scope(stream->domain, scope->parent) != NULL) {
        *is_thread = 1;
        return scope_process(ps, stream->domain, scope->parent, pid);
    }
    return scope_process(ps, stream->domain, stream->scope_id, pid);
}

/* ---- tasks ---- */

/* A scope registration: a task scope (last node `task[KEY]`) gets a track
 * "task KEY" in the process of its parent (its parent task's process when
 * the parent is a task). */
static nvtxwResultCode_t task_register(perfetto_sink* ps, const core_domain* domain, uint64_t id,
                                       uint64_t parent, const char* path) {
    strbuf name = {0};
    perfetto_task* task = NULL;
    const perfetto_task* parent_task;
    perfetto_track_desc d = {0};
    pubmap* map;
    nvtxwResultCode_t status = NVTXW_RESULT_SUCCESS;
    int is_task = strbuf_append(&name, "task ", 5) != 0 ? -1 : task_scope_key(path, &name);
    if (is_task <= 0) {
        strbuf_free(&name);
        return is_task == 0 ? NVTXW_RESULT_SUCCESS : error_oom("a Perfetto task track");
    }
    if ((map = task_scope_domain_map(&ps->task_maps, domain->index)) == NULL ||
        (task = nvtxw_calloc(1, sizeof *task)) == NULL || pubmap_reserve_id(map, id) != 0) {
        nvtxw_free(task);
        strbuf_free(&name);
        return error_oom("a Perfetto task track");
    }
    task->uuid = PERFETTO_UUID(++ps->task_count, PERFETTO_TRACK_TASK);
    if ((parent_task = perfetto_task_find(ps, domain, parent)) != NULL)
        task->pid = parent_task->pid;
    else
        status = scope_process(ps, domain, parent, &task->pid);
    (void)pubmap_put(map, id, task); /* complete, then published; reserved */
    if (status == NVTXW_RESULT_SUCCESS) {
        d.kind = PERFETTO_DESC_TRACK;
        d.no_merge = 1;
        d.uuid = task->uuid;
        d.parent = PERFETTO_UUID(task->pid, PERFETTO_TRACK_PROCESS);
        d.name = name.data;
        status = perfetto_put_session_track(ps, &d);
    }
    strbuf_free(&name);
    return status;
}

const perfetto_task* perfetto_task_find(const perfetto_sink* ps, const core_domain* domain,
                                        uint64_t id) {
    const pubmap* map = pubvec_get(&ps->task_maps, domain->index);
    return map != NULL ? pubmap_get(map, id) : NULL;
}

static void task_map_free(void* map) { task_scope_domain_map_free(map, nvtxw_free); }

/* ---- the session ---- */

static nvtxwResultCode_t perfetto_open(perfetto_sink* ps, const core_config* config) {
    int err;
    if (strcmp(ps->path, "-") == 0)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot open Perfetto output \"-\": the perfetto sink writes files only");
    ps->fd = output_file_open(&ps->out, ps->path, config->overwrite, O_WRONLY | O_APPEND);
    if (ps->fd >= 0)
        return NVTXW_RESULT_SUCCESS;
    err = errno;
    if (err == ENOMEM)
        return error_oom("the Perfetto output path");
    if (err == EEXIST && config->overwrite == OUTPUT_KEEP)
        return error_set(NVTXW_RESULT_FAILED,
                         "cannot open Perfetto output \"%s\": %s (set Overwrite=yes to replace it)",
                         ps->path, strerror(EEXIST));
    return error_set(NVTXW_RESULT_FAILED, "cannot open Perfetto output \"%s\": %s (writing %s)",
                     ps->path, strerror(err), ps->out.written);
}

static void perfetto_free(perfetto_sink* ps) {
    size_t i;
    for (i = 0; i < PERFETTO_CONTEXTS; i++)
        ZSTD_freeCCtx(atomic_load(&ps->contexts[i]));
    pthread_mutex_destroy(&ps->line_lock);
    pubvec_free(&ps->task_maps, task_map_free);
    scope_process_table_free(&ps->processes);
    strbuf_free(&ps->line);
    nvtxw_free(ps->session_name);
    output_file_free(&ps->out);
    nvtxw_free(ps->path);
    nvtxw_free(ps);
}

static nvtxwResultCode_t perfetto_create(const core_config* config, const char* session_name,
                                         sink** out) {
    perfetto_sink* ps = nvtxw_calloc(1, sizeof *ps);
    perfetto_track_desc root = {0};
    nvtxwResultCode_t status;
    if (ps == NULL)
        return error_oom("the Perfetto sink");
    ps->base.ops = &sink_perfetto_ops;
    ps->fd = -1;
    pthread_mutex_init(&ps->line_lock, NULL);
    ps->compress = config->compression_given && config->compression != 0;
    ps->level = config->compression;
    ps->flush_bytes = ps->compress ? PERFETTO_FRAME_BYTES : PERFETTO_FLUSH_BYTES;
    ps->session_name = nvtxw_strdup(session_name);
    ps->path = config->output ? nvtxw_strdup(config->output)
                              : sink_default_output(session_name, ".pftrace");
    status = ps->path && ps->session_name ? perfetto_open(ps, config)
                                          : error_oom("the Perfetto output path");
    root.kind = PERFETTO_DESC_ROOT;
    if (status == NVTXW_RESULT_SUCCESS)
        status = perfetto_put_session_track(ps, &root);
    if (status == NVTXW_RESULT_SUCCESS && ps->compress)
        offload_pool_start(&ps->compressors, offload_thread_count(config));
    if (status != NVTXW_RESULT_SUCCESS) {
        if (ps->fd >= 0) {
            close(ps->fd);
            output_file_discard(&ps->out);
        }
        perfetto_free(ps);
        return status;
    }
    *out = &ps->base;
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t perfetto_destroy(sink* s, int faulty) {
    perfetto_sink* ps = (perfetto_sink*)s;
    nvtxwResultCode_t status = faulty ? NVTXW_RESULT_FAILED : NVTXW_RESULT_SUCCESS;
    offload_pool_stop(&ps->compressors); /* every stream is closed and drained */
    if (status == NVTXW_RESULT_SUCCESS)
        status = perfetto_session_packets_flush(ps);
    if (close(ps->fd) != 0 && status == NVTXW_RESULT_SUCCESS)
        status = error_set(NVTXW_RESULT_FAILED, "cannot close Perfetto output \"%s\": %s", ps->path,
                           strerror(errno));
    if (status == NVTXW_RESULT_SUCCESS && output_file_commit(&ps->out) != 0)
        status =
            error_set(NVTXW_RESULT_FAILED, "cannot rename Perfetto output \"%s\" to \"%s\": %s%s",
                      ps->out.written, ps->path, strerror(errno),
                      errno == EEXIST ? " (set Overwrite=yes to replace it)" : "");
    else if (status != NVTXW_RESULT_SUCCESS)
        output_file_discard(&ps->out);
    perfetto_free(ps);
    /* A faulty session's error is the core's to report. */
    return faulty ? NVTXW_RESULT_SUCCESS : status;
}

/* Registrations are read from the core's registries when events use them
 * (categories, strings, scopes, counters); only task scopes are written
 * when registered. */
static nvtxwResultCode_t nothing_domain(sink* s, const core_domain* domain) {
    (void)s, (void)domain;
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t nothing_category(sink* s, const core_domain* domain, uint32_t category,
                                          const char* name) {
    (void)s, (void)domain, (void)category, (void)name;
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t nothing_string(sink* s, const core_domain* domain, uint64_t handle,
                                        const char* text) {
    (void)s, (void)domain, (void)handle, (void)text;
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t nothing_resource(sink* s, const core_domain* domain,
                                          const core_resource* resource) {
    (void)s, (void)domain, (void)resource;
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t nothing_schema(sink* s, const core_domain* domain,
                                        const nvtxw_schema_t* schema) {
    (void)s, (void)domain, (void)schema;
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t nothing_enum(sink* s, const core_domain* domain,
                                      const nvtxw_enum_t* enumeration) {
    (void)s, (void)domain, (void)enumeration;
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t nothing_counter(sink* s, const core_domain* domain,
                                         const core_counter* counter) {
    (void)s, (void)domain, (void)counter;
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t nothing_time_domain(sink* s, const core_domain* domain,
                                             const nvtxTimeDomainAttr_t* attr) {
    (void)s, (void)domain, (void)attr;
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t perfetto_scope(sink* s, const core_domain* domain, uint64_t id,
                                        uint64_t parent, const char* path) {
    return task_register((perfetto_sink*)s, domain, id, parent, path);
}

const sink_ops sink_perfetto_ops = {
    .name = "perfetto",
    .create = perfetto_create,
    .destroy = perfetto_destroy,
    .domain_register = nothing_domain,
    .category_register = nothing_category,
    .string_register = nothing_string,
    .resource_register = nothing_resource,
    .scope_register = perfetto_scope,
    .schema_register = nothing_schema,
    .enum_register = nothing_enum,
    .counter_register = nothing_counter,
    .time_domain_register = nothing_time_domain,
    .stream_open = perfetto_stream_open,
    .stream_close = perfetto_stream_close,
    .event_write = perfetto_event_write,
    .counter_write = perfetto_counter_write,
    .counter_no_value_write = perfetto_counter_no_value_write,
    .sync_points_write = perfetto_sync_points_write,
    .conversion_factor_write = perfetto_conversion_factor_write,
};
