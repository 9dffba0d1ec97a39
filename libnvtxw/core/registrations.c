/*
 * core/registrations.c - ResourceRegister, ScopeRegister, SchemaRegister,
 * EnumRegister, CounterRegister and TimeDomainRegister.
 *
 * Each call enters its domain (core_registration_enter: SessionEnd waits
 * for it, other registrations of the session wait on reg_mutex) and then
 * runs its *_register body; the body publishes the copy in the domain's
 * registry (common/pubmap.h) so writers on other threads may look it up
 * the moment its ID is returned.
 *
 * ID rules (spec 1.5, 3.5): a static ID lies in [STATIC_START,
 * DYNAMIC_START) and is unique in the domain; without one the core hands out
 * dynamic IDs from DYNAMIC_START upward, and the out pointer must be given.
 */
#include "config.h"

#include <string.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "common/struct_size.h"
#include "common/utf8.h"
#include "core/core_internal.h"
#include "nvtxw/resource.h"
#include "payload/semantics.h"

/* Static-or-dynamic ID choice shared by scopes, counters and time domains. */
static nvtxwResultCode_t pick_id(const char* call, const pubmap* taken, uint64_t requested,
                                 const uint64_t* out, uint64_t* next_dynamic, uint64_t* id) {
    if (requested == 0) {
        if (out == NULL)
            return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                             "cannot %s: no static ID given and the ID out pointer is NULL", call);
        *id = (*next_dynamic)++;
        return NVTXW_RESULT_SUCCESS;
    }
    if (requested < NVTX_SCOPE_ID_STATIC_START || requested >= NVTX_SCOPE_ID_DYNAMIC_START)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot %s: static ID %llu is outside [16777216, 4294967296)", call,
                         (unsigned long long)requested);
    if (pubmap_taken(taken, requested))
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot %s: static ID %llu is already %s in this domain", call,
                         (unsigned long long)requested,
                         pubmap_get(taken, requested) != NULL ? "registered" : "taken (released)");
    *id = requested;
    return NVTXW_RESULT_SUCCESS;
}

/* Tells the sink (when it implements the callback) and folds its result. */
#define SINK_CALL(domain, member, ...)                                                             \
    ((domain)->session->out->ops->member                                                           \
         ? core_session_sink_result((domain)->session, (domain)->session->out->ops->member(        \
                                                           (domain)->session->out, __VA_ARGS__))   \
         : NVTXW_RESULT_SUCCESS)

/* ---- Resources ---------------------------------------------------------- */

static nvtxwResultCode_t resource_message(const core_domain* domain,
                                          const nvtxw_resource_attributes_t* attr,
                                          core_resource* out) {
    out->message_type = attr->messageType;
    switch (attr->messageType) {
    case NVTXW_MESSAGE_UNKNOWN:
        return NVTXW_RESULT_SUCCESS;
    case NVTXW_MESSAGE_TYPE_ASCII:
        out->message = attr->message.ascii;
        return NVTXW_RESULT_SUCCESS;
    case NVTXW_MESSAGE_TYPE_REGISTERED:
        out->message_handle = (uint64_t)(uintptr_t)attr->message.registered;
        out->message = core_domain_string(domain, out->message_handle);
        if (out->message != NULL)
            return NVTXW_RESULT_SUCCESS;
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot register resource: message handle 0x%llx is not a string "
                         "registered in domain \"%s\"",
                         (unsigned long long)out->message_handle, domain->name);
    default: /* wchar_t messages: no portable conversion in an offline writer */
        return error_set(NVTXW_RESULT_NOT_SUPPORTED,
                         "cannot register resource: messageType=%d is not supported (use ASCII "
                         "or a registered string)",
                         (int)attr->messageType);
    }
}

static nvtxwResultCode_t resource_register(core_domain* domain,
                                           const nvtxResourceAttributes_t* attr_in) {
    const nvtxw_resource_attributes_t* attr = (const nvtxw_resource_attributes_t*)attr_in;
    nvtxwResultCode_t status;
    core_resource resource;
    if (attr == NULL || struct_size_problem(attr->size, sizeof *attr) != NULL)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT, "cannot register resource: %s%s",
                         attr == NULL ? "attr is NULL" : "attr->size ",
                         attr == NULL ? "" : struct_size_problem(attr->size, sizeof *attr));
    memset(&resource, 0, sizeof resource);
    resource.identifier_type = attr->identifierType;
    resource.identifier = attr->identifier.ullValue;
    if ((status = resource_message(domain, attr, &resource)) != NVTXW_RESULT_SUCCESS)
        return status;
    if (domain->session->out->ops->resource_register == NULL)
        return error_set(NVTXW_RESULT_NOT_SUPPORTED,
                         "cannot register resource: the %s sink does not support resources",
                         domain->session->out->ops->name);
    return SINK_CALL(domain, resource_register, domain, &resource);
}

