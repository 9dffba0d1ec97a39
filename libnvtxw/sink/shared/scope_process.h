/*
 * sink/shared/scope_process.h - the processes of the sinks that draw a
 * timeline (json, perfetto): each distinct scope path a stream or task
 * lives in is one process, numbered from 2 in order of first use (1 is
 * the session's own process: streams without a scope). Serialized calls
 * only (stream opens and scope registrations).
 */
#ifndef NVTXW_SINK_SHARED_SCOPE_PROCESS_H
#define NVTXW_SINK_SHARED_SCOPE_PROCESS_H

#include <stddef.h>
#include <stdint.h>

#include "common/idmap.h"

typedef struct scope_process_table {
    char** paths; /* process P >= 2 is the scope path at [P - 2] */
    size_t count, capacity;
    idmap hashes; /* FNV-1a of a path -> its number (as a pointer value) */
} scope_process_table;

/* The number of the process of scope path `path` in *number; *is_new is 1
 * when the path was seen for the first time (the caller announces the
 * process). 0, or -1 when out of memory (the table is unchanged). */
int scope_process_number(scope_process_table* t, const char* path, uint64_t* number, int* is_new);

/* A zeroed table is empty and valid. */
void scope_process_table_free(scope_process_table* t);

#endif /* NVTXW_SINK_SHARED_SCOPE_PROCESS_H */
