/*
 * tools/replay/chrome/chrome_in_write.c - the NVTXW side of the Chrome trace import
 * (chrome_in.h): session, the one domain "chrome", the fixed event schemas,
 * a scope per process, a stream per (pid, tid), a counter per series,
 * categories and args schemas registered on first use, and error messages
 * that name the event at fault.
 *
 * Payloads of one event (docs/chrome-input.md, Payloads):
 *   [0] header: a static schema per kind (timestamps with their roles,
 *       category, color, range ID, scope)
 *   [1] the name: CSTRING_UTF8, zero-terminated, EVENT_MESSAGE
 *   [2] args, when there are any: a DYNAMIC schema per distinct shape (the
 *       ordered keys and value types; packAlign 1, so fields follow each
 *       other without padding): integers INT64 (UINT64 above INT64_MAX),
 *       other numbers DOUBLE, booleans UINT8, strings CSTRING_UTF8, objects,
 *       arrays and null their compact JSON text. Beyond CHROME_SHAPES_MAX
 *       shapes or CHROME_SHAPE_KEYS_MAX keys, one field "args" holds the
 *       whole object as JSON text.
 *   [3] flows bound to the event: UINT64 flow_out / flow_in (the fields the
 *       JSON sink draws as flow arrows)
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chrome_in.h"
#include "tool_alloc.h"
#include "tool_interrupt.h"

#define CHROME_SHAPES_MAX 4096
#define CHROME_SHAPE_KEYS_MAX 64
#define CHROME_CATEGORIES_MAX 65535

static void vreport(chrome_import* im, const char* kind, const char* format, va_list args) {
    uint64_t line, column;
    if (im->quiet)
        return;
    chrome_locate(im->path, im->event_offset, &line, &column);
    fprintf(stderr, "%s: %s: %s:%llu:%llu: event #%llu: ", im->ctx->tool, kind, im->path,
            (unsigned long long)line, (unsigned long long)column,
            (unsigned long long)im->event_index);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
}

int chrome_event_error(chrome_import* im, const char* format, ...) {
    va_list args;
    va_start(args, format);
    vreport(im, "error", format, args);
    va_end(args);
    return 1;
}

void chrome_event_warning(chrome_import* im, const char* format, ...) {
    va_list args;
    va_start(args, format);
    vreport(im, "warning", format, args);
    va_end(args);
}

int chrome_out_of_memory(chrome_import* im, const char* what) {
    fprintf(stderr, "%s: error: %s: out of memory (%s)\n", im->ctx->tool, im->path, what);
    return 1;
}

int chrome_api_error(chrome_import* im, const char* what, nvtxwResultCode_t rc) {
    if (tool_interrupted())
        return 1; /* the calls fail because the run was asked to stop; nothing to say */
    fprintf(stderr, "%s: error: %s: %s failed (code %d): %s\n", im->ctx->tool, im->path, what,
            (int)rc, nvtxw_last_error());
    return 1;
}

/* ---- fixed schemas ---- */

#define TS(role, name)                                                                             \
    {                                                                                              \
        NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP | (role), NVTX_PAYLOAD_ENTRY_TYPE_INT64, name, NULL, 0,  \
            0, NULL, NULL                                                                          \
    }
#define FIELD(type, name)                                                                          \
    { 0, type, name, NULL, 0, 0, NULL, NULL }
#define CAT_COLOR                                                                                  \
    FIELD(NVTX_PAYLOAD_ENTRY_TYPE_CATEGORY, "category"),                                           \
        FIELD(NVTX_PAYLOAD_ENTRY_TYPE_COLOR_ARGB, "color")

static const nvtxPayloadSchemaEntry_t x_entries[] = {
    TS(NVTX_PAYLOAD_ENTRY_FLAG_RANGE_BEGIN, "begin"), TS(NVTX_PAYLOAD_ENTRY_FLAG_RANGE_END, "end"),
    CAT_COLOR};
static const nvtxPayloadSchemaEntry_t b_entries[] = {
    TS(NVTX_PAYLOAD_ENTRY_FLAG_RANGE_BEGIN, "timestamp"), CAT_COLOR};
static const nvtxPayloadSchemaEntry_t e_entries[] = {
    TS(NVTX_PAYLOAD_ENTRY_FLAG_RANGE_END, "timestamp")};
