/*
 * tools/otf2-import/ev_misc.c - program begin/end, measurement on/off,
 * buffer flushes, RMA and I/O records.
 *
 * Records that open something closed by a later record (MeasurementOnOff
 * OFF..ON, IoOperationBegin..Complete, RmaCollectiveBegin..End) become one
 * range written at the closing record, with both times; the open half waits
 * in a small per-location list. Everything else is a mark.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ev_common.h"
#include "tool_alloc.h"

#define MEASUREMENT PARADIGM(c, OTF2_PARADIGM_MEASUREMENT_SYSTEM)
#define UNKNOWN_PARADIGM PARADIGM(c, OTF2_PARADIGM_UNKNOWN)

static OTF2_CallbackCode on_buffer_flush(EV_ARGS, OTF2_TimeStamp stop) {
    int64_t end;
    EV_BEGIN(EK_BufferFlush);
    if (stop < time || import_ticks_to_ns(&c->im->defs, stop, &end) != 0)
        return ev_fail(c, EK_BufferFlush,
                       "stop time %" PRIu64 " is before its start or out of range", (uint64_t)stop);
    const uint64_t v[] = {(uint64_t)c->now, (uint64_t)end, NAME(c, EK_BufferFlush), MEASUREMENT};
    return ev_write(c, EK_BufferFlush, ES_BUFFER_FLUSH, v, COUNT_OF(v), attributes);
}

static OTF2_CallbackCode measurement_gap(loc_ctx* c, int64_t end, OTF2_AttributeList* attributes) {
    const uint64_t v[] = {(uint64_t)c->off_begin, (uint64_t)end, NAME(c, NAME_MEASUREMENT_OFF),
                          MEASUREMENT};
    c->measurement_off = 0;
    return ev_write(c, EK_MeasurementOnOff, ES_MEASUREMENT_OFF, v, COUNT_OF(v), attributes);
}

/* OFF opens a gap, ON closes it; an ON without OFF is a zero-length gap,
 * a second OFF keeps the first one's start. */
static OTF2_CallbackCode on_measurement(EV_ARGS, OTF2_MeasurementMode mode) {
    EV_BEGIN(EK_MeasurementOnOff);
    if (mode == OTF2_MEASUREMENT_OFF) {
        if (!c->measurement_off) {
            c->measurement_off = 1;
            c->off_begin = c->now;
        }
        if (attributes != NULL && OTF2_AttributeList_GetNumberOfElements(attributes) > 0)
            c->skipped[EK_COUNT]++;
        return OTF2_CALLBACK_SUCCESS;
    }
    if (mode != OTF2_MEASUREMENT_ON)
        return ev_fail(c, EK_MeasurementOnOff, "unknown measurement mode %u", (unsigned)mode);
    if (!c->measurement_off)
        c->off_begin = c->now;
    return measurement_gap(c, c->now, attributes);
}

/* otf2_program_begin: the fixed fields, then the arguments joined with
 * spaces as an inline zero-terminated string. */
static OTF2_CallbackCode on_program_begin(EV_ARGS, OTF2_StringRef name, uint32_t count,
                                          const OTF2_StringRef* args) {
    const schema_layout* layout;
    size_t size = 1;
    char *buf, *p;
    OTF2_CallbackCode cc;
    EV_BEGIN(EK_ProgramBegin);
    layout = &c->im->layouts.schema[ES_PROGRAM_BEGIN];
    for (uint32_t i = 0; i < count; i++)
        size += strlen(defs_string(&c->im->defs, args[i])) + 1;
    if ((buf = nvtxw_malloc(layout->string_offset + size)) == NULL)
        return ev_fail(c, EK_ProgramBegin, "out of memory (%" PRIu32 " arguments)", count);
    const uint64_t v[] = {(uint64_t)c->now, NAME(c, EK_ProgramBegin), MEASUREMENT,
                          ev_string(c, name)};
    layout_fill(layout, buf, v, COUNT_OF(v));
    p = buf + layout->string_offset;
    *p = '\0';
    for (uint32_t i = 0; i < count; i++) {
        const char* arg = defs_string(&c->im->defs, args[i]);
        size_t n = strlen(arg);
        if (i > 0)
            *p++ = ' ';
        memcpy(p, arg, n + 1);
        p += n;
    }
    cc = ev_write_sized(c, EK_ProgramBegin, ES_PROGRAM_BEGIN, buf, (size_t)(p - buf) + 1,
                        attributes);
    nvtxw_free(buf);
    return cc;
}

static OTF2_CallbackCode on_program_end(EV_ARGS, int64_t status) {
    EV_BEGIN(EK_ProgramEnd);
    EV_MARK(EK_ProgramEnd, ES_PROGRAM_END, MEASUREMENT, SIGNED(status));
}

/* ---- RMA ---------------------------------------------------------------------- */

#define WINDOW(k, win)                                                                             \
    uint64_t win_name = ev_named(c, (k), &c->im->defs.windows, (win));                             \
    if (win_name == 0)                                                                             \
    return OTF2_CALLBACK_INTERRUPT

/* A rank of the window's communicator as a world rank (as for messages:
 * -1 for none, -1 - rank when it cannot be translated). */
