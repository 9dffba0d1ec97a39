/* tests/unit/test_random.h - the pseudo-random numbers of the randomized
 * unit tests: xorshift64* (Vigna), deterministic for a seed, so a failure
 * repeats. Self-contained, like run_suite.h. */
#ifndef NVTXW_TESTS_UNIT_TEST_RANDOM_H
#define NVTXW_TESTS_UNIT_TEST_RANDOM_H

#include <stdint.h>

/* The next number of the sequence in *state (never 0: seed it non-zero). */
static inline uint64_t tu_random(uint64_t* state) {
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return *state * 0x2545F4914F6CDD1DULL;
}

#endif /* NVTXW_TESTS_UNIT_TEST_RANDOM_H */
