/*
 * sink/stats/stats_print.c - the stats sink's output (grammar at the top of
 * stats_sink.c): per-group statistics (exact median of the sorted durations,
 * sample standard deviation like nsys' SQLite stdev(): n - 1 in the
 * denominator, 0 for one instance), the push/pop nesting of the trace, and
 * one table renderer for text, CSV and JSON.
 *
 * Memory: every duration was kept (8 bytes per closed instance); the arrays
 * are sorted in place, so the statistics add only one summary per group. The
 * trace adds one item per push/pop instance when it is requested.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "common/output_file.h"
#include "common/utf8.h"
#include "sink/stats/stats_internal.h"

#define STATS_FLUSH_AT 65536

enum { CELL_INT, CELL_UINT, CELL_REAL, CELL_STR, CELL_NULL };

typedef struct stats_cell {
    int kind;
    int64_t i;
    uint64_t u;
    double d;
    const char* s;
} stats_cell;

typedef struct stats_column {
    const char* header;
    const char* key; /* JSON member name */
    int right;       /* right-aligned in text */
} stats_column;

typedef struct stats_table {
    const char* title; /* text title; NULL: the footer */
    const char* name;  /* report name (JSON member) */
    const stats_column* columns;
    size_t column_count, row_count;
    void (*cell)(const void* ctx, size_t row, size_t column, stats_cell* out);
    const void* ctx;
} stats_table;

typedef struct stats_out {
    stats_sink* ss;
    strbuf buf;
    int failed;           /* out of memory */
    nvtxwResultCode_t io; /* first write error */
} stats_out;

/* One summary row: a group's statistics. */
typedef struct stats_summary {
    const stats_group* group;
    int64_t total, min, max;
    double avg, med, stddev, percent;
} stats_summary;

typedef struct summary_view {
    stats_summary* rows;
    size_t count;
    int with_style;
} summary_view;

typedef struct trace_item {
    int64_t start, end, child_duration;
    size_t group, row, parent; /* parent: row of the enclosing range, or SIZE_MAX */
    uint32_t stream, level, children;
    uint64_t seq;
} trace_item;

typedef struct trace_view {
    const stats_sink* ss;
    const trace_item* items;
    const uint64_t* rank; /* by row: RangeId */
    size_t count;
} trace_view;

/* ---- Output buffer ------------------------------------------------------- */

static void out_flush(stats_out* out) {
    if (out->io == NVTXW_RESULT_SUCCESS) {
        int err = output_write_all(out->ss->fd, out->buf.data, out->buf.length);
        if (err != 0)
            out->io = error_set(NVTXW_RESULT_FAILED, "cannot write stats output \"%s\": %s",
                                out->ss->path, strerror(err));
    }
    strbuf_clear(&out->buf);
}

static void out_text(stats_out* out, const char* text, size_t length) {
    if (strbuf_append(&out->buf, text, length) != 0)
        out->failed = 1;
    if (out->buf.length >= STATS_FLUSH_AT)
        out_flush(out);
}

static void out_str(stats_out* out, const char* text) { out_text(out, text, strlen(text)); }

/* ---- Cells ----------------------------------------------------------------- */

/* JSON string: escapes quotes, backslashes and controls; invalid UTF-8
 * bytes become U+FFFD. */
static int append_json_string(strbuf* buf, const char* text) {
    const unsigned char* s = (const unsigned char*)text;
    size_t left = strlen(text);
    int status = strbuf_append(buf, "\"", 1);
    while (status == 0 && left > 0) {
        size_t n = utf8_sequence_length(s, left);
        if (n == 0)
            status = strbuf_append(buf, "\\ufffd", 6), n = 1;
        else if (*s == '"' || *s == '\\')
            status = strbuf_append(buf, "\\", 1) || strbuf_append(buf, (const char*)s, 1);
        else if (*s < 0x20)
            status = strbuf_printf(buf, "\\u%04x", *s);
        else
            status = strbuf_append(buf, (const char*)s, n);
        s += n;
        left -= n;
    }
    return status || strbuf_append(buf, "\"", 1);
}

static int append_csv_string(strbuf* buf, const char* text) {
    const char* p;
    if (strpbrk(text, ",\"\r\n") == NULL)
        return strbuf_append(buf, text, strlen(text));
    if (strbuf_append(buf, "\"", 1) != 0)
        return -1;
    for (p = text; *p != '\0'; p++)
        if (strbuf_append(buf, p, 1) != 0 || (*p == '"' && strbuf_append(buf, "\"", 1) != 0))
            return -1;
    return strbuf_append(buf, "\"", 1);
}

