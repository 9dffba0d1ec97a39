/*
 * tools/common/tool_interrupt.h - Ctrl-C and kill for the command-line tools
 * (tool_interrupt.c).
 *
 * The first SIGINT or SIGTERM asks the run to stop: the handler says so on
 * stderr, and from then on every call through the table tool_interruptible()
 * returns that would add to the session (registrations, stream opens,
 * writes) fails, so producers, converters and replays stop at their next
 * call and take their normal failure path, which ends the session and
 * removes every temporary file. Loops that can run long without such a
 * call (reading past filtered records, parsing) poll tool_interrupted().
 * A second signal stops the process at once (temporary files may remain).
 */
#ifndef NVTXW_TOOL_INTERRUPT_H
#define NVTXW_TOOL_INTERRUPT_H

#include <stdatomic.h>

#include "nvtxw/nvtxw.h"

/* Installs the SIGINT and SIGTERM handlers; `tool` names the messages.
 * Call first thing in main. */
void tool_interrupt_install(const char* tool);

/* The run is over and its files are settled: SIGINT and SIGTERM end the
 * process at once, silently (--mpi: mpirun ends the ranks still in
 * MPI_Finalize when one has exited with a failure). */
void tool_interrupt_done(void);

/* The signal that asked the run to stop (SIGINT, SIGTERM), or 0. */
int tool_interrupted(void);

/* A copy of `iface` (the library's table) whose calls that add to a session
 * fail with NVTXW_RESULT_FAILED once the run was asked to stop; SessionEnd,
 * StreamClose and everything else pass through. One per process. With
 * `count_writes`, the event and counter writes are counted in
 * *tool_interrupt_writes() (an atomic count, for a progress line; any
 * number of writing threads). */
const nvtxwInterface_t* tool_interruptible(const nvtxwInterface_t* iface, int count_writes);
const atomic_uint_fast64_t* tool_interrupt_writes(void);

/* The exit status of a run: when it was asked to stop, prints
 * "TOOL: interrupted" and returns 128 + the signal (130, 143), whatever
 * `status` says; otherwise returns `status`. */
int tool_interrupt_status(int status);

#endif /* NVTXW_TOOL_INTERRUPT_H */
