/*
 * tools/replay/chrome/chrome_in_events.c - the second pass: each trace event to
 * NVTXW calls (chrome_in.h; the table is docs/chrome-input.md).
 *
 *   X                 RANGE_PUSHPOP (begin ts, end ts + dur)
 *   B / E             RANGE_PUSH / RANGE_POP on the thread's stream; an E
 *                     with nothing open is skipped with a counted warning
 *   i I R n T P O     MARK (i/I with "s":"g" or "p" carry a SCOPE_ID entry:
 *                     root or the process scope)
 *   b / e, S / F,     RANGE_START / RANGE_END; nestable per key (cat + id,
 *   N / D             id2.local with the pid); range ID = the event's id
 *                     when no open range uses it, else a synthetic one; an
 *                     end with nothing open is skipped with a counted warning
 *   C                 CounterWrite per numeric args key
 *   s t f (flow v1)   flow_out / flow_in (t: both) bound to the event at the
 *                     same ts on the same thread just before or after the
 *                     flow event; unbound flows become MARKs of their own
 *   bind_id, flow_in, flow_out on an event (flow v2): its flow fields
 *   M                 used by the first pass (chrome_in_meta.c)
 *
 * Binding: each thread holds back its last event until the next one on
 * that thread arrives, so a flow event written after its slice (PyTorch)
 * or before it (our JSON sink) reaches the slice's payload. Events of one
 * thread keep their order; memory is one event per thread.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chrome_in.h"
#include "tool_alloc.h"

#define SYNTHETIC_RANGE_ID 0xC000000000000000ull

typedef enum held_kind { HELD_NONE, HELD_EVENT, HELD_FLOW } held_kind;

/* An event ready to write, and what flows may bind to it. */
typedef struct chrome_held {
    held_kind kind;
    int bindable; /* flows may bind (slices and instants) */
    int64_t ts;
    uint64_t header_schema;
    unsigned char header[32];
    size_t header_size;
    int has_name;
    cj_buf name; /* NUL included */
    uint64_t args_schema;
    cj_buf args;
    uint64_t flow_out, flow_in;           /* bound flows */
    uint64_t args_flow_out, args_flow_in; /* integer args of those names */
    uint32_t category;
} held;

typedef struct open_stack {
    size_t count, cap;
    uint64_t ids[];
} open_stack;

/* ---- small readers of event members ---- */

static const char* str_member(const cj_doc* doc, const char* key, const char* fallback) {
    uint32_t node = cj_get(doc, 0, key);
    return node != CJ_NONE && doc->nodes[node].type == CJ_STRING ? cj_text(doc, node) : fallback;
}

static const char* type_name(cj_type type) {
    static const char* const names[] = {"null",     "a boolean", "a number",
                                        "a string", "an object", "an array"};
    return names[type];
}

/* *sum = a + b; 1 when that does not fit in int64. */
static int add_ns(int64_t a, int64_t b, int64_t* sum) {
    if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b))
        return 1;
    *sum = a + b;
    return 0;
}

/* Member `key` (microseconds, number or numeric string) in nanoseconds
 * plus `base` (the trace's base time for a time, 0 for a duration): 0, -1
 * when absent, 1 with the error printed (not a time, or beyond int64). */
static int time_value(chrome_import* im, const cj_doc* doc, const char* key, int64_t base,
                      int64_t* ns) {
    uint32_t node = cj_get(doc, 0, key);
    if (node == CJ_NONE)
        return -1;
    if (doc->nodes[node].type != CJ_NUMBER && doc->nodes[node].type != CJ_STRING)
        return chrome_event_error(im, "\"%s\" must be a number of microseconds, not %s", key,
                                  type_name(doc->nodes[node].type));
    if (chrome_time_to_ns(cj_text(doc, node), doc->nodes[node].len, ns) != 0)
        return chrome_event_error(im, "\"%s\" is not a time in microseconds: \"%.40s\"", key,
                                  cj_text(doc, node));
    if (add_ns(*ns, base, ns) != 0)
        return chrome_event_error(im,
                                  "\"%s\" plus the trace's base time (%lld ns) is beyond 64-bit "
                                  "nanoseconds: \"%.40s\"",
                                  key, (long long)base, cj_text(doc, node));
    return 0;
}

/* A time member: time_value with the trace's base time. */
static int time_member(chrome_import* im, const cj_doc* doc, const char* key, int64_t* ns) {
    return time_value(im, doc, key, im->base_ns, ns);
}

