/*
 * tools/replay/chrome/chrome_in_meta.c - the first pass over a Trace Event Format
 * file (chrome_in.h): which (pid, tid) pairs occur, their names and sort
 * indexes from metadata ("ph":"M") events, which counter series the "C"
 * events hold and whether any of their values is fractional, and the
 * otherData written by our own JSON sink (session name, timestamp base).
 *
 * Metadata may follow the events it names (Trace Event Format allows it),
 * and NVTXW stream attributes cannot change after StreamOpen, so everything
 * that names a stream is learnt here before the second pass opens streams.
 * Memory grows with the threads, processes and counter series, never with
 * the events.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chrome_in.h"
#include "tool_alloc.h"

int chrome_id_key(const cj_doc* doc, uint32_t node, cj_buf* out) {
    out->len = 0;
    if (node == CJ_NONE ||
        (doc->nodes[node].type != CJ_STRING && doc->nodes[node].type != CJ_NUMBER))
        return cj_buf_put(out, "n:0", 3);
    if (cj_buf_put(out, doc->nodes[node].type == CJ_STRING ? "s:" : "n:", 2) != 0)
        return -1;
    return cj_buf_put(out, cj_text(doc, node), doc->nodes[node].len);
}

static char* copy_text(const char* text, size_t len) {
    char* copy = nvtxw_malloc(len + 1);
    if (copy != NULL) {
        memcpy(copy, text, len);
        copy[len] = '\0';
    }
    return copy;
}

/* The process of a pid key, added on first sight; -1 when out of memory. */
static int process_of(chrome_import* im, const char* key, size_t len, uint32_t* out) {
    int added;
    uint64_t* slot = ct_find(&im->process_index, key, len, 1, &added);
    chrome_process* p;
    if (slot == NULL)
        return -1;
    if (added) {
        if (nvtxw_grow_array((void**)&im->processes, &im->process_cap, im->process_count + 1,
                             sizeof *p, 16) != 0)
            return -1;
        p = &im->processes[im->process_count];
        memset(p, 0, sizeof *p);
        if ((p->pid_key = copy_text(key, len)) == NULL)
            return -1;
        p->first_seen = im->event_index;
        *slot = im->process_count++;
    }
    *out = (uint32_t)*slot;
    return 0;
}

static int check_id_type(chrome_import* im, const cj_doc* doc, const char* what) {
    uint32_t node = cj_get(doc, 0, what);
    if (node != CJ_NONE && doc->nodes[node].type != CJ_NUMBER && doc->nodes[node].type != CJ_STRING)
        return chrome_event_error(im, "\"%s\" must be a number or a string", what);
    return 0;
}

int chrome_thread_by_key(chrome_import* im, const char* pid, size_t pid_len, const char* tid,
                         size_t tid_len, uint32_t* thread) {
    cj_buf* key = &im->last_thread_key;
    uint32_t process;
    uint64_t* slot;
    int added;
    /* most events follow one of the same thread */
    if (im->has_last_thread && key->len == pid_len + 1 + tid_len &&
        !memcmp(key->data, pid, pid_len) && !memcmp(key->data + pid_len + 1, tid, tid_len)) {
        *thread = im->last_thread;
        return 0;
    }
    im->has_last_thread = 0;
    if (process_of(im, pid, pid_len, &process) != 0)
        return -1;
    key->len = 0;
    if (cj_buf_put(key, pid, pid_len) != 0 || cj_buf_put(key, "\x1f", 1) != 0 ||
        cj_buf_put(key, tid, tid_len) != 0 ||
        (slot = ct_find(&im->thread_index, key->data, key->len, 1, &added)) == NULL)
        return -1;
    if (added) {
        chrome_thread* t;
        if (nvtxw_grow_array((void**)&im->threads, &im->thread_cap, im->thread_count + 1, sizeof *t,
                             16) != 0)
            return -1;
        t = &im->threads[im->thread_count];
        memset(t, 0, sizeof *t);
        t->pid_key = copy_text(pid, pid_len);
        t->tid_key = copy_text(tid, tid_len);
        t->process = process;
        t->first_seen = im->event_index;
        if (t->pid_key == NULL || t->tid_key == NULL) { /* not counted: not freed later */
            nvtxw_free(t->pid_key);
            nvtxw_free(t->tid_key);
            return -1;
        }
        *slot = im->thread_count++;
    }
    *thread = im->last_thread = (uint32_t)*slot;
    im->has_last_thread = 1;
    return 0;
}

int chrome_thread_of(chrome_import* im, const cj_doc* doc, uint32_t* thread) {
    if (check_id_type(im, doc, "pid") != 0 || check_id_type(im, doc, "tid") != 0)
        return 1;
    if (chrome_id_key(doc, cj_get(doc, 0, "pid"), &im->pid_key) != 0 ||
        chrome_id_key(doc, cj_get(doc, 0, "tid"), &im->tid_key) != 0 ||
        chrome_thread_by_key(im, im->pid_key.data, im->pid_key.len, im->tid_key.data,
                             im->tid_key.len, thread) != 0)
        return chrome_event_error(im, "out of memory");
    return 0;
}

