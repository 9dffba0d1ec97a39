# tests/unit/schema.mk - YAML payload schemas (schema_yaml_test.c): the
# shipped schemas/*.yaml against spec 4.3/4.6, load -> dump -> load round
# trips, error messages with positions, hostile input, allocation failures;
# schema_yaml_counter_test.c: counter semantics and exact round trips.
# Shared helpers: schema_yaml_check.h.

check_PROGRAMS += tests/unit/schema_yaml_test
TESTS += tests/unit/schema_yaml_test
tests_unit_schema_yaml_test_SOURCES = tests/unit/schema_yaml_test.c tests/unit/schema_yaml_check.h
tests_unit_schema_yaml_test_CFLAGS = $(TEST_CFLAGS)
tests_unit_schema_yaml_test_LDADD = $(TEST_LIBS)

# Counter semantics, exact round trips, dump write failures.
check_PROGRAMS += tests/unit/schema_yaml_counter_test
TESTS += tests/unit/schema_yaml_counter_test
tests_unit_schema_yaml_counter_test_SOURCES = tests/unit/schema_yaml_counter_test.c \
	tests/unit/schema_yaml_check.h
tests_unit_schema_yaml_counter_test_CFLAGS = $(TEST_CFLAGS)
tests_unit_schema_yaml_counter_test_LDADD = $(TEST_LIBS)

EXTRA_DIST += tests/data/schemas/all-keys.yaml
