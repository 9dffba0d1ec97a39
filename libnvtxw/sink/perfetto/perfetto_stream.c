/*
 * sink/perfetto/perfetto_stream.c - a stream of the Perfetto sink: its
 * track, its packet sequence (one trusted sequence per stream, sequence ID
 * = open order + 2), the sequence's incremental state (interning tables,
 * packet defaults, the incremental clock) and its pending packets. Runs
 * concurrently across streams: everything here is the stream's own but
 * stream_open and stream_close, which the core serializes.
 *
 * Time: each sequence maps its incremental clock 64 to BOOTTIME with a
 * ClockSnapshot (both clocks = 0 in the first one), so BOOTTIME, the
 * trace's clock, is the producer's nanoseconds. A packet's timestamp
 * is then the delta from the sequence's previous packet on clock 64 (one
 * or two bytes for events microseconds apart). An event earlier than the
 * previous one (allowed: a stream need not be in time order) is written
 * with an absolute BOOTTIME timestamp, which leaves clock 64 alone.
 * Timestamps below 0 are outside every Perfetto clock (unsigned): they
 * are written as 0 and counted (docs/perfetto.md).
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "common/log.h"
#include "common/slot_hash.h"
#include "sink/perfetto/perfetto_internal.h"
#include "sink/perfetto/perfetto_pb.h"

/* A copy of the pending packets for the compression thread (offload_fill_fn). */
static int copy_packets(void* owner, strbuf* into) {
    const perfetto_stream* st = owner;
    return strbuf_append(into, st->out.data, st->out.length);
}

/* Compresses and writes packets on the compression thread (offload_run_fn),
 * into the thread's scratch buffer: the stream's own `zout` stays empty. */
static nvtxwResultCode_t write_packets(void* owner, const void* meta, const char* data, size_t size,
                                       strbuf* scratch) {
    perfetto_stream* st = owner;
    (void)meta;
    return perfetto_write_packets(st->sink, data, size, scratch);
}

nvtxwResultCode_t perfetto_stream_flush(perfetto_stream* st, int closing) {
    nvtxwResultCode_t status = NVTXW_RESULT_SUCCESS;
    if (st->out.length == 0 || (!closing && st->out.length < st->sink->flush_bytes))
        return NVTXW_RESULT_SUCCESS;
    /* The track descriptors these packets refer to go first. */
    status = perfetto_session_packets_flush(st->sink);
    if (status == NVTXW_RESULT_SUCCESS)
        status = offload_hands_over(&st->lane, closing)
                     ? offload_submit(&st->lane, NULL, 0, copy_packets, st)
                     : perfetto_write_packets(st->sink, st->out.data, st->out.length, &st->zout);
    strbuf_clear(&st->out);
    return status;
}

/* The producer's time as a BOOTTIME value: negative times are out of the
 * clock's range. */
static uint64_t boottime(perfetto_stream* st, int64_t ts) {
    if (ts >= 0)
        return (uint64_t)ts;
    st->negative_times++;
    return 0;
}

/*
 * A new incremental state for the sequence: one packet that clears it,
 * sets the defaults (clock 64, the stream's track) and maps clock 64 to
 * BOOTTIME at clock 64's current value (0 at first). Perfetto's trace
 * processor drops every later packet of a clock whose snapshots go down,
 * and clock 64 never does: it only moves forward. The interning tables
 * start empty.
 */
static int write_state(perfetto_stream* st) {
    strbuf* out = &st->out;
    uint64_t at = st->clock;
    size_t packet, m1, m2, m3;
    st->generation++;
    perfetto_intern_clear(&st->names);
    perfetto_intern_clear(&st->categories);
    perfetto_intern_clear(&st->keys);
    if ((packet = pb_open(out, 1)) == SIZE_MAX || pb_varint(out, 10, st->sequence) != 0 ||
        pb_varint(out, 13, 3) != 0 || (m1 = pb_open(out, 59)) == SIZE_MAX ||
        pb_varint(out, 58, PERFETTO_CLOCK_INCREMENTAL) != 0 ||
        (m2 = pb_open(out, 11)) == SIZE_MAX || pb_varint(out, 11, st->uuid) != 0 ||
        pb_close(out, m2) != 0 || pb_close(out, m1) != 0)
        return -1;
    /* ClockSnapshot { clocks { 64, at, incremental } clocks { BOOTTIME, at } } */
    if ((m1 = pb_open(out, 6)) == SIZE_MAX || (m2 = pb_open(out, 1)) == SIZE_MAX ||
        pb_varint(out, 1, PERFETTO_CLOCK_INCREMENTAL) != 0 || pb_varint(out, 2, at) != 0 ||
        pb_varint(out, 3, 1) != 0 || pb_close(out, m2) != 0 || (m3 = pb_open(out, 1)) == SIZE_MAX ||
        pb_varint(out, 1, PERFETTO_CLOCK_BOOTTIME) != 0 || pb_varint(out, 2, at) != 0 ||
        pb_close(out, m3) != 0 || pb_close(out, m1) != 0 || pb_close(out, packet) != 0)
        return -1;
    st->clock = at;
    st->state_valid = 1;
    return 0;
}

