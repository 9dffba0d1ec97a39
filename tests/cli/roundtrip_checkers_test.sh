#!/usr/bin/env bash
# tests/cli/roundtrip_checkers_test.sh - the round-trip comparers can fail:
# tests/cli/chrome_norm.py (both modes) and tests/cli/capture_fields.py pass
# a good pair, then each deliberate corruption of the second file must make
# them exit 1 with a message naming the event (or line) and the field.
#   - chrome_norm.py, round trip: tests/cli/data/capture-payloads.yaml ->
#     report -> JSON A -> report -> JSON B (doubles, uint64, nested values,
#     arrays, counters); mutations of B.
#   - chrome_norm.py --input: tests/data/chrome_phases.json against its
#     import's JSON; mutations of the JSON.
#   - capture_fields.py: capture-payloads.yaml / capture-all.jsonl against
#     the captures written back from their reports; mutations of those.
set -u
build=${top_builddir:-.}
src=${top_srcdir:-.}
. "$src/tests/testlib.sh"
replay=$build/tools/replay/nvtxw-replay
norm=$src/tests/cli/chrome_norm.py
fields=$src/tests/cli/capture_fields.py
data=$src/tests/cli/data
tmp=$(mktemp -d "${TMPDIR:-/tmp}/checkers.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# mutate IN OUT OLD NEW: OUT is IN with the first OLD replaced by NEW (a
# mutation that changes nothing is a failure of this test, not a pass).
mutate() {
    python3 - "$@" <<'EOF'
import sys
src, dst, old, new = sys.argv[1:]
text = open(src, encoding="utf-8").read()
if old not in text:
    sys.exit("mutation target %r not in %s" % (old, src))
open(dst, "w", encoding="utf-8").write(text.replace(old, new, 1))
EOF
}

# caught NAME EXPECTED-TEXT... -- CMD...: CMD exits 1 and its stderr holds
# every EXPECTED-TEXT (fixed strings).
caught() {
    local name=$1 want=()
    shift
    while [ "$1" != -- ]; do want+=("$1"); shift; done
    shift
    "$@" >/dev/null 2>"$tmp/err"
    local rc=$? w
    if [ $rc != 1 ]; then
        fail "$name: exit $rc, not 1"
        return
    fi
    for w in "${want[@]}"; do
        if ! grep -qF -- "$w" "$tmp/err"; then
            fail "$name: no '$w' in: $(head -c 600 "$tmp/err")"
            return
        fi
    done
    pass "$name: $(grep -m1 -F -- "${want[0]}" "$tmp/err" | head -c 200)"
}

# rt NAME OLD NEW EXPECTED...: round-trip mode on B with OLD -> NEW.
rt() {
    local name=$1 old=$2 new=$3
    shift 3
    if mutate "$tmp/b.json" "$tmp/m.json" "$old" "$new" 2>"$tmp/err"; then
        caught "round trip: $name" "$@" -- python3 "$norm" "$tmp/a.json" "$tmp/m.json"
    else
        fail "round trip: $name: $(cat "$tmp/err")"
    fi
}

# ---- chrome_norm.py, round trip ----
"$replay" "$data/capture-payloads.yaml" -o "$tmp/p.nvtxw" 2>"$tmp/err" &&
    "$replay" "$tmp/p.nvtxw" -o "$tmp/a.json" 2>>"$tmp/err" &&
    "$replay" "$tmp/a.json" -o "$tmp/p2.nvtxw" 2>>"$tmp/err" &&
    "$replay" "$tmp/p2.nvtxw" -o "$tmp/b.json" 2>>"$tmp/err" ||
    fatal "capture-payloads.yaml round trip could not run: $(head -c 300 "$tmp/err")"
if python3 "$norm" "$tmp/a.json" "$tmp/b.json" 2>"$tmp/err"; then
    pass "round trip: the good pair passes ($(tail -n1 "$tmp/err"))"
else
    fail "round trip: the good pair passes: $(head -c 600 "$tmp/err")"
fi
step0='{"name":"step","cat":"lab","ph":"i","ts":0.006'
rt "an arg dropped" '"tag":"abc",' '' 'event #0 differs' 'field #2 named "tag", then "m"'
rt "an arg renamed" '"tag":"abc"' '"label":"abc"' 'event #0 differs' 'named "tag", then "label"'
rt "an int arg changed" '"n":2,' '"n":3,' 'event #1 differs' 'field "n": 2 (int), then 3 (int)'
rt "an int arg as a string" '"n":2,' '"n":"2",' 'field "n": 2 (int), then "2" (string)'
rt "an int arg as a float" '"n":2,' '"n":2.0,' 'field "n": 2 (int), then 2.0 (float)'
rt "a double's last digit" '"value":36.6' '"value":36.7' '"name": "temp"' \
    'field "value": 36.6 (float), then 36.7 (float)'
rt "a double as an int" '"value":36.6' '"value":37' 'field "value": 36.6 (float), then 37 (int)'
rt "a uint64 losing precision" '9007199254740993]' '9007199254740992]' 'event #4 differs' \
    'field "value": [18446744073709551615 (int), 9007199254740993 (int)] (array), then'
rt "a nested object flattened" '"where":{"x":0.1,"y":-2.5}' '"where.x":0.1,"where.y":-2.5' \
    'event #0 differs' 'named "where", then "where.x"'
rt "a nested value changed" '{"x":0.1,' '{"x":0.2,' 'event #0 differs' 'field "where"'
rt "one ts shifted" "$step0" '{"name":"step","cat":"lab","ph":"i","ts":0.005' 'event #0 differs' \
    'member ts: "0.006", then "0.005"'
# the args of the two "step" events swapped
python3 - "$tmp/b.json" "$tmp/swap.json" <<'EOF'
import sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
steps = [i for i, l in enumerate(lines) if l.startswith('{"name":"step"')]
a, b = steps
head = lambda l: l[:l.index(',"args":')]
tail = lambda l: l[l.index(',"args":'):]
lines[a], lines[b] = head(lines[a]) + tail(lines[b]), head(lines[b]) + tail(lines[a])
open(sys.argv[2], "w", encoding="utf-8").write("\n".join(lines))
EOF
caught "round trip: two events' args swapped" 'event #0 differs' 'field "where"' -- \
    python3 "$norm" "$tmp/a.json" "$tmp/swap.json"
python3 -c 'import sys; print("{\"traceEvents\":[]}")' >"$tmp/empty.json"
caught "round trip: no events is a failure" 'nothing compared' -- \
    python3 "$norm" "$tmp/empty.json" "$tmp/empty.json"

# ---- chrome_norm.py --input ----
phases=$src/tests/data/chrome_phases.json
"$replay" "$phases" -o "$tmp/ph.json" 2>"$tmp/err" || fatal "chrome_phases.json could not be imported"
if python3 "$norm" --input "$phases" "$tmp/ph.json" 2>"$tmp/err"; then
    pass "input: the good pair passes ($(tail -n1 "$tmp/err"))"
else
    fail "input: the good pair passes: $(head -c 600 "$tmp/err")"
fi
# inp NAME OLD NEW EXPECTED...: input mode on the import's JSON with OLD -> NEW.
inp() {
    local name=$1 old=$2 new=$3
    shift 3
    if mutate "$tmp/ph.json" "$tmp/m.json" "$old" "$new" 2>"$tmp/err"; then
        caught "input: $name" "$@" -- python3 "$norm" --input "$phases" "$tmp/m.json"
    else
        fail "input: $name: $(cat "$tmp/err")"
    fi
}
inp "an arg dropped" '"s":"x",' '' 'event "X one" at 10500 ns' 'field #2 named "s", then "b"'
inp "a uint64 losing precision" '"big":18446744073709551615' '"big":18446744073709551616' \
    'event "X one"' 'field "big": 18446744073709551615 (int), then 18446744073709551616 (int)'
inp "a bool left as a bool" '"b":1,' '"b":true,' 'field "b": 1 (int), then true (bool)'
inp "a double's last digit" '"f":0.5,' '"f":0.6,' 'field "f": 0.5 (float), then 0.6 (float)'
inp "a DOUBLE counter's 1 as an int" '"value":1.0}' '"value":1}' 'event "mem frac" at 26000 ns' \
    'field "value": 1.0 (float), then 1 (int)'
inp "a nested value changed" '{"k":[1,2]}' '{"k":[1,3]}' 'field "o"'
inp "the E's args lost" ',"args":{"result":7}' '' 'event "B one" at 20000 ns' \
    'field "result" = 7 (int) missing from the second'
inp "a flow lost" '{"name":"flow","cat":"f","ph":"s","ts":39.500,"pid":2,"tid":1,"id":"0x4d"},' '' \
    'event "send"' "flows [('flow_out', 77)] in the input, [] in the output"
inp "a bound flow shown as an arg" '"ph":"X","ts":39.500,"dur":1.000,"pid":2,"tid":1}' \
    '"ph":"X","ts":39.500,"dur":1.000,"pid":2,"tid":1,"args":{"flow_out":77}}' 'event "send"' \
    'field "flow_out" = 77 (int) only in the second'
inp "one ts shifted" '"name":"inst t","cat":"chrome","ph":"i","ts":11.500' \
    '"name":"inst t","cat":"chrome","ph":"i","ts":11.501' 'input event ["mark", 22000, "inst t"] has no output event'

# ---- capture_fields.py ----
"$replay" "$tmp/p.nvtxw" -o "$tmp/p.jsonl" 2>"$tmp/err" &&
    "$replay" "$data/capture-all.jsonl" -o "$tmp/all.nvtxw" 2>>"$tmp/err" &&
    "$replay" "$tmp/all.nvtxw" -o "$tmp/all.jsonl" 2>>"$tmp/err" ||
    fatal "captures could not be written back: $(head -c 300 "$tmp/err")"
for pair in "capture-payloads.yaml p.jsonl" "capture-all.jsonl all.jsonl"; do
    set -- $pair
    if python3 "$fields" "$data/$1" "$tmp/$2" 2>"$tmp/err"; then
        pass "capture: $1 passes ($(tail -n1 "$tmp/err"))"
    else
        fail "capture: $1 passes: $(head -c 600 "$tmp/err")"
    fi
done
# cap INPUT OUTPUT NAME OLD NEW EXPECTED...
cap() {
    local input=$1 output=$2 name=$3 old=$4 new=$5
    shift 5
    if mutate "$tmp/$output" "$tmp/m.jsonl" "$old" "$new" 2>"$tmp/err"; then
        caught "capture: $name" "$@" -- python3 "$fields" "$data/$input" "$tmp/m.jsonl"
    else
        fail "capture: $name: $(cat "$tmp/err")"
    fi
}
P=capture-payloads.yaml
cap $P p.jsonl "an array element changed" '"grid":[1,-2,32767]' '"grid":[1,-2,32766]' \
    "$P item 19 and" 'field grid[2]: 32767 (int), then 32766 (int)'
cap $P p.jsonl "an int as a string" '"n":2,' '"n":"2",' "$P item 20" "field n: 2 (int), then '2' (str)"
cap $P p.jsonl "a uint64 losing precision" '9007199254740993]' '9007199254740992]' \
    'value[1]: 9007199254740993 (int), then 9007199254740992 (int)'
cap $P p.jsonl "a double's last digit" '"x":0.10000000000000001' '"x":0.10000000000000002' \
    'field where.x: 0.1 (float), then 0.10000000000000002 (float)'
cap $P p.jsonl "a field dropped" '"tag":"abc",' '' "field tag = 'abc' missing from the output"
cap $P p.jsonl "a field renamed" '"tag":"abc",' '"tag2":"abc",' "field tag = 'abc' missing from the output"
cap $P p.jsonl "a string handle pointing elsewhere" '"ts":5,"label":1,' '"ts":5,"label":2,' \
    "field label: 'step', then '<unregistered handle 2>'"
cap $P p.jsonl "an enum value changed" '"m":2,' '"m":1,' 'field m: 2 (int), then 1 (int)'
cap $P p.jsonl "negative zero lost" '-0,"inf"' '0,"inf"' 'value[2]: -0.0 (float), then 0 (int)'
cap $P p.jsonl "a counter value changed" '"value":36.600000000000001' '"value":36.5' \
    'value: 36.6 (float), then 36.5 (float)'
cap $P p.jsonl "an absent field no longer 0" '"where":{"x":0,"y":0}' '"where":{"x":0,"y":1}' \
    'field where: absent (0), then'
cap capture-all.jsonl all.jsonl "a uint64 as a float" '"big":18446744073709551615' \
    '"big":18446744073709551616.0' 'field big: 18446744073709551615 (int), then 1.8446744073709552e+19 (float)'
finish
