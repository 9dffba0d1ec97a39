# tests/unit/payload.mk
