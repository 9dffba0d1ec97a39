/*
 * reader/reader_replay_regs.c - registration records as table calls.
 * Static IDs are passed as given; for a dynamic ID (>= 1 << 32) the call
 * asks the new session for one and the pair is remembered, so later records
 * (nested schema types, counter schemas, scopes, clocks, semantics) refer to
 * the new IDs.
 */
#include "config.h"

#include <string.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "nvtxw/resource.h"
#include "reader/reader_replay.h"

#define DYNAMIC NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START

static nvtxwResultCode_t remember(remap_ids* map, uint64_t id, uint64_t value) {
    return remap_id_put(map, id, value) == 0 ? NVTXW_RESULT_SUCCESS : error_oom("an ID map");
}

static nvtxwResultCode_t replay_schema(replay_state* st, replay_domain* d,
                                       const nvtxw_record_t* rec) {
    nvtxPayloadSchemaAttr_t attr;
    uint64_t id = nvtxw_schema_id(rec->u.schema.schema), got = 0;
    nvtxwResultCode_t status;
    nvtxw_schema_get_attr(rec->u.schema.schema, &attr);
    if (remap_schema_attr(d, &attr, replay_scratch_alloc, st) != 0)
        return error_oom("a schema");
    status = st->t->SchemaRegister(d->handle, &attr, &got);
    return status == NVTXW_RESULT_SUCCESS ? remember(&d->schemas, id, got) : status;
}

static nvtxwResultCode_t replay_enum(replay_state* st, replay_domain* d,
                                     const nvtxw_record_t* rec) {
    nvtxPayloadEnumAttr_t attr;
    uint64_t id = nvtxw_enum_id(rec->u.enumeration.enumeration), got = 0;
    nvtxwResultCode_t status;
    nvtxw_enum_get_attr(rec->u.enumeration.enumeration, &attr);
    if (id >= DYNAMIC)
        attr.fieldMask &= ~(uint64_t)NVTX_PAYLOAD_ENUM_ATTR_FIELD_SCHEMA_ID;
    status = st->t->EnumRegister(d->handle, &attr, &got);
    return status == NVTXW_RESULT_SUCCESS ? remember(&d->schemas, id, got) : status;
}

static nvtxwResultCode_t replay_scope(replay_state* st, replay_domain* d,
                                      const nvtxw_record_t* rec) {
    nvtxScopeAttr_t attr;
    uint64_t got = 0;
    nvtxwResultCode_t status;
    attr.structSize = sizeof attr;
    attr.path = rec->u.scope.path;
    attr.parentScope = remap_id(&d->scopes, rec->u.scope.parent);
    attr.scopeId = rec->u.scope.id >= DYNAMIC ? NVTX_SCOPE_NONE : rec->u.scope.id;
    status = st->t->ScopeRegister(d->handle, &attr, &got);
    return status == NVTXW_RESULT_SUCCESS ? remember(&d->scopes, rec->u.scope.id, got) : status;
}

static nvtxwResultCode_t replay_counter(replay_state* st, replay_domain* d,
                                        const nvtxw_record_t* rec) {
    nvtxCounterAttr_t attr = rec->u.counter.attr;
    uint64_t got = 0;
    nvtxwResultCode_t status;
    if (remap_counter_attr(d, &attr, replay_scratch_alloc, st) != 0)
        return error_oom("a counter");
    status = st->t->CounterRegister(d->handle, &attr, &got);
    return status == NVTXW_RESULT_SUCCESS
               ? remember(&d->counters, rec->u.counter.attr.counterId, got)
               : status;
}

static nvtxwResultCode_t replay_time_domain(replay_state* st, replay_domain* d,
                                            const nvtxw_record_t* rec) {
    nvtxTimeDomainAttr_t attr = rec->u.time_domain.attr;
    uint64_t id = attr.timeDomainId, got = 0;
    nvtxwResultCode_t status;
    attr.scopeId = remap_id(&d->scopes, attr.scopeId);
    attr.timeDomainId = id >= DYNAMIC ? NVTX_TIME_DOMAIN_ID_NONE : id;
    status = st->t->TimeDomainRegister(d->handle, &attr, &got);
    return status == NVTXW_RESULT_SUCCESS ? remember(&d->time_domains, id, got) : status;
}

static nvtxwResultCode_t replay_domain_register(replay_state* st, const nvtxw_record_t* rec) {
    nvtxwDomainAttributes_t attr = {sizeof attr, rec->u.domain.name};
    replay_domain* d;
    if (st->domain_count == st->domain_capacity) {
        size_t capacity = st->domain_capacity ? st->domain_capacity * 2 : 4;
        replay_domain* grown = nvtxw_reallocarray(st->domains, capacity, sizeof *grown);
        if (grown == NULL)
            return error_oom("the replay domains");
        st->domains = grown;
        st->domain_capacity = capacity;
    }
    d = &st->domains[st->domain_count];
    memset(d, 0, sizeof *d);
    st->domain_count++;
    return st->t->DomainRegister(st->session, &attr, &d->handle);
}

static nvtxwResultCode_t replay_string(replay_domain* d, const replay_state* st,
                                       const nvtxw_record_t* rec) {
    nvtxStringHandle_t* slot = remap_string_slot(d, d->string_count);
    if (slot == NULL)
        return error_oom("the replay strings");
    return st->t->StringRegister(d->handle, rec->u.string.text, slot);
}

