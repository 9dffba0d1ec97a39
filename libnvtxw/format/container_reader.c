/*
 * format/container_reader.c - opening a container: file header and version
 * check, trailer and footer index (the fast path), fallback to the scan of
 * container_scan.c, and verified chunk reads. Byte layout: see
 * container_layout.c.
 */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "format/container_reader_internal.h"

const char* container_damage_reason_name(container_damage_reason reason) {
    switch (reason) {
    case CONTAINER_DAMAGE_TRUNCATED:
        return "truncated chunk";
    case CONTAINER_DAMAGE_CUT_OFF:
        return "truncated chunk, no trailer: the writer did not finish";
    case CONTAINER_DAMAGE_UNFINISHED:
        return "no trailer: the writer did not finish";
    case CONTAINER_DAMAGE_ZERO_FILL:
        return "zero-filled range (reserved but never written)";
    case CONTAINER_DAMAGE_BAD_HEADER:
        return "bad chunk header";
    case CONTAINER_DAMAGE_BAD_PAYLOAD:
        return "payload checksum mismatch";
    case CONTAINER_DAMAGE_BAD_TRAILER:
        return "bad trailer";
    case CONTAINER_DAMAGE_BAD_INDEX:
        return "bad footer index";
    }
    return "unknown damage";
}

nvtxwResultCode_t container_reader_io_error(container_reader_t* r, int err, uint64_t offset) {
    char buf[128];
    return error_set(NVTXW_RESULT_FAILED, "cannot read report: path=\"%s\", offset=%llu: %s",
                     r->path, (unsigned long long)offset,
                     err ? container_strerror(err, buf, sizeof buf) : "file shrank while reading");
}

nvtxwResultCode_t container_reader_buffer(container_reader_t* r, size_t size) {
    unsigned char* grown;
    if (size <= r->buffer_capacity)
        return NVTXW_RESULT_SUCCESS;
    grown = nvtxw_realloc(r->buffer, size);
    if (grown == NULL)
        return error_oom("a report read buffer");
    r->buffer = grown;
    r->buffer_capacity = size;
    return NVTXW_RESULT_SUCCESS;
}

/* Appends to a growable array of `item` bytes per element. */
static nvtxwResultCode_t array_push(void** array, size_t* count, size_t* capacity,
                                    const void* value, size_t item, const char* what) {
    if (nvtxw_grow_array(array, capacity, *count + 1, item, 64) != 0)
        return error_oom(what);
    memcpy((unsigned char*)*array + *count * item, value, item);
    (*count)++;
    return NVTXW_RESULT_SUCCESS;
}

nvtxwResultCode_t container_reader_add_chunk(container_reader_t* r,
                                             const container_chunk_info* chunk) {
    return array_push((void**)&r->chunks, &r->chunk_count, &r->chunk_capacity, chunk, sizeof *chunk,
                      "the chunk list");
}

nvtxwResultCode_t container_reader_add_damage(container_reader_t* r, uint64_t offset,
                                              uint64_t length, container_damage_reason reason) {
    container_damage d;
    memset(&d, 0, sizeof d);
    d.offset = offset;
    d.length = length;
    d.reason = reason;
    return array_push((void**)&r->damage, &r->damage_count, &r->damage_capacity, &d, sizeof d,
                      "the damage list");
}

/* ---- file header ------------------------------------------------------ */

static nvtxwResultCode_t reader_read_header(container_reader_t* r) {
    unsigned char prefix[LAYOUT_FILE_HEADER_MIN];
    size_t got, size, name_size;
    char* name;
    int err = container_pread_full(r->fd, prefix, sizeof prefix, 0, &got);
    if (err != 0)
        return container_reader_io_error(r, err, 0);
    if (got < 8 || (got < sizeof prefix && memcmp(prefix, LAYOUT_FILE_MAGIC, 8) == 0))
        return error_set(NVTXW_RESULT_FAILED,
                         "cannot open report: path=\"%s\": file header truncated (size=%zu)",
                         r->path, got);
    size = container_file_header_prefix(prefix, r->path);
    if (size == 0)
        return NVTXW_RESULT_FAILED;
    if (container_reader_buffer(r, size) != NVTXW_RESULT_SUCCESS)
        return NVTXW_RESULT_FAILED;
    err = container_pread_full(r->fd, r->buffer, size, 0, &got);
    if (err != 0 || got != size)
        return err ? container_reader_io_error(r, err, 0)
                   : error_set(NVTXW_RESULT_FAILED,
                               "cannot open report: path=\"%s\": file header truncated", r->path);
    if (container_decode_file_header(r->buffer, size, &r->info, &name_size, r->path) !=
        NVTXW_RESULT_SUCCESS)
        return NVTXW_RESULT_FAILED;
    name = nvtxw_strndup((const char*)r->buffer + LAYOUT_FILE_FIXED, name_size);
    if (name == NULL)
        return error_oom("the session name");
    r->info.session_name = name;
    r->data_start = size;
    return NVTXW_RESULT_SUCCESS;
}

