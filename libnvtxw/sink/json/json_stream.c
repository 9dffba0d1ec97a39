/*
 * sink/json/json_stream.c - the Chrome/Perfetto sink's streams and write
 * path (output grammar in json_sink.c). Runs concurrently across streams:
 * every function here touches only its stream's buffers, its name stack and
 * its open-range map; whole events are appended to the shared file with one
 * write(2) on an O_APPEND descriptor (json_write: on the writer thread). The one shared value is
 * the session's timestamp base, set once by compare-and-swap.
 *
 * Roles (schema flags, spec 3.4) to Trace Event Format phases:
 *   RANGE_PUSHPOP            "X" with "dur" (end - begin, 0 when negative)
 *   RANGE_PUSH / RANGE_POP   one "X" written at the pop with the push's
 *                            name, category, color and args, then the
 *                            pop's args (per-stream stack); pushes open
 *                            at StreamClose are "B"; a pop on an empty
 *                            stack is the instant "(unmatched pop)"
 *   RANGE_STARTEND           "b" + "e" with the event's RANGE_ID, else a
 *                            synthetic ID 0x8000000000000000 | tid << 32 | n
 *   RANGE_START / RANGE_END  "b" / "e" paired by RANGE_ID; "e" repeats the
 *                            "b"'s name and category when the start was
 *                            written on the same stream
 *   MARK, no role            "i" with "s":"t"
 *   COUNTER_GROUP            "C" with the numeric fields as args
 * and, before any of them, flow events for the fields "flow_out" ("s") and
 * "flow_in" ("f" with "bp":"e"): name "flow", the event's cat, the field's
 * value as "id", at the event's time.
 * Task events (a top-level scope_id naming a task scope, docs/tasks.md)
 * that are whole ranges or marks are also written on the task's row
 * (emit_task_event): whole ranges as "X" on both rows, the flow end on the
 * task's row.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "common/idmap.h"
#include "common/log.h"
#include "sink/json/json_internal.h"

/* One event to render; `cat` and `name` are borrowed. */
typedef struct json_record {
    char ph;
    const char* name;
    size_t name_length;
    const char* cat; /* NULL: no "cat" */
    int64_t ts;
    uint64_t pid, tid; /* the row: the stream's, or a task's */
    int has_dur, has_id, with_args, with_color;
    int64_t dur;
    uint64_t id;
    const char* extra; /* NULL, or raw JSON members appended (",\"bp\":\"e\"") */
} json_record;

/* The base the session's first timestamp sets: the producer's hint when
 * there is one within 2^62 ns of it (a base that far off would saturate
 * times that a base of the first one keeps), else the timestamp itself. */
static int64_t first_base(const json_sink* cs, int64_t ts) {
    int64_t base = ts;
    if (cs->has_base_hint) {
        uint64_t distance = ts > cs->base_hint ? (uint64_t)ts - (uint64_t)cs->base_hint
                                               : (uint64_t)cs->base_hint - (uint64_t)ts;
        if (distance < UINT64_C(1) << 62)
            base = cs->base_hint;
    }
    return base == CHROME_BASE_UNSET ? base + 1 : base;
}

static int64_t stream_rebase(json_stream* st, int64_t ts) {
    int64_t expected = CHROME_BASE_UNSET;
    int64_t base = first_base(st->sink, ts);
    if (!atomic_compare_exchange_strong(&st->sink->base_ns, &expected, base))
        base = expected;
    st->last_ns = ts;
    ts = json_rebase_counted(ts, base, &st->saturated);
    if (ts < st->min_rel)
        st->min_rel = ts;
    return ts;
}

/* Bytes that the members emit_fixed writes take at most. */
#define RECORD_FIXED_MAX (64 + 5 * JSON_NUMBER_MAX)

static char* put_bytes(char* at, const char* text, size_t length) {
    memcpy(at, text, length);
    return at + length;
}
#define PUT_LITERAL(at, text) put_bytes(at, text, sizeof text - 1)

