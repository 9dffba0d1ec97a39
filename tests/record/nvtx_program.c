/*
 * tests/record/nvtx_program.c - an NVTX-annotated program written only
 * against NVIDIA's nvtx3 C headers (no GPU, no CUDA runtime), recorded by
 * tests/record/record_test.sh through nvtxw-record. Each mode does a known
 * set of NVTX calls; the test checks that the report holds exactly them.
 *
 *   nvtx_program basic       marks, push/pop (ASCII, wide, Ex with color,
 *                            category and payload values), a domain with a
 *                            registered string and a named category, a
 *                            start/end range, a named thread
 *   nvtx_program threads N   N threads, each 100 nested push/pops named
 *                            after it and a start/end range that the
 *                            previous thread ends
 *   nvtx_program sleep       a range around a 1 ms sleep
 *   nvtx_program misuse      pops without pushes, an unknown range end,
 *                            NULL messages, a bad attribute struct
 *   nvtx_program none        no NVTX call
 *   nvtx_program kill N      N marks, then SIGKILL to itself
 *   nvtx_program thread-exit a thread calls exit(3) while main waits
 *   nvtx_program fork        a mark, a child that marks and exits without
 *                            exec, a mark after it
 *   nvtx_program loop N      N push/pop pairs of one name (the overhead
 *                            measurement of docs/record.md), then prints
 *                            "loop done: N pairs"
 *   nvtx_program payload     the payload extension: a schema "job" (rank,
 *                            load), a mark, a push/pop and a start/end
 *                            range carrying it; then a schema that does
 *                            not validate, a payload of a schema never
 *                            registered and one whose message points at
 *                            the program's memory (all three refused)
 *   nvtx_program counters    the counters extension: int64, double, uint8
 *                            (static ID) and a counter group {int32, float}
 *                            sampled by value, by sample, without value
 *                            and in a batch; then values their types cannot
 *                            hold, a sample of the wrong size and a counter
 *                            never registered (all four dropped, counted)
 *   nvtx_program sync        the sync module: a lock held 1 ms, a failed
 *                            try, a semaphore posted by another thread, an
 *                            immediate try; then a release with nothing
 *                            held and an object never created (counted);
 *                            two named resources (ASCII and wide)
 *   nvtx_program names N     N marks and N push/pops, each of its own name,
 *                            and N registered strings
 *   nvtx_program clock N     N marks 10 ms apart, each between two reads
 *                            of CLOCK_MONOTONIC, printed "BEFORE AFTER" a
 *                            line: the recorded times must fall between
 */
#define _GNU_SOURCE
#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtCounters.h>
#include <nvtx3/nvToolsExtPayload.h>
#include <nvtx3/nvToolsExtSync.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static nvtxEventAttributes_t attributes(const char* message) {
    nvtxEventAttributes_t a;
    memset(&a, 0, sizeof a);
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = message;
    return a;
}

static int basic(void) {
    nvtxEventAttributes_t a;
    nvtxDomainHandle_t domain;
    nvtxStringHandle_t registered;
    nvtxRangeId_t id;
    nvtxNameOsThreadA((uint32_t)gettid(), "main thread");
    nvtxNameCategoryA(7, "io");
    nvtxMarkA("hello");
    nvtxRangePushA("outer");
    nvtxRangePushW(L"inner \u00fc\u20ac");
    nvtxRangePop();
    nvtxRangePop();
    a = attributes("valued");
    a.colorType = NVTX_COLOR_ARGB;
    a.color = 0xff00ff00u;
    a.category = 7;
    a.payloadType = NVTX_PAYLOAD_TYPE_INT64;
    a.payload.llValue = -42;
    nvtxMarkEx(&a);
    a = attributes("double");
    a.payloadType = NVTX_PAYLOAD_TYPE_DOUBLE;
    a.payload.dValue = 2.5;
    nvtxRangePushEx(&a);
    nvtxRangePop();
    domain = nvtxDomainCreateA("dom");
    registered = nvtxDomainRegisterStringA(domain, "registered");
    nvtxDomainNameCategoryA(domain, 3, "compute");
    a = attributes(NULL);
    a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    a.message.registered = registered;
    a.category = 3;
    nvtxDomainRangePushEx(domain, &a);
    nvtxDomainMarkEx(domain, &a);
    nvtxDomainRangePop(domain);
    id = nvtxRangeStartA("async");
    nvtxRangeEnd(id);
    return 0;
}

