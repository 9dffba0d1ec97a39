#!/usr/bin/env bash
# CLI tests of nvtxw-replay on reports written by examples/hello_producer
# (4 threads, 6,000 events, 1,000 counter samples each): every output it can
# choose, merging several reports, filters, damage handling, usage errors,
# --backend (absolute, relative, failing mid-session through the mock backend's
# MOCK_BACKEND_FAIL) and outputs that cannot be written. Prints "N passed, M failed".
set -u
build=${top_builddir:-.}
replay=$build/tools/replay/nvtxw-replay
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "${top_srcdir:-.}/tests/testlib.sh" # interrupt_run; its counters are reset below
passed=0
failed=0
check() { # check NAME COMMAND...: passes when the command succeeds
    local name=$1
    shift
    if "$@" >"$tmp/out" 2>"$tmp/err"; then
        passed=$((passed + 1)) && echo "PASS: $name"
    else
        failed=$((failed + 1)) && echo "FAIL: $name: $(head -c 300 "$tmp/err")"
    fi
}

NVTXW3_LIBRARY=$build/libnvtxw/.libs/libnvtxw3.so "$build/examples/hello_producer" "$tmp/hello.nvtxw" >/dev/null ||
    { echo "FAIL: hello_producer could not write the report"; echo "0 passed, 1 failed"; exit 1; }

events() { grep -c '^event' "$1"; }
check "text to stdout: 6000 events" bash -c "'$replay' '$tmp/hello.nvtxw' --to text > '$tmp/a.txt' && test \$(grep -c '^event' '$tmp/a.txt') = 6000"
check "sink from -o extension .txt" bash -c "'$replay' '$tmp/hello.nvtxw' -o '$tmp/b.txt' && cmp '$tmp/a.txt' '$tmp/b.txt'"
check "time order has the same events" bash -c "'$replay' '$tmp/hello.nvtxw' --order time -o '$tmp/c.txt' && test \$(grep -c '^event' '$tmp/c.txt') = 6000"
check "json is valid and complete" bash -c "'$replay' '$tmp/hello.nvtxw' -o '$tmp/h.json' && python3 -c \"import json,sys; d=json.load(open('$tmp/h.json')); x=[e for e in d['traceEvents'] if e['ph']=='X']; be=[e for e in d['traceEvents'] if e['ph'] in 'BE']; sys.exit(0 if len(x)==5000 and not be else 1)\""
check "report to report round trip" bash -c "'$replay' '$tmp/hello.nvtxw' -o '$tmp/copy.nvtxw' && '$replay' '$tmp/copy.nvtxw' --to text | grep -c '^event' | grep -qx 6000"
check "stats csv: MPI_Allreduce 1000 instances" bash -c "'$replay' '$tmp/hello.nvtxw' --stats=csv | grep -q ',1000,1500.000,1500.000,1000,2000,353.730,PushPop,hello:MPI_Allreduce$'"
check "stats text header" bash -c "'$replay' '$tmp/hello.nvtxw' --stats | grep -q 'NVTX Range Summary'"
size=$(stat -c %s "$tmp/hello.nvtxw")
head -c $((size / 2)) "$tmp/hello.nvtxw" >"$tmp/cut.nvtxw"
check "truncated report: exit 0, warning, fewer events" bash -c "'$replay' '$tmp/cut.nvtxw' -o '$tmp/cut.txt' 2>'$tmp/warn' && grep -q 'warning: report damaged at offset' '$tmp/warn' && test \$(grep -c '^event' '$tmp/cut.txt') -lt 6000"
# Outputs: a file-only sink without -o, an unknown extension and an output
# that is an input are usage errors (exit 2) that leave nothing behind;
# extensions match in any letter case.
replay_abs=$(cd "$(dirname "$replay")" && pwd)/nvtxw-replay
for sink in report json perfetto sqlite; do
    check "--to $sink without -o: exit 2 naming -o, no file '-'" bash -c "cd '$tmp' && '$replay_abs' '$tmp/hello.nvtxw' --to $sink 2>'$tmp/e'; test \$? = 2 && grep -q '^nvtxw-replay: error: the $sink sink writes files only: name one with -o OUT' '$tmp/e' && test ! -e '$tmp/-'"
