/*
 * tests/unit/chrome_test.c - Sink=json (libnvtxw/sink/json/)
 * through the NVTXW v2 table and the helpers:
 *   - golden: one session with every event kind (push/pop whole and split,
 *     start/end whole and split, marks, UTF-8 and registered-string
 *     messages, categories, colors, counters of a predefined type and of a
 *     counter-group schema, a custom schema with extra fields, an event
 *     without a role, odd bytes in names) compared with
 *     tests/data/golden/chrome-session.json, written by the sink's writer
 *     thread and again without it (CompressionThreads=0), and with
 *     TimestampBase= right, too low and too high: the same bytes;
 *   - every output is parsed by python3's json module (through popen; the
 *     test fails without python3) and checked for Trace Event Format
 *     semantics: each E closes a B of the same name on its thread, async
 *     b/e pair by (cat, id, name), X events are in ts order per thread, no
 *     "ts" is negative (Perfetto rejects those);
 *   - 4 threads on 4 streams write at once (run under TSan in CI): valid
 *     JSON holding every event;
 *   - doubles of every scale and random bit patterns, each written as the
 *     shortest of 15 to 17 digits that reads back (reference_double);
 *   - bad input: unwritable Output, existing Output without Overwrite;
 *   - throughput: MB/s of JSON for NVTXW_CHROME_BENCH_RANGES push/pop ranges
 *     (default 200000; 1000000 for the DESIGN figure), printed to the log.
 * The golden session is also checked event by event (golden_events: ph,
 * name, cat, ts, dur, pid, tid, id, cname, args of every event, written
 * from the calls that make it) before the byte comparison;
 * test_golden_events_catch_mutation shows that check reports a changed
 * event. NVTXW_UPDATE_GOLDEN=1 rewrites the golden file when the output
 * passes that check and then FAILS by design; review the diff, then run
 * again without the variable.
 */
#define _GNU_SOURCE
#include <check.h>
#include <float.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "nvtxw/backend.h"
#include "nvtxw/error.h"
#include "nvtxw/helpers.h"
#include "nvtxw/payload.h"
#include "nvtxw/reader.h"
#include "test_util.h"

static const nvtxwInterface_t* T;
static char dir[PATH_MAX];

static void setup(void) {
    T = tu_get_interface_or_fail();
    tu_make_temp_dir_or_fail(dir, sizeof dir, "nvtxw-chrome");
}

static void teardown(void) { ck_assert_int_eq(tu_remove_tree(dir), 0); }

static void out_path(char* path, size_t size, const char* name) {
    ck_assert_int_lt(snprintf(path, size, "%s/%s", dir, name), (int)size);
}

/* More config lines for the sessions begin() starts ("" or "|Key=value"). */
static const char* extra_config = "";

static nvtxwSessionHandle_t begin(const char* name, const char* file) {
    nvtxwSessionAttributes_t attr;
    nvtxwSessionHandle_t session = NULL;
    char config[PATH_MAX + 256];
    snprintf(config, sizeof config, "Sink=json|Output=%s/%s|Overwrite=yes%s", dir, file,
             extra_config);
    nvtxwSessionAttributesInit(&attr);
    attr.name = name;
    attr.configString = config;
    ck_assert_msg(T->SessionBegin(&attr, &session) == 0, "%s", nvtxw_last_error());
    return session;
}

/* ---- python3 checker ------------------------------------------------------ */

/* Parses the file with json.load, checks TEF semantics and prints
 * "events=N X=.. B=.. E=.. b=.. e=.. i=.. C=.. M=..". X slices of a thread
 * must nest properly (written at the pop, they are not in ts order). */
static const char checker[] =
    "import json,sys,collections\n"
    "d=json.load(open(sys.argv[1],encoding='utf-8'))\n"
    "assert isinstance(d,dict) and d['displayTimeUnit']=='ns', 'container'\n"
    "ev=d['traceEvents']; n=collections.Counter(); stacks=collections.defaultdict(list)\n"
    "xs=collections.defaultdict(list); opened={}\n"
    "for e in ev:\n"
    "  ph=e['ph']; n[ph]+=1; key=(e['pid'],e['tid'])\n"
    "  assert isinstance(e['pid'],int) and isinstance(e['tid'],int), e\n"
    "  if ph=='M': continue\n"
    "  assert isinstance(e['ts'],(int,float)) and e['ts']>=0, ('ts',e)\n"
    "  if ph=='X':\n"
    "    assert e['dur']>=0, e; xs[key].append((e['ts'],-e['dur'],e['name']))\n"
    "  elif ph=='B': stacks[key].append(e['name'])\n"
    "  elif ph=='E':\n"
    "    assert stacks[key] and stacks[key].pop()==e['name'], ('unmatched E',e)\n"
    "  elif ph=='b':\n"
    "    k=(e['cat'],e['id']); assert k not in opened, ('reused id',e); opened[k]=e['name']\n"
    "  elif ph=='e':\n"
    "    k=(e['cat'],e['id']); assert opened.pop(k,None)==e['name'], ('unmatched e',e)\n"
    "  elif ph=='i': assert e['s']=='t', e\n"
    "  elif ph=='C': assert all(isinstance(v,(int,float)) for v in e['args'].values()), e\n"
    "  elif ph=='s': assert e['name']=='flow' and isinstance(e['id'],str), e\n"
    "  elif ph=='f': assert e['name']=='flow' and e['bp']=='e', e\n"
    "  else: raise AssertionError('phase '+ph)\n"
    "assert not opened, ('open async', opened)\n"
    "for key,slices in xs.items():\n"
    "  ends=[]\n"
    "  for ts,neg,name in sorted(slices):\n"
    "    while ends and ends[-1]<=ts+1e-9: ends.pop()\n"
    "    assert not ends or ts-neg<=ends[-1]+1e-9, ('X overlaps its parent',key,ts,name)\n"
    "    ends.append(ts-neg)\n"
    "assert not any(stacks.values()), ('open B', dict(stacks))\n"
    "print('events=%d'%len(ev), ' '.join('%s=%d'%(k,n[k]) for k in 'XBEbeiCMsf'))\n";

/* Runs the checker on `path`; fails the test on any error. */
static void check_json(const char* path, char* summary, size_t size) {
    char* out;
    int status = tu_run_python(dir, "check", checker, path, &out);
    snprintf(summary, size, "%s", out);
    free(out);
    ck_assert_msg(status == 0, "python3 rejected %s (is python3 installed?): %s", path, summary);
    summary[strcspn(summary, "\n")] = '\0';
}

/* ---- Golden session ------------------------------------------------------- */

typedef struct job_payload {
    int64_t begin, end;
    char message[16];
    int32_t rank;
    uint32_t color;
    double load;
    int32_t dims[3];
} job_payload;

typedef struct gauge_payload {
    int64_t bytes;
    double ratio;
    char label[8];
} gauge_payload;

typedef struct note_payload {
    int64_t ts;
    uint32_t code;
} note_payload;

static uint64_t schema(nvtxDomainHandle_t domain, const char* name, uint64_t flags,
                       const nvtxPayloadSchemaEntry_t* entries, size_t count, size_t size) {
    nvtxPayloadSchemaAttr_t attr;
    uint64_t id = 0;
    memset(&attr, 0, sizeof attr);
    attr.fieldMask = NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NAME | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE |
                     NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_FLAGS | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES |
                     NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES |
                     NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_STATIC_SIZE;
    attr.name = name;
    attr.type = NVTX_PAYLOAD_SCHEMA_TYPE_STATIC;
    attr.flags = flags;
    attr.entries = entries;
    attr.numEntries = count;
    attr.payloadStaticSize = size;
    ck_assert_msg(T->SchemaRegister(domain, &attr, &id) == 0, "%s", nvtxw_last_error());
    return id;
}

