/*
 * sink/json/json_task.c - task rows of the JSON sink (docs/tasks.md,
 * docs/chrome-json.md "Tasks"). A task is a scope whose path's last node is
 * `task[KEY]` (ABI spec 2.10: nodes are '/'-separated, '\' escapes '/', '['
 * and ']'). Each gets a pseudo-thread in the process of its parent scope
 * (its parent task's process when the parent is a task scope), with tid CHROME_TASK_TID_BASE + n (n
 * = registration order) and the metadata thread_name "task KEY" and thread_sort_index = tid,
 * written at registration. The write path finds the row by (domain, scope ID) in maps that
 * only registrations change, and reads them without a lock while registrations go on: a row is
 * complete before it is published (common/pubmap.h).
 */
#include "config.h"

#include <string.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "sink/json/json_internal.h"
#include "sink/shared/task_scope.h"

nvtxwResultCode_t json_task_register(json_sink* cs, const core_domain* domain, uint64_t id,
                                     uint64_t parent, const char* path) {
    strbuf name = {0};
    json_task* task = NULL;
    const json_task* parent_task;
    pubmap* map;
    nvtxwResultCode_t status = NVTXW_RESULT_SUCCESS;
    int is_task = strbuf_append(&name, "task ", 5) != 0 ? -1 : task_scope_key(path, &name);
    if (is_task <= 0) {
        strbuf_free(&name);
        return is_task == 0 ? NVTXW_RESULT_SUCCESS : error_oom("a JSON task row");
    }
    if ((map = task_scope_domain_map(&cs->task_maps, domain->index)) == NULL ||
        (task = nvtxw_calloc(1, sizeof *task)) == NULL || pubmap_reserve_id(map, id) != 0) {
        nvtxw_free(task);
        strbuf_free(&name);
        return error_oom("a JSON task row");
    }
    task->tid = CHROME_TASK_TID_BASE + cs->task_count++;
    /* A task below a task (a child registered under its parent's scope)
     * shares its parent's process. */
    if ((parent_task = json_task_find(cs, domain, parent)) != NULL)
        task->pid = parent_task->pid;
    else
        status = json_scope_process_id(cs, domain, parent, &task->pid);
    /* complete, then published (the reserved put cannot fail) */
    (void)pubmap_put(map, id, task);
    if (status == NVTXW_RESULT_SUCCESS)
        status = json_task_meta(cs, task, name.data, path, id);
    strbuf_free(&name);
    return status;
}

/* Lock-free (write path). */
const json_task* json_task_find(const json_sink* cs, const core_domain* domain, uint64_t id) {
    const pubmap* map = pubvec_get(&cs->task_maps, domain->index);
    return map != NULL ? pubmap_get(map, id) : NULL;
}

static void task_map_free(void* map) { task_scope_domain_map_free(map, nvtxw_free); }

void json_tasks_free(json_sink* cs) { pubvec_free(&cs->task_maps, task_map_free); }
