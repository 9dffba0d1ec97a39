/*
 * nvtxw/share.h - one report written by several processes together (the
 * ranks of an MPI job), libnvtxw's own: NVTXW has no such thing.
 *
 * Every rank begins a session with the same config string through the
 * extension table's SessionBeginShared, passing a share: its rank, the
 * number of ranks, and four callbacks that move a few bytes between the
 * ranks. libnvtxw needs nothing else from the launcher and links no
 * communication library: nvtxw-otf2-import fills the callbacks with MPI
 * (an MPI window for `reserve`, MPI_Bcast, MPI_Gatherv, MPI_Allreduce), a
 * test with threads or pipes.
 *
 * What the ranks produce is one ordinary report (docs/report-format.md,
 * "Writing one report from several processes"): rank 0 creates the file,
 * writes its header and the registration log and, at the end, the index and
 * the trailer, and renames it into place; every rank writes the chunks of
 * its own streams into the same file, at offsets it reserves through
 * `reserve`. Readers see no difference.
 *
 * The contract:
 *   - every rank makes the same registrations in the same order (domains,
 *     strings, schemas, scopes, streams: everything but events); only rank
 *     0's are stored, and SessionEnd fails on every rank when a rank's
 *     registrations differ from rank 0's. A rank writes only the streams it
 *     owns; the others stay open and empty.
 *   - SessionBeginShared and SessionEnd are collective: every rank calls
 *     them, SessionEnd also after a failure (a rank that stops calling
 *     leaves the others waiting in a callback). When any rank's session is
 *     faulty, SessionEnd fails on every rank, rank 0 removes the file, and
 *     the message of a rank that did not fail names the rank that did.
 *   - the callbacks return 0 on success; anything else fails the call that
 *     made it. `reserve` may be called from any thread of a rank, never by
 *     two at once (libnvtxw serializes its calls in a process); the
 *     collective ones only from the thread that calls SessionBeginShared or
 *     SessionEnd.
 * Only Sink=report takes a share; other sinks refuse it.
 */
#ifndef NVTXW_SHARE_H
#define NVTXW_SHARE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nvtxwShare_v1_t {
    size_t structSize; /* sizeof(nvtxwShare_v1_t) */
    uint32_t rank;     /* this process: 0 .. ranks - 1; rank 0 owns the file */
    uint32_t ranks;    /* at least 1 */
    void* context;     /* handed to every callback */

    /* Adds `size` to the file's end offset, which every rank shares and
     * which starts at 0, and returns its value before the addition in
     * *offset: an atomic fetch-and-add (MPI_Fetch_and_op on a window). Rank
     * 0's first call, for the file header, must get 0. libnvtxw asks for
     * extents of 16 KiB to 16 MiB that it fills with many chunks. */
    int (*reserve)(void* context, uint64_t size, uint64_t* offset);

    /* Collective: rank 0's `size` bytes at `data` are copied into every
     * other rank's `data` (MPI_Bcast). */
    int (*broadcast)(void* context, void* data, size_t size);

    /* Collective: rank 0 receives every rank's bytes (its own included),
     * concatenated in rank order, in *all (allocated with malloc; libnvtxw
     * frees it with free) and their total size in *allSize; on other ranks
     * both are left alone (MPI_Gatherv). */
    int (*gather)(void* context, const void* data, size_t size, void** all, size_t* allSize);

    /* Collective: each of values[0, count) becomes the largest of that
     * value over every rank, on every rank (MPI_Allreduce with MPI_MAX);
     * count is at most 4. */
    int (*reduceMax)(void* context, uint64_t* values, size_t count);
} nvtxwShare_v1_t;

typedef nvtxwShare_v1_t nvtxwShare_t;

#ifdef __cplusplus
}
#endif

#endif /* NVTXW_SHARE_H */
