/*
 * format/container_writer.c - the writing side of the container: temp file
 * and file header, per-stream encoders, the lock-free chunk write path, and
 * the commit (footer index, trailer, fsync, rename). Byte layout: see
 * container_layout.c.
 *
 * Concurrency: a chunk's file range is reserved by one atomic fetch-add on
 * `end` and filled with pwrite, so writers never wait on each other. A
 * thread killed between the two leaves a hole (zeros, or nothing at the end
 * of the file) that the reader reports and skips. Each encoder records its
 * chunks in its own index segment; destroying the encoder links the segment
 * into the writer's list under `lock`, which the write path never takes
 * (except to read the saved message of a faulty writer). The zstd contexts
 * a chunk is compressed with are borrowed from and given back to a small
 * array of atomic pointers, also without a lock.
 */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "common/output_file.h"
#include "format/container_layout.h"
#include "format/container_writer_internal.h"
#include "nvtxw/error.h"

void container_options_init(container_options* opts) { memset(opts, 0, sizeof *opts); }

const char* container_writer_temp_path(const container_writer_t* writer) {
    return writer->out.written;
}

/* Returns the saved error of a faulty writer (setting this thread's message
 * to it), or NVTXW_RESULT_SUCCESS. */
nvtxwResultCode_t writer_check_fault(container_writer_t* w) {
    nvtxwResultCode_t code = atomic_load_explicit(&w->fault, memory_order_acquire);
    if (code == NVTXW_RESULT_SUCCESS)
        return code;
    pthread_mutex_lock(&w->lock);
    error_set(code, "%s", w->fault_message);
    pthread_mutex_unlock(&w->lock);
    return code;
}

/* Makes the writer faulty with this thread's current message (first fault wins). */
nvtxwResultCode_t writer_set_fault(container_writer_t* w, nvtxwResultCode_t code) {
    pthread_mutex_lock(&w->lock);
    if (atomic_load_explicit(&w->fault, memory_order_relaxed) == NVTXW_RESULT_SUCCESS) {
        snprintf(w->fault_message, sizeof w->fault_message, "%s", nvtxw_last_error());
        atomic_store_explicit(&w->fault, code, memory_order_release);
    }
    pthread_mutex_unlock(&w->lock);
    return code;
}

/* Writes at a reserved offset; on failure sets the message and the fault. */
nvtxwResultCode_t writer_pwrite(container_writer_t* w, const void* data, size_t size,
                                uint64_t offset, const char* what) {
    char buf[128];
    int err = container_pwrite_all(w->fd, data, size, offset);
    if (err == 0)
        return NVTXW_RESULT_SUCCESS;
    error_set(NVTXW_RESULT_FAILED, "cannot write %s: path=\"%s\", offset=%llu, size=%zu: %s", what,
              w->out.written, (unsigned long long)offset, size,
              container_strerror(err, buf, sizeof buf));
    return writer_set_fault(w, NVTXW_RESULT_FAILED);
}

/* ---- creation --------------------------------------------------------- */

/* Creates the file the report is written to (output_file.h): a temporary
 * name next to the report, or the report's own name in place. */
nvtxwResultCode_t writer_open_output(container_writer_t* w, const char* final_path, int mode) {
    char buf[128];
    int err;
    w->fd = output_file_open(&w->out, final_path, mode, O_RDWR);
    if (w->fd >= 0)
        return NVTXW_RESULT_SUCCESS;
    err = errno;
    if (err == ENOMEM)
        return error_oom("the report path");
    if (err == EEXIST && mode == OUTPUT_KEEP)
        return error_set(NVTXW_RESULT_FAILED,
                         "cannot create report: path=\"%s\": file exists and overwrite is off",
                         final_path);
    if (mode == OUTPUT_IN_PLACE)
        return error_set(NVTXW_RESULT_FAILED, "cannot create report: path=\"%s\": %s", final_path,
                         container_strerror(err, buf, sizeof buf));
    return error_set(NVTXW_RESULT_FAILED,
                     "cannot create report: path=\"%s\": cannot create temporary file \"%s\": %s",
                     final_path, w->out.written, container_strerror(err, buf, sizeof buf));
}

