/*
 * fuzz/capture_fuzz.c - libFuzzer target for the capture reader
 * (tools/replay/capture/, docs/capture-format.md): arbitrary bytes as a
 * capture file, replayed into a session whose sink is Sink=capture writing
 * to /dev/null, so that whatever the reader accepts also goes through the
 * capture writer. Any input must end in exit status 0 or 1 with no crash,
 * leak or sanitizer report. Inputs starting with '{' take the JSON Lines
 * path, others the YAML path; fuzz/capture_fuzz.dict holds the keys. A JSON
 * Lines input is read twice, by default (yajl for the lines it may take,
 * tools/replay/capture/capture_jsonl.c) and with NVTXW_CAPTURE_PARSER=libyaml
 * (every line through libyaml): the exit statuses and the capture files
 * written must be the same, else it aborts (a line yajl takes must mean to
 * it what it means to libyaml).
 */
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_temp.h"
#include "nvtxw/nvtxw.h"
#include "replay_input.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
nvtxwResultCode_t nvtxwGetInterface(nvtxwInterfaceVersion_t version, const void** ifaceOut);

/* Replays `path` into Sink=capture writing `output`; the exit status. */
static int replay(const nvtxwInterface_t* iface, const char* path, const char* output) {
    replay_input_ctx ctx;
    char config[FUZZ_TEMP_NAME_MAX + 64];
    snprintf(config, sizeof config, "Sink=capture|Output=%s|Overwrite=yes", output);
    ctx.tool = "capture_fuzz";
    ctx.iface = iface;
    ctx.config = config;
    return capture_replay(&ctx, path);
}

/* The whole file, or NULL when it is missing; *size its length. */
static unsigned char* slurp(const char* path, size_t* size) {
    FILE* file = fopen(path, "rb");
    unsigned char* bytes = NULL;
    long length;
    if (file == NULL)
        return NULL;
    if (fseek(file, 0, SEEK_END) != 0 || (length = ftell(file)) < 0 ||
        fseek(file, 0, SEEK_SET) != 0 || (bytes = malloc((size_t)length + 1)) == NULL ||
        fread(bytes, 1, (size_t)length, file) != (size_t)length)
        abort();
    fclose(file);
    *size = (size_t)length;
    return bytes;
}

/* Both readings of a JSON Lines input; aborts when they differ. */
static void compare_parsers(const nvtxwInterface_t* iface, const char* path) {
    char first[FUZZ_TEMP_NAME_MAX], second[FUZZ_TEMP_NAME_MAX];
    unsigned char *a, *b;
    size_t a_size = 0, b_size = 0;
    int a_status, b_status, fd;
    fuzz_temp_name(first, "capture-out");
    fuzz_temp_name(second, "capture-out");
    if ((fd = mkstemp(first)) < 0 || close(fd) != 0 || (fd = mkstemp(second)) < 0 || close(fd) != 0)
        abort();
    a_status = replay(iface, path, first);
    setenv("NVTXW_CAPTURE_PARSER", "libyaml", 1);
    b_status = replay(iface, path, second);
    unsetenv("NVTXW_CAPTURE_PARSER");
    a = slurp(first, &a_size);
    b = slurp(second, &b_size);
    if (a_status != b_status || (a == NULL) != (b == NULL) || a_size != b_size ||
        (a != NULL && memcmp(a, b, a_size) != 0)) {
        fprintf(stderr,
                "capture_fuzz: yajl and libyaml read the input differently: exit %d and %d, "
                "%zu and %zu bytes written\n",
                a_status, b_status, a_size, b_size);
        abort();
    }
    free(a);
    free(b);
    unlink(first);
    unlink(second);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const nvtxwInterface_t* iface;
    char path[FUZZ_TEMP_NAME_MAX];
    size_t i = 0;
    if (iface == NULL && nvtxwGetInterface(NVTXW_INTERFACE_VERSION, (const void**)&iface) != 0)
        abort();
    fuzz_temp_write(path, "capture", data, size);
    while (i < size && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n'))
        i++;
    if (i < size && data[i] == '{')
        compare_parsers(iface, path);
    else
        replay(iface, path, "/dev/null");
    unlink(path);
    return 0;
}
