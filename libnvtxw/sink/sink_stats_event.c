/*
 * sink/sink_stats_event.c - the stats sink's write path: walks each event
 * once (core_event_visit validates it at the same time) and turns range
 * events into closed instances of the stream's own accumulators. Runs
 * concurrently across streams and touches only its stream's state.
 *
 * What an event means comes from the schema role of its first payload that
 * has one (NVTXW_PAYLOAD_SCHEMA_ROLE, spec 3.4) and from entry flags (3.3):
 *   RANGE_PUSHPOP, RANGE_STARTEND  whole range: TIMESTAMP|RANGE_BEGIN and
 *                                  TIMESTAMP|RANGE_END values
 *   RANGE_PUSH / RANGE_POP         split push/pop: a per-stream stack, a pop
 *                                  closes the innermost push
 *   RANGE_START / RANGE_END        split start/end: halves correlated by the
 *                                  RANGE_ID entry, here or (at stream close)
 *                                  across the session's streams
 * A split half's time is its BEGIN (push/start) or END (pop/end) timestamp,
 * else its first role-less TIMESTAMP. The range name is the EVENT_MESSAGE
 * (UTF-8 string or registered string), prefixed "domain:" outside the
 * default domain. Later values win (spec 3.10). Other events are ignored;
 * range events lacking a needed value are counted as incomplete.
 */
#include "config.h"

#include <string.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "core/core_internal.h"
#include "sink/sink_stats_internal.h"

enum {
    ROLE_PUSHPOP = 2,
    ROLE_STARTEND = 3,
    ROLE_PUSH = 5,
    ROLE_POP = 6,
    ROLE_START = 7,
    ROLE_END = 8
};

static int ev_payload_begin(void* ctx, size_t index, uint64_t schema_id, size_t size,
                            const char* name) {
    stats_event* ev = ctx;
    const nvtxw_schema_t* schema;
    (void)index, (void)size, (void)name;
    if (ev->role != 0 || schema_id < NVTX_PAYLOAD_SCHEMA_ID_STATIC_START)
        return 0;
    schema = nvtxw_schema_registry_find_schema(ev->schemas, schema_id);
    if (schema != NULL) {
        nvtxPayloadSchemaAttr_t attr;
        nvtxw_schema_get_attr(schema, &attr);
        ev->role = NVTXW_PAYLOAD_SCHEMA_ROLE(attr.flags);
    }
    return 0;
}

static int ev_field_begin(void* ctx, const nvtxw_field_info_t* field) {
    stats_event* ev = ctx;
    ev->field_flags = field->flags;
    ev->field_type = field->type;
    return 0;
}

static int ev_field_end(void* ctx, const nvtxw_field_info_t* field) {
    stats_event* ev = ctx;
    (void)field;
    ev->field_flags = 0;
    ev->field_type = 0;
    return 0;
}

static int ev_array_begin(void* ctx, uint64_t length) {
    (void)length;
    ((stats_event*)ctx)->array_depth++;
    return 0;
}

static int ev_array_end(void* ctx) {
    ((stats_event*)ctx)->array_depth--;
    return 0;
}

/* A scalar outside arrays: a timestamp by its role, or the range ID. */
static void ev_number(stats_event* ev, int64_t value) {
    uint64_t semantic = ev->field_flags & NVTXW_PAYLOAD_ENTRY_FLAG_SEMANTIC_MASK;
    uint64_t role = ev->field_flags & NVTXW_PAYLOAD_ENTRY_FLAG_ROLE_MASK;
    if (ev->array_depth != 0)
        return;
    if (ev->field_type == NVTX_PAYLOAD_ENTRY_TYPE_RANGE_ID) {
        ev->has_range_id = 1;
        ev->range_id = (uint64_t)value;
    } else if (semantic == NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP) {
        if (role == NVTX_PAYLOAD_ENTRY_FLAG_RANGE_BEGIN)
            ev->has_begin = 1, ev->begin = value;
        else if (role == NVTX_PAYLOAD_ENTRY_FLAG_RANGE_END)
            ev->has_end = 1, ev->end = value;
        else if (!ev->has_point)
            ev->has_point = 1, ev->point = value;
    }
}

