/*
 * tests/unit/loader_test.c - the reference loader (spec 5.2, 5.3;
 * conformance items 52-54) and the config-string parser (5.4; item 55).
 *
 * Backends come from tests/backend/: libmockbackend (records calls, counts
 * nvtxwFinalize), libnosymbol (no nvtxwGetInterface), libmocknofinalize (no
 * nvtxwFinalize). Every test starts with NVTXW3_LIBRARY unset.
 *
 * The default search must find nothing, which the test process cannot
 * promise about itself: the dynamic loader read LD_LIBRARY_PATH at start-up
 * and the working directory is the build tree. So the test re-executes this
 * binary (linked -no-install: no libtool wrapper) with `--default-search-probe`
 * in a child whose environment lacks LD_LIBRARY_PATH and NVTXW3_LIBRARY and
 * whose working directory is a fresh temporary directory; the probe checks
 * that the executable-directory candidate is absent and reports nvtxwLoad's
 * result as its exit status.
 */
#define _GNU_SOURCE /* environ */
#include <check.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "loader_test_util.h"
#include "nvtxw/error.h"
#include "nvtxw/loader.h"
#include "test_util.h"

extern char** environ;

/* Probe exit codes beyond any nvtxwResultCode_t. */
#define PROBE_EXE_DIR_CANDIDATE_PRESENT 90

static void unset_library_env(void) { unsetenv(NVTXW_LIBRARY_ENV_VAR); }

/* ------------------------------------------------------------ nvtxwLoad */

START_TEST(load_null_function_out_is_invalid) {
    nvtxwModuleHandle_t module = (nvtxwModuleHandle_t)&module;

    ck_assert_int_eq(nvtxwLoad("x", NULL, NULL), NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_int_eq(nvtxwLoad(NULL, NULL, &module), NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_int_eq(nvtxwLoad(backend_path("libmockbackend"), NULL, &module),
                     NVTXW_RESULT_INVALID_ARGUMENT);
}
END_TEST

START_TEST(load_nonexistent_file_fails_to_load) {
    nvtxwGetInterface_t func = (nvtxwGetInterface_t)1;
    nvtxwModuleHandle_t module = (nvtxwModuleHandle_t)&module;

    ck_assert_int_eq(nvtxwLoad("/nonexistent/libnvtxw-no-such.so", &func, &module),
                     NVTXW_RESULT_LIBRARY_LOAD_FAILED);
    ck_assert_ptr_null(func);
    ck_assert_ptr_null(module);
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "libnvtxw-no-such.so"));
}
END_TEST

START_TEST(load_library_without_symbol_is_symbol_missing) {
    nvtxwGetInterface_t func = (nvtxwGetInterface_t)1;
    nvtxwModuleHandle_t module = (nvtxwModuleHandle_t)&module;

    ck_assert_int_eq(nvtxwLoad(backend_path("libnosymbol"), &func, &module),
                     NVTXW_RESULT_LIBRARY_SYMBOL_MISSING);
    ck_assert_ptr_null(func);
    ck_assert_ptr_null(module);
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "nvtxwGetInterface"));
}
END_TEST

START_TEST(load_explicit_library_resolves_get_interface) {
    nvtxwGetInterface_t func = NULL;
    nvtxwModuleHandle_t module = NULL;
    const void* iface = NULL;

    ck_assert_int_eq(nvtxwLoad(backend_path("libmockbackend"), &func, &module),
                     NVTXW_RESULT_SUCCESS);
    ck_assert_ptr_nonnull(func);
    ck_assert_ptr_nonnull(module);
    must_dlsym(module, "mock_backend_log");
    /* The loader itself never calls into the backend. */
    ck_assert_int_eq(mock_log_of(module)->getInterfaceCount, 0);
    ck_assert_int_eq(func(0x7fffffff, &iface), NVTXW_RESULT_INTERFACE_VERSION_NOT_SUPPORTED);
    ck_assert_ptr_null(iface);
    ck_assert_int_eq(func(NVTXW_INTERFACE_VERSION, &iface), NVTXW_RESULT_SUCCESS);
    ck_assert_ptr_nonnull(iface);
    nvtxwUnload(module);
}
END_TEST

