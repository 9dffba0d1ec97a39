/*
 * sink/perfetto/perfetto_visit.c - the visitor that turns one event's
 * payloads into a perfetto_event (role, timestamps, message, range ID,
 * category) plus its debug annotations, with the JSON sink's rules for
 * which top-level fields are attributes (docs/chrome-json.md, "args").
 *
 *   annotations := { TrackEvent.debug_annotations(4) = annotation }*
 *   annotation  := name_iid(1) value          top level: the field's name
 *                                             interned ("value" for a
 *                                             predefined type, "<field_K>"
 *                                             unnamed)
 *   entry       := name(10) value             inside an object
 *   element     := value                      inside an array
 *   value       := int_value(4) | uint_value(3) | double_value(5)
 *                | string_value(6)            strings, enum names, bytes
 *                                             as "0x..", registered strings
 *                | { dict_entries(11) = entry }*    nested schema
 *                | { array_values(12) = element }*  array
 *                | legacy_json_value(9) "null"      no value
 *
 * HIDE fields are left out, and so is a top-level registered string handle
 * 0 ("no string"). A top-level integer field "flow_out" / "flow_in" (not 0)
 * and the first SCOPE_ID naming a task scope are noted as well and stay
 * annotations (a hidden flow field binds its flow and is not shown:
 * sink/shared/field_kind.h). With `numeric_only` (counter samples, COUNTER_GROUP events)
 * top-level scalar numbers are collected as samples instead.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/compiler.h"
#include "common/json_value.h"
#include "common/slot_hash.h"
#include "nvtxw/payload.h"
#include "sink/perfetto/perfetto_internal.h"
#include "sink/perfetto/perfetto_pb.h"
#include "sink/shared/field_kind.h"

void perfetto_visit_reset(perfetto_stream* st, int numeric_only) {
    memset(&st->ev, 0, sizeof st->ev);
    strbuf_clear(&st->args);
    strbuf_clear(&st->name);
    st->numeric_only = numeric_only;
    st->sample_count = 0;
    st->depth = 0;
    st->top = SIZE_MAX;
}

/* Stores an integer attribute; 0 when the open field is not one. */
static int store_integer(perfetto_stream* st, uint64_t value) {
    return st->depth == 0 &&
           perfetto_store_attribute(st, st->field_kind, st->field_time_domain, value);
}

/* Opens the annotation of the open top-level field: its interned name. */
static int open_top(perfetto_stream* st) {
    char unnamed[40];
    const char* key = st->field_name;
    uint64_t iid;
    st->field_kind = SINK_FIELD_ARGS;
    if (key[0] == '\0' && st->payload_schema < NVTX_PAYLOAD_SCHEMA_ID_STATIC_START)
        key = "value";
    else if (key[0] == '\0') {
        snprintf(unnamed, sizeof unnamed, "<field_%u>", st->top_fields - 1);
        key = unnamed;
    }
    if (key == st->field_name && st->field_slot != NULL &&
        st->field_slot->generation == st->generation) {
        iid = st->field_slot->key_iid;
    } else if ((key == unnamed ? perfetto_stream_intern(st, &st->keys, 3, key, strlen(key), &iid)
                               : perfetto_stream_intern_stable(st, &st->keys, 3, key, &iid)) != 0) {
        return -1;
    } else if (key == st->field_name && st->field_slot != NULL) {
        st->field_slot->generation = st->generation;
        st->field_slot->key_iid = iid;
    }
    if ((st->top = pb_open(&st->args, 4)) == SIZE_MAX)
        return -1;
    return pb_varint(&st->args, 1, iid);
}

/*
 * Prepares the slot of the next value (a scalar, or the start of an array
 * or object): 1 = write it into st->args, 0 = drop it, -1 = out of
 * memory. An array element gets an annotation of its own, opened here; its
 * mark is in *element (else SIZE_MAX) for the caller to close after it.
 */
static int value_slot(perfetto_stream* st, size_t* element) {
    perfetto_frame* frame = &st->frames[st->depth];
    *element = SIZE_MAX;
    if (st->field_kind == SINK_FIELD_SKIP)
        return 0;
    if (st->depth == 0)
        return st->top == SIZE_MAX && open_top(st) != 0 ? -1 : 1;
    if (frame->is_array)
        return (*element = pb_open(&st->args, 12)) == SIZE_MAX ? -1 : 1;
    if (frame->entry == SIZE_MAX)
        return 0;
    frame->has_value = 1;
    return 1;
}

