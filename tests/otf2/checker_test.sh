#!/usr/bin/env bash
# checker_test.sh - the test of tests/otf2/check_import.py itself: its content
# checks must fail on wrong input. Makes a good import of the archive of
# `tests/gen/nvtxw-otf2-gen --events 20000 --seed 7` (metrics of three value
# types on the threads and on a metric location, tasks, parameters of every
# kind, attributes on Enters, MPI messages), asserts that check_import.py
# passes it, then applies each mutation of tests/otf2/mutate_json.py to the
# JSON and asserts that check_import.py exits 1 with the specific
# "not ok - <check>" line of that mutation (and that the mutation changed
# something). The oracle is computed once (otf2_oracle.py --detail).
#
# Environment: top_builddir, top_srcdir (exported by tests/local.mk). Needs
# neither the shared archives nor anything but the generator, the importer
# and /usr/bin/python3 with python3-otf2. Prints "N passed, M failed".
set -u
build=${top_builddir:-.}
src=${top_srcdir:-.}
py=${NVTXW_OTF2_PYTHON:-/usr/bin/python3}
imp=$build/tools/otf2-import/nvtxw-otf2-import
gen=$build/tests/gen/nvtxw-otf2-gen
here=$src/tests/otf2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nvtxw-otf2-checker.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
. "${top_srcdir:-.}/tests/testlib.sh"

"$py" -c 'import otf2' 2>/dev/null || fatal "$py cannot import otf2 (install python3-otf2)"
[ -x "$imp" ] || fatal "$imp is not built"
[ -x "$gen" ] || fatal "$gen is not built"

anchor=$tmp/gen/traces.otf2
"$gen" -o "$tmp/gen" --events 20000 --seed 7 >/dev/null 2>"$tmp/err" && [ -f "$anchor" ] ||
    fatal "nvtxw-otf2-gen wrote no $anchor: $(head -c 400 "$tmp/err")"
"$py" "$here/otf2_oracle.py" "$anchor" --detail >"$tmp/oracle.json" 2>"$tmp/err" ||
    fatal "the oracle cannot read $anchor: $(head -c 400 "$tmp/err")"
"$imp" "$anchor" --quiet -o "$tmp/good.json" 2>"$tmp/err" &&
    "$imp" "$anchor" --quiet --stats=csv -o "$tmp/good.csv" 2>>"$tmp/err" ||
    fatal "cannot import $anchor: $(head -c 400 "$tmp/err")"

# run_checker JSON: check_import.py's output in $tmp/check.out, its status in $status.
run_checker() {
    "$py" "$here/check_import.py" "$anchor" "$1" "$tmp/good.csv" --oracle "$tmp/oracle.json" \
        --stats-prefix otf2: >"$tmp/check.out" 2>&1
    status=$?
}

run_checker "$tmp/good.json"
if [ "$status" -eq 0 ] &&
    tail -n 1 "$tmp/check.out" | grep -Eq '^[1-9][0-9]* checks, 0 failed$'; then
    pass "the good import passes: $(tail -n 1 "$tmp/check.out")"
else
    fail "the good import does not pass (exit $status): $(grep -m 3 '^not ok' "$tmp/check.out" |
        cut -c 1-300) $(tail -n 1 "$tmp/check.out")"
fi
# Without the oracle's detail the content checks would not run: the good
# run must have run them (their names are the ones asserted below).
for name in "every sample (stream, ns, value)" "every TaskSlice (stream, task, begin ns" \
    "args = the Enter's and Leave's attributes" \
    "instants: (name, ns, attribute and parameter args)"; do
    if grep -F "$name" "$tmp/check.out" | grep -q '^ok - '; then
        pass "the good import ran the check '$name'"
    else
        fail "the good import did not run the check '$name'"
    fi
done

# mutation MUTATION REGEX: after the mutation, check_import.py exits 1, says
# "M failed" with M > 0 and prints a line matching ^not ok - REGEX.
mutation() {
    local m=$1 want=$2 line
    if ! "$py" "$here/mutate_json.py" "$m" "$tmp/good.json" "$tmp/bad.json" >/dev/null \
        2>"$tmp/err"; then
        fail "$m: the mutation changed nothing: $(head -c 300 "$tmp/err")"
        return
    fi
    run_checker "$tmp/bad.json"
    line=$(grep -E -m 1 "^not ok - $want" "$tmp/check.out")
    if [ "$status" -eq 1 ] && [ -n "$line" ] &&
        tail -n 1 "$tmp/check.out" | grep -Eq '^[0-9]+ checks, [1-9][0-9]* failed$'; then
        pass "$m is caught: $(printf '%s' "$line" | cut -c 1-160)"
    else
        fail "$m is not caught by /^not ok - $want/ (exit $status): $(grep -m 3 '^not ok' \
            "$tmp/check.out" | cut -c 1-200) $(tail -n 1 "$tmp/check.out")"
    fi
}

mutation metric-ts "metric 'PAPI_TOT_INS': every sample \(stream, ns, value\)"
mutation metric-reverse "metric 'PAPI_TOT_INS': every sample \(stream, ns, value\)"
mutation metric-one-thread "metric 'power \(node0\)': every sample \(stream, ns, value\)"
mutation metric-ulp "metric 'power \(node0\)': every sample \(stream, ns, value\)"
mutation slice-shift "tasks: every TaskSlice \(stream, task, begin ns, end ns\)"
mutation task-instant-shift \
    "tasks: every ThreadTaskCreate/Complete instant \(stream, kind, task, ns\)"
mutation region-args-empty "L0 region ranges: args = the Enter's and Leave's attributes"
mutation region-arg-value "L[0-9]+ region ranges: args = the Enter's and Leave's attributes"
mutation parameter-value "L[0-9]+ instants: \(name, ns, attribute and parameter args\)"
mutation drop-flow "messages: a flow start on every send end and a flow end on every receive end"
mutation drop-instant "L0 instants: \(name, ns, attribute and parameter args\)"
finish