static uint64_t job_schema(nvtxDomainHandle_t domain) {
    static const nvtxPayloadSchemaEntry_t entries[] = {
        {NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP | NVTX_PAYLOAD_ENTRY_FLAG_RANGE_BEGIN,
         NVTX_PAYLOAD_ENTRY_TYPE_INT64, "begin", NULL, 0, offsetof(job_payload, begin), NULL, NULL},
        {NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP | NVTX_PAYLOAD_ENTRY_FLAG_RANGE_END,
         NVTX_PAYLOAD_ENTRY_TYPE_INT64, "end", NULL, 0, offsetof(job_payload, end), NULL, NULL},
        {NVTX_PAYLOAD_ENTRY_FLAG_EVENT_MESSAGE | NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_FIXED_SIZE,
         NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF8, "message", NULL, 16, offsetof(job_payload, message),
         NULL, NULL},
        {0, NVTX_PAYLOAD_ENTRY_TYPE_INT32, "rank", NULL, 0, offsetof(job_payload, rank), NULL,
         NULL},
        {0, NVTX_PAYLOAD_ENTRY_TYPE_COLOR_ARGB, "color", NULL, 0, offsetof(job_payload, color),
         NULL, NULL},
        {0, NVTX_PAYLOAD_ENTRY_TYPE_DOUBLE, "load", NULL, 0, offsetof(job_payload, load), NULL,
         NULL},
        {NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_FIXED_SIZE, NVTX_PAYLOAD_ENTRY_TYPE_INT32, "dims", NULL, 3,
         offsetof(job_payload, dims), NULL, NULL},
    };
    return schema(domain, "job", NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_PUSHPOP, entries, 7,
                  sizeof(job_payload));
}

static uint64_t gauge_schema(nvtxDomainHandle_t domain) {
    static const nvtxPayloadSchemaEntry_t entries[] = {
        {0, NVTX_PAYLOAD_ENTRY_TYPE_INT64, "bytes", NULL, 0, offsetof(gauge_payload, bytes), NULL,
         NULL},
        {0, NVTX_PAYLOAD_ENTRY_TYPE_DOUBLE, "ratio", NULL, 0, offsetof(gauge_payload, ratio), NULL,
         NULL},
        {NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_FIXED_SIZE, NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF8, "label",
         NULL, 8, offsetof(gauge_payload, label), NULL, NULL},
    };
    return schema(domain, "gauge", NVTX_PAYLOAD_SCHEMA_FLAG_COUNTER_GROUP, entries, 3,
                  sizeof(gauge_payload));
}

static uint64_t note_schema(nvtxDomainHandle_t domain) {
    static const nvtxPayloadSchemaEntry_t entries[] = {
        {NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP, NVTX_PAYLOAD_ENTRY_TYPE_INT64, "ts", NULL, 0,
         offsetof(note_payload, ts), NULL, NULL},
        {0, NVTX_PAYLOAD_ENTRY_TYPE_UINT32, "code", NULL, 0, offsetof(note_payload, code), NULL,
         NULL},
    };
    return schema(domain, "note", 0, entries, 2, sizeof(note_payload));
}

static nvtxwEventAttributesUtf8_t utf8(uint32_t color, uint32_t category, const char* message) {
    nvtxwEventAttributesUtf8_t attr;
    memset(&attr, 0, sizeof attr);
    attr.color = color;
    attr.category = category;
    attr.message = message;
    return attr;
}

static nvtxwEventAttributes_t reg(uint32_t color, uint32_t category, nvtxStringHandle_t message) {
    nvtxwEventAttributes_t attr;
    memset(&attr, 0, sizeof attr);
    attr.color = color;
    attr.category = category;
    attr.message = message;
    return attr;
}

#define OK(call) ck_assert_msg((call) == 0, "%s: %s", #call, nvtxw_last_error())

/* Ranges and marks of every kind on the main stream. */
static void golden_ranges(const nvtxwEventWriter_t* w, nvtxStringHandle_t compute) {
    const int64_t t = 1000000000;
    OK(nvtxwRangePushPopWriteUtf8(w, t + 1000, t + 5500, utf8(0xFF00FF00u, 1, "init")));
    OK(nvtxwRangePushPopWrite(w, t + 6000, t + 9000, reg(0, 2, compute)));
    OK(nvtxwRangePushWriteUtf8(w, t + 10000, utf8(0, 0, "outer")));
    OK(nvtxwRangePushWrite(w, t + 10500, reg(0xFFB40000u, 1, compute)));
    OK(nvtxwRangePopWrite(w, t + 11000));
    OK(nvtxwRangePopWrite(w, t + 12000));
    OK(nvtxwRangeStartWriteUtf8(w, t + 13000, 7, utf8(0, 1, "download")));
    OK(nvtxwRangeStartWrite(w, t + 13500, 8, reg(0, 0, compute)));
    OK(nvtxwRangeEndWrite(w, t + 14000, 7));
    OK(nvtxwRangeEndWrite(w, t + 15000, 8));
    OK(nvtxwRangeStartEndWriteUtf8(w, t + 16000, t + 17000, utf8(0, 0, "upload")));
    OK(nvtxwRangeStartEndWrite(w, t + 16500, t + 16750, reg(0, 0, compute)));
    OK(nvtxwMarkWriteUtf8(w, t + 18000, utf8(0xFFFFFF00u, 0, "tab\there \"q\" \\ \x01 bad\xff")));
    OK(nvtxwMarkWrite(w, t + 18001, reg(0, 3, compute)));
    OK(nvtxwRangePopWrite(w, t + 19000));
}

/* The unnamed counter's ID, which names its "C" events. */
static uint64_t golden_float_counter;

/* Custom schemas, counters and a role-less event on the worker stream. */
static void golden_custom(const nvtxwEventWriter_t* w, nvtxDomainHandle_t domain) {
    const int64_t t = 1000000000;
    job_payload job = {t + 2000, t + 2999, "solve \xc3\xa9", -3, 0xFF7EC894u, 0.25, {1, 2, 3}};
    gauge_payload gauge = {4096, 0.5, "mem"};
    note_payload note = {t + 500, 42};
    nvtxPayloadData_t payload;
    uint64_t ints, floats, group;
    payload.schemaId = job_schema(domain);
    payload.size = sizeof job;
    payload.payload = &job;
    OK(T->EventWrite(w->stream, &payload, 1));
    payload.schemaId = note_schema(domain);
    payload.size = sizeof note;
    payload.payload = &note;
    OK(T->EventWrite(w->stream, &payload, 1));
    OK(nvtxwCounterInt64Register(T, domain, "queue depth", NULL, &ints));
    OK(nvtxwCounterFloat64Register(T, domain, "", NULL, &floats));
    golden_float_counter = floats;
    OK(nvtxwCounterRegister(T, domain, "memory", gauge_schema(domain), NULL, &group));
    OK(nvtxwCounterInt64Write(T, w->stream, t + 3000, ints, 5));
    OK(nvtxwCounterInt64Write(T, w->stream, t + 4000, ints, -1));
    OK(nvtxwCounterFloat64Write(T, w->stream, t + 3000, floats, 1.5));
    OK(T->CounterWrite(w->stream, t + 3500, group, &gauge, sizeof gauge));
    OK(T->CounterNoValueWrite(w->stream, t + 3600, ints, NVTX_COUNTER_SAMPLE_UNAVAILABLE));
}