static pthread_barrier_t barrier;
static nvtxRangeId_t handed[256];
static int thread_count;

static void* worker(void* arg) {
    int index = (int)(size_t)arg, i;
    char name[32];
    snprintf(name, sizeof name, "t%d", index);
    handed[index] = nvtxRangeStartA(name);
    for (i = 0; i < 100; i++) {
        nvtxRangePushA(name);
        nvtxRangePushA("leaf");
        nvtxRangePop();
        nvtxRangePop();
    }
    pthread_barrier_wait(&barrier);
    /* the range the next thread started, ended here */
    nvtxRangeEnd(handed[(index + 1) % thread_count]);
    return NULL;
}

static int threads(int count) {
    pthread_t t[256];
    int i;
    if (count < 1 || count > 256)
        return 2;
    thread_count = count;
    /* NVTX attaches the tool at the first call; threads that race that
     * first call race inside NVTX's own initialization (plain reads of the
     * function pointers it is filling: what ThreadSanitizer reports there
     * is NVTX's, not the recorder's). Its documented remedy: initialize
     * first. */
    nvtxInitialize(NULL);
    pthread_barrier_init(&barrier, NULL, (unsigned)count);
    for (i = 0; i < count; i++)
        pthread_create(&t[i], NULL, worker, (void*)(size_t)i);
    for (i = 0; i < count; i++)
        pthread_join(t[i], NULL);
    return 0;
}

static int sleep_range(void) {
    struct timespec ms = {0, 1000000};
    nvtxRangePushA("sleep");
    nanosleep(&ms, NULL);
    nvtxRangePop();
    return 0;
}

static int misuse(void) {
    nvtxEventAttributes_t a = attributes("bad size");
    nvtxRangePop();
    nvtxRangePop();
    nvtxRangeEnd(12345);
    nvtxMarkA(NULL);
    nvtxRangePushA(NULL);
    nvtxRangePop();
    a.size = 2; /* not even the category fits */
    nvtxMarkEx(&a);
    nvtxMarkEx(NULL);
    nvtxMarkA("bad \xff utf-8");
    nvtxMarkA("after");
    return 0;
}

typedef struct job {
    int32_t rank;
    double load;
} job;

static const nvtxPayloadSchemaEntry_t job_entries[] = {
    {0, NVTX_PAYLOAD_ENTRY_TYPE_INT32, "rank", NULL, 0, offsetof(job, rank), NULL, NULL},
    {0, NVTX_PAYLOAD_ENTRY_TYPE_DOUBLE, "load", NULL, 0, offsetof(job, load), NULL, NULL},
};

/* A message field pointing at the program's own memory: refused for now
 * (docs/record.md). */
typedef struct note {
    const char* text;
} note;

static const nvtxPayloadSchemaEntry_t note_entries[] = {
    {NVTX_PAYLOAD_ENTRY_FLAG_EVENT_MESSAGE | NVTX_PAYLOAD_ENTRY_FLAG_POINTER |
         NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_ZERO_TERMINATED | NVTX_PAYLOAD_ENTRY_FLAG_DEEP_COPY,
     NVTX_PAYLOAD_ENTRY_TYPE_CHAR, "text", NULL, 0, 0, NULL, NULL},
};

