#!/usr/bin/env python3
"""tests/cli/synthetic_check.py - property checks of nvtxw-replay --synthetic
output in the text sink's format (docs/synthetic.md, tests/cli/synthetic_test.sh).

    synthetic_check.py flows FILE.txt           every nonzero flow_out ID once as a
                                                 flow_in, and the other way round
    synthetic_check.py tasks FILE.txt TASKS     the task model's invariants
Prints what it checked; exits 1 with the first violation on stderr.
"""
import re
import sys

FIELD = re.compile(r"(\w+)=(\"[^\"]*\"|[^,]*)")


def events(path):
    """(stream, schema name, fields) of every payload line of every event."""
    stream = None
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("event "):
                stream = line.split('"')[1]
            elif line.startswith("  [") and stream is not None:
                head, _, body = line.strip().partition(": ")
                name = head.split("] ", 1)[1]
                yield stream, name, dict(FIELD.findall(body))


def fail(message):
    print("synthetic_check: " + message, file=sys.stderr)
    sys.exit(1)


def check_flows(path):
    outs, ins = {}, {}
    for _, _, f in events(path):
        for key, table in (("flow_out", outs), ("flow_in", ins)):
            if f.get(key, "0") != "0":
                table[f[key]] = table.get(f[key], 0) + 1
    if not outs:
        fail("no flows at all")
    if any(n != 1 for n in outs.values()) or any(n != 1 for n in ins.values()):
        fail("a flow ID appears twice on one side")
    if set(outs) != set(ins):
        fail("%d flow_out IDs without flow_in, %d flow_in without flow_out"
             % (len(set(outs) - set(ins)), len(set(ins) - set(outs))))
    print("flows: %d, each once out and once in" % len(outs))


def task_history(path):
    """Per task scope: its state marks and slices in write order; wakes by link."""
    tasks, wakes, steals = {}, {}, 0
    for stream, name, f in events(path):
        if name == "nvtxw_task_wake":
            wakes[f["flow_out"]] = (int(f["time"]), f["task"])
        elif name == "nvtxw_task_steal":
            steals += 1
            if f["thief"] == f["victim"] or int(f["victim_queue_depth"]) < 1:
                fail("bad steal %r" % f)
        elif name in ("nvtxw_task_state", "nvtxw_task_slice"):
            tasks.setdefault(f["task"], []).append((name, stream, f))
    return tasks, wakes, steals


def check_one_task(task, history, wakes, used_links):
    marks = [f for n, _, f in history if n == "nvtxw_task_state"]
    slices = [f for n, _, f in history if n == "nvtxw_task_slice"]
    states = [f["state"] for f in marks]
    for s in ("created", "executing", "completed", "deleted"):
        if states.count(s) != 1:
            fail("task %s: %d %s marks" % (task, states.count(s), s))
    if states.count("suspended") != states.count("resumed"):
        fail("task %s: suspended and resumed marks do not pair" % task)
    times = {f["state"]: int(f["time"]) for f in marks}
    first, last = times["created"], times["completed"]
    previous_end = first
    for f in slices:
        begin, end = int(f["begin"]), int(f["end"])
        if begin < previous_end or end > last or end < begin:
            fail("task %s: slice %d..%d outside its lifetime %d..%d or overlapping"
                 % (task, begin, end, first, last))
        previous_end = end
        if f["flow_in"] != "0":
            link = f["flow_in"]
            if link not in wakes or wakes[link][1] != task or wakes[link][0] > begin:
                fail("task %s: slice at %d resumes by link %s that woke no earlier" % (task, begin, link))
            used_links.add(link)
    pending = None
    for f in marks:
        if f["state"] == "suspended":
            pending = int(f["time"])
        elif f["state"] == "resumed":
            if pending is None or int(f["suspended_at"]) != pending:
                fail("task %s: resumed mark without its suspension" % task)
            pending = None
    if pending is not None:
        fail("task %s: suspended at %d and never resumed" % (task, pending))
    return len(slices), states.count("suspended")


def check_tasks(path, expected):
    tasks, wakes, steals = task_history(path)
    if len(tasks) != expected:
        fail("%d tasks, expected %d" % (len(tasks), expected))
    used, slices, suspensions = set(), 0, 0
    for task, history in tasks.items():
        n, s = check_one_task(task, history, wakes, used)
        slices += n
        suspensions += s
    if used != set(wakes):
        fail("%d wake links never resumed a task" % len(set(wakes) - used))
    print("tasks: %d, slices: %d, suspensions: %d, causal links: %d, steals: %d"
          % (len(tasks), slices, suspensions, len(wakes), steals))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "flows":
        check_flows(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "tasks":
        check_tasks(sys.argv[2], int(sys.argv[3]))
    else:
        fail("usage: synthetic_check.py flows FILE | tasks FILE COUNT")
