/*
 * sink/backend/backend_internal.h - state of Sink=backend, shared by
 * backend_sink.c (loading, session, domains, strings, categories,
 * resources), backend_regs.c (scopes, schemas, enums, counters, time
 * domains) and backend_write.c (streams and the write path).
 *
 * The sink re-issues every validated call into another NVTXW v2 backend
 * (the target), loaded from Backend= at SessionBegin and unloaded after
 * SessionEnd. References are translated with payload/remap.h: one
 * remap_domain per core domain (by core_domain.index) maps our string
 * handles and dynamic IDs to the target's; static IDs pass unchanged.
 *
 * Threading: registrations fill the maps (serialized by the NVTXW
 * contract); the write path only reads them and uses its stream's own
 * buffers, so forwarding takes no lock. The target is trusted to honour the
 * same per-stream concurrency.
 */
#ifndef NVTXW_SINK_BACKEND_INTERNAL_H
#define NVTXW_SINK_BACKEND_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "core/sink.h"
#include "nvtxw/extension.h"
#include "nvtxw/loader.h"
#include "payload/remap.h"

typedef struct backend_block backend_block;

typedef struct backend_sink {
    sink base;
    char* path;   /* Backend= value */
    char* config; /* configString given to the target */
    nvtxwModuleHandle_t module;
    const nvtxwInterface_t* t;
    const nvtxwExtensionInterface_t* ext; /* the target's, or NULL */
    nvtxwSessionHandle_t session;
    remap_domain** domains; /* by core_domain.index; NULL when not registered */
    size_t domain_count;
    backend_block* scratch; /* registration-time copies, freed after each call */
} backend_sink;

/* Per-stream state: the target's stream and reusable event buffers. */
typedef struct backend_stream {
    backend_sink* owner;
    const remap_domain* domain;
    const nvtxw_schema_registry_t* registry; /* our schemas of the stream's domain */
    nvtxwStreamHandle_t target;
    unsigned char* bytes; /* payload copies */
    size_t bytes_capacity;
    nvtxPayloadData_t* copies;
    uint64_t* source_ids;
    uint64_t* origins;
    size_t slots_capacity;
} backend_stream;

/* Folds a target result into ours: SUCCESS and NOT_SUPPORTED pass (the
 * latter leaves the session healthy); INVALID_ARGUMENT becomes FAILED (the
 * call was valid here, so the target disagreeing breaks the forwarded
 * session); other codes pass. Failures get a message naming `member`. */
nvtxwResultCode_t backend_result(const backend_sink* b, const char* member, nvtxwResultCode_t code);
/* NOT_SUPPORTED with a message: the target's table has no `member`. */
nvtxwResultCode_t backend_missing(const backend_sink* b, const char* member);
/* The target-side state of a registered core domain. */
remap_domain* backend_domain(const backend_sink* b, const core_domain* domain);
/* remap_alloc_fn over b->scratch; backend_scratch_reset frees it all. */
void* backend_scratch_alloc(void* b, size_t size);
void backend_scratch_reset(backend_sink* b);
/* Remembers a dynamic ID the target assigned; FAILED when out of memory. */
nvtxwResultCode_t backend_remember(remap_ids* map, uint64_t id, uint64_t got);

/* Registrations with IDs (backend_regs.c). */
nvtxwResultCode_t backend_scope_register(sink* s, const core_domain* domain, uint64_t scope_id,
                                         uint64_t parent, const char* path);
/* Forwarded when the target has libnvtxw's extension table; otherwise the
 * target keeps the scope, as NVTXW does. */
nvtxwResultCode_t backend_scope_release(sink* s, const core_domain* domain, uint64_t scope_id);
nvtxwResultCode_t backend_schema_register(sink* s, const core_domain* domain,
                                          const nvtxw_schema_t* schema);
nvtxwResultCode_t backend_enum_register(sink* s, const core_domain* domain,
                                        const nvtxw_enum_t* enumeration);
nvtxwResultCode_t backend_counter_register(sink* s, const core_domain* domain,
                                           const core_counter* counter);
nvtxwResultCode_t backend_time_domain_register(sink* s, const core_domain* domain,
                                               const nvtxTimeDomainAttr_t* attr);

/* Streams and the write path (backend_write.c). */
nvtxwResultCode_t backend_stream_open(sink* s, const core_stream* stream, void** state);
nvtxwResultCode_t backend_stream_close(sink* s, const core_stream* stream, void* state);
nvtxwResultCode_t backend_event_write(void* state, const core_event* event);
nvtxwResultCode_t backend_counter_write(void* state, int64_t timestamp, const core_counter* counter,
                                        const void* data, size_t size);
nvtxwResultCode_t backend_counter_no_value_write(void* state, int64_t timestamp,
                                                 const core_counter* counter, uint8_t reason);
nvtxwResultCode_t backend_sync_points_write(void* state, uint64_t src, uint64_t dst,
                                            const nvtxSyncPoint_t* points, size_t count);
nvtxwResultCode_t backend_conversion_factor_write(void* state, uint64_t src, uint64_t dst,
                                                  double slope, int64_t ts_src, int64_t ts_dst);
nvtxwResultCode_t backend_stream_flush(void* state);

#endif /* NVTXW_SINK_BACKEND_INTERNAL_H */
