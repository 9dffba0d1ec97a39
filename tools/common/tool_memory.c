/*
 * tools/common/tool_memory.c - the tools under an address-space limit
 * (tool_memory.h).
 */
#include "config.h"

#include <malloc.h>
#include <stdint.h>
#include <sys/resource.h>

#include "tool_memory.h"

size_t tool_memory_limit(void) {
    struct rlimit limit;
    if (getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY)
        return 0;
#ifdef M_ARENA_MAX
    mallopt(M_ARENA_MAX, 1);
#endif
    return limit.rlim_cur > SIZE_MAX ? SIZE_MAX : (size_t)limit.rlim_cur;
}

unsigned tool_threads_that_fit(size_t limit, unsigned wanted, size_t base, size_t per_thread) {
    size_t fit;
    if (limit == 0 || wanted <= 1)
        return wanted ? wanted : 1;
    fit = limit > base ? (limit - base) / per_thread : 0;
    if (fit < 1)
        fit = 1;
    return fit < wanted ? (unsigned)fit : wanted;
}

int tool_thread_start(pthread_t* thread, void* (*main)(void*), void* arg) {
    pthread_attr_t attr;
    int status = pthread_attr_init(&attr);
    if (status != 0)
        return status;
    status = pthread_attr_setstacksize(&attr, TOOL_THREAD_STACK);
    if (status == 0)
        status = pthread_create(thread, &attr, main, arg);
    pthread_attr_destroy(&attr);
    return status;
}
