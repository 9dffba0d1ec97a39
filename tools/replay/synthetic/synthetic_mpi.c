/*
 * tools/replay/synthetic/synthetic_mpi.c - the `mpi` generator: ranks that compute,
 * exchange point-to-point messages and meet in collectives.
 *
 * Each rank is one stream with the scope "node<N>/rank<R>". An iteration is
 *   every rank:  compute range; `messages` MPI_Send ranges
 *   every rank:  `messages` MPI_Recv ranges (each ends when its message has
 *                arrived); every `collective_every` iterations one
 *                collective range that ends when the last rank entered it
 *                plus the collective's cost; two counter samples
 * Message j of an iteration goes from rank r to rank (r + offset_j) mod
 * ranks, offset_j and its size drawn once per iteration, so every rank
 * knows what it receives without a message queue: the state is one send
 * time per rank and message slot. Send and receive carry the same
 * message_id as flow_out and flow_in (docs/chrome-json.md, Flows).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synthetic.h"
#include "tool_alloc.h"

enum { P_RANKS = 2, P_PER_NODE, P_ITERATIONS, P_MESSAGES, P_COLLECTIVE, P_BYTES, P_COMPUTE };

static const synth_param params[] = {
    SYNTH_COMMON_PARAMS,
    {"ranks", 8, 2, 4096},
    {"ranks_per_node", 4, 1, 4096},
    {"iterations", 500, 1, UINT64_C(1) << 40},
    {"messages", 2, 0, 64},
    {"collective_every", 4, 0, UINT64_C(1) << 40},
    {"bytes", 65536, 1, UINT64_C(1) << 40},
    {"compute", 50000, 1, UINT64_C(1) << 40},
};

#define MAX_MESSAGES 64

enum { CAT_COMPUTE = 1, CAT_P2P, CAT_COLLECTIVE };

/* A point-to-point end (schema synthetic_mpi_p2p, push/pop role). */
typedef struct p2p_payload {
    int64_t begin, end;
    uint32_t color, category;
    nvtxStringHandle_t event;
    int32_t peer;
    uint32_t tag;
    uint64_t bytes;
    uint64_t message_id;
    uint64_t flow_out; /* message_id on the send, else 0 */
    uint64_t flow_in;  /* message_id on the receive, else 0 */
} p2p_payload;

/* A collective (schema synthetic_mpi_collective, push/pop role). */
typedef struct coll_payload {
    int64_t begin, end;
    uint32_t color, category;
    nvtxStringHandle_t event;
    uint32_t op; /* enum synthetic_mpi_collective_op */
    int32_t root;
    uint64_t bytes;
    uint64_t sequence;
} coll_payload;

static const char* const op_names[] = {"MPI_Barrier", "MPI_Bcast", "MPI_Allreduce", "MPI_Alltoall"};
#define OP_COUNT 4
static const char* const region_names[] = {"stencil", "reduce_local", "pack", "unpack", "solve"};
#define REGION_COUNT 5

typedef struct mpi_state {
    synth_run* run;
    uint64_t ranks, messages;
    nvtxDomainHandle_t domain;
    uint64_t p2p_schema, coll_schema;
    nvtxStringHandle_t send_name, recv_name, ops[OP_COUNT], regions[REGION_COUNT];
    nvtxwEventWriter_t* writers; /* per rank */
    uint64_t* gflops;            /* counter IDs per rank */
    uint64_t* sent;              /* counter IDs per rank */
    int64_t* clock;              /* per rank */
    int64_t* send_time;          /* per rank and message slot */
    uint64_t* bytes_sent;        /* per rank, cumulative */
    uint64_t offset[MAX_MESSAGES], size[MAX_MESSAGES];
    uint64_t collectives;
} mpi_state;

