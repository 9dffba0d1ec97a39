/*
 * nvtxw/loader.h - the reference NVTXW backend loader (NVIDIA's
 * nvtxw3_loader.h): nvtxwLoad / nvtxwUnload / nvtxwGetError,
 * implemented in libnvtxw, and the inline config-string parser
 * nvtxwConsumeConfigString.
 *
 * Coexistence contract: everything below that carries an NVIDIA name is
 * wrapped in NVTXW_LOADER_API, the guard macro of NVIDIA's nvtxw3_loader.h.
 * Whichever of the two headers a translation unit includes first defines the
 * loader surface and the other one skips it, so both can be included in
 * either order. The declarations are the same functions either way; ours add
 * only the export attribute (NVTXW_API) that libnvtxw is built with.
 */
#ifndef NVTXW_LOADER_H
#define NVTXW_LOADER_H

#include <stddef.h>

#include "nvtxw/abi.h"
#include "nvtxw/export.h"

#if !defined(NVTXW_LOADER_API)
#define NVTXW_LOADER_API

/* NVIDIA marks its loader declarations with this; kept for source that
 * spells it. Our own declarations use NVTXW_API (which implies extern). */
#define NVTXW_DECLSPEC extern

#if !defined(NVTXW_INLINE_STATIC)
#define NVTXW_INLINE_STATIC static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define NVTXW_LIB_PREFIX ""
#define NVTXW_LIB_SUFFIX ".dll"
#else
#define NVTXW_LIB_PREFIX "lib"
#if defined(__APPLE__)
#define NVTXW_LIB_SUFFIX ".dylib"
#else
#define NVTXW_LIB_SUFFIX ".so"
#endif
#endif

/* File name nvtxwLoad's default search looks for: libnvtxw3.so on Linux. */
#define NVTXW_LIB_FILENAME_DEFAULT NVTXW_LIB_PREFIX "nvtxw3" NVTXW_LIB_SUFFIX

/* When set and non-empty, names the only backend nvtxwLoad tries, taking
 * priority over its `library` argument and the default search. */
#define NVTXW_LIBRARY_ENV_VAR "NVTXW3_LIBRARY"

/* ---- Config strings ----
 *
 * Grammar of nvtxwSessionAttributes_t::configString:
 *   config    = line { separator+ line }
 *   separator = '|' | '\n' | '\r'          (runs collapse: empty lines vanish)
 *   line      = ws* ( '#' any* | key '=' ws* value )   ws = ' ' | '\t' | '\v'
 *   key       = one or more characters other than '=' (trailing ws removed)
 *   value     = one or more characters, '=' allowed   (trailing ws removed)
 * Lines that are empty, comments, lack '=', have an empty key or an empty
 * (all-whitespace) value are skipped. Duplicate keys are all reported;
 * consumers honour only the FIRST occurrence, so callers override a key by
 * prepending and supply a default by appending. */

/* Called once per key/value pair. The pointers delimit ranges inside the
 * config string passed to nvtxwConsumeConfigString (not NUL-terminated;
 * borrowed for the call). Return 0 to continue, non-zero to stop parsing. */
typedef int (*nvtxwKeyValuePairConsumer_t)(void* state, const char* keyBegin, const char* keyEnd,
                                           const char* valBegin, const char* valEnd);

/* Non-zero for the line separators '|', '\n' and '\r'. */
NVTXW_INLINE_STATIC int nvtxw_config_is_separator(char c) {
    return c == '|' || c == '\n' || c == '\r';
}

/* Non-zero for the whitespace of the grammar: space, tab, vertical tab
 * (deliberately not '\f', matching NVIDIA's parser). */
NVTXW_INLINE_STATIC int nvtxw_config_is_space(char c) { return c == ' ' || c == '\t' || c == '\v'; }

/* Returns the first position in [p, end) that is not whitespace, or end. */
NVTXW_INLINE_STATIC const char* nvtxw_config_skip_space(const char* p, const char* end) {
    while (p < end && nvtxw_config_is_space(*p))
        ++p;
    return p;
}

/* Parses one line [line, end) (no separators inside) and hands its pair, if
 * it has one, to the consumer. Returns the consumer's answer, 0 if skipped. */
