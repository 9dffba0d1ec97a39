/*
 * nvtxw/resource.h - a layout-identical mirror of NVIDIA's
 * nvtxResourceAttributes_v0 (nvToolsExt.h) for producers that do
 * not have nvToolsExt.h. Pass a pointer to it, cast to
 * `const nvtxResourceAttributes_t*`, to the ResourceRegister table member.
 *
 * The NVIDIA names are not reused: nvToolsExt.h defines that struct body and
 * its constants as enumerators outside any guard, so a second definition
 * would break a translation unit that includes both headers.
 */
#ifndef NVTXW_RESOURCE_H
#define NVTXW_RESOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "nvtxw/nvtx_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* identifierType = (class << 16) | index; the generic class is 1. */
#define NVTXW_RESOURCE_TYPE_UNKNOWN 0
#define NVTXW_RESOURCE_TYPE_GENERIC_POINTER 0x10001
#define NVTXW_RESOURCE_TYPE_GENERIC_HANDLE 0x10002
#define NVTXW_RESOURCE_TYPE_GENERIC_THREAD_NATIVE 0x10003
#define NVTXW_RESOURCE_TYPE_GENERIC_THREAD_POSIX 0x10004

/* messageType values (nvtxMessageType_t). */
#define NVTXW_MESSAGE_UNKNOWN 0
#define NVTXW_MESSAGE_TYPE_ASCII 1
#define NVTXW_MESSAGE_TYPE_UNICODE 2
#define NVTXW_MESSAGE_TYPE_REGISTERED 3

/* sizeof the struct as NVTX_RESOURCE_ATTRIB_STRUCT_SIZE states it (LP64: 32). */
#define NVTXW_RESOURCE_ATTRIB_STRUCT_SIZE ((uint16_t)sizeof(nvtxw_resource_attributes_t))

typedef struct nvtxw_resource_attributes {
    uint16_t version; /* NVTXW_NVTX_VERSION (3) */
    uint16_t size;    /* NVTXW_RESOURCE_ATTRIB_STRUCT_SIZE */
    int32_t identifierType;
    union {
        const void* pValue;
        uint64_t ullValue;
    } identifier;
    int32_t messageType;
    union {
        const char* ascii;
        const wchar_t* unicode;
        nvtxStringHandle_t registered;
    } message;
} nvtxw_resource_attributes_t;

#ifdef __cplusplus
}
#endif

#endif /* NVTXW_RESOURCE_H */
