/*
 * tools/record/rec_session.c - the recorder's session: begun when NVTX
 * loads this library (the program's first NVTX call), ended at exit.
 *
 * Environment (set by nvtxw-record, docs/record.md):
 *   NVTXW_RECORD_OUTPUT  the report's path (default: COMM.PID.nvtxw in the
 *                        current directory);
 *   NVTXW_RECORD_PID     the process nvtxw-record started: any other
 *                        process (a child that exec'd another annotated
 *                        program) writes OUTPUT with ".PID" before its
 *                        extension, so every process has a report;
 *   NVTXW_RECORD_CONFIG  more config lines (docs/config.md), e.g. Sink=json;
 *   NVTXW_RECORD_STATUS  a file where the process nvtxw-record started says
 *                        how its recording went: "begun", then "ended" or
 *                        "failed: MESSAGE" (nvtxw_record.c reads it).
 * Streams: one per (thread, domain), named after the thread (its
 * nvtxNameOsThread name, else "thread TID"; in a named domain " [DOMAIN]"
 * follows; stream names are unique in a session, so a name taken already
 * gets " (TID)"), in scope thread[TID] under COMM[PID], on a
 * CLOCK_MONOTONIC time domain.
 * A forked child that does not exec records nothing (the parent's session,
 * its threads and its file are not the child's): docs/record.md.
 */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nvtxw/backend.h"
#include "nvtxw/error.h"
#include "nvtxw/helpers.h"
#include "rec_internal.h"

rec_state rec = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* The calling thread's rec_thread: a key, not a __thread variable. A
 * library NVTX loads with dlopen gets dynamic TLS, and LeakSanitizer's
 * tracer crashes on it when a thread other than main calls exit(); the
 * key costs the same few nanoseconds. Its destructor closes the thread's
 * streams. */
pthread_key_t rec_thread_key;

/* Names given by nvtxNameOsThread, by TID (under rec.lock). */
typedef struct thread_name {
    uint32_t tid;
    char* name;
} thread_name;
static thread_name* names;
static size_t name_count, name_capacity;

void rec_misuse(int kind) { atomic_fetch_add_explicit(&rec.misuse[kind], 1, memory_order_relaxed); }

void rec_refused(nvtxwResultCode_t status) {
    if (status != NVTXW_RESULT_INVALID_ARGUMENT)
        atomic_store(&rec.stopped, 1);
    if (atomic_fetch_add(&rec.misuse[REC_MISUSE_REFUSED], 1) != 0)
        return;
    pthread_mutex_lock(&rec.lock);
    snprintf(rec.first_refusal, sizeof rec.first_refusal, "%s", nvtxw_last_error());
    pthread_mutex_unlock(&rec.lock);
}

/* ---- domains ---------------------------------------------------------- */

static const uint64_t value_types[REC_NVTX_PAYLOAD_TYPES] = {
    0,
    NVTX_PAYLOAD_ENTRY_TYPE_UINT64,
    NVTX_PAYLOAD_ENTRY_TYPE_INT64,
    NVTX_PAYLOAD_ENTRY_TYPE_DOUBLE,
    NVTX_PAYLOAD_ENTRY_TYPE_UINT32,
    NVTX_PAYLOAD_ENTRY_TYPE_INT32,
    NVTX_PAYLOAD_ENTRY_TYPE_FLOAT,
};

/* The schema of an NVTX event attribute's payload value: one field. */
static nvtxwResultCode_t register_value_schema(rec_domain* d, int type) {
    nvtxPayloadSchemaEntry_t entry = {0, value_types[type], "payload", NULL, 0, 0, NULL, NULL};
    nvtxPayloadSchemaAttr_t attr;
    memset(&attr, 0, sizeof attr);
    attr.fieldMask = NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NAME | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE |
                     NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_FLAGS | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES |
                     NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES |
                     NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_STATIC_SIZE;
    attr.name = "nvtx payload";
    attr.type = NVTX_PAYLOAD_SCHEMA_TYPE_STATIC;
    attr.entries = &entry;
    attr.numEntries = 1;
    attr.payloadStaticSize = type >= REC_NVTX_PAYLOAD_UINT32 ? 4 : 8;
    return rec.iface->SchemaRegister(d->handle, &attr, &d->value_schema[type]);
}

