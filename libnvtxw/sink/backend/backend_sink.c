/*
 * sink/backend/backend_sink.c - Sink=backend: forwards the session to another NVTXW
 * v2 backend library (docs/config.md, Backend= and BackendConfig=).
 *
 * SessionBegin loads Backend= (an absolute path) as the reference loader
 * loads an explicit library, except that NVTXW3_LIBRARY is not consulted:
 * that variable chose the backend the producer talks to, not the one it
 * forwards to. The target's version-2 table then begins a session of the
 * same name whose configString is BackendConfig= (when given) followed by
 * every line of ours except Sink, Backend and BackendConfig, so the first
 * occurrence rule lets BackendConfig= override one passed-through key.
 * SessionEnd ends the target's session and unloads the library.
 *
 * Every other callback is the corresponding table call with references
 * translated (payload/remap.h). A NULL member of the target's table makes
 * that call NOT_SUPPORTED; the target's own NOT_SUPPORTED is passed on and
 * leaves the session healthy; any other failure makes it faulty.
 */
#include "config.h"

#include <stdalign.h>
#include <string.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "common/strbuf.h"
#include "loader/loader_internal.h"
#include "nvtxw/resource.h"
#include "sink/backend/backend_internal.h"
#include "sink/shared/sink_registry.h"

struct backend_block {
    backend_block* next;
    max_align_t data[];
};

/* ---- Shared helpers ------------------------------------------------------- */

nvtxwResultCode_t backend_result(const backend_sink* b, const char* member,
                                 nvtxwResultCode_t code) {
    char text[256];
    if (code == NVTXW_RESULT_SUCCESS)
        return code;
    nvtxwGetError(code, text, sizeof text);
    error_set(code == NVTXW_RESULT_INVALID_ARGUMENT ? NVTXW_RESULT_FAILED : code,
              "cannot forward %s: backend=\"%s\" returned %d (%s)", member, b->path, (int)code,
              text);
    return code == NVTXW_RESULT_INVALID_ARGUMENT ? NVTXW_RESULT_FAILED : code;
}

nvtxwResultCode_t backend_missing(const backend_sink* b, const char* member) {
    return error_set(NVTXW_RESULT_NOT_SUPPORTED,
                     "cannot forward %s: backend=\"%s\" has no %s member in its table", member,
                     b->path, member);
}

remap_domain* backend_domain(const backend_sink* b, const core_domain* domain) {
    return domain->index < b->domain_count ? b->domains[domain->index] : NULL;
}

void* backend_scratch_alloc(void* ctx, size_t size) {
    backend_sink* b = ctx;
    backend_block* block;
    if (size > SIZE_MAX - sizeof *block)
        return NULL;
    block = nvtxw_malloc(sizeof *block + size);
    if (block == NULL)
        return NULL;
    block->next = b->scratch;
    b->scratch = block;
    return block->data;
}

void backend_scratch_reset(backend_sink* b) {
    while (b->scratch != NULL) {
        backend_block* next = b->scratch->next;
        nvtxw_free(b->scratch);
        b->scratch = next;
    }
}

nvtxwResultCode_t backend_remember(remap_ids* map, uint64_t id, uint64_t got) {
    return remap_id_put(map, id, got) == 0 ? NVTXW_RESULT_SUCCESS : error_oom("a backend ID map");
}

/* ---- Loading and the session ---------------------------------------------- */

/* Fails SessionBegin with the loader's words for `code` (spec 5.3). */
static nvtxwResultCode_t load_error(const char* path, nvtxwResultCode_t code) {
    char text[1280];
    nvtxwGetError(code, text, sizeof text);
    return error_set(code, "cannot begin session: Backend=\"%s\": %s", path, text);
}

/* Loads the library and takes its version-2 table. */
static nvtxwResultCode_t backend_load(backend_sink* b) {
    nvtxwGetInterface_t get_interface = NULL;
    const void* iface = NULL;
    nvtxwResultCode_t status = loader_load_path(b->path, &get_interface, &b->module);
    if (status != NVTXW_RESULT_SUCCESS)
        return load_error(b->path, status);
    status = get_interface(NVTXW_INTERFACE_VERSION, &iface);
    if (status == NVTXW_RESULT_SUCCESS && iface == NULL)
        status = NVTXW_RESULT_INTERFACE_VERSION_NOT_SUPPORTED;
    if (status != NVTXW_RESULT_SUCCESS)
        return load_error(b->path, status);
    b->t = iface;
    /* Optional: any other backend answers INTERFACE_VERSION_NOT_SUPPORTED
     * (one that hands out its v2 table for any version is not taken for
     * an extension table). */
    iface = NULL;
    if (get_interface(NVTXW_EXTENSION_INTERFACE_VERSION, &iface) == NVTXW_RESULT_SUCCESS &&
        iface != b->t)
        b->ext = iface;
    return NVTXW_RESULT_SUCCESS;
}

