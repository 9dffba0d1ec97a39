/*
 * sink/stats/stats_sink.c - Sink=stats: the NVTX range statistics of `nsys stats`
 * (nvtx_sum, nvtx_pushpop_sum, nvtx_startend_sum, nvtx_pushpop_trace) and
 * the task tables of docs/tasks.md (task_sum, task_suspend_sum), written
 * once at SessionEnd. docs/stats.md documents the columns and keys.
 *
 * Config (docs/config.md): StatsFormat=text|csv|json (default text),
 * StatsReports=comma-separated report names in output order (default
 * nvtx_sum, and the task and counter tables when the session has tasks or
 * counter samples), StatsTaskRows=N|all (task_sum rows; default 20 in text,
 * all in CSV and JSON), Output=PATH ("-" = standard output; default the session name
 * plus ".txt", ".csv" or ".json"), Overwrite=yes|no. A file output is
 * written under a temporary name and renamed at the end, so a faulty session
 * leaves nothing under the final name.
 *
 * Output grammar (NL = "\n"; numbers in C locale, durations integral ns;
 * "x.y" columns: 1 decimal in text, 3 in CSV and JSON):
 *   text := { report-text NL } footer-text
 *     report-text := "** " TITLE " (" NAME "):" NL NL line(headers) NL
 *                    line(dashes) NL { line(cells) NL }
 *     line(c)     := " " c[0] { "  " c[i] }   numbers right-aligned, strings
 *                    left-aligned, padded to the widest cell (code points);
 *                    the last column is not padded
 *     footer-text := "Ranges not closed at session end: " P " push/pop, " S
 *                    " start/end; unmatched pops: " Q ", unmatched ends: " E
 *                    ", reused range IDs: " L ", incomplete events: " I NL
 *   csv  := { csv-table NL } csv-table(footer)   (tables in report order)
 *     csv-table := header-row NL { row NL }   RFC 4180 quoting when needed
 *     footer header: Unclosed PushPop,Unclosed StartEnd,Unmatched Pop,
 *                    Unmatched End,Reused Range IDs,Incomplete Events
 *   json := "{" NL "  \"session\": " string "," NL "  \"reports\": {" NL
 *           { "    \"" NAME "\": [" NL { "      " object [","] NL } "    ]"
 *           [","] NL } "  }," NL "  \"unclosed\": " object NL "}" NL
 *     objects are one line: {"key": value, ...}; a missing parent is null.
 * Summary columns: Time (%), Total Time (ns), Instances, Avg (ns), Med (ns),
 * Min (ns), Max (ns), StdDev (ns), [Style,] Range; rows by Total Time
 * descending, then Range, then Style. Trace columns: Start (ns), End (ns),
 * Duration (ns), DurChild (ns), DurNonChild (ns), Name, Stream, Lvl,
 * NumChild, RangeId, ParentId; rows by Start, then stream, then level.
 *
 * Concurrency: writes fill per-stream accumulators (stats_event.c);
 * stream_close, a serialized lifecycle call, merges them into the sink, so
 * nothing on the write path is shared or locked.
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
#include "nvtxw/loader.h"
#include "sink/shared/sink_registry.h"
#include "sink/stats/stats_internal.h"

static const char* const report_names[STATS_REPORT_COUNT] = {
    "nvtx_sum", "nvtx_pushpop_sum", "nvtx_startend_sum", "nvtx_pushpop_trace",
    "task_sum", "task_suspend_sum", "counter_sum"};
static const char* const format_names[] = {"text", "csv", "json"};
static const char* const format_extensions[] = {".txt", ".csv", ".json"};

typedef struct stats_config {
    char* format;
    char* reports;
    char* task_rows;
    int failed;
} stats_config;

static int stats_config_consume(void* state, const char* key_begin, const char* key_end,
                                const char* value_begin, const char* value_end) {
    stats_config* config = state;
    size_t key_length = (size_t)(key_end - key_begin);
    char** slot = NULL;
    if (key_length == 11 && strncmp(key_begin, "StatsFormat", 11) == 0)
        slot = &config->format;
    else if (key_length == 12 && strncmp(key_begin, "StatsReports", 12) == 0)
        slot = &config->reports;
    else if (key_length == 13 && strncmp(key_begin, "StatsTaskRows", 13) == 0)
        slot = &config->task_rows;
    if (slot == NULL || *slot != NULL)
        return 0; /* another key, or a later duplicate: the first one wins */
    *slot = nvtxw_strndup(value_begin, (size_t)(value_end - value_begin));
    config->failed = *slot == NULL;
    return config->failed;
}

