/*
 * tests/unit/perfetto_direct_test.c - the Perfetto sink's direct encoding
 * (libnvtxw/sink/perfetto/perfetto_direct.c) against its visitor
 * (perfetto_visit.c): random schemas (every predefined number type, fixed
 * arrays, enums, registered string handles, scopes and task scopes, each
 * with random flags: hidden, begin, end and point timestamps, message;
 * names that are flows, empty or repeated; every schema role) and random
 * payloads (handles 0 and not, scopes registered and not, negative and
 * huge numbers, a second payload with a message that is ASCII, UTF-8, not
 * UTF-8 or without its NUL) are written to two sessions. Session B's
 * events carry one more payload, a REFERENCED one, which produces no
 * output but sends every event to the visitor (the direct encoding
 * declines payloads that are not of a registered schema). The two files
 * must be equal byte for byte, and the sink's debug log
 * (NVTXW_LOG_LEVEL=debug) must say that session A read a third of its
 * events directly, or more, and B none.
 */
#define _GNU_SOURCE
#include <check.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nvtxw/backend.h"
#include "nvtxw/error.h"
#include "nvtxw/helpers.h"
#include "nvtxw/payload.h"
#include "test_util.h"

static const nvtxwInterface_t* T;
static char dir[PATH_MAX];

#define OK(call) ck_assert_msg((call) == 0, "%s: %s", #call, nvtxw_last_error())

static void setup(void) {
    T = tu_get_interface_or_fail();
    tu_make_temp_dir_or_fail(dir, sizeof dir, "nvtxw-perfetto-direct");
}

static void teardown(void) { ck_assert_int_eq(tu_remove_tree(dir), 0); }

/* xorshift64*: the same sequence for both sessions. */
static uint64_t next_random(uint64_t* state) {
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return *state * UINT64_C(2685821657736338717);
}

static uint64_t pick(uint64_t* state, uint64_t n) { return next_random(state) % n; }

#define SCHEMAS 40
#define FIELDS_MAX 12
#define STRINGS 4
#define SCOPES 5
#define EVENTS 6000
#define ENUM_TYPE 1 /* a field of the session's enum (its ID differs per session) */

/* The first COMMON_TYPES are the types of common schemas. */
static const uint64_t field_types[] = {NVTX_PAYLOAD_ENTRY_TYPE_INT8,
                                       NVTX_PAYLOAD_ENTRY_TYPE_UINT8,
                                       NVTX_PAYLOAD_ENTRY_TYPE_INT16,
                                       NVTX_PAYLOAD_ENTRY_TYPE_UINT16,
                                       NVTX_PAYLOAD_ENTRY_TYPE_INT32,
                                       NVTX_PAYLOAD_ENTRY_TYPE_UINT32,
                                       NVTX_PAYLOAD_ENTRY_TYPE_INT64,
                                       NVTX_PAYLOAD_ENTRY_TYPE_UINT64,
                                       NVTX_PAYLOAD_ENTRY_TYPE_INT64,
                                       NVTX_PAYLOAD_ENTRY_TYPE_UINT64,
                                       NVTX_PAYLOAD_ENTRY_TYPE_CHAR,
                                       NVTX_PAYLOAD_ENTRY_TYPE_SHORT,
                                       NVTX_PAYLOAD_ENTRY_TYPE_LONG,
                                       NVTX_PAYLOAD_ENTRY_TYPE_SIZE,
                                       NVTX_PAYLOAD_ENTRY_TYPE_FLOAT,
                                       NVTX_PAYLOAD_ENTRY_TYPE_DOUBLE,
                                       NVTX_PAYLOAD_ENTRY_TYPE_NVTX_REGISTERED_STRING_HANDLE,
                                       NVTX_PAYLOAD_ENTRY_TYPE_NVTX_REGISTERED_STRING_HANDLE,
                                       NVTX_PAYLOAD_ENTRY_TYPE_CATEGORY,
                                       NVTX_PAYLOAD_ENTRY_TYPE_COLOR_ARGB,
                                       NVTX_PAYLOAD_ENTRY_TYPE_RANGE_ID,
                                       NVTX_PAYLOAD_ENTRY_TYPE_SCOPE_ID,
                                       NVTX_PAYLOAD_ENTRY_TYPE_FLOAT32,
                                       NVTX_PAYLOAD_ENTRY_TYPE_FLOAT64,
                                       NVTX_PAYLOAD_ENTRY_TYPE_FLOAT16,
                                       NVTX_PAYLOAD_ENTRY_TYPE_BYTE,
                                       ENUM_TYPE};
