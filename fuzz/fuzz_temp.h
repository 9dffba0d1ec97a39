/*
 * fuzz/fuzz_temp.h - where the fuzz targets put their temporary files: $TMPDIR
 * when set, else /tmp.
 */
#ifndef NVTXW_FUZZ_TEMP_H
#define NVTXW_FUZZ_TEMP_H

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define FUZZ_TEMP_NAME_MAX 512

/* Fills `path` (FUZZ_TEMP_NAME_MAX bytes) with a mkstemp() template
 * "DIR/nvtxw-WHAT-fuzz-PID-XXXXXX"; aborts when it does not fit. */
static inline void fuzz_temp_name(char* path, const char* what) {
    const char* dir = getenv("TMPDIR");
    int n = snprintf(path, FUZZ_TEMP_NAME_MAX, "%s/nvtxw-%s-fuzz-%ld-XXXXXX",
                     dir != NULL && dir[0] != '\0' ? dir : "/tmp", what, (long)getpid());
    if (n < 0 || n >= FUZZ_TEMP_NAME_MAX)
        abort();
}

/* Writes `size` bytes to a new temporary file whose name goes to `path`
 * (FUZZ_TEMP_NAME_MAX bytes; `what` as for fuzz_temp_name); aborts on
 * failure: a target that cannot write its input tests nothing. */
static inline void fuzz_temp_write(char* path, const char* what, const void* data, size_t size) {
    FILE* file;
    int fd;
    fuzz_temp_name(path, what);
    if ((fd = mkstemp(path)) < 0 || (file = fdopen(fd, "wb")) == NULL)
        abort();
    if ((size > 0 && fwrite(data, 1, size, file) != size) || fclose(file) != 0)
        abort();
}

#endif /* NVTXW_FUZZ_TEMP_H */
