#!/usr/bin/env python3
"""tests/viewer/tasks_expect.py - what the viewer must show for a tasks
report, from the text sink's dump of it (not from the JSON under test):
worker rows, each task's slices and suspension gaps, and the causal links.
Output: the EXPECT.json of check_tasks.mjs.

    tasks_expect.py DUMP.txt > EXPECT.json
"""
import json
import re
import sys

FIELD = re.compile(r"(\w+)=(\"[^\"]*\"|[^,]*)")


def main(path):
    names, workers, tasks, wakes, links = {}, [], {}, {}, []
    stream = None
    for line in open(path, encoding="utf-8"):
        if line.startswith("scope "):
            m = re.search(r' id=(\d+) .*path="task\[([^\]]*)\]"', line)
            if m:
                names[m.group(1)] = "task " + m.group(2)
        elif line.startswith("stream_open "):
            workers.append(line.split('"')[1])
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
    json.dump({"workers": workers, "tasks": tasks, "links": links}, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1])
