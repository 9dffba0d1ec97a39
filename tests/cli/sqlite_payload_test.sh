#!/usr/bin/env bash
# tests/cli/sqlite_payload_test.sh - the payload columns of the sqlite sink
# (docs/sqlite-schema.md, docs/config.md PayloadJson) on the PyTorch-style
# tests/data/pytorch_trace.json (Chrome args, strings marked as JSON text)
# and the nested synthetic workload (every entry type, registered strings,
# predefined types, a REFERENCED payload that POINTER entries point into),
# each written twice: by default and with --payload-json.
#   - default: payload_json and value_json are NULL in every row, the
#     payload BLOB is set in every event row, the file is smaller;
#   - --payload-json: payload_json in every event row, the same BLOBs as
#     by default (but where POINTER entries hold the run's addresses);
#   - every event: the BLOB splits (uvar schema ID, uvar size, bytes) into
#     exactly the payloads payload_json lists, plus the REFERENCED ones it
#     leaves out, with their schema IDs and sizes;
#   - every event without POINTER entries: its BLOB's payloads decoded by
#     `nvtxw-payload decode` with the domain's schemas_yaml, registered
#     string handles looked up in `strings`, are payload_json exactly (the
#     reading docs/sqlite-schema.md describes);
#   - a field read from the bytes with SQL equals json_extract of it;
#   - --payload-json with another sink: usage error, exit 2, no output;
#   - --sqlite-indexes: the indexes named and no others, the same rows; a
#     name it does not know: exit 1 naming it, no output; with another
#     sink: usage error, exit 2.
set -u
. "${top_srcdir:-.}/tests/testlib.sh"
build=${top_builddir:-.}
src=${top_srcdir:-.}
replay=$build/tools/replay/nvtxw-replay
payload_tool=$build/tools/payload/nvtxw-payload
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sqlite_payload.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

command -v sqlite3 >/dev/null 2>&1 || fatal "the sqlite3 CLI is needed (Debian package sqlite3)"

# expect STATUS NAME: 0 -> pass, else fail with the saved stderr
expect() {
    if [ "$1" = 0 ]; then pass "$2"; else fail "$2: $(head -c 1500 "$tmp/err" 2>/dev/null)"; fi
}

# write NAME INPUT...: NAME.sqlite by default, NAME-json.sqlite with --payload-json
write() {
    local name=$1
    shift
    "$replay" "$@" -o "$tmp/$name.sqlite" 2>"$tmp/err" &&
        "$replay" "$@" -o "$tmp/$name-json.sqlite" --payload-json 2>>"$tmp/err"
    expect $? "$name: written by default and with --payload-json"
}

write pytorch "$src/tests/data/pytorch_trace.json"
write nested --synthetic nested:iterations=4,payload_every=2