static uint64_t rma_rank(const loc_ctx* c, OTF2_RmaWinRef win, uint32_t rank) {
    named_def* w = def_table_find(&c->im->defs.windows, win, NULL);
    int64_t world;
    if (rank == OTF2_UNDEFINED_UINT32)
        return (uint64_t)-1;
    world = w != NULL ? defs_world_rank(&c->im->defs, w->link, rank) : -1;
    return (uint64_t)(world == -2 ? c->world_rank : world >= 0 ? world : -1 - (int64_t)rank);
}

/* The category of the window's paradigm (its communicator's group's):
 * MPI, SHMEM, GASPI... */
static uint64_t rma_category(const loc_ctx* c, OTF2_RmaWinRef win) {
    named_def* w = def_table_find(&c->im->defs.windows, win, NULL);
    comm_def* comm = w != NULL ? def_table_find(&c->im->defs.comms, w->link, NULL) : NULL;
    members_def* g =
        comm != NULL ? def_table_find(&c->im->defs.member_groups, comm->group, NULL) : NULL;
    return PARADIGM(c, g != NULL ? g->paradigm : OTF2_PARADIGM_MPI);
}

#define RMA rma_category(c, win)

#define RMA_WINDOW_EVENT(fn, kind)                                                                 \
    static OTF2_CallbackCode fn(EV_ARGS, OTF2_RmaWinRef win) {                                     \
        EV_BEGIN(kind);                                                                            \
        WINDOW(kind, win);                                                                         \
        EV_MARK(kind, ES_RMA_WINDOW, RMA, win, win_name);                                          \
    }
RMA_WINDOW_EVENT(on_win_create, EK_RmaWinCreate)
RMA_WINDOW_EVENT(on_win_destroy, EK_RmaWinDestroy)
RMA_WINDOW_EVENT(on_wait_change, EK_RmaWaitChange)