static int is_own_key(const char* begin, const char* end) {
    static const char* const own[] = {"Sink", "Backend", "BackendConfig"};
    size_t length = (size_t)(end - begin), i;
    for (i = 0; i < sizeof own / sizeof own[0]; i++)
        if (strlen(own[i]) == length && memcmp(own[i], begin, length) == 0)
            return 1;
    return 0;
}

/* nvtxwConsumeConfigString consumer: appends "key=value\n" unless ours. */
static int pass_key(void* state, const char* key_begin, const char* key_end,
                    const char* value_begin, const char* value_end) {
    strbuf* out = state;
    if (is_own_key(key_begin, key_end))
        return 0;
    return strbuf_append(out, key_begin, (size_t)(key_end - key_begin)) != 0 ||
           strbuf_append(out, "=", 1) != 0 ||
           strbuf_append(out, value_begin, (size_t)(value_end - value_begin)) != 0 ||
           strbuf_append(out, "\n", 1) != 0;
}

/* The target's configString (see the file comment). */
static nvtxwResultCode_t backend_make_config(backend_sink* b, const core_config* config) {
    strbuf out = {NULL, 0, 0};
    int failed = strbuf_reserve(&out, strlen(config->raw) + 1) != 0;
    if (!failed && config->backend_config != NULL)
        failed = strbuf_append(&out, config->backend_config, strlen(config->backend_config)) ||
                 strbuf_append(&out, "\n", 1);
    if (!failed)
        nvtxwConsumeConfigString(config->raw, pass_key, &out);
    if (failed || out.data == NULL) {
        strbuf_free(&out);
        return error_oom("the backend configuration");
    }
    b->config = out.data;
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t backend_begin(backend_sink* b, const char* session_name) {
    nvtxwSessionAttributes_t attr;
    nvtxwResultCode_t status;
    if (b->t->SessionBegin == NULL)
        return backend_missing(b, "SessionBegin");
    attr.structSize = sizeof attr;
    attr.name = session_name;
    attr.configString = b->config;
    status = b->t->SessionBegin(&attr, &b->session);
    if (status != NVTXW_RESULT_SUCCESS) {
        b->session = NULL;
        backend_result(b, "SessionBegin", status);
        error_prefix("cannot begin session");
    }
    return status;
}

static void backend_free(backend_sink* b) {
    size_t i;
    for (i = 0; i < b->domain_count; i++) {
        if (b->domains[i] != NULL)
            remap_domain_clear(b->domains[i]);
        nvtxw_free(b->domains[i]);
    }
    nvtxw_free(b->domains);
    backend_scratch_reset(b);
    nvtxwUnload(b->module);
    nvtxw_free(b->config);
    nvtxw_free(b->path);
    nvtxw_free(b);
}

static nvtxwResultCode_t backend_create(const core_config* config, const char* session_name,
                                        sink** out) {
    backend_sink* b;
    nvtxwResultCode_t status;
    if (config->backend == NULL || config->backend[0] != '/')
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot begin session: Sink=backend needs Backend=/absolute/path/lib.so, "
                         "got %s%s%s",
                         config->backend ? "\"" : "", config->backend ? config->backend : "none",
                         config->backend ? "\"" : "");
    b = nvtxw_calloc(1, sizeof *b);
    if (b == NULL || (b->path = nvtxw_strdup(config->backend)) == NULL) {
        nvtxw_free(b);
        return error_oom("the backend sink");
    }
    b->base.ops = &sink_backend_ops;
    status = backend_load(b);
    if (status == NVTXW_RESULT_SUCCESS)
        status = backend_make_config(b, config);
    if (status == NVTXW_RESULT_SUCCESS)
        status = backend_begin(b, session_name);
    if (status != NVTXW_RESULT_SUCCESS) {
        backend_free(b);
        return status;
    }
    *out = &b->base;
    return NVTXW_RESULT_SUCCESS;
}

/* Ends the target's session even when ours is faulty: its outputs are then
 * closed by the target's own rules (it is not told about the fault). */
static nvtxwResultCode_t backend_destroy(sink* s, int faulty) {
    backend_sink* b = (backend_sink*)s;
    nvtxwResultCode_t status = NVTXW_RESULT_SUCCESS;
    (void)faulty;
    if (b->t->SessionEnd != NULL)
        status = backend_result(b, "SessionEnd", b->t->SessionEnd(b->session));
    backend_free(b);
    return status;
}

/* ---- Domains, categories, strings, resources ------------------------------- */

