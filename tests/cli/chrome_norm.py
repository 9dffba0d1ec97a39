"""chrome_norm.py: compare the events of Chrome trace JSON files, payload
fields (args) included, with their values and JSON types.

  chrome_norm.py A.json B.json [A.out B.out]
      Round trip report -> JSON A -> report -> JSON B (both written by the
      JSON sink, docs/chrome-json.md). Per thread (by thread_name), in file
      order, every member of every event but pid/tid is compared: name, cat,
      ph, ts, dur, id, s, bp, cname and each args field, its name, position,
      type and value. Numbers are compared by their text (both sides come
      from the same writer: integers exact, doubles shortest round-trip, so
      a uint64 that lost precision, an int that became a float or a string,
      or a double's last digit all differ).
  chrome_norm.py --input TRACE.json OUT.json [A.out B.out]
      Chrome trace input: TRACE given to nvtxw-replay, OUT its report written
      by the JSON sink. The events TRACE should become are derived here from
      TRACE alone by the rules of docs/chrome-input.md (phases, payloads,
      flows, counters, time), each event's expected args compared with OUT's
      by field name, position, type and value (doubles by value: the report
      keeps a double, not the input's text), and its flows (the flow ids it
      starts and ends) with the flow events OUT writes just before it.

Only the documented changes are normalised, each at the line that does it
with the doc section it follows. Exit 0 when equal; else 1 and, on stderr,
the first differing event of each side and the field that differs. A.out /
B.out receive the normalised events, one per line (for debugging and greps).
"""
import json
import sys
from decimal import ROUND_HALF_EVEN, Decimal


class Obj(list):
    """A JSON object as its (key, value) pairs: order and duplicates kept."""

    def get(self, key, default=None):
        for k, v in reversed(self):
            if k == key:
                return v
        return default


class Num:
    """A JSON number kept as its text (json.load would round big ints' and
    doubles' texts to Python values and forget 1 vs 1.0)."""

    def __init__(self, text, is_float):
        self.text, self.is_float = text, is_float


def parse(text):
    return json.loads(text, object_pairs_hook=Obj, parse_int=lambda s: Num(s, False),
                      parse_float=lambda s: Num(s, True), parse_constant=lambda s: Num(s, True))


def load(path):
    with open(path, encoding="utf-8") as f:
        doc = parse(f.read())
    return doc.get("traceEvents") if isinstance(doc, Obj) else doc, doc


def typed(v, float_by_value):
    """A hashable (type, value) form of a JSON value."""
    if isinstance(v, Num):
        if not v.is_float:
            return ("int", int(v.text))
        return ("float", float(v.text) if float_by_value else v.text)
    if isinstance(v, bool):
        return ("bool", v)
    if isinstance(v, str):
        return ("string", v)
    if v is None:
        return ("null",)
    if isinstance(v, Obj):
        return ("object", tuple((k, typed(x, float_by_value)) for k, x in v))
    return ("array", tuple(typed(x, float_by_value) for x in v))


def show(t):
    """A typed value as text: 5 (int), 0.5 (float), "x" (string), ..."""
    kind = t[0]
    if kind == "int":
        return "%d (int)" % t[1]
    if kind == "float":
        return "%s (float)" % (t[1] if isinstance(t[1], str) else repr(t[1]))
    if kind in ("string", "bool"):
        return "%s (%s)" % (json.dumps(t[1], ensure_ascii=False), kind)
    if kind == "task":
        return "the task scope of %s (int)" % json.dumps(t[1])
    if kind == "anyscope":
        return "a process scope ID >= 2^32 (int)"
    if kind == "null":
        return "null"
    if kind == "array":
        return "[" + ", ".join(show(x) for x in t[1]) + "] (array)"
    return "{" + ", ".join("%s: %s" % (json.dumps(k), show(x)) for k, x in t[1]) + "} (object)"


