/*
 * tests/record/record_abi_test.c - tools/record/nvtx_inject_abi.h against
 * NVIDIA's own nvtx3 headers, byte for byte: the event attribute struct
 * (every field's offset and size), the callback modules and IDs the
 * recorder fills (core, sync, payload and counters extensions), the sync
 * object attributes, the export table IDs and structs, the message, color
 * and payload type values. A difference would make libnvtxw-inject.so
 * read an annotated program's calls wrongly.
 */
#include <check.h>
#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtCounters.h>
#include <nvtx3/nvToolsExtPayload.h>
#include <nvtx3/nvToolsExtSync.h>
#include <stddef.h>

#include "nvtx_inject_abi.h"
#include "run_suite.h"

#define SAME_FIELD(ours, theirs, field_ours, field_theirs)                                         \
    do {                                                                                           \
        ck_assert_uint_eq(offsetof(ours, field_ours), offsetof(theirs, field_theirs));             \
        ck_assert_uint_eq(sizeof(((ours*)0)->field_ours), sizeof(((theirs*)0)->field_theirs));     \
    } while (0)

START_TEST(event_attributes) {
    ck_assert_uint_eq(sizeof(rec_nvtx_event_attributes), sizeof(nvtxEventAttributes_t));
    ck_assert_uint_eq(sizeof(rec_nvtx_event_attributes), NVTX_EVENT_ATTRIB_STRUCT_SIZE);
    SAME_FIELD(rec_nvtx_event_attributes, nvtxEventAttributes_t, version, version);
    SAME_FIELD(rec_nvtx_event_attributes, nvtxEventAttributes_t, size, size);
    SAME_FIELD(rec_nvtx_event_attributes, nvtxEventAttributes_t, category, category);
    SAME_FIELD(rec_nvtx_event_attributes, nvtxEventAttributes_t, color_type, colorType);
    SAME_FIELD(rec_nvtx_event_attributes, nvtxEventAttributes_t, color, color);
    SAME_FIELD(rec_nvtx_event_attributes, nvtxEventAttributes_t, payload_type, payloadType);
    SAME_FIELD(rec_nvtx_event_attributes, nvtxEventAttributes_t, reserved0, reserved0);
    SAME_FIELD(rec_nvtx_event_attributes, nvtxEventAttributes_t, payload, payload);
    SAME_FIELD(rec_nvtx_event_attributes, nvtxEventAttributes_t, payload.f32, payload.fValue);
    SAME_FIELD(rec_nvtx_event_attributes, nvtxEventAttributes_t, payload.u64, payload.ullValue);
    SAME_FIELD(rec_nvtx_event_attributes, nvtxEventAttributes_t, message_type, messageType);
    SAME_FIELD(rec_nvtx_event_attributes, nvtxEventAttributes_t, message, message);
}
END_TEST

START_TEST(constants) {
    ck_assert_int_eq(REC_NVTX_COLOR_ARGB, NVTX_COLOR_ARGB);
    ck_assert_int_eq(REC_NVTX_MESSAGE_ASCII, NVTX_MESSAGE_TYPE_ASCII);
    ck_assert_int_eq(REC_NVTX_MESSAGE_UNICODE, NVTX_MESSAGE_TYPE_UNICODE);
    ck_assert_int_eq(REC_NVTX_MESSAGE_REGISTERED, NVTX_MESSAGE_TYPE_REGISTERED);
    ck_assert_int_eq(REC_NVTX_PAYLOAD_UINT64, NVTX_PAYLOAD_TYPE_UNSIGNED_INT64);
    ck_assert_int_eq(REC_NVTX_PAYLOAD_INT64, NVTX_PAYLOAD_TYPE_INT64);
    ck_assert_int_eq(REC_NVTX_PAYLOAD_DOUBLE, NVTX_PAYLOAD_TYPE_DOUBLE);
    ck_assert_int_eq(REC_NVTX_PAYLOAD_UINT32, NVTX_PAYLOAD_TYPE_UNSIGNED_INT32);
    ck_assert_int_eq(REC_NVTX_PAYLOAD_INT32, NVTX_PAYLOAD_TYPE_INT32);
    ck_assert_int_eq(REC_NVTX_PAYLOAD_FLOAT, NVTX_PAYLOAD_TYPE_FLOAT);
    ck_assert_int_eq(REC_NVTX_ETID_CALLBACKS, NVTX_ETID_CALLBACKS);
    ck_assert_int_eq(REC_NVTX_ETID_VERSIONINFO, NVTX_ETID_VERSIONINFO);
    ck_assert_int_eq(REC_NVTX_MODULE_CORE, NVTX_CB_MODULE_CORE);
    ck_assert_int_eq(REC_NVTX_MODULE_CORE2, NVTX_CB_MODULE_CORE2);
    ck_assert_int_eq(REC_NVTX_MODULE_SYNC, NVTX_CB_MODULE_SYNC);
}
END_TEST

