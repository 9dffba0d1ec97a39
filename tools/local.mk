# Command-line tools; each is a thin client of the public API.
include tools/payload/local.mk
include tools/replay/local.mk
include tools/otf2-import/local.mk
