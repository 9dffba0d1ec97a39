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
# then imports a generated OTF2 archive straight to JSON and checks its
# threads, slices and MPI message flows with check_flows.mjs.
# Run by `make check-long`. Prints "N passed, M failed".
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

# (d) The engine's view of it. check_trace.mjs prints its own PASS/FAIL lines
# and a "N passed, M failed" line, added to ours.
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

# (e) An OTF2 import (the generator's MPI+OpenMP archive) in the engine:
# threads, slices per thread and one flow arrow per MPI message, as many as
# the file declares (check_flows.mjs). Counted like (d).
gen=$build/tests/gen/nvtxw-otf2-gen
imp=$build/tools/otf2-import/nvtxw-otf2-import
if [ -x "$gen" ] && [ -x "$imp" ] && "$gen" -o "$tmp/otf2" --events 20000 --seed 3 >/dev/null &&
    "$imp" "$tmp/otf2/traces.otf2" -o "$tmp/otf2.json" --quiet 2>"$tmp/err"; then
    pass "nvtxw-otf2-import wrote otf2.json"
    python3 - "$tmp/otf2.json" >"$tmp/expect.json" <<'PY'
import collections, json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev
         if e["ph"] == "M" and e["name"] == "thread_name"}
slices = collections.Counter(names.get((e["pid"], e["tid"])) for e in ev if e["ph"] == "X")
starts = {e["id"] for e in ev if e["ph"] == "s"}
ends = {e["id"] for e in ev if e["ph"] == "f"}
print(json.dumps({"threads": {k: v for k, v in slices.items() if k}, "flows": len(starts & ends)}))
PY
    node "$here/check_flows.mjs" --engine "$engine" --expect "$tmp/expect.json" "$tmp/otf2.json" \
        >"$tmp/flows.out" 2>"$tmp/flows.err"
    grep -v ' passed, .* failed$' "$tmp/flows.out"
    counts=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$tmp/flows.out" | tail -n 1)
    if [ -n "$counts" ]; then
        set -- $counts
        passed=$((passed + $1))
        failed=$((failed + $3))
    else
        fail "check_flows.mjs: $(head -c 500 "$tmp/flows.err")"
    fi
else
    fail "no OTF2 import to check (generator or importer missing or failing): $(head -c 300 "$tmp/err")"
fi

# The checker itself must notice a wrong expectation (one step fewer).
if node "$here/check_trace.mjs" --engine "$engine" --workers 4 --steps 249 "$tmp/out.json" \
    >/dev/null 2>&1; then
    fail "check_trace.mjs accepted a wrong expectation (--steps 249)"
else
    pass "check_trace.mjs rejects a wrong expectation (--steps 249)"
fi
finish
