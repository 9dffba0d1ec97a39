#!/usr/bin/env python3
"""tests/viewer/tasks_expect.py - what the viewer must show for a report of
the synthetic `tasks` workload, from two sources that are not the JSON under
test:

- the workload's spec, for what its parameters determine (docs/synthetic.md,
  `tasks`): the worker rows, streams `worker 0` .. `worker W-1`; exactly
  `tasks` tasks, so as many task rows; task names `task SLOT.GENERATION`
  with SLOT < `live`; 1..`slices` slices per task; every slice `slice` ns
  +-50% long (uniform over [slice/2, slice + slice/2], integer halves);
- the text sink's dump of the same report, for what the parameters cannot
  predict (it depends on the seeded simulation): each task's name, its
  slices' exact times and its suspension gaps, and the causal links (wake
  mark on the waker's worker, time, cause, resumed task and slice begin).
  The dump is another sink's rendering of the same records, so it catches
  what the JSON sink and the engine do to them, not what the generator
  writes; the spec's bounds cover the generator's side.

The spec must give every parameter used here (workers, tasks, live, slices,
slice), so that the expectation never rests on a default.

    tasks_expect.py SPEC DUMP.txt > EXPECT.json

Output: the EXPECT.json of check_tasks.mjs, {"spec": {workers, tasks, live,
slices, slice}, "workers": [NAME...], "tasks": {NAME: {"slices": [[BEGIN,
END]...], "gaps": [[SUSPENDED, RESUMED]...]}}, "links": [[WORKER, TIME,
CAUSE, TASK, BEGIN]...]}, times in ns.
"""
import json
import re
import sys

FIELD = re.compile(r"(\w+)=(\"[^\"]*\"|[^,]*)")
SPEC_KEYS = ("workers", "tasks", "live", "slices", "slice")


def parse_spec(spec):
    """{key: int} of the parameters of a `tasks:k=v,...` spec used here."""
    workload, _, rest = spec.partition(":")
    if workload != "tasks":
        sys.exit("tasks_expect.py: error: not a tasks spec: %r" % spec)
    given = dict(item.split("=", 1) for item in rest.split(",") if item)
    missing = [k for k in SPEC_KEYS if k not in given]
    if missing:
        sys.exit("tasks_expect.py: error: the spec must give %s: %r" % (", ".join(missing), spec))
    return {k: int(given[k]) for k in SPEC_KEYS}


def parse_dump(path):
    """Task slices and gaps by task name, and the causal links, from the dump."""
    names, tasks, wakes, links = {}, {}, {}, []
    stream = None
    for line in open(path, encoding="utf-8"):
        if line.startswith("scope "):
            m = re.search(r' id=(\d+) .*path="task\[([^\]]*)\]"', line)
            if m:
                names[m.group(1)] = "task " + m.group(2)
        elif line.startswith("event "):
            stream = line.split('"')[1]
        elif line.startswith("  [0] "):
            kind, _, body = line.strip()[4:].partition(": ")
            f = dict(FIELD.findall(body))
            if kind == "nvtxw_task_slice":
                t = tasks.setdefault(names[f["task"]], {"slices": [], "gaps": []})
                t["slices"].append([int(f["begin"]), int(f["end"])])
                if f["flow_in"] != "0":
                    w_stream, w_time, cause = wakes[f["flow_in"]]
                    links.append([w_stream, w_time, cause, names[f["task"]], int(f["begin"])])
            elif kind == "nvtxw_task_wake":
                wakes[f["flow_out"]] = (stream, int(f["time"]), f["cause"].strip('"'))
            elif kind == "nvtxw_task_state" and f["state"] == "resumed":
                t = tasks[names[f["task"]]]
                t["gaps"].append([int(f["suspended_at"]), int(f["time"])])
    for t in tasks.values():
        t["slices"].sort()
    return tasks, links


def main(spec, path):
    params = parse_spec(spec)
    tasks, links = parse_dump(path)
    workers = ["worker %d" % i for i in range(params["workers"])]
    json.dump({"spec": params, "workers": workers, "tasks": tasks, "links": links}, sys.stdout)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: tasks_expect.py SPEC DUMP.txt")
    main(sys.argv[1], sys.argv[2])
