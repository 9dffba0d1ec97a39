/*
 * abi_nvidia_order2.c - NVIDIA's nvtx3 headers FIRST, then ours, in one
 * translation unit (spec section 10). Reports every shared layout and macro
 * as this TU sees it; abi_nvidia_test.c compares the report with the other
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
    VAL(NVTX_PAYLOAD_ENTRY_FLAG_IS_ARRAY),
};

/* Facts about NVIDIA's headers alone, captured before ours were included. */
const struct abi_fact* abi_nvidia_order2_nvidia_alone(size_t* count) {
    *count = sizeof(nvidia_alone) / sizeof(nvidia_alone[0]);
    return nvidia_alone;
}
