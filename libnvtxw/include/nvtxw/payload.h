/*
 * nvtxw/payload.h - the payload schema engine: per-domain registries of
 * payload schemas and enums, and the streaming visitor that walks payload
 * bytes described by them.
 *
 * Ownership: every input is copied; nothing the caller passes is kept.
 * Pointers returned by the registry (schema views, names, entry arrays) are
 * borrowed and stay valid until the registry is destroyed. Data handed to
 * visitor callbacks is borrowed for the duration of the callback.
 *
 * Errors: functions return NVTXW_RESULT_* codes; on failure
 * nvtxw_last_error() (nvtxw/error.h) holds a message naming what was wrong.
 */
#ifndef NVTXW_PAYLOAD_H
#define NVTXW_PAYLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "nvtxw/abi.h"
#include "nvtxw/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------- */
/* Registry                                                                   */
/* ------------------------------------------------------------------------- */

/* One domain's schemas and enums. Schema and enum IDs share one namespace. */
typedef struct nvtxw_schema_registry nvtxw_schema_registry_t;
/* A registered, finalized schema or enum (borrowed views into a registry). */
typedef struct nvtxw_schema nvtxw_schema_t;
typedef struct nvtxw_enum nvtxw_enum_t;

/* Returns NULL when out of memory. */
NVTXW_API nvtxw_schema_registry_t* nvtxw_schema_registry_create(void);
/* Accepts NULL. */
NVTXW_API void nvtxw_schema_registry_destroy(nvtxw_schema_registry_t* registry);

/*
 * Validates, copies and finalizes a schema (docs/schemas.md).
 * With NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_SCHEMA_ID set, attr->schemaId must lie in
 * [NVTX_PAYLOAD_SCHEMA_ID_STATIC_START, NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START)
 * and be unused by any schema or enum of this registry; id_out may then be
 * NULL. Without it a dynamic ID >= NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START is
 * allocated and written to id_out, which must not be NULL.
 * Nested schemas and enums an entry refers to must be registered earlier.
 * Returns NVTXW_RESULT_SUCCESS or NVTXW_RESULT_INVALID_ARGUMENT (or
 * NVTXW_RESULT_FAILED when out of memory); on failure nothing is registered.
 *
 * Layout (finalized here):
 *  - STATIC/DYNAMIC: an entry's offset is explicit when it is entry 0 or its
 *    offset is non-zero; implicit offsets follow the previous fixed entry,
 *    aligned to the entry's natural alignment capped by packAlign (which must
 *    be a power of two). In DYNAMIC schemas, implicit entries after a
 *    variable-size one are placed at alignUp(cursor, align) while parsing
 *    (the header's rule, not the sample tool's frozen offsets).
 *  - Size: payloadStaticSize when given (it must cover the entries), else
 *    the end of the last entry rounded up to the schema alignment (sizeof).
 *  - POINTER entries hold a pointer, OFFSET_FROM_BASE/OFFSET_FROM_HERE
 *    entries a size_t offset (from the payload start / from the end of the
 *    entry); the array and string flags then describe the data found there.
 *  - UNION: members at offset 0 unless given a non-zero offset; the entry of
 *    union type in the enclosing schema has detail = index of an earlier
 *    embedded integer entry (the selector) whose value v selects member v.
 *    Arrays of UNION schemas are rejected.
 *  - UNION_WITH_INTERNAL_SELECTOR: exactly one UNION_SELECTOR entry (size =
 *    arrayOrUnionDetail if 1, 2, 4 or 8, else 4; implicit offset 0); the
 *    other entries are the members, all at alignUp(selector end, largest
 *    member alignment) unless given a non-zero offset; selector value v
 *    selects the v-th member (counting entries other than the selector).
 *  - LENGTH_INDEX names an earlier embedded integer entry, or an embedded
 *    FIXED/ZERO_TERMINATED integer array giving up to 8 dimensions (not for
 *    strings). Variable-size embedded data only in DYNAMIC schemas; arrays
 *    of DYNAMIC schemas and FIXED arrays of length 0 are rejected. Nesting
 *    is limited to 32 schemas and 256 length/selector entries per path.
 * Semantics chains: scope, time and counter extensions are copied by their
 * struct size (counter units included); unknown extensions are dropped (their
 * layout is unknown, so no copy could be complete). The reserved `extension`
 * field is not kept.
 */
NVTXW_API nvtxwResultCode_t nvtxw_schema_registry_add_schema(nvtxw_schema_registry_t* registry,
                                                             const nvtxPayloadSchemaAttr_t* attr,
                                                             uint64_t* id_out);

