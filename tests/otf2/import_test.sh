#!/usr/bin/env bash
# import_test.sh - nvtxw-otf2-import on real OTF2 archives, checked against an
# independent oracle: tests/otf2/otf2_oracle.py reads each archive with
# Debian's python3-otf2 and tests/otf2/check_import.py compares the import
# with it (streams, region ranges with their args and their stats, MPI
# messages and flows, every metric sample, every task slice and task instant,
# every other instant with its attribute and parameter args, the stderr
# summary; tests/otf2/checker_test.sh shows that those checks can fail).
#
# Archives: every */traces.otf2 under $NVTXW_OTF2_TEST_DATA (the shared Score-P
# archives, see their README) and two made by tests/gen/nvtxw-otf2-gen
# (`--events 20000 --seed 7`, and one process of 4 threads). For each: import to a
# report, replay it to JSON and stats CSV, check; import again with
# --threads 2 (tasks registered at first sight) and with --threads 2 into
# libnvtxw loaded as another backend (the task prescan), and compare the
# replayed JSONs' content (stream open order may differ, content may not); import straight to JSON and to stats CSV, check
# those and compare the JSON's content with the replayed one; import in three
# --part parts, merge them with nvtxw-replay and compare with the whole.
# Then all the archives' reports merged into one: nothing lost, the clashing
# static IDs renumbered and said.
#
# Environment: top_builddir, top_srcdir (exported by tests/local.mk),
# NVTXW_OTF2_TEST_DATA (set by tests/otf2/local.mk; a missing or empty folder
# is a failure, never a skip) and optionally NVTXW_OTF2_STATS_PREFIX and
# NVTXW_OTF2_REGION_NAME (below). Prints "N passed, M failed"; exit 1 on any
# failure or when nothing ran.
set -u
build=${top_builddir:-.}
src=${top_srcdir:-.}
py=${NVTXW_OTF2_PYTHON:-/usr/bin/python3}
imp=$build/tools/otf2-import/nvtxw-otf2-import
replay=$build/tools/replay/nvtxw-replay
gen=$build/tests/gen/nvtxw-otf2-gen
backend_lib=$(cd "$build/libnvtxw/.libs" && pwd)/libnvtxw3.so
here=$src/tests/otf2
# Prefix of region names in the stats tables: the importer writes regions in
# its "otf2" domain and docs/stats.md names ranges "domain:message".
stats_prefix=${NVTXW_OTF2_STATS_PREFIX:-otf2:}
# Range names: the region's name (the demangled, display name; Score-P's
# canonical name is the mangled one), else its canonical name
# (docs/otf2-mapping.md; otf2_oracle.py --region-name).
region_name=${NVTXW_OTF2_REGION_NAME:-name}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nvtxw-otf2-import.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
. "${top_srcdir:-.}/tests/testlib.sh"

# check NAME COMMAND...: passes when the command exits 0; its stderr goes to
# $tmp/err and is shown on failure.
check() {
    local name=$1
    shift
    if "$@" >"$tmp/out" 2>"$tmp/err"; then
        pass "$name"
    else
        fail "$name: exit $?: $(head -c 400 "$tmp/err")"
    fi
}

# checker NAME ARGS...: runs check_import.py, one PASS/FAIL per line it prints.
checker() {
    local name=$1 line n m
    shift
    "$py" "$here/check_import.py" "$@" >"$tmp/check.out" 2>&1
    local status=$?
    while IFS= read -r line; do
        case $line in
        "ok - "*) pass "$name: ${line#ok - }" ;;
        "not ok - "*) fail "$name: ${line#not ok - }" ;;
        esac
    done <"$tmp/check.out"
    line=$(tail -n 1 "$tmp/check.out")
    if [[ $line =~ ^([0-9]+)\ checks,\ ([0-9]+)\ failed$ ]]; then
        n=${BASH_REMATCH[1]}
        m=${BASH_REMATCH[2]}
        [ "$n" -gt 0 ] || fail "$name: check_import.py ran no check"
        [ "$status" -eq 0 ] || [ "$m" -gt 0 ] || fail "$name: check_import.py exit $status"
    else
        fail "$name: check_import.py did not finish: $(tail -c 400 "$tmp/check.out")"
    fi
}

