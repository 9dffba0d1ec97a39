#!/bin/bash
# tests/record/record_test.sh - nvtxw-record on tests/record/nvtx_program,
# a program written only against NVIDIA's nvtx3 headers: the report holds
# exactly what each mode did (names, nesting, counts, payload values,
# thread names, domains, categories, start/end ranges across threads),
# timings are real (a range around a 1 ms sleep lasts at least 1 ms), the
# program's exit status comes back, a killed program leaves a readable
# report, a program without NVTX an empty one, misuse is counted and
# reported instead of crashing, and children that exec write their own.
# Every report is read back through nvtxw-replay into JSON and checked by
# python3.
. "$top_srcdir/tests/testlib.sh"

record=$top_builddir/tools/record/nvtxw-record
replay=$top_builddir/tools/replay/nvtxw-replay
program=$PWD/$top_builddir/tests/record/nvtx_program
[ -x "$program" ] || program=$top_builddir/tests/record/nvtx_program
export NVTXW_INJECT_LIBRARY=$PWD/$top_builddir/tools/record/.libs/libnvtxw-inject.so
[ -f "$NVTXW_INJECT_LIBRARY" ] || fatal "no injection library at $NVTXW_INJECT_LIBRARY"
for tool in "$record" "$replay" "$program"; do
    [ -x "$tool" ] || fatal "$tool is not built"
done
command -v python3 >/dev/null || fatal "python3 is needed to check the reports"

w=$(mktemp -d "${TMPDIR:-/tmp}/nvtxw-record-test.XXXXXX")
trap 'rm -rf "$w"' EXIT

check() { # NAME COMMAND...: pass when COMMAND succeeds
    local name=$1
    shift
    if "$@"; then pass "$name"; else fail "$name"; fi
}

# to_json REPORT JSON: the report through nvtxw-replay's JSON sink.
to_json() { "$replay" "$1" -o "$2" 2>"$w/replay.err"; }

# check_json NAME JSON PYTHON: runs PYTHON with `ev` (the trace events but
# metadata) and `rows` (thread name of each (pid, tid)) defined; it must
# print "ok".
check_json() {
    local name=$1 json=$2 script=$3 out
    out=$(python3 - "$json" <<EOF 2>&1
import json, sys, collections
d = json.load(open(sys.argv[1], encoding="utf-8"))
rows = {}
for e in d["traceEvents"]:
    if e["ph"] == "M" and e["name"] == "thread_name":
        rows[(e["pid"], e["tid"])] = e["args"]["name"]
ev = [e for e in d["traceEvents"] if e["ph"] != "M"]
for e in ev:
    e["row"] = rows.get((e["pid"], e["tid"]), "?")
def summary(events):
    return sorted((e["row"], e["ph"], e["name"], e.get("cat", ""),
                   json.dumps(e.get("args", {}), sort_keys=True)) for e in events)
$script
print("ok")
EOF
)
    if [ "$out" = ok ]; then pass "$name"; else fail "$name: $out"; fi
}

# ---- basic: every kind of call, exactly ---------------------------------
"$record" -o "$w/basic.nvtxw" "$program" basic 2>"$w/basic.err"
check "basic: exit status 0" [ $? -eq 0 ]
check "basic: says where the report is" grep -q "nvtxw-record: wrote $w/basic.nvtxw" "$w/basic.err"
check "basic: nothing reported as not recorded" \
    bash -c "! grep -q 'not recorded' '$w/basic.err'"
to_json "$w/basic.nvtxw" "$w/basic.json"
check "basic: the report reads back" [ -s "$w/basic.json" ]
check_json "basic: every event with its thread, domain, category, color and payload" \
    "$w/basic.json" '
