/*
 * sink/shared/field_kind.h - which top-level payload fields are attributes
 * of an event rather than arguments, for the sinks that draw events (json,
 * perfetto; docs/chrome-json.md, "Attributes"): a scalar field with the
 * semantics or entry type below is an attribute; every other field, and an
 * array of any kind, is an argument; HIDE fields are neither.
 *
 * A top-level field named "flow_out" or "flow_in" also binds the event to a
 * flow (docs/chrome-json.md, Flows) when it is an argument or hidden: a
 * hidden one binds the flow without being shown (the Chrome trace input
 * marks the flow fields it adds so).
 */
#ifndef NVTXW_SINK_SHARED_FIELD_KIND_H
#define NVTXW_SINK_SHARED_FIELD_KIND_H

#include <string.h>

#include "nvtxw/payload.h"

enum sink_field_kind {
    SINK_FIELD_ARGS,     /* an argument */
    SINK_FIELD_SKIP,     /* hidden (or, for a sink, dropped) */
    SINK_FIELD_BEGIN,    /* TIMESTAMP | RANGE_BEGIN */
    SINK_FIELD_END,      /* TIMESTAMP | RANGE_END */
    SINK_FIELD_POINT,    /* TIMESTAMP with MARK or no role */
    SINK_FIELD_MESSAGE,  /* EVENT_MESSAGE */
    SINK_FIELD_RANGE_ID, /* RANGE_ID type */
    SINK_FIELD_CATEGORY, /* CATEGORY type */
    SINK_FIELD_COLOR     /* COLOR_ARGB type */
};

/* The kind of a top-level field (enum sink_field_kind). */
static inline int sink_field_kind_of(const nvtxw_field_info_t* field) {
    uint64_t semantic = field->flags & NVTXW_PAYLOAD_ENTRY_FLAG_SEMANTIC_MASK;
    uint64_t role = field->flags & NVTXW_PAYLOAD_ENTRY_FLAG_ROLE_MASK;
    if (field->flags & NVTX_PAYLOAD_ENTRY_FLAG_HIDE)
        return SINK_FIELD_SKIP;
    if (semantic == NVTX_PAYLOAD_ENTRY_FLAG_EVENT_MESSAGE)
        return SINK_FIELD_MESSAGE;
    if (NVTXW_PAYLOAD_ENTRY_ARRAY_KIND(field->flags) != 0)
        return SINK_FIELD_ARGS;
    if (semantic == NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP)
        return role == NVTX_PAYLOAD_ENTRY_FLAG_RANGE_BEGIN ? SINK_FIELD_BEGIN
               : role == NVTX_PAYLOAD_ENTRY_FLAG_RANGE_END ? SINK_FIELD_END
                                                           : SINK_FIELD_POINT;
    switch (field->type) {
    case NVTX_PAYLOAD_ENTRY_TYPE_RANGE_ID:
        return SINK_FIELD_RANGE_ID;
    case NVTX_PAYLOAD_ENTRY_TYPE_CATEGORY:
        return SINK_FIELD_CATEGORY;
    case NVTX_PAYLOAD_ENTRY_TYPE_COLOR_ARGB:
        return SINK_FIELD_COLOR;
    default:
        return SINK_FIELD_ARGS;
    }
}

enum sink_field_flow {
    SINK_FLOW_NONE,
    SINK_FLOW_OUT, /* "flow_out": the event starts the flow of the value */
    SINK_FLOW_IN   /* "flow_in": the event ends it */
};

/* The flow a top-level field of kind `kind` binds, if its integer value is
 * not 0 (enum sink_field_flow). */
static inline int sink_field_flow_of(const nvtxw_field_info_t* field, int kind) {
    const char* name = field->name;
    int bindable = kind == SINK_FIELD_ARGS || (field->flags & NVTX_PAYLOAD_ENTRY_FLAG_HIDE) != 0;
    if (!bindable || name == NULL || name[0] != 'f' ||
        NVTXW_PAYLOAD_ENTRY_ARRAY_KIND(field->flags) != 0)
        return SINK_FLOW_NONE;
    return strcmp(name, "flow_out") == 0  ? SINK_FLOW_OUT
           : strcmp(name, "flow_in") == 0 ? SINK_FLOW_IN
                                          : SINK_FLOW_NONE;
}

#endif /* NVTXW_SINK_SHARED_FIELD_KIND_H */
