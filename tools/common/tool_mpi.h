/*
 * tools/common/tool_mpi.h - the tools' --mpi mode (tool_mpi.c, built only
 * with MPI: HAVE_MPI): MPI started and stopped, and a share
 * (nvtxw/share.h) whose callbacks are MPI's, for SessionBeginShared and
 * for the collectives a tool needs around its shared session.
 */
#ifndef NVTXW_TOOL_MPI_H
#define NVTXW_TOOL_MPI_H

#include <stddef.h>
#include <stdint.h>

#include "nvtxw/share.h"

typedef struct tool_mpi tool_mpi;

/* MPI_Init_thread (MPI_THREAD_SERIALIZED at least: libnvtxw reserves
 * extents from whichever thread writes, one at a time) and the window
 * that holds the report's shared end offset on rank 0. NULL, with the
 * error printed, when MPI cannot start. */
tool_mpi* tool_mpi_start(const char* tool, int* argc, char*** argv);

/* The share of this rank; borrowed until tool_mpi_stop. */
const nvtxwShare_t* tool_mpi_share(tool_mpi* mpi);

/* Frees the window and calls MPI_Finalize. NULL is a no-op. */
void tool_mpi_stop(tool_mpi* mpi);

#endif /* NVTXW_TOOL_MPI_H */
