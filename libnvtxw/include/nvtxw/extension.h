/*
 * nvtxw/extension.h - libnvtxw's extension of the NVTXW function table:
 * calls NVTXW v2 does not have, reached through the same entry point with
 * an interface version of their own (docs/producer-guide.md, "Releasing
 * scopes").
 *
 *     const nvtxwExtensionInterface_v1_t* ext = NULL;
 *     if (getInterface(NVTXW_EXTENSION_INTERFACE_VERSION, (const void**)&ext)
 *             != NVTXW_RESULT_SUCCESS)
 *         ext = NULL; // another backend: scopes stay registered, as in NVTXW
 *
 * Other backends (Nsight Systems' among them) answer this version with
 * NVTXW_RESULT_INTERFACE_VERSION_NOT_SUPPORTED: a producer that asks and
 * gets nothing writes exactly what it would have written without asking.
 * The table only grows at its end; read a member only when structSize
 * covers it (NVTXW_EXTENSION_HAS).
 */
#ifndef NVTXW_EXTENSION_H
#define NVTXW_EXTENSION_H

#include <stddef.h>
#include <stdint.h>

#include "nvtxw/abi.h"
#include "nvtxw/share.h"

#ifdef __cplusplus
extern "C" {
#endif

/* "NX" and 1: far from NVTXW's own small version numbers. */
#define NVTXW_EXTENSION_INTERFACE_VERSION ((nvtxwInterfaceVersion_t)0x4E580001)

typedef struct nvtxwExtensionInterface_v1_t {
    size_t structSize; /* sizeof the table as the backend knows it */

    /*
     * Ends the life of scope `scopeId` of `domain`: the backend forgets it
     * and may free what it kept for it, so a producer that registers a
     * scope per short-lived object (a task) keeps the backend's memory
     * proportional to the live ones. NVTXW has no such call; this is the
     * rule it adds:
     *   - only a scope registered in `domain` (static or dynamic ID) can be
     *     released, once; NONE, ROOT and predefined scopes cannot;
     *   - nothing may still refer to it: it must not be the scope of an
     *     open stream, of a counter or time domain, or the parent of a
     *     scope that is not released (refused otherwise);
     *   - from the call on, the ID is unknown: events, streams and
     *     registrations that name it are refused, and it is never handed
     *     out or accepted as a static ID again;
     *   - it is a registration call: it may run while other threads write
     *     other streams, but no call that uses this scope may run at the
     *     same time (the producer orders its last use before it).
     * What was written with the scope stays in the output as written.
     */
    nvtxwResultCode_t (*ScopeRelease)(nvtxDomainHandle_t domain, uint64_t scopeId);

    /*
     * Says that `stream` will not be written for a while: the backend
     * writes out what it holds of the stream's records (libnvtxw's report:
     * a chunk, however small) and may free the buffers it can make again,
     * so a producer that keeps many streams open but writes a few at a
     * time (a converter reading many threads' records in turns) holds the
     * memory of the streams it writes, not of every open one. Nothing else
     * changes: the stream stays open, its open ranges and state stay, and
     * later events read back as if written without the call (the output
     * may have more, smaller chunks; flushing after every event costs
     * compression). It is a call of the stream's write path: the thread
     * writing the stream makes it, concurrently with other streams.
     * Backends without it (structSize too small) need nothing: skipping
     * the call changes only memory.
     */
    nvtxwResultCode_t (*StreamFlush)(nvtxwStreamHandle_t stream);

    /*
     * SessionBegin for one of several processes that write one report
     * together (the ranks of an MPI job): `share` says which rank this is
     * and how to reach the others (nvtxw/share.h, which states the
     * contract: every rank makes the same registrations; begin and end are
     * collective). Every rank passes the same attributes; only Sink=report
     * takes a share. It fails on every rank when it fails on one (except
     * when `share` itself is invalid, which is refused before the ranks
     * meet). SessionEnd of such a session is collective too: it returns
     * success on every rank or on none.
     */
    nvtxwResultCode_t (*SessionBeginShared)(const nvtxwSessionAttributes_t* attr,
                                            const nvtxwShare_t* share,
                                            nvtxwSessionHandle_t* sessionOut);
} nvtxwExtensionInterface_v1_t;

typedef nvtxwExtensionInterface_v1_t nvtxwExtensionInterface_t;

/* Non-zero iff the table is present, covers `member`, and sets it. */
#define NVTXW_EXTENSION_HAS(ext, member)                                                           \
    ((ext) != NULL &&                                                                              \
     (ext)->structSize >= offsetof(nvtxwExtensionInterface_t, member) + sizeof((ext)->member) &&   \
     (ext)->member != NULL)

#ifdef __cplusplus
}
#endif

#endif /* NVTXW_EXTENSION_H */
