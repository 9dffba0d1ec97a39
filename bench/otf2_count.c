/*
 * bench/otf2_count.c - the decoding floor of nvtxw-otf2-import: reads an OTF2
 * archive the way the importer has to, with callbacks that only count.
 *
 *   otf2_count [--threads N] ARCHIVE/traces.otf2
 *
 * The reading, timed with CLOCK_MONOTONIC from OTF2_Reader_Open to
 * OTF2_Reader_Close:
 *   1. the global definitions, with callbacks for those the importer needs
 *      (clock, paradigms, strings, attributes, system tree, location groups,
 *      locations, regions, groups, comms, metrics, parameters, RMA windows,
 *      I/O handles): each counts, Location also collects the location ids;
 *   2. N worker threads take locations from a shared atomic index, one at a
 *      time: the location's local definitions (clock offsets and mapping
 *      tables, which OTF2 applies to the events), then all its events with
 *      an OTF2_EvtReader whose callbacks are set for every OTF2 3.0 event
 *      kind (79 kinds and Unknown), each incrementing the worker's counter;
 *      the event reader is closed before the next location. With N > 1, the
 *      shared OTF2_Reader gets OTF2's pthread locking callbacks.
 *
 * Prints "events=<n> seconds=<s> events_per_s=<r>" on stdout. A location
 * whose count differs from its declared numberOfEvents is reported on
 * stderr and makes the exit status 1 (the line is still printed). Exit 0 on
 * success, 1 on failure, 2 on a usage error. Links OTF2 only.
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <otf2/OTF2_Pthread_Locks.h>
#include <otf2/otf2.h>

#define TOOL "otf2_count"
#define MAX_THREADS 64

/* ---- Event callbacks: one per kind, each counts -------------------------- */

/* Every event kind of OTF2 3.0 with the parameters after the common ones
 * (location, time, position, user data, attribute list), in
 * OTF2_EvtReaderCallbacks.h order; EVENTS_PLAIN have none. */
