/*
 * tools/record/nvtx_inject_abi.h - the parts of NVTX v3's injection
 * interface the recorder implements, declared here so that it builds
 * without NVIDIA's headers (nvToolsExt.h, nvtxDetail/nvtxTypes.h of the
 * CUDA toolkit or github.com/NVIDIA/NVTX). Names carry a rec_ prefix so a
 * translation unit may include NVIDIA's headers too:
 * tests/unit/record_abi_test.c checks every layout and constant here
 * against them, byte for byte.
 *
 * How NVTX attaches a tool: on an annotated program's first NVTX call, NVTX
 * loads the library named by NVTX_INJECTION64_PATH and calls its
 * InitializeInjectionNvtx2(getExportTable). The tool asks the export table
 * for the callback table (REC_NVTX_ETID_CALLBACKS) and, per module, gets an
 * array of pointers to NVTX's function pointers: entry CBID points at the
 * pointer NVTX calls for that function (entry 0 is unused), and the tool
 * stores its own function there. Functions left alone do nothing.
 */
#ifndef NVTXW_TOOLS_RECORD_NVTX_INJECT_ABI_H
#define NVTXW_TOOLS_RECORD_NVTX_INJECT_ABI_H

#include <stddef.h>
#include <stdint.h>
#include <wchar.h>

#include "nvtxw/nvtx_types.h"

/* nvtxMessageValue_t: an attribute struct's message, as message_type says. */
typedef union rec_nvtx_message {
    const char* ascii;
    const wchar_t* unicode;
    nvtxStringHandle_t registered;
} rec_nvtx_message;

/* nvtxEventAttributes_v2 (nvToolsExt.h), 48 bytes. `size` says which
 * fields a producer filled: older ones may pass a shorter struct. */
typedef struct rec_nvtx_event_attributes {
    uint16_t version;
    uint16_t size;
    uint32_t category;
    int32_t color_type; /* REC_NVTX_COLOR_* */
    uint32_t color;
    int32_t payload_type; /* REC_NVTX_PAYLOAD_* */
    int32_t reserved0;
    union {
        uint64_t u64;
        int64_t i64;
        double f64;
        uint32_t u32;
        int32_t i32;
        float f32;
    } payload;
    int32_t message_type; /* REC_NVTX_MESSAGE_* */
    rec_nvtx_message message;
} rec_nvtx_event_attributes;

enum { REC_NVTX_COLOR_UNKNOWN = 0, REC_NVTX_COLOR_ARGB = 1 };
enum {
    REC_NVTX_MESSAGE_UNKNOWN = 0,
    REC_NVTX_MESSAGE_ASCII = 1,
    REC_NVTX_MESSAGE_UNICODE = 2,
    REC_NVTX_MESSAGE_REGISTERED = 3
};
enum {
    REC_NVTX_PAYLOAD_UNKNOWN = 0,
    REC_NVTX_PAYLOAD_UINT64 = 1,
    REC_NVTX_PAYLOAD_INT64 = 2,
    REC_NVTX_PAYLOAD_DOUBLE = 3,
    REC_NVTX_PAYLOAD_UINT32 = 4,
    REC_NVTX_PAYLOAD_INT32 = 5,
    REC_NVTX_PAYLOAD_FLOAT = 6,
    REC_NVTX_PAYLOAD_TYPES = 7
};

/* Export tables (NvtxExportTableID). */
enum { REC_NVTX_ETID_CALLBACKS = 1, REC_NVTX_ETID_VERSIONINFO = 3 };

/* Callback modules (NvtxCallbackModule). */
enum { REC_NVTX_MODULE_CORE = 1, REC_NVTX_MODULE_CORE2 = 5, REC_NVTX_MODULE_SYNC = 6 };

/* Callback IDs of the core module (NvtxCallbackIdCore). */
enum {
    REC_NVTX_CORE_MarkEx = 1,
    REC_NVTX_CORE_MarkA = 2,
    REC_NVTX_CORE_MarkW = 3,
    REC_NVTX_CORE_RangeStartEx = 4,
    REC_NVTX_CORE_RangeStartA = 5,
    REC_NVTX_CORE_RangeStartW = 6,
    REC_NVTX_CORE_RangeEnd = 7,
    REC_NVTX_CORE_RangePushEx = 8,
    REC_NVTX_CORE_RangePushA = 9,
    REC_NVTX_CORE_RangePushW = 10,
    REC_NVTX_CORE_RangePop = 11,
    REC_NVTX_CORE_NameCategoryA = 12,
    REC_NVTX_CORE_NameCategoryW = 13,
    REC_NVTX_CORE_NameOsThreadA = 14,
    REC_NVTX_CORE_NameOsThreadW = 15
};

