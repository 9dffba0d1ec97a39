/*
 * nvtxw/nvtx_types.h - the NVTX types and constants that the NVTXW v2 ABI uses.
 *
 * Self-contained: no CUDA or NVTX installation is needed. The definitions are
 * byte-for-byte those of NVIDIA's nvToolsExt.h, nvToolsExtPayload.h,
 * nvToolsExtCounters.h and nvToolsExtSemantics{Scope,Time,Counters}.h
 * (2026 revision, as in the CUDA toolkit's include/nvtx3).
 *
 * Coexistence contract: this header and NVIDIA's headers may be included in
 * one translation unit, in either order.
 *  - Every group is wrapped in the same guard macro NVIDIA uses
 *    (NVTX_PAYLOAD_ENTRY_TYPES_V1, NVTX_PAYLOAD_TYPEDEFS_V1, ...), so whichever
 *    header comes first defines the group and the other skips it.
 *  - Constants that older NVIDIA revisions (CUDA 13.0's copy) lack although
 *    they define the guard are defined individually afterwards.
 *  - Definitions NVIDIA makes outside any guard (NVTX_STATIC_CAST,
 *    NVTX_INLINE_STATIC, NVTX_PAYLOAD_ENTRY_FLAG_IS_ARRAY, the nvToolsExt.h
 *    enums and nvtxResourceAttributes_v0 body) are never defined here: a
 *    second, different definition would not compile. Our equivalents carry
 *    the NVTXW_ prefix (NVTXW_PAYLOAD_ENTRY_FLAG_ARRAY_MASK,
 *    nvtxw_resource_attributes_t in nvtxw/resource.h).
 */
#ifndef NVTXW_NVTX_TYPES_H
#define NVTXW_NVTX_TYPES_H

#include <stddef.h>
#include <stdint.h>

#if !defined(NVTX_NULLPTR)
#if defined(__cplusplus) && __cplusplus >= 201103L
#define NVTX_NULLPTR nullptr
#else
#define NVTX_NULLPTR NULL
#endif
#endif

/* NVTX version these definitions correspond to (NVIDIA's NVTX_VERSION). We do
 * not define NVTX_VERSION itself: nvToolsExt.h skips its whole body when it is
 * already defined. */
#define NVTXW_NVTX_VERSION 3

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Handles shared with nvToolsExt.h (repeated typedefs are valid C11/C++) */
#if !defined(NVTX_VERSION)
typedef uint64_t nvtxRangeId_t;
struct nvtxDomainRegistration_st;
typedef struct nvtxDomainRegistration_st nvtxDomainRegistration;
typedef nvtxDomainRegistration* nvtxDomainHandle_t;
struct nvtxStringRegistration_st;
typedef struct nvtxStringRegistration_st nvtxStringRegistration;
typedef nvtxStringRegistration* nvtxStringHandle_t;
/* Complete type in nvToolsExt.h; layout-identical mirror in nvtxw/resource.h. */
struct nvtxResourceAttributes_v0;
typedef struct nvtxResourceAttributes_v0 nvtxResourceAttributes_t;
#endif

#ifdef __cplusplus
}
#endif

#ifndef NVTX_EXT_PAYLOAD_COMPATID
#define NVTX_EXT_PAYLOAD_COMPATID 0x0104
#endif
#ifndef NVTX_EXT_PAYLOAD_MODULEID
#define NVTX_EXT_PAYLOAD_MODULEID 2
#endif
#ifndef NVTX_PAYLOAD_TYPE_EXT
#define NVTX_PAYLOAD_TYPE_EXT ((int32_t)0xDFBD0009)
#endif
#ifndef NVTX_EXT_COUNTERS_COMPATID
#define NVTX_EXT_COUNTERS_COMPATID 0x0102
#endif
#ifndef NVTX_EXT_COUNTERS_MODULEID
#define NVTX_EXT_COUNTERS_MODULEID 4
#endif