/* Registers the domain and what its events need (under rec.lock). */
static nvtxwResultCode_t domain_setup(rec_domain* d) {
    nvtxwResultCode_t status = nvtxwDomainRegister(rec.iface, rec.session, d->name, &d->handle);
    int type;
    if (status == NVTXW_RESULT_SUCCESS)
        status =
            nvtxwEventSchemasRegister(rec.iface, d->handle, NVTXW_EVENT_HELPER_SCHEMA_ALL, &d->ids);
    for (type = 1; type < REC_NVTX_PAYLOAD_TYPES && status == NVTXW_RESULT_SUCCESS; type++)
        status = register_value_schema(d, type);
    if (status == NVTXW_RESULT_SUCCESS)
        status = nvtxwTimeDomainRegister(
            rec.iface, d->handle, NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_MONOTONIC, &d->time_domain);
    if (status == NVTXW_RESULT_SUCCESS) {
        char path[96];
        nvtxScopeAttr_t attr = {sizeof attr, path, NVTX_SCOPE_ROOT, NVTX_SCOPE_NONE};
        snprintf(path, sizeof path, "%s[%d]", rec.process, (int)rec.pid);
        status = rec.iface->ScopeRegister(d->handle, &attr, &d->process_scope);
    }
    return status;
}

/* A new domain in the table (under rec.lock); NULL when none can be made. */
static rec_domain* domain_add(const char* name) {
    uint32_t index = atomic_load(&rec.domain_count);
    rec_domain* d;
    if (index == REC_MAX_DOMAINS || (d = calloc(1, sizeof *d)) == NULL)
        return NULL;
    d->index = index;
    if ((name != NULL && (d->name = strdup(name)) == NULL) || domain_setup(d) != 0) {
        if (rec.first_refusal[0] == '\0')
            snprintf(rec.first_refusal, sizeof rec.first_refusal, "%s", nvtxw_last_error());
        free(d->name);
        free(d);
        return NULL;
    }
    atomic_store(&rec.domains[index], d);
    atomic_store(&rec.domain_count, index + 1);
    return d;
}

rec_domain* rec_domain_of(nvtxDomainHandle_t handle) {
    uintptr_t index = (uintptr_t)handle;
    if (index < atomic_load_explicit(&rec.domain_count, memory_order_acquire))
        return atomic_load_explicit(&rec.domains[index], memory_order_relaxed);
    rec_misuse(REC_MISUSE_UNKNOWN_DOMAIN);
    return NULL;
}

nvtxDomainHandle_t rec_domain_create(const char* name) {
    rec_domain* d = NULL;
    uint32_t i, count;
    if (name == NULL)
        name = "";
    if (!atomic_load(&rec.active))
        return (nvtxDomainHandle_t)(uintptr_t)REC_MAX_DOMAINS;
    pthread_mutex_lock(&rec.lock);
    count = atomic_load(&rec.domain_count);
    for (i = 1; i < count && d == NULL; i++)
        if (strcmp(rec.domains[i]->name, name) == 0)
            d = rec.domains[i];
    if (d == NULL && atomic_load(&rec.active) && count > 0)
        d = domain_add(name);
    pthread_mutex_unlock(&rec.lock);
    /* index 0 is the default domain, which NVTX names NULL: a domain we
     * could not make is handed out as an index past the table */
    return (nvtxDomainHandle_t)(uintptr_t)(d != NULL ? d->index : REC_MAX_DOMAINS);
}

/* ---- threads and streams ---------------------------------------------- */

static const char* name_of(uint32_t tid) {
    size_t i;
    for (i = 0; i < name_count; i++)
        if (names[i].tid == tid)
            return names[i].name;
    return NULL;
}