#define COMMON_TYPES 22
#define FIELD_TYPES (sizeof field_types / sizeof field_types[0])

static const uint64_t field_flags[] = {
    0,
    0,
    0,
    0,
    NVTX_PAYLOAD_ENTRY_FLAG_HIDE,
    NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP | NVTX_PAYLOAD_ENTRY_FLAG_RANGE_BEGIN,
    NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP | NVTX_PAYLOAD_ENTRY_FLAG_RANGE_END,
    NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP,
    NVTX_PAYLOAD_ENTRY_FLAG_EVENT_MESSAGE,
    NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_FIXED_SIZE};
#define FIELD_FLAGS (sizeof field_flags / sizeof field_flags[0])

static const char* const field_names[] = {"", "", "value", "flow_out", "flow_in", "bytes", "peer"};
#define FIELD_NAMES (sizeof field_names / sizeof field_names[0])

static const uint64_t roles[] = {
    NVTX_PAYLOAD_SCHEMA_FLAG_NONE,          NVTX_PAYLOAD_SCHEMA_FLAG_MARK,
    NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_PUSHPOP, NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_STARTEND,
    NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_PUSH,    NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_POP,
    NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_START,   NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_END,
    NVTX_PAYLOAD_SCHEMA_FLAG_COUNTER_GROUP};
#define ROLES (sizeof roles / sizeof roles[0])

static const char* const messages[] = {
    "send",          "compute", "caf\xc3\xa9",
    "bad \xff byte", "",        "a much longer message than the others here"};
#define MESSAGES (sizeof messages / sizeof messages[0])

/* A schema as the test made it: entry i holds a value of entries[i].type
 * (arrayOrUnionDetail elements when it is an array) at entries[i].offset. */
typedef struct schema_spec {
    int registered;
    uint64_t id;
    size_t count, size;
    nvtxPayloadSchemaEntry_t entries[FIELDS_MAX];
    int is_enum[FIELDS_MAX];
} schema_spec;

/* What one session registered. */
typedef struct session_ids {
    nvtxDomainHandle_t domain;
    uint64_t enum_id;
    uint64_t message_schemas[3]; /* message, argument, hidden */
    nvtxStringHandle_t strings[STRINGS];
    uint64_t scopes[SCOPES]; /* valid or not in a SCOPE_ID field */
    schema_spec schemas[SCHEMAS];
} session_ids;

static size_t align_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

/* Flags a producer would give a field of `type` (a common schema). */
static uint64_t common_flags(uint64_t type, uint64_t* r) {
    static const uint64_t integer[] = {
        0,
        0,
        NVTX_PAYLOAD_ENTRY_FLAG_HIDE,
        NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP | NVTX_PAYLOAD_ENTRY_FLAG_RANGE_BEGIN,
        NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP | NVTX_PAYLOAD_ENTRY_FLAG_RANGE_END,
        NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP,
        NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_FIXED_SIZE};
    static const uint64_t real[] = {0, NVTX_PAYLOAD_ENTRY_FLAG_HIDE,
                                    NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_FIXED_SIZE};
    static const uint64_t handle[] = {0, NVTX_PAYLOAD_ENTRY_FLAG_HIDE,
                                      NVTX_PAYLOAD_ENTRY_FLAG_EVENT_MESSAGE};
    switch (type) {
    case ENUM_TYPE:
        return pick(r, 4) == 0 ? NVTX_PAYLOAD_ENTRY_FLAG_HIDE : 0;
    case NVTX_PAYLOAD_ENTRY_TYPE_FLOAT:
    case NVTX_PAYLOAD_ENTRY_TYPE_DOUBLE:
        return real[pick(r, 3)];
    case NVTX_PAYLOAD_ENTRY_TYPE_NVTX_REGISTERED_STRING_HANDLE:
        return handle[pick(r, 3)];
    default:
        return integer[pick(r, sizeof integer / sizeof integer[0])];
    }
}

/* Random schema (the same for both sessions: `seed` restarts it): any
 * type with any flags, or, when `common`, types and flags as producers
 * use them (the direct encoding's cases, mostly). */