static int append_cell(strbuf* buf, const stats_cell* cell, int format) {
    switch (cell->kind) {
    case CELL_INT:
        return strbuf_printf(buf, "%" PRId64, cell->i);
    case CELL_UINT:
        return strbuf_printf(buf, "%" PRIu64, cell->u);
    case CELL_REAL:
        return strbuf_printf(buf, format == STATS_FORMAT_TEXT ? "%.1f" : "%.3f", cell->d);
    case CELL_STR:
        return format == STATS_FORMAT_JSON  ? append_json_string(buf, cell->s)
               : format == STATS_FORMAT_CSV ? append_csv_string(buf, cell->s)
                                            : strbuf_append(buf, cell->s, strlen(cell->s));
    default:
        return format == STATS_FORMAT_JSON ? strbuf_append(buf, "null", 4) : 0;
    }
}

/* Display width in code points (UTF-8 continuation bytes do not count). */
static size_t display_width(const char* text, size_t length) {
    size_t i, width = 0;
    for (i = 0; i < length; i++)
        width += ((unsigned char)text[i] & 0xC0) != 0x80;
    return width;
}

/* ---- Table rendering ------------------------------------------------------ */

static void out_spaces(stats_out* out, size_t count) {
    while (count-- > 0)
        out_text(out, " ", 1);
}

/* A padded text cell; the last column, when left-aligned, is not padded. */
static void text_cell(stats_out* out, const char* text, size_t width, int right, int last) {
    size_t pad = width - display_width(text, strlen(text));
    if (right)
        out_spaces(out, pad);
    out_str(out, text);
    if (!right && !last)
        out_spaces(out, pad);
}

/* Widest cell of each column (text format). widths: column_count entries. */
static int text_widths(const stats_table* t, size_t* widths, strbuf* scratch) {
    size_t row, c;
    for (c = 0; c < t->column_count; c++)
        widths[c] = display_width(t->columns[c].header, strlen(t->columns[c].header));
    for (row = 0; row < t->row_count; row++) {
        for (c = 0; c < t->column_count; c++) {
            stats_cell cell;
            size_t width;
            t->cell(t->ctx, row, c, &cell);
            strbuf_clear(scratch);
            if (append_cell(scratch, &cell, STATS_FORMAT_TEXT) != 0)
                return -1;
            width = display_width(scratch->data ? scratch->data : "", scratch->length);
            if (width > widths[c])
                widths[c] = width;
        }
    }
    return 0;
}

static void text_line_start(stats_out* out, size_t c) { out_str(out, c == 0 ? " " : "  "); }

static void render_text(stats_out* out, const stats_table* t, size_t* widths, strbuf* scratch) {
    size_t row, c, i;
    out_str(out, "** ");
    out_str(out, t->title);
    out_str(out, " (");
    out_str(out, t->name);
    out_str(out, "):\n\n");
    for (c = 0; c < t->column_count; c++) {
        text_line_start(out, c);
        text_cell(out, t->columns[c].header, widths[c], t->columns[c].right,
                  c + 1 == t->column_count);
    }
    out_str(out, "\n");
    for (c = 0; c < t->column_count; c++) {
        text_line_start(out, c);
        for (i = 0; i < widths[c]; i++)
            out_text(out, "-", 1);
    }
    out_str(out, "\n");
    for (row = 0; row < t->row_count; row++) {
        for (c = 0; c < t->column_count; c++) {
            stats_cell cell;
            t->cell(t->ctx, row, c, &cell);
            strbuf_clear(scratch);
            out->failed |= append_cell(scratch, &cell, STATS_FORMAT_TEXT) != 0;
            if (c + 1 == t->column_count && scratch->length == 0)
                break; /* no trailing blanks */
            text_line_start(out, c);
            text_cell(out, scratch->data ? scratch->data : "", widths[c], t->columns[c].right,
                      c + 1 == t->column_count);
        }
        out_str(out, "\n");
    }
    out_str(out, "\n");
}

