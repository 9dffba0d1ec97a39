/*
 * common/strbuf.c - growable byte buffer.
 */
#include "common/strbuf.h"

#include <stdio.h>
#include <string.h>

#include "common/alloc.h"

void strbuf_free(strbuf* buf) {
    nvtxw_free(buf->data);
    buf->data = NULL;
    buf->length = buf->capacity = 0;
}

void strbuf_clear(strbuf* buf) {
    buf->length = 0;
    if (buf->data != NULL)
        buf->data[0] = '\0';
}

int strbuf_reserve(strbuf* buf, size_t extra) {
    size_t need, capacity;
    char* grown;
    if (extra >= (size_t)-1 - buf->length)
        return -1;
    need = buf->length + extra + 1;
    if (need <= buf->capacity)
        return 0;
    capacity = buf->capacity ? buf->capacity : 256;
    while (capacity < need)
        capacity = capacity > (size_t)-1 / 2 ? need : capacity * 2;
    grown = nvtxw_realloc(buf->data, capacity);
    if (grown == NULL)
        return -1;
    buf->data = grown;
    buf->capacity = capacity;
    return 0;
}

int strbuf_append_slow(strbuf* buf, const char* data, size_t length) {
    if (strbuf_reserve(buf, length) != 0)
        return -1;
    memcpy(buf->data + buf->length, data, length);
    buf->length += length;
    buf->data[buf->length] = '\0';
    return 0;
}

int strbuf_printf(strbuf* buf, const char* format, ...) {
    va_list args;
    int needed;
    va_start(args, format);
    needed = vsnprintf(NULL, 0, format, args);
    va_end(args);
    if (needed < 0 || strbuf_reserve(buf, (size_t)needed) != 0)
        return -1;
    va_start(args, format);
    vsnprintf(buf->data + buf->length, (size_t)needed + 1, format, args);
    va_end(args);
    buf->length += (size_t)needed;
    return 0;
}

int strbuf_append_quoted(strbuf* buf, const char* text) {
    int status = strbuf_append(buf, "\"", 1);
    for (; status == 0 && *text != '\0'; text++) {
        unsigned char c = (unsigned char)*text;
        if (c == '"' || c == '\\')
            status = strbuf_printf(buf, "\\%c", c);
        else if (c == '\n')
            status = strbuf_append(buf, "\\n", 2);
        else if (c == '\r')
            status = strbuf_append(buf, "\\r", 2);
        else if (c == '\t')
            status = strbuf_append(buf, "\\t", 2);
        else if (c < 0x20 || c == 0x7f)
            status = strbuf_printf(buf, "\\x%02x", c);
        else
            status = strbuf_append(buf, (const char*)&c, 1);
    }
    return status == 0 ? strbuf_append(buf, "\"", 1) : status;
}
