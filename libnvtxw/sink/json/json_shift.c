/*
 * sink/json/json_shift.c - the second pass that keeps every "ts" of the
 * JSON output non-negative (Perfetto rejects negative timestamps).
 *
 * Events are rebased to the first timestamp the sink sees, which is the
 * session's smallest in the common case (producers write in time order).
 * Streams record the smallest rebased value they wrote; when it is negative
 * at SessionEnd, the file is copied line by line with `shift` = -min added
 * to the one "ts" of each event line, so the smallest timestamp becomes 0.
 * Memory is one line (one event); lines are found by the grammar of
 * json_sink.c: an event line's "ts" is the first `","ts":` in it, since
 * a quote inside a JSON string is always escaped and cannot form `","`.
 */
#define _POSIX_C_SOURCE 200809L
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "common/log.h"
#include "sink/json/json_internal.h"

/* Parses MICROS at *s (grammar in json_sink.c) into nanoseconds and
 * advances *s past it; 0 on success. */
static int parse_micros(const char** s, int64_t* ns) {
    const char* p = *s;
    int negative = *p == '-';
    uint64_t value = 0;
    int decimals = -1;
    for (p += negative; (*p >= '0' && *p <= '9') || (*p == '.' && decimals < 0); p++) {
        if (*p == '.') {
            decimals = 0;
            continue;
        }
        value = value * 10 + (uint64_t)(*p - '0');
        decimals += decimals >= 0;
    }
    if (decimals != 3)
        return -1;
    *ns = negative ? (int64_t)(0 - value) : (int64_t)value;
    *s = p;
    return 0;
}

/* Rewrites one line into `out` with its "ts" shifted. */
static int shift_line(strbuf* out, const char* line, size_t length, int64_t shift,
                      uint64_t* saturated) {
    const char* key = strstr(line, "\",\"ts\":");
    const char* value;
    int64_t ns;
    if (key == NULL)
        return strbuf_append(out, line, length);
    value = key + 7;
    if (strbuf_append(out, line, (size_t)(value - line)) != 0 || parse_micros(&value, &ns) != 0 ||
        json_put_micros(out, json_rebase_counted(ns, -shift, saturated)) != 0)
        return -1;
    return strbuf_append(out, value, length - (size_t)(value - line));
}

static nvtxwResultCode_t shift_copy(FILE* in, FILE* out, int64_t shift, uint64_t* saturated) {
    char* line = NULL;
    size_t capacity = 0;
    ssize_t length;
    strbuf buf = {0};
    int failed = 0;
    while (!failed && (length = getline(&line, &capacity, in)) >= 0) {
        strbuf_clear(&buf);
        failed = shift_line(&buf, line, (size_t)length, shift, saturated) != 0 ||
                 fwrite(buf.data, 1, buf.length, out) != buf.length;
    }
    failed |= ferror(in) != 0;
    free(line); /* getline's buffer comes from the C library */
    strbuf_free(&buf);
    return failed ? NVTXW_RESULT_FAILED : NVTXW_RESULT_SUCCESS;
}

nvtxwResultCode_t json_shift_file(json_sink* cs, int64_t shift) {
    size_t length = strlen(cs->out.written) + 8;
    char* shifted = nvtxw_malloc(length);
    FILE *in = NULL, *out = NULL;
    nvtxwResultCode_t status = NVTXW_RESULT_FAILED;
    uint64_t saturated = 0;
    if (shifted == NULL)
        return error_oom("the JSON output path");
    snprintf(shifted, length, "%s.shift", cs->out.written);
    in = fopen(cs->out.written, "r");
    out = in ? fopen(shifted, "w") : NULL;
    if (out != NULL)
        status = shift_copy(in, out, shift, &saturated);
    if (out != NULL && fclose(out) != 0)
        status = NVTXW_RESULT_FAILED;
    if (in != NULL)
        fclose(in);
    if (status == NVTXW_RESULT_SUCCESS && rename(shifted, cs->out.written) != 0)
        status = NVTXW_RESULT_FAILED;
    if (status != NVTXW_RESULT_SUCCESS) {
        error_set(status, "cannot shift timestamps of JSON output \"%s\": %s", cs->path,
                  errno ? strerror(errno) : "malformed line");
        remove(shifted);
    }
    if (saturated > 0)
        nvtxw_log(NVTXW_LOG_WARNING,
                  "json sink: %" PRIu64 " time%s beyond 2^63 - 1 ns after the session's smallest "
                  "written as 2^63 - 1 ns (the session spans more than 2^63 ns)",
                  saturated, saturated == 1 ? "" : "s");
    nvtxw_free(shifted);
    return status;
}
