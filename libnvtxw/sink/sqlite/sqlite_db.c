/*
 * sink/sqlite/sqlite_db.c - the sqlite sink's database: the schema (this DDL is
 * the normative form of docs/sqlite-schema.md), the prepared statements and
 * the batched flush of a stream's rows.
 *
 * Loading: PRAGMA journal_mode=OFF and synchronous=OFF. Without a journal a
 * crash mid-transaction can corrupt the database, which is acceptable here
 * because it is written under a temporary name and renamed into place only
 * at SessionEnd: a crash leaves only the temporary file, never a damaged
 * file under the final name. Indexes are built once at the end (faster than
 * maintaining them during the bulk load).
 */
#include "config.h"

#include <string.h>

#include "common/error_internal.h"
#include "sink/sqlite/sqlite_internal.h"

static const char schema_sql[] =
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);"
    "CREATE TABLE event_types (id INTEGER PRIMARY KEY, name TEXT NOT NULL);"
    "CREATE TABLE domains (id INTEGER PRIMARY KEY, name TEXT NOT NULL, schemas_yaml TEXT);"
    "CREATE TABLE strings (id INTEGER PRIMARY KEY, domain_id INTEGER NOT NULL,"
    " value TEXT NOT NULL);"
    "CREATE TABLE categories (domain_id INTEGER NOT NULL, id INTEGER NOT NULL,"
    " name TEXT NOT NULL, PRIMARY KEY (domain_id, id));"
    "CREATE TABLE resources (domain_id INTEGER NOT NULL, identifier_type INTEGER NOT NULL,"
    " identifier INTEGER NOT NULL, message TEXT, text_id INTEGER);"
    "CREATE TABLE scopes (domain_id INTEGER NOT NULL, id INTEGER NOT NULL, parent INTEGER,"
    " path TEXT, PRIMARY KEY (domain_id, id));"
    "CREATE TABLE schemas (domain_id INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT,"
    " type INTEGER NOT NULL, flags INTEGER NOT NULL, role INTEGER NOT NULL,"
    " static_size INTEGER NOT NULL, entry_count INTEGER NOT NULL, PRIMARY KEY (domain_id, id));"
    "CREATE TABLE schema_entries (domain_id INTEGER NOT NULL, schema_id INTEGER NOT NULL,"
    " idx INTEGER NOT NULL, name TEXT, description TEXT, type INTEGER NOT NULL,"
    " type_name TEXT, flags INTEGER NOT NULL, offset INTEGER NOT NULL,"
    " array_length INTEGER NOT NULL, PRIMARY KEY (domain_id, schema_id, idx));"
    "CREATE TABLE enums (domain_id INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT,"
    " size INTEGER NOT NULL, PRIMARY KEY (domain_id, id));"
    "CREATE TABLE enum_values (domain_id INTEGER NOT NULL, enum_id INTEGER NOT NULL,"
    " name TEXT, value INTEGER NOT NULL, is_flag INTEGER NOT NULL);"
    "CREATE TABLE counters (domain_id INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT,"
    " description TEXT, schema_id INTEGER NOT NULL, scope_id INTEGER,"
    " sample_size INTEGER NOT NULL, PRIMARY KEY (domain_id, id));"
    "CREATE TABLE time_domains (domain_id INTEGER NOT NULL, id INTEGER NOT NULL,"
    " scope_id INTEGER, timestamp_type INTEGER NOT NULL, timer_flags INTEGER NOT NULL,"
    " resolution INTEGER NOT NULL, timer_start INTEGER NOT NULL, PRIMARY KEY (domain_id, id));"
    "CREATE TABLE streams (id INTEGER PRIMARY KEY, name TEXT NOT NULL,"
    " domain_id INTEGER NOT NULL, scope_id INTEGER, time_domain_id INTEGER,"
    " order_interleaving INTEGER, ordering_type INTEGER, ordering_skid INTEGER,"
    " ordering_skid_amount INTEGER);"
    "CREATE TABLE events (id INTEGER PRIMARY KEY, start INTEGER, end INTEGER,"
    " event_type INTEGER NOT NULL, range_id INTEGER, category INTEGER, color INTEGER,"
    " text TEXT, text_id INTEGER, domain_id INTEGER NOT NULL, stream_id INTEGER NOT NULL,"
    " scope_id INTEGER, payload_json TEXT, payload BLOB);"
    "CREATE TABLE counter_samples (counter_id INTEGER NOT NULL, domain_id INTEGER NOT NULL,"
    " stream_id INTEGER NOT NULL, timestamp INTEGER NOT NULL, value REAL, data BLOB,"
    " value_json TEXT, no_value_reason INTEGER);"
    "CREATE TABLE sync_points (domain_id INTEGER NOT NULL, stream_id INTEGER NOT NULL,"
    " time_domain_src INTEGER NOT NULL, time_domain_dst INTEGER NOT NULL,"
    " timestamp_src INTEGER NOT NULL, timestamp_dst INTEGER NOT NULL, slope REAL);"
    "CREATE VIEW ranges AS SELECT e.id AS id, e.start AS start, e.end AS end,"
    " e.end - e.start AS duration,"
    " CASE WHEN e.event_type IN (2, 5) THEN 'PushPop' ELSE 'StartEnd' END AS style,"
    " CASE WHEN d.name = '' THEN ifnull(e.text, '') ELSE d.name || ':' || ifnull(e.text, '')"
    " END AS name, e.text AS text, e.text_id AS text_id, e.range_id AS range_id,"
    " e.category AS category, e.color AS color, e.domain_id AS domain_id,"
    " e.stream_id AS stream_id, e.scope_id AS scope_id"
    " FROM events e JOIN domains d ON d.id = e.domain_id"
    " WHERE e.event_type IN (2, 3, 5, 7) AND e.end IS NOT NULL;"
    "INSERT INTO event_types VALUES (0, 'event'), (1, 'counter_group'), (2, 'pushpop'),"
    " (3, 'startend'), (4, 'mark'), (5, 'push'), (6, 'pop'), (7, 'start'), (8, 'end');"
    "INSERT INTO meta VALUES ('format', 'nvtxw-sqlite'), ('version', '2');";

