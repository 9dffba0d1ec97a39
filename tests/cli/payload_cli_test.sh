#!/usr/bin/env bash
# CLI golden tests of nvtxw-payload. Each golden output is first checked by
# tests/cli/payload_golden_check.py, which recomputes from the inputs alone
# (PyYAML and struct, not nvtxw) what it must say, then compared byte for byte
# with tests/cli/golden/<case>.out; the "mutant-*" cases show that check
# refusing a good output changed in one place. Exit codes and error messages
# are checked too. NVTXW_UPDATE_GOLDEN=1 rewrites each golden file whose
# output passes the check and then FAILS by design: review the diff, then run
# again without the variable. Needs python3 with PyYAML (else cases fail).
# Prints "N passed, M failed" and exits non-zero on any failure.
set -u
src=${top_srcdir:-.}
tool=${top_builddir:-.}/tools/payload/nvtxw-payload
golden=$src/tests/cli/golden
checker=$src/tests/cli/payload_golden_check.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0

pass() { passed=$((passed + 1)); echo "PASS: $1"; }
fail() { failed=$((failed + 1)); echo "FAIL: $1"; }

# golden_case NAME KIND INPUT... -- ARGS...: `nvtxw-payload ARGS` exits 0,
# its stdout passes `payload_golden_check.py KIND OUT INPUT...` and equals
# golden/NAME.out (update mode: rewrites it and fails).
golden_case() {
    local name=$1 kind=$2 check
    local inputs=()
    shift 2
    while [ "$1" != -- ]; do
        inputs+=("$1")
        shift
    done
    shift
    if ! "$tool" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"; then
        fail "$name: exit status $? ($(cat "$tmp/$name.err"))"
    elif ! check=$(python3 "$checker" "$kind" "$tmp/$name.out" "${inputs[@]}" 2>&1); then
        fail "$name: $check"
    elif [ "${NVTXW_UPDATE_GOLDEN:-0}" = 1 ]; then
        cp "$tmp/$name.out" "$golden/$name.out" &&
            fail "rewrote $golden/$name.out: review the diff, then run again without NVTXW_UPDATE_GOLDEN"
    elif diff -u "$golden/$name.out" "$tmp/$name.out"; then
        pass "$name"
    else
        fail "$name: output differs from $golden/$name.out"
    fi
}

# mutant_case NAME KIND SED WORDS INPUT...: golden_case NAME's output,
# changed by the sed expression SED, is refused by the check with WORDS.
mutant_case() {
    local name=$1 kind=$2 expr=$3 words=$4 check
    shift 4
    sed -e "$expr" "$tmp/$name.out" >"$tmp/$name.mutant"
    if cmp -s "$tmp/$name.out" "$tmp/$name.mutant"; then
        fail "mutant-$name: '$expr' changed nothing"
    elif check=$(python3 "$checker" "$kind" "$tmp/$name.mutant" "$@" 2>&1); then
        fail "mutant-$name: the check passed a changed output"
    elif [[ "$check" != *"$words"* ]]; then
        fail "mutant-$name: the check said: $check"
    else
        pass "mutant-$name"
    fi
}

# error_case NAME STATUS PATTERN ARGS...: exit STATUS, empty stdout, and a
# stderr line "nvtxw-payload: error: ..." matching PATTERN (extended regex).
error_case() {
    local name=$1 want=$2 pattern=$3 status
    shift 3
    "$tool" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
    status=$?
    if [ "$status" -ne "$want" ]; then
        fail "$name: exit status $status, expected $want ($(cat "$tmp/$name.err"))"
    elif [ -s "$tmp/$name.out" ]; then
        fail "$name: wrote to stdout on error"
    elif ! grep -Eq "^nvtxw-payload: error: .*$pattern" "$tmp/$name.err"; then
        fail "$name: stderr does not match /$pattern/: $(cat "$tmp/$name.err")"
    else
        pass "$name"
    fi
}

ex=$src/examples
helpers=$src/schemas/nvtxw-helpers.yaml
counters=$src/schemas/nvtxw-counters.yaml
event="gpu_op=hex:$ex/kernel-launch.hex double=hex:$ex/occupancy.hex"

hexes=("$ex/kernel.yaml" "$ex/kernel-launch.hex" "$ex/occupancy.hex")