static const nvtxPayloadSchemaEntry_t p2p_entries[] = {
    SYNTH_ENTRY(SYNTH_TS_BEGIN, NVTX_PAYLOAD_ENTRY_TYPE_INT64, "begin", 0,
                offsetof(p2p_payload, begin)),
    SYNTH_ENTRY(SYNTH_TS_END, NVTX_PAYLOAD_ENTRY_TYPE_INT64, "end", 0, offsetof(p2p_payload, end)),
    SYNTH_ENTRY(0, NVTX_PAYLOAD_ENTRY_TYPE_COLOR_ARGB, "color", 0, offsetof(p2p_payload, color)),
    SYNTH_ENTRY(0, NVTX_PAYLOAD_ENTRY_TYPE_CATEGORY, "category", 0,
                offsetof(p2p_payload, category)),
    SYNTH_ENTRY(NVTX_PAYLOAD_ENTRY_FLAG_EVENT_MESSAGE,
                NVTX_PAYLOAD_ENTRY_TYPE_NVTX_REGISTERED_STRING_HANDLE, "event", 0,
                offsetof(p2p_payload, event)),
    SYNTH_ENTRY(0, NVTX_PAYLOAD_ENTRY_TYPE_INT32, "peer", 0, offsetof(p2p_payload, peer)),
    SYNTH_ENTRY(0, NVTX_PAYLOAD_ENTRY_TYPE_UINT32, "tag", 0, offsetof(p2p_payload, tag)),
    SYNTH_ENTRY(0, NVTX_PAYLOAD_ENTRY_TYPE_UINT64, "bytes", 0, offsetof(p2p_payload, bytes)),
    SYNTH_ENTRY(0, NVTX_PAYLOAD_ENTRY_TYPE_UINT64, "message_id", 0,
                offsetof(p2p_payload, message_id)),
    SYNTH_ENTRY(0, NVTX_PAYLOAD_ENTRY_TYPE_UINT64, "flow_out", 0, offsetof(p2p_payload, flow_out)),
    SYNTH_ENTRY(0, NVTX_PAYLOAD_ENTRY_TYPE_UINT64, "flow_in", 0, offsetof(p2p_payload, flow_in)),
};

static int register_schemas(mpi_state* s) {
    static const nvtxPayloadEnum_t ops[OP_COUNT] = {
        {"barrier", 0, 0}, {"bcast", 1, 0}, {"allreduce", 2, 0}, {"alltoall", 3, 0}};
    nvtxPayloadEnumAttr_t e;
    uint64_t op_enum;
    memset(&e, 0, sizeof e);
    e.fieldMask = NVTX_PAYLOAD_ENUM_ATTR_FIELD_NAME | NVTX_PAYLOAD_ENUM_ATTR_FIELD_ENTRIES |
                  NVTX_PAYLOAD_ENUM_ATTR_FIELD_NUM_ENTRIES | NVTX_PAYLOAD_ENUM_ATTR_FIELD_SIZE;
    e.name = "synthetic_mpi_collective_op";
    e.entries = ops;
    e.numEntries = OP_COUNT;
    e.sizeOfEnum = 4;
    if (synth_check(s->run, s->run->t->EnumRegister(s->domain, &e, &op_enum), "register enum %s",
                    e.name) != 0)
        return 1;
    {
        const nvtxPayloadSchemaEntry_t coll[] = {
            p2p_entries[0],
            p2p_entries[1],
            p2p_entries[2],
            p2p_entries[3],
            p2p_entries[4],
            SYNTH_ENTRY(0, op_enum, "op", 0, offsetof(coll_payload, op)),
            SYNTH_ENTRY(0, NVTX_PAYLOAD_ENTRY_TYPE_INT32, "root", 0, offsetof(coll_payload, root)),
            SYNTH_ENTRY(0, NVTX_PAYLOAD_ENTRY_TYPE_UINT64, "bytes", 0,
                        offsetof(coll_payload, bytes)),
            SYNTH_ENTRY(0, NVTX_PAYLOAD_ENTRY_TYPE_UINT64, "sequence", 0,
                        offsetof(coll_payload, sequence))};
        return synth_schema(s->run, s->domain, "synthetic_mpi_p2p", NVTX_PAYLOAD_SCHEMA_TYPE_STATIC,
                            NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_PUSHPOP, p2p_entries,
                            sizeof p2p_entries / sizeof p2p_entries[0], sizeof(p2p_payload),
                            &s->p2p_schema) ||
               synth_schema(s->run, s->domain, "synthetic_mpi_collective",
                            NVTX_PAYLOAD_SCHEMA_TYPE_STATIC, NVTX_PAYLOAD_SCHEMA_FLAG_RANGE_PUSHPOP,
                            coll, sizeof coll / sizeof coll[0], sizeof(coll_payload),
                            &s->coll_schema);
    }
}

static int register_strings(mpi_state* s) {
    static const char* const categories[] = {"compute", "MPI point-to-point", "MPI collective"};
    synth_run* run = s->run;
    for (uint32_t c = 0; c < 3; c++) {
        if (synth_check(run, nvtxwCategoryRegister(run->t, s->domain, c + 1, categories[c]),
                        "register category %s", categories[c]))
            return 1;
    }
    if (synth_check(run, run->t->StringRegister(s->domain, "MPI_Send", &s->send_name),
                    "register a string") ||
        synth_check(run, run->t->StringRegister(s->domain, "MPI_Recv", &s->recv_name),
                    "register a string"))
        return 1;
    for (int i = 0; i < OP_COUNT; i++) {
        if (synth_check(run, run->t->StringRegister(s->domain, op_names[i], &s->ops[i]),
                        "register a string"))
            return 1;
    }
    for (int i = 0; i < REGION_COUNT; i++) {
        if (synth_check(run, run->t->StringRegister(s->domain, region_names[i], &s->regions[i]),
                        "register a string"))
            return 1;
    }
    return 0;
}

