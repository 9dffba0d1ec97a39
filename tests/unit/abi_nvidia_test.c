/*
 * abi_nvidia_test.c - coexistence of our headers with NVIDIA's nvtx3 headers
 * (spec section 10; built only when configure found them).
 *
 * abi_nvidia_order1.c includes ours first, abi_nvidia_order2.c NVIDIA's
 * first; each reports every shared struct layout (sizeof, alignof, offsetof,
 * member size and type) and every shared macro (value and type) as that
 * translation unit sees it. This file includes only our headers and holds
 * the same list computed from them alone. The checks:
 *  (a) both include orders agree;
 *  (b) both equal our headers alone (in order 2 NVIDIA's definitions win, so
 *      this is where a difference between NVIDIA's headers and ours shows);
 *  (c) documented exceptions:
 *      - constants the CUDA 13.0 revision lacks (NVTX_PAYLOAD_ENTRY_TYPE_RANGE_ID,
 *        NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_PUSH/POP/START/END) are present with
 *        the 2026 values in both orders;
 *      - NVTX_COUNTER_BATCH_FLAG_{BEGIN,END}TIME_INTERVAL_PAIR are compared
 *        only in order 1, where ours define them; NVIDIA's spelling,
 *        (1 << 32) on an int, folds to 0, so order 2 does not evaluate them;
 *      - NVTX_PAYLOAD_ENTRY_FLAG_IS_ARRAY is NVIDIA's alone (ours never
 *        defines it): 0x30 (2025) or 0x70 (2026), the same in both orders.
 * nvtxResourceAttributes_t (nvToolsExt.h) and our nvtxw_resource_attributes_t
 * are distinct types: besides their layouts, a struct filled through
 * NVIDIA's type is compared byte for byte with one filled through ours.
 */
#include <check.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include <nvtxw/nvtxw.h>

/* One fact: a layout number or a macro value, with the type of a macro. The
 * same struct is declared in abi_nvidia_test.c and both order files. */
struct abi_fact {
    const char* name;
    int64_t value;
    int type; /* TYPE_CODE of a macro's expression or a member; 0 for layouts */
};

#define TYPE_CODE(x)                                                                               \
    _Generic((x), char : 1, signed char : 2, unsigned char : 3, short : 4, unsigned short : 5,     \
             int : 6, unsigned int : 7, long : 8, unsigned long : 9, long long : 10,               \
             unsigned long long : 11, float : 12, double : 13, default : 0)
