/*
 * payload/field_codec.c - plans of the "fields" payload encoding
 * (field_codec.h) and the encoder and decoder that follow them.
 *
 * Plans are made from the finalized layout (registry_internal.h), so they
 * depend only on the schema as registered: the writer and every reader make
 * the same plan. Changing what a plan contains changes the report format;
 * docs/report-records.md states the rules this file implements.
 */
#include "config.h"

#include <string.h>

#include "common/varint.h"
#include "payload/field_codec.h"
#include "payload/registry_internal.h"

/* Inlined into each caller (GCC and Clang): the encoder's and decoder's
 * per-field steps, and the decoder's two variants (checked, unchecked). */
#if defined(__GNUC__)
#define FIELD_SPECIALIZE inline __attribute__((always_inline))
#else
#define FIELD_SPECIALIZE inline
#endif

/* Fixed-size integer arrays longer than this (and arrays of 1-byte
 * integers) are stored raw. */
#define FIELD_MAX_ARRAY 16
#define FIELD_MAX_NESTING 8

/* field_op.code: what the encoder switches on. */
enum {
    CODE_RAW,
    CODE_U8,
    CODE_U16,
    CODE_U32,
    CODE_U64,
    CODE_S8,
    CODE_S16,
    CODE_S32,
    CODE_S64,
    CODE_TS,
    CODE_HANDLE
};

static uint8_t op_code(uint8_t kind, uint32_t size) {
    unsigned log2 = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : 3;
    switch (kind) {
    case FIELD_UVAR:
        return (uint8_t)(CODE_U8 + log2);
    case FIELD_SVAR:
        return (uint8_t)(CODE_S8 + log2);
    case FIELD_TS:
        return CODE_TS;
    case FIELD_HANDLE:
        return CODE_HANDLE;
    default:
        return CODE_RAW;
    }
}

typedef struct plan_builder {
    field_plan* plan;
    uint32_t end; /* first byte after the last operation */
    int failed;
} plan_builder;

static void add_op(plan_builder* b, uint8_t kind, size_t offset, size_t size) {
    field_plan* plan = b->plan;
    field_op* last = plan->op_count ? &plan->ops[plan->op_count - 1] : NULL;
    if (b->failed)
        return;
    /* Operations must follow each other without overlap (entries of a
     * STATIC schema are laid out in order; explicit offsets could differ). */
    if (offset < b->end || size == 0 || offset > UINT32_MAX - size) {
        b->failed = 1;
        return;
    }
    if (kind == FIELD_RAW && last != NULL && last->kind == FIELD_RAW &&
        last->offset + last->size == offset) {
        last->size += (uint32_t)size;
    } else if (plan->op_count == FIELD_MAX_OPS) {
        b->failed = 1;
        return;
    } else {
        plan->ops[plan->op_count].kind = kind;
        plan->ops[plan->op_count].code = op_code(kind, (uint32_t)size);
        plan->ops[plan->op_count].offset = (uint32_t)offset;
        plan->ops[plan->op_count].size = (uint32_t)size;
        plan->ops[plan->op_count].lane =
            (uint8_t)(plan->op_count < FIELD_LANES ? plan->op_count : FIELD_LANES - 1);
        plan->op_count++;
    }
    b->end = (uint32_t)(offset + size);
}

static int integer_size(size_t size) { return size == 1 || size == 2 || size == 4 || size == 8; }

/* The operation of one scalar element, FIELD_RAW when it is not an integer. */
static uint8_t scalar_kind(const nvtxPayloadSchemaEntry_t* e, const finalized_entry_t* fe) {
    if (!integer_size(fe->element_size))
        return FIELD_RAW;
    if (fe->kind == ENTRY_KIND_ENUM)
        return FIELD_UVAR;
    if (fe->kind != ENTRY_KIND_PREDEFINED)
        return FIELD_RAW;
    switch (fe->info->category) {
    case ENTRY_CAT_HANDLE:
        return fe->element_size == 8 ? FIELD_HANDLE : FIELD_RAW;
    case ENTRY_CAT_SIGNED:
    case ENTRY_CAT_UNSIGNED:
        if (fe->element_size == 8 && (e->flags & NVTXW_PAYLOAD_ENTRY_FLAG_SEMANTIC_MASK) ==
                                         NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP)
            return FIELD_TS;
        return fe->info->category == ENTRY_CAT_SIGNED ? FIELD_SVAR : FIELD_UVAR;
    case ENTRY_CAT_SELECTOR:
        return FIELD_UVAR;
    default:
        return FIELD_RAW;
    }
}