void rec_thread_name(uint32_t tid, const char* name) {
    char* copy;
    size_t i;
    if (!atomic_load(&rec.active) || (copy = strdup(name)) == NULL)
        return;
    pthread_mutex_lock(&rec.lock);
    for (i = 0; i < name_count && names[i].tid != tid; i++)
        ;
    if (i == name_count && name_count == name_capacity) {
        size_t capacity = name_capacity ? 2 * name_capacity : 16;
        thread_name* grown = realloc(names, capacity * sizeof *names);
        if (grown == NULL) {
            pthread_mutex_unlock(&rec.lock);
            free(copy);
            return;
        }
        names = grown;
        name_capacity = capacity;
    }
    if (i == name_count)
        names[name_count++].tid = tid;
    else
        free(names[i].name);
    names[i].name = copy;
    pthread_mutex_unlock(&rec.lock);
}

rec_thread* rec_thread_self(void) {
    rec_thread* t = pthread_getspecific(rec_thread_key);
    if (t != NULL)
        return t;
    if ((t = calloc(1, sizeof *t)) == NULL)
        return NULL;
    t->tid = gettid();
    t->index = atomic_fetch_add(&rec.thread_count, 1);
    if (pthread_setspecific(rec_thread_key, t) != 0) {
        free(t);
        return NULL;
    }
    return t;
}

static nvtxwResultCode_t try_open(rec_domain* d, const char* name, uint64_t scope,
                                  nvtxwStreamHandle_t* stream) {
    nvtxwStreamAttributes_t attr;
    nvtxwStreamAttributesInit(&attr);
    attr.name = name;
    attr.domain = d->handle;
    attr.scopeId = scope;
    attr.timeDomainId = d->time_domain;
    return rec.iface->StreamOpen(rec.session, &attr, stream);
}

/* Opens the thread's stream in `d` (under rec.lock). */
static void stream_open(rec_thread* t, rec_domain* d, rec_stream* s) {
    char label[64], name[200], path[32];
    const char* given = name_of((uint32_t)t->tid);
    nvtxScopeAttr_t attr = {sizeof attr, path, d->process_scope, NVTX_SCOPE_NONE};
    nvtxwStreamHandle_t stream = NULL;
    uint64_t scope = NVTX_SCOPE_NONE;
    int n;
    if (given != NULL)
        snprintf(label, sizeof label, "%s", given);
    else
        snprintf(label, sizeof label, "thread %d", (int)t->tid);
    n = snprintf(name, sizeof name, "%s%s%.80s%s", label, d->name != NULL ? " [" : "",
                 d->name != NULL ? d->name : "", d->name != NULL ? "]" : "");
    snprintf(path, sizeof path, "thread[%d]", (int)t->tid);
    if (!atomic_load(&rec.active) ||
        rec.iface->ScopeRegister(d->handle, &attr, &scope) != NVTXW_RESULT_SUCCESS ||
        (try_open(d, name, scope, &stream) != NVTXW_RESULT_SUCCESS &&
         (snprintf(name + n, sizeof name - (size_t)n, " (%d)", (int)t->tid) < 0 ||
          try_open(d, name, scope, &stream) != NVTXW_RESULT_SUCCESS))) {
        if (rec.first_refusal[0] == '\0')
            snprintf(rec.first_refusal, sizeof rec.first_refusal, "%s", nvtxw_last_error());
        s->failed = 1;
        return;
    }
    nvtxwEventWriterInit(&s->writer, rec.iface, stream, &d->ids);
}

rec_stream* rec_stream_open(rec_domain* d, rec_thread** thread) {
    rec_thread* t;
    rec_stream* s;
    if (!atomic_load_explicit(&rec.active, memory_order_relaxed) || (t = rec_thread_self()) == NULL)
        return NULL;
    if (atomic_load_explicit(&rec.stopped, memory_order_relaxed)) {
        rec_misuse(REC_MISUSE_STOPPED);
        return NULL;
    }
    *thread = t;
    if (d->index >= t->stream_capacity) {
        uint32_t capacity = d->index + 4;
        rec_stream* grown = realloc(t->streams, capacity * sizeof *grown);
        if (grown == NULL)
            return NULL;
        memset(grown + t->stream_capacity, 0, (capacity - t->stream_capacity) * sizeof *grown);
        t->streams = grown;
        t->stream_capacity = capacity;
    }
    s = &t->streams[d->index];
    if (s->writer.stream == NULL && !s->failed) {
        pthread_mutex_lock(&rec.lock);
        stream_open(t, d, s);
        pthread_mutex_unlock(&rec.lock);
        if (s->failed)
            rec_misuse(REC_MISUSE_NO_STREAM);
    }
    return s->writer.stream != NULL ? s : NULL;
}

