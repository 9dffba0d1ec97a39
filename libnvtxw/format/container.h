/*
 * format/container.h - the container layer of the report format (.nvtxw).
 *
 * The container moves opaque byte blocks ("chunks") into a crash-safe,
 * checksummed, zstd-compressed, indexed file and back. What a chunk holds
 * (records) is the report sink's business; the container only knows each
 * chunk's kind, stream, record count and timestamp range. The byte layout is
 * specified in docs/report-format.md and implemented in container_layout.c.
 *
 * Writing (DESIGN.md section 3: the write path takes no global lock):
 *
 *   writer = container_writer_create(path, &opts);    // "<path>.tmp-XXXXXX"
 *   enc = container_encoder_create(writer, level);    // one per stream/thread
 *   container_write_chunk(enc, &meta, data, size);    // any number, in parallel
 *   container_encoder_destroy(enc);                   // hands its index back
 *   container_writer_finish(writer);                  // index, trailer, fsync, rename
 *
 * Thread safety of the writer: container_write_chunk on *distinct* encoders
 * of one writer may run concurrently; each call costs one atomic fetch-add on
 * the writer's end offset and one pwrite, and takes no lock. One encoder is
 * used by one thread at a time (the caller serializes a stream's calls, as
 * NVTXW does). container_encoder_create/destroy may run concurrently with
 * writes on other encoders (they take the writer's bookkeeping mutex, which
 * the write path never takes). container_writer_finish/abort run alone,
 * after every encoder was destroyed.
 *
 * Faults: the first failed write (I/O error, disk full, file too large)
 * makes the writer faulty; every later write, encoder creation and finish
 * on it returns that saved error with its message. Argument errors
 * (NVTXW_RESULT_INVALID_ARGUMENT) do not make the writer faulty.
 *
 * Reading: container_reader_open validates the file header, then loads the
 * footer index; without a valid trailer and index (crash, truncation,
 * damage) it scans the chunks from the start, resynchronizes after damage
 * and lists every damaged range. A reader is used by one thread at a time;
 * several readers may open the same file.
 *
 * All functions that fail set the thread-local message (nvtxw_last_error)
 * and return a result code other than NVTXW_RESULT_SUCCESS, or NULL.
 */
#ifndef NVTXW_FORMAT_CONTAINER_H
#define NVTXW_FORMAT_CONTAINER_H

#include <stddef.h>
#include <stdint.h>

#include "nvtxw/abi.h"
#include "nvtxw/share.h"

/* Format version written by this library. The major version changes only
 * for incompatible changes; readers refuse files with a newer major. */
#define CONTAINER_VERSION_MAJOR 2
#define CONTAINER_VERSION_MINOR 0

/* Largest uncompressed chunk (writers refuse more, readers treat a larger
 * size as a damaged header). */
#define CONTAINER_CHUNK_MAX ((size_t)1 << 30)

/* Chunk kinds from this value up are reserved for the container itself
 * (the footer index); container_write_chunk refuses them and readers do not
 * list them. Kinds below are the record layer's. */
#define CONTAINER_KIND_RESERVED 0xFFFF0000u

/* Suggested stream ID of the session's registration log. The container gives
 * it no special meaning. */
#define CONTAINER_STREAM_SESSION UINT64_MAX

/* ---- writer ----------------------------------------------------------- */

typedef struct container_writer container_writer_t;
typedef struct container_encoder container_encoder_t;

typedef struct container_options {
    /* common/output_file.h: OUTPUT_KEEP (0: create and finish fail when
     * final_path exists), OUTPUT_REPLACE (1: a temporary file renamed over
     * final_path at finish), OUTPUT_IN_PLACE (2: final_path itself). */
    int overwrite;
    /* Stored in the file header (UTF-8, up to 4096 bytes); copied. NULL = "". */
    const char* session_name;
    /* Stored in the file header; all zero = generate a random one. */
    uint8_t session_uuid[16];
    /* Nanoseconds since the Unix epoch (UTC); 0 = now (CLOCK_REALTIME). */
    int64_t creation_time_ns;
} container_options;

/* Defaults: no overwrite, no name, random UUID, current time. */
void container_options_init(container_options* opts);

