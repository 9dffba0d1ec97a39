/*
 * sink/perfetto/perfetto_direct.c - events of common payloads encoded
 * without the visitor: the same perfetto_event and debug annotations that
 * perfetto_visit.c makes of them, read straight from the payload bytes.
 *
 * Most events carry a payload of a fixed-layout schema (timestamps, a
 * registered-string message, a few numbers: every event helper's and the
 * converters' schemas), sometimes followed by an inline UTF-8 message. For
 * those the walk and its callbacks were two thirds of the sink's work. A
 * stream keeps, per schema it writes, a plan made once from the layout the
 * walk itself reads (payload/fixed_layout.h): per field its offset, width,
 * fixed array length or enum, kind (attribute, argument, hidden) and its
 * argument name's iid. An event is encoded here when every payload of it
 * has such a plan and passes the core's fast check (core_fast_payload_valid:
 * the checks the walk would make); anything else (a predefined-type or
 * REFERENCED payload, a schema with nested, variable-length or string
 * fields, a counter group, a message that is not UTF-8) takes the
 * visitor, which also names what is invalid.
 *
 * The rules are perfetto_visit.c's, field by field; a field whose
 * combination of kind and type that file treats specially (a message flag
 * on a number or an enum, a timestamp flag on a float or a handle, an
 * array of handles) makes the whole schema take the visitor.
 * tests/unit/perfetto_direct_test.c writes random
 * schemas and values both ways and compares the files byte for byte.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/compiler.h"
#include "common/slot_hash.h"
#include "common/utf8.h"
#include "payload/fixed_layout.h"
#include "sink/perfetto/perfetto_internal.h"
#include "sink/perfetto/perfetto_pb.h"

/* One field of a plan. */
typedef struct direct_field {
    const nvtxw_field_info_t* field; /* lives with the schema */
    const nvtxw_enum_t* enumeration; /* an enum (op: its unsigned width), else NULL */
    uint32_t offset;
    uint32_t elements;            /* 0: one value; else a fixed array of this many */
    uint8_t size;                 /* bytes of a value (an element) */
    uint8_t op;                   /* flat_op_t; FLAT_OP_NONE for the string of a message schema */
    uint8_t kind;                 /* enum sink_field_kind */
    uint8_t flow;                 /* enum sink_field_flow (an integer argument or hidden) */
    uint8_t is_scope;             /* a SCOPE_ID: the first naming a task makes a task event */
    uint64_t generation, key_iid; /* key_iid valid while generation is the stream's */
} direct_field;

struct perfetto_direct_plan {
    uint64_t schema_id;
    const core_fast_plan* fast; /* NULL: the schema's payloads take the visitor */
    const char* title;          /* the schema's name, NULL when it has none */
    int role;                   /* schema flags >> 3 & 0xF */
    int is_string;              /* DYNAMIC, one inline NUL-terminated string: fields[0] */
    size_t count;
    direct_field fields[];
};

/* The op an unsigned of `size` bytes is read with (an enum's value). */
static flat_op_t unsigned_op(size_t size) {
    return size == 1   ? FLAT_OP_UNSIGNED_1
           : size == 2 ? FLAT_OP_UNSIGNED_2
           : size == 4 ? FLAT_OP_UNSIGNED_4
           : size == 8 ? FLAT_OP_UNSIGNED_8
                       : FLAT_OP_NONE;
}

/* Whether a value's op and its field's kind are ones this file encodes as
 * the visitor would. */
static int value_supported(flat_op_t op, int kind) {
    switch (op) {
    case FLAT_OP_UNSIGNED_1:
    case FLAT_OP_UNSIGNED_2:
    case FLAT_OP_UNSIGNED_4:
    case FLAT_OP_UNSIGNED_8:
    case FLAT_OP_SIGNED_1:
    case FLAT_OP_SIGNED_2:
    case FLAT_OP_SIGNED_4:
    case FLAT_OP_SIGNED_8:
        return kind != SINK_FIELD_MESSAGE;
    case FLAT_OP_FLOAT32:
    case FLAT_OP_FLOAT64:
        return kind == SINK_FIELD_ARGS || kind == SINK_FIELD_SKIP;
    case FLAT_OP_HANDLE_8:
        return kind == SINK_FIELD_ARGS || kind == SINK_FIELD_SKIP || kind == SINK_FIELD_MESSAGE;
    default: /* converted floats, narrow handles: rare, the visitor's */
        return 0;
    }
}