def same(expected, got, float_by_value):
    """expected and got agree; "anyscope" is a documented change."""
    if expected[0] == "anyscope":
        return got[0] == "int" and got[1] >= 1 << 32
    if expected[0] in ("object", "array") and expected[0] == got[0]:
        if expected[0] == "object":
            return len(expected[1]) == len(got[1]) and all(
                a[0] == b[0] and same(a[1], b[1], float_by_value) for a, b in zip(expected[1], got[1]))
        return len(expected[1]) == len(got[1]) and all(
            same(a, b, float_by_value) for a, b in zip(expected[1], got[1]))
    return expected == got


def field_diff(a, b, float_by_value):
    """The first differing args field of two (key, typed) lists, as text."""
    for i in range(max(len(a), len(b))):
        if i >= len(a):
            return "field %s = %s only in the second" % (json.dumps(b[i][0]), show(b[i][1]))
        if i >= len(b):
            return "field %s = %s missing from the second" % (json.dumps(a[i][0]), show(a[i][1]))
        if a[i][0] != b[i][0]:
            return "field #%d named %s, then %s" % (i, json.dumps(a[i][0]), json.dumps(b[i][0]))
        if not same(a[i][1], b[i][1], float_by_value):
            return "field %s: %s, then %s" % (json.dumps(a[i][0]), show(a[i][1]), show(b[i][1]))
    return None


def clip(text, limit=700):
    return text if len(text) <= limit else text[:limit] + "... (%d characters)" % len(text)


def dump_event(e):
    """One normalised event as a line of text (members sorted, args typed)."""
    plain = {k: v for k, v in e.items() if k != "args"}
    text = json.dumps(plain, sort_keys=True)
    if "args" in e:
        text += " args: " + ", ".join("%s=%s" % (json.dumps(k), show(v)) for k, v in e["args"])
    return text


def write_out(path, events):
    with open(path, "w", encoding="utf-8") as f:
        for e in events:
            f.write(dump_event(e) + "\n")


# ---- round trip: JSON A and JSON B, both from the JSON sink ----

def member(v):
    """A top-level member other than args: strings as they are, numbers by
    their text (ts and dur have exactly three decimals, docs/chrome-json.md
    Time), so any change shows."""
    return v.text if isinstance(v, Num) else v


def sink_events(path, as_imported=None):
    """Per thread name, the events of a JSON sink file in file order; with
    `as_imported` (a set of args shapes), args as the import makes them."""
    events, _ = load(path)
    tname, task_path = {}, {}
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            args = e.get("args")
            tname[(member(e.get("pid")), member(e.get("tid")))] = args.get("name")
            if args.get("task_scope") is not None:
                task_path[int(args.get("task_scope").text)] = args.get("task_path")
    threads = {}
    for e in events:
        if e.get("ph") == "M":
            continue
        thread = tname.get((member(e.get("pid")), member(e.get("tid"))), "?")
        ev = {k: member(v) for k, v in e if k not in ("pid", "tid", "args")}
        ev["thread"] = thread
        if as_imported is not None and ev.get("ph") != "C":
            # The first file's args as the Chrome input imports them (nested
            # values and objects of over 64 keys become JSON text).
            args = import_args(e.get("args"), as_imported, False)
        else:
            args = [(k, typed(v, False)) for k, v in (e.get("args") or [])]
        # docs/chrome-input.md, Tasks: an integer "task" field naming a task
        # row's task_scope becomes a scope_id of the scope the import
        # registers again, so scope IDs change: compare the task's path.
        args = [(k, ("task", task_path[v[1]]) if k == "task" and v[0] == "int" and v[1] in task_path
                 else v) for k, v in args]
        out = threads.setdefault(thread, [])
        if ev.get("ph") == "C":
            # docs/chrome-input.md, Phases (C): one counter per args key, the
            # key "value" keeping the event's name, any other named
            # "NAME KEY"; so a counter group comes back split.
            for k, v in sorted(args):
                c = dict(ev)
                c["name"] = ev["name"] if k == "value" else ev["name"] + " " + k
                c["args"] = [("value", v)]
                out.append(c)
            continue
        if args:
            ev["args"] = args
        out.append(ev)
    for thread in threads:
        threads[thread] = sort_counter_runs(threads[thread])
    return threads