static uint64_t register_schema(nvtxDomainHandle_t domain, const char* name,
                                const nvtxPayloadSchemaEntry_t* entries, size_t count,
                                size_t size) {
    nvtxPayloadSchemaAttr_t attr;
    memset(&attr, 0, sizeof attr);
    attr.fieldMask = NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NAME | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE |
                     NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES |
                     NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES |
                     NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_STATIC_SIZE;
    attr.name = name;
    attr.type = NVTX_PAYLOAD_SCHEMA_TYPE_STATIC;
    attr.entries = entries;
    attr.numEntries = count;
    attr.payloadStaticSize = size;
    return nvtxPayloadSchemaRegister(domain, &attr);
}

static int payload(void) {
    nvtxDomainHandle_t domain = nvtxDomainCreateA("jobs");
    job j = {3, 0.5};
    note n = {"a note"};
    nvtxPayloadData_t data;
    nvtxRangeId_t id;
    uint64_t schema = register_schema(domain, "job", job_entries, 2, sizeof(job));
    uint64_t note_schema = register_schema(domain, "note", note_entries, 1, sizeof(note));
    uint64_t bad = register_schema(domain, "empty", job_entries, 0, 0); /* does not validate */
    if (schema == 0 || note_schema == 0)
        return 4;
    data.schemaId = schema;
    data.size = sizeof j;
    data.payload = &j;
    nvtxMarkPayload(domain, &data, 1);
    j.rank = 4;
    nvtxRangePushPayload(domain, &data, 1);
    nvtxRangePopPayload(domain, NULL, 0);
    j.rank = 5;
    id = nvtxRangeStartPayload(domain, &data, 1);
    nvtxRangeEndPayload(domain, id, NULL, 0);
    data.schemaId = 0x100000123ull; /* never registered */
    nvtxMarkPayload(domain, &data, 1);
    data.schemaId = note_schema;
    data.size = sizeof n;
    data.payload = &n;
    nvtxMarkPayload(domain, &data, 1);
    return bad == 0 ? 0 : 5;
}

typedef struct pair {
    int32_t count;
    float ratio;
} pair;

static const nvtxPayloadSchemaEntry_t pair_entries[] = {
    {0, NVTX_PAYLOAD_ENTRY_TYPE_INT32, "count", NULL, 0, offsetof(pair, count), NULL, NULL},
    {0, NVTX_PAYLOAD_ENTRY_TYPE_FLOAT, "ratio", NULL, 0, offsetof(pair, ratio), NULL, NULL},
};

static uint64_t register_counter(nvtxDomainHandle_t domain, const char* name, uint64_t type,
                                 uint64_t id) {
    nvtxCounterAttr_t attr;
    memset(&attr, 0, sizeof attr);
    attr.structSize = sizeof attr;
    attr.schemaId = type;
    attr.name = name;
    attr.scopeId = NVTX_SCOPE_NONE;
    attr.counterId = id;
    return nvtxCounterRegister(domain, &attr);
}

