/*
 * sink/stats/stats_event.c - the stats sink's write path: walks each event
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
 * The event is read by event_info_walk (sink/shared/event_info.c: precedence,
 * which entries count), with EVENT_INFO_STRUCT_MEMBERS: members of nested
 * structs count too. A split half's time is its BEGIN (push/start) or END
 * (pop/end) timestamp, else its first role-less TIMESTAMP. The range name is
 * the message, prefixed "domain:" outside the default domain. Other events
 * are ignored; range events lacking a needed value are counted as incomplete.
 * Task events (a SCOPE_ID entry naming a task scope) also feed the task
 * tables (stats_task.c).
 */
#include "config.h"

#include <string.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "sink/shared/event_info.h"
#include "sink/stats/stats_internal.h"

enum {
    ROLE_PUSHPOP = 2,
    ROLE_STARTEND = 3,
    ROLE_PUSH = 5,
    ROLE_POP = 6,
    ROLE_START = 7,
    ROLE_END = 8
};

/* Whether `message` (length bytes) already starts with "domain:", as the
 * OTF2 importer's schema names ("otf2:TaskSlice") do. */
static int has_domain_prefix(const char* message, size_t length, const char* domain) {
    size_t n = strlen(domain);
    return length > n && memcmp(message, domain, n) == 0 && message[n] == ':';
}

/* The stream's group of the event's range name, "domain:message", the
 * prefix not doubled. 0, or -1 out of memory. */
static int event_group(stats_stream* st, const event_info* ev, int style, size_t* group) {
    const char* domain = st->stream->domain->name;
    const char* message = ev->has_message ? st->message.data + ev->message : "";
    size_t length = ev->has_message ? ev->message_length : 0;
    strbuf_clear(&st->name);
    if (domain[0] != '\0' && !has_domain_prefix(message, length, domain) &&
        (strbuf_append(&st->name, domain, strlen(domain)) || strbuf_append(&st->name, ":", 1)))
        return -1;
    if (ev->has_message && ev->message_length > 0 &&
        strbuf_append(&st->name, st->message.data + ev->message, ev->message_length))
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

static int stream_push(stats_stream* st, const event_info* ev, int64_t start) {
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
static int stream_start(stats_stream* st, const event_info* ev, int64_t start) {
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
static int stream_apply(stats_stream* st, const event_info* ev) {
    size_t group;
    int64_t time;
    switch (ev->role) {
    case ROLE_PUSHPOP:
    case ROLE_STARTEND:
        if (!ev->has_begin || !ev->has_end)
            return st->incomplete++, 0;
        return event_group(st, ev, ev->role == ROLE_PUSHPOP ? STATS_PUSHPOP : STATS_STARTEND,
                           &group) ||
               stream_close_range(st, group, ev->begin, ev->end);
    case ROLE_PUSH:
        if (!event_info_time(ev, 0, &time))
            return st->incomplete++, 0;
        return stream_push(st, ev, time);
    case ROLE_POP:
        if (!event_info_time(ev, 1, &time))
            return st->incomplete++, 0;
        return stream_pop(st, time);
    case ROLE_START:
        if (!event_info_time(ev, 0, &time) || !ev->has_range_id)
            return st->incomplete++, 0;
        return stream_start(st, ev, time);
    case ROLE_END:
        if (!event_info_time(ev, 1, &time) || !ev->has_range_id)
            return st->incomplete++, 0;
        return stream_end(st, ev->range_id, time);
    default:
        return 0;
    }
}

nvtxwResultCode_t stats_event_write(void* state, const core_event* event) {
    stats_stream* st = state;
    core_event_facts facts;
    event_info ev;
    const stats_task_scope* task;
    nvtxwResultCode_t status;
    strbuf_clear(&st->message);
    status = event_info_walk(event, EVENT_INFO_STRUCT_MEMBERS, &st->message, &ev, &facts);
    if (status != NVTXW_RESULT_SUCCESS)
        return status; /* nothing was applied yet: a rejected event leaves no trace */
    if (stream_apply(st, &ev) != 0)
        return error_oom("the stats of a stream");
    if (ev.has_scope && (task = stats_task_scope_find(st->sink, st->stream->domain, ev.scope)) &&
        stats_task_event(st, event, &ev, task) != 0)
        return error_oom("the task stats of a stream");
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
    stats_tasks_free(&st->tasks);
    stats_groups_free(&st->reasons);
    stats_series_free(&st->series);
    nvtxw_free(st);
}
