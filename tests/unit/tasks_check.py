#!/usr/bin/python3
"""tasks_check.py - checks the task rendering of Sink=json (docs/chrome-json.md,
Tasks) in a trace written by tests/unit/tasks_test.c's scenario.

Usage: tasks_check.py TRACE.json

Checks, for the scenario's expectations:
- every task scope has a row: thread_name "task KEY", tid >= 2^32,
  thread_sort_index = tid (after every stream row), in the workers' process;
- each task row holds exactly the task's slices as "X" (the expected
  begin/duration in microseconds), in order, with a gap for each suspension;
- every task event on a worker row has its copy on the task's row;
- the causal link 0x4d is one "s" on worker 0 at the wake mark and one "f"
  ("bp":"e") on task 1's row; in ts order (ties in file order, as the Chrome
  DevTools engine sorts), the first non-flow event with the "s"'s (ts, pid,
  tid, cat) is the wake mark and the first with the "f"'s is the resumed
  slice ("X" on the task's row): the engine binds each flow event to
  exactly that event;
- the steal is an instant on the thief's row (worker 1), the sleep an "X"
  of 3 us on worker 0's row.
Prints "ok - ..." / "not ok - ..." lines and "N checks, M failed"; exits 1
when a check failed.
"""
import json
import sys

TASK_TID_BASE = 1 << 32
failed = 0
count = 0


def check(name, passed, detail=""):
    global failed, count
    count += 1
    if passed:
        print("ok - %s" % name)
    else:
        failed += 1
        print("not ok - %s: %s" % (name, detail))


def main(path):
    with open(path, encoding="utf-8") as f:
        events = json.load(f)["traceEvents"]
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in events
             if e["ph"] == "M" and e["name"] == "thread_name"}
    sorts = {(e["pid"], e["tid"]): e["args"]["sort_index"] for e in events
             if e["ph"] == "M" and e["name"] == "thread_sort_index"}
    rows = {name: key for key, name in names.items()}
    workers = [rows.get("worker 0"), rows.get("worker 1")]
    check("worker rows", None not in workers, sorted(names.values()))
    want_tasks = {"task 1": [(1.0, 1.0), (5.0, 1.0)],
                  "task io/read[3]": [(2.0, 2.0), (6.6, 0.1)],
                  "task 1.1": [(6.2, 0.3), (6.8, 0.1)]}
    stream_sorts = [s for key, s in sorts.items() if key[1] < TASK_TID_BASE]
    for task, slices in want_tasks.items():
        row = rows.get(task)
        check("%s: a row" % task, row is not None and row[1] >= TASK_TID_BASE and
              row[0] == workers[0][0], row)
        if row is None:
            continue
        check("%s: sorted after the streams" % task,
              sorts.get(row) == row[1] and all(s < row[1] for s in stream_sorts), sorts.get(row))
        got = [(float(e["ts"]), float(e["dur"])) for e in events
               if e["ph"] == "X" and (e["pid"], e["tid"]) == row]
        check("%s: its slices, a gap between them" % task,
              got == slices and got[0][0] + got[0][1] < got[1][0], got)

    on_workers = sorted(json.dumps(dict(e, tid=0), sort_keys=True) for e in events
                        if e["ph"] in "Xi" and e.get("tid", 0) < TASK_TID_BASE
                        and "task" in e.get("args", {}))
    on_tasks = sorted(json.dumps(dict(e, tid=0), sort_keys=True) for e in events
                      if e["ph"] in "Xi" and e.get("tid", 0) >= TASK_TID_BASE)
    check("every task event also on its task's row (%d)" % len(on_workers),
          on_workers == on_tasks and len(on_workers) > 0, (len(on_workers), len(on_tasks)))
    check("task slices are no async b/e", not any(e["ph"] in "be" for e in events),
          [e for e in events if e["ph"] in "be"][:2])

    starts = [e for e in events if e["ph"] == "s"]
    ends = [e for e in events if e["ph"] == "f"]
    check("one flow start and one flow end, id 0x4d",
          [e["id"] for e in starts] == ["0x4d"] and [e["id"] for e in ends] == ["0x4d"],
          (starts, ends))
    ordered = sorted((e for e in events if e["ph"] != "M"), key=lambda e: float(e["ts"]))

    def bound(flow):
        key = (flow["ts"], flow["pid"], flow["tid"], flow.get("cat"))
        return next((e for e in ordered if e["ph"] not in "stf" and
                     (e["ts"], e["pid"], e["tid"], e.get("cat")) == key), None)
    if starts and ends:
        s, f = bound(starts[0]), bound(ends[0])
        check("flow start bound to the wake mark on worker 0",
              s is not None and s["ph"] == "i" and s["name"] == "future set" and
              (s["pid"], s["tid"]) == workers[0], s)
        check("flow end bound to the resumed slice on task 1's row",
              f is not None and f["ph"] == "X" and (f["pid"], f["tid"]) == rows.get("task 1") and
              f["args"].get("flow_in") == 77 and ends[0].get("bp") == "e", f)
    steal = [e for e in events if e["name"] == "steal" and (e["pid"], e["tid"]) == workers[1]]
    check("steal: an instant on the thief's row",
          len(steal) == 1 and steal[0]["ph"] == "i" and steal[0]["args"]["victim_queue_depth"] == 3,
          steal)
    sleep = [e for e in events if e["name"] == "sleep"]
    check("sleep: one X of 3 us on worker 0",
          len(sleep) == 1 and sleep[0]["ph"] == "X" and sleep[0]["dur"] == 3.0 and
          (sleep[0]["pid"], sleep[0]["tid"]) == workers[0], sleep)
    print("%d checks, %d failed" % (count, failed))
    return 1 if failed or not count else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
