/*
 * tools/common/tool_mpi.c - a share (nvtxw/share.h) whose callbacks are
 * MPI's (tool_mpi.h): the report's end offset is one 64-bit integer in an
 * MPI window on rank 0, reserved with MPI_Fetch_and_op under a passive
 * lock_all epoch that lasts the whole run; the collectives are
 * MPI_Bcast, MPI_Gather(v) and MPI_Allreduce on MPI_COMM_WORLD.
 *
 * Errors return (MPI_ERRORS_RETURN) instead of aborting the job, so that
 * libnvtxw and the tool report which call failed on which rank; a rank
 * that dies is MPI's launcher's business (mpirun ends the job).
 */
#include "config.h"

#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool_mpi.h"

struct tool_mpi {
    nvtxwShare_t share;
    MPI_Win window;
    uint64_t* end; /* the window's memory: 8 bytes on rank 0, none elsewhere */
    int window_open;
};

static int mpi_reserve(void* context, uint64_t size, uint64_t* offset) {
    tool_mpi* m = context;
    uint64_t add = size;
    if (MPI_Fetch_and_op(&add, offset, MPI_UINT64_T, 0, 0, MPI_SUM, m->window) != MPI_SUCCESS)
        return -1;
    return MPI_Win_flush(0, m->window) == MPI_SUCCESS ? 0 : -1;
}

static int mpi_broadcast(void* context, void* data, size_t size) {
    char* p = data;
    (void)context;
    while (size > 0) { /* MPI counts are ints */
        int piece = size > INT_MAX ? INT_MAX : (int)size;
        if (MPI_Bcast(p, piece, MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
            return -1;
        p += piece;
        size -= (size_t)piece;
    }
    return 0;
}

/* Rank 0: the receive counts and displacements of every rank's `sizes`;
 * -1 when the whole does not fit MPI's int counts (2 GiB). */
static int layout(const unsigned long long* sizes, int ranks, int* counts, int* displs,
                  size_t* total) {
    *total = 0;
    for (int r = 0; r < ranks; r++) {
        if (sizes[r] > INT_MAX || *total + sizes[r] > INT_MAX)
            return -1;
        counts[r] = (int)sizes[r];
        displs[r] = (int)*total;
        *total += sizes[r];
    }
    return 0;
}

static int mpi_gather(void* context, const void* data, size_t size, void** all, size_t* all_size) {
    tool_mpi* m = context;
    int ranks = (int)m->share.ranks, root = m->share.rank == 0;
    unsigned long long mine = size, *sizes = root ? calloc((size_t)ranks, sizeof *sizes) : NULL;
    int* counts = root ? calloc((size_t)ranks, sizeof *counts) : NULL;
    int* displs = root ? calloc((size_t)ranks, sizeof *displs) : NULL;
    size_t total = 0;
    void* out = NULL;
    int status = 0;
    /* an oversized or unallocatable gather still takes part, with nothing */
    if (size > INT_MAX)
        status = -1;
    if (MPI_Gather(&mine, 1, MPI_UNSIGNED_LONG_LONG, sizes, 1, MPI_UNSIGNED_LONG_LONG, 0,
                   MPI_COMM_WORLD) != MPI_SUCCESS)
        status = -1;
    if (root && (sizes == NULL || counts == NULL || displs == NULL ||
                 layout(sizes, ranks, counts, displs, &total) != 0 ||
                 (out = malloc(total ? total : 1)) == NULL)) {
        status = -1;
        if (counts != NULL && displs != NULL)
            for (int r = 0; r < ranks; r++)
                counts[r] = displs[r] = 0; /* receive nothing, fail after */
    }
    if (MPI_Gatherv(data, size > INT_MAX ? 0 : (int)size, MPI_BYTE, out, counts, displs, MPI_BYTE,
                    0, MPI_COMM_WORLD) != MPI_SUCCESS)
        status = -1;
    free(sizes);
    free(counts);
    free(displs);
    if (root && status == 0) {
        *all = out;
        *all_size = total;
    } else {
        free(out);
    }
    return status;
}

static int mpi_reduce_max(void* context, uint64_t* values, size_t count) {
    (void)context;
    return MPI_Allreduce(MPI_IN_PLACE, values, (int)count, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD) ==
                   MPI_SUCCESS
               ? 0
               : -1;
}

/* The window with the end offset, 0, and its epoch. */
static int open_window(tool_mpi* m) {
    MPI_Aint size = m->share.rank == 0 ? (MPI_Aint)sizeof *m->end : 0;
    if (MPI_Win_allocate(size, (int)sizeof *m->end, MPI_INFO_NULL, MPI_COMM_WORLD, &m->end,
                         &m->window) != MPI_SUCCESS)
        return -1;
    m->window_open = 1;
    MPI_Win_set_errhandler(m->window, MPI_ERRORS_RETURN);
    if (m->share.rank == 0)
        *m->end = 0;
    if (MPI_Barrier(MPI_COMM_WORLD) != MPI_SUCCESS ||
        MPI_Win_lock_all(MPI_MODE_NOCHECK, m->window) != MPI_SUCCESS)
        return -1;
    return 0;
}

tool_mpi* tool_mpi_start(const char* tool, int* argc, char*** argv) {
    int provided = MPI_THREAD_SINGLE, rank = 0, ranks = 1;
    tool_mpi* m;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
        fprintf(stderr, "%s: error: --mpi: MPI_Init_thread failed\n", tool);
        return NULL;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    if (provided < MPI_THREAD_SERIALIZED) {
        if (rank == 0)
            fprintf(stderr,
                    "%s: error: --mpi: this MPI library gives thread level %d; the tool needs "
                    "MPI_THREAD_SERIALIZED (%d) or more\n",
                    tool, provided, MPI_THREAD_SERIALIZED);
        MPI_Finalize();
        return NULL;
    }
    m = calloc(1, sizeof *m);
    if (m == NULL) {
        fprintf(stderr, "%s: error: --mpi: out of memory\n", tool);
        MPI_Abort(MPI_COMM_WORLD, 1); /* the others would wait for this rank */
        return NULL;
    }
    m->share.structSize = sizeof m->share;
    m->share.rank = (uint32_t)rank;
    m->share.ranks = (uint32_t)ranks;
    m->share.context = m;
    m->share.reserve = mpi_reserve;
    m->share.broadcast = mpi_broadcast;
    m->share.gather = mpi_gather;
    m->share.reduceMax = mpi_reduce_max;
    if (open_window(m) != 0) {
        fprintf(stderr,
                "%s: error: --mpi: rank %d cannot create the MPI window of the report's "
                "end offset\n",
                tool, rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
        return NULL;
    }
    return m;
}

const nvtxwShare_t* tool_mpi_share(tool_mpi* mpi) { return &mpi->share; }

void tool_mpi_stop(tool_mpi* mpi) {
    if (mpi == NULL)
        return;
    if (mpi->window_open) {
        MPI_Win_unlock_all(mpi->window);
        MPI_Win_free(&mpi->window);
    }
    free(mpi);
    MPI_Finalize();
}
