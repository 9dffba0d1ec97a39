/*
 * sink/backend/backend_write.c - Sink=backend: streams and the write path.
 *
 * An event is validated by walking it (core_event_visit), then forwarded
 * with its payload schema IDs translated. Payloads that can hold references
 * (a registered schema, or the predefined string-handle and scope-ID types)
 * are copied into the stream's buffer and rewritten by remap_event_patch:
 * string handles, SCOPE_ID values and POINTERs into the event's payloads.
 * Other payloads are passed as the producer gave them. An event of an
 * EventBatchWrite with a default scope is forwarded as a one-event
 * EventBatchWrite carrying that scope (and its flexData); every other event
 * as EventWrite. Counter batches arrive split into samples (core) and go
 * out as CounterWrite calls; single sync points arrive as one-point tables
 * and go out as TimeSyncPointTableWrite (or TimeSyncPointWrite per point
 * when the target lacks the table member).
 *
 * Concurrency: nothing here is shared between streams except the
 * registration maps, which no one writes while events are written.
 */
#include "config.h"

#include <string.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "sink/backend/backend_internal.h"

#define COPY_ALIGN 16

static void stream_free(backend_stream* bs) {
    nvtxw_free(bs->bytes);
    nvtxw_free(bs->copies);
    nvtxw_free(bs->source_ids);
    nvtxw_free(bs->origins);
    nvtxw_free(bs);
}

nvtxwResultCode_t backend_stream_open(sink* s, const core_stream* stream, void** state) {
    backend_sink* b = (backend_sink*)s;
    backend_stream* bs;
    nvtxwStreamAttributes_t attr;
    nvtxwResultCode_t status;
    if (b->t->StreamOpen == NULL)
        return backend_missing(b, "StreamOpen");
    bs = nvtxw_calloc(1, sizeof *bs);
    if (bs == NULL)
        return error_oom("a backend stream");
    bs->owner = b;
    bs->domain = backend_domain(b, stream->domain);
    bs->registry = stream->domain->schemas;
    memset(&attr, 0, sizeof attr);
    attr.structSize = sizeof attr;
    attr.name = stream->name;
    attr.domain = bs->domain->handle;
    attr.scopeId = remap_id(&bs->domain->scopes, stream->scope_id);
    attr.timeDomainId = remap_id(&bs->domain->time_domains, stream->time_domain_id);
    attr.orderInterleaving = stream->order_interleaving;
    attr.orderingType = stream->ordering_type;
    attr.orderingSkid = stream->ordering_skid;
    attr.orderingSkidAmount = stream->ordering_skid_amount;
    status = b->t->StreamOpen(b->session, &attr, &bs->target);
    if (status != NVTXW_RESULT_SUCCESS) {
        stream_free(bs);
        return backend_result(b, "StreamOpen", status);
    }
    *state = bs;
    return NVTXW_RESULT_SUCCESS;
}

/* Also called by SessionEnd for streams still open: the target then sees
 * their StreamClose right before its SessionEnd. */
nvtxwResultCode_t backend_stream_close(sink* s, const core_stream* stream, void* state) {
    backend_sink* b = (backend_sink*)s;
    backend_stream* bs = state;
    nvtxwResultCode_t status;
    (void)stream;
    status = b->t->StreamClose != NULL
                 ? backend_result(b, "StreamClose", b->t->StreamClose(bs->target))
                 : backend_missing(b, "StreamClose");
    stream_free(bs);
    return status;
}

/* ---- Events ---------------------------------------------------------------- */

/* Non-zero when the payload may hold references to translate. A SIZE_MAX
 * payload is a predefined C string (the core checked it): nothing to do. */
static int needs_copy(const backend_stream* bs, const nvtxPayloadData_t* p) {
    if (p->size == SIZE_MAX)
        return 0;
    return p->schemaId == NVTX_PAYLOAD_ENTRY_TYPE_NVTX_REGISTERED_STRING_HANDLE ||
           p->schemaId == NVTX_PAYLOAD_ENTRY_TYPE_SCOPE_ID ||
           nvtxw_schema_registry_find_schema(bs->registry, p->schemaId) != NULL;
}

