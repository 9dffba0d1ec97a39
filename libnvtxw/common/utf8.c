/*
 * common/utf8.c - well-formed UTF-8 (see utf8.h).
 */
#include "config.h"

#include <string.h>

#include "common/alloc.h"
#include "common/utf8.h"

/* Continuation byte? */
static int utf8_tail(unsigned char c) { return (c & 0xC0) == 0x80; }

size_t utf8_sequence_length(const unsigned char* s, size_t available) {
    unsigned char c = s[0];
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        return available >= 2 && utf8_tail(s[1]) ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
        unsigned char low = c == 0xE0 ? 0xA0 : 0x80;  /* no overlong forms */
        unsigned char high = c == 0xED ? 0x9F : 0xBF; /* no surrogates */
        return available >= 3 && s[1] >= low && s[1] <= high && utf8_tail(s[2]) ? 3 : 0;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        unsigned char low = c == 0xF0 ? 0x90 : 0x80;  /* no overlong forms */
        unsigned char high = c == 0xF4 ? 0x8F : 0xBF; /* nothing above U+10FFFF */
        return available >= 4 && s[1] >= low && s[1] <= high && utf8_tail(s[2]) && utf8_tail(s[3])
                   ? 4
                   : 0;
    }
    return 0;
}

size_t utf8_repaired_size(const char* text) {
    const unsigned char* s = (const unsigned char*)text;
    size_t length = strlen(text), i, bad = 0, n;
    for (i = 0; i < length; i += n ? n : 1)
        bad += (n = utf8_sequence_length(s + i, length - i)) == 0;
    return length + 2 * bad + 1;
}

void utf8_repair_into(char* copy, const char* text) {
    const unsigned char* s = (const unsigned char*)text;
    size_t length = strlen(text), i, n;
    char* out;
    for (i = 0, out = copy; i < length; i += n ? n : 1) {
        if ((n = utf8_sequence_length(s + i, length - i)) != 0) {
            memcpy(out, s + i, n);
            out += n;
        } else {
            memcpy(out, "\xEF\xBF\xBD", 3); /* U+FFFD; each bad byte is one */
            out += 3;
        }
    }
    *out = '\0';
}

char* utf8_dup_repaired(const char* text) {
    char* copy = nvtxw_malloc(utf8_repaired_size(text));
    if (copy != NULL)
        utf8_repair_into(copy, text);
    return copy;
}