/* A thread ends: its streams are closed (their last chunks written). */
static void thread_exit(void* arg) {
    rec_thread* t = arg;
    uint32_t i;
    pthread_mutex_lock(&rec.lock);
    for (i = 0; i < t->stream_capacity; i++)
        if (t->streams[i].writer.stream != NULL && atomic_load(&rec.active))
            rec.iface->StreamClose(t->streams[i].writer.stream);
    pthread_mutex_unlock(&rec.lock);
    free(t->streams);
    free(t);
}

/* ---- the session -------------------------------------------------------- */

static void read_process_name(void) {
    FILE* comm = fopen("/proc/self/comm", "r");
    size_t n = 0;
    if (comm != NULL) {
        if (fgets(rec.process, sizeof rec.process, comm) != NULL)
            n = strcspn(rec.process, "\n");
        fclose(comm);
    }
    rec.process[n] = '\0';
    if (n == 0)
        snprintf(rec.process, sizeof rec.process, "process");
    /* it names a scope node: no separators or brackets in it */
    for (n = 0; rec.process[n] != '\0'; n++)
        if (strchr("/[]\\", rec.process[n]) != NULL)
            rec.process[n] = '_';
}

/* The report's path: NVTXW_RECORD_OUTPUT, with ".PID" before the
 * extension in a process other than the one nvtxw-record started. */
static void choose_output(void) {
    const char* output = getenv("NVTXW_RECORD_OUTPUT");
    const char* root = getenv("NVTXW_RECORD_PID");
    const char *slash, *dot;
    if (output == NULL || output[0] == '\0') {
        snprintf(rec.output, sizeof rec.output, "%s.%d.nvtxw", rec.process, (int)rec.pid);
        return;
    }
    if (root == NULL || atol(root) == (long)rec.pid) {
        snprintf(rec.output, sizeof rec.output, "%s", output);
        return;
    }
    slash = strrchr(output, '/');
    dot = strrchr(output, '.');
    if (dot == NULL || (slash != NULL && dot < slash) || dot == output ||
        (slash != NULL && dot == slash + 1))
        dot = output + strlen(output);
    snprintf(rec.output, sizeof rec.output, "%.*s.%d%s", (int)(dot - output), output, (int)rec.pid,
             dot);
}

/* NVTXW_RECORD_STATUS of the process nvtxw-record started, else "". */
static char status_path[4096];

static void tell_status(const char* state, const char* message) {
    FILE* f;
    if (status_path[0] == '\0' || (f = fopen(status_path, "w")) == NULL)
        return;
    fprintf(f, "%s%s%s\n", state, message != NULL ? ": " : "", message != NULL ? message : "");
    fclose(f);
}

static void find_status_path(void) {
    const char* path = getenv("NVTXW_RECORD_STATUS");
    const char* root = getenv("NVTXW_RECORD_PID");
    if (path != NULL && root != NULL && atol(root) == (long)rec.pid)
        snprintf(status_path, sizeof status_path, "%s", path);
}

/* fork without exec: the child must not touch the parent's session. */
static void forked_child(void) {
    atomic_store(&rec.active, 0);
    rec.session = NULL;
    status_path[0] = '\0';
    /* another thread of the parent may have held it at the fork: the
     * child's exit (rec_session_end) and its registrations must not wait
     * for a thread it does not have */
    pthread_mutex_init(&rec.lock, NULL);
}

