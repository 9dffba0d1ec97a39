/*
 * tests/unit/perfetto_test.c - Sink=perfetto (libnvtxw/sink/perfetto/):
 *   - the protobuf writer (perfetto_pb.h): varints, fixed64, nested
 *     lengths of one, two and three bytes, strings repaired to UTF-8;
 *   - sessions through the NVTXW v2 table, read back by a protobuf walker
 *     of this file (not the sink's code): every packet framed exactly, on
 *     the right sequence, with SEQ_INCREMENTAL_STATE_CLEARED before any
 *     packet that needs the state, every name iid defined before use in
 *     the state it is used in; the counts of slice begins and ends,
 *     instants and counter values per sequence equal what the calls wrote;
 *   - 4 threads on 4 streams at once (TSan in CI), also with
 *     Compression= on 0, 1 and 3 compression threads: every sequence
 *     holds the same packets, in the same order, as without them
 *     (zstd_compressed_packets unpacked by the walker); a stream of 40,000
 *     distinct names (the interning tables restart); pushes left open;
 *     timestamps below 0 and out of order;
 *   - bad input: unwritable Output, existing Output without Overwrite,
 *     Output=-; the file limit reached on a compression thread.
 * The semantic check (tracks, clocks, slices per track, arguments, flows,
 * against the JSON of the same session) is tests/perfetto/perfetto_test.sh.
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <zstd.h>

#include "nvtxw/backend.h"
#include "nvtxw/error.h"
#include "nvtxw/helpers.h"
#include "sink/perfetto/perfetto_pb.h"
#include "test_util.h"

static const nvtxwInterface_t* T;
static char dir[PATH_MAX];

#define OK(call) ck_assert_msg((call) == 0, "%s: %s", #call, nvtxw_last_error())

static void setup(void) {
    T = tu_get_interface_or_fail();
    tu_make_temp_dir_or_fail(dir, sizeof dir, "nvtxw-perfetto");
}

static void teardown(void) { ck_assert_int_eq(tu_remove_tree(dir), 0); }

/* ---- the protobuf writer ------------------------------------------------- */

static void expect_bytes(const strbuf* b, const char* want, size_t length) {
    ck_assert_uint_eq(b->length, length);
    ck_assert_msg(memcmp(b->data, want, length) == 0, "bytes differ");
}

START_TEST(writer_fields) {
    strbuf b = {0};
    ck_assert_int_eq(pb_varint(&b, 1, 0), 0);
    ck_assert_int_eq(pb_varint(&b, 15, 300), 0);        /* tag 0x78, 0xAC 0x02 */
    ck_assert_int_eq(pb_varint(&b, 16, UINT64_MAX), 0); /* two-byte tag, ten bytes */
    ck_assert_int_eq(pb_fixed64(&b, 47, UINT64_C(0x0102030405060708)), 0);
    expect_bytes(&b,
                 "\x08\x00"
                 "\x78\xAC\x02"
                 "\x80\x01\xFF\xFF\xFF\xFF\xFF\xFF\xFF\xFF\xFF\x01"
                 "\xF9\x02\x08\x07\x06\x05\x04\x03\x02\x01",
                 2 + 3 + 12 + 10);
    strbuf_free(&b);
}
END_TEST

/* A nested message's length takes one, two or three bytes: the contents
 * move up and stay whole. */
START_TEST(writer_nested_lengths) {
    static const size_t sizes[] = {0, 1, 127, 128, 300, 16383, 16384, 70000};
    size_t i, j;
    for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        strbuf b = {0};
        size_t mark = pb_open(&b, 1), prefix;
        uint64_t length = 0;
        unsigned shift = 0;
        ck_assert_uint_ne(mark, SIZE_MAX);
        for (j = 0; j < sizes[i]; j++)
            ck_assert_int_eq(strbuf_append(&b, (const char*)&(char){(char)(j % 251)}, 1), 0);
        ck_assert_int_eq(pb_close(&b, mark), 0);
        ck_assert_int_eq((unsigned char)b.data[0], 0x0A); /* field 1, wire type 2 */
        for (prefix = 1; prefix < b.length; prefix++) {
            length |= (uint64_t)((unsigned char)b.data[prefix] & 0x7F) << shift;
            shift += 7;
            if (((unsigned char)b.data[prefix] & 0x80) == 0)
                break;
        }
        ck_assert_uint_eq(length, sizes[i]);
        ck_assert_uint_eq(b.length, prefix + 1 + sizes[i]);
        for (j = 0; j < sizes[i]; j++)
            ck_assert_int_eq((unsigned char)b.data[prefix + 1 + j], j % 251);
        strbuf_free(&b);
    }
}
END_TEST