/* The same for a whole field, and the op its values are read with: an
 * array of numbers is an argument (or hidden), its elements never
 * attributes; an enum is read as an unsigned and named. */
static int field_supported(const fixed_field* f, int kind, flat_op_t* op) {
    *op = f->enumeration != NULL ? unsigned_op(f->size) : f->op;
    if (f->elements > 0)
        return (kind == SINK_FIELD_ARGS || kind == SINK_FIELD_SKIP) && *op != FLAT_OP_HANDLE_8 &&
               value_supported(*op, SINK_FIELD_ARGS) && f->elements <= UINT32_MAX;
    return value_supported(*op, kind) && !(f->enumeration != NULL && kind == SINK_FIELD_MESSAGE);
}

static void field_init(direct_field* d, const fixed_field* f, flat_op_t op, int kind) {
    d->field = f->field;
    d->enumeration = f->enumeration;
    d->offset = (uint32_t)f->offset;
    d->elements = (uint32_t)f->elements;
    d->size = (uint8_t)f->size;
    d->op = (uint8_t)op;
    d->kind = (uint8_t)kind;
    d->flow = (uint8_t)sink_field_flow_of(f->field, kind);
    d->is_scope = f->field->type == NVTX_PAYLOAD_ENTRY_TYPE_SCOPE_ID;
    d->generation = UINT64_MAX; /* no iid yet */
    d->key_iid = 0;
}

/* The fields of a schema of fixed layout into `plan` (sized for them); 0
 * when one is not supported. */
static int plan_fixed(perfetto_direct_plan* plan, const fixed_field* layout, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) {
        int kind = sink_field_kind_of(layout[i].field);
        flat_op_t op;
        if (!field_supported(&layout[i], kind, &op) || layout[i].offset > UINT32_MAX)
            return 0;
        field_init(&plan->fields[i], &layout[i], op, kind);
    }
    plan->count = n;
    return 1;
}

/* A message schema's string: a message, hidden, or else an argument (the
 * visitor writes a string of any other kind as one). */
static void plan_string(perfetto_direct_plan* plan, const nvtxw_field_info_t* field) {
    fixed_field string = {field, 0, 1, FLAT_OP_NONE, 0, NULL};
    int kind = sink_field_kind_of(field);
    if (kind != SINK_FIELD_MESSAGE && kind != SINK_FIELD_SKIP)
        kind = SINK_FIELD_ARGS;
    field_init(&plan->fields[0], &string, FLAT_OP_NONE, kind);
    plan->is_string = 1;
    plan->count = 1;
}

/* The plan of a registered schema (fast NULL when its payloads take the
 * visitor); NULL when the schema is not registered (not remembered: it
 * may be registered later) or out of memory. */
static perfetto_direct_plan* plan_make(const core_domain* domain, uint64_t schema_id) {
    const nvtxw_schema_t* schema = nvtxw_schema_registry_find_schema(domain->schemas, schema_id);
    fixed_field layout[PERFETTO_DIRECT_FIELDS];
    nvtxPayloadSchemaAttr_t attr;
    perfetto_direct_plan* plan;
    size_t n;
    if (schema == NULL)
        return NULL;
    n = fixed_layout_of(schema, layout, PERFETTO_DIRECT_FIELDS);
    plan = nvtxw_calloc(1, sizeof *plan + (n > 0 ? n : 1) * sizeof plan->fields[0]);
    if (plan == NULL)
        return NULL;
    nvtxw_schema_get_attr(schema, &attr);
    plan->schema_id = schema_id;
    plan->role = (int)(attr.flags >> 3 & 0xF);
    plan->title = nvtxw_schema_name(schema)[0] != '\0' ? nvtxw_schema_name(schema) : NULL;
    plan->fast = core_fast_plan_of(domain, schema_id);
    if (plan->fast == NULL || plan->role == 1) { /* counter groups: samples, the visitor's */
        plan->fast = NULL;
    } else if (n > 0) {
        if (!plan_fixed(plan, layout, n))
            plan->fast = NULL;
    } else if (attr.type == NVTX_PAYLOAD_SCHEMA_TYPE_DYNAMIC && attr.numEntries == 1 &&
               plan->fast->sequence_count == 0) {
        plan_string(plan, fixed_field_info(schema, 0)); /* one string without semantics */
    } else {
        plan->fast = NULL;
    }
    return plan;
}

/* The stream's plan of a schema, made on first use: a slot taken by
 * another schema is given to this one, unless the event's earlier
 * payloads (plans[0 .. count-1]) use that plan (then NULL: the visitor). */
