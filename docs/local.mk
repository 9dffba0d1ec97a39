# Documentation (man pages are installed by their tool's local.mk).
EXTRA_DIST += docs/sqlite-schema.md docs/schemas.md docs/DESIGN-notes.md docs/config.md docs/report-format.md \
	docs/report-records.md docs/stats.md docs/chrome-json.md docs/otf2-mapping.md \
	docs/tasks.md docs/chrome-input.md docs/synthetic.md docs/capture-format.md \
	docs/architecture.md docs/threading.md
