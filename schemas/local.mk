# Payload schemas shipped with nvtxw (docs/schemas.md): the helpers' event
# schemas and counter sample layouts, installed for tools and producers.
schemasdir = $(pkgdatadir)/schemas
dist_schemas_DATA = \
	schemas/nvtxw-helpers.yaml \
	schemas/nvtxw-counters.yaml \
	schemas/otf2-events.yaml \
	schemas/tasks.yaml