START_TEST(load_without_module_out_succeeds) {
    nvtxwGetInterface_t func = NULL;

    /* The module then stays loaded until exit (this forked test's exit). */
    ck_assert_int_eq(nvtxwLoad(backend_path("libmockbackend"), &func, NULL), NVTXW_RESULT_SUCCESS);
    ck_assert_ptr_nonnull(func);
}
END_TEST

START_TEST(env_library_beats_explicit_argument) {
    nvtxwGetInterface_t func = NULL;
    nvtxwModuleHandle_t module = NULL;

    setenv(NVTXW_LIBRARY_ENV_VAR, backend_path("libmockbackend"), 1);
    ck_assert_int_eq(nvtxwLoad("/nonexistent/bogus.so", &func, &module), NVTXW_RESULT_SUCCESS);
    ck_assert_ptr_nonnull(dlsym(module, "mock_backend_log"));
    nvtxwUnload(module);
    /* ... and also beats an explicit, loadable library. */
    ck_assert_int_eq(nvtxwLoad(backend_path("libnosymbol"), &func, &module), NVTXW_RESULT_SUCCESS);
    ck_assert_ptr_nonnull(dlsym(module, "mock_backend_log"));
    nvtxwUnload(module);
}
END_TEST

START_TEST(failing_env_library_does_not_fall_back) {
    nvtxwGetInterface_t func = NULL;
    nvtxwModuleHandle_t module = NULL;

    setenv(NVTXW_LIBRARY_ENV_VAR, "/nonexistent/env-backend.so", 1);
    ck_assert_int_eq(nvtxwLoad(backend_path("libmockbackend"), &func, &module),
                     NVTXW_RESULT_LIBRARY_LOAD_FAILED);
    ck_assert_ptr_null(func);
    ck_assert_ptr_null(module);
    /* No default search either: 4 from the env candidate, not 3. */
    ck_assert_int_eq(nvtxwLoad(NULL, &func, &module), NVTXW_RESULT_LIBRARY_LOAD_FAILED);
    setenv(NVTXW_LIBRARY_ENV_VAR, backend_path("libnosymbol"), 1);
    ck_assert_int_eq(nvtxwLoad(backend_path("libmockbackend"), &func, &module),
                     NVTXW_RESULT_LIBRARY_SYMBOL_MISSING);
}
END_TEST

START_TEST(failing_explicit_library_does_not_fall_back) {
    nvtxwGetInterface_t func = NULL;

    ck_assert_int_eq(nvtxwLoad("/nonexistent/libnvtxw3.so", &func, NULL),
                     NVTXW_RESULT_LIBRARY_LOAD_FAILED);
}
END_TEST

START_TEST(empty_env_library_is_ignored) {
    nvtxwGetInterface_t func = NULL;
    nvtxwModuleHandle_t module = NULL;

    setenv(NVTXW_LIBRARY_ENV_VAR, "", 1);
    ck_assert_int_eq(nvtxwLoad(backend_path("libmockbackend"), &func, &module),
                     NVTXW_RESULT_SUCCESS);
    nvtxwUnload(module);
    ck_assert_int_eq(nvtxwLoad("/nonexistent/bogus.so", &func, &module),
                     NVTXW_RESULT_LIBRARY_LOAD_FAILED);
}
END_TEST

/* ------------------------------------------------------- default search */

/* Runs this binary as the default-search probe in `dir` with a clean
 * environment (no LD_LIBRARY_PATH, no NVTXW3_LIBRARY; `extra` added when
 * not NULL). Returns the probe's exit status. */
