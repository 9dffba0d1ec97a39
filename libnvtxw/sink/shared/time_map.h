/*
 * sink/shared/time_map.h - timestamps of other time domains in the
 * session's time domain, for sinks that write one timeline (Perfetto).
 *
 * The session's time domain is the default time domain of its first
 * stream. A stream's timestamps are in its own default time domain, or in
 * the one a time semantic of their entry (or of their counter) names. A
 * timestamp of another domain than the session's is converted by the
 * conversion the stream was given for that domain, with the session's on
 * the other side (either way round):
 *   TimestampConversionFactorWrite(src, dst, slope, src_ts, dst_ts)
 *       dst = dst_ts + slope * (src - src_ts)
 *   TimeSyncPoint(Table)Write: the first point of the pair of domains and
 *       the latest; one point: dst = src + (dst0 - src0) (an offset); two
 *       or more: the line through the first and the latest point
 * The last conversion written for a domain replaces the one before. A
 * domain without a conversion (or NONE) is taken as the session's: its
 * timestamps are counted and written as given. Conversions through a third
 * domain are not chained. One stream's map: its thread only.
 */
#ifndef NVTXW_SINK_SHARED_TIME_MAP_H
#define NVTXW_SINK_SHARED_TIME_MAP_H

#include <stddef.h>
#include <stdint.h>

#include "nvtxw/nvtx_types.h"

/* Time domains with a conversion one stream keeps; more are written as
 * given (and counted). */
#define TIME_MAP_MAX_DOMAINS 256

typedef struct time_map_entry {
    uint64_t domain; /* converted from */
    long double slope;
    int64_t src0, dst0; /* the anchor: src0 in `domain` is dst0 in the session's */
    int64_t src1, dst1; /* sync points: the latest point */
    int points;         /* sync points seen (0: a conversion factor) */
} time_map_entry;

typedef struct time_map {
    uint64_t session_domain;
    uint64_t stream_domain; /* the stream's default */
    time_map_entry* entries;
    size_t count, capacity;
    uint64_t unconverted;        /* timestamps of a domain without a conversion */
    uint64_t unconverted_domain; /* the latest such domain */
} time_map;

void time_map_init(time_map* m, uint64_t session_domain, uint64_t stream_domain);

/* A stream's map at its StreamOpen (a serialized call): the first stream
 * opened sets the session's domain (*session_domain, *session_domain_set:
 * the sink's), every stream gets its map to it. */
void time_map_open(time_map* m, uint64_t* session_domain, int* session_domain_set,
                   uint64_t stream_domain);
void time_map_free(time_map* m);

/* TimestampConversionFactorWrite on the stream. 0, or -1 out of memory. */
int time_map_factor(time_map* m, uint64_t src, uint64_t dst, double slope, int64_t src_ts,
                    int64_t dst_ts);
/* TimeSyncPoint(Table)Write on the stream. 0, or -1 out of memory. */
int time_map_points(time_map* m, uint64_t src, uint64_t dst, const nvtxSyncPoint_t* points,
                    size_t count);

/* time_map_convert for a domain other than the session's. */
int64_t time_map_convert_other(time_map* m, uint64_t domain, int64_t ts);

/* `ts` of time domain `domain` (NONE: the stream's default) in the
 * session's time domain, rounded to the nearest and clamped to int64.
 * Inline: every timestamp of the rendering sinks comes through here, and
 * nearly all are of the session's domain already. */
static inline int64_t time_map_convert(time_map* m, uint64_t domain, int64_t ts) {
    if (domain == NVTX_TIME_DOMAIN_ID_NONE)
        domain = m->stream_domain;
    if (domain == m->session_domain || domain == NVTX_TIME_DOMAIN_ID_NONE)
        return ts;
    return time_map_convert_other(m, domain, ts);
}

/* Says on stderr (common/log.h, a warning) how many of a stream's
 * timestamps were written as given for want of a conversion. `sink` and
 * `stream` name them. */
void time_map_report(const time_map* m, const char* sink, const char* stream);

/* The time domain a time semantic in chain `h` names, or NONE. */
uint64_t time_map_semantics_domain(const nvtxSemanticsHeader_t* h);

#endif /* NVTXW_SINK_SHARED_TIME_MAP_H */
