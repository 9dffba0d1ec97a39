#!/usr/bin/env bash
# fuzz/replay_selftest.sh - the replay driver of the fuzz targets
# (fuzz/fuzz_replay_main.c) passes a good set of inputs and reports every
# kind of bad one, so that the per-target replay tests can fail. It runs
# fuzz/replay_selftest_replay, whose target (fuzz/replay_selftest_fuzz.c)
# aborts, returns 1 or reads past its input on request, on:
#   a good folder (README and dot files skipped, name order, empty input)
#   the same folder plus an aborting input, a returning-1 input, an input
#   read past its end and a leaking one (ASan and LeakSanitizer reports in
#   the ASan build, unnoticed elsewhere)
#   an empty folder, a missing path (a replay of nothing must fail)
#   the default folders under $top_srcdir from another working directory
# and finally runs the real visit target on its own folders from / to show
# that the replay tests do not depend on the current directory.
set -u
source "${top_srcdir:-.}/tests/testlib.sh"

src=$(cd "${top_srcdir:-.}" && pwd) || fatal "no source tree"
build=$(cd "${top_builddir:-.}" && pwd) || fatal "no build tree"
prog="$build/fuzz/replay_selftest_replay"
[ -x "$prog" ] || fatal "$prog is not built"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nvtxw-replay-selftest.XXXXXX") || fatal "mktemp failed"
trap 'rm -rf "$tmp"' EXIT

# run NAME ARGS...: runs the driver from /, output in $tmp/NAME.out/.err,
# status in $rc.
run() {
    local name=$1
    shift
    (cd / && "$prog" "$@") >"$tmp/$name.out" 2>"$tmp/$name.err"
    rc=$?
}

# expect NAME WHAT PATTERN: the output of run NAME has a line matching
# PATTERN (grep -E, whole line).
expect() {
    if grep -qxE -- "$3" "$tmp/$1.out"; then
        pass "$1: $2"
    else
        fail "$1: $2 (no line matching '$3'); output:"
        sed 's/^/    /' "$tmp/$1.out" "$tmp/$1.err"
    fi
}

expect_rc() {
    if [ "$rc" "$2" "$3" ]; then
        pass "$1: exit status $rc $2 $3"
    else
        fail "$1: exit status $rc, expected $2 $3"
    fi
}

good="$tmp/good"
mkdir "$good"
printf 'ok' >"$good/b-two"
: >"$good/a-empty"
printf 'abort' >"$good/.hidden"
printf 'abort' >"$good/README.md"
mkdir "$good/subdir"
printf 'abort' >"$good/subdir/nested"

run good "$good"
expect_rc good -eq 0
expect good "empty input runs" "run $good/a-empty \(0 bytes\) \.\.\. PASS"
expect good "second input in name order" "run $good/b-two \(2 bytes\) \.\.\. PASS"
expect good "summary" "2 passed, 0 failed"
if [ "$(sed -n 1p "$tmp/good.out")" = "run $good/a-empty (0 bytes) ... PASS" ]; then
    pass "good: inputs run in name order"
else
    fail "good: first line is not a-empty"
fi

crash="$tmp/crash"
cp -r "$good" "$crash"
printf 'abort!' >"$crash/c-crash"
run crash "$crash"
expect_rc crash -gt 1
expect crash "the crashing input's line is left unfinished" "run $crash/c-crash \(6 bytes\) \.\.\. "
if grep -q "passed," "$tmp/crash.out"; then
    fail "crash: a summary was printed after a crash"
else
    pass "crash: no summary after a crash"
fi

ret="$tmp/ret"
cp -r "$good" "$ret"
printf 'return1' >"$ret/c-ret"
run ret "$ret"
expect_rc ret -eq 1
expect ret "reserved return value" "run $ret/c-ret \(7 bytes\) \.\.\. FAIL: returned 1"
expect ret "summary" "2 passed, 1 failed"

over="$tmp/over"
mkdir "$over"
printf 'overread' >"$over/read-past-end"
run over "$over"
leak="$tmp/leak"
cp -r "$good" "$leak"
printf 'leak' >"$leak/c-leak"
run leak "$leak"
if ASAN_OPTIONS=help=1 "$prog" "$good" 2>&1 | grep -q "AddressSanitizer"; then
    expect_rc over -ne 0
    if grep -q "heap-buffer-overflow" "$tmp/over.err"; then
        pass "over: ASan reports the read past the exact-size input buffer"
    else
        fail "over: no heap-buffer-overflow report"
        sed 's/^/    /' "$tmp/over.out" "$tmp/over.err"
    fi
    expect_rc leak -eq 1
    expect leak "the leaking input fails" \
        "run $leak/c-leak \(4 bytes\) \.\.\. FAIL: memory leaked .*"
    expect leak "summary" "2 passed, 1 failed"
else
    expect_rc over -eq 0
    expect over "without ASan the over-read goes unnoticed" "1 passed, 0 failed"
    expect_rc leak -eq 0
    expect leak "without LeakSanitizer the leak goes unnoticed" "3 passed, 0 failed"
fi

mkdir "$tmp/empty"
printf 'abort' >"$tmp/empty/README"
run empty "$tmp/empty"
expect_rc empty -eq 1
expect empty "an empty replay is a failure" "FAIL: no input found.*"
expect empty "summary" "0 passed, 0 failed"

run missing "$tmp/missing" "$good/b-two"
expect_rc missing -eq 1
expect missing "missing path" "FAIL: $tmp/missing: no such file or directory"
expect missing "summary" "1 passed, 1 failed"

# Default folders: $top_srcdir/fuzz/corpus/selftest and .../reproducers/selftest.
tree="$tmp/tree"
mkdir -p "$tree/fuzz/corpus/selftest" "$tree/fuzz/reproducers/selftest"
printf 'seed' >"$tree/fuzz/corpus/selftest/seed"
printf 'how to add one' >"$tree/fuzz/reproducers/selftest/README.md"
(cd / && top_srcdir="$tree" "$prog") >"$tmp/defaults.out" 2>"$tmp/defaults.err"
rc=$?
expect_rc defaults -eq 0
expect defaults "seed found through top_srcdir" "run $tree/fuzz/corpus/selftest/seed \(4 bytes\) \.\.\. PASS"
expect defaults "summary" "1 passed, 0 failed"
rm -r "$tree/fuzz/reproducers/selftest"
(cd / && top_srcdir="$tree" "$prog") >"$tmp/noreproducers.out" 2>"$tmp/noreproducers.err"
rc=$?
expect_rc noreproducers -eq 1
expect noreproducers "missing reproducer folder" "FAIL: $tree/fuzz/reproducers/selftest: no such file or directory"

# A real target from /, with an absolute top_srcdir.
(cd / && top_srcdir="$src" "$build/fuzz/visit_replay") >"$tmp/visit.out" 2>"$tmp/visit.err"
rc=$?
expect_rc visit -eq 0
expect visit "visit seeds replayed from /" "[1-9][0-9]* passed, 0 failed"
finish
