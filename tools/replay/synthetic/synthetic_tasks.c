/*
 * tools/replay/synthetic/synthetic_tasks.c - the `tasks` generator: an HPX-like task
 * runtime written with the task API of nvtxw/tasks.h (docs/tasks.md).
 *
 * Workers are streams "worker N" with the scope "node0/process0"; tasks are
 * scopes task[SLOT.GENERATION] below it, registered when the task is
 * created (a recycled slot is a new task). The runtime is a
 * discrete-event simulation: the worker with the smallest clock acts next,
 * so every stream is written in time order. A worker
 *   - spawns a root task (staged, created) while fewer than `workers`
 *     tasks live and the budget (`tasks`, or events=N) allows;
 *   - runs the newest task of its own queue, else steals the oldest ready
 *     task of the longest other queue (a steal mark with the victim's
 *     depth), else polls the wait list (a wake mark: I/O completed, mutex
 *     released), else sleeps (2 us, doubling while idle up to 1 ms);
 *   - samples its counter "worker N queue depth" whenever it changed.
 * A slice of a task ends in one of: spawning 1..fanout children and
 * suspending on their futures (the last child to complete writes the wake
 * mark, a causal link, and queues the parent on its own worker); waiting
 * for I/O or a mutex (the wait list); yielding (queued at the steal end);
 * completing (completed, deleted). A task resumed after a suspension
 * carries the causal link as flow_in of its first slice and a resumed mark.
 * State: `live` task slots and per-worker queues of slot numbers, so memory
 * does not grow with the number of tasks or events.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvtxw/tasks.h"
#include "synthetic.h"
#include "tool_alloc.h"

enum { P_WORKERS = 2, P_TASKS, P_LIVE, P_FANOUT, P_DEPTH, P_SLICES, P_WAIT, P_SLICE_NS };

static const synth_param params[] = {
    SYNTH_COMMON_PARAMS,       {"workers", 4, 1, 1024}, {"tasks", 2000, 1, UINT64_C(1) << 40},
    {"live", 256, 1, 1 << 20}, {"fanout", 4, 1, 64},    {"depth", 6, 0, 64},
    {"slices", 4, 1, 1000},    {"wait", 20, 0, 100},    {"slice", 20000, 2, UINT64_C(1) << 40},
};

enum { WAIT_FUTURE, WAIT_IO, WAIT_MUTEX, WAIT_KINDS };
static const char* const wait_reasons[WAIT_KINDS] = {"waiting for future", "waiting for I/O",
                                                     "mutex contention"};
static const char* const wake_causes[WAIT_KINDS] = {"future set", "I/O completed",
                                                    "mutex released"};
static const char* const task_names[] = {"fib", "stencil_update", "partition", "reduce", "io_read"};
#define TASK_NAMES 5

/* An idle worker's sleeps: from BACKOFF_MIN, doubling up to BACKOFF_MAX. */
#define BACKOFF_MIN 2000    /* ns */
#define BACKOFF_MAX 1000000 /* ns */

typedef struct task {
    uint64_t scope; /* 0: free slot */
    uint64_t generation;
    uint32_t parent;  /* slot + 1; 0 = root */
    uint32_t pending; /* children not completed */
    uint32_t depth;
    uint32_t slices_left;
    uint32_t reason;      /* of the current suspension */
    int started;          /* has run */
    int64_t ready_at;     /* runnable from */
    int64_t suspended_at; /* -1: not suspended */
    uint64_t link;        /* causal link of the pending resumption; 0 = none */
    nvtxStringHandle_t name;
} task;

/* A double-ended ring of slot numbers: own work at the back, steals and
 * yields at the front. */
typedef struct deque {
    uint32_t* slot;
    uint32_t head, count, capacity;
} deque;

typedef struct worker {
    nvtxwStreamHandle_t stream;
    int64_t clock;
    deque queue;
    uint64_t depth_counter;
    int64_t sampled_depth; /* last sample written; -1 = none */
    int64_t backoff;       /* the next sleep when idle, ns */
} worker;