/* ---- Payload schema entry flags -------------------------------- */
#ifndef NVTX_PAYLOAD_ENTRY_FLAGS_V1
#define NVTX_PAYLOAD_ENTRY_FLAGS_V1
#define NVTX_PAYLOAD_ENTRY_FLAG_UNUSED 0
#define NVTX_PAYLOAD_ENTRY_FLAG_POINTER (1 << 1)
#define NVTX_PAYLOAD_ENTRY_FLAG_OFFSET_FROM_BASE (1 << 2)
#define NVTX_PAYLOAD_ENTRY_FLAG_OFFSET_FROM_HERE (1 << 3)
#define NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_FIXED_SIZE (1 << 4)
#define NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_ZERO_TERMINATED (2 << 4)
#define NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_INDEX (3 << 4)
#define NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_PAYLOAD_INDEX (4 << 4)
#define NVTX_PAYLOAD_ENTRY_FLAG_DEEP_COPY (1 << 8)
#define NVTX_PAYLOAD_ENTRY_FLAG_HIDE (1 << 9)
#define NVTX_PAYLOAD_ENTRY_FLAG_EVENT_MESSAGE (1 << 10)
#define NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP (2 << 10)
#define NVTX_PAYLOAD_ENTRY_FLAG_RANGE_BEGIN (1 << 12)
#define NVTX_PAYLOAD_ENTRY_FLAG_RANGE_END (2 << 12)
#define NVTX_PAYLOAD_ENTRY_FLAG_MARK (3 << 12)
#define NVTX_PAYLOAD_ENTRY_FLAG_COUNTER (4 << 12)
#endif
#ifndef NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_PAYLOAD_INDEX
#define NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_PAYLOAD_INDEX (4 << 4)
#endif

/* Array kind field (bits 4-6) of an entry's flags. NVIDIA's helper macro
 * NVTX_PAYLOAD_ENTRY_FLAG_IS_ARRAY is 0x30 in older revisions and 0x70 in the
 * 2026 one; never rely on it, use these. */
#define NVTXW_PAYLOAD_ENTRY_FLAG_ARRAY_MASK 0x70
#define NVTXW_PAYLOAD_ENTRY_ARRAY_KIND(flags) ((flags)&NVTXW_PAYLOAD_ENTRY_FLAG_ARRAY_MASK)
/* Semantic field (bits 10-11) and role field (bits 12-14) of entry flags. */
#define NVTXW_PAYLOAD_ENTRY_FLAG_SEMANTIC_MASK (3 << 10)
#define NVTXW_PAYLOAD_ENTRY_FLAG_ROLE_MASK (7 << 12)

