/*
 * tests/unit/test_util.h - helpers shared by the Check unit tests: a fresh
 * temporary directory and its removal, reading a whole file, the heap in
 * use, the NVTXW v2 table, a Sink=text session and running a suite from
 * main().
 *
 * Header-only: every function is static inline, so a test that does not
 * call the NVTXW ones need not link libnvtxw. Functions named *_or_fail fail
 * the running Check test (ck_assert) instead of returning an error; the
 * others may also be called from main(), outside any test.
 */
#ifndef NVTXW_TESTS_UNIT_TEST_UTIL_H
#define NVTXW_TESTS_UNIT_TEST_UTIL_H

/* mkdtemp, lstat: the including file defines _POSIX_C_SOURCE 200809L (or
 * _GNU_SOURCE) before its first #include. */
#if !defined(_POSIX_C_SOURCE) && !defined(_GNU_SOURCE) && !defined(_XOPEN_SOURCE)
#error "define _POSIX_C_SOURCE 200809L or _GNU_SOURCE before including any header"
#endif

#include <check.h>
#include <dirent.h>
#include <limits.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nvtxw/backend.h"
#include "nvtxw/error.h"
#include "run_suite.h"

/* Bytes the allocator has handed out and not taken back, mmapped blocks
 * included; 0 when it cannot say (a sanitizer's allocator, or not glibc
 * 2.33+): a test then asserts only what does not need the figure. */
static inline size_t tu_heap_in_use(void) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33)
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
#else
    return 0;
#endif
}

/* Creates a new, empty directory "$TMPDIR/<prefix>-XXXXXX" ("/tmp" when
 * TMPDIR is unset or empty) with mkdtemp and stores its path in buf. Fails
 * the test when the path does not fit in `size` bytes or mkdtemp fails. */
static inline void tu_make_temp_dir_or_fail(char* buf, size_t size, const char* prefix) {
    const char* tmp = getenv("TMPDIR");
    int n = snprintf(buf, size, "%s/%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", prefix);
    ck_assert_msg(n > 0 && (size_t)n < size, "temporary directory path too long for %zu bytes",
                  size);
    ck_assert_ptr_nonnull(mkdtemp(buf));
}

/* Removes `path` and, when it is a directory, everything below it (symbolic
 * links are removed, not followed). Returns 0 when all of it is gone, -1
 * when anything could not be removed (the rest is still removed). */
static inline int tu_remove_tree(const char* path) {
    struct stat st;
    DIR* d;
    struct dirent* e;
    char child[PATH_MAX];
    int rc = 0;
    if (lstat(path, &st) != 0)
        return -1;
    if (!S_ISDIR(st.st_mode))
        return unlink(path) == 0 ? 0 : -1;
    d = opendir(path);
    if (d == NULL)
        return -1;
    while ((e = readdir(d)) != NULL) {
        int n;
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        n = snprintf(child, sizeof child, "%s/%s", path, e->d_name);
        if (n < 0 || (size_t)n >= sizeof child || tu_remove_tree(child) != 0)
            rc = -1;
    }
    closedir(d);
    return rmdir(path) == 0 ? rc : -1;
}

/* The whole file at `path` as a malloc'd buffer with a NUL after the last
 * byte (the caller frees it); its length in bytes, which may count embedded
 * NULs, goes to *size when size is not NULL. Returns NULL when the file
 * cannot be opened; seek, tell, allocation and short-read failures fail the
 * test. */
static inline char* tu_read_file_or_null(const char* path, size_t* size) {
    FILE* f = fopen(path, "rb");
    char* data;
    long length;
    if (f == NULL)
        return NULL;
    ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
    length = ftell(f);
    ck_assert_int_ge(length, 0);
    rewind(f);
    data = malloc((size_t)length + 1);
    ck_assert_ptr_nonnull(data);
    ck_assert_uint_eq(fread(data, 1, (size_t)length, f), (size_t)length);
    data[length] = '\0';
    fclose(f);
    if (size != NULL)
        *size = (size_t)length;
    return data;
}

/* As tu_read_file_or_null, but a file that cannot be opened fails the test
 * ("cannot open <path>"); never returns NULL. */
static inline char* tu_read_file_or_fail(const char* path, size_t* size) {
    char* data = tu_read_file_or_null(path, size);
    ck_assert_msg(data != NULL, "cannot open %s", path);
    return data;
}

/* The NVTXW v2 function table (nvtxwGetInterface with
 * NVTXW_INTERFACE_VERSION), or NULL when that call does not succeed or
 * returns no table. Needs libnvtxw at link time. */
/* Occurrences of `needle` in `text` (not overlapping). */
static inline size_t tu_count_substr(const char* text, const char* needle) {
    size_t n = 0, len = strlen(needle);
    for (const char* p = strstr(text, needle); p != NULL && len > 0; p = strstr(p + len, needle))
        n++;
    return n;
}

static inline const nvtxwInterface_t* tu_get_interface(void) {
    const void* table = NULL;
    if (nvtxwGetInterface(NVTXW_INTERFACE_VERSION, &table) != NVTXW_RESULT_SUCCESS)
        return NULL;
    return (const nvtxwInterface_t*)table;
}

/* As tu_get_interface, but a failure fails the test. */
static inline const nvtxwInterface_t* tu_get_interface_or_fail(void) {
    const void* table = NULL;
    ck_assert_int_eq(nvtxwGetInterface(NVTXW_INTERFACE_VERSION, &table), NVTXW_RESULT_SUCCESS);
    ck_assert_ptr_nonnull(table);
    return (const nvtxwInterface_t*)table;
}

