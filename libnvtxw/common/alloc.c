/*
 * common/alloc.c - allocation wrappers with failure injection for tests.
 */
#include "common/alloc.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Remaining successful allocations before injected failures; < 0 = off. */
static _Atomic long alloc_budget = -1;
/* The budget as last set, and the allocations refused since. */
static _Atomic long alloc_budget_set = -1;
static _Atomic long alloc_refusals;

void nvtxw_alloc_fail_after(long count) {
    atomic_store(&alloc_refusals, 0);
    atomic_store(&alloc_budget_set, count);
    atomic_store(&alloc_budget, count);
}

long nvtxw_alloc_granted(void) {
    long budget = atomic_load(&alloc_budget);
    return budget < 0 ? 0 : atomic_load(&alloc_budget_set) - budget;
}

long nvtxw_alloc_refused(void) { return atomic_load(&alloc_refusals); }

/* Returns non-zero when this allocation must fail. */
static int alloc_should_fail(void) {
    long budget = atomic_load_explicit(&alloc_budget, memory_order_relaxed);
    if (budget < 0)
        return 0;
    while (budget > 0) {
        if (atomic_compare_exchange_weak(&alloc_budget, &budget, budget - 1))
            return 0;
        if (budget < 0)
            return 0;
    }
    atomic_fetch_add_explicit(&alloc_refusals, 1, memory_order_relaxed);
    return 1;
}

void* nvtxw_malloc(size_t size) {
    if (alloc_should_fail())
        return NULL;
    return malloc(size ? size : 1);
}

void* nvtxw_calloc(size_t count, size_t size) {
    if (alloc_should_fail())
        return NULL;
    if (count == 0 || size == 0)
        count = size = 1;
    return calloc(count, size);
}

void* nvtxw_realloc(void* ptr, size_t size) {
    if (alloc_should_fail())
        return NULL;
    return realloc(ptr, size ? size : 1);
}

void* nvtxw_reallocarray(void* ptr, size_t count, size_t size) {
    if (size != 0 && count > SIZE_MAX / size)
        return NULL;
    return nvtxw_realloc(ptr, count * size);
}

int nvtxw_grow_array(void** items, size_t* capacity, size_t need, size_t size, size_t first) {
    size_t want = *capacity ? *capacity : (first ? first : 1);
    void* grown;
    if (need <= *capacity)
        return 0;
    while (want < need) {
        if (want > SIZE_MAX / 2)
            return -1;
        want *= 2;
    }
    if ((grown = nvtxw_reallocarray(*items, want, size)) == NULL)
        return -1;
    *items = grown;
    *capacity = want;
    return 0;
}

void nvtxw_free(void* ptr) { free(ptr); }

char* nvtxw_strndup(const char* s, size_t length) {
    char* copy;
    if (s == NULL)
        return NULL;
    if (length == SIZE_MAX)
        return NULL;
    copy = nvtxw_malloc(length + 1);
    if (copy == NULL)
        return NULL;
    memcpy(copy, s, length);
    copy[length] = '\0';
    return copy;
}

char* nvtxw_strdup(const char* s) { return s ? nvtxw_strndup(s, strlen(s)) : NULL; }