/* Makes room for domain index `index`. */
static int domains_reserve(backend_sink* b, size_t index) {
    remap_domain** grown;
    if (index < b->domain_count)
        return 0;
    grown = nvtxw_reallocarray(b->domains, index + 1, sizeof *grown);
    if (grown == NULL)
        return -1;
    memset(grown + b->domain_count, 0, (index + 1 - b->domain_count) * sizeof *grown);
    b->domains = grown;
    b->domain_count = index + 1;
    return 0;
}

static nvtxwResultCode_t backend_domain_register(sink* s, const core_domain* domain) {
    backend_sink* b = (backend_sink*)s;
    nvtxwDomainAttributes_t attr;
    remap_domain* d;
    nvtxwResultCode_t status;
    if (b->t->DomainRegister == NULL)
        return backend_missing(b, "DomainRegister");
    if (domains_reserve(b, domain->index) != 0 || (d = nvtxw_calloc(1, sizeof *d)) == NULL)
        return error_oom("a backend domain");
    attr.structSize = sizeof attr;
    attr.name = domain->name;
    status = b->t->DomainRegister(b->session, &attr, &d->handle);
    if (status != NVTXW_RESULT_SUCCESS) {
        nvtxw_free(d);
        return backend_result(b, "DomainRegister", status);
    }
    b->domains[domain->index] = d; /* failed registrations leave no slot */
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t backend_category_register(sink* s, const core_domain* domain,
                                                   uint32_t category, const char* name) {
    backend_sink* b = (backend_sink*)s;
    if (b->t->CategoryRegister == NULL)
        return backend_missing(b, "CategoryRegister");
    return backend_result(
        b, "CategoryRegister",
        b->t->CategoryRegister(backend_domain(b, domain)->handle, category, name));
}

/* Our handle's low half is the string index + 1 (core/domain.c). */
static nvtxwResultCode_t backend_string_register(sink* s, const core_domain* domain,
                                                 uint64_t handle, const char* text) {
    backend_sink* b = (backend_sink*)s;
    remap_domain* d = backend_domain(b, domain);
    nvtxStringHandle_t got = NULL, *slot;
    nvtxwResultCode_t status;
    if (b->t->StringRegister == NULL)
        return backend_missing(b, "StringRegister");
    status = b->t->StringRegister(d->handle, text, &got);
    if (status != NVTXW_RESULT_SUCCESS)
        return backend_result(b, "StringRegister", status);
    slot = remap_string_slot(d, (size_t)(handle & UINT32_MAX) - 1);
    if (slot == NULL)
        return error_oom("the backend string table");
    *slot = got;
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t backend_resource_register(sink* s, const core_domain* domain,
                                                   const core_resource* resource) {
    backend_sink* b = (backend_sink*)s;
    const remap_domain* d = backend_domain(b, domain);
    nvtxw_resource_attributes_t attr;
    if (b->t->ResourceRegister == NULL)
        return backend_missing(b, "ResourceRegister");
    memset(&attr, 0, sizeof attr);
    attr.version = 3; /* NVTX_VERSION */
    attr.size = NVTXW_RESOURCE_ATTRIB_STRUCT_SIZE;
    attr.identifierType = resource->identifier_type;
    attr.identifier.ullValue = resource->identifier;
    attr.messageType = resource->message_type;
    if (resource->message_type == NVTXW_MESSAGE_TYPE_REGISTERED)
        attr.message.registered =
            (nvtxStringHandle_t)(uintptr_t)remap_string(d, resource->message_handle);
    else if (resource->message_type == NVTXW_MESSAGE_TYPE_ASCII)
        attr.message.ascii = resource->message;
    return backend_result(
        b, "ResourceRegister",
        b->t->ResourceRegister(d->handle, (const nvtxResourceAttributes_t*)(const void*)&attr));
}

const sink_ops sink_backend_ops = {
    .name = "backend",
    .create = backend_create,
    .destroy = backend_destroy,
    .domain_register = backend_domain_register,
    .category_register = backend_category_register,
    .string_register = backend_string_register,
    .resource_register = backend_resource_register,
    .scope_register = backend_scope_register,
    .scope_release = backend_scope_release,
    .schema_register = backend_schema_register,
    .enum_register = backend_enum_register,
    .counter_register = backend_counter_register,
    .time_domain_register = backend_time_domain_register,
    .stream_open = backend_stream_open,
    .stream_close = backend_stream_close,
    .event_write = backend_event_write,
    .counter_write = backend_counter_write,
    .counter_no_value_write = backend_counter_no_value_write,
    .sync_points_write = backend_sync_points_write,
    .conversion_factor_write = backend_conversion_factor_write,
    .stream_flush = backend_stream_flush,
};
