#!/usr/bin/env bash
# Capture files (docs/capture-format.md): a hand-written JSON Lines capture
# replayed into text, lossless round trips report -> capture -> report ->
# capture on hello_producer's report, the hand-written one and the nested
# synthetic workload (payloads with pointers, relocated), and
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
    local name=${1// /-} report=$2
    if "$replay" "$report" -o "$tmp/$name-A.jsonl" 2>"$tmp/err" &&
        "$replay" "$tmp/$name-A.jsonl" -o "$tmp/$name-2.nvtxw" 2>>"$tmp/err" &&
        "$replay" "$tmp/$name-2.nvtxw" --to capture -o "$tmp/$name-B.jsonl" 2>>"$tmp/err" &&
        cmp -s "$tmp/$name-A.jsonl" "$tmp/$name-B.jsonl" &&
        "$replay" "$report" --to text -o "$tmp/$name-1.txt" &&
        "$replay" "$tmp/$name-2.nvtxw" --to text -o "$tmp/$name-2.txt" &&
        cmp -s "$tmp/$name-1.txt" "$tmp/$name-2.txt"; then
        pass "round trip: $1"
    else
        fail "round trip: $1: $(head -c 300 "$tmp/err")"
    fi
}

# golden NAME CAPTURE: the capture replayed into text equals CAPTURE's .txt.
golden() {
    local name=$1 capture=$2
    if "$replay" "$capture" --to text -o "$tmp/$name.txt" 2>"$tmp/err" &&
        diff -u "${capture%.*}.txt" "$tmp/$name.txt" >"$tmp/diff"; then
        pass "golden text: $name"
    else
        fail "golden text: $name: $(head -c 300 "$tmp/err") $(head -c 600 "$tmp/diff")"
    fi
}

# Hand-written captures: every line kind (JSON Lines) and every payload
# form (YAML), into text, then round trips through reports.
golden lines "$data/capture-all.jsonl"
golden payloads "$data/capture-payloads.yaml"
"$replay" "$data/capture-all.jsonl" -o "$tmp/all.nvtxw" 2>/dev/null
round_trip hand-written-lines "$tmp/all.nvtxw"
"$replay" "$data/capture-payloads.yaml" -o "$tmp/payloads.nvtxw" 2>/dev/null
round_trip hand-written-payloads "$tmp/payloads.nvtxw"
# Payload field values of the hand-written captures against the captures
# written back from their reports, both parsed in python
# (tests/cli/capture_fields.py): the goldens above come from the code under
# test, this comparison does not.
for pair in "lines capture-all.jsonl" "payloads capture-payloads.yaml"; do
    set -- $pair
    if python3 "$src/tests/cli/capture_fields.py" "$data/$2" "$tmp/hand-written-$1-A.jsonl" 2>"$tmp/err"; then
        pass "field values: $2 -> report -> capture ($(tail -n1 "$tmp/err"))"
    else
        fail "field values: $2 -> report -> capture: $(head -c 1500 "$tmp/err")"
    fi
done
# The YAML capture written back as JSON Lines replays to the same text.
if "$replay" "$tmp/hand-written-payloads-A.jsonl" --to text -o "$tmp/payloads-again.txt" 2>"$tmp/err" &&
    diff -u "$data/capture-payloads.txt" "$tmp/payloads-again.txt" >"$tmp/diff"; then
    pass "YAML capture -> report -> capture -> text is stable"
else
    fail "YAML capture -> report -> capture -> text is stable: $(head -c 600 "$tmp/diff")"
fi
# The two examples of docs/capture-format.md replay, to the same text.
sed -n '/^```json/,/^```$/p' "$src/docs/capture-format.md" | sed '1d;$d' >"$tmp/doc.jsonl"
sed -n '/^```yaml/,/^```$/p' "$src/docs/capture-format.md" | sed '1d;$d' >"$tmp/doc.yaml"
if "$replay" "$tmp/doc.jsonl" --to text -o "$tmp/doc1.txt" 2>"$tmp/err" &&
    "$replay" "$tmp/doc.yaml" --to text -o "$tmp/doc2.txt" 2>>"$tmp/err" &&
    cmp -s "$tmp/doc1.txt" "$tmp/doc2.txt" &&
    grep -qx '  \[0\] my_range: begin=10, end=20, message="x"' "$tmp/doc1.txt"; then
    pass "the documented JSON Lines and YAML examples agree"