START_TEST(writer_strings_utf8) {
    strbuf b = {0};
    ck_assert_int_eq(pb_cstring(&b, 2, "ok"), 0);
    ck_assert_int_eq(pb_cstring(&b, 2, "\xC3\xA9\xFF!"), 0); /* é, a stray byte, ! */
    ck_assert_int_eq(pb_string(&b, 2, "a\0b", 3), 0);        /* NUL is a character */
    expect_bytes(&b,
                 "\x12\x02ok"
                 "\x12\x06\xC3\xA9\xEF\xBF\xBD!"
                 "\x12\x03"
                 "a\0b",
                 4 + 8 + 5);
    strbuf_free(&b);
}
END_TEST

/* ---- a protobuf walker of this test's own ------------------------------ */

#define MAX_SEQUENCES 64

typedef struct sequence_view {
    int seen, valid; /* a packet; the incremental state is set */
    uint64_t names;  /* event name iids defined in the current state: 1..names */
    uint64_t keys;   /* debug annotation name iids, the same way */
    long annotations;
    long begins, ends, instants, counters, states, absolute;
    uint64_t digest; /* FNV-1a of its packets' bytes, in order */
} sequence_view;

typedef struct trace_view {
    long packets, descriptors, events, frames; /* frames: zstd_compressed_packets */
    sequence_view seq[MAX_SEQUENCES];
    char error[256];
} trace_view;

typedef struct pb_cursor {
    const unsigned char *p, *end;
} pb_cursor;

static int read_varint(pb_cursor* c, uint64_t* value) {
    unsigned shift = 0;
    *value = 0;
    while (c->p < c->end && shift < 64) {
        unsigned char byte = *c->p++;
        *value |= (uint64_t)(byte & 0x7F) << shift;
        if ((byte & 0x80) == 0)
            return 0;
        shift += 7;
    }
    return -1;
}

/* The next field: number, wire type, and its value (varint) or bytes. */
static int next_field(pb_cursor* c, uint32_t* number, unsigned* type, uint64_t* value,
                      pb_cursor* inner) {
    uint64_t tag;
    if (read_varint(c, &tag) != 0 || (tag >> 3) == 0 || (tag >> 3) > UINT32_MAX)
        return -1;
    *number = (uint32_t)(tag >> 3);
    *type = (unsigned)(tag & 7);
    switch (*type) {
    case 0:
        return read_varint(c, value);
    case 1:
        if (c->end - c->p < 8)
            return -1;
        memcpy(value, c->p, 8);
        c->p += 8;
        return 0;
    case 2:
        if (read_varint(c, value) != 0 || *value > (uint64_t)(c->end - c->p))
            return -1;
        inner->p = c->p;
        inner->end = c->p + *value;
        c->p += *value;
        return 0;
    default:
        return -1;
    }
}

static int walk_fail(trace_view* v, const char* what, long packet) {
    snprintf(v->error, sizeof v->error, "packet %ld: %s", packet, what);
    return -1;
}

/* InternedData: counts event names (field 2) and debug annotation names
 * (field 3), which must be numbered in order from 1 in each state. */