#define SZ(T)                                                                                      \
    {"sizeof(" #T ")", (int64_t)sizeof(T), 0}, { "alignof(" #T ")", (int64_t) _Alignof(T), 0 }
#define FLD(T, m)                                                                                  \
    {"offsetof(" #T ", " #m ")", (int64_t)offsetof(T, m), 0}, {                                    \
        "member(" #T ", " #m ")", (int64_t)sizeof(((T*)0)->m), TYPE_CODE(((T*)0)->m)               \
    }
#define RFLD(m)                                                                                    \
    {"offsetof(resource_attributes, " #m ")", (int64_t)offsetof(RES_T, m), 0}, {                   \
        "member(resource_attributes, " #m ")", (int64_t)sizeof(((RES_T*)0)->m),                    \
            TYPE_CODE(((RES_T*)0)->m)                                                              \
    }
#define VAL(M)                                                                                     \
    { #M, (int64_t)(M), TYPE_CODE(M) }

/* Our headers alone: the mirror struct and the NVTXW_ constants. */
#define RES_T nvtxw_resource_attributes_t
#define RES_STRUCT_SIZE NVTXW_RESOURCE_ATTRIB_STRUCT_SIZE
#define RES_NVTX_VERSION NVTXW_NVTX_VERSION
#define RES_TYPE_UNKNOWN NVTXW_RESOURCE_TYPE_UNKNOWN
#define RES_TYPE_GENERIC_POINTER NVTXW_RESOURCE_TYPE_GENERIC_POINTER
#define RES_TYPE_GENERIC_HANDLE NVTXW_RESOURCE_TYPE_GENERIC_HANDLE
#define RES_TYPE_GENERIC_THREAD_NATIVE NVTXW_RESOURCE_TYPE_GENERIC_THREAD_NATIVE
#define RES_TYPE_GENERIC_THREAD_POSIX NVTXW_RESOURCE_TYPE_GENERIC_THREAD_POSIX
#define RES_MESSAGE_UNKNOWN NVTXW_MESSAGE_UNKNOWN
#define RES_MESSAGE_TYPE_ASCII NVTXW_MESSAGE_TYPE_ASCII
#define RES_MESSAGE_TYPE_UNICODE NVTXW_MESSAGE_TYPE_UNICODE
#define RES_MESSAGE_TYPE_REGISTERED NVTXW_MESSAGE_TYPE_REGISTERED

/* Ours define the counter batch flags with the intended values. */
#define ABI_REPORT_COUNTER_BATCH_FLAGS 1

/* Exported by abi_nvidia_order1.c / abi_nvidia_order2.c. */
const struct abi_fact* abi_nvidia_order1_facts(size_t* count);
const struct abi_fact* abi_nvidia_order2_facts(size_t* count);
const struct abi_fact* abi_nvidia_order2_nvidia_alone(size_t* count);
size_t abi_nvidia_order1_resource_bytes(int variant, const void* pointer, const char* text,
                                        void* out, size_t out_size);
size_t abi_nvidia_order2_resource_bytes(int variant, const void* pointer, const char* text,
                                        void* out, size_t out_size);
int64_t abi_nvidia_order1_is_array(void);

/* Our headers alone. */
static const struct abi_fact ours[] = {
    /* NVTX handles (nvToolsExt.h) */
    SZ(nvtxRangeId_t),
    SZ(nvtxDomainHandle_t),
    SZ(nvtxStringHandle_t),
    {"type(nvtxRangeId_t)", TYPE_CODE((nvtxRangeId_t)0), 0},

    /* Payload typedefs (nvToolsExtPayload.h) */
    SZ(nvtxPayloadEntryTypeInfo_t),
    FLD(nvtxPayloadEntryTypeInfo_t, size),
    FLD(nvtxPayloadEntryTypeInfo_t, align),
    SZ(nvtxPayloadData_t),
    FLD(nvtxPayloadData_t, schemaId),
    FLD(nvtxPayloadData_t, size),
    FLD(nvtxPayloadData_t, payload),
    SZ(nvtxSemanticsHeader_t),
    FLD(nvtxSemanticsHeader_t, structSize),
    FLD(nvtxSemanticsHeader_t, semanticId),
    FLD(nvtxSemanticsHeader_t, version),
    FLD(nvtxSemanticsHeader_t, next),
    SZ(nvtxPayloadSchemaEntry_t),
    FLD(nvtxPayloadSchemaEntry_t, flags),
    FLD(nvtxPayloadSchemaEntry_t, type),
    FLD(nvtxPayloadSchemaEntry_t, name),
    FLD(nvtxPayloadSchemaEntry_t, description),
    FLD(nvtxPayloadSchemaEntry_t, arrayOrUnionDetail),
    FLD(nvtxPayloadSchemaEntry_t, offset),
    FLD(nvtxPayloadSchemaEntry_t, semantics),
    FLD(nvtxPayloadSchemaEntry_t, reserved),
    SZ(nvtxPayloadSchemaAttr_t),
    FLD(nvtxPayloadSchemaAttr_t, fieldMask),
    FLD(nvtxPayloadSchemaAttr_t, name),
    FLD(nvtxPayloadSchemaAttr_t, type),
    FLD(nvtxPayloadSchemaAttr_t, flags),
    FLD(nvtxPayloadSchemaAttr_t, entries),
    FLD(nvtxPayloadSchemaAttr_t, numEntries),
    FLD(nvtxPayloadSchemaAttr_t, payloadStaticSize),
    FLD(nvtxPayloadSchemaAttr_t, packAlign),
    FLD(nvtxPayloadSchemaAttr_t, schemaId),
    FLD(nvtxPayloadSchemaAttr_t, extension),
    SZ(nvtxPayloadEnum_t),
    FLD(nvtxPayloadEnum_t, name),
    FLD(nvtxPayloadEnum_t, value),
    FLD(nvtxPayloadEnum_t, isFlag),
    SZ(nvtxPayloadEnumAttr_t),
    FLD(nvtxPayloadEnumAttr_t, fieldMask),
    FLD(nvtxPayloadEnumAttr_t, name),
    FLD(nvtxPayloadEnumAttr_t, entries),
    FLD(nvtxPayloadEnumAttr_t, numEntries),
    FLD(nvtxPayloadEnumAttr_t, sizeOfEnum),
    FLD(nvtxPayloadEnumAttr_t, schemaId),
    FLD(nvtxPayloadEnumAttr_t, extension),
    SZ(nvtxScopeAttr_t),
    FLD(nvtxScopeAttr_t, structSize),
    FLD(nvtxScopeAttr_t, path),
    FLD(nvtxScopeAttr_t, parentScope),
    FLD(nvtxScopeAttr_t, scopeId),
    SZ(nvtxTimeDomainAttr_t),
    FLD(nvtxTimeDomainAttr_t, scopeId),
    FLD(nvtxTimeDomainAttr_t, timestampTypeId),
    FLD(nvtxTimeDomainAttr_t, timeDomainId),
    FLD(nvtxTimeDomainAttr_t, timerFlags),
    FLD(nvtxTimeDomainAttr_t, timerResolution),
    FLD(nvtxTimeDomainAttr_t, timerStart),
    SZ(nvtxSyncPoint_t),
    FLD(nvtxSyncPoint_t, src),
    FLD(nvtxSyncPoint_t, dst),
    SZ(nvtxEventBatch_t),
    FLD(nvtxEventBatch_t, eventSchemaId),
    FLD(nvtxEventBatch_t, size),
    FLD(nvtxEventBatch_t, events),
    FLD(nvtxEventBatch_t, scope),
    FLD(nvtxEventBatch_t, flags),
    FLD(nvtxEventBatch_t, flexData),
    FLD(nvtxEventBatch_t, flexDataSize),
    FLD(nvtxEventBatch_t, flexDataOffset),

    /* Counters (nvToolsExtCounters.h) */
    SZ(nvtxCounterAttr_t),
    FLD(nvtxCounterAttr_t, structSize),
    FLD(nvtxCounterAttr_t, schemaId),
    FLD(nvtxCounterAttr_t, name),
    FLD(nvtxCounterAttr_t, description),
    FLD(nvtxCounterAttr_t, scopeId),
    FLD(nvtxCounterAttr_t, semantics),
    FLD(nvtxCounterAttr_t, counterId),
    SZ(nvtxCounterBatch_t),
    FLD(nvtxCounterBatch_t, counterId),
    FLD(nvtxCounterBatch_t, counters),
    FLD(nvtxCounterBatch_t, countersSize),
    FLD(nvtxCounterBatch_t, flags),
    FLD(nvtxCounterBatch_t, timestamps),
    FLD(nvtxCounterBatch_t, timestampsSize),

    /* Semantic extensions (nvToolsExtSemantics{Scope,Time,Counters}.h) */
    SZ(nvtxSemanticsScope_t),
    FLD(nvtxSemanticsScope_t, header),
    FLD(nvtxSemanticsScope_t, scopeId),
    SZ(nvtxSemanticsTime_t),
    FLD(nvtxSemanticsTime_t, header),
    FLD(nvtxSemanticsTime_t, timeDomainId),
    SZ(nvtxCounterLimit_t),
    FLD(nvtxCounterLimit_t, i64),
    FLD(nvtxCounterLimit_t, u64),
    FLD(nvtxCounterLimit_t, f64),
    SZ(nvtxSemanticsCounter_t),
    FLD(nvtxSemanticsCounter_t, header),
    FLD(nvtxSemanticsCounter_t, flags),
    FLD(nvtxSemanticsCounter_t, unit),
    FLD(nvtxSemanticsCounter_t, unitScaleNumerator),
    FLD(nvtxSemanticsCounter_t, unitScaleDenominator),
    FLD(nvtxSemanticsCounter_t, limitType),
    FLD(nvtxSemanticsCounter_t, min),
    FLD(nvtxSemanticsCounter_t, max),

    /* nvtxResourceAttributes_v0 (nvToolsExt.h) or our mirror: RES_T */
    {"sizeof(resource_attributes)", (int64_t)sizeof(RES_T), 0},
    {"alignof(resource_attributes)", (int64_t) _Alignof(RES_T), 0},
    RFLD(version),
    RFLD(size),
    RFLD(identifierType),
    RFLD(identifier),
    RFLD(identifier.pValue),
    RFLD(identifier.ullValue),
    RFLD(messageType),
    RFLD(message),
    RFLD(message.ascii),
    RFLD(message.unicode),
    RFLD(message.registered),
    {"resource_attrib_struct_size", (int64_t)RES_STRUCT_SIZE, TYPE_CODE(RES_STRUCT_SIZE)},
    {"nvtx_version", (int64_t)RES_NVTX_VERSION, TYPE_CODE(RES_NVTX_VERSION)},
    {"resource_type.UNKNOWN", (int64_t)RES_TYPE_UNKNOWN, TYPE_CODE(RES_TYPE_UNKNOWN)},
    {"resource_type.GENERIC_POINTER", (int64_t)RES_TYPE_GENERIC_POINTER,
     TYPE_CODE(RES_TYPE_GENERIC_POINTER)},
    {"resource_type.GENERIC_HANDLE", (int64_t)RES_TYPE_GENERIC_HANDLE,
     TYPE_CODE(RES_TYPE_GENERIC_HANDLE)},
    {"resource_type.GENERIC_THREAD_NATIVE", (int64_t)RES_TYPE_GENERIC_THREAD_NATIVE,
     TYPE_CODE(RES_TYPE_GENERIC_THREAD_NATIVE)},
    {"resource_type.GENERIC_THREAD_POSIX", (int64_t)RES_TYPE_GENERIC_THREAD_POSIX,
     TYPE_CODE(RES_TYPE_GENERIC_THREAD_POSIX)},
    {"message_type.UNKNOWN", (int64_t)RES_MESSAGE_UNKNOWN, TYPE_CODE(RES_MESSAGE_UNKNOWN)},
    {"message_type.ASCII", (int64_t)RES_MESSAGE_TYPE_ASCII, TYPE_CODE(RES_MESSAGE_TYPE_ASCII)},
    {"message_type.UNICODE", (int64_t)RES_MESSAGE_TYPE_UNICODE,
     TYPE_CODE(RES_MESSAGE_TYPE_UNICODE)},
    {"message_type.REGISTERED", (int64_t)RES_MESSAGE_TYPE_REGISTERED,
     TYPE_CODE(RES_MESSAGE_TYPE_REGISTERED)},

    /* Extension IDs */
    VAL(NVTX_EXT_PAYLOAD_COMPATID),
    VAL(NVTX_EXT_PAYLOAD_MODULEID),
    VAL(NVTX_PAYLOAD_TYPE_EXT),
    VAL(NVTX_EXT_COUNTERS_COMPATID),
    VAL(NVTX_EXT_COUNTERS_MODULEID),

    /* Entry flags */
    VAL(NVTX_PAYLOAD_ENTRY_FLAG_UNUSED),
    VAL(NVTX_PAYLOAD_ENTRY_FLAG_POINTER),
    VAL(NVTX_PAYLOAD_ENTRY_FLAG_OFFSET_FROM_BASE),
    VAL(NVTX_PAYLOAD_ENTRY_FLAG_OFFSET_FROM_HERE),
    VAL(NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_FIXED_SIZE),
    VAL(NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_ZERO_TERMINATED),
    VAL(NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_INDEX),
    VAL(NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_PAYLOAD_INDEX),
    VAL(NVTX_PAYLOAD_ENTRY_FLAG_DEEP_COPY),
    VAL(NVTX_PAYLOAD_ENTRY_FLAG_HIDE),
    VAL(NVTX_PAYLOAD_ENTRY_FLAG_EVENT_MESSAGE),
    VAL(NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP),
    VAL(NVTX_PAYLOAD_ENTRY_FLAG_RANGE_BEGIN),
    VAL(NVTX_PAYLOAD_ENTRY_FLAG_RANGE_END),
    VAL(NVTX_PAYLOAD_ENTRY_FLAG_MARK),
    VAL(NVTX_PAYLOAD_ENTRY_FLAG_COUNTER),
    VAL(NVTXW_PAYLOAD_ENTRY_FLAG_ARRAY_MASK),
    VAL(NVTXW_PAYLOAD_ENTRY_FLAG_SEMANTIC_MASK),
    VAL(NVTXW_PAYLOAD_ENTRY_FLAG_ROLE_MASK),

    /* Entry types */
    VAL(NVTX_PAYLOAD_ENTRY_TYPE_INVALID),
    VAL(NVTX_PAYLOAD_ENTRY_TYPE_CHAR),
    VAL(NVTX_PAYLOAD_ENTRY_TYPE_UCHAR),
    VAL(NVTX_PAYLOAD_ENTRY_TYPE_SHORT),
    VAL(NVTX_PAYLOAD_ENTRY_TYPE_USHORT),
    VAL(NVTX_PAYLOAD_ENTRY_TYPE_INT),
    VAL(NVTX_PAYLOAD_ENTRY_TYPE_UINT),
    VAL(NVTX_PAYLOAD_ENTRY_TYPE_LONG),
    VAL(NVTX_PAYLOAD_ENTRY_TYPE_ULONG),
    VAL(NVTX_PAYLOAD_ENTRY_TYPE_LONGLONG),
    VAL(NVTX_PAYLOAD_ENTRY_TYPE_ULONGLONG),
    VAL(NVTX_PAYLOAD_ENTRY_TYPE_INT8),
    VAL(NVTX_PAYLOAD_ENTRY_TYPE_UINT8),
    VAL(NVTX_PAYLOAD_ENTRY_TYPE_INT16),
    VAL(NVTX_PAYLOAD_ENTRY_TYPE_UINT16),
    VAL(NVTX_PAYLOAD_ENTRY_TYPE_INT32),
    VAL(NVTX_PAYLOAD_ENTRY_TYPE_UINT32),
    VAL(NVTX_PAYLOAD_ENTRY_TYPE_INT64),
    VAL(NVTX_PAYLOAD_ENTRY_TYPE_UINT64),
    VAL(NVTX_PAYLOAD_ENTRY_TYPE_FLOAT),
    VAL(NVTX_PAYLOAD_ENTRY_TYPE_DOUBLE),
    VAL(NVTX_PAYLOAD_ENTRY_TYPE_LONGDOUBLE),
    VAL(NVTX_PAYLOAD_ENTRY_TYPE_SIZE),
    VAL(NVTX_PAYLOAD_ENTRY_TYPE_ADDRESS),
    VAL(NVTX_PAYLOAD_ENTRY_TYPE_WCHAR),
    VAL(NVTX_PAYLOAD_ENTRY_TYPE_CHAR8),
    VAL(NVTX_PAYLOAD_ENTRY_TYPE_CHAR16),
    VAL(NVTX_PAYLOAD_ENTRY_TYPE_CHAR32),
    VAL(NVTX_PAYLOAD_ENTRY_TYPE_INFO_ARRAY_SIZE),
    VAL(NVTX_PAYLOAD_ENTRY_TYPE_BYTE),
    VAL(NVTX_PAYLOAD_ENTRY_TYPE_INT128),
    VAL(NVTX_PAYLOAD_ENTRY_TYPE_UINT128),
    VAL(NVTX_PAYLOAD_ENTRY_TYPE_FLOAT16),
    VAL(NVTX_PAYLOAD_ENTRY_TYPE_FLOAT32),
    VAL(NVTX_PAYLOAD_ENTRY_TYPE_FLOAT64),
    VAL(NVTX_PAYLOAD_ENTRY_TYPE_FLOAT128),
    VAL(NVTX_PAYLOAD_ENTRY_TYPE_BF16),
    VAL(NVTX_PAYLOAD_ENTRY_TYPE_TF32),
    VAL(NVTX_PAYLOAD_ENTRY_TYPE_RANGE_ID),
    VAL(NVTX_PAYLOAD_ENTRY_TYPE_CATEGORY),
    VAL(NVTX_PAYLOAD_ENTRY_TYPE_COLOR_ARGB),
    VAL(NVTX_PAYLOAD_ENTRY_TYPE_SCOPE_ID),
    VAL(NVTX_PAYLOAD_ENTRY_TYPE_PID_UINT32),
    VAL(NVTX_PAYLOAD_ENTRY_TYPE_PID_UINT64),
    VAL(NVTX_PAYLOAD_ENTRY_TYPE_TID_UINT32),
    VAL(NVTX_PAYLOAD_ENTRY_TYPE_TID_UINT64),
    VAL(NVTX_PAYLOAD_ENTRY_TYPE_CSTRING),
    VAL(NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF8),
    VAL(NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF16),
    VAL(NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF32),
    VAL(NVTX_PAYLOAD_ENTRY_TYPE_NVTX_REGISTERED_STRING_HANDLE),
    VAL(NVTX_PAYLOAD_ENTRY_TYPE_UNION_SELECTOR),
    VAL(NVTX_TYPE_PAYLOAD_SCHEMA_REFERENCED),
    VAL(NVTX_TYPE_PAYLOAD_SCHEMA_RAW),
    VAL(NVTX_PAYLOAD_SCHEMA_ID_STATIC_START),
    VAL(NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START),

    /* Schema types, flags, attribute fields */
    VAL(NVTX_PAYLOAD_SCHEMA_TYPE_INVALID),
    VAL(NVTX_PAYLOAD_SCHEMA_TYPE_STATIC),
    VAL(NVTX_PAYLOAD_SCHEMA_TYPE_DYNAMIC),
    VAL(NVTX_PAYLOAD_SCHEMA_TYPE_UNION),
    VAL(NVTX_PAYLOAD_SCHEMA_TYPE_UNION_WITH_INTERNAL_SELECTOR),
    VAL(NVTX_PAYLOAD_SCHEMA_FLAG_NONE),
    VAL(NVTX_PAYLOAD_SCHEMA_FLAG_DEEP_COPY),
    VAL(NVTX_PAYLOAD_SCHEMA_FLAG_REFERENCED),
    VAL(NVTX_PAYLOAD_SCHEMA_FLAG_COUNTER_GROUP),
    VAL(NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_PUSHPOP),
    VAL(NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_STARTEND),
    VAL(NVTX_PAYLOAD_SCHEMA_FLAG_MARK),
    VAL(NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_PUSH),
    VAL(NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_POP),
    VAL(NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_START),
    VAL(NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_END),
    VAL(NVTXW_PAYLOAD_SCHEMA_ROLE(NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_STARTEND)),
    VAL(NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NAME),
    VAL(NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE),
    VAL(NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_FLAGS),
    VAL(NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES),
    VAL(NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES),
    VAL(NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_STATIC_SIZE),
    VAL(NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ALIGNMENT),
    VAL(NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_SCHEMA_ID),
    VAL(NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_EXTENSION),
    VAL(NVTX_PAYLOAD_ENUM_ATTR_FIELD_NAME),
    VAL(NVTX_PAYLOAD_ENUM_ATTR_FIELD_ENTRIES),
    VAL(NVTX_PAYLOAD_ENUM_ATTR_FIELD_NUM_ENTRIES),
    VAL(NVTX_PAYLOAD_ENUM_ATTR_FIELD_SIZE),
    VAL(NVTX_PAYLOAD_ENUM_ATTR_FIELD_SCHEMA_ID),
    VAL(NVTX_PAYLOAD_ENUM_ATTR_FIELD_EXTENSION),

    /* Scopes */
    VAL(NVTX_SCOPE_NONE),
    VAL(NVTX_SCOPE_ROOT),
    VAL(NVTX_SCOPE_CURRENT_HW_MACHINE),
    VAL(NVTX_SCOPE_CURRENT_HW_SOCKET),
    VAL(NVTX_SCOPE_CURRENT_HW_CPU_PHYSICAL),
    VAL(NVTX_SCOPE_CURRENT_HW_CPU_LOGICAL),
    VAL(NVTX_SCOPE_CURRENT_HW_INNERMOST),
    VAL(NVTX_SCOPE_CURRENT_HYPERVISOR),
    VAL(NVTX_SCOPE_CURRENT_VM),
    VAL(NVTX_SCOPE_CURRENT_KERNEL),
    VAL(NVTX_SCOPE_CURRENT_CONTAINER),
    VAL(NVTX_SCOPE_CURRENT_OS),
    VAL(NVTX_SCOPE_CURRENT_SW_PROCESS),
    VAL(NVTX_SCOPE_CURRENT_SW_THREAD),
    VAL(NVTX_SCOPE_CURRENT_SW_INNERMOST),
    VAL(NVTX_SCOPE_ID_STATIC_START),
    VAL(NVTX_SCOPE_ID_DYNAMIC_START),

    /* Time */
    VAL(NVTX_TIMESTAMP_TYPE_NONE),
    VAL(NVTX_TIMESTAMP_TYPE_TOOL_PROVIDED),
    VAL(NVTX_TIMESTAMP_TYPE_CPU_TSC),
    VAL(NVTX_TIMESTAMP_TYPE_CPU_TSC_NONVIRTUALIZED),
    VAL(NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_REALTIME),
    VAL(NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_REALTIME_COARSE),
    VAL(NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_MONOTONIC),
    VAL(NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_MONOTONIC_RAW),
    VAL(NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_MONOTONIC_COARSE),
    VAL(NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_BOOTTIME),
    VAL(NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_PROCESS_CPUTIME_ID),
    VAL(NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_THREAD_CPUTIME_ID),
    VAL(NVTX_TIMESTAMP_TYPE_WIN_QPC),
    VAL(NVTX_TIMESTAMP_TYPE_WIN_GSTAFT),
    VAL(NVTX_TIMESTAMP_TYPE_WIN_GSTAFTP),
    VAL(NVTX_TIMESTAMP_TYPE_C_TIME),
    VAL(NVTX_TIMESTAMP_TYPE_C_CLOCK),
    VAL(NVTX_TIMESTAMP_TYPE_C_TIMESPEC_GET),
    VAL(NVTX_TIMESTAMP_TYPE_CPP_STEADY_CLOCK),
    VAL(NVTX_TIMESTAMP_TYPE_CPP_HIGH_RESOLUTION_CLOCK),
    VAL(NVTX_TIMESTAMP_TYPE_CPP_SYSTEM_CLOCK),
    VAL(NVTX_TIMESTAMP_TYPE_CPP_UTC_CLOCK),
    VAL(NVTX_TIMESTAMP_TYPE_CPP_TAI_CLOCK),
    VAL(NVTX_TIMESTAMP_TYPE_CPP_GPS_CLOCK),
    VAL(NVTX_TIMESTAMP_TYPE_CPP_FILE_CLOCK),
    VAL(NVTX_TIMESTAMP_TYPE_GPU_GLOBALTIMER),
    VAL(NVTX_TIME_DOMAIN_ID_NONE),
    VAL(NVTX_TIME_DOMAIN_ID_STATIC_START),
    VAL(NVTX_TIME_DOMAIN_ID_DYNAMIC_START),
    VAL(NVTX_TIMER_FLAG_NONE),
    VAL(NVTX_TIMER_FLAG_CLOCK_MONOTONIC),
    VAL(NVTX_TIMER_FLAG_CLOCK_STEADY),
    VAL(NVTX_TIMER_START_UNKNOWN),
    VAL(NVTX_TIMER_START_SYSTEM_BOOT),
    VAL(NVTX_TIMER_START_VM_BOOT),
    VAL(NVTX_TIMER_START_UNIX_EPOCH),
    VAL(NVTX_TIMER_START_WIN_FILETIME),
    VAL(NVTX_TIMER_SOURCE_SAFE_CALL_AFTER_PROCESS_TEARDOWN),
    VAL(NVTX_TIMER_SOURCE_UNSAFE_CALL_AFTER_PROCESS_TEARDOWN),
    VAL(NVTX_BATCH_FLAG_TIME_SORTED),
    VAL(NVTX_BATCH_FLAG_TIME_SORTED_PARTIALLY),
    VAL(NVTX_BATCH_FLAG_TIME_SORTED_PER_SCOPE),
    VAL(NVTX_BATCH_FLAG_UNSORTED),

    /* Counters and their semantics */
    VAL(NVTX_COUNTER_ID_NONE),
    VAL(NVTX_COUNTER_ID_STATIC_START),
    VAL(NVTX_COUNTER_ID_DYNAMIC_START),
    VAL(NVTX_COUNTER_SAMPLE_ZERO),
    VAL(NVTX_COUNTER_SAMPLE_UNCHANGED),
    VAL(NVTX_COUNTER_SAMPLE_UNAVAILABLE),
#if ABI_REPORT_COUNTER_BATCH_FLAGS
    VAL(NVTX_COUNTER_BATCH_FLAG_BEGINTIME_INTERVAL_PAIR),
    VAL(NVTX_COUNTER_BATCH_FLAG_ENDTIME_INTERVAL_PAIR),
#endif
    VAL(NVTX_SEMANTIC_ID_SCOPE_V1),
    VAL(NVTX_SEMANTIC_ID_TIME_V1),
    VAL(NVTX_TIME_SEMANTIC_VERSION),
    VAL(NVTX_SEMANTIC_ID_COUNTERS_V1),
    VAL(NVTX_COUNTER_SEMANTIC_VERSION),
    VAL(NVTX_COUNTER_FLAGS_NONE),
    VAL(NVTX_COUNTER_FLAG_NORMALIZE),
    VAL(NVTX_COUNTER_FLAG_LIMIT_MIN),
    VAL(NVTX_COUNTER_FLAG_LIMIT_MAX),
    VAL(NVTX_COUNTER_FLAG_LIMITS),
    VAL(NVTX_COUNTER_FLAG_VALUETYPE_ABSOLUTE),
    VAL(NVTX_COUNTER_FLAG_VALUETYPE_DELTA),
    VAL(NVTX_COUNTER_FLAG_VALUETYPE_DELTA_SINCE_START),
    VAL(NVTX_COUNTER_FLAG_INTERPOLATION_POINT),
    VAL(NVTX_COUNTER_FLAG_INTERPOLATION_SINCE_LAST),
    VAL(NVTX_COUNTER_FLAG_INTERPOLATION_UNTIL_NEXT),
    VAL(NVTX_COUNTER_FLAG_INTERPOLATION_LINEAR),
    VAL(NVTX_COUNTER_LIMIT_UNDEFINED),
    VAL(NVTX_COUNTER_LIMIT_I64),
    VAL(NVTX_COUNTER_LIMIT_U64),
    VAL(NVTX_COUNTER_LIMIT_F64),

    /* NVTXW itself (nvtxw/abi.h, nvtxw/helper_types.h): unchanged by NVIDIA's headers */
    VAL(NVTXW_RESULT_SUCCESS),
    VAL(NVTXW_RESULT_FAILED),
    VAL(NVTXW_RESULT_INVALID_ARGUMENT),
    VAL(NVTXW_RESULT_LIBRARY_NOT_FOUND),
    VAL(NVTXW_RESULT_LIBRARY_LOAD_FAILED),
    VAL(NVTXW_RESULT_LIBRARY_SYMBOL_MISSING),
    VAL(NVTXW_RESULT_INTERFACE_VERSION_NOT_SUPPORTED),
    VAL(NVTXW_RESULT_NOT_SUPPORTED),
    VAL(NVTXW_INTERFACE_VERSION),
    VAL(NVTXW_STREAM_ORDER_INTERLEAVING_NONE),
    VAL(NVTXW_STREAM_ORDER_INTERLEAVING_SCOPE),
    VAL(NVTXW_STREAM_ORDERING_TYPE_UNKNOWN),
    VAL(NVTXW_STREAM_ORDERING_TYPE_STRICT),
    VAL(NVTXW_STREAM_ORDERING_TYPE_PACKED_RANGE_START),
    VAL(NVTXW_STREAM_ORDERING_TYPE_PACKED_RANGE_END),
    VAL(NVTXW_STREAM_ORDERING_SKID_NONE),
    VAL(NVTXW_STREAM_ORDERING_SKID_TIME_NS),
    VAL(NVTXW_STREAM_ORDERING_SKID_EVENT_COUNT),
    VAL(NVTXW_NVTX_VERSION),
    VAL(NVTXW_RESOURCE_ATTRIB_STRUCT_SIZE),
    SZ(nvtxw_resource_attributes_t),
    SZ(nvtxwSessionAttributes_t),
    FLD(nvtxwSessionAttributes_t, structSize),
    FLD(nvtxwSessionAttributes_t, name),
    FLD(nvtxwSessionAttributes_t, configString),
    SZ(nvtxwDomainAttributes_t),
    FLD(nvtxwDomainAttributes_t, structSize),
    FLD(nvtxwDomainAttributes_t, name),
    SZ(nvtxwStreamAttributes_t),
    FLD(nvtxwStreamAttributes_t, structSize),
    FLD(nvtxwStreamAttributes_t, name),
    FLD(nvtxwStreamAttributes_t, domain),
    FLD(nvtxwStreamAttributes_t, scopeId),
    FLD(nvtxwStreamAttributes_t, timeDomainId),
    FLD(nvtxwStreamAttributes_t, orderInterleaving),
    FLD(nvtxwStreamAttributes_t, orderingType),
    FLD(nvtxwStreamAttributes_t, orderingSkid),
    FLD(nvtxwStreamAttributes_t, orderingSkidAmount),
    SZ(nvtxwInterface_v2_t),
    FLD(nvtxwInterface_v2_t, SessionBegin),
    FLD(nvtxwInterface_v2_t, SessionEnd),
    FLD(nvtxwInterface_v2_t, DomainRegister),
    FLD(nvtxwInterface_v2_t, CategoryRegister),
    FLD(nvtxwInterface_v2_t, StringRegister),
    FLD(nvtxwInterface_v2_t, ResourceRegister),
    FLD(nvtxwInterface_v2_t, ScopeRegister),
    FLD(nvtxwInterface_v2_t, SchemaRegister),
    FLD(nvtxwInterface_v2_t, EnumRegister),
    FLD(nvtxwInterface_v2_t, CounterRegister),
    FLD(nvtxwInterface_v2_t, TimeDomainRegister),
    FLD(nvtxwInterface_v2_t, StreamOpen),
    FLD(nvtxwInterface_v2_t, StreamClose),
    FLD(nvtxwInterface_v2_t, EventWrite),
    FLD(nvtxwInterface_v2_t, EventBatchWrite),
    FLD(nvtxwInterface_v2_t, CounterWrite),
    FLD(nvtxwInterface_v2_t, CounterNoValueWrite),
    FLD(nvtxwInterface_v2_t, CounterBatchWrite),
    FLD(nvtxwInterface_v2_t, TimeSyncPointWrite),
    FLD(nvtxwInterface_v2_t, TimeSyncPointTableWrite),
    FLD(nvtxwInterface_v2_t, TimestampConversionFactorWrite),
    FLD(nvtxwInterface_v2_t, reserved),
    SZ(nvtxwEventAttributes_t),
    SZ(nvtxwEventAttributesUtf8_t),
    SZ(nvtxwEventHelperSchemaIds_t),
    SZ(nvtxwEventWriter_t),
    SZ(nvtxwEventUtf8Payload_t),
    SZ(nvtxwEventRegStringPayload_t),
    SZ(nvtxwRangePopPayload_t),
    SZ(nvtxwRangeEventUtf8Payload_t),
    SZ(nvtxwRangeEventRegStringPayload_t),
    SZ(nvtxwRangeIdEventUtf8Payload_t),
    SZ(nvtxwRangeIdEventRegStringPayload_t),
    SZ(nvtxwRangeEndPayload_t),
};

#define N_OURS (sizeof(ours) / sizeof(ours[0]))

/* Facts of order 2 that are not compared (see the top of this file). */
static const char* const order2_exceptions[] = {
    "NVTX_COUNTER_BATCH_FLAG_BEGINTIME_INTERVAL_PAIR",
    "NVTX_COUNTER_BATCH_FLAG_ENDTIME_INTERVAL_PAIR",
};
#define N_ORDER2_EXCEPTIONS (sizeof(order2_exceptions) / sizeof(order2_exceptions[0]))

static int is_order2_exception(const char* name) {
    for (size_t i = 0; i < N_ORDER2_EXCEPTIONS; i++) {
        if (strcmp(name, order2_exceptions[i]) == 0) {
            return 1;
        }
    }
    return 0;
}

static const struct abi_fact* find_fact(const struct abi_fact* list, size_t count,
                                        const char* name) {
    for (size_t i = 0; i < count; i++) {
        if (strcmp(list[i].name, name) == 0) {
            return &list[i];
        }
    }
    return NULL;
}

static void expect_same(const char* where, const struct abi_fact* got,
                        const struct abi_fact* expected, const char* expected_where) {
    ck_assert_msg(got != NULL, "%s: %s is missing", where, expected->name);
    ck_assert_msg(got->value == expected->value, "%s: %s is %lld (0x%llx), %s: %lld (0x%llx)",
                  where, got->name, (long long)got->value, (unsigned long long)got->value,
                  expected_where, (long long)expected->value, (unsigned long long)expected->value);
    ck_assert_msg(got->type == expected->type, "%s: %s has type code %d, %s: %d", where, got->name,
                  got->type, expected_where, expected->type);
}

/* ---- (b) each order equals our headers alone ------------------------------ */

START_TEST(test_order1_equals_ours) {
    size_t n1;
    const struct abi_fact* order1 = abi_nvidia_order1_facts(&n1);
    expect_same("ours then NVIDIA", find_fact(order1, n1, ours[_i].name), &ours[_i],
                "our headers alone");
}
END_TEST

START_TEST(test_order2_equals_ours) {
    size_t n2;
    const struct abi_fact* order2 = abi_nvidia_order2_facts(&n2);
    const struct abi_fact* got = find_fact(order2, n2, ours[_i].name);
    if (is_order2_exception(ours[_i].name)) {
        ck_assert_msg(got == NULL, "NVIDIA then ours: %s is an exception but was reported",
                      ours[_i].name);
        return;
    }
    expect_same("NVIDIA then ours", got, &ours[_i], "our headers alone");
}
END_TEST

/* ---- (a) both orders agree -------------------------------------------------- */

START_TEST(test_orders_agree) {
    size_t n1, n2;
    const struct abi_fact* order1 = abi_nvidia_order1_facts(&n1);
    const struct abi_fact* order2 = abi_nvidia_order2_facts(&n2);
    ck_assert_uint_lt((size_t)_i, n1);
    if (is_order2_exception(order1[_i].name)) {
        ck_assert_ptr_null(find_fact(order2, n2, order1[_i].name));
        return;
    }
    expect_same("NVIDIA then ours", find_fact(order2, n2, order1[_i].name), &order1[_i],
                "ours then NVIDIA");
}
END_TEST

START_TEST(test_fact_lists_complete) {
    size_t n1, n2;
    const struct abi_fact* order1 = abi_nvidia_order1_facts(&n1);
    const struct abi_fact* order2 = abi_nvidia_order2_facts(&n2);
    ck_assert_uint_eq(n1, N_OURS);
    ck_assert_uint_eq(n2, N_OURS - N_ORDER2_EXCEPTIONS);
    for (size_t i = 0; i < n1; i++) {
        ck_assert_msg(find_fact(ours, N_OURS, order1[i].name) != NULL,
                      "ours then NVIDIA reports %s, unknown to this test", order1[i].name);
    }
    for (size_t i = 0; i < n2; i++) {
        ck_assert_msg(find_fact(ours, N_OURS, order2[i].name) != NULL,
                      "NVIDIA then ours reports %s, unknown to this test", order2[i].name);
    }
    for (size_t i = 0; i < N_OURS; i++) {
        ck_assert_msg(find_fact(ours, i, ours[i].name) == NULL, "%s is listed twice", ours[i].name);
    }
}
END_TEST

/* ---- (c) documented exceptions --------------------------------------------- */

static void expect_value_in_both_orders(const char* name, int64_t value) {
    size_t n1, n2;
    const struct abi_fact* order1 = abi_nvidia_order1_facts(&n1);
    const struct abi_fact* order2 = abi_nvidia_order2_facts(&n2);
    const struct abi_fact* f1 = find_fact(order1, n1, name);
    const struct abi_fact* f2 = find_fact(order2, n2, name);
    ck_assert_msg(f1 != NULL, "ours then NVIDIA: %s missing", name);
    ck_assert_msg(f2 != NULL, "NVIDIA then ours: %s missing", name);
    ck_assert_msg(f1->value == value, "ours then NVIDIA: %s is %lld, expected %lld", name,
                  (long long)f1->value, (long long)value);
    ck_assert_msg(f2->value == value, "NVIDIA then ours: %s is %lld, expected %lld", name,
                  (long long)f2->value, (long long)value);
}

START_TEST(test_2026_constants_in_both_orders) {
    expect_value_in_both_orders("NVTX_PAYLOAD_ENTRY_TYPE_RANGE_ID", 67);
    expect_value_in_both_orders("NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_PUSH", 40);
    expect_value_in_both_orders("NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_POP", 48);
    expect_value_in_both_orders("NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_START", 56);
    expect_value_in_both_orders("NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_END", 64);
    expect_value_in_both_orders("NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_PAYLOAD_INDEX", 64);
    expect_value_in_both_orders(
        "NVTXW_PAYLOAD_SCHEMA_ROLE(NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_STARTEND)", 3);
}
END_TEST

START_TEST(test_counter_batch_flags_order1_only) {
    size_t n1, n2;
    const struct abi_fact* order1 = abi_nvidia_order1_facts(&n1);
    const struct abi_fact* order2 = abi_nvidia_order2_facts(&n2);
    const struct abi_fact* begin = find_fact(order1, n1, order2_exceptions[0]);
    const struct abi_fact* end = find_fact(order1, n1, order2_exceptions[1]);
    ck_assert_ptr_nonnull(begin);
    ck_assert_ptr_nonnull(end);
    ck_assert_int_eq(begin->value, INT64_C(0x100000000));
    ck_assert_int_eq(end->value, INT64_C(0x200000000));
    ck_assert_int_eq(begin->type, TYPE_CODE((uint64_t)0));
    ck_assert_int_eq(end->type, TYPE_CODE((uint64_t)0));
    ck_assert_ptr_null(find_fact(order2, n2, order2_exceptions[0]));
    ck_assert_ptr_null(find_fact(order2, n2, order2_exceptions[1]));
}
END_TEST

START_TEST(test_nvidia_alone) {
    size_t n;
    const struct abi_fact* alone = abi_nvidia_order2_nvidia_alone(&n);
    for (size_t i = 0; i < n; i++) {
        printf("NVIDIA nvtx3 headers alone: %s = %lld (0x%llx)\n", alone[i].name,
               (long long)alone[i].value, (unsigned long long)alone[i].value);
    }
    const struct abi_fact* is_array = find_fact(alone, n, "NVTX_PAYLOAD_ENTRY_FLAG_IS_ARRAY");
    ck_assert_ptr_nonnull(is_array);
    ck_assert_msg(is_array->value == 0x30 || is_array->value == 0x70,
                  "NVTX_PAYLOAD_ENTRY_FLAG_IS_ARRAY is 0x%llx, neither 2025 (0x30) nor 2026 (0x70)",
                  (unsigned long long)is_array->value);
    ck_assert_msg(abi_nvidia_order1_is_array() == is_array->value,
                  "NVTX_PAYLOAD_ENTRY_FLAG_IS_ARRAY differs between orders: 0x%llx vs 0x%llx",
                  (unsigned long long)abi_nvidia_order1_is_array(),
                  (unsigned long long)is_array->value);
    /* NVIDIA's headers must define their counter batch flags; 0 is what
     * their spelling folds to, and order 2 does not evaluate them */
    const struct abi_fact* batch =
        find_fact(alone, n, "defined(NVTX_COUNTER_BATCH_FLAG_BEGINTIME_INTERVAL_PAIR)");
    ck_assert_ptr_nonnull(batch);
    ck_assert_int_eq(batch->value, 1);
    const struct abi_fact* range_id =
        find_fact(alone, n, "defined(NVTX_PAYLOAD_ENTRY_TYPE_RANGE_ID)");
    ck_assert_ptr_nonnull(range_id);
    if (range_id->value == 0) {
        printf("NVIDIA nvtx3 headers are an older (CUDA 13.0) revision: RANGE_ID and the split "
               "range roles come from nvtxw in both orders\n");
    }
}
END_TEST

/* ---- distinct resource attribute types, byte for byte ------------------------ */

typedef size_t (*resource_bytes_fn)(int variant, const void* pointer, const char* text, void* out,
                                    size_t out_size);

static const wchar_t wide_text[] = L"wide name";
static const char ascii_text[] = "resource name";

/* What abi_nvidia_order*_resource_bytes writes, built through our mirror. */
static void fill_ours(int variant, nvtxw_resource_attributes_t* attr) {
    memset(attr, 0, sizeof(*attr));
    attr->version = NVTXW_NVTX_VERSION;
    attr->size = NVTXW_RESOURCE_ATTRIB_STRUCT_SIZE;
    switch (variant) {
    case 0:
        attr->identifierType = NVTXW_RESOURCE_TYPE_GENERIC_THREAD_POSIX;
        attr->identifier.ullValue = UINT64_C(0x0123456789ABCDEF);
        attr->messageType = NVTXW_MESSAGE_TYPE_REGISTERED;
        attr->message.registered = (nvtxStringHandle_t)(uintptr_t)UINT64_C(0xFEDCBA9876543210);
        break;
    case 1:
        attr->identifierType = NVTXW_RESOURCE_TYPE_GENERIC_POINTER;
        attr->identifier.pValue = wide_text;
        attr->messageType = NVTXW_MESSAGE_TYPE_ASCII;
        attr->message.ascii = ascii_text;
        break;
    default:
        attr->identifierType = NVTXW_RESOURCE_TYPE_GENERIC_HANDLE;
        attr->identifier.pValue = ascii_text;
        attr->messageType = NVTXW_MESSAGE_TYPE_UNICODE;
        attr->message.unicode = wide_text;
        break;
    }
}

/* _i: order (0 or 1) * 3 + variant (0..2) */
START_TEST(test_resource_attributes_bytes) {
    const resource_bytes_fn fns[2] = {abi_nvidia_order1_resource_bytes,
                                      abi_nvidia_order2_resource_bytes};
    const char* const orders[2] = {"ours then NVIDIA", "NVIDIA then ours"};
    const int order = _i / 3;
    const int variant = _i % 3;

    nvtxw_resource_attributes_t from_nvidia;
    memset(&from_nvidia, 0xA5, sizeof(from_nvidia));
    size_t nvidia_size =
        fns[order](variant, wide_text, ascii_text, &from_nvidia, sizeof(from_nvidia));
    ck_assert_msg(nvidia_size == sizeof(nvtxw_resource_attributes_t),
                  "%s: sizeof(nvtxResourceAttributes_t) is %zu, ours %zu", orders[order],
                  nvidia_size, sizeof(nvtxw_resource_attributes_t));

    /* read through our type what was written through NVIDIA's */
    ck_assert_uint_eq(from_nvidia.version, 3);
    ck_assert_uint_eq(from_nvidia.size, 32);
    nvtxw_resource_attributes_t expected;
    fill_ours(variant, &expected);
    ck_assert_int_eq(from_nvidia.identifierType, expected.identifierType);
    ck_assert_uint_eq(from_nvidia.identifier.ullValue, expected.identifier.ullValue);
    ck_assert_int_eq(from_nvidia.messageType, expected.messageType);
    ck_assert_ptr_eq(from_nvidia.message.ascii, expected.message.ascii);

    /* and the whole byte image, padding included (both zeroed first) */
    ck_assert_msg(memcmp(&from_nvidia, &expected, sizeof(expected)) == 0,
                  "%s, variant %d: nvtxResourceAttributes_t and nvtxw_resource_attributes_t "
                  "byte images differ",
                  orders[order], variant);
}
END_TEST

static Suite* abi_nvidia_suite(void) {
    Suite* s = suite_create("abi_nvidia");
    TCase* tc;
    size_t n1;

    abi_nvidia_order1_facts(&n1);

    tc = tcase_create("ours_then_nvidia");
    tcase_add_loop_test(tc, test_order1_equals_ours, 0, (int)N_OURS);
    suite_add_tcase(s, tc);

    tc = tcase_create("nvidia_then_ours");
    tcase_add_loop_test(tc, test_order2_equals_ours, 0, (int)N_OURS);
    suite_add_tcase(s, tc);

    tc = tcase_create("orders_agree");
    tcase_add_loop_test(tc, test_orders_agree, 0, (int)n1);
    tcase_add_test(tc, test_fact_lists_complete);
    suite_add_tcase(s, tc);

    tc = tcase_create("exceptions");
    tcase_add_test(tc, test_2026_constants_in_both_orders);
    tcase_add_test(tc, test_counter_batch_flags_order1_only);
    tcase_add_test(tc, test_nvidia_alone);
    suite_add_tcase(s, tc);

    tc = tcase_create("resource_attributes");
    tcase_add_loop_test(tc, test_resource_attributes_bytes, 0, 6);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    SRunner* sr = srunner_create(abi_nvidia_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