/* ---- Payload entry types --------------------------------------- */
#ifndef NVTX_PAYLOAD_ENTRY_TYPES_V1
#define NVTX_PAYLOAD_ENTRY_TYPES_V1
#define NVTX_PAYLOAD_ENTRY_TYPE_INVALID 0
#define NVTX_PAYLOAD_ENTRY_TYPE_CHAR 1
#define NVTX_PAYLOAD_ENTRY_TYPE_UCHAR 2
#define NVTX_PAYLOAD_ENTRY_TYPE_SHORT 3
#define NVTX_PAYLOAD_ENTRY_TYPE_USHORT 4
#define NVTX_PAYLOAD_ENTRY_TYPE_INT 5
#define NVTX_PAYLOAD_ENTRY_TYPE_UINT 6
#define NVTX_PAYLOAD_ENTRY_TYPE_LONG 7
#define NVTX_PAYLOAD_ENTRY_TYPE_ULONG 8
#define NVTX_PAYLOAD_ENTRY_TYPE_LONGLONG 9
#define NVTX_PAYLOAD_ENTRY_TYPE_ULONGLONG 10
#define NVTX_PAYLOAD_ENTRY_TYPE_INT8 11
#define NVTX_PAYLOAD_ENTRY_TYPE_UINT8 12
#define NVTX_PAYLOAD_ENTRY_TYPE_INT16 13
#define NVTX_PAYLOAD_ENTRY_TYPE_UINT16 14
#define NVTX_PAYLOAD_ENTRY_TYPE_INT32 15
#define NVTX_PAYLOAD_ENTRY_TYPE_UINT32 16
#define NVTX_PAYLOAD_ENTRY_TYPE_INT64 17
#define NVTX_PAYLOAD_ENTRY_TYPE_UINT64 18
#define NVTX_PAYLOAD_ENTRY_TYPE_FLOAT 19
#define NVTX_PAYLOAD_ENTRY_TYPE_DOUBLE 20
#define NVTX_PAYLOAD_ENTRY_TYPE_LONGDOUBLE 21
#define NVTX_PAYLOAD_ENTRY_TYPE_SIZE 22
#define NVTX_PAYLOAD_ENTRY_TYPE_ADDRESS 23
#define NVTX_PAYLOAD_ENTRY_TYPE_WCHAR 24
#define NVTX_PAYLOAD_ENTRY_TYPE_CHAR8 25
#define NVTX_PAYLOAD_ENTRY_TYPE_CHAR16 26
#define NVTX_PAYLOAD_ENTRY_TYPE_CHAR32 27
#define NVTX_PAYLOAD_ENTRY_TYPE_INFO_ARRAY_SIZE (NVTX_PAYLOAD_ENTRY_TYPE_CHAR32 + 1)
#define NVTX_PAYLOAD_ENTRY_TYPE_BYTE 32
#define NVTX_PAYLOAD_ENTRY_TYPE_INT128 33
#define NVTX_PAYLOAD_ENTRY_TYPE_UINT128 34
#define NVTX_PAYLOAD_ENTRY_TYPE_FLOAT16 42
#define NVTX_PAYLOAD_ENTRY_TYPE_FLOAT32 43
#define NVTX_PAYLOAD_ENTRY_TYPE_FLOAT64 44
#define NVTX_PAYLOAD_ENTRY_TYPE_FLOAT128 45
#define NVTX_PAYLOAD_ENTRY_TYPE_BF16 50
#define NVTX_PAYLOAD_ENTRY_TYPE_TF32 52
#define NVTX_PAYLOAD_ENTRY_TYPE_RANGE_ID 67
#define NVTX_PAYLOAD_ENTRY_TYPE_CATEGORY 68
#define NVTX_PAYLOAD_ENTRY_TYPE_COLOR_ARGB 69
#define NVTX_PAYLOAD_ENTRY_TYPE_SCOPE_ID 70
#define NVTX_PAYLOAD_ENTRY_TYPE_PID_UINT32 71
#define NVTX_PAYLOAD_ENTRY_TYPE_PID_UINT64 72
#define NVTX_PAYLOAD_ENTRY_TYPE_TID_UINT32 73
#define NVTX_PAYLOAD_ENTRY_TYPE_TID_UINT64 74
#define NVTX_PAYLOAD_ENTRY_TYPE_CSTRING 75
#define NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF8 76
#define NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF16 77
#define NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF32 78
#define NVTX_PAYLOAD_ENTRY_TYPE_NVTX_REGISTERED_STRING_HANDLE 80
#define NVTX_PAYLOAD_ENTRY_TYPE_UNION_SELECTOR 100
#define NVTX_TYPE_PAYLOAD_SCHEMA_REFERENCED 1022
#define NVTX_TYPE_PAYLOAD_SCHEMA_RAW 1023
#define NVTX_PAYLOAD_SCHEMA_ID_STATIC_START (1 << 24)
#define NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START ((uint64_t)1 << 32)
#endif
/* Absent from the 2025 revision although it defines the group guard. */
#ifndef NVTX_PAYLOAD_ENTRY_TYPE_RANGE_ID
#define NVTX_PAYLOAD_ENTRY_TYPE_RANGE_ID 67
#endif

/* ---- Schema types and flags ------------------------------------ */
#ifndef NVTX_PAYLOAD_SCHEMA_TYPES_V1
#define NVTX_PAYLOAD_SCHEMA_TYPES_V1
#define NVTX_PAYLOAD_SCHEMA_TYPE_INVALID 0
#define NVTX_PAYLOAD_SCHEMA_TYPE_STATIC 1
#define NVTX_PAYLOAD_SCHEMA_TYPE_DYNAMIC 2
#define NVTX_PAYLOAD_SCHEMA_TYPE_UNION 3
#define NVTX_PAYLOAD_SCHEMA_TYPE_UNION_WITH_INTERNAL_SELECTOR 4
#endif