/* The value of an id-like member (number or string); 0 when absent. */
static uint64_t id_member(const cj_doc* doc, uint32_t node) {
    if (node == CJ_NONE ||
        (doc->nodes[node].type != CJ_NUMBER && doc->nodes[node].type != CJ_STRING))
        return 0;
    return chrome_id_value(cj_text(doc, node), doc->nodes[node].len);
}

/* Reserved trace-viewer color names (the JSON sink's table) as ARGB. */
static uint32_t cname_color(const char* cname) {
    static const struct {
        const char* name;
        uint32_t rgb;
    } colors[] = {
        {"thread_state_uninterruptible", 0xb67d8f},
        {"thread_state_iowait", 0xff8c00},
        {"thread_state_running", 0x7ec894},
        {"thread_state_runnable", 0x85a0d2},
        {"thread_state_unknown", 0xc79b7d},
        {"background_memory_dump", 0x00b4b4},
        {"light_memory_dump", 0x0000b4},
        {"detailed_memory_dump", 0xb400b4},
        {"vsync_highlight_color", 0x0000ff},
        {"generic_work", 0x7d7d7d},
        {"good", 0x007d00},
        {"bad", 0xb47d00},
        {"terrible", 0xb40000},
        {"black", 0x000000},
        {"grey", 0xdddddd},
        {"white", 0xffffff},
        {"yellow", 0xffff00},
        {"olive", 0x646400},
        {"rail_response", 0x4387fd},
        {"rail_animation", 0xf44a3f},
        {"rail_idle", 0xee8e00},
        {"rail_load", 0x0da861},
        {"cq_build_passed", 0x99ee66},
        {"cq_build_failed", 0xee8888},
    };
    for (size_t i = 0; cname != NULL && i < sizeof colors / sizeof colors[0]; i++) {
        if (!strcmp(cname, colors[i].name))
            return 0xff000000u | colors[i].rgb;
    }
    return 0;
}

/* ---- held events ---- */

static held* held_new(void) { return nvtxw_calloc(1, sizeof(held)); }

static void held_free(held* h) {
    if (h == NULL)
        return;
    nvtxw_free(h->name.data);
    nvtxw_free(h->args.data);
    nvtxw_free(h);
}

static void put_u64(unsigned char* at, uint64_t v) { memcpy(at, &v, 8); }

static void put_u32(unsigned char* at, uint32_t v) { memcpy(at, &v, 4); }

static int held_write(chrome_import* im, chrome_thread* t, held* h) {
    nvtxPayloadData_t payloads[4];
    unsigned char flows[16];
    size_t n = 0;
    int out = h->flow_out != 0 && h->flow_out != h->args_flow_out;
    int in = h->flow_in != 0 && h->flow_in != h->args_flow_in;
    nvtxwResultCode_t rc;
    if (h->kind == HELD_NONE)
        return 0;
    payloads[n++] = (nvtxPayloadData_t){h->header_schema, h->header_size, h->header};
    if (h->has_name)
        payloads[n++] = (nvtxPayloadData_t){im->schema_message, h->name.len, h->name.data};
    if (h->args_schema != 0)
        payloads[n++] = (nvtxPayloadData_t){h->args_schema, h->args.len, h->args.data};
    if (out || in) {
        put_u64(flows, out ? h->flow_out : h->flow_in);
        put_u64(flows + 8, h->flow_in);
        payloads[n++] = (nvtxPayloadData_t){im->schema_flow[out && in ? 2
                                                            : out     ? 0
                                                                      : 1],
                                            out && in ? 16u : 8u, flows};
    }
    rc = im->ctx->iface->EventWrite(t->stream, payloads, n);
    im->written++;
    h->kind = HELD_NONE;
    if (h->name.cap > 65536 || h->args.cap > 65536) {
        /* one huge event does not keep its buffers for the rest of the run */
        nvtxw_free(h->name.data);
        nvtxw_free(h->args.data);
        memset(&h->name, 0, sizeof h->name);
        memset(&h->args, 0, sizeof h->args);
    }
    return rc == NVTXW_RESULT_SUCCESS ? 0 : chrome_api_error(im, "EventWrite", rc);
}

