/*
 * tests/backend/mock_backend.c - libmockbackend: a complete NVTXW v2 backend
 * that records every call (see mock_backend.h) and does nothing else.
 *
 * Handles are addresses inside a static array, distinct per registration;
 * dynamic IDs count up from NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START. Results are
 * NVTXW_RESULT_SUCCESS unless a test set another one with
 * mock_backend_set_result, or the environment variable MOCK_BACKEND_FAIL
 * ("Member" or "Member=CODE", CODE a decimal nvtxwResultCode_t, default
 * NVTXW_RESULT_FAILED) names a member when nvtxwGetInterface is first called:
 * that is how CLI tests make a backend fail mid-session. Not thread-safe:
 * tests call it from one thread at a time, except for the gate
 * (mock_backend_hold): a call of the held member waits in the backend until
 * mock_backend_release, so a test has a call in progress on one thread
 * while it makes others, without depending on timing.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mock_backend.h"

#define MOCK_EXPORT __attribute__((visibility("default")))

MOCK_EXPORT nvtxwResultCode_t nvtxwGetInterface(nvtxwInterfaceVersion_t version,
                                                const void** ifaceOut);
MOCK_EXPORT void nvtxwFinalize(void);
MOCK_EXPORT const mock_log_t* mock_backend_log(void);
MOCK_EXPORT void mock_backend_reset(void);
MOCK_EXPORT int mock_backend_set_result(const char* member, nvtxwResultCode_t result);
MOCK_EXPORT int mock_backend_hold(const char* member);
MOCK_EXPORT void mock_backend_wait_held(void);
MOCK_EXPORT void mock_backend_release(void);

static const char* const mock_members[] = {"SessionBegin",
                                           "SessionEnd",
                                           "DomainRegister",
                                           "CategoryRegister",
                                           "StringRegister",
                                           "ResourceRegister",
                                           "ScopeRegister",
                                           "SchemaRegister",
                                           "EnumRegister",
                                           "CounterRegister",
                                           "TimeDomainRegister",
                                           "StreamOpen",
                                           "StreamClose",
                                           "EventWrite",
                                           "EventBatchWrite",
                                           "CounterWrite",
                                           "CounterNoValueWrite",
                                           "CounterBatchWrite",
                                           "TimeSyncPointWrite",
                                           "TimeSyncPointTableWrite",
                                           "TimestampConversionFactorWrite"};
#define MOCK_MEMBER_COUNT (sizeof mock_members / sizeof mock_members[0])

static mock_log_t mock_log_data;
static mock_call_t mock_overflow; /* target of calls beyond MOCK_MAX_CALLS */
static nvtxwResultCode_t mock_results[MOCK_MEMBER_COUNT];
static char mock_handles[4096];
static size_t mock_next_handle;
static uint64_t mock_next_id;

/* A fresh, distinct, non-NULL handle address. */
static void* mock_new_handle(void) {
    mock_next_handle = (mock_next_handle + 1) % sizeof mock_handles;
    return &mock_handles[mock_next_handle];
}

static uint64_t mock_new_id(void) { return NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START + mock_next_id++; }

/* Appends a zeroed call record for member number `member`. */
static pthread_mutex_t mock_gate_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t mock_gate_cond = PTHREAD_COND_INITIALIZER;
static long mock_gate_member = -1; /* the member held, or -1 */
static int mock_gate_waiting;      /* calls waiting at the gate */

/* A call of the held member waits here until the gate is released. */
static void mock_gate(size_t member) {
    pthread_mutex_lock(&mock_gate_mutex);
    if ((long)member == mock_gate_member) {
        mock_gate_waiting++;
        pthread_cond_broadcast(&mock_gate_cond);
        while ((long)member == mock_gate_member)
            pthread_cond_wait(&mock_gate_cond, &mock_gate_mutex);
        mock_gate_waiting--;
    }
    pthread_mutex_unlock(&mock_gate_mutex);
}

