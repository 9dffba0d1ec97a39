/*
 * sink/sqlite/sqlite_counter.c - counter samples and time synchronization of
 * the sqlite sink's write path.
 *
 * counter_samples rows: `data` holds the sample bytes as given, value_json
 * (PayloadJson=yes only, else NULL) nvtxw_payload_format_json of the sample
 * (one payload of the counter's schema), and `value` the number when the
 * sample holds exactly one
 * top-level numeric scalar (a predefined numeric type, or a one-field
 * schema), else NULL (multi-field samples: read `data`, or value_json). A
 * CounterNoValueWrite row has only no_value_reason (NVTX_COUNTER_SAMPLE_*).
 *
 * Sync points and conversion factors are rare: they are inserted at once,
 * under the connection lock, into the load's transaction (sqlite_db.c).
 */
#include "config.h"

#include <string.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "nvtxw/format.h"
#include "sink/sqlite/sqlite_internal.h"

typedef struct sample_walk {
    unsigned depth, scalars, numbers;
    double value;
} sample_walk;

static int sample_enter(void* ctx, uint64_t unused) {
    (void)unused;
    ((sample_walk*)ctx)->depth++;
    return 0;
}

static int sample_leave(void* ctx) {
    ((sample_walk*)ctx)->depth--;
    return 0;
}

static void sample_scalar(sample_walk* w, int number, double value) {
    w->scalars++;
    if (number && w->depth == 0)
        w->numbers++, w->value = value;
}

static int sample_signed(void* ctx, int64_t value) {
    sample_scalar(ctx, 1, (double)value);
    return 0;
}

static int sample_unsigned(void* ctx, uint64_t value) {
    sample_scalar(ctx, 1, (double)value);
    return 0;
}

static int sample_float(void* ctx, double value) {
    sample_scalar(ctx, 1, value);
    return 0;
}

static int sample_other(void* ctx) {
    sample_scalar(ctx, 0, 0);
    return 0;
}

static int sample_string(void* ctx, const char* utf8, size_t length) {
    (void)utf8, (void)length;
    return sample_other(ctx);
}

static int sample_bytes(void* ctx, const void* data, size_t size) {
    (void)data, (void)size;
    return sample_other(ctx);
}

static const nvtxw_visitor_t sample_visitor = {
    .struct_size = sizeof(nvtxw_visitor_t),
    .array_begin = sample_enter,
    .array_end = sample_leave,
    .object_begin = sample_enter,
    .object_end = sample_leave,
    .on_signed = sample_signed,
    .on_unsigned = sample_unsigned,
    .on_float = sample_float,
    .on_string = sample_string,
    .on_bytes = sample_bytes,
};

static int arena_write(void* ctx, const char* data, size_t size) {
    return strbuf_append(ctx, data, size);
}

/* Adds a row to the stream's sample buffer; NULL when out of memory. */
static sqlite_sample_row* sample_row(sqlite_stream* st) {
    if (st->rows->sample_count == st->rows->sample_capacity) {
        size_t capacity = st->rows->sample_capacity ? st->rows->sample_capacity * 2 : 256;
        sqlite_sample_row* rows = nvtxw_reallocarray(st->rows->samples, capacity, sizeof *rows);
        if (rows == NULL)
            return NULL;
        st->rows->samples = rows;
        st->rows->sample_capacity = capacity;
    }
    memset(&st->rows->samples[st->rows->sample_count], 0, sizeof st->rows->samples[0]);
    return &st->rows->samples[st->rows->sample_count];
}

/* Decodes the sample into `row`: value, bytes and JSON in the arena. */
static nvtxwResultCode_t sample_decode(sqlite_stream* st, sqlite_sample_row* row,
                                       const core_counter* counter, const void* data, size_t size) {
    const nvtxw_schema_registry_t* schemas = st->stream->domain->schemas;
    nvtxPayloadData_t payload = {counter->schema_id, size, data};
    sample_walk w = {0, 0, 0, 0};
    nvtxwResultCode_t status = nvtxw_payload_visit(schemas, &payload, 1, &sample_visitor, &w, NULL);
    if (status != NVTXW_RESULT_SUCCESS)
        return status;
    row->has_value = w.scalars == 1 && w.numbers == 1;
    row->value = w.value;
    row->data = st->rows->arena.length;
    row->data_length = size;
    if (strbuf_append(&st->rows->arena, data, size) != 0)
        return error_oom("a counter sample");
    if (!st->sink->payload_json)
        return NVTXW_RESULT_SUCCESS;
    row->json = st->rows->arena.length;
    status = nvtxw_payload_format_json(schemas, &payload, 1, NULL, arena_write, &st->rows->arena);
    row->json_length = st->rows->arena.length - row->json;
    return status;
}

