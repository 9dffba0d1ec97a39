#!/usr/bin/env bash
# Reports of every earlier writer still read identically (docs/report-records.md,
# "Versions"). Each folder of tests/data/ below holds the same seven inputs
# as written by one writer, never regenerated:
#   format1        the last format-1 writer
#   format2-early  format 2 before index markers and the session's own chunk
#   format2        format 2 as written today (the golden set for later versions)
# For every report:
#   - its header has the folder's major version, and the current reader's text
#     and capture dumps hash to what the reader of its time printed
#     (dumps.sha256 of the folder);
#   - the same input written now is a format-2 report whose text and capture
#     dumps are byte for byte the old report's (less the producers' changes
#     since, undone by since_golden), so the new encodings lose nothing the
#     old ones kept;
#   - format 2: a byte flipped in any registration chunk after the first
#     costs only that chunk: the report opens, says where and why, reads no
#     more events than the undamaged one, and reports no malformed record.
# Prints "N passed, M failed".
set -u
build=${top_builddir:-.}
src=${top_srcdir:-.}
replay=$build/tools/replay/nvtxw-replay
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$src/tests/testlib.sh"

# name|input for nvtxw-replay (the commands that wrote every folder's files)
INPUTS="capture-all|$src/tests/cli/data/capture-all.jsonl
demo|$src/examples/capture/demo.jsonl
mpi|--synthetic mpi:ranks=4,iterations=20
gpu|--synthetic gpu:threads=2,launches=100
nested|--synthetic nested:iterations=5
tasks|--synthetic tasks:tasks=100
pytorch|$src/tests/data/pytorch_trace.json"

# folder|major
SETS="format1|1
format2-early|2
format2|2"

u16_at() { od -An -tu2 -j"$2" -N2 "$1" | tr -d ' '; }
u32_at() { od -An -tu4 -j"$2" -N4 "$1" | tr -d ' '; }
hash_of() { sha256sum <"$1" | cut -d' ' -f1; }
events_in() { grep -c '^event' "$1"; }

check_dump() { # check_dump SET NAME KIND EXT: the old report's dump hashes as recorded
    local set=$1 name=$2 kind=$3 ext=$4 want got
    want=$(awk -v f="$name.$ext" '$2 == f { print $1 }' "$src/tests/data/$set/dumps.sha256")
    if ! "$replay" "$src/tests/data/$set/$name.nvtxw" --to "$kind" -o "$tmp/$name-old.$ext" \
        2>"$tmp/err"; then
        fail "$set/$name: does not replay to $kind: $(head -c 300 "$tmp/err")"
        return
    fi
    got=$(hash_of "$tmp/$name-old.$ext")
    if [ -n "$want" ] && [ "$got" = "$want" ]; then
        pass "$set/$name: $kind dump as the reader of its time gave it"
    else
        fail "$set/$name: $kind dump hashes to $got, expected ${want:-<missing>}"
    fi
}

# since_golden NAME FILE: undoes in FILE, a dump of the report written now,
# what a producer changes on purpose since the golden reports were written
# (each with its reason), so that everything else must still be equal.
since_golden() {
    case $1 in
    pytorch) # the Chrome input hides the flow fields it binds (docs/chrome-input.md,
        # Payloads 4) and marks its args' objects and arrays as JSON text (Payloads 3)
        sed -i -E -e 's/("name":"flow_(out|in)"),"flags":\[512\]/\1/g' -e 's/,"json":true//g' "$2" ;;
    esac
}