static int counters(void) {
    nvtxDomainHandle_t domain = nvtxDomainCreateA("metrics");
    uint64_t group = register_schema(domain, "pair", pair_entries, 2, sizeof(pair));
    uint64_t bytes = register_counter(domain, "bytes", NVTX_PAYLOAD_ENTRY_TYPE_INT64, 0);
    uint64_t load = register_counter(domain, "load", NVTX_PAYLOAD_ENTRY_TYPE_DOUBLE, 0);
    uint64_t level = register_counter(domain, "level", NVTX_PAYLOAD_ENTRY_TYPE_UINT8,
                                      NVTX_COUNTER_ID_STATIC_START + 5);
    uint64_t pairs = register_counter(domain, "pairs", group, 0);
    pair p = {4, 1.5f};
    int64_t values[3] = {400, 500, 600}, times[3];
    struct timespec now;
    nvtxCounterBatch_t batch;
    int i;
    if (group == 0 || bytes == 0 || load == 0 || pairs == 0 ||
        level != NVTX_COUNTER_ID_STATIC_START + 5)
        return 6;
    nvtxCounterSampleInt64(domain, bytes, 100);
    nvtxCounterSampleInt64(domain, bytes, 200);
    nvtxCounterSampleNoValue(domain, bytes, NVTX_COUNTER_SAMPLE_UNCHANGED);
    nvtxCounterSampleInt64(domain, bytes, 300);
    nvtxCounterSampleFloat64(domain, load, 0.25);
    nvtxCounterSampleInt64(domain, load, 2);
    nvtxCounterSampleInt64(domain, level, 7);
    nvtxCounterSampleFloat64(domain, level, 9.75);
    nvtxCounterSample(domain, pairs, &p, sizeof p);
    clock_gettime(CLOCK_MONOTONIC, &now);
    for (i = 0; i < 3; i++)
        times[i] = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec + i * 1000;
    memset(&batch, 0, sizeof batch);
    batch.counterId = bytes;
    batch.counters = values;
    batch.countersSize = sizeof values;
    batch.timestamps = times;
    batch.timestampsSize = sizeof times;
    nvtxCounterBatchSubmit(domain, &batch);
    /* dropped and counted: values the type cannot hold, a sample of the
     * wrong size, a counter never registered */
    nvtxCounterSampleInt64(domain, level, 300);
    nvtxCounterSampleFloat64(domain, level, strtod("nan", NULL));
    nvtxCounterSample(domain, pairs, &p, 3);
    nvtxCounterSampleInt64(domain, NVTX_COUNTER_ID_STATIC_START + 77, 1);
    return 0;
}

static nvtxSyncUser_t sync_object(nvtxDomainHandle_t domain, int wide, const void* name) {
    nvtxSyncUserAttributes_t attr;
    memset(&attr, 0, sizeof attr);
    attr.version = NVTX_VERSION;
    attr.size = NVTX_SYNCUSER_ATTRIB_STRUCT_SIZE;
    attr.messageType = wide ? NVTX_MESSAGE_TYPE_UNICODE : NVTX_MESSAGE_TYPE_ASCII;
    if (wide)
        attr.message.unicode = name;
    else
        attr.message.ascii = name;
    return nvtxDomainSyncUserCreate(domain, &attr);
}

static void* post(void* semaphore) {
    nvtxDomainSyncUserReleasing(semaphore);
    return NULL;
}

static int sync_mode(void) {
    nvtxDomainHandle_t domain = nvtxDomainCreateA("locks");
    nvtxSyncUser_t lock = sync_object(domain, 0, "queue lock");
    nvtxSyncUser_t semaphore = sync_object(domain, 1, L"s\u00e9maphore");
    struct timespec ms = {0, 1000000};
    nvtxResourceAttributes_t resource;
    pthread_t poster;
    if (lock == NULL || semaphore == NULL)
        return 7;
    nvtxDomainSyncUserAcquireStart(lock);
    nvtxDomainSyncUserAcquireSuccess(lock);
    nanosleep(&ms, NULL);
    nvtxDomainSyncUserReleasing(lock);
    nvtxDomainSyncUserAcquireStart(lock);
    nvtxDomainSyncUserAcquireFailed(lock);
    nvtxDomainSyncUserAcquireStart(semaphore);
    nvtxDomainSyncUserAcquireSuccess(semaphore);
    pthread_create(&poster, NULL, post, semaphore);
    pthread_join(poster, NULL);
    nvtxDomainSyncUserAcquireSuccess(lock); /* a try that succeeds at once */
    nvtxDomainSyncUserReleasing(lock);
    /* counted: a release with nothing held, an object never created */
    nvtxDomainSyncUserReleasing(lock);
    nvtxDomainSyncUserAcquireStart((nvtxSyncUser_t)(uintptr_t)0x12345);
    nvtxDomainSyncUserDestroy(lock);
    nvtxDomainSyncUserDestroy(semaphore);
    memset(&resource, 0, sizeof resource);
    resource.version = NVTX_VERSION;
    resource.size = NVTX_RESOURCE_ATTRIB_STRUCT_SIZE;
    resource.identifierType = NVTX_RESOURCE_TYPE_GENERIC_POINTER;
    resource.identifier.pValue = &resource;
    resource.messageType = NVTX_MESSAGE_TYPE_ASCII;
    resource.message.ascii = "config block";
    nvtxDomainResourceDestroy(nvtxDomainResourceCreate(domain, &resource));
    resource.identifierType = NVTX_RESOURCE_TYPE_GENERIC_HANDLE;
    resource.identifier.ullValue = 42;
    resource.messageType = NVTX_MESSAGE_TYPE_UNICODE;
    resource.message.unicode = L"handle \u00e9";
    return nvtxDomainResourceCreate(domain, &resource) != NULL ? 0 : 8;
}

