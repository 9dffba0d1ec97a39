/*
 * tools/otf2-import/location.c - one location at a time, per worker thread.
 *
 * A worker takes the next selected location, opens its stream (holding
 * im->gate for writing: lifecycle calls must not overlap writes), reads the location's local
 * definitions, which makes OTF2 apply their ID mapping tables and clock offsets to the events, then
 * streams its events through the ev_*.c callbacks, checks that it read as many events as the
 * archive declares, and closes the stream. Nothing of a location outlives it except the task scopes
 * (tasks move between threads).
 */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otf2_import.h"
#include "tool_alloc.h"

#define PROGRESS_BATCH 4096

static const char* const kind_names[] = {
#define IMPORT_EVENT_KIND(name) #name,
#include "event_kinds.inc"
#undef IMPORT_EVENT_KIND
    "TaskSlice", "MpiCollective", "RmaCollective", "MeasurementOff", "IoOperation", "ThreadTeam"};

const char* event_name(int kind) { return kind >= 0 && kind < NAME_COUNT ? kind_names[kind] : "?"; }

void import_fail(importer* im, const char* fmt, ...) {
    va_list ap;
    pthread_mutex_lock(&im->lock);
    if (!atomic_load(&im->failed)) {
        va_start(ap, fmt);
        vsnprintf(im->error, sizeof im->error, fmt, ap);
        va_end(ap);
        atomic_store(&im->failed, 1);
    }
    pthread_mutex_unlock(&im->lock);
}

