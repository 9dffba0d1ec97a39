/*
 * nvtxw/format.h - JSON and text renderings of payloads, both built on the
 * visitor (nvtxw/payload.h). Output goes to a caller-supplied write function,
 * so the formatters need no buffer of their own beyond a small nesting stack.
 */
#ifndef NVTXW_FORMAT_H
#define NVTXW_FORMAT_H

#include <stddef.h>
#include <stdio.h>

#include "nvtxw/payload.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Receives output bytes; returns 0 on success, non-zero to abort. */
typedef int (*nvtxw_write_fn)(void* write_ctx, const char* data, size_t size);

/* Convenience writer for a FILE* (write_ctx is the FILE*). */
NVTXW_API int nvtxw_write_to_file(void* file, const char* data, size_t size);

/*
 * JSON (RFC 8259, one line, no trailing newline):
 *   {"count":N,"payloads":[{"index":I,"schemaId":S,"size":Z,
 *     "schemaName":"..."|null,"fields":{"name":value,...}},...]}
 * Unnamed fields are keyed "<field_K>"; objects are JSON objects, arrays JSON
 * arrays; raw bytes are "0x.." lowercase hex in memory order; enums are the
 * name string (or the number); registered strings their text (or
 * {"handle":H}); floats that are not finite are strings "nan", "inf", "-inf".
 * Strings are escaped for any UTF-8. Same errors as nvtxw_payload_visit.
 */
NVTXW_API nvtxwResultCode_t nvtxw_payload_format_json(const nvtxw_schema_registry_t* registry,
                                                      const nvtxPayloadData_t* payloads,
                                                      size_t count,
                                                      const nvtxw_visit_options_t* options,
                                                      nvtxw_write_fn write, void* write_ctx);

/*
 * Text, one line per payload: "[I] schema-name: name=value, name=[a, b],
 * name={k=v, ...}". Strings are quoted with C escapes; ADDRESS and
 * COLOR_ARGB values print as hex.
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
