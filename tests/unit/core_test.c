/*
 * tests/unit/core_test.c - the writer core through the NVTXW v2 table:
 * backend conformance items 28-46 of the ABI spec (section 8), the config
 * string, ID rules, register-before-use, handle robustness and the faulty
 * session, observed through result codes, nvtxw_last_error() and the exact
 * lines of the text sink (grammar at the top of libnvtxw/sink/text/text_sink.c).
 *
 * Every test runs against a fresh temporary directory; the text sink writes
 * DIR/out.txt. IDs and handles are taken from the calls, never assumed, so
 * the tests also pass with CK_FORK=no.
 */
#define _GNU_SOURCE
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#ifdef __GLIBC__
#endif
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nvtxw/abi.h"
#include "nvtxw/backend.h"
#include "nvtxw/error.h"
#include "nvtxw/extension.h"
#include "nvtxw/payload.h"
#include "nvtxw/resource.h"
#include "test_util.h"

#define STATIC_START NVTX_PAYLOAD_SCHEMA_ID_STATIC_START
#define DYNAMIC_START NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START
#define SCHEMA_MASK                                                                                \
    (NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_FLAGS |                  \
     NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES |         \
     NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_STATIC_SIZE)
#define ENUM_MASK                                                                                  \
    (NVTX_PAYLOAD_ENUM_ATTR_FIELD_ENTRIES | NVTX_PAYLOAD_ENUM_ATTR_FIELD_NUM_ENTRIES |             \
     NVTX_PAYLOAD_ENUM_ATTR_FIELD_SIZE)
#define TS_MARK (NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP | NVTX_PAYLOAD_ENTRY_FLAG_MARK)

/* The call must fail with `code` and a message containing `text`. */
#define ck_assert_fails(expr, code, text)                                                          \
    do {                                                                                           \
        nvtxwResultCode_t rc_ = (expr);                                                            \
        ck_assert_msg(rc_ == (code), "%s returned %d, expected %d (message: %s)", #expr, rc_,      \
                      (code), nvtxw_last_error());                                                 \
        ck_assert_msg(strstr(nvtxw_last_error(), (text)) != NULL,                                  \
                      "%s: message \"%s\" lacks \"%s\"", #expr, nvtxw_last_error(), (text));       \
    } while (0)
#define ck_assert_ok(expr)                                                                         \
    do {                                                                                           \
        nvtxwResultCode_t rc_ = (expr);                                                            \
        ck_assert_msg(rc_ == NVTXW_RESULT_SUCCESS, "%s returned %d: %s", #expr, rc_,               \
                      nvtxw_last_error());                                                         \
    } while (0)

static const nvtxwInterface_t* T;
static char dir[PATH_MAX];
static char out_path[PATH_MAX + 16];
static char expected[16384];

/* ---- Fixture and file helpers ------------------------------------------------ */

static void setup(void) {
    tu_make_temp_dir_or_fail(dir, sizeof dir, "nvtxw-core");
    snprintf(out_path, sizeof out_path, "%s/out.txt", dir);
    T = tu_get_interface_or_fail();
    expected[0] = '\0';
}

static void teardown(void) { tu_remove_tree(dir); }

static void write_file(const char* path, const char* text) {
    FILE* f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

/* Appends one expected line (a newline is added). */
static void expect(const char* format, ...) {
    size_t used = strlen(expected);
    va_list args;
    va_start(args, format);
    vsnprintf(expected + used, sizeof expected - used, format, args);
    va_end(args);
    used = strlen(expected);
    ck_assert_uint_lt(used + 1, sizeof expected);
    expected[used] = '\n';
    expected[used + 1] = '\0';
}

/* Non-zero when `line` is a whole line of `text`. */
static int has_line(const char* text, const char* line) {
    size_t n = strlen(line);
    const char* p = text;
    while ((p = strstr(p, line)) != NULL) {
        if ((p == text || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0'))
            return 1;
        p += n;
    }
    return 0;
}

/* ---- Session, domain and stream helpers -------------------------------------- */

static nvtxwResultCode_t begin(const char* name, const char* config, nvtxwSessionHandle_t* out) {
    nvtxwSessionAttributes_t attr;
    memset(&attr, 0, sizeof attr);
    attr.structSize = sizeof attr;
    attr.name = name;
    attr.configString = config;
    return T->SessionBegin(&attr, out);
}

static nvtxwSessionHandle_t text_session(const char* name) {
    return tu_text_session_or_fail(T, name, out_path, NULL);
}

static nvtxwSessionHandle_t null_session(void) {
    nvtxwSessionHandle_t s = NULL;
    ck_assert_ok(begin("null", "Sink=null", &s));
    return s;
}

/* Ends the session and returns the text output (caller frees). */
static char* end_and_read(nvtxwSessionHandle_t s) {
    char* text;
    ck_assert_ok(T->SessionEnd(s));
    text = tu_read_file_or_null(out_path, NULL);
    ck_assert_ptr_nonnull(text);
    return text;
}

static void ck_assert_output(nvtxwSessionHandle_t s) {
    char* text = end_and_read(s);
    ck_assert_str_eq(text, expected);
    free(text);
}

static nvtxDomainHandle_t domain(nvtxwSessionHandle_t s, const char* name) {
    nvtxwDomainAttributes_t attr = {sizeof attr, name};
    nvtxDomainHandle_t d = NULL;
    ck_assert_ok(T->DomainRegister(s, &attr, &d));
    ck_assert_ptr_nonnull(d);
    return d;
}

static nvtxwStreamAttributes_t stream_attr(const char* name, nvtxDomainHandle_t d) {
    nvtxwStreamAttributes_t attr;
    memset(&attr, 0, sizeof attr);
    attr.structSize = sizeof attr;
    attr.name = name;
    attr.domain = d;
    return attr;
}

static nvtxwStreamHandle_t stream(nvtxwSessionHandle_t s, const char* name, nvtxDomainHandle_t d) {
    nvtxwStreamAttributes_t attr = stream_attr(name, d);
    nvtxwStreamHandle_t st = NULL;
    ck_assert_ok(T->StreamOpen(s, &attr, &st));
    ck_assert_ptr_nonnull(st);
    return st;
}

static nvtxwResultCode_t open_with(nvtxwSessionHandle_t s, nvtxDomainHandle_t d, uint64_t scope,
                                   uint64_t time_domain, const char* name) {
    nvtxwStreamAttributes_t attr = stream_attr(name, d);
    nvtxwStreamHandle_t st = NULL;
    attr.scopeId = scope;
    attr.timeDomainId = time_domain;
    return T->StreamOpen(s, &attr, &st);
}

/* ---- Registration helpers ------------------------------------------------------ */

static nvtxPayloadSchemaAttr_t schema_attr(const char* name, uint64_t type, uint64_t flags,
                                           const nvtxPayloadSchemaEntry_t* entries, size_t n,
                                           size_t size) {
    nvtxPayloadSchemaAttr_t a;
    memset(&a, 0, sizeof a);
    a.fieldMask = SCHEMA_MASK | (name ? NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NAME : 0);
    a.name = name;
    a.type = type;
    a.flags = flags;
    a.entries = entries;
    a.numEntries = n;
    a.payloadStaticSize = size;
    return a;
}

/* struct point { int64_t ts; int32_t value; }: a mark with a value. */
typedef struct point {
    int64_t ts;
    int32_t value;
    int32_t pad;
} point;
static const nvtxPayloadSchemaEntry_t point_entries[] = {
    {TS_MARK, NVTX_PAYLOAD_ENTRY_TYPE_INT64, "ts", NULL, 0, 0, NULL, NULL},
    {0, NVTX_PAYLOAD_ENTRY_TYPE_INT32, "value", NULL, 0, 8, NULL, NULL},
};
/* One registered-string message, one scope: register-before-use checks. */
static const nvtxPayloadSchemaEntry_t regmsg_entries[] = {
    {NVTX_PAYLOAD_ENTRY_FLAG_EVENT_MESSAGE, NVTX_PAYLOAD_ENTRY_TYPE_NVTX_REGISTERED_STRING_HANDLE,
     "message", NULL, 0, 0, NULL, NULL},
};
static const nvtxPayloadSchemaEntry_t int_entry[] = {
    {0, NVTX_PAYLOAD_ENTRY_TYPE_INT32, "v", NULL, 0, 0, NULL, NULL},
};
static const nvtxPayloadSchemaEntry_t scoped_entries[] = {
    {0, NVTX_PAYLOAD_ENTRY_TYPE_SCOPE_ID, "scope", NULL, 0, 0, NULL, NULL},
};

static uint64_t point_schema(nvtxDomainHandle_t d) {
    nvtxPayloadSchemaAttr_t a = schema_attr("point", NVTX_PAYLOAD_SCHEMA_TYPE_STATIC,
                                            NVTX_PAYLOAD_SCHEMA_FLAG_MARK, point_entries, 2, 16);
    uint64_t id = 0;
    ck_assert_ok(T->SchemaRegister(d, &a, &id));
    return id;
}

static uint64_t simple_schema(nvtxDomainHandle_t d, const char* name,
                              const nvtxPayloadSchemaEntry_t* entry) {
    nvtxPayloadSchemaAttr_t a = schema_attr(name, NVTX_PAYLOAD_SCHEMA_TYPE_STATIC, 0, entry, 1, 8);
    uint64_t id = 0;
    ck_assert_ok(T->SchemaRegister(d, &a, &id));
    return id;
}

static nvtxwResultCode_t static_schema(nvtxDomainHandle_t d, uint64_t id, uint64_t* out) {
    nvtxPayloadSchemaAttr_t a =
        schema_attr(NULL, NVTX_PAYLOAD_SCHEMA_TYPE_STATIC, 0, int_entry, 1, 4);
    a.fieldMask |= NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_SCHEMA_ID;
    a.schemaId = id;
    return T->SchemaRegister(d, &a, out);
}

static const nvtxPayloadEnum_t colors[] = {{"RED", 1, 0}, {"GREEN", 2, 0}};

static nvtxwResultCode_t enum_with_id(nvtxDomainHandle_t d, uint64_t id, uint64_t* out) {
    nvtxPayloadEnumAttr_t a;
    memset(&a, 0, sizeof a);
    a.fieldMask = ENUM_MASK | (id ? NVTX_PAYLOAD_ENUM_ATTR_FIELD_SCHEMA_ID : 0);
    a.entries = colors;
    a.numEntries = 2;
    a.sizeOfEnum = 4;
    a.schemaId = id;
    return T->EnumRegister(d, &a, out);
}

static nvtxwResultCode_t scope_with(nvtxDomainHandle_t d, const char* path, uint64_t parent,
                                    uint64_t id, uint64_t* out) {
    nvtxScopeAttr_t a = {sizeof a, path, parent, id};
    return T->ScopeRegister(d, &a, out);
}

static uint64_t scope(nvtxDomainHandle_t d, const char* path) {
    uint64_t id = 0;
    ck_assert_ok(scope_with(d, path, NVTX_SCOPE_ROOT, NVTX_SCOPE_NONE, &id));
    return id;
}

static nvtxwResultCode_t counter_with(nvtxDomainHandle_t d, uint64_t schema, uint64_t scope_id,
                                      uint64_t id, uint64_t* out) {
    nvtxCounterAttr_t a;
    memset(&a, 0, sizeof a);
    a.structSize = sizeof a;
    a.schemaId = schema;
    a.name = "bytes";
    a.scopeId = scope_id;
    a.counterId = id;
    return T->CounterRegister(d, &a, out);
}

static nvtxwResultCode_t time_domain_with(nvtxDomainHandle_t d, uint64_t id, uint64_t* out) {
    nvtxTimeDomainAttr_t a;
    memset(&a, 0, sizeof a);
    a.timestampTypeId = NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_MONOTONIC;
    a.timeDomainId = id;
    a.timerResolution = 1000000000;
    return T->TimeDomainRegister(d, &a, out);
}

static nvtxwResultCode_t write_point(nvtxwStreamHandle_t st, uint64_t schema, int64_t ts,
                                     int32_t value) {
    point p = {ts, value, 0};
    nvtxPayloadData_t payload = {schema, sizeof p, &p};
    return T->EventWrite(st, &payload, 1);
}

/* ==== Interface (conformance 28, 29) ============================================= */

START_TEST(get_interface_v2) {
    const nvtxwInterface_t* t = NULL;
    ck_assert_int_eq(nvtxwGetInterface(2, (const void**)&t), NVTXW_RESULT_SUCCESS);
    ck_assert_ptr_nonnull(t);
    ck_assert_ptr_nonnull(t->SessionBegin);
    ck_assert_ptr_nonnull(t->SessionEnd);
    ck_assert_ptr_nonnull(t->DomainRegister);
    ck_assert_ptr_nonnull(t->CategoryRegister);
    ck_assert_ptr_nonnull(t->StringRegister);
    ck_assert_ptr_nonnull(t->ResourceRegister);
    ck_assert_ptr_nonnull(t->ScopeRegister);
    ck_assert_ptr_nonnull(t->SchemaRegister);
    ck_assert_ptr_nonnull(t->EnumRegister);
    ck_assert_ptr_nonnull(t->CounterRegister);
    ck_assert_ptr_nonnull(t->TimeDomainRegister);
    ck_assert_ptr_nonnull(t->StreamOpen);
    ck_assert_ptr_nonnull(t->StreamClose);
    ck_assert_ptr_nonnull(t->EventWrite);
    ck_assert_ptr_nonnull(t->EventBatchWrite);
    ck_assert_ptr_nonnull(t->CounterWrite);
    ck_assert_ptr_nonnull(t->CounterNoValueWrite);
    ck_assert_ptr_nonnull(t->CounterBatchWrite);
    ck_assert_ptr_nonnull(t->TimeSyncPointWrite);
    ck_assert_ptr_nonnull(t->TimeSyncPointTableWrite);
    ck_assert_ptr_nonnull(t->TimestampConversionFactorWrite);
}
END_TEST

START_TEST(get_interface_reserved_null) {
    size_t i;
    for (i = 0; i < 43; i++)
        ck_assert_msg(T->reserved[i] == NULL, "reserved[%zu] is not NULL", i);
}
END_TEST

START_TEST(get_interface_other_versions) {
    static const nvtxwInterfaceVersion_t versions[] = {0, 1, 3, 0x7fffffff, -1};
    const void* table = NULL;
    int sentinel;
    size_t i;
    for (i = 0; i < sizeof versions / sizeof versions[0]; i++) {
        const void* p = NULL;
        ck_assert_fails(nvtxwGetInterface(versions[i], &p),
                        NVTXW_RESULT_INTERFACE_VERSION_NOT_SUPPORTED, "is not supported");
        ck_assert_ptr_null(p);
        p = &sentinel; /* a failing call must not write a table pointer */
        ck_assert_int_eq(nvtxwGetInterface(versions[i], &p),
                         NVTXW_RESULT_INTERFACE_VERSION_NOT_SUPPORTED);
        ck_assert_ptr_eq(p, &sentinel);
    }
    ck_assert_fails(nvtxwGetInterface(3, &table), NVTXW_RESULT_INTERFACE_VERSION_NOT_SUPPORTED,
                    "version 3");
}
END_TEST

START_TEST(get_interface_null_out) {
    ck_assert_fails(nvtxwGetInterface(2, NULL), NVTXW_RESULT_INVALID_ARGUMENT, "ifaceOut");
    ck_assert_fails(nvtxwGetInterface(0x7fffffff, NULL), NVTXW_RESULT_INVALID_ARGUMENT, "ifaceOut");
}
END_TEST

START_TEST(finalize_repeatedly) {
    const void* p = NULL;
    nvtxwFinalize();
    nvtxwFinalize();
    ck_assert_int_eq(nvtxwGetInterface(2, &p), NVTXW_RESULT_SUCCESS);
    ck_assert_ptr_eq(p, T);
    ck_assert_ok(T->SessionEnd(null_session()));
    nvtxwFinalize();
    nvtxwFinalize();
    ck_assert_ok(T->SessionEnd(null_session()));
    nvtxwFinalize();
}
END_TEST

/* nvtxwFinalize while a session lives must leave every handle working. */
START_TEST(finalize_with_live_session) {
    nvtxwSessionHandle_t s = text_session("live");
    nvtxDomainHandle_t d = domain(s, "d");
    uint64_t schema = point_schema(d);
    nvtxwStreamHandle_t st = stream(s, "s", d);
    nvtxwFinalize();
    ck_assert_ok(write_point(st, schema, 1, 2));
    ck_assert_ok(T->StreamClose(st));
    nvtxwFinalize();
    ck_assert_ok(scope_with(d, "x", NVTX_SCOPE_ROOT, STATIC_START, NULL));
    ck_assert_ok(T->SessionEnd(s));
    nvtxwFinalize();
    ck_assert_fails(T->SessionEnd(s), NVTXW_RESULT_INVALID_ARGUMENT, "not an open session");
}
END_TEST

/* Handles are generational so a stale value never reaches a newer object,
 * also across nvtxwFinalize (which frees the handle tables). */
START_TEST(finalize_stale_handle_stays_stale) {
    nvtxwSessionHandle_t old = null_session(), fresh;
    ck_assert_ok(T->SessionEnd(old));
    nvtxwFinalize();
    fresh = null_session();
    ck_assert_fails(T->SessionEnd(old), NVTXW_RESULT_INVALID_ARGUMENT, "not an open session");
    ck_assert_ok(T->SessionEnd(fresh));
}
END_TEST

/* ==== Sessions and config (conformance 30) ======================================= */

START_TEST(session_begin_null_arguments) {
    nvtxwSessionAttributes_t attr = {sizeof attr, "s", "Sink=null"};
    nvtxwSessionHandle_t s = NULL;
    ck_assert_fails(T->SessionBegin(NULL, &s), NVTXW_RESULT_INVALID_ARGUMENT, "attr is NULL");
    ck_assert_ptr_null(s);
    ck_assert_fails(T->SessionBegin(&attr, NULL), NVTXW_RESULT_INVALID_ARGUMENT,
                    "sessionOut is NULL");
}
END_TEST

START_TEST(session_struct_size) {
    struct {
        nvtxwSessionAttributes_t attr;
        char future[40];
    } big;
    nvtxwSessionHandle_t s = NULL;
    memset(&big, 0xA5, sizeof big); /* the unknown tail is garbage: must be ignored */
    big.attr.structSize = sizeof big;
    big.attr.name = "big";
    big.attr.configString = "Sink=null";
    ck_assert_ok(T->SessionBegin(&big.attr, &s));
    ck_assert_ok(T->SessionEnd(s));
    big.attr.structSize = 16;
    s = NULL;
    ck_assert_fails(T->SessionBegin(&big.attr, &s), NVTXW_RESULT_INVALID_ARGUMENT, "structSize=16");
    ck_assert_ptr_null(s);
}
END_TEST

START_TEST(session_unknown_sink) {
    nvtxwSessionHandle_t s = NULL;
    ck_assert_fails(begin("s", "Sink=bogus", &s), NVTXW_RESULT_INVALID_ARGUMENT,
                    "unknown Sink=\"bogus\"");
    ck_assert_ptr_null(s);
    /* every sink is offered, and lines separated as in a shell are explained */
    ck_assert_fails(begin("s", "Sink=bogus", &s), NVTXW_RESULT_INVALID_ARGUMENT,
                    "(report, text, null, stats, json, backend, sqlite, capture or perfetto)");
    ck_assert_ptr_null(strstr(nvtxw_last_error(), "separated"));
    ck_assert_fails(begin("s", "Sink=report;Output=x.nvtxw", &s), NVTXW_RESULT_INVALID_ARGUMENT,
                    "configuration lines are separated by '|' or newlines");
    ck_assert_fails(begin("s", "Sink=null|Overwrite=maybe", &s), NVTXW_RESULT_INVALID_ARGUMENT,
                    "Overwrite=\"maybe\" is not yes/no/true/false/1/0 or in-place");
    ck_assert_ptr_null(s);
}
END_TEST

START_TEST(session_bad_compression) {
    nvtxwSessionHandle_t s = NULL;
    ck_assert_fails(begin("s", "Sink=null|Compression=23", &s), NVTXW_RESULT_INVALID_ARGUMENT,
                    "Compression=\"23\"");
    ck_assert_fails(begin("s", "Sink=null|Compression=fast", &s), NVTXW_RESULT_INVALID_ARGUMENT,
                    "Compression=\"fast\"");
    ck_assert_fails(begin("s", "Sink=null|Compression=3x", &s), NVTXW_RESULT_INVALID_ARGUMENT,
                    "Compression=\"3x\"");
    ck_assert_ptr_null(s);
    ck_assert_ok(begin("s", "Sink=null|Compression=-7", &s));
    ck_assert_ok(T->SessionEnd(s));
    ck_assert_ok(begin("s", "Sink=null|Compression=22", &s));
    ck_assert_ok(T->SessionEnd(s));
}
END_TEST

START_TEST(session_bad_compression_threads) {
    nvtxwSessionHandle_t s = NULL;
    static const char* const bad[] = {"-1", "65", "two", "1x"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char config[64], quoted[64];
        snprintf(config, sizeof config, "Sink=null|CompressionThreads=%s", bad[i]);
        snprintf(quoted, sizeof quoted, "CompressionThreads=\"%s\" is not a number", bad[i]);
        ck_assert_fails(begin("s", config, &s), NVTXW_RESULT_INVALID_ARGUMENT, quoted);
        ck_assert_ptr_null(s);
    }
    ck_assert_ok(begin("s", "Sink=null|CompressionThreads=0", &s));
    ck_assert_ok(T->SessionEnd(s));
    ck_assert_ok(begin("s", "Sink=null|CompressionThreads=64", &s));
    ck_assert_ok(T->SessionEnd(s));
}
END_TEST

START_TEST(session_bad_overwrite) {
    nvtxwSessionHandle_t s = NULL;
    ck_assert_fails(begin("s", "Sink=null|Overwrite=maybe", &s), NVTXW_RESULT_INVALID_ARGUMENT,
                    "Overwrite=\"maybe\"");
    ck_assert_ptr_null(s);
}
END_TEST

START_TEST(session_first_key_wins) {
    char config[PATH_MAX + 96];
    nvtxwSessionHandle_t s = NULL;
    snprintf(config, sizeof config, "Sink=null|Sink=text|Output=%s", out_path);
    ck_assert_ok(begin("s", config, &s));
    ck_assert_ok(T->SessionEnd(s));
    ck_assert_int_ne(access(out_path, F_OK), 0); /* the null sink writes nothing */
    snprintf(config, sizeof config,
             "Sink=text\nCompression=5\nOutput=%s\nSink=null\nCompression=99", out_path);
    ck_assert_ok(begin("second", config, &s));
    expect("session \"second\"");
    expect("session_end");
    ck_assert_output(s);
}
END_TEST

START_TEST(session_text_output_minimal) {
    nvtxwSessionAttributes_t attr = {sizeof attr, NULL, NULL};
    char config[PATH_MAX + 96];
    nvtxwSessionHandle_t s = NULL;
    snprintf(config, sizeof config, "Sink=text|Output=%s", out_path);
    attr.configString = config;
    ck_assert_ok(T->SessionBegin(&attr, &s));
    expect("session \"\""); /* NULL name */
    expect("session_end");
    ck_assert_output(s);
}
END_TEST

START_TEST(session_output_unwritable) {
    char config[2 * PATH_MAX + 64], file[PATH_MAX + 16];
    nvtxwSessionHandle_t s = NULL;
    snprintf(config, sizeof config, "Sink=text|Output=%s/missing/out.txt", dir);
    ck_assert_fails(begin("s", config, &s), NVTXW_RESULT_FAILED, "/missing/out.txt");
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), strerror(ENOENT)));
    ck_assert_ptr_null(s);
    /* Running as root defeats permission bits, so use a file as directory. */
    snprintf(file, sizeof file, "%s/plain", dir);
    write_file(file, "x");
    snprintf(config, sizeof config, "Sink=text|Output=%s/out.txt", file);
    ck_assert_fails(begin("s", config, &s), NVTXW_RESULT_FAILED, "plain/out.txt");
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), strerror(ENOTDIR)));
    ck_assert_ptr_null(s);
}
END_TEST

