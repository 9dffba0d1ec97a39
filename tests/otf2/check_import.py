#!/usr/bin/python3
"""check_import.py - checks nvtxw-otf2-import's output against otf2_oracle.py.

Usage:
  check_import.py ARCHIVE JSON STATS_CSV [--oracle ORACLE.json] [--stderr FILE]
                  [--event-prefix P] [--stats-prefix P]
  check_import.py --same-content A.json B.json

The first form compares a Chrome/Perfetto JSON trace (docs/chrome-json.md)
and a stats CSV (docs/stats.md) made from one import of ARCHIVE with what
otf2_oracle.py computes from the archive itself (--oracle: a saved
`otf2_oracle.py --detail` output; else it is computed here):

- streams: one thread per location, named "<group>/<location> [L<id>]";
- region ranges: per location the "X" events whose name does not start with
  the event prefix ("otf2:") equal the oracle's completed Enter/Leave pairs,
  by count and, with the oracle's detail, as multisets of (name, begin ns,
  end ns) and of (name, begin ns, end ns, args), where ns = ts * 1000 +
  otherData.timestampBase_ns and args (the whole "args" object) must be the
  Enter's attributes, {attribute name: value}, then the Leave's (the JSON
  sink writes a push/pop as one "X" with the push's args followed by the
  pop's, so a Leave's value wins over an Enter's of the same name, as a
  JSON reader keeps the last of two equal keys); pushes left open are "B",
  pops on an empty stack "(unmatched pop)";
- stats: per region name the push/pop summary row (nvtx_pushpop_sum, or the
  PushPop rows of nvtx_sum) has the oracle's instances, total, min and max;
  the closing table counts the same unclosed pushes and unmatched pops;
- messages: the otf2:MpiSend/MpiIsend and otf2:MpiRecv/MpiIrecv instants pair
  up by message_id, paired ends agree, and the pairs (and the unpaired ends)
  equal the oracle's matching, with both ends on the right stream and time,
  and each message is a flow: a start ("s") on its send end and an end
  ("f") on its receive end, id = message_id;
- metrics: per member name, the multiset of (stream, ns, args.value) of
  the "C" events named after the member equals the oracle's samples: every
  value of every Metric record on its recording location's stream
  (docs/otf2-mapping.md, Metrics) at the record's time; values exactly:
  integers as integers, doubles as the double nearest to the JSON's decimal
  (number(): the sink prints shortest round-trip doubles, so equality is
  exact). No other counter series. Without the oracle's detail: per member
  count and sum (relative tolerance 1e-9);
- tasks: otf2:ThreadTaskCreate/otf2:ThreadTaskComplete instants and
  otf2:TaskSlice "X" events on the location rows, by count and distinct
  (team, creating_thread, generation); with the detail, every slice as
  (stream, task key, begin ns, end ns) and every create/complete instant as
  (stream, kind, task key, ns) (task key = args team, creating_thread,
  generation, creating_thread as recorded); each slice and instant again on
  its task's row (tid >= 2^32, docs/chrome-json.md "Tasks", which the other
  checks leave out), identical but for tid/pid;
- instants (with the detail): per location the "i" events of its stream,
  but "(unmatched pop)", equal the oracle's instant_list, every record the
  importer writes as a mark, by (name, ns, args restricted to the archive's
  attribute names and, for otf2:Parameter*, "parameter" and "value"), so a
  dropped, moved or added instant, a wrong attribute or parameter value
  fails; and no instant on other streams;
- --stderr: the importer's stderr has the closing summary line
  "nvtxw-otf2-import: N events from L locations" with the oracle's N and L,
  and no "skipped K <Kind> events" line.

--event-prefix names the prefix of non-region event names (default
"otf2:"); --stats-prefix is put before region names when looking them up in
the stats (default none: regions are ranges of the default domain).

The second form checks that two JSON traces of the same archive hold the
same events: events are compared as a multiset after replacing pid/tid by
the process and thread names and synthetic b/e IDs by their per-stream part,
so stream open order (which may differ with --threads) does not matter.

Prints one line per check ("ok - ..." or "not ok - ... expected X got Y")
and "N checks, M failed"; exits 1 when a check failed or none ran.
tests/otf2/checker_test.sh shows each content check failing on a
deliberately wrong JSON (tests/otf2/mutate_json.py).
"""
import argparse
import csv
import json
import math
import os
import re
import sys
from collections import Counter, defaultdict
from decimal import Decimal

