/*
 * tests/unit/container_test.c - the container layer of the report format
 * (libnvtxw/format/container*.c, docs/report-format.md): round trips, index
 * versus scan, truncation at every byte, corruption of each structure,
 * zero-filled holes, open encoders sharing compression contexts, a scan
 * across its 256 KiB blocks (a chunk larger than two, damage ending in the
 * second), versioning, overwrite and directory errors, disk full, 8
 * concurrent encoders, allocation failures, and a writer killed mid-way.
 *
 * Linked with the format/ sources (internal, not exported) and common/.
 */
#define _GNU_SOURCE
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/alloc.h"
#include "format/container.h"
#include "format/container_layout.h"
#include "nvtxw/error.h"
#include "test_util.h"

/* ---- fixtures ---------------------------------------------------------- */

static char dir[64];
static char path[128];

static void setup(void) {
    tu_make_temp_dir_or_fail(dir, sizeof dir, "nvtxw-container");
    snprintf(path, sizeof path, "%s/r.nvtxw", dir);
}

static void teardown(void) { tu_remove_tree(dir); }

/* Trace-like bytes: 16-byte records with small deltas, few distinct IDs. */
static void fill(unsigned char* buf, size_t size, uint64_t seed) {
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1, ts = 0;
    for (size_t i = 0; i < size; i++) {
        if (i % 16 == 0) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            ts += x % 900 + 100;
        }
        switch (i % 16) {
        case 0:
            buf[i] = (unsigned char)(x % 4);
            break;
        case 1:
        case 2:
            buf[i] = (unsigned char)((x >> 8) % 23);
            break;
        default:
            buf[i] = i % 16 < 8 ? (unsigned char)(ts >> (8 * (i % 16 - 3)))
                                : (unsigned char)(x >> 40) % 3;
        }
    }
}

static container_chunk_meta meta_of(uint64_t stream, uint32_t seq) {
    container_chunk_meta m = {1 + seq % 3, seq, stream, (int64_t)seq * 1000,
                              (int64_t)seq * 1000 + 999};
    return m;
}

static uint64_t seed_of(uint64_t stream, uint32_t seq) { return stream << 32 | seq; }
static size_t size_of(uint64_t stream, uint32_t seq) {
    return (stream * 7919 + seq * 104729) % 3000;
}

static void write_one(container_encoder_t* e, uint64_t stream, uint32_t seq) {
    unsigned char buf[4096];
    container_chunk_meta m = meta_of(stream, seq);
    size_t size = size_of(stream, seq);
    fill(buf, size, seed_of(stream, seq));
    ck_assert_msg(container_write_chunk(e, &m, buf, size) == NVTXW_RESULT_SUCCESS, "%s",
                  nvtxw_last_error());
}

/* Checks chunk i against what write_one wrote for (stream, seq). */
static void check_chunk(container_reader_t* r, size_t i, uint64_t stream, uint32_t seq) {
    unsigned char want[4096], got[4096];
    const container_chunk_info* c = container_reader_chunk_info(r, i);
    container_chunk_meta m = meta_of(stream, seq);
    ck_assert_ptr_nonnull(c);
    ck_assert_uint_eq(c->meta.stream_id, stream);
    ck_assert_uint_eq(c->meta.record_count, seq);
    ck_assert_uint_eq(c->meta.kind, m.kind);
    ck_assert_int_eq(c->meta.first_ts, m.first_ts);
    ck_assert_int_eq(c->meta.last_ts, m.last_ts);
    ck_assert_uint_eq(c->raw_size, size_of(stream, seq));
    fill(want, c->raw_size, seed_of(stream, seq));
    ck_assert_msg(container_reader_read_chunk(r, i, got, sizeof got) == NVTXW_RESULT_SUCCESS, "%s",
                  nvtxw_last_error());
    ck_assert_mem_eq(got, want, c->raw_size);
}

/* Writes `streams` streams of `per_stream` chunks, interleaved. */
static void write_file(const char* p, uint64_t streams, uint32_t per_stream) {
    container_encoder_t* e[16];
    container_writer_t* w = container_writer_create(p, NULL);
    ck_assert_msg(w != NULL, "%s", nvtxw_last_error());
    for (uint64_t s = 0; s < streams; s++)
        ck_assert_ptr_nonnull(e[s] = container_encoder_create(w, 3));
    for (uint32_t q = 0; q < per_stream; q++)
        for (uint64_t s = 0; s < streams; s++)
            write_one(e[s], s + 10, q);
    for (uint64_t s = 0; s < streams; s++)
        container_encoder_destroy(e[s]);
    ck_assert_msg(container_writer_finish(w) == NVTXW_RESULT_SUCCESS, "%s", nvtxw_last_error());
}

/* Every chunk of stream s+10 is its q-th write, for streams written by write_file. */
static void check_file(container_reader_t* r, uint64_t streams, uint32_t per_stream) {
    ck_assert_uint_eq(container_reader_stream_count(r), streams);
    for (size_t j = 0; j < streams; j++) {
        uint64_t id;
        size_t first, count;
        ck_assert_int_eq(container_reader_stream(r, j, &id, &first, &count), 0);
        ck_assert_uint_eq(id, j + 10);
        ck_assert_uint_eq(count, per_stream);
        for (uint32_t q = 0; q < per_stream; q++)
            check_chunk(r, first + q, id, q);
    }
}

