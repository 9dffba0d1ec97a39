/*
 * tools/common/tool_memory.h - the tools under an address-space limit
 * (ulimit -v, RLIMIT_AS): glibc reserves 64 MiB of address space for each
 * thread's malloc arena and 8 MiB for each thread's stack, so a limit of a
 * few tens of MiB, which the data would fit in, made allocations fail or
 * crawl. Under a limit the tools keep one arena, start their threads with
 * small stacks and take fewer threads when the limit is too small for the
 * number asked, saying so.
 */
#ifndef NVTXW_TOOL_MEMORY_H
#define NVTXW_TOOL_MEMORY_H

#include <pthread.h>
#include <stddef.h>

/* Stack of the threads the tools start: what they need, with room. */
#define TOOL_THREAD_STACK (2u << 20)

/* The address-space limit in bytes, or 0 when there is none. Under one,
 * makes malloc keep a single arena (glibc). Call once, before threads. */
size_t tool_memory_limit(void);

/* How many of `wanted` threads, each needing `per_thread` bytes beyond
 * `base`, fit in `limit` (0 = no limit): at least 1. */
unsigned tool_threads_that_fit(size_t limit, unsigned wanted, size_t base, size_t per_thread);

/* pthread_create with a TOOL_THREAD_STACK stack. */
int tool_thread_start(pthread_t* thread, void* (*main)(void*), void* arg);

#endif /* NVTXW_TOOL_MEMORY_H */
