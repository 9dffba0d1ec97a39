/*
 * tools/otf2-import/worker.c - the worker loop: selected locations, one at a
 * time, from a shared atomic index (location.c has the per-event helpers).
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "otf2_import.h"
#include "tool_alloc.h"
#include "tool_interrupt.h"

/* The location's local file `ext` ("def", "evt"), for messages. */
static void location_file(const importer* im, uint64_t id, const char* ext, char* out,
                          size_t size) {
    char suffix[48];
    snprintf(suffix, sizeof suffix, "/%" PRIu64 ".%s", id, ext);
    import_archive_file(im->opts.archive, suffix, out, size);
}

int import_open_stream(importer* im, size_t index, nvtxwStreamHandle_t* stream) {
    const location_def* loc = def_table_at(&im->defs.locations, index);
    nvtxwStreamAttributes_t attr = {sizeof attr,
                                    loc->stream_name,
                                    im->domain,
                                    IMPORT_SCOPE_LOCATION_BASE + index,
                                    IMPORT_TIME_DOMAIN_NS,
                                    0,
                                    0,
                                    0,
                                    0};
    nvtxwResultCode_t rc;
    pthread_rwlock_wrlock(&im->gate);
    rc = im->t->StreamOpen(im->session, &attr, stream);
    pthread_rwlock_unlock(&im->gate);
    if (rc != NVTXW_RESULT_SUCCESS) {
        import_error("cannot open stream \"%s\": %s", attr.name, nvtxw_last_error());
        return -1;
    }
    return 0;
}

/* Opens the location's stream (--mpi: takes the one opened up front) and
 * writes the OTF2 clock's conversion to nanoseconds on it, holding the
 * gate for writing. */
static int open_stream(loc_ctx* c) {
    importer* im = c->im;
    nvtxwResultCode_t rc = NVTXW_RESULT_SUCCESS;
    if (im->shared_streams != NULL)
        c->stream = im->shared_streams[c->index];
    else if (import_open_stream(im, c->index, &c->stream) != 0)
        return -1;
    pthread_rwlock_wrlock(&im->gate);
    if (im->defs.global_offset <= INT64_MAX)
        rc = im->t->TimestampConversionFactorWrite(
            c->stream, IMPORT_TIME_DOMAIN_TICKS, IMPORT_TIME_DOMAIN_NS,
            1e9 / (double)im->defs.timer_resolution, (int64_t)im->defs.global_offset, 0);
    pthread_rwlock_unlock(&im->gate);
    if (rc != NVTXW_RESULT_SUCCESS) {
        import_error("cannot write the clock conversion of stream \"%s\": %s", c->loc->stream_name,
                     nvtxw_last_error());
        return -1;
    }
    return 0;
}

static int close_stream(loc_ctx* c) {
    nvtxwResultCode_t rc;
    if (c->stream == NULL)
        return 0;
    pthread_rwlock_wrlock(&c->im->gate);
    rc = c->im->t->StreamClose(c->stream);
    if (c->im->shared_streams != NULL)
        c->im->shared_streams[c->index] = NULL;
    pthread_rwlock_unlock(&c->im->gate);
    c->stream = NULL;
    if (rc != NVTXW_RESULT_SUCCESS && !c->failed) {
        import_error("cannot close stream \"%s\": %s", c->loc->stream_name, nvtxw_last_error());
        return -1;
    }
    return 0;
}

/* Local definitions: no callbacks needed; reading them hands the mapping
 * tables and clock offsets to the location's event reader. */
