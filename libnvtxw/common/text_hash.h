/*
 * common/text_hash.h - the one hash of strings of the library's own tables
 * (string sets, process tables, interning, replay dictionaries): 64-bit
 * FNV-1a. Header-only. Not a checksum and not for hostile keys' sake: the
 * tables probe linearly and compare the strings themselves.
 */
#ifndef NVTXW_COMMON_TEXT_HASH_H
#define NVTXW_COMMON_TEXT_HASH_H

#include <stddef.h>
#include <stdint.h>

#define TEXT_HASH_BASIS UINT64_C(14695981039346656037)
#define TEXT_HASH_PRIME UINT64_C(1099511628211)

/* The hash of `length` bytes at `text`. */
static inline uint64_t text_hash(const char* text, size_t length) {
    uint64_t h = TEXT_HASH_BASIS;
    size_t i;
    for (i = 0; i < length; i++)
        h = (h ^ (unsigned char)text[i]) * TEXT_HASH_PRIME;
    return h;
}

/* The hash of a NUL-terminated string (the same as text_hash of its bytes). */
static inline uint64_t text_hash_cstr(const char* text) {
    uint64_t h = TEXT_HASH_BASIS;
    for (; *text != '\0'; text++)
        h = (h ^ (unsigned char)*text) * TEXT_HASH_PRIME;
    return h;
}

#endif /* NVTXW_COMMON_TEXT_HASH_H */
