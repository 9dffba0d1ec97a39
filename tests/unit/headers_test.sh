#!/bin/sh
# headers_test.sh - every public header compiles alone (STYLE rule 17):
# as C11 with $CC and as C++11 / C++17 with $CXX, each with
# -Wall -Wextra -Werror -pedantic. The translation unit is the #include plus
# one declaration, so that it is never empty. Also checks that every header
# in libnvtxw/include/nvtxw/ is installed (listed in libnvtxw/local.mk).
#
# Environment (exported by tests/local.mk): top_srcdir, CC, CXX.
# Prints one line per case and "N passed, M failed"; exits 1 on any failure.

top_srcdir=${top_srcdir:-.}
CC=${CC:-cc}
CXX=${CXX:-c++}

incdir="$top_srcdir/libnvtxw/include"
if ! test -d "$incdir/nvtxw"; then
    echo "headers_test: $incdir/nvtxw not found (top_srcdir=$top_srcdir)" >&2
    echo "0 passed, 1 failed"
    exit 1
fi

tmpdir=$(mktemp -d "${TMPDIR:-/tmp}/nvtxw-headers.XXXXXX") || exit 1
trap 'rm -rf "$tmpdir"' EXIT
trap 'exit 1' INT TERM
. "${top_srcdir:-.}/tests/testlib.sh"


# compile LABEL COMPILER_COMMAND SOURCE
compile() {
    label=$1
    source=$3
    # $2 is deliberately unquoted: CC/CXX may carry options ("gcc -m32").
    if $2 -I"$incdir" -c "$source" -o "$tmpdir/out.o" >"$tmpdir/log" 2>&1; then
        pass "$label"
    else
        fail "$label"
        sed 's/^/    /' "$tmpdir/log"
    fi
}

headers=$(cd "$incdir" && ls nvtxw/*.h 2>/dev/null)
if test -z "$headers"; then
    fail "no headers found in $incdir/nvtxw"
fi

cflags="-std=c11 -Wall -Wextra -Werror -pedantic"
for header in $headers; do
    name=$(basename "$header" .h)

    printf '#include <%s>\ntypedef int nvtxw_header_test_%s_t;\n' "$header" "$name" \
        >"$tmpdir/$name.c"
    compile "$header as C11 ($CC $cflags)" "$CC $cflags" "$tmpdir/$name.c"

    cp "$tmpdir/$name.c" "$tmpdir/$name.cpp"
    for std in c++11 c++17; do
        cxxflags="-std=$std -Wall -Wextra -Werror -pedantic"
        compile "$header as C++ ($CXX $cxxflags)" "$CXX $cxxflags" "$tmpdir/$name.cpp"
    done

    # installed: named in nvtxwinclude_HEADERS
    if grep -q "libnvtxw/include/$header" "$top_srcdir/libnvtxw/local.mk"; then
        pass "$header is installed (libnvtxw/local.mk)"
    else
        fail "$header is installed (libnvtxw/local.mk)"
    fi

    # cites only what a user has: no project-internal reference text
    if grep -nE '\.\./shared|spec [0-9]|spec section|nvtxw-abi\.md' "$incdir/$header" >"$tmpdir/cites"; then
        fail "$header cites text users do not have: $(head -n 2 "$tmpdir/cites")"
    else
        pass "$header cites only installed documents"
    fi
done

echo "$passed passed, $failed failed"
test "$failed" -eq 0
