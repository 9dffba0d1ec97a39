#!/usr/bin/env bash
# tests/cli/chrome_in_test.sh - Chrome trace JSON as an nvtxw-replay input
# (tools/replay/chrome/, docs/chrome-input.md):
#   - every phase of tests/data/chrome_phases.json mapped, with counts and
#     exact nanoseconds asserted on the text dump;
#   - the PyTorch-style tests/data/pytorch_trace.json to a report, JSON and
#     stats with one command each (absolute microsecond clocks kept to the
#     nanosecond, string pids/tids, ac2g flows bound);
#   - every event's args of chrome_phases.json, pytorch_trace.json and a
#     trace of many args shapes against the JSON sink's output of the
#     import: field names, order, types and values as docs/chrome-input.md
#     says (tests/cli/chrome_norm.py --input);
#   - round trips report -> JSON -> report -> JSON on reports from
#     examples/hello_producer, the tasks and nested synthetic workloads and
#     the OTF2 importer ($NVTXW_OTF2_TEST_DATA, required): same events per
#     thread, args fields with their types and values included
#     (tests/cli/chrome_norm.py), and same stats;
#   - malformed inputs: exit 1, a message naming line:column or the event,
#     no output file left; unmatched E / async e: documented warnings.
set -u
. "${top_srcdir:-.}/tests/testlib.sh"
build=${top_builddir:-.}
src=${top_srcdir:-.}
replay=$build/tools/replay/nvtxw-replay
norm=$src/tests/cli/chrome_norm.py
tmp=$(mktemp -d "${TMPDIR:-/tmp}/chrome_in.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# expect NAME: the previous command's status is 0 -> pass, else fail
expect() {
    if [ "$1" = 0 ]; then pass "$2"; else fail "$2: $(head -c 1500 "$tmp/err" 2>/dev/null)"; fi
}

# ---- every phase, exact nanoseconds ----
phases=$src/tests/data/chrome_phases.json
"$replay" "$phases" --to text >"$tmp/ph.txt" 2>"$tmp/err"
expect $? "phases: replays to text"
has() { grep -qF -- "$1" "$tmp/ph.txt"; }
count() { grep -c -- "$1" "$tmp/ph.txt"; }
[ "$(count '^event')" = 25 ] && [ "$(count '^counter_sample')" = 4 ]
expect $? "phases: 25 events and 4 counter samples"
has 'stream_open "main"' && has 'stream_open "helper"' && has 'path="app"'
expect $? "phases: metadata after the events names streams and the process scope"
has 'category domain="chrome" id=136962009 name="c1"' &&
    has 'chrome X: begin=10500, end=12750, category=136962009'
expect $? "phases: X 10.5 us + 2.25 us -> 10500..12750 ns, category ID from the name"
has 'args of X one: n=1, f=0.5, s="x", b=1, o="{\"k\":[1,2]}", big=18446744073709551615'
expect $? "phases: args typed (int, double, string, bool, JSON text, uint64)"
has 'chrome B: timestamp=20000, category=136962009, color=0xff007d00' && has 'chrome E: timestamp=21000'
expect $? "phases: B with string ts and cname, E rounded from 21.0001 us"
has 'scope=4294967296' && has 'scope=1' && has 'chrome instant: timestamp=22000'
expect $? "phases: instants with thread, process and global scope"
has 'name="mem used" schema=17' && has 'name="mem frac" schema=20' &&
    has 'ts=26000 counter=4294967296 bytes=c800000000000000'
expect $? "phases: C args keys as int64/double counters per series"
has 'async begin: rangeId=16, timestamp=30000' && has 'async end: rangeId=16, timestamp=34000' &&
    has 'async begin: rangeId=13835058055282163713, timestamp=31000'
expect $? "phases: nestable b/e with one id across threads (inner gets a synthetic ID)"
has 'async begin: rangeId=5, timestamp=40000' && has 'async end: rangeId=5, timestamp=42000' &&
    has 'args of legacy: step="s1"'
expect $? "phases: legacy S/T/F"
has 'async begin: rangeId=7, timestamp=95000' && has 'async end: rangeId=7, timestamp=96000'
expect $? "phases: id2.local"
grep -A3 'ts=50000$' "$tmp/ph.txt" | grep -q 'flow_out=77' &&
    grep -A3 'ts=60000$' "$tmp/ph.txt" | grep -q 'flow_in=77'
expect $? "phases: flow v1 s/f bound to the slices at the same ts"
grep -A3 'ts=70000$' "$tmp/ph.txt" | grep -q 'flow_out=5' &&
    grep -A3 'ts=80000$' "$tmp/ph.txt" | grep -q 'flow_in=5'
expect $? "phases: flow v2 bind_id / flow_out / flow_in"
grep -A2 'ts=65000$' "$tmp/ph.txt" | grep -q 'name="lonely"' && has 'flow_out=153'
expect $? "phases: an unbound flow becomes a mark of its own"
has 'async begin: rangeId=1, timestamp=91000' && has 'async end: rangeId=1, timestamp=93000' &&
    has 'snapshot="{\"a\":1}"' && grep -A2 'ts=90000$' "$tmp/ph.txt" | grep -q '"sample"'
expect $? "phases: N/D object lifetime, O snapshot, P sample"
grep -q '1 events of unknown phases (z) ignored; 2 top-level keys ignored (stackFrames, samples)' "$tmp/err"
expect $? "phases: summary counts unknown phases and top-level keys"
# Every event's args, derived from the trace alone, against the JSON sink's
# output of the import (the pop's X carries the E's args too).
"$replay" "$phases" -o "$tmp/ph.json" 2>"$tmp/err" &&
    python3 "$norm" --input "$phases" "$tmp/ph.json" "$tmp/ph.a" "$tmp/ph.b" 2>"$tmp/err"
expect $? "phases: every event's args fields, types and values in the JSON output"
grep -qF '"name": "B one", "thread": "main", "ts": 20000} args: "result"=7 (int)' "$tmp/ph.b" &&
    grep -qF '"name": "mem frac", "thread": "main", "ts": 26000} args: "value"=1.0 (float)' "$tmp/ph.b"
expect $? "phases: the E's args on the pop's X; a DOUBLE counter's 1 stays a double"

# ---- more distinct "cat" values than categories ----
# 65535 categories fill the cap; a known one after it keeps its ID, three
# events of two new names keep none, and the summary says so.
python3 - "$tmp/cats.json" <<'EOF'
import json, sys
events = [{"ph": "i", "name": "e", "cat": "c%d" % i, "ts": i, "pid": 1, "tid": 1, "s": "t"}
          for i in range(65535)]
for i, cat in enumerate(["c7", "new1", "new2", "new1"]):
    events.append({"ph": "i", "name": "late%d" % i, "cat": cat, "ts": 70000 + i, "pid": 1,
                   "tid": 1, "s": "t"})
json.dump(events, open(sys.argv[1], "w"))
EOF
"$replay" "$tmp/cats.json" --to text >"$tmp/cats.txt" 2>"$tmp/err"
expect $? "categories: 65539 distinct-ish cats replay"
grep -q '; 3 events kept no category (more than 65535 distinct "cat" values)' "$tmp/err"
expect $? "categories: the summary counts the 3 events past the 65535-category cap"
[ "$(grep -c '^category ' "$tmp/cats.txt")" = 65535 ]
expect $? "categories: 65535 categories registered"
c7=$(grep -m1 'name="c7"$' "$tmp/cats.txt" | sed -E 's/.* id=([0-9]+) .*/\1/')
grep -B1 'name="late0"' "$tmp/cats.txt" | grep -q "category=$c7," &&
    grep -B1 'name="late1"' "$tmp/cats.txt" | grep -q 'category=0,'
expect $? "categories: a known cat after the cap keeps its ID ($c7), a new one gets none"

# ---- PyTorch-style trace: one command per output ----
pt=$src/tests/data/pytorch_trace.json
"$replay" "$pt" -o "$tmp/pt.nvtxw" 2>"$tmp/err" && "$replay" "$tmp/pt.nvtxw" --to text >"$tmp/pt.txt" 2>>"$tmp/err"
expect $? "pytorch: to a report"
grep -q 'chrome X: begin=1700000000123456000, end=1700000000124373611' "$tmp/pt.txt"
expect $? "pytorch: absolute microsecond clock kept to the nanosecond"
grep -q 'stream_open "tid stream 7"' "$tmp/pt.txt" && grep -q 'stream_open "tid PyTorch Profiler"' "$tmp/pt.txt" &&
    grep -q 'path="python3 (GPU 0)"' "$tmp/pt.txt" && grep -q 'path="pid Spans"' "$tmp/pt.txt"
expect $? "pytorch: string pids/tids, process labels"
[ "$(grep -c 'flow_out=' "$tmp/pt.txt")" = 30 ] && [ "$(grep -c 'flow_in=' "$tmp/pt.txt")" = 30 ]
expect $? "pytorch: 30 ac2g flows bound at both ends"
"$replay" "$pt" -o "$tmp/pt.json" 2>"$tmp/err" &&
    python3 -c "import json,sys; d=json.load(open('$tmp/pt.json')); e=d['traceEvents']; sys.exit(0 if sum(x['ph']=='X' for x in e)==211 and sum(x['ph']=='s' for x in e)==30 else 1)"
expect $? "pytorch: to Perfetto JSON (211 X, 30 flow starts)"
python3 "$norm" --input "$pt" "$tmp/pt.json" 2>"$tmp/err"
expect $? "pytorch: every event's args fields, types and values in the JSON output"
# through a capture file: the args' arrays and objects keep their JSON-text
# mark (docs/schemas.md, JSON text), so the JSON output has them as values
"$replay" "$pt" -o "$tmp/pt.jsonl" 2>"$tmp/err" && "$replay" "$tmp/pt.jsonl" -o "$tmp/pt-cap.json" 2>>"$tmp/err" &&
    grep -q '"json":true' "$tmp/pt.jsonl" && python3 "$norm" --input "$pt" "$tmp/pt-cap.json" 2>"$tmp/err"
expect $? "pytorch: through a capture file, args arrays and objects kept as values"
# SQLite with --payload-json: payload_json holds them as JSON arrays, not
# strings (tests/cli/sqlite_payload_test.sh checks the default form)
"$replay" "$pt" -o "$tmp/pt.sqlite" --payload-json 2>"$tmp/err" &&
    arrays=$(sqlite3 "$tmp/pt.sqlite" "SELECT count(*) FROM events, json_tree(events.payload_json) AS j
        WHERE j.key = 'Input Dims' AND j.type = 'array'") &&
    texts=$(sqlite3 "$tmp/pt.sqlite" "SELECT count(*) FROM events, json_tree(events.payload_json) AS j
        WHERE j.key = 'Input Dims' AND j.type <> 'array'") &&
    [ "$arrays" -gt 0 ] && [ "$texts" = 0 ]
expect $? "pytorch: SQLite payload_json has the args arrays as arrays (${arrays:-?} of them, ${texts:-?} not)"
"$replay" "$pt" --stats=csv >"$tmp/pt.csv" 2>"$tmp/err" && grep -q ',30,400000.000,400000.000,400000,400000,0.000,PushPop,chrome:nn.Module: Linear_0$' "$tmp/pt.csv"
expect $? "pytorch: stats csv"

# ---- round trips: report -> JSON -> report keeps ranges, marks, counters, flows ----
round_trip() { # NAME REPORT [nostats]
    local name=$1 report=$2
    "$replay" "$report" -o "$tmp/$name.1.json" 2>"$tmp/err" &&
        "$replay" "$tmp/$name.1.json" -o "$tmp/$name.2.nvtxw" 2>"$tmp/err" &&
        "$replay" "$tmp/$name.2.nvtxw" -o "$tmp/$name.2.json" 2>"$tmp/err" &&
        python3 "$norm" "$tmp/$name.1.json" "$tmp/$name.2.json" "$tmp/$name.a" "$tmp/$name.b" 2>"$tmp/err"
    expect $? "round trip $name: same events per thread, args fields and types included"
    # nostats: ranges of one name in several domains merge into the
    # import's one domain "chrome" (docs/chrome-input.md, Round trip).
    [ "${3:-}" = nostats ] && return
    # the Range column is DOMAIN:NAME; the import has its own domain "chrome"
    # (every "prefix:" of the name: a message that starts with its domain, as
    # otf2:TaskSlice, is not prefixed twice in the report, but the import
    # puts it into domain "chrome": chrome:otf2:TaskSlice)
    local reports=nvtx_sum,task_sum,task_suspend_sum # counters are named by domain too
    "$replay" "$report" --stats=csv --stats-reports $reports 2>/dev/null | sed -E ':a; s/^(([^,]*,){9})("?)[^,:"]*:/\1\3/; ta' >"$tmp/$name.s1"
    "$replay" "$tmp/$name.2.nvtxw" --stats=csv --stats-reports $reports 2>/dev/null | sed -E ':a; s/^(([^,]*,){9})("?)[^,:"]*:/\1\3/; ta' >"$tmp/$name.s2"
    [ -s "$tmp/$name.s1" ] && cmp -s "$tmp/$name.s1" "$tmp/$name.s2"
    expect $? "round trip $name: same range statistics"
}
NVTXW3_LIBRARY=$build/libnvtxw/.libs/libnvtxw3.so "$build/examples/hello_producer" "$tmp/hello.nvtxw" >/dev/null ||
    fatal "hello_producer could not write the report"
round_trip hello "$tmp/hello.nvtxw"
grep -qF '{"id": "worker-0", "name": "bytes moved", "ph": "C", "thread": "worker-0", "ts": "15.900"} args: "value"=1024 (int)' "$tmp/hello.b"
expect $? "round trip hello: counter values kept"
# task rows fold back into task scopes: same rows, slices, flows and task tables
"$replay" --synthetic tasks:tasks=300 -o "$tmp/tasks.nvtxw" 2>"$tmp/err" ||
    fatal "--synthetic tasks could not write the report"
round_trip tasks "$tmp/tasks.nvtxw"
[ "$(grep -c '"task_path":' "$tmp/tasks.2.json")" = 300 ] &&
    [ "$(grep -c '"task_path":' "$tmp/tasks.1.json")" = 300 ]
expect $? "round trip tasks: 300 task rows before and after"
# every phase: an async end on another thread than its begin keeps its cat
# (the end header's category), so its "e" pairs with the "b" again
"$replay" "$phases" -o "$tmp/phases.nvtxw" 2>"$tmp/err" || fatal "phases: no report"
round_trip phases "$tmp/phases.nvtxw"
[ "$(grep -c '"ph": "e"' "$tmp/phases.b")" -gt 0 ] &&
    [ "$(grep -c '"ph": "e"' "$tmp/phases.a")" = "$(grep -c '"ph": "e"' "$tmp/phases.b")" ] &&
    ! grep -q '"cat": "chrome".*"ph": "e"' "$tmp/phases.b"
expect $? "round trip phases: async ends keep their cat across threads"
grep -q '(task_suspend_sum)' <("$replay" "$tmp/tasks.2.nvtxw" --stats 2>/dev/null) &&
    [ "$(grep -c . "$tmp/tasks.s1")" -gt 300 ]
expect $? "round trip tasks: the task tables are compared too"
# The nested workload: every payload entry type (arrays, nested schemas,
# unions, enums, floats, 128-bit and UTF-16/32 values), more than 64 fields.
"$replay" --synthetic nested:seed=2,payload_every=1,iterations=40 -o "$tmp/nested.nvtxw" 2>"$tmp/err" ||
    fatal "--synthetic nested could not write the report"
round_trip nested "$tmp/nested.nvtxw" nostats
grep -q '"args":{"args":{"c":.*"samples":\[2\.0,2\.25\]' "$tmp/nested.2.json"
expect $? "round trip nested: over 64 fields come back as one object in args, doubles as doubles"
# OTF2 round trips, in every build configured with OTF2 (NVTXW_HAVE_OTF2,
# tests/local.mk): there a missing importer or archive folder fails. A build
# configured without OTF2 leaves them out, and `make check` names them under
# "not run:" (scripts/test configures --with-otf2, so never there).
otf2=$build/tools/otf2-import/nvtxw-otf2-import
data=${NVTXW_OTF2_TEST_DATA:-}
if [ "${NVTXW_HAVE_OTF2:-yes}" = no ]; then
    echo "not run: the OTF2 round trips (this build has no OTF2)"
else
    [ -x "$otf2" ] || fail "no $otf2 in this build: the OTF2 round trips cannot run"
    [ -d "$data" ] || fail "NVTXW_OTF2_TEST_DATA ($data) is not a folder: the OTF2 round trips cannot run"
fi
if [ "${NVTXW_HAVE_OTF2:-yes}" != no ] && [ -x "$otf2" ] && [ -d "$data" ]; then
    for a in pipit-ping-pong-mpi casita-cloverleaf-mpi-oacc-cuda fastotf2-mi300-metrics \
        casita-ompt-host-nested casita-xeonphi-jacobi-omp-tasks; do
        "$otf2" "$data/$a/traces.otf2" -o "$tmp/$a.nvtxw" >/dev/null 2>&1 || fail "otf2 import of $a"
        round_trip "$a" "$tmp/$a.nvtxw"
    done
    [ "$(grep -c '"ph": "s"' "$tmp/pipit-ping-pong-mpi.b")" = 16 ] && [ "$(grep -c '"ph": "f"' "$tmp/pipit-ping-pong-mpi.b")" = 16 ]
    expect $? "round trip pipit-ping-pong-mpi: 16 MPI message flows"
fi

# ---- a Chrome trace in a merge goes through a temporary report ----
mkdir "$tmp/t"
TMPDIR=$tmp/t "$replay" "$tmp/hello.nvtxw" "$pt" --to text >"$tmp/merge.txt" 2>"$tmp/err" &&
    [ "$(grep -c '^event' "$tmp/merge.txt")" = $((6000 + 241)) ] &&
    grep -q 'stream_open "tid stream 7"' "$tmp/merge.txt" && [ -z "$(ls "$tmp/t")" ]
expect $? "merged with a report: both inputs' events, no temporary left"
# Two Chrome traces with different `cat` sets merge (category IDs follow
# from the names; in order of first use both files' first category was ID 1
# and the merge failed), and a shared category is registered once.
"$replay" "$pt" "$phases" "$phases" --to text >"$tmp/merge2.txt" 2>"$tmp/err" &&
    [ "$(grep -c '^event' "$tmp/merge2.txt")" = $((241 + 25 + 25)) ] &&
    [ "$(grep -c '^category domain="chrome" id=136962009 name="c1"$' "$tmp/merge2.txt")" = 1 ]
expect $? "two different Chrome traces merge; a shared category once"
# Two names with one hash in two files (c268724 and c698200 share 399724973):
# the merge renumbers the second file's category, says so naming the inputs
# (not their temporary reports), and each event keeps its own category.
printf '[{"name":"a","cat":"c268724","ph":"i","ts":1,"pid":1,"tid":1}]' >"$tmp/cat1.json"
printf '[{"name":"b","cat":"c698200","ph":"i","ts":1,"pid":1,"tid":1}]' >"$tmp/cat2.json"
"$replay" "$tmp/cat1.json" "$tmp/cat2.json" -o "$tmp/cats.json" 2>"$tmp/err" &&
    grep -q "note: category ID 399724973 of domain \"chrome\" in '$tmp/cat2.json' differs from its registration in '$tmp/cat1.json'; replayed as category ID 399724974" "$tmp/err" &&
    python3 -c "
import json, sys
d = json.load(open('$tmp/cats.json'))
got = sorted((e['name'], e.get('cat')) for e in d['traceEvents'] if e['ph'] in 'iI')
sys.exit(0 if got == [('a', 'c268724'), ('b', 'c698200')] else 1)"
expect $? "a category hash shared by two names across files: renumbered, said naming the inputs, each event keeps its category"
"$replay" "$phases" --streams helper --to text >"$tmp/filter.txt" 2>"$tmp/err" &&
    [ "$(grep -c '^event' "$tmp/filter.txt")" = 4 ] && grep -q 'name="v2 in"' "$tmp/filter.txt"
expect $? "--streams filter on a Chrome input"

# Many processes: the JSON sink finds a process by the hash of its path (a
# scan per stream took minutes at 300,000 pids); every pid keeps one
# process_name, and two threads of one pid share it.
python3 -c "
ev = [{'name': 'x', 'ph': 'X', 'ts': i, 'dur': 1, 'pid': i % 3000, 'tid': i // 3000} for i in range(6000)]
import json; print(json.dumps(ev))" >"$tmp/pids.json"
"$replay" "$tmp/pids.json" -o "$tmp/pids.out.json" 2>"$tmp/err" &&
    python3 -c "
import json, sys
ev = json.load(open(sys.argv[1]))['traceEvents']
names = [e for e in ev if e['ph'] == 'M' and e['name'] == 'process_name']
rows = {}
for e in ev:
    if e['ph'] == 'X':
        rows.setdefault(e['pid'], set()).add(e['tid'])
assert len(names) == 3000 and len({e['pid'] for e in names}) == 3000, len(names)  # no empty session process
assert len(rows) == 3000 and all(len(t) == 2 for t in rows.values())
" "$tmp/pids.out.json"
expect $? "3000 pids: 3000 JSON processes of two threads each"

# Task rows with two slices of 8e18 ns: the task's running time is held at
# INT64_MAX (it overflowed, undefined behaviour, into a negative time).
cat >"$tmp/longtask.json" <<'EOF_JSON'
{"traceEvents":[
{"name":"thread_name","ph":"M","pid":2,"tid":4294967296,"args":{"name":"task x","task_path":"task[x]","task_scope":4294967297}},
{"name":"thread_name","ph":"M","pid":2,"tid":1,"args":{"name":"worker 0"}},
{"name":"s","ph":"X","ts":-4000000000000000,"dur":8000000000000000,"pid":2,"tid":1,"args":{"task":4294967297}},
{"name":"s","ph":"X","ts":-4000000000000000,"dur":8000000000000000,"pid":2,"tid":1,"args":{"task":4294967297}}
]}
EOF_JSON
"$replay" "$tmp/longtask.json" --stats=csv --stats-reports task_sum >"$tmp/longtask.csv" 2>"$tmp/err" &&
    grep -q '^9223372036854775807,2,0,0,-4000000000000000000,4000000000000000000,x,s$' "$tmp/longtask.csv"
expect $? "task running time beyond int64 is held at INT64_MAX"
# The same for a range summary: the total is held, the average stays right.
cat >"$tmp/longrange.json" <<'EOF_JSON'
[{"name":"s","ph":"X","ts":-4000000000000000,"dur":8000000000000000,"pid":2,"tid":1},
{"name":"s","ph":"X","ts":-4000000000000000,"dur":8000000000000000,"pid":2,"tid":1}]
EOF_JSON
"$replay" "$tmp/longrange.json" --stats=csv >"$tmp/longrange.csv" 2>"$tmp/err" &&
    grep -q '^100.000,9223372036854775807,2,8000000000000000000.000,.*,chrome:s$' "$tmp/longrange.csv"
expect $? "range total beyond int64 is held at INT64_MAX, average exact"

# ---- malformed inputs: exit 1, the place named, no output left ----
bad() { # NAME PATTERN FILE
    "$replay" "$3" -o "$tmp/bad.nvtxw" >/dev/null 2>"$tmp/err"
    local status=$?
    # exit 1 is also a sanitizer's default status: its report must not be there
    [ $status = 1 ] && grep -q -- "$2" "$tmp/err" && ! grep -q 'Sanitizer' "$tmp/err" &&
        [ ! -e "$tmp/bad.nvtxw" ] &&
        [ -z "$(ls "$tmp" | grep 'bad.nvtxw')" ]
    expect $? "bad input $1 (exit $status)"
}
printf '[{"name":"a","ph":"X","ts":1,"dur":1,"pid":1,"tid":1},\n{"name":"b","ph":"X","ts":2,"du' >"$tmp/cut.json"
bad "truncated mid-event" "cut.json:2:32: the file ends inside event #1 (which starts at 2:1)" "$tmp/cut.json"
printf '[\n{"name":"a","ph":"X","ts":{"us":1},"pid":1,"tid":1}]' >"$tmp/tsobj.json"
bad "ts as an object" 'tsobj.json:2:1: event #0: "ts" must be a number of microseconds, not an object' "$tmp/tsobj.json"
printf '[{"name":"a","ph":"X","ts":"soon","pid":1,"tid":1}]' >"$tmp/tsword.json"
bad "ts as a word" 'event #0: "ts" is not a time in microseconds: "soon"' "$tmp/tsword.json"
printf '[{"name":"a","ph":"i","ts":1,"pid":[1],"tid":1}]' >"$tmp/pid.json"
bad "pid as an array" '"pid" must be a number or a string' "$tmp/pid.json"
printf '[{"name":"a","ph":"X","ts":1,"pid":1,"tid":1},\n 42]' >"$tmp/scalar.json"
bad "event not an object" "scalar.json:2:2: event #1 is not a JSON object" "$tmp/scalar.json"
printf '[{"name":"a\xff\xfe","ph":"i","ts":1,"pid":1,"tid":1}]' >"$tmp/utf8.json"
bad "invalid UTF-8" "utf8.json:1:.*invalid JSON: .*UTF8" "$tmp/utf8.json"
python3 -c "print('[{\"name\":\"deep\",\"ph\":\"i\",\"ts\":1,\"args\":' + '{\"a\":' * 100 + '1' + '}' * 100 + '}]')" >"$tmp/deep.json"
bad "deep nesting in args" "deep.json:1:.*nested deeper than 64 levels" "$tmp/deep.json"
python3 -c "
import sys
sys.stdout.write('[{\"name\":\"ok\",\"ph\":\"i\",\"ts\":1},\n{\"name\":\"')
sys.stdout.write('x' * (100 << 20))
sys.stdout.write('\",\"ph\":\"i\",\"ts\":2}]')" >"$tmp/huge.json"
bad "100 MB string" "huge.json:2:9: a string longer than 16 MiB" "$tmp/huge.json"
rm -f "$tmp/huge.json"
# A string of 16 MiB less one byte with escapes is accepted, one byte more
# is not; names with escaped quotes and backslashes at every offset read
# back whole (the token scan skips strings eight bytes at a time).
python3 - "$tmp/escapes.json" "$tmp/escapes-big.json" <<'EOF'
import json, sys
names = ['p' * k + '\\"q\\' + 'r' * (15 - k) for k in range(16)]
events = [{'name': n, 'ph': 'i', 'ts': i + 1, 'pid': 1, 'tid': 1} for i, n in enumerate(names)]
big = 'x' * ((16 << 20) - 7) + '\\"\\'  # as JSON: 16 MiB - 1 bytes between the quotes
json.dump({'padding': big, 'traceEvents': events}, open(sys.argv[1], 'w'))
json.dump({'padding': big + 'y', 'traceEvents': events}, open(sys.argv[2], 'w'))
EOF
if "$replay" "$tmp/escapes.json" -o "$tmp/escapes.nvtxw" 2>"$tmp/err" &&
    "$replay" "$tmp/escapes.nvtxw" -o "$tmp/escapes-out.json" 2>>"$tmp/err" &&
    python3 -c "
import json, sys
want = [e['name'] for e in json.load(open(sys.argv[1]))['traceEvents']]
got = [e['name'] for e in json.load(open(sys.argv[2]))['traceEvents'] if e.get('ph') == 'i']
sys.exit(0 if sorted(got) == sorted(want) else 1)" "$tmp/escapes.json" "$tmp/escapes-out.json"; then
    pass "escaped quotes at every offset, a 16 MiB string with escapes"
else
    fail "escaped quotes at every offset, a 16 MiB string with escapes: $(head -c 300 "$tmp/err")"
fi
bad "16 MiB string and one byte" "escapes-big.json:1:13: a string longer than 16 MiB" "$tmp/escapes-big.json"
rm -f "$tmp"/escapes*
printf '{"traceEvents":{}}' >"$tmp/notarray.json"
bad "traceEvents not an array" '"traceEvents" must be an array' "$tmp/notarray.json"
printf '{"displayTimeUnit":"ns"}' >"$tmp/noevents.json"
bad "no traceEvents" 'no "traceEvents" array' "$tmp/noevents.json"
printf '[{"name":"a","ph":"X","pid":1,"tid":1}]' >"$tmp/nots.json"
bad "missing ts" 'event #0: "ph":"X" needs "ts"' "$tmp/nots.json"
printf '[{"name":"a","ph":"b","ts":1,"pid":1,"tid":1}]' >"$tmp/noid.json"
bad "async without id" 'event #0: async event without an "id"' "$tmp/noid.json"
printf '[{"ph":"i","ts":99999999999999999999}]' >"$tmp/big.json"
bad "ts beyond int64 nanoseconds" 'is not a time in microseconds' "$tmp/big.json"
# found by chrome_fuzz under UBSan: the end ts + dur overflowed int64
printf '[{"name":"a","ph":"X","ts":1700000000123456.5,"dur":9100000000150884.942,"pid":1,"tid":1}]' >"$tmp/longdur.json"
bad "ts + dur beyond int64 nanoseconds" 'event #0: "dur" of 9100000000150884942 ns puts the end of the event beyond 64-bit nanoseconds ("ts" is 1700000000123456500 ns)' "$tmp/longdur.json"
printf '{"otherData":{"timestampBase_ns":9000000000000000000},"traceEvents":[{"name":"a","ph":"i","ts":1000000000000000,"pid":1,"tid":1}]}' >"$tmp/base.json"
bad "ts + base time beyond int64 nanoseconds" 'event #0: "ts" plus the trace.s base time (9000000000000000000 ns) is beyond 64-bit nanoseconds' "$tmp/base.json"

: >"$tmp/empty.json"
bad "empty .json file" "empty.json:1:1: no JSON value in the file" "$tmp/empty.json"
printf ' \n\t ' >"$tmp/blank.nvtxw"
bad "whitespace only (taken for JSON whatever the name)" "blank.nvtxw:2:3: no JSON value in the file" "$tmp/blank.nvtxw"
printf '[]' | iconv -f UTF-8 -t UTF-16 >"$tmp/utf16.json"
bad "UTF-16 with a byte order mark" "utf16.json' is UTF-16 text; .* iconv" "$tmp/utf16.json"
printf '[]' | iconv -f UTF-8 -t UTF-16LE >"$tmp/utf16le.json"
bad "UTF-16LE without a byte order mark" "utf16le.json' is UTF-16 text" "$tmp/utf16le.json"
truncate -s 64M "$tmp/zeros.json"
bad "a sparse file of NUL bytes" 'zeros.json": not an nvtxw report' "$tmp/zeros.json"
rm -f "$tmp/zeros.json"
# A UTF-8 byte order mark (Windows editors write one) is skipped.
printf '\357\273\277' | cat - "$phases" >"$tmp/bom.json"
"$replay" "$tmp/bom.json" --to text >"$tmp/bom.txt" 2>"$tmp/err" &&
    [ "$(grep -c '^event' "$tmp/bom.txt")" = 25 ]
expect $? "a UTF-8 byte order mark before the JSON is skipped"

# ---- documented warnings: accepted, counted, the first one located ----
printf '[{"name":"a","ph":"X","ts":1,"dur":1,"pid":1,"tid":1},\n{"name":"b","ph":"i","ts":2,"pid":1,"tid":1},\n' >"$tmp/trunc.json"
"$replay" "$tmp/trunc.json" --to text >"$tmp/trunc.txt" 2>"$tmp/err" &&
    grep -q 'warning: .*trunc.json: the event array is not closed' "$tmp/err" && [ "$(grep -c '^event' "$tmp/trunc.txt")" = 2 ]
expect $? "truncated array after '},': accepted with a warning, both events kept"
printf '[{"name":"a","ph":"E","ts":1,"pid":1,"tid":1},\n{"name":"a","ph":"E","ts":2,"pid":1,"tid":1},\n{"name":"b","ph":"B","ts":3,"pid":1,"tid":1},{"name":"b","ph":"E","ts":4,"pid":1,"tid":1}]' >"$tmp/unmatched.json"
"$replay" "$tmp/unmatched.json" --to text >"$tmp/un.txt" 2>"$tmp/err" &&
    grep -q 'warning: .*unmatched.json:1:2: event #0: "E" without an open "B"' "$tmp/err" &&
    grep -q '2 unmatched E skipped' "$tmp/err" && [ "$(grep -c '^event' "$tmp/un.txt")" = 2 ]
expect $? "unmatched E: counted warning naming the first, the matched pair kept"
printf '[{"name":"a","cat":"c","ph":"e","id":1,"ts":1,"pid":1,"tid":1}]' >"$tmp/asyncend.json"
"$replay" "$tmp/asyncend.json" --to text >"$tmp/ae.txt" 2>"$tmp/err" &&
    grep -q 'event #0: async end without an open begin' "$tmp/err" && grep -q '1 unmatched async ends skipped' "$tmp/err"
expect $? "async e without b: counted warning"
python3 -c "
import json
ev = [{'name': 'wide', 'ph': 'i', 'ts': 1, 'args': {'k%d' % i: i for i in range(70)}}]
ev += [{'name': 'shape', 'ph': 'i', 'ts': 2 + i, 'args': {'key%d' % i: i}} for i in range(4100)]
print(json.dumps(ev))" >"$tmp/shapes.json"
"$replay" "$tmp/shapes.json" --to text >"$tmp/shapes.txt" 2>"$tmp/err" &&
    grep -q '\[2\] args: args="{\\"k0\\":0,\\"k1\\":1,' "$tmp/shapes.txt" &&
    [ "$(grep -c '^schema .*name="args of shape"' "$tmp/shapes.txt")" = 4096 ] &&
    grep -q 'args="{\\"key4099\\":4099}"' "$tmp/shapes.txt"
expect $? "args: over 64 keys, and shapes beyond 4096, as one JSON text field"
"$replay" "$tmp/shapes.json" -o "$tmp/shapes.out.json" 2>"$tmp/err" &&
    python3 "$norm" --input "$tmp/shapes.json" "$tmp/shapes.out.json" 2>"$tmp/err"
expect $? "args: every event's fields in the JSON output, JSON text past 64 keys and 4096 shapes"
# Empty keys and containers in args: nested ones come back as they were (the
# event tree stores a key just before its value, "" included); a top-level
# key "" is an unnamed payload field, written "<field_K>" (docs/chrome-input.md).
python3 -c "
import json
args = {'a': {}, 'b': [], 'c': [[{}], {'k': [1, 2, {'': ''}]}], 'd': True, 'e': False, 'f': None}
ev = [{'name': 'edge', 'ph': 'X', 'ts': 1, 'dur': 2, 'pid': 1, 'tid': 1, 'args': args},
      {'name': 'empty', 'ph': 'X', 'ts': 4, 'dur': 1, 'pid': 1, 'tid': 1, 'args': {}},
      {'name': 'unnamed', 'ph': 'X', 'ts': 6, 'dur': 1, 'pid': 1, 'tid': 1, 'args': {'n': 1, '': 'v'}}]
print(json.dumps(ev))" >"$tmp/edge.json"
"$replay" "$tmp/edge.json" -o "$tmp/edge.out.json" 2>"$tmp/err" &&
    grep -qF '"args":{"a":{},"b":[],"c":[[{}],{"k":[1,2,{"":""}]}],"d":1,"e":0,"f":null}' "$tmp/edge.out.json" &&
    grep -qF '"name":"empty","cat":"chrome","ph":"X","ts":3.000,"dur":1.000,"pid":2,"tid":1}' "$tmp/edge.out.json" &&
    grep -qF '"args":{"n":1,"<field_1>":"v"}' "$tmp/edge.out.json"
expect $? "args: empty nested keys, empty and nested containers and null kept; a top-level \"\" key unnamed"
python3 -c "
import json
big = 'y' * 300000
print(json.dumps([{'name': 'n' * 100000, 'ph': 'X', 'ts': 1, 'dur': 1, 'pid': 1, 'tid': 1, 'args': {'big': big}},
                  {'name': 'small', 'ph': 'i', 'ts': 2, 'pid': 1, 'tid': 1}]))" >"$tmp/large.json"
"$replay" "$tmp/large.json" --to text >"$tmp/large.txt" 2>"$tmp/err" &&
    grep -q "big=\"$(printf 'y%.0s' $(seq 1 300))" "$tmp/large.txt" && grep -q 'name="small"' "$tmp/large.txt"
expect $? "an event with a 100 kB name and 300 kB args"
printf '[{"name":"\\ud83d\\ude00 \\/ok","ph":"i","ts":1e-3,"pid":1,"tid":1}]' >"$tmp/esc.json"
"$replay" "$tmp/esc.json" --to text >"$tmp/esc.txt" 2>"$tmp/err" &&
    grep -q 'name="😀 /ok"' "$tmp/esc.txt" && grep -q 'timestamp=1,' "$tmp/esc.txt"
expect $? "surrogate pairs, \\/ escapes and 1e-3 us"

# ---- the first pass's scan (chrome_in_scan.c) against the parser's pass ----
# Every file gives the same output, messages and exit status with the scan
# as with NVTXW_CHROME_FIRST_PASS=parser; NVTXW_CHROME_FIRST_PASS=scan
# takes the files named taken-* and refuses the odd-* ones (it must neither
# give up on plain traces nor read the odd ones by itself). Events with
# escapes in ph, pid, tid or a key are taken: the scan hands each of them
# to yajl; JSON errors inside values are the second pass's to find.
mkdir "$tmp/scan"
python3 - "$tmp/scan" <<'PY'
import json, os, sys
d = sys.argv[1]
def put(name, text):
    with open(os.path.join(d, name), 'w', encoding='utf-8', newline='') as f:
        f.write(text)
ev = lambda **k: json.dumps(k, separators=(',', ':'))
x = lambda n, ts, **k: dict(name=n, ph='X', ts=ts, dur=1, pid=1, tid=1, **k)
# taken by the scan
put('taken-meta-after.json', '[' + ','.join([ev(**x('a', 1)), ev(name='a', ph='X', ts=2, dur=1, pid=2, tid='w'),
    ev(name='thread_name', ph='M', pid=2, tid='w', args={'name': 'worker'}),
    ev(name='process_name', ph='M', pid=1, args={'name': 'main'}),
    ev(name='thread_sort_index', ph='M', pid=1, tid=1, args={'sort_index': -3})]) + ']')
put('taken-counters.json', '{"otherData":{"session":"s\\u00e9","timestampBase_ns":5},"traceEvents":[' +
    ','.join(ev(name='mem', ph='C', ts=i, pid=1, tid=1, args={'used': i, 'frac': i / 2}) for i in range(50)) + ']}')
put('taken-strings.json', '[ {"name":"q\\"}]{[\\\\","ph":"X","ts":1,"dur":2,"pid":1,"tid":1,'
    '"args":{"s":"}]{[","a":[[1,{"b":"]"}]],"e":"\\\\"}} ,\n\t{"ph":"i","ts":3,"pid":1,"tid":1,"name":"n"} ]')
put('taken-dup-keys.json', '[{"name":"d","ph":"X","ts":1,"dur":1,"pid":1,"pid":2,"tid":3,"tid":4}]')
put('taken-bom.json', '\ufeff  [{"name":"b","ph":"i","ts":1,"pid":1,"tid":1}]\n')
put('taken-truncated-object.json', '{"traceEvents":[' + ev(**x('t', 1)) + ',')
put('taken-truncated-array.json', '[' + ev(**x('t', 1)) + ',' + ev(**x('u', 2)))
put('taken-big-event.json', '[' + ev(**x('big', 1, args={'s': 'z' * 600000, 'n': list(range(1000))})) + ']')
put('taken-big-member.json', '{"stackFrames":{"s":"' + 'f' * 700000 + '"},"traceEvents":[' + ev(**x('a', 1)) + ']}')
put('taken-numbers.json', '[{"name":"n","ph":"X","ts":1.5e3,"dur":2,"pid":-1,"tid":1.0},'
    '{"name":"n","ph":"X","ts":2,"dur":2,"pid":-1,"tid":1}]')
# left to the parser
put('taken-escaped-tid.json', '[' + ev(**x('a', 1)) + ',{"name":"b","ph":"X","ts":2,"dur":1,"pid":1,"tid":"w\\u006f"},'
    '{"name":"c","ph":"X","ts":3,"dur":1,"pid":1,"tid":"wo"}]')
put('taken-escaped-ph.json', '[{"name":"e","ph":"\\u0058","ts":1,"dur":1,"pid":1,"tid":1}]')
put('taken-escaped-key.json', '[{"name":"k","ph":"X","ts":1,"dur":1,"p\\u0069d":7,"tid":1}]')
put('odd-pid-object.json', '[' + ev(**x('a', 1)) + ',{"name":"o","ph":"X","ts":1,"pid":{},"tid":1}]')
put('odd-no-ph.json', '[{"name":"o","ts":1,"pid":1,"tid":1}]')
put('odd-syntax.json', '[' + ev(**x('a', 1)) + ',{"name":"o","ph":"X","ts":1 "pid":1}]')
put('late-syntax-in-args.json', '[' + ev(**x('a', 1)) + ',{"name":"o","ph":"X","ts":1,"args":{"a" 1}}]')
put('odd-ends-inside.json', '[' + ev(**x('a', 1)) + ',{"name":"o","ph":"X",')
put('odd-trailing-text.json', '[' + ev(**x('a', 1)) + '] x')
put('odd-deep.json', '[{"name":"o","ph":"X","ts":1,"args":{"a":' + '[' * 70 + ']' * 70 + '}}]')
put('odd-bad-metadata.json', '[{"name":"thread_name","ph":"M","pid":1,"tid":1,"args":{"name":3}}]')
put('odd-two-event-arrays.json', '{"traceEvents":[],"traceEvents":[]}')
put('odd-events-not-array.json', '{"traceEvents":{}}')
# taken by the scan, failing in the second pass: the first error in file
# order is the one said, whichever thread of the second pass finds it
many = ','.join(ev(**x('m%d' % (i % 7), i)) for i in range(5000))
bad_args = '{"name":"z","ph":"X","ts":1,"pid":1,"tid":1,"args":{"a" 1}}'
put('late-bad-ts.json', '[' + many + ',{"name":"b","ph":"X","ts":"abc","pid":1,"tid":1},' + many + ',' + bad_args + ']')
put('late-syntax.json', '[{"name":"e","ph":"E","ts":0,"pid":1,"tid":1},' + many + ',' + bad_args + ',' + many + ']')
with open(os.path.join(d, 'late-utf8.json'), 'wb') as f:
    f.write(('[' + many + ',{"name":"').encode() + bytes([255]) + b'","ph":"X","ts":1,"pid":1,"tid":1}]')
PY
# The second pass's two threads (chrome_in_pipe.c) give the same as one
# (NVTXW_CHROME_PARSE_THREAD=0) on every file. The late-* files differ from
# the parser's first pass on purpose: it stops at their JSON error, where the
# scan leaves that error to the second pass, which meets an earlier error
# (or warning) first.
printf '%s' "$(python3 -c "print('[' + ','.join('{\"name\":\"n%d\",\"ph\":\"X\",\"ts\":%d,\"dur\":1,\"pid\":1,\"tid\":%d,\"args\":{\"k\":%d}}' % (i % 13, i, i % 3, i) for i in range(30000)) + ']')")" >"$tmp/scan/taken-many-batches.json"
same_outputs() { # A B: exit status, stdout and stderr of two runs
    cmp -s "$tmp/$1.out" "$tmp/$2.out" && cmp -s "$tmp/$1.err" "$tmp/$2.err"
    set -- $? "$1" "$2"
    { diff "$tmp/$2.err" "$tmp/$3.err"; diff "$tmp/$2.out" "$tmp/$3.out"; } | head -8 >"$tmp/err"
    return "$1"
}
for f in "$src/tests/data/chrome_phases.json" "$src/tests/data/pytorch_trace.json" "$tmp"/scan/*.json; do
    name=$(basename "$f")
    for run in pipe:1: inline:0: parser:0:parser; do
        IFS=: read -r out threads first <<<"$run"
        NVTXW_CHROME_PARSE_THREAD=$threads NVTXW_CHROME_FIRST_PASS=$first "$replay" "$f" --to text \
            >"$tmp/$out.out" 2>"$tmp/$out.err"
        echo "exit $?" >>"$tmp/$out.out"
    done
    same_outputs pipe inline
    expect $? "second pass: $name the same on two threads as on one"
    # the first pass's scan on two threads too, from the middle of any file
    NVTXW_CHROME_PARSE_THREAD=1 NVTXW_CHROME_SCAN_AHEAD_MIN=0 "$replay" "$f" --to text \
        >"$tmp/ahead.out" 2>"$tmp/ahead.all"
    echo "exit $?" >>"$tmp/ahead.out"
    grep -v ': scan ahead ' "$tmp/ahead.all" >"$tmp/ahead.err"
    same_outputs ahead inline
    expect $? "first pass: $name the same with the scan ahead ($(grep -o 'scan ahead [a-z]*' "$tmp/ahead.all" || echo 'not met'))"
    case $name in
    late-*) ;;
    *)
        same_outputs pipe parser
        expect $? "first pass: $name the same with the scan as with the parser"
        ;;
    esac
    NVTXW_CHROME_FIRST_PASS=scan "$replay" "$f" --to null >/dev/null 2>"$tmp/err"
    status=$?
    case $name in
    odd-*) [ $status = 1 ] && grep -q 'scan leaves this file to the parser' "$tmp/err" ;;
    late-*) [ $status = 1 ] && ! grep -q 'scan leaves this file' "$tmp/err" ;;
    *) [ $status = 0 ] ;;
    esac
    expect $? "first pass: $name $(case $name in odd-*) echo left to the parser ;; late-*) echo taken by the scan, failing later ;; *) echo taken by the scan ;; esac)"
done

# ---- the scan ahead: records taken only where an event starts ----
# The helper starts at the first '}' ',' '{' '"' after the middle: between
# two events (taken), or inside a string or an args array (dropped: the
# calling thread scans on alone). Taken records give the same threads,
# names, counters and last events as one thread's scan (--to text shows
# the stream order, names and every event).
python3 - "$tmp/ahead" <<'PY'
import json, os, sys
d = sys.argv[1]
os.makedirs(d)
def ev(i, tid, **k):
    return dict(dict(name='e%d' % (i % 5), ph='X', ts=i, dur=1, pid=1 + tid % 2, tid=tid, args={'i': i}), **k)
def put(name, obj, tail=''):
    with open(os.path.join(d, name), 'w') as f:
        f.write(json.dumps(obj, separators=(',', ':')) + tail)
first = [ev(i, i % 3) for i in range(400)]
second = [ev(400 + i, 3 + i % 4) for i in range(400)]
meta = [dict(name='thread_name', ph='M', pid=1 + t % 2, tid=t, args={'name': 'late %d' % t}) for t in range(7)]
counters = [dict(name='mem', ph='C', ts=1000 + i, pid=2, tid=5, args={'used': i}) for i in range(30)]
# between events: taken (threads new in the second half, names and counters there)
put('taken-object.json', {'traceEvents': first + second + counters + meta, 'otherData': {'session': 'ahead'}})
# threads with events in both halves, and their streams closed after their
# last event (NVTXW_CHROME_STREAMS_AT_ONCE=0 below): the helper's last events
# must be the ones kept
put('taken-spanning.json', [ev(i, i % 4) for i in range(800)] + counters + meta)
# an unclosed array: the helper's last event is the file's
put('taken-truncated.json', first + second, tail='')
with open(os.path.join(d, 'taken-truncated.json'), 'r+') as f:
    text = f.read()
    f.seek(0); f.truncate(); f.write(text[:-1] + ',')
# strings that look like an event's start across the middle: dropped
decoy = dict(name='decoy', ph='X', ts=500, dur=1, pid=1, tid=1, args={'s%d' % i: '},{' for i in range(3000)})
put('dropped-string.json', first + [decoy] + second + meta)
# objects of an args array across the middle: dropped
listy = dict(name='list', ph='X', ts=500, dur=1, pid=1, tid=1, args={'l': [{'a': i} for i in range(6000)]})
put('dropped-array.json', first + [listy] + second + meta)
PY
for f in "$tmp"/ahead/*.json; do
    name=$(basename "$f" .json)
    NVTXW_CHROME_STREAMS_AT_ONCE=0 NVTXW_CHROME_PARSE_THREAD=0 "$replay" "$f" --to text \
        >"$tmp/one.out" 2>"$tmp/one.err"
    echo "exit $?" >>"$tmp/one.out"
    for records in 65536 3; do
        NVTXW_CHROME_STREAMS_AT_ONCE=0 NVTXW_CHROME_PARSE_THREAD=1 NVTXW_CHROME_SCAN_AHEAD_MIN=0 \
            NVTXW_CHROME_SCAN_AHEAD_RECORDS=$records "$replay" "$f" --to text >"$tmp/two.out" 2>"$tmp/two.all"
        echo "exit $?" >>"$tmp/two.out"
        grep -v ': scan ahead ' "$tmp/two.all" >"$tmp/two.err"
        same_outputs two one &&
            case $name in
            taken-*) # with 3 at most, it stops before the event that would pass them
                grep -q "scan ahead taken at byte .*, $([ "$records" = 3 ] && echo '[34]' || echo '[0-9]*') records)" "$tmp/two.all" ;;
            dropped-*) grep -q 'scan ahead dropped' "$tmp/two.all" ;;
            esac
        expect $? "scan ahead: $name ($records records at most) as on one thread, ${name%%-*}"
    done
done
NVTXW_CHROME_PARSE_THREAD=1 NVTXW_CHROME_SCAN_AHEAD_MIN=0 "$replay" "$tmp/ahead/taken-object.json" \
    --to text >"$tmp/two.out" 2>"$tmp/err" &&
    grep -q 'stream_open "late 6"' "$tmp/two.out" && [ "$(grep -c '^counter_sample' "$tmp/two.out")" = 30 ]
expect $? "scan ahead: a thread name and the counter samples of the second half are there"

# ---- many threads: streams open late and close after their last event ----
# Past NVTXW_CHROME_STREAMS_AT_ONCE threads (1024 by default) a stream opens
# when its row's turn comes and closes after its thread's last event, unless
# an async range is open (it may end on another thread). The events are the
# same as with every stream open at once, per thread, args and flows
# included; the text dump shows the early closes.
python3 - "$tmp/many.json" <<'PY'
import json, sys
ev = []
for i in range(1500):
    ev.append(dict(name='w%d' % (i % 5), ph='X', ts=i * 10, dur=5, pid=1 + i % 3, tid=i, args={'k': i}))
ev.append(dict(name='thread_name', ph='M', pid=1, tid=3, args={'name': 'named late'}))
ev += [dict(name='a', cat='c', ph='b', id=7, ts=20000, pid=1, tid=1500),
       dict(name='x', ph='X', ts=20001, dur=1, pid=1, tid=1501),
       dict(name='a', cat='c', ph='e', id=7, ts=20005, pid=1, tid=1502),
       dict(name='f', ph='X', ts=20010, dur=1, pid=1, tid=1503, bind_id=9, flow_out=True),
       dict(name='g', ph='X', ts=20020, dur=1, pid=1, tid=1504, bind_id=9, flow_in=True),
       dict(name='open', ph='B', ts=20030, pid=1, tid=1505)]
json.dump({'traceEvents': ev}, open(sys.argv[1], 'w'))
PY
NVTXW_CHROME_STREAMS_AT_ONCE=100000 "$replay" "$tmp/many.json" -o "$tmp/many.eager.json" 2>"$tmp/err" &&
    "$replay" "$tmp/many.json" -o "$tmp/many.late.json" 2>>"$tmp/err" &&
    python3 "$norm" "$tmp/many.eager.json" "$tmp/many.late.json" 2>>"$tmp/err" &&
    python3 "$norm" --input "$tmp/many.json" "$tmp/many.late.json" 2>>"$tmp/err"
expect $? "1506 threads: the same events with streams opened late as with all open at once"
"$replay" "$tmp/many.json" --to text >"$tmp/many.txt" 2>"$tmp/err" &&
    awk '/^stream_close "tid 0"/ { closed = NR } /^stream_open "tid 1499"/ { opened = NR }
         END { exit !(closed && opened && closed < opened) }' "$tmp/many.txt" &&
    grep -q '^stream_open "named late"' "$tmp/many.txt" &&
    [ "$(grep -c '^stream_open' "$tmp/many.txt")" = 1506 ] &&
    [ "$(grep -c '^stream_close' "$tmp/many.txt")" = 1506 ]
expect $? "1506 threads: a thread's stream closes after its last event, before later rows open"
NVTXW_CHROME_STREAMS_AT_ONCE=100000 "$replay" "$tmp/many.json" --to text >"$tmp/many.eager.txt" 2>"$tmp/err" &&
    awk '/^stream_open/ { opens++ } /^stream_close/ && !first { first = opens } END { exit !(first == 1506) }' "$tmp/many.eager.txt"
expect $? "under NVTXW_CHROME_STREAMS_AT_ONCE threads every stream opens before any closes"
for f in "$phases" "$src/tests/data/pytorch_trace.json"; do
    NVTXW_CHROME_STREAMS_AT_ONCE=0 "$replay" "$f" -o "$tmp/late.json" 2>"$tmp/err" &&
        python3 "$norm" --input "$f" "$tmp/late.json" 2>>"$tmp/err"
    expect $? "$(basename "$f"): every stream opened late and closed after its last event"
done

finish
