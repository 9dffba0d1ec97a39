/*
 * core/session.c - SessionBegin / SessionEnd, the config string, and the
 * faulty-session state.
 *
 * Config keys (docs/config.md): Sink, Output, Overwrite, Compression, CompressionThreads,
 * Backend, BackendConfig (sinks may read more keys from config->raw). The
 * grammar is the reference loader's (spec 5.4): first occurrence of a key
 * wins, unknown keys are ignored, bad values of known keys are errors.
 */
#define _POSIX_C_SOURCE 200809L
#include "config.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "common/output_file.h"
#include "common/share_agree.h"
#include "common/struct_size.h"
#include "common/utf8.h"
#include "core/core_internal.h"
#include "nvtxw/error.h"
#include "nvtxw/loader.h"

/* Known keys, in the order of the `seen` bits of config_state. */
enum {
    KEY_SINK,
    KEY_OUTPUT,
    KEY_OVERWRITE,
    KEY_COMPRESSION,
    KEY_BACKEND,
    KEY_BACKEND_CONFIG,
    KEY_COMPRESSION_THREADS,
    KEY_COUNT
};
_Static_assert(KEY_COUNT == CORE_CONFIG_KEYS, "core_session.config_values size");
static const char* const config_keys[KEY_COUNT] = {
    "Sink", "Output", "Overwrite", "Compression", "Backend", "BackendConfig", "CompressionThreads"};

typedef struct config_state {
    char* values[KEY_COUNT]; /* first value of each key, copied */
    int failed;
} config_state;

static int config_key_index(const char* begin, const char* end) {
    size_t length = (size_t)(end - begin);
    int i;
    for (i = 0; i < KEY_COUNT; i++) {
        if (strlen(config_keys[i]) == length && strncmp(config_keys[i], begin, length) == 0)
            return i;
    }
    return -1;
}

static int config_consume(void* state_ptr, const char* key_begin, const char* key_end,
                          const char* value_begin, const char* value_end) {
    config_state* state = state_ptr;
    int key = config_key_index(key_begin, key_end);
    if (key < 0 || state->values[key] != NULL)
        return 0; /* unknown key, or a later duplicate: first one wins */
    state->values[key] = nvtxw_strndup(value_begin, (size_t)(value_end - value_begin));
    if (state->values[key] == NULL) {
        state->failed = 1;
        return 1;
    }
    return 0;
}

/* The `length` bytes at `text` as a yes/no word: 0 and *out set, else -1. */
static int parse_bool_n(const char* text, size_t length, int* out) {
    static const char* const yes[] = {"1", "yes", "true", "on"};
    static const char* const no[] = {"0", "no", "false", "off"};
    size_t i;
    for (i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        if (strlen(yes[i]) == length && memcmp(text, yes[i], length) == 0)
            return *out = 1, 0;
        if (strlen(no[i]) == length && memcmp(text, no[i], length) == 0)
            return *out = 0, 0;
    }
    return -1;
}

static int parse_bool(const char* text, int* out) { return parse_bool_n(text, strlen(text), out); }

/* The first value of one key: ranges inside the config string. */
typedef struct key_lookup {
    const char* key;
    const char *begin, *end; /* NULL until found */
} key_lookup;

static int key_lookup_consume(void* state, const char* key_begin, const char* key_end,
                              const char* value_begin, const char* value_end) {
    key_lookup* lookup = state;
    size_t length = (size_t)(key_end - key_begin);
    if (strlen(lookup->key) != length || memcmp(lookup->key, key_begin, length) != 0)
        return 0;
    lookup->begin = value_begin;
    lookup->end = value_end;
    return 1; /* the first occurrence wins: stop */
}

int core_config_value(const core_config* config, const char* key, const char** begin,
                      const char** end) {
    key_lookup lookup = {key, NULL, NULL};
    nvtxwConsumeConfigString(config->raw, key_lookup_consume, &lookup);
    *begin = lookup.begin;
    *end = lookup.end;
    return lookup.begin != NULL;
}

nvtxwResultCode_t core_config_bool(const core_config* config, const char* key, int fallback,
                                   int* out) {
    const char *begin, *end;
    *out = fallback;
    if (!core_config_value(config, key, &begin, &end) ||
        parse_bool_n(begin, (size_t)(end - begin), out) == 0)
        return NVTXW_RESULT_SUCCESS;
    return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                     "cannot begin session: %s=\"%.*s\" is not yes/no/true/false/on/off/1/0", key,
                     (int)(end - begin), begin);
}