static void fill_uuid(uint8_t uuid[16]) {
    static const uint8_t zero[16];
    if (memcmp(uuid, zero, 16) != 0)
        return;
    if (getrandom(uuid, 16, GRND_NONBLOCK) != 16) {
        struct timespec ts;
        uint64_t seed[2];
        XXH128_hash_t h;
        clock_gettime(CLOCK_REALTIME, &ts);
        seed[0] = (uint64_t)getpid();
        seed[1] = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
        h = XXH3_128bits(seed, sizeof seed);
        memcpy(uuid, &h.low64, 8);
        memcpy(uuid + 8, &h.high64, 8);
    }
    uuid[6] = (uint8_t)((uuid[6] & 0x0F) | 0x40); /* RFC 4122 version 4 */
    uuid[8] = (uint8_t)((uuid[8] & 0x3F) | 0x80);
}

nvtxwResultCode_t writer_write_header(container_writer_t* w, const container_options* o) {
    container_file_info info;
    size_t name_size = o->session_name ? strlen(o->session_name) : 0;
    unsigned char* header;
    size_t size = container_file_header_size(name_size);
    nvtxwResultCode_t status;
    struct timespec ts;

    memset(&info, 0, sizeof info);
    info.major = CONTAINER_VERSION_MAJOR;
    info.minor = CONTAINER_VERSION_MINOR;
    info.creation_time_ns = o->creation_time_ns;
    if (info.creation_time_ns == 0 && clock_gettime(CLOCK_REALTIME, &ts) == 0)
        info.creation_time_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    memcpy(info.session_uuid, o->session_uuid, 16);
    fill_uuid(info.session_uuid);
    info.session_name = o->session_name;
    header = nvtxw_malloc(size);
    if (header == NULL)
        return error_oom("the report file header");
    container_encode_file_header(header, &info, name_size);
    status = w->shared ? share_reserve_header(w, size) : NVTXW_RESULT_SUCCESS;
    if (status == NVTXW_RESULT_SUCCESS)
        status = writer_pwrite(w, header, size, 0, "report file header");
    atomic_init(&w->end, size);
    nvtxw_free(header);
    return status;
}

static void slot_free(compression_slot* slot) {
    if (slot == NULL)
        return;
    ZSTD_freeCCtx(slot->cctx);
    nvtxw_free(slot->buffer);
    nvtxw_free(slot);
}

void writer_free(container_writer_t* w) {
    index_segment* s = w->segments;
    nvtxw_free(w->closed.entries);
    for (unsigned i = 0; i < WRITER_SPARE_SLOTS; i++)
        slot_free(atomic_load_explicit(&w->spare[i], memory_order_acquire));
    while (s != NULL) {
        index_segment* next = s->next;
        nvtxw_free(s->entries);
        nvtxw_free(s);
        s = next;
    }
    if (w->fd >= 0)
        close(w->fd);
    pthread_mutex_destroy(&w->share_lock);
    pthread_mutex_destroy(&w->lock);
    output_file_free(&w->out);
    nvtxw_free(w);
}

/* Path and name length. */
static nvtxwResultCode_t writer_check_args(const char* final_path, const container_options* opts) {
    if (final_path == NULL || *final_path == '\0')
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT, "cannot create report: path is empty");
    if (opts->session_name != NULL && strlen(opts->session_name) > LAYOUT_NAME_MAX)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot create report: path=\"%s\": session name longer than %d bytes",
                         final_path, LAYOUT_NAME_MAX);
    return NVTXW_RESULT_SUCCESS;
}

container_writer_t* writer_alloc(void) {
    container_writer_t* w = nvtxw_calloc(1, sizeof *w);
    if (w == NULL) {
        error_oom("a report writer");
        return NULL;
    }
    w->fd = -1;
    pthread_mutex_init(&w->lock, NULL);
    pthread_mutex_init(&w->share_lock, NULL);
    for (unsigned i = 0; i < WRITER_SPARE_SLOTS; i++)
        atomic_init(&w->spare[i], NULL);
    return w;
}

