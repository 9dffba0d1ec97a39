/*
 * sink/shared/event_info.c - extracts what an event means from one walk of its
 * payloads (the stats and sqlite sinks share it):
 *   role        NVTXW_PAYLOAD_SCHEMA_ROLE (spec 3.4) of the schema of the
 *               first payload whose registered schema has one (the first
 *               wins: later payloads carry data, not the event's type)
 *   begin, end  TIMESTAMP entries with role RANGE_BEGIN / RANGE_END (3.3)
 *   point       the first TIMESTAMP entry with role MARK or none
 *   range_id, category, color   entries of type RANGE_ID, CATEGORY,
 *               COLOR_ARGB (the type decides before the TIMESTAMP flag)
 *   scope       the first entry of type SCOPE_ID (docs/tasks.md: a task
 *               event's task)
 *   message     the EVENT_MESSAGE entry: UTF-8 text (converted by the
 *               visitor from any string type), or a registered string's
 *               text and handle; handle 0 means no message
 * Only integer scalars of top-level entries count (with
 * EVENT_INFO_STRUCT_MEMBERS also those of nested structs); values inside
 * arrays never do. Precedence (spec 3.10, later specification wins):
 * payloads in array order, then entries in order, so the last begin, end,
 * range ID, category, color and message win; only `point` keeps the first.
 */
#include "config.h"

#include <string.h>

#include "sink/shared/event_info.h"

typedef struct info_walk {
    event_info* info;
    const nvtxw_schema_registry_t* schemas;
    strbuf* text;
    size_t mark; /* text->length when the walk began */
    unsigned flags, depth;
    uint64_t field_flags, field_type; /* the open top-level field; 0 outside */
} info_walk;

static int on_payload_begin(void* ctx, size_t index, uint64_t schema_id, size_t size,
                            const char* name) {
    info_walk* w = ctx;
    const nvtxw_schema_t* schema;
    (void)index, (void)size, (void)name;
    if (w->info->role != 0 || schema_id < NVTX_PAYLOAD_SCHEMA_ID_STATIC_START)
        return 0;
    schema = nvtxw_schema_registry_find_schema(w->schemas, schema_id);
    if (schema != NULL) {
        nvtxPayloadSchemaAttr_t attr;
        nvtxw_schema_get_attr(schema, &attr);
        w->info->role = NVTXW_PAYLOAD_SCHEMA_ROLE(attr.flags);
    }
    return 0;
}

static int on_field_begin(void* ctx, const nvtxw_field_info_t* field) {
    info_walk* w = ctx;
    if (w->depth == 0)
        w->field_flags = field->flags, w->field_type = field->type;
    return 0;
}

static int on_field_end(void* ctx, const nvtxw_field_info_t* field) {
    info_walk* w = ctx;
    (void)field;
    if (w->depth == 0)
        w->field_flags = 0, w->field_type = 0;
    return 0;
}

static int on_array_begin(void* ctx, uint64_t length) {
    (void)length;
    ((info_walk*)ctx)->depth++;
    return 0;
}

static int on_array_end(void* ctx) {
    ((info_walk*)ctx)->depth--;
    return 0;
}

static int on_object_begin(void* ctx, uint64_t schema_id) {
    info_walk* w = ctx;
    (void)schema_id;
    if (!(w->flags & EVENT_INFO_STRUCT_MEMBERS))
        w->depth++;
    return 0;
}

static int on_object_end(void* ctx) {
    info_walk* w = ctx;
    if (!(w->flags & EVENT_INFO_STRUCT_MEMBERS))
        w->depth--;
    return 0;
}

static void on_timestamp(event_info* info, uint64_t role, int64_t value) {
    if (role == NVTX_PAYLOAD_ENTRY_FLAG_RANGE_BEGIN)
        info->has_begin = 1, info->begin = value;
    else if (role == NVTX_PAYLOAD_ENTRY_FLAG_RANGE_END)
        info->has_end = 1, info->end = value;
    else if (!info->has_point)
        info->has_point = 1, info->point = value;
}

