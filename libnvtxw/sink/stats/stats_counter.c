/*
 * sink/stats/stats_counter.c - counter samples for the counter_sum table:
 * one series per (counter, numeric top-level field of its sample), with its
 * sample count, minimum, maximum, sum (for the mean) and last value (the
 * latest timestamp; ties: the later write), in the counter's unit.
 *
 * A sample is walked with the payload visitor, as the JSON sink walks it:
 * predefined numeric types are one field "value", a counter-group schema
 * gives one series per scalar numeric top-level field; strings, arrays and
 * nested objects are no value. The counter's COUNTERS semantic gives the
 * unit and its scale (value * numerator / denominator, when both are set).
 *
 * Values are kept as long double: exact for every int64 and uint64 on
 * x86-64 and AArch64 (64-bit or wider mantissa), so integer series print
 * exactly; elsewhere they round like double.
 *
 * Concurrency: each stream fills its own map on the write path; its
 * stream_close (serialized) merges it into the sink's.
 */
#include "config.h"

#include <string.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "sink/stats/stats_internal.h"

/* ---- Series maps ---------------------------------------------------------- */

static size_t series_hash(const core_counter* counter, uint32_t field, size_t mask) {
    uint64_t key = (uint64_t)(uintptr_t)counter * 0x9E3779B97F4A7C15ull + field;
    return (size_t)(key ^ (key >> 29)) & mask;
}

static stats_series* series_slot(const stats_series_map* map, const core_counter* counter,
                                 uint32_t field) {
    size_t mask = map->capacity - 1, i = series_hash(counter, field, mask);
    while (map->slots[i].counter != NULL &&
           (map->slots[i].counter != counter || map->slots[i].field != field))
        i = (i + 1) & mask;
    return &map->slots[i];
}

static int series_grow(stats_series_map* map) {
    stats_series_map grown = {NULL, map->capacity ? map->capacity * 2 : 16, 0};
    size_t i;
    if ((grown.slots = nvtxw_calloc(grown.capacity, sizeof *grown.slots)) == NULL)
        return -1;
    for (i = 0; i < map->capacity; i++)
        if (map->slots[i].counter != NULL)
            *series_slot(&grown, map->slots[i].counter, map->slots[i].field) = map->slots[i];
    grown.count = map->count;
    nvtxw_free(map->slots);
    *map = grown;
    return 0;
}

/* The series of (counter, field), added empty when new; NULL out of memory.
 * `name` (the field's, borrowed) is copied when the series is new. */
static stats_series* series_get(stats_series_map* map, const core_counter* counter,
                                const char* domain, uint32_t field, const char* name) {
    stats_series* s;
    if ((map->count + 1) * 2 > map->capacity && series_grow(map) != 0)
        return NULL;
    s = series_slot(map, counter, field);
    if (s->counter == NULL) {
        memset(s, 0, sizeof *s);
        if ((s->field_name = nvtxw_strdup(name)) == NULL)
            return NULL;
        s->counter = counter;
        s->domain = domain;
        s->field = field;
        s->integral = 1;
        map->count++;
    }
    return s;
}

void stats_series_free(stats_series_map* map) {
    size_t i;
    for (i = 0; i < map->capacity; i++)
        nvtxw_free(map->slots[i].field_name);
    nvtxw_free(map->slots);
    memset(map, 0, sizeof *map);
}

static void series_add(stats_series* s, long double value, int integral, int64_t timestamp) {
    if (s->samples == 0 || value < s->min)
        s->min = value;
    if (s->samples == 0 || value > s->max)
        s->max = value;
    s->sum += value;
    if (s->samples == 0 || timestamp >= s->last_ts) {
        s->last = value;
        s->last_ts = timestamp;
    }
    s->integral &= integral;
    s->samples++;
}

/* Adds every sample of `from` into `to` (the same counter and field). */
static void series_take(stats_series* to, const stats_series* from) {
    if (to->samples == 0 || from->min < to->min)
        to->min = from->min;
    if (to->samples == 0 || from->max > to->max)
        to->max = from->max;
    to->sum += from->sum;
    if (to->samples == 0 || from->last_ts >= to->last_ts) {
        to->last = from->last;
        to->last_ts = from->last_ts;
    }
    to->integral &= from->integral;
    to->samples += from->samples;
    to->streams += from->streams;
}

