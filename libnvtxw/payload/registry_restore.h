/*
 * payload/registry_restore.h - registering schemas and enums under an exact,
 * previously assigned ID, as a report reader must: the writer stored the IDs
 * it handed out, which may be dynamic (>= NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START)
 * and therefore not accepted as static IDs by nvtxw_schema_registry_add_*.
 * Validation and finalization are the registry's own. Internal.
 */
#ifndef NVTXW_PAYLOAD_REGISTRY_RESTORE_H
#define NVTXW_PAYLOAD_REGISTRY_RESTORE_H

#include <stdint.h>

#include "nvtxw/payload.h"

/*
 * Registers `attr` (its SCHEMA_ID bit and schemaId are ignored) under `id`,
 * which must be >= NVTX_PAYLOAD_SCHEMA_ID_STATIC_START and unused in the
 * registry. A dynamic `id` moves the registry's dynamic counter past it, so
 * later dynamic registrations never collide. Returns the registry's result
 * and message; on failure nothing changes.
 */
nvtxwResultCode_t registry_restore_schema(nvtxw_schema_registry_t* registry,
                                          const nvtxPayloadSchemaAttr_t* attr, uint64_t id);
nvtxwResultCode_t registry_restore_enum(nvtxw_schema_registry_t* registry,
                                        const nvtxPayloadEnumAttr_t* attr, uint64_t id);

#endif /* NVTXW_PAYLOAD_REGISTRY_RESTORE_H */
