/*
 * tools/otf2-import/ev_thread.c - fork/join, thread teams, locks, thread
 * create/begin/wait/end, and tasks.
 *
 * Tasks (DESIGN.md section 6): an OTF2 task is (thread team, creating
 * thread, generation number); it becomes a scope, registered before the
 * conversion by the task prescan (tasks.c), so every event of the task
 * carries the same scope ID whichever thread it ran on. Each stretch a task
 * runs on a thread, from the ThreadTaskSwitch to it until the next switch
 * or its completion, is one otf2_task_slice range attributed to the task's
 * scope; creation and completion are marks. The legacy OmpTask* records
 * (one 64-bit task ID, unique within a process) map the same way with team
 * UINT32_MAX and the process's location group index as creator.
 */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "ev_common.h"

/* The paradigm of a thread team / contingent communicator (its group's). */
static unsigned comm_paradigm(const loc_ctx* c, uint32_t comm) {
    comm_def* cd = def_table_find(&c->im->defs.comms, comm, NULL);
    members_def* g =
        cd != NULL ? def_table_find(&c->im->defs.member_groups, cd->group, NULL) : NULL;
    return g != NULL ? g->paradigm : OTF2_PARADIGM_UNKNOWN;
}

static OTF2_CallbackCode fork_event(loc_ctx* c, event_kind k, unsigned model, uint32_t requested,
                                    OTF2_AttributeList* attributes) {
    EV_MARK(k, ES_THREAD_FORK, PARADIGM(c, model), model, requested);
}

static OTF2_CallbackCode join_event(loc_ctx* c, event_kind k, unsigned model,
                                    OTF2_AttributeList* attributes) {
    EV_MARK(k, ES_THREAD_JOIN, PARADIGM(c, model), model);
}

static OTF2_CallbackCode on_omp_fork(EV_ARGS, uint32_t requested) {
    EV_BEGIN(EK_OmpFork);
    return fork_event(c, EK_OmpFork, OTF2_PARADIGM_OPENMP, requested, attributes);
}

static OTF2_CallbackCode on_omp_join(EV_ARGS) {
    EV_BEGIN(EK_OmpJoin);
    return join_event(c, EK_OmpJoin, OTF2_PARADIGM_OPENMP, attributes);
}

static OTF2_CallbackCode on_thread_fork(EV_ARGS, OTF2_Paradigm model, uint32_t requested) {
    EV_BEGIN(EK_ThreadFork);
    return fork_event(c, EK_ThreadFork, model, requested, attributes);
}

static OTF2_CallbackCode on_thread_join(EV_ARGS, OTF2_Paradigm model) {
    EV_BEGIN(EK_ThreadJoin);
    return join_event(c, EK_ThreadJoin, model, attributes);
}

static OTF2_CallbackCode lock_event(loc_ctx* c, event_kind k, unsigned model, uint32_t lock,
                                    uint32_t order, OTF2_AttributeList* attributes) {
    EV_MARK(k, ES_THREAD_LOCK, PARADIGM(c, model), model, lock, order);
}

#define LOCK_EVENT(fn, kind, model_expr, ...)                                                      \
    static OTF2_CallbackCode fn(EV_ARGS, __VA_ARGS__, uint32_t lock, uint32_t order) {             \
        EV_BEGIN(kind);                                                                            \
        return lock_event(c, kind, (model_expr), lock, order, attributes);                         \
    }
static OTF2_CallbackCode on_omp_acquire(EV_ARGS, uint32_t lock, uint32_t order) {
    EV_BEGIN(EK_OmpAcquireLock);
    return lock_event(c, EK_OmpAcquireLock, OTF2_PARADIGM_OPENMP, lock, order, attributes);
}
static OTF2_CallbackCode on_omp_release(EV_ARGS, uint32_t lock, uint32_t order) {
    EV_BEGIN(EK_OmpReleaseLock);
    return lock_event(c, EK_OmpReleaseLock, OTF2_PARADIGM_OPENMP, lock, order, attributes);
}
LOCK_EVENT(on_thread_acquire, EK_ThreadAcquireLock, model, OTF2_Paradigm model)
LOCK_EVENT(on_thread_release, EK_ThreadReleaseLock, model, OTF2_Paradigm model)

static OTF2_CallbackCode on_team_begin(EV_ARGS, OTF2_CommRef team) {
    comm_def* cd;
    EV_BEGIN(EK_ThreadTeamBegin);
    if ((cd = def_table_find(&c->im->defs.comms, team, NULL)) == NULL)
        return ev_fail(c, EK_ThreadTeamBegin, "unknown thread team %" PRIu32, (uint32_t)team);
    if (stack_push(c, OPEN_TEAM, team) != 0)
        return ev_fail(c, EK_ThreadTeamBegin, "out of memory");
    const uint64_t v[] = {(uint64_t)c->now, NAME(c, NAME_THREAD_TEAM),
                          PARADIGM(c, comm_paradigm(c, team)), team, ev_string(c, cd->name)};
    return ev_write(c, EK_ThreadTeamBegin, ES_THREAD_TEAM, v, COUNT_OF(v), attributes);
}