want = sorted([
    ("main thread", "i", "hello", "nvtx", "{}"),
    ("main thread", "X", "outer", "nvtx", "{}"),
    ("main thread", "X", "inner \u00fc\u20ac", "nvtx", "{}"),
    ("main thread", "i", "valued", "io", "{\"payload\": -42}"),
    ("main thread", "X", "double", "nvtx", "{\"payload\": 2.5}"),
    ("main thread", "b", "async", "nvtx", "{}"),
    ("main thread", "e", "async", "nvtx", "{}"),
    ("main thread [dom]", "X", "registered", "compute", "{}"),
    ("main thread [dom]", "i", "registered", "compute", "{}"),
])
got = summary(ev)
assert got == want, ("events", got)
x = {e["name"]: e for e in ev if e["ph"] == "X"}
assert x["outer"]["ts"] <= x["inner \u00fc\u20ac"]["ts"], "inner starts before outer"
assert x["outer"]["ts"] + x["outer"]["dur"] >= x["inner \u00fc\u20ac"]["ts"] + x["inner \u00fc\u20ac"]["dur"], "inner ends after outer"
valued = [e for e in ev if e["name"] == "valued"][0]
assert valued.get("cname") == "good", ("green ARGB as the nearest viewer color", valued)
b = [e for e in ev if e["ph"] == "b"][0]; e2 = [e for e in ev if e["ph"] == "e"][0]
assert b["id"] == e2["id"] and b["ts"] <= e2["ts"], (b, e2)
names = {e["row"] for e in ev}
pids = {e["pid"] for e in ev}
assert len(pids) == 1, ("both domains rows of one process", pids)
'
"$replay" "$w/basic.nvtxw" --to text >"$w/basic.txt" 2>&1
check "basic: the registered string is registered in domain dom" \
    grep -q '^string domain="dom" handle=.* text="registered"' "$w/basic.txt"
check "basic: categories 7 (io) and 3 (compute, domain dom) are named" \
    bash -c "grep -q '^category domain=\"\" id=7 name=\"io\"' '$w/basic.txt' &&
             grep -q '^category domain=\"dom\" id=3 name=\"compute\"' '$w/basic.txt'"

# ---- --stats: the report's tables after the run -------------------------------
"$record" --quiet --stats -o "$w/stats.nvtxw" "$program" basic >"$w/stats.out" 2>"$w/stats.err"
check "--stats: exit status 0, the report kept" bash -c "[ $? -eq 0 ] && [ -s '$w/stats.nvtxw' ]"
check "--stats: the range summary on standard output, one row per range name" \
    bash -c "grep -q 'NVTX Range Summary' '$w/stats.out' &&
             grep -Eq '^ +[0-9.]+ +[0-9]+ +1 .* PushPop +outer\$' '$w/stats.out' &&
             grep -Eq '^ +[0-9.]+ +[0-9]+ +1 .* StartEnd +async\$' '$w/stats.out'"
"$record" --quiet --stats=csv -o "$w/stats2.nvtxw" "$program" basic >"$w/stats.csv" 2>/dev/null
check "--stats=csv: the same table as CSV" grep -q '^[0-9.]*,[0-9]*,1,.*,PushPop,outer' "$w/stats.csv"
"$record" --quiet --stats -o "$w/stats.json" "$program" basic >/dev/null 2>"$w/stats-json.err"
check "--stats with an output that is not a report is a usage error (2), the program not run" \
    bash -c "[ $? -eq 2 ] && [ ! -e '$w/stats.json' ] && grep -q 'must be a report' '$w/stats-json.err'"

# ---- the payload extension (nvToolsExtPayload.h) -----------------------------
"$record" --quiet -o "$w/payload.nvtxw" "$program" payload 2>"$w/payload.err"
check "payload: exit status 0 (schemas registered, the bad one refused)" [ $? -eq 0 ]
to_json "$w/payload.nvtxw" "$w/payload.json"
check_json "payload: a mark, a push/pop and a start/end range with the schema's fields" \
    "$w/payload.json" '
got = summary(ev)
want = sorted([
    ("thread %s [jobs]" % ev[0]["row"].split()[1], "i", "job", "jobs", "{\"load\": 0.5, \"rank\": 3}"),
    ("thread %s [jobs]" % ev[0]["row"].split()[1], "X", "job", "jobs", "{\"load\": 0.5, \"rank\": 4}"),
    ("thread %s [jobs]" % ev[0]["row"].split()[1], "b", "job", "jobs", "{\"load\": 0.5, \"rank\": 5}"),
    ("thread %s [jobs]" % ev[0]["row"].split()[1], "e", "job", "jobs", "{}"),
])
assert got == want, got
'
check "payload: the schema that does not validate, the unknown schema and the foreign pointer are counted" \
    bash -c "grep -q '3 NVTX calls not recorded: 3 events libnvtxw refused' '$w/payload.err' &&
             grep -q 'cannot register schema \"empty\"' '$w/payload.err'"

