# Command-line tools; each is a thin client of the public API (STYLE rules 1,
# 2 and 18). TOOL_CPPFLAGS puts only the public headers (libnvtxw/include/)
# and tools/common/ on the include path, so a tool that reaches for a
# library-internal header does not compile (tests/layout/ checks it too).
TOOL_CPPFLAGS = -I$(top_srcdir)/libnvtxw/include -I$(top_srcdir)/tools/common
include tools/payload/local.mk
include tools/replay/local.mk
include tools/otf2-import/local.mk
include tools/record/local.mk