container_writer_t* container_writer_create(const char* final_path, const container_options* opts) {
    container_options defaults;
    container_writer_t* w;
    if (opts == NULL) {
        container_options_init(&defaults);
        opts = &defaults;
    }
    if (writer_check_args(final_path, opts) != NVTXW_RESULT_SUCCESS)
        return NULL;
    if ((w = writer_alloc()) == NULL)
        return NULL;
    if (writer_open_output(w, final_path, opts->overwrite) != NVTXW_RESULT_SUCCESS)
        goto error;
    if (writer_write_header(w, opts) != NVTXW_RESULT_SUCCESS)
        goto error;
    return w;
error:
    if (w->fd >= 0)
        output_file_discard(&w->out);
    writer_free(w);
    return NULL;
}

/* ---- encoders and the write path -------------------------------------- */

/* Gives a slot back to the spares, or frees it when they are full. */
static void slot_give_back(container_writer_t* w, compression_slot* slot) {
    for (unsigned i = 0; i < WRITER_SPARE_SLOTS; i++) {
        compression_slot* empty = NULL;
        if (atomic_compare_exchange_strong_explicit(&w->spare[i], &empty, slot,
                                                    memory_order_acq_rel, memory_order_relaxed))
            return;
    }
    slot_free(slot);
}

/* A slot at `level` for one chunk: a spare (set to that level if it was
 * made for another), or a new one; NULL with the error set. */
static compression_slot* slot_borrow(container_writer_t* w, int level) {
    compression_slot* slot = NULL;
    for (unsigned i = 0; i < WRITER_SPARE_SLOTS && slot == NULL; i++) {
        if (atomic_load_explicit(&w->spare[i], memory_order_relaxed) != NULL)
            slot = atomic_exchange_explicit(&w->spare[i], NULL, memory_order_acq_rel);
    }
    if (slot != NULL && slot->level != level) {
        size_t rc = ZSTD_CCtx_setParameter(slot->cctx, ZSTD_c_compressionLevel, level);
        if (ZSTD_isError(rc)) {
            slot_free(slot);
            slot = NULL;
        } else
            slot->level = level;
    }
    if (slot != NULL)
        return slot;
    slot = nvtxw_calloc(1, sizeof *slot);
    if (slot == NULL) {
        error_oom("a chunk compression context");
        return NULL;
    }
    slot->level = level;
    if ((slot->cctx = container_cctx_create(level)) == NULL) {
        nvtxw_free(slot);
        return NULL;
    }
    return slot;
}

container_encoder_t* container_encoder_create(container_writer_t* writer, int compression_level) {
    container_encoder_t* e;
    compression_slot* slot;
    if (writer_check_fault(writer) != NVTXW_RESULT_SUCCESS)
        return NULL;
    /* a slot now says at once whether the level is valid and leaves one
     * ready for the encoder's first chunk */
    if ((slot = slot_borrow(writer, compression_level)) == NULL)
        return NULL;
    slot_give_back(writer, slot);
    e = nvtxw_calloc(1, sizeof *e);
    if (e == NULL || (e->index = nvtxw_calloc(1, sizeof *e->index)) == NULL) {
        error_oom("a chunk encoder");
        nvtxw_free(e);
        return NULL;
    }
    e->level = compression_level;
    e->writer = writer;
    pthread_mutex_lock(&writer->lock);
    writer->live_encoders++;
    pthread_mutex_unlock(&writer->lock);
    return e;
}

/* Room for `more` entries in `s`, growing it by doubling. */
static int segment_fit(index_segment* s, size_t more) {
    if (more > SIZE_MAX - s->count)
        return -1;
    return nvtxw_grow_array((void**)&s->entries, &s->capacity, s->count + more, sizeof *s->entries,
                            8);
}