/* UTF-8 (as the report stores every message) to wchar_t, in the arena. */
static const wchar_t* to_wide(replay_state* st, const char* text) {
    size_t n = strlen(text), k = 0;
    const unsigned char* p = (const unsigned char*)text;
    wchar_t* out = reader_arena_alloc(&st->scratch, (n + 1) * sizeof *out);
    if (out == NULL)
        return NULL;
    while (*p) {
        uint32_t c = *p++;
        int more = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
        c &= more == 3 ? 0x07 : more == 2 ? 0x0F : more == 1 ? 0x1F : 0x7F;
        for (; more > 0 && (*p & 0xC0) == 0x80; more--)
            c = (c << 6) | (*p++ & 0x3F);
        out[k++] = (wchar_t)c;
    }
    out[k] = 0;
    return out;
}

static nvtxwResultCode_t replay_resource(replay_state* st, replay_domain* d,
                                         const nvtxw_record_t* rec) {
    nvtxw_resource_attributes_t attr;
    uint64_t string = rec->u.resource.message_string;
    memset(&attr, 0, sizeof attr);
    attr.version = 3;
    attr.size = NVTXW_RESOURCE_ATTRIB_STRUCT_SIZE;
    attr.identifierType = rec->u.resource.identifier_type;
    attr.identifier.ullValue = rec->u.resource.identifier;
    attr.messageType = rec->u.resource.message_type;
    if (attr.messageType == NVTXW_MESSAGE_TYPE_REGISTERED && string > 0 &&
        string <= d->string_count)
        attr.message.registered = d->strings[string - 1];
    else if (attr.messageType == NVTXW_MESSAGE_TYPE_UNICODE)
        attr.message.unicode = to_wide(st, rec->u.resource.message);
    else
        attr.message.ascii = rec->u.resource.message;
    return st->t->ResourceRegister(d->handle, (const nvtxResourceAttributes_t*)&attr);
}

static nvtxwResultCode_t replay_stream_open(replay_state* st, replay_domain* d,
                                            const nvtxw_record_t* rec) {
    nvtxwStreamAttributes_t attr;
    if (rec->stream >= st->stream_count)
        return error_set(NVTXW_RESULT_FAILED, "stream %llu beyond the report's %zu streams",
                         (unsigned long long)rec->stream, st->stream_count);
    memset(&attr, 0, sizeof attr);
    attr.structSize = sizeof attr;
    attr.name = rec->u.stream_open.name;
    attr.domain = d->handle;
    attr.scopeId = remap_id(&d->scopes, rec->u.stream_open.scope_id);
    attr.timeDomainId = remap_id(&d->time_domains, rec->u.stream_open.time_domain_id);
    attr.orderInterleaving = rec->u.stream_open.order_interleaving;
    attr.orderingType = rec->u.stream_open.ordering_type;
    attr.orderingSkid = rec->u.stream_open.ordering_skid;
    attr.orderingSkidAmount = rec->u.stream_open.ordering_skid_amount;
    return st->t->StreamOpen(st->session, &attr, &st->streams[rec->stream]);
}

/* The registration log, and so the stream-close records, come before every
 * stream record: closes are deferred to the end of the replay. */
static nvtxwResultCode_t replay_stream_close(replay_state* st, const nvtxw_record_t* rec) {
    st->closing[rec->stream] = 1;
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t replay_session(replay_state* st, const nvtxw_record_t* rec) {
    nvtxwSessionAttributes_t attr;
    attr.structSize = sizeof attr;
    attr.name = rec->u.session.name;
    attr.configString = st->config ? st->config : rec->u.session.config;
    return st->t->SessionBegin(&attr, &st->session);
}

nvtxwResultCode_t replay_registration(replay_state* st, const nvtxw_record_t* rec) {
    replay_domain* d;
    if (rec->kind == NVTXW_RECORD_SESSION)
        return replay_session(st, rec);
    if (rec->kind == NVTXW_RECORD_DOMAIN)
        return replay_domain_register(st, rec);
    if (rec->kind == NVTXW_RECORD_STREAM_CLOSE)
        return replay_stream_close(st, rec);
    if (rec->domain >= st->domain_count)
        return error_set(NVTXW_RESULT_FAILED, "domain %llu was not replayed",
                         (unsigned long long)rec->domain);
    d = &st->domains[rec->domain];
    switch (rec->kind) {
    case NVTXW_RECORD_CATEGORY:
        return st->t->CategoryRegister(d->handle, rec->u.category.id, rec->u.category.name);
    case NVTXW_RECORD_STRING:
        return replay_string(d, st, rec);
    case NVTXW_RECORD_RESOURCE:
        return replay_resource(st, d, rec);
    case NVTXW_RECORD_SCOPE:
        return replay_scope(st, d, rec);
    case NVTXW_RECORD_SCHEMA:
        return replay_schema(st, d, rec);
    case NVTXW_RECORD_ENUM:
        return replay_enum(st, d, rec);
    case NVTXW_RECORD_COUNTER:
        return replay_counter(st, d, rec);
    case NVTXW_RECORD_TIME_DOMAIN:
        return replay_time_domain(st, d, rec);
    case NVTXW_RECORD_STREAM_OPEN:
        return replay_stream_open(st, d, rec);
    default:
        return error_set(NVTXW_RESULT_FAILED, "record kind %d is not a registration",
                         (int)rec->kind);
    }
}
