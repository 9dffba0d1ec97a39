#!/usr/bin/env bash
# tests/viewer/tasks_viewer_test.sh - the `tasks` synthetic workload
# (docs/synthetic.md) exported to JSON and loaded headlessly in the Chrome
# DevTools trace engine: one track per task plus one per worker, every
# suspension a gap on its task's row, every causal link a flow from the wake
# mark to the resumed slice (check_tasks.mjs). The expectation comes from the
# text sink's dump of the same workload (tasks_expect.py), not from the JSON.
# Uses the engine viewer_test.sh installed into $top_builddir/tests/viewer/engine
# (`make check-long` runs that one first). Prints "N passed, M failed".
set -u
top_srcdir=${top_srcdir:-.}
build=${top_builddir:-.}
here=$top_srcdir/tests/viewer
engine=$build/tests/viewer/engine
replay=$build/tools/replay/nvtxw-replay
. "$top_srcdir/tests/testlib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

command -v node >/dev/null 2>&1 || fatal "node is needed (Node 20 or newer)"
[ -f "$engine/node_modules/@paulirish/trace_engine/package.json" ] ||
    fatal "the trace engine is not installed in $engine (run tests/viewer/viewer_test.sh first)"

# check_tasks SPEC: the workload as text (the expectation) and as JSON (checked).
check_tasks() {
    local spec=$1 out=$tmp/check.out
    if ! "$replay" --synthetic "$spec" -o "$tmp/t.txt" 2>"$tmp/err" ||
        ! "$replay" --synthetic "$spec" -o "$tmp/t.json" 2>"$tmp/err" ||
        ! python3 "$here/tasks_expect.py" "$tmp/t.txt" >"$tmp/expect.json" 2>"$tmp/err"; then
        fail "$spec: no trace or expectation: $(head -c 300 "$tmp/err")"
        return
    fi
    pass "$spec: text, JSON and expectation written"
    node "$here/check_tasks.mjs" --engine "$engine" --expect "$tmp/expect.json" "$tmp/t.json" \
        >"$out" 2>"$tmp/err"
    local status=$? counts
    sed "s/^\(PASS\|FAIL\): /\1: $spec: /" "$out" | grep -v ' passed, .* failed$'
    counts=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$out" | tail -n 1)
    if [ -z "$counts" ]; then
        fail "$spec: check_tasks.mjs exited $status: $(head -c 500 "$tmp/err")"
        return
    fi
    set -- $counts
    passed=$((passed + $1))
    failed=$((failed + $3))
}

check_tasks "tasks:workers=3,tasks=300"
check_tasks "tasks:workers=8,tasks=1000,live=64,seed=7"
check_tasks "tasks:workers=1,tasks=100,wait=60"

# The checker must notice a wrong expectation: one causal link missing, and
# a slice moved on a task row.
python3 - "$tmp/expect.json" "$tmp/fewer.json" "$tmp/moved.json" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))
fewer = dict(e, links=e["links"][:-1])
json.dump(fewer, open(sys.argv[2], "w"))
name = next(iter(e["tasks"]))
e["tasks"][name]["slices"][0][0] += 1000
json.dump(e, open(sys.argv[3], "w"))
PY
for wrong in fewer moved; do
    if node "$here/check_tasks.mjs" --engine "$engine" --expect "$tmp/$wrong.json" "$tmp/t.json" >/dev/null 2>&1; then
        fail "check_tasks.mjs accepted a wrong expectation ($wrong)"
    else
        pass "check_tasks.mjs rejects a wrong expectation ($wrong)"
    fi
done
finish