static int read_local_defs(loc_ctx* c) {
    OTF2_Reader* reader = c->im->reader;
    OTF2_DefReader* dr = OTF2_Reader_GetDefReader(reader, c->loc->id);
    OTF2_DefReaderCallbacks* cb;
    OTF2_ErrorCode rc;
    uint64_t read = 0;
    char file[4200];
    import_otf2_error_reset();
    if (dr == NULL)
        return 0; /* no local definitions */
    if ((cb = OTF2_DefReaderCallbacks_New()) == NULL) {
        import_error("out of memory");
        return -1;
    }
    OTF2_Reader_RegisterDefCallbacks(reader, dr, cb, c);
    OTF2_DefReaderCallbacks_Delete(cb);
    rc = OTF2_Reader_ReadAllLocalDefinitions(reader, dr, &read);
    OTF2_Reader_CloseDefReader(reader, dr);
    if (rc != OTF2_SUCCESS) {
        location_file(c->im, c->loc->id, "def", file, sizeof file);
        import_error("location %" PRIu64 " (%s): cannot read its local definitions (%s) after "
                     "%" PRIu64 " records: %s",
                     c->loc->id, c->loc->stream_name, file, read, import_otf2_error(rc));
        return -1;
    }
    return 0;
}

/* Opens the location's event reader with the callbacks (its local
 * definitions first, unless the task prescan read them). 0, or -1 with the
 * error set. */
static int events_open(loc_ctx* c, OTF2_EvtReaderCallbacks* cb) {
    OTF2_Reader* reader = c->im->reader;
    char file[4200];
    /* OTF2 keeps a location's mapping tables and clock offsets once read,
     * and refuses to read them twice */
    if (!c->loc->local_defs_read && !c->local_defs_read) {
        if (read_local_defs(c) != 0)
            return -1;
        c->local_defs_read = 1; /* a reader opened again after events_suspend */
    }
    import_otf2_error_reset();
    if ((c->events = OTF2_Reader_GetEvtReader(reader, c->loc->id)) == NULL) {
        location_file(c->im, c->loc->id, "evt", file, sizeof file);
        import_error("location %" PRIu64 " (%s): cannot open its events (%s): %s", c->loc->id,
                     c->loc->stream_name, file, import_otf2_error(OTF2_ERROR_INVALID));
        return -1;
    }
    OTF2_Reader_RegisterEvtCallbacks(reader, c->events, cb, c);
    return 0;
}

static void events_close(loc_ctx* c) {
    if (c->events != NULL)
        OTF2_Reader_CloseEvtReader(c->im->reader, c->events);
    c->events = NULL;
}

/* Flushes the stream of a location read in turns that it leaves idle
 * until its next turn or the slice's end (libnvtxw's StreamFlush, when the
 * library has it: its buffers are freed). 0, or -1 with the error set. */
static int idle_stream(loc_ctx* c) {
    const nvtxwExtensionInterface_t* ext = c->im->ext;
    if (NVTXW_EXTENSION_HAS(ext, StreamFlush) &&
        ext->StreamFlush(c->stream) != NVTXW_RESULT_SUCCESS) {
        import_error("location %" PRIu64 " (%s): cannot flush its stream: %s", c->loc->id,
                     c->loc->stream_name, nvtxw_last_error());
        return -1;
    }
    return 0;
}

/* Closes the reader of a location read in turns that has events left, to
 * open another's: its position is kept for events_resume, and its stream
 * flushed. 0, or -1 with the error set (the reader closed). */
static int events_suspend(loc_ctx* c) {
    OTF2_ErrorCode rc = OTF2_EvtReader_GetPos(c->events, &c->resume_position);
    events_close(c);
    if (rc != OTF2_SUCCESS) {
        import_error("location %" PRIu64 " (%s): no position after event #%" PRIu64 ": %s",
                     c->loc->id, c->loc->stream_name, c->event_number, import_otf2_error(rc));
        return -1;
    }
    return idle_stream(c);
}

/* Opens the reader of a location read in turns, at the event after the
 * last one read if it was suspended. OTF2 keeps the location's mapping
 * tables and clock offsets after its reader is closed, so a new reader
 * sought to the position reads the same events (checked by import_test on
 * generated-1x16). 0, or -1 with the error set. */
static int events_resume(loc_ctx* c, OTF2_EvtReaderCallbacks* cb) {
    OTF2_ErrorCode rc;
    char file[4200];
    if (events_open(c, cb) != 0)
        return -1;
    if (c->resume_position == 0)
        return 0;
    import_otf2_error_reset();
    if ((rc = OTF2_EvtReader_Seek(c->events, c->resume_position + 1)) != OTF2_SUCCESS) {
        location_file(c->im, c->loc->id, "evt", file, sizeof file);
        import_error("location %" PRIu64 " (%s): cannot return to event #%" PRIu64 " of %s: %s",
                     c->loc->id, c->loc->stream_name, c->event_number + 1, file,
                     import_otf2_error(rc));
        events_close(c);
        return -1;
    }
    return 0;
}

