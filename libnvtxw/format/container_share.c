/*
 * format/container_share.c - one report file written by several processes
 * (nvtxw/share.h; docs/report-format.md, "Writing one report from several
 * processes").
 *
 * Rank 0 creates the file and writes the file header; the others open the
 * file by the name rank 0 broadcasts. Chunk ranges come from the share's
 * `reserve`, a fetch-and-add on an end offset the ranks share. One remote
 * fetch-and-add per chunk would make rank 0's process the meeting point of
 * every chunk of the job, so each encoder reserves an *extent* (16 KiB,
 * growing with what the encoder wrote up to 16 MiB, or the chunk's span
 * when larger) and places its chunks in it without any lock. A chunk that
 * does not fit ends the extent: its unused tail becomes a padding chunk
 * (a container kind readers skip; only its header is written, the payload
 * is the zeros of a never-written range), and a tail is never 1 to 63
 * bytes, too small for a chunk header. share_lock serializes the
 * reservations of a process, once per extent, never per chunk.
 *
 * The end is collective: every rank reports its status and agreement value
 * (one all-reduce), sends its index entries to rank 0 (one gather), and
 * rank 0 writes the index and the trailer behind everything, fsyncs,
 * commits, and broadcasts the outcome.
 */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "common/share_agree.h"
#include "format/container_layout.h"
#include "format/container_writer_internal.h"

#define EXTENT_MIN ((uint64_t)16 << 10)
#define EXTENT_MAX ((uint64_t)16 << 20)
/* The temporary name and rank 0's outcome travel in one broadcast. */
#define SHARE_NAME_MAX 4096

/* Calls share->reserve under share_lock; on failure the writer is faulty. */
static nvtxwResultCode_t share_reserve(container_writer_t* w, uint64_t size, uint64_t* offset) {
    int rc;
    pthread_mutex_lock(&w->share_lock);
    rc = w->share.reserve(w->share.context, size, offset);
    pthread_mutex_unlock(&w->share_lock);
    if (rc == 0 && *offset <= UINT64_MAX - size)
        return NVTXW_RESULT_SUCCESS;
    error_set(NVTXW_RESULT_FAILED,
              "cannot reserve %llu bytes of shared report \"%s\" (rank %u of %u): the share's "
              "reserve callback failed (%d)",
              (unsigned long long)size, w->out.written, w->share.rank, w->share.ranks, rc);
    return writer_set_fault(w, NVTXW_RESULT_FAILED);
}

nvtxwResultCode_t share_reserve_header(container_writer_t* w, size_t size) {
    uint64_t at = 0;
    nvtxwResultCode_t status = share_reserve(w, size, &at);
    if (status == NVTXW_RESULT_SUCCESS && at != 0)
        return error_set(NVTXW_RESULT_FAILED,
                         "cannot create shared report \"%s\": the share's end offset starts at "
                         "%llu, not 0 (a reserve before rank 0's file header)",
                         w->out.path, (unsigned long long)at);
    return status;
}

/* Writes a padding chunk over [offset, offset + size): its header only. */
static nvtxwResultCode_t pad(container_writer_t* w, uint64_t offset, uint64_t size) {
    unsigned char header[LAYOUT_CHUNK_HEADER];
    container_chunk_header h;
    memset(&h, 0, sizeof h);
    h.meta.kind = LAYOUT_KIND_PADDING;
    h.stored_size = (uint32_t)(size - LAYOUT_CHUNK_HEADER);
    h.payload_checksum = container_zero_checksum(h.stored_size);
    container_encode_chunk_header(header, &h);
    return writer_pwrite(w, header, sizeof header, offset, "report padding");
}

nvtxwResultCode_t share_pad_tail(container_encoder_t* e) {
    uint64_t room = e->extent_end - e->extent_next;
    nvtxwResultCode_t status = NVTXW_RESULT_SUCCESS;
    if (room > 0 && writer_check_fault(e->writer) == NVTXW_RESULT_SUCCESS)
        status = pad(e->writer, e->extent_next, room);
    e->extent_next = e->extent_end;
    return status;
}

/* A new extent's size for a chunk of `span`: half of what the encoder
 * wrote, in [EXTENT_MIN, EXTENT_MAX], at least span, and never leaving 1
 * to 63 bytes after the chunk. A stream's last extent is padded to its
 * end: the file's apparent size grows by at most a third of what each
 * stream wrote, plus EXTENT_MIN (holes: no disk blocks), while a stream
 * reserves O(log) extents until they reach EXTENT_MAX. */