#ifndef NVTX_PAYLOAD_SCHEMA_FLAGS_V1
#define NVTX_PAYLOAD_SCHEMA_FLAGS_V1
#define NVTX_PAYLOAD_SCHEMA_FLAG_NONE 0
#define NVTX_PAYLOAD_SCHEMA_FLAG_DEEP_COPY (1 << 1)
#define NVTX_PAYLOAD_SCHEMA_FLAG_REFERENCED (1 << 2)
#define NVTX_PAYLOAD_SCHEMA_FLAG_COUNTER_GROUP (1 << 3)
#define NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_PUSHPOP (2 << 3)
#define NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_STARTEND (3 << 3)
#define NVTX_PAYLOAD_SCHEMA_FLAG_MARK (4 << 3)
#define NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_PUSH (5 << 3)
#define NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_POP (6 << 3)
#define NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_START (7 << 3)
#define NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_END (8 << 3)
#endif
/* Split-range roles were added in 2026; older revisions stop at MARK. */
#ifndef NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_PUSH
#define NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_PUSH (5 << 3)
#endif
#ifndef NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_POP
#define NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_POP (6 << 3)
#endif
#ifndef NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_START
#define NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_START (7 << 3)
#endif
#ifndef NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_END
#define NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_END (8 << 3)
#endif
/* The event role is a 4-bit enumeration in bits 3-6, never a bit set:
 * RANGE_STARTEND == COUNTER_GROUP | RANGE_PUSHPOP. */
#define NVTXW_PAYLOAD_SCHEMA_ROLE(flags) (((flags) >> 3) & 0xF)

#ifndef NVTX_PAYLOAD_SCHEMA_ATTR_FIELDS_V1
#define NVTX_PAYLOAD_SCHEMA_ATTR_FIELDS_V1
#define NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NAME (1 << 1)
#define NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE (1 << 2)
#define NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_FLAGS (1 << 3)
#define NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES (1 << 4)
#define NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES (1 << 5)
#define NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_STATIC_SIZE (1 << 6)
#define NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ALIGNMENT (1 << 7)
#define NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_SCHEMA_ID (1 << 8)
#define NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_EXTENSION (1 << 9)
#endif

#ifndef NVTX_PAYLOAD_ENUM_ATTR_FIELDS_V1
#define NVTX_PAYLOAD_ENUM_ATTR_FIELDS_V1
#define NVTX_PAYLOAD_ENUM_ATTR_FIELD_NAME (1 << 1)
#define NVTX_PAYLOAD_ENUM_ATTR_FIELD_ENTRIES (1 << 2)
#define NVTX_PAYLOAD_ENUM_ATTR_FIELD_NUM_ENTRIES (1 << 3)
#define NVTX_PAYLOAD_ENUM_ATTR_FIELD_SIZE (1 << 4)
#define NVTX_PAYLOAD_ENUM_ATTR_FIELD_SCHEMA_ID (1 << 5)
#define NVTX_PAYLOAD_ENUM_ATTR_FIELD_EXTENSION (1 << 6)
#endif

/* ---- Scopes ----------------------------------------------------- */
#ifndef NVTX_SCOPES_V1
#define NVTX_SCOPES_V1
#define NVTX_SCOPE_NONE 0
#define NVTX_SCOPE_ROOT 1
#define NVTX_SCOPE_CURRENT_HW_MACHINE 2
#define NVTX_SCOPE_CURRENT_HW_SOCKET 3
#define NVTX_SCOPE_CURRENT_HW_CPU_PHYSICAL 4
#define NVTX_SCOPE_CURRENT_HW_CPU_LOGICAL 5
#define NVTX_SCOPE_CURRENT_HW_INNERMOST 15
#define NVTX_SCOPE_CURRENT_HYPERVISOR 16
#define NVTX_SCOPE_CURRENT_VM 17
#define NVTX_SCOPE_CURRENT_KERNEL 18
#define NVTX_SCOPE_CURRENT_CONTAINER 19
#define NVTX_SCOPE_CURRENT_OS 20
#define NVTX_SCOPE_CURRENT_SW_PROCESS 21
#define NVTX_SCOPE_CURRENT_SW_THREAD 22
#define NVTX_SCOPE_CURRENT_SW_INNERMOST 31
#define NVTX_SCOPE_ID_STATIC_START (1 << 24)
#define NVTX_SCOPE_ID_DYNAMIC_START ((uint64_t)1 << 32)
#endif

