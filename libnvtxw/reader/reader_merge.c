/*
 * reader/reader_merge.c - the order of stream records. Each stream has a
 * cursor holding at most one decompressed chunk and its next record (the
 * "head"). Stream order drains the cursors one after another; time order is
 * a k-way merge: a tournament tree of the streams' heads, keyed by (head
 * time, stream index), so memory stays O(streams x chunk size).
 *
 * A returned head stays valid until the next call: its cursor is advanced
 * (possibly loading the next chunk over the buffer the record points into)
 * only at the start of the following nvtxw_reader_next.
 */
#include "config.h"

#include <string.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "reader/reader_internal.h"

void reader_cursor_free(reader_stream_cursor* cur) {
    nvtxw_free(cur->buffer);
    nvtxw_free(cur->dict);
    reader_arena_reset(&cur->arena);
    nvtxw_free(cur->run);
    cur->buffer = NULL;
    cur->dict = NULL;
    cur->run = NULL;
    cur->capacity = cur->dict_capacity = cur->dict_count = 0;
    cur->run_count = cur->run_next = 0;
}

static void cursor_rewind(reader_stream_cursor* cur) {
    reader_cursor_free(cur);
    cur->next_chunk = 0;
    cur->loaded = cur->has_head = cur->started = 0;
}

/* Loads the stream's next readable event chunk; 0 when there is none.
 * Chunks that fail to read are listed as damage and skipped. */
static int load_next_chunk(nvtxw_reader_t* reader, reader_stream_cursor* cur,
                           nvtxwResultCode_t* status) {
    const reader_stream_info* info = &reader->streams[cur->stream];
    while (cur->next_chunk < info->count) {
        size_t i = info->first + cur->next_chunk++;
        const container_chunk_info* chunk = container_reader_chunk_info(reader->container, i);
        size_t size;
        if (chunk->meta.kind != READER_KIND_EVENTS)
            continue;
        *status = reader_load_chunk(reader, i, &cur->buffer, &cur->capacity, &size);
        if (*status == NVTXW_RESULT_SUCCESS && reader->major >= 2 &&
            reader_split_lanes(cur, size) != 0) {
            if (reader_add_damage(reader, chunk->offset, 0,
                                  "malformed event chunk of stream %llu: %s; chunk skipped",
                                  (unsigned long long)cur->stream, cur->cur.problem) != 0) {
                *status = error_oom("the damage list");
                return 0;
            }
            continue;
        }
        if (*status == NVTXW_RESULT_SUCCESS) {
            if (reader->major < 2) {
                cur->cur.p = cur->buffer;
                cur->cur.end = cur->buffer + size;
            }
            cur->cur.problem = NULL;
            cur->chunk = i;
            cur->now = 0;
            cur->has_now = 0;
            cur->chunk_first = chunk->meta.first_ts;
            cur->run_count = cur->run_next = 0;
            cur->dict_count = 0;
            cur->sref_count = 0;
            cur->record_number = 0;
            return 1;
        }
        if (reader_add_damage(reader, chunk->offset, 0, "%s", nvtxw_last_error()) != 0) {
            *status = error_oom("the damage list");
            return 0;
        }
    }
    *status = NVTXW_RESULT_SUCCESS;
    return 0;
}

static nvtxwResultCode_t malformed(nvtxw_reader_t* reader, reader_stream_cursor* cur) {
    const container_chunk_info* chunk = container_reader_chunk_info(reader->container, cur->chunk);
    if (reader_add_damage(reader, chunk->offset, 0,
                          "malformed record %llu in chunk of stream %llu: %s; rest of the chunk "
                          "skipped",
                          (unsigned long long)cur->record_number, (unsigned long long)cur->stream,
                          cur->cur.problem ? cur->cur.problem : "invalid") != 0)
        return error_oom("the damage list");
    cur->cur.p = cur->cur.end;
    return NVTXW_RESULT_SUCCESS;
}

/* No record decoded yet (cursor_fill_from). */
#define NOT_DECODED 2