START_TEST(session_output_exists) {
    char config[PATH_MAX + 96];
    nvtxwSessionHandle_t s = NULL;
    char* text;
    write_file(out_path, "precious\n");
    snprintf(config, sizeof config, "Sink=text|Output=%s|Overwrite=no", out_path);
    ck_assert_fails(begin("s", config, &s), NVTXW_RESULT_FAILED, out_path);
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), strerror(EEXIST)));
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "Overwrite=yes"));
    text = tu_read_file_or_null(out_path, NULL);
    ck_assert_str_eq(text, "precious\n");
    free(text);
    snprintf(config, sizeof config, "Sink=text|Output=%s|Overwrite=false", out_path);
    ck_assert_fails(begin("s", config, &s), NVTXW_RESULT_FAILED, out_path);
    snprintf(config, sizeof config, "Sink=text|Output=%s", out_path); /* default: replace */
    ck_assert_ok(begin("s", config, &s));
    expect("session \"s\"");
    expect("session_end");
    ck_assert_output(s);
}
END_TEST

/* Names in `dir` other than "out.txt" (the fixture's text output), joined
 * by ' ' into buf; returns how many. */
static int dir_names(char* buf, size_t size, const char* ignore) {
    DIR* d = opendir(dir);
    struct dirent* e;
    int count = 0;
    buf[0] = '\0';
    ck_assert_ptr_nonnull(d);
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, ignore))
            continue;
        snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", count ? " " : "", e->d_name);
        count++;
    }
    closedir(d);
    return count;
}

/* Whether `name` is "<base>.tmp-" and six letters or digits. */
static int is_temporary_of(const char* name, const char* base) {
    size_t n = strlen(base), k;
    if (strncmp(name, base, n) != 0 || strncmp(name + n, ".tmp-", 5) != 0 || strlen(name) != n + 11)
        return 0;
    for (k = n + 5; k < n + 11; k++)
        if (!(name[k] >= '0' && name[k] <= '9') && !(name[k] >= 'a' && name[k] <= 'z') &&
            !(name[k] >= 'A' && name[k] <= 'Z'))
            return 0;
    return 1;
}

/* An output that exists and is not a regular file (a FIFO here; a device
 * such as /dev/null as well) is written itself, whatever Overwrite says,
 * and stays what it is: never renamed over, never removed, also when the
 * session fails (the report sink cannot seek on a FIFO). Run as root, the
 * old behaviour replaced /dev/null with a file. */
START_TEST(session_output_special_files) {
    static const char* const sinks[] = {"json", "report", "text"};
    for (size_t i = 0; i < sizeof sinks / sizeof sinks[0]; i++) {
        char path[PATH_MAX + 32], config[PATH_MAX + 96], names[1024], data[8192];
        nvtxwSessionHandle_t s = NULL;
        struct stat st;
        nvtxwResultCode_t rc;
        ssize_t got;
        int fd;
        snprintf(path, sizeof path, "%s/out.fifo", dir);
        ck_assert_int_eq(mkfifo(path, 0600), 0);
        /* the read end, open first: the sink's open does not wait, and the
         * output (a few KiB) fits in the pipe */
        fd = open(path, O_RDONLY | O_NONBLOCK);
        ck_assert_int_ge(fd, 0);
        snprintf(config, sizeof config, "Sink=%s|Output=%s", sinks[i], path);
        rc = begin("fifo", config, &s);
        if (rc == NVTXW_RESULT_SUCCESS)
            rc = T->SessionEnd(s);
        got = read(fd, data, sizeof data);
        close(fd);
        ck_assert_int_eq(lstat(path, &st), 0);
        ck_assert_msg(S_ISFIFO(st.st_mode), "%s: the FIFO became mode %o", sinks[i],
                      (unsigned)st.st_mode);
        ck_assert_int_eq(dir_names(names, sizeof names, "out.txt"), 1);
        ck_assert_msg(strcmp(names, "out.fifo") == 0, "%s: %s", sinks[i], names);
        if (strcmp(sinks[i], "report") == 0) { /* a report needs a file it can seek in */
            ck_assert_int_ne(rc, NVTXW_RESULT_SUCCESS);
            ck_assert_msg(strstr(nvtxw_last_error(), path) != NULL, "%s", nvtxw_last_error());
        } else {
            ck_assert_msg(rc == NVTXW_RESULT_SUCCESS, "%s: %s", sinks[i], nvtxw_last_error());
            ck_assert_msg(got > 0, "%s: nothing came through the FIFO", sinks[i]);
        }
        ck_assert_int_eq(unlink(path), 0);
    }
}
END_TEST

/* Every file sink writes one file: with Overwrite=yes (the default) a
 * temporary "OUT.tmp-XXXXXX" beside OUT, created as OUT would be (mode
 * 0666 & ~umask), renamed at SessionEnd; with Overwrite=in-place OUT itself,
 * truncated, and no other name ever (the tools hand the sinks their own
 * temporary file so). */
START_TEST(session_output_files) {
    static const char* const sinks[][2] = {
        {"report", "r.nvtxw"},  {"json", "j.json"}, {"perfetto", "p.pftrace"}, {"stats", "s.txt"},
        {"sqlite", "q.sqlite"}, {"text", "t.txt"},  {"capture", "c.jsonl"}};
    mode_t mask = umask(022);
    for (size_t i = 0; i < sizeof sinks / sizeof sinks[0]; i++) {
        const char* sink = sinks[i][0];
        const char* base = sinks[i][1];
        int streamed = !strcmp(sink, "text") || !strcmp(sink, "capture");
        char path[PATH_MAX + 32], config[PATH_MAX + 96], names[1024];
        nvtxwSessionHandle_t s = NULL;
        struct stat st;
        size_t size = 0;
        char* text;
        snprintf(path, sizeof path, "%s/%s", dir, base);
        /* Overwrite=yes: the temporary name while the session runs */
        snprintf(config, sizeof config, "Sink=%s|Output=%s", sink, path);
        ck_assert_msg(begin("files", config, &s) == NVTXW_RESULT_SUCCESS, "%s: %s", sink,
                      nvtxw_last_error());
        ck_assert_int_eq(dir_names(names, sizeof names, "out.txt"), 1);
        if (streamed) /* text and capture are written as they go (tail -f) */
            ck_assert_str_eq(names, base);
        else
            ck_assert_msg(is_temporary_of(names, base), "%s: %s", sink, names);
        ck_assert_ok(T->SessionEnd(s));
        ck_assert_int_eq(dir_names(names, sizeof names, "out.txt"), 1);
        ck_assert_str_eq(names, base);
        ck_assert_int_eq(stat(path, &st), 0);
        ck_assert_msg((st.st_mode & 0777) == 0644, "%s: mode %o", sink,
                      (unsigned)(st.st_mode & 0777));
        /* Overwrite=in-place over a file holding something else */
        write_file(path, "older contents, longer than some outputs ..............................."
                         "..................................................................");
        snprintf(config, sizeof config, "Sink=%s|Output=%s|Overwrite=in-place", sink, path);
        ck_assert_msg(begin("files", config, &s) == NVTXW_RESULT_SUCCESS, "%s: %s", sink,
                      nvtxw_last_error());
        ck_assert_int_eq(dir_names(names, sizeof names, "out.txt"), 1);
        ck_assert_str_eq(names, base);
        ck_assert_ok(T->SessionEnd(s));
        ck_assert_int_eq(dir_names(names, sizeof names, "out.txt"), 1);
        text = tu_read_file_or_null(path, &size);
        ck_assert_ptr_nonnull(text);
        {
            /* binary outputs: no strstr; one assertion, not one a byte
             * (Check writes each to its pipe: 2 MB of SQLite took seconds) */
            size_t k = 0;
            while (k + 14 <= size && memcmp(text + k, "older contents", 14) != 0)
                k++;
            ck_assert_msg(k + 14 > size, "%s: not truncated", sink);
        }
        free(text);
        unlink(path);
    }
    umask(mask);
}
END_TEST