static void make_schema(schema_spec* s, uint64_t seed, uint64_t enum_id, int common) {
    uint64_t r = seed;
    size_t i, end = 0;
    memset(s, 0, sizeof *s);
    s->count = 1 + pick(&r, FIELDS_MAX);
    for (i = 0; i < s->count; i++) {
        nvtxPayloadSchemaEntry_t* e = &s->entries[i];
        uint64_t type = field_types[pick(&r, common ? COMMON_TYPES : FIELD_TYPES)];
        size_t size, elements = 1;
        if (common && pick(&r, 8) == 0)
            type = ENUM_TYPE;
        s->is_enum[i] = type == ENUM_TYPE;
        e->type = s->is_enum[i] ? enum_id : type;
        e->flags = common ? common_flags(type, &r) : field_flags[pick(&r, FIELD_FLAGS)];
        e->name = field_names[pick(&r, FIELD_NAMES)];
        if (e->flags == NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_FIXED_SIZE)
            e->arrayOrUnionDetail = elements = 1 + pick(&r, 4);
        size = s->is_enum[i] ? 4 : nvtxw_entry_type_size(type);
        e->offset = align_up(end, size);
        end = e->offset + size * elements;
    }
    s->size = align_up(end, 8);
}

static uint64_t register_schema(nvtxDomainHandle_t domain, const char* name, uint64_t type,
                                uint64_t flags, const nvtxPayloadSchemaEntry_t* entries,
                                size_t count, size_t size, int* ok) {
    nvtxPayloadSchemaAttr_t attr;
    uint64_t id = 0;
    memset(&attr, 0, sizeof attr);
    attr.fieldMask = NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NAME | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE |
                     NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_FLAGS | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES |
                     NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES |
                     (size > 0 ? NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_STATIC_SIZE : 0);
    attr.name = name;
    attr.type = type;
    attr.flags = flags;
    attr.entries = entries;
    attr.numEntries = count;
    attr.payloadStaticSize = size;
    *ok = T->SchemaRegister(domain, &attr, &id) == NVTXW_RESULT_SUCCESS;
    return id;
}

static void register_all(session_ids* ids, nvtxwSessionHandle_t session) {
    static const nvtxPayloadEnum_t values[] = {{"small", 1, 0}, {"large", 7, 0}};
    static const char* const texts[STRINGS] = {"rank 0", "kernel", "x\xe2\x82\xac", "idle"};
    static const uint64_t message_flags[3] = {NVTX_PAYLOAD_ENTRY_FLAG_EVENT_MESSAGE, 0,
                                              NVTX_PAYLOAD_ENTRY_FLAG_HIDE};
    nvtxPayloadEnumAttr_t e;
    char name[32];
    int i, ok;
    OK(nvtxwDomainRegister(T, session, "app", &ids->domain));
    memset(&e, 0, sizeof e);
    e.fieldMask = NVTX_PAYLOAD_ENUM_ATTR_FIELD_NAME | NVTX_PAYLOAD_ENUM_ATTR_FIELD_ENTRIES |
                  NVTX_PAYLOAD_ENUM_ATTR_FIELD_NUM_ENTRIES | NVTX_PAYLOAD_ENUM_ATTR_FIELD_SIZE;
    e.name = "kind";
    e.entries = values;
    e.numEntries = 2;
    e.sizeOfEnum = 4;
    OK(T->EnumRegister(ids->domain, &e, &ids->enum_id));
    for (i = 0; i < STRINGS; i++)
        OK(T->StringRegister(ids->domain, texts[i], &ids->strings[i]));
    ids->scopes[0] = NVTX_SCOPE_NONE;
    ids->scopes[1] = NVTX_SCOPE_ROOT;
    OK(nvtxwScopeRegister(T, ids->domain, "/node[n0]/process[7]", &ids->scopes[2]));
    OK(nvtxwScopeRegister(T, ids->domain, "/node[n0]/process[7]/task[42]", &ids->scopes[3]));
    ids->scopes[4] = 987654321; /* not registered: the event is refused */
    for (i = 0; i < 3; i++) {
        nvtxPayloadSchemaEntry_t entry;
        memset(&entry, 0, sizeof entry);
        entry.flags = NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_ZERO_TERMINATED | message_flags[i];
        entry.type = NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF8;
        entry.name = i == 1 ? "note" : "message";
        ids->message_schemas[i] =
            register_schema(ids->domain, i == 0 ? "" : "text", NVTX_PAYLOAD_SCHEMA_TYPE_DYNAMIC, 0,
                            &entry, 1, 0, &ok);
        ck_assert_msg(ok, "message schema %d: %s", i, nvtxw_last_error());
    }
    for (i = 0; i < SCHEMAS; i++) {
        schema_spec* s = &ids->schemas[i];
        uint64_t r = 1000 + (uint64_t)i;
        make_schema(s, 1000 + (uint64_t)i, ids->enum_id, i % 2 == 0);
        snprintf(name, sizeof name, i % 3 == 0 ? "" : "schema %d", i);
        s->id = register_schema(ids->domain, name, NVTX_PAYLOAD_SCHEMA_TYPE_STATIC,
                                roles[pick(&r, ROLES)], s->entries, s->count, s->size, &ok);
        s->registered = ok;
    }
}

