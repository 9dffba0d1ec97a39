/*
 * core/write.c - the write path: EventWrite, EventBatchWrite, CounterWrite,
 * CounterNoValueWrite, CounterBatchWrite and the three time-sync calls.
 *
 * Concurrency: these run on many threads at once, one stream each. They
 * enter the stream's handle (one compare-and-swap: a second thread on the
 * same stream is refused, core_stream_enter), check the session's atomic
 * fault code, validate arguments and call the sink with the stream's own
 * state, then leave. No lock is taken here. Each public call is a wrapper:
 * enter, the checks and the sink call on the entered stream, leave.
 */
#include "config.h"

#include <string.h>

#include "common/error_internal.h"
#include "core/core_internal.h"

core_stream* core_stream_refuse_write(core_stream* stream, const char* call,
                                      nvtxwResultCode_t* status) {
    if (atomic_load_explicit(&stream->session->ending, memory_order_acquire))
        *status = error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                            "cannot %s: stream \"%s\" is closing: its session is ending", call,
                            stream->name);
    else
        *status = core_session_check(stream->session);
    core_stream_leave(stream);
    return NULL;
}

static const sink_ops* stream_ops(const core_stream* stream) { return stream->session->out->ops; }

static nvtxwResultCode_t not_supported(const core_stream* stream, const char* what) {
    return error_set(NVTXW_RESULT_NOT_SUPPORTED, "cannot write %s: the %s sink does not support it",
                     what, stream_ops(stream)->name);
}

static nvtxwResultCode_t event_write(core_stream* stream, const nvtxPayloadData_t* payloads,
                                     size_t count) {
    const sink_ops* ops = stream_ops(stream);
    core_event event;
    if (payloads == NULL || count == 0)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT, "cannot write event on stream \"%s\": %s",
                         stream->name, payloads == NULL ? "payloads is NULL" : "payloadCount is 0");
    if (ops->event_write == NULL)
        return not_supported(stream, "events");
    event.stream = stream;
    event.payloads = payloads;
    event.count = count;
    event.scope_id = NVTX_SCOPE_NONE;
    return core_session_sink_result(stream->session, ops->event_write(stream->sink_state, &event));
}

nvtxwResultCode_t core_event_write(nvtxwStreamHandle_t handle, const nvtxPayloadData_t* payloads,
                                   size_t count) {
    nvtxwResultCode_t status;
    core_stream* stream = core_stream_for_write(handle, "write event", &status);
    if (stream == NULL)
        return status;
    status = event_write(stream, payloads, count);
    core_stream_leave(stream);
    return status;
}

/* Bytes of the batch event at `data`: the static size, or the parsed size of
 * a dynamic schema. */
static nvtxwResultCode_t batch_event_size(const core_stream* stream, uint64_t schema_id,
                                          const unsigned char* data, size_t available,
                                          size_t* size) {
    const nvtxw_schema_t* schema =
        nvtxw_schema_registry_find_schema(stream->domain->schemas, schema_id);
    if (schema == NULL)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot write event batch on stream \"%s\": eventSchemaId=%llu is not "
                         "registered in domain \"%s\"",
                         stream->name, (unsigned long long)schema_id, stream->domain->name);
    if (!nvtxw_schema_is_variable_size(schema)) {
        *size = nvtxw_schema_static_size(schema);
        return NVTXW_RESULT_SUCCESS;
    }
    return nvtxw_payload_measure(stream->domain->schemas, schema_id, data, available, size);
}

static nvtxwResultCode_t batch_check(const core_stream* stream, const nvtxEventBatch_t* batch) {
    if (batch == NULL || batch->events == NULL || batch->size == 0)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot write event batch on stream \"%s\": %s", stream->name,
                         batch == NULL ? "eventBatch is NULL" : "the batch has no events");
    if (batch->flexData == NULL && batch->flexDataSize != 0)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot write event batch on stream \"%s\": flexData is NULL but "
                         "flexDataSize is %zu",
                         stream->name, batch->flexDataSize);
    if (batch->flexData != NULL &&
        (batch->flexDataOffset > SIZE_MAX - batch->flexDataSize ||
         batch->flexDataOffset + batch->flexDataSize > UINTPTR_MAX - (uintptr_t)batch->flexData))
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot write event batch on stream \"%s\": flexDataOffset %zu + "
                         "flexDataSize %zu overflows the address space",
                         stream->name, batch->flexDataOffset, batch->flexDataSize);
    if (!core_domain_scope_known(stream->domain, batch->scope))
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot write event batch on stream \"%s\": scope %llu is not "
                         "registered in domain \"%s\"%s",
                         stream->name, (unsigned long long)batch->scope, stream->domain->name,
                         core_scope_released_note(stream->domain, batch->scope));
    return stream_ops(stream)->event_write ? NVTXW_RESULT_SUCCESS
                                           : not_supported(stream, "event batches");
}

/* Walks the batch: each event is measured, then passed to `each` (0 to go
 * on). With `validate_only` the events are checked, not written, so a bad
 * event rejects the whole batch before anything reaches the sink. */
