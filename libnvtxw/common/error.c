/*
 * common/error.c - thread-local last-error message (nvtxw_last_error).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "common/error_internal.h"
#include "nvtxw/error.h"

static _Thread_local char error_message[NVTXW_ERROR_MAX];

/* Marks a cut message with a trailing "..." so the cut is visible. */
static void error_mark_truncated(int written) {
    if (written >= NVTXW_ERROR_MAX)
        memcpy(error_message + NVTXW_ERROR_MAX - 4, "...", 4);
}

nvtxwResultCode_t error_setv(nvtxwResultCode_t code, const char* format, va_list args) {
    int written = vsnprintf(error_message, sizeof error_message, format, args);
    error_mark_truncated(written);
    return code;
}

nvtxwResultCode_t error_set(nvtxwResultCode_t code, const char* format, ...) {
    va_list args;
    va_start(args, format);
    error_setv(code, format, args);
    va_end(args);
    return code;
}

void error_prefix(const char* format, ...) {
    char previous[NVTXW_ERROR_MAX];
    char prefix[NVTXW_ERROR_MAX];
    va_list args;
    int written;

    memcpy(previous, error_message, sizeof previous);
    va_start(args, format);
    vsnprintf(prefix, sizeof prefix, format, args);
    va_end(args);
    written = snprintf(error_message, sizeof error_message, "%s: %s", prefix, previous);
    error_mark_truncated(written);
}

nvtxwResultCode_t error_oom(const char* what) {
    return error_set(NVTXW_RESULT_FAILED, "cannot allocate memory for %s", what);
}

void error_clear(void) { error_message[0] = '\0'; }

const char* nvtxw_last_error(void) { return error_message; }

const char* nvtxw_version(void) { return PACKAGE_VERSION; }

void nvtxw_helper_refused(const char* helper, const char* condition) {
    error_set(NVTXW_RESULT_INVALID_ARGUMENT, "cannot call %s: %s", helper ? helper : "a helper",
              condition ? condition : "an argument was refused");
}