def sort_counter_runs(events):
    """Counter events of one ts in name order (a split group's series are
    written one counter at a time, in registration order)."""
    out, run = [], []
    for e in events + [None]:
        if e is not None and e.get("ph") == "C" and (not run or run[0]["ts"] == e["ts"]):
            run.append(e)
            continue
        out.extend(sorted(run, key=lambda c: c["name"]))
        run = []
        if e is not None and e.get("ph") == "C":
            run.append(e)
        elif e is not None:
            out.append(e)
    return out


def event_diff(a, b):
    """The first differing member of two normalised events, as text."""
    for k in sorted(set(a) | set(b)):
        if k == "args":
            continue
        if a.get(k) != b.get(k):
            return "member %s: %s, then %s" % (k, json.dumps(a.get(k)), json.dumps(b.get(k)))
    return field_diff(a.get("args", []), b.get("args", []), False)


def compare_round_trip(path_a, path_b):
    a, b = sink_events(path_a, set()), sink_events(path_b)
    problems = []
    for thread in sorted(set(a) | set(b)):
        ea, eb = a.get(thread, []), b.get(thread, [])
        for i in range(max(len(ea), len(eb))):
            if i >= len(ea) or i >= len(eb):
                extra = (eb if i >= len(ea) else ea)[i]
                problems.append("thread %s: %d events, then %d; first extra event #%d:\n  %s"
                                % (json.dumps(thread), len(ea), len(eb), i, dump_event(extra)))
                break
            diff = event_diff(ea[i], eb[i])
            if diff:
                problems.append("thread %s, event #%d differs: %s\n  first:  %s\n  second: %s"
                                % (json.dumps(thread), i, diff, dump_event(ea[i]), dump_event(eb[i])))
                break
    flat = lambda t: [e for th in sorted(t) for e in t[th]]
    return problems, flat(a), flat(b)


# ---- Chrome trace input: expected events from the trace itself ----

def ns(v):
    """docs/chrome-input.md, Time: decimal microseconds (a number or a
    numeric string) to integer nanoseconds, half to even, never a double."""
    text = v.text if isinstance(v, Num) else v
    return int(Decimal(text).scaleb(3).quantize(Decimal(1), rounding=ROUND_HALF_EVEN))


def ident(v):
    """pid/tid: numbers and strings are different ids (docs/chrome-input.md,
    Processes, threads, streams); missing means 0."""
    if v is None:
        return ("n", "0")
    return ("n", v.text) if isinstance(v, Num) else ("s", v)


def id_value(v):
    """A flow id by value: numbers and 0x text (docs/chrome-input.md, Phases)."""
    if isinstance(v, Num):
        return int(v.text)
    return int(v, 16) if v.lower().startswith("0x") else int(v)


def arg_value(v, float_by_value):
    """docs/chrome-input.md, Payloads 3: integers INT64/UINT64 (exact),
    other numbers DOUBLE, true/false UINT8 1/0, strings as they are,
    objects/arrays/null their JSON text marked as such, which the JSON sink
    writes as the same value again."""
    if isinstance(v, bool):
        return ("int", int(v))
    return typed(v, float_by_value)


def import_args(args, shapes, float_by_value):
    """The fields the Chrome input makes of an args object (docs/chrome-input.md,
    Payloads 3), as (key, typed) in order; `shapes` is the set of shapes seen."""
    if not isinstance(args, Obj) or not args:
        return []
    shape = tuple((k, shape_kind(v)) for k, v in args)
    if len(args) <= 64 and (shape in shapes or len(shapes) < 4096):
        shapes.add(shape)
        return [(k, arg_value(v, float_by_value)) for k, v in args]
    # docs/chrome-input.md, Payloads 3: beyond 4096 shapes, or over 64 keys,
    # one field "args" holds the whole object as JSON text (an object again).
    return [("args", typed(args, float_by_value))]


