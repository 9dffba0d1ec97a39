/*
 * sink/sqlite/sqlite_event.c - the sqlite sink's write path. Runs concurrently
 * across streams: rows go into the stream's own buffers (no lock), a full
 * buffer is flushed as one transaction (sqlite_stream_flush, one lock per
 * SQLITE_BATCH_ROWS rows).
 *
 * Event analysis: event_info_walk (sink/shared/event_info.c; top-level entries
 * only) gives the type (the schema role), the times, range ID, category,
 * color and message (UTF-8 text, or a registered string: text and handle);
 * the message text goes into the arena. A row without a point in time falls
 * back to the core's first TIMESTAMP.
 * The payload column holds the event's payloads as the producer wrote them,
 * each after its schema ID and size (uvar, common/varint.h): copies, no
 * formatting, so the default costs a memcpy per event. payload_json
 * (nvtxw_payload_format_json of all the event's payloads) is written only
 * with PayloadJson=yes: formatting it took most of the sink's time.
 * A rejected event (invalid payload) leaves nothing behind: the arena is cut
 * back and no row is added.
 */
#include "config.h"

#include <string.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "common/varint.h"
#include "nvtxw/format.h"
#include "sink/shared/event_info.h"
#include "sink/sqlite/sqlite_internal.h"

static int arena_write(void* ctx, const char* data, size_t size) {
    return strbuf_append(ctx, data, size);
}

static const char* resolve_string(void* ctx, uint64_t handle) {
    return core_domain_string(ctx, handle);
}

/* Appends the JSON of `count` payloads to the arena; *offset receives where. */
static nvtxwResultCode_t append_json(sqlite_stream* st, const nvtxPayloadData_t* payloads,
                                     size_t count, size_t* offset, size_t* length) {
    nvtxw_visit_options_t options = {sizeof options, resolve_string, st->stream->domain,
                                     NVTXW_VISIT_ALLOW_FOREIGN_POINTERS, NULL};
    nvtxwResultCode_t status;
    *offset = st->rows->arena.length;
    status = nvtxw_payload_format_json(st->stream->domain->schemas, payloads, count, &options,
                                       arena_write, &st->rows->arena);
    *length = st->rows->arena.length - *offset;
    return status;
}

/* Appends the payload column to the arena: per payload uvar schema ID, uvar
 * size, the bytes. *offset and *length receive where. */
static nvtxwResultCode_t append_payloads(sqlite_stream* st, const core_event* event, size_t* offset,
                                         size_t* length) {
    uint8_t head[2 * VARINT_MAX_BYTES];
    size_t i;
    *offset = st->rows->arena.length;
    for (i = 0; i < event->count; i++) {
        const nvtxPayloadData_t* payload = &event->payloads[i];
        size_t size = core_payload_bytes(payload);
        size_t n = varint_put(head, payload->schemaId);
        n += varint_put(head + n, size);
        if (strbuf_append(&st->rows->arena, (const char*)head, n) != 0 ||
            strbuf_append(&st->rows->arena, payload->payload, size) != 0)
            return error_oom("the payloads of a sqlite row");
    }
    *length = st->rows->arena.length - *offset;
    return NVTXW_RESULT_SUCCESS;
}

static void arena_cut(strbuf* arena, size_t length) {
    arena->length = length;
    if (arena->data != NULL)
        arena->data[length] = '\0';
}

/* Grows an array of `size`-byte items to hold one more; 0 or -1. */
static int grow(void** items, size_t count, size_t* capacity, size_t size) {
    return nvtxw_grow_array(items, capacity, count + 1, size, 256);
}

nvtxwResultCode_t sqlite_stream_flush_if_full(sqlite_stream* st) {
    if (st->rows->event_count + st->rows->sample_count + st->rows->update_count >=
            SQLITE_BATCH_ROWS ||
        st->rows->arena.length >= SQLITE_ARENA_LIMIT)
        return sqlite_stream_flush(st);
    return NVTXW_RESULT_SUCCESS;
}

