#!/usr/bin/env bash
# Reports of format 1 still read identically (docs/report-records.md,
# "Versions"). For every report in tests/data/format1/ (written by the last
# format-1 writer):
#   - its header says major 1, and the current reader's text and capture
#     dumps hash to what the format-1 reader printed (dumps.sha256);
#   - the same input written now is a format-2 report whose text and capture
#     dumps are byte for byte the format-1 report's, so the new encodings lose
#     nothing the old one kept.
# Prints "N passed, M failed".
set -u
build=${top_builddir:-.}
src=${top_srcdir:-.}
replay=$build/tools/replay/nvtxw-replay
data=$src/tests/data/format1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$src/tests/testlib.sh"

# name|input for nvtxw-replay (the commands that wrote the format-1 files)
INPUTS="capture-all|$src/tests/cli/data/capture-all.jsonl
demo|$src/examples/capture/demo.jsonl
mpi|--synthetic mpi:ranks=4,iterations=20
gpu|--synthetic gpu:threads=2,launches=100
nested|--synthetic nested:iterations=5
tasks|--synthetic tasks:tasks=100
pytorch|$src/tests/data/pytorch_trace.json"

major_of() { od -An -tu2 -j8 -N2 "$1" | tr -d ' '; }
hash_of() { sha256sum <"$1" | cut -d' ' -f1; }
expected_hash() { awk -v f="$1" '$2 == f { print $1 }' "$data/dumps.sha256"; }

check_dump() { # check_dump NAME KIND EXT: the format-1 report's dump hashes as recorded
    local name=$1 kind=$2 ext=$3 want got
    want=$(expected_hash "$name.$ext")
    if ! "$replay" "$data/$name.nvtxw" --to "$kind" -o "$tmp/$name-v1.$ext" 2>"$tmp/err"; then
        fail "$name: format-1 report does not replay to $kind: $(head -c 300 "$tmp/err")"
        return
    fi
    got=$(hash_of "$tmp/$name-v1.$ext")
    if [ -n "$want" ] && [ "$got" = "$want" ]; then
        pass "$name: format-1 $kind dump as the format-1 reader gave it"
    else
        fail "$name: format-1 $kind dump hashes to $got, expected ${want:-<missing>}"
    fi
}

check_rewrite() { # check_rewrite NAME INPUT...: the input now gives format 2 with equal dumps
    local name=$1 kind ext
    shift
    if ! "$replay" "$@" -o "$tmp/$name-v2.nvtxw" >/dev/null 2>"$tmp/err"; then
        fail "$name: cannot write the format-2 report: $(head -c 300 "$tmp/err")"
        return
    fi
    if [ "$(major_of "$tmp/$name-v2.nvtxw")" = 2 ]; then
        pass "$name: written now as format 2"
    else
        fail "$name: written now as format $(major_of "$tmp/$name-v2.nvtxw"), expected 2"
    fi
    for kind in text capture; do
        ext=txt && [ $kind = capture ] && ext=jsonl
        "$replay" "$tmp/$name-v2.nvtxw" --to $kind -o "$tmp/$name-v2.$ext" 2>"$tmp/err"
        if cmp -s "$tmp/$name-v1.$ext" "$tmp/$name-v2.$ext"; then
            pass "$name: format-2 $kind dump equals the format-1 one"
        else
            fail "$name: format-2 $kind dump differs from the format-1 one: $(diff "$tmp/$name-v1.$ext" "$tmp/$name-v2.$ext" | head -4 | tr '\n' ' ')"
        fi
    done
}

[ -x "$replay" ] || fatal "nvtxw-replay is not built ($replay)"
while IFS='|' read -r name input; do
    if [ "$(major_of "$data/$name.nvtxw")" = 1 ]; then
        pass "$name: test file is format 1"
    else
        fail "$name: test file is not format 1 (major $(major_of "$data/$name.nvtxw"))"
    fi
    check_dump "$name" text txt
    check_dump "$name" capture jsonl
    # shellcheck disable=SC2086 # the synthetic inputs are two words
    check_rewrite "$name" $input
done <<<"$INPUTS"
finish