golden_case check-shipped check "$helpers" "$counters" "$ex/kernel.yaml" -- \
    check "$helpers" "$counters" "$ex/kernel.yaml"
golden_case dump-example dump "$ex/kernel.yaml" -- dump "$ex/kernel.yaml"
# shellcheck disable=SC2086
golden_case decode-json decode-json "${hexes[@]}" -- decode -S "$ex/kernel.yaml" $event
# shellcheck disable=SC2086
golden_case decode-text decode-text "${hexes[@]}" -- decode -f text -S "$ex/kernel.yaml" $event
printf 'abc' >"$tmp/abc.bin"
printf '\001\000\000\000\376\377\377\377' >"$tmp/ints.bin"
golden_case decode-predefined decode-predefined "$tmp/abc.bin" "$tmp/ints.bin" -- \
    decode -f text cstring_utf8="$tmp/abc.bin" int32="$tmp/ints.bin"

mutant_case check-shipped check '1s/3 entries/4 entries/' \
    "FAIL check: line 1: want 'schema 4294967296 \"\": static, 16 bytes, align 8, 3 entries'" \
    "$helpers" "$counters" "$ex/kernel.yaml"
mutant_case dump-example dump 's/value: 2}/value: 3}/' \
    "FAIL dump: loads to other data than $ex/kernel.yaml" "$ex/kernel.yaml"
mutant_case decode-json decode-json 's/"size":70,/"size":71,/' \
    "FAIL decode-json: line 1: want '{\"count\":2,\"payloads\":[{\"index\":0,\"schemaId\":4294967298,\"size\":70," \
    "${hexes[@]}"
mutant_case decode-text decode-text 's/end=1012500/end=1012501/' \
    "FAIL decode-text: line 1: want '[0] gpu_op: start=1000000, end=1012500," "${hexes[@]}"
mutant_case decode-predefined decode-predefined 's/-2]/-3]/' \
    "FAIL decode-predefined: line 2: want '[1] INT32: <field_0>=[1, -2]', got '[1] INT32: <field_0>=[1, -3]'" \
    "$tmp/abc.bin" "$tmp/ints.bin"

# Dumping the dump reproduces it (load -> dump -> load -> dump is stable).
"$tool" dump "$ex/kernel.yaml" >"$tmp/d1.yaml" 2>&1 && "$tool" dump "$tmp/d1.yaml" >"$tmp/d2.yaml" 2>&1
if cmp -s "$tmp/d1.yaml" "$tmp/d2.yaml"; then pass dump-stable; else fail dump-stable; fi

# Bad input.
printf 'items:\n  - schema: {kind: static, entries: [{name: a, type: no_such_type}]}\n' >"$tmp/bad.yaml"
error_case bad-type 1 "bad.yaml:2:[0-9]+: .*no_such_type" check "$tmp/bad.yaml"
error_case missing-file 1 "no/such/file.yaml" check no/such/file.yaml
printf '40 42 0f\n' >"$tmp/short.hex"
error_case short-payload 1 "payload 0 .*gpu_op" decode -S "$ex/kernel.yaml" gpu_op=hex:"$tmp/short.hex"
printf '40 4g\n' >"$tmp/badhex.hex"
error_case bad-hex 1 "badhex.hex:1: 'g' is not a hex digit" decode int8=hex:"$tmp/badhex.hex"
error_case unknown-schema 2 "unknown schema or entry type \"nope\"" decode nope="$tmp/abc.bin"
error_case no-command 2 "no command given"
error_case unknown-command 2 "unknown command \"frobnicate\"" frobnicate
error_case bad-format 2 "unknown format \"xml\"" decode -f xml int8="$tmp/abc.bin"

# output_case NAME EXPECTED ARGS...: exit 0, stdout exactly EXPECTED (plus
# the newline), nothing on stderr.
output_case() {
    local name=$1 want=$2
    shift 2
    if ! "$tool" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"; then
        fail "$name: exit status $? ($(cat "$tmp/$name.err"))"
    elif [ "$(cat "$tmp/$name.out")" != "$want" ] || [ -s "$tmp/$name.err" ]; then
        fail "$name: got '$(cat "$tmp/$name.out")', stderr '$(cat "$tmp/$name.err")'"
    else
        pass "$name"
    fi
}