/* Start halves get the time of the earliest end of the same range ID at or
 * after them (split start/end ranges may cross streams and domains, as in
 * the stats sink). */
static const char finish_sql[] =
    "CREATE INDEX events_range ON events (range_id) WHERE range_id IS NOT NULL;"
    "UPDATE events SET end = (SELECT min(e.start) FROM events e WHERE e.event_type = 8"
    " AND e.range_id = events.range_id"
    " AND e.start >= events.start) WHERE event_type = 7 AND end IS NULL"
    " AND range_id IS NOT NULL;"
    "CREATE INDEX events_start ON events (start);"
    "CREATE INDEX events_text_id ON events (text_id);"
    "CREATE INDEX events_stream ON events (stream_id, start);"
    "CREATE INDEX counter_samples_counter ON counter_samples (counter_id, timestamp);";

static const char* const stmt_sql[SQ_COUNT] = {
    [SQ_EVENT] = "INSERT INTO events VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [SQ_EVENT_END] = "UPDATE events SET end = ?2 WHERE id = ?1",
    [SQ_SAMPLE] = "INSERT INTO counter_samples VALUES (?,?,?,?,?,?,?,?)",
    [SQ_SYNC] = "INSERT INTO sync_points VALUES (?,?,?,?,?,?,?)",
    [SQ_DOMAIN] = "INSERT OR REPLACE INTO domains VALUES (?,?,NULL)",
    [SQ_STRING] = "INSERT OR REPLACE INTO strings VALUES (?,?,?)",
    [SQ_CATEGORY] = "INSERT OR REPLACE INTO categories VALUES (?,?,?)",
    [SQ_RESOURCE] = "INSERT INTO resources VALUES (?,?,?,?,?)",
    [SQ_SCOPE] = "INSERT OR REPLACE INTO scopes VALUES (?,?,?,?)",
    [SQ_SCHEMA] = "INSERT OR REPLACE INTO schemas VALUES (?,?,?,?,?,?,?,?)",
    [SQ_SCHEMA_ENTRY] = "INSERT OR REPLACE INTO schema_entries VALUES (?,?,?,?,?,?,?,?,?,?)",
    [SQ_ENUM] = "INSERT OR REPLACE INTO enums VALUES (?,?,?,?)",
    [SQ_ENUM_VALUE] = "INSERT INTO enum_values VALUES (?,?,?,?,?)",
    [SQ_COUNTER] = "INSERT OR REPLACE INTO counters VALUES (?,?,?,?,?,?,?)",
    [SQ_TIME_DOMAIN] = "INSERT OR REPLACE INTO time_domains VALUES (?,?,?,?,?,?,?)",
    [SQ_STREAM] = "INSERT OR REPLACE INTO streams VALUES (?,?,?,?,?,?,?,?,?)",
    [SQ_DOMAIN_YAML] = "UPDATE domains SET schemas_yaml = ?2 WHERE id = ?1",
    [SQ_COUNTER_NAME_USED] =
        "SELECT 1 FROM counters WHERE domain_id = ?1 AND name = ?2 AND id != ?3 LIMIT 1",
};