#define EVENTS_PLAIN(X) X(Unknown) X(MpiCollectiveBegin) X(OmpJoin) X(RmaCollectiveBegin)
#define EVENTS(X)                                                                                  \
    X(BufferFlush, OTF2_TimeStamp stopTime)                                                        \
    X(MeasurementOnOff, OTF2_MeasurementMode measurementMode)                                      \
    X(Enter, OTF2_RegionRef region)                                                                \
    X(Leave, OTF2_RegionRef region)                                                                \
    X(MpiSend, uint32_t receiver, OTF2_CommRef communicator, uint32_t msgTag, uint64_t msgLength)  \
    X(MpiIsend, uint32_t receiver, OTF2_CommRef communicator, uint32_t msgTag, uint64_t msgLength, \
      uint64_t requestID)                                                                          \
    X(MpiIsendComplete, uint64_t requestID)                                                        \
    X(MpiIrecvRequest, uint64_t requestID)                                                         \
    X(MpiRecv, uint32_t sender, OTF2_CommRef communicator, uint32_t msgTag, uint64_t msgLength)    \
    X(MpiIrecv, uint32_t sender, OTF2_CommRef communicator, uint32_t msgTag, uint64_t msgLength,   \
      uint64_t requestID)                                                                          \
    X(MpiRequestTest, uint64_t requestID)                                                          \
    X(MpiRequestCancelled, uint64_t requestID)                                                     \
    X(MpiCollectiveEnd, OTF2_CollectiveOp collectiveOp, OTF2_CommRef communicator, uint32_t root,  \
      uint64_t sizeSent, uint64_t sizeReceived)                                                    \
    X(OmpFork, uint32_t numberOfRequestedThreads)                                                  \
    X(OmpAcquireLock, uint32_t lockID, uint32_t acquisitionOrder)                                  \
    X(OmpReleaseLock, uint32_t lockID, uint32_t acquisitionOrder)                                  \
    X(OmpTaskCreate, uint64_t taskID)                                                              \
    X(OmpTaskSwitch, uint64_t taskID)                                                              \
    X(OmpTaskComplete, uint64_t taskID)                                                            \
    X(Metric, OTF2_MetricRef metric, uint8_t numberOfMetrics, const OTF2_Type* typeIDs,            \
      const OTF2_MetricValue* metricValues)                                                        \
    X(ParameterString, OTF2_ParameterRef parameter, OTF2_StringRef string)                         \
    X(ParameterInt, OTF2_ParameterRef parameter, int64_t value)                                    \
    X(ParameterUnsignedInt, OTF2_ParameterRef parameter, uint64_t value)                           \
    X(RmaWinCreate, OTF2_RmaWinRef win)                                                            \
    X(RmaWinDestroy, OTF2_RmaWinRef win)                                                           \
    X(RmaCollectiveEnd, OTF2_CollectiveOp collectiveOp, OTF2_RmaSyncLevel syncLevel,               \
      OTF2_RmaWinRef win, uint32_t root, uint64_t bytesSent, uint64_t bytesReceived)               \
    X(RmaGroupSync, OTF2_RmaSyncLevel syncLevel, OTF2_RmaWinRef win, OTF2_GroupRef group)          \
    X(RmaRequestLock, OTF2_RmaWinRef win, uint32_t remote, uint64_t lockId,                        \
      OTF2_LockType lockType)                                                                      \
    X(RmaAcquireLock, OTF2_RmaWinRef win, uint32_t remote, uint64_t lockId,                        \
      OTF2_LockType lockType)                                                                      \
    X(RmaTryLock, OTF2_RmaWinRef win, uint32_t remote, uint64_t lockId, OTF2_LockType lockType)    \
    X(RmaReleaseLock, OTF2_RmaWinRef win, uint32_t remote, uint64_t lockId)                        \
    X(RmaSync, OTF2_RmaWinRef win, uint32_t remote, OTF2_RmaSyncType syncType)                     \
    X(RmaWaitChange, OTF2_RmaWinRef win)                                                           \
    X(RmaPut, OTF2_RmaWinRef win, uint32_t remote, uint64_t bytes, uint64_t matchingId)            \
    X(RmaGet, OTF2_RmaWinRef win, uint32_t remote, uint64_t bytes, uint64_t matchingId)            \
    X(RmaAtomic, OTF2_RmaWinRef win, uint32_t remote, OTF2_RmaAtomicType type, uint64_t bytesSent, \
      uint64_t bytesReceived, uint64_t matchingId)                                                 \
    X(RmaOpCompleteBlocking, OTF2_RmaWinRef win, uint64_t matchingId)                              \
    X(RmaOpCompleteNonBlocking, OTF2_RmaWinRef win, uint64_t matchingId)                           \
    X(RmaOpTest, OTF2_RmaWinRef win, uint64_t matchingId)                                          \
    X(RmaOpCompleteRemote, OTF2_RmaWinRef win, uint64_t matchingId)                                \
    X(ThreadFork, OTF2_Paradigm model, uint32_t numberOfRequestedThreads)                          \
    X(ThreadJoin, OTF2_Paradigm model)                                                             \
    X(ThreadTeamBegin, OTF2_CommRef threadTeam)                                                    \
    X(ThreadTeamEnd, OTF2_CommRef threadTeam)                                                      \
    X(ThreadAcquireLock, OTF2_Paradigm model, uint32_t lockID, uint32_t acquisitionOrder)          \
    X(ThreadReleaseLock, OTF2_Paradigm model, uint32_t lockID, uint32_t acquisitionOrder)          \
    X(ThreadTaskCreate, OTF2_CommRef threadTeam, uint32_t creatingThread,                          \
      uint32_t generationNumber)                                                                   \
    X(ThreadTaskSwitch, OTF2_CommRef threadTeam, uint32_t creatingThread,                          \
      uint32_t generationNumber)                                                                   \
    X(ThreadTaskComplete, OTF2_CommRef threadTeam, uint32_t creatingThread,                        \
      uint32_t generationNumber)                                                                   \
    X(ThreadCreate, OTF2_CommRef threadContingent, uint64_t sequenceCount)                         \
    X(ThreadBegin, OTF2_CommRef threadContingent, uint64_t sequenceCount)                          \
    X(ThreadWait, OTF2_CommRef threadContingent, uint64_t sequenceCount)                           \
    X(ThreadEnd, OTF2_CommRef threadContingent, uint64_t sequenceCount)                            \
    X(CallingContextEnter, OTF2_CallingContextRef callingContext, uint32_t unwindDistance)         \
    X(CallingContextLeave, OTF2_CallingContextRef callingContext)                                  \
    X(CallingContextSample, OTF2_CallingContextRef callingContext, uint32_t unwindDistance,        \
      OTF2_InterruptGeneratorRef interruptGenerator)                                               \
    X(IoCreateHandle, OTF2_IoHandleRef handle, OTF2_IoAccessMode mode,                             \
      OTF2_IoCreationFlag creationFlags, OTF2_IoStatusFlag statusFlags)                            \
    X(IoDestroyHandle, OTF2_IoHandleRef handle)                                                    \
    X(IoDuplicateHandle, OTF2_IoHandleRef oldHandle, OTF2_IoHandleRef newHandle,                   \
      OTF2_IoStatusFlag statusFlags)                                                               \
    X(IoSeek, OTF2_IoHandleRef handle, int64_t offsetRequest, OTF2_IoSeekOption whence,            \
      uint64_t offsetResult)                                                                       \
    X(IoChangeStatusFlags, OTF2_IoHandleRef handle, OTF2_IoStatusFlag statusFlags)                 \
    X(IoDeleteFile, OTF2_IoParadigmRef ioParadigm, OTF2_IoFileRef file)                            \
    X(IoOperationBegin, OTF2_IoHandleRef handle, OTF2_IoOperationMode mode,                        \
      OTF2_IoOperationFlag operationFlags, uint64_t bytesRequest, uint64_t matchingId)             \
    X(IoOperationTest, OTF2_IoHandleRef handle, uint64_t matchingId)                               \
    X(IoOperationIssued, OTF2_IoHandleRef handle, uint64_t matchingId)                             \
    X(IoOperationComplete, OTF2_IoHandleRef handle, uint64_t bytesResult, uint64_t matchingId)     \
    X(IoOperationCancelled, OTF2_IoHandleRef handle, uint64_t matchingId)                          \
    X(IoAcquireLock, OTF2_IoHandleRef handle, OTF2_LockType lockType)                              \
    X(IoReleaseLock, OTF2_IoHandleRef handle, OTF2_LockType lockType)                              \
    X(IoTryLock, OTF2_IoHandleRef handle, OTF2_LockType lockType)                                  \
    X(ProgramBegin, OTF2_StringRef programName, uint32_t numberOfArguments,                        \
      const OTF2_StringRef* programArguments)                                                      \
    X(ProgramEnd, int64_t exitStatus)                                                              \
    X(NonBlockingCollectiveRequest, uint64_t requestID)                                            \
    X(NonBlockingCollectiveComplete, OTF2_CollectiveOp collectiveOp, OTF2_CommRef communicator,    \
      uint32_t root, uint64_t sizeSent, uint64_t sizeReceived, uint64_t requestID)                 \
    X(CommCreate, OTF2_CommRef communicator)                                                       \
    X(CommDestroy, OTF2_CommRef communicator)