/* Writes one scalar field of a value where value_slot says. */
static int put_varint(perfetto_stream* st, uint32_t number, uint64_t value) {
    size_t element;
    int slot = value_slot(st, &element);
    if (slot <= 0)
        return slot;
    return pb_varint(&st->args, number, value) ||
           (element != SIZE_MAX && pb_close(&st->args, element));
}

static int put_text(perfetto_stream* st, uint32_t number, const char* text, size_t length) {
    size_t element;
    int slot = value_slot(st, &element);
    if (slot <= 0)
        return slot;
    if (number == 6 && json_value_field(st->field)) {
        int valid = perfetto_put_json(&st->args, text, length);
        if (valid < 0)
            return -1;
        if (valid == 0)
            return element != SIZE_MAX && pb_close(&st->args, element);
        st->json_invalid++;
    }
    return pb_string(&st->args, number, text, length) ||
           (element != SIZE_MAX && pb_close(&st->args, element));
}

/* A counter sample's (or COUNTER_GROUP event's) top-level number: 1 when
 * taken as a sample, 0 when the value is not one. */
static int take_sample(perfetto_stream* st, int is_double, int64_t i, double d) {
    struct perfetto_sample* sample;
    if (!st->numeric_only || st->depth != 0)
        return 0;
    if (st->field_kind == SINK_FIELD_ARGS &&
        st->sample_count < sizeof st->samples / sizeof st->samples[0]) {
        sample = &st->samples[st->sample_count++];
        sample->name = st->field_name[0] != '\0' ? st->field_name : "value";
        sample->is_double = is_double;
        sample->i = i;
        sample->d = d;
    }
    return 1;
}

static int open_container(perfetto_stream* st, int is_array) {
    size_t element;
    int slot;
    perfetto_frame* frame;
    if (st->depth >= PERFETTO_MAX_DEPTH)
        return -1;
    if (st->depth + 1 == st->frame_capacity) {
        size_t capacity = st->frame_capacity * 2;
        perfetto_frame* frames = nvtxw_reallocarray(st->frames, capacity, sizeof *frames);
        if (frames == NULL)
            return -1;
        st->frames = frames;
        st->frame_capacity = capacity;
    }
    if (st->depth == 0 && st->numeric_only)
        st->field_kind = SINK_FIELD_SKIP;
    if ((slot = value_slot(st, &element)) < 0)
        return -1;
    frame = &st->frames[++st->depth];
    memset(frame, 0, sizeof *frame);
    frame->is_array = (unsigned char)is_array;
    frame->element = element; /* closed with the container */
    frame->entry = SIZE_MAX;
    return 0;
}

static int close_container(perfetto_stream* st) {
    size_t element;
    if (st->depth == 0)
        return -1;
    element = st->frames[st->depth--].element;
    return element != SIZE_MAX && pb_close(&st->args, element) != 0 ? -1 : 0;
}

/* The role (flags >> 3 & 0xF) of a registered schema of the stream's
 * domain: a schema's flags never change, so the last few are kept. */
static int schema_role(perfetto_stream* st, uint64_t schema_id) {
    struct perfetto_role* slot = &st->roles[slot_hash(schema_id, PERFETTO_ROLE_BITS)];
    const nvtxw_schema_t* schema;
    nvtxPayloadSchemaAttr_t attr;
    if (slot->schema_id == schema_id && slot->role >= 0)
        return slot->role;
    schema = nvtxw_schema_registry_find_schema(st->stream->domain->schemas, schema_id);
    if (schema == NULL)
        return 0;
    nvtxw_schema_get_attr(schema, &attr);
    slot->schema_id = schema_id;
    slot->role = (int)(attr.flags >> 3 & 0xF);
    return slot->role;
}

static int on_payload_begin(void* ctx, size_t index, uint64_t schema_id, size_t size,
                            const char* schema_name) {
    perfetto_stream* st = ctx;
    (void)index, (void)size;
    st->payload_schema = schema_id;
    st->top_fields = 0;
    if (st->ev.title == NULL && schema_name != NULL && schema_name[0] != '\0' &&
        schema_id >= NVTX_PAYLOAD_SCHEMA_ID_STATIC_START)
        st->ev.title = schema_name;
    if (st->ev.role == 0 && schema_id >= NVTX_PAYLOAD_SCHEMA_ID_STATIC_START) {
        st->ev.role = schema_role(st, schema_id);
        if (st->ev.role == 1) /* a counter group written as an event */
            st->numeric_only = 1;
    }
    return 0;
}

/* The kind and flow of a top-level field: from the stream's cache for a
 * registered entry (its field info lives with the schema), else worked
 * out (a predefined payload's field info is the walk's own). */
