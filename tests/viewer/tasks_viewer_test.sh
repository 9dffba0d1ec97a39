#!/usr/bin/env bash
# tests/viewer/tasks_viewer_test.sh - the `tasks` synthetic workload
# (docs/synthetic.md) exported to JSON and loaded headlessly in the Chrome
# DevTools trace engine: one track per task plus one per worker, every
# suspension a gap on its task's row, every causal link a flow from the wake
# mark to the resumed slice (check_tasks.mjs). The expectation never comes
# from the JSON (tasks_expect.py): what the workload's parameters determine
# (worker rows, number of tasks, slot and slices-per-task bounds, slice
# lengths; docs/synthetic.md) comes from the spec, which therefore names
# every parameter used; what they cannot predict (the seeded simulation's
# exact slice times, gaps and causal links) comes from the text sink's dump
# of the same workload, another sink's rendering of the same records.
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
        ! python3 "$here/tasks_expect.py" "$spec" "$tmp/t.txt" >"$tmp/expect.json" 2>"$tmp/err"; then
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

# live, slices and slice are the documented defaults, named because the
# expectation uses them.
check_tasks "tasks:workers=3,tasks=300,live=256,slices=4,slice=20000"
check_tasks "tasks:workers=8,tasks=1000,live=64,slices=4,slice=20000,seed=7"
check_tasks "tasks:workers=1,tasks=100,live=256,slices=4,slice=20000,wait=60"

# The checker must notice a wrong expectation, with the failure line it is
# meant to print (on the last workload: tasks=100, slice=20000): from the
# dump, one causal link missing and a slice moved on a task row; from the
# spec, one task and one worker more, one slice per task at most, a mean
# slice twice as long and one task slot.
rejects() {
    local name=$1 line=$2
    if node "$here/check_tasks.mjs" --engine "$engine" --expect "$tmp/$name.json" "$tmp/t.json" \
        >"$tmp/reject.out" 2>&1; then
        fail "check_tasks.mjs accepted a wrong expectation ($name)"
    elif grep -qF -- "FAIL: $line" "$tmp/reject.out"; then
        pass "check_tasks.mjs rejects a wrong expectation ($name): FAIL: $line"
    else
        fail "check_tasks.mjs ($name) did not fail with \"FAIL: $line\": $(grep -m 3 -e '^FAIL' -e 'rror' "$tmp/reject.out")"
    fi
}
python3 - "$tmp" <<'PY'
import copy, json, sys
d = sys.argv[1]
e = json.load(open(d + "/expect.json"))
def wrong(name, change):
    x = copy.deepcopy(e)
    change(x)
    json.dump(x, open("%s/%s.json" % (d, name), "w"))
wrong("fewer", lambda x: x.update(links=x["links"][:-1]))
def move(x):
    first = next(iter(x["tasks"].values()))["slices"][0]
    first[0] += 1000
wrong("moved", move)
wrong("tasks", lambda x: x["spec"].update(tasks=x["spec"]["tasks"] + 1))
wrong("workers", lambda x: (x["spec"].update(workers=2), x["workers"].append("worker 1")))
wrong("slices", lambda x: x["spec"].update(slices=1))
wrong("slice", lambda x: x["spec"].update(slice=2 * x["spec"]["slice"]))
wrong("live", lambda x: x["spec"].update(live=1))
PY
links=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["links"]))' "$tmp/expect.json")
rejects fewer "$((links - 1)) causal links are flows from the wake to the resumed slice"
rejects moved "100 task rows hold exactly their slices"
rejects tasks "101 task rows (tasks=101)"
rejects workers "2 worker rows: worker 0 .. worker 1"
rejects slices "every task row holds 1..1 slices (slices=1)"
rejects slice "every task slice lasts 20000..60000 ns (slice=40000 +-50%)"
rejects live "task rows named task SLOT.GENERATION, SLOT < 1 (live)"
finish
