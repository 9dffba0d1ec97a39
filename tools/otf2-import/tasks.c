/*
 * tools/otf2-import/tasks.c - task scopes, registered before any event.
 *
 * A task's scope must be registered before its first event, and tasks are
 * only known from the events. With one worker, or into libnvtxw's own sinks
 * (which take registrations while other threads write: docs/threading.md),
 * a task is registered when the conversion first meets it, in the map of
 * its location group (im->group_tasks): its scope ID then follows the order
 * tasks are met, which with several workers varies from run to run (the
 * scope's path does not). When the group's last location is converted,
 * nothing can name its tasks again: their scopes are released (libnvtxw's
 * ScopeRelease, when the library has it) and the map freed, so memory
 * follows the tasks of the processes in conversion (import.c takes the
 * locations group by group). A group converted in turns (worker.c: its
 * locations read together, the one least far in time first, by one
 * worker or in slices by several) releases a task sooner, once every
 * location has read past its completion (the task's last record): each
 * worker queues the completions it meets (completed_tasks) and releases
 * those before the group's lowest published frontier, so memory follows
 * the tasks alive at one moment.
 *
 * NVTXW producers must not overlap registrations with writes (ABI spec 6):
 * with several workers into Backend= (another NVTXW library), archives that
 * can hold tasks get a prescan instead: the selected locations are read
 * once with only the task callbacks (in parallel, one location at a time
 * per worker) into one set; the main thread then registers every task in
 * key order, which makes the scope IDs the same for any --threads and any
 * --part that sees the task, and keeps a sorted table (32 bytes per task)
 * that the conversion searches and nobody writes any more. It costs one
 * more decoding of every event.
 *
 * A task is (thread team, creating thread, generation); the legacy OmpTask*
 * records, whose IDs are unique within a process, use (UINT32_MAX, location
 * group index, task ID). The scope is
 * "task[<team>:<creator>:<generation>]" below the process of the threads
 * that run it.
 */
#define _GNU_SOURCE /* qsort_r */
#include "config.h"

#include <inttypes.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otf2_import.h"
#include "tool_alloc.h"
#include "tool_share.h"

/* ---- the prescan ------------------------------------------------------------ */

typedef struct prescan_ctx {
    importer* im;
    uint64_t parent;    /* the location's process scope */
    size_t group_index; /* and its location group */
    int failed;
} prescan_ctx;

/* Adds a task to im->found. A task's threads share a process, so its
 * parent does not depend on which location reports it first. */
static OTF2_CallbackCode seen(prescan_ctx* p, task_key key) {
    int rc;
    pthread_mutex_lock(&p->im->lock);
    rc = task_set_add(&p->im->found, &key, p->parent);
    pthread_mutex_unlock(&p->im->lock);
    if (rc != 0) {
        p->failed = 1;
        return OTF2_CALLBACK_INTERRUPT;
    }
    return OTF2_CALLBACK_SUCCESS;
}

#define PRESCAN_ARGS                                                                               \
    OTF2_LocationRef location, OTF2_TimeStamp time, uint64_t position, void *user_data,            \
        OTF2_AttributeList *attributes
#define UNUSED_PRESCAN_ARGS (void)location, (void)time, (void)position, (void)attributes

static OTF2_CallbackCode on_thread_task(PRESCAN_ARGS, OTF2_CommRef team, uint32_t creator,
                                        uint32_t generation) {
    UNUSED_PRESCAN_ARGS;
    return seen(user_data, thread_task_key(team, creator, generation));
}

static OTF2_CallbackCode on_omp_task(PRESCAN_ARGS, uint64_t id) {
    UNUSED_PRESCAN_ARGS;
    prescan_ctx* p = user_data;
    return seen(p, omp_task_key(p->group_index, id));
}

static OTF2_EvtReaderCallbacks* prescan_callbacks(void) {
    OTF2_EvtReaderCallbacks* cb = OTF2_EvtReaderCallbacks_New();
    if (cb == NULL)
        return NULL;
    OTF2_EvtReaderCallbacks_SetThreadTaskCreateCallback(cb, on_thread_task);
    OTF2_EvtReaderCallbacks_SetThreadTaskSwitchCallback(cb, on_thread_task);
    OTF2_EvtReaderCallbacks_SetThreadTaskCompleteCallback(cb, on_thread_task);
    OTF2_EvtReaderCallbacks_SetOmpTaskCreateCallback(cb, on_omp_task);
    OTF2_EvtReaderCallbacks_SetOmpTaskSwitchCallback(cb, on_omp_task);
    OTF2_EvtReaderCallbacks_SetOmpTaskCompleteCallback(cb, on_omp_task);
    return cb;
}