static nvtxwResultCode_t parse_format(stats_sink* ss, const char* text) {
    int i;
    for (i = 0; i < 3; i++) {
        if (strcmp(text, format_names[i]) == 0) {
            ss->format = i;
            return NVTXW_RESULT_SUCCESS;
        }
    }
    return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                     "cannot begin session: StatsFormat=\"%s\" is not text, csv or json", text);
}

/* One name of StatsReports, [begin, end) trimmed of spaces. */
static nvtxwResultCode_t add_report(stats_sink* ss, const char* begin, const char* end) {
    size_t i, length;
    core_config_trim(&begin, &end);
    length = (size_t)(end - begin);
    for (i = 0; i < STATS_REPORT_COUNT; i++) {
        if (strlen(report_names[i]) == length && strncmp(begin, report_names[i], length) == 0) {
            if ((ss->reports & (1u << i)) == 0)
                ss->order[ss->order_count++] = (unsigned char)i;
            ss->reports |= 1u << i;
            return NVTXW_RESULT_SUCCESS;
        }
    }
    return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                     "cannot begin session: StatsReports names \"%.*s\", not nvtx_sum, "
                     "nvtx_pushpop_sum, nvtx_startend_sum, nvtx_pushpop_trace, task_sum, "
                     "task_suspend_sum or counter_sum",
                     (int)length, begin);
}

static nvtxwResultCode_t parse_reports(stats_sink* ss, const char* text) {
    const char* begin = text;
    for (;;) {
        const char* comma = strchr(begin, ',');
        const char* end = comma ? comma : begin + strlen(begin);
        nvtxwResultCode_t status = add_report(ss, begin, end);
        if (status != NVTXW_RESULT_SUCCESS || comma == NULL)
            return status;
        begin = comma + 1;
    }
}

/* StatsTaskRows: a count of rows, or "all"; without it 20 in text and all
 * in CSV and JSON (machine formats keep every row unless asked). */
static nvtxwResultCode_t parse_task_rows(stats_sink* ss, const char* text) {
    char* end;
    unsigned long long rows;
    if (text == NULL) {
        ss->task_rows = ss->format == STATS_FORMAT_TEXT ? STATS_TASK_ROWS_TEXT : 0;
        return NVTXW_RESULT_SUCCESS;
    }
    if (strcmp(text, "all") == 0) {
        ss->task_rows = 0;
        return NVTXW_RESULT_SUCCESS;
    }
    errno = 0;
    rows = strtoull(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || text[0] == '-' || rows == 0 || rows > SIZE_MAX)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot begin session: StatsTaskRows=\"%s\" is not a row count (1 or "
                         "more) or \"all\"",
                         text);
    ss->task_rows = (size_t)rows;
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t stats_parse_config(stats_sink* ss, const char* raw) {
    stats_config config = {NULL, NULL, NULL, 0};
    nvtxwResultCode_t status = NVTXW_RESULT_SUCCESS;
    nvtxwConsumeConfigString(raw, stats_config_consume, &config);
    if (config.failed)
        status = error_oom("the stats configuration");
    if (status == NVTXW_RESULT_SUCCESS && config.format != NULL)
        status = parse_format(ss, config.format);
    if (status == NVTXW_RESULT_SUCCESS)
        status = parse_reports(ss, config.reports ? config.reports : "nvtx_sum");
    if (status == NVTXW_RESULT_SUCCESS)
        status = parse_task_rows(ss, config.task_rows);
    ss->default_reports = config.reports == NULL;
    nvtxw_free(config.format);
    nvtxw_free(config.reports);
    nvtxw_free(config.task_rows);
    return status;
}

/* Opens standard output, or a temporary file next to the final path. */
static nvtxwResultCode_t stats_open_output(stats_sink* ss) {
    if (strcmp(ss->path, "-") == 0) {
        ss->fd = dup(STDOUT_FILENO);
        return ss->fd >= 0 ? NVTXW_RESULT_SUCCESS
                           : error_set(NVTXW_RESULT_FAILED, "cannot open stats output \"-\": %s",
                                       strerror(errno));
    }
    ss->fd = output_file_open(&ss->out, ss->path, ss->overwrite, O_WRONLY);
    if (ss->fd >= 0)
        return NVTXW_RESULT_SUCCESS;
    if (errno == ENOMEM)
        return error_oom("the stats output path");
    if (errno == EEXIST && ss->overwrite == OUTPUT_KEEP)
        return error_set(NVTXW_RESULT_FAILED,
                         "cannot open stats output \"%s\": %s (set Overwrite=yes to replace it)",
                         ss->path, strerror(EEXIST));
    return error_set(NVTXW_RESULT_FAILED, "cannot open stats output \"%s\": %s", ss->out.written,
                     strerror(errno));
}

