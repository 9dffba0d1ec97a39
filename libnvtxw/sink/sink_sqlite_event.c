/*
 * sink/sink_sqlite_event.c - the sqlite sink's write path. Runs concurrently
 * across streams: rows go into the stream's own buffers (no lock), a full
 * buffer is flushed as one transaction (sqlite_stream_flush, one lock per
 * SQLITE_BATCH_ROWS rows).
 *
 * Event analysis (same rules as the stats and chrome sinks; spec 3.3, 3.4,
 * 3.10, later values win): the type is the schema role of the first payload
 * whose schema has one; top-level scalars give TIMESTAMP with RANGE_BEGIN /
 * RANGE_END / other role (the first), RANGE_ID, CATEGORY, COLOR_ARGB and the
 * EVENT_MESSAGE (UTF-8 text, or a registered string: text and handle).
 * payload_json is nvtxw_payload_format_json of all the event's payloads.
 * A rejected event (invalid payload) leaves nothing behind: the arena is cut
 * back and no row is added.
 */
#include "config.h"

#include <string.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "core/core_internal.h"
#include "nvtxw/format.h"
#include "sink/sink_sqlite_internal.h"

/* What the walk of one event found. */
typedef struct sqlite_walk {
    const nvtxw_schema_registry_t* schemas;
    strbuf* arena;
    unsigned role, depth;
    uint64_t field_flags, field_type; /* the open top-level field */
    int has_begin, has_end, has_point, has_range_id, has_text;
    int64_t begin, end, point;
    uint64_t range_id, category, color, text_id;
    size_t text, text_length;
} sqlite_walk;

static int walk_payload_begin(void* ctx, size_t index, uint64_t schema_id, size_t size,
                              const char* name) {
    sqlite_walk* w = ctx;
    const nvtxw_schema_t* schema;
    (void)index, (void)size, (void)name;
    if (w->role != 0 || schema_id < NVTX_PAYLOAD_SCHEMA_ID_STATIC_START)
        return 0;
    schema = nvtxw_schema_registry_find_schema(w->schemas, schema_id);
    if (schema != NULL) {
        nvtxPayloadSchemaAttr_t attr;
        nvtxw_schema_get_attr(schema, &attr);
        w->role = NVTXW_PAYLOAD_SCHEMA_ROLE(attr.flags);
    }
    return 0;
}

static int walk_field_begin(void* ctx, const nvtxw_field_info_t* field) {
    sqlite_walk* w = ctx;
    if (w->depth == 0)
        w->field_flags = field->flags, w->field_type = field->type;
    return 0;
}

static int walk_field_end(void* ctx, const nvtxw_field_info_t* field) {
    sqlite_walk* w = ctx;
    (void)field;
    if (w->depth == 0)
        w->field_flags = 0, w->field_type = 0;
    return 0;
}

static int walk_enter(void* ctx, uint64_t unused) {
    (void)unused;
    ((sqlite_walk*)ctx)->depth++;
    return 0;
}

static int walk_leave(void* ctx) {
    ((sqlite_walk*)ctx)->depth--;
    return 0;
}

static void walk_number(sqlite_walk* w, uint64_t value) {
    uint64_t semantic = w->field_flags & NVTXW_PAYLOAD_ENTRY_FLAG_SEMANTIC_MASK;
    uint64_t role = w->field_flags & NVTXW_PAYLOAD_ENTRY_FLAG_ROLE_MASK;
    if (w->depth != 0)
        return;
    if (w->field_type == NVTX_PAYLOAD_ENTRY_TYPE_RANGE_ID)
        w->has_range_id = 1, w->range_id = value;
    else if (w->field_type == NVTX_PAYLOAD_ENTRY_TYPE_CATEGORY)
        w->category = value;
    else if (w->field_type == NVTX_PAYLOAD_ENTRY_TYPE_COLOR_ARGB)
        w->color = value;
    else if (semantic == NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP) {
        if (role == NVTX_PAYLOAD_ENTRY_FLAG_RANGE_BEGIN)
            w->has_begin = 1, w->begin = (int64_t)value;
        else if (role == NVTX_PAYLOAD_ENTRY_FLAG_RANGE_END)
            w->has_end = 1, w->end = (int64_t)value;
        else if (!w->has_point)
            w->has_point = 1, w->point = (int64_t)value;
    }
}

static int walk_signed(void* ctx, int64_t value) {
    walk_number(ctx, (uint64_t)value);
    return 0;
}

static int walk_unsigned(void* ctx, uint64_t value) {
    walk_number(ctx, value);
    return 0;
}

static int is_message(const sqlite_walk* w) {
    return w->depth == 0 && (w->field_flags & NVTXW_PAYLOAD_ENTRY_FLAG_SEMANTIC_MASK) ==
                                NVTX_PAYLOAD_ENTRY_FLAG_EVENT_MESSAGE;
}

static int walk_text(sqlite_walk* w, const char* text, size_t length, uint64_t handle) {
    w->has_text = 1;
    w->text = w->arena->length;
    w->text_length = length;
    w->text_id = handle;
    return strbuf_append(w->arena, text, length);
}

static int walk_string(void* ctx, const char* utf8, size_t length) {
    return is_message(ctx) ? walk_text(ctx, utf8, length, 0) : 0;
}