/*
 * Creates "<final_path>.tmp-XXXXXX" next to final_path (O_CREAT|O_EXCL,
 * mode 0666 & ~umask), or final_path itself with OUTPUT_IN_PLACE, and
 * writes the file header. opts may be NULL
 * (defaults); it is copied. Returns NULL on error (existing final_path
 * without overwrite, unwritable directory, ...): the message names the path.
 * The writer owns the temp file until finish or abort.
 */
container_writer_t* container_writer_create(const char* final_path, const container_options* opts);

/*
 * One file written by several processes (nvtxw/share.h; the protocol is in
 * docs/report-format.md, "Writing one report from several processes").
 * Collective: every rank calls it with the same final_path and options,
 * and a share the core has checked (SessionBeginShared: fields and
 * callbacks valid).
 * Rank 0 creates the file as container_writer_create does and sends its
 * temporary name to the others, which open it; then every rank writes its
 * encoders' chunks into extents reserved through share->reserve, and
 * container_writer_finish / _abort, also collective, end it: rank 0 writes
 * the index of every rank's chunks and commits, or removes the file when
 * any rank failed or aborted. `agreement` is a value every rank must pass
 * alike (a hash of what they must agree on); finish fails on every rank
 * when they differ. Returns NULL on every rank when any rank failed.
 */
container_writer_t* container_writer_create_shared(const char* final_path,
                                                   const container_options* opts,
                                                   const nvtxwShare_t* share);

/* The value shared ranks compare at finish (container_writer_create_shared). */
void container_writer_set_agreement(container_writer_t* writer, uint64_t agreement);

/* Name of the temporary file being written; borrowed, valid until finish/abort. */
const char* container_writer_temp_path(const container_writer_t* writer);

/*
 * Writes the footer index and the trailer, fsyncs, and renames the temp
 * file to final_path (the commit point; with overwrite off the commit fails
 * when final_path appeared meanwhile). On any error, including a faulty
 * writer, the temp file is removed. Frees the writer, except when encoders
 * are still open (INVALID_ARGUMENT, nothing changed: destroy them and call
 * again). NULL is a no-op returning success.
 */
nvtxwResultCode_t container_writer_finish(container_writer_t* writer);

/* Removes the temp file and frees the writer (and nothing else: encoders
 * must have been destroyed). NULL is a no-op. */
void container_writer_abort(container_writer_t* writer);

/*
 * Creates the compression state of one stream: a ZSTD_CCtx at
 * compression_level (zstd levels; 0 = zstd's default 3) and reusable
 * buffers. Not shared between threads. The writer must outlive it.
 */
container_encoder_t* container_encoder_create(container_writer_t* writer, int compression_level);

/* Hands the encoder's index entries to its writer and frees it. Cannot
 * fail; NULL is a no-op. */
void container_encoder_destroy(container_encoder_t* encoder);

/* What the record layer says about a chunk; stored verbatim. */
typedef struct container_chunk_meta {
    uint32_t kind;         /* < CONTAINER_KIND_RESERVED */
    uint32_t record_count; /* opaque to the container */
    uint64_t stream_id;
    int64_t first_ts; /* timestamp range covered (opaque, not checked) */
    int64_t last_ts;
} container_chunk_meta;

/*
 * Compresses data[0, size) into one chunk and writes it. data is borrowed
 * for the call; size 0 is allowed, at most CONTAINER_CHUNK_MAX. Chunks of
 * one encoder land in the file in call order; chunks of different encoders
 * interleave. On return with success the bytes are in the kernel's page
 * cache (no fsync: durability comes at finish).
 */
nvtxwResultCode_t container_write_chunk(container_encoder_t* encoder,
                                        const container_chunk_meta* meta, const void* data,
                                        size_t size);

/* ---- reader ----------------------------------------------------------- */

typedef struct container_reader container_reader_t;

/* Ignore the trailer and footer index and scan the whole file. */
#define CONTAINER_OPEN_SCAN 0x1u

/* Where one chunk lies and what it says. */
typedef struct container_chunk_info {
    container_chunk_meta meta;
    uint64_t offset;      /* of its chunk header in the file */
    uint32_t stored_size; /* compressed payload bytes */
    uint32_t raw_size;    /* uncompressed bytes: buffer size for read_chunk */
} container_chunk_info;

