/*
 * tools/otf2-import/ev_io.c - I/O records.
 *
 * IoOperationBegin .. IoOperationComplete (same handle and matching ID)
 * is one otf2_io_operation range written at the completion; operations may
 * overlap, so it is a start/end range, not a push/pop. A completion without
 * its begin is a zero-length operation; IoOperationCancelled ends the wait
 * for a completion (it is a mark); a begin still waiting at the end of the
 * location is counted as "never completed".
 */
#include "config.h"

#include <inttypes.h>

#include "ev_common.h"

#define IO PARADIGM(c, OTF2_PARADIGM_UNKNOWN)

#define HANDLE_NAME(k, handle)                                                                     \
    uint64_t handle_name = ev_named(c, (k), &c->im->defs.io_handles, (handle));                    \
    if (handle_name == 0)                                                                          \
    return OTF2_CALLBACK_INTERRUPT

static OTF2_CallbackCode on_create(EV_ARGS, OTF2_IoHandleRef handle, OTF2_IoAccessMode mode,
                                   OTF2_IoCreationFlag creation, OTF2_IoStatusFlag status) {
    EV_BEGIN(EK_IoCreateHandle);
    HANDLE_NAME(EK_IoCreateHandle, handle);
    EV_MARK(EK_IoCreateHandle, ES_IO_HANDLE, IO, handle, handle_name, 0, mode, creation, status);
}

static OTF2_CallbackCode on_destroy(EV_ARGS, OTF2_IoHandleRef handle) {
    EV_BEGIN(EK_IoDestroyHandle);
    HANDLE_NAME(EK_IoDestroyHandle, handle);
    EV_MARK(EK_IoDestroyHandle, ES_IO_HANDLE, IO, handle, handle_name, 0, 0, 0, 0);
}

static OTF2_CallbackCode on_duplicate(EV_ARGS, OTF2_IoHandleRef old_handle,
                                      OTF2_IoHandleRef new_handle, OTF2_IoStatusFlag status) {
    EV_BEGIN(EK_IoDuplicateHandle);
    HANDLE_NAME(EK_IoDuplicateHandle, old_handle);
    if (ev_named(c, EK_IoDuplicateHandle, &c->im->defs.io_handles, new_handle) == 0)
        return OTF2_CALLBACK_INTERRUPT;
    EV_MARK(EK_IoDuplicateHandle, ES_IO_HANDLE, IO, old_handle, handle_name, new_handle, 0, 0,
            status);
}

static OTF2_CallbackCode on_status(EV_ARGS, OTF2_IoHandleRef handle, OTF2_IoStatusFlag status) {
    EV_BEGIN(EK_IoChangeStatusFlags);
    HANDLE_NAME(EK_IoChangeStatusFlags, handle);
    EV_MARK(EK_IoChangeStatusFlags, ES_IO_HANDLE, IO, handle, handle_name, 0, 0, 0, status);
}

static OTF2_CallbackCode on_seek(EV_ARGS, OTF2_IoHandleRef handle, int64_t request,
                                 OTF2_IoSeekOption whence, uint64_t result) {
    EV_BEGIN(EK_IoSeek);
    HANDLE_NAME(EK_IoSeek, handle);
    EV_MARK(EK_IoSeek, ES_IO_SEEK, IO, handle, handle_name, SIGNED(request), whence, result);
}

static OTF2_CallbackCode on_delete(EV_ARGS, OTF2_IoParadigmRef paradigm, OTF2_IoFileRef file) {
    named_def* f;
    EV_BEGIN(EK_IoDeleteFile);
    if ((f = def_table_find(&c->im->defs.io_files, file, NULL)) == NULL)
        return ev_fail(c, EK_IoDeleteFile, "unknown I/O file %" PRIu32, (uint32_t)file);
    EV_MARK(EK_IoDeleteFile, ES_IO_DELETE_FILE, IO, paradigm, ev_string(c, f->name));
}

