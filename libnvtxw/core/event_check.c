/*
 * core/event_check.c - core_event_walk (the walk of core_event_visit,
 * sink.h): walks an event's payloads once, forwarding every visitor
 * callback to the sink's visitor while checking
 * register-before-use against the stream's domain:
 *   - registered string handles must be strings of this domain;
 *   - SCOPE_ID values must be NONE, ROOT or scopes registered here;
 *   - time semantics on entries must name a known clock;
 * and recording the event's first TIMESTAMP value (its position in time).
 * Events whose payloads core_event_fast_check validated are walked by
 * core_event_walk_valid, without the checks.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "common/error_internal.h"
#include "core/core_internal.h"

typedef struct check_state {
    const core_event* event;
    const nvtxw_visitor_t* inner; /* NULL: validate only */
    void* inner_ctx;
    core_event_facts* facts;
    const nvtxw_field_info_t* field; /* innermost open field */
    size_t payload_index;
    char problem[256]; /* set when the check itself stopped the walk */
} check_state;

#define FORWARD(state, member, ...)                                                                \
    ((state)->inner != NULL && (state)->inner->member != NULL                                      \
         ? (state)->inner->member((state)->inner_ctx, __VA_ARGS__)                                 \
         : 0)
#define FORWARD0(state, member)                                                                    \
    ((state)->inner != NULL && (state)->inner->member != NULL                                      \
         ? (state)->inner->member((state)->inner_ctx)                                              \
         : 0)

static int check_fail(check_state* state, const char* format, unsigned long long value) {
    const char* field = state->field ? state->field->name : "";
    char detail[160];
    snprintf(detail, sizeof detail, format, value);
    snprintf(state->problem, sizeof state->problem, "payload %zu field \"%s\": %s",
             state->payload_index, field, detail);
    return 1;
}

static int is_timestamp(const nvtxw_field_info_t* field) {
    return field != NULL && (field->flags & NVTXW_PAYLOAD_ENTRY_FLAG_SEMANTIC_MASK) ==
                                NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP;
}

static void note_timestamp(check_state* state, int64_t value) {
    if (!state->facts->has_timestamp && is_timestamp(state->field)) {
        state->facts->has_timestamp = 1;
        state->facts->timestamp = value;
    }
}

static int check_payload_begin(void* ctx, size_t index, uint64_t schema_id, size_t size,
                               const char* name) {
    check_state* state = ctx;
    state->payload_index = index;
    state->field = NULL;
    return FORWARD(state, payload_begin, index, schema_id, size, name);
}

static int check_field_begin(void* ctx, const nvtxw_field_info_t* field) {
    check_state* state = ctx;
    state->field = field;
    if (field->time_domain_id != 0 &&
        !core_domain_time_domain_known(state->event->stream->domain, field->time_domain_id))
        return check_fail(state, "time semantics name time domain %llu, not registered here",
                          (unsigned long long)field->time_domain_id);
    return FORWARD(state, field_begin, field);
}

static int check_signed(void* ctx, int64_t value) {
    check_state* state = ctx;
    note_timestamp(state, value);
    return FORWARD(state, on_signed, value);
}

static int check_unsigned(void* ctx, uint64_t value) {
    check_state* state = ctx;
    if (state->field != NULL && state->field->type == NVTX_PAYLOAD_ENTRY_TYPE_SCOPE_ID &&
        !core_domain_scope_known(state->event->stream->domain, value))
        return check_fail(state,
                          core_domain_scope_released(state->event->stream->domain, value)
                              ? "scope %llu was released (ScopeRelease) in the stream's domain"
                              : "scope %llu is not registered in the stream's domain",
                          value);
    note_timestamp(state, (int64_t)value);
    return FORWARD(state, on_unsigned, value);
}

static int check_string_handle(void* ctx, uint64_t handle, const char* text) {
    check_state* state = ctx;
    if (handle != 0 && text == NULL)
        return check_fail(state, "string handle 0x%llx is not registered in the stream's domain",
                          handle);
    return FORWARD(state, on_string_handle, handle, text);
}

