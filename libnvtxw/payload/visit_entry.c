/*
 * payload/visit_entry.c - walking the entries of a finalized schema.
 *
 * Per entry, in declaration order (order matters for lengths and cursor):
 *   offset   = finalized offset, or alignUp(cursor, align) when it is only
 *              known while parsing (DYNAMIC schemas)
 *   field_begin
 *   data     = inline at offset, or at the target of a POINTER (another
 *              payload of the event), or at an OFFSET_FROM_BASE (payload
 *              base) / OFFSET_FROM_HERE (end of the entry) offset
 *   value    = string (visit_string.c) | element | array of elements:
 *              FIXED (detail), ZERO_TERMINATED (up to an all-zero element,
 *              bounded by the region), LENGTH_INDEX (earlier entry: scalar,
 *              or an array giving several dimensions), LENGTH_PAYLOAD_INDEX
 *              (integers of payload #detail); lengths that do not fit in
 *              the region are errors. BYTE data is one on_bytes.
 *   element  = number | enum | object (nested schema) | union object
 *   field_end; cursor = max(cursor, offset + inline bytes used)
 * Entries that later entries read (lengths, selectors) record their
 * position in a slot of the frame.
 */
#include "config.h"

#include <string.h>

#include "payload/visit_internal.h"

/* Element emission context for one array entry. */
typedef struct element_walk {
    visit_frame_t* frame;
    size_t entry;
    const visit_region_t* region;
    size_t pos; /* next element */
} element_walk_t;

static int integral_value(visit_state_t* vs, const finalized_entry_t* fe, const uint8_t* p,
                          uint64_t* value) {
    int is_signed = fe->kind == ENTRY_KIND_PREDEFINED && fe->info->category == ENTRY_CAT_SIGNED;
    (void)vs;
    if (is_signed) {
        int64_t v = visit_read_signed(p, fe->element_size);
        *value = v < 0 ? 0 : (uint64_t)v; /* negative lengths count as 0 */
    } else {
        *value = visit_read_unsigned(p, fe->element_size);
    }
    return 0;
}

/* Zero-terminated run of elements of `size` bytes at pos, looking at no
 * more than `limit` elements; *terminated. */
static size_t zt_count(const visit_region_t* r, size_t pos, size_t size, size_t limit,
                       int* terminated) {
    size_t avail = pos <= r->size ? (r->size - pos) / size : 0;
    size_t n = 0;
    if (avail > limit)
        avail = limit;
    while (n < avail) {
        const uint8_t* e = r->data + pos + n * size;
        if (e[0] == 0 && (size == 1 || memcmp(e, e + 1, size - 1) == 0))
            break;
        n++;
    }
    *terminated = n < avail;
    return n;
}

/* Dimensions from an earlier entry of the same object. */
static int lengths_from_entry(visit_state_t* vs, visit_frame_t* f, size_t src, uint64_t* dims,
                              size_t* ndims) {
    const finalized_entry_t* se = &f->schema->fin[src];
    size_t pos = f->slots[se->slot];
    size_t n = 1;
    size_t k;
    int terminated;
    int status;
    if (se->array == NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_FIXED_SIZE)
        n = (size_t)f->schema->entries[src].arrayOrUnionDetail;
    else if (se->array == NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_ZERO_TERMINATED)
        n = zt_count(f->region, pos, se->element_size, REGISTRY_MAX_DIMS + 1, &terminated);
    if (n == 0 || n > REGISTRY_MAX_DIMS)
        return visit_fail(vs, "length entry %zu gives %zu dimensions (1 to %d allowed)", src, n,
                          REGISTRY_MAX_DIMS);
    status = visit_need(vs, f->region, pos, n * se->element_size);
    for (k = 0; k < n && status == 0; k++)
        status = integral_value(vs, se, f->region->data + pos + k * se->element_size, &dims[k]);
    *ndims = n;
    return status;
}