static void write_golden_session(const char* file) {
    nvtxwSessionHandle_t session = begin("golden \"session\"", file);
    nvtxDomainHandle_t domain;
    nvtxwEventWriter_t main_writer, worker;
    nvtxStringHandle_t compute;
    OK(nvtxwDomainRegister(T, session, "app", &domain));
    OK(nvtxwCategoryRegister(T, domain, 1, "io"));
    OK(nvtxwCategoryRegister(T, domain, 2, "math"));
    OK(T->StringRegister(domain, "compute", &compute));
    OK(nvtxwEventWriterOpen(T, session, "main", domain, "/node0/process 7", 0, &main_writer));
    OK(nvtxwEventWriterOpen(T, session, "worker", domain, "", 0, &worker));
    golden_ranges(&main_writer, compute);
    golden_custom(&worker, domain);
    OK(T->SessionEnd(session));
}

/* ---- The golden session, event by event ---------------------------------- */

/* Prints every event of a Chrome JSON file as one line
 * "ph|name|cat|ts|dur|pid|tid|id|s|cname|args" ("-" for an absent key;
 * name and args as compact ASCII JSON, ts and dur with 3 decimals), sorted,
 * then "otherData|GENERATOR|SESSION|BASE". A key outside that list fails. */
static const char events_script[] =
    "import json,sys\n"
    "d=json.load(open(sys.argv[1],encoding='utf-8'))\n"
    "K=['ph','name','cat','ts','dur','pid','tid','id','s','cname','args']\n"
    "def show(e,k):\n"
    "  if k not in e: return '-'\n"
    "  if k in ('ts','dur'): return '%.3f'%e[k]\n"
    "  if k in ('name','args'): return json.dumps(e[k],separators=(',',':'))\n"
    "  return str(e[k])\n"
    "lines=[]\n"
    "for e in d['traceEvents']:\n"
    "  assert set(e)<=set(K), ('unexpected key',e)\n"
    "  lines.append('|'.join(show(e,k) for k in K))\n"
    "for l in sorted(lines): print(l)\n"
    "o=d['otherData']\n"
    "print('otherData|%s|%s|%d'%(o['generator'],json.dumps(o['session']),o['timestampBase_ns']))\n";

typedef struct chrome_event {
    const char* ph;
    const char* name; /* as json.dumps prints it: quoted, ASCII escapes */
    const char* cat;  /* NULL: none, and so for id, s, cname, args */
    int64_t at, dur;  /* ns after t (-1: no ts); dur -1: none */
    int pid, tid;
    const char *id, *s, *cname, *args;
} chrome_event;

static int compare_lines(const void* a, const void* b) {
    return strcmp(*(char* const*)a, *(char* const*)b);
}

/* The events write_golden_session must produce, written from its calls
 * (docs/chrome-json.md): pid 1 is the session and the worker (scope ""),
 * pid 2 the scope "/node0/process 7" of main; tids are open order + 1. cat
 * is the category's name, its number when unregistered (3), else the
 * domain's name "app". Push/pop ranges are X (the split ones at the pop),
 * start/end b/e with the range ID, whole ones with the synthetic ID
 * 0x8000000000000000 | tid << 32 | n. cname: 0xFF00FF00 (0,255,0) is
 * nearest good (0,125,0: 130^2 = 16900; next rail_load 13,168,97:
 * 17147); 0xFFB40000, 0xFFFFFF00, 0xFF7EC894 are exactly terrible, yellow,
 * thread_state_running. The message "tab\there \"q\" \\ \x01 bad\xff" is
 * JSON-escaped with 0x01 as \u0001 and the invalid 0xFF as \ufffd; "solve
 * \xc3\xa9" is U+00E9. The job's timestamps, message and color are
 * consumed, its other fields are args; note has no message: its schema
 * name. The gauge's label (a string) is no counter value; the no-value
 * sample writes nothing; counter samples carry their stream's name as id. ts are rebased to the
 * smallest timestamp, note's t + 500. */
static void golden_expected(char* out, size_t size) {
    char counter[64];
    const chrome_event events[] = {
        {"M", "\"process_name\"", NULL, -1, -1, 1, 0, NULL, NULL, NULL,
         "{\"name\":\"golden \\\"session\\\"\"}"},
        {"M", "\"process_sort_index\"", NULL, -1, -1, 1, 0, NULL, NULL, NULL, "{\"sort_index\":1}"},
        {"M", "\"process_name\"", NULL, -1, -1, 2, 0, NULL, NULL, NULL,
         "{\"name\":\"/node0/process 7\"}"},
        {"M", "\"process_sort_index\"", NULL, -1, -1, 2, 0, NULL, NULL, NULL, "{\"sort_index\":2}"},
        {"M", "\"thread_name\"", NULL, -1, -1, 2, 1, NULL, NULL, NULL, "{\"name\":\"main\"}"},
        {"M", "\"thread_sort_index\"", NULL, -1, -1, 2, 1, NULL, NULL, NULL, "{\"sort_index\":0}"},
        {"M", "\"thread_name\"", NULL, -1, -1, 1, 2, NULL, NULL, NULL, "{\"name\":\"worker\"}"},
        {"M", "\"thread_sort_index\"", NULL, -1, -1, 1, 2, NULL, NULL, NULL, "{\"sort_index\":1}"},
        /* golden_ranges, on main */
        {"X", "\"init\"", "io", 1000, 4500, 2, 1, NULL, NULL, "good", NULL},
        {"X", "\"compute\"", "math", 6000, 3000, 2, 1, NULL, NULL, NULL, NULL},
        {"X", "\"outer\"", "app", 10000, 2000, 2, 1, NULL, NULL, NULL, NULL},
        {"X", "\"compute\"", "io", 10500, 500, 2, 1, NULL, NULL, "terrible", NULL},
        {"b", "\"download\"", "io", 13000, -1, 2, 1, "0x7", NULL, NULL, NULL},
        {"b", "\"compute\"", "app", 13500, -1, 2, 1, "0x8", NULL, NULL, NULL},
        {"e", "\"download\"", "io", 14000, -1, 2, 1, "0x7", NULL, NULL, NULL},
        {"e", "\"compute\"", "app", 15000, -1, 2, 1, "0x8", NULL, NULL, NULL},
        {"b", "\"upload\"", "app", 16000, -1, 2, 1, "0x8000000100000000", NULL, NULL, NULL},
        {"e", "\"upload\"", "app", 17000, -1, 2, 1, "0x8000000100000000", NULL, NULL, NULL},
        {"b", "\"compute\"", "app", 16500, -1, 2, 1, "0x8000000100000001", NULL, NULL, NULL},
        {"e", "\"compute\"", "app", 16750, -1, 2, 1, "0x8000000100000001", NULL, NULL, NULL},
        {"i", "\"tab\\there \\\"q\\\" \\\\ \\u0001 bad\\ufffd\"", "app", 18000, -1, 2, 1, NULL, "t",
         "yellow", NULL},
        {"i", "\"compute\"", "3", 18001, -1, 2, 1, NULL, "t", NULL, NULL},
        {"i", "\"(unmatched pop)\"", "app", 19000, -1, 2, 1, NULL, "t", NULL, NULL},
        /* golden_custom, on worker */
        {"X", "\"solve \\u00e9\"", "app", 2000, 999, 1, 2, NULL, NULL, "thread_state_running",
         "{\"rank\":-3,\"load\":0.25,\"dims\":[1,2,3]}"},
        {"i", "\"note\"", "app", 500, -1, 1, 2, NULL, "t", NULL, "{\"code\":42}"},
        {"C", "\"queue depth\"", NULL, 3000, -1, 1, 2, "worker", NULL, NULL, "{\"value\":5}"},
        {"C", "\"queue depth\"", NULL, 4000, -1, 1, 2, "worker", NULL, NULL, "{\"value\":-1}"},
        {"C", counter, NULL, 3000, -1, 1, 2, "worker", NULL, NULL, "{\"value\":1.5}"},
        {"C", "\"memory\"", NULL, 3500, -1, 1, 2, "worker", NULL, NULL,
         "{\"bytes\":4096,\"ratio\":0.5}"},
    };
    enum { N = sizeof events / sizeof events[0] };
    char lines[N][256];
    char* sorted[N];
    int64_t base = INT64_MAX;
    size_t i;
    snprintf(counter, sizeof counter, "\"counter %" PRIu64 "\"", golden_float_counter);
    for (i = 0; i < N; i++)
        if (events[i].at >= 0 && events[i].at < base)
            base = events[i].at;
    for (i = 0; i < N; i++) {
        const chrome_event* e = &events[i];
        char ts[32] = "-", dur[32] = "-";
        if (e->at >= 0)
            snprintf(ts, sizeof ts, "%" PRId64 ".%03" PRId64, (e->at - base) / 1000,
                     (e->at - base) % 1000);
        if (e->dur >= 0)
            snprintf(dur, sizeof dur, "%" PRId64 ".%03" PRId64, e->dur / 1000, e->dur % 1000);
        snprintf(lines[i], sizeof lines[i], "%s|%s|%s|%s|%s|%d|%d|%s|%s|%s|%s", e->ph, e->name,
                 e->cat ? e->cat : "-", ts, dur, e->pid, e->tid, e->id ? e->id : "-",
                 e->s ? e->s : "-", e->cname ? e->cname : "-", e->args ? e->args : "-");
        sorted[i] = lines[i];
    }
    qsort(sorted, N, sizeof sorted[0], compare_lines);
    out[0] = '\0';
    for (i = 0; i < N; i++)
        snprintf(out + strlen(out), size - strlen(out), "%s\n", sorted[i]);
    snprintf(out + strlen(out), size - strlen(out),
             "otherData|nvtxw|\"golden \\\"session\\\"\"|%" PRId64 "\n", 1000000000 + base);
}

