/*
 * tools/otf2-import/mpi_split.c - --mpi: which rank converts which
 * location. Balanced by the events each location declares (OTF2's
 * location definitions count them), not by the number of locations: a
 * Score-P trace's master threads often hold most of the events.
 *
 * Longest-processing-time first: locations by decreasing events (ties by
 * index), each to the rank with the fewest events so far (ties: the
 * lowest rank), found in a binary heap. Every rank computes the same
 * split from the same definitions, so no message is needed.
 */
#define _GNU_SOURCE /* qsort_r */
#include "config.h"

#include <stdlib.h>

#include "otf2_import.h"
#include "tool_alloc.h"

typedef struct rank_load {
    uint64_t events;
    uint32_t rank;
} rank_load;

static int lighter(const rank_load* a, const rank_load* b) {
    return a->events != b->events ? a->events < b->events : a->rank < b->rank;
}

/* Restores the heap below position i after its load grew. */
static void sift_down(rank_load* heap, size_t n, size_t i) {
    for (;;) {
        size_t least = i, l = 2 * i + 1, r = l + 1;
        rank_load t;
        if (l < n && lighter(&heap[l], &heap[least]))
            least = l;
        if (r < n && lighter(&heap[r], &heap[least]))
            least = r;
        if (least == i)
            return;
        t = heap[i];
        heap[i] = heap[least];
        heap[least] = t;
        i = least;
    }
}

static int by_events_desc(const void* a, const void* b, void* events_arg) {
    const uint64_t* events = events_arg;
    size_t i = *(const size_t*)a, j = *(const size_t*)b;
    if (events[i] != events[j])
        return events[i] < events[j] ? 1 : -1;
    return i < j ? -1 : i > j;
}

int import_split_locations(const uint64_t* events, size_t count, uint32_t ranks, uint32_t* owner) {
    size_t* order = nvtxw_malloc((count + 1) * sizeof *order);
    rank_load* heap = nvtxw_malloc((size_t)ranks * sizeof *heap);
    if (order == NULL || heap == NULL) {
        nvtxw_free(order);
        nvtxw_free(heap);
        return -1;
    }
    for (size_t i = 0; i < count; i++)
        order[i] = i;
    qsort_r(order, count, sizeof *order, by_events_desc, (void*)events);
    for (uint32_t r = 0; r < ranks; r++) { /* ascending ranks, equal loads: a heap */
        heap[r].events = 0;
        heap[r].rank = r;
    }
    for (size_t k = 0; k < count; k++) {
        owner[order[k]] = heap[0].rank;
        heap[0].events += events[order[k]];
        sift_down(heap, ranks, 0);
    }
    nvtxw_free(order);
    nvtxw_free(heap);
    return 0;
}