/* Grows the stream's buffers for `count` payloads and `bytes` copied bytes. */
static int stream_reserve(backend_stream* bs, size_t count, size_t bytes) {
    if (count > bs->slots_capacity) {
        nvtxPayloadData_t* copies = nvtxw_reallocarray(bs->copies, count, sizeof *copies);
        uint64_t *ids, *origins;
        if (copies != NULL)
            bs->copies = copies;
        ids = nvtxw_reallocarray(bs->source_ids, count, sizeof *ids);
        if (ids != NULL)
            bs->source_ids = ids;
        origins = nvtxw_reallocarray(bs->origins, count, sizeof *origins);
        if (origins != NULL)
            bs->origins = origins;
        if (copies == NULL || ids == NULL || origins == NULL)
            return -1;
        bs->slots_capacity = count;
    }
    if (bytes > bs->bytes_capacity) {
        unsigned char* grown = nvtxw_realloc(bs->bytes, bytes);
        if (grown == NULL)
            return -1;
        bs->bytes = grown;
        bs->bytes_capacity = bytes;
    }
    return 0;
}

/* Bytes of the copies, each starting COPY_ALIGN-aligned; SIZE_MAX on overflow. */
static size_t copy_bytes(const backend_stream* bs, const core_event* event) {
    size_t total = 0, i;
    for (i = 0; i < event->count; i++) {
        size_t size = event->payloads[i].size;
        if (!needs_copy(bs, &event->payloads[i]))
            continue;
        if (size > SIZE_MAX - COPY_ALIGN - total)
            return SIZE_MAX;
        total += (size + COPY_ALIGN - 1) / COPY_ALIGN * COPY_ALIGN;
    }
    return total;
}