/* ---- Time ------------------------------------------------------- */
#ifndef NVTX_TIME_V1
#define NVTX_TIME_V1
#define NVTX_TIMESTAMP_TYPE_NONE 0
#define NVTX_TIMESTAMP_TYPE_TOOL_PROVIDED 1
#define NVTX_TIMESTAMP_TYPE_CPU_TSC 10
#define NVTX_TIMESTAMP_TYPE_CPU_TSC_NONVIRTUALIZED 11
#define NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_REALTIME 12
#define NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_REALTIME_COARSE 13
#define NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_MONOTONIC 14
#define NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_MONOTONIC_RAW 15
#define NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_MONOTONIC_COARSE 16
#define NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_BOOTTIME 17
#define NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_PROCESS_CPUTIME_ID 18
#define NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_THREAD_CPUTIME_ID 19
#define NVTX_TIMESTAMP_TYPE_WIN_QPC 30
#define NVTX_TIMESTAMP_TYPE_WIN_GSTAFT 31
#define NVTX_TIMESTAMP_TYPE_WIN_GSTAFTP 32
#define NVTX_TIMESTAMP_TYPE_C_TIME 40
#define NVTX_TIMESTAMP_TYPE_C_CLOCK 41
#define NVTX_TIMESTAMP_TYPE_C_TIMESPEC_GET 42
#define NVTX_TIMESTAMP_TYPE_CPP_STEADY_CLOCK 50
#define NVTX_TIMESTAMP_TYPE_CPP_HIGH_RESOLUTION_CLOCK 51
#define NVTX_TIMESTAMP_TYPE_CPP_SYSTEM_CLOCK 52
#define NVTX_TIMESTAMP_TYPE_CPP_UTC_CLOCK 53
#define NVTX_TIMESTAMP_TYPE_CPP_TAI_CLOCK 54
#define NVTX_TIMESTAMP_TYPE_CPP_GPS_CLOCK 55
#define NVTX_TIMESTAMP_TYPE_CPP_FILE_CLOCK 56
#define NVTX_TIMESTAMP_TYPE_GPU_GLOBALTIMER 80
#define NVTX_TIME_DOMAIN_ID_NONE 0
#define NVTX_TIME_DOMAIN_ID_STATIC_START (1 << 24)
#define NVTX_TIME_DOMAIN_ID_DYNAMIC_START ((uint64_t)1 << 32)
#define NVTX_TIMER_FLAG_NONE 0
#define NVTX_TIMER_FLAG_CLOCK_MONOTONIC (1 << 1)
#define NVTX_TIMER_FLAG_CLOCK_STEADY (1 << 2)
#define NVTX_TIMER_START_UNKNOWN 0
#define NVTX_TIMER_START_SYSTEM_BOOT 1
#define NVTX_TIMER_START_VM_BOOT 2
#define NVTX_TIMER_START_UNIX_EPOCH 3
#define NVTX_TIMER_START_WIN_FILETIME 4
#define NVTX_TIMER_SOURCE_SAFE_CALL_AFTER_PROCESS_TEARDOWN 0
#define NVTX_TIMER_SOURCE_UNSAFE_CALL_AFTER_PROCESS_TEARDOWN 1
#endif

#ifndef NVTX_BATCH_FLAGS_V1
#define NVTX_BATCH_FLAGS_V1
#define NVTX_BATCH_FLAG_TIME_SORTED 0
#define NVTX_BATCH_FLAG_TIME_SORTED_PARTIALLY (1 << 1)
#define NVTX_BATCH_FLAG_TIME_SORTED_PER_SCOPE (2 << 1)
#define NVTX_BATCH_FLAG_UNSORTED (3 << 1)
#endif