static OTF2_CallbackCode on_begin(EV_ARGS, OTF2_IoHandleRef handle, OTF2_IoOperationMode mode,
                                  OTF2_IoOperationFlag flags, uint64_t request, uint64_t matching) {
    pending_op op;
    EV_BEGIN(EK_IoOperationBegin);
    HANDLE_NAME(EK_IoOperationBegin, handle);
    (void)handle_name;
    if (attributes != NULL && OTF2_AttributeList_GetNumberOfElements(attributes) > 0)
        c->skipped[EK_COUNT]++;
    op.key1 = handle;
    op.key2 = matching;
    op.begin = c->now;
    op.a = mode;
    op.b = flags;
    op.c = request;
    if (pending_push(&c->io_ops, &op) != 0)
        return ev_fail(c, EK_IoOperationBegin, "out of memory");
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_complete(EV_ARGS, OTF2_IoHandleRef handle, uint64_t result,
                                     uint64_t matching) {
    pending_op op = {0, 0, 0, 0, 0, 0};
    EV_BEGIN(EK_IoOperationComplete);
    HANDLE_NAME(EK_IoOperationComplete, handle);
    if (!pending_take(&c->io_ops, handle, matching, &op))
        op.begin = c->now;
    const uint64_t v[] = {(uint64_t)op.begin,
                          (uint64_t)c->now,
                          NAME(c, NAME_IO_OPERATION),
                          IO,
                          handle,
                          handle_name,
                          op.a,
                          op.b,
                          op.c,
                          result,
                          matching};
    return ev_write(c, EK_IoOperationComplete, ES_IO_OPERATION, v, COUNT_OF(v), attributes);
}

#define IO_OP_EVENT(fn, kind)                                                                      \
    static OTF2_CallbackCode fn(EV_ARGS, OTF2_IoHandleRef handle, uint64_t matching) {             \
        EV_BEGIN(kind);                                                                            \
        HANDLE_NAME(kind, handle);                                                                 \
        EV_MARK(kind, ES_IO_OPERATION_EVENT, IO, handle, handle_name, matching);                   \
    }
IO_OP_EVENT(on_test, EK_IoOperationTest)
IO_OP_EVENT(on_issued, EK_IoOperationIssued)

/* A cancelled operation ends here: its begin stops waiting for a completion. */
static OTF2_CallbackCode on_cancelled(EV_ARGS, OTF2_IoHandleRef handle, uint64_t matching) {
    pending_op begin;
    EV_BEGIN(EK_IoOperationCancelled);
    HANDLE_NAME(EK_IoOperationCancelled, handle);
    (void)pending_take(&c->io_ops, handle, matching, &begin);
    EV_MARK(EK_IoOperationCancelled, ES_IO_OPERATION_EVENT, IO, handle, handle_name, matching);
}

#define IO_LOCK_EVENT(fn, kind)                                                                    \
    static OTF2_CallbackCode fn(EV_ARGS, OTF2_IoHandleRef handle, OTF2_LockType type) {            \
        EV_BEGIN(kind);                                                                            \
        HANDLE_NAME(kind, handle);                                                                 \
        EV_MARK(kind, ES_IO_LOCK, IO, handle, handle_name, type);                                  \
    }
IO_LOCK_EVENT(on_acquire, EK_IoAcquireLock)
IO_LOCK_EVENT(on_release, EK_IoReleaseLock)
IO_LOCK_EVENT(on_try, EK_IoTryLock)

void ev_io_set(OTF2_EvtReaderCallbacks* cb) {
    OTF2_EvtReaderCallbacks_SetIoCreateHandleCallback(cb, on_create);
    OTF2_EvtReaderCallbacks_SetIoDestroyHandleCallback(cb, on_destroy);
    OTF2_EvtReaderCallbacks_SetIoDuplicateHandleCallback(cb, on_duplicate);
    OTF2_EvtReaderCallbacks_SetIoChangeStatusFlagsCallback(cb, on_status);
    OTF2_EvtReaderCallbacks_SetIoSeekCallback(cb, on_seek);
    OTF2_EvtReaderCallbacks_SetIoDeleteFileCallback(cb, on_delete);
    OTF2_EvtReaderCallbacks_SetIoOperationBeginCallback(cb, on_begin);
    OTF2_EvtReaderCallbacks_SetIoOperationCompleteCallback(cb, on_complete);
    OTF2_EvtReaderCallbacks_SetIoOperationTestCallback(cb, on_test);
    OTF2_EvtReaderCallbacks_SetIoOperationIssuedCallback(cb, on_issued);
    OTF2_EvtReaderCallbacks_SetIoOperationCancelledCallback(cb, on_cancelled);
    OTF2_EvtReaderCallbacks_SetIoAcquireLockCallback(cb, on_acquire);
    OTF2_EvtReaderCallbacks_SetIoReleaseLockCallback(cb, on_release);
    OTF2_EvtReaderCallbacks_SetIoTryLockCallback(cb, on_try);
}