def shape_kind(v):
    if isinstance(v, bool):
        return "b"
    if isinstance(v, Num):
        return "d" if v.is_float else ("u" if int(v.text) > (1 << 63) - 1 else "i")
    return "s" if isinstance(v, str) else "j"


def is_fractional(v):
    """Counter series type (docs/chrome-input.md, Phases C): INT64 when every
    value is an integer, else DOUBLE."""
    return v.is_float or not -(1 << 63) <= int(v.text) < (1 << 63)


CLASS = {"X": "slice", "B": "slice", "i": "mark", "I": "mark", "n": "mark", "T": "mark",
         "R": "mark", "P": "mark", "O": "mark", "b": "begin", "S": "begin", "N": "begin",
         "e": "end", "F": "end", "D": "end"}


class InputOracle:
    def __init__(self, path):
        self.events, self.doc = load(path)
        self.shapes = set()
        self.threads = {}

    def thread_names(self):
        """thread_name, else "tid T"; a taken name gets " (pid P)"."""
        named = {}
        for e in self.events:
            if isinstance(e, Obj) and e.get("ph") == "M" and e.get("name") == "thread_name":
                named[(ident(e.get("pid")), ident(e.get("tid")))] = e.get("args").get("name")
        names, taken = {}, set()
        for e in self.events:
            if not isinstance(e, Obj) or e.get("ph") in ("M", None):
                continue
            key = (ident(e.get("pid")), ident(e.get("tid")))
            if key in names:
                continue
            name = named.get(key) or "tid " + key[1][1]
            if name in taken:
                name += " (pid %s)" % key[0][1]
            taken.add(name)
            names[key] = name
        return names

    def args_fields(self, e):
        return import_args(e.get("args"), self.shapes, True)

    def expected(self):
        names = self.thread_names()
        series_float = {}
        for e in self.events:
            if isinstance(e, Obj) and e.get("ph") == "C" and isinstance(e.get("args"), Obj):
                for k, v in e.get("args"):
                    if isinstance(v, Num) and not isinstance(v, bool):
                        key = (ident(e.get("pid")), e.get("name"), k)
                        series_float[key] = series_float.get(key, False) or is_fractional(v)
        out = {}
        open_b = {}
        pending_flow = {}  # thread -> a flow event waiting for the next event
        last = {}          # thread -> the previous expected event on the thread
        for e in self.events:
            if not isinstance(e, Obj):
                continue
            ph = e.get("ph")
            if ph == "M" or ph is None:
                continue
            thread = names[(ident(e.get("pid")), ident(e.get("tid")))]
            evs = out.setdefault(thread, [])
            ts = ns(e.get("ts"))
            if ph == "C":
                for k, v in e.get("args") or []:
                    if isinstance(v, Num):
                        kind = series_float[(ident(e.get("pid")), e.get("name"), k)]
                        name = e.get("name") if k == "value" else "%s %s" % (e.get("name"), k)
                        val = ("float", float(v.text)) if kind else ("int", int(v.text))
                        evs.append({"class": "counter", "name": name, "ts": ts,
                                    "args": [("value", val)], "flows": []})
                self.flush_flow(thread, evs, pending_flow, last)
                last[thread] = None
                continue
            if ph in ("s", "t", "f"):
                self.flow(e, ph, thread, ts, evs, pending_flow, last)
                continue
            if ph == "E":
                stack = open_b.get(thread, [])
                if stack:  # an unmatched E is skipped (Phases, B / E)
                    # docs/chrome-json.md, Events: the pop's X carries the
                    # push's args, then the pop's own.
                    pushed, popped = stack.pop(), self.args_fields(e)
                    pushed["args"].extend(popped)
                    pushed["flows"].extend(args_flows(popped))
                last[thread] = None
                continue
            if ph not in CLASS:
                continue  # unknown phases are ignored (Phases, last row)
            fields = []
            if ph in ("i", "I") and e.get("s") in ("g", "p"):
                # docs/chrome-input.md, Known gaps: "s":"p"/"s":"g" keep their
                # scope, which the JSON sink writes as the arg "scope": root
                # (1) or the process's scope (a dynamic ID the trace cannot
                # know, so any ID >= 2^32).
                fields.append(("scope", ("int", 1) if e.get("s") == "g" else ("anyscope",)))
            fields += self.args_fields(e)
            ev = {"class": CLASS[ph], "name": e.get("name"), "ts": ts, "args": fields,
                  "flows": args_flows(fields)}
            bind = e.get("bind_id")
            if bind is not None:  # flows v2 (Phases, bind_id)
                for k in ("flow_out", "flow_in"):
                    if e.get(k) is True:
                        add_flow(ev, k, id_value(bind))
            if ph == "B":
                open_b.setdefault(thread, []).append(ev)
            evs.append(ev)
            p = pending_flow.pop(thread, None)
            if p is not None and not bind_flow(ev, p):
                evs.insert(len(evs) - 1, p["mark"])
            last[thread] = ev
        for thread, evs in out.items():
            self.flush_flow(thread, evs, pending_flow, last)
        return out

    def flow(self, e, ph, thread, ts, evs, pending_flow, last):
        """docs/chrome-input.md, Phases (flows v1): flow_out (s), flow_in (f)
        or both (t) on the slice or instant at the same ts on the same thread
        just before or just after the flow event; else a MARK of its own."""
        fid = e.get("id")
        if fid is None:
            fid = e.get("id2").get("global") or e.get("id2").get("local")
        fid = id_value(fid)
        fields = [k for k, on in (("flow_out", ph != "f"), ("flow_in", ph != "s")) if on]
        # An unbound flow is a mark of its own whose flow fields are hidden:
        # no args, only the flow (docs/chrome-input.md, Payloads 4).
        flow = {"ts": ts, "fields": [(k, fid) for k in fields],
                "mark": {"class": "mark", "name": e.get("name"), "ts": ts, "args": [],
                         "flows": [(k, fid) for k in fields]}}
        prev = last.get(thread)
        if prev is not None and prev["class"] in ("slice", "mark") and bind_flow(prev, flow):
            return
        self.flush_flow(thread, evs, pending_flow, last)
        pending_flow[thread] = flow

    @staticmethod
    def flush_flow(thread, evs, pending_flow, last):
        p = pending_flow.pop(thread, None)
        if p is not None:
            evs.append(p["mark"])


