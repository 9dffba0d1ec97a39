/*
 * common/log.c - NVTXW_LOG_LEVEL and the messages it enables (common/log.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "config.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "common/log.h"

static const char* const level_names[] = {"off", "error", "warning", "info", "debug"};
static enum nvtxw_log_level log_level = NVTXW_LOG_OFF;
static pthread_once_t log_once = PTHREAD_ONCE_INIT;

static void log_write(const char* line, size_t length) {
    while (length > 0) {
        ssize_t n = write(STDERR_FILENO, line, length);
        if (n <= 0)
            return; /* nowhere else to say it */
        line += n;
        length -= (size_t)n;
    }
}

/* NVTXW_LOG_LEVEL: a level's name (any case) or number; anything else is
 * said once and logs nothing. */
static void log_read_level(void) {
    const char* text = getenv("NVTXW_LOG_LEVEL");
    char line[256];
    size_t i;
    if (text == NULL || text[0] == '\0')
        return;
    for (i = 0; i < sizeof level_names / sizeof level_names[0]; i++) {
        if (strcasecmp(text, level_names[i]) == 0 || (text[0] == (char)('0' + i) && !text[1])) {
            log_level = (enum nvtxw_log_level)i;
            return;
        }
    }
    if (strcasecmp(text, "warn") == 0) {
        log_level = NVTXW_LOG_WARNING;
        return;
    }
    snprintf(line, sizeof line,
             "nvtxw: NVTXW_LOG_LEVEL=%.64s is not a level (off, error, warning, info, debug or 0 "
             "to 4): nothing is logged\n",
             text);
    log_write(line, strlen(line));
}

int nvtxw_log_enabled(enum nvtxw_log_level level) {
    pthread_once(&log_once, log_read_level);
    return level != NVTXW_LOG_OFF && level <= log_level;
}

void nvtxw_log(enum nvtxw_log_level level, const char* format, ...) {
    char line[1024];
    va_list args;
    int head, body;
    if (!nvtxw_log_enabled(level))
        return;
    head = snprintf(line, sizeof line, "nvtxw: %s: ", level_names[level]);
    va_start(args, format);
    body = vsnprintf(line + head, sizeof line - (size_t)head - 1, format, args);
    va_end(args);
    if (body < 0)
        body = 0;
    if ((size_t)(head + body) > sizeof line - 2) /* cut: keep the line whole */
        body = (int)(sizeof line - 2) - head;
    line[head + body] = '\n';
    log_write(line, (size_t)(head + body + 1));
}
