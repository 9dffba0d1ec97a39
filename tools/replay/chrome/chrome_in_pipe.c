/*
 * tools/replay/chrome/chrome_in_pipe.c - the second pass on two threads
 * (chrome_read_pipelined in chrome_in.h): a thread of its own runs the
 * reader (yajl and the event trees, chrome_in_json.c) and hands the trees
 * over in batches; the calling thread maps them to NVTXW calls in file
 * order. yajl alone takes about as long as everything the calling thread
 * does with the events, so on two CPUs the pass takes about half the time;
 * the output is the same as on one thread.
 *
 * The reader's thread is the slower one (on the 200 MB benchmark trace the
 * calling thread waits for batches a third of the pass), so what can be done
 * on either side is done here: the root members' index (cj_doc_index) is
 * built by the calling thread. The reader builds each tree in a doc of its
 * own, in cache, and copies it into the batch in one memcpy: building the
 * nodes in the batch itself was measured slower (each node's first store
 * waits for a line last held by the other CPU; 12 % of the reader's samples
 * on one instruction).
 *
 * Batches: PIPE_BATCHES of them go round, each holding the nodes and text
 * of up to BATCH_EVENTS events or BATCH_BYTES bytes (more only for one
 * event larger than that, at most CHROME_EVENT_MAX): memory stays bounded
 * by the batches, never by the file. The reader waits for a free batch,
 * the calling thread for a full one.
 *
 * Messages: the reader's errors are kept (chrome_reader_cb.say) and printed
 * by the calling thread after the events before them, so an error of an
 * earlier event found by the mapping comes first, as on one thread. When
 * the mapping fails the reader is told to stop at its next event.
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chrome_in.h"
#include "tool_alloc.h"

#define PIPE_BATCHES 3
#define BATCH_EVENTS 2048
#define BATCH_BYTES (1u << 20)
/* A batch that grew past this for one large event gives the memory back. */
#define BATCH_KEEP (4u << 20)

typedef struct pipe_event {
    size_t node_start, text_start;
    uint32_t node_count;
    size_t text_len;
    uint64_t index, offset;
} pipe_event;

typedef struct batch {
    int full; /* handed to the calling thread */
    int last; /* the reader ended after this batch */
    cj_node* nodes;
    size_t node_count, node_cap;
    char* text;
    size_t text_len, text_cap;
    pipe_event* events;
    size_t count, cap;
} batch;

typedef struct parse_pipe {
    const char* tool;
    const char* path;
    const chrome_reader_cb* cb; /* the caller's */
    pthread_mutex_t lock;
    pthread_cond_t changed;
    batch batches[PIPE_BATCHES];
    uint64_t filled; /* batches handed over so far (the next is filled % N) */
    int stop;        /* the calling thread stopped: the reader ends */
    /* the reader's outcome, read after the join */
    int status;
    chrome_read_result result;
    char* message; /* what the reader said (its errors), NULL for nothing */
} parse_pipe;

static void batch_clear(batch* b) {
    b->full = b->last = 0;
    b->node_count = b->text_len = b->count = 0;
    if (b->node_cap * sizeof *b->nodes + b->text_cap > BATCH_KEEP) {
        nvtxw_free(b->nodes);
        nvtxw_free(b->text);
        b->nodes = NULL;
        b->text = NULL;
        b->node_cap = b->text_cap = 0;
    }
}

static void batch_free(batch* b) {
    nvtxw_free(b->nodes);
    nvtxw_free(b->text);
    nvtxw_free(b->events);
}

/* Copies one event's tree to the end of the batch; 0, or -1 out of memory. */
static int batch_put(batch* b, const cj_doc* doc, uint64_t index, uint64_t offset) {
    pipe_event* e;
    if ((b->node_count + doc->count > b->node_cap &&
         nvtxw_grow_array((void**)&b->nodes, &b->node_cap, b->node_count + doc->count,
                          sizeof *b->nodes, 16) != 0) ||
        (b->text_len + doc->text_len > b->text_cap &&
         nvtxw_grow_array((void**)&b->text, &b->text_cap, b->text_len + doc->text_len, 1, 16) !=
             0) ||
        (b->count == b->cap &&
         nvtxw_grow_array((void**)&b->events, &b->cap, b->count + 1, sizeof *b->events, 16) != 0))
        return -1; /* the checks inline: once per event, on the reader's thread */
    e = &b->events[b->count++];
    e->node_start = b->node_count;
    e->text_start = b->text_len;
    e->node_count = (uint32_t)doc->count;
    e->text_len = doc->text_len;
    e->index = index;
    e->offset = offset;
    memcpy(b->nodes + b->node_count, doc->nodes, doc->count * sizeof *b->nodes);
    memcpy(b->text + b->text_len, doc->text, doc->text_len);
    b->node_count += doc->count;
    b->text_len += doc->text_len;
    return 0;
}

static int batch_is_full(const batch* b) {
    return b->count >= BATCH_EVENTS || b->node_count * sizeof(cj_node) + b->text_len >= BATCH_BYTES;
}

/* ---- the reader's thread ---- */

/* Hands the batch being filled over and waits for the next one to be free;
 * 0, or -1 when the calling thread stopped. */