/* Output=- writes to standard output (a descriptor duplicated at begin). */
START_TEST(session_output_stdout) {
    int saved = dup(STDOUT_FILENO), fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    nvtxwSessionHandle_t s = NULL;
    nvtxwResultCode_t begin_rc, end_rc;
    char* text;
    ck_assert_int_ge(saved, 0);
    ck_assert_int_ge(fd, 0);
    fflush(stdout);
    ck_assert_int_ge(dup2(fd, STDOUT_FILENO), 0);
    close(fd);
    begin_rc = begin("to stdout", "Sink=text|Output=-", &s);
    end_rc = begin_rc == NVTXW_RESULT_SUCCESS ? T->SessionEnd(s) : begin_rc;
    dup2(saved, STDOUT_FILENO);
    close(saved);
    ck_assert_int_eq(begin_rc, NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(end_rc, NVTXW_RESULT_SUCCESS);
    text = tu_read_file_or_null(out_path, NULL);
    ck_assert_str_eq(text, "session \"to stdout\"\nsession_end\n");
    free(text);
}
END_TEST

START_TEST(names_escaped) {
    nvtxwSessionHandle_t s = text_session("q\"b\\s\nn\tt");
    nvtxDomainHandle_t d = domain(s, "d\"");
    ck_assert_ok(T->StreamClose(stream(s, "s\n", d)));
    expect("session \"q\\\"b\\\\s\\nn\\tt\"");
    expect("domain \"d\\\"\"");
    expect("stream_open \"s\\n\" domain=\"d\\\"\" scope=0 time_domain=0 ordering=0/0/0/0");
    expect("stream_close \"s\\n\"");
    expect("session_end");
    ck_assert_output(s);
}
END_TEST

/* ==== Domains, categories, strings, resources (conformance 31) ==================== */

START_TEST(domain_default_and_named) {
    nvtxwSessionHandle_t s = text_session("d");
    nvtxwDomainAttributes_t null_name = {sizeof null_name, NULL}, empty = {sizeof empty, ""};
    nvtxwDomainAttributes_t short_attr = {8, "ignored"}; /* structSize stops before name */
    nvtxDomainHandle_t a = NULL, b = NULL, c = NULL, e = NULL;
    ck_assert_ok(T->DomainRegister(s, NULL, &a));
    ck_assert_ok(T->DomainRegister(s, &null_name, &b));
    ck_assert_ok(T->DomainRegister(s, &empty, &c));
    ck_assert_ok(T->DomainRegister(s, &short_attr, &e));
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_eq(a, b);
    ck_assert_ptr_eq(a, c);
    ck_assert_ptr_eq(a, e);
    ck_assert_ptr_eq(domain(s, "x"), domain(s, "x"));
    ck_assert_ptr_ne(domain(s, "x"), domain(s, "y"));
    ck_assert_ptr_ne(domain(s, "x"), a);
    expect("session \"d\"");
    expect("domain \"\"");
    expect("domain \"x\"");
    expect("domain \"y\"");
    expect("session_end");
    ck_assert_output(s);
}
END_TEST

START_TEST(domain_register_errors) {
    nvtxwSessionHandle_t s = null_session();
    ck_assert_fails(T->DomainRegister(s, NULL, NULL), NVTXW_RESULT_INVALID_ARGUMENT,
                    "domainOut is NULL");
    ck_assert_ok(T->SessionEnd(s));
}
END_TEST

START_TEST(category_register) {
    nvtxwSessionHandle_t s = text_session("c");
    nvtxDomainHandle_t d = domain(s, "d");
    ck_assert_ok(T->CategoryRegister(d, 7, "seven"));
    ck_assert_fails(T->CategoryRegister(d, 0, "zero"), NVTXW_RESULT_INVALID_ARGUMENT, "category 0");
    ck_assert_fails(T->CategoryRegister(d, 8, NULL), NVTXW_RESULT_INVALID_ARGUMENT, "name is NULL");
    ck_assert_fails(T->CategoryRegister(d, 7, "again"), NVTXW_RESULT_INVALID_ARGUMENT,
                    "category=7 is already named");
    ck_assert_ok(T->CategoryRegister(domain(s, "other"), 7, "seven elsewhere"));
    expect("session \"c\"");
    expect("domain \"d\"");
    expect("category domain=\"d\" id=7 name=\"seven\"");
    expect("domain \"other\"");
    expect("category domain=\"other\" id=7 name=\"seven elsewhere\"");
    expect("session_end");
    ck_assert_output(s);
}
END_TEST

START_TEST(string_register) {
    nvtxwSessionHandle_t s = text_session("str");
    nvtxDomainHandle_t d = domain(s, "d");
    nvtxStringHandle_t h1 = NULL, h2 = NULL;
    char text[] = "hello \"world\"";
    ck_assert_ok(T->StringRegister(d, text, &h1));
    memset(text, 'x', sizeof text - 1); /* copied (39) */
    ck_assert_ok(T->StringRegister(d, "", &h2));
    ck_assert_ptr_nonnull(h1);
    ck_assert_ptr_ne(h1, h2);
    ck_assert_fails(T->StringRegister(d, NULL, &h1), NVTXW_RESULT_INVALID_ARGUMENT,
                    "string is NULL");
    ck_assert_fails(T->StringRegister(d, "x", NULL), NVTXW_RESULT_INVALID_ARGUMENT,
                    "stringHandleOut is NULL");
    expect("session \"str\"");
    expect("domain \"d\"");
    expect("string domain=\"d\" handle=0x%llx text=\"hello \\\"world\\\"\"",
           (unsigned long long)(uintptr_t)h1);
    expect("string domain=\"d\" handle=0x%llx text=\"\"", (unsigned long long)(uintptr_t)h2);
    expect("session_end");
    ck_assert_output(s);
}
END_TEST

static nvtxw_resource_attributes_t resource(int32_t message_type) {
    nvtxw_resource_attributes_t r;
    memset(&r, 0, sizeof r);
    r.version = 3;
    r.size = NVTXW_RESOURCE_ATTRIB_STRUCT_SIZE;
    r.identifierType = NVTXW_RESOURCE_TYPE_GENERIC_HANDLE;
    r.identifier.ullValue = 0xabc;
    r.messageType = message_type;
    return r;
}

#define RESOURCE(d, r) T->ResourceRegister((d), (const nvtxResourceAttributes_t*)(r))

START_TEST(resource_register) {
    nvtxwSessionHandle_t s = text_session("res");
    nvtxDomainHandle_t d = domain(s, "d"), other = domain(s, "o");
    nvtxw_resource_attributes_t r = resource(NVTXW_MESSAGE_TYPE_ASCII);
    nvtxStringHandle_t h = NULL, foreign = NULL;
    r.message.ascii = "gpu queue";
    ck_assert_ok(RESOURCE(d, &r));
    ck_assert_ok(T->StringRegister(d, "registered name", &h));
    ck_assert_ok(T->StringRegister(other, "foreign", &foreign));
    r = resource(NVTXW_MESSAGE_TYPE_REGISTERED);
    r.message.registered = h;
    ck_assert_ok(RESOURCE(d, &r));
    r.message.registered = foreign;
    ck_assert_fails(RESOURCE(d, &r), NVTXW_RESULT_INVALID_ARGUMENT,
                    "is not a string registered in domain \"d\"");
    r.size = 16;
    ck_assert_fails(RESOURCE(d, &r), NVTXW_RESULT_INVALID_ARGUMENT, "attr->size is too small");
    ck_assert_fails(RESOURCE(d, NULL), NVTXW_RESULT_INVALID_ARGUMENT, "attr is NULL");
    expect("session \"res\"");
    expect("domain \"d\"");
    expect("domain \"o\"");
    expect("resource domain=\"d\" type=0x10002 id=0xabc message=\"gpu queue\"");
    expect("string domain=\"d\" handle=0x%llx text=\"registered name\"",
           (unsigned long long)(uintptr_t)h);
    expect("string domain=\"o\" handle=0x%llx text=\"foreign\"",
           (unsigned long long)(uintptr_t)foreign);
    expect("resource domain=\"d\" type=0x10002 id=0xabc message=\"registered name\"");
    expect("session_end");
    ck_assert_output(s);
}
END_TEST

/* Conformance 45: an operation the backend cannot perform returns 7, the
 * session stays healthy. */
START_TEST(resource_unicode_not_supported) {
    nvtxwSessionHandle_t s = text_session("uni");
    nvtxDomainHandle_t d = domain(s, "d");
    nvtxw_resource_attributes_t r = resource(NVTXW_MESSAGE_TYPE_UNICODE);
    r.message.unicode = L"wide";
    ck_assert_fails(RESOURCE(d, &r), NVTXW_RESULT_NOT_SUPPORTED, "messageType=2");
    ck_assert_ptr_nonnull(T->ResourceRegister);
    ck_assert_ok(T->CategoryRegister(d, 1, "still fine"));
    expect("session \"uni\"");
    expect("domain \"d\"");
    expect("category domain=\"d\" id=1 name=\"still fine\"");
    expect("session_end");
    ck_assert_output(s);
}
END_TEST

/* ==== Static and dynamic IDs (conformance 32-36) ================================== */

START_TEST(schema_static_id_range) {
    nvtxwSessionHandle_t s = null_session();
    nvtxDomainHandle_t d = domain(s, "d");
    uint64_t id = 0;
    ck_assert_fails(static_schema(d, STATIC_START - 1, NULL), NVTXW_RESULT_INVALID_ARGUMENT,
                    "16777215");
    ck_assert_fails(static_schema(d, DYNAMIC_START, NULL), NVTXW_RESULT_INVALID_ARGUMENT,
                    "4294967296");
    ck_assert_ok(static_schema(d, STATIC_START, NULL));
    ck_assert_ok(static_schema(d, DYNAMIC_START - 1, &id));
    ck_assert_uint_eq(id, DYNAMIC_START - 1);
    ck_assert_ok(T->SessionEnd(s));
}
END_TEST

/* Schemas and enums share one ID namespace per domain (33). */
START_TEST(schema_enum_shared_ids) {
    nvtxwSessionHandle_t s = null_session();
    nvtxDomainHandle_t d = domain(s, "d"), other = domain(s, "other");
    ck_assert_ok(static_schema(d, 20000000, NULL));
    ck_assert_fails(static_schema(d, 20000000, NULL), NVTXW_RESULT_INVALID_ARGUMENT, "20000000");
    ck_assert_fails(enum_with_id(d, 20000000, NULL), NVTXW_RESULT_INVALID_ARGUMENT, "20000000");
    ck_assert_ok(enum_with_id(d, 20000001, NULL));
    ck_assert_fails(static_schema(d, 20000001, NULL), NVTXW_RESULT_INVALID_ARGUMENT, "20000001");
    ck_assert_fails(enum_with_id(d, 20000001, NULL), NVTXW_RESULT_INVALID_ARGUMENT, "20000001");
    ck_assert_ok(static_schema(other, 20000001, NULL));
    ck_assert_ok(enum_with_id(other, 20000000, NULL));
    ck_assert_ok(T->SessionEnd(s));
}
END_TEST

/* Conformance 34: without a static ID the out pointer is required. */
START_TEST(schema_out_pointer) {
    nvtxwSessionHandle_t s = null_session();
    nvtxDomainHandle_t d = domain(s, "d");
    nvtxPayloadSchemaAttr_t a =
        schema_attr(NULL, NVTX_PAYLOAD_SCHEMA_TYPE_STATIC, 0, point_entries, 2, 16);
    ck_assert_fails(T->SchemaRegister(d, &a, NULL), NVTXW_RESULT_INVALID_ARGUMENT, "NULL");
    ck_assert_ok(static_schema(d, STATIC_START + 5, NULL));
    ck_assert_ok(T->SessionEnd(s));
}
END_TEST

START_TEST(enum_out_pointer) {
    nvtxwSessionHandle_t s = null_session();
    nvtxDomainHandle_t d = domain(s, "d");
    ck_assert_fails(enum_with_id(d, 0, NULL), NVTXW_RESULT_INVALID_ARGUMENT, "NULL");
    ck_assert_ok(enum_with_id(d, STATIC_START + 6, NULL));
    ck_assert_ok(T->SessionEnd(s));
}
END_TEST

START_TEST(schema_enum_required_fields) {
    static const uint64_t schema_bits[] = {NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE,
                                           NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES,
                                           NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES};
    static const uint64_t enum_bits[] = {NVTX_PAYLOAD_ENUM_ATTR_FIELD_ENTRIES,
                                         NVTX_PAYLOAD_ENUM_ATTR_FIELD_NUM_ENTRIES,
                                         NVTX_PAYLOAD_ENUM_ATTR_FIELD_SIZE};
    nvtxwSessionHandle_t s = null_session();
    nvtxDomainHandle_t d = domain(s, "d");
    uint64_t id = 0;
    size_t i;
    for (i = 0; i < 3; i++) {
        nvtxPayloadSchemaAttr_t a =
            schema_attr(NULL, NVTX_PAYLOAD_SCHEMA_TYPE_STATIC, 0, point_entries, 2, 16);
        nvtxPayloadEnumAttr_t e = {ENUM_MASK, NULL, colors, 2, 4, 0, NULL};
        a.fieldMask &= ~schema_bits[i];
        ck_assert_int_eq(T->SchemaRegister(d, &a, &id), NVTXW_RESULT_INVALID_ARGUMENT);
        e.fieldMask &= ~enum_bits[i];
        ck_assert_int_eq(T->EnumRegister(d, &e, &id), NVTXW_RESULT_INVALID_ARGUMENT);
    }
    ck_assert_ok(T->SessionEnd(s));
}
END_TEST

/* Scope, counter and time-domain IDs: one function per kind, same rules. */
typedef nvtxwResultCode_t (*register_fn)(nvtxDomainHandle_t d, uint64_t id, uint64_t* out);

static nvtxwResultCode_t scope_id_fn(nvtxDomainHandle_t d, uint64_t id, uint64_t* out) {
    return scope_with(d, "p", NVTX_SCOPE_ROOT, id, out);
}
static nvtxwResultCode_t counter_id_fn(nvtxDomainHandle_t d, uint64_t id, uint64_t* out) {
    return counter_with(d, NVTX_PAYLOAD_ENTRY_TYPE_INT64, NVTX_SCOPE_NONE, id, out);
}

static void check_id_rules(register_fn fn) {
    nvtxwSessionHandle_t s = null_session();
    nvtxDomainHandle_t d = domain(s, "d"), other = domain(s, "other");
    uint64_t id = 0, id2 = 0;
    ck_assert_fails(fn(d, STATIC_START - 1, &id), NVTXW_RESULT_INVALID_ARGUMENT, "16777215");
    ck_assert_fails(fn(d, DYNAMIC_START, &id), NVTXW_RESULT_INVALID_ARGUMENT, "4294967296");
    ck_assert_fails(fn(d, 0, NULL), NVTXW_RESULT_INVALID_ARGUMENT, "out pointer is NULL");
    ck_assert_ok(fn(d, STATIC_START, NULL));
    ck_assert_ok(fn(d, DYNAMIC_START - 1, &id));
    ck_assert_uint_eq(id, DYNAMIC_START - 1);
    ck_assert_fails(fn(d, STATIC_START, &id), NVTXW_RESULT_INVALID_ARGUMENT,
                    "16777216 is already registered");
    ck_assert_ok(fn(other, STATIC_START, NULL));
    ck_assert_ok(fn(d, 0, &id));
    ck_assert_ok(fn(d, 0, &id2));
    ck_assert_uint_ge(id, DYNAMIC_START);
    ck_assert_uint_ge(id2, DYNAMIC_START);
    ck_assert_uint_ne(id, id2);
    ck_assert_ok(T->SessionEnd(s));
}

START_TEST(scope_id_rules) { check_id_rules(scope_id_fn); }
END_TEST
START_TEST(counter_id_rules) { check_id_rules(counter_id_fn); }
END_TEST
START_TEST(time_domain_id_rules) { check_id_rules(time_domain_with); }
END_TEST

START_TEST(dynamic_schema_enum_ids) {
    nvtxwSessionHandle_t s = null_session();
    nvtxDomainHandle_t d = domain(s, "d");
    uint64_t ids[4] = {0, 0, 0, 0};
    size_t i, j;
    ids[0] = point_schema(d);
    ck_assert_ok(enum_with_id(d, 0, &ids[1]));
    ids[2] = point_schema(d);
    ck_assert_ok(enum_with_id(d, 0, &ids[3]));
    for (i = 0; i < 4; i++) {
        ck_assert_uint_ge(ids[i], DYNAMIC_START);
        for (j = 0; j < i; j++)
            ck_assert_uint_ne(ids[i], ids[j]);
    }
    ck_assert_ok(T->SessionEnd(s));
}
END_TEST

START_TEST(registration_lines) {
    nvtxwSessionHandle_t s = text_session("reg");
    nvtxDomainHandle_t d = domain(s, "d");
    uint64_t schema = point_schema(d), en = 0, sc, counter = 0, td = 0;
    ck_assert_ok(enum_with_id(d, 0, &en));
    sc = scope(d, "node/gpu[0]");
    ck_assert_ok(counter_with(d, NVTX_PAYLOAD_ENTRY_TYPE_INT64, sc, 0, &counter));
    ck_assert_ok(time_domain_with(d, 0, &td));
    expect("session \"reg\"");
    expect("domain \"d\"");
    expect("schema domain=\"d\" id=%llu name=\"point\" type=1 flags=32 size=16 entries=2",
           (unsigned long long)schema);
    expect("enum domain=\"d\" id=%llu name=\"\" size=4 values=2", (unsigned long long)en);
    expect("scope domain=\"d\" id=%llu parent=1 path=\"node/gpu[0]\"", (unsigned long long)sc);
    expect("counter domain=\"d\" id=%llu name=\"bytes\" schema=17 scope=%llu sample_size=8",
           (unsigned long long)counter, (unsigned long long)sc);
    expect("time_domain domain=\"d\" id=%llu type=14 scope=0 resolution=1000000000 start=0 "
           "flags=0",
           (unsigned long long)td);
    expect("session_end");
    ck_assert_output(s);
}
END_TEST

/* ==== Scopes (conformance 37) ====================================================== */

START_TEST(scope_rules) {
    nvtxwSessionHandle_t s = null_session();
    nvtxDomainHandle_t d = domain(s, "d"), other = domain(s, "other");
    uint64_t id = 0, foreign = STATIC_START + 100;
    ck_assert_ok(scope_with(other, "x", NVTX_SCOPE_ROOT, foreign, NULL));
    ck_assert_fails(scope_with(d, "t", NVTX_SCOPE_ROOT, NVTX_SCOPE_CURRENT_SW_THREAD, &id),
                    NVTXW_RESULT_INVALID_ARGUMENT, "scopeId=22");
    ck_assert_ok(scope_with(d, "m", NVTX_SCOPE_CURRENT_HW_MACHINE, NVTX_SCOPE_NONE, &id));
    ck_assert_ok(scope_with(d, "v", NVTX_SCOPE_CURRENT_VM, NVTX_SCOPE_NONE, &id));
    ck_assert_ok(scope_with(d, "child", id, NVTX_SCOPE_NONE, &id));
    ck_assert_ok(scope_with(d, NULL, NVTX_SCOPE_NONE, NVTX_SCOPE_NONE, &id));
    ck_assert_fails(scope_with(d, "p", NVTX_SCOPE_CURRENT_SW_PROCESS, NVTX_SCOPE_NONE, &id),
                    NVTXW_RESULT_INVALID_ARGUMENT, "parentScope=21");
    ck_assert_fails(scope_with(d, "f", foreign, NVTX_SCOPE_NONE, &id),
                    NVTXW_RESULT_INVALID_ARGUMENT, "nor a scope of domain \"d\"");
    ck_assert_fails(scope_with(d, "u", STATIC_START + 9, NVTX_SCOPE_NONE, &id),
                    NVTXW_RESULT_INVALID_ARGUMENT, "parentScope=16777225");
    ck_assert_ok(T->SessionEnd(s));
}
END_TEST

START_TEST(scope_attr_errors) {
    nvtxwSessionHandle_t s = null_session();
    nvtxDomainHandle_t d = domain(s, "d");
    nvtxScopeAttr_t small = {16, "x", NVTX_SCOPE_ROOT, 0};
    uint64_t id = 0;
    ck_assert_fails(T->ScopeRegister(d, NULL, &id), NVTXW_RESULT_INVALID_ARGUMENT, "attr is NULL");
    ck_assert_fails(T->ScopeRegister(d, &small, &id), NVTXW_RESULT_INVALID_ARGUMENT, "structSize");
    ck_assert_ok(T->SessionEnd(s));
}
END_TEST

/* libnvtxw's ScopeRelease (nvtxw/extension.h): a released scope is unknown
 * from then on, is never taken again, and cannot be released while
 * anything registered or open still names it. */
static const nvtxwExtensionInterface_t* extension(void) {
    const nvtxwExtensionInterface_t* ext = NULL;
    ck_assert_int_eq(nvtxwGetInterface(NVTXW_EXTENSION_INTERFACE_VERSION, (const void**)&ext),
                     NVTXW_RESULT_SUCCESS);
    ck_assert(NVTXW_EXTENSION_HAS(ext, ScopeRelease));
    return ext;
}

START_TEST(scope_release_rules) {
    const nvtxwExtensionInterface_t* ext = extension();
    nvtxwSessionHandle_t s = text_session("rel");
    nvtxDomainHandle_t d = domain(s, "d"), other = domain(s, "other");
    uint64_t scoped = simple_schema(d, "scoped", scoped_entries), value = 0, id = 0, child = 0;
    uint64_t task = scope(d, "task[1]"), parent = scope(d, "process"), counted = scope(d, "gpu");
    uint64_t fixed = STATIC_START + 7, streamed = scope(d, "thread[1]"), counter = 0;
    nvtxPayloadData_t p = {scoped, sizeof value, &value};
    nvtxwStreamHandle_t st = stream(s, "s", d), owned = NULL;
    nvtxwStreamAttributes_t attr = stream_attr("owned", d);
    value = task;
    ck_assert_ok(T->EventWrite(st, &p, 1));
    ck_assert_ok(ext->ScopeRelease(d, task));
    ck_assert_fails(T->EventWrite(st, &p, 1), NVTXW_RESULT_INVALID_ARGUMENT,
                    "scope 4294967296 was released");
    ck_assert_fails(ext->ScopeRelease(d, task), NVTXW_RESULT_INVALID_ARGUMENT,
                    "it was released already");
    ck_assert_fails(ext->ScopeRelease(other, parent), NVTXW_RESULT_INVALID_ARGUMENT,
                    "it is not a registered scope in domain \"other\"");
    ck_assert_fails(ext->ScopeRelease(d, NVTX_SCOPE_ROOT), NVTXW_RESULT_INVALID_ARGUMENT,
                    "NONE, ROOT and the predefined scopes");
    ck_assert_fails(open_with(s, d, task, 0, "late"), NVTXW_RESULT_INVALID_ARGUMENT,
                    "scopeId=4294967296 is not NONE, ROOT or a scope");
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "it was released with ScopeRelease"));
    ck_assert_fails(scope_with(d, "under", task, NVTX_SCOPE_NONE, &id),
                    NVTXW_RESULT_INVALID_ARGUMENT, "parentScope=4294967296");
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "it was released with ScopeRelease"));
    ck_assert_fails(counter_with(d, NVTX_PAYLOAD_ENTRY_TYPE_INT64, task, 0, &counter),
                    NVTXW_RESULT_INVALID_ARGUMENT, "it was released with ScopeRelease");
    /* dynamic IDs go on after the released one; a released static ID is
     * never accepted again */
    ck_assert_ok(scope_with(d, "next", NVTX_SCOPE_ROOT, NVTX_SCOPE_NONE, &id));
    ck_assert_uint_eq(id, streamed + 1);
    ck_assert_ok(scope_with(d, "fixed", NVTX_SCOPE_ROOT, fixed, NULL));
    ck_assert_ok(ext->ScopeRelease(d, fixed));
    ck_assert_fails(scope_with(d, "again", NVTX_SCOPE_ROOT, fixed, NULL),
                    NVTXW_RESULT_INVALID_ARGUMENT, "taken (released)");
    /* users: a child scope, a counter, an open stream */
    ck_assert_ok(scope_with(d, "task[2]", parent, NVTX_SCOPE_NONE, &child));
    ck_assert_fails(ext->ScopeRelease(d, parent), NVTXW_RESULT_INVALID_ARGUMENT,
                    "1 open streams, counters, time domains or child scopes still name it");
    ck_assert_ok(ext->ScopeRelease(d, child));
    ck_assert_ok(ext->ScopeRelease(d, parent));
    ck_assert_ok(counter_with(d, NVTX_PAYLOAD_ENTRY_TYPE_INT64, counted, 0, &counter));
    ck_assert_fails(ext->ScopeRelease(d, counted), NVTXW_RESULT_INVALID_ARGUMENT, "(\"gpu\")");
    attr.scopeId = streamed;
    ck_assert_ok(T->StreamOpen(s, &attr, &owned));
    ck_assert_fails(ext->ScopeRelease(d, streamed), NVTXW_RESULT_INVALID_ARGUMENT, "1 open");
    ck_assert_ok(T->StreamClose(owned));
    ck_assert_ok(ext->ScopeRelease(d, streamed));
    {
        char* text = end_and_read(s);
        char line[128];
        snprintf(line, sizeof line, "scope_release domain=\"d\" id=%llu", (unsigned long long)task);
        ck_assert_msg(has_line(text, line), "no \"%s\" in:\n%s", line, text);
        ck_assert_ptr_null(strstr(text, "scope_release domain=\"d\" id=4294967298\n"));
        free(text);
    }
}
END_TEST

