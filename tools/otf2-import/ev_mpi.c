/*
 * tools/otf2-import/ev_mpi.c - MPI point-to-point, requests, collectives,
 * communicator creation.
 *
 * Messages are matched without looking at other locations: MPI delivers
 * the messages of one (communicator, sender, receiver, tag) in order, so
 * the n-th send of such a tuple on the sender's location and the n-th
 * receive on the receiver's are the same message. Both ends carry the tuple,
 * n (`sequence`) and message_id = mix(tuple, n), so exporters pair them
 * while each location streams on its own (docs/otf2-mapping.md, Messages).
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ev_common.h"
#include "tool_alloc.h"

static uint64_t mix(uint64_t h, uint64_t v) {
    h ^= v + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ULL;
    return h ^ (h >> 27);
}

static size_t seq_slot(const seq_entry* e, size_t capacity) {
    uint64_t h =
        mix(mix(mix(mix(e->send, e->comm), e->tag), (uint64_t)e->sender), (uint64_t)e->receiver);
    return (size_t)h & (capacity - 1);
}

static seq_entry* seq_find(seq_entry* table, size_t capacity, const seq_entry* key) {
    for (size_t s = seq_slot(key, capacity);; s = (s + 1) & (capacity - 1)) {
        seq_entry* e = &table[s];
        if (!e->used || (e->comm == key->comm && e->tag == key->tag && e->send == key->send &&
                         e->sender == key->sender && e->receiver == key->receiver))
            return e;
    }
}

static int seq_grow(loc_ctx* c) {
    size_t capacity = c->seq_capacity ? c->seq_capacity * 2 : 64;
    seq_entry* table = nvtxw_calloc(capacity, sizeof *table);
    if (table == NULL)
        return -1;
    for (size_t i = 0; i < c->seq_capacity; i++) {
        if (c->seqs[i].used)
            *seq_find(table, capacity, &c->seqs[i]) = c->seqs[i];
    }
    nvtxw_free(c->seqs);
    c->seqs = table;
    c->seq_capacity = capacity;
    return 0;
}

/* The number of earlier messages of this tuple on this location (then
 * counts this one); -1 when out of memory. */
static int64_t seq_next(loc_ctx* c, const seq_entry* key) {
    seq_entry* e;
    if ((c->seq_count + 1) * 2 > c->seq_capacity && seq_grow(c) != 0)
        return -1;
    e = seq_find(c->seqs, c->seq_capacity, key);
    if (!e->used) {
        *e = *key;
        e->used = 1;
        e->count = 0;
        c->seq_count++;
    }
    return (int64_t)e->count++;
}

/* A rank of `comm` as a world rank: -2 (COMM_SELF) is the caller itself;
 * untranslatable ranks (inter-communicators) become -1 - rank. */
static int64_t world(const loc_ctx* c, uint32_t comm, uint32_t rank) {
    int64_t w = defs_world_rank(&c->im->defs, comm, rank);
    return w == -2 ? c->world_rank : w >= 0 ? w : -1 - (int64_t)rank;
}

static OTF2_CallbackCode message(loc_ctx* c, event_kind k, int send, uint32_t peer, uint32_t comm,
                                 uint32_t tag, uint64_t bytes, uint64_t request,
                                 OTF2_AttributeList* attributes) {
    comm_def* cd = def_table_find(&c->im->defs.comms, comm, NULL);
    seq_entry key = {0};
    int64_t seq, me = c->world_rank >= 0 ? c->world_rank : -1 - (int64_t)c->index;
    uint64_t id;
    if (cd == NULL)
        return ev_fail(c, k, "unknown communicator %" PRIu32, comm);
    key.comm = comm;
    key.tag = tag;
    key.send = (uint8_t)send;
    key.sender = send ? me : world(c, comm, peer);
    key.receiver = send ? world(c, comm, peer) : me;
    if ((seq = seq_next(c, &key)) < 0)
        return ev_fail(c, k, "out of memory matching messages");
    id = mix(mix(mix(mix(mix(0, comm), tag), (uint64_t)key.sender), (uint64_t)key.receiver),
             (uint64_t)seq);
    const uint64_t v[] = {(uint64_t)c->now,
                          NAME(c, k),
                          PARADIGM(c, OTF2_PARADIGM_MPI),
                          comm,
                          ev_string(c, cd->name),
                          (uint64_t)key.sender,
                          (uint64_t)key.receiver,
                          tag,
                          bytes,
                          (uint64_t)seq,
                          id,
                          request,
                          send ? id : 0,  /* flow_out */
                          send ? 0 : id}; /* flow_in */
    return ev_write(c, k, ES_MPI_MESSAGE, v, COUNT_OF(v), attributes);
}

