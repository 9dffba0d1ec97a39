/*
 * sink/stats/stats_internal.h - state shared by the stats sink's files:
 * stats_sink.c (config, lifecycle, merging closed streams), stats_event.c
 * (the write path: range extraction), stats_task.c (task scopes, time
 * per task and per suspension reason), stats_table.c (groups and ID
 * maps) and stats_print.c (statistics and the text/CSV/JSON output).
 *
 * Ownership: a stream's accumulators belong to its stats_stream until
 * stream_close, which moves them into the sink (stats_sink). Lifecycle calls
 * are serialized by the caller, so the sink's merged state needs no lock;
 * the write path touches only its own stats_stream.
 */
#ifndef NVTXW_SINK_STATS_INTERNAL_H
#define NVTXW_SINK_STATS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "common/idmap.h"
#include "common/output_file.h"
#include "common/pubmap.h"
#include "common/strbuf.h"
#include "core/sink.h"

enum { STATS_PUSHPOP = 0, STATS_STARTEND = 1 };
enum { STATS_FORMAT_TEXT, STATS_FORMAT_CSV, STATS_FORMAT_JSON };

/* StatsReports bits; the order of the names is the default output order. */
enum {
    STATS_REPORT_SUM = 1u << 0,      /* nvtx_sum */
    STATS_REPORT_PUSHPOP = 1u << 1,  /* nvtx_pushpop_sum */
    STATS_REPORT_STARTEND = 1u << 2, /* nvtx_startend_sum */
    STATS_REPORT_TRACE = 1u << 3,    /* nvtx_pushpop_trace */
    STATS_REPORT_TASK = 1u << 4,     /* task_sum */
    STATS_REPORT_SUSPEND = 1u << 5,  /* task_suspend_sum */
    STATS_REPORT_COUNTER = 1u << 6,  /* counter_sum */
    STATS_REPORT_COUNT = 7
};

/* Rows of task_sum by default in the text format (StatsTaskRows). */
#define STATS_TASK_ROWS_TEXT 20

/* Every closed instance of one (style, range name) pair. */
typedef struct stats_group {
    char* name; /* "domain:message", or "message" in the default domain */
    int style;  /* STATS_PUSHPOP or STATS_STARTEND */
    int64_t* durations;
    size_t count, capacity;
} stats_group;

/* Groups with a (style, name) hash index: slots hold index + 1, 0 = empty. */
typedef struct stats_groups {
    stats_group* items;
    size_t count, capacity;
    size_t* slots;
    size_t slot_capacity; /* 0 or a power of two, at most half full */
} stats_groups;

/* A range half waiting for its other half: a start (group set) or an end
 * (group = SIZE_MAX), keyed by its RANGE_ID. */
typedef struct stats_pending {
    uint64_t id;
    int64_t timestamp;
    size_t group;
} stats_pending;

/* Open addressing map from RANGE_ID to stats_pending, with deletion. */
typedef struct stats_map {
    stats_pending* slots;
    unsigned char* used;
    size_t capacity, count;
} stats_map;

/* One closed push/pop instance kept for nvtx_pushpop_trace. */
typedef struct stats_row {
    int64_t start, end;
    size_t group;
    uint32_t stream; /* index into stats_sink.stream_names */
    uint64_t seq;    /* order of closing in its stream: breaks ties */
} stats_row;

/* An open push of a stream's stack. */
typedef struct stats_frame {
    int64_t start;
    size_t group;
} stats_frame;

/* A task scope (path ending in `task[KEY]`, docs/tasks.md), from its
 * registration. */
typedef struct stats_task_scope {
    uint64_t ordinal; /* registration order in the session, from 0 */
    char* key;        /* KEY, unescaped */
} stats_task_scope;

/* One task's accumulated time (per stream, then merged). */
typedef struct stats_task {
    uint64_t ordinal; /* stats_task_scope.ordinal */
    uint64_t slices, suspensions;
    int64_t running, suspended;    /* sums of slice and suspension durations */
    int64_t first_start, last_end; /* meaningful when slices > 0 */
    char* name;                    /* message of the earliest slice, or NULL */
} stats_task;

/* The samples of one numeric top-level field of one counter (stats_counter.c). */
typedef struct stats_series {
    const core_counter* counter; /* NULL: an empty slot */
    const char* domain;          /* the writing stream's domain name (the core's) */
    uint32_t field;              /* top-level field, from 1 */
    char* field_name;            /* "" for a predefined type's value */
    uint64_t samples, streams;
    long double min, max, sum, last; /* in the counter's unit */
    int64_t last_ts;
    int integral; /* every value was an integer (and unscaled) */
} stats_series;

/* Open addressing by (counter, field), at most half full. */
typedef struct stats_series_map {
    stats_series* slots;
    size_t capacity, count;
} stats_series_map;

typedef struct stats_sink stats_sink;