/* 100,000 scopes registered and released one after the other: the heap in
 * use stays flat (a few chunks of the ID table are reused; the directory
 * grows by 8 bytes per 256 IDs), where keeping them would take about 5 MB.
 * Under a sanitizer's allocator mallinfo2 says nothing; its leak check
 * then says whether released scopes are freed. */
START_TEST(scope_release_frees) {
    const nvtxwExtensionInterface_t* ext = extension();
    nvtxwSessionHandle_t s = null_session();
    nvtxDomainHandle_t d = domain(s, "d");
    char path[32];
    size_t before = tu_heap_in_use(), grown;
    for (int i = 0; i < 100000; i++) {
        uint64_t id = 0;
        snprintf(path, sizeof path, "task[%d]", i);
        ck_assert_ok(scope_with(d, path, NVTX_SCOPE_ROOT, NVTX_SCOPE_NONE, &id));
        ck_assert_ok(ext->ScopeRelease(d, id));
    }
    grown = tu_heap_in_use();
    grown = grown > before ? grown - before : 0;
    ck_assert_msg(grown < 64 * 1024, "the heap grew by %zu bytes for 100,000 released scopes",
                  grown);
    ck_assert_ok(T->SessionEnd(s));
}
END_TEST

/* ==== Counters (conformance 43) ==================================================== */

START_TEST(counter_register_errors) {
    nvtxwSessionHandle_t s = null_session();
    nvtxDomainHandle_t d = domain(s, "d");
    uint64_t id = 0, foreign = STATIC_START + 100;
    ck_assert_ok(scope_with(domain(s, "other"), "x", NVTX_SCOPE_ROOT, foreign, NULL));
    ck_assert_fails(
        counter_with(d, NVTX_PAYLOAD_ENTRY_TYPE_INT64, NVTX_SCOPE_CURRENT_HW_MACHINE, 0, &id),
        NVTXW_RESULT_INVALID_ARGUMENT, "scopeId=2");
    ck_assert_fails(counter_with(d, NVTX_PAYLOAD_ENTRY_TYPE_INT64, foreign, 0, &id),
                    NVTXW_RESULT_INVALID_ARGUMENT, "is not a scope of domain \"d\"");
    ck_assert_fails(counter_with(d, NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF8, NVTX_SCOPE_NONE, 0, &id),
                    NVTXW_RESULT_INVALID_ARGUMENT, "schemaId=76");
    ck_assert_fails(counter_with(d, STATIC_START + 1, NVTX_SCOPE_NONE, 0, &id),
                    NVTXW_RESULT_INVALID_ARGUMENT, "not a registered schema");
    ck_assert_fails(T->CounterRegister(d, NULL, &id), NVTXW_RESULT_INVALID_ARGUMENT,
                    "attr is NULL");
    ck_assert_ok(counter_with(d, NVTX_PAYLOAD_ENTRY_TYPE_DOUBLE, NVTX_SCOPE_ROOT, 0, &id));
    ck_assert_ok(T->SessionEnd(s));
}
END_TEST