static OTF2_CallbackCode on_send(EV_ARGS, uint32_t receiver, OTF2_CommRef comm, uint32_t tag,
                                 uint64_t length) {
    EV_BEGIN(EK_MpiSend);
    return message(c, EK_MpiSend, 1, receiver, comm, tag, length, 0, attributes);
}

static OTF2_CallbackCode on_isend(EV_ARGS, uint32_t receiver, OTF2_CommRef comm, uint32_t tag,
                                  uint64_t length, uint64_t request) {
    EV_BEGIN(EK_MpiIsend);
    return message(c, EK_MpiIsend, 1, receiver, comm, tag, length, request, attributes);
}

static OTF2_CallbackCode on_recv(EV_ARGS, uint32_t sender, OTF2_CommRef comm, uint32_t tag,
                                 uint64_t length) {
    EV_BEGIN(EK_MpiRecv);
    return message(c, EK_MpiRecv, 0, sender, comm, tag, length, 0, attributes);
}

static OTF2_CallbackCode on_irecv(EV_ARGS, uint32_t sender, OTF2_CommRef comm, uint32_t tag,
                                  uint64_t length, uint64_t request) {
    EV_BEGIN(EK_MpiIrecv);
    return message(c, EK_MpiIrecv, 0, sender, comm, tag, length, request, attributes);
}

#define REQUEST_EVENT(fn, kind)                                                                    \
    static OTF2_CallbackCode fn(EV_ARGS, uint64_t request) {                                       \
        EV_BEGIN(kind);                                                                            \
        EV_MARK(kind, ES_MPI_REQUEST, PARADIGM(c, OTF2_PARADIGM_MPI), request);                    \
    }
REQUEST_EVENT(on_isend_complete, EK_MpiIsendComplete)
REQUEST_EVENT(on_irecv_request, EK_MpiIrecvRequest)
REQUEST_EVENT(on_request_test, EK_MpiRequestTest)
REQUEST_EVENT(on_request_cancelled, EK_MpiRequestCancelled)
REQUEST_EVENT(on_nb_collective_request, EK_NonBlockingCollectiveRequest)

static OTF2_CallbackCode on_collective_begin(EV_ARGS) {
    pending_op op = {0, 0, 0, 0, 0, 0};
    EV_BEGIN(EK_MpiCollectiveBegin);
    if (attributes != NULL && OTF2_AttributeList_GetNumberOfElements(attributes) > 0)
        c->skipped[EK_COUNT]++; /* the range is written at the end with the end's attributes */
    op.begin = c->now;
    if (pending_push(&c->collectives, &op) != 0)
        return ev_fail(c, EK_MpiCollectiveBegin, "out of memory");
    return OTF2_CALLBACK_SUCCESS;
}

/* The collective as one range from its begin (its own time if the begin is
 * missing: a zero-length range rather than a lost operation). */
