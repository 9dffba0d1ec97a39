# tests/unit/perfetto.mk - Sink=perfetto (perfetto_test.c): the protobuf
# writer byte for byte (its sources are compiled in: they are internal),
# sessions read back by a protobuf walker of the test's own (framing,
# sequences, incremental state, interning, event counts), 4 writer threads
# (also run under TSan by CI) with and without compression threads, bad
# outputs. The semantic check against the
# JSON of the same session is tests/perfetto/perfetto_test.sh.
check_PROGRAMS += tests/unit/perfetto_test
TESTS += tests/unit/perfetto_test
tests_unit_perfetto_test_SOURCES = tests/unit/perfetto_test.c \
	libnvtxw/sink/perfetto/perfetto_pb.c libnvtxw/common/utf8.c libnvtxw/common/strbuf.c \
	libnvtxw/common/alloc.c
tests_unit_perfetto_test_CFLAGS = $(TEST_CFLAGS) -pthread
tests_unit_perfetto_test_CPPFLAGS = $(AM_CPPFLAGS) $(ZSTD_CFLAGS)
tests_unit_perfetto_test_LDADD = $(TEST_LIBS) $(ZSTD_LIBS) -lpthread

# The time domain conversions of the JSON and Perfetto sinks
# (sink/shared/time_map.h), compiled in: they are internal.
check_PROGRAMS += tests/unit/time_map_test
TESTS += tests/unit/time_map_test
tests_unit_time_map_test_SOURCES = tests/unit/time_map_test.c \
	libnvtxw/sink/shared/time_map.c libnvtxw/common/alloc.c libnvtxw/common/log.c
tests_unit_time_map_test_CFLAGS = $(TEST_CFLAGS) -pthread
tests_unit_time_map_test_LDADD = $(TEST_LIBS) -lm -lpthread

# The sink's direct encoding of fixed-layout payloads against its visitor:
# random schemas and payloads written both ways, compared byte for byte.
check_PROGRAMS += tests/unit/perfetto_direct_test
TESTS += tests/unit/perfetto_direct_test
tests_unit_perfetto_direct_test_SOURCES = tests/unit/perfetto_direct_test.c
tests_unit_perfetto_direct_test_CFLAGS = $(TEST_CFLAGS)
tests_unit_perfetto_direct_test_LDADD = $(TEST_LIBS)
