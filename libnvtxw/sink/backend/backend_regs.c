/*
 * sink/backend/backend_regs.c - Sink=backend: registrations that carry IDs
 * (scopes, schemas, enums, counters, time domains).
 *
 * ID rule: a static ID is registered under the same value with a NULL out
 * pointer (spec 1.5 allows it, and the target keeps our ID); a dynamic ID
 * is registered without one, and the ID the target hands back is
 * remembered, so a target whose dynamic IDs differ from ours works. Every
 * reference inside the attrs (parent scopes, nested entry types, counter
 * schemas and scopes, semantics) is translated first.
 */
#include "config.h"

#include <string.h>

#include "common/error_internal.h"
#include "sink/backend/backend_internal.h"

#define DYNAMIC NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START

nvtxwResultCode_t backend_scope_register(sink* s, const core_domain* domain, uint64_t scope_id,
                                         uint64_t parent, const char* path) {
    backend_sink* b = (backend_sink*)s;
    remap_domain* d = backend_domain(b, domain);
    nvtxScopeAttr_t attr;
    uint64_t got = 0;
    nvtxwResultCode_t status;
    if (b->t->ScopeRegister == NULL)
        return backend_missing(b, "ScopeRegister");
    attr.structSize = sizeof attr;
    attr.path = path;
    attr.parentScope = remap_id(&d->scopes, parent);
    attr.scopeId = scope_id >= DYNAMIC ? NVTX_SCOPE_NONE : scope_id;
    status = b->t->ScopeRegister(d->handle, &attr, scope_id >= DYNAMIC ? &got : NULL);
    if (status != NVTXW_RESULT_SUCCESS)
        return backend_result(b, "ScopeRegister", status);
    return backend_remember(&d->scopes, scope_id, got);
}

nvtxwResultCode_t backend_scope_release(sink* s, const core_domain* domain, uint64_t scope_id) {
    backend_sink* b = (backend_sink*)s;
    remap_domain* d = backend_domain(b, domain);
    /* The ID map keeps its entry (16 bytes): remap_ids has no removal. */
    if (!NVTXW_EXTENSION_HAS(b->ext, ScopeRelease))
        return NVTXW_RESULT_SUCCESS;
    return backend_result(b, "ScopeRelease",
                          b->ext->ScopeRelease(d->handle, remap_id(&d->scopes, scope_id)));
}

nvtxwResultCode_t backend_schema_register(sink* s, const core_domain* domain,
                                          const nvtxw_schema_t* schema) {
    backend_sink* b = (backend_sink*)s;
    remap_domain* d = backend_domain(b, domain);
    nvtxPayloadSchemaAttr_t attr;
    uint64_t id = nvtxw_schema_id(schema), got = 0;
    nvtxwResultCode_t status;
    if (b->t->SchemaRegister == NULL)
        return backend_missing(b, "SchemaRegister");
    nvtxw_schema_get_attr(schema, &attr);
    if (remap_schema_attr(d, &attr, backend_scratch_alloc, b) != 0) {
        backend_scratch_reset(b);
        return error_oom("a forwarded schema");
    }
    status = b->t->SchemaRegister(d->handle, &attr, id >= DYNAMIC ? &got : NULL);
    backend_scratch_reset(b);
    if (status != NVTXW_RESULT_SUCCESS)
        return backend_result(b, "SchemaRegister", status);
    return backend_remember(&d->schemas, id, got);
}

nvtxwResultCode_t backend_enum_register(sink* s, const core_domain* domain,
                                        const nvtxw_enum_t* enumeration) {
    backend_sink* b = (backend_sink*)s;
    remap_domain* d = backend_domain(b, domain);
    nvtxPayloadEnumAttr_t attr;
    uint64_t id = nvtxw_enum_id(enumeration), got = 0;
    nvtxwResultCode_t status;
    if (b->t->EnumRegister == NULL)
        return backend_missing(b, "EnumRegister");
    nvtxw_enum_get_attr(enumeration, &attr);
    if (id >= DYNAMIC)
        attr.fieldMask &= ~(uint64_t)NVTX_PAYLOAD_ENUM_ATTR_FIELD_SCHEMA_ID;
    status = b->t->EnumRegister(d->handle, &attr, id >= DYNAMIC ? &got : NULL);
    if (status != NVTXW_RESULT_SUCCESS)
        return backend_result(b, "EnumRegister", status);
    return backend_remember(&d->schemas, id, got);
}

nvtxwResultCode_t backend_counter_register(sink* s, const core_domain* domain,
                                           const core_counter* counter) {
    backend_sink* b = (backend_sink*)s;
    remap_domain* d = backend_domain(b, domain);
    nvtxCounterAttr_t attr;
    uint64_t got = 0;
    nvtxwResultCode_t status;
    if (b->t->CounterRegister == NULL)
        return backend_missing(b, "CounterRegister");
    memset(&attr, 0, sizeof attr);
    attr.structSize = sizeof attr;
    attr.schemaId = counter->schema_id;
    attr.name = counter->name;
    /* The core keeps "" for an absent description. */
    attr.description = counter->description[0] != '\0' ? counter->description : NULL;
    attr.scopeId = counter->scope_id;
    attr.semantics = counter->semantics;
    attr.counterId = counter->id;
    if (remap_counter_attr(d, &attr, backend_scratch_alloc, b) != 0) {
        backend_scratch_reset(b);
        return error_oom("a forwarded counter");
    }
    status = b->t->CounterRegister(d->handle, &attr, counter->id >= DYNAMIC ? &got : NULL);
    backend_scratch_reset(b);
    if (status != NVTXW_RESULT_SUCCESS)
        return backend_result(b, "CounterRegister", status);
    return backend_remember(&d->counters, counter->id, got);
}

nvtxwResultCode_t backend_time_domain_register(sink* s, const core_domain* domain,
                                               const nvtxTimeDomainAttr_t* attr_in) {
    backend_sink* b = (backend_sink*)s;
    remap_domain* d = backend_domain(b, domain);
    nvtxTimeDomainAttr_t attr = *attr_in;
    uint64_t id = attr_in->timeDomainId, got = 0;
    nvtxwResultCode_t status;
    if (b->t->TimeDomainRegister == NULL)
        return backend_missing(b, "TimeDomainRegister");
    attr.scopeId = remap_id(&d->scopes, attr.scopeId);
    attr.timeDomainId = id >= DYNAMIC ? NVTX_TIME_DOMAIN_ID_NONE : id;
    status = b->t->TimeDomainRegister(d->handle, &attr, id >= DYNAMIC ? &got : NULL);
    if (status != NVTXW_RESULT_SUCCESS)
        return backend_result(b, "TimeDomainRegister", status);
    return backend_remember(&d->time_domains, id, got);
}