/* Fills bs->copies with the event as the target must see it. */
static nvtxwResultCode_t stream_translate(backend_stream* bs, const core_event* event) {
    size_t total = copy_bytes(bs, event), at = 0, i;
    remap_event ev;
    if (total == SIZE_MAX || stream_reserve(bs, event->count, total) != 0)
        return error_oom("a forwarded event");
    for (i = 0; i < event->count; i++) {
        const nvtxPayloadData_t* p = &event->payloads[i];
        bs->copies[i] = *p;
        bs->copies[i].schemaId = remap_id(&bs->domain->schemas, p->schemaId);
        bs->source_ids[i] = 0; /* not a copy: remap_event_patch leaves it alone */
        bs->origins[i] = 0;
        if (!needs_copy(bs, p))
            continue;
        memcpy(bs->bytes + at, p->payload, p->size);
        bs->copies[i].payload = bs->bytes + at;
        bs->source_ids[i] = p->schemaId;
        bs->origins[i] = (uint64_t)(uintptr_t)p->payload;
        at += (p->size + COPY_ALIGN - 1) / COPY_ALIGN * COPY_ALIGN;
    }
    ev.domain = bs->domain;
    ev.registry = bs->registry;
    ev.source_ids = bs->source_ids;
    ev.origins = bs->origins;
    ev.copies = bs->copies;
    ev.count = event->count;
    remap_event_patch(&ev);
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t forward_batch_event(backend_stream* bs, const core_event* event) {
    const nvtxwInterface_t* t = bs->owner->t;
    nvtxEventBatch_t batch;
    memset(&batch, 0, sizeof batch);
    batch.eventSchemaId = bs->copies[0].schemaId;
    batch.size = bs->copies[0].size;
    batch.events = bs->copies[0].payload;
    batch.scope = remap_id(&bs->domain->scopes, event->scope_id);
    if (event->count == 2) {
        batch.flexData = bs->copies[1].payload;
        batch.flexDataSize = bs->copies[1].size;
    }
    return backend_result(bs->owner, "EventBatchWrite", t->EventBatchWrite(bs->target, &batch));
}

nvtxwResultCode_t backend_event_write(void* state, const core_event* event) {
    backend_stream* bs = state;
    const nvtxwInterface_t* t = bs->owner->t;
    int batch = event->scope_id != NVTX_SCOPE_NONE;
    core_event_facts facts;
    nvtxwResultCode_t status =
        core_event_visit(event, NULL, NULL, NVTXW_VISIT_ALLOW_FOREIGN_POINTERS, &facts);
    if (status != NVTXW_RESULT_SUCCESS)
        return status;
    if (batch ? t->EventBatchWrite == NULL : t->EventWrite == NULL)
        return backend_missing(bs->owner, batch ? "EventBatchWrite" : "EventWrite");
    if ((status = stream_translate(bs, event)) != NVTXW_RESULT_SUCCESS)
        return status;
    if (batch)
        return forward_batch_event(bs, event);
    return backend_result(bs->owner, "EventWrite",
                          t->EventWrite(bs->target, bs->copies, event->count));
}

/* ---- Counters and clocks --------------------------------------------------- */

nvtxwResultCode_t backend_counter_write(void* state, int64_t timestamp, const core_counter* counter,
                                        const void* data, size_t size) {
    backend_stream* bs = state;
    const nvtxwInterface_t* t = bs->owner->t;
    if (t->CounterWrite == NULL)
        return backend_missing(bs->owner, "CounterWrite");
    return backend_result(bs->owner, "CounterWrite",
                          t->CounterWrite(bs->target, timestamp,
                                          remap_id(&bs->domain->counters, counter->id), data,
                                          size));
}

nvtxwResultCode_t backend_counter_no_value_write(void* state, int64_t timestamp,
                                                 const core_counter* counter, uint8_t reason) {
    backend_stream* bs = state;
    const nvtxwInterface_t* t = bs->owner->t;
    if (t->CounterNoValueWrite == NULL)
        return backend_missing(bs->owner, "CounterNoValueWrite");
    return backend_result(bs->owner, "CounterNoValueWrite",
                          t->CounterNoValueWrite(bs->target, timestamp,
                                                 remap_id(&bs->domain->counters, counter->id),
                                                 reason));
}

nvtxwResultCode_t backend_sync_points_write(void* state, uint64_t src, uint64_t dst,
                                            const nvtxSyncPoint_t* points, size_t count) {
    backend_stream* bs = state;
    const nvtxwInterface_t* t = bs->owner->t;
    nvtxwResultCode_t status = NVTXW_RESULT_SUCCESS;
    size_t i;
    src = remap_id(&bs->domain->time_domains, src);
    dst = remap_id(&bs->domain->time_domains, dst);
    if (t->TimeSyncPointTableWrite != NULL)
        return backend_result(bs->owner, "TimeSyncPointTableWrite",
                              t->TimeSyncPointTableWrite(bs->target, src, dst, points, count));
    if (t->TimeSyncPointWrite == NULL)
        return backend_missing(bs->owner, "TimeSyncPointTableWrite");
    for (i = 0; i < count && status == NVTXW_RESULT_SUCCESS; i++)
        status = backend_result(
            bs->owner, "TimeSyncPointWrite",
            t->TimeSyncPointWrite(bs->target, src, dst, points[i].src, points[i].dst));
    return status;
}

/* A backend without libnvtxw's extension has no buffers to give back. */
nvtxwResultCode_t backend_stream_flush(void* state) {
    backend_stream* bs = state;
    if (!NVTXW_EXTENSION_HAS(bs->owner->ext, StreamFlush))
        return NVTXW_RESULT_SUCCESS;
    return backend_result(bs->owner, "StreamFlush", bs->owner->ext->StreamFlush(bs->target));
}

nvtxwResultCode_t backend_conversion_factor_write(void* state, uint64_t src, uint64_t dst,
                                                  double slope, int64_t ts_src, int64_t ts_dst) {
    backend_stream* bs = state;
    const nvtxwInterface_t* t = bs->owner->t;
    if (t->TimestampConversionFactorWrite == NULL)
        return backend_missing(bs->owner, "TimestampConversionFactorWrite");
    return backend_result(bs->owner, "TimestampConversionFactorWrite",
                          t->TimestampConversionFactorWrite(
                              bs->target, remap_id(&bs->domain->time_domains, src),
                              remap_id(&bs->domain->time_domains, dst), slope, ts_src, ts_dst));
}