/* NULL when the events of `path` are golden_expected's; else a message
 * naming the first line (in sorted order) that differs. */
static const char* golden_events_mismatch(const char* path) {
    static char message[1024];
    char want[16384];
    char* got;
    int status = tu_run_python(dir, "events", events_script, path, &got);
    if (status != 0) {
        snprintf(message, sizeof message, "python3 failed on %s (installed?): %.900s", path, got);
        free(got);
        return message;
    }
    golden_expected(want, sizeof want);
    status =
        tu_first_line_difference("event (against the calls)", want, got, message, sizeof message);
    free(got);
    return status != 0 ? message : NULL;
}

/* Compares `path` with the golden file; NVTXW_UPDATE_GOLDEN=1 rewrites the
 * golden file instead and fails the test. */
static void check_golden(const char* path) {
    char golden[PATH_MAX + 64];
    const char* top = getenv("top_srcdir");
    size_t got_size, want_size;
    char* got = tu_read_file_or_fail(path, &got_size);
    char* want;
    ck_assert_msg(top != NULL, "top_srcdir is not set (run through make check)");
    snprintf(golden, sizeof golden, "%s/tests/data/golden/chrome-session.json", top);
    if (getenv("NVTXW_UPDATE_GOLDEN") != NULL && strcmp(getenv("NVTXW_UPDATE_GOLDEN"), "1") == 0) {
        FILE* file = fopen(golden, "wb");
        ck_assert_ptr_nonnull(file);
        ck_assert_uint_eq(fwrite(got, 1, got_size, file), got_size);
        ck_assert_int_eq(fclose(file), 0);
        ck_abort_msg("rewrote %s: review the diff, then run again without NVTXW_UPDATE_GOLDEN",
                     golden);
    }
    want = tu_read_file_or_fail(golden, &want_size);
    ck_assert_msg(got_size == want_size && memcmp(got, want, got_size) == 0,
                  "%s differs from %s; got:\n%s", path, golden, got);
    free(got);
    free(want);
}

/* With the writer thread (asked for: the default has none on one CPU). */
START_TEST(test_golden) {
    char path[PATH_MAX], summary[4096];
    const char* wrong;
    extra_config = "|CompressionThreads=1";
    write_golden_session("golden.json");
    extra_config = "";
    out_path(path, sizeof path, "golden.json");
    check_json(path, summary, sizeof summary);
    ck_assert_msg(strstr(summary, "events=29 X=5 B=0 E=0 b=4 e=4 i=4 C=4 M=8 s=0 f=0") != NULL,
                  "%s", summary);
    wrong = golden_events_mismatch(path);
    ck_assert_msg(wrong == NULL, "%s", wrong);
    check_golden(path);
}
END_TEST

/* Without the writer thread (CompressionThreads=0: each stream writes its
 * own buffers) the file is the same, byte for byte. */
START_TEST(test_golden_without_writer_thread) {
    char path[PATH_MAX];
    extra_config = "|CompressionThreads=0";
    write_golden_session("golden.json");
    extra_config = "";
    out_path(path, sizeof path, "golden.json");
    check_golden(path);
}
END_TEST

/* TimestampBase= (docs/chrome-json.md, Time): the session's smallest time
 * (1000000500) as the base from the start, or a base above or below it
 * (the shift pass then moves every ts either way): the same bytes. A value
 * that is not an int64 fails SessionBegin. */
START_TEST(test_golden_with_base_hint) {
    static const char* const hints[] = {"|TimestampBase=1000000500", "|TimestampBase=1000000000",
                                        "|TimestampBase=1000001000|TimestampBase=7"};
    static const char* const bad[] = {"|TimestampBase=12x", "|TimestampBase=1.5",
                                      "|TimestampBase=9223372036854775808"};
    nvtxwSessionHandle_t session = NULL;
    char path[PATH_MAX];
    size_t i;
    for (i = 0; i < sizeof hints / sizeof hints[0]; i++) {
        extra_config = hints[i];
        write_golden_session("golden.json");
        out_path(path, sizeof path, "golden.json");
        check_golden(path);
    }
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        nvtxwSessionAttributes_t attr;
        char config[PATH_MAX + 128];
        snprintf(config, sizeof config, "Sink=json|Output=%s/bad.json%s", dir, bad[i]);
        nvtxwSessionAttributesInit(&attr);
        attr.configString = config;
        ck_assert_msg(T->SessionBegin(&attr, &session) == NVTXW_RESULT_INVALID_ARGUMENT, "%s",
                      config);
        ck_assert_msg(strstr(nvtxw_last_error(), "is not a timestamp in nanoseconds") != NULL, "%s",
                      nvtxw_last_error());
    }
    extra_config = "";
}
END_TEST

/* The event check is a check: a changed dur, cname, arg or base is reported
 * with its line, an extra key is refused, the unchanged output passes. */
