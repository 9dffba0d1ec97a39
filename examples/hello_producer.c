/*
 * hello_producer - a minimal NVTXW producer: four worker threads, each with
 * its own stream, write nested push/pop ranges, marks and a counter with
 * explicit timestamps, through whatever backend the reference loader finds
 * (NVTXW3_LIBRARY, else libnvtxw3.so next to the program, on the library
 * path or in the current directory). It uses only NVIDIA-compatible calls, so
 * the same source works with any NVTXW v2 backend.
 *
 *   NVTXW3_LIBRARY=/path/libnvtxw3.so hello_producer OUT.nvtxw
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "nvtxw/helpers.h"
#include "nvtxw/loader.h"

#define WORKERS 4
#define STEPS 250

typedef struct worker {
    nvtxwEventWriter_t writer; /* a copy per stream: schemas shared, stream own */
    uint64_t counter;
    int index;
} worker;

static const char* const phases[] = {"load_mesh", "compute_fluxes", "exchange_halo",
                                     "MPI_Allreduce"};

/* One simulated time step: a step range containing one range per phase. */
static nvtxwResultCode_t write_step(const worker* w, int step, int64_t t0) {
    nvtxwEventAttributesUtf8_t attr;
    char name[32];
    int64_t t = t0;
    int p;
    memset(&attr, 0, sizeof attr);
    snprintf(name, sizeof name, "step %d", step);
    attr.message = name;
    attr.color = 0xFF3366CCu;
    if (nvtxwRangePushWriteUtf8(&w->writer, t, attr) != NVTXW_RESULT_SUCCESS)
        return NVTXW_RESULT_FAILED;
    for (p = 0; p < 4; p++) {
        int64_t length = 1000 + 250 * ((step * 7 + p * 3 + w->index) % 5);
        attr.message = phases[p];
        attr.color = 0;
        if (nvtxwRangePushPopWriteUtf8(&w->writer, t, t + length, attr) != NVTXW_RESULT_SUCCESS)
            return NVTXW_RESULT_FAILED;
        t += length + 100;
    }
    if (nvtxwCounterInt64Write(w->writer.iface, w->writer.stream, t, w->counter,
                               (int64_t)(step * 1024 + w->index)) != NVTXW_RESULT_SUCCESS)
        return NVTXW_RESULT_FAILED;
    return nvtxwRangePopWrite(&w->writer, t);
}

static void* run_worker(void* arg) {
    worker* w = arg;
    int step;
    for (step = 0; step < STEPS; step++) {
        if (write_step(w, step, (int64_t)step * 10000 + w->index * 37) != NVTXW_RESULT_SUCCESS)
            return w; /* non-NULL: failed */
    }
    return NULL;
}

/* Registers the session's domain, schemas, counter and one stream per worker. */
static nvtxwResultCode_t setup(const nvtxwInterface_t* iface, nvtxwSessionHandle_t session,
                               worker* workers) {
    nvtxwEventHelperSchemaIds_t ids;
    nvtxDomainHandle_t domain;
    uint64_t counter;
    int i;
    if (nvtxwDomainRegister(iface, session, "hello", &domain) != NVTXW_RESULT_SUCCESS ||
        nvtxwEventSchemasRegister(iface, domain, NVTXW_EVENT_HELPER_SCHEMA_ALL, &ids) !=
            NVTXW_RESULT_SUCCESS ||
        nvtxwCounterInt64Register(iface, domain, "bytes moved", NULL, &counter) !=
            NVTXW_RESULT_SUCCESS)
        return NVTXW_RESULT_FAILED;
    for (i = 0; i < WORKERS; i++) {
        char name[32], scope[64];
        nvtxwStreamHandle_t stream;
        snprintf(name, sizeof name, "worker-%d", i);
        snprintf(scope, sizeof scope, "node0/process0/thread%d", i);
        if (nvtxwStreamOpen(iface, session, name, domain, scope, 0, &stream) !=
            NVTXW_RESULT_SUCCESS)
            return NVTXW_RESULT_FAILED;
        nvtxwEventWriterInit(&workers[i].writer, iface, stream, &ids);
        workers[i].counter = counter;
        workers[i].index = i;
    }
    return NVTXW_RESULT_SUCCESS;
}

static int fail(nvtxwResultCode_t code) {
    char message[256];
    nvtxwGetError(code, message, sizeof message);
    fprintf(stderr, "hello_producer: error: %s (code %d)\n", message, (int)code);
    return 1;
}

int main(int argc, char** argv) {
    const nvtxwInterface_t* iface;
    nvtxwModuleHandle_t module;
    nvtxwSessionAttributes_t attr;
    nvtxwSessionHandle_t session;
    worker workers[WORKERS];
    pthread_t threads[WORKERS];
    char config[4200];
    nvtxwResultCode_t status;
    int i, failed = 0;
    if (argc != 2) {
        fprintf(stderr, "usage: hello_producer OUT.nvtxw\n");
        return 2;
    }
    if ((status = nvtxwLoadInterface(NULL, &iface, &module)) != NVTXW_RESULT_SUCCESS)
        return fail(status);
    snprintf(config, sizeof config, "Output=%s|Overwrite=yes", argv[1]);
    nvtxwSessionAttributesInit(&attr);
    attr.name = "hello";
    attr.configString = config;
    if ((status = iface->SessionBegin(&attr, &session)) != NVTXW_RESULT_SUCCESS ||
        (status = setup(iface, session, workers)) != NVTXW_RESULT_SUCCESS)
        return fail(status);
    for (i = 0; i < WORKERS; i++)
        pthread_create(&threads[i], NULL, run_worker, &workers[i]);
    for (i = 0; i < WORKERS; i++) {
        void* result;
        pthread_join(threads[i], &result);
        failed |= result != NULL;
    }
    status = iface->SessionEnd(session);
    nvtxwUnload(module);
    if (failed || status != NVTXW_RESULT_SUCCESS)
        return fail(failed ? NVTXW_RESULT_FAILED : status);
    printf("hello_producer: wrote %d ranges from %d threads to %s\n", WORKERS * STEPS * 5, WORKERS,
           argv[1]);
    return 0;
}
