/*
 * payload/semantics.h - deep copies of NVTX semantic-extension chains
 * (nvtxSemanticsHeader_t lists, spec 2.5), shared by the schema registry
 * (entry semantics) and the core (counter semantics).
 *
 * Known extensions (scope, time, counters) are copied up to the size this
 * library knows, the counter unit string included; unknown extensions are
 * dropped, since their layout cannot be known. Chains longer than
 * SEMANTICS_MAX_CHAIN are rejected as probable cycles.
 */
#ifndef NVTXW_PAYLOAD_SEMANTICS_H
#define NVTXW_PAYLOAD_SEMANTICS_H

#include "nvtxw/abi.h"

#define SEMANTICS_MAX_CHAIN 64

/* Copies the chain at `src` (may be NULL) to *out. `context` starts error
 * messages, e.g. "register schema: entry 3" or "register counter". */
nvtxwResultCode_t semantics_copy(const nvtxSemanticsHeader_t* src, const char* context,
                                 const nvtxSemanticsHeader_t** out);
/* Frees a chain made by semantics_copy; accepts NULL. */
void semantics_free(const nvtxSemanticsHeader_t* chain);

#endif /* NVTXW_PAYLOAD_SEMANTICS_H */
