/*
 * sink/sqlite/sqlite_flush.c - a stream's buffered rows into the database:
 * a batch (up to SQLITE_BATCH_ROWS rows) at a time under the connection
 * lock, into the load's one transaction (sqlite_db.c), with the prepared
 * statements of sqlite_db.c, on the writer's thread. Every column is bound for every row (NULL
 * where absent), so statements are reset without clearing their bindings.
 *
 * Not on a thread of its own: inserting the batches on a second thread
 * (sink/shared/offload.c, a copy per batch) was measured on a 50 MB Chrome
 * trace and a synthetic MPI workload on 2 shared vCPUs: the inserts took
 * 1.6x the CPU time there (copies, and rows and pages cold in the other
 * core's caches), the memory grew by 14 MB, and the wall time did not drop.
 */
#include "config.h"

#include <string.h>

#include "common/error_internal.h"
#include "sink/sqlite/sqlite_internal.h"

static int bind_i64(sqlite3_stmt* stmt, int column, int64_t value, int present) {
    return present ? sqlite3_bind_int64(stmt, column, value) : sqlite3_bind_null(stmt, column);
}

static int bind_blob(sqlite3_stmt* stmt, int column, const char* data, size_t size) {
    return size != 0 ? sqlite3_bind_blob64(stmt, column, data, size, SQLITE_STATIC)
                     : sqlite3_bind_null(stmt, column);
}

/* Binds and inserts one events row (caller holds the lock). */
static nvtxwResultCode_t insert_event(const sqlite_stream* st, const sqlite_event_row* row) {
    sqlite3_stmt* stmt = st->sink->stmts[SQ_EVENT];
    const char* arena = st->arena.data;
    sqlite3_bind_int64(stmt, 1, row->id);
    bind_i64(stmt, 2, row->start, row->has_start);
    bind_i64(stmt, 3, row->end, row->has_end);
    sqlite3_bind_int(stmt, 4, row->type);
    sqlite_bind_u64(stmt, 5, row->range_id, row->has_range_id);
    sqlite_bind_u64(stmt, 6, row->category, row->category != 0);
    sqlite_bind_u64(stmt, 7, row->color, row->color != 0);
    sqlite_bind_text(stmt, 8, row->text == SIZE_MAX ? NULL : arena + row->text, row->text_length);
    sqlite_bind_u64(stmt, 9, row->text_id, row->text_id != 0);
    sqlite3_bind_int64(stmt, 10, st->stream->domain->index);
    sqlite3_bind_int64(stmt, 11, (sqlite3_int64)st->stream->index);
    sqlite_bind_u64(stmt, 12, row->scope_id, row->scope_id != NVTX_SCOPE_NONE);
    sqlite_bind_text(stmt, 13, row->json_length != 0 ? arena + row->json : NULL, row->json_length);
    bind_blob(stmt, 14, arena + row->payload, row->payload_length);
    return sqlite_db_run(st->sink, stmt, "insert an event");
}

/* Binds and inserts one counter_samples row (caller holds the lock). */
static nvtxwResultCode_t insert_sample(const sqlite_stream* st, const sqlite_sample_row* row) {
    sqlite3_stmt* stmt = st->sink->stmts[SQ_SAMPLE];
    const char* arena = st->arena.data;
    int sample = row->reason < 0;
    sqlite3_bind_int64(stmt, 1, (sqlite3_int64)row->counter_id);
    sqlite3_bind_int64(stmt, 2, st->stream->domain->index);
    sqlite3_bind_int64(stmt, 3, (sqlite3_int64)st->stream->index);
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
    return sqlite_db_run(st->sink, stmt, "insert a counter sample");
}

/* Every buffered row (caller holds the lock). */
static nvtxwResultCode_t insert_rows(const sqlite_stream* st) {
    sqlite3_stmt* end = st->sink->stmts[SQ_EVENT_END];
    nvtxwResultCode_t status = NVTXW_RESULT_SUCCESS;
    size_t i;
    for (i = 0; i < st->event_count && status == NVTXW_RESULT_SUCCESS; i++)
        status = insert_event(st, &st->events[i]);
    for (i = 0; i < st->sample_count && status == NVTXW_RESULT_SUCCESS; i++)
        status = insert_sample(st, &st->samples[i]);
    for (i = 0; i < st->update_count && status == NVTXW_RESULT_SUCCESS; i++) {
        sqlite3_bind_int64(end, 1, st->updates[i].id);
        sqlite3_bind_int64(end, 2, st->updates[i].end);
        status = sqlite_db_run(st->sink, end, "close a range");
    }
    return status;
}

nvtxwResultCode_t sqlite_stream_flush(sqlite_stream* st) {
    sqlite_sink* ss = st->sink;
    nvtxwResultCode_t status;
    if (st->event_count == 0 && st->sample_count == 0 && st->update_count == 0)
        return NVTXW_RESULT_SUCCESS;
    pthread_mutex_lock(&ss->lock);
    status = insert_rows(st);
    pthread_mutex_unlock(&ss->lock);
    st->event_count = st->sample_count = st->update_count = 0;
    strbuf_clear(&st->arena);
    st->generation++;
    return status;
}