static void render_row(stats_out* out, const stats_table* t, size_t row, strbuf* scratch) {
    int json = out->ss->format == STATS_FORMAT_JSON;
    size_t c;
    strbuf_clear(scratch);
    for (c = 0; c < t->column_count; c++) {
        stats_cell cell;
        t->cell(t->ctx, row, c, &cell);
        if (json)
            out->failed |= strbuf_append(scratch, c ? ", " : "{", c ? 2 : 1) != 0 ||
                           append_json_string(scratch, t->columns[c].key) != 0 ||
                           strbuf_append(scratch, ": ", 2) != 0;
        else if (c > 0)
            out->failed |= strbuf_append(scratch, ",", 1) != 0;
        out->failed |= append_cell(scratch, &cell, out->ss->format) != 0;
    }
    if (json)
        out->failed |= strbuf_append(scratch, "}", 1) != 0;
    out_text(out, scratch->data ? scratch->data : "", scratch->length);
}

static void render_csv(stats_out* out, const stats_table* t, strbuf* scratch) {
    size_t row, c;
    for (c = 0; c < t->column_count; c++) {
        strbuf_clear(scratch);
        out->failed |= append_csv_string(scratch, t->columns[c].header) != 0;
        out_str(out, c ? "," : "");
        out_text(out, scratch->data ? scratch->data : "", scratch->length);
    }
    out_str(out, "\n");
    for (row = 0; row < t->row_count; row++) {
        render_row(out, t, row, scratch);
        out_str(out, "\n");
    }
}

static void render_json(stats_out* out, const stats_table* t, int last, strbuf* scratch) {
    size_t row;
    out_str(out, "    \"");
    out_str(out, t->name);
    out_str(out, t->row_count ? "\": [\n" : "\": [");
    for (row = 0; row < t->row_count; row++) {
        out_str(out, "      ");
        render_row(out, t, row, scratch);
        out_str(out, row + 1 < t->row_count ? ",\n" : "\n    ");
    }
    out_str(out, last ? "]\n" : "],\n");
}

static void render_table(stats_out* out, const stats_table* t, int first, int last) {
    strbuf scratch = {NULL, 0, 0};
    size_t* widths = nvtxw_calloc(t->column_count, sizeof *widths);
    if (widths == NULL) {
        out->failed = 1;
        return;
    }
    if (out->ss->format == STATS_FORMAT_TEXT) {
        if (text_widths(t, widths, &scratch) != 0)
            out->failed = 1;
        else
            render_text(out, t, widths, &scratch);
    } else if (out->ss->format == STATS_FORMAT_CSV) {
        out_str(out, first ? "" : "\n");
        render_csv(out, t, &scratch);
    } else {
        render_json(out, t, last, &scratch);
    }
    strbuf_free(&scratch);
    nvtxw_free(widths);
}

/* ---- Summaries ------------------------------------------------------------ */

static int compare_int64(const void* a, const void* b) {
    int64_t x = *(const int64_t*)a, y = *(const int64_t*)b;
    return (x > y) - (x < y);
}

/* Sorts the group's durations in place and computes its row. */
static void summarize(const stats_group* group, stats_summary* out) {
    size_t n = group->count, i;
    int64_t total = 0;
    double mean, sum = 0.0, squares = 0.0;
    qsort(group->durations, n, sizeof(int64_t), compare_int64);
    for (i = 0; i < n; i++) {
        total = stats_add_held(total, group->durations[i]);
        sum += (double)group->durations[i];
    }
    memset(out, 0, sizeof *out);
    out->group = group;
    out->total = total;
    out->min = group->durations[0];
    out->max = group->durations[n - 1];
    mean = sum / (double)n; /* right even when the total is held at the limit */
    out->avg = mean;
    out->med = n % 2 ? (double)group->durations[n / 2]
                     : ((double)group->durations[n / 2 - 1] + (double)group->durations[n / 2]) / 2;
    for (i = 0; i < n; i++)
        squares += ((double)group->durations[i] - mean) * ((double)group->durations[i] - mean);
    out->stddev = n > 1 ? sqrt(squares / (double)(n - 1)) : 0.0;
}

static int compare_summary(const void* a, const void* b) {
    const stats_summary* x = a;
    const stats_summary* y = b;
    int by_name;
    if (x->total != y->total)
        return x->total < y->total ? 1 : -1;
    by_name = strcmp(x->group->name, y->group->name);
    return by_name != 0 ? by_name : x->group->style - y->group->style;
}

/* The rows of one summary report: groups of `style` (-1: both), sorted. */
static size_t select_summaries(const stats_summary* all, size_t count, int style,
                               stats_summary* rows) {
    size_t i, n = 0;
    double grand = 0.0;
    for (i = 0; i < count; i++)
        if (style < 0 || all[i].group->style == style)
            rows[n++] = all[i];
    for (i = 0; i < n; i++)
        grand += (double)rows[i].total;
    for (i = 0; i < n; i++)
        rows[i].percent = grand != 0.0 ? 100.0 * (double)rows[i].total / grand : 0.0;
    qsort(rows, n, sizeof *rows, compare_summary);
    return n;
}

