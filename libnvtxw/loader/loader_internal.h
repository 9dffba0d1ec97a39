/*
 * loader/loader_internal.h - the reference loader's single-candidate load,
 * for code inside libnvtxw that must load one named library whatever
 * NVTXW3_LIBRARY says (the forwarding sink: the variable chose *this*
 * backend, it must not also choose the one we forward to).
 */
#ifndef NVTXW_LOADER_INTERNAL_H
#define NVTXW_LOADER_INTERNAL_H

#include "nvtxw/loader.h"

/*
 * nvtxwLoad with `path` as the only candidate, ignoring NVTXW3_LIBRARY: same
 * results (LIBRARY_LOAD_FAILED, LIBRARY_SYMBOL_MISSING), same error message,
 * and the dlerror() detail kept for nvtxwGetError. Release with nvtxwUnload.
 */
nvtxwResultCode_t loader_load_path(const char* path, nvtxwGetInterface_t* getInterfaceFuncOut,
                                   nvtxwModuleHandle_t* moduleHandleOut);

#endif /* NVTXW_LOADER_INTERNAL_H */