else
    fail "the documented JSON Lines and YAML examples agree: $(head -c 300 "$tmp/err")"
fi

# YAML: the header as the first item of a list, and after a comment and a
# document marker; both are recognized as captures (capture_sniff).
printf -- '- nvtxw_capture: 1\n- session: listed\n- {domain: "", stream_open: s}\n' >"$tmp/list.yaml"
printf -- '# a comment\n---\n{nvtxw_capture: 1}\n---\nsession: flow\n' >"$tmp/flow.yaml"
if "$replay" "$tmp/list.yaml" --to text -o "$tmp/list.txt" 2>"$tmp/err" &&
    "$replay" "$tmp/flow.yaml" --to text -o "$tmp/flow.txt" 2>>"$tmp/err" &&
    grep -qx 'stream_open "s" domain="" scope=0 time_domain=0 ordering=0/0/0/0' "$tmp/list.txt" &&
    grep -qx 'session "flow"' "$tmp/flow.txt"; then
    pass "YAML header spellings"
else
    fail "YAML header spellings: $(head -c 300 "$tmp/err")"
fi

# JSON escapes, a surrogate pair (as Python's json.dumps writes U+1F600)
# and raw UTF-8 read back as the same text.
printf '%s\n' '{"nvtxw_capture":1}' '{"domain":"","string":"\u00e9 \ud83d\ude00 \"q\" \\ \/ \t é"}' >"$tmp/esc.jsonl"
if "$replay" "$tmp/esc.jsonl" --to text -o "$tmp/esc.txt" 2>"$tmp/err" &&
    grep -qF 'text="é 😀 \"q\" \\ / \t é"' "$tmp/esc.txt"; then
    pass "JSON escapes and surrogate pairs"
else
    fail "JSON escapes and surrogate pairs: $(head -c 300 "$tmp/err") $(grep text= "$tmp/esc.txt")"
fi
# Every written line is JSON (jq-readable), not just flow YAML.
if python3 -c 'import json,sys
for f in sys.argv[1:]:
    for line in open(f, encoding="utf-8"):
        json.loads(line)' "$tmp"/*-A.jsonl 2>"$tmp/err"; then
    pass "written captures are JSON Lines"
else
    fail "written captures are JSON Lines: $(head -c 300 "$tmp/err")"
fi

# The demo capture (examples/capture/demo.jsonl) into Chrome JSON: three
# threads, four flows bound start to end, counter samples and marks.
if "$replay" "$src/examples/capture/demo.jsonl" -o "$tmp/demo.json" 2>"$tmp/err" &&
    python3 -c 'import json,sys,collections
d = json.load(open(sys.argv[1]))
ph = collections.Counter(e["ph"] for e in d["traceEvents"])
ids = lambda p: sorted(e["id"] for e in d["traceEvents"] if e["ph"] == p)
threads = {e["args"]["name"] for e in d["traceEvents"] if e["ph"] == "M" and e["name"] == "thread_name"}
sys.exit(0 if ph["s"] == 4 and ids("s") == ids("f") and ph["C"] == 3 and ph["i"] == 3
         and {"main", "worker-1", "worker-2"} <= threads else 1)' "$tmp/demo.json"; then
    pass "demo capture: threads, flows, counter and marks in Chrome JSON"
else
    fail "demo capture: threads, flows, counter and marks in Chrome JSON: $(head -c 300 "$tmp/err")"
fi

NVTXW3_LIBRARY=$build/libnvtxw/.libs/libnvtxw3.so "$build/examples/hello_producer" "$tmp/hello.nvtxw" >/dev/null ||
    fatal "hello_producer could not write the report"
round_trip hello "$tmp/hello.nvtxw"
if "$replay" "$tmp/hello.nvtxw" --to capture -o "$tmp/hello-c.jsonl" &&
    [ "$(grep -c '"event":\[' "$tmp/hello-c.jsonl")" = 6000 ] &&
    [ "$(grep -c '"counter_sample":' "$tmp/hello-c.jsonl")" = 1000 ]; then
    pass "hello: 6000 events and 1000 samples in the capture"
