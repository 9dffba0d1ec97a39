/*
 * reader/reader_replay.c - nvtxw_reader_replay and nvtxw_reader_replay_many:
 * every remaining record of one or several reports as calls of an NVTXW v2
 * table, so any report can go to any sink or backend, and partial reports
 * (DESIGN.md section 8) merge into one. Registrations map IDs
 * (reader_replay_regs.c) and are unified across inputs
 * (reader_replay_merge.c); events are replayed from copies of their payloads
 * with schema IDs mapped and string handles, scope IDs and pointers
 * rewritten (remap_event_patch, payload/remap.h).
 *
 * Order: phase 1 replays the registration log of every input, input after
 * input, and leaves each reader on its first stream record (its "head",
 * borrowed until that reader's next call); phase 2 drains the heads input
 * after input, or by smallest (timestamp, input) for time order, where a
 * record without a timestamp takes its input's last time.
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
    const replay_domain* d = &st->in->domains[rec->domain];
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
    ev.registry = nvtxw_reader_registry(st->in->reader, rec->domain);
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

/* A stream record of st->in; records of streams the filters dropped, and
 * records outside the time window, are skipped (*kept = 0). */
static nvtxwResultCode_t replay_stream_record(replay_state* st, const nvtxw_record_t* rec,
                                              int* kept) {
    replay_input* in = st->in;
    int state = rec->stream < in->stream_count ? in->stream_state[rec->stream] : 0;
    nvtxwStreamHandle_t stream = state == REPLAY_STREAM_OPEN ? in->streams[rec->stream] : NULL;
    const replay_domain* d;
    *kept = 0;
    if (state == REPLAY_STREAM_SKIPPED)
        return NVTXW_RESULT_SUCCESS;
    if (stream == NULL || rec->domain >= in->domain_count)
        return error_set(NVTXW_RESULT_FAILED, "stream %llu is not open",
                         (unsigned long long)rec->stream);
    if ((*kept = replay_window_keep(st, in, rec)) <= 0)
        return *kept < 0 ? error_oom("the range stack") : NVTXW_RESULT_SUCCESS;
    d = &in->domains[rec->domain];
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
        return error_set(NVTXW_RESULT_FAILED, "record kind %d is not a stream record",
                         (int)rec->kind);
    }
}

/* Records between two calls of opts.should_stop. */
#define REPLAY_STOP_POLL 1024

nvtxwResultCode_t replay_one(replay_state* st, replay_input* in, const nvtxw_record_t* rec) {
    nvtxwResultCode_t status;
    int kept = 1;
    if (st->opts.should_stop != NULL && st->polled++ % REPLAY_STOP_POLL == 0 &&
        st->opts.should_stop(st->opts.stop_context))
        return error_set(NVTXW_RESULT_FAILED, "replay stopped by the caller after %llu records",
                         (unsigned long long)st->replayed);
    st->in = in;
    reader_arena_rewind(&st->scratch); /* keeps one block: no malloc per record */
    if (rec->kind != NVTXW_RECORD_SESSION && st->session == NULL)
        status = error_set(NVTXW_RESULT_FAILED, "no session record before it");
    else if (rec->kind >= NVTXW_RECORD_EVENT)
        status = replay_stream_record(st, rec, &kept);
    else
        status = replay_registration(st, rec);
    if (status != NVTXW_RESULT_SUCCESS && rec->kind >= NVTXW_RECORD_EVENT)
        error_prefix("cannot replay record %llu of stream %llu of \"%s\" (kind 0x%02x)",
                     (unsigned long long)st->stream_record, (unsigned long long)rec->stream,
                     in->reader->path, (unsigned)rec->kind);
    else if (status != NVTXW_RESULT_SUCCESS)
        error_prefix("cannot replay registration record %llu of \"%s\" (kind 0x%02x)",
                     (unsigned long long)nvtxw_reader_record_count(in->reader), in->reader->path,
                     (unsigned)rec->kind);
    st->replayed += kept;
    return status;
}

