#!/usr/bin/env bash
# bench/perfetto_bench.sh - Sink=perfetto against Sink=json on the same
# sessions (docs/perfetto.md, bench/README.md): each synthetic generator
# (events=EVENTS, default 1e6) is written once as a report; that report is
# then replayed REPEAT times (default 3, the least CPU time kept) into
# Sink=null (the floor: reading and validating), Sink=json, Sink=perfetto
# and Sink=perfetto with Compression=1 (zstd_compressed_packets). Printed
# per workload and perfetto variant: bytes of each output and their ratio
# to the JSON's (target: <= 0.15x), events/s of each whole replay and their
# ratio to the JSON's (target: >= 2x), and the same for the sinks' own time
# (replay minus the null floor). Not part of `make check`
# (minutes, and timing-dependent); run it as `make bench-perfetto`.
#   EVENTS=1000000 REPEAT=3 GENERATORS="mpi gpu nested tasks"
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

# best_time REPORT OUT [ARG...]: the least CPU time (user + system, GNU
# time) of REPEAT replays of REPORT into OUT. CPU time, not wall time: the
# page cache's writeback of the previous run's output (hundreds of MB of
# JSON) otherwise lands on whichever run comes next.
best_time() {
    local best="" t i report=$1 out=$2
    shift 2
    for ((i = 0; i < repeat; i++)); do
        /usr/bin/time -f "%U %S" -o "$tmp/time" "$replay" "$report" -o "$out" "$@" \
            >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; return 1; }
        t=$(awk '{ printf "%.4f", $1 + $2 }' "$tmp/time")
        if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$t; fi
    done
    echo "$best"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }'; }

status=0
echo "$events records per workload (at least), least CPU time (user + system) of $repeat replays of its report"
printf '%-8s %-9s %12s %7s %9s %7s %7s\n' workload output bytes "x json" cpu-s speed sink
for g in $generators; do
    report=$tmp/$g.nvtxw
    "$replay" --synthetic "$g:events=$events" -o "$report" 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
    t_null=$(best_time "$report" /dev/null --to null) || exit 1
    t_json=$(best_time "$report" "$tmp/$g.json") || exit 1
    b_json=$(stat -c %s "$tmp/$g.json")
    printf '%-8s %-9s %12s %7s %9s %7s %7s\n' "$g" null - - "$t_null" - -
    printf '%-8s %-9s %12s %7s %9s %7s %7s\n' "$g" json "$b_json" 1.000 "$t_json" 1.000x 1.000x
    for variant in plain zstd; do
        extra=()
        [ "$variant" = zstd ] && extra=(--compression 1)
        t_pf=$(best_time "$report" "$tmp/$g.pftrace" "${extra[@]}") || exit 1
        b_pf=$(stat -c %s "$tmp/$g.pftrace")
        bytes=$(ratio "$b_pf" "$b_json")
        speed=$(ratio "$t_json" "$t_pf")
        sink=$(awk -v j="$t_json" -v p="$t_pf" -v n="$t_null" \
            'BEGIN { if (p - n > 0) printf "%.3f", (j - n) / (p - n); else print "-" }')
        printf '%-8s %-9s %12s %7s %9s %7s %7s\n' "$g" "pf-$variant" "$b_pf" "$bytes" "$t_pf" \
            "${speed}x" "${sink}x"
        awk -v b="$bytes" 'BEGIN { exit !(b > 0.15) }' &&
            echo "MISSED: $g pf-$variant: bytes ${bytes}x json (target <= 0.15x)"
        awk -v s="$sink" 'BEGIN { exit !(s < 2) }' &&
            echo "MISSED: $g pf-$variant: the sink's events/s ${sink}x json's (target >= 2x)"
        rm -f "$tmp/$g.pftrace"
    done
    rm -f "$tmp/$g.json" "$report"
done
exit $status