nvtxwResultCode_t core_resource_register(nvtxDomainHandle_t handle,
                                         const nvtxResourceAttributes_t* attr) {
    nvtxwResultCode_t status;
    core_domain* domain = core_registration_enter(handle, "register resource", &status);
    if (domain == NULL)
        return status;
    status = resource_register(domain, attr);
    core_registration_leave(domain);
    return status;
}

/* ---- Scopes -------------------------------------------------------------- */

static int scope_parent_valid(const core_domain* domain, uint64_t parent) {
    return parent == NVTX_SCOPE_CURRENT_HW_MACHINE || parent == NVTX_SCOPE_CURRENT_VM ||
           core_domain_scope_known(domain, parent);
}

static nvtxwResultCode_t scope_check(const core_domain* domain, const nvtxScopeAttr_t* attr) {
    const char* size_problem =
        attr ? struct_size_problem(attr->structSize, sizeof *attr) : "attr is NULL";
    if (size_problem != NULL)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT, "cannot register scope: %s%s",
                         attr ? "attr->structSize " : "", size_problem);
    if (attr->scopeId != NVTX_SCOPE_NONE && attr->scopeId < NVTX_SCOPE_ID_STATIC_START)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot register scope: scopeId=%llu is a predefined scope, not a "
                         "static ID",
                         (unsigned long long)attr->scopeId);
    if (!scope_parent_valid(domain, attr->parentScope))
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot register scope: parentScope=%llu is neither ROOT, NONE, "
                         "CURRENT_HW_MACHINE, CURRENT_VM nor a scope of domain \"%s\"%s",
                         (unsigned long long)attr->parentScope, domain->name,
                         core_scope_released_note(domain, attr->parentScope));
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t scope_register(core_domain* domain, const nvtxScopeAttr_t* attr,
                                        uint64_t* out) {
    nvtxwResultCode_t status;
    core_scope* scope;
    const char* path;
    uint64_t id = 0;
    if ((status = scope_check(domain, attr)) != NVTXW_RESULT_SUCCESS ||
        (status = pick_id("register scope", &domain->scopes, attr->scopeId, out,
                          &domain->next_scope_id, &id)) != NVTXW_RESULT_SUCCESS)
        return status;
    path = attr->path ? attr->path : "";
    if ((scope = nvtxw_malloc(sizeof *scope + utf8_repaired_size(path))) == NULL)
        return error_oom("a scope");
    /* Filled before it is published: writers may read it at once. */
    scope->id = id;
    scope->parent = attr->parentScope;
    scope->users = 0;
    utf8_repair_into(scope->path, path);
    if (pubmap_put(&domain->scopes, id, scope) != 0) {
        nvtxw_free(scope);
        return error_oom("a scope");
    }
    core_scope_refer(domain, scope->parent, 1);
    if (out != NULL)
        *out = id;
    return SINK_CALL(domain, scope_register, domain, id, scope->parent, scope->path);
}

static nvtxwResultCode_t scope_release(core_domain* domain, uint64_t id) {
    core_scope* scope;
    nvtxwResultCode_t status;
    if (id < NVTX_SCOPE_ID_STATIC_START)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot release scope %llu: NONE, ROOT and the predefined scopes are "
                         "never released",
                         (unsigned long long)id);
    if ((scope = pubmap_get(&domain->scopes, id)) == NULL)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot release scope %llu: %s in domain \"%s\"", (unsigned long long)id,
                         pubmap_taken(&domain->scopes, id) ? "it was released already"
                                                           : "it is not a registered scope",
                         domain->name);
    if (scope->users != 0)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot release scope %llu (\"%s\") of domain \"%s\": %zu open "
                         "streams, counters, time domains or child scopes still name it",
                         (unsigned long long)id, scope->path, domain->name, scope->users);
    status = SINK_CALL(domain, scope_release, domain, id);
    /* Forgotten even when the sink failed (the session is faulty then):
     * the producer is done with it either way. */
    core_scope_refer(domain, scope->parent, -1);
    pubmap_release(&domain->scopes, id);
    nvtxw_free(scope);
    return status;
}

nvtxwResultCode_t core_scope_release(nvtxDomainHandle_t handle, uint64_t scope_id) {
    nvtxwResultCode_t status;
    core_domain* domain = core_registration_enter(handle, "release scope", &status);
    if (domain == NULL)
        return status;
    status = scope_release(domain, scope_id);
    core_registration_leave(domain);
    return status;
}

