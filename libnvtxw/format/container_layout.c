/*
 * format/container_layout.c - encoding and decoding of the container's
 * fixed structures. All integers are little-endian; offsets in bytes.
 * Normative text: docs/report-format.md.
 *
 *   file     = file_header chunk* [index_chunk trailer]
 *
 *   file_header (header_size bytes, a multiple of 8, >= 64):
 *     0  magic        8  89 4E 56 54 58 57 0D 0A ("\x89NVTXW\r\n")
 *     8  major        u16   (frozen position)
 *    10  minor        u16   (frozen position)
 *    12  header_size  u32   chunks start here
 *    16  flags        u64   none defined; readers ignore unknown bits
 *    24  created_ns   i64   ns since the Unix epoch, UTC
 *    32  uuid         16 bytes
 *    48  name_size    u32   UTF-8 session name bytes, <= 4096
 *    52  reserved     u32   0
 *    56  name         name_size bytes, zero padding to a multiple of 8
 *   h-8  checksum     u64   XXH3_64bits of bytes [0, header_size - 8)
 *
 *   chunk (starts 8-aligned; header_size + stored_size, zero padding to 8):
 *     0  magic        u32   0x4B43564E ("NVCK")
 *     4  header_size  u16   64 in 1.0; later minors may grow it
 *     6  flags        u16   none defined; readers ignore unknown bits
 *     8  kind         u32   >= 0xFFFF0000 reserved for the container
 *    12  record_count u32
 *    16  stream_id    u64
 *    24  first_ts     i64
 *    32  last_ts      i64
 *    40  stored_size  u32   payload bytes (one zstd frame)
 *    44  raw_size     u32   uncompressed bytes, <= 2^30
 *    48  payload_sum  u64   XXH3_64bits of the stored payload bytes
 *   h-8  header_sum   u64   XXH3_64bits of bytes [0, header_size - 8)
 *
 *   index_chunk = chunk with kind 0xFFFFFFFF whose payload is chunk_count
 *   entries of 48 bytes, sorted by (stream_id, offset):
 *     0 offset u64, 8 stream_id u64, 16 first_ts i64, 24 last_ts i64,
 *    32 kind u32, 36 record_count u32, 40 stored_size u32, 44 raw_size u32
 *
 *   trailer (48 bytes, the last bytes of a finished file):
 *     0 index_offset u64, 8 index_size u64 (index chunk span),
 *    16 chunk_count u64, 24 reserved u64 (0),
 *    32 checksum u64 = XXH3_64bits of bytes [0, 32), 40 magic "NVTXWEND"
 */
#include "config.h"

#include <string.h>
#define XXH_STATIC_LINKING_ONLY /* XXH3_state_t on the stack */
#include <xxhash.h>

#include "common/error_internal.h"
#include "format/container_layout.h"

void container_put_u16(unsigned char* p, uint16_t v) {
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
}