static int walk_interned(trace_view* v, sequence_view* s, pb_cursor c) {
    uint32_t number;
    unsigned type;
    uint64_t value;
    pb_cursor inner, entry;
    while (c.p < c.end) {
        if (next_field(&c, &number, &type, &value, &inner) != 0)
            return walk_fail(v, "bad interned data", v->packets);
        if ((number != 2 && number != 3) || type != 2)
            continue;
        uint64_t* defined = number == 2 ? &s->names : &s->keys;
        while (inner.p < inner.end) {
            if (next_field(&inner, &number, &type, &value, &entry) != 0)
                return walk_fail(v, "bad interned name", v->packets);
            if (number == 1 && value != ++*defined)
                return walk_fail(v, "interned name iid out of order", v->packets);
        }
    }
    return 0;
}

/* A debug annotation's name_iid (field 1) must be defined. */
static int walk_annotation(trace_view* v, sequence_view* s, pb_cursor c) {
    uint32_t number;
    unsigned type;
    uint64_t value;
    pb_cursor inner;
    while (c.p < c.end) {
        if (next_field(&c, &number, &type, &value, &inner) != 0)
            return walk_fail(v, "bad debug annotation", v->packets);
        if (number == 1 && (value == 0 || value > s->keys))
            return walk_fail(v, "annotation name iid used before its definition", v->packets);
    }
    s->annotations++;
    return 0;
}

/* A TrackEvent: its type counted, its name_iid defined. */
static int walk_event(trace_view* v, sequence_view* s, pb_cursor c) {
    uint32_t number;
    unsigned type;
    uint64_t value, event_type = 0, name_iid = 0;
    pb_cursor inner;
    while (c.p < c.end) {
        if (next_field(&c, &number, &type, &value, &inner) != 0)
            return walk_fail(v, "bad track event", v->packets);
        if (number == 9 && type == 0)
            event_type = value;
        if (number == 10 && type == 0)
            name_iid = value;
        if (number == 4 && type == 2 && walk_annotation(v, s, inner) != 0)
            return -1;
    }
    if (name_iid > s->names)
        return walk_fail(v, "name iid used before its definition", v->packets);
    v->events++;
    s->begins += event_type == 1;
    s->ends += event_type == 2;
    s->instants += event_type == 3;
    s->counters += event_type == 4;
    return event_type >= 1 && event_type <= 4 ? 0 : walk_fail(v, "event type", v->packets);
}

static int walk_packets(trace_view* v, pb_cursor c);

static uint64_t fnv1a(uint64_t hash, const unsigned char* p, const unsigned char* end) {
    while (p < end)
        hash = (hash ^ *p++) * 0x100000001B3u;
    return hash;
}

/* zstd_compressed_packets: one zstd frame of Trace.packet fields. */
static int walk_frame(trace_view* v, pb_cursor frame) {
    size_t size = (size_t)(frame.end - frame.p);
    unsigned long long content = ZSTD_getFrameContentSize(frame.p, size);
    unsigned char* data;
    size_t got;
    int status;
    if (content == ZSTD_CONTENTSIZE_ERROR || content == ZSTD_CONTENTSIZE_UNKNOWN ||
        content > (64u << 20))
        return walk_fail(v, "zstd frame without a sane content size", v->packets);
    data = malloc(content > 0 ? (size_t)content : 1);
    ck_assert_ptr_nonnull(data);
    got = ZSTD_decompress(data, (size_t)content, frame.p, size);
    status = ZSTD_isError(got) || got != content
                 ? walk_fail(v, "zstd frame does not decompress", v->packets)
                 : walk_packets(v, (pb_cursor){data, data + got});
    v->frames++;
    free(data);
    return status;
}

