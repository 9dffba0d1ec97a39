/*
 * tools/record/rec_sync.c - NVTX's sync module (nvToolsExtSync.h): user
 * synchronization objects (a program's own locks, semaphores, barriers)
 * as ranges named after the object, in its domain, on the stream of the
 * thread that calls:
 *
 *   nvtxDomainSyncUserAcquireStart .. AcquireSuccess   a start/end range,
 *       args {"sync": "acquire"}: the time the thread waited;
 *   nvtxDomainSyncUserAcquireSuccess .. Releasing      a start/end range,
 *       args {"sync": "held"};
 *   nvtxDomainSyncUserAcquireFailed                    ends the wait, and
 *       a mark, args {"sync": "acquire failed"}.
 *
 * "sync" is a field of the schema "nvtx sync" whose type is the enum
 * "nvtx sync state", registered in a domain when its first object is
 * created. A release ends the releasing thread's own hold of the object,
 * else its oldest hold by any thread (a semaphore posted by another
 * thread); a thread that starts an acquire while one of its own is open
 * ends the open one first. A success or failure without an acquire start
 * (a try that succeeds at once) begins its hold or writes its mark all the
 * same. A release with no hold to end, and a handle this library did not
 * hand out, are counted
 * (rec_session.c prints them at exit). An object's waits and holds are
 * kept under its own lock: the sync calls of different objects do not
 * wait for each other.
 *
 * Handles are indices into a table of segments that never move, so a
 * handle the program keeps after destroying its object still reads
 * memory of this library; the object's name stays until the end.
 */
#define _GNU_SOURCE
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "rec_internal.h"

#define REC_SYNC_SEGMENT 1024
#define REC_SYNC_SEGMENTS 4096 /* at most 4 M objects */

enum { SYNC_ACQUIRE, SYNC_HELD, SYNC_ACQUIRE_FAILED };

/* An acquire or a hold in progress. */
typedef struct sync_span {
    uint32_t thread; /* rec_thread.index */
    int state;       /* SYNC_ACQUIRE or SYNC_HELD */
    nvtxRangeId_t id;
} sync_span;

typedef struct rec_sync {
    rec_domain* domain;
    char* name;                    /* UTF-8, or NULL with `registered` */
    nvtxStringHandle_t registered; /* the name as the program registered it */
    pthread_mutex_t lock;          /* spans */
    sync_span* spans;
    uint32_t count, capacity;
} rec_sync;

static rec_sync* _Atomic segments[REC_SYNC_SEGMENTS];
static _Atomic uint32_t sync_count; /* grown under rec.lock */

/* ---- the schema ---------------------------------------------------------------- */

static const nvtxPayloadEnum_t states[] = {
    {"acquire", SYNC_ACQUIRE, 0},
    {"held", SYNC_HELD, 0},
    {"acquire failed", SYNC_ACQUIRE_FAILED, 0},
};

/* The domain's "nvtx sync" schema: one field "sync" of enum "nvtx sync
 * state" (under rec.lock); 0 when it cannot be registered. */
static uint64_t sync_schema(rec_domain* d) {
    nvtxPayloadEnumAttr_t e;
    nvtxPayloadSchemaAttr_t s;
    nvtxPayloadSchemaEntry_t entry = {0, 0, "sync", NULL, 0, 0, NULL, NULL};
    uint64_t enum_id = 0;
    if (d->sync_schema != 0)
        return d->sync_schema;
    memset(&e, 0, sizeof e);
    e.fieldMask = NVTX_PAYLOAD_ENUM_ATTR_FIELD_NAME | NVTX_PAYLOAD_ENUM_ATTR_FIELD_ENTRIES |
                  NVTX_PAYLOAD_ENUM_ATTR_FIELD_NUM_ENTRIES | NVTX_PAYLOAD_ENUM_ATTR_FIELD_SIZE;
    e.name = "nvtx sync state";
    e.entries = states;
    e.numEntries = sizeof states / sizeof states[0];
    e.sizeOfEnum = sizeof(int32_t);
    if (rec.iface->EnumRegister(d->handle, &e, &enum_id) != NVTXW_RESULT_SUCCESS)
        return 0;
    entry.type = enum_id;
    memset(&s, 0, sizeof s);
    s.fieldMask = NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NAME | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE |
                  NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES |
                  NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES |
                  NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_STATIC_SIZE;
    s.name = "nvtx sync";
    s.type = NVTX_PAYLOAD_SCHEMA_TYPE_STATIC;
    s.entries = &entry;
    s.numEntries = 1;
    s.payloadStaticSize = sizeof(int32_t);
    if (rec.iface->SchemaRegister(d->handle, &s, &d->sync_schema) != NVTXW_RESULT_SUCCESS)
        d->sync_schema = 0;
    return d->sync_schema;
}