START_TEST(test_golden_events_catch_mutation) {
    static const struct {
        const char *from, *to, *words;
    } cases[] = {
        {"\"dur\":4.500", "\"dur\":4.501",
         "want \"X|\"init\"|io|0.500|4.500|2|1|-|-|good|-\", got \"X|\"init\"|io|0.500|4.501|2|1|"
         "-|-|good|-\""},
        {"\"cname\":\"yellow\"", "\"cname\":\"yellaw\"", "|yellow|-\", got "},
        {"\"rank\":-3", "\"rank\":-4", "{\"rank\":-3,"},
        {"\"timestampBase_ns\":1000000500", "\"timestampBase_ns\":1000000501",
         "|1000000500\", got "},
        {"\"s\":\"t\",\"cname\":\"yellow\"", "\"s\":\"t\",\"cnamf\":\"yellow\"", "unexpected key"},
    };
    char path[PATH_MAX], mutated[PATH_MAX];
    size_t size, i;
    char* good;
    write_golden_session("golden.json");
    out_path(path, sizeof path, "golden.json");
    out_path(mutated, sizeof mutated, "mutated.json");
    ck_assert_ptr_null(golden_events_mismatch(path));
    good = tu_read_file_or_fail(path, &size);
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char* copy = strdup(good);
        char* at = strstr(copy, cases[i].from);
        const char* wrong;
        FILE* file;
        ck_assert_msg(at != NULL && strlen(cases[i].from) == strlen(cases[i].to), "%s",
                      cases[i].from);
        memcpy(at, cases[i].to, strlen(cases[i].to));
        file = fopen(mutated, "wb");
        ck_assert_ptr_nonnull(file);
        fputs(copy, file);
        fclose(file);
        wrong = golden_events_mismatch(mutated);
        ck_assert_msg(wrong != NULL && strstr(wrong, cases[i].words) != NULL, "%s: %s", cases[i].to,
                      wrong ? wrong : "(passed)");
        free(copy);
    }
    free(good);
}
END_TEST

/* ---- Flows ----------------------------------------------------------------- */

typedef struct hop_payload {
    int64_t ts;
    uint64_t flow_out, flow_in;
} hop_payload;

/* Fields named flow_out / flow_in (not 0) add "s" / "f" flow events at the
 * event's time, id = the value (docs/chrome-json.md, Flows); hidden ones
 * too, without being args. */
START_TEST(test_flows) {
    static const nvtxPayloadSchemaEntry_t entries[] = {
        {NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP | NVTX_PAYLOAD_ENTRY_FLAG_MARK,
         NVTX_PAYLOAD_ENTRY_TYPE_INT64, "ts", NULL, 0, offsetof(hop_payload, ts), NULL, NULL},
        {0, NVTX_PAYLOAD_ENTRY_TYPE_UINT64, "flow_out", NULL, 0, offsetof(hop_payload, flow_out),
         NULL, NULL},
        {0, NVTX_PAYLOAD_ENTRY_TYPE_UINT64, "flow_in", NULL, 0, offsetof(hop_payload, flow_in),
         NULL, NULL},
    };
    nvtxPayloadSchemaEntry_t hidden[3];
    const hop_payload hops[] = {{1000, 7, 0}, {2500, 0, 7}, {3000, 0x2a, 0x2b}, {4000, 0, 0}};
    const hop_payload hidden_hop = {5000, 0x99, 0x2a};
    char path[PATH_MAX], summary[4096];
    nvtxwSessionHandle_t session = begin("flows", "flows.json");
    nvtxDomainHandle_t domain;
    nvtxwEventWriter_t w;
    nvtxPayloadData_t payload;
    char* json;
    size_t size;
    OK(nvtxwDomainRegister(T, session, "net", &domain));
    OK(nvtxwEventWriterOpen(T, session, "rank0", domain, "", 0, &w));
    payload.schemaId =
        schema(domain, "hop", NVTX_PAYLOAD_SCHEMA_FLAG_MARK, entries, 3, sizeof(hop_payload));
    payload.size = sizeof(hop_payload);
    for (size_t i = 0; i < sizeof hops / sizeof hops[0]; i++) {
        payload.payload = &hops[i];
        OK(T->EventWrite(w.stream, &payload, 1));
    }
    memcpy(hidden, entries, sizeof hidden);
    hidden[1].flags = hidden[2].flags = NVTX_PAYLOAD_ENTRY_FLAG_HIDE;
    payload.schemaId =
        schema(domain, "hidden hop", NVTX_PAYLOAD_SCHEMA_FLAG_MARK, hidden, 3, sizeof(hop_payload));
    payload.payload = &hidden_hop;
    OK(T->EventWrite(w.stream, &payload, 1));
    OK(T->SessionEnd(session));
    out_path(path, sizeof path, "flows.json");
    check_json(path, summary, sizeof summary);
    ck_assert_msg(strstr(summary, "i=5 C=0 M=") != NULL && strstr(summary, "s=3 f=3") != NULL, "%s",
                  summary);
    json = tu_read_file_or_fail(path, &size);
    ck_assert_msg(strstr(json, "{\"name\":\"flow\",\"cat\":\"net\",\"ph\":\"s\",\"ts\":0.000,"
                               "\"pid\":1,\"tid\":1,\"id\":\"0x7\"}") != NULL,
                  "%s", json);
    ck_assert_msg(strstr(json, "\"ph\":\"f\",\"ts\":1.500,\"pid\":1,\"tid\":1,\"id\":\"0x7\","
                               "\"bp\":\"e\"}") != NULL,
                  "%s", json);
    ck_assert_msg(strstr(json, "\"ph\":\"s\",\"ts\":2.000,\"pid\":1,\"tid\":1,\"id\":\"0x2a\"}") !=
                      NULL,
                  "%s", json);
    ck_assert_msg(strstr(json, "\"ph\":\"f\",\"ts\":2.000,\"pid\":1,\"tid\":1,\"id\":\"0x2b\","
                               "\"bp\":\"e\"}") != NULL,
                  "%s", json);
    ck_assert_msg(strstr(json, "\"ph\":\"s\",\"ts\":4.000,\"pid\":1,\"tid\":1,\"id\":\"0x99\"}") !=
                      NULL,
                  "%s", json);
    ck_assert_msg(strstr(json, "\"ph\":\"f\",\"ts\":4.000,\"pid\":1,\"tid\":1,\"id\":\"0x2a\","
                               "\"bp\":\"e\"}") != NULL,
                  "%s", json);
    /* three starts, three ends: none for the zeros */
    ck_assert_int_eq(tu_count_substr(json, "\"name\":\"flow\""), 6);
    ck_assert_msg(strstr(json, "\"args\":{\"flow_out\":7,\"flow_in\":0}") != NULL, "%s", json);
    /* the hidden fields are no args: flow_out 0x99 = 153 nowhere */
    ck_assert_msg(strstr(json, "153") == NULL, "%s", json);
    free(json);
}
END_TEST

/* ---- JSON text fields ---------------------------------------------------- */

typedef struct json_text_payload {
    int64_t ts;
    char value[512];
} json_text_payload;

/* A string field with the JSON-text semantic (nvtxw/payload.h) is written
 * as its JSON value, compacted, when it is one valid JSON value at most 128
 * levels deep, else as a string; the semantic survives a report and its
 * replay. */
/* A domain "d" and a stream "main" in `session`, and `payload` set for
 * `size` bytes at `data` of a MARK schema of two entries. */
static nvtxwEventWriter_t mark_writer(nvtxwSessionHandle_t session, const char* name,
                                      const nvtxPayloadSchemaEntry_t* entries, size_t size,
                                      void* data, nvtxPayloadData_t* payload) {
    nvtxDomainHandle_t domain;
    nvtxwEventWriter_t w;
    OK(nvtxwDomainRegister(T, session, "d", &domain));
    OK(nvtxwEventWriterOpen(T, session, "main", domain, "", 0, &w));
    payload->schemaId = schema(domain, name, NVTX_PAYLOAD_SCHEMA_FLAG_MARK, entries, 2, size);
    payload->size = size;
    payload->payload = data;
    return w;
}