static int walk_packet(trace_view* v, pb_cursor c) {
    uint32_t number;
    unsigned type;
    uint64_t value, sequence = 0, flags = 0, clock = 0;
    pb_cursor inner, event = {NULL, NULL}, interned = {NULL, NULL}, frame = {NULL, NULL};
    pb_cursor whole = c;
    sequence_view* s;
    int descriptor = 0, fields = 0;
    while (c.p < c.end) {
        if (next_field(&c, &number, &type, &value, &inner) != 0)
            return walk_fail(v, "bad packet field", v->packets);
        fields++;
        if (number == 133 && type == 2)
            frame = inner;
        else if (number == 10)
            sequence = value;
        else if (number == 13)
            flags = value;
        else if (number == 58)
            clock = value;
        else if (number == 11)
            event = inner;
        else if (number == 12)
            interned = inner;
        else if (number == 60)
            descriptor = 1;
    }
    if (frame.p != NULL) /* a packet of compressed packets, and nothing else */
        return fields == 1
                   ? walk_frame(v, frame)
                   : walk_fail(v, "zstd_compressed_packets beside other fields", v->packets);
    if (sequence == 0 || sequence >= MAX_SEQUENCES)
        return walk_fail(v, "sequence ID", v->packets);
    s = &v->seq[sequence];
    s->seen = 1;
    s->digest = fnv1a(s->digest, whole.p, whole.end);
    v->descriptors += descriptor;
    if (flags & 1) {
        s->valid = 1;
        s->names = 0;
        s->keys = 0;
        s->states++;
    }
    if ((event.p != NULL || interned.p != NULL) && (!(flags & 2) || !s->valid))
        return walk_fail(v, "incremental state used without SEQ_NEEDS / CLEARED", v->packets);
    s->absolute += clock == 6;
    if (interned.p != NULL && walk_interned(v, s, interned) != 0)
        return -1;
    return event.p != NULL ? walk_event(v, s, event) : 0;
}

/* Trace.packet fields; 0, or -1 with v->error set. */
static int walk_packets(trace_view* v, pb_cursor c) {
    pb_cursor packet;
    uint32_t number;
    unsigned type;
    uint64_t value;
    int status = 0;
    while (status == 0 && c.p < c.end) {
        v->packets++;
        if (next_field(&c, &number, &type, &value, &packet) != 0 || number != 1 || type != 2)
            status = walk_fail(v, "not a Trace.packet field", v->packets);
        else
            status = walk_packet(v, packet);
    }
    return status;
}

/* Walks a whole file; 0, or -1 with v->error set. */
static int walk_trace(const char* path, trace_view* v) {
    size_t size;
    char* data = tu_read_file_or_fail(path, &size);
    int status;
    memset(v, 0, sizeof *v);
    status =
        walk_packets(v, (pb_cursor){(const unsigned char*)data, (const unsigned char*)data + size});
    free(data);
    return status;
}

/* ---- sessions ------------------------------------------------------------ */

static nvtxwSessionHandle_t begin(const char* name, const char* file) {
    nvtxwSessionAttributes_t attr;
    nvtxwSessionHandle_t session = NULL;
    char config[PATH_MAX + 64];
    snprintf(config, sizeof config, "Sink=perfetto|Output=%s/%s", dir, file);
    nvtxwSessionAttributesInit(&attr);
    attr.name = name;
    attr.configString = config;
    ck_assert_msg(T->SessionBegin(&attr, &session) == 0, "%s", nvtxw_last_error());
    return session;
}

static void walk_or_fail(const char* file, trace_view* v) {
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    ck_assert_msg(walk_trace(path, v) == 0, "%s: %s", file, v->error);
}

static nvtxwEventAttributesUtf8_t utf8(const char* message) {
    nvtxwEventAttributesUtf8_t attr;
    memset(&attr, 0, sizeof attr);
    attr.message = message;
    return attr;
}

