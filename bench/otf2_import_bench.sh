#!/bin/bash
# bench/otf2_import_bench.sh - nvtxw-otf2-import against the decoding floor,
# as ratios measured in one run on one machine (bench/README.md).
#
#   top_builddir=BUILD bash bench/otf2_import_bench.sh
#
# Generates an OTF2 archive (tests/gen/nvtxw-otf2-gen, 4 ranks x 2 threads,
# NVTXW_OTF2_BENCH_EVENTS events, default 24000000) in a temporary directory
# of the build tree (removed on exit), then runs, interleaved and
# NVTXW_OTF2_BENCH_RUNS times (default 3; the best wall time counts):
#   bench/otf2_count ARCHIVE                    (1 thread: the floor)
#   nvtxw-otf2-import ARCHIVE -o OUT.nvtxw --quiet --threads 1
#   nvtxw-otf2-import ARCHIVE -o OUT.nvtxw --quiet --threads 2
# and prints: importer events/s over the floor's (target >= 0.7x), the
# 2-thread speed-up, the importer's peak RSS (target < 64 MiB, the largest of
# all its runs) and report bytes (of a 1-thread run) over archive bytes
# (target <= 0.5x). Rates use the event count of otf2_count. Wall time and
# peak RSS come from /usr/bin/time (NVTXW_OTF2_BENCH_TIME names another GNU
# time; empty: none), else from python3's resource module (which counts the
# forked interpreter too: small peaks read ~10 MiB high).
#
# Never fails on a missed target (prints OK or MISSED); exits 1 when a
# measurement cannot be made, e.g. a program is missing or fails.
set -eu

top_builddir=${top_builddir:-.}
events=${NVTXW_OTF2_BENCH_EVENTS:-24000000}
runs=${NVTXW_OTF2_BENCH_RUNS:-3}
gen=$top_builddir/tests/gen/nvtxw-otf2-gen
count=$top_builddir/bench/otf2_count
import=$top_builddir/tools/otf2-import/nvtxw-otf2-import
time_cmd=${NVTXW_OTF2_BENCH_TIME-/usr/bin/time}

fail() {
    echo "otf2_import_bench: error: $*" >&2
    exit 1
}

for program in "$gen" "$count"; do
    [ -x "$program" ] || fail "$program is missing: run make (with OTF2) first"
done
case $events$runs in *[!0-9]*) fail "NVTXW_OTF2_BENCH_EVENTS and _RUNS take integers" ;; esac
[ "$runs" -ge 1 ] || fail "NVTXW_OTF2_BENCH_RUNS must be at least 1"

tmp=$(mktemp -d "$top_builddir/otf2_import_bench.XXXXXX") ||
    fail "cannot create a temporary directory in $top_builddir"
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