nvtxwResultCode_t sqlite_db_error(sqlite_sink* ss, const char* what) {
    return error_set(NVTXW_RESULT_FAILED, "cannot %s in sqlite output \"%s\": %s", what, ss->path,
                     ss->db ? sqlite3_errmsg(ss->db) : "no database");
}

nvtxwResultCode_t sqlite_db_exec(sqlite_sink* ss, const char* sql, const char* what) {
    char* message = NULL;
    nvtxwResultCode_t status = NVTXW_RESULT_SUCCESS;
    if (sqlite3_exec(ss->db, sql, NULL, NULL, &message) != SQLITE_OK)
        status = error_set(NVTXW_RESULT_FAILED, "cannot %s in sqlite output \"%s\": %s", what,
                           ss->path, message ? message : sqlite3_errmsg(ss->db));
    sqlite3_free(message);
    return status;
}

nvtxwResultCode_t sqlite_db_step(sqlite_sink* ss, int which, const char* what) {
    sqlite3_stmt* stmt = ss->stmts[which];
    int rc = sqlite3_step(stmt);
    nvtxwResultCode_t status = rc == SQLITE_DONE ? NVTXW_RESULT_SUCCESS : sqlite_db_error(ss, what);
    sqlite3_reset(stmt);
    sqlite3_clear_bindings(stmt);
    return status;
}

int sqlite_bind_text(sqlite3_stmt* stmt, int column, const char* text, size_t length) {
    if (text == NULL)
        return sqlite3_bind_null(stmt, column);
    return sqlite3_bind_text64(stmt, column, text, length, SQLITE_STATIC, SQLITE_UTF8);
}

int sqlite_bind_u64(sqlite3_stmt* stmt, int column, uint64_t value, int present) {
    return present ? sqlite3_bind_int64(stmt, column, (sqlite3_int64)value)
                   : sqlite3_bind_null(stmt, column);
}

nvtxwResultCode_t sqlite_db_init(sqlite_sink* ss) {
    nvtxwResultCode_t status = sqlite_db_exec(
        ss,
        "PRAGMA locking_mode=EXCLUSIVE; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
        " PRAGMA cache_size=-65536;",
        "set the loading pragmas");
    int i;
    if (status == NVTXW_RESULT_SUCCESS)
        status = sqlite_db_exec(ss, schema_sql, "create the tables");
    for (i = 0; i < SQ_COUNT && status == NVTXW_RESULT_SUCCESS; i++) {
        if (sqlite3_prepare_v3(ss->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &ss->stmts[i],
                               NULL) != SQLITE_OK)
            status = sqlite_db_error(ss, "prepare a statement");
    }
    return status;
}

nvtxwResultCode_t sqlite_db_finish(sqlite_sink* ss) {
    nvtxwResultCode_t status = sqlite_domains_yaml(ss);
    if (status == NVTXW_RESULT_SUCCESS)
        status = sqlite_db_exec(ss, "BEGIN", "begin the final transaction");
    if (status == NVTXW_RESULT_SUCCESS)
        status = sqlite_db_exec(ss, finish_sql, "pair start/end ranges and build the indexes");
    if (status == NVTXW_RESULT_SUCCESS)
        status = sqlite_db_exec(ss, "COMMIT", "commit the final transaction");
    return status;
}

void sqlite_db_close(sqlite_sink* ss) {
    int i;
    for (i = 0; i < SQ_COUNT; i++) {
        sqlite3_finalize(ss->stmts[i]);
        ss->stmts[i] = NULL;
    }
    sqlite3_close(ss->db);
    ss->db = NULL;
}