/* Reads up to `count` events (0: all); *over = 1 when the location has no
 * more, checked against the declared count and its open slices ended. 0,
 * or -1 with the error set. */
static int events_read(loc_ctx* c, uint64_t count, int* over) {
    OTF2_ErrorCode rc;
    uint64_t read = 0;
    char file[4200];
    import_otf2_error_reset();
    rc = count == 0 ? OTF2_Reader_ReadAllLocalEvents(c->im->reader, c->events, &read)
                    : OTF2_Reader_ReadLocalEvents(c->im->reader, c->events, count, &read);
    if (rc == OTF2_ERROR_INTERRUPTED_BY_CALLBACK && c->failed)
        return -1; /* ev_fail said why */
    if (rc == OTF2_ERROR_INTERRUPTED_BY_CALLBACK) {
        import_error("interrupted: another location failed");
        return -1;
    }
    if (rc != OTF2_SUCCESS) {
        location_file(c->im, c->loc->id, "evt", file, sizeof file);
        import_error("location %" PRIu64 " (%s): cannot read event #%" PRIu64 " of %s: %s",
                     c->loc->id, c->loc->stream_name, c->event_number + 1, file,
                     import_otf2_error(rc));
        return -1;
    }
    *over = count == 0 || read < count;
    if (!*over)
        return 0;
    if (c->event_number != c->loc->events) {
        location_file(c->im, c->loc->id, "evt", file, sizeof file);
        import_error("location %" PRIu64 " (%s): read %" PRIu64 " events from %s, the archive "
                     "declares %" PRIu64 " (truncated or damaged file)",
                     c->loc->id, c->loc->stream_name, c->event_number, file, c->loc->events);
        return -1;
    }
    return ev_thread_finish(c) == OTF2_CALLBACK_SUCCESS &&
                   ev_misc_finish(c) == OTF2_CALLBACK_SUCCESS
               ? 0
               : -1;
}

static void ctx_free(loc_ctx* c) {
    nvtxw_free(c->stack);
    nvtxw_free(c->seqs);
    nvtxw_free(c->collectives.items);
    nvtxw_free(c->rma_collectives.items);
    nvtxw_free(c->io_ops.items);
    nvtxw_free(c->payloads);
    nvtxw_free(c->attribute_values);
}

/* A failed location: the whole run fails, or with --keep-going the
 * location keeps what it wrote and the loss is counted. */
static void location_failed(importer* im, loc_ctx* c) {
    c->failed = 1;
    events_close(c);
    if (!im->opts.keep_going) {
        import_fail(im, "%s", import_last_error());
        return;
    }
    pthread_mutex_lock(&im->lock);
    im->incomplete_locations++;
    if (c->loc->events > c->event_number)
        im->unread_events += c->loc->events - c->event_number;
    fprintf(stderr, TOOL ": warning: %s; kept what was read before it\n", import_last_error());
    pthread_mutex_unlock(&im->lock);
}

/* Sets up the context of selected location `index` and opens its stream;
 * a failure fails the location (c->failed). */
static void location_start(importer* im, size_t index, loc_ctx* c) {
    group_def* g;
    uint32_t group = 0;
    memset(c, 0, sizeof *c);
    c->im = im;
    c->index = index;
    c->loc = def_table_at(&im->defs.locations, index);
    g = def_table_find(&im->defs.groups, c->loc->group, &group);
    c->group_index = group; /* = location_group_index() */
    c->world_rank = g != NULL ? g->world_rank : -1;
    if (group_tasks_location_begin(im, c->group_index) != 0 || open_stream(c) != 0)
        location_failed(im, c);
}