static uint64_t extent_size(const container_encoder_t* e, uint64_t span) {
    uint64_t size = container_align(e->written / 2);
    if (size < EXTENT_MIN)
        size = EXTENT_MIN;
    if (size > EXTENT_MAX)
        size = EXTENT_MAX;
    if (size < span + LAYOUT_CHUNK_HEADER)
        size = span;
    return size;
}

nvtxwResultCode_t share_place(container_encoder_t* e, uint64_t span, uint64_t* offset) {
    uint64_t room = e->extent_end - e->extent_next;
    if (room != span && room < span + LAYOUT_CHUNK_HEADER) {
        uint64_t size = extent_size(e, span), at = 0;
        nvtxwResultCode_t status = share_pad_tail(e);
        if (status == NVTXW_RESULT_SUCCESS)
            status = share_reserve(e->writer, size, &at);
        if (status != NVTXW_RESULT_SUCCESS)
            return status;
        e->extent_next = at;
        e->extent_end = at + size;
    }
    *offset = e->extent_next;
    e->extent_next += span;
    e->written += span;
    return NVTXW_RESULT_SUCCESS;
}

/* ---- creation ---------------------------------------------------------- */

/* Rank 0: the file and its header; `name` gets the outcome for the others
 * (the temporary name, or "" when creation failed). */
static nvtxwResultCode_t create_owner(container_writer_t* w, const char* final_path,
                                      const container_options* opts, char* name) {
    nvtxwResultCode_t status = writer_open_output(w, final_path, opts->overwrite);
    if (status == NVTXW_RESULT_SUCCESS && w->out.special) {
        status = error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                           "cannot create shared report: path=\"%s\" is a device, FIFO or "
                           "socket; ranks write a shared report at offsets of a regular file",
                           final_path);
    } else if (status == NVTXW_RESULT_SUCCESS && strlen(w->out.written) >= SHARE_NAME_MAX) {
        status = error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                           "cannot create shared report: path=\"%s\" is longer than %d bytes",
                           final_path, SHARE_NAME_MAX - 1);
    }
    if (status == NVTXW_RESULT_SUCCESS)
        status = writer_write_header(w, opts);
    if (status == NVTXW_RESULT_SUCCESS)
        snprintf(name, SHARE_NAME_MAX, "%s", w->out.written);
    return status;
}

/* Rank > 0: opens the file rank 0 created, named in `name` ("" = rank 0
 * failed). */
static nvtxwResultCode_t open_contributor(container_writer_t* w, const char* final_path,
                                          const char* name) {
    char buf[128];
    if (*name == '\0')
        return error_set(NVTXW_RESULT_FAILED,
                         "cannot create shared report \"%s\": rank 0 could not create it "
                         "(its message says why)",
                         final_path);
    w->out.path = nvtxw_strdup(final_path);
    w->out.written = nvtxw_strdup(name);
    if (w->out.path == NULL || w->out.written == NULL)
        return error_oom("the report path");
    w->fd = open(name, O_WRONLY | O_CLOEXEC);
    if (w->fd < 0) {
        int err = errno;
        return error_set(NVTXW_RESULT_FAILED,
                         "cannot open shared report \"%s\" (rank %u of %u): %s: %s", final_path,
                         w->share.rank, w->share.ranks, name,
                         container_strerror(err, buf, sizeof buf));
    }
    return NVTXW_RESULT_SUCCESS;
}

/* The creation's collectives: rank 0's outcome in `name`, then everyone's.
 * Run by every rank, also one that could not allocate its writer (w NULL). */
static nvtxwResultCode_t create_collectives(container_writer_t* w, const nvtxwShare_t* share,
                                            const char* final_path, nvtxwResultCode_t status,
                                            char* name) {
    uint64_t values[1];
    uint64_t failed;
    if (share->broadcast(share->context, name, SHARE_NAME_MAX) != 0 &&
        status == NVTXW_RESULT_SUCCESS)
        status = error_set(NVTXW_RESULT_FAILED,
                           "cannot create shared report \"%s\" (rank %u of %u): the share's "
                           "broadcast failed",
                           final_path, share->rank, share->ranks);
    if (status == NVTXW_RESULT_SUCCESS && share->rank != 0)
        status = open_contributor(w, final_path, name);
    failed = share_failed_rank(share, status != NVTXW_RESULT_SUCCESS, values, 1);
    if (failed != 0 && status == NVTXW_RESULT_SUCCESS)
        status = error_set(NVTXW_RESULT_FAILED,
                           failed == UINT64_MAX
                               ? "cannot create shared report \"%s\": the share's reduceMax failed"
                               : "cannot create shared report \"%s\": rank %llu could not (its "
                                 "message says why)",
                           final_path, (unsigned long long)(failed - 1));
    return status;
}

