/*
 * tools/record/rec_internal.h - the NVTX injection library's state
 * (libnvtxw-inject.so, docs/record.md): one NVTXW session per process,
 * written through libnvtxw's own function table.
 *
 *   rec_inject.c   InitializeInjectionNvtx2: fills NVTX's callback tables
 *   rec_session.c  the session: config from the environment, domains,
 *                  per-thread streams, the end at exit, the misuse counts
 *   rec_events.c   the NVTX calls: marks, ranges, names, the payload
 *                  extension
 *   rec_counters.c the counters extension
 *   rec_sync.c     the sync module: user sync objects as ranges
 *   rec_clock.c    timestamps: CLOCK_MONOTONIC, read from the TSC where
 *                  that is exact
 *
 * Threads: every recorded thread writes its own streams (one per NVTX
 * domain it uses, opened at its first event there), so the write path
 * takes no lock; registrations and stream opens take `lock` (NVTXW lets
 * one thread at a time open streams). The domain table never moves: a
 * domain handle given to the program is its index, read without a lock.
 */
#ifndef NVTXW_TOOLS_RECORD_REC_INTERNAL_H
#define NVTXW_TOOLS_RECORD_REC_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include <wchar.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define REC_HAVE_TSC 1
#endif

#include "nvtx_inject_abi.h"
#include "nvtxw/abi.h"
#include "nvtxw/helper_types.h"

/* Domains a process may create (nvtxDomainCreate); later ones are refused
 * and their events go uncounted into the misuse summary. */
#define REC_MAX_DOMAINS 4096

typedef struct rec_domain {
    nvtxDomainHandle_t handle; /* NVTXW's */
    nvtxwEventHelperSchemaIds_t ids;
    uint64_t value_schema[REC_NVTX_PAYLOAD_TYPES]; /* one field "payload" of each type */
    uint64_t time_domain;                          /* CLOCK_MONOTONIC */
    uint64_t process_scope;                        /* "COMM[PID]" */
    uint64_t sync_schema; /* "nvtx sync" (rec_sync.c), 0 until needed (under lock) */
    char* name;           /* NULL: NVTX's default domain */
    uint32_t index;
} rec_domain;

/* A thread's stream in one domain. */
typedef struct rec_stream {
    nvtxwEventWriter_t writer; /* writer.stream NULL: not open */
    int64_t depth;             /* pushes not popped yet */
    int failed;                /* could not be opened: the events are dropped */
} rec_stream;

typedef struct rec_thread {
    pid_t tid;
    uint32_t index; /* order of the threads' first events, from 0 */
    uint64_t ranges_started;
    /* the thread's TSC line (rec_clock.c): its value at base_tsc, and
     * its slope in ns per tick times 2^32 (0: none yet) */
    uint64_t base_tsc;
    int64_t base_ns;
    uint64_t tick_mult;
    uint64_t next_sync;  /* TSC of its next point */
    int64_t last_ns;     /* its latest timestamp: they never go back */
    rec_stream* streams; /* by domain index */
    uint32_t stream_capacity;
} rec_thread;

/* What the program did that could not be recorded, reported at exit. */
enum {
    REC_MISUSE_POP_WITHOUT_PUSH,
    REC_MISUSE_UNKNOWN_RANGE,
    REC_MISUSE_UNKNOWN_DOMAIN,
    REC_MISUSE_BAD_ATTRIBUTES,
    REC_MISUSE_REFUSED,       /* a write libnvtxw refused (its first message is kept) */
    REC_MISUSE_NO_STREAM,     /* a thread's stream could not be opened */
    REC_MISUSE_STOPPED,       /* calls after a write failed (disk full): recording stopped */
    REC_MISUSE_COUNTER_VALUE, /* a value its counter's type cannot hold */
    REC_MISUSE_UNKNOWN_SYNC,  /* a sync object handle this library did not hand out */
    REC_MISUSE_SYNC_ORDER,    /* a sync release with no hold to end */
    REC_MISUSE_KINDS
};

typedef struct rec_state {
    pthread_mutex_t lock; /* registrations, stream opens, the end */
    const nvtxwInterface_t* iface;
    nvtxwSessionHandle_t session;
    _Atomic int active;  /* events are recorded */
    _Atomic int stopped; /* a write failed: the rest of the run is not recorded */
    pid_t pid;
    char process[64];                             /* the program's name (comm) */
    rec_domain* _Atomic domains[REC_MAX_DOMAINS]; /* [0]: the default domain */
    _Atomic uint32_t domain_count;
    _Atomic uint32_t thread_count;
    _Atomic uint64_t misuse[REC_MISUSE_KINDS];
    char first_refusal[512]; /* under lock */
    char output[4096];       /* where the report goes */
} rec_state;

extern rec_state rec;

/* rec_session.c */
/* Begins the session from the environment (docs/record.md); 0, or -1 with
 * a message on stderr (nothing is recorded then). */
int rec_session_begin(void);
/* Ends the session once (at exit): the report is written; prints what
 * could not be recorded. Safe to call again. */
void rec_session_end(void);
/* The domain of a handle the program passes (NULL: the default domain);
 * NULL, counted as misuse, for one this library did not hand out. */
rec_domain* rec_domain_of(nvtxDomainHandle_t handle);
/* nvtxDomainCreate: the handle of the domain of that name (the same one for
 * a name given again); NULL when none can be made. */
