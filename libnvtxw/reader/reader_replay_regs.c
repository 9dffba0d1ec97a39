/*
 * reader/reader_replay_regs.c - registration records as table calls.
 * Static IDs are passed as given, once per target domain when several inputs
 * register the same attributes (replay_static_claim); for a dynamic ID
 * (>= 1 << 32) the call asks the new session for one and the pair is
 * remembered, so later records (nested schema types, counter schemas,
 * scopes, clocks, semantics) refer to the new IDs.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "nvtxw/resource.h"
#include "reader/reader_replay.h"

#define DYNAMIC NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START

static nvtxwResultCode_t remember(remap_ids* map, uint64_t id, uint64_t value) {
    return remap_id_put(map, id, value) == 0 ? NVTXW_RESULT_SUCCESS : error_oom("an ID map");
}

/* For a static `id`: what the merge does with it (replay_claim); dynamic
 * IDs are always registered. */
static nvtxwResultCode_t claim(replay_state* st, const nvtxw_record_t* rec, uint64_t id,
                               const char* signature, replay_claim* c) {
    memset(c, 0, sizeof *c);
    c->action = REPLAY_CLAIM_REGISTER;
    if (id == 0 || id >= DYNAMIC)
        return NVTXW_RESULT_SUCCESS;
    if (signature == NULL)
        return error_oom("a registration signature");
    return replay_static_claim(st, st->in->target_of[rec->domain], (int)rec->kind, id, signature,
                               c);
}

/* Whether the registration call is made: not for an ID an earlier input
 * registered (or renumbered) with the same attributes. */
static int registers(const replay_claim* c) {
    return c->action == REPLAY_CLAIM_REGISTER || c->action == REPLAY_CLAIM_RENUMBER;
}

/* After a renumbered static `id` was registered as `got` (or an earlier
 * input's renumbering was reused): the input's references to `id` become
 * the new ID. */
static nvtxwResultCode_t settle(replay_state* st, const nvtxw_record_t* rec, remap_ids* map,
                                uint64_t id, const replay_claim* c, uint64_t got) {
    uint64_t renumbered = c->action == REPLAY_CLAIM_RENUMBERED ? c->renumbered : got;
    if (c->action != REPLAY_CLAIM_RENUMBER && c->action != REPLAY_CLAIM_RENUMBERED)
        return NVTXW_RESULT_SUCCESS;
    if (remap_id_put_any(map, id, renumbered) != 0)
        return error_oom("an ID map");
    return replay_static_renumbered(st, st->in->target_of[rec->domain], (int)rec->kind, id, c,
                                    renumbered);
}

static nvtxwResultCode_t replay_schema(replay_state* st, replay_domain* d,
                                       const nvtxw_record_t* rec) {
    nvtxPayloadSchemaAttr_t attr;
    uint64_t id = nvtxw_schema_id(rec->u.schema.schema), got = 0;
    replay_claim c;
    nvtxwResultCode_t status = claim(
        st, rec, id, id < DYNAMIC ? replay_schema_signature(st, rec->u.schema.schema) : "", &c);
    if (status != NVTXW_RESULT_SUCCESS || !registers(&c))
        return status == NVTXW_RESULT_SUCCESS ? settle(st, rec, &d->schemas, id, &c, 0) : status;
    nvtxw_schema_get_attr(rec->u.schema.schema, &attr);
    if (remap_schema_attr(d, &attr, replay_scratch_alloc, st) != 0)
        return error_oom("a schema");
    if (c.action == REPLAY_CLAIM_RENUMBER) { /* the new session assigns the ID */
        attr.fieldMask &= ~(uint64_t)NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_SCHEMA_ID;
        attr.schemaId = 0;
    }
    status = st->t->SchemaRegister(d->handle, &attr, &got);
    if (status == NVTXW_RESULT_SUCCESS)
        status = remember(&d->schemas, id, got);
    return status == NVTXW_RESULT_SUCCESS ? settle(st, rec, &d->schemas, id, &c, got) : status;
}