SYNTHETIC_ID = 0x8000000000000000


class Checks:
    def __init__(self):
        self.count = 0
        self.failed = 0

    def ok(self, name, passed, expected=None, got=None):
        self.count += 1
        if passed:
            print("ok - %s" % name)
        else:
            self.failed += 1
            print("not ok - %s: expected %s got %s" % (name, clip(expected), clip(got)))
        return passed

    def equal(self, name, expected, got):
        return self.ok(name, expected == got, expected, got)

    def summary(self):
        print("%d checks, %d failed" % (self.count, self.failed))
        return 1 if self.failed or not self.count else 0


def clip(value, limit=300):
    text = str(value)
    return text if len(text) <= limit else text[:limit] + "..."


def number(value):
    """A JSON or oracle number for exact comparison: integral values as
    Python ints (exact at any size), others as the double nearest to the
    JSON's decimal text (float(Decimal) rounds correctly), so a double the
    JSON writer printed with round-trip precision equals the oracle's double
    exactly and one printed with fewer digits does not. The JSON sink writes
    NaN and infinities as the strings "nan", "inf", "-inf"."""
    if isinstance(value, bool) or not isinstance(value, (int, float, Decimal)):
        return value
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, Decimal) and not value.is_finite():
        return "nan" if value.is_nan() else ("inf" if value > 0 else "-inf")
    if value == int(value):
        return int(value)
    return float(value)


def canonical_args(args):
    """A hashable, order-free text of an args object, numbers by number();
    no args and empty args are the same."""
    if not args:
        return "{}"
    if not isinstance(args, dict):
        return json.dumps(args)
    return json.dumps({k: number(v) for k, v in args.items()}, sort_keys=True, default=str)


def multiset_diff(expected, got, limit=3):
    """Short description of how two Counters differ."""
    missing = list((expected - got).elements())[:limit]
    extra = list((got - expected).elements())[:limit]
    return "missing %s, unexpected %s" % (missing, extra)


# --- inputs --------------------------------------------------------------

TASK_TID_BASE = 1 << 32


class Trace:
    """A Chrome trace: streams by (pid, tid) and events by phase. Events on
    task rows (tid >= TASK_TID_BASE) are in task_events, not in events."""

    def __init__(self, path):
        with open(path, encoding="utf-8") as f:
            self.doc = json.load(f, parse_float=Decimal)
        self.all_events = self.doc["traceEvents"]
        self.events = [e for e in self.all_events if not is_task_row(e)]
        self.task_events = [e for e in self.all_events if is_task_row(e) and e.get("ph") != "M"]
        self.base_given = self.doc.get("otherData", {}).get("timestampBase_ns")
        self.base = self.base_given if isinstance(self.base_given, int) else 0
        self.threads = {}
        self.task_threads = {}
        self.processes = {}
        for e in self.all_events:
            if e.get("ph") == "M" and e.get("name") == "thread_name" and is_task_row(e):
                self.task_threads[(e["pid"], e["tid"])] = e["args"]["name"]
            elif e.get("ph") == "M" and e.get("name") == "thread_name":
                self.threads[(e["pid"], e["tid"])] = e["args"]["name"]
            elif e.get("ph") == "M" and e.get("name") == "process_name":
                self.processes[e["pid"]] = e["args"]["name"]

    def ns(self, micros):
        return int(Decimal(micros) * 1000) + self.base

    def end_ns(self, e):
        """End of an "X" event: ns(ts) + dur in ns."""
        return self.ns(e["ts"]) + int(Decimal(e.get("dur", 0)) * 1000)

    def stream(self, e):
        return self.threads.get((e.get("pid"), e.get("tid")))

    def phase(self, ph):
        return [e for e in self.events if e.get("ph") == ph]


def is_task_row(e):
    return isinstance(e.get("tid"), int) and e["tid"] >= TASK_TID_BASE