static int tables_full(const perfetto_stream* st) {
    return st->names.count >= PERFETTO_INTERN_LIMIT ||
           st->categories.count >= PERFETTO_INTERN_LIMIT || st->keys.count >= PERFETTO_INTERN_LIMIT;
}

int perfetto_stream_prepare(perfetto_stream* st) {
    if (st->state_valid && !tables_full(st))
        return 0;
    strbuf_clear(&st->interned);
    return write_state(st);
}

int perfetto_packet_begin(perfetto_stream* st, int64_t ts) {
    strbuf* out = &st->out;
    uint64_t at = boottime(st, ts);
    if (pb_room(out, 5 * PB_FIELD_MAX) != 0) /* the packet's start, four fields */
        return -1;
    st->packet = pb_put_open(out, 1);
    if (at >= st->clock) {
        pb_put_field(out, 8, at - st->clock);
        st->clock = at;
    } else {
        pb_put_field(out, 58, PERFETTO_CLOCK_BOOTTIME);
        pb_put_field(out, 8, at);
    }
    pb_put_field(out, 10, st->sequence);
    pb_put_field(out, 13, 2); /* SEQ_NEEDS_INCREMENTAL_STATE */
    return 0;
}

int perfetto_packet_end(perfetto_stream* st) {
    if (st->interned.length > 0 &&
        pb_bytes(&st->out, 12, st->interned.data, st->interned.length) != 0)
        return -1;
    strbuf_clear(&st->interned);
    return pb_close(&st->out, st->packet);
}

int perfetto_stream_intern(perfetto_stream* st, perfetto_intern* table, uint32_t number,
                           const char* text, size_t length, uint64_t* iid) {
    int added = perfetto_intern_find(table, text, length, iid);
    size_t entry;
    if (added <= 0)
        return added;
    /* InternedData.<number> { iid, name } */
    if ((entry = pb_open(&st->interned, number)) == SIZE_MAX ||
        pb_varint(&st->interned, 1, *iid) != 0 || pb_string(&st->interned, 2, text, length) != 0)
        return -1;
    return pb_close(&st->interned, entry);
}

int perfetto_stream_intern_stable(perfetto_stream* st, perfetto_intern* table, uint32_t number,
                                  const char* text, uint64_t* iid) {
    struct perfetto_stable_iid* slot = &st->stable[slot_hash(
        (uint64_t)(uintptr_t)text ^ (uint64_t)(uintptr_t)table, PERFETTO_STABLE_BITS)];
    if (slot->text == text && slot->table == table && slot->generation == st->generation) {
        *iid = slot->iid;
        return 0;
    }
    if (perfetto_stream_intern(st, table, number, text, strlen(text), iid) != 0)
        return -1;
    slot->text = text;
    slot->table = table;
    slot->generation = st->generation;
    slot->iid = *iid;
    return 0;
}

uint64_t perfetto_stream_local_uuid(perfetto_stream* st, unsigned kind) {
    if (st->next_local + 1 >= PERFETTO_LOCAL_TRACKS)
        return 0;
    return PERFETTO_UUID((st->stream->index + 1) << 24 | ++st->next_local, kind);
}

static void stream_free(perfetto_stream* st) {
    size_t i;
    for (i = 0; i < st->group_count; i++) {
        nvtxw_free(st->groups[i].name);
        nvtxw_free(st->groups[i].uuids);
        nvtxw_free(st->groups[i].busy_until);
    }
    nvtxw_free(st->groups);
    nvtxw_free(st->nest);
    time_map_free(&st->times);
    nvtxw_free(st->frames);
    nvtxw_free(st->counter_tracks.slots);
    perfetto_direct_free(st);
    perfetto_intern_free(&st->names);
    perfetto_intern_free(&st->categories);
    perfetto_intern_free(&st->keys);
    strbuf_free(&st->out);
    strbuf_free(&st->zout);
    strbuf_free(&st->interned);
    strbuf_free(&st->args);
    strbuf_free(&st->name);
    nvtxw_free(st);
}

/* The stream's track: a thread of its process, or a track under it,
 * described on the session's sequence. */
static nvtxwResultCode_t describe_stream(perfetto_stream* st) {
    perfetto_track_desc d = {0};
    uint64_t pid;
    int is_thread;
    nvtxwResultCode_t status = perfetto_stream_process(st->sink, st->stream, &pid, &is_thread);
    if (status != NVTXW_RESULT_SUCCESS)
        return status;
    st->process_uuid = PERFETTO_UUID(pid, PERFETTO_TRACK_PROCESS);
    d.uuid = st->uuid;
    d.has_rank = 1;
    d.rank = st->stream->index > INT32_MAX ? INT32_MAX : (int32_t)st->stream->index;
    if (is_thread) {
        d.kind = PERFETTO_DESC_THREAD;
        d.pid = pid;
        d.tid = st->stream->index + 1;
        d.thread_name = st->stream->name;
    } else {
        d.kind = PERFETTO_DESC_TRACK;
        d.no_merge = 1; /* two streams of one name stay two tracks */
        d.parent = st->process_uuid;
        d.name = st->stream->name;
    }
    return perfetto_put_session_track(st->sink, &d);
}