/* Integer type and count of a LENGTH_PAYLOAD_INDEX source payload. */
static int lpi_source(visit_state_t* vs, const nvtxPayloadData_t* p, size_t* esize, size_t* pos,
                      size_t* n, int* is_signed) {
    const nvtxw_schema_t* s;
    const finalized_entry_t* fe;
    if (p->schemaId < NVTX_PAYLOAD_SCHEMA_ID_STATIC_START) {
        const entry_type_info_t* info = registry_entry_type(p->schemaId);
        if (info == NULL ||
            (info->category != ENTRY_CAT_SIGNED && info->category != ENTRY_CAT_UNSIGNED))
            return visit_fail(vs, "length payload has non-integer type %llu",
                              (unsigned long long)p->schemaId);
        *esize = info->size;
        *pos = 0;
        *n = p->size / info->size;
        *is_signed = info->category == ENTRY_CAT_SIGNED;
        return 0;
    }
    s = nvtxw_schema_registry_find_schema(vs->registry, p->schemaId);
    fe = s ? &s->fin[0] : NULL;
    if (s == NULL || s->attr.numEntries != 1 || fe->kind != ENTRY_KIND_PREDEFINED ||
        fe->form != ENTRY_FORM_INLINE || (fe->array != 0 && fe->array != 0x10) ||
        (fe->info->category != ENTRY_CAT_SIGNED && fe->info->category != ENTRY_CAT_UNSIGNED))
        return visit_fail(vs, "length payload schema %llu is not one integer entry",
                          (unsigned long long)p->schemaId);
    *esize = fe->element_size;
    *pos = fe->offset;
    *n = fe->array ? (size_t)s->entries[0].arrayOrUnionDetail : 1;
    *is_signed = fe->info->category == ENTRY_CAT_SIGNED;
    return 0;
}

static int lengths_from_payload(visit_state_t* vs, uint64_t index, uint64_t* dims, size_t* ndims) {
    const nvtxPayloadData_t* p;
    visit_region_t r;
    size_t esize = 1, pos = 0, n = 0, k;
    int is_signed = 0;
    int status;
    if (index >= vs->count)
        return visit_fail(vs, "length payload index %llu, event has %zu payloads",
                          (unsigned long long)index, vs->count);
    p = &vs->payloads[index];
    if (p->payload == NULL || p->size == 0 || p->size == SIZE_MAX)
        return visit_fail(vs, "length payload %llu is empty", (unsigned long long)index);
    status = lpi_source(vs, p, &esize, &pos, &n, &is_signed);
    if (status != 0)
        return status;
    if (n == 0 || n > REGISTRY_MAX_DIMS)
        return visit_fail(vs, "length payload %llu gives %zu dimensions (1 to %d allowed)",
                          (unsigned long long)index, n, REGISTRY_MAX_DIMS);
    r.data = p->payload;
    r.size = p->size;
    r.payload = (size_t)index;
    status = visit_need(vs, &r, pos, n * esize);
    for (k = 0; k < n && status == 0; k++) {
        const uint8_t* v = r.data + pos + k * esize;
        int64_t s = is_signed ? visit_read_signed(v, esize) : 0;
        dims[k] = is_signed ? (s < 0 ? 0 : (uint64_t)s) : visit_read_unsigned(v, esize);
    }
    *ndims = n;
    return status;
}

int visit_lengths(visit_state_t* vs, visit_frame_t* f, size_t i, uint64_t* dims, size_t* ndims) {
    const finalized_entry_t* fe = &f->schema->fin[i];
    uint64_t detail = f->schema->entries[i].arrayOrUnionDetail;
    if (fe->array == NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_INDEX)
        return lengths_from_entry(vs, f, (size_t)detail, dims, ndims);
    return lengths_from_payload(vs, detail, dims, ndims);
}

static int visit_enum(visit_state_t* vs, const nvtxw_enum_t* e, uint64_t value) {
    const char* name = fixed_enum_name(e, value, vs->enum_names, sizeof vs->enum_names);
    return VISIT_CALL(vs, on_enum, value, name);
}

/* Value of the external selector of UNION entry i (read earlier, in
 * bounds). Unlike lengths, a negative selector selects nothing. */
