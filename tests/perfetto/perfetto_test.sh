#!/usr/bin/env bash
# perfetto_test.sh - Sink=perfetto outputs checked by Perfetto's own schema
# and an interpreter of Perfetto's rules that shares no code with the sink
# (tests/perfetto/perfetto_check.py, docs/perfetto.md "Checking a file").
#
# For every input kind, the same session is written twice, as JSON
# (Sink=json) and as a Perfetto trace, and the checker interprets the
# trace (sequences, incremental state, interning, clocks, tracks, slice
# nesting per track, counters, flows) and matches it with the JSON event by
# event: the synthetic workloads (tasks, mpi, gpu, nested), the capture
# files of the tests (every payload kind; tests/perfetto/data/edge_cases.jsonl:
# empty names, unbalanced pushes and pops, an end on another stream,
# timestamps out of order, below 0 and at 2^63 - 1), Chrome traces as input,
# OTF2 archives (the shared Score-P archives and a generated one) and a
# zstd-compressed trace (--compression 1). One output is also decoded by
# `protoc --decode=perfetto.protos.Trace`.
#
# Environment: top_builddir, top_srcdir (tests/local.mk), NVTXW_PERFETTO_PROTO
# (Perfetto's perfetto_trace.proto; set by tests/perfetto/local.mk, a missing
# file is a failure, never a skip), NVTXW_OTF2_TEST_DATA and NVTXW_HAVE_OTF2.
# Needs protoc and python3-protobuf (Debian: protobuf-compiler,
# python3-protobuf) and python3-zstandard. Prints "N passed, M failed".
set -u
build=${top_builddir:-.}
src=${top_srcdir:-.}
py=${NVTXW_PERFETTO_PYTHON:-/usr/bin/python3}
proto=${NVTXW_PERFETTO_PROTO:-}
replay=$build/tools/replay/nvtxw-replay
imp=$build/tools/otf2-import/nvtxw-otf2-import
gen=$build/tests/gen/nvtxw-otf2-gen
checker=$src/tests/perfetto/perfetto_check.py
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nvtxw-perfetto.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
. "$src/tests/testlib.sh"

[ -n "$proto" ] && [ -f "$proto" ] ||
    fatal "Perfetto's schema perfetto_trace.proto not found ('$proto'): set NVTXW_PERFETTO_PROTO"
command -v protoc >/dev/null || fatal "protoc is missing (install protobuf-compiler)"
"$py" -c 'import google.protobuf' 2>/dev/null || fatal "$py cannot import google.protobuf (install python3-protobuf)"

# compare NAME JSON PFTRACE [checker options]: one PASS or FAIL.
compare() {
    local name=$1 json=$2 trace=$3
    shift 3
    if "$py" "$checker" --proto "$proto" "$trace" --json "$json" "$@" >"$tmp/out" 2>&1; then
        pass "$name: $(tail -1 "$tmp/out")"
    else
        fail "$name: $(head -c 1500 "$tmp/out")"
    fi
}

# both NAME TOOL INPUT... : writes INPUT as NAME.json and NAME.pftrace with
# TOOL (replay or import) and compares them.
both() {
    local name=$1 tool=$2
    shift 2
    if "$tool" "$@" -o "$tmp/$name.json" 2>"$tmp/err" &&
        "$tool" "$@" -o "$tmp/$name.pftrace" 2>>"$tmp/err"; then
        compare "$name" "$tmp/$name.json" "$tmp/$name.pftrace"
    else
        fail "$name: the conversion failed: $(head -c 400 "$tmp/err")"
    fi
    rm -f "$tmp/$name.json" "$tmp/$name.pftrace"
}

# The official schema decodes a trace as a whole.
"$replay" --synthetic mpi:ranks=2,iterations=3 -o "$tmp/small.pftrace" 2>"$tmp/err" ||
    fail "small trace: $(cat "$tmp/err")"
if protoc -I "$(dirname "$proto")" --decode=perfetto.protos.Trace "$(basename "$proto")" \
    <"$tmp/small.pftrace" >"$tmp/decoded" 2>"$tmp/err" && grep -q 'track_event {' "$tmp/decoded" &&
    grep -q 'sequence_flags: 3' "$tmp/decoded"; then
    pass "protoc --decode=perfetto.protos.Trace reads the file"
