# Sink=perfetto against Perfetto's rules (tests/perfetto/perfetto_test.sh):
# outputs of every input kind decoded with Perfetto's own schema and
# interpreted by tests/perfetto/perfetto_check.py, which shares no code with
# the sink, and matched event by event with the JSON output of the same
# session. The schema (perfetto_trace.proto, from the google/perfetto
# repository, protos/perfetto/trace/) stays outside the project: the test
# reads it from $NVTXW_PERFETTO_PROTO when set in the environment, else from
# PERFETTO_PROTO (by default ../shared/perfetto/perfetto_trace.proto next to
# the source tree; `make check PERFETTO_PROTO=/path` also reaches the build
# of `make distcheck`). The test fails, never skips, when it is missing.
# Include after AM_TESTS_ENVIRONMENT is set (tests/local.mk).
PERFETTO_PROTO = $(abs_top_srcdir)/../shared/perfetto/perfetto_trace.proto
AM_TESTS_ENVIRONMENT += \
	NVTXW_PERFETTO_PROTO="$${NVTXW_PERFETTO_PROTO:-$(PERFETTO_PROTO)}"; \
	export NVTXW_PERFETTO_PROTO;
TESTS += tests/perfetto/perfetto_test.sh
EXTRA_DIST += tests/perfetto/perfetto_test.sh tests/perfetto/perfetto_check.py \
	tests/perfetto/local.mk tests/perfetto/data/edge_cases.jsonl \
	tests/perfetto/data/overlapping_ranges.json tests/perfetto/data/time_domains.jsonl
