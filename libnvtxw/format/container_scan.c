/*
 * format/container_scan.c - reading a container without its footer index:
 * after a crash, a truncation, or damage to the trailer or index.
 *
 * Algorithm (docs/report-format.md, "Scanning and resynchronization"):
 *
 *   pos = header_size
 *   while pos < end:
 *     fewer than 64 bytes left             -> TRUNCATED [pos, end), stop
 *     valid chunk header at pos:
 *       chunk extends past end             -> TRUNCATED [pos, end), stop
 *     (CUT_OFF for TRUNCATED when no trailer follows: the writer stopped)
 *       payload checksum mismatch          -> BAD_PAYLOAD [pos, pos+span)
 *       otherwise                          -> chunk (container kinds skipped)
 *       pos += span
 *     otherwise (no magic, bad checksum, impossible sizes):
 *       next = first 8-aligned q > pos where a chunk header with a valid
 *              checksum starts, or end
 *       ZERO_FILL if the 64 bytes at pos are all zero, else BAD_HEADER,
 *       for [pos, next); pos = next
 *   the loop ended on a chunk boundary and no trailer follows
 *                                          -> UNFINISHED [end, end)
 *
 * Memory stays constant: payload checksums are computed in pieces of the
 * scratch buffer, and resynchronization reads the file in blocks.
 */
#include "config.h"

#include <string.h>
#define XXH_STATIC_LINKING_ONLY /* XXH3_state_t on the stack */
#include <xxhash.h>

#include "common/error_internal.h"
#include "format/container_reader_internal.h"

#define SCAN_BLOCK ((size_t)1 << 18)
#define SCAN_BLOCK_MIN ((size_t)4096)

/* Bytes read at a time: the scratch buffer, sized by container_scan to the
 * span it scans (a small report does not need a 256 KiB buffer), in whole
 * LAYOUT_ALIGN units so that resynchronization candidates stay aligned. */
static size_t scan_block(const container_reader_t* r) {
    size_t block = r->buffer_capacity < SCAN_BLOCK ? r->buffer_capacity : SCAN_BLOCK;
    return block - block % LAYOUT_ALIGN;
}

/* The scratch buffer for scanning [pos, end): that span, within
 * [SCAN_BLOCK_MIN, SCAN_BLOCK]. */
static size_t scan_buffer_size(uint64_t pos, uint64_t end) {
    uint64_t span = end > pos ? end - pos : 0;
    if (span < SCAN_BLOCK_MIN)
        return SCAN_BLOCK_MIN;
    return span < SCAN_BLOCK ? (size_t)span : SCAN_BLOCK;
}

/* What lies at a position. */
typedef enum scan_result {
    SCAN_CHUNK,       /* valid header and payload: *h filled */
    SCAN_BAD_PAYLOAD, /* valid header, payload checksum mismatch: *h filled */
    SCAN_TRUNCATED,   /* valid header, chunk extends past end */
    SCAN_SHORT,       /* too few bytes left for the chunk header */
    SCAN_NO_CHUNK,    /* no valid header */
    SCAN_IO_ERROR     /* message set */
} scan_result;

/* XXH3 of [offset, offset + size) read in pieces; 0 or an errno. */
static int scan_payload_checksum(container_reader_t* r, uint64_t offset, uint64_t size,
                                 uint64_t* sum) {
    XXH3_state_t state;
    size_t block = scan_block(r);
    XXH3_64bits_reset(&state);
    while (size > 0) {
        size_t piece = size < block ? (size_t)size : block, got;
        int err = container_pread_full(r->fd, r->buffer, piece, offset, &got);
        if (err != 0)
            return err;
        if (got != piece)
            return -1; /* cannot happen below end: the file shrank */
        XXH3_64bits_update(&state, r->buffer, piece);
        offset += piece;
        size -= piece;
    }
    *sum = XXH3_64bits_digest(&state);
    return 0;
}

/* Reads and decodes the chunk header at pos; *zero tells whether its first
 * 64 bytes are all zero. */
static scan_result scan_header(container_reader_t* r, uint64_t pos, uint64_t end,
                               container_chunk_header* h, int* zero) {
    unsigned char bytes[LAYOUT_CHUNK_HEADER_MAX];
    size_t want = LAYOUT_CHUNK_HEADER, got;
    container_status st;
    int err;
    *zero = 0;
    if (end - pos < LAYOUT_CHUNK_HEADER)
        return SCAN_SHORT;
    for (;;) {
        err = container_pread_full(r->fd, bytes, want, pos, &got);
        if (err != 0 || got != want) {
            container_reader_io_error(r, err, pos);
            return SCAN_IO_ERROR;
        }
        st = container_decode_chunk_header(bytes, want, h);
        if (st != LAYOUT_SHORT)
            break;
        if (h->header_size > end - pos)
            return SCAN_SHORT;
        want = h->header_size;
    }
    if (st == LAYOUT_OK)
        return SCAN_CHUNK;
    *zero = 1;
    for (size_t i = 0; i < LAYOUT_CHUNK_HEADER; i++)
        *zero &= bytes[i] == 0;
    return SCAN_NO_CHUNK;
}

