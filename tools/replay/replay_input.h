/*
 * tools/replay/replay_input.h - the interface between nvtxw-replay's
 * driver (driver/) and its inputs that are not reports, one folder each:
 * capture files (capture/), Chrome trace JSON (chrome/) and synthetic
 * workloads (synthetic/). An input includes this header, tools/common/ and
 * the public API, never the driver or another input.
 *
 * Each is a producer: it drives one whole session (SessionBegin with
 * ctx->config ... SessionEnd) through ctx->iface, any NVTXW v2 function
 * table, and returns 0, or 1 after printing "nvtxw-replay: error: ..."
 * (naming the file, line and column, or the generator parameter, at fault)
 * on stderr. A failed run may leave a partial session behind; the caller
 * removes the output. Memory stays bounded by the input's definitions
 * (streams, registrations), never by its event count.
 */
#ifndef NVTXW_REPLAY_INPUT_H
#define NVTXW_REPLAY_INPUT_H

#include "nvtxw/nvtxw.h"

typedef struct replay_input_ctx {
    const char* tool;              /* program name for messages */
    const nvtxwInterface_t* iface; /* where the calls go */
    const char* config;            /* SessionAttributes.configString */
    /* The same backend's extension table (nvtxw/extension.h), or NULL. */
    const nvtxwExtensionInterface_t* ext;
} replay_input_ctx;

/* Non-zero when the first bytes (`length` of them) are a capture file's:
 * a header line as docs/capture-format.md defines it. */
int capture_sniff(const char* head, size_t length);

int capture_replay(const replay_input_ctx* ctx, const char* path);
int chrome_trace_replay(const replay_input_ctx* ctx, const char* path);
/* `spec` is NAME[:key=value,...] as given to --synthetic. */
int synthetic_replay(const replay_input_ctx* ctx, const char* spec);

#endif /* NVTXW_REPLAY_INPUT_H */
