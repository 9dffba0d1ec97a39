#!/usr/bin/env python3
"""Independent checks of nvtxw-payload's golden outputs (payload_cli_test.sh).

Usage: payload_golden_check.py KIND OUTPUT INPUT...

Each KIND recomputes, from the inputs the test feeds the tool and without
nvtxw, what OUTPUT must say, so a golden file regenerated from a wrong output
cannot pass:

  check FILE.yaml...        one line per registration, in file order: IDs
                            from 2**32 up (the registry's first automatic
                            ID), kind, size and alignment from a C layout of
                            the entry types, entry or value counts, the total
  dump IN.yaml              the dump loads (PyYAML) to the same data as IN
  decode-json|decode-text KERNEL.yaml GPU_OP.hex DOUBLE.hex
                            the gpu_op payload decoded with struct from the
                            layout kernel.yaml implies, the double likewise,
                            rendered in the formatters' JSON or text shape
  decode-predefined ABC.bin INTS.bin
                            a cstring_utf8 payload and an int32 array

Prints "ok KIND" and exits 0, or "FAIL KIND: ..." naming the first line that
differs and exits 1.
"""
import json
import struct
import sys

import yaml

FIRST_ID = 2**32
DOUBLE_ID = 20  # NVTX_PAYLOAD_ENTRY_TYPE_DOUBLE
# size (= alignment) of the scalar types the shipped and example YAML use
SCALARS = {"int64": 8, "uint64": 8, "double": 8, "uint32": 4, "int32": 4, "uint16": 2,
           "color_argb": 4, "category": 4, "registered_string": 8, "range_id": 8,
           "cstring_utf8": 1}


def load_items(paths):
    items = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            items += yaml.safe_load(f)["items"]
    return items


