/*
 * tools/record/rec_counters.c - NVTX's counters extension
 * (nvToolsExtCounters.h) as NVTXW counters, written on the calling
 * thread's stream in the counter's domain, timestamped when called.
 *
 * nvtxCounterRegister passes the program's nvtxCounterAttr_t to NVTXW's
 * CounterRegister as it is (the same struct): a predefined number type or
 * a static counter-group schema, a name, a scope, semantics, a static ID
 * or none (NVTXW then hands out a dynamic one, which the program gets).
 * nvtxCounterSample (the sample's bytes), nvtxCounterSampleNoValue and
 * nvtxCounterBatchSubmit (the same nvtxCounterBatch_t) map one to one.
 *
 * nvtxCounterSampleInt64 and nvtxCounterSampleFloat64 give a value, not a
 * sample: it is converted to the counter's number type as C converts it,
 * which the library remembers per (domain, counter) when it registers one.
 * A value the type cannot hold (300 for a uint8 counter, NaN for an int32
 * one), or a type that is not a number this converts (float16, say), is
 * dropped and counted. For a counter group the value's 8 bytes are the
 * sample, which NVTXW takes when the group is 8 bytes.
 *
 * What NVTXW refuses (an unknown counter ID, a sample of the wrong size, a
 * batch that does not fit its counter) is counted like any refused write.
 */
#define _GNU_SOURCE /* clock_gettime in rec_internal.h */
#include "config.h"

#include <string.h>

#include "nvtxw/payload.h"
#include "rec_internal.h"

/* The counters the library knows the type of: an open-addressing table,
 * inserted into under rec.lock, read without a lock (an entry's id is
 * published last). At most half full: later counters are still
 * registered, their samples by value passed as 8 bytes. */
#define REC_COUNTER_SLOTS 8192

typedef struct rec_counter {
    _Atomic uint64_t id; /* 0: an empty slot */
    uint32_t domain;     /* index */
    uint32_t type;       /* predefined number type; 0: a counter group */
} rec_counter;

static rec_counter counters[REC_COUNTER_SLOTS];
static uint32_t counter_count; /* under rec.lock */

/* The counter's type is not known here. */
#define REC_COUNTER_UNKNOWN UINT32_MAX

static uint32_t counter_slot(uint32_t domain, uint64_t id) {
    uint64_t h = (id ^ ((uint64_t)domain << 40)) * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(h >> 51); /* 13 bits: REC_COUNTER_SLOTS */
}

/* Remembers a registered counter's type (under rec.lock). */
static void counter_remember(uint32_t domain, uint64_t id, uint64_t schema) {
    uint32_t slot = counter_slot(domain, id);
    if (id == 0 || counter_count >= REC_COUNTER_SLOTS / 2)
        return;
    while (atomic_load_explicit(&counters[slot].id, memory_order_relaxed) != 0)
        slot = (slot + 1) % REC_COUNTER_SLOTS;
    counters[slot].domain = domain;
    counters[slot].type = schema < NVTX_PAYLOAD_SCHEMA_ID_STATIC_START ? (uint32_t)schema : 0;
    atomic_store_explicit(&counters[slot].id, id, memory_order_release);
    counter_count++;
}

static uint32_t counter_type(uint32_t domain, uint64_t id) {
    uint32_t slot = counter_slot(domain, id);
    uint64_t found;
    while ((found = atomic_load_explicit(&counters[slot].id, memory_order_acquire)) != 0) {
        if (found == id && counters[slot].domain == domain)
            return counters[slot].type;
        slot = (slot + 1) % REC_COUNTER_SLOTS;
    }
    return REC_COUNTER_UNKNOWN;
}

/* ---- values into samples ------------------------------------------------------ */

enum { KIND_NONE, KIND_SIGNED, KIND_UNSIGNED, KIND_FLOAT };