/* Same ID rules for enums; sizeOfEnum must be 1, 2, 4 or 8.
 * Enumerator values are matched on their low sizeOfEnum bytes, so a negative
 * C enumerator ((uint64_t)-1) names the payload value 0xFF..FF of any width. */
NVTXW_API nvtxwResultCode_t nvtxw_schema_registry_add_enum(nvtxw_schema_registry_t* registry,
                                                           const nvtxPayloadEnumAttr_t* attr,
                                                           uint64_t* id_out);

/* Lookup by ID; NULL when no schema (or enum) has that ID. */
NVTXW_API const nvtxw_schema_t*
nvtxw_schema_registry_find_schema(const nvtxw_schema_registry_t* registry, uint64_t id);
NVTXW_API const nvtxw_enum_t*
nvtxw_schema_registry_find_enum(const nvtxw_schema_registry_t* registry, uint64_t id);

/* Registrations in registration order: index 0 .. count-1. Each item is either
 * a schema or an enum; the other out pointer is set to NULL. */
NVTXW_API size_t nvtxw_schema_registry_count(const nvtxw_schema_registry_t* registry);
NVTXW_API void nvtxw_schema_registry_at(const nvtxw_schema_registry_t* registry, size_t index,
                                        const nvtxw_schema_t** schema_out,
                                        const nvtxw_enum_t** enum_out);

/*
 * The schema exactly as registered: fieldMask, name, type, flags, the copied
 * entries (with their original offsets and copied semantics chains),
 * payloadStaticSize, packAlign and the assigned schemaId (with the SCHEMA_ID
 * bit set). Feeding it back to nvtxw_schema_registry_add_schema of another
 * registry (holding the nested schemas and enums it names) reproduces the
 * schema; a dynamic ID (>= NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START) is not a
 * valid static ID, so clear the SCHEMA_ID bit first and a new one is
 * assigned. Pointers are borrowed from the registry.
 * Fields whose fieldMask bit was absent read as 0/NULL; EXTENSION is cleared.
 */
NVTXW_API void nvtxw_schema_get_attr(const nvtxw_schema_t* schema, nvtxPayloadSchemaAttr_t* out);
NVTXW_API uint64_t nvtxw_schema_id(const nvtxw_schema_t* schema);
NVTXW_API const char* nvtxw_schema_name(const nvtxw_schema_t* schema); /* "" if unnamed */

/* Finalized layout. */
NVTXW_API size_t nvtxw_schema_static_size(const nvtxw_schema_t* schema);
NVTXW_API size_t nvtxw_schema_alignment(const nvtxw_schema_t* schema);
/* Non-zero when the encoded size depends on the data (runtime lengths). */
NVTXW_API int nvtxw_schema_is_variable_size(const nvtxw_schema_t* schema);
/* Resolved byte offset of entry `index`, or SIZE_MAX when it is only known
 * while parsing (implicit entries after a variable-size one in a DYNAMIC
 * schema). */
NVTXW_API size_t nvtxw_schema_entry_offset(const nvtxw_schema_t* schema, size_t index);

/* The enum as registered (assigned ID, SCHEMA_ID bit set); borrowed. */
NVTXW_API void nvtxw_enum_get_attr(const nvtxw_enum_t* enumeration, nvtxPayloadEnumAttr_t* out);
NVTXW_API uint64_t nvtxw_enum_id(const nvtxw_enum_t* enumeration);

/* Size and natural alignment of a predefined entry type on this platform
 *; 0 when the type is unknown or has no fixed size
 * (UNION_SELECTOR: its entry's detail gives it). C-string types report the
 * pointer size of their pointer form. */
NVTXW_API size_t nvtxw_entry_type_size(uint64_t type);
NVTXW_API size_t nvtxw_entry_type_align(uint64_t type);
/* Symbolic name of a predefined entry type ("INT64", "CSTRING_UTF8"), or
 * NULL when unknown. */
NVTXW_API const char* nvtxw_entry_type_name(uint64_t type);

/*
 * JSON text, an nvtxw extension of NVTX's semantic headers: a UTF-8 string
 * entry whose semantics chain holds a header with this ID (structSize
 * sizeof(nvtxSemanticsHeader_t), version NVTXW_SEMANTIC_JSON_TEXT_VERSION,
 * no fields) carries one JSON value as text ("[512,1,1]", "{\"k\":null}").
 * The JSON sink writes it as that value, not as a string, when it is valid
 * JSON (docs/schemas.md, "JSON text"); every other sink, and any other
 * NVTXW backend, sees the string. The ID lies far above NVIDIA's (1 to 5).
 */
#define NVTXW_SEMANTIC_ID_JSON_TEXT 0x4A53
#define NVTXW_SEMANTIC_JSON_TEXT_VERSION 1

/* ------------------------------------------------------------------------- */
/* Visitor                                                                    */
/* ------------------------------------------------------------------------- */

