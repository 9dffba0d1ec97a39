/*
 * sink/shared/time_map.c - conversions of time domains into the session's
 * (time_map.h).
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "common/alloc.h"
#include "common/log.h"
#include "sink/shared/time_map.h"

void time_map_init(time_map* m, uint64_t session_domain, uint64_t stream_domain) {
    memset(m, 0, sizeof *m);
    m->session_domain = session_domain;
    m->stream_domain = stream_domain;
}

void time_map_open(time_map* m, uint64_t* session_domain, int* session_domain_set,
                   uint64_t stream_domain) {
    if (!*session_domain_set) {
        *session_domain_set = 1;
        *session_domain = stream_domain;
    }
    time_map_init(m, *session_domain, stream_domain);
}

void time_map_free(time_map* m) {
    nvtxw_free(m->entries);
    memset(m, 0, sizeof *m);
}

/* The entry of `domain`, made on first use; NULL when out of memory or
 * past TIME_MAP_MAX_DOMAINS (*oom says which). */
static time_map_entry* entry_of(time_map* m, uint64_t domain, int* oom) {
    size_t i;
    *oom = 0;
    for (i = 0; i < m->count; i++)
        if (m->entries[i].domain == domain)
            return &m->entries[i];
    if (m->count == TIME_MAP_MAX_DOMAINS)
        return NULL;
    if (m->count == m->capacity) {
        size_t capacity = m->capacity ? m->capacity * 2 : 4;
        time_map_entry* entries = nvtxw_reallocarray(m->entries, capacity, sizeof *entries);
        if (entries == NULL) {
            *oom = 1;
            return NULL;
        }
        m->entries = entries;
        m->capacity = capacity;
    }
    memset(&m->entries[m->count], 0, sizeof m->entries[m->count]);
    m->entries[m->count].domain = domain;
    return &m->entries[m->count++];
}

/* Whether a conversion between `src` and `dst` concerns this map: one side
 * is the session's, the other another domain (its *other). */
static int concerns(const time_map* m, uint64_t src, uint64_t dst, uint64_t* other, int* reversed) {
    if (src == dst || src == NVTX_TIME_DOMAIN_ID_NONE || dst == NVTX_TIME_DOMAIN_ID_NONE)
        return 0;
    if (dst == m->session_domain) {
        *other = src, *reversed = 0;
        return 1;
    }
    if (src == m->session_domain) {
        *other = dst, *reversed = 1;
        return 1;
    }
    return 0;
}

int time_map_factor(time_map* m, uint64_t src, uint64_t dst, double slope, int64_t src_ts,
                    int64_t dst_ts) {
    uint64_t other;
    int reversed, oom;
    time_map_entry* e;
    if (!concerns(m, src, dst, &other, &reversed) || !isfinite(slope) || slope == 0)
        return 0;
    if ((e = entry_of(m, other, &oom)) == NULL)
        return oom ? -1 : 0;
    e->points = 0;
    e->slope = reversed ? 1.0L / slope : (long double)slope;
    e->src0 = reversed ? dst_ts : src_ts;
    e->dst0 = reversed ? src_ts : dst_ts;
    return 0;
}

int time_map_points(time_map* m, uint64_t src, uint64_t dst, const nvtxSyncPoint_t* points,
                    size_t count) {
    uint64_t other;
    int reversed, oom;
    time_map_entry* e;
    size_t i;
    if (count == 0 || !concerns(m, src, dst, &other, &reversed))
        return 0;
    if ((e = entry_of(m, other, &oom)) == NULL)
        return oom ? -1 : 0;
    for (i = 0; i < count; i++) {
        int64_t s = reversed ? points[i].dst : points[i].src;
        int64_t d = reversed ? points[i].src : points[i].dst;
        if (e->points == 0) {
            e->src0 = s, e->dst0 = d, e->slope = 1;
        } else if (s != e->src0) {
            e->src1 = s, e->dst1 = d;
            e->slope = ((long double)d - e->dst0) / ((long double)s - e->src0);
        }
        e->points++;
    }
    return 0;
}

int64_t time_map_convert_other(time_map* m, uint64_t domain, int64_t ts) {
    long double v;
    size_t i;
    for (i = 0; i < m->count && m->entries[i].domain != domain; i++)
        ;
    if (i == m->count) {
        m->unconverted++;
        m->unconverted_domain = domain;
        return ts;
    }
    v = (long double)m->entries[i].dst0 +
        m->entries[i].slope * ((long double)ts - (long double)m->entries[i].src0);
    v = roundl(v);
    if (!(v > -9223372036854775808.0L)) /* also NaN */
        return INT64_MIN;
    if (v >= 9223372036854775807.0L)
        return INT64_MAX;
    return (int64_t)v;
}

uint64_t time_map_semantics_domain(const nvtxSemanticsHeader_t* h) {
    for (; h != NULL; h = h->next)
        if (h->semanticId == NVTX_SEMANTIC_ID_TIME_V1 &&
            h->structSize >= sizeof(nvtxSemanticsTime_t))
            return ((const nvtxSemanticsTime_t*)h)->timeDomainId;
    return NVTX_TIME_DOMAIN_ID_NONE;
}

void time_map_report(const time_map* m, const char* sink, const char* stream) {
    if (m->unconverted > 0)
        nvtxw_log(NVTXW_LOG_WARNING,
                  "%s sink, stream \"%s\": %" PRIu64 " timestamp%s of time domain 0x%" PRIx64
                  " written as given: no conversion to the session's time domain 0x%" PRIx64
                  " was written on the stream",
                  sink, stream, m->unconverted, m->unconverted == 1 ? "" : "s",
                  m->unconverted_domain, m->session_domain);
}