static nvtxwResultCode_t replay_enum(replay_state* st, replay_domain* d,
                                     const nvtxw_record_t* rec) {
    nvtxPayloadEnumAttr_t attr;
    const nvtxw_enum_t* e = rec->u.enumeration.enumeration;
    uint64_t id = nvtxw_enum_id(e), got = 0;
    replay_claim c;
    nvtxwResultCode_t status =
        claim(st, rec, id, id < DYNAMIC ? replay_enum_signature(st, e) : "", &c);
    if (status != NVTXW_RESULT_SUCCESS || !registers(&c))
        return status == NVTXW_RESULT_SUCCESS ? settle(st, rec, &d->schemas, id, &c, 0) : status;
    nvtxw_enum_get_attr(e, &attr);
    if (id >= DYNAMIC || c.action == REPLAY_CLAIM_RENUMBER)
        attr.fieldMask &= ~(uint64_t)NVTX_PAYLOAD_ENUM_ATTR_FIELD_SCHEMA_ID;
    status = st->t->EnumRegister(d->handle, &attr, &got);
    if (status == NVTXW_RESULT_SUCCESS)
        status = remember(&d->schemas, id, got);
    return status == NVTXW_RESULT_SUCCESS ? settle(st, rec, &d->schemas, id, &c, got) : status;
}

/* "a|b|c" of three strings, in the scratch arena (NULL out of memory). */
static const char* signature3(replay_state* st, const char* a, const char* b, const char* c) {
    size_t n = strlen(a) + strlen(b) + strlen(c) + 3;
    char* out = reader_arena_alloc(&st->scratch, n);
    if (out != NULL)
        snprintf(out, n, "%s|%s|%s", a, b, c);
    return out;
}

/* A dynamic scope that another input already registered with the same
 * parent and path is the same node (ABI spec 2.10: a path names a node):
 * merged inputs share its new ID (partial reports of one trace, e.g.
 * nvtxw-otf2-import --part, each register the tasks they saw). Scopes of one
 * input are never merged with each other, so a single report replays
 * unchanged. *found is the shared ID, or 0. */