def read_stats(path):
    """The push/pop summary rows {name: (instances, total, min, max)}, the
    closing table as a dict and a description of the table used."""
    tables, current = [], []
    with open(path, newline="", encoding="utf-8") as f:
        for row in csv.reader(f):
            if not row:
                if current:
                    tables.append(current)
                current = []
            else:
                current.append(row)
    if current:
        tables.append(current)
    summaries = [t for t in tables if "Range" in t[0] and "Instances" in t[0]]
    footer = next((t for t in tables if t[0] and t[0][0] == "Unclosed PushPop"), None)
    closing = dict(zip(footer[0], footer[1])) if footer and len(footer) > 1 else None
    styled = [t for t in summaries if "Style" in t[0]]
    unstyled = [t for t in summaries if "Style" not in t[0]]
    if unstyled:
        table, source = unstyled[0], "nvtx_pushpop_sum (first summary table without Style)"
    elif styled:
        table, source = styled[0], "nvtx_sum rows with Style PushPop"
    else:
        return None, closing, "no summary table"
    head = table[0]
    col = {name: head.index(name) for name in head}
    rows = {}
    for row in table[1:]:
        if "Style" in col and row[col["Style"]] != "PushPop":
            continue
        rows[row[col["Range"]]] = (int(row[col["Instances"]]), int(row[col["Total Time (ns)"]]),
                                   int(row[col["Min (ns)"]]), int(row[col["Max (ns)"]]))
    return rows, closing, source


def load_oracle(archive, path):
    if path:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    sys.dont_write_bytecode = True  # no __pycache__ in the source tree
    import otf2_oracle
    return otf2_oracle.compute(archive, detail=True)


# --- checks ----------------------------------------------------------------

