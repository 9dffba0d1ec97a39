/*
 * tests/unit/loader_test_util.h - locating the test backends of
 * tests/backend/ and reaching the mock's exported log functions.
 * Static inline functions for loader_test.c and helpers_test.c.
 */
#ifndef NVTXW_TESTS_LOADER_TEST_UTIL_H
#define NVTXW_TESTS_LOADER_TEST_UTIL_H

#include <check.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../backend/mock_backend.h"

/* Absolute path of test backend `name` ("libmockbackend"), built under
 * $top_builddir/tests/backend/.libs/. Returned buffer is static. */
static inline const char* backend_path(const char* name) {
    static char paths[4][PATH_MAX];
    static int next;
    char relative[PATH_MAX];
    const char* top = getenv("top_builddir");
    char* out = paths[next++ % 4];

    snprintf(relative, sizeof relative, "%s/tests/backend/.libs/%s.so", top ? top : ".", name);
    ck_assert_msg(realpath(relative, out) != NULL, "test backend missing: %s", relative);
    return out;
}

/* dlsym that fails the test when the symbol is absent. */
static inline void* must_dlsym(void* module, const char* symbol) {
    void* address = dlsym(module, symbol);
    ck_assert_msg(address != NULL, "symbol %s not found: %s", symbol, dlerror());
    return address;
}

/* The recording log of the mock backend loaded as `module`. */
static inline const mock_log_t* mock_log_of(void* module) {
    mock_backend_log_t get;
    void* address = must_dlsym(module, "mock_backend_log");

    memcpy(&get, &address, sizeof get);
    return get();
}

/* Makes the mock loaded as `module` return `result` from `member`. */
static inline void mock_set_result(void* module, const char* member, nvtxwResultCode_t result) {
    mock_backend_set_result_t set;
    void* address = must_dlsym(module, "mock_backend_set_result");

    memcpy(&set, &address, sizeof set);
    ck_assert_int_eq(set(member, result), 0);
}

/* Calls of `member` wait in the mock until mock_release. */
static inline void mock_hold(void* module, const char* member) {
    mock_backend_hold_t hold;
    void* address = must_dlsym(module, "mock_backend_hold");

    memcpy(&hold, &address, sizeof hold);
    ck_assert_int_eq(hold(member), 0);
}

/* Returns once a call waits at the mock's gate. */
static inline void mock_wait_held(void* module) {
    mock_backend_wait_held_t wait_held;
    void* address = must_dlsym(module, "mock_backend_wait_held");

    memcpy(&wait_held, &address, sizeof wait_held);
    wait_held();
}

static inline void mock_release(void* module) {
    mock_backend_release_t release;
    void* address = must_dlsym(module, "mock_backend_release");

    memcpy(&release, &address, sizeof release);
    release();
}

#endif /* NVTXW_TESTS_LOADER_TEST_UTIL_H */
