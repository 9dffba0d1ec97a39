/*
 * core/domain.c - DomainRegister, CategoryRegister, StringRegister and the
 * per-domain lookups the write path uses.
 *
 * String handles are values, not pointers: serial << 32 | (index + 1), where
 * `serial` is unique per domain in the process, so a handle registered in
 * another domain (or another session) never resolves here.
 */
#include "config.h"

#include <string.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "common/struct_size.h"
#include "common/utf8.h"
#include "core/core_internal.h"

static _Atomic uint32_t next_domain_serial = 1;

core_domain* core_domain_create(core_session* session, const char* name) {
    core_domain* domain = nvtxw_calloc(1, sizeof *domain);
    if (domain == NULL)
        return NULL;
    domain->session = session;
    domain->serial = atomic_fetch_add(&next_domain_serial, 1);
    domain->name = nvtxw_strdup(name);
    domain->schemas = nvtxw_schema_registry_create();
    domain->next_scope_id = NVTX_SCOPE_ID_DYNAMIC_START;
    domain->next_counter_id = NVTX_COUNTER_ID_DYNAMIC_START;
    domain->next_time_domain_id = NVTX_TIME_DOMAIN_ID_DYNAMIC_START;
    /* dynamic IDs come one after the other: a pointer each, no hash slots */
    pubmap_init_dense(&domain->scopes, NVTX_SCOPE_ID_DYNAMIC_START);
    pubmap_init_dense(&domain->counters, NVTX_COUNTER_ID_DYNAMIC_START);
    pubmap_init_dense(&domain->time_domains, NVTX_TIME_DOMAIN_ID_DYNAMIC_START);
    if (domain->name == NULL || domain->schemas == NULL) {
        core_domain_destroy(domain);
        return NULL;
    }
    return domain;
}

static void counter_free(void* value) { core_counter_free(value); }

void core_domain_destroy(core_domain* domain) {
    if (domain == NULL)
        return;
    /* Also frees the retired tables: no writer or registration is left. */
    pubvec_free(&domain->strings, nvtxw_free);
    pubmap_free(&domain->categories, nvtxw_free);
    pubmap_free(&domain->scopes, nvtxw_free);
    pubmap_free(&domain->counters, counter_free);
    pubmap_free(&domain->time_domains, nvtxw_free);
    pubmap_free(&domain->fast_plans, nvtxw_free);
    nvtxw_schema_registry_destroy(domain->schemas);
    nvtxw_free(domain->name);
    nvtxw_free(domain);
}

static core_domain* session_find_domain(const core_session* session, const char* name) {
    size_t i;
    for (i = 0; i < session->domain_count; i++) {
        if (strcmp(session->domains[i]->name, name) == 0)
            return session->domains[i];
    }
    return NULL;
}

static nvtxwResultCode_t session_add_domain(core_session* session, core_domain* domain) {
    if (session->domain_count == session->domain_capacity) {
        size_t capacity = session->domain_capacity ? session->domain_capacity * 2 : 4;
        core_domain** grown =
            nvtxw_reallocarray(session->domains, capacity, sizeof *session->domains);
        if (grown == NULL)
            return error_oom("the domain list");
        session->domains = grown;
        session->domain_capacity = capacity;
    }
    domain->handle = handle_insert(&core_domains, domain);
    if (domain->handle == 0)
        return error_oom("a domain handle");
    session->domains[session->domain_count++] = domain;
    handle_leave(&core_domains, domain->handle); /* others may enter it from here on */
    return NVTXW_RESULT_SUCCESS;
}

/* Creates the domain, tells the sink, and publishes it. */
static nvtxwResultCode_t domain_add(core_session* session, const char* name, core_domain** out) {
    core_domain* domain = core_domain_create(session, name);
    nvtxwResultCode_t status;
    if (domain == NULL)
        return error_oom("a domain");
    domain->index = (uint32_t)session->domain_count;
    status = session->out->ops->domain_register
                 ? session->out->ops->domain_register(session->out, domain)
                 : NVTXW_RESULT_SUCCESS;
    if (status == NVTXW_RESULT_SUCCESS)
        status = session_add_domain(session, domain);
    if (status != NVTXW_RESULT_SUCCESS) {
        if (domain->handle != 0)
            handle_release(&core_domains, domain->handle);
        core_domain_destroy(domain);
        return core_session_sink_result(session, status);
    }
    *out = domain;
    return NVTXW_RESULT_SUCCESS;
}

