# tests/unit/abi.mk
