/*
 * nvtxw/error.h - the last error message of the calling thread.
 */
#ifndef NVTXW_ERROR_H
#define NVTXW_ERROR_H

#include "nvtxw/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Message of the most recent failed nvtxw call on this thread, in the form
 * "cannot <verb> <object>: details". "" when none failed yet. Borrowed: valid
 * until the next failing call on this thread. */
NVTXW_API const char* nvtxw_last_error(void);

/* Library version as "MAJOR.MINOR.PATCH". */
NVTXW_API const char* nvtxw_version(void);

/* For the helpers of nvtxw/helpers.h, which refuse bad arguments before
 * any backend call: sets this thread's message to "cannot call HELPER:
 * CONDITION" (the refused condition, as the helper states it). Producers
 * need not call it. */
NVTXW_API void nvtxw_helper_refused(const char* helper, const char* condition);

#ifdef __cplusplus
}
#endif

#endif /* NVTXW_ERROR_H */