/* Reads one location's local definitions (the conversion does not read
 * them again: OTF2 keeps them) and its task records into the location's
 * own set. Errors are left to the conversion, which reports them with the
 * file and event number and honours --keep-going. */
static int prescan_location(importer* im, size_t selected, OTF2_EvtReaderCallbacks* cb) {
    location_def* loc = def_table_at(&im->defs.locations, im->selected[selected]);
    prescan_ctx p = {im, 0, 0, 0};
    uint32_t group = 0;
    uint64_t read = 0;
    OTF2_DefReader* dr;
    OTF2_EvtReader* er;
    def_table_find(&im->defs.groups, loc->group, &group);
    p.parent = IMPORT_SCOPE_GROUP_BASE + group;
    p.group_index = group;
    import_otf2_error_reset();
    if ((dr = OTF2_Reader_GetDefReader(im->reader, loc->id)) != NULL) {
        OTF2_DefReaderCallbacks* dcb = OTF2_DefReaderCallbacks_New();
        OTF2_ErrorCode rc = OTF2_ERROR_MEM_ALLOC_FAILED;
        if (dcb != NULL) {
            OTF2_Reader_RegisterDefCallbacks(im->reader, dr, dcb, NULL);
            OTF2_DefReaderCallbacks_Delete(dcb);
            rc = OTF2_Reader_ReadAllLocalDefinitions(im->reader, dr, &read);
        }
        OTF2_Reader_CloseDefReader(im->reader, dr);
        if (rc != OTF2_SUCCESS)
            return 0; /* the conversion reads them again and reports the damage */
    }
    loc->local_defs_read = 1;
    if ((er = OTF2_Reader_GetEvtReader(im->reader, loc->id)) == NULL)
        return 0;
    OTF2_Reader_RegisterEvtCallbacks(im->reader, er, cb, &p);
    (void)OTF2_Reader_ReadAllLocalEvents(im->reader, er, &read);
    atomic_fetch_add(&im->events_done, read); /* the progress bar's */
    OTF2_Reader_CloseEvtReader(im->reader, er);
    if (p.failed) {
        import_fail(im, "out of memory collecting the tasks of location %" PRIu64, loc->id);
        return -1;
    }
    return 0;
}

void* prescan_worker(void* arg) {
    importer* im = arg;
    OTF2_EvtReaderCallbacks* cb = prescan_callbacks();
    if (cb == NULL) {
        import_fail(im, "out of memory");
        return NULL;
    }
    for (;;) {
        size_t next = atomic_fetch_add(&im->next_location, 1);
        if (next >= im->selected_count || atomic_load(&im->failed) ||
            prescan_location(im, next, cb) != 0)
            break;
    }
    OTF2_EvtReaderCallbacks_Delete(cb);
    return NULL;
}

static int threading_paradigm(unsigned paradigm) {
    switch (paradigm) {
    case OTF2_PARADIGM_OPENMP:
    case OTF2_PARADIGM_PTHREAD:
    case OTF2_PARADIGM_OMPSS:
    case OTF2_PARADIGM_WINTHREAD:
    case OTF2_PARADIGM_QTTHREAD:
    case OTF2_PARADIGM_ACETHREAD:
    case OTF2_PARADIGM_TBBTHREAD:
    case OTF2_PARADIGM_MTAPI:
        return 1;
    default:
        return 0;
    }
}

/* Does the archive define anything tasks need: a communicator or group of
 * a threading paradigm (thread teams), or a process with several threads?
 * Archives without (pure MPI, single-threaded) skip the prescan; a task
 * record found in them anyway keeps its fields without a scope (counted,
 * ev_thread.c). */
int tasks_possible(const otf2_defs* defs) {
    size_t* threads = nvtxw_calloc(defs->groups.count + 1, sizeof *threads);
    int possible = 0;
    for (size_t i = 0; i < defs->member_groups.count && !possible; i++) {
        members_def* g = def_table_at(&defs->member_groups, i);
        possible = threading_paradigm(g->paradigm) && (g->type == OTF2_GROUP_TYPE_COMM_LOCATIONS ||
                                                       g->type == OTF2_GROUP_TYPE_COMM_GROUP);
    }
    for (size_t i = 0; i < defs->locations.count && !possible; i++) {
        location_def* l = def_table_at(&defs->locations, i);
        uint32_t group;
        if (threads == NULL)
            possible = 1;
        else if (l->type == OTF2_LOCATION_TYPE_CPU_THREAD &&
                 def_table_find(&defs->groups, l->group, &group) != NULL)
            possible = ++threads[group] > 1;
    }
    nvtxw_free(threads);
    return possible;
}

