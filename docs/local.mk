# Documentation.
EXTRA_DIST += docs/schemas.md docs/DESIGN-notes.md
