#!/usr/bin/env bash
# mpi_import_test.sh - `mpirun -np N nvtxw-otf2-import --mpi`: the ranks of a
# job convert shares of an archive's locations into one report.
#
# For every */traces.otf2 under $NVTXW_OTF2_TEST_DATA and an archive of 64
# locations from tests/gen/nvtxw-otf2-gen: the import with 1, 2, 3 and 4
# ranks (oversubscribed on small machines) must give what the single-process
# import gives, compared through the reader: the text sink's records stream
# by stream and the registrations as a set (same_text.py) and the
# statistics tables; with 3 ranks also the JSON's content
# (check_import.py --same-content), the OTF2 oracle
# (tests/otf2/otf2_oracle.py), and every sink opening the report.
#
# Failures: a damaged location on one rank fails the job on every rank with
# that rank's message (rank, file, location, event) and leaves nothing under
# OUT; --keep-going keeps what is readable as one process does; a rank killed
# during the run, and a file-size limit hit by the ranks' writes, leave no
# OUT either; usage errors are said once, by rank 0.
#
# Environment: top_builddir, top_srcdir (tests/local.mk), NVTXW_OTF2_TEST_DATA
# (tests/otf2/local.mk), NVTXW_MPIRUN (tests/mpi/local.mk: configure's
# mpirun). Prints "N passed, M failed"; exit 1 on any failure or when nothing
# ran.
set -u
build=${top_builddir:-.}
src=${top_srcdir:-.}
py=${NVTXW_OTF2_PYTHON:-/usr/bin/python3}
imp=$build/tools/otf2-import/nvtxw-otf2-import
replay=$build/tools/replay/nvtxw-replay
gen=$build/tests/gen/nvtxw-otf2-gen
here=$src/tests/mpi
oracle_dir=$src/tests/otf2
mpirun_cmd=${NVTXW_MPIRUN:-mpirun}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nvtxw-mpi-import.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
. "$src/tests/testlib.sh"

# CI runs as root; OpenMPI refuses that unless told. Shared memory between
# the ranks without CMA (containers forbid ptrace): copy through a buffer.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_rmaps_base_oversubscribe=1

# mpi N ARGS...: nvtxw-otf2-import --mpi on N ranks.
mpi() {
    local n=$1
    shift
    "$mpirun_cmd" --oversubscribe -np "$n" "$imp" --mpi "$@"
}

# check NAME COMMAND...: passes when the command exits 0 (stderr in $tmp/err).
check() {
    local name=$1
    shift
    if "$@" >"$tmp/out" 2>"$tmp/err"; then
        pass "$name"
    else
        fail "$name: exit $?: $(head -c 600 "$tmp/err") $(head -c 400 "$tmp/out")"
    fi
}

# no_leftovers NAME DIR: nothing but the expected files in DIR (no
# temporary of the tool or of the library).
no_leftovers() {
    if ls -A "$2" | grep -q '\.tmp-'; then
        fail "$1: temporary files left: $(ls -A "$2" | grep '\.tmp-' | head -3 | tr '\n' ' ')"
    else
        pass "$1: no temporary file left"
    fi
}

# checker NAME ARGS...: check_import.py, one PASS/FAIL per line it prints.
checker() {
    local name=$1 line
    shift
    if "$py" "$oracle_dir/check_import.py" "$@" >"$tmp/check.out" 2>&1; then
        pass "$name: $(tail -n 1 "$tmp/check.out")"
    else
        while IFS= read -r line; do
            case $line in "not ok - "*) fail "$name: ${line#not ok - }" ;; esac
        done <"$tmp/check.out"
        fail "$name: $(tail -c 400 "$tmp/check.out")"
    fi
}

# same_as_single NAME DIR: DIR/m.nvtxw (--mpi) reads like DIR/s.nvtxw:
# record by record (text) and by its statistics.
same_as_single() {
    local name=$1 w=$2
    check "$name: replay to text" "$replay" "$w/m.nvtxw" -o "$w/m.txt"
    check "$name: the same records as one process" "$py" "$here/same_text.py" "$w/s.txt" "$w/m.txt"
    check "$name: replay to stats CSV" "$replay" "$w/m.nvtxw" --stats=csv -o "$w/m.csv"
    check "$name: the same statistics as one process" \
        bash -c "cmp <(sort '$w/s.csv') <(sort '$w/m.csv')"
}

