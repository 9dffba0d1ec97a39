/*
 * core/core_internal.h - the core's own: sessions, the handle tables, the
 * function-table members (core/interface.c) and the registry internals.
 * What sinks may see of domains and streams is in core/sink.h.
 *
 * Ownership: a session owns its domains, streams and sink; a domain owns its
 * registries. Everything registered is copied. Handles given to the producer
 * are generational values (common/handles.h), resolved on every call.
 *
 * Threading (docs/threading.md; stronger than the NVTXW contract, spec
 * section 6): writes to distinct streams run concurrently with each other
 * and with registrations and StreamOpen. The write path takes no lock: it
 * reads registries published as common/pubmap.h says and touches only its
 * own stream's state; the one shared mutable value it writes is the
 * session's fault code, an atomic. Registrations enter their domain's
 * handle slot (so SessionEnd waits for them) and then take the session's
 * reg_mutex, as do the lifecycle calls inside the session's slot: every
 * sink callback but the write path runs under reg_mutex. Order: a slot,
 * then reg_mutex; nobody waits for a slot while holding reg_mutex.
 */
#ifndef NVTXW_CORE_INTERNAL_H
#define NVTXW_CORE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "common/compiler.h"
#include "common/handles.h"
#include "common/idmap.h"
#include "common/strset.h"
#include "core/sink.h"
#include "nvtxw/abi.h"
#include "nvtxw/payload.h"

/* Number of config keys the core knows (core/session.c). */
#define CORE_CONFIG_KEYS 7

struct core_session {
    uint64_t handle;
    char* name;
    core_config config;
    char* config_values[CORE_CONFIG_KEYS]; /* strings the config points into */
    nvtxwShare_t share;                    /* SessionBeginShared's (config.share points here) */
    char* config_raw;                      /* the config string as given */
    sink* out;
    _Atomic nvtxwResultCode_t fault; /* non-zero: faulty, calls return this */
    _Atomic int ending;              /* SessionEnd has begun: writes are refused */
    pthread_mutex_t fault_mutex;     /* guards fault_message (rare path only) */
    /* Serializes registrations (of every domain), DomainRegister, StreamOpen
     * and StreamClose of this session, and so every sink callback but the
     * write path. Never taken by writes. */
    pthread_mutex_t reg_mutex;
    char* fault_message; /* message saved when the fault happened */
    core_domain** domains;
    size_t domain_count, domain_capacity;
    strset stream_names;     /* names of every stream opened in the session */
    uint64_t streams_opened; /* next stream index */
    core_stream** streams;   /* open streams */
    size_t stream_count, stream_capacity;
};

/* Process-wide handle tables (core/interface.c). */
extern handle_table core_sessions;
extern handle_table core_domains;
extern handle_table core_streams;

/* Handle resolution; NULL with the error message set on failure. */
core_domain* core_domain_get(nvtxDomainHandle_t handle, const char* call);
/* Begins a registration call: enters the domain's handle slot, waiting
 * while another registration of that domain is inside (SessionEnd waits for
 * the one inside in turn), refuses it when the session is ending or faulty,
 * and takes the session's reg_mutex. NULL with *status and the message set
 * on failure (then nothing is held). core_registration_leave undoes it. */
core_domain* core_registration_enter(nvtxDomainHandle_t handle, const char* call,
                                     nvtxwResultCode_t* status);
void core_registration_leave(core_domain* domain);
/* Enters a session (SessionEnd, StreamOpen, StreamClose, DomainRegister: one
 * thread at a time per session) or a stream (writes and StreamClose: one
 * thread at a time per stream) through its handle (common/handles.h); NULL
 * with the message set when the handle is stale, of another kind, or in use
 * by another thread. Every entry is matched by a leave, or by releasing the
 * handle. Lock-free. */