else
    fail "hello: 6000 events and 1000 samples in the capture"
fi

# The nested workload: every payload entry type, a pointer string into a
# REFERENCED payload, an offset-from-base string. Its events are written
# relocated (hex plus "pointers"); the REFERENCED payload is kept.
for spec in "seed=1" "seed=2,payload_every=1,iterations=40" "seed=7,payload_every=1,iterations=40" \
    "seed=12345,payload_every=1,threads=1,domains=2,iterations=60"; do
    if "$replay" --synthetic "nested:$spec" -o "$tmp/nested.nvtxw" 2>"$tmp/err"; then
        round_trip "nested $spec" "$tmp/nested.nvtxw"
    else
        fail "nested $spec: generation failed: $(head -c 300 "$tmp/err")"
    fi
done
nested=$tmp/nested-seed=12345,payload_every=1,threads=1,domains=2,iterations=60
samples=$(grep -o '"schema":"synthetic_everything"' "$nested-A.jsonl" | wc -l)
one='{"schema":"synthetic_everything","hex":"[0-9a-f]*","pointers":\[\[[0-9]*,2,0\]\]},'
one=$one'{"schema":"synthetic_variable","hex":"[0-9a-f]*"},'
one=$one'{"schema":1022,"hex":"706f696e7465642d746f20737472696e6700"},'
one=$one'{"schema":"uint32","hex":"0[0-9a-f]000000"}'
if [ "$samples" -gt 10 ] && [ "$(grep -o "$one" "$nested-A.jsonl" | wc -l)" = "$samples" ] &&
    [ "$(grep -c 'pointed-to string' "$nested-2.txt")" = "$samples" ]; then
    pass "nested: $samples payload samples relocated, the pointed-to string read back"
else
    fail "nested: $samples payload samples relocated, the pointed-to string read back"
fi

# A hand-written relocated payload: a pointer string into a REFERENCED
# payload, and a NULL pointer (no item), read back as text.
ptr_schema='{"domain":"","schema":{"name":"ps","kind":"static","role":"mark","entries":[{"name":"ts","type":"int64","semantic":"timestamp"},{"name":"p","type":"cstring_utf8","flags":["pointer"]},{"name":"q","type":"cstring_utf8","flags":["pointer"]}]}}'
zeros=$(printf '00%.0s' $(seq 1 "$(($(getconf LONG_BIT) / 8))"))
{
    echo '{"nvtxw_capture":1}'
    echo '{"domain":"","stream_open":"s"}'
    echo "$ptr_schema"
    echo '{"stream":"s","event":[{"schema":"ps","hex":"0500000000000000'"$zeros$zeros"'","pointers":[[8,1,2]]},{"schema":1022,"hex":"2d2d72656c6f636174656400"}]}'
} >"$tmp/ptr.jsonl"
if "$replay" "$tmp/ptr.jsonl" --to text -o "$tmp/ptr.txt" 2>"$tmp/err" &&
    grep -q 'ps: ts=5, p="relocated", q=null' "$tmp/ptr.txt"; then
    pass "relocated payload by hand: the pointer reads its target, NULL stays NULL"
else
    fail "relocated payload by hand: $(head -c 300 "$tmp/err") $(head -c 600 "$tmp/ptr.txt")"
fi

# OTF2 archives through the importer: enums, many schemas, scopes, counters,
# conversions. In every build configured with OTF2 (NVTXW_HAVE_OTF2,
# tests/local.mk) a missing importer fails; a build configured without it
# leaves these out, and `make check` names them under "not run:".
otf2=${NVTXW_OTF2_TEST_DATA:-}
import=$build/tools/otf2-import/nvtxw-otf2-import
if [ "${NVTXW_HAVE_OTF2:-yes}" = no ]; then
    echo "not run: the OTF2 round trips (this build has no OTF2)"