/* Every range kind, marks and counters on one stream: sequence 2. */
START_TEST(session_counts) {
    nvtxwSessionHandle_t session = begin("counts", "counts.pftrace");
    nvtxDomainHandle_t domain;
    nvtxwEventWriter_t w;
    uint64_t counter;
    trace_view v;
    OK(nvtxwDomainRegister(T, session, "app", &domain));
    OK(nvtxwEventWriterOpen(T, session, "main", domain, "", 0, &w));
    OK(nvtxwRangePushPopWriteUtf8(&w, 1000, 2000, utf8("whole")));
    OK(nvtxwRangePushWriteUtf8(&w, 2500, utf8("split")));
    OK(nvtxwRangePopWrite(&w, 3000));
    OK(nvtxwRangePopWrite(&w, 3100)); /* nothing pushed: an instant */
    OK(nvtxwRangeStartWriteUtf8(&w, 3200, 7, utf8("async")));
    OK(nvtxwRangeEndWrite(&w, 3300, 7));
    OK(nvtxwRangeStartEndWriteUtf8(&w, 3400, 3500, utf8("lane")));
    OK(nvtxwMarkWriteUtf8(&w, 3600, utf8("mark")));
    OK(nvtxwCounterInt64Register(T, domain, "depth", NULL, &counter));
    OK(nvtxwCounterInt64Write(T, w.stream, 3700, counter, 5));
    OK(nvtxwCounterInt64Write(T, w.stream, 3800, counter, -5));
    OK(nvtxwRangePushWriteUtf8(&w, 3900, utf8("left open")));
    OK(T->SessionEnd(session));
    walk_or_fail("counts.pftrace", &v);
    ck_assert(v.seq[1].seen && v.seq[2].seen && !v.seq[3].seen);
    ck_assert_int_eq(v.seq[2].states, 1);
    ck_assert_int_eq(v.seq[2].begins, 5);   /* whole, split, async, lane, left open */
    ck_assert_int_eq(v.seq[2].ends, 5);     /* ... and the open push ended at close */
    ck_assert_int_eq(v.seq[2].instants, 2); /* the unmatched pop, the mark */
    ck_assert_int_eq(v.seq[2].counters, 2);
    /* distinct names: whole, split, (unmatched pop), async, lane, mark, left open */
    ck_assert_int_eq(v.seq[2].names, 7);
}
END_TEST

/* Names that never repeat: the sequence starts new incremental states and
 * every iid is still defined where it is used (the walker checks). */
START_TEST(session_interning_restarts) {
    nvtxwSessionHandle_t session = begin("names", "names.pftrace");
    nvtxDomainHandle_t domain;
    nvtxwEventWriter_t w;
    char name[32];
    trace_view v;
    int i, failed = 0;
    OK(nvtxwDomainRegister(T, session, "app", &domain));
    OK(nvtxwEventWriterOpen(T, session, "main", domain, "", 0, &w));
    for (i = 0; i < 40000; i++) {
        snprintf(name, sizeof name, "name %d", i);
        failed |= nvtxwMarkWriteUtf8(&w, i, utf8(name));
    }
    ck_assert_int_eq(failed, 0);
    OK(T->SessionEnd(session));
    walk_or_fail("names.pftrace", &v);
    ck_assert_int_eq(v.seq[2].instants, 40000);
    ck_assert_int_ge(v.seq[2].states, 3);
}
END_TEST

/* Out of order and negative times: absolute BOOTTIME packets, and 0. */
START_TEST(session_times) {
    nvtxwSessionHandle_t session = begin("times", "times.pftrace");
    nvtxDomainHandle_t domain;
    nvtxwEventWriter_t w;
    trace_view v;
    OK(nvtxwDomainRegister(T, session, "app", &domain));
    OK(nvtxwEventWriterOpen(T, session, "main", domain, "", 0, &w));
    OK(nvtxwMarkWriteUtf8(&w, 5000, utf8("late")));
    OK(nvtxwMarkWriteUtf8(&w, 1000, utf8("early")));
    OK(nvtxwMarkWriteUtf8(&w, -1000, utf8("negative")));
    OK(nvtxwMarkWriteUtf8(&w, INT64_MAX, utf8("max")));
    OK(T->SessionEnd(session));
    walk_or_fail("times.pftrace", &v);
    ck_assert_int_eq(v.seq[2].instants, 4);
    ck_assert_int_eq(v.seq[2].absolute, 2); /* early, negative */
}
END_TEST

