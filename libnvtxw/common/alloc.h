/*
 * common/alloc.h - the one allocator path of libnvtxw and its tools (STYLE
 * rule 12).
 *
 * Every allocation in the library and in the tools (nvtxw-replay,
 * nvtxw-otf2-import, nvtxw-payload) goes through these wrappers so that tests
 * can make the Nth allocation of a whole process fail
 * (nvtxw_alloc_fail_after) and walk every error path. They behave like their
 * libc namesakes; nvtxw_free(NULL) is a no-op. Overflow-checked helpers
 * return NULL instead of wrapping.
 *
 * They are exported from libnvtxw.so for the tools and the tests only: no
 * public header declares them and they are not part of the API (the tools
 * declare them in tools/common/tool_alloc.h, which a test compiles together
 * with this header so the two cannot drift apart).
 */
#ifndef NVTXW_COMMON_ALLOC_H
#define NVTXW_COMMON_ALLOC_H

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

/*
 * Test hook: after `count` more successful allocations, every allocation
 * fails until the hook is reset with a negative count (the default).
 * Process-wide; not meant for concurrent use. Exported for the test suite
 * only; not declared in a public header.
 */
NVTXW_API void nvtxw_alloc_fail_after(long count);
/* Test hooks: how many allocations were granted and refused since the last
 * nvtxw_alloc_fail_after() (granted counts only while a budget is set), so
 * a test can count a run's allocations and tell a run that met an injected
 * failure from one that completed within its budget. */
NVTXW_API long nvtxw_alloc_granted(void);
NVTXW_API long nvtxw_alloc_refused(void);

#endif /* NVTXW_COMMON_ALLOC_H */
