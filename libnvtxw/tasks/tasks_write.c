/*
 * tasks/tasks_write.c - the task events of nvtxw/tasks.h, one EventWrite
 * each (two for a resumption): the payload is built on the stack in the
 * layout of schemas/tasks.yaml and handed to the table's EventWrite, so these
 * functions are as thread-safe as EventWrite (one stream per thread) and
 * keep no state.
 */
#include "config.h"

#include <string.h>

#include "common/error_internal.h"
#include "tasks/tasks_internal.h"

/* Argument checks shared by every write: the table, stream, ids (covering
 * `schema_id`'s field, nonzero) and, unless `needs_task` is 0, the task. */
static nvtxwResultCode_t check_write(const char* what, const nvtxwInterface_t* iface,
                                     nvtxwStreamHandle_t stream, int ids_ok, uint64_t schema_id,
                                     int needs_task, uint64_t task) {
    const char* problem = !NVTXW_INTERFACE_HAS(iface, EventWrite) ? "no EventWrite function"
                          : stream == NULL                        ? "stream is NULL"
                          : !ids_ok        ? "ids is NULL or its struct_size is too small"
                          : schema_id == 0 ? "the schema ID in ids is 0 (schemas not registered)"
                          : needs_task && task == 0 ? "the task scope is 0"
                                                    : NULL;
    if (problem == NULL)
        return NVTXW_RESULT_SUCCESS;
    return error_set(NVTXW_RESULT_INVALID_ARGUMENT, "cannot write %s: %s", what, problem);
}

static nvtxwResultCode_t check_range(const char* what, int64_t begin, int64_t end) {
    if (end >= begin)
        return NVTXW_RESULT_SUCCESS;
    return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                     "cannot write %s: end (%lld) is before begin (%lld)", what, (long long)end,
                     (long long)begin);
}

static nvtxwResultCode_t write_one(const nvtxwInterface_t* iface, nvtxwStreamHandle_t stream,
                                   uint64_t schema_id, const void* payload, size_t size) {
    nvtxPayloadData_t data;
    data.schemaId = schema_id;
    data.size = size;
    data.payload = payload;
    return iface->EventWrite(stream, &data, 1);
}

NVTXW_API nvtxwResultCode_t nvtxw_task_slice_write(const nvtxwInterface_t* iface,
                                                   nvtxwStreamHandle_t stream,
                                                   const nvtxw_task_ids_t* ids, uint64_t task,
                                                   nvtxStringHandle_t name, int64_t begin,
                                                   int64_t end, uint64_t flow_in) {
    int ok = TASKS_IDS_COVER(ids, slice);
    nvtxw_task_slice_payload_t p;
    nvtxwResultCode_t status =
        check_write("a task slice", iface, stream, ok, ok ? ids->slice : 0, 1, task);
    if (status == NVTXW_RESULT_SUCCESS)
        status = check_range("a task slice", begin, end);
    if (status != NVTXW_RESULT_SUCCESS)
        return status;
    memset(&p, 0, sizeof p);
    p.begin = begin;
    p.end = end;
    p.task = task;
    p.name = name;
    p.flow_in = flow_in;
    return write_one(iface, stream, ids->slice, &p, sizeof p);
}

/* The state mark, with the resumption's suspension fields. */
static nvtxwResultCode_t write_state(const nvtxwInterface_t* iface, nvtxwStreamHandle_t stream,
                                     const nvtxw_task_ids_t* ids, uint64_t task, int64_t time,
                                     nvtxw_task_state_t state, nvtxStringHandle_t reason,
                                     int64_t suspended_at) {
    int ok = TASKS_IDS_COVER(ids, state_names);
    nvtxw_task_state_payload_t p;
    nvtxwResultCode_t status =
        check_write("a task state", iface, stream, ok, ok ? ids->state : 0, 1, task);
    if (status != NVTXW_RESULT_SUCCESS)
        return status;
    if ((int)state < NVTXW_TASK_STAGED || (int)state > NVTXW_TASK_DELETED)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot write a task state: state %d is not a nvtxw_task_state_t",
                         (int)state);
    memset(&p, 0, sizeof p);
    p.time = time;
    p.task = task;
    p.label = ids->state_names[state - 1];
    p.reason = reason;
    p.suspended_at = suspended_at;
    p.state = (uint32_t)state;
    return write_one(iface, stream, ids->state, &p, sizeof p);
}