# Argument edge cases.
printf 'items:\n  - schema: {kind: static, entries: [{name: v, type: int8}]}\n' >"$tmp/unnamed.yaml"
error_case missing-schemas-value 2 "-S needs a value" decode -S
error_case missing-format-value 2 "--format needs a value" decode --format
error_case empty-schema 2 "\"=.*abc.bin\": SCHEMA is empty" decode -S "$tmp/unnamed.yaml" ="$tmp/abc.bin"
error_case empty-payload 2 "\"int8=\": PAYLOAD file name is empty" decode int8=
error_case empty-hex-payload 2 "PAYLOAD file name is empty" decode int8=hex:
error_case unknown-option 2 "unknown option \"-x\"" decode -x int8="$tmp/abc.bin"
error_case negative-id 2 "unknown schema or entry type \"-1\"" decode -1="$tmp/abc.bin"
error_case no-payloads-after-dashdash 2 "no SCHEMA=PAYLOAD given" decode --
error_case directory-payload 1 "cannot read .*: Is a directory" decode int8="$tmp"
error_case directory-schemas 1 "cannot read schema file: .*Is a directory" decode -S "$tmp" int8="$tmp/abc.bin"
printf '41\n\001\n' >"$tmp/ctrl.hex"
error_case bad-hex-byte 1 "ctrl.hex:2: byte 0x01 is not a hex digit" decode int8=hex:"$tmp/ctrl.hex"
printf '\001\000\000\000\000\000\000\000' >"$tmp/handle.bin"
output_case yaml-type-name "[0] NVTX_REGISTERED_STRING_HANDLE: <field_0>=<handle:1>" decode -f text registered_string="$tmp/handle.bin"
output_case long-format-option "[0] INT8: <field_0>=[97, 98, 99]" decode --format=text int8="$tmp/abc.bin"
output_case dashdash "[0] INT8: <field_0>=97" decode -f text -- int8=hex:<(echo 61)
: >"$tmp/empty.bin"
printf '# only\n  # comments\n\n' >"$tmp/comments.hex"
output_case empty-payload-file '{"count":1,"payloads":[]}' decode int8="$tmp/empty.bin"
output_case comments-only-hex '{"count":1,"payloads":[]}' decode int8=hex:"$tmp/comments.hex"
if "$tool" check --help | grep -q "^Usage: nvtxw-payload check"; then pass check-help; else fail check-help; fi
if "$tool" decode -f text --help | grep -q "^Usage:"; then pass decode-help; else fail decode-help; fi

# A payload file of exactly 64 MiB is accepted (a REFERENCED payload prints
# nothing), one byte more is not.
truncate -s 67108864 "$tmp/max.bin"
output_case max-payload '{"count":1,"payloads":[]}' decode 1022="$tmp/max.bin"
truncate -s 67108865 "$tmp/max.bin"
error_case huge-payload 1 "max.bin: payload file too large \(limit 64 MiB\)" decode raw="$tmp/max.bin"
rm -f "$tmp/max.bin"

# Errors leave stdout empty even after more output than any buffer holds.
head -c 20000 /dev/zero >"$tmp/zeros.bin"
error_case late-error-no-output 1 "payload 1 .*16777299" decode int8="$tmp/zeros.bin" 16777299="$tmp/abc.bin"

# A full disk is a failure (exit 1), not a silent success.
if [ -w /dev/full ]; then
    for cmd in "check $counters" "dump $counters" "decode int8=$tmp/abc.bin" "--help"; do
        # shellcheck disable=SC2086
        "$tool" $cmd >/dev/full 2>"$tmp/full.err"
        status=$?
        if [ "$status" -eq 1 ] && grep -q "^nvtxw-payload: error: cannot write standard output" "$tmp/full.err"; then
            pass "full-stdout ($cmd)"
        else
            fail "full-stdout ($cmd): exit $status, $(cat "$tmp/full.err")"
        fi
    done
fi
if "$tool" --help | grep -q "^Usage: nvtxw-payload check"; then pass help; else fail help; fi
if "$tool" --version | grep -Eq "^nvtxw-payload [0-9]+\.[0-9]+\.[0-9]+"; then pass version; else fail version; fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
