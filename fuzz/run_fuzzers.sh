#!/bin/sh
# fuzz/run_fuzzers.sh SRCDIR SECONDS TARGET... - runs each libFuzzer target
# fuzz/TARGET_fuzz (built with ./configure CC=clang --enable-fuzzing) for
# SECONDS from its seeds (SRCDIR/fuzz/corpus/TARGET, read only: new inputs
# go to a scratch corpus) with its dictionary when there is one, prints the
# executions and coverage of each, and "N passed, M failed". A crash, leak
# or sanitizer report fails the target and leaves the input in
# fuzz/findings/TARGET/ (make fuzz-smoke, make fuzz-long).
srcdir=$1
seconds=$2
shift 2
passed=0
failed=0
scratch=$(mktemp -d "${TMPDIR:-/tmp}/nvtxw-fuzz.XXXXXX") || exit 1
trap 'rm -rf "$scratch"' EXIT
for target in "$@"; do
    findings=fuzz/findings/$target
    mkdir -p "$findings" "$scratch/$target"
    # roundtrip_fuzz replays capture files: the capture seeds and keys
    seeds=$target
    [ "$target" = roundtrip ] && seeds=capture
    set -- -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$findings/"
    [ -f "$srcdir/fuzz/${seeds}_fuzz.dict" ] && set -- "$@" -dict="$srcdir/fuzz/${seeds}_fuzz.dict"
    # The reader's inputs reach so many features that libFuzzer's entropic
    # schedule took 43 % of the time (perf): 181 executions/s with it, 439
    # without.
    [ "$target" = reader ] && set -- "$@" -max_len=20000 -entropic=0
    [ "$target" = chrome ] && set -- "$@" -max_len=65536
    if "fuzz/${target}_fuzz" "$@" "$scratch/$target" "$srcdir/fuzz/corpus/$seeds" \
        >"$scratch/$target.log" 2>&1; then
        runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$scratch/$target.log")
        cov=$(grep -o 'cov: [0-9]*' "$scratch/$target.log" | tail -1)
        echo "PASS: ${target}_fuzz: ${runs:-?} runs in ${seconds} s, ${cov:-cov: ?}"
        passed=$((passed + 1))
    else
        echo "FAIL: ${target}_fuzz: see $findings/ and the log below"
        tail -40 "$scratch/$target.log"
        failed=$((failed + 1))
    fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