/* Begins session `name` through table `t` with configuration string
 * `config`. Fails the test, with nvtxw_last_error(), unless SessionBegin
 * succeeds with a non-NULL handle. */
static inline nvtxwSessionHandle_t tu_session_or_fail(const nvtxwInterface_t* t, const char* name,
                                                      const char* config) {
    nvtxwSessionAttributes_t attr;
    nvtxwSessionHandle_t session = NULL;
    nvtxwResultCode_t rc;
    memset(&attr, 0, sizeof attr);
    attr.structSize = sizeof attr;
    attr.name = name;
    attr.configString = config;
    rc = t->SessionBegin(&attr, &session);
    ck_assert_msg(rc == NVTXW_RESULT_SUCCESS, "SessionBegin(\"%s\") returned %d: %s", config,
                  (int)rc, nvtxw_last_error());
    ck_assert_ptr_nonnull(session);
    return session;
}

/* Begins session `name` with the configuration
 * "Sink=text|Output=<output><extra>" (`extra` is appended as is, e.g.
 * "|Overwrite=yes"; NULL for none), as tu_session_or_fail. */
static inline nvtxwSessionHandle_t tu_text_session_or_fail(const nvtxwInterface_t* t,
                                                           const char* name, const char* output,
                                                           const char* extra) {
    char config[PATH_MAX + 256];
    int n = snprintf(config, sizeof config, "Sink=text|Output=%s%s", output, extra ? extra : "");
    ck_assert_msg(n > 0 && (size_t)n < sizeof config, "configuration string too long");
    return tu_session_or_fail(t, name, config);
}

/* Begins session `name` writing sink `sink_name` to `dir`/`name`
 * (overwriting), as tu_session_or_fail. */
static inline nvtxwSessionHandle_t tu_sink_session_or_fail(const nvtxwInterface_t* t,
                                                           const char* sink_name, const char* dir,
                                                           const char* name) {
    char config[2 * PATH_MAX];
    int n =
        snprintf(config, sizeof config, "Sink=%s|Output=%s/%s|Overwrite=yes", sink_name, dir, name);
    ck_assert_msg(n > 0 && (size_t)n < sizeof config, "configuration string too long");
    return tu_session_or_fail(t, name, config);
}

/* Runs `child` in a fork()ed process, for what must not happen in the test's
 * own (resource limits, a session that goes faulty): `child` gets the
 * write end of a pipe, writes "OK" to it when every expectation held, else
 * what went wrong, and _exits. Fails the test unless the child exited with
 * status 0 after writing "OK"; the failure shows what it wrote. */
static inline void tu_run_child_or_fail(void (*child)(int fd)) {
    int fds[2], status = 0;
    char report[1500];
    ssize_t n;
    pid_t pid;
    ck_assert_int_eq(pipe(fds), 0);
    pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        close(fds[0]);
        child(fds[1]);
        _exit(4); /* a child that returns */
    }
    close(fds[1]);
    n = read(fds[0], report, sizeof report - 1);
    close(fds[0]);
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    report[n > 0 ? n : 0] = '\0';
    ck_assert_msg(WIFEXITED(status), "child died (status %d): %s", status, report);
    ck_assert_str_eq(report, "OK");
    ck_assert_int_eq(WEXITSTATUS(status), 0);
}

/* Runs the python3 program `script` (written to `dir`/`name`.py) with
 * `input` (a file) as its argv[1] and as its standard input. Returns its
 * exit status (pclose's) and its stdout and stderr together in *output
 * (NUL-terminated, the caller frees). python3 is the tests' independent
 * reader of our outputs (JSON, CSV, text), so a missing one fails: the
 * status is then non-zero and the shell says why in *output. */
static inline int tu_run_python(const char* dir, const char* name, const char* script,
                                const char* input, char** output) {
    char path[PATH_MAX + 64], command[3 * PATH_MAX + 256];
    size_t length = 0, capacity = 4096;
    char* out = malloc(capacity);
    FILE* file;
    ck_assert_ptr_nonnull(out);
    snprintf(path, sizeof path, "%s/%s.py", dir, name);
    file = fopen(path, "w");
    ck_assert_msg(file != NULL, "cannot write %s", path);
    fputs(script, file);
    fclose(file);
    snprintf(command, sizeof command, "python3 '%s' '%s' < '%s' 2>&1", path, input, input);
    file = popen(command, "r");
    ck_assert_msg(file != NULL, "cannot run python3");
    for (size_t got; (got = fread(out + length, 1, capacity - length - 1, file)) > 0;) {
        length += got;
        if (capacity - length == 1) {
            out = realloc(out, capacity *= 2);
            ck_assert_ptr_nonnull(out);
        }
    }
    out[length] = '\0';
    *output = out;
    return pclose(file);
}

/* Compares two texts line by line. Returns 0 when they are equal, else the
 * 1-based number of the first line that differs, with "line N: want
 * \"...\", got \"...\"" (prefixed by `what`) in `message`. */
static inline int tu_first_line_difference(const char* what, const char* want, const char* got,
                                           char* message, size_t size) {
    for (int line = 1; *want != '\0' || *got != '\0'; line++) {
        size_t wl = strcspn(want, "\n"), gl = strcspn(got, "\n");
        if (wl != gl || memcmp(want, got, wl) != 0) {
            snprintf(message, size, "%s line %d: want \"%.*s\", got \"%.*s\"", what, line, (int)wl,
                     want, (int)gl, got);
            return line;
        }
        want += wl + (want[wl] == '\n');
        got += gl + (got[gl] == '\n');
    }
    return 0;
}

#endif /* NVTXW_TESTS_UNIT_TEST_UTIL_H */
