/*
 * sink/report/report_sink.c - Sink=report: the compressed .nvtxw report. This file
 * holds the session side: creating the container, and encoding every
 * registration into the registration log (record grammar in
 * docs/report-records.md, "Registration chunks").
 *
 * The report is written to a temporary name and committed by rename at
 * SessionEnd (container_writer_finish); a faulty session is aborted, its
 * temporary file removed. A producer that dies leaves the temporary file,
 * readable up to its last complete chunk.
 */
#include "config.h"

#include <string.h>
#include <unistd.h>
#include <wchar.h>
#include <xxhash.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "sink/report/report_internal.h"
#include "sink/shared/sink_registry.h"

/* ---- Registration log ---------------------------------------------------- */

nvtxwResultCode_t report_flush_registrations(report_sink* rs) {
    container_chunk_meta meta;
    nvtxwResultCode_t status;
    if (rs->reg.length == 0)
        return NVTXW_RESULT_SUCCESS;
    if (rs->reg_discard) { /* rank 0 writes them */
        strbuf_clear(&rs->reg);
        rs->reg_records = 0;
        rs->reg_chunk++;
        atomic_store_explicit(&rs->reg_pending, 0, memory_order_release);
        return NVTXW_RESULT_SUCCESS;
    }
    memset(&meta, 0, sizeof meta);
    meta.kind = REPORT_CHUNK_REGISTRATIONS;
    meta.record_count = rs->reg_records;
    meta.stream_id = CONTAINER_STREAM_SESSION;
    status = container_write_chunk(rs->reg_encoder, &meta, rs->reg.data, rs->reg.length);
    strbuf_clear(&rs->reg);
    rs->reg_records = 0;
    rs->reg_chunk++;
    atomic_store_explicit(&rs->reg_pending, 0, memory_order_release);
    return status;
}

nvtxwResultCode_t report_sync_registrations(report_sink* rs) {
    nvtxwResultCode_t status = NVTXW_RESULT_SUCCESS;
    if (!atomic_load_explicit(&rs->reg_pending, memory_order_acquire))
        return status;
    pthread_mutex_lock(&rs->reg_mutex);
    if (atomic_load_explicit(&rs->reg_pending, memory_order_relaxed))
        status = report_flush_registrations(rs);
    pthread_mutex_unlock(&rs->reg_mutex);
    return status;
}

/* Ends one registration record (build_status 0) and keeps the log's chunk
 * size bounded. Registration calls are serialized, but the write path may
 * flush concurrently, hence the mutex. */
static nvtxwResultCode_t reg_end(report_sink* rs, int build_status, size_t record_start) {
    nvtxwResultCode_t status = NVTXW_RESULT_SUCCESS;
    size_t hash_end = rs->reg_hash_stop > record_start ? rs->reg_hash_stop : rs->reg.length;
    rs->reg_hash_stop = 0;
    if (build_status != 0) {
        rs->reg.length = record_start;
        return error_oom("a registration record");
    }
    rs->reg_records++;
    if (rs->reg.data[record_start] != REC_STREAM_CLOSE)
        rs->reg_hash = XXH3_64bits_withSeed(rs->reg.data + record_start, hash_end - record_start,
                                            rs->reg_hash);
    atomic_store_explicit(&rs->reg_pending, 1, memory_order_release);
    if (rs->reg.length >= REPORT_REG_CHUNK_TARGET)
        status = report_flush_registrations(rs);
    return status;
}

size_t report_reg_begin(report_sink* rs, unsigned kind) {
    size_t start;
    pthread_mutex_lock(&rs->reg_mutex);
    start = rs->reg.length;
    if (rec_u8(&rs->reg, kind) != 0)
        rs->reg.length = start;
    return start;
}

/* The chunk of the last marker for (kind, domain); NULL when out of memory
 * (the marker is then written every time). */
static uint64_t* marker_slot(report_sink* rs, unsigned kind, uint64_t domain) {
    if (kind == REC_DOMAIN)
        return &rs->domain_marker;
    if (kind == REC_STREAM_OPEN)
        return &rs->stream_marker;
    if (domain >= rs->string_marker_count) {
        size_t count = rs->string_marker_count ? rs->string_marker_count : 8;
        uint64_t* grown;
        while (count <= domain)
            count *= 2;
        grown = nvtxw_reallocarray(rs->string_markers, count, sizeof *grown);
        if (grown == NULL)
            return NULL;
        memset(grown + rs->string_marker_count, 0,
               (count - rs->string_marker_count) * sizeof *grown);
        rs->string_markers = grown;
        rs->string_marker_count = count;
    }
    return &rs->string_markers[domain];
}

/* 0x7F, subkind 1, body: uvar kind, uvar domain, uvar index. */
static int index_marker(strbuf* b, unsigned kind, uint64_t domain, uint64_t index) {
    uint8_t body[3 * 10];
    size_t n = varint_put(body, kind);
    n += varint_put(body + n, domain);
    n += varint_put(body + n, index);
    return rec_u8(b, REC_EXTENSION) || rec_uvar(b, EXTENSION_INDEX_MARKER) || rec_bytes(b, body, n);
}