/* An integer scalar: an attribute by the open field's type, or a time. */
static void on_number(info_walk* w, uint64_t value) {
    event_info* info = w->info;
    if (w->depth != 0)
        return;
    if (w->field_type == NVTX_PAYLOAD_ENTRY_TYPE_RANGE_ID)
        info->has_range_id = 1, info->range_id = value;
    else if (w->field_type == NVTX_PAYLOAD_ENTRY_TYPE_CATEGORY)
        info->category = value;
    else if (w->field_type == NVTX_PAYLOAD_ENTRY_TYPE_COLOR_ARGB)
        info->color = value;
    else if (w->field_type == NVTX_PAYLOAD_ENTRY_TYPE_SCOPE_ID) {
        if (!info->has_scope)
            info->has_scope = 1, info->scope = value;
    } else if ((w->field_flags & NVTXW_PAYLOAD_ENTRY_FLAG_SEMANTIC_MASK) ==
               NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP)
        on_timestamp(info, w->field_flags & NVTXW_PAYLOAD_ENTRY_FLAG_ROLE_MASK, (int64_t)value);
}

static int on_signed(void* ctx, int64_t value) {
    on_number(ctx, (uint64_t)value);
    return 0;
}

static int on_unsigned(void* ctx, uint64_t value) {
    on_number(ctx, value);
    return 0;
}

static int is_message(const info_walk* w) {
    return w->depth == 0 && (w->field_flags & NVTXW_PAYLOAD_ENTRY_FLAG_SEMANTIC_MASK) ==
                                NVTX_PAYLOAD_ENTRY_FLAG_EVENT_MESSAGE;
}

/* Replaces the message: a later one wins, the earlier text is cut off. */
static int set_message(info_walk* w, const char* text, size_t length, uint64_t handle) {
    event_info* info = w->info;
    w->text->length = w->mark;
    if (w->text->data != NULL)
        w->text->data[w->mark] = '\0';
    info->has_message = 1;
    info->message = w->mark;
    info->message_length = length;
    info->message_handle = handle;
    return strbuf_append(w->text, text, length);
}

static int on_string(void* ctx, const char* utf8, size_t length) {
    return is_message(ctx) ? set_message(ctx, utf8, length, 0) : 0;
}

static int on_string_handle(void* ctx, uint64_t handle, const char* text) {
    info_walk* w = ctx;
    if (!is_message(w))
        return 0;
    if (handle == 0 || text == NULL) { /* handle 0: no message */
        w->info->has_message = 0;
        return 0;
    }
    return set_message(w, text, strlen(text), handle);
}

static const nvtxw_visitor_t info_visitor = {
    .struct_size = sizeof(nvtxw_visitor_t),
    .payload_begin = on_payload_begin,
    .field_begin = on_field_begin,
    .field_end = on_field_end,
    .array_begin = on_array_begin,
    .array_end = on_array_end,
    .object_begin = on_object_begin,
    .object_end = on_object_end,
    .on_signed = on_signed,
    .on_unsigned = on_unsigned,
    .on_string = on_string,
    .on_string_handle = on_string_handle,
};

nvtxwResultCode_t event_info_walk(const core_event* event, unsigned flags, strbuf* text,
                                  event_info* info, core_event_facts* facts) {
    info_walk w;
    memset(info, 0, sizeof *info);
    memset(&w, 0, sizeof w);
    w.info = info;
    w.schemas = event->stream->domain->schemas;
    w.text = text;
    w.mark = text->length;
    w.flags = flags;
    return core_event_visit(event, &info_visitor, &w, NVTXW_VISIT_ALLOW_FOREIGN_POINTERS, facts);
}

int event_info_time(const event_info* info, int end_side, int64_t* time) {
    if (end_side ? info->has_end : info->has_begin) {
        *time = end_side ? info->end : info->begin;
        return 1;
    }
    if (info->has_point)
        *time = info->point;
    return info->has_point;
}