/* Closes the location's stream and adds its counts to the run's. */
static void location_end(importer* im, loc_ctx* c) {
    events_close(c);
    /* both, whatever the first says: the group counts this location done */
    if ((close_stream(c) != 0) | (group_tasks_location_done(im, c->group_index) != 0))
        import_fail(im, "%s", import_last_error());
    atomic_fetch_add(&im->events_done, c->unreported);
    atomic_fetch_add(&im->scopeless_tasks, c->scopeless_tasks);
    atomic_fetch_add(&im->unclosed, c->depth);
    for (int k = 0; k <= EK_COUNT; k++) {
        if (c->skipped[k] != 0)
            atomic_fetch_add(&im->skipped[k], c->skipped[k]);
    }
    ctx_free(c);
}

static void convert_location(importer* im, size_t index, OTF2_EvtReaderCallbacks* cb) {
    loc_ctx c;
    int over;
    location_start(im, index, &c);
    if (!c.failed) {
        pthread_rwlock_rdlock(&im->gate); /* writes: ev_begin yields it now and then */
        if (events_open(&c, cb) != 0 || events_read(&c, 0, &over) != 0)
            location_failed(im, &c);
        pthread_rwlock_unlock(&im->gate);
    }
    location_end(im, &c);
}

/* Converting a group in turns keeps every stream of a slice open, and
 * OTF2's event reader of every location or of one: the reader holds two
 * chunks of events (the archive's event chunk size, 1 MiB by default), a
 * report stream under 0.5 MiB of buffers while it is written (its zstd
 * context is borrowed per chunk; measured: a process of 8 threads in
 * turns peaks 2.4 MiB a location above one of 4 threads, with 1 MiB
 * chunks) and under 32 KiB once flushed (StreamFlush; with the importer's
 * own state: 200 locations took 7 MiB more than 16). The slices converted
 * at one moment may take this much together, a share per worker: a slice
 * keeps every reader open up to 12 locations on one worker at the default
 * chunk size (6 on each of two), else one reader that it closes and opens
 * again at the location of each turn, flushing the stream it leaves. */
#define TURNS_MEMORY_BUDGET ((uint64_t)32 << 20)
#define TURNS_STREAM_MEMORY ((uint64_t)1 << 19)
#define TURNS_IDLE_MEMORY ((uint64_t)1 << 15)

/* Events a location reads in its turn, with every reader of its slice
 * open. With one reader, each turn closes it and opens the next one at
 * its position: OTF2's seek reads chunks of the file to find the one
 * holding it and skips the events before it there, about 0.9 ms a turn
 * measured on locations of a million events (perf: half file reads, half
 * skipping), so those turns are as long as memory allows: every location
 * reads up to a turn past the least advanced one, and the tasks completed
 * in that lag wait for it (a few hundred bytes each with their scopes). A
 * slice's turns start at WINDOW_TURN_MAX events, halve while it holds
 * more than WINDOW_BACKLOG completions after a turn and double again
 * while it holds under a quarter of that, between WINDOW_TURN_MIN and
 * WINDOW_TURN_MAX: an archive with few tasks pays few seeks, one with
 * many holds a bounded backlog. A slice holds at most
 * WINDOW_MAX_LOCATIONS, so even the shortest turns leave a bounded lag.
 * The environment's NVTXW_OTF2_TURN_EVENTS sets every turn (a
 * diagnostic: the tests make many turns on small archives). */
#define TURN_EVENTS 4096
#define WINDOW_TURN_MIN ((uint64_t)1 << 14)
#define WINDOW_TURN_MAX ((uint64_t)1 << 18)
#define WINDOW_BACKLOG ((size_t)1 << 15)
#define WINDOW_MAX_LOCATIONS 256

/* The first turn's events on a slice that keeps every reader open, or
 * that moves one (`moving`). */
static uint64_t first_turn(const importer* im, int moving) {
    if (im->turn_events > 0)
        return im->turn_events;
    return moving ? WINDOW_TURN_MAX : TURN_EVENTS;
}

/* The next turn's events when the slice moves its reader, after one that
 * left `backlog` completions waiting for the slice's least advanced
 * location. */