static int key_compare(const task_key* a, const task_key* b) {
    if (a->team != b->team)
        return a->team < b->team ? -1 : 1;
    if (a->creator != b->creator)
        return a->creator < b->creator ? -1 : 1;
    return a->generation < b->generation ? -1 : a->generation > b->generation;
}

static int order_compare(const void* a, const void* b, void* keys) {
    const task_key* k = keys;
    return key_compare(&k[*(const size_t*)a], &k[*(const size_t*)b]);
}

/* The tasks found, sorted: registration order (so scope IDs do not depend
 * on the thread schedule) and the lookup table of the conversion. */
static int sort_found(importer* im, size_t** order) {
    task_set* found = &im->found;
    *order = nvtxw_malloc((found->count + 1) * sizeof **order);
    im->task_keys = nvtxw_malloc((found->count + 1) * sizeof *im->task_keys);
    im->task_scopes = nvtxw_malloc((found->count + 1) * sizeof *im->task_scopes);
    if (*order == NULL || im->task_keys == NULL || im->task_scopes == NULL)
        return -1;
    for (size_t i = 0; i < found->count; i++)
        (*order)[i] = i;
    qsort_r(*order, found->count, sizeof **order, order_compare, found->keys);
    for (size_t i = 0; i < found->count; i++) {
        im->task_keys[i] = found->keys[(*order)[i]];
        im->task_scopes[i] = found->values[(*order)[i]]; /* the parent, until registered */
    }
    im->task_count = found->count;
    return 0;
}

/* ---- --mpi: every rank's tasks on every rank ---------------------------------- */

/* A task as it travels: team u32, creator u64, generation u64, parent
 * scope u64, in the host's byte order (the ranks run one build). */
#define TASK_WIRE 28

static unsigned char* tasks_to_wire(const task_set* found) {
    unsigned char* out = nvtxw_malloc(found->count * TASK_WIRE + 1);
    if (out == NULL)
        return NULL;
    for (size_t i = 0; i < found->count; i++) {
        unsigned char* p = out + i * TASK_WIRE;
        memcpy(p, &found->keys[i].team, 4);
        memcpy(p + 4, &found->keys[i].creator, 8);
        memcpy(p + 12, &found->keys[i].generation, 8);
        memcpy(p + 20, &found->values[i], 8);
    }
    return out;
}

/* Adds every task of `wire` not yet found (the first rank's parent wins,
 * on every rank alike). */
static int tasks_from_wire(task_set* found, const unsigned char* wire, size_t size) {
    for (size_t at = 0; at + TASK_WIRE <= size; at += TASK_WIRE) {
        task_key key;
        uint64_t parent;
        size_t index;
        memcpy(&key.team, wire + at, 4);
        memcpy(&key.creator, wire + at + 4, 8);
        memcpy(&key.generation, wire + at + 12, 8);
        memcpy(&parent, wire + at + 20, 8);
        if (!task_set_find(found, &key, &index) && task_set_add(found, &key, parent) != 0)
            return -1;
    }
    return 0;
}

int exchange_tasks(importer* im, int status) {
    const nvtxwShare_t* share = im->opts.share;
    unsigned char* mine = NULL;
    void* all = NULL;
    size_t all_size = 0;
    uint64_t failed;
    if (status == 0 && (mine = tasks_to_wire(&im->found)) == NULL) {
        import_error("out of memory sending the tasks found to the other ranks");
        status = -1;
    }
    failed = tool_share_failed_rank(share, status != 0);
    if (failed == 0) {
        if (tool_share_all_gather(share, mine, im->found.count * TASK_WIRE, &all, &all_size) != 0) {
            import_error("cannot exchange the tasks found with the other ranks");
            status = -1;
        } else {
            task_set_free(&im->found);
            memset(&im->found, 0, sizeof im->found);
            if (tasks_from_wire(&im->found, all, all_size) != 0) {
                import_error("out of memory merging the tasks of every rank");
                status = -1;
            }
        }
        /* a rank that failed here fails the agreement after this */
    } else if (status == 0) {
        import_error("rank %" PRIu64 " failed (its message says why)", failed - 1);
        status = -1;
    }
    free(all);
    nvtxw_free(mine);
    return status;
}

/* Registers every task the prescan found, in key order, then keeps only
 * the sorted table (32 bytes per task). */
