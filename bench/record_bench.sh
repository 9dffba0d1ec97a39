#!/usr/bin/env bash
# bench/record_bench.sh - the cost of nvtxw-record on the recorded program
# (docs/record.md, "Cost"): tests/record/nvtx_program's tight loop of N
# push/pop pairs (NVTXW_RECORD_BENCH_PAIRS, default 5,000,000: 2N NVTX
# calls) run without a tool and under nvtxw-record, interleaved, best of
# REPEAT (default 3) wall times, the whole run counted (start-up, and the
# report written at exit). Prints the nanoseconds per NVTX call against the
# 30 ns target, the report's bytes per call, and the memory per recorded
# thread (`threads 64` against `threads 1`, peak RSS from GNU time), then
# bench/line_handoff's cost of handing a 64-byte record to another thread.
# `make bench-record` runs it from the build tree.
set -eu
build=${top_builddir:-.}
program=$build/tests/record/nvtx_program
record=$build/tools/record/nvtxw-record
pairs=${NVTXW_RECORD_BENCH_PAIRS:-5000000}
repeat=${REPEAT:-3}
# In a build tree nvtxw-record is libtool's shell wrapper, which costs
# about 60 ms a run here (6 ns a call of the 10 M): run the program it
# wraps, as installed, with the build's libnvtxw.
if [ -x "$build/tools/record/.libs/nvtxw-record" ] && [ -d "$build/libnvtxw/.libs" ]; then
    record=$build/tools/record/.libs/nvtxw-record
    export LD_LIBRARY_PATH=$build/libnvtxw/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
for tool in "$program" "$record"; do
    [ -x "$tool" ] || { echo "record_bench: error: $tool is missing (make it first)" >&2; exit 1; }
done
[ -x /usr/bin/time ] || { echo "record_bench: error: /usr/bin/time is missing" >&2; exit 1; }
export NVTXW_INJECT_LIBRARY=${NVTXW_INJECT_LIBRARY:-$build/tools/record/.libs/libnvtxw-inject.so}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/record_bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

now() { date +%s%N; }
best_base= best_rec=
for ((run = 1; run <= repeat; run++)); do
    t0=$(now)
    "$program" loop "$pairs" >/dev/null
    t1=$(now)
    "$record" --quiet -o "$tmp/loop.nvtxw" "$program" loop "$pairs" >/dev/null
    t2=$(now)
    base=$((t1 - t0)) rec=$((t2 - t1))
    [ -z "$best_base" ] || [ "$base" -lt "$best_base" ] && best_base=$base
    [ -z "$best_rec" ] || [ "$rec" -lt "$best_rec" ] && best_rec=$rec
    echo "run $run  without a tool $(awk -v n=$base 'BEGIN { printf "%.3f", n / 1e9 }') s, recorded $(awk -v n=$rec 'BEGIN { printf "%.3f", n / 1e9 }') s"
done
bytes=$(stat -c %s "$tmp/loop.nvtxw")
/usr/bin/time -f "%M" -o "$tmp/rss1" "$record" --quiet -o "$tmp/t1.nvtxw" "$program" threads 1
/usr/bin/time -f "%M" -o "$tmp/rss64" "$record" --quiet -o "$tmp/t64.nvtxw" "$program" threads 64
awk -v b="$best_base" -v r="$best_rec" -v calls=$((2 * pairs)) -v bytes="$bytes" \
    -v rss1="$(tail -1 "$tmp/rss1")" -v rss64="$(tail -1 "$tmp/rss64")" 'BEGIN {
    ns = (r - b) / calls
    printf "record   %d NVTX calls (push/pop pairs), best of runs: without a tool %.3f s, recorded %.3f s\n", calls, b / 1e9, r / 1e9
    printf "record   %.1f ns per NVTX call on the calling thread (target <= 30 ns) %s\n", ns, ns <= 30 ? "OK" : "MISSED"
    printf "record   report %d bytes, %.2f bytes per call\n", bytes, bytes / calls
    printf "record   peak RSS 1 thread %.1f MiB, 64 threads %.1f MiB: %.0f KiB per recorded thread\n", rss1 / 1024, rss64 / 1024, (rss64 - rss1) / 63
}'
# the floor under queueing the calls for another thread to encode
[ ! -x "$build/bench/line_handoff" ] || "$build/bench/line_handoff"