# ---- the counters extension (nvToolsExtCounters.h) ---------------------------
"$record" --quiet -o "$w/counters.nvtxw" "$program" counters 2>"$w/counters.err"
check "counters: exit status 0 (dynamic and static IDs handed out as registered)" [ $? -eq 0 ]
to_json "$w/counters.nvtxw" "$w/counters.json"
check_json "counters: every sample in order, by value converted to its counter's type, by sample, in a batch" \
    "$w/counters.json" '
got = [(e["name"], json.dumps(e["args"], sort_keys=True)) for e in ev if e["ph"] == "C"]
want = [("bytes", "{\"value\": 100}"), ("bytes", "{\"value\": 200}"),
        ("bytes", "{\"value\": 300}"), ("load", "{\"value\": 0.25}"),
        ("load", "{\"value\": 2.0}"), ("level", "{\"value\": 7}"),
        ("level", "{\"value\": 9}"), ("pairs", "{\"count\": 4, \"ratio\": 1.5}"),
        ("bytes", "{\"value\": 400}"), ("bytes", "{\"value\": 500}"),
        ("bytes", "{\"value\": 600}")]
assert got == want, got
assert len(set(e["row"] for e in ev)) == 1 and ev[0]["row"].endswith(" [metrics]"), ev[0]["row"]
times = [e["ts"] for e in ev if e["ph"] == "C"]
assert all(abs(times[-3 + k] - times[-3] - k) < 1e-6 for k in (1, 2)), times  # the batch: its own times, 1 us apart
'
"$replay" "$w/counters.nvtxw" -o "$w/counters.txt" 2>/dev/null
check "counters: the types as registered (uint8 with its static ID) and the sample without value" \
    bash -c "grep -q '^counter domain=\"metrics\" id=16777221 name=\"level\" schema=12 .* sample_size=1' '$w/counters.txt' &&
             grep -q '^counter_no_value .* reason=1' '$w/counters.txt'"
check "counters: values the type cannot hold, a wrong-size sample and an unknown counter are counted" \
    bash -c "grep -q '4 NVTX calls not recorded: 2 events libnvtxw refused; 2 counter samples whose value' '$w/counters.err' &&
             grep -q 'counter \"pairs\" takes 8-byte samples, got data of 3 bytes' '$w/counters.err'"

# ---- the sync module (nvToolsExtSync.h) and resource naming ------------------
"$record" --quiet -o "$w/sync.nvtxw" "$program" sync 2>"$w/sync.err"
check "sync: exit status 0 (objects and resources created)" [ $? -eq 0 ]
to_json "$w/sync.nvtxw" "$w/sync.json"
check_json "sync: the waits, the holds and the failed try as ranges and a mark named after each object" \
    "$w/sync.json" '
main = [(e["ph"], e["name"], e["cat"], e.get("args", {}).get("sync", "")) for e in ev if e["tid"] == ev[0]["tid"]]
want = [("b", "queue lock", "locks", "acquire"), ("e", "queue lock", "locks", ""),
        ("b", "queue lock", "locks", "held"), ("e", "queue lock", "locks", ""),
        ("b", "queue lock", "locks", "acquire"), ("e", "queue lock", "locks", ""),
        ("i", "queue lock", "locks", "acquire failed"),
        ("b", "s\u00e9maphore", "locks", "acquire"), ("e", "s\u00e9maphore", "locks", ""),
        ("b", "s\u00e9maphore", "locks", "held"),
        ("b", "queue lock", "locks", "held"), ("e", "queue lock", "locks", "")]
assert main == want, main
others = [e for e in ev if e["tid"] != ev[0]["tid"]]
held = [e for e in ev if e["ph"] == "b" and e["args"].get("sync") == "held"]
assert len(others) == 1 and others[0]["ph"] == "e" and others[0]["id"] == held[1]["id"], others  # posted by the other thread
hold = [e["ts"] for e in ev if e.get("id") == held[0]["id"]]
assert len(hold) == 2 and hold[1] - hold[0] >= 1000, hold  # held across the 1 ms sleep
'
"$replay" "$w/sync.nvtxw" -o "$w/sync.txt" 2>/dev/null
check "sync: the state enum and the named resources (the wide name as UTF-8)" \
    bash -c "grep -q '^enum domain=\"locks\" .* name=\"nvtx sync state\" size=4 values=3' '$w/sync.txt' &&
             grep -q '^resource domain=\"locks\" type=0x10001 id=0x[0-9a-f]* message=\"config block\"' '$w/sync.txt' &&
             grep -q '^resource domain=\"locks\" type=0x10002 id=0x2a message=\"handle $(printf '\303\251')\"' '$w/sync.txt'"