void container_encoder_destroy(container_encoder_t* encoder) {
    container_writer_t* w;
    index_segment* s;
    if (encoder == NULL)
        return;
    w = encoder->writer;
    s = encoder->index;
    if (w->shared)
        share_pad_tail(encoder); /* a failure makes the writer faulty */
    pthread_mutex_lock(&w->lock);
    if (s->count > 0 && segment_fit(&w->closed, s->count) == 0) {
        memcpy(w->closed.entries + w->closed.count, s->entries, s->count * sizeof *s->entries);
        w->closed.count += s->count;
        s->count = 0;
    }
    if (s->count > 0) { /* no memory to move them: the segment stays as it is */
        s->next = w->segments;
        w->segments = s;
        s = NULL;
    }
    w->live_encoders--;
    pthread_mutex_unlock(&w->lock);
    if (s != NULL) {
        nvtxw_free(s->entries);
        nvtxw_free(s);
    }
    nvtxw_free(encoder);
}

/* Room for one more index entry, allocated before the chunk is written so
 * that a written chunk is always indexed. */
static nvtxwResultCode_t segment_reserve(index_segment* s) {
    return segment_fit(s, 1) == 0 ? NVTXW_RESULT_SUCCESS : error_oom("the chunk index");
}

static nvtxwResultCode_t slot_reserve_buffer(compression_slot* slot, size_t size) {
    size_t need = LAYOUT_CHUNK_HEADER + ZSTD_compressBound(size) + LAYOUT_ALIGN;
    unsigned char* grown;
    if (need <= slot->capacity)
        return NVTXW_RESULT_SUCCESS;
    grown = nvtxw_realloc(slot->buffer, need);
    if (grown == NULL)
        return error_oom("a chunk compression buffer");
    slot->buffer = grown;
    slot->capacity = need;
    return NVTXW_RESULT_SUCCESS;
}

/* Compresses and frames one chunk into the slot's buffer: its span. */
static nvtxwResultCode_t slot_frame(compression_slot* slot, const container_chunk_meta* meta,
                                    const void* data, size_t size, container_chunk_info* info,
                                    uint64_t* span) {
    container_chunk_header h;
    size_t stored;
    if (slot_reserve_buffer(slot, size) != NVTXW_RESULT_SUCCESS)
        return NVTXW_RESULT_FAILED;
    stored = ZSTD_compress2(slot->cctx, slot->buffer + LAYOUT_CHUNK_HEADER,
                            slot->capacity - LAYOUT_CHUNK_HEADER - LAYOUT_ALIGN, data, size);
    if (ZSTD_isError(stored))
        return error_set(NVTXW_RESULT_FAILED, "cannot compress chunk: stream=%llu, size=%zu: %s",
                         (unsigned long long)meta->stream_id, size, ZSTD_getErrorName(stored));
    memset(&h, 0, sizeof h);
    h.meta = *meta;
    h.stored_size = (uint32_t)stored;
    h.raw_size = (uint32_t)size;
    h.payload_checksum = container_checksum(slot->buffer + LAYOUT_CHUNK_HEADER, stored);
    container_encode_chunk_header(slot->buffer, &h);
    *span = container_align(LAYOUT_CHUNK_HEADER + stored);
    memset(slot->buffer + LAYOUT_CHUNK_HEADER + stored, 0, *span - LAYOUT_CHUNK_HEADER - stored);
    info->meta = *meta;
    info->stored_size = h.stored_size;
    info->raw_size = h.raw_size;
    return NVTXW_RESULT_SUCCESS;
}

/* Compresses, frames and writes one chunk with a borrowed slot; fills
 * *info (offset, sizes). */
