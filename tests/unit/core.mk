# tests/unit/core.mk - the writer core through the NVTXW v2 table
# (core_test.c: spec conformance 28-46, config, handles, faulty session) and
# the concurrent write path (core_stress_test.c: 8 threads, one stream
# each, text and null sinks; also run under TSan by CI).
check_PROGRAMS += tests/unit/core_test tests/unit/core_stress_test
TESTS += tests/unit/core_test tests/unit/core_stress_test
tests_unit_core_test_SOURCES = tests/unit/core_test.c
tests_unit_core_test_CFLAGS = $(TEST_CFLAGS)
tests_unit_core_test_LDADD = $(TEST_LIBS)
tests_unit_core_stress_test_SOURCES = tests/unit/core_stress_test.c
tests_unit_core_stress_test_CFLAGS = $(TEST_CFLAGS) -pthread
tests_unit_core_stress_test_LDADD = $(TEST_LIBS)
tests_unit_core_stress_test_LDFLAGS = -pthread

# core_alloc_test: allocation-failure sweep through every table member and
# sink (report, text, null); each run in a child so LeakSanitizer checks it.
check_PROGRAMS += tests/unit/core_alloc_test
TESTS += tests/unit/core_alloc_test
tests_unit_core_alloc_test_SOURCES = tests/unit/core_alloc_test.c
tests_unit_core_alloc_test_CFLAGS = $(TEST_CFLAGS)
tests_unit_core_alloc_test_LDADD = $(TEST_LIBS)

# pubmap_test: the lock-free registries (common/pubmap.h): pubvec's
# segments, pubmap's dense range of dynamic IDs, failures, a reader beside
# the writer (also under TSan). pubmap.c is hidden in libnvtxw: compiled in.
check_PROGRAMS += tests/unit/pubmap_test
TESTS += tests/unit/pubmap_test
tests_unit_pubmap_test_SOURCES = tests/unit/pubmap_test.c libnvtxw/common/pubmap.c
tests_unit_pubmap_test_CFLAGS = $(TEST_CFLAGS) -pthread
tests_unit_pubmap_test_LDADD = $(TEST_LIBS) -lpthread

# offload_test: the compression threads' job queue (sink/shared/offload.h):
# order per lane, errors, job buffers shared by a worker's lanes (also under
# TSan). offload.c and its helpers are hidden in libnvtxw: compiled in.
check_PROGRAMS += tests/unit/offload_test
TESTS += tests/unit/offload_test
tests_unit_offload_test_SOURCES = tests/unit/offload_test.c libnvtxw/sink/shared/offload.c \
	libnvtxw/common/strbuf.c libnvtxw/common/thread.c libnvtxw/common/error.c
tests_unit_offload_test_CFLAGS = $(TEST_CFLAGS) -pthread
tests_unit_offload_test_LDADD = $(TEST_LIBS) -lpthread

# core_thread_test: registrations flushed from several write paths, sessions
# in parallel, a session turning faulty on many writers (also under TSan).
check_PROGRAMS += tests/unit/core_thread_test
TESTS += tests/unit/core_thread_test
tests_unit_core_thread_test_SOURCES = tests/unit/core_thread_test.c
tests_unit_core_thread_test_CFLAGS = $(TEST_CFLAGS) -pthread
tests_unit_core_thread_test_LDADD = $(TEST_LIBS) -lpthread

# misuse_test: what NVTXW does not allow, refused instead of crashing: handles
# of another kind, two threads on one stream, StreamClose and SessionEnd
# racing writes (also under ASan and TSan; docs/threading.md).
check_PROGRAMS += tests/unit/misuse_test
TESTS += tests/unit/misuse_test
tests_unit_misuse_test_SOURCES = tests/unit/misuse_test.c
tests_unit_misuse_test_CFLAGS = $(TEST_CFLAGS) -pthread
tests_unit_misuse_test_LDADD = $(TEST_LIBS) -lpthread

# capture_sink_test: Sink=capture with writers on several threads (also
# under TSan), determinism, refused payloads.
check_PROGRAMS += tests/unit/capture_sink_test
TESTS += tests/unit/capture_sink_test
tests_unit_capture_sink_test_SOURCES = tests/unit/capture_sink_test.c
tests_unit_capture_sink_test_CFLAGS = $(TEST_CFLAGS) -pthread
tests_unit_capture_sink_test_LDADD = $(TEST_LIBS) -lpthread

# register_race_test: registrations and StreamOpen while other threads write,
# registrations racing SessionEnd (report read back, text, null; also under
# ASan and TSan; docs/threading.md).
check_PROGRAMS += tests/unit/register_race_test
TESTS += tests/unit/register_race_test
tests_unit_register_race_test_SOURCES = tests/unit/register_race_test.c
tests_unit_register_race_test_CFLAGS = $(TEST_CFLAGS) -pthread
tests_unit_register_race_test_LDADD = $(TEST_LIBS) -lpthread