/* Starts building `cur` for an event of `doc` with header schema and size. */
static int held_begin(chrome_import* im, held* h, const cj_doc* doc, uint64_t schema, size_t size,
                      int64_t ts) {
    const char* name = str_member(doc, "name", "");
    memset(h->header, 0, sizeof h->header);
    h->kind = HELD_EVENT;
    h->bindable = 0;
    h->ts = ts;
    h->header_schema = schema;
    h->header_size = size;
    h->has_name = 1;
    h->args_schema = 0;
    h->flow_out = h->flow_in = h->args_flow_out = h->args_flow_in = 0;
    h->category = chrome_category(im, str_member(doc, "cat", NULL));
    h->name.len = 0;
    if (cj_buf_put(&h->name, name, strlen(name) + 1) != 0)
        return chrome_event_error(im, "out of memory");
    return 0;
}

static uint64_t int_arg(const cj_doc* doc, uint32_t args, const char* key) {
    uint32_t node = cj_get(doc, args, key);
    if (node == CJ_NONE || doc->nodes[node].type != CJ_NUMBER ||
        strpbrk(cj_text(doc, node), ".eE") != NULL)
        return 0;
    return chrome_id_value(cj_text(doc, node), doc->nodes[node].len);
}

/* args, and flows v2 (bind_id with flow_in / flow_out true). */
static int held_args(chrome_import* im, held* h, const cj_doc* doc) {
    uint32_t args = cj_get(doc, 0, "args");
    uint32_t in = cj_get(doc, 0, "flow_in"), out = cj_get(doc, 0, "flow_out");
    uint64_t bind = id_member(doc, cj_get(doc, 0, "bind_id"));
    if (chrome_args_payload(im, doc, args, (const char*)h->name.data, NULL, &h->args,
                            &h->args_schema) != 0)
        return 1;
    h->args_flow_out = int_arg(doc, args, "flow_out");
    h->args_flow_in = int_arg(doc, args, "flow_in");
    if (bind != 0 && out != CJ_NONE && doc->nodes[out].type == CJ_BOOL && doc->nodes[out].len)
        h->flow_out = bind;
    if (bind != 0 && in != CJ_NONE && doc->nodes[in].type == CJ_BOOL && doc->nodes[in].len)
        h->flow_in = bind;
    return 0;
}

/* The thread's held event is written and `cur` takes its place; a held
 * flow at the same time binds into `cur` instead. */
static int held_push(chrome_import* im, chrome_thread* t) {
    held* cur = im->cur;
    held* old = t->pending;
    int status;
    if (old != NULL && old->kind == HELD_FLOW && cur->bindable && old->ts == cur->ts &&
        (old->flow_out == 0 || cur->flow_out == 0) && (old->flow_in == 0 || cur->flow_in == 0)) {
        cur->flow_out = cur->flow_out ? cur->flow_out : old->flow_out;
        cur->flow_in = cur->flow_in ? cur->flow_in : old->flow_in;
        old->kind = HELD_NONE;
        im->bound_flows++;
    }
    status = old != NULL ? held_write(im, t, old) : 0;
    if (old == NULL && (old = held_new()) == NULL)
        return chrome_event_error(im, "out of memory");
    t->pending = cur;
    im->cur = old;
    return status;
}

/* ---- phases ---- */

static void header_cat_color(held* h, const cj_doc* doc, size_t at) {
    put_u32(h->header + at, h->category);
    put_u32(h->header + at + 4, cname_color(str_member(doc, "cname", NULL)));
}

static int map_complete(chrome_import* im, const cj_doc* doc, int64_t ts, chrome_thread* t) {
    held* h = im->cur;
    int64_t dur = 0, end;
    if (time_value(im, doc, "dur", 0, &dur) == 1) /* a duration: no base time */
        return 1;
    if (add_ns(ts, dur, &end) != 0)
        return chrome_event_error(im,
                                  "\"dur\" of %lld ns puts the end of the event beyond 64-bit "
                                  "nanoseconds (\"ts\" is %lld ns)",
                                  (long long)dur, (long long)ts);
    if (held_begin(im, h, doc, im->schema_x, 24, ts) != 0 || held_args(im, h, doc) != 0)
        return 1;
    /* a task's slice is a start/end range (docs/tasks.md) that the JSON
     * sink drew as X on its worker and task rows */
    if (im->args_task)
        h->header_schema = im->schema_x_task;
    put_u64(h->header, (uint64_t)ts);
    put_u64(h->header + 8, (uint64_t)end);
    header_cat_color(h, doc, 16);
    h->bindable = 1;
    return held_push(im, t);
}

