# nvtxw-payload: check schema files and decode binary payloads.
bin_PROGRAMS += tools/payload/nvtxw-payload
tools_payload_nvtxw_payload_SOURCES = tools/payload/nvtxw_payload.c \
	tools/common/tool_alloc.h tools/common/tool_output.c tools/common/tool_output.h
tools_payload_nvtxw_payload_CPPFLAGS = $(TOOL_CPPFLAGS)
tools_payload_nvtxw_payload_LDADD = libnvtxw/libnvtxw.la
dist_man1_MANS = docs/nvtxw-payload.1