NVTXW_API nvtxwResultCode_t nvtxw_task_state_write(const nvtxwInterface_t* iface,
                                                   nvtxwStreamHandle_t stream,
                                                   const nvtxw_task_ids_t* ids, uint64_t task,
                                                   int64_t time, nvtxw_task_state_t state,
                                                   nvtxStringHandle_t reason) {
    return write_state(iface, stream, ids, task, time, state, reason, 0);
}

NVTXW_API nvtxwResultCode_t nvtxw_task_wake_write(const nvtxwInterface_t* iface,
                                                  nvtxwStreamHandle_t stream,
                                                  const nvtxw_task_ids_t* ids, uint64_t task,
                                                  int64_t time, nvtxStringHandle_t cause,
                                                  uint64_t link) {
    int ok = TASKS_IDS_COVER(ids, wake);
    nvtxw_task_wake_payload_t p;
    nvtxwResultCode_t status =
        check_write("a task wake", iface, stream, ok, ok ? ids->wake : 0, 1, task);
    if (status == NVTXW_RESULT_SUCCESS && link == 0)
        status = error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                           "cannot write a task wake: the causal link ID is 0");
    if (status != NVTXW_RESULT_SUCCESS)
        return status;
    memset(&p, 0, sizeof p);
    p.time = time;
    p.task = task;
    p.cause = cause;
    p.flow_out = link;
    return write_one(iface, stream, ids->wake, &p, sizeof p);
}

NVTXW_API nvtxwResultCode_t nvtxw_task_resume_write(const nvtxwInterface_t* iface,
                                                    nvtxwStreamHandle_t stream,
                                                    const nvtxw_task_ids_t* ids, uint64_t task,
                                                    nvtxStringHandle_t name, int64_t suspended_at,
                                                    nvtxStringHandle_t reason, int64_t begin,
                                                    int64_t end, uint64_t link) {
    int ok = TASKS_IDS_COVER(ids, state_names);
    nvtxwResultCode_t status =
        check_write("a task resumption", iface, stream, ok, ok ? ids->slice : 0, 1, task);
    if (status == NVTXW_RESULT_SUCCESS)
        status = check_range("a task resumption", suspended_at, begin);
    if (status == NVTXW_RESULT_SUCCESS)
        status = check_range("a task resumption", begin, end);
    /* The slice first: a viewer binds the flow end to the first event at
     * its time on the task's row (docs/chrome-json.md, Tasks). */
    if (status == NVTXW_RESULT_SUCCESS)
        status = nvtxw_task_slice_write(iface, stream, ids, task, name, begin, end, link);
    if (status == NVTXW_RESULT_SUCCESS)
        status =
            write_state(iface, stream, ids, task, begin, NVTXW_TASK_RESUMED, reason, suspended_at);
    return status;
}

NVTXW_API nvtxwResultCode_t nvtxw_task_steal_write(const nvtxwInterface_t* iface,
                                                   nvtxwStreamHandle_t stream,
                                                   const nvtxw_task_ids_t* ids, uint64_t task,
                                                   int64_t time, uint32_t thief, uint32_t victim,
                                                   uint64_t victim_queue_depth) {
    int ok = TASKS_IDS_COVER(ids, steal_name);
    nvtxw_task_steal_payload_t p;
    nvtxwResultCode_t status =
        check_write("a task steal", iface, stream, ok, ok ? ids->steal : 0, 1, task);
    if (status != NVTXW_RESULT_SUCCESS)
        return status;
    memset(&p, 0, sizeof p);
    p.time = time;
    p.task = task;
    p.label = ids->steal_name;
    p.thief = thief;
    p.victim = victim;
    p.victim_queue_depth = victim_queue_depth;
    return write_one(iface, stream, ids->steal, &p, sizeof p);
}

NVTXW_API nvtxwResultCode_t nvtxw_worker_sleep_write(const nvtxwInterface_t* iface,
                                                     nvtxwStreamHandle_t stream,
                                                     const nvtxw_task_ids_t* ids, int64_t begin,
                                                     int64_t end, nvtxStringHandle_t reason) {
    int ok = TASKS_IDS_COVER(ids, sleep_name);
    nvtxw_worker_sleep_payload_t p;
    nvtxwResultCode_t status =
        check_write("a worker sleep", iface, stream, ok, ok ? ids->sleep : 0, 0, 0);
    if (status == NVTXW_RESULT_SUCCESS)
        status = check_range("a worker sleep", begin, end);
    if (status != NVTXW_RESULT_SUCCESS)
        return status;
    memset(&p, 0, sizeof p);
    p.begin = begin;
    p.end = end;
    p.label = ids->sleep_name;
    p.reason = reason;
    return write_one(iface, stream, ids->sleep, &p, sizeof p);
}