static void plan_schema(plan_builder* b, const nvtxw_schema_t* schema, size_t base, unsigned depth);

static void plan_entry(plan_builder* b, const nvtxw_schema_t* schema, size_t i, size_t base,
                       unsigned depth) {
    const nvtxPayloadSchemaEntry_t* e = &schema->entries[i];
    const finalized_entry_t* fe = &schema->fin[i];
    size_t offset = base + fe->offset, count, k;
    uint8_t kind;
    if (fe->form != ENTRY_FORM_INLINE || fe->runtime || fe->offset == SIZE_MAX ||
        (fe->array != 0 && fe->array != NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_FIXED_SIZE &&
         fe->kind != ENTRY_KIND_STRING)) {
        b->failed = 1;
        return;
    }
    if (fe->inline_size == 0)
        return;
    count = fe->element_size ? fe->inline_size / fe->element_size : 0;
    if (fe->kind == ENTRY_KIND_NESTED && fe->nested->attr.type == NVTX_PAYLOAD_SCHEMA_TYPE_STATIC &&
        count <= FIELD_MAX_ARRAY) {
        for (k = 0; k < count && !b->failed; k++)
            plan_schema(b, fe->nested, offset + k * fe->element_size, depth + 1);
        return;
    }
    kind = fe->kind == ENTRY_KIND_STRING ? FIELD_RAW : scalar_kind(e, fe);
    /* arrays of bytes (char buffers) gain nothing from varints */
    if (kind == FIELD_RAW || count > FIELD_MAX_ARRAY || (count > 1 && fe->element_size == 1) ||
        count * fe->element_size != fe->inline_size) {
        add_op(b, FIELD_RAW, offset, fe->inline_size);
        return;
    }
    for (k = 0; k < count; k++)
        add_op(b, kind, offset + k * fe->element_size, fe->element_size);
}

static void plan_schema(plan_builder* b, const nvtxw_schema_t* schema, size_t base,
                        unsigned depth) {
    size_t i;
    if (depth > FIELD_MAX_NESTING || schema->variable ||
        schema->attr.type != NVTX_PAYLOAD_SCHEMA_TYPE_STATIC) {
        b->failed = 1;
        return;
    }
    for (i = 0; i < schema->attr.numEntries && !b->failed; i++)
        plan_entry(b, schema, i, base, depth);
}

int field_plan_make(const nvtxw_schema_t* schema, field_plan* plan) {
    plan_builder b = {plan, 0, 0};
    uint64_t bound = 0, covered = 0;
    uint32_t i;
    memset(plan, 0, sizeof *plan);
    if (schema->static_size == 0 || schema->static_size > UINT32_MAX / 2)
        return 0;
    plan_schema(&b, schema, 0, 0);
    if (b.failed || b.end > schema->static_size)
        return 0;
    plan->static_size = (uint32_t)schema->static_size;
    for (i = 0; i < plan->op_count; i++) {
        uint32_t most = plan->ops[i].kind == FIELD_RAW ? plan->ops[i].size : VARINT_MAX_BYTES;
        bound += most;
        covered += plan->ops[i].size;
    }
    plan->bound = (uint32_t)bound;
    plan->has_gaps = covered != plan->static_size;
    return 1;
}

int field_schema_is_inline_string(const nvtxw_schema_t* schema) {
    const nvtxPayloadSchemaEntry_t* e;
    if (schema->attr.type != NVTX_PAYLOAD_SCHEMA_TYPE_DYNAMIC || schema->attr.numEntries != 1)
        return 0;
    e = &schema->entries[0];
    return (e->type == NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF8 ||
            e->type == NVTX_PAYLOAD_ENTRY_TYPE_CSTRING) &&
           NVTXW_PAYLOAD_ENTRY_ARRAY_KIND(e->flags) ==
               NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_ZERO_TERMINATED &&
           (e->flags & (NVTX_PAYLOAD_ENTRY_FLAG_POINTER | NVTX_PAYLOAD_ENTRY_FLAG_OFFSET_FROM_BASE |
                        NVTX_PAYLOAD_ENTRY_FLAG_OFFSET_FROM_HERE)) == 0 &&
           e->arrayOrUnionDetail == 0;
}