/* ---- objects ------------------------------------------------------------------ */

/* The object of a handle; NULL, counted, for one this library did not
 * hand out. */
static rec_sync* sync_of(const void* handle) {
    uintptr_t index = (uintptr_t)handle - 1;
    if (handle != NULL && index < atomic_load_explicit(&sync_count, memory_order_acquire))
        return &atomic_load_explicit(&segments[index / REC_SYNC_SEGMENT],
                                     memory_order_relaxed)[index % REC_SYNC_SEGMENT];
    if (atomic_load_explicit(&rec.active, memory_order_relaxed))
        rec_misuse(REC_MISUSE_UNKNOWN_SYNC);
    return NULL;
}

/* The object's name from the program's attributes into `o`; 0, or -1
 * when the attributes are not NVTX's or memory is short. */
static int sync_name(rec_sync* o, const rec_nvtx_sync_attributes* attr) {
    const char* text = "";
    char* wide = NULL;
    if (attr == NULL ||
        attr->size < offsetof(rec_nvtx_sync_attributes, message) + sizeof attr->message)
        return -1;
    switch (attr->message_type) {
    case REC_NVTX_MESSAGE_ASCII:
        text = attr->message.ascii != NULL ? attr->message.ascii : "";
        break;
    case REC_NVTX_MESSAGE_UNICODE:
        if (attr->message.unicode != NULL) {
            size_t size = wcslen(attr->message.unicode) * 4 + 1;
            if ((wide = malloc(size)) == NULL)
                return -1;
            rec_wide_to_utf8(attr->message.unicode, wide, size);
            text = wide;
        }
        break;
    case REC_NVTX_MESSAGE_REGISTERED:
        o->registered = attr->message.registered;
        return 0;
    default:
        break; /* no name */
    }
    o->name = wide != NULL ? wide : strdup(text);
    return o->name != NULL ? 0 : -1;
}

static void* SyncUserCreate(nvtxDomainHandle_t domain, const rec_nvtx_sync_attributes* attr) {
    rec_domain* d = rec_domain_of(domain);
    rec_sync* segment;
    rec_sync* o;
    uint32_t index;
    if (d == NULL || !atomic_load(&rec.active))
        return NULL;
    pthread_mutex_lock(&rec.lock);
    index = atomic_load(&sync_count);
    segment = index / REC_SYNC_SEGMENT < REC_SYNC_SEGMENTS
                  ? atomic_load(&segments[index / REC_SYNC_SEGMENT])
                  : NULL;
    if (segment == NULL && index / REC_SYNC_SEGMENT < REC_SYNC_SEGMENTS &&
        (segment = calloc(REC_SYNC_SEGMENT, sizeof *segment)) != NULL)
        atomic_store(&segments[index / REC_SYNC_SEGMENT], segment);
    o = segment != NULL ? &segment[index % REC_SYNC_SEGMENT] : NULL;
    if (o == NULL || sync_schema(d) == 0 || sync_name(o, attr) != 0) {
        pthread_mutex_unlock(&rec.lock);
        rec_misuse(REC_MISUSE_BAD_ATTRIBUTES);
        return NULL;
    }
    o->domain = d;
    pthread_mutex_init(&o->lock, NULL);
    atomic_store_explicit(&sync_count, index + 1, memory_order_release);
    pthread_mutex_unlock(&rec.lock);
    return (void*)((uintptr_t)index + 1);
}

/* The object stays (its name names ranges still open, and a handle kept
 * after this must not reach freed memory). */
static void SyncUserDestroy(void* handle) { (void)sync_of(handle); }

/* ---- waits and holds (under the object's lock) --------------------------------- */

/* The calling thread's index; UINT32_MAX when nothing is recorded. */
static uint32_t thread_index(void) {
    rec_thread* t =
        atomic_load_explicit(&rec.active, memory_order_relaxed) ? rec_thread_self() : NULL;
    return t != NULL ? t->index : UINT32_MAX;
}

/* A range or a mark of the object in `state`. */
static nvtxRangeId_t sync_event(rec_sync* o, int range, int32_t state, uint64_t raw) {
    nvtxPayloadData_t payload = {o->domain->sync_schema, sizeof state, &state};
    return rec_named_event(o->domain, range, o->name, o->registered, &payload, raw);
}