static int ev_signed(void* ctx, int64_t value) {
    ev_number(ctx, value);
    return 0;
}

static int ev_unsigned(void* ctx, uint64_t value) {
    ev_number(ctx, (int64_t)value);
    return 0;
}

static int is_message(const stats_event* ev) {
    return (ev->field_flags & NVTXW_PAYLOAD_ENTRY_FLAG_SEMANTIC_MASK) ==
           NVTX_PAYLOAD_ENTRY_FLAG_EVENT_MESSAGE;
}

static int ev_string(void* ctx, const char* utf8, size_t length) {
    stats_event* ev = ctx;
    if (!is_message(ev) || ev->array_depth != 0)
        return 0;
    strbuf_clear(ev->message);
    ev->has_message = 1;
    return strbuf_append(ev->message, utf8, length);
}

static int ev_string_handle(void* ctx, uint64_t handle, const char* text) {
    stats_event* ev = ctx;
    if (!is_message(ev) || ev->array_depth != 0)
        return 0;
    strbuf_clear(ev->message);
    ev->has_message = handle != 0 && text != NULL; /* handle 0: no message */
    return ev->has_message ? strbuf_append(ev->message, text, strlen(text)) : 0;
}

static const nvtxw_visitor_t stats_visitor = {
    .struct_size = sizeof(nvtxw_visitor_t),
    .payload_begin = ev_payload_begin,
    .field_begin = ev_field_begin,
    .field_end = ev_field_end,
    .array_begin = ev_array_begin,
    .array_end = ev_array_end,
    .on_signed = ev_signed,
    .on_unsigned = ev_unsigned,
    .on_string = ev_string,
    .on_string_handle = ev_string_handle,
};

/* The stream's group of the event's range name. 0, or -1 out of memory. */
static int event_group(stats_stream* st, const stats_event* ev, int style, size_t* group) {
    const char* domain = st->stream->domain->name;
    strbuf_clear(&st->name);
    if (domain[0] != '\0' &&
        (strbuf_append(&st->name, domain, strlen(domain)) || strbuf_append(&st->name, ":", 1)))
        return -1;
    if (ev->has_message && ev->message->length > 0 &&
        strbuf_append(&st->name, ev->message->data, ev->message->length))
        return -1;
    return stats_groups_find_or_add(&st->groups, style, st->name.data ? st->name.data : "", group);
}

/* A closed instance: its duration, and a trace row for push/pop. */
static int stream_close_range(stats_stream* st, size_t group, int64_t start, int64_t end) {
    stats_group* g = &st->groups.items[group];
    if (stats_group_add(g, stats_duration(start, end)) != 0)
        return -1;
    if (!st->keep_rows || g->style != STATS_PUSHPOP)
        return 0;
    if (st->row_count == st->row_capacity) {
        size_t capacity = st->row_capacity ? st->row_capacity * 2 : 64;
        stats_row* rows = nvtxw_reallocarray(st->rows, capacity, sizeof *rows);
        if (rows == NULL)
            return -1;
        st->rows = rows;
        st->row_capacity = capacity;
    }
    st->rows[st->row_count] = (stats_row){start, end, group, st->index, st->row_count};
    st->row_count++;
    return 0;
}

static int stream_push(stats_stream* st, const stats_event* ev, int64_t start) {
    size_t group;
    if (event_group(st, ev, STATS_PUSHPOP, &group) != 0)
        return -1;
    if (st->depth == st->stack_capacity) {
        size_t capacity = st->stack_capacity ? st->stack_capacity * 2 : 16;
        stats_frame* stack = nvtxw_reallocarray(st->stack, capacity, sizeof *stack);
        if (stack == NULL)
            return -1;
        st->stack = stack;
        st->stack_capacity = capacity;
    }
    st->stack[st->depth++] = (stats_frame){start, group};
    return 0;
}

static int stream_pop(stats_stream* st, int64_t end) {
    stats_frame frame;
    if (st->depth == 0) {
        st->unmatched_pops++;
        return 0;
    }
    frame = st->stack[--st->depth];
    return stream_close_range(st, frame.group, frame.start, end);
}

