/*
 * tools/otf2-import/import.c - one conversion: open the archive, read the
 * global definitions, choose the locations, register, run the workers,
 * end the session.
 */
#define _GNU_SOURCE /* pthread_rwlockattr_setkind_np, qsort_r; clock_gettime, nanosleep */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <otf2/OTF2_Pthread_Locks.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "otf2_import.h"
#include "tool_alloc.h"
#include "tool_memory.h"
#include "tool_progress.h"
#include "tool_share.h"

/* A clear reason why `path` is not an archive anchor, or NULL if it may be. */
static const char* anchor_problem(const char* path) {
    struct stat st;
    if (stat(path, &st) != 0)
        return strerror(errno);
    if (S_ISDIR(st.st_mode))
        return "is a directory, not an OTF2 anchor file (ARCHIVE/traces.otf2)";
    if (!S_ISREG(st.st_mode))
        return "is not a regular file";
    return NULL;
}

static int open_archive(importer* im) {
    const char* problem = anchor_problem(im->opts.archive);
    uint8_t major = 0, minor = 0, bugfix = 0;
    if (problem != NULL) {
        import_error("cannot open OTF2 archive \"%s\": %s", im->opts.archive, problem);
        return -1;
    }
    import_otf2_error_reset();
    im->reader = OTF2_Reader_Open(im->opts.archive);
    if (im->reader == NULL) {
        import_error("cannot open OTF2 archive \"%s\": not a readable OTF2 anchor file (%s)",
                     im->opts.archive, import_otf2_error(OTF2_ERROR_INVALID));
        return -1;
    }
    if (OTF2_Reader_GetVersion(im->reader, &major, &minor, &bugfix) != OTF2_SUCCESS ||
        major > OTF2_VERSION_MAJOR) {
        import_error(
            "cannot read OTF2 archive \"%s\": written by OTF2 %u.%u.%u, this build reads up to "
            "OTF2 %d.x archives",
            im->opts.archive, major, minor, bugfix, OTF2_VERSION_MAJOR);
        return -1;
    }
    OTF2_Reader_SetSerialCollectiveCallbacks(im->reader);
    if (im->opts.threads > 1 &&
        OTF2_Pthread_Reader_SetLockingCallbacks(im->reader, NULL) != OTF2_SUCCESS) {
        import_error("cannot make the OTF2 reader thread-safe");
        return -1;
    }
    return 0;
}

/* Does location `id` match the --locations list ("3,7,10-19")? The list
 * was checked by the CLI: digits, ',' and '-' only. */
static int location_listed(const char* list, uint64_t id) {
    const char* p = list;
    while (*p != '\0') {
        char* end;
        unsigned long long lo, hi;
        if (*p == ',') { /* an empty item names nothing */
            p++;
            continue;
        }
        lo = hi = strtoull(p, &end, 10);
        if (end == p)
            break;
        if (*end == '-')
            hi = strtoull(end + 1, &end, 10);
        if (id >= lo && id <= hi)
            return 1;
        p = end;
    }
    return 0;
}

/* The order in which workers take the selected locations: group by group
 * (a location group's tasks are released after its last location:
 * tasks.c), groups in `rank` order; within a group, with several workers
 * the locations with the most events first, so that a long one does not
 * start last while the others idle (8 locations of 1.7 to 5 MB on 2
 * workers, in archive order: 258 and 169 ms of CPU; largest first: 275 and
 * 261 ms); with one worker in the archive's order. */
typedef struct location_order {
    const importer* im;
    size_t* group_rank; /* by group index */
    int largest_first;
} location_order;

static int by_group_then_events(const void* a, const void* b, void* order_arg) {
    const location_order* order = order_arg;
    size_t i = *(const size_t*)a, j = *(const size_t*)b;
    const location_def* x = def_table_at(&order->im->defs.locations, i);
    const location_def* y = def_table_at(&order->im->defs.locations, j);
    size_t gx = order->group_rank[location_group_index(order->im, x)];
    size_t gy = order->group_rank[location_group_index(order->im, y)];
    if (gx != gy)
        return gx < gy ? -1 : 1;
    if (order->largest_first && x->events != y->events)
        return x->events < y->events ? 1 : -1;
    return i < j ? -1 : i > j;
}

/* Group keys: the first selected position (one worker), or UINT64_MAX
 * minus the largest location's events (several workers). */
