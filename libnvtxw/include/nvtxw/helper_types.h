/*
 * nvtxw/helper_types.h - the types of NVIDIA's NVTXW event helpers
 * (nvtxw3_event_helpers.h): event attributes, the helper schema
 * ID set, the event writer and the payload structs the helper schemas
 * describe. Layouts are ABI: producers built on NVIDIA's helpers send exactly
 * these bytes.
 *
 * Coexistence: NVIDIA's nvtxw3_event_helpers.h defines the same types inside
 * its guard NVTXW_EVENT_HELPERS_API, which our nvtxw/helpers.h also uses.
 * When that guard is already defined, the types come from whichever helper
 * header was first and are skipped here. Include nvtxw/helpers.h (or
 * nvtxw/nvtxw.h), not this header alone, in a translation unit that also
 * includes NVIDIA's helpers.
 */
#ifndef NVTXW_HELPER_TYPES_H
#define NVTXW_HELPER_TYPES_H

#include <stdint.h>

#include "nvtxw/abi.h"

#if !defined(NVTXW_EVENT_HELPERS_API) && !defined(NVTXW_HELPER_TYPES_V1)
#define NVTXW_HELPER_TYPES_V1

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nvtxwEventAttributes_v1 {
    uint32_t color;             /* ARGB, 0 = none */
    uint32_t category;          /* 0 = none */
    nvtxStringHandle_t message; /* 0 = none */
} nvtxwEventAttributes_t;

typedef struct nvtxwEventAttributesUtf8_v1 {
    uint32_t color;
    uint32_t category;
    uint32_t messageLength; /* 0 = strlen(message); else bytes used verbatim */
    const char* message;    /* UTF-8; NULL = empty message */
} nvtxwEventAttributesUtf8_t;

typedef struct nvtxwEventHelperSchemaIds_v1 {
    uint64_t markUtf8;
    uint64_t markRegString;
    uint64_t rangePushPopUtf8;
    uint64_t rangePushPopRegString;
    uint64_t rangeStartEndUtf8;
    uint64_t rangeStartEndRegString;
    uint64_t rangePushUtf8;
    uint64_t rangePushRegString;
    uint64_t rangePop;
    uint64_t rangeStartUtf8;
    uint64_t rangeStartRegString;
    uint64_t rangeEnd;
    uint64_t eventMessageUtf8;
} nvtxwEventHelperSchemaIds_t;

typedef enum nvtxwEventHelperSchemaFlag_t {
    NVTXW_EVENT_HELPER_SCHEMA_MARK_UTF8 = 1 << 0,
    NVTXW_EVENT_HELPER_SCHEMA_MARK_REG_STRING = 1 << 1,
    NVTXW_EVENT_HELPER_SCHEMA_RANGE_PUSHPOP_UTF8 = 1 << 2,
    NVTXW_EVENT_HELPER_SCHEMA_RANGE_PUSHPOP_REG_STRING = 1 << 3,
    NVTXW_EVENT_HELPER_SCHEMA_RANGE_STARTEND_UTF8 = 1 << 4,
    NVTXW_EVENT_HELPER_SCHEMA_RANGE_STARTEND_REG_STRING = 1 << 5,
    NVTXW_EVENT_HELPER_SCHEMA_RANGE_PUSH_UTF8 = 1 << 6,
    NVTXW_EVENT_HELPER_SCHEMA_RANGE_PUSH_REG_STRING = 1 << 7,
    NVTXW_EVENT_HELPER_SCHEMA_RANGE_POP = 1 << 8,
    NVTXW_EVENT_HELPER_SCHEMA_RANGE_START_UTF8 = 1 << 9,
    NVTXW_EVENT_HELPER_SCHEMA_RANGE_START_REG_STRING = 1 << 10,
    NVTXW_EVENT_HELPER_SCHEMA_RANGE_END = 1 << 11,
    NVTXW_EVENT_HELPER_SCHEMA_ALL = 0xFFF
} nvtxwEventHelperSchemaFlag_t;

typedef struct nvtxwEventWriter_v1 {
    const nvtxwInterface_t* iface;
    nvtxwStreamHandle_t stream;
    nvtxwEventHelperSchemaIds_t schemaIds;
} nvtxwEventWriter_t;

/* Payload structs registered by the helper schemas. */
typedef struct nvtxwEventUtf8HeaderAttr_v1 {
    uint32_t color;
    uint32_t category;
} nvtxwEventUtf8HeaderAttr_t;

typedef struct nvtxwEventUtf8Payload_v1 {
    int64_t timestamp;
    nvtxwEventUtf8HeaderAttr_t attr;
} nvtxwEventUtf8Payload_t;

typedef struct nvtxwEventRegStringPayload_v1 {
    int64_t timestamp;
    nvtxwEventAttributes_t attr;
} nvtxwEventRegStringPayload_t;

typedef struct nvtxwRangePopPayload_v1 {
    int64_t timestamp;
} nvtxwRangePopPayload_t;

typedef struct nvtxwRangeEventUtf8Payload_v1 {
    int64_t timestampBegin;
    int64_t timestampEnd;
    nvtxwEventUtf8HeaderAttr_t attr;
} nvtxwRangeEventUtf8Payload_t;

typedef struct nvtxwRangeEventRegStringPayload_v1 {
    int64_t timestampBegin;
    int64_t timestampEnd;
    nvtxwEventAttributes_t attr;
} nvtxwRangeEventRegStringPayload_t;

typedef struct nvtxwRangeIdEventUtf8Payload_v1 {
    nvtxRangeId_t rangeId;
    int64_t timestamp;
    nvtxwEventUtf8HeaderAttr_t attr;
} nvtxwRangeIdEventUtf8Payload_t;

typedef struct nvtxwRangeIdEventRegStringPayload_v1 {
    nvtxRangeId_t rangeId;
    int64_t timestamp;
    nvtxwEventAttributes_t attr;
} nvtxwRangeIdEventRegStringPayload_t;

typedef struct nvtxwRangeEndPayload_v1 {
    nvtxRangeId_t rangeId;
    int64_t timestamp;
} nvtxwRangeEndPayload_t;

#ifdef __cplusplus
}
#endif

#endif /* !NVTXW_EVENT_HELPERS_API && !NVTXW_HELPER_TYPES_V1 */

#endif /* NVTXW_HELPER_TYPES_H */
