#!/usr/bin/python3
"""mutate_json.py - makes a deliberately wrong copy of an importer JSON trace.

Usage: mutate_json.py MUTATION IN.json OUT.json

tests/otf2/checker_test.sh applies each mutation to a good import and
asserts that check_import.py then reports the matching "not ok" line, so
every content check of check_import.py is shown to be able to fail. The
JSON sink writes one event per line (docs/chrome-json.md, Container); a
mutation rewrites, drops or keeps whole lines, and untouched lines stay
byte for byte. Numbers are read as Decimal and written back from their
text, so nothing but the mutated field changes.

Mutations (MUTATION: what it does; "region slice" = an "X" whose name does
not start with "otf2:" on a location's row, tid < 2^32):
  metric-ts           every counter sample ("C") 1 us later
  metric-reverse      the values of each (pid, tid, name) series reversed
  metric-one-thread   every counter sample on the first sample's pid/tid
  metric-ulp          the first non-integral counter value one ulp larger
  slice-shift         every otf2:TaskSlice (both rows) 7 us later
  task-instant-shift  every otf2:ThreadTaskCreate/Complete (both rows) 99 us later
  region-args-empty   the args of every region slice removed
  region-arg-value    the first integer arg of the first region slice with
                      args + 1
  parameter-value     the value of the first otf2:ParameterInt instant + 1
  drop-flow           the first flow start ("s") removed
  drop-instant        the first otf2:ProgramBegin instant removed

Exit 0 when the mutation changed something, 1 when it found nothing to
change (the input lacks what the mutation needs: the test must fail then),
2 on a usage error.
"""
import json
import math
import sys
from collections import defaultdict
from decimal import Decimal

TASK_TID_BASE = 1 << 32


def dump(value):
    """JSON text of a value read with parse_float=Decimal."""
    if isinstance(value, dict):
        return "{" + ",".join(json.dumps(k) + ":" + dump(v) for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(dump(v) for v in value) + "]"
    if isinstance(value, Decimal):
        return str(value)
    return json.dumps(value)


def later(ts, micros):
    """ts + micros, with the three decimals of the JSON sink."""
    return (Decimal(ts) + Decimal(micros)).quantize(Decimal("0.001"))


def is_region_slice(e):
    return (e.get("ph") == "X" and not str(e.get("name", "")).startswith("otf2:")
            and e.get("tid", 0) < TASK_TID_BASE)


class Lines:
    """The trace as lines; events parsed lazily, written back on change."""

    def __init__(self, text):
        self.lines = text.split("\n")
        self.events = {}
        for i, line in enumerate(self.lines):
            body = line.rstrip(",")
            if body.startswith('{"name"'):
                self.events[i] = json.loads(body, parse_float=Decimal)
        self.changed = 0

    def put(self, i, event):
        comma = "," if self.lines[i].endswith(",") else ""
        self.lines[i] = dump(event) + comma
        self.changed += 1

    def drop(self, i):
        """Removes event line i, keeping the array's commas valid."""
        if not self.lines[i].endswith(","):  # the last event: the one before loses its comma
            j = max(k for k in self.events if k < i)
            self.lines[j] = self.lines[j].rstrip(",")
        self.lines[i] = None
        del self.events[i]
        self.changed += 1

    def text(self):
        return "\n".join(line for line in self.lines if line is not None)

    def where(self, test):
        return [i for i, e in sorted(self.events.items()) if test(e)]


def shift(lines, test, micros):
    for i in lines.where(test):
        e = lines.events[i]
        e["ts"] = later(e["ts"], micros)
        lines.put(i, e)


def metric_reverse(lines):
    series = defaultdict(list)
    for i in lines.where(lambda e: e.get("ph") == "C"):
        e = lines.events[i]
        series[(e["pid"], e["tid"], e["name"])].append(i)
    for rows in series.values():
        values = [lines.events[i]["args"]["value"] for i in rows]
        for i, value in zip(rows, reversed(values)):
            if lines.events[i]["args"]["value"] != value:
                lines.events[i]["args"]["value"] = value
                lines.put(i, lines.events[i])


def metric_one_thread(lines):
    rows = lines.where(lambda e: e.get("ph") == "C")
    if not rows:
        return
    first = lines.events[rows[0]]
    for i in rows:
        e = lines.events[i]
        if (e["pid"], e["tid"]) != (first["pid"], first["tid"]):
            e["pid"], e["tid"] = first["pid"], first["tid"]
            lines.put(i, e)


def metric_ulp(lines):
    for i in lines.where(lambda e: e.get("ph") == "C"):
        e = lines.events[i]
        value = e["args"].get("value")
        if isinstance(value, Decimal) and value != int(value):
            e["args"]["value"] = Decimal(repr(math.nextafter(float(value), math.inf)))
            lines.put(i, e)
            return


def region_args_empty(lines):
    for i in lines.where(lambda e: is_region_slice(e) and e.get("args")):
        del lines.events[i]["args"]
        lines.put(i, lines.events[i])


def first_int_plus_one(lines, test):
    for i in lines.where(test):
        e = lines.events[i]
        for key, value in e.get("args", {}).items():
            if isinstance(value, int) and not isinstance(value, bool):
                e["args"][key] = value + 1
                lines.put(i, e)
                return


def parameter_value(lines):
    for i in lines.where(lambda e: e.get("name") == "otf2:ParameterInt" and e.get("ph") == "i"):
        e = lines.events[i]
        e["args"]["value"] += 1
        lines.put(i, e)
        return


def drop_first(lines, test):
    rows = lines.where(test)
    if rows:
        lines.drop(rows[0])


MUTATIONS = {
    "metric-ts": lambda l: shift(l, lambda e: e.get("ph") == "C", 1),
    "metric-reverse": metric_reverse,
    "metric-one-thread": metric_one_thread,
    "metric-ulp": metric_ulp,
    "slice-shift": lambda l: shift(l, lambda e: e.get("name") == "otf2:TaskSlice", 7),
    "task-instant-shift": lambda l: shift(
        l, lambda e: e.get("name") in ("otf2:ThreadTaskCreate", "otf2:ThreadTaskComplete"), 99),
    "region-args-empty": region_args_empty,
    "region-arg-value": lambda l: first_int_plus_one(
        l, lambda e: is_region_slice(e) and e.get("args")),
    "parameter-value": parameter_value,
    "drop-flow": lambda l: drop_first(l, lambda e: e.get("ph") == "s"),
    "drop-instant": lambda l: drop_first(
        l, lambda e: e.get("ph") == "i" and e.get("name") == "otf2:ProgramBegin"),
}


def main(argv):
    if len(argv) != 3 or argv[0] not in MUTATIONS:
        print("usage: mutate_json.py {%s} IN.json OUT.json" % ",".join(MUTATIONS),
              file=sys.stderr)
        return 2
    name, src, dst = argv
    with open(src, encoding="utf-8") as f:
        lines = Lines(f.read())
    MUTATIONS[name](lines)
    with open(dst, "w", encoding="utf-8") as f:
        f.write(lines.text())
    json.loads(lines.text())  # still a valid JSON document
    if not lines.changed:
        print("mutate_json.py: %s: nothing to change in %s" % (name, src), file=sys.stderr)
        return 1
    print("mutate_json.py: %s: %d events changed or removed" % (name, lines.changed))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