static OTF2_CallbackCode on_rma_collective_begin(EV_ARGS) {
    pending_op op = {0, 0, 0, 0, 0, 0};
    EV_BEGIN(EK_RmaCollectiveBegin);
    if (attributes != NULL && OTF2_AttributeList_GetNumberOfElements(attributes) > 0)
        c->skipped[EK_COUNT]++;
    op.begin = c->now;
    if (pending_push(&c->rma_collectives, &op) != 0)
        return ev_fail(c, EK_RmaCollectiveBegin, "out of memory");
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_rma_collective_end(EV_ARGS, OTF2_CollectiveOp op,
                                               OTF2_RmaSyncLevel level, OTF2_RmaWinRef win,
                                               uint32_t root, uint64_t sent, uint64_t received) {
    pending_op begin;
    EV_BEGIN(EK_RmaCollectiveEnd);
    WINDOW(EK_RmaCollectiveEnd, win);
    if (!pending_take(&c->rma_collectives, 0, 0, &begin))
        begin.begin = c->now;
    const uint64_t v[] = {(uint64_t)begin.begin,
                          (uint64_t)c->now,
                          NAME(c, NAME_RMA_COLLECTIVE),
                          RMA,
                          op,
                          level,
                          win,
                          win_name,
                          rma_rank(c, win, root),
                          sent,
                          received};
    return ev_write(c, EK_RmaCollectiveEnd, ES_RMA_COLLECTIVE, v, COUNT_OF(v), attributes);
}

static OTF2_CallbackCode on_group_sync(EV_ARGS, OTF2_RmaSyncLevel level, OTF2_RmaWinRef win,
                                       OTF2_GroupRef group) {
    EV_BEGIN(EK_RmaGroupSync);
    WINDOW(EK_RmaGroupSync, win);
    EV_MARK(EK_RmaGroupSync, ES_RMA_GROUP_SYNC, RMA, level, win, win_name, group);
}

#define RMA_LOCK_EVENT(fn, kind)                                                                   \
    static OTF2_CallbackCode fn(EV_ARGS, OTF2_RmaWinRef win, uint32_t remote, uint64_t lock,       \
                                OTF2_LockType type) {                                              \
        EV_BEGIN(kind);                                                                            \
        WINDOW(kind, win);                                                                         \
        EV_MARK(kind, ES_RMA_LOCK, RMA, win, win_name, rma_rank(c, win, remote), lock, type);      \
    }
RMA_LOCK_EVENT(on_request_lock, EK_RmaRequestLock)
RMA_LOCK_EVENT(on_acquire_lock, EK_RmaAcquireLock)
RMA_LOCK_EVENT(on_try_lock, EK_RmaTryLock)

static OTF2_CallbackCode on_release_lock(EV_ARGS, OTF2_RmaWinRef win, uint32_t remote,
                                         uint64_t lock) {
    EV_BEGIN(EK_RmaReleaseLock);
    WINDOW(EK_RmaReleaseLock, win);
    EV_MARK(EK_RmaReleaseLock, ES_RMA_LOCK, RMA, win, win_name, rma_rank(c, win, remote), lock, 0);
}

static OTF2_CallbackCode on_rma_sync(EV_ARGS, OTF2_RmaWinRef win, uint32_t remote,
                                     OTF2_RmaSyncType type) {
    EV_BEGIN(EK_RmaSync);
    WINDOW(EK_RmaSync, win);
    EV_MARK(EK_RmaSync, ES_RMA_SYNC, RMA, win, win_name, rma_rank(c, win, remote), type);
}

#define RMA_TRANSFER_EVENT(fn, kind)                                                               \
    static OTF2_CallbackCode fn(EV_ARGS, OTF2_RmaWinRef win, uint32_t remote, uint64_t bytes,      \
                                uint64_t matching) {                                               \
        EV_BEGIN(kind);                                                                            \
        WINDOW(kind, win);                                                                         \
        EV_MARK(kind, ES_RMA_TRANSFER, RMA, win, win_name, rma_rank(c, win, remote), bytes,        \
                matching);                                                                         \
    }
RMA_TRANSFER_EVENT(on_put, EK_RmaPut)
RMA_TRANSFER_EVENT(on_get, EK_RmaGet)

static OTF2_CallbackCode on_atomic(EV_ARGS, OTF2_RmaWinRef win, uint32_t remote,
                                   OTF2_RmaAtomicType type, uint64_t sent, uint64_t received,
                                   uint64_t matching) {
    EV_BEGIN(EK_RmaAtomic);
    WINDOW(EK_RmaAtomic, win);
    EV_MARK(EK_RmaAtomic, ES_RMA_ATOMIC, RMA, win, win_name, rma_rank(c, win, remote), type, sent,
            received, matching);
}

#define RMA_OP_EVENT(fn, kind)                                                                     \
    static OTF2_CallbackCode fn(EV_ARGS, OTF2_RmaWinRef win, uint64_t matching) {                  \
        EV_BEGIN(kind);                                                                            \
        WINDOW(kind, win);                                                                         \
        EV_MARK(kind, ES_RMA_OPERATION, RMA, win, win_name, matching);                             \
    }
RMA_OP_EVENT(on_op_blocking, EK_RmaOpCompleteBlocking)
RMA_OP_EVENT(on_op_nonblocking, EK_RmaOpCompleteNonBlocking)
RMA_OP_EVENT(on_op_test, EK_RmaOpTest)
RMA_OP_EVENT(on_op_remote, EK_RmaOpCompleteRemote)

void ev_misc_set(OTF2_EvtReaderCallbacks* cb) {
    OTF2_EvtReaderCallbacks_SetBufferFlushCallback(cb, on_buffer_flush);
    OTF2_EvtReaderCallbacks_SetMeasurementOnOffCallback(cb, on_measurement);
    OTF2_EvtReaderCallbacks_SetProgramBeginCallback(cb, on_program_begin);
    OTF2_EvtReaderCallbacks_SetProgramEndCallback(cb, on_program_end);
    OTF2_EvtReaderCallbacks_SetRmaWinCreateCallback(cb, on_win_create);
    OTF2_EvtReaderCallbacks_SetRmaWinDestroyCallback(cb, on_win_destroy);
    OTF2_EvtReaderCallbacks_SetRmaWaitChangeCallback(cb, on_wait_change);
    OTF2_EvtReaderCallbacks_SetRmaCollectiveBeginCallback(cb, on_rma_collective_begin);
    OTF2_EvtReaderCallbacks_SetRmaCollectiveEndCallback(cb, on_rma_collective_end);
    OTF2_EvtReaderCallbacks_SetRmaGroupSyncCallback(cb, on_group_sync);
    OTF2_EvtReaderCallbacks_SetRmaRequestLockCallback(cb, on_request_lock);
    OTF2_EvtReaderCallbacks_SetRmaAcquireLockCallback(cb, on_acquire_lock);
    OTF2_EvtReaderCallbacks_SetRmaTryLockCallback(cb, on_try_lock);
    OTF2_EvtReaderCallbacks_SetRmaReleaseLockCallback(cb, on_release_lock);
    OTF2_EvtReaderCallbacks_SetRmaSyncCallback(cb, on_rma_sync);
    OTF2_EvtReaderCallbacks_SetRmaPutCallback(cb, on_put);
    OTF2_EvtReaderCallbacks_SetRmaGetCallback(cb, on_get);
    OTF2_EvtReaderCallbacks_SetRmaAtomicCallback(cb, on_atomic);
    OTF2_EvtReaderCallbacks_SetRmaOpCompleteBlockingCallback(cb, on_op_blocking);
    OTF2_EvtReaderCallbacks_SetRmaOpCompleteNonBlockingCallback(cb, on_op_nonblocking);
    OTF2_EvtReaderCallbacks_SetRmaOpTestCallback(cb, on_op_test);
    OTF2_EvtReaderCallbacks_SetRmaOpCompleteRemoteCallback(cb, on_op_remote);
    ev_io_set(cb);
}

OTF2_CallbackCode ev_misc_finish(loc_ctx* c) {
    atomic_fetch_add(&c->im->unfinished,
                     c->collectives.count + c->rma_collectives.count + c->io_ops.count);
    return c->measurement_off ? measurement_gap(c, c->last_ns, NULL) : OTF2_CALLBACK_SUCCESS;
}
