# tests/unit/schema.mk
