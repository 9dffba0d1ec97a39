#!/usr/bin/env bash
# CLI tests of nvtxw-replay --synthetic (docs/synthetic.md): determinism per
# seed, exact content for given parameters (ranges, messages, flows, task
# lifecycles, causal links), the events=N knob, merging with other inputs,
# and bad specs (exit 1 with the message). Memory flatness is measured by
# bench/synthetic_mem_bench.sh, not here. Prints "N passed, M failed".
set -u
build=${top_builddir:-.}
src=${top_srcdir:-.}
replay=$build/tools/replay/nvtxw-replay
checker=$src/tests/cli/synthetic_check.py
. "$src/tests/testlib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

check() { # check NAME COMMAND...: passes when the command succeeds
    local name=$1
    shift
    if "$@" >"$tmp/out" 2>"$tmp/err"; then pass "$name"; else fail "$name: $(head -c 300 "$tmp/err")"; fi
}
# n PATTERN FILE: how many lines match
n() { grep -c -- "$1" "$2"; }
# is NAME EXPECTED ACTUAL
is() { if [ "$2" = "$3" ]; then pass "$1"; else fail "$1: expected $2, got $3"; fi; }

[ -x "$replay" ] || fatal "nvtxw-replay is not built"

# ---- Determinism: same spec, same bytes; another seed, other bytes.
for g in mpi gpu nested tasks; do
    "$replay" --synthetic "$g" -o "$tmp/$g-a.txt" && "$replay" --synthetic "$g" -o "$tmp/$g-b.txt" &&
        "$replay" --synthetic "$g:seed=2" -o "$tmp/$g-c.txt" || fatal "$g: generation failed"
    check "$g: same seed, identical text" cmp "$tmp/$g-a.txt" "$tmp/$g-b.txt"
    check "$g: other seed, other text" bash -c "! cmp -s '$tmp/$g-a.txt' '$tmp/$g-c.txt'"
    check "$g: same seed, identical JSON" bash -c "'$replay' --synthetic $g -o '$tmp/$g-a.json' && '$replay' --synthetic $g -o '$tmp/$g-b.json' && cmp '$tmp/$g-a.json' '$tmp/$g-b.json'"
    check "$g: JSON parses" python3 -c "import json; json.load(open('$tmp/$g-a.json'))"
    # (a report does not keep scope releases: docs/report-records.md)
    check "$g: report reads back to the same records" bash -c "'$replay' --synthetic $g -o '$tmp/$g.nvtxw' && '$replay' '$tmp/$g.nvtxw' --to text | sort > '$tmp/$g-r.txt' && grep -v '^scope_release ' '$tmp/$g-a.txt' | sort | cmp - '$tmp/$g-r.txt'"
done

check "same seed, identical SQLite and stats" bash -c "for i in 1 2; do '$replay' --synthetic tasks:tasks=200 -o \"$tmp/s\$i.sqlite\" && '$replay' --synthetic tasks:tasks=200 --stats=csv > \"$tmp/s\$i.csv\" || exit 1; done; cmp '$tmp/s1.sqlite' '$tmp/s2.sqlite' && cmp '$tmp/s1.csv' '$tmp/s2.csv'"