static int run_probe(const char* dir, const char* extra) {
    char exe[PATH_MAX];
    char* envp[256];
    char* argv[] = {exe, (char*)"--default-search-probe", NULL};
    size_t count = 0;
    ssize_t length = readlink("/proc/self/exe", exe, sizeof exe - 1);
    pid_t pid;
    int status = 0;

    ck_assert_int_gt(length, 0);
    exe[length] = '\0';
    for (char** e = environ; *e != NULL && count < 250; ++e) {
        if (strncmp(*e, "LD_LIBRARY_PATH=", 16) != 0 && strncmp(*e, "NVTXW3_LIBRARY=", 15) != 0)
            envp[count++] = *e;
    }
    if (extra != NULL)
        envp[count++] = (char*)extra;
    envp[count] = NULL;
    pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        if (chdir(dir) == 0)
            execve(exe, argv, envp);
        _exit(127);
    }
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFEXITED(status));
    return WEXITSTATUS(status);
}

/* The child side: reports nvtxwLoad(NULL, ...) as exit status. */
static int default_search_probe(void) {
    char exe[PATH_MAX];
    char candidate[PATH_MAX + 32];
    nvtxwGetInterface_t func = NULL;
    ssize_t length = readlink("/proc/self/exe", exe, sizeof exe - 1);
    char* slash;

    if (length <= 0)
        return 127;
    exe[length] = '\0';
    slash = strrchr(exe, '/');
    *slash = '\0';
    snprintf(candidate, sizeof candidate, "%s/%s", exe, NVTXW_LIB_FILENAME_DEFAULT);
    if (access(candidate, F_OK) == 0)
        return PROBE_EXE_DIR_CANDIDATE_PRESENT;
    return nvtxwLoad(NULL, &func, NULL);
}

START_TEST(default_search_without_candidate_is_not_found) {
    char dir[] = "/tmp/nvtxw-loader-XXXXXX";
    int status;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    status = run_probe(dir, NULL);
    rmdir(dir);
    ck_assert_msg(status != PROBE_EXE_DIR_CANDIDATE_PRESENT,
                  "precondition: %s exists next to the test executable",
                  NVTXW_LIB_FILENAME_DEFAULT);
    ck_assert_msg(status == NVTXW_RESULT_LIBRARY_NOT_FOUND,
                  "default search returned %d (a " NVTXW_LIB_FILENAME_DEFAULT
                  " on the system library path also makes this fail)",
                  status);
}
END_TEST

START_TEST(default_search_finds_working_directory_candidate) {
    char dir[] = "/tmp/nvtxw-loader-XXXXXX";
    char link[sizeof dir + 32];
    int status;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(link, sizeof link, "%s/%s", dir, NVTXW_LIB_FILENAME_DEFAULT);
    ck_assert_int_eq(symlink(backend_path("libmockbackend"), link), 0);
    status = run_probe(dir, NULL);
    unlink(link);
    rmdir(dir);
    ck_assert_int_eq(status, NVTXW_RESULT_SUCCESS);
}
END_TEST

START_TEST(default_search_honours_env_library) {
    char dir[] = "/tmp/nvtxw-loader-XXXXXX";
    char env[PATH_MAX + 32];
    int status;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(env, sizeof env, "%s=%s", NVTXW_LIBRARY_ENV_VAR, backend_path("libmockbackend"));
    status = run_probe(dir, env);
    rmdir(dir);
    ck_assert_int_eq(status, NVTXW_RESULT_SUCCESS);
}
END_TEST

/* -------------------------------------------------------- nvtxwGetError */

static void expect_message(nvtxwResultCode_t code, const char* expected) {
    char buffer[256];

    memset(buffer, 'x', sizeof buffer);
    ck_assert_uint_eq(nvtxwGetError(code, buffer, sizeof buffer), strlen(expected));
    ck_assert_str_eq(buffer, expected);
}

START_TEST(get_error_messages) {
    char buffer[256];

    ck_assert_uint_eq(nvtxwGetError(0, buffer, 256), 7);
    expect_message(NVTXW_RESULT_SUCCESS, "success");
    expect_message(NVTXW_RESULT_FAILED, "failed");
    expect_message(NVTXW_RESULT_INVALID_ARGUMENT, "invalid argument");
    expect_message(NVTXW_RESULT_LIBRARY_NOT_FOUND, "library not found");
    expect_message(NVTXW_RESULT_INTERFACE_VERSION_NOT_SUPPORTED, "interface ID not supported");
    expect_message(NVTXW_RESULT_NOT_SUPPORTED, "operation/feature not supported");
    expect_message(12345, "unknown result code");
    expect_message(-1, "unknown result code");
    expect_message(8, "unknown result code");
    /* No failed load on this thread yet: the fixed part alone. */
    expect_message(NVTXW_RESULT_LIBRARY_LOAD_FAILED, "library load failed: ");
    expect_message(NVTXW_RESULT_LIBRARY_SYMBOL_MISSING, "library symbol missing: ");
}
END_TEST

