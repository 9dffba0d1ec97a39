/*
 * sink/sqlite/sqlite_db.c - the sqlite sink's database: the schema (this DDL is
 * the normative form of docs/sqlite-schema.md), the loading pragmas, the
 * prepared statements and the final pass (range pairing, indexes). The
 * batched inserts are in sqlite_flush.c.
 *
 * Loading: PRAGMA journal_mode=OFF and synchronous=OFF. Without a journal a
 * crash mid-transaction can corrupt the database, which is acceptable here
 * because it is written under a temporary name and renamed into place only
 * at SessionEnd: a crash leaves only the temporary file, never a damaged
 * file under the final name. For the same reason the whole load is one
 * transaction, begun here and committed by sqlite_db_finish: a transaction
 * per registration cost a commit (a page write) each, 0.78x the time on a
 * task trace of 72k scope registrations.
 *
 * Measured on a 50 MB Chrome trace (190k events) and a synthetic MPI trace
 * (580k events), best CPU time of five interleaved runs:
 *   - indexes built once at the end: maintaining them during the load took
 *     1.25x the time on the Chrome trace, and maintaining only the two
 *     partial ones 1.17x on the MPI trace;
 *   - 64 KiB pages: 0.81x and 0.86x the time of 4 KiB pages (fewer pages,
 *     cells and writes per row); the cost: an empty database is 2 MB, a
 *     page for each of its 31 tables and indexes;
 *   - a cache of 2 MiB: 0.72x and 0.76x the time of 64 MiB, with 14 and 23
 *     MB peak RSS instead of 51 and 89. A load that appends finds the pages
 *     it needs in a small cache; a large one allocates, and faults in, a
 *     fresh page for every page written, and the index sorts spill to the
 *     temporary file no slower (temp_store=MEMORY, a larger cache for the
 *     sorts and PRAGMA threads measured no faster).
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
static const char pair_sql[] =
    "CREATE INDEX events_range ON events (range_id) WHERE range_id IS NOT NULL;"
    "UPDATE events SET end = (SELECT min(e.start) FROM events e WHERE e.event_type = 8"
    " AND e.range_id = events.range_id"
    " AND e.start >= events.start) WHERE event_type = 7 AND end IS NULL"
    " AND range_id IS NOT NULL;";

/* The optional indexes, by SqliteIndexes= name. Each is one sort of its
 * table at the end: on a Chrome trace of 768k events, events(start) took
 * 0.2 s and events(stream_id, start) 0.22 s of a 1.38 s export, the two
 * partial ones 0.03 s each; so the two over every row are left out by
 * default (the export then writes about 1.3x the rows per second) and a
 * user who queries by time adds them here or later with the same SQL. */
static const struct {
    const char* name;
    unsigned bit;
    const char* sql;
} index_defs[] = {
    {"start", SQLITE_INDEX_START, "CREATE INDEX events_start ON events (start);"},
    {"stream", SQLITE_INDEX_STREAM, "CREATE INDEX events_stream ON events (stream_id, start);"},
    {"text", SQLITE_INDEX_TEXT,
     "CREATE INDEX events_text_id ON events (text_id) WHERE text_id IS NOT NULL;"},
    {"counter", SQLITE_INDEX_COUNTER,
     "CREATE INDEX counter_samples_counter ON counter_samples (counter_id, timestamp);"},
};
#define INDEX_DEF_COUNT (sizeof index_defs / sizeof index_defs[0])

/* One name of the list, [begin, end): its bits, or -1. */
static long index_bits(const char* begin, const char* end) {
    size_t length = (size_t)(end - begin), i;
    if (length == 3 && memcmp(begin, "all", 3) == 0)
        return SQLITE_INDEX_ALL;
    if (length == 4 && memcmp(begin, "none", 4) == 0)
        return 0;
    for (i = 0; i < INDEX_DEF_COUNT; i++) {
        if (strlen(index_defs[i].name) == length && memcmp(begin, index_defs[i].name, length) == 0)
            return index_defs[i].bit;
    }
    return -1;
}

nvtxwResultCode_t sqlite_parse_indexes(const core_config* config, unsigned* out) {
    const char *begin, *end;
    *out = SQLITE_INDEX_DEFAULT;
    if (!core_config_value(config, "SqliteIndexes", &begin, &end))
        return NVTXW_RESULT_SUCCESS;
    *out = 0;
    for (;;) {
        const char* comma = memchr(begin, ',', (size_t)(end - begin));
        const char *name = begin, *name_end = comma ? comma : end;
        long bits;
        core_config_trim(&name, &name_end);
        if ((bits = index_bits(name, name_end)) < 0)
            return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                             "cannot begin session: SqliteIndexes names \"%.*s\", not start, "
                             "stream, text, counter, all or none",
                             (int)(name_end - name), name);
        *out |= (unsigned)bits;
        if (comma == NULL)
            return NVTXW_RESULT_SUCCESS;
        begin = comma + 1;
    }
}

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

nvtxwResultCode_t sqlite_db_run(sqlite_sink* ss, sqlite3_stmt* stmt, const char* what) {
    int rc = sqlite3_step(stmt);
    nvtxwResultCode_t status = rc == SQLITE_DONE ? NVTXW_RESULT_SUCCESS : sqlite_db_error(ss, what);
    sqlite3_reset(stmt);
    return status;
}

nvtxwResultCode_t sqlite_db_step(sqlite_sink* ss, int which, const char* what) {
    nvtxwResultCode_t status = sqlite_db_run(ss, ss->stmts[which], what);
    sqlite3_clear_bindings(ss->stmts[which]);
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
        "PRAGMA page_size=65536; PRAGMA locking_mode=EXCLUSIVE; PRAGMA journal_mode=OFF;"
        " PRAGMA synchronous=OFF; PRAGMA cache_size=-2048;",
        "set the loading pragmas");
    int i;
    if (status == NVTXW_RESULT_SUCCESS)
        status = sqlite_db_exec(ss, schema_sql, "create the tables");
    for (i = 0; i < SQ_COUNT && status == NVTXW_RESULT_SUCCESS; i++) {
        if (sqlite3_prepare_v3(ss->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &ss->stmts[i],
                               NULL) != SQLITE_OK)
            status = sqlite_db_error(ss, "prepare a statement");
    }
    if (status == NVTXW_RESULT_SUCCESS)
        status = sqlite_db_exec(ss, "BEGIN", "begin the load");
    return status;
}

nvtxwResultCode_t sqlite_db_finish(sqlite_sink* ss) {
    nvtxwResultCode_t status = sqlite_inserter_drain(ss);
    if (status == NVTXW_RESULT_SUCCESS)
        status = sqlite_domains_yaml(ss);
    if (status == NVTXW_RESULT_SUCCESS)
        status = sqlite_db_exec(ss, pair_sql, "pair start/end ranges");
    for (size_t i = 0; i < INDEX_DEF_COUNT && status == NVTXW_RESULT_SUCCESS; i++) {
        if (ss->indexes & index_defs[i].bit)
            status = sqlite_db_exec(ss, index_defs[i].sql, "build the indexes");
    }
    if (status == NVTXW_RESULT_SUCCESS)
        status = sqlite_db_exec(ss, "COMMIT", "commit the load");
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
