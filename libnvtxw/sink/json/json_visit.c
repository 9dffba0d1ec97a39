/*
 * sink/json/json_visit.c - the visitor that turns one event's payloads
 * into a json_event (role, timestamps, message, range ID, category,
 * color) plus the members of its "args" object.
 *
 * A top-level field of a payload is an event attribute when it is a scalar
 * of one of these kinds (spec 3.3, 3.10; later values win):
 *   TIMESTAMP with RANGE_BEGIN / RANGE_END / MARK or no role   -> times
 *   EVENT_MESSAGE (any string type, or registered string)      -> name
 *   RANGE_ID, CATEGORY, COLOR_ARGB entry types                 -> id, cat, cname
 * Every other field becomes an "args" member:
 *   member := key ':' value     key := field name | "value" (a predefined
 *   type's payload) | "<field_K>" (unnamed, K = position in its object)
 *   value  := number | string | "0x.." (bytes) | enum name | null
 *           | '[' values ']' | '{' members '}'
 *           | the JSON value of a JSON-text string (NVTXW_SEMANTIC_ID_JSON_TEXT),
 *             compacted; a string when it is not valid JSON (counted)
 * A top-level SCOPE_ID field naming a task scope (the first one) and the
 * integer fields "flow_out" / "flow_in" are noted as well and stay args
 * (hidden flow fields bind their flow and are not shown).
 * HIDE fields are left out. Keys of top-level fields are written at their
 * first value, so a field announced as an attribute that turns out to be an
 * array or a non-integer is still kept, as an arg. With `numeric_only`
 * (counter samples) only top-level scalar numbers are members.
 */
#include "config.h"

#include <string.h>

#include "common/json_value.h"
#include "nvtxw/payload.h"
#include "sink/json/json_internal.h"
#include "sink/shared/field_kind.h"

void json_visit_reset(json_stream* st, int numeric_only) {
    memset(&st->ev, 0, sizeof st->ev);
    strbuf_clear(&st->args);
    strbuf_clear(&st->name);
    st->numeric_only = numeric_only;
    st->depth = 0;
    memset(&st->frames[0], 0, sizeof st->frames[0]);
}

/* A timestamp of the open field in the session's time domain. */
static int64_t event_ts(json_stream* st, uint64_t value) {
    return time_map_convert(&st->times, st->field_time_domain, (int64_t)value);
}

/* Stores an integer attribute; 0 when the open field is not one. */
static int store_integer(json_stream* st, uint64_t value) {
    json_event* ev = &st->ev;
    if (st->depth != 0)
        return 0;
    switch (st->field_kind) {
    case SINK_FIELD_BEGIN:
        ev->has_begin = 1, ev->begin = event_ts(st, value);
        return 1;
    case SINK_FIELD_END:
        ev->has_end = 1, ev->end = event_ts(st, value);
        return 1;
    case SINK_FIELD_POINT:
        ev->has_point = 1, ev->point = event_ts(st, value);
        return 1;
    case SINK_FIELD_RANGE_ID:
        ev->has_range_id = 1, ev->range_id = value;
        return 1;
    case SINK_FIELD_CATEGORY:
        ev->has_category = 1, ev->category = value;
        return 1;
    case SINK_FIELD_COLOR:
        ev->has_color = 1, ev->color = (uint32_t)value;
        return 1;
    default:
        return 0;
    }
}

/* Writes `"key":` of the open top-level field into args. */
static int write_top_key(json_stream* st) {
    json_frame* top = &st->frames[0];
    int status = top->items > 0 && strbuf_append(&st->args, ",", 1) != 0;
    top->items++;
    st->key_written = 1;
    st->field_kind = SINK_FIELD_ARGS;
    if (status == 0 && st->field_name[0] != '\0')
        status = json_put_stable(st, &st->args, st->field_name);
    else if (status == 0 && st->payload_schema < NVTX_PAYLOAD_SCHEMA_ID_STATIC_START)
        status = strbuf_append(&st->args, "\"value\"", 7);
    else if (status == 0)
        status = strbuf_append(&st->args, "\"<field_", 8) ||
                 json_put_u64(&st->args, top->fields - 1) || strbuf_append(&st->args, ">\"", 2);
    return status || strbuf_append(&st->args, ":", 1);
}

/*
 * Prepares the slot of the next value (scalar, or the start of an array or
 * object): 1 = write it, 0 = drop it, -1 = out of memory. `number` tells
 * whether it is a scalar number (counters keep only those).
 */