int rec_session_begin(void) {
    nvtxwSessionAttributes_t attr;
    const char* extra = getenv("NVTXW_RECORD_CONFIG");
    char* config;
    char session_name[96];
    size_t size;
    rec.pid = getpid();
    rec_clock_init();
    read_process_name();
    choose_output();
    find_status_path();
    if (nvtxwGetInterface(NVTXW_INTERFACE_VERSION, (const void**)&rec.iface) != 0) {
        fprintf(stderr, "nvtxw-record: error: libnvtxw has no version 2 interface\n");
        return -1;
    }
    size = strlen(rec.output) + (extra != NULL ? strlen(extra) : 0) + 32;
    if ((config = malloc(size)) == NULL)
        return -1;
    snprintf(config, size, "Output=%s%s%s", rec.output, extra != NULL ? "|" : "",
             extra != NULL ? extra : "");
    snprintf(session_name, sizeof session_name, "%s", rec.process);
    nvtxwSessionAttributesInit(&attr);
    attr.name = session_name;
    attr.configString = config;
    if (rec.iface->SessionBegin(&attr, &rec.session) != NVTXW_RESULT_SUCCESS) {
        fprintf(stderr, "nvtxw-record: error: cannot record %s [%d]: %s\n", rec.process,
                (int)rec.pid, nvtxw_last_error());
        tell_status("failed", nvtxw_last_error());
        free(config);
        return -1;
    }
    free(config);
    pthread_key_create(&rec_thread_key, thread_exit);
    pthread_atfork(NULL, NULL, forked_child);
    atomic_store(&rec.active, 1);
    pthread_mutex_lock(&rec.lock);
    if (domain_add(NULL) == NULL) {
        pthread_mutex_unlock(&rec.lock);
        fprintf(stderr, "nvtxw-record: error: cannot record %s [%d]: %s\n", rec.process,
                (int)rec.pid, rec.first_refusal);
        tell_status("failed", rec.first_refusal);
        atomic_store(&rec.active, 0);
        return -1;
    }
    pthread_mutex_unlock(&rec.lock);
    tell_status("begun", NULL);
    return 0;
}

static const char* const misuse_words[REC_MISUSE_KINDS] = {
    "range pops without a push",
    "range ends of an unknown range ID",
    "events of a domain handle this process never got",
    "events with attributes that are not NVTX's (version, size or types)",
    "events libnvtxw refused",
    "events of threads whose stream could not be opened",
    "calls after a write failed and the recording stopped",
    "counter samples whose value the counter's type cannot hold",
    "calls on a sync object this process never created",
    "sync releases with no hold to end",
};

/* What could not be recorded, on stderr. */
static void report_misuse(void) {
    uint64_t counts[REC_MISUSE_KINDS], total = 0;
    int i;
    for (i = 0; i < REC_MISUSE_KINDS; i++)
        total += counts[i] = atomic_load(&rec.misuse[i]);
    if (total == 0)
        return;
    fprintf(stderr, "nvtxw-record: %s [%d]: %llu NVTX call%s not recorded:", rec.process,
            (int)rec.pid, (unsigned long long)total, total == 1 ? "" : "s");
    for (i = 0; i < REC_MISUSE_KINDS; i++)
        if (counts[i] != 0)
            fprintf(stderr, " %llu %s;", (unsigned long long)counts[i], misuse_words[i]);
    fprintf(stderr, "\n");
    if ((counts[REC_MISUSE_REFUSED] != 0 || counts[REC_MISUSE_NO_STREAM] != 0) &&
        rec.first_refusal[0] != '\0')
        fprintf(stderr, "nvtxw-record: %s: %s\n",
                counts[REC_MISUSE_STOPPED] != 0 ? "the failure" : "the first refusal",
                rec.first_refusal);
}

void rec_session_end(void) {
    nvtxwSessionHandle_t session;
    pthread_mutex_lock(&rec.lock);
    session = rec.session;
    rec.session = NULL;
    atomic_store(&rec.active, 0);
    pthread_mutex_unlock(&rec.lock);
    if (session == NULL)
        return;
    if (rec.iface->SessionEnd(session) != NVTXW_RESULT_SUCCESS) {
        fprintf(stderr, "nvtxw-record: error: the report of %s [%d] was not written: %s\n",
                rec.process, (int)rec.pid, nvtxw_last_error());
        tell_status("failed", nvtxw_last_error());
    } else {
        tell_status("ended", NULL);
    }
    report_misuse();
}
