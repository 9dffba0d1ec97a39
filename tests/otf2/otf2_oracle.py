#!/usr/bin/python3
"""otf2_oracle.py - what an OTF2 archive holds, computed without nvtxw's C code.

Usage: otf2_oracle.py ARCHIVE/traces.otf2 [--detail] [--verify]
                      [--region-name canonical|name] [--indent N]

Reads the archive with Debian's python3-otf2 (the high-level reader, which
runs libotf2's global event reader after the local definitions: see "Clock
offsets and mapping tables" below) and prints one JSON object on stdout:

  clock      {timer_resolution, global_offset}
  attribute_names  [the names of the archive's Attribute definitions]
  locations  {"<location id>": {name, group, stream, declared, read, kinds,
             enter, leave, ranges, max_depth, unmatched_leave,
             mismatched_leave, unclosed_enter, unclosed_push, unmatched_pop,
             cross_pops, nonmonotonic: [[event number, previous time, time]
             ...]}}
  regions    {"<range name>": {count, total_ns, min_ns, max_ns}}
  messages   {matched: [[comm, sender, receiver, tag, bytes], ...],
             unmatched_sends, unmatched_recvs: (the same rows),
             matched_bytes_differ, unresolved}
  metrics    {"<counter name>": {count, sum}}: the member name, "(SCOPE)" added
             for a MetricInstance (series_name)
  tasks      {create, switch, complete, distinct, slices, slices_open}
  totals     {events, declared, locations}

comm is the communicator's global definition ID, sender and receiver are
world ranks (null when they cannot be told), event numbers count a
location's events from 1 (OTF2's event position).

--detail adds the lists check_import.py compares one by one, per location
(locations[*]), in the location's event order:
- range_list [[name, begin_ns, end_ns, enter_args, leave_args], ...]:
  every completed Enter/Leave pair; enter_args and leave_args = the Enter's
  and the Leave's attribute lists as {attribute name: value} (values below;
  {} without attributes);
- slice_list [[[team, creating_thread, generation], begin_ns, end_ns], ...]:
  every task slice, creating_thread as recorded;
- task_list [[kind, [team, creating_thread, generation], ns], ...]: every
  ThreadTaskCreate and ThreadTaskComplete;
- metric_list [[member name, ns, value], ...]: every value of every Metric
  record, on the location that recorded it, value as python3-otf2 reads it
  (int for integer members, float for FLOAT/DOUBLE: the JSON output keeps
  the double exactly, repr being round-trip);
- instant_list [[name, ns, args], ...]: every record the importer writes as
  a mark (an instant), i.e. every kind but those in NOT_INSTANTS; name is
  "otf2:<Kind>" (CallingContextSample: its region's range name); args = the
  record's attributes as in range_list, plus for Parameter{Int,UnsignedInt,
  String} "parameter" (the parameter's name) and "value".
Besides: messages.matched_detail [[comm, sender, receiver, tag, send bytes,
send location, send ns, receive bytes, receive location, receive ns], ...];
tasks.keys, keys_mapped, slice_keys and slice_keys_mapped (task keys with
creating_thread as the thread's index in the team, and as that thread's
location ID; the slice lists end with the number of slices).
--verify also re-reads every location with libotf2's local reader and clock
offsets and mapping tables switched off, applies them here (below) and
compares, and compares every location's events with otf2-print's listing;
the result is the "verification" member, and the exit status is 1 on any
difference.

Conventions (the importer's contract, docs/otf2-mapping.md):
- ns(t) = ((t - global_offset) * 10**9) // timer_resolution, exact integers,
  flooring toward -inf; a duration is ns(leave) - ns(enter).
- A range's name is the region's name (the display name), else its
  canonical name (an absent or empty name falls back to the canonical one);
  --region-name canonical prefers the canonical name.
- Enter/Leave nest per location like push/pop: a Leave closes the innermost
  open Enter (counted as mismatched_leave when the regions differ), a Leave
  on an empty stack is unmatched_leave, Enters open at the end are
  unclosed_enter. cross_pops counts pops that would close a push of another
  kind when ThreadTeamBegin/End and CallingContextEnter/Leave share the same
  stack, as they do in the importer (push/pop schemas).
- World rank of a location: its position in the archive's MPI
  COMM_LOCATIONS group, else the position of the member in the same location
  group (a process's other threads). A rank r in a communicator is the r-th
  member of the communicator's COMM_GROUP (members are world ranks); in a
  COMM_SELF group rank 0 is the event's own process.
- Messages are matched per (comm, sender, receiver, tag) in order: the n-th
  send with that key matches the n-th receive.
- Task slices: a ThreadTaskSwitch on a location starts a slice of that task
  and ends the slice running there; a ThreadTaskComplete of the running task
  ends it. slices_open counts slices still running at the location's end;
  such a slice ends at the location's last event (as the importer closes
  it). The legacy OmpTask* records are not task events here (their
  Create/Complete are instants).
- Attribute and parameter values as the importer's payload fields show
  them in the JSON (docs/otf2-mapping.md, Attributes and parameters):
  numbers as they are, strings as their text, a region as its range name,
  any other definition (location, group, metric, communicator, ...) as its
  global ID.

Clock offsets and mapping tables: python3-otf2 (otf2/reader.py) opens the
definition files, reads every selected location's local definitions with
OTF2_Reader_ReadAllLocalDefinitions and then reads events through the
global event reader, which always applies the location's mapping tables and
clock offsets (OTF2_EvtReader: "operated" readers ignore the apply flags).
--verify proves it on the archive at hand: it reads the raw values and
applies libotf2's rule itself. The rule (otf2_archive_location.c,
OTF2_EvtReader.c): consecutive ClockOffset definitions (t_i, o_i) form
intervals [t_i, t_i+1] with slope (o_i+1 - o_i) / (t_i+1 - t_i) in double;
a time uses the first interval whose end is >= t (the last one past the
end, the first one before the start), and is corrected by
o_i + rint(slope * (t - t_i)); a location with fewer than two offsets is not
corrected.
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys
from collections import Counter, defaultdict, deque

import otf2
from otf2.enums import GroupType, Paradigm

NS_PER_S = 10**9
TASK_KINDS = ("ThreadTaskCreate", "ThreadTaskSwitch", "ThreadTaskComplete")
PUSH_KINDS = {"Enter": "region", "ThreadTeamBegin": "team", "CallingContextEnter": "context"}
POP_KINDS = {"Leave": "region", "ThreadTeamEnd": "team", "CallingContextLeave": "context"}
# Records the importer writes as something else than an instant (ranges, the
# halves of ranges, counter samples, slice boundaries) or not at all; every
# other record kind is a mark, an "i" named "otf2:<Kind>" in the JSON
# (docs/otf2-mapping.md, Events), but CallingContextSample, named after the
# calling context's region.
NOT_INSTANTS = frozenset((
    "Enter", "Leave", "CallingContextEnter", "CallingContextLeave", "MpiCollectiveBegin",
    "MpiCollectiveEnd", "RmaCollectiveBegin", "RmaCollectiveEnd", "ThreadTeamBegin",
    "ThreadTeamEnd", "ThreadTaskSwitch", "OmpTaskSwitch", "Metric", "MeasurementOnOff",
    "BufferFlush", "IoOperationBegin", "IoOperationComplete", "Unknown"))
PARAMETER_KINDS = ("ParameterInt", "ParameterUnsignedInt", "ParameterString")
SEND_KINDS = ("MpiSend", "MpiIsend")
RECV_KINDS = ("MpiRecv", "MpiIrecv")


def series_name(metric, member):
    """The counter a metric member becomes (docs/otf2-mapping.md, Metrics):
    the member's name, and for a MetricInstance the name of the scope it
    measures in parentheses, so it differs from the class's own member."""
    if isinstance(metric, otf2.definitions.MetricInstance):
        scope = getattr(metric.scope, "name", "")
        if scope:
            return "%s (%s)" % (member.name, scope)
    return member.name


