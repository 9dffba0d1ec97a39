/*
 * abi_nvidia_order1.c - our headers FIRST, then NVIDIA's nvtx3 headers, in one
 * translation unit (spec section 10). Reports every shared layout and macro
 * listed in abi_facts.inc as this TU sees it; abi_nvidia_test.c compares the report with the other
 * include order and with our headers alone.
 *
 * In this order our definitions win every guarded group and NVIDIA's copies
 * are skipped, so every value here is ours; what this file proves is that
 * NVIDIA's headers (implementation included) still compile after ours and
 * find what they need, and that nothing NVIDIA defines outside its guards
 * (nvtxResourceAttributes_v0, NVTX_VERSION, the resource enums) clashes.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <nvtxw/nvtxw.h>

#include <nvtx3/nvToolsExtCounters.h>
#include <nvtx3/nvToolsExtPayload.h>
#include <nvtx3/nvToolsExtSemanticsCounters.h>
#include <nvtx3/nvToolsExtSemanticsScope.h>
#include <nvtx3/nvToolsExtSemanticsTime.h>

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

/* Ours defined the counter batch flags first, with the intended values. */
#define ABI_REPORT_COUNTER_BATCH_FLAGS 1

const struct abi_fact* abi_nvidia_order1_facts(size_t* count);
size_t abi_nvidia_order1_resource_bytes(int variant, const void* pointer, const char* text,
                                        void* out, size_t out_size);
int64_t abi_nvidia_order1_is_array(void);

static const struct abi_fact facts[] = {
#include "abi_facts.inc"
};

const struct abi_fact* abi_nvidia_order1_facts(size_t* count) {
    *count = sizeof(facts) / sizeof(facts[0]);
    return facts;
}

/* Fills an nvtxResourceAttributes_t through NVIDIA's type (memset first, so
 * padding is zero) and copies its bytes to `out`. Variants: 0 = integer
 * identifier and registered-string message, 1 = pointer identifier and ASCII
 * message, 2 = handle identifier and wide message. Returns sizeof. */
size_t abi_nvidia_order1_resource_bytes(int variant, const void* pointer, const char* text,
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

/* NVIDIA's unguarded NVTX_PAYLOAD_ENTRY_FLAG_IS_ARRAY as defined after ours:
 * ours must not have defined or changed it. */
int64_t abi_nvidia_order1_is_array(void) { return NVTX_PAYLOAD_ENTRY_FLAG_IS_ARRAY; }