container_writer_t* container_writer_create_shared(const char* final_path,
                                                   const container_options* opts,
                                                   const nvtxwShare_t* share) {
    container_options defaults;
    container_writer_t* w;
    char name[SHARE_NAME_MAX] = "";
    nvtxwResultCode_t status = NVTXW_RESULT_SUCCESS;
    if (opts == NULL) {
        container_options_init(&defaults);
        opts = &defaults;
    }
    if (final_path == NULL || *final_path == '\0')
        status = error_set(NVTXW_RESULT_INVALID_ARGUMENT, "cannot create report: path is empty");
    else if (opts->session_name != NULL && strlen(opts->session_name) > LAYOUT_NAME_MAX)
        status = error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                           "cannot create report: path=\"%s\": session name longer than %d bytes",
                           final_path, LAYOUT_NAME_MAX);
    if ((w = writer_alloc()) == NULL)
        status = NVTXW_RESULT_FAILED;
    else {
        w->shared = 1;
        memcpy(&w->share, share, sizeof w->share);
        w->share.structSize = sizeof w->share;
    }
    if (status == NVTXW_RESULT_SUCCESS && share->rank == 0)
        status = create_owner(w, final_path, opts, name);
    status = create_collectives(w, share, final_path, status, name);
    if (status == NVTXW_RESULT_SUCCESS)
        return w;
    if (w != NULL && share->rank == 0 && w->fd >= 0)
        output_file_discard(&w->out);
    if (w != NULL)
        writer_free(w);
    return NULL;
}

void container_writer_set_agreement(container_writer_t* writer, uint64_t agreement) {
    writer->agreement = agreement;
}

/* ---- the end ----------------------------------------------------------- */

/* This rank's index entries, encoded; *size bytes. NULL with the error set. */
static unsigned char* encode_entries(container_writer_t* w, size_t* size) {
    size_t count = w->closed.count, n = 0;
    unsigned char* out;
    for (index_segment* s = w->segments; s != NULL; s = s->next)
        count += s->count;
    *size = count * LAYOUT_INDEX_ENTRY;
    out = nvtxw_malloc(*size ? *size : 1);
    if (out == NULL) {
        error_oom("the chunk index sent to rank 0");
        return NULL;
    }
    for (size_t i = 0; i < w->closed.count; i++)
        container_encode_index_entry(out + LAYOUT_INDEX_ENTRY * n++, &w->closed.entries[i]);
    for (index_segment* s = w->segments; s != NULL; s = s->next)
        for (size_t i = 0; i < s->count; i++)
            container_encode_index_entry(out + LAYOUT_INDEX_ENTRY * n++, &s->entries[i]);
    return out;
}

/* Rank 0: every rank's entries become the writer's (rank 0's own are
 * already there: they are skipped, the first `own` bytes). */
static nvtxwResultCode_t take_entries(container_writer_t* w, const unsigned char* all, size_t size,
                                      size_t own) {
    size_t count = (size - own) / LAYOUT_INDEX_ENTRY;
    if ((size - own) % LAYOUT_INDEX_ENTRY != 0 || own > size)
        return error_set(NVTXW_RESULT_FAILED,
                         "cannot finish shared report \"%s\": the gathered index is %zu bytes, "
                         "not whole entries",
                         w->out.path, size);
    if (count > SIZE_MAX / sizeof *w->closed.entries - w->closed.count ||
        nvtxw_grow_array((void**)&w->closed.entries, &w->closed.capacity, w->closed.count + count,
                         sizeof *w->closed.entries, 8) != 0)
        return error_oom("the report index");
    for (size_t i = 0; i < count; i++)
        container_decode_index_entry(all + own + i * LAYOUT_INDEX_ENTRY,
                                     &w->closed.entries[w->closed.count++]);
    return NVTXW_RESULT_SUCCESS;
}

/* Rank 0, after every rank wrote its last chunk: the footer behind them,
 * fsync, commit. */