nvtxwResultCode_t core_scope_register(nvtxDomainHandle_t handle, const nvtxScopeAttr_t* attr,
                                      uint64_t* out) {
    nvtxwResultCode_t status;
    core_domain* domain = core_registration_enter(handle, "register scope", &status);
    if (domain == NULL)
        return status;
    status = scope_register(domain, attr, out);
    core_registration_leave(domain);
    return status;
}

/* ---- Schemas and enums ---------------------------------------------------- */

static nvtxwResultCode_t schema_register(core_domain* domain, const nvtxPayloadSchemaAttr_t* attr,
                                         uint64_t* out) {
    nvtxwResultCode_t status;
    uint64_t id = 0;
    if (attr != NULL && out == NULL &&
        !(attr->fieldMask & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_SCHEMA_ID))
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot register schema: no static ID given and schemaIdOut is NULL");
    status = nvtxw_schema_registry_add_schema(domain->schemas, attr, &id);
    if (status == NVTXW_RESULT_SUCCESS)
        status = core_fast_plan_add(domain, nvtxw_schema_registry_find_schema(domain->schemas, id));
    if (status != NVTXW_RESULT_SUCCESS)
        return status;
    if (out != NULL)
        *out = id;
    return SINK_CALL(domain, schema_register, domain,
                     nvtxw_schema_registry_find_schema(domain->schemas, id));
}

nvtxwResultCode_t core_schema_register(nvtxDomainHandle_t handle,
                                       const nvtxPayloadSchemaAttr_t* attr, uint64_t* out) {
    nvtxwResultCode_t status;
    core_domain* domain = core_registration_enter(handle, "register schema", &status);
    if (domain == NULL)
        return status;
    status = schema_register(domain, attr, out);
    core_registration_leave(domain);
    return status;
}

static nvtxwResultCode_t enum_register(core_domain* domain, const nvtxPayloadEnumAttr_t* attr,
                                       uint64_t* out) {
    nvtxwResultCode_t status;
    uint64_t id = 0;
    if (attr != NULL && out == NULL && !(attr->fieldMask & NVTX_PAYLOAD_ENUM_ATTR_FIELD_SCHEMA_ID))
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot register enum: no static ID given and enumIdOut is NULL");
    status = nvtxw_schema_registry_add_enum(domain->schemas, attr, &id);
    if (status != NVTXW_RESULT_SUCCESS)
        return status;
    if (out != NULL)
        *out = id;
    return SINK_CALL(domain, enum_register, domain,
                     nvtxw_schema_registry_find_enum(domain->schemas, id));
}

nvtxwResultCode_t core_enum_register(nvtxDomainHandle_t handle, const nvtxPayloadEnumAttr_t* attr,
                                     uint64_t* out) {
    nvtxwResultCode_t status;
    core_domain* domain = core_registration_enter(handle, "register enum", &status);
    if (domain == NULL)
        return status;
    status = enum_register(domain, attr, out);
    core_registration_leave(domain);
    return status;
}

/* ---- Counters -------------------------------------------------------------- */

/* Bytes of one sample: a predefined numeric type or a static schema. */
static nvtxwResultCode_t counter_sample_size(const core_domain* domain, uint64_t schema_id,
                                             size_t* size) {
    const nvtxw_schema_t* schema;
    if (schema_id < NVTX_PAYLOAD_SCHEMA_ID_STATIC_START) {
        *size = nvtxw_entry_type_size(schema_id);
        if (*size != 0 && schema_id != NVTX_PAYLOAD_ENTRY_TYPE_CSTRING &&
            (schema_id < NVTX_PAYLOAD_ENTRY_TYPE_CSTRING ||
             schema_id > NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF32))
            return NVTXW_RESULT_SUCCESS;
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot register counter: schemaId=%llu is not a predefined numeric "
                         "type",
                         (unsigned long long)schema_id);
    }
    schema = nvtxw_schema_registry_find_schema(domain->schemas, schema_id);
    if (schema == NULL || nvtxw_schema_is_variable_size(schema))
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot register counter: schemaId=%llu is %s in domain \"%s\"",
                         (unsigned long long)schema_id,
                         schema ? "a variable-size schema" : "not a registered schema",
                         domain->name);
    *size = nvtxw_schema_static_size(schema);
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t counter_check(const core_domain* domain, const nvtxCounterAttr_t* attr,
                                       size_t* sample_size) {
    const char* size_problem =
        attr ? struct_size_problem(attr->structSize, sizeof *attr) : "attr is NULL";
    if (size_problem != NULL)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT, "cannot register counter: %s%s",
                         attr ? "attr->structSize " : "", size_problem);
    if (!core_domain_scope_known(domain, attr->scopeId))
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot register counter \"%s\": scopeId=%llu is not a scope of domain "
                         "\"%s\"%s",
                         attr->name ? attr->name : "", (unsigned long long)attr->scopeId,
                         domain->name, core_scope_released_note(domain, attr->scopeId));
    return counter_sample_size(domain, attr->schemaId, sample_size);
}

