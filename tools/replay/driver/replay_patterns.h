/*
 * tools/replay/driver/replay_patterns.h - nvtxw-replay's --streams and
 * --domains patterns checked against the inputs before the replay: a
 * pattern that matches no stream (domain) of any input is a warning naming
 * the closest names, since its result would be silently empty.
 */
#ifndef NVTXW_REPLAY_PATTERNS_H
#define NVTXW_REPLAY_PATTERNS_H

#include <stddef.h>

#include "nvtxw/nvtxw.h"

/* Warns on stderr ("TOOL: warning: --streams 'P' matches no stream; the
 * closest: ...") for every pattern that matches no name of its kind in
 * `readers`. Matching is the replay's: exact name, else fnmatch(3) glob.
 * Returns the number of such patterns. */
size_t replay_warn_unmatched(const char* tool, nvtxw_reader_t* const* readers, size_t count,
                             const char* const* streams, size_t stream_count,
                             const char* const* domains, size_t domain_count);

#endif /* NVTXW_REPLAY_PATTERNS_H */
