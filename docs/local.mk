# Documentation (man pages are installed by their tool's local.mk): the
# user documents go to $(docdir) (by default /usr/local/share/doc/nvtxw),
# which the man pages and installed headers name.
dist_doc_DATA = docs/producer-guide.md docs/sqlite-schema.md docs/schemas.md docs/config.md \
	docs/report-format.md docs/report-records.md docs/stats.md docs/chrome-json.md \
	docs/otf2-mapping.md docs/tasks.md docs/chrome-input.md docs/synthetic.md \
	docs/capture-format.md docs/threading.md docs/perfetto.md docs/logging.md docs/record.md \
	docs/scaling.md
EXTRA_DIST += docs/DESIGN-notes.md docs/architecture.md