done
check "unknown extension: exit 2 listing the known ones" bash -c "'$replay' '$tmp/hello.nvtxw' -o '$tmp/w.pdf' 2>'$tmp/e'; test \$? = 2 && grep -q \"extension of '$tmp/w.pdf': use .nvtxw, .json, .pftrace, .perfetto-trace, .txt, .sqlite, .csv or .jsonl, or --to\" '$tmp/e' && test ! -e '$tmp/w.pdf'"
check "upper-case .JSON is JSON" bash -c "'$replay' '$tmp/hello.nvtxw' -o '$tmp/w.JSON' && python3 -c \"import json; json.load(open('$tmp/w.JSON'))\""
check "upper-case .NVTXW is a report" bash -c "'$replay' '$tmp/hello.nvtxw' -o '$tmp/w.Nvtxw' && '$replay' '$tmp/w.Nvtxw' --to text | grep -c '^event' | grep -qx 6000"
check "no extension: text" bash -c "'$replay' '$tmp/hello.nvtxw' -o '$tmp/plain' && grep -q '^session ' '$tmp/plain'"
cp "$tmp/hello.nvtxw" "$tmp/self.nvtxw"
check "-o an input: exit 2 naming --force, input unchanged" bash -c "'$replay' '$tmp/hello.nvtxw' '$tmp/self.nvtxw' -o '$tmp/./self.nvtxw' 2>'$tmp/e'; test \$? = 2 && grep -q 'is also an input.*--force' '$tmp/e' && cmp '$tmp/hello.nvtxw' '$tmp/self.nvtxw'"
check "-o an input with --force: replaced by the merge" bash -c "'$replay' '$tmp/hello.nvtxw' '$tmp/self.nvtxw' -o '$tmp/self.nvtxw' --force && '$replay' '$tmp/self.nvtxw' --to text | grep -c '^event' | grep -qx 12000"
# --streams / --domains that match nothing: a warning naming the closest
# names, exit 0; a pattern that matches warns not.
check "--streams matching nothing: warning with the closest names" bash -c "'$replay' '$tmp/hello.nvtxw' --streams 'worker-9,worker-?' --to text 2>'$tmp/e' >'$tmp/w.txt' && test \$(grep -c warning '$tmp/e') = 1 && grep -q \"^nvtxw-replay: warning: --streams 'worker-9' matches no stream of the inputs; the closest: 'worker-[0-3]', 'worker-[0-3]', 'worker-[0-3]'\$\" '$tmp/e' && test \$(grep -c '^event' '$tmp/w.txt') = 6000"
check "--domains matching nothing: warning naming 'hello'" bash -c "'$replay' '$tmp/hello.nvtxw' --domains helo --to text 2>'$tmp/e' >/dev/null && grep -q \"^nvtxw-replay: warning: --domains 'helo' matches no domain of the inputs; the closest: 'hello'\" '$tmp/e'"
# Interrupts: SIGINT / SIGTERM stop the run, remove every temporary file
# (the tool's, the sink's and a merge's temporary reports in TMPDIR), say
# "interrupted" and exit 130 / 143.
for case in "INT 130 report big.nvtxw" "TERM 143 report big.nvtxw" "INT 130 json big.json" \
    "INT 130 merge merged.nvtxw"; do
    read -r sig code kind out <<<"$case"
    rm -rf "$tmp/intr" && mkdir -p "$tmp/intr"
    args=(--synthetic tasks:events=1G -o "$tmp/intr/$out")
    [ "$kind" = merge ] && args=("$tmp/hello.nvtxw" "${args[@]}") # through a temporary report
    interrupt_run "$sig" "$tmp/intr" "$tmp/intr.err" env TMPDIR="$tmp/intr" "$replay" "${args[@]}"
    check "SIG$sig during a $kind run: exit $code, 'interrupted', nothing left" bash -c "test '$interrupt_status' = $code && grep -q '^nvtxw-replay: interrupted\$' '$tmp/intr.err' && ! grep -q 'error' '$tmp/intr.err' && test -z \"\$(ls -A '$tmp/intr')\""