/* ,"ph":"PH","ts":T[,"dur":D],"pid":P,"tid":T[,"id":"0x.."][,"s":"t"],
 * written into room reserved once: these are most of a record's members. */
static int emit_fixed(json_stream* st, const json_record* r) {
    strbuf* out = &st->out;
    char* at;
    if (strbuf_reserve(out, RECORD_FIXED_MAX) != 0)
        return -1;
    at = PUT_LITERAL(out->data + out->length, ",\"ph\":\"");
    *at++ = r->ph;
    at = json_format_micros(PUT_LITERAL(at, "\",\"ts\":"), stream_rebase(st, r->ts));
    if (r->has_dur)
        at = json_format_micros(PUT_LITERAL(at, ",\"dur\":"), r->dur);
    at = json_format_u64(PUT_LITERAL(at, ",\"pid\":"), r->pid);
    at = json_format_u64(PUT_LITERAL(at, ",\"tid\":"), r->tid);
    if (r->has_id)
        at = json_format_hex_id(PUT_LITERAL(at, ",\"id\":"), r->id);
    if (r->ph == 'i')
        at = PUT_LITERAL(at, ",\"s\":\"t\"");
    out->length = (size_t)(at - out->data);
    *at = '\0';
    return 0;
}

/* A record's category: the event's own, kept escaped when registry-owned
 * (json_put_stable), or another (a start's, from the range map). */
static int emit_cat(json_stream* st, const char* cat) {
    if (cat == st->event_cat && st->event_cat_stable)
        return json_put_stable(st, &st->out, cat);
    return json_put_cstring(&st->out, cat);
}

static int emit(json_stream* st, const json_record* r) {
    strbuf* out = &st->out;
    if (strbuf_append(out, ",\n{\"name\":", 10) != 0 ||
        json_put_string(out, r->name, r->name_length) != 0 ||
        (r->cat != NULL && (strbuf_append(out, ",\"cat\":", 7) || emit_cat(st, r->cat))) ||
        emit_fixed(st, r) != 0)
        return -1;
    if ((r->extra != NULL && strbuf_append(out, r->extra, strlen(r->extra))) ||
        (r->with_color && st->ev.has_color && st->ev.color != 0 &&
         (strbuf_append(out, ",\"cname\":", 9) || json_put_cstring(out, json_cname(st->ev.color)))))
        return -1;
    if (r->with_args && st->args.length > 0 &&
        (strbuf_append(out, ",\"args\":{", 9) ||
         strbuf_append(out, st->args.data, st->args.length) || strbuf_append(out, "}", 1)))
        return -1;
    return strbuf_append(out, "}", 1);
}

/* Writes the pending events once they exceed CHROME_FLUSH_BYTES (or always). */
static nvtxwResultCode_t stream_flush(json_stream* st, int always) {
    nvtxwResultCode_t status;
    if (st->out.length == 0 || (!always && st->out.length < CHROME_FLUSH_BYTES))
        return NVTXW_RESULT_SUCCESS;
    status = json_write(st->sink, st->out.data, st->out.length);
    strbuf_clear(&st->out);
    return status;
}

/* The stream's counter series member: ',"id":"STREAM NAME"'. */
static nvtxwResultCode_t counter_series(json_stream* st) {
    strbuf id = {NULL, 0, 0};
    if (strbuf_append(&id, ",\"id\":", 6) || json_put_cstring(&id, st->stream->name)) {
        strbuf_free(&id);
        return error_oom("a JSON counter series");
    }
    st->counter_series = id.data; /* strbufs are NUL-terminated; owned */
    return NVTXW_RESULT_SUCCESS;
}