/* A value of `size` bytes for field `e`: timestamps in a range that
 * overlaps (and sometimes goes below 0), handles of the session, else
 * anything with a bias to small numbers and 0. */
static void put_value(const session_ids* ids, const nvtxPayloadSchemaEntry_t* e, int is_enum,
                      uint8_t* at, size_t size, uint64_t* r) {
    uint64_t v = next_random(r);
    if (e->type == NVTX_PAYLOAD_ENTRY_TYPE_NVTX_REGISTERED_STRING_HANDLE) {
        uint64_t k = pick(r, STRINGS + 1);
        v = k == STRINGS ? 0 : (uint64_t)(uintptr_t)ids->strings[k];
    } else if (e->type == NVTX_PAYLOAD_ENTRY_TYPE_SCOPE_ID) {
        v = ids->scopes[pick(r, pick(r, 8) == 0 ? SCOPES : SCOPES - 1)];
    } else if (e->flags & NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP) {
        v = (uint64_t)(int64_t)(pick(r, 2000000) - 1000);
    } else if (is_enum) {
        v = pick(r, 9);
    } else if (pick(r, 3) == 0) {
        v = pick(r, 4);
    } else if (pick(r, 2) == 0) {
        v = pick(r, 1000);
    }
    if (e->type == NVTX_PAYLOAD_ENTRY_TYPE_FLOAT || e->type == NVTX_PAYLOAD_ENTRY_TYPE_FLOAT32) {
        float f = (float)(int64_t)v / 7.0f;
        memcpy(at, &f, sizeof f);
    } else if (e->type == NVTX_PAYLOAD_ENTRY_TYPE_DOUBLE ||
               e->type == NVTX_PAYLOAD_ENTRY_TYPE_FLOAT64) {
        double d = (double)(int64_t)v / 3.0;
        memcpy(at, &d, sizeof d);
    } else {
        memcpy(at, &v, size); /* little-endian: the low bytes */
    }
}

typedef struct event_data {
    uint8_t bytes[FIELDS_MAX * (4 * 8 + 8) + 8]; /* values, arrays of 4, padding */
    char message[64];
    nvtxPayloadData_t payloads[3];
    size_t count;
} event_data;

/* Event `n` of a session: the same choices for both (seeded by n). */
static void make_event(const session_ids* ids, uint64_t n, event_data* ev) {
    uint64_t r = n * 7919 + 17;
    const schema_spec* s = &ids->schemas[pick(&r, SCHEMAS)];
    size_t i, k;
    memset(ev, 0, sizeof *ev);
    ev->count = 0;
    if (!s->registered)
        return;
    for (i = 0; i < s->count; i++) {
        const nvtxPayloadSchemaEntry_t* e = &s->entries[i];
        size_t size = s->is_enum[i] ? 4 : nvtxw_entry_type_size(e->type);
        size_t elements = e->arrayOrUnionDetail > 0 ? e->arrayOrUnionDetail : 1;
        for (k = 0; k < elements; k++)
            put_value(ids, e, s->is_enum[i], ev->bytes + e->offset + k * size, size, &r);
    }
    ev->payloads[0].schemaId = s->id;
    ev->payloads[0].size = s->size;
    ev->payloads[0].payload = ev->bytes;
    ev->count = 1;
    if (pick(&r, 3) == 0) {
        const char* text = messages[pick(&r, MESSAGES)];
        size_t length = strlen(text);
        int with_nul = pick(&r, 4) != 0;
        memcpy(ev->message, text, length);
        ev->payloads[1].schemaId = ids->message_schemas[pick(&r, 3)];
        ev->payloads[1].size = length + (with_nul || length == 0 ? 1 : 0);
        ev->payloads[1].payload = ev->message;
        ev->count = 2;
    }
}

/* Writes the session's events; with `referenced`, each with one more
 * payload of REFERENCED bytes. Returns how many were accepted. */