check "sync: a release with nothing held and an object never created are counted" \
    grep -q '2 NVTX calls not recorded: 1 calls on a sync object this process never created; 1 sync releases with no hold to end;' "$w/sync.err"

# ---- the C++ wrapper (nvtx3.hpp) -------------------------------------------
cpp_program=$PWD/$top_builddir/tests/record/nvtx_cpp_program
[ -x "$cpp_program" ] || cpp_program=$top_builddir/tests/record/nvtx_cpp_program
"$record" --quiet -o "$w/cpp.nvtxw" "$cpp_program"
check "c++: exit status 0" [ $? -eq 0 ]
to_json "$w/cpp.nvtxw" "$w/cpp.json"
check_json "c++: scoped ranges in two domains, registered string, named category, payload, a unique_range ended on another thread" \
    "$w/cpp.json" '
got = collections.Counter((e["row"].endswith("[solver]"), e["ph"], e["name"], e.get("cat", ""),
                           json.dumps(e.get("args", {}), sort_keys=True)) for e in ev)
want = collections.Counter({
    (False, "X", "outer", "nvtx", "{}"): 1,
    (False, "i", "checkpoint", "nvtx", "{\"payload\": 7}"): 1,
    (False, "b", "async", "nvtx", "{}"): 1,
    (False, "e", "", "nvtx", "{}"): 1, # an end on another stream: no name (docs/chrome-json.md)
    (True, "X", "iteration", "io", "{}"): 3,
})
assert got == want, got
b = [e for e in ev if e["ph"] == "b"][0]; e2 = [e for e in ev if e["ph"] == "e"][0]
assert b["id"] == e2["id"] and b["row"] != e2["row"], ("ended on the other thread", b, e2)
outer = [e for e in ev if e["name"] == "outer"][0]
for e in ev:
    if e["name"] == "iteration":
        assert outer["ts"] <= e["ts"] and e["ts"] + e["dur"] <= outer["ts"] + outer["dur"], e
'

# ---- threads: one stream each, ranges ended on another thread ------------
threads_case() { # N
    local n=$1
    "$record" -o "$w/t$n.nvtxw" --quiet "$program" threads "$n" 2>"$w/t$n.err"
    check "threads $n: exit status 0, nothing on stderr" \
        bash -c "[ $? -eq 0 ] && [ ! -s '$w/t$n.err' ]"
    to_json "$w/t$n.nvtxw" "$w/t$n.json"
    check_json "threads $n: each thread its own row with its 100 nested ranges; every start ended on the next thread" \
        "$w/t$n.json" "
n = $n
rows = collections.defaultdict(list)
for e in ev:
    rows[e['row']].append(e)
assert len(rows) == n, ('rows', sorted(rows))
starts = {}
for row, events in rows.items():
    assert row.startswith('thread '), row
    names = collections.Counter(e['name'] for e in events if e['ph'] == 'X')
    assert sorted(names.values()) == [100, 100] and 'leaf' in names, (row, names)
    own = [k for k in names if k != 'leaf'][0]
    for e in events:
        if e['ph'] == 'b':
            starts[e['id']] = (e['name'], row, e['ts'])
ends = {e['id']: (e['row'], e['ts']) for e in ev if e['ph'] == 'e'}
assert len(starts) == n and set(starts) == set(ends), (len(starts), len(ends))
for i, (name, row, ts) in starts.items():
    assert ends[i][1] >= ts, ('ends before it starts', name)
    assert n == 1 or ends[i][0] != row, ('ended on its own thread', name)
"
}
threads_case 8
threads_case 64

# ---- timings are real ----------------------------------------------------
"$record" -o "$w/sleep.json" --quiet "$program" sleep
check "sleep: exit status 0, written as JSON directly" bash -c "[ $? -eq 0 ] && [ -s '$w/sleep.json' ]"
check_json "sleep: a range around a 1 ms sleep lasts at least 1 ms" "$w/sleep.json" '
x = [e for e in ev if e["name"] == "sleep"]
assert len(x) == 1 and x[0]["dur"] >= 1000.0, x
'

