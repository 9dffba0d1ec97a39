/*
 * tools/replay/synthetic/synthetic_gpu.c - the `gpu` generator: host threads that
 * launch kernels and copies on device streams.
 *
 * Host thread h is the stream "thread h" (scope "node0/process0", so that
 * a viewer shows the threads as one process);
 * device stream s of GPU d is the stream "GPU d stream s" (scope
 * "node0/GPU[CUDAID:<d>]"). A step of every host thread, in thread order:
 *   pick a device stream; write the API range (cudaLaunchKernel, or
 *   cudaMemcpyAsync every `copy_every` steps) with a new correlation ID as
 *   flow_out; write the kernel or copy on the device stream, starting when
 *   the launch has reached it and the stream is idle, with flow_in = the
 *   same ID; a copy also samples the GPU's memory-in-use counter; every
 *   `sync_every` steps the thread waits in cudaStreamSynchronize until that
 *   device stream is idle.
 * Each host thread and device stream keeps one clock, so memory is
 * proportional to threads + devices x streams.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synthetic.h"
#include "tool_alloc.h"

enum {
    P_THREADS = 2,
    P_DEVICES,
    P_STREAMS,
    P_LAUNCHES,
    P_COPY_EVERY,
    P_SYNC_EVERY,
    P_KERNEL,
    P_BYTES
};

static const synth_param params[] = {
    SYNTH_COMMON_PARAMS,
    {"threads", 4, 1, 1024},
    {"devices", 2, 1, 64},
    {"streams", 4, 1, 128},
    {"launches", 2500, 1, UINT64_C(1) << 40},
    {"copy_every", 4, 0, UINT64_C(1) << 40},
    {"sync_every", 16, 0, UINT64_C(1) << 40},
    {"kernel", 20000, 1, UINT64_C(1) << 40},
    {"bytes", 1 << 20, 1, UINT64_C(1) << 40},
};

enum { CAT_CUDA = 1, CAT_SYNC };
enum { COPY_HTOD, COPY_DTOH, COPY_DTOD, COPY_KINDS };

/* The host side of a launch (schema synthetic_gpu_api). */
typedef struct api_payload {
    int64_t begin, end;
    uint32_t color, category;
    nvtxStringHandle_t event;
    uint64_t correlation_id;
    uint32_t device, stream;
    uint64_t flow_out;
} api_payload;

/* A kernel on a device stream (schema synthetic_gpu_kernel). */
typedef struct kernel_payload {
    int64_t begin, end;
    uint32_t color, category;
    nvtxStringHandle_t event;
    uint64_t correlation_id;
    uint32_t grid[3], block[3];
    uint32_t shared_bytes;
    uint64_t flow_in;
} kernel_payload;

/* A copy on a device stream (schema synthetic_gpu_memcpy). */
typedef struct copy_payload {
    int64_t begin, end;
    uint32_t color, category;
    nvtxStringHandle_t event;
    uint64_t correlation_id;
    uint32_t kind; /* enum synthetic_gpu_copy_kind */
    uint64_t bytes;
    uint64_t flow_in;
} copy_payload;