nvtxwResultCode_t perfetto_stream_open(sink* s, const core_stream* stream, void** state) {
    perfetto_sink* ps = (perfetto_sink*)s;
    perfetto_stream* st;
    nvtxwResultCode_t status;
    if (stream->index > UINT32_MAX - PERFETTO_SESSION_SEQUENCE - 1 ||
        stream->index >= UINT64_MAX >> 27)
        return error_set(NVTXW_RESULT_FAILED,
                         "cannot open stream \"%s\" in Perfetto output \"%s\": more streams than "
                         "Perfetto's 32-bit sequence IDs number",
                         stream->name, ps->path);
    if ((st = nvtxw_calloc(1, sizeof *st)) == NULL ||
        (st->frames = nvtxw_calloc(st->frame_capacity = 8, sizeof *st->frames)) == NULL) {
        nvtxw_free(st);
        return error_oom("a Perfetto stream");
    }
    st->sink = ps;
    offload_lane_init(&st->lane, &ps->compressors, stream->index, write_packets, st);
    st->nest_latest_begin = INT64_MIN;
    st->forgotten_end = INT64_MIN;
    st->stream = stream;
    for (size_t i = 0; i < sizeof st->roles / sizeof st->roles[0]; i++)
        st->roles[i].role = -1;
    st->sequence = (uint32_t)stream->index + PERFETTO_SESSION_SEQUENCE + 1;
    st->uuid = PERFETTO_UUID(stream->index + 1, PERFETTO_TRACK_STREAM);
    time_map_open(&st->times, &ps->time_domain, &ps->time_domain_set, stream->time_domain_id);
    if ((status = describe_stream(st)) != NVTXW_RESULT_SUCCESS) {
        stream_free(st);
        return status;
    }
    *state = st;
    return NVTXW_RESULT_SUCCESS;
}

/* What the stream's events needed changing to fit Perfetto's rules, for
 * NVTXW_LOG_LEVEL (common/log.h): data moved or made up are warnings. */
static void stream_report(const perfetto_stream* st) {
    const char* name = st->stream->name;
    if (st->open_pushes > 0)
        nvtxw_log(NVTXW_LOG_WARNING,
                  "perfetto sink, stream \"%s\": %" PRIu64
                  " push%s never popped, ended at the stream's last time (%" PRId64 " ns)",
                  name, st->open_pushes, st->open_pushes == 1 ? "" : "es", st->previous_ts);
    if (st->unmatched_pops > 0)
        nvtxw_log(NVTXW_LOG_WARNING,
                  "perfetto sink, stream \"%s\": %" PRIu64
                  " pop%s with nothing pushed, written as instant%s \"(unmatched pop)\"",
                  name, st->unmatched_pops, st->unmatched_pops == 1 ? "" : "s",
                  st->unmatched_pops == 1 ? "" : "s");
    if (st->negative_times > 0)
        nvtxw_log(NVTXW_LOG_WARNING,
                  "perfetto sink, stream \"%s\": %" PRIu64
                  " timestamp%s below 0 written as 0 (Perfetto's clocks are unsigned)",
                  name, st->negative_times, st->negative_times == 1 ? "" : "s");
    if (st->json_invalid > 0)
        nvtxw_log(NVTXW_LOG_WARNING,
                  "perfetto sink, stream \"%s\": %" PRIu64
                  " JSON-text field%s not valid JSON, written as string%s",
                  name, st->json_invalid, st->json_invalid == 1 ? "" : "s",
                  st->json_invalid == 1 ? "" : "s");
    time_map_report(&st->times, "perfetto", name);
    if (st->overlapping_ranges > 0)
        nvtxw_log(NVTXW_LOG_INFO,
                  "perfetto sink, stream \"%s\": %" PRIu64
                  " whole range%s not nesting with the stream's others put on lanes "
                  "\"overlapping ranges\"",
                  name, st->overlapping_ranges, st->overlapping_ranges == 1 ? "" : "s");
    if (st->direct_events + st->walked_events > 0)
        nvtxw_log(NVTXW_LOG_DEBUG,
                  "perfetto sink, stream \"%s\": %" PRIu64 " event%s read directly (fixed-layout "
                  "payloads), %" PRIu64 " walked",
                  name, st->direct_events, st->direct_events == 1 ? "" : "s", st->walked_events);
}

nvtxwResultCode_t perfetto_stream_close(sink* s, const core_stream* stream, void* state) {
    perfetto_stream* st = state;
    nvtxwResultCode_t status = NVTXW_RESULT_SUCCESS, drained;
    (void)s, (void)stream;
    stream_report(st);
    if (perfetto_close_pushes(st) != 0)
        status = error_oom("a Perfetto stream's last packets");
    if (status == NVTXW_RESULT_SUCCESS)
        status = perfetto_stream_flush(st, 1);
    drained = offload_drain(&st->lane);
    if (status == NVTXW_RESULT_SUCCESS)
        status = drained;
    stream_free(st);
    return status;
}
