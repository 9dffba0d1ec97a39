/*
 * format/container_reader_internal.h - the reader's state, shared by
 * container_reader.c (open, index, chunk reads) and container_scan.c
 * (sequential scan and resynchronization). Never installed.
 */
#ifndef NVTXW_FORMAT_CONTAINER_READER_INTERNAL_H
#define NVTXW_FORMAT_CONTAINER_READER_INTERNAL_H

#include "format/container_layout.h"

typedef struct reader_stream {
    uint64_t stream_id;
    size_t first;
    size_t count;
} reader_stream;

struct container_reader {
    int fd;
    char* path;
    uint64_t file_size;
    uint64_t data_start; /* first chunk: the file header size */
    container_file_info info;
    int complete;
    container_chunk_info* chunks;
    size_t chunk_count, chunk_capacity;
    container_damage* damage;
    size_t damage_count, damage_capacity;
    reader_stream* streams;
    size_t stream_count;
    ZSTD_DCtx* dctx;
    unsigned char* buffer; /* scratch: payloads, scan blocks */
    size_t buffer_capacity;
};

/* Grows the scratch buffer to at least `size` bytes. */
nvtxwResultCode_t container_reader_buffer(container_reader_t* r, size_t size);
nvtxwResultCode_t container_reader_add_chunk(container_reader_t* r,
                                             const container_chunk_info* chunk);
nvtxwResultCode_t container_reader_add_damage(container_reader_t* r, uint64_t offset,
                                              uint64_t length, container_damage_reason reason);
/* Sets the message for a failed read at `offset`. */
nvtxwResultCode_t container_reader_io_error(container_reader_t* r, int err, uint64_t offset);

/* Scans [r->data_start, end) chunk by chunk, listing chunks and damage.
 * `trailer_follows`: a trailer (valid or not) lies at `end`; otherwise a
 * clean end after a chunk is reported as CONTAINER_DAMAGE_UNFINISHED. Fails
 * only on I/O errors and memory exhaustion. */
nvtxwResultCode_t container_scan(container_reader_t* r, uint64_t end, int trailer_follows);

#endif /* NVTXW_FORMAT_CONTAINER_READER_INTERNAL_H */