typedef struct job_payload {
    int64_t begin, end;
    char message[16];
    int32_t rank;
    double load;
} job_payload;

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
        {0, NVTX_PAYLOAD_ENTRY_TYPE_DOUBLE, "load", NULL, 0, offsetof(job_payload, load), NULL,
         NULL},
    };
    nvtxPayloadSchemaAttr_t attr;
    uint64_t id = 0;
    memset(&attr, 0, sizeof attr);
    attr.fieldMask = NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NAME | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE |
                     NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_FLAGS | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES |
                     NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES |
                     NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_STATIC_SIZE;
    attr.name = "job";
    attr.type = NVTX_PAYLOAD_SCHEMA_TYPE_STATIC;
    attr.flags = NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_PUSHPOP;
    attr.entries = entries;
    attr.numEntries = 5;
    attr.payloadStaticSize = sizeof(job_payload);
    OK(T->SchemaRegister(domain, &attr, &id));
    return id;
}

/* Ranges with arguments whose names never repeat: argument names are
 * defined in every new incremental state before use (the walker checks
 * each annotation's name iid), two per range. */
START_TEST(session_arguments) {
    nvtxwSessionHandle_t session = begin("args", "args.pftrace");
    nvtxDomainHandle_t domain;
    nvtxwEventWriter_t w;
    nvtxPayloadData_t payload;
    job_payload job;
    trace_view v;
    int i, failed = 0;
    OK(nvtxwDomainRegister(T, session, "app", &domain));
    OK(nvtxwEventWriterOpen(T, session, "main", domain, "", 0, &w));
    payload.schemaId = job_schema(domain);
    payload.size = sizeof job;
    payload.payload = &job;
    for (i = 0; i < 40000; i++) {
        memset(&job, 0, sizeof job);
        job.begin = 100 * (int64_t)i;
        job.end = job.begin + 50;
        snprintf(job.message, sizeof job.message, "job %d", i);
        job.rank = i % 7;
        job.load = i / 4.0;
        failed |= T->EventWrite(w.stream, &payload, 1);
    }
    ck_assert_int_eq(failed, 0);
    OK(T->SessionEnd(session));
    walk_or_fail("args.pftrace", &v);
    ck_assert_int_eq(v.seq[2].begins, 40000);
    ck_assert_int_eq(v.seq[2].ends, 40000);
    ck_assert_int_eq(v.seq[2].annotations, 80000);
    ck_assert_int_ge(v.seq[2].states, 3);
}
END_TEST

#define WRITERS 4
#define RANGES 20000 /* about 600 KB of packets per stream: several frames of 256 KiB */

typedef struct writer_arg {
    nvtxwEventWriter_t writer;
    int failed;
} writer_arg;

static void* write_ranges(void* p) {
    writer_arg* a = p;
    int i;
    /* gaps that vary, so no two frames of a stream are the same bytes and a
     * frame lost, repeated or swapped changes the sequence's digest */
    for (i = 0; i < RANGES; i++) {
        int64_t begin = 10 * (int64_t)i + (i * 7919) % 7;
        a->failed |= nvtxwRangePushPopWriteUtf8(&a->writer, begin, begin + 1 + (i * 104729) % 3,
                                                utf8(i % 2 ? "odd" : "even"));
    }
    return NULL;
}

/* Four streams written at once by four threads, with `config` added to
 * the session's; the file's walk in `v`. */
static void write_threads(const char* file, const char* config, trace_view* v) {
    nvtxwSessionAttributes_t attr;
    nvtxwSessionHandle_t session = NULL;
    nvtxDomainHandle_t domain;
    writer_arg args[WRITERS];
    pthread_t threads[WRITERS];
    char full[PATH_MAX + 128], name[16];
    int i;
    snprintf(full, sizeof full, "Sink=perfetto|Output=%s/%s%s%s", dir, file, *config ? "|" : "",
             config);
    nvtxwSessionAttributesInit(&attr);
    attr.name = "threads";
    attr.configString = full;
    ck_assert_msg(T->SessionBegin(&attr, &session) == 0, "%s", nvtxw_last_error());
    OK(nvtxwDomainRegister(T, session, "app", &domain));
    for (i = 0; i < WRITERS; i++) {
        snprintf(name, sizeof name, "w%d", i);
        OK(nvtxwEventWriterOpen(T, session, name, domain, "", 0, &args[i].writer));
        args[i].failed = 0;
    }
    for (i = 0; i < WRITERS; i++)
        ck_assert_int_eq(pthread_create(&threads[i], NULL, write_ranges, &args[i]), 0);
    for (i = 0; i < WRITERS; i++) {
        ck_assert_int_eq(pthread_join(threads[i], NULL), 0);
        ck_assert_int_eq(args[i].failed, 0);
    }
    OK(T->SessionEnd(session));
    walk_or_fail(file, v);
}