size_t report_reg_begin_at(report_sink* rs, unsigned kind, uint64_t domain, uint64_t index) {
    uint64_t* slot;
    size_t start;
    pthread_mutex_lock(&rs->reg_mutex);
    slot = marker_slot(rs, kind, domain);
    start = rs->reg.length;
    if (slot == NULL || *slot != rs->reg_chunk) {
        if (index_marker(&rs->reg, kind, domain, index) == 0) {
            if (slot != NULL) /* not counted: the chunk's count is of records read out */
                *slot = rs->reg_chunk;
        } else {
            rs->reg.length = start; /* the record fails too, below, or goes unmarked */
        }
    }
    start = rs->reg.length;
    if (rec_u8(&rs->reg, kind) != 0)
        rs->reg.length = start;
    return start;
}

nvtxwResultCode_t report_reg_finish(report_sink* rs, int build_status, size_t start) {
    nvtxwResultCode_t status;
    if (rs->reg.length == start) /* the kind byte itself failed */
        build_status = -1;
    status = reg_end(rs, build_status, start);
    pthread_mutex_unlock(&rs->reg_mutex);
    return status;
}

/* ---- Session ------------------------------------------------------------- */

static int session_record(report_sink* rs, const char* name, const core_config* config) {
    strbuf* b = &rs->reg;
    return rec_str(b, name) || rec_str(b, config->raw) || rec_u8(b, sizeof(void*)) ||
           rec_u8(b, sizeof(long)) || rec_u8(b, sizeof(wchar_t)) ||
           rec_u8(b, sizeof(long double)) || rec_u8(b, 1 /* little-endian */);
}

static nvtxwResultCode_t report_open(report_sink* rs, const core_config* config,
                                     const char* session_name) {
    container_options options;
    container_options_init(&options);
    options.overwrite = config->overwrite;
    options.session_name = session_name;
    if (config->share != NULL) {
        rs->writer = container_writer_create_shared(rs->path, &options, config->share);
        rs->reg_discard = config->share->rank != 0;
    } else {
        rs->writer = container_writer_create(rs->path, &options);
    }
    if (rs->writer == NULL)
        return NVTXW_RESULT_FAILED;
    rs->reg_encoder = container_encoder_create(rs->writer, rs->compression);
    return rs->reg_encoder ? NVTXW_RESULT_SUCCESS : NVTXW_RESULT_FAILED;
}

static void report_free(report_sink* rs) {
    report_plans_free(rs);
    strbuf_free(&rs->reg);
    nvtxw_free(rs->string_markers);
    pthread_mutex_destroy(&rs->reg_mutex);
    nvtxw_free(rs->path);
    nvtxw_free(rs);
}

static nvtxwResultCode_t report_create(const core_config* config, const char* session_name,
                                       sink** out) {
    report_sink* rs = nvtxw_calloc(1, sizeof *rs);
    nvtxwResultCode_t status;
    size_t start;
    if (rs == NULL)
        return error_oom("the report sink");
    rs->base.ops = &sink_report_ops;
    rs->compression = config->compression;
    rs->reg_chunk = 1; /* markers of chunk 0: none */
    pthread_mutex_init(&rs->reg_mutex, NULL);
    rs->path =
        config->output ? nvtxw_strdup(config->output) : sink_default_output(session_name, ".nvtxw");
    status = rs->path ? report_open(rs, config, session_name) : error_oom("the output path");
    if (status == NVTXW_RESULT_SUCCESS) {
        start = report_reg_begin(rs, REC_SESSION);
        status = report_reg_finish(rs, session_record(rs, session_name, config), start);
    }
    if (status == NVTXW_RESULT_SUCCESS) /* the session record in a chunk of its own */
        status = report_sync_registrations(rs);
    if (status == NVTXW_RESULT_SUCCESS)
        offload_pool_start(&rs->compressors, offload_thread_count(config));
    if (status != NVTXW_RESULT_SUCCESS) {
        if (rs->reg_encoder != NULL)
            container_encoder_destroy(rs->reg_encoder);
        if (rs->writer != NULL)
            container_writer_abort(rs->writer);
        report_free(rs);
        return status;
    }
    *out = &rs->base;
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t report_destroy(sink* s, int faulty) {
    report_sink* rs = (report_sink*)s;
    nvtxwResultCode_t status;
    offload_pool_stop(&rs->compressors); /* every stream is closed and drained */
    status = faulty ? NVTXW_RESULT_FAILED : report_flush_registrations(rs);
    container_encoder_destroy(rs->reg_encoder);
    container_writer_set_agreement(rs->writer, rs->reg_hash);
    if (status == NVTXW_RESULT_SUCCESS)
        status = container_writer_finish(rs->writer);
    else
        container_writer_abort(rs->writer);
    report_free(rs);
    return faulty ? NVTXW_RESULT_SUCCESS : status;
}

const sink_ops sink_report_ops = {
    .name = "report",
    .takes_share = 1,
    .create = report_create,
    .destroy = report_destroy,
    .domain_register = report_domain,
    .category_register = report_category,
    .string_register = report_string,
    .resource_register = report_resource,
    .scope_register = report_scope,
    .schema_register = report_schema,
    .enum_register = report_enum,
    .counter_register = report_counter,
    .time_domain_register = report_time_domain,
    .stream_open = report_stream_open,
    .stream_close = report_stream_close,
    .event_write = report_event_write,
    .counter_write = report_counter_write,
    .counter_no_value_write = report_counter_no_value_write,
    .sync_points_write = report_sync_points_write,
    .conversion_factor_write = report_conversion_factor_write,
    .stream_flush = report_stream_flush,
};