/* cursor_fill from the result `r` of a record already decoded (or
 * NOT_DECODED): on to the next chunks and past malformed records until a
 * record is in the head (has_head = 0 at the end). */
static nvtxwResultCode_t cursor_fill_from(nvtxw_reader_t* reader, reader_stream_cursor* cur,
                                          int r) {
    nvtxwResultCode_t status = NVTXW_RESULT_SUCCESS;
    for (;; r = NOT_DECODED) {
        if (r == NOT_DECODED) {
            if (!cur->loaded || cur->cur.p == cur->cur.end) {
                cur->loaded = load_next_chunk(reader, cur, &status);
                if (!cur->loaded)
                    return status;
            }
            r = reader_decode_stream_record(reader, cur);
        }
        if (r == -2)
            return error_oom("a report record");
        if (r == -1) {
            status = malformed(reader, cur);
            if (status != NVTXW_RESULT_SUCCESS)
                return status;
            continue;
        }
        cur->record_number++;
        if (r == 1) {
            cur->has_head = 1;
            return NVTXW_RESULT_SUCCESS;
        }
    }
}

/* Decodes the cursor's next record into its head (has_head = 0 at the end).
 * Inline for the common case: a record of the chunk already loaded. */
static inline nvtxwResultCode_t cursor_fill(nvtxw_reader_t* reader, reader_stream_cursor* cur) {
    int r = NOT_DECODED;
    if (reader_run_continues(cur)) { /* the head holds the run's last record */
        reader_run_advance(cur);
        return NVTXW_RESULT_SUCCESS;
    }
    cur->has_head = 0;
    cur->started = 1;
    if (cur->loaded && cur->cur.p != cur->cur.end &&
        (r = reader_decode_stream_record(reader, cur)) == 1) {
        cur->record_number++;
        cur->has_head = 1;
        return NVTXW_RESULT_SUCCESS;
    }
    return cursor_fill_from(reader, cur, r);
}

/* ---- Time order: a tournament tree ------------------------------------- */
/*
 * The streams' heads play a knockout tournament: leaf size + s holds stream
 * s's head, internal node i the loser of the match played there, node 0
 * the winner (the earliest head). When the winner's stream moves on, only
 * its path to the root is replayed: log2(size) matches, each a compare and
 * a swap done without a branch on the keys (which interleaved streams make
 * unpredictable). A drained stream plays as TREE_DONE, which loses to every
 * head. Ties go to the lower stream index.
 */
#define TREE_DONE_STREAM SIZE_MAX

static const reader_heap_item tree_done = {INT64_MAX, TREE_DONE_STREAM};

/* x plays before y: by key, then by stream index. */
static int item_less(const reader_heap_item* x, const reader_heap_item* y) {
    return (x->key < y->key) | ((x->key == y->key) & (x->stream < y->stream));
}

/* Swaps *a and *b when `cond` (0 or 1), without a branch. */
static void swap_if(int cond, reader_heap_item* a, reader_heap_item* b) {
    uint64_t mask = (uint64_t)0 - (uint64_t)cond;
    uint64_t key = ((uint64_t)a->key ^ (uint64_t)b->key) & mask;
    size_t stream = (a->stream ^ b->stream) & (size_t)mask;
    a->key = (int64_t)((uint64_t)a->key ^ key);
    b->key = (int64_t)((uint64_t)b->key ^ key);
    a->stream ^= stream;
    b->stream ^= stream;
}

static reader_heap_item head_item(const nvtxw_reader_t* reader, size_t stream) {
    const reader_stream_cursor* cur = &reader->cursors[stream];
    reader_heap_item item = {cur->key, stream};
    return cur->has_head ? item : tree_done;
}

/* The winner of the subtree at node i; fills its losers. */
static reader_heap_item tree_play(nvtxw_reader_t* reader, size_t i) {
    reader_heap_item left, right;
    if (i >= reader->tree_size)
        return reader->heap[i];
    left = tree_play(reader, 2 * i);
    right = tree_play(reader, 2 * i + 1);
    swap_if(item_less(&right, &left), &left, &right);
    reader->heap[i] = right; /* the loser */
    return left;
}