nvtxwResultCode_t json_stream_open(sink* s, const core_stream* stream, void** state) {
    json_stream* st = nvtxw_calloc(1, sizeof *st);
    nvtxwResultCode_t status;
    if (st == NULL)
        return error_oom("a JSON output stream");
    st->sink = (json_sink*)s;
    st->stream = stream;
    st->tid = stream->index + 1;
    st->min_rel = INT64_MAX;
    time_map_open(&st->times, &st->sink->time_domain, &st->sink->time_domain_set,
                  stream->time_domain_id);
    status = json_process_id(st->sink, stream, &st->pid);
    if (status == NVTXW_RESULT_SUCCESS)
        status = counter_series(st);
    if (status == NVTXW_RESULT_SUCCESS)
        status = json_put_meta(&st->out, "thread_name", st->pid, st->tid, stream->name, 0) ||
                         json_put_meta(&st->out, "thread_sort_index", st->pid, st->tid, NULL,
                                       stream->index)
                     ? error_oom("JSON thread metadata")
                     : NVTXW_RESULT_SUCCESS; /* written with the stream's first buffer */
    if (status != NVTXW_RESULT_SUCCESS) {
        strbuf_free(&st->out);
        nvtxw_free(st->counter_series);
        nvtxw_free(st);
        return status;
    }
    *state = st;
    return NVTXW_RESULT_SUCCESS;
}

static int emit_open_pushes(json_stream* st);

nvtxwResultCode_t json_stream_close(sink* s, const core_stream* stream, void* state) {
    json_stream* st = state;
    nvtxwResultCode_t status = emit_open_pushes(st) != 0
                                   ? error_oom("open JSON ranges")
                                   : json_write_closing(st->sink, st->out.data, st->out.length);
    (void)stream;
    if (st->saturated > 0)
        nvtxw_log(NVTXW_LOG_WARNING,
                  "json sink, stream \"%s\": %" PRIu64
                  " time%s or duration%s beyond 2^63 ns from the session's first time written as "
                  "the nearest in range (the session spans more than 2^63 ns)",
                  st->stream->name, st->saturated, st->saturated == 1 ? "" : "s",
                  st->saturated == 1 ? "" : "s");
    if (st->json_invalid > 0)
        nvtxw_log(NVTXW_LOG_WARNING,
                  "json sink, stream \"%s\": %" PRIu64
                  " JSON-text field%s not valid JSON, written as string%s",
                  st->stream->name, st->json_invalid, st->json_invalid == 1 ? "" : "s",
                  st->json_invalid == 1 ? "" : "s");
    time_map_report(&st->times, "json", st->stream->name);
    time_map_free(&st->times);
    if (st->min_rel < ((json_sink*)s)->min_rel)
        ((json_sink*)s)->min_rel = st->min_rel; /* lifecycle calls are serialized */
    strbuf_free(&st->out);
    strbuf_free(&st->args);
    strbuf_free(&st->name);
    strbuf_free(&st->stack);
    nvtxw_free(st->stack_ends);
    json_ranges_free(&st->ranges);
    json_caches_free(st);
    nvtxw_free(st->counter_series);
    nvtxw_free(st);
    return status;
}

/* Category text: the registered name, the number, else the domain's name,
 * else "nvtx". */
static const char* event_category(const json_stream* st, char scratch[24]) {
    const core_domain* domain = st->stream->domain;
    if (st->ev.has_category && st->ev.category != 0) {
        const char* name = core_domain_category(domain, st->ev.category);
        if (name != NULL)
            return name;
        snprintf(scratch, 24, "%" PRIu64, st->ev.category);
        return scratch;
    }
    return domain->name[0] != '\0' ? domain->name : "nvtx";
}

static void record_init(json_stream* st, json_record* r, char ph, const char* cat) {
    memset(r, 0, sizeof *r);
    r->ph = ph;
    r->cat = cat;
    r->pid = st->pid;
    r->tid = st->tid;
    if (st->ev.has_message) {
        r->name = st->name.data ? st->name.data : "";
        r->name_length = st->name.length;
    } else {
        r->name = st->ev.title != NULL ? st->ev.title : "(unnamed)";
        r->name_length = strlen(r->name);
    }
    r->with_args = r->with_color = 1;
}