/* ---- Counters ---------------------------------------------- */
#ifndef NVTX_COUNTER_IDS_V1
#define NVTX_COUNTER_IDS_V1
#define NVTX_COUNTER_ID_NONE 0
#define NVTX_COUNTER_ID_STATIC_START (1 << 24)
#define NVTX_COUNTER_ID_DYNAMIC_START ((uint64_t)1 << 32)
#endif

#ifndef NVTX_COUNTER_SAMPLES_V1
#define NVTX_COUNTER_SAMPLES_V1
#define NVTX_COUNTER_SAMPLE_ZERO 0
#define NVTX_COUNTER_SAMPLE_UNCHANGED 1
#define NVTX_COUNTER_SAMPLE_UNAVAILABLE 2
#endif

/* NVIDIA writes these as (1 << 32) on an int, which compilers fold to 0; the
 * intended values are below. Backends accept both. */
#ifndef NVTX_COUNTER_BATCH_FLAGS_V1
#define NVTX_COUNTER_BATCH_FLAGS_V1
#define NVTX_COUNTER_BATCH_FLAG_BEGINTIME_INTERVAL_PAIR ((uint64_t)1 << 32)
#define NVTX_COUNTER_BATCH_FLAG_ENDTIME_INTERVAL_PAIR ((uint64_t)2 << 32)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Payload typedefs -------------------------------- */
#ifndef NVTX_PAYLOAD_TYPEDEFS_V1
#define NVTX_PAYLOAD_TYPEDEFS_V1

typedef struct nvtxPayloadEntryTypeInfo_v1 {
    uint16_t size;
    uint16_t align;
} nvtxPayloadEntryTypeInfo_t;

typedef struct nvtxPayloadData_v1 {
    uint64_t schemaId;
    size_t size;
    const void* payload;
} nvtxPayloadData_t;

typedef struct nvtxSemanticsHeader_v1 {
    uint32_t structSize;
    uint16_t semanticId;
    uint16_t version;
    const struct nvtxSemanticsHeader_v1* next;
} nvtxSemanticsHeader_t;

typedef struct nvtxPayloadSchemaEntry_v1 {
    uint64_t flags;
    uint64_t type;
    const char* name;
    const char* description;
    uint64_t arrayOrUnionDetail;
    uint64_t offset;
    const nvtxSemanticsHeader_t* semantics;
    const void* reserved;
} nvtxPayloadSchemaEntry_t;

typedef struct nvtxPayloadSchemaAttr_v1 {
    uint64_t fieldMask;
    const char* name;
    uint64_t type;
    uint64_t flags;
    const nvtxPayloadSchemaEntry_t* entries;
    size_t numEntries;
    size_t payloadStaticSize;
    size_t packAlign;
    uint64_t schemaId;
    void* extension;
} nvtxPayloadSchemaAttr_t;

typedef struct nvtxPayloadEnum_v1 {
    const char* name;
    uint64_t value;
    int8_t isFlag;
} nvtxPayloadEnum_t;

typedef struct nvtxPayloadEnumAttr_v1 {
    uint64_t fieldMask;
    const char* name;
    const nvtxPayloadEnum_t* entries;
    size_t numEntries;
    size_t sizeOfEnum;
    uint64_t schemaId;
    void* extension;
} nvtxPayloadEnumAttr_t;

typedef struct nvtxScopeAttr_v1 {
    size_t structSize;
    const char* path;
    uint64_t parentScope;
    uint64_t scopeId;
} nvtxScopeAttr_t;

#endif /* NVTX_PAYLOAD_TYPEDEFS_V1 */

#ifndef NVTX_PAYLOAD_TYPEDEFS_DEFERRED_V1
#define NVTX_PAYLOAD_TYPEDEFS_DEFERRED_V1

typedef struct nvtxTimeDomainAttr_v1 {
    uint64_t scopeId;
    uint64_t timestampTypeId;
    uint64_t timeDomainId;
    uint64_t timerFlags;
    int64_t timerResolution;
    uint64_t timerStart;
} nvtxTimeDomainAttr_t;

typedef struct nvtxSyncPoint_v1 {
    int64_t src;
    int64_t dst;
} nvtxSyncPoint_t;

