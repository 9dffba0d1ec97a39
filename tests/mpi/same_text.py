#!/usr/bin/python3
"""same_text.py - do two text-sink outputs hold the same content?

Usage: same_text.py A.txt B.txt

The text sink (docs/text-format.md) writes one record per line, with its
payload lines indented below it. Two conversions of one trace that open
their streams in another order (one process: as workers reach them; --mpi:
in the archive's order) number the streams differently and interleave
records of equal timestamps differently, but must say the same thing:

- every record that names a stream (stream="NAME") is compared stream by
  stream, in the stream's own order, with its payload lines;
- every other record (registrations, the session) is compared as a
  multiset;
- dynamic scope IDs are the writer's choice (one process registers tasks
  as it meets them, --mpi in the order of their keys): a number that a
  scope record assigns is replaced by that scope's path wherever it
  stands as id=, parent=, scope= or task=.

Prints the first difference and exits 1; exits 0 when they agree.
"""
import re
import sys

STREAM = re.compile(r'stream="((?:[^"\\]|\\.)*)"')
SCOPE = re.compile(r'^scope domain="(?:[^"\\]|\\.)*" id=(\d+) .*path="((?:[^"\\]|\\.)*)"')
SCOPE_REF = re.compile(r'\b(id|parent|scope|task)=(\d+)')


def scope_paths(path):
    """Scope ID -> path, from the scope records."""
    paths = {}
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            m = SCOPE.match(line)
            if m:
                paths[m.group(1)] = m.group(2)
    return paths


def records(path):
    """(per-stream record lists, sorted other records) of one output."""
    streams, others, current = {}, [], None
    paths = scope_paths(path)

    def by_path(m):
        p = paths.get(m.group(2))
        return m.group(0) if p is None else '%s=<%s>' % (m.group(1), p)

    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            line = SCOPE_REF.sub(by_path, line.rstrip("\n"))
            if line.startswith(" ") and current is not None:
                current.append(line)
                continue
            current = [line]
            m = STREAM.search(line)
            if m:
                streams.setdefault(m.group(1), []).append(current)
            else:
                others.append(current)
    return streams, sorted("\n".join(r) for r in others)


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    (sa, oa), (sb, ob) = records(argv[1]), records(argv[2])
    if oa != ob:
        extra_a = sorted(set(oa) - set(ob))[:3]
        extra_b = sorted(set(ob) - set(oa))[:3]
        print("registrations differ: %d against %d records; only in %s: %s; only in %s: %s" %
              (len(oa), len(ob), argv[1], extra_a, argv[2], extra_b))
        return 1
    if sorted(sa) != sorted(sb):
        print("streams differ: %s against %s" % (sorted(sa)[:5], sorted(sb)[:5]))
        return 1
    for name in sorted(sa):
        a, b = sa[name], sb[name]
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                print("stream %s, record %d differs:\n  %s\n  %s" %
                      (name, i, "\n  ".join(x), "\n  ".join(y)))
                return 1
        if len(a) != len(b):
            print("stream %s: %d against %d records" % (name, len(a), len(b)))
            return 1
    print("same content: %d streams, %d stream records, %d other records" %
          (len(sa), sum(len(v) for v in sa.values()), len(oa)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