static int hand_over(parse_pipe* p, int last) {
    batch* b = &p->batches[p->filled % PIPE_BATCHES];
    int stop;
    pthread_mutex_lock(&p->lock);
    b->full = 1;
    b->last = last;
    p->filled++;
    pthread_cond_broadcast(&p->changed);
    while (!last && !p->stop && p->batches[p->filled % PIPE_BATCHES].full)
        pthread_cond_wait(&p->changed, &p->lock);
    stop = p->stop;
    pthread_mutex_unlock(&p->lock);
    return stop ? -1 : 0;
}

static void reader_say(void* user, const char* text) {
    parse_pipe* p = user;
    size_t have = p->message != NULL ? strlen(p->message) : 0;
    char* grown = nvtxw_realloc(p->message, have + strlen(text) + 1);
    if (grown == NULL) {
        fputs(text, stderr); /* out of memory: said now rather than not at all */
        return;
    }
    memcpy(grown + have, text, strlen(text) + 1);
    p->message = grown;
}

static int reader_event(void* user, const cj_doc* doc, uint64_t index, uint64_t offset) {
    parse_pipe* p = user;
    batch* b = &p->batches[p->filled % PIPE_BATCHES];
    if (batch_put(b, doc, index, offset) != 0) {
        char text[256];
        snprintf(text, sizeof text, "%s: error: %s: event #%llu: out of memory\n", p->tool, p->path,
                 (unsigned long long)index);
        reader_say(p, text);
        return -1;
    }
    return batch_is_full(b) ? hand_over(p, 0) : 0;
}

static void* reader_main(void* arg) {
    parse_pipe* p = arg;
    chrome_reader_cb inner = {reader_event, NULL, p->cb->wanted, reader_say, p->cb->bounded, 1};
    p->status = chrome_read(p->tool, p->path, &inner, p, &p->result);
    hand_over(p, 1);
    return NULL;
}

/* ---- the calling thread ---- */

/* Maps the events of one full batch; 0, or the callback's status. */
static int map_batch(parse_pipe* p, void* user, const batch* b) {
    for (size_t i = 0; i < b->count; i++) {
        const pipe_event* e = &b->events[i];
        cj_doc view;
        int status;
        view.nodes = b->nodes + e->node_start;
        view.count = view.cap = e->node_count;
        view.text = b->text + e->text_start;
        view.text_len = view.text_cap = e->text_len;
        view.open = CJ_NONE;
        view.depth = 0;
        view.pending_key_len = 0;
        view.has_pending_key = 0;
        cj_doc_index(&view); /* here, off the reader's thread */
        if ((status = p->cb->event(user, &view, e->index, e->offset)) != 0)
            return status;
    }
    return 0;
}

/* The calling thread's side: each full batch in turn. */
static int consume(parse_pipe* p, void* user) {
    for (uint64_t taken = 0;; taken++) {
        batch* b = &p->batches[taken % PIPE_BATCHES];
        int status, last;
        pthread_mutex_lock(&p->lock);
        while (!b->full)
            pthread_cond_wait(&p->changed, &p->lock);
        pthread_mutex_unlock(&p->lock);
        status = map_batch(p, user, b);
        last = b->last;
        pthread_mutex_lock(&p->lock);
        batch_clear(b);
        if (status != 0)
            p->stop = 1;
        pthread_cond_broadcast(&p->changed);
        pthread_mutex_unlock(&p->lock);
        if (status != 0)
            return status;
        if (last)
            return 0;
    }
}

uint64_t chrome_env_number(const char* name, uint64_t otherwise) {
    const char* env = getenv(name);
    char* end;
    unsigned long long v;
    if (env == NULL || *env == '\0')
        return otherwise;
    v = strtoull(env, &end, 10);
    return *end == '\0' ? v : otherwise;
}

int chrome_use_threads(void) {
    const char* env = getenv("NVTXW_CHROME_PARSE_THREAD");
    if (env != NULL)
        return strcmp(env, "0") != 0;
    return sysconf(_SC_NPROCESSORS_ONLN) > 1;
}

int chrome_read_pipelined(const char* tool, const char* path, const chrome_reader_cb* cb,
                          void* user, chrome_read_result* result) {
    parse_pipe p;
    pthread_t thread;
    pthread_attr_t attr;
    int started, status;
    if (!chrome_use_threads())
        return chrome_read(tool, path, cb, user, result);
    memset(&p, 0, sizeof p);
    p.tool = tool;
    p.path = path;
    p.cb = cb;
    pthread_mutex_init(&p.lock, NULL);
    pthread_cond_init(&p.changed, NULL);
    started = pthread_attr_init(&attr) == 0;
    if (started) {
        pthread_attr_setstacksize(&attr, 1u << 20); /* yajl does not recurse */
        started = pthread_create(&thread, &attr, reader_main, &p) == 0;
        pthread_attr_destroy(&attr);
    }
    if (!started) { /* no thread (limits): the reader runs here */
        pthread_cond_destroy(&p.changed);
        pthread_mutex_destroy(&p.lock);
        return chrome_read(tool, path, cb, user, result);
    }
    status = consume(&p, user);
    pthread_join(thread, NULL);
    if (status == 0) {
        if (p.message != NULL)
            fputs(p.message, stderr);
        status = p.status;
    }
    *result = p.result;
    for (int i = 0; i < PIPE_BATCHES; i++)
        batch_free(&p.batches[i]);
    nvtxw_free(p.message);
    pthread_cond_destroy(&p.changed);
    pthread_mutex_destroy(&p.lock);
    return status;
}
