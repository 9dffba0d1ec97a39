#!/usr/bin/env bash
# bench/converters_bench.sh - the converters and outputs against the parser
# they stand on, in one run (bench/README.md, "Converters against their
# parser"): a PyTorch-style Chrome trace of NVTXW_CONVERTERS_BENCH_MB
# megabytes (default 200) from bench/chrome_trace_gen.py is
#   - read by yajl's json_verify (the baseline) and by nvtxw-replay into
#     Sink=null (MB/s of the trace; ratio to json_verify),
#   - written as a report, then as a capture file (JSON Lines), which is
#     read by json_verify -s (its baseline) and by nvtxw-replay into
#     Sink=null (MB/s; ratio to json_verify -s),
#   - exported from the report as Chrome JSON (MB/s of JSON written) and as
#     SQLite (event rows per second; also with --sqlite-indexes all), each
#     also against the report read into Sink=null (the reading the export
#     includes), on one thread and
#     with --threads auto (the report's streams side by side on every CPU);
# and, for the memory of many threads, a Chrome trace of
# NVTXW_CONVERTERS_BENCH_THREADS threads (default 100,000) with one event
# each, read into Sink=null and into JSON, against the same events on one
# thread (peak RSS; once each).
# Each figure is the best of REPEAT runs (default 3), wall time (CPU time
# beside it), with GNU time's peak RSS. Needs python3, /usr/bin/time and
# json_verify (Debian yajl-tools); about 4x the trace size of $TMPDIR.
set -eu
build=${top_builddir:-.}
src=${top_srcdir:-$(dirname "$0")/..}
replay=$build/tools/replay/nvtxw-replay
mb=${NVTXW_CONVERTERS_BENCH_MB:-200}
repeat=${REPEAT:-3}
for tool in /usr/bin/time json_verify python3; do
    command -v "$tool" >/dev/null ||
        { echo "converters_bench: error: $tool is missing (json_verify: apt-get install yajl-tools)" >&2; exit 1; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/converters_bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# best NAME CMD...: runs CMD REPEAT times; sets wall, cpu, rss (MiB) of the
# run with the least wall time. CMD's stdin is /dev/null unless it redirects.
best() {
    local name=$1 w u s r
    shift
    wall= cpu= rss=
    for _ in $(seq "$repeat"); do
        /usr/bin/time -f "%e %U %S %M" -o "$tmp/time" "$@" 2>"$tmp/err" >/dev/null ||
            { echo "converters_bench: $name failed:" >&2; cat "$tmp/err" >&2; exit 1; }
        read -r w u s r <"$tmp/time"
        if [ -z "$wall" ] || awk -v a="$w" -v b="$wall" 'BEGIN { exit !(a < b) }'; then
            wall=$w cpu=$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }') rss=$((r / 1024))
        fi
    done
}

