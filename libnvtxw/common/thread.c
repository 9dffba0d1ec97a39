/*
 * common/thread.c - the threads the library starts (thread.h).
 */
#include "config.h"

#include "common/thread.h"

int thread_start(pthread_t* thread, void* (*main)(void*), void* arg) {
    pthread_attr_t attr;
    int status = pthread_attr_init(&attr);
    if (status != 0)
        return status;
    status = pthread_attr_setstacksize(&attr, THREAD_STACK_BYTES);
    if (status == 0)
        status = pthread_create(thread, &attr, main, arg);
    pthread_attr_destroy(&attr);
    return status;
}
