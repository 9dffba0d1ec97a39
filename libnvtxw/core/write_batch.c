/*
 * core/write_batch.c - CounterBatchWrite and the time-sync calls
 * (TimeSyncPointWrite, TimeSyncPointTableWrite,
 * TimestampConversionFactorWrite). Write path: no locks; each call enters
 * and leaves its stream as in write.c.
 *
 * A counter batch is split into samples of the counter's sample size
 * (spec 2.15). Timestamps come from the `timestamps` array (one per sample)
 * or, when it is NULL, from the TIMESTAMP entry of the counter's schema.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "common/error_internal.h"
#include "core/core_internal.h"

static nvtxwResultCode_t counter_batch_check(const core_stream* stream,
                                             const nvtxCounterBatch_t* batch,
                                             const core_counter** counter, size_t* samples) {
    if (batch == NULL || batch->counters == NULL)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot write counter batch on stream \"%s\": %s", stream->name,
                         batch ? "counters is NULL" : "counterBatch is NULL");
    *counter = core_domain_counter(stream->domain, batch->counterId);
    if (*counter == NULL)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot write counter batch on stream \"%s\": counter %llu is not "
                         "registered in domain \"%s\"",
                         stream->name, (unsigned long long)batch->counterId, stream->domain->name);
    if (batch->countersSize == 0 || batch->countersSize % (*counter)->sample_size != 0)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot write counter batch on stream \"%s\": countersSize %zu is not a "
                         "non-zero multiple of counter \"%s\"'s %zu-byte samples",
                         stream->name, batch->countersSize, (*counter)->name,
                         (*counter)->sample_size);
    *samples = batch->countersSize / (*counter)->sample_size;
    if (batch->timestamps != NULL && batch->timestampsSize < *samples * sizeof(int64_t))
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot write counter batch on stream \"%s\": %zu samples but "
                         "timestampsSize %zu holds %zu timestamps",
                         stream->name, *samples, batch->timestampsSize,
                         batch->timestampsSize / sizeof(int64_t));
    if (stream->session->out->ops->counter_write == NULL)
        return error_set(NVTXW_RESULT_NOT_SUPPORTED,
                         "cannot write counter batch: the %s sink does not support counters",
                         stream->session->out->ops->name);
    return NVTXW_RESULT_SUCCESS;
}

/* The TIMESTAMP entry of a sample whose schema carries its own time. */
static nvtxwResultCode_t sample_timestamp(const core_stream* stream, const core_counter* counter,
                                          const void* sample, int64_t* timestamp) {
    nvtxPayloadData_t payload;
    core_event event;
    core_event_facts facts;
    nvtxwResultCode_t status;
    payload.schemaId = counter->schema_id;
    payload.size = counter->sample_size;
    payload.payload = sample;
    event.stream = stream;
    event.payloads = &payload;
    event.count = 1;
    event.scope_id = NVTX_SCOPE_NONE;
    status = core_event_visit(&event, NULL, NULL, 0, &facts);
    if (status == NVTXW_RESULT_SUCCESS && !facts.has_timestamp)
        status = error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                           "cannot write counter batch on stream \"%s\": timestamps is NULL and "
                           "the samples of counter \"%s\" carry no TIMESTAMP entry",
                           stream->name, counter->name);
    *timestamp = facts.timestamp;
    return status;
}

static nvtxwResultCode_t counter_batch_write(core_stream* stream, const nvtxCounterBatch_t* batch) {
    const core_counter* counter = NULL;
    size_t samples = 0, i;
    nvtxwResultCode_t status = counter_batch_check(stream, batch, &counter, &samples);
    for (i = 0; status == NVTXW_RESULT_SUCCESS && i < samples; i++) {
        const unsigned char* sample =
            (const unsigned char*)batch->counters + i * counter->sample_size;
        int64_t timestamp;
        if (batch->timestamps != NULL)
            memcpy(&timestamp, &batch->timestamps[i], sizeof timestamp);
        else if ((status = sample_timestamp(stream, counter, sample, &timestamp)) != 0)
            break;
        status = core_session_sink_result(
            stream->session,
            stream->session->out->ops->counter_write(stream->sink_state, timestamp, counter, sample,
                                                     counter->sample_size));
    }
    return status;
}

nvtxwResultCode_t core_counter_batch_write(nvtxwStreamHandle_t handle,
                                           const nvtxCounterBatch_t* batch) {
    nvtxwResultCode_t status;
    core_stream* stream = core_stream_for_write(handle, "write counter batch", &status);
    if (stream == NULL)
        return status;
    status = counter_batch_write(stream, batch);
    core_stream_leave(stream);
    return status;
}