core_session* core_session_enter(nvtxwSessionHandle_t handle, const char* call);
void core_session_leave(core_session* session);
/* Sets the message of a stream handle that did not enter (out of line). */
void core_stream_enter_failed(handle_status status, nvtxwStreamHandle_t handle, const char* call);
/* Inline: every write call enters and leaves its stream. */
static inline core_stream* core_stream_enter(nvtxwStreamHandle_t handle, const char* call) {
    void* stream = NULL;
    handle_status status = handle_enter(&core_streams, (uint64_t)(uintptr_t)handle, &stream);
    if (status != HANDLE_ENTERED) {
        core_stream_enter_failed(status, handle, call);
        return NULL;
    }
    return stream;
}
static inline void core_stream_leave(core_stream* stream) {
    handle_leave_slot(stream->handle_slot, stream->handle);
}
/* The refusal of a write call on an entered stream whose session is ending
 * or faulty: leaves the stream, sets *status and the message, returns NULL. */
core_stream* core_stream_refuse_write(core_stream* stream, const char* call,
                                      nvtxwResultCode_t* status);
/* Enters the stream of a write call and checks its session's fault state;
 * NULL with *status and the message set on failure (then not entered).
 * Inline: every write call starts here. */
static NVTXW_ALWAYS_INLINE core_stream*
core_stream_for_write(nvtxwStreamHandle_t handle, const char* call, nvtxwResultCode_t* status) {
    core_stream* stream = core_stream_enter(handle, call);
    if (stream == NULL) {
        *status = NVTXW_RESULT_INVALID_ARGUMENT;
        return NULL;
    }
    if (atomic_load_explicit(&stream->session->ending, memory_order_acquire) ||
        atomic_load_explicit(&stream->session->fault, memory_order_acquire) != NVTXW_RESULT_SUCCESS)
        return core_stream_refuse_write(stream, call, status);
    return stream;
}

/* Fault handling, inline for the write path (session.c has the slow
 * halves). core_session_check returns the session's saved fault (message
 * restored), or SUCCESS when the session is healthy. */
nvtxwResultCode_t core_session_fault(core_session* session);
static inline nvtxwResultCode_t core_session_check(core_session* session) {
    return atomic_load_explicit(&session->fault, memory_order_acquire) == NVTXW_RESULT_SUCCESS
               ? NVTXW_RESULT_SUCCESS
               : core_session_fault(session);
}
/* Records a sink failure: codes other than INVALID_ARGUMENT and NOT_SUPPORTED
 * make the session faulty. Returns `code`. */
nvtxwResultCode_t core_session_record_fault(core_session* session, nvtxwResultCode_t code);
static inline nvtxwResultCode_t core_session_sink_result(core_session* session,
                                                         nvtxwResultCode_t code) {
    return code == NVTXW_RESULT_SUCCESS || code == NVTXW_RESULT_INVALID_ARGUMENT ||
                   code == NVTXW_RESULT_NOT_SUPPORTED
               ? code
               : core_session_record_fault(session, code);
}

/* Domain and registries (core/domain.c). */
core_domain* core_domain_create(core_session* session, const char* name);
void core_domain_destroy(core_domain* domain);
/* The session's domain of that name, created (and told to the sink) when new. */
nvtxwResultCode_t core_domain_find_or_add(core_session* session, const char* name,
                                          core_domain** out);
void core_stream_free(core_stream* stream);
void core_counter_free(core_counter* counter);
const core_counter* core_domain_counter(const core_domain* domain, uint64_t id);
/* Non-zero when `id` names a clock: NONE, a predefined timestamp type or a
 * registered time domain. */
int core_domain_time_domain_known(const core_domain* domain, uint64_t id);

/* Fast validation (core/fast_check.c): plans are made at schema
 * registration; the check (core_event_fast_check, sink.h) returns non-zero
 * and fills `facts` when every payload of the event is covered by a plan,
 * else 0 (walk it instead). */
nvtxwResultCode_t core_fast_plan_add(core_domain* domain, const nvtxw_schema_t* schema);

/* The function-table members, one file each concern. */
nvtxwResultCode_t core_session_begin(const nvtxwSessionAttributes_t* attr,
                                     nvtxwSessionHandle_t* out);
