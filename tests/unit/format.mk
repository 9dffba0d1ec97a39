# tests/unit/format.mk
