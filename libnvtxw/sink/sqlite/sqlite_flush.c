/*
 * sink/sqlite/sqlite_flush.c - a stream's buffered rows into the database,
 * on the sink's inserter thread. A stream fills a batch (up to
 * SQLITE_BATCH_ROWS rows, sqlite_event.c) and hands the whole batch over
 * (pointers, no copy), taking an empty one back; the inserter thread
 * inserts each batch under the connection lock, into the load's one
 * transaction (sqlite_db.c), with the prepared statements of sqlite_db.c.
 * Every column is bound for every row (NULL where absent), so statements
 * are reset without clearing their bindings.
 *
 * With CompressionThreads=0 (docs/config.md) no thread is started and each
 * writer inserts its batches itself, under the connection lock.
 *
 * Why a thread: SQLite's inserts are about half of an export's time and
 * the rest (reading the input, the core, building rows) the other half, so
 * the two overlap on two CPUs. At most SQLITE_BATCHES_IN_FLIGHT batches wait
 * or are being inserted (a stream that gets that far ahead waits), and the
 * emptied batches are kept as spares, so memory stays bounded and the
 * producers do not allocate per batch. An earlier version copied each
 * batch into a job (sink/shared/offload.c): the copies cost more than the
 * overlap gained (bench/README.md).
 *
 * Order: one thread inserts in queue order, so a stream's batches go in as
 * they were filled (an UPDATE of a push's end always follows the push's
 * row). An insert's error is kept and returned by the next flush of any
 * stream and by the drain at SessionEnd; batches queued after it are
 * dropped (the session is faulty by then).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "common/alloc.h"

#include "common/error_internal.h"
#include "common/thread.h"
#include "nvtxw/error.h"
#include "sink/sqlite/sqlite_internal.h"

static int bind_i64(sqlite3_stmt* stmt, int column, int64_t value, int present) {
    return present ? sqlite3_bind_int64(stmt, column, value) : sqlite3_bind_null(stmt, column);
}

static int bind_blob(sqlite3_stmt* stmt, int column, const char* data, size_t size) {
    return size != 0 ? sqlite3_bind_blob64(stmt, column, data, size, SQLITE_STATIC)
                     : sqlite3_bind_null(stmt, column);
}

/* Binds and inserts one events row (caller holds the lock). */
static nvtxwResultCode_t insert_event(sqlite_sink* ss, const sqlite_batch* batch,
                                      const sqlite_event_row* row) {
    sqlite3_stmt* stmt = ss->stmts[SQ_EVENT];
    const char* arena = batch->arena.data;
    sqlite3_bind_int64(stmt, 1, row->id);
    bind_i64(stmt, 2, row->start, row->has_start);
    bind_i64(stmt, 3, row->end, row->has_end);
    sqlite3_bind_int(stmt, 4, row->type);
    sqlite_bind_u64(stmt, 5, row->range_id, row->has_range_id);
    sqlite_bind_u64(stmt, 6, row->category, row->category != 0);
    sqlite_bind_u64(stmt, 7, row->color, row->color != 0);
    sqlite_bind_text(stmt, 8, row->text == SIZE_MAX ? NULL : arena + row->text, row->text_length);
    sqlite_bind_u64(stmt, 9, row->text_id, row->text_id != 0);
    sqlite3_bind_int64(stmt, 10, batch->domain_index);
    sqlite3_bind_int64(stmt, 11, batch->stream_index);
    sqlite_bind_u64(stmt, 12, row->scope_id, row->scope_id != NVTX_SCOPE_NONE);
    sqlite_bind_text(stmt, 13, row->json_length != 0 ? arena + row->json : NULL, row->json_length);
    bind_blob(stmt, 14, arena + row->payload, row->payload_length);
    return sqlite_db_run(ss, stmt, "insert an event");
}

/* Binds and inserts one counter_samples row (caller holds the lock). */
static nvtxwResultCode_t insert_sample(sqlite_sink* ss, const sqlite_batch* batch,
                                       const sqlite_sample_row* row) {
    sqlite3_stmt* stmt = ss->stmts[SQ_SAMPLE];
    const char* arena = batch->arena.data;
    int sample = row->reason < 0;
    sqlite3_bind_int64(stmt, 1, (sqlite3_int64)row->counter_id);
    sqlite3_bind_int64(stmt, 2, batch->domain_index);
    sqlite3_bind_int64(stmt, 3, batch->stream_index);
    sqlite3_bind_int64(stmt, 4, row->timestamp);
    if (row->has_value)
        sqlite3_bind_double(stmt, 5, row->value);
    else
        sqlite3_bind_null(stmt, 5);
    if (sample) /* the bytes as written, an empty BLOB for a sample of none */
        sqlite3_bind_blob64(stmt, 6, arena + row->data, row->data_length, SQLITE_STATIC);
    else
        sqlite3_bind_null(stmt, 6);
    sqlite_bind_text(stmt, 7, sample && row->json_length != 0 ? arena + row->json : NULL,
                     row->json_length);
    bind_i64(stmt, 8, row->reason, !sample);
    return sqlite_db_run(ss, stmt, "insert a counter sample");
}

