/*
 * sink/stats/stats_task.c - the stats sink's task model (docs/tasks.md,
 * docs/stats.md "Tasks"): which scopes are tasks, and the time of each task
 * and of each suspension reason.
 *
 * A task scope is one whose path's last node is `task[KEY]` (ABI spec 2.10:
 * '/' separates nodes, '\' escapes '/', '[', ']'); registrations record it
 * (under the core's registration mutex, while writers may look it up). A
 * task event is an event whose first SCOPE_ID entry names a task scope
 * (event_info.scope):
 *   whole range (RANGE_PUSHPOP, RANGE_STARTEND) with begin and end
 *       a slice: running time, first start, last end; the name of the
 *       task's earliest slice names the task
 *   mark (or no role) with top-level fields state = resumed (6) and
 *   suspended_at != 0
 *       a suspension of time - suspended_at, counted for the task and for
 *       its `reason` (a string; "(none)" when absent)
 * Every figure is a sum, a minimum or a maximum, so the order in which
 * streams deliver a task's events does not matter: each stream accumulates
 * its own records without a lock and StreamClose merges them.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "nvtxw/tasks.h"
#include "sink/shared/event_info.h"
#include "sink/shared/task_scope.h"
#include "sink/stats/stats_internal.h"

#define NO_REASON "(none)"

/* ---- Task scopes (registration) ------------------------------------------- */

/* The scope is complete before pubmap_put publishes it to the writers. */
static int add_scope(stats_sink* ss, const core_domain* domain, uint64_t id, char* key) {
    stats_task_scope* scope = NULL;
    pubmap* map;
    if (ss->task_scope_count == ss->task_scope_capacity) {
        size_t capacity = ss->task_scope_capacity ? ss->task_scope_capacity * 2 : 64;
        stats_task_scope** all = nvtxw_reallocarray(ss->task_scopes, capacity, sizeof *all);
        if (all == NULL)
            return -1;
        ss->task_scopes = all;
        ss->task_scope_capacity = capacity;
    }
    map = task_scope_domain_map(&ss->task_scope_maps, domain->index);
    if (map == NULL || (scope = nvtxw_calloc(1, sizeof *scope)) == NULL)
        return -1;
    scope->ordinal = ss->task_scope_count;
    scope->key = key;
    if (pubmap_put(map, id, scope) != 0) {
        nvtxw_free(scope);
        return -1;
    }
    ss->task_scopes[ss->task_scope_count++] = scope;
    return 0;
}

nvtxwResultCode_t stats_task_scope_register(sink* s, const core_domain* domain, uint64_t id,
                                            uint64_t parent, const char* path) {
    strbuf key = {NULL, 0, 0};
    int found = task_scope_key(path, &key);
    (void)parent;
    if (found == 1 && add_scope((stats_sink*)s, domain, id, key.data) == 0)
        return NVTXW_RESULT_SUCCESS; /* the scope owns the key now */
    strbuf_free(&key);
    return found == 0 ? NVTXW_RESULT_SUCCESS : error_oom("a stats task scope");
}

/* Lock-free (write path). */
const stats_task_scope* stats_task_scope_find(const stats_sink* ss, const core_domain* domain,
                                              uint64_t id) {
    const pubmap* map = pubvec_get(&ss->task_scope_maps, domain->index);
    return map ? pubmap_get(map, id) : NULL;
}

static void scope_map_free(void* map) {
    task_scope_domain_map_free(map, NULL); /* the scopes are task_scopes' */
}

void stats_task_scopes_free(stats_sink* ss) {
    size_t i;
    for (i = 0; i < ss->task_scope_count; i++) {
        nvtxw_free(ss->task_scopes[i]->key);
        nvtxw_free(ss->task_scopes[i]);
    }
    pubvec_free(&ss->task_scope_maps, scope_map_free);
    nvtxw_free(ss->task_scopes);
}

/* ---- Accumulators --------------------------------------------------------------- */