static int union_selector(visit_state_t* vs, visit_frame_t* f, size_t i, uint64_t* selector) {
    const finalized_entry_t* se = &f->schema->fin[f->schema->entries[i].arrayOrUnionDetail];
    const uint8_t* p = f->region->data + f->slots[se->slot];
    if (se->kind == ENTRY_KIND_PREDEFINED && se->info->category == ENTRY_CAT_SIGNED) {
        int64_t v = visit_read_signed(p, se->element_size);
        if (v < 0)
            return visit_fail(vs, "union selector %lld is negative", (long long)v);
        *selector = (uint64_t)v;
        return 0;
    }
    *selector = visit_read_unsigned(p, se->element_size);
    return 0;
}

/* One element at pos; *consumed = its parsed size. */
static int visit_element(visit_state_t* vs, visit_frame_t* f, size_t i, const visit_region_t* r,
                         size_t pos, size_t* consumed) {
    const finalized_entry_t* fe = &f->schema->fin[i];
    uint64_t selector = 0;
    int status;
    *consumed = fe->element_size;
    if (fe->kind == ENTRY_KIND_NESTED || fe->kind == ENTRY_KIND_UNION ||
        fe->kind == ENTRY_KIND_UNION_INTERNAL) {
        if (!fe->nested->variable) {
            status = visit_need(vs, r, pos, fe->nested->static_size);
            if (status != 0)
                return status;
        }
        if (fe->kind == ENTRY_KIND_UNION) {
            status = union_selector(vs, f, i, &selector);
            if (status != 0)
                return status;
        }
        return visit_fields(vs, fe->nested, r, pos, 1, selector, consumed);
    }
    status = visit_need(vs, r, pos, fe->element_size);
    if (status != 0)
        return status;
    if (fe->kind == ENTRY_KIND_ENUM)
        return visit_enum(vs, fe->enumeration,
                          visit_read_unsigned(r->data + pos, fe->element_size));
    return visit_emit_number(vs, fe->info, r->data + pos, fe->element_size);
}

/* Row-major walk of dims[level..]; elements are consecutive in memory. */
static int walk_dims(visit_state_t* vs, element_walk_t* w, const uint64_t* dims, size_t ndims,
                     size_t level) {
    uint64_t k;
    size_t used;
    int status = VISIT_CALL(vs, array_begin, dims[level]);
    if (status == 0)
        status = visit_path_push(vs, NULL, 0, 0);
    for (k = 0; k < dims[level] && status == 0; k++) {
        vs->path[vs->path_len - 1].index = k;
        if (level + 1 < ndims) {
            status = walk_dims(vs, w, dims, ndims, level + 1);
        } else {
            status = visit_element(vs, w->frame, w->entry, w->region, w->pos, &used);
            w->pos += w->frame->schema->fin[w->entry].element_size;
        }
    }
    if (status != 0)
        return status;
    visit_path_pop(vs);
    return VISIT_CALL0(vs, array_end);
}

/* Total elements of dims, checked against the bytes left in the region. */
static int check_fit(visit_state_t* vs, const visit_region_t* r, size_t pos, size_t esize,
                     const uint64_t* dims, size_t ndims, size_t* bytes) {
    uint64_t total = 1;
    size_t k;
    size_t left = pos <= r->size ? r->size - pos : 0;
    for (k = 0; k < ndims; k++) {
        if (dims[k] != 0 && total > UINT64_MAX / dims[k]) {
            total = UINT64_MAX;
            break;
        }
        /* Outer dimensions of an empty inner one cost events but no bytes:
         * cap how many (empty) inner arrays they may produce. */
        if (k + 1 < ndims && total * dims[k] > (left > VISIT_MAX_EMPTY ? left : VISIT_MAX_EMPTY))
            return visit_fail(vs, "%zu array dimensions multiply to more than %zu rows", ndims,
                              left > VISIT_MAX_EMPTY ? left : (size_t)VISIT_MAX_EMPTY);
        total *= dims[k];
    }
    if (esize == 0 || total > left / esize)
        return visit_fail(vs,
                          "array of %llu elements of %zu bytes does not fit: %zu bytes left "
                          "at offset %zu",
                          (unsigned long long)total, esize, left, pos);
    *bytes = (size_t)total * esize;
    return 0;
}