static perfetto_direct_plan* plan_of(perfetto_stream* st, uint64_t schema_id,
                                     perfetto_direct_plan* const* plans, size_t count) {
    perfetto_direct_plan** slot = &st->direct[slot_hash(schema_id, PERFETTO_DIRECT_BITS)];
    perfetto_direct_plan* plan = *slot;
    size_t i;
    if (plan != NULL && plan->schema_id == schema_id)
        return plan;
    for (i = 0; i < count; i++)
        if (plans[i] != NULL && plans[i] == *slot)
            return NULL;
    if ((plan = plan_make(st->stream->domain, schema_id)) == NULL)
        return NULL;
    nvtxw_free(*slot);
    *slot = plan;
    return plan;
}

void perfetto_direct_free(perfetto_stream* st) {
    size_t i;
    for (i = 0; i < sizeof st->direct / sizeof st->direct[0]; i++) {
        nvtxw_free(st->direct[i]);
        st->direct[i] = NULL;
    }
}

/* Whether the visitor would pass these bytes as they are: well-formed
 * UTF-8 (else it transcodes them). */
static int utf8_well_formed(const unsigned char* s, size_t n) {
    size_t k = 0, used;
    while (k < n) {
        if (s[k] < 0x80) {
            k++;
            continue;
        }
        if ((used = utf8_sequence_length(s + k, n - k)) == 0)
            return 0;
        k += used;
    }
    return 1;
}

/* The string of a message schema's payload: up to its NUL, or all of it
 * (as the walk reads it); 0 when it is not well-formed UTF-8. */
static int payload_string(const nvtxPayloadData_t* p, const char** text, size_t* length) {
    const char* nul = memchr(p->payload, 0, p->size);
    *text = p->payload;
    *length = nul != NULL ? (size_t)(nul - *text) : p->size;
    return utf8_well_formed((const unsigned char*)*text, *length);
}

/* key_iid's lookup when the field's iid is not of the current state. */
static NVTXW_NOINLINE int key_iid_lookup(perfetto_stream* st, direct_field* f, size_t index,
                                         uint64_t* iid) {
    char unnamed[40];
    int status;
    if (f->field->name[0] != '\0') {
        status = perfetto_stream_intern_stable(st, &st->keys, 3, f->field->name, iid);
    } else {
        snprintf(unnamed, sizeof unnamed, "<field_%zu>", index);
        status = perfetto_stream_intern(st, &st->keys, 3, unnamed, strlen(unnamed), iid);
    }
    if (status != 0)
        return -1;
    f->generation = st->generation;
    f->key_iid = *iid;
    return 0;
}

/* The iid of a field's argument name: its name, or "<field_K>" when it
 * has none (K = its index in the schema). */
static NVTXW_ALWAYS_INLINE int key_iid(perfetto_stream* st, direct_field* f, size_t index,
                                       uint64_t* iid) {
    if (f->generation == st->generation) {
        *iid = f->key_iid;
        return 0;
    }
    return key_iid_lookup(st, f, index, iid);
}

/* A DebugAnnotation value field: varint `bits` (3 uint_value, 4
 * int_value) or fixed64 `bits` (5 double_value); room made by the caller. */
static NVTXW_ALWAYS_INLINE void put_raw_value(strbuf* args, uint32_t number, uint64_t bits) {
    unsigned i;
    if (number != 5) {
        pb_put_field(args, number, bits);
        return;
    }
    pb_put_tag(args, 5, PB_FIXED64);
    for (i = 0; i < 8; i++)
        args->data[args->length++] = (char)(bits >> (8 * i));
}

/* A debug annotation {name_iid, value} of an integer (value field 3 or 4)
 * or a double (5): at most 22 bytes, so its length is one byte. */
static NVTXW_ALWAYS_INLINE int put_number(perfetto_stream* st, direct_field* f, size_t index,
                                          uint32_t number, uint64_t bits) {
    strbuf* args = &st->args;
    size_t mark;
    uint64_t iid;
    if (key_iid(st, f, index, &iid) != 0 || pb_room(args, 2 + 2 * PB_FIELD_MAX) != 0)
        return -1;
    mark = pb_put_open(args, 4);
    pb_put_field(args, 1, iid);
    put_raw_value(args, number, bits);
    args->data[mark - 1] = (char)(args->length - mark); /* at most 22 bytes */
    return 0;
}