nvtxwResultCode_t core_session_begin_shared(const nvtxwSessionAttributes_t* attr,
                                            const nvtxwShare_t* share, nvtxwSessionHandle_t* out);
nvtxwResultCode_t core_session_end(nvtxwSessionHandle_t session);
nvtxwResultCode_t core_domain_register(nvtxwSessionHandle_t session,
                                       const nvtxwDomainAttributes_t* attr,
                                       nvtxDomainHandle_t* out);
nvtxwResultCode_t core_category_register(nvtxDomainHandle_t domain, uint32_t category,
                                         const char* name);
nvtxwResultCode_t core_string_register(nvtxDomainHandle_t domain, const char* string,
                                       nvtxStringHandle_t* out);
nvtxwResultCode_t core_resource_register(nvtxDomainHandle_t domain,
                                         const nvtxResourceAttributes_t* attr);
/* libnvtxw's extension table (nvtxw/extension.h). */
nvtxwResultCode_t core_scope_release(nvtxDomainHandle_t domain, uint64_t scope_id);
nvtxwResultCode_t core_stream_flush(nvtxwStreamHandle_t stream);
/* Adds `delta` to the users of scope `id` when it is a registered scope
 * (core_scope.users); under reg_mutex. */
void core_scope_refer(core_domain* domain, uint64_t id, int delta);
nvtxwResultCode_t core_scope_register(nvtxDomainHandle_t domain, const nvtxScopeAttr_t* attr,
                                      uint64_t* out);
nvtxwResultCode_t core_schema_register(nvtxDomainHandle_t domain,
                                       const nvtxPayloadSchemaAttr_t* attr, uint64_t* out);
nvtxwResultCode_t core_enum_register(nvtxDomainHandle_t domain, const nvtxPayloadEnumAttr_t* attr,
                                     uint64_t* out);
nvtxwResultCode_t core_counter_register(nvtxDomainHandle_t domain, const nvtxCounterAttr_t* attr,
                                        uint64_t* out);
nvtxwResultCode_t core_time_domain_register(nvtxDomainHandle_t domain,
                                            const nvtxTimeDomainAttr_t* attr, uint64_t* out);
nvtxwResultCode_t core_stream_open(nvtxwSessionHandle_t session,
                                   const nvtxwStreamAttributes_t* attr, nvtxwStreamHandle_t* out);
nvtxwResultCode_t core_stream_close(nvtxwStreamHandle_t stream);
nvtxwResultCode_t core_event_write(nvtxwStreamHandle_t stream, const nvtxPayloadData_t* payloads,
                                   size_t count);
nvtxwResultCode_t core_event_batch_write(nvtxwStreamHandle_t stream, const nvtxEventBatch_t* batch);
nvtxwResultCode_t core_counter_write(nvtxwStreamHandle_t stream, int64_t timestamp,
                                     uint64_t counter_id, const void* data, size_t size);
nvtxwResultCode_t core_counter_no_value_write(nvtxwStreamHandle_t stream, int64_t timestamp,
                                              uint64_t counter_id, uint8_t reason);
nvtxwResultCode_t core_counter_batch_write(nvtxwStreamHandle_t stream,
                                           const nvtxCounterBatch_t* batch);
nvtxwResultCode_t core_time_sync_point_write(nvtxwStreamHandle_t stream, uint64_t domain1,
                                             uint64_t domain2, int64_t timestamp1,
                                             int64_t timestamp2);
nvtxwResultCode_t core_time_sync_table_write(nvtxwStreamHandle_t stream, uint64_t domain_src,
                                             uint64_t domain_dst, const nvtxSyncPoint_t* points,
                                             size_t count);
nvtxwResultCode_t core_conversion_factor_write(nvtxwStreamHandle_t stream, uint64_t domain_src,
                                               uint64_t domain_dst, double slope,
                                               int64_t timestamp_src, int64_t timestamp_dst);

#endif /* NVTXW_CORE_INTERNAL_H */