nvtxwResultCode_t register_tasks(importer* im) {
    char name[128];
    size_t* order = NULL;
    nvtxwResultCode_t rc = NVTXW_RESULT_SUCCESS;
    int sorted = sort_found(im, &order);
    nvtxw_free(order);
    task_set_free(&im->found); /* before the scopes take their memory */
#ifdef __GLIBC__
    malloc_trim(0); /* the set grew in the prescan workers' arenas: give it back */
#endif
    if (sorted != 0) {
        import_error("out of memory registering task scopes");
        return NVTXW_RESULT_FAILED;
    }
    for (size_t i = 0; i < im->task_count && rc == NVTXW_RESULT_SUCCESS; i++) {
        const task_key* key = &im->task_keys[i];
        nvtxScopeAttr_t attr = {sizeof attr, name, im->task_scopes[i], NVTX_SCOPE_NONE};
        snprintf(name, sizeof name, "task[%" PRIu32 ":%" PRIu64 ":%" PRIu64 "]", key->team,
                 key->creator, key->generation);
        if ((rc = im->t->ScopeRegister(im->domain, &attr, &im->task_scopes[i])) !=
            NVTXW_RESULT_SUCCESS)
            import_error("cannot register task scope %s: %s", name, nvtxw_last_error());
    }
    return rc;
}

