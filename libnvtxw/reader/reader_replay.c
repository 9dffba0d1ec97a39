/*
 * reader/reader_replay.c - nvtxw_reader_replay: every remaining record of a
 * report as calls of an NVTXW v2 table, so any report can go to any sink or
 * backend. Registrations map IDs (reader_replay_regs.c); events are replayed
 * from copies of their payloads with schema IDs mapped and string handles,
 * scope IDs and pointers rewritten (remap_event_patch, payload/remap.h).
 */
#include "config.h"

#include <string.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "reader/reader_replay.h"

void* replay_scratch_alloc(void* st, size_t size) {
    return reader_arena_alloc(&((replay_state*)st)->scratch, size);
}

static nvtxwResultCode_t replay_event(replay_state* st, nvtxwStreamHandle_t stream,
                                      const nvtxw_record_t* rec) {
    const replay_domain* d = &st->domains[rec->domain];
    size_t n = rec->u.event.count, i;
    nvtxPayloadData_t* copies = reader_arena_alloc(&st->scratch, n * sizeof *copies);
    uint64_t* ids = reader_arena_alloc(&st->scratch, n * sizeof *ids);
    remap_event ev;
    if (copies == NULL || ids == NULL)
        return error_oom("an event");
    for (i = 0; i < n; i++) {
        const nvtxPayloadData_t* src = &rec->u.event.payloads[i];
        void* bytes = reader_arena_alloc(&st->scratch, src->size);
        if (bytes == NULL)
            return error_oom("an event");
        memcpy(bytes, src->payload, src->size);
        ids[i] = src->schemaId;
        copies[i].schemaId = remap_id(&d->schemas, src->schemaId);
        copies[i].size = src->size;
        copies[i].payload = bytes;
    }
    ev.domain = d;
    ev.registry = nvtxw_reader_registry(st->reader, rec->domain);
    ev.source_ids = ids;
    ev.origins = rec->u.event.origins;
    ev.copies = copies;
    ev.count = n;
    remap_event_patch(&ev);
    if (rec->u.event.has_scope && n >= 1 && n <= 2) {
        nvtxEventBatch_t batch;
        memset(&batch, 0, sizeof batch);
        batch.eventSchemaId = copies[0].schemaId;
        batch.size = copies[0].size;
        batch.events = copies[0].payload;
        batch.scope = remap_id(&d->scopes, rec->u.event.scope);
        if (n == 2) {
            batch.flexData = copies[1].payload;
            batch.flexDataSize = copies[1].size;
        }
        return st->t->EventBatchWrite(stream, &batch);
    }
    return st->t->EventWrite(stream, copies, n);
}

static nvtxwResultCode_t replay_stream_record(replay_state* st, const nvtxw_record_t* rec) {
    nvtxwStreamHandle_t stream = rec->stream < st->stream_count ? st->streams[rec->stream] : NULL;
    const replay_domain* d;
    if (stream == NULL || rec->domain >= st->domain_count)
        return error_set(NVTXW_RESULT_FAILED, "stream %llu is not open",
                         (unsigned long long)rec->stream);
    d = &st->domains[rec->domain];
    switch (rec->kind) {
    case NVTXW_RECORD_EVENT:
        return replay_event(st, stream, rec);
    case NVTXW_RECORD_COUNTER_SAMPLE:
        return st->t->CounterWrite(stream, rec->timestamp,
                                   remap_id(&d->counters, rec->u.counter_sample.counter_id),
                                   rec->u.counter_sample.data, rec->u.counter_sample.size);
    case NVTXW_RECORD_COUNTER_NO_VALUE:
        return st->t->CounterNoValueWrite(
            stream, rec->timestamp, remap_id(&d->counters, rec->u.counter_no_value.counter_id),
            rec->u.counter_no_value.reason);
    case NVTXW_RECORD_SYNC_POINTS:
        return st->t->TimeSyncPointTableWrite(
            stream, remap_id(&d->time_domains, rec->u.sync_points.src_domain),
            remap_id(&d->time_domains, rec->u.sync_points.dst_domain), rec->u.sync_points.points,
            rec->u.sync_points.count);
    case NVTXW_RECORD_CONVERSION_FACTOR:
        return st->t->TimestampConversionFactorWrite(
            stream, remap_id(&d->time_domains, rec->u.conversion_factor.src_domain),
            remap_id(&d->time_domains, rec->u.conversion_factor.dst_domain),
            rec->u.conversion_factor.slope, rec->u.conversion_factor.timestamp_src,
            rec->u.conversion_factor.timestamp_dst);
    default:
        return replay_registration(st, rec);
    }
}

