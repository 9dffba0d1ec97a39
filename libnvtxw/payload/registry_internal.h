/*
 * payload/registry_internal.h - the finalized form of schemas and enums that
 * the registry stores and the visitor walks, shared by entry_types.c,
 * registry.c, finalize.c and visit*.c. Never installed.
 *
 * A schema is finalized once at registration (finalize.c): every entry gets
 * a resolved inline layout (offset, size, alignment), a decoding kind and,
 * when later entries read its value (array lengths, union selectors), a
 * "slot" in which the visitor records where the value lies. Slots keep the
 * visitor's memory constant: a frame needs schema->slot_count positions and
 * a nesting path needs at most REGISTRY_MAX_SLOTS.
 */
#ifndef NVTXW_PAYLOAD_REGISTRY_INTERNAL_H
#define NVTXW_PAYLOAD_REGISTRY_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "nvtxw/payload.h"
#include "payload/fixed_layout.h" /* flat_op_t */

/* Deepest nesting of schemas (by value or through pointers) a schema may have. */
#define REGISTRY_MAX_DEPTH 32
/* Length-source and selector slots along one nesting path. */
#define REGISTRY_MAX_SLOTS 256
/* Most dimensions of a multi-dimensional array. */
#define REGISTRY_MAX_DIMS 8
#define REGISTRY_NO_SLOT ((uint32_t)-1)

/* How a predefined entry type is decoded. */
typedef enum entry_category {
    ENTRY_CAT_NONE = 0, /* unknown type */
    ENTRY_CAT_SIGNED,   /* sign-extended integer: on_signed */
    ENTRY_CAT_UNSIGNED, /* integer or code unit: on_unsigned */
    ENTRY_CAT_FLOAT,    /* on_float after conversion to double */
    ENTRY_CAT_STRING,   /* C string, code unit = size field of the string table */
    ENTRY_CAT_BYTES,    /* raw bytes in memory order: on_bytes */
    ENTRY_CAT_HANDLE,   /* registered string handle: on_string_handle */
    ENTRY_CAT_SELECTOR  /* UNION_SELECTOR: integral, size from the entry detail */
} entry_category_t;

typedef struct entry_type_info {
    uint64_t type;
    const char* name;
    uint16_t size;  /* inline size; pointer size for C strings; 0 for UNION_SELECTOR */
    uint16_t align; /* natural alignment */
    uint16_t unit;  /* code unit of C strings, else 0 */
    uint8_t category;
} entry_type_info_t;

/* Table row of a predefined type, NULL when unknown. */
const entry_type_info_t* registry_entry_type(uint64_t type);

/* What a finalized entry holds. */
typedef enum entry_kind {
    ENTRY_KIND_PREDEFINED = 0, /* numeric, bytes, handle, selector */
    ENTRY_KIND_STRING,         /* C string (any width) */
    ENTRY_KIND_NESTED,         /* STATIC or DYNAMIC schema by value */
    ENTRY_KIND_UNION,          /* UNION schema with an external selector */
    ENTRY_KIND_UNION_INTERNAL, /* UNION_WITH_INTERNAL_SELECTOR schema */
    ENTRY_KIND_ENUM
} entry_kind_t;

/* Where an entry's data lives relative to its inline bytes. */
typedef enum entry_form {
    ENTRY_FORM_INLINE = 0,  /* data embedded at the entry offset */
    ENTRY_FORM_POINTER,     /* inline pointer into another payload (or producer memory) */
    ENTRY_FORM_OFFSET_BASE, /* inline size_t offset from the payload base */
    ENTRY_FORM_OFFSET_HERE  /* inline size_t offset from the end of the entry */
} entry_form_t;