/* Binds and inserts one buffered events row (caller holds the lock). */
static nvtxwResultCode_t insert_event(sqlite_stream* st, const sqlite_event_row* row) {
    sqlite_sink* ss = st->sink;
    sqlite3_stmt* stmt = ss->stmts[SQ_EVENT];
    const char* arena = st->arena.data;
    sqlite3_bind_int64(stmt, 1, row->id);
    if (row->has_start)
        sqlite3_bind_int64(stmt, 2, row->start);
    if (row->has_end)
        sqlite3_bind_int64(stmt, 3, row->end);
    sqlite3_bind_int(stmt, 4, row->type);
    sqlite_bind_u64(stmt, 5, row->range_id, row->has_range_id);
    sqlite_bind_u64(stmt, 6, row->category, row->category != 0);
    sqlite_bind_u64(stmt, 7, row->color, row->color != 0);
    sqlite_bind_text(stmt, 8, row->text == SIZE_MAX ? NULL : arena + row->text, row->text_length);
    sqlite_bind_u64(stmt, 9, row->text_id, row->text_id != 0);
    sqlite3_bind_int64(stmt, 10, st->stream->domain->index);
    sqlite3_bind_int64(stmt, 11, (sqlite3_int64)st->stream->index);
    sqlite_bind_u64(stmt, 12, row->scope_id, row->scope_id != NVTX_SCOPE_NONE);
    if (row->json_length != 0)
        sqlite_bind_text(stmt, 13, arena + row->json, row->json_length);
    if (row->payload_length != 0)
        sqlite3_bind_blob64(stmt, 14, arena + row->payload, row->payload_length, SQLITE_STATIC);
    return sqlite_db_step(ss, SQ_EVENT, "insert an event");
}

static nvtxwResultCode_t insert_sample(sqlite_stream* st, const sqlite_sample_row* row) {
    sqlite_sink* ss = st->sink;
    sqlite3_stmt* stmt = ss->stmts[SQ_SAMPLE];
    const char* arena = st->arena.data;
    sqlite3_bind_int64(stmt, 1, (sqlite3_int64)row->counter_id);
    sqlite3_bind_int64(stmt, 2, st->stream->domain->index);
    sqlite3_bind_int64(stmt, 3, (sqlite3_int64)st->stream->index);
    sqlite3_bind_int64(stmt, 4, row->timestamp);
    if (row->has_value)
        sqlite3_bind_double(stmt, 5, row->value);
    if (row->reason < 0) {
        sqlite3_bind_blob64(stmt, 6, arena + row->data, row->data_length, SQLITE_STATIC);
        if (row->json_length != 0)
            sqlite_bind_text(stmt, 7, arena + row->json, row->json_length);
    } else {
        sqlite3_bind_int(stmt, 8, row->reason);
    }
    return sqlite_db_step(ss, SQ_SAMPLE, "insert a counter sample");
}

/* Every buffered row, in one transaction (caller holds the lock). */
static nvtxwResultCode_t flush_rows(sqlite_stream* st) {
    sqlite_sink* ss = st->sink;
    nvtxwResultCode_t status = NVTXW_RESULT_SUCCESS;
    size_t i;
    for (i = 0; i < st->event_count && status == NVTXW_RESULT_SUCCESS; i++)
        status = insert_event(st, &st->events[i]);
    for (i = 0; i < st->sample_count && status == NVTXW_RESULT_SUCCESS; i++)
        status = insert_sample(st, &st->samples[i]);
    for (i = 0; i < st->update_count && status == NVTXW_RESULT_SUCCESS; i++) {
        sqlite3_bind_int64(ss->stmts[SQ_EVENT_END], 1, st->updates[i].id);
        sqlite3_bind_int64(ss->stmts[SQ_EVENT_END], 2, st->updates[i].end);
        status = sqlite_db_step(ss, SQ_EVENT_END, "close a range");
    }
    return status;
}

nvtxwResultCode_t sqlite_stream_flush(sqlite_stream* st) {
    sqlite_sink* ss = st->sink;
    nvtxwResultCode_t status;
    if (st->event_count == 0 && st->sample_count == 0 && st->update_count == 0)
        return NVTXW_RESULT_SUCCESS;
    pthread_mutex_lock(&ss->lock);
    status = sqlite_db_exec(ss, "BEGIN", "begin a batch");
    if (status == NVTXW_RESULT_SUCCESS) {
        status = flush_rows(st);
        if (status == NVTXW_RESULT_SUCCESS)
            status = sqlite_db_exec(ss, "COMMIT", "commit a batch");
        else
            sqlite3_exec(ss->db, "ROLLBACK", NULL, NULL, NULL);
    }
    pthread_mutex_unlock(&ss->lock);
    st->event_count = st->sample_count = st->update_count = 0;
    strbuf_clear(&st->arena);
    st->generation++;
    return status;
}