/* The counters only count: the parameters they do not read are the price of
 * exact callback types (calling through a cast function pointer would be
 * undefined). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#define COUNT_PLAIN(kind)                                                                          \
    static OTF2_CallbackCode count_##kind(OTF2_LocationRef location, OTF2_TimeStamp time,          \
                                          uint64_t position, void* user,                           \
                                          OTF2_AttributeList* attributes) {                        \
        ++*(uint64_t*)user;                                                                        \
        return OTF2_CALLBACK_SUCCESS;                                                              \
    }
#define COUNT(kind, ...)                                                                           \
    static OTF2_CallbackCode count_##kind(OTF2_LocationRef location, OTF2_TimeStamp time,          \
                                          uint64_t position, void* user,                           \
                                          OTF2_AttributeList* attributes, __VA_ARGS__) {           \
        ++*(uint64_t*)user;                                                                        \
        return OTF2_CALLBACK_SUCCESS;                                                              \
    }
EVENTS_PLAIN(COUNT_PLAIN)
EVENTS(COUNT)
#pragma GCC diagnostic pop

#define SET_PLAIN(kind)                                                                            \
    if (status == OTF2_SUCCESS)                                                                    \
        status = OTF2_EvtReaderCallbacks_Set##kind##Callback(callbacks, count_##kind);
#define SET(kind, ...) SET_PLAIN(kind)

/* Callbacks for every event kind; NULL when out of memory. */
static OTF2_EvtReaderCallbacks* event_callbacks(void) {
    OTF2_EvtReaderCallbacks* callbacks = OTF2_EvtReaderCallbacks_New();
    OTF2_ErrorCode status = callbacks != NULL ? OTF2_SUCCESS : OTF2_ERROR_MEM_ALLOC_FAILED;
    EVENTS_PLAIN(SET_PLAIN)
    EVENTS(SET)
    if (status != OTF2_SUCCESS) {
        OTF2_EvtReaderCallbacks_Delete(callbacks);
        return NULL;
    }
    return callbacks;
}