static int number_kind(uint32_t type) {
    switch (type) {
    case NVTX_PAYLOAD_ENTRY_TYPE_CHAR:
    case NVTX_PAYLOAD_ENTRY_TYPE_SHORT:
    case NVTX_PAYLOAD_ENTRY_TYPE_INT:
    case NVTX_PAYLOAD_ENTRY_TYPE_LONG:
    case NVTX_PAYLOAD_ENTRY_TYPE_LONGLONG:
    case NVTX_PAYLOAD_ENTRY_TYPE_INT8:
    case NVTX_PAYLOAD_ENTRY_TYPE_INT16:
    case NVTX_PAYLOAD_ENTRY_TYPE_INT32:
    case NVTX_PAYLOAD_ENTRY_TYPE_INT64:
        return KIND_SIGNED;
    case NVTX_PAYLOAD_ENTRY_TYPE_UCHAR:
    case NVTX_PAYLOAD_ENTRY_TYPE_USHORT:
    case NVTX_PAYLOAD_ENTRY_TYPE_UINT:
    case NVTX_PAYLOAD_ENTRY_TYPE_ULONG:
    case NVTX_PAYLOAD_ENTRY_TYPE_ULONGLONG:
    case NVTX_PAYLOAD_ENTRY_TYPE_UINT8:
    case NVTX_PAYLOAD_ENTRY_TYPE_UINT16:
    case NVTX_PAYLOAD_ENTRY_TYPE_UINT32:
    case NVTX_PAYLOAD_ENTRY_TYPE_UINT64:
    case NVTX_PAYLOAD_ENTRY_TYPE_SIZE:
        return KIND_UNSIGNED;
    case NVTX_PAYLOAD_ENTRY_TYPE_FLOAT:
    case NVTX_PAYLOAD_ENTRY_TYPE_DOUBLE:
    case NVTX_PAYLOAD_ENTRY_TYPE_FLOAT32:
    case NVTX_PAYLOAD_ENTRY_TYPE_FLOAT64:
        return KIND_FLOAT;
    default:
        return KIND_NONE;
    }
}

/* Stores `v` as the integer type of `size` bytes (v is in that type's
 * range; a signed value's two's complement low bytes are the value). */
static void store_integer(unsigned char* out, size_t size, uint64_t v) {
    if (size == 1) {
        uint8_t x = (uint8_t)v;
        memcpy(out, &x, 1);
    } else if (size == 2) {
        uint16_t x = (uint16_t)v;
        memcpy(out, &x, 2);
    } else if (size == 4) {
        uint32_t x = (uint32_t)v;
        memcpy(out, &x, 4);
    } else {
        memcpy(out, &v, 8);
    }
}

/* A value (`is_float`: `f`, else `i`) as a sample of number type `type`
 * into out[8]; its size, or 0 when the type is not a number converted
 * here or cannot hold the value. */
static size_t value_sample(uint32_t type, int is_float, int64_t i, double f, unsigned char* out) {
    int kind = number_kind(type);
    size_t size = nvtxw_entry_type_size(type);
    if (kind == KIND_NONE || (size != 1 && size != 2 && size != 4 && size != 8))
        return 0;
    if (kind == KIND_FLOAT) {
        double d = is_float ? f : (double)i;
        if (size == 4) {
            float x = (float)d;
            memcpy(out, &x, 4);
        } else if (size == 8) {
            memcpy(out, &d, 8);
        } else {
            return 0;
        }
        return size;
    }
    if (kind == KIND_SIGNED) {
        /* [-2^(bits-1), 2^(bits-1)) */
        double limit = size == 8 ? 9223372036854775808.0 : (double)(1ull << (8 * size - 1));
        int64_t v;
        if (is_float) {
            if (!(f >= -limit && f < limit)) /* NaN fails too */
                return 0;
            v = (int64_t)f;
        } else {
            v = i;
            if (size < 8 &&
                (v < -(int64_t)(1ull << (8 * size - 1)) || v >= (int64_t)(1ull << (8 * size - 1))))
                return 0;
        }
        store_integer(out, size, (uint64_t)v);
        return size;
    }
    {
        /* [0, 2^bits) */
        double limit = size == 8 ? 18446744073709551616.0 : (double)(1ull << (8 * size));
        uint64_t v;
        if (is_float) {
            if (!(f > -1.0 && f < limit))
                return 0;
            v = (uint64_t)f;
        } else {
            if (i < 0 || (size < 8 && (uint64_t)i >= (1ull << (8 * size))))
                return 0;
            v = (uint64_t)i;
        }
        store_integer(out, size, v);
        return size;
    }
}

/* ---- the calls ---------------------------------------------------------------- */

static uint64_t CounterRegister(nvtxDomainHandle_t domain, const nvtxCounterAttr_t* attr) {
    rec_domain* d = rec_domain_of(domain);
    nvtxwResultCode_t status;
    uint64_t id = NVTX_COUNTER_ID_NONE;
    if (d == NULL || !atomic_load(&rec.active))
        return NVTX_COUNTER_ID_NONE;
    pthread_mutex_lock(&rec.lock);
    status = rec.iface->CounterRegister(d->handle, attr, &id);
    if (status == NVTXW_RESULT_SUCCESS)
        counter_remember(d->index, id, attr->schemaId);
    pthread_mutex_unlock(&rec.lock);
    if (status != NVTXW_RESULT_SUCCESS) {
        rec_refused(status);
        return NVTX_COUNTER_ID_NONE;
    }
    return id;
}

