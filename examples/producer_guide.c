/*
 * producer_guide.c - the complete example of docs/producer-guide.md: a
 * profiler that links libnvtxw directly and writes a report of two threads,
 * each on its own stream, with registered range names, a mark and a
 * counter, on a clock it names.
 *
 * Build against an installed libnvtxw (make installcheck does this):
 *   cc producer_guide.c $(pkg-config --cflags --libs nvtxw) \
 *      -Wl,-rpath,$(pkg-config --variable=libdir nvtxw) -lpthread -o producer_guide
 *   ./producer_guide trace.nvtxw && nvtxw-replay trace.nvtxw --stats
 *
 * Exit status 0 when the report was written; otherwise the failing call and
 * nvtxw_last_error() on stderr, and 1.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <nvtxw/nvtxw.h>

#define THREADS 2
#define STEPS 1000

/* What each thread needs: the table, its own stream writer (the helper
 * schemas are registered once and shared), the names and the counter. */
typedef struct thread_state {
    const nvtxwInterface_t* iface;
    nvtxwEventWriter_t writer;
    nvtxStringHandle_t step_name, solve_name;
    uint64_t counter;
    int index;
    int failed;
} thread_state;

static int check(nvtxwResultCode_t result, const char* call) {
    if (result == NVTXW_RESULT_SUCCESS)
        return 0;
    fprintf(stderr, "producer_guide: %s failed (%d): %s\n", call, (int)result, nvtxw_last_error());
    return 1;
}

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Runs on its own thread: writes only to its own stream, with no lock. */
static void* work(void* arg) {
    thread_state* t = arg;
    nvtxwEventAttributes_t step = {0, 0, 0}, solve = {0, 0, 0};
    int i;
    step.message = t->step_name;
    solve.message = t->solve_name;
    for (i = 0; i < STEPS && !t->failed; i++) {
        int64_t begin = now_ns();
        int64_t end = begin + 2000 + 100 * (i % 7);
        t->failed |= check(nvtxwRangePushWrite(&t->writer, begin, step), "nvtxwRangePushWrite");
        t->failed |= check(nvtxwRangePushPopWrite(&t->writer, begin + 100, end - 100, solve),
                           "nvtxwRangePushPopWrite");
        if (i % 100 == 0)
            t->failed |= check(nvtxwMarkWrite(&t->writer, begin + 50, solve), "nvtxwMarkWrite");
        t->failed |= check(nvtxwCounterInt64Write(t->iface, t->writer.stream, end, t->counter,
                                                  (int64_t)i * (t->index + 1)),
                           "nvtxwCounterInt64Write");
        t->failed |= check(nvtxwRangePopWrite(&t->writer, end), "nvtxwRangePopWrite");
    }
    return NULL;
}

int main(int argc, char** argv) {
    const nvtxwInterface_t* iface = NULL;
    nvtxwSessionAttributes_t session_attr;
    nvtxwSessionHandle_t session = NULL;
    nvtxDomainHandle_t domain = NULL;
    nvtxwEventHelperSchemaIds_t schemas;
    uint64_t clock_id = 0, counter = 0;
    nvtxStringHandle_t step_name, solve_name;
    thread_state threads[THREADS];
    pthread_t ids[THREADS];
    char config[4200];
    int i, failed = 0;
    if (argc != 2) {
        fprintf(stderr, "usage: producer_guide OUT.nvtxw\n");
        return 2;
    }
    /* 1. the function table, linked directly (no loader needed) */
    if (check(nvtxwGetInterface(NVTXW_INTERFACE_VERSION, (const void**)&iface),
              "nvtxwGetInterface"))
        return 1;
    /* 2. a session: the config string chooses the sink and the output */
    snprintf(config, sizeof config, "Sink=report|Output=%s|Overwrite=yes", argv[1]);
    nvtxwSessionAttributesInit(&session_attr);
    session_attr.name = "producer guide";
    session_attr.configString = config;
    if (check(iface->SessionBegin(&session_attr, &session), "SessionBegin"))
        return 1;
    /* 3. registrations: a domain, the helper schemas, names, a clock, a counter */
    failed =
        check(nvtxwDomainRegister(iface, session, "guide", &domain), "nvtxwDomainRegister") ||
        check(nvtxwEventSchemasRegister(iface, domain, NVTXW_EVENT_HELPER_SCHEMA_ALL, &schemas),
              "nvtxwEventSchemasRegister") ||
        check(iface->StringRegister(domain, "step", &step_name), "StringRegister") ||
        check(iface->StringRegister(domain, "solve", &solve_name), "StringRegister") ||
        check(nvtxwTimeDomainRegister(iface, domain,
                                      NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_MONOTONIC, &clock_id),
              "nvtxwTimeDomainRegister") ||
        check(nvtxwCounterInt64Register(iface, domain, "items done", NULL, &counter),
              "nvtxwCounterInt64Register");
    /* 4. one stream per thread, opened before the threads start */
    for (i = 0; !failed && i < THREADS; i++) {
        char name[32], scope[64];
        nvtxwStreamHandle_t stream = NULL;
        memset(&threads[i], 0, sizeof threads[i]);
        snprintf(name, sizeof name, "worker %d", i);
        snprintf(scope, sizeof scope, "/node0/process/thread[%d]", i);
        threads[i].iface = iface;
        threads[i].step_name = step_name;
        threads[i].solve_name = solve_name;
        threads[i].counter = counter;
        threads[i].index = i;
        failed = check(nvtxwStreamOpen(iface, session, name, domain, scope, clock_id, &stream),
                       "nvtxwStreamOpen") ||
                 check(nvtxwEventWriterInit(&threads[i].writer, iface, stream, &schemas),
                       "nvtxwEventWriterInit");
    }
    /* 5. write from the threads, then close what was opened */
    for (i = 0; !failed && i < THREADS; i++)
        failed = pthread_create(&ids[i], NULL, work, &threads[i]) != 0;
    for (i = 0; !failed && i < THREADS; i++) {
        pthread_join(ids[i], NULL);
        failed |= threads[i].failed;
    }
    if (check(iface->SessionEnd(session), "SessionEnd")) /* closes the streams, finishes the file */
        failed = 1;
    nvtxwFinalize(); /* optional: frees the library's global state */
    return failed ? 1 : 0;
}