rate() { awk -v n="$1" -v t="$2" 'BEGIN { printf "%.1f", n / (t > 0.005 ? t : 0.005) }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }

python3 "$src/bench/chrome_trace_gen.py" --mb "$mb" >"$tmp/trace.json"
trace_mb=$(awk -v b="$(stat -c %s "$tmp/trace.json")" 'BEGIN { print b / 1e6 }')
cpus=$(nproc)
echo "converters: a ${trace_mb} MB Chrome trace, best of $repeat, wall (CPU) time"

# input_vs_yajl LABEL FILE TARGET [JSON_VERIFY_FLAG]: json_verify on FILE (the
# baseline), then nvtxw-replay FILE --to null, in MB/s of FILE.
input_vs_yajl() {
    local label=$1 file=$2 target=$3 flag=${4:-} size base own
    size=$(awk -v b="$(stat -c %s "$file")" 'BEGIN { print b / 1e6 }')
    best "json_verify${flag:+ $flag}" sh -c 'json_verify -q $2 <"$1"' - "$file" "$flag"
    base=$(rate "$size" "$wall")
    printf "  %-36s %s MB/s (%s CPU)  baseline, %s MB\n" "yajl json_verify${flag:+ $flag} $(basename "$file")" \
        "$base" "$(rate "$size" "$cpu")" "$size"
    best "$label" "$replay" "$file" --to null
    own=$(rate "$size" "$wall")
    printf "  %-36s %s MB/s (%s CPU), peak RSS %s MiB: %sx json_verify (target %s)\n" \
        "$label -> null" "$own" "$(rate "$size" "$cpu")" "$rss" "$(ratio "$own" "$base")" "$target"
}

input_vs_yajl "chrome input" "$tmp/trace.json" ">= 0.5x"
"$replay" "$tmp/trace.json" -o "$tmp/trace.nvtxw" 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
"$replay" "$tmp/trace.nvtxw" -o "$tmp/trace.jsonl" 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
input_vs_yajl "capture input" "$tmp/trace.jsonl" ">= 100 MB/s" -s

best "report read" "$replay" "$tmp/trace.nvtxw" --to null
read_wall=$wall
echo "  report -> null                       ${read_wall} s  baseline of the exports"
best "json export" "$replay" "$tmp/trace.nvtxw" -o "$tmp/out.json"
json_mb=$(awk -v b="$(stat -c %s "$tmp/out.json")" 'BEGIN { print b / 1e6 }')
json=$(rate "$json_mb" "$wall")
echo "  report -> json                       $json MB/s of JSON ($(rate "$json_mb" "$cpu") CPU), ${json_mb} MB, peak RSS $rss MiB: $(ratio "$read_wall" "$wall")x the read alone (target >= 250 MB/s)"
# The same on every CPU (--threads auto: the streams side by side), against
# the read alone on every CPU.
best "report read, threads" "$replay" "$tmp/trace.nvtxw" --to null --threads auto
read_threads_wall=$wall
echo "  report -> null, --threads auto       ${read_threads_wall} s  baseline of the exports on $cpus CPUs"
best "json export, threads" "$replay" "$tmp/trace.nvtxw" -o "$tmp/out.json" --threads auto
echo "  report -> json, --threads auto       $(rate "$json_mb" "$wall") MB/s of JSON ($(rate "$json_mb" "$cpu") CPU), peak RSS $rss MiB: $(ratio "$read_threads_wall" "$wall")x the read alone (target >= 250 MB/s)"
# sqlite_export LABEL [ARGS...]: rows/s of the export into SQLite.
sqlite_export() {
    local label=$1 rows
    shift
    best "sqlite export" sh -c 'in=$1 out=$2 && shift 2 && rm -f "$out" && "$0" "$in" -o "$out" "$@"' "$replay" "$tmp/trace.nvtxw" "$tmp/out.sqlite" "$@"
    rows=$(sqlite3 "$tmp/out.sqlite" 'SELECT count(*) FROM events' 2>/dev/null || echo 0)
    printf "  %-36s %s M rows/s (%s event rows), peak RSS %s MiB: %sx the read alone (target >= 1 M rows/s)\n" \
        "$label" "$(awk -v n="$rows" -v t="$wall" 'BEGIN { printf "%.2f", n / 1e6 / (t > 0.005 ? t : 0.005) }')" \
        "$rows" "$rss" "$(ratio "${read_base:-$read_wall}" "$wall")"
}
sqlite_export "report -> sqlite" --threads 1
read_base=$read_threads_wall sqlite_export "report -> sqlite, --threads auto" --threads auto
# With every index (--sqlite-indexes all): what the two left out by default
# cost.
sqlite_export "report -> sqlite, all indexes" --threads 1 --sqlite-indexes all

# threads_trace N SPREAD: N complete events, on N threads (SPREAD=1) or one.
threads_trace() {
    python3 - "$1" "$2" <<'PY'
import sys
n, spread = int(sys.argv[1]), sys.argv[2] == "1"
out = sys.stdout
out.write('{"traceEvents":[\n')
for i in range(n):
    out.write('{"ph":"X","name":"work","cat":"c","pid":1,"tid":%d,"ts":%d.5,"dur":3,'
              '"args":{"k":%d}},\n' % (i if spread else 0, i, i))
out.write('{"ph":"M","name":"process_name","pid":1,"tid":0,"args":{"name":"p"}}]}\n')
PY
}

threads=${NVTXW_CONVERTERS_BENCH_THREADS:-100000}
threads_trace "$threads" 1 >"$tmp/threads.json"
threads_trace "$threads" 0 >"$tmp/one.json"
repeat=1
for sink in null json report; do
    case $sink in
    null) set -- --to null ;;
    json) set -- -o "$tmp/threads.out.json" ;;
    report) set -- -o "$tmp/threads.out.nvtxw" ;;
    esac
    best "$threads threads -> $sink" "$replay" "$tmp/threads.json" "$@"
    many=$rss many_wall=$wall
    best "one thread -> $sink" "$replay" "$tmp/one.json" "$@"
    printf "  %-36s peak RSS %s MiB (%s s), the same events on one thread %s MiB: %s KB per thread (target: flat)\n" \
        "chrome input, $threads threads -> $sink" "$many" "$many_wall" "$rss" \
        "$(awk -v a="$many" -v b="$rss" -v n="$threads" 'BEGIN { printf "%.1f", (a - b) * 1048.576 / n }')"
done
