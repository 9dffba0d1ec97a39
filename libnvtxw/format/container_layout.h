/*
 * format/container_layout.h - byte layout of the container (see
 * container_layout.c and docs/report-format.md), shared by the writer, the
 * reader and the scanner of format/. Never installed.
 */
#ifndef NVTXW_FORMAT_CONTAINER_LAYOUT_H
#define NVTXW_FORMAT_CONTAINER_LAYOUT_H

#include <stddef.h>
#include <stdint.h>
#include <zstd.h>

#include "format/container.h"

#define LAYOUT_FILE_MAGIC "\x89NVTXW\r\n"
#define LAYOUT_FILE_FIXED 56           /* fixed part of the file header */
#define LAYOUT_FILE_HEADER_MIN 64      /* header without a session name */
#define LAYOUT_NAME_MAX 4096           /* longest session name */
#define LAYOUT_CHUNK_MAGIC 0x4B43564Eu /* "NVCK" */
#define LAYOUT_CHUNK_HEADER 64         /* chunk header written by 1.0 */
#define LAYOUT_CHUNK_HEADER_MAX 4096   /* largest header_size a reader accepts */
#define LAYOUT_TRAILER_SIZE 48
#define LAYOUT_TRAILER_MAGIC "NVTXWEND"
#define LAYOUT_INDEX_ENTRY 48
#define LAYOUT_KIND_INDEX 0xFFFFFFFFu
#define LAYOUT_KIND_PADDING 0xFFFFFFFEu /* the unused tail of a shared writer's extent */
#define LAYOUT_ALIGN 8

/* Rounds up to the chunk alignment (8 bytes). */
static inline uint64_t container_align(uint64_t n) {
    return (n + LAYOUT_ALIGN - 1) & ~(uint64_t)(LAYOUT_ALIGN - 1);
}

/* A decoded chunk header. */
typedef struct container_chunk_header {
    uint16_t header_size;
    uint16_t flags;
    container_chunk_meta meta;
    uint32_t stored_size;
    uint32_t raw_size;
    uint64_t payload_checksum;
} container_chunk_header;

/* Total bytes a chunk occupies, header and padding included. */
static inline uint64_t container_chunk_span(const container_chunk_header* h) {
    return container_align((uint64_t)h->header_size + h->stored_size);
}

typedef struct container_trailer {
    uint64_t index_offset;
    uint64_t index_size;
    uint64_t chunk_count;
} container_trailer;

/* Result of decoding a chunk header. */
typedef enum container_status {
    LAYOUT_OK = 0,
    LAYOUT_NO_MAGIC,     /* not a chunk header at all */
    LAYOUT_BAD_CHECKSUM, /* magic present, checksum mismatch */
    LAYOUT_BAD_FIELDS,   /* header_size or stored/raw sizes impossible */
    LAYOUT_SHORT         /* fine so far; h->header_size bytes are needed */
} container_status;

void container_put_u16(unsigned char* p, uint16_t v);
void container_put_u32(unsigned char* p, uint32_t v);
void container_put_u64(unsigned char* p, uint64_t v);
uint16_t container_get_u16(const unsigned char* p);
uint32_t container_get_u32(const unsigned char* p);
uint64_t container_get_u64(const unsigned char* p);

uint64_t container_checksum(const void* data, size_t size);
/* The checksum of `size` zero bytes (a padding chunk's payload). */
uint64_t container_zero_checksum(uint64_t size);

/* File header: encodes into out (capacity >= container_file_header_size). */
size_t container_file_header_size(size_t name_size);
void container_encode_file_header(unsigned char* out, const container_file_info* info,
                                  size_t name_size);
/* Checks the magic and the major version of the first LAYOUT_FILE_HEADER_MIN
 * bytes and returns the header size (0 with the error message set). */
size_t container_file_header_prefix(const unsigned char* in, const char* path);
/* Decodes a whole file header of `size` bytes (from container_file_header_prefix)
 * except the name, which lies at in + LAYOUT_FILE_FIXED, *name_size bytes.
 * NVTXW_RESULT_SUCCESS or an error with the message set. */
nvtxwResultCode_t container_decode_file_header(const unsigned char* in, size_t size,
                                               container_file_info* info, size_t* name_size,
                                               const char* path);

/* Chunk header: encodes LAYOUT_CHUNK_HEADER bytes. */
void container_encode_chunk_header(unsigned char* out, const container_chunk_header* h);
/* Decodes from `avail` (>= LAYOUT_CHUNK_HEADER) bytes. A header of a later
 * minor version may be longer: LAYOUT_SHORT asks for h->header_size bytes. */
container_status container_decode_chunk_header(const unsigned char* in, size_t avail,
                                               container_chunk_header* h);

void container_encode_trailer(unsigned char* out, const container_trailer* t);
/* 0 when the magic and checksum are valid. */
int container_decode_trailer(const unsigned char* in, container_trailer* t);
/* Non-zero when the last 8 bytes are the trailer magic. */
int container_has_trailer_magic(const unsigned char* in);

void container_encode_index_entry(unsigned char* out, const container_chunk_info* c);
void container_decode_index_entry(const unsigned char* in, container_chunk_info* c);

/* ---- I/O helpers (container_io.c) ---- */

/* Writes all `size` bytes at `offset`, retrying after EINTR and short
 * writes. 0, or the errno of the failure (EIO when pwrite wrote nothing). */
int container_pwrite_all(int fd, const void* data, size_t size, uint64_t offset);
/* Reads up to `size` bytes at `offset`; *got is short only at end of file.
 * 0, or the errno of the failure. */
int container_pread_full(int fd, void* data, size_t size, uint64_t offset, size_t* got);
/* Thread-safe strerror: the text for err, in buf or static. */
const char* container_strerror(int err, char* buf, size_t size);
/* zstd contexts whose memory comes from nvtxw_malloc (STYLE rule 12);
 * NULL with the message set on failure. Free with ZSTD_freeCCtx/DCtx. */
ZSTD_CCtx* container_cctx_create(int level);
ZSTD_DCtx* container_dctx_create(void);

#endif /* NVTXW_FORMAT_CONTAINER_LAYOUT_H */