/* ---- Global definitions -------------------------------------------------- */

typedef struct location {
    OTF2_LocationRef id;
    uint64_t declared; /* numberOfEvents of its definition */
} location;

typedef struct archive {
    location* locations;
    uint64_t capacity, count; /* locations from OTF2_Reader_GetNumberOfLocations, defined */
    uint64_t definitions;     /* global definitions seen by the callbacks */
} archive;

/* The global definitions the importer needs, besides Location, with the
 * parameters after the user data. */
#define DEFS(X)                                                                                    \
    X(ClockProperties, uint64_t timerResolution, uint64_t globalOffset, uint64_t traceLength,      \
      uint64_t realtimeTimestamp)                                                                  \
    X(Paradigm, OTF2_Paradigm paradigm, OTF2_StringRef name, OTF2_ParadigmClass paradigmClass)     \
    X(String, OTF2_StringRef self, const char* string)                                             \
    X(Attribute, OTF2_AttributeRef self, OTF2_StringRef name, OTF2_StringRef description,          \
      OTF2_Type type)                                                                              \
    X(SystemTreeNode, OTF2_SystemTreeNodeRef self, OTF2_StringRef name, OTF2_StringRef className,  \
      OTF2_SystemTreeNodeRef parent)                                                               \
    X(LocationGroup, OTF2_LocationGroupRef self, OTF2_StringRef name,                              \
      OTF2_LocationGroupType locationGroupType, OTF2_SystemTreeNodeRef systemTreeParent,           \
      OTF2_LocationGroupRef creatingLocationGroup)                                                 \
    X(Region, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef canonicalName,              \
      OTF2_StringRef description, OTF2_RegionRole regionRole, OTF2_Paradigm paradigm,              \
      OTF2_RegionFlag regionFlags, OTF2_StringRef sourceFile, uint32_t beginLineNumber,            \
      uint32_t endLineNumber)                                                                      \
    X(Group, OTF2_GroupRef self, OTF2_StringRef name, OTF2_GroupType groupType,                    \
      OTF2_Paradigm paradigm, OTF2_GroupFlag groupFlags, uint32_t numberOfMembers,                 \
      const uint64_t* members)                                                                     \
    X(MetricMember, OTF2_MetricMemberRef self, OTF2_StringRef name, OTF2_StringRef description,    \
      OTF2_MetricType metricType, OTF2_MetricMode metricMode, OTF2_Type valueType, OTF2_Base base, \
      int64_t exponent, OTF2_StringRef unit)                                                       \
    X(MetricClass, OTF2_MetricRef self, uint8_t numberOfMetrics,                                   \
      const OTF2_MetricMemberRef* metricMembers, OTF2_MetricOccurrence metricOccurrence,           \
      OTF2_RecorderKind recorderKind)                                                              \
    X(MetricInstance, OTF2_MetricRef self, OTF2_MetricRef metricClass, OTF2_LocationRef recorder,  \
      OTF2_MetricScope metricScope, uint64_t scope)                                                \
    X(Comm, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group, OTF2_CommRef parent,      \
      OTF2_CommFlag flags)                                                                         \
    X(Parameter, OTF2_ParameterRef self, OTF2_StringRef name, OTF2_ParameterType parameterType)    \
    X(RmaWin, OTF2_RmaWinRef self, OTF2_StringRef name, OTF2_CommRef comm, OTF2_RmaWinFlag flags)  \
    X(IoHandle, OTF2_IoHandleRef self, OTF2_StringRef name, OTF2_IoFileRef file,                   \
      OTF2_IoParadigmRef ioParadigm, OTF2_IoHandleFlag ioHandleFlags, OTF2_CommRef comm,           \
      OTF2_IoHandleRef parent)

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#define COUNT_DEF(kind, ...)                                                                       \
    static OTF2_CallbackCode count_def_##kind(void* user, __VA_ARGS__) {                           \
        ((archive*)user)->definitions++;                                                           \
        return OTF2_CALLBACK_SUCCESS;                                                              \
    }