static int occurrences(const char* text, const char* what) {
    int n = 0;
    for (const char* at = text; (at = strstr(at, what)) != NULL; at += strlen(what))
        n++;
    return n;
}

/* More events than the JSON sink's lookups before it allocates a stream's
 * caches (CHROME_CACHE_AFTER, 64): 12 copies of 8 values. */
#define JSON_TEXT_REPEATS 12

START_TEST(test_json_text) {
    static const nvtxSemanticsHeader_t json_text = {sizeof(nvtxSemanticsHeader_t),
                                                    NVTXW_SEMANTIC_ID_JSON_TEXT,
                                                    NVTXW_SEMANTIC_JSON_TEXT_VERSION, NULL};
    static const nvtxPayloadSchemaEntry_t entries[] = {
        {NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP | NVTX_PAYLOAD_ENTRY_FLAG_MARK,
         NVTX_PAYLOAD_ENTRY_TYPE_INT64, "ts", NULL, 0, offsetof(json_text_payload, ts), NULL, NULL},
        {0, NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF8, "v", NULL, 512,
         offsetof(json_text_payload, value), &json_text, NULL},
    };
    static const char* const values[] = {
        "[512,1,1]",
        " { \"a\" : [1, 2.50, \"x\\u00e9/\"],\n \"b\": null, \"c\": true } ",
        "-12345678901234567890123",
        "\"s\"",
        "[1,",
        "1 2",
        "",
        "{a:1}"};
    static const char* const written[] = {
        "\"v\":[512,1,1]",
        "\"v\":{\"a\":[1,2.50,\"x\xc3\xa9/\"],\"b\":null,\"c\":true}",
        "\"v\":-12345678901234567890123",
        "\"v\":\"s\"",
        "\"v\":\"[1,\"",
        "\"v\":\"1 2\"",
        "\"v\":\"\"",
        "\"v\":\"{a:1}\""};
    char path[PATH_MAX], report[PATH_MAX], config[PATH_MAX + 64];
    json_text_payload p;
    nvtxwSessionAttributes_t attr;
    nvtxwSessionHandle_t session = NULL;
    nvtxwEventWriter_t w;
    nvtxPayloadData_t payload;
    nvtxw_reader_t* reader = NULL;
    for (int round = 0; round < 2; round++) {
        char* json;
        size_t size;
        /* round 0: straight into the JSON sink; 1: a report replayed into it */
        out_path(report, sizeof report, "json-text.nvtxw");
        snprintf(config, sizeof config, "Sink=report|Output=%s|Overwrite=yes", report);
        nvtxwSessionAttributesInit(&attr);
        attr.name = "json text";
        attr.configString = config;
        session = round == 0 ? begin("json text", "json-text.json") : NULL;
        if (session == NULL)
            OK(T->SessionBegin(&attr, &session));
        w = mark_writer(session, "with json", entries, sizeof p, &p, &payload);
        /* each value JSON_TEXT_REPEATS times in a row: the stream's first
         * CHROME_CACHE_AFTER lookups go uncached, the later ones through its
         * caches, where a repeat is the field's last value again (the
         * cache of JSON-text values): every copy must be the same bytes */
        for (size_t i = 0; i < JSON_TEXT_REPEATS * (sizeof values / sizeof values[0]); i++) {
            const char* value = values[i / JSON_TEXT_REPEATS];
            memset(&p, 0, sizeof p);
            p.ts = 1000 * (int64_t)(i + 1);
            memcpy(p.value, value, strlen(value));
            OK(T->EventWrite(w.stream, &payload, 1));
        }
        for (int depth = 128; depth <= 129; depth++) { /* [[...[7]...]] */
            memset(&p, 0, sizeof p);
            p.ts = 100000 + depth;
            memset(p.value, '[', (size_t)depth);
            p.value[depth] = '7';
            memset(p.value + depth + 1, ']', (size_t)depth);
            OK(T->EventWrite(w.stream, &payload, 1));
        }
        OK(T->SessionEnd(session));
        out_path(path, sizeof path, "json-text.json");
        if (round == 1) {
            snprintf(config, sizeof config, "Sink=json|Output=%s|Overwrite=yes", path);
            OK(nvtxw_reader_open(report, NULL, &reader));
            OK(nvtxw_reader_replay(reader, T, config, NULL));
            nvtxw_reader_close(reader);
        }
        json = tu_read_file_or_fail(path, &size);
        for (size_t i = 0; i < sizeof written / sizeof written[0]; i++)
            ck_assert_msg(occurrences(json, written[i]) == JSON_TEXT_REPEATS,
                          "round %d: %s not %d times in %s", round, written[i], JSON_TEXT_REPEATS,
                          json);
        /* 128 levels are a value, 129 a string */
        ck_assert_msg(strstr(json, "\"v\":[[[[") != NULL, "round %d: %s", round, json);
        ck_assert_msg(strstr(json, "\"v\":\"[[[[") != NULL, "round %d: %s", round, json);
        free(json);
    }
}
END_TEST

/* ---- Doubles -------------------------------------------------------------- */

/* The text a double must have (docs/chrome-json.md, args): the fewest of
 * 15, 16 or 17 significant digits ("%.*g"; from 1 for subnormals) that
 * read back equal, with ".0" added when there is no '.' or exponent. */
static void reference_double(double v, char* out, size_t size) {
    int precision = v != 0 && fabs(v) < DBL_MIN ? 1 : 15;
    for (; precision <= 17; precision++) {
        snprintf(out, size, "%.*g", precision, v);
        if (strtod(out, NULL) == v)
            break;
    }
    if (strpbrk(out, ".e") == NULL)
        strncat(out, ".0", size - strlen(out) - 1);
}

typedef struct double_payload {
    int64_t ts;
    double v;
} double_payload;

#define DOUBLES 2400

/* Short decimals m / 10^k of every scale (the sink writes those without
 * printf), the edges of that path, and random bit patterns: each written
 * as reference_double prints it. */
static void double_values(double* v) {
    static const double edges[] = {1e-4,
                                   9.9999e-5,
                                   1e15,
                                   999999999999999.0,
                                   0.1,
                                   0.2,
                                   0.3,
                                   0.1 + 0.2,
                                   1.0 / 3,
                                   2.0 / 3,
                                   5e-324,
                                   2.2250738585072014e-308,
                                   DBL_MAX,
                                   -0.0,
                                   0.0,
                                   1e300,
                                   123456789012345.6,
                                   12345678901234.56,
                                   0.000123456789012345,
                                   4.35,
                                   2.675,
                                   -2.5,
                                   100.0,
                                   1e16,
                                   1e-5};
    uint64_t x = 0x9E3779B97F4A7C15ull;
    size_t i = 0, e;
    for (e = 0; e < sizeof edges / sizeof edges[0]; e++)
        v[i++] = edges[e];
    while (i < DOUBLES) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        if (i % 3 == 2) { /* any finite bit pattern */
            memcpy(&v[i], &x, sizeof v[i]);
            if (isfinite(v[i]))
                i++;
        } else { /* m / 10^k, m of 1 to 16 digits, k from 0 to 19 */
            double m = (double)(x % 10000000000000000ull) / pow(10, (double)(x >> 60));
            v[i++] = (x & 1 ? -m : m) / pow(10, (double)(x >> 32 & 15) + (double)(x >> 40 & 3));
        }
    }
}

