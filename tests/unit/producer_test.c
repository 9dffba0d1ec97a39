/*
 * producer_test.c - libnvtxw used as a foreign producer would use it: this
 * program is NOT linked against libnvtxw. It is built from the public
 * headers and the reference loader alone, finds the backend through
 * NVTXW3_LIBRARY (the built libnvtxw3.so) or an explicit path, and writes
 * through the table with the NVIDIA-compatible helpers (spec 1, 4, 5).
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nvtxw/helpers.h"
#include "nvtxw/loader.h"
#include "test_util.h"

static char backend_path[4096];
static char temp_dir[] = "/tmp/nvtxw-producer-XXXXXX";

static void read_file(const char* path, char* out, size_t capacity) {
    FILE* file = fopen(path, "rb");
    size_t n;
    ck_assert_msg(file != NULL, "cannot open %s", path);
    n = fread(out, 1, capacity - 1, file);
    out[n] = '\0';
    fclose(file);
}

/* Opens a Sink=text session on the loaded table, writes one mark and one
 * push/pop range, ends the session and returns the text output. */
static void write_through(const nvtxwInterface_t* iface, const char* output, char* text,
                          size_t capacity) {
    nvtxwSessionAttributes_t attr;
    nvtxwSessionHandle_t session;
    nvtxwEventWriter_t writer;
    nvtxwEventAttributesUtf8_t event = {0, 0, 0, NULL};
    char config[4400];
    snprintf(config, sizeof config, "Sink=text|Output=%s|Overwrite=yes", output);
    ck_assert_int_eq(nvtxwSessionAttributesInit(&attr), NVTXW_RESULT_SUCCESS);
    attr.name = "producer";
    attr.configString = config;
    ck_assert_int_eq(iface->SessionBegin(&attr, &session), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(nvtxwEventWriterOpen(iface, session, "main", NULL, NULL, 0, &writer),
                     NVTXW_RESULT_INVALID_ARGUMENT); /* NULL domain: as NVIDIA's helper */
    {
        nvtxDomainHandle_t domain;
        ck_assert_int_eq(nvtxwDomainRegister(iface, session, "app", &domain), 0);
        ck_assert_int_eq(nvtxwEventWriterOpen(iface, session, "main", domain, NULL, 0, &writer),
                         NVTXW_RESULT_SUCCESS);
    }
    event.message = "hello";
    ck_assert_int_eq(nvtxwMarkWriteUtf8(&writer, 42, event), NVTXW_RESULT_SUCCESS);
    event.message = "solve";
    ck_assert_int_eq(nvtxwRangePushPopWriteUtf8(&writer, 100, 250, event), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(iface->SessionEnd(session), NVTXW_RESULT_SUCCESS);
    read_file(output, text, capacity);
}

START_TEST(load_through_environment) {
    const nvtxwInterface_t* iface = NULL;
    nvtxwModuleHandle_t module = NULL;
    char output[4200], text[8192];
    ck_assert_int_eq(setenv("NVTXW3_LIBRARY", backend_path, 1), 0);
    ck_assert_int_eq(nvtxwLoadInterface("/nonexistent/ignored.so", &iface, &module),
                     NVTXW_RESULT_SUCCESS);
    ck_assert_ptr_nonnull(iface);
    snprintf(output, sizeof output, "%s/env.txt", temp_dir);
    write_through(iface, output, text, sizeof text);
    ck_assert_ptr_nonnull(strstr(text, "event stream=\"main\" ts=42\n"));
    ck_assert_ptr_nonnull(strstr(text, "message=\"hello\""));
    ck_assert_ptr_nonnull(strstr(text, "timestampBegin=100, timestampEnd=250"));
    ck_assert_ptr_nonnull(strstr(text, "message=\"solve\""));
    nvtxwUnload(module);
    unsetenv("NVTXW3_LIBRARY");
}
END_TEST

START_TEST(load_explicit_path_and_versions) {
    nvtxwGetInterface_t get_interface = NULL;
    nvtxwModuleHandle_t module = NULL;
    const void* table = NULL;
    unsetenv("NVTXW3_LIBRARY");
    ck_assert_int_eq(nvtxwLoad(backend_path, &get_interface, &module), NVTXW_RESULT_SUCCESS);
    ck_assert_int_eq(get_interface(1, &table), NVTXW_RESULT_INTERFACE_VERSION_NOT_SUPPORTED);
    ck_assert_ptr_null(table);
    ck_assert_int_eq(get_interface(0x7fffffff, &table),
                     NVTXW_RESULT_INTERFACE_VERSION_NOT_SUPPORTED);
    ck_assert_ptr_null(table);
    ck_assert_int_eq(get_interface(2, &table), NVTXW_RESULT_SUCCESS);
    ck_assert_ptr_nonnull(table);
    /* Load and unload twice: nvtxwFinalize runs on every unload. */
    nvtxwUnload(module);
    ck_assert_int_eq(nvtxwLoad(backend_path, &get_interface, &module), NVTXW_RESULT_SUCCESS);
    nvtxwUnload(module);
}
END_TEST

int main(void) {
    const char* builddir = getenv("top_builddir");
    Suite* suite = suite_create("producer");
    TCase* tc = tcase_create("dlopen");
    snprintf(backend_path, sizeof backend_path, "%s/libnvtxw/.libs/libnvtxw3.so",
             builddir ? builddir : ".");
    if (access(backend_path, R_OK) != 0 || mkdtemp(temp_dir) == NULL) {
        fprintf(stderr, "producer_test: cannot use %s or create a temp dir\n", backend_path);
        return 1;
    }
    tcase_add_test(tc, load_through_environment);
    tcase_add_test(tc, load_explicit_path_and_versions);
    suite_add_tcase(suite, tc);
    return tu_run_suite(suite);
}
