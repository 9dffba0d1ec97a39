/*
 * reader_fuzz.c - libFuzzer target for the report reader: arbitrary bytes
 * as a .nvtxw file. The reader must never crash, hang or read out of bounds:
 * it opens the file (or refuses it with a message), returns whatever records
 * decode, visits every event's payloads, and reports damage.
 *
 * Seed it with real reports, e.g. the demo's build/default/demo/hello.nvtxw
 * and small reports written by tests (see fuzz/README.md).
 */
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nvtxw/reader.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static int touch_value(void* ctx, uint64_t value) {
    *(uint64_t*)ctx ^= value;
    return 0;
}
static int on_signed(void* ctx, int64_t v) { return touch_value(ctx, (uint64_t)v); }
static int on_unsigned(void* ctx, uint64_t v) { return touch_value(ctx, v); }
static int on_string(void* ctx, const char* s, size_t n) {
    return touch_value(ctx, n ? (uint8_t)s[n - 1] : 0);
}

/* Writes the input to a private temporary file; the reader takes a path. */
static int write_input(const uint8_t* data, size_t size, char* path, size_t path_size) {
    FILE* file;
    int fd;
    snprintf(path, path_size, "/tmp/nvtxw-reader-fuzz-%ld-XXXXXX", (long)getpid());
    fd = mkstemp(path);
    if (fd < 0)
        return -1;
    file = fdopen(fd, "wb");
    if (file == NULL) {
        close(fd);
        return -1;
    }
    if (size > 0 && fwrite(data, 1, size, file) != size) {
        fclose(file);
        return -1;
    }
    return fclose(file);
}

static void read_all(const char* path, int order) {
    nvtxw_reader_options_t options;
    nvtxw_reader_t* reader = NULL;
    nvtxw_visitor_t visitor;
    const nvtxw_record_t* record;
    uint64_t sink = 0;
    memset(&options, 0, sizeof options);
    options.struct_size = sizeof options;
    options.order = order;
    memset(&visitor, 0, sizeof visitor);
    visitor.struct_size = sizeof visitor;
    visitor.on_signed = on_signed;
    visitor.on_unsigned = on_unsigned;
    visitor.on_string = on_string;
    if (nvtxw_reader_open(path, &options, &reader) != NVTXW_RESULT_SUCCESS)
        return;
    while (nvtxw_reader_next(reader, &record) == NVTXW_RESULT_SUCCESS && record != NULL) {
        if (record->kind == NVTXW_RECORD_EVENT)
            nvtxw_reader_visit_event(reader, record, &visitor, &sink);
    }
    nvtxw_reader_close(reader);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    char path[128];
    if (write_input(data, size, path, sizeof path) != 0) {
        unlink(path);
        return 0;
    }
    read_all(path, NVTXW_READER_ORDER_STREAM);
    read_all(path, NVTXW_READER_ORDER_TIME);
    unlink(path);
    return 0;
}