static nvtxwResultCode_t encoder_emit(container_encoder_t* e, const container_chunk_meta* meta,
                                      const void* data, size_t size, container_chunk_info* info) {
    compression_slot* slot = slot_borrow(e->writer, e->level);
    uint64_t span = 0;
    nvtxwResultCode_t status;
    if (slot == NULL)
        return NVTXW_RESULT_FAILED;
    status = slot_frame(slot, meta, data, size, info, &span);
    if (status == NVTXW_RESULT_SUCCESS) {
        if (e->writer->shared)
            status = share_place(e, span, &info->offset);
        else
            info->offset = atomic_fetch_add_explicit(&e->writer->end, span, memory_order_relaxed);
    }
    if (status == NVTXW_RESULT_SUCCESS) {
        status = writer_pwrite(e->writer, slot->buffer, (size_t)span, info->offset, "report chunk");
    }
    slot_give_back(e->writer, slot);
    return status;
}

nvtxwResultCode_t container_write_chunk(container_encoder_t* encoder,
                                        const container_chunk_meta* meta, const void* data,
                                        size_t size) {
    index_segment* s = encoder->index;
    nvtxwResultCode_t status = writer_check_fault(encoder->writer);
    if (status != NVTXW_RESULT_SUCCESS)
        return status;
    if (meta->kind >= CONTAINER_KIND_RESERVED || size > CONTAINER_CHUNK_MAX ||
        (data == NULL && size > 0))
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot write chunk: kind=%lu, size=%zu, data=%s: kind is reserved, "
                         "size above %zu or data missing",
                         (unsigned long)meta->kind, size, data ? "set" : "NULL",
                         CONTAINER_CHUNK_MAX);
    status = segment_reserve(s);
    if (status == NVTXW_RESULT_SUCCESS)
        status = encoder_emit(encoder, meta, data, size, &s->entries[s->count]);
    if (status == NVTXW_RESULT_SUCCESS)
        s->count++;
    return status;
}

/* ---- finish and abort ------------------------------------------------- */