static unsigned char* slurp(const char* p, size_t* size) {
    FILE* f = fopen(p, "rb");
    unsigned char* data;
    ck_assert_ptr_nonnull(f);
    fseek(f, 0, SEEK_END);
    *size = (size_t)ftell(f);
    rewind(f);
    data = malloc(*size + 1);
    ck_assert_uint_eq(fread(data, 1, *size, f), *size);
    fclose(f);
    return data;
}

/* Writes a new file: rewriting a truncated one makes ext4 flush it on close
 * (auto_da_alloc), which would slow the every-byte loop down a lot. */
static void spit(const char* p, const unsigned char* data, size_t size) {
    FILE* f;
    unlink(p);
    f = fopen(p, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(data, 1, size, f), size);
    fclose(f);
}

static uint64_t span_of(const container_chunk_info* c) {
    return container_align(LAYOUT_CHUNK_HEADER + (uint64_t)c->stored_size);
}

static void expect_damage(container_reader_t* r, size_t i, uint64_t offset, uint64_t length,
                          container_damage_reason reason) {
    const container_damage* d = container_reader_damage(r, i);
    ck_assert_ptr_nonnull(d);
    ck_assert_msg(d->offset == offset && d->length == length && d->reason == reason,
                  "damage %zu: got offset=%llu length=%llu reason=%s, want %llu %llu %s", i,
                  (unsigned long long)d->offset, (unsigned long long)d->length,
                  container_damage_reason_name(d->reason), (unsigned long long)offset,
                  (unsigned long long)length, container_damage_reason_name(reason));
}