/* Four streams written at once: each sequence holds its own ranges. */
START_TEST(session_threads) {
    trace_view v;
    int i;
    write_threads("threads.pftrace", "", &v);
    for (i = 0; i < WRITERS; i++) {
        ck_assert_int_eq(v.seq[2 + i].begins, RANGES);
        ck_assert_int_eq(v.seq[2 + i].ends, RANGES);
        ck_assert_int_eq(v.seq[2 + i].names, 2);
    }
}
END_TEST

/* Compressed packets, compressed on the writers' threads or on 1 or 3
 * compression threads: each sequence holds the packets of the file
 * without compression, in their order (its digest), in several frames. */
START_TEST(session_compression_threads) {
    static const char* const configs[] = {"Compression=1|CompressionThreads=0",
                                          "Compression=1|CompressionThreads=1",
                                          "Compression=3|CompressionThreads=3"};
    trace_view plain, packed;
    size_t c;
    int i;
    write_threads("plain.pftrace", "CompressionThreads=2", &plain);
    ck_assert_int_eq(plain.frames, 0);
    for (c = 0; c < sizeof configs / sizeof configs[0]; c++) {
        write_threads("packed.pftrace", configs[c], &packed);
        ck_assert_msg(packed.frames >= 2 * WRITERS, "%s: %ld frames", configs[c], packed.frames);
        for (i = 0; i < MAX_SEQUENCES; i++) {
            ck_assert_msg(packed.seq[i].digest == plain.seq[i].digest,
                          "%s: sequence %d's packets differ from the plain file's", configs[c], i);
            ck_assert_int_eq(packed.seq[i].begins, plain.seq[i].begins);
        }
        for (i = 0; i < WRITERS; i++)
            ck_assert_int_eq(packed.seq[2 + i].begins, RANGES);
    }
}
END_TEST

/* ---- bad input ----------------------------------------------------------- */

/* Child of disk_full_on_compression_thread (tu_run_child_or_fail). */
static void disk_full_child(int fd) {
    struct rlimit limit = {8192, 8192};
    nvtxwSessionAttributes_t attr;
    nvtxwSessionHandle_t session = NULL;
    nvtxDomainHandle_t domain;
    nvtxwEventWriter_t writer;
    nvtxwResultCode_t rc = 0;
    char config[PATH_MAX + 96], name[32], message[1024];
    long i;
    int n;
    signal(SIGXFSZ, SIG_IGN); /* a write past the limit fails with EFBIG instead */
    snprintf(config, sizeof config,
             "Sink=perfetto|Output=%s/full.pftrace|Compression=1|CompressionThreads=1", dir);
    nvtxwSessionAttributesInit(&attr);
    attr.name = "full";
    attr.configString = config;
    if (setrlimit(RLIMIT_FSIZE, &limit) != 0 || T->SessionBegin(&attr, &session) != 0 ||
        nvtxwDomainRegister(T, session, "app", &domain) != 0 ||
        nvtxwEventWriterOpen(T, session, "w", domain, "", 0, &writer) != 0)
        _exit(2);
    /* names and gaps that do not repeat: zstd cannot squeeze them under the limit */
    for (i = 0; i < 2000000 && rc == 0; i++) {
        snprintf(name, sizeof name, "r%lx", (unsigned long)(i * 2654435761u));
        rc = nvtxwRangePushPopWriteUtf8(&writer, 1000 * (int64_t)i + i % 977,
                                        1000 * (int64_t)i + 500, utf8(name));
    }
    n = snprintf(message, sizeof message, "write %ld: rc %d: %s", i, rc, nvtxw_last_error());
    if (n < 0 || (size_t)n >= sizeof message)
        n = (int)sizeof message - 1;
    if (rc != NVTXW_RESULT_FAILED || strstr(message, "cannot write Perfetto output") == NULL ||
        strstr(message, strerror(EFBIG)) == NULL || T->SessionEnd(session) == 0)
        n = write(fd, message, (size_t)n) < 0 ? 3 : 1;
    else
        n = write(fd, "OK", 2) != 2 ? 3 : 0;
    _exit(n);
}

