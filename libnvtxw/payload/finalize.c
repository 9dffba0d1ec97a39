/*
 * payload/finalize.c - schema finalization at registration (spec 3.2-3.4,
 * 7.2 with the header's rules where the sample tool has quirks).
 *
 * Layout rules, per entry i of a schema:
 *  - inline size: POINTER entries hold a pointer, OFFSET_FROM_BASE/HERE
 *    entries a size_t; otherwise embedded fixed strings take detail code
 *    units, FIXED_SIZE arrays detail elements, scalars one element, and
 *    zero-terminated, length-indexed and length-from-payload data is sized
 *    while parsing ("runtime"; DYNAMIC schemas only).
 *  - alignment: the element's natural alignment (code unit for strings,
 *    nested schema alignment, sizeOfEnum), capped by packAlign.
 *  - offset (STATIC, DYNAMIC): explicit when i == 0 or offset != 0;
 *    otherwise alignUp(end of previous fixed entries, align). In DYNAMIC
 *    schemas, implicit entries after a runtime-sized one are placed at
 *    alignUp(cursor, align) while parsing (the header's rule, not the
 *    sample's frozen offsets, spec 7.2 step 8).
 *  - UNION: every member at offset 0 unless given a non-zero offset.
 *    UNION_WITH_INTERNAL_SELECTOR: one UNION_SELECTOR entry (implicit offset
 *    0); the other entries, the members, share alignUp(selector end, largest
 *    member alignment) unless given a non-zero offset.
 *  - size: STATIC and unions: payloadStaticSize when given (it must cover the
 *    entries), else the end of the last entry rounded up to the schema
 *    alignment, like sizeof. DYNAMIC: the fixed part.
 * Nested schemas and enums must be registered earlier, which also rules out
 * cycles.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/error_internal.h"
#include "payload/registry_internal.h"

typedef struct layout {
    const nvtxw_schema_registry_t* registry;
    nvtxw_schema_t* schema;
    size_t next;      /* end of the fixed entries placed so far */
    size_t align;     /* schema alignment so far */
    int seen_runtime; /* a runtime-sized entry was placed (DYNAMIC) */
    uint32_t child_slots;
    uint32_t child_depth;
} layout_t;

static nvtxwResultCode_t entry_fail(const nvtxw_schema_t* schema, size_t index, const char* format,
                                    ...) NVTXW_PRINTF(3, 4);

static nvtxwResultCode_t entry_fail(const nvtxw_schema_t* schema, size_t index, const char* format,
                                    ...) {
    char detail[NVTXW_ERROR_MAX];
    const char* name = schema->entries[index].name;
    va_list args;
    va_start(args, format);
    vsnprintf(detail, sizeof detail, format, args);
    va_end(args);
    return error_set(NVTXW_RESULT_INVALID_ARGUMENT,
                     "cannot register schema \"%s\": entry %zu \"%s\": %s",
                     registry_schema_label(schema), index, name ? name : "", detail);
}

static nvtxwResultCode_t schema_fail(const nvtxw_schema_t* schema, const char* format, ...)
    NVTXW_PRINTF(2, 3);

static nvtxwResultCode_t schema_fail(const nvtxw_schema_t* schema, const char* format, ...) {
    char detail[NVTXW_ERROR_MAX];
    va_list args;
    va_start(args, format);
    vsnprintf(detail, sizeof detail, format, args);
    va_end(args);
    return error_set(NVTXW_RESULT_INVALID_ARGUMENT, "cannot register schema \"%s\": %s",
                     registry_schema_label(schema), detail);
}

static int is_integral(const finalized_entry_t* fe) {
    if (fe->kind == ENTRY_KIND_ENUM)
        return 1;
    return fe->kind == ENTRY_KIND_PREDEFINED &&
           (fe->info->category == ENTRY_CAT_SIGNED || fe->info->category == ENTRY_CAT_UNSIGNED ||
            fe->info->category == ENTRY_CAT_SELECTOR);
}

