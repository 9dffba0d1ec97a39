#!/usr/bin/env python3
"""check_includes.py - the dependency direction of docs/architecture.md,
checked over the #include lines of the library, the tools and the examples.

Usage: check_includes.py [ROOT]   (ROOT: the source tree, default: cwd)

Rules (each violation is printed as FILE:LINE: rule: what and why):
  layout      every sink lives in its own folder under libnvtxw/sink/, every
              nvtxw-replay input in its own folder under tools/replay/
  public      public headers (libnvtxw/include/nvtxw/) include only public
              headers
  module      a library module includes only the modules below it (MODULES)
  sink        a sink includes core/sink.h of the core and sink/shared/ of the
              sinks, never another sink; only sinks include sink headers
  tool        tools include only public headers, tools/common/ and their own
              files; nvtxw-replay's inputs and driver meet only in
              tools/replay/replay_input.h
  example     examples include only public headers
  library     third-party headers stay in their room (THIRD_PARTY)
  unresolved  a quoted include that is not in the tree (nor generated)
  computed    an #include that is not a literal "..." or <...>
  names       two source files of the tree with one file name
Angle-bracket includes that resolve in the tree (through the -I folders)
obey the same rules as quoted ones. Tests, benchmarks and fuzz targets may
include internal headers (they test them) and are not scanned, but their
file names count for `names`.
Exit status: 0 when every rule holds, 1 on a violation, 2 on usage errors.
"""
import os
import re
import sys

# Library modules (libnvtxw/<module>/) and the modules each may include.
# "include" is the public API, which everything may include.
MODULES = {
    "common": set(),
    "payload": {"common"},
    "schema": {"common", "payload"},
    "loader": {"common"},
    "format": {"common"},
    "reader": {"common", "format", "payload", "schema"},
    "core": {"common", "payload", "schema"},
    "sink": {"common", "payload", "schema", "format", "loader", "core"},
    "tasks": {"common"},
}
# The one core header a sink may include: the sink interface.
SINK_INTERFACE = "libnvtxw/core/sink.h"
# What every sink may use, besides its own folder.
SINK_SHARED = "shared"
# The interface between nvtxw-replay's driver and its input producers.
REPLAY_INTERFACE = "tools/replay/replay_input.h"
# Headers of third-party libraries and the folders they may appear in.
THIRD_PARTY = {
    "otf2/": ("tools/otf2-import/",),
    # the tools' --mpi mode: the share's callbacks (tools/common/tool_mpi.c)
    "mpi.h": ("tools/common/tool_mpi.c",),
    "sqlite3.h": ("libnvtxw/sink/sqlite/",),
    "sqlite3ext.h": ("libnvtxw/sink/sqlite/",),
    # the report's chunks; Perfetto's zstd_compressed_packets
    "zstd.h": ("libnvtxw/format/", "libnvtxw/sink/perfetto/"),
    "zstd_errors.h": ("libnvtxw/format/",),
    "xxhash.h": ("libnvtxw/format/", "libnvtxw/sink/report/"),
    "yaml.h": ("libnvtxw/schema/", "tools/replay/capture/"),
    # Chrome trace input; JSON-text fields checked and compacted (common/json_value.c)
    "yajl/": ("tools/replay/chrome/", "tools/replay/capture/", "libnvtxw/common/"),
}
# Quoted includes that the build generates (not in the source tree).
GENERATED = {"config.h", "otf2_events_yaml.inc"}
# Folders that hold no project source (build trees, installed test tools);
# folders starting with "." or "_" (distcheck's _build and _inst) neither.
NOT_SOURCE = {"node_modules", "engine", "autom4te.cache", "build", "m4"}
SCANNED = ("libnvtxw", "tools", "examples")
SOURCE_SUFFIXES = (".c", ".h", ".inc")
DIRECTIVE = re.compile(r"^[ \t]*#[ \t]*include\b(.*)$")
LITERAL = re.compile(r'^[ \t]*(<([^>]+)>|"([^"]+)")')


