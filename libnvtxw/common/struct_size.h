/*
 * common/struct_size.h - the bounds of an attribute struct's size field.
 *
 * NVTXW's attribute structs start with their size and only grow at the end
 * (ABI spec 2): a larger size than ours is a newer producer (read the
 * prefix we know), a smaller one an older layout or a mistake. A size past
 * STRUCT_SIZE_MAX is neither: no attribute struct is near it, so it is an
 * uninitialised or wrong struct, refused instead of trusted.
 */
#ifndef NVTXW_COMMON_STRUCT_SIZE_H
#define NVTXW_COMMON_STRUCT_SIZE_H

#include <stddef.h>

#define STRUCT_SIZE_MAX 4096u

/* NULL when `size` is between `minimum` and STRUCT_SIZE_MAX, else why not,
 * as a phrase for "cannot <verb> <object>: attr->structSize <phrase>". */
static inline const char* struct_size_problem(size_t size, size_t minimum) {
    if (size < minimum)
        return "is too small";
    if (size > STRUCT_SIZE_MAX)
        return "is larger than any attribute struct (over 4096 bytes): an uninitialised struct?";
    return NULL;
}

#endif /* NVTXW_COMMON_STRUCT_SIZE_H */