/* Classifies what lies at pos (a chunk boundary or a resync candidate). */
static scan_result scan_at(container_reader_t* r, uint64_t pos, uint64_t end,
                           container_chunk_header* h, int* zero) {
    scan_result result = scan_header(r, pos, end, h, zero);
    uint64_t sum = 0;
    int err;
    if (result != SCAN_CHUNK)
        return result;
    if (container_chunk_span(h) > end - pos)
        return SCAN_TRUNCATED;
    err = scan_payload_checksum(r, pos + h->header_size, h->stored_size, &sum);
    if (err != 0) {
        container_reader_io_error(r, err, pos);
        return SCAN_IO_ERROR;
    }
    return sum == h->payload_checksum ? SCAN_CHUNK : SCAN_BAD_PAYLOAD;
}

/* First 8-aligned q in [from, end) where a chunk header with a valid
 * checksum starts, else end. Reads blocks and looks for the magic; only
 * candidates are decoded. A verified header is trusted even when its payload
 * is damaged or cut: the main loop then reports that chunk on its own. */
static nvtxwResultCode_t scan_resync(container_reader_t* r, uint64_t from, uint64_t end,
                                     uint64_t* next) {
    container_chunk_header h;
    int zero;
    size_t block_size = scan_block(r);
    *next = end;
    for (uint64_t block = from; block < end; block += block_size) {
        size_t want = end - block < block_size ? (size_t)(end - block) : block_size, got;
        int err = container_pread_full(r->fd, r->buffer, want, block, &got);
        if (err != 0 || got != want)
            return container_reader_io_error(r, err, block);
        for (size_t i = 0; i + 4 <= want; i += LAYOUT_ALIGN) {
            scan_result result;
            if (container_get_u32(r->buffer + i) != LAYOUT_CHUNK_MAGIC)
                continue;
            result = scan_at(r, block + i, end, &h, &zero);
            if (result == SCAN_IO_ERROR)
                return NVTXW_RESULT_FAILED;
            if (result == SCAN_CHUNK || result == SCAN_BAD_PAYLOAD || result == SCAN_TRUNCATED) {
                *next = block + i;
                return NVTXW_RESULT_SUCCESS;
            }
            /* scan_at used the buffer: read this block again */
            err = container_pread_full(r->fd, r->buffer, want, block, &got);
            if (err != 0 || got != want)
                return container_reader_io_error(r, err, block);
        }
    }
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t scan_add_chunk(container_reader_t* r, uint64_t pos,
                                        const container_chunk_header* h) {
    container_chunk_info c;
    if (h->meta.kind >= CONTAINER_KIND_RESERVED)
        return NVTXW_RESULT_SUCCESS; /* the index, or a later minor's container kind */
    c.meta = h->meta;
    c.offset = pos;
    c.stored_size = h->stored_size;
    c.raw_size = h->raw_size;
    return container_reader_add_chunk(r, &c);
}

nvtxwResultCode_t container_scan(container_reader_t* r, uint64_t end, int trailer_follows) {
    uint64_t pos = r->data_start, next;
    container_chunk_header h;
    nvtxwResultCode_t status = container_reader_buffer(r, scan_buffer_size(pos, end));
    int zero, clean = 1;
    while (status == NVTXW_RESULT_SUCCESS && pos < end) {
        switch (scan_at(r, pos, end, &h, &zero)) {
        case SCAN_CHUNK:
            status = scan_add_chunk(r, pos, &h);
            pos += container_chunk_span(&h);
            break;
        case SCAN_BAD_PAYLOAD:
            status = container_reader_add_damage(r, pos, container_chunk_span(&h),
                                                 CONTAINER_DAMAGE_BAD_PAYLOAD);
            if (status == NVTXW_RESULT_SUCCESS) { /* the record layer counts what it lost */
                r->damage[r->damage_count - 1].has_meta = 1;
                r->damage[r->damage_count - 1].meta = h.meta;
            }
            pos += container_chunk_span(&h);
            break;
        case SCAN_TRUNCATED:
        case SCAN_SHORT:
            /* without a trailer, the writer stopped in the middle of a chunk */
            status = container_reader_add_damage(r, pos, end - pos,
                                                 trailer_follows ? CONTAINER_DAMAGE_TRUNCATED
                                                                 : CONTAINER_DAMAGE_CUT_OFF);
            clean = 0;
            pos = end;
            break;
        case SCAN_NO_CHUNK:
            status = scan_resync(r, pos + LAYOUT_ALIGN, end, &next);
            if (status == NVTXW_RESULT_SUCCESS)
                status = container_reader_add_damage(r, pos, next - pos,
                                                     zero ? CONTAINER_DAMAGE_ZERO_FILL
                                                          : CONTAINER_DAMAGE_BAD_HEADER);
            clean = next < end;
            pos = next;
            break;
        case SCAN_IO_ERROR:
            status = NVTXW_RESULT_FAILED;
            break;
        }
    }
    if (status == NVTXW_RESULT_SUCCESS && clean && !trailer_follows)
        status = container_reader_add_damage(r, end, 0, CONTAINER_DAMAGE_UNFINISHED);
    return status;
}
