#!/usr/bin/env bash
# tests/viewer/viewer_test.sh - the JSON sink's output loaded headlessly in a
# real viewer engine: the Chrome DevTools trace engine (@paulirish/trace_engine,
# pinned in tests/viewer/package.json and package-lock.json), run by Node.
#
# Installs the engine into $top_builddir/tests/viewer/engine when it is missing
# or its package.json changed (npm install: an unreachable registry is a
# failure, not a skip), writes a report with examples/hello_producer (4 worker
# threads x 250 steps, each step one push/pop range around 4 push/pop phases),
# converts it with nvtxw-replay -o out.json and runs check_trace.mjs on it.
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

# The checker itself must notice a wrong expectation (one step fewer).
if node "$here/check_trace.mjs" --engine "$engine" --workers 4 --steps 249 "$tmp/out.json" \
    >/dev/null 2>&1; then
    fail "check_trace.mjs accepted a wrong expectation (--steps 249)"
else
    pass "check_trace.mjs rejects a wrong expectation (--steps 249)"
fi
finish
