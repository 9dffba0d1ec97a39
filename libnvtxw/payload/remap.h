/*
 * payload/remap.h - re-issuing registrations and events into another NVTXW
 * session: the source session's dynamic IDs and string handles become the
 * target's. Shared by the report replay (reader/reader_replay*.c) and the
 * forwarding sink (sink/backend/).
 *
 * Model: the source registered things in a domain and got IDs; the same
 * registrations made in the target return the target's IDs. Static IDs
 * (below NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START) are kept as they are; dynamic
 * ones are remembered in a remap_ids map per kind, and every later reference
 * (nested entry types, counter schemas, scopes, clocks, semantics, payload
 * schema IDs and fields) is translated through it. Registered string handles
 * are mapped by their source index (the low 32 bits, index + 1), which both
 * the core and the report use.
 *
 * Threading: maps are written by registrations only; lookups are safe from
 * many threads while nobody registers (the NVTXW contract).
 */
#ifndef NVTXW_PAYLOAD_REMAP_H
#define NVTXW_PAYLOAD_REMAP_H

#include <stddef.h>
#include <stdint.h>

#include "nvtxw/abi.h"
#include "nvtxw/payload.h"

/* Source ID -> target ID (open addressing; 0 keys are empty). Dynamic IDs
 * are always stored; a static ID only when the target gave it another ID
 * (a merge whose inputs registered that static ID differently), which
 * `has_static` says, so maps without one answer static IDs unprobed. */
typedef struct remap_ids {
    uint64_t* keys;
    uint64_t* values;
    size_t capacity, count;
    int has_static;
} remap_ids;

/* Returns `id` unchanged unless it is mapped. */
uint64_t remap_id(const remap_ids* map, uint64_t id);
/* Records id -> value for a dynamic `id` (static IDs are not stored).
 * Returns 0, or -1 when out of memory. */
int remap_id_put(remap_ids* map, uint64_t id, uint64_t value);
/* Records id -> value for any non-zero `id`, static ones included.
 * Returns 0, or -1 when out of memory. */
int remap_id_put_any(remap_ids* map, uint64_t id, uint64_t value);
void remap_ids_free(remap_ids* map);

/* What one source domain's references become in the target. */
typedef struct remap_domain {
    nvtxDomainHandle_t handle;   /* the target's domain */
    nvtxStringHandle_t* strings; /* target handle by source string index */
    size_t string_count, string_capacity;
    remap_ids schemas; /* schemas and enums: one namespace per domain */
    remap_ids scopes, counters, time_domains;
    remap_ids categories; /* only categories renumbered by a merge */
} remap_domain;

/* The slot for source string index `index` (0-based), grown as needed and
 * zero-filled; string_count covers it afterwards. NULL when out of memory. */
nvtxStringHandle_t* remap_string_slot(remap_domain* domain, size_t index);
/* Target handle of a source handle; the handle itself when unknown. */
uint64_t remap_string(const remap_domain* domain, uint64_t handle);
/* Frees the maps and strings (not the struct); leaves it zeroed. */
void remap_domain_clear(remap_domain* domain);

/* Scratch allocator for translated copies, valid until the caller's call
 * into the target returns. NULL when out of memory. */
typedef void* (*remap_alloc_fn)(void* ctx, size_t size);

/* A copy of a semantics chain with scope and time domain IDs translated;
 * *out is NULL for an empty chain. Returns 0, or -1 when out of memory. */
int remap_semantics(const remap_domain* domain, const nvtxSemanticsHeader_t* src,
                    remap_alloc_fn alloc, void* ctx, const nvtxSemanticsHeader_t** out);
/* Replaces attr->entries with a copy whose nested types and semantics are
 * translated, and clears the SCHEMA_ID bit when the ID is dynamic (the
 * target assigns its own). Returns 0, or -1 when out of memory. */
int remap_schema_attr(const remap_domain* domain, nvtxPayloadSchemaAttr_t* attr,
                      remap_alloc_fn alloc, void* ctx);
/* Translates schema, scope and semantics references of a counter attr in
 * place; a dynamic counterId becomes NVTX_COUNTER_ID_NONE. Returns 0 or -1. */
int remap_counter_attr(const remap_domain* domain, nvtxCounterAttr_t* attr, remap_alloc_fn alloc,
                       void* ctx);

/*
 * Rewrites an event's payload copies for the target: registered string
 * handles, SCOPE_ID and CATEGORY values become the target's, and POINTER values equal
 * to a source address (origins[j] + k, k < size of payload j) point to the
 * same byte of copies[j]. `registry` and `source_ids` describe the source
 * (schema IDs before translation). Only fixed positions are rewritten:
 * top-level entries with a resolved offset, elements of FIXED_SIZE arrays,
 * and the same inside nested schemas by value, up to 32 levels; union
 * members and positions known only while parsing are left as they are.
 * Every access is bounds-checked against copies[i].size.
 */
typedef struct remap_event {
    const remap_domain* domain;
    const nvtxw_schema_registry_t* registry;
    const uint64_t* source_ids; /* source schemaId of each payload */
    const uint64_t* origins;    /* source address of each payload (0: not a
                                   copy, never rewritten into), or NULL */
    nvtxPayloadData_t* copies;  /* writable copies, target schema IDs */
    size_t count;
} remap_event;

void remap_event_patch(const remap_event* event);

#endif /* NVTXW_PAYLOAD_REMAP_H */
