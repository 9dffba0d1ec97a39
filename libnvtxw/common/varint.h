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

#endif /* NVTXW_COMMON_VARINT_H */
