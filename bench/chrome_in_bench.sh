#!/usr/bin/env bash
# bench/chrome_in_bench.sh - the Chrome trace input of nvtxw-replay
# (docs/chrome-input.md): generates PyTorch-style traces of the sizes in
# NVTXW_CHROME_IN_BENCH_MB (default "50 500", megabytes) with
# bench/chrome_trace_gen.py, replays each into the null and report sinks and
# prints MB/s of JSON read (both passes, wall and CPU time) and peak RSS
# (GNU time's %M). Needs python3 and /usr/bin/time; about 1.1 GB of $TMPDIR
# at the default sizes. `make bench-chrome-in` runs it from the build tree.
set -eu
build=${top_builddir:-.}
src=${top_srcdir:-$(dirname "$0")/..}
replay=$build/tools/replay/nvtxw-replay
[ -x /usr/bin/time ] || { echo "chrome_in_bench: error: /usr/bin/time is missing" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/chrome_in_bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
for mb in ${NVTXW_CHROME_IN_BENCH_MB:-50 500}; do
    python3 "$src/bench/chrome_trace_gen.py" --mb "$mb" >"$tmp/trace.json"
    bytes=$(stat -c %s "$tmp/trace.json")
    for sink in null report; do
        /usr/bin/time -f "%e %U %S %M" -o "$tmp/time" \
            "$replay" "$tmp/trace.json" --to "$sink" -o "$tmp/out" 2>"$tmp/err" >/dev/null ||
            { cat "$tmp/err" >&2; exit 1; }
        read -r wall user sys rss <"$tmp/time"
        awk -v b="$bytes" -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss" -v k="$sink" \
            'BEGIN { printf "chrome input %5.0f MB -> %-6s: %6.1f MB/s wall, %6.1f MB/s CPU, peak RSS %.1f MiB\n",
                     b / 1e6, k, b / 1e6 / w, b / 1e6 / (u + s), r / 1024 }'
    done
done
