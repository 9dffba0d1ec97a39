#!/usr/bin/env bash
# The SQLite sink agrees with the stats sink: a report of examples/hello_producer
# (4 threads x 250 steps, 5,000 push/pop ranges) goes through
# `nvtxw-replay -o out.sqlite` and `nvtxw-replay --stats=csv`; the range-summary
# query of docs/sqlite-schema.md, run with the sqlite3 CLI, must give the same
# range names, styles, instances, total, min and max as the stats sink's
# nvtx_sum table, and the same average. Prints "N passed, M failed".
set -u
build=${top_builddir:-.}
replay=$build/tools/replay/nvtxw-replay
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
pass() { passed=$((passed + 1)) && echo "PASS: $1"; }
fail() { failed=$((failed + 1)) && echo "FAIL: $1"; }
finish() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
    exit
}
check() { # check NAME COMMAND...: passes when the command succeeds
    local name=$1
    shift
    if "$@" >"$tmp/out" 2>"$tmp/err"; then
        pass "$name"
    else
        fail "$name: $(head -c 600 "$tmp/out" "$tmp/err")"
    fi
}

if ! command -v sqlite3 >/dev/null 2>&1; then
    fail "the sqlite3 CLI is needed (Debian package sqlite3)"
    finish
fi
NVTXW3_LIBRARY=$build/libnvtxw/.libs/libnvtxw3.so "$build/examples/hello_producer" "$tmp/hello.nvtxw" >/dev/null ||
    { fail "hello_producer could not write the report"; finish; }
check "replay to out.sqlite" "$replay" "$tmp/hello.nvtxw" -o "$tmp/out.sqlite"
check "replay --stats=csv" "$replay" "$tmp/hello.nvtxw" --stats=csv -o "$tmp/stats.csv"

# The range summary of docs/sqlite-schema.md, as written there.
summary_sql="SELECT name, style, count(*) AS instances, sum(duration) AS total,
       round(avg(duration), 1) AS avg, min(duration) AS min, max(duration) AS max
FROM ranges GROUP BY name, style ORDER BY total DESC, name;"
check "sqlite3 runs the documented range summary" \
    sqlite3 -batch -bail -csv "$tmp/out.sqlite" "$summary_sql"
cp "$tmp/out" "$tmp/summary.csv"
# The average with the stats sink's three decimals, for an exact comparison.
check "sqlite3 averages with three decimals" sqlite3 -batch -bail -csv "$tmp/out.sqlite" \
    "SELECT name, style, printf('%.3f', avg(duration)) FROM ranges GROUP BY name, style;"
cp "$tmp/out" "$tmp/avg3.csv"

# compare WHAT: the python3 comparison of the stats CSV's first table (nvtx_sum)
# with the sqlite3 results; prints the differences and fails on any.
compare() {
    python3 - "$1" "$tmp/stats.csv" "$tmp/summary.csv" "$tmp/avg3.csv" <<'PY'
import csv, sys
what, stats_path, summary_path, avg3_path = sys.argv[1:]
with open(stats_path, newline="") as f:
    rows = list(csv.reader(f))
header = rows[0]
table = []
for row in rows[1:]:
    if not row:
        break  # the next table (unclosed counts)
    table.append(dict(zip(header, row)))
stats = {(r["Range"], r["Style"]): r for r in table}
with open(summary_path, newline="") as f:
    sql = {(r[0], r[1]): r for r in csv.reader(f)}
with open(avg3_path, newline="") as f:
    avg3 = {(r[0], r[1]): r[2] for r in csv.reader(f)}
bad = []
if what == "names":
    if not stats or set(stats) != set(sql):
        bad.append("only in stats: %s; only in sqlite: %s"
                   % (sorted(set(stats) - set(sql))[:5], sorted(set(sql) - set(stats))[:5]))
    if len(stats) != 254:
        bad.append("%d range names, expected 254 (4 phases, 250 steps)" % len(stats))
elif what == "counts":
    total = sum(int(s["Instances"]) for s in stats.values())
    if total != 5000:
        bad.append("%d instances in all, expected 5000" % total)
for key in sorted(set(stats) & set(sql)):
    s, q = stats[key], sql[key]
    _, _, n, tot, avg, lo, hi = q
    if what == "counts":
        for field, mine in (("Instances", n), ("Total Time (ns)", tot), ("Min (ns)", lo),
                            ("Max (ns)", hi)):
            if s[field] != mine:
                bad.append("%s %s: stats %s, sqlite %s" % (key[0], field, s[field], mine))
    elif what == "avg1":
        # The documented query rounds to one decimal; the stats sink prints three.
        if abs(float(s["Avg (ns)"]) - float(avg)) > 0.05 + 1e-9:
            bad.append("%s avg: stats %s, sqlite round(avg, 1) %s" % (key[0], s["Avg (ns)"], avg))
    elif what == "avg3":
        if s["Avg (ns)"] != avg3.get(key):
            bad.append("%s avg: stats %s, sqlite %s" % (key[0], s["Avg (ns)"], avg3.get(key)))
    elif what == "order":
        pass
if what == "order":
    # Both list the ranges by total time, largest first.
    totals = [int(r["Total Time (ns)"]) for r in table]
    if totals != sorted(totals, reverse=True) or [int(r[3]) for r in sql.values()] != sorted(totals, reverse=True):
        bad.append("not ordered by total time alike")
for line in bad[:10]:
    print(line)
sys.exit(1 if bad else 0)
PY
}
check "same range names and styles (254)" compare names
check "instances, total, min and max agree for every range (5000 instances)" compare counts
check "documented avg (one decimal) agrees with the stats sink's" compare avg1
check "avg with three decimals agrees exactly" compare avg3
check "both ordered by total time" compare order
finish