/* Names are kept as UTF-8 (docs/threading.md, "Names"): a name that is not
 * is repaired first, so that finding and adding agree. */
nvtxwResultCode_t core_domain_find_or_add(core_session* session, const char* name,
                                          core_domain** out) {
    char* repaired = utf8_dup_repaired(name);
    nvtxwResultCode_t status;
    if (repaired == NULL)
        return error_oom("a domain name");
    *out = session_find_domain(session, repaired);
    status = *out ? NVTXW_RESULT_SUCCESS : domain_add(session, repaired, out);
    nvtxw_free(repaired);
    return status;
}

static nvtxwResultCode_t domain_register(core_session* session, const nvtxwDomainAttributes_t* attr,
                                         nvtxDomainHandle_t* out) {
    const char* name = "";
    core_domain* domain;
    nvtxwResultCode_t status;
    if (out == NULL)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot register domain: domainOut is NULL");
    if ((status = core_session_check(session)) != NVTXW_RESULT_SUCCESS)
        return status;
    if (attr != NULL && attr->structSize > STRUCT_SIZE_MAX)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot register domain: attr->structSize %s",
                         struct_size_problem(attr->structSize, 0));
    /* structSize covers name only when it reaches past the size field. */
    if (attr != NULL &&
        attr->structSize >= offsetof(nvtxwDomainAttributes_t, name) + sizeof(char*) &&
        attr->name != NULL)
        name = attr->name;
    if ((status = core_domain_find_or_add(session, name, &domain)) != NVTXW_RESULT_SUCCESS)
        return status;
    *out = (nvtxDomainHandle_t)(uintptr_t)domain->handle;
    return NVTXW_RESULT_SUCCESS;
}

/* The session's slot keeps other lifecycle calls out; reg_mutex keeps the
 * registrations of its other domains away from the sink. */
nvtxwResultCode_t core_domain_register(nvtxwSessionHandle_t handle,
                                       const nvtxwDomainAttributes_t* attr,
                                       nvtxDomainHandle_t* out) {
    core_session* session = core_session_enter(handle, "register domain");
    nvtxwResultCode_t status;
    if (session == NULL)
        return NVTXW_RESULT_INVALID_ARGUMENT;
    pthread_mutex_lock(&session->reg_mutex);
    status = domain_register(session, attr, out);
    pthread_mutex_unlock(&session->reg_mutex);
    core_session_leave(session);
    return status;
}

static nvtxwResultCode_t category_register(core_domain* domain, uint32_t category,
                                           const char* name) {
    nvtxwResultCode_t status;
    sink* out;
    char* copy;
    if (category == 0 || name == NULL)
        return error_set(
            NVTXW_RESULT_INVALID_ARGUMENT, "cannot register category: %s (category=%u)",
            category == 0 ? "category 0 means \"no category\"" : "name is NULL", category);
    if (pubmap_get(&domain->categories, category) != NULL)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot register category: category=%u is already named in domain "
                         "\"%s\"",
                         category, domain->name);
    out = domain->session->out;
    if (out->ops->category_register == NULL)
        return error_set(NVTXW_RESULT_NOT_SUPPORTED,
                         "cannot register category: the %s sink does "
                         "not support categories",
                         out->ops->name);
    /* Room first: once the sink has the category, publishing cannot fail. */
    if (pubmap_reserve(&domain->categories, 1) != 0 || (copy = utf8_dup_repaired(name)) == NULL)
        return error_oom("a category");
    status = out->ops->category_register(out, domain, category, copy);
    if (status != NVTXW_RESULT_SUCCESS) {
        nvtxw_free(copy);
        return core_session_sink_result(domain->session, status);
    }
    pubmap_put(&domain->categories, category, copy);
    return NVTXW_RESULT_SUCCESS;
}

nvtxwResultCode_t core_category_register(nvtxDomainHandle_t handle, uint32_t category,
                                         const char* name) {
    nvtxwResultCode_t status;
    core_domain* domain = core_registration_enter(handle, "register category", &status);
    if (domain == NULL)
        return status;
    status = category_register(domain, category, name);
    core_registration_leave(domain);
    return status;
}