static const nvtxPayloadSchemaEntry_t i_entries[] = {
    TS(NVTX_PAYLOAD_ENTRY_FLAG_MARK, "timestamp"), CAT_COLOR,
    FIELD(NVTX_PAYLOAD_ENTRY_TYPE_SCOPE_ID, "scope")};
static const nvtxPayloadSchemaEntry_t start_entries[] = {
    FIELD(NVTX_PAYLOAD_ENTRY_TYPE_RANGE_ID, "rangeId"),
    TS(NVTX_PAYLOAD_ENTRY_FLAG_RANGE_BEGIN, "timestamp"), CAT_COLOR};
/* The end carries its own category (the `cat` it matched its begin by), so an
 * end written on another thread than its begin keeps that `cat` in the JSON
 * sink's "e" and pairs with its "b" again when read back. */
static const nvtxPayloadSchemaEntry_t end_entries[] = {
    FIELD(NVTX_PAYLOAD_ENTRY_TYPE_RANGE_ID, "rangeId"),
    TS(NVTX_PAYLOAD_ENTRY_FLAG_RANGE_END, "timestamp"),
    FIELD(NVTX_PAYLOAD_ENTRY_TYPE_CATEGORY, "category")};
static const nvtxPayloadSchemaEntry_t message_entries[] = {
    {NVTX_PAYLOAD_ENTRY_FLAG_EVENT_MESSAGE | NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_ZERO_TERMINATED,
     NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF8, "name", NULL, 0, 0, NULL, NULL}};
/* Hidden: they bind the event to a flow (the sinks that draw flows read
 * hidden flow fields) and are not args of the trace's event. */
static const nvtxPayloadSchemaEntry_t flow_entries[] = {
    {NVTX_PAYLOAD_ENTRY_FLAG_HIDE, NVTX_PAYLOAD_ENTRY_TYPE_UINT64, "flow_out", NULL, 0, 0, NULL,
     NULL},
    {NVTX_PAYLOAD_ENTRY_FLAG_HIDE, NVTX_PAYLOAD_ENTRY_TYPE_UINT64, "flow_in", NULL, 0, 0, NULL,
     NULL}};
/* Objects, arrays and null in args are their compact JSON text, marked as
 * such (nvtxw/payload.h), so the JSON and Perfetto sinks write them as
 * values again. */
static const nvtxSemanticsHeader_t json_text = {sizeof(nvtxSemanticsHeader_t),
                                                NVTXW_SEMANTIC_ID_JSON_TEXT,
                                                NVTXW_SEMANTIC_JSON_TEXT_VERSION, NULL};
static const nvtxPayloadSchemaEntry_t json_entries[] = {
    {NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_ZERO_TERMINATED, NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF8, "args",
     NULL, 0, 0, &json_text, NULL}};

static int schema(chrome_import* im, const char* name, uint64_t type, uint64_t flags,
                  const nvtxPayloadSchemaEntry_t* entries, size_t count, size_t size,
                  uint64_t* id) {
    nvtxPayloadSchemaAttr_t attr;
    nvtxwResultCode_t rc;
    memset(&attr, 0, sizeof attr);
    attr.fieldMask = NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NAME | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE |
                     NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_FLAGS | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES |
                     NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES;
    attr.name = name;
    attr.type = type;
    attr.flags = flags;
    attr.entries = entries;
    attr.numEntries = count;
    if (size != 0) {
        attr.fieldMask |= NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_STATIC_SIZE;
        attr.payloadStaticSize = size;
    }
    if (type == NVTX_PAYLOAD_SCHEMA_TYPE_DYNAMIC) {
        attr.fieldMask |= NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ALIGNMENT;
        attr.packAlign = 1;
    }
    rc = im->ctx->iface->SchemaRegister(im->domain, &attr, id);
    return rc == NVTXW_RESULT_SUCCESS ? 0 : chrome_api_error(im, "SchemaRegister", rc);
}

#define STATIC_SCHEMA(name, flags, entries, size, id)                                              \
    schema(im, name, NVTX_PAYLOAD_SCHEMA_TYPE_STATIC, flags, entries,                              \
           sizeof entries / sizeof entries[0], size, id)

