"""chrome_norm.py A.json B.json [A.out B.out]: exit 0 when two traces written
by the JSON sink hold the same events: per thread (by thread_name), in file
order, every member but args and pid/tid compared (names, cat, ts, dur, ids,
flow ids, bp, cname); counter events split into one (series, value) each,
"value" keeping the bare name (docs/chrome-input.md, Counters). Used by
tests/cli/chrome_in_test.sh for report -> JSON -> report -> JSON."""
import json
import sys

def load(path):
    d = json.load(open(path))
    ev = d["traceEvents"] if isinstance(d, dict) else d
    pname = {}; tname = {}
    for e in ev:
        if e.get("ph") == "M" and e["name"] == "process_name": pname[e["pid"]] = e["args"]["name"]
        if e.get("ph") == "M" and e["name"] == "thread_name": tname[(e["pid"], e["tid"])] = e["args"]["name"]
    out = []
    for e in ev:
        if e.get("ph") == "M": continue
        e = dict(e)
        e["thread"] = tname.get((e["pid"], e["tid"]), "?")
        del e["pid"]; del e["tid"]
        args = e.pop("args", None)
        if e["ph"] == "C":
            for k, v in sorted(args.items()):
                c = dict(e); c["name"] = e["name"] if k == "value" else e["name"] + " " + k
                c["value"] = v; out.append(json.dumps(c, sort_keys=True))
            continue
        out.append(json.dumps(e, sort_keys=True))
    return [line for _, line in sorted(((json.loads(l)["thread"], l) for l in out), key=lambda p: p[0])]
a = load(sys.argv[1]); b = load(sys.argv[2])
print("\n".join(a), file=open(sys.argv[3], "w")) if len(sys.argv) > 3 else None
print("\n".join(b), file=open(sys.argv[4], "w")) if len(sys.argv) > 4 else None
sys.exit(0 if a == b else 1)