/* The event's time for a begin-like (1), end-like (2) or point (0) phase. */
static int64_t event_time(const json_stream* st, int which) {
    const json_event* ev = &st->ev;
    if (which == 1 && ev->has_begin)
        return ev->begin;
    if (which == 2 && ev->has_end)
        return ev->end;
    if (ev->has_point)
        return ev->point;
    if (ev->has_begin)
        return ev->begin;
    return ev->has_end ? ev->end : st->last_ns;
}

/* Puts the record on `task`'s row (NULL: the stream's own). */
static void record_row(json_record* r, const json_task* task) {
    if (task != NULL) {
        r->pid = task->pid;
        r->tid = task->tid;
    }
}

static int emit_complete(json_stream* st, const char* cat, const json_task* row) {
    json_record r;
    record_init(st, &r, 'X', cat);
    record_row(&r, row);
    r.ts = event_time(st, 1);
    r.has_dur = 1;
    r.dur = json_rebase_counted(event_time(st, 2), r.ts, &st->saturated);
    if (r.dur < 0)
        r.dur = 0;
    return emit(st, &r);
}

static int emit_instant(json_stream* st, const char* cat, const char* name, const json_task* row) {
    json_record r;
    record_init(st, &r, 'i', cat);
    record_row(&r, row);
    if (name != NULL) {
        r.name = name;
        r.name_length = strlen(name);
    }
    r.ts = event_time(st, 0);
    return emit(st, &r);
}

/*
 * Split push/pop become one "X" each, written at the pop: viewers that pair
 * "B"/"E" in file order across all threads (the Chrome DevTools trace engine
 * does) mis-pair same-named ranges of threads whose records interleave. The
 * push renders its whole record at once (name, category, color, args); the
 * stack keeps [int64 push time][record text without its closing brace], and
 * the pop appends it with its "dur". Pushes still open when the stream
 * closes are written as "B" (their slices stay open in the viewer).
 */
static int emit_push(json_stream* st, const char* cat) {
    json_record r;
    size_t* ends = st->stack_ends;
    size_t mark = st->out.length, stack_mark = st->stack.length;
    record_init(st, &r, 'X', cat);
    r.ts = event_time(st, 1);
    if (st->stack_depth == st->stack_capacity) {
        size_t capacity = st->stack_capacity ? st->stack_capacity * 2 : 16;
        if ((ends = nvtxw_reallocarray(ends, capacity, sizeof *ends)) == NULL)
            return -1;
        st->stack_ends = ends;
        st->stack_capacity = capacity;
    }
    if (emit(st, &r) != 0 || strbuf_append(&st->stack, (const char*)&r.ts, sizeof r.ts) != 0 ||
        strbuf_append(&st->stack, st->out.data + mark, st->out.length - mark - 1) != 0) {
        st->out.length = mark;
        st->stack.length = stack_mark;
        return -1;
    }
    st->out.length = mark; /* the record waits on the stack for its pop */
    st->out.data[mark] = '\0';
    ends[st->stack_depth++] = st->stack.length;
    return 0;
}

/* The innermost pending push: its time and record text. */
static const char* stack_top(const json_stream* st, int64_t* push_ts, size_t* length) {
    size_t start = st->stack_depth > 1 ? st->stack_ends[st->stack_depth - 2] : 0;
    const char* entry = st->stack.data + start;
    memcpy(push_ts, entry, sizeof *push_ts);
    *length = st->stack_ends[st->stack_depth - 1] - start - sizeof *push_ts;
    return entry + sizeof *push_ts;
}

static void stack_pop(json_stream* st) {
    st->stack_depth--;
    st->stack.length = st->stack_depth > 0 ? st->stack_ends[st->stack_depth - 1] : 0;
}

/* The pop's own args (st->args) after the push's: the push's record text
 * ends with its "args" object when it has one (args are the last member,
 * the only one that ends in '}'), so the pop's fields join that object,
 * later ones winning for readers, as Trace Event Format merges E's args into
 * B's. */