/* What the parser knows about the field being visited. Borrowed. */
typedef struct nvtxw_field_info {
    const char* name;                      /* never NULL; "" when the entry is unnamed */
    const char* description;               /* never NULL */
    uint64_t type;                         /* predefined entry type, or schema/enum ID */
    uint64_t flags;                        /* NVTX_PAYLOAD_ENTRY_FLAG_* of the entry */
    size_t entry_index;                    /* index in its schema */
    uint64_t schema_id;                    /* schema holding the entry; 0 for predefined payloads */
    uint64_t time_domain_id;               /* from a time semantic on the entry, else 0 */
    uint64_t scope_id;                     /* from a scope semantic on the entry, else 0 */
    const nvtxPayloadSchemaEntry_t* entry; /* registered copy; NULL for predefined payloads */
} nvtxw_field_info_t;

/*
 * Callback struct. The event sequence for one call of nvtxw_payload_visit:
 *
 *   begin_payloads(count)
 *     { payload_begin(index, schema_id, size, schema_name)
 *         { field_begin(field) [array_begin(n)]* value* [array_end]* field_end(field) }*
 *       payload_end(index) }*
 *   end_payloads()
 *
 * value := on_signed | on_unsigned | on_float | on_string | on_bytes |
 *          on_enum | on_string_handle | on_null
 *        | object_begin(schema_id) { field_begin ... field_end }* object_end
 *
 * Arrays (fixed, zero-terminated, length-indexed, length from another
 * payload) produce array_begin/array_end around their elements; a
 * multi-dimensional array nests one array per dimension, row-major. A string
 * is one value, never an array of characters (a ZERO_TERMINATED string entry
 * with detail > 0 is an array of fixed-size strings). A BYTE array is one
 * on_bytes.
 * A union value is object_begin(union schema id), for
 * UNION_WITH_INTERNAL_SELECTOR the selector's field (on_unsigned), then the
 * selected member's field, object_end.
 * Payloads with schema NVTX_TYPE_PAYLOAD_SCHEMA_REFERENCED and payloads of
 * size 0 produce no events (the index sequence then has gaps).
 * Predefined-type payloads (schema ID < 1<<24) are payload_begin(.., type
 * name such as "INT32") with one field named "": C-string types are inline
 * characters (cut at the first NUL, the whole payload without one); other
 * types hold size/elementSize elements (trailing bytes ignored), one is a
 * scalar, several an array, fewer than one an error. RAW payloads are
 * payload_begin(.., "<raw>") with one field "" holding on_bytes(all).
 * Value mapping: signed types and CHAR (when char is signed) -> on_signed;
 * unsigned types, CHAR8/16/32/WCHAR code units, ADDRESS, COLOR_ARGB,
 * RANGE_ID, CATEGORY, SCOPE_ID, PID/TID, UNION_SELECTOR -> on_unsigned
 * (consumers format ADDRESS/COLOR as hex from the field type); every float
 * type -> on_float (FLOAT16, BF16 exact; FLOAT128 rounded to the nearest
 * double); INT128/UINT128 -> on_bytes (16 bytes, memory order); enums read
 * sizeOfEnum bytes unsigned.
 *
 * Every member may be NULL (nothing is called). A non-zero return stops the
 * walk; nvtxw_payload_visit then returns NVTXW_RESULT_FAILED with a message
 * naming the callback. struct_size = sizeof(nvtxw_visitor_t).
 */
typedef struct nvtxw_visitor {
    size_t struct_size;
    int (*begin_payloads)(void* ctx, size_t count);
    int (*payload_begin)(void* ctx, size_t index, uint64_t schema_id, size_t size,
                         const char* schema_name);
    int (*payload_end)(void* ctx, size_t index);
    int (*field_begin)(void* ctx, const nvtxw_field_info_t* field);
    int (*field_end)(void* ctx, const nvtxw_field_info_t* field);
    int (*array_begin)(void* ctx, uint64_t length);
    int (*array_end)(void* ctx);
    int (*object_begin)(void* ctx, uint64_t schema_id);
    int (*object_end)(void* ctx);
    int (*on_signed)(void* ctx, int64_t value);
    int (*on_unsigned)(void* ctx, uint64_t value);
    int (*on_float)(void* ctx, double value);
    /* Valid UTF-8 (invalid input is replaced by U+FFFD), length in bytes,
     * NUL-terminated as a convenience. UTF-16/32 is transcoded (surrogate
     * pairs joined; unpaired surrogates and code points beyond U+10FFFF
     * become U+FFFD); CSTRING (locale) is taken as UTF-8. */
    int (*on_string)(void* ctx, const char* utf8, size_t length);
    int (*on_bytes)(void* ctx, const void* data, size_t size);
    /* name: the matching enumerator, or the names of all isFlag entries
     * contained in the value joined by '|' when they cover it exactly (cut
     * with "..." beyond 255 bytes); NULL when no name matches. */
    int (*on_enum)(void* ctx, uint64_t value, const char* name);
    /* text: the registered string, or NULL when the resolver does not know
     * the handle (or none was given). */
    int (*on_string_handle)(void* ctx, uint64_t handle, const char* text);
    /* An absent value: NULL string pointer, type without a known size. */
    int (*on_null)(void* ctx);
    int (*end_payloads)(void* ctx);
} nvtxw_visitor_t;

