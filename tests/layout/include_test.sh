#!/usr/bin/env bash
# tests/layout/include_test.sh - the dependency direction of
# docs/architecture.md holds in this tree (tests/layout/check_includes.py),
# and the check catches each kind of violation: a copy of the tree gets one
# deliberate violation at a time and must fail naming the file, the line and
# the rule; comments and string literals that look like includes must not.
set -u
source "${top_srcdir:-.}/tests/testlib.sh"

src=${top_srcdir:-.}
checker="$src/tests/layout/check_includes.py"
command -v python3 >/dev/null || fatal "python3 is needed to run $checker"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nvtxw-layout.XXXXXX") || fatal "mktemp failed"
trap 'rm -rf "$tmp"' EXIT

if out=$(python3 "$checker" "$src" 2>&1); then
    pass "the source tree keeps the dependency rules (${out#check_includes: })"
else
    fail "the source tree keeps the dependency rules"
    printf '%s\n' "$out"
fi

# A fresh copy of the scanned folders for each case.
fresh_copy() {
    rm -rf "$tmp/tree" && mkdir "$tmp/tree" &&
        (cd "$src" && find libnvtxw tools examples -type f \( -name '*.[ch]' -o -name '*.inc' \) |
            tar -cf - -T -) | tar -xf - -C "$tmp/tree"
}

# violation NAME FILE TEXT EXPECTED: appends TEXT to FILE of a fresh copy and
# expects the check to fail with a line starting "FILE:LINE: EXPECTED".
violation() {
    local name=$1 file=$2 text=$3 expected=$4 line out
    fresh_copy || fatal "cannot copy the tree"
    [ -f "$tmp/tree/$file" ] || { fail "$name: $file is not in the tree"; return; }
    printf '%s\n' "$text" >>"$tmp/tree/$file"
    line=$(wc -l <"$tmp/tree/$file")
    if out=$(python3 "$checker" "$tmp/tree" 2>&1); then
        fail "$name: the check passed"
    elif printf '%s\n' "$out" | grep -qF "$file:$line: $expected"; then
        pass "$name: $file:$line: $expected"
    else
        fail "$name: expected \"$file:$line: $expected\""
        printf '%s\n' "$out"
    fi
}

violation "a sink includes another sink" libnvtxw/sink/json/json_sink.c \
    '#include "sink/report/report_internal.h"' "sink: the json sink includes"
violation "a sink includes the core's internals" libnvtxw/sink/stats/stats_sink.c \
    '#include "core/core_internal.h"' "sink: the stats sink includes libnvtxw/core/core_internal.h"
violation "what sinks share includes a sink" libnvtxw/sink/shared/event_info.c \
    '#include "sink/text/text_internal.h"' "sink: sink/shared/ includes"
violation "the core includes a sink" libnvtxw/core/session.c \
    '#include "sink/shared/sink_registry.h"' "sink: the core module includes"
violation "a lower module includes a higher one" libnvtxw/format/container_io.c \
    '#include "reader/reader_internal.h"' "module: the format module includes"
violation "the reader includes a sink" libnvtxw/reader/reader_open.c \
    '#include "sink/report/report_internal.h"' "sink: the reader module includes"
violation "a public header includes an internal one" libnvtxw/include/nvtxw/reader.h \
    '#include "common/alloc.h"' "public: a public header includes"
violation "the library includes a tool" libnvtxw/core/session.c \
    '#include "../../tools/common/tool_output.h"' "module: the library includes"
violation "a tool includes a library-internal header" tools/replay/driver/nvtxw_replay.c \
    '#include "common/strbuf.h"' "tool: a tool includes the library-internal"
violation "the OTF2 importer includes the core" tools/otf2-import/import.c \
    '#include "core/core_internal.h"' "tool: a tool includes the library-internal"
violation "one input includes another" tools/replay/synthetic/synthetic_mpi.c \
    '#include "../chrome/chrome_in.h"' "tool: nvtxw-replay's synthetic input includes"
violation "the driver includes an input's internals" tools/replay/driver/replay_sources.c \
    '#include "../capture/capture_reader.h"' "tool: nvtxw-replay's driver includes"
violation "a tool includes another tool" tools/replay/driver/nvtxw_replay.c \
    '#include "../../otf2-import/otf2_import.h"' "tool: the replay tool includes"
violation "a header off the include path" tools/replay/capture/capture_read.c \
    '#include "chrome_in.h"' "unresolved: \"chrome_in.h\" is not on the include path"
violation "OTF2 in the library" libnvtxw/reader/reader_open.c \
    '#include <otf2/otf2.h>' "library: <otf2/otf2.h> outside tools/otf2-import/"
violation "OTF2 in nvtxw-replay" tools/replay/chrome/chrome_in_main.c \
    '#include <otf2/OTF2_Reader.h>' "library: <otf2/OTF2_Reader.h> outside"
violation "SQLite outside its sink" libnvtxw/sink/stats/stats_print.c \
    '#include <sqlite3.h>' "library: <sqlite3.h> outside libnvtxw/sink/sqlite/"