static void stats_sink_free(stats_sink* ss) {
    size_t i;
    for (i = 0; i < ss->stream_count; i++)
        nvtxw_free(ss->stream_names[i]);
    nvtxw_free(ss->stream_names);
    stats_groups_free(&ss->groups);
    stats_map_free(&ss->starts);
    stats_map_free(&ss->ends);
    nvtxw_free(ss->rows);
    stats_tasks_free(&ss->tasks);
    stats_groups_free(&ss->reasons);
    stats_task_scopes_free(ss);
    stats_series_free(&ss->series);
    nvtxw_free(ss->path);
    output_file_free(&ss->out);
    nvtxw_free(ss->session_name);
    nvtxw_free(ss);
}

static nvtxwResultCode_t stats_create(const core_config* config, const char* session_name,
                                      sink** out) {
    stats_sink* ss = nvtxw_calloc(1, sizeof *ss);
    nvtxwResultCode_t status;
    if (ss == NULL)
        return error_oom("the stats sink");
    ss->base.ops = &sink_stats_ops;
    ss->fd = -1;
    ss->overwrite = config->overwrite;
    status = stats_parse_config(ss, config->raw);
    if (status == NVTXW_RESULT_SUCCESS) {
        ss->session_name = nvtxw_strdup(session_name);
        ss->path = config->output
                       ? nvtxw_strdup(config->output)
                       : sink_default_output(session_name, format_extensions[ss->format]);
        if (ss->session_name == NULL || ss->path == NULL)
            status = error_oom("the stats output path");
    }
    if (status == NVTXW_RESULT_SUCCESS)
        status = stats_open_output(ss);
    if (status != NVTXW_RESULT_SUCCESS) {
        stats_sink_free(ss);
        return status;
    }
    *out = &ss->base;
    return NVTXW_RESULT_SUCCESS;
}

/* Makes the finished file the output. */
static nvtxwResultCode_t stats_commit(stats_sink* ss) {
    if (output_file_commit(&ss->out) == 0)
        return NVTXW_RESULT_SUCCESS;
    return error_set(NVTXW_RESULT_FAILED, "cannot write stats output \"%s\": %s%s", ss->path,
                     strerror(errno), errno == EEXIST ? " (set Overwrite=yes to replace it)" : "");
}

static nvtxwResultCode_t stats_destroy(sink* s, int faulty) {
    stats_sink* ss = (stats_sink*)s;
    nvtxwResultCode_t status = faulty ? NVTXW_RESULT_SUCCESS : stats_report_write(ss);
    if (close(ss->fd) != 0 && status == NVTXW_RESULT_SUCCESS)
        status = error_set(NVTXW_RESULT_FAILED, "cannot close stats output \"%s\": %s", ss->path,
                           strerror(errno));
    if (ss->out.written != NULL) {
        if (faulty || status != NVTXW_RESULT_SUCCESS)
            output_file_discard(&ss->out);
        else
            status = stats_commit(ss);
    }
    stats_sink_free(ss);
    return status;
}

static nvtxwResultCode_t stats_stream_open(sink* s, const core_stream* stream, void** state) {
    stats_sink* ss = (stats_sink*)s;
    stats_stream* st;
    if (ss->stream_count == ss->stream_capacity) {
        size_t capacity = ss->stream_capacity ? ss->stream_capacity * 2 : 8;
        char** names = nvtxw_reallocarray(ss->stream_names, capacity, sizeof *names);
        if (names == NULL)
            return error_oom("a stats stream");
        ss->stream_names = names;
        ss->stream_capacity = capacity;
    }
    st = nvtxw_calloc(1, sizeof *st);
    ss->stream_names[ss->stream_count] = nvtxw_strdup(stream->name);
    if (st == NULL || ss->stream_names[ss->stream_count] == NULL) {
        nvtxw_free(st);
        nvtxw_free(ss->stream_names[ss->stream_count]);
        return error_oom("a stats stream");
    }
    st->sink = ss;
    st->stream = stream;
    st->index = (uint32_t)ss->stream_count++;
    st->keep_rows = (ss->reports & STATS_REPORT_TRACE) != 0;
    *state = st;
    return NVTXW_RESULT_SUCCESS;
}

static int sink_close_range(stats_sink* ss, size_t group, int64_t start, int64_t end) {
    return stats_group_add(&ss->groups.items[group], stats_duration(start, end));
}

/* A start/end half left open by its stream meets the session's others. */
static int merge_pending(stats_sink* ss, stats_pending entry) {
    int is_start = entry.group != SIZE_MAX;
    stats_map* mine = is_start ? &ss->starts : &ss->ends;
    stats_pending* other = stats_map_get(is_start ? &ss->ends : &ss->starts, entry.id);
    if (other != NULL) {
        stats_pending found = *other;
        stats_map_remove(is_start ? &ss->ends : &ss->starts, other);
        return is_start ? sink_close_range(ss, entry.group, entry.timestamp, found.timestamp)
                        : sink_close_range(ss, found.group, found.timestamp, entry.timestamp);
    }
    if (stats_map_get(mine, entry.id) != NULL) {
        ss->lost_ranges++; /* the ID was used twice */
        return 0;
    }
    return stats_map_put(mine, &entry);
}