START_TEST(counter_write_int64) {
    nvtxwSessionHandle_t s = text_session("cnt");
    nvtxDomainHandle_t d = domain(s, "d");
    nvtxwStreamHandle_t st = stream(s, "s", d);
    uint64_t id = 0;
    int64_t v = 0x0102030405060708;
    int32_t small = 1;
    ck_assert_ok(counter_with(d, NVTX_PAYLOAD_ENTRY_TYPE_INT64, NVTX_SCOPE_NONE, 0, &id));
    ck_assert_ok(T->CounterWrite(st, 5, id, &v, sizeof v));
    ck_assert_fails(T->CounterWrite(st, 6, id, &small, sizeof small), NVTXW_RESULT_INVALID_ARGUMENT,
                    "takes 8-byte samples, got data of 4 bytes");
    ck_assert_fails(T->CounterWrite(st, 6, id, NULL, 8), NVTXW_RESULT_INVALID_ARGUMENT,
                    "NULL data");
    ck_assert_fails(T->CounterWrite(st, 6, id + 1, &v, sizeof v), NVTXW_RESULT_INVALID_ARGUMENT,
                    "is not registered in domain \"d\"");
    ck_assert_fails(T->CounterWrite(st, 6, STATIC_START + 3, &v, sizeof v),
                    NVTXW_RESULT_INVALID_ARGUMENT, "counter 16777219 is not registered");
    expect("session \"cnt\"");
    expect("domain \"d\"");
    expect("stream_open \"s\" domain=\"d\" scope=0 time_domain=0 ordering=0/0/0/0");
    expect("counter domain=\"d\" id=%llu name=\"bytes\" schema=17 scope=0 sample_size=8",
           (unsigned long long)id);
    expect("counter_sample stream=\"s\" ts=5 counter=%llu bytes=0807060504030201",
           (unsigned long long)id);
    expect("stream_close \"s\"");
    expect("session_end");
    ck_assert_output(s);
}
END_TEST

START_TEST(counter_no_value) {
    nvtxwSessionHandle_t s = text_session("nv");
    nvtxDomainHandle_t d = domain(s, "d");
    nvtxwStreamHandle_t st = stream(s, "s", d);
    uint64_t id = 0;
    ck_assert_ok(counter_with(d, NVTX_PAYLOAD_ENTRY_TYPE_INT64, NVTX_SCOPE_NONE, 0, &id));
    ck_assert_ok(T->CounterNoValueWrite(st, 1, id, NVTX_COUNTER_SAMPLE_ZERO));
    ck_assert_ok(T->CounterNoValueWrite(st, 2, id, NVTX_COUNTER_SAMPLE_UNCHANGED));
    ck_assert_ok(T->CounterNoValueWrite(st, 3, id, NVTX_COUNTER_SAMPLE_UNAVAILABLE));
    ck_assert_fails(T->CounterNoValueWrite(st, 4, id, 3), NVTXW_RESULT_INVALID_ARGUMENT,
                    "reason 3");
    ck_assert_fails(T->CounterNoValueWrite(st, 4, id + 1, 0), NVTXW_RESULT_INVALID_ARGUMENT,
                    "is not registered");
    ck_assert_ok(T->StreamClose(st));
    expect("session \"nv\"");
    expect("domain \"d\"");
    expect("stream_open \"s\" domain=\"d\" scope=0 time_domain=0 ordering=0/0/0/0");
    expect("counter domain=\"d\" id=%llu name=\"bytes\" schema=17 scope=0 sample_size=8",
           (unsigned long long)id);
    expect("counter_no_value stream=\"s\" ts=1 counter=%llu reason=0", (unsigned long long)id);
    expect("counter_no_value stream=\"s\" ts=2 counter=%llu reason=1", (unsigned long long)id);
    expect("counter_no_value stream=\"s\" ts=3 counter=%llu reason=2", (unsigned long long)id);
    expect("stream_close \"s\"");
    expect("session_end");
    ck_assert_output(s);
}
END_TEST

START_TEST(counter_batch_timestamps) {
    nvtxwSessionHandle_t s = text_session("cb");
    nvtxDomainHandle_t d = domain(s, "d");
    nvtxwStreamHandle_t st = stream(s, "s", d);
    int32_t values[3] = {1, -1, 256};
    int64_t stamps[3] = {100, 200, 300};
    nvtxCounterBatch_t batch = {0, values, sizeof values, 0, stamps, sizeof stamps};
    uint64_t id = 0;
    ck_assert_ok(counter_with(d, NVTX_PAYLOAD_ENTRY_TYPE_INT32, NVTX_SCOPE_NONE, 0, &id));
    batch.counterId = id;
    ck_assert_ok(T->CounterBatchWrite(st, &batch));
    values[0] = 99; /* copied or written: must not show up */
    batch.timestampsSize = 16;
    ck_assert_fails(T->CounterBatchWrite(st, &batch), NVTXW_RESULT_INVALID_ARGUMENT,
                    "3 samples but timestampsSize 16");
    batch.timestampsSize = sizeof stamps;
    batch.countersSize = 10;
    ck_assert_fails(T->CounterBatchWrite(st, &batch), NVTXW_RESULT_INVALID_ARGUMENT,
                    "countersSize 10");
    batch.countersSize = sizeof values;
    batch.counterId = id + 1;
    ck_assert_fails(T->CounterBatchWrite(st, &batch), NVTXW_RESULT_INVALID_ARGUMENT,
                    "is not registered");
    ck_assert_fails(T->CounterBatchWrite(st, NULL), NVTXW_RESULT_INVALID_ARGUMENT,
                    "counterBatch is NULL");
    expect("session \"cb\"");
    expect("domain \"d\"");
    expect("stream_open \"s\" domain=\"d\" scope=0 time_domain=0 ordering=0/0/0/0");
    expect("counter domain=\"d\" id=%llu name=\"bytes\" schema=15 scope=0 sample_size=4",
           (unsigned long long)id);
    expect("counter_sample stream=\"s\" ts=100 counter=%llu bytes=01000000",
           (unsigned long long)id);
    expect("counter_sample stream=\"s\" ts=200 counter=%llu bytes=ffffffff",
           (unsigned long long)id);
    expect("counter_sample stream=\"s\" ts=300 counter=%llu bytes=00010000",
           (unsigned long long)id);
    expect("stream_close \"s\"");
    expect("session_end");
    ck_assert_output(s);
}
END_TEST

/* Without a timestamps array the time comes from the samples' TIMESTAMP
 * entry (spec 2.15). */
START_TEST(counter_batch_embedded_timestamps) {
    static const nvtxPayloadSchemaEntry_t entries[] = {
        {NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP, NVTX_PAYLOAD_ENTRY_TYPE_INT64, "ts", NULL, 0, 0, NULL,
         NULL},
        {0, NVTX_PAYLOAD_ENTRY_TYPE_INT64, "value", NULL, 0, 8, NULL, NULL},
    };
    nvtxwSessionHandle_t s = text_session("emb");
    nvtxDomainHandle_t d = domain(s, "d");
    nvtxwStreamHandle_t st = stream(s, "s", d);
    nvtxPayloadSchemaAttr_t a = schema_attr("sample", NVTX_PAYLOAD_SCHEMA_TYPE_STATIC,
                                            NVTX_PAYLOAD_SCHEMA_FLAG_COUNTER_GROUP, entries, 2, 16);
    int64_t samples[4] = {7, 1, 9, 2};
    nvtxCounterBatch_t batch = {0, samples, sizeof samples, 0, NULL, 0};
    uint64_t schema = 0, grouped = 0, plain = 0;
    ck_assert_ok(T->SchemaRegister(d, &a, &schema));
    ck_assert_ok(counter_with(d, schema, NVTX_SCOPE_NONE, 0, &grouped));
    ck_assert_ok(counter_with(d, NVTX_PAYLOAD_ENTRY_TYPE_INT64, NVTX_SCOPE_NONE, 0, &plain));
    batch.counterId = grouped;
    ck_assert_ok(T->CounterBatchWrite(st, &batch));
    batch.counterId = plain;
    ck_assert_fails(T->CounterBatchWrite(st, &batch), NVTXW_RESULT_INVALID_ARGUMENT,
                    "carry no TIMESTAMP entry");
    {
        char* text = end_and_read(s);
        char line[160];
        snprintf(line, sizeof line,
                 "counter_sample stream=\"s\" ts=7 counter=%llu "
                 "bytes=07000000000000000100000000000000",
                 (unsigned long long)grouped);
        ck_assert_msg(has_line(text, line), "no line \"%s\" in:\n%s", line, text);
        snprintf(line, sizeof line,
                 "counter_sample stream=\"s\" ts=9 counter=%llu "
                 "bytes=09000000000000000200000000000000",
                 (unsigned long long)grouped);
        ck_assert_msg(has_line(text, line), "no line \"%s\" in:\n%s", line, text);
        ck_assert_ptr_null(strstr(text, "ts=1 "));
        free(text);
    }
}
END_TEST

START_TEST(time_domain_register_errors) {
    nvtxwSessionHandle_t s = null_session();
    nvtxDomainHandle_t d = domain(s, "d");
    nvtxTimeDomainAttr_t a = {STATIC_START + 8, 14, 0, 0, 0, 0};
    uint64_t id = 0;
    ck_assert_fails(T->TimeDomainRegister(d, &a, &id), NVTXW_RESULT_INVALID_ARGUMENT,
                    "scopeId=16777224 is not a scope of domain \"d\"");
    ck_assert_fails(T->TimeDomainRegister(d, NULL, &id), NVTXW_RESULT_INVALID_ARGUMENT,
                    "attr is NULL");
    a.scopeId = scope(d, "clock");
    ck_assert_ok(T->TimeDomainRegister(d, &a, &id));
    ck_assert_ok(T->SessionEnd(s));
}
END_TEST

/* ==== Streams (conformance 38, 44) ================================================== */

START_TEST(stream_scope_rules) {
    nvtxwSessionHandle_t s = null_session();
    nvtxDomainHandle_t d = domain(s, "d");
    uint64_t sc = scope(d, "proc"), foreign = STATIC_START + 100;
    ck_assert_ok(scope_with(domain(s, "other"), "x", NVTX_SCOPE_ROOT, foreign, NULL));
    ck_assert_fails(open_with(s, d, NVTX_SCOPE_CURRENT_SW_PROCESS, 0, "a"),
                    NVTXW_RESULT_INVALID_ARGUMENT, "scopeId=21");
    ck_assert_fails(open_with(s, d, STATIC_START + 42, 0, "a"), NVTXW_RESULT_INVALID_ARGUMENT,
                    "scopeId=16777258 is not NONE, ROOT or a scope registered in domain \"d\"");
    ck_assert_fails(open_with(s, d, foreign, 0, "a"), NVTXW_RESULT_INVALID_ARGUMENT,
                    "registered in domain \"d\"");
    ck_assert_ok(open_with(s, d, sc, 0, "a"));
    ck_assert_ok(open_with(s, d, NVTX_SCOPE_ROOT, 0, "b"));
    ck_assert_ok(T->SessionEnd(s));
}
END_TEST

START_TEST(stream_duplicate_name) {
    nvtxwSessionHandle_t s = null_session();
    nvtxDomainHandle_t d = domain(s, "d");
    nvtxwStreamHandle_t st = stream(s, "same", d);
    ck_assert_fails(open_with(s, domain(s, "other"), 0, 0, "same"), NVTXW_RESULT_INVALID_ARGUMENT,
                    "a stream of that name exists");
    ck_assert_ok(T->StreamClose(st));
    ck_assert_fails(open_with(s, d, 0, 0, "same"), NVTXW_RESULT_INVALID_ARGUMENT,
                    "cannot open stream \"same\"");
    ck_assert_ok(T->SessionEnd(s));
}
END_TEST

START_TEST(stream_time_domain_rules) {
    nvtxwSessionHandle_t s = text_session("td");
    nvtxDomainHandle_t d = domain(s, "d");
    uint64_t td = 0, foreign = 0;
    ck_assert_ok(time_domain_with(d, 0, &td));
    ck_assert_ok(time_domain_with(domain(s, "other"), STATIC_START + 1, &foreign));
    ck_assert_fails(open_with(s, d, 0, STATIC_START + 1, "a"), NVTXW_RESULT_INVALID_ARGUMENT,
                    "timeDomainId=16777217");
    ck_assert_fails(open_with(s, d, 0, 5, "a"), NVTXW_RESULT_INVALID_ARGUMENT,
                    "timeDomainId=5 is neither a timestamp type nor a time domain");
    ck_assert_ok(open_with(s, d, 0, td, "registered"));
    ck_assert_ok(open_with(s, d, 0, NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_MONOTONIC_RAW, "raw"));
    expect("session \"td\"");
    expect("domain \"d\"");
    expect("time_domain domain=\"d\" id=%llu type=14 scope=0 resolution=1000000000 start=0 "
           "flags=0",
           (unsigned long long)td);
    expect("domain \"other\"");
    expect("time_domain domain=\"other\" id=16777217 type=14 scope=0 resolution=1000000000 "
           "start=0 flags=0");
    expect("stream_open \"registered\" domain=\"d\" scope=0 time_domain=%llu ordering=0/0/0/0",
           (unsigned long long)td);
    expect("stream_open \"raw\" domain=\"d\" scope=0 time_domain=15 ordering=0/0/0/0");
    /* Open streams end with the session; their order is not part of the
     * contract, so only the last line is compared exactly. */
    {
        char* text = end_and_read(s);
        ck_assert_int_eq(strncmp(text, expected, strlen(expected)), 0);
        ck_assert(has_line(text, "stream_close \"registered\""));
        ck_assert(has_line(text, "stream_close \"raw\""));
        ck_assert_ptr_nonnull(strstr(text, "\nsession_end\n"));
        ck_assert_str_eq(text + strlen(text) - strlen("session_end\n"), "session_end\n");
        free(text);
    }
}
END_TEST

START_TEST(stream_foreign_domain) {
    nvtxwSessionHandle_t s = null_session(), other = null_session();
    nvtxDomainHandle_t foreign = domain(other, "d");
    ck_assert_fails(open_with(s, foreign, 0, 0, "a"), NVTXW_RESULT_INVALID_ARGUMENT,
                    "its domain belongs to another session");
    ck_assert_ok(T->SessionEnd(other));
    ck_assert_fails(open_with(s, foreign, 0, 0, "a"), NVTXW_RESULT_INVALID_ARGUMENT,
                    "is not a domain of an open session");
    ck_assert_ok(open_with(s, NULL, 0, 0, "a"));
    ck_assert_ok(T->SessionEnd(s));
}
END_TEST

START_TEST(stream_attr_errors) {
    nvtxwSessionHandle_t s = null_session();
    nvtxwStreamAttributes_t attr = stream_attr("x", NULL);
    nvtxwStreamHandle_t st = NULL;
    ck_assert_fails(T->StreamOpen(s, NULL, &st), NVTXW_RESULT_INVALID_ARGUMENT, "attr is NULL");
    ck_assert_fails(T->StreamOpen(s, &attr, NULL), NVTXW_RESULT_INVALID_ARGUMENT,
                    "streamOut is NULL");
    attr.structSize = 48;
    ck_assert_fails(T->StreamOpen(s, &attr, &st), NVTXW_RESULT_INVALID_ARGUMENT, "structSize");
    attr = stream_attr(NULL, NULL);
    ck_assert_fails(T->StreamOpen(s, &attr, &st), NVTXW_RESULT_INVALID_ARGUMENT, "name is NULL");
    attr = stream_attr("", NULL);
    ck_assert_fails(T->StreamOpen(s, &attr, &st), NVTXW_RESULT_INVALID_ARGUMENT, "name is empty");
    ck_assert_ptr_null(st);
    ck_assert_ok(T->SessionEnd(s));
}
END_TEST

