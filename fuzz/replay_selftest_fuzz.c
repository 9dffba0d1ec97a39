/*
 * fuzz/replay_selftest_fuzz.c - a target that misbehaves on request, to
 * test the replay driver (fuzz/fuzz_replay_main.c) itself in
 * fuzz/replay_selftest.sh: the driver must report each kind of failure.
 *
 * Input: "abort..." aborts (a crash), "return1..." returns 1 (a value
 * libFuzzer reserves), "overread..." reads one byte past the input (an ASan
 * report in the sanitizer build, unnoticed otherwise), "leak..." leaks
 * the input's size in bytes (a LeakSanitizer finding in the ASan build);
 * anything else returns 0. Every call first checks that LLVMFuzzerInitialize ran, so the
 * driver's optional-initializer path is tested too.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerInitialize(int* argc, char*** argv);
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static int initialized;
static volatile uint8_t sink;
static void* volatile leaked;

int LLVMFuzzerInitialize(int* argc, char*** argv) {
    (void)argc;
    (void)argv;
    initialized = 1;
    return 0;
}

static int starts(const uint8_t* data, size_t size, const char* word) {
    size_t n = strlen(word);
    return size >= n && memcmp(data, word, n) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (!initialized)
        abort();
    if (starts(data, size, "abort"))
        abort();
    if (starts(data, size, "return1"))
        return 1;
    if (starts(data, size, "overread"))
        sink = data[size];
    if (starts(data, size, "leak")) {
        leaked = malloc(size); /* volatile: the allocation happens */
        leaked = NULL;
    }
    return 0;
}
