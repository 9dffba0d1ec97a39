/*
 * common/slot_hash.h - the slot of a 64-bit key in a small direct-mapped
 * table of 2^bits entries: Fibonacci hashing (multiply by 2^64 / phi, keep
 * the top bits), so that keys with a regular stride (consecutive schema
 * IDs, names at the same distance in a table) still spread over the slots.
 * Header-only: the write path's caches use it per event.
 */
#ifndef NVTXW_COMMON_SLOT_HASH_H
#define NVTXW_COMMON_SLOT_HASH_H

#include <stdint.h>

/* The slot of `key` in a table of 2^bits slots (1 <= bits <= 32). */
static inline unsigned slot_hash(uint64_t key, unsigned bits) {
    return (unsigned)((key * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - bits));
}

#endif /* NVTXW_COMMON_SLOT_HASH_H */
