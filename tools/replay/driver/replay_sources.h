/*
 * tools/replay/driver/replay_sources.h - the driver's view of its inputs
 * (replay_sources.c): what kind an input is, from its first bytes, and
 * running a producer input (replay_input.h) into the session or into a
 * temporary report for a merge.
 */
#ifndef NVTXW_REPLAY_SOURCES_H
#define NVTXW_REPLAY_SOURCES_H

#include <stddef.h>

#include "replay_input.h"

/* What an input is: a file's kind from its first bytes, or a workload. */
typedef enum replay_input_kind {
    REPLAY_INPUT_REPORT,    /* .nvtxw: starts with the report magic */
    REPLAY_INPUT_CAPTURE,   /* JSON Lines / YAML capture (docs/capture-format.md) */
    REPLAY_INPUT_CHROME,    /* Chrome Trace Event Format JSON */
    REPLAY_INPUT_SYNTHETIC, /* a --synthetic spec, not a file */
    REPLAY_INPUT_ERROR      /* unreadable; message printed */
} replay_input_kind;

/* Sniffs `path`: the report magic, else the capture header, else Chrome
 * JSON when the first non-blank byte is '[' or '{'; anything else is
 * REPLAY_INPUT_REPORT (so the reader gives its own message). */
replay_input_kind replay_input_sniff(const char* tool, const char* path);

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

#endif /* NVTXW_REPLAY_SOURCES_H */