/* ---- Encoding ----------------------------------------------------------- */

/* One field at `out` (room for the plan's bound from there on: the wide
 * varint stores may write past the field); returns the end of its bytes,
 * or NULL for a handle that cannot be restored. One dispatch per field, on
 * its combined kind and size (field_op.code). */
static FIELD_SPECIALIZE uint8_t* encode_op(const field_op* op, const uint8_t* payload,
                                           int64_t event_ts, uint32_t serial, uint8_t* out) {
    const uint8_t* at = payload + op->offset;
    uint16_t u16;
    uint32_t u32;
    uint64_t v;
    switch (op->code) {
    case CODE_U8:
        return out + varint_put_wide(out, at[0]);
    case CODE_U16:
        memcpy(&u16, at, 2);
        return out + varint_put_wide(out, u16);
    case CODE_U32:
        memcpy(&u32, at, 4);
        return out + varint_put_wide(out, u32);
    case CODE_U64:
        memcpy(&v, at, 8);
        return out + varint_put_wide(out, v);
    case CODE_S8:
        return out + varint_put_wide(out, varint_zigzag((int8_t)at[0]));
    case CODE_S16:
        memcpy(&u16, at, 2);
        return out + varint_put_wide(out, varint_zigzag((int16_t)u16));
    case CODE_S32:
        memcpy(&u32, at, 4);
        return out + varint_put_wide(out, varint_zigzag((int32_t)u32));
    case CODE_S64:
        memcpy(&v, at, 8);
        return out + varint_put_wide(out, varint_zigzag((int64_t)v));
    case CODE_TS:
        memcpy(&v, at, 8);
        return out + varint_put_wide(out, varint_zigzag((int64_t)(v - (uint64_t)event_ts)));
    case CODE_HANDLE:
        memcpy(&v, at, 8);
        if (!field_handle_restorable(v, serial))
            return NULL; /* not a handle of this domain: cannot be restored */
        return out + varint_put_wide(out, v & 0xFFFFFFFFu);
    default:
        memcpy(out, at, op->size);
        return out + op->size;
    }
}

int field_encode_lanes(const field_plan* plan, const uint8_t* payload, int64_t event_ts,
                       uint32_t serial, uint8_t* lanes[FIELD_LANES]) {
    const field_op *op = plan->ops, *end = op + plan->op_count;
    uint8_t** lane = lanes;
    uint8_t* out;
    /* field k < FIELD_LANES - 1 takes lane k, the others share the last */
    for (; op < end && lane < lanes + FIELD_LANES - 1; op++, lane++) {
        if ((out = encode_op(op, payload, event_ts, serial, *lane)) == NULL)
            return -1;
        *lane = out;
    }
    for (out = *lane; op < end; op++)
        if ((out = encode_op(op, payload, event_ts, serial, out)) == NULL)
            return -1;
    *lane = out;
    return 0;
}

uint8_t* field_encode(const field_plan* plan, const uint8_t* payload, int64_t event_ts,
                      uint32_t serial, uint8_t* out) {
    uint32_t k;
    for (k = 0; k < plan->op_count && out != NULL; k++)
        out = encode_op(&plan->ops[k], payload, event_ts, serial, out);
    return out;
}

/* ---- Decoding ----------------------------------------------------------- */

/* A uvar with a branch-free path for the one-byte values of most fields. */
static inline int get_uvar(const uint8_t** p, const uint8_t* end, uint64_t* v) {
    if (*p < end && **p < 0x80) {
        *v = *(*p)++;
        return 0;
    }
    return varint_get(p, end, v);
}

static inline void store16(uint8_t* at, uint64_t v) {
    uint16_t x = (uint16_t)v;
    memcpy(at, &x, 2);
}
static inline void store32(uint8_t* at, uint64_t v) {
    uint32_t x = (uint32_t)v;
    memcpy(at, &x, 4);
}

