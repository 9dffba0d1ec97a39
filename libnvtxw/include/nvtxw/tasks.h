/*
 * nvtxw/tasks.h - the task model (docs/tasks.md): task identity, slices,
 * lifecycle states, causal links, steals and worker sleep, each written with
 * one call over any NVTXW function table (libnvtxw's backend or another).
 *
 * Conventions (docs/tasks.md has the full text):
 *  - A task is a scope registered below the process scope with the path
 *    `task[KEY]`. The scope lives as long as the task object:
 *    it stays the same across suspensions, and a recycled task object gets a
 *    new scope (a new key, e.g. with a generation number).
 *  - Every event about a task carries the task's scope in a top-level
 *    `scope_id` entry named `task`; events are written on the stream of the
 *    worker (or thread) where they happened.
 *  - A slice is one stretch of a task on a worker (begin .. end); the gaps
 *    between a task's slices are the time it was not running.
 *  - A causal link is a nonzero 64-bit ID chosen by the runtime, unique in
 *    the session: the waker writes it as `flow_out` of a wake mark, the
 *    resumed task as `flow_in` of the slice that resumes it.
 *  - Sinks recognise task events by the `task` scope (a scope whose path's
 *    last node is `task[...]`), not by schema ID.
 *
 * Payloads are the static schemas of schemas/tasks.yaml (static IDs
 * NVTXW_TASK_*_SCHEMA_ID below); the payload structs here are their C
 * layouts (tests/unit/tasks_test.c checks them against the YAML).
 *
 * Threading: nvtxw_task_schemas_register and the
 * scope registrations are registration calls: the caller serializes them
 * and does not overlap them with writes to any stream of the session. NVTXW
 * is offline, so a runtime registers the tasks of a chunk of collected data
 * first, then writes its streams in parallel. The write functions are as
 * thread-safe as EventWrite: any number of threads, one stream per thread.
 *
 * Errors: every function checks its arguments first and returns
 * NVTXW_RESULT_INVALID_ARGUMENT without any backend call when one is bad
 * (NULL table, handle, ids or output; ids->struct_size too small or a needed
 * schema ID 0; task scope 0; state out of range; link 0 on a wake; end
 * before begin), with a message for nvtxw_last_error().
 * Otherwise the backend's result is returned unchanged (an unregistered task
 * scope is the backend's INVALID_ARGUMENT). Pointers are borrowed for the
 * call; nothing is kept.
 */
#ifndef NVTXW_TASKS_H
#define NVTXW_TASKS_H

#include <stddef.h>
#include <stdint.h>

#include "nvtxw/abi.h"
#include "nvtxw/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Static IDs of schemas/tasks.yaml ("TA" range 0x5441xxxx). */
#define NVTXW_TASK_STATE_ENUM_ID 0x54410001u
#define NVTXW_TASK_SLICE_SCHEMA_ID 0x54410010u
#define NVTXW_TASK_STATE_SCHEMA_ID 0x54410011u
#define NVTXW_TASK_WAKE_SCHEMA_ID 0x54410012u
#define NVTXW_TASK_STEAL_SCHEMA_ID 0x54410013u
#define NVTXW_WORKER_SLEEP_SCHEMA_ID 0x54410014u

/* Lifecycle states (enum nvtxw_task_state_value of schemas/tasks.yaml). */
typedef enum nvtxw_task_state {
    NVTXW_TASK_STAGED = 1,    /* described, not yet created (e.g. a deferred spawn) */
    NVTXW_TASK_CREATED = 2,   /* created, runnable, queued */
    NVTXW_TASK_EXECUTING = 3, /* a worker starts running it */
    NVTXW_TASK_YIELDED = 4,   /* gave its worker up, still runnable */
    NVTXW_TASK_SUSPENDED = 5, /* waiting (reason: future, lock, message, ...) */
    NVTXW_TASK_RESUMED = 6,   /* runnable again after a suspension */
    NVTXW_TASK_COMPLETED = 7, /* finished running */
    NVTXW_TASK_DELETED = 8    /* the task object is gone; its scope is never used again */
} nvtxw_task_state_t;

#define NVTXW_TASK_STATE_COUNT 8

/*
 * What nvtxw_task_schemas_register registered in one domain. Set struct_size
 * to sizeof(nvtxw_task_ids_t) before the call; the struct only grows at its
 * end, and functions read only fields that struct_size covers.
 */