/* A write error on a compression thread (the file limit reached) is
 * returned by a later write call of its stream, with the write's words. */
START_TEST(disk_full_on_compression_thread) { tu_run_child_or_fail(disk_full_child); }
END_TEST

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

START_TEST(bad_outputs) {
    char config[PATH_MAX + 64], path[PATH_MAX + 16];
    size_t size;
    char* data;
    FILE* file;
    snprintf(config, sizeof config, "Sink=perfetto|Output=%s/missing/dir/out.pftrace", dir);
    ck_assert_int_ne(try_begin(config), 0);
    ck_assert_msg(strstr(nvtxw_last_error(), "missing/dir/out.pftrace") != NULL &&
                      strstr(nvtxw_last_error(), "No such file") != NULL,
                  "%s", nvtxw_last_error());
    ck_assert_int_ne(try_begin("Sink=perfetto|Output=-"), 0);
    ck_assert_msg(strstr(nvtxw_last_error(), "files only") != NULL, "%s", nvtxw_last_error());
    snprintf(path, sizeof path, "%s/kept.pftrace", dir);
    file = fopen(path, "w");
    ck_assert_ptr_nonnull(file);
    fputs("keep me", file);
    fclose(file);
    snprintf(config, sizeof config, "Sink=perfetto|Output=%s|Overwrite=no", path);
    ck_assert_int_ne(try_begin(config), 0);
    ck_assert_msg(strstr(nvtxw_last_error(), "Overwrite=yes") != NULL, "%s", nvtxw_last_error());
    data = tu_read_file_or_fail(path, &size);
    ck_assert_str_eq(data, "keep me");
    free(data);
}
END_TEST

/* An empty session is a trace of its root track alone; the default name is
 * NAME.pftrace. */
START_TEST(default_output) {
    char cwd[PATH_MAX];
    nvtxwSessionAttributes_t attr;
    nvtxwSessionHandle_t session = NULL;
    trace_view v;
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
    ck_assert_int_eq(chdir(dir), 0);
    nvtxwSessionAttributesInit(&attr);
    attr.name = "empty/run";
    attr.configString = "Sink=perfetto";
    OK(T->SessionBegin(&attr, &session));
    OK(T->SessionEnd(session));
    ck_assert_int_eq(chdir(cwd), 0);
    walk_or_fail("empty_run.pftrace", &v);
    ck_assert_int_eq(v.packets, 1);
    ck_assert_int_eq(v.descriptors, 1);
}
END_TEST

int main(void) {
    Suite* suite = suite_create("perfetto");
    TCase* tc = tcase_create("perfetto");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, writer_fields);
    tcase_add_test(tc, writer_nested_lengths);
    tcase_add_test(tc, writer_strings_utf8);
    tcase_add_test(tc, session_counts);
    tcase_add_test(tc, session_interning_restarts);
    tcase_add_test(tc, session_arguments);
    tcase_add_test(tc, session_times);
    tcase_add_test(tc, session_threads);
    tcase_add_test(tc, session_compression_threads);
    tcase_add_test(tc, bad_outputs);
    tcase_add_test(tc, disk_full_on_compression_thread);
    tcase_add_test(tc, default_output);
    suite_add_tcase(suite, tc);
    return tu_run_suite(suite);
}
