# Check unit tests, one fragment per module so each can be owned separately.
include tests/unit/abi.mk
include tests/unit/payload.mk
include tests/unit/format.mk
include tests/unit/schema.mk
include tests/unit/loader.mk
include tests/unit/container.mk
include tests/unit/core.mk
include tests/unit/reader.mk
include tests/unit/producer.mk
include tests/unit/report.mk
include tests/unit/chrome.mk
include tests/unit/perfetto.mk
include tests/unit/stats.mk
include tests/unit/forward.mk
include tests/unit/merge.mk
include tests/unit/share.mk
include tests/unit/sqlite.mk
include tests/unit/tasks.mk

# Helpers shared by the unit tests (header-only).
EXTRA_DIST += tests/unit/test_util.h tests/unit/run_suite.h tests/unit/test_random.h
include tests/unit/chrome_in.mk
include tests/unit/capture.mk
include tests/unit/otf2_ticks.mk
include tests/unit/otf2_task_set.mk
include tests/unit/tool_alloc.mk

# The guards against a green run that checked nothing (tests/unit/run_suite.h,
# scripts/test's refusal of NVTXW_UPDATE_GOLDEN).
TESTS += tests/unit/guard_test.sh
EXTRA_DIST += tests/unit/guard_test.sh
