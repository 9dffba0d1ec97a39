/*
 * tests/unit/reader_test_shim.c - the error_* internals that the container
 * sources linked into reader_test call. The library's own copies are hidden;
 * linking common/error.c instead would also define nvtxw_last_error in the
 * test program and could interpose the library's. Messages go to a local
 * buffer, reachable as reader_test_error().
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/error_internal.h"

static char message[NVTXW_ERROR_MAX];

const char* reader_test_error(void);
const char* reader_test_error(void) { return message; }

nvtxwResultCode_t error_setv(nvtxwResultCode_t code, const char* format, va_list args) {
    vsnprintf(message, sizeof message, format, args);
    return code;
}

nvtxwResultCode_t error_set(nvtxwResultCode_t code, const char* format, ...) {
    va_list args;
    va_start(args, format);
    error_setv(code, format, args);
    va_end(args);
    return code;
}

void error_prefix(const char* format, ...) { (void)format; }

nvtxwResultCode_t error_oom(const char* what) {
    return error_set(NVTXW_RESULT_FAILED, "cannot allocate memory for %s", what);
}

void error_clear(void) { message[0] = '\0'; }