nvtxwResultCode_t sqlite_counter_write(void* state, int64_t timestamp, const core_counter* counter,
                                       const void* data, size_t size) {
    sqlite_stream* st = state;
    size_t mark = st->rows->arena.length;
    sqlite_sample_row* row = sample_row(st);
    nvtxwResultCode_t status;
    if (row == NULL)
        return error_oom("the sqlite rows of a stream");
    row->counter_id = counter->id;
    row->timestamp = timestamp;
    row->reason = -1;
    status = sample_decode(st, row, counter, data, size);
    if (status != NVTXW_RESULT_SUCCESS) {
        st->rows->arena.length = mark;
        if (st->rows->arena.data != NULL)
            st->rows->arena.data[mark] = '\0';
        return status;
    }
    st->rows->sample_count++;
    return sqlite_stream_flush_if_full(st);
}

nvtxwResultCode_t sqlite_counter_no_value_write(void* state, int64_t timestamp,
                                                const core_counter* counter, uint8_t reason) {
    sqlite_stream* st = state;
    sqlite_sample_row* row = sample_row(st);
    if (row == NULL)
        return error_oom("the sqlite rows of a stream");
    row->counter_id = counter->id;
    row->timestamp = timestamp;
    row->reason = reason;
    st->rows->sample_count++;
    return sqlite_stream_flush_if_full(st);
}

/* Inserts one sync_points row (caller holds the lock). */
static nvtxwResultCode_t insert_sync(sqlite_stream* st, uint64_t src, uint64_t dst, int64_t ts_src,
                                     int64_t ts_dst, const double* slope) {
    sqlite_sink* ss = st->sink;
    sqlite3_stmt* stmt = ss->stmts[SQ_SYNC];
    sqlite3_bind_int64(stmt, 1, st->stream->domain->index);
    sqlite3_bind_int64(stmt, 2, (sqlite3_int64)st->stream->index);
    sqlite3_bind_int64(stmt, 3, (sqlite3_int64)src);
    sqlite3_bind_int64(stmt, 4, (sqlite3_int64)dst);
    sqlite3_bind_int64(stmt, 5, ts_src);
    sqlite3_bind_int64(stmt, 6, ts_dst);
    if (slope != NULL)
        sqlite3_bind_double(stmt, 7, *slope);
    return sqlite_db_step(ss, SQ_SYNC, "insert a sync point");
}

nvtxwResultCode_t sqlite_sync_points_write(void* state, uint64_t src, uint64_t dst,
                                           const nvtxSyncPoint_t* points, size_t count) {
    sqlite_stream* st = state;
    sqlite_sink* ss = st->sink;
    nvtxwResultCode_t status = NVTXW_RESULT_SUCCESS;
    size_t i;
    pthread_mutex_lock(&ss->lock);
    for (i = 0; i < count && status == NVTXW_RESULT_SUCCESS; i++)
        status = insert_sync(st, src, dst, points[i].src, points[i].dst, NULL);
    pthread_mutex_unlock(&ss->lock);
    return status;
}

nvtxwResultCode_t sqlite_conversion_factor_write(void* state, uint64_t src, uint64_t dst,
                                                 double slope, int64_t ts_src, int64_t ts_dst) {
    sqlite_stream* st = state;
    nvtxwResultCode_t status;
    pthread_mutex_lock(&st->sink->lock);
    status = insert_sync(st, src, dst, ts_src, ts_dst, &slope);
    pthread_mutex_unlock(&st->sink->lock);
    return status;
}

void sqlite_stream_free(sqlite_stream* st) {
    if (st == NULL)
        return;
    sqlite_batch_free(st->rows);
    nvtxw_free(st->stack);
    nvtxw_free(st);
}