/* Pairs a push with its pop: the push row gets the pop's time as its end. */
static int pair_push_pop(sqlite_stream* st, const sqlite_event_row* row) {
    if (row->type == SQLITE_TYPE_PUSH) {
        if (grow((void**)&st->stack, st->depth, &st->stack_capacity, sizeof *st->stack) != 0)
            return -1;
        st->stack[st->depth++] = (sqlite_frame){row->id, st->rows->event_count, st->generation};
    } else if (row->type == SQLITE_TYPE_POP && row->has_start && st->depth > 0) {
        sqlite_frame frame = st->stack[--st->depth];
        if (frame.generation == st->generation) {
            st->rows->events[frame.row].end = row->start;
            st->rows->events[frame.row].has_end = 1;
            return 0;
        }
        if (grow((void**)&st->rows->updates, st->rows->update_count, &st->rows->update_capacity,
                 sizeof *st->rows->updates) != 0)
            return -1;
        st->rows->updates[st->rows->update_count++] = (sqlite_end_update){frame.id, row->start};
    }
    return 0;
}

/* The row's times from the walk: begin/end by role, else the first point. */
static void row_times(sqlite_event_row* row, const event_info* w, const core_event_facts* facts) {
    int end_side = row->type == SQLITE_TYPE_POP || row->type == SQLITE_TYPE_END;
    row->start = facts->timestamp;
    row->has_start = event_info_time(w, end_side, &row->start) || facts->has_timestamp;
    if (row->type == SQLITE_TYPE_PUSHPOP || row->type == SQLITE_TYPE_STARTEND)
        row->has_end = (unsigned char)w->has_end, row->end = w->end;
}

static void row_fill(sqlite_stream* st, sqlite_event_row* row, const event_info* w,
                     const core_event* event, const core_event_facts* facts) {
    memset(row, 0, sizeof *row);
    if (st->next_id == st->id_limit) {
        st->next_id = atomic_fetch_add(&st->sink->next_event_id, SQLITE_ID_BLOCK);
        st->id_limit = st->next_id + SQLITE_ID_BLOCK;
    }
    row->id = st->next_id++;
    row->type = (unsigned char)(w->role < SQLITE_TYPE_COUNT ? w->role : SQLITE_TYPE_EVENT);
    row_times(row, w, facts);
    row->has_range_id = (unsigned char)w->has_range_id;
    row->range_id = w->range_id;
    row->category = (uint32_t)w->category;
    row->color = (uint32_t)w->color;
    row->text = w->has_message ? w->message : SIZE_MAX;
    row->text_length = w->message_length;
    row->text_id = w->message_handle;
    row->scope_id = event->scope_id != NVTX_SCOPE_NONE ? event->scope_id : st->stream->scope_id;
}

nvtxwResultCode_t sqlite_event_write(void* state, const core_event* event) {
    sqlite_stream* st = state;
    size_t mark = st->rows->arena.length;
    event_info w;
    core_event_facts facts;
    sqlite_event_row row;
    nvtxwResultCode_t status;
    status = event_info_walk(event, 0, &st->rows->arena, &w, &facts);
    if (status == NVTXW_RESULT_SUCCESS) {
        row_fill(st, &row, &w, event, &facts);
        status = append_payloads(st, event, &row.payload, &row.payload_length);
    }
    if (status == NVTXW_RESULT_SUCCESS && st->sink->payload_json)
        status = append_json(st, event->payloads, event->count, &row.json, &row.json_length);
    if (status == NVTXW_RESULT_SUCCESS && (grow((void**)&st->rows->events, st->rows->event_count,
                                                &st->rows->event_capacity, sizeof row) != 0 ||
                                           pair_push_pop(st, &row) != 0))
        status = error_oom("the sqlite rows of a stream");
    if (status != NVTXW_RESULT_SUCCESS) {
        arena_cut(&st->rows->arena, mark);
        return status;
    }
    st->rows->events[st->rows->event_count++] = row;
    return sqlite_stream_flush_if_full(st);
}