# against_oracle NAME DIR ANCHOR: DIR/m.nvtxw against the archive itself
# (the OTF2 oracle) and the one-process JSON, and opened in every sink.
against_oracle() {
    local name=$1 w=$2 anchor=$3 sink
    "$py" "$oracle_dir/otf2_oracle.py" "$anchor" --detail >"$w/oracle.json" 2>"$tmp/err" ||
        fail "$name: oracle cannot read the archive: $(head -c 400 "$tmp/err")"
    check "$name: replay to JSON" "$replay" "$w/m.nvtxw" -o "$w/m.json"
    checker "$name: the same JSON content as one process" --same-content "$w/s.json" "$w/m.json"
    checker "$name, against the oracle" "$anchor" "$w/m.json" "$w/m.csv" \
        --oracle "$w/oracle.json" --stats-prefix otf2:
    for sink in pftrace sqlite jsonl; do
        check "$name: opens in the .$sink sink" "$replay" "$w/m.nvtxw" -o "$w/m.$sink"
    done
    check "$name: opens in the null sink" "$replay" "$w/m.nvtxw" --to null
}

# import_archive NAME ANCHOR: 1 to 4 ranks against one process; 3 ranks
# also against the oracle and in every sink.
import_archive() {
    local name=$1 anchor=$2 ranks
    local w=$tmp/$name
    mkdir -p "$w"
    check "$name: one process" "$imp" --quiet "$anchor" -o "$w/s.nvtxw"
    check "$name: one process, text" "$replay" "$w/s.nvtxw" -o "$w/s.txt"
    check "$name: one process, JSON" "$replay" "$w/s.nvtxw" -o "$w/s.json"
    check "$name: one process, stats" "$replay" "$w/s.nvtxw" --stats=csv -o "$w/s.csv"
    for ranks in 1 2 3 4; do
        rm -f "$w/m.nvtxw"
        check "$name: --mpi on $ranks ranks" mpi "$ranks" --quiet "$anchor" -o "$w/m.nvtxw"
        same_as_single "$name, $ranks ranks" "$w"
        no_leftovers "$name, $ranks ranks" "$w"
        [ "$ranks" != 3 ] || against_oracle "$name, 3 ranks" "$w" "$anchor"
    done
}

[ -x "$imp" ] || fatal "no $imp (configure --with-otf2 --with-mpi)"
command -v "$mpirun_cmd" >/dev/null 2>&1 || fatal "no mpirun ($mpirun_cmd): install openmpi-bin"
data=${NVTXW_OTF2_TEST_DATA:-}
[ -n "$data" ] && [ -d "$data" ] || fatal "NVTXW_OTF2_TEST_DATA ($data) is not a folder"
found=0
for anchor in "$data"/*/traces.otf2; do
    [ -f "$anchor" ] || continue
    found=$((found + 1))
    import_archive "$(basename "$(dirname "$anchor")")" "$anchor"
done
[ "$found" -gt 0 ] || fail "no */traces.otf2 under $data"

# 64 locations: 16 processes of 4 threads
if "$gen" -o "$tmp/gen64" --ranks 16 --threads 4 --events 40000 --seed 5 >/dev/null 2>"$tmp/err"; then
    pass "generated: 64 locations"
    import_archive gen64 "$tmp/gen64/traces.otf2"
else
    fail "generated: nvtxw-otf2-gen failed: $(head -c 400 "$tmp/err")"
fi

# ---- failures ---------------------------------------------------------------

f=$tmp/fail
mkdir -p "$f"
"$gen" -o "$f/arch" --ranks 4 --threads 1 --events 40000 --seed 9 >/dev/null 2>&1 ||
    fail "generated: the archive to damage"
# The largest event file cut in half: its rank meets a truncated location.
victim=$(ls -S "$f/arch/traces/"*.evt | head -n 1)
truncate -s $(($(stat -c %s "$victim") / 2)) "$victim"
vid=$(basename "$victim" .evt)
mpi 3 "$f/arch/traces.otf2" -o "$f/out.nvtxw" >"$f/stdout" 2>"$f/stderr"
status=$?
if [ "$status" -ne 0 ] && [ ! -e "$f/out.nvtxw" ]; then
    pass "damaged location: the job fails (exit $status), no OUT"
else
    fail "damaged location: exit $status, OUT $(ls "$f/out.nvtxw" 2>&1)"
fi
if grep -Eq "rank [0-2] of 3: error: location $vid .*event #[0-9]+ of .*/$vid\.evt" "$f/stderr"; then
    pass "damaged location: that rank's message names rank, location, file and event"