static mock_call_t* mock_record(size_t member, const void* handle) {
    mock_call_t* call = &mock_overflow;

    mock_gate(member);
    if (mock_log_data.callCount < MOCK_MAX_CALLS)
        call = &mock_log_data.calls[mock_log_data.callCount];
    mock_log_data.callCount++;
    memset(call, 0, sizeof *call);
    snprintf(call->member, sizeof call->member, "%s", mock_members[member]);
    call->handle = handle;
    call->result = mock_results[member];
    return call;
}

static void mock_copy_text(mock_call_t* call, const char* text) {
    call->hasText = text != NULL;
    if (text != NULL)
        snprintf(call->text, sizeof call->text, "%s", text);
}

static void mock_copy_bytes(mock_payload_t* out, uint64_t schemaId, const void* data, size_t size) {
    out->schemaId = schemaId;
    out->size = size;
    out->pointer = data;
    if (data != NULL)
        memcpy(out->bytes, data, size < MOCK_MAX_BYTES ? size : MOCK_MAX_BYTES);
}

static nvtxwResultCode_t mock_SessionBegin(const nvtxwSessionAttributes_t* attr,
                                           nvtxwSessionHandle_t* sessionOut) {
    mock_call_t* call = mock_record(0, NULL);

    call->attrIsNull = attr == NULL;
    call->outIsNull = sessionOut == NULL;
    if (attr != NULL) {
        call->sessionAttr = *attr;
        mock_copy_text(call, attr->name);
    }
    if (sessionOut != NULL && call->result == NVTXW_RESULT_SUCCESS)
        *sessionOut = (nvtxwSessionHandle_t)mock_new_handle();
    return call->result;
}

static nvtxwResultCode_t mock_SessionEnd(nvtxwSessionHandle_t session) {
    return mock_record(1, session)->result;
}

static nvtxwResultCode_t mock_DomainRegister(nvtxwSessionHandle_t session,
                                             const nvtxwDomainAttributes_t* attr,
                                             nvtxDomainHandle_t* domainOut) {
    mock_call_t* call = mock_record(2, session);

    call->attrIsNull = attr == NULL;
    call->outIsNull = domainOut == NULL;
    if (attr != NULL) {
        call->domainAttr = *attr;
        mock_copy_text(call, attr->name);
    }
    if (domainOut != NULL && call->result == NVTXW_RESULT_SUCCESS)
        *domainOut = (nvtxDomainHandle_t)mock_new_handle();
    return call->result;
}

static nvtxwResultCode_t mock_CategoryRegister(nvtxDomainHandle_t domain, uint32_t category,
                                               const char* name) {
    mock_call_t* call = mock_record(3, domain);

    call->u64[0] = category;
    mock_copy_text(call, name);
    return call->result;
}

static nvtxwResultCode_t mock_StringRegister(nvtxDomainHandle_t domain, const char* string,
                                             nvtxStringHandle_t* stringHandleOut) {
    mock_call_t* call = mock_record(4, domain);

    mock_copy_text(call, string);
    call->outIsNull = stringHandleOut == NULL;
    if (stringHandleOut != NULL && call->result == NVTXW_RESULT_SUCCESS)
        *stringHandleOut = (nvtxStringHandle_t)mock_new_handle();
    return call->result;
}

static nvtxwResultCode_t mock_ResourceRegister(nvtxDomainHandle_t domain,
                                               const nvtxResourceAttributes_t* attr) {
    mock_call_t* call = mock_record(5, domain);

    call->attrIsNull = attr == NULL;
    return call->result;
}

/* Writes a fresh dynamic ID to a non-NULL out-parameter on success. */
static void mock_assign_id(mock_call_t* call, uint64_t* idOut) {
    call->outIsNull = idOut == NULL;
    if (idOut != NULL && call->result == NVTXW_RESULT_SUCCESS) {
        call->assignedId = mock_new_id();
        *idOut = call->assignedId;
    }
}

