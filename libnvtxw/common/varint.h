/*
 * common/varint.h - the primitive encodings of report records
 * (docs/report-records.md): unsigned LEB128 (`uvar`), zigzag signed
 * (`svar`), and bounds-checked decoding. Shared by the report sink (writer)
 * and the reader, header-only.
 */
#ifndef NVTXW_COMMON_VARINT_H
#define NVTXW_COMMON_VARINT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Longest encoding of a 64-bit value. */
#define VARINT_MAX_BYTES 10

/* Writes `value` at `out` (room for VARINT_MAX_BYTES); returns the length. */
static inline size_t varint_put(uint8_t* out, uint64_t value) {
    size_t n = 0;
    while (value >= 0x80) {
        out[n++] = (uint8_t)(value | 0x80);
        value >>= 7;
    }
    out[n++] = (uint8_t)value;
    return n;
}

/* varint_put for a caller with room for VARINT_MAX_BYTES bytes at `out`
 * that may all be overwritten: values of 2 to 8 bytes are written as one
 * 8-byte store without a branch on their length (the bytes past the
 * encoding are scratch), as lengths vary from value to value and
 * mispredicted branches cost more than the arithmetic. The same bytes as
 * varint_put up to the returned length. */
static inline size_t varint_put_wide(uint8_t* out, uint64_t value) {
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t v = value;
    unsigned n;
    if (value < 0x80) {
        out[0] = (uint8_t)value;
        return 1;
    }
    if (value >> 56 != 0)
        return varint_put(out, value);
    /* byte i takes bits 7i .. 7i + 6 (the inverse of varint_get_unbounded's
     * merge), then every byte but the last its continuation bit */
    v = (v & 0x000000000FFFFFFFu) | ((v & 0x00FFFFFFF0000000u) << 4);
    v = (v & 0x00003FFF00003FFFu) | ((v & 0x0FFFC0000FFFC000u) << 2);
    v = (v & 0x007F007F007F007Fu) | ((v & 0x3F803F803F803F80u) << 1);
    n = (unsigned)(64 - __builtin_clzll(value) + 6) / 7; /* 2 .. 8 */
    v |= UINT64_C(0x8080808080808080) >> (8 * (9 - n));
    memcpy(out, &v, 8);
    return n;
#else
    return varint_put(out, value);
#endif
}

static inline uint64_t varint_zigzag(int64_t value) {
    return ((uint64_t)value << 1) ^ (uint64_t)(value >> 63);
}

static inline int64_t varint_unzigzag(uint64_t value) {
    return (int64_t)(value >> 1) ^ -(int64_t)(value & 1);
}

/* Reads a uvar from [*pos, end); advances *pos. Returns 0, or -1 when the
 * bytes end early or the value does not fit in 64 bits. */
static inline int varint_get(const uint8_t** pos, const uint8_t* end, uint64_t* value) {
    const uint8_t* p = *pos;
    uint64_t result = 0;
    unsigned shift = 0;
    for (;;) {
        uint8_t byte;
        if (p >= end || shift > 63)
            return -1;
        byte = *p++;
        if (shift == 63 && byte > 1)
            return -1;
        result |= (uint64_t)(byte & 0x7F) << shift;
        if ((byte & 0x80) == 0)
            break;
        shift += 7;
    }
    *pos = p;
    *value = result;
    return 0;
}

/* The loop of varint_get without end checks (varint_get_unbounded). */
static inline int varint_get_loop(const uint8_t** pos, uint64_t* value) {
    const uint8_t* p = *pos;
    uint64_t result = 0;
    unsigned shift = 0;
    uint8_t byte;
    do {
        byte = *p++;
        result |= (uint64_t)(byte & 0x7F) << shift;
        shift += 7;
    } while ((byte & 0x80) != 0 && shift < 63);
    if ((byte & 0x80) != 0) { /* a tenth byte holds bit 63 only */
        byte = *p++;
        if (byte > 1)
            return -1;
        result |= (uint64_t)byte << 63;
    }
    *pos = p;
    *value = result;
    return 0;
}

/* As varint_get, for callers that know VARINT_MAX_BYTES bytes are readable
 * at *pos: the same rules without end checks (the readers' fast paths).
 * Values of 2 to 8 bytes are decoded without a branch on their length
 * (eight bytes loaded at once, the stop bit found by counting zeros), as
 * lengths vary from record to record and mispredicted branches cost more
 * than the arithmetic. */
static inline int varint_get_unbounded(const uint8_t** pos, uint64_t* value) {
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const uint8_t* p = *pos;
    uint64_t word, stops, v;
    if (p[0] < 0x80) {
        *value = p[0];
        *pos = p + 1;
        return 0;
    }
    memcpy(&word, p, 8);
    stops = ~word & 0x8080808080808080u; /* the bytes without a continuation bit */
    if (stops == 0)
        return varint_get_loop(pos, value); /* 9 or 10 bytes */
    /* the bytes up to the first stop, without their continuation bits */
    v = word & (stops ^ (stops - 1)) & 0x7F7F7F7F7F7F7F7Fu;
    /* pairs of 7-bit groups into 14 bits per 16, those into 28 per 32,
     * those into 56: byte i's seven bits land at bit 7 * i */
    v = (v & 0x007F007F007F007Fu) | ((v & 0x7F007F007F007F00u) >> 1);
    v = (v & 0x00003FFF00003FFFu) | ((v & 0x3FFF00003FFF0000u) >> 2);
    v = (v & 0x000000000FFFFFFFu) | ((v & 0x0FFFFFFF00000000u) >> 4);
    *pos = p + ((unsigned)__builtin_ctzll(stops) + 1) / 8;
    *value = v;
    return 0;
#else
    return varint_get_loop(pos, value);
#endif
}

#endif /* NVTXW_COMMON_VARINT_H */