static OTF2_CallbackCode on_team_end(EV_ARGS, OTF2_CommRef team) {
    EV_BEGIN(EK_ThreadTeamEnd);
    return ev_pop(c, EK_ThreadTeamEnd, OPEN_TEAM, team, attributes);
}

/* Create/Begin and End/Wait of one thread share (contingent, sequence):
 * a flow from Create to Begin and one from End to Wait, with IDs made of
 * (contingent, sequence, which), different from message IDs (tagged
 * "THR" in the top byte). */
static OTF2_CallbackCode contingent(loc_ctx* c, event_kind k, OTF2_CommRef comm, uint64_t seq,
                                    OTF2_AttributeList* attributes) {
    comm_def* cd = def_table_find(&c->im->defs.comms, comm, NULL);
    int second = k == EK_ThreadEnd || k == EK_ThreadWait;
    int out = k == EK_ThreadCreate || k == EK_ThreadEnd;
    uint64_t flow =
        0x5400000000000000ULL | (((uint64_t)comm << 33) ^ (seq << 1) ^ (uint64_t)second);
    if (cd == NULL)
        return ev_fail(c, k, "unknown thread contingent %" PRIu32, (uint32_t)comm);
    EV_MARK(k, ES_THREAD_CONTINGENT, PARADIGM(c, comm_paradigm(c, comm)), comm,
            ev_string(c, cd->name), seq, out ? flow : 0, out ? 0 : flow);
}

#define CONTINGENT_EVENT(fn, kind)                                                                 \
    static OTF2_CallbackCode fn(EV_ARGS, OTF2_CommRef comm, uint64_t seq) {                        \
        EV_BEGIN(kind);                                                                            \
        return contingent(c, kind, comm, seq, attributes);                                         \
    }
CONTINGENT_EVENT(on_thread_create, EK_ThreadCreate)
CONTINGENT_EVENT(on_thread_begin, EK_ThreadBegin)
CONTINGENT_EVENT(on_thread_wait, EK_ThreadWait)
CONTINGENT_EVENT(on_thread_end, EK_ThreadEnd)

/* ---- tasks ------------------------------------------------------------------- */

/* The task's scope, registered before the conversion (tasks.c). */
static OTF2_CallbackCode task_scope(loc_ctx* c, const task_key* key, uint64_t* scope) {
    if (task_scope_of(c->im, c->group_index, key, scope) != 0)
        return ev_fail(c, EK_ThreadTaskCreate, "%s", import_last_error());
    if (*scope == NVTX_SCOPE_NONE) /* an archive the prescan judged free of tasks */
        c->scopeless_tasks++;
    return OTF2_CALLBACK_SUCCESS;
}

/* Ends the running slice at `end`. */
static OTF2_CallbackCode slice_end(loc_ctx* c, event_kind k, int64_t end) {
    const uint64_t v[] = {(uint64_t)c->task_begin,
                          (uint64_t)end,
                          NAME(c, NAME_TASK_SLICE),
                          PARADIGM(c, OTF2_PARADIGM_OPENMP),
                          c->task_scope,
                          c->task.team,
                          c->task.creator,
                          c->task.generation};
    c->task_active = 0;
    return ev_write(c, k, ES_TASK_SLICE, v, COUNT_OF(v), NULL);
}

static OTF2_CallbackCode task_mark(loc_ctx* c, event_kind k, const task_key* key,
                                   OTF2_AttributeList* attributes) {
    uint64_t scope;
    OTF2_CallbackCode cc = task_scope(c, key, &scope);
    if (cc != OTF2_CALLBACK_SUCCESS)
        return cc;
    EV_MARK(k, ES_TASK, PARADIGM(c, OTF2_PARADIGM_OPENMP), scope, key->team, key->creator,
            key->generation);
}

