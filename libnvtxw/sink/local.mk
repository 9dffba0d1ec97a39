# Sinks: the outputs behind the core (core/sink.h).
libnvtxw_libnvtxw_la_SOURCES += \
	libnvtxw/sink/sinks.c \
	libnvtxw/sink/sinks.h \
	libnvtxw/sink/event_info.c \
	libnvtxw/sink/event_info.h \
	libnvtxw/sink/sink_null.c \
	libnvtxw/sink/sink_report.c \
	libnvtxw/sink/sink_report_internal.h \
	libnvtxw/sink/sink_report_plan.c \
	libnvtxw/sink/sink_report_reg.c \
	libnvtxw/sink/sink_report_stream.c \
	libnvtxw/sink/sink_text.c \
	libnvtxw/sink/sink_text_internal.h \
	libnvtxw/sink/sink_text_stream.c \
	libnvtxw/sink/sink_stats.c libnvtxw/sink/sink_stats_internal.h libnvtxw/sink/sink_stats_event.c libnvtxw/sink/sink_stats_table.c libnvtxw/sink/sink_stats_report.c libnvtxw/sink/sink_stats_task.c \
	libnvtxw/sink/sink_chrome.c \
	libnvtxw/sink/sink_chrome_internal.h \
	libnvtxw/sink/sink_chrome_json.c \
	libnvtxw/sink/sink_chrome_shift.c \
	libnvtxw/sink/sink_chrome_stream.c \
	libnvtxw/sink/sink_chrome_task.c libnvtxw/sink/task_scope.c libnvtxw/sink/task_scope.h \
	libnvtxw/sink/sink_chrome_visit.c
libnvtxw_libnvtxw_la_SOURCES += libnvtxw/sink/sink_backend.c libnvtxw/sink/sink_backend_internal.h libnvtxw/sink/sink_backend_regs.c libnvtxw/sink/sink_backend_write.c
libnvtxw_libnvtxw_la_SOURCES += libnvtxw/sink/sink_sqlite.c libnvtxw/sink/sink_sqlite_internal.h libnvtxw/sink/sink_sqlite_db.c libnvtxw/sink/sink_sqlite_reg.c libnvtxw/sink/sink_sqlite_event.c libnvtxw/sink/sink_sqlite_counter.c
libnvtxw_libnvtxw_la_SOURCES += libnvtxw/sink/sink_capture.c libnvtxw/sink/sink_capture_internal.h libnvtxw/sink/sink_capture_json.c libnvtxw/sink/sink_capture_stream.c \
	libnvtxw/sink/sink_capture_reloc.c