static void field_facts(perfetto_stream* st, const nvtxw_field_info_t* field) {
    struct perfetto_field_slot* slot;
    if (field->entry == NULL) {
        st->field_slot = NULL;
        st->field_kind = sink_field_kind_of(field);
        st->field_flow = sink_field_flow_of(field, st->field_kind);
        return;
    }
    slot = &st->fields[slot_hash((uint64_t)(uintptr_t)field, PERFETTO_FIELD_BITS)];
    if (slot->field != field) {
        slot->field = field;
        slot->kind = sink_field_kind_of(field);
        slot->flow = sink_field_flow_of(field, slot->kind);
        slot->generation = UINT64_MAX; /* no iid yet */
    }
    st->field_slot = slot;
    st->field_kind = slot->kind;
    st->field_flow = slot->flow;
}

/* A field inside a container: an entry of its dictionary. Out of line: the
 * top-level fields, most of them, need none of its registers. */
static NVTXW_NOINLINE int nested_field_begin(perfetto_stream* st, const nvtxw_field_info_t* field) {
    perfetto_frame* frame = &st->frames[st->depth];
    char unnamed[40];
    const char* key = field->name;
    frame->fields++;
    if (st->field_kind == SINK_FIELD_SKIP)
        return 0;
    if (key[0] == '\0') {
        snprintf(unnamed, sizeof unnamed, "<field_%u>", frame->fields - 1);
        key = unnamed;
    }
    frame->has_value = 0;
    st->field = field;
    if ((frame->entry = pb_open(&st->args, 11)) == SIZE_MAX)
        return -1;
    return pb_cstring(&st->args, 10, key);
}

static int on_field_begin(void* ctx, const nvtxw_field_info_t* field) {
    perfetto_stream* st = ctx;
    if (st->depth != 0)
        return nested_field_begin(st, field);
    st->top_fields++;
    st->field = field;
    st->field_name = field->name;
    st->field_type = field->type;
    st->field_time_domain = field->time_domain_id;
    st->top = SIZE_MAX;
    field_facts(st, field);
    return 0;
}

/* A field without a value (a NULL pointer, an empty union) is null, as in
 * the JSON sink. */
static int put_null(perfetto_stream* st) { return pb_cstring(&st->args, 9, "null"); }

static int on_field_end(void* ctx, const nvtxw_field_info_t* field) {
    perfetto_stream* st = ctx;
    perfetto_frame* frame = &st->frames[st->depth];
    (void)field;
    if (st->depth == 0) {
        if (st->field_kind == SINK_FIELD_ARGS && st->top == SIZE_MAX && !st->numeric_only &&
            (open_top(st) != 0 || put_null(st) != 0))
            return -1;
        if (st->top != SIZE_MAX && pb_close(&st->args, st->top) != 0)
            return -1;
        st->top = SIZE_MAX;
        return 0;
    }
    if (frame->entry == SIZE_MAX)
        return 0;
    if ((!frame->has_value && put_null(st) != 0) || pb_close(&st->args, frame->entry) != 0)
        return -1;
    frame->entry = SIZE_MAX;
    return 0;
}

static int on_array_begin(void* ctx, uint64_t length) {
    (void)length;
    return open_container(ctx, 1);
}

static int on_object_begin(void* ctx, uint64_t schema_id) {
    (void)schema_id;
    return open_container(ctx, 0);
}

static int on_container_end(void* ctx) { return close_container(ctx); }

/* A top-level integer field named "flow_out" or "flow_in" (an argument or
 * hidden) with a value other than 0 also makes the event the start or the
 * end of that flow. */
static void note_flow(perfetto_stream* st, uint64_t value) {
    if (st->depth != 0 || st->field_flow == SINK_FLOW_NONE || value == 0)
        return;
    if (st->field_flow == SINK_FLOW_OUT)
        st->ev.has_flow_out = 1, st->ev.flow_out = value;
    else
        st->ev.has_flow_in = 1, st->ev.flow_in = value;
}

/* The first top-level SCOPE_ID field naming a task scope makes the event a
 * task event (docs/tasks.md). */
static void note_task(perfetto_stream* st, uint64_t value) {
    if (st->depth != 0 || st->field_type != NVTX_PAYLOAD_ENTRY_TYPE_SCOPE_ID ||
        st->ev.task != NULL || st->field_kind != SINK_FIELD_ARGS)
        return;
    st->ev.task = perfetto_task_find(st->sink, st->stream->domain, value);
}

static int on_signed(void* ctx, int64_t value) {
    perfetto_stream* st = ctx;
    if (store_integer(st, (uint64_t)value) || take_sample(st, 0, value, 0))
        return 0;
    note_flow(st, (uint64_t)value);
    return put_varint(st, 4, (uint64_t)value);
}