static const stats_column summary_columns[] = {
    {"Time (%)", "time_pct", 1}, {"Total Time (ns)", "total_ns", 1}, {"Instances", "instances", 1},
    {"Avg (ns)", "avg_ns", 1},   {"Med (ns)", "med_ns", 1},          {"Min (ns)", "min_ns", 1},
    {"Max (ns)", "max_ns", 1},   {"StdDev (ns)", "stddev_ns", 1},    {"Style", "style", 0},
    {"Range", "range", 0},
};
/* The same without Style (push/pop-only and start/end-only reports). */
static const stats_column summary_columns_one_style[] = {
    {"Time (%)", "time_pct", 1}, {"Total Time (ns)", "total_ns", 1}, {"Instances", "instances", 1},
    {"Avg (ns)", "avg_ns", 1},   {"Med (ns)", "med_ns", 1},          {"Min (ns)", "min_ns", 1},
    {"Max (ns)", "max_ns", 1},   {"StdDev (ns)", "stddev_ns", 1},    {"Range", "range", 0},
};

static void summary_cell(const void* ctx, size_t row, size_t column, stats_cell* out) {
    const summary_view* view = ctx;
    const stats_summary* r = &view->rows[row];
    if (!view->with_style && column >= 8)
        column++; /* no Style column */
    memset(out, 0, sizeof *out);
    out->kind = column == 0 || column == 3 || column == 4 || column == 7 ? CELL_REAL
                : column < 8                                             ? CELL_INT
                                                                         : CELL_STR;
    out->d = column == 0 ? r->percent : column == 3 ? r->avg : column == 4 ? r->med : r->stddev;
    out->i = column == 1   ? r->total
             : column == 2 ? (int64_t)r->group->count
             : column == 5 ? r->min
                           : r->max;
    out->s =
        column == 8 ? (r->group->style == STATS_PUSHPOP ? "PushPop" : "StartEnd") : r->group->name;
}

/* ---- Trace ------------------------------------------------------------------ */

static int compare_nesting(const void* a, const void* b) {
    const trace_item* x = a;
    const trace_item* y = b;
    if (x->stream != y->stream)
        return x->stream < y->stream ? -1 : 1;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->end != y->end)
        return x->end > y->end ? -1 : 1; /* the enclosing range first */
    return (x->seq > y->seq) - (x->seq < y->seq);
}

static int compare_output(const void* a, const void* b) {
    const trace_item* x = a;
    const trace_item* y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->stream != y->stream)
        return x->stream < y->stream ? -1 : 1;
    if (x->level != y->level)
        return x->level < y->level ? -1 : 1;
    return (x->row > y->row) - (x->row < y->row);
}

/* Nesting by containment within each stream: a range's parent is the
 * innermost earlier range of its stream that contains it. `stack` holds
 * count rows. */
static void trace_nest(trace_item* items, size_t count, size_t* stack) {
    size_t i, depth = 0;
    qsort(items, count, sizeof *items, compare_nesting);
    for (i = 0; i < count; i++) {
        trace_item* item = &items[i];
        while (depth > 0 && (items[stack[depth - 1]].stream != item->stream ||
                             items[stack[depth - 1]].end < item->end))
            depth--;
        item->row = i;
        item->level = (uint32_t)depth;
        item->parent = depth > 0 ? stack[depth - 1] : SIZE_MAX;
        if (depth > 0) {
            items[stack[depth - 1]].children++;
            items[stack[depth - 1]].child_duration += stats_duration(item->start, item->end);
        }
        stack[depth++] = i;
    }
}

static const stats_column trace_columns[] = {
    {"Start (ns)", "start_ns", 1},
    {"End (ns)", "end_ns", 1},
    {"Duration (ns)", "duration_ns", 1},
    {"DurChild (ns)", "dur_child_ns", 1},
    {"DurNonChild (ns)", "dur_nonchild_ns", 1},
    {"Name", "name", 0},
    {"Stream", "stream", 0},
    {"Lvl", "level", 1},
    {"NumChild", "num_child", 1},
    {"RangeId", "range_id", 1},
    {"ParentId", "parent_id", 1},
};