/* The record of task `ordinal` in `tasks`, added when new; NULL out of memory. */
static stats_task* task_record(idmap* tasks, uint64_t ordinal) {
    stats_task* task = idmap_get(tasks, ordinal + 1);
    if (task != NULL)
        return task;
    if ((task = nvtxw_calloc(1, sizeof *task)) == NULL)
        return NULL;
    task->ordinal = ordinal;
    if (idmap_put(tasks, ordinal + 1, task) != 0) {
        nvtxw_free(task);
        return NULL;
    }
    return task;
}

/* A slice: `name` (NUL-terminated, may be NULL) names the task when the
 * slice is its earliest. */

static int task_add_slice(stats_task* task, int64_t begin, int64_t end, const char* name) {
    if (task->slices == 0 || begin < task->first_start) {
        char* copy = name != NULL ? nvtxw_strdup(name) : NULL;
        if (name != NULL && copy == NULL)
            return -1;
        nvtxw_free(task->name);
        task->name = copy;
        task->first_start = begin;
    }
    if (task->slices == 0 || end > task->last_end)
        task->last_end = end;
    task->slices++;
    task->running = stats_add_held(task->running, stats_duration(begin, end));
    return 0;
}

/* Folds `from` into `to` (the same task); `from` keeps nothing it owned. */
static void task_fold(stats_task* to, stats_task* from) {
    if (from->slices > 0 && (to->slices == 0 || from->first_start < to->first_start)) {
        nvtxw_free(to->name);
        to->name = from->name;
        from->name = NULL;
        to->first_start = from->first_start;
    }
    if (from->slices > 0 && (to->slices == 0 || from->last_end > to->last_end))
        to->last_end = from->last_end;
    to->slices += from->slices;
    to->running = stats_add_held(to->running, from->running);
    to->suspensions += from->suspensions;
    to->suspended = stats_add_held(to->suspended, from->suspended);
}

void stats_tasks_free(idmap* tasks) {
    size_t i;
    for (i = 0; i < tasks->capacity; i++) {
        stats_task* task = tasks->slots[i].value;
        if (task != NULL) {
            nvtxw_free(task->name);
            nvtxw_free(task);
        }
    }
    idmap_free(tasks);
}

/* ---- The resumption fields of a mark ------------------------------------------------ */

/* What a second walk of a task mark finds in its top-level fields. */
typedef struct mark_walk {
    unsigned depth;
    const char* field; /* name of the open top-level field */
    int has_state, has_suspended_at;
    uint64_t state;
    int64_t suspended_at;
    strbuf* reason; /* text of the "reason" field; untouched when absent */
} mark_walk;

static int is_field(const mark_walk* w, const char* name) {
    return w->depth == 0 && w->field != NULL && strcmp(w->field, name) == 0;
}

static int mark_field_begin(void* ctx, const nvtxw_field_info_t* field) {
    mark_walk* w = ctx;
    if (w->depth == 0)
        w->field = field->name;
    return 0;
}

static int mark_open(void* ctx, uint64_t unused) {
    (void)unused;
    ((mark_walk*)ctx)->depth++;
    return 0;
}

static int mark_close(void* ctx) {
    ((mark_walk*)ctx)->depth--;
    return 0;
}

static void mark_number(mark_walk* w, uint64_t value) {
    if (is_field(w, "state"))
        w->has_state = 1, w->state = value;
    else if (is_field(w, "suspended_at"))
        w->has_suspended_at = 1, w->suspended_at = (int64_t)value;
}

static int mark_signed(void* ctx, int64_t value) {
    mark_number(ctx, (uint64_t)value);
    return 0;
}

static int mark_unsigned(void* ctx, uint64_t value) {
    mark_number(ctx, value);
    return 0;
}

static int mark_enum(void* ctx, uint64_t value, const char* name) {
    (void)name;
    mark_number(ctx, value);
    return 0;
}

/* A state given by its name (the enum's value names of schemas/tasks.yaml),
 * as payloads rebuilt from JSON or a capture carry it. */
static void mark_state_name(mark_walk* w, const char* text, size_t length) {
    static const char* const names[NVTXW_TASK_STATE_COUNT] = {"staged",    "created",   "executing",
                                                              "yielded",   "suspended", "resumed",
                                                              "completed", "deleted"};
    for (size_t i = 0; i < NVTXW_TASK_STATE_COUNT; i++) {
        if (strlen(names[i]) == length && memcmp(names[i], text, length) == 0)
            mark_number(w, (uint64_t)(i + NVTXW_TASK_STAGED));
    }
}