NVTXW_INLINE_STATIC int nvtxw_config_consume_line(const char* line, const char* end,
                                                  nvtxwKeyValuePairConsumer_t consumer,
                                                  void* state) {
    const char* keyEnd;
    const char* val;
    const char* valEnd = end;

    line = nvtxw_config_skip_space(line, end);
    if (line == end || *line == '#')
        return 0;
    for (keyEnd = line; keyEnd < end && *keyEnd != '='; ++keyEnd) {
    }
    if (keyEnd == end || keyEnd == line)
        return 0;
    val = nvtxw_config_skip_space(keyEnd + 1, end);
    if (val == end)
        return 0;
    /* Both ranges start with a non-space character, so trimming stops in time. */
    while (nvtxw_config_is_space(keyEnd[-1]))
        --keyEnd;
    while (nvtxw_config_is_space(valEnd[-1]))
        --valEnd;
    return consumer(state, line, keyEnd, val, valEnd);
}

/* Parses `config` and calls `consumer(state, ...)` for each key/value pair in
 * order, until the string ends or the consumer returns non-zero. NULL config
 * or NULL consumer: nothing happens. */
NVTXW_INLINE_STATIC void
nvtxwConsumeConfigString(const char* config, nvtxwKeyValuePairConsumer_t consumer, void* state) {
    const char* line = config;

    if (config == NVTX_NULLPTR || consumer == NVTX_NULLPTR)
        return;
    while (*line != '\0') {
        const char* end = line;
        while (*end != '\0' && !nvtxw_config_is_separator(*end))
            ++end;
        if (nvtxw_config_consume_line(line, end, consumer, state) != 0)
            return;
        line = end;
        while (nvtxw_config_is_separator(*line))
            ++line;
    }
}

/* ---- Loading a backend ---- */

/* Platform module handle of a loaded backend (the dlopen handle). */
typedef void* nvtxwModuleHandle_t;

/*
 * Loads a backend library and resolves its "nvtxwGetInterface" symbol. The
 * loader never calls into the backend.
 *
 * Candidates, in priority order; the first rule that applies decides:
 *  1. the NVTXW3_LIBRARY environment variable, when set and non-empty;
 *  2. `library`, when non-NULL (passed verbatim to dlopen);
 *  3. the default search for NVTXW_LIB_FILENAME_DEFAULT: the directory of the
 *     running executable, then the dynamic loader's search path (bare name),
 *     then the current working directory.
 * A library named by 1 or 2 is the only candidate: its failure is returned,
 * never followed by a search elsewhere.
 *
 * `getInterfaceFuncOut` must not be NULL (else NVTXW_RESULT_INVALID_ARGUMENT);
 * `moduleHandleOut` may be NULL (the library then stays loaded until exit).
 * Both are cleared before each attempt and set on success only.
 * Returns NVTXW_RESULT_SUCCESS, INVALID_ARGUMENT, LIBRARY_NOT_FOUND (default
 * search found nothing loadable), LIBRARY_LOAD_FAILED (dlopen failed) or
 * LIBRARY_SYMBOL_MISSING (no nvtxwGetInterface; the library is closed again).
 * The dlerror() text of a failure is kept per thread for nvtxwGetError and
 * nvtxw_last_error(). Not thread-safe with respect to the environment.
 */
NVTXW_API nvtxwResultCode_t nvtxwLoad(const char* library, nvtxwGetInterface_t* getInterfaceFuncOut,
                                      nvtxwModuleHandle_t* moduleHandleOut);

/*
 * Unloads a backend loaded by nvtxwLoad: calls its nvtxwFinalize if it exports
 * one (on every unload, so it must be idempotent), then closes the module.
 * NULL is a no-op. Call only after all sessions, streams and backend calls
 * have finished.
 */
NVTXW_API void nvtxwUnload(nvtxwModuleHandle_t moduleHandle);

/*
 * Writes the message of result code `code` into messageOut (at most
 * messageOutLen bytes including the terminating NUL; longer messages are cut)
 * and returns the length written, excluding the NUL. NULL messageOut or
 * messageOutLen 0: writes nothing, returns 0. For LIBRARY_LOAD_FAILED and
 * LIBRARY_SYMBOL_MISSING the dlerror() text of this thread's last failed
 * nvtxwLoad is appended to "library load failed: " / "library symbol
 * missing: ".
 */
NVTXW_API size_t nvtxwGetError(nvtxwResultCode_t code, char* messageOut, size_t messageOutLen);

#ifdef __cplusplus
}
#endif

#endif /* NVTXW_LOADER_API */

#endif /* NVTXW_LOADER_H */
