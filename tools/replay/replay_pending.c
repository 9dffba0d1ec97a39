/*
 * tools/replay/replay_pending.c - placeholders for the producer inputs
 * being built (issue 6); each is removed when its real source lands. This
 * file must be gone when issue 6 closes.
 */
#include "config.h"

#include <stdio.h>

#include "replay_input.h"

/* ---- capture (capture_*.c) ---- */

int capture_sniff(const char* head, size_t length) {
    (void)head;
    (void)length;
    return 0;
}

int capture_replay(const replay_input_ctx* ctx, const char* path) {
    fprintf(stderr, "%s: error: %s: capture files are not supported yet\n", ctx->tool, path);
    return 1;
}