static int mark_text(mark_walk* w, const char* text, size_t length) {
    if (is_field(w, "state"))
        mark_state_name(w, text, length);
    if (!is_field(w, "reason"))
        return 0;
    strbuf_clear(w->reason);
    return strbuf_append(w->reason, text, length);
}

static int mark_string(void* ctx, const char* utf8, size_t length) {
    return mark_text(ctx, utf8, length);
}

static int mark_string_handle(void* ctx, uint64_t handle, const char* text) {
    (void)handle;
    return text != NULL ? mark_text(ctx, text, strlen(text)) : 0;
}

static const nvtxw_visitor_t mark_visitor = {
    .struct_size = sizeof(nvtxw_visitor_t),
    .field_begin = mark_field_begin,
    .array_begin = mark_open,
    .array_end = mark_close,
    .object_begin = mark_open,
    .object_end = mark_close,
    .on_signed = mark_signed,
    .on_unsigned = mark_unsigned,
    .on_enum = mark_enum,
    .on_string = mark_string,
    .on_string_handle = mark_string_handle,
};

/* A resumed mark: the suspension it ends, for the task and its reason. */
static int stream_mark(stats_stream* st, const core_event* event, const event_info* ev,
                       const stats_task_scope* scope) {
    mark_walk w;
    core_event_facts facts;
    stats_task* task;
    size_t group;
    int64_t duration;
    memset(&w, 0, sizeof w);
    strbuf_clear(&st->name);
    w.reason = &st->name;
    if (core_event_visit(event, &mark_visitor, &w, NVTXW_VISIT_ALLOW_FOREIGN_POINTERS, &facts) !=
            NVTXW_RESULT_SUCCESS ||
        !w.has_state || w.state != NVTXW_TASK_RESUMED || !w.has_suspended_at ||
        w.suspended_at == 0 || !ev->has_point)
        return 0; /* walked once already: a failure here cannot be new */
    duration = stats_duration(w.suspended_at, ev->point);
    if ((task = task_record(&st->tasks, scope->ordinal)) == NULL ||
        stats_groups_find_or_add(&st->reasons, 0, st->name.length > 0 ? st->name.data : NO_REASON,
                                 &group) != 0 ||
        stats_group_add(&st->reasons.items[group], duration) != 0)
        return -1;
    task->suspensions++;
    task->suspended = stats_add_held(task->suspended, duration);
    return 0;
}

int stats_task_event(stats_stream* st, const core_event* event, const event_info* ev,
                     const stats_task_scope* scope) {
    stats_task* task;
    if (ev->role == NVTXW_PAYLOAD_SCHEMA_ROLE(NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_PUSHPOP) ||
        ev->role == NVTXW_PAYLOAD_SCHEMA_ROLE(NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_STARTEND)) {
        if (!ev->has_begin || !ev->has_end)
            return 0; /* counted as incomplete by the range statistics */
        if ((task = task_record(&st->tasks, scope->ordinal)) == NULL)
            return -1;
        return task_add_slice(task, ev->begin, ev->end,
                              ev->has_message ? st->message.data + ev->message : NULL);
    }
    if (ev->role == 0 || ev->role == NVTXW_PAYLOAD_SCHEMA_ROLE(NVTX_PAYLOAD_SCHEMA_FLAG_MARK))
        return stream_mark(st, event, ev, scope);
    return 0;
}

int stats_task_merge(stats_sink* ss, stats_stream* st) {
    size_t i;
    for (i = 0; i < st->tasks.capacity; i++) {
        stats_task* from = st->tasks.slots[i].value;
        stats_task* to;
        if (from == NULL)
            continue;
        if ((to = task_record(&ss->tasks, from->ordinal)) == NULL)
            return -1;
        task_fold(to, from);
    }
    for (i = 0; i < st->reasons.count; i++) {
        stats_group* from = &st->reasons.items[i];
        size_t group;
        if (stats_groups_find_or_add(&ss->reasons, 0, from->name, &group) != 0 ||
            stats_group_take(&ss->reasons.items[group], from) != 0)
            return -1;
    }
    return 0;
}
