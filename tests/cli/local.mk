# CLI golden tests (STYLE rule 17, second ring).
TESTS += tests/cli/payload_cli_test.sh tests/cli/replay_cli_test.sh \
	tests/cli/sql_vs_stats_test.sh tests/cli/chrome_in_test.sh tests/cli/synthetic_test.sh \
	tests/cli/capture_test.sh tests/cli/roundtrip_checkers_test.sh tests/cli/report_versions_test.sh \
	tests/cli/readme_test.sh tests/cli/sqlite_payload_test.sh
EXTRA_DIST += tests/cli/report_versions_test.sh \
	tests/data/format1/README.md tests/data/format1/dumps.sha256 \
	tests/data/format1/capture-all.nvtxw tests/data/format1/demo.nvtxw \
	tests/data/format1/gpu.nvtxw tests/data/format1/mpi.nvtxw \
	tests/data/format1/nested.nvtxw tests/data/format1/pytorch.nvtxw \
	tests/data/format1/tasks.nvtxw tests/data/format2-early/README.md \
	tests/data/format2-early/dumps.sha256 tests/data/format2-early/capture-all.nvtxw \
	tests/data/format2-early/demo.nvtxw tests/data/format2-early/gpu.nvtxw \
	tests/data/format2-early/mpi.nvtxw tests/data/format2-early/nested.nvtxw \
	tests/data/format2-early/pytorch.nvtxw tests/data/format2-early/tasks.nvtxw \
	tests/data/format2/README.md tests/data/format2/dumps.sha256 \
	tests/data/format2/capture-all.nvtxw tests/data/format2/demo.nvtxw \
	tests/data/format2/gpu.nvtxw tests/data/format2/mpi.nvtxw \
	tests/data/format2/nested.nvtxw tests/data/format2/pytorch.nvtxw \
	tests/data/format2/tasks.nvtxw
EXTRA_DIST += tests/cli/readme_test.sh tests/cli/sqlite_payload_test.sh
EXTRA_DIST += tests/cli/payload_cli_test.sh tests/cli/replay_cli_test.sh \
	tests/cli/sql_vs_stats_test.sh tests/cli/synthetic_test.sh tests/cli/synthetic_check.py tests/cli/check_released.py \
	tests/cli/chrome_in_test.sh tests/cli/chrome_norm.py \
	tests/data/chrome_phases.json tests/data/pytorch_trace.json \
	tests/cli/capture_test.sh tests/cli/capture_fields.py \
	tests/cli/roundtrip_checkers_test.sh tests/cli/data/capture-all.jsonl \
	tests/cli/data/capture-all.txt tests/cli/data/capture-payloads.yaml \
	tests/cli/data/capture-payloads.txt tests/cli/data/json-span.jsonl \
	tests/cli/golden/check-shipped.out \
	tests/cli/golden/dump-example.out \
	tests/cli/golden/decode-json.out \
	tests/cli/golden/decode-text.out \
	tests/cli/golden/decode-predefined.out
EXTRA_DIST += tests/cli/payload_golden_check.py
