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

# interrupt_run SIGNAL DIR ERRFILE COMMAND...: starts COMMAND in the
# background (stderr to ERRFILE), waits up to 60 s for a temporary output
# (a name with ".tmp-") to appear in DIR, sends SIGNAL, and sets
# interrupt_status to the command's exit status (or "none" when no
# temporary appeared: the signal was then not sent and the command killed).
interrupt_run() {
    local signal=$1 dir=$2 errfile=$3 pid i=0
    shift 3
    "$@" >/dev/null 2>"$errfile" &
    pid=$!
    interrupt_status=none
    while [ "$i" -lt 600 ]; do # POSIX sh too: some tests run under dash
        if ls -A "$dir" | grep -q '\.tmp-'; then
            kill -s "$signal" "$pid"
            wait "$pid"
            interrupt_status=$?
            return
        fi
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
        i=$((i + 1))
    done
    kill -s KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
}