typedef struct finalized_entry {
    nvtxw_field_info_t field; /* what field_begin/field_end report, built once */
    size_t offset;            /* from the object base; SIZE_MAX = cursor at parse time */
    size_t inline_size;       /* bytes at offset; 0 when only known while parsing */
    size_t align;             /* after packAlign capping */
    size_t element_size;      /* one element: type size, code unit, nested static size */
    uint64_t time_domain_id;
    uint64_t scope_id;
    const nvtxw_schema_t* nested; /* NESTED / UNION kinds */
    const nvtxw_enum_t* enumeration;
    const entry_type_info_t* info; /* PREDEFINED and STRING kinds */
    uint32_t slot;                 /* REGISTRY_NO_SLOT unless later entries read this one */
    uint8_t kind;                  /* entry_kind_t */
    uint8_t form;                  /* entry_form_t */
    uint8_t array;                 /* NVTXW_PAYLOAD_ENTRY_ARRAY_KIND(flags) */
    uint8_t runtime;               /* inline size depends on the data */
    uint8_t flat_op;               /* flat_op_t; FLAT_OP_NONE unless the schema is flat */
} finalized_entry_t;

struct nvtxw_schema {
    nvtxPayloadSchemaAttr_t attr;      /* as registered; pointers into the copies */
    nvtxPayloadSchemaEntry_t* entries; /* copied entries, original offsets */
    finalized_entry_t* fin;            /* one per entry */
    size_t static_size;
    size_t alignment;
    size_t selector_index; /* UNION_WITH_INTERNAL_SELECTOR: the selector entry */
    uint32_t slot_count;   /* slots this schema's own entries use */
    uint32_t slot_need;    /* slots this schema and its deepest nesting use */
    uint32_t depth;        /* 1 + deepest nested schema */
    int variable;
    int flat; /* STATIC, every entry an inline scalar number or handle at a fixed
                 offset, none read by another: visit_flat's fast path */
};

typedef struct enum_index {
    uint64_t value;
    size_t entry; /* index into entries */
} enum_index_t;

/* Enumerator values are compared on the low sizeOfEnum bytes (value_mask):
 * a producer's negative C enumerator arrives as (uint64_t)-1 but its payload
 * holds only sizeOfEnum bytes. */
struct nvtxw_enum {
    nvtxPayloadEnumAttr_t attr;
    nvtxPayloadEnum_t* entries;
    uint64_t value_mask;  /* low 8 * sizeOfEnum bits */
    enum_index_t* sorted; /* by masked value; one row per distinct value (last wins) */
    size_t sorted_count;
    int has_flags;
};

/* Lays out `schema` (attr and entries already copied, attr.schemaId set).
 * Returns NVTXW_RESULT_SUCCESS or sets the error and returns
 * NVTXW_RESULT_INVALID_ARGUMENT / NVTXW_RESULT_FAILED (out of memory). */
nvtxwResultCode_t finalize_schema(const nvtxw_schema_registry_t* registry, nvtxw_schema_t* schema);

/* Name of the enumerator whose masked value equals `value` (sizeOfEnum bytes
 * read zero-extended), or NULL. */
const char* registry_enum_lookup(const nvtxw_enum_t* enumeration, uint64_t value);

/* Sets the next dynamic ID the registry hands out and returns the previous
 * one (payload/registry_restore.c registers under exact IDs with it). */
uint64_t registry_exchange_next_dynamic(nvtxw_schema_registry_t* registry, uint64_t next);

/* "name" for messages: the schema's name or "" when unnamed. */
static inline const char* registry_schema_label(const nvtxw_schema_t* schema) {
    return schema->attr.name ? schema->attr.name : "";
}

/* value rounded up to a multiple of align (0 or 1: unchanged); SIZE_MAX when
 * that overflows, which callers treat as "does not fit". */
static inline size_t registry_align_up(size_t value, size_t align) {
    size_t rest = align > 1 ? value % align : 0;
    if (rest == 0)
        return value;
    return value > SIZE_MAX - (align - rest) ? SIZE_MAX : value + (align - rest);
}

#endif /* NVTXW_PAYLOAD_REGISTRY_INTERNAL_H */
