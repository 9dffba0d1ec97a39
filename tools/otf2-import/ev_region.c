/*
 * tools/otf2-import/ev_region.c - Enter/Leave, calling contexts, parameters.
 *
 * Enter is a push named after the region, in its paradigm/role category;
 * Leave is a pop that must close the innermost open region (OTF2 requires
 * proper nesting per location; a Leave of another region is an error, not a
 * guess). Calling-context enters are pushes on the same stack.
 */
#include "config.h"

#include <inttypes.h>
#include <stddef.h>
#include <string.h>

#include "ev_common.h"

/* The otf2_enter payload (schemas/otf2-events.yaml; layouts_load checks
 * that the offsets agree). */
typedef struct enter_payload {
    int64_t time;
    uint32_t color;
    uint32_t category;
    uint64_t message;
} enter_payload;

_Static_assert(offsetof(enter_payload, message) == 16 && sizeof(enter_payload) == 24,
               "otf2_enter layout");

static OTF2_CallbackCode on_enter(EV_ARGS, OTF2_RegionRef region) {
    region_def* r;
    enter_payload p;
    EV_BEGIN(EK_Enter);
    if ((r = def_table_find(&c->im->defs.regions, region, NULL)) == NULL)
        return ev_fail(c, EK_Enter, "unknown region %" PRIu32, (uint32_t)region);
    if (stack_push(c, OPEN_REGION, region) != 0)
        return ev_fail(c, EK_Enter, "out of memory (nesting depth %zu)", c->depth);
    p.time = c->now;
    p.color = 0;
    p.category = r->category;
    p.message = HANDLE(r->handle);
    return ev_write_raw(c, EK_Enter, ES_ENTER, &p, attributes);
}

static const char* open_name(const loc_ctx* c, const open_range* o) {
    region_def* r;
    switch (o->kind) {
    case OPEN_REGION:
        r = def_table_find(&c->im->defs.regions, o->id, NULL);
        return r != NULL ? r->text : "?";
    case OPEN_CONTEXT:
        return "a calling context";
    default:
        return "a thread team";
    }
}

/* Pops the innermost open range, which must be (kind, id). */
OTF2_CallbackCode ev_pop(loc_ctx* c, event_kind k, uint8_t kind, uint64_t id,
                         OTF2_AttributeList* attributes) {
    int64_t p = c->now;
    const open_range* top = c->depth > 0 ? &c->stack[c->depth - 1] : NULL;
    if (top == NULL)
        return ev_fail(c, k, "nothing is open (%s %" PRIu64 ")",
                       kind == OPEN_REGION ? "region" : "id", id);
    if (top->kind != kind || top->id != id)
        return ev_fail(c, k, "closes %" PRIu64 ", but the innermost open range is %s (%" PRIu64 ")",
                       id, open_name(c, top), top->id);
    c->depth--;
    return ev_write_raw(c, k, ES_LEAVE, &p, attributes);
}

static OTF2_CallbackCode on_leave(EV_ARGS, OTF2_RegionRef region) {
    EV_BEGIN(EK_Leave);
    if (def_table_find(&c->im->defs.regions, region, NULL) == NULL)
        return ev_fail(c, EK_Leave, "unknown region %" PRIu32, (uint32_t)region);
    return ev_pop(c, EK_Leave, OPEN_REGION, region, attributes);
}

/* The region of a calling context, or NULL with the location failed. */
static region_def* context_region(loc_ctx* c, event_kind k, OTF2_CallingContextRef context) {
    context_def* cc = def_table_find(&c->im->defs.contexts, context, NULL);
    region_def* r = cc != NULL ? def_table_find(&c->im->defs.regions, cc->region, NULL) : NULL;
    if (cc == NULL)
        ev_fail(c, k, "unknown calling context %" PRIu32, (uint32_t)context);
    else if (r == NULL)
        ev_fail(c, k, "calling context %" PRIu32 " has no region", (uint32_t)context);
    return r;
}

static OTF2_CallbackCode on_context_enter(EV_ARGS, OTF2_CallingContextRef context,
                                          uint32_t unwind) {
    region_def* r;
    EV_BEGIN(EK_CallingContextEnter);
    if ((r = context_region(c, EK_CallingContextEnter, context)) == NULL)
        return OTF2_CALLBACK_INTERRUPT;
    if (stack_push(c, OPEN_CONTEXT, context) != 0)
        return ev_fail(c, EK_CallingContextEnter, "out of memory");
    const uint64_t v[] = {(uint64_t)c->now, HANDLE(r->handle), r->category, context, unwind};
    return ev_write(c, EK_CallingContextEnter, ES_CALLING_CONTEXT_ENTER, v, COUNT_OF(v),
                    attributes);
}