#define E_(flags, type, name, payload, field)                                                      \
    SYNTH_ENTRY(flags, NVTX_PAYLOAD_ENTRY_TYPE_##type, name, 0, offsetof(payload, field))
#define HEAD_(payload)                                                                             \
    E_(SYNTH_TS_BEGIN, INT64, "begin", payload, begin),                                            \
        E_(SYNTH_TS_END, INT64, "end", payload, end), E_(0, COLOR_ARGB, "color", payload, color),  \
        E_(0, CATEGORY, "category", payload, category),                                            \
        E_(NVTX_PAYLOAD_ENTRY_FLAG_EVENT_MESSAGE, NVTX_REGISTERED_STRING_HANDLE, "event", payload, \
           event),                                                                                 \
        E_(0, UINT64, "correlation_id", payload, correlation_id)

static const char* const kernel_names[] = {"gemm_kernel", "reduce_kernel", "elementwise_add",
                                           "softmax_kernel", "conv2d_fwd"};
#define KERNEL_NAMES 5
static const char* const copy_names[COPY_KINDS] = {"memcpy HtoD", "memcpy DtoH", "memcpy DtoD"};

typedef struct host_thread {
    nvtxwEventWriter_t w;
    int64_t clock;
} host_thread;

typedef struct device_stream {
    nvtxwStreamHandle_t stream;
    int64_t idle_at; /* end of the last operation */
} device_stream;

typedef struct gpu_state {
    synth_run* run;
    uint64_t threads, devices, streams;
    nvtxDomainHandle_t domain;
    uint64_t api_schema, kernel_schema, copy_schema;
    nvtxStringHandle_t launch, memcpy_async, sync, kernels[KERNEL_NAMES], copies[COPY_KINDS];
    host_thread* host;
    device_stream* dev;    /* devices x streams */
    uint64_t* mem_counter; /* per device */
    int64_t* mem_used;     /* per device */
    uint64_t correlation;
} gpu_state;

static int register_schemas(gpu_state* s) {
    static const nvtxPayloadSchemaEntry_t api[] = {
        HEAD_(api_payload), E_(0, UINT32, "device", api_payload, device),
        E_(0, UINT32, "stream", api_payload, stream),
        E_(0, UINT64, "flow_out", api_payload, flow_out)};
    static const nvtxPayloadSchemaEntry_t kernel[] = {
        HEAD_(kernel_payload),
        SYNTH_ENTRY(NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_FIXED_SIZE, NVTX_PAYLOAD_ENTRY_TYPE_UINT32,
                    "grid", 3, offsetof(kernel_payload, grid)),
        SYNTH_ENTRY(NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_FIXED_SIZE, NVTX_PAYLOAD_ENTRY_TYPE_UINT32,
                    "block", 3, offsetof(kernel_payload, block)),
        E_(0, UINT32, "shared_bytes", kernel_payload, shared_bytes),
        E_(0, UINT64, "flow_in", kernel_payload, flow_in)};
    static const nvtxPayloadEnum_t kinds[COPY_KINDS] = {
        {"HtoD", COPY_HTOD, 0}, {"DtoH", COPY_DTOH, 0}, {"DtoD", COPY_DTOD, 0}};
    nvtxPayloadEnumAttr_t e;
    uint64_t kind_enum;
    synth_run* run = s->run;
    memset(&e, 0, sizeof e);
    e.fieldMask = NVTX_PAYLOAD_ENUM_ATTR_FIELD_NAME | NVTX_PAYLOAD_ENUM_ATTR_FIELD_ENTRIES |
                  NVTX_PAYLOAD_ENUM_ATTR_FIELD_NUM_ENTRIES | NVTX_PAYLOAD_ENUM_ATTR_FIELD_SIZE;
    e.name = "synthetic_gpu_copy_kind";
    e.entries = kinds;
    e.numEntries = COPY_KINDS;
    e.sizeOfEnum = 4;
    if (synth_check(run, run->t->EnumRegister(s->domain, &e, &kind_enum), "register enum %s",
                    e.name))
        return 1;
    {
        const nvtxPayloadSchemaEntry_t copy[] = {
            HEAD_(copy_payload), SYNTH_ENTRY(0, kind_enum, "kind", 0, offsetof(copy_payload, kind)),
            E_(0, UINT64, "bytes", copy_payload, bytes),
            E_(0, UINT64, "flow_in", copy_payload, flow_in)};
        const uint64_t type = NVTX_PAYLOAD_SCHEMA_TYPE_STATIC;
        const uint64_t role = NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_PUSHPOP;
        return synth_schema(run, s->domain, "synthetic_gpu_api", type, role, api,
                            sizeof api / sizeof api[0], sizeof(api_payload), &s->api_schema) ||
               synth_schema(run, s->domain, "synthetic_gpu_kernel", type, role, kernel,
                            sizeof kernel / sizeof kernel[0], sizeof(kernel_payload),
                            &s->kernel_schema) ||
               synth_schema(run, s->domain, "synthetic_gpu_memcpy", type, role, copy,
                            sizeof copy / sizeof copy[0], sizeof(copy_payload), &s->copy_schema);
    }
}

static int string(gpu_state* s, const char* text, nvtxStringHandle_t* out) {
    return synth_check(s->run, s->run->t->StringRegister(s->domain, text, out),
                       "register string %s", text);
}

static int register_strings(gpu_state* s) {
    synth_run* run = s->run;
    if (synth_check(run, nvtxwCategoryRegister(run->t, s->domain, CAT_CUDA, "CUDA"),
                    "register a category") ||
        synth_check(run, nvtxwCategoryRegister(run->t, s->domain, CAT_SYNC, "CUDA sync"),
                    "register a category") ||
        string(s, "cudaLaunchKernel", &s->launch) ||
        string(s, "cudaMemcpyAsync", &s->memcpy_async) ||
        string(s, "cudaStreamSynchronize", &s->sync))
        return 1;
    for (int i = 0; i < KERNEL_NAMES; i++) {
        if (string(s, kernel_names[i], &s->kernels[i]))
            return 1;
    }
    for (int i = 0; i < COPY_KINDS; i++) {
        if (string(s, copy_names[i], &s->copies[i]))
            return 1;
    }
    return 0;
}

static int open_streams(gpu_state* s, const nvtxwEventHelperSchemaIds_t* ids) {
    synth_run* run = s->run;
    char path[64], name[64];
    uint64_t process;
    if (synth_scope(run, s->domain, "node0/process0", &process))
        return 1;
    for (uint64_t h = 0; h < s->threads; h++) {
        nvtxwStreamHandle_t stream;
        snprintf(name, sizeof name, "thread %llu", (unsigned long long)h);
        if (synth_stream(run, s->domain, name, process, &stream))
            return 1;
        nvtxwEventWriterInit(&s->host[h].w, run->t, stream, ids);
    }
    for (uint64_t d = 0; d < s->devices; d++) {
        uint64_t scope;
        snprintf(path, sizeof path, "node0/GPU[CUDAID:%llu]", (unsigned long long)d);
        snprintf(name, sizeof name, "GPU %llu memory in use", (unsigned long long)d);
        if (synth_scope(run, s->domain, path, &scope) ||
            synth_counter(run, s->domain, name, NVTX_PAYLOAD_ENTRY_TYPE_INT64, scope,
                          &s->mem_counter[d]))
            return 1;
        for (uint64_t i = 0; i < s->streams; i++) {
            snprintf(name, sizeof name, "GPU %llu stream %llu", (unsigned long long)d,
                     (unsigned long long)i);
            if (synth_stream(run, s->domain, name, scope, &s->dev[d * s->streams + i].stream))
                return 1;
        }
    }
    return 0;
}

static int setup(gpu_state* s) {
    synth_run* run = s->run;
    nvtxwEventHelperSchemaIds_t ids;
    if (synth_domain(run, "synthetic.gpu", NVTXW_EVENT_HELPER_SCHEMA_RANGE_PUSHPOP_REG_STRING,
                     &s->domain, &ids))
        return 1;
    return register_schemas(s) || register_strings(s) || open_streams(s, &ids);
}

static int write_api(gpu_state* s, host_thread* h, int64_t end, nvtxStringHandle_t name,
                     uint64_t dev_index) {
    api_payload p;
    memset(&p, 0, sizeof p);
    p.begin = h->clock;
    p.end = end;
    p.color = 0xFF7E57C2u;
    p.category = CAT_CUDA;
    p.event = name;
    p.correlation_id = s->correlation;
    p.device = (uint32_t)(dev_index / s->streams);
    p.stream = (uint32_t)(dev_index % s->streams);
    p.flow_out = s->correlation;
    return synth_write(s->run, h->w.stream, s->api_schema, &p, sizeof p);
}

static int write_kernel(gpu_state* s, device_stream* ds, int64_t begin) {
    synth_run* run = s->run;
    uint64_t mean = run->value[P_KERNEL];
    kernel_payload p;
    memset(&p, 0, sizeof p);
    p.begin = begin;
    p.end = begin + (int64_t)synth_uniform(run, mean / 2, mean + mean / 2);
    p.color = 0xFF43A047u;
    p.category = CAT_CUDA;
    p.event = s->kernels[synth_uniform(run, 0, KERNEL_NAMES - 1)];
    p.correlation_id = s->correlation;
    p.grid[0] = (uint32_t)synth_uniform(run, 1, 4096);
    p.grid[1] = (uint32_t)synth_uniform(run, 1, 16);
    p.grid[2] = 1;
    p.block[0] = 32u << synth_uniform(run, 0, 5);
    p.block[1] = p.block[2] = 1;
    p.shared_bytes = (uint32_t)synth_uniform(run, 0, 48) * 1024;
    p.flow_in = s->correlation;
    ds->idle_at = p.end;
    return synth_write(run, ds->stream, s->kernel_schema, &p, sizeof p);
}

/* A copy, and the new memory use of `device` (HtoD allocates, DtoH frees). */
static int write_copy(gpu_state* s, device_stream* ds, int64_t begin, uint64_t device) {
    synth_run* run = s->run;
    copy_payload p;
    int64_t* used = &s->mem_used[device];
    memset(&p, 0, sizeof p);
    p.kind = (uint32_t)synth_uniform(run, 0, COPY_KINDS - 1);
    p.bytes = synth_uniform(run, 1, run->value[P_BYTES]);
    p.begin = begin;
    p.end = begin + 1000 + (int64_t)(p.bytes / 12);
    p.color = 0xFFFFB300u;
    p.category = CAT_CUDA;
    p.event = s->copies[p.kind];
    p.correlation_id = s->correlation;
    p.flow_in = s->correlation;
    ds->idle_at = p.end;
    if (p.kind == COPY_HTOD)
        *used += (int64_t)p.bytes;
    else if (p.kind == COPY_DTOH)
        *used -= *used < (int64_t)p.bytes ? *used : (int64_t)p.bytes;
    return synth_write(run, ds->stream, s->copy_schema, &p, sizeof p) ||
           synth_sample_i64(run, ds->stream, p.end, s->mem_counter[device], *used);
}

/* One launch (kernel or copy) of host thread `h` in step `k`. */
static int launch(gpu_state* s, host_thread* h, uint64_t k) {
    synth_run* run = s->run;
    uint64_t copy_every = run->value[P_COPY_EVERY], sync_every = run->value[P_SYNC_EVERY];
    int copy = copy_every != 0 && k % copy_every == copy_every - 1;
    uint64_t index = synth_uniform(run, 0, s->devices * s->streams - 1);
    device_stream* ds = &s->dev[index];
    int64_t end = h->clock + (int64_t)synth_uniform(run, 2000, 8000);
    int64_t start = end + (int64_t)synth_uniform(run, 1000, 3000);
    s->correlation++;
    if (start < ds->idle_at)
        start = ds->idle_at;
    if (write_api(s, h, end, copy ? s->memcpy_async : s->launch, index) ||
        (copy ? write_copy(s, ds, start, index / s->streams) : write_kernel(s, ds, start)))
        return 1;
    h->clock = end + (int64_t)synth_uniform(run, 200, 2000);
    if (sync_every != 0 && k % sync_every == sync_every - 1) {
        int64_t done = (ds->idle_at > h->clock ? ds->idle_at : h->clock) + 500;
        if (synth_range(run, &h->w, h->clock, done, s->sync, CAT_SYNC, 0))
            return 1;
        h->clock = done + 200;
    }
    return 0;
}

static int iterate(gpu_state* s) {
    for (uint64_t k = 0; synth_more(s->run, k, s->run->value[P_LAUNCHES]); k++) {
        for (uint64_t h = 0; h < s->threads; h++) {
            if (launch(s, &s->host[h], k))
                return 1;
        }
    }
    return 0;
}

static int run_gpu(synth_run* run) {
    gpu_state s;
    int status = 1;
    memset(&s, 0, sizeof s);
    s.run = run;
    s.threads = run->value[P_THREADS];
    s.devices = run->value[P_DEVICES];
    s.streams = run->value[P_STREAMS];
    s.host = nvtxw_calloc(s.threads, sizeof *s.host);
    s.dev = nvtxw_calloc(s.devices * s.streams, sizeof *s.dev);
    s.mem_counter = nvtxw_calloc(s.devices, sizeof *s.mem_counter);
    s.mem_used = nvtxw_calloc(s.devices, sizeof *s.mem_used);
    if (s.host == NULL || s.dev == NULL || s.mem_counter == NULL || s.mem_used == NULL)
        fprintf(stderr, "%s: error: --synthetic gpu: out of memory\n", run->ctx->tool);
    else
        status = setup(&s) || iterate(&s) ||
                 synth_close(run, &s.host[0].w.stream, s.threads, sizeof *s.host) ||
                 synth_close(run, &s.dev[0].stream, s.devices * s.streams, sizeof *s.dev);
    nvtxw_free(s.host);
    nvtxw_free(s.dev);
    nvtxw_free(s.mem_counter);
    nvtxw_free(s.mem_used);
    return status;
}

const synth_generator synth_gpu = {"gpu", params, sizeof params / sizeof params[0], run_gpu};