typedef struct tasks_state {
    synth_run* run;
    const nvtxwInterface_t* t;
    uint32_t workers, live_max;
    nvtxDomainHandle_t domain;
    nvtxw_task_ids_t ids;
    uint64_t process_scope;
    nvtxStringHandle_t reasons[WAIT_KINDS], causes[WAIT_KINDS], names[TASK_NAMES], no_work;
    worker* w;
    task* tasks;
    uint32_t* free_slots;
    uint32_t free_count;
    deque waiting;
    uint64_t spawned, links, live;
} tasks_state;

static void dq_push_back(deque* q, uint32_t v) {
    q->slot[(q->head + q->count++) % q->capacity] = v;
}

static void dq_push_front(deque* q, uint32_t v) {
    q->head = (q->head + q->capacity - 1) % q->capacity;
    q->slot[q->head] = v;
    q->count++;
}

static uint32_t dq_pop_back(deque* q) { return q->slot[(q->head + --q->count) % q->capacity]; }

static uint32_t dq_front(const deque* q) { return q->slot[q->head]; }

static uint32_t dq_pop_front(deque* q) {
    uint32_t v = q->slot[q->head];
    q->head = (q->head + 1) % q->capacity;
    q->count--;
    return v;
}

static int check(tasks_state* s, nvtxwResultCode_t rc, const char* what) {
    s->run->written++;
    return synth_check(s->run, rc, "%s", what);
}

/* ---- Setup ----------------------------------------------------------- */

static int string(tasks_state* s, const char* text, nvtxStringHandle_t* out) {
    return synth_check(s->run, s->t->StringRegister(s->domain, text, out), "register string %s",
                       text);
}

static int register_strings(tasks_state* s) {
    for (int k = 0; k < WAIT_KINDS; k++) {
        if (string(s, wait_reasons[k], &s->reasons[k]) || string(s, wake_causes[k], &s->causes[k]))
            return 1;
    }
    for (int k = 0; k < TASK_NAMES; k++) {
        if (string(s, task_names[k], &s->names[k]))
            return 1;
    }
    return string(s, "no work", &s->no_work);
}

/* Worker streams share the process scope with the tasks, so that a viewer
 * shows the worker rows and the task rows in one process. */
static int open_workers(tasks_state* s) {
    synth_run* run = s->run;
    for (uint32_t i = 0; i < s->workers; i++) {
        char name[32], counter[48];
        snprintf(name, sizeof name, "worker %u", i);
        snprintf(counter, sizeof counter, "worker %u queue depth", i);
        if (synth_stream(run, s->domain, name, s->process_scope, &s->w[i].stream) ||
            synth_counter(run, s->domain, counter, NVTX_PAYLOAD_ENTRY_TYPE_INT64, s->process_scope,
                          &s->w[i].depth_counter))
            return 1;
        s->w[i].sampled_depth = -1;
        s->w[i].backoff = BACKOFF_MIN;
    }
    return 0;
}

static int setup(tasks_state* s) {
    synth_run* run = s->run;
    s->ids.struct_size = sizeof s->ids;
    return synth_check(run, nvtxwDomainRegister(s->t, run->session, "synthetic.tasks", &s->domain),
                       "register domain synthetic.tasks") ||
           synth_check(run, nvtxw_task_schemas_register(s->t, s->domain, &s->ids),
                       "register the task schemas") ||
           synth_scope(run, s->domain, "node0/process0", &s->process_scope) ||
           register_strings(s) || open_workers(s);
}

/* ---- Task lifetime ---------------------------------------------------- */

static int budget_left(const tasks_state* s) {
    return synth_more(s->run, s->spawned, s->run->value[P_TASKS]);
}

/* A new task in a free slot, queued on worker `w` at `time`; its scope is
 * registered here, before any event uses it. */
