/*
 * sink/json/json_shift.c - the second pass that keeps every "ts" of the
 * JSON output non-negative (Perfetto rejects negative timestamps).
 *
 * Events are rebased to the first timestamp the sink sees, which is the
 * session's smallest in the common case (producers write in time order).
 * Streams record the smallest rebased value they wrote; when it is negative
 * at SessionEnd, the file is copied line by line with `shift` = -min added
 * to the one "ts" of each event line, so the smallest timestamp becomes 0.
 * Memory is two blocks of SHIFT_BLOCK bytes (more only for a line longer
 * than a block: it is held whole). The file is read and written with
 * read(2) and write(2) in those blocks: the pass is a copy that touches
 * one number per line, so the C library's line and stream layers (a
 * getline, a strstr and an fwrite per event) cost more than the copy.
 * Lines are found by the grammar of json_sink.c: an event line's "ts" is
 * the first `","ts":` in it, since a quote inside a JSON string is always
 * escaped and cannot form `","`.
 */
#define _GNU_SOURCE /* memmem */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "common/log.h"
#include "common/output_file.h"
#include "sink/json/json_internal.h"

/* Bytes read, and written, at a time. */
#define SHIFT_BLOCK (1u << 20)

/* Parses MICROS at *s (grammar in json_sink.c) into nanoseconds and
 * advances *s past it; 0 on success. `end` bounds the text. */
static int parse_micros(const char** s, const char* end, int64_t* ns) {
    const char* p = *s;
    int negative = p < end && *p == '-';
    uint64_t value = 0;
    int decimals = -1;
    for (p += negative; p < end && ((*p >= '0' && *p <= '9') || (*p == '.' && decimals < 0)); p++) {
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

/* Appends one line (its newline included, if any) to `out` with its "ts"
 * shifted. */
static int shift_line(strbuf* out, const char* line, size_t length, int64_t shift,
                      uint64_t* saturated) {
    const char* end = line + length;
    const char* key = memmem(line, length, "\",\"ts\":", 7);
    const char* value;
    int64_t ns;
    if (key == NULL)
        return strbuf_append(out, line, length);
    value = key + 7;
    if (strbuf_append(out, line, (size_t)(value - line)) != 0 ||
        parse_micros(&value, end, &ns) != 0 ||
        json_put_micros(out, json_rebase_counted(ns, -shift, saturated)) != 0)
        return -1;
    return strbuf_append(out, value, (size_t)(end - value));
}

/* Writes `out` to `fd` and empties it. */
static int flush_block(int fd, strbuf* out) {
    if (output_write_all(fd, out->data, out->length) != 0)
        return -1;
    strbuf_clear(out);
    return 0;
}

/* Shifts the whole lines of in[0, in->length) into `out` (written out
 * whenever a block is full) and keeps the tail that has no newline yet;
 * at the end of the file (`last`) that tail is a line too. */
static int shift_lines(strbuf* in, strbuf* out, int fd, int last, int64_t shift,
                       uint64_t* saturated) {
    const char *at = in->data, *end = in->data + in->length;
    while (at < end) {
        const char* nl = memchr(at, '\n', (size_t)(end - at));
        const char* next = nl != NULL ? nl + 1 : last ? end : NULL;
        if (next == NULL)
            break;
        if (shift_line(out, at, (size_t)(next - at), shift, saturated) != 0 ||
            (out->length >= SHIFT_BLOCK && flush_block(fd, out) != 0))
            return -1;
        at = next;
    }
    in->length = (size_t)(end - at);
    memmove(in->data, at, in->length);
    return 0;
}

static nvtxwResultCode_t shift_copy(int in_fd, int out_fd, int64_t shift, uint64_t* saturated) {
    strbuf in = {NULL, 0, 0}, out = {NULL, 0, 0};
    int failed = strbuf_reserve(&in, SHIFT_BLOCK) != 0 || strbuf_reserve(&out, SHIFT_BLOCK) != 0;
    for (;;) {
        ssize_t n;
        /* A line longer than the buffer: grow it to hold the line whole. */
        if (failed || (in.capacity - in.length < 2 && strbuf_reserve(&in, in.capacity) != 0)) {
            failed = 1;
            break;
        }
        n = read(in_fd, in.data + in.length, in.capacity - in.length - 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            failed = 1;
            break;
        }
        in.length += (size_t)n;
        failed = shift_lines(&in, &out, out_fd, n == 0, shift, saturated) != 0;
        if (n == 0)
            break;
    }
    failed = failed || flush_block(out_fd, &out) != 0;
    strbuf_free(&in);
    strbuf_free(&out);
    return failed ? NVTXW_RESULT_FAILED : NVTXW_RESULT_SUCCESS;
}

nvtxwResultCode_t json_shift_file(json_sink* cs, int64_t shift) {
    size_t length = strlen(cs->out.written) + 8;
    char* shifted = nvtxw_malloc(length);
    int in = -1, out = -1;
    nvtxwResultCode_t status = NVTXW_RESULT_FAILED;
    uint64_t saturated = 0;
    if (shifted == NULL)
        return error_oom("the JSON output path");
    snprintf(shifted, length, "%s.shift", cs->out.written);
    errno = 0;
    in = open(cs->out.written, O_RDONLY | O_CLOEXEC);
    out = in >= 0 ? open(shifted, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666) : -1;
    if (out >= 0)
        status = shift_copy(in, out, shift, &saturated);
    if (out >= 0 && close(out) != 0)
        status = NVTXW_RESULT_FAILED;
    if (in >= 0)
        close(in);
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
