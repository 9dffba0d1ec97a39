/*
 * core/stream.c - StreamOpen and StreamClose.
 *
 * A stream binds to one domain, a default scope and a default time domain
 * (spec 2.3). Names are unique among a session's open and closed streams, so
 * a report never holds two streams of one name. StreamClose releases the
 * stream only; the session keeps writing other streams (spec 1.5).
 */
#include "config.h"

#include <string.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "common/struct_size.h"
#include "common/utf8.h"
#include "core/core_internal.h"

/* Names are kept as UTF-8, repaired (stream_create): two names are the
 * same when their repaired forms are. 1 taken, 0 free, -1 out of memory. */
static int stream_name_taken(const core_session* session, const char* name) {
    char* repaired = utf8_dup_repaired(name);
    int taken = repaired ? strset_contains(&session->stream_names, repaired) != 0 : -1;
    nvtxw_free(repaired);
    return taken;
}

/* The session's domain of that handle, or NULL. */
static core_domain* session_domain(const core_session* session, nvtxDomainHandle_t handle) {
    size_t i;
    for (i = 0; i < session->domain_count; i++)
        if (session->domains[i]->handle == (uint64_t)(uintptr_t)handle)
            return session->domains[i];
    return NULL;
}

static nvtxwResultCode_t stream_check_attr(core_session* session,
                                           const nvtxwStreamAttributes_t* attr,
                                           core_domain** domain) {
    int taken;
    const char* size_problem =
        attr ? struct_size_problem(attr->structSize, sizeof *attr) : "attr is NULL";
    if (size_problem != NULL)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT, "cannot open stream: %s%s",
                         attr ? "attr->structSize " : "", size_problem);
    if (attr->name == NULL || attr->name[0] == '\0')
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT, "cannot open stream: name is %s",
                         attr->name ? "empty" : "NULL");
    if ((taken = stream_name_taken(session, attr->name)) != 0)
        return taken < 0 ? error_oom("a stream name")
                         : error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                                     "cannot open stream \"%s\": a stream of that name exists in "
                                     "this session",
                                     attr->name);
    if (attr->domain == NULL) {
        nvtxwResultCode_t status = core_domain_find_or_add(session, "", domain);
        if (status != NVTXW_RESULT_SUCCESS)
            return status;
    } else if ((*domain = session_domain(session, attr->domain)) == NULL) {
        /* Another session's domain is only looked up, never read: that
         * session may be ending on another thread. */
        if (core_domain_get(attr->domain, "open stream") == NULL)
            return NVTXW_RESULT_INVALID_ARGUMENT;
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot open stream \"%s\": its domain belongs to another session",
                         attr->name);
    }
    if (!core_domain_scope_known(*domain, attr->scopeId))
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot open stream \"%s\": scopeId=%llu is not NONE, ROOT or a scope "
                         "registered in domain \"%s\"%s",
                         attr->name, (unsigned long long)attr->scopeId, (*domain)->name,
                         core_scope_released_note(*domain, attr->scopeId));
    if (!core_domain_time_domain_known(*domain, attr->timeDomainId))
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot open stream \"%s\": timeDomainId=%llu is neither a timestamp "
                         "type nor a time domain registered in domain \"%s\"",
                         attr->name, (unsigned long long)attr->timeDomainId, (*domain)->name);
    return NVTXW_RESULT_SUCCESS;
}

static core_stream* stream_create(core_session* session, core_domain* domain,
                                  const nvtxwStreamAttributes_t* attr) {
    core_stream* stream = nvtxw_calloc(1, sizeof *stream);
    if (stream == NULL)
        return NULL;
    stream->session = session;
    stream->domain = domain;
    stream->index = session->streams_opened;
    stream->name = utf8_dup_repaired(attr->name);
    stream->scope_id = attr->scopeId;
    stream->time_domain_id = attr->timeDomainId;
    stream->order_interleaving = attr->orderInterleaving;
    stream->ordering_type = attr->orderingType;
    stream->ordering_skid = attr->orderingSkid;
    stream->ordering_skid_amount = attr->orderingSkidAmount;
    if (stream->name == NULL) {
        nvtxw_free(stream);
        return NULL;
    }
    return stream;
}

void core_stream_free(core_stream* stream) {
    if (stream == NULL)
        return;
    nvtxw_free(stream->name);
    nvtxw_free(stream);
}

static int session_add_stream(core_session* session, core_stream* stream) {
    if (session->stream_count == session->stream_capacity) {
        size_t capacity = session->stream_capacity ? session->stream_capacity * 2 : 8;
        core_stream** grown =
            nvtxw_reallocarray(session->streams, capacity, sizeof *session->streams);
        if (grown == NULL)
            return -1;
        session->streams = grown;
        session->stream_capacity = capacity;
    }
    stream->slot = session->stream_count;
    session->streams[session->stream_count++] = stream;
    return 0;
}

