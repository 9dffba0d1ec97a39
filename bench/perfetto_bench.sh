#!/usr/bin/env bash
# bench/perfetto_bench.sh - Sink=perfetto against Sink=json on the same
# sessions (docs/perfetto.md, bench/README.md): each synthetic generator
# (events=EVENTS, default 1e6) is written once as a report; that report is
# then replayed REPEAT times (default 3, the least time kept) into
# Sink=null (the floor: reading and validating), Sink=json, Sink=perfetto
# and Sink=perfetto with Compression=1 (zstd_compressed_packets, compressed
# on CompressionThreads= threads: by default one when a second CPU is
# online). Printed per workload and perfetto variant: bytes of each output
# and their ratio to the JSON's (target: <= 0.15x), and the sink's
# events/s (replay minus the null floor) as a ratio to the JSON sink's
# (target: >= 2x), by wall time (what a producer waits for) and by CPU
# time (user + system of all threads: what the machine pays). Not part of
# `make check` (minutes, and timing-dependent); run it as
# `make bench-perfetto`.
#   EVENTS=1000000 REPEAT=3 GENERATORS="mpi gpu nested tasks"
# Outputs go to TMPDIR: put it on a tmpfs (TMPDIR=/dev/shm) for wall times
# that the page cache's writeback of the previous run (hundreds of MB of
# JSON) does not move.
# Exit 1 when a run fails; a missed target prints MISSED and still exits 0,
# as the other benchmarks do.
set -u
build=${top_builddir:-.}
replay=$build/tools/replay/nvtxw-replay
events=${EVENTS:-1000000}
repeat=${REPEAT:-3}
generators=${GENERATORS:-"mpi gpu nested tasks"}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# best_time REPORT OUT [ARG...]: "WALL CPU", the least wall time and the
# least CPU time (user + system, GNU time) of REPEAT replays of REPORT
# into OUT.
best_time() {
    local wall="" cpu="" w c i report=$1 out=$2
    shift 2
    for ((i = 0; i < repeat; i++)); do
        /usr/bin/time -f "%e %U %S" -o "$tmp/time" "$replay" "$report" -o "$out" "$@" \
            >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; return 1; }
        read -r w c < <(awk '{ printf "%.4f %.4f\n", $1, $2 + $3 }' "$tmp/time")
        if [ -z "$wall" ] || awk -v a="$w" -v b="$wall" 'BEGIN { exit !(a < b) }'; then wall=$w; fi
        if [ -z "$cpu" ] || awk -v a="$c" -v b="$cpu" 'BEGIN { exit !(a < b) }'; then cpu=$c; fi
    done
    echo "$wall $cpu"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }'; }

# sink_ratio JSON PF NULL: the sink's events/s against the JSON sink's,
# both less the floor.
sink_ratio() {
    awk -v j="$1" -v p="$2" -v n="$3" \
        'BEGIN { if (p - n > 0) printf "%.3f", (j - n) / (p - n); else print "-" }'
}

status=0
echo "$events records per workload (at least), least wall and CPU time (user + system) of $repeat replays of its report"
printf '%-8s %-9s %12s %7s %8s %8s %8s %8s\n' workload output bytes "x json" wall-s cpu-s sink-wall sink-cpu
for g in $generators; do
    report=$tmp/$g.nvtxw
    "$replay" --synthetic "$g:events=$events" -o "$report" 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
    read -r w_null c_null < <(best_time "$report" /dev/null --to null) || exit 1
    read -r w_json c_json < <(best_time "$report" "$tmp/$g.json") || exit 1
    [ -n "$c_json" ] || exit 1
    b_json=$(stat -c %s "$tmp/$g.json")
    printf '%-8s %-9s %12s %7s %8s %8s %8s %8s\n' "$g" null - - "$w_null" "$c_null" - -
    printf '%-8s %-9s %12s %7s %8s %8s %8s %8s\n' "$g" json "$b_json" 1.000 "$w_json" "$c_json" \
        1.000x 1.000x
    for variant in plain zstd; do
        extra=()
        [ "$variant" = zstd ] && extra=(--compression 1)
        read -r w_pf c_pf < <(best_time "$report" "$tmp/$g.pftrace" "${extra[@]}") || exit 1
        [ -n "$c_pf" ] || exit 1
        b_pf=$(stat -c %s "$tmp/$g.pftrace")
        bytes=$(ratio "$b_pf" "$b_json")
        sink_wall=$(sink_ratio "$w_json" "$w_pf" "$w_null")
        sink_cpu=$(sink_ratio "$c_json" "$c_pf" "$c_null")
        printf '%-8s %-9s %12s %7s %8s %8s %8s %8s\n' "$g" "pf-$variant" "$b_pf" "$bytes" \
            "$w_pf" "$c_pf" "${sink_wall}x" "${sink_cpu}x"
        awk -v b="$bytes" 'BEGIN { exit !(b > 0.15) }' &&
            echo "MISSED: $g pf-$variant: bytes ${bytes}x json (target <= 0.15x)"
        awk -v s="$sink_wall" 'BEGIN { exit !(s < 2) }' &&
            echo "MISSED: $g pf-$variant: the sink's events/s (wall) ${sink_wall}x json's (target >= 2x)"
        rm -f "$tmp/$g.pftrace"
    done
    rm -f "$tmp/$g.json" "$report"
done
exit $status