else
    fail "protoc --decode=perfetto.protos.Trace: $(head -c 400 "$tmp/err")"
fi

# The checker can fail: its mutations of a good trace are each caught.
if "$py" "$checker" --proto "$proto" --self-test "$tmp/small.pftrace" >"$tmp/out" 2>&1; then
    pass "the checker catches its mutations: $(tail -1 "$tmp/out")"
else
    fail "the checker's self-test: $(head -c 1500 "$tmp/out")"
fi

for workload in tasks:events=20k mpi:events=20k gpu:events=20k nested:events=20k; do
    both "synthetic-${workload%%:*}" "$replay" --synthetic "$workload"
done
for capture in "$src/tests/perfetto/data/edge_cases.jsonl" "$src/tests/perfetto/data/time_domains.jsonl" \
    "$src/tests/cli/data/capture-all.jsonl" \
    "$src/tests/cli/data/capture-payloads.yaml" "$src/fuzz/corpus/capture/fields.jsonl" \
    "$src/fuzz/corpus/capture/demo.jsonl"; do
    both "capture-$(basename "$capture")" "$replay" "$capture"
done
for chrome in "$src/tests/data/pytorch_trace.json" "$src/tests/data/chrome_phases.json" \
    "$src/tests/perfetto/data/overlapping_ranges.json"; do
    both "chrome-$(basename "$chrome" .json)" "$replay" "$chrome"
    # every stream opened late and closed after its thread's last event
    # (docs/chrome-input.md): the trace holds what the JSON of streams all
    # open at once holds (that JSON, not the late one: a stream closed early
    # writes its JSON events early, so a late "e" on another thread can
    # come before its "b" in the file, which the check reads in file order)
    name=chrome-$(basename "$chrome" .json)-late-streams
    if "$replay" "$chrome" -o "$tmp/$name.json" 2>"$tmp/err" &&
        NVTXW_CHROME_STREAMS_AT_ONCE=0 "$replay" "$chrome" -o "$tmp/$name.pftrace" 2>>"$tmp/err"; then
        compare "$name" "$tmp/$name.json" "$tmp/$name.pftrace"
    else
        fail "$name: the conversion failed: $(head -c 300 "$tmp/err")"
    fi
done

# Time domains (docs/perfetto.md, "Time"): each event of time_domains.jsonl
# names the time it must have in the session's domain ("... is 5100",
# "... is 5200-5300"); the matching with the JSON above shows both sinks
# agree, this that they are right.
if "$replay" "$src/tests/perfetto/data/time_domains.jsonl" -o "$tmp/td.pftrace" 2>"$tmp/err" &&
    "$py" "$checker" --proto "$proto" --dump "$tmp/td.pftrace" >"$tmp/dump" 2>&1; then
    want=$(grep -c ' is [0-9]' "$src/tests/perfetto/data/time_domains.jsonl")
    got=$(sed -nE 's/.*(instant|slice) "[^"]* is ([0-9]+)(-([0-9]+))?" .*(ts=([0-9]+)|\[([0-9]+), ([0-9]+)\]).*/\2:\4:\6:\7:\8/p' \
        "$tmp/dump" | awk -F: '$2 == "" ? $1 == $3 : $1 == $4 && $2 == $5' | wc -l)
    if [ "$want" -gt 0 ] && [ "$got" -eq "$want" ]; then
        pass "time domains: $got events at their converted times"
    else
        fail "time domains: $got of $want events at their converted times: $(head -c 1200 "$tmp/dump")"
    fi
else
    fail "time domains: $(head -c 400 "$tmp/err")"
fi
for sink in perfetto json; do
    ext=pftrace
    [ "$sink" = json ] && ext=json
    if "$replay" "$src/tests/perfetto/data/time_domains.jsonl" -o "$tmp/td.$ext" 2>"$tmp/err" &&
        grep -q "^nvtxw: warning: $sink sink, stream \"unconverted\": 1 timestamp of time domain 0x[0-9a-f]* written as given" "$tmp/err" &&
        grep -q "^nvtxw: warning: $sink sink, stream \"gpu\": 1 timestamp of" "$tmp/err" &&
        [ "$(grep -c '^nvtxw: warning' "$tmp/err")" -eq 2 ]; then
        pass "time domains: the $sink sink counts the 2 timestamps it could not convert"
    else
        fail "time domains, $sink sink's warnings: $(head -c 800 "$tmp/err")"
    fi