static nvtxwResultCode_t close_streams(replay_state* st, replay_input* in) {
    size_t s;
    for (s = 0; s < in->stream_count; s++) {
        if (in->closing[s] && in->streams[s] != NULL) {
            nvtxwResultCode_t status = st->t->StreamClose(in->streams[s]);
            in->streams[s] = NULL;
            if (status != NVTXW_RESULT_SUCCESS) {
                error_prefix("cannot replay the close of stream %zu of \"%s\"", s,
                             in->reader->path);
                return status;
            }
        }
    }
    return NVTXW_RESULT_SUCCESS;
}

static void input_free(replay_input* in) {
    size_t i;
    for (i = 0; i < in->domain_count; i++)
        remap_domain_clear(&in->domains[i]);
    for (i = 0; in->stacks != NULL && i < in->stream_count; i++)
        nvtxw_free(in->stacks[i].kept);
    nvtxw_free(in->domains);
    nvtxw_free(in->target_of);
    nvtxw_free(in->streams);
    nvtxw_free(in->stream_state);
    nvtxw_free(in->closing);
    nvtxw_free(in->stacks);
    nvtxw_free(in->stream_records);
}

static nvtxwResultCode_t input_init(replay_input* in, nvtxw_reader_t* reader, size_t index) {
    size_t n = nvtxw_reader_stream_count(reader) + 1;
    in->reader = reader;
    in->index = index;
    in->stream_count = n - 1;
    in->streams = nvtxw_calloc(n, sizeof *in->streams);
    in->stream_state = nvtxw_calloc(n, sizeof *in->stream_state);
    in->closing = nvtxw_calloc(n, sizeof *in->closing);
    in->stacks = nvtxw_calloc(n, sizeof *in->stacks);
    in->stream_records = nvtxw_calloc(n, sizeof *in->stream_records);
    if (in->streams == NULL || in->stream_state == NULL || in->closing == NULL ||
        in->stacks == NULL || in->stream_records == NULL)
        return error_oom("the replay streams");
    return NVTXW_RESULT_SUCCESS;
}

/* Phase 1: the input's registrations; leaves in->head on its first stream
 * record (NULL at the end). */
static nvtxwResultCode_t replay_registrations(replay_state* st, replay_input* in) {
    nvtxwResultCode_t status;
    const nvtxw_record_t* rec = NULL;
    while ((status = nvtxw_reader_next(in->reader, &rec)) == NVTXW_RESULT_SUCCESS && rec != NULL &&
           rec->kind < NVTXW_RECORD_EVENT) {
        if ((status = replay_one(st, in, rec)) != NVTXW_RESULT_SUCCESS)
            return status;
    }
    in->head = status == NVTXW_RESULT_SUCCESS ? rec : NULL;
    return status;
}

/* Replays in->head and moves it on. */
static nvtxwResultCode_t replay_head(replay_state* st, replay_input* in) {
    nvtxwResultCode_t status;
    if (in->head->has_timestamp)
        in->now = in->head->timestamp;
    if (in->head->kind >= NVTXW_RECORD_EVENT && in->head->stream < in->stream_count)
        st->stream_record = ++in->stream_records[in->head->stream];
    status = replay_one(st, in, in->head);
    if (status == NVTXW_RESULT_SUCCESS)
        status = nvtxw_reader_next(in->reader, &in->head);
    return status;
}

/* The input whose head comes first in time order, or NULL when all ended. */
static replay_input* earliest(replay_state* st) {
    replay_input* best = NULL;
    int64_t best_key = 0;
    size_t i;
    for (i = 0; i < st->input_count; i++) {
        replay_input* in = &st->inputs[i];
        int64_t key;
        if (in->head == NULL)
            continue;
        key = in->head->has_timestamp ? in->head->timestamp : in->now;
        if (best == NULL || key < best_key) {
            best = in;
            best_key = key;
        }
    }
    return best;
}