class Clock:
    """Converts OTF2 ticks to nanoseconds since the global offset."""

    def __init__(self, props):
        self.resolution = int(props.timer_resolution)
        self.offset = int(props.global_offset)

    def ns(self, ticks):
        return ((int(ticks) - self.offset) * NS_PER_S) // self.resolution


def range_name(region, prefer="canonical"):
    """The range name of a region: its canonical name, else its name (or the
    other way round with prefer="name")."""
    if region is None:
        return "(undefined region)"
    first, second = region.canonical_name, region.name
    if prefer == "name":
        first, second = second, first
    return first if first else second


def stream_name(location):
    group = location.group.name if location.group is not None else ""
    return "%s/%s [L%d]" % (group, location.name, location._ref)


class Ranks:
    """World ranks of locations and communicator ranks (module docstring)."""

    def __init__(self, defs):
        self.world = []
        for group in defs.groups:
            if group.group_type == GroupType.COMM_LOCATIONS and group.paradigm == Paradigm.MPI:
                self.world = list(group.members)
        self.by_location = {loc._ref: i for i, loc in enumerate(self.world)}
        self.by_group = {}
        for i, loc in enumerate(self.world):
            self.by_group.setdefault(id(loc.group), i)

    def of_location(self, location):
        rank = self.by_location.get(location._ref)
        if rank is None:
            rank = self.by_group.get(id(location.group))
        return rank

    def in_comm(self, comm, rank, location):
        """World rank of rank `rank` of `comm`, None when it cannot be told."""
        group = getattr(comm, "group", None)
        if group is None:
            return None
        if group.group_type == GroupType.COMM_SELF:
            return self.of_location(location) if rank == 0 else None
        if rank >= len(group.members):
            return None
        return self.by_location.get(group.members[rank]._ref)