for name in pytorch nested; do
    db=$tmp/$name.sqlite
    json=$tmp/$name-json.sqlite
    counts=$(sqlite3 "$db" "SELECT count(*), count(payload), count(payload_json) FROM events;
        SELECT count(value_json) FROM counter_samples" | tr '\n' ' ')
    rows=${counts%%|*}
    [ "$rows" -gt 100 ] && [ "$counts" = "$rows|$rows|0 0 " ]
    expect $? "$name: by default every event row has its payload BLOB and no JSON ($counts)"
    counts=$(sqlite3 "$json" "SELECT count(*), count(payload), count(payload_json) FROM events")
    [ "$counts" = "$rows|$rows|$rows" ]
    expect $? "$name: with --payload-json every event row has both ($counts)"
    [ "$(stat -c %s "$db")" -lt "$(stat -c %s "$json")" ]
    expect $? "$name: the default file is the smaller ($(stat -c %s "$db") < $(stat -c %s "$json") bytes)"
    python3 - "$json" "$db" "$payload_tool" "$tmp" >"$tmp/out" 2>"$tmp/err" <<'PY'
import json, sqlite3, subprocess, sys

path, default_path, tool, tmp = sys.argv[1:]
db = sqlite3.connect(path)
default = dict(sqlite3.connect(default_path).execute("SELECT id, payload FROM events"))
REFERENCED, STATIC_START, POINTER = 1022, 1 << 24, 1 << 1


def uvar(blob, i):
    value = shift = 0
    while True:
        byte = blob[i]
        i += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, i


def split(blob):
    """The BLOB's payloads as (schema ID, bytes), as docs/sqlite-schema.md says."""
    payloads, i = [], 0
    while i < len(blob):
        schema, i = uvar(blob, i)
        size, i = uvar(blob, i)
        payloads.append((schema, blob[i:i + size]))
        i += size
    assert i == len(blob), "the BLOB ends inside a payload"
    return payloads


def has_pointer(domain, schema, seen=()):
    """A POINTER entry in the schema or a schema nested in it."""
    for flags, kind in db.execute("SELECT flags, type FROM schema_entries "
                                  "WHERE domain_id = ? AND schema_id = ?", (domain, schema)):
        if flags & POINTER:
            return True
        if kind >= STATIC_START and kind not in seen and has_pointer(domain, kind, seen + (schema,)):
            return True
    return False


def resolve(value, strings):
    """nvtxw-payload prints a registered string as its handle: look it up."""
    if isinstance(value, dict):
        if list(value) == ["handle"] and value["handle"] in strings:
            return strings[value["handle"]]
        return {k: resolve(v, strings) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve(v, strings) for v in value]
    return value


yaml = {}
for domain, text in db.execute("SELECT id, schemas_yaml FROM domains WHERE schemas_yaml IS NOT NULL"):
    yaml[domain] = "%s/schemas%d.yaml" % (tmp, domain)
    with open(yaml[domain], "w") as f:
        f.write(text)
strings = {}
for handle, domain, value in db.execute("SELECT id, domain_id, value FROM strings"):
    strings[handle] = value  # handles are unique in the session
bad, decoded = [], 0
for event, domain, blob, text in db.execute(
        "SELECT id, domain_id, payload, payload_json FROM events ORDER BY id"):
    payloads, expected = split(blob), json.loads(text)
    listed = [(p["schemaId"], p["size"]) for p in expected["payloads"]]
    found = [(s, len(b)) for s, b in payloads if s != REFERENCED]
    if found != listed or expected["count"] != len(payloads):
        bad.append("event %d: BLOB %s, payload_json %s of %d" % (event, found, listed, expected["count"]))
        continue
    if any(s == REFERENCED or (s >= STATIC_START and has_pointer(domain, s)) for s, _ in payloads):
        continue  # addresses: only the producer could read them, and they vary by run
    if default.get(event) != blob:
        bad.append("event %d: another BLOB without --payload-json" % event)
    args = []
    for k, (schema, data) in enumerate(payloads):
        name = "%s/p%d.bin" % (tmp, k)
        with open(name, "wb") as f:
            f.write(data)
        kind = expected["payloads"][k]["schemaName"].lower() if schema < STATIC_START else str(schema)
        args.append("%s=%s" % (kind, name))
    run = subprocess.run([tool, "decode", "-f", "json", "-S", yaml[domain]] + args,
                         capture_output=True, text=True)
    got = resolve(json.loads(run.stdout), strings) if run.returncode == 0 else run.stderr
    if got != expected:
        bad.append("event %d: decoded %s, payload_json %s" % (event, str(got)[:300], text[:300]))
    decoded += 1
print("%d events decoded" % decoded)
for line in bad[:5]:
    print(line, file=sys.stderr)
sys.exit(1 if bad or decoded < 100 else 0)
PY
    expect $? "$name: every BLOB holds payload_json's payloads; decoded, the same fields, and the same BLOB by default ($(cat "$tmp/out"))"
done

# One field both ways: "Python id" of the first Linear (the 2nd int64 of
# its 3rd payload, args of nn.Module: Linear_0, after chrome X: a 6-byte
# header (5-byte dynamic schema ID, 1-byte size) and 24 bytes, the name: 6
# and 20, the args' own header: 6; so at byte 30 + 26 + 6 + 8 = 70, SQL's
# 71) as little-endian bytes, and by json_extract.
sqlite3 "$tmp/pytorch-json.sqlite" "SELECT hex(substr(payload, 71, 8)),
    json_extract(payload_json, '\$.payloads[2].fields.\"Python id\"') FROM events
    WHERE text = 'nn.Module: Linear_0' ORDER BY start LIMIT 1" >"$tmp/out" 2>"$tmp/err"
[ "$(cat "$tmp/out")" = "0200000000000000|2" ]
expect $? "pytorch: 'Python id' of the first Linear is 2 in the bytes and in payload_json ($(cat "$tmp/out"))"

"$replay" --synthetic nested:iterations=1 -o "$tmp/x.json" --payload-json >"$tmp/out" 2>"$tmp/err"
status=$?
[ "$status" = 2 ] && grep -q -- "--payload-json is for the sqlite sink" "$tmp/err" && [ ! -e "$tmp/x.json" ]
expect $? "--payload-json with the json sink: exit 2 ($status), the reason, no output"

# --sqlite-indexes: the default builds the cheap ones (and events_range,
# which the range pairing needs); the lists add or leave out the others.
indexes() {
    sqlite3 "$1" "SELECT group_concat(name, ' ') FROM (SELECT name FROM sqlite_master
        WHERE type = 'index' AND name NOT LIKE 'sqlite_autoindex%' ORDER BY name)"
}
"$replay" "$src/tests/data/pytorch_trace.json" -o "$tmp/ix-all.sqlite" --sqlite-indexes all 2>"$tmp/err" &&
    "$replay" "$src/tests/data/pytorch_trace.json" -o "$tmp/ix-some.sqlite" --sqlite-indexes 'start,counter' 2>"$tmp/err"
