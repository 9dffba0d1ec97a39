#!/usr/bin/env bash
# tests/viewer/viewer_test.sh - the JSON sink's output loaded headlessly in a
# real viewer engine: the Chrome DevTools trace engine (@paulirish/trace_engine,
# pinned in tests/viewer/package.json and package-lock.json), run by Node.
#
# Installs the engine into $top_builddir/tests/viewer/engine when it is missing
# or its package.json changed (npm install: an unreachable registry is a
# failure, not a skip), writes a report with examples/hello_producer (4 worker
# threads x 250 steps, each step one push/pop range around 4 push/pop phases),
# converts it with nvtxw-replay -o out.json and runs check_trace.mjs on it;
# then imports a generated OTF2 archive straight to JSON and checks its rows,
# slices and MPI message flows with check_flows.mjs against the OTF2 oracle
# (tests/otf2/otf2_oracle.py via otf2_expect.py). Every expectation comes
# from the workload (hello_producer's parameters, the archive as python3-otf2
# reads it), never from the JSON under test; finally each checker must reject
# a wrong expectation or a damaged trace with the failure line it is meant to
# print. Run by `make check-long`. Prints "N passed, M failed".
set -u
top_srcdir=${top_srcdir:-.}
build=${top_builddir:-.}
here=$top_srcdir/tests/viewer
engine=$build/tests/viewer/engine
replay=$build/tools/replay/nvtxw-replay
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
pass() { passed=$((passed + 1)) && echo "PASS: $1"; }
fail() { failed=$((failed + 1)) && echo "FAIL: $1"; }
finish() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
    exit
}

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    fail "node and npm are needed (Node 20 or newer)"
    finish
fi

# (a) The engine, installed once per build directory.
if [ -f "$engine/node_modules/@paulirish/trace_engine/package.json" ] &&
    cmp -s "$here/package.json" "$engine/package.json"; then
    pass "trace engine cached in $engine"