/* A signed value of `bits` (8, 16 or 32) bits: in range? */
static inline int fits_signed(int64_t v, unsigned bits) {
    return v >= -((int64_t)1 << (bits - 1)) && v < ((int64_t)1 << (bits - 1));
}

/* Decodes the plan's operations from `inputs`: every field from inputs[0]
 * when `single`, else field k from lane min(k, FIELD_LANES - 1). `single`
 * and `checked` are constants at each call site: checked 1 bounds every
 * read by its input's end, 0 is the fast path for inputs known to hold
 * plan->bound bytes. */
static FIELD_SPECIALIZE int decode_ops(const field_plan* plan, field_input* inputs,
                                       int64_t event_ts, uint32_t serial, uint8_t* out,
                                       const char** problem, int single, int checked) {
    uint32_t k;
    for (k = 0; k < plan->op_count; k++) {
        const field_op* op = &plan->ops[k];
        field_input* in = single ? inputs : &inputs[op->lane];
        uint8_t* at = out + op->offset;
        uint64_t v;
        int64_t sv;
        if (op->code == CODE_RAW) {
            if (checked && (size_t)(in->end - in->p) < op->size)
                return *problem = "record ends inside a payload field", -1;
            memcpy(at, in->p, op->size);
            in->p += op->size;
            continue;
        }
        if (checked ? get_uvar(&in->p, in->end, &v) != 0 : varint_get_unbounded(&in->p, &v) != 0)
            return *problem = "bad varint in a payload field", -1;
        switch (op->code) {
        case CODE_U8:
            if (v > 0xFFu)
                goto too_big;
            *at = (uint8_t)v;
            break;
        case CODE_U16:
            if (v > 0xFFFFu)
                goto too_big;
            store16(at, v);
            break;
        case CODE_U32:
            if (v > 0xFFFFFFFFu)
                goto too_big;
            store32(at, v);
            break;
        case CODE_S8:
            sv = varint_unzigzag(v);
            if (!fits_signed(sv, 8))
                goto too_big;
            *at = (uint8_t)sv;
            break;
        case CODE_S16:
            sv = varint_unzigzag(v);
            if (!fits_signed(sv, 16))
                goto too_big;
            store16(at, (uint64_t)sv);
            break;
        case CODE_S32:
            sv = varint_unzigzag(v);
            if (!fits_signed(sv, 32))
                goto too_big;
            store32(at, (uint64_t)sv);
            break;
        case CODE_S64:
            v = (uint64_t)varint_unzigzag(v);
            memcpy(at, &v, 8);
            break;
        case CODE_TS:
            v = (uint64_t)varint_unzigzag(v) + (uint64_t)event_ts;
            memcpy(at, &v, 8);
            break;
        case CODE_HANDLE:
            if (v > 0xFFFFFFFFu)
                return *problem = "string handle index exceeds 32 bits", -1;
            if (v != 0)
                v |= (uint64_t)serial << 32;
            memcpy(at, &v, 8);
            break;
        default: /* CODE_U64 */
            memcpy(at, &v, 8);
            break;
        }
    }
    return 0;
too_big:
    return *problem = "payload field value exceeds its type", -1;
}

/* Whether each of the first `count` inputs holds the plan's most bytes. */
static inline int inputs_have_room(const field_plan* plan, const field_input* inputs,
                                   uint32_t count) {
    uint32_t k;
    for (k = 0; k < count; k++)
        if ((size_t)(inputs[k].end - inputs[k].p) < plan->bound)
            return 0;
    return 1;
}

int field_decode_lanes(const field_plan* plan, field_input lanes[FIELD_LANES], int64_t event_ts,
                       uint32_t serial, uint8_t* out, const char** problem) {
    if (plan->has_gaps)
        memset(out, 0, plan->static_size);
    if (inputs_have_room(plan, lanes, plan->op_count < FIELD_LANES ? plan->op_count : FIELD_LANES))
        return decode_ops(plan, lanes, event_ts, serial, out, problem, 0, 0);
    return decode_ops(plan, lanes, event_ts, serial, out, problem, 0, 1);
}

