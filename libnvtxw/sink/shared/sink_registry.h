/*
 * sink/shared/sink_registry.h - the sinks built into libnvtxw, one folder
 * each under libnvtxw/sink/ (the interface is core/sink.h). A new sink adds
 * its ops here and to the table in sink_registry.c.
 */
#ifndef NVTXW_SINK_SHARED_SINK_REGISTRY_H
#define NVTXW_SINK_SHARED_SINK_REGISTRY_H

#include "core/sink.h"

/* Sink=report: the compressed, crash-safe .nvtxw report. */
extern const sink_ops sink_report_ops;
/* Sink=text: a complete, stable, human-readable dump of every call. */
extern const sink_ops sink_text_ops;
/* Sink=null: validates everything and writes nothing (for measurements). */
extern const sink_ops sink_null_ops;
/* Sink=stats: NVTX range and task statistics tables (docs/stats.md). */
extern const sink_ops sink_stats_ops;
/* Sink=json: Chrome Trace Event Format for Perfetto and chrome://tracing. */
extern const sink_ops sink_json_ops;
/* Sink=backend: forwards every call to another NVTXW v2 backend (Backend=). */
extern const sink_ops sink_backend_ops;
/* Sink=sqlite: an SQLite database of every call (docs/sqlite-schema.md). */
extern const sink_ops sink_sqlite_ops;
/* Sink=capture: a capture file, JSON Lines (docs/capture-format.md). */
extern const sink_ops sink_capture_ops;
/* Sink=perfetto: Perfetto's native protobuf trace (docs/perfetto.md). */
extern const sink_ops sink_perfetto_ops;

#endif /* NVTXW_SINK_SHARED_SINK_REGISTRY_H */