violation "an example includes an internal header" examples/hello_producer.c \
    '#include "common/alloc.h"' "example: an example includes"

# Angle brackets reach the same headers through the -I folders.
violation "a sink includes another sink with <...>" libnvtxw/sink/json/json_sink.c \
    '#include <sink/report/report_internal.h>' "sink: the json sink includes"
violation "the core includes a sink with <...>" libnvtxw/core/session.c \
    '#include <sink/shared/sink_registry.h>' "sink: the core module includes"
violation "a public header includes an internal one with <...>" libnvtxw/include/nvtxw/reader.h \
    '#include <common/alloc.h>' "public: a public header includes"
violation "one input includes another with <...>" tools/replay/synthetic/synthetic_mpi.c \
    '#include <chrome/chrome_in.h>' "tool: nvtxw-replay's synthetic input includes"
violation "a tool includes the library by its path from the top" tools/otf2-import/import.c \
    '#include "libnvtxw/core/core_internal.h"' "tool: a tool includes the library-internal"
violation "a public header includes config.h" libnvtxw/include/nvtxw/payload.h \
    '#include "config.h"' "public: a public header includes config.h"
violation "yajl outside the Chrome input" libnvtxw/core/session.c \
    '#include <yajl/yajl_parse.h>' "library: <yajl/yajl_parse.h> outside tools/replay/chrome/"
violation "zstd outside format/" libnvtxw/sink/report/report_stream.c \
    '#include <zstd.h>' "library: <zstd.h> outside libnvtxw/format/"
violation "a computed include" libnvtxw/sink/json/json_sink.c \
    "$(printf '%s\n' '#define JSON_SNEAK "sink/report/report_internal.h"' '#include JSON_SNEAK')" \
    "computed: #include JSON_SNEAK"

# A line continued with a backslash is one include, numbered by its first
# line.
fresh_copy || fatal "cannot copy the tree"
file=libnvtxw/sink/stats/stats_table.c
printf '#include \\\n    "sink/text/text_internal.h"\n' >>"$tmp/tree/$file"
line=$(($(wc -l <"$tmp/tree/$file") - 1))
out=$(python3 "$checker" "$tmp/tree" 2>&1)
if printf '%s\n' "$out" | grep -qF "$file:$line: sink: the stats sink includes"; then
    pass "an include continued over two lines is read as one: $file:$line"
else
    fail "an include continued over two lines is read as one (expected $file:$line)"
    printf '%s\n' "$out"
fi

# Two files of one name anywhere in the tree.
fresh_copy || fatal "cannot copy the tree"
mkdir -p "$tmp/tree/tests/unit"
printf '/* a second one */\n' >"$tmp/tree/tests/unit/report_plan.c"
out=$(python3 "$checker" "$tmp/tree" 2>&1)
if printf '%s\n' "$out" | grep -qF "names: report_plan.c is also"; then
    pass "two source files of one name are refused"
else
    fail "two source files of one name are refused"
    printf '%s\n' "$out"
fi

# A sink's file outside a sink folder, and a replay input outside its folder.
fresh_copy || fatal "cannot copy the tree"
printf '/* a new sink */\n' >"$tmp/tree/libnvtxw/sink/sink_perfetto.c"
printf '/* a new input */\n' >"$tmp/tree/tools/replay/otf2_in.c"
out=$(python3 "$checker" "$tmp/tree" 2>&1)
status=$?
if [ "$status" -eq 1 ] && printf '%s\n' "$out" | grep -qF "libnvtxw/sink/sink_perfetto.c:1: layout:" &&
    printf '%s\n' "$out" | grep -qF "tools/replay/otf2_in.c:1: layout:"; then
    pass "files outside their room's folder are refused"
else
    fail "files outside their room's folder are refused (status $status)"
    printf '%s\n' "$out"
fi

# Commented-out includes are not includes.
fresh_copy || fatal "cannot copy the tree"
cat >>"$tmp/tree/libnvtxw/sink/text/text_sink.c" <<'EOF'
/* #include "sink/report/report_internal.h" */
// #include "core/core_internal.h"
/*
#include "sink/json/json_internal.h"
*/
EOF
if out=$(python3 "$checker" "$tmp/tree" 2>&1); then
    pass "includes in comments are ignored"
else
    fail "includes in comments are ignored"
    printf '%s\n' "$out"
fi

# A "/*" inside a string literal opens no comment: the include after it
# still counts.
violation 'a "/*" in a string hides nothing' libnvtxw/sink/text/text_sink.c \
    "$(printf '%s\n' 'static const char text_sink_fake[] = "/* no comment";' \
        '#include "sink/json/json_internal.h"')" "sink: the text sink includes"

# Usage errors.
python3 "$checker" "$tmp/no-such-tree" >/dev/null 2>&1
[ $? -eq 2 ] && pass "a root without libnvtxw/ is a usage error (exit 2)" ||
    fail "a root without libnvtxw/ is a usage error (exit 2)"

finish