done
# kill -9: one file is left, OUT.tmp-XXXXXX (the tool's temporary file,
# which the sink writes itself with Overwrite=in-place), holding what was
# written; a report there reads up to its last complete chunk.
for out in big.nvtxw big.json; do
    rm -rf "$tmp/k9" && mkdir -p "$tmp/k9"
    "$replay" --synthetic tasks:events=1G -o "$tmp/k9/$out" >/dev/null 2>&1 &
    pid=$!
    for _ in $(seq 600); do
        size=$(stat -c %s "$tmp/k9/$out".tmp-* 2>/dev/null | sort -n | tail -1)
        [ "${size:-0}" -gt 1000000 ] && break
        sleep 0.1
    done
    kill -9 "$pid"
    wait "$pid" 2>/dev/null
    check "kill -9 during a run to $out: one file, $out.tmp-XXXXXX, holding the data" bash -c "test \$(ls -A '$tmp/k9' | wc -l) = 1 && ls -A '$tmp/k9' | grep -Eq '^$out\\.tmp-[A-Za-z0-9]{6}\$' && test \$(stat -c %s '$tmp/k9'/*) -gt 1000000"
    [ "$out" = big.nvtxw ] &&
        check "the report left by kill -9 reads up to its last complete chunk" bash -c "'$replay' '$tmp/k9'/big.nvtxw.tmp-* --to text 2>'$tmp/k9.err' | grep -c '^event' >'$tmp/k9.n' && test \$(cat '$tmp/k9.n') -gt 10000 && grep -q 'no trailer: the writer did not finish' '$tmp/k9.err' && grep -Eq '[0-9]+ records recovered' '$tmp/k9.err'"
done
# Progress: a line on a terminal (script(1) gives the run one), redrawn with
# \r and cleared at the end; none with -q, none when stderr is not a terminal.
if command -v script >/dev/null; then
    check "progress on a terminal: records, percentage, rate, bytes written" bash -c "script -qec \"'$replay' '$tmp/hello.nvtxw' '$tmp/hello.nvtxw' -o '$tmp/p.nvtxw'\" /dev/null | tr '\\r' '\\n' | grep -Eq '^nvtxw-replay: records \\[[#.]{20}\\] +[0-9.]+%  [0-9.]+( [kMG])?  [0-9.]+( [kMG])?/s  [0-9.]+ ?[kMG]?B written'"
    check "progress of a producer input: events" bash -c "script -qec \"'$replay' --synthetic tasks:tasks=20000 -o '$tmp/p.nvtxw'\" /dev/null | tr '\\r' '\\n' | grep -Eq '^nvtxw-replay: events [0-9.]+( [kMG])?  '"
    check "-q: no progress line on a terminal" bash -c "script -qec \"'$replay' '$tmp/hello.nvtxw' '$tmp/hello.nvtxw' -q -o '$tmp/p.nvtxw'\" /dev/null >'$tmp/q.out'; ! grep -q 'records' '$tmp/q.out'"
else
    failed=$((failed + 1)) && echo "FAIL: script(1) is missing (util-linux): the progress checks cannot run"