typedef struct nvtxEventBatch_v1 {
    uint64_t eventSchemaId;
    size_t size;
    const void* events;
    uint64_t scope;
    uint64_t flags;
    const void* flexData;
    size_t flexDataSize;
    size_t flexDataOffset;
} nvtxEventBatch_t;

#endif /* NVTX_PAYLOAD_TYPEDEFS_DEFERRED_V1 */

#ifndef NVTX_COUNTER_TYPEDEFS_V1
#define NVTX_COUNTER_TYPEDEFS_V1

typedef struct nvtxCounterAttr_v1 {
    size_t structSize;
    uint64_t schemaId;
    const char* name;
    const char* description;
    uint64_t scopeId;
    const nvtxSemanticsHeader_t* semantics;
    uint64_t counterId;
} nvtxCounterAttr_t;

typedef struct nvtxCounterBatch_v1 {
    uint64_t counterId;
    const void* counters;
    size_t countersSize;
    uint64_t flags;
    const int64_t* timestamps;
    size_t timestampsSize;
} nvtxCounterBatch_t;

#endif /* NVTX_COUNTER_TYPEDEFS_V1 */

/* ---- Semantic extensions ---------------------------------------- */
#ifndef NVTX_SEMANTIC_ID_SCOPE_V1
#define NVTX_SEMANTIC_ID_SCOPE_V1 1
typedef struct nvtxSemanticsScope_v1 {
    struct nvtxSemanticsHeader_v1 header;
    uint64_t scopeId;
} nvtxSemanticsScope_t;
#endif

#ifndef NVTX_SEMANTIC_ID_TIME_V1
#define NVTX_SEMANTIC_ID_TIME_V1 2
#define NVTX_TIME_SEMANTIC_VERSION 1
typedef struct nvtxSemanticsTime_v1 {
    struct nvtxSemanticsHeader_v1 header;
    uint64_t timeDomainId;
} nvtxSemanticsTime_t;
#endif

#ifndef NVTX_SEMANTIC_ID_COUNTERS_V1
#define NVTX_SEMANTIC_ID_COUNTERS_V1 5
#define NVTX_COUNTER_SEMANTIC_VERSION 2
#define NVTX_COUNTER_FLAGS_NONE 0
#define NVTX_COUNTER_FLAG_NORMALIZE (1 << 1)
#define NVTX_COUNTER_FLAG_LIMIT_MIN (1 << 2)
#define NVTX_COUNTER_FLAG_LIMIT_MAX (1 << 3)
#define NVTX_COUNTER_FLAG_LIMITS (NVTX_COUNTER_FLAG_LIMIT_MIN | NVTX_COUNTER_FLAG_LIMIT_MAX)
#define NVTX_COUNTER_FLAG_VALUETYPE_ABSOLUTE (1 << 4)
#define NVTX_COUNTER_FLAG_VALUETYPE_DELTA (2 << 4)
#define NVTX_COUNTER_FLAG_VALUETYPE_DELTA_SINCE_START (3 << 4)
#define NVTX_COUNTER_FLAG_INTERPOLATION_POINT (1 << 8)
#define NVTX_COUNTER_FLAG_INTERPOLATION_SINCE_LAST (2 << 8)
#define NVTX_COUNTER_FLAG_INTERPOLATION_UNTIL_NEXT (3 << 8)
#define NVTX_COUNTER_FLAG_INTERPOLATION_LINEAR (4 << 8)
#define NVTX_COUNTER_LIMIT_UNDEFINED 0
#define NVTX_COUNTER_LIMIT_I64 1
#define NVTX_COUNTER_LIMIT_U64 2
#define NVTX_COUNTER_LIMIT_F64 3
typedef union {
    int64_t i64;
    uint64_t u64;
    double f64;
} nvtxCounterLimit_t;
typedef struct nvtxSemanticsCounter_v1 {
    struct nvtxSemanticsHeader_v1 header;
    uint64_t flags;
    const char* unit;
    uint64_t unitScaleNumerator;
    uint64_t unitScaleDenominator;
    int64_t limitType;
    nvtxCounterLimit_t min;
    nvtxCounterLimit_t max;
} nvtxSemanticsCounter_t;
#endif

#ifdef __cplusplus
}
#endif

#endif /* NVTXW_NVTX_TYPES_H */
