/*
 * tests/unit/report_encoder.h - a test-only encoder of report records,
 * written directly from docs/report-records.md and the container API, so it
 * doubles as a second, independent implementation of the encoding. Only
 * what the reader tests need; every function aborts the test on failure.
 */
#ifndef NVTXW_TESTS_REPORT_ENCODER_H
#define NVTXW_TESTS_REPORT_ENCODER_H

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format/container.h"

#define ENC_KIND_REGISTRATIONS 1u
#define ENC_KIND_EVENTS 2u

typedef struct enc_buf {
    uint8_t* data;
    size_t size, capacity;
    uint32_t records;
} enc_buf;

static inline void enc_put(enc_buf* b, const void* p, size_t n) {
    if (b->size + n > b->capacity) {
        b->capacity = (b->size + n) * 2 + 64;
        b->data = realloc(b->data, b->capacity);
        ck_assert_ptr_nonnull(b->data);
    }
    if (n)
        memcpy(b->data + b->size, p, n);
    b->size += n;
}

static inline void enc_u8(enc_buf* b, uint8_t v) { enc_put(b, &v, 1); }

static inline void enc_uvar(enc_buf* b, uint64_t v) {
    do {
        uint8_t byte = (uint8_t)(v & 0x7F);
        v >>= 7;
        enc_u8(b, (uint8_t)(byte | (v ? 0x80 : 0)));
    } while (v);
}

static inline void enc_svar(enc_buf* b, int64_t v) {
    enc_uvar(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static inline void enc_f64(enc_buf* b, double v) {
    uint64_t bits;
    uint8_t le[8];
    memcpy(&bits, &v, 8);
    for (int k = 0; k < 8; k++)
        le[k] = (uint8_t)(bits >> (8 * k));
    enc_put(b, le, 8);
}

static inline void enc_bytes(enc_buf* b, const void* p, size_t n) {
    enc_uvar(b, n);
    enc_put(b, p, n);
}

static inline void enc_str(enc_buf* b, const char* s) { enc_bytes(b, s, s ? strlen(s) : 0); }

/* Starts a record of `kind`. */
static inline void enc_record(enc_buf* b, uint8_t kind) {
    enc_u8(b, kind);
    b->records++;
}

/* Session record with this platform's ABI, or `abi` (5 bytes) when given. */
static inline void enc_session(enc_buf* b, const char* name, const char* config,
                               const uint8_t* abi) {
    const uint16_t one = 1;
    uint8_t native[5] = {sizeof(void*), sizeof(long), sizeof(wchar_t), sizeof(long double),
                         *(const uint8_t*)&one};
    enc_record(b, 0x01);
    enc_str(b, name);
    enc_str(b, config);
    enc_put(b, abi ? abi : native, 5);
}

/* semantics with no extensions */
static inline void enc_no_semantics(enc_buf* b) { enc_uvar(b, 0); }

static inline void enc_entry(enc_buf* b, uint64_t flags, uint64_t type, const char* name,
                             uint64_t detail, uint64_t offset) {
    enc_uvar(b, flags);
    enc_uvar(b, type);
    enc_str(b, name);
    enc_str(b, "");
    enc_uvar(b, detail);
    enc_uvar(b, offset);
    enc_no_semantics(b);
}

/* Schema record header; the caller appends numEntries entries. */
static inline void enc_schema(enc_buf* b, uint64_t domain, const char* name, uint64_t type,
                              uint64_t static_size, uint64_t id, uint64_t entries) {
    enc_record(b, 0x07);
    enc_uvar(b, domain);
    enc_uvar(b, NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NAME | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE |
                    NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES |
                    NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES |
                    (static_size ? NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_STATIC_SIZE : 0) |
                    NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_SCHEMA_ID);
    enc_str(b, name);
    enc_uvar(b, type);
    enc_uvar(b, 0);
    enc_uvar(b, static_size);
    enc_uvar(b, 0);
    enc_uvar(b, id);
    enc_uvar(b, entries);
}

static inline void enc_stream_open(enc_buf* b, uint64_t domain, const char* name, uint64_t scope,
                                   uint64_t time_domain) {
    enc_record(b, 0x0B);
    enc_uvar(b, domain);
    enc_str(b, name);
    enc_uvar(b, scope);
    enc_uvar(b, time_domain);
    enc_svar(b, 1);
    enc_svar(b, 2);
    enc_svar(b, -1);
    enc_svar(b, -100);
}

/* Event record header: dt, flags, [scope], payload count. */
static inline void enc_event(enc_buf* b, int64_t dt, int has_ts, int has_scope, uint64_t scope,
                             uint64_t count) {
    enc_record(b, 0x20);
    enc_svar(b, dt);
    enc_u8(b, (uint8_t)((has_ts ? 1 : 0) | (has_scope ? 2 : 0)));
    if (has_scope)
        enc_uvar(b, scope);
    enc_uvar(b, count);
}

static inline void enc_payload(enc_buf* b, uint64_t schema, uint8_t encoding, const void* p,
                               size_t n) {
    enc_uvar(b, schema);
    enc_u8(b, encoding);
    enc_bytes(b, p, n);
}

static inline void enc_free(enc_buf* b) {
    free(b->data);
    memset(b, 0, sizeof *b);
}

/* Lanes of a format-2 event chunk (docs/report-records.md, "Lanes"). */
#define ENC_LANES 9
#define ENC_LANE_TIME 1
#define ENC_LANE_FIELDS 2
#define ENC_LANE_VALUES 8

/* Writes lanes[0..ENC_LANES) as one format-2 event chunk (the lane table,
 * then the lanes) and empties them; lanes[0]'s record count counts. */
static inline void enc_lane_chunk(container_encoder_t* e, uint64_t stream, int64_t first,
                                  int64_t last, enc_buf* lanes) {
    container_chunk_meta meta = {ENC_KIND_EVENTS, lanes[0].records, stream, first, last};
    enc_buf all;
    memset(&all, 0, sizeof all);
    enc_uvar(&all, ENC_LANES);
    for (int i = 0; i < ENC_LANES; i++)
        enc_uvar(&all, lanes[i].size);
    for (int i = 0; i < ENC_LANES; i++) {
        if (lanes[i].size != 0)
            enc_put(&all, lanes[i].data, lanes[i].size);
        lanes[i].size = 0;
        lanes[i].records = 0;
    }
    ck_assert_int_eq(container_write_chunk(e, &meta, all.data, all.size), NVTXW_RESULT_SUCCESS);
    free(all.data);
}

/* Writes `b` as one chunk and empties it. Event chunks are format 2's:
 * `b` is their main lane, the other lanes are empty. */
static inline void enc_chunk(container_encoder_t* e, uint32_t kind, uint64_t stream, int64_t first,
                             int64_t last, enc_buf* b) {
    container_chunk_meta meta = {kind, b->records, stream, first, last};
    if (kind == ENC_KIND_EVENTS) {
        enc_buf lanes[ENC_LANES];
        memset(lanes, 0, sizeof lanes);
        lanes[0] = *b;
        enc_lane_chunk(e, stream, first, last, lanes);
        *b = lanes[0];
        return;
    }
    ck_assert_int_eq(container_write_chunk(e, &meta, b->data, b->size), NVTXW_RESULT_SUCCESS);
    b->size = 0;
    b->records = 0;
}

#endif /* NVTXW_TESTS_REPORT_ENCODER_H */