static long write_events(const session_ids* ids, nvtxwStreamHandle_t stream, int referenced) {
    static const uint64_t spare = 0;
    event_data ev;
    long accepted = 0;
    uint64_t n;
    for (n = 0; n < EVENTS; n++) {
        make_event(ids, n, &ev);
        if (ev.count == 0)
            continue;
        if (referenced) {
            ev.payloads[ev.count].schemaId = NVTX_TYPE_PAYLOAD_SCHEMA_REFERENCED;
            ev.payloads[ev.count].size = sizeof spare;
            ev.payloads[ev.count].payload = &spare;
            ev.count++;
        }
        accepted += T->EventWrite(stream, ev.payloads, ev.count) == NVTXW_RESULT_SUCCESS;
    }
    return accepted;
}

/* The sum of N over the debug log's lines "...: N events read directly". */
static long direct_count(const char* text) {
    long sum = 0;
    const char* line = text;
    while (*line != '\0') {
        const char* end = strchr(line, '\n');
        const char* found = strstr(line, " read directly");
        size_t length = end != NULL ? (size_t)(end - line) : strlen(line);
        if (found != NULL && (size_t)(found - line) < length) {
            const char* number = found;
            while (number > line && number[-1] != ':')
                number--;
            sum += strtol(number, NULL, 10);
        }
        line += length + (end != NULL);
    }
    return sum;
}

/* One session into `file`; its stderr (the debug log) into *log. */
static long run_session(const char* file, int referenced, char** log) {
    char path[PATH_MAX + 64], log_path[PATH_MAX + 64];
    session_ids* ids = calloc(1, sizeof *ids);
    nvtxwSessionHandle_t session;
    nvtxwStreamHandle_t stream;
    nvtxwStreamAttributes_t sattr;
    int saved, fd;
    long accepted;
    size_t size;
    ck_assert_ptr_nonnull(ids);
    snprintf(log_path, sizeof log_path, "%s/%s.log", dir, file);
    fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ck_assert_int_ge(fd, 0);
    saved = dup(2);
    ck_assert_int_ge(saved, 0);
    ck_assert_int_eq(dup2(fd, 2), 2);
    close(fd);
    snprintf(path, sizeof path, "Sink=perfetto|Output=%s/%s", dir, file);
    session = tu_session_or_fail(T, "direct", path);
    register_all(ids, session);
    nvtxwStreamAttributesInit(&sattr);
    sattr.name = "main";
    sattr.domain = ids->domain;
    OK(T->StreamOpen(session, &sattr, &stream));
    accepted = write_events(ids, stream, referenced);
    OK(T->SessionEnd(session));
    ck_assert_int_eq(dup2(saved, 2), 2);
    close(saved);
    *log = tu_read_file_or_fail(log_path, &size);
    free(ids);
    return accepted;
}

START_TEST(direct_equals_visitor) {
    char pa[PATH_MAX + 16], pb[PATH_MAX + 16];
    char *log_a, *log_b, *a, *b;
    size_t size_a, size_b, at;
    long accepted_a = run_session("a.pftrace", 0, &log_a);
    long accepted_b = run_session("b.pftrace", 1, &log_b);
    long direct_a = direct_count(log_a), direct_b = direct_count(log_b);
    ck_assert_int_eq(accepted_a, accepted_b);
    ck_assert_int_gt(accepted_a, EVENTS / 4);
    snprintf(pa, sizeof pa, "%s/a.pftrace", dir);
    snprintf(pb, sizeof pb, "%s/b.pftrace", dir);
    a = tu_read_file_or_fail(pa, &size_a);
    b = tu_read_file_or_fail(pb, &size_b);
    for (at = 0; at < size_a && at < size_b && a[at] == b[at]; at++)
        ;
    ck_assert_msg(size_a == size_b && at == size_a,
                  "direct and walked outputs differ at byte %zu (sizes %zu, %zu)", at, size_a,
                  size_b);
    /* the comparison means something only if A took the direct path */
    ck_assert_msg(direct_a >= accepted_a / 3, "only %ld of %ld events read directly: %s", direct_a,
                  accepted_a, log_a);
    ck_assert_int_eq(direct_b, 0);
    printf("%ld of %ld events read directly, the same %zu bytes as walked\n", direct_a, accepted_a,
           size_a);
    free(a);
    free(b);
    free(log_a);
    free(log_b);
}
END_TEST

int main(void) {
    Suite* s = suite_create("perfetto_direct");
    TCase* tc = tcase_create("core");
    SRunner* r;
    int failed;
    setenv("NVTXW_LOG_LEVEL", "debug", 1); /* the count of direct events */
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, direct_equals_visitor);
    suite_add_tcase(s, tc);
    r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
