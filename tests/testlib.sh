# tests/testlib.sh - sourced by the shell tests: pass/fail counters and the
# closing "N passed, M failed" line, which the automake log shows and
# scripts/test adds up. A run in which no check passed fails: a test that
# ran nothing must never look green.
passed=0
failed=0

pass() {
    passed=$((passed + 1))
    echo "PASS: $1"
}

fail() {
    failed=$((failed + 1))
    echo "FAIL: $1"
}

# Prints the summary and exits: 0 only with no failure and at least one pass.
finish() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
    exit
}

# A precondition is missing: fail at once, never skip.
fatal() {
    fail "$1"
    finish
}