static uint64_t next_window_turn(const importer* im, uint64_t turn, size_t backlog) {
    if (im->turn_events > 0)
        return turn;
    if (backlog > WINDOW_BACKLOG && turn > WINDOW_TURN_MIN)
        return turn / 2;
    if (backlog < WINDOW_BACKLOG / 4 && turn < WINDOW_TURN_MAX)
        return turn * 2;
    return turn;
}

/* The location of `cs` to read next: the one that has read the least far
 * in time, or SIZE_MAX when all are over. */
static size_t next_turn(const loc_ctx* cs, const uint8_t* over, size_t count) {
    size_t next = SIZE_MAX;
    uint64_t low = UINT64_MAX;
    for (size_t i = 0; i < count; i++) {
        if (!over[i] && cs[i].last_ticks < low) {
            low = cs[i].last_ticks;
            next = i;
        }
    }
    return next;
}

/* The time every location of a group in turns has converted every event
 * before: the lowest of their frontiers, whichever worker reads them. */
static uint64_t group_frontier(const struct group_tasks* g) {
    uint64_t low = UINT64_MAX;
    for (size_t i = 0; i < g->frontier_count; i++) {
        uint64_t t = atomic_load_explicit(&g->frontier[i], memory_order_acquire);
        low = t < low ? t : low;
    }
    return low;
}

/* Completions a worker reading a slice may hold while another slice of
 * its group lags behind in time (about 70 bytes each with the task's map
 * entry); past this it waits for the others (wait_for_slices). The
 * environment's NVTXW_OTF2_TURNS_QUEUE_LIMIT sets another (a diagnostic:
 * the tests make slices wait on small archives). */
#define TURNS_QUEUE_LIMIT (1u << 14)

/* Releases what the group's frontier allows and, while this slice's queue
 * is full and another slice is behind this one's least advanced location
 * (`own`), waits for it: so a slice that reads through its time faster
 * than another does not pile up completions. The slice furthest behind
 * never waits, and a worker looking for work takes the slices of started
 * processes first (next_locations), so the slice waited for is being read
 * or will be. The caller holds the gate for reading; it is let go while
 * waiting, as the worker of the other slice may need it for writing to
 * open its streams. 0, or -1 with the error set. */
static int wait_for_slices(importer* im, size_t group, completed_tasks* queue, uint64_t own) {
    const struct timespec pause = {0, 200 * 1000};
    for (;;) {
        uint64_t low = group_frontier(&im->group_tasks[group]);
        if (group_tasks_release_before(im, group, queue, low) != 0)
            return -1;
        /* waiting only saves memory: not in a run that fails (whatever
         * --keep-going says: a slice may then never be read) or stops */
        if (queue->count < im->turns_queue_limit || low >= own || atomic_load(&im->failed) ||
            tool_interrupted())
            return 0;
        pthread_rwlock_unlock(&im->gate);
        nanosleep(&pause, NULL);
        pthread_rwlock_rdlock(&im->gate);
    }
}

/* Makes cs[next]'s reader open. A slice that moves its one reader
 * (`moving`: its locations do not fit open in the worker's share) first
 * closes the reader of *holder, the location that read last, if it is
 * still open; *holder is then `next`. One reader is enough: the turns go
 * round every location, so more would seldom be met again before they
 * were closed (one process of 16 threads, two slices of 8: 6 readers each
 * took 46 MiB and 3.56 s, one 28 MiB and 3.68 s). 0, or -1 with the error
 * set (of the location whose reader failed; *failed is its index). */
static int reader_for_turn(loc_ctx* cs, size_t next, int moving, size_t* holder,
                           OTF2_EvtReaderCallbacks* cb, size_t* failed) {
    if (cs[next].events != NULL)
        return 0;
    if (moving && *holder != SIZE_MAX && cs[*holder].events != NULL &&
        events_suspend(&cs[*holder]) != 0) {
        *failed = *holder;
        return -1;
    }
    *failed = next;
    if (events_resume(&cs[next], cb) != 0)
        return -1;
    *holder = next;
    return 0;
}