static nvtxwResultCode_t shared_dynamic_scope(replay_state* st, const nvtxw_record_t* rec,
                                              const char* parent, replay_dict_entry** entry,
                                              uint64_t* found) {
    replay_target* t = &st->targets[st->in->target_of[rec->domain]];
    const char* key = signature3(st, "dynamic scope", parent, rec->u.scope.path);
    char input[24];
    int added;
    *found = 0;
    *entry = key != NULL ? replay_dict_get(&t->statics, key, &added) : NULL;
    if (*entry == NULL)
        return error_oom("the scope paths");
    snprintf(input, sizeof input, "%zu", st->in->index);
    if (!added && strcmp((*entry)->extra, input) != 0)
        *found = (*entry)->value;
    else if (!added)
        *entry = NULL; /* same input: a scope of its own */
    else if (((*entry)->extra = nvtxw_strdup(input)) == NULL)
        return error_oom("the scope paths");
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t replay_scope(replay_state* st, replay_domain* d,
                                      const nvtxw_record_t* rec) {
    nvtxScopeAttr_t attr;
    uint64_t got = 0;
    char parent[24];
    replay_claim c;
    replay_dict_entry* shared = NULL;
    nvtxwResultCode_t status;
    attr.structSize = sizeof attr;
    attr.path = rec->u.scope.path;
    attr.parentScope = remap_id(&d->scopes, rec->u.scope.parent);
    attr.scopeId = rec->u.scope.id >= DYNAMIC ? NVTX_SCOPE_NONE : rec->u.scope.id;
    snprintf(parent, sizeof parent, "%llu", (unsigned long long)attr.parentScope);
    if (rec->u.scope.id >= DYNAMIC) {
        status = shared_dynamic_scope(st, rec, parent, &shared, &got);
        if (status != NVTXW_RESULT_SUCCESS || got != 0)
            return status == NVTXW_RESULT_SUCCESS ? remember(&d->scopes, rec->u.scope.id, got)
                                                  : status;
    }
    status = claim(st, rec, attr.scopeId, signature3(st, rec->u.scope.path, parent, ""), &c);
    if (status != NVTXW_RESULT_SUCCESS || !registers(&c))
        return status == NVTXW_RESULT_SUCCESS ? settle(st, rec, &d->scopes, attr.scopeId, &c, 0)
                                              : status;
    if (c.action == REPLAY_CLAIM_RENUMBER)
        attr.scopeId = NVTX_SCOPE_NONE; /* the new session assigns the ID */
    status = st->t->ScopeRegister(d->handle, &attr, &got);
    if (status == NVTXW_RESULT_SUCCESS && shared != NULL)
        shared->value = got;
    if (status == NVTXW_RESULT_SUCCESS)
        status = remember(&d->scopes, rec->u.scope.id, got);
    return status == NVTXW_RESULT_SUCCESS ? settle(st, rec, &d->scopes, rec->u.scope.id, &c, got)
                                          : status;
}

static nvtxwResultCode_t replay_counter(replay_state* st, replay_domain* d,
                                        const nvtxw_record_t* rec) {
    nvtxCounterAttr_t attr = rec->u.counter.attr;
    uint64_t got = 0, id = rec->u.counter.attr.counterId;
    char ids[48];
    replay_claim c;
    nvtxwResultCode_t status;
    if (remap_counter_attr(d, &attr, replay_scratch_alloc, st) != 0)
        return error_oom("a counter");
    snprintf(ids, sizeof ids, "%llu,%llu", (unsigned long long)attr.schemaId,
             (unsigned long long)attr.scopeId);
    status = claim(
        st, rec, attr.counterId,
        signature3(st, ids, attr.name ? attr.name : "", attr.description ? attr.description : ""),
        &c);
    if (status != NVTXW_RESULT_SUCCESS || !registers(&c))
        return status == NVTXW_RESULT_SUCCESS ? settle(st, rec, &d->counters, id, &c, 0) : status;
    if (c.action == REPLAY_CLAIM_RENUMBER)
        attr.counterId = NVTX_COUNTER_ID_NONE; /* the new session assigns the ID */
    status = st->t->CounterRegister(d->handle, &attr, &got);
    if (status == NVTXW_RESULT_SUCCESS)
        status = remember(&d->counters, id, got);
    return status == NVTXW_RESULT_SUCCESS ? settle(st, rec, &d->counters, id, &c, got) : status;
}

static nvtxwResultCode_t replay_time_domain(replay_state* st, replay_domain* d,
                                            const nvtxw_record_t* rec) {
    nvtxTimeDomainAttr_t attr = rec->u.time_domain.attr;
    uint64_t id = attr.timeDomainId, got = 0;
    char text[128];
    replay_claim c;
    nvtxwResultCode_t status;
    attr.scopeId = remap_id(&d->scopes, attr.scopeId);
    attr.timeDomainId = id >= DYNAMIC ? NVTX_TIME_DOMAIN_ID_NONE : id;
    snprintf(text, sizeof text, "%llu,%llu,%llu,%lld,%llu", (unsigned long long)attr.scopeId,
             (unsigned long long)attr.timestampTypeId, (unsigned long long)attr.timerFlags,
             (long long)attr.timerResolution, (unsigned long long)attr.timerStart);
    status = claim(st, rec, attr.timeDomainId, signature3(st, text, "", ""), &c);
    if (status != NVTXW_RESULT_SUCCESS || !registers(&c))
        return status == NVTXW_RESULT_SUCCESS ? settle(st, rec, &d->time_domains, id, &c, 0)
                                              : status;
    if (c.action == REPLAY_CLAIM_RENUMBER)
        attr.timeDomainId = NVTX_TIME_DOMAIN_ID_NONE; /* the new session assigns the ID */
    status = st->t->TimeDomainRegister(d->handle, &attr, &got);
    if (status == NVTXW_RESULT_SUCCESS)
        status = remember(&d->time_domains, id, got);
    return status == NVTXW_RESULT_SUCCESS ? settle(st, rec, &d->time_domains, id, &c, got) : status;
}

/* Categories have no dynamic IDs: a renumbered one takes the lowest ID
 * above every category of its target domain, claimed like any other. */
static nvtxwResultCode_t replay_category(replay_state* st, replay_domain* d,
                                         const nvtxw_record_t* rec) {
    uint64_t id = rec->u.category.id, got = id;
    const char* signature = signature3(st, rec->u.category.name, "", "");
    replay_claim c, fresh;
    nvtxwResultCode_t status = claim(st, rec, id, signature, &c);
    if (status != NVTXW_RESULT_SUCCESS || !registers(&c))
        return status == NVTXW_RESULT_SUCCESS ? settle(st, rec, &d->categories, id, &c, 0) : status;
    if (c.action == REPLAY_CLAIM_RENUMBER) {
        got = replay_new_category(st, st->in->target_of[rec->domain]);
        if (got > UINT32_MAX)
            return error_set(NVTXW_RESULT_FAILED,
                             "no category ID left to renumber category %llu of \"%s\"",
                             (unsigned long long)id, st->in->reader->path);
        status = claim(st, rec, got, signature, &fresh);
        if (status != NVTXW_RESULT_SUCCESS)
            return status;
    }
    status = st->t->CategoryRegister(d->handle, (uint32_t)got, rec->u.category.name);
    return status == NVTXW_RESULT_SUCCESS ? settle(st, rec, &d->categories, id, &c, got) : status;
}

/* A domain of the input: unified by name with the other inputs' (one
 * DomainRegister per name), or filtered out (target SIZE_MAX). */
static nvtxwResultCode_t replay_domain_register(replay_state* st, const nvtxw_record_t* rec) {
    replay_input* in = st->in;
    size_t target = SIZE_MAX;
    nvtxwResultCode_t status = NVTXW_RESULT_SUCCESS;
    if (in->domain_count == in->domain_capacity) {
        size_t capacity = in->domain_capacity ? in->domain_capacity * 2 : 4;
        replay_domain* grown = nvtxw_reallocarray(in->domains, capacity, sizeof *grown);
        size_t* targets =
            grown ? nvtxw_reallocarray(in->target_of, capacity, sizeof *targets) : NULL;
        if (grown != NULL)
            in->domains = grown;
        if (targets == NULL)
            return error_oom("the replay domains");
        in->target_of = targets;
        in->domain_capacity = capacity;
    }
    if (replay_match(st->opts.domains, st->domain_exact, st->opts.domain_pattern_count,
                     rec->u.domain.name) &&
        (status = replay_target_for(st, rec->u.domain.name, &target)) != NVTXW_RESULT_SUCCESS)
        return status;
    memset(&in->domains[in->domain_count], 0, sizeof *in->domains);
    in->target_of[in->domain_count] = target;
    if (target != SIZE_MAX)
        in->domains[in->domain_count].handle = st->targets[target].handle;
    in->domain_count++;
    return status;
}

static nvtxwResultCode_t replay_string(replay_state* st, replay_domain* d,
                                       const nvtxw_record_t* rec) {
    nvtxStringHandle_t* slot = remap_string_slot(d, d->string_count);
    if (slot == NULL)
        return error_oom("the replay strings");
    return replay_target_string(st, st->in->target_of[rec->domain], rec->u.string.text, slot);
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

/* Opened under a name unique in the new session, unless the filters drop
 * it (its records are dropped too). */
static nvtxwResultCode_t replay_stream_open(replay_state* st, replay_domain* d,
                                            const nvtxw_record_t* rec) {
    replay_input* in = st->in;
    nvtxwStreamAttributes_t attr;
    nvtxwResultCode_t status;
    if (rec->stream >= in->stream_count)
        return error_set(NVTXW_RESULT_FAILED, "stream %llu beyond the report's %zu streams",
                         (unsigned long long)rec->stream, in->stream_count);
    if (d->handle == NULL ||
        !replay_match(st->opts.streams, st->stream_exact, st->opts.stream_pattern_count,
                      rec->u.stream_open.name)) {
        in->stream_state[rec->stream] = REPLAY_STREAM_SKIPPED;
        return NVTXW_RESULT_SUCCESS;
    }
    memset(&attr, 0, sizeof attr);
    attr.structSize = sizeof attr;
    status = replay_stream_name(st, rec->u.stream_open.name, &attr.name);
    if (status != NVTXW_RESULT_SUCCESS)
        return status;
    attr.domain = d->handle;
    attr.scopeId = remap_id(&d->scopes, rec->u.stream_open.scope_id);
    attr.timeDomainId = remap_id(&d->time_domains, rec->u.stream_open.time_domain_id);
    attr.orderInterleaving = rec->u.stream_open.order_interleaving;
    attr.orderingType = rec->u.stream_open.ordering_type;
    attr.orderingSkid = rec->u.stream_open.ordering_skid;
    attr.orderingSkidAmount = rec->u.stream_open.ordering_skid_amount;
    status = st->t->StreamOpen(st->session, &attr, &in->streams[rec->stream]);
    if (status == NVTXW_RESULT_SUCCESS)
        in->stream_state[rec->stream] = REPLAY_STREAM_OPEN;
    return status;
}

/* The registration log, and so the stream-close records, come before every
 * stream record: closes are deferred to the end of the replay. */
static nvtxwResultCode_t replay_stream_close(replay_state* st, const nvtxw_record_t* rec) {
    if (rec->stream < st->in->stream_count)
        st->in->closing[rec->stream] = 1;
    return NVTXW_RESULT_SUCCESS;
}

/* The first input's session record begins the session; the others' are
 * merged into it. */
static nvtxwResultCode_t replay_session(replay_state* st, const nvtxw_record_t* rec) {
    nvtxwSessionAttributes_t attr;
    if (st->session != NULL)
        return NVTXW_RESULT_SUCCESS;
    attr.structSize = sizeof attr;
    attr.name = rec->u.session.name;
    attr.configString = st->config ? st->config : rec->u.session.config;
    return st->t->SessionBegin(&attr, &st->session);
}

static nvtxwResultCode_t replay_in_domain(replay_state* st, replay_domain* d,
                                          const nvtxw_record_t* rec) {
    switch (rec->kind) {
    case NVTXW_RECORD_CATEGORY:
        return replay_category(st, d, rec);
    case NVTXW_RECORD_STRING:
        return replay_string(st, d, rec);
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

nvtxwResultCode_t replay_registration(replay_state* st, const nvtxw_record_t* rec) {
    replay_input* in = st->in;
    if (rec->kind == NVTXW_RECORD_SESSION)
        return replay_session(st, rec);
    if (rec->kind == NVTXW_RECORD_DOMAIN)
        return replay_domain_register(st, rec);
    if (rec->kind == NVTXW_RECORD_STREAM_CLOSE)
        return replay_stream_close(st, rec);
    if (rec->domain >= in->domain_count)
        return error_set(NVTXW_RESULT_FAILED, "domain %llu was not replayed",
                         (unsigned long long)rec->domain);
    if (in->target_of[rec->domain] == SIZE_MAX) { /* filtered out */
        if (rec->kind == NVTXW_RECORD_STREAM_OPEN && rec->stream < in->stream_count)
            in->stream_state[rec->stream] = REPLAY_STREAM_SKIPPED;
        return NVTXW_RESULT_SUCCESS;
    }
    return replay_in_domain(st, &in->domains[rec->domain], rec);
}