static nvtxwResultCode_t batch_walk(core_stream* stream, const nvtxEventBatch_t* batch,
                                    int validate_only) {
    nvtxPayloadData_t payloads[2];
    core_event event;
    core_event_facts facts;
    size_t offset = 0, index = 0, event_size = 0;
    nvtxwResultCode_t status = NVTXW_RESULT_SUCCESS;
    event.stream = stream;
    event.payloads = payloads;
    event.count = batch->flexData != NULL ? 2 : 1;
    event.scope_id = batch->scope;
    payloads[1].schemaId = NVTX_TYPE_PAYLOAD_SCHEMA_REFERENCED;
    /* Events may point into the usable region only: flexDataSize bytes from
     * flexDataOffset (spec 2.13). */
    payloads[1].size = batch->flexDataSize;
    payloads[1].payload =
        batch->flexData ? (const char*)batch->flexData + batch->flexDataOffset : NULL;
    for (; status == NVTXW_RESULT_SUCCESS && offset < batch->size; offset += event_size, index++) {
        const unsigned char* data = (const unsigned char*)batch->events + offset;
        status =
            batch_event_size(stream, batch->eventSchemaId, data, batch->size - offset, &event_size);
        if (status == NVTXW_RESULT_SUCCESS &&
            (event_size == 0 || event_size > batch->size - offset))
            return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                             "cannot write event batch on stream \"%s\": event %zu at offset %zu "
                             "needs %zu bytes, %zu remain",
                             stream->name, index, offset, event_size, batch->size - offset);
        payloads[0].schemaId = batch->eventSchemaId;
        payloads[0].size = event_size;
        payloads[0].payload = data;
        if (status == NVTXW_RESULT_SUCCESS && validate_only)
            status =
                core_event_visit(&event, NULL, NULL, NVTXW_VISIT_ALLOW_FOREIGN_POINTERS, &facts);
        else if (status == NVTXW_RESULT_SUCCESS)
            status = core_session_sink_result(
                stream->session, stream_ops(stream)->event_write(stream->sink_state, &event));
    }
    return status;
}

nvtxwResultCode_t core_event_batch_write(nvtxwStreamHandle_t handle,
                                         const nvtxEventBatch_t* batch) {
    nvtxwResultCode_t status;
    core_stream* stream = core_stream_for_write(handle, "write event batch", &status);
    if (stream == NULL)
        return status;
    if ((status = batch_check(stream, batch)) == NVTXW_RESULT_SUCCESS &&
        (status = batch_walk(stream, batch, 1)) == NVTXW_RESULT_SUCCESS)
        status = batch_walk(stream, batch, 0);
    core_stream_leave(stream);
    return status;
}

/* The counter of a sample write on an entered stream; NULL with the message
 * set when it is not registered. */
static const core_counter* sample_counter(const core_stream* stream, uint64_t id) {
    const core_counter* counter = core_domain_counter(stream->domain, id);
    if (counter == NULL)
        error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                  "cannot write counter sample on stream \"%s\": counter %llu is not registered in "
                  "domain \"%s\"",
                  stream->name, (unsigned long long)id, stream->domain->name);
    return counter;
}

static nvtxwResultCode_t counter_write(core_stream* stream, int64_t timestamp, uint64_t counter_id,
                                       const void* data, size_t size) {
    const core_counter* counter = sample_counter(stream, counter_id);
    if (counter == NULL)
        return NVTXW_RESULT_INVALID_ARGUMENT;
    if (data == NULL || size != counter->sample_size)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot write counter sample on stream \"%s\": counter \"%s\" takes "
                         "%zu-byte samples, got %s of %zu bytes",
                         stream->name, counter->name, counter->sample_size,
                         data ? "data" : "NULL data", size);
    if (stream_ops(stream)->counter_write == NULL)
        return not_supported(stream, "counter samples");
    return core_session_sink_result(
        stream->session,
        stream_ops(stream)->counter_write(stream->sink_state, timestamp, counter, data, size));
}

nvtxwResultCode_t core_counter_write(nvtxwStreamHandle_t handle, int64_t timestamp,
                                     uint64_t counter_id, const void* data, size_t size) {
    nvtxwResultCode_t status;
    core_stream* stream = core_stream_for_write(handle, "write counter sample", &status);
    if (stream == NULL)
        return status;
    status = counter_write(stream, timestamp, counter_id, data, size);
    core_stream_leave(stream);
    return status;
}

static nvtxwResultCode_t counter_no_value_write(core_stream* stream, int64_t timestamp,
                                                uint64_t counter_id, uint8_t reason) {
    const core_counter* counter = sample_counter(stream, counter_id);
    if (counter == NULL)
        return NVTXW_RESULT_INVALID_ARGUMENT;
    if (reason > NVTX_COUNTER_SAMPLE_UNAVAILABLE)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot write counter sample on stream \"%s\": reason %u is not "
                         "ZERO (0), UNCHANGED (1) or UNAVAILABLE (2)",
                         stream->name, (unsigned)reason);
    if (stream_ops(stream)->counter_no_value_write == NULL)
        return not_supported(stream, "counter samples without value");
    return core_session_sink_result(
        stream->session,
        stream_ops(stream)->counter_no_value_write(stream->sink_state, timestamp, counter, reason));
}

nvtxwResultCode_t core_counter_no_value_write(nvtxwStreamHandle_t handle, int64_t timestamp,
                                              uint64_t counter_id, uint8_t reason) {
    nvtxwResultCode_t status;
    core_stream* stream = core_stream_for_write(handle, "write counter sample", &status);
    if (stream == NULL)
        return status;
    status = counter_no_value_write(stream, timestamp, counter_id, reason);
    core_stream_leave(stream);
    return status;
}
