#!/usr/bin/env bash
# bad_input_test.sh - nvtxw-otf2-import on archives it must refuse. Every case
# expects exit status 1, "nvtxw-otf2-import: error:" and the case's detail on
# stderr, and nothing under the -o name nor anything else left in its folder:
# a missing anchor, a directory that is not an archive, garbage bytes as the
# anchor, a truncated .evt file, a truncated and a corrupted traces.def, an
# unsupported trace format (anchor byte 8, which libotf2 checks against the
# formats it reads), and archives from tests/gen/nvtxw-otf2-gen --inject
# nonmonotonic (stderr names the location and the 1-based event number that
# tests/otf2/otf2_oracle.py finds), unknown-region ("region 9999") and
# unknown-metric ("metric N"). --keep-going on the truncated .evt file exits 0,
# writes a report that replays, and counts on stderr what location 0 lost.
# Usage errors exit 2: no input, an unknown option, --part 3/2, --threads 0.
#
# Damaged copies are made from the shared ping-pong archive
# ($NVTXW_OTF2_TEST_DATA/pipit-ping-pong-mpi, set by tests/otf2/local.mk; a
# missing folder is a failure, never a skip). Prints "N passed, M failed".
set -u
build=${top_builddir:-.}
src=${top_srcdir:-.}
py=${NVTXW_OTF2_PYTHON:-/usr/bin/python3}
imp=$build/tools/otf2-import/nvtxw-otf2-import
replay=$build/tools/replay/nvtxw-replay
gen=$build/tests/gen/nvtxw-otf2-gen
here=$src/tests/otf2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nvtxw-otf2-bad.XXXXXX") || exit 1
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
. "${top_srcdir:-.}/tests/testlib.sh"
cases=0

# fresh: sets o to a new empty folder for one case's output.
fresh() {
    cases=$((cases + 1))
    o=$tmp/out$cases
    mkdir -p "$o"
}

# expect_error NAME DETAIL OUT COMMAND...: exit 1, an error line, DETAIL (an
# extended regular expression) on stderr, nothing left where OUT would be.
expect_error() {
    local name=$1 detail=$2 out=$3 why=
    shift 3
    "$@" >"$tmp/out" 2>"$tmp/err"
    local status=$?
    [ "$status" -eq 1 ] || why="exit $status, not 1; "
    grep -q '^nvtxw-otf2-import: error: ' "$tmp/err" ||
        why+="no 'nvtxw-otf2-import: error: ' line; "
    grep -Eq -- "$detail" "$tmp/err" || why+="stderr does not match /$detail/; "
    [ ! -e "$out" ] || why+="$out exists; "
    [ -z "$(ls -A "$(dirname "$out")")" ] ||
        why+="left in its folder: $(ls -A "$(dirname "$out")"); "
    if [ -z "$why" ]; then
        pass "$name"
    else
        fail "$name: ${why}stderr: $(head -c 300 "$tmp/err")"
    fi
}

# expect_usage NAME OUT ARGS...: exit 2, a message, no output.
expect_usage() {
    local name=$1 out=$2 why=
    shift 2
    "$imp" "$@" >"$tmp/out" 2>"$tmp/err"
    local status=$?
    [ "$status" -eq 2 ] || why="exit $status, not 2; "
    grep -q '^nvtxw-otf2-import: ' "$tmp/err" || why+="no 'nvtxw-otf2-import: ' message; "
    [ ! -e "$out" ] || why+="$out exists; "
    if [ -z "$why" ]; then
        pass "usage: $name"
    else
        fail "usage: $name: ${why}stderr: $(head -c 300 "$tmp/err")"
    fi
}

# copy NAME: a writable copy of the ping-pong archive.
copy() {
    cp -R "$pingpong" "$tmp/$1" && chmod -R u+w "$tmp/$1"
}

# half FILE: truncates FILE to half its size.
half() {
    truncate -s $(($(stat -c %s "$1") / 2)) "$1"
}

# generate NAME INJECTION: an archive from nvtxw-otf2-gen with one defect.
generate() {
    "$gen" -o "$tmp/$1" --ranks 2 --events 2000 --seed 3 --inject "$2" >/dev/null 2>"$tmp/err" &&
        [ -f "$tmp/$1/traces.otf2" ]
}

data=${NVTXW_OTF2_TEST_DATA:-}
[ -n "$data" ] || fatal "NVTXW_OTF2_TEST_DATA is not set: it must name the folder of the \
shared OTF2 archives (.../shared/data/otf2, see tests/otf2/local.mk)"
pingpong=$data/pipit-ping-pong-mpi
[ -f "$pingpong/traces.otf2" ] || fatal "no $pingpong/traces.otf2 (NVTXW_OTF2_TEST_DATA=$data)"
[ -x "$imp" ] || fatal "$imp is not built"