static int append_pop_args(json_stream* st, const char* text, size_t length) {
    if (st->args.length == 0)
        return strbuf_append(&st->out, text, length);
    if (length > 0 && text[length - 1] == '}')
        return strbuf_append(&st->out, text, length - 1) || strbuf_append(&st->out, ",", 1) ||
               strbuf_append(&st->out, st->args.data, st->args.length) ||
               strbuf_append(&st->out, "}", 1);
    return strbuf_append(&st->out, text, length) || strbuf_append(&st->out, ",\"args\":{", 9) ||
           strbuf_append(&st->out, st->args.data, st->args.length) ||
           strbuf_append(&st->out, "}", 1);
}

/* Split pop: the innermost push's "X" with its duration and the args of
 * both. */
static int emit_pop(json_stream* st, const char* cat) {
    int64_t push_ts, dur;
    size_t length;
    const char* text;
    if (st->stack_depth == 0)
        return emit_instant(st, cat, "(unmatched pop)", NULL);
    text = stack_top(st, &push_ts, &length);
    dur = json_rebase_counted(event_time(st, 2), push_ts, &st->saturated);
    if (append_pop_args(st, text, length) || strbuf_append(&st->out, ",\"dur\":", 7) ||
        json_put_micros(&st->out, dur < 0 ? 0 : dur) || strbuf_append(&st->out, "}", 1))
        return -1;
    stack_pop(st);
    return 0;
}

/* Writes pushes never popped as open "B" slices, innermost last. */
static int emit_open_pushes(json_stream* st) {
    size_t i, start = 0;
    for (i = 0; i < st->stack_depth; i++) {
        const char* text = st->stack.data + start + sizeof(int64_t);
        size_t length = st->stack_ends[i] - start - sizeof(int64_t);
        size_t at = st->out.length;
        char* ph;
        if (strbuf_append(&st->out, text, length) || strbuf_append(&st->out, "}", 1))
            return -1;
        ph = strstr(st->out.data + at, ",\"ph\":\"X\"");
        if (ph != NULL)
            ph[7] = 'B';
        start = st->stack_ends[i];
    }
    st->stack_depth = 0;
    st->stack.length = 0;
    return 0;
}

static uint64_t event_async_id(json_stream* st) {
    if (st->ev.has_range_id)
        return st->ev.range_id;
    return UINT64_C(0x8000000000000000) | st->tid << 32 | (st->next_id++ & 0xFFFFFFFFu);
}

/* Whole start/end range: "b" at begin, "e" at end, one ID. */
static int emit_start_end(json_stream* st, const char* cat) {
    json_record r;
    record_init(st, &r, 'b', cat);
    r.ts = event_time(st, 1);
    r.has_id = 1;
    r.id = event_async_id(st);
    if (emit(st, &r) != 0)
        return -1;
    r.ph = 'e';
    r.ts = event_time(st, 2);
    r.with_args = r.with_color = 0;
    return emit(st, &r);
}

static int emit_start(json_stream* st, const char* cat) {
    json_record r;
    record_init(st, &r, 'b', cat);
    r.ts = event_time(st, 1);
    r.has_id = 1;
    r.id = event_async_id(st);
    /* NUL-free copy for the map: a name with NUL bytes is cut there. */
    if (json_ranges_put(&st->ranges, r.id, r.name_length ? r.name : "", cat) != 0)
        return -1;
    return emit(st, &r);
}

static int emit_end(json_stream* st, const char* cat) {
    json_record r;
    char* label = st->ev.has_range_id ? json_ranges_take(&st->ranges, st->ev.range_id) : NULL;
    int status;
    record_init(st, &r, 'e', cat);
    if (label != NULL) {
        r.name = label;
        r.name_length = strlen(label);
        r.cat = label + r.name_length + 1;
    } else if (!st->ev.has_message) {
        r.name = "";
        r.name_length = 0;
    }
    r.ts = event_time(st, 2);
    r.has_id = 1;
    r.id = st->ev.range_id;
    r.with_color = 0;
    status = emit(st, &r);
    if (status != 0 && label != NULL)
        json_ranges_put(&st->ranges, st->ev.range_id, r.name, r.cat);
    nvtxw_free(label);
    return status;
}