static size_t count_files(void) {
    DIR* d = opendir(dir);
    struct dirent* e;
    size_t n = 0;
    while ((e = readdir(d)) != NULL)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* ---- round trips -------------------------------------------------------- */

START_TEST(round_trip) {
    container_options o;
    container_reader_t* r;
    const container_file_info* fi;
    container_options_init(&o);
    o.session_name = "session: round trip";
    memset(o.session_uuid, 0xAB, 16);
    o.creation_time_ns = 1234567890123456789;
    {
        container_writer_t* w = container_writer_create(path, &o);
        container_encoder_t* e[5];
        ck_assert_ptr_nonnull(w);
        for (int s = 0; s < 5; s++)
            e[s] = container_encoder_create(w, s - 1); /* levels -1..3 */
        for (uint32_t q = 0; q < 300; q++)
            for (int s = 4; s >= 0; s--)
                if (q % (unsigned)(s + 1) == 0)
                    write_one(e[s], (uint64_t)s + 10, q / (unsigned)(s + 1));
        for (int s = 0; s < 5; s++)
            container_encoder_destroy(e[s]);
        container_encoder_destroy(container_encoder_create(w, 3)); /* wrote nothing */
        ck_assert_int_eq(container_writer_finish(w), NVTXW_RESULT_SUCCESS);
    }
    r = container_reader_open(path, 0);
    ck_assert_msg(r != NULL, "%s", nvtxw_last_error());
    ck_assert_int_eq(container_reader_complete(r), 1);
    ck_assert_uint_eq(container_reader_damage_count(r), 0);
    fi = container_reader_file_info(r);
    ck_assert_uint_eq(fi->major, CONTAINER_VERSION_MAJOR);
    ck_assert_str_eq(fi->session_name, "session: round trip");
    ck_assert_int_eq(fi->creation_time_ns, 1234567890123456789);
    ck_assert_uint_eq(fi->session_uuid[15], 0xAB);
    ck_assert_uint_eq(container_reader_chunk_count(r), 300 + 150 + 100 + 75 + 60);
    for (size_t j = 0; j < 5; j++) {
        uint64_t id;
        size_t first, count;
        ck_assert_int_eq(container_reader_stream(r, j, &id, &first, &count), 0);
        ck_assert_uint_eq(count, 300 / (j + 1));
        for (uint32_t q = 0; q < count; q++)
            check_chunk(r, first + q, id, q);
    }
    ck_assert_int_eq(container_reader_stream(r, 5, &(uint64_t){0}, &(size_t){0}, &(size_t){0}),
                     NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_ptr_null(container_reader_chunk_info(r, 10000));
    container_reader_close(r);
}
END_TEST

/* Streams that open and close while others go on (a trace of many short
 * threads): a destroyed encoder's chunks move to the writer's own list and
 * its zstd context to the spares, taken by encoders of the same level.
 * Every chunk is in the index, in order, with its bytes. */
START_TEST(short_lived_encoders) {
    enum { SHORT = 600, LONG = 3 };
    container_writer_t* w = container_writer_create(path, NULL);
    container_encoder_t* keep[LONG];
    container_reader_t* r;
    size_t chunks = 0;
    ck_assert_ptr_nonnull(w);
    for (int s = 0; s < LONG; s++)
        ck_assert_ptr_nonnull(keep[s] = container_encoder_create(w, 1));
    for (uint64_t s = 0; s < SHORT; s++) {
        container_encoder_t* e = container_encoder_create(w, s % 3 == 0 ? 3 : s % 3 == 1 ? 1 : -1);
        ck_assert_msg(e != NULL, "%s", nvtxw_last_error());
        for (uint32_t q = 0; q < s % 4; q++, chunks++)
            write_one(e, LONG + s + 10, q);
        write_one(keep[s % LONG], s % LONG + 10, (uint32_t)(s / LONG));
        chunks++;
        container_encoder_destroy(e);
    }
    for (int s = 0; s < LONG; s++)
        container_encoder_destroy(keep[s]);
    ck_assert_msg(container_writer_finish(w) == NVTXW_RESULT_SUCCESS, "%s", nvtxw_last_error());
    r = container_reader_open(path, 0);
    ck_assert_msg(r != NULL, "%s", nvtxw_last_error());
    ck_assert_int_eq(container_reader_complete(r), 1);
    ck_assert_uint_eq(container_reader_chunk_count(r), chunks);
    /* streams with chunks: the LONG ones and the short ones with s % 4 != 0 */
    ck_assert_uint_eq(container_reader_stream_count(r), LONG + SHORT - SHORT / 4);
    for (size_t j = 0; j < container_reader_stream_count(r); j++) {
        uint64_t id;
        size_t first, count;
        ck_assert_int_eq(container_reader_stream(r, j, &id, &first, &count), 0);
        if (id < LONG + 10)
            ck_assert_uint_eq(count, SHORT / LONG);
        else
            ck_assert_uint_eq(count, (id - 10 - LONG) % 4);
        for (uint32_t q = 0; q < count; q++)
            check_chunk(r, first + q, id, q);
    }
    container_reader_close(r);
}
END_TEST

/* 96 encoders open at once, each having written a 256 KiB chunk: they hold
 * no compression context or frame buffer between chunks (they borrow the
 * writer's), so the heap grows by their index entries and a few spares,
 * where a context and buffer each (0.9 MB at level 1) took 86 MB. The
 * chunks read back intact. Under a sanitizer's allocator the heap figure
 * is 0 and only the content counts. */
START_TEST(open_encoders_share_contexts) {
    enum { STREAMS = 96, BIG = 256 * 1024 };
    container_encoder_t* e[STREAMS];
    unsigned char* data = malloc(BIG);
    unsigned char* back = malloc(BIG);
    container_writer_t* w = container_writer_create(path, NULL);
    container_reader_t* r;
    size_t before, grown;
    ck_assert(data != NULL && back != NULL && w != NULL);
    before = tu_heap_in_use();
    for (uint64_t s = 0; s < STREAMS; s++) {
        container_chunk_meta m = meta_of(s + 10, 0);
        ck_assert_ptr_nonnull(e[s] = container_encoder_create(w, 1));
        fill(data, BIG, seed_of(s + 10, 0));
        ck_assert_msg(container_write_chunk(e[s], &m, data, BIG) == NVTXW_RESULT_SUCCESS, "%s",
                      nvtxw_last_error());
    }
    grown = tu_heap_in_use();
    grown = grown > before ? grown - before : 0;
    ck_assert_msg(grown < 8u << 20, "%d open encoders hold %zu bytes", STREAMS, grown);
    for (uint64_t s = 0; s < STREAMS; s++)
        container_encoder_destroy(e[s]);
    ck_assert_msg(container_writer_finish(w) == NVTXW_RESULT_SUCCESS, "%s", nvtxw_last_error());
    r = container_reader_open(path, 0);
    ck_assert_msg(r != NULL, "%s", nvtxw_last_error());
    ck_assert_uint_eq(container_reader_stream_count(r), STREAMS);
    for (size_t i = 0; i < STREAMS; i++) {
        const container_chunk_info* c = container_reader_chunk_info(r, i);
        ck_assert_uint_eq(c->raw_size, BIG);
        fill(data, BIG, seed_of(c->meta.stream_id, 0));
        ck_assert_int_eq(container_reader_read_chunk(r, i, back, BIG), NVTXW_RESULT_SUCCESS);
        ck_assert_mem_eq(back, data, BIG);
    }
    container_reader_close(r);
    free(data);
    free(back);
}
END_TEST

START_TEST(index_equals_scan) {
    container_reader_t *a, *b;
    write_file(path, 4, 50);
    a = container_reader_open(path, 0);
    b = container_reader_open(path, CONTAINER_OPEN_SCAN);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    ck_assert_uint_eq(container_reader_chunk_count(a), 200);
    ck_assert_uint_eq(container_reader_chunk_count(b), 200);
    ck_assert_uint_eq(container_reader_damage_count(b), 0);
    ck_assert_int_eq(container_reader_complete(b), 1);
    for (size_t i = 0; i < 200; i++) {
        const container_chunk_info *x = container_reader_chunk_info(a, i),
                                   *y = container_reader_chunk_info(b, i);
        ck_assert_uint_eq(x->offset, y->offset);
        ck_assert_uint_eq(x->stored_size, y->stored_size);
        ck_assert_uint_eq(x->raw_size, y->raw_size);
        ck_assert_mem_eq(&x->meta, &y->meta, sizeof x->meta);
    }
    check_file(b, 4, 50);
    container_reader_close(a);
    container_reader_close(b);
}
END_TEST

START_TEST(empty_report) {
    container_reader_t* r;
    container_writer_t* w = container_writer_create(path, NULL);
    ck_assert_int_eq(container_writer_finish(w), NVTXW_RESULT_SUCCESS);
    r = container_reader_open(path, 0);
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(container_reader_complete(r), 1);
    ck_assert_uint_eq(container_reader_chunk_count(r), 0);
    ck_assert_uint_eq(container_reader_stream_count(r), 0);
    container_reader_close(r);
}
END_TEST

/* ---- damage ------------------------------------------------------------- */

/* A 3-chunk report: its bytes and the boundaries of every structure. */
typedef struct small_file {
    unsigned char* data;
    size_t size;
    uint64_t bounds[6]; /* c1 c2 c3 index trailer end */
    container_chunk_info chunks[3];
} small_file;

static void small_file_make(small_file* f) {
    container_reader_t* r;
    write_file(path, 1, 3);
    f->data = slurp(path, &f->size);
    r = container_reader_open(path, 0);
    ck_assert_ptr_nonnull(r);
    for (size_t i = 0; i < 3; i++) {
        f->chunks[i] = *container_reader_chunk_info(r, i);
        f->bounds[i] = f->chunks[i].offset;
    }
    container_reader_close(r);
    f->bounds[3] = container_get_u64(f->data + f->size - LAYOUT_TRAILER_SIZE);
    f->bounds[4] = f->size - LAYOUT_TRAILER_SIZE;
    f->bounds[5] = f->size;
    ck_assert_uint_eq(f->bounds[3], f->bounds[2] + span_of(&f->chunks[2]));
}

START_TEST(truncation_every_byte) {
    small_file f;
    small_file_make(&f);
    for (size_t n = 0; n < f.size; n++) {
        container_reader_t* r;
        size_t complete = 0, k = 0;
        spit(path, f.data, n);
        r = container_reader_open(path, 0);
        if (n < f.bounds[0]) {
            ck_assert_msg(r == NULL, "n=%zu", n);
            ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), n < 8 ? "truncated" : "report"));
            continue;
        }
        ck_assert_msg(r != NULL, "n=%zu: %s", n, nvtxw_last_error());
        while (k + 1 < 6 && f.bounds[k + 1] <= n)
            k++;
        for (size_t i = 0; i < 3; i++)
            complete += f.bounds[i] + span_of(&f.chunks[i]) <= n;
        ck_assert_uint_eq(container_reader_chunk_count(r), complete);
        for (size_t i = 0; i < complete; i++)
            check_chunk(r, i, 10, (uint32_t)i);
        ck_assert_uint_eq(container_reader_damage_count(r), 1);
        ck_assert_int_eq(container_reader_complete(r), 0);
        if (f.bounds[k] == n)
            expect_damage(r, 0, n, 0, CONTAINER_DAMAGE_UNFINISHED);
        else
            expect_damage(r, 0, f.bounds[k], n - f.bounds[k], CONTAINER_DAMAGE_CUT_OFF);
        container_reader_close(r);
    }
    free(f.data);
}
END_TEST