static OTF2_CallbackCode task_switch(loc_ctx* c, event_kind k, const task_key* key,
                                     OTF2_AttributeList* attributes) {
    OTF2_CallbackCode cc = OTF2_CALLBACK_SUCCESS;
    if (c->task_active)
        cc = slice_end(c, k, c->now);
    if (cc == OTF2_CALLBACK_SUCCESS)
        cc = task_scope(c, key, &c->task_scope);
    if (cc != OTF2_CALLBACK_SUCCESS)
        return cc;
    if (attributes != NULL && OTF2_AttributeList_GetNumberOfElements(attributes) > 0)
        c->skipped[EK_COUNT]++; /* a switch is the start of a slice: no event of its own */
    c->task = *key;
    c->task_active = 1;
    c->task_begin = c->now;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode task_complete(loc_ctx* c, event_kind k, const task_key* key,
                                       OTF2_AttributeList* attributes) {
    if (c->task_active && !memcmp(&c->task, key, sizeof *key)) {
        OTF2_CallbackCode cc = slice_end(c, k, c->now);
        if (cc != OTF2_CALLBACK_SUCCESS)
            return cc;
    }
    if (c->completed != NULL && completed_tasks_add(c->completed, key, c->last_ticks) != 0)
        return ev_fail(c, k, "%s", import_last_error());
    return task_mark(c, k, key, attributes);
}

#define TASK_EVENT(fn, kind, action)                                                               \
    static OTF2_CallbackCode fn(EV_ARGS, OTF2_CommRef team, uint32_t creator, uint32_t gen) {      \
        task_key key = thread_task_key(team, creator, gen);                                        \
        EV_BEGIN(kind);                                                                            \
        if (def_table_find(&c->im->defs.comms, team, NULL) == NULL)                                \
            return ev_fail(c, kind, "unknown thread team %" PRIu32, (uint32_t)team);               \
        return action(c, kind, &key, attributes);                                                  \
    }
TASK_EVENT(on_task_create, EK_ThreadTaskCreate, task_mark)
TASK_EVENT(on_task_switch, EK_ThreadTaskSwitch, task_switch)
TASK_EVENT(on_task_complete, EK_ThreadTaskComplete, task_complete)

#define OMP_TASK_EVENT(fn, kind, action)                                                           \
    static OTF2_CallbackCode fn(EV_ARGS, uint64_t id) {                                            \
        task_key key = omp_task_key(((loc_ctx*)user_data)->group_index, id);                       \
        EV_BEGIN(kind);                                                                            \
        return action(c, kind, &key, attributes);                                                  \
    }
OMP_TASK_EVENT(on_omp_task_create, EK_OmpTaskCreate, task_mark)
OMP_TASK_EVENT(on_omp_task_switch, EK_OmpTaskSwitch, task_switch)
OMP_TASK_EVENT(on_omp_task_complete, EK_OmpTaskComplete, task_complete)

OTF2_CallbackCode ev_thread_finish(loc_ctx* c) {
    return c->task_active ? slice_end(c, EK_ThreadTaskSwitch, c->last_ns) : OTF2_CALLBACK_SUCCESS;
}

void ev_thread_set(OTF2_EvtReaderCallbacks* cb) {
    OTF2_EvtReaderCallbacks_SetOmpForkCallback(cb, on_omp_fork);
    OTF2_EvtReaderCallbacks_SetOmpJoinCallback(cb, on_omp_join);
    OTF2_EvtReaderCallbacks_SetOmpAcquireLockCallback(cb, on_omp_acquire);
    OTF2_EvtReaderCallbacks_SetOmpReleaseLockCallback(cb, on_omp_release);
    OTF2_EvtReaderCallbacks_SetOmpTaskCreateCallback(cb, on_omp_task_create);
    OTF2_EvtReaderCallbacks_SetOmpTaskSwitchCallback(cb, on_omp_task_switch);
    OTF2_EvtReaderCallbacks_SetOmpTaskCompleteCallback(cb, on_omp_task_complete);
    OTF2_EvtReaderCallbacks_SetThreadForkCallback(cb, on_thread_fork);
    OTF2_EvtReaderCallbacks_SetThreadJoinCallback(cb, on_thread_join);
    OTF2_EvtReaderCallbacks_SetThreadTeamBeginCallback(cb, on_team_begin);
    OTF2_EvtReaderCallbacks_SetThreadTeamEndCallback(cb, on_team_end);
    OTF2_EvtReaderCallbacks_SetThreadAcquireLockCallback(cb, on_thread_acquire);
    OTF2_EvtReaderCallbacks_SetThreadReleaseLockCallback(cb, on_thread_release);
    OTF2_EvtReaderCallbacks_SetThreadTaskCreateCallback(cb, on_task_create);
    OTF2_EvtReaderCallbacks_SetThreadTaskSwitchCallback(cb, on_task_switch);
    OTF2_EvtReaderCallbacks_SetThreadTaskCompleteCallback(cb, on_task_complete);
    OTF2_EvtReaderCallbacks_SetThreadCreateCallback(cb, on_thread_create);
    OTF2_EvtReaderCallbacks_SetThreadBeginCallback(cb, on_thread_begin);
    OTF2_EvtReaderCallbacks_SetThreadWaitCallback(cb, on_thread_wait);
    OTF2_EvtReaderCallbacks_SetThreadEndCallback(cb, on_thread_end);
}
