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
 *   nvtx_program names N     N marks and N push/pops, each of its own name,
 *                            and N registered strings
 *   nvtx_program clock N     N marks 10 ms apart, each between two reads
 *                            of CLOCK_MONOTONIC, printed "BEFORE AFTER" a
 *                            line: the recorded times must fall between
 */
#define _GNU_SOURCE
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <signal.h>
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