START_TEST(flipped_chunk_header) {
    small_file f;
    container_reader_t* r;
    small_file_make(&f);
    f.data[f.bounds[1] + 20] ^= 0x01; /* stream_id of chunk 2 */
    spit(path, f.data, f.size);
    r = container_reader_open(path, CONTAINER_OPEN_SCAN);
    ck_assert_ptr_nonnull(r);
    ck_assert_uint_eq(container_reader_chunk_count(r), 2);
    check_chunk(r, 0, 10, 0);
    check_chunk(r, 1, 10, 2);
    ck_assert_uint_eq(container_reader_damage_count(r), 1);
    expect_damage(r, 0, f.bounds[1], f.bounds[2] - f.bounds[1], CONTAINER_DAMAGE_BAD_HEADER);
    container_reader_close(r);
    /* The index path finds the damage when the chunk is read. */
    r = container_reader_open(path, 0);
    ck_assert_uint_eq(container_reader_chunk_count(r), 3);
    ck_assert_int_eq(container_reader_read_chunk(r, 1, (char[4096]){0}, 4096), NVTXW_RESULT_FAILED);
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "checksum mismatch"));
    container_reader_close(r);
    free(f.data);
}
END_TEST

START_TEST(flipped_payload) {
    small_file f;
    container_reader_t* r;
    small_file_make(&f);
    f.data[f.bounds[1] + LAYOUT_CHUNK_HEADER + f.chunks[1].stored_size / 2] ^= 0x40;
    spit(path, f.data, f.size);
    r = container_reader_open(path, CONTAINER_OPEN_SCAN);
    ck_assert_uint_eq(container_reader_chunk_count(r), 2);
    check_chunk(r, 1, 10, 2);
    ck_assert_uint_eq(container_reader_damage_count(r), 1);
    expect_damage(r, 0, f.bounds[1], span_of(&f.chunks[1]), CONTAINER_DAMAGE_BAD_PAYLOAD);
    container_reader_close(r);
    r = container_reader_open(path, 0);
    ck_assert_int_eq(container_reader_read_chunk(r, 1, (char[4096]){0}, 4096), NVTXW_RESULT_FAILED);
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "payload checksum"));
    check_chunk(r, 2, 10, 2);
    container_reader_close(r);
    free(f.data);
}
END_TEST

/* A damaged zstd frame behind valid container checksums: zstd's own content
 * checksum catches it. */
START_TEST(bad_zstd_content_checksum) {
    small_file f;
    container_reader_t* r;
    container_chunk_header h;
    unsigned char* c;
    small_file_make(&f);
    c = f.data + f.bounds[1];
    ck_assert_int_eq(container_decode_chunk_header(c, LAYOUT_CHUNK_HEADER, &h), LAYOUT_OK);
    c[LAYOUT_CHUNK_HEADER + h.stored_size - 1] ^= 0xFF; /* XXH64 content checksum */
    h.payload_checksum = container_checksum(c + LAYOUT_CHUNK_HEADER, h.stored_size);
    container_encode_chunk_header(c, &h);
    spit(path, f.data, f.size);
    r = container_reader_open(path, CONTAINER_OPEN_SCAN);
    ck_assert_uint_eq(container_reader_damage_count(r), 0);
    ck_assert_int_eq(container_reader_read_chunk(r, 1, (char[4096]){0}, 4096), NVTXW_RESULT_FAILED);
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "checksum"));
    container_reader_close(r);
    free(f.data);
}
END_TEST

