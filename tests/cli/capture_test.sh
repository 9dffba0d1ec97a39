#!/usr/bin/env bash
# Capture files (docs/capture-format.md): a hand-written JSON Lines capture
# replayed into text, lossless round trips report -> capture -> report ->
# capture on hello_producer's report and on the hand-written one, and
# malformed captures that must exit 1 naming line:column and leave no output.
set -u
build=${top_builddir:-.}
src=${top_srcdir:-.}
. "$src/tests/testlib.sh"
replay=$build/tools/replay/nvtxw-replay
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
data=$src/tests/cli/data

# round_trip NAME REPORT: report -> A -> report2 -> B; A == B and the two
# reports read back identically as text.
round_trip() {
    local name=$1 report=$2
    if "$replay" "$report" -o "$tmp/$name-A.jsonl" 2>"$tmp/err" &&
        "$replay" "$tmp/$name-A.jsonl" -o "$tmp/$name-2.nvtxw" 2>>"$tmp/err" &&
        "$replay" "$tmp/$name-2.nvtxw" --to capture -o "$tmp/$name-B.jsonl" 2>>"$tmp/err" &&
        cmp -s "$tmp/$name-A.jsonl" "$tmp/$name-B.jsonl" &&
        "$replay" "$report" --to text -o "$tmp/$name-1.txt" &&
        "$replay" "$tmp/$name-2.nvtxw" --to text -o "$tmp/$name-2.txt" &&
        cmp -s "$tmp/$name-1.txt" "$tmp/$name-2.txt"; then
        pass "round trip: $name"
    else
        fail "round trip: $name: $(head -c 300 "$tmp/err")"
    fi
}

# Hand-written capture: every line kind, into text.
if "$replay" "$data/capture-all.jsonl" --to text -o "$tmp/all.txt" 2>"$tmp/err" &&
    grep -qx '  \[0\] my_range: begin=10, end=20, message="x é", big=18446744073709551615' "$tmp/all.txt" &&
    grep -qx 'counter_sample stream="w0" ts=15 counter=4294967296 bytes=fdffffffffffffff' "$tmp/all.txt" &&
    grep -qx 'counter_no_value stream="w0" ts=16 counter=4294967296 reason=1' "$tmp/all.txt" &&
    grep -qx 'sync stream="w0" src=4294967296 dst=1 points=(1,2) (3,4)' "$tmp/all.txt" &&
    grep -qx 'conversion stream="w0" src=4294967296 dst=1 slope=1.5 anchor=(0,7)' "$tmp/all.txt" &&
    grep -qx 'category domain="app" id=3 name="io"' "$tmp/all.txt"; then
    pass "hand-written capture into text"
else
    fail "hand-written capture into text: $(head -c 300 "$tmp/err")"
fi
"$replay" "$data/capture-all.jsonl" -o "$tmp/all.nvtxw" 2>/dev/null
round_trip hand-written "$tmp/all.nvtxw"

NVTXW3_LIBRARY=$build/libnvtxw/.libs/libnvtxw3.so "$build/examples/hello_producer" "$tmp/hello.nvtxw" >/dev/null ||
    fatal "hello_producer could not write the report"
round_trip hello "$tmp/hello.nvtxw"

# bad NAME REGEX CONTENT: the capture fails with exit 1, a message matching
# REGEX (file:line:column), and no output file.
bad() {
    local name=$1 regex=$2
    printf '%s\n' "$3" >"$tmp/bad.jsonl"
    "$replay" "$tmp/bad.jsonl" -o "$tmp/bad.nvtxw" 2>"$tmp/err"
    local rc=$?
    if [ $rc = 1 ] && grep -Eq "$regex" "$tmp/err" && [ ! -e "$tmp/bad.nvtxw" ]; then
        pass "malformed: $name"
    else
        fail "malformed: $name (exit $rc): $(head -c 300 "$tmp/err")"
    fi
}
head='{"nvtxw_capture":1}
{"domain":"","stream_open":"s"}'
bad "truncated line" 'bad.jsonl:[34]:[0-9]+: did not find expected' "$head
{\"stream\":\"s\",\"event\":[{\"schema\":\"int64\",\"value\":1}"
bad "wrong type" 'bad.jsonl:3:[0-9]+: wrong type for ts' "$head
{\"stream\":\"s\",\"counter_no_value\":1,\"ts\":\"abc\"}"
bad "unknown schema field" 'bad.jsonl:4:[0-9]+: unknown field "nope"' "$head
{\"domain\":\"\",\"schema\":{\"name\":\"p\",\"kind\":\"static\",\"entries\":[{\"name\":\"a\",\"type\":\"int32\"}]}}
{\"stream\":\"s\",\"event\":[{\"schema\":\"p\",\"nope\":1}]}"
bad "unknown stream" 'bad.jsonl:3:[0-9]+: unknown stream "x"' "$head
{\"stream\":\"x\",\"event\":[{\"schema\":\"int64\",\"value\":1}]}"
bad "unmatched stream close" 'bad.jsonl:4:[0-9]+: unmatched stream_close' "$head
{\"stream_close\":\"s\"}
{\"stream_close\":\"s\"}"
bad "unknown key" 'bad.jsonl:3:[0-9]+: unknown key "colour"' "$head
{\"domain\":\"\",\"category\":1,\"name\":\"x\",\"colour\":2}"
bad "out of range" 'bad.jsonl:3:[0-9]+: value 18446744073709551616 out of range' "$head
{\"stream\":\"s\",\"counter_no_value\":1,\"ts\":1,\"reason\":18446744073709551616}"
bad "header with an unknown key" 'bad.jsonl:1:[0-9]+: unknown key "x"' '{"nvtxw_capture":1,"x":2}'
printf '{"nvtxw_capture":1}\n{"session":"\xff\xfe"}\n' >"$tmp/bad.jsonl"
if "$replay" "$tmp/bad.jsonl" -o "$tmp/bad.nvtxw" 2>"$tmp/err"; then
    fail "malformed: non-UTF-8"
else
    grep -q 'bad.jsonl:2:13: invalid UTF-8' "$tmp/err" && [ ! -e "$tmp/bad.nvtxw" ] &&
        pass "malformed: non-UTF-8" || fail "malformed: non-UTF-8: $(cat "$tmp/err")"
fi
# A 100 MB string is refused after 16 MiB: bounded memory, exit 1.
{
    printf '{"nvtxw_capture":1}\n{"session":"'
    head -c 100000000 /dev/zero | tr '\0' 'a'
    printf '"}\n'
} >"$tmp/big.jsonl"
if "$replay" "$tmp/big.jsonl" -o "$tmp/big.nvtxw" 2>"$tmp/err"; then
    fail "malformed: 100 MB string"
else
    grep -q 'big.jsonl:2:[0-9]*: a token .*longer than 16 MiB' "$tmp/err" && [ ! -e "$tmp/big.nvtxw" ] &&
        pass "malformed: 100 MB string" || fail "malformed: 100 MB string: $(cat "$tmp/err")"
fi
rm -f "$tmp/big.jsonl"
finish
