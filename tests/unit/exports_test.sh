#!/bin/sh
# exports_test.sh - the library exports exactly what is marked NVTXW_API
# (STYLE rule 8): the dynamic symbols defined by libnvtxw.so must equal the
# functions declared with NVTXW_API in the public headers
# (libnvtxw/include/nvtxw/*.h) and in libnvtxw/common/alloc.h (the test hook).
# The backend entry points nvtxwGetInterface and nvtxwFinalize (spec 1.1) are
# accepted when present, under exactly those names; nothing else is.
#
# Environment (exported by tests/local.mk): top_srcdir, top_builddir.
# Prints one line per symbol and "N passed, M failed"; exits 1 on any failure.

top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
NM=${NM:-nm}

lib="$top_builddir/libnvtxw/.libs/libnvtxw.so"
headers="$top_srcdir/libnvtxw/include/nvtxw/*.h $top_srcdir/libnvtxw/common/alloc.h"
optional="nvtxwGetInterface nvtxwFinalize"

tmpdir=$(mktemp -d "${TMPDIR:-/tmp}/nvtxw-exports.XXXXXX") || exit 1
trap 'rm -rf "$tmpdir"' EXIT
trap 'exit 1' INT TERM
. "${top_srcdir:-.}/tests/testlib.sh"


if ! test -f "$lib"; then
    fail "library not built: $lib"
    finish
fi

# Names declared with NVTXW_API. Comments and preprocessor lines (with their
# continuations) are dropped, the rest is joined and cut into declarations at
# ';', '{' and '}'; in a declaration that contains the NVTXW_API token, the
# name is the last identifier before the first '(' (or before the end, for a
# variable).
# shellcheck disable=SC2086 # $headers is a list of globs
awk '
    { text = text $0 "\n" }
    END {
        # strip /* */ and // comments
        out = ""
        while ((i = index(text, "/*")) > 0 || (j = index(text, "//")) > 0) {
            i = index(text, "/*"); j = index(text, "//")
            if (i > 0 && (j == 0 || i < j)) {
                out = out substr(text, 1, i - 1) " "
                rest = substr(text, i + 2)
                k = index(rest, "*/")
                text = (k > 0) ? substr(rest, k + 2) : ""
            } else {
                out = out substr(text, 1, j - 1)
                rest = substr(text, j + 2)
                k = index(rest, "\n")
                text = (k > 0) ? substr(rest, k) : ""
            }
        }
        out = out text
        # drop preprocessor lines and their backslash continuations
        n = split(out, lines, "\n")
        code = ""
        cont = 0
        for (l = 1; l <= n; l++) {
            line = lines[l]
            if (cont || line ~ /^[ \t]*#/) {
                cont = (line ~ /\\[ \t]*$/)
                continue
            }
            code = code " " line
        }
        gsub(/[{}]/, ";", code)
        m = split(code, decls, ";")
        for (d = 1; d <= m; d++) {
            decl = decls[d]
            if (decl !~ /(^|[^A-Za-z0-9_])NVTXW_API([^A-Za-z0-9_]|$)/)
                continue
            p = index(decl, "(")
            head = (p > 0) ? substr(decl, 1, p - 1) : decl
            gsub(/[^A-Za-z0-9_]/, " ", head)
            k = split(head, words, " ")
            if (k > 0)
                print words[k]
        }
    }
' $headers | sort -u >"$tmpdir/declared"

if ! test -s "$tmpdir/declared"; then
    fail "no NVTXW_API declarations found in $headers"
    finish
fi

# Defined dynamic symbols, without the linker-generated markers.
if ! "$NM" -D --defined-only "$lib" >"$tmpdir/nm" 2>"$tmpdir/nm.err"; then
    fail "$NM -D --defined-only $lib failed: $(cat "$tmpdir/nm.err")"
    finish
fi
awk 'NF >= 3 && $2 != "A" && $2 != "a" {
         if ($3 == "_init" || $3 == "_fini" || $3 == "_edata" || $3 == "_end" || \
             $3 == "__bss_start") next
         sub(/@.*/, "", $3)
         print $3
     }' "$tmpdir/nm" | sort -u >"$tmpdir/exported"

while read -r sym; do
    if grep -qx "$sym" "$tmpdir/exported"; then
        pass "exported: $sym"
    else
        fail "declared NVTXW_API but not exported: $sym"
    fi
done <"$tmpdir/declared"

while read -r sym; do
    grep -qx "$sym" "$tmpdir/declared" && continue
    case " $optional " in
    *" $sym "*)
        pass "exported backend entry point: $sym"
        ;;
    *)
        fail "exported but not declared NVTXW_API: $sym"
        ;;
    esac
done <"$tmpdir/exported"

finish