/* Options for nvtxw_payload_visit; NULL means all defaults. */
typedef struct nvtxw_visit_options {
    size_t struct_size; /* sizeof(nvtxw_visit_options_t) */
    /* Resolves NVTX_REGISTERED_STRING_HANDLE values; may be NULL. The
     * returned text is borrowed for the callback that receives it. */
    const char* (*resolve_string)(void* resolve_ctx, uint64_t handle);
    void* resolve_ctx;
    uint32_t flags; /* NVTXW_VISIT_* */
    /* Where the payloads lay in the producer's memory, one address per
     * payload (a report reader's rebuilt payloads): a POINTER value A lies in
     * payload i when origins[i] <= A < origins[i] + payloads[i].size, and is
     * read at payloads[i].payload + (A - origins[i]). NULL: the payload
     * pointers themselves. Borrowed for the call. */
    const uint64_t* payload_origins;
} nvtxw_visit_options_t;

/*
 * In-process use only (the producer's memory is mapped): a POINTER entry that
 * does not point into a payload of the same event, in a schema and entry that
 * both carry DEEP_COPY, is read from the producer's memory. Without this flag
 * such a pointer is an error. Never set it for data read from a file.
 */
#define NVTXW_VISIT_ALLOW_FOREIGN_POINTERS (1u << 0)

/*
 * Walks `count` payloads that together form one event and
 * calls `visitor`. Memory use is constant: no tree is built; the only heap
 * use is one scratch buffer for strings that cannot be passed in place
 * (transcoded, or without a NUL in bounds), reused for the whole call and
 * bounded by the longest string. Every read is bounds-checked against its
 * payload's size (zero-terminated scans stop at the payload end).
 * A POINTER entry must point into a payload of the same event (a NULL
 * pointer is on_null); detail 0 on a C-string selects the NUL-terminated
 * pointer form. A size of SIZE_MAX is only accepted for predefined C-string
 * types and is measured in the producer's memory (in-process use).
 * A STATIC schema payload shorter than the schema fails before
 * payload_begin, naming the first field that does not fit; one that holds
 * every entry but not the tail padding (or a larger payloadStaticSize) is
 * decoded. A LENGTH_INDEX / LENGTH_PAYLOAD_INDEX POINTER entry
 * of zero elements is an empty value whatever its pointer. Lengths that do
 * not fit the remaining bytes are errors, never clamped; an array whose
 * outer dimensions multiply to more than max(bytes left, 4096) rows is
 * rejected, since empty rows would otherwise cost unbounded events.
 * Errors (NVTXW_RESULT_INVALID_ARGUMENT; nvtxw_last_error() names the payload
 * index, schema and field path such as "values[2].name"): unknown or
 * unregistered schema IDs, payloads shorter than their schema requires,
 * lengths that do not fit, pointers that resolve nowhere, invalid union
 * selectors (out of range or negative), SIZE_MAX sizes on non-string
 * payloads, NULL payload pointers. Schema registration errors name the
 * schema and the entry index and name: 'cannot register schema "s": entry 2
 * "count": ...'.
 * `registry` may be NULL when only predefined types are used.
 */
NVTXW_API nvtxwResultCode_t nvtxw_payload_visit(const nvtxw_schema_registry_t* registry,
                                                const nvtxPayloadData_t* payloads, size_t count,
                                                const nvtxw_visitor_t* visitor, void* ctx,
                                                const nvtxw_visit_options_t* options);

/*
 * Bytes one payload of `schema_id` occupies at `data` (at most `size`): the
 * static size of a STATIC schema, the parsed extent of a DYNAMIC one. Used to
 * step through event batches of dynamic schemas. Same errors as
 * nvtxw_payload_visit.
 */
NVTXW_API nvtxwResultCode_t nvtxw_payload_measure(const nvtxw_schema_registry_t* registry,
                                                  uint64_t schema_id, const void* data, size_t size,
                                                  size_t* consumed);

#ifdef __cplusplus
}
#endif

#endif /* NVTXW_PAYLOAD_H */
