/*
 * payload/registry_restore.c - registration under an exact ID (see
 * registry_restore.h). Static IDs go through the public functions with the
 * SCHEMA_ID bit set. For a dynamic ID the registry's next dynamic ID is set
 * to it for one dynamic registration, then moved to max(previous, id + 1).
 */
#include "config.h"

#include "common/error_internal.h"
#include "payload/registry_internal.h"
#include "payload/registry_restore.h"

static nvtxwResultCode_t check_id(const nvtxw_schema_registry_t* registry, uint64_t id,
                                  const char* what) {
    if (registry == NULL)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT, "cannot restore %s: registry is NULL",
                         what);
    if (id < NVTX_PAYLOAD_SCHEMA_ID_STATIC_START)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot restore %s: ID %llu is below the static range", what,
                         (unsigned long long)id);
    if (nvtxw_schema_registry_find_schema(registry, id) != NULL ||
        nvtxw_schema_registry_find_enum(registry, id) != NULL)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot restore %s: ID %llu is already used", what,
                         (unsigned long long)id);
    return NVTXW_RESULT_SUCCESS;
}

/* Moves the dynamic counter past `id` after a dynamic registration attempt
 * that started from `previous`. */
static void settle_dynamic(nvtxw_schema_registry_t* registry, uint64_t previous, uint64_t id,
                           int registered) {
    uint64_t next = previous;
    if (registered && (previous != 0 && id >= previous))
        next = id + 1; /* 0 after UINT64_MAX: the registry reads it as exhausted */
    registry_exchange_next_dynamic(registry, next);
}

nvtxwResultCode_t registry_restore_schema(nvtxw_schema_registry_t* registry,
                                          const nvtxPayloadSchemaAttr_t* attr, uint64_t id) {
    nvtxPayloadSchemaAttr_t copy;
    nvtxwResultCode_t status = check_id(registry, id, "schema");
    uint64_t previous;
    uint64_t got = 0;
    if (status != NVTXW_RESULT_SUCCESS)
        return status;
    if (attr == NULL)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT, "cannot restore schema: attr is NULL");
    copy = *attr;
    copy.schemaId = id;
    if (id < NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START) {
        copy.fieldMask |= NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_SCHEMA_ID;
        return nvtxw_schema_registry_add_schema(registry, &copy, NULL);
    }
    copy.fieldMask &= ~(uint64_t)NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_SCHEMA_ID;
    previous = registry_exchange_next_dynamic(registry, id);
    status = nvtxw_schema_registry_add_schema(registry, &copy, &got);
    settle_dynamic(registry, previous, id, status == NVTXW_RESULT_SUCCESS);
    return status;
}

nvtxwResultCode_t registry_restore_enum(nvtxw_schema_registry_t* registry,
                                        const nvtxPayloadEnumAttr_t* attr, uint64_t id) {
    nvtxPayloadEnumAttr_t copy;
    nvtxwResultCode_t status = check_id(registry, id, "enum");
    uint64_t previous;
    uint64_t got = 0;
    if (status != NVTXW_RESULT_SUCCESS)
        return status;
    if (attr == NULL)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT, "cannot restore enum: attr is NULL");
    copy = *attr;
    copy.schemaId = id;
    if (id < NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START) {
        copy.fieldMask |= NVTX_PAYLOAD_ENUM_ATTR_FIELD_SCHEMA_ID;
        return nvtxw_schema_registry_add_enum(registry, &copy, NULL);
    }
    copy.fieldMask &= ~(uint64_t)NVTX_PAYLOAD_ENUM_ATTR_FIELD_SCHEMA_ID;
    previous = registry_exchange_next_dynamic(registry, id);
    status = nvtxw_schema_registry_add_enum(registry, &copy, &got);
    settle_dynamic(registry, previous, id, status == NVTXW_RESULT_SUCCESS);
    return status;
}