check_rewrite() { # check_rewrite SET NAME INPUT...: written now, format 2 with equal dumps
    local set=$1 name=$2 kind ext
    shift 2
    if ! "$replay" "$@" -o "$tmp/$name-now.nvtxw" >/dev/null 2>"$tmp/err"; then
        fail "$set/$name: cannot write the report now: $(head -c 300 "$tmp/err")"
        return
    fi
    for kind in text capture; do
        ext=txt && [ $kind = capture ] && ext=jsonl
        "$replay" "$tmp/$name-now.nvtxw" --to $kind -o "$tmp/$name-now.$ext" 2>"$tmp/err"
        since_golden "$name" "$tmp/$name-now.$ext"
        if cmp -s "$tmp/$name-old.$ext" "$tmp/$name-now.$ext"; then
            pass "$set/$name: the $kind dump of the report written now equals the old one"
        else
            fail "$set/$name: the $kind dump of the report written now differs: $(diff "$tmp/$name-old.$ext" "$tmp/$name-now.$ext" | head -4 | tr '\n' ' ')"
        fi
    done
}

# Offsets and stored sizes of the registration chunks (kind 1) after the
# first, walking the chunk headers (docs/report-format.md: 64-byte header
# after the file header, span align8(64 + stored_size)).
registration_chunks() {
    local file=$1 pos size kind stored
    size=$(stat -c %s "$file")
    pos=$(u32_at "$file" 12) # header_size of the file header
    while [ $((pos + 64)) -le "$size" ] && [ "$(u32_at "$file" "$pos")" = 1262704206 ]; do
        kind=$(u32_at "$file" $((pos + 8)))
        stored=$(u32_at "$file" $((pos + 40)))
        [ "$kind" = 1 ] && echo "$pos $stored"
        pos=$(((pos + 64 + stored + 7) / 8 * 8))
    done | tail -n +2
}

check_damage() { # check_damage SET NAME: one flipped byte per registration chunk
    local set=$1 name=$2 file=$src/tests/data/$1/$2.nvtxw full pos stored n chunks=0
    full=$(events_in "$tmp/$name-old.txt")
    while read -r pos stored; do
        chunks=$((chunks + 1))
        cp "$file" "$tmp/flip.nvtxw"
        local at=$((pos + 64 + stored / 2)) byte
        byte=$(od -An -tu1 -j"$at" -N1 "$file" | tr -d ' ')
        printf '%b' "\\0$(printf '%03o' $((byte ^ 255)))" |
            dd of="$tmp/flip.nvtxw" bs=1 seek="$at" conv=notrunc status=none
        if ! "$replay" "$tmp/flip.nvtxw" --to text -o "$tmp/flip.txt" 2>"$tmp/err"; then
            fail "$set/$name: a byte flipped at $at (registration chunk at $pos) fails the read: $(head -c 300 "$tmp/err")"
            continue
        fi
        n=$(events_in "$tmp/flip.txt")
        if grep -q "warning: report damaged at offset $pos (registration chunk" "$tmp/err" &&
            ! grep -q "malformed record" "$tmp/err" && [ "$n" -le "$full" ]; then
            pass "$set/$name: damaged registration chunk at $pos costs only its records ($n of $full events)"
        else
            fail "$set/$name: damaged registration chunk at $pos: $n of $full events; $(head -c 400 "$tmp/err")"
        fi
    done < <(registration_chunks "$file")
    [ "$chunks" -gt 0 ] || fail "$set/$name: no registration chunk after the first"
}

[ -x "$replay" ] || fatal "nvtxw-replay is not built ($replay)"
while IFS='|' read -r set major; do
    while IFS='|' read -r name input; do
        file=$src/tests/data/$set/$name.nvtxw
        if [ "$(u16_at "$file" 8)" = "$major" ]; then
            pass "$set/$name: the test file is format $major"
        else
            fail "$set/$name: the test file is format $(u16_at "$file" 8), expected $major"
        fi
        check_dump "$set" "$name" text txt
        check_dump "$set" "$name" capture jsonl
        # shellcheck disable=SC2086 # the synthetic inputs are two words
        check_rewrite "$set" "$name" $input
        [ "$major" = 2 ] && check_damage "$set" "$name"
    done <<<"$INPUTS"
done <<<"$SETS"
finish