static int create(tasks_state* s, worker* w, int64_t time, uint32_t parent, uint32_t depth) {
    synth_run* run = s->run;
    uint32_t slot = s->free_slots[--s->free_count];
    task* k = &s->tasks[slot];
    k->generation++;
    if (synth_check(run,
                    nvtxw_task_scope_register_id(s->t, s->domain, s->process_scope, slot,
                                                 k->generation, &k->scope),
                    "register a task scope"))
        return 1;
    k->parent = parent;
    k->pending = 0;
    k->depth = depth;
    k->slices_left = (uint32_t)synth_uniform(run, 1, run->value[P_SLICES]);
    k->started = 0;
    k->ready_at = time;
    k->suspended_at = -1;
    k->link = 0;
    k->name = s->names[synth_uniform(run, 0, TASK_NAMES - 1)];
    s->spawned++;
    s->live++;
    if (parent == 0 && check(s,
                             nvtxw_task_state_write(s->t, w->stream, &s->ids, k->scope, time,
                                                    NVTXW_TASK_STAGED, 0),
                             "write a staged mark"))
        return 1;
    dq_push_back(&w->queue, slot);
    return check(
        s, nvtxw_task_state_write(s->t, w->stream, &s->ids, k->scope, time, NVTXW_TASK_CREATED, 0),
        "write a created mark");
}

/* Worker `w` makes task `slot` runnable at `time` with a causal link. */
static int wake(tasks_state* s, worker* w, uint32_t slot, int64_t time) {
    task* k = &s->tasks[slot];
    k->link = ++s->links;
    /* a future set before its parent got to wait on it: the parent
     * resumes, at the earliest, when it suspended */
    k->ready_at = time > k->suspended_at ? time : k->suspended_at;
    dq_push_back(&w->queue, slot);
    return check(s,
                 nvtxw_task_wake_write(s->t, w->stream, &s->ids, k->scope, time,
                                       s->causes[k->reason], k->link),
                 "write a wake mark");
}

/* Completed and deleted at `time`. The last child first sets its parent's
 * future: the wake mark comes before the child's own marks, so a viewer
 * binding the causal link to the first event at that time on this worker
 * finds the wake. */
static int complete(tasks_state* s, worker* w, uint32_t slot, int64_t time) {
    synth_run* run = s->run;
    task* k = &s->tasks[slot];
    uint32_t parent = k->parent;
    if (parent != 0 && --s->tasks[parent - 1].pending == 0 && wake(s, w, parent - 1, time))
        return 1;
    if (check(s,
              nvtxw_task_state_write(s->t, w->stream, &s->ids, k->scope, time, NVTXW_TASK_COMPLETED,
                                     0),
              "write a completed mark") ||
        check(
            s,
            nvtxw_task_state_write(s->t, w->stream, &s->ids, k->scope, time, NVTXW_TASK_DELETED, 0),
            "write a deleted mark"))
        return 1;
    /* Nothing names the task after its deleted mark: the backend may
     * forget its scope (flat memory however many tasks are created). */
    if (NVTXW_EXTENSION_HAS(s->run->ext, ScopeRelease) &&
        synth_check(run, run->ext->ScopeRelease(s->domain, k->scope), "release a task scope"))
        return 1;
    k->scope = 0;
    s->free_slots[s->free_count++] = slot;
    s->live--;
    return 0;
}

static int suspend(tasks_state* s, worker* w, uint32_t slot, int64_t time, uint32_t reason) {
    task* k = &s->tasks[slot];
    k->reason = reason;
    k->suspended_at = time;
    if (reason != WAIT_FUTURE) {
        k->ready_at = time + (int64_t)synth_uniform(s->run, 5000, 50000);
        dq_push_back(&s->waiting, slot);
    }
    return check(s,
                 nvtxw_task_state_write(s->t, w->stream, &s->ids, k->scope, time,
                                        NVTXW_TASK_SUSPENDED, s->reasons[reason]),
                 "write a suspended mark");
}

/* The slice event(s) of task `slot` from `begin` to `end`. */
static int write_slice(tasks_state* s, worker* w, task* k, int64_t begin, int64_t end) {
    nvtxwResultCode_t rc;
    if (k->suspended_at >= 0) {
        rc = nvtxw_task_resume_write(s->t, w->stream, &s->ids, k->scope, k->name, k->suspended_at,
                                     s->reasons[k->reason], begin, end, k->link);
        s->run->written++;
        k->suspended_at = -1;
        k->link = 0;
        return check(s, rc, "write a resumption");
    }
    if (!k->started && check(s,
                             nvtxw_task_state_write(s->t, w->stream, &s->ids, k->scope, begin,
                                                    NVTXW_TASK_EXECUTING, 0),
                             "write an executing mark"))
        return 1;
    k->started = 1;
    return check(s,
                 nvtxw_task_slice_write(s->t, w->stream, &s->ids, k->scope, k->name, begin, end, 0),
                 "write a slice");
}