# ---- the clock: CLOCK_MONOTONIC nanoseconds, from the TSC or not ----------
# Marks 10 ms apart for 0.4 s (the TSC line takes new points every 50 ms),
# each between two reads of CLOCK_MONOTONIC by the program itself: the
# recorded time must fall between them (1 us of slack for the conversion).
for clock in default monotonic; do
    if [ "$clock" = default ]; then
        "$record" --quiet -o "$w/clock.nvtxw" "$program" clock 40 >"$w/clock.times"
    else
        NVTXW_RECORD_CLOCK=monotonic "$record" --quiet -o "$w/clock.nvtxw" "$program" clock 40 \
            >"$w/clock.times"
    fi
    "$replay" "$w/clock.nvtxw" --to text 2>&1 | grep -o 'timestamp=[0-9]*' | cut -d= -f2 \
        >"$w/clock.recorded"
    check "clock ($clock): 40 marks, each recorded between the program's own clock reads" \
        python3 -c '
import sys
times = [tuple(map(int, l.split())) for l in open(sys.argv[1])]
got = [int(l) for l in open(sys.argv[2])]
assert len(times) == 40 and len(got) == 40, (len(times), len(got))
bad = [(b, t, a) for (b, a), t in zip(times, got) if not b - 1000 <= t <= a + 1000]
assert not bad, bad[:3]
' "$w/clock.times" "$w/clock.recorded"
done

# ---- misuse is counted, never a crash ------------------------------------
"$record" -o "$w/misuse.nvtxw" --quiet "$program" misuse 2>"$w/misuse.err"
check "misuse: exit status 0" [ $? -eq 0 ]
check "misuse: the calls not recorded are counted on stderr" grep -q \
    "5 NVTX calls not recorded: 2 range pops without a push; 1 range ends of an unknown range ID; 2 events with attributes" \
    "$w/misuse.err"
to_json "$w/misuse.nvtxw" "$w/misuse.json"
check_json "misuse: NULL messages are empty ones, invalid UTF-8 repaired, the rest recorded" \
    "$w/misuse.json" '
got = [(e["ph"], e["name"]) for e in sorted(ev, key=lambda e: e["ts"])]
assert got == [("i", ""), ("X", ""), ("i", "bad \ufffd utf-8"), ("i", "after")], got
'

# ---- many distinct names ---------------------------------------------------
"$record" --quiet -o "$w/names.nvtxw" "$program" names 100000
check "names: exit status 0" [ $? -eq 0 ]
"$replay" "$w/names.nvtxw" --to text 2>/dev/null | grep -c '^string domain="names"' >"$w/names.strings"
"$replay" "$w/names.nvtxw" --stats=csv -o "$w/names.csv" 2>/dev/null
check "names: 100000 ranges of 100000 distinct names, 100000 registered strings" \
    python3 -c '
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 3 and r[-1].startswith("name ")]
names = {r[-1] for r in rows}
assert len(rows) == 100000 and len(names) == 100000, (len(rows), len(names))
assert int(open(sys.argv[2]).read()) == 100000
' "$w/names.csv" "$w/names.strings"

# ---- no NVTX call: an empty, valid report --------------------------------
"$record" -o "$w/none.nvtxw" "$program" none 2>"$w/none.err"
check "none: exit status 0" [ $? -eq 0 ]
check "none: says the report is empty" grep -q "no NVTX call; wrote an empty" "$w/none.err"
"$replay" "$w/none.nvtxw" --to text >"$w/none.txt" 2>&1
check "none: the empty report reads back" \
    bash -c "grep -q '^session' '$w/none.txt' && ! grep -q mark '$w/none.txt'"

# ---- exit status of the program ------------------------------------------
"$record" --quiet -o "$w/seven.nvtxw" -- sh -c 'exit 7'
check "the program's exit status comes back (7)" [ $? -eq 7 ]
"$record" --quiet -o "$w/thread-exit.nvtxw" "$program" thread-exit
check "thread-exit: a thread's exit(3) is the status" [ $? -eq 3 ]
to_json "$w/thread-exit.nvtxw" "$w/thread-exit.json"
check_json "thread-exit: both threads' marks are in the report" "$w/thread-exit.json" '
assert sorted(e["name"] for e in ev) == ["main", "thread exits the process"], ev
'