done
rm -f "$tmp/td.pftrace" "$tmp/td.json"

# What the sink changed is said on stderr (docs/logging.md): warnings by
# default in the tools, nothing with NVTXW_LOG_LEVEL=off, an unknown level
# reported; the edge cases have pushes never popped, pops with nothing
# pushed and times below 0, the overlapping ranges lanes (info).
edge=$src/tests/perfetto/data/edge_cases.jsonl
if "$replay" "$edge" -o "$tmp/edge.pftrace" 2>"$tmp/err" &&
    grep -Eq '^nvtxw: warning: perfetto sink, stream "a": 2 pushes never popped, ended at the stream.s last time \(600 ns\)' "$tmp/err" &&
    grep -Eq '^nvtxw: warning: .*: [0-9]+ pops? with nothing pushed' "$tmp/err" &&
    grep -Eq '^nvtxw: warning: .*: [0-9]+ timestamps? below 0 written as 0' "$tmp/err"; then
    pass "warnings by default: $(grep -c '^nvtxw: warning' "$tmp/err") lines"
else
    fail "warnings by default: $(head -c 800 "$tmp/err")"
fi
if NVTXW_LOG_LEVEL=off "$replay" "$edge" -o "$tmp/edge.pftrace" 2>"$tmp/err" &&
    ! grep -q '^nvtxw:' "$tmp/err"; then
    pass "NVTXW_LOG_LEVEL=off: no line"
else
    fail "NVTXW_LOG_LEVEL=off: $(head -c 800 "$tmp/err")"
fi
if NVTXW_LOG_LEVEL=loud "$replay" "$edge" -o "$tmp/edge.pftrace" 2>"$tmp/err" &&
    grep -q '^nvtxw: NVTXW_LOG_LEVEL=loud is not a level (off, error, warning, info, debug' "$tmp/err" &&
    ! grep -q '^nvtxw: warning' "$tmp/err"; then
    pass "an unknown NVTXW_LOG_LEVEL is said once"
else
    fail "NVTXW_LOG_LEVEL=loud: $(head -c 800 "$tmp/err")"
fi
if NVTXW_LOG_LEVEL=INFO "$replay" "$src/tests/perfetto/data/overlapping_ranges.json" \
    -o "$tmp/overlap.pftrace" 2>"$tmp/err" &&
    grep -Eq '^nvtxw: info: .*stream "tid 1": 4 whole ranges not nesting with the stream.s others put on lanes "overlapping ranges"' "$tmp/err"; then
    pass "NVTXW_LOG_LEVEL=INFO: the overlapping ranges are counted"
else
    fail "NVTXW_LOG_LEVEL=INFO: $(head -c 800 "$tmp/err")"
fi
rm -f "$tmp/edge.pftrace" "$tmp/overlap.pftrace"

# Compressed packets: the same content as the plain file.
if "$replay" --synthetic gpu:events=20k -o "$tmp/gpu.json" 2>"$tmp/err" &&
    "$replay" --synthetic gpu:events=20k -o "$tmp/gpu.pftrace" --compression 1 2>>"$tmp/err"; then
    compare "zstd_compressed_packets" "$tmp/gpu.json" "$tmp/gpu.pftrace"
else
    fail "compressed: $(head -c 400 "$tmp/err")"
fi

if [ "${NVTXW_HAVE_OTF2:-no}" = yes ]; then
    archives=0
    for archive in "${NVTXW_OTF2_TEST_DATA:-}"/*/traces.otf2; do
        [ -f "$archive" ] || continue
        archives=$((archives + 1))
        both "otf2-$(basename "$(dirname "$archive")")" "$imp" "$archive"
    done
    [ "$archives" -gt 0 ] || fail "no OTF2 archive under NVTXW_OTF2_TEST_DATA='${NVTXW_OTF2_TEST_DATA:-}'"
    if "$gen" -o "$tmp/gen" --events 20000 --seed 7 >/dev/null 2>"$tmp/err"; then
        both otf2-generated "$imp" "$tmp/gen/traces.otf2"
    else
        fail "nvtxw-otf2-gen: $(head -c 400 "$tmp/err")"
    fi
fi
finish