static int visit_array(visit_state_t* vs, visit_frame_t* f, size_t i, const visit_region_t* r,
                       size_t pos, size_t* consumed) {
    const finalized_entry_t* fe = &f->schema->fin[i];
    uint64_t dims[REGISTRY_MAX_DIMS];
    size_t ndims = 1;
    size_t bytes = 0;
    int terminated = 0;
    element_walk_t w;
    int status = 0;
    if (fe->array == NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_FIXED_SIZE)
        dims[0] = f->schema->entries[i].arrayOrUnionDetail;
    else if (fe->array == NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_ZERO_TERMINATED)
        dims[0] = zt_count(r, pos, fe->element_size, SIZE_MAX, &terminated);
    else
        status = visit_lengths(vs, f, i, dims, &ndims);
    if (status == 0)
        status = check_fit(vs, r, pos, fe->element_size, dims, ndims, &bytes);
    if (status != 0)
        return status;
    *consumed = bytes + (terminated ? fe->element_size : 0);
    if (fe->info != NULL && fe->info->type == NVTX_PAYLOAD_ENTRY_TYPE_BYTE)
        return VISIT_CALL(vs, on_bytes, r->data + (bytes ? pos : 0), bytes);
    w.frame = f;
    w.entry = i;
    w.region = r;
    w.pos = pos;
    return walk_dims(vs, &w, dims, ndims, 0);
}

static int visit_data(visit_state_t* vs, visit_frame_t* f, size_t i, const visit_region_t* r,
                      size_t pos, size_t* consumed) {
    const finalized_entry_t* fe = &f->schema->fin[i];
    if (fe->kind == ENTRY_KIND_STRING)
        return visit_string_entry(vs, f, i, r, pos, consumed);
    if (fe->array != 0)
        return visit_array(vs, f, i, r, pos, consumed);
    return visit_element(vs, f, i, r, pos, consumed);
}

/* Whether the length-indexed data of POINTER entry i has no element, so
 * the pointer is never read (an empty vector's data() may point anywhere). */
static int pointer_unused(visit_state_t* vs, visit_frame_t* f, size_t i, int* unused) {
    const finalized_entry_t* fe = &f->schema->fin[i];
    uint64_t dims[REGISTRY_MAX_DIMS];
    size_t ndims = 0;
    size_t k;
    int status;
    *unused = 0;
    if (fe->array != NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_INDEX &&
        fe->array != NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_PAYLOAD_INDEX)
        return 0;
    status = visit_lengths(vs, f, i, dims, &ndims);
    for (k = 0; k < ndims && status == 0; k++)
        *unused |= dims[k] == 0;
    return status;
}

static int resolve_target(visit_state_t* vs, visit_frame_t* f, size_t i, uint64_t value,
                          visit_region_t* target, size_t* target_pos) {
    static const uint8_t nothing[1] = {0};
    int deep = (f->schema->entries[i].flags & NVTX_PAYLOAD_ENTRY_FLAG_DEEP_COPY) &&
               (f->schema->attr.flags & NVTX_PAYLOAD_SCHEMA_FLAG_DEEP_COPY) &&
               (vs->flags & NVTXW_VISIT_ALLOW_FOREIGN_POINTERS);
    int unused = 0;
    int status = value != 0 ? pointer_unused(vs, f, i, &unused) : 0;
    if (status != 0 || !unused)
        return status ? status
                      : visit_resolve_pointer(vs, (uintptr_t)value, deep, target, target_pos);
    target->data = nothing; /* zero elements: an empty region will do */
    target->size = 0;
    target->payload = vs->index;
    *target_pos = 0;
    return 0;
}