static int register_schemas(chrome_import* im) {
    return STATIC_SCHEMA("chrome X", NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_PUSHPOP, x_entries, 24,
                         &im->schema_x) ||
           STATIC_SCHEMA("chrome X (task)", NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_STARTEND, x_entries, 24,
                         &im->schema_x_task) ||
           STATIC_SCHEMA("chrome B", NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_PUSH, b_entries, 16,
                         &im->schema_b) ||
           STATIC_SCHEMA("chrome E", NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_POP, e_entries, 8,
                         &im->schema_e) ||
           schema(im, "chrome instant", NVTX_PAYLOAD_SCHEMA_TYPE_STATIC,
                  NVTX_PAYLOAD_SCHEMA_FLAG_MARK, i_entries, 3, 16, &im->schema_i) ||
           STATIC_SCHEMA("chrome instant (scoped)", NVTX_PAYLOAD_SCHEMA_FLAG_MARK, i_entries, 24,
                         &im->schema_i_scoped) ||
           STATIC_SCHEMA("chrome async begin", NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_START, start_entries,
                         24, &im->schema_start) ||
           STATIC_SCHEMA("chrome async end", NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_END, end_entries, 24,
                         &im->schema_end) ||
           schema(im, "name", NVTX_PAYLOAD_SCHEMA_TYPE_DYNAMIC, 0, message_entries, 1, 0,
                  &im->schema_message) ||
           schema(im, "flow out", NVTX_PAYLOAD_SCHEMA_TYPE_STATIC, 0, flow_entries, 1, 8,
                  &im->schema_flow[0]) ||
           schema(im, "flow in", NVTX_PAYLOAD_SCHEMA_TYPE_STATIC, 0, flow_entries + 1, 1, 8,
                  &im->schema_flow[1]) ||
           STATIC_SCHEMA("flows", 0, flow_entries, 16, &im->schema_flow[2]) ||
           schema(im, "args", NVTX_PAYLOAD_SCHEMA_TYPE_DYNAMIC, 0, json_entries, 1, 0,
                  &im->schema_args_json);
}

/* ---- scopes, streams, counters ---- */

static const char* id_text(const char* key) { return key + 2; /* after "n:" / "s:" */ }

/* A process's scope path: its name (and labels), else "pid P"; made unique
 * so that two processes never share a scope. */
static int register_process(chrome_import* im, chrome_process* p, ct_table* used) {
    nvtxScopeAttr_t attr;
    nvtxwResultCode_t rc;
    char path[1024];
    int added;
    if (p->name != NULL)
        snprintf(path, sizeof path, "%s%s%s%s", p->name, p->labels ? " (" : "",
                 p->labels ? p->labels : "", p->labels ? ")" : "");
    else
        snprintf(path, sizeof path, "pid %s", id_text(p->pid_key));
    if (ct_find(used, path, strlen(path), 1, &added) == NULL)
        return chrome_out_of_memory(im, "process names");
    if (!added) {
        size_t len = strlen(path);
        snprintf(path + len, sizeof path - len, " (pid %s)", id_text(p->pid_key));
        if (ct_find(used, path, strlen(path), 1, NULL) == NULL)
            return chrome_out_of_memory(im, "process names");
    }
    memset(&attr, 0, sizeof attr);
    attr.structSize = sizeof attr;
    attr.path = path;
    attr.parentScope = NVTX_SCOPE_ROOT;
    attr.scopeId = NVTX_SCOPE_NONE;
    rc = im->ctx->iface->ScopeRegister(im->domain, &attr, &p->scope);
    return rc == NVTXW_RESULT_SUCCESS ? 0 : chrome_api_error(im, "ScopeRegister", rc);
}

/* Chrome's order of rows: processes by sort index, then first sight;
 * threads likewise inside their process. */
static const chrome_import* sort_im;

static int compare_threads(const void* a, const void* b) {
    const chrome_thread* t = sort_im->threads + *(const uint32_t*)a;
    const chrome_thread* u = sort_im->threads + *(const uint32_t*)b;
    const chrome_process* p = sort_im->processes + t->process;
    const chrome_process* q = sort_im->processes + u->process;
    int64_t ps = p->has_sort ? p->sort_index : 0, qs = q->has_sort ? q->sort_index : 0;
    int64_t ts = t->has_sort ? t->sort_index : 0, us = u->has_sort ? u->sort_index : 0;
    if (ps != qs)
        return ps < qs ? -1 : 1;
    if (t->process != u->process)
        return p->first_seen < q->first_seen ? -1 : 1;
    if (ts != us)
        return ts < us ? -1 : 1;
    return t->first_seen < u->first_seen ? -1 : t->first_seen > u->first_seen;
}