int stats_series_merge(stats_series_map* to, const stats_series_map* from) {
    size_t i;
    for (i = 0; i < from->capacity; i++) {
        const stats_series* f = &from->slots[i];
        stats_series* t;
        if (f->counter == NULL)
            continue;
        if ((t = series_get(to, f->counter, f->domain, f->field, f->field_name)) == NULL)
            return -1;
        series_take(t, f);
    }
    return 0;
}

/* ---- One sample ----------------------------------------------------------- */

/* The visitor's state for one sample. */
typedef struct sample_walk {
    stats_stream* st;
    const core_counter* counter;
    int64_t timestamp;
    long double scale; /* unit numerator / denominator, or 1 */
    unsigned depth;    /* open objects and arrays below the top level */
    uint32_t field;    /* top-level fields begun so far */
    const char* name;  /* the open top-level field's */
    int failed;        /* out of memory */
} sample_walk;

static int walk_field_begin(void* ctx, const nvtxw_field_info_t* field) {
    sample_walk* w = ctx;
    if (w->depth == 0) {
        w->field++;
        w->name = field->name;
    }
    return 0;
}

static int walk_open(void* ctx) {
    ((sample_walk*)ctx)->depth++;
    return 0;
}
static int walk_array_begin(void* ctx, uint64_t length) {
    (void)length;
    return walk_open(ctx);
}
static int walk_object_begin(void* ctx, uint64_t schema_id) {
    (void)schema_id;
    return walk_open(ctx);
}
static int walk_close(void* ctx) {
    ((sample_walk*)ctx)->depth--;
    return 0;
}

static int walk_value(sample_walk* w, long double value, int integral) {
    stats_series* s;
    if (w->depth != 0)
        return 0; /* inside an array or object: not a series */
    s = series_get(&w->st->series, w->counter, w->st->stream->domain->name, w->field,
                   w->name ? w->name : "");
    if (s == NULL)
        return w->failed = 1, -1;
    if (s->streams == 0)
        s->streams = 1;
    series_add(s, value * w->scale, integral && w->scale == 1, w->timestamp);
    return 0;
}
static int walk_signed(void* ctx, int64_t value) { return walk_value(ctx, (long double)value, 1); }
static int walk_unsigned(void* ctx, uint64_t value) {
    return walk_value(ctx, (long double)value, 1);
}
static int walk_float(void* ctx, double value) {
    return value == value ? walk_value(ctx, (long double)value, 0) : 0; /* NaN: no value */
}

static const nvtxw_visitor_t sample_visitor = {
    .struct_size = sizeof(nvtxw_visitor_t),
    .field_begin = walk_field_begin,
    .array_begin = walk_array_begin,
    .array_end = walk_close,
    .object_begin = walk_object_begin,
    .object_end = walk_close,
    .on_signed = walk_signed,
    .on_unsigned = walk_unsigned,
    .on_float = walk_float,
};

const nvtxSemanticsCounter_t* stats_counter_semantic(const core_counter* counter) {
    const nvtxSemanticsHeader_t* h;
    for (h = counter->semantics; h != NULL; h = h->next)
        if (h->semanticId == NVTX_SEMANTIC_ID_COUNTERS_V1 &&
            h->structSize >= sizeof(nvtxSemanticsCounter_t))
            return (const nvtxSemanticsCounter_t*)h;
    return NULL;
}

nvtxwResultCode_t stats_counter_write(void* state, int64_t timestamp, const core_counter* counter,
                                      const void* data, size_t size) {
    stats_stream* st = state;
    const nvtxSemanticsCounter_t* sem = stats_counter_semantic(counter);
    sample_walk walk;
    nvtxwResultCode_t status;
    memset(&walk, 0, sizeof walk);
    walk.st = st;
    walk.counter = counter;
    walk.timestamp = timestamp;
    walk.scale = 1;
    if (sem != NULL && sem->unitScaleNumerator != 0 && sem->unitScaleDenominator != 0)
        walk.scale = (long double)sem->unitScaleNumerator / (long double)sem->unitScaleDenominator;
    status = core_counter_visit(st->stream->domain, counter, data, size, &sample_visitor, &walk);
    if (walk.failed)
        return error_oom("a counter series");
    /* The core validated the sample's size; a sample the visitor cannot walk
     * (a schema it refuses) is counted as incomplete, like such an event. */
    if (status != NVTXW_RESULT_SUCCESS)
        st->incomplete++;
    return NVTXW_RESULT_SUCCESS;
}