def layout(entries, types):
    """(fixed size before the first variable-length entry, alignment, variable?)
    with natural alignment; a static schema's size is rounded to its alignment."""
    offset, align, variable = 0, 1, False
    for e in entries:
        size, a = types[e["type"]]
        align = max(align, a)
        if variable:
            continue
        if "array" in e and not isinstance(e["array"], int):
            variable = True  # zero_terminated or length_index: ends the fixed part
            continue
        count = e["array"] if isinstance(e.get("array"), int) else 1
        offset = e.get("offset", (offset + a - 1) // a * a) + size * count
    return offset, align, variable


def expect_check(paths):
    items, lines, types = load_items(paths), [], dict((t, (s, s)) for t, s in SCALARS.items())
    for n, item in enumerate(items):
        (what, body), = item.items()
        name = body.get("name", "")
        if what == "enum":
            types[name] = (body["size"], body["size"])
            lines.append('enum %d "%s": %d bytes, %d values'
                         % (FIRST_ID + n, name, body["size"], len(body["values"])))
            continue
        fixed, align, variable = layout(body["entries"], types)
        if body["kind"] == "dynamic":
            shape = "dynamic, variable size, at least %d bytes" % fixed
        else:
            size = body.get("size", (fixed + align - 1) // align * align)
            shape = "static, %d bytes" % size
            types[name] = (size, align)
        lines.append('schema %d "%s": %s, align %d, %d entries'
                     % (FIRST_ID + n, name, shape, align, len(body["entries"])))
    lines.append("nvtxw-payload: %d registrations, all valid" % len(items))
    return "\n".join(lines) + "\n"


def read_hex(path):
    """The bytes of a hex file: pairs of digits, '#' starts a comment."""
    with open(path, encoding="utf-8") as f:
        return bytes.fromhex("".join(line.split("#")[0] for line in f))


class Enum(str):
    """An enumerator name: quoted in JSON, bare in text."""


def decode_gpu_op(kernel, data):
    """gpu_op from kernel.yaml, natural alignment: start, end int64 @0, @8;
    kind uint32 enum @16; grid, block dim3 (3 x uint32) @20, @32; stream
    uint32 @44; n_args uint16 @48; arg_sizes n_args x uint32 @52 (aligned to
    4); name: the zero-terminated rest."""
    kinds = {v["value"]: v["name"] for v in load_items([kernel])[0]["enum"]["values"]}
    start, end, kind = struct.unpack_from("<qqI", data, 0)
    grid, block = struct.unpack_from("<3I", data, 20), struct.unpack_from("<3I", data, 32)
    stream, n_args = struct.unpack_from("<IH", data, 44)
    sizes = list(struct.unpack_from("<%dI" % n_args, data, 52))
    name = data[52 + 4 * n_args:].split(b"\0")[0].decode("utf-8")
    return {"start": start, "end": end, "kind": Enum(kinds[kind]),
            "grid": dict(zip("xyz", grid)), "block": dict(zip("xyz", block)),
            "stream": stream, "n_args": n_args, "arg_sizes": sizes, "name": name}


def payload(index, schema_id, size, name, fields):
    return {"index": index, "schemaId": schema_id, "size": size, "schemaName": name,
            "fields": fields}


def text_value(v):
    if isinstance(v, dict):
        return "{" + ", ".join("%s=%s" % (k, text_value(x)) for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(text_value(x) for x in v) + "]"
    if isinstance(v, Enum):
        return str(v)
    if isinstance(v, str):
        return '"%s"' % v  # the inputs need no escapes
    return repr(v)


def render(kind, payloads):
    if kind == "json":
        return json.dumps({"count": len(payloads), "payloads": payloads},
                          separators=(",", ":"), ensure_ascii=False) + "\n"
    return "".join("[%d] %s: %s\n" % (p["index"], p["schemaName"], text_value(p["fields"])[1:-1])
                   for p in payloads)


def expect_decode(kind, kernel, gpu_hex, double_hex):
    gpu, dbl = read_hex(gpu_hex), read_hex(double_hex)
    (value,) = struct.unpack("<d", dbl)
    return render(kind, [payload(0, FIRST_ID + 2, len(gpu), "gpu_op", decode_gpu_op(kernel, gpu)),
                         payload(1, DOUBLE_ID, len(dbl), "DOUBLE", {"<field_0>": value})])


def expect_predefined(abc, ints):
    with open(abc, "rb") as f:
        text = f.read()
    with open(ints, "rb") as f:
        raw = f.read()
    values = list(struct.unpack("<%di" % (len(raw) // 4), raw))
    return render("text", [payload(0, 76, len(text), "CSTRING_UTF8",
                                   {"<field_0>": text.decode("utf-8")}),
                           payload(1, 15, len(raw), "INT32", {"<field_0>": values})])


def first_difference(want, got):
    w, g = want.split("\n"), got.split("\n")
    for n in range(max(len(w), len(g))):
        a = w[n] if n < len(w) else "<end>"
        b = g[n] if n < len(g) else "<end>"
        if a != b:
            return "line %d: want %r, got %r" % (n + 1, a, b)
    return None


def main(argv):
    kind, output, inputs = argv[1], argv[2], argv[3:]
    with open(output, encoding="utf-8") as f:
        got = f.read()
    if kind == "dump":
        with open(inputs[0], encoding="utf-8") as f:
            want_data = yaml.safe_load(f)
        problem = None if yaml.safe_load(got) == want_data else \
            "loads to other data than %s: %r" % (inputs[0], yaml.safe_load(got))
    else:
        if kind == "check":
            want = expect_check(inputs)
        elif kind in ("decode-json", "decode-text"):
            want = expect_decode(kind[len("decode-"):], *inputs)
        elif kind == "decode-predefined":
            want = expect_predefined(*inputs)
        else:
            sys.exit("payload_golden_check.py: unknown KIND %r" % kind)
        problem = first_difference(want, got)
    if problem:
        print("FAIL %s: %s" % (kind, problem))
        return 1
    print("ok " + kind)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