static void trace_cell(const void* ctx, size_t row, size_t column, stats_cell* out) {
    const trace_view* view = ctx;
    const trace_item* it = &view->items[row];
    int64_t duration = stats_duration(it->start, it->end);
    int64_t ints[5] = {it->start, it->end, duration, it->child_duration,
                       stats_duration(it->child_duration, duration)};
    uint64_t uints[4] = {it->level, it->children, view->rank[it->row],
                         it->parent == SIZE_MAX ? 0 : view->rank[it->parent]};
    memset(out, 0, sizeof *out);
    if (column < 5)
        out->kind = CELL_INT, out->i = ints[column];
    else if (column < 7)
        out->kind = CELL_STR, out->s = column == 5 ? view->ss->groups.items[it->group].name
                                                   : view->ss->stream_names[it->stream];
    else if (column == 10 && it->parent == SIZE_MAX)
        out->kind = CELL_NULL;
    else
        out->kind = CELL_UINT, out->u = uints[column - 7];
}

/* Builds the trace items (nested, in output order) and their RangeIds. */
static int trace_build(const stats_sink* ss, trace_item** items_out, uint64_t** rank_out) {
    size_t n = ss->row_count, i;
    trace_item* items = nvtxw_calloc(n + 1, sizeof *items);
    size_t* stack = nvtxw_calloc(n + 1, sizeof *stack);
    uint64_t* rank = nvtxw_calloc(n + 1, sizeof *rank);
    if (items == NULL || stack == NULL || rank == NULL) {
        nvtxw_free(items), nvtxw_free(stack), nvtxw_free(rank);
        return -1;
    }
    for (i = 0; i < n; i++) {
        const stats_row* r = &ss->rows[i];
        items[i].start = r->start, items[i].end = r->end, items[i].group = r->group;
        items[i].stream = r->stream, items[i].seq = r->seq;
    }
    trace_nest(items, n, stack);
    nvtxw_free(stack);
    qsort(items, n, sizeof *items, compare_output);
    for (i = 0; i < n; i++)
        rank[items[i].row] = i + 1;
    *items_out = items;
    *rank_out = rank;
    return 0;
}

/* ---- Tasks (docs/tasks.md) ------------------------------------------------------ */

typedef struct task_row {
    const stats_task* task;
    const char* key;
} task_row;

static const stats_column task_columns[] = {
    {"Running Time (ns)", "running_ns", 1},
    {"Slices", "slices", 1},
    {"Suspended Time (ns)", "suspended_ns", 1},
    {"Suspensions", "suspensions", 1},
    {"First Start (ns)", "first_start_ns", 1},
    {"Last End (ns)", "last_end_ns", 1},
    {"Task", "task", 0},
    {"Name", "name", 0},
};

/* Per suspension reason: the summary columns, Instances as Suspensions. */
static const stats_column suspend_columns[] = {
    {"Time (%)", "time_pct", 1},       {"Total Time (ns)", "total_ns", 1},
    {"Suspensions", "suspensions", 1}, {"Avg (ns)", "avg_ns", 1},
    {"Med (ns)", "med_ns", 1},         {"Min (ns)", "min_ns", 1},
    {"Max (ns)", "max_ns", 1},         {"StdDev (ns)", "stddev_ns", 1},
    {"Reason", "reason", 0},
};

static void task_cell(const void* ctx, size_t row, size_t column, stats_cell* out) {
    const task_row* r = &((const task_row*)ctx)[row];
    const stats_task* t = r->task;
    int64_t ints[6] = {t->running,     (int64_t)t->slices, t->suspended, (int64_t)t->suspensions,
                       t->first_start, t->last_end};
    memset(out, 0, sizeof *out);
    if (column < 6) {
        out->kind = column >= 4 && t->slices == 0 ? CELL_NULL : CELL_INT;
        out->i = ints[column];
    } else {
        out->kind = CELL_STR;
        out->s = column == 6 ? r->key : t->name != NULL ? t->name : "";
    }
}

/* By running time descending, then key, then registration order. */
static int compare_task(const void* a, const void* b) {
    const task_row* x = a;
    const task_row* y = b;
    int by_key;
    if (x->task->running != y->task->running)
        return x->task->running < y->task->running ? 1 : -1;
    by_key = strcmp(x->key, y->key);
    if (by_key != 0)
        return by_key;
    return (x->task->ordinal > y->task->ordinal) - (x->task->ordinal < y->task->ordinal);
}