# ---- SIGKILL: readable up to the last complete chunk ---------------------
"$record" -o "$w/kill.nvtxw" "$program" kill 300000 2>"$w/kill.err"
check "kill: the status says signal 9 (137)" [ $? -eq 137 ]
check "kill: says the report is unfinished" grep -q "did not finish its report" "$w/kill.err"
check "kill: no temporary file is left" bash -c "! ls '$w' | grep -q 'kill.nvtxw.tmp-'"
"$replay" "$w/kill.nvtxw" --to text >"$w/kill.txt" 2>"$w/kill-replay.err"
marks=$(grep -c 'before the kill' "$w/kill.txt")
check "kill: the report holds the marks of its complete chunks ($marks of 300000)" \
    bash -c "[ '$marks' -gt 1000 ] && [ '$marks' -lt 300000 ]"
check "kill: the reader names the damage" grep -q "writer did not finish" "$w/kill-replay.err"

# ---- the disk fills up: recording stops, the program goes on ---------------
# A 64 KiB file-size limit (SIGXFSZ ignored, so writes fail with EFBIG as
# on a full disk) stops the recording in the middle of 2 M pairs.
(ulimit -f 64; trap '' XFSZ; exec "$record" -o "$w/full.nvtxw" "$program" loop 2000000) \
    >"$w/full.out" 2>"$w/full.err"
full_status=$?
check "disk full: the program ran to its end" grep -q "loop done: 2000000 pairs" "$w/full.out"
check "disk full: exit status 1 (the program's was 0)" [ "$full_status" -eq 1 ]
check "disk full: the failure is named once, with the file's words" \
    bash -c "grep -q 'the report of nvtx_program .* was not written: cannot write report chunk: .*File too large' '$w/full.err' &&
             grep -q 'calls after a write failed and the recording stopped' '$w/full.err' &&
             grep -q 'nvtxw-record: error: .* ran, but its report $w/full.nvtxw was not written' '$w/full.err'"
check "disk full: nothing is left under the output's name, no temporary file" \
    bash -c "! ls '$w' | grep -q '^full.nvtxw'"

# ---- children ------------------------------------------------------------
"$record" --quiet -o "$w/fork.nvtxw" "$program" fork
check "fork: exit status 0" [ $? -eq 0 ]
to_json "$w/fork.nvtxw" "$w/fork.json"
check_json "fork: the parent's marks are recorded, the forked child's are not (docs/record.md)" \
    "$w/fork.json" '
assert sorted(e["name"] for e in ev) == ["parent", "parent after"], ev
'
"$record" --quiet -o "$w/exec.nvtxw" -- sh -c "'$program' basic && '$program' sleep"
check "exec: exit status 0" [ $? -eq 0 ]
children=$(ls "$w" | grep -c '^exec\.[0-9]*\.nvtxw$')
check "exec: each exec'd annotated child wrote OUT.PID.nvtxw ($children)" [ "$children" -eq 2 ]
check "exec: the shell, which never called NVTX, has an empty OUT" [ -s "$w/exec.nvtxw" ]

# ---- usage -----------------------------------------------------------------
"$record" 2>"$w/usage.err"
check "no program: usage error 2" [ $? -eq 2 ]
"$record" --bogus x 2>"$w/usage.err"
check "unknown option: 2, named" bash -c "[ $? -eq 2 ] && grep -q 'unknown option: --bogus' '$w/usage.err'"
"$record" -o "$w/x.unknown" true 2>"$w/usage.err"
check "unknown output extension: 2, named" \
    bash -c "[ $? -eq 2 ] && grep -q 'unknown output extension: $w/x.unknown' '$w/usage.err'"
"$record" -o "$w/missing.nvtxw" "$w/no-such-program" 2>"$w/usage.err"
check "a program that cannot run: 127, named" \
    bash -c "[ $? -eq 127 ] && grep -q 'cannot run $w/no-such-program' '$w/usage.err'"
NVTXW_INJECT_LIBRARY=$w/none.so "$record" -o "$w/y.nvtxw" true 2>"$w/usage.err"
check "no injection library: 125, says which and how to set it" \
    bash -c "[ $? -eq 125 ] && grep -q 'cannot read the injection library $w/none.so' '$w/usage.err'"

finish