static int walk_string_handle(void* ctx, uint64_t handle, const char* text) {
    sqlite_walk* w = ctx;
    if (!is_message(w))
        return 0;
    if (handle == 0 || text == NULL) { /* handle 0: no message */
        w->has_text = 0;
        return 0;
    }
    return walk_text(w, text, strlen(text), handle);
}

static const nvtxw_visitor_t walk_visitor = {
    .struct_size = sizeof(nvtxw_visitor_t),
    .payload_begin = walk_payload_begin,
    .field_begin = walk_field_begin,
    .field_end = walk_field_end,
    .array_begin = walk_enter,
    .array_end = walk_leave,
    .object_begin = walk_enter,
    .object_end = walk_leave,
    .on_signed = walk_signed,
    .on_unsigned = walk_unsigned,
    .on_string = walk_string,
    .on_string_handle = walk_string_handle,
};

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
    *offset = st->arena.length;
    status = nvtxw_payload_format_json(st->stream->domain->schemas, payloads, count, &options,
                                       arena_write, &st->arena);
    *length = st->arena.length - *offset;
    return status;
}

static void arena_cut(strbuf* arena, size_t length) {
    arena->length = length;
    if (arena->data != NULL)
        arena->data[length] = '\0';
}

/* Grows an array of `size`-byte items to hold one more; 0 or -1. */
static int grow(void** items, size_t count, size_t* capacity, size_t size) {
    void* grown;
    if (count < *capacity)
        return 0;
    grown = nvtxw_reallocarray(*items, *capacity ? *capacity * 2 : 256, size);
    if (grown == NULL)
        return -1;
    *items = grown;
    *capacity = *capacity ? *capacity * 2 : 256;
    return 0;
}

nvtxwResultCode_t sqlite_stream_flush_if_full(sqlite_stream* st) {
    if (st->event_count + st->sample_count + st->update_count >= SQLITE_BATCH_ROWS ||
        st->arena.length >= SQLITE_ARENA_LIMIT)
        return sqlite_stream_flush(st);
    return NVTXW_RESULT_SUCCESS;
}

/* Pairs a push with its pop: the push row gets the pop's time as its end. */
static int pair_push_pop(sqlite_stream* st, const sqlite_event_row* row) {
    if (row->type == SQLITE_TYPE_PUSH) {
        if (grow((void**)&st->stack, st->depth, &st->stack_capacity, sizeof *st->stack) != 0)
            return -1;
        st->stack[st->depth++] = (sqlite_frame){row->id, st->event_count, st->generation};
    } else if (row->type == SQLITE_TYPE_POP && row->has_start && st->depth > 0) {
        sqlite_frame frame = st->stack[--st->depth];
        if (frame.generation == st->generation) {
            st->events[frame.row].end = row->start;
            st->events[frame.row].has_end = 1;
            return 0;
        }
        if (grow((void**)&st->updates, st->update_count, &st->update_capacity,
                 sizeof *st->updates) != 0)
            return -1;
        st->updates[st->update_count++] = (sqlite_end_update){frame.id, row->start};
    }
    return 0;
}

/* The row's times from the walk: begin/end by role, else the first point. */
static void row_times(sqlite_event_row* row, const sqlite_walk* w, const core_event_facts* facts) {
    int has_point = w->has_point || facts->has_timestamp;
    int64_t point = w->has_point ? w->point : facts->timestamp;
    if (row->type == SQLITE_TYPE_POP || row->type == SQLITE_TYPE_END) {
        row->has_start = w->has_end || has_point;
        row->start = w->has_end ? w->end : point;
        return;
    }
    row->has_start = w->has_begin || has_point;
    row->start = w->has_begin ? w->begin : point;
    if (row->type == SQLITE_TYPE_PUSHPOP || row->type == SQLITE_TYPE_STARTEND)
        row->has_end = (unsigned char)w->has_end, row->end = w->end;
}

static void row_fill(sqlite_stream* st, sqlite_event_row* row, const sqlite_walk* w,
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
    row->text = w->has_text ? w->text : SIZE_MAX;
    row->text_length = w->text_length;
    row->text_id = w->text_id;
    row->scope_id = event->scope_id != NVTX_SCOPE_NONE ? event->scope_id : st->stream->scope_id;
}

nvtxwResultCode_t sqlite_event_write(void* state, const core_event* event) {
    sqlite_stream* st = state;
    size_t mark = st->arena.length;
    sqlite_walk w;
    core_event_facts facts;
    sqlite_event_row row;
    nvtxwResultCode_t status;
    memset(&w, 0, sizeof w);
    w.schemas = event->stream->domain->schemas;
    w.arena = &st->arena;
    status = core_event_visit(event, &walk_visitor, &w, NVTXW_VISIT_ALLOW_FOREIGN_POINTERS, &facts);
    if (status == NVTXW_RESULT_SUCCESS) {
        row_fill(st, &row, &w, event, &facts);
        status = append_json(st, event->payloads, event->count, &row.json, &row.json_length);
    }
    if (status == NVTXW_RESULT_SUCCESS &&
        (grow((void**)&st->events, st->event_count, &st->event_capacity, sizeof row) != 0 ||
         pair_push_pop(st, &row) != 0))
        status = error_oom("the sqlite rows of a stream");
    if (status != NVTXW_RESULT_SUCCESS) {
        arena_cut(&st->arena, mark);
        return status;
    }
    st->events[st->event_count++] = row;
    return sqlite_stream_flush_if_full(st);
}