/* A start: closes a waiting end of the same ID, else waits for one. */
static int stream_start(stats_stream* st, const stats_event* ev, int64_t start) {
    stats_pending entry = {ev->range_id, start, 0}, *end, *old;
    if (event_group(st, ev, STATS_STARTEND, &entry.group) != 0)
        return -1;
    end = stats_map_get(&st->ends, ev->range_id);
    if (end != NULL) {
        int64_t end_time = end->timestamp;
        stats_map_remove(&st->ends, end);
        return stream_close_range(st, entry.group, start, end_time);
    }
    old = stats_map_get(&st->starts, ev->range_id);
    if (old != NULL) { /* the ID was reused before its range ended */
        st->lost_ranges++;
        *old = entry;
        return 0;
    }
    return stats_map_put(&st->starts, &entry);
}

static int stream_end(stats_stream* st, uint64_t id, int64_t end_time) {
    stats_pending entry = {id, end_time, SIZE_MAX}, *start = stats_map_get(&st->starts, id);
    if (start != NULL) {
        stats_pending found = *start;
        stats_map_remove(&st->starts, start);
        return stream_close_range(st, found.group, found.timestamp, end_time);
    }
    if (stats_map_get(&st->ends, id) != NULL) {
        st->lost_ranges++; /* a second end for one ID */
        return 0;
    }
    return stats_map_put(&st->ends, &entry);
}

/* Applies a walked event; 0, or -1 out of memory. */
static int stream_apply(stats_stream* st, const stats_event* ev) {
    size_t group;
    int whole = ev->has_begin && ev->has_end;
    switch (ev->role) {
    case ROLE_PUSHPOP:
    case ROLE_STARTEND:
        if (!whole)
            return st->incomplete++, 0;
        return event_group(st, ev, ev->role == ROLE_PUSHPOP ? STATS_PUSHPOP : STATS_STARTEND,
                           &group) ||
               stream_close_range(st, group, ev->begin, ev->end);
    case ROLE_PUSH:
        if (!ev->has_begin && !ev->has_point)
            return st->incomplete++, 0;
        return stream_push(st, ev, ev->has_begin ? ev->begin : ev->point);
    case ROLE_POP:
        if (!ev->has_end && !ev->has_point)
            return st->incomplete++, 0;
        return stream_pop(st, ev->has_end ? ev->end : ev->point);
    case ROLE_START:
        if ((!ev->has_begin && !ev->has_point) || !ev->has_range_id)
            return st->incomplete++, 0;
        return stream_start(st, ev, ev->has_begin ? ev->begin : ev->point);
    case ROLE_END:
        if ((!ev->has_end && !ev->has_point) || !ev->has_range_id)
            return st->incomplete++, 0;
        return stream_end(st, ev->range_id, ev->has_end ? ev->end : ev->point);
    default:
        return 0;
    }
}

nvtxwResultCode_t stats_event_write(void* state, const core_event* event) {
    stats_stream* st = state;
    core_event_facts facts;
    stats_event ev;
    nvtxwResultCode_t status;
    memset(&ev, 0, sizeof ev);
    ev.schemas = event->stream->domain->schemas;
    ev.message = &st->message;
    status =
        core_event_visit(event, &stats_visitor, &ev, NVTXW_VISIT_ALLOW_FOREIGN_POINTERS, &facts);
    if (status != NVTXW_RESULT_SUCCESS)
        return status; /* nothing was applied yet: a rejected event leaves no trace */
    if (stream_apply(st, &ev) != 0)
        return error_oom("the stats of a stream");
    return NVTXW_RESULT_SUCCESS;
}

void stats_stream_free(stats_stream* st) {
    if (st == NULL)
        return;
    stats_groups_free(&st->groups);
    stats_map_free(&st->starts);
    stats_map_free(&st->ends);
    nvtxw_free(st->stack);
    nvtxw_free(st->rows);
    strbuf_free(&st->message);
    strbuf_free(&st->name);
    nvtxw_free(st);
}