/* O(1) by the stream's slot: a session that opens and closes a million
 * streams (one per thread of a Chrome trace) must not pay a scan each. */
static void session_remove_stream(core_session* session, const core_stream* stream) {
    core_stream* last = session->streams[--session->stream_count];
    session->streams[stream->slot] = last;
    last->slot = stream->slot;
}

/* Publishes the stream: session list, name set, handle. */
static nvtxwResultCode_t stream_publish(core_session* session, core_stream* stream) {
    if (strset_add(&session->stream_names, stream->name) != 0)
        return error_oom("the stream name set");
    if (session_add_stream(session, stream) != 0)
        return error_oom("the stream list");
    stream->handle = handle_insert(&core_streams, stream);
    if (stream->handle == 0) {
        session_remove_stream(session, stream);
        return error_oom("a stream handle");
    }
    stream->handle_slot = handle_slot_of(&core_streams, stream->handle);
    core_stream_leave(stream); /* others may enter it from here on */
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t stream_open(core_session* session, const nvtxwStreamAttributes_t* attr,
                                     nvtxwStreamHandle_t* out) {
    core_domain* domain = NULL;
    core_stream* stream;
    nvtxwResultCode_t status;
    if (out == NULL)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT, "cannot open stream: streamOut is NULL");
    if ((status = core_session_check(session)) != NVTXW_RESULT_SUCCESS ||
        (status = stream_check_attr(session, attr, &domain)) != NVTXW_RESULT_SUCCESS)
        return status;
    stream = stream_create(session, domain, attr);
    if (stream == NULL)
        return error_oom("a stream");
    status = session->out->ops->stream_open
                 ? session->out->ops->stream_open(session->out, stream, &stream->sink_state)
                 : NVTXW_RESULT_SUCCESS;
    if (status == NVTXW_RESULT_SUCCESS && (status = stream_publish(session, stream)) != 0 &&
        session->out->ops->stream_close)
        session->out->ops->stream_close(session->out, stream, stream->sink_state);
    if (status != NVTXW_RESULT_SUCCESS) {
        core_stream_free(stream);
        return core_session_sink_result(session, status);
    }
    session->streams_opened++;
    core_scope_refer(domain, stream->scope_id, 1);
    *out = (nvtxwStreamHandle_t)(uintptr_t)stream->handle;
    return NVTXW_RESULT_SUCCESS;
}

nvtxwResultCode_t core_stream_open(nvtxwSessionHandle_t handle, const nvtxwStreamAttributes_t* attr,
                                   nvtxwStreamHandle_t* out) {
    core_session* session = core_session_enter(handle, "open stream");
    nvtxwResultCode_t status;
    if (session == NULL)
        return NVTXW_RESULT_INVALID_ARGUMENT;
    /* reg_mutex: the sink's stream_open (and a default domain's
     * domain_register) never overlap a registration's sink callback. */
    pthread_mutex_lock(&session->reg_mutex);
    status = stream_open(session, attr, out);
    pthread_mutex_unlock(&session->reg_mutex);
    core_session_leave(session);
    return status;
}

/* Closing takes the stream (no write in progress) and then its session (no
 * SessionEnd, StreamOpen or other StreamClose in progress). The session is
 * only tried, never waited for: SessionEnd holds it while it waits for the
 * session's streams, so waiting here could deadlock. */
nvtxwResultCode_t core_stream_close(nvtxwStreamHandle_t handle) {
    core_stream* stream = core_stream_enter(handle, "close stream");
    core_session* session;
    nvtxwResultCode_t status = NVTXW_RESULT_SUCCESS;
    if (stream == NULL)
        return NVTXW_RESULT_INVALID_ARGUMENT;
    session = core_session_enter((nvtxwSessionHandle_t)(uintptr_t)stream->session->handle,
                                 "close stream");
    if (session == NULL) {
        core_stream_leave(stream);
        return NVTXW_RESULT_INVALID_ARGUMENT;
    }
    handle_release(&core_streams, stream->handle);
    pthread_mutex_lock(&session->reg_mutex);
    if (session->out->ops->stream_close != NULL)
        status = session->out->ops->stream_close(session->out, stream, stream->sink_state);
    session_remove_stream(session, stream);
    core_scope_refer(stream->domain, stream->scope_id, -1);
    pthread_mutex_unlock(&session->reg_mutex);
    core_stream_free(stream);
    status = core_session_sink_result(session, status);
    core_session_leave(session);
    return status;
}