/* ---- trailer and footer index ----------------------------------------- */

/* Reads the payload of the chunk at `offset` into r->buffer and verifies
 * both checksums; *h receives the header. 0, an errno, or -1 (damaged). */
static int reader_load_payload(container_reader_t* r, uint64_t offset, container_chunk_header* h) {
    unsigned char bytes[LAYOUT_CHUNK_HEADER_MAX];
    size_t want = LAYOUT_CHUNK_HEADER, got;
    container_status st;
    int err;
    for (;;) {
        err = container_pread_full(r->fd, bytes, want, offset, &got);
        if (err != 0 || got != want)
            return err ? err : -1;
        st = container_decode_chunk_header(bytes, want, h);
        if (st != LAYOUT_SHORT)
            break;
        want = h->header_size;
    }
    if (st != LAYOUT_OK)
        return -1;
    if (container_reader_buffer(r, h->stored_size) != NVTXW_RESULT_SUCCESS)
        return ENOMEM;
    err = container_pread_full(r->fd, r->buffer, h->stored_size, offset + h->header_size, &got);
    if (err != 0 || got != h->stored_size)
        return err ? err : -1;
    return container_checksum(r->buffer, got) == h->payload_checksum ? 0 : -1;
}

/* Index entries must be sorted by (stream, offset), lie between the file
 * header and the index chunk, and have sane sizes. */
static int index_entry_valid(const container_reader_t* r, const container_chunk_info* c,
                             const container_chunk_info* previous, uint64_t index_offset) {
    if (c->offset < r->data_start || c->offset % LAYOUT_ALIGN != 0 ||
        c->raw_size > CONTAINER_CHUNK_MAX || c->offset > index_offset ||
        index_offset - c->offset < LAYOUT_CHUNK_HEADER + (uint64_t)c->stored_size)
        return 0;
    if (previous == NULL)
        return 1;
    if (previous->meta.stream_id != c->meta.stream_id)
        return previous->meta.stream_id < c->meta.stream_id;
    return previous->offset < c->offset;
}

/* Decompresses the index chunk's payload (in r->buffer) into the chunk list. */
static int reader_decode_index(container_reader_t* r, const container_chunk_header* h,
                               uint64_t index_offset) {
    unsigned char* entries = nvtxw_malloc(h->raw_size);
    size_t n = h->raw_size / LAYOUT_INDEX_ENTRY, size;
    int valid = 0;
    if (entries == NULL)
        return error_oom("the report index"), -1;
    size = ZSTD_decompressDCtx(r->dctx, entries, h->raw_size, r->buffer, h->stored_size);
    if (ZSTD_isError(size) || size != h->raw_size)
        goto end;
    r->chunks = nvtxw_reallocarray(NULL, n, sizeof *r->chunks);
    if (r->chunks == NULL) {
        valid = -1;
        error_oom("the chunk list");
        goto end;
    }
    r->chunk_capacity = n;
    for (r->chunk_count = 0; r->chunk_count < n; r->chunk_count++) {
        container_chunk_info* c = &r->chunks[r->chunk_count];
        container_decode_index_entry(entries + r->chunk_count * LAYOUT_INDEX_ENTRY, c);
        if (!index_entry_valid(r, c, r->chunk_count ? c - 1 : NULL, index_offset))
            goto end;
    }
    valid = 1;
end:
    nvtxw_free(entries);
    return valid;
}

/* 1 when the index was loaded, 0 when damaged (damage recorded by the
 * caller), -1 on I/O or memory errors (message set). */
static int reader_load_index(container_reader_t* r, const container_trailer* t) {
    container_chunk_header h;
    int err, valid;
    err = reader_load_payload(r, t->index_offset, &h);
    if (err > 0)
        return container_reader_io_error(r, err, t->index_offset), -1;
    if (err < 0 || h.meta.kind != LAYOUT_KIND_INDEX || container_chunk_span(&h) != t->index_size ||
        h.raw_size != t->chunk_count * LAYOUT_INDEX_ENTRY)
        return 0;
    valid = reader_decode_index(r, &h, t->index_offset);
    if (valid != 1) {
        nvtxw_free(r->chunks);
        r->chunks = NULL;
        r->chunk_count = r->chunk_capacity = 0;
    }
    return valid;
}