static nvtxwResultCode_t mock_ScopeRegister(nvtxDomainHandle_t domain, const nvtxScopeAttr_t* attr,
                                            uint64_t* scopeIdOut) {
    mock_call_t* call = mock_record(6, domain);

    call->attrIsNull = attr == NULL;
    if (attr != NULL) {
        call->scopeAttr = *attr;
        mock_copy_text(call, attr->path);
    }
    mock_assign_id(call, scopeIdOut);
    return call->result;
}

/* Deep copy of the schema attr's entries and their names. */
static void mock_copy_schema(mock_call_t* call, const nvtxPayloadSchemaAttr_t* attr) {
    size_t i;

    call->schemaAttr = *attr;
    mock_copy_text(call, attr->name);
    for (i = 0; attr->entries != NULL && i < attr->numEntries && i < MOCK_MAX_ENTRIES; ++i) {
        mock_entry_t* out = &call->entries[i];
        out->entry = attr->entries[i];
        out->hasName = attr->entries[i].name != NULL;
        out->hasDescription = attr->entries[i].description != NULL;
        if (out->hasName)
            snprintf(out->name, sizeof out->name, "%s", attr->entries[i].name);
    }
}

static nvtxwResultCode_t mock_SchemaRegister(nvtxDomainHandle_t domain,
                                             const nvtxPayloadSchemaAttr_t* attr,
                                             uint64_t* schemaIdOut) {
    mock_call_t* call = mock_record(7, domain);

    call->attrIsNull = attr == NULL;
    if (attr != NULL)
        mock_copy_schema(call, attr);
    mock_assign_id(call, schemaIdOut);
    return call->result;
}

static nvtxwResultCode_t mock_EnumRegister(nvtxDomainHandle_t domain,
                                           const nvtxPayloadEnumAttr_t* attr, uint64_t* enumIdOut) {
    mock_call_t* call = mock_record(8, domain);

    call->attrIsNull = attr == NULL;
    if (attr != NULL)
        mock_copy_text(call, attr->name);
    mock_assign_id(call, enumIdOut);
    return call->result;
}

static nvtxwResultCode_t mock_CounterRegister(nvtxDomainHandle_t domain,
                                              const nvtxCounterAttr_t* attr,
                                              uint64_t* counterIdOut) {
    mock_call_t* call = mock_record(9, domain);

    call->attrIsNull = attr == NULL;
    if (attr != NULL) {
        call->counterAttr = *attr;
        mock_copy_text(call, attr->name);
    }
    mock_assign_id(call, counterIdOut);
    return call->result;
}

static nvtxwResultCode_t mock_TimeDomainRegister(nvtxDomainHandle_t domain,
                                                 const nvtxTimeDomainAttr_t* attr,
                                                 uint64_t* timeDomainIdOut) {
    mock_call_t* call = mock_record(10, domain);

    call->attrIsNull = attr == NULL;
    if (attr != NULL)
        call->timeDomainAttr = *attr;
    mock_assign_id(call, timeDomainIdOut);
    return call->result;
}

static nvtxwResultCode_t mock_StreamOpen(nvtxwSessionHandle_t session,
                                         const nvtxwStreamAttributes_t* attr,
                                         nvtxwStreamHandle_t* streamOut) {
    mock_call_t* call = mock_record(11, session);

    call->attrIsNull = attr == NULL;
    call->outIsNull = streamOut == NULL;
    if (attr != NULL) {
        call->streamAttr = *attr;
        mock_copy_text(call, attr->name);
    }
    if (streamOut != NULL && call->result == NVTXW_RESULT_SUCCESS)
        *streamOut = (nvtxwStreamHandle_t)mock_new_handle();
    return call->result;
}

static nvtxwResultCode_t mock_StreamClose(nvtxwStreamHandle_t stream) {
    return mock_record(12, stream)->result;
}

