/*
 * nvtxw/schema_yaml.h - payload schemas and enums in YAML (docs/schemas.md).
 *
 * Loading streams the file through libyaml's event API into a registry;
 * dumping writes registered schemas back in the same format, so
 * load -> dump -> load reproduces the registrations.
 */
#ifndef NVTXW_SCHEMA_YAML_H
#define NVTXW_SCHEMA_YAML_H

#include <stddef.h>
#include <stdint.h>

#include "nvtxw/format.h"
#include "nvtxw/payload.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Registers every enum and schema of a YAML document, in document order.
 * Names used as types ("type: my_schema") must be defined earlier in the same
 * file or already registered in `registry` under that name.
 * `source_name` is used in messages ("file.yaml:12:5: ...") and may be NULL.
 * On error nothing further is registered; items registered before the bad
 * one stay. Returns NVTXW_RESULT_SUCCESS, INVALID_ARGUMENT (bad YAML or
 * schema, message with line:column) or FAILED (I/O, memory).
 */
NVTXW_API nvtxwResultCode_t nvtxw_schema_yaml_load_file(nvtxw_schema_registry_t* registry,
                                                        const char* path);
NVTXW_API nvtxwResultCode_t nvtxw_schema_yaml_load_string(nvtxw_schema_registry_t* registry,
                                                          const char* yaml, size_t length,
                                                          const char* source_name);

/* Writes every schema and enum of `registry` in registration order. */
NVTXW_API nvtxwResultCode_t nvtxw_schema_yaml_dump(const nvtxw_schema_registry_t* registry,
                                                   nvtxw_write_fn write, void* write_ctx);

#ifdef __cplusplus
}
#endif

#endif /* NVTXW_SCHEMA_YAML_H */
