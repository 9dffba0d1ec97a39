/*
 * fuzz/fuzz_temp.h - where the fuzz targets put their temporary files: $TMPDIR
 * when set, else /tmp.
 */
#ifndef NVTXW_FUZZ_TEMP_H
#define NVTXW_FUZZ_TEMP_H

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

#endif /* NVTXW_FUZZ_TEMP_H */
