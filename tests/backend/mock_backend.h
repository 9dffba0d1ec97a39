/*
 * tests/backend/mock_backend.h - the recording test backend (libmockbackend).
 *
 * libmockbackend.so exports nvtxwGetInterface (version 2 only), nvtxwFinalize
 * and the mock_backend_* functions below. Every call through its table is
 * appended to a log with its member name, its key arguments and deep copies
 * of the data it was handed (schema attrs and entries, payload bytes, attr
 * structs), so a test can compare what a producer sent byte for byte after
 * the producer's buffers are gone.
 *
 * Tests reach the mock_backend_* functions with dlsym on the module handle.
 * The log lives in the module: it is reset when the module is loaded anew.
 */
#ifndef NVTXW_TESTS_MOCK_BACKEND_H
#define NVTXW_TESTS_MOCK_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "nvtxw/abi.h"

#define MOCK_MAX_CALLS 512
#define MOCK_MAX_ENTRIES 8
#define MOCK_MAX_PAYLOADS 4
#define MOCK_MAX_BYTES 256
#define MOCK_MAX_TEXT 128

/* A schema entry with its strings copied. */
typedef struct mock_entry {
    nvtxPayloadSchemaEntry_t entry; /* pointers as received (compare, never read) */
    char name[MOCK_MAX_TEXT];
    int hasName;
    int hasDescription;
} mock_entry_t;

/* One payload of EventWrite, or the data of CounterWrite. */
typedef struct mock_payload {
    uint64_t schemaId;
    size_t size;
    const void* pointer;                 /* as received */
    unsigned char bytes[MOCK_MAX_BYTES]; /* the first min(size, MOCK_MAX_BYTES) bytes */
} mock_payload_t;

typedef struct mock_call {
    char member[40];    /* table member name, e.g. "SchemaRegister" */
    const void* handle; /* first handle argument: session, domain or stream */
    int outIsNull;      /* the out-parameter was NULL */
    nvtxwResultCode_t result;
    uint64_t u64[3];          /* category / counterId / time domain IDs, reason... */
    int64_t i64[2];           /* timestamps */
    double f64;               /* slope */
    char text[MOCK_MAX_TEXT]; /* name / string argument */
    int hasText;
    /* SchemaRegister */
    nvtxPayloadSchemaAttr_t schemaAttr;
    mock_entry_t entries[MOCK_MAX_ENTRIES];
    uint64_t assignedId; /* ID written to the out-parameter */
    /* EventWrite / CounterWrite */
    size_t payloadCount;
    mock_payload_t payloads[MOCK_MAX_PAYLOADS];
    /* other attr structs, shallow copies */
    nvtxwSessionAttributes_t sessionAttr;
    nvtxwDomainAttributes_t domainAttr;
    nvtxwStreamAttributes_t streamAttr;
    nvtxScopeAttr_t scopeAttr;
    nvtxCounterAttr_t counterAttr;
    nvtxTimeDomainAttr_t timeDomainAttr;
    int attrIsNull;
} mock_call_t;

typedef struct mock_log {
    size_t callCount;
    mock_call_t calls[MOCK_MAX_CALLS];
    int finalizeCount;
    int getInterfaceCount;
} mock_log_t;

/* Exported by libmockbackend.so (C linkage, default visibility). */
typedef const mock_log_t* (*mock_backend_log_t)(void);
typedef void (*mock_backend_reset_t)(void);
/* Makes `member` return `result` from now on (until reset); returns 0, or -1
 * for an unknown member name. */
typedef int (*mock_backend_set_result_t)(const char* member, nvtxwResultCode_t result);
/* The gate: calls of `member` wait in the backend (before they are logged)
 * until release; wait_held returns once one waits. hold returns 0, or -1
 * for an unknown member name. */
typedef int (*mock_backend_hold_t)(const char* member);
typedef void (*mock_backend_wait_held_t)(void);
typedef void (*mock_backend_release_t)(void);

#endif /* NVTXW_TESTS_MOCK_BACKEND_H */
