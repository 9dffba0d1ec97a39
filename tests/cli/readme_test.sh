#!/usr/bin/env bash
# readme_test.sh - the README's first command block, run as written by a new
# user after scripts/demo: its PATH line (with the build directory for
# "$PWD/build/default"), then every command, from a directory that looks
# like the source tree (examples/ and tests/data/ linked in, and an OTF2
# archive at run/traces.otf2 from the project's generator). Each command
# must exit 0 and leave the output its -o names; --stats must print a table.
set -u
build=$(cd "${top_builddir:-.}" && pwd)
src=$(cd "${top_srcdir:-.}" && pwd)
. "$src/tests/testlib.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nvtxw-readme.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

block=$(awk '/^```sh$/ && !done { inside = 1; next } /^```$/ && inside { inside = 0; done = 1 } inside' "$src/README.md")
[ -n "$block" ] || fatal "README.md has no \`\`\`sh block"
path_line=$(grep '^export PATH=' <<<"$block")
[ -n "$path_line" ] || fatal "the README's first block has no 'export PATH=' line for the built tools"

mkdir -p "$tmp/tree/build" "$tmp/tree/tests"
ln -s "$src/examples" "$tmp/tree/examples"
ln -s "$src/tests/data" "$tmp/tree/tests/data"
ln -s "$build" "$tmp/tree/build/default"
cd "$tmp/tree" || fatal "cannot enter $tmp/tree"
if [ -x "$build/tests/gen/nvtxw-otf2-gen" ]; then
    "$build/tests/gen/nvtxw-otf2-gen" -o run --events 5000 >/dev/null 2>&1 ||
        fatal "nvtxw-otf2-gen could not write run/traces.otf2"
fi

eval "$path_line"
for tool in nvtxw-replay nvtxw-payload; do
    if command -v "$tool" >/dev/null; then
        pass "the README's PATH line finds $tool"
    else
        fail "the README's PATH line does not find $tool: $path_line"
    fi
done

while IFS= read -r line; do
    command=${line%%#*} # trailing comments
    command=${command%"${command##*[![:space:]]}"}
    case $command in "" | export*) continue ;; esac
    if [[ $command == nvtxw-otf2-import* ]] && [ ! -f run/traces.otf2 ]; then
        fail "$command: OTF2 support is not built (nvtxw-otf2-gen missing)"
        continue
    fi
    if ! eval "$command" >"$tmp/out" 2>"$tmp/err"; then
        fail "$command: exit $?: $(head -c 300 "$tmp/err")"
        continue
    fi
    output=$(sed -n 's/.* -o \([^ ]*\).*/\1/p' <<<"$command")
    if [ -n "$output" ] && [ ! -s "$output" ]; then
        fail "$command: no $output"
    elif [[ $command == *--stats* ]] && ! grep -q 'Range Summary' "$tmp/out"; then
        fail "$command: no statistics table on standard output"
    else
        pass "$command"
    fi
done <<<"$block"
finish
