/*
 * common/thread.h - the threads the library starts (docs/threading.md).
 */
#ifndef NVTXW_COMMON_THREAD_H
#define NVTXW_COMMON_THREAD_H

#include <pthread.h>

/* The library's threads need little stack (zstd works in its context's
 * heap, the replay's in its arenas): 1 MiB instead of the default 8 MiB of
 * address space, which counts against a producer's ulimit -v. */
#define THREAD_STACK_BYTES (1u << 20)

/* pthread_create with a THREAD_STACK_BYTES stack: 0 or an errno value. */
int thread_start(pthread_t* thread, void* (*main)(void*), void* arg);

#endif /* NVTXW_COMMON_THREAD_H */
