/*
 * common/share_agree.h - how the ranks of a shared session (nvtxw/share.h)
 * learn whether every rank succeeded: one all-reduce through the share's
 * reduceMax. Used by the core (before a shared sink is created) and by the
 * container (creating and finishing a shared report).
 */
#ifndef NVTXW_COMMON_SHARE_AGREE_H
#define NVTXW_COMMON_SHARE_AGREE_H

#include <stddef.h>
#include <stdint.h>

#include "nvtxw/share.h"

/* Collective. values[0] is set from `failed`; values[1, count) are the
 * caller's, reduced alongside (count at most 4). Returns 0 when every rank
 * succeeded, the lowest failed rank + 1, or UINT64_MAX when the reduction
 * itself failed. */
static inline uint64_t share_failed_rank(const nvtxwShare_t* share, int failed, uint64_t* values,
                                         size_t count) {
    values[0] = failed ? UINT64_MAX - share->rank : 0; /* the max is the lowest failed rank */
    if (share->reduceMax(share->context, values, count) != 0)
        return UINT64_MAX;
    return values[0] == 0 ? 0 : UINT64_MAX - values[0] + 1;
}

#endif /* NVTXW_COMMON_SHARE_AGREE_H */
