# tests/unit/schema.mk - YAML payload schemas (schema_yaml_test.c): the
# shipped schemas/*.yaml against spec 4.3/4.6, load -> dump -> load round
# trips, error messages with positions, hostile input, allocation failures.

check_PROGRAMS += tests/unit/schema_yaml_test
TESTS += tests/unit/schema_yaml_test
tests_unit_schema_yaml_test_SOURCES = tests/unit/schema_yaml_test.c
tests_unit_schema_yaml_test_CFLAGS = $(TEST_CFLAGS)
tests_unit_schema_yaml_test_LDADD = $(TEST_LIBS)

EXTRA_DIST += tests/data/schemas/all-keys.yaml