fi
# A session spanning more than 2^63 ns: the JSON output saturates what
# int64 nanoseconds cannot hold, and says so (one warning per place).
check "json: a span beyond 2^63 ns is written at the limit and warned about" bash -c "'$replay' '${top_srcdir:-.}/tests/cli/data/json-span.jsonl' -o '$tmp/span.json' 2>'$tmp/span.err' && python3 -c \"import json,sys; e={x['name']:x for x in json.load(open('$tmp/span.json'), parse_float=str)['traceEvents'] if x['ph'] in 'Xi'}; sys.exit(0 if e['wide']['ts']=='0.000' and e['first']['ts']==e['last']['ts']==e['wide']['dur']=='9223372036854775.807' else 1)\" && grep -q '^nvtxw: warning: json sink, stream \"a\": 1 time or duration beyond 2^63 ns' '$tmp/span.err' && grep -q '^nvtxw: warning: json sink: 1 time beyond 2^63 - 1 ns after the session.s smallest written as 2^63 - 1 ns' '$tmp/span.err'"
check "no progress line when stderr is not a terminal" bash -c "'$replay' '$tmp/hello.nvtxw' '$tmp/hello.nvtxw' -o '$tmp/p.nvtxw' 2>'$tmp/np.err' && ! grep -q 'records' '$tmp/np.err'"
# Task tables: text shows the 20 tasks with the most running time and says
# how many there are; CSV and JSON keep every row; --task-rows sets it.
check "--stats on 2000 tasks: 20 task rows in text, and a note" bash -c "'$replay' --synthetic tasks:tasks=2000 --stats >'$tmp/t.txt' && test \$(awk '/[(]task_sum[)]/ { t = 1 } t && /^ -/ { r = 1; next } r && /^\$/ { exit } r { n++ } END { print n + 0 }' '$tmp/t.txt') = 20 && grep -q '^(the 20 tasks with the most running time of 2000; --task-rows all' '$tmp/t.txt'"
check "--stats=csv keeps every task row" bash -c "'$replay' --synthetic tasks:tasks=2000 --stats=csv | awk -F, '/^Running Time/ { on = 1; next } on && /^\$/ { exit } on { n++ } END { exit !(n == 2000) }'"
check "--task-rows 5 and --task-rows all" bash -c "'$replay' --synthetic tasks:tasks=2000 --stats --task-rows 5 >'$tmp/t5.txt' && test \$(awk '/[(]task_sum[)]/ { t = 1 } t && /^ -/ { r = 1; next } r && /^\$/ { exit } r { n++ } END { print n + 0 }' '$tmp/t5.txt') = 5 && '$replay' --synthetic tasks:tasks=2000 --stats --task-rows all >'$tmp/ta.txt' && test \$(awk '/[(]task_sum[)]/ { t = 1 } t && /^ -/ { r = 1; next } r && /^\$/ { exit } r { n++ } END { print n + 0 }' '$tmp/ta.txt') = 2000 && ! grep -q 'tasks with the most' '$tmp/ta.txt'"
for bad in x 0 '' 00; do
    check "--task-rows '$bad': exit 2" bash -c "'$replay' --synthetic tasks --stats --task-rows '$bad' 2>/dev/null; test \$? = 2"
done
check "--stats with counters: a counter table by default" bash -c "'$replay' '$tmp/hello.nvtxw' --stats | grep -A4 '^\*\* Counter Summary (counter_sum):' | grep -qE '^ +1000 +4 +0 +[0-9]+ +[0-9.]+ +[0-9]+ +hello:bytes moved\$'"
check "unknown sink: exit 2" bash -c "'$replay' '$tmp/hello.nvtxw' --to nope; test \$? = 2"
check "two outputs chosen: exit 2" bash -c "'$replay' '$tmp/hello.nvtxw' --to text --stats; test \$? = 2"
check "missing report: exit 1 with message" bash -c "'$replay' '$tmp/none.nvtxw' 2>&1 >/dev/null | grep -q '^nvtxw-replay: error: .*none.nvtxw'; test \${PIPESTATUS[0]} = 1"
check "not a report: exit 1" bash -c "echo hello > '$tmp/x.nvtxw'; '$replay' '$tmp/x.nvtxw' 2>/dev/null; test \$? = 1"
check "truncated input of a merge: exit 0, warning names it" bash -c "'$replay' '$tmp/hello.nvtxw' '$tmp/cut.nvtxw' -o '$tmp/cut2.txt' 2>'$tmp/warn' && grep -q 'warning: report damaged at offset.*recovered from .*cut.nvtxw' '$tmp/warn' && n=\$(grep -c '^event' '$tmp/cut2.txt') && test \$n -gt 6000 && test \$n -lt 12000"