/* Converts the `count` locations at selected[first...], a slice of run
 * `run` (one group), together: each stream open, their events read in
 * turns of TURN_EVENTS, always the location that is least far in time.
 * When the worker's share of memory does not hold every location's event
 * reader (turns_max_open), the turns are longer (next_window_turn) and
 * each moves the slice's one reader to the location whose turn it is.
 * After each turn the location's frontier is published; a task completes
 * when the group, all slices together, has read past it, so its scope is
 * released there (tasks.c) and memory follows the tasks alive at one
 * moment, not all of the process's tasks. Tasks completed on this slice
 * that another slice has not yet read past when this one ends stay in the
 * group's map until its last location. */
static void convert_in_turns(importer* im, size_t run, size_t first, size_t count,
                             OTF2_EvtReaderCallbacks* cb) {
    loc_ctx* cs = nvtxw_calloc(count, sizeof *cs);
    uint8_t* over = nvtxw_calloc(count, 1);
    size_t offset = first - (run == 0 ? 0 : im->run_ends[run - 1]), next, holder = SIZE_MAX;
    int moving = count > im->turns_max_open;
    uint64_t turn = first_turn(im, moving);
    completed_tasks completed = {0};
    struct group_tasks* g;
    if (cs == NULL || over == NULL) {
        import_fail(im, "out of memory");
        nvtxw_free(cs);
        nvtxw_free(over);
        return;
    }
    for (size_t i = 0; i < count; i++) {
        location_start(im, im->selected[first + i], &cs[i]);
        cs[i].completed = &completed;
        over[i] = (uint8_t)cs[i].failed;
    }
    g = &im->group_tasks[cs[0].group_index];
    for (size_t i = 0; i < count; i++) {
        if (over[i])
            atomic_store_explicit(&g->frontier[offset + i], UINT64_MAX, memory_order_release);
    }
    pthread_rwlock_rdlock(&im->gate);
    while ((next = next_turn(cs, over, count)) != SIZE_MAX) {
        int done = 0;
        size_t failed;
        if (atomic_load(&im->failed) && !im->opts.keep_going)
            break;
        if (wait_for_slices(im, cs[0].group_index, &completed, cs[next].last_ticks) != 0)
            import_fail(im, "%s", import_last_error());
        if (moving)
            turn = next_window_turn(im, turn, completed.count);
        if (reader_for_turn(cs, next, moving, &holder, cb, &failed) != 0) {
            location_failed(im, &cs[failed]);
            over[failed] = 1;
            atomic_store_explicit(&g->frontier[offset + failed], UINT64_MAX, memory_order_release);
            continue;
        }
        if (events_read(&cs[next], turn, &done) != 0)
            location_failed(im, &cs[next]); /* closes its reader */
        else if (done) {
            /* its stream stays open until the slice ends (location_end) */
            events_close(&cs[next]);
            if (idle_stream(&cs[next]) != 0)
                location_failed(im, &cs[next]);
        }
        over[next] = (uint8_t)(over[next] | done | cs[next].failed);
        atomic_store_explicit(&g->frontier[offset + next],
                              over[next] ? UINT64_MAX : cs[next].last_ticks, memory_order_release);
    }
    if (group_tasks_release_before(im, cs[0].group_index, &completed, group_frontier(g)) != 0)
        import_fail(im, "%s", import_last_error());
    pthread_rwlock_unlock(&im->gate);
    for (size_t i = 0; i < count; i++) {
        /* an interrupted slice leaves its frontier where it was: nothing
         * it could still name is released by the others */
        location_end(im, &cs[i]);
    }
    completed_tasks_free(&completed);
    nvtxw_free(cs);
    nvtxw_free(over);
}

int schedule_runs(importer* im) {
    size_t previous = SIZE_MAX;
    im->run_ends = nvtxw_calloc(im->selected_count + 1, sizeof *im->run_ends);
    im->run_next = nvtxw_calloc(im->selected_count + 1, sizeof *im->run_next);
    im->sliced_run = SIZE_MAX;
    if (im->run_ends == NULL || im->run_next == NULL) {
        import_error("out of memory");
        return -1;
    }
    for (size_t i = 0; i < im->selected_count; i++) {
        size_t group = location_group_index(im, def_table_at(&im->defs.locations, im->selected[i]));
        if (group != previous) {
            im->run_next[im->run_count++] = i;
            previous = group;
        }
        im->run_ends[im->run_count - 1] = i + 1;
    }
    return 0;
}