static int map_begin(chrome_import* im, const cj_doc* doc, int64_t ts, chrome_thread* t) {
    held* h = im->cur;
    if (held_begin(im, h, doc, im->schema_b, 16, ts) != 0 || held_args(im, h, doc) != 0)
        return 1;
    put_u64(h->header, (uint64_t)ts);
    header_cat_color(h, doc, 8);
    h->bindable = 1;
    t->open_pushes++;
    return held_push(im, t);
}

static int map_end(chrome_import* im, const cj_doc* doc, int64_t ts, chrome_thread* t) {
    held* h = im->cur;
    if (t->open_pushes == 0) {
        if (im->unmatched_end++ == 0)
            chrome_event_warning(im, "\"E\" without an open \"B\" on its thread: skipped (the "
                                     "summary counts all such events)");
        return 0;
    }
    t->open_pushes--;
    if (held_begin(im, h, doc, im->schema_e, 8, ts) != 0 || held_args(im, h, doc) != 0)
        return 1;
    h->has_name = 0; /* a pop takes its push's name */
    put_u64(h->header, (uint64_t)ts);
    return held_push(im, t);
}

static int map_instant(chrome_import* im, const cj_doc* doc, int64_t ts, chrome_thread* t) {
    held* h = im->cur;
    const char* scope = str_member(doc, "s", "t");
    int scoped = !strcmp(scope, "g") || !strcmp(scope, "p");
    if (held_begin(im, h, doc, scoped ? im->schema_i_scoped : im->schema_i, scoped ? 24 : 16, ts) !=
            0 ||
        held_args(im, h, doc) != 0)
        return 1;
    put_u64(h->header, (uint64_t)ts);
    header_cat_color(h, doc, 8);
    if (scoped)
        put_u64(h->header + 16,
                scope[0] == 'g' ? NVTX_SCOPE_ROOT : im->processes[t->process].scope);
    h->bindable = 1;
    return held_push(im, t);
}

/* ---- async ranges ---- */

/* The key of an async event: kind letter, cat, id (id2.local adds the pid;
 * object events N/D add the name). 0, or 1 when it has no id. */
static int async_key(chrome_import* im, const cj_doc* doc, char kind, chrome_thread* t,
                     uint64_t* natural) {
    uint32_t id = cj_get(doc, 0, "id"), id2 = cj_get(doc, 0, "id2"), local = CJ_NONE;
    const char* cat = str_member(doc, "cat", "");
    cj_buf* key = &im->scratch;
    if (id == CJ_NONE && id2 != CJ_NONE) {
        local = cj_get(doc, id2, "local");
        id = local != CJ_NONE ? local : cj_get(doc, id2, "global");
    }
    if (id == CJ_NONE || (doc->nodes[id].type != CJ_NUMBER && doc->nodes[id].type != CJ_STRING))
        return chrome_event_error(im, "async event without an \"id\" (a number or a string)");
    *natural = id_member(doc, id);
    key->len = 0;
    if (cj_buf_put(key, &kind, 1) || cj_buf_put(key, cat, strlen(cat) + 1) ||
        cj_buf_put(key, cj_text(doc, id), doc->nodes[id].len + 1) ||
        (local != CJ_NONE && cj_buf_put(key, t->pid_key, strlen(t->pid_key) + 1)) ||
        (kind == 'O' &&
         cj_buf_put(key, str_member(doc, "name", ""), strlen(str_member(doc, "name", "")) + 1)))
        return chrome_event_error(im, "out of memory");
    return 0;
}

/* The range ID of a new async range: its own id when no open range has it
 * (0 is never used), else the next synthetic one. 0 when out of memory. */
static uint64_t async_range_id(chrome_import* im, uint64_t natural) {
    int added = 0;
    uint64_t id = natural;
    uint64_t* slot = natural != 0 ? ct_find(&im->open_ids, (const char*)&id, 8, 1, &added) : NULL;
    if (natural == 0) {
        id = SYNTHETIC_RANGE_ID | ++im->next_range_id;
        slot = ct_find(&im->open_ids, (const char*)&id, 8, 1, &added);
    }
    while (slot != NULL && !added) {
        id = SYNTHETIC_RANGE_ID | ++im->next_range_id;
        slot = ct_find(&im->open_ids, (const char*)&id, 8, 1, &added);
    }
    return slot == NULL ? 0 : id;
}