void container_put_u32(unsigned char* p, uint32_t v) {
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

void container_put_u64(unsigned char* p, uint64_t v) {
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

uint16_t container_get_u16(const unsigned char* p) { return (uint16_t)(p[0] | (p[1] << 8)); }

uint32_t container_get_u32(const unsigned char* p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

uint64_t container_get_u64(const unsigned char* p) {
    return (uint64_t)container_get_u32(p) | (uint64_t)container_get_u32(p + 4) << 32;
}

uint64_t container_checksum(const void* data, size_t size) { return XXH3_64bits(data, size); }

uint64_t container_zero_checksum(uint64_t size) {
    static const unsigned char zeros[4096];
    XXH3_state_t state;
    XXH3_64bits_reset(&state);
    for (; size > sizeof zeros; size -= sizeof zeros)
        XXH3_64bits_update(&state, zeros, sizeof zeros);
    XXH3_64bits_update(&state, zeros, (size_t)size);
    return XXH3_64bits_digest(&state);
}

size_t container_file_header_size(size_t name_size) {
    return (size_t)container_align(LAYOUT_FILE_FIXED + name_size) + 8;
}

void container_encode_file_header(unsigned char* out, const container_file_info* info,
                                  size_t name_size) {
    size_t size = container_file_header_size(name_size);
    memset(out, 0, size);
    memcpy(out, LAYOUT_FILE_MAGIC, 8);
    container_put_u16(out + 8, info->major);
    container_put_u16(out + 10, info->minor);
    container_put_u32(out + 12, (uint32_t)size);
    container_put_u64(out + 16, info->flags);
    container_put_u64(out + 24, (uint64_t)info->creation_time_ns);
    memcpy(out + 32, info->session_uuid, 16);
    container_put_u32(out + 48, (uint32_t)name_size);
    if (name_size > 0)
        memcpy(out + LAYOUT_FILE_FIXED, info->session_name, name_size);
    container_put_u64(out + size - 8, container_checksum(out, size - 8));
}

size_t container_file_header_prefix(const unsigned char* in, const char* path) {
    uint16_t major = container_get_u16(in + 8), minor = container_get_u16(in + 10);
    uint32_t size = container_get_u32(in + 12);
    if (memcmp(in, LAYOUT_FILE_MAGIC, 8) != 0) {
        error_set(NVTXW_RESULT_FAILED, "cannot open report: path=\"%s\": not an nvtxw report",
                  path);
        return 0;
    }
    if (major > CONTAINER_VERSION_MAJOR || major == 0) {
        error_set(NVTXW_RESULT_NOT_SUPPORTED,
                  "cannot open report: path=\"%s\": report format %u.x is newer than this reader "
                  "(%u.x); upgrade nvtxw",
                  path, (unsigned)major, (unsigned)CONTAINER_VERSION_MAJOR);
        return 0;
    }
    if (size < LAYOUT_FILE_HEADER_MIN || size % LAYOUT_ALIGN != 0 ||
        size > container_file_header_size(LAYOUT_NAME_MAX)) {
        error_set(NVTXW_RESULT_FAILED,
                  "cannot open report: path=\"%s\": damaged file header (header_size=%lu, "
                  "version %u.%u)",
                  path, (unsigned long)size, (unsigned)major, (unsigned)minor);
        return 0;
    }
    return size;
}

nvtxwResultCode_t container_decode_file_header(const unsigned char* in, size_t size,
                                               container_file_info* info, size_t* name_size,
                                               const char* path) {
    uint64_t stored = container_get_u64(in + size - 8);
    *name_size = container_get_u32(in + 48);
    if (stored != container_checksum(in, size - 8) ||
        container_file_header_size(*name_size) > size) {
        return error_set(NVTXW_RESULT_FAILED,
                         "cannot open report: path=\"%s\": damaged file header (checksum "
                         "mismatch or bad name size)",
                         path);
    }
    info->major = container_get_u16(in + 8);
    info->minor = container_get_u16(in + 10);
    info->flags = container_get_u64(in + 16);
    info->creation_time_ns = (int64_t)container_get_u64(in + 24);
    memcpy(info->session_uuid, in + 32, 16);
    return NVTXW_RESULT_SUCCESS;
}

void container_encode_chunk_header(unsigned char* out, const container_chunk_header* h) {
    container_put_u32(out, LAYOUT_CHUNK_MAGIC);
    container_put_u16(out + 4, LAYOUT_CHUNK_HEADER);
    container_put_u16(out + 6, h->flags);
    container_put_u32(out + 8, h->meta.kind);
    container_put_u32(out + 12, h->meta.record_count);
    container_put_u64(out + 16, h->meta.stream_id);
    container_put_u64(out + 24, (uint64_t)h->meta.first_ts);
    container_put_u64(out + 32, (uint64_t)h->meta.last_ts);
    container_put_u32(out + 40, h->stored_size);
    container_put_u32(out + 44, h->raw_size);
    container_put_u64(out + 48, h->payload_checksum);
    container_put_u64(out + 56, container_checksum(out, 56));
}

container_status container_decode_chunk_header(const unsigned char* in, size_t avail,
                                               container_chunk_header* h) {
    if (container_get_u32(in) != LAYOUT_CHUNK_MAGIC)
        return LAYOUT_NO_MAGIC;
    h->header_size = container_get_u16(in + 4);
    if (h->header_size < LAYOUT_CHUNK_HEADER || h->header_size > LAYOUT_CHUNK_HEADER_MAX ||
        h->header_size % LAYOUT_ALIGN != 0)
        return LAYOUT_BAD_FIELDS;
    if (h->header_size > avail)
        return LAYOUT_SHORT;
    if (container_get_u64(in + h->header_size - 8) != container_checksum(in, h->header_size - 8u))
        return LAYOUT_BAD_CHECKSUM;
    h->flags = container_get_u16(in + 6);
    h->meta.kind = container_get_u32(in + 8);
    h->meta.record_count = container_get_u32(in + 12);
    h->meta.stream_id = container_get_u64(in + 16);
    h->meta.first_ts = (int64_t)container_get_u64(in + 24);
    h->meta.last_ts = (int64_t)container_get_u64(in + 32);
    h->stored_size = container_get_u32(in + 40);
    h->raw_size = container_get_u32(in + 44);
    h->payload_checksum = container_get_u64(in + 48);
    if (h->raw_size > CONTAINER_CHUNK_MAX ||
        h->stored_size > CONTAINER_CHUNK_MAX + (CONTAINER_CHUNK_MAX >> 7))
        return LAYOUT_BAD_FIELDS;
    return LAYOUT_OK;
}

void container_encode_trailer(unsigned char* out, const container_trailer* t) {
    container_put_u64(out, t->index_offset);
    container_put_u64(out + 8, t->index_size);
    container_put_u64(out + 16, t->chunk_count);
    container_put_u64(out + 24, 0);
    container_put_u64(out + 32, container_checksum(out, 32));
    memcpy(out + 40, LAYOUT_TRAILER_MAGIC, 8);
}

int container_has_trailer_magic(const unsigned char* in) {
    return memcmp(in + 40, LAYOUT_TRAILER_MAGIC, 8) == 0;
}

int container_decode_trailer(const unsigned char* in, container_trailer* t) {
    if (!container_has_trailer_magic(in) ||
        container_get_u64(in + 32) != container_checksum(in, 32))
        return -1;
    t->index_offset = container_get_u64(in);
    t->index_size = container_get_u64(in + 8);
    t->chunk_count = container_get_u64(in + 16);
    return 0;
}

void container_encode_index_entry(unsigned char* out, const container_chunk_info* c) {
    container_put_u64(out, c->offset);
    container_put_u64(out + 8, c->meta.stream_id);
    container_put_u64(out + 16, (uint64_t)c->meta.first_ts);
    container_put_u64(out + 24, (uint64_t)c->meta.last_ts);
    container_put_u32(out + 32, c->meta.kind);
    container_put_u32(out + 36, c->meta.record_count);
    container_put_u32(out + 40, c->stored_size);
    container_put_u32(out + 44, c->raw_size);
}

void container_decode_index_entry(const unsigned char* in, container_chunk_info* c) {
    c->offset = container_get_u64(in);
    c->meta.stream_id = container_get_u64(in + 8);
    c->meta.first_ts = (int64_t)container_get_u64(in + 16);
    c->meta.last_ts = (int64_t)container_get_u64(in + 24);
    c->meta.kind = container_get_u32(in + 32);
    c->meta.record_count = container_get_u32(in + 36);
    c->stored_size = container_get_u32(in + 40);
    c->raw_size = container_get_u32(in + 44);
}
