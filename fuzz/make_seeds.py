#!/usr/bin/env python3
"""make_seeds.py - writes the hand-built seeds of fuzz/corpus/visit/ and
fuzz/corpus/registry/, whose inputs are byte layouts of the harness rather
than files of a format (fuzz/README.md describes both layouts).

Usage: fuzz/make_seeds.py [FUZZ_DIR]   (default: the folder of this script)

The seeds are committed; rerun this after changing a harness's layout and
commit the result. Each seed is named for what it reaches; the comments
give the fields byte by byte and what the visitor does with them, checked
with a build of the targets that prints the visitor's callbacks: every
"decodes" seed visits all of its fields without error, every other one
stops at the error named in its comment, which is the path it seeds.
"""
import os
import struct
import sys

# visit_fuzz: byte 0 picks the schema (0 inner STATIC, 1 external-selector
# UNION, 2 internal-selector UNION, 3 DYNAMIC, 4 outer DYNAMIC, 5.. the
# predefined types of the harness); byte 1: bit 7 = a second payload
# follows, bits 0-6 = where the first ends, bit 6 = the second is UINT8
# (else REFERENCED).
INNER, UNION, IUNION, DYNAMIC, OUTER, PREDEFINED = 0, 1, 2, 3, 4, 5
PREDEFINED_COUNT = 18


def pattern(n, step=7):
    return bytes((i * step + 1) & 0xFF for i in range(n))


def dynamic_prefix():
    """The DYNAMIC schema's fields up to "lpi" (100 bytes, natural alignment)."""
    return b"".join([
        bytes([2, 0]),                    # n = 2, pad
        struct.pack("<hh", 1, 2),         # li: int16[n]
        bytes([2, 1]),                    # dims: uint8[2]
        bytes([5, 6]),                    # md: int8[2][1] (dims from entry 2)
        b"hi\0",                          # zt: zero-terminated UTF-8
        b"\0",                            # pad
        "a\0".encode("utf-16-le"),        # zt16: zero-terminated UTF-16
        b"abcdefghi\0\0\0",               # names: 3-byte strings, zero element ends
        b"\0\0",                          # pad
        "xy".encode("utf-32-le"),         # lis: UTF-32 of length n
        struct.pack("<I", 1),             # u = 1: selects "d" of the union below
        bytes(4),                         # pad
        struct.pack("<d", 1.5),           # un: external-selector union
        bytes([0, 0, 0, 0, 7, 0, 0, 0]),  # iu[0]: sel 0, b = 7
        bytes([1, 0, 0, 0]) + struct.pack("<f", 1.0),  # iu[1]: sel 1, f = 1.0
        bytes(8),                         # iu: the zero element ends the array
        bytes([2, 3, 0]),                 # zdims: zero-terminated uint8
        bytes([1, 2, 3, 4, 5, 6]),        # zmd: int8[2][3] (dims from zdims)
        bytes(3),                         # pad
        struct.pack("<ii", 9, 10),        # lpi: int32[payload 1's value]
    ])


def visit_seeds():
    dyn = dynamic_prefix()
    seeds = {
        # decodes: every scalar width, fixed strings, enum array, handle, int128
        "inner-static.bin": bytes([INNER, 0]) + pattern(96),
        # stops at "h2": needs 8 bytes at offset 64 (short static payload)
        "inner-static-short.bin": bytes([INNER, 0]) + pattern(64),
        # stops at once: an external-selector union cannot be a payload
        "union-external.bin": bytes([UNION, 0]) + pattern(8),
        # decodes: selector 1 picks the float member
        "union-internal.bin": bytes([IUNION, 0, 1, 0, 0, 0]) + struct.pack("<f", 2.5),
        # stops at "lpi": its length comes from payload 1, absent
        "dynamic-one-payload.bin": bytes([DYNAMIC, 0]) + dyn + bytes(30),
        # stops at "inner" (payload 0 ends at 100 bytes); lpi takes length 2
        # from payload 1, a UINT8
        "dynamic-two-payloads.bin": bytes([DYNAMIC, 0xC0 | len(dyn)]) + dyn + bytes([2]),
        # payload 1 REFERENCED: lpi finds no length there
        "dynamic-referenced.bin": bytes([DYNAMIC, 0x80 | len(dyn)]) + dyn + pattern(16),
        # the DYNAMIC schema nested in another, as its first field
        "outer-dynamic.bin": bytes([OUTER, 0]) + dyn + bytes(200),
        "empty-payload.bin": bytes([INNER, 0]),
    }
    for k in range(PREDEFINED_COUNT):
        seeds["predefined-%02d.bin" % k] = bytes([PREDEFINED + k, 0]) + pattern(32, 13)
    return seeds


# registry_fuzz (fuzz/registry_fuzz.c): enum size pick, schema count, per
# schema: type, entries, packAlign pick, payloadStaticSize, flags, then per
# entry: flags (array kind | form << 3 | 0x40 deep copy | 0x80 message;
# bit 0 also gives an empty name), type pick, detail, offset; then split,
# payload 1's schema pick (bit 7: UINT8) and the payload bytes.
STATIC, DYN, UNION_EXT, UNION_INT = 1, 2, 3, 4
T_UINT8, T_INT16, T_INT32, T_UINT64, T_DOUBLE = 7, 8, 10, 13, 15
T_CSTRING, T_UTF8, T_SELECTOR, T_ENUM, T_EARLIER = 32, 33, 37, 48, 49
FIXED, ZT, LI, LPI = 1, 2, 3, 4
POINTER, FROM_BASE = 1 << 3, 2 << 3


