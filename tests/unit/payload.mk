# Payload engine unit tests: registry and finalization, visitor decoding,
# malformed schemas and payloads.
check_PROGRAMS += tests/unit/registry_test tests/unit/visit_test tests/unit/malformed_test
TESTS += tests/unit/registry_test tests/unit/visit_test tests/unit/malformed_test
tests_unit_registry_test_SOURCES = tests/unit/registry_test.c
tests_unit_registry_test_CFLAGS = $(TEST_CFLAGS)
tests_unit_registry_test_LDADD = $(TEST_LIBS)
tests_unit_visit_test_SOURCES = tests/unit/visit_test.c tests/unit/visit_recorder.h
tests_unit_visit_test_CFLAGS = $(TEST_CFLAGS)
tests_unit_visit_test_LDADD = $(TEST_LIBS)
tests_unit_malformed_test_SOURCES = tests/unit/malformed_test.c tests/unit/visit_recorder.h
tests_unit_malformed_test_CFLAGS = $(TEST_CFLAGS)
tests_unit_malformed_test_LDADD = $(TEST_LIBS)
# The "fields" payload encoding of report format 2 (payload/field_codec.h).
# Its functions are hidden in libnvtxw, so the test compiles field_codec.c
# itself; schemas come from libnvtxw's public registry.
check_PROGRAMS += tests/unit/field_codec_test
TESTS += tests/unit/field_codec_test
tests_unit_field_codec_test_SOURCES = tests/unit/field_codec_test.c libnvtxw/payload/field_codec.c
tests_unit_field_codec_test_CFLAGS = $(TEST_CFLAGS)
tests_unit_field_codec_test_LDADD = $(TEST_LIBS)
