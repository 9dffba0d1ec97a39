/*
 * payload/visit_number.c - decoding of predefined numeric values.
 *
 * Integers of 1, 2, 4 and 8 bytes in host byte order, sign-extended for
 * signed types. Floating point is converted to double in software where the
 * host has no type: FLOAT16 (IEEE binary16) and BF16 exactly, FLOAT128 (IEEE
 * binary128) rounded to the nearest double (ties to even, with subnormal and
 * overflow handling); LONGDOUBLE goes through the host's long double; FLOAT,
 * FLOAT32 and TF32 are binary32 containers. INT128/UINT128 are raw bytes.
 * All reads use memcpy, so unaligned data is fine.
 */
#include "config.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "payload/visit_internal.h"

/* x * 2^e, exact whenever the result is representable. */
static double scale2(double x, long e) {
    while (e > 0) {
        int k = e > 60 ? 60 : (int)e;
        x *= (double)((uint64_t)1 << k);
        e -= k;
    }
    while (e < 0) {
        int k = -e > 60 ? 60 : (int)-e;
        x /= (double)((uint64_t)1 << k);
        e += k;
    }
    return x;
}

static double half_to_double(uint16_t h) {
    int exponent = (h >> 10) & 0x1f;
    unsigned mantissa = h & 0x3ff;
    double value;
    if (exponent == 0x1f)
        value = mantissa ? NAN : INFINITY;
    else if (exponent == 0)
        value = scale2((double)mantissa, -24);
    else
        value = scale2((double)(mantissa | 0x400), exponent - 25);
    return (h & 0x8000) ? -value : value;
}

static double bf16_to_double(uint16_t b) {
    uint32_t bits = (uint32_t)b << 16;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

#if defined(__SIZEOF_INT128__)
typedef unsigned __int128 u128_t;

static int bit_length(u128_t v) {
    int n = 0;
    while (v != 0) {
        v >>= 1;
        n++;
    }
    return n;
}

/* v >> shift rounded to nearest, ties to even. */
static u128_t shift_round(u128_t v, int shift) {
    u128_t kept;
    u128_t rest;
    u128_t half;
    if (shift <= 0)
        return v;
    if (shift > 120)
        return 0;
    kept = v >> shift;
    rest = v & (((u128_t)1 << shift) - 1);
    half = (u128_t)1 << (shift - 1);
    if (rest > half || (rest == half && (kept & 1)))
        kept++;
    return kept;
}

/* significand * 2^exponent (significand < 2^113) to the nearest double. */
static double binary128_magnitude(u128_t significand, long exponent) {
    int length = bit_length(significand);
    long top = exponent + length - 1; /* exponent of the leading bit */
    long precision = 53;
    if (significand == 0)
        return 0.0;
    if (top > DBL_MAX_EXP - 1)
        return INFINITY;
    if (top < DBL_MIN_EXP - 1)
        precision = 53 - ((DBL_MIN_EXP - 1) - top);
    if (precision <= 0) {
        /* Below half the smallest subnormal: 0; above it: the smallest. */
        int exactly_half = top == -1075 && (significand & (significand - 1)) == 0;
        return (top < -1075 || exactly_half) ? 0.0 : scale2(1.0, -1074);
    }
    if (length > precision) {
        significand = shift_round(significand, (int)(length - precision));
        exponent += length - precision;
    }
    return scale2((double)(uint64_t)significand, exponent);
}

static double float128_to_double(const uint8_t* p) {
    uint64_t words[2];
    uint64_t high;
    int exponent;
    u128_t mantissa;
    double value;
    memcpy(words, p, 16);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    high = words[0];
    mantissa = ((u128_t)(high & 0xffffffffffffULL) << 64) | words[1];
#else
    high = words[1];
    mantissa = ((u128_t)(high & 0xffffffffffffULL) << 64) | words[0];
#endif
    exponent = (int)((high >> 48) & 0x7fff);
    if (exponent == 0x7fff)
        value = mantissa ? NAN : INFINITY;
    else if (exponent == 0)
        value = binary128_magnitude(mantissa, 1 - 16383 - 112);
    else
        value = binary128_magnitude(mantissa | ((u128_t)1 << 112), exponent - 16383 - 112);
    return (high >> 63) ? -value : value;
}
#else
/* Without 128-bit integers: the top 52 mantissa bits, truncated. */
static double float128_to_double(const uint8_t* p) {
    uint64_t words[2];
    uint64_t high;
    int exponent;
    double value;
    memcpy(words, p, 16);
    high = words[1];
    exponent = (int)((high >> 48) & 0x7fff);
    if (exponent == 0x7fff)
        return (high & 0xffffffffffffULL) || words[0] ? NAN : ((high >> 63) ? -INFINITY : INFINITY);
    value = scale2((double)(((high & 0xffffffffffffULL) << 4) | (words[0] >> 60)), -52);
    value = scale2(exponent ? 1.0 + value : value, (exponent ? exponent : 1) - 16383);
    return (high >> 63) ? -value : value;
}
#endif

double visit_read_float(uint64_t type, const uint8_t* p) {
    float f;
    double d;
    long double ld;
    uint16_t h;
    switch (type) {
    case NVTX_PAYLOAD_ENTRY_TYPE_FLOAT16:
        memcpy(&h, p, 2);
        return half_to_double(h);
    case NVTX_PAYLOAD_ENTRY_TYPE_BF16:
        memcpy(&h, p, 2);
        return bf16_to_double(h);
    case NVTX_PAYLOAD_ENTRY_TYPE_DOUBLE:
    case NVTX_PAYLOAD_ENTRY_TYPE_FLOAT64:
        memcpy(&d, p, sizeof d);
        return d;
    case NVTX_PAYLOAD_ENTRY_TYPE_LONGDOUBLE:
        memcpy(&ld, p, sizeof ld);
        return (double)ld;
    case NVTX_PAYLOAD_ENTRY_TYPE_FLOAT128:
        return float128_to_double(p);
    default: /* FLOAT, FLOAT32, TF32: binary32 containers */
        memcpy(&f, p, sizeof f);
        return f;
    }
}

int visit_emit_number(visit_state_t* vs, const entry_type_info_t* info, const uint8_t* p,
                      size_t size) {
    switch (info->category) {
    case ENTRY_CAT_SIGNED:
        return VISIT_CALL(vs, on_signed, visit_read_signed(p, size));
    case ENTRY_CAT_UNSIGNED:
    case ENTRY_CAT_SELECTOR:
        return VISIT_CALL(vs, on_unsigned, visit_read_unsigned(p, size));
    case ENTRY_CAT_FLOAT:
        return VISIT_CALL(vs, on_float, visit_read_float(info->type, p));
    case ENTRY_CAT_HANDLE: {
        uint64_t handle = visit_read_unsigned(p, size);
        if (vs->v->on_string_handle == NULL)
            return 0; /* the text is looked up only for the callback */
        return VISIT_CALL(vs, on_string_handle, handle,
                          vs->resolve ? vs->resolve(vs->resolve_ctx, handle) : NULL);
    }
    case ENTRY_CAT_BYTES:
        return VISIT_CALL(vs, on_bytes, p, size);
    default:
        return VISIT_CALL0(vs, on_null);
    }
}
