# Payload schemas shipped with nvtxw (docs/schemas.md).
schemasdir = $(pkgdatadir)/schemas
dist_schemas_DATA =
