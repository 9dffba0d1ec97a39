/*
 * tests/backend/mock_incomplete.c - libmockincomplete: an NVTXW v2 backend
 * with an incomplete table, as an older or careless backend may ship. Only
 * SessionBegin, SessionEnd, DomainRegister, StreamOpen, StreamClose and
 * EventWrite are set; every other member is NULL (v2 requires them; callers
 * must still not crash). mock_incomplete_calls() counts the calls made.
 */
#include <stddef.h>

#include "nvtxw/abi.h"

#define MOCK_EXPORT __attribute__((visibility("default")))

MOCK_EXPORT nvtxwResultCode_t nvtxwGetInterface(nvtxwInterfaceVersion_t version,
                                                const void** ifaceOut);
MOCK_EXPORT int mock_incomplete_calls(void);

static int calls;
static char handles[16];

static nvtxwResultCode_t inc_SessionBegin(const nvtxwSessionAttributes_t* attr,
                                          nvtxwSessionHandle_t* out) {
    (void)attr;
    calls++;
    *out = (nvtxwSessionHandle_t)&handles[0];
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t inc_SessionEnd(nvtxwSessionHandle_t session) {
    (void)session;
    calls++;
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t inc_DomainRegister(nvtxwSessionHandle_t session,
                                            const nvtxwDomainAttributes_t* attr,
                                            nvtxDomainHandle_t* out) {
    (void)session, (void)attr;
    calls++;
    *out = (nvtxDomainHandle_t)&handles[1];
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t inc_StreamOpen(nvtxwSessionHandle_t session,
                                        const nvtxwStreamAttributes_t* attr,
                                        nvtxwStreamHandle_t* out) {
    (void)session, (void)attr;
    calls++;
    *out = (nvtxwStreamHandle_t)&handles[2];
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t inc_StreamClose(nvtxwStreamHandle_t stream) {
    (void)stream;
    calls++;
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t inc_EventWrite(nvtxwStreamHandle_t stream,
                                        const nvtxPayloadData_t* payloads, size_t count) {
    (void)stream, (void)payloads, (void)count;
    calls++;
    return NVTXW_RESULT_SUCCESS;
}

static const nvtxwInterface_v2_t inc_interface = {
    .SessionBegin = inc_SessionBegin,
    .SessionEnd = inc_SessionEnd,
    .DomainRegister = inc_DomainRegister,
    .StreamOpen = inc_StreamOpen,
    .StreamClose = inc_StreamClose,
    .EventWrite = inc_EventWrite,
};

nvtxwResultCode_t nvtxwGetInterface(nvtxwInterfaceVersion_t version, const void** ifaceOut) {
    if (ifaceOut == NULL)
        return NVTXW_RESULT_INVALID_ARGUMENT;
    if (version != NVTXW_INTERFACE_VERSION)
        return NVTXW_RESULT_INTERFACE_VERSION_NOT_SUPPORTED;
    *ifaceOut = &inc_interface;
    return NVTXW_RESULT_SUCCESS;
}

int mock_incomplete_calls(void) { return calls; }