static nvtxwResultCode_t replay_one(replay_state* st, const nvtxw_record_t* rec) {
    nvtxwResultCode_t status;
    reader_arena_reset(&st->scratch);
    if (rec->kind != NVTXW_RECORD_SESSION && st->session == NULL)
        status = error_set(NVTXW_RESULT_FAILED, "no session record before it");
    else if (rec->kind >= NVTXW_RECORD_EVENT)
        status = replay_stream_record(st, rec);
    else
        status = replay_registration(st, rec);
    if (status != NVTXW_RESULT_SUCCESS)
        error_prefix("cannot replay record %llu (kind 0x%02x, stream %lld)",
                     (unsigned long long)nvtxw_reader_record_count(st->reader), (unsigned)rec->kind,
                     rec->stream == NVTXW_READER_NONE ? -1LL : (long long)rec->stream);
    return status;
}

static nvtxwResultCode_t close_streams(replay_state* st) {
    size_t s;
    for (s = 0; s < st->stream_count; s++) {
        if (st->closing[s] && st->streams[s] != NULL) {
            nvtxwResultCode_t status = st->t->StreamClose(st->streams[s]);
            st->streams[s] = NULL;
            if (status != NVTXW_RESULT_SUCCESS) {
                error_prefix("cannot replay the close of stream %zu", s);
                return status;
            }
        }
    }
    return NVTXW_RESULT_SUCCESS;
}

static void replay_free(replay_state* st) {
    size_t i;
    for (i = 0; i < st->domain_count; i++)
        remap_domain_clear(&st->domains[i]);
    nvtxw_free(st->domains);
    nvtxw_free(st->streams);
    nvtxw_free(st->closing);
    reader_arena_reset(&st->scratch);
}

nvtxwResultCode_t nvtxw_reader_replay(nvtxw_reader_t* reader, const nvtxwInterface_t* iface,
                                      const char* config, uint64_t* records_out) {
    replay_state st;
    nvtxwResultCode_t status = NVTXW_RESULT_SUCCESS, end;
    uint64_t replayed = 0;
    const nvtxw_record_t* rec = NULL;
    if (records_out != NULL)
        *records_out = 0;
    if (reader == NULL || iface == NULL)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT, "cannot replay report: reader=%p, iface=%p",
                         (void*)reader, (const void*)iface);
    memset(&st, 0, sizeof st);
    st.reader = reader;
    st.t = iface;
    st.config = config;
    st.stream_count = nvtxw_reader_stream_count(reader);
    st.streams = nvtxw_calloc(st.stream_count + 1, sizeof *st.streams);
    st.closing = nvtxw_calloc(st.stream_count + 1, sizeof *st.closing);
    if (st.streams == NULL || st.closing == NULL) {
        status = error_oom("the replay streams");
        goto end;
    }
    while ((status = nvtxw_reader_next(reader, &rec)) == NVTXW_RESULT_SUCCESS && rec != NULL) {
        status = replay_one(&st, rec);
        if (status != NVTXW_RESULT_SUCCESS)
            break;
        replayed++;
    }
    if (status == NVTXW_RESULT_SUCCESS)
        status = close_streams(&st);
end:
    if (st.session != NULL) {
        end = iface->SessionEnd(st.session);
        if (status == NVTXW_RESULT_SUCCESS && end != NVTXW_RESULT_SUCCESS) {
            status = end;
            error_prefix("cannot end the replayed session");
        }
    }
    replay_free(&st);
    if (records_out != NULL)
        *records_out = replayed;
    return status;
}