static void write_task_sum(stats_out* out, const char* title, const char* key, int first,
                           int last) {
    const stats_sink* ss = out->ss;
    task_row* rows = nvtxw_calloc(ss->tasks.count + 1, sizeof *rows);
    stats_table table = {title, key, task_columns, 8, 0, task_cell, rows};
    size_t i, n = 0;
    if (rows == NULL) {
        out->failed = 1;
        return;
    }
    for (i = 0; i < ss->tasks.capacity; i++) {
        const stats_task* task = ss->tasks.slots[i].value;
        if (task != NULL) {
            rows[n].task = task;
            rows[n++].key = ss->task_scopes[task->ordinal]->key;
        }
    }
    qsort(rows, n, sizeof *rows, compare_task);
    table.row_count = ss->task_rows != 0 && ss->task_rows < n ? ss->task_rows : n;
    render_table(out, &table, first, last);
    if (table.row_count < n && ss->format == STATS_FORMAT_TEXT)
        out->failed |=
            strbuf_printf(&out->buf,
                          "(the %zu tasks with the most running time of %zu; --task-rows all, "
                          "or StatsTaskRows=all, lists every task)\n\n",
                          table.row_count, n) != 0;
    nvtxw_free(rows);
}

/* ---- Counters --------------------------------------------------------------- */

static const stats_column counter_columns[] = {
    {"Samples", "samples", 1}, {"Streams", "streams", 1}, {"Min", "min", 1},
    {"Max", "max", 1},         {"Mean", "mean", 1},       {"Last", "last", 1},
    {"Unit", "unit", 0},       {"Counter", "counter", 0},
};

typedef struct counter_row {
    const stats_series* series;
    char* name; /* "domain:counter", ".field" added for a counter group's */
    const char* unit;
} counter_row;

/* An exact integer cell when the series is integral and the value fits. */
static void value_cell(const stats_series* s, long double value, stats_cell* out) {
    if (s->integral && value >= -9223372036854775807.0L - 1 && value < 9223372036854775808.0L) {
        out->kind = CELL_INT;
        out->i = (int64_t)value;
    } else if (s->integral && value >= 0 && value < 18446744073709551616.0L) {
        out->kind = CELL_UINT;
        out->u = (uint64_t)value;
    } else {
        out->kind = CELL_REAL;
        out->d = (double)value;
    }
}

static void counter_cell(const void* ctx, size_t row, size_t column, stats_cell* out) {
    const counter_row* r = &((const counter_row*)ctx)[row];
    const stats_series* s = r->series;
    memset(out, 0, sizeof *out);
    switch (column) {
    case 0:
    case 1:
        out->kind = CELL_UINT;
        out->u = column == 0 ? s->samples : s->streams;
        break;
    case 2:
        value_cell(s, s->min, out);
        break;
    case 3:
        value_cell(s, s->max, out);
        break;
    case 4:
        out->kind = CELL_REAL;
        out->d = (double)(s->sum / (long double)s->samples);
        break;
    case 5:
        value_cell(s, s->last, out);
        break;
    default:
        out->kind = CELL_STR;
        out->s = column == 6 ? r->unit : r->name;
    }
}

/* By name, then field. */
#define ORDER(a, b) (((a) > (b)) - ((a) < (b)))

/* By name, then field; counters of one name (IDs differ) by ID and scope,
 * so the order never follows where the series sit in memory. */
static int compare_counter(const void* a, const void* b) {
    const counter_row* x = a;
    const counter_row* y = b;
    int by_name = strcmp(x->name, y->name);
    if (by_name != 0)
        return by_name;
    if (x->series->field != y->series->field)
        return ORDER(x->series->field, y->series->field);
    if (x->series->counter->id != y->series->counter->id)
        return ORDER(x->series->counter->id, y->series->counter->id);
    return ORDER(x->series->counter->scope_id, y->series->counter->scope_id);
}

#undef ORDER

static char* counter_name(const stats_series* s) {
    const core_counter* c = s->counter;
    strbuf name = {NULL, 0, 0};
    char fallback[40];
    const char* counter = c->name != NULL && c->name[0] != '\0' ? c->name : fallback;
    snprintf(fallback, sizeof fallback, "counter %" PRIu64, c->id);
    if ((s->domain[0] != '\0' && strbuf_printf(&name, "%s:", s->domain) != 0) ||
        strbuf_append(&name, counter, strlen(counter)) != 0 ||
        (s->field_name[0] != '\0' && strbuf_printf(&name, ".%s", s->field_name) != 0) ||
        strbuf_append(&name, "", 0) != 0) {
        strbuf_free(&name);
        return NULL;
    }
    return name.data;
}