/* A thread's stream name: its thread_name, else "tid T"; " (pid P)" and
 * then "#N" appended while the name is taken (stream names are unique). */
static int open_stream(chrome_import* im, chrome_thread* t, ct_table* used) {
    nvtxwStreamAttributes_t attr;
    nvtxwResultCode_t rc;
    char base[900], name[1024];
    int added = 0;
    if (t->name != NULL)
        snprintf(base, sizeof base, "%s", t->name);
    else
        snprintf(base, sizeof base, "tid %s", id_text(t->tid_key));
    snprintf(name, sizeof name, "%s", base);
    for (int n = 1; ct_find(used, name, strlen(name), 1, &added) != NULL && !added; n++) {
        if (n == 1)
            snprintf(name, sizeof name, "%s (pid %.60s)", base, id_text(t->pid_key));
        else
            snprintf(name, sizeof name, "%s (pid %.60s)#%d", base, id_text(t->pid_key), n);
    }
    if (!added)
        return chrome_out_of_memory(im, "stream names");
    memset(&attr, 0, sizeof attr);
    attr.structSize = sizeof attr;
    attr.name = name;
    attr.domain = im->domain;
    attr.scopeId = im->processes[t->process].scope;
    rc = im->ctx->iface->StreamOpen(im->session, &attr, &t->stream);
    return rc == NVTXW_RESULT_SUCCESS ? 0 : chrome_api_error(im, "StreamOpen", rc);
}

/* A task row becomes its task's scope again, below its row's process
 * (a nested task's parent task is not recorded in the JSON). */
static int register_task(chrome_import* im, chrome_thread* t) {
    nvtxScopeAttr_t attr;
    nvtxwResultCode_t rc;
    uint64_t* slot = chrome_task_slot(im, t->task_old_scope, 0);
    if (slot == NULL || *slot != 0)
        return 0; /* two rows named the same scope: the first one counts */
    memset(&attr, 0, sizeof attr);
    attr.structSize = sizeof attr;
    attr.path = t->task_path;
    attr.parentScope = im->processes[t->process].scope;
    attr.scopeId = NVTX_SCOPE_NONE;
    rc = im->ctx->iface->ScopeRegister(im->domain, &attr, slot);
    im->task_rows++;
    return rc == NVTXW_RESULT_SUCCESS ? 0 : chrome_api_error(im, "ScopeRegister", rc);
}

/* Threads beyond which streams open late and close early
 * (docs/chrome-input.md, Processes, threads, streams). */
static size_t streams_at_once(void) {
    return (size_t)chrome_env_number("NVTXW_CHROME_STREAMS_AT_ONCE", 1024);
}

/* Processes are registered and the threads' rows put in order. Up to
 * streams_at_once() threads, every row is registered now: task rows as
 * scopes, the others as streams. Beyond, the task rows are registered now
 * and the streams opened in row order as late as the events let them
 * (chrome_stream_open), each closed after its thread's last event. */
static int register_streams(chrome_import* im) {
    ct_table used = {0};
    int status = 0;
    im->rows = nvtxw_calloc(im->thread_count + 1, sizeof *im->rows);
    if (im->rows == NULL)
        return chrome_out_of_memory(im, "stream order");
    for (size_t i = 0; i < im->process_count && status == 0; i++)
        status = register_process(im, &im->processes[i], &used);
    ct_free(&used);
    for (uint32_t i = 0; i < im->thread_count && status == 0; i++)
        im->rows[i] = i;
    sort_im = im;
    if (status == 0)
        qsort(im->rows, im->thread_count, sizeof *im->rows, compare_threads);
    im->late_streams = im->thread_count > streams_at_once();
    for (size_t i = 0; i < im->thread_count && status == 0; i++) {
        chrome_thread* t = &im->threads[im->rows[i]];
        if (t->task_path != NULL)
            status = register_task(im, t);
        else if (!im->late_streams)
            status = open_stream(im, t, &im->stream_names);
    }
    if (!im->late_streams)
        im->rows_opened = im->thread_count;
    return status;
}

/* Opens the next rows' streams until t's is open (t NULL: every row's);
 * 0, or 1 with the error printed. */
static int open_rows(chrome_import* im, const chrome_thread* t) {
    while ((t == NULL || (t->stream == NULL && !t->closed)) && im->rows_opened < im->thread_count) {
        chrome_thread* next = &im->threads[im->rows[im->rows_opened++]];
        if (next->task_path == NULL && open_stream(im, next, &im->stream_names) != 0)
            return 1;
    }
    return 0;
}