/* yes (OUTPUT_REPLACE), no (OUTPUT_KEEP) or in-place (common/output_file.h). */
static int parse_overwrite(const char* text, int* out) {
    int yes = 0;
    if (strcmp(text, "in-place") == 0)
        return *out = OUTPUT_IN_PLACE, 0;
    if (parse_bool(text, &yes) != 0)
        return -1;
    *out = yes ? OUTPUT_REPLACE : OUTPUT_KEEP;
    return 0;
}

static nvtxwResultCode_t parse_compression(const char* text, int* out) {
    char* end;
    long level;
    errno = 0;
    level = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || level < -7 || level > 22)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot begin session: Compression=\"%s\" is not a zstd level from -7 "
                         "to 22",
                         text);
    *out = (int)level;
    return NVTXW_RESULT_SUCCESS;
}

/* 0 .. CORE_MAX_COMPRESSION_THREADS threads. */
static nvtxwResultCode_t parse_threads(const char* text, int* out) {
    char* end;
    long count;
    errno = 0;
    count = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || count < 0 ||
        count > CORE_MAX_COMPRESSION_THREADS)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot begin session: CompressionThreads=\"%s\" is not a number from 0 "
                         "to %d",
                         text, CORE_MAX_COMPRESSION_THREADS);
    *out = (int)count;
    return NVTXW_RESULT_SUCCESS;
}

/* Applies the parsed values to session->config; takes ownership of them. */
static nvtxwResultCode_t config_apply(core_session* session, config_state* state) {
    core_config* config = &session->config;
    config->sink = state->values[KEY_SINK]      ? state->values[KEY_SINK]
                   : state->values[KEY_BACKEND] ? "backend"
                                                : "report";
    config->backend = state->values[KEY_BACKEND];
    config->backend_config = state->values[KEY_BACKEND_CONFIG];
    config->output = state->values[KEY_OUTPUT];
    config->overwrite = OUTPUT_REPLACE; /* as the tools: an output path names what to write */
    config->compression = CORE_DEFAULT_COMPRESSION;
    config->compression_threads = -1;
    if (state->values[KEY_COMPRESSION_THREADS] != NULL &&
        parse_threads(state->values[KEY_COMPRESSION_THREADS], &config->compression_threads) != 0)
        return NVTXW_RESULT_INVALID_ARGUMENT;
    if (state->values[KEY_OVERWRITE] != NULL &&
        parse_overwrite(state->values[KEY_OVERWRITE], &config->overwrite) != 0)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot begin session: Overwrite=\"%s\" is not yes/no/true/false/1/0 "
                         "or in-place",
                         state->values[KEY_OVERWRITE]);
    config->compression_given = state->values[KEY_COMPRESSION] != NULL;
    if (config->compression_given)
        return parse_compression(state->values[KEY_COMPRESSION], &config->compression);
    return NVTXW_RESULT_SUCCESS;
}

static void config_state_free(config_state* state) {
    int i;
    for (i = 0; i < KEY_COUNT; i++)
        nvtxw_free(state->values[i]);
}

static nvtxwResultCode_t session_parse_config(core_session* session, const char* config_string) {
    config_state state;
    nvtxwResultCode_t status;
    memset(&state, 0, sizeof state);
    nvtxwConsumeConfigString(config_string, config_consume, &state);
    if (state.failed) {
        config_state_free(&state);
        return error_oom("the session configuration");
    }
    status = config_apply(session, &state);
    /* The session keeps the strings: config points into them. */
    memcpy(session->config_values, state.values, sizeof state.values);
    session->config_raw = nvtxw_strdup(config_string ? config_string : "");
    session->config.raw = session->config_raw;
    return session->config_raw || status != NVTXW_RESULT_SUCCESS
               ? status
               : error_oom("the session configuration");
}

