/*
 * schema/yaml_internal.h - shared by the YAML schema loader and dumper
 * (docs/schemas.md): the symbolic name tables and a sorted name index.
 *
 * Every table maps a lowercase YAML name to the numeric value it stands for
 * in the NVTX ABI. Values are listed once; a name lookup and a value lookup
 * are both linear scans (the tables have at most ~50 rows).
 */
#ifndef NVTXW_SCHEMA_YAML_INTERNAL_H
#define NVTXW_SCHEMA_YAML_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <yaml.h>

#include "common/error_internal.h"
#include "nvtxw/abi.h"
#include "nvtxw/payload.h"

typedef struct schema_yaml_name {
    const char* name;
    uint64_t value;
} schema_yaml_name_t;

typedef struct schema_yaml_name_table {
    const schema_yaml_name_t* rows;
    size_t count;
} schema_yaml_name_table_t;

/* Predefined entry types (spec 3.2): "int64" -> 17, "registered_string" -> 80. */
extern const schema_yaml_name_table_t schema_yaml_entry_types;
/* Schema kinds (nvtxPayloadSchemaAttr_t::type): "static" -> 1 ... */
extern const schema_yaml_name_table_t schema_yaml_schema_kinds;
/* Schema flag bits outside the role field: "deep_copy" -> 2, "referenced" -> 4. */
extern const schema_yaml_name_table_t schema_yaml_schema_flags;
/* Schema event roles, as the value of the role field (flags >> 3) & 0xF. */
extern const schema_yaml_name_table_t schema_yaml_schema_roles;
/* Entry flag bits outside the array, semantic and role fields. */
extern const schema_yaml_name_table_t schema_yaml_entry_flags;
/* Entry semantic field value, (flags >> 10) & 3: "event_message" -> 1. */
extern const schema_yaml_name_table_t schema_yaml_entry_semantics;
/* Entry role field value, (flags >> 12) & 7: "range_begin" -> 1. */
extern const schema_yaml_name_table_t schema_yaml_entry_roles;
/* Counter semantic (spec 2.5): flag bits outside the two fields below,
 * value type field (flags >> 4) & 3, interpolation field (flags >> 8) & 7,
 * and limitType values. */
extern const schema_yaml_name_table_t schema_yaml_counter_flags;
extern const schema_yaml_name_table_t schema_yaml_counter_value_types;
extern const schema_yaml_name_table_t schema_yaml_counter_interpolations;
extern const schema_yaml_name_table_t schema_yaml_counter_limit_types;

/* Schema flag fields (spec 3.4). */
#define YAML_SCHEMA_ROLE_SHIFT 3
#define YAML_SCHEMA_ROLE_MASK ((uint64_t)0xF << YAML_SCHEMA_ROLE_SHIFT)
/* Entry flag fields (spec 3.3). */
#define YAML_ENTRY_ARRAY_SHIFT 4
#define YAML_ENTRY_SEMANTIC_SHIFT 10
#define YAML_ENTRY_ROLE_SHIFT 12
/* Counter semantic flag fields (spec 2.5). */
#define YAML_COUNTER_VALUE_TYPE_SHIFT 4
#define YAML_COUNTER_VALUE_TYPE_MASK ((uint64_t)3 << YAML_COUNTER_VALUE_TYPE_SHIFT)
#define YAML_COUNTER_INTERPOLATION_SHIFT 8
#define YAML_COUNTER_INTERPOLATION_MASK ((uint64_t)7 << YAML_COUNTER_INTERPOLATION_SHIFT)

/* Limits that keep hostile input bounded (docs/schemas.md, "Limits"). */
#define YAML_MAX_ENTRIES 65535u            /* entries per schema, values per enum */
#define YAML_MAX_STRING 4096u              /* bytes in one name or description */
#define YAML_MAX_SCHEMA_STRINGS (1u << 20) /* string bytes held by one item */
#define YAML_MAX_INPUT ((size_t)64 << 20)  /* bytes read from one file */

/* Name of `value` in `table`, or NULL. */
const char* schema_yaml_name_of(const schema_yaml_name_table_t* table, uint64_t value);
/* Value of `name` (exactly `length` bytes) in `table`; 0 when found, -1 if not. */
int schema_yaml_value_of(const schema_yaml_name_table_t* table, const char* name, size_t length,
                         uint64_t* value);

/*
 * Name -> index lookup over the entries of one schema, so that resolving n
 * references costs O(n log n) rather than O(n^2). Unnamed entries (NULL or "")
 * are not indexed. The index borrows the entries array.
 */
typedef struct schema_yaml_entry_name {
    const char* name;
    size_t index;
} schema_yaml_entry_name_t;

typedef struct schema_yaml_entry_index {
    schema_yaml_entry_name_t* sorted; /* named entries sorted by name, then index */
    size_t count;
} schema_yaml_entry_index_t;

/* Returns NVTXW_RESULT_SUCCESS or NVTXW_RESULT_FAILED (out of memory). */
nvtxwResultCode_t schema_yaml_entry_index_build(schema_yaml_entry_index_t* index,
                                                const nvtxPayloadSchemaEntry_t* entries,
                                                size_t count);
void schema_yaml_entry_index_free(schema_yaml_entry_index_t* index);
/* Index of the entry named `name`; -1 when none is, -2 when several are. */
long schema_yaml_entry_index_find(const schema_yaml_entry_index_t* index, const char* name);

/* ------------------------------------------------------------------------- */
/* Loader core (yaml_load.c), used by the item parsers (yaml_items.c)         */
/* ------------------------------------------------------------------------- */