/* "C": one series per counter, one arg per numeric field; nothing when the
 * sample has no numeric field. */
static int emit_counter(json_stream* st, const char* cat, const char* name) {
    json_record r;
    if (st->args.length == 0)
        return 0;
    record_init(st, &r, 'C', cat);
    if (name != NULL) {
        r.name = name;
        r.name_length = strlen(name);
    }
    r.ts = event_time(st, 0);
    r.with_color = 0;
    r.extra = st->counter_series;
    return emit(st, &r);
}

/* One flow event of the event's "flow_out" ("s") or "flow_in" ("f",
 * "bp":"e") field, in the event's category at its time, on `row` (NULL:
 * the stream's): the Chrome DevTools engine binds a flow event to the event
 * with the same ts, pid, tid and cat; Perfetto to the enclosing slice. */
static int emit_flow(json_stream* st, const char* cat, char ph, uint64_t id, const json_task* row) {
    json_record r;
    memset(&r, 0, sizeof r);
    r.ph = ph;
    r.name = "flow";
    r.cat = cat;
    r.name_length = 4;
    r.ts = event_time(st, 0);
    r.pid = st->pid;
    r.tid = st->tid;
    record_row(&r, row);
    r.has_id = 1;
    r.id = id;
    r.extra = ph == 'f' ? ",\"bp\":\"e\"" : NULL;
    return emit(st, &r);
}

static int emit_flows(json_stream* st, const char* cat) {
    return (st->ev.has_flow_out && emit_flow(st, cat, 's', st->ev.flow_out, NULL) != 0) ||
           (st->ev.has_flow_in && emit_flow(st, cat, 'f', st->ev.flow_in, NULL) != 0);
}

/*
 * A task event (a whole range or a mark carrying a task scope): written on
 * the stream's row and again on the task's row, whole ranges as "X" on both
 * (a task's slices never overlap; "b"/"e" would land on async tracks, not
 * on the rows), marks as "i". A flow starts on the stream's row (the
 * waker's side, before the event as for other events) and ends on the
 * task's row just after the event's copy there: the Chrome DevTools engine
 * binds a flow event to the first event (in ts order, ties in file order)
 * with its ts, pid, tid and cat, Perfetto ("bp":"e") to the slice open on
 * the row, so both bind it to the resumed slice.
 */
static int emit_task_event(json_stream* st, const char* cat) {
    const json_task* task = st->ev.task;
    int whole = st->ev.role == 2 || st->ev.role == 3;
    if (st->ev.has_flow_out && emit_flow(st, cat, 's', st->ev.flow_out, NULL) != 0)
        return -1;
    if (whole ? emit_complete(st, cat, NULL) || emit_complete(st, cat, task)
              : emit_instant(st, cat, NULL, NULL) || emit_instant(st, cat, NULL, task))
        return -1;
    return st->ev.has_flow_in && emit_flow(st, cat, 'f', st->ev.flow_in, task) != 0 ? -1 : 0;
}