static void session_free(core_session* session) {
    size_t i;
    if (session == NULL)
        return;
    for (i = 0; i < session->stream_count; i++)
        core_stream_free(session->streams[i]);
    nvtxw_free(session->streams);
    strset_free(&session->stream_names);
    for (i = 0; i < session->domain_count; i++)
        core_domain_destroy(session->domains[i]);
    nvtxw_free(session->domains);
    for (i = 0; i < CORE_CONFIG_KEYS; i++)
        nvtxw_free(session->config_values[i]);
    nvtxw_free(session->config_raw);
    nvtxw_free(session->fault_message);
    nvtxw_free(session->name);
    pthread_mutex_destroy(&session->fault_mutex);
    pthread_mutex_destroy(&session->reg_mutex);
    nvtxw_free(session);
}

static nvtxwResultCode_t session_create_sink(core_session* session) {
    const sink_ops* ops = sink_find(session->config.sink);
    char names[160];
    if (ops != NULL)
        return ops->create(&session->config, session->name, &session->out);
    sink_names(names, sizeof names);
    /* "Sink=report;Output=x": the user separated lines as in a shell */
    return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                     "cannot begin session: unknown Sink=\"%s\" (%s)%s", session->config.sink,
                     names,
                     strpbrk(session->config.sink, ";,=") != NULL
                         ? "; configuration lines are separated by '|' or newlines"
                         : "");
}

/* A shared session's ranks agree before any creates its sink: when the
 * config string failed on one (it is the same on all, but memory is not),
 * every rank fails. The sink must take a share. */
static nvtxwResultCode_t session_agree_on_config(core_session* session, nvtxwResultCode_t status) {
    const nvtxwShare_t* share = session->config.share;
    const sink_ops* ops;
    uint64_t values[1], failed;
    if (status == NVTXW_RESULT_SUCCESS && (ops = sink_find(session->config.sink)) != NULL &&
        !ops->takes_share)
        status = error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                           "cannot begin shared session: Sink=%s cannot be written by several "
                           "processes (only Sink=report can)",
                           session->config.sink);
    failed = share_failed_rank(share, status != NVTXW_RESULT_SUCCESS, values, 1);
    if (failed != 0 && status == NVTXW_RESULT_SUCCESS)
        status = error_set(NVTXW_RESULT_FAILED,
                           failed == UINT64_MAX
                               ? "cannot begin shared session: the share's reduceMax failed"
                               : "cannot begin shared session: rank %llu could not (its message "
                                 "says why)",
                           (unsigned long long)(failed - 1));
    return status;
}

/* The share's own fields; checked before the ranks meet, so a refusal
 * leaves no rank waiting in a callback. */
static nvtxwResultCode_t check_share(const nvtxwShare_t* share) {
    if (share == NULL)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT, "cannot begin shared session: share is "
                                                        "NULL");
    if (struct_size_problem(share->structSize, sizeof *share) != NULL)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot begin shared session: share->structSize=%zu, expected %zu to %u",
                         share->structSize, sizeof *share, STRUCT_SIZE_MAX);
    if (share->ranks == 0 || share->rank >= share->ranks)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot begin shared session: share->rank=%u of ranks=%u", share->rank,
                         share->ranks);
    if (share->reserve == NULL || share->broadcast == NULL || share->gather == NULL ||
        share->reduceMax == NULL)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot begin shared session: a callback of the share is NULL");
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t session_begin(const nvtxwSessionAttributes_t* attr,
                                       const nvtxwShare_t* share, nvtxwSessionHandle_t* out) {
    core_session* session;
    nvtxwResultCode_t status;
    if (attr == NULL || out == NULL)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT, "cannot begin session: %s is NULL",
                         attr == NULL ? "attr" : "sessionOut");
    if (struct_size_problem(attr->structSize, sizeof *attr) != NULL)
        return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                         "cannot begin session: attr->structSize=%zu, expected %zu to %u",
                         attr->structSize, sizeof *attr, STRUCT_SIZE_MAX);
    session = nvtxw_calloc(1, sizeof *session);
    if (session == NULL)
        return error_oom("a session");
    pthread_mutex_init(&session->fault_mutex, NULL);
    pthread_mutex_init(&session->reg_mutex, NULL);
    session->name = utf8_dup_repaired(attr->name ? attr->name : "");
    status = session->name ? session_parse_config(session, attr->configString)
                           : error_oom("the session name");
    if (share != NULL) {
        session->share = *share;
        session->config.share = &session->share;
        status = session_agree_on_config(session, status);
    }
    if (status == NVTXW_RESULT_SUCCESS)
        status = session_create_sink(session);
    if (status == NVTXW_RESULT_SUCCESS &&
        (session->handle = handle_insert(&core_sessions, session)) == 0)
        status = error_oom("a session handle");
    if (status != NVTXW_RESULT_SUCCESS) {
        if (session->out != NULL) /* a shared sink's ranks meet again in it */
            session->out->ops->destroy(session->out, 1);
        session_free(session);
        return status;
    }
    core_session_leave(session); /* others may enter it from here on */
    *out = (nvtxwSessionHandle_t)(uintptr_t)session->handle;
    return NVTXW_RESULT_SUCCESS;
}

