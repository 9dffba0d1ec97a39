/*
 * sink/sqlite/sqlite_sink.c - Sink=sqlite: every call of a session as rows of an
 * SQLite database, modeled on the Nsight Systems export (NVTX_EVENTS,
 * StringIds) so SQL written for that export ports with renamed columns.
 *
 * Config (docs/config.md): Output=PATH (default the session name plus
 * ".sqlite"), Overwrite=yes|no, PayloadJson=yes|no (default no: the
 * payloads as bytes only, see sqlite_event.c), SqliteIndexes=LIST (the
 * optional indexes, sqlite_db.c). The database is written as
 * PATH.tmp-XXXXXX and renamed to PATH at SessionEnd; a faulty session
 * removes it.
 *
 * Schema (DDL in sqlite_db.c; columns in docs/sqlite-schema.md):
 *   meta(key, value)                       format "nvtxw-sqlite", version 2
 *   event_types(id, name)                  0 event, 1 counter_group, 2 pushpop,
 *                                          3 startend, 4 mark, 5 push, 6 pop,
 *                                          7 start, 8 end (schema roles, 3.4)
 *   domains(id, name, schemas_yaml)        id = order of registration
 *   strings(id, domain_id, value)          id = the registered string handle
 *   categories, resources, scopes(domain_id, id, parent, path)
 *   schemas, schema_entries, enums, enum_values, counters, time_domains
 *   streams(id, name, domain_id, scope_id, time_domain_id, ordering...)
 *   events(id, start, end, event_type, range_id, category, color, text,
 *          text_id, domain_id, stream_id, scope_id, payload_json, payload)
 *                                          payload_json NULL unless
 *                                          PayloadJson=yes
 *   counter_samples(counter_id, domain_id, stream_id, timestamp, value,
 *                   data, value_json, no_value_reason)   value_json: as
 *                                          payload_json
 *   sync_points(domain_id, stream_id, time_domain_src, time_domain_dst,
 *               timestamp_src, timestamp_dst, slope)
 *   view ranges(id, start, end, duration, style, name, ...)  closed ranges,
 *               name "domain:text" as in the stats sink
 * Row meaning: whole ranges carry start and end; marks end NULL; a split push
 * row gets the end of the pop that closes it (per-stream stack), a split
 * start row the time of the earliest end of the same range ID at or after
 * it (at SessionEnd, across streams and domains); pop and end rows keep their
 * own time in `start`. `text` is the message, also when it came as a
 * registered string (then `text_id` is its handle).
 */
#define _POSIX_C_SOURCE 200809L
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "sink/shared/offload.h"
#include "sink/shared/sink_registry.h"
#include "sink/sqlite/sqlite_internal.h"

static void sqlite_sink_free(sqlite_sink* ss) {
    sqlite_inserter_stop(ss);
    if (ss->db != NULL)
        sqlite_db_close(ss);
    if (!ss->committed)
        output_file_discard(&ss->out);
    pthread_mutex_destroy(&ss->lock);
    nvtxw_free(ss->domains);
    nvtxw_free(ss->path);
    output_file_free(&ss->out);
    nvtxw_free(ss);
}

/* Creates the file the database is written to (common/output_file.h) and
 * opens it. */
static nvtxwResultCode_t sqlite_open_output(sqlite_sink* ss, int overwrite) {
    int fd = output_file_open(&ss->out, ss->path, overwrite, O_RDWR);
    if (fd < 0) {
        int err = errno;
        if (err == ENOMEM)
            return error_oom("the sqlite output path");
        if (err == EEXIST && overwrite == OUTPUT_KEEP)
            return error_set(NVTXW_RESULT_FAILED,
                             "cannot open sqlite output \"%s\": %s (set Overwrite=yes to replace "
                             "it)",
                             ss->path, strerror(EEXIST));
        return error_set(NVTXW_RESULT_FAILED, "cannot open sqlite output \"%s\": %s (file \"%s\")",
                         ss->path, strerror(err), ss->out.written);
    }
    close(fd);
    if (sqlite3_open_v2(ss->out.written, &ss->db,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                        NULL) != SQLITE_OK)
        return sqlite_db_error(ss, "open the database");
    return sqlite_db_init(ss);
}

static nvtxwResultCode_t sqlite_create(const core_config* config, const char* session_name,
                                       sink** out) {
    sqlite_sink* ss = nvtxw_calloc(1, sizeof *ss);
    nvtxwResultCode_t status;
    if (ss == NULL)
        return error_oom("the sqlite sink");
    ss->base.ops = &sink_sqlite_ops;
    pthread_mutex_init(&ss->lock, NULL);
    atomic_init(&ss->next_event_id, 1);
    status = core_config_bool(config, "PayloadJson", 0, &ss->payload_json);
    if (status == NVTXW_RESULT_SUCCESS)
        status = sqlite_parse_indexes(config, &ss->indexes);
    if (status == NVTXW_RESULT_SUCCESS) {
        ss->path = config->output ? nvtxw_strdup(config->output)
                                  : sink_default_output(session_name, ".sqlite");
        status =
            ss->path ? sqlite_open_output(ss, config->overwrite) : error_oom("the output path");
    }
    if (status == NVTXW_RESULT_SUCCESS && offload_thread_count(config) > 0)
        status = sqlite_inserter_start(ss);
    if (status == NVTXW_RESULT_SUCCESS) {
        *out = &ss->base;
        return status;
    }
    sqlite_sink_free(ss);
    return status;
}

/* Completes the database and renames it into place. */
static nvtxwResultCode_t sqlite_commit(sqlite_sink* ss) {
    nvtxwResultCode_t status = sqlite_db_finish(ss);
    sqlite_db_close(ss);
    if (status == NVTXW_RESULT_SUCCESS && output_file_commit(&ss->out) != 0)
        status =
            error_set(NVTXW_RESULT_FAILED, "cannot rename sqlite output \"%s\" to \"%s\": %s%s",
                      ss->out.written, ss->path, strerror(errno),
                      errno == EEXIST ? " (set Overwrite=yes to replace it)" : "");
    ss->committed = status == NVTXW_RESULT_SUCCESS;
    return status;
}

static nvtxwResultCode_t sqlite_destroy(sink* s, int faulty) {
    sqlite_sink* ss = (sqlite_sink*)s;
    nvtxwResultCode_t status = faulty ? NVTXW_RESULT_SUCCESS : sqlite_commit(ss);
    sqlite_sink_free(ss);
    return status;
}

const sink_ops sink_sqlite_ops = {
    .name = "sqlite",
    .create = sqlite_create,
    .destroy = sqlite_destroy,
    .domain_register = sqlite_domain_register,
    .category_register = sqlite_category_register,
    .string_register = sqlite_string_register,
    .resource_register = sqlite_resource_register,
    .scope_register = sqlite_scope_register,
    .schema_register = sqlite_schema_register,
    .enum_register = sqlite_enum_register,
    .counter_register = sqlite_counter_register,
    .time_domain_register = sqlite_time_domain_register,
    .stream_open = sqlite_stream_open,
    .stream_close = sqlite_stream_close,
    .event_write = sqlite_event_write,
    .counter_write = sqlite_counter_write,
    .counter_no_value_write = sqlite_counter_no_value_write,
    .sync_points_write = sqlite_sync_points_write,
    .conversion_factor_write = sqlite_conversion_factor_write,
};
