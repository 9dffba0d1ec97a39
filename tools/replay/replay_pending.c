/*
 * tools/replay/replay_pending.c - placeholders for the producer inputs
 * being built (issue 6); each is removed when its real source lands. This
 * file must be gone when issue 6 closes.
 */
#include "config.h"

#include <stdio.h>

#include "replay_input.h"

/* ---- Chrome trace JSON (chrome_in_*.c) ---- */

int chrome_trace_replay(const replay_input_ctx* ctx, const char* path) {
    fprintf(stderr, "%s: error: %s: Chrome trace input is not supported yet\n", ctx->tool, path);
    return 1;
}

/* ---- synthetic workloads (synthetic_*.c) ---- */

int synthetic_replay(const replay_input_ctx* ctx, const char* spec) {
    fprintf(stderr, "%s: error: --synthetic %s: not supported yet\n", ctx->tool, spec);
    return 1;
}