# Merging: a second run of the producer gives the same names and timestamps.
NVTXW3_LIBRARY=$build/libnvtxw/.libs/libnvtxw3.so "$build/examples/hello_producer" "$tmp/hello2.nvtxw" >/dev/null
"$replay" "$tmp/hello.nvtxw" "$tmp/hello2.nvtxw" -o "$tmp/m.txt" 2>"$tmp/merge.err"
count() { grep -c "$1" "$2"; }
check "merge: 12000 events, 2000 samples" bash -c "test \$(grep -c '^event' '$tmp/m.txt') = 12000 && test \$(grep -c '^counter_sample' '$tmp/m.txt') = 2000"
check "merge: one domain record" bash -c "test \$(grep -c '^domain ' '$tmp/m.txt') = 1"
check "merge: streams renamed worker-N#2" bash -c "grep '^stream_open' '$tmp/m.txt' | cut -d' ' -f2 | tr '\\n' ' ' | grep -qx '\"worker-0\" \"worker-1\" \"worker-2\" \"worker-3\" \"worker-0#2\" \"worker-1#2\" \"worker-2#2\" \"worker-3#2\" '"
check "merge: dynamic schemas remapped per input" bash -c "test \$(grep -c '^schema ' '$tmp/m.txt') = 26"
check "merge of three: #3 suffix" bash -c "'$replay' '$tmp/hello.nvtxw' '$tmp/hello2.nvtxw' '$tmp/hello.nvtxw' --to text | grep -q '^stream_open \"worker-3#3\"'"
check "merge: stream order is input after input" bash -c "grep '^event' '$tmp/m.txt' | sed -n 6001p | grep -q 'stream=\"worker-0#2\" ts=0\$'"
check "merge --order time: time order across inputs" bash -c "'$replay' '$tmp/hello.nvtxw' '$tmp/hello2.nvtxw' --order time --to text | grep '^event' | sed 's/.* ts=//' > '$tmp/ts' && test \$(wc -l < '$tmp/ts') = 12000 && sort -n -c '$tmp/ts'"
check "merge --order time interleaves inputs" bash -c "'$replay' '$tmp/hello.nvtxw' '$tmp/hello2.nvtxw' --order time --to text | grep '^event' | head -4 | cut -d' ' -f2 | tr '\\n' ' ' | grep -qx 'stream=\"worker-0\" stream=\"worker-0\" stream=\"worker-0#2\" stream=\"worker-0#2\" '"
check "merge to a report and back" bash -c "'$replay' '$tmp/hello.nvtxw' '$tmp/hello2.nvtxw' -o '$tmp/m.nvtxw' && '$replay' '$tmp/m.nvtxw' --to text | grep -c '^event' | grep -qx 12000"
check "merge stats: MPI_Allreduce 2000 instances" bash -c "'$replay' '$tmp/hello.nvtxw' '$tmp/hello2.nvtxw' --stats=csv | grep -q ',2000,1500.000,1500.000,1000,2000,.*,PushPop,hello:MPI_Allreduce\$'"

# Filters.
# --threads: the streams of a merge side by side; the same lines as one
# thread (in another order across streams), the same report content.
check "--threads 3: the text of one thread, sorted" bash -c "'$replay' '$tmp/hello.nvtxw' '$tmp/hello2.nvtxw' --to text | sort > '$tmp/t1.txt' && '$replay' '$tmp/hello.nvtxw' '$tmp/hello2.nvtxw' --threads 3 --to text | sort > '$tmp/t3.txt' && cmp '$tmp/t1.txt' '$tmp/t3.txt' && test \$(grep -c '^event' '$tmp/t3.txt') = 12000"
check "--threads auto into a report reads back as one thread's" bash -c "'$replay' '$tmp/hello.nvtxw' '$tmp/hello2.nvtxw' --threads auto -o '$tmp/ta.nvtxw' && '$replay' '$tmp/ta.nvtxw' --to text > '$tmp/ta.txt' && '$replay' '$tmp/m.nvtxw' --to text > '$tmp/tm.txt' && cmp '$tmp/ta.txt' '$tmp/tm.txt'"
check "--threads with a filter keeps what one thread keeps" bash -c "'$replay' '$tmp/hello.nvtxw' --streams 'worker-[12]' --until 1ms --to text | sort > '$tmp/tf1.txt' && '$replay' '$tmp/hello.nvtxw' --streams 'worker-[12]' --until 1ms --threads 2 --to text | sort > '$tmp/tf2.txt' && cmp '$tmp/tf1.txt' '$tmp/tf2.txt' && grep -q '^event' '$tmp/tf2.txt'"
# Under ulimit -v, one malloc arena and as many threads as fit, said so
# (sanitizer builds need their shadow memory: the plain builds run it).
if [ -z "${NVTXW_SANITIZERS:-}" ]; then
    check "--threads 8 under ulimit -v 98304: fewer threads, said so, the same lines" bash -c "(ulimit -v 98304 && exec '$replay' '$tmp/hello.nvtxw' '$tmp/hello2.nvtxw' --threads 8 --to text) 2>'$tmp/lim.err' | sort > '$tmp/lim.txt' && grep -Eq '^nvtxw-replay: note: the address space is limited to 96 MiB \(ulimit -v\): replaying on [1-7] threads? instead of 8\$' '$tmp/lim.err' && cmp '$tmp/t1.txt' '$tmp/lim.txt'"