START_TEST(stream_open_line) {
    nvtxwSessionHandle_t s = text_session("so");
    nvtxDomainHandle_t d = domain(s, "d");
    uint64_t sc = scope(d, "p");
    nvtxwStreamAttributes_t attr = stream_attr("ordered", d);
    nvtxwStreamHandle_t st = NULL;
    attr.scopeId = sc;
    attr.timeDomainId = NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_MONOTONIC;
    attr.orderInterleaving = NVTXW_STREAM_ORDER_INTERLEAVING_SCOPE;
    attr.orderingType = NVTXW_STREAM_ORDERING_TYPE_STRICT;
    attr.orderingSkid = NVTXW_STREAM_ORDERING_SKID_TIME_NS;
    attr.orderingSkidAmount = 1000;
    ck_assert_ok(T->StreamOpen(s, &attr, &st));
    ck_assert_ok(T->StreamClose(st));
    st = stream(s, "default", NULL); /* NULL domain: the default domain */
    ck_assert_ok(T->StreamClose(st));
    expect("session \"so\"");
    expect("domain \"d\"");
    expect("scope domain=\"d\" id=%llu parent=1 path=\"p\"", (unsigned long long)sc);
    expect("stream_open \"ordered\" domain=\"d\" scope=%llu time_domain=14 ordering=1/1/1/1000",
           (unsigned long long)sc);
    expect("stream_close \"ordered\"");
    expect("domain \"\"");
    expect("stream_open \"default\" domain=\"\" scope=0 time_domain=0 ordering=0/0/0/0");
    expect("stream_close \"default\"");
    expect("session_end");
    ck_assert_output(s);
}
END_TEST

/* Closing streams in the middle, at the front and at the end keeps the open
 * list exact (each stream knows its slot): the streams left open still write
 * and are closed once each when the session ends. */
START_TEST(stream_close_any_order) {
    nvtxwSessionHandle_t s = text_session("order");
    nvtxDomainHandle_t d = domain(s, "d");
    nvtxwStreamHandle_t st[5];
    const char* names[5] = {"a", "b", "c", "d", "e"};
    uint64_t schema;
    int i;
    for (i = 0; i < 5; i++)
        st[i] = stream(s, names[i], d);
    ck_assert_ok(T->StreamClose(st[2]));
    ck_assert_ok(T->StreamClose(st[0]));
    ck_assert_ok(T->StreamClose(st[4]));
    schema = point_schema(d);
    ck_assert_ok(write_point(st[1], schema, 10, 1));
    ck_assert_ok(write_point(st[3], schema, 11, 2));
    expect("session \"order\"");
    expect("domain \"d\"");
    for (i = 0; i < 5; i++)
        expect("stream_open \"%s\" domain=\"d\" scope=0 time_domain=0 ordering=0/0/0/0", names[i]);
    expect("stream_close \"c\"");
    expect("stream_close \"a\"");
    expect("stream_close \"e\"");
    expect("schema domain=\"d\" id=%llu name=\"point\" type=1 flags=32 size=16 entries=2",
           (unsigned long long)schema);
    expect("event stream=\"b\" ts=10");
    expect("  [0] point: ts=10, value=1");
    expect("event stream=\"d\" ts=11");
    expect("  [0] point: ts=11, value=2");
    expect("stream_close \"d\"");
    expect("stream_close \"b\"");
    expect("session_end");
    ck_assert_output(s);
}
END_TEST

/* Conformance 44: StreamClose releases one stream; the session goes on. */
START_TEST(stream_close_then_continue) {
    nvtxwSessionHandle_t s = text_session("close");
    nvtxDomainHandle_t d = domain(s, "d");
    nvtxwStreamHandle_t a = stream(s, "a", d), b = stream(s, "b", d);
    uint64_t schema;
    ck_assert_ok(T->StreamClose(a));
    schema = point_schema(d);
    ck_assert_ok(write_point(b, schema, 10, 1));
    ck_assert_fails(write_point(a, schema, 11, 2), NVTXW_RESULT_INVALID_ARGUMENT,
                    "not an open stream");
    ck_assert_fails(T->StreamClose(a), NVTXW_RESULT_INVALID_ARGUMENT, "not an open stream");
    ck_assert_ok(T->StreamClose(b));
    expect("session \"close\"");
    expect("domain \"d\"");
    expect("stream_open \"a\" domain=\"d\" scope=0 time_domain=0 ordering=0/0/0/0");
    expect("stream_open \"b\" domain=\"d\" scope=0 time_domain=0 ordering=0/0/0/0");
    expect("stream_close \"a\"");
    expect("schema domain=\"d\" id=%llu name=\"point\" type=1 flags=32 size=16 entries=2",
           (unsigned long long)schema);
    expect("event stream=\"b\" ts=10");
    expect("  [0] point: ts=10, value=1");
    expect("stream_close \"b\"");
    expect("session_end");
    ck_assert_output(s);
}
END_TEST

/* ==== Events (conformance 39-42) ====================================================== */

START_TEST(event_inputs_copied) {
    nvtxwSessionHandle_t s = text_session("copy");
    nvtxDomainHandle_t d = domain(s, "d");
    nvtxwStreamHandle_t st = stream(s, "s", d);
    char schema_name[] = "sample", field_name[] = "value";
    nvtxPayloadSchemaEntry_t entries[1] = {
        {0, NVTX_PAYLOAD_ENTRY_TYPE_INT32, field_name, NULL, 0, 0, NULL, NULL}};
    nvtxPayloadSchemaAttr_t attr =
        schema_attr(schema_name, NVTX_PAYLOAD_SCHEMA_TYPE_STATIC, 0, entries, 1, 4);
    int32_t value = 1234;
    uint64_t id = 0;
    nvtxPayloadData_t payload = {0, sizeof value, &value};
    ck_assert_ok(T->SchemaRegister(d, &attr, &id));
    payload.schemaId = id;
    memset(schema_name, 'X', sizeof schema_name - 1);
    memset(field_name, 'Y', sizeof field_name - 1);
    memset(entries, 0xff, sizeof entries);
    memset(&attr, 0xff, sizeof attr);
    ck_assert_ok(T->EventWrite(st, &payload, 1));
    value = -1;
    payload.schemaId = 0;
    ck_assert_ok(T->StreamClose(st));
    expect("session \"copy\"");
    expect("domain \"d\"");
    expect("stream_open \"s\" domain=\"d\" scope=0 time_domain=0 ordering=0/0/0/0");
    expect("schema domain=\"d\" id=%llu name=\"sample\" type=1 flags=0 size=4 entries=1",
           (unsigned long long)id);
    expect("event stream=\"s\"");
    expect("  [0] sample: value=1234");
    expect("stream_close \"s\"");
    expect("session_end");
    ck_assert_output(s);
}
END_TEST

START_TEST(event_size_zero_payload_ignored) {
    nvtxwSessionHandle_t s = text_session("zero");
    nvtxwStreamHandle_t st = stream(s, "s", NULL);
    int32_t v = 7;
    nvtxPayloadData_t payloads[2] = {{NVTX_PAYLOAD_ENTRY_TYPE_INT32, 0, &v},
                                     {NVTX_PAYLOAD_ENTRY_TYPE_INT32, sizeof v, &v}};
    ck_assert_ok(T->EventWrite(st, payloads, 2));
    payloads[0].payload = NULL; /* ignored payloads are not dereferenced */
    payloads[0].schemaId = STATIC_START + 77;
    ck_assert_ok(T->EventWrite(st, payloads, 2));
    ck_assert_ok(T->StreamClose(st));
    expect("session \"zero\"");
    expect("domain \"\"");
    expect("stream_open \"s\" domain=\"\" scope=0 time_domain=0 ordering=0/0/0/0");
    expect("event stream=\"s\"");
    expect("  [1] INT32: <field_0>=7");
    expect("event stream=\"s\"");
    expect("  [1] INT32: <field_0>=7");
    expect("stream_close \"s\"");
    expect("session_end");
    ck_assert_output(s);
}
END_TEST

/* The helper's markUtf8 + eventMessageUtf8 schemas (spec 4.3) and the way
 * nvtxwMarkWriteUtf8 sends the message (4.4): conformance 41. */
typedef struct mark_utf8 {
    int64_t timestamp;
    uint32_t color, category;
} mark_utf8;
static const nvtxPayloadSchemaEntry_t mark_entries[] = {
    {TS_MARK, NVTX_PAYLOAD_ENTRY_TYPE_INT64, "timestamp", NULL, 0, 0, NULL, NULL},
    {0, NVTX_PAYLOAD_ENTRY_TYPE_COLOR_ARGB, "color", NULL, 0, 8, NULL, NULL},
    {0, NVTX_PAYLOAD_ENTRY_TYPE_CATEGORY, "category", NULL, 0, 12, NULL, NULL},
};
static const nvtxPayloadSchemaEntry_t message_entry[] = {
    {NVTX_PAYLOAD_ENTRY_FLAG_EVENT_MESSAGE | NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_ZERO_TERMINATED,
     NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF8, "message", NULL, 0, 0, NULL, NULL},
};

static void helper_schemas(nvtxDomainHandle_t d, uint64_t* mark, uint64_t* message) {
    nvtxPayloadSchemaAttr_t a = schema_attr(NULL, NVTX_PAYLOAD_SCHEMA_TYPE_STATIC,
                                            NVTX_PAYLOAD_SCHEMA_FLAG_MARK, mark_entries, 3, 16);
    ck_assert_ok(T->SchemaRegister(d, &a, mark));
    a = schema_attr(NULL, NVTX_PAYLOAD_SCHEMA_TYPE_DYNAMIC, 0, message_entry, 1, 0);
    ck_assert_ok(T->SchemaRegister(d, &a, message));
}

START_TEST(event_utf8_mark) {
    nvtxwSessionHandle_t s = text_session("mark");
    nvtxDomainHandle_t d = domain(s, "d");
    nvtxwStreamHandle_t st = stream(s, "s", d);
    uint64_t mark = 0, message = 0;
    mark_utf8 header = {42, 0xff00ff00, 3};
    char text[] = "hello, world";
    nvtxPayloadData_t payloads[2] = {{0, sizeof header, &header}, {0, 5, text}};
    helper_schemas(d, &mark, &message);
    payloads[0].schemaId = mark;
    payloads[1].schemaId = message;
    ck_assert_ok(T->EventWrite(st, payloads, 2)); /* "hello", no terminator in bounds */
    payloads[1].size = 1;
    payloads[1].payload = ""; /* what the helper sends for a NULL message */
    ck_assert_ok(T->EventWrite(st, payloads, 2));
    ck_assert_ok(T->StreamClose(st));
    expect("session \"mark\"");
    expect("domain \"d\"");
    expect("stream_open \"s\" domain=\"d\" scope=0 time_domain=0 ordering=0/0/0/0");
    expect("schema domain=\"d\" id=%llu name=\"\" type=1 flags=32 size=16 entries=3",
           (unsigned long long)mark);
    expect("schema domain=\"d\" id=%llu name=\"\" type=2 flags=0 size=0 entries=1",
           (unsigned long long)message);
    expect("event stream=\"s\" ts=42");
    expect("  [0] <schema_%llu>: timestamp=42, color=0xff00ff00, category=3",
           (unsigned long long)mark);
    expect("  [1] <schema_%llu>: message=\"hello\"", (unsigned long long)message);
    expect("event stream=\"s\" ts=42");
    expect("  [0] <schema_%llu>: timestamp=42, color=0xff00ff00, category=3",
           (unsigned long long)mark);
    expect("  [1] <schema_%llu>: message=\"\"", (unsigned long long)message);
    expect("stream_close \"s\"");
    expect("session_end");
    ck_assert_output(s);
}
END_TEST

START_TEST(event_predefined_types) {
    nvtxwSessionHandle_t s = text_session("pre");
    nvtxwStreamHandle_t st = stream(s, "s", NULL);
    int32_t three[3] = {1, -2, 3};
    nvtxPayloadData_t ints = {NVTX_PAYLOAD_ENTRY_TYPE_INT32, 12, three};
    nvtxPayloadData_t str = {NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF8, SIZE_MAX, "abc"};
    ck_assert_ok(T->EventWrite(st, &ints, 1));
    ck_assert_ok(T->EventWrite(st, &str, 1));
    ck_assert_ok(T->StreamClose(st));
    expect("session \"pre\"");
    expect("domain \"\"");
    expect("stream_open \"s\" domain=\"\" scope=0 time_domain=0 ordering=0/0/0/0");
    expect("event stream=\"s\"");
    expect("  [0] INT32: <field_0>=[1, -2, 3]");
    expect("event stream=\"s\"");
    expect("  [0] CSTRING_UTF8: <field_0>=\"abc\"");
    expect("stream_close \"s\"");
    expect("session_end");
    ck_assert_output(s);
}
END_TEST

START_TEST(event_registered_string) {
    nvtxwSessionHandle_t s = text_session("rs");
    nvtxDomainHandle_t d = domain(s, "d");
    nvtxwStreamHandle_t st = stream(s, "s", d);
    nvtxStringHandle_t h = NULL;
    uint64_t schema = simple_schema(d, "regmsg", regmsg_entries), value;
    nvtxPayloadData_t payload = {schema, sizeof value, &value};
    ck_assert_ok(T->StringRegister(d, "registered", &h));
    value = (uint64_t)(uintptr_t)h;
    ck_assert_ok(T->EventWrite(st, &payload, 1));
    value = 0; /* no message */
    ck_assert_ok(T->EventWrite(st, &payload, 1));
    ck_assert_ok(T->StreamClose(st));
    expect("session \"rs\"");
    expect("domain \"d\"");
    expect("stream_open \"s\" domain=\"d\" scope=0 time_domain=0 ordering=0/0/0/0");
    expect("schema domain=\"d\" id=%llu name=\"regmsg\" type=1 flags=0 size=8 entries=1",
           (unsigned long long)schema);
    expect("string domain=\"d\" handle=0x%llx text=\"registered\"",
           (unsigned long long)(uintptr_t)h);
    expect("event stream=\"s\"");
    expect("  [0] regmsg: message=\"registered\"");
    expect("event stream=\"s\"");
    expect("  [0] regmsg: message=<handle:0>"); /* unresolved handle (format.h) */
    expect("stream_close \"s\"");
    expect("session_end");
    ck_assert_output(s);
}
END_TEST

/* Rejected events return 2, name the payload and field, and leave no line. */
START_TEST(event_register_before_use) {
    nvtxwSessionHandle_t s = text_session("rbu");
    nvtxDomainHandle_t d = domain(s, "d"), other = domain(s, "other");
    nvtxwStreamHandle_t st = stream(s, "s", d);
    nvtxStringHandle_t foreign = NULL;
    uint64_t regmsg = simple_schema(d, "regmsg", regmsg_entries);
    uint64_t scoped = simple_schema(d, "scoped", scoped_entries), value = 0;
    nvtxPayloadData_t p = {regmsg, sizeof value, &value};
    ck_assert_ok(T->StringRegister(other, "elsewhere", &foreign));
    value = (uint64_t)(uintptr_t)foreign;
    ck_assert_fails(T->EventWrite(st, &p, 1), NVTXW_RESULT_INVALID_ARGUMENT,
                    "payload 0 field \"message\": string handle");
    value = (uint64_t)(uintptr_t)foreign + 1000; /* never registered anywhere */
    ck_assert_fails(T->EventWrite(st, &p, 1), NVTXW_RESULT_INVALID_ARGUMENT,
                    "is not registered in the stream's domain");
    p.schemaId = scoped;
    value = STATIC_START + 12;
    ck_assert_fails(T->EventWrite(st, &p, 1), NVTXW_RESULT_INVALID_ARGUMENT,
                    "payload 0 field \"scope\": scope 16777228 is not registered");
    p.schemaId = STATIC_START + 999;
    ck_assert_fails(T->EventWrite(st, &p, 1), NVTXW_RESULT_INVALID_ARGUMENT, "payload 0");
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "schema ID 16778215 is not registered"));
    {
        char* text = end_and_read(s);
        ck_assert_ptr_null(strstr(text, "\nevent "));
        free(text);
    }
}
END_TEST