static int by_group_key(const void* a, const void* b, void* keys_arg) {
    const uint64_t* keys = keys_arg;
    size_t g = *(const size_t*)a, h = *(const size_t*)b;
    if (keys[g] != keys[h])
        return keys[g] < keys[h] ? -1 : 1;
    return g < h ? -1 : g > h;
}

/* Groups ranked by their first selected location in archive order (one
 * worker), or by their largest location, largest first (several). */
static int rank_groups(importer* im, location_order* order) {
    size_t groups = im->defs.groups.count > 0 ? im->defs.groups.count : 1;
    uint64_t* keys = nvtxw_calloc(groups, sizeof *keys);
    size_t* sorted = nvtxw_calloc(groups, sizeof *sorted);
    order->group_rank = nvtxw_calloc(groups, sizeof *order->group_rank);
    if (keys == NULL || sorted == NULL || order->group_rank == NULL) {
        nvtxw_free(keys);
        nvtxw_free(sorted);
        nvtxw_free(order->group_rank);
        return -1;
    }
    for (size_t g = 0; g < groups; g++) {
        sorted[g] = g;
        keys[g] = UINT64_MAX; /* a group without selected locations: last */
    }
    for (size_t k = im->selected_count; k-- > 0;) {
        const location_def* l = def_table_at(&im->defs.locations, im->selected[k]);
        size_t g = location_group_index(im, l);
        if (!order->largest_first)
            keys[g] = k;                           /* ends at the first */
        else if (UINT64_MAX - l->events < keys[g]) /* the largest: keys count down */
            keys[g] = UINT64_MAX - l->events;
    }
    qsort_r(sorted, groups, sizeof *sorted, by_group_key, keys);
    for (size_t r = 0; r < groups; r++)
        order->group_rank[sorted[r]] = r;
    nvtxw_free(keys);
    nvtxw_free(sorted);
    return 0;
}

/* --mpi: the rank that converts each location (import_split_locations
 * over the listed ones; UINT32_MAX for the others). NULL when out of
 * memory. */
static uint32_t* split_locations(importer* im) {
    def_table* locs = &im->defs.locations;
    uint32_t* owner = nvtxw_malloc((locs->count + 1) * sizeof *owner);
    uint64_t* events = nvtxw_malloc((locs->count + 1) * sizeof *events);
    size_t* listed = nvtxw_malloc((locs->count + 1) * sizeof *listed);
    uint32_t* listed_owner = nvtxw_malloc((locs->count + 1) * sizeof *listed_owner);
    size_t n = 0;
    if (owner != NULL && events != NULL && listed != NULL && listed_owner != NULL) {
        for (size_t i = 0; i < locs->count; i++) {
            location_def* l = def_table_at(locs, i);
            owner[i] = UINT32_MAX;
            if (im->opts.locations == NULL || location_listed(im->opts.locations, l->id)) {
                events[n] = l->events;
                listed[n++] = i;
            }
        }
    }
    if (owner == NULL || events == NULL || listed == NULL || listed_owner == NULL ||
        import_split_locations(events, n, im->opts.share->ranks, listed_owner) != 0) {
        nvtxw_free(owner);
        owner = NULL;
    } else {
        for (size_t k = 0; k < n; k++)
            owner[listed[k]] = listed_owner[k];
    }
    nvtxw_free(events);
    nvtxw_free(listed);
    nvtxw_free(listed_owner);
    return owner;
}

/* Whether this run converts listed location `i`, the `listed`-th listed. */
static int converts(const importer* im, const uint32_t* owner, size_t i, size_t listed) {
    if (owner != NULL)
        return owner[i] == im->opts.share->rank;
    return listed % im->opts.parts == im->opts.part - 1;
}