def strip_comments(text):
    """Blanks out C comments, keeping line breaks, so a commented-out
    #include is not read and line numbers stay right. String and character
    literals are copied as they are (a "/*" in a string opens no comment)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in "\"'":
            end = i + 1
            while end < n and text[end] not in (c, "\n"):
                end += 2 if text[end] == "\\" else 1
            end = min(end + 1, n)
            out.append(text[i:end])
            i = end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append("".join("\n" if ch == "\n" else " " for ch in text[i:end]))
            i = end
        elif text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            out.append(" " * (end - i))
            i = end
        else:
            out.append(c)
            i += 1
    return "".join(out)


def source_files(root):
    for top in SCANNED:
        for folder, dirs, files in os.walk(os.path.join(root, top)):
            dirs.sort()
            for name in sorted(files):
                if name.endswith(SOURCE_SUFFIXES):
                    yield os.path.relpath(os.path.join(folder, name), root)


def parts(path):
    return path.split("/")


def module_of(path):
    """The library module of a path under libnvtxw/, or None."""
    p = parts(path)
    if p[0] != "libnvtxw" or len(p) < 3:
        return None
    return p[1]


def sink_room(path):
    """The sink folder of a path under libnvtxw/sink/, or None."""
    p = parts(path)
    return p[2] if len(p) > 3 and p[:2] == ["libnvtxw", "sink"] else None


def replay_room(path):
    """The folder of a path under tools/replay/: '' for the interface at its
    root, else the folder (driver, capture, ...)."""
    p = parts(path)
    return p[2] if len(p) > 3 else ""


def search_path(source, bracket):
    """Where the build looks for an include of `source`: its own folder (for
    "..." only), then the -I folders of its target (Makefile.am,
    tools/local.mk) and the top of the tree (automake's -I$(srcdir))."""
    own = [os.path.dirname(source)] if bracket == '"' else []
    if source.startswith("tools/"):
        extra = ["libnvtxw/include", "tools/common"]
        if source.startswith("tools/replay/"):
            extra.append("tools/replay")
        # Not on the tools' include path: searched only to name the
        # violation when a tool reaches for them.
        extra += ["libnvtxw", "tools"]
    else:
        extra = ["libnvtxw/include", "libnvtxw"]
    return own + extra + [""]


def resolve(root, source, name, bracket='"'):
    for folder in search_path(source, bracket):
        candidate = os.path.normpath(os.path.join(folder, name))
        if os.path.isfile(os.path.join(root, candidate)):
            return candidate
    return None


def find_elsewhere(root, name):
    """Where a header of that file name is in the scanned tree, if anywhere."""
    base = os.path.basename(name)
    for path in source_files(root):
        if os.path.basename(path) == base:
            return path
    return None


def check_layout(path):
    p = parts(path)
    if p[:2] == ["libnvtxw", "sink"] and len(p) == 3:
        return ("layout", "a sink's file directly in libnvtxw/sink/: every sink has its own "
                "folder, what sinks share is in libnvtxw/sink/shared/")
    if p[:2] == ["tools", "replay"] and len(p) == 3 and path != REPLAY_INTERFACE:
        return ("layout", "a file directly in tools/replay/: the driver and every input have "
                "their own folder; only replay_input.h, their interface, sits here")
    return None


def check_library(source, target):
    if target.startswith("tools/") or target.startswith("examples/"):
        return ("module", "the library includes %s: it never includes a tool's or an "
                "example's header" % target)
    if target.startswith("libnvtxw/include/"):
        return None
    if source.startswith("libnvtxw/include/"):
        return ("public", "a public header includes the internal %s: public headers "
                "include only public headers" % target)
    src, dst = module_of(source), module_of(target)
    if src not in MODULES:
        return ("module", "%s is in no known library module (%s)" %
                (source, ", ".join(sorted(MODULES))))
    if dst == "sink" and src != "sink":
        return ("sink", "the %s module includes %s: only sinks include sink headers; the "
                "core reaches sinks through core/sink.h" % (src, target))
    if src == dst:
        if src != "sink":
            return None
        room, other = sink_room(source), sink_room(target)
        if other == room or (other == SINK_SHARED and room is not None):
            return None
        if room == SINK_SHARED:
            return ("sink", "sink/shared/ includes %s of the %s sink: what all sinks "
                    "share depends on no sink" % (target, other))
        return ("sink", "the %s sink includes %s of the %s sink: a sink includes "
                "core/sink.h, sink/shared/ and lower modules, never another sink" %
                (room, target, other))
    if dst not in MODULES[src]:
        allowed = ", ".join(sorted(MODULES[src])) or "none"
        return ("module", "the %s module includes %s of the %s module: %s may include "
                "only public headers and: %s" % (src, target, dst, src, allowed))
    if src == "sink" and dst == "core" and target != SINK_INTERFACE:
        return ("sink", "the %s sink includes %s: of the core, a sink includes only its "
                "sink interface, core/sink.h" % (sink_room(source), target))
    return None


def check_tool(source, target):
    tool = parts(source)[1]
    if target.startswith("libnvtxw/include/") or target.startswith("tools/common/"):
        return None
    if target.startswith("libnvtxw/"):
        return ("tool", "a tool includes the library-internal %s: tools include only public "
                "headers (libnvtxw/include/nvtxw/) and tools/common/" % target)
    if not target.startswith("tools/%s/" % tool):
        return ("tool", "the %s tool includes %s of another tool: what tools share "
                "belongs in tools/common/" % (tool, target))
    if tool == "replay":
        room, other = replay_room(source), replay_room(target)
        if other not in ("", room):
            return ("tool", "nvtxw-replay's %s includes %s of its %s: the driver and the "
                    "inputs meet only in tools/replay/replay_input.h" %
                    (replay_room_name(room), target, replay_room_name(other)))
    return None


def replay_room_name(room):
    return "driver" if room == "driver" else "%s input" % room


def check_example(target):
    if target.startswith("libnvtxw/include/") or target.startswith("examples/"):
        return None
    return ("example", "an example includes %s: examples include only public headers, as "
            "a user's program would" % target)


def check_angle(source, name):
    for prefix, rooms in THIRD_PARTY.items():
        if name == prefix or (prefix.endswith("/") and name.startswith(prefix)):
            if not source.startswith(rooms):
                return ("library", "<%s> outside %s: that library is linked into %s alone" %
                        (name, " ".join(rooms), " ".join(rooms)))
    return None


def check_include(root, source, bracket, name):
    if source.startswith("libnvtxw/include/") and name in GENERATED:
        return ("public", "a public header includes %s, which is not installed" % name)
    if bracket == "<":
        found = check_angle(source, name)
        target = resolve(root, source, name, "<")
        if found or target is None:
            return found  # a system or third-party header
        return check_target(source, target)
    if name in GENERATED:
        return None
    target = resolve(root, source, name)
    if target is None:
        elsewhere = find_elsewhere(root, name)
        return ("unresolved", '"%s" is not on the include path of %s%s' %
                (name, source, " (it is %s)" % elsewhere if elsewhere else
                 ", nor in the tree, nor generated"))
    return check_target(source, target)


def check_target(source, target):
    if source.startswith("libnvtxw/"):
        return check_library(source, target)
    if source.startswith("tools/"):
        return check_tool(source, target)
    return check_example(target)


def logical_lines(text):
    """(line number, line) with backslash-continued lines joined, numbered
    by their first line, as the preprocessor reads them."""
    lines = text.split("\n")
    number = 0
    while number < len(lines):
        first = number
        line = lines[number]
        while line.endswith("\\") and number + 1 < len(lines):
            number += 1
            line = line[:-1] + lines[number]
        number += 1
        yield first + 1, line


def unique_names(root):
    """Source files of the whole tree whose file name another one has."""
    seen = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d[0] not in "._" and d not in NOT_SOURCE)
        for name in files:
            if name.endswith(SOURCE_SUFFIXES):
                seen.setdefault(name, []).append(
                    os.path.relpath(os.path.join(folder, name), root))
    return {name: sorted(paths) for name, paths in seen.items() if len(paths) > 1}


