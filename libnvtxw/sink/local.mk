# Sinks: the outputs behind the core (core/sink.h).
libnvtxw_libnvtxw_la_SOURCES += \
	libnvtxw/sink/sinks.c \
	libnvtxw/sink/sinks.h \
	libnvtxw/sink/sink_null.c \
	libnvtxw/sink/sink_report.c \
	libnvtxw/sink/sink_report_internal.h \
	libnvtxw/sink/sink_report_plan.c \
	libnvtxw/sink/sink_report_reg.c \
	libnvtxw/sink/sink_report_stream.c \
	libnvtxw/sink/sink_text.c \
	libnvtxw/sink/sink_text_internal.h \
	libnvtxw/sink/sink_text_stream.c