DEFS(COUNT_DEF)
#pragma GCC diagnostic pop

static OTF2_CallbackCode def_location(void* user, OTF2_LocationRef self, OTF2_StringRef name,
                                      OTF2_LocationType type, uint64_t events,
                                      OTF2_LocationGroupRef group) {
    archive* a = user;
    (void)name, (void)type, (void)group;
    a->definitions++;
    if (a->count == a->capacity)
        return OTF2_CALLBACK_INTERRUPT; /* more than the anchor file announced */
    a->locations[a->count].id = self;
    a->locations[a->count++].declared = events;
    return OTF2_CALLBACK_SUCCESS;
}

#define SET_DEF(kind, ...)                                                                         \
    if (status == OTF2_SUCCESS)                                                                    \
        status = OTF2_GlobalDefReaderCallbacks_Set##kind##Callback(callbacks, count_def_##kind);

static OTF2_ErrorCode def_callbacks(OTF2_GlobalDefReaderCallbacks* callbacks) {
    OTF2_ErrorCode status =
        OTF2_GlobalDefReaderCallbacks_SetLocationCallback(callbacks, def_location);
    DEFS(SET_DEF)
    return status;
}

/* Reads the global definitions into `a` (its locations array allocated
 * here). */
static OTF2_ErrorCode read_global_defs(OTF2_Reader* reader, archive* a) {
    OTF2_GlobalDefReaderCallbacks* callbacks = NULL;
    OTF2_GlobalDefReader* defs = NULL;
    uint64_t read = 0;
    OTF2_ErrorCode status = OTF2_Reader_GetNumberOfLocations(reader, &a->capacity);
    if (status != OTF2_SUCCESS)
        goto end;
    a->locations = calloc(a->capacity ? a->capacity : 1, sizeof *a->locations);
    callbacks = OTF2_GlobalDefReaderCallbacks_New();
    defs = OTF2_Reader_GetGlobalDefReader(reader);
    if (a->locations == NULL || callbacks == NULL || defs == NULL) {
        status = defs == NULL ? OTF2_ERROR_PROCESSED_WITH_FAULTS : OTF2_ERROR_MEM_ALLOC_FAILED;
        goto end;
    }
    status = def_callbacks(callbacks);
    if (status == OTF2_SUCCESS)
        status = OTF2_Reader_RegisterGlobalDefCallbacks(reader, defs, callbacks, a);
    if (status == OTF2_SUCCESS)
        status = OTF2_Reader_ReadAllGlobalDefinitions(reader, defs, &read);
end:
    if (defs != NULL)
        OTF2_Reader_CloseGlobalDefReader(reader, defs);
    OTF2_GlobalDefReaderCallbacks_Delete(callbacks);
    return status;
}