# measure NAME CMD...: runs CMD, its stdout into $tmp/NAME.out; sets $wall
# (seconds) and $rss (KiB). A failing CMD is fatal, with its stderr.
measure() {
    local name=$1
    shift
    if [ -n "$time_cmd" ] && [ -x "$time_cmd" ]; then
        "$time_cmd" -f '%e %M' -o "$tmp/time" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" ||
            { cat "$tmp/$name.err" >&2; fail "$name failed: $*"; }
    else
        python3 -c '
import resource, subprocess, sys, time
start = time.monotonic()
status = subprocess.call(sys.argv[2:], stdout=open(sys.argv[1] + ".out", "w"),
                         stderr=open(sys.argv[1] + ".err", "w"))
wall = time.monotonic() - start
print("%.3f %d" % (wall, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
sys.exit(status)' "$tmp/$name" "$@" >"$tmp/time" ||
            { cat "$tmp/$name.err" >&2; fail "$name failed: $*"; }
    fi
    read -r wall rss <"$tmp/time"
}

# Best (smallest) wall time and largest peak RSS per measurement.
declare -A best_wall max_rss
keep() {
    local name=$1
    echo "run $2  $(printf '%-28s' "$name") ${wall} s  $((rss / 1024)) MiB peak RSS"
    if [ -z "${best_wall[$name]:-}" ] || awk "BEGIN { exit !($wall < ${best_wall[$name]}) }"; then
        best_wall[$name]=$wall
    fi
    if [ -z "${max_rss[$name]:-}" ] || [ "$rss" -gt "${max_rss[$name]}" ]; then
        max_rss[$name]=$rss
    fi
}

echo "machine  $(nproc) cores online, /proc/loadavg at start: $(cat /proc/loadavg 2>/dev/null || echo unavailable)"
measure generate "$gen" -o "$tmp/archive" --ranks 4 --threads 2 --events "$events" --seed 1
gen_wall=$wall gen_rss=$rss
archive="$tmp/archive/traces.otf2"
archive_bytes=$(du -sb "$tmp/archive" | cut -f1)

have_import=1
[ -x "$import" ] || have_import=0
for run in $(seq 1 "$runs"); do
    measure count "$count" "$archive"
    keep "otf2_count, 1 thread" "$run"
    [ $have_import = 1 ] || continue
    for threads in 1 2; do
        rm -rf "$tmp/out.nvtxw"
        measure "import$threads" "$import" "$archive" -o "$tmp/out.nvtxw" --quiet --threads "$threads"
        keep "nvtxw-otf2-import, $threads thread$([ "$threads" = 1 ] || echo s)" "$run"
        [ "$threads" != 1 ] || report_bytes=$(du -sb "$tmp/out.nvtxw" | cut -f1)
    done
done
# One process of 4 threads, the shape of an OpenMP-task trace: with two
# threads it is read in two slices at once; of 16 and 64 threads, more than
# the slices can keep open, so each moves one event reader from location
# to location and flushes the streams it leaves (docs/otf2-mapping.md,
# Tasks).
one_process_threads="4 16 64"
if [ $have_import = 1 ]; then
    rm -rf "$tmp/archive" "$tmp/out.nvtxw"
    for width in $one_process_threads; do
        measure generate1 "$gen" -o "$tmp/one" --ranks 1 --threads "$width" --events "$events" \
            --seed 1
        for run in $(seq 1 "$runs"); do
            rm -rf "$tmp/out.nvtxw"
            measure import_one "$import" "$tmp/one/traces.otf2" -o "$tmp/out.nvtxw" --quiet \
                --threads 2
            keep "one process x $width, 2 threads" "$run"
        done
        rm -rf "$tmp/one" "$tmp/out.nvtxw"
    done
fi
counted=$(sed -n 's/^events=\([0-9]*\) .*/\1/p' "$tmp/count.out")
[ -n "$counted" ] || fail "otf2_count printed no event count"

echo "machine  /proc/loadavg at end: $(cat /proc/loadavg 2>/dev/null || echo unavailable)"
echo
echo "$counted events (4 ranks x 2 threads), archive $archive_bytes bytes, best of $runs runs"
awk -v n="$counted" -v w="$gen_wall" -v m="$gen_rss" 'BEGIN {
    printf "generate nvtxw-otf2-gen %7.2f s %6.2f M events/s  peak RSS %5.1f MiB\n", w, n / w / 1e6, m / 1024 }'
floor=${best_wall["otf2_count, 1 thread"]}
awk -v n="$counted" -v w="$floor" -v m="${max_rss["otf2_count, 1 thread"]}" 'BEGIN {
    printf "floor    otf2_count     %7.2f s %6.2f M events/s  peak RSS %5.1f MiB\n", w, n / w / 1e6, m / 1024 }'

if [ $have_import = 0 ]; then
    fail "$import is missing: the importer's figures need it (make tools/otf2-import/nvtxw-otf2-import)"
fi

one=${best_wall["nvtxw-otf2-import, 1 thread"]}
two=${best_wall["nvtxw-otf2-import, 2 threads"]}
rss1=${max_rss["nvtxw-otf2-import, 1 thread"]} rss2=${max_rss["nvtxw-otf2-import, 2 threads"]}
awk -v n="$counted" -v floor="$floor" -v one="$one" -v two="$two" -v rss1="$rss1" -v rss2="$rss2" \
    -v report="$report_bytes" -v archive="$archive_bytes" 'function verdict(ok) { return ok ? "OK" : "MISSED" }
BEGIN {
    r1 = n / one; r2 = n / two; rf = n / floor; peak = (rss1 > rss2 ? rss1 : rss2) / 1024
    printf "import   1 thread  %6.2f M events/s  floor %6.2f M events/s  ratio %5.2fx (target >= 0.7x) %s\n",
           r1 / 1e6, rf / 1e6, r1 / rf, verdict(r1 / rf >= 0.7)
    printf "scaling  2 threads %6.2f M events/s  1 thread %6.2f M events/s  speed-up %5.2fx\n",
           r2 / 1e6, r1 / 1e6, r2 / r1
    printf "memory   importer peak RSS %6.1f MiB (1 thread %.1f, 2 threads %.1f) (target < 64 MiB) %s\n",
           peak, rss1 / 1024, rss2 / 1024, verdict(peak < 64)
    printf "size     report %8.2f MB  archive %8.2f MB  ratio %5.3fx (target <= 0.5x) %s\n",
           report / 1e6, archive / 1e6, report / archive, verdict(report / archive <= 0.5)
}'
for width in $one_process_threads; do
    awk -v w="${best_wall["one process x $width, 2 threads"]}" -v width="$width" \
        -v m="${max_rss["one process x $width, 2 threads"]}" 'BEGIN {
    printf "memory   one process of %d threads, 2 threads: peak RSS %5.1f MiB, %.2f s (target < 64 MiB) %s\n",
           width, m / 1024, w, (m / 1024 < 64 ? "OK" : "MISSED") }'
done