expect $? "--sqlite-indexes all / start,counter: written"
got="$(indexes "$tmp/pytorch.sqlite")|$(indexes "$tmp/ix-all.sqlite")|$(indexes "$tmp/ix-some.sqlite")"
[ "$got" = "counter_samples_counter events_range events_text_id|counter_samples_counter events_range events_start events_stream events_text_id|counter_samples_counter events_range events_start" ]
expect $? "--sqlite-indexes: default, all, start,counter build those indexes ($got)"
query="SELECT count(*), sum(start % 1000003), sum(end % 1000003), sum(text_id IS NOT NULL) FROM events"
rows=$(sqlite3 "$tmp/pytorch.sqlite" "$query" 2>"$tmp/err")
[ -n "$rows" ] && [ "$(sqlite3 "$tmp/ix-all.sqlite" "$query")" = "$rows" ] &&
    [ "$(sqlite3 "$tmp/ix-some.sqlite" "$query")" = "$rows" ]
expect $? "--sqlite-indexes: the same rows whichever indexes are built ($rows)"
"$replay" "$src/tests/data/pytorch_trace.json" -o "$tmp/ix-bad.sqlite" --sqlite-indexes start,time >"$tmp/out" 2>"$tmp/err"
status=$?
[ "$status" = 1 ] && grep -q 'SqliteIndexes names "time"' "$tmp/err" && [ ! -e "$tmp/ix-bad.sqlite" ]
expect $? "--sqlite-indexes start,time: exit 1 ($status) naming 'time', no output"
"$replay" "$src/tests/data/pytorch_trace.json" -o "$tmp/ix-empty.sqlite" --sqlite-indexes ' ' >"$tmp/out" 2>"$tmp/err"
status=$?
[ "$status" = 2 ] && grep -q -- "--sqlite-indexes takes a comma-separated list" "$tmp/err" && [ ! -e "$tmp/ix-empty.sqlite" ]
expect $? "--sqlite-indexes ' ': exit 2 ($status), the reason, no output"
"$replay" "$src/tests/data/pytorch_trace.json" -o "$tmp/ix.json" --sqlite-indexes all >"$tmp/out" 2>"$tmp/err"
status=$?
[ "$status" = 2 ] && grep -q -- "--sqlite-indexes is for the sqlite sink" "$tmp/err" && [ ! -e "$tmp/ix.json" ]
expect $? "--sqlite-indexes with the json sink: exit 2 ($status), the reason, no output"

finish