START_TEST(event_payload_too_short) {
    nvtxwSessionHandle_t s = text_session("short");
    nvtxDomainHandle_t d = domain(s, "d");
    nvtxwStreamHandle_t st = stream(s, "s", d);
    uint64_t schema = point_schema(d);
    point p = {1, 2, 0};
    nvtxPayloadData_t payloads[2] = {{NVTX_PAYLOAD_ENTRY_TYPE_INT8, 1, &p}, {schema, 10, &p}};
    ck_assert_fails(T->EventWrite(st, payloads, 2), NVTXW_RESULT_INVALID_ARGUMENT,
                    "cannot write event on stream \"s\"");
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "payload 1"));
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "\"value\""));
    ck_assert_fails(T->EventWrite(st, NULL, 1), NVTXW_RESULT_INVALID_ARGUMENT, "payloads is NULL");
    ck_assert_fails(T->EventWrite(st, payloads, 0), NVTXW_RESULT_INVALID_ARGUMENT,
                    "payloadCount is 0");
    {
        char* text = end_and_read(s);
        ck_assert_ptr_null(strstr(text, "\nevent "));
        free(text);
    }
}
END_TEST

/* A packed DYNAMIC schema of scalars and zero-terminated strings (the
 * shape of the Chrome input's args) takes the core's fast check, which must
 * accept and refuse exactly what the full walk does: a scalar needs all its
 * bytes, a string ends at its NUL or at the payload's end, bytes after the
 * last entry are ignored. Each case goes to a null session (the fast check
 * alone) and to a text session (whose output shows the walk's values). */
static const nvtxSemanticsHeader_t json_text_mark = {sizeof(nvtxSemanticsHeader_t),
                                                     NVTXW_SEMANTIC_ID_JSON_TEXT,
                                                     NVTXW_SEMANTIC_JSON_TEXT_VERSION, NULL};
static const nvtxPayloadSchemaEntry_t packed_entries[] = {
    {0, NVTX_PAYLOAD_ENTRY_TYPE_INT64, "a", NULL, 0, 0, NULL, NULL},
    {NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_ZERO_TERMINATED, NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF8, "s", NULL,
     0, 0, NULL, NULL},
    {0, NVTX_PAYLOAD_ENTRY_TYPE_UINT16, "b", NULL, 0, 0, NULL, NULL},
    {NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_ZERO_TERMINATED, NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF8, "j", NULL,
     0, 0, &json_text_mark, NULL},
};

static uint64_t packed_schema(nvtxDomainHandle_t d) {
    nvtxPayloadSchemaAttr_t a =
        schema_attr("packed", NVTX_PAYLOAD_SCHEMA_TYPE_DYNAMIC, 0, packed_entries, 4, 0);
    uint64_t id = 0;
    a.fieldMask |= NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ALIGNMENT;
    a.packAlign = 1;
    ck_assert_ok(T->SchemaRegister(d, &a, &id));
    return id;
}

START_TEST(event_packed_dynamic) {
    /* a = 5 (8 bytes), "hi", b = 0x0102 (2 bytes), "[1,2]" */
    static const uint8_t whole[] = {5, 0, 0,   0,   0,   0,   0,   0, 'h', 'i', 0,
                                    2, 1, '[', '1', ',', '2', ']', 0, 'x', 'y'};
    static const struct {
        size_t size; /* bytes of `whole` given */
        int valid;
        const char* line; /* the text sink's line of a valid case */
    } cases[] = {
        {21, 1, "  [0] packed: a=5, s=\"hi\", b=258, j=\"[1,2]\""}, /* trailing "xy" ignored */
        {19, 1, "  [0] packed: a=5, s=\"hi\", b=258, j=\"[1,2]\""},
        {16, 1, "  [0] packed: a=5, s=\"hi\", b=258, j=\"[1,\""}, /* j unterminated */
        {13, 1, "  [0] packed: a=5, s=\"hi\", b=258, j=\"\""},    /* j empty at the end */
        {12, 0, NULL},                                            /* b short by a byte */
        {10, 0, NULL},                                            /* s to the end, no b */
        {7, 0, NULL},                                             /* a short */
    };
    nvtxwSessionHandle_t fast = null_session(), text = text_session("packed");
    nvtxDomainHandle_t df = domain(fast, "d"), dt = domain(text, "d");
    nvtxwStreamHandle_t sf = stream(fast, "s", df), st = stream(text, "s", dt);
    nvtxPayloadData_t pf = {packed_schema(df), 0, whole}, pt = {packed_schema(dt), 0, whole};
    char* out;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pf.size = pt.size = cases[i].size;
        if (cases[i].valid) {
            ck_assert_ok(T->EventWrite(sf, &pf, 1));
            ck_assert_ok(T->EventWrite(st, &pt, 1));
        } else {
            ck_assert_fails(T->EventWrite(sf, &pf, 1), NVTXW_RESULT_INVALID_ARGUMENT,
                            "cannot write event on stream \"s\"");
            ck_assert_fails(T->EventWrite(st, &pt, 1), NVTXW_RESULT_INVALID_ARGUMENT,
                            "cannot write event on stream \"s\"");
        }
    }
    ck_assert_ok(T->SessionEnd(fast));
    out = end_and_read(text);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ck_assert_msg(!cases[i].valid || has_line(out, cases[i].line), "no line %s in:\n%s",
                      cases[i].line, out);
    free(out);
}
END_TEST

/* Entries with explicit offsets in a DYNAMIC schema are read there by the
 * walk, not one after the other: payloads that are too short for them
 * are refused (no fast check may take them for a sequence). */
static const nvtxPayloadSchemaEntry_t placed_entries[] = {
    {NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_ZERO_TERMINATED, NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF8, "s", NULL,
     0, 0, NULL, NULL},
    {0, NVTX_PAYLOAD_ENTRY_TYPE_UINT32, "v", NULL, 0, 8, NULL, NULL},
};
static const nvtxPayloadSchemaEntry_t placed_string[] = {
    {NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_ZERO_TERMINATED, NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF8, "s", NULL,
     0, 4, NULL, NULL},
};