static int map_async_begin(chrome_import* im, const cj_doc* doc, int64_t ts, chrome_thread* t,
                           char kind) {
    held* h = im->cur;
    uint64_t* slot;
    open_stack* stack;
    uint64_t id, natural;
    if (async_key(im, doc, kind, t, &natural) != 0 ||
        (slot = ct_find(&im->async_index, im->scratch.data, im->scratch.len, 1, NULL)) == NULL)
        return chrome_event_error(im, "out of memory");
    stack = (open_stack*)(uintptr_t)*slot;
    if (stack == NULL || stack->count == stack->cap) {
        size_t cap = stack ? stack->cap * 2 : 2;
        open_stack* grown = nvtxw_realloc(stack, sizeof *stack + cap * sizeof(uint64_t));
        if (grown == NULL)
            return chrome_event_error(im, "out of memory");
        if (stack == NULL)
            grown->count = 0;
        grown->cap = cap;
        *slot = (uint64_t)(uintptr_t)grown;
        stack = grown;
    }
    if ((id = async_range_id(im, natural)) == 0)
        return chrome_event_error(im, "out of memory");
    stack->ids[stack->count++] = id;
    if (held_begin(im, h, doc, im->schema_start, 24, ts) != 0 || held_args(im, h, doc) != 0)
        return 1;
    put_u64(h->header, id);
    put_u64(h->header + 8, (uint64_t)ts);
    header_cat_color(h, doc, 16);
    h->bindable = 1;
    return held_push(im, t);
}

static int map_async_end(chrome_import* im, const cj_doc* doc, int64_t ts, chrome_thread* t,
                         char kind) {
    held* h = im->cur;
    uint64_t* slot;
    open_stack* stack;
    uint64_t id, natural;
    if (async_key(im, doc, kind, t, &natural) != 0)
        return 1;
    slot = ct_find(&im->async_index, im->scratch.data, im->scratch.len, 0, NULL);
    stack = slot != NULL ? (open_stack*)(uintptr_t)*slot : NULL;
    if (stack == NULL || stack->count == 0) {
        if (im->unmatched_async++ == 0)
            chrome_event_warning(im, "async end without an open begin of the same cat and id: "
                                     "skipped (the summary counts all such events)");
        return 0;
    }
    id = stack->ids[--stack->count];
    if (stack->count == 0) {
        nvtxw_free(stack);
        ct_remove(&im->async_index, im->scratch.data, im->scratch.len);
    }
    ct_remove(&im->open_ids, (const char*)&id, 8);
    if (held_begin(im, h, doc, im->schema_end, 24, ts) != 0 || held_args(im, h, doc) != 0)
        return 1;
    put_u64(h->header, id);
    put_u64(h->header + 8, (uint64_t)ts);
    put_u32(h->header + 16, h->category);
    put_u32(h->header + 20, 0); /* padding */
    return held_push(im, t);
}

/* ---- flows v1 ---- */

static int map_flow(chrome_import* im, const cj_doc* doc, int64_t ts, chrome_thread* t,
                    char phase) {
    uint32_t idn = cj_get(doc, 0, "id"), id2 = cj_get(doc, 0, "id2");
    uint64_t id, out, in;
    held* p = t->pending;
    held* h = im->cur;
    if (idn == CJ_NONE)
        idn = cj_get(doc, id2, "global") != CJ_NONE ? cj_get(doc, id2, "global")
                                                    : cj_get(doc, id2, "local");
    id = id_member(doc, idn);
    if (id == 0)
        return chrome_event_error(im, "flow event without an \"id\"");
    out = phase != 'f' ? id : 0;
    in = phase != 's' ? id : 0;
    if (p != NULL && p->kind != HELD_NONE && (p->bindable || p->kind == HELD_FLOW) && p->ts == ts &&
        (!out || !p->flow_out) && (!in || !p->flow_in)) {
        p->flow_out = out ? out : p->flow_out;
        p->flow_in = in ? in : p->flow_in;
        im->bound_flows += p->kind == HELD_EVENT;
        return 0;
    }
    if (held_begin(im, h, doc, im->schema_i, 16, ts) != 0)
        return 1;
    h->kind = HELD_FLOW;
    put_u64(h->header, (uint64_t)ts);
    header_cat_color(h, doc, 8);
    h->flow_out = out;
    h->flow_in = in;
    return held_push(im, t);
}

/* ---- counters ---- */