START_TEST(callback_ids) {
    ck_assert_int_eq(REC_NVTX_CORE_MarkEx, NVTX_CBID_CORE_MarkEx);
    ck_assert_int_eq(REC_NVTX_CORE_MarkA, NVTX_CBID_CORE_MarkA);
    ck_assert_int_eq(REC_NVTX_CORE_MarkW, NVTX_CBID_CORE_MarkW);
    ck_assert_int_eq(REC_NVTX_CORE_RangeStartEx, NVTX_CBID_CORE_RangeStartEx);
    ck_assert_int_eq(REC_NVTX_CORE_RangeStartA, NVTX_CBID_CORE_RangeStartA);
    ck_assert_int_eq(REC_NVTX_CORE_RangeStartW, NVTX_CBID_CORE_RangeStartW);
    ck_assert_int_eq(REC_NVTX_CORE_RangeEnd, NVTX_CBID_CORE_RangeEnd);
    ck_assert_int_eq(REC_NVTX_CORE_RangePushEx, NVTX_CBID_CORE_RangePushEx);
    ck_assert_int_eq(REC_NVTX_CORE_RangePushA, NVTX_CBID_CORE_RangePushA);
    ck_assert_int_eq(REC_NVTX_CORE_RangePushW, NVTX_CBID_CORE_RangePushW);
    ck_assert_int_eq(REC_NVTX_CORE_RangePop, NVTX_CBID_CORE_RangePop);
    ck_assert_int_eq(REC_NVTX_CORE_NameCategoryA, NVTX_CBID_CORE_NameCategoryA);
    ck_assert_int_eq(REC_NVTX_CORE_NameCategoryW, NVTX_CBID_CORE_NameCategoryW);
    ck_assert_int_eq(REC_NVTX_CORE_NameOsThreadA, NVTX_CBID_CORE_NameOsThreadA);
    ck_assert_int_eq(REC_NVTX_CORE_NameOsThreadW, NVTX_CBID_CORE_NameOsThreadW);
    ck_assert_int_eq(REC_NVTX_CORE2_DomainMarkEx, NVTX_CBID_CORE2_DomainMarkEx);
    ck_assert_int_eq(REC_NVTX_CORE2_DomainRangeStartEx, NVTX_CBID_CORE2_DomainRangeStartEx);
    ck_assert_int_eq(REC_NVTX_CORE2_DomainRangeEnd, NVTX_CBID_CORE2_DomainRangeEnd);
    ck_assert_int_eq(REC_NVTX_CORE2_DomainRangePushEx, NVTX_CBID_CORE2_DomainRangePushEx);
    ck_assert_int_eq(REC_NVTX_CORE2_DomainRangePop, NVTX_CBID_CORE2_DomainRangePop);
    ck_assert_int_eq(REC_NVTX_CORE2_DomainResourceCreate, NVTX_CBID_CORE2_DomainResourceCreate);
    ck_assert_int_eq(REC_NVTX_CORE2_DomainResourceDestroy, NVTX_CBID_CORE2_DomainResourceDestroy);
    ck_assert_int_eq(REC_NVTX_CORE2_DomainNameCategoryA, NVTX_CBID_CORE2_DomainNameCategoryA);
    ck_assert_int_eq(REC_NVTX_CORE2_DomainNameCategoryW, NVTX_CBID_CORE2_DomainNameCategoryW);
    ck_assert_int_eq(REC_NVTX_CORE2_DomainRegisterStringA, NVTX_CBID_CORE2_DomainRegisterStringA);
    ck_assert_int_eq(REC_NVTX_CORE2_DomainRegisterStringW, NVTX_CBID_CORE2_DomainRegisterStringW);
    ck_assert_int_eq(REC_NVTX_CORE2_DomainCreateA, NVTX_CBID_CORE2_DomainCreateA);
    ck_assert_int_eq(REC_NVTX_CORE2_DomainCreateW, NVTX_CBID_CORE2_DomainCreateW);
    ck_assert_int_eq(REC_NVTX_CORE2_DomainDestroy, NVTX_CBID_CORE2_DomainDestroy);
    ck_assert_int_eq(REC_NVTX_CORE2_Initialize, NVTX_CBID_CORE2_Initialize);
}
END_TEST

