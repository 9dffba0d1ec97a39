/*
 * tools/otf2-import/otf2_import.h - internals of nvtxw-otf2-import.
 *
 * The importer is a producer like any other: it reads an OTF2 archive with
 * OTF2's reader and calls the NVTXW v2 function table (docs/otf2-mapping.md
 * is the mapping). Shape of a run (import.c):
 *   1. global definitions into the tables below (defs*.c); their size grows
 *      with the definitions, never with the events;
 *   2. every registration up front (register.c): domain, categories,
 *      strings, schemas (schemas/otf2-events.yaml, embedded), scopes,
 *      counters, time domains;
 *   3. tasks (tasks.c): with several workers a prescan registers them all
 *      before the conversion; one worker registers them at first sight;
 *   4. worker threads take locations one at a time, or a whole process
 *      whose locations they read in turns by time (worker.c, location.c):
 *      local definitions first (mapping tables, clock offsets: OTF2 applies
 *      them to the events), then the events, streamed into the location's
 *      stream (ev_*.c); per-location state is bounded by the nesting depth
 *      and the open requests, not by the number of events.
 * NVTXW producers must not overlap registration or lifecycle calls with
 * writes (ABI spec 6): StreamOpen/StreamClose take importer.gate for
 * writing, workers hold it for reading while they write and yield it every
 * 4096 events; with several workers nothing else is registered while they
 * run (one worker registers its tasks itself: no other thread writes).
 */
#ifndef NVTXW_OTF2_IMPORT_H
#define NVTXW_OTF2_IMPORT_H

#include <otf2/otf2.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "nvtxw/nvtxw.h"

#define TOOL "nvtxw-otf2-import"

/* Static IDs (docs/otf2-mapping.md, IDs). */
#define IMPORT_SCOPE_NODE_BASE 0x10000000u     /* + system tree node index */
#define IMPORT_SCOPE_GROUP_BASE 0x20000000u    /* + location group index */
#define IMPORT_SCOPE_LOCATION_BASE 0x30000000u /* + location index */
#define IMPORT_SCOPE_INDEX_LIMIT 0x10000000u
#define IMPORT_COUNTER_BASE 0x10000000u
#define IMPORT_COUNTER_LIMIT 0xEFFFFFFFu
#define IMPORT_TIME_DOMAIN_NS 0x10000000u
#define IMPORT_TIME_DOMAIN_TICKS 0x10000001u
#define IMPORT_ATTRIBUTE_SCHEMA_BASE 0x4F550000u /* + attribute index */
#define IMPORT_ATTRIBUTE_LIMIT 0x00100000u
#define IMPORT_DOMAIN_NAME "otf2"

/* ---- id_index: OTF2 definition ID -> dense index ------------------------ */

/* Open addressing; keys are the archive's 64-bit (or 32-bit) IDs. */
typedef struct id_index {
    uint64_t* keys;
    uint32_t* values; /* index + 1; 0 = empty slot */
    size_t capacity;  /* power of two */
    size_t count;
} id_index;

/* 0, or -1 when out of memory; a second put of a key returns 1 (duplicate). */
int id_index_put(id_index* index, uint64_t key, uint32_t value);
/* 1 and *value when the key is present, else 0. */
int id_index_get(const id_index* index, uint64_t key, uint32_t* value);
void id_index_free(id_index* index);

/* A growable array of fixed-size records with an ID index. */
typedef struct def_table {
    id_index index;
    char* items;
    uint64_t* ids; /* the ID of each record */
    size_t item_size;
    size_t count, capacity;
    const char* what; /* "region", ... for messages */
} def_table;

void def_table_init(def_table* table, size_t item_size, const char* what);
/* Appends a zeroed record for `id`; NULL when out of memory or a duplicate
 * (the error is set: "duplicate region definition 5"). */
void* def_table_add(def_table* table, uint64_t id);
/* The record of `id`, or NULL. */
void* def_table_find(const def_table* table, uint64_t id, uint32_t* index_out);
void* def_table_at(const def_table* table, size_t index);
void def_table_free(def_table* table);

/* ---- global definitions ------------------------------------------------- */

typedef struct string_def {
    char* text;
    nvtxStringHandle_t handle;
} string_def;

