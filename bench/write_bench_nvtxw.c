/*
 * bench/write_bench_nvtxw.c - the nvtxw side of bench/write_bench: writes a
 * trace through NVIDIA's helper functions (nvtxw/helpers.h), the way a
 * producer built on them does, and reads reports back through the public
 * reader (nvtxw/reader.h) with a payload visitor.
 *
 * Everything a session needs is registered inside the timed span: the
 * domain, the helper schemas (once per domain, as helpers.h recommends for
 * several streams), the 50 region names as registered strings (NV_REG,
 * NV_SPLIT) and one int64 counter (NV_SPLIT).
 */
#define _XOPEN_SOURCE 700

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "nvtxw/nvtxw.h"

#include "write_bench.h"

#define MAX_NAMES 64

static const nvtxwInterface_t* iface;

void nv_setup(void) {
    const void* table = NULL;
    if (nvtxwGetInterface(NVTXW_INTERFACE_VERSION, &table) != NVTXW_RESULT_SUCCESS)
        fail("nvtxwGetInterface failed: %s", nvtxw_last_error());
    iface = table;
}

void nv_finalize(void) { nvtxwFinalize(); }

static void check_nvtxw(nvtxwResultCode_t result, const char* what) {
    if (result != NVTXW_RESULT_SUCCESS)
        fail("%s failed (%d): %s", what, (int)result, nvtxw_last_error());
}

/* ---- Writing ------------------------------------------------------------- */

/* What every stream of a session shares: registered once per domain. */
typedef struct registrations {
    nvtxwEventHelperSchemaIds_t ids;
    nvtxStringHandle_t names[MAX_NAMES];
    uint64_t counter;
} registrations;

typedef struct worker {
    nvtxwEventWriter_t writer;
    const trace* tr;
    nv_mode mode;
    const registrations* regs;
    char error[512]; /* "" on success; copied here because errors are thread-local */
} worker;

/* Ranges are written when they end (as a tracer learns them), one call each. */
static nvtxwResultCode_t replay_pushpop(const worker* w) {
    int64_t begin[MAX_DEPTH];
    int32_t name[MAX_DEPTH];
    int depth = 0;
    for (size_t i = 0; i < w->tr->count; i++) {
        const op* o = &w->tr->ops[i];
        nvtxwResultCode_t result;
        if (o->kind == OP_ENTER) {
            begin[depth] = o->ts;
            name[depth++] = o->name;
            continue;
        }
        depth--;
        if (w->mode == NV_REG) {
            nvtxwEventAttributes_t attr = {0, 0, w->regs->names[name[depth]]};
            result = nvtxwRangePushPopWrite(&w->writer, begin[depth], o->ts, attr);
        } else {
            nvtxwEventAttributesUtf8_t attr = {0, 0, name_length[name[depth]], NAMES[name[depth]]};
            result = nvtxwRangePushPopWriteUtf8(&w->writer, begin[depth], o->ts, attr);
        }
        if (result != NVTXW_RESULT_SUCCESS)
            return result;
    }
    return NVTXW_RESULT_SUCCESS;
}

/* Every operation is one call, in trace (time) order. */
static nvtxwResultCode_t replay_split(const worker* w) {
    for (size_t i = 0; i < w->tr->count; i++) {
        const op* o = &w->tr->ops[i];
        nvtxwResultCode_t result;
        if (o->kind == OP_ENTER) {
            nvtxwEventAttributes_t attr = {0, 0, w->regs->names[o->name]};
            result = nvtxwRangePushWrite(&w->writer, o->ts, attr);
        } else if (o->kind == OP_LEAVE) {
            result = nvtxwRangePopWrite(&w->writer, o->ts);
        } else if (o->kind == OP_MARK) {
            nvtxwEventAttributes_t attr = {0, 0, w->regs->names[o->name]};
            result = nvtxwMarkWrite(&w->writer, o->ts, attr);
        } else {
            result =
                nvtxwCounterInt64Write(iface, w->writer.stream, o->ts, w->regs->counter, o->value);
        }
        if (result != NVTXW_RESULT_SUCCESS)
            return result;
    }
    return NVTXW_RESULT_SUCCESS;
}

