/*
 * fuzz/fuzz_replay_main.c - a main() for the libFuzzer targets of fuzz/, so
 * that a plain build (gcc, -Werror, the sanitizer builds) can run a target's
 * LLVMFuzzerTestOneInput on saved inputs: the seed corpus and the crash
 * reproducers, in make check. See fuzz/README.md, "Replay in make check".
 *
 * Usage: <target>_replay [PATH...]
 *   Each PATH is a file (one input) or a directory (each regular file in it,
 *   in name order, not recursive; names starting with '.' and README files
 *   are skipped). Without PATH, the inputs are $top_srcdir/fuzz/corpus/SEEDS
 *   and $top_srcdir/fuzz/reproducers/NAME, NAME being FUZZ_REPLAY_NAME and
 *   SEEDS FUZZ_REPLAY_SEEDS (a target that shares another's seeds), else NAME;
 *   top_srcdir comes from the environment (make check exports it), else
 *   FUZZ_REPLAY_SRCDIR, the source tree configure saw.
 *
 * Each input is copied into a heap buffer of its exact size, as libFuzzer
 * does, so that ASan reports any read past its end. One line per input, then
 * "N passed, M failed". An input fails when it cannot be read or the target
 * returns anything but 0 or -1 (libFuzzer's "keep" and "reject"), or, in
 * an ASan build, when LeakSanitizer finds memory it leaked (checked after
 * each input, as libFuzzer's -detect_leaks does); a crash, abort or other
 * sanitizer report ends the program with the input's line unfinished.
 * Exit status 0 only when no input failed and at least one ran; a missing
 * or unreadable PATH is a failure, not an empty set.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef FUZZ_REPLAY_NAME
#error "FUZZ_REPLAY_NAME (the target's corpus folder name) must be defined"
#endif
#ifndef FUZZ_REPLAY_SEEDS
#define FUZZ_REPLAY_SEEDS FUZZ_REPLAY_NAME
#endif
#ifndef FUZZ_REPLAY_SRCDIR
#define FUZZ_REPLAY_SRCDIR "."
#endif

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
/* Optional in a target, as in libFuzzer: a weak reference, NULL if absent. */
int LLVMFuzzerInitialize(int* argc, char*** argv) __attribute__((weak));
/* LeakSanitizer's interface, present in ASan builds only: nonzero when
 * unreachable memory was found (its report is on stderr). */
int __lsan_do_recoverable_leak_check(void) __attribute__((weak));

typedef struct tally {
    unsigned passed;
    unsigned failed;
} tally_t;

static void fail(tally_t* t, const char* path, const char* why) {
    printf("FAIL: %s: %s\n", path, why);
    t->failed++;
}

/* Reads the whole file into an exact-size buffer (1 byte for an empty one,
 * never read). Returns NULL on failure. */
static uint8_t* read_input(const char* path, size_t* size) {
    uint8_t* data = NULL;
    struct stat st;
    FILE* file = fopen(path, "rb");
    if (file == NULL || fstat(fileno(file), &st) != 0 || !S_ISREG(st.st_mode))
        goto end;
    *size = (size_t)st.st_size;
    data = malloc(*size ? *size : 1);
    if (data != NULL && *size > 0 && fread(data, 1, *size, file) != *size) {
        free(data);
        data = NULL;
    }
end:
    if (file != NULL)
        fclose(file);
    return data;
}

static void run_file(tally_t* t, const char* path) {
    size_t size = 0;
    uint8_t* data = read_input(path, &size);
    int status;
    if (data == NULL) {
        fail(t, path, "cannot read input");
        return;
    }
    /* Flushed before the call: a crash leaves this line unfinished. */
    printf("run %s (%zu bytes) ... ", path, size);
    fflush(stdout);
    status = LLVMFuzzerTestOneInput(data, size);
    free(data);
    if (status != 0 && status != -1) {
        printf("FAIL: returned %d\n", status);
        t->failed++;
        return;
    }
    if (__lsan_do_recoverable_leak_check != NULL && __lsan_do_recoverable_leak_check() != 0) {
        printf("FAIL: memory leaked (LeakSanitizer's report is on stderr)\n");
        t->failed++;
        return;
    }
    printf("PASS\n");
    t->passed++;
}

static int skipped_name(const char* name) {
    return name[0] == '.' || strncmp(name, "README", 6) == 0;
}

static int compare_names(const void* a, const void* b) {
    return strcmp(*(char* const*)a, *(char* const*)b);
}

/* Runs every regular file of the directory, in name order. */
static void run_dir(tally_t* t, const char* dir) {
    DIR* d = opendir(dir);
    struct dirent* e;
    char** names = NULL;
    size_t count = 0;
    size_t k;
    if (d == NULL) {
        fail(t, dir, "cannot open directory");
        return;
    }
    while ((e = readdir(d)) != NULL) {
        char** grown;
        if (skipped_name(e->d_name))
            continue;
        grown = realloc(names, (count + 1) * sizeof *names);
        if (grown == NULL || (grown[count] = malloc(strlen(dir) + strlen(e->d_name) + 2)) == NULL) {
            names = grown != NULL ? grown : names;
            fail(t, dir, "out of memory");
            break;
        }
        names = grown;
        sprintf(names[count++], "%s/%s", dir, e->d_name);
    }
    closedir(d);
    if (names != NULL)
        qsort(names, count, sizeof *names, compare_names);
    for (k = 0; k < count; k++) {
        struct stat st;
        if (stat(names[k], &st) == 0 && S_ISREG(st.st_mode))
            run_file(t, names[k]);
        free(names[k]);
    }
    free(names);
}

static void run_path(tally_t* t, const char* path) {
    struct stat st;
    if (stat(path, &st) != 0)
        fail(t, path, "no such file or directory");
    else if (S_ISDIR(st.st_mode))
        run_dir(t, path);
    else
        run_file(t, path);
}

/* The default inputs: the target's corpus and reproducer folders. */
static void run_defaults(tally_t* t) {
    static const char* const kinds[] = {"corpus", "reproducers"};
    static const char* const names[] = {FUZZ_REPLAY_SEEDS, FUZZ_REPLAY_NAME};
    const char* top = getenv("top_srcdir");
    char path[4096];
    size_t k;
    if (top == NULL || top[0] == '\0')
        top = FUZZ_REPLAY_SRCDIR;
    for (k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        snprintf(path, sizeof path, "%s/fuzz/%s/%s", top, kinds[k], names[k]);
        run_path(t, path);
    }
}

int main(int argc, char** argv) {
    tally_t t = {0, 0};
    int k;
    if (LLVMFuzzerInitialize != NULL && LLVMFuzzerInitialize(&argc, &argv) != 0) {
        printf("FAIL: LLVMFuzzerInitialize failed\n");
        t.failed++;
    } else if (argc < 2) {
        run_defaults(&t);
    } else {
        for (k = 1; k < argc; k++)
            run_path(&t, argv[k]);
    }
    if (t.passed + t.failed == 0)
        printf("FAIL: no input found: an empty replay tests nothing\n");
    printf("%u passed, %u failed\n", t.passed, t.failed);
    fflush(stdout); /* before a sanitizer's exit-time check can _exit() */
    return t.failed == 0 && t.passed > 0 ? 0 : 1;
}