/* The sink sees the string before writers can: it is published (and its
 * handle returned) only when the sink took it, so a refused string was
 * never visible. */
static nvtxwResultCode_t string_register(core_domain* domain, const char* string,
                                         nvtxStringHandle_t* out) {
    sink* sink_out = domain->session->out;
    nvtxwResultCode_t status = NVTXW_RESULT_SUCCESS;
    size_t index = domain->string_count;
    uint64_t handle = (uint64_t)domain->serial << 32 | (index + 1);
    char* copy;
    if (string == NULL || out == NULL)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT, "cannot register string: %s is NULL",
                         string == NULL ? "string" : "stringHandleOut");
    if (index == UINT32_MAX - 1)
        return error_set(NVTXW_RESULT_FAILED, "cannot register string: domain \"%s\" is full",
                         domain->name);
    if (pubvec_reserve(&domain->strings, index) != 0)
        return error_oom("the string table");
    if ((copy = nvtxw_strdup(string)) == NULL)
        return error_oom("a registered string");
    if (sink_out->ops->string_register != NULL)
        status = sink_out->ops->string_register(sink_out, domain, handle, copy);
    if (status != NVTXW_RESULT_SUCCESS) {
        nvtxw_free(copy);
        return core_session_sink_result(domain->session, status);
    }
    pubvec_set(&domain->strings, index, copy); /* reserved: cannot fail */
    domain->string_count++;
    *out = (nvtxStringHandle_t)(uintptr_t)handle;
    return NVTXW_RESULT_SUCCESS;
}

nvtxwResultCode_t core_string_register(nvtxDomainHandle_t handle_in, const char* string,
                                       nvtxStringHandle_t* out) {
    nvtxwResultCode_t status;
    core_domain* domain = core_registration_enter(handle_in, "register string", &status);
    if (domain == NULL)
        return status;
    status = string_register(domain, string, out);
    core_registration_leave(domain);
    return status;
}

/* Lock-free: strings are published in a pubvec (common/pubmap.h). */
const char* core_domain_category(const core_domain* domain, uint64_t category) {
    return pubmap_get(&domain->categories, category);
}

const core_scope* core_domain_scope(const core_domain* domain, uint64_t scope_id) {
    if (scope_id == NVTX_SCOPE_NONE || scope_id == NVTX_SCOPE_ROOT)
        return NULL;
    return pubmap_get(&domain->scopes, scope_id);
}

const core_counter* core_domain_counter(const core_domain* domain, uint64_t id) {
    return pubmap_get(&domain->counters, id);
}

void core_scope_refer(core_domain* domain, uint64_t id, int delta) {
    core_scope* scope =
        id == NVTX_SCOPE_NONE || id == NVTX_SCOPE_ROOT ? NULL : pubmap_get(&domain->scopes, id);
    if (scope != NULL)
        scope->users += (size_t)delta; /* -1 wraps to one less */
}

int core_domain_scope_released(const core_domain* domain, uint64_t id) {
    return pubmap_get_raw(&domain->scopes, id) == PUBMAP_RELEASED;
}

const char* core_scope_released_note(const core_domain* domain, uint64_t id) {
    return core_domain_scope_released(domain, id) ? " (it was released with ScopeRelease)" : "";
}

int core_domain_scope_known(const core_domain* domain, uint64_t id) {
    return id == NVTX_SCOPE_NONE || id == NVTX_SCOPE_ROOT ||
           pubmap_get(&domain->scopes, id) != NULL;
}

/* Predefined NVTX_TIMESTAMP_TYPE_* values (spec 3.7). */
static int timestamp_type_known(uint64_t id) {
    return id <= 1 || (id >= 10 && id <= 19) || (id >= 30 && id <= 32) || (id >= 40 && id <= 42) ||
           (id >= 50 && id <= 56) || id == 80;
}

int core_domain_time_domain_known(const core_domain* domain, uint64_t id) {
    if (id < NVTX_TIME_DOMAIN_ID_STATIC_START)
        return timestamp_type_known(id);
    return pubmap_get(&domain->time_domains, id) != NULL;
}
