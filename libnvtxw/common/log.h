/*
 * common/log.h - the library's diagnostics that are not errors: facts about
 * the data a user may want to know (a push left open and ended by the sink,
 * a timestamp moved into range). Off by default; the environment variable
 * NVTXW_LOG_LEVEL turns it on: `error`, `warning`, `info` or `debug` (or 1
 * to 4; `off` or 0 = none), read once, at the first message. Messages go to
 * standard error as one line each, "nvtxw: LEVEL: TEXT", never to standard
 * output (a tool's data may be there). docs/logging.md has the user's side.
 */
#ifndef NVTXW_COMMON_LOG_H
#define NVTXW_COMMON_LOG_H

enum nvtxw_log_level {
    NVTXW_LOG_OFF = 0,
    NVTXW_LOG_ERROR = 1,
    NVTXW_LOG_WARNING = 2,
    NVTXW_LOG_INFO = 3,
    NVTXW_LOG_DEBUG = 4
};

/* Whether messages of `level` are written: callers skip the work of making
 * one that is not. Any thread. */
int nvtxw_log_enabled(enum nvtxw_log_level level);

/* Writes a message of `level` (without its newline) when enabled. Any
 * thread; one write(2) per message, so concurrent lines do not mix. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void nvtxw_log(enum nvtxw_log_level level, const char* format, ...);

#endif /* NVTXW_COMMON_LOG_H */
