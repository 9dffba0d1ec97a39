/*
 * tools/common/tool_alloc.h - the tools allocate through libnvtxw's allocator
 * (STYLE rule 12: one allocator path).
 *
 * libnvtxw exports its allocation wrappers for its own tools and tests; they
 * are not public API. Because the tools use them, the library's test hook
 * (nvtxw_alloc_fail_after) makes the Nth allocation of a whole tool run fail,
 * the tool's and the library's counted together, and
 * tests/unit/tool_alloc_test.c walks every N. They behave like their libc
 * namesakes: memory from nvtxw_malloc may be given to free() and the other
 * way round, and nvtxw_free(NULL) does nothing. Memory that a third-party
 * library hands out is released the way that library says.
 *
 * These declarations repeat libnvtxw's (common/alloc.h); a test compiles both
 * headers in one translation unit, so a difference is a compile error.
 */
#ifndef NVTXW_TOOL_ALLOC_H
#define NVTXW_TOOL_ALLOC_H

#include <stddef.h>

#include "nvtxw/export.h"

NVTXW_API void* nvtxw_malloc(size_t size);
NVTXW_API void* nvtxw_calloc(size_t count, size_t size);
NVTXW_API void* nvtxw_realloc(void* ptr, size_t size);
/* realloc to count*size bytes; NULL (ptr untouched) on overflow or failure. */
NVTXW_API void* nvtxw_reallocarray(void* ptr, size_t count, size_t size);
/* Room for `need` items of `size` bytes in the array *items of *capacity
 * items: doubles the capacity (starting from `first` when it is 0) until it
 * holds `need`, then reallocates once. 0, or -1 with *items and *capacity
 * untouched when the size overflows or memory runs out. */
NVTXW_API int nvtxw_grow_array(void** items, size_t* capacity, size_t need, size_t size,
                               size_t first);
NVTXW_API void nvtxw_free(void* ptr);
/* Copies a NUL-terminated string; NULL in, NULL out (no error). */
NVTXW_API char* nvtxw_strdup(const char* s);
NVTXW_API char* nvtxw_strndup(const char* s, size_t length);

#endif /* NVTXW_TOOL_ALLOC_H */