/* Header fields of the file. */
typedef struct container_file_info {
    uint16_t major;
    uint16_t minor;
    uint64_t flags;
    int64_t creation_time_ns;
    uint8_t session_uuid[16];
    const char* session_name; /* NUL-terminated, borrowed until close */
} container_file_info;

typedef enum container_damage_reason {
    CONTAINER_DAMAGE_TRUNCATED = 1, /* a chunk runs into the trailer */
    CONTAINER_DAMAGE_UNFINISHED,    /* ends cleanly after a chunk, no trailer (length 0) */
    CONTAINER_DAMAGE_ZERO_FILL,     /* zeros where a chunk was expected (unwritten range) */
    CONTAINER_DAMAGE_BAD_HEADER,    /* no valid chunk header (magic, checksum, sizes) */
    CONTAINER_DAMAGE_BAD_PAYLOAD,   /* valid header, payload checksum mismatch */
    CONTAINER_DAMAGE_BAD_TRAILER,   /* trailer checksum or fields invalid */
    CONTAINER_DAMAGE_BAD_INDEX,     /* trailer valid, footer index chunk invalid */
    CONTAINER_DAMAGE_CUT_OFF        /* no whole trailer: the file ends inside a chunk or it */
} container_damage_reason;

/* One damaged byte range [offset, offset + length). */
typedef struct container_damage {
    uint64_t offset;
    uint64_t length;
    container_damage_reason reason;
    /* BAD_PAYLOAD: what the chunk's header, which was valid, says (kind,
     * record count, stream); has_meta is 0 for the other reasons. */
    int has_meta;
    container_chunk_meta meta;
} container_damage;

/* Static English name of a reason ("truncated chunk", ...). */
const char* container_damage_reason_name(container_damage_reason reason);

/*
 * Opens a report (finished or a crashed writer's temp file). Fails (NULL)
 * only when the file cannot be read, is not a report, has a damaged file
 * header, or has a newer major version ("report format 3.x is newer than
 * this reader (1.x); upgrade nvtxw"). Damage after the file header does not
 * fail: readable chunks are listed, damaged ranges are in
 * container_reader_damage. Memory: O(chunks), never the whole file.
 * flags: CONTAINER_OPEN_*.
 */
container_reader_t* container_reader_open(const char* path, unsigned flags);

/* Closes the file and frees everything; NULL is a no-op. */
void container_reader_close(container_reader_t* reader);

/* Borrowed until close. */
const container_file_info* container_reader_file_info(const container_reader_t* reader);

/* Non-zero when the file has a valid trailer and index (the writer finished
 * and nothing was damaged after it); chunks then come from the index. */
int container_reader_complete(const container_reader_t* reader);

/* Chunks in (stream_id, file offset) order; chunk index i means the same
 * chunk whether the index or a scan found it. Container kinds are not listed. */
size_t container_reader_chunk_count(const container_reader_t* reader);
/* Borrowed until close; NULL when i is out of range. */
const container_chunk_info* container_reader_chunk_info(const container_reader_t* reader, size_t i);

/*
 * Decompresses chunk i into buffer (capacity >= raw_size) and verifies the
 * chunk header checksum, the payload checksum, zstd's content checksum and
 * the size. Not thread-safe for one reader (it owns one decompression
 * context).
 */
nvtxwResultCode_t container_reader_read_chunk(container_reader_t* reader, size_t i, void* buffer,
                                              size_t capacity);

/* Streams in ascending stream_id; stream j holds chunks [*first, *first +
 * *count) in file order. Returns INVALID_ARGUMENT when j is out of range. */
size_t container_reader_stream_count(const container_reader_t* reader);
nvtxwResultCode_t container_reader_stream(const container_reader_t* reader, size_t j,
                                          uint64_t* stream_id, size_t* first, size_t* count);

/* Damaged ranges found at open, in file order; borrowed until close. */
size_t container_reader_damage_count(const container_reader_t* reader);
const container_damage* container_reader_damage(const container_reader_t* reader, size_t i);

#endif /* NVTXW_FORMAT_CONTAINER_H */
