/*
 * common/output_file.c - temporary names and the commit of sink outputs
 * (output_file.h).
 */
#define _GNU_SOURCE /* getrandom */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/output_file.h"

#define SUFFIX ".tmp-XXXXXX"
#define ATTEMPTS 100

/* Six characters of [0-9a-z], different on each call (random when the
 * kernel gives randomness, else from the time, the process and a count). */
static void random_suffix(char* six) {
    static _Atomic uint64_t counter;
    uint64_t h = 0;
    if (getrandom(&h, sizeof h, GRND_NONBLOCK) != (ssize_t)sizeof h) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        h = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
        h ^= (uint64_t)getpid() << 32;
    }
    h += atomic_fetch_add(&counter, 1) * UINT64_C(0x9e3779b97f4a7c15);
    h ^= h >> 31; /* the low digits below depend on every bit */
    h *= UINT64_C(0xbf58476d1ce4e5b9);
    h ^= h >> 29;
    for (int i = 0; i < 6; i++, h /= 36)
        six[i] = "0123456789abcdefghijklmnopqrstuvwxyz"[h % 36];
}

static int open_in_place(output_file* f, int flags) {
    f->written = nvtxw_strdup(f->path);
    if (f->written == NULL) {
        errno = ENOMEM;
        return -1;
    }
    return open(f->written, flags | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
}

static int open_temporary(output_file* f, int flags) {
    size_t length = strlen(f->path);
    int err = 0;
    f->written = nvtxw_malloc(length + sizeof SUFFIX);
    if (f->written == NULL) {
        errno = ENOMEM;
        return -1;
    }
    memcpy(f->written, f->path, length);
    memcpy(f->written + length, SUFFIX, sizeof SUFFIX);
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
        int fd;
        random_suffix(f->written + length + sizeof SUFFIX - 7);
        fd = open(f->written, flags | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0)
            return fd;
        err = errno;
        if (err != EEXIST && err != EINTR)
            break;
    }
    errno = err;
    return -1;
}

/* A device, FIFO or socket (after symbolic links): written in place. */
static int is_special(const char* path) {
    struct stat st;
    return stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

int output_file_open(output_file* f, const char* path, int mode, int flags) {
    struct stat st;
    memset(f, 0, sizeof *f);
    f->mode = mode;
    if (mode == OUTPUT_KEEP && lstat(path, &st) == 0) {
        errno = EEXIST;
        return -1;
    }
    f->path = nvtxw_strdup(path);
    if (f->path == NULL) {
        errno = ENOMEM;
        return -1;
    }
    f->special = is_special(path);
    return mode == OUTPUT_IN_PLACE || f->special ? open_in_place(f, flags)
                                                 : open_temporary(f, flags);
}

int output_file_commit(output_file* f) {
    int err;
    if (f->mode == OUTPUT_IN_PLACE || f->special)
        return 0;
    if (f->mode == OUTPUT_REPLACE) {
        if (rename(f->written, f->path) == 0)
            return 0;
    } else if (link(f->written, f->path) == 0) {
        unlink(f->written);
        return 0;
    } else if (errno != EEXIST) {
        /* No hard links here (some FUSE and network file systems): check,
         * then rename; a file appearing in between is replaced. */
        struct stat st;
        if (lstat(f->path, &st) == 0)
            errno = EEXIST;
        else if (rename(f->written, f->path) == 0)
            return 0;
    }
    err = errno;
    unlink(f->written);
    errno = err;
    return -1;
}

void output_file_discard(output_file* f) {
    if (f->written != NULL && !f->special)
        unlink(f->written);
}

void output_file_free(output_file* f) {
    nvtxw_free(f->written);
    nvtxw_free(f->path);
    f->written = f->path = NULL;
}

int output_write_all(int fd, const void* data, size_t size) {
    const char* p = data;
    while (size > 0) {
        ssize_t n = write(fd, p, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errno;
        if (n == 0)
            return EIO;
        p += n;
        size -= (size_t)n;
    }
    return 0;
}