def schema(kind, entries, pack=0, static_size=0, flags=0):
    head = bytes([kind, len(entries) - 1, pack, static_size, flags])
    return head + b"".join(bytes(e) for e in entries)


def registry_input(enum_size, schemas, split, second, payload):
    return bytes([enum_size, len(schemas) - 1]) + b"".join(schemas) + \
        bytes([split, second]) + payload


def registry_seeds():
    seeds = {
        # decodes: an enum of size 1 at 0xFF, the enumerator "NEG" ((uint64_t)-1)
        "enum-negative.bin": registry_input(
            0, [schema(STATIC, [(0, T_ENUM, 0, 0)])], 1, 0x80, bytes([0xFF, 1, 2])),
        # decodes: an 8-byte enum array of 2 with flag values
        "enum-array-8.bin": registry_input(
            3, [schema(STATIC, [(FIXED, T_ENUM, 2, 0)])], 16, 0,
            struct.pack("<QQ", 3, 1 << 63)),
        # stops: selector 255 of a one-member union
        "union-selector-out-of-range.bin": registry_input(
            0, [schema(UNION_INT, [(0, T_SELECTOR, 1, 0), (0, T_INT32, 0, 0)])], 8, 0x80,
            bytes([0xFF, 0, 0, 0, 1, 0, 0, 0, 5])),
        # decodes: selector 0 picks the int32
        "union-selector.bin": registry_input(
            0, [schema(UNION_INT, [(0, T_SELECTOR, 1, 0), (0, T_INT32, 0, 0)])], 8, 0x80,
            bytes([0, 0, 0, 0, 1, 0, 0, 0, 5])),
        # stops: 3 bytes for a static int32 (short static payload)
        "static-short.bin": registry_input(
            0, [schema(STATIC, [(0, T_INT32, 0, 0)])], 3, 0, bytes([1, 2, 3])),
        # decodes: a pointer array of length 0 (NULL pointer, n = 0)
        "pointer-array-empty.bin": registry_input(
            0, [schema(DYN, [(0, T_UINT8, 0, 0), (LI | POINTER, T_INT32, 0, 0)])], 16, 0,
            bytes(16)),
        # decodes: a length-indexed int16 array and a zero-terminated string
        "dynamic-arrays.bin": registry_input(
            0, [schema(DYN, [(0, T_UINT8, 0, 0), (LI, T_INT16, 0, 0), (ZT, T_UTF8, 0, 0)])],
            12, 0, bytes([3, 0]) + struct.pack("<hhh", -1, 2, 3) + b"abc\0"),
        # payload 1 as the length of an LPI array (UINT8 = 2)
        "length-payload-index.bin": registry_input(
            0, [schema(DYN, [(LPI, T_INT32, 1, 0)])], 8, 0x80,
            struct.pack("<ii", 7, 8) + bytes([2])),
        # a static schema with packAlign 1 and payloadStaticSize 16, offsets
        # given, nested in a second schema (an earlier schema as type)
        "nested-packed.bin": registry_input(
            1, [schema(STATIC, [(0, T_UINT8, 0, 0), (0, T_DOUBLE, 0, 1)], pack=1,
                       static_size=16),
                schema(STATIC, [(0, T_EARLIER, 0, 0), (FIXED, T_CSTRING, 4, 16)])],
            20, 0, pattern(24)),
        # an invalid schema type and an unknown entry type: registration fails
        "invalid-types.bin": registry_input(
            0, [schema(5, [(0, T_UINT8, 0, 0)]), schema(STATIC, [(0, 38, 0, 0)])], 0, 0, b""),
        # offset from base to a string
        "offset-from-base.bin": registry_input(
            0, [schema(DYN, [(0, T_UINT64, 0, 0), (FROM_BASE, T_UTF8, 0, 0)])], 16, 0,
            struct.pack("<QQ", 1, 8)),
        # four schemas of each kind with 2 to 5 entries of mixed flags and
        # types; only the first registers, the others fail in different ways
        "four-schemas.bin": registry_input(
            2, [schema(k % 4 + 1, [(k, (k * 5 + j) % 42, j * 3, 0) for j in range(k + 2)])
                for k in range(4)], 64, 0x80, pattern(80)),
        "empty.bin": b"",
    }
    return seeds


def write(folder, seeds):
    os.makedirs(folder, exist_ok=True)
    for name, data in sorted(seeds.items()):
        with open(os.path.join(folder, name), "wb") as out:
            out.write(data)
    print("%s: %d seeds, %d bytes" % (folder, len(seeds), sum(map(len, seeds.values()))))


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    write(os.path.join(root, "corpus", "visit"), visit_seeds())
    write(os.path.join(root, "corpus", "registry"), registry_seeds())
    return 0


if __name__ == "__main__":
    sys.exit(main())