static int emit_event(json_stream* st) {
    char scratch[24];
    const char* cat = event_category(st, scratch);
    st->event_cat = cat;
    st->event_cat_stable = cat != scratch;
    if (st->ev.task != NULL && (st->ev.role == 0 || (st->ev.role >= 2 && st->ev.role <= 4)))
        return emit_task_event(st, cat);
    if ((st->ev.has_flow_out || st->ev.has_flow_in) && emit_flows(st, cat) != 0)
        return -1;
    switch (st->ev.role) {
    case 2: /* RANGE_PUSHPOP */
        return emit_complete(st, cat, NULL);
    case 3: /* RANGE_STARTEND */
        return emit_start_end(st, cat);
    case 5: /* RANGE_PUSH */
        return emit_push(st, cat);
    case 6: /* RANGE_POP */
        return emit_pop(st, cat);
    case 7: /* RANGE_START */
        return emit_start(st, cat);
    case 8: /* RANGE_END */
        return emit_end(st, cat);
    default: /* MARK, no role, COUNTER_GROUP written as an event */
        if (st->ev.role == 1)
            return emit_counter(st, cat, NULL);
        return emit_instant(st, cat, NULL, NULL);
    }
}

/* Restores the pending output after a failed event, so it leaves no trace. */
static nvtxwResultCode_t event_failed(json_stream* st, size_t mark) {
    st->out.length = mark;
    if (st->out.data != NULL)
        st->out.data[mark] = '\0';
    return error_oom("a JSON event");
}

nvtxwResultCode_t json_event_write(void* state, const core_event* event) {
    json_stream* st = state;
    core_event_facts facts;
    size_t mark = st->out.length;
    nvtxwResultCode_t status;
    json_visit_reset(st, 0);
    status = core_event_visit(event, &json_visitor, st, NVTXW_VISIT_ALLOW_FOREIGN_POINTERS, &facts);
    if (status != NVTXW_RESULT_SUCCESS)
        return status;
    if (emit_event(st) != 0)
        return event_failed(st, mark);
    return stream_flush(st, 0);
}

nvtxwResultCode_t json_counter_write(void* state, int64_t timestamp, const core_counter* counter,
                                     const void* data, size_t size) {
    json_stream* st = state;
    size_t mark = st->out.length;
    char fallback[40];
    nvtxwResultCode_t status;
    json_visit_reset(st, 1);
    status = core_counter_visit(st->stream->domain, counter, data, size, &json_visitor, st);
    if (status != NVTXW_RESULT_SUCCESS)
        return status;
    st->ev.has_point = 1;
    st->ev.point =
        time_map_convert(&st->times, time_map_semantics_domain(counter->semantics), timestamp);
    st->ev.has_color = 0;
    /* the fallback name only when needed (snprintf per sample costs more
     * than the sample) */
    if (counter->name[0] == '\0')
        snprintf(fallback, sizeof fallback, "counter %" PRIu64, counter->id);
    if (emit_counter(st, NULL, counter->name[0] != '\0' ? counter->name : fallback) != 0)
        return event_failed(st, mark);
    return stream_flush(st, 0);
}

/* The Trace Event Format has no "no value" sample: the series keeps its
 * last value, which matches NVTX_COUNTER_SAMPLE_UNCHANGED and is the
 * closest rendering of ZERO/UNAVAILABLE a viewer offers without inventing
 * a number. */
nvtxwResultCode_t json_counter_no_value_write(void* state, int64_t timestamp,
                                              const core_counter* counter, uint8_t reason) {
    (void)state, (void)timestamp, (void)counter, (void)reason;
    return NVTXW_RESULT_SUCCESS;
}

/* Conversions into the session's time domain (sink/shared/time_map.h),
 * for the stream's later timestamps. */
nvtxwResultCode_t json_sync_points_write(void* state, uint64_t src, uint64_t dst,
                                         const nvtxSyncPoint_t* points, size_t count) {
    json_stream* st = state;
    return time_map_points(&st->times, src, dst, points, count) == 0
               ? NVTXW_RESULT_SUCCESS
               : error_oom("a JSON stream's time conversions");
}

nvtxwResultCode_t json_conversion_factor_write(void* state, uint64_t src, uint64_t dst,
                                               double slope, int64_t ts_src, int64_t ts_dst) {
    json_stream* st = state;
    return time_map_factor(&st->times, src, dst, slope, ts_src, ts_dst) == 0
               ? NVTXW_RESULT_SUCCESS
               : error_oom("a JSON stream's time conversions");
}