START_TEST(event_dynamic_offsets) {
    static const uint8_t bytes[] = {'a', 'b', 0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    nvtxwSessionHandle_t s = null_session();
    nvtxDomainHandle_t d = domain(s, "d");
    nvtxwStreamHandle_t st = stream(s, "s", d);
    nvtxPayloadSchemaAttr_t a =
        schema_attr("placed", NVTX_PAYLOAD_SCHEMA_TYPE_DYNAMIC, 0, placed_entries, 2, 0);
    nvtxPayloadData_t p = {0, 7, bytes};
    a.fieldMask |= NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ALIGNMENT;
    a.packAlign = 1;
    ck_assert_ok(T->SchemaRegister(d, &a, &p.schemaId));
    ck_assert_fails(T->EventWrite(st, &p, 1), NVTXW_RESULT_INVALID_ARGUMENT, "\"v\"");
    p.size = 12; /* v at 8..11 */
    ck_assert_ok(T->EventWrite(st, &p, 1));
    a = schema_attr("placed string", NVTX_PAYLOAD_SCHEMA_TYPE_DYNAMIC, 0, placed_string, 1, 0);
    ck_assert_ok(T->SchemaRegister(d, &a, &p.schemaId));
    p.size = 2; /* the string would start at 4 */
    ck_assert_fails(T->EventWrite(st, &p, 1), NVTXW_RESULT_INVALID_ARGUMENT,
                    "cannot write event on stream \"s\"");
    ck_assert_ok(T->SessionEnd(s));
}
END_TEST

/* ==== Event batches ========================================================================== */

START_TEST(event_batch_static) {
    nvtxwSessionHandle_t s = text_session("batch");
    nvtxDomainHandle_t d = domain(s, "d");
    nvtxwStreamHandle_t st = stream(s, "s", d);
    uint64_t schema = point_schema(d), sc = scope(d, "q");
    point events[3] = {{1, 10, 0}, {2, 20, 0}, {3, 30, 0}};
    nvtxEventBatch_t batch;
    int i;
    memset(&batch, 0, sizeof batch);
    batch.eventSchemaId = schema;
    batch.size = sizeof events;
    batch.events = events;
    batch.scope = sc;
    ck_assert_ok(T->EventBatchWrite(st, &batch));
    ck_assert_ok(T->StreamClose(st));
    expect("session \"batch\"");
    expect("domain \"d\"");
    expect("stream_open \"s\" domain=\"d\" scope=0 time_domain=0 ordering=0/0/0/0");
    expect("schema domain=\"d\" id=%llu name=\"point\" type=1 flags=32 size=16 entries=2",
           (unsigned long long)schema);
    expect("scope domain=\"d\" id=%llu parent=1 path=\"q\"", (unsigned long long)sc);
    for (i = 1; i <= 3; i++) {
        expect("event stream=\"s\" ts=%d scope=%llu", i, (unsigned long long)sc);
        expect("  [0] point: ts=%d, value=%d", i, i * 10);
    }
    expect("stream_close \"s\"");
    expect("session_end");
    ck_assert_output(s);
}
END_TEST

START_TEST(event_batch_errors) {
    nvtxwSessionHandle_t s = null_session();
    nvtxDomainHandle_t d = domain(s, "d");
    nvtxwStreamHandle_t st = stream(s, "s", d);
    point events[4] = {{1, 10, 0}, {2, 20, 0}, {3, 30, 0}, {4, 40, 0}};
    nvtxEventBatch_t batch;
    memset(&batch, 0, sizeof batch);
    batch.eventSchemaId = point_schema(d);
    batch.size = 3 * sizeof(point) + 8; /* a trailing half event */
    batch.events = events;
    ck_assert_fails(T->EventBatchWrite(st, &batch), NVTXW_RESULT_INVALID_ARGUMENT,
                    "event 3 at offset 48 needs 16 bytes, 8 remain");
    batch.size = sizeof events;
    batch.scope = STATIC_START + 4;
    ck_assert_fails(T->EventBatchWrite(st, &batch), NVTXW_RESULT_INVALID_ARGUMENT,
                    "scope 16777220 is not registered");
    batch.scope = NVTX_SCOPE_NONE;
    batch.eventSchemaId = STATIC_START + 4;
    ck_assert_fails(T->EventBatchWrite(st, &batch), NVTXW_RESULT_INVALID_ARGUMENT,
                    "eventSchemaId=16777220 is not registered");
    ck_assert_fails(T->EventBatchWrite(st, NULL), NVTXW_RESULT_INVALID_ARGUMENT,
                    "eventBatch is NULL");
    ck_assert_ok(T->SessionEnd(s));
}
END_TEST

/* A batch rejected for its trailing partial event must not have written
 * its complete events: the producer sees INVALID_ARGUMENT and may resend
 * the corrected batch, which would duplicate them (sink.h: "a rejected
 * event leaves no trace"). */
START_TEST(event_batch_rejected_leaves_no_trace) {
    nvtxwSessionHandle_t s = text_session("atomic");
    nvtxDomainHandle_t d = domain(s, "d");
    nvtxwStreamHandle_t st = stream(s, "s", d);
    point events[4] = {{1, 10, 0}, {2, 20, 0}, {3, 30, 0}, {4, 40, 0}};
    nvtxEventBatch_t batch;
    char* text;
    memset(&batch, 0, sizeof batch);
    batch.eventSchemaId = point_schema(d);
    batch.size = 3 * sizeof(point) + 8;
    batch.events = events;
    ck_assert_int_eq(T->EventBatchWrite(st, &batch), NVTXW_RESULT_INVALID_ARGUMENT);
    text = end_and_read(s);
    ck_assert_msg(strstr(text, "\nevent ") == NULL, "rejected batch wrote events:\n%s", text);
    free(text);
}
END_TEST

/* ==== Time synchronisation ================================================================ */

START_TEST(time_sync_lines) {
    nvtxwSessionHandle_t s = text_session("sync");
    nvtxDomainHandle_t d = domain(s, "d");
    nvtxwStreamHandle_t st = stream(s, "s", d);
    nvtxSyncPoint_t points[2] = {{10, 1000}, {20, 2000}};
    uint64_t td = 0;
    const uint64_t raw = NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_MONOTONIC_RAW;
    ck_assert_ok(time_domain_with(d, STATIC_START + 2, &td));
    ck_assert_ok(T->TimeSyncPointWrite(st, td, raw, 5, -5));
    ck_assert_ok(T->TimeSyncPointTableWrite(st, raw, td, points, 2));
    ck_assert_ok(T->TimestampConversionFactorWrite(st, td, raw, 2.5, 100, 200));
    ck_assert_ok(T->StreamClose(st));
    expect("session \"sync\"");
    expect("domain \"d\"");
    expect("stream_open \"s\" domain=\"d\" scope=0 time_domain=0 ordering=0/0/0/0");
    expect("time_domain domain=\"d\" id=16777218 type=14 scope=0 resolution=1000000000 start=0 "
           "flags=0");
    expect("sync stream=\"s\" src=16777218 dst=15 points=(5,-5)");
    expect("sync stream=\"s\" src=15 dst=16777218 points=(10,1000) (20,2000)");
    expect("conversion stream=\"s\" src=16777218 dst=15 slope=2.5 anchor=(100,200)");
    expect("stream_close \"s\"");
    expect("session_end");
    ck_assert_output(s);
}
END_TEST

START_TEST(time_sync_errors) {
    nvtxwSessionHandle_t s = null_session();
    nvtxDomainHandle_t d = domain(s, "d");
    nvtxwStreamHandle_t st = stream(s, "s", d);
    nvtxSyncPoint_t sync = {1, 2};
    uint64_t foreign = 0, unknown = STATIC_START + 3;
    const uint64_t raw = NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_MONOTONIC_RAW;
    ck_assert_ok(time_domain_with(domain(s, "other"), 0, &foreign));
    ck_assert_fails(T->TimeSyncPointWrite(st, unknown, raw, 1, 2), NVTXW_RESULT_INVALID_ARGUMENT,
                    "time domain 16777219 is neither");
    ck_assert_fails(T->TimeSyncPointWrite(st, raw, foreign, 1, 2), NVTXW_RESULT_INVALID_ARGUMENT,
                    "nor registered in domain \"d\"");
    ck_assert_fails(T->TimeSyncPointTableWrite(st, raw, unknown, &sync, 1),
                    NVTXW_RESULT_INVALID_ARGUMENT, "16777219");
    ck_assert_fails(T->TimeSyncPointTableWrite(st, raw, 14, NULL, 1), NVTXW_RESULT_INVALID_ARGUMENT,
                    "syncPoints is NULL");
    ck_assert_fails(T->TimestampConversionFactorWrite(st, unknown, raw, 1.0, 0, 0),
                    NVTXW_RESULT_INVALID_ARGUMENT, "16777219");
    ck_assert_fails(T->TimestampConversionFactorWrite(st, 14, raw, 0.0, 0, 0),
                    NVTXW_RESULT_INVALID_ARGUMENT, "slope 0");
    ck_assert_fails(T->TimeSyncPointWrite(st, raw, raw, 1, 2), NVTXW_RESULT_INVALID_ARGUMENT,
                    "two distinct clocks");
    ck_assert_ok(T->SessionEnd(s));
}
END_TEST

/* ==== Handles ================================================================================ */

/* Every entry point given these handles must return 2 with the right message. */
static void all_calls_reject(nvtxwSessionHandle_t s, nvtxDomainHandle_t d, nvtxwStreamHandle_t st) {
    const char* no_session = "is not an open session";
    const char* no_domain = "is not a domain of an open session";
    const char* no_stream = "is not an open stream";
    nvtxwStreamAttributes_t sattr = stream_attr("x", NULL);
    nvtxPayloadSchemaAttr_t schema =
        schema_attr(NULL, NVTX_PAYLOAD_SCHEMA_TYPE_STATIC, 0, point_entries, 2, 16);
    nvtxw_resource_attributes_t r = resource(NVTXW_MESSAGE_TYPE_ASCII);
    nvtxCounterAttr_t cattr = {sizeof cattr, NVTX_PAYLOAD_ENTRY_TYPE_INT64, "c", NULL, 0, NULL, 0};
    nvtxTimeDomainAttr_t tattr = {0, 14, 0, 0, 0, 0};
    int64_t v = 1;
    nvtxPayloadData_t payload = {NVTX_PAYLOAD_ENTRY_TYPE_INT64, 8, &v};
    nvtxEventBatch_t batch = {NVTX_PAYLOAD_ENTRY_TYPE_INT64, 8, &v, 0, 0, NULL, 0, 0};
    nvtxCounterBatch_t cbatch = {STATIC_START, &v, 8, 0, NULL, 0};
    nvtxSyncPoint_t sync = {1, 2};
    nvtxDomainHandle_t dout = NULL;
    nvtxwStreamHandle_t sout = NULL;
    nvtxStringHandle_t hout = NULL;
    uint64_t id = 0;
    r.message.ascii = "r";
    ck_assert_fails(T->SessionEnd(s), NVTXW_RESULT_INVALID_ARGUMENT, no_session);
    ck_assert_fails(T->DomainRegister(s, NULL, &dout), NVTXW_RESULT_INVALID_ARGUMENT, no_session);
    ck_assert_fails(T->StreamOpen(s, &sattr, &sout), NVTXW_RESULT_INVALID_ARGUMENT, no_session);
    ck_assert_fails(T->CategoryRegister(d, 1, "c"), NVTXW_RESULT_INVALID_ARGUMENT, no_domain);
    ck_assert_fails(T->StringRegister(d, "s", &hout), NVTXW_RESULT_INVALID_ARGUMENT, no_domain);
    ck_assert_fails(RESOURCE(d, &r), NVTXW_RESULT_INVALID_ARGUMENT, no_domain);
    ck_assert_fails(scope_with(d, "p", NVTX_SCOPE_ROOT, 0, &id), NVTXW_RESULT_INVALID_ARGUMENT,
                    no_domain);
    ck_assert_fails(T->SchemaRegister(d, &schema, &id), NVTXW_RESULT_INVALID_ARGUMENT, no_domain);
    ck_assert_fails(enum_with_id(d, 0, &id), NVTXW_RESULT_INVALID_ARGUMENT, no_domain);
    ck_assert_fails(T->CounterRegister(d, &cattr, &id), NVTXW_RESULT_INVALID_ARGUMENT, no_domain);
    ck_assert_fails(T->TimeDomainRegister(d, &tattr, &id), NVTXW_RESULT_INVALID_ARGUMENT,
                    no_domain);
    ck_assert_fails(T->EventWrite(st, &payload, 1), NVTXW_RESULT_INVALID_ARGUMENT, no_stream);
    ck_assert_fails(T->EventBatchWrite(st, &batch), NVTXW_RESULT_INVALID_ARGUMENT, no_stream);
    ck_assert_fails(T->CounterWrite(st, 1, STATIC_START, &v, 8), NVTXW_RESULT_INVALID_ARGUMENT,
                    no_stream);
    ck_assert_fails(T->CounterNoValueWrite(st, 1, STATIC_START, 0), NVTXW_RESULT_INVALID_ARGUMENT,
                    no_stream);
    ck_assert_fails(T->CounterBatchWrite(st, &cbatch), NVTXW_RESULT_INVALID_ARGUMENT, no_stream);
    ck_assert_fails(T->TimeSyncPointWrite(st, 14, 15, 1, 2), NVTXW_RESULT_INVALID_ARGUMENT,
                    no_stream);
    ck_assert_fails(T->TimeSyncPointTableWrite(st, 14, 15, &sync, 1), NVTXW_RESULT_INVALID_ARGUMENT,
                    no_stream);
    ck_assert_fails(T->TimestampConversionFactorWrite(st, 14, 15, 1.0, 0, 0),
                    NVTXW_RESULT_INVALID_ARGUMENT, no_stream);
    ck_assert_fails(T->StreamClose(st), NVTXW_RESULT_INVALID_ARGUMENT, no_stream);
    ck_assert_ptr_null(dout);
    ck_assert_ptr_null(sout);
    ck_assert_ptr_null(hout);
}

START_TEST(handles_after_session_end) {
    nvtxwSessionHandle_t s = text_session("end");
    nvtxDomainHandle_t d = domain(s, "d");
    nvtxwStreamHandle_t st = stream(s, "s", d);
    ck_assert_ok(T->SessionEnd(s));
    all_calls_reject(s, d, st);
}
END_TEST

START_TEST(handles_garbage) {
    static const uintptr_t values[] = {
        0, 0x1234, UINTPTR_MAX, (uintptr_t)0xdeadbeef00000001ULL, (uintptr_t)0x00000001fffffff0ULL,
        1};
    nvtxwSessionHandle_t live = null_session(); /* lives in the tables meanwhile */
    size_t i;
    for (i = 0; i < sizeof values / sizeof values[0]; i++)
        all_calls_reject((nvtxwSessionHandle_t)values[i], (nvtxDomainHandle_t)values[i],
                         (nvtxwStreamHandle_t)values[i]);
    ck_assert_ok(T->SessionEnd(live));
}
END_TEST

/* A stale stream handle of a closed stream must not reach a stream opened
 * later in the same slot. */
START_TEST(handles_stale_stream_reused_slot) {
    nvtxwSessionHandle_t s = text_session("stale");
    nvtxwStreamHandle_t old = stream(s, "old", NULL), fresh;
    int32_t v = 1;
    nvtxPayloadData_t payload = {NVTX_PAYLOAD_ENTRY_TYPE_INT32, 4, &v};
    ck_assert_ok(T->StreamClose(old));
    fresh = stream(s, "fresh", NULL);
    ck_assert_ptr_ne(old, fresh);
    ck_assert_fails(T->EventWrite(old, &payload, 1), NVTXW_RESULT_INVALID_ARGUMENT,
                    "not an open stream");
    ck_assert_ok(T->EventWrite(fresh, &payload, 1));
    ck_assert_ok(T->SessionEnd(s));
}
END_TEST

/* ==== Faulty session ========================================================================== */

/* Child side: reports the first failed expectation through the pipe. */
static void child_fail(int fd, const char* what, nvtxwResultCode_t rc) {
    char msg[1400];
    int n = snprintf(msg, sizeof msg, "%s: rc=%d message=\"%s\"", what, rc, nvtxw_last_error());
    if (write(fd, msg, (size_t)n) < 0)
        _exit(3);
    _exit(1);
}

static void faulty_child(int fd) {
    struct rlimit limit = {4096, 4096};
    nvtxwSessionHandle_t s;
    nvtxDomainHandle_t d;
    nvtxwStreamHandle_t st;
    uint64_t schema, id = 0;
    nvtxwResultCode_t rc = NVTXW_RESULT_SUCCESS;
    int i, probe_before, probe_after;
    signal(SIGXFSZ, SIG_IGN); /* a write past the limit fails with EFBIG instead */
    if (setrlimit(RLIMIT_FSIZE, &limit) != 0)
        child_fail(fd, "setrlimit", 0);
    probe_before = dup(0);
    close(probe_before);
    s = text_session("faulty");
    d = domain(s, "d");
    st = stream(s, "s", d);
    schema = point_schema(d);
    for (i = 0; i < 100000 && rc == NVTXW_RESULT_SUCCESS; i++)
        rc = write_point(st, schema, i, i);
    if (rc != NVTXW_RESULT_FAILED || !strstr(nvtxw_last_error(), "cannot write text output") ||
        !strstr(nvtxw_last_error(), strerror(EFBIG)))
        child_fail(fd, "first failing write", rc);
    if ((rc = write_point(st, schema, 1, 1)) != NVTXW_RESULT_FAILED ||
        !strstr(nvtxw_last_error(), "session is faulty") ||
        !strstr(nvtxw_last_error(), strerror(EFBIG)))
        child_fail(fd, "write after the fault", rc);
    if ((rc = T->CounterNoValueWrite(st, 1, 1, 0)) != NVTXW_RESULT_FAILED ||
        !strstr(nvtxw_last_error(), "session is faulty"))
        child_fail(fd, "counter write after the fault", rc);
    if ((rc = scope_with(d, "x", NVTX_SCOPE_ROOT, 0, &id)) != NVTXW_RESULT_FAILED ||
        !strstr(nvtxw_last_error(), "session is faulty"))
        child_fail(fd, "registration after the fault", rc);
    if ((rc = open_with(s, d, 0, 0, "another")) != NVTXW_RESULT_FAILED ||
        !strstr(nvtxw_last_error(), "session is faulty"))
        child_fail(fd, "stream open after the fault", rc);
    if ((rc = T->SessionEnd(s)) != NVTXW_RESULT_FAILED)
        child_fail(fd, "SessionEnd of a faulty session", rc);
    probe_after = dup(0); /* the output descriptor must have been closed */
    if (probe_after != probe_before)
        child_fail(fd, "output descriptor still open after SessionEnd", probe_after);
    if ((rc = T->SessionEnd(s)) != NVTXW_RESULT_INVALID_ARGUMENT)
        child_fail(fd, "second SessionEnd", rc);
    if (write(fd, "OK", 2) != 2)
        _exit(3);
    _exit(0);
}

START_TEST(faulty_session) { tu_run_child_or_fail(faulty_child); }
END_TEST

/* ==== Suite ====================================================================================
 */

static TCase* tcase(Suite* suite, const char* name) {
    TCase* tc = tcase_create(name);
    tcase_add_checked_fixture(tc, setup, teardown);
    suite_add_tcase(suite, tc);
    return tc;
}

static void add_interface_session(Suite* suite) {
    TCase* tc = tcase(suite, "interface");
    tcase_add_test(tc, get_interface_v2);
    tcase_add_test(tc, get_interface_reserved_null);
    tcase_add_test(tc, get_interface_other_versions);
    tcase_add_test(tc, get_interface_null_out);
    tcase_add_test(tc, finalize_repeatedly);
    tcase_add_test(tc, finalize_with_live_session);
    tcase_add_test(tc, finalize_stale_handle_stays_stale);
    tc = tcase(suite, "session");
    tcase_add_test(tc, session_begin_null_arguments);
    tcase_add_test(tc, session_struct_size);
    tcase_add_test(tc, session_unknown_sink);
    tcase_add_test(tc, session_bad_compression);
    tcase_add_test(tc, session_bad_compression_threads);
    tcase_add_test(tc, session_bad_overwrite);
    tcase_add_test(tc, session_first_key_wins);
    tcase_add_test(tc, session_text_output_minimal);
    tcase_add_test(tc, session_output_unwritable);
    tcase_add_test(tc, session_output_exists);
    tcase_add_test(tc, session_output_stdout);
    tcase_add_test(tc, names_escaped);
}

static void add_registrations(Suite* suite) {
    TCase* tc = tcase(suite, "domain");
    tcase_add_test(tc, domain_default_and_named);
    tcase_add_test(tc, domain_register_errors);
    tcase_add_test(tc, category_register);
    tcase_add_test(tc, string_register);
    tcase_add_test(tc, resource_register);
    tcase_add_test(tc, resource_unicode_not_supported);
    tc = tcase(suite, "ids");
    tcase_add_test(tc, schema_static_id_range);
    tcase_add_test(tc, schema_enum_shared_ids);
    tcase_add_test(tc, schema_out_pointer);
    tcase_add_test(tc, enum_out_pointer);
    tcase_add_test(tc, schema_enum_required_fields);
    tcase_add_test(tc, scope_id_rules);
    tcase_add_test(tc, counter_id_rules);
    tcase_add_test(tc, time_domain_id_rules);
    tcase_add_test(tc, dynamic_schema_enum_ids);
    tcase_add_test(tc, registration_lines);
    tc = tcase(suite, "scope");
    tcase_add_test(tc, scope_rules);
    tcase_add_test(tc, scope_attr_errors);
    tcase_add_test(tc, scope_release_rules);
    tcase_add_test(tc, scope_release_frees);
}

static void add_streams_and_writes(Suite* suite) {
    TCase* tc = tcase(suite, "stream");
    tcase_add_test(tc, stream_scope_rules);
    tcase_add_test(tc, stream_duplicate_name);
    tcase_add_test(tc, stream_time_domain_rules);
    tcase_add_test(tc, stream_foreign_domain);
    tcase_add_test(tc, stream_attr_errors);
    tcase_add_test(tc, stream_open_line);
    tcase_add_test(tc, stream_close_then_continue);
    tcase_add_test(tc, stream_close_any_order);
    tc = tcase(suite, "event");
    tcase_add_test(tc, event_inputs_copied);
    tcase_add_test(tc, event_size_zero_payload_ignored);
    tcase_add_test(tc, event_utf8_mark);
    tcase_add_test(tc, event_predefined_types);
    tcase_add_test(tc, event_registered_string);
    tcase_add_test(tc, event_register_before_use);
    tcase_add_test(tc, event_payload_too_short);
    tcase_add_test(tc, event_packed_dynamic);
    tcase_add_test(tc, event_dynamic_offsets);
    tcase_add_test(tc, event_batch_static);
    tcase_add_test(tc, event_batch_errors);
    tcase_add_test(tc, event_batch_rejected_leaves_no_trace);
    tc = tcase(suite, "counter");
    tcase_add_test(tc, counter_register_errors);
    tcase_add_test(tc, counter_write_int64);
    tcase_add_test(tc, counter_no_value);
    tcase_add_test(tc, counter_batch_timestamps);
    tcase_add_test(tc, counter_batch_embedded_timestamps);
    tc = tcase(suite, "time");
    tcase_add_test(tc, time_sync_lines);
    tcase_add_test(tc, time_sync_errors);
    tcase_add_test(tc, time_domain_register_errors);
}

static void add_robustness(Suite* suite) {
    TCase* tc = tcase(suite, "handles");
    tcase_add_test(tc, handles_after_session_end);
    tcase_add_test(tc, handles_garbage);
    tcase_add_test(tc, handles_stale_stream_reused_slot);
    tcase_add_test(tc, faulty_session);
    tcase_add_test(tc, session_output_files);
    tcase_add_test(tc, session_output_special_files);
}

int main(void) {
    Suite* suite = suite_create("core");
    add_interface_session(suite);
    add_registrations(suite);
    add_streams_and_writes(suite);
    add_robustness(suite);
    return tu_run_suite(suite);
}