def args_flows(fields):
    """The flows an event's own args bind: top-level integer fields
    flow_out / flow_in other than 0 (docs/chrome-json.md, Flows)."""
    return [(k, v[1]) for k, v in fields
            if k in ("flow_out", "flow_in") and v[0] == "int" and v[1] != 0]


def add_flow(ev, key, fid):
    # docs/chrome-input.md, Phases: args already holding the same integer
    # flow field get no second one; a bound flow is not an arg (Payloads 4).
    if (key, fid) not in ev["flows"]:
        ev["flows"].append((key, fid))


def bind_flow(ev, flow):
    if ev["ts"] != flow["ts"] or ev["class"] not in ("slice", "mark"):
        return False
    present = dict(ev["flows"])
    if any(k in present and present[k] != fid for k, fid in flow["fields"]):
        return False
    for k, fid in flow["fields"]:
        add_flow(ev, k, fid)
    return True


def output_events(path):
    """OUT's events per thread, as the oracle's classes, ts in producer ns."""
    events, doc = load(path)
    other = doc.get("otherData") if isinstance(doc, Obj) else None
    base = int(other.get("timestampBase_ns").text) if other and other.get("timestampBase_ns") else 0
    tname = {}
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            tname[(member(e.get("pid")), member(e.get("tid")))] = e.get("args").get("name")
    out = {}
    flows = {}  # thread -> the flow events ("s"/"f") written just before its next event
    cls = {"X": "slice", "B": "slice", "i": "mark", "b": "begin", "e": "end", "C": "counter"}
    for e in events:
        ph = e.get("ph")
        if ph not in cls and ph not in ("s", "f"):
            continue  # metadata
        thread = tname.get((member(e.get("pid")), member(e.get("tid"))), "?")
        ts = int(Decimal(e.get("ts").text).scaleb(3)) + base
        if ph in ("s", "f"):  # docs/chrome-json.md, Flows: before the event, same ts
            key = "flow_out" if ph == "s" else "flow_in"
            flows.setdefault(thread, []).append((ts, key, int(e.get("id"), 16)))
            continue
        mine = flows.pop(thread, [])
        if any(t != ts for t, _, _ in mine):
            raise SystemExit("chrome_norm: %s: a flow event at another ts than the %s event "
                             "after it at %d ns" % (path, ph, ts))
        out.setdefault(thread, []).append({"class": cls[ph], "name": e.get("name"), "ts": ts,
                                           "args": [(k, typed(v, True)) for k, v in e.get("args") or []],
                                           "flows": [(k, fid) for _, k, fid in mine]})
    if any(flows.values()):
        raise SystemExit("chrome_norm: %s: a flow event with no event after it" % path)
    return out