static OTF2_CallbackCode on_collective_end(EV_ARGS, OTF2_CollectiveOp op, OTF2_CommRef comm,
                                           uint32_t root, uint64_t sent, uint64_t received) {
    pending_op begin;
    comm_def* cd;
    EV_BEGIN(EK_MpiCollectiveEnd);
    if ((cd = def_table_find(&c->im->defs.comms, comm, NULL)) == NULL)
        return ev_fail(c, EK_MpiCollectiveEnd, "unknown communicator %" PRIu32, (uint32_t)comm);
    if (!pending_take(&c->collectives, 0, 0, &begin))
        begin.begin = c->now;
    const uint64_t v[] = {(uint64_t)begin.begin,
                          (uint64_t)c->now,
                          NAME(c, NAME_MPI_COLLECTIVE),
                          PARADIGM(c, OTF2_PARADIGM_MPI),
                          op,
                          comm,
                          ev_string(c, cd->name),
                          root == OTF2_UNDEFINED_UINT32 ? (uint64_t)-1
                                                        : (uint64_t)world(c, comm, root),
                          sent,
                          received};
    return ev_write(c, EK_MpiCollectiveEnd, ES_MPI_COLLECTIVE, v, COUNT_OF(v), attributes);
}

static OTF2_CallbackCode on_nb_collective_complete(EV_ARGS, OTF2_CollectiveOp op, OTF2_CommRef comm,
                                                   uint32_t root, uint64_t sent, uint64_t received,
                                                   uint64_t request) {
    comm_def* cd;
    EV_BEGIN(EK_NonBlockingCollectiveComplete);
    if ((cd = def_table_find(&c->im->defs.comms, comm, NULL)) == NULL)
        return ev_fail(c, EK_NonBlockingCollectiveComplete, "unknown communicator %" PRIu32,
                       (uint32_t)comm);
    EV_MARK(EK_NonBlockingCollectiveComplete, ES_MPI_COLLECTIVE_COMPLETE,
            PARADIGM(c, OTF2_PARADIGM_MPI), op, comm, ev_string(c, cd->name),
            root == OTF2_UNDEFINED_UINT32 ? (uint64_t)-1 : (uint64_t)world(c, comm, root), sent,
            received, request);
}

static OTF2_CallbackCode communicator(loc_ctx* c, event_kind k, OTF2_CommRef comm,
                                      OTF2_AttributeList* attributes) {
    comm_def* cd = def_table_find(&c->im->defs.comms, comm, NULL);
    if (cd == NULL)
        return ev_fail(c, k, "unknown communicator %" PRIu32, (uint32_t)comm);
    EV_MARK(k, ES_COMMUNICATOR, PARADIGM(c, OTF2_PARADIGM_MPI), comm, ev_string(c, cd->name));
}

static OTF2_CallbackCode on_comm_create(EV_ARGS, OTF2_CommRef comm) {
    EV_BEGIN(EK_CommCreate);
    return communicator(c, EK_CommCreate, comm, attributes);
}

static OTF2_CallbackCode on_comm_destroy(EV_ARGS, OTF2_CommRef comm) {
    EV_BEGIN(EK_CommDestroy);
    return communicator(c, EK_CommDestroy, comm, attributes);
}

void ev_mpi_set(OTF2_EvtReaderCallbacks* cb) {
    OTF2_EvtReaderCallbacks_SetMpiSendCallback(cb, on_send);
    OTF2_EvtReaderCallbacks_SetMpiIsendCallback(cb, on_isend);
    OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cb, on_recv);
    OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(cb, on_irecv);
    OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(cb, on_isend_complete);
    OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(cb, on_irecv_request);
    OTF2_EvtReaderCallbacks_SetMpiRequestTestCallback(cb, on_request_test);
    OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback(cb, on_request_cancelled);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(cb, on_collective_begin);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, on_collective_end);
    OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveRequestCallback(cb, on_nb_collective_request);
    OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveCompleteCallback(cb, on_nb_collective_complete);
    OTF2_EvtReaderCallbacks_SetCommCreateCallback(cb, on_comm_create);
    OTF2_EvtReaderCallbacks_SetCommDestroyCallback(cb, on_comm_destroy);
}