/* Children created during the slice [begin, end]; how many (0: none). */
static int spawn_children(tasks_state* s, worker* w, uint32_t slot, int64_t begin, int64_t end,
                          uint32_t* count) {
    synth_run* run = s->run;
    task* k = &s->tasks[slot];
    uint64_t n = synth_uniform(run, 1, run->value[P_FANOUT]);
    *count = 0;
    if (k->depth >= run->value[P_DEPTH] || k->slices_left == 0 || synth_uniform(run, 0, 1) == 0)
        return 0;
    for (uint64_t j = 0; j < n && s->free_count > 0 && budget_left(s); j++) {
        int64_t at = begin + (end - begin) * (int64_t)(j + 1) / (int64_t)(n + 1);
        if (create(s, w, at, slot + 1, k->depth + 1))
            return 1;
        k->pending++;
        ++*count;
    }
    return 0;
}

/* Runs one slice of task `slot` on worker `w` and settles what follows. */
static int run_slice(tasks_state* s, worker* w, uint32_t slot) {
    synth_run* run = s->run;
    task* k = &s->tasks[slot];
    uint64_t mean = run->value[P_SLICE_NS];
    int64_t begin = w->clock > k->ready_at ? w->clock : k->ready_at;
    int64_t end = begin + (int64_t)synth_uniform(run, mean / 2, mean + mean / 2);
    uint32_t children;
    k->slices_left--;
    if (write_slice(s, w, k, begin, end) || spawn_children(s, w, slot, begin, end, &children))
        return 1;
    w->clock = end + (int64_t)synth_uniform(run, 100, 500);
    if (children > 0)
        return suspend(s, w, slot, end, WAIT_FUTURE);
    if (k->slices_left == 0)
        return complete(s, w, slot, end);
    if (synth_uniform(run, 0, 99) < run->value[P_WAIT])
        return suspend(s, w, slot, end, (uint32_t)synth_uniform(run, WAIT_IO, WAIT_MUTEX));
    k->ready_at = end;
    dq_push_front(&w->queue, slot);
    return check(
        s, nvtxw_task_state_write(s->t, w->stream, &s->ids, k->scope, end, NVTXW_TASK_YIELDED, 0),
        "write a yielded mark");
}

/* ---- Scheduling -------------------------------------------------------- */

/* The other worker whose queue is longest and whose oldest task is ready
 * at `now`; -1 if none. */
static int victim_of(const tasks_state* s, uint32_t thief, int64_t now) {
    int best = -1;
    for (uint32_t v = 0; v < s->workers; v++) {
        const deque* q = &s->w[v].queue;
        if (v == thief || q->count == 0 || s->tasks[dq_front(q)].ready_at > now)
            continue;
        if (best < 0 || q->count > s->w[best].queue.count)
            best = (int)v;
    }
    return best;
}

static int sample_depth(tasks_state* s, worker* w) {
    if ((int64_t)w->queue.count == w->sampled_depth)
        return 0;
    w->sampled_depth = w->queue.count;
    return synth_sample_i64(s->run, w->stream, w->clock, w->depth_counter, w->sampled_depth);
}

/* Nothing to do: sleep with exponential backoff, so that many idle workers
 * write few sleeps. Any work resets the backoff (step). */
static int idle(tasks_state* s, worker* w) {
    uint64_t jitter = synth_uniform(s->run, 0, (uint64_t)w->backoff / 2);
    int64_t until = w->clock + w->backoff + (int64_t)jitter;
    if (check(s, nvtxw_worker_sleep_write(s->t, w->stream, &s->ids, w->clock, until, s->no_work),
              "write a sleep"))
        return 1;
    w->clock = until + 100;
    w->backoff = w->backoff * 2 > BACKOFF_MAX ? BACKOFF_MAX : w->backoff * 2;
    return 0;
}

