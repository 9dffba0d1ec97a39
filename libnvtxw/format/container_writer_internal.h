/*
 * format/container_writer_internal.h - the writer's state, shared by
 * container_writer.c (one process) and container_share.c (one file written
 * by several processes, nvtxw/share.h).
 */
#ifndef NVTXW_FORMAT_CONTAINER_WRITER_INTERNAL_H
#define NVTXW_FORMAT_CONTAINER_WRITER_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <zstd.h>

#include "common/output_file.h"
#include "format/container.h"
#include "nvtxw/error.h"
#include "nvtxw/share.h"

/* The chunks one encoder wrote, in write order. */
typedef struct index_segment {
    container_chunk_info* entries;
    size_t count;
    size_t capacity;
    struct index_segment* next;
} index_segment;

/* A zstd context and the buffer a chunk is framed in. Encoders borrow one
 * per chunk (a chunk is one whole zstd frame: no history between chunks),
 * so an open stream holds none: a context holds its workspace, 0.6 MiB at
 * level 1 once it has compressed a 256 KiB chunk, 1 MiB at level 3, and
 * the buffer 256 KiB; with one per encoder, a process of 9 threads
 * converted with every stream open spent 5.4 MB on contexts. */
typedef struct compression_slot {
    ZSTD_CCtx* cctx;
    int level;             /* the context's compression level */
    unsigned char* buffer; /* chunk header + zstd frame + padding */
    size_t capacity;
} compression_slot;

/* Slots kept for reuse: at least as many as threads compress at once
 * (compression threads, or writers compressing on their own); more are
 * freed when given back. */
#define WRITER_SPARE_SLOTS 16

struct container_writer {
    int fd;
    output_file out;      /* out.path: the report's name; out.written: the file being written */
    _Atomic uint64_t end; /* next free file offset: the only shared write-path state */
    atomic_int fault;     /* 0, or the result code of the first failed write */
    pthread_mutex_t lock; /* fault_message, closed, segments, live_encoders */
    char fault_message[NVTXW_ERROR_MAX];
    /* The chunks of destroyed encoders: their entries are moved here, so a
     * closed stream costs its entries (48 bytes a chunk), not a segment
     * with room to grow (100,000 one-chunk streams held 300 MB of it) */
    index_segment closed;
    index_segment* segments; /* of destroyed encoders whose entries found no room in `closed` */
    /* Slots not lent out, NULL where empty: taken by exchange, given back by
     * compare-exchange into an empty place, so no slot is ever held twice.
     * Reused rather than made per chunk or stream: a new context and its
     * workspace cost about 10 us (100,000 one-event streams into a report:
     * 2.5 -> 1.55 s). */
    _Atomic(compression_slot*) spare[WRITER_SPARE_SLOTS];
    size_t live_encoders;
    /* A file shared with other processes (container_share.c): their share,
     * serialized by share_lock (the slow path, once an extent); shared is
     * cleared once rank 0 alone writes the footer. Contributors (rank > 0)
     * write into rank 0's temporary file: out.written is its name, and
     * they neither commit nor remove it. */
    int shared;
    nvtxwShare_t share;
    pthread_mutex_t share_lock;
    uint64_t agreement; /* container_writer_set_agreement */
};

struct container_encoder {
    container_writer_t* writer;
    int level;
    index_segment* index;
    /* Shared file: the extent this encoder fills, [extent_next, extent_end),
     * and the bytes it wrote (extents grow with them). */
    uint64_t extent_next;
    uint64_t extent_end;
    uint64_t written;
};

/* Shared with container_share.c. */
nvtxwResultCode_t writer_set_fault(container_writer_t* w, nvtxwResultCode_t code);
nvtxwResultCode_t writer_check_fault(container_writer_t* w);
nvtxwResultCode_t writer_pwrite(container_writer_t* w, const void* data, size_t size,
                                uint64_t offset, const char* what);
nvtxwResultCode_t writer_write_header(container_writer_t* w, const container_options* o);
nvtxwResultCode_t writer_write_footer(container_writer_t* w);
nvtxwResultCode_t writer_sync_and_commit(container_writer_t* w);
unsigned char* writer_build_index(container_writer_t* w, size_t* count);
void writer_free(container_writer_t* w);
nvtxwResultCode_t writer_open_output(container_writer_t* w, const char* final_path, int mode);
container_writer_t* writer_alloc(void);

/* Shared file (container_share.c): where a chunk of `span` bytes goes in
 * the encoder's extent; the tail of its extent padded when it is done. */
nvtxwResultCode_t share_place(container_encoder_t* e, uint64_t span, uint64_t* offset);
nvtxwResultCode_t share_pad_tail(container_encoder_t* e);
/* Rank 0's file header: the first `size` bytes of the shared offset. */
nvtxwResultCode_t share_reserve_header(container_writer_t* w, size_t size);
/* The collective end of a shared writer (finish, or abort with `status`
 * FAILED); frees the writer. */
nvtxwResultCode_t share_finish(container_writer_t* w, nvtxwResultCode_t status);

#endif /* NVTXW_FORMAT_CONTAINER_WRITER_INTERNAL_H */
