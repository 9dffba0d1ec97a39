/*
 * sink/capture/capture_internal.h - Sink=capture (docs/capture-format.md):
 * state shared by the registration side (capture_sink.c), the schema and
 * JSON spelling (capture_json.c) and the stream side
 * (capture_stream.c).
 *
 * Concurrency: each stream appends its lines to its own buffer, on its own
 * thread, and hands whole lines to the file under `lock` when the buffer
 * passes CAPTURE_FLUSH_BYTES and at stream close; registrations (serialized
 * by the NVTXW contract) write under the same lock. The lock is held for
 * one write(2) of complete lines, never while formatting, so streams do not
 * wait on each other's work. A stream's lines stay in order; a
 * registration may come out before events written earlier on a stream,
 * which is harmless (a registration only has to precede its use). With one
 * thread the output is a function of the call sequence: deterministic.
 */
#ifndef NVTXW_SINK_CAPTURE_INTERNAL_H
#define NVTXW_SINK_CAPTURE_INTERNAL_H

#include <pthread.h>

#include "common/idmap.h"
#include "common/pubmap.h"
#include "common/strbuf.h"
#include "core/sink.h"

#define CAPTURE_FLUSH_BYTES ((size_t)64 << 10)

typedef struct capture_sink {
    sink base;
    int fd;
    char* path;
    pthread_mutex_t lock; /* around write(2) of whole lines */
    strbuf line;          /* registration lines (serialized calls only) */
    /* (domain index << 48) + schema ID -> CAPTURE_FORM_* (as a pointer):
     * added by schema registrations while writers read it without a lock
     * (common/pubmap.h). */
    pubmap forms;
} capture_sink;

typedef struct capture_stream {
    capture_sink* sink;
    const core_stream* stream;
    strbuf lines; /* this stream's pending lines */
} capture_stream;

/* How a payload of a schema is written. */
enum { CAPTURE_FORM_NAMES = 1, CAPTURE_FORM_HEX = 2, CAPTURE_FORM_NONE = 3 };

/* Writes buf whole under the lock, then clears it. */
nvtxwResultCode_t capture_sink_write(capture_sink* cs, strbuf* buf);

/* JSON spelling (capture_json.c); each returns non-zero when out of
 * memory. */
int capture_json_string(strbuf* buf, const char* text, size_t length);
int capture_json_double(strbuf* buf, double value);
int capture_json_hex(strbuf* buf, const void* data, size_t size);
/* `registry` (the schema's domain) gives nested schemas and enums their
 * names. */
int capture_json_schema(strbuf* buf, const nvtxw_schema_registry_t* registry,
                        const nvtxw_schema_t* schema);
int capture_json_enum(strbuf* buf, const nvtxw_enum_t* enumeration);
int capture_json_counter_semantics(strbuf* buf, const nvtxSemanticsHeader_t* semantics);
/* The form of a payload of `schema_id` in `registry` (CAPTURE_FORM_*). */
int capture_schema_form(const nvtxw_schema_registry_t* registry, uint64_t schema_id);
/* `,"hex":"..."[,"pointers":[[AT,PAYLOAD,OFFSET],...]]` for payload `index`
 * of `event` (capture_reloc.c): pointer slots zeroed in the hex and
 * listed by where they lead. NOT_SUPPORTED when a pointer cannot be located
 * without parsing or leads outside the event's payloads. */
nvtxwResultCode_t capture_relocated(strbuf* out, const nvtxw_schema_registry_t* registry,
                                    const core_event* event, size_t index);

nvtxwResultCode_t capture_stream_open(sink* s, const core_stream* stream, void** state);
nvtxwResultCode_t capture_stream_close(sink* s, const core_stream* stream, void* state);
nvtxwResultCode_t capture_event_write(void* state, const core_event* event);
nvtxwResultCode_t capture_counter_write(void* state, int64_t timestamp, const core_counter* counter,
                                        const void* data, size_t size);
nvtxwResultCode_t capture_counter_no_value_write(void* state, int64_t timestamp,
                                                 const core_counter* counter, uint8_t reason);
nvtxwResultCode_t capture_sync_points_write(void* state, uint64_t src, uint64_t dst,
                                            const nvtxSyncPoint_t* points, size_t count);
nvtxwResultCode_t capture_conversion_factor_write(void* state, uint64_t src, uint64_t dst,
                                                  double slope, int64_t ts_src, int64_t ts_dst);

#endif /* NVTXW_SINK_CAPTURE_INTERNAL_H */