else
    rm -rf "$engine"
    mkdir -p "$engine"
    cp "$here/package.json" "$here/package-lock.json" "$engine/" && chmod u+w "$engine"/*.json
    if npm install --prefix "$engine" --no-audit --no-fund >"$tmp/npm.log" 2>&1 &&
        [ -f "$engine/node_modules/@paulirish/trace_engine/package.json" ]; then
        pass "npm install of the trace engine into $engine"
    else
        fail "npm install of the trace engine failed (registry unreachable?): $(tail -n 5 "$tmp/npm.log")"
        rm -rf "$engine" # no half-installed cache next time
        finish
    fi
fi

# (b) A report from the example producer.
if NVTXW3_LIBRARY=$build/libnvtxw/.libs/libnvtxw3.so "$build/examples/hello_producer" \
    "$tmp/hello.nvtxw" >/dev/null 2>"$tmp/err"; then
    pass "hello_producer wrote a report"
else
    fail "hello_producer: $(head -c 300 "$tmp/err")"
    finish
fi

# (c) The JSON sink through nvtxw-replay.
if "$replay" "$tmp/hello.nvtxw" -o "$tmp/out.json" 2>"$tmp/err" && [ -s "$tmp/out.json" ]; then
    pass "nvtxw-replay wrote out.json"
else
    fail "nvtxw-replay -o out.json: $(head -c 300 "$tmp/err")"
    finish
fi

# (d) The engine's view of it. --workers 4 --steps 250 are hello_producer.c's
# WORKERS and STEPS: check_trace.mjs computes every slice from them and the
# producer's timing formula, reading nothing but the engine's view from the
# file. It prints its own PASS/FAIL lines and a "N passed, M failed" line,
# added to ours.
node "$here/check_trace.mjs" --engine "$engine" --workers 4 --steps 250 "$tmp/out.json" \
    >"$tmp/check.out" 2>"$tmp/check.err"
status=$?
grep -v ' passed, .* failed$' "$tmp/check.out"
counts=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$tmp/check.out" | tail -n 1)
if [ -n "$counts" ]; then
    set -- $counts
    passed=$((passed + $1))
    failed=$((failed + $3))
fi
if [ -z "$counts" ] || { [ "$status" -ne 0 ] && [ "${3:-0}" -eq 0 ]; }; then
    fail "check_trace.mjs exited $status: $(head -c 500 "$tmp/check.err")"
elif [ -s "$tmp/check.err" ]; then
    echo "engine messages (first 5):"
    head -n 5 "$tmp/check.err" | sed 's/^/   /'
fi

# (e) An OTF2 import (the generator's MPI+OpenMP archive, --seed 3) in the
# engine: rows, slices per row by kind and per region name, task rows, and
# one flow arrow per matched MPI message, from the send's row to the
# receive's (check_flows.mjs). The expectation comes from the OTF2 oracle's
# reading of the archive (tests/otf2/otf2_oracle.py on python3-otf2, turned
# into what the engine must show by otf2_expect.py), not from the JSON under
# test, so an importer that dropped the flows would expect them all the same.
# Counted like (d).
gen=$build/tests/gen/nvtxw-otf2-gen
imp=$build/tools/otf2-import/nvtxw-otf2-import
py=${NVTXW_OTF2_PYTHON:-/usr/bin/python3}
flows_ok=no
if [ -x "$gen" ] && [ -x "$imp" ] && "$gen" -o "$tmp/otf2" --events 20000 --seed 3 >/dev/null &&
    "$imp" "$tmp/otf2/traces.otf2" -o "$tmp/otf2.json" --quiet 2>"$tmp/err"; then
    pass "nvtxw-otf2-import wrote otf2.json"
    if "$py" "$top_srcdir/tests/otf2/otf2_oracle.py" "$tmp/otf2/traces.otf2" --region-name name \
        >"$tmp/oracle.json" 2>"$tmp/err" &&
        "$py" "$here/otf2_expect.py" "$tmp/oracle.json" >"$tmp/expect.json" 2>"$tmp/err"; then
        pass "the oracle's expectation for otf2.json"
    else
        fail "otf2_oracle.py or otf2_expect.py: $(head -c 300 "$tmp/err")"
        finish
    fi
    node "$here/check_flows.mjs" --engine "$engine" --expect "$tmp/expect.json" "$tmp/otf2.json" \
        >"$tmp/flows.out" 2>"$tmp/flows.err"
    status=$?
    grep -v ' passed, .* failed$' "$tmp/flows.out"
    counts=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$tmp/flows.out" | tail -n 1)
    if [ -n "$counts" ]; then
        set -- $counts
        passed=$((passed + $1))
        failed=$((failed + $3))
        [ "$status" -eq 0 ] && flows_ok=yes
    else
        fail "check_flows.mjs: $(head -c 500 "$tmp/flows.err")"
    fi
else
    fail "no OTF2 import to check (generator or importer missing or failing): $(head -c 300 "$tmp/err")"
fi

# The checkers themselves must notice wrong input, each with the failure it
# is meant to report. rejects NAME LINE COMMAND...: COMMAND exits nonzero and
# prints LINE (a fixed string at the start of a FAIL line).
rejects() {
    local name=$1 line=$2
    shift 2
    if "$@" >"$tmp/reject.out" 2>&1; then
        fail "$name: accepted"
    elif grep -qF -- "FAIL: $line" "$tmp/reject.out"; then
        pass "$name: FAIL: $line"
    else
        fail "$name: not rejected with \"FAIL: $line\": $(grep -m 3 -e '^FAIL' -e 'rror' "$tmp/reject.out")"
    fi
}
trace() { node "$here/check_trace.mjs" --engine "$engine" "$@" "$tmp/out.json"; }
rejects "check_trace.mjs, one step fewer (--steps 249)" "worker-0: 1245 slices: engine has 1250" \
    trace --workers 4 --steps 249
rejects "check_trace.mjs, one worker fewer (--workers 3)" "3 threads with slices" \
    trace --workers 3 --steps 250

# check_flows.mjs: the good pair passed above; now wrong expectations (one
# flow more, one send of the other kind, no flows for a JSON without any)
# and three damaged imports: no flow events, one MPI_Send slice fewer on
# rank 0's master thread, no slices on the task rows. The helper prints the
# expectation's numbers that the failure lines name.
master="MPI Rank 0/Master thread [L0]"
if [ "$flows_ok" = yes ] && numbers=$("$py" - "$tmp" "$master" <<'PY'
import json, sys
d, master = sys.argv[1:]
expect = json.load(open(d + "/expect.json"))
json.dump(dict(expect, flows=expect["flows"] + 1), open(d + "/expect_more.json", "w"))
# the old fault: flows counted from a JSON without any, 0 expected and seen
json.dump(dict(expect, flows=0, flow_starts={}, flow_ends={}), open(d + "/expect_none.json", "w"))
kind = json.loads(json.dumps(expect))  # one blocking send expected as non-blocking
kind["flow_starts"][master]["otf2:MpiSend"] -= 1
kind["flow_starts"][master]["otf2:MpiIsend"] += 1
json.dump(kind, open(d + "/expect_kind.json", "w"))
trace = json.load(open(d + "/otf2.json"))
events = trace["traceEvents"]
rows = {(e["pid"], e["tid"]): e["args"]["name"] for e in events
        if e["ph"] == "M" and e["name"] == "thread_name"}
row = lambda e: rows[(e["pid"], e["tid"])]
def write(name, kept):
    json.dump(dict(trace, traceEvents=kept), open(d + "/" + name + ".json", "w"))
write("noflows", [e for e in events if e["ph"] not in ("s", "f")])
first = next(i for i, e in enumerate(events)
             if e["ph"] == "X" and e["name"] == "MPI_Send" and row(e) == master)
write("nosend", events[:first] + events[first + 1:])
write("notasks", [e for e in events if not (e["ph"] == "X" and row(e).startswith("task "))])
print(expect["flows"], expect["threads"][master]["region"], len(expect["regions"]),
      expect["task_rows"]["rows"])
PY
); then
    read -r n regions names rows <<<"$numbers"
    flows() { node "$here/check_flows.mjs" --engine "$engine" --expect "$@"; }
    rejects "check_flows.mjs, one flow more expected" "$((n + 1)) flows, each from one event to another" \
        flows "$tmp/expect_more.json" "$tmp/otf2.json"
    rejects "check_flows.mjs, no flows expected and none drawn" \
        "the expectation has flows, region slices and task slices" \
        flows "$tmp/expect_none.json" "$tmp/noflows.json"
    rejects "check_flows.mjs, a send of the wrong kind expected" "flows start at $n message records" \
        flows "$tmp/expect_kind.json" "$tmp/otf2.json"
    rejects "check_flows.mjs, flow events removed" "$n flows, each from one event to another: engine has 0" \
        flows "$tmp/expect.json" "$tmp/noflows.json"
    rejects "check_flows.mjs, one MPI_Send slice removed" \
        "$master: $regions region slices: engine has $((regions - 1))" \
        flows "$tmp/expect.json" "$tmp/nosend.json"
    rejects "check_flows.mjs, one MPI_Send slice removed (per name)" \
        "$names region names with their slice counts: MPI_Send: engine" \
        flows "$tmp/expect.json" "$tmp/nosend.json"
    rejects "check_flows.mjs, task rows emptied" "$rows task rows holding" \
        flows "$tmp/expect.json" "$tmp/notasks.json"
else
    fail "check_flows.mjs self-test: no passing import to damage"
fi
finish