/* Phase 2: the stream records in the chosen order. */
static nvtxwResultCode_t replay_streams(replay_state* st) {
    nvtxwResultCode_t status = NVTXW_RESULT_SUCCESS;
    size_t i;
    replay_input* in;
    int threaded = 0;
    if (st->opts.order == NVTXW_READER_ORDER_TIME) {
        while (status == NVTXW_RESULT_SUCCESS && (in = earliest(st)) != NULL)
            status = replay_head(st, in);
        return status;
    }
    if (st->opts.threads > 1 && ((status = replay_streams_threaded(
                                      st, st->opts.threads, &threaded)) != NVTXW_RESULT_SUCCESS ||
                                 threaded))
        return status;
    for (i = 0; i < st->input_count; i++) {
        in = &st->inputs[i];
        while (status == NVTXW_RESULT_SUCCESS && in->head != NULL)
            status = replay_head(st, in);
    }
    return status;
}

static nvtxwResultCode_t replay_all(replay_state* st, nvtxw_reader_t* const* readers) {
    nvtxwResultCode_t status = NVTXW_RESULT_SUCCESS;
    size_t i;
    for (i = 0; i < st->input_count && status == NVTXW_RESULT_SUCCESS; i++) {
        if (readers[i] == NULL)
            return error_set(NVTXW_RESULT_INVALID_ARGUMENT, "cannot replay: reader %zu is NULL", i);
        status = input_init(&st->inputs[i], readers[i], i);
    }
    if (status == NVTXW_RESULT_SUCCESS)
        status = replay_patterns_resolve(st);
    for (i = 0; i < st->input_count && status == NVTXW_RESULT_SUCCESS; i++)
        status = replay_registrations(st, &st->inputs[i]);
    if (status == NVTXW_RESULT_SUCCESS)
        status = replay_streams(st);
    for (i = 0; i < st->input_count && status == NVTXW_RESULT_SUCCESS; i++)
        status = close_streams(st, &st->inputs[i]);
    return status;
}

nvtxwResultCode_t nvtxw_reader_replay_many(nvtxw_reader_t* const* readers, size_t count,
                                           const nvtxwInterface_t* iface, const char* config,
                                           const nvtxw_replay_options_t* opts,
                                           uint64_t* records_out) {
    replay_state st;
    nvtxwResultCode_t status, end;
    size_t i;
    if (records_out != NULL)
        *records_out = 0;
    if (readers == NULL || count == 0 || iface == NULL)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot replay reports: readers=%p, count=%zu, iface=%p",
                         (const void*)readers, count, (const void*)iface);
    memset(&st, 0, sizeof st);
    if (opts != NULL)
        memcpy(&st.opts, opts,
               opts->struct_size < sizeof st.opts ? opts->struct_size : sizeof st.opts);
    st.t = iface;
    st.config = config;
    st.input_count = count;
    st.inputs = nvtxw_calloc(count, sizeof *st.inputs);
    status = st.inputs != NULL ? replay_all(&st, readers) : error_oom("the replay inputs");
    if (st.session != NULL) {
        end = iface->SessionEnd(st.session);
        if (status == NVTXW_RESULT_SUCCESS && end != NVTXW_RESULT_SUCCESS) {
            status = end;
            error_prefix("cannot end the replayed session");
        }
    }
    for (i = 0; st.inputs != NULL && i < count; i++)
        input_free(&st.inputs[i]);
    nvtxw_free(st.inputs);
    replay_merge_free(&st);
    reader_arena_reset(&st.scratch);
    if (records_out != NULL)
        *records_out = st.replayed;
    return status;
}

nvtxwResultCode_t nvtxw_reader_replay(nvtxw_reader_t* reader, const nvtxwInterface_t* iface,
                                      const char* config, uint64_t* records_out) {
    if (records_out != NULL)
        *records_out = 0;
    if (reader == NULL || iface == NULL)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT, "cannot replay report: reader=%p, iface=%p",
                         (void*)reader, (const void*)iface);
    return nvtxw_reader_replay_many(&reader, 1, iface, config, NULL, records_out);
}
