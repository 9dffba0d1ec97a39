/*
 * core/backend.c - the backend entry points (nvtxwGetInterface,
 * nvtxwFinalize), the version 2 function table, and handle resolution.
 *
 * The table is a constant: all 21 members set, the 43 reserved slots NULL
 * (spec 1.4). Handles are resolved through process-wide generational tables,
 * so stale or foreign handles fail with INVALID_ARGUMENT.
 */
#include "config.h"

#include "common/error_internal.h"
#include "core/core_internal.h"
#include "nvtxw/backend.h"

handle_table core_sessions = HANDLE_TABLE_INIT;
handle_table core_domains = HANDLE_TABLE_INIT;
handle_table core_streams = HANDLE_TABLE_INIT;

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

nvtxwResultCode_t nvtxwGetInterface(nvtxwInterfaceVersion_t version, const void** ifaceOut) {
    if (ifaceOut == NULL)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT, "cannot get interface: ifaceOut is NULL");
    if (version != NVTXW_INTERFACE_VERSION)
        return error_set(NVTXW_RESULT_INTERFACE_VERSION_NOT_SUPPORTED,
                         "cannot get interface: version %d is not supported (only %d)",
                         (int)version, NVTXW_INTERFACE_VERSION);
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

core_session* core_session_get(nvtxwSessionHandle_t handle, const char* call) {
    core_session* session = handle_lookup(&core_sessions, (uint64_t)(uintptr_t)handle);
    if (session == NULL)
        error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                  "cannot %s: session handle %p is not an open session", call, (void*)handle);
    return session;
}

core_domain* core_domain_get(nvtxDomainHandle_t handle, const char* call) {
    core_domain* domain = handle_lookup(&core_domains, (uint64_t)(uintptr_t)handle);
    if (domain == NULL)
        error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                  "cannot %s: domain handle %p is not a domain of an open session", call,
                  (void*)handle);
    return domain;
}

core_stream* core_stream_get(nvtxwStreamHandle_t handle, const char* call) {
    core_stream* stream = handle_lookup(&core_streams, (uint64_t)(uintptr_t)handle);
    if (stream == NULL)
        error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                  "cannot %s: stream handle %p is not an open stream", call, (void*)handle);
    return stream;
}