else
    fail "damaged location: no rank message naming location $vid: $(head -c 800 "$f/stderr")"
fi
if [ "$(grep -c "error: rank [0-2] failed; .*out.nvtxw not written" "$f/stderr")" -eq 1 ]; then
    pass "damaged location: rank 0 says once that the report is not written"
else
    fail "damaged location: no word from rank 0: $(head -c 800 "$f/stderr")"
fi
no_leftovers "damaged location" "$f"
check "damaged location, --keep-going: the job succeeds" mpi 3 --keep-going \
    "$f/arch/traces.otf2" -o "$f/kept.nvtxw"
if grep -q "location.* incomplete" "$tmp/err"; then
    pass "damaged location, --keep-going: the incomplete location is said"
else
    fail "damaged location, --keep-going: $(head -c 600 "$tmp/err")"
fi
check "damaged location, --keep-going: one process" "$imp" --quiet --keep-going \
    "$f/arch/traces.otf2" -o "$f/kept1.nvtxw"
check "damaged location, --keep-going: text" "$replay" "$f/kept.nvtxw" -o "$f/m.txt"
check "damaged location, --keep-going: one process's text" "$replay" "$f/kept1.nvtxw" -o "$f/s.txt"
check "damaged location, --keep-going: what was readable is kept as in one process" \
    "$py" "$here/same_text.py" "$f/s.txt" "$f/m.txt"

# A file-size limit on the ranks (not on mpirun, whose own files it would
# stop): their writes fail (EFBIG), every rank fails.
"$mpirun_cmd" --oversubscribe -np 2 bash -c 'ulimit -f 64 && exec "$0" "$@"' "$imp" --mpi \
    --quiet "$f/arch/traces.otf2" -o "$f/big.nvtxw" >"$f/stdout" 2>"$f/stderr"
status=$?
if [ "$status" -ne 0 ] && [ ! -e "$f/big.nvtxw" ] && grep -q "File too large" "$f/stderr"; then
    pass "file-size limit: the job fails with the write's error, no OUT"
else
    fail "file-size limit: exit $status: $(head -c 600 "$f/stderr")"
fi
no_leftovers "file-size limit" "$f"

# A rank killed in the middle: mpirun ends the job, OUT never appears.
"$gen" -o "$f/long" --ranks 2 --threads 1 --events 3000000 --seed 4 >/dev/null 2>&1 ||
    fail "generated: the long archive"
"$mpirun_cmd" --oversubscribe -np 2 "$imp" --mpi --quiet "$f/long/traces.otf2" \
    -o "$f/killed.nvtxw" >/dev/null 2>"$f/stderr" &
job=$! # mpirun itself
killed=no
for _ in $(seq 1 400); do
    # the ranks are mpirun's children; the last started is not rank 0
    rank=$(pgrep -P "$job" | tail -n 1)
    if [ -n "$rank" ] && ls -A "$f" | grep -q '\.tmp-'; then
        kill -KILL "$rank" && killed=yes
        break
    fi
    sleep 0.05
done
wait "$job"
status=$?
if [ "$killed" = yes ] && [ "$status" -ne 0 ] && [ ! -e "$f/killed.nvtxw" ]; then
    pass "killed rank: the job fails (exit $status), no OUT"
else
    fail "killed rank: killed=$killed exit $status, OUT $(ls "$f/killed.nvtxw" 2>&1)"
fi

# ---- usage ------------------------------------------------------------------

u=$tmp/usage
mkdir -p "$u"
mpi 2 "$f/arch/traces.otf2" --part 1/2 -o "$u/x.nvtxw" >/dev/null 2>"$u/err"
status=$?
if [ "$status" -eq 2 ] && [ "$(grep -c "exclude each other" "$u/err")" -eq 1 ]; then
    pass "usage: --mpi with --part is refused once, exit 2"
else
    fail "usage: --mpi --part: exit $status: $(head -c 400 "$u/err")"
fi
mpi 2 "$f/arch/traces.otf2" -o "$u/x.json" >/dev/null 2>"$u/err"
status=$?
if [ "$status" -eq 2 ] && [ "$(grep -c "writes one report" "$u/err")" -eq 1 ]; then
    pass "usage: --mpi to JSON is refused once, exit 2"
else
    fail "usage: --mpi -o x.json: exit $status: $(head -c 400 "$u/err")"
fi

finish