class ImportCheck:
    def __init__(self, checks, oracle, trace, prefix, stats_prefix):
        self.c = checks
        self.o = oracle
        self.t = trace
        self.prefix = prefix
        self.stats_prefix = stats_prefix
        self.detail = "range_list" in next(iter(oracle["locations"].values()), {})
        self.stream_of = {ref: loc["stream"] for ref, loc in oracle["locations"].items()}

    def named(self, ph, kind):
        return [e for e in self.t.phase(ph) if e.get("name") == self.prefix + kind]

    def is_region(self, e):
        return not str(e.get("name", "")).startswith(self.prefix)

    def structure(self):
        c = self.c
        c.ok("json: traceEvents is a non-empty list",
             isinstance(self.t.events, list) and len(self.t.events) > 0, "events", "none")
        c.ok("json: otherData.timestampBase_ns is an integer",
             isinstance(self.t.base_given, int), "integer", self.t.base_given)

    def streams(self):
        names = Counter(self.t.threads.values())
        wanted = Counter(self.stream_of.values())
        missing = sorted(set(wanted) - set(names))
        twice = sorted(n for n in wanted if names[n] > 1)
        self.c.ok("streams: every location is one thread named '<group>/<name> [L<id>]'",
                  not missing and not twice, "%d streams" % len(wanted),
                  "missing %s, repeated %s" % (missing[:3], twice[:3]))
        self.c.equal("streams: one thread per location", len(self.stream_of), len(names))

    def regions(self):
        by_stream = defaultdict(list)
        for e in self.t.phase("X"):
            if self.is_region(e):
                by_stream[self.t.stream(e)].append(e)
        for ref, loc in self.o["locations"].items():
            got = by_stream.pop(loc["stream"], [])
            self.c.equal("L%s region ranges: count" % ref, loc["ranges"], len(got))
            if self.detail:
                want_rows = [(r[0], r[1], r[2], canonical_args(dict(r[3], **r[4])))
                             for r in loc["range_list"]]
                have_rows = [(e["name"], self.t.ns(e["ts"]), self.t.end_ns(e),
                              canonical_args(e.get("args"))) for e in got]
                want = Counter(r[:3] for r in want_rows)
                have = Counter(r[:3] for r in have_rows)
                self.c.ok("L%s region ranges: (name, begin ns, end ns)" % ref, want == have,
                          "%d ranges" % sum(want.values()), multiset_diff(want, have))
                want, have = Counter(want_rows), Counter(have_rows)
                self.c.ok("L%s region ranges: args = the Enter's and Leave's attributes"
                          % ref, want == have, "%d ranges" % sum(want.values()),
                          multiset_diff(want, have))
        stray = sum(len(v) for v in by_stream.values())
        self.c.equal("region ranges: none outside the locations' streams", 0, stray)
        pushes = sum(loc["unclosed_push"] for loc in self.o["locations"].values())
        pops = sum(loc["unmatched_pop"] for loc in self.o["locations"].values())
        self.c.equal("pushes never popped are B events", pushes, len(self.t.phase("B")))
        unmatched = [e for e in self.t.phase("i") if e.get("name") == "(unmatched pop)"]
        self.c.equal("pops on an empty stack are '(unmatched pop)' instants", pops, len(unmatched))

    def stats(self, path):
        rows, closing, source = read_stats(path)
        if not self.c.ok("stats: a push/pop summary table (%s)" % source, rows is not None,
                         "a table with Range and Instances columns", source):
            return
        for name, want in self.o["regions"].items():
            key = self.stats_prefix + name
            got = rows.get(key)
            hint = ""
            if got is None and (self.prefix + name) in rows:
                hint = " (found as %r: regions in the %r domain? see --stats-prefix)" % (
                    self.prefix + name, self.prefix.rstrip(":"))
            self.c.equal("stats %r: instances, total, min, max ns" % key,
                         (want["count"], want["total_ns"], want["min_ns"], want["max_ns"]),
                         str(got) + hint if got is None else got)
        known = {self.stats_prefix + n for n in self.o["regions"]}
        odd = sorted(n for n in rows if n not in known and not n.startswith(self.prefix))
        self.c.equal("stats: every other push/pop row is an %s event" % self.prefix, [], odd)
        if self.c.ok("stats: closing table of unclosed ranges", closing is not None,
                     "Unclosed PushPop,...", None):
            locs = self.o["locations"].values()
            self.c.equal("stats: unclosed push/pop ranges",
                         (sum(l["unclosed_push"] for l in locs),
                          sum(l["unmatched_pop"] for l in locs)),
                         (int(closing.get("Unclosed PushPop", -1)),
                          int(closing.get("Unmatched Pop", -1))))

    def messages(self):
        m = self.o["messages"]
        sends = self.named("i", "MpiSend") + self.named("i", "MpiIsend")
        recvs = self.named("i", "MpiRecv") + self.named("i", "MpiIrecv")
        self.c.equal("messages: send ends", len(m["matched"]) + len(m["unmatched_sends"]),
                     len(sends))
        self.c.equal("messages: receive ends", len(m["matched"]) + len(m["unmatched_recvs"]),
                     len(recvs))
        fields = ("communicator", "sender", "receiver", "tag", "bytes")
        missing = [e for e in sends + recvs
                   if not all(k in e.get("args", {}) for k in fields + ("message_id",))]
        if not self.c.equal("messages: every end has the otf2_mpi_message fields", 0,
                            len(missing)):
            return
        by_id = defaultdict(lambda: ([], []))
        for e in sends:
            by_id[e["args"]["message_id"]][0].append(e)
        for e in recvs:
            by_id[e["args"]["message_id"]][1].append(e)
        crowded = [i for i, (s, r) in by_id.items() if len(s) > 1 or len(r) > 1]
        self.c.equal("messages: no message_id on two sends or two receives", [], crowded[:5])
        pairs = [(s[0], r[0]) for s, r in by_id.values() if len(s) == 1 and len(r) == 1]
        key = lambda e: tuple(e["args"][k] for k in fields)
        differ = [(key(s), key(r)) for s, r in pairs if key(s) != key(r)]
        self.c.equal("messages: paired ends agree on communicator/sender/receiver/tag/bytes",
                     [], differ[:3])
        want = Counter(tuple(x) for x in m["matched"])
        have = Counter(key(s) for s, _ in pairs)
        self.c.ok("messages: matched messages equal the oracle's", want == have,
                  "%d messages" % sum(want.values()), multiset_diff(want, have))
        lone_s = Counter(key(s[0]) for s, r in by_id.values() if len(s) == 1 and not r)
        lone_r = Counter(key(r[0]) for s, r in by_id.values() if len(r) == 1 and not s)
        want_s = Counter(tuple(x) for x in m["unmatched_sends"])
        want_r = Counter(tuple(x) for x in m["unmatched_recvs"])
        self.c.ok("messages: unmatched ends equal the oracle's",
                  lone_s == want_s and lone_r == want_r,
                  (sum(want_s.values()), sum(want_r.values())),
                  (multiset_diff(want_s, lone_s), multiset_diff(want_r, lone_r)))
        blocking = [e for e in self.named("i", "MpiSend") + self.named("i", "MpiRecv")
                    if e["args"].get("request", 0) != 0]
        self.c.equal("messages: blocking ends carry request 0", 0, len(blocking))
        # every message is drawn: a flow start ("s") on its send end's thread
        # and a flow end ("f", bound to the enclosing slice) on the receive
        # end's, id = message_id (docs/chrome-json.md, Flows)
        ids = {"0x%x" % e["args"]["message_id"] for e in sends + recvs}
        starts = Counter((e["id"], e["pid"], e["tid"], e["ts"]) for e in self.t.events
                         if e.get("ph") == "s" and e.get("id") in ids)
        ends = Counter((e["id"], e["pid"], e["tid"], e["ts"]) for e in self.t.events
                       if e.get("ph") == "f" and e.get("bp") == "e" and e.get("id") in ids)
        want_s = Counter(("0x%x" % sd["args"]["message_id"], sd["pid"], sd["tid"], sd["ts"])
                         for sd in sends if sd["args"]["message_id"] != 0)
        want_f = Counter(("0x%x" % rv["args"]["message_id"], rv["pid"], rv["tid"], rv["ts"])
                         for rv in recvs if rv["args"]["message_id"] != 0)
        self.c.ok("messages: a flow start on every send end and a flow end on every receive "
                  "end, id = message_id", starts == want_s and ends == want_f,
                  "%d and %d" % (sum(want_s.values()), sum(want_f.values())),
                  (multiset_diff(want_s, starts), multiset_diff(want_f, ends)))
        if self.detail:
            self.message_times(pairs, key)

    def message_times(self, pairs, key):
        want = Counter()
        for row in self.o["messages"]["matched_detail"]:
            comm, snd, rcv, tag, sbytes, sloc, sns, _, rloc, rns = row
            want[(comm, snd, rcv, tag, sbytes, self.stream_of[str(sloc)], sns,
                  self.stream_of[str(rloc)], rns)] += 1
        have = Counter(key(s) + (self.t.stream(s), self.t.ns(s["ts"]),
                                 self.t.stream(r), self.t.ns(r["ts"])) for s, r in pairs)
        self.c.ok("messages: both ends on the oracle's streams at the oracle's ns",
                  want == have, "%d messages" % sum(want.values()), multiset_diff(want, have))

    def metrics(self):
        """Every sample: with the oracle's detail, per member name the
        multiset of (stream, ns, value) of the "C" events named after it
        (args.value) equals the oracle's Metric values on the recording
        location at the record's time, values exact (number()); else count
        and sum."""
        series = defaultdict(list)
        for e in self.t.phase("C"):
            series[e.get("name")].append(e)
        want_samples = defaultdict(Counter)
        if self.detail:
            for ref, loc in self.o["locations"].items():
                for name, ns, value in loc["metric_list"]:
                    want_samples[name][(loc["stream"], ns, number(value))] += 1
        for name, want in self.o["metrics"].items():
            events = series.pop(name, [])
            if self.detail:
                have = Counter((self.t.stream(e), self.t.ns(e["ts"]),
                                number(e.get("args", {}).get("value"))) for e in events)
                self.c.ok("metric %r: every sample (stream, ns, value)" % name,
                          have == want_samples[name], "%d samples" % want["count"],
                          multiset_diff(want_samples[name], have))
                continue
            values = [e.get("args", {}).get("value") for e in events]
            total = math.fsum(float(v) for v in values if v is not None)
            close = math.isclose(total, want["sum"], rel_tol=1e-9, abs_tol=1e-9)
            self.c.ok("metric %r: count and sum" % name,
                      len(values) == want["count"] and close,
                      (want["count"], want["sum"]), (len(values), total))
        self.c.equal("metrics: no counter series besides the archive's members", [],
                     sorted(series)[:5])

    def tasks(self):
        t = self.o["tasks"]
        creates = self.named("i", "ThreadTaskCreate")
        completes = self.named("i", "ThreadTaskComplete")
        slices = self.named("X", "TaskSlice")
        self.c.equal("tasks: ThreadTaskCreate instants", t["create"], len(creates))
        self.c.equal("tasks: ThreadTaskComplete instants", t["complete"], len(completes))
        self.c.equal("tasks: TaskSlice ranges (one per switch)", t["slices"], len(slices))
        row_key = lambda e: (e["name"], e["ts"], e.get("dur"),
                             json.dumps(e.get("args"), sort_keys=True, default=str))
        for ph, what, names, mine in (
                ("X", "TaskSlice", ("TaskSlice",), slices),
                ("i", "ThreadTaskCreate/Complete instant",
                 ("ThreadTaskCreate", "ThreadTaskComplete"), creates + completes)):
            names = {self.prefix + n for n in names}
            on_rows = Counter(row_key(e) for e in self.t.task_events
                              if e.get("ph") == ph and e.get("name") in names)
            copies = Counter(row_key(e) for e in mine)
            self.c.ok("tasks: every %s again on its task's row" % what, on_rows == copies,
                      sum(copies.values()), multiset_diff(copies, on_rows))
        fields = ("team", "creating_thread", "generation")
        key = lambda e: tuple(e.get("args", {}).get(k) for k in fields)
        if self.detail:
            self.task_times(creates + completes, slices, key)
        distinct = {key(e) for e in creates + completes + slices}
        self.c.equal("tasks: distinct (team, creating_thread, generation)", t["distinct"],
                     len(distinct))
        if self.detail and t["slices"]:
            have = Counter(key(e) for e in slices)
            raw = Counter({tuple(r[:3]): r[3] for r in t["slice_keys"]})
            mapped = Counter({tuple(r[:3]): r[3] for r in t["slice_keys_mapped"]})
            how = ("creating_thread as the thread's index in the team" if have == raw else
                   "creating_thread as the thread's location id" if have == mapped else None)
            self.c.ok("tasks: slices per task (%s)" % (how or "neither representation"),
                      how is not None, multiset_diff(raw, have), "no match")

    def task_times(self, marks, slices, key):
        """Each slice's (stream, task key, begin ns, end ns) and each
        create/complete instant's (stream, kind, task key, ns) equal the
        oracle's, task keys as recorded (team, creating thread, generation)."""
        want_slices, want_marks = Counter(), Counter()
        for loc in self.o["locations"].values():
            for task, begin, end in loc["slice_list"]:
                want_slices[(loc["stream"], tuple(task), begin, end)] += 1
            for kind, task, ns in loc["task_list"]:
                want_marks[(loc["stream"], self.prefix + kind, tuple(task), ns)] += 1
        have = Counter((self.t.stream(e), key(e), self.t.ns(e["ts"]), self.t.end_ns(e))
                       for e in slices)
        self.c.ok("tasks: every TaskSlice (stream, task, begin ns, end ns)",
                  have == want_slices, "%d slices" % sum(want_slices.values()),
                  multiset_diff(want_slices, have))
        have = Counter((self.t.stream(e), e["name"], key(e), self.t.ns(e["ts"])) for e in marks)
        self.c.ok("tasks: every ThreadTaskCreate/Complete instant (stream, kind, task, ns)",
                  have == want_marks, "%d instants" % sum(want_marks.values()),
                  multiset_diff(want_marks, have))

    def instants(self):
        """Per location, the "i" events of its stream (but "(unmatched
        pop)") equal the oracle's instant_list: (name, ns, args), where args
        are the JSON args restricted to the archive's attribute names and,
        for otf2:Parameter*, "parameter" and "value"."""
        attributes = set(self.o.get("attribute_names", ()))
        parameters = {self.prefix + k for k in ("ParameterInt", "ParameterUnsignedInt",
                                                "ParameterString")}
        by_stream = defaultdict(Counter)
        for e in self.t.phase("i"):
            if e.get("name") == "(unmatched pop)":
                continue
            args = e.get("args", {}) if isinstance(e.get("args"), dict) else {}
            keep = attributes | ({"parameter", "value"} if e.get("name") in parameters else set())
            picked = {k: v for k, v in args.items() if k in keep}
            by_stream[self.t.stream(e)][(e.get("name"), self.t.ns(e["ts"]),
                                          canonical_args(picked))] += 1
        for ref, loc in self.o["locations"].items():
            want = Counter((name, ns, canonical_args(args))
                           for name, ns, args in loc["instant_list"])
            have = by_stream.pop(loc["stream"], Counter())
            self.c.ok("L%s instants: (name, ns, attribute and parameter args)" % ref,
                      want == have, "%d instants" % sum(want.values()),
                      multiset_diff(want, have))
        stray = sum(sum(c.values()) for c in by_stream.values())
        self.c.equal("instants: none outside the locations' streams", 0, stray)

    def stderr(self, path):
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        match = re.search(r"^nvtxw-otf2-import: (\d+) events from (\d+) locations", text,
                          re.MULTILINE)
        totals = self.o["totals"]
        self.c.equal("stderr: summary 'N events from L locations'",
                     (totals["events"], totals["locations"]),
                     (int(match.group(1)), int(match.group(2))) if match else None)
        skipped = re.findall(r"skipped \d+ \S+ events", text)
        self.c.equal("stderr: no event kind skipped", [], skipped)


