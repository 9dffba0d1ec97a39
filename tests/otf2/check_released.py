#!/usr/bin/env python3
"""tests/otf2/check_released.py - task scopes released by nvtxw-otf2-import
(docs/otf2-mapping.md, "Tasks"), checked in the text sink's output:

    check_released.py FILE.txt [--min N]

Every registered task scope (path "task[...]") is released exactly once, no
line names it (task=ID) after its release, and at least N were released.
The text sink writes lines in call order, and the importer releases a
group's tasks after its locations' streams are closed, so this holds on any
number of workers. Prints "released: N task scopes"; exits 1 with the first
violation on stderr.
"""
import re
import sys

REGISTERED = re.compile(r'^scope .* id=(\d+) parent=\d+ path="task\[')
RELEASED = re.compile(r"^scope_release .* id=(\d+)$")
NAMED = re.compile(r"\btask=(\d+)\b")


def fail(message):
    print("check_released: " + message, file=sys.stderr)
    sys.exit(1)


def main(argv):
    if len(argv) not in (2, 4) or (len(argv) == 4 and argv[2] != "--min"):
        fail("usage: check_released.py FILE.txt [--min N]")
    least = int(argv[3]) if len(argv) == 4 else 0
    live, gone = set(), set()
    with open(argv[1], encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            m = REGISTERED.match(line)
            if m:
                live.add(m.group(1))
                continue
            m = RELEASED.match(line)
            if m:
                if m.group(1) not in live:
                    fail("line %d: scope %s released twice or never registered"
                         % (number, m.group(1)))
                live.discard(m.group(1))
                gone.add(m.group(1))
                continue
            for task in NAMED.findall(line):
                if task in gone:
                    fail("line %d: names task scope %s after its release" % (number, task))
    if live:
        fail("%d task scopes never released (e.g. %s)" % (len(live), sorted(live)[0]))
    if len(gone) < least:
        fail("%d task scopes released, expected at least %d" % (len(gone), least))
    print("released: %d task scopes" % len(gone))


if __name__ == "__main__":
    main(sys.argv)