static void write_counter_sum(stats_out* out, const char* title, const char* key, int first,
                              int last) {
    const stats_series_map* series = &out->ss->series;
    counter_row* rows = nvtxw_calloc(series->count + 1, sizeof *rows);
    stats_table table = {title, key, counter_columns, 8, 0, counter_cell, rows};
    size_t i, n = 0;
    out->failed |= rows == NULL;
    for (i = 0; rows != NULL && i < series->capacity; i++) {
        const stats_series* s = &series->slots[i];
        const nvtxSemanticsCounter_t* sem;
        if (s->counter == NULL || s->samples == 0)
            continue;
        sem = stats_counter_semantic(s->counter);
        rows[n].series = s;
        rows[n].unit = sem != NULL && sem->unit != NULL ? sem->unit : "";
        if ((rows[n++].name = counter_name(s)) == NULL)
            out->failed = 1;
    }
    if (rows != NULL && !out->failed) {
        qsort(rows, n, sizeof *rows, compare_counter);
        table.row_count = n;
        render_table(out, &table, first, last);
    }
    for (i = 0; i < n; i++)
        nvtxw_free(rows[i].name);
    nvtxw_free(rows);
}

static void write_suspend_sum(stats_out* out, const char* title, const char* key, int first,
                              int last) {
    const stats_groups* reasons = &out->ss->reasons;
    stats_summary* all = nvtxw_calloc(reasons->count + 1, sizeof *all);
    stats_summary* rows = nvtxw_calloc(reasons->count + 1, sizeof *rows);
    summary_view view = {rows, 0, 0};
    stats_table table = {title, key, suspend_columns, 9, 0, summary_cell, &view};
    size_t i, n = 0;
    if (all == NULL || rows == NULL) {
        out->failed = 1;
    } else {
        for (i = 0; i < reasons->count; i++)
            if (reasons->items[i].count > 0)
                summarize(&reasons->items[i], &all[n++]);
        view.count = table.row_count = select_summaries(all, n, -1, rows);
        render_table(out, &table, first, last);
    }
    nvtxw_free(all);
    nvtxw_free(rows);
}

/* ---- Reports ------------------------------------------------------------------ */

static const char* const report_titles[STATS_REPORT_COUNT] = {"NVTX Range Summary",
                                                              "NVTX Push/Pop Range Summary",
                                                              "NVTX Start/End Range Summary",
                                                              "NVTX Push/Pop Range Trace",
                                                              "Task Time Summary",
                                                              "Task Suspension Summary",
                                                              "Counter Summary"};
static const char* const report_keys[STATS_REPORT_COUNT] = {
    "nvtx_sum", "nvtx_pushpop_sum", "nvtx_startend_sum", "nvtx_pushpop_trace",
    "task_sum", "task_suspend_sum", "counter_sum"};

static void write_summary(stats_out* out, unsigned report, const stats_summary* all, size_t count,
                          stats_summary* rows, int first, int last) {
    static const int styles[3] = {-1, STATS_PUSHPOP, STATS_STARTEND};
    summary_view view;
    stats_table table = {
        report_titles[report], report_keys[report], summary_columns, 10, 0, summary_cell, &view};
    view.rows = rows;
    view.count = select_summaries(all, count, styles[report], rows);
    view.with_style = report == 0;
    table.columns = view.with_style ? summary_columns : summary_columns_one_style;
    table.column_count = view.with_style ? 10 : 9;
    table.row_count = view.count;
    render_table(out, &table, first, last);
}

static void write_trace(stats_out* out, int first, int last) {
    trace_item* items = NULL;
    uint64_t* rank = NULL;
    trace_view view;
    stats_table table = {report_titles[3], report_keys[3], trace_columns, 11, 0, trace_cell, &view};
    if (trace_build(out->ss, &items, &rank) != 0) {
        out->failed = 1;
        return;
    }
    view.ss = out->ss, view.items = items, view.rank = rank, view.count = out->ss->row_count;
    table.row_count = view.count;
    render_table(out, &table, first, last);
    nvtxw_free(items);
    nvtxw_free(rank);
}

static const stats_column footer_columns[] = {
    {"Unclosed PushPop", "pushpop", 1},         {"Unclosed StartEnd", "startend", 1},
    {"Unmatched Pop", "unmatched_pop", 1},      {"Unmatched End", "unmatched_end", 1},
    {"Reused Range IDs", "reused_range_id", 1}, {"Incomplete Events", "incomplete", 1},
};