static int select_locations(importer* im) {
    def_table* locs = &im->defs.locations;
    location_order order;
    size_t n = 0;
    uint32_t* owner = NULL;
    im->selected = nvtxw_malloc(locs->count * sizeof *im->selected);
    if (im->selected == NULL || (im->opts.share != NULL && (owner = split_locations(im)) == NULL)) {
        import_error("out of memory");
        return -1;
    }
    size_t listed = 0; /* --part counts positions among the listed locations */
    for (size_t i = 0; i < locs->count; i++) {
        location_def* l = def_table_at(locs, i);
        if (im->opts.locations != NULL && !location_listed(im->opts.locations, l->id))
            continue;
        if (!converts(im, owner, i, listed++))
            continue;
        if (OTF2_Reader_SelectLocation(im->reader, l->id) != OTF2_SUCCESS) {
            import_error("cannot select location %" PRIu64, l->id);
            nvtxw_free(owner);
            return -1;
        }
        im->selected[n++] = i;
        im->events_total += l->events;
    }
    nvtxw_free(owner);
    im->selected_count = n;
    order.im = im;
    order.largest_first = im->opts.threads > 1;
    if (rank_groups(im, &order) != 0) {
        import_error("out of memory");
        return -1;
    }
    qsort_r(im->selected, n, sizeof *im->selected, by_group_then_events, &order);
    nvtxw_free(order.group_rank);
    if (schedule_runs(im) != 0)
        return -1;
    if (listed == 0 && im->opts.locations != NULL) {
        import_error("--locations %s matches no location of the archive", im->opts.locations);
        return -1;
    }
    return 0;
}

static int open_files(importer* im) {
    OTF2_ErrorCode rc;
    import_otf2_error_reset();
    rc = OTF2_Reader_OpenDefFiles(im->reader);
    if (rc != OTF2_SUCCESS && rc != OTF2_ERROR_ENOENT) {
        import_error("cannot open the local definition files: %s", import_otf2_error(rc));
        return -1;
    }
    rc = OTF2_Reader_OpenEvtFiles(im->reader);
    if (rc != OTF2_SUCCESS) {
        import_error("cannot open the event files: %s", import_otf2_error(rc));
        return -1;
    }
    return 0;
}

/* Begins the session (--mpi: with every rank, SessionBeginShared, which
 * succeeds on every rank or on none). */
static int begin_session(importer* im) {
    nvtxwSessionAttributes_t attr = {sizeof attr, im->opts.archive, im->opts.config};
    nvtxwResultCode_t rc;
    if (im->opts.share != NULL)
        rc = im->ext->SessionBeginShared(&attr, im->opts.share, &im->session);
    else
        rc = im->t->SessionBegin(&attr, &im->session);
    if (rc != NVTXW_RESULT_SUCCESS) {
        im->session = NULL;
        import_error("cannot begin the session: %s", nvtxw_last_error());
        return -1;
    }
    return 0;
}

/* --mpi: every rank opens every listed location's stream, in the
 * archive's order, so that all make the same registrations. */
static int open_shared_streams(importer* im) {
    def_table* locs = &im->defs.locations;
    im->shared_streams = nvtxw_calloc(locs->count + 1, sizeof *im->shared_streams);
    if (im->shared_streams == NULL) {
        import_error("out of memory");
        return -1;
    }
    for (size_t i = 0; i < locs->count; i++) {
        location_def* l = def_table_at(locs, i);
        if (im->opts.locations != NULL && !location_listed(im->opts.locations, l->id))
            continue;
        if (import_open_stream(im, i, &im->shared_streams[i]) != 0)
            return -1;
    }
    return 0;
}

/* ---- the run ------------------------------------------------------------------ */

/* Runs `worker` on opts.threads threads over the selected locations, with a
 * progress bar labelled `label` on a terminal (im->events_done counts from
 * 0). */
static int run_workers(importer* im, void* (*worker)(void*), const char* label) {
    unsigned n = im->opts.threads;
    pthread_t* threads;
    tool_progress bar;
    atomic_store(&im->next_location, 0);
    atomic_store(&im->events_done, 0);
    tool_progress_begin(&bar, im->opts.progress, "nvtxw-otf2-import", label, &im->events_done,
                        im->events_total, im->opts.progress_output);
    if (n > im->selected_count)
        n = im->selected_count > 0 ? (unsigned)im->selected_count : 1;
    threads = nvtxw_calloc(n, sizeof *threads);
    if (threads == NULL) {
        import_fail(im, "out of memory");
        n = 0;
    }
    for (unsigned i = 0; i < n; i++) {
        if (tool_thread_start(&threads[i], worker, im) != 0) {
            import_fail(im, "cannot start worker thread %u", i);
            n = i;
        }
    }
    for (unsigned i = 0; i < n; i++)
        pthread_join(threads[i], NULL);
    nvtxw_free(threads);
    tool_progress_end(&bar);
    return atomic_load(&im->failed) ? -1 : 0;
}

