/*
 * format/container_io.c - positional I/O that survives EINTR and short
 * transfers, thread-safe strerror, and zstd contexts on the library's
 * allocator.
 */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_create?Ctx_advanced: custom allocator */
#include <zstd.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "format/container_layout.h"

int container_pwrite_all(int fd, const void* data, size_t size, uint64_t offset) {
    const unsigned char* p = data;
    while (size > 0) {
        ssize_t n = pwrite(fd, p, size, (off_t)offset);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errno;
        if (n == 0)
            return EIO;
        p += n;
        size -= (size_t)n;
        offset += (uint64_t)n;
    }
    return 0;
}

int container_pread_full(int fd, void* data, size_t size, uint64_t offset, size_t* got) {
    unsigned char* p = data;
    *got = 0;
    while (size > 0) {
        ssize_t n = pread(fd, p, size, (off_t)offset);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errno;
        if (n == 0)
            break;
        p += n;
        size -= (size_t)n;
        offset += (uint64_t)n;
        *got += (size_t)n;
    }
    return 0;
}

const char* container_strerror(int err, char* buf, size_t size) {
    /* GNU strerror_r: returns a static string or fills buf. */
    return strerror_r(err, buf, size);
}

static void* zstd_alloc(void* opaque, size_t size) {
    (void)opaque;
    return nvtxw_malloc(size);
}

static void zstd_free(void* opaque, void* address) {
    (void)opaque;
    nvtxw_free(address);
}

static const ZSTD_customMem zstd_mem = {zstd_alloc, zstd_free, NULL};

ZSTD_CCtx* container_cctx_create(int level) {
    ZSTD_CCtx* cctx = ZSTD_createCCtx_advanced(zstd_mem);
    size_t rc;
    if (cctx == NULL) {
        error_oom("a zstd compression context");
        return NULL;
    }
    rc = ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
    if (!ZSTD_isError(rc))
        rc = ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
    if (!ZSTD_isError(rc))
        rc = ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 1);
    if (ZSTD_isError(rc)) {
        error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                  "cannot create chunk encoder: compression_level=%d: %s", level,
                  ZSTD_getErrorName(rc));
        ZSTD_freeCCtx(cctx);
        return NULL;
    }
    return cctx;
}

ZSTD_DCtx* container_dctx_create(void) {
    ZSTD_DCtx* dctx = ZSTD_createDCtx_advanced(zstd_mem);
    if (dctx == NULL)
        error_oom("a zstd decompression context");
    return dctx;
}