/* thread_name args "task_path" (string) and "task_scope" (the scope ID in
 * the report the JSON came from): the row is a task row of our JSON sink
 * (docs/chrome-json.md, Tasks). Other JSON has neither. */
static int task_row_meta(chrome_import* im, const cj_doc* doc, uint32_t args, chrome_thread* t) {
    uint32_t path = cj_get(doc, args, "task_path"), scope = cj_get(doc, args, "task_scope");
    char* end;
    if (path == CJ_NONE && scope == CJ_NONE)
        return 0;
    if (path == CJ_NONE || scope == CJ_NONE || doc->nodes[path].type != CJ_STRING ||
        doc->nodes[scope].type != CJ_NUMBER || doc->nodes[path].len == 0)
        return chrome_event_error(im, "a task row's thread_name needs args.task_path (a "
                                      "string) and args.task_scope (a number) together");
    errno = 0;
    t->task_old_scope = strtoull(cj_text(doc, scope), &end, 10);
    if (errno != 0 || *end != '\0' || cj_text(doc, scope)[0] == '-')
        return chrome_event_error(im, "args.task_scope must be a scope ID (an unsigned integer)");
    nvtxw_free(t->task_path);
    if ((t->task_path = copy_text(cj_text(doc, path), doc->nodes[path].len)) == NULL ||
        chrome_task_slot(im, t->task_old_scope, 1) == NULL)
        return chrome_event_error(im, "out of memory");
    return 0;
}

uint64_t* chrome_task_slot(chrome_import* im, uint64_t old_scope, int insert) {
    char key[24];
    int length = snprintf(key, sizeof key, "%llu", (unsigned long long)old_scope);
    return ct_find(&im->task_scopes, key, (size_t)length, insert, NULL);
}

/* A metadata event's args.name / args.sort_index / args.labels. */
static int meta_event(chrome_import* im, const cj_doc* doc, const char* name) {
    uint32_t args = cj_get(doc, 0, "args"), value, thread = 0, process = 0;
    int is_process = !strncmp(name, "process_", 8);
    int is_sort = strstr(name, "sort_index") != NULL;
    const char* field = is_sort                           ? "sort_index"
                        : !strcmp(name, "process_labels") ? "labels"
                                                          : "name";
    char** text_slot;
    if (strcmp(name, "process_name") && strcmp(name, "thread_name") &&
        strcmp(name, "process_sort_index") && strcmp(name, "thread_sort_index") &&
        strcmp(name, "process_labels"))
        return 0; /* other metadata (e.g. process_uptime_seconds) is left out */
    value = cj_get(doc, args, field);
    if (value == CJ_NONE || doc->nodes[value].type != (is_sort ? CJ_NUMBER : CJ_STRING))
        return chrome_event_error(im, "metadata \"%s\" needs args.%s as a %s", name, field,
                                  is_sort ? "number" : "string");
    if (is_process) {
        /* process metadata names no thread: tid 0 is no stream */
        if (check_id_type(im, doc, "pid") != 0)
            return 1;
        if (chrome_id_key(doc, cj_get(doc, 0, "pid"), &im->scratch) != 0 ||
            process_of(im, im->scratch.data, im->scratch.len, &process) != 0)
            return chrome_event_error(im, "out of memory");
    } else if (chrome_thread_of(im, doc, &thread) != 0) {
        return 1;
    }
    if (is_sort) {
        int64_t sort = strtoll(cj_text(doc, value), NULL, 10);
        if (is_process) {
            im->processes[process].sort_index = sort;
            im->processes[process].has_sort = 1;
        } else {
            im->threads[thread].sort_index = sort;
            im->threads[thread].has_sort = 1;
        }
        return 0;
    }
    if (!is_process && task_row_meta(im, doc, args, &im->threads[thread]) != 0)
        return 1;
    text_slot = !is_process                       ? &im->threads[thread].name
                : !strcmp(name, "process_labels") ? &im->processes[process].labels
                                                  : &im->processes[process].name;
    nvtxw_free(*text_slot);
    *text_slot = copy_text(cj_text(doc, value), doc->nodes[value].len);
    return *text_slot == NULL ? chrome_event_error(im, "out of memory") : 0;
}

/* A number that an int64 counter cannot hold exactly. */
static int is_fractional(const char* text) {
    char* end;
    if (strpbrk(text, ".eE") != NULL)
        return 1;
    (void)strtoll(text, &end, 10);
    return *end != '\0' || strlen(text) > 18;
}

