/*
 * tools/replay/synthetic/synthetic_nested.h - the `nested` generator's payload sample
 * (synthetic_nested_payload.c), shared with its driver (synthetic_nested.c).
 */
#ifndef NVTXW_SYNTHETIC_NESTED_H
#define NVTXW_SYNTHETIC_NESTED_H

#include "synthetic.h"

/* Bytes of the largest variable-size payload of a sample. */
#define NESTED_VARIABLE_MAX 128

/* The IDs the payload sample needs, per domain. */
typedef struct nested_schemas {
    uint64_t level_enum, flags_enum;
    uint64_t inner, value, tagged;
    uint64_t everything, variable;
    nvtxStringHandle_t message;
} nested_schemas;

/* Registers the enums and schemas of the sample in `domain`; 0 or 1. */
int nested_register_payloads(synth_run* run, nvtxDomainHandle_t domain, nested_schemas* out);

/* Writes one sample (a mark at `ts`, four payloads); 0 or 1. */
int nested_write_payloads(synth_run* run, nvtxwStreamHandle_t stream, const nested_schemas* ids,
                          int64_t ts, uint32_t category);

#endif /* NVTXW_SYNTHETIC_NESTED_H */
