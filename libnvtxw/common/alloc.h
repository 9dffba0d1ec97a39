/*
 * common/alloc.h - the one allocator path of libnvtxw (STYLE rule 12).
 *
 * Every allocation in the library goes through these wrappers so that tests
 * can make the Nth allocation fail (nvtxw_alloc_fail_after) and walk every
 * error path. They behave like their libc namesakes; nvtxw_free(NULL) is a
 * no-op. Overflow-checked helpers return NULL instead of wrapping.
 */
#ifndef NVTXW_COMMON_ALLOC_H
#define NVTXW_COMMON_ALLOC_H

#include <stddef.h>

#include "nvtxw/export.h"

void* nvtxw_malloc(size_t size);
void* nvtxw_calloc(size_t count, size_t size);
void* nvtxw_realloc(void* ptr, size_t size);
/* realloc to count*size bytes; NULL (ptr untouched) on overflow or failure. */
void* nvtxw_reallocarray(void* ptr, size_t count, size_t size);
void nvtxw_free(void* ptr);
/* Copies a NUL-terminated string; NULL in, NULL out (no error). */
char* nvtxw_strdup(const char* s);
char* nvtxw_strndup(const char* s, size_t length);

/*
 * Test hook: after `count` more successful allocations, every allocation
 * fails until the hook is reset with a negative count (the default).
 * Process-wide; not meant for concurrent use. Exported for the test suite
 * only; not declared in a public header.
 */
NVTXW_API void nvtxw_alloc_fail_after(long count);

#endif /* NVTXW_COMMON_ALLOC_H */
