/*
 * tools/common/tool_share.h - the collectives a tool needs around a shared
 * session (nvtxw/share.h), made of the share's own callbacks: they need
 * no MPI (tool_share.c), whatever fills the share.
 *
 * Every function is collective: every rank calls it, in the same order
 * relative to the others and to SessionBeginShared / SessionEnd.
 */
#ifndef NVTXW_TOOL_SHARE_H
#define NVTXW_TOOL_SHARE_H

#include <stddef.h>
#include <stdint.h>

#include "nvtxw/share.h"

/* 0 when `failed` is 0 on every rank, else the lowest failed rank + 1
 * (this rank's + 1 when the reduction itself fails). */
uint64_t tool_share_failed_rank(const nvtxwShare_t* share, int failed);

/* The sum of every rank's `value` on rank 0; other ranks get their own. */
uint64_t tool_share_sum_on_root(const nvtxwShare_t* share, uint64_t value);

/* Every rank's bytes on every rank: `data`/`size` of each rank,
 * concatenated in rank order, in *all (malloc'ed; the caller frees it) of
 * *all_size bytes. 0, or -1 (out of memory or a callback failed; the
 * ranks may then disagree: follow with tool_share_failed_rank). */
int tool_share_all_gather(const nvtxwShare_t* share, const void* data, size_t size, void** all,
                          size_t* all_size);

#endif /* NVTXW_TOOL_SHARE_H */