/* Index path, falling back to the scan. */
static nvtxwResultCode_t reader_find_chunks(container_reader_t* r, unsigned flags) {
    unsigned char bytes[LAYOUT_TRAILER_SIZE];
    container_trailer t;
    size_t got;
    uint64_t end = r->file_size, trailer_offset = r->file_size - LAYOUT_TRAILER_SIZE;
    int err, loaded;
    if (r->file_size < r->data_start + LAYOUT_TRAILER_SIZE)
        return container_scan(r, end, 0);
    err = container_pread_full(r->fd, bytes, sizeof bytes, trailer_offset, &got);
    if (err != 0 || got != sizeof bytes)
        return container_reader_io_error(r, err, trailer_offset);
    if (!container_has_trailer_magic(bytes) || trailer_offset % LAYOUT_ALIGN != 0)
        return container_scan(r, end, 0);
    end = trailer_offset;
    if (container_decode_trailer(bytes, &t) != 0 || t.index_offset < r->data_start ||
        t.index_offset > trailer_offset || trailer_offset - t.index_offset != t.index_size) {
        if (container_reader_add_damage(r, trailer_offset, LAYOUT_TRAILER_SIZE,
                                        CONTAINER_DAMAGE_BAD_TRAILER) != NVTXW_RESULT_SUCCESS)
            return NVTXW_RESULT_FAILED;
        return container_scan(r, end, 1);
    }
    if (flags & CONTAINER_OPEN_SCAN)
        return container_scan(r, end, 1);
    loaded = reader_load_index(r, &t);
    if (loaded < 0)
        return NVTXW_RESULT_FAILED;
    if (loaded > 0)
        return NVTXW_RESULT_SUCCESS;
    if (container_reader_add_damage(r, t.index_offset, trailer_offset - t.index_offset,
                                    CONTAINER_DAMAGE_BAD_INDEX) != NVTXW_RESULT_SUCCESS)
        return NVTXW_RESULT_FAILED;
    return container_scan(r, t.index_offset, 1);
}

/* ---- open and close --------------------------------------------------- */

