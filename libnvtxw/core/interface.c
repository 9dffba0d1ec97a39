/*
 * core/interface.c - the backend entry points (nvtxwGetInterface,
 * nvtxwFinalize), the version 2 function table, and handle resolution.
 *
 * The table is a constant: all 21 members set, the 43 reserved slots NULL
 * (spec 1.4). Handles are resolved through process-wide generational tables
 * (common/handles.h), so stale, foreign or wrong-kind handles fail with
 * INVALID_ARGUMENT. Calls that use a stream or a session beyond a lookup
 * enter its handle first (core_stream_enter, core_session_enter): a second
 * thread on the same stream, or a lifecycle call racing another on the same
 * session, is refused instead of touching state in use or being freed.
 */
#include "config.h"

#include <string.h>

#include "common/error_internal.h"
#include "core/core_internal.h"
#include "nvtxw/backend.h"
#include "nvtxw/extension.h"

handle_table core_sessions = HANDLE_TABLE_INIT(HANDLE_KIND_SESSION);
handle_table core_domains = HANDLE_TABLE_INIT(HANDLE_KIND_DOMAIN);
handle_table core_streams = HANDLE_TABLE_INIT(HANDLE_KIND_STREAM);

static const nvtxwInterface_v2_t core_interface = {
    core_session_begin,
    core_session_end,
    core_domain_register,
    core_category_register,
    core_string_register,
    core_resource_register,
    core_scope_register,
    core_schema_register,
    core_enum_register,
    core_counter_register,
    core_time_domain_register,
    core_stream_open,
    core_stream_close,
    core_event_write,
    core_event_batch_write,
    core_counter_write,
    core_counter_no_value_write,
    core_counter_batch_write,
    core_time_sync_point_write,
    core_time_sync_table_write,
    core_conversion_factor_write,
    {NULL},
};

static const nvtxwExtensionInterface_v1_t core_extension = {
    sizeof(nvtxwExtensionInterface_v1_t),
    core_scope_release,
    core_stream_flush,
    core_session_begin_shared,
};

nvtxwResultCode_t nvtxwGetInterface(nvtxwInterfaceVersion_t version, const void** ifaceOut) {
    if (ifaceOut == NULL)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT, "cannot get interface: ifaceOut is NULL");
    if (version == NVTXW_EXTENSION_INTERFACE_VERSION) {
        *ifaceOut = &core_extension;
        return NVTXW_RESULT_SUCCESS;
    }
    if (version != NVTXW_INTERFACE_VERSION)
        return error_set(NVTXW_RESULT_INTERFACE_VERSION_NOT_SUPPORTED,
                         "cannot get interface: version %d is not supported (only %d, and "
                         "libnvtxw's extension table %d)",
                         (int)version, NVTXW_INTERFACE_VERSION,
                         (int)NVTXW_EXTENSION_INTERFACE_VERSION);
    *ifaceOut = &core_interface;
    return NVTXW_RESULT_SUCCESS;
}

void nvtxwFinalize(void) {
    /* Only frees the tables when every session has ended: calling it early
     * must not turn live handles into dangling ones. */
    if (handle_table_reset(&core_sessions) == 0) {
        handle_table_reset(&core_streams);
        handle_table_reset(&core_domains);
    }
}

static const char* handle_kind_name(uint64_t handle) {
    switch (handle_kind(handle)) {
    case HANDLE_KIND_SESSION:
        return "session";
    case HANDLE_KIND_DOMAIN:
        return "domain";
    case HANDLE_KIND_STREAM:
        return "stream";
    default:
        return "unknown";
    }
}

/* The message of a handle of kind `what` that did not resolve or enter. */
static void handle_fail(handle_status status, uint64_t handle, const char* what, const char* call) {
    void* shown = (void*)(uintptr_t)handle;
    if (status == HANDLE_WRONG_KIND)
        error_set(NVTXW_RESULT_INVALID_ARGUMENT, "cannot %s: %p is a %s handle, not a %s handle",
                  call, shown, handle_kind_name(handle), what);
    else if (status == HANDLE_BUSY)
        error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                  "cannot %s: %s handle %p is in use by another thread (docs/threading.md: a "
                  "stream takes one thread at a time, and so do the lifecycle calls of a "
                  "session)",
                  call, what, shown);
    else if (strcmp(what, "domain") == 0)
        error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                  "cannot %s: domain handle %p is not a domain of an open session", call, shown);
    else
        error_set(NVTXW_RESULT_INVALID_ARGUMENT, "cannot %s: %s handle %p is not an open %s", call,
                  what, shown, what);
}

core_session* core_session_enter(nvtxwSessionHandle_t handle, const char* call) {
    void* session = NULL;
    handle_status status = handle_enter(&core_sessions, (uint64_t)(uintptr_t)handle, &session);
    if (status != HANDLE_ENTERED) {
        handle_fail(status, (uint64_t)(uintptr_t)handle, "session", call);
        return NULL;
    }
    return session;
}

void core_session_leave(core_session* session) { handle_leave(&core_sessions, session->handle); }

core_domain* core_domain_get(nvtxDomainHandle_t handle, const char* call) {
    core_domain* domain = handle_lookup(&core_domains, (uint64_t)(uintptr_t)handle);
    if (domain == NULL)
        handle_fail(handle_failure(&core_domains, (uint64_t)(uintptr_t)handle),
                    (uint64_t)(uintptr_t)handle, "domain", call);
    return domain;
}

core_domain* core_registration_enter(nvtxDomainHandle_t handle, const char* call,
                                     nvtxwResultCode_t* status) {
    void* object = NULL;
    core_domain* domain;
    handle_status entered = handle_enter_wait(&core_domains, (uint64_t)(uintptr_t)handle, &object);
    *status = NVTXW_RESULT_INVALID_ARGUMENT;
    if (entered != HANDLE_ENTERED) {
        handle_fail(entered, (uint64_t)(uintptr_t)handle, "domain", call);
        return NULL;
    }
    domain = object;
    /* SessionEnd sets `ending` before it waits for the domain slots: a
     * registration that entered first is waited for, one that sees the flag
     * leaves at once (either way nothing is touched after the free). */
    if (atomic_load_explicit(&domain->session->ending, memory_order_acquire))
        *status = error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                            "cannot %s: domain \"%s\" is closing: its session is ending", call,
                            domain->name);
    else
        *status = core_session_check(domain->session);
    if (*status != NVTXW_RESULT_SUCCESS) {
        handle_leave(&core_domains, domain->handle);
        return NULL;
    }
    pthread_mutex_lock(&domain->session->reg_mutex);
    return domain;
}

void core_registration_leave(core_domain* domain) {
    pthread_mutex_unlock(&domain->session->reg_mutex);
    handle_leave(&core_domains, domain->handle);
}

void core_stream_enter_failed(handle_status status, nvtxwStreamHandle_t handle, const char* call) {
    handle_fail(status, (uint64_t)(uintptr_t)handle, "stream", call);
}