START_TEST(extension_modules) {
    ck_assert_uint_eq(sizeof(rec_nvtx_ext_module_info), sizeof(nvtxExtModuleInfo_t));
    ck_assert_uint_eq(offsetof(rec_nvtx_ext_module_info, module_id),
                      offsetof(nvtxExtModuleInfo_t, moduleId));
    ck_assert_uint_eq(offsetof(rec_nvtx_ext_module_info, compat_id),
                      offsetof(nvtxExtModuleInfo_t, compatId));
    ck_assert_uint_eq(offsetof(rec_nvtx_ext_module_info, segments_count),
                      offsetof(nvtxExtModuleInfo_t, segmentsCount));
    ck_assert_uint_eq(offsetof(rec_nvtx_ext_module_info, segments),
                      offsetof(nvtxExtModuleInfo_t, segments));
    ck_assert_uint_eq(sizeof(rec_nvtx_ext_segment), sizeof(nvtxExtModuleSegment_t));
    ck_assert_uint_eq(offsetof(rec_nvtx_ext_segment, slot_count),
                      offsetof(nvtxExtModuleSegment_t, slotCount));
    ck_assert_uint_eq(offsetof(rec_nvtx_ext_segment, function_slots),
                      offsetof(nvtxExtModuleSegment_t, functionSlots));
    ck_assert_int_eq(REC_NVTX_PAYLOAD_MODULE_ID, NVTX_EXT_PAYLOAD_MODULEID);
    ck_assert_int_eq(REC_NVTX_PAYLOAD_COMPAT_ID, NVTX_EXT_PAYLOAD_COMPATID);
    ck_assert_int_eq(REC_NVTX_PAYLOAD_SchemaRegister, NVTX3EXT_CBID_nvtxPayloadSchemaRegister);
    ck_assert_int_eq(REC_NVTX_PAYLOAD_EnumRegister, NVTX3EXT_CBID_nvtxPayloadEnumRegister);
    ck_assert_int_eq(REC_NVTX_PAYLOAD_MarkPayload, NVTX3EXT_CBID_nvtxMarkPayload);
    ck_assert_int_eq(REC_NVTX_PAYLOAD_RangePushPayload, NVTX3EXT_CBID_nvtxRangePushPayload);
    ck_assert_int_eq(REC_NVTX_PAYLOAD_RangePopPayload, NVTX3EXT_CBID_nvtxRangePopPayload);
    ck_assert_int_eq(REC_NVTX_PAYLOAD_RangeStartPayload, NVTX3EXT_CBID_nvtxRangeStartPayload);
    ck_assert_int_eq(REC_NVTX_PAYLOAD_RangeEndPayload, NVTX3EXT_CBID_nvtxRangeEndPayload);
    ck_assert_int_eq(REC_NVTX_PAYLOAD_DomainIsEnabled, NVTX3EXT_CBID_nvtxDomainIsEnabled);
}
END_TEST

