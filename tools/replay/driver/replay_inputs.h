/*
 * tools/replay/driver/replay_inputs.h - nvtxw-replay's inputs, as sources
 * (replay_inputs.c).
 */
#ifndef NVTXW_REPLAY_INPUTS_H
#define NVTXW_REPLAY_INPUTS_H

#include <stddef.h>

#include "replay_input.h"

typedef struct replay_source {
    replay_input_kind kind; /* REPLAY_INPUT_* but ERROR */
    const char* name;       /* the path, or the --synthetic spec */
} replay_source;

/* Runs a producer source (not a report) into ctx; 0 or 1. */
int replay_input_run(const replay_input_ctx* ctx, const replay_source* source);

/* Runs a producer source into a new temporary report (under $TMPDIR, else
 * /tmp) whose path goes to path_out; 0, or 1 with the error printed and no
 * file left. The caller unlinks the report. */
int replay_input_to_report(const replay_input_ctx* ctx, const replay_source* source, char* path_out,
                           size_t path_size);

#endif /* NVTXW_REPLAY_INPUTS_H */
