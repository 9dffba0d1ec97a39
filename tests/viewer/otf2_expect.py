#!/usr/bin/env python3
"""tests/viewer/otf2_expect.py - what the Chrome DevTools trace engine must
show for `nvtxw-otf2-import ARCHIVE -o OUT.json`, computed from the OTF2
oracle's summary of the archive (tests/otf2/otf2_oracle.py, which reads it
with python3-otf2), never from the JSON under test: an importer that wrote
no flows, or lost a kind of slice, must not also lower the expectation.

    otf2_oracle.py ARCHIVE/traces.otf2 --region-name name > ORACLE.json
    otf2_expect.py ORACLE.json > EXPECT.json

Uses only the oracle's plain outputs: locations[*].stream, ranges and kinds
(record counts per kind) and the nesting counters, regions[*].count,
messages.matched and the unmatched lists, tasks.distinct and tasks.slices.

What a location's row holds in the engine: its thread entries, which are the
"X" slices (and "B" for ranges left open, refused below); instants, counter
samples and the async "b"/"e" ranges (otf2:MeasurementOff,
otf2:IoOperation) are not thread entries. The importer's "X" slices
(docs/otf2-mapping.md, Events; docs/chrome-json.md, Events and Tasks):

  region            Enter .. Leave, a push/pop named after the region:
                    locations[*].ranges, and per name regions[name].count
  otf2:ThreadTeam   ThreadTeamBegin .. ThreadTeamEnd (push/pop): one per End
  otf2:MpiCollective, otf2:RmaCollective
                    one range written at the End record: one per End
  otf2:BufferFlush  one range (time .. stopTime) per BufferFlush
  otf2:TaskSlice    each ThreadTaskSwitch starts one slice on its location,
                    ended by the next switch, the task's completion or the
                    location's end (the oracle's rule): one per switch, and
                    together the oracle's tasks.slices

Task rows ("task team:creator:generation", docs/chrome-json.md, Tasks): every
slice is written again on its task's row, so the rows hold tasks.slices
slices in all, on tasks.distinct rows: the oracle counts every task named by
a task record, and in the generator's archives every task is switched to
(its created tasks run, the implicit ones are switched to when the team
begins); a task without a slice would have an empty row, which the engine
does not list, and would show as one row fewer.

Flows (docs/chrome-json.md, Flows; docs/otf2-mapping.md, Messages): one per
matched message, len(messages.matched), from the send's instant
(otf2:MpiSend or otf2:MpiIsend, which carries flow_out and the flow's cat)
on the sender's row to the receive's instant (otf2:MpiRecv, otf2:MpiIrecv)
on the receiver's row. With no unmatched or unresolved message ends, every
send record starts a flow and every receive ends one, so the flows leaving
a row by kind are that location's send records of the kind, and likewise
the arriving ones.

The derivation covers archives whose ranges all close and whose messages
all match; for any other archive this script exits 1 naming what it does
not cover, rather than guessing.

Output: {"threads": {STREAM: {CLASS: N}}, "regions": {NAME: N},
"task_rows": {"rows": N, "slices": N}, "flows": N,
"flow_starts": {STREAM: {KIND: N}}, "flow_ends": {STREAM: {KIND: N}}},
with CLASS "region" or an otf2:* slice name and KIND an otf2:Mpi* name.
"""
import json
import sys

# Slice classes of a location's row other than regions: slice name, record
# kind counted (one slice per record), the kind that must occur as often.
RECORD_SLICES = (
    ("otf2:ThreadTeam", "ThreadTeamEnd", "ThreadTeamBegin"),
    ("otf2:MpiCollective", "MpiCollectiveEnd", "MpiCollectiveBegin"),
    ("otf2:RmaCollective", "RmaCollectiveEnd", "RmaCollectiveBegin"),
    ("otf2:BufferFlush", "BufferFlush", None),
    ("otf2:TaskSlice", "ThreadTaskSwitch", None),
)
# Record kinds that would put other slices on a row (CallingContextEnter ..
# Leave: a push/pop named after a region, not counted by regions) or slices
# the oracle does not count (OmpTaskSwitch).
NOT_COVERED = ("CallingContextEnter", "CallingContextLeave", "OmpTaskSwitch")
# Counters of the oracle that must be 0 for every range to be one "X".
MUST_BE_ZERO = ("unmatched_leave", "mismatched_leave", "unclosed_enter", "unclosed_push",
                "unmatched_pop", "cross_pops")
SENDS = ("MpiSend", "MpiIsend")
RECVS = ("MpiRecv", "MpiIrecv")


def refuse(message):
    print("otf2_expect.py: error: " + message, file=sys.stderr)
    sys.exit(1)


def location_row(loc):
    """The slice classes of one location's row, {CLASS: N}, zeros left out."""
    kinds = loc["kinds"]
    for key in MUST_BE_ZERO:
        if loc.get(key, 0) != 0:
            refuse("%s: %s = %s" % (loc["stream"], key, loc[key]))
    for kind in NOT_COVERED:
        if kinds.get(kind, 0):
            refuse("%s: %d %s records are not covered" % (loc["stream"], kinds[kind], kind))
    row = {"region": loc["ranges"]}
    for name, kind, partner in RECORD_SLICES:
        n = kinds.get(kind, 0)
        if partner is not None and kinds.get(partner, 0) != n:
            refuse("%s: %d %s, %d %s" % (loc["stream"], kinds.get(partner, 0), partner, n, kind))
        row[name] = n
    return {k: n for k, n in row.items() if n > 0}


def by_kind(kinds, names):
    return {"otf2:" + k: kinds[k] for k in names if kinds.get(k, 0) > 0}


def main(path):
    with open(path, encoding="utf-8") as f:
        oracle = json.load(f)
    locations = oracle["locations"].values()
    threads = {}
    for loc in locations:
        row = location_row(loc)
        if row:
            threads[loc["stream"]] = row
    tasks = oracle["tasks"]
    switched = sum(row.get("otf2:TaskSlice", 0) for row in threads.values())
    if switched != tasks["slices"]:
        refuse("%d task switches but %d slices" % (switched, tasks["slices"]))
    regions = {name: r["count"] for name, r in oracle["regions"].items() if r["count"] > 0}
    if sum(regions.values()) != sum(loc["ranges"] for loc in locations):
        refuse("regions[*].count does not add up to locations[*].ranges")
    messages = oracle["messages"]
    if messages["unmatched_sends"] or messages["unmatched_recvs"] or messages["unresolved"]:
        refuse("unmatched or unresolved message ends: flows per row are not derivable")
    starts = {loc["stream"]: by_kind(loc["kinds"], SENDS) for loc in locations}
    ends = {loc["stream"]: by_kind(loc["kinds"], RECVS) for loc in locations}
    flows = len(messages["matched"])
    if sum(sum(k.values()) for k in starts.values()) != flows:
        refuse("send records and matched messages differ")
    json.dump({
        "threads": threads,
        "regions": regions,
        "task_rows": {"rows": tasks["distinct"], "slices": tasks["slices"]},
        "flows": flows,
        "flow_starts": {s: k for s, k in starts.items() if k},
        "flow_ends": {s: k for s, k in ends.items() if k},
    }, sys.stdout, indent=1, sort_keys=True)
    print()


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: otf2_expect.py ORACLE.json", file=sys.stderr)
        sys.exit(2)
    main(sys.argv[1])