/* Plain forwarding for the callbacks the check does not inspect. */
static int fwd_begin_payloads(void* c, size_t n) {
    return FORWARD((check_state*)c, begin_payloads, n);
}
static int fwd_payload_end(void* c, size_t i) { return FORWARD((check_state*)c, payload_end, i); }
static int fwd_field_end(void* c, const nvtxw_field_info_t* f) {
    return FORWARD((check_state*)c, field_end, f);
}
static int fwd_array_begin(void* c, uint64_t n) { return FORWARD((check_state*)c, array_begin, n); }
static int fwd_array_end(void* c) { return FORWARD0((check_state*)c, array_end); }
static int fwd_object_begin(void* c, uint64_t id) {
    return FORWARD((check_state*)c, object_begin, id);
}
static int fwd_object_end(void* c) { return FORWARD0((check_state*)c, object_end); }
static int fwd_float(void* c, double v) { return FORWARD((check_state*)c, on_float, v); }
static int fwd_string(void* c, const char* s, size_t n) {
    return FORWARD((check_state*)c, on_string, s, n);
}
static int fwd_bytes(void* c, const void* p, size_t n) {
    return FORWARD((check_state*)c, on_bytes, p, n);
}
static int fwd_enum(void* c, uint64_t v, const char* n) {
    return FORWARD((check_state*)c, on_enum, v, n);
}
static int fwd_null(void* c) { return FORWARD0((check_state*)c, on_null); }
static int fwd_end_payloads(void* c) { return FORWARD0((check_state*)c, end_payloads); }

static const nvtxw_visitor_t check_visitor = {
    sizeof(nvtxw_visitor_t),
    fwd_begin_payloads,
    check_payload_begin,
    fwd_payload_end,
    check_field_begin,
    fwd_field_end,
    fwd_array_begin,
    fwd_array_end,
    fwd_object_begin,
    fwd_object_end,
    check_signed,
    check_unsigned,
    fwd_float,
    fwd_string,
    fwd_bytes,
    fwd_enum,
    check_string_handle,
    fwd_null,
    fwd_end_payloads,
};

static const char* resolve_string(void* ctx, uint64_t handle) {
    return core_domain_string(ctx, handle);
}

nvtxwResultCode_t core_event_walk(const core_event* event, const nvtxw_visitor_t* visitor,
                                  void* ctx, unsigned visit_flags, core_event_facts* facts) {
    const core_domain* domain = event->stream->domain;
    nvtxw_visit_options_t options;
    check_state state;
    nvtxwResultCode_t status;
    memset(&state, 0, sizeof state);
    memset(facts, 0, sizeof *facts);
    state.event = event;
    state.inner = visitor;
    state.inner_ctx = ctx;
    state.facts = facts;
    memset(&options, 0, sizeof options); /* later members (payload_origins) default to 0 */
    options.struct_size = sizeof options;
    options.resolve_string = resolve_string;
    options.resolve_ctx = (void*)domain;
    options.flags = visit_flags;
    status = nvtxw_payload_visit(domain->schemas, event->payloads, event->count, &check_visitor,
                                 &state, &options);
    if (status != NVTXW_RESULT_SUCCESS && state.problem[0] != '\0')
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT, "cannot write event on stream \"%s\": %s",
                         event->stream->name, state.problem);
    if (status != NVTXW_RESULT_SUCCESS)
        error_prefix("cannot write event on stream \"%s\"", event->stream->name);
    return status;
}

nvtxwResultCode_t core_event_walk_valid(const core_event* event, const nvtxw_visitor_t* visitor,
                                        void* ctx, unsigned visit_flags) {
    const core_domain* domain = event->stream->domain;
    nvtxw_visit_options_t options;
    nvtxwResultCode_t status;
    memset(&options, 0, sizeof options);
    options.struct_size = sizeof options;
    options.resolve_string = resolve_string;
    options.resolve_ctx = (void*)domain;
    options.flags = visit_flags;
    status =
        nvtxw_payload_visit(domain->schemas, event->payloads, event->count, visitor, ctx, &options);
    if (status != NVTXW_RESULT_SUCCESS)
        error_prefix("cannot write event on stream \"%s\"", event->stream->name);
    return status;
}

size_t core_payload_bytes(const nvtxPayloadData_t* p) {
    static const uint8_t zero[4] = {0, 0, 0, 0};
    size_t unit, units = 0;
    if (p->size != SIZE_MAX)
        return p->size;
    unit = p->schemaId == NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF16   ? 2
           : p->schemaId == NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF32 ? 4
                                                                  : 1;
    while (memcmp((const uint8_t*)p->payload + units * unit, zero, unit) != 0)
        units++;
    return (units + 1) * unit;
}

nvtxwResultCode_t core_counter_visit(const core_domain* domain, const core_counter* counter,
                                     const void* data, size_t size, const nvtxw_visitor_t* visitor,
                                     void* ctx) {
    nvtxPayloadData_t payload;
    nvtxw_visit_options_t options;
    payload.schemaId = counter->schema_id;
    payload.size = size;
    payload.payload = data;
    memset(&options, 0, sizeof options);
    options.struct_size = sizeof options;
    options.resolve_string = resolve_string;
    options.resolve_ctx = (void*)domain;
    options.flags = NVTXW_VISIT_ALLOW_FOREIGN_POINTERS;
    return nvtxw_payload_visit(domain->schemas, &payload, 1, visitor, ctx, &options);
}