typedef struct stats_stream {
    stats_sink* sink;
    const core_stream* stream;
    uint32_t index;
    int keep_rows;
    stats_groups groups;
    stats_frame* stack;
    size_t depth, stack_capacity;
    stats_row* rows;
    size_t row_count, row_capacity;
    stats_map starts, ends;
    uint64_t unmatched_pops, lost_ranges, incomplete;
    strbuf message, name; /* scratch: the event's message and range name */
    idmap tasks;          /* ordinal + 1 -> stats_task* (owned) */
    stats_groups reasons; /* suspension durations per reason (style 0) */
    stats_series_map series;
} stats_stream;

struct stats_sink {
    sink base;
    int format;
    unsigned reports;
    unsigned char order[STATS_REPORT_COUNT]; /* report bit indexes, output order */
    size_t order_count;
    int default_reports; /* no StatsReports: nvtx_sum, plus the task tables
                            when the session registered task scopes */
    int overwrite;
    int fd;
    char* path;      /* final output path, "-" = standard output */
    output_file out; /* the file written (common/output_file.h); unused for "-" */
    char* session_name;
    char** stream_names;
    size_t stream_count, stream_capacity;
    stats_groups groups; /* merged from closed streams */
    stats_row* rows;
    size_t row_count, row_capacity;
    stats_map starts, ends; /* halves not matched within their own stream */
    uint64_t unclosed_pushes, unmatched_pops, lost_ranges, incomplete;
    /* Task scopes: task_scope_maps maps a domain index to a pubmap* from a
     * scope ID to its stats_task_scope (owned by task_scopes[ordinal]);
     * filled by scope registrations, read by the write path at the same
     * time, without a lock (published as common/pubmap.h says).
     * task_scopes itself is read only under the registration mutex and at
     * the end. */
    pubvec task_scope_maps;
    stats_task_scope** task_scopes;
    size_t task_scope_count, task_scope_capacity;
    idmap tasks;             /* merged: ordinal + 1 -> stats_task* (owned) */
    stats_groups reasons;    /* merged suspension durations per reason */
    size_t task_rows;        /* task_sum rows written; 0: all (StatsTaskRows) */
    stats_series_map series; /* merged counter series */
};

/* stats_table.c: groups. Return 0, or -1 when out of memory. */
void stats_groups_free(stats_groups* groups);
/* Index of (style, name), added (with a copy of name) when new. */
int stats_groups_find_or_add(stats_groups* groups, int style, const char* name, size_t* index);
int stats_group_add(stats_group* group, int64_t duration);
/* Moves every duration of `from` to the end of `to`; `from` is left empty. */
int stats_group_take(stats_group* to, stats_group* from);

/* stats_table.c: RANGE_ID maps. */
void stats_map_free(stats_map* map);
/* The entry of `id`, or NULL. */
stats_pending* stats_map_get(const stats_map* map, uint64_t id);
/* Adds an entry for an ID not present. 0, or -1 when out of memory. */
int stats_map_put(stats_map* map, const stats_pending* entry);
void stats_map_remove(stats_map* map, stats_pending* entry);
/* Duration end - start without signed overflow (wraps like the hardware). */
int64_t stats_duration(int64_t start, int64_t end);
/* a + b, held at the int64 limits: sums of hostile durations (two ranges of
 * 8e18 ns) must not overflow (undefined behaviour) into negative times. */
int64_t stats_add_held(int64_t a, int64_t b);

/* stats_event.c: the write path. */
nvtxwResultCode_t stats_event_write(void* state, const core_event* event);
void stats_stream_free(stats_stream* st);

/* stats_task.c: task scopes and task events. */
nvtxwResultCode_t stats_task_scope_register(sink* s, const core_domain* domain, uint64_t id,
                                            uint64_t parent, const char* path);
/* The registered task scope `id` of `domain`, or NULL. */
const stats_task_scope* stats_task_scope_find(const stats_sink* ss, const core_domain* domain,
                                              uint64_t id);
struct event_info;
/* Accounts a task event (`task` is its task scope). 0, or -1 out of memory. */
int stats_task_event(stats_stream* st, const core_event* event, const struct event_info* ev,
                     const stats_task_scope* task);
/* Moves a closing stream's task accumulators into the sink. 0, or -1. */
int stats_task_merge(stats_sink* ss, stats_stream* st);
void stats_tasks_free(idmap* tasks);
void stats_task_scopes_free(stats_sink* ss);

/* stats_counter.c: counter samples. */
nvtxwResultCode_t stats_counter_write(void* state, int64_t timestamp, const core_counter* counter,
                                      const void* data, size_t size);
/* Adds every series of `from` into `to`. 0, or -1 out of memory. */
int stats_series_merge(stats_series_map* to, const stats_series_map* from);
void stats_series_free(stats_series_map* map);
/* The counter's COUNTERS semantic (unit, scale), or NULL. */
const nvtxSemanticsCounter_t* stats_counter_semantic(const core_counter* counter);

/* stats_print.c: computes the statistics and writes every requested
 * report to ss->fd. */
nvtxwResultCode_t stats_report_write(stats_sink* ss);

#endif /* NVTXW_SINK_STATS_INTERNAL_H */