typedef struct nvtxw_task_ids {
    size_t struct_size;
    uint64_t state_enum; /* NVTXW_TASK_STATE_ENUM_ID */
    uint64_t slice;      /* NVTXW_TASK_SLICE_SCHEMA_ID */
    uint64_t state;      /* NVTXW_TASK_STATE_SCHEMA_ID */
    uint64_t wake;       /* NVTXW_TASK_WAKE_SCHEMA_ID */
    uint64_t steal;      /* NVTXW_TASK_STEAL_SCHEMA_ID */
    uint64_t sleep;      /* NVTXW_WORKER_SLEEP_SCHEMA_ID */
    /* Registered names of the marks: state_names[s - 1] is "staged" ...
     * "deleted" for state s; "steal"; "sleep". */
    nvtxStringHandle_t state_names[NVTXW_TASK_STATE_COUNT];
    nvtxStringHandle_t steal_name;
    nvtxStringHandle_t sleep_name;
} nvtxw_task_ids_t;

/* ---- Payload layouts (schemas/tasks.yaml, natural alignment) ---------- */

/* nvtxw_task_slice: role range_startend. */
typedef struct nvtxw_task_slice_payload {
    int64_t begin;           /* timestamp, range_begin */
    int64_t end;             /* timestamp, range_end */
    uint64_t task;           /* scope_id: the task */
    nvtxStringHandle_t name; /* registered string, event_message (0: none) */
    uint64_t flow_in;        /* causal link that resumed the task here; 0 = none */
} nvtxw_task_slice_payload_t;

/* nvtxw_task_state: role mark. */
typedef struct nvtxw_task_state_payload {
    int64_t time;              /* timestamp, mark */
    uint64_t task;             /* scope_id */
    nvtxStringHandle_t label;  /* event_message: the state's name (ids->state_names) */
    nvtxStringHandle_t reason; /* suspended, resumed: why it was suspended; 0 = none */
    int64_t suspended_at;      /* resumed: when the suspension began; 0 = unknown */
    uint32_t state;            /* nvtxw_task_state_t (enum nvtxw_task_state_value) */
} nvtxw_task_state_payload_t;

/* nvtxw_task_wake: role mark, the waker's side of a causal link. */
typedef struct nvtxw_task_wake_payload {
    int64_t time;             /* timestamp, mark */
    uint64_t task;            /* scope_id: the task made runnable */
    nvtxStringHandle_t cause; /* event_message: "future set", "message received", ... */
    uint64_t flow_out;        /* the causal link ID (nonzero) */
} nvtxw_task_wake_payload_t;

/* nvtxw_task_steal: role mark, written on the thief's stream. */
typedef struct nvtxw_task_steal_payload {
    int64_t time;             /* timestamp, mark */
    uint64_t task;            /* scope_id: the stolen task */
    nvtxStringHandle_t label; /* event_message: ids->steal_name */
    uint32_t thief;           /* worker numbers, as the runtime counts them */
    uint32_t victim;
    uint64_t victim_queue_depth; /* the victim's queue length before the steal */
} nvtxw_task_steal_payload_t;

/* nvtxw_worker_sleep: role range_pushpop (both ends in one event). */
typedef struct nvtxw_worker_sleep_payload {
    int64_t begin;             /* timestamp, range_begin: falls asleep */
    int64_t end;               /* timestamp, range_end: wakes up */
    nvtxStringHandle_t label;  /* event_message: ids->sleep_name */
    nvtxStringHandle_t reason; /* "no work", "backoff", ...; 0 = none */
} nvtxw_worker_sleep_payload_t;

/* ---- Registration (may run while other streams are written: docs/threading.md) */

/*
 * Registers the enum and the five schemas of schemas/tasks.yaml in `domain`
 * with their static IDs, and the mark names ("staged" ... "deleted",
 * "steal", "sleep") as strings, and fills *ids_out (whose struct_size the
 * caller set). Registering twice in one domain fails (static IDs are unique
 * per domain); other domains of the session get their own.
 */
NVTXW_API nvtxwResultCode_t nvtxw_task_schemas_register(const nvtxwInterface_t* iface,
                                                        nvtxDomainHandle_t domain,
                                                        nvtxw_task_ids_t* ids_out);