/* ---- Per location -------------------------------------------------------- */

typedef struct shared {
    OTF2_Reader* reader;
    const OTF2_EvtReaderCallbacks* callbacks;
    const archive* a;
    int local_defs;            /* whether OTF2_Reader_OpenDefFiles succeeded */
    atomic_uint_fast64_t next; /* index of the next location to read */
} shared;

typedef struct worker {
    shared* s;
    pthread_t thread;
    uint64_t events; /* counted by the callbacks */
    int mismatches;  /* locations whose count differs from the declared one */
    OTF2_ErrorCode status;
    OTF2_LocationRef failed; /* the location being read when status went bad */
} worker;

/* Reads the location's local definitions; OTF2 keeps its clock offsets and
 * mapping tables for the event reader. No definition file is no error. */
static OTF2_ErrorCode read_local_defs(OTF2_Reader* reader, OTF2_LocationRef id) {
    uint64_t read = 0;
    OTF2_ErrorCode status;
    OTF2_DefReader* defs = OTF2_Reader_GetDefReader(reader, id);
    if (defs == NULL)
        return OTF2_SUCCESS;
    status = OTF2_Reader_ReadAllLocalDefinitions(reader, defs, &read);
    OTF2_Reader_CloseDefReader(reader, defs);
    return status;
}

static OTF2_ErrorCode read_location(worker* w, const location* loc) {
    OTF2_Reader* reader = w->s->reader;
    OTF2_EvtReader* events = NULL;
    uint64_t before = w->events, read = 0;
    OTF2_ErrorCode status = w->s->local_defs ? read_local_defs(reader, loc->id) : OTF2_SUCCESS;
    if (status != OTF2_SUCCESS)
        goto end;
    events = OTF2_Reader_GetEvtReader(reader, loc->id);
    if (events == NULL) {
        status = OTF2_ERROR_PROCESSED_WITH_FAULTS;
        goto end;
    }
    status = OTF2_Reader_RegisterEvtCallbacks(reader, events, w->s->callbacks, &w->events);
    if (status == OTF2_SUCCESS)
        status = OTF2_Reader_ReadAllLocalEvents(reader, events, &read);
    if (status == OTF2_SUCCESS && (read != w->events - before || read != loc->declared)) {
        fprintf(stderr,
                TOOL ": location %" PRIu64 ": %" PRIu64 " events declared, %" PRIu64
                     " read, %" PRIu64 " counted\n",
                loc->id, loc->declared, read, w->events - before);
        w->mismatches++;
    }
end:
    if (events != NULL)
        OTF2_Reader_CloseEvtReader(reader, events);
    return status;
}

static void* worker_main(void* arg) {
    worker* w = arg;
    const archive* a = w->s->a;
    for (;;) {
        uint64_t i = atomic_fetch_add(&w->s->next, 1);
        if (i >= a->count)
            break;
        w->status = read_location(w, &a->locations[i]);
        if (w->status != OTF2_SUCCESS) {
            w->failed = a->locations[i].id;
            break;
        }
    }
    return NULL;
}

/* ---- Driver -------------------------------------------------------------- */

typedef struct result {
    uint64_t events;
    int mismatches;
} result;

static int report(const char* what, OTF2_ErrorCode status) {
    fprintf(stderr, TOOL ": error: %s: %s: %s\n", what, OTF2_Error_GetName(status),
            OTF2_Error_GetDescription(status));
    return 1;
}

/* Selects every location and opens the definition and event files. */
static OTF2_ErrorCode open_files(shared* s) {
    OTF2_ErrorCode status = OTF2_SUCCESS;
    for (uint64_t i = 0; i < s->a->count && status == OTF2_SUCCESS; i++)
        status = OTF2_Reader_SelectLocation(s->reader, s->a->locations[i].id);
    if (status != OTF2_SUCCESS)
        return status;
    s->local_defs = OTF2_Reader_OpenDefFiles(s->reader) == OTF2_SUCCESS;
    return OTF2_Reader_OpenEvtFiles(s->reader);
}

