/*
 * nvtxw/nvtxw.h - umbrella header of libnvtxw.
 */
#ifndef NVTXW_NVTXW_H
#define NVTXW_NVTXW_H

#include "nvtxw/abi.h"
#include "nvtxw/backend.h"
#include "nvtxw/error.h"
#include "nvtxw/export.h"
#include "nvtxw/extension.h"
#include "nvtxw/format.h"
#include "nvtxw/helper_types.h"
#include "nvtxw/helpers.h"
#include "nvtxw/loader.h"
#include "nvtxw/nvtx_types.h"
#include "nvtxw/payload.h"
#include "nvtxw/reader.h"
#include "nvtxw/resource.h"
#include "nvtxw/schema_yaml.h"
#include "nvtxw/share.h"
#include "nvtxw/tasks.h"

#endif /* NVTXW_NVTXW_H */
