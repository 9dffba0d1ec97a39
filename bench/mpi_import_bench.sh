#!/bin/bash
# bench/mpi_import_bench.sh - `nvtxw-otf2-import --mpi` against the same
# import in one process, as ratios measured in one run (bench/README.md,
# "MPI import"; docs/scaling.md has the model built on these figures).
#
#   top_builddir=BUILD top_srcdir=SRC bash bench/mpi_import_bench.sh
#
# Generates an archive (tests/gen/nvtxw-otf2-gen, 8 ranks x 2 threads,
# NVTXW_MPI_BENCH_EVENTS events, default 24000000) in a temporary directory
# of the build tree, then runs, interleaved and NVTXW_MPI_BENCH_RUNS times
# (default 3; the best wall time counts):
#   nvtxw-otf2-import ARCHIVE -o OUT --quiet            (one process, 1 thread)
#   mpirun -np 1 nvtxw-otf2-import --mpi ARCHIVE -o OUT --quiet
#   mpirun -np 2 nvtxw-otf2-import --mpi ARCHIVE -o OUT --quiet
# and prints the 2-rank speed-up over one process (target >= 1.7x on a
# 2-core machine), each rank's peak RSS, the bytes every rank reads besides
# its own locations (the anchor and the global definitions), and whether 4
# and 8 ranks (oversubscribed) write exactly the content of 2 (the reports'
# text dumps, byte for byte).
#
# Never fails on a missed target (prints OK or MISSED); exits 1 when a
# measurement cannot be made.
set -eu

top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
events=${NVTXW_MPI_BENCH_EVENTS:-24000000}
runs=${NVTXW_MPI_BENCH_RUNS:-3}
gen=$top_builddir/tests/gen/nvtxw-otf2-gen
import=$top_builddir/tools/otf2-import/nvtxw-otf2-import
replay=$top_builddir/tools/replay/nvtxw-replay
mpirun_cmd=${NVTXW_MPIRUN:-mpirun}
time_cmd=/usr/bin/time

fail() {
    echo "mpi_import_bench: error: $*" >&2
    exit 1
}

for program in "$gen" "$import" "$replay" "$time_cmd"; do
    [ -x "$program" ] || fail "$program is missing: run make (with OTF2) first"
done
command -v "$mpirun_cmd" >/dev/null || fail "no $mpirun_cmd: install openmpi-bin, configure --with-mpi"
case $events$runs in *[!0-9]*) fail "NVTXW_MPI_BENCH_EVENTS and _RUNS take integers" ;; esac
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none

tmp=$(mktemp -d "$top_builddir/mpi_import_bench.XXXXXX") || fail "cannot create a temporary directory"
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

# timed NAME CMD...: wall time of CMD (a program or a function) in $wall
# (seconds).
timed() {
    local name=$1 start end
    shift
    start=$(date +%s.%N)
    "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" ||
        { cat "$tmp/$name.err" >&2; fail "$name failed: $*"; }
    end=$(date +%s.%N)
    wall=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')
}

# ranks N OUT [ARGS]: the --mpi import on N ranks, each rank's peak RSS (KiB)
# in $tmp/rss.N.RANK.
ranks() {
    local n=$1 out=$2
    shift 2
    # shellcheck disable=SC2016 # expanded by each rank's shell
    "$mpirun_cmd" --oversubscribe -np "$n" bash -c \
        'exec "$0" -f %M -o "$1.$OMPI_COMM_WORLD_RANK" "${@:2}"' "$time_cmd" "$tmp/rss.$n" \
        "$import" --mpi --quiet "$archive" -o "$out" "$@"
}

declare -A best
keep() {
    echo "run $2  $(printf '%-24s' "$1") $wall s"
    if [ -z "${best[$1]:-}" ] || awk "BEGIN { exit !($wall < ${best[$1]}) }"; then
        best[$1]=$wall
    fi
}

echo "machine  $(nproc) cores online, /proc/loadavg at start: $(cat /proc/loadavg)"
"$gen" -o "$tmp/archive" --ranks 8 --threads 2 --events "$events" --seed 1 >/dev/null ||
    fail "the generator failed"
archive=$tmp/archive/traces.otf2
archive_bytes=$(du -sb "$tmp/archive" | cut -f1)
global_bytes=$(($(stat -c %s "$archive") + $(stat -c %s "$tmp/archive/traces.def")))

for run in $(seq 1 "$runs"); do
    rm -f "$tmp/one.nvtxw"
    timed one "$import" "$archive" -o "$tmp/one.nvtxw" --quiet
    keep "one process" "$run"
    for n in 1 2; do
        rm -f "$tmp/mpi$n.nvtxw"
        timed "mpi$n" ranks "$n" "$tmp/mpi$n.nvtxw"
        keep "--mpi, $n rank$([ "$n" = 1 ] || echo s)" "$run"
    done
done
for n in 4 8; do
    timed "mpi$n" ranks "$n" "$tmp/mpi$n.nvtxw"
    keep "--mpi, $n ranks (oversubscribed)" 1
done

echo "machine  /proc/loadavg at end: $(cat /proc/loadavg)"
echo
echo "$events events, 16 locations (8 processes x 2 threads), archive $archive_bytes bytes," \
    "best of $runs runs"
one=${best["one process"]}
for n in 1 2; do
    name="--mpi, $n rank$([ "$n" = 1 ] || echo s)"
    awk -v n="$n" -v e="$events" -v one="$one" -v w="${best[$name]}" 'BEGIN {
        printf "mpi      %d rank%s %7.2f s %6.2f M events/s  one process %7.2f s  speed-up %.2fx",
               n, (n == 1 ? " " : "s"), w, e / w / 1e6, one, one / w
        if (n == 2) printf " (target >= 1.7x) %s", ((one / w >= 1.7) ? "OK" : "MISSED")
        printf "\n" }'
done
for n in 1 2 4 8; do
    peaks=$(cat "$tmp/rss.$n".* | sort -n | tr '\n' ' ')
    echo "memory   $n rank(s): peak RSS of each rank (KiB): $peaks"
done
awk -v g="$global_bytes" -v a="$archive_bytes" 'BEGIN {
    printf "reads    every rank reads the anchor and global definitions besides its locations:" \
           " %d bytes (%.4f%% of the archive)\n", g, 100 * g / a }'

# Reports of --mpi runs number their streams alike (the archive's order),
# so their text dumps must be byte for byte the same (hashed as they are
# written: 24 M events make gigabytes of text).
digest() {
    "$replay" "$1" --to text -o - | sha256sum | cut -d' ' -f1
}
two=$(digest "$tmp/mpi2.nvtxw") || fail "replay of the 2-rank report"
for n in 4 8; do
    other=$(digest "$tmp/mpi$n.nvtxw") || fail "replay of the $n-rank report"
    if [ "$other" = "$two" ]; then
        echo "content  $n ranks: every record as with 2 ranks (text sha256 ${two:0:16}) OK"
    else
        echo "content  $n ranks: differs from 2 ranks (text sha256 ${other:0:16} vs ${two:0:16}) MISSED"
    fi
done
