/*
 * common/strbuf.h - a growable byte buffer for building output lines.
 * A zeroed strbuf is empty and valid; contents are always NUL-terminated.
 * Functions return 0, or -1 when out of memory (the buffer keeps its data).
 */
#ifndef NVTXW_COMMON_STRBUF_H
#define NVTXW_COMMON_STRBUF_H

#include <stdarg.h>
#include <stddef.h>
#include <string.h>

typedef struct strbuf {
    char* data;
    size_t length;
    size_t capacity;
} strbuf;

void strbuf_free(strbuf* buf);
/* Makes room for `extra` more bytes (plus the terminator). */
int strbuf_reserve(strbuf* buf, size_t extra);
void strbuf_clear(strbuf* buf);
int strbuf_append_slow(strbuf* buf, const char* data, size_t length);

/* Appends bytes; inline when they fit, which is the common case on the
 * report sink's write path. */
static inline int strbuf_append(strbuf* buf, const char* data, size_t length) {
    if (length < buf->capacity - buf->length) {
        if (length > 0) /* data may be NULL when length is 0 */
            memcpy(buf->data + buf->length, data, length);
        buf->length += length;
        buf->data[buf->length] = '\0';
        return 0;
    }
    return strbuf_append_slow(buf, data, length);
}
int strbuf_printf(strbuf* buf, const char* format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Appends `text` as a double-quoted string with C escapes for quotes,
 * backslashes and control characters. */
int strbuf_append_quoted(strbuf* buf, const char* text);

#endif /* NVTXW_COMMON_STRBUF_H */