static int value_slot(json_stream* st, int number) {
    json_frame* frame = &st->frames[st->depth];
    if (st->depth == 0) {
        if (st->field_kind == SINK_FIELD_SKIP || (st->numeric_only && !number))
            return 0;
        if (!st->key_written && write_top_key(st) != 0)
            return -1;
        return 1;
    }
    if (st->field_kind == SINK_FIELD_SKIP)
        return 0;
    if (frame->is_array) {
        if (frame->items++ > 0 && strbuf_append(&st->args, ",", 1) != 0)
            return -1;
    } else {
        frame->has_value = 1;
    }
    return 1;
}

static int open_container(json_stream* st, int is_array) {
    int slot;
    if (st->depth >= CHROME_MAX_DEPTH)
        return -1;
    if (st->depth == 0 && st->numeric_only)
        st->field_kind = SINK_FIELD_SKIP;
    slot = value_slot(st, 0);
    if (slot < 0)
        return -1;
    st->depth++;
    memset(&st->frames[st->depth], 0, sizeof st->frames[0]);
    st->frames[st->depth].is_array = (unsigned char)is_array;
    return slot == 0 ? 0 : strbuf_append(&st->args, is_array ? "[" : "{", 1);
}

static int close_container(json_stream* st, int is_array) {
    if (st->depth == 0)
        return -1;
    st->depth--;
    if (st->field_kind == SINK_FIELD_SKIP)
        return 0;
    return strbuf_append(&st->args, is_array ? "]" : "}", 1);
}

static int on_payload_begin(void* ctx, size_t index, uint64_t schema_id, size_t size,
                            const char* schema_name) {
    json_stream* st = ctx;
    (void)index, (void)size;
    st->payload_schema = schema_id;
    st->frames[0].fields = 0;
    if (st->ev.title == NULL && schema_name != NULL && schema_name[0] != '\0' &&
        schema_id >= NVTX_PAYLOAD_SCHEMA_ID_STATIC_START)
        st->ev.title = schema_name;
    if (st->ev.role == 0 && schema_id >= NVTX_PAYLOAD_SCHEMA_ID_STATIC_START) {
        int role = json_schema_role(st, schema_id);
        if (role >= 0) {
            st->ev.role = role;
            if (role == 1) /* a counter group written as an event */
                st->numeric_only = 1;
        }
    }
    return 0;
}

static int on_field_begin(void* ctx, const nvtxw_field_info_t* field) {
    json_stream* st = ctx;
    json_frame* frame = &st->frames[st->depth];
    frame->fields++;
    if (st->depth == 0) {
        st->field_kind = sink_field_kind_of(field);
        st->field_flow = sink_field_flow_of(field, st->field_kind);
        st->field = field;
        st->field_name = field->name;
        st->field_type = field->type;
        st->field_time_domain = field->time_domain_id;
        st->key_written = 0;
        return 0;
    }
    if (st->field_kind == SINK_FIELD_SKIP)
        return 0;
    st->field = field;
    frame->has_value = 0;
    if (frame->items++ > 0 && strbuf_append(&st->args, ",", 1) != 0)
        return -1;
    if (field->name[0] != '\0')
        return json_put_stable(st, &st->args, field->name) || strbuf_append(&st->args, ":", 1);
    return strbuf_append(&st->args, "\"<field_", 8) || json_put_u64(&st->args, frame->fields - 1) ||
           strbuf_append(&st->args, ">\":", 3);
}

static int on_field_end(void* ctx, const nvtxw_field_info_t* field) {
    json_stream* st = ctx;
    (void)field;
    if (st->depth == 0) {
        if (st->field_kind == SINK_FIELD_ARGS && !st->key_written && !st->numeric_only)
            return write_top_key(st) || strbuf_append(&st->args, "null", 4);
        return 0;
    }
    if (st->field_kind == SINK_FIELD_SKIP || st->frames[st->depth].has_value)
        return 0;
    return strbuf_append(&st->args, "null", 4);
}

static int on_array_begin(void* ctx, uint64_t length) {
    (void)length;
    return open_container(ctx, 1);
}

static int on_array_end(void* ctx) { return close_container(ctx, 1); }

static int on_object_begin(void* ctx, uint64_t schema_id) {
    (void)schema_id;
    return open_container(ctx, 0);
}

static int on_object_end(void* ctx) { return close_container(ctx, 0); }

/* A top-level integer field named "flow_out" or "flow_in" with a value
 * other than 0 also makes the event the start or the end of that flow
 * (docs/chrome-json.md, Flows); the field stays in args unless hidden. */
static void note_flow(json_stream* st, uint64_t value) {
    if (st->depth != 0 || st->field_flow == SINK_FLOW_NONE || value == 0)
        return;
    if (st->field_flow == SINK_FLOW_OUT)
        st->ev.has_flow_out = 1, st->ev.flow_out = value;
    else
        st->ev.has_flow_in = 1, st->ev.flow_in = value;
}