static nvtxwResultCode_t mock_EventWrite(nvtxwStreamHandle_t stream,
                                         const nvtxPayloadData_t* payloads, size_t payloadCount) {
    mock_call_t* call = mock_record(13, stream);
    size_t i;

    call->payloadCount = payloadCount;
    for (i = 0; payloads != NULL && i < payloadCount && i < MOCK_MAX_PAYLOADS; ++i)
        mock_copy_bytes(&call->payloads[i], payloads[i].schemaId, payloads[i].payload,
                        payloads[i].size);
    return call->result;
}

static nvtxwResultCode_t mock_EventBatchWrite(nvtxwStreamHandle_t stream,
                                              const nvtxEventBatch_t* eventBatch) {
    mock_call_t* call = mock_record(14, stream);

    call->attrIsNull = eventBatch == NULL;
    if (eventBatch != NULL)
        mock_copy_bytes(&call->payloads[0], eventBatch->eventSchemaId, eventBatch->events,
                        eventBatch->size);
    return call->result;
}

static nvtxwResultCode_t mock_CounterWrite(nvtxwStreamHandle_t stream, int64_t timestamp,
                                           uint64_t counterId, const void* data, size_t size) {
    mock_call_t* call = mock_record(15, stream);

    call->i64[0] = timestamp;
    call->u64[0] = counterId;
    call->payloadCount = 1;
    mock_copy_bytes(&call->payloads[0], counterId, data, size);
    return call->result;
}

static nvtxwResultCode_t mock_CounterNoValueWrite(nvtxwStreamHandle_t stream, int64_t timestamp,
                                                  uint64_t counterId, uint8_t reason) {
    mock_call_t* call = mock_record(16, stream);

    call->i64[0] = timestamp;
    call->u64[0] = counterId;
    call->u64[1] = reason;
    return call->result;
}

static nvtxwResultCode_t mock_CounterBatchWrite(nvtxwStreamHandle_t stream,
                                                const nvtxCounterBatch_t* counterBatch) {
    mock_call_t* call = mock_record(17, stream);

    call->attrIsNull = counterBatch == NULL;
    if (counterBatch != NULL) {
        call->u64[0] = counterBatch->counterId;
        mock_copy_bytes(&call->payloads[0], counterBatch->counterId, counterBatch->counters,
                        counterBatch->countersSize);
    }
    return call->result;
}

static nvtxwResultCode_t mock_TimeSyncPointWrite(nvtxwStreamHandle_t stream, uint64_t timeDomainId1,
                                                 uint64_t timeDomainId2, int64_t timestamp1,
                                                 int64_t timestamp2) {
    mock_call_t* call = mock_record(18, stream);

    call->u64[0] = timeDomainId1;
    call->u64[1] = timeDomainId2;
    call->i64[0] = timestamp1;
    call->i64[1] = timestamp2;
    return call->result;
}

static nvtxwResultCode_t mock_TimeSyncPointTableWrite(nvtxwStreamHandle_t stream,
                                                      uint64_t timeDomainIdSrc,
                                                      uint64_t timeDomainIdDst,
                                                      const nvtxSyncPoint_t* syncPoints,
                                                      size_t count) {
    mock_call_t* call = mock_record(19, stream);

    call->u64[0] = timeDomainIdSrc;
    call->u64[1] = timeDomainIdDst;
    call->u64[2] = count;
    mock_copy_bytes(&call->payloads[0], 0, syncPoints,
                    syncPoints != NULL ? count * sizeof *syncPoints : 0);
    return call->result;
}

static nvtxwResultCode_t mock_TimestampConversionFactorWrite(nvtxwStreamHandle_t stream,
                                                             uint64_t timeDomainIdSrc,
                                                             uint64_t timeDomainIdDst, double slope,
                                                             int64_t timestampSrc,
                                                             int64_t timestampDst) {
    mock_call_t* call = mock_record(20, stream);

    call->u64[0] = timeDomainIdSrc;
    call->u64[1] = timeDomainIdDst;
    call->f64 = slope;
    call->i64[0] = timestampSrc;
    call->i64[1] = timestampDst;
    return call->result;
}

