/*
 * nvtxw/format.h - JSON and text renderings of payloads, both built on the
 * visitor (nvtxw/payload.h). Output goes to a caller-supplied write function,
 * so the formatters need no memory beyond a fixed output buffer and a fixed
 * nesting stack.
 */
#ifndef NVTXW_FORMAT_H
#define NVTXW_FORMAT_H

#include <stddef.h>
#include <stdio.h>

#include "nvtxw/payload.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Receives output bytes; returns 0 on success, non-zero to abort. `data` is
 * borrowed for the call. The formatters collect output in a fixed 4 KiB
 * buffer and call this with at most that many bytes at a time. */
typedef int (*nvtxw_write_fn)(void* write_ctx, const char* data, size_t size);

/* Convenience writer for a FILE* (write_ctx is the FILE*): fwrite, 0 when
 * every byte was written, -1 otherwise (also for a NULL file). */
NVTXW_API int nvtxw_write_to_file(void* file, const char* data, size_t size);

/*
 * Both formatters walk the payloads with nvtxw_payload_visit (same registry,
 * payloads, count and options) in constant memory, streaming to `write`.
 * Errors: `write` NULL => NVTXW_RESULT_INVALID_ARGUMENT. A failing `write`
 * => NVTXW_RESULT_FAILED, "cannot format payloads as JSON: write function
 * returned R, bytes_written=N". A visitor error => the visitor's code and
 * message, prefixed "cannot format payloads as JSON: " (or "as text: ").
 * On failure the output written so far is an incomplete prefix.
 * Unnamed fields are keyed "<field_K>", K being the field's 0-based position
 * in its object. Duplicate field names in one object are kept as they are.
 */

/*
 * JSON (RFC 8259, UTF-8, one line, no trailing newline):
 *   {"count":N,"payloads":[{"index":I,"schemaId":S,"size":Z,
 *     "schemaName":"..."|null,"fields":{"name":value,...}},...]}
 * N is `count`; payloads without events (REFERENCED, size 0) are absent, I
 * is the index in `payloads`. schemaName is null when the schema has no
 * name. Values: integers as exact decimals (full int64/uint64 range);
 * finite floats as the shortest %.Ng (N <= 17) that reads back equal
 * ("-0", "1e+300", "5e-324"), others as the strings "nan", "inf", "-inf"; strings
 * escaped (\" \\ \b \f \n \r \t, other control characters \u00xx,
 * bytes that are not well-formed UTF-8 \ufffd; DEL and non-ASCII copied);
 * raw bytes "0x.." lowercase hex in memory order; enums the enumerator name
 * (flags joined by '|') or the number; registered strings their text or
 * {"handle":H}; absent values and fields without a value null; nested
 * schemas objects; arrays (one level per dimension) arrays; a string of an
 * entry marked as JSON text (NVTXW_SEMANTIC_ID_JSON_TEXT, nvtxw/payload.h)
 * the JSON value it holds, compacted, when it is one valid JSON value.
 */
NVTXW_API nvtxwResultCode_t nvtxw_payload_format_json(const nvtxw_schema_registry_t* registry,
                                                      const nvtxPayloadData_t* payloads,
                                                      size_t count,
                                                      const nvtxw_visit_options_t* options,
                                                      nvtxw_write_fn write, void* write_ctx);

/*
 * Text, one line per payload, each ending in '\n' (nothing for count 0):
 *   [I] title: name=value, name=[a, b], name={k=v, ...}
 * title is the schema name, else the predefined type's name ("INT32"), else
 * "<schema_S>"; a payload without fields ends right after the ':'. Values
 * as in JSON except: strings in double quotes with C escapes (\" \\ \n \r
 * \t, other control characters, DEL and bytes that are not well-formed
 * UTF-8 as \xHH); titles, names and enumerator names escaped the same way
 * but unquoted, so one payload never spans lines; nan, inf, -inf bare;
 * ADDRESS values 0x%016llx and COLOR_ARGB values 0x%08x (also when they
 * arrive as raw bytes of 8 or 4 bytes, read in host order); raw bytes 0x..;
 * unresolved registered strings <handle:H>; absent values null.
 */
NVTXW_API nvtxwResultCode_t nvtxw_payload_format_text(const nvtxw_schema_registry_t* registry,
                                                      const nvtxPayloadData_t* payloads,
                                                      size_t count,
                                                      const nvtxw_visit_options_t* options,
                                                      nvtxw_write_fn write, void* write_ctx);

#ifdef __cplusplus
}
#endif

#endif /* NVTXW_FORMAT_H */