/* A run's first location not taken, for run_location_events. */
typedef struct run_cursor {
    const importer* im;
    size_t first;
} run_cursor;

/* Events of selected[begin...end). */
static uint64_t events_of(const importer* im, size_t begin, size_t end) {
    uint64_t events = 0;
    for (size_t i = begin; i < end; i++)
        events += ((const location_def*)def_table_at(&im->defs.locations, im->selected[i]))->events;
    return events;
}

/* *value = the environment's `name`, a positive integer, else `fallback`.
 * 0, or -1 with the error set. */
static int diagnostic_count(const char* name, size_t fallback, size_t* value) {
    const char* text = getenv(name);
    char* end;
    unsigned long long v;
    *value = fallback;
    if (text == NULL || *text == '\0')
        return 0;
    v = strtoull(text, &end, 10);
    if (*end != '\0' || v == 0 || v > SIZE_MAX || *text == '-') {
        import_error("%s=%s is not a positive integer", name, text);
        return -1;
    }
    *value = (size_t)v;
    return 0;
}

/* In turns: every process whose locations fit the memory budget on at
 * most one slice per worker, when the archive can hold tasks and the
 * library can release them. */
int choose_turns(importer* im) {
    uint64_t chunk = 0, def_chunk = 0, share, idle;
    if (diagnostic_count("NVTXW_OTF2_TURNS_QUEUE_LIMIT", TURNS_QUEUE_LIMIT,
                         &im->turns_queue_limit) != 0 ||
        diagnostic_count("NVTXW_OTF2_TURN_EVENTS", 0, &im->turn_events) != 0)
        return -1;
    if (!im->lazy_tasks || !NVTXW_EXTENSION_HAS(im->ext, ScopeRelease) ||
        !tasks_possible(&im->defs))
        return 0; /* nothing to release early */
    if (OTF2_Reader_GetChunkSize(im->reader, &chunk, &def_chunk) != OTF2_SUCCESS || chunk == 0 ||
        chunk > TURNS_MEMORY_BUDGET)
        chunk = 1u << 20;
    share = TURNS_MEMORY_BUDGET / im->opts.threads;
    im->turns_max_open = (size_t)(share / (2 * chunk + TURNS_STREAM_MEMORY));
    if (im->turns_max_open == 0)
        return 0;
    /* a slice that moves its reader: the reader, the stream being
     * written, and every other stream idle (flushed, when it can be) */
    idle = NVTXW_EXTENSION_HAS(im->ext, StreamFlush) ? TURNS_IDLE_MEMORY : TURNS_STREAM_MEMORY;
    im->turns_max_streams = (size_t)((share - 2 * chunk - TURNS_STREAM_MEMORY) / idle) + 1;
    if (im->turns_max_streams > WINDOW_MAX_LOCATIONS)
        im->turns_max_streams = WINDOW_MAX_LOCATIONS;
    if ((im->run_parts = nvtxw_calloc(im->run_count + 1, sizeof *im->run_parts)) == NULL ||
        (im->run_capacity = nvtxw_calloc(im->run_count + 1, sizeof *im->run_capacity)) == NULL) {
        import_error("out of memory");
        return -1;
    }
    for (size_t r = 0; r < im->run_count; r++) {
        size_t begin = r == 0 ? 0 : im->run_ends[r - 1], length = im->run_ends[r] - begin;
        struct group_tasks* g = &im->group_tasks[location_group_index(
            im, def_table_at(&im->defs.locations, im->selected[begin]))];
        uint64_t events = events_of(im, begin, im->run_ends[r]);
        /* slices with every reader open, else fewer slices that close and
         * reopen readers (a worker per slice either way) */
        im->run_capacity[r] = im->turns_max_open;
        im->run_parts[r] =
            turns_slices(events, im->events_total, length, im->opts.threads, im->turns_max_open);
        if (im->run_parts[r] == 0) {
            im->run_capacity[r] = im->turns_max_streams;
            im->run_parts[r] = turns_slices(events, im->events_total, length, im->opts.threads,
                                            im->turns_max_streams);
        }
        if (im->run_parts[r] == 0)
            continue;
        if ((g->frontier = nvtxw_calloc(length, sizeof *g->frontier)) == NULL) {
            import_error("out of memory");
            return -1;
        }
        g->frontier_count = length;
        for (size_t i = 0; i < length; i++)
            atomic_init(&g->frontier[i], 0);
    }
    return 0;
}