START_TEST(flipped_trailer) {
    small_file f;
    container_reader_t* r;
    small_file_make(&f);
    f.data[f.bounds[4] + 2] ^= 0x10; /* index_offset */
    spit(path, f.data, f.size);
    r = container_reader_open(path, 0);
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(container_reader_complete(r), 0);
    ck_assert_uint_eq(container_reader_chunk_count(r), 3);
    ck_assert_uint_eq(container_reader_damage_count(r), 1);
    expect_damage(r, 0, f.bounds[4], LAYOUT_TRAILER_SIZE, CONTAINER_DAMAGE_BAD_TRAILER);
    check_chunk(r, 2, 10, 2);
    container_reader_close(r);
    free(f.data);
}
END_TEST

START_TEST(flipped_index) {
    small_file f;
    container_reader_t* r;
    small_file_make(&f);
    f.data[f.bounds[3] + LAYOUT_CHUNK_HEADER + 2] ^= 0x10;
    spit(path, f.data, f.size);
    r = container_reader_open(path, 0);
    ck_assert_uint_eq(container_reader_chunk_count(r), 3);
    ck_assert_uint_eq(container_reader_damage_count(r), 1);
    expect_damage(r, 0, f.bounds[3], f.bounds[4] - f.bounds[3], CONTAINER_DAMAGE_BAD_INDEX);
    check_chunk(r, 2, 10, 2);
    container_reader_close(r);
    free(f.data);
}
END_TEST

START_TEST(flipped_file_header) {
    small_file f;
    small_file_make(&f);
    f.data[30] ^= 0x01;
    spit(path, f.data, f.size);
    ck_assert_ptr_null(container_reader_open(path, 0));
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "damaged file header"));
    f.data[30] ^= 0x01;
    f.data[0] = 'X';
    spit(path, f.data, f.size);
    ck_assert_ptr_null(container_reader_open(path, 0));
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "not an nvtxw report"));
    free(f.data);
}
END_TEST

/* A crashed writer: the index and trailer never written, and a reserved
 * range never filled (zeros) in the middle. */
START_TEST(zero_filled_hole) {
    container_reader_t* r;
    container_chunk_info c[6];
    unsigned char* data;
    size_t size;
    write_file(path, 1, 6);
    r = container_reader_open(path, 0);
    for (size_t i = 0; i < 6; i++)
        c[i] = *container_reader_chunk_info(r, i);
    container_reader_close(r);
    data = slurp(path, &size);
    size = (size_t)(c[5].offset + span_of(&c[5]));                      /* drop index and trailer */
    memset(data + c[2].offset, 0, (size_t)(c[4].offset - c[2].offset)); /* chunks 3 and 4 */
    spit(path, data, size);
    r = container_reader_open(path, 0);
    ck_assert_ptr_nonnull(r);
    ck_assert_uint_eq(container_reader_chunk_count(r), 4);
    check_chunk(r, 0, 10, 0);
    check_chunk(r, 1, 10, 1);
    check_chunk(r, 2, 10, 4);
    check_chunk(r, 3, 10, 5);
    ck_assert_uint_eq(container_reader_damage_count(r), 2);
    expect_damage(r, 0, c[2].offset, c[4].offset - c[2].offset, CONTAINER_DAMAGE_ZERO_FILL);
    expect_damage(r, 1, size, 0, CONTAINER_DAMAGE_UNFINISHED);
    container_reader_close(r);
    free(data);
}
END_TEST

/* A scan reads the file in blocks of at most 256 KiB (as large as the file
 * when it is smaller): a chunk whose payload spans several blocks is
 * checked piece by piece, and damage longer than a block is searched block
 * by block for the next valid chunk header. */