typedef struct region_def {
    uint32_t name;      /* string id: the name, or the canonical name when it is empty */
    uint32_t canonical; /* string id */
    uint32_t category;
    uint8_t paradigm, role;
    nvtxStringHandle_t handle; /* of the name */
    const char* text;
} region_def;

typedef struct node_def { /* system tree node */
    uint32_t name, class_name, parent;
} node_def;

typedef struct group_def { /* location group */
    uint32_t name, parent_node;
    uint8_t type;
    int64_t world_rank; /* -1 unless an MPI process */
} group_def;

typedef struct location_def {
    uint64_t id;
    uint32_t name, group;
    uint8_t type;
    uint64_t events; /* declared */
    char* stream_name;
    size_t index;
    int local_defs_read; /* by the task prescan (its worker, before the conversion) */
} location_def;

typedef struct members_def { /* Group definition */
    uint8_t type, paradigm;
    uint32_t count;
    uint64_t* members;
} members_def;

typedef struct comm_def {
    uint32_t name, group, parent;
    int inter; /* InterComm: the remote side is not translated */
} comm_def;

typedef struct member_def { /* MetricMember */
    uint32_t name, description, unit;
    uint8_t metric_type, mode, value_type, base;
    int64_t exponent;
} member_def;

typedef struct metric_def { /* MetricClass or MetricInstance */
    int instance;
    uint32_t class_id; /* instance: its class */
    uint32_t count;
    uint32_t* members; /* member ids (class) */
    uint8_t* value_types;
    uint64_t counter_base; /* counter of member i = counter_base + i */
    uint64_t recorder;     /* instance */
    uint8_t scope_type;
    uint64_t scope;
} metric_def;

typedef struct attribute_def {
    uint32_t name;
    uint8_t type;
    uint64_t schema;
} attribute_def;

typedef struct parameter_def {
    uint32_t name;
    uint8_t type;
} parameter_def;

typedef struct named_def { /* RMA window, I/O handle, interrupt generator, paradigm */
    uint32_t name;
    uint32_t link; /* window: comm; others unused */
} named_def;

typedef struct context_def { /* calling context */
    uint32_t region, parent;
} context_def;

typedef struct otf2_defs {
    def_table strings, regions, nodes, groups, locations, member_groups, comms, members, metrics,
        attributes, parameters, windows, io_handles, io_files, generators, contexts, paradigms;
    uint64_t timer_resolution, global_offset, trace_length;
    uint64_t resolution_inverse; /* UINT64_MAX / timer_resolution: import_clock_set */
    int has_clock;
    uint32_t mpi_locations; /* Group index of the MPI COMM_LOCATIONS group + 1, 0 = none */
} otf2_defs;