int field_decode_lanes_unchecked(const field_plan* plan, field_input lanes[FIELD_LANES],
                                 int64_t event_ts, uint32_t serial, uint8_t* out,
                                 const char** problem) {
    if (plan->has_gaps)
        memset(out, 0, plan->static_size);
    return decode_ops(plan, lanes, event_ts, serial, out, problem, 0, 0);
}

/* One field of every record of `run` from `in`: the value of record r is
 * decoded by `convert` (which may `goto too_big`) and stored at
 * at + r * stride. */
#define FOR_EACH_VALUE(convert)                                                                    \
    for (r = 0; r < run->count; r++, at += run->stride, times += run->stride) {                    \
        if (varint_get_unbounded(&in->p, &v) != 0)                                                 \
            goto bad_varint;                                                                       \
        convert;                                                                                   \
    }

int field_decode_run_unchecked(const field_plan* plan, field_input lanes[FIELD_LANES],
                               const field_run* run, uint32_t serial, const char** problem) {
    uint32_t k;
    size_t r;
    if (!field_plan_decodes_runs(plan))
        return *problem = "fields share a lane", -1;
    if (plan->has_gaps)
        for (r = 0; r < run->count; r++)
            memset(run->out + r * run->stride, 0, plan->static_size);
    for (k = 0; k < plan->op_count; k++) {
        const field_op* op = &plan->ops[k];
        field_input* in = &lanes[op->lane];
        uint8_t* at = run->out + op->offset;
        const uint8_t* times = run->times;
        uint64_t v;
        int64_t sv, t;
        switch (op->code) {
        case CODE_RAW:
            for (r = 0; r < run->count; r++, at += run->stride) {
                memcpy(at, in->p, op->size);
                in->p += op->size;
            }
            break;
        case CODE_U8:
            FOR_EACH_VALUE(if (v > 0xFFu) goto too_big; *at = (uint8_t)v)
            break;
        case CODE_U16:
            FOR_EACH_VALUE(if (v > 0xFFFFu) goto too_big; store16(at, v))
            break;
        case CODE_U32:
            FOR_EACH_VALUE(if (v > 0xFFFFFFFFu) goto too_big; store32(at, v))
            break;
        case CODE_S8:
            FOR_EACH_VALUE(sv = varint_unzigzag(v); if (!fits_signed(sv, 8)) goto too_big;
                           *at = (uint8_t)sv)
            break;
        case CODE_S16:
            FOR_EACH_VALUE(sv = varint_unzigzag(v); if (!fits_signed(sv, 16)) goto too_big;
                           store16(at, (uint64_t)sv))
            break;
        case CODE_S32:
            FOR_EACH_VALUE(sv = varint_unzigzag(v); if (!fits_signed(sv, 32)) goto too_big;
                           store32(at, (uint64_t)sv))
            break;
        case CODE_S64:
            FOR_EACH_VALUE(v = (uint64_t)varint_unzigzag(v); memcpy(at, &v, 8))
            break;
        case CODE_TS:
            FOR_EACH_VALUE(memcpy(&t, times, 8); v = (uint64_t)varint_unzigzag(v) + (uint64_t)t;
                           memcpy(at, &v, 8))
            break;
        case CODE_HANDLE:
            FOR_EACH_VALUE(if (v > 0xFFFFFFFFu) goto bad_handle;
                           v = v != 0 ? v | (uint64_t)serial << 32 : 0; memcpy(at, &v, 8))
            break;
        default: /* CODE_U64 */
            FOR_EACH_VALUE(memcpy(at, &v, 8))
            break;
        }
    }
    return 0;
bad_varint:
    return *problem = "bad varint in a payload field", -1;
bad_handle:
    return *problem = "string handle index exceeds 32 bits", -1;
too_big:
    return *problem = "payload field value exceeds its type", -1;
}

int field_decode(const field_plan* plan, const uint8_t** in, const uint8_t* end, int64_t event_ts,
                 uint32_t serial, uint8_t* out, const char** problem) {
    field_input one = {*in, end};
    int status;
    if (plan->has_gaps)
        memset(out, 0, plan->static_size);
    status = inputs_have_room(plan, &one, 1)
                 ? decode_ops(plan, &one, event_ts, serial, out, problem, 1, 0)
                 : decode_ops(plan, &one, event_ts, serial, out, problem, 1, 1);
    if (status == 0)
        *in = one.p;
    return status;
}