/* Events of the i-th location not taken of a run (ctx: its first). */
static uint64_t run_location_events(const void* ctx, size_t i) {
    const run_cursor* at = ctx;
    return events_of(at->im, at->first + i, at->first + i + 1);
}

/* The next slice of run r in turns (slices.c), from its first location not
 * taken; one slice less left. */
static size_t slice_length(importer* im, size_t r) {
    run_cursor at = {im, im->run_next[r]};
    size_t n = turns_slice_length(run_location_events, &at, im->run_ends[r] - at.first,
                                  im->run_parts[r], im->run_capacity[r]);
    im->run_parts[r]--;
    return n;
}

/* The next locations for a worker whose run is *run (SIZE_MAX: none yet):
 * a slice of a run in turns that was started and has slices left (its
 * other slices may wait for it: wait_for_slices), else the next of its
 * run while it has one, else the first of the next run not started, else
 * the next of the earliest run with locations left; a run in turns is
 * taken a slice at a time (*in_turns). So a run is started only when no
 * started run has a slice left, and a slice waited for is always taken
 * by the next worker to finish. So workers convert
 * different processes while there are enough (no two meet the same tasks
 * at the same moment: with both on one process, 2 workers spent 0.15 s
 * more in futex calls on the 24 M-event benchmark archive), the slices of
 * one process are read at the same time, and a process's tasks are
 * released soon (tasks.c). 0 with selected[*first...] (*count), or -1
 * when every location is taken. */
static int next_locations(importer* im, size_t* run, size_t* first, size_t* count, int* in_turns) {
    int found = 1;
    pthread_mutex_lock(&im->lock);
    if (im->sliced_run != SIZE_MAX)
        *run = im->sliced_run;
    else if (*run != SIZE_MAX && im->run_next[*run] == im->run_ends[*run])
        *run = SIZE_MAX;
    if (*run == SIZE_MAX) {
        if (im->runs_started < im->run_count) {
            *run = im->runs_started++;
        } else {
            while (im->runs_done_before < im->run_count &&
                   im->run_next[im->runs_done_before] == im->run_ends[im->runs_done_before])
                im->runs_done_before++;
            *run = im->runs_done_before;
            found = *run < im->run_count;
        }
    }
    if (found) {
        *in_turns = im->run_parts != NULL && im->run_parts[*run] > 0;
        *first = im->run_next[*run];
        *count = *in_turns ? slice_length(im, *run) : 1;
        im->run_next[*run] += *count;
        im->sliced_run = *in_turns && im->run_parts[*run] > 0 ? *run : SIZE_MAX;
    }
    pthread_mutex_unlock(&im->lock);
    return found ? 0 : -1;
}

void* location_worker(void* arg) {
    importer* im = arg;
    OTF2_EvtReaderCallbacks* cb = OTF2_EvtReaderCallbacks_New();
    if (cb == NULL) {
        import_fail(im, "out of memory");
        return NULL;
    }
    ev_region_set(cb);
    ev_mpi_set(cb);
    ev_thread_set(cb);
    ev_misc_set(cb);
    ev_metric_set(cb);
    for (size_t run = SIZE_MAX, first, count;;) {
        int in_turns = 0;
        if ((atomic_load(&im->failed) && !im->opts.keep_going) ||
            next_locations(im, &run, &first, &count, &in_turns) != 0)
            break;
        if (in_turns)
            convert_in_turns(im, run, first, count, cb);
        else
            convert_location(im, im->selected[first], cb);
    }
    OTF2_EvtReaderCallbacks_Delete(cb);
    return NULL;
}