/* One action of worker `i` (the one with the smallest clock). */
static int step(tasks_state* s, uint32_t i) {
    worker* w = &s->w[i];
    int victim;
    if (sample_depth(s, w))
        return 1;
    if (budget_left(s) && s->live < s->workers && s->free_count > 0) {
        if (create(s, w, w->clock, 0, 0))
            return 1;
        w->clock += 200;
    }
    if (w->queue.count > 0) {
        w->backoff = BACKOFF_MIN;
        return run_slice(s, w, dq_pop_back(&w->queue));
    }
    if ((victim = victim_of(s, i, w->clock)) >= 0) {
        uint32_t depth = s->w[victim].queue.count;
        uint32_t slot = dq_pop_front(&s->w[victim].queue);
        if (check(s,
                  nvtxw_task_steal_write(s->t, w->stream, &s->ids, s->tasks[slot].scope, w->clock,
                                         i, (uint32_t)victim, depth),
                  "write a steal"))
            return 1;
        w->clock += 300;
        w->backoff = BACKOFF_MIN;
        return run_slice(s, w, slot);
    }
    if (s->waiting.count > 0 && s->tasks[dq_front(&s->waiting)].ready_at <= w->clock) {
        /* the wake alone at its time on this worker: a viewer binds the
         * causal link to it, not to the slice that may follow */
        w->clock += 100;
        return wake(s, w, dq_pop_front(&s->waiting), w->clock - 100);
    }
    return idle(s, w);
}

static int simulate(tasks_state* s) {
    while (budget_left(s) || s->live > 0) {
        uint32_t next = 0;
        for (uint32_t i = 1; i < s->workers; i++) {
            if (s->w[i].clock < s->w[next].clock)
                next = i;
        }
        if (step(s, next))
            return 1;
    }
    for (uint32_t i = 0; i < s->workers; i++) {
        if (sample_depth(s, &s->w[i]))
            return 1;
    }
    return 0;
}

static int allocate(tasks_state* s) {
    s->w = nvtxw_calloc(s->workers, sizeof *s->w);
    s->tasks = nvtxw_calloc(s->live_max, sizeof *s->tasks);
    s->free_slots = nvtxw_calloc(s->live_max, sizeof *s->free_slots);
    s->waiting.slot = nvtxw_calloc(s->live_max, sizeof *s->waiting.slot);
    s->waiting.capacity = s->live_max;
    if (s->w == NULL || s->tasks == NULL || s->free_slots == NULL || s->waiting.slot == NULL)
        return 1;
    for (uint32_t i = 0; i < s->workers; i++) {
        s->w[i].queue.slot = nvtxw_calloc(s->live_max, sizeof *s->w[i].queue.slot);
        s->w[i].queue.capacity = s->live_max;
        if (s->w[i].queue.slot == NULL)
            return 1;
    }
    for (uint32_t k = 0; k < s->live_max; k++)
        s->free_slots[k] = s->live_max - 1 - k; /* slot 0 first */
    s->free_count = s->live_max;
    return 0;
}

static void release(tasks_state* s) {
    for (uint32_t i = 0; s->w != NULL && i < s->workers; i++)
        nvtxw_free(s->w[i].queue.slot);
    nvtxw_free(s->w);
    nvtxw_free(s->tasks);
    nvtxw_free(s->free_slots);
    nvtxw_free(s->waiting.slot);
}

static int run_tasks(synth_run* run) {
    tasks_state s;
    int status = 1;
    memset(&s, 0, sizeof s);
    s.run = run;
    s.t = run->t;
    s.workers = (uint32_t)run->value[P_WORKERS];
    s.live_max = (uint32_t)run->value[P_LIVE];
    if (allocate(&s) != 0)
        fprintf(stderr, "%s: error: --synthetic tasks: out of memory\n", run->ctx->tool);
    else
        status =
            setup(&s) || simulate(&s) || synth_close(run, &s.w[0].stream, s.workers, sizeof *s.w);
    release(&s);
    return status;
}

const synth_generator synth_tasks = {"tasks", params, sizeof params / sizeof params[0], run_tasks};
