/*
 * common/error_internal.h - setting the thread-local error message.
 *
 * Messages follow STYLE rule 10: "cannot <verb> <object>: key=value, ...",
 * including the lower layer's words where there is one.
 */
#ifndef NVTXW_COMMON_ERROR_INTERNAL_H
#define NVTXW_COMMON_ERROR_INTERNAL_H

#include <stdarg.h>

#include "nvtxw/abi.h"

/* Longest message kept; longer ones are cut (with "...") at this length. */
#define NVTXW_ERROR_MAX 1024

#if defined(__GNUC__)
#define NVTXW_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define NVTXW_PRINTF(fmt, args)
#endif

/* Replaces the message; returns `code` so callers can `return error_set(...)`. */
nvtxwResultCode_t error_set(nvtxwResultCode_t code, const char* format, ...) NVTXW_PRINTF(2, 3);
nvtxwResultCode_t error_setv(nvtxwResultCode_t code, const char* format, va_list args);
/* Prepends "prefix: " to the current message (adds context on the way out). */
void error_prefix(const char* format, ...) NVTXW_PRINTF(1, 2);
/* Sets the out-of-memory message for `what` and returns NVTXW_RESULT_FAILED. */
nvtxwResultCode_t error_oom(const char* what);
void error_clear(void);

#endif /* NVTXW_COMMON_ERROR_INTERNAL_H */
