/*
 * common/utf8.h - well-formed UTF-8 (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF), the one definition every sink and
 * the core use.
 */
#ifndef NVTXW_COMMON_UTF8_H
#define NVTXW_COMMON_UTF8_H

#include <stddef.h>

/* Length (1-4) of the well-formed sequence starting at s, of which
 * `available` bytes may be read (at least 1), or 0 if none starts there. */
size_t utf8_sequence_length(const unsigned char* s, size_t available);

/* A copy of the NUL-terminated `text` in which every byte that starts no
 * well-formed sequence is replaced by U+FFFD (the encoder's and every
 * sink's rule for text that is not UTF-8). Caller frees (nvtxw_free); NULL
 * when out of memory. */
char* utf8_dup_repaired(const char* text);

/* The same in two steps, for a copy that lives inside a larger block: the
 * bytes the repaired copy takes (its NUL included), then the copy written
 * to `out`, which has that many. */
size_t utf8_repaired_size(const char* text);
void utf8_repair_into(char* out, const char* text);

#endif /* NVTXW_COMMON_UTF8_H */
