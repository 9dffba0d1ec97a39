"""capture_fields.py INPUT OUTPUT.jsonl: compare the payload field values of
a hand-written capture (INPUT, JSON Lines or YAML, docs/capture-format.md)
with a capture written back by the capture sink from INPUT's replayed report.

Both files are parsed here, independently of the reader and writer under
test (PyYAML for YAML, json for JSON Lines). Per stream, in order, every
event, counter_sample and counter_no_value line is compared: each payload's
schema, form (fields / hex / value) and each field's value by the type its
schema entry gives (INPUT's schema, enum and string lines): integers exact
(a uint64 that lost precision, an int that became a string or a float
differ), floats by their bits, strings exactly, nested schemas and arrays
element by element. Only the format's documented freedoms are normalised:
"Payloads" - fields of fixed-layout schemas may be absent (absent ones are
0), an enum may be an enumerator's name, a registered_string a handle or the
text itself, byte arrays hex in either case; "Values" - floats as "inf",
"-inf", "nan"; "Lines" - dynamic IDs and string handles are the writing
session's, counters may be named by name. Exit 0 when all agree, else 1
naming the first differing line of each side and the field.
"""
import json
import math
import struct
import sys


class IntText(int):
    """A JSON integer that keeps its text ("-0" is a double written %.17g)."""

    def __new__(cls, text):
        obj = int.__new__(cls, int(text))
        obj.text = text
        return obj