static int entry_compare(const void* a, const void* b) {
    const container_chunk_info *x = a, *y = b;
    if (x->meta.stream_id != y->meta.stream_id)
        return x->meta.stream_id < y->meta.stream_id ? -1 : 1;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* The serialized footer index (sorted entries); *count entries. */
unsigned char* writer_build_index(container_writer_t* w, size_t* count) {
    container_chunk_info* all;
    unsigned char* out = NULL;
    size_t n = w->closed.count;
    for (index_segment* s = w->segments; s != NULL; s = s->next)
        n += s->count;
    if (n > CONTAINER_CHUNK_MAX / LAYOUT_INDEX_ENTRY) {
        error_set(NVTXW_RESULT_FAILED, "cannot write report index: %zu chunks, at most %zu", n,
                  CONTAINER_CHUNK_MAX / LAYOUT_INDEX_ENTRY);
        return NULL;
    }
    all = nvtxw_reallocarray(NULL, n, sizeof *all);
    out = all ? nvtxw_reallocarray(NULL, n, LAYOUT_INDEX_ENTRY) : NULL;
    if (out == NULL) {
        error_oom("the report index");
        nvtxw_free(all);
        return NULL;
    }
    if (w->closed.count > 0)
        memcpy(all, w->closed.entries, w->closed.count * sizeof *all);
    n = w->closed.count;
    for (index_segment* s = w->segments; s != NULL; s = s->next) {
        if (s->count > 0)
            memcpy(all + n, s->entries, s->count * sizeof *all);
        n += s->count;
    }
    qsort(all, n, sizeof *all, entry_compare);
    for (size_t i = 0; i < n; i++)
        container_encode_index_entry(out + i * LAYOUT_INDEX_ENTRY, all + i);
    nvtxw_free(all);
    *count = n;
    return out;
}

/* Writes the index chunk and the trailer at the end of the file. */
nvtxwResultCode_t writer_write_footer(container_writer_t* w) {
    container_chunk_meta meta = {LAYOUT_KIND_INDEX, 0, 0, 0, 0};
    container_chunk_info info;
    container_encoder_t* e = NULL;
    container_trailer t;
    unsigned char trailer[LAYOUT_TRAILER_SIZE];
    size_t count = 0;
    unsigned char* index = writer_build_index(w, &count);
    nvtxwResultCode_t status = NVTXW_RESULT_FAILED;
    if (index == NULL)
        goto end;
    e = container_encoder_create(w, 3);
    if (e == NULL)
        goto end;
    meta.record_count = (uint32_t)count;
    status = encoder_emit(e, &meta, index, count * LAYOUT_INDEX_ENTRY, &info);
    if (status != NVTXW_RESULT_SUCCESS)
        goto end;
    t.index_offset = info.offset;
    t.index_size = container_align(LAYOUT_CHUNK_HEADER + (uint64_t)info.stored_size);
    t.chunk_count = count;
    container_encode_trailer(trailer, &t);
    status = writer_pwrite(w, trailer, sizeof trailer,
                           atomic_fetch_add(&w->end, LAYOUT_TRAILER_SIZE), "report trailer");
end:
    container_encoder_destroy(e);
    nvtxw_free(index);
    return status;
}

/* Makes the rename durable; failures are ignored (some file systems cannot
 * fsync directories, and the data itself is already synced). The folder's
 * name is cut on the stack: an allocation here could only fail silently. */
static void sync_parent_directory(const char* path) {
    const char* slash = strrchr(path, '/');
    char dir[PATH_MAX];
    size_t length = slash == NULL ? 0 : slash == path ? 1 : (size_t)(slash - path);
    int fd;
    if (length >= sizeof dir)
        return;
    if (slash == NULL)
        memcpy(dir, ".", 2);
    else {
        memcpy(dir, path, length);
        dir[length] = '\0';
    }
    fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

/* Makes the written file the report (output_file.h). */
static nvtxwResultCode_t writer_commit(container_writer_t* w) {
    char buf[128];
    int err;
    if (output_file_commit(&w->out) == 0)
        return NVTXW_RESULT_SUCCESS;
    err = errno;
    if (err == EEXIST)
        return error_set(NVTXW_RESULT_FAILED,
                         "cannot finish report: path=\"%s\": file exists and overwrite is off",
                         w->out.path);
    return error_set(NVTXW_RESULT_FAILED, "cannot finish report: rename \"%s\" to \"%s\": %s",
                     w->out.written, w->out.path, container_strerror(err, buf, sizeof buf));
}

nvtxwResultCode_t container_writer_finish(container_writer_t* writer) {
    nvtxwResultCode_t status;
    size_t live;
    if (writer == NULL)
        return NVTXW_RESULT_SUCCESS;
    pthread_mutex_lock(&writer->lock);
    live = writer->live_encoders;
    pthread_mutex_unlock(&writer->lock);
    if (live != 0) /* caller bug: freeing would leave the encoders dangling */
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot finish report: path=\"%s\": %zu encoders still open",
                         writer->out.path, live);
    status = writer_check_fault(writer);
    if (status != NVTXW_RESULT_SUCCESS)
        goto error;
    if (writer->shared)
        return share_finish(writer, NVTXW_RESULT_SUCCESS);
    status = writer_write_footer(writer);
    if (status == NVTXW_RESULT_SUCCESS)
        status = writer_sync_and_commit(writer);
    if (status == NVTXW_RESULT_SUCCESS) {
        writer_free(writer);
        return NVTXW_RESULT_SUCCESS;
    }
error:
    container_writer_abort(writer);
    return status;
}

nvtxwResultCode_t writer_sync_and_commit(container_writer_t* w) {
    nvtxwResultCode_t status;
    char buf[128];
    if (fsync(w->fd) != 0) {
        int err = errno;
        return error_set(NVTXW_RESULT_FAILED, "cannot finish report: fsync \"%s\": %s",
                         w->out.written, container_strerror(err, buf, sizeof buf));
    }
    status = writer_commit(w);
    if (status == NVTXW_RESULT_SUCCESS)
        sync_parent_directory(w->out.path);
    return status;
}

void container_writer_abort(container_writer_t* writer) {
    if (writer == NULL)
        return;
    if (writer->shared) {
        share_finish(writer, NVTXW_RESULT_FAILED);
        return;
    }
    output_file_discard(&writer->out);
    writer_free(writer);
}
