/*
 * abi_nvidia_order2.c - NVIDIA's nvtx3 headers FIRST, then ours, in one
 * translation unit (spec section 10). Reports every shared layout and macro
 * listed in abi_facts.inc as this TU sees it; abi_nvidia_test.c compares the report with the other
 * include order and with our headers alone.
 *
 * In this order NVIDIA's definitions win every guarded group and ours are
 * skipped. Documented exceptions:
 *  - Constants the CUDA 13.0 revision lacks although it defines their group
 *    guard (NVTX_PAYLOAD_ENTRY_TYPE_RANGE_ID, NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_
 *    PUSH/POP/START/END) must still be present afterwards, with the 2026
 *    values: our header defines each one individually.
 *  - NVTX_COUNTER_BATCH_FLAG_{BEGIN,END}TIME_INTERVAL_PAIR are NVIDIA's here,
 *    spelled (1 << 32) / (2 << 32) on an int, which folds to 0 (and warns):
 *    they are not evaluated in this order and not reported.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <nvtx3/nvToolsExtCounters.h>
#include <nvtx3/nvToolsExtPayload.h>
#include <nvtx3/nvToolsExtSemanticsCounters.h>
#include <nvtx3/nvToolsExtSemanticsScope.h>
#include <nvtx3/nvToolsExtSemanticsTime.h>

/* What NVIDIA's headers provide on their own, before ours are included. */
#ifdef NVTX_PAYLOAD_ENTRY_TYPE_RANGE_ID
#define NVIDIA_HAS_RANGE_ID 1
#else
#define NVIDIA_HAS_RANGE_ID 0
#endif
#ifdef NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_PUSH
#define NVIDIA_HAS_RANGE_PUSH 1
#else
#define NVIDIA_HAS_RANGE_PUSH 0
#endif
#ifdef NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_POP
#define NVIDIA_HAS_RANGE_POP 1
#else
#define NVIDIA_HAS_RANGE_POP 0
#endif
#ifdef NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_START
#define NVIDIA_HAS_RANGE_START 1
#else
#define NVIDIA_HAS_RANGE_START 0
#endif
#ifdef NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_END
#define NVIDIA_HAS_RANGE_END 1
#else
#define NVIDIA_HAS_RANGE_END 0
#endif
#ifdef NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_PAYLOAD_INDEX
#define NVIDIA_HAS_ARRAY_LENGTH_PAYLOAD_INDEX 1
#else
#define NVIDIA_HAS_ARRAY_LENGTH_PAYLOAD_INDEX 0
#endif
#if defined(NVTX_COUNTER_BATCH_FLAG_BEGINTIME_INTERVAL_PAIR)
#define NVIDIA_HAS_COUNTER_BATCH_FLAGS 1
#else
#define NVIDIA_HAS_COUNTER_BATCH_FLAGS 0
#endif

#include <nvtxw/nvtxw.h>

#include "abi_fact_record.h"

/* Layout side of the resource facts: NVIDIA's complete struct. */
#define RES_T nvtxResourceAttributes_t
#define RES_STRUCT_SIZE NVTX_RESOURCE_ATTRIB_STRUCT_SIZE
#define RES_NVTX_VERSION NVTX_VERSION
#define RES_TYPE_UNKNOWN NVTX_RESOURCE_TYPE_UNKNOWN
#define RES_TYPE_GENERIC_POINTER NVTX_RESOURCE_TYPE_GENERIC_POINTER
#define RES_TYPE_GENERIC_HANDLE NVTX_RESOURCE_TYPE_GENERIC_HANDLE
#define RES_TYPE_GENERIC_THREAD_NATIVE NVTX_RESOURCE_TYPE_GENERIC_THREAD_NATIVE
#define RES_TYPE_GENERIC_THREAD_POSIX NVTX_RESOURCE_TYPE_GENERIC_THREAD_POSIX
#define RES_MESSAGE_UNKNOWN NVTX_MESSAGE_UNKNOWN
#define RES_MESSAGE_TYPE_ASCII NVTX_MESSAGE_TYPE_ASCII
#define RES_MESSAGE_TYPE_UNICODE NVTX_MESSAGE_TYPE_UNICODE
#define RES_MESSAGE_TYPE_REGISTERED NVTX_MESSAGE_TYPE_REGISTERED