static uint64_t table_scope(const importer* im, const task_key* key) {
    size_t lo = 0, hi = im->task_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int cmp = key_compare(&im->task_keys[mid], key);
        if (cmp == 0)
            return im->task_scopes[mid];
        if (cmp < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NVTX_SCOPE_NONE;
}

/* The scope of a task in `found` (task -> scope), registered now when it
 * is not there: with one worker (no other thread writes, so registering
 * here keeps NVTXW's rule), or into a sink that takes registrations during
 * writes. */
static int lazy_scope_in(importer* im, task_set* found, const task_key* key, uint64_t parent,
                         uint64_t* scope) {
    char name[128];
    nvtxScopeAttr_t attr = {sizeof attr, name, parent, NVTX_SCOPE_NONE};
    size_t index;
    if (task_set_find(found, key, &index)) {
        *scope = found->values[index];
        return 0;
    }
    snprintf(name, sizeof name, "task[%" PRIu32 ":%" PRIu64 ":%" PRIu64 "]", key->team,
             key->creator, key->generation);
    if (im->t->ScopeRegister(im->domain, &attr, scope) != NVTXW_RESULT_SUCCESS) {
        import_error("cannot register task scope %s: %s", name, nvtxw_last_error());
        return -1;
    }
    if (task_set_add(found, key, *scope) != 0) {
        import_error("out of memory registering task scopes");
        return -1;
    }
    return 0;
}

/* Lazy tasks live in their location group's map: a task runs on the
 * threads of one process (an OpenMP team, or OmpTask IDs unique within a
 * process), so once the group's last location is converted nothing names
 * its tasks again and they can be released. The map is spread over stripes
 * by key hash, each under its own lock, which is held while a task is
 * registered (microseconds), so two workers meeting one task register it
 * once: with one lock per group, 2 workers converting one process's
 * threads spent 0.2 s more in futex calls on the 24 M-event benchmark
 * archive (bench/README.md). */
static int lazy_scope(importer* im, size_t group_index, const task_key* key, uint64_t* scope) {
    struct task_stripe* stripe =
        &im->group_tasks[group_index].stripes[(task_key_hash(key) >> 32) % IMPORT_TASK_STRIPES];
    int status;
    pthread_mutex_lock(&stripe->lock);
    status = lazy_scope_in(im, &stripe->found, key, IMPORT_SCOPE_GROUP_BASE + group_index, scope);
    pthread_mutex_unlock(&stripe->lock);
    return status;
}

int task_scope_of(importer* im, size_t group_index, const task_key* key, uint64_t* scope) {
    if (im->lazy_tasks)
        return lazy_scope(im, group_index, key, scope);
    *scope = table_scope(im, key);
    return 0;
}

size_t location_group_index(const importer* im, const location_def* loc) {
    uint32_t group = 0;
    def_table_find(&im->defs.groups, loc->group, &group);
    return group;
}

int group_tasks_init(importer* im) {
    size_t count = im->defs.groups.count > 0 ? im->defs.groups.count : 1;
    im->group_tasks = nvtxw_calloc(count, sizeof *im->group_tasks);
    if (im->group_tasks == NULL) {
        import_error("out of memory");
        return -1;
    }
    im->group_task_count = count;
    for (size_t i = 0; i < im->selected_count; i++) {
        const location_def* loc = def_table_at(&im->defs.locations, im->selected[i]);
        im->group_tasks[location_group_index(im, loc)].locations_left++;
    }
    return 0;
}

static void stripes_free(struct task_stripe* stripes) {
    for (size_t i = 0; stripes != NULL && i < IMPORT_TASK_STRIPES; i++) {
        task_set_free(&stripes[i].found);
        pthread_mutex_destroy(&stripes[i].lock);
    }
    nvtxw_free(stripes);
}

int group_tasks_location_begin(importer* im, size_t group_index) {
    struct group_tasks* g;
    int status = 0;
    if (!im->lazy_tasks)
        return 0;
    g = &im->group_tasks[group_index];
    pthread_mutex_lock(&im->lock);
    if (g->stripes == NULL) {
        g->stripes = nvtxw_calloc(IMPORT_TASK_STRIPES, sizeof *g->stripes);
        for (size_t i = 0; g->stripes != NULL && i < IMPORT_TASK_STRIPES; i++)
            pthread_mutex_init(&g->stripes[i].lock, NULL);
        status = g->stripes != NULL ? 0 : -1;
    }
    pthread_mutex_unlock(&im->lock);
    if (status != 0)
        import_error("out of memory");
    return status;
}

/* Releases the scopes of a group whose locations are all converted. A
 * release failing is an error of the session (the library refused a call
 * the importer made correctly). */
static int release_group(importer* im, const struct task_stripe* stripes) {
    for (size_t s = 0; stripes != NULL && s < IMPORT_TASK_STRIPES; s++) {
        const task_set* found = &stripes[s].found;
        for (size_t i = 0; i < found->count; i++) {
            if (im->ext->ScopeRelease(im->domain, found->values[i]) != NVTXW_RESULT_SUCCESS) {
                import_error("cannot release task scope %" PRIu64 ": %s", found->values[i],
                             nvtxw_last_error());
                return -1;
            }
        }
    }
    return 0;
}

int completed_tasks_add(completed_tasks* queue, const task_key* key, uint64_t ticks) {
    if (queue->count == queue->capacity &&
        nvtxw_grow_array((void**)&queue->items, &queue->capacity, queue->count + 1,
                         sizeof *queue->items, 64) != 0) {
        import_error("out of memory");
        return -1;
    }
    queue->items[queue->count].key = *key;
    queue->items[queue->count++].ticks = ticks;
    return 0;
}

void completed_tasks_free(completed_tasks* queue) {
    nvtxw_free(queue->items);
    memset(queue, 0, sizeof *queue);
}

/* Takes a task out of its group's map: its scope, or NVTX_SCOPE_NONE when
 * it is not there (completed twice). */
static uint64_t forget_task(importer* im, size_t group_index, const task_key* key) {
    struct task_stripe* stripe =
        &im->group_tasks[group_index].stripes[(task_key_hash(key) >> 32) % IMPORT_TASK_STRIPES];
    uint64_t scope = NVTX_SCOPE_NONE;
    pthread_mutex_lock(&stripe->lock);
    task_set_remove(&stripe->found, key, &scope);
    pthread_mutex_unlock(&stripe->lock);
    return scope;
}

int group_tasks_release_before(importer* im, size_t group_index, completed_tasks* queue,
                               uint64_t ticks) {
    size_t kept = 0;
    int status = 0;
    for (size_t i = 0; i < queue->count; i++) {
        uint64_t scope;
        if (queue->items[i].ticks >= ticks || status != 0) {
            queue->items[kept++] = queue->items[i];
            continue;
        }
        scope = forget_task(im, group_index, &queue->items[i].key);
        if (scope != NVTX_SCOPE_NONE &&
            im->ext->ScopeRelease(im->domain, scope) != NVTXW_RESULT_SUCCESS) {
            import_error("cannot release task scope %" PRIu64 ": %s", scope, nvtxw_last_error());
            status = -1;
        }
    }
    queue->count = kept;
    return status;
}

int group_tasks_location_done(importer* im, size_t group_index) {
    struct group_tasks* g;
    struct task_stripe* done = NULL;
    int status = 0;
    if (!im->lazy_tasks)
        return 0;
    g = &im->group_tasks[group_index];
    pthread_mutex_lock(&im->lock);
    if (--g->locations_left == 0) {
        done = g->stripes;
        g->stripes = NULL;
    }
    pthread_mutex_unlock(&im->lock);
    if (NVTXW_EXTENSION_HAS(im->ext, ScopeRelease))
        status = release_group(im, done);
    stripes_free(done);
    return status;
}

void group_tasks_free(importer* im) {
    for (size_t i = 0; i < im->group_task_count; i++) {
        stripes_free(im->group_tasks[i].stripes);
        nvtxw_free((void*)im->group_tasks[i].frontier);
    }
    nvtxw_free(im->group_tasks);
    im->group_tasks = NULL;
    im->group_task_count = 0;
}