class LocationState:
    def __init__(self, location):
        self.info = {
            "name": location.name,
            "group": location.group.name if location.group is not None else "",
            "stream": stream_name(location),
            "declared": int(location.number_of_events),
            "read": 0,
            "kinds": Counter(),
            "enter": 0,
            "leave": 0,
            "ranges": 0,
            "max_depth": 0,
            "unmatched_leave": 0,
            "mismatched_leave": 0,
            "unclosed_enter": 0,
            "unclosed_push": 0,
            "unmatched_pop": 0,
            "cross_pops": 0,
            "nonmonotonic": [],
        }
        self.regions = []  # Enter/Leave stack: (region, ns, the Enter's attribute args)
        self.pushes = []  # all push kinds: kind
        self.last_time = None
        self.slice = None  # running task slice: (key, mapped key, begin_ns)
        self.range_list = []
        self.slice_list = []
        self.metric_list = []
        self.task_list = []
        self.instant_list = []


class Oracle:
    def __init__(self, defs, detail, region_name="name"):
        self.region_name = region_name
        self.clock = Clock(defs.clock_properties)
        self.ranks = Ranks(defs)
        self.detail = detail
        self.attribute_names = {attribute.name for attribute in defs.attributes}
        self.locations = {}
        for location in defs.locations:
            self.locations[location._ref] = LocationState(location)
        self.regions = {}
        self.sends = defaultdict(deque)  # key -> deque of send ends
        self.recvs = defaultdict(deque)
        self.matched = []
        self.unresolved = 0
        self.metrics = defaultdict(list)
        self.tasks = Counter()
        self.task_keys = Counter()
        self.task_keys_mapped = Counter()
        self.slice_keys = Counter()
        self.slice_keys_mapped = Counter()
        self.slices_open = 0

    # --- per event -------------------------------------------------------
    def event(self, location, event):
        st = self.locations[location._ref]
        kind = type(event).__name__
        info = st.info
        info["read"] += 1
        info["kinds"][kind] += 1
        if st.last_time is not None and event.time < st.last_time:
            if len(info["nonmonotonic"]) < 10:
                info["nonmonotonic"].append([info["read"], int(st.last_time), int(event.time)])
        st.last_time = event.time
        if kind in PUSH_KINDS:
            self.push(st, kind, event)
        elif kind in POP_KINDS:
            self.pop(st, kind, event)
        elif kind in SEND_KINDS or kind in RECV_KINDS:
            self.message(location, kind, event)
        elif kind == "Metric":
            self.metric(st, event)
        if kind in TASK_KINDS:
            self.task(st, kind, event)
        if self.detail and kind not in NOT_INSTANTS:
            self.instant(st, kind, event)

    def args(self, event):
        """The payload fields the importer adds for the event's attribute
        list: {attribute name: value} (docs/otf2-mapping.md, Attributes)."""
        attributes = event.attributes
        if not attributes:
            return {}
        return {attribute.name: self.value(value) for attribute, value in attributes.items()}

    def value(self, value):
        """An attribute or parameter value as the JSON shows it: numbers as
        they are, strings as their text, a region as its range name, a
        reference to another definition as its global ID."""
        if isinstance(value, (int, float, str)):
            return value
        if isinstance(value, otf2.definitions.Region):
            return range_name(value, self.region_name)
        if isinstance(value, otf2.definitions.String):
            return value.name
        return value._ref

    def metric(self, st, event):
        now = self.clock.ns(event.time)
        for member, value in zip(event.metric.members, event.values):
            name = series_name(event.metric, member)
            self.metrics[name].append(value)
            if self.detail:
                st.metric_list.append([name, now, value])

    def instant(self, st, kind, event):
        if kind == "CallingContextSample":
            name = range_name(event.calling_context.region, self.region_name)
        else:
            name = "otf2:" + kind
        args = self.args(event)
        if kind in PARAMETER_KINDS:
            args["parameter"] = event.parameter.name
            value = event.string if kind == "ParameterString" else event.value
            args["value"] = self.value(value)
        st.instant_list.append([name, self.clock.ns(event.time), args])

    def push(self, st, kind, event):
        st.pushes.append(PUSH_KINDS[kind])
        if kind != "Enter":
            return
        st.info["enter"] += 1
        st.regions.append((event.region, self.clock.ns(event.time),
                           self.args(event) if self.detail else None))
        st.info["max_depth"] = max(st.info["max_depth"], len(st.regions))

    def pop(self, st, kind, event):
        what = POP_KINDS[kind]
        if not st.pushes:
            st.info["unmatched_pop"] += 1
        elif st.pushes.pop() != what:
            st.info["cross_pops"] += 1
        if kind != "Leave":
            return
        info = st.info
        info["leave"] += 1
        if not st.regions:
            info["unmatched_leave"] += 1
            return
        region, begin, args = st.regions.pop()
        if event.region is not region:
            info["mismatched_leave"] += 1
        end = self.clock.ns(event.time)
        name = range_name(region, self.region_name)
        duration = end - begin
        info["ranges"] += 1
        row = self.regions.get(name)
        if row is None:
            self.regions[name] = {"count": 1, "total_ns": duration, "min_ns": duration,
                                  "max_ns": duration}
        else:
            row["count"] += 1
            row["total_ns"] += duration
            row["min_ns"] = min(row["min_ns"], duration)
            row["max_ns"] = max(row["max_ns"], duration)
        if self.detail:
            st.range_list.append([name, begin, end, args, self.args(event)])

    def message(self, location, kind, event):
        comm = event.communicator
        me = self.ranks.of_location(location)
        if kind in SEND_KINDS:
            peer = self.ranks.in_comm(comm, int(event.receiver), location)
            key = (comm._ref, me, peer, int(event.msg_tag))
        else:
            peer = self.ranks.in_comm(comm, int(event.sender), location)
            key = (comm._ref, peer, me, int(event.msg_tag))
        if me is None or peer is None:
            self.unresolved += 1
        end = (int(event.msg_length), location._ref, self.clock.ns(event.time))
        mine, other = (self.sends, self.recvs) if kind in SEND_KINDS else (self.recvs, self.sends)
        if other[key]:
            first = other[key].popleft()
            send, recv = (end, first) if kind in SEND_KINDS else (first, end)
            self.matched.append((key, send, recv))
        else:
            mine[key].append(end)

    def task_key(self, event):
        team = event.thread_team
        index = int(event.creating_thread)
        key = (team._ref, index, int(event.generation_number))
        members = getattr(getattr(team, "group", None), "members", ())
        thread = members[index]._ref if index < len(members) else None
        return key, (team._ref, thread, int(event.generation_number))

    def task(self, st, kind, event):
        self.tasks[kind] += 1
        key, mapped = self.task_key(event)
        self.task_keys[key] += 1
        self.task_keys_mapped[mapped] += 1
        now = self.clock.ns(event.time)
        if self.detail and kind != "ThreadTaskSwitch":
            st.task_list.append([kind, list(key), now])
        if kind == "ThreadTaskSwitch":
            self.end_slice(st, now)
            st.slice = (key, mapped, now)
        elif kind == "ThreadTaskComplete" and st.slice is not None and st.slice[0] == key:
            self.end_slice(st, now)

    def end_slice(self, st, now):
        if st.slice is None:
            return
        key, mapped, begin = st.slice
        st.slice = None
        self.slice_keys[key] += 1
        self.slice_keys_mapped[mapped] += 1
        if self.detail:
            st.slice_list.append([list(key), begin, now])

    # --- result ----------------------------------------------------------
    def finish(self):
        for st in self.locations.values():
            st.info["unclosed_enter"] = len(st.regions)
            st.info["unclosed_push"] = len(st.pushes)
            if st.slice is not None:  # ends at the location's last event
                self.slices_open += 1
                self.end_slice(st, self.clock.ns(st.last_time))

    def result(self):
        locations = {}
        for ref, st in self.locations.items():
            info = dict(st.info)
            info["kinds"] = dict(sorted(info["kinds"].items()))
            if self.detail:
                info["range_list"] = st.range_list
                info["slice_list"] = st.slice_list
                info["metric_list"] = st.metric_list
                info["task_list"] = st.task_list
                info["instant_list"] = st.instant_list
            locations[str(ref)] = info
        messages = {
            "matched": rows(list(k) + [s[0]] for k, s, _ in self.matched),
            "matched_bytes_differ": sum(1 for _, s, r in self.matched if s[0] != r[0]),
            "unmatched_sends": rows(list(k) + [e[0]] for k, q in self.sends.items() for e in q),
            "unmatched_recvs": rows(list(k) + [e[0]] for k, q in self.recvs.items() for e in q),
            "unresolved": self.unresolved,
        }
        if self.detail:
            messages["matched_detail"] = rows(list(k) + list(s) + list(r)
                                              for k, s, r in self.matched)
        metrics = {name: {"count": len(vals), "sum": math.fsum(float(v) for v in vals)}
                   for name, vals in sorted(self.metrics.items())}
        tasks = {
            "create": self.tasks["ThreadTaskCreate"],
            "switch": self.tasks["ThreadTaskSwitch"],
            "complete": self.tasks["ThreadTaskComplete"],
            "distinct": len(self.task_keys),
            "slices": sum(self.slice_keys.values()),
            "slices_open": self.slices_open,
        }
        if self.detail:
            tasks["keys"] = rows(list(k) for k in self.task_keys)
            tasks["keys_mapped"] = rows(list(k) for k in self.task_keys_mapped)
            tasks["slice_keys"] = rows(list(k) + [n] for k, n in self.slice_keys.items())
            tasks["slice_keys_mapped"] = rows(list(k) + [n]
                                              for k, n in self.slice_keys_mapped.items())
        return {
            "clock": {"timer_resolution": self.clock.resolution,
                      "global_offset": self.clock.offset},
            "attribute_names": sorted(self.attribute_names),
            "locations": locations,
            "regions": dict(sorted(self.regions.items())),
            "messages": messages,
            "metrics": metrics,
            "tasks": tasks,
            "totals": {
                "events": sum(st.info["read"] for st in self.locations.values()),
                "declared": sum(st.info["declared"] for st in self.locations.values()),
                "locations": len(self.locations),
            },
        }