/* Every row of a batch (caller holds the connection lock). */
static nvtxwResultCode_t insert_rows(sqlite_sink* ss, const sqlite_batch* batch) {
    sqlite3_stmt* end = ss->stmts[SQ_EVENT_END];
    nvtxwResultCode_t status = NVTXW_RESULT_SUCCESS;
    size_t i;
    for (i = 0; i < batch->event_count && status == NVTXW_RESULT_SUCCESS; i++)
        status = insert_event(ss, batch, &batch->events[i]);
    for (i = 0; i < batch->sample_count && status == NVTXW_RESULT_SUCCESS; i++)
        status = insert_sample(ss, batch, &batch->samples[i]);
    for (i = 0; i < batch->update_count && status == NVTXW_RESULT_SUCCESS; i++) {
        sqlite3_bind_int64(end, 1, batch->updates[i].id);
        sqlite3_bind_int64(end, 2, batch->updates[i].end);
        status = sqlite_db_run(ss, end, "close a range");
    }
    return status;
}

sqlite_batch* sqlite_batch_new(void) { return nvtxw_calloc(1, sizeof(sqlite_batch)); }

void sqlite_batch_free(sqlite_batch* batch) {
    if (batch == NULL)
        return;
    nvtxw_free(batch->events);
    nvtxw_free(batch->samples);
    nvtxw_free(batch->updates);
    strbuf_free(&batch->arena);
    nvtxw_free(batch);
}

static void batch_empty(sqlite_batch* batch) {
    batch->event_count = batch->sample_count = batch->update_count = 0;
    strbuf_clear(&batch->arena);
}

static int batch_is_empty(const sqlite_batch* batch) {
    return batch->event_count == 0 && batch->sample_count == 0 && batch->update_count == 0;
}

/* Inserts one batch unless an earlier one failed; keeps the first error
 * (the message copied from this thread's). */
static void inserter_insert(sqlite_sink* ss, const sqlite_batch* batch) {
    sqlite_inserter* in = &ss->inserter;
    nvtxwResultCode_t status;
    pthread_mutex_lock(&in->lock);
    status = in->status;
    pthread_mutex_unlock(&in->lock);
    if (status != NVTXW_RESULT_SUCCESS)
        return;
    pthread_mutex_lock(&ss->lock);
    status = insert_rows(ss, batch);
    pthread_mutex_unlock(&ss->lock);
    if (status == NVTXW_RESULT_SUCCESS)
        return;
    pthread_mutex_lock(&in->lock);
    in->status = status;
    snprintf(in->message, sizeof in->message, "%s", nvtxw_last_error());
    pthread_mutex_unlock(&in->lock);
}

/* Takes the next queued batch (caller holds in->lock); NULL once stopping
 * with nothing queued. */
static sqlite_batch* inserter_next(sqlite_inserter* in) {
    sqlite_batch* batch;
    while (in->head == NULL && !in->stopping)
        pthread_cond_wait(&in->queued, &in->lock);
    batch = in->head;
    if (batch != NULL) {
        in->head = batch->next;
        if (in->head == NULL)
            in->tail = NULL;
    }
    return batch;
}

static void* inserter_main(void* arg) {
    sqlite_sink* ss = arg;
    sqlite_inserter* in = &ss->inserter;
    sqlite_batch* batch;
    pthread_mutex_lock(&in->lock);
    while ((batch = inserter_next(in)) != NULL) {
        pthread_mutex_unlock(&in->lock);
        inserter_insert(ss, batch);
        batch_empty(batch);
        pthread_mutex_lock(&in->lock);
        batch->next = in->spares;
        in->spares = batch;
        in->out--;
        pthread_cond_broadcast(&in->done);
    }
    pthread_mutex_unlock(&in->lock);
    return NULL;
}

