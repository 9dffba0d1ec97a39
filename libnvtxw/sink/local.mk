# Sinks: the outputs behind the core's sink interface (core/sink.h), one
# folder each; sink/shared/ holds what every sink may use (the sink table,
# event facts, task scopes, compression threads). A sink includes core/sink.h, sink/shared/ and
# the lower library modules, never another sink (tests/layout/).
libnvtxw_libnvtxw_la_SOURCES += \
	libnvtxw/sink/shared/sink_registry.c libnvtxw/sink/shared/sink_registry.h \
	libnvtxw/sink/shared/event_info.c libnvtxw/sink/shared/event_info.h \
	libnvtxw/sink/shared/task_scope.c libnvtxw/sink/shared/task_scope.h \
	libnvtxw/sink/shared/scope_process.c libnvtxw/sink/shared/scope_process.h \
	libnvtxw/sink/shared/field_kind.h \
	libnvtxw/sink/shared/time_map.c libnvtxw/sink/shared/time_map.h \
	libnvtxw/sink/shared/offload.c libnvtxw/sink/shared/offload.h
libnvtxw_libnvtxw_la_SOURCES += libnvtxw/sink/null/null_sink.c
libnvtxw_libnvtxw_la_SOURCES += \
	libnvtxw/sink/report/report_sink.c libnvtxw/sink/report/report_internal.h \
	libnvtxw/sink/report/report_plan.c libnvtxw/sink/report/report_regs.c \
	libnvtxw/sink/report/report_stream.c
libnvtxw_libnvtxw_la_SOURCES += \
	libnvtxw/sink/text/text_sink.c libnvtxw/sink/text/text_internal.h \
	libnvtxw/sink/text/text_stream.c
libnvtxw_libnvtxw_la_SOURCES += \
	libnvtxw/sink/stats/stats_sink.c libnvtxw/sink/stats/stats_internal.h \
	libnvtxw/sink/stats/stats_event.c libnvtxw/sink/stats/stats_table.c \
	libnvtxw/sink/stats/stats_print.c libnvtxw/sink/stats/stats_task.c \
	libnvtxw/sink/stats/stats_counter.c
libnvtxw_libnvtxw_la_SOURCES += \
	libnvtxw/sink/json/json_sink.c libnvtxw/sink/json/json_internal.h \
	libnvtxw/sink/json/json_encode.c libnvtxw/sink/json/json_shift.c \
	libnvtxw/sink/json/json_stream.c libnvtxw/sink/json/json_task.c \
	libnvtxw/sink/json/json_visit.c libnvtxw/sink/json/json_cache.c
libnvtxw_libnvtxw_la_SOURCES += \
	libnvtxw/sink/backend/backend_sink.c libnvtxw/sink/backend/backend_internal.h \
	libnvtxw/sink/backend/backend_regs.c libnvtxw/sink/backend/backend_write.c
libnvtxw_libnvtxw_la_SOURCES += \
	libnvtxw/sink/sqlite/sqlite_sink.c libnvtxw/sink/sqlite/sqlite_internal.h \
	libnvtxw/sink/sqlite/sqlite_db.c libnvtxw/sink/sqlite/sqlite_regs.c \
	libnvtxw/sink/sqlite/sqlite_event.c libnvtxw/sink/sqlite/sqlite_counter.c \
	libnvtxw/sink/sqlite/sqlite_flush.c
libnvtxw_libnvtxw_la_SOURCES += \
	libnvtxw/sink/capture/capture_sink.c libnvtxw/sink/capture/capture_internal.h \
	libnvtxw/sink/capture/capture_json.c libnvtxw/sink/capture/capture_stream.c \
	libnvtxw/sink/capture/capture_reloc.c
libnvtxw_libnvtxw_la_SOURCES += \
	libnvtxw/sink/perfetto/perfetto_sink.c libnvtxw/sink/perfetto/perfetto_internal.h \
	libnvtxw/sink/perfetto/perfetto_stream.c libnvtxw/sink/perfetto/perfetto_event.c \
	libnvtxw/sink/perfetto/perfetto_visit.c libnvtxw/sink/perfetto/perfetto_direct.c \
	libnvtxw/sink/perfetto/perfetto_json.c \
	libnvtxw/sink/perfetto/perfetto_intern.c \
	libnvtxw/sink/perfetto/perfetto_pb.c libnvtxw/sink/perfetto/perfetto_pb.h
