/*
 * payload/semantics.c - deep copies of semantic-extension chains.
 */
#include "config.h"

#include <string.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "common/struct_size.h"
#include "nvtxw/payload.h"
#include "payload/semantics.h"

void semantics_free(const nvtxSemanticsHeader_t* chain) {
    while (chain != NULL) {
        const nvtxSemanticsHeader_t* next = chain->next;
        if (chain->semanticId == NVTX_SEMANTIC_ID_COUNTERS_V1 &&
            chain->structSize >= offsetof(nvtxSemanticsCounter_t, unitScaleNumerator))
            nvtxw_free((char*)((const nvtxSemanticsCounter_t*)chain)->unit);
        nvtxw_free((void*)chain);
        chain = next;
    }
}

/* Bytes of a known extension, 0 for unknown ones. */
static size_t semantics_known_size(uint16_t semantic_id) {
    switch (semantic_id) {
    case NVTX_SEMANTIC_ID_SCOPE_V1:
        return sizeof(nvtxSemanticsScope_t);
    case NVTX_SEMANTIC_ID_TIME_V1:
        return sizeof(nvtxSemanticsTime_t);
    case NVTX_SEMANTIC_ID_COUNTERS_V1:
        return sizeof(nvtxSemanticsCounter_t);
    case NVTXW_SEMANTIC_ID_JSON_TEXT:
        return sizeof(nvtxSemanticsHeader_t);
    default:
        return 0;
    }
}

/* Copies the counter unit string of a copied counter extension. */
static nvtxwResultCode_t semantics_copy_unit(nvtxSemanticsHeader_t* copy) {
    nvtxSemanticsCounter_t* counter;
    const char* unit;
    if (copy->semanticId != NVTX_SEMANTIC_ID_COUNTERS_V1 ||
        copy->structSize < offsetof(nvtxSemanticsCounter_t, unitScaleNumerator))
        return NVTXW_RESULT_SUCCESS;
    counter = (nvtxSemanticsCounter_t*)copy;
    unit = counter->unit;
    if (unit == NULL)
        return NVTXW_RESULT_SUCCESS;
    counter->unit = nvtxw_strdup(unit);
    return counter->unit ? NVTXW_RESULT_SUCCESS : error_oom("a counter unit");
}

/* Copies one extension; unknown ones yield *copy = NULL. */
static nvtxwResultCode_t semantics_copy_one(const nvtxSemanticsHeader_t* src, const char* context,
                                            nvtxSemanticsHeader_t** copy) {
    size_t known = semantics_known_size(src->semanticId), size;
    *copy = NULL;
    if (struct_size_problem(src->structSize, sizeof(nvtxSemanticsHeader_t)) != NULL)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot %s: semantics header id %u has structSize %u, expected %zu to %u",
                         context, (unsigned)src->semanticId, (unsigned)src->structSize,
                         sizeof(nvtxSemanticsHeader_t), STRUCT_SIZE_MAX);
    if (known == 0)
        return NVTXW_RESULT_SUCCESS;
    size = src->structSize < known ? src->structSize : known;
    *copy = nvtxw_calloc(1, known);
    if (*copy == NULL)
        return error_oom("a semantics extension");
    memcpy(*copy, src, size);
    (*copy)->structSize = (uint32_t)size;
    (*copy)->next = NULL;
    if (semantics_copy_unit(*copy) != NVTXW_RESULT_SUCCESS) {
        nvtxw_free(*copy);
        *copy = NULL;
        return NVTXW_RESULT_FAILED;
    }
    return NVTXW_RESULT_SUCCESS;
}

nvtxwResultCode_t semantics_copy(const nvtxSemanticsHeader_t* src, const char* context,
                                 const nvtxSemanticsHeader_t** out) {
    const nvtxSemanticsHeader_t** tail = out;
    size_t length = 0;
    *out = NULL;
    for (; src != NULL; src = src->next) {
        nvtxSemanticsHeader_t* copy = NULL;
        nvtxwResultCode_t status;
        if (++length > SEMANTICS_MAX_CHAIN)
            status = error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                               "cannot %s: semantics chain longer than %d (cycle?)", context,
                               SEMANTICS_MAX_CHAIN);
        else
            status = semantics_copy_one(src, context, &copy);
        if (status != NVTXW_RESULT_SUCCESS) {
            semantics_free(*out);
            *out = NULL;
            return status;
        }
        if (copy != NULL) {
            *tail = copy;
            tail = &copy->next;
        }
    }
    return NVTXW_RESULT_SUCCESS;
}