static void importer_free(importer* im) {
    if (im->reader != NULL)
        OTF2_Reader_Close(im->reader);
    layouts_free(&im->layouts);
    defs_free(&im->defs);
    nvtxw_free(im->selected);
    nvtxw_free(im->shared_streams);
    task_set_free(&im->found);
    nvtxw_free(im->task_keys);
    nvtxw_free(im->task_scopes);
    pthread_rwlock_destroy(&im->gate);
    pthread_mutex_destroy(&im->lock);
    group_tasks_free(im);
    nvtxw_free(im->run_ends);
    nvtxw_free(im->run_next);
    nvtxw_free(im->run_parts);
    nvtxw_free(im->run_capacity);
}

/* Tasks must be registered before any event of theirs (tasks.c): when a
 * registration may not overlap another worker's writes (several workers
 * into Backend=), a prescan collects them when the archive can hold any.
 * --mpi: always the prescan, and its findings exchanged (collective: every
 * rank comes here, `status` saying whether it failed before). */
static int prepare_tasks(importer* im, int status) {
    if (im->opts.share == NULL && (im->opts.threads == 1 || im->opts.registrations_during_writes)) {
        /* one worker (a registration cannot overlap another thread's
         * writes), or a sink that allows it: tasks are registered when
         * first seen (tasks.c) */
        im->lazy_tasks = 1;
        return status != 0 ? -1 : group_tasks_init(im);
    }
    if (!tasks_possible(&im->defs))
        return status;
    im->prescanned = 1;
    if (status == 0 && run_workers(im, prescan_worker, "tasks") != 0) {
        import_error("%s", im->error);
        status = -1;
    }
    if (im->opts.share != NULL)
        status = exchange_tasks(im, status);
    if (status != 0)
        return -1;
    return register_tasks(im) == NVTXW_RESULT_SUCCESS ? 0 : -1;
}

static void init_locks(importer* im) {
    pthread_rwlockattr_t attr;
    pthread_mutex_init(&im->lock, NULL);
    pthread_rwlockattr_init(&attr);
    /* a StreamOpen waits for the readers, new readers wait for it */
    pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    pthread_rwlock_init(&im->gate, &attr);
    pthread_rwlockattr_destroy(&attr);
}

/* --mpi: whether every rank got this far (collective). A rank that did
 * not fail itself says which one did. */
static int agree(importer* im, int status) {
    uint64_t failed;
    if (im->opts.share == NULL)
        return status;
    failed = tool_share_failed_rank(im->opts.share, status != 0);
    if (failed != 0 && status == 0)
        import_error("rank %" PRIu64 " failed (its message says why)", failed - 1);
    return failed != 0 ? -1 : 0;
}

/* Everything before the workers. --mpi: every collective is reached by
 * every rank whatever failed before it, and every rank's outcome is
 * agreed before the session begins and before the workers start. */
static int prepare(importer* im) {
    int status = open_archive(im) != 0 || defs_read(im->reader, &im->defs, im->opts.archive) != 0 ||
                         select_locations(im) != 0 || open_files(im) != 0 ||
                         layouts_load(&im->layouts) != NVTXW_RESULT_SUCCESS
                     ? -1
                     : 0;
    if (agree(im, status) != 0 || begin_session(im) != 0)
        return -1;
    status = register_all(im) == NVTXW_RESULT_SUCCESS ? 0 : -1;
    status = prepare_tasks(im, status);
    if (agree(im, status) != 0)
        return -1;
    if (im->opts.share != NULL && open_shared_streams(im) != 0)
        return -1;
    return choose_turns(im);
}

int import_run(importer* im) {
    int status = 0;
    init_locks(im);
    import_otf2_errors_install();
    im->t = im->opts.iface;
    im->ext = im->opts.ext;
    if (prepare(im) != 0) {
        snprintf(im->error, sizeof im->error, "%s", import_last_error());
        status = 1;
    } else if (run_workers(im, location_worker, "events") != 0) {
        status = 1;
    }
    /* --mpi: collective; every rank that began the session ends it */
    if (im->session != NULL && im->t->SessionEnd(im->session) != NVTXW_RESULT_SUCCESS &&
        status == 0) {
        snprintf(im->error, sizeof im->error, "cannot end the session: %s", nvtxw_last_error());
        status = 1;
    }
    im->session = NULL;
    importer_free(im);
    return status;
}