# --- same content ------------------------------------------------------------

def task_scopes(trace):
    """Task scope ID -> set of (team, creating_thread, generation) seen with it."""
    keys = {}
    for e in trace.events:
        args = e.get("args")
        if isinstance(args, dict) and "task" in args:
            key = (args.get("team"), args.get("creating_thread"), args.get("generation"))
            keys.setdefault(args["task"], set()).add(key)
    return keys


def canonical_events(trace):
    """The trace's events as sorted JSON strings, independent of pid/tid and
    of the numbering of task scopes (replaced by the task's key; that each
    scope ID names one task is checked by same_content)."""
    out = Counter()
    for e in trace.all_events:
        e = dict(e)
        if isinstance(e.get("args"), dict) and "task" in e["args"]:
            e["args"] = dict(e["args"])
            e["args"]["task"] = "task scope"
        if isinstance(e.get("args"), dict) and "task_scope" in e["args"]:
            e["args"] = dict(e["args"])
            e["args"]["task_scope"] = "task scope"  # a task row's thread_name
        if e.get("ph") == "M":
            if e.get("name") in ("thread_sort_index", "process_sort_index"):
                continue
            if e.get("pid") == 1 and e.get("name") == "process_name":
                continue  # the session's name
        stream = trace.threads.get((e.get("pid"), e.get("tid")),
                                   trace.task_threads.get((e.get("pid"), e.get("tid"))))
        e["pid"] = trace.processes.get(e.get("pid"), e.get("pid"))
        e["tid"] = stream if stream is not None else e.get("tid")
        if "id" in e:
            value = int(str(e["id"]), 16) if str(e["id"]).startswith("0x") else e["id"]
            if isinstance(value, int) and value & SYNTHETIC_ID:
                e["id"] = "synthetic:%d" % (value & 0xFFFFFFFF)
        out[json.dumps(e, sort_keys=True, default=str)] += 1
    return out


