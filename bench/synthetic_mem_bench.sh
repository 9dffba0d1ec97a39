#!/usr/bin/env bash
# bench/synthetic_mem_bench.sh - flat memory of nvtxw-replay --synthetic
# (docs/synthetic.md): every generator runs with events=SMALL and
# events=LARGE (default 1e5 and 1e7) into the report sink, and the peak RSS
# of each run (GNU time's "Maximum resident set size") is printed with the
# ratio large/small. Memory must not grow with the event count: the ratio
# should stay near 1 (target <= 1.5x). Not part of `make check` (minutes,
# and a timing-dependent figure); run it as `make bench-synthetic`.
#   SMALL=100000 LARGE=10000000 GENERATORS="mpi gpu nested tasks"
# Exit 1 when a run fails or GNU time is missing; a missed target prints
# MISSED and still exits 0, as the other benchmarks do.
set -u
build=${top_builddir:-.}
replay=$build/tools/replay/nvtxw-replay
small=${SMALL:-100000}
large=${LARGE:-10000000}
generators=${GENERATORS:-"mpi gpu nested tasks"}
[ -x /usr/bin/time ] || { echo "synthetic_mem_bench: error: GNU time (/usr/bin/time) is missing" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# peak_kib GENERATOR EVENTS: runs one generation, prints "KiB seconds records".
peak_kib() {
    local out=$tmp/$1-$2.nvtxw
    /usr/bin/time -v -o "$tmp/time" "$replay" --synthetic "$1:events=$2" -o "$out" || return 1
    local kib secs
    kib=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$tmp/time")
    secs=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$tmp/time")
    echo "$kib $secs $(stat -c %s "$out")"
    rm -f "$out"
}

echo "generator  events      peak RSS (KiB)  wall     report bytes"
status=0
for g in $generators; do
    read -r s_kib s_time s_bytes < <(peak_kib "$g" "$small") || { echo "synthetic_mem_bench: error: $g events=$small failed" >&2; exit 1; }
    read -r l_kib l_time l_bytes < <(peak_kib "$g" "$large") || { echo "synthetic_mem_bench: error: $g events=$large failed" >&2; exit 1; }
    printf '%-10s %-11s %-15s %-8s %s\n' "$g" "$small" "$s_kib" "$s_time" "$s_bytes"
    printf '%-10s %-11s %-15s %-8s %s\n' "$g" "$large" "$l_kib" "$l_time" "$l_bytes"
    ratio=$(awk -v a="$l_kib" -v b="$s_kib" 'BEGIN { printf "%.2f", a / b }')
    verdict=$(awk -v r="$ratio" 'BEGIN { print (r <= 1.5) ? "OK" : "MISSED" }')
    echo "$g: peak RSS ratio events=$large / events=$small: ${ratio}x (target <= 1.5x) $verdict"
done
exit $status