elif [ -x "$import" ]; then
    [ -n "$otf2" ] && [ -d "$otf2" ] || fatal "NVTXW_OTF2_TEST_DATA is not set or not a folder"
    for archive in "$otf2"/*/traces.otf2; do
        name=$(basename "$(dirname "$archive")")
        if "$import" "$archive" -o "$tmp/$name.nvtxw" >/dev/null 2>"$tmp/err"; then
            round_trip "otf2 $name" "$tmp/$name.nvtxw"
        else
            fail "otf2 import $name: $(head -c 300 "$tmp/err")"
        fi
        rm -f "$tmp/$name"*
    done
else
    fail "no OTF2 importer in this build ($import): the OTF2 round trips cannot run"
fi

# bad NAME REGEX CONTENT: the capture fails with exit 1, a message matching
# REGEX (file:line:column), and no output file; the same message when every
# line goes through libyaml (NVTXW_CAPTURE_PARSER=libyaml, the reader before
# yajl read the lines it may: tools/replay/capture/capture_jsonl.c).
bad() {
    local name=$1 regex=$2
    printf '%s\n' "$3" >"$tmp/bad.jsonl"
    "$replay" "$tmp/bad.jsonl" -o "$tmp/bad.nvtxw" 2>"$tmp/err"
    local rc=$?
    NVTXW_CAPTURE_PARSER=libyaml "$replay" "$tmp/bad.jsonl" -o "$tmp/bad.nvtxw" 2>"$tmp/err-libyaml"
    if [ $rc = 1 ] && grep -Eq "$regex" "$tmp/err" && [ ! -e "$tmp/bad.nvtxw" ] &&
        cmp -s "$tmp/err" "$tmp/err-libyaml"; then
        pass "malformed: $name"
    else
        fail "malformed: $name (exit $rc): $(head -c 300 "$tmp/err") libyaml alone: $(head -c 300 "$tmp/err-libyaml")"
    fi
}
head='{"nvtxw_capture":1}
{"domain":"","stream_open":"s"}'
bad "truncated line" 'bad.jsonl:3:[0-9]+: line ends inside this flow (sequence|mapping)' "$head
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
bad "future version" 'bad.jsonl:1:[0-9]+: capture format version 2 is not supported' '{"nvtxw_capture":2}'
bad "unknown domain" 'bad.jsonl:2:[0-9]+: unknown domain "nope"' '{"nvtxw_capture":1}
{"domain":"nope","category":1,"name":"x"}'
bad "unknown line kind" 'bad.jsonl:2:[0-9]+: unknown line kind "evnt"' '{"nvtxw_capture":1}
{"evnt":1}'
bad "unknown schema name" 'bad.jsonl:3:[0-9]+: unknown schema "nope"' "$head
{\"stream\":\"s\",\"event\":[{\"schema\":\"nope\",\"a\":1}]}"
bad "stream opened twice" 'bad.jsonl:3:[0-9]+: stream "s" is already open' "$head
{\"domain\":\"\",\"stream_open\":\"s\"}"
bad "bad hex" 'bad.jsonl:3:[0-9]+: hex: bad hex digit' "$head
{\"stream\":\"s\",\"event\":[{\"schema\":\"int64\",\"hex\":\"zz\"}]}"
bad "list where a mapping belongs" 'bad.jsonl:3:[0-9]+: wrong type for a payload' "$head
{\"stream\":\"s\",\"event\":[[1]]}"
bad "two objects on a line" 'bad.jsonl:3:[0-9]+:' "$head
{\"stream_close\":\"s\"} {\"stream_close\":\"s\"}"
bad "config choosing the output" 'bad.jsonl:2:[0-9]+: config key "Output" is not allowed' '{"nvtxw_capture":1}
{"session":"s","config":"Compression=1|Output=/tmp/elsewhere"}'
bad "duplicate field" 'bad.jsonl:4:[0-9]+: duplicate field "a"' "$head
{\"domain\":\"\",\"schema\":{\"name\":\"p\",\"kind\":\"static\",\"entries\":[{\"name\":\"a\",\"type\":\"int32\"}]}}
{\"stream\":\"s\",\"event\":[{\"schema\":\"p\",\"a\":1,\"a\":2}]}"
# Duplicate keys, wherever they are (JSON allows them; captures do not).
bad "duplicate domain (unregistered)" 'bad.jsonl:2:15: a line has either "domain" or "stream", once' \
    '{"nvtxw_capture":1}
{"domain":"a","domain":"b"}'
bad "duplicate domain (default)" 'bad.jsonl:3:14: a line has either "domain" or "stream", once' "$head
{\"domain\":\"\",\"domain\":\"\",\"category\":1,\"name\":\"x\"}"
bad "domain and stream" 'bad.jsonl:2:15: a line has either "domain" or "stream", once' \
    '{"nvtxw_capture":1}
{"domain":"a","stream":"b"}'
bad "duplicate kind key" 'bad.jsonl:2:[0-9]+: duplicate key "session"' '{"nvtxw_capture":1}
{"session":"x","session":"y"}'
bad "duplicate header key" 'bad.jsonl:1:[0-9]+: duplicate key "nvtxw_capture"' \
    '{"nvtxw_capture":1,"nvtxw_capture":1}'
bad "duplicate attribute" 'bad.jsonl:3:[0-9]+: duplicate key "name"' "$head
{\"domain\":\"\",\"category\":1,\"name\":\"x\",\"name\":\"y\"}"
bad "duplicate schema key" 'bad.jsonl:3:[0-9]+: duplicate key "name" in schema' "$head
{\"domain\":\"\",\"schema\":{\"name\":\"p\",\"name\":\"q\",\"kind\":\"static\",\"entries\":[{\"name\":\"a\",\"type\":\"int32\"}]}}"
bad "duplicate entry key" 'bad.jsonl:3:[0-9]+: duplicate key "type" in entry' "$head
{\"domain\":\"\",\"schema\":{\"name\":\"p\",\"kind\":\"static\",\"entries\":[{\"name\":\"a\",\"type\":\"int32\",\"type\":\"int8\"}]}}"
bad "value out of the field's range" 'bad.jsonl:4:[0-9]+: a: value 300 out of range' "$head
{\"domain\":\"\",\"schema\":{\"name\":\"p\",\"kind\":\"static\",\"entries\":[{\"name\":\"a\",\"type\":\"uint8\"}]}}
{\"stream\":\"s\",\"event\":[{\"schema\":\"p\",\"a\":300}]}"
# The same as a batch event (scope): the second payload is its flexData.
{
    head -n 3 "$tmp/ptr.jsonl"
    echo '{"domain":"","scope":"/node/x","parent":0,"id":16777300}'
    echo '{"stream":"s","event":[{"schema":"ps","hex":"0500000000000000'"$zeros$zeros"'","pointers":[[8,1,2],[16,1,0]]},{"schema":1022,"hex":"2d2d72656c6f636174656400"}],"scope":16777300}'
} >"$tmp/ptr-batch.jsonl"
if "$replay" "$tmp/ptr-batch.jsonl" --to text -o "$tmp/ptr-batch.txt" 2>"$tmp/err" &&
    grep -q 'ps: ts=5, p="relocated", q="--relocated"' "$tmp/ptr-batch.txt" &&
    grep -q '^event stream="s" ts=5 scope=16777300' "$tmp/ptr-batch.txt"; then
    pass "relocated batch event: pointers into flexData"
else
    fail "relocated batch event: $(head -c 300 "$tmp/err") $(head -c 600 "$tmp/ptr-batch.txt")"
fi
ptr_line() { # PAYLOADS: an event line of stream s
    printf '{"stream":"s","event":[%s]}' "$1"
}
ptr_head="$head
$ptr_schema"
ptr_zero="{\"schema\":\"ps\",\"hex\":\"$zeros$zeros$zeros\""
bad "pointer into a missing payload" 'bad.jsonl:4:[0-9]+: pointer into payload 5: the event has 2' "$ptr_head
$(ptr_line "$ptr_zero,\"pointers\":[[8,5,0]]},{\"schema\":1022,\"hex\":\"6100\"}")"
bad "pointer beyond its target" 'bad.jsonl:4:[0-9]+: pointer to byte 2 of payload 1, which has 2 bytes' "$ptr_head
$(ptr_line "$ptr_zero,\"pointers\":[[8,1,2]]},{\"schema\":1022,\"hex\":\"6100\"}")"
bad "pointer slot beyond the payload" 'bad.jsonl:4:[0-9]+: pointer slot at byte 20 does not fit' "$ptr_head
$(ptr_line "$ptr_zero,\"pointers\":[[20,1,0]]},{\"schema\":1022,\"hex\":\"6100\"}")"
bad "pointer of two numbers" 'bad.jsonl:4:[0-9]+: wrong type for pointer offset' "$ptr_head
$(ptr_line "$ptr_zero,\"pointers\":[[8,1]]}")"
bad "pointers without hex" 'bad.jsonl:4:[0-9]+: unknown field "pointers"' "$ptr_head
$(ptr_line '{"schema":"ps","pointers":[[8,1,0]]}')"
bad "pointers after a value" 'bad.jsonl:3:[0-9]+: a value payload has nothing else' "$head
$(ptr_line '{"schema":"int64","value":1,"pointers":[[0,0,0]]}')"
bad "header with an unknown key" 'bad.jsonl:1:[0-9]+: unknown key "x"' '{"nvtxw_capture":1,"x":2}'
printf '{"nvtxw_capture":1}\n{"session":"\xff\xfe"}\n' >"$tmp/bad.jsonl"
if "$replay" "$tmp/bad.jsonl" -o "$tmp/bad.nvtxw" 2>"$tmp/err"; then
    fail "malformed: non-UTF-8"
else
    grep -q 'bad.jsonl:2:13: invalid UTF-8' "$tmp/err" && [ ! -e "$tmp/bad.nvtxw" ] &&
        pass "malformed: non-UTF-8" || fail "malformed: non-UTF-8: $(cat "$tmp/err")"
fi
# Characters libyaml's reader refuses are named with their position.
printf '{"nvtxw_capture":1}\n{"session":"a\x7f"}\n' >"$tmp/bad.jsonl"
printf '{"nvtxw_capture":1}\n{"session":"\xc2\x9f"}\n' >"$tmp/bad2.jsonl"
printf 'nvtxw_capture: 1\nsession: "\xef\xbf\xbf"\n' >"$tmp/bad3.yaml"
"$replay" "$tmp/bad.jsonl" -o "$tmp/bad.nvtxw" 2>"$tmp/err"
"$replay" "$tmp/bad2.jsonl" -o "$tmp/bad.nvtxw" 2>>"$tmp/err"
"$replay" "$tmp/bad3.yaml" -o "$tmp/bad.nvtxw" 2>>"$tmp/err"
printf '{"nvtxw_capture":1}\n{"session":"a\x80b"}\n' >"$tmp/bad4.jsonl" # a stray continuation byte
printf '{"nvtxw_capture":1}\n{"session":"a\xc3b"}\n' >"$tmp/bad5.jsonl" # a sequence cut by "b"
"$replay" "$tmp/bad4.jsonl" -o "$tmp/bad.nvtxw" 2>>"$tmp/err"
"$replay" "$tmp/bad5.jsonl" -o "$tmp/bad.nvtxw" 2>>"$tmp/err"
if grep -q 'bad.jsonl:2:14: control character in the input' "$tmp/err" &&
    grep -q 'bad4.jsonl:2:14: invalid UTF-8' "$tmp/err" &&
    grep -q 'bad5.jsonl:2:14: invalid UTF-8' "$tmp/err" &&
    grep -q 'bad2.jsonl:2:13: control character in the input' "$tmp/err" &&
    grep -q 'bad3.yaml:2:11: noncharacter U+FFFE or U+FFFF in the input' "$tmp/err" &&
    [ ! -e "$tmp/bad.nvtxw" ]; then
    pass "malformed: DEL, C1 controls, noncharacters and bad UTF-8 named where they are"
else
    fail "malformed: DEL, C1 controls, noncharacters and bad UTF-8 named where they are: $(cat "$tmp/err")"
fi
if NVTXW_CAPTURE_PARSER=fast "$replay" "$src/examples/capture/demo.jsonl" --to null 2>"$tmp/err"; then
    fail "NVTXW_CAPTURE_PARSER=fast is refused"
else
    grep -q "NVTXW_CAPTURE_PARSER='fast': expected libyaml or auto" "$tmp/err" &&
        pass "NVTXW_CAPTURE_PARSER=fast is refused" ||
        fail "NVTXW_CAPTURE_PARSER=fast is refused: $(cat "$tmp/err")"
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