START_TEST(scan_crosses_blocks) {
    enum { BIG = 700 * 1024, SMALL = 1000, FROM = 100, TO = 700 };
    unsigned char* big = malloc(BIG);
    unsigned char* data;
    container_chunk_info c[SMALL + 1], b;
    container_chunk_meta m = meta_of(11, 0);
    container_writer_t* w = container_writer_create(path, NULL);
    container_encoder_t *small_enc, *big_enc;
    container_reader_t* r;
    uint64_t x = 88172645463325252u, end = 0;
    size_t size, i, first, count;
    uint64_t id;
    ck_assert_ptr_nonnull(big);
    for (i = 0; i < BIG; i++) { /* incompressible: stored about as large */
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        big[i] = (unsigned char)(x >> 24);
    }
    ck_assert_ptr_nonnull(w);
    ck_assert_ptr_nonnull(small_enc = container_encoder_create(w, 3));
    ck_assert_ptr_nonnull(big_enc = container_encoder_create(w, 1));
    write_one(small_enc, 10, 0);
    ck_assert_int_eq(container_write_chunk(big_enc, &m, big, BIG), NVTXW_RESULT_SUCCESS);
    for (uint32_t q = 1; q <= SMALL; q++)
        write_one(small_enc, 10, q);
    container_encoder_destroy(small_enc);
    container_encoder_destroy(big_enc);
    ck_assert_int_eq(container_writer_finish(w), NVTXW_RESULT_SUCCESS);
    /* stream 10's chunks in order, and the big one of stream 11 */
    r = container_reader_open(path, 0);
    ck_assert_int_eq(container_reader_stream(r, 0, &id, &first, &count), 0);
    ck_assert_uint_eq(id, 10);
    ck_assert_uint_eq(count, SMALL + 1);
    for (i = 0; i <= SMALL; i++)
        c[i] = *container_reader_chunk_info(r, first + i);
    ck_assert_int_eq(container_reader_stream(r, 1, &id, &first, &count), 0);
    ck_assert_uint_eq(id, 11);
    b = *container_reader_chunk_info(r, first);
    container_reader_close(r);
    ck_assert_uint_gt(b.stored_size, 2 * 256 * 1024);
    ck_assert_uint_lt(b.offset, c[FROM].offset);
    /* the next header after the damage lies in the search's second block */
    ck_assert_uint_gt(c[TO].offset - c[FROM].offset, 256 * 1024);
    ck_assert_uint_lt(c[TO].offset - c[FROM].offset, 2 * 256 * 1024 - 8);
    /* without index and trailer, chunks FROM .. TO - 1 overwritten with
     * noise */
    for (i = 0; i <= SMALL; i++)
        end = c[i].offset + span_of(&c[i]) > end ? c[i].offset + span_of(&c[i]) : end;
    data = slurp(path, &size);
    size = (size_t)end;
    for (i = (size_t)c[FROM].offset; i < c[TO].offset; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        data[i] = (unsigned char)(x >> 24) | 1;
    }
    spit(path, data, size);
    r = container_reader_open(path, 0);
    ck_assert_msg(r != NULL, "%s", nvtxw_last_error());
    ck_assert_int_eq(container_reader_stream(r, 0, &id, &first, &count), 0);
    ck_assert_uint_eq(count, SMALL + 1 - (TO - FROM));
    for (uint32_t q = 0; q < FROM; q++)
        check_chunk(r, first + q, 10, q);
    for (uint32_t q = TO; q <= SMALL; q++)
        check_chunk(r, first + q - (TO - FROM), 10, q);
    ck_assert_int_eq(container_reader_stream(r, 1, &id, &first, &count), 0);
    ck_assert_uint_eq(container_reader_chunk_info(r, first)->raw_size, BIG);
    memset(data, 0, BIG);
    ck_assert_int_eq(container_reader_read_chunk(r, first, data, BIG), NVTXW_RESULT_SUCCESS);
    ck_assert_mem_eq(data, big, BIG);
    ck_assert_uint_eq(container_reader_damage_count(r), 2);
    expect_damage(r, 0, c[FROM].offset, c[TO].offset - c[FROM].offset, CONTAINER_DAMAGE_BAD_HEADER);
    expect_damage(r, 1, size, 0, CONTAINER_DAMAGE_UNFINISHED);
    container_reader_close(r);
    free(data);
    free(big);
}
END_TEST

/* ---- versions, paths, errors ------------------------------------------- */

START_TEST(future_major_refused) {
    container_reader_t* r;
    unsigned char* data;
    size_t size, hs;
    write_file(path, 1, 2);
    data = slurp(path, &size);
    container_put_u16(data + 8, 3);
    spit(path, data, size);
    ck_assert_ptr_null(container_reader_open(path, 0));
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "report format 3.x is newer than this reader "
                                                     "(2.x); upgrade nvtxw"));
    /* A newer minor, with header flags this reader does not know, reads. */
    container_put_u16(data + 8, CONTAINER_VERSION_MAJOR);
    container_put_u16(data + 10, CONTAINER_VERSION_MINOR + 7);
    container_put_u64(data + 16, 0x8000);
    hs = container_get_u32(data + 12);
    container_put_u64(data + hs - 8, container_checksum(data, hs - 8));
    spit(path, data, size);
    r = container_reader_open(path, 0);
    ck_assert_msg(r != NULL, "%s", nvtxw_last_error());
    ck_assert_uint_eq(container_reader_file_info(r)->minor, CONTAINER_VERSION_MINOR + 7);
    check_file(r, 1, 2);
    container_reader_close(r);
    free(data);
}
END_TEST

START_TEST(overwrite_rules) {
    unsigned char* data;
    size_t size;
    spit(path, (const unsigned char*)"old", 3);
    ck_assert_ptr_null(container_writer_create(path, NULL));
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), path));
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "exists"));
    data = slurp(path, &size);
    ck_assert_uint_eq(size, 3); /* untouched, and no temp file left */
    ck_assert_uint_eq(count_files(), 1);
    free(data);
}
END_TEST

START_TEST(overwrite_on_replaces) {
    container_options o;
    container_writer_t* w;
    container_reader_t* r;
    spit(path, (const unsigned char*)"old", 3);
    container_options_init(&o);
    o.overwrite = 1;
    w = container_writer_create(path, &o);
    ck_assert_ptr_nonnull(w);
    ck_assert_int_eq(container_writer_finish(w), NVTXW_RESULT_SUCCESS);
    r = container_reader_open(path, 0);
    ck_assert_ptr_nonnull(r);
    container_reader_close(r);
    /* Without overwrite, a file appearing before the commit wins. */
    unlink(path);
    w = container_writer_create(path, NULL);
    ck_assert_ptr_nonnull(w);
    spit(path, (const unsigned char*)"new", 3);
    ck_assert_int_eq(container_writer_finish(w), NVTXW_RESULT_FAILED);
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "exists"));
}
END_TEST

