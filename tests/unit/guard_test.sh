#!/usr/bin/env bash
# tests/unit/guard_test.sh - the suite's guards against looking green without
# checking anything:
# - a Check program whose run selects no test fails (tests/unit/run_suite.h),
#   here abi_test under CK_RUN_CASE naming no case;
# - the same program with its real cases passes (the guard is not a blanket
#   failure);
# - scripts/test refuses to start while NVTXW_UPDATE_GOLDEN is set (the golden
#   tests would rewrite their expectations instead of checking them); the
#   refusal comes before anything is installed or built (a timeout and a
#   build root in a temporary folder keep a broken guard from running the
#   whole suite from inside it).
# Environment: top_srcdir, top_builddir (tests/local.mk). Prints "N passed, M failed".
set -u
build=${top_builddir:-.}
src=${top_srcdir:-.}
. "$src/tests/testlib.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nvtxw-guard.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

abi=$build/tests/unit/abi_test
[ -x "$abi" ] || fatal "$abi is not built"

if CK_RUN_CASE=no-such-case CK_FORK=no "$abi" >"$tmp/out" 2>&1; then
    fail "a Check run of 0 tests exits 0: $(tail -n 2 "$tmp/out")"
elif grep -q "Checks: 0," "$tmp/out" && grep -q "the suite ran no test" "$tmp/out"; then
    pass "a Check run of 0 tests fails and says why"
else
    fail "a Check run of 0 tests: unexpected output: $(tail -n 3 "$tmp/out")"
fi

if "$abi" >"$tmp/out" 2>&1 && grep -qE "100%: Checks: [1-9][0-9]*, Failures: 0, Errors: 0" "$tmp/out"; then
    pass "the same program with its cases passes"
else
    fail "abi_test with its cases: $(tail -n 3 "$tmp/out")"
fi

if NVTXW_BUILD_ROOT=$tmp/build NVTXW_UPDATE_GOLDEN=1 timeout 60 bash "$src/scripts/test" --quick >"$tmp/out" 2>&1; then
    fail "scripts/test ran with NVTXW_UPDATE_GOLDEN=1"
elif grep -q "NVTXW_UPDATE_GOLDEN is set" "$tmp/out" && ! grep -q "^== " "$tmp/out"; then
    pass "scripts/test refuses NVTXW_UPDATE_GOLDEN before building anything"
else
    fail "scripts/test with NVTXW_UPDATE_GOLDEN=1: $(head -c 300 "$tmp/out")"
fi
if NVTXW_BUILD_ROOT=$tmp/build NVTXW_UPDATE_GOLDEN= timeout 60 bash "$src/scripts/test" --quick >"$tmp/out" 2>&1; then
    fail "scripts/test ran with NVTXW_UPDATE_GOLDEN set to the empty string"
elif grep -q "NVTXW_UPDATE_GOLDEN is set" "$tmp/out"; then
    pass "scripts/test refuses NVTXW_UPDATE_GOLDEN even when empty"
else
    fail "scripts/test with NVTXW_UPDATE_GOLDEN empty: $(head -c 300 "$tmp/out")"
fi
finish