static void* exiting(void* arg) {
    (void)arg;
    nvtxMarkA("thread exits the process");
    exit(3);
}

int main(int argc, char** argv) {
    const char* mode = argc > 1 ? argv[1] : "basic";
    if (strcmp(mode, "basic") == 0)
        return basic();
    if (strcmp(mode, "threads") == 0)
        return threads(argc > 2 ? atoi(argv[2]) : 4);
    if (strcmp(mode, "sleep") == 0)
        return sleep_range();
    if (strcmp(mode, "misuse") == 0)
        return misuse();
    if (strcmp(mode, "none") == 0)
        return 0;
    if (strcmp(mode, "kill") == 0) {
        long n = argc > 2 ? atol(argv[2]) : 100000, i;
        for (i = 0; i < n; i++)
            nvtxMarkA("before the kill");
        raise(SIGKILL);
    }
    if (strcmp(mode, "payload") == 0)
        return payload();
    if (strcmp(mode, "counters") == 0)
        return counters();
    if (strcmp(mode, "sync") == 0)
        return sync_mode();
    if (strcmp(mode, "names") == 0) {
        long n = argc > 2 ? atol(argv[2]) : 1000000, i;
        nvtxDomainHandle_t domain = nvtxDomainCreateA("names");
        char name[48];
        for (i = 0; i < n; i++) {
            snprintf(name, sizeof name, "name %ld", i);
            nvtxMarkA(name);
            nvtxRangePushA(name);
            nvtxRangePop();
            nvtxDomainRegisterStringA(domain, name);
        }
        return 0;
    }
    if (strcmp(mode, "clock") == 0) {
        long n = argc > 2 ? atol(argv[2]) : 30, i;
        struct timespec pause_10ms = {0, 10000000};
        for (i = 0; i < n; i++) {
            struct timespec before, after;
            clock_gettime(CLOCK_MONOTONIC, &before);
            nvtxMarkA("clock");
            clock_gettime(CLOCK_MONOTONIC, &after);
            printf("%lld %lld\n", (long long)before.tv_sec * 1000000000LL + before.tv_nsec,
                   (long long)after.tv_sec * 1000000000LL + after.tv_nsec);
            nanosleep(&pause_10ms, NULL);
        }
        return 0;
    }
    if (strcmp(mode, "loop") == 0) {
        long n = argc > 2 ? atol(argv[2]) : 1000000, i;
        for (i = 0; i < n; i++) {
            nvtxRangePushA("iteration");
            nvtxRangePop();
        }
        printf("loop done: %ld pairs\n", n);
        return 0;
    }
    if (strcmp(mode, "fork") == 0) {
        pid_t pid;
        int status = 0;
        nvtxMarkA("parent");
        if ((pid = fork()) == 0) {
            nvtxMarkA("child");
            nvtxDomainCreateA("child domain");
            exit(0); /* its atexit handlers run: the recorder's must not touch the parent's */
        }
        waitpid(pid, &status, 0);
        nvtxMarkA("parent after");
        return status == 0 ? 0 : 1;
    }
    if (strcmp(mode, "thread-exit") == 0) {
        pthread_t t;
        nvtxMarkA("main");
        pthread_create(&t, NULL, exiting, NULL);
        pause();
    }
    fprintf(stderr, "nvtx_program: unknown mode %s\n", mode);
    return 2;
}