else
    echo "not run here: the ulimit -v check (a sanitizer build, $NVTXW_SANITIZERS)"
fi
check "--threads 0: exit 2" bash -c "'$replay' '$tmp/hello.nvtxw' --threads 0 --to null 2>'$tmp/e'; test \$? = 2 && grep -q \"takes a number from 1 to 256 or 'auto', not '0'\" '$tmp/e'"
check "--threads with --order time: exit 2" bash -c "'$replay' '$tmp/hello.nvtxw' --threads 2 --order time --to null 2>'$tmp/e'; test \$? = 2 && grep -q 'needs --order stream' '$tmp/e'"
check "--streams glob: 2 of 4 streams" bash -c "'$replay' '$tmp/hello.nvtxw' '$tmp/hello2.nvtxw' --streams 'worker-[01]' --to text > '$tmp/f.txt' && test \$(grep -c '^stream_open' '$tmp/f.txt') = 4 && test \$(grep -c '^event' '$tmp/f.txt') = 6000"
check "--streams list" bash -c "'$replay' '$tmp/hello.nvtxw' --streams worker-0,worker-3 --to text | grep -c '^event' | grep -qx 3000"
check "--domains hello keeps all" bash -c "'$replay' '$tmp/hello.nvtxw' --domains 'hel*' --to text | grep -c '^event' | grep -qx 6000"
check "--domains other drops the domain" bash -c "'$replay' '$tmp/hello.nvtxw' --domains other --to text > '$tmp/d.txt'; test \$(grep -c '^event' '$tmp/d.txt') = 0 && test \$(grep -c '^domain ' '$tmp/d.txt') = 0 && test \$(grep -c '^stream_open' '$tmp/d.txt') = 0"
check "--from/--until: step 0 of every stream of both inputs" bash -c "'$replay' '$tmp/hello.nvtxw' '$tmp/hello2.nvtxw' --from 0 --until 9999 --to text > '$tmp/w.txt' && test \$(grep -c '^event' '$tmp/w.txt') = 48 && test \$(grep -c '^counter_sample' '$tmp/w.txt') = 8"
# Expected counts of a window cutting ranges: hello_producer's timestamps,
# a push and its pop kept when the push's time is inside, a push/pop range
# when its begin is, a counter sample by its time.
expect_window() { # FROM TO -> "EVENTS SAMPLES"
    python3 - "$1" "$2" <<'PY'
import sys
lo, hi = int(sys.argv[1]), int(sys.argv[2])
inside = lambda t: lo <= t <= hi
events = samples = 0
for w in range(4):
    for step in range(250):
        t = step * 10000 + w * 37
        push = inside(t)
        events += push
        for p in range(4):
            length = 1000 + 250 * ((step * 7 + p * 3 + w) % 5)
            events += inside(t)
            t += length + 100
        samples += inside(t)
        events += push
print(events, samples)
PY
}
for window in "5000 15000" "123456 234567" "2000000 9999999"; do
    set -- $window
    check "--from $1 --until $2: pops follow their pushes" bash -c "'$replay' '$tmp/hello.nvtxw' --from $1 --until $2 --to text > '$tmp/w2.txt' && test \"\$(grep -c '^event' '$tmp/w2.txt') \$(grep -c '^counter_sample' '$tmp/w2.txt')\" = '$(expect_window "$1" "$2")'"
done
check "--from only" bash -c "'$replay' '$tmp/hello.nvtxw' --from 2490000 --to text | grep -c '^event' | grep -qx 24"
check "--from after --until: exit 2" bash -c "'$replay' '$tmp/hello.nvtxw' --from 10 --until 5; test \$? = 2"
check "--from not a time: exit 2 with the forms it takes" bash -c "'$replay' '$tmp/hello.nvtxw' --from 5x 2>&1 >/dev/null | grep -q \"^nvtxw-replay: error: --from takes a time (1500000, 1.5ms, 2s, 3e9, 4G; units ns us ms s), not '5x'\""
check "--from 0.5ns (not whole): exit 2" bash -c "'$replay' '$tmp/hello.nvtxw' --from 0.5ns 2>/dev/null; test \$? = 2"
check "--to with a time: exit 2 naming --until" bash -c "'$replay' '$tmp/hello.nvtxw' --to 5000 2>&1 >/dev/null | grep -q 'the window.s end is --until'"
# The same window written with units, decimals, exponents and k/M/G.
"$replay" "$tmp/hello.nvtxw" --from 2490000 --until 4000000 --to text >"$tmp/win.ns" 2>/dev/null
for pair in "2.49ms 4ms" "2490us 0.004s" "2.49e6 4e6" "2490k 4M" "0.00249s 4000000ns" "2.49ms 4.0000ms"; do
    read -r from until <<<"$pair"
    check "--from $from --until $until: the same window as in nanoseconds" bash -c "'$replay' '$tmp/hello.nvtxw' --from $from --until $until --to text | cmp -s - '$tmp/win.ns' && test \$(grep -c '^event' '$tmp/win.ns') -gt 0"