/* One stream, scope and two counters per rank. */
static int open_ranks(mpi_state* s, const nvtxwEventHelperSchemaIds_t* ids) {
    synth_run* run = s->run;
    for (uint64_t r = 0; r < s->ranks; r++) {
        char path[64], name[32];
        uint64_t scope;
        nvtxwStreamHandle_t stream;
        snprintf(path, sizeof path, "node%llu/rank%llu",
                 (unsigned long long)(r / run->value[P_PER_NODE]), (unsigned long long)r);
        snprintf(name, sizeof name, "rank %llu", (unsigned long long)r);
        if (synth_scope(run, s->domain, path, &scope) ||
            synth_stream(run, s->domain, name, scope, &stream) ||
            synth_counter(run, s->domain, "GFLOP/s", NVTX_PAYLOAD_ENTRY_TYPE_DOUBLE, scope,
                          &s->gflops[r]) ||
            synth_counter(run, s->domain, "bytes sent", NVTX_PAYLOAD_ENTRY_TYPE_INT64, scope,
                          &s->sent[r]))
            return 1;
        nvtxwEventWriterInit(&s->writers[r], run->t, stream, ids);
    }
    return 0;
}

static int setup(mpi_state* s) {
    synth_run* run = s->run;
    nvtxwEventHelperSchemaIds_t ids;
    if (synth_domain(run, "synthetic.mpi", NVTXW_EVENT_HELPER_SCHEMA_RANGE_PUSHPOP_REG_STRING,
                     &s->domain, &ids))
        return 1;
    return register_schemas(s) || register_strings(s) || open_ranks(s, &ids);
}

/* Transfer time of `bytes`: 2 us latency plus 10 bytes per ns. */
static int64_t transfer_ns(uint64_t bytes) { return 2000 + (int64_t)(bytes / 10); }

static int write_p2p(mpi_state* s, uint64_t rank, int64_t begin, int64_t end, int send,
                     uint64_t peer, uint64_t slot, uint64_t id) {
    p2p_payload p;
    memset(&p, 0, sizeof p);
    p.begin = begin;
    p.end = end;
    p.color = send ? 0xFF2E7D32u : 0xFF1565C0u;
    p.category = CAT_P2P;
    p.event = send ? s->send_name : s->recv_name;
    p.peer = (int32_t)peer;
    p.tag = (uint32_t)slot;
    p.bytes = s->size[slot];
    p.message_id = id;
    p.flow_out = send ? id : 0;
    p.flow_in = send ? 0 : id;
    return synth_write(s->run, s->writers[rank].stream, s->p2p_schema, &p, sizeof p);
}

/* The ID of message `slot` sent by `sender` in iteration `i`: unique, not 0. */
static uint64_t message_id(const mpi_state* s, uint64_t i, uint64_t sender, uint64_t slot) {
    return (i * s->ranks + sender) * s->messages + slot + 1;
}

/* Compute, then the sends, on every rank. */
static int compute_and_send(mpi_state* s, uint64_t i) {
    synth_run* run = s->run;
    uint64_t mean = run->value[P_COMPUTE];
    for (uint64_t r = 0; r < s->ranks; r++) {
        int64_t t = s->clock[r];
        int64_t d = (int64_t)synth_uniform(run, mean / 2, mean + mean / 2);
        nvtxStringHandle_t region = s->regions[synth_uniform(run, 0, REGION_COUNT - 1)];
        if (synth_range(run, &s->writers[r], t, t + d, region, CAT_COMPUTE, 0))
            return 1;
        t += d;
        for (uint64_t j = 0; j < s->messages; j++) {
            int64_t cost = 500 + (int64_t)(s->size[j] / 100);
            uint64_t peer = (r + s->offset[j]) % s->ranks;
            if (write_p2p(s, r, t, t + cost, 1, peer, j, message_id(s, i, r, j)))
                return 1;
            s->send_time[r * s->messages + j] = t;
            s->bytes_sent[r] += s->size[j];
            t += cost + 100;
        }
        s->clock[r] = t;
    }
    return 0;
}