# Files that are no archive.
fresh
expect_error "missing anchor file" "nope/traces\.otf2" "$o/x.nvtxw" \
    "$imp" "$tmp/nope/traces.otf2" -o "$o/x.nvtxw"
mkdir -p "$tmp/notarchive" && echo "not an archive" >"$tmp/notarchive/README"
fresh
expect_error "a directory that is not an archive" "notarchive" "$o/x.nvtxw" \
    "$imp" "$tmp/notarchive" -o "$o/x.nvtxw"
mkdir -p "$tmp/garbage" && head -c 4096 /dev/urandom >"$tmp/garbage/traces.otf2"
fresh
expect_error "garbage anchor file" "garbage/traces\.otf2" "$o/x.nvtxw" \
    "$imp" "$tmp/garbage/traces.otf2" -o "$o/x.nvtxw"

# Damaged copies of a real archive.
copy trunc-evt && half "$tmp/trunc-evt/traces/0.evt"
fresh
expect_error "truncated traces/0.evt" "location 0([^0-9]|$)|\[L0\]|0\.evt" "$o/x.nvtxw" \
    "$imp" "$tmp/trunc-evt/traces.otf2" -o "$o/x.nvtxw"
copy trunc-def && half "$tmp/trunc-def/traces.def"
fresh
expect_error "truncated traces.def" "traces\.def|definition" "$o/x.nvtxw" \
    "$imp" "$tmp/trunc-def/traces.otf2" -o "$o/x.nvtxw"
copy corrupt-def &&
    printf '\377\377\377\377\377\377\377\377' | dd of="$tmp/corrupt-def/traces.def" bs=1 \
        seek=$(($(stat -c %s "$tmp/corrupt-def/traces.def") / 2)) conv=notrunc 2>/dev/null
fresh
expect_error "corrupt traces.def (8 bytes 0xff in the middle)" "traces\.def|definition" \
    "$o/x.nvtxw" "$imp" "$tmp/corrupt-def/traces.otf2" -o "$o/x.nvtxw"
# Anchor layout (OTF2_AnchorFile.c): 2 bytes of buffer header, "OTF2\0",
# anchor format, trace format (offset 8), version major.minor.bugfix. libotf2
# refuses a trace format it does not know ("The trace version conflicts with
# current reader version"); the version bytes are informational.
copy version &&
    printf '\177' | dd of="$tmp/version/traces.otf2" bs=1 seek=8 conv=notrunc 2>/dev/null
fresh
expect_error "unsupported trace format version" "[Vv]ersion" "$o/x.nvtxw" \
    "$imp" "$tmp/version/traces.otf2" -o "$o/x.nvtxw"

# --keep-going reads what it can.
fresh
if "$imp" "$tmp/trunc-evt/traces.otf2" --keep-going -o "$o/x.nvtxw" >"$tmp/out" 2>"$tmp/err"; then
    pass "--keep-going on a truncated .evt: exit 0"
else
    fail "--keep-going on a truncated .evt: exit $?: $(head -c 300 "$tmp/err")"
fi
if [ -s "$o/x.nvtxw" ]; then
    pass "--keep-going: the report exists"
else
    fail "--keep-going: no report"
fi
n=$(sed -n 's/^nvtxw-otf2-import: \([0-9]*\) events from.*/\1/p' "$tmp/err")
if [ -n "$n" ] && [ "$n" -ge 60 ] && [ "$n" -lt 120 ]; then
    pass "--keep-going: summary counts $n of 120 events (location 1 whole, 0 in part)"
else
    fail "--keep-going: summary should count 60..119 events, got '${n}'"
fi
if grep -Eq 'location 0([^0-9]|$)|\[L0\]|0\.evt' "$tmp/err"; then
    pass "--keep-going: stderr names the damaged location 0"
else
    fail "--keep-going: stderr does not name location 0: $(head -c 300 "$tmp/err")"
fi
lost=$((120 - ${n:-120}))
if grep -v ' events from ' "$tmp/err" | grep -Eq "(^|[^0-9])$lost [a-z ]*events?"; then
    pass "--keep-going: stderr counts the $lost events not read"
else
    fail "--keep-going: no stderr line counts '$lost ... events' not read: \
$(head -c 300 "$tmp/err")"
fi
if [ -x "$replay" ] && "$replay" "$o/x.nvtxw" -o "$o/x.json" >/dev/null 2>"$tmp/err"; then
    pass "--keep-going: the report replays"