/* The first top-level SCOPE_ID field naming a task scope makes the event a
 * task event (docs/chrome-json.md, Tasks); the field stays in args. */
static void note_task(json_stream* st, uint64_t value) {
    if (st->depth != 0 || st->field_type != NVTX_PAYLOAD_ENTRY_TYPE_SCOPE_ID ||
        st->ev.task != NULL || st->field_kind != SINK_FIELD_ARGS)
        return;
    st->ev.task = json_task_find(st->sink, st->stream->domain, value);
}

static int on_signed(void* ctx, int64_t value) {
    json_stream* st = ctx;
    int slot;
    if (store_integer(st, (uint64_t)value))
        return 0;
    note_flow(st, (uint64_t)value);
    slot = value_slot(st, 1);
    return slot <= 0 ? slot : json_put_i64(&st->args, value);
}

static int on_unsigned(void* ctx, uint64_t value) {
    json_stream* st = ctx;
    int slot;
    if (store_integer(st, value))
        return 0;
    note_flow(st, value);
    note_task(st, value);
    slot = value_slot(st, 1);
    return slot <= 0 ? slot : json_put_u64(&st->args, value);
}

static int on_float(void* ctx, double value) {
    json_stream* st = ctx;
    int slot = value_slot(st, 1);
    return slot <= 0 ? slot : json_put_double(&st->args, value);
}

/* The message attribute, or an arg when the field is something else. */
static int on_text(json_stream* st, const char* text, size_t length) {
    int slot;
    if (st->depth == 0 && st->field_kind == SINK_FIELD_MESSAGE) {
        st->ev.has_message = 1;
        strbuf_clear(&st->name);
        return strbuf_append(&st->name, text, length);
    }
    slot = value_slot(st, 0);
    if (slot > 0 && json_value_field(st->field)) {
        int valid = json_put_value(st, st->field, text, length);
        if (valid <= 0)
            return valid;
        st->json_invalid++;
    }
    return slot <= 0 ? slot : json_put_string(&st->args, text, length);
}

static int on_string(void* ctx, const char* utf8, size_t length) {
    return on_text(ctx, utf8, length);
}

static int on_string_handle(void* ctx, uint64_t handle, const char* text) {
    json_stream* st = ctx;
    int slot;
    if (text != NULL)
        return on_text(st, text, strlen(text));
    /* Handle 0 is "no string" (a task's reason, a slice without a name): a
     * top-level args field is left out rather than written as "0x0" (or
     * null), which the Chrome input would read back as that string. */
    if (handle == 0 && st->depth == 0 && st->field_kind == SINK_FIELD_ARGS && !st->key_written) {
        st->field_kind = SINK_FIELD_SKIP; /* no key, and no null at the field's end */
        return 0;
    }
    slot = value_slot(st, 0); /* the core resolves every handle it accepts */
    return slot <= 0 ? slot : json_put_hex_id(&st->args, handle);
}

static int on_bytes(void* ctx, const void* data, size_t size) {
    json_stream* st = ctx;
    static const char hex[] = "0123456789abcdef";
    const unsigned char* bytes = data;
    size_t i;
    int slot = value_slot(st, 0);
    if (slot <= 0)
        return slot;
    if (strbuf_append(&st->args, "\"0x", 3) != 0 || strbuf_reserve(&st->args, size * 2 + 1) != 0)
        return -1;
    for (i = 0; i < size; i++) {
        char pair[2] = {hex[bytes[i] >> 4], hex[bytes[i] & 15]};
        strbuf_append(&st->args, pair, 2);
    }
    return strbuf_append(&st->args, "\"", 1);
}

static int on_enum(void* ctx, uint64_t value, const char* name) {
    json_stream* st = ctx;
    int slot;
    if (name == NULL)
        return on_unsigned(ctx, value);
    slot = value_slot(st, 0);
    return slot <= 0 ? slot : json_put_cstring(&st->args, name);
}

static int on_null(void* ctx) {
    json_stream* st = ctx;
    int slot;
    if (st->depth == 0 && st->field_kind == SINK_FIELD_MESSAGE)
        return 0;
    slot = value_slot(st, 0);
    return slot <= 0 ? slot : strbuf_append(&st->args, "null", 4);
}

const nvtxw_visitor_t json_visitor = {
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
    .on_float = on_float,
    .on_string = on_string,
    .on_bytes = on_bytes,
    .on_enum = on_enum,
    .on_string_handle = on_string_handle,
    .on_null = on_null,
};