nvtxwResultCode_t core_session_begin(const nvtxwSessionAttributes_t* attr,
                                     nvtxwSessionHandle_t* out) {
    return session_begin(attr, NULL, out);
}

nvtxwResultCode_t core_session_begin_shared(const nvtxwSessionAttributes_t* attr,
                                            const nvtxwShare_t* share, nvtxwSessionHandle_t* out) {
    nvtxwResultCode_t status = check_share(share);
    return status == NVTXW_RESULT_SUCCESS ? session_begin(attr, share, out) : status;
}

/* Waits for the registration in progress on each domain (they hold the
 * domain's slot) and releases the domains: later registrations find a
 * stale handle, earlier ones saw `ending` or are done. */
static void session_release_domains(core_session* session) {
    size_t i;
    for (i = 0; i < session->domain_count; i++) {
        void* entered;
        handle_status taken =
            handle_enter_wait(&core_domains, session->domains[i]->handle, &entered);
        assert(taken == HANDLE_ENTERED && entered == session->domains[i]);
        (void)taken;
        handle_release(&core_domains, session->domains[i]->handle);
    }
}

/* SessionEnd holds the session's handle (no other lifecycle call of the
 * session runs), turns away new writes and registrations (`ending`) and
 * waits for the writes in progress on each stream and the registration in
 * progress on each domain before releasing it; calls that start after that
 * find a stale handle. */
nvtxwResultCode_t core_session_end(nvtxwSessionHandle_t handle) {
    core_session* session = core_session_enter(handle, "end session");
    nvtxwResultCode_t status, fault;
    size_t i;
    if (session == NULL)
        return NVTXW_RESULT_INVALID_ARGUMENT;
    atomic_store_explicit(&session->ending, 1, memory_order_release);
    /* Registrations first: once they are done no sink callback but the
     * write path can run, and that one is waited for per stream below. */
    session_release_domains(session);
    /* Streams still open end with the session (spec 1.3). */
    for (i = 0; i < session->stream_count; i++) {
        core_stream* stream = session->streams[i];
        void* entered;
        handle_status taken = handle_enter_wait(&core_streams, stream->handle, &entered);
        assert(taken == HANDLE_ENTERED && entered == stream);
        (void)taken;
        handle_release(&core_streams, stream->handle);
        if (session->out->ops->stream_close != NULL)
            core_session_sink_result(
                session, session->out->ops->stream_close(session->out, stream, stream->sink_state));
    }
    handle_release(&core_sessions, session->handle);
    fault = atomic_load(&session->fault);
    status = session->out->ops->destroy(session->out, fault != NVTXW_RESULT_SUCCESS);
    if (fault != NVTXW_RESULT_SUCCESS) {
        status = fault;
        error_set(fault, "%s", session->fault_message ? session->fault_message : "session faulty");
    }
    session_free(session);
    return status;
}

nvtxwResultCode_t core_session_fault(core_session* session) {
    nvtxwResultCode_t fault = atomic_load_explicit(&session->fault, memory_order_acquire);
    if (fault == NVTXW_RESULT_SUCCESS)
        return fault;
    pthread_mutex_lock(&session->fault_mutex);
    error_set(fault, "session is faulty after an earlier error: %s",
              session->fault_message ? session->fault_message : "(no message)");
    pthread_mutex_unlock(&session->fault_mutex);
    return fault;
}

nvtxwResultCode_t core_session_record_fault(core_session* session, nvtxwResultCode_t code) {
    nvtxwResultCode_t expected = NVTXW_RESULT_SUCCESS;
    pthread_mutex_lock(&session->fault_mutex);
    if (atomic_compare_exchange_strong(&session->fault, &expected, code))
        session->fault_message = nvtxw_strdup(nvtxw_last_error());
    pthread_mutex_unlock(&session->fault_mutex);
    return code;
}