nvtxDomainHandle_t rec_domain_create(const char* name);
/* rec_stream_of's way when the stream is not open yet, or nothing is
 * recorded: the same contract. */
rec_stream* rec_stream_open(rec_domain* domain, rec_thread** thread);
/* The calling thread's rec_thread (pthread_getspecific), NULL before its
 * first event. */
extern pthread_key_t rec_thread_key;

/* The calling thread's stream in `domain`, opened at its first use, and
 * the thread in *thread; NULL when nothing is recorded (no session, the
 * recording stopped, or the stream cannot be opened). */
static inline rec_stream* rec_stream_of(rec_domain* domain, rec_thread** thread) {
    rec_thread* t;
    if (!atomic_load_explicit(&rec.active, memory_order_relaxed) ||
        atomic_load_explicit(&rec.stopped, memory_order_relaxed) ||
        (t = pthread_getspecific(rec_thread_key)) == NULL || domain->index >= t->stream_capacity ||
        t->streams[domain->index].writer.stream == NULL)
        return rec_stream_open(domain, thread);
    *thread = t;
    return &t->streams[domain->index];
}
/* The calling thread's state; NULL when out of memory. */
rec_thread* rec_thread_self(void);
/* nvtxNameOsThread: the name of the streams of thread `tid` opened later. */
void rec_thread_name(uint32_t tid, const char* name);
void rec_misuse(int kind);
/* A call libnvtxw refused with `status`: counted, its first message kept.
 * A failure other than a refused argument (the output cannot be written)
 * stops the recording: the program goes on, later calls cost a branch. */
void rec_refused(nvtxwResultCode_t status);

/* rec_clock.c; the two calls of every event are inline here (so the
 * library's files define _GNU_SOURCE first: clock_gettime). */
/* Chooses the clock (NVTXW_RECORD_CLOCK, the TSC's and the kernel's
 * clocksource) and calibrates it: "tsc" or "monotonic". Before any event. */
const char* rec_clock_init(void);
extern int rec_clock_tsc; /* 1: timestamps from the TSC */
/* A new point of thread t's TSC line. */
void rec_clock_resync(rec_thread* t);

/* The clock as read at the call: TSC ticks or CLOCK_MONOTONIC ns. */
static inline uint64_t rec_clock_raw(void) {
    struct timespec ts;
#ifdef REC_HAVE_TSC
    if (rec_clock_tsc)
        return __rdtsc();
#endif
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* `raw` as CLOCK_MONOTONIC nanoseconds on thread `t` (never before its
 * previous timestamp when read from the TSC). */
static inline int64_t rec_clock_ns(rec_thread* t, uint64_t raw) {
    int64_t ns;
    if (!rec_clock_tsc)
        return (int64_t)raw;
    if (t->tick_mult == 0 || raw >= t->next_sync)
        rec_clock_resync(t);
    ns = t->base_ns +
         (int64_t)(((__int128)(int64_t)(raw - t->base_tsc) * (__int128)t->tick_mult) >> 32);
    if (ns < t->last_ns)
        ns = t->last_ns;
    t->last_ns = ns;
    return ns;
}

/* rec_events.c */
/* UTF-8 of a wide string into `out` (NUL-terminated, cut at a character
 * boundary to fit `size`); invalid code points become U+FFFD. */
size_t rec_wide_to_utf8(const wchar_t* text, char* out, size_t size);
/* Fills the callback tables; rec_inject.c. */
void rec_fill_core(rec_nvtx_table table, unsigned size);
void rec_fill_core2(rec_nvtx_table table, unsigned size);
/* Fills the payload extension's slots (rec_inject.c calls it from
 * InitializeInjectionNvtxExtension). */
void rec_fill_payload(intptr_t* slots, size_t count);

/* A mark (`range` 0) or the begin of a start/end range in domain `d` on
 * the calling thread, at clock reading `raw`: its message `text` (UTF-8)
 * or `registered`, and `extra` (one payload-extension payload, or NULL);
 * the range's ID, 0 for a mark or when nothing is recorded. */
nvtxRangeId_t rec_named_event(rec_domain* d, int range, const char* text,
                              nvtxStringHandle_t registered, const nvtxPayloadData_t* extra,
                              uint64_t raw);
/* The end of a range rec_named_event began (from any thread). */
void rec_named_end(rec_domain* d, nvtxRangeId_t id, uint64_t raw);

/* rec_counters.c: fills the counters extension's slots. */
void rec_fill_counters(intptr_t* slots, size_t count);

/* rec_sync.c: fills the sync module's callback table. */
void rec_fill_sync(rec_nvtx_table table, unsigned size);

/* Stores `fn` in a callback table's entry `id`, when the table has it. */
#define REC_SET(table, size, id, fn)                                                               \
    do {                                                                                           \
        if ((unsigned)(id) <= (size) && (table)[id] != NULL)                                       \
            *(table)[id] = (rec_nvtx_fn)(fn);                                                      \
    } while (0)

/* Stores `fn` in an extension module's slot `id`, when the module has it. */
#define REC_SLOT(slots, count, id, fn)                                                             \
    do {                                                                                           \
        if ((size_t)(id) < (count))                                                                \
            (slots)[id] = (intptr_t)(fn);                                                          \
    } while (0)

#endif /* NVTXW_TOOLS_RECORD_REC_INTERNAL_H */
