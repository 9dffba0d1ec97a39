/*
 * tools/common/tool_interrupt.c - stopping a run cleanly on SIGINT and
 * SIGTERM (see tool_interrupt.h).
 */
#define _POSIX_C_SOURCE 200809L /* sigaction */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tool_interrupt.h"

/* Written by the handler on whichever thread took the signal, read by every
 * thread: a lock-free atomic (async-signal-safe, and no data race between
 * threads, which volatile sig_atomic_t does not promise). */
static atomic_int stop_signal;
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "a signal handler needs a lock-free atomic int");
static const char* tool_name = "nvtxw";
static nvtxwInterface_t guarded; /* the interruptible table */
static const nvtxwInterface_t* real;
static int counting;
static atomic_uint_fast64_t writes;

/* Async-signal-safe: write(2) and the default action only. */
static void on_signal(int signal_number) {
    static const char first[] =
        ": stopping and removing temporary files (the signal again stops at once)\n";
    if (atomic_load(&stop_signal) != 0) {
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        sigaction(signal_number, &dfl, NULL);
        raise(signal_number);
        return;
    }
    atomic_store(&stop_signal, signal_number);
    if (write(STDERR_FILENO, tool_name, strlen(tool_name)) >= 0 &&
        write(STDERR_FILENO, first, sizeof first - 1) >= 0) {
    }
}

void tool_interrupt_install(const char* tool) {
    struct sigaction action;
    tool_name = tool;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_signal;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, NULL);
    sigaction(SIGTERM, &action, NULL);
}

void tool_interrupt_done(void) {
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(SIGINT, &dfl, NULL);
    sigaction(SIGTERM, &dfl, NULL);
}

int tool_interrupted(void) { return atomic_load(&stop_signal); }

int tool_interrupt_status(int status) {
    int signal_number = atomic_load(&stop_signal);
    if (signal_number == 0)
        return status;
    fprintf(stderr, "%s: interrupted\n", tool_name);
    return 128 + signal_number;
}

/* ---- The interruptible table: each guarded call checks first ---------- */

/* A write call: fails once stopped, else is counted when counting. */
static int write_stopped(void) {
    if (atomic_load_explicit(&stop_signal, memory_order_relaxed) != 0)
        return 1;
    if (counting) /* nvtxw-replay --threads: several writers */
        atomic_fetch_add_explicit(&writes, 1, memory_order_relaxed);
    return 0;
}

#define STOPPED() (atomic_load_explicit(&stop_signal, memory_order_relaxed) != 0)

static nvtxwResultCode_t g_session_begin(const nvtxwSessionAttributes_t* attr,
                                         nvtxwSessionHandle_t* out) {
    return STOPPED() ? NVTXW_RESULT_FAILED : real->SessionBegin(attr, out);
}
static nvtxwResultCode_t g_domain_register(nvtxwSessionHandle_t session,
                                           const nvtxwDomainAttributes_t* attr,
                                           nvtxDomainHandle_t* out) {
    return STOPPED() ? NVTXW_RESULT_FAILED : real->DomainRegister(session, attr, out);
}
static nvtxwResultCode_t g_stream_open(nvtxwSessionHandle_t session,
                                       const nvtxwStreamAttributes_t* attr,
                                       nvtxwStreamHandle_t* out) {
    return STOPPED() ? NVTXW_RESULT_FAILED : real->StreamOpen(session, attr, out);
}
static nvtxwResultCode_t g_event_write(nvtxwStreamHandle_t stream,
                                       const nvtxPayloadData_t* payloads, size_t count) {
    return write_stopped() ? NVTXW_RESULT_FAILED : real->EventWrite(stream, payloads, count);
}
static nvtxwResultCode_t g_event_batch_write(nvtxwStreamHandle_t stream,
                                             const nvtxEventBatch_t* batch) {
    return write_stopped() ? NVTXW_RESULT_FAILED : real->EventBatchWrite(stream, batch);
}
static nvtxwResultCode_t g_counter_write(nvtxwStreamHandle_t stream, int64_t timestamp,
                                         uint64_t counter, const void* value, size_t size) {
    return write_stopped() ? NVTXW_RESULT_FAILED
                           : real->CounterWrite(stream, timestamp, counter, value, size);
}
static nvtxwResultCode_t g_counter_batch_write(nvtxwStreamHandle_t stream,
                                               const nvtxCounterBatch_t* batch) {
    return write_stopped() ? NVTXW_RESULT_FAILED : real->CounterBatchWrite(stream, batch);
}

const atomic_uint_fast64_t* tool_interrupt_writes(void) { return &writes; }

const nvtxwInterface_t* tool_interruptible(const nvtxwInterface_t* iface, int count_writes) {
    real = iface;
    counting = count_writes;
    guarded = *iface;
    guarded.SessionBegin = g_session_begin;
    guarded.DomainRegister = g_domain_register;
    guarded.StreamOpen = g_stream_open;
    guarded.EventWrite = g_event_write;
    guarded.EventBatchWrite = g_event_batch_write;
    guarded.CounterWrite = g_counter_write;
    guarded.CounterBatchWrite = g_counter_batch_write;
    return &guarded;
}