def main(argv):
    if len(argv) > 2 or (len(argv) == 2 and argv[1] in ("-h", "--help")):
        sys.stderr.write("usage: check_includes.py [ROOT]\n")
        return 2
    root = argv[1] if len(argv) == 2 else "."
    if not os.path.isdir(os.path.join(root, "libnvtxw")):
        sys.stderr.write("check_includes.py: error: no libnvtxw/ in %s\n" % root)
        return 2
    violations = files = includes = 0
    for source in source_files(root):
        files += 1
        problems = []
        layout = check_layout(source)
        if layout:
            problems.append((1,) + layout)
        with open(os.path.join(root, source), encoding="utf-8", errors="replace") as f:
            text = strip_comments(f.read())
        for number, line in logical_lines(text):
            directive = DIRECTIVE.match(line)
            if not directive:
                continue
            includes += 1
            literal = LITERAL.match(directive.group(1))
            if literal is None:
                problems.append((number, "computed", "#include%s: an include that is not a "
                                 "literal \"...\" or <...> hides what it includes from these "
                                 "rules" % directive.group(1)))
                continue
            bracket = "<" if literal.group(2) else '"'
            found = check_include(root, source, bracket, literal.group(2) or literal.group(3))
            if found:
                problems.append((number,) + found)
        for number, rule, why in problems:
            print("%s:%d: %s: %s" % (source, number, rule, why))
        violations += len(problems)
    for name, paths in sorted(unique_names(root).items()):
        print("%s:1: names: %s is also %s: file names are unique in the tree, so a name in a "
              "message, a backtrace or a profile points at one file" %
              (paths[0], name, ", ".join(paths[1:])))
        violations += 1
    if violations:
        print("check_includes: %d violation(s) of the dependency rules "
              "(docs/architecture.md)" % violations)
        return 1
    print("check_includes: %d files, %d includes: the dependency rules hold" % (files, includes))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