START_TEST(test_doubles) {
    static const nvtxPayloadSchemaEntry_t entries[] = {
        {NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP | NVTX_PAYLOAD_ENTRY_FLAG_MARK,
         NVTX_PAYLOAD_ENTRY_TYPE_INT64, "ts", NULL, 0, offsetof(double_payload, ts), NULL, NULL},
        {0, NVTX_PAYLOAD_ENTRY_TYPE_DOUBLE, "v", NULL, 0, offsetof(double_payload, v), NULL, NULL},
    };
    static double values[DOUBLES];
    nvtxwSessionHandle_t session = begin("doubles", "doubles.json");
    nvtxwEventWriter_t w;
    nvtxPayloadData_t payload;
    double_payload p;
    char path[PATH_MAX], want[64];
    const char* at;
    char* json;
    size_t size, i;
    double_values(values);
    w = mark_writer(session, "sample", entries, sizeof p, &p, &payload);
    for (i = 0; i < DOUBLES; i++) {
        memset(&p, 0, sizeof p);
        p.ts = (int64_t)i;
        p.v = values[i];
        OK(T->EventWrite(w.stream, &payload, 1));
    }
    OK(T->SessionEnd(session));
    out_path(path, sizeof path, "doubles.json");
    json = tu_read_file_or_fail(path, &size);
    at = json;
    for (i = 0; i < DOUBLES; i++) {
        size_t length;
        static const char key[] = "\"args\":{\"v\":";
        at = strstr(at, key);
        ck_assert_msg(at != NULL, "value %zu missing", i);
        at += sizeof key - 1;
        length = strcspn(at, "}");
        reference_double(values[i], want, sizeof want);
        ck_assert_msg(length == strlen(want) && memcmp(at, want, length) == 0,
                      "value %zu (%a): want %s, got %.*s", i, values[i], want, (int)length, at);
    }
    free(json);
}
END_TEST

/* ---- Concurrency ---------------------------------------------------------- */

#define THREADS 4
#define RANGES_PER_THREAD 5000
#define SHORT_STREAMS 3000

typedef struct writer_arg {
    nvtxwEventWriter_t writer;
    int thread;
    int failed;
} writer_arg;

static void* writer_main(void* opaque) {
    writer_arg* arg = opaque;
    int64_t t = 1000 * (int64_t)arg->thread;
    char message[32];
    uint64_t id;
    int i;
    for (i = 0; i < RANGES_PER_THREAD && !arg->failed; i++, t += 100) {
        snprintf(message, sizeof message, "t%d range %d", arg->thread, i);
        arg->failed |= nvtxwRangePushPopWriteUtf8(&arg->writer, t, t + 50, utf8(0, 0, message));
        arg->failed |= nvtxwRangePushWriteUtf8(&arg->writer, t + 60, utf8(0, 0, message));
        arg->failed |= nvtxwRangePopWrite(&arg->writer, t + 70);
        /* NVTX range IDs are unique in a process, not per thread. */
        id = (uint64_t)arg->thread << 32 | (uint64_t)i;
        arg->failed |= nvtxwRangeStartWriteUtf8(&arg->writer, t + 80, id, utf8(0, 0, "a"));
        arg->failed |= nvtxwRangeEndWrite(&arg->writer, t + 90, id);
        arg->failed |= nvtxwMarkWriteUtf8(&arg->writer, t + 95, utf8(0, 0, message));
    }
    return NULL;
}

/* Several writers hand their buffers to one writer thread (asked for: the
 * default has none on one CPU). */
START_TEST(test_threads) {
    nvtxwSessionHandle_t session;
    nvtxDomainHandle_t domain;
    writer_arg args[THREADS];
    pthread_t threads[THREADS];
    char path[PATH_MAX], summary[4096], name[32], expected[256];
    int i;
    extra_config = "|CompressionThreads=1";
    session = begin("threads", "threads.json");
    extra_config = "";
    OK(nvtxwDomainRegister(T, session, "mt", &domain));
    for (i = 0; i < THREADS; i++) {
        snprintf(name, sizeof name, "thread %d", i);
        memset(&args[i], 0, sizeof args[i]);
        args[i].thread = i;
        OK(nvtxwEventWriterOpen(T, session, name, domain, "/proc", 0, &args[i].writer));
    }
    for (i = 0; i < THREADS; i++)
        ck_assert_int_eq(pthread_create(&threads[i], NULL, writer_main, &args[i]), 0);
    for (i = 0; i < THREADS; i++) {
        ck_assert_int_eq(pthread_join(threads[i], NULL), 0);
        ck_assert_msg(!args[i].failed, "thread %d: %s", i, nvtxw_last_error());
    }
    OK(T->SessionEnd(session));
    out_path(path, sizeof path, "threads.json");
    check_json(path, summary, sizeof summary);
    /* Whole and split push/pop ranges are both "X" (split ones written at
     * the pop); no "B"/"E" remain. */
    /* M: pid 2's name and sort index, each thread's: pid 1 has no row. */
    snprintf(expected, sizeof expected, "X=%d B=0 E=0 b=%d e=%d i=%d C=0 M=%d",
             2 * THREADS * RANGES_PER_THREAD, THREADS * RANGES_PER_THREAD,
             THREADS * RANGES_PER_THREAD, THREADS * RANGES_PER_THREAD, 2 + 2 * THREADS);
    ck_assert_msg(strstr(summary, expected) != NULL, "got %s, want %s", summary, expected);
}
END_TEST

/* Streams opened and closed one after another, one range each, beside a
 * long stream that fills several buffers: every range is there once, on
 * the row its stream's thread_name names, and after that thread_name in
 * the file (the closed streams' last bytes are gathered before they are
 * written). Run with and without the writer thread. */
static const char short_streams_checker[] =
    "import json,sys\n"
    "ev=json.load(open(sys.argv[1],encoding='utf-8'))['traceEvents']\n"
    "names={}; seen={}\n"
    "for e in ev:\n"
    "  key=(e['pid'],e['tid'])\n"
    "  if e['ph']=='M' and e['name']=='thread_name': names[key]=e['args']['name']; continue\n"
    "  if e['ph']!='X': continue\n"
    "  assert key in names, ('event before its thread_name', e)\n"
    "  row=names[key]; seen[row]=seen.get(row,0)+1\n"
    "  assert row=='long' or e['name']==row, ('event on another row', e, row)\n"
    "print(len(seen), sum(v for k,v in seen.items() if k!='long'), seen.get('long',0))\n";

static void write_short_streams(const char* config, const char* file) {
    nvtxwSessionHandle_t session;
    nvtxDomainHandle_t domain;
    nvtxwEventWriter_t longer, shorter;
    char path[PATH_MAX], name[32], *out;
    int i, status;
    extra_config = config;
    session = begin("short", file);
    extra_config = "";
    OK(nvtxwDomainRegister(T, session, "d", &domain));
    OK(nvtxwEventWriterOpen(T, session, "long", domain, "/proc", 0, &longer));
    for (i = 0; i < SHORT_STREAMS; i++) {
        snprintf(name, sizeof name, "s%d", i);
        OK(nvtxwEventWriterOpen(T, session, name, domain, "/proc", 0, &shorter));
        OK(nvtxwRangePushPopWriteUtf8(&shorter, 10 * i, 10 * i + 5, utf8(0, 0, name)));
        OK(T->StreamClose(shorter.stream));
        OK(nvtxwRangePushPopWriteUtf8(&longer, 10 * i, 10 * i + 9,
                                      utf8(0, 0, "a longer range's name to fill buffers")));
    }
    OK(T->SessionEnd(session));
    out_path(path, sizeof path, file);
    status = tu_run_python(dir, "short_streams", short_streams_checker, path, &out);
    ck_assert_msg(status == 0, "%s: %s", config, out);
    snprintf(name, sizeof name, "%d %d %d\n", SHORT_STREAMS + 1, SHORT_STREAMS, SHORT_STREAMS);
    ck_assert_msg(strcmp(out, name) == 0, "%s: got %s, want %s", config, out, name);
    free(out);
}

