/*
 * sink/text/text_internal.h - state shared by the text sink's registration
 * side (text_sink.c) and its stream/write side (text_stream.c).
 */
#ifndef NVTXW_SINK_TEXT_INTERNAL_H
#define NVTXW_SINK_TEXT_INTERNAL_H

#include "common/strbuf.h"
#include "core/sink.h"

typedef struct text_sink {
    sink base;
    int fd; /* O_APPEND: one write(2) per record keeps records whole */
    char* path;
    strbuf line; /* registration records (serialized calls only) */
} text_sink;

typedef struct text_stream {
    text_sink* sink;
    const core_stream* stream;
    strbuf line; /* this stream's record; written on its own thread */
} text_stream;

/* Writes the whole buffer, retrying short writes and EINTR. */
nvtxwResultCode_t text_write_all(text_sink* ts, const strbuf* buf);

nvtxwResultCode_t text_stream_open(sink* s, const core_stream* stream, void** state);
nvtxwResultCode_t text_stream_close(sink* s, const core_stream* stream, void* state);
nvtxwResultCode_t text_stream_flush(void* state);
nvtxwResultCode_t text_event_write(void* state, const core_event* event);
nvtxwResultCode_t text_counter_write(void* state, int64_t timestamp, const core_counter* counter,
                                     const void* data, size_t size);
nvtxwResultCode_t text_counter_no_value_write(void* state, int64_t timestamp,
                                              const core_counter* counter, uint8_t reason);
nvtxwResultCode_t text_sync_points_write(void* state, uint64_t src, uint64_t dst,
                                         const nvtxSyncPoint_t* points, size_t count);
nvtxwResultCode_t text_conversion_factor_write(void* state, uint64_t src, uint64_t dst,
                                               double slope, int64_t ts_src, int64_t ts_dst);

#endif /* NVTXW_SINK_TEXT_INTERNAL_H */
