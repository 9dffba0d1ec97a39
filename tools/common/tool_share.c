/*
 * tools/common/tool_share.c - collectives made of a share's callbacks
 * (tool_share.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "tool_share.h"

uint64_t tool_share_failed_rank(const nvtxwShare_t* share, int failed) {
    uint64_t value = failed ? UINT64_MAX - share->rank : 0;
    if (share->reduceMax(share->context, &value, 1) != 0)
        return (uint64_t)share->rank + 1;
    return value == 0 ? 0 : UINT64_MAX - value + 1;
}

uint64_t tool_share_sum_on_root(const nvtxwShare_t* share, uint64_t value) {
    void* all = NULL;
    size_t size = 0;
    uint64_t sum = 0;
    if (share->gather(share->context, &value, sizeof value, &all, &size) != 0 || share->rank != 0)
        return value;
    for (size_t i = 0; i + sizeof value <= size; i += sizeof value) {
        uint64_t v;
        memcpy(&v, (const char*)all + i, sizeof v);
        sum += v;
    }
    free(all);
    return sum;
}

/* Broadcasts rank 0's `total` bytes in pieces of the same size on every
 * rank, so that a rank without the memory for them (data NULL) can still
 * take part, into a scratch piece. 0, or -1 when a broadcast failed. */
static int broadcast_pieces(const nvtxwShare_t* share, unsigned char* data, uint64_t total) {
    unsigned char scratch[64 << 10];
    int status = 0;
    for (uint64_t done = 0; done < total; done += sizeof scratch) {
        size_t piece = total - done < sizeof scratch ? (size_t)(total - done) : sizeof scratch;
        if (share->broadcast(share->context, data ? data + done : scratch, piece) != 0)
            status = -1;
    }
    return status;
}

int tool_share_all_gather(const nvtxwShare_t* share, const void* data, size_t size, void** all,
                          size_t* all_size) {
    uint64_t total = 0;
    void* gathered = NULL;
    size_t gathered_size = 0;
    int status = share->gather(share->context, data, size, &gathered, &gathered_size);
    if (share->rank == 0)
        total = status == 0 ? gathered_size : UINT64_MAX;
    if (share->broadcast(share->context, &total, sizeof total) != 0 || total == UINT64_MAX ||
        total > SIZE_MAX - 1) {
        free(gathered);
        return -1;
    }
    if (share->rank != 0 || gathered == NULL) /* rank 0's is NULL when nothing was sent */
        gathered = malloc((size_t)total + 1);
    status = broadcast_pieces(share, gathered, total);
    if (gathered == NULL || status != 0) {
        free(gathered);
        return -1;
    }
    *all = gathered;
    *all_size = (size_t)total;
    return 0;
}
