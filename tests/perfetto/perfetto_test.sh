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
for capture in "$src/tests/perfetto/data/edge_cases.jsonl" "$src/tests/cli/data/capture-all.jsonl" \
    "$src/tests/cli/data/capture-payloads.yaml" "$src/fuzz/corpus/capture/fields.jsonl" \
    "$src/fuzz/corpus/capture/demo.jsonl"; do
    both "capture-$(basename "$capture")" "$replay" "$capture"
done
for chrome in "$src/tests/data/pytorch_trace.json" "$src/tests/data/chrome_phases.json"; do
    both "chrome-$(basename "$chrome" .json)" "$replay" "$chrome"
done

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