static int map_counter(chrome_import* im, const cj_doc* doc, int64_t ts, chrome_thread* t) {
    uint32_t args = cj_get(doc, 0, "args"), name = cj_get(doc, 0, "name");
    const char* pid_key = t->pid_key;
    if (args == CJ_NONE || doc->nodes[args].type != CJ_OBJECT)
        return 0;
    if (t->pending != NULL && held_write(im, t, t->pending) != 0)
        return 1; /* the held event goes first: the stream keeps file order */
    for (uint32_t k = cj_first(doc, args); k != CJ_NONE; k = doc->nodes[k].next) {
        cj_buf* key = &im->scratch;
        uint64_t* slot;
        chrome_counter* c;
        unsigned char value[8];
        nvtxwResultCode_t rc;
        if (doc->nodes[k].type != CJ_NUMBER)
            continue;
        key->len = 0;
        if (cj_buf_put(key, pid_key, strlen(pid_key) + 1) ||
            (name != CJ_NONE && cj_buf_put(key, cj_text(doc, name), doc->nodes[name].len)) ||
            cj_buf_put(key, "\x1f", 1) || cj_buf_put(key, cj_key(doc, k), doc->nodes[k].key_len))
            return chrome_event_error(im, "out of memory");
        if ((slot = ct_find(&im->counter_index, key->data, key->len, 0, NULL)) == NULL)
            return chrome_event_error(im, "a counter series the first pass did not see");
        c = &im->counters[*slot];
        if (c->is_float) {
            double d = strtod(cj_text(doc, k), NULL);
            memcpy(value, &d, 8);
        } else {
            int64_t i = strtoll(cj_text(doc, k), NULL, 10);
            memcpy(value, &i, 8);
        }
        rc = im->ctx->iface->CounterWrite(t->stream, ts, c->id, value, 8);
        if (rc != NVTXW_RESULT_SUCCESS)
            return chrome_api_error(im, "CounterWrite", rc);
        im->counter_samples++;
    }
    return 0;
}

/* ---- dispatch ---- */

static void note_unknown(chrome_import* im, const char* ph) {
    size_t used = strlen(im->unknown_phases);
    im->unknown_phase++;
    if (strstr(im->unknown_phases, ph) == NULL && used + strlen(ph) + 3 < sizeof im->unknown_phases)
        snprintf(im->unknown_phases + used, sizeof im->unknown_phases - used, "%s%s",
                 used ? " " : "", ph);
}

static int dispatch(chrome_import* im, const cj_doc* doc, const char* ph, int64_t ts,
                    chrome_thread* t) {
    switch (ph[1] == '\0' ? ph[0] : '\0') {
    case 'X':
        return map_complete(im, doc, ts, t);
    case 'B':
        return map_begin(im, doc, ts, t);
    case 'E':
        return map_end(im, doc, ts, t);
    case 'i':
    case 'I':
    case 'R':
    case 'n':
    case 'T':
    case 'P':
    case 'O':
        return map_instant(im, doc, ts, t);
    case 'b':
        return map_async_begin(im, doc, ts, t, 'b');
    case 'e':
        return map_async_end(im, doc, ts, t, 'b');
    case 'S':
        return map_async_begin(im, doc, ts, t, 'S');
    case 'F':
        return map_async_end(im, doc, ts, t, 'S');
    case 'N':
        return map_async_begin(im, doc, ts, t, 'O');
    case 'D':
        return map_async_end(im, doc, ts, t, 'O');
    case 's':
    case 't':
    case 'f':
        return map_flow(im, doc, ts, t, ph[0]);
    case 'C':
        return map_counter(im, doc, ts, t);
    default:
        note_unknown(im, ph);
        return 0;
    }
}

/* After the thread's last event: what it holds back is written and its
 * stream closed (memory then follows the threads still to come). */
static int close_thread(chrome_import* im, chrome_thread* t) {
    int status = t->pending != NULL ? held_write(im, t, t->pending) : 0;
    held_free(t->pending);
    t->pending = NULL;
    t->closed = 1;
    if (t->stream != NULL) {
        nvtxwResultCode_t rc = im->ctx->iface->StreamClose(t->stream);
        t->stream = NULL;
        if (rc != NVTXW_RESULT_SUCCESS && status == 0)
            status = chrome_api_error(im, "StreamClose", rc);
    }
    return status;
}

static int thread_done(chrome_import* im, uint32_t thread);
static int close_threads(chrome_import* im);