/* Callback IDs of the core2 module: the domain forms (NvtxCallbackIdCore2). */
enum {
    REC_NVTX_CORE2_DomainMarkEx = 1,
    REC_NVTX_CORE2_DomainRangeStartEx = 2,
    REC_NVTX_CORE2_DomainRangeEnd = 3,
    REC_NVTX_CORE2_DomainRangePushEx = 4,
    REC_NVTX_CORE2_DomainRangePop = 5,
    REC_NVTX_CORE2_DomainResourceCreate = 6,
    REC_NVTX_CORE2_DomainResourceDestroy = 7,
    REC_NVTX_CORE2_DomainNameCategoryA = 8,
    REC_NVTX_CORE2_DomainNameCategoryW = 9,
    REC_NVTX_CORE2_DomainRegisterStringA = 10,
    REC_NVTX_CORE2_DomainRegisterStringW = 11,
    REC_NVTX_CORE2_DomainCreateA = 12,
    REC_NVTX_CORE2_DomainCreateW = 13,
    REC_NVTX_CORE2_DomainDestroy = 14,
    REC_NVTX_CORE2_Initialize = 15
};

/* The sync module's callbacks (NVTX_CBID_SYNC_*). */
enum {
    REC_NVTX_SYNC_DomainSyncUserCreate = 1,
    REC_NVTX_SYNC_DomainSyncUserDestroy = 2,
    REC_NVTX_SYNC_DomainSyncUserAcquireStart = 3,
    REC_NVTX_SYNC_DomainSyncUserAcquireFailed = 4,
    REC_NVTX_SYNC_DomainSyncUserAcquireSuccess = 5,
    REC_NVTX_SYNC_DomainSyncUserReleasing = 6
};

/* nvtxSyncUserAttributes_t (nvToolsExtSync.h): how a user sync object is
 * named. */
typedef struct rec_nvtx_sync_attributes {
    uint16_t version;
    uint16_t size;
    int32_t message_type; /* REC_NVTX_MESSAGE_* */
    rec_nvtx_message message;
} rec_nvtx_sync_attributes;

typedef void (*rec_nvtx_fn)(void);    /* NvtxFunctionPointer: cast before calling */
typedef rec_nvtx_fn** rec_nvtx_table; /* NvtxFunctionTable */

typedef const void* (*rec_nvtx_get_export_table)(uint32_t export_table_id);

/* NvtxExportTableCallbacks */
typedef struct rec_nvtx_export_callbacks {
    size_t struct_size;
    int (*get_module_function_table)(int module, rec_nvtx_table* out_table, unsigned* out_size);
} rec_nvtx_export_callbacks;

/* NvtxExportTableVersionInfo */
typedef struct rec_nvtx_export_version {
    size_t struct_size;
    uint32_t version;
    uint32_t reserved0;
    void (*set_injection_nvtx_version)(uint32_t version);
} rec_nvtx_export_version;

/* Extension modules (nvtxExtTypes.h): NVTX loads the same library and
 * calls its InitializeInjectionNvtxExtension once per module; the tool
 * stores its functions in the module's slots (slot CBID of a segment). */
typedef struct rec_nvtx_ext_segment {
    size_t segment_id;
    size_t slot_count;
    intptr_t* function_slots;
} rec_nvtx_ext_segment;

typedef struct rec_nvtx_ext_module_info {
    uint16_t nvtx_version;
    uint16_t struct_size;
    uint16_t module_id;
    uint16_t compat_id;
    size_t segments_count;
    rec_nvtx_ext_segment* segments;
    intptr_t (*get_export_function)(uint32_t export_function_id);
    const void* ext_info;
} rec_nvtx_ext_module_info;

/* The payload extension's module (nvToolsExtPayload.h) and its slots
 * (NVTX3EXT_CBID_*). */
enum { REC_NVTX_PAYLOAD_MODULE_ID = 2, REC_NVTX_PAYLOAD_COMPAT_ID = 0x0104 };
enum {
    REC_NVTX_PAYLOAD_SchemaRegister = 0,
    REC_NVTX_PAYLOAD_EnumRegister = 1,
    REC_NVTX_PAYLOAD_MarkPayload = 2,
    REC_NVTX_PAYLOAD_RangePushPayload = 3,
    REC_NVTX_PAYLOAD_RangePopPayload = 4,
    REC_NVTX_PAYLOAD_RangeStartPayload = 5,
    REC_NVTX_PAYLOAD_RangeEndPayload = 6,
    REC_NVTX_PAYLOAD_DomainIsEnabled = 7
};

/* The counters extension's module (nvToolsExtCounters.h) and its slots. */
enum { REC_NVTX_COUNTERS_MODULE_ID = 4, REC_NVTX_COUNTERS_COMPAT_ID = 0x0102 };
enum {
    REC_NVTX_COUNTERS_CounterRegister = 0,
    REC_NVTX_COUNTERS_CounterSampleInt64 = 1,
    REC_NVTX_COUNTERS_CounterSampleFloat64 = 2,
    REC_NVTX_COUNTERS_CounterSample = 3,
    REC_NVTX_COUNTERS_CounterSampleNoValue = 4,
    REC_NVTX_COUNTERS_CounterBatchSubmit = 5
};

#endif /* NVTXW_TOOLS_RECORD_NVTX_INJECT_ABI_H */
