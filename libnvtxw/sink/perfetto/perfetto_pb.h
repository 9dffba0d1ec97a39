/*
 * sink/perfetto/perfetto_pb.h - the protobuf wire format, as much of it as
 * the Perfetto sink writes, appended to a strbuf (header-only: every field
 * of every event goes through it).
 *
 *   field    := tag value
 *   tag      := varint(number << 3 | wire type)
 *   value    := varint                       (wire type 0: integers, enums,
 *                                             bools; int64 as two's complement)
 *             | 8 bytes little-endian        (wire type 1: fixed64, double)
 *             | varint(length) bytes         (wire type 2: strings, bytes,
 *                                             nested messages)
 *
 * A nested message is opened with its tag and one byte reserved for its
 * length (pb_open) and closed when its contents are written (pb_close):
 * lengths under 128 fit that byte, longer contents are moved up by the
 * extra bytes their length takes. Strings are written as well-formed UTF-8:
 * bytes that start no well-formed sequence become U+FFFD (common/utf8.h),
 * the rule of every sink. Every function returns 0, or -1 when out of
 * memory (the buffer may then hold part of a field: callers cut it back to
 * a mark they took).
 */
#ifndef NVTXW_SINK_PERFETTO_PB_H
#define NVTXW_SINK_PERFETTO_PB_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/strbuf.h"
#include "common/varint.h"

enum { PB_VARINT = 0, PB_FIXED64 = 1, PB_LEN = 2 };

/* Room for a tag and a 64-bit value: the raw writers below need it. */
#define PB_FIELD_MAX (2 * VARINT_MAX_BYTES)

static inline int pb_room(strbuf* b, size_t bytes) {
    return bytes < b->capacity - b->length ? 0 : strbuf_reserve(b, bytes);
}

static inline void pb_put_varint(strbuf* b, uint64_t value) {
    b->length += varint_put((uint8_t*)b->data + b->length, value);
}

static inline void pb_put_tag(strbuf* b, uint32_t number, unsigned wire_type) {
    pb_put_varint(b, (uint64_t)number << 3 | wire_type);
}

/* The raw writers of an integer field and of the start of a nested
 * message (see pb_open), for callers that made room for several fields at
 * once: PB_FIELD_MAX bytes each. */
static inline void pb_put_field(strbuf* b, uint32_t number, uint64_t value) {
    pb_put_tag(b, number, PB_VARINT);
    pb_put_varint(b, value);
}

static inline size_t pb_put_open(strbuf* b, uint32_t number) {
    pb_put_tag(b, number, PB_LEN);
    b->data[b->length++] = 0; /* the length, set by pb_close */
    return b->length;
}

/* An integer field: uint32/64, int32/64 (negative: ten bytes), enum, bool. */
static inline int pb_varint(strbuf* b, uint32_t number, uint64_t value) {
    if (pb_room(b, PB_FIELD_MAX) != 0)
        return -1;
    pb_put_field(b, number, value);
    return 0;
}

static inline int pb_fixed64(strbuf* b, uint32_t number, uint64_t value) {
    unsigned i;
    if (pb_room(b, PB_FIELD_MAX) != 0)
        return -1;
    pb_put_tag(b, number, PB_FIXED64);
    for (i = 0; i < 8; i++)
        b->data[b->length++] = (char)(value >> (8 * i));
    return 0;
}

static inline int pb_double(strbuf* b, uint32_t number, double value) {
    uint64_t bits;
    memcpy(&bits, &value, sizeof bits);
    return pb_fixed64(b, number, bits);
}

/* Bytes as they are (a `bytes` field). */
static inline int pb_bytes(strbuf* b, uint32_t number, const void* data, size_t size) {
    if (pb_room(b, PB_FIELD_MAX + size) != 0)
        return -1;
    pb_put_tag(b, number, PB_LEN);
    pb_put_varint(b, size);
    if (size > 0)
        memcpy(b->data + b->length, data, size);
    b->length += size;
    return 0;
}

/* Opens a nested message (or a length-delimited value written piecewise):
 * returns the mark pb_close needs, or SIZE_MAX when out of memory. */
static inline size_t pb_open(strbuf* b, uint32_t number) {
    if (pb_room(b, PB_FIELD_MAX) != 0)
        return SIZE_MAX;
    return pb_put_open(b, number);
}

/* pb_close of contents of 128 bytes or more (moved up). */
int pb_close_long(strbuf* b, size_t mark);

/* Closes what pb_open(mark) opened: writes its length. */
static inline int pb_close(strbuf* b, size_t mark) {
    size_t length = b->length - mark;
    if (length >= 0x80)
        return pb_close_long(b, mark);
    b->data[mark - 1] = (char)length;
    return 0;
}

/* A `string` field: `text` as well-formed UTF-8 (see above). */
int pb_string(strbuf* b, uint32_t number, const char* text, size_t length);

static inline int pb_cstring(strbuf* b, uint32_t number, const char* text) {
    return pb_string(b, number, text, strlen(text));
}

#endif /* NVTXW_SINK_PERFETTO_PB_H */