# import_archive NAME ANCHOR: every step of the header on one archive.
import_archive() {
    local name=$1 anchor=$2 min_tasks=${3:-0}
    local w=$tmp/$name
    mkdir -p "$w"
    if ! "$py" "$here/otf2_oracle.py" "$anchor" --detail --region-name "$region_name" \
        >"$w/oracle.json" 2>"$tmp/err"; then
        fail "$name: oracle cannot read the archive: $(head -c 400 "$tmp/err")"
        return
    fi
    pass "$name: oracle read the archive"
    check "$name: import to a report" "$imp" "$anchor" -o "$w/a.nvtxw"
    cp "$tmp/err" "$w/a.err"
    check "$name: replay to JSON" "$replay" "$w/a.nvtxw" -o "$w/a.json"
    check "$name: replay to stats CSV" "$replay" "$w/a.nvtxw" --stats=csv -o "$w/a.csv"
    checker "$name (report)" "$anchor" "$w/a.json" "$w/a.csv" --oracle "$w/oracle.json" \
        --stderr "$w/a.err" --stats-prefix "$stats_prefix"
    check "$name: stats names have one domain prefix (otf2:TaskSlice, not otf2:otf2:...)" \
        bash -c "! grep -q ',otf2:otf2:' '$w/a.csv'"

    check "$name: import with --threads 2" "$imp" "$anchor" --threads 2 --quiet -o "$w/b.nvtxw"
    check "$name: replay the --threads 2 report" "$replay" "$w/b.nvtxw" -o "$w/b.json"
    checker "$name (--threads 2 vs 1)" --same-content "$w/a.json" "$w/b.json"
    # Into another NVTXW library (here libnvtxw itself, loaded as a backend),
    # registrations may not overlap writes: several workers take the task
    # prescan instead of registering tasks at first sight. Same content.
    check "$name: --threads 2 through --backend (task prescan)" "$imp" "$anchor" --threads 2 \
        --quiet --backend "$backend_lib" -o "$w/p.nvtxw"
    check "$name: replay the --backend report" "$replay" "$w/p.nvtxw" -o "$w/p.json"
    checker "$name (--threads 2 through --backend vs 1)" --same-content "$w/a.json" "$w/p.json"

    # Tasks are released after their last use, on one worker and on
    # several (the text sink shows the calls in order); a process's
    # locations are read in turns (in slices on several workers when it
    # holds more than one worker's share of the events) and a task is
    # released as soon as they have all read past its completion, while
    # the process is still being converted.
    for threads in 1 2; do
        check "$name: import to text, --threads $threads" "$imp" "$anchor" --quiet \
            --threads "$threads" -o "$w/t$threads.txt"
        check "$name: --threads $threads releases every task scope after its last use" \
            "$py" "$src/tests/cli/check_released.py" "$w/t$threads.txt" --min "$min_tasks" \
            --early "$min_tasks"
    done
    check "$name: one worker converts process by process, releasing each one's tasks" \
        "$py" "$src/tests/cli/check_released.py" "$w/t1.txt" --process-order

    check "$name: import straight to JSON" "$imp" "$anchor" --quiet -o "$w/c.json"
    cp "$tmp/err" "$w/c.err"
    check "$name: --quiet prints no summary" bash -c "! grep -q 'events from' '$w/c.err'"
    check "$name: import straight to stats CSV" "$imp" "$anchor" --quiet --stats=csv \
        -o "$w/c.csv"
    checker "$name (direct)" "$anchor" "$w/c.json" "$w/c.csv" --oracle "$w/oracle.json" \
        --stats-prefix "$stats_prefix"
    checker "$name (direct vs replayed JSON)" --same-content "$w/a.json" "$w/c.json"

    # parts: --part 1/3 .. 3/3 merged by nvtxw-replay equal the whole import
    # (tasks that move between parts keep one scope)
    check "$name: import --part 1/3" "$imp" "$anchor" --part 1/3 --quiet -o "$w/p1.nvtxw"
    check "$name: import --part 2/3" "$imp" "$anchor" --part 2/3 --quiet -o "$w/p2.nvtxw"
    check "$name: import --part 3/3" "$imp" "$anchor" --part 3/3 --quiet -o "$w/p3.nvtxw"
    check "$name: merge the parts" "$replay" "$w/p1.nvtxw" "$w/p2.nvtxw" "$w/p3.nvtxw" \
        -o "$w/p.json"
    checker "$name (merged parts vs whole)" --same-content "$w/a.json" "$w/p.json"
}

