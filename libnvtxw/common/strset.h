/*
 * common/strset.h - a set of strings (owned copies), open addressing.
 * Not thread-safe; used on lifecycle paths only.
 */
#ifndef NVTXW_COMMON_STRSET_H
#define NVTXW_COMMON_STRSET_H

#include <stddef.h>

typedef struct strset {
    char** slots;    /* NULL = empty */
    size_t capacity; /* 0 or a power of two */
    size_t count;
} strset;

/* A zeroed strset is empty and valid. */
void strset_free(strset* set);
int strset_contains(const strset* set, const char* text);
/* Adds a copy of `text` (not present yet). 0 on success, -1 out of memory. */
int strset_add(strset* set, const char* text);

#endif /* NVTXW_COMMON_STRSET_H */
