/*
 * loader/loader.c - the reference backend loader (spec 5.2, 5.3):
 * nvtxwLoad, nvtxwUnload, nvtxwGetError.
 *
 * Candidate order of nvtxwLoad: NVTXW3_LIBRARY (non-empty) alone, else the
 * explicit `library` alone, else <exe dir>/libnvtxw3.so, bare libnvtxw3.so,
 * <cwd>/libnvtxw3.so. One candidate is loaded with dlopen(RTLD_LAZY) and must
 * export nvtxwGetInterface.
 *
 * The dlerror() text is read once, at failure time, into thread-local
 * storage: dlerror() is consumed by its first reader and may be changed by
 * any later dl call, so reading it lazily in nvtxwGetError (as NVIDIA's
 * loader does) would lose or misattribute it.
 */
#define _POSIX_C_SOURCE 200809L /* readlink, getcwd, dlopen */
#include "config.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/error_internal.h"
#include "loader/loader_internal.h"
#include "nvtxw/loader.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

/* Longest dlerror() text kept for nvtxwGetError; longer text is cut. */
#define LOADER_DETAIL_MAX 1024

/* Room for "<directory>/" NVTXW_LIB_FILENAME_DEFAULT. */
#define LOADER_PATH_MAX (PATH_MAX + sizeof "/" NVTXW_LIB_FILENAME_DEFAULT)

static _Thread_local char loader_detail[LOADER_DETAIL_MAX];

/* Keeps the current dlerror() text (or `fallback`) as this thread's detail. */
static void loader_capture_detail(const char* fallback) {
    const char* text = dlerror();
    snprintf(loader_detail, sizeof loader_detail, "%s", text != NULL ? text : fallback);
}

/* Loads one candidate. Outputs are cleared first and set on success only. */
static nvtxwResultCode_t loader_try(const char* path, nvtxwGetInterface_t* funcOut,
                                    nvtxwModuleHandle_t* moduleOut) {
    void* module;
    void* symbol;

    *funcOut = NULL;
    if (moduleOut != NULL)
        *moduleOut = NULL;
    module = dlopen(path, RTLD_LAZY);
    if (module == NULL) {
        loader_capture_detail("dlopen failed");
        return error_set(NVTXW_RESULT_LIBRARY_LOAD_FAILED,
                         "cannot load backend library: path=\"%s\": %s", path, loader_detail);
    }
    dlerror(); /* clear stale text so a NULL symbol is told apart from an error */
    symbol = dlsym(module, NVTXW_GET_INTERFACE_SYMBOL_NAME);
    if (symbol == NULL) {
        loader_capture_detail("symbol not found");
        dlclose(module);
        return error_set(NVTXW_RESULT_LIBRARY_SYMBOL_MISSING,
                         "cannot load backend library: path=\"%s\", symbol=%s: %s", path,
                         NVTXW_GET_INTERFACE_SYMBOL_NAME, loader_detail);
    }
    /* POSIX guarantees data and function pointers convert through dlsym. */
    memcpy(funcOut, &symbol, sizeof *funcOut);
    if (moduleOut != NULL)
        *moduleOut = module;
    return NVTXW_RESULT_SUCCESS;
}

/* Writes "<dir>/" NVTXW_LIB_FILENAME_DEFAULT into out (LOADER_PATH_MAX
 * bytes); dir_length <= PATH_MAX. */
static void loader_join(char* out, const char* dir, size_t dir_length) {
    memcpy(out, dir, dir_length);
    memcpy(out + dir_length, "/" NVTXW_LIB_FILENAME_DEFAULT, sizeof "/" NVTXW_LIB_FILENAME_DEFAULT);
}

/* Candidate a: <directory of the running executable>/libnvtxw3.so, or the
 * bare name when the executable's path cannot be determined. */
static void loader_exe_dir_candidate(char* out) {
#if defined(__linux__)
    char exe[PATH_MAX];
    ssize_t length = readlink("/proc/self/exe", exe, sizeof exe);
    const char* slash;

    if (length > 0 && (size_t)length < sizeof exe) {
        exe[length] = '\0';
        slash = strrchr(exe, '/');
        if (slash != NULL) {
            loader_join(out, exe, (size_t)(slash - exe));
            return;
        }
    }
#endif
    memcpy(out, NVTXW_LIB_FILENAME_DEFAULT, sizeof NVTXW_LIB_FILENAME_DEFAULT);
}

/* Candidate c: <current working directory>/libnvtxw3.so. Returns -1 when the
 * working directory cannot be determined (the candidate is then skipped). */
static int loader_cwd_candidate(char* out) {
    char cwd[PATH_MAX];

    if (getcwd(cwd, sizeof cwd) == NULL)
        return -1;
    loader_join(out, cwd, strlen(cwd));
    return 0;
}

/* Default search (spec 5.2 step 4): the first loadable candidate wins; the
 * per-candidate failures are discarded in favour of LIBRARY_NOT_FOUND. */