OTF2_CallbackCode ev_fail(loc_ctx* c, event_kind kind, const char* fmt, ...) {
    char what[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    import_error("location %" PRIu64 " (%s), event #%" PRIu64 " (%s): %s", c->loc->id,
                 c->loc->stream_name, c->event_number, event_name(kind), what);
    c->failed = 1;
    return OTF2_CALLBACK_INTERRUPT;
}

OTF2_CallbackCode ev_begin(loc_ctx* c, event_kind kind, OTF2_TimeStamp time) {
    c->event_number++;
    if (c->event_number > 1 && time < c->last_ticks)
        return ev_fail(c, kind, "timestamp %" PRIu64 " is before the previous event's %" PRIu64,
                       (uint64_t)time, c->last_ticks);
    if (import_ticks_to_ns(&c->im->defs, time, &c->now) != 0)
        return ev_fail(c, kind, "timestamp %" PRIu64 " is out of range in nanoseconds",
                       (uint64_t)time);
    c->last_ticks = time;
    c->last_ns = c->now;
    if (++c->unreported == PROGRESS_BATCH) {
        atomic_fetch_add(&c->im->events_done, c->unreported);
        c->unreported = 0;
        /* let a waiting StreamOpen/StreamClose of another worker in */
        pthread_rwlock_unlock(&c->im->gate);
        pthread_rwlock_rdlock(&c->im->gate);
        if (atomic_load(&c->im->failed) && !c->im->opts.keep_going)
            return OTF2_CALLBACK_INTERRUPT; /* another location failed: stop early */
    }
    return OTF2_CALLBACK_SUCCESS;
}

uint64_t ev_string(const loc_ctx* c, uint32_t string_id) {
    string_def* s = def_table_find(&c->im->defs.strings, string_id, NULL);
    return (uint64_t)(uintptr_t)(s != NULL ? s->handle : c->im->empty);
}

uint64_t ev_named(loc_ctx* c, event_kind kind, const def_table* table, uint64_t id) {
    named_def* d = def_table_find(table, id, NULL);
    if (d == NULL) {
        ev_fail(c, kind, "unknown %s %" PRIu64, table->what, id);
        return 0;
    }
    return ev_string(c, d->name);
}

static int reserve_payloads(loc_ctx* c, size_t count) {
    nvtxPayloadData_t* p;
    uint64_t* v;
    size_t capacity = c->payload_capacity ? c->payload_capacity : 8;
    if (count <= c->payload_capacity)
        return 0;
    while (capacity < count)
        capacity *= 2;
    if ((p = nvtxw_realloc(c->payloads, capacity * sizeof *p)) == NULL)
        return -1;
    c->payloads = p;
    if ((v = nvtxw_realloc(c->attribute_values, capacity * sizeof *v)) == NULL)
        return -1;
    c->attribute_values = v;
    c->payload_capacity = capacity;
    return 0;
}

/* One attribute value into its 8-byte slot, laid out as the attribute's
 * schema entry (register.c: import_attribute_entry_type). */
static int attribute_value(loc_ctx* c, const attribute_def* a, OTF2_Type type,
                           OTF2_AttributeValue value, uint64_t* slot) {
    uint64_t v = 0;
    if (type != a->type)
        return -1;
    switch (type) {
    case OTF2_TYPE_UINT8:
        v = value.uint8;
        break;
    case OTF2_TYPE_UINT16:
        v = value.uint16;
        break;
    case OTF2_TYPE_UINT32:
        v = value.uint32;
        break;
    case OTF2_TYPE_UINT64:
        v = value.uint64;
        break;
    case OTF2_TYPE_INT8:
        v = (uint8_t)value.int8;
        break;
    case OTF2_TYPE_INT16:
        v = (uint16_t)value.int16;
        break;
    case OTF2_TYPE_INT32:
        v = (uint32_t)value.int32;
        break;
    case OTF2_TYPE_INT64:
        v = (uint64_t)value.int64;
        break;
    case OTF2_TYPE_FLOAT:
        memcpy(&v, &value.float32, sizeof value.float32);
        break;
    case OTF2_TYPE_DOUBLE:
        memcpy(&v, &value.float64, sizeof v);
        break;
    case OTF2_TYPE_STRING:
        v = ev_string(c, value.stringRef);
        break;
    case OTF2_TYPE_REGION: {
        region_def* r = def_table_find(&c->im->defs.regions, value.regionRef, NULL);
        v = (uint64_t)(uintptr_t)(r != NULL ? r->handle : c->im->empty);
        break;
    }
    default:
        memcpy(&v, &value, sizeof v < sizeof value ? sizeof v : sizeof value);
        break;
    }
    memcpy(slot, &v, sizeof v); /* little-endian: narrow values sit at offset 0 */
    return 0;
}

/* Appends one payload per attribute after payloads[0]; the count, or -1. */
static OTF2_CallbackCode add_attributes(loc_ctx* c, event_kind kind, OTF2_AttributeList* list,
                                        size_t* count) {
    uint32_t n = list != NULL ? OTF2_AttributeList_GetNumberOfElements(list) : 0;
    *count = 1;
    if (n == 0)
        return OTF2_CALLBACK_SUCCESS;
    if (reserve_payloads(c, (size_t)n + 1) != 0)
        return ev_fail(c, kind, "out of memory for %" PRIu32 " attributes", n);
    for (uint32_t i = 0; i < n; i++) {
        OTF2_AttributeRef ref;
        OTF2_Type type;
        OTF2_AttributeValue value;
        attribute_def* a;
        if (OTF2_AttributeList_GetAttributeByIndex(list, i, &ref, &type, &value) != OTF2_SUCCESS)
            return ev_fail(c, kind, "cannot read attribute %" PRIu32 " of %" PRIu32, i, n);
        if ((a = def_table_find(&c->im->defs.attributes, ref, NULL)) == NULL)
            return ev_fail(c, kind, "unknown attribute %" PRIu32, (uint32_t)ref);
        if (attribute_value(c, a, type, value, &c->attribute_values[i]) != 0)
            return ev_fail(c, kind, "attribute %" PRIu32 " has type %u, defined as %u",
                           (uint32_t)ref, (unsigned)type, (unsigned)a->type);
        c->payloads[i + 1].schemaId = a->schema;
        c->payloads[i + 1].size = 8;
        c->payloads[i + 1].payload = &c->attribute_values[i];
    }
    *count = (size_t)n + 1;
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode ev_write_raw(loc_ctx* c, event_kind kind, event_schema es, const void* data,
                               OTF2_AttributeList* attributes) {
    return ev_write_sized(c, kind, es, data, c->im->layouts.schema[es].size, attributes);
}

OTF2_CallbackCode ev_write_sized(loc_ctx* c, event_kind kind, event_schema es, const void* data,
                                 size_t size, OTF2_AttributeList* attributes) {
    const schema_layout* layout = &c->im->layouts.schema[es];
    nvtxPayloadData_t single;
    nvtxPayloadData_t* payloads = &single;
    size_t count = 1;
    nvtxwResultCode_t rc;
    if (attributes != NULL && OTF2_AttributeList_GetNumberOfElements(attributes) > 0) {
        OTF2_CallbackCode cc = add_attributes(c, kind, attributes, &count);
        if (cc != OTF2_CALLBACK_SUCCESS)
            return cc;
        payloads = c->payloads;
    }
    payloads[0].schemaId = layout->id;
    payloads[0].size = size;
    payloads[0].payload = data;
    rc = c->im->t->EventWrite(c->stream, payloads, count);
    if (rc != NVTXW_RESULT_SUCCESS)
        return ev_fail(c, kind, "cannot write the event: %s", nvtxw_last_error());
    return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode ev_write(loc_ctx* c, event_kind kind, event_schema es, const uint64_t* values,
                           size_t count, OTF2_AttributeList* attributes) {
    uint64_t buf[LAYOUT_MAX_ENTRIES + 2]; /* every event schema is at most this big */
    const schema_layout* layout = &c->im->layouts.schema[es];
    if (layout->size > sizeof buf)
        return ev_fail(c, kind, "internal error: schema %llu is too large",
                       (unsigned long long)layout->id);
    layout_fill(layout, buf, values, count);
    return ev_write_raw(c, kind, es, buf, attributes);
}

int pending_push(pending_list* list, const pending_op* op) {
    if (list->count == list->capacity) {
        size_t capacity = list->capacity ? list->capacity * 2 : 8;
        pending_op* items = nvtxw_realloc(list->items, capacity * sizeof *items);
        if (items == NULL)
            return -1;
        list->items = items;
        list->capacity = capacity;
    }
    list->items[list->count++] = *op;
    return 0;
}

/* Takes the most recent pending op with these keys (LIFO: nested begins). */
int pending_take(pending_list* list, uint64_t key1, uint64_t key2, pending_op* out) {
    for (size_t i = list->count; i-- > 0;) {
        if (list->items[i].key1 == key1 && list->items[i].key2 == key2) {
            *out = list->items[i];
            list->items[i] = list->items[--list->count];
            return 1;
        }
    }
    return 0;
}

int stack_push(loc_ctx* c, uint8_t kind, uint64_t id) {
    if (c->depth == c->stack_capacity) {
        size_t capacity = c->stack_capacity ? c->stack_capacity * 2 : 64;
        open_range* stack = nvtxw_realloc(c->stack, capacity * sizeof *stack);
        if (stack == NULL)
            return -1;
        c->stack = stack;
        c->stack_capacity = capacity;
    }
    c->stack[c->depth].kind = kind;
    c->stack[c->depth++].id = id;
    return 0;
}