int chrome_stream_open(chrome_import* im, chrome_thread* t) {
    if (open_rows(im, t) != 0)
        return 1;
    if (t->stream == NULL)
        return chrome_event_error(im, "an event of a thread that the first pass did not see or "
                                      "saw end (did the file change while it was read?)");
    return 0;
}

int chrome_stream_open_all(chrome_import* im) { return open_rows(im, NULL); }

static int register_counters(chrome_import* im) {
    for (size_t i = 0; i < im->counter_count; i++) {
        chrome_counter* c = &im->counters[i];
        nvtxCounterAttr_t attr;
        nvtxwResultCode_t rc;
        memset(&attr, 0, sizeof attr);
        attr.structSize = sizeof attr;
        attr.schemaId =
            c->is_float ? NVTX_PAYLOAD_ENTRY_TYPE_DOUBLE : NVTX_PAYLOAD_ENTRY_TYPE_INT64;
        attr.name = c->name;
        attr.scopeId = im->processes[c->process].scope;
        rc = im->ctx->iface->CounterRegister(im->domain, &attr, &c->id);
        if (rc != NVTXW_RESULT_SUCCESS)
            return chrome_api_error(im, "CounterRegister", rc);
    }
    return 0;
}

int chrome_register(chrome_import* im) {
    nvtxwSessionAttributes_t session;
    nvtxwDomainAttributes_t domain;
    nvtxwResultCode_t rc;
    const char* base = strrchr(im->path, '/');
    memset(&session, 0, sizeof session);
    session.structSize = sizeof session;
    session.name = im->session_name != NULL ? im->session_name : base ? base + 1 : im->path;
    session.configString = im->ctx->config;
    if ((rc = im->ctx->iface->SessionBegin(&session, &im->session)) != NVTXW_RESULT_SUCCESS)
        return chrome_api_error(im, "SessionBegin", rc);
    memset(&domain, 0, sizeof domain);
    domain.structSize = sizeof domain;
    domain.name = "chrome";
    if ((rc = im->ctx->iface->DomainRegister(im->session, &domain, &im->domain)) !=
        NVTXW_RESULT_SUCCESS)
        return chrome_api_error(im, "DomainRegister", rc);
    return register_schemas(im) || register_streams(im) || register_counters(im);
}

/* A category's ID follows from its name (FNV-1a, 31 bits, never 0), so two
 * Chrome traces that share a `cat` register it with the same static ID and
 * merge into one session; with IDs in order of first use, "cuda" in one file
 * and "cpu_op" in the other both took ID 1 and the merge failed. A collision
 * inside one file moves to the next free ID. 0 when the name is empty, the
 * cap is reached or the ID cannot be claimed. */
static uint32_t category_id(chrome_import* im, const char* cat) {
    uint32_t id = 2166136261u;
    int added = 0;
    for (const unsigned char* p = (const unsigned char*)cat; *p != '\0'; p++)
        id = (id ^ *p) * 16777619u;
    for (id &= 0x7fffffffu;; id = (id + 1) & 0x7fffffffu) {
        uint64_t* taken;
        if (id == 0)
            continue;
        taken = ct_find(&im->category_ids, (const char*)&id, sizeof id, 1, &added);
        if (taken == NULL)
            return 0;
        if (added)
            return id;
    }
}

/* Every event whose non-empty `cat` ends up without a category is counted
 * for the summary: past the cap, or when the name cannot be registered. */
uint32_t chrome_category(chrome_import* im, const char* cat) {
    int added;
    uint64_t* slot;
    if (cat == NULL || cat[0] == '\0')
        return 0;
    slot = im->category_count >= CHROME_CATEGORIES_MAX
               ? ct_find(&im->category_index, cat, strlen(cat), 0, &added)
               : ct_find(&im->category_index, cat, strlen(cat), 1, &added);
    if (slot == NULL || (!added && *slot == 0)) {
        im->category_lost++;
        return 0;
    }
    if (added) {
        im->category_count++;
        *slot = category_id(im, cat);
        if (*slot != 0 && im->ctx->iface->CategoryRegister(im->domain, (uint32_t)*slot, cat) !=
                              NVTXW_RESULT_SUCCESS)
            *slot = 0; /* the event keeps its name; only the category is lost */
        if (*slot == 0)
            im->category_lost++;
    }
    return (uint32_t)*slot;
}