START_TEST(unwritable_directory) {
    char p[256];
    if (geteuid() != 0) {
        chmod(dir, 0555);
        snprintf(p, sizeof p, "%s/r.nvtxw", dir);
    } else { /* root writes anywhere a file system allows: use one that refuses */
        snprintf(p, sizeof p, "/proc/nvtxw-container-test/r.nvtxw");
    }
    ck_assert_ptr_null(container_writer_create(p, NULL));
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), p));
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "cannot create report"));
    chmod(dir, 0755);
}
END_TEST

START_TEST(finish_with_open_encoder) {
    container_writer_t* w = container_writer_create(path, NULL);
    container_encoder_t* e = container_encoder_create(w, 1);
    write_one(e, 10, 0);
    ck_assert_int_eq(container_writer_finish(w), NVTXW_RESULT_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(strstr(nvtxw_last_error(), "encoders still open"));
    container_encoder_destroy(e);
    ck_assert_int_eq(container_writer_finish(w), NVTXW_RESULT_SUCCESS);
    ck_assert_uint_eq(count_files(), 1);
}
END_TEST

START_TEST(abort_removes_temp) {
    container_writer_t* w = container_writer_create(path, NULL);
    container_encoder_t* e = container_encoder_create(w, 1);
    container_chunk_meta m = {CONTAINER_KIND_RESERVED, 0, 1, 0, 0};
    ck_assert_int_eq(container_write_chunk(e, &m, "x", 1), NVTXW_RESULT_INVALID_ARGUMENT);
    write_one(e, 10, 0); /* argument errors do not make the writer faulty */
    ck_assert_uint_eq(count_files(), 1);
    container_encoder_destroy(e);
    container_writer_abort(w);
    ck_assert_uint_eq(count_files(), 0);
}
END_TEST

/* The child hits RLIMIT_FSIZE: EFBIG, reported with strerror's text. */
static int disk_full_child(void) {
    struct rlimit lim = {200000, 200000};
    unsigned char* buf = malloc(65536);
    container_writer_t* w;
    container_encoder_t* e;
    char want[256];
    nvtxwResultCode_t status = NVTXW_RESULT_SUCCESS;
    int i;
    signal(SIGXFSZ, SIG_IGN);
    if (setrlimit(RLIMIT_FSIZE, &lim) != 0)
        return 10;
    for (size_t k = 0; k < 65536; k++) /* incompressible */
        buf[k] = (unsigned char)((k * 2654435761u) >> 13 ^ k * 40503u >> 7);
    w = container_writer_create(path, NULL);
    e = w ? container_encoder_create(w, 3) : NULL;
    if (e == NULL)
        return 11;
    for (i = 0; i < 20 && status == NVTXW_RESULT_SUCCESS; i++) {
        container_chunk_meta m = {1, 0, 1, i, i};
        buf[0] = (unsigned char)i;
        status = container_write_chunk(e, &m, buf, 65536);
    }
    snprintf(want, sizeof want, "%s", strerror(EFBIG));
    if (status != NVTXW_RESULT_FAILED || strstr(nvtxw_last_error(), want) == NULL)
        return 12;
    if (container_write_chunk(e, &(container_chunk_meta){1, 0, 1, 0, 0}, buf, 10) !=
            NVTXW_RESULT_FAILED ||
        strstr(nvtxw_last_error(), want) == NULL)
        return 13; /* faulty: the saved error again */
    container_encoder_destroy(e);
    if (container_writer_finish(w) != NVTXW_RESULT_FAILED || count_files() != 0)
        return 14;
    free(buf);
    return 0;
}

START_TEST(disk_full) {
    int st;
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0)
        _exit(disk_full_child());
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %d", st);
}
END_TEST

/* ---- concurrency -------------------------------------------------------- */

#define THREADS 8
#define THREAD_CHUNKS 2000

typedef struct thread_arg {
    container_writer_t* writer;
    uint64_t stream;
    int status;
} thread_arg;

static void* thread_main(void* p) {
    thread_arg* a = p;
    unsigned char buf[4096];
    container_encoder_t* e = container_encoder_create(a->writer, 1);
    a->status = e == NULL;
    for (uint32_t q = 0; e != NULL && q < THREAD_CHUNKS && a->status == 0; q++) {
        container_chunk_meta m = meta_of(a->stream, q);
        size_t size = size_of(a->stream, q) / 4;
        fill(buf, size, seed_of(a->stream, q));
        a->status = container_write_chunk(e, &m, buf, size);
    }
    container_encoder_destroy(e);
    return NULL;
}