int chrome_map_event(chrome_import* im, const cj_doc* doc) {
    const char* ph = str_member(doc, "ph", "");
    chrome_thread* t;
    uint32_t thread;
    int64_t ts = 0;
    int status;
    if (!strcmp(ph, "M"))
        return 0; /* read by the first pass */
    if (im->cur == NULL && (im->cur = held_new()) == NULL)
        return chrome_event_error(im, "out of memory");
    if ((status = time_member(im, doc, "ts", &ts)) != 0)
        return status == 1 ? 1 : chrome_event_error(im, "\"ph\":\"%s\" needs \"ts\"", ph);
    if (chrome_thread_of(im, doc, &thread) != 0)
        return 1;
    if (im->threads[thread].task_path != NULL) {
        im->task_copies++; /* the worker row has the same event */
        return 0;
    }
    t = &im->threads[thread];
    if ((t->stream == NULL && chrome_stream_open(im, t) != 0) || dispatch(im, doc, ph, ts, t) != 0)
        return 1;
    if (!im->late_streams)
        return 0;
    if (im->event_index == t->last_seen && (status = thread_done(im, thread)) != 0)
        return status;
    return im->open_ids.count == 0 ? close_threads(im) : 0;
}

/* A thread past its last event is closed once no async range is open: a
 * range started on one stream may end on another, and a sink may tie the
 * range to the stream it started on. 0, or 1 with the error printed. */
static int thread_done(chrome_import* im, uint32_t thread) {
    if (nvtxw_grow_array((void**)&im->closing, &im->closing_cap, im->closing_count + 1,
                         sizeof *im->closing, 16) != 0)
        return chrome_event_error(im, "out of memory");
    im->closing[im->closing_count++] = thread;
    return 0;
}

static int close_threads(chrome_import* im) {
    int status = 0;
    for (size_t i = 0; i < im->closing_count; i++) {
        int closed = close_thread(im, &im->threads[im->closing[i]]);
        status = status ? status : closed;
    }
    im->closing_count = 0;
    return status;
}

int chrome_map_finish(chrome_import* im) {
    int status = chrome_stream_open_all(im);
    for (size_t i = 0; i < im->thread_count; i++) {
        chrome_thread* t = &im->threads[i];
        if (status == 0 && t->pending != NULL)
            status = held_write(im, t, t->pending);
        if (t->stream != NULL) {
            nvtxwResultCode_t rc = im->ctx->iface->StreamClose(t->stream);
            if (rc != NVTXW_RESULT_SUCCESS && status == 0)
                status = chrome_api_error(im, "StreamClose", rc);
            t->stream = NULL;
        }
    }
    return status;
}

void chrome_import_free(chrome_import* im) {
    for (size_t i = 0; i < im->thread_count; i++) {
        held_free(im->threads[i].pending);
        nvtxw_free(im->threads[i].pid_key);
        nvtxw_free(im->threads[i].tid_key);
        nvtxw_free(im->threads[i].name);
        nvtxw_free(im->threads[i].task_path);
    }
    for (size_t i = 0; i < im->process_count; i++) {
        nvtxw_free(im->processes[i].pid_key);
        nvtxw_free(im->processes[i].name);
        nvtxw_free(im->processes[i].labels);
    }
    for (size_t i = 0; i < im->counter_count; i++)
        nvtxw_free(im->counters[i].name);
    for (size_t i = 0; i < im->async_index.cap; i++) {
        if (im->async_index.slots[i].key != NULL)
            nvtxw_free((void*)(uintptr_t)im->async_index.slots[i].value);
    }
    held_free(im->cur);
    nvtxw_free(im->threads);
    nvtxw_free(im->rows);
    nvtxw_free(im->closing);
    ct_free(&im->stream_names);
    nvtxw_free(im->processes);
    nvtxw_free(im->counters);
    nvtxw_free(im->session_name);
    nvtxw_free(im->scratch.data);
    nvtxw_free(im->pid_key.data);
    nvtxw_free(im->tid_key.data);
    nvtxw_free(im->kinds.data);
    nvtxw_free(im->last_thread_key.data);
    ct_free(&im->process_index);
    ct_free(&im->thread_index);
    ct_free(&im->counter_index);
    ct_free(&im->category_index);
    ct_free(&im->category_ids);
    ct_free(&im->shape_index);
    ct_free(&im->async_index);
    ct_free(&im->open_ids);
    ct_free(&im->task_scopes);
}