START_TEST(get_error_without_room_writes_nothing) {
    char buffer[8] = "keep";

    ck_assert_uint_eq(nvtxwGetError(0, NULL, 256), 0);
    ck_assert_uint_eq(nvtxwGetError(0, buffer, 0), 0);
    ck_assert_str_eq(buffer, "keep");
    ck_assert_uint_eq(nvtxwGetError(0, buffer, 1), 0);
    ck_assert_int_eq(buffer[0], '\0');
}
END_TEST

START_TEST(get_error_truncates) {
    char buffer[8];

    memset(buffer, 'x', sizeof buffer);
    ck_assert_uint_eq(nvtxwGetError(NVTXW_RESULT_INVALID_ARGUMENT, buffer, 5), 4);
    ck_assert_str_eq(buffer, "inva");
    ck_assert_int_eq(buffer[5], 'x');
    ck_assert_uint_eq(nvtxwGetError(NVTXW_RESULT_SUCCESS, buffer, 8), 7);
    ck_assert_str_eq(buffer, "success");
    ck_assert_uint_eq(nvtxwGetError(NVTXW_RESULT_SUCCESS, buffer, 7), 6);
    ck_assert_str_eq(buffer, "succes");
}
END_TEST

START_TEST(get_error_load_failed_includes_dlerror) {
    const char* prefix = "library load failed: ";
    nvtxwGetInterface_t func = NULL;
    char buffer[512];
    char small[30];
    size_t length;

    ck_assert_int_eq(nvtxwLoad("/nonexistent/libnvtxw-detail.so", &func, NULL),
                     NVTXW_RESULT_LIBRARY_LOAD_FAILED);
    /* Other dl calls in between must not change the kept detail. */
    ck_assert_ptr_null(dlsym(RTLD_DEFAULT, "nvtxw_no_such_symbol_anywhere"));
    length = nvtxwGetError(NVTXW_RESULT_LIBRARY_LOAD_FAILED, buffer, sizeof buffer);
    ck_assert_uint_eq(length, strlen(buffer));
    ck_assert_uint_gt(length, strlen(prefix));
    ck_assert_int_eq(strncmp(buffer, prefix, strlen(prefix)), 0);
    ck_assert_msg(strstr(buffer, "libnvtxw-detail.so") != NULL, "got \"%s\"", buffer);
    /* The detail is kept, so a second read shows it again. */
    ck_assert_uint_eq(nvtxwGetError(NVTXW_RESULT_LIBRARY_LOAD_FAILED, buffer, sizeof buffer),
                      length);
    /* Truncated to fit, still terminated. */
    ck_assert_uint_eq(nvtxwGetError(NVTXW_RESULT_LIBRARY_LOAD_FAILED, small, sizeof small),
                      sizeof small - 1);
    ck_assert_int_eq(strncmp(small, buffer, sizeof small - 1), 0);
    ck_assert_int_eq(small[sizeof small - 1], '\0');
}
END_TEST

START_TEST(get_error_symbol_missing_includes_dlerror) {
    const char* prefix = "library symbol missing: ";
    nvtxwGetInterface_t func = NULL;
    char buffer[512];

    ck_assert_int_eq(nvtxwLoad(backend_path("libnosymbol"), &func, NULL),
                     NVTXW_RESULT_LIBRARY_SYMBOL_MISSING);
    nvtxwGetError(NVTXW_RESULT_LIBRARY_SYMBOL_MISSING, buffer, sizeof buffer);
    ck_assert_int_eq(strncmp(buffer, prefix, strlen(prefix)), 0);
    ck_assert_msg(strstr(buffer, "nvtxwGetInterface") != NULL, "got \"%s\"", buffer);
}
END_TEST