def rows(items):
    """Sorted list of lists that may hold None (unresolved ranks)."""
    return sorted(items, key=lambda row: [(v is not None, v if v is not None else 0)
                                          for v in row])


def compute(anchor, detail=False, region_name="name"):
    """The oracle's JSON object for the archive whose anchor file is `anchor`."""
    with otf2.reader.open(anchor) as trace:
        oracle = Oracle(trace.definitions, detail, region_name)
        for location, event in trace.events:
            oracle.event(location, event)
    oracle.finish()
    return oracle.result()


# --- --verify: raw local reading, own clock correction, otf2-print ----------

def clock_correction(offsets):
    """libotf2's clock correction for one location's ClockOffset list."""
    intervals = []
    for (t0, o0), (t1, o1) in zip(offsets, offsets[1:]):
        intervals.append((t0, t1, float(o1 - o0) / float(t1 - t0), o0))
    if not intervals:
        return lambda t: t

    def correct(t):
        chosen = intervals[-1]
        for interval in intervals:
            if t <= interval[1]:
                chosen = interval
                break
        begin, _, slope, offset = chosen
        diff = float(t - begin) if t >= begin else -float(begin - t)
        return t + offset + int(round(slope * diff))  # round() = rint (half even)

    return correct


def read_raw(anchor, locations):
    """Every location's local definitions and raw events (no correction)."""
    import _otf2

    raw = {ref: {"clock": [], "maps": {}, "events": []} for ref in locations}
    reader = _otf2.Reader_Open(anchor)
    _otf2.Reader_SetSerialCollectiveCallbacks(reader)
    for ref in locations:
        _otf2.Reader_SelectLocation(reader, ref)

    def on_clock(data, time, offset, _stddev):
        data["clock"].append((int(time), int(offset)))

    def on_map(data, map_type, id_map):
        pairs = {}
        _otf2.IdMap_Traverse(id_map, lambda local, glob, _: pairs.__setitem__(local, glob), None)
        data["maps"][int(getattr(map_type, "value", map_type))] = pairs

    _otf2.Reader_OpenDefFiles(reader)
    callbacks = _otf2.DefReaderCallbacks_New()
    _otf2.DefReaderCallbacks_SetClockOffsetCallback(callbacks, on_clock)
    _otf2.DefReaderCallbacks_SetMappingTableCallback(callbacks, on_map)
    for ref in locations:
        def_reader = _otf2.Reader_GetDefReader(reader, ref)
        if def_reader:
            _otf2.Reader_RegisterDefCallbacks(reader, def_reader, callbacks, raw[ref])
            _otf2.Reader_ReadAllLocalDefinitions(reader, def_reader)
            _otf2.Reader_CloseDefReader(reader, def_reader)
    _otf2.DefReaderCallbacks_Delete(callbacks)
    _otf2.Reader_CloseDefFiles(reader)

    def recorder(kind):
        def record(_loc, time, _pos, data, _attrs, *args):
            data["events"].append((kind, int(time), args))
        return record

    _otf2.Reader_OpenEvtFiles(reader)
    callbacks = _otf2.EvtReaderCallbacks_New()
    keep = []
    for name in dir(_otf2):
        match = re.fullmatch(r"EvtReaderCallbacks_Set(\w+)Callback", name)
        if match and match.group(1) != "Unknown":
            keep.append(recorder(match.group(1)))
            getattr(_otf2, name)(callbacks, keep[-1])
    keep.append(recorder("Unknown"))
    _otf2.EvtReaderCallbacks_SetUnknownCallback(callbacks, keep[-1])
    for ref in locations:
        evt_reader = _otf2.Reader_GetEvtReader(reader, ref)
        _otf2.EvtReader_ApplyClockOffsets(evt_reader, False)
        _otf2.EvtReader_ApplyMappingTables(evt_reader, False)
        _otf2.Reader_RegisterEvtCallbacks(reader, evt_reader, callbacks, raw[ref])
        _otf2.Reader_ReadAllLocalEvents(reader, evt_reader)
        _otf2.Reader_CloseEvtReader(reader, evt_reader)
    _otf2.EvtReaderCallbacks_Delete(callbacks)
    _otf2.Reader_CloseEvtFiles(reader)
    _otf2.Reader_Close(reader)
    return raw