static OTF2_CallbackCode on_context_leave(EV_ARGS, OTF2_CallingContextRef context) {
    EV_BEGIN(EK_CallingContextLeave);
    return ev_pop(c, EK_CallingContextLeave, OPEN_CONTEXT, context, attributes);
}

static OTF2_CallbackCode on_context_sample(EV_ARGS, OTF2_CallingContextRef context, uint32_t unwind,
                                           OTF2_InterruptGeneratorRef generator) {
    region_def* r;
    named_def* g;
    EV_BEGIN(EK_CallingContextSample);
    if ((r = context_region(c, EK_CallingContextSample, context)) == NULL)
        return OTF2_CALLBACK_INTERRUPT;
    g = def_table_find(&c->im->defs.generators, generator, NULL);
    if (g == NULL && generator != OTF2_UNDEFINED_INTERRUPT_GENERATOR)
        return ev_fail(c, EK_CallingContextSample, "unknown interrupt generator %" PRIu32,
                       (uint32_t)generator);
    const uint64_t v[] = {
        (uint64_t)c->now, HANDLE(r->handle),
        r->category,      context,
        unwind,           g != NULL ? ev_string(c, g->name) : HANDLE(c->im->empty)};
    return ev_write(c, EK_CallingContextSample, ES_CALLING_CONTEXT_SAMPLE, v, COUNT_OF(v),
                    attributes);
}

/* The parameter's name, or NULL with the location failed. */
static parameter_def* parameter(loc_ctx* c, event_kind k, OTF2_ParameterRef id) {
    parameter_def* p = def_table_find(&c->im->defs.parameters, id, NULL);
    if (p == NULL)
        ev_fail(c, k, "unknown parameter %" PRIu32, (uint32_t)id);
    return p;
}

static OTF2_CallbackCode on_parameter_string(EV_ARGS, OTF2_ParameterRef id, OTF2_StringRef value) {
    parameter_def* p;
    EV_BEGIN(EK_ParameterString);
    if ((p = parameter(c, EK_ParameterString, id)) == NULL)
        return OTF2_CALLBACK_INTERRUPT;
    if (def_table_find(&c->im->defs.strings, value, NULL) == NULL)
        return ev_fail(c, EK_ParameterString, "unknown string %" PRIu32, (uint32_t)value);
    EV_MARK(EK_ParameterString, ES_PARAMETER_STRING, PARADIGM(c, OTF2_PARADIGM_USER),
            ev_string(c, p->name), ev_string(c, value));
}

static OTF2_CallbackCode on_parameter_int(EV_ARGS, OTF2_ParameterRef id, int64_t value) {
    parameter_def* p;
    EV_BEGIN(EK_ParameterInt);
    if ((p = parameter(c, EK_ParameterInt, id)) == NULL)
        return OTF2_CALLBACK_INTERRUPT;
    EV_MARK(EK_ParameterInt, ES_PARAMETER_INT, PARADIGM(c, OTF2_PARADIGM_USER),
            ev_string(c, p->name), SIGNED(value));
}

static OTF2_CallbackCode on_parameter_unsigned(EV_ARGS, OTF2_ParameterRef id, uint64_t value) {
    parameter_def* p;
    EV_BEGIN(EK_ParameterUnsignedInt);
    if ((p = parameter(c, EK_ParameterUnsignedInt, id)) == NULL)
        return OTF2_CALLBACK_INTERRUPT;
    EV_MARK(EK_ParameterUnsignedInt, ES_PARAMETER_UNSIGNED, PARADIGM(c, OTF2_PARADIGM_USER),
            ev_string(c, p->name), value);
}

/* Records of a kind this OTF2 version does not know: counted and reported. */
static OTF2_CallbackCode on_unknown(EV_ARGS) {
    EV_BEGIN(EK_Unknown);
    (void)attributes;
    c->skipped[EK_Unknown]++;
    return OTF2_CALLBACK_SUCCESS;
}

void ev_region_set(OTF2_EvtReaderCallbacks* cb) {
    OTF2_EvtReaderCallbacks_SetEnterCallback(cb, on_enter);
    OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, on_leave);
    OTF2_EvtReaderCallbacks_SetCallingContextEnterCallback(cb, on_context_enter);
    OTF2_EvtReaderCallbacks_SetCallingContextLeaveCallback(cb, on_context_leave);
    OTF2_EvtReaderCallbacks_SetCallingContextSampleCallback(cb, on_context_sample);
    OTF2_EvtReaderCallbacks_SetParameterStringCallback(cb, on_parameter_string);
    OTF2_EvtReaderCallbacks_SetParameterIntCallback(cb, on_parameter_int);
    OTF2_EvtReaderCallbacks_SetParameterUnsignedIntCallback(cb, on_parameter_unsigned);
    OTF2_EvtReaderCallbacks_SetUnknownCallback(cb, on_unknown);
}