static nvtxwResultCode_t owner_commit(container_writer_t* w, const unsigned char* all, size_t size,
                                      size_t own) {
    uint64_t end = 0;
    nvtxwResultCode_t status = take_entries(w, all, size, own);
    if (status == NVTXW_RESULT_SUCCESS)
        status = share_reserve(w, 0, &end); /* no rank reserves any more */
    if (status != NVTXW_RESULT_SUCCESS)
        return status;
    atomic_store(&w->end, end);
    w->shared = 0; /* the footer is rank 0's alone, at the end */
    status = writer_write_footer(w);
    w->shared = 1;
    return status == NVTXW_RESULT_SUCCESS ? writer_sync_and_commit(w) : status;
}

/* `mine` (this rank's entries) to rank 0 and, there, the commit; every
 * rank gets rank 0's outcome. */
static nvtxwResultCode_t gather_and_commit(container_writer_t* w, const unsigned char* mine,
                                           size_t size) {
    size_t all_size = 0;
    void* all = NULL;
    char outcome = 0;
    nvtxwResultCode_t status = NVTXW_RESULT_SUCCESS;
    if (w->share.gather(w->share.context, mine, size, &all, &all_size) != 0)
        status = error_set(NVTXW_RESULT_FAILED,
                           "cannot finish shared report \"%s\" (rank %u of %u): the share's "
                           "gather failed",
                           w->out.path, w->share.rank, w->share.ranks);
    if (w->share.rank == 0) {
        if (status == NVTXW_RESULT_SUCCESS)
            status = owner_commit(w, all, all_size, size);
        outcome = status == NVTXW_RESULT_SUCCESS; /* share_finish removes the file if not */
    }
    free(all);
    if (w->share.broadcast(w->share.context, &outcome, 1) != 0 && status == NVTXW_RESULT_SUCCESS)
        status = error_set(NVTXW_RESULT_FAILED,
                           "cannot finish shared report \"%s\" (rank %u of %u): the share's "
                           "broadcast failed",
                           w->out.path, w->share.rank, w->share.ranks);
    if (status == NVTXW_RESULT_SUCCESS && !outcome)
        status = error_set(NVTXW_RESULT_FAILED,
                           "cannot finish shared report \"%s\": rank 0 could not (its message "
                           "says why)",
                           w->out.path);
    return status;
}

/* Whether the ranks agree, after share_failed_rank's reduction of
 * {status, agreement, ~agreement}: the largest of a and of ~a are a and ~a
 * on a rank only when every rank has the same a. */
static int agreed(const container_writer_t* w, const uint64_t* values) {
    return values[1] == w->agreement && values[2] == ~w->agreement;
}

nvtxwResultCode_t share_finish(container_writer_t* w, nvtxwResultCode_t status) {
    uint64_t values[3];
    uint64_t failed;
    unsigned char* mine = NULL;
    size_t size = 0;
    char buf[128];
    if (status == NVTXW_RESULT_SUCCESS && w->share.rank != 0 && fsync(w->fd) != 0) {
        int err = errno;
        status = error_set(NVTXW_RESULT_FAILED, "cannot finish report: fsync \"%s\": %s",
                           w->out.written, container_strerror(err, buf, sizeof buf));
    }
    if (status == NVTXW_RESULT_SUCCESS && (mine = encode_entries(w, &size)) == NULL)
        status = NVTXW_RESULT_FAILED;
    values[1] = w->agreement;
    values[2] = ~w->agreement;
    failed = share_failed_rank(&w->share, status != NVTXW_RESULT_SUCCESS, values, 3);
    if (failed == 0 && agreed(w, values))
        status = gather_and_commit(w, mine, size);
    else if (failed == 0)
        status = error_set(NVTXW_RESULT_FAILED,
                           "cannot finish shared report \"%s\": the ranks did not make the same "
                           "registrations in the same order (rank %u's differ from another's)",
                           w->out.path, w->share.rank);
    else if (status == NVTXW_RESULT_SUCCESS)
        status = error_set(
            NVTXW_RESULT_FAILED,
            failed == UINT64_MAX
                ? "cannot finish shared report \"%s\": the share's reduceMax failed"
                : "cannot finish shared report \"%s\": rank %llu failed (its message says why)",
            w->out.path, (unsigned long long)(failed - 1));
    if (status != NVTXW_RESULT_SUCCESS && w->share.rank == 0)
        output_file_discard(&w->out);
    nvtxw_free(mine);
    writer_free(w);
    return status;
}
