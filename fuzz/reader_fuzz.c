/*
 * reader_fuzz.c - libFuzzer target for the report reader: arbitrary bytes
 * as a .nvtxw file. The reader must never crash, hang or read out of bounds:
 * it opens the file (or refuses it with a message), returns whatever records
 * decode, visits every event's payloads, and reports damage.
 *
 * Seed it with real reports, e.g. the demo's build/default/demo/hello.nvtxw
 * and small reports written by tests (see fuzz/README.md).
 *
 * Under libFuzzer (NVTXW_LIBFUZZER) a custom mutator keeps the checksums
 * right: three times in four it picks a chunk, decompresses its payload,
 * lets libFuzzer mutate the records, recompresses them and rewrites the
 * chunk's sizes and checksums (docs/report-format.md), so that mutations
 * reach the record decoders instead of stopping at a checksum. Chunks after
 * it move, so the file's index no longer matches and the reader's scan
 * finds them. The fourth time it mutates the file's bytes as they are.
 */
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_temp.h"
#include "nvtxw/reader.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

#ifdef NVTXW_LIBFUZZER
#include <xxhash.h>
#include <zstd.h>

size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed);

#define MAX_CHUNKS 256
#define MAX_RAW (1u << 20)

static uint32_t get32(const uint8_t* p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static void put32(uint8_t* p, uint32_t v) { memcpy(p, &v, 4); }

static void put64(uint8_t* p, uint64_t v) { memcpy(p, &v, 8); }

static size_t align8(size_t n) { return (n + 7) & ~(size_t)7; }

/* Offsets of the chunks that follow one another from the file header on,
 * as far as their headers are whole (little-endian hosts, as the files). */
static size_t find_chunks(const uint8_t* data, size_t size, size_t* offsets) {
    static const uint8_t magic[8] = {0x89, 'N', 'V', 'T', 'X', 'W', '\r', '\n'};
    size_t at, count = 0;
    if (size < 64 || memcmp(data, magic, 8) != 0)
        return 0;
    at = get32(data + 12);
    while (count < MAX_CHUNKS && at <= size && size - at >= 64 && get32(data + at) == 0x4B43564Eu) {
        size_t header = (size_t)data[at + 4] | (size_t)data[at + 5] << 8;
        size_t stored = get32(data + at + 40);
        if (header < 64 || header > 4096 || header > size - at || stored > size - at - header)
            break;
        offsets[count++] = at;
        at += align8(header + stored);
    }
    return count;
}

/* The mutator's compression context, made once: a new one per mutation
 * (and its tables, cleared on creation) cost more than the mutation. Level
 * 1 with checksums, as the report sink writes by default. Reachable for
 * the process's life. */
static ZSTD_CCtx* mutator_cctx(void) {
    static ZSTD_CCtx* cctx;
    if (cctx == NULL && (cctx = ZSTD_createCCtx()) != NULL &&
        (ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1)) ||
         ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 1)))) {
        ZSTD_freeCCtx(cctx);
        cctx = NULL;
    }
    return cctx;
}

/* Writes `payload` as the payload of the chunk at `at` (whose old span it
 * replaces, moving the rest of the file) with its sizes and checksums; the
 * new file size, or 0 when it does not fit in max_size. */
static size_t put_payload(uint8_t* data, size_t size, size_t max_size, size_t at,
                          const uint8_t* payload, size_t stored, size_t raw) {
    size_t header = (size_t)data[at + 4] | (size_t)data[at + 5] << 8;
    size_t old_span = align8(header + get32(data + at + 40));
    size_t new_span = align8(header + stored);
    if (size - old_span + new_span > max_size)
        return 0;
    memmove(data + at + new_span, data + at + old_span, size - at - old_span);
    memcpy(data + at + header, payload, stored);
    memset(data + at + header + stored, 0, new_span - header - stored);
    put32(data + at + 40, (uint32_t)stored);
    put32(data + at + 44, (uint32_t)raw);
    put64(data + at + 48, XXH3_64bits(payload, stored));
    put64(data + at + header - 8, XXH3_64bits(data + at, header - 8));
    return size - old_span + new_span;
}

/* Mutates the records of the chunk at `at`; the new file size, or 0. */
static size_t mutate_chunk(uint8_t* data, size_t size, size_t max_size, size_t at) {
    size_t header = (size_t)data[at + 4] | (size_t)data[at + 5] << 8;
    size_t stored = get32(data + at + 40), raw_size = get32(data + at + 44), raw, bound, out = 0;
    uint8_t *records, *packed = NULL;
    ZSTD_CCtx* cctx = mutator_cctx();
    if (cctx == NULL || raw_size > MAX_RAW || (records = malloc(raw_size + 1024)) == NULL)
        return 0;
    raw = ZSTD_decompress(records, raw_size + 1024, data + at + header, stored);
    if (!ZSTD_isError(raw)) {
        raw = LLVMFuzzerMutate(records, raw, raw_size + 1024);
        bound = ZSTD_compressBound(raw);
        packed = malloc(bound);
        if (packed != NULL &&
            !ZSTD_isError(stored = ZSTD_compress2(cctx, packed, bound, records, raw)))
            out = put_payload(data, size, max_size, at, packed, stored, raw);
    }
    free(packed);
    free(records);
    return out;
}

size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
    size_t offsets[MAX_CHUNKS];
    size_t count = find_chunks(data, size, offsets), out = 0;
    if (count > 0 && seed % 4 != 0)
        out = mutate_chunk(data, size, max_size, offsets[(seed / 4) % count]);
    return out != 0 ? out : LLVMFuzzerMutate(data, size, max_size);
}
#endif /* NVTXW_LIBFUZZER */

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
static int write_input(const uint8_t* data, size_t size, char* path) {
    FILE* file;
    int fd;
    fuzz_temp_name(path, "reader");
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
    char path[FUZZ_TEMP_NAME_MAX];
    if (write_input(data, size, path) != 0) {
        unlink(path);
        return 0;
    }
    read_all(path, NVTXW_READER_ORDER_STREAM);
    read_all(path, NVTXW_READER_ORDER_TIME);
    unlink(path);
    return 0;
}