/* POINTER / OFFSET_FROM_* entries: the inline value leads to the data. */
static int visit_indirect(visit_state_t* vs, visit_frame_t* f, size_t i, size_t pos) {
    const finalized_entry_t* fe = &f->schema->fin[i];
    const uint8_t* p = f->region->data + pos;
    uint64_t value = visit_read_unsigned(p, fe->inline_size);
    visit_region_t target;
    size_t target_pos = 0;
    size_t used = 0;
    int status = 0;
    if (fe->form == ENTRY_FORM_POINTER) {
        status = resolve_target(vs, f, i, value, &target, &target_pos);
        if (status == 0 && target.data == NULL)
            return VISIT_CALL0(vs, on_null);
    } else {
        target = *f->region;
        if (fe->form == ENTRY_FORM_OFFSET_HERE) {
            size_t here = pos + fe->inline_size;
            target_pos = value > SIZE_MAX - here ? SIZE_MAX : here + (size_t)value;
        } else {
            target_pos = value > SIZE_MAX ? SIZE_MAX : (size_t)value;
        }
        if (target_pos > target.size)
            return visit_fail(vs, "offset %llu leads to %zu, beyond the payload size %zu",
                              (unsigned long long)value, target_pos, target.size);
    }
    if (status == 0)
        status = visit_data(vs, f, i, &target, target_pos, &used);
    return status;
}

static int visit_entry(visit_state_t* vs, visit_frame_t* f, size_t i) {
    const finalized_entry_t* fe = &f->schema->fin[i];
    size_t off = fe->offset != SIZE_MAX ? fe->offset : registry_align_up(f->cursor, fe->align);
    size_t pos = off > SIZE_MAX - f->base ? SIZE_MAX : f->base + off;
    size_t consumed = fe->inline_size;
    int status = visit_path_push(vs, fe->field.name, i, 0);
    if (status == 0)
        status = VISIT_CALL(vs, field_begin, &fe->field);
    if (status == 0 && fe->slot != REGISTRY_NO_SLOT)
        f->slots[fe->slot] = pos;
    if (status == 0 && fe->form != ENTRY_FORM_INLINE) {
        status = visit_need(vs, f->region, pos, fe->inline_size);
        if (status == 0)
            status = visit_indirect(vs, f, i, pos);
    } else if (status == 0) {
        status = visit_data(vs, f, i, f->region, pos, &consumed);
    }
    if (status != 0)
        return status;
    if (consumed > SIZE_MAX - off)
        consumed = SIZE_MAX - off;
    if (off + consumed > f->cursor)
        f->cursor = off + consumed;
    status = VISIT_CALL(vs, field_end, &fe->field);
    visit_path_pop(vs);
    return status;
}

/* Selector entry then the selected member of an internal-selector union. */
static int visit_internal_union(visit_state_t* vs, visit_frame_t* f) {
    const nvtxw_schema_t* s = f->schema;
    size_t sel = s->selector_index;
    size_t pos = f->base + s->fin[sel].offset;
    uint64_t value;
    int status = visit_entry(vs, f, sel);
    if (status != 0)
        return status;
    value = visit_read_unsigned(f->region->data + pos, s->fin[sel].element_size);
    if (value >= s->attr.numEntries - 1)
        return visit_fail(vs, "union selector %llu, schema \"%s\" has %zu members",
                          (unsigned long long)value, registry_schema_label(s),
                          s->attr.numEntries - 1);
    return visit_entry(vs, f, (size_t)value + (value >= sel));
}

/* The value callbacks of a flat walk, read once per schema instance: the
 * walk then keeps them in registers across the callbacks, which could
 * otherwise have changed *vs as far as the compiler knows. */
typedef struct flat_calls {
    int (*on_unsigned)(void* ctx, uint64_t value);
    int (*on_signed)(void* ctx, int64_t value);
    int (*on_float)(void* ctx, double value);
    int (*on_string_handle)(void* ctx, uint64_t handle, const char* text);
    void* ctx;
    const char* (*resolve)(void* resolve_ctx, uint64_t handle);
    void* resolve_ctx;
} flat_calls;

static void flat_calls_init(flat_calls* c, const visit_state_t* vs) {
    c->on_unsigned = vs->v->on_unsigned;
    c->on_signed = vs->v->on_signed;
    c->on_float = vs->v->on_float;
    c->on_string_handle = vs->v->on_string_handle;
    c->ctx = vs->ctx;
    c->resolve = vs->resolve;
    c->resolve_ctx = vs->resolve_ctx;
}

/* The callback of one value and its result. */
static inline int flat_unsigned(const flat_calls* c, uint64_t value) {
    return c->on_unsigned ? c->on_unsigned(c->ctx, value) : 0;
}