/* The sync module: its callbacks and the attributes that name an object. */
START_TEST(sync_module) {
    ck_assert_uint_eq(sizeof(rec_nvtx_sync_attributes), sizeof(nvtxSyncUserAttributes_t));
    ck_assert_uint_eq(sizeof(rec_nvtx_sync_attributes), NVTX_SYNCUSER_ATTRIB_STRUCT_SIZE);
    SAME_FIELD(rec_nvtx_sync_attributes, nvtxSyncUserAttributes_t, version, version);
    SAME_FIELD(rec_nvtx_sync_attributes, nvtxSyncUserAttributes_t, size, size);
    SAME_FIELD(rec_nvtx_sync_attributes, nvtxSyncUserAttributes_t, message_type, messageType);
    SAME_FIELD(rec_nvtx_sync_attributes, nvtxSyncUserAttributes_t, message, message);
    ck_assert_int_eq(REC_NVTX_SYNC_DomainSyncUserCreate, NVTX_CBID_SYNC_DomainSyncUserCreate);
    ck_assert_int_eq(REC_NVTX_SYNC_DomainSyncUserDestroy, NVTX_CBID_SYNC_DomainSyncUserDestroy);
    ck_assert_int_eq(REC_NVTX_SYNC_DomainSyncUserAcquireStart,
                     NVTX_CBID_SYNC_DomainSyncUserAcquireStart);
    ck_assert_int_eq(REC_NVTX_SYNC_DomainSyncUserAcquireFailed,
                     NVTX_CBID_SYNC_DomainSyncUserAcquireFailed);
    ck_assert_int_eq(REC_NVTX_SYNC_DomainSyncUserAcquireSuccess,
                     NVTX_CBID_SYNC_DomainSyncUserAcquireSuccess);
    ck_assert_int_eq(REC_NVTX_SYNC_DomainSyncUserReleasing, NVTX_CBID_SYNC_DomainSyncUserReleasing);
    ck_assert_int_eq(REC_NVTX_CORE2_DomainResourceCreate, NVTX_CBID_CORE2_DomainResourceCreate);
    ck_assert_int_eq(REC_NVTX_CORE2_DomainResourceDestroy, NVTX_CBID_CORE2_DomainResourceDestroy);
}
END_TEST

/* The counters extension's slots; its structs are NVTXW's own, passed to
 * libnvtxw unchanged (checked against NVIDIA's in tests/unit/abi_test.c). */
START_TEST(counters_module) {
    ck_assert_int_eq(REC_NVTX_COUNTERS_MODULE_ID, NVTX_EXT_COUNTERS_MODULEID);
    ck_assert_int_eq(REC_NVTX_COUNTERS_COMPAT_ID, NVTX_EXT_COUNTERS_COMPATID);
    ck_assert_int_eq(REC_NVTX_COUNTERS_CounterRegister, NVTX3EXT_CBID_nvtxCounterRegister);
    ck_assert_int_eq(REC_NVTX_COUNTERS_CounterSampleInt64, NVTX3EXT_CBID_nvtxCounterSampleInt64);
    ck_assert_int_eq(REC_NVTX_COUNTERS_CounterSampleFloat64,
                     NVTX3EXT_CBID_nvtxCounterSampleFloat64);
    ck_assert_int_eq(REC_NVTX_COUNTERS_CounterSample, NVTX3EXT_CBID_nvtxCounterSample);
    ck_assert_int_eq(REC_NVTX_COUNTERS_CounterSampleNoValue,
                     NVTX3EXT_CBID_nvtxCounterSampleNoValue);
    ck_assert_int_eq(REC_NVTX_COUNTERS_CounterBatchSubmit, NVTX3EXT_CBID_nvtxCounterBatchSubmit);
}
END_TEST

START_TEST(export_tables) {
    ck_assert_uint_eq(sizeof(rec_nvtx_export_callbacks), sizeof(NvtxExportTableCallbacks));
    ck_assert_uint_eq(offsetof(rec_nvtx_export_callbacks, get_module_function_table),
                      offsetof(NvtxExportTableCallbacks, GetModuleFunctionTable));
    ck_assert_uint_eq(sizeof(rec_nvtx_export_version), sizeof(NvtxExportTableVersionInfo));
    ck_assert_uint_eq(offsetof(rec_nvtx_export_version, version),
                      offsetof(NvtxExportTableVersionInfo, version));
    ck_assert_uint_eq(offsetof(rec_nvtx_export_version, set_injection_nvtx_version),
                      offsetof(NvtxExportTableVersionInfo, SetInjectionNvtxVersion));
    ck_assert_uint_eq(sizeof(rec_nvtx_table), sizeof(NvtxFunctionTable));
}
END_TEST

int main(void) {
    Suite* s = suite_create("record_abi");
    TCase* tc = tcase_create("nvtx3");
    tcase_add_test(tc, event_attributes);
    tcase_add_test(tc, constants);
    tcase_add_test(tc, callback_ids);
    tcase_add_test(tc, export_tables);
    tcase_add_test(tc, extension_modules);
    tcase_add_test(tc, counters_module);
    tcase_add_test(tc, sync_module);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