static void* worker_main(void* arg) {
    worker* w = arg;
    nvtxwResultCode_t result = w->mode == NV_SPLIT ? replay_split(w) : replay_pushpop(w);
    if (result != NVTXW_RESULT_SUCCESS)
        snprintf(w->error, sizeof w->error, "write failed (%d): %s", (int)result,
                 nvtxw_last_error());
    return NULL;
}

static void register_all(nvtxwSessionHandle_t session, nv_mode mode, nvtxDomainHandle_t* domain,
                         registrations* regs) {
    check_nvtxw(nvtxwDomainRegister(iface, session, "bench", domain), "DomainRegister");
    check_nvtxw(
        nvtxwEventSchemasRegister(iface, *domain, NVTXW_EVENT_HELPER_SCHEMA_ALL, &regs->ids),
        "nvtxwEventSchemasRegister");
    if (mode == NV_UTF8)
        return;
    for (uint32_t i = 0; i < NAME_COUNT; i++)
        check_nvtxw(iface->StringRegister(*domain, NAMES[i], &regs->names[i]), "StringRegister");
    if (mode == NV_SPLIT)
        check_nvtxw(nvtxwCounterInt64Register(iface, *domain, "bytes_in_use", NULL, &regs->counter),
                    "nvtxwCounterInt64Register");
}

/* One helper writer per stream, all sharing the session's registrations. */
static void open_writers(nvtxwSessionHandle_t session, nvtxDomainHandle_t domain,
                         const registrations* regs, worker* workers, int count) {
    for (int i = 0; i < count; i++) {
        nvtxwStreamHandle_t stream = NULL;
        char name[32];
        snprintf(name, sizeof name, "thread-%d", i);
        check_nvtxw(
            nvtxwStreamOpen(iface, session, name, domain, NULL, NVTX_TIME_DOMAIN_ID_NONE, &stream),
            "nvtxwStreamOpen");
        check_nvtxw(nvtxwEventWriterInit(&workers[i].writer, iface, stream, &regs->ids),
                    "nvtxwEventWriterInit");
    }
}

static void run_workers(worker* workers, int count, int threaded) {
    pthread_t threads[MAX_THREADS];
    if (!threaded) {
        for (int i = 0; i < count; i++)
            worker_main(&workers[i]);
    } else {
        for (int i = 0; i < count; i++)
            if (pthread_create(&threads[i], NULL, worker_main, &workers[i]) != 0)
                fail("cannot create a thread");
        for (int i = 0; i < count; i++)
            pthread_join(threads[i], NULL);
    }
    for (int i = 0; i < count; i++)
        if (workers[i].error[0] != '\0')
            fail("stream %d: %s", i, workers[i].error);
}

double nv_write(const char* config, nv_mode mode, const trace* traces, int count, int threaded) {
    registrations regs;
    worker workers[MERGE_STREAMS];
    nvtxwSessionAttributes_t attr;
    nvtxwSessionHandle_t session = NULL;
    nvtxDomainHandle_t domain = NULL;
    double start;
    if (count > MERGE_STREAMS || (threaded && count > MAX_THREADS) || NAME_COUNT > MAX_NAMES)
        fail("nv_write: %d streams%s are more than this benchmark handles", count,
             threaded ? " on threads" : "");
    memset(&regs, 0, sizeof regs);
    memset(workers, 0, sizeof workers);
    start = now();
    nvtxwSessionAttributesInit(&attr);
    attr.name = "write_bench";
    attr.configString = config;
    check_nvtxw(iface->SessionBegin(&attr, &session), "SessionBegin");
    register_all(session, mode, &domain, &regs);
    open_writers(session, domain, &regs, workers, count);
    for (int i = 0; i < count; i++) {
        workers[i].tr = &traces[i];
        workers[i].mode = mode;
        workers[i].regs = &regs;
    }
    run_workers(workers, count, threaded);
    for (int i = 0; i < count; i++)
        check_nvtxw(iface->StreamClose(workers[i].writer.stream), "StreamClose");
    check_nvtxw(iface->SessionEnd(session), "SessionEnd");
    return now() - start;
}