/* NVIDIA's counter batch flags fold to 0: not evaluated in this order. */
#define ABI_REPORT_COUNTER_BATCH_FLAGS 0

const struct abi_fact* abi_nvidia_order2_facts(size_t* count);
const struct abi_fact* abi_nvidia_order2_nvidia_alone(size_t* count);
size_t abi_nvidia_order2_resource_bytes(int variant, const void* pointer, const char* text,
                                        void* out, size_t out_size);

static const struct abi_fact facts[] = {
#include "abi_facts.inc"
};

const struct abi_fact* abi_nvidia_order2_facts(size_t* count) {
    *count = sizeof(facts) / sizeof(facts[0]);
    return facts;
}

/* Fills an nvtxResourceAttributes_t through NVIDIA's type (memset first, so
 * padding is zero) and copies its bytes to `out`. Variants: 0 = integer
 * identifier and registered-string message, 1 = pointer identifier and ASCII
 * message, 2 = handle identifier and wide message. Returns sizeof. */
size_t abi_nvidia_order2_resource_bytes(int variant, const void* pointer, const char* text,
                                        void* out, size_t out_size) {
    nvtxResourceAttributes_t attr;
    memset(&attr, 0, sizeof(attr));
    attr.version = NVTX_VERSION;
    attr.size = NVTX_RESOURCE_ATTRIB_STRUCT_SIZE;
    switch (variant) {
    case 0:
        attr.identifierType = NVTX_RESOURCE_TYPE_GENERIC_THREAD_POSIX;
        attr.identifier.ullValue = UINT64_C(0x0123456789ABCDEF);
        attr.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
        attr.message.registered = (nvtxStringHandle_t)(uintptr_t)UINT64_C(0xFEDCBA9876543210);
        break;
    case 1:
        attr.identifierType = NVTX_RESOURCE_TYPE_GENERIC_POINTER;
        attr.identifier.pValue = pointer;
        attr.messageType = NVTX_MESSAGE_TYPE_ASCII;
        attr.message.ascii = text;
        break;
    default:
        attr.identifierType = NVTX_RESOURCE_TYPE_GENERIC_HANDLE;
        attr.identifier.pValue = text;
        attr.messageType = NVTX_MESSAGE_TYPE_UNICODE;
        attr.message.unicode = (const wchar_t*)pointer;
        break;
    }
    memcpy(out, &attr, out_size < sizeof(attr) ? out_size : sizeof(attr));
    return sizeof(attr);
}

static const struct abi_fact nvidia_alone[] = {
    {"defined(NVTX_PAYLOAD_ENTRY_TYPE_RANGE_ID)", NVIDIA_HAS_RANGE_ID, 0},
    {"defined(NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_PUSH)", NVIDIA_HAS_RANGE_PUSH, 0},
    {"defined(NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_POP)", NVIDIA_HAS_RANGE_POP, 0},
    {"defined(NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_START)", NVIDIA_HAS_RANGE_START, 0},
    {"defined(NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_END)", NVIDIA_HAS_RANGE_END, 0},
    {"defined(NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_PAYLOAD_INDEX)",
     NVIDIA_HAS_ARRAY_LENGTH_PAYLOAD_INDEX, 0},
    {"defined(NVTX_COUNTER_BATCH_FLAG_BEGINTIME_INTERVAL_PAIR)", NVIDIA_HAS_COUNTER_BATCH_FLAGS, 0},
    /* NVIDIA's unguarded helper: 0x30 in the 2025 revision, 0x70 in 2026.
     * Ours never defines or changes it (NVTXW_PAYLOAD_ENTRY_FLAG_ARRAY_MASK). */
    {"NVTX_PAYLOAD_ENTRY_FLAG_IS_ARRAY", (int64_t)(NVTX_PAYLOAD_ENTRY_FLAG_IS_ARRAY),
     TYPE_CODE(NVTX_PAYLOAD_ENTRY_FLAG_IS_ARRAY)},
};

/* Facts about NVIDIA's headers alone, captured before ours were included. */
const struct abi_fact* abi_nvidia_order2_nvidia_alone(size_t* count) {
    *count = sizeof(nvidia_alone) / sizeof(nvidia_alone[0]);
    return nvidia_alone;
}
