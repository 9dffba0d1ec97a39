/*
 * sink/null/null_sink.c - Sink=null: every call is validated by the core and by
 * walking event payloads, then dropped. Measures the core's own cost and
 * lets producers check their calls without writing a file.
 */
#include "config.h"

#include "common/alloc.h"
#include "common/error_internal.h"
#include "sink/shared/sink_registry.h"

static nvtxwResultCode_t null_create(const core_config* config, const char* session_name,
                                     sink** out) {
    (void)config;
    (void)session_name;
    *out = nvtxw_calloc(1, sizeof **out);
    if (*out == NULL)
        return error_oom("the null sink");
    (*out)->ops = &sink_null_ops;
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t null_destroy(sink* s, int faulty) {
    (void)faulty;
    nvtxw_free(s);
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t null_stream_open(sink* s, const core_stream* stream, void** state) {
    (void)s;
    *state = (void*)stream;
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t null_event_write(void* state, const core_event* event) {
    core_event_facts facts;
    (void)state;
    return core_event_visit(event, NULL, NULL, NVTXW_VISIT_ALLOW_FOREIGN_POINTERS, &facts);
}

static nvtxwResultCode_t null_counter_write(void* state, int64_t timestamp,
                                            const core_counter* counter, const void* data,
                                            size_t size) {
    (void)state, (void)timestamp, (void)counter, (void)data, (void)size;
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t null_counter_no_value_write(void* state, int64_t timestamp,
                                                     const core_counter* counter, uint8_t reason) {
    (void)state, (void)timestamp, (void)counter, (void)reason;
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t null_sync_points_write(void* state, uint64_t src, uint64_t dst,
                                                const nvtxSyncPoint_t* points, size_t count) {
    (void)state, (void)src, (void)dst, (void)points, (void)count;
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t null_conversion_factor_write(void* state, uint64_t src, uint64_t dst,
                                                      double slope, int64_t ts_src,
                                                      int64_t ts_dst) {
    (void)state, (void)src, (void)dst, (void)slope, (void)ts_src, (void)ts_dst;
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t null_category_register(sink* s, const core_domain* domain,
                                                uint32_t category, const char* name) {
    (void)s, (void)domain, (void)category, (void)name;
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t null_resource_register(sink* s, const core_domain* domain,
                                                const core_resource* resource) {
    (void)s, (void)domain, (void)resource;
    return NVTXW_RESULT_SUCCESS;
}

/* Other registrations need no callback: the core keeps them. */
const sink_ops sink_null_ops = {
    .name = "null",
    .create = null_create,
    .destroy = null_destroy,
    .category_register = null_category_register,
    .resource_register = null_resource_register,
    .stream_open = null_stream_open,
    .event_write = null_event_write,
    .counter_write = null_counter_write,
    .counter_no_value_write = null_counter_no_value_write,
    .sync_points_write = null_sync_points_write,
    .conversion_factor_write = null_conversion_factor_write,
};