/* Stream s has a new head (or none): replays its path to the root. */
static void tree_replay(nvtxw_reader_t* reader, size_t stream) {
    reader_heap_item* tree = reader->heap;
    reader_heap_item winner = head_item(reader, stream);
    size_t i = reader->tree_size + stream;
    tree[i] = winner;
    for (i /= 2; i >= 1; i /= 2)
        swap_if(item_less(&tree[i], &winner), &tree[i], &winner);
    tree[0] = winner;
}

nvtxwResultCode_t reader_streams_start(nvtxw_reader_t* reader) {
    size_t s;
    reader->phase = READER_PHASE_STREAMS;
    reader->pending = NULL;
    reader->current = 0;
    if (reader->order != NVTXW_READER_ORDER_TIME || reader->single)
        return NVTXW_RESULT_SUCCESS;
    for (s = 0; s < reader->tree_size; s++) {
        if (s < reader->stream_count) {
            nvtxwResultCode_t status = cursor_fill(reader, &reader->cursors[s]);
            if (status != NVTXW_RESULT_SUCCESS)
                return status;
        }
        reader->heap[reader->tree_size + s] =
            s < reader->stream_count ? head_item(reader, s) : tree_done;
    }
    reader->heap[0] = tree_play(reader, 1);
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t next_in_stream_order(nvtxw_reader_t* reader, const nvtxw_record_t** out) {
    while (reader->current < reader->stream_count) {
        reader_stream_cursor* cur = &reader->cursors[reader->current];
        if (!cur->started) {
            nvtxwResultCode_t status = cursor_fill(reader, cur);
            if (status != NVTXW_RESULT_SUCCESS)
                return status;
        }
        if (cur->has_head) {
            *out = &cur->head;
            reader->pending = cur;
            return NVTXW_RESULT_SUCCESS;
        }
        reader_cursor_free(cur); /* drained: keep one chunk in memory at a time */
        if (reader->single)
            break;
        reader->current++;
    }
    reader->phase = READER_PHASE_DONE;
    return NVTXW_RESULT_SUCCESS;
}

nvtxwResultCode_t reader_streams_next(nvtxw_reader_t* reader, const nvtxw_record_t** out) {
    reader_stream_cursor* pending = reader->pending;
    int merge = reader->order == NVTXW_READER_ORDER_TIME && !reader->single;
    *out = NULL;
    reader->pending = NULL;
    if (pending != NULL) {
        nvtxwResultCode_t status = cursor_fill(reader, pending);
        if (status != NVTXW_RESULT_SUCCESS)
            return status;
        if (merge) {
            if (!pending->has_head)
                reader_cursor_free(pending);
            tree_replay(reader, (size_t)pending->stream);
        }
    }
    if (!merge)
        return next_in_stream_order(reader, out);
    if (reader->heap[0].stream == TREE_DONE_STREAM) {
        reader->phase = READER_PHASE_DONE;
        return NVTXW_RESULT_SUCCESS;
    }
    reader->pending = &reader->cursors[reader->heap[0].stream];
    *out = &reader->pending->head;
    return NVTXW_RESULT_SUCCESS;
}

nvtxwResultCode_t nvtxw_reader_seek_stream(nvtxw_reader_t* reader, uint64_t stream) {
    size_t s;
    if (reader == NULL || stream >= reader->stream_count)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot seek report stream: stream=%llu, streams=%zu",
                         (unsigned long long)stream, reader ? reader->stream_count : (size_t)0);
    for (s = 0; s < reader->stream_count; s++)
        cursor_rewind(&reader->cursors[s]);
    reader->single = 1;
    reader_streams_start(reader);
    reader->current = (size_t)stream;
    return NVTXW_RESULT_SUCCESS;
}