static inline int flat_signed(const flat_calls* c, int64_t value) {
    return c->on_signed ? c->on_signed(c->ctx, value) : 0;
}

static inline int flat_float(const flat_calls* c, double value) {
    return c->on_float ? c->on_float(c->ctx, value) : 0;
}

static inline int flat_handle(const flat_calls* c, uint64_t handle) {
    if (c->on_string_handle == NULL)
        return 0;
    return c->on_string_handle(c->ctx, handle,
                               c->resolve ? c->resolve(c->resolve_ctx, handle) : NULL);
}

/* Inlined into both loops of visit_flat (GCC and Clang): a call per field
 * costs more than the switch it holds. */
#if defined(__GNUC__)
#define FLAT_INLINE inline __attribute__((always_inline))
#else
#define FLAT_INLINE inline
#endif

/* One entry's value as visit_emit_number reports it, read by its op. */
static FLAT_INLINE int flat_value(visit_state_t* vs, const flat_calls* c,
                                  const finalized_entry_t* fe, const uint8_t* p) {
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64;
    int8_t s8;
    int16_t s16;
    int32_t s32;
    int64_t s64;
    float f32;
    double f64;
    switch ((flat_op_t)fe->flat_op) {
    case FLAT_OP_UNSIGNED_1:
        return memcpy(&u8, p, 1), flat_unsigned(c, u8);
    case FLAT_OP_UNSIGNED_2:
        return memcpy(&u16, p, 2), flat_unsigned(c, u16);
    case FLAT_OP_UNSIGNED_4:
        return memcpy(&u32, p, 4), flat_unsigned(c, u32);
    case FLAT_OP_UNSIGNED_8:
        return memcpy(&u64, p, 8), flat_unsigned(c, u64);
    case FLAT_OP_SIGNED_1:
        return memcpy(&s8, p, 1), flat_signed(c, s8);
    case FLAT_OP_SIGNED_2:
        return memcpy(&s16, p, 2), flat_signed(c, s16);
    case FLAT_OP_SIGNED_4:
        return memcpy(&s32, p, 4), flat_signed(c, s32);
    case FLAT_OP_SIGNED_8:
        return memcpy(&s64, p, 8), flat_signed(c, s64);
    case FLAT_OP_FLOAT32:
        return memcpy(&f32, p, 4), flat_float(c, f32);
    case FLAT_OP_FLOAT64:
        return memcpy(&f64, p, 8), flat_float(c, f64);
    case FLAT_OP_FLOAT_OTHER:
        return flat_float(c, visit_read_float(fe->info->type, p));
    case FLAT_OP_HANDLE_8:
        return memcpy(&u64, p, 8), flat_handle(c, u64);
    case FLAT_OP_HANDLE:
        return flat_handle(c, visit_read_unsigned(p, fe->element_size));
    case FLAT_OP_NONE:
    default:
        break;
    }
    return visit_emit_number(vs, fe->info, p, fe->element_size); /* never: finalize.c */
}

/* The name of the callback flat_value called for `fe`, for the message of
 * a walk it stopped (looked up only then, off the per-field path). */
static const char* flat_callback(const finalized_entry_t* fe) {
    switch ((flat_op_t)fe->flat_op) {
    case FLAT_OP_UNSIGNED_1:
    case FLAT_OP_UNSIGNED_2:
    case FLAT_OP_UNSIGNED_4:
    case FLAT_OP_UNSIGNED_8:
        return "on_unsigned";
    case FLAT_OP_SIGNED_1:
    case FLAT_OP_SIGNED_2:
    case FLAT_OP_SIGNED_4:
    case FLAT_OP_SIGNED_8:
        return "on_signed";
    case FLAT_OP_FLOAT32:
    case FLAT_OP_FLOAT64:
    case FLAT_OP_FLOAT_OTHER:
        return "on_float";
    case FLAT_OP_HANDLE_8:
    case FLAT_OP_HANDLE:
        return "on_string_handle";
    case FLAT_OP_NONE:
    default:
        return "a value callback"; /* never: finalize.c gives every flat entry an op */
    }
}