/*
 * Registers the scope of one task: path `task[KEY]` below `parent_scope`
 * (the process scope; NVTX_SCOPE_ROOT or NVTX_SCOPE_NONE for none), with a
 * dynamic ID returned in *task_scope_out. `key` is any non-empty UTF-8
 * text; '/', '[', ']' and '\' in it are escaped. Give each task object
 * lifetime its own key: a recycled object is a new task.
 */
NVTXW_API nvtxwResultCode_t nvtxw_task_scope_register(const nvtxwInterface_t* iface,
                                                      nvtxDomainHandle_t domain,
                                                      uint64_t parent_scope, const char* key,
                                                      uint64_t* task_scope_out);

/* The same with KEY = "ID" (generation 0) or "ID.GENERATION" in decimal. */
NVTXW_API nvtxwResultCode_t nvtxw_task_scope_register_id(const nvtxwInterface_t* iface,
                                                         nvtxDomainHandle_t domain,
                                                         uint64_t parent_scope, uint64_t id,
                                                         uint64_t generation,
                                                         uint64_t* task_scope_out);

/* ---- Writes (one event each unless said otherwise) -------------------- */

/* One slice of `task` on the stream's worker; `flow_in` 0 = no causal link. */
NVTXW_API nvtxwResultCode_t nvtxw_task_slice_write(const nvtxwInterface_t* iface,
                                                   nvtxwStreamHandle_t stream,
                                                   const nvtxw_task_ids_t* ids, uint64_t task,
                                                   nvtxStringHandle_t name, int64_t begin,
                                                   int64_t end, uint64_t flow_in);

/* A lifecycle state mark; `reason` (0 = none) is meant for SUSPENDED. */
NVTXW_API nvtxwResultCode_t nvtxw_task_state_write(const nvtxwInterface_t* iface,
                                                   nvtxwStreamHandle_t stream,
                                                   const nvtxw_task_ids_t* ids, uint64_t task,
                                                   int64_t time, nvtxw_task_state_t state,
                                                   nvtxStringHandle_t reason);

/* The waker's side of a causal link: `task` was made runnable at `time`
 * because of `cause`; `link` (nonzero) is the ID its resumption carries. */
NVTXW_API nvtxwResultCode_t nvtxw_task_wake_write(const nvtxwInterface_t* iface,
                                                  nvtxwStreamHandle_t stream,
                                                  const nvtxw_task_ids_t* ids, uint64_t task,
                                                  int64_t time, nvtxStringHandle_t cause,
                                                  uint64_t link);

/*
 * The resumption: two events on the stream of the worker that resumes
 * `task`: the slice begin .. end with `flow_in` = `link` (0 = no causal
 * link), then a RESUMED state mark at `begin` naming the suspension it ends
 * (`suspended_at` <= begin, `reason`: why the task was suspended, 0 = none).
 * The stats sink counts the suspension (begin - suspended_at) per task and
 * per reason from the mark. The slice comes first because viewers bind the
 * flow end to the first event at its time on the task's row. If the mark's
 * write fails, the slice stays written.
 */
NVTXW_API nvtxwResultCode_t nvtxw_task_resume_write(const nvtxwInterface_t* iface,
                                                    nvtxwStreamHandle_t stream,
                                                    const nvtxw_task_ids_t* ids, uint64_t task,
                                                    nvtxStringHandle_t name, int64_t suspended_at,
                                                    nvtxStringHandle_t reason, int64_t begin,
                                                    int64_t end, uint64_t link);

/* A steal, written on the thief's stream. */
NVTXW_API nvtxwResultCode_t nvtxw_task_steal_write(const nvtxwInterface_t* iface,
                                                   nvtxwStreamHandle_t stream,
                                                   const nvtxw_task_ids_t* ids, uint64_t task,
                                                   int64_t time, uint32_t thief, uint32_t victim,
                                                   uint64_t victim_queue_depth);

/* A worker's sleep from `begin` to `end`, on the worker's stream. */
NVTXW_API nvtxwResultCode_t nvtxw_worker_sleep_write(const nvtxwInterface_t* iface,
                                                     nvtxwStreamHandle_t stream,
                                                     const nvtxw_task_ids_t* ids, int64_t begin,
                                                     int64_t end, nvtxStringHandle_t reason);

#ifdef __cplusplus
}
#endif

#endif /* NVTXW_TASKS_H */
