#!/usr/bin/env bash
# CLI golden tests of nvtxw-payload: outputs are compared byte for byte with
# tests/cli/golden/<case>.out, exit codes and error messages are checked.
# NVTXW_UPDATE_GOLDEN=1 rewrites the golden files instead (review the diff).
# Prints "N passed, M failed" and exits non-zero on any failure.
set -u
src=${top_srcdir:-.}
tool=${top_builddir:-.}/tools/payload/nvtxw-payload
golden=$src/tests/cli/golden
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0

pass() { passed=$((passed + 1)); echo "PASS: $1"; }
fail() { failed=$((failed + 1)); echo "FAIL: $1"; }

# golden_case NAME ARGS...: exit 0 and stdout equal to golden/NAME.out.
golden_case() {
    local name=$1
    shift
    if ! "$tool" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"; then
        fail "$name: exit status $? ($(cat "$tmp/$name.err"))"
    elif [ "${NVTXW_UPDATE_GOLDEN:-0}" = 1 ]; then
        cp "$tmp/$name.out" "$golden/$name.out" && pass "$name (golden updated)"
    elif diff -u "$golden/$name.out" "$tmp/$name.out"; then
        pass "$name"
    else
        fail "$name: output differs from $golden/$name.out"
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

golden_case check-shipped check "$helpers" "$counters" "$ex/kernel.yaml"
golden_case dump-example dump "$ex/kernel.yaml"
# shellcheck disable=SC2086
golden_case decode-json decode -S "$ex/kernel.yaml" $event
# shellcheck disable=SC2086
golden_case decode-text decode -f text -S "$ex/kernel.yaml" $event
printf 'abc' >"$tmp/abc.bin"
printf '\001\000\000\000\376\377\377\377' >"$tmp/ints.bin"
golden_case decode-predefined decode -f text cstring_utf8="$tmp/abc.bin" int32="$tmp/ints.bin"

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
if "$tool" --help | grep -q "^Usage: nvtxw-payload check"; then pass help; else fail help; fi
if "$tool" --version | grep -Eq "^nvtxw-payload [0-9]+\.[0-9]+\.[0-9]+"; then pass version; else fail version; fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
