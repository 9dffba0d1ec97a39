/*
 * fuzz/fuzz_json.h - the oracle of the targets whose outputs are JSON: the
 * file must be one complete JSON text (RFC 8259) as yajl reads it, strings
 * in valid UTF-8 (yajl checks them by default), no comments. A viewer
 * refuses anything else, so a sink that wrote it lost the user's trace.
 */
#ifndef NVTXW_FUZZ_JSON_H
#define NVTXW_FUZZ_JSON_H

#include <stdio.h>
#include <stdlib.h>
#include <yajl/yajl_parse.h>

/* Returns when `path` holds valid JSON; else aborts after printing yajl's
 * words and how far it read, prefixed with `target`. */
static inline void fuzz_json_check(const char* target, const char* path) {
    unsigned char buffer[65536];
    yajl_handle parser = yajl_alloc(NULL, NULL, NULL);
    FILE* file = fopen(path, "rb");
    yajl_status status = yajl_status_ok;
    size_t got, offset = 0;
    if (parser == NULL || file == NULL)
        abort();
    while (status == yajl_status_ok && (got = fread(buffer, 1, sizeof buffer, file)) > 0) {
        status = yajl_parse(parser, buffer, got);
        offset += got;
    }
    if (status == yajl_status_ok && ferror(file))
        abort();
    if (status == yajl_status_ok)
        status = yajl_complete_parse(parser);
    if (status != yajl_status_ok) {
        unsigned char* words = yajl_get_error(parser, 0, NULL, 0);
        fprintf(stderr, "%s: output %s is not valid JSON (read up to byte %zu): %s\n", target, path,
                offset, (const char*)words);
        abort();
    }
    fclose(file);
    yajl_free(parser);
}

#endif /* NVTXW_FUZZ_JSON_H */