static int put_text(perfetto_stream* st, direct_field* f, size_t index, const char* text,
                    size_t length) {
    size_t mark;
    uint64_t iid;
    if (key_iid(st, f, index, &iid) != 0 || (mark = pb_open(&st->args, 4)) == SIZE_MAX ||
        pb_varint(&st->args, 1, iid) != 0 || pb_string(&st->args, 6, text, length) != 0)
        return -1;
    return pb_close(&st->args, mark);
}

/* An integer field: an attribute of the event, or an argument (int_value
 * 4 or uint_value 3) that may also be a flow's end or name the event's
 * task; a hidden one may still bind a flow. */
static NVTXW_ALWAYS_INLINE int put_integer(perfetto_stream* st, direct_field* f, size_t index,
                                           uint64_t value, int is_signed) {
    perfetto_event* ev = &st->ev;
    if (perfetto_store_attribute(st, f->kind, f->field->time_domain_id, value))
        return 0;
    if (f->flow == SINK_FLOW_OUT && value != 0)
        ev->has_flow_out = 1, ev->flow_out = value;
    else if (f->flow == SINK_FLOW_IN && value != 0)
        ev->has_flow_in = 1, ev->flow_in = value;
    if (f->kind == SINK_FIELD_SKIP)
        return 0;
    if (f->is_scope && ev->task == NULL)
        ev->task = perfetto_task_find(st->sink, st->stream->domain, value);
    return put_number(st, f, index, is_signed ? 4 : 3, value);
}

/* A registered string handle: the message (its text interned by address),
 * or an argument; handle 0 ("no string") is left out as an argument and
 * written "0x0" as a message. */
static int put_handle(perfetto_stream* st, direct_field* f, size_t index, uint64_t handle) {
    const char* text = handle != 0 ? core_domain_string(st->stream->domain, handle) : NULL;
    if (f->kind == SINK_FIELD_SKIP || (text == NULL && f->kind == SINK_FIELD_ARGS))
        return 0;
    if (text == NULL)
        return put_text(st, f, index, "0x0", 3);
    if (f->kind == SINK_FIELD_MESSAGE) {
        st->ev.has_message = 1;
        st->ev.stable_message = text;
        return 0;
    }
    return put_text(st, f, index, text, strlen(text));
}

/* A message schema's string, `length` bytes at `text` (payload_string's). */
static int put_string(perfetto_stream* st, direct_field* f, const char* text, size_t length) {
    if (f->kind == SINK_FIELD_SKIP)
        return 0;
    if (f->kind == SINK_FIELD_ARGS)
        return put_text(st, f, 0, text, length);
    st->ev.has_message = 1;
    st->ev.stable_message = NULL;
    strbuf_clear(&st->name);
    return strbuf_append(&st->name, text, length);
}

/* Reads a number as the walk does (op: not a handle): its DebugAnnotation
 * value field (3 uint_value, 4 int_value, 5 double_value) and its bits
 * there (a double's as they are). */
static NVTXW_ALWAYS_INLINE uint32_t read_number(flat_op_t op, const uint8_t* p, uint64_t* bits) {
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    int8_t s8;
    int16_t s16;
    int32_t s32;
    float f32;
    double f64;
    switch (op) {
    case FLAT_OP_UNSIGNED_1:
        return memcpy(&u8, p, 1), *bits = u8, 3;
    case FLAT_OP_UNSIGNED_2:
        return memcpy(&u16, p, 2), *bits = u16, 3;
    case FLAT_OP_UNSIGNED_4:
        return memcpy(&u32, p, 4), *bits = u32, 3;
    case FLAT_OP_UNSIGNED_8:
        return memcpy(bits, p, 8), 3;
    case FLAT_OP_SIGNED_1:
        return memcpy(&s8, p, 1), *bits = (uint64_t)(int64_t)s8, 4;
    case FLAT_OP_SIGNED_2:
        return memcpy(&s16, p, 2), *bits = (uint64_t)(int64_t)s16, 4;
    case FLAT_OP_SIGNED_4:
        return memcpy(&s32, p, 4), *bits = (uint64_t)(int64_t)s32, 4;
    case FLAT_OP_SIGNED_8:
        return memcpy(bits, p, 8), 4;
    case FLAT_OP_FLOAT32:
        memcpy(&f32, p, 4);
        f64 = f32;
        return memcpy(bits, &f64, 8), 5;
    default: /* FLAT_OP_FLOAT64: plan_fixed admits no other */
        return memcpy(bits, p, 8), 5;
    }
}