static int chunk_compare(const void* a, const void* b) {
    const container_chunk_info *x = a, *y = b;
    if (x->meta.stream_id != y->meta.stream_id)
        return x->meta.stream_id < y->meta.stream_id ? -1 : 1;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static int damage_compare(const void* a, const void* b) {
    const container_damage *x = a, *y = b;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* Sorts chunks (a scan finds them in file order) and damage, and groups
 * the chunks by stream. */
static nvtxwResultCode_t reader_build_streams(container_reader_t* r) {
    size_t n = 0;
    if (r->chunk_count > 0)
        qsort(r->chunks, r->chunk_count, sizeof *r->chunks, chunk_compare);
    if (r->damage_count > 0)
        qsort(r->damage, r->damage_count, sizeof *r->damage, damage_compare);
    for (size_t i = 0; i < r->chunk_count; i++)
        n += i == 0 || r->chunks[i].meta.stream_id != r->chunks[i - 1].meta.stream_id;
    r->streams = nvtxw_reallocarray(NULL, n, sizeof *r->streams);
    if (r->streams == NULL)
        return error_oom("the stream list");
    for (size_t i = 0; i < r->chunk_count; i++) {
        if (i == 0 || r->chunks[i].meta.stream_id != r->chunks[i - 1].meta.stream_id) {
            reader_stream* s = &r->streams[r->stream_count++];
            s->stream_id = r->chunks[i].meta.stream_id;
            s->first = i;
            s->count = 0;
        }
        r->streams[r->stream_count - 1].count++;
    }
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t reader_open_file(container_reader_t* r) {
    struct stat st;
    char buf[128];
    int err;
    r->fd = open(r->path, O_RDONLY | O_CLOEXEC);
    if (r->fd < 0 || fstat(r->fd, &st) != 0) {
        err = errno;
        return error_set(NVTXW_RESULT_FAILED, "cannot open report: path=\"%s\": %s", r->path,
                         container_strerror(err, buf, sizeof buf));
    }
    if (!S_ISREG(st.st_mode))
        return error_set(NVTXW_RESULT_FAILED, "cannot open report: path=\"%s\": not a regular file",
                         r->path);
    r->file_size = (uint64_t)st.st_size;
    return NVTXW_RESULT_SUCCESS;
}

container_reader_t* container_reader_open(const char* path, unsigned flags) {
    container_reader_t* r = nvtxw_calloc(1, sizeof *r);
    if (r == NULL) {
        error_oom("a report reader");
        return NULL;
    }
    r->fd = -1;
    r->path = nvtxw_strdup(path ? path : "");
    if (r->path == NULL) {
        error_oom("the report path");
        goto error;
    }
    if (reader_open_file(r) != NVTXW_RESULT_SUCCESS ||
        reader_read_header(r) != NVTXW_RESULT_SUCCESS)
        goto error;
    r->dctx = container_dctx_create();
    if (r->dctx == NULL || reader_find_chunks(r, flags) != NVTXW_RESULT_SUCCESS ||
        reader_build_streams(r) != NVTXW_RESULT_SUCCESS)
        goto error;
    r->complete = r->damage_count == 0 && r->file_size >= r->data_start + LAYOUT_TRAILER_SIZE;
    return r;
error:
    container_reader_close(r);
    return NULL;
}

void container_reader_close(container_reader_t* reader) {
    if (reader == NULL)
        return;
    if (reader->fd >= 0)
        close(reader->fd);
    ZSTD_freeDCtx(reader->dctx);
    nvtxw_free(reader->buffer);
    nvtxw_free(reader->streams);
    nvtxw_free(reader->damage);
    nvtxw_free(reader->chunks);
    nvtxw_free((char*)reader->info.session_name);
    nvtxw_free(reader->path);
    nvtxw_free(reader);
}

/* ---- accessors and chunk reads ---------------------------------------- */

const container_file_info* container_reader_file_info(const container_reader_t* reader) {
    return &reader->info;
}

int container_reader_complete(const container_reader_t* reader) { return reader->complete; }

size_t container_reader_chunk_count(const container_reader_t* reader) {
    return reader->chunk_count;
}

const container_chunk_info* container_reader_chunk_info(const container_reader_t* reader,
                                                        size_t i) {
    return i < reader->chunk_count ? &reader->chunks[i] : NULL;
}

size_t container_reader_stream_count(const container_reader_t* reader) {
    return reader->stream_count;
}

nvtxwResultCode_t container_reader_stream(const container_reader_t* reader, size_t j,
                                          uint64_t* stream_id, size_t* first, size_t* count) {
    if (j >= reader->stream_count)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT, "cannot get stream: index=%zu, streams=%zu",
                         j, reader->stream_count);
    *stream_id = reader->streams[j].stream_id;
    *first = reader->streams[j].first;
    *count = reader->streams[j].count;
    return NVTXW_RESULT_SUCCESS;
}

size_t container_reader_damage_count(const container_reader_t* reader) {
    return reader->damage_count;
}

const container_damage* container_reader_damage(const container_reader_t* reader, size_t i) {
    return i < reader->damage_count ? &reader->damage[i] : NULL;
}

/* Sets the message of a failed chunk read. */
static nvtxwResultCode_t chunk_error(const container_reader_t* r, size_t i, const char* what) {
    return error_set(NVTXW_RESULT_FAILED,
                     "cannot read chunk: path=\"%s\", chunk=%zu, offset=%llu, stream=%llu: %s",
                     r->path, i, (unsigned long long)r->chunks[i].offset,
                     (unsigned long long)r->chunks[i].meta.stream_id, what);
}

nvtxwResultCode_t container_reader_read_chunk(container_reader_t* reader, size_t i, void* buffer,
                                              size_t capacity) {
    const container_chunk_info* c;
    container_chunk_header h;
    size_t size;
    int err;
    if (i >= reader->chunk_count || (buffer == NULL && capacity > 0))
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot read chunk: chunk=%zu, chunks=%zu, buffer=%s", i,
                         reader->chunk_count, buffer ? "set" : "NULL");
    c = &reader->chunks[i];
    if (capacity < c->raw_size)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot read chunk: chunk=%zu: capacity=%zu, raw_size=%lu", i, capacity,
                         (unsigned long)c->raw_size);
    err = reader_load_payload(reader, c->offset, &h);
    if (err > 0)
        return container_reader_io_error(reader, err, c->offset);
    if (err < 0)
        return chunk_error(reader, i, "chunk header or payload checksum mismatch");
    if (h.meta.stream_id != c->meta.stream_id || h.meta.kind != c->meta.kind ||
        h.stored_size != c->stored_size || h.raw_size != c->raw_size)
        return chunk_error(reader, i, "chunk header disagrees with the footer index");
    size = ZSTD_decompressDCtx(reader->dctx, buffer, c->raw_size, reader->buffer, h.stored_size);
    if (ZSTD_isError(size))
        return chunk_error(reader, i, ZSTD_getErrorName(size));
    if (size != c->raw_size)
        return chunk_error(reader, i, "decompressed size differs from the chunk header");
    return NVTXW_RESULT_SUCCESS;
}
