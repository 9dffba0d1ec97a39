/*
 * reader/reader_cursor.c - primitive encodings of docs/report-records.md,
 * decoded with every length checked against the bytes left in the chunk:
 *
 *   uvar  := { 1xxxxxxx } 0xxxxxxx      at most 10 bytes; the 10th carries
 *                                        bit 63 only
 *   svar  := uvar of the zigzag form (v << 1) ^ (v >> 63)
 *   u8    := one byte;  f64 := 8 bytes IEEE-754, little-endian
 *   bytes := uvar n, n bytes;  str := bytes holding UTF-8
 *
 * Also the arena that holds decoded records and the damage list.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "common/varint.h"
#include "reader/reader_internal.h"

#define ARENA_BLOCK READER_ARENA_BLOCK
#define ARENA_ALIGN READER_ARENA_ALIGN

void* reader_arena_alloc_slow(reader_arena* arena, size_t size) {
    reader_arena_block* block = arena->head;
    size_t need = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    void* p;
    if (size > SIZE_MAX / 2)
        return NULL;
    if (need == 0)
        need = ARENA_ALIGN;
    if (block == NULL || block->size - block->used < need) {
        size_t bytes = need > ARENA_BLOCK ? need : ARENA_BLOCK;
        block = nvtxw_malloc(sizeof *block + bytes);
        if (block == NULL)
            return NULL;
        block->next = arena->head;
        block->used = 0;
        block->size = bytes;
        arena->head = block;
    }
    p = block->data + block->used;
    block->used += need;
    return p;
}

void reader_arena_rewind_slow(reader_arena* arena) {
    reader_arena_block* keep = arena->head;
    /* Keep one standard block (the common case: the record fit in it);
     * larger or extra blocks go, so memory stays that of one record. */
    while (keep != NULL && (keep->next != NULL || keep->size != ARENA_BLOCK)) {
        arena->head = keep->next;
        nvtxw_free(keep);
        keep = arena->head;
    }
    if (keep != NULL)
        keep->used = 0;
}

void reader_arena_reset(reader_arena* arena) {
    while (arena->head != NULL) {
        reader_arena_block* next = arena->head->next;
        nvtxw_free(arena->head);
        arena->head = next;
    }
}

int reader_get_u8_slow(reader_cursor* c) { return reader_fail(c, "record ends early"); }

int reader_get_uvar_slow(reader_cursor* c, uint64_t* out) {
    uint64_t value = 0;
    unsigned shift;
    if (reader_left(c) >= VARINT_MAX_BYTES) {
        const uint8_t* p = c->p;
        if (varint_get_unbounded(&p, out) == 0) {
            c->p = p;
            return 0;
        } /* else the loop below names the problem */
    }
    for (shift = 0; shift < 70; shift += 7) {
        uint8_t byte;
        if (c->p >= c->end)
            return reader_fail(c, "record ends inside a varint");
        byte = *c->p++;
        if (shift == 63 && (byte & 0x7E) != 0)
            return reader_fail(c, "varint exceeds 64 bits");
        value |= (uint64_t)(byte & 0x7F) << shift;
        if ((byte & 0x80) == 0) {
            *out = value;
            return 0;
        }
    }
    return reader_fail(c, "varint longer than 10 bytes");
}

int reader_get_f64(reader_cursor* c, double* out) {
    uint64_t bits = 0;
    unsigned k;
    if (reader_left(c) < 8)
        return reader_fail(c, "record ends inside a double");
    for (k = 0; k < 8; k++)
        bits |= (uint64_t)c->p[k] << (8 * k);
    c->p += 8;
    memcpy(out, &bits, sizeof *out);
    return 0;
}

int reader_get_bytes(reader_cursor* c, const uint8_t** data, size_t* size) {
    uint64_t n;
    if (reader_get_uvar(c, &n) != 0)
        return -1;
    if (n > reader_left(c))
        return reader_fail(c, "length exceeds the chunk");
    *data = c->p;
    *size = (size_t)n;
    c->p += n;
    return 0;
}

int reader_get_str(reader_cursor* c, reader_arena* arena, const char** out) {
    const uint8_t* data;
    size_t size;
    char* copy;
    if (reader_get_bytes(c, &data, &size) != 0)
        return -1;
    copy = reader_arena_alloc(arena, size + 1);
    if (copy == NULL)
        return reader_fail(c, "out of memory");
    memcpy(copy, data, size);
    copy[size] = '\0';
    *out = copy;
    return 0;
}

int reader_add_damage(nvtxw_reader_t* reader, uint64_t offset, uint64_t length, const char* format,
                      ...) {
    char text[NVTXW_ERROR_MAX];
    reader_damage_item* item;
    va_list args;
    va_start(args, format);
    vsnprintf(text, sizeof text, format, args);
    va_end(args);
    if (reader->damage_count == reader->damage_capacity) {
        size_t capacity = reader->damage_capacity ? reader->damage_capacity * 2 : 8;
        reader_damage_item* grown =
            nvtxw_reallocarray(reader->damage, capacity, sizeof *reader->damage);
        if (grown == NULL)
            return -1;
        reader->damage = grown;
        reader->damage_capacity = capacity;
    }
    item = &reader->damage[reader->damage_count];
    item->reason = nvtxw_strdup(text);
    if (item->reason == NULL)
        return -1;
    item->offset = offset;
    item->length = length;
    reader->damage_count++;
    return 0;
}

nvtxwResultCode_t reader_load_chunk(nvtxw_reader_t* reader, size_t i, uint8_t** buffer,
                                    size_t* capacity, size_t* size) {
    const container_chunk_info* info = container_reader_chunk_info(reader->container, i);
    size_t need = info->raw_size;
    if (need > *capacity || *buffer == NULL) {
        uint8_t* grown = nvtxw_realloc(*buffer, need ? need : 1);
        if (grown == NULL)
            return error_oom("a report chunk");
        *buffer = grown;
        *capacity = need ? need : 1;
    }
    *size = need;
    return container_reader_read_chunk(reader->container, i, *buffer, *capacity);
}