/* A field holding one number or handle. */
static NVTXW_ALWAYS_INLINE int put_value(perfetto_stream* st, direct_field* f, size_t index,
                                         const uint8_t* p) {
    uint64_t bits;
    uint32_t number;
    if (f->op == FLAT_OP_HANDLE_8) {
        memcpy(&bits, p, 8);
        return put_handle(st, f, index, bits);
    }
    number = read_number((flat_op_t)f->op, p, &bits);
    if (number != 5)
        return put_integer(st, f, index, bits, number == 4);
    return f->kind == SINK_FIELD_SKIP ? 0 : put_number(st, f, index, 5, bits);
}

/* An enum: its name as a string argument (whatever the field's kind, as
 * the visitor's on_enum), or, without one, its number. */
static int put_enum(perfetto_stream* st, direct_field* f, size_t index, const uint8_t* p) {
    char scratch[FIXED_ENUM_NAMES];
    const char* name;
    uint64_t value;
    (void)read_number((flat_op_t)f->op, p, &value);
    if ((name = fixed_enum_name(f->enumeration, value, scratch, sizeof scratch)) == NULL)
        return put_integer(st, f, index, value, 0);
    return f->kind == SINK_FIELD_SKIP ? 0 : put_text(st, f, index, name, strlen(name));
}

/* A fixed array of numbers: one argument whose array_values (12) hold one
 * annotation of a value each. */
static int put_array(perfetto_stream* st, direct_field* f, size_t index, const uint8_t* p) {
    strbuf* args = &st->args;
    size_t mark, element, k;
    uint64_t iid, bits;
    if (f->kind == SINK_FIELD_SKIP)
        return 0;
    if (key_iid(st, f, index, &iid) != 0 || (mark = pb_open(args, 4)) == SIZE_MAX ||
        pb_varint(args, 1, iid) != 0)
        return -1;
    for (k = 0; k < f->elements; k++, p += f->size) {
        uint32_t number = read_number((flat_op_t)f->op, p, &bits);
        if (pb_room(args, 2 + PB_FIELD_MAX) != 0)
            return -1;
        element = pb_put_open(args, 12);
        put_raw_value(args, number, bits);
        args->data[element - 1] = (char)(args->length - element); /* at most 11 bytes */
    }
    return pb_close(args, mark);
}

static int put_field(perfetto_stream* st, direct_field* f, size_t index, const uint8_t* p) {
    if (f->elements > 0)
        return put_array(st, f, index, p);
    if (f->enumeration != NULL)
        return put_enum(st, f, index, p);
    return put_value(st, f, index, p);
}

/* One payload by its plan; `length`: a message schema's string length. */
static int put_payload(perfetto_stream* st, perfetto_direct_plan* plan, const nvtxPayloadData_t* p,
                       size_t length) {
    const uint8_t* base = p->payload;
    size_t i;
    if (st->ev.title == NULL && plan->title != NULL)
        st->ev.title = plan->title;
    if (st->ev.role == 0)
        st->ev.role = plan->role;
    if (plan->is_string)
        return put_string(st, &plan->fields[0], p->payload, length);
    for (i = 0; i < plan->count; i++)
        if (put_field(st, &plan->fields[i], i, base + plan->fields[i].offset) != 0)
            return -1;
    return 0;
}

int perfetto_direct_event(perfetto_stream* st, const core_event* event) {
    perfetto_direct_plan* plans[PERFETTO_DIRECT_PAYLOADS];
    size_t lengths[PERFETTO_DIRECT_PAYLOADS]; /* of a message schema's string */
    const core_domain* domain = st->stream->domain;
    size_t i;
    if (event->count > PERFETTO_DIRECT_PAYLOADS)
        return 0;
    /* every payload checked before any is written: a payload that takes
     * the visitor sends the whole event there */
    for (i = 0; i < event->count; i++) {
        const nvtxPayloadData_t* p = &event->payloads[i];
        const char* text;
        plans[i] = NULL;
        lengths[i] = 0;
        if (p->size == 0)
            continue; /* no callbacks from the walk either */
        if (p->schemaId < NVTX_PAYLOAD_SCHEMA_ID_STATIC_START ||
            (plans[i] = plan_of(st, p->schemaId, plans, i)) == NULL || plans[i]->fast == NULL ||
            !core_fast_payload_valid(domain, plans[i]->fast, p) ||
            (plans[i]->is_string && !payload_string(p, &text, &lengths[i])))
            return 0;
    }
    for (i = 0; i < event->count; i++)
        if (plans[i] != NULL && put_payload(st, plans[i], &event->payloads[i], lengths[i]) != 0)
            return -1;
    return 1;
}