done
# Foreign traces merged: a report, synthetic workloads and Chrome traces in
# one session hold every event and sample of each (counted one by one).
srcdir=${top_srcdir:-.}
mixed=("$tmp/hello.nvtxw" --synthetic tasks:tasks=200 --synthetic mpi:iterations=20
    --synthetic gpu:launches=100 "$srcdir/tests/data/pytorch_trace.json"
    "$srcdir/tests/data/chrome_phases.json")
count_kind() { "$replay" "$@" --to text 2>/dev/null | grep -c "^$kind "; }
check "merge of reports, synthetic workloads and Chrome traces" "$replay" "${mixed[@]}" -o "$tmp/mixed.nvtxw"
for kind in event counter_sample stream_open; do
    want=$(($(count_kind "$tmp/hello.nvtxw") + $(count_kind --synthetic tasks:tasks=200) +
        $(count_kind --synthetic mpi:iterations=20) + $(count_kind --synthetic gpu:launches=100) +
        $(count_kind "$srcdir/tests/data/pytorch_trace.json") +
        $(count_kind "$srcdir/tests/data/chrome_phases.json")))
    check "mixed merge: $want ${kind}s, as in its inputs" test "$(count_kind "$tmp/mixed.nvtxw")" = "$want"
done
check "one bad input of a merge: exit 1 naming it" bash -c "'$replay' '$tmp/hello.nvtxw' '$tmp/x.nvtxw' 2>&1 >/dev/null | grep -q '^nvtxw-replay: error: .*x.nvtxw'; test \${PIPESTATUS[0]} = 1"

# --backend: an absolute path forwards; a relative one is refused (exit 1)
# unless --allow-relative-backend, which loads its realpath.
mock=$(cd "$build/tests/backend/.libs" && pwd)/libmockbackend.so
check "--backend absolute: mock backend takes the replay" "$replay" "$tmp/hello.nvtxw" --backend "$mock"
check "--backend relative: exit 1 with message" bash -c "cd '$build' && '$(cd "$(dirname "$replay")" && pwd)/nvtxw-replay' '$tmp/hello.nvtxw' --backend tests/backend/.libs/libmockbackend.so 2>&1 >/dev/null | grep -q '^nvtxw-replay: error: --backend needs an absolute path, not .tests/backend/.libs/libmockbackend.so.*--allow-relative-backend'; test \${PIPESTATUS[0]} = 1"
check "--backend relative with --allow-relative-backend" bash -c "cd '$build' && '$(cd "$(dirname "$replay")" && pwd)/nvtxw-replay' '$tmp/hello.nvtxw' --backend tests/backend/.libs/libmockbackend.so --allow-relative-backend"
check "--allow-relative-backend, missing library: exit 1" bash -c "'$replay' '$tmp/hello.nvtxw' --backend nosuch/lib.so --allow-relative-backend 2>&1 >/dev/null | grep -q '^nvtxw-replay: error: --backend .nosuch/lib.so.: No such file'; test \${PIPESTATUS[0]} = 1"
check "--backend without nvtxwGetInterface: exit 1" bash -c "'$replay' '$tmp/hello.nvtxw' --backend '$(dirname "$mock")/libnosymbol.so' 2>&1 >/dev/null | grep -q '^nvtxw-replay: error: .*nvtxwGetInterface'; test \${PIPESTATUS[0]} = 1"
# A backend failing mid-session (MOCK_BACKEND_FAIL, tests/backend/mock_backend.c).
check "backend EventWrite fails: exit 1 with the backend's error" bash -c "MOCK_BACKEND_FAIL=EventWrite '$replay' '$tmp/hello.nvtxw' --backend '$mock' 2>&1 >/dev/null | grep -q '^nvtxw-replay: error: cannot forward EventWrite: backend=.*libmockbackend.so. returned 1 (failed)'; test \${PIPESTATUS[0]} = 1"
check "backend CounterWrite fails with code 3: exit 1" bash -c "MOCK_BACKEND_FAIL=CounterWrite=3 '$replay' '$tmp/hello.nvtxw' --backend '$mock' 2>&1 >/dev/null | grep -q '^nvtxw-replay: error: cannot forward CounterWrite: .* returned 3'; test \${PIPESTATUS[0]} = 1"
check "backend SessionEnd fails: exit 1" bash -c "MOCK_BACKEND_FAIL=SessionEnd '$replay' '$tmp/hello.nvtxw' --backend '$mock' 2>&1 >/dev/null | grep -q '^nvtxw-replay: error: cannot end the replayed session: cannot forward SessionEnd'; test \${PIPESTATUS[0]} = 1"

