/*
 * tools/otf2-import/ticks.c - OTF2 clock ticks to nanoseconds.
 *
 * ns(t) = floor((t - global_offset) * 10^9 / timer_resolution), exact for
 * every uint64 tick count (docs/otf2-mapping.md, "Session, domain, time"); -1 when the result
 * does not fit an int64. Every event is converted, so the usual cases take
 * no division: a nanosecond clock is a subtraction, and other resolutions
 * up to 2^64 / 10^9 ticks per second (18 GHz) divide by multiplying with a
 * precomputed inverse.
 */
#include "config.h"

#include <stdint.h>

#include "otf2_import.h"

void import_clock_set(otf2_defs* defs, uint64_t resolution, uint64_t offset) {
    defs->timer_resolution = resolution;
    defs->global_offset = offset;
    defs->resolution_inverse = UINT64_MAX / resolution;
}

/* n / res and n % res without a division. With the precomputed inverse
 * m = floor((2^64 - 1) / res), write 2^64 - 1 = m * res + e (e < res): then
 * n * m / 2^64 = n / res - n * (1 + e) / (res * 2^64), and the subtracted
 * term is below 1 for any n < 2^64, so the estimate is the quotient or one
 * below it; the remainder tells which. A division per conversion was 3 % of
 * an import. */
static uint64_t div_resolution(const otf2_defs* defs, uint64_t n, uint64_t* rem) {
    uint64_t res = defs->timer_resolution;
    uint64_t q = (uint64_t)(((unsigned __int128)n * defs->resolution_inverse) >> 64);
    uint64_t r = n - q * res;
    if (r >= res) {
        q++;
        r -= res;
    }
    *rem = r;
    return q;
}

int import_ticks_to_ns(const otf2_defs* defs, uint64_t ticks, int64_t* ns) {
    uint64_t res = defs->timer_resolution;
    __int128 q;
    if (ticks >= defs->global_offset && res == 1000000000u) {
        q = ticks - defs->global_offset; /* a nanosecond clock */
    } else if (ticks >= defs->global_offset && res <= UINT64_MAX / 1000000000u) {
        /* the usual case: d = a * res + b, b < res, so b * 10^9 fits */
        uint64_t b, unused, a = div_resolution(defs, ticks - defs->global_offset, &b);
        q = (__int128)a * 1000000000 + (__int128)div_resolution(defs, b * 1000000000u, &unused);
    } else {
        __int128 scaled = ((__int128)ticks - (__int128)defs->global_offset) * 1000000000;
        q = scaled / (__int128)res;
        if (scaled % (__int128)res != 0 && scaled < 0)
            q -= 1; /* floor, also before the global offset */
    }
    if (q > INT64_MAX || q < INT64_MIN)
        return -1;
    *ns = (int64_t)q;
    return 0;
}
