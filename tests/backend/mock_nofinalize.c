/*
 * tests/backend/mock_nofinalize.c - libmocknofinalize: exports
 * nvtxwGetInterface but no nvtxwFinalize, so nvtxwUnload must skip the hook.
 * It offers no interface version at all: the loader never calls it, and
 * nvtxwLoadInterface must unload it again and return the backend's code.
 */
#include <stddef.h>

#include "nvtxw/abi.h"

nvtxwResultCode_t nvtxwGetInterface(nvtxwInterfaceVersion_t version, const void** ifaceOut);

nvtxwResultCode_t nvtxwGetInterface(nvtxwInterfaceVersion_t version, const void** ifaceOut) {
    (void)version;
    (void)ifaceOut;
    return NVTXW_RESULT_INTERFACE_VERSION_NOT_SUPPORTED;
}