# Mapped references checked per event kind: (index in the callback's own
# arguments, mapping type, attribute of the python event).
MAP_REGION, MAP_METRIC, MAP_COMM = 3, 5, 6
MAPPED_ARGS = {
    "Enter": (0, MAP_REGION, "region"),
    "Leave": (0, MAP_REGION, "region"),
    "MpiSend": (1, MAP_COMM, "communicator"),
    "MpiIsend": (1, MAP_COMM, "communicator"),
    "MpiRecv": (1, MAP_COMM, "communicator"),
    "MpiIrecv": (1, MAP_COMM, "communicator"),
    "MpiCollectiveEnd": (1, MAP_COMM, "communicator"),
    "Metric": (0, MAP_METRIC, "metric"),
    "ThreadTaskCreate": (0, MAP_COMM, "thread_team"),
    "ThreadTaskSwitch": (0, MAP_COMM, "thread_team"),
    "ThreadTaskComplete": (0, MAP_COMM, "thread_team"),
}


def verify_reader(anchor):
    """Compares python3-otf2's events with a raw read corrected here."""
    with otf2.reader.open(anchor) as trace:
        refs = [loc._ref for loc in trace.definitions.locations]
        high = {ref: [] for ref in refs}
        for location, event in trace.events:
            high[location._ref].append(event)
    raw = read_raw(anchor, refs)
    out = {"locations": {}, "differences": []}
    for ref in refs:
        data = raw[ref]
        correct = clock_correction(data["clock"])
        corrected = moved = remapped = 0
        events = data["events"]
        if len(events) != len(high[ref]):
            out["differences"].append("L%d: raw reader %d events, python %d"
                                      % (ref, len(events), len(high[ref])))
        for i, ((kind, t, args), event) in enumerate(zip(events, high[ref])):
            mine = correct(t)
            moved += mine != t
            problem = None
            if kind != type(event).__name__:
                problem = "kind %s vs %s" % (kind, type(event).__name__)
            elif mine != event.time:
                problem = "time raw %d corrected %d vs python %d" % (t, mine, event.time)
            elif kind in MAPPED_ARGS:
                index, map_type, attr = MAPPED_ARGS[kind]
                local = int(getattr(args[index], "value", args[index]))
                glob = data["maps"].get(map_type, {}).get(local, local)
                remapped += glob != local
                if glob != getattr(event, attr)._ref:
                    problem = "%s local %d maps to %d vs python %d" % (
                        attr, local, glob, getattr(event, attr)._ref)
            corrected += problem is None
            if problem and len(out["differences"]) < 20:
                out["differences"].append("L%d event %d (%s): %s" % (ref, i + 1, kind, problem))
        out["locations"][str(ref)] = {
            "clock_offsets": data["clock"],
            "mapping_tables": {str(k): len(v) for k, v in data["maps"].items()},
            "events": len(events),
            "agree": corrected,
            "time_corrected": moved,
            "ids_remapped": remapped,
        }
    return out