/* ---- args ---- */

/* The field type of one args value, before task scopes are considered. */
static char number_kind(const cj_doc* doc, uint32_t node);

/* The field type of one args value: i int64, u uint64, d double, b bool,
 * s string, j JSON text, t a task scope (an integer "task" naming a task
 * row's scope: docs/chrome-input.md, Tasks). */
static char value_kind(chrome_import* im, const cj_doc* doc, uint32_t node) {
    char kind = number_kind(doc, node);
    uint64_t* slot;
    if ((kind == 'i' || kind == 'u') && im->task_rows != 0 && !strcmp(cj_key(doc, node), "task") &&
        (slot = chrome_task_slot(im, strtoull(cj_text(doc, node), NULL, 10), 0)) != NULL &&
        *slot != 0)
        return 't';
    return kind;
}

/* The value of a plain decimal integer of at most 18 digits (no sign
 * but '-', no point, no exponent) in *value: most args numbers are. 0, or
 * -1 for any other text. */
static int small_integer(const char* text, size_t len, int64_t* value) {
    size_t i = text[0] == '-';
    int64_t v = 0;
    if (len == i || len - i > 18)
        return -1;
    for (; i < len; i++) {
        if (text[i] < '0' || text[i] > '9')
            return -1;
        v = v * 10 + (text[i] - '0');
    }
    *value = text[0] == '-' ? -v : v;
    return 0;
}

static char number_kind(const cj_doc* doc, uint32_t node) {
    const char* text = cj_text(doc, node);
    char* end;
    int64_t small;
    switch (doc->nodes[node].type) {
    case CJ_BOOL:
        return 'b';
    case CJ_STRING:
        return 's';
    case CJ_NUMBER:
        if (small_integer(text, doc->nodes[node].len, &small) == 0)
            return 'i';
        if (strpbrk(text, ".eE") != NULL)
            return 'd';
        errno = 0;
        (void)strtoll(text, &end, 10);
        if (errno == 0)
            return 'i';
        errno = 0;
        (void)strtoull(text, &end, 10);
        return errno == 0 && text[0] != '-' ? 'u' : 'd';
    default:
        return 'j';
    }
}

static int skipped(const cj_doc* doc, uint32_t node, const char* const* skip) {
    for (; skip != NULL && *skip != NULL; skip++) {
        if (!strcmp(cj_key(doc, node), *skip))
            return 1;
    }
    return 0;
}

/* The shape key of args in im->scratch, the kind of each member (skipped
 * ones too) in im->kinds; the number of fields. */
static size_t shape_key(chrome_import* im, const cj_doc* doc, uint32_t args,
                        const char* const* skip) {
    size_t fields = 0;
    im->scratch.len = 0;
    im->kinds.len = 0;
    for (uint32_t k = cj_first(doc, args); k != CJ_NONE; k = doc->nodes[k].next) {
        char kind = value_kind(im, doc, k);
        if (cj_buf_put(&im->kinds, &kind, 1) != 0)
            return SIZE_MAX;
        if (skipped(doc, k, skip))
            continue;
        fields++;
        if (cj_buf_put(&im->scratch, &kind, 1) != 0 ||
            cj_buf_put(&im->scratch, cj_key(doc, k), doc->nodes[k].key_len + 1) != 0)
            return SIZE_MAX;
    }
    return fields;
}

static uint64_t entry_type(char kind) {
    return kind == 't'   ? NVTX_PAYLOAD_ENTRY_TYPE_SCOPE_ID
           : kind == 'i' ? NVTX_PAYLOAD_ENTRY_TYPE_INT64
           : kind == 'u' ? NVTX_PAYLOAD_ENTRY_TYPE_UINT64
           : kind == 'd' ? NVTX_PAYLOAD_ENTRY_TYPE_DOUBLE
           : kind == 'b' ? NVTX_PAYLOAD_ENTRY_TYPE_UINT8
                         : NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF8;
}

