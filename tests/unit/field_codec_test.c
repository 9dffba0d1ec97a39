/*
 * tests/unit/field_codec_test.c - the "fields" payload encoding of report
 * format 2 (payload/field_codec.h, docs/report-records.md): which schemas get
 * a layout, the fields each entry becomes (compared with a C struct),
 * encode -> decode returns every covered byte (extreme values, timestamps
 * on both sides of the event time, handles, floats, nested structs, arrays)
 * with padding zeroed, and the decoder refuses truncated bytes, values too
 * wide for their field and handle indices beyond 32 bits, on the checked
 * and the unchecked (fast) path alike; varint_put and varint_put_wide
 * against the plain LEB128 loop for every bit length, varint_get_unbounded against varint_get,
 * field_decode_lanes_unchecked against field_decode_lanes, and runs decoded
 * column by column against the same records decoded one by one.
 */
#define _POSIX_C_SOURCE 200809L /* test_util.h */
#include <check.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/varint.h"
#include "nvtxw/payload.h"
#include "payload/field_codec.h"
#include "test_util.h"

#define E(type, name)                                                                              \
    { 0, NVTX_PAYLOAD_ENTRY_TYPE_##type, name, NULL, 0, 0, NULL, NULL }
#define E_FLAGS(flags, type, name)                                                                 \
    { flags, NVTX_PAYLOAD_ENTRY_TYPE_##type, name, NULL, 0, 0, NULL, NULL }
#define E_ARRAY(type, name, n)                                                                     \
    {                                                                                              \
        NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_FIXED_SIZE, NVTX_PAYLOAD_ENTRY_TYPE_##type, name, NULL, n,   \
            0, NULL, NULL                                                                          \
    }
#define SERIAL 7u

typedef struct inner {
    uint16_t a;
    int8_t b; /* one byte of padding follows */
} inner;

typedef struct everything {
    uint8_t u8;
    int16_t i16;
    uint32_t u32;
    int64_t i64;
    int64_t begin; /* TIMESTAMP */
    uint64_t end;  /* TIMESTAMP */
    uint64_t name; /* registered string handle */
    float f;
    double d;
    int32_t arr[3];
    inner nested;
    char text[5];
} everything;

static nvtxw_schema_registry_t* registry;
static uint64_t inner_id, everything_id;

static uint64_t add(const nvtxPayloadSchemaEntry_t* entries, size_t n, uint64_t type) {
    nvtxPayloadSchemaAttr_t a;
    uint64_t id = 0;
    memset(&a, 0, sizeof a);
    a.fieldMask = NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES |
                  NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES;
    a.type = type;
    a.entries = entries;
    a.numEntries = n;
    ck_assert_msg(nvtxw_schema_registry_add_schema(registry, &a, &id) == NVTXW_RESULT_SUCCESS, "%s",
                  nvtxw_last_error());
    return id;
}

static void setup(void) {
    static nvtxPayloadSchemaEntry_t inner_entries[] = {E(UINT16, "a"), E(INT8, "b")};
    static nvtxPayloadSchemaEntry_t entries[] = {
        E(UINT8, "u8"),
        E(INT16, "i16"),
        E(UINT32, "u32"),
        E(INT64, "i64"),
        E_FLAGS(NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP, INT64, "begin"),
        E_FLAGS(NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP, UINT64, "end"),
        E(NVTX_REGISTERED_STRING_HANDLE, "name"),
        E(FLOAT, "f"),
        E(DOUBLE, "d"),
        E_ARRAY(INT32, "arr", 3),
        {0, 0, "nested", NULL, 0, 0, NULL, NULL},
        {NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_FIXED_SIZE, NVTX_PAYLOAD_ENTRY_TYPE_CHAR, "text", NULL, 5, 0,
         NULL, NULL},
    };
    registry = nvtxw_schema_registry_create();
    inner_id = add(inner_entries, 2, NVTX_PAYLOAD_SCHEMA_TYPE_STATIC);
    entries[10].type = inner_id;
    everything_id =
        add(entries, sizeof entries / sizeof entries[0], NVTX_PAYLOAD_SCHEMA_TYPE_STATIC);
}

static void teardown(void) { nvtxw_schema_registry_destroy(registry); }

static const nvtxw_schema_t* find(uint64_t id) {
    return nvtxw_schema_registry_find_schema(registry, id);
}

/* A payload with every byte (padding too) set, then the fields. */
static everything sample(int64_t event_ts) {
    everything v;
    memset(&v, 0xA5, sizeof v);
    v.u8 = 255;
    v.i16 = INT16_MIN;
    v.u32 = UINT32_MAX;
    v.i64 = INT64_MIN;
    v.begin = event_ts;
    v.end = (uint64_t)event_ts - 5; /* before the event time: a negative delta */
    v.name = (uint64_t)SERIAL << 32 | 42;
    v.f = -1.5f;
    v.d = 6.02214076e23;
    v.arr[0] = -1, v.arr[1] = 0, v.arr[2] = INT32_MAX;
    v.nested.a = 65535, v.nested.b = -128;
    memcpy(v.text, "abcd", 5);
    return v;
}

START_TEST(layout_follows_the_struct) {
    field_plan plan;
    ck_assert_int_eq(field_plan_make(find(everything_id), &plan), 1);
    ck_assert_uint_eq(plan.static_size, sizeof(everything));
    /* u8 i16 u32 i64 begin end name, f and d raw (padding between), 3 ints,
     * a b, text raw */
    ck_assert_uint_eq(plan.op_count, 7 + 2 + 3 + 2 + 1);
    ck_assert_uint_eq(plan.ops[0].kind, FIELD_UVAR);
    ck_assert_uint_eq(plan.ops[1].kind, FIELD_SVAR);
    ck_assert_uint_eq(plan.ops[1].offset, offsetof(everything, i16));
    ck_assert_uint_eq(plan.ops[4].kind, FIELD_TS);
    ck_assert_uint_eq(plan.ops[5].kind, FIELD_TS);
    ck_assert_uint_eq(plan.ops[6].kind, FIELD_HANDLE);
    ck_assert_uint_eq(plan.ops[7].kind, FIELD_RAW);
    ck_assert_uint_eq(plan.ops[7].offset, offsetof(everything, f));
    ck_assert_uint_eq(plan.ops[7].size, sizeof(float));
    ck_assert_uint_eq(plan.ops[8].offset, offsetof(everything, d));
    ck_assert_uint_eq(plan.ops[11].kind, FIELD_SVAR);
    ck_assert_uint_eq(plan.ops[11].offset, offsetof(everything, arr) + 8);
    ck_assert_uint_eq(plan.ops[12].offset, offsetof(everything, nested));
    ck_assert_uint_eq(plan.ops[12].kind, FIELD_UVAR);
    ck_assert_uint_eq(plan.ops[13].kind, FIELD_SVAR);
    ck_assert_uint_eq(plan.ops[14].kind, FIELD_RAW);
    ck_assert_uint_eq(plan.ops[14].size, 5);
}
END_TEST

/* field_encode_lanes writes the bytes of field_encode, dealt out to the
 * lanes (field k to lane min(k, FIELD_LANES - 1)): the lanes one after
 * another are the single encoding. */
static void lanes_are_the_fields(const field_plan* plan, const everything* in, int64_t ts,
                                 const uint8_t* single, size_t size) {
    uint8_t lanes[FIELD_LANES][512], joined[FIELD_LANES * 512];
    uint8_t* at[FIELD_LANES];
    size_t n = 0;
    for (unsigned k = 0; k < FIELD_LANES; k++)
        at[k] = lanes[k];
    ck_assert_int_eq(field_encode_lanes(plan, (const uint8_t*)in, ts, SERIAL, at), 0);
    for (unsigned k = 0; k < FIELD_LANES; k++) {
        size_t used = (size_t)(at[k] - lanes[k]);
        if (k < FIELD_LANES - 1 && k < plan->op_count)
            ck_assert_uint_ge(used, 1); /* one field each */
        memcpy(joined + n, lanes[k], used);
        n += used;
    }
    ck_assert_uint_eq(n, size);
    ck_assert_mem_eq(joined, single, size);
    /* and field_decode_lanes reads them back as field_decode reads the one */
    {
        field_input inputs[FIELD_LANES];
        everything from_lanes, from_one;
        const uint8_t* p = single;
        const char* problem = NULL;
        for (unsigned k = 0; k < FIELD_LANES; k++) {
            inputs[k].p = lanes[k];
            inputs[k].end = at[k];
        }
        memset(&from_lanes, 0x33, sizeof from_lanes);
        ck_assert_int_eq(
            field_decode_lanes(plan, inputs, ts, SERIAL, (uint8_t*)&from_lanes, &problem), 0);
        for (unsigned k = 0; k < FIELD_LANES; k++)
            ck_assert_ptr_eq(inputs[k].p, at[k]); /* each lane read to its end */
        ck_assert_int_eq(
            field_decode(plan, &p, single + size, ts, SERIAL, (uint8_t*)&from_one, &problem), 0);
        ck_assert_mem_eq(&from_lanes, &from_one, sizeof from_one);
    }
}

START_TEST(round_trip_restores_every_field) {
    static const int64_t times[] = {0, 1, -1, INT64_MAX, INT64_MIN, 259200000000000};
    field_plan plan;
    ck_assert_int_eq(field_plan_make(find(everything_id), &plan), 1);
    for (size_t t = 0; t < sizeof times / sizeof times[0]; t++) {
        everything in = sample(times[t]), out, fast, want = in;
        uint8_t buf[512];
        const uint8_t* p = buf;
        const char* problem = NULL;
        uint8_t* end = field_encode(&plan, (const uint8_t*)&in, times[t], SERIAL, buf);
        ck_assert_ptr_nonnull(end);
        ck_assert_uint_le((size_t)(end - buf), plan.bound);
        lanes_are_the_fields(&plan, &in, times[t], buf, (size_t)(end - buf));
        /* the event time itself costs one byte, whatever its value */
        memset(&out, 0xA5, sizeof out); /* padding must come back zero, not as it was */
        ck_assert_int_eq(field_decode(&plan, &p, end, times[t], SERIAL, (uint8_t*)&out, &problem),
                         0);
        ck_assert_ptr_eq(p, end);
        /* the same through the unchecked fast path (room for plan.bound bytes) */
        ck_assert_uint_le(plan.bound, sizeof buf);
        p = buf;
        memset(&fast, 0x5A, sizeof fast);
        ck_assert_int_eq(
            field_decode(&plan, &p, buf + sizeof buf, times[t], SERIAL, (uint8_t*)&fast, &problem),
            0);
        ck_assert_ptr_eq(p, end);
        ck_assert_mem_eq(&fast, &out, sizeof out);
        /* padding reads back as zero: compare against the zero-padded struct */
        memset(&want, 0, sizeof want);
        want.u8 = in.u8, want.i16 = in.i16, want.u32 = in.u32, want.i64 = in.i64;
        want.begin = in.begin, want.end = in.end, want.name = in.name, want.f = in.f;
        want.d = in.d;
        memcpy(want.arr, in.arr, sizeof in.arr);
        want.nested.a = in.nested.a, want.nested.b = in.nested.b;
        memcpy(want.text, in.text, sizeof in.text);
        ck_assert_mem_eq(&out, &want, sizeof want);
    }
}
END_TEST

START_TEST(small_values_are_small) {
    everything in;
    field_plan plan;
    uint8_t buf[512];
    memset(&in, 0, sizeof in);
    in.begin = 1000;
    in.end = 1003;
    in.name = (uint64_t)SERIAL << 32 | 3;
    ck_assert_int_eq(field_plan_make(find(everything_id), &plan), 1);
    /* 12 one-byte varints (u8..name, arr x3, a, b) + 12 raw float bytes + 5 text bytes */
    ck_assert_uint_eq((size_t)(field_encode(&plan, (const uint8_t*)&in, 1000, SERIAL, buf) - buf),
                      12 + 12 + 5);
}
END_TEST

START_TEST(foreign_handle_refused) {
    everything in = sample(0);
    field_plan plan;
    uint8_t buf[512];
    ck_assert_int_eq(field_plan_make(find(everything_id), &plan), 1);
    in.name = (uint64_t)(SERIAL + 1) << 32 | 42; /* another domain's */
    ck_assert_ptr_null(field_encode(&plan, (const uint8_t*)&in, 0, SERIAL, buf));
    in.name = (uint64_t)SERIAL << 32; /* index 0 is not a handle */
    ck_assert_ptr_null(field_encode(&plan, (const uint8_t*)&in, 0, SERIAL, buf));
    in.name = 0; /* none */
    ck_assert_ptr_nonnull(field_encode(&plan, (const uint8_t*)&in, 0, SERIAL, buf));
}
END_TEST

START_TEST(decoder_refuses_bad_bytes) {
    everything in = sample(77), out;
    field_plan plan;
    uint8_t buf[512];
    const uint8_t* p;
    const char* problem;
    size_t n, cut;
    ck_assert_int_eq(field_plan_make(find(everything_id), &plan), 1);
    n = (size_t)(field_encode(&plan, (const uint8_t*)&in, 77, SERIAL, buf) - buf);
    for (cut = 0; cut < n; cut++) {
        p = buf;
        problem = NULL;
        ck_assert_int_eq(field_decode(&plan, &p, buf + cut, 77, SERIAL, (uint8_t*)&out, &problem),
                         -1);
        ck_assert_ptr_nonnull(problem);
    }
    /* u8 field holding 256, through the checked and the fast path */
    buf[0] = 0x80, buf[1] = 0x02;
    p = buf, problem = NULL;
    ck_assert_int_eq(field_decode(&plan, &p, buf + n, 77, SERIAL, (uint8_t*)&out, &problem), -1);
    ck_assert_str_eq(problem, "payload field value exceeds its type");
    p = buf, problem = NULL;
    ck_assert_int_eq(
        field_decode(&plan, &p, buf + sizeof buf, 77, SERIAL, (uint8_t*)&out, &problem), -1);
    ck_assert_str_eq(problem, "payload field value exceeds its type");
    /* a varint of eleven bytes in the first field, fast path */
    memset(buf, 0x80, 11);
    p = buf, problem = NULL;
    ck_assert_int_eq(
        field_decode(&plan, &p, buf + sizeof buf, 77, SERIAL, (uint8_t*)&out, &problem), -1);
    ck_assert_str_eq(problem, "bad varint in a payload field");
}
END_TEST

START_TEST(handle_index_beyond_32_bits_refused) {
    static nvtxPayloadSchemaEntry_t entries[] = {E(NVTX_REGISTERED_STRING_HANDLE, "h")};
    uint8_t buf[16] = {0x80, 0x80, 0x80, 0x80, 0x10}; /* 2^32 */
    uint64_t out;
    const uint8_t* p = buf;
    const char* problem = NULL;
    field_plan plan;
    ck_assert_int_eq(field_plan_make(find(add(entries, 1, NVTX_PAYLOAD_SCHEMA_TYPE_STATIC)), &plan),
                     1);
    ck_assert_int_eq(field_decode(&plan, &p, buf + 5, 0, SERIAL, (uint8_t*)&out, &problem), -1);
    ck_assert_str_eq(problem, "string handle index exceeds 32 bits");
}
END_TEST

START_TEST(ineligible_schemas) {
    static nvtxPayloadSchemaEntry_t pointer[] = {
        E_FLAGS(NVTX_PAYLOAD_ENTRY_FLAG_POINTER, INT32, "p")};
    static nvtxPayloadSchemaEntry_t string[] = {{NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_ZERO_TERMINATED,
                                                 NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF8, "s", NULL, 0,
                                                 0, NULL, NULL}};
    static nvtxPayloadSchemaEntry_t many[FIELD_MAX_OPS + 1];
    field_plan plan;
    for (size_t i = 0; i < FIELD_MAX_OPS + 1; i++) {
        many[i].type = NVTX_PAYLOAD_ENTRY_TYPE_INT32;
        many[i].name = "x";
    }
    ck_assert_int_eq(field_plan_make(find(add(pointer, 1, NVTX_PAYLOAD_SCHEMA_TYPE_STATIC)), &plan),
                     0);
    ck_assert_int_eq(field_plan_make(find(add(string, 1, NVTX_PAYLOAD_SCHEMA_TYPE_DYNAMIC)), &plan),
                     0);
    ck_assert_int_eq(
        field_schema_is_inline_string(find(add(string, 1, NVTX_PAYLOAD_SCHEMA_TYPE_DYNAMIC))), 1);
    ck_assert_int_eq(
        field_plan_make(find(add(many, FIELD_MAX_OPS + 1, NVTX_PAYLOAD_SCHEMA_TYPE_STATIC)), &plan),
        0);
    ck_assert_int_eq(
        field_plan_make(find(add(many, FIELD_MAX_OPS, NVTX_PAYLOAD_SCHEMA_TYPE_STATIC)), &plan), 1);
}
END_TEST

/* The reference LEB128 encoder: the loop the spec describes. */
static size_t leb128(uint8_t* out, uint64_t value) {
    size_t n = 0;
    do {
        out[n] = (uint8_t)(value & 0x7F);
        value >>= 7;
        if (value != 0)
            out[n] |= 0x80;
        n++;
    } while (value != 0);
    return n;
}

START_TEST(varint_every_length) {
    for (unsigned bits = 0; bits <= 64; bits++) {
        static const uint64_t offsets[] = {0, 1, 0x55, 0x7F};
        for (size_t k = 0; k < 4; k++) {
            uint64_t top = bits == 0 ? 0 : bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
            uint64_t value = top ^ offsets[k], back = 0;
            uint8_t got[VARINT_MAX_BYTES + 8], want[VARINT_MAX_BYTES];
            size_t n = varint_put(got, value), m = leb128(want, value);
            const uint8_t* p = got;
            ck_assert_uint_eq(n, m);
            ck_assert_mem_eq(got, want, n);
            ck_assert_int_eq(varint_get(&p, got + n, &back), 0);
            ck_assert_uint_eq(back, value);
            /* the wide store: the same bytes and length, whatever it left
             * past them */
            memset(got, 0xA5, sizeof got);
            ck_assert_uint_eq(varint_put_wide(got, value), m);
            ck_assert_mem_eq(got, want, m);
        }
    }
}
END_TEST

/* varint_put_wide against the LEB128 loop on random values of every bit
 * length (its branch-free spreading of 7-bit groups, 2 to 8 bytes). */
START_TEST(varint_wide_matches_loop) {
    uint64_t state = 0x2545F4914F6CDD1Du;
    for (unsigned round = 0; round < 100000; round++) {
        unsigned bits = 1 + round % 64;
        uint64_t value;
        uint8_t got[VARINT_MAX_BYTES], want[VARINT_MAX_BYTES];
        size_t m;
        state = state * 6364136223846793005u + 1442695040888963407u;
        value = (state >> (64 - bits)) | (UINT64_C(1) << (bits - 1));
        m = leb128(want, value);
        ck_assert_uint_eq(varint_put_wide(got, value), m);
        ck_assert_mem_eq(got, want, m);
    }
}
END_TEST

/* varint_get_unbounded (the readers' fast path) against varint_get over
 * bytes of every kind: the same verdict, value and length. Bytes are drawn
 * mostly with the continuation bit, so every length up to 11 and the
 * tenth-byte rule are hit. */
START_TEST(varint_unbounded_matches_bounded) {
    uint64_t state = 0x9E3779B97F4A7C15u;
    for (unsigned round = 0; round < 200000; round++) {
        uint8_t bytes[VARINT_MAX_BYTES + 8];
        const uint8_t *p = bytes, *q = bytes;
        uint64_t a = 0, b = 0;
        unsigned length = round % 12, i;
        int ra, rb;
        for (i = 0; i < sizeof bytes; i++) {
            state = state * 6364136223846793005u + 1442695040888963407u;
            bytes[i] = (uint8_t)(state >> 56);
            bytes[i] = i < length ? (uint8_t)(bytes[i] | 0x80) : bytes[i];
        }
        if (length == 10)
            bytes[9] = (uint8_t)(round & 3); /* a tenth byte of 0..3 */
        ra = varint_get(&p, bytes + sizeof bytes, &a);
        rb = varint_get_unbounded(&q, &b);
        ck_assert_int_eq(ra, rb);
        if (ra == 0) {
            ck_assert_uint_eq(a, b);
            ck_assert_ptr_eq(p, q);
        }
    }
    for (unsigned bits = 0; bits <= 64; bits++) {
        uint64_t value = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1, back = 0;
        uint8_t got[VARINT_MAX_BYTES + 8];
        const uint8_t* p = got;
        size_t n;
        memset(got, 0xFF, sizeof got);
        n = varint_put(got, value);
        ck_assert_int_eq(varint_get_unbounded(&p, &back), 0);
        ck_assert_uint_eq(back, value);
        ck_assert_ptr_eq(p, got + n);
    }
}
END_TEST

/* field_decode_lanes_unchecked (the reader's fast path: no end checks)
 * against field_decode_lanes: on
 * lanes encoded from random payloads of the `everything` layout, the same
 * bytes and lane positions; on random lane bytes, the same verdict. */
static uint64_t next_random(uint64_t* state) {
    *state = *state * 6364136223846793005u + 1442695040888963407u;
    return *state ^ (*state >> 29);
}

static void decode_both(const field_plan* plan, uint8_t lanes[FIELD_LANES][600],
                        const size_t used[FIELD_LANES], int64_t ts, int encoded) {
    field_input checked[FIELD_LANES], fast[FIELD_LANES];
    uint8_t a[sizeof(everything) + 8], b[sizeof(everything) + 8];
    const char *pa = NULL, *pb = NULL;
    int ra, rb;
    for (unsigned k = 0; k < FIELD_LANES; k++) {
        checked[k].p = fast[k].p = lanes[k];
        checked[k].end = lanes[k] + used[k];
        fast[k].end = lanes[k] + 600;
    }
    memset(a, 0x11, sizeof a);
    memset(b, 0x22, sizeof b);
    ra = field_decode_lanes(plan, checked, ts, SERIAL, a, &pa);
    rb = field_decode_lanes_unchecked(plan, fast, ts, SERIAL, b, &pb);
    if (encoded)
        ck_assert_int_eq(ra, 0);
    ck_assert_int_eq(ra, rb);
    if (ra != 0) {
        ck_assert_ptr_nonnull(pb);
        return;
    }
    ck_assert_mem_eq(a, b, plan->static_size);
    for (unsigned k = 0; k < FIELD_LANES; k++)
        ck_assert_ptr_eq(checked[k].p, fast[k].p);
}

START_TEST(unchecked_lanes_match_checked) {
    field_plan plan;
    uint64_t state = 12345;
    ck_assert_int_eq(field_plan_make(find(everything_id), &plan), 1);
    ck_assert_uint_le(plan.bound, 600);
    for (int round = 0; round < 20000; round++) {
        uint8_t lanes[FIELD_LANES][600];
        uint8_t* at[FIELD_LANES];
        size_t used[FIELD_LANES];
        int64_t ts = (int64_t)next_random(&state) >> (next_random(&state) % 64);
        everything in;
        for (size_t i = 0; i < sizeof in; i += 8) {
            uint64_t r = next_random(&state) >> (next_random(&state) % 64);
            memcpy((uint8_t*)&in + i, &r, sizeof in - i < 8 ? sizeof in - i : 8);
        }
        if (round % 3 == 0)
            in.begin = ts, in.end = (uint64_t)ts + round; /* the common shapes */
        in.name = round % 5 == 0 ? 0 : (uint64_t)SERIAL << 32 | (1 + (uint32_t)round);
        for (unsigned k = 0; k < FIELD_LANES; k++) {
            for (size_t i = 0; i < 600; i++)
                lanes[k][i] = (uint8_t)next_random(&state);
            at[k] = lanes[k];
        }
        if (round % 2 == 0) { /* encoded lanes (random bytes after them) */
            ck_assert_int_eq(field_encode_lanes(&plan, (const uint8_t*)&in, ts, SERIAL, at), 0);
            for (unsigned k = 0; k < FIELD_LANES; k++)
                used[k] = (size_t)(at[k] - lanes[k]);
            decode_both(&plan, lanes, used, ts, 1);
        } else { /* random bytes: often malformed */
            for (unsigned k = 0; k < FIELD_LANES; k++) {
                if (round % 4 == 1)
                    for (size_t i = 0; i < 600; i++)
                        lanes[k][i] &= 0x83; /* short varints, mostly valid */
                used[k] = plan.bound;
            }
            decode_both(&plan, lanes, used, ts, 0);
        }
    }
}
END_TEST

/* Runs (field_decode_run_unchecked, the reader's column-wise decoding of
 * records of one schema) against the same records decoded one by one with
 * field_decode_lanes_unchecked: two layouts of at most FIELD_LANES fields
 * that between them take every field code (raw, unsigned and signed of
 * every width, timestamp, handle), runs of 1 to 40 records with their own
 * event times. Encoded lanes give the same bytes and lane positions; random
 * lane bytes give a failure exactly when one of the records fails alone. */
typedef struct six {
    uint8_t u8;
    int16_t i16;
    uint32_t u32;
    int64_t begin; /* TIMESTAMP */
    uint64_t name; /* registered string handle */
    double d;      /* raw */
} six;

typedef struct five {
    int8_t i8;
    uint16_t u16;
    int32_t i32;
    uint64_t u64;
    int64_t i64;
} five;

#define RUN_RECORDS 40
#define RUN_STRIDE 64 /* a record's event time, then its payload */

static void run_against_records(const field_plan* plan, uint64_t* state, int encoded) {
    static uint8_t lanes[FIELD_LANES][RUN_RECORDS * 80];
    uint8_t by_record[RUN_RECORDS][RUN_STRIDE], by_run[RUN_RECORDS][RUN_STRIDE];
    field_input one[FIELD_LANES], run_lanes[FIELD_LANES];
    size_t count = 1 + next_random(state) % RUN_RECORDS, r;
    const char *problem_one = NULL, *problem_run = NULL;
    int failed_one = 0, status;
    uint8_t* at[FIELD_LANES];
    field_run run = {by_run[0] + 8, by_run[0], RUN_STRIDE, count};
    ck_assert_uint_le(plan->static_size, RUN_STRIDE - 8);
    for (unsigned k = 0; k < FIELD_LANES; k++) {
        for (size_t i = 0; i < sizeof lanes[k]; i++)
            lanes[k][i] = (uint8_t)(encoded ? next_random(state) : next_random(state) & 0x83);
        at[k] = lanes[k];
    }
    memset(by_record, 0x11, sizeof by_record);
    memset(by_run, 0x22, sizeof by_run);
    for (r = 0; r < count; r++) {
        int64_t ts = (int64_t)next_random(state) >> (next_random(state) % 64);
        uint8_t payload[RUN_STRIDE];
        for (size_t i = 0; i < sizeof payload; i++)
            payload[i] = (uint8_t)(next_random(state) >> (next_random(state) % 8 * 8));
        if (plan->static_size == sizeof(six)) {
            six v;
            memcpy(&v, payload, sizeof v);
            v.name = r % 3 == 0 ? 0 : (uint64_t)SERIAL << 32 | (1 + (uint32_t)r);
            if (r % 2 == 0)
                v.begin = ts + (int64_t)r;
            memcpy(payload, &v, sizeof v);
        }
        memcpy(by_record[r], &ts, 8);
        memcpy(by_run[r], &ts, 8);
        if (encoded)
            ck_assert_int_eq(field_encode_lanes(plan, payload, ts, SERIAL, at), 0);
    }
    for (unsigned k = 0; k < FIELD_LANES; k++) {
        one[k].p = run_lanes[k].p = lanes[k];
        one[k].end = run_lanes[k].end = lanes[k] + sizeof lanes[k];
    }
    for (r = 0; r < count && !failed_one; r++) {
        int64_t ts;
        memcpy(&ts, by_record[r], 8);
        failed_one = field_decode_lanes_unchecked(plan, one, ts, SERIAL, by_record[r] + 8,
                                                  &problem_one) != 0;
    }
    status = field_decode_run_unchecked(plan, run_lanes, &run, SERIAL, &problem_run);
    if (encoded)
        ck_assert_int_eq(failed_one, 0);
    ck_assert_int_eq(status != 0, failed_one);
    if (failed_one) {
        ck_assert_ptr_nonnull(problem_run);
        return;
    }
    for (r = 0; r < count; r++)
        ck_assert_mem_eq(by_record[r] + 8, by_run[r] + 8, plan->static_size);
    for (unsigned k = 0; k < FIELD_LANES; k++)
        ck_assert_ptr_eq(one[k].p, run_lanes[k].p);
}

START_TEST(runs_match_records) {
    static const nvtxPayloadSchemaEntry_t six_entries[] = {
        E(UINT8, "u8"),
        E(INT16, "i16"),
        E(UINT32, "u32"),
        E_FLAGS(NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP, INT64, "begin"),
        E(NVTX_REGISTERED_STRING_HANDLE, "name"),
        E(DOUBLE, "d"),
    };
    static const nvtxPayloadSchemaEntry_t five_entries[] = {
        E(INT8, "i8"), E(UINT16, "u16"), E(INT32, "i32"), E(UINT64, "u64"), E(INT64, "i64"),
    };
    field_plan plans[2];
    uint64_t state = 777;
    ck_assert_int_eq(
        field_plan_make(find(add(six_entries, 6, NVTX_PAYLOAD_SCHEMA_TYPE_STATIC)), &plans[0]), 1);
    ck_assert_int_eq(
        field_plan_make(find(add(five_entries, 5, NVTX_PAYLOAD_SCHEMA_TYPE_STATIC)), &plans[1]), 1);
    ck_assert_uint_eq(plans[0].static_size, sizeof(six));
    ck_assert_uint_eq(plans[1].static_size, sizeof(five));
    for (int p = 0; p < 2; p++) {
        ck_assert(field_plan_decodes_runs(&plans[p]));
        ck_assert_uint_le(plans[p].bound, 80);
    }
    for (int round = 0; round < 6000; round++)
        run_against_records(&plans[round % 2], &state, round % 3 != 0);
    /* a layout whose fields share a lane is refused, not misread */
    {
        field_plan plan;
        field_input lanes[FIELD_LANES];
        uint8_t out[sizeof(everything) + 8];
        memset(lanes, 0, sizeof lanes);
        const char* problem = NULL;
        field_run run = {out + 8, out, sizeof out, 1};
        ck_assert_int_eq(field_plan_make(find(everything_id), &plan), 1);
        ck_assert(!field_plan_decodes_runs(&plan));
        ck_assert_int_eq(field_decode_run_unchecked(&plan, lanes, &run, SERIAL, &problem), -1);
        ck_assert_ptr_nonnull(problem);
    }
}
END_TEST

int main(void) {
    Suite* s = suite_create("field_codec");
    TCase* tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, layout_follows_the_struct);
    tcase_add_test(tc, round_trip_restores_every_field);
    tcase_add_test(tc, small_values_are_small);
    tcase_add_test(tc, foreign_handle_refused);
    tcase_add_test(tc, decoder_refuses_bad_bytes);
    tcase_add_test(tc, handle_index_beyond_32_bits_refused);
    tcase_add_test(tc, ineligible_schemas);
    tcase_add_test(tc, varint_every_length);
    tcase_add_test(tc, varint_wide_matches_loop);
    tcase_add_test(tc, varint_unbounded_matches_bounded);
    tcase_add_test(tc, unchecked_lanes_match_checked);
    tcase_add_test(tc, runs_match_records);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