static nvtxwResultCode_t loader_search(nvtxwGetInterface_t* funcOut,
                                       nvtxwModuleHandle_t* moduleOut) {
    char path[LOADER_PATH_MAX];

    loader_exe_dir_candidate(path);
    if (loader_try(path, funcOut, moduleOut) == NVTXW_RESULT_SUCCESS)
        return NVTXW_RESULT_SUCCESS;
    if (loader_try(NVTXW_LIB_FILENAME_DEFAULT, funcOut, moduleOut) == NVTXW_RESULT_SUCCESS)
        return NVTXW_RESULT_SUCCESS;
    if (loader_cwd_candidate(path) == 0 &&
        loader_try(path, funcOut, moduleOut) == NVTXW_RESULT_SUCCESS)
        return NVTXW_RESULT_SUCCESS;
    loader_detail[0] = '\0';
    return error_set(NVTXW_RESULT_LIBRARY_NOT_FOUND,
                     "cannot find backend library: name=%s, searched=executable directory, "
                     "library search path, working directory",
                     NVTXW_LIB_FILENAME_DEFAULT);
}

nvtxwResultCode_t nvtxwLoad(const char* library, nvtxwGetInterface_t* getInterfaceFuncOut,
                            nvtxwModuleHandle_t* moduleHandleOut) {
    const char* env;
    nvtxwResultCode_t result;

    if (getInterfaceFuncOut == NULL)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot load backend library: getInterfaceFuncOut=NULL");
    loader_detail[0] = '\0';
    env = getenv(NVTXW_LIBRARY_ENV_VAR);
    if (env != NULL && env[0] != '\0')
        result = loader_try(env, getInterfaceFuncOut, moduleHandleOut);
    else if (library != NULL)
        result = loader_try(library, getInterfaceFuncOut, moduleHandleOut);
    else
        result = loader_search(getInterfaceFuncOut, moduleHandleOut);
    if (result == NVTXW_RESULT_SUCCESS)
        loader_detail[0] = '\0'; /* failures of earlier search candidates */
    /* Defensive (spec 5.2 step 7): loader_try never succeeds with NULL. */
    if (result == NVTXW_RESULT_SUCCESS && *getInterfaceFuncOut == NULL)
        result = error_set(NVTXW_RESULT_FAILED, "cannot load backend library: "
                                                "nvtxwGetInterface resolved to NULL");
    return result;
}

nvtxwResultCode_t loader_load_path(const char* path, nvtxwGetInterface_t* getInterfaceFuncOut,
                                   nvtxwModuleHandle_t* moduleHandleOut) {
    loader_detail[0] = '\0';
    return loader_try(path, getInterfaceFuncOut, moduleHandleOut);
}

void nvtxwUnload(nvtxwModuleHandle_t moduleHandle) {
    void* symbol;
    nvtxwFinalize_t finalize;

    if (moduleHandle == NULL)
        return;
    symbol = dlsym(moduleHandle, NVTXW_FINALIZE_SYMBOL_NAME);
    if (symbol != NULL) {
        memcpy(&finalize, &symbol, sizeof finalize);
        finalize();
    }
    dlclose(moduleHandle);
}

/* The fixed part of each result code's message (spec 5.3). */
static const char* loader_message(nvtxwResultCode_t code) {
    switch (code) {
    case NVTXW_RESULT_SUCCESS:
        return "success";
    case NVTXW_RESULT_FAILED:
        return "failed";
    case NVTXW_RESULT_INVALID_ARGUMENT:
        return "invalid argument";
    case NVTXW_RESULT_LIBRARY_NOT_FOUND:
        return "library not found";
    case NVTXW_RESULT_LIBRARY_LOAD_FAILED:
        return "library load failed: ";
    case NVTXW_RESULT_LIBRARY_SYMBOL_MISSING:
        return "library symbol missing: ";
    case NVTXW_RESULT_INTERFACE_VERSION_NOT_SUPPORTED:
        return "interface ID not supported";
    case NVTXW_RESULT_NOT_SUPPORTED:
        return "operation/feature not supported";
    default:
        return "unknown result code";
    }
}

/* Appends as much of `text` as fits after out[length] (capacity `size`,
 * length < size) and keeps out NUL-terminated. Returns the new length. */
static size_t loader_append(char* out, size_t size, size_t length, const char* text) {
    size_t count = strlen(text);

    if (count > size - 1 - length)
        count = size - 1 - length;
    memcpy(out + length, text, count);
    out[length + count] = '\0';
    return length + count;
}

size_t nvtxwGetError(nvtxwResultCode_t code, char* messageOut, size_t messageOutLen) {
    size_t length;

    if (messageOut == NULL || messageOutLen == 0)
        return 0;
    messageOut[0] = '\0';
    length = loader_append(messageOut, messageOutLen, 0, loader_message(code));
    if (code == NVTXW_RESULT_LIBRARY_LOAD_FAILED || code == NVTXW_RESULT_LIBRARY_SYMBOL_MISSING)
        length = loader_append(messageOut, messageOutLen, length, loader_detail);
    return length;
}