static void footer_cell(const void* ctx, size_t row, size_t column, stats_cell* out) {
    const stats_sink* ss = ctx;
    uint64_t values[6] = {ss->unclosed_pushes, ss->starts.count, ss->unmatched_pops,
                          ss->ends.count,      ss->lost_ranges,  ss->incomplete};
    (void)row;
    memset(out, 0, sizeof *out);
    out->kind = CELL_UINT;
    out->u = values[column];
}

static void write_footer(stats_out* out) {
    stats_table table = {NULL, "unclosed", footer_columns, 6, 1, footer_cell, out->ss};
    strbuf scratch = {NULL, 0, 0};
    stats_cell c[6];
    size_t i;
    if (out->ss->format != STATS_FORMAT_TEXT) {
        out_str(out, out->ss->format == STATS_FORMAT_CSV ? "\n" : "  },\n  \"unclosed\": ");
        if (out->ss->format == STATS_FORMAT_CSV)
            render_csv(out, &table, &scratch);
        else
            render_row(out, &table, 0, &scratch);
        out_str(out, out->ss->format == STATS_FORMAT_CSV ? "" : "\n}\n");
        strbuf_free(&scratch);
        return;
    }
    for (i = 0; i < 6; i++)
        footer_cell(out->ss, 0, i, &c[i]);
    out->failed |=
        strbuf_printf(&out->buf,
                      "Ranges not closed at session end: %" PRIu64 " push/pop, %" PRIu64
                      " start/end; unmatched pops: %" PRIu64 ", unmatched ends: %" PRIu64
                      ", reused range IDs: %" PRIu64 ", incomplete events: %" PRIu64 "\n",
                      c[0].u, c[1].u, c[2].u, c[3].u, c[4].u, c[5].u) != 0;
}

static void write_header(stats_out* out) {
    if (out->ss->format != STATS_FORMAT_JSON)
        return;
    out_str(out, "{\n  \"session\": ");
    out->failed |= append_json_string(&out->buf, out->ss->session_name) != 0;
    out_str(out, ",\n  \"reports\": {\n");
}

static void write_reports(stats_out* out, stats_summary* all, size_t count, stats_summary* rows) {
    size_t i;
    for (i = 0; i < out->ss->order_count; i++) {
        unsigned report = out->ss->order[i];
        int last = i + 1 == out->ss->order_count;
        if (report == 3)
            write_trace(out, i == 0, last);
        else if (report == 4)
            write_task_sum(out, report_titles[4], report_keys[4], i == 0, last);
        else if (report == 5)
            write_suspend_sum(out, report_titles[5], report_keys[5], i == 0, last);
        else if (report == 6)
            write_counter_sum(out, report_titles[6], report_keys[6], i == 0, last);
        else
            write_summary(out, report, all, count, rows, i == 0, last);
    }
}

static void add_report(stats_sink* ss, unsigned char report) {
    if ((ss->reports & (1u << report)) == 0) {
        ss->order[ss->order_count++] = report;
        ss->reports |= 1u << report;
    }
}

/* The default reports grow the task tables when there are tasks and the
 * counter table when there are counter samples. */
static void add_default_reports(stats_sink* ss) {
    if (!ss->default_reports)
        return;
    if (ss->task_scope_count > 0) {
        add_report(ss, 4); /* task_sum */
        add_report(ss, 5); /* task_suspend_sum */
    }
    if (ss->series.count > 0)
        add_report(ss, 6); /* counter_sum */
}

nvtxwResultCode_t stats_report_write(stats_sink* ss) {
    size_t count = 0, i;
    stats_summary* all = nvtxw_calloc(ss->groups.count + 1, sizeof *all);
    stats_summary* rows = nvtxw_calloc(ss->groups.count + 1, sizeof *rows);
    stats_out out;
    memset(&out, 0, sizeof out);
    out.ss = ss;
    out.io = NVTXW_RESULT_SUCCESS;
    out.failed = all == NULL || rows == NULL;
    add_default_reports(ss);
    /* Groups of ranges that never closed have no instance and no row. */
    for (i = 0; !out.failed && i < ss->groups.count; i++)
        if (ss->groups.items[i].count > 0)
            summarize(&ss->groups.items[i], &all[count++]);
    if (!out.failed) {
        write_header(&out);
        write_reports(&out, all, count, rows);
        write_footer(&out);
    }
    if (!out.failed)
        out_flush(&out);
    strbuf_free(&out.buf);
    nvtxw_free(all);
    nvtxw_free(rows);
    if (out.failed)
        return error_oom("the stats output");
    return out.io;
}