def key(ev):
    # Ends are matched by time alone: an end on another thread than its
    # begin has the name "" or its own (docs/chrome-json.md, Flows).
    return (ev["class"], ev["ts"], "" if ev["class"] == "end" else ev["name"])


def compare_input(path_in, path_out):
    exp, got = InputOracle(path_in).expected(), output_events(path_out)
    problems = []
    for thread in sorted(set(exp) | set(got)):
        pool = {}
        for ev in got.get(thread, []):
            pool.setdefault(key(ev), []).append(ev)
        for ev in exp.get(thread, []):
            cands = pool.get(key(ev))
            if not cands:
                problems.append("thread %s: input event %s has no output event (class, ts in ns, "
                                "name): %s" % (json.dumps(thread), json.dumps(key(ev)), show_ev(ev)))
                break
            o = cands.pop(0)
            diff = field_diff(ev["args"], o["args"], True)
            if not diff and sorted(ev["flows"]) != sorted(o["flows"]):
                diff = "flows %s in the input, %s in the output" % (sorted(ev["flows"]),
                                                                    sorted(o["flows"]))
            if diff:
                problems.append("thread %s, event %s at %d ns: %s\n  input:  %s\n  output: %s"
                                % (json.dumps(thread), json.dumps(ev["name"]), ev["ts"], diff,
                                   show_ev(ev), show_ev(o)))
                break
        left = [ev for evs in pool.values() for ev in evs]
        if left and not problems:
            problems.append("thread %s: output event without an input event: %s"
                            % (json.dumps(thread), show_ev(left[0])))
    flat = lambda t: [dict(e, thread=th) for th in sorted(t) for e in t[th]]
    return problems, flat(exp), flat(got)


def show_ev(ev):
    return "%s %s ts=%d args: %s" % (ev["class"], json.dumps(ev["name"]), ev["ts"],
                                      ", ".join("%s=%s" % (json.dumps(k), show(v)) for k, v in ev["args"]))


def main(argv):
    mode_input = argv[:1] == ["--input"]
    if mode_input:
        argv = argv[1:]
    if len(argv) not in (2, 4):
        sys.exit(__doc__)
    problems, a, b = (compare_input if mode_input else compare_round_trip)(argv[0], argv[1])
    if len(argv) == 4:
        write_out(argv[2], a)
        write_out(argv[3], b)
    if not a:
        problems.append("no events in %s: nothing compared" % argv[0])
    for p in problems[:3]:
        print("chrome_norm: " + "\n".join(clip(line) for line in p.split("\n")), file=sys.stderr)
    if len(problems) > 3:
        print("chrome_norm: ... and %d more threads differ" % (len(problems) - 3), file=sys.stderr)
    print("chrome_norm: %d events compared, %s" % (len(a), "differ" if problems else "same"),
          file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