/* All 21 members set; the reserved slots are zero-initialized (NULL). */
static const nvtxwInterface_v2_t mock_interface = {mock_SessionBegin,
                                                   mock_SessionEnd,
                                                   mock_DomainRegister,
                                                   mock_CategoryRegister,
                                                   mock_StringRegister,
                                                   mock_ResourceRegister,
                                                   mock_ScopeRegister,
                                                   mock_SchemaRegister,
                                                   mock_EnumRegister,
                                                   mock_CounterRegister,
                                                   mock_TimeDomainRegister,
                                                   mock_StreamOpen,
                                                   mock_StreamClose,
                                                   mock_EventWrite,
                                                   mock_EventBatchWrite,
                                                   mock_CounterWrite,
                                                   mock_CounterNoValueWrite,
                                                   mock_CounterBatchWrite,
                                                   mock_TimeSyncPointWrite,
                                                   mock_TimeSyncPointTableWrite,
                                                   mock_TimestampConversionFactorWrite,
                                                   {NULL}};

/* Applies MOCK_BACKEND_FAIL ("Member" or "Member=CODE"), once per load. */
static void mock_fail_from_environment(void) {
    static int done;
    const char* spec = getenv("MOCK_BACKEND_FAIL");
    char member[40];
    const char* equals;
    size_t length;

    if (done || spec == NULL)
        return;
    done = 1;
    equals = strchr(spec, '=');
    length = equals != NULL ? (size_t)(equals - spec) : strlen(spec);
    if (length >= sizeof member)
        return;
    memcpy(member, spec, length);
    member[length] = '\0';
    mock_backend_set_result(member, equals != NULL ? (nvtxwResultCode_t)atoi(equals + 1)
                                                   : NVTXW_RESULT_FAILED);
}

/* Version 2 only; any other version leaves *ifaceOut untouched (spec 1.1). */
nvtxwResultCode_t nvtxwGetInterface(nvtxwInterfaceVersion_t version, const void** ifaceOut) {
    mock_log_data.getInterfaceCount++;
    mock_fail_from_environment();
    if (ifaceOut == NULL)
        return NVTXW_RESULT_INVALID_ARGUMENT;
    if (version != NVTXW_INTERFACE_VERSION)
        return NVTXW_RESULT_INTERFACE_VERSION_NOT_SUPPORTED;
    *ifaceOut = &mock_interface;
    return NVTXW_RESULT_SUCCESS;
}

void nvtxwFinalize(void) { mock_log_data.finalizeCount++; }

const mock_log_t* mock_backend_log(void) { return &mock_log_data; }

void mock_backend_reset(void) {
    memset(&mock_log_data, 0, sizeof mock_log_data);
    memset(mock_results, 0, sizeof mock_results);
    mock_next_handle = 0;
    mock_next_id = 0;
}

int mock_backend_set_result(const char* member, nvtxwResultCode_t result) {
    size_t i;

    for (i = 0; i < MOCK_MEMBER_COUNT; ++i) {
        if (strcmp(member, mock_members[i]) == 0) {
            mock_results[i] = result;
            return 0;
        }
    }
    return -1;
}

int mock_backend_hold(const char* member) {
    size_t i;

    for (i = 0; i < MOCK_MEMBER_COUNT; ++i) {
        if (strcmp(member, mock_members[i]) == 0) {
            pthread_mutex_lock(&mock_gate_mutex);
            mock_gate_member = (long)i;
            pthread_mutex_unlock(&mock_gate_mutex);
            return 0;
        }
    }
    return -1;
}

void mock_backend_wait_held(void) {
    pthread_mutex_lock(&mock_gate_mutex);
    while (mock_gate_waiting == 0)
        pthread_cond_wait(&mock_gate_cond, &mock_gate_mutex);
    pthread_mutex_unlock(&mock_gate_mutex);
}

void mock_backend_release(void) {
    pthread_mutex_lock(&mock_gate_mutex);
    mock_gate_member = -1;
    pthread_cond_broadcast(&mock_gate_cond);
    pthread_mutex_unlock(&mock_gate_mutex);
}
