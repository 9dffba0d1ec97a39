/*
 * nvtxw/backend.h - libnvtxw as an NVTXW v2 backend: the two exported entry
 * points NVIDIA's loader looks up. Producers normally reach them through
 * the reference loader (nvtxw/loader.h, NVTXW3_LIBRARY); linking libnvtxw
 * directly and calling nvtxwGetInterface is equivalent.
 *
 * Configuration goes through SessionAttributes.configString (docs/config.md).
 */
#ifndef NVTXW_BACKEND_H
#define NVTXW_BACKEND_H

#include "nvtxw/abi.h"
#include "nvtxw/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Writes the version 2 table to *ifaceOut (NVTXW_EXTENSION_INTERFACE_VERSION:
 * libnvtxw's extension table, nvtxw/extension.h). Other versions return
 * NVTXW_RESULT_INTERFACE_VERSION_NOT_SUPPORTED and leave *ifaceOut alone. */
NVTXW_API nvtxwResultCode_t nvtxwGetInterface(nvtxwInterfaceVersion_t version,
                                              const void** ifaceOut);

/* Frees process-global state once every session has ended; safe to call
 * any number of times. */
NVTXW_API void nvtxwFinalize(void);

#ifdef __cplusplus
}
#endif

#endif /* NVTXW_BACKEND_H */