/* The calling thread's last error message (import_error sets it). */
void import_error(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
const char* import_last_error(void);
/* A file of the archive, for messages: the anchor path without ".otf2"
 * plus `suffix` (".def", "/3.evt"): where OTF2's POSIX substrate keeps it. */
void import_archive_file(const char* archive, const char* suffix, char* out, size_t size);
/* OTF2's own error messages: captured instead of printed (installed once),
 * reset before a read, and the first one since (else `code`'s description). */
void import_otf2_errors_install(void);
void import_otf2_error_reset(void);
const char* import_otf2_error(OTF2_ErrorCode code);

/* Reads the archive's global definitions into `defs` and checks every
 * reference between them (defs_check). 0, or -1 with the message set
 * ("corrupt definitions: ..."). */
int defs_read(OTF2_Reader* reader, otf2_defs* defs, const char* archive);
int defs_check(otf2_defs* defs);
void defs_free(otf2_defs* defs);
/* Text of a string definition ("" for OTF2_UNDEFINED_STRING). */
const char* defs_string(const otf2_defs* defs, uint32_t id);
/* World rank of a rank in a communicator; -1 when it cannot be translated. */
int64_t defs_world_rank(const otf2_defs* defs, uint32_t comm, uint32_t rank);
const char* defs_paradigm_name(unsigned paradigm);
const char* defs_role_name(unsigned role);

/* ---- event schema layouts (layout.c) ------------------------------------- */

typedef enum event_schema {
    ES_ENTER,
    ES_LEAVE,
    ES_MPI_MESSAGE,
    ES_MPI_REQUEST,
    ES_MPI_COLLECTIVE,
    ES_MPI_COLLECTIVE_COMPLETE,
    ES_COMMUNICATOR,
    ES_RMA_WINDOW,
    ES_RMA_COLLECTIVE,
    ES_RMA_GROUP_SYNC,
    ES_RMA_LOCK,
    ES_RMA_SYNC,
    ES_RMA_TRANSFER,
    ES_RMA_ATOMIC,
    ES_RMA_OPERATION,
    ES_THREAD_FORK,
    ES_THREAD_JOIN,
    ES_THREAD_TEAM,
    ES_THREAD_LOCK,
    ES_THREAD_CONTINGENT,
    ES_TASK,
    ES_TASK_SLICE,
    ES_PROGRAM_BEGIN,
    ES_PROGRAM_END,
    ES_MEASUREMENT_OFF,
    ES_BUFFER_FLUSH,
    ES_PARAMETER_INT,
    ES_PARAMETER_UNSIGNED,
    ES_PARAMETER_STRING,
    ES_CALLING_CONTEXT_ENTER,
    ES_CALLING_CONTEXT_SAMPLE,
    ES_IO_HANDLE,
    ES_IO_SEEK,
    ES_IO_DELETE_FILE,
    ES_IO_OPERATION,
    ES_IO_OPERATION_EVENT,
    ES_IO_LOCK,
    ES_COUNT
} event_schema;

#define LAYOUT_MAX_ENTRIES 16

/* Where each entry of an event schema lives in its payload. */
typedef struct schema_layout {
    uint64_t id;
    size_t size;          /* static size, or the fixed part before an inline string */
    size_t count;         /* fixed-size entries */
    size_t string_offset; /* 0, or where a trailing inline string starts */
    uint16_t offsets[LAYOUT_MAX_ENTRIES];
    uint8_t sizes[LAYOUT_MAX_ENTRIES];
} schema_layout;

/* The embedded schemas/otf2-events.yaml, loaded into a registry. */
typedef struct layouts {
    nvtxw_schema_registry_t* registry;
    schema_layout schema[ES_COUNT];
} layouts;

nvtxwResultCode_t layouts_load(layouts* out);
void layouts_free(layouts* l);
/* Stores `count` values (entry order; integers and handles as their 64-bit
 * patterns) into `buf` (layout->size bytes, zeroed first). */
void layout_fill(const schema_layout* layout, void* buf, const uint64_t* values, size_t count);

/* ---- the run -------------------------------------------------------------- */

typedef struct import_options {
    const char* archive;
    const char* config; /* session configString */
    unsigned threads;
    unsigned part, parts;  /* 1-based part of `parts` */
    const char* locations; /* --locations list, or NULL */
    int keep_going;
    int progress;                /* draw a progress line on stderr */
    const char* progress_output; /* its "written": files named so*, or NULL */
    const nvtxwInterface_t* iface;
    /* The same library's extension table (nvtxw/extension.h), or NULL:
     * with ScopeRelease, a task is released once nothing can name it (its
     * group converted, or read in turns past its completion: tasks.c). */
    const nvtxwExtensionInterface_t* ext;
    /* The session's sink takes registrations while other threads write
     * (libnvtxw's own sinks, docs/threading.md; not Backend=, which follows
     * NVTXW's rule): tasks are then registered at first sight on any number
     * of workers, without the prescan (tasks.c). */
    int registrations_during_writes;
    /* --mpi: this rank's share (nvtxw/share.h), NULL in one process. The
     * ranks convert disjoint shares of the locations, balanced by their
     * event counts, into one report: every rank makes the same
     * registrations (all locations' streams opened up front, the tasks
     * every rank's prescan found), and fails when any rank fails. */
    const nvtxwShare_t* share;
} import_options;

typedef enum event_kind {
#define IMPORT_EVENT_KIND(name) EK_##name,
#include "event_kinds.inc"
#undef IMPORT_EVENT_KIND
    EK_COUNT
} event_kind;

/* Names of events that are not one OTF2 record (ranges built from two). */
enum extra_name {
    NAME_TASK_SLICE = EK_COUNT,
    NAME_MPI_COLLECTIVE,
    NAME_RMA_COLLECTIVE,
    NAME_MEASUREMENT_OFF,
    NAME_IO_OPERATION,
    NAME_THREAD_TEAM,
    NAME_COUNT
};

/* The name of an event kind or extra name ("MpiSend", "TaskSlice"). */
const char* event_name(int kind);

typedef struct task_key {
    uint32_t team;
    uint64_t creator;
    uint64_t generation;
} task_key;

/* Tasks completed on the locations a worker reads in turns, waiting for
 * every location of their group to read past their completion (tasks.c). */
typedef struct completed_tasks {
    struct completed_task {
        task_key key;
        uint64_t ticks;
    } * items;
    size_t count, capacity;
} completed_tasks;

/* Locks of a location group's lazily registered tasks (tasks.c). */
#define IMPORT_TASK_STRIPES 16

/* A set of tasks, each with a 64-bit value (tasks.c): an open-addressing
 * table of positions into dense key and value arrays. */
typedef struct task_set {
    uint32_t* slots;   /* position + 1, 0 = empty */
    size_t slot_count; /* a power of two, or 0 */
    task_key* keys;
    uint64_t* values;
    size_t count, capacity;
} task_set;

/* task_set.c. A hash of the key (well mixed in every bit). */
uint64_t task_key_hash(const task_key* key);
/* The key of a ThreadTask* record, and of an OmpTask* record of a process. */
task_key thread_task_key(uint32_t team, uint32_t creator, uint32_t generation);
task_key omp_task_key(size_t group_index, uint64_t id);
/* 0 added, 0 already there (value kept), -1 out of memory. */
int task_set_add(task_set* set, const task_key* key, uint64_t value);
/* 1 and the position when present. */
int task_set_find(const task_set* set, const task_key* key, size_t* index);
/* 1 when `key` was there and is removed (positions of others may change),
 * its value into *value unless NULL; 0 when absent. */
int task_set_remove(task_set* set, const task_key* key, uint64_t* value);
void task_set_free(task_set* set);

typedef struct importer {
    import_options opts;
    OTF2_Reader* reader;
    otf2_defs defs;
    layouts layouts;
    const nvtxwInterface_t* t;
    nvtxwSessionHandle_t session;
    nvtxDomainHandle_t domain;
    nvtxStringHandle_t names[NAME_COUNT]; /* "otf2:MpiSend" ... */
    nvtxStringHandle_t empty;
    uint32_t paradigm_category[256];
    size_t* selected; /* location indexes of this run */
    size_t selected_count;
    /* --mpi: every listed location's stream, by location index (NULL for
     * those not listed), opened by every rank before the workers start */
    nvtxwStreamHandle_t* shared_streams;
    pthread_mutex_t lock; /* the first failure, --keep-going counts, the prescan's task set */
    /* Workers hold `gate` for reading while they write events and take it
     * for writing around StreamOpen/StreamClose: NVTXW producers must not
     * overlap lifecycle calls with writes (ABI spec 6). */
    pthread_rwlock_t gate;
    int prescanned; /* the task prescan ran */
    int lazy_tasks; /* tasks are registered at first sight (tasks.c) */
    task_set found; /* tasks the prescan found (under `lock`) -> parent scope */
    /* lazy_tasks: per location group (by index), the group's selected
     * locations not yet converted and, while one is being converted, its
     * tasks registered -> scope in stripes by key hash, each under its own
     * lock; at 0 the group's task scopes are released (tasks.c). Both
     * fields under `lock`. */
    struct group_tasks {
        size_t locations_left;
        struct task_stripe {
            pthread_mutex_t lock;
            task_set found;
        } * stripes; /* IMPORT_TASK_STRIPES, or NULL */
        /* Converted in turns (worker.c), by one worker or by several
         * each reading a slice of the group's locations: per location of
         * the group's run, the time before which it has converted every
         * event (0 before it starts, UINT64_MAX once over), published
         * after each turn. A task completed before all of them is
         * released. NULL when not in turns. */
        _Atomic uint64_t* frontier;
        size_t frontier_count;
    } * group_tasks;
    size_t group_task_count;
    const nvtxwExtensionInterface_t* ext; /* opts.ext: ScopeRelease, or NULL */
    task_key* task_keys;                  /* then: every task, sorted, read-only while converting */
    uint64_t* task_scopes;                /* ... and its scope */
    size_t task_count;
    atomic_size_t next_location; /* the prescan's */
    /* The conversion's schedule (worker.c): `selected` holds the locations
     * in runs of one group each; run r ends before run_ends[r], and
     * run_next[r] is its first location not yet taken. Under `lock`. */
    size_t *run_ends, *run_next;
    size_t run_count, runs_started, runs_done_before; /* runs before it have none left */
    /* run_parts[r]: run r is converted in turns (worker.c: choose_turns),
     * its locations read together by time, in this many slices not yet
     * taken, one worker each; 0 for location by location. NULL for no run
     * in turns. run_capacity[r]: the most locations a slice of run r
     * holds (turns_max_open, or turns_max_streams when its slices close
     * and reopen readers). turns_max_open: the locations a worker may hold
     * open; turns_max_streams: the streams it may hold with one reader
     * open (worker.c: turns_readers). */
    size_t *run_parts, *run_capacity;
    size_t turns_max_open, turns_max_streams;
    size_t turns_queue_limit; /* completions a slice ahead holds before it waits */
    size_t turn_events;       /* events of a turn, 0 for worker.c's choice */
    /* The run started in turns whose slices are not all taken (at most
     * one: no run starts while one has a slice left), or SIZE_MAX. */
    size_t sliced_run;
    atomic_uint_fast64_t events_done;
    atomic_uint_fast64_t skipped[EK_COUNT + 1]; /* + attribute lists without a payload */
    atomic_int failed;
    char error[1024];                             /* first failure; set under `lock` */
    uint64_t incomplete_locations, unread_events; /* --keep-going */
    atomic_uint_fast64_t unfinished;              /* begins whose end never came */
    atomic_uint_fast64_t scopeless_tasks;         /* task events without a scope */
    atomic_uint_fast64_t unclosed;                /* pushes still open at a location's end */
    uint64_t events_total;                        /* declared events of the selected locations */
} importer;

/* Runs the whole import; 0 success, 1 failure (message in im->error). */
int import_run(importer* im);

/* worker.c: opens location `index`'s stream (holding the gate). 0, or -1
 * with the error set. */
int import_open_stream(importer* im, size_t index, nvtxwStreamHandle_t* stream);

/* mpi_split.c (--mpi): which rank converts each of the `count` locations
 * whose event counts are `events`: the largest first, each to the rank
 * with the fewest events so far (ties: the lowest rank), so the ranks'
 * events differ by at most one location's. owner[i] for location i. 0, or
 * -1 when out of memory. */
int import_split_locations(const uint64_t* events, size_t count, uint32_t ranks, uint32_t* owner);

/* tasks.c (--mpi): every rank's prescan findings on every rank, so that
 * all register the same tasks. Collective; `status` is this rank's so
 * far (0 or -1): when any rank failed, every rank returns -1. */
int exchange_tasks(importer* im, int status);

/* register.c: every registration before the workers start. */
nvtxwResultCode_t register_all(importer* im);
nvtxwResultCode_t register_scopes(importer* im);
nvtxwResultCode_t register_counters(importer* im);
uint32_t import_category(unsigned paradigm, int role);
uint64_t import_attribute_entry_type(uint8_t otf2_type);
/* tasks.c: the task prescan (a worker loop like location_worker), whether
 * an archive needs it, and the registration of what it found. */
void* prescan_worker(void* importer_arg);
int tasks_possible(const otf2_defs* defs);
nvtxwResultCode_t register_tasks(importer* im);
/* The scope of a task met on a location of group `group_index`: registered
 * now below the group's process scope when tasks are lazy, else from the
 * prescan's table (NVTX_SCOPE_NONE when it did not see the task). 0, or -1
 * with the error set. */
int task_scope_of(importer* im, size_t group_index, const task_key* key, uint64_t* scope);
/* lazy_tasks: the per-group task maps, sized by the selected locations of
 * each group. 0, or -1 with the error set. */
int group_tasks_init(importer* im);
/* A location of group `group_index` begins: the group's task map exists
 * from then on. 0, or -1 with the error set. */
int group_tasks_location_begin(importer* im, size_t group_index);
/* A location of group `group_index` is converted (or failed): after the
 * group's last one, its task scopes are released (when the library has
 * ScopeRelease) and its map freed. 0, or -1 with the error set. */
int group_tasks_location_done(importer* im, size_t group_index);
void group_tasks_free(importer* im);
/* Adds a task completed at `ticks` to a worker's queue (a group converted
 * in turns): it is released once the group is past that time
 * (group_tasks_release_before). 0, or -1 with the error set. */
int completed_tasks_add(completed_tasks* queue, const task_key* key, uint64_t ticks);
void completed_tasks_free(completed_tasks* queue);
/* Releases the tasks of `queue` (of group `group_index`) completed before
 * `ticks`, a time every location of the group has read past. 0, or -1
 * with the error set. */
int group_tasks_release_before(importer* im, size_t group_index, completed_tasks* queue,
                               uint64_t ticks);
/* Decides which runs are converted in turns (after the task mode is
 * known). 0, or -1 with the error set. */
int choose_turns(importer* im);
/* slices.c. The slices a process of `length` locations and `events`
 * events (of `events_total` in all) is cut into to be read in turns: one
 * per worker's share of the events it holds (one worker alone on a
 * process of more would leave the others idle), at most one per worker
 * and per location, and enough that none holds more than `max_open`
 * locations open; 0 when that takes more slices than `threads` (the
 * process is then converted location by location). */
size_t turns_slices(uint64_t events, uint64_t events_total, size_t length, size_t threads,
                    size_t max_open);
/* The locations of the next slice of a process with `left` locations not
 * taken (events_at(ctx, 0...left-1) events each) and `slices` slices
 * left: about its events divided by the slices, at most `max_open`, and
 * enough left for each other slice to have one and none more than
 * `max_open`. So when left <= slices x max_open holds (turns_slices makes
 * it hold), it holds again for the rest with one slice less, and the last
 * slice takes what is left. */
size_t turns_slice_length(uint64_t (*events_at)(const void* ctx, size_t i), const void* ctx,
                          size_t left, size_t slices, size_t max_open);
/* worker.c: cuts `selected` (sorted group by group) into runs. 0, or -1
 * with the error set. */
int schedule_runs(importer* im);
/* The location group index of location `loc` (0 when its group is not
 * defined). */
size_t location_group_index(const importer* im, const location_def* loc);

/* location.c: the worker loop. */
void* location_worker(void* importer_arg);
/* Records the first failure; later ones are dropped. */
void import_fail(importer* im, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

/* ticks.c. Sets the archive's clock; `resolution` is not 0. */
void import_clock_set(otf2_defs* defs, uint64_t resolution, uint64_t offset);
/* Converts corrected OTF2 ticks to nanoseconds since the global offset:
 * floor((ticks - offset) * 1e9 / resolution), exact. 0, or -1 when the
 * result does not fit an int64_t. */
int import_ticks_to_ns(const otf2_defs* defs, uint64_t ticks, int64_t* ns);

/* ---- per-location state (location.c, ev_*.c) ----------------------------- */

enum open_kind { OPEN_REGION, OPEN_CONTEXT, OPEN_TEAM };

typedef struct open_range { /* a push waiting for its pop */
    uint8_t kind;
    uint64_t id;
} open_range;

typedef struct seq_entry { /* message ends so far per (comm, sender, receiver, tag, end) */
    uint32_t comm, tag;
    int64_t sender, receiver;
    uint64_t count;
    uint8_t send; /* sends and receives count apart: a rank may send to itself */
    uint8_t used;
} seq_entry;

typedef struct pending_op { /* an operation whose end is still to come */
    uint64_t key1, key2;
    int64_t begin;
    uint64_t a, b, c; /* fields known at the begin */
} pending_op;

typedef struct pending_list {
    pending_op* items;
    size_t count, capacity;
} pending_list;

typedef struct loc_ctx {
    importer* im;
    const location_def* loc;
    size_t index;       /* of the location */
    size_t group_index; /* of its location group */
    nvtxwStreamHandle_t stream;
    OTF2_EvtReader* events; /* while its events are read */
    /* OTF2's position of the last event read when its reader was closed
     * to let another location's open (read in turns), else 0 */
    uint64_t resume_position;
    int local_defs_read;   /* by this context (else by the prescan: loc->local_defs_read) */
    int64_t world_rank;    /* -1 unless an MPI process */
    uint64_t event_number; /* events read so far: the current one's number */
    uint64_t last_ticks;
    int64_t now, last_ns;           /* the current event's time in ns */
    uint64_t unreported;            /* events not yet added to im->events_done */
    uint64_t skipped[EK_COUNT + 1]; /* + attribute lists on counter samples */
    int failed;
    open_range* stack;
    size_t depth, stack_capacity;
    seq_entry* seqs;
    size_t seq_count, seq_capacity;
    pending_list collectives, rma_collectives, io_ops;
    uint64_t scopeless_tasks;   /* task events without a registered scope */
    completed_tasks* completed; /* read in turns: the worker's queue, else NULL */
    int measurement_off;
    int64_t off_begin;
    int task_active;
    task_key task;
    uint64_t task_scope;
    int64_t task_begin;
    nvtxPayloadData_t* payloads; /* event + attribute payloads */
    uint64_t* attribute_values;
    size_t payload_capacity;
} loc_ctx;

/* Fails the location: "location L (stream), event #N (Kind): <message>".
 * Returns OTF2_CALLBACK_INTERRUPT for the callback to return. */
OTF2_CallbackCode ev_fail(loc_ctx* c, event_kind kind, const char* fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Common start of every callback: counts the event, checks that time does
 * not go backwards, sets c->now. OTF2_CALLBACK_SUCCESS to go on. */
OTF2_CallbackCode ev_begin(loc_ctx* c, event_kind kind, OTF2_TimeStamp time);
/* Writes one event of schema `es` with `values` (entry order), plus one
 * payload per attribute of `attributes`. */
OTF2_CallbackCode ev_write(loc_ctx* c, event_kind kind, event_schema es, const uint64_t* values,
                           size_t count, OTF2_AttributeList* attributes);
/* Writes a prepared payload (Enter/Leave fast path) plus attributes;
 * ev_write_sized for payloads longer than the schema's fixed part. */
OTF2_CallbackCode ev_write_raw(loc_ctx* c, event_kind kind, event_schema es, const void* data,
                               OTF2_AttributeList* attributes);
OTF2_CallbackCode ev_write_sized(loc_ctx* c, event_kind kind, event_schema es, const void* data,
                                 size_t size, OTF2_AttributeList* attributes);
/* The registered string of a string definition (the empty one if unknown). */
uint64_t ev_string(const loc_ctx* c, uint32_t string_id);
/* The registered name of a named_def record (RMA window, I/O handle...) of
 * `table`; 0 with the location failed ("unknown RMA window 7") if `id` is
 * not defined. */
uint64_t ev_named(loc_ctx* c, event_kind kind, const def_table* table, uint64_t id);
/* Pending operations keyed by two IDs. */
int pending_push(pending_list* list, const pending_op* op);
int pending_take(pending_list* list, uint64_t key1, uint64_t key2, pending_op* out);
/* The range stack: push, and pop of the innermost range, which must be
 * (kind, id) (writes the otf2_leave pop). */
int stack_push(loc_ctx* c, uint8_t kind, uint64_t id);
OTF2_CallbackCode ev_pop(loc_ctx* c, event_kind k, uint8_t kind, uint64_t id,
                         OTF2_AttributeList* attributes);

/* The callbacks, by family (ev_region.c, ev_mpi.c, ev_thread.c, ev_misc.c,
 * ev_metric.c); each sets its records' callbacks. */
void ev_region_set(OTF2_EvtReaderCallbacks* cb);
void ev_mpi_set(OTF2_EvtReaderCallbacks* cb);
void ev_thread_set(OTF2_EvtReaderCallbacks* cb);
void ev_misc_set(OTF2_EvtReaderCallbacks* cb);
void ev_metric_set(OTF2_EvtReaderCallbacks* cb);
void ev_io_set(OTF2_EvtReaderCallbacks* cb);
/* Ends what is still open when the location's events are over (task slice,
 * measurement gap). */
OTF2_CallbackCode ev_thread_finish(loc_ctx* c);
OTF2_CallbackCode ev_misc_finish(loc_ctx* c);

#endif /* NVTXW_OTF2_IMPORT_H */