/* Both clocks known in the stream's domain and distinct. */
static nvtxwResultCode_t sync_check(const core_stream* stream, uint64_t src, uint64_t dst) {
    const core_domain* domain = stream->domain;
    uint64_t bad = !core_domain_time_domain_known(domain, src) ? src : dst;
    if (!core_domain_time_domain_known(domain, src) || !core_domain_time_domain_known(domain, dst))
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot write time sync on stream \"%s\": time domain %llu is neither a "
                         "timestamp type nor registered in domain \"%s\"",
                         stream->name, (unsigned long long)bad, domain->name);
    if (src == dst || src == NVTX_TIME_DOMAIN_ID_NONE || dst == NVTX_TIME_DOMAIN_ID_NONE)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot write time sync on stream \"%s\": needs two distinct clocks, got "
                         "%llu and %llu",
                         stream->name, (unsigned long long)src, (unsigned long long)dst);
    if (stream->session->out->ops->sync_points_write == NULL)
        return error_set(NVTXW_RESULT_NOT_SUPPORTED,
                         "cannot write time sync: the %s sink does not support it",
                         stream->session->out->ops->name);
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t sync_table_write(core_stream* stream, uint64_t domain_src,
                                          uint64_t domain_dst, const nvtxSyncPoint_t* points,
                                          size_t count) {
    nvtxwResultCode_t status;
    if (points == NULL || count == 0)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot write time sync table on stream \"%s\": %s", stream->name,
                         points ? "count is 0" : "syncPoints is NULL");
    if ((status = sync_check(stream, domain_src, domain_dst)) != NVTXW_RESULT_SUCCESS)
        return status;
    return core_session_sink_result(stream->session,
                                    stream->session->out->ops->sync_points_write(
                                        stream->sink_state, domain_src, domain_dst, points, count));
}

nvtxwResultCode_t core_time_sync_table_write(nvtxwStreamHandle_t handle, uint64_t domain_src,
                                             uint64_t domain_dst, const nvtxSyncPoint_t* points,
                                             size_t count) {
    nvtxwResultCode_t status;
    core_stream* stream = core_stream_for_write(handle, "write time sync table", &status);
    if (stream == NULL)
        return status;
    status = sync_table_write(stream, domain_src, domain_dst, points, count);
    core_stream_leave(stream);
    return status;
}

nvtxwResultCode_t core_time_sync_point_write(nvtxwStreamHandle_t handle, uint64_t domain1,
                                             uint64_t domain2, int64_t timestamp1,
                                             int64_t timestamp2) {
    nvtxSyncPoint_t point;
    point.src = timestamp1;
    point.dst = timestamp2;
    return core_time_sync_table_write(handle, domain1, domain2, &point, 1);
}

static nvtxwResultCode_t conversion_factor_write(core_stream* stream, uint64_t domain_src,
                                                 uint64_t domain_dst, double slope,
                                                 int64_t timestamp_src, int64_t timestamp_dst) {
    nvtxwResultCode_t status;
    if (!isfinite(slope) || slope <= 0.0)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot write conversion factor on stream \"%s\": slope %g is not a "
                         "positive finite number",
                         stream->name, slope);
    if ((status = sync_check(stream, domain_src, domain_dst)) != NVTXW_RESULT_SUCCESS)
        return status;
    if (stream->session->out->ops->conversion_factor_write == NULL)
        return error_set(NVTXW_RESULT_NOT_SUPPORTED,
                         "cannot write conversion factor: the %s sink does not support it",
                         stream->session->out->ops->name);
    return core_session_sink_result(
        stream->session,
        stream->session->out->ops->conversion_factor_write(
            stream->sink_state, domain_src, domain_dst, slope, timestamp_src, timestamp_dst));
}

/* libnvtxw's StreamFlush (nvtxw/extension.h): a sink without a flush has
 * nothing to write out early. */
nvtxwResultCode_t core_stream_flush(nvtxwStreamHandle_t handle) {
    nvtxwResultCode_t status;
    core_stream* stream = core_stream_for_write(handle, "flush stream", &status);
    if (stream == NULL)
        return status;
    status =
        stream->session->out->ops->stream_flush == NULL
            ? NVTXW_RESULT_SUCCESS
            : core_session_sink_result(stream->session,
                                       stream->session->out->ops->stream_flush(stream->sink_state));
    core_stream_leave(stream);
    return status;
}

nvtxwResultCode_t core_conversion_factor_write(nvtxwStreamHandle_t handle, uint64_t domain_src,
                                               uint64_t domain_dst, double slope,
                                               int64_t timestamp_src, int64_t timestamp_dst) {
    nvtxwResultCode_t status;
    core_stream* stream = core_stream_for_write(handle, "write conversion factor", &status);
    if (stream == NULL)
        return status;
    status = conversion_factor_write(stream, domain_src, domain_dst, slope, timestamp_src,
                                     timestamp_dst);
    core_stream_leave(stream);
    return status;
}