# ---- mpi: 4 ranks, 10 iterations, 3 messages, a collective every 2nd.
"$replay" --synthetic mpi:ranks=4,iterations=10,messages=3,collective_every=2,ranks_per_node=2 -o "$tmp/mpi.txt" || fatal "mpi run failed"
is "mpi: 4 streams" 4 "$(n '^stream_open' "$tmp/mpi.txt")"
is "mpi: 2 nodes of 2 ranks" 'node0/rank0 node0/rank1 node1/rank2 node1/rank3' "$(grep -o 'path="[^"]*"' "$tmp/mpi.txt" | cut -d'"' -f2 | tr '\n' ' ' | sed 's/ $//')"
is "mpi: 120 sends" 120 "$(n 'event="MPI_Send"' "$tmp/mpi.txt")"
is "mpi: 120 receives" 120 "$(n 'event="MPI_Recv"' "$tmp/mpi.txt")"
is "mpi: 40 compute ranges" 40 "$(n 'category=1, message=' "$tmp/mpi.txt")"
is "mpi: 5 collectives on 4 ranks" 20 "$(n 'synthetic_mpi_collective:' "$tmp/mpi.txt")"
is "mpi: 300 events" 300 "$(n '^event' "$tmp/mpi.txt")"
is "mpi: 80 counter samples" 80 "$(n '^counter_sample' "$tmp/mpi.txt")"
check "mpi: every send has one receive with its flow ID" python3 "$checker" flows "$tmp/mpi.txt"
check "mpi: send and receive name each other" bash -c "grep -o 'peer=[0-9]*, tag=[0-9]*, bytes=[0-9]*, message_id=[0-9]*' '$tmp/mpi.txt' | sort | uniq -c | awk '\$1 != 1' | wc -l | grep -qx 0"
sed '0,/flow_in=[1-9]/s/flow_in=[1-9][0-9]*/flow_in=0/' "$tmp/mpi.txt" >"$tmp/mpi-broken.txt"
check "mpi: the flow check catches a lost receive end" bash -c "! python3 '$checker' flows '$tmp/mpi-broken.txt'"
check "mpi: JSON draws 120 flows" bash -c "'$replay' --synthetic mpi:ranks=4,iterations=10,messages=3 -o '$tmp/mpi.json' && test \$(grep -c '\"ph\":\"s\"' '$tmp/mpi.json') = 120 && test \$(grep -c '\"ph\":\"f\"' '$tmp/mpi.json') = 120"

# ---- gpu: 2 host threads, 1 GPU with 2 streams, 50 launches each.
"$replay" --synthetic gpu:threads=2,devices=1,streams=2,launches=50,copy_every=5,sync_every=10 -o "$tmp/gpu.txt" || fatal "gpu run failed"
is "gpu: 2 host + 2 device streams" 4 "$(n '^stream_open' "$tmp/gpu.txt")"
is "gpu: device streams have the GPU scope" 2 "$(grep '^stream_open "GPU 0' "$tmp/gpu.txt" | grep -c "scope=$(grep 'path="node0/GPU\[CUDAID:0\]"' "$tmp/gpu.txt" | sed 's/.* id=\([0-9]*\) .*/\1/')")"
is "gpu: 80 kernel launches" 80 "$(n 'event="cudaLaunchKernel"' "$tmp/gpu.txt")"
is "gpu: 80 kernels" 80 "$(n 'synthetic_gpu_kernel:' "$tmp/gpu.txt")"
is "gpu: 20 copies" 20 "$(n 'synthetic_gpu_memcpy:' "$tmp/gpu.txt")"
is "gpu: 10 synchronizations" 10 "$(n 'message="cudaStreamSynchronize"' "$tmp/gpu.txt")"
is "gpu: one memory sample per copy" 20 "$(n '^counter_sample' "$tmp/gpu.txt")"
check "gpu: every launch correlates with one execution" python3 "$checker" flows "$tmp/gpu.txt"

# ---- nested: 1 thread x 2 domains, depth 5, 4 iterations.
"$replay" --synthetic nested:threads=1,domains=2,categories=3,depth=5,iterations=4,payload_every=3 -o "$tmp/nested.txt" || fatal "nested run failed"
"$replay" --synthetic nested:threads=1,domains=2,categories=3,depth=5,iterations=4,payload_every=3 --stats=csv >"$tmp/nested.csv" || fatal "nested stats failed"
is "nested: 2 domains" 2 "$(n '^domain ' "$tmp/nested.txt")"
is "nested: 3 categories per domain" 6 "$(n '^category ' "$tmp/nested.txt")"
is "nested: 8 iteration ranges" 2 "$(grep -c ',4,.*StartEnd,synthetic.nested.[01]:iteration$' "$tmp/nested.csv")"
is "nested: every iteration pushes level 1" 2 "$(grep -c ',4,.*Push.*,synthetic.nested.[01]:level 1$' "$tmp/nested.csv")"
check "nested: depth 5 reached" grep -q ':level 5$' "$tmp/nested.csv"
check "nested: no level 6" bash -c "! grep -q 'level 6\|depth 6' '$tmp/nested.csv'"
check "nested: pushes and pops balance" bash -c "'$replay' --synthetic nested:threads=1,domains=2,depth=5,iterations=4 --stats | grep -q 'Ranges not closed at session end: 0 push/pop, 0 start/end; unmatched pops: 0, unmatched ends: 0'"
for field in 'c=' 'uc=' ' s=' 'us=' ' i=' 'ui=' ' l=' 'ul=' 'll=' 'ull=' 'i8=' 'u8=' 'i16=' 'u16=' 'i32=' 'u32=' 'i64=' 'u64=' ' f=' ' d=' 'ld=' 'size=' 'address=0x' 'wc=' 'c8=' 'c16=' 'c32=' 'bytes=0x' 'i128=0x' 'u128=0x' 'f16=1,' 'f32=0.5' 'f64=-2.25' 'f128=1,' 'bf16=3.140625' 'tf32=3.140625' 'scope=' 'pid32=' 'pid64=' 'tid32=' 'tid64=' 'range_id=' 'fixed="fixed-8!"' 'utf8="café' 'utf16="héllo"' 'utf32="🚀ok"' 'pointer="pointed-to string"' 'base="tail"' 'ints=\[' 'one={a=' 'two=\[{a=-1, b=1, level=low}' 'val={' 'tag={sel=' 'level=\(low\|mid\|high\)' 'flags=' 'hidden=3735928559' 'name="payload sample"'; do
    check "nested: the payload sample has $field" grep -q "synthetic_everything: .*$field" "$tmp/nested.txt"
done
for field in 'samples=\[' 'zt16="ztλ"' 'matrix=\[' 'utf8="' 'zt_bytes=\['; do
    check "nested: the variable payload has $field" grep -q "synthetic_variable: .*$field" "$tmp/nested.txt"
done
check "nested: both union members appear" bash -c "grep -q 'val={i=' '$tmp/nested.txt' || '$replay' --synthetic nested:iterations=40 --to text | grep -q 'val={i=' && '$replay' --synthetic nested:iterations=40 --to text | grep -q 'val={d=' && '$replay' --synthetic nested:iterations=40 --to text | grep -q 'val={s=\"union\"}' && '$replay' --synthetic nested:iterations=40 --to text | grep -q 'tag={sel=0, b='"
check "nested: depth 1000 and back" bash -c "'$replay' --synthetic nested:threads=1,domains=1,depth=1000,iterations=1 --stats=csv | grep -q ',1,.*,synthetic.nested.0:depth 1000\$'"

# ---- tasks: 300 tasks on 3 workers.
"$replay" --synthetic tasks:workers=3,tasks=300 -o "$tmp/tasks.txt" || fatal "tasks run failed"
is "tasks: 3 worker streams" 3 "$(n '^stream_open' "$tmp/tasks.txt")"
is "tasks: 300 created" 300 "$(n 'state=created$' "$tmp/tasks.txt")"
is "tasks: 300 completed" 300 "$(n 'state=completed$' "$tmp/tasks.txt")"
is "tasks: 300 deleted" 300 "$(n 'state=deleted$' "$tmp/tasks.txt")"
is "tasks: suspensions resume" "$(n 'state=suspended$' "$tmp/tasks.txt")" "$(n 'state=resumed$' "$tmp/tasks.txt")"
check "tasks: some suspended, some stolen, some slept" bash -c "grep -q 'state=suspended' '$tmp/tasks.txt' && grep -q 'nvtxw_task_steal:' '$tmp/tasks.txt' && grep -q 'nvtxw_worker_sleep:' '$tmp/tasks.txt' && grep -q 'state=yielded' '$tmp/tasks.txt'"
check "tasks: every suspension reason occurs" bash -c "for r in 'waiting for future' 'waiting for I/O' 'mutex contention'; do grep -q \"reason=\\\"\$r\\\", suspended_at=[0-9]*, state=suspended\" '$tmp/tasks.txt' || exit 1; done"
check "tasks: a task scope per task, below the process" bash -c "test \$(grep -c '^scope .*path=\"task\[' '$tmp/tasks.txt') = 300"
check "tasks: slices within lifetimes, suspensions resumed, links once out and once in" python3 "$checker" tasks "$tmp/tasks.txt" 300
check "tasks: causal links are flows" python3 "$checker" flows "$tmp/tasks.txt"
released=$(dirname "$checker")/check_released.py
check "tasks: each task scope released after its deleted mark" python3 "$released" "$tmp/tasks.txt" --min 300 --after-deleted
grep -v '^scope_release' "$tmp/tasks.txt" >"$tmp/tasks-kept.txt"
check "tasks: the check catches a scope never released" bash -c "! python3 '$released' '$tmp/tasks-kept.txt'"
grep -v 'state=deleted$' "$tmp/tasks.txt" >"$tmp/tasks-undeleted.txt"
check "tasks: the check catches a release without a deleted mark" bash -c "! python3 '$released' '$tmp/tasks-undeleted.txt' --after-deleted"
grep -v 'state=resumed$' "$tmp/tasks.txt" >"$tmp/tasks-broken.txt"
check "tasks: the check catches a lost resumption" bash -c "! python3 '$checker' tasks '$tmp/tasks-broken.txt' 300"
check "tasks: queue depth counters" bash -c "test \$(grep -c '^counter .*name=\"worker [0-2] queue depth\"' '$tmp/tasks.txt') = 3 && grep -q '^counter_sample' '$tmp/tasks.txt'"
check "tasks: one live slot recycles every task" bash -c "'$replay' --synthetic tasks:workers=2,tasks=50,live=1 -o '$tmp/t1.txt' && python3 '$checker' tasks '$tmp/t1.txt' 50 && test \$(grep -c 'path=\"task\[0\.' '$tmp/t1.txt') = 50"

# ---- events=N: at least N records, the run stops at the next whole step.
for g in mpi gpu nested tasks; do
    check "$g: events=20000 writes at least 20000 records" bash -c "'$replay' --synthetic $g:events=20000 -o '$tmp/e.txt' && c=\$(grep -c '^event\|^counter_sample' '$tmp/e.txt') && test \$c -ge 20000 && test \$c -lt 40000"
done

# ---- Merging a synthetic workload with another.
check "two generators merge into one session" bash -c "'$replay' --synthetic mpi:iterations=5 --synthetic gpu:launches=5 -o '$tmp/merged.txt' && grep -q '^domain \"synthetic.mpi\"' '$tmp/merged.txt' && grep -q '^domain \"synthetic.gpu\"' '$tmp/merged.txt'"

# ---- Bad specs: exit 1 and the message.
bad() { # bad SPEC MESSAGE-REGEX
    check "bad spec '$1'" bash -c "'$replay' --synthetic '$1' -o '$tmp/bad.txt' 2>'$tmp/bad.err'; test \$? = 1 && grep -q -- \"\$0\" '$tmp/bad.err' && test ! -e '$tmp/bad.txt'" "$2"
}
bad 'tasks:x=1' "^nvtxw-replay: error: --synthetic tasks: unknown parameter 'x' (seed, events, workers, tasks, live, fanout, depth, slices, wait, slice)\$"
bad 'nope' "^nvtxw-replay: error: --synthetic: unknown generator 'nope' (tasks, mpi, gpu, nested)\$"
bad 'mpi:ranks=abc' "^nvtxw-replay: error: --synthetic mpi: parameter 'ranks' takes an integer from 2 to 4096, not 'abc'\$"
bad 'mpi:ranks=1' "parameter 'ranks' takes an integer from 2 to 4096, not '1'"
bad 'gpu:threads=5000' "parameter 'threads' takes an integer from 1 to 1024, not '5000'"
bad 'nested:depth' "parameter 'depth' takes an integer from 1 to 4096, not ''"
bad 'nested:depth=-1' "not '-1'"
bad 'tasks:seed=99999999999999999999' "parameter 'seed' takes an integer"
bad 'mpi:iterations=2,iterations=3' "parameter 'iterations' given twice"
bad 'gpu:launches=1x' "not '1x'"
# ---- Every parameter is documented: --help, docs/synthetic.md, the man page.
"$replay" --help >"$tmp/help.txt"
for g in mpi gpu nested tasks; do
    "$replay" --synthetic "$g:no_such=1" 2>&1 | sed -n 's/.*(\(.*\))$/\1/p' | tr -d ',' >"$tmp/params"
    for p in $(cat "$tmp/params"); do
        case $p in seed | events) continue ;; esac
        check "$g: $p in --help" grep -q "$p=" "$tmp/help.txt"
        check "$g: $p in docs/synthetic.md" grep -q "^| \`$p\` |" "$src/docs/synthetic.md"
        check "$g: $p in the man page" grep -q "$p=" "$src/docs/nvtxw-replay.1"
    done
done
check "tasks: --stats adds the task tables by default" bash -c "'$replay' --synthetic tasks:tasks=50 --stats | grep -c -e '(nvtx_sum)' -e '(task_sum)' -e '(task_suspend_sum)' | grep -qx 3"
check "tasks: --stats-reports task_sum gives one row per registered task" bash -c "t=\$('$replay' --synthetic tasks:tasks=200 --to text | grep -c '^scope .*path=\"task\\['); r=\$('$replay' --synthetic tasks:tasks=200 --stats=csv --stats-reports task_sum | sed -n '2,/^\$/p' | grep -c ,); [ \"\$t\" = 200 ] && [ \"\$r\" = 200 ]"
check "mpi: no task tables without tasks" bash -c "! '$replay' --synthetic mpi --stats | grep -q task_sum"
check "--stats-reports with an unknown table fails" bash -c "'$replay' --synthetic mpi --stats --stats-reports bogus 2>&1 >/dev/null | grep -q 'StatsReports names \"bogus\"'"
check "k/M/G suffixes" bash -c "'$replay' --synthetic mpi:ranks=2,iterations=1k,messages=0,collective_every=0 --to text | grep -c '^event' | grep -qx 2000"
finish