START_TEST(test_short_streams) {
    write_short_streams("|CompressionThreads=1", "short1.json");
    write_short_streams("|CompressionThreads=0", "short0.json");
}
END_TEST

/* One counter written from two streams of one process: two series. Viewers
 * key a process's counter series by name and "id", so every sample carries
 * "id": its stream's name. */
START_TEST(test_counter_series_per_stream) {
    nvtxwSessionHandle_t session = begin("series", "series.json");
    nvtxDomainHandle_t domain;
    nvtxwStreamHandle_t a, b;
    uint64_t counter = 0;
    char path[PATH_MAX], *text;
    OK(nvtxwDomainRegister(T, session, "d", &domain));
    OK(nvtxwCounterInt64Register(T, domain, "queue", NULL, &counter));
    OK(nvtxwStreamOpen(T, session, "main", domain, "/node/proc", 0, &a));
    OK(nvtxwStreamOpen(T, session, "io \"thread\"", domain, "/node/proc", 0, &b));
    OK(nvtxwCounterInt64Write(T, a, 1000, counter, 5));
    OK(nvtxwCounterInt64Write(T, b, 2000, counter, 7));
    OK(T->SessionEnd(session));
    out_path(path, sizeof path, "series.json");
    text = tu_read_file_or_fail(path, NULL);
    ck_assert_msg(strstr(text, "\"ph\":\"C\"") != NULL, "%s", text);
    ck_assert_msg(strstr(text, ",\"id\":\"io \\\"thread\\\"\"") != NULL, "%s", text);
    ck_assert_msg(strstr(text, ",\"id\":\"main\"") != NULL, "%s", text);
    free(text);
}
END_TEST

/* ---- Bad input ------------------------------------------------------------ */

static nvtxwResultCode_t try_begin(const char* config) {
    nvtxwSessionAttributes_t attr;
    nvtxwSessionHandle_t session = NULL;
    nvtxwResultCode_t status;
    nvtxwSessionAttributesInit(&attr);
    attr.name = "bad";
    attr.configString = config;
    status = T->SessionBegin(&attr, &session);
    if (status == 0)
        OK(T->SessionEnd(session));
    return status;
}

START_TEST(test_unwritable_output) {
    char config[PATH_MAX + 64];
    snprintf(config, sizeof config, "Sink=json|Output=%s/missing/dir/out.json", dir);
    ck_assert_int_ne(try_begin(config), 0);
    ck_assert_msg(strstr(nvtxw_last_error(), "missing/dir/out.json") != NULL &&
                      strstr(nvtxw_last_error(), "No such file") != NULL,
                  "%s", nvtxw_last_error());
}
END_TEST

START_TEST(test_existing_output) {
    char config[PATH_MAX + 64], path[PATH_MAX];
    size_t size;
    char* data;
    FILE* file;
    out_path(path, sizeof path, "kept.json");
    file = fopen(path, "w");
    ck_assert_ptr_nonnull(file);
    fputs("keep me", file);
    fclose(file);
    snprintf(config, sizeof config, "Sink=json|Output=%s|Overwrite=no", path);
    ck_assert_int_ne(try_begin(config), 0);
    ck_assert_msg(strstr(nvtxw_last_error(), "Overwrite=yes") != NULL, "%s", nvtxw_last_error());
    data = tu_read_file_or_fail(path, &size);
    ck_assert_str_eq(data, "keep me");
    free(data);
    snprintf(config, sizeof config, "Sink=json|Output=%s", path); /* default: replace */
    ck_assert_int_eq(try_begin(config), 0);
    data = tu_read_file_or_fail(path, &size);
    ck_assert_msg(strncmp(data, "{\"traceEvents\":[", 16) == 0, "%s", data);
    free(data);
}
END_TEST

/* An empty session is a valid trace without events (not even an empty
 * process), and the default name is NAME.json. */
START_TEST(test_default_output) {
    char cwd[PATH_MAX], path[PATH_MAX], summary[4096];
    nvtxwSessionAttributes_t attr;
    nvtxwSessionHandle_t session = NULL;
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
    ck_assert_int_eq(chdir(dir), 0);
    nvtxwSessionAttributesInit(&attr);
    attr.name = "empty/run";
    attr.configString = "Sink=json";
    OK(T->SessionBegin(&attr, &session));
    OK(T->SessionEnd(session));
    ck_assert_int_eq(chdir(cwd), 0);
    out_path(path, sizeof path, "empty_run.json");
    check_json(path, summary, sizeof summary);
    ck_assert_msg(strstr(summary, "events=0 ") != NULL, "%s", summary);
}
END_TEST

/* ---- Throughput ----------------------------------------------------------- */

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

START_TEST(test_throughput) {
    const char* env = getenv("NVTXW_CHROME_BENCH_RANGES");
    long ranges = env != NULL ? atol(env) : 200000, i;
    nvtxwSessionHandle_t session = begin("bench", "bench.json");
    nvtxDomainHandle_t domain;
    nvtxwEventWriter_t writer;
    char path[PATH_MAX];
    struct stat info;
    double start, seconds;
    int failed = 0;
    OK(nvtxwDomainRegister(T, session, "bench", &domain));
    OK(nvtxwEventWriterOpen(T, session, "bench", domain, "", 0, &writer));
    start = now_seconds();
    /* No ck_assert in the loop: each one reports to the parent process. */
    for (i = 0; i < ranges; i++)
        failed |= nvtxwRangePushPopWriteUtf8(&writer, 1000 * (int64_t)i, 1000 * (int64_t)i + 500,
                                             utf8(0, 0, "bench range"));
    failed |= T->SessionEnd(session);
    ck_assert_msg(failed == 0, "%s", nvtxw_last_error());
    seconds = now_seconds() - start;
    out_path(path, sizeof path, "bench.json");
    ck_assert_int_eq(stat(path, &info), 0);
    printf("chrome json: %ld ranges, %lld bytes in %.3f s = %.1f MB/s, %.0f ranges/s\n", ranges,
           (long long)info.st_size, seconds, (double)info.st_size / 1e6 / seconds,
           (double)ranges / seconds);
}
END_TEST

int main(void) {
    Suite* suite = suite_create("chrome");
    TCase* tc = tcase_create("json");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_golden);
    tcase_add_test(tc, test_golden_without_writer_thread);
    tcase_add_test(tc, test_golden_with_base_hint);
    tcase_add_test(tc, test_doubles);
    tcase_add_test(tc, test_golden_events_catch_mutation);
    tcase_add_test(tc, test_flows);
    tcase_add_test(tc, test_json_text);
    tcase_add_test(tc, test_threads);
    tcase_add_test(tc, test_short_streams);
    tcase_add_test(tc, test_counter_series_per_stream);
    tcase_add_test(tc, test_unwritable_output);
    tcase_add_test(tc, test_existing_output);
    tcase_add_test(tc, test_default_output);
    /* A measurement, not a check: run by `make bench`, or on request. */
    if (getenv("NVTXW_CHROME_BENCH_RANGES") != NULL)
        tcase_add_test(tc, test_throughput);
    suite_add_tcase(suite, tc);
    return tu_run_suite(suite);
}