/* Kind, element size and alignment from the entry type. */
static nvtxwResultCode_t classify_nested(layout_t* l, size_t i, finalized_entry_t* fe) {
    const nvtxPayloadSchemaEntry_t* e = &l->schema->entries[i];
    const nvtxw_schema_t* nested = nvtxw_schema_registry_find_schema(l->registry, e->type);
    const nvtxw_enum_t* enumeration = nvtxw_schema_registry_find_enum(l->registry, e->type);
    if (enumeration != NULL) {
        fe->kind = ENTRY_KIND_ENUM;
        fe->enumeration = enumeration;
        fe->element_size = fe->align = enumeration->attr.sizeOfEnum;
        return NVTXW_RESULT_SUCCESS;
    }
    if (nested == NULL)
        return entry_fail(l->schema, i,
                          "type %llu is neither a predefined type nor a schema or "
                          "enum registered earlier",
                          (unsigned long long)e->type);
    fe->nested = nested;
    fe->element_size = nested->static_size;
    fe->align = nested->alignment;
    fe->kind = ENTRY_KIND_NESTED;
    if (nested->attr.type == NVTX_PAYLOAD_SCHEMA_TYPE_UNION)
        fe->kind = ENTRY_KIND_UNION;
    else if (nested->attr.type == NVTX_PAYLOAD_SCHEMA_TYPE_UNION_WITH_INTERNAL_SELECTOR)
        fe->kind = ENTRY_KIND_UNION_INTERNAL;
    if (nested->slot_need > l->child_slots)
        l->child_slots = nested->slot_need;
    if (nested->depth > l->child_depth)
        l->child_depth = nested->depth;
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t classify(layout_t* l, size_t i, finalized_entry_t* fe) {
    const nvtxPayloadSchemaEntry_t* e = &l->schema->entries[i];
    if (e->type >= NVTX_PAYLOAD_SCHEMA_ID_STATIC_START)
        return classify_nested(l, i, fe);
    fe->info = registry_entry_type(e->type);
    if (fe->info == NULL)
        return entry_fail(l->schema, i, "unknown entry type %llu", (unsigned long long)e->type);
    if (fe->info->category == ENTRY_CAT_STRING) {
        fe->kind = ENTRY_KIND_STRING;
        fe->element_size = fe->align = fe->info->unit;
    } else if (fe->info->category == ENTRY_CAT_SELECTOR) {
        uint64_t d = e->arrayOrUnionDetail;
        fe->element_size = (d == 1 || d == 2 || d == 4 || d == 8) ? (size_t)d : 4;
        fe->align = fe->element_size;
    } else {
        fe->element_size = fe->info->size;
        fe->align = fe->info->align;
    }
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t pick_form(layout_t* l, size_t i, finalized_entry_t* fe) {
    const nvtxPayloadSchemaEntry_t* e = &l->schema->entries[i];
    uint64_t forms =
        e->flags & (NVTX_PAYLOAD_ENTRY_FLAG_POINTER | NVTX_PAYLOAD_ENTRY_FLAG_OFFSET_FROM_BASE |
                    NVTX_PAYLOAD_ENTRY_FLAG_OFFSET_FROM_HERE);
    fe->array = (uint8_t)NVTXW_PAYLOAD_ENTRY_ARRAY_KIND(e->flags);
    if (fe->array > NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_PAYLOAD_INDEX)
        return entry_fail(l->schema, i, "unknown array kind 0x%x in flags 0x%llx",
                          (unsigned)fe->array, (unsigned long long)e->flags);
    if (forms & (forms - 1))
        return entry_fail(l->schema, i,
                          "flags 0x%llx combine POINTER, OFFSET_FROM_BASE and "
                          "OFFSET_FROM_HERE",
                          (unsigned long long)e->flags);
    if (forms == NVTX_PAYLOAD_ENTRY_FLAG_POINTER)
        fe->form = ENTRY_FORM_POINTER;
    else if (forms == NVTX_PAYLOAD_ENTRY_FLAG_OFFSET_FROM_BASE)
        fe->form = ENTRY_FORM_OFFSET_BASE;
    else if (forms == NVTX_PAYLOAD_ENTRY_FLAG_OFFSET_FROM_HERE)
        fe->form = ENTRY_FORM_OFFSET_HERE;
    else if (fe->kind == ENTRY_KIND_STRING && fe->array == 0 && e->arrayOrUnionDetail == 0)
        fe->form = ENTRY_FORM_POINTER; /* detail 0 selects the pointer form (spec 3.2) */
    return NVTXW_RESULT_SUCCESS;
}

/* LENGTH_INDEX: entry `detail` must be an earlier inline integral scalar, or
 * an integral FIXED/ZT array giving the dimensions. */
static nvtxwResultCode_t check_length_source(layout_t* l, size_t i, finalized_entry_t* fe) {
    uint64_t src = l->schema->entries[i].arrayOrUnionDetail;
    finalized_entry_t* se;
    if (src >= i)
        return entry_fail(l->schema, i, "array length index %llu is not an earlier entry",
                          (unsigned long long)src);
    se = &l->schema->fin[src];
    if (!is_integral(se) || se->form != ENTRY_FORM_INLINE ||
        (se->array != 0 && se->array != NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_FIXED_SIZE &&
         se->array != NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_ZERO_TERMINATED))
        return entry_fail(l->schema, i,
                          "array length entry %llu is not an embedded integer or "
                          "fixed/zero-terminated integer array",
                          (unsigned long long)src);
    if (se->array != 0 && fe->kind == ENTRY_KIND_STRING)
        return entry_fail(l->schema, i, "string length entry %llu is an array",
                          (unsigned long long)src);
    if (se->array == NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_FIXED_SIZE &&
        l->schema->entries[src].arrayOrUnionDetail > REGISTRY_MAX_DIMS)
        return entry_fail(l->schema, i, "array length entry %llu gives %llu dimensions (max %d)",
                          (unsigned long long)src,
                          (unsigned long long)l->schema->entries[src].arrayOrUnionDetail,
                          REGISTRY_MAX_DIMS);
    if (se->slot == REGISTRY_NO_SLOT)
        se->slot = l->schema->slot_count++;
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t check_union_entry(layout_t* l, size_t i, finalized_entry_t* fe) {
    uint64_t src = l->schema->entries[i].arrayOrUnionDetail;
    finalized_entry_t* se;
    if (fe->array != 0)
        return entry_fail(l->schema, i, "arrays of UNION schemas are not supported");
    if (src >= i)
        return entry_fail(l->schema, i, "union selector index %llu is not an earlier entry",
                          (unsigned long long)src);
    se = &l->schema->fin[src];
    if (!is_integral(se) || se->form != ENTRY_FORM_INLINE || se->array != 0)
        return entry_fail(l->schema, i, "union selector entry %llu is not an embedded integer",
                          (unsigned long long)src);
    if (se->slot == REGISTRY_NO_SLOT)
        se->slot = l->schema->slot_count++;
    return NVTXW_RESULT_SUCCESS;
}

/* Rules that depend on kind and array shape. */
static nvtxwResultCode_t check_shape(layout_t* l, size_t i, finalized_entry_t* fe) {
    const nvtxPayloadSchemaEntry_t* e = &l->schema->entries[i];
    uint64_t type = l->schema->attr.type;
    int in_union = type == NVTX_PAYLOAD_SCHEMA_TYPE_UNION ||
                   type == NVTX_PAYLOAD_SCHEMA_TYPE_UNION_WITH_INTERNAL_SELECTOR;
    if (fe->kind == ENTRY_KIND_UNION)
        return in_union ? entry_fail(l->schema, i,
                                     "a UNION with an external selector cannot be "
                                     "a union member")
                        : check_union_entry(l, i, fe);
    if (fe->kind == ENTRY_KIND_NESTED && fe->array != 0 &&
        fe->nested->attr.type == NVTX_PAYLOAD_SCHEMA_TYPE_DYNAMIC)
        return entry_fail(l->schema, i, "arrays of DYNAMIC schemas are not supported");
    if (fe->array == NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_FIXED_SIZE && e->arrayOrUnionDetail == 0)
        return entry_fail(l->schema, i, "fixed-size %s with length 0",
                          fe->kind == ENTRY_KIND_STRING ? "string" : "array");
    if (fe->info && fe->info->category == ENTRY_CAT_SELECTOR && fe->array != 0)
        return entry_fail(l->schema, i, "arrays of UNION_SELECTOR are not supported");
    if (in_union && (fe->array == NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_INDEX ||
                     (fe->form == ENTRY_FORM_INLINE && fe->array > 0x10)))
        return entry_fail(l->schema, i, "union members must have a fixed size");
    if (fe->array == NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_INDEX)
        return check_length_source(l, i, fe);
    return NVTXW_RESULT_SUCCESS;
}

/* Inline bytes and runtime flag; 0 = success. */
static nvtxwResultCode_t size_entry(layout_t* l, size_t i, finalized_entry_t* fe) {
    uint64_t detail = l->schema->entries[i].arrayOrUnionDetail;
    int fixed_string = fe->kind == ENTRY_KIND_STRING && (fe->array == 0 || fe->array == 0x10);
    if (fe->form == ENTRY_FORM_POINTER) {
        fe->inline_size = fe->align = sizeof(void*);
    } else if (fe->form != ENTRY_FORM_INLINE) {
        fe->inline_size = fe->align = sizeof(size_t);
    } else if (fixed_string || fe->array == NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_FIXED_SIZE) {
        if (detail > SIZE_MAX / fe->element_size)
            return entry_fail(l->schema, i, "length %llu overflows", (unsigned long long)detail);
        fe->inline_size = (size_t)detail * fe->element_size;
    } else if (fe->array != 0) {
        fe->runtime = 1;
    } else if (fe->nested != NULL && fe->nested->variable) {
        fe->runtime = 1;
    } else {
        fe->inline_size = fe->element_size;
    }
    if (l->schema->attr.packAlign != 0 && fe->align > l->schema->attr.packAlign)
        fe->align = l->schema->attr.packAlign;
    if (fe->align == 0)
        fe->align = 1;
    if (fe->runtime && l->schema->attr.type != NVTX_PAYLOAD_SCHEMA_TYPE_DYNAMIC)
        return entry_fail(l->schema, i,
                          "variable-length embedded data is only allowed in DYNAMIC schemas");
    if (fe->align > l->align)
        l->align = fe->align;
    return NVTXW_RESULT_SUCCESS;
}

static void read_semantics(const nvtxPayloadSchemaEntry_t* e, finalized_entry_t* fe) {
    const nvtxSemanticsHeader_t* h;
    for (h = e->semantics; h != NULL; h = h->next) {
        if (h->semanticId == NVTX_SEMANTIC_ID_TIME_V1 &&
            h->structSize >= sizeof(nvtxSemanticsTime_t))
            fe->time_domain_id = ((const nvtxSemanticsTime_t*)h)->timeDomainId;
        if (h->semanticId == NVTX_SEMANTIC_ID_SCOPE_V1 &&
            h->structSize >= sizeof(nvtxSemanticsScope_t))
            fe->scope_id = ((const nvtxSemanticsScope_t*)h)->scopeId;
    }
}

/* The visitor's view of entry i; its pointers stay valid with the schema. */
static void fill_field(const nvtxw_schema_t* schema, size_t i, finalized_entry_t* fe) {
    const nvtxPayloadSchemaEntry_t* e = &schema->entries[i];
    fe->field.name = e->name ? e->name : "";
    fe->field.description = e->description ? e->description : "";
    fe->field.type = e->type;
    fe->field.flags = e->flags;
    fe->field.entry_index = i;
    fe->field.schema_id = schema->attr.schemaId;
    fe->field.time_domain_id = fe->time_domain_id;
    fe->field.scope_id = fe->scope_id;
    fe->field.entry = e;
}

/* The JSON-text semantic (nvtxw/payload.h) marks a UTF-8 (or ASCII)
 * string: on any other entry it would mean nothing, so it is refused. */
static nvtxwResultCode_t check_json_text(const nvtxw_schema_t* schema, size_t i) {
    const nvtxPayloadSchemaEntry_t* e = &schema->entries[i];
    const nvtxSemanticsHeader_t* h;
    for (h = e->semantics; h != NULL; h = h->next) {
        if (h->semanticId == NVTXW_SEMANTIC_ID_JSON_TEXT &&
            e->type != NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF8 &&
            e->type != NVTX_PAYLOAD_ENTRY_TYPE_CSTRING)
            return entry_fail(schema, i,
                              "the JSON-text semantic needs a CSTRING_UTF8 or CSTRING entry");
    }
    return NVTXW_RESULT_SUCCESS;
}

static nvtxwResultCode_t prepare_entry(layout_t* l, size_t i) {
    finalized_entry_t* fe = &l->schema->fin[i];
    nvtxwResultCode_t status;
    fe->slot = REGISTRY_NO_SLOT;
    status = classify(l, i, fe);
    if (status == NVTXW_RESULT_SUCCESS)
        status = pick_form(l, i, fe);
    if (status == NVTXW_RESULT_SUCCESS)
        status = check_shape(l, i, fe);
    if (status == NVTXW_RESULT_SUCCESS)
        status = size_entry(l, i, fe);
    if (status == NVTXW_RESULT_SUCCESS)
        status = check_json_text(l->schema, i);
    read_semantics(&l->schema->entries[i], fe);
    fill_field(l->schema, i, fe);
    return status;
}

static nvtxwResultCode_t extend(layout_t* l, size_t i, size_t offset, size_t size) {
    if (offset > SIZE_MAX / 2 || size > SIZE_MAX / 2)
        return entry_fail(l->schema, i, "offset %zu plus size %zu overflows", offset, size);
    if (offset + size > l->next)
        l->next = offset + size;
    return NVTXW_RESULT_SUCCESS;
}

/* STATIC and DYNAMIC placement (see the file comment). */
static nvtxwResultCode_t place_struct(layout_t* l, size_t i) {
    finalized_entry_t* fe = &l->schema->fin[i];
    uint64_t given = l->schema->entries[i].offset;
    if (i == 0 || given != 0) {
        if (given > SIZE_MAX / 2)
            return entry_fail(l->schema, i, "offset %llu too large", (unsigned long long)given);
        fe->offset = (size_t)given;
    } else if (l->seen_runtime) {
        fe->offset = SIZE_MAX;
        return NVTXW_RESULT_SUCCESS;
    } else {
        fe->offset = registry_align_up(l->next, fe->align);
    }
    if (fe->runtime) {
        l->seen_runtime = 1;
        return NVTXW_RESULT_SUCCESS;
    }
    return extend(l, i, fe->offset, fe->inline_size);
}

/* UNION_WITH_INTERNAL_SELECTOR: finds the selector, places every entry. */
static nvtxwResultCode_t place_internal_union(layout_t* l) {
    nvtxw_schema_t* s = l->schema;
    size_t n = s->attr.numEntries;
    size_t i;
    size_t selector = SIZE_MAX;
    size_t member_align = 1;
    size_t common;
    nvtxwResultCode_t status = NVTXW_RESULT_SUCCESS;
    for (i = 0; i < n; i++) {
        if (s->entries[i].type != NVTX_PAYLOAD_ENTRY_TYPE_UNION_SELECTOR) {
            member_align = s->fin[i].align > member_align ? s->fin[i].align : member_align;
            continue;
        }
        if (selector != SIZE_MAX)
            return entry_fail(s, i, "second UNION_SELECTOR entry (the first is entry %zu)",
                              selector);
        selector = i;
    }
    if (selector == SIZE_MAX || n < 2)
        return schema_fail(s, "UNION_WITH_INTERNAL_SELECTOR needs one UNION_SELECTOR entry and at "
                              "least one member");
    s->selector_index = selector;
    s->fin[selector].offset = (size_t)s->entries[selector].offset;
    common =
        registry_align_up(s->fin[selector].offset + s->fin[selector].inline_size, member_align);
    for (i = 0; i < n && status == NVTXW_RESULT_SUCCESS; i++) {
        if (i != selector)
            s->fin[i].offset = s->entries[i].offset ? (size_t)s->entries[i].offset : common;
        status = extend(l, i, s->fin[i].offset, s->fin[i].inline_size);
    }
    return status;
}

static nvtxwResultCode_t place_entries(layout_t* l) {
    nvtxw_schema_t* s = l->schema;
    size_t i;
    nvtxwResultCode_t status = NVTXW_RESULT_SUCCESS;
    for (i = 0; i < s->attr.numEntries; i++) {
        if (s->entries[i].offset > SIZE_MAX / 2)
            return entry_fail(s, i, "offset %llu too large",
                              (unsigned long long)s->entries[i].offset);
    }
    if (s->attr.type == NVTX_PAYLOAD_SCHEMA_TYPE_UNION_WITH_INTERNAL_SELECTOR)
        return place_internal_union(l);
    for (i = 0; i < s->attr.numEntries && status == NVTXW_RESULT_SUCCESS; i++) {
        if (s->attr.type == NVTX_PAYLOAD_SCHEMA_TYPE_UNION) {
            s->fin[i].offset = (size_t)s->entries[i].offset;
            status = extend(l, i, s->fin[i].offset, s->fin[i].inline_size);
        } else {
            status = place_struct(l, i);
        }
    }
    return status;
}

static flat_op_t integer_op(flat_op_t one_byte, size_t size) {
    switch (size) {
    case 1:
        return one_byte;
    case 2:
        return (flat_op_t)(one_byte + 1);
    case 4:
        return (flat_op_t)(one_byte + 2);
    case 8:
        return (flat_op_t)(one_byte + 3);
    default:
        return FLAT_OP_NONE;
    }
}

/* Read as the general path's read_float does (visit_number.c): binary32
 * and binary64 directly, every other float converted. */
static flat_op_t float_op(uint64_t type, size_t size) {
    switch (type) {
    case NVTX_PAYLOAD_ENTRY_TYPE_FLOAT:
    case NVTX_PAYLOAD_ENTRY_TYPE_FLOAT32:
    case NVTX_PAYLOAD_ENTRY_TYPE_TF32:
        return size == 4 ? FLAT_OP_FLOAT32 : FLAT_OP_FLOAT_OTHER;
    case NVTX_PAYLOAD_ENTRY_TYPE_DOUBLE:
    case NVTX_PAYLOAD_ENTRY_TYPE_FLOAT64:
        return size == 8 ? FLAT_OP_FLOAT64 : FLAT_OP_FLOAT_OTHER;
    default:
        return FLAT_OP_FLOAT_OTHER;
    }
}

/* How one number or handle of predefined entry `fe` is read (a value, or
 * an element of an array); FLAT_OP_NONE for any other type. */
static flat_op_t element_op(const finalized_entry_t* fe) {
    if (fe->kind != ENTRY_KIND_PREDEFINED || fe->info == NULL || fe->element_size == 0)
        return FLAT_OP_NONE;
    switch (fe->info->category) {
    case ENTRY_CAT_UNSIGNED:
        return integer_op(FLAT_OP_UNSIGNED_1, fe->element_size);
    case ENTRY_CAT_SIGNED:
        return integer_op(FLAT_OP_SIGNED_1, fe->element_size);
    case ENTRY_CAT_FLOAT:
        return float_op(fe->info->type, fe->element_size);
    case ENTRY_CAT_HANDLE:
        if (fe->element_size == 8)
            return FLAT_OP_HANDLE_8;
        return fe->element_size < 8 ? FLAT_OP_HANDLE : FLAT_OP_NONE;
    default:
        return FLAT_OP_NONE;
    }
}

/* Whether entry `fe` lies inline at a fixed offset inside the static size
 * of `s`, and no other entry reads it. */
static int entry_fixed(const nvtxw_schema_t* s, const finalized_entry_t* fe) {
    return fe->form == ENTRY_FORM_INLINE && !fe->runtime && fe->slot == REGISTRY_NO_SLOT &&
           fe->element_size != 0 && fe->offset != SIZE_MAX && fe->offset <= s->static_size &&
           fe->inline_size <= s->static_size - fe->offset;
}

/* How visit_flat walks the entry: one predefined number or handle, inline at
 * a fixed offset inside the static size, no slot (nothing reads it back);
 * FLAT_OP_NONE for any other entry. */
static flat_op_t flat_op_of(const nvtxw_schema_t* s, const finalized_entry_t* fe) {
    if (!entry_fixed(s, fe) || fe->array != 0 || fe->inline_size != fe->element_size)
        return FLAT_OP_NONE;
    return element_op(fe);
}

/* A STATIC schema whose every entry has a flat op: visit_flat's fast path.
 * The ops are kept only when the whole schema is flat. */
static int schema_is_flat(nvtxw_schema_t* s) {
    size_t i;
    if (s->attr.type != NVTX_PAYLOAD_SCHEMA_TYPE_STATIC || s->variable)
        return 0;
    for (i = 0; i < s->attr.numEntries; i++)
        s->fin[i].flat_op = (uint8_t)flat_op_of(s, &s->fin[i]);
    for (i = 0; i < s->attr.numEntries; i++)
        if (s->fin[i].flat_op == FLAT_OP_NONE)
            break;
    if (i == s->attr.numEntries)
        return 1;
    for (i = 0; i < s->attr.numEntries; i++)
        s->fin[i].flat_op = FLAT_OP_NONE;
    return 0;
}

static nvtxwResultCode_t finish_size(layout_t* l) {
    nvtxw_schema_t* s = l->schema;
    size_t given = s->attr.payloadStaticSize;
    size_t i;
    s->alignment = l->align;
    for (i = 0; i < s->attr.numEntries; i++)
        s->variable |= s->fin[i].runtime;
    if (s->attr.type == NVTX_PAYLOAD_SCHEMA_TYPE_DYNAMIC) {
        s->static_size = s->variable ? l->next : registry_align_up(l->next, l->align);
    } else if (given != 0) {
        if (given < l->next)
            return schema_fail(s,
                               "payloadStaticSize %zu is smaller than the %zu bytes the "
                               "entries need",
                               given, l->next);
        s->static_size = given;
    } else {
        s->static_size = registry_align_up(l->next, l->align);
    }
    if (s->static_size == SIZE_MAX)
        return schema_fail(s, "size overflows");
    s->slot_need = s->slot_count + l->child_slots;
    s->depth = 1 + l->child_depth;
    s->flat = schema_is_flat(s);
    if (s->depth > REGISTRY_MAX_DEPTH)
        return schema_fail(s, "nesting depth %u exceeds %d", (unsigned)s->depth,
                           REGISTRY_MAX_DEPTH);
    if (s->slot_need > REGISTRY_MAX_SLOTS)
        return schema_fail(s, "%u length and selector entries along one nesting path (max %d)",
                           (unsigned)s->slot_need, REGISTRY_MAX_SLOTS);
    return NVTXW_RESULT_SUCCESS;
}

nvtxwResultCode_t finalize_schema(const nvtxw_schema_registry_t* registry, nvtxw_schema_t* schema) {
    layout_t l;
    size_t i;
    nvtxwResultCode_t status = NVTXW_RESULT_SUCCESS;
    memset(&l, 0, sizeof l);
    l.registry = registry;
    l.schema = schema;
    l.align = 1;
    schema->fin = nvtxw_calloc(schema->attr.numEntries, sizeof *schema->fin);
    if (schema->fin == NULL)
        return error_oom("a finalized schema");
    schema->selector_index = SIZE_MAX;
    for (i = 0; i < schema->attr.numEntries && status == NVTXW_RESULT_SUCCESS; i++)
        status = prepare_entry(&l, i);
    if (status == NVTXW_RESULT_SUCCESS)
        status = place_entries(&l);
    if (status == NVTXW_RESULT_SUCCESS)
        status = finish_size(&l);
    return status;
}

/* Entry `i` of `s` as a fixed_field; 0 when it is not one. */
static int fixed_entry(const nvtxw_schema_t* s, size_t i, fixed_field* out) {
    const finalized_entry_t* fe = &s->fin[i];
    if ((out->op = flat_op_of(s, fe)) != FLAT_OP_NONE) { /* one number or handle */
        out->elements = 0;
        out->enumeration = NULL;
    } else if (!entry_fixed(s, fe)) {
        return 0;
    } else if (fe->kind == ENTRY_KIND_ENUM && fe->array == 0 &&
               fe->inline_size == fe->element_size && fe->element_size <= 8) {
        out->op = FLAT_OP_NONE;
        out->elements = 0;
        out->enumeration = fe->enumeration;
    } else if (fe->array == NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_FIXED_SIZE &&
               (out->op = element_op(fe)) != FLAT_OP_NONE && /* not BYTE: on_bytes */
               s->entries[i].arrayOrUnionDetail > 0 &&
               fe->inline_size / fe->element_size == s->entries[i].arrayOrUnionDetail &&
               fe->inline_size % fe->element_size == 0) {
        out->elements = (size_t)s->entries[i].arrayOrUnionDetail;
        out->enumeration = NULL;
    } else {
        return 0;
    }
    out->field = &fe->field;
    out->offset = fe->offset;
    out->size = fe->element_size;
    return 1;
}

size_t fixed_layout_of(const nvtxw_schema_t* schema, fixed_field* out, size_t capacity) {
    size_t i, n = schema->attr.numEntries;
    if (schema->attr.type != NVTX_PAYLOAD_SCHEMA_TYPE_STATIC || schema->variable || n > capacity)
        return 0;
    for (i = 0; i < n; i++)
        if (!fixed_entry(schema, i, &out[i]))
            return 0;
    return n;
}

const nvtxw_field_info_t* fixed_field_info(const nvtxw_schema_t* schema, size_t index) {
    return index < schema->attr.numEntries ? &schema->fin[index].field : NULL;
}
