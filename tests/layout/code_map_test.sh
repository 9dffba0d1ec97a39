#!/usr/bin/env bash
# tests/layout/code_map_test.sh - docs/architecture.md describes the tree as
# it is: every folder of the library, of its sinks, of the tools, of
# nvtxw-replay and of the tests has a row (its name as `name/`) in the
# section on its parent, and every folder a section's table names exists
# there. A copy of the map with a row removed, a row moved to the wrong
# section, and a tree with an unmapped folder must fail.
set -u
source "${top_srcdir:-.}/tests/testlib.sh"

src=${top_srcdir:-.}
map="$src/docs/architecture.md"
[ -f "$map" ] || fatal "docs/architecture.md is missing"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nvtxw-codemap.XXXXXX") || fatal "mktemp failed"
trap 'rm -rf "$tmp"' EXIT

# The folders the map must describe, relative to ROOT, one per line.
mapped_folders() {
    local root=$1 parent dir
    for parent in libnvtxw libnvtxw/sink tools tools/replay tests; do
        for dir in "$root/$parent"/*/; do
            [ -d "$dir" ] || continue
            dir=${dir%/}
            dir=${dir##*/}
            case "$parent/$dir" in
            libnvtxw/include | libnvtxw/.libs | libnvtxw/.deps | */.deps | */.libs) ;;
            tests/viewer/engine | tests/cli/data | tests/cli/golden) ;;
            *) echo "$parent/$dir" ;;
            esac
        done
    done
    echo libnvtxw/include/nvtxw
}

# section MAP PARENT: the lines of the map's section on PARENT, from its
# heading "## PARENT/: ..." to the next heading.
section() {
    awk -v head="## $2/:" 'index($0, head) == 1 { on = 1; next } /^## / { on = 0 } on' "$1"
}

# missing_rows ROOT MAP: the folders of ROOT without a row in MAP. A row
# names the folder as `NAME/` in a table line of the section on its parent.
missing_rows() {
    local root=$1 file=$2 folder name parent
    while IFS= read -r folder; do
        name=${folder##*/}
        parent=${folder%/*}
        if [ "$folder" = libnvtxw/include/nvtxw ]; then
            name=include/nvtxw parent=libnvtxw
        fi
        section "$file" "$parent" | grep -qF "| \`$name/\` |" || echo "$folder"
    done < <(mapped_folders "$root")
}

missing=$(missing_rows "$src" "$map")
if [ -z "$missing" ]; then
    pass "every folder of libnvtxw/, libnvtxw/sink/, tools/, tools/replay/ and tests/ has a row"
else
    fail "folders without a row in docs/architecture.md: $(echo $missing)"
fi

# stale_rows MAP: the folders MAP's tables name that do not exist in the
# folder their section is on.
rows() { grep -E '^\| `[A-Za-z0-9_./-]+/` \|' | sed -E 's/^\| `([^`]*)\/` \|.*/\1/'; }
stale_rows() {
    local file=$1 parent name
    for parent in libnvtxw libnvtxw/sink tools tools/replay tests; do
        while IFS= read -r name; do
            [ -d "$src/$parent/$name" ] || echo "$parent/$name/"
        done < <(section "$file" "$parent" | rows)
    done
    while IFS= read -r name; do
        [ -d "$src/$name" ] || echo "$name/"
    done < <(awk '/^## Top-level folders/ { on = 1; next } /^## / { on = 0 } on' "$file" | rows)
}

stale=$(stale_rows "$map")
if [ -z "$stale" ]; then
    pass "every folder the map names exists where its section says"
else
    fail "docs/architecture.md names folders that do not exist: $(echo $stale)"
fi
sed 's/^| `null\/` |/| `ghost\/` | x |\n&/' "$map" >"$tmp/map3.md"
if [ "$(stale_rows "$tmp/map3.md")" = "libnvtxw/sink/ghost/" ]; then
    pass "a row naming a folder that does not exist is caught"
else
    fail "a row naming a folder that does not exist is caught (got: $(stale_rows "$tmp/map3.md"))"
fi

# The test fails when a row is removed ...
sed '/^| `json\/` |/d' "$map" >"$tmp/map.md"
if missing_rows "$src" "$tmp/map.md" | grep -qx "libnvtxw/sink/json"; then
    pass "a map without the json sink's row is caught"
else
    fail "a map without the json sink's row is caught"
fi
# ... when a row is in another folder's section (tools/common/ described
# only as libnvtxw/common/) ...
awk '/^## tools\/: / { on = 1 } /^## tools\/replay\/: / { on = 0 } !(on && /^\| `common\/` \|/)' \
    "$map" >"$tmp/map2.md"
if missing_rows "$src" "$tmp/map2.md" | grep -qx "tools/common"; then
    pass "a row only in another folder's section does not count"
else
    fail "a row only in another folder's section does not count"
fi
# ... and when a folder is added without one.
mkdir -p "$tmp/tree"
(cd "$src" && find libnvtxw tools tests -maxdepth 2 -type d) | (cd "$tmp/tree" && xargs mkdir -p)
mkdir -p "$tmp/tree/libnvtxw/sink/ctf" "$tmp/tree/tools/replay/otf2"
got=$(missing_rows "$tmp/tree" "$map" | sort | tr '\n' ' ')
if [ "$got" = "libnvtxw/sink/ctf tools/replay/otf2 " ]; then
    pass "new folders without a row are caught: $got"
else
    fail "new folders without a row are caught (got: $got)"
fi

finish