else
    fail "--keep-going: the report does not replay: $(head -c 300 "$tmp/err")"
fi

# Generated archives with one defect each.
if [ ! -x "$gen" ]; then
    fail "generator $gen is not built: nonmonotonic, unknown-region, unknown-metric not run"
else
    if generate nonmono nonmonotonic; then
        where=$("$py" "$here/otf2_oracle.py" "$tmp/nonmono/traces.otf2" | "$py" -c '
import json, sys
d = json.load(sys.stdin)
alts = []
for loc, info in d["locations"].items():
    for event, _, _ in info["nonmonotonic"][:1]:
        name = "(location %s([^0-9]|$)|\\[L%s\\])" % (loc, loc)
        number = "event #?%d([^0-9]|$)" % event
        alts += ["%s.*%s" % (name, number), "%s.*%s" % (number, name)]
print("|".join(alts))')
        if [ -n "$where" ]; then
            fresh
            expect_error "non-monotonic timestamps: location and event named" "$where" \
                "$o/x.nvtxw" "$imp" "$tmp/nonmono/traces.otf2" -o "$o/x.nvtxw"
        else
            fail "non-monotonic timestamps: the oracle finds no decreasing timestamp \
in the generated archive"
        fi
    else
        fail "nvtxw-otf2-gen --inject nonmonotonic failed: $(head -c 300 "$tmp/err")"
    fi
    if generate region unknown-region; then
        fresh
        expect_error "unknown region to a report" "region 9999([^0-9]|$)" "$o/x.nvtxw" \
            "$imp" "$tmp/region/traces.otf2" -o "$o/x.nvtxw"
        fresh
        expect_error "unknown region to JSON" "region 9999([^0-9]|$)" "$o/x.json" \
            "$imp" "$tmp/region/traces.otf2" -o "$o/x.json"
    else
        fail "nvtxw-otf2-gen --inject unknown-region failed: $(head -c 300 "$tmp/err")"
    fi
    if generate metric unknown-metric; then
        fresh
        expect_error "unknown metric" "[Mm]etric [0-9]+" "$o/x.nvtxw" \
            "$imp" "$tmp/metric/traces.otf2" -o "$o/x.nvtxw"
    else
        fail "nvtxw-otf2-gen --inject unknown-metric failed: $(head -c 300 "$tmp/err")"
    fi
    # One process of 16 threads, read with one event reader moved from
    # location to location (turns of 100 events: many reopenings and
    # seeks), location 5's events cut in half: the error names it, and
    # --keep-going keeps what was read of it and everything else.
    if "$gen" -o "$tmp/wide" --ranks 1 --threads 16 --events 20000 --seed 5 >/dev/null \
        2>"$tmp/err"; then
        half "$tmp/wide/traces/5.evt"
        fresh
        expect_error "truncated location of a process in turns" "location 5([^0-9]|$)" \
            "$o/x.nvtxw" env NVTXW_OTF2_TURN_EVENTS=100 "$imp" "$tmp/wide/traces.otf2" \
            -o "$o/x.nvtxw"
        fresh
        if env NVTXW_OTF2_TURN_EVENTS=100 "$imp" "$tmp/wide/traces.otf2" --keep-going \
            -o "$o/x.nvtxw" >"$tmp/out" 2>"$tmp/err" &&
            grep -q "location 5 .*kept what was read before it" "$tmp/err" &&
            grep -qE "^nvtxw-otf2-import: 1 location incomplete, [1-9][0-9]* declared events? not read" \
                "$tmp/err" &&
            "$replay" "$o/x.nvtxw" --stats=csv -o "$o/x.csv" 2>>"$tmp/err"; then
            pass "--keep-going on a truncated location of a process in turns: kept, named, counted"
        else
            fail "--keep-going on a truncated location of a process in turns: \
$(head -c 400 "$tmp/err")"
        fi
    else
        fail "nvtxw-otf2-gen --ranks 1 --threads 16 failed: $(head -c 300 "$tmp/err")"
    fi
fi

# Another NVTXW backend (tests/backend/mock_backend.c): the import forwards
# to it; a backend failing mid-import fails the run with its error.
mock=$build/tests/backend/.libs/libmockbackend.so
if [ -f "$mock" ]; then
    mock=$(cd "$(dirname "$mock")" && pwd)/libmockbackend.so
    fresh
    if "$imp" "$pingpong/traces.otf2" --backend "$mock" --quiet >"$tmp/out" 2>"$tmp/err"; then
        pass "--backend: the mock backend takes the import"
    else
        fail "--backend: exit $?: $(head -c 300 "$tmp/err")"
    fi
    fresh
    expect_error "a backend failing at EventWrite" "cannot forward EventWrite: backend=.*returned 1" \
        "$o/none" env MOCK_BACKEND_FAIL=EventWrite "$imp" "$pingpong/traces.otf2" \
        --backend "$mock" --quiet
else
    fail "the mock backend is not built: $mock"
fi

# An address-space limit of 64 MiB (ulimit -v): the import runs, with one
# malloc arena and as many reading threads as fit (a note says how many),
# and gives the same events as without the limit. Before, glibc's per-thread
# arena and stack reservations made allocations fail.
# Sanitizer builds reserve terabytes of address space for their shadow
# memory, which no such limit allows: the plain builds run this check.
if [ -n "${NVTXW_SANITIZERS:-}" ]; then
    echo "not run here: ulimit -v checks (a sanitizer build, $NVTXW_SANITIZERS, needs its shadow memory)"
elif "$gen" -o "$tmp/limit" --ranks 4 --threads 4 --events 1000000 --seed 5 >/dev/null 2>"$tmp/err"; then
    fresh
    "$imp" "$tmp/limit/traces.otf2" -o "$o/free.nvtxw" --quiet 2>"$tmp/err"
    free_status=$?
    (ulimit -v 65536 && exec "$imp" "$tmp/limit/traces.otf2" -o "$o/one.nvtxw" --quiet) \
        2>"$tmp/one.err"
    one_status=$?
    (ulimit -v 65536 && exec "$imp" "$tmp/limit/traces.otf2" -o "$o/limited.nvtxw" --threads 8) \
        >/dev/null 2>"$tmp/limited.err"
    limited_status=$?
    if [ "$one_status" -eq 0 ] && [ "$(stat -c %s "$o/one.nvtxw")" -gt 100000 ]; then
        pass "ulimit -v 65536 on one thread: imported"
    else
        fail "ulimit -v 65536 on one thread: exit $one_status: $(head -c 300 "$tmp/one.err")"
    fi
    if [ "$free_status" -eq 0 ] && [ "$limited_status" -eq 0 ] &&
        grep -Eq '^nvtxw-otf2-import: note: the address space is limited to 64 MiB \(ulimit -v\): reading [1-7] locations? at a time instead of 8$' "$tmp/limited.err" &&
        "$replay" "$o/free.nvtxw" --to text -o "$o/free.txt" 2>/dev/null &&
        "$replay" "$o/limited.nvtxw" --to text -o "$o/limited.txt" 2>/dev/null &&
        [ "$(grep -c '^event' "$o/free.txt")" -gt 500000 ] &&
        [ "$(grep '^event' "$o/free.txt" | sort | md5sum)" = "$(grep '^event' "$o/limited.txt" | sort | md5sum)" ]; then
        pass "ulimit -v 65536 with --threads 8: fewer threads, said so, the same events"
    else
        fail "ulimit -v 65536: exit $free_status/$limited_status: $(head -c 300 "$tmp/limited.err")"
    fi
else
    fail "nvtxw-otf2-gen for the memory limit failed: $(head -c 300 "$tmp/err")"
fi

# Usage errors.
fresh
expect_usage "no input" "$o/x.nvtxw" -o "$o/x.nvtxw"
fresh
expect_usage "no arguments at all" "$o/x.nvtxw"
fresh
expect_usage "unknown option" "$o/x.nvtxw" "$pingpong/traces.otf2" --no-such-option \
    -o "$o/x.nvtxw"
fresh
expect_usage "--part 3/2" "$o/x.nvtxw" "$pingpong/traces.otf2" --part 3/2 -o "$o/x.nvtxw"
fresh
expect_usage "--threads 0" "$o/x.nvtxw" "$pingpong/traces.otf2" --threads 0 -o "$o/x.nvtxw"
fresh
expect_usage "--part 1/-1" "$o/x.nvtxw" "$pingpong/traces.otf2" --part 1/-1 -o "$o/x.nvtxw"
fresh
# a '|' would end the session's config string and start another key
expect_usage "'|' in the output path" "$o/a|Sink=null|x.nvtxw" "$pingpong/traces.otf2" \
    -o "$o/a|Sink=null|x.nvtxw"
fresh
expect_usage "a report to standard output" "$o/-" "$pingpong/traces.otf2" --to report -o -
fresh
expect_usage "a relative --backend" "$o/x.nvtxw" "$pingpong/traces.otf2" \
    --backend libx.so -o "$o/x.nvtxw"
fresh
expect_usage "an unknown output extension" "$o/x.pdf" "$pingpong/traces.otf2" -o "$o/x.pdf"
if grep -q "cannot tell the sink from the extension of '$o/x.pdf': use .nvtxw, .pftrace, .json" "$tmp/err"; then
    pass "usage: the unknown extension's message lists the known ones"
else
    fail "usage: the unknown extension's message: $(head -c 300 "$tmp/err")"
fi
fresh
cp -r "$pingpong" "$o/copy" # a copy: a regression must not overwrite the shared archive
cp "$o/copy/traces.otf2" "$tmp/anchor.before"
expect_usage "the output is the anchor file" "$o/none" "$o/copy/traces.otf2" --to report \
    -o "$o/copy/traces.otf2"
if cmp -s "$tmp/anchor.before" "$o/copy/traces.otf2" && grep -q -- "--force" "$tmp/err"; then
    pass "usage: the anchor file is left alone, --force named"
else
    fail "usage: the anchor file changed or --force not named: $(head -c 300 "$tmp/err")"
fi
fresh
if "$imp" "$pingpong/traces.otf2" -q -o "$o/UPPER.NVTXW" 2>"$tmp/err" &&
    "$replay" "$o/UPPER.NVTXW" --to text 2>/dev/null | grep -q '^event '; then
    pass "an upper-case .NVTXW output is a report"
else
    fail "an upper-case .NVTXW output is a report: $(head -c 300 "$tmp/err")"
fi

# Interrupts: SIGINT / SIGTERM stop the conversion (one thread or two),
# remove the temporary outputs, say "interrupted" and exit 130 / 143. The
# archive is large enough (10 M events, ~2 s) for the signal to come first.
if "$gen" -o "$tmp/big" --events 10000000 >/dev/null 2>"$tmp/err"; then
    for case in "INT 130 1 report.nvtxw" "TERM 143 2 report.nvtxw" "INT 130 2 ranges.json"; do
        read -r sig code threads out <<<"$case"
        fresh
        interrupt_run "$sig" "$o" "$tmp/intr.err" "$imp" "$tmp/big/traces.otf2" \
            --threads "$threads" -o "$o/$out"
        if [ "$interrupt_status" = "$code" ] && grep -q '^nvtxw-otf2-import: interrupted$' "$tmp/intr.err" &&
            ! grep -q error "$tmp/intr.err" && [ -z "$(ls -A "$o")" ]; then
            pass "SIG$sig with --threads $threads into $out: exit $code, nothing left"
        else
            fail "SIG$sig with --threads $threads into $out: exit $interrupt_status, left: $(ls -A "$o"), stderr: $(head -c 300 "$tmp/intr.err")"
        fi
    done
    rm -rf "$tmp/big"
else
    fail "nvtxw-otf2-gen --events 10000000 failed: $(head -c 300 "$tmp/err")"
fi

# Progress: a line on a terminal (script(1) gives the run one), none with -q.
fresh
if command -v script >/dev/null; then
    script -qec "'$imp' '$pingpong/traces.otf2' -o '$o/p.nvtxw'" /dev/null >"$tmp/tty.out" 2>&1
    if tr '\r' '\n' <"$tmp/tty.out" | grep -Eq '^nvtxw-otf2-import: events \[[#.]{20}\] +[0-9.]+%'; then
        pass "progress line on a terminal"
    else
        fail "progress line on a terminal: $(head -c 300 "$tmp/tty.out")"
    fi
    script -qec "'$imp' '$pingpong/traces.otf2' -q -o '$o/q.nvtxw'" /dev/null >"$tmp/tty.out" 2>&1
    if ! grep -q 'events \[' "$tmp/tty.out"; then
        pass "-q: no progress line on a terminal"
    else
        fail "-q: a progress line on a terminal: $(head -c 300 "$tmp/tty.out")"
    fi
else
    fail "script(1) is missing (util-linux): the progress checks cannot run"
fi

if "$imp" -V | grep -Eq '^nvtxw-otf2-import [0-9][^ ]* \(libnvtxw [0-9][^ ]*, OTF2 [0-9]'; then
    pass "-V names the tool's, the library's and OTF2's versions"
else
    fail "-V: $("$imp" -V 2>&1 | head -c 200)"
fi

# A full standard output is a failure (exit 1, said so), not a silent success.
for option in --help --version; do
    "$imp" "$option" >/dev/full 2>"$tmp/full.err"
    status=$?
    if [ "$status" -eq 1 ] && grep -q "^nvtxw-otf2-import: error: cannot write standard output" "$tmp/full.err"; then
        pass "$option to a full standard output: exit 1"
    else
        fail "$option to a full standard output: exit $status, $(cat "$tmp/full.err")"
    fi
done
finish