/*
 * Parsing state of one load call. `event` is the current event; every parse
 * function is entered with the first event of its node current and returns
 * with the node's last event (the scalar, or its MAPPING_END/SEQUENCE_END)
 * current. Functions returning int give 0 on success and -1 after recording
 * the error (message and `status`).
 */
typedef struct schema_yaml_loader {
    yaml_parser_t parser;
    yaml_event_t event;
    int has_event;
    const char* source;                /* for messages */
    nvtxw_schema_registry_t* registry; /* where items are registered */
    size_t string_budget;              /* bytes the current item may still copy */
    nvtxwResultCode_t status;
} schema_yaml_loader_t;

/* Advances to the next event; rejects aliases, anchors and tags. */
int schema_yaml_loader_next(schema_yaml_loader_t* loader);
/* Records "SOURCE:LINE:COLUMN: <message>" (INVALID_ARGUMENT) at `mark`. */
int schema_yaml_loader_fail(schema_yaml_loader_t* loader, yaml_mark_t mark, const char* format, ...)
    NVTXW_PRINTF(3, 4);
/* Records an out-of-memory failure (FAILED). */
int schema_yaml_loader_oom(schema_yaml_loader_t* loader, const char* what);
/* Prefixes the current nvtxw_last_error() with "SOURCE:LINE:COLUMN: " and
 * keeps the code (used when the registry rejects an item). */
int schema_yaml_loader_wrap(schema_yaml_loader_t* loader, yaml_mark_t mark, nvtxwResultCode_t code);

/* Fails unless the current event has `type`; `what` names the node. */
int schema_yaml_expect(schema_yaml_loader_t* loader, yaml_event_type_t type, const char* what);
/* The current event is a mapping key: returns its index in `keys` and marks
 * it in `*seen`; fails on unknown and repeated keys. */
int schema_yaml_read_key(schema_yaml_loader_t* loader, const char* const* keys, size_t count,
                         const char* what, uint32_t* seen);
/* Fails naming the first of `required` (bit mask over key indices) missing
 * from `seen`, at `mark` (the mapping's start). */
int schema_yaml_require_keys(schema_yaml_loader_t* loader, const char* const* keys, uint32_t seen,
                             uint32_t required, yaml_mark_t mark, const char* what);
/* Copies a string scalar (charged to string_budget) into a new buffer. */
int schema_yaml_read_string(schema_yaml_loader_t* loader, const char* what, char** out);
/* Parses `length` bytes of decimal or 0x-hex digits, after a '-' when
 * allow_negative (stored as two's complement); the magnitude must not exceed
 * `max`. Returns 0, -1 (not a number) or -2 (out of range). */
int schema_yaml_parse_number(const char* text, size_t length, int allow_negative, uint64_t max,
                             uint64_t* out);
/* Reads an unsigned decimal or 0x-hex integer no larger than `max`. */
int schema_yaml_read_u64(schema_yaml_loader_t* loader, const char* what, uint64_t max,
                         uint64_t* out);
/* As schema_yaml_read_u64, but also accepts "-N" (stored as two's complement). */
int schema_yaml_read_i64_or_u64(schema_yaml_loader_t* loader, const char* what, uint64_t* out);
/* Reads `[ NAME | INT, ... ]` (names of `table`) and ORs the values into *flags. */
int schema_yaml_read_flag_list(schema_yaml_loader_t* loader, const schema_yaml_name_table_t* table,
                               const char* what, uint64_t* flags);
/* Reads true or false. */
int schema_yaml_read_bool(schema_yaml_loader_t* loader, const char* what, int* out);
/* Reads a name of `table` or a plain integer no larger than `max`. */
int schema_yaml_read_symbol(schema_yaml_loader_t* loader, const schema_yaml_name_table_t* table,
                            const char* what, uint64_t max, uint64_t* out);
/* Non-zero when the current scalar is plain and starts with a digit, i.e.
 * is a number rather than a name. */
int schema_yaml_scalar_is_number(const schema_yaml_loader_t* loader);

/* A counter semantic being loaded (yaml_counter.c); `unit` of the
 * semantic is owned until the item is registered. */
typedef struct schema_yaml_counter {
    int given;
    nvtxSemanticsCounter_t semantic;
} schema_yaml_counter_t;

/* Parses `counter: {...}` (current event: its MAPPING_START) into a full
 * version-2 nvtxSemanticsCounter_t; min and max are read by limit_type. */
int schema_yaml_read_counter(schema_yaml_loader_t* loader, schema_yaml_counter_t* counter);
void schema_yaml_counter_free(schema_yaml_counter_t* counter);
/* Longest text of schema_yaml_format_double(), NUL included. */
#define YAML_DOUBLE_CHARS 32
/* The shortest decimal that reads back as `value` (".inf", "-.inf", ".nan"
 * for the non-finite ones), always with '.' as the decimal point. */
void schema_yaml_format_double(double value, char text[YAML_DOUBLE_CHARS]);

/* Item parsers (yaml_items.c): parse one schema / enum mapping and register it. */
int schema_yaml_load_schema(schema_yaml_loader_t* loader);
int schema_yaml_load_enum(schema_yaml_loader_t* loader);
/* Looks `name` up among the registry's named schemas and enums: returns the
 * number of matches (0, 1, or 2 meaning "several") and the first one's ID. */
int schema_yaml_registry_find_name(const nvtxw_schema_registry_t* registry, const char* name,
                                   uint64_t* id);

#endif /* NVTXW_SCHEMA_YAML_INTERNAL_H */
