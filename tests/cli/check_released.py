#!/usr/bin/env python3
"""tests/cli/check_released.py - task scopes released with libnvtxw's
ScopeRelease (docs/producer-guide.md), checked in the text sink's output:

    check_released.py FILE.txt [--min N] [--after-deleted] [--process-order]
                               [--early N]

Every registered task scope (path "task[...]") is released exactly once, no
line names it (task=ID) after its release, and at least N were released;
with --after-deleted, each release also comes after the task's `deleted`
mark (the task API's rule, docs/tasks.md); with --process-order (one
worker of nvtxw-otf2-import), when a stream of another process opens, the
tasks of the previous process are all released already: the locations are
converted process by process; with --early N, at least N tasks are
released while a stream of their process is still open (nvtxw-otf2-import
converting a process's locations in turns releases a task once every
location has read past its completion). The text sink writes lines in
call order; nvtxw-otf2-import releases a group's tasks after its locations'
streams are closed, so this holds on any number of workers. Used by
tests/cli/synthetic_test.sh and tests/otf2/import_test.sh. Prints
"released: N task scopes"; exits 1 with the first violation on stderr.
"""
import argparse
import re
import sys

REGISTERED = re.compile(r'^scope .* id=(\d+) parent=(\d+) path="task\[')
ANY_SCOPE = re.compile(r"^scope .* id=(\d+) parent=(\d+) ")
OPENED = re.compile(r'^stream_open "(.*)" domain=.* scope=(\d+) ')
CLOSED = re.compile(r'^stream_close "(.*)"$')
RELEASED = re.compile(r"^scope_release .* id=(\d+)$")
NAMED = re.compile(r"\btask=(\d+)\b")


def fail(message):
    print("check_released: " + message, file=sys.stderr)
    sys.exit(1)


def main():
    parser = argparse.ArgumentParser(description="task scopes released after their last use")
    parser.add_argument("text")
    parser.add_argument("--min", type=int, default=0)
    parser.add_argument("--after-deleted", action="store_true")
    parser.add_argument("--process-order", action="store_true")
    parser.add_argument("--early", type=int, default=0)
    args = parser.parse_args()
    live, gone, deleted = set(), set(), set()
    parents, task_process, process = {}, {}, None
    stream_process, open_streams, early = {}, {}, 0
    with open(args.text, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            m = REGISTERED.match(line)
            if m:
                live.add(m.group(1))
                task_process[m.group(1)] = m.group(2)
                continue
            m = ANY_SCOPE.match(line)
            if m:
                parents[m.group(1)] = m.group(2)
                continue
            m = OPENED.match(line)
            if m:
                stream_process[m.group(1)] = parents.get(m.group(2))
                opened = stream_process[m.group(1)]
                open_streams[opened] = open_streams.get(opened, 0) + 1
            if m and args.process_order:
                if process is not None and opened != process:
                    left = [t for t in live if task_process[t] == process]
                    if left:
                        fail("line %d: a stream of process scope %s opens while %d tasks of "
                             "process scope %s are not released" % (number, opened, len(left),
                                                                     process))
                process = opened
                continue
            m = CLOSED.match(line)
            if m:
                open_streams[stream_process.get(m.group(1))] -= 1
                continue
            m = RELEASED.match(line)
            if m:
                if m.group(1) not in live:
                    fail("line %d: scope %s released twice or never registered"
                         % (number, m.group(1)))
                if args.after_deleted and m.group(1) not in deleted:
                    fail("line %d: scope %s released before its deleted mark"
                         % (number, m.group(1)))
                if open_streams.get(task_process[m.group(1)], 0) > 0:
                    early += 1
                live.discard(m.group(1))
                gone.add(m.group(1))
                continue
            for task in NAMED.findall(line):
                if task in gone:
                    fail("line %d: names task scope %s after its release" % (number, task))
                if "state=deleted" in line:
                    deleted.add(task)
    if live:
        fail("%d task scopes never released (e.g. %s)" % (len(live), sorted(live)[0]))
    if len(gone) < args.min:
        fail("%d task scopes released, expected at least %d" % (len(gone), args.min))
    if early < args.early:
        fail("%d task scopes released while their process was converted, expected at least %d"
             % (early, args.early))
    print("released: %d task scopes (%d while their process was converted)" % (len(gone), early))


if __name__ == "__main__":
    main()