START_TEST(threads_concurrent) {
    pthread_t t[THREADS];
    thread_arg a[THREADS];
    unsigned char want[4096], got[4096];
    container_writer_t* w = container_writer_create(path, NULL);
    container_reader_t* r;
    for (int i = 0; i < THREADS; i++) {
        a[i] = (thread_arg){w, (uint64_t)i + 10, -1};
        ck_assert_int_eq(pthread_create(&t[i], NULL, thread_main, &a[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        ck_assert_int_eq(a[i].status, 0);
    }
    ck_assert_int_eq(container_writer_finish(w), NVTXW_RESULT_SUCCESS);
    r = container_reader_open(path, 0);
    ck_assert_uint_eq(container_reader_chunk_count(r), THREADS * THREAD_CHUNKS);
    ck_assert_uint_eq(container_reader_stream_count(r), THREADS);
    for (size_t i = 0; i < THREADS * THREAD_CHUNKS; i++) {
        const container_chunk_info* c = container_reader_chunk_info(r, i);
        uint32_t q = c->meta.record_count;
        ck_assert_uint_eq(q, i % THREAD_CHUNKS); /* per stream, in write order */
        ck_assert_uint_eq(c->raw_size, size_of(c->meta.stream_id, q) / 4);
        fill(want, c->raw_size, seed_of(c->meta.stream_id, q));
        ck_assert_int_eq(container_reader_read_chunk(r, i, got, sizeof got), 0);
        ck_assert_mem_eq(got, want, c->raw_size);
    }
    container_reader_close(r);
}
END_TEST

/* ---- allocation failures and a killed writer ---------------------------- */

START_TEST(allocation_failures) {
    int done = 0;
    for (long k = 0; !done; k++) {
        container_writer_t* w;
        container_encoder_t* e = NULL;
        container_reader_t* r;
        int ok = 0;
        unlink(path);
        nvtxw_alloc_fail_after(k);
        w = container_writer_create(path, NULL);
        if (w != NULL && (e = container_encoder_create(w, 1)) != NULL)
            ok = container_write_chunk(e, &(container_chunk_meta){1, 0, 1, 0, 0}, "abc", 3) == 0;
        container_encoder_destroy(e);
        if (w != NULL && ok)
            ok = container_writer_finish(w) == 0;
        else
            container_writer_abort(w);
        r = ok ? container_reader_open(path, 0) : NULL;
        nvtxw_alloc_fail_after(-1);
        if (r != NULL)
            done = container_reader_chunk_count(r) == 1;
        container_reader_close(r);
        ck_assert_uint_le(count_files(), 1);
        ck_assert_int_lt(k, 1000);
    }
}
END_TEST

#define CRASH_AFTER 40

static void crash_child(int fd) {
    container_writer_t* w = container_writer_create(path, NULL);
    container_encoder_t* e = w ? container_encoder_create(w, 3) : NULL;
    for (uint32_t q = 0; e != NULL && q < 100000; q++) {
        unsigned char buf[4096];
        container_chunk_meta m = meta_of(10, q);
        size_t size = size_of(10, q);
        fill(buf, size, seed_of(10, q));
        if (container_write_chunk(e, &m, buf, size) != 0 || write(fd, &q, sizeof q) != sizeof q)
            break;
    }
    _exit(1);
}

START_TEST(killed_writer) {
    int fds[2], st;
    uint32_t q = 0;
    pid_t pid;
    DIR* d;
    struct dirent* ent;
    char temp[512] = "";
    container_reader_t* r;
    ck_assert_int_eq(pipe(fds), 0);
    pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        close(fds[0]);
        crash_child(fds[1]);
    }
    close(fds[1]);
    while (q + 1 < CRASH_AFTER && read(fds[0], &q, sizeof q) == sizeof q)
        ;
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    close(fds[0]);
    ck_assert_uint_eq(q + 1, CRASH_AFTER);
    d = opendir(dir);
    while ((ent = readdir(d)) != NULL)
        if (strstr(ent->d_name, ".tmp-") != NULL)
            snprintf(temp, sizeof temp, "%s/%s", dir, ent->d_name);
    closedir(d);
    ck_assert_str_ne(temp, "");
    r = container_reader_open(temp, 0);
    ck_assert_msg(r != NULL, "%s", nvtxw_last_error());
    ck_assert_int_eq(container_reader_complete(r), 0);
    ck_assert_uint_ge(container_reader_chunk_count(r), CRASH_AFTER);
    for (size_t i = 0; i < container_reader_chunk_count(r); i++)
        check_chunk(r, i, 10, (uint32_t)i);
    ck_assert_uint_eq(container_reader_damage_count(r), 1);
    ck_assert(container_reader_damage(r, 0)->reason == CONTAINER_DAMAGE_UNFINISHED ||
              container_reader_damage(r, 0)->reason == CONTAINER_DAMAGE_CUT_OFF);
    container_reader_close(r);
}
END_TEST

int main(void) {
    Suite* s = suite_create("container");
    TCase* tc = tcase_create("container");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, round_trip);
    tcase_add_test(tc, short_lived_encoders);
    tcase_add_test(tc, open_encoders_share_contexts);
    tcase_add_test(tc, index_equals_scan);
    tcase_add_test(tc, empty_report);
    tcase_add_test(tc, truncation_every_byte);
    tcase_add_test(tc, flipped_chunk_header);
    tcase_add_test(tc, flipped_payload);
    tcase_add_test(tc, bad_zstd_content_checksum);
    tcase_add_test(tc, flipped_trailer);
    tcase_add_test(tc, flipped_index);
    tcase_add_test(tc, flipped_file_header);
    tcase_add_test(tc, zero_filled_hole);
    tcase_add_test(tc, scan_crosses_blocks);
    tcase_add_test(tc, future_major_refused);
    tcase_add_test(tc, overwrite_rules);
    tcase_add_test(tc, overwrite_on_replaces);
    tcase_add_test(tc, unwritable_directory);
    tcase_add_test(tc, finish_with_open_encoder);
    tcase_add_test(tc, abort_removes_temp);
    tcase_add_test(tc, disk_full);
    tcase_add_test(tc, threads_concurrent);
    tcase_add_test(tc, allocation_failures);
    tcase_add_test(tc, killed_writer);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