/* The span of `thread` in `state` (any thread's, oldest first, when
 * `thread` is UINT32_MAX); its index, or -1. */
static long span_find(const rec_sync* o, uint32_t thread, int state) {
    uint32_t i;
    for (i = 0; i < o->count; i++)
        if (o->spans[i].state == state && (thread == UINT32_MAX || o->spans[i].thread == thread))
            return (long)i;
    return -1;
}

static void span_remove(rec_sync* o, long i) {
    memmove(&o->spans[i], &o->spans[i + 1], (o->count - (uint32_t)i - 1) * sizeof *o->spans);
    o->count--;
}

static void span_add(rec_sync* o, uint32_t thread, int state, nvtxRangeId_t id) {
    if (id == 0)
        return; /* not recorded */
    if (o->count == o->capacity) {
        uint32_t capacity = o->capacity ? 2 * o->capacity : 4;
        sync_span* grown = realloc(o->spans, capacity * sizeof *grown);
        if (grown == NULL)
            return; /* its end will count as out of order */
        o->spans = grown;
        o->capacity = capacity;
    }
    o->spans[o->count++] = (sync_span){thread, state, id};
}

/* Ends the thread's open acquire, if any. */
static void acquire_end(rec_sync* o, uint32_t thread, uint64_t raw) {
    long i = span_find(o, thread, SYNC_ACQUIRE);
    if (i < 0)
        return;
    rec_named_end(o->domain, o->spans[i].id, raw);
    span_remove(o, i);
}

/* The object of `handle`, locked, and the calling thread's index in
 * *thread; NULL when nothing is recorded (or the handle is unknown). */
static rec_sync* sync_enter(void* handle, uint32_t* thread) {
    rec_sync* o = sync_of(handle);
    if (o == NULL || (*thread = thread_index()) == UINT32_MAX)
        return NULL;
    pthread_mutex_lock(&o->lock);
    return o;
}

/* An acquire's step on the calling thread: its open acquire (if any)
 * ends, and `next` begins (SYNC_ACQUIRE or SYNC_HELD: a range; a success
 * without an acquire start, a try that succeeds at once, has none to end)
 * or is marked (SYNC_ACQUIRE_FAILED). */
static void acquire_step(void* handle, int next) {
    uint64_t raw = rec_clock_raw();
    uint32_t thread;
    rec_sync* o = sync_enter(handle, &thread);
    if (o == NULL)
        return;
    acquire_end(o, thread, raw);
    if (next == SYNC_ACQUIRE_FAILED)
        sync_event(o, 0, next, raw);
    else
        span_add(o, thread, next, sync_event(o, 1, next, raw));
    pthread_mutex_unlock(&o->lock);
}

static void AcquireStart(void* handle) { acquire_step(handle, SYNC_ACQUIRE); }
static void AcquireSuccess(void* handle) { acquire_step(handle, SYNC_HELD); }
static void AcquireFailed(void* handle) { acquire_step(handle, SYNC_ACQUIRE_FAILED); }

static void Releasing(void* handle) {
    uint64_t raw = rec_clock_raw();
    uint32_t thread;
    rec_sync* o = sync_enter(handle, &thread);
    long i;
    if (o == NULL)
        return;
    if ((i = span_find(o, thread, SYNC_HELD)) < 0)
        i = span_find(o, UINT32_MAX, SYNC_HELD);
    if (i >= 0) {
        rec_named_end(o->domain, o->spans[i].id, raw);
        span_remove(o, i);
    } else {
        rec_misuse(REC_MISUSE_SYNC_ORDER);
    }
    pthread_mutex_unlock(&o->lock);
}

void rec_fill_sync(rec_nvtx_table table, unsigned size) {
    REC_SET(table, size, REC_NVTX_SYNC_DomainSyncUserCreate, SyncUserCreate);
    REC_SET(table, size, REC_NVTX_SYNC_DomainSyncUserDestroy, SyncUserDestroy);
    REC_SET(table, size, REC_NVTX_SYNC_DomainSyncUserAcquireStart, AcquireStart);
    REC_SET(table, size, REC_NVTX_SYNC_DomainSyncUserAcquireFailed, AcquireFailed);
    REC_SET(table, size, REC_NVTX_SYNC_DomainSyncUserAcquireSuccess, AcquireSuccess);
    REC_SET(table, size, REC_NVTX_SYNC_DomainSyncUserReleasing, Releasing);
}
