#!/usr/bin/env bash
# CLI tests of nvtxw-replay on a report written by examples/hello_producer
# (4 threads, 6,000 events, 1,000 counter samples): every output it can
# choose, damage handling, and usage errors. Prints "N passed, M failed".
set -u
build=${top_builddir:-.}
replay=$build/tools/replay/nvtxw-replay
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
check() { # check NAME COMMAND...: passes when the command succeeds
    local name=$1
    shift
    if "$@" >"$tmp/out" 2>"$tmp/err"; then
        passed=$((passed + 1)) && echo "PASS: $name"
    else
        failed=$((failed + 1)) && echo "FAIL: $name: $(head -c 300 "$tmp/err")"
    fi
}

NVTXW3_LIBRARY=$build/libnvtxw/.libs/libnvtxw3.so "$build/examples/hello_producer" "$tmp/hello.nvtxw" >/dev/null ||
    { echo "FAIL: hello_producer could not write the report"; echo "0 passed, 1 failed"; exit 1; }

events() { grep -c '^event' "$1"; }
check "text to stdout: 6000 events" bash -c "'$replay' '$tmp/hello.nvtxw' --to text > '$tmp/a.txt' && test \$(grep -c '^event' '$tmp/a.txt') = 6000"
check "sink from -o extension .txt" bash -c "'$replay' '$tmp/hello.nvtxw' -o '$tmp/b.txt' && cmp '$tmp/a.txt' '$tmp/b.txt'"
check "time order has the same events" bash -c "'$replay' '$tmp/hello.nvtxw' --order time -o '$tmp/c.txt' && test \$(grep -c '^event' '$tmp/c.txt') = 6000"
check "json is valid and complete" bash -c "'$replay' '$tmp/hello.nvtxw' -o '$tmp/h.json' && python3 -c \"import json,sys; d=json.load(open('$tmp/h.json')); x=[e for e in d['traceEvents'] if e['ph']=='X']; sys.exit(0 if len(x)==4000 else 1)\""
check "report to report round trip" bash -c "'$replay' '$tmp/hello.nvtxw' -o '$tmp/copy.nvtxw' && '$replay' '$tmp/copy.nvtxw' --to text | grep -c '^event' | grep -qx 6000"
check "stats csv: MPI_Allreduce 1000 instances" bash -c "'$replay' '$tmp/hello.nvtxw' --stats=csv | grep -q ',1000,1500.000,1500.000,1000,2000,353.730,PushPop,hello:MPI_Allreduce$'"
check "stats text header" bash -c "'$replay' '$tmp/hello.nvtxw' --stats | grep -q 'NVTX Range Summary'"
size=$(stat -c %s "$tmp/hello.nvtxw")
head -c $((size / 2)) "$tmp/hello.nvtxw" >"$tmp/cut.nvtxw"
check "truncated report: exit 0, warning, fewer events" bash -c "'$replay' '$tmp/cut.nvtxw' -o '$tmp/cut.txt' 2>'$tmp/warn' && grep -q 'warning: report damaged at offset' '$tmp/warn' && test \$(grep -c '^event' '$tmp/cut.txt') -lt 6000"
check "unknown sink: exit 2" bash -c "'$replay' '$tmp/hello.nvtxw' --to nope; test \$? = 2"
check "two outputs chosen: exit 2" bash -c "'$replay' '$tmp/hello.nvtxw' --to text --stats; test \$? = 2"
check "missing report: exit 1 with message" bash -c "'$replay' '$tmp/none.nvtxw' 2>&1 >/dev/null | grep -q '^nvtxw-replay: error: .*none.nvtxw'; test \${PIPESTATUS[0]} = 1"
check "not a report: exit 1" bash -c "echo hello > '$tmp/x.nvtxw'; '$replay' '$tmp/x.nvtxw' 2>/dev/null; test \$? = 1"
check "help" bash -c "'$replay' --help | grep -q '^Usage: nvtxw-replay'"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