START_TEST(get_error_detail_cleared_by_next_load) {
    nvtxwGetInterface_t func = NULL;
    nvtxwModuleHandle_t module = NULL;

    ck_assert_int_eq(nvtxwLoad("/nonexistent/x.so", &func, NULL), NVTXW_RESULT_LIBRARY_LOAD_FAILED);
    ck_assert_int_eq(nvtxwLoad(backend_path("libmockbackend"), &func, &module),
                     NVTXW_RESULT_SUCCESS);
    expect_message(NVTXW_RESULT_LIBRARY_LOAD_FAILED, "library load failed: ");
    nvtxwUnload(module);
}
END_TEST

/* ---------------------------------------------------------- nvtxwUnload */

START_TEST(unload_null_is_noop) { nvtxwUnload(NULL); }
END_TEST

/* A separate dlopen reference keeps the mock resident across nvtxwUnload,
 * so its finalize counter can be read afterwards. */
START_TEST(unload_calls_finalize_once_per_call) {
    void* keeper = dlopen(backend_path("libmockbackend"), RTLD_NOW);
    const mock_log_t* log;
    nvtxwGetInterface_t func = NULL;
    nvtxwModuleHandle_t module = NULL;

    ck_assert_ptr_nonnull(keeper);
    log = mock_log_of(keeper);
    ck_assert_int_eq(log->finalizeCount, 0);
    ck_assert_int_eq(nvtxwLoad(backend_path("libmockbackend"), &func, &module),
                     NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(log->finalizeCount, 0);
    nvtxwUnload(module);
    ck_assert_int_eq(log->finalizeCount, 1);
    nvtxwUnload(NULL);
    ck_assert_int_eq(log->finalizeCount, 1);
    dlclose(keeper);
}
END_TEST

START_TEST(load_same_backend_twice) {
    void* keeper = dlopen(backend_path("libmockbackend"), RTLD_NOW);
    nvtxwGetInterface_t first = NULL;
    nvtxwGetInterface_t second = NULL;
    nvtxwModuleHandle_t module1 = NULL;
    nvtxwModuleHandle_t module2 = NULL;
    const mock_log_t* log;

    ck_assert_ptr_nonnull(keeper);
    log = mock_log_of(keeper);
    ck_assert_int_eq(nvtxwLoad(backend_path("libmockbackend"), &first, &module1),
                     NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(nvtxwLoad(backend_path("libmockbackend"), &second, &module2),
                     NVTXW_RESULT_SUCCESS);
    ck_assert_ptr_eq((void*)first, (void*)second);
    nvtxwUnload(module1);
    ck_assert_int_eq(log->finalizeCount, 1);
    nvtxwUnload(module2);
    ck_assert_int_eq(log->finalizeCount, 2);
    dlclose(keeper);
}
END_TEST

START_TEST(load_unload_reload_without_keeper) {
    nvtxwGetInterface_t func = NULL;
    nvtxwModuleHandle_t module = NULL;
    const void* iface = NULL;

    for (int round = 0; round < 2; ++round) {
        ck_assert_int_eq(nvtxwLoad(backend_path("libmockbackend"), &func, &module),
                         NVTXW_RESULT_SUCCESS);
        ck_assert_int_eq(func(NVTXW_INTERFACE_VERSION, &iface), NVTXW_RESULT_SUCCESS);
        nvtxwUnload(module);
    }
}
END_TEST

START_TEST(unload_backend_without_finalize) {
    nvtxwGetInterface_t func = NULL;
    nvtxwModuleHandle_t module = NULL;

    ck_assert_int_eq(nvtxwLoad(backend_path("libmocknofinalize"), &func, &module),
                     NVTXW_RESULT_SUCCESS);
    ck_assert_ptr_null(dlsym(module, NVTXW_FINALIZE_SYMBOL_NAME));
    nvtxwUnload(module);
}
END_TEST

/* ------------------------------------------------ nvtxwConsumeConfigString */

/* Collects pairs as "[key]=[value]" joined by ';'; stops after `stopAfter`
 * pairs when non-zero. Also checks that the ranges lie in the input. */
typedef struct collector {
    const char* input;
    char text[512];
    int pairs;
    int stopAfter;
} collector_t;

static int collect(void* state, const char* keyBegin, const char* keyEnd, const char* valBegin,
                   const char* valEnd) {
    collector_t* c = state;
    size_t used = strlen(c->text);
    const char* inputEnd = c->input + strlen(c->input);

    ck_assert(keyBegin >= c->input && keyBegin < keyEnd && keyEnd <= inputEnd);
    ck_assert(valBegin > keyEnd && valBegin < valEnd && valEnd <= inputEnd);
    snprintf(c->text + used, sizeof c->text - used, "%s[%.*s]=[%.*s]", used ? ";" : "",
             (int)(keyEnd - keyBegin), keyBegin, (int)(valEnd - valBegin), valBegin);
    c->pairs++;
    return c->stopAfter != 0 && c->pairs >= c->stopAfter;
}

static void expect_pairs(const char* config, const char* expected) {
    collector_t c;

    memset(&c, 0, sizeof c);
    c.input = config;
    nvtxwConsumeConfigString(config, collect, &c);
    ck_assert_msg(strcmp(c.text, expected) == 0, "config \"%s\": got \"%s\", expected \"%s\"",
                  config, c.text, expected);
}

START_TEST(config_trims_key_and_value) {
    expect_pairs(" key = value ", "[key]=[value]");
    expect_pairs("my key = some value", "[my key]=[some value]");
    expect_pairs("k \t= v=w \v", "[k]=[v=w]");
}
END_TEST

START_TEST(config_only_first_equals_splits) {
    expect_pairs("a==b", "[a]=[=b]");
    expect_pairs("a=b=c", "[a]=[b=c]");
}
END_TEST

START_TEST(config_skipped_lines) {
    expect_pairs("=x", "");
    expect_pairs("k=", "");
    expect_pairs("k=   ", "");
    expect_pairs("k=\t\v ", "");
    expect_pairs("noequals", "");
    expect_pairs("#k=v", "");
    expect_pairs("  \t# k=v", "");
    expect_pairs("   ", "");
    expect_pairs("", "");
    expect_pairs(" = x", "");
}
END_TEST

START_TEST(config_duplicates_all_reported) { expect_pairs("a=1|a=2", "[a]=[1];[a]=[2]"); }
END_TEST

START_TEST(config_separators) {
    expect_pairs("\r\n\r\nk=v", "[k]=[v]");
    expect_pairs("a=1\nb=2\rc=3|d=4", "[a]=[1];[b]=[2];[c]=[3];[d]=[4]");
    expect_pairs("||\n\n|a=1||\r\r|", "[a]=[1]");
    expect_pairs("a=1\r\nb=2", "[a]=[1];[b]=[2]");
    expect_pairs("# comment\nInitMode=2|InitModeString=backend",
                 "[InitMode]=[2];[InitModeString]=[backend]");
    /* A comment ends at the next separator of any kind. */
    expect_pairs("#x|a=1", "[a]=[1]");
    /* '#' later in a line is data. */
    expect_pairs("k=v#x", "[k]=[v#x]");
}
END_TEST

START_TEST(config_whitespace_set) {
    expect_pairs("\t\va = b\t\v", "[a]=[b]");
    /* '\f' is not whitespace: it stays in the key and the value. */
    expect_pairs("\fa=b\f", "[\fa]=[b\f]");
    expect_pairs("a\f=\fb", "[a\f]=[\fb]");
}
END_TEST

START_TEST(config_consumer_stops_parsing) {
    collector_t c;
    const char* config = "a=1|b=2|c=3";

    memset(&c, 0, sizeof c);
    c.input = config;
    c.stopAfter = 1;
    nvtxwConsumeConfigString(config, collect, &c);
    ck_assert_str_eq(c.text, "[a]=[1]");
    memset(&c, 0, sizeof c);
    c.input = config;
    c.stopAfter = 2;
    nvtxwConsumeConfigString(config, collect, &c);
    ck_assert_str_eq(c.text, "[a]=[1];[b]=[2]");
}
END_TEST

/* A consumer honouring the first occurrence only, as backends must. */
static int first_a(void* state, const char* keyBegin, const char* keyEnd, const char* valBegin,
                   const char* valEnd) {
    char* value = state;
    if (value[0] == '\0' && keyEnd - keyBegin == 1 && *keyBegin == 'a')
        snprintf(value, 16, "%.*s", (int)(valEnd - valBegin), valBegin);
    return 0;
}

START_TEST(config_first_occurrence_wins) {
    char value[16] = "";

    nvtxwConsumeConfigString("a=1|a=2", first_a, value);
    ck_assert_str_eq(value, "1");
}
END_TEST

START_TEST(config_null_arguments) {
    collector_t c;

    memset(&c, 0, sizeof c);
    nvtxwConsumeConfigString(NULL, collect, &c);
    nvtxwConsumeConfigString("a=1", NULL, &c);
    ck_assert_int_eq(c.pairs, 0);
}
END_TEST

static Suite* loader_suite(void) {
    Suite* s = suite_create("loader");
    TCase* load = tcase_create("load");
    TCase* search = tcase_create("default_search");
    TCase* error = tcase_create("get_error");
    TCase* unload = tcase_create("unload");
    TCase* config = tcase_create("config");

    tcase_add_checked_fixture(load, unset_library_env, NULL);
    tcase_add_test(load, load_null_function_out_is_invalid);
    tcase_add_test(load, load_nonexistent_file_fails_to_load);
    tcase_add_test(load, load_library_without_symbol_is_symbol_missing);
    tcase_add_test(load, load_explicit_library_resolves_get_interface);
    tcase_add_test(load, load_without_module_out_succeeds);
    tcase_add_test(load, env_library_beats_explicit_argument);
    tcase_add_test(load, failing_env_library_does_not_fall_back);
    tcase_add_test(load, failing_explicit_library_does_not_fall_back);
    tcase_add_test(load, empty_env_library_is_ignored);
    suite_add_tcase(s, load);

    tcase_add_checked_fixture(search, unset_library_env, NULL);
    tcase_add_test(search, default_search_without_candidate_is_not_found);
    tcase_add_test(search, default_search_finds_working_directory_candidate);
    tcase_add_test(search, default_search_honours_env_library);
    suite_add_tcase(s, search);

    tcase_add_checked_fixture(error, unset_library_env, NULL);
    tcase_add_test(error, get_error_messages);
    tcase_add_test(error, get_error_without_room_writes_nothing);
    tcase_add_test(error, get_error_truncates);
    tcase_add_test(error, get_error_load_failed_includes_dlerror);
    tcase_add_test(error, get_error_symbol_missing_includes_dlerror);
    tcase_add_test(error, get_error_detail_cleared_by_next_load);
    suite_add_tcase(s, error);

    tcase_add_checked_fixture(unload, unset_library_env, NULL);
    tcase_add_test(unload, unload_null_is_noop);
    tcase_add_test(unload, unload_calls_finalize_once_per_call);
    tcase_add_test(unload, load_same_backend_twice);
    tcase_add_test(unload, load_unload_reload_without_keeper);
    tcase_add_test(unload, unload_backend_without_finalize);
    suite_add_tcase(s, unload);

    tcase_add_test(config, config_trims_key_and_value);
    tcase_add_test(config, config_only_first_equals_splits);
    tcase_add_test(config, config_skipped_lines);
    tcase_add_test(config, config_duplicates_all_reported);
    tcase_add_test(config, config_separators);
    tcase_add_test(config, config_whitespace_set);
    tcase_add_test(config, config_consumer_stops_parsing);
    tcase_add_test(config, config_first_occurrence_wins);
    tcase_add_test(config, config_null_arguments);
    suite_add_tcase(s, config);
    return s;
}

int main(int argc, char** argv) {

    if (argc > 1 && strcmp(argv[1], "--default-search-probe") == 0)
        return default_search_probe();
    return tu_run_suite(loader_suite());
}