/* Registers the schema of the shape in im->scratch. */
static int register_shape(chrome_import* im, size_t fields, const char* event_name, uint64_t* id) {
    nvtxPayloadSchemaEntry_t entries[CHROME_SHAPE_KEYS_MAX];
    const char* p = im->scratch.data;
    char name[128];
    for (size_t i = 0; i < fields; i++) {
        memset(&entries[i], 0, sizeof entries[i]);
        entries[i].type = entry_type(p[0]);
        if (p[0] == 's' || p[0] == 'j')
            entries[i].flags = NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_ZERO_TERMINATED;
        if (p[0] == 'j')
            entries[i].semantics = &json_text;
        entries[i].name = p + 1;
        p += strlen(p + 1) + 2;
    }
    snprintf(name, sizeof name, "args of %.100s", event_name);
    return schema(im, name, NVTX_PAYLOAD_SCHEMA_TYPE_DYNAMIC, 0, entries, fields, 0, id);
}

static int put_value(chrome_import* im, cj_buf* out, const cj_doc* doc, uint32_t k, char kind) {
    const char* text = cj_text(doc, k);
    union {
        int64_t i;
        uint64_t u;
        double d;
        uint8_t b;
    } v;
    switch (kind) {
    case 't':
        im->args_task = 1;
        v.u = *chrome_task_slot(im, strtoull(text, NULL, 10), 0);
        return cj_buf_put(out, &v.u, 8);
    case 'i':
        if (small_integer(text, doc->nodes[k].len, &v.i) != 0)
            v.i = strtoll(text, NULL, 10);
        return cj_buf_put(out, &v.i, 8);
    case 'u':
        v.u = strtoull(text, NULL, 10);
        return cj_buf_put(out, &v.u, 8);
    case 'd':
        v.d = strtod(text, NULL);
        return cj_buf_put(out, &v.d, 8);
    case 'b':
        v.b = doc->nodes[k].len == 1;
        return cj_buf_put(out, &v.b, 1);
    case 's':
        return cj_buf_put(out, text, strlen(text) + 1); /* "\u0000" ends it, as C strings end */
    default:
        return cj_write_json(doc, k, out) || cj_buf_put(out, "", 1);
    }
}

/* The whole args object (less the skipped keys) as one JSON text field. */
static int json_fallback(cj_buf* out, const cj_doc* doc, uint32_t args, const char* const* skip) {
    int status = cj_buf_put(out, "{", 1);
    int first = 1;
    for (uint32_t k = cj_first(doc, args); k != CJ_NONE && status == 0; k = doc->nodes[k].next) {
        cj_buf key = {0};
        if (skipped(doc, k, skip))
            continue;
        status = (!first && cj_buf_put(out, ",", 1)) || cj_buf_put(&key, "\"", 1) ||
                 cj_buf_put(&key, cj_key(doc, k), doc->nodes[k].key_len) ||
                 cj_buf_put(&key, "\":", 2) || cj_buf_put(out, key.data, key.len) ||
                 cj_write_json(doc, k, out);
        nvtxw_free(key.data);
        first = 0;
    }
    return status || cj_buf_put(out, "}", 2);
}

int chrome_args_payload(chrome_import* im, const cj_doc* doc, uint32_t args, const char* name,
                        const char* const* skip, cj_buf* out, uint64_t* schema_id) {
    size_t fields;
    uint64_t* slot = NULL;
    int added = 0, status = 0;
    out->len = 0;
    *schema_id = 0;
    im->args_task = 0;
    if (args == CJ_NONE || doc->nodes[args].type != CJ_OBJECT)
        return 0;
    fields = shape_key(im, doc, args, skip);
    if (fields == SIZE_MAX)
        return chrome_event_error(im, "out of memory");
    if (fields == 0)
        return 0;
    if (fields <= CHROME_SHAPE_KEYS_MAX)
        slot = ct_find(&im->shape_index, im->scratch.data, im->scratch.len,
                       im->shape_count < CHROME_SHAPES_MAX, &added);
    if (slot != NULL && added) {
        im->shape_count++;
        if (register_shape(im, fields, name, slot) != 0)
            return 1;
    }
    if (slot == NULL) {
        *schema_id = im->schema_args_json;
        return json_fallback(out, doc, args, skip) ? chrome_event_error(im, "out of memory") : 0;
    }
    *schema_id = *slot;
    for (uint32_t k = cj_first(doc, args), i = 0; k != CJ_NONE && status == 0;
         k = doc->nodes[k].next, i++)
        status = skipped(doc, k, skip) ? 0 : put_value(im, out, doc, k, im->kinds.data[i]);
    return status ? chrome_event_error(im, "out of memory") : 0;
}