static int on_unsigned(void* ctx, uint64_t value) {
    perfetto_stream* st = ctx;
    if (store_integer(st, value))
        return 0;
    if (take_sample(st, value > INT64_MAX, (int64_t)value, (double)value))
        return 0;
    note_flow(st, value);
    note_task(st, value);
    return put_varint(st, 3, value);
}

static int on_float(void* ctx, double value) {
    perfetto_stream* st = ctx;
    size_t element;
    int slot;
    if (take_sample(st, 1, 0, value))
        return 0;
    if ((slot = value_slot(st, &element)) <= 0)
        return slot;
    return pb_double(&st->args, 5, value) || (element != SIZE_MAX && pb_close(&st->args, element));
}

/* The message attribute, or a string value. */
static int on_text(perfetto_stream* st, const char* text, size_t length) {
    if (st->depth == 0 && st->field_kind == SINK_FIELD_MESSAGE) {
        st->ev.has_message = 1;
        st->ev.stable_message = NULL;
        strbuf_clear(&st->name);
        return strbuf_append(&st->name, text, length);
    }
    if (st->numeric_only && st->depth == 0)
        return 0;
    return put_text(st, 6, text, length);
}

static int on_string(void* ctx, const char* utf8, size_t length) {
    return on_text(ctx, utf8, length);
}

static int on_string_handle(void* ctx, uint64_t handle, const char* text) {
    perfetto_stream* st = ctx;
    char hex[24];
    if (text != NULL && st->depth == 0 && st->field_kind == SINK_FIELD_MESSAGE) {
        st->ev.has_message = 1;
        st->ev.stable_message = text;
        return 0;
    }
    if (text != NULL)
        return on_text(st, text, strlen(text));
    /* Handle 0 is "no string": a top-level field is left out. */
    if (handle == 0 && st->depth == 0 && st->field_kind == SINK_FIELD_ARGS && st->top == SIZE_MAX) {
        st->field_kind = SINK_FIELD_SKIP;
        return 0;
    }
    if (st->numeric_only && st->depth == 0)
        return 0;
    snprintf(hex, sizeof hex, "0x%llx", (unsigned long long)handle);
    return put_text(st, 6, hex, strlen(hex));
}

static int on_bytes(void* ctx, const void* data, size_t size) {
    perfetto_stream* st = ctx;
    static const char digits[] = "0123456789abcdef";
    const unsigned char* bytes = data;
    size_t element, mark, i;
    int slot;
    if (st->numeric_only && st->depth == 0)
        return 0;
    if ((slot = value_slot(st, &element)) <= 0)
        return slot;
    if ((mark = pb_open(&st->args, 6)) == SIZE_MAX || pb_room(&st->args, 2 * size + 2) != 0)
        return -1;
    st->args.data[st->args.length++] = '0';
    st->args.data[st->args.length++] = 'x';
    for (i = 0; i < size; i++) {
        st->args.data[st->args.length++] = digits[bytes[i] >> 4];
        st->args.data[st->args.length++] = digits[bytes[i] & 15];
    }
    return pb_close(&st->args, mark) || (element != SIZE_MAX && pb_close(&st->args, element));
}

static int on_enum(void* ctx, uint64_t value, const char* name) {
    perfetto_stream* st = ctx;
    if (name == NULL)
        return on_unsigned(ctx, value);
    if (st->numeric_only && st->depth == 0)
        return 0;
    return put_text(st, 6, name, strlen(name));
}

static int on_null(void* ctx) {
    perfetto_stream* st = ctx;
    size_t element;
    int slot;
    if (st->depth == 0 && (st->field_kind == SINK_FIELD_MESSAGE || st->numeric_only))
        return 0;
    if ((slot = value_slot(st, &element)) <= 0)
        return slot;
    return put_null(st) || (element != SIZE_MAX && pb_close(&st->args, element));
}

const nvtxw_visitor_t perfetto_visitor = {
    .struct_size = sizeof(nvtxw_visitor_t),
    .payload_begin = on_payload_begin,
    .field_begin = on_field_begin,
    .field_end = on_field_end,
    .array_begin = on_array_begin,
    .array_end = on_container_end,
    .object_begin = on_object_begin,
    .object_end = on_container_end,
    .on_signed = on_signed,
    .on_unsigned = on_unsigned,
    .on_float = on_float,
    .on_string = on_string,
    .on_bytes = on_bytes,
    .on_enum = on_enum,
    .on_string_handle = on_string_handle,
    .on_null = on_null,
};