def same_content(checks, path_a, path_b):
    a, b = Trace(path_a), Trace(path_b)
    checks.equal("same content: timestampBase_ns", a.base_given, b.base_given)
    checks.equal("same content: thread names", sorted(a.threads.values()),
                 sorted(b.threads.values()))
    for label, trace in (("A", a), ("B", b)):
        scopes = task_scopes(trace)
        owners = Counter(key for keys in scopes.values() for key in keys)
        checks.ok("same content: %s: every task scope names one task and every task has one "
                  "scope (%d tasks)" % (label, len(scopes)),
                  all(len(keys) == 1 for keys in scopes.values())
                  and all(n == 1 for n in owners.values()),
                  "one to one", "a scope shared by tasks or a task with several scopes")
    ea, eb = canonical_events(a), canonical_events(b)
    checks.ok("same content: %d events, pid/tid by name" % sum(ea.values()), ea == eb,
              "%d events" % sum(ea.values()), multiset_diff(ea, eb, 2))


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--oracle")
    parser.add_argument("--stderr")
    parser.add_argument("--event-prefix", default="otf2:")
    parser.add_argument("--stats-prefix", default="")
    parser.add_argument("--same-content", action="store_true")
    args = parser.parse_args(argv)
    checks = Checks()
    if args.same_content:
        if len(args.paths) != 2:
            parser.error("--same-content takes two JSON files")
        same_content(checks, *args.paths)
        return checks.summary()
    if len(args.paths) != 3:
        parser.error("expected ARCHIVE JSON STATS_CSV")
    archive, json_path, csv_path = args.paths
    check = ImportCheck(checks, load_oracle(archive, args.oracle), Trace(json_path),
                        args.event_prefix, args.stats_prefix)
    check.structure()
    check.streams()
    check.regions()
    check.stats(csv_path)
    check.messages()
    check.metrics()
    check.tasks()
    if check.detail:
        check.instants()
    if args.stderr:
        check.stderr(args.stderr)
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