# An output that cannot be written (a 4 KiB file size limit, EFBIG): exit 1,
# an error, and nothing under the final name nor a temporary file left.
for out in out.nvtxw out.json out.txt out.sqlite stats.csv; do
    mkdir -p "$tmp/full" && rm -f "$tmp/full"/*
    case $out in stats.csv) how=--stats=csv ;; *) how= ;; esac
    check "unwritable $out: exit 1, error, nothing left" bash -c "(trap '' XFSZ; ulimit -f 4; exec '$replay' '$tmp/hello.nvtxw' $how -o '$tmp/full/$out') 2>'$tmp/full.err'; test \$? = 1 && grep -q '^nvtxw-replay: error: ' '$tmp/full.err' && test -z \"\$(ls -A '$tmp/full')\""
done
check "failed text replay keeps the previous output" bash -c "echo old > '$tmp/keep.txt'; (trap '' XFSZ; ulimit -f 4; exec '$replay' '$tmp/hello.nvtxw' -o '$tmp/keep.txt') 2>/dev/null; test \$? = 1 && test \"\$(cat '$tmp/keep.txt')\" = old && test \$(ls '$tmp' | grep -c '^keep.txt') = 1"
check "output in a missing directory: exit 1" bash -c "'$replay' '$tmp/hello.nvtxw' -o '$tmp/nodir/out.json' 2>&1 >/dev/null | grep -q '^nvtxw-replay: error: .*nodir'; test \${PIPESTATUS[0]} = 1"
check "text output to /dev/null still works" "$replay" "$tmp/hello.nvtxw" --to text -o /dev/null
check "help" bash -c "'$replay' --help | grep -q '^Usage: nvtxw-replay'"
check "-V names the tool's and the library's versions" bash -c "'$replay' -V | grep -Eq '^nvtxw-replay [0-9][^ ]* \(libnvtxw [0-9][^ ]*\)\$'"
# A file-size limit is an error like a full disk (exit 1, "File too large", no
# file left), not death by SIGXFSZ (exit 153).
mkdir -p "$tmp/fsize"
for out in x.json x.txt x.sqlite; do
    check "file-size limit ($out): exit 1, nothing left" bash -c \
        "(ulimit -f 64; '$replay' '$tmp/hello.nvtxw' -o '$tmp/fsize/$out' 2>'$tmp/fsize.err'; echo \$? >'$tmp/fsize.rc');
         test \$(cat '$tmp/fsize.rc') = 1 && grep -q 'File too large\\|disk I/O error' '$tmp/fsize.err' &&
         test -z \"\$(ls -A '$tmp/fsize')\""
done
# A full standard output is a failure (exit 1, said so), not a silent success.
if [ -w /dev/full ]; then
    for args in "--help" "--version" "$tmp/hello.nvtxw --to text" "$tmp/hello.nvtxw --stats"; do
        # shellcheck disable=SC2086
        check "full stdout (${args//$tmp\//}): exit 1" bash -c \
            "'$replay' $args >/dev/full 2>'$tmp/full.err'; s=\$?; test \$s = 1 && grep -q '^nvtxw-replay: error: .*No space left' '$tmp/full.err'"
    done
else
    failed=$((failed + 1)) && echo "FAIL: /dev/full is not writable: the full-stdout checks cannot run"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