static int merge_maps(stats_sink* ss, const stats_stream* st, const size_t* remap) {
    size_t i;
    for (i = 0; i < st->starts.capacity; i++) {
        stats_pending entry = st->starts.slots[i];
        if (!st->starts.used[i])
            continue;
        entry.group = remap[entry.group];
        if (merge_pending(ss, entry) != 0)
            return -1;
    }
    for (i = 0; i < st->ends.capacity; i++) {
        if (st->ends.used[i] && merge_pending(ss, st->ends.slots[i]) != 0)
            return -1;
    }
    return 0;
}

static int merge_rows(stats_sink* ss, const stats_stream* st, const size_t* remap) {
    size_t i;
    if (st->row_count > ss->row_capacity - ss->row_count) {
        size_t capacity = ss->row_capacity ? ss->row_capacity : 64;
        stats_row* rows;
        while (capacity - ss->row_count < st->row_count)
            capacity *= 2;
        rows = nvtxw_reallocarray(ss->rows, capacity, sizeof *rows);
        if (rows == NULL)
            return -1;
        ss->rows = rows;
        ss->row_capacity = capacity;
    }
    for (i = 0; i < st->row_count; i++) {
        ss->rows[ss->row_count] = st->rows[i];
        ss->rows[ss->row_count++].group = remap[st->rows[i].group];
    }
    return 0;
}

/* Moves a closing stream's accumulators into the sink. */
static int stats_merge(stats_sink* ss, stats_stream* st) {
    size_t* remap = nvtxw_reallocarray(NULL, st->groups.count + 1, sizeof *remap);
    size_t i;
    int failed = remap == NULL;
    for (i = 0; !failed && i < st->groups.count; i++) {
        stats_group* from = &st->groups.items[i];
        failed = stats_groups_find_or_add(&ss->groups, from->style, from->name, &remap[i]) != 0 ||
                 stats_group_take(&ss->groups.items[remap[i]], from) != 0;
    }
    failed = failed || merge_rows(ss, st, remap) != 0 || merge_maps(ss, st, remap) != 0 ||
             stats_task_merge(ss, st) != 0 || stats_series_merge(&ss->series, &st->series) != 0;
    nvtxw_free(remap);
    ss->unclosed_pushes += st->depth;
    ss->unmatched_pops += st->unmatched_pops;
    ss->lost_ranges += st->lost_ranges;
    ss->incomplete += st->incomplete;
    return failed ? -1 : 0;
}

static nvtxwResultCode_t stats_stream_close(sink* s, const core_stream* stream, void* state) {
    stats_stream* st = state;
    int failed = stats_merge((stats_sink*)s, st);
    (void)stream;
    stats_stream_free(st);
    return failed ? error_oom("the merged stats") : NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t stats_counter_no_value_write(void* state, int64_t timestamp,
                                                      const core_counter* counter, uint8_t reason) {
    (void)state, (void)timestamp, (void)counter, (void)reason;
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t stats_sync_points_write(void* state, uint64_t src, uint64_t dst,
                                                 const nvtxSyncPoint_t* points, size_t count) {
    (void)state, (void)src, (void)dst, (void)points, (void)count;
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t stats_conversion_factor_write(void* state, uint64_t src, uint64_t dst,
                                                       double slope, int64_t ts_src,
                                                       int64_t ts_dst) {
    (void)state, (void)src, (void)dst, (void)slope, (void)ts_src, (void)ts_dst;
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t stats_category_register(sink* s, const core_domain* domain,
                                                 uint32_t category, const char* name) {
    (void)s, (void)domain, (void)category, (void)name;
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t stats_resource_register(sink* s, const core_domain* domain,
                                                 const core_resource* resource) {
    (void)s, (void)domain, (void)resource;
    return NVTXW_RESULT_SUCCESS;
}

/* Statistics need no other registration than task scopes: the core
 * resolves strings and schemas for the walk. Counters, sync points and
 * clocks are not ranges. */
const sink_ops sink_stats_ops = {
    .name = "stats",
    .create = stats_create,
    .destroy = stats_destroy,
    .category_register = stats_category_register,
    .resource_register = stats_resource_register,
    .scope_register = stats_task_scope_register,
    .stream_open = stats_stream_open,
    .stream_close = stats_stream_close,
    .event_write = stats_event_write,
    .counter_write = stats_counter_write,
    .counter_no_value_write = stats_counter_no_value_write,
    .sync_points_write = stats_sync_points_write,
    .conversion_factor_write = stats_conversion_factor_write,
};