# refuses_setting WHAT NAME=VALUE ANCHOR: the importer refuses a diagnostic
# setting that is not a positive integer, naming it, and leaves no output.
refuses_setting() {
    local what=$1 setting=$2 anchor=$3
    check "$what that is not a positive integer is refused" bash -c \
        "! env '$setting' '$imp' '$anchor' -o '$tmp/x.nvtxw' 2>'$tmp/x.err' &&
        grep -q '$setting is not a positive integer' '$tmp/x.err' && [ ! -e '$tmp/x.nvtxw' ]"
}

data=${NVTXW_OTF2_TEST_DATA:-}
[ -n "$data" ] || fatal "NVTXW_OTF2_TEST_DATA is not set: it must name the folder of the \
shared OTF2 archives (.../shared/data/otf2, see tests/otf2/local.mk)"
[ -d "$data" ] || fatal "NVTXW_OTF2_TEST_DATA=$data is not a directory"
anchors=("$data"/*/traces.otf2)
[ -f "${anchors[0]}" ] || fatal "no */traces.otf2 under NVTXW_OTF2_TEST_DATA=$data"
"$py" -c 'import otf2' 2>/dev/null || fatal "$py cannot import otf2 (install python3-otf2)"
[ -x "$imp" ] || fatal "$imp is not built"
[ -x "$replay" ] || fatal "$replay is not built"

for anchor in "${anchors[@]}"; do
    import_archive "$(basename "$(dirname "$anchor")")" "$anchor"
done

if [ -x "$gen" ]; then
    if "$gen" -o "$tmp/gen" --events 20000 --seed 7 >/dev/null 2>"$tmp/err" &&
        [ -f "$tmp/gen/traces.otf2" ]; then
        pass "generated: nvtxw-otf2-gen --events 20000 --seed 7"
        import_archive generated "$tmp/gen/traces.otf2" 1 # it has OpenMP tasks
    else
        fail "generated: nvtxw-otf2-gen wrote no $tmp/gen/traces.otf2: $(head -c 400 "$tmp/err")"
    fi
    # One process of 4 threads: with --threads 2 its locations are read in
    # turns in two slices at once, and tasks are still released early.
    if "$gen" -o "$tmp/gen1x4" --ranks 1 --threads 4 --events 20000 --seed 3 >/dev/null \
        2>"$tmp/err" && [ -f "$tmp/gen1x4/traces.otf2" ]; then
        pass "generated: nvtxw-otf2-gen --ranks 1 --threads 4"
        import_archive generated-1x4 "$tmp/gen1x4/traces.otf2" 1
    else
        fail "generated: nvtxw-otf2-gen wrote no $tmp/gen1x4/traces.otf2: $(head -c 400 "$tmp/err")"
    fi
    # One process of 16 threads: more than one worker (12) or each of two
    # (6 each) can hold open, so each slice keeps one event reader open and
    # closes and reopens them at each turn (of 200 events here instead of
    # 16,384 to 65,536), seeking OTF2's reader back to where it stopped: the
    # same events as the oracle, tasks released while the process is
    # converted (location by location they were released only after it).
    if "$gen" -o "$tmp/gen1x16" --ranks 1 --threads 16 --events 20000 --seed 5 >/dev/null \
        2>"$tmp/err" && [ -f "$tmp/gen1x16/traces.otf2" ]; then
        pass "generated: nvtxw-otf2-gen --ranks 1 --threads 16"
        export NVTXW_OTF2_TURN_EVENTS=200
        import_archive generated-1x16 "$tmp/gen1x16/traces.otf2" 1
        unset NVTXW_OTF2_TURN_EVENTS
        # the stream of a location whose reader is closed is flushed
        # (libnvtxw's StreamFlush: its buffers freed until its next turn)
        check "generated-1x16: idle streams are flushed" grep -q '^flush stream=' \
            "$tmp/generated-1x16/t1.txt"
        refuses_setting "generated-1x16: a turn size" NVTXW_OTF2_TURN_EVENTS=12x \
            "$tmp/gen1x16/traces.otf2"
    else
        fail "generated: nvtxw-otf2-gen wrote no $tmp/gen1x16/traces.otf2: $(head -c 400 "$tmp/err")"
    fi
    # Two processes of 4 threads on three workers: each process is cut in
    # two slices, so one worker starts the second process alone and, its
    # queue of completions full (a bound of 8 instead of 16,384), waits for
    # the worker that takes the other slice once the first process is done;
    # that worker must be able to open its streams meanwhile (a waiting
    # slice once held the gate they need: the import hung). Same content as
    # one worker, tasks still released early.
    w=$tmp/slices
    mkdir -p "$w"
    if "$gen" -o "$w/gen" --ranks 2 --threads 4 --events 200000 --seed 11 >/dev/null \
        2>"$tmp/err"; then
        for threads in 1 3; do
            check "slices: --threads $threads with a queue bound of 8 ends" \
                env NVTXW_OTF2_TURNS_QUEUE_LIMIT=8 timeout -k 5 120 "$imp" "$w/gen/traces.otf2" \
                --quiet --threads "$threads" -o "$w/t$threads.txt"
            check "slices: --threads $threads releases tasks early" "$py" \
                "$src/tests/cli/check_released.py" "$w/t$threads.txt" --min 1 --early 1
            check "slices: --threads $threads to JSON" env NVTXW_OTF2_TURNS_QUEUE_LIMIT=8 \
                timeout -k 5 120 "$imp" "$w/gen/traces.otf2" --quiet --threads "$threads" \
                -o "$w/t$threads.json"
        done
        checker "slices (--threads 3 vs 1)" --same-content "$w/t1.json" "$w/t3.json"
        refuses_setting "slices: a queue bound" NVTXW_OTF2_TURNS_QUEUE_LIMIT=0 "$w/gen/traces.otf2"
    else
        fail "slices: nvtxw-otf2-gen failed: $(head -c 400 "$tmp/err")"
    fi
else
    fail "generated: $gen is not built"
fi

# instances NAME-LIST...: "range instances" per range name summed over the
# stats CSVs given, from their range table (Style,Range are its last two
# columns; the counter table's third column is a minimum, not a count).
instances() {
    awk -F, 'NF == 10 && ($9 == "PushPop" || $9 == "StartEnd") { n[$NF] += $3 }
        END { for (r in n) print r, n[r] }' "$@" | sort
}

# Different archives merged into one report: their static IDs (clocks,
# metric schemas, scopes) clash and are renumbered, said on stderr; every
# range, sample and stream of every input is in the merge.
merge_inputs=()
for w in "$tmp"/*/a.nvtxw; do
    merge_inputs+=("$w")
done
if [ "${#merge_inputs[@]}" -ge 2 ]; then
    check "merge of ${#merge_inputs[@]} different imports" "$replay" "${merge_inputs[@]}" \
        -o "$tmp/all.nvtxw"
    cp "$tmp/err" "$tmp/merge.err"
    check "merge: renumbered static IDs are said" grep -q \
        "^nvtxw-replay: note: time domain ID [0-9]* of domain \"otf2\" in '.*' differs from its registration in '.*'; replayed as time domain ID [0-9]*\$" \
        "$tmp/merge.err"
    "$replay" "$tmp/all.nvtxw" --stats=csv -o "$tmp/all.csv" 2>/dev/null
    for w in "${merge_inputs[@]}"; do
        "$replay" "$w" --stats=csv -o "${w%.nvtxw}.csv" 2>/dev/null
    done
    instances "${merge_inputs[@]/%.nvtxw/.csv}" >"$tmp/want.inst"
    instances "$tmp/all.csv" >"$tmp/got.inst"
    check "merge: every range of every input, by name" cmp "$tmp/want.inst" "$tmp/got.inst"
    check "merge: some ranges at all" test -s "$tmp/got.inst"
    count_lines() { "$replay" "$@" --to text 2>/dev/null | grep -c "^$kind "; }
    for kind in counter_sample stream_open event; do
        want=0
        for w in "${merge_inputs[@]}"; do
            want=$((want + $(count_lines "$w")))
        done
        check "merge: $want ${kind}s, as in the inputs" test "$(count_lines "$tmp/all.nvtxw")" = "$want"
    done
else
    fail "merge of different imports: fewer than two imports to merge"
fi
finish