/* Writes one sample on the calling thread's stream in domain `d` (NULL:
 * an unknown handle, counted already: nothing), at clock
 * reading `raw`: `value` (size bytes) with `reason` -1, else a sample
 * without value of that reason; a refusal is counted. */
static void sample_write(rec_domain* d, uint64_t id, const void* value, size_t size, int reason,
                         uint64_t raw) {
    rec_thread* t = NULL;
    rec_stream* s = d != NULL ? rec_stream_of(d, &t) : NULL;
    nvtxwResultCode_t status;
    if (s == NULL)
        return;
    status = reason < 0
                 ? rec.iface->CounterWrite(s->writer.stream, rec_clock_ns(t, raw), id, value, size)
                 : rec.iface->CounterNoValueWrite(s->writer.stream, rec_clock_ns(t, raw), id,
                                                  (uint8_t)reason);
    if (status != NVTXW_RESULT_SUCCESS)
        rec_refused(status);
}

/* A value converted to the counter's number type (REC_COUNTER_UNKNOWN or
 * a group: its 8 bytes as they are). */
static void sample_value(nvtxDomainHandle_t domain, uint64_t id, int is_float, int64_t i, double f,
                         uint64_t raw) {
    rec_domain* d = rec_domain_of(domain);
    unsigned char sample[8];
    size_t size = 8;
    uint32_t type;
    if (d == NULL || !atomic_load_explicit(&rec.active, memory_order_relaxed))
        return;
    type = counter_type(d->index, id);
    if (type == REC_COUNTER_UNKNOWN || type == 0) {
        if (is_float)
            memcpy(sample, &f, 8);
        else
            memcpy(sample, &i, 8);
    } else if ((size = value_sample(type, is_float, i, f, sample)) == 0) {
        rec_misuse(REC_MISUSE_COUNTER_VALUE);
        return;
    }
    sample_write(d, id, sample, size, -1, raw);
}

static void CounterSampleInt64(nvtxDomainHandle_t domain, uint64_t id, int64_t value) {
    sample_value(domain, id, 0, value, 0, rec_clock_raw());
}

static void CounterSampleFloat64(nvtxDomainHandle_t domain, uint64_t id, double value) {
    sample_value(domain, id, 1, 0, value, rec_clock_raw());
}

static void CounterSample(nvtxDomainHandle_t domain, uint64_t id, const void* value, size_t size) {
    uint64_t raw = rec_clock_raw();
    sample_write(rec_domain_of(domain), id, value, size, -1, raw);
}

static void CounterSampleNoValue(nvtxDomainHandle_t domain, uint64_t id, uint8_t reason) {
    uint64_t raw = rec_clock_raw();
    sample_write(rec_domain_of(domain), id, NULL, 0, reason, raw);
}

/* The batch carries its own timestamps (the program's clock, which NVTX
 * says its time semantics name): passed as they are. */
static void CounterBatchSubmit(nvtxDomainHandle_t domain, const nvtxCounterBatch_t* batch) {
    rec_domain* d = rec_domain_of(domain);
    rec_thread* t = NULL;
    rec_stream* s = d != NULL ? rec_stream_of(d, &t) : NULL;
    nvtxwResultCode_t status;
    if (s == NULL)
        return;
    status = rec.iface->CounterBatchWrite(s->writer.stream, batch);
    if (status != NVTXW_RESULT_SUCCESS)
        rec_refused(status);
}

void rec_fill_counters(intptr_t* slots, size_t count) {
    REC_SLOT(slots, count, REC_NVTX_COUNTERS_CounterRegister, CounterRegister);
    REC_SLOT(slots, count, REC_NVTX_COUNTERS_CounterSampleInt64, CounterSampleInt64);
    REC_SLOT(slots, count, REC_NVTX_COUNTERS_CounterSampleFloat64, CounterSampleFloat64);
    REC_SLOT(slots, count, REC_NVTX_COUNTERS_CounterSample, CounterSample);
    REC_SLOT(slots, count, REC_NVTX_COUNTERS_CounterSampleNoValue, CounterSampleNoValue);
    REC_SLOT(slots, count, REC_NVTX_COUNTERS_CounterBatchSubmit, CounterBatchSubmit);
}