/* ---- Reading ------------------------------------------------------------- */

static int on_signed(void* ctx, int64_t value) {
    nv_read_result* r = ctx;
    r->signed_sum += (uint64_t)value;
    return 0;
}

static int on_unsigned(void* ctx, uint64_t value) {
    ((nv_read_result*)ctx)->unsigned_sum += value;
    return 0;
}

static int on_string_handle(void* ctx, uint64_t handle, const char* text) {
    (void)text;
    ((nv_read_result*)ctx)->unsigned_sum += handle;
    return 0;
}

/* The timestamps of a helper payload read as its struct: a push/pop range
 * (two), a push or a mark (one, first), a pop (one). Colors, categories and
 * handles go to the unsigned sum as the visitor would add them. */
static void sum_struct(const nvtxw_record_t* record, nv_read_result* out) {
    const nvtxPayloadData_t* p = &record->u.event.payloads[0];
    if (record->u.event.count == 0)
        return;
    if (p->size == sizeof(nvtxwRangeEventRegStringPayload_t)) {
        const nvtxwRangeEventRegStringPayload_t* range = p->payload;
        out->signed_sum += (uint64_t)range->timestampBegin + (uint64_t)range->timestampEnd;
        out->unsigned_sum +=
            range->attr.color + range->attr.category + (uint64_t)(uintptr_t)range->attr.message;
    } else if (p->size == sizeof(nvtxwEventRegStringPayload_t)) {
        const nvtxwEventRegStringPayload_t* event = p->payload;
        out->signed_sum += (uint64_t)event->timestamp;
        out->unsigned_sum +=
            event->attr.color + event->attr.category + (uint64_t)(uintptr_t)event->attr.message;
    } else if (p->size == sizeof(nvtxwRangePopPayload_t)) {
        out->signed_sum += (uint64_t)((const nvtxwRangePopPayload_t*)p->payload)->timestamp;
    }
}

/* Every event's payload is decoded (the visitor or the struct reader sums
 * the integers), so the figure includes what a consumer must do to use
 * them. */
static void read_all(nvtxw_reader_t* reader, int visit, nv_read_result* out) {
    nvtxw_visitor_t visitor;
    int64_t last = INT64_MIN;
    memset(&visitor, 0, sizeof visitor);
    visitor.struct_size = sizeof visitor;
    visitor.on_signed = on_signed;
    visitor.on_unsigned = on_unsigned;
    visitor.on_string_handle = on_string_handle;
    for (;;) {
        const nvtxw_record_t* record = NULL;
        check_nvtxw(nvtxw_reader_next(reader, &record), "nvtxw_reader_next");
        if (record == NULL)
            break;
        if (record->kind == NVTXW_RECORD_EVENT) {
            out->events++;
            if (visit)
                check_nvtxw(nvtxw_reader_visit_event(reader, record, &visitor, out),
                            "nvtxw_reader_visit_event");
            else
                sum_struct(record, out);
        } else if (record->kind == NVTXW_RECORD_COUNTER_SAMPLE) {
            out->samples++;
        } else {
            continue;
        }
        if (record->has_timestamp) {
            if (record->timestamp < last)
                out->in_time_order = 0;
            last = record->timestamp;
        }
    }
}

double nv_read(const char* path, int merged, int visit, nv_read_result* out) {
    nvtxw_reader_options_t opts = {sizeof opts,
                                   merged ? NVTXW_READER_ORDER_TIME : NVTXW_READER_ORDER_STREAM, 0};
    nvtxw_reader_t* reader = NULL;
    double start;
    memset(out, 0, sizeof *out);
    out->in_time_order = 1;
    start = now();
    check_nvtxw(nvtxw_reader_open(path, &opts, &reader), "nvtxw_reader_open");
    read_all(reader, visit, out);
    if (nvtxw_reader_damage_count(reader) != 0) {
        nvtxw_reader_close(reader);
        fail("\"%s\" reads as damaged", path);
    }
    nvtxw_reader_close(reader);
    return now() - start;
}