/* Reads all locations with `count` workers; returns the exit status. */
static int run_workers(shared* s, int count, result* r) {
    worker workers[MAX_THREADS];
    int started = 0, status = 0;
    for (; started < count; started++) {
        workers[started] = (worker){.s = s, .status = OTF2_SUCCESS};
        if (pthread_create(&workers[started].thread, NULL, worker_main, &workers[started]) != 0) {
            fprintf(stderr, TOOL ": error: cannot create thread %d\n", started + 1);
            status = 1;
            break;
        }
    }
    for (int i = 0; i < started; i++) {
        pthread_join(workers[i].thread, NULL);
        r->events += workers[i].events;
        r->mismatches += workers[i].mismatches;
        if (workers[i].status != OTF2_SUCCESS && status == 0) {
            fprintf(stderr, TOOL ": error: location %" PRIu64 ": ", workers[i].failed);
            status = report("cannot read the events", workers[i].status);
        }
    }
    return status;
}

/* Reads the whole archive at `path`; returns the exit status. */
static int count_archive(const char* path, int threads, result* r) {
    archive a = {NULL, 0, 0, 0};
    shared s = {OTF2_Reader_Open(path), NULL, &a, 0, 0};
    OTF2_EvtReaderCallbacks* callbacks = event_callbacks();
    OTF2_ErrorCode code = OTF2_SUCCESS;
    int status = 1;
    if (s.reader == NULL || callbacks == NULL) {
        fprintf(stderr, TOOL ": error: cannot open \"%s\"\n", path);
        goto end;
    }
    s.callbacks = callbacks;
    if (threads > 1 && (code = OTF2_Pthread_Reader_SetLockingCallbacks(s.reader, NULL)) != 0)
        goto otf2_error;
    if ((code = OTF2_Reader_SetSerialCollectiveCallbacks(s.reader)) != OTF2_SUCCESS ||
        (code = read_global_defs(s.reader, &a)) != OTF2_SUCCESS || (code = open_files(&s)) != 0)
        goto otf2_error;
    status = run_workers(&s, threads, r);
    if ((code = OTF2_Reader_CloseEvtFiles(s.reader)) != OTF2_SUCCESS)
        goto otf2_error;
    if (s.local_defs)
        OTF2_Reader_CloseDefFiles(s.reader);
    goto end;
otf2_error:
    status = report(path, code);
end:
    if (s.reader != NULL)
        OTF2_Reader_Close(s.reader);
    OTF2_EvtReaderCallbacks_Delete(callbacks);
    free(a.locations);
    return status;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int usage(FILE* out, int status) {
    fputs("Usage: " TOOL " [--threads N] ARCHIVE/traces.otf2\n"
          "Reads every event of the OTF2 archive with counting callbacks (the decoding\n"
          "floor of nvtxw-otf2-import) with N threads, 1 to 64 (default 1), and prints\n"
          "events=<n> seconds=<s> events_per_s=<r>\n",
          out);
    return status;
}

int main(int argc, char** argv) {
    const char* path = NULL;
    int threads = 1, status;
    result r = {0, 0};
    double start;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return usage(stdout, 0);
        if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            char* end = NULL;
            long n = strtol(argv[++i], &end, 10);
            if (*end != '\0' || n < 1 || n > MAX_THREADS)
                return usage(stderr, 2);
            threads = (int)n;
        } else if (path == NULL && argv[i][0] != '-') {
            path = argv[i];
        } else {
            return usage(stderr, 2);
        }
    }
    if (path == NULL)
        return usage(stderr, 2);
    start = now();
    status = count_archive(path, threads, &r);
    if (status == 0) {
        double seconds = now() - start;
        printf("events=%" PRIu64 " seconds=%.3f events_per_s=%.0f\n", r.events, seconds,
               r.events / seconds);
    }
    return status != 0 ? status : r.mismatches != 0;
}