def load(path):
    """The capture's line mappings with their 1-based line numbers."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if text.lstrip().startswith("{"):
        return [(n, json.loads(line, parse_int=IntText)) for n, line in
                enumerate(text.split("\n"), 1) if line.strip()]
    import yaml  # YAML captures only (python3-yaml)
    lines = []
    for doc in yaml.safe_load_all(text):
        for item in doc if isinstance(doc, list) else [doc]:
            lines.append((len(lines) + 1, item))
    return lines


FLOATS = {"float", "double", "float32", "float64", "long_double", "ld"}
INTS = {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "char",
        "uchar", "short", "ushort", "int", "uint", "long", "ulong", "longlong", "ulonglong",
        "size", "address", "scope_id", "category", "color_argb", "pid_uint32", "pid_uint64",
        "tid_uint32", "tid_uint64", "uint8_t", "int64_t"}


class Capture:
    def __init__(self, path):
        self.path = path
        self.lines = load(path)
        self.yaml = not open(path, encoding="utf-8").read().lstrip().startswith("{")
        self.schemas, self.enums, self.strings, self.counters = {}, {}, {}, {}
        self.records = {}
        for n, line in self.lines:
            self.index(n, line)

    def index(self, n, line):
        dom = line.get("domain", "")
        if "schema" in line and isinstance(line["schema"], dict):
            self.schemas[line["schema"].get("name")] = line["schema"]
        elif "enum" in line and isinstance(line["enum"], dict):
            self.enums[line["enum"]["name"]] = {v["name"]: v["value"] for v in line["enum"]["values"]}
        elif "string" in line:
            self.strings[(dom, line["handle"])] = line["string"]
        elif "counter" in line:
            self.counters[line["counter"]] = line["id"]
        elif "stream" in line and any(k in line for k in ("event", "counter_sample",
                                                           "counter_no_value")):
            self.records.setdefault(line["stream"], []).append((n, line))
        elif "stream_open" in line:
            self.records.setdefault(line["stream_open"], [])
            self.stream_domain = getattr(self, "stream_domain", {})
            self.stream_domain[line["stream_open"]] = dom

    def where(self, n):
        """A line of JSON Lines, or the n-th line mapping of a YAML capture."""
        return "%s item %d" % (self.path, n) if self.yaml else "%s:%d" % (self.path, n)

    def domain_of(self, stream):
        return getattr(self, "stream_domain", {}).get(stream, "")

    def text(self, stream, v):
        """A registered_string value as its text ("a handle ... or the
        registered text itself", docs/capture-format.md, Payloads)."""
        if isinstance(v, str):
            return v
        return self.strings.get((self.domain_of(stream), int(v)), "<unregistered handle %s>" % v)


def as_float_bits(v):
    """A float value's bits; "inf", "-inf", "nan" (docs/capture-format.md,
    Values: a NaN reads back as the default quiet NaN)."""
    if isinstance(v, bool):
        raise TypeError
    if isinstance(v, IntText):
        x = float(v.text)
    elif isinstance(v, (int, float, str)):
        x = float(v)
    else:
        raise TypeError
    if math.isnan(x):
        return "nan"
    return struct.pack("<d", x).hex()


def is_zero(v):
    if isinstance(v, dict):
        return all(is_zero(x) for x in v.values())
    if isinstance(v, list):
        return all(is_zero(x) for x in v)
    if isinstance(v, str):
        return v.strip("0") == ""
    return v == 0 or v is None


def kind(v):
    return type(v).__name__.replace("IntText", "int")


class Compare:
    def __init__(self, a, b):
        self.a, self.b = a, b

    def value(self, stream, type_name, va, vb, where):
        """None when va (INPUT's) and vb (OUTPUT's) agree for an entry of
        type_name, else what differs."""
        t = str(type_name).lower()
        if isinstance(va, list) or isinstance(vb, list):
            if not (isinstance(va, list) and isinstance(vb, list)) or len(va) != len(vb):
                return "%s: %r, then %r" % (where, va, vb)
            for i, (x, y) in enumerate(zip(va, vb)):
                d = self.value(stream, type_name, x, y, "%s[%d]" % (where, i))
                if d:
                    return d
            return None
        if t in self.a.schemas:
            if not (isinstance(va, dict) and isinstance(vb, dict)):
                return "%s: %r, then %r" % (where, va, vb)
            return self.fields(stream, self.a.schemas[t], va, vb, where + ".")
        if t == "registered_string":
            ta, tb = self.a.text(stream, va), self.b.text(stream, vb)
            return None if ta == tb else "%s: %r, then %r" % (where, ta, tb)
        if t in self.a.enums and isinstance(va, str):
            va = self.a.enums[t].get(va, va)  # an enumerator's name
        if t in FLOATS:
            try:
                if as_float_bits(va) == as_float_bits(vb):
                    return None
            except (TypeError, ValueError):
                pass
            return "%s: %r (%s), then %r (%s)" % (where, va, kind(va), vb, kind(vb))
        if t == "byte" and isinstance(va, str) and isinstance(vb, str):
            return None if va.lower() == vb.lower() else "%s: %r, then %r" % (where, va, vb)
        if type(va) is bool or type(vb) is bool or kind(va) != kind(vb) or va != vb:
            return "%s: %r (%s), then %r (%s)" % (where, va, kind(va), vb, kind(vb))
        return None

    def fields(self, stream, schema, fa, fb, prefix):
        entries = {e["name"]: e for e in schema.get("entries", [])}
        for name in list(fa) + [k for k in fb if k not in fa]:
            if name == "schema":
                continue
            if name not in entries:
                return "%s%s: not an entry of schema %r" % (prefix, name, schema.get("name"))
            if name not in fb:
                return "%s%s = %r missing from the output" % (prefix, name, fa[name])
            if name not in fa:
                # "absent ones are 0" (docs/capture-format.md, Payloads)
                if not is_zero(fb[name]):
                    return "%s%s: absent (0), then %r" % (prefix, name, fb[name])
                continue
            d = self.value(stream, entries[name].get("type"), fa[name], fb[name], prefix + name)
            if d:
                return d
        return None

    def payload(self, stream, pa, pb, i):
        where = "payload %d" % i
        sa, sb = pa.get("schema"), pb.get("schema")
        if str(sa).lower() != str(sb).lower():
            return "%s: schema %r, then %r" % (where, sa, sb)
        if set(("hex", "value")) & (set(pa) | set(pb)):
            for k in ("hex", "value", "pointers"):
                if (k in pa) != (k in pb):
                    return "%s: %r only on one side" % (where, k)
            if "hex" in pa:
                return None if pa["hex"].lower() == pb["hex"].lower() and \
                    pa.get("pointers") == pb.get("pointers") else "%s: hex %s, then %s" % (
                        where, pa["hex"], pb["hex"])
            return self.value(stream, sa, pa["value"], pb["value"], where + " value")
        schema = self.a.schemas.get(sa)
        if schema is None:
            return "%s: schema %r is not defined in %s" % (where, sa, self.a.path)
        return self.fields(stream, schema, pa, pb, where + " field ")

    def record(self, stream, la, lb):
        if "event" in la:
            if "event" not in lb:
                return "an event, then another line kind"
            # REFERENCED payloads of events written by field name are left out
            # (docs/capture-format.md, Payloads)
            ev_a = [p for p in la["event"] if p.get("schema") != 1022 or "pointers" in str(lb)]
            ev_b = lb["event"]
            if len(ev_a) != len(ev_b):
                return "%d payloads, then %d" % (len(ev_a), len(ev_b))
            for i, (pa, pb) in enumerate(zip(ev_a, ev_b)):
                d = self.payload(stream, pa, pb, i)
                if d:
                    return d
            return None if la.get("scope") == lb.get("scope") else "scope %r, then %r" % (
                la.get("scope"), lb.get("scope"))
        for k in ("counter_sample", "counter_no_value"):
            if k in la:
                if k not in lb:
                    return "a %s, then another line kind" % k
                ca = self.a.counters.get(la[k], la[k])  # a counter by name or ID
                if ca != lb[k] or la["ts"] != lb["ts"]:
                    return "%s %r ts %r, then %r ts %r" % (k, la[k], la["ts"], lb[k], lb["ts"])
                if k == "counter_no_value":
                    return None if la["reason"] == lb["reason"] else "reason %r, then %r" % (
                        la["reason"], lb["reason"])
                if "hex" in la or "hex" in lb:
                    return None if la.get("hex", "").lower() == lb.get("hex", "").lower() else \
                        "hex %r, then %r" % (la.get("hex"), lb.get("hex"))
                return self.counter_value(stream, la[k], la["value"], lb["value"])
        return "unknown record"

    def counter_value(self, stream, counter, va, vb):
        ctype = None
        for _, line in self.a.lines:
            if line.get("counter") == counter or line.get("id") == counter and "counter" in line:
                ctype = line.get("type")
        if isinstance(va, dict):
            schema = self.a.schemas.get(ctype)
            return self.fields(stream, schema, va, vb, "value.") if schema else \
                "counter type %r not defined" % ctype
        return self.value(stream, ctype, va, vb, "value")

    def run(self):
        problems, compared = [], 0
        for stream in sorted(set(self.a.records) | set(self.b.records)):
            ra, rb = self.a.records.get(stream, []), self.b.records.get(stream, [])
            if len(ra) != len(rb):
                problems.append("stream %r: %d event/counter lines, then %d" % (stream, len(ra),
                                                                                len(rb)))
                continue
            for (na, la), (nb, lb) in zip(ra, rb):
                compared += 1
                d = self.record(stream, la, lb)
                if d:
                    problems.append("stream %r: %s and %s differ: %s\n  input:  %s\n  output: %s"
                                    % (stream, self.a.where(na), self.b.where(nb), d,
                                       json.dumps(la, default=str)[:600],
                                       json.dumps(lb, default=str)[:600]))
                    break
        return problems, compared


def main(argv):
    if len(argv) != 2:
        sys.exit(__doc__)
    problems, compared = Compare(Capture(argv[0]), Capture(argv[1])).run()
    if compared == 0:
        problems.append("no event or counter lines: nothing compared")
    for p in problems:
        print("capture_fields: " + p, file=sys.stderr)
    print("capture_fields: %d lines compared, %s" % (compared, "differ" if problems else "same"),
          file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