/* Callbacks are called directly and the field path is written only when
 * one stops the walk: the path names the entry exactly as visit_entry's
 * would. A visitor without field_begin and field_end (most: they want the
 * values) takes a loop that tests for neither. */
int visit_flat(visit_state_t* vs, const nvtxw_schema_t* s, const uint8_t* base) {
    const nvtxw_visitor_t* v = vs->v;
    const char* callback = NULL;
    size_t i, n = s->attr.numEntries;
    int result = 0;
    flat_calls calls;
    if (vs->path_len == VISIT_MAX_PATH)
        return visit_path_push(vs, "", 0, 0); /* names the failure */
    flat_calls_init(&calls, vs);
    if (v->field_begin == NULL && v->field_end == NULL) {
        const finalized_entry_t* fin = s->fin;
        for (i = 0; i < n; i++)
            if ((result = flat_value(vs, &calls, &fin[i], base + fin[i].offset)) != 0)
                break;
    } else {
        for (i = 0; i < n; i++) {
            const finalized_entry_t* fe = &s->fin[i];
            if (v->field_begin != NULL && (result = v->field_begin(vs->ctx, &fe->field)) != 0) {
                callback = "field_begin";
                break;
            }
            if ((result = flat_value(vs, &calls, fe, base + fe->offset)) != 0)
                break;
            if (v->field_end != NULL && (result = v->field_end(vs->ctx, &fe->field)) != 0) {
                callback = "field_end";
                break;
            }
        }
    }
    if (result == 0)
        return 0;
    (void)visit_path_push(vs, s->fin[i].field.name, i, 0); /* room checked above */
    return visit_stopped(vs, result, callback != NULL ? callback : flat_callback(&s->fin[i]));
}

static int visit_members(visit_state_t* vs, visit_frame_t* f, uint64_t selector) {
    const nvtxw_schema_t* s = f->schema;
    size_t i;
    int status = 0;
    if (s->flat && f->region->size >= f->base && f->region->size - f->base >= s->static_size) {
        f->cursor = s->static_size;
        return visit_flat(vs, s, f->region->data + f->base);
    }
    if (s->attr.type == NVTX_PAYLOAD_SCHEMA_TYPE_UNION_WITH_INTERNAL_SELECTOR)
        return visit_internal_union(vs, f);
    if (s->attr.type == NVTX_PAYLOAD_SCHEMA_TYPE_UNION) {
        if (selector >= s->attr.numEntries)
            return visit_fail(vs, "union selector %llu, schema \"%s\" has %zu members",
                              (unsigned long long)selector, registry_schema_label(s),
                              s->attr.numEntries);
        return visit_entry(vs, f, (size_t)selector);
    }
    for (i = 0; i < s->attr.numEntries && status == 0; i++)
        status = visit_entry(vs, f, i);
    return status;
}

int visit_fields(visit_state_t* vs, const nvtxw_schema_t* schema, const visit_region_t* region,
                 size_t pos, int as_object, uint64_t selector, size_t* consumed) {
    visit_frame_t f;
    size_t saved_top = vs->slot_top;
    int status;
    if (vs->depth >= REGISTRY_MAX_DEPTH || schema->slot_count > REGISTRY_MAX_SLOTS - vs->slot_top)
        return visit_fail(vs, "nesting deeper than %d schemas", REGISTRY_MAX_DEPTH);
    f.schema = schema;
    f.region = region;
    f.base = pos;
    f.cursor = 0;
    f.slots = &vs->slots[vs->slot_top];
    vs->slot_top += schema->slot_count;
    vs->depth++;
    status = as_object ? VISIT_CALL(vs, object_begin, schema->attr.schemaId) : 0;
    if (status == 0)
        status = visit_members(vs, &f, selector);
    if (status == 0 && as_object)
        status = VISIT_CALL0(vs, object_end);
    vs->depth--;
    vs->slot_top = saved_top;
    if (schema->attr.type == NVTX_PAYLOAD_SCHEMA_TYPE_DYNAMIC)
        *consumed = f.cursor;
    else
        *consumed = schema->static_size;
    return status;
}