PRINT_ALIASES = {"PARAMETER_UINT64": "ParameterUnsignedInt", "PARAMETER_INT64": "ParameterInt"}


def print_kind(word):
    if word in PRINT_ALIASES:
        return PRINT_ALIASES[word]
    return "".join(part.capitalize() for part in word.split("_"))


def verify_print(anchor, oracle_locations):
    """Compares per-location (kind, time) sequences with otf2-print's."""
    listing = subprocess.run(["otf2-print", anchor], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, check=True, text=True).stdout
    seen = defaultdict(list)
    for line in listing.splitlines():
        match = re.match(r"([A-Z][A-Z0-9_]*) +(\d+) +(\d+)(?:  |$)", line)
        if match:
            seen[match.group(2)].append((print_kind(match.group(1)), int(match.group(3))))
    with otf2.reader.open(anchor) as trace:
        mine = defaultdict(list)
        for location, event in trace.events:
            name = type(event).__name__.upper().replace("_", "")
            mine[str(location._ref)].append((name, int(event.time)))
    out = {"locations": {}, "differences": []}
    for ref, info in oracle_locations.items():
        theirs = [(k.upper(), t) for k, t in seen.get(ref, [])]
        out["locations"][ref] = {"otf2_print": len(theirs), "declared": info["declared"],
                                 "read": info["read"]}
        if not (len(theirs) == info["declared"] == info["read"]):
            out["differences"].append("L%s: otf2-print %d, declared %d, read %d"
                                      % (ref, len(theirs), info["declared"], info["read"]))
        elif theirs != mine[ref]:
            first = next(i for i, (a, b) in enumerate(zip(theirs, mine[ref])) if a != b)
            out["differences"].append("L%s event %d: otf2-print %s, python %s"
                                      % (ref, first + 1, theirs[first], mine[ref][first]))
    extra = set(seen) - set(oracle_locations)
    if extra:
        out["differences"].append("otf2-print lists unknown locations %s" % sorted(extra))
    return out


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("anchor", help="the archive's anchor file (traces.otf2)")
    parser.add_argument("--detail", action="store_true", help="add per-event lists")
    parser.add_argument("--verify", action="store_true",
                        help="check python3-otf2 against a raw read and otf2-print")
    parser.add_argument("--region-name", choices=("canonical", "name"), default="name",
                        help="range names: canonical name, else name (default), or the reverse")
    parser.add_argument("--indent", type=int, default=None)
    args = parser.parse_args(argv)
    if not os.path.isfile(args.anchor):
        print("otf2_oracle.py: error: no such anchor file: %s" % args.anchor, file=sys.stderr)
        return 1
    result = compute(args.anchor, args.detail, args.region_name)
    status = 0
    if args.verify:
        reader = verify_reader(args.anchor)
        printed = verify_print(args.anchor, result["locations"])
        result["verification"] = {"reader": reader, "otf2_print": printed}
        for problem in reader["differences"] + printed["differences"]:
            print("otf2_oracle.py: verify: %s" % problem, file=sys.stderr)
            status = 1
    # one write: json.dump would write every token separately (much slower)
    sys.stdout.write(json.dumps(result, indent=args.indent, sort_keys=False) + "\n")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