nvtxwResultCode_t sqlite_inserter_start(sqlite_sink* ss) {
    sqlite_inserter* in = &ss->inserter;
    int err;
    pthread_mutex_init(&in->lock, NULL);
    pthread_cond_init(&in->queued, NULL);
    pthread_cond_init(&in->done, NULL);
    in->status = NVTXW_RESULT_SUCCESS;
    err = thread_start(&in->thread, inserter_main, ss);
    if (err != 0)
        return error_set(NVTXW_RESULT_FAILED, "cannot start the sqlite sink's inserter thread: %s",
                         strerror(err));
    in->started = 1;
    return NVTXW_RESULT_SUCCESS;
}

/* The first insert's error as this thread's (caller holds in->lock). */
static nvtxwResultCode_t inserter_status(const sqlite_inserter* in) {
    return in->status == NVTXW_RESULT_SUCCESS ? NVTXW_RESULT_SUCCESS
                                              : error_set(in->status, "%s", in->message);
}

nvtxwResultCode_t sqlite_inserter_drain(sqlite_sink* ss) {
    sqlite_inserter* in = &ss->inserter;
    nvtxwResultCode_t status;
    if (!in->started)
        return NVTXW_RESULT_SUCCESS;
    pthread_mutex_lock(&in->lock);
    while (in->out > 0)
        pthread_cond_wait(&in->done, &in->lock);
    status = inserter_status(in);
    pthread_mutex_unlock(&in->lock);
    return status;
}

static void batch_list_free(sqlite_batch* batch) {
    while (batch != NULL) {
        sqlite_batch* next = batch->next;
        sqlite_batch_free(batch);
        batch = next;
    }
}

void sqlite_inserter_stop(sqlite_sink* ss) {
    sqlite_inserter* in = &ss->inserter;
    if (!in->started)
        return;
    pthread_mutex_lock(&in->lock);
    in->stopping = 1;
    pthread_cond_signal(&in->queued);
    pthread_mutex_unlock(&in->lock);
    pthread_join(in->thread, NULL);
    in->started = 0;
    batch_list_free(in->head);
    batch_list_free(in->spares);
    in->head = in->tail = in->spares = NULL;
    pthread_cond_destroy(&in->done);
    pthread_cond_destroy(&in->queued);
    pthread_mutex_destroy(&in->lock);
}

/* Queues `full` and returns an empty batch in its place (caller holds
 * in->lock): a spare, a new one, or NULL when out of memory. Waits while
 * SQLITE_BATCHES_IN_FLIGHT are out. */
static sqlite_batch* inserter_swap(sqlite_inserter* in, sqlite_batch* full) {
    sqlite_batch* empty;
    while (in->out >= SQLITE_BATCHES_IN_FLIGHT)
        pthread_cond_wait(&in->done, &in->lock);
    empty = in->spares != NULL ? in->spares : sqlite_batch_new();
    if (empty == NULL)
        return NULL;
    if (empty == in->spares)
        in->spares = empty->next;
    empty->next = NULL;
    full->next = NULL;
    if (in->tail != NULL)
        in->tail->next = full;
    else
        in->head = full;
    in->tail = full;
    in->out++;
    pthread_cond_signal(&in->queued);
    return empty;
}

/* CompressionThreads=0: the batch inserted on the writer's thread. */
static nvtxwResultCode_t insert_here(sqlite_sink* ss, sqlite_batch* batch) {
    nvtxwResultCode_t status;
    pthread_mutex_lock(&ss->lock);
    status = insert_rows(ss, batch);
    pthread_mutex_unlock(&ss->lock);
    batch_empty(batch);
    return status;
}

nvtxwResultCode_t sqlite_stream_flush(sqlite_stream* st) {
    sqlite_inserter* in = &st->sink->inserter;
    sqlite_batch* full = st->rows;
    sqlite_batch* empty;
    nvtxwResultCode_t status;
    if (batch_is_empty(full))
        return NVTXW_RESULT_SUCCESS;
    full->domain_index = st->stream->domain->index;
    full->stream_index = (int64_t)st->stream->index;
    st->generation++;
    if (!in->started)
        return insert_here(st->sink, full);
    pthread_mutex_lock(&in->lock);
    status = inserter_status(in);
    empty = status == NVTXW_RESULT_SUCCESS ? inserter_swap(in, full) : NULL;
    pthread_mutex_unlock(&in->lock);
    if (status != NVTXW_RESULT_SUCCESS)
        return status;
    if (empty == NULL)
        return error_oom("a batch of sqlite rows");
    st->rows = empty;
    return NVTXW_RESULT_SUCCESS;
}