/* Every rank receives, in slot order, the messages sent to it. */
static int receive(mpi_state* s, uint64_t i) {
    for (uint64_t r = 0; r < s->ranks; r++) {
        for (uint64_t j = 0; j < s->messages; j++) {
            uint64_t sender = (r + s->ranks - s->offset[j]) % s->ranks;
            int64_t arrive = s->send_time[sender * s->messages + j] + transfer_ns(s->size[j]);
            int64_t begin = s->clock[r];
            int64_t end = (arrive > begin ? arrive : begin) + 300;
            if (write_p2p(s, r, begin, end, 0, sender, j, message_id(s, i, sender, j)))
                return 1;
            s->clock[r] = end + 100;
        }
    }
    return 0;
}

/* All ranks enter; all leave when the last one entered plus the cost. */
static int collective(mpi_state* s) {
    synth_run* run = s->run;
    uint32_t op = (uint32_t)synth_uniform(run, 0, OP_COUNT - 1);
    uint64_t bytes = op == 0 ? 0 : synth_uniform(run, 8, run->value[P_BYTES]);
    int32_t root = op == 1 ? (int32_t)synth_uniform(run, 0, s->ranks - 1) : -1;
    int64_t last = 0;
    for (uint64_t r = 0; r < s->ranks; r++)
        last = s->clock[r] > last ? s->clock[r] : last;
    last += transfer_ns(bytes) * 2;
    s->collectives++;
    for (uint64_t r = 0; r < s->ranks; r++) {
        coll_payload p;
        memset(&p, 0, sizeof p);
        p.begin = s->clock[r];
        p.end = last;
        p.color = 0xFFC62828u;
        p.category = CAT_COLLECTIVE;
        p.event = s->ops[op];
        p.op = op;
        p.root = root;
        p.bytes = bytes;
        p.sequence = s->collectives;
        if (synth_write(run, s->writers[r].stream, s->coll_schema, &p, sizeof p))
            return 1;
        s->clock[r] = last + 100;
    }
    return 0;
}

static int metrics(mpi_state* s) {
    synth_run* run = s->run;
    for (uint64_t r = 0; r < s->ranks; r++) {
        double gflops = 1.0 + (double)synth_uniform(run, 0, 999999) / 1e5;
        nvtxwStreamHandle_t stream = s->writers[r].stream;
        if (synth_sample_f64(run, stream, s->clock[r], s->gflops[r], gflops) ||
            synth_sample_i64(run, stream, s->clock[r], s->sent[r], (int64_t)s->bytes_sent[r]))
            return 1;
    }
    return 0;
}

static int iterate(mpi_state* s) {
    synth_run* run = s->run;
    uint64_t every = run->value[P_COLLECTIVE];
    for (uint64_t i = 0; synth_more(run, i, run->value[P_ITERATIONS]); i++) {
        for (uint64_t j = 0; j < s->messages; j++) {
            s->offset[j] = synth_uniform(run, 1, s->ranks - 1);
            s->size[j] = synth_uniform(run, 1, run->value[P_BYTES]);
        }
        if (compute_and_send(s, i) || receive(s, i) ||
            (every != 0 && i % every == every - 1 && collective(s)) || metrics(s))
            return 1;
    }
    return 0;
}

static int run_mpi(synth_run* run) {
    mpi_state s;
    int status = 1;
    memset(&s, 0, sizeof s);
    s.run = run;
    s.ranks = run->value[P_RANKS];
    s.messages = run->value[P_MESSAGES];
    s.writers = nvtxw_calloc(s.ranks, sizeof *s.writers);
    s.gflops = nvtxw_calloc(s.ranks, sizeof *s.gflops);
    s.sent = nvtxw_calloc(s.ranks, sizeof *s.sent);
    s.clock = nvtxw_calloc(s.ranks, sizeof *s.clock);
    s.send_time = nvtxw_calloc(s.ranks * (s.messages + 1), sizeof *s.send_time);
    s.bytes_sent = nvtxw_calloc(s.ranks, sizeof *s.bytes_sent);
    if (s.writers == NULL || s.gflops == NULL || s.sent == NULL || s.clock == NULL ||
        s.send_time == NULL || s.bytes_sent == NULL)
        fprintf(stderr, "%s: error: --synthetic mpi: out of memory\n", run->ctx->tool);
    else
        status = setup(&s) || iterate(&s) ||
                 synth_close(run, &s.writers[0].stream, s.ranks, sizeof *s.writers);
    nvtxw_free(s.writers);
    nvtxw_free(s.gflops);
    nvtxw_free(s.sent);
    nvtxw_free(s.clock);
    nvtxw_free(s.send_time);
    nvtxw_free(s.bytes_sent);
    return status;
}

const synth_generator synth_mpi = {"mpi", params, sizeof params / sizeof params[0], run_mpi};