void core_counter_free(core_counter* counter) {
    semantics_free(counter->semantics);
    nvtxw_free((char*)counter->name);
    nvtxw_free((char*)counter->description);
    nvtxw_free(counter);
}

static nvtxwResultCode_t counter_copy(const nvtxCounterAttr_t* attr, uint64_t id,
                                      size_t sample_size, core_counter** out) {
    core_counter* counter = nvtxw_calloc(1, sizeof *counter);
    nvtxwResultCode_t status;
    if (counter == NULL)
        return error_oom("a counter");
    counter->id = id;
    counter->schema_id = attr->schemaId;
    counter->scope_id = attr->scopeId;
    counter->sample_size = sample_size;
    counter->name = utf8_dup_repaired(attr->name ? attr->name : "");
    counter->description = utf8_dup_repaired(attr->description ? attr->description : "");
    status = counter->name && counter->description
                 ? semantics_copy(attr->semantics, "register counter", &counter->semantics)
                 : error_oom("a counter name");
    if (status != NVTXW_RESULT_SUCCESS) {
        core_counter_free(counter);
        return status;
    }
    *out = counter;
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t counter_register(core_domain* domain, const nvtxCounterAttr_t* attr,
                                          uint64_t* out) {
    nvtxwResultCode_t status;
    core_counter* counter = NULL;
    size_t sample_size = 0;
    uint64_t id = 0;
    if ((status = counter_check(domain, attr, &sample_size)) != NVTXW_RESULT_SUCCESS ||
        (status = pick_id("register counter", &domain->counters, attr->counterId, out,
                          &domain->next_counter_id, &id)) != NVTXW_RESULT_SUCCESS)
        return status;
    if ((status = counter_copy(attr, id, sample_size, &counter)) != NVTXW_RESULT_SUCCESS)
        return status;
    if (pubmap_put(&domain->counters, id, counter) != 0) {
        core_counter_free(counter);
        return error_oom("a counter");
    }
    core_scope_refer(domain, counter->scope_id, 1);
    if (out != NULL)
        *out = id;
    return SINK_CALL(domain, counter_register, domain, counter);
}

nvtxwResultCode_t core_counter_register(nvtxDomainHandle_t handle, const nvtxCounterAttr_t* attr,
                                        uint64_t* out) {
    nvtxwResultCode_t status;
    core_domain* domain = core_registration_enter(handle, "register counter", &status);
    if (domain == NULL)
        return status;
    status = counter_register(domain, attr, out);
    core_registration_leave(domain);
    return status;
}

/* ---- Time domains ---------------------------------------------------------- */

static nvtxwResultCode_t time_domain_register(core_domain* domain, const nvtxTimeDomainAttr_t* attr,
                                              uint64_t* out) {
    nvtxwResultCode_t status;
    nvtxTimeDomainAttr_t* copy;
    uint64_t id = 0;
    if (attr == NULL)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot register time domain: attr is NULL");
    if (!core_domain_scope_known(domain, attr->scopeId))
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot register time domain: scopeId=%llu is not a scope of domain "
                         "\"%s\"%s",
                         (unsigned long long)attr->scopeId, domain->name,
                         core_scope_released_note(domain, attr->scopeId));
    status = pick_id("register time domain", &domain->time_domains, attr->timeDomainId, out,
                     &domain->next_time_domain_id, &id);
    if (status != NVTXW_RESULT_SUCCESS)
        return status;
    copy = nvtxw_malloc(sizeof *copy);
    if (copy != NULL) {
        *copy = *attr;
        copy->timeDomainId = id;
    }
    /* Filled before it is published: writers may read it at once. */
    if (copy == NULL || pubmap_put(&domain->time_domains, id, copy) != 0) {
        nvtxw_free(copy);
        return error_oom("a time domain");
    }
    if (out != NULL)
        *out = id;
    core_scope_refer(domain, attr->scopeId, 1);
    return SINK_CALL(domain, time_domain_register, domain, copy);
}

nvtxwResultCode_t core_time_domain_register(nvtxDomainHandle_t handle,
                                            const nvtxTimeDomainAttr_t* attr, uint64_t* out) {
    nvtxwResultCode_t status;
    core_domain* domain = core_registration_enter(handle, "register time domain", &status);
    if (domain == NULL)
        return status;
    status = time_domain_register(domain, attr, out);
    core_registration_leave(domain);
    return status;
}