/* Every numeric args key of a "C" event is a series (pid, name, key). */
static int counter_event(chrome_import* im, const cj_doc* doc, uint32_t thread) {
    uint32_t args = cj_get(doc, 0, "args"), name = cj_get(doc, 0, "name");
    uint32_t process = im->threads[thread].process;
    const char* pid_key = im->processes[process].pid_key;
    if (args == CJ_NONE || doc->nodes[args].type != CJ_OBJECT)
        return 0;
    for (uint32_t k = cj_first(doc, args); k != CJ_NONE; k = doc->nodes[k].next) {
        cj_buf* key = &im->scratch;
        uint64_t* slot;
        int added;
        if (doc->nodes[k].type != CJ_NUMBER)
            continue;
        key->len = 0;
        if (cj_buf_put(key, pid_key, strlen(pid_key) + 1) != 0 ||
            (name != CJ_NONE && cj_buf_put(key, cj_text(doc, name), doc->nodes[name].len) != 0) ||
            cj_buf_put(key, "\x1f", 1) != 0 ||
            cj_buf_put(key, cj_key(doc, k), doc->nodes[k].key_len) != 0 ||
            (slot = ct_find(&im->counter_index, key->data, key->len, 1, &added)) == NULL)
            return chrome_event_error(im, "out of memory");
        if (added) {
            chrome_counter* c;
            const char* base = name != CJ_NONE ? cj_text(doc, name) : "counter";
            const char* series = cj_key(doc, k);
            size_t size = strlen(base) + strlen(series) + 2;
            if (nvtxw_grow_array((void**)&im->counters, &im->counter_cap, im->counter_count + 1,
                                 sizeof *c, 16) != 0)
                return chrome_event_error(im, "out of memory");
            c = &im->counters[im->counter_count];
            memset(c, 0, sizeof *c);
            c->process = process;
            /* "value" is the series our JSON sink writes for one counter:
             * the counter keeps the event's name (docs/chrome-input.md). */
            if ((c->name = nvtxw_malloc(size)) == NULL)
                return chrome_event_error(im, "out of memory");
            if (!strcmp(series, "value"))
                snprintf(c->name, size, "%s", base);
            else
                snprintf(c->name, size, "%s %s", base, series);
            *slot = im->counter_count++;
        }
        im->counters[*slot].is_float |= is_fractional(cj_text(doc, k));
    }
    return 0;
}

int chrome_meta_event(void* user, const cj_doc* doc, uint64_t index, uint64_t offset) {
    chrome_import* im = user;
    uint32_t ph = cj_get(doc, 0, "ph"), name = cj_get(doc, 0, "name"), thread;
    im->event_index = index;
    im->event_offset = offset;
    if (ph == CJ_NONE || doc->nodes[ph].type != CJ_STRING)
        return chrome_event_error(im, "\"ph\" (the phase) must be a string");
    if (!strcmp(cj_text(doc, ph), "M"))
        return name != CJ_NONE && doc->nodes[name].type == CJ_STRING
                   ? meta_event(im, doc, cj_text(doc, name))
                   : 0;
    if (chrome_thread_of(im, doc, &thread) != 0)
        return 1;
    im->threads[thread].last_seen = index;
    return !strcmp(cj_text(doc, ph), "C") ? counter_event(im, doc, thread) : 0;
}

/* otherData of our JSON sink: "session" and "timestampBase_ns" bring back
 * the session name and the producer's absolute timestamps. */
int chrome_meta_member(void* user, const char* key, const cj_doc* doc) {
    chrome_import* im = user;
    uint32_t session, base;
    if (strcmp(key, "otherData") != 0)
        return 0;
    session = cj_get(doc, 0, "session");
    base = cj_get(doc, 0, "timestampBase_ns");
    if (session != CJ_NONE && doc->nodes[session].type == CJ_STRING) {
        nvtxw_free(im->session_name);
        im->session_name = copy_text(cj_text(doc, session), doc->nodes[session].len);
    }
    if (base != CJ_NONE && doc->nodes[base].type == CJ_NUMBER)
        im->base_ns = strtoll(cj_text(doc, base), NULL, 10);
    return 0;
}

int chrome_meta_pass(chrome_import* im) {
    static const char* const wanted[] = {"otherData", "displayTimeUnit", NULL};
    chrome_reader_cb cb = {chrome_meta_event, chrome_meta_member, wanted, NULL, NULL, 0};
    chrome_read_result result;
    /* NVTXW_CHROME_FIRST_PASS: "parser" skips the scan, "scan" refuses the
     * files it would leave to the parser (diagnostics, docs/chrome-input.md) */
    const char* mode = getenv("NVTXW_CHROME_FIRST_PASS");
    int status = mode != NULL && !strcmp(mode, "parser") ? 2 : chrome_scan_meta(im);
    if (status != 2)
        return status;
    if (mode != NULL && !strcmp(mode, "scan")) {
        fprintf(stderr, "%s: error: %s: the first pass's scan leaves this file to the parser\n",
                im->ctx->tool, im->path);
        return 1;
    }
    /* The scan met something it leaves to the parser (an error, escapes in
     * ids, hostile sizes): start over with the parser's first pass, which
     * says what is wrong where. */
    {
        const replay_input_ctx* ctx = im->ctx;
        const char* path = im->path;
        chrome_import_free(im);
        memset(im, 0, sizeof *im);
        im->ctx = ctx;
        im->path = path;
    }
    return chrome_read(im->ctx->tool, im->path, &cb, im, &result);
}
