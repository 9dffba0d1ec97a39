/*
 * common/strset.c - set of owned strings, hashed by text_hash, linear probing.
 */
#include "common/strset.h"

#include <stdint.h>
#include <string.h>

#include "common/alloc.h"
#include "common/text_hash.h"

static char** strset_find(char** slots, size_t capacity, const char* text) {
    size_t mask = capacity - 1, i = (size_t)text_hash_cstr(text) & mask;
    while (slots[i] != NULL && strcmp(slots[i], text) != 0)
        i = (i + 1) & mask;
    return &slots[i];
}

void strset_free(strset* set) {
    size_t i;
    for (i = 0; i < set->capacity; i++)
        nvtxw_free(set->slots[i]);
    nvtxw_free(set->slots);
    set->slots = NULL;
    set->capacity = set->count = 0;
}

int strset_contains(const strset* set, const char* text) {
    return set->capacity != 0 && *strset_find(set->slots, set->capacity, text) != NULL;
}

static int strset_grow(strset* set) {
    size_t capacity = set->capacity ? set->capacity * 2 : 16, i;
    char** slots = nvtxw_calloc(capacity, sizeof *slots);
    if (slots == NULL)
        return -1;
    for (i = 0; i < set->capacity; i++) {
        if (set->slots[i] != NULL)
            *strset_find(slots, capacity, set->slots[i]) = set->slots[i];
    }
    nvtxw_free(set->slots);
    set->slots = slots;
    set->capacity = capacity;
    return 0;
}

int strset_add(strset* set, const char* text) {
    char* copy;
    if ((set->count + 1) * 2 > set->capacity && strset_grow(set) != 0)
        return -1;
    copy = nvtxw_strdup(text);
    if (copy == NULL)
        return -1;
    *strset_find(set->slots, set->capacity, text) = copy;
    set->count++;
    return 0;
}
