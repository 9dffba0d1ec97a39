#!/usr/bin/python3
"""perfetto_check.py: an independent oracle for nvtxw's Perfetto sink (Sink=perfetto).

Usage:
  perfetto_check.py --proto PATH/perfetto_trace.proto TRACE.pftrace [--json TRACE.json]
                    [--dump] [--strict]
  perfetto_check.py --proto PATH/perfetto_trace.proto --self-test [TRACE.pftrace [--json TRACE.json]]

Exit status: 0 when every check holds, 1 when one fails (the first 20 failures are
printed, then their count), 2 on usage errors (bad options, unreadable files, protoc
failing on the schema).

It reads a .pftrace with Perfetto's official schema (bindings generated at run time
with `protoc --python_out` into a temporary directory) and interprets it by the rules
of Perfetto's trace processor (google/perfetto, src/trace_processor: proto_trace_reader,
proto_trace_tokenizer, clock_synchronizer, track_event_tokenizer, the track event
importer, slice_tracker, trace_sorter), not by reading the sink's C code:

  packets     Trace.packet in file order; `compressed_packets` (one zlib/gzip stream,
              inflated with auto-detected header as TP does) and
              `zstd_compressed_packets` (one zstd frame; python zstd module, else
              libzstd through ctypes, else the zstd program) are expanded in place;
              the two kinds must not be mixed; the container's own fields are ignored
              by TP, so they are reported.
  sequences   per trusted_packet_sequence_id: SEQ_INCREMENTAL_STATE_CLEARED (1)
              starts a new incremental state (interning tables, TracePacketDefaults,
              incremental counters; it also requires a new ClockSnapshot before an
              incremental clock is used again); a packet with
              SEQ_NEEDS_INCREMENTAL_STATE (2) before any CLEARED is dropped by TP and
              reported; packets that use interned iids or an incremental clock, or
              define interned data, must carry flag 2. Every iid used (event names,
              categories, debug annotation names and string values) must be defined
              earlier on the sequence in the current state, and never redefined
              with another value.
  clocks      ClockSnapshot: clocks 64-127 are sequence-scoped; is_incremental
              clocks (only sequence-scoped ones) carry deltas from the sequence's
              previous value on that clock (the first one after a snapshot from the
              snapshot's value); unit_multiplier_ns; TracePacketDefaults
              .timestamp_clock_id is the default, a packet's own timestamp_clock_id
              overrides it (6 = BOOTTIME, the trace clock). Conversion to BOOTTIME
              uses the snapshot whose clock value is the largest not above the
              timestamp (the first one when none), as TP's clock synchronizer. Every
              TrackEvent time must be >= 0.
  tracks      TrackDescriptor: uuid, parent_uuid, name, process{pid, process_name},
              thread{pid, tid, thread_name}, counter{...}, sibling_order_rank;
              every uuid an event uses needs a descriptor; parents must exist
              (no cycles); no two thread tracks with one (pid, tid); one process
              track per pid; a descriptor repeated with other contents is
              reported; a counter track must be described before its first value
              (TP converts counter values while tokenizing).
  events      TrackEvent type SLICE_BEGIN / SLICE_END / INSTANT / COUNTER; name or
              name_iid; categories or category_iids; track_uuid or
              TrackEventDefaults.track_uuid. Each track's events are ordered by
              time, ties in file order (TP's sorter orders by (ts, order of
              tokenization), whatever the sequence), then replayed: SLICE_END closes
              the innermost open slice (an END with none open is an error, an END
              naming another slice too), its debug annotations merge into the
              slice's args (later keys win); slices deeper than 512 are dropped by
              TP (error); slices open at the end are counted (errors with
              --strict). Debug annotations become Python values (int/uint, double,
              bool, string, string_value_iid, legacy_json_value, dict_entries,
              array_values). COUNTER values (counter_value, double_counter_value,
              with unit_multiplier and is_incremental applied) only on counter
              tracks. Flows follow TP: an id in flow_ids starts a flow when none is
              active with that id (else continues it), terminating_flow_ids end an
              active one; dangling starts and ends are counted, not errors.

With --json, the JSON output of the same session (docs/chrome-json.md) is compared
event by event, on the sink's contract:
  - process pid P (process_name) <-> a process track, ProcessDescriptor pid P, same
    name, sibling_order_rank P;
  - a stream row (pid P, tid T < 2^32, thread_name N, thread_sort_index K) <-> a
    track with sibling_order_rank K: a thread track (pid P, tid T, thread_name N) or
    a custom track named N whose parent is process P's track; plus the custom tracks
    named "tasks" under that track (lanes holding the stream's copies of task slices,
    which may overlap the stream's own ranges) and "overlapping ranges" (lanes holding
    its whole ranges that do not nest with its others);
  - a task row (tid >= 2^32, "task KEY") <-> a custom track "task KEY" under process P
    (rows of one process with the same name share their tracks as one pool);
  - producer ns = round(ts * 1000) + otherData.timestampBase_ns (ts read as a
    decimal), and a Perfetto time equals it, or 0 when it is negative;
  - X <-> slice (name, one category, begin, end, args); B <-> slice with that begin,
    name, category and args and any end (or still open); i <-> INSTANT; b/e (paired
    by cat and id, innermost first) <-> a slice on a track named after the category
    under process P (args: the b's, then the e's); an e without b <-> a SLICE_END
    that ends nothing (counted); C (name N, args {k: v}) <-> COUNTER values at ts on
    a counter track under the row's track named N (one key) or "N k";
    integers as counter_value, floats as double_counter_value; s / f (id X) at ts <->
    X in flow_ids / terminating_flow_ids of an event at ts on the row's track, or of
    the SLICE_END of a slice of that track that begins at ts (the sink ends a flow at
    a whole range's end: TP follows flows in time order and drops an end that comes
    before its start), else the same on the process's lane named after the flow
    event's category (a start/end range carries its flow ids on its lane);
  - values: ints <-> int_value/uint_value, floats <-> double_value (bit-exact; "nan",
    "inf", "-inf" strings <-> NaN/inf doubles), strings <-> string_value, null <->
    legacy_json_value "null", objects <-> dict_entries (keys in order), arrays <->
    array_values; an empty object or array <-> an annotation without a value. Top
    level args are compared as a set of keys.
  - both ways: each JSON event is matched once (multisets per track), and every
    slice, instant, counter value and flow end of the trace must be matched.

--self-test mutates a decoded trace in memory (drop an event, shift a time by 1 ns,
change an argument, break a nesting, use an undefined iid, drop the CLEARED flag) and
asserts that each mutation is detected. Without a trace it builds its own small trace
and JSON (and also reads it back from inside a zlib compressed_packets container); with
TRACE and --json a mutation must make the comparison fail; with TRACE alone it must
make the interpretation fail or change the interpreted model.

Speed: about 30-45 s of CPU per million packets with their JSON (cpp protobuf backend),
a few GB of memory; the interpretation streams the packets.

Requirements: /usr/bin/python3 with python3-protobuf (the cpp backend makes it fast),
protoc. Part of the nvtxw tests; not wired into the build by this file.
"""

import argparse
import bisect
import collections
import ctypes
import ctypes.util
import decimal
import gc
import importlib
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import zlib

MAX_SHOWN = 20
MAX_DEPTH = 512          # TP's SliceTracker::kMaxDepth
BOOTTIME = 6
SEQ_CLEARED = 1
SEQ_NEEDS = 2
TASK_TID_MIN = 1 << 32

T_BEGIN, T_END, T_INSTANT, T_COUNTER = 1, 2, 3, 4
LEGACY_FIELDS = frozenset(('timestamp_delta_us', 'timestamp_absolute_us', 'thread_time_delta_us',
                           'thread_time_absolute_us', 'thread_instruction_count_delta',
                           'thread_instruction_count_absolute', 'legacy_event'))
TYPE_NAMES = {0: 'UNSPECIFIED', 1: 'SLICE_BEGIN', 2: 'SLICE_END', 3: 'INSTANT',
              4: 'COUNTER', 5: 'STATE'}


class UsageError(Exception):
    pass


# --------------------------------------------------------------------------
# Schema


def load_schema(proto_path):
    if not os.path.isfile(proto_path):
        raise UsageError('schema not found: %s' % proto_path)
    if shutil.which('protoc') is None:
        raise UsageError('protoc is not installed (Debian: protobuf-compiler)')
    src_dir = os.path.dirname(os.path.abspath(proto_path))
    base = os.path.basename(proto_path)
    if not base.endswith('.proto'):
        raise UsageError('--proto must name a .proto file: %s' % proto_path)
    tmp = tempfile.mkdtemp(prefix='perfetto_check.')
    try:
        r = subprocess.run(['protoc', '-I', src_dir, '--python_out', tmp,
                            os.path.join(src_dir, base)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if r.returncode != 0:
            raise UsageError('protoc failed on %s:\n%s' %
                             (proto_path, r.stderr.decode(errors='replace')))
        modname = base[:-len('.proto')].replace('-', '_').replace('.', '_') + '_pb2'
        sys.path.insert(0, tmp)
        try:
            return importlib.import_module(modname)
        finally:
            sys.path.remove(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# --------------------------------------------------------------------------
# Decompression


class Zstd:
    """One-frame zstd decompression: a python module, else libzstd, else zstd(1)."""

    def __init__(self):
        self.how = None
        self.err = None
        for name in ('compression.zstd', 'zstandard', 'pyzstd'):
            try:
                self.mod = importlib.import_module(name)
                self.how = name
                return
            except ImportError:
                pass
        path = ctypes.util.find_library('zstd')
        for cand in ([path] if path else []) + ['libzstd.so.1']:
            try:
                lib = ctypes.CDLL(cand)
                lib.ZSTD_getFrameContentSize.restype = ctypes.c_ulonglong
                lib.ZSTD_getFrameContentSize.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
                lib.ZSTD_findFrameCompressedSize.restype = ctypes.c_size_t
                lib.ZSTD_findFrameCompressedSize.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
                lib.ZSTD_decompress.restype = ctypes.c_size_t
                lib.ZSTD_decompress.argtypes = [ctypes.c_void_p, ctypes.c_size_t,
                                                ctypes.c_char_p, ctypes.c_size_t]
                lib.ZSTD_isError.restype = ctypes.c_uint
                lib.ZSTD_isError.argtypes = [ctypes.c_size_t]
                self.lib = lib
                self.how = 'libzstd'
                return
            except OSError:
                pass
        if shutil.which('zstd'):
            self.how = 'zstd-cli'
            return
        self.err = 'no zstd decompressor (python module, libzstd or zstd program)'

    def decompress_one_frame(self, data):
        """Returns (bytes, None) or (None, error)."""
        if self.how is None:
            return None, self.err
        if self.how == 'libzstd':
            lib = self.lib
            fsize = lib.ZSTD_findFrameCompressedSize(data, len(data))
            if lib.ZSTD_isError(fsize):
                return None, 'not a zstd frame'
            if fsize != len(data):
                return None, '%d bytes after the zstd frame (TP wants exactly one frame)' % (
                    len(data) - fsize)
            n = lib.ZSTD_getFrameContentSize(data, len(data))
            if n < (1 << 62):
                buf = ctypes.create_string_buffer(max(int(n), 1))
                got = lib.ZSTD_decompress(buf, int(n), data, len(data))
                if lib.ZSTD_isError(got):
                    return None, 'zstd frame does not decompress'
                return buf.raw[:got], None
            # content size unknown: fall through to the program
            if not shutil.which('zstd'):
                return None, 'zstd frame without content size and no zstd program'
        if self.how == 'zstd-cli' or self.how == 'libzstd':
            r = subprocess.run(['zstd', '-d', '-c', '-q'], input=data,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            if r.returncode != 0:
                return None, 'zstd: ' + r.stderr.decode(errors='replace').strip()
            return r.stdout, None
        try:
            if self.how == 'zstandard':
                d = self.mod.ZstdDecompressor().decompressobj()
                out = d.decompress(data)
                if d.unused_data:
                    return None, 'data after the zstd frame'
                return out, None
            return self.mod.decompress(data), None
        except Exception as e:  # pragma: no cover
            return None, 'zstd: %s' % e


# --------------------------------------------------------------------------
# Packet splitting


def read_varint(buf, pos, end):
    result = 0
    shift = 0
    while True:
        if pos >= end:
            raise ValueError('truncated varint')
        b = buf[pos]
        pos += 1
        result |= (b & 0x7f) << shift
        if b < 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise ValueError('varint too long')


def split_packets(buf, strict_tags):
    """Yields (offset, bytes) for each Trace.packet field of buf; raises ValueError
    on malformed input. strict_tags: any other field is an error (TP's rule inside
    compressed packets); otherwise other fields are skipped and reported by the
    caller through the 'other' entries (offset, None)."""
    pos = 0
    end = len(buf)
    mv = memoryview(buf)
    while pos < end:
        start = pos
        if buf[pos] == 0x0a:
            n, pos = read_varint(buf, pos + 1, end)
            if pos + n > end:
                raise ValueError('packet at offset %d overruns the buffer (%d bytes, %d left)'
                                 % (start, n, end - pos))
            yield start, mv[pos:pos + n]
            pos += n
            continue
        if strict_tags:
            raise ValueError('expected a TracePacket tag (0x0a) at offset %d, found 0x%02x'
                             % (start, buf[pos]))
        key, pos = read_varint(buf, pos, end)
        wt = key & 7
        if wt == 0:
            _, pos = read_varint(buf, pos, end)
        elif wt == 1:
            pos += 8
        elif wt == 2:
            n, pos = read_varint(buf, pos, end)
            pos += n
        elif wt == 5:
            pos += 4
        else:
            raise ValueError('bad wire type %d at offset %d' % (wt, start))
        if pos > end:
            raise ValueError('field at offset %d overruns the buffer' % start)
        yield start, None


class Loc:
    __slots__ = ('index', 'offset', 'outer')

    def __init__(self, index, offset, outer=None):
        self.index = index
        self.offset = offset
        self.outer = outer

    def __str__(self):
        if self.outer is None:
            return 'packet #%d (offset %d)' % (self.index, self.offset)
        return 'packet #%d (inside compressed packet at offset %d, +%d)' % (
            self.index, self.outer, self.offset)


def iter_packets(data, pb, fail):
    """Yields (TracePacket, Loc) in TP's order of tokenization, expanding compressed
    packets in place."""
    TracePacket = pb.TracePacket
    n = 0
    zstd = None
    codec_seen = None
    try:
        for off, raw in split_packets(data, strict_tags=False):
            if raw is None:
                fail('top level: field other than Trace.packet at offset %d (ignored)' % off)
                continue
            if len(raw) == 0:
                continue
            pkt = TracePacket.FromString(raw)
            kind = pkt.WhichOneof('data')
            if kind != 'compressed_packets' and kind != 'zstd_compressed_packets':
                yield pkt, Loc(n, off)
                n += 1
                continue
            if codec_seen is not None and codec_seen != kind:
                fail('offset %d: compressed_packets and zstd_compressed_packets are mixed '
                     '(TP refuses the trace)' % off)
            codec_seen = kind
            others = [fd.name for fd, _ in pkt.ListFields() if fd.name != kind]
            if others:
                fail('offset %d: %s packet also carries %s, which TP ignores (only the '
                     'inner packets count)' % (off, kind, ', '.join(others)))
            blob = getattr(pkt, kind)
            if kind == 'compressed_packets':
                d = zlib.decompressobj(32 + 15)   # zlib or gzip header, as TP's kGzip
                try:
                    inner = d.decompress(blob)
                    ok = d.eof and not d.unused_data
                except zlib.error as e:
                    fail('offset %d: compressed_packets does not inflate: %s' % (off, e))
                    continue
                if not ok:
                    fail('offset %d: compressed_packets is not exactly one complete '
                         'zlib/gzip stream' % off)
                    continue
            else:
                if zstd is None:
                    zstd = Zstd()
                inner, err = zstd.decompress_one_frame(bytes(blob))
                if inner is None:
                    fail('offset %d: zstd_compressed_packets skipped: %s' % (off, err))
                    continue
            try:
                for ioff, iraw in split_packets(inner, strict_tags=True):
                    if len(iraw) == 0:
                        continue
                    ipkt = TracePacket.FromString(iraw)
                    ik = ipkt.WhichOneof('data')
                    if ik == 'compressed_packets' or ik == 'zstd_compressed_packets':
                        fail('offset %d: a compressed packet inside a compressed packet '
                             '(TP aborts on it)' % off)
                        continue
                    yield ipkt, Loc(n, ioff, off)
                    n += 1
            except ValueError as e:
                fail('offset %d: inside %s: %s' % (off, kind, e))
    except ValueError as e:
        fail('top level: %s' % e)
    except Exception as e:  # protobuf DecodeError
        fail('top level: cannot decode a packet: %s' % e)


# --------------------------------------------------------------------------
# Values


class _Empty:
    """A debug annotation without any value (empty dict_entries / array_values)."""

    def __repr__(self):
        return '<empty>'


EMPTY = _Empty()


def canon(v):
    """Hashable canonical form of an argument value (both sides)."""
    if v is None:
        return ('n',)
    if v is True or v is False:
        return ('b', v)
    t = type(v)
    if t is int:
        return ('i', v)
    if t is decimal.Decimal:
        v = float(v)
        t = float
    if t is float:
        if math.isnan(v):
            return ('s', 'nan')
        if math.isinf(v):
            return ('s', 'inf' if v > 0 else '-inf')
        return ('d', v.hex())
    if t is str:
        return ('s', v)
    if t is dict:
        if not v:
            return ('e',)
        return ('o', tuple((k, canon(x)) for k, x in v.items()))
    if t is list:
        if not v:
            return ('e',)
        return ('a', tuple(canon(x) for x in v))
    if v is EMPTY:
        return ('e',)
    if t is tuple and v and v[0] == 'raw':   # values the checker does not model
        return v
    return ('?', repr(v))


def canon_args(d):
    if not d:
        return ()
    out = []
    for k, x in d.items():
        t = type(x)
        if t is int:
            out.append((k, ('i', x)))
        elif t is str:
            out.append((k, ('s', x)))
        else:
            out.append((k, canon(x)))
    out.sort()
    return tuple(out)


def show_value(v):
    if isinstance(v, decimal.Decimal):
        return str(v)
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, dict):
        return '{' + ', '.join('%s: %s' % (json.dumps(k), show_value(x)) for k, x in v.items()) + '}'
    if isinstance(v, list):
        return '[' + ', '.join(show_value(x) for x in v) + ']'
    if v is None:
        return 'null'
    if v is True or v is False:
        return 'true' if v else 'false'
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    return repr(v)


def show_args(d):
    if not d:
        return '{}'
    return show_value(dict(d))


# --------------------------------------------------------------------------
# Model


class Ev:
    __slots__ = ('idx', 'ts', 'type', 'track', 'name', 'cats', 'args', 'fout', 'fin',
                 'value', 'loc', 'seq', 'used', 'anchor')


class Slice:
    __slots__ = ('begin', 'end', 'name', 'cats', 'args', 'depth', 'ev', 'end_ev', 'parent',
                 'used')


class Domain:
    __slots__ = ('incremental', 'mult', 'last', 'snap_clk', 'snap_boot', 'fresh', 'bad')

    def __init__(self, incremental, mult):
        self.incremental = incremental
        self.mult = mult
        self.last = 0
        self.snap_clk = []
        self.snap_boot = []
        self.fresh = True
        self.bad = None


class SeqState:
    __slots__ = ('valid', 'ever_cleared', 'names', 'cats', 'ann_names', 'ann_strs',
                 'defaults_clock', 'defaults_track', 'defaults_extra', 'clocks',
                 'counter_acc', 'generation')

    def __init__(self):
        self.valid = False
        self.ever_cleared = False
        self.clocks = {}
        self.generation = 0
        self.reset()

    def reset(self):
        self.names = {}
        self.cats = {}
        self.ann_names = {}
        self.ann_strs = {}
        self.defaults_clock = 0
        self.defaults_track = None
        self.defaults_extra = None
        self.counter_acc = {}
        self.generation += 1


class Track:
    __slots__ = ('uuid', 'parent', 'name', 'kind', 'pid', 'tid', 'pname', 'tname', 'rank',
                 'counter', 'merge', 'first_idx', 'loc', 'sig', 'events', 'slices',
                 'instants', 'counters', 'open', 'orphan_ends', 'flows', 'described')

    def __init__(self, uuid):
        self.uuid = uuid
        self.parent = None
        self.name = None
        self.kind = 'undescribed'
        self.pid = self.tid = self.pname = self.tname = self.rank = None
        self.counter = None
        self.merge = None
        self.first_idx = None
        self.loc = None
        self.sig = None
        self.events = []
        self.slices = []
        self.instants = []
        self.counters = []
        self.open = []
        self.orphan_ends = []
        self.flows = []
        self.described = False

    def label(self):
        if self.kind == 'process':
            return 'track %d (process pid %s "%s")' % (self.uuid, self.pid, self.pname)
        if self.kind == 'thread':
            return 'track %d (thread pid %s tid %s "%s")' % (self.uuid, self.pid, self.tid,
                                                            self.tname)
        return 'track %d (%s "%s")' % (self.uuid, self.kind, self.name)


def fmt_ev(ev):
    s = '%s ts=%d' % (TYPE_NAMES.get(ev.type, ev.type), ev.ts)
    if ev.name is not None:
        s += ' name=%s' % json.dumps(ev.name, ensure_ascii=False)
    if ev.cats:
        s += ' cat=%s' % ','.join(ev.cats)
    return s


def fmt_slice(s):
    return 'slice %s cat=%s [%d, %s] args=%s' % (
        json.dumps(s.name, ensure_ascii=False), ','.join(s.cats), s.begin,
        'open' if s.end is None else str(s.end), show_args(s.args))


# --------------------------------------------------------------------------
# The interpreter


def s64(v):
    return v - (1 << 64) if v >= (1 << 63) else v


class Checker:
    def __init__(self, pb, strict=False):
        self.pb = pb
        self.strict = strict
        self.failures = []
        self.notes = []
        self.tracks = {}
        self.seqs = {}
        self.gclocks = {}
        self.events = []
        self.n_packets = 0
        self.n_flows = 0
        self.dangling_starts = 0
        self.dangling_ends = 0
        self.orphan_end_explained = 0
        self.json_matched = 0
        self.undescribed_uses = collections.Counter()

    def fail(self, msg):
        self.failures.append(msg)

    # ---------------- packets

    def interpret(self, packets):
        n = 0
        for idx, (pkt, loc) in enumerate(packets):
            self.packet(idx, pkt, loc)
            n += 1
        self.n_packets = n
        self.check_tracks()
        self.replay()
        self.flows()

    def seq_state(self, seq):
        st = self.seqs.get(seq)
        if st is None:
            st = self.seqs[seq] = SeqState()
        return st

    def packet(self, idx, pkt, loc):
        fields = {}
        for fd, v in pkt.ListFields():
            fields[fd.name] = v
        has_seq = 'trusted_packet_sequence_id' in fields
        seq = fields.get('trusted_packet_sequence_id', 0)
        first_on_seq = seq not in self.seqs
        st = self.seq_state(seq)
        flags = fields.get('sequence_flags', 0)
        cleared = bool(flags & SEQ_CLEARED) or fields.get('incremental_state_cleared', False)
        needs = bool(flags & SEQ_NEEDS)

        if cleared:
            if not has_seq:
                self.fail('%s: SEQ_INCREMENTAL_STATE_CLEARED without '
                          'trusted_packet_sequence_id (TP ignores it)' % loc)
            else:
                st.reset()
                st.valid = True
                st.ever_cleared = True
                for dom in st.clocks.values():
                    if dom.incremental:
                        dom.fresh = False
        elif fields.get('previous_packet_dropped'):
            # Perfetto's own writers set it on a sequence's first packet; later it means
            # data loss, and TP invalidates the incremental state.
            if not first_on_seq:
                self.fail('%s: previous_packet_dropped is set on sequence %d (data loss; TP '
                          'invalidates the incremental state)' % (loc, seq))
            st.valid = False

        tpd = fields.get('trace_packet_defaults')
        if tpd is not None:
            if not has_seq:
                self.fail('%s: trace_packet_defaults without trusted_packet_sequence_id '
                          '(TP ignores them)' % loc)
            else:
                st.defaults_clock = tpd.timestamp_clock_id
                if tpd.HasField('track_event_defaults'):
                    ted = tpd.track_event_defaults
                    st.defaults_track = ted.track_uuid if ted.HasField('track_uuid') else None
                    st.defaults_extra = (list(ted.extra_counter_track_uuids),
                                         list(ted.extra_double_counter_track_uuids))
                else:
                    st.defaults_track = None
                    st.defaults_extra = None

        interned = fields.get('interned_data')
        if interned is not None:
            self.interned(interned, st, seq, has_seq, needs, loc)

        kind = pkt.WhichOneof('data')
        if kind == 'clock_snapshot':
            self.snapshot(fields['clock_snapshot'], st, seq, has_seq, loc)
            return

        if needs:
            if not has_seq:
                self.fail('%s: SEQ_NEEDS_INCREMENTAL_STATE without trusted_packet_sequence_id '
                          '(TP rejects the packet)' % loc)
                return
            if not st.valid:
                self.fail('%s: sequence %d: SEQ_NEEDS_INCREMENTAL_STATE but %s: trace '
                          'processor drops the packet' % (
                              loc, seq, 'no SEQ_INCREMENTAL_STATE_CLEARED before it'
                              if not st.ever_cleared else 'the incremental state is invalid'))
                return

        if kind == 'track_descriptor':
            self.descriptor(idx, fields['track_descriptor'], loc)
            return
        if kind == 'track_event':
            self.track_event(idx, pkt, fields, fields['track_event'], st, seq, has_seq,
                             needs, loc)
            return
        if kind in ('thread_descriptor', 'process_descriptor'):
            self.fail('%s: legacy %s packet (not part of the contract)' % (loc, kind))
            return
        # Other payloads are legal in a Perfetto trace but the sink writes none.
        if kind is not None:
            self.notes.append('%s: %s packet not interpreted' % (loc, kind))

    def interned(self, interned, st, seq, has_seq, needs, loc):
        if not has_seq:
            self.fail('%s: interned_data without trusted_packet_sequence_id (TP ignores it)'
                      % loc)
            return
        if not st.valid:
            self.fail('%s: sequence %d: interned_data while the incremental state is not '
                      'valid (no CLEARED yet): TP ignores it' % (loc, seq))
            return
        if not needs:
            self.fail('%s: sequence %d: interned_data in a packet without '
                      'SEQ_NEEDS_INCREMENTAL_STATE' % (loc, seq))
        for fd, entries in interned.ListFields():
            name = fd.name
            if name == 'event_names':
                table, attr = st.names, 'name'
            elif name == 'event_categories':
                table, attr = st.cats, 'name'
            elif name == 'debug_annotation_names':
                table, attr = st.ann_names, 'name'
            elif name == 'debug_annotation_string_values':
                table, attr = st.ann_strs, 'str'
            else:
                self.notes.append('%s: interned %s not interpreted' % (loc, name))
                continue
            for e in entries:
                iid = e.iid
                val = getattr(e, attr)
                if attr == 'str':
                    val = val.decode('utf-8', errors='replace')
                if iid == 0:
                    self.fail('%s: sequence %d: %s entry with iid 0 (never referable)'
                              % (loc, seq, name))
                    continue
                old = table.get(iid)
                if old is not None and old != val:
                    self.fail('%s: sequence %d: %s iid %d redefined from %s to %s in the same '
                              'incremental state' % (loc, seq, name, iid,
                                                     json.dumps(old), json.dumps(val)))
                table[iid] = val

    def snapshot(self, cs, st, seq, has_seq, loc):
        if cs.primary_trace_clock not in (0, BOOTTIME):
            self.fail('%s: primary_trace_clock %d: the checker expects BOOTTIME as the trace '
                      'clock' % (loc, cs.primary_trace_clock))
        entries = []
        boot = None
        seen = set()
        for c in cs.clocks:
            cid = c.clock_id
            if cid in seen:
                self.fail('%s: clock %d twice in one ClockSnapshot (TP rejects it)' % (loc, cid))
                continue
            seen.add(cid)
            mult = c.unit_multiplier_ns or 1
            ts = s64(c.timestamp) * mult
            if cid == BOOTTIME:
                if mult != 1:
                    self.fail('%s: BOOTTIME (the trace clock) with unit_multiplier_ns %d'
                              % (loc, mult))
                if c.is_incremental:
                    self.fail('%s: BOOTTIME declared incremental (only sequence-scoped '
                              'clocks may be)' % loc)
                boot = ts
            else:
                entries.append((cid, ts, mult, c.is_incremental))
        for cid, ts, mult, inc in entries:
            if 64 <= cid < 128:
                if not has_seq or seq == 0:
                    self.fail('%s: sequence-scoped clock %d in a packet without a sequence id'
                              % (loc, cid))
                    continue
                doms = st.clocks
            else:
                if inc:
                    self.fail('%s: global clock %d declared incremental (TP rejects it)'
                              % (loc, cid))
                    continue
                doms = self.gclocks
            dom = doms.get(cid)
            if dom is None:
                dom = doms[cid] = Domain(inc, mult)
            elif dom.incremental != inc or dom.mult != mult:
                self.fail('%s: clock %d redeclared with other properties (incremental %s -> %s, '
                          'unit %d -> %d): TP rejects the snapshot'
                          % (loc, cid, dom.incremental, inc, dom.mult, mult))
                continue
            dom.last = ts
            dom.fresh = True
            if boot is None:
                dom.bad = 'its ClockSnapshot has no BOOTTIME (the checker converts only ' \
                          'directly to BOOTTIME)'
                continue
            if dom.snap_clk and ts < dom.snap_clk[-1]:
                self.fail('%s: clock %d goes backwards between snapshots (%d < %d): TP stops '
                          'converting from it' % (loc, cid, ts, dom.snap_clk[-1]))
                dom.bad = 'non-monotonic snapshots'
            dom.snap_clk.append(ts)
            dom.snap_boot.append(boot)

    def resolve_time(self, pkt_fields, st, seq, needs, loc):
        """Returns (boottime ns, uses_incremental) or (None, ...) after a failure."""
        raw = s64(pkt_fields['timestamp'])
        cid = pkt_fields.get('timestamp_clock_id', 0) or st.defaults_clock
        if cid == 0 or cid == BOOTTIME:
            return raw, False
        if 64 <= cid < 128:
            dom = st.clocks.get(cid)
            if dom is None:
                self.fail('%s: sequence %d: timestamp on sequence clock %d, which no '
                          'ClockSnapshot of the sequence defined before' % (loc, seq, cid))
                return None, False
        else:
            dom = self.gclocks.get(cid)
            if dom is None:
                self.fail('%s: timestamp on clock %d, which no ClockSnapshot defined before'
                          % (loc, cid))
                return None, False
        if dom.incremental:
            if not needs:
                self.fail('%s: sequence %d: timestamp on incremental clock %d without '
                          'SEQ_NEEDS_INCREMENTAL_STATE' % (loc, seq, cid))
            if not dom.fresh:
                self.fail('%s: sequence %d: incremental clock %d used after '
                          'SEQ_INCREMENTAL_STATE_CLEARED without a new ClockSnapshot'
                          % (loc, seq, cid))
                dom.fresh = True   # report once per clear
            dom.last += raw * dom.mult
            ns = dom.last
        else:
            ns = raw * dom.mult
        if dom.bad:
            self.fail('%s: clock %d cannot be converted: %s' % (loc, cid, dom.bad))
            return None, dom.incremental
        i = bisect.bisect_right(dom.snap_clk, ns) - 1
        if i < 0:
            i = 0
        return dom.snap_boot[i] + (ns - dom.snap_clk[i]), dom.incremental

    # ---------------- descriptors

    def descriptor(self, idx, td, loc):
        fields = {fd.name: v for fd, v in td.ListFields()}
        if 'uuid' not in fields and idx is not None:
            pass
        uuid = td.uuid
        parent = td.parent_uuid if 'parent_uuid' in fields and td.parent_uuid else None
        name = fields.get('name', fields.get('static_name', fields.get('atrace_name')))
        kinds = [k for k in ('process', 'thread', 'counter') if k in fields]
        pid = tid = pname = tname = counter = None
        if uuid == 0:
            kind = 'root'
            if parent is not None:
                self.fail('%s: the default track (uuid 0) has a parent_uuid (TP ignores the '
                          'descriptor)' % loc)
        elif 'thread' in fields:
            kind = 'thread'
            th = td.thread
            if not th.HasField('pid') or not th.HasField('tid'):
                self.fail('%s: thread track %d without pid or tid (TP ignores it)'
                          % (loc, uuid))
            pid, tid = th.pid, th.tid
            tname = th.thread_name if th.HasField('thread_name') else None
            if len(kinds) > 1:
                self.fail('%s: track %d has both %s: TP uses it as a thread track'
                          % (loc, uuid, ' and '.join(kinds)))
        elif 'process' in fields:
            kind = 'process'
            pr = td.process
            if not pr.HasField('pid'):
                self.fail('%s: process track %d without pid (TP ignores it)' % (loc, uuid))
            pid = pr.pid
            pname = pr.process_name if pr.HasField('process_name') else None
            if len(kinds) > 1:
                self.fail('%s: track %d has both %s: TP uses it as a process track'
                          % (loc, uuid, ' and '.join(kinds)))
        elif 'counter' in fields:
            kind = 'counter'
            c = td.counter
            counter = (c.unit, c.unit_name, c.unit_multiplier, c.is_incremental, c.type)
            if c.type != 0:
                self.fail('%s: counter track %d has a builtin counter type %d' %
                          (loc, uuid, c.type))
        else:
            kind = 'custom'
        rank = td.sibling_order_rank if 'sibling_order_rank' in fields else None
        merge = fields.get('sibling_merge_behavior')
        sig = (parent, kind, pid, tid, pname, tname, name, rank, counter, merge)
        t = self.tracks.get(uuid)
        if t is None:
            t = self.tracks[uuid] = Track(uuid)
        if t.described:
            if t.sig != sig:
                self.fail('%s: track %d described again with other contents (first at %s): '
                          '%r -> %r' % (loc, uuid, t.loc, t.sig, sig))
            return
        t.described = True
        t.sig = sig
        t.parent, t.kind, t.pid, t.tid, t.pname, t.tname = parent, kind, pid, tid, pname, tname
        t.name, t.rank, t.counter, t.merge = name, rank, counter, merge
        t.first_idx = idx
        t.loc = loc

    # ---------------- track events

    def annotation(self, a, st, seq, needs, loc, uses, top):
        """Returns (name, value). uses: list to which a flag is appended when an iid is
        used."""
        fields = {}
        for fd, v in a.ListFields():
            fields[fd.name] = v
        name = None
        if 'name_iid' in fields:
            uses.append(1)
            iid = fields['name_iid']
            name = st.ann_names.get(iid)
            if name is None:
                self.fail('%s: sequence %d: debug annotation name_iid %d is not defined in '
                          'the current incremental state' % (loc, seq, iid))
                name = '<undefined iid %d>' % iid
        elif 'name' in fields:
            name = fields['name']
        elif top is not None:
            self.fail('%s: %s without a name (TP rejects the event\'s args)' % (loc, top))
        if 'dict_entries' in fields:
            d = {}
            for e in fields['dict_entries']:
                k, v = self.annotation(e, st, seq, needs, loc, uses, 'dict entry')
                d[k] = v
            return name, d
        if 'array_values' in fields:
            return name, [self.annotation(e, st, seq, needs, loc, uses, None)[1]
                          for e in fields['array_values']]
        for key in ('bool_value', 'uint_value', 'int_value', 'double_value', 'string_value'):
            if key in fields:
                return name, fields[key]
        if 'string_value_iid' in fields:
            uses.append(1)
            iid = fields['string_value_iid']
            s = st.ann_strs.get(iid)
            if s is None:
                self.fail('%s: sequence %d: string_value_iid %d is not defined in the current '
                          'incremental state' % (loc, seq, iid))
                s = '<undefined iid %d>' % iid
            return name, s
        if 'legacy_json_value' in fields:
            txt = fields['legacy_json_value']
            if txt == 'null':
                return name, None
            try:
                return name, json.loads(txt, parse_float=decimal.Decimal)
            except ValueError:
                self.fail('%s: legacy_json_value is not JSON: %r' % (loc, txt))
                return name, ('raw', 'json', txt)
        if 'pointer_value' in fields:
            return name, ('raw', 'pointer', fields['pointer_value'])
        if 'nested_value' in fields:
            return name, self.nested(fields['nested_value'])
        if 'proto_value' in fields:
            self.fail('%s: proto_value debug annotation (not part of the contract)' % loc)
            return name, ('raw', 'proto', bytes(fields['proto_value']))
        return name, EMPTY

    def nested(self, nv):
        t = nv.nested_type
        if t == 1:
            return {k: self.nested(v) for k, v in zip(nv.dict_keys, nv.dict_values)}
        if t == 2:
            return [self.nested(v) for v in nv.array_values]
        for key in ('int_value', 'double_value', 'bool_value', 'string_value'):
            if nv.HasField(key):
                return getattr(nv, key)
        return EMPTY

    def decode_event(self, te, st, seq, needs, loc):
        """The parts of a TrackEvent that depend only on its bytes and the sequence's
        incremental state: (type, own track or None, name, cats, args, flow ids out, in,
        raw counter value or None, uses iids, field names)."""
        f = {fd.name: v for fd, v in te.ListFields()}
        legacy = LEGACY_FIELDS.intersection(f)
        if legacy:
            self.fail('%s: TrackEvent uses the legacy field(s) %s'
                      % (loc, ', '.join(sorted(legacy))))
        uses = []
        typ = f.get('type', 0)
        name = None
        if 'name_iid' in f:
            uses.append(1)
            name = st.names.get(f['name_iid'])
            if name is None:
                self.fail('%s: sequence %d: name_iid %d is not defined in the current '
                          'incremental state' % (loc, seq, f['name_iid']))
                name = '<undefined iid %d>' % f['name_iid']
        elif 'name' in f:
            name = f['name']
        cats = []
        if 'category_iids' in f:
            uses.append(1)
            for iid in f['category_iids']:
                c = st.cats.get(iid)
                if c is None:
                    self.fail('%s: sequence %d: category iid %d is not defined in the current '
                              'incremental state (TP shows "unknown(%d)")' % (loc, seq, iid, iid))
                    c = 'unknown(%d)' % iid
                cats.append(c)
        if 'categories' in f:
            cats.extend(f['categories'])
        args = None
        if 'debug_annotations' in f:
            args = {}
            for a in f['debug_annotations']:
                k, v = self.annotation(a, st, seq, needs, loc, uses, 'debug annotation')
                args[k] = v
        fout = f.get('flow_ids')
        if fout is None:
            fout = f.get('flow_ids_old')
        fin = f.get('terminating_flow_ids')
        if fin is None:
            fin = f.get('terminating_flow_ids_old')
        if 'counter_value' in f:
            raw = f['counter_value']
        elif 'double_counter_value' in f:
            raw = f['double_counter_value']
        else:
            raw = None
        return (typ, f.get('track_uuid'), name, tuple(cats), args,
                tuple(fout) if fout else (), tuple(fin) if fin else (), raw, bool(uses),
                frozenset(f))

    def track_event(self, idx, pkt, pfields, te, st, seq, has_seq, needs, loc):
        if not has_seq:
            self.fail('%s: TrackEvent without trusted_packet_sequence_id (TP drops it)' % loc)
            return
        if 'timestamp' not in pfields:
            self.fail('%s: TrackEvent without a packet timestamp (TP drops it)' % loc)
            return
        ts, inc = self.resolve_time(pfields, st, seq, needs, loc)
        if ts is None:
            return
        if ts < 0:
            self.fail('%s: TrackEvent at BOOTTIME %d < 0 (TP drops it)' % (loc, ts))
            return
        # (Caching decodes by the event's bytes was measured slower: serializing costs more
        # than decoding saves.)
        d = self.decode_event(te, st, seq, needs, loc)
        typ, own_track, name, cats, args, fout, fin, raw, uses, names = d
        ev = Ev()
        ev.idx = idx
        ev.ts = ts
        ev.type = typ
        ev.loc = loc
        ev.seq = seq
        ev.value = None
        ev.anchor = ts
        ev.name = name
        ev.cats = cats
        ev.args = args
        ev.fout = fout
        ev.fin = fin
        if own_track is not None:
            track = own_track
        elif st.defaults_track is not None:
            track = st.defaults_track
        else:
            track = None
        if not track:
            self.fail('%s: %s without a track (no track_uuid, no TrackEventDefaults.track_uuid, '
                      'or uuid 0)' % (loc, TYPE_NAMES.get(typ, typ)))
            return
        ev.track = track
        if uses and not needs:
            self.fail('%s: sequence %d: uses interned iids without SEQ_NEEDS_INCREMENTAL_STATE'
                      % (loc, seq))
        if typ == T_COUNTER:
            if raw is None:
                self.fail('%s: COUNTER without counter_value or double_counter_value (TP drops '
                          'it)' % loc)
                return
            v = self.counter_value(track, raw, st, loc)
            if v is None:
                return
            ev.value = v
            if ev.fout or ev.fin:
                self.fail('%s: flow ids on a COUNTER event (TP ignores them)' % loc)
                ev.fout = ev.fin = ()
        elif typ not in (T_BEGIN, T_END, T_INSTANT):
            self.fail('%s: TrackEvent type %s is not part of the contract'
                      % (loc, TYPE_NAMES.get(typ, typ)))
            return
        elif raw is not None:
            self.fail('%s: counter value on a %s event (ignored)' % (loc, TYPE_NAMES[typ]))
        if 'extra_counter_values' in names or 'extra_double_counter_values' in names:
            self.extra_counters(ev, {fd.name: v for fd, v in te.ListFields()}, st, loc)
        t = self.tracks.get(track)
        if t is None:
            t = self.tracks[track] = Track(track)
        t.events.append(ev)
        self.events.append(ev)

    def counter_value(self, track, raw, st, loc):
        t = self.tracks.get(track)
        if t is None or not t.described:
            self.fail('%s: counter value on track %d, which is not described earlier in the '
                      'file (TP tokenizes counters against known tracks and drops it)'
                      % (loc, track))
            return None
        if t.kind != 'counter':
            self.fail('%s: counter value on %s, which is not a counter track (TP drops it)'
                      % (loc, t.label()))
            return None
        unit, unit_name, mult, incremental, _ = t.counter
        v = raw
        if mult and mult > 0:
            v = v * mult
        if incremental:
            v = st.counter_acc.get(track, 0) + v
            st.counter_acc[track] = v
        return v

    def extra_counters(self, ev, f, st, loc):
        for vals_key, uuids_key, didx in (('extra_counter_values', 'extra_counter_track_uuids', 0),
                                          ('extra_double_counter_values',
                                           'extra_double_counter_track_uuids', 1)):
            vals = f.get(vals_key)
            if not vals:
                continue
            uuids = f.get(uuids_key)
            if not uuids and st.defaults_extra:
                uuids = st.defaults_extra[didx]
            if not uuids or len(uuids) < len(vals):
                self.fail('%s: %s without enough track uuids (TP drops the event)'
                          % (loc, vals_key))
                continue
            for u, raw in zip(uuids, vals):
                v = self.counter_value(u, raw, st, loc)
                if v is None:
                    continue
                e = Ev()
                e.idx, e.ts, e.type, e.track, e.name, e.cats = ev.idx, ev.ts, T_COUNTER, u, None, ()
                e.args, e.fout, e.fin, e.value, e.loc, e.seq = None, (), (), v, ev.loc, ev.seq
                e.anchor = ev.ts
                t = self.tracks.get(u)
                t.events.append(e)
                self.events.append(e)

    # ---------------- whole-trace checks

    def check_tracks(self):
        threads = {}
        procs = {}
        for u, t in self.tracks.items():
            if not t.described:
                if t.events:
                    self.fail('track %d is used by %d events (first %s) but no TrackDescriptor '
                              'describes it' % (u, len(t.events), t.events[0].loc))
                continue
            if t.kind == 'thread':
                key = (t.pid, t.tid)
                if key in threads:
                    self.fail('thread tracks %d and %d share pid %s tid %s'
                              % (threads[key], u, t.pid, t.tid))
                else:
                    threads[key] = u
            if t.kind == 'process':
                if t.pid in procs:
                    self.fail('process tracks %d and %d share pid %s' % (procs[t.pid], u, t.pid))
                else:
                    procs[t.pid] = u
            if t.parent is not None:
                p = self.tracks.get(t.parent)
                if p is None or not p.described:
                    self.fail('%s: parent_uuid %d has no descriptor' % (t.label(), t.parent))
                else:
                    seen = {u}
                    q = p
                    while q is not None and q.parent is not None:
                        if q.uuid in seen:
                            self.fail('%s: parent_uuid chain has a cycle' % t.label())
                            break
                        seen.add(q.uuid)
                        q = self.tracks.get(q.parent)
                    if p.kind == 'counter':
                        self.fail('%s: parent is a counter track' % t.label())
        self.procs = procs
        self.threads = threads

    def replay(self):
        self.n_slices = self.n_instants = self.n_counters = self.n_open = 0
        for t in self.tracks.values():
            evs = t.events
            if not evs:
                continue
            evs.sort(key=lambda e: e.ts)   # stable: ties stay in file order
            if t.described and t.kind != 'counter':
                for e in evs:
                    if e.type == T_COUNTER:
                        pass   # already reported in counter_value
            stack = []
            counter_track = t.kind == 'counter'
            for e in evs:
                typ = e.type
                if typ == T_COUNTER:
                    t.counters.append(e)
                    continue
                if counter_track:
                    self.fail('%s: %s on counter %s' % (e.loc, fmt_ev(e), t.label()))
                if typ == T_BEGIN:
                    if len(stack) >= MAX_DEPTH:
                        self.fail('%s: %s on %s: depth %d exceeds TP\'s limit %d (TP drops the '
                                  'slice)' % (e.loc, fmt_ev(e), t.label(), len(stack), MAX_DEPTH))
                    s = Slice()
                    s.begin = e.ts
                    s.end = None
                    s.name = e.name
                    s.cats = e.cats
                    s.args = e.args or {}    # copied only when an END merges into it
                    s.depth = len(stack)
                    s.ev = e
                    s.end_ev = None
                    s.parent = stack[-1] if stack else None
                    s.used = False
                    stack.append(s)
                    t.slices.append(s)
                elif typ == T_END:
                    if not stack:
                        t.orphan_ends.append(e)
                        e.anchor = None     # TP binds its flows to nothing
                        continue
                    s = stack.pop()
                    e.anchor = s.begin
                    if (e.name is not None and s.name is not None and e.name != s.name) or \
                            (e.cats and e.cats != s.cats):
                        self.fail('%s: SLICE_END names %s cat %s but the innermost open slice on '
                                  '%s is %s (TP would close another slice)'
                                  % (e.loc, json.dumps(e.name), ','.join(e.cats), t.label(),
                                     fmt_slice(s)))
                    s.end = e.ts
                    s.end_ev = e
                    if e.args:
                        s.args = dict(s.args)
                        s.args.update(e.args)
                elif typ == T_INSTANT:
                    t.instants.append(e)
            t.open = stack
            self.n_slices += len(t.slices)
            self.n_instants += len(t.instants)
            self.n_counters += len(t.counters)
            self.n_open += len(stack)
            if stack and self.strict:
                for s in stack:
                    self.fail('%s: %s still open at the end of the trace (--strict)'
                              % (t.label(), fmt_slice(s)))

    def flows(self):
        evs = [e for e in self.events if (e.fout or e.fin) and e.type != T_COUNTER]
        evs.sort(key=lambda e: (e.ts, e.idx))
        active = set()
        for e in evs:
            if e.anchor is None:
                self.notes.append('%s: flow ids on a SLICE_END that ends nothing (TP ignores '
                                  'them)' % e.loc)
                continue
            t = self.tracks[e.track]
            for fid in e.fout:
                t.flows.append(('s', e.ts, fid, e.anchor))
                if fid not in active:
                    active.add(fid)
                    self.n_flows += 1
            for fid in e.fin:
                t.flows.append(('f', e.ts, fid, e.anchor))
                if fid in active:
                    active.discard(fid)
                else:
                    self.dangling_ends += 1
        self.dangling_starts = len(active)

    def check_orphan_ends(self, explained):
        """Reports SLICE_ENDs that ended nothing, except those the JSON explains."""
        for t in self.tracks.values():
            for e in t.orphan_ends:
                if id(e) in explained:
                    continue
                self.fail('%s: SLICE_END at %d on %s ends nothing (no slice open on the track)'
                          % (e.loc, e.ts, t.label()))

    # ---------------- dump

    def dump(self, out):
        def order(t):
            return (t.uuid,)
        children = collections.defaultdict(list)
        for t in self.tracks.values():
            children[t.parent].append(t)
        printed = set()

        def show(t, indent):
            if t.uuid in printed:
                return
            printed.add(t.uuid)
            extra = []
            if t.rank is not None:
                extra.append('rank %d' % t.rank)
            if t.counter is not None:
                extra.append('counter unit=%d unit_name=%r mult=%d incremental=%s'
                             % t.counter[:4])
            if t.merge is not None:
                extra.append('merge %d' % t.merge)
            out.write('%s%s%s\n' % ('  ' * indent, t.label(),
                                    (' [' + ', '.join(extra) + ']') if extra else ''))
            pad = '  ' * (indent + 1) + '| '
            items = []
            for s in t.slices:
                items.append((s.begin, 0, '%s%sslice %s cat=%s [%d, %s] dur=%s args=%s' % (
                    pad, '  ' * s.depth, json.dumps(s.name, ensure_ascii=False), ','.join(s.cats),
                    s.begin, 'open' if s.end is None else s.end,
                    '-' if s.end is None else s.end - s.begin, show_args(s.args))))
            for e in t.instants:
                items.append((e.ts, 1, '%sinstant %s cat=%s ts=%d args=%s' % (
                    pad, json.dumps(e.name, ensure_ascii=False), ','.join(e.cats), e.ts,
                    show_args(e.args))))
            for e in t.counters:
                items.append((e.ts, 2, '%scounter ts=%d value=%r' % (pad, e.ts, e.value)))
            for kind, ts, fid, anchor in t.flows:
                items.append((ts, 3, '%sflow %s ts=%d id=%d%s' % (
                    pad, 'out' if kind == 's' else 'in', ts, fid,
                    '' if anchor == ts else ' (on the end of the slice begun at %d)' % anchor)))
            for e in t.orphan_ends:
                items.append((e.ts, 4, '%sSLICE_END ts=%d ending nothing' % (pad, e.ts)))
            items.sort(key=lambda x: (x[0], x[1]))
            for it in items:
                out.write(it[2] + '\n')
            for c in sorted(children.get(t.uuid, []), key=order):
                show(c, indent + 1)

        roots = [t for t in self.tracks.values()
                 if t.parent is None or t.parent not in self.tracks]
        for t in sorted(roots, key=order):
            show(t, 0)
        for t in sorted(self.tracks.values(), key=order):
            show(t, 0)


# --------------------------------------------------------------------------
# JSON comparison


class JsonEv:
    __slots__ = ('ph', 'name', 'cat', 'ts', 'end', 'pid', 'tid', 'args', 'id', 'n')


def parse_id(v):
    if isinstance(v, int) and not isinstance(v, bool):
        return v
    if isinstance(v, str):
        try:
            return int(v, 0)
        except ValueError:
            return v
    return v


class Comparator:
    def __init__(self, ck, doc, path):
        self.ck = ck
        self.doc = doc
        self.path = path
        self.fail = ck.fail

    def to_ns(self, v, what, n):
        if isinstance(v, bool) or v is None:
            self.fail('JSON event #%d: %s is %r' % (n, what, v))
            return 0
        if isinstance(v, int):
            ns = v * 1000
        elif isinstance(v, decimal.Decimal):
            x = v * 1000
            ns = int(x)
            if x != ns:
                self.fail('JSON event #%d: %s %s has more than three decimals' % (n, what, v))
        elif isinstance(v, str):
            try:
                return self.to_ns(decimal.Decimal(v), what, n)
            except decimal.InvalidOperation:
                self.fail('JSON event #%d: %s %r is not a number' % (n, what, v))
                return 0
        else:
            self.fail('JSON event #%d: %s %r is not a number' % (n, what, v))
            return 0
        return ns

    def run(self):
        try:
            self.ingest()
        except _Fallback:
            self.doc.whole()
            self.ck.notes.append('%s: not in the documented container, read as a whole'
                                 % self.path)
            self.ingest()
        self.match()

    def ingest(self):
        base = self.doc.other.get('timestampBase_ns', 0) if isinstance(self.doc.other, dict) else 0
        if not isinstance(base, int) or isinstance(base, bool):
            self.fail('%s: otherData.timestampBase_ns is %r, not an integer' % (self.path, base))
            base = 0
        self.base = base
        pnames = self.pnames = {}
        psort = self.psort = {}
        tnames = self.tnames = {}
        tsort = self.tsort = {}
        evs = self.evs = []
        ignored = self.n_ignored = collections.Counter()
        for n, e in enumerate(self.doc.events()):
            if not isinstance(e, dict):
                self.fail('JSON event #%d is not an object' % n)
                continue
            ph = e.get('ph')
            pid = e.get('pid')
            tid = e.get('tid')
            if ph == 'M':
                nm = e.get('name')
                a = e.get('args') or {}
                if nm == 'process_name':
                    pnames[pid] = a.get('name')
                elif nm == 'process_sort_index':
                    psort[pid] = a.get('sort_index')
                elif nm == 'thread_name':
                    tnames[(pid, tid)] = a.get('name')
                elif nm == 'thread_sort_index':
                    tsort[(pid, tid)] = a.get('sort_index')
                else:
                    ignored['M ' + str(nm)] += 1
                continue
            if ph not in ('X', 'B', 'i', 'I', 'b', 'e', 'C', 's', 'f'):
                self.fail('JSON event #%d: phase %r is not part of the contract' % (n, ph))
                continue
            j = JsonEv()
            j.n = n
            j.ph = 'i' if ph == 'I' else ph
            j.name = e.get('name')
            j.cat = e.get('cat')
            j.pid = pid
            j.tid = tid
            j.ts = self.to_ns(e.get('ts'), 'ts', n) + base
            if ph == 'X':
                j.end = j.ts + self.to_ns(e.get('dur', 0), 'dur', n)
            else:
                j.end = None
            j.args = e.get('args')
            if j.args is not None and not isinstance(j.args, dict):
                self.fail('JSON event #%d: args is not an object' % n)
                j.args = None
            j.id = parse_id(e.get('id')) if 'id' in e else None
            evs.append(j)
        self.n_json = len(evs)

    def match(self):
        ck = self.ck
        pnames, psort, tnames, tsort, evs = (self.pnames, self.psort, self.tnames, self.tsort,
                                             self.evs)
        # ---- processes
        proc_track = {}
        for pid, name in pnames.items():
            u = ck.procs.get(pid)
            if u is None:
                self.fail('JSON process pid %s "%s": no process track with that pid'
                          % (pid, name))
                continue
            t = ck.tracks[u]
            proc_track[pid] = t
            if t.pname != name:
                self.fail('%s: process_name %s, JSON has %s' % (
                    t.label(), json.dumps(t.pname), json.dumps(name)))
            if t.rank != pid:
                self.fail('%s: sibling_order_rank %s, expected the pid %s' % (
                    t.label(), t.rank, pid))
            if pid in psort and psort[pid] != pid:
                ck.notes.append('JSON process %s has process_sort_index %s' % (pid, psort[pid]))
        for t in ck.tracks.values():
            if t.kind == 'process' and t.pid not in pnames:
                self.fail('%s has no process in the JSON' % t.label())

        # ---- rows
        row_tracks = {}
        taken = {}
        task_groups = collections.defaultdict(list)
        children = collections.defaultdict(list)
        named = collections.defaultdict(list)   # (parent uuid, name) -> custom tracks
        for t in ck.tracks.values():
            if t.parent is not None:
                children[t.parent].append(t)
                if t.kind == 'custom':
                    named[(t.parent, t.name)].append(t)
        threads = ck.threads
        for (pid, tid), name in sorted(tnames.items(), key=lambda x: (str(x[0][0]), str(x[0][1]))):
            rank = tsort.get((pid, tid))
            pt = proc_track.get(pid)
            if not isinstance(tid, int) or tid < TASK_TID_MIN:
                cands = []
                u = threads.get((pid, tid))
                if u is not None:
                    th = ck.tracks[u]
                    if th.tname != name:
                        self.fail('%s: thread_name %s, JSON row pid %s tid %s has %s' % (
                            th.label(), json.dumps(th.tname), pid, tid, json.dumps(name)))
                    if th.rank != rank:
                        self.fail('%s: sibling_order_rank %s, JSON thread_sort_index %s' % (
                            th.label(), th.rank, rank))
                    cands = [th]
                elif pt is not None:
                    cands = [t for t in named.get((pt.uuid, name), []) if t.rank == rank]
                    if not cands:
                        near = named.get((pt.uuid, name), [])
                        self.fail('JSON row pid %s tid %s "%s" (sort index %s): no thread track '
                                  '(pid, tid) and no custom track of that name and rank under %s%s'
                                  % (pid, tid, name, rank, pt.label(),
                                     (' (same name: %s)' % ', '.join(
                                         '%d rank %s' % (x.uuid, x.rank) for x in near))
                                     if near else ''))
                    elif len(cands) > 1:
                        self.fail('JSON row pid %s tid %s "%s": %d tracks match (%s)' % (
                            pid, tid, name, len(cands), ', '.join(str(c.uuid) for c in cands)))
                else:
                    self.fail('JSON row pid %s tid %s "%s": its process has no track'
                              % (pid, tid, name))
                # The stream's copies of task slices are on lanes named "tasks" under its
                # track (docs/perfetto.md): a task slice may begin inside a region of the
                # worker and end after it, which one track's nested slices cannot hold.
                # Its whole ranges that do not nest with the others are on lanes
                # named "overlapping ranges" under its track.
                for c in list(cands):
                    cands += named.get((c.uuid, 'tasks'), [])
                    cands += named.get((c.uuid, 'overlapping ranges'), [])
                row_tracks[(pid, tid)] = cands
            else:
                task_groups[(pid, name)].append((pid, tid))
        for (pid, name), rows in task_groups.items():
            pt = proc_track.get(pid)
            cands = []
            if pt is not None:
                cands = list(named.get((pt.uuid, name), []))
            if not cands:
                self.fail('JSON task row pid %s "%s": no custom track of that name under the '
                          'process track' % (pid, name))
            elif len(cands) != len(rows):
                self.fail('JSON task rows pid %s "%s": %d rows, %d tracks' % (
                    pid, name, len(rows), len(cands)))
            for r in rows:
                row_tracks[r] = cands
        for r, ts in row_tracks.items():
            for t in ts:
                if t.uuid in taken and taken[t.uuid] != r:
                    if ck.tracks[t.uuid].kind != 'custom' or not \
                            (isinstance(r[1], int) and r[1] >= TASK_TID_MIN):
                        self.fail('%s is the track of JSON rows %s and %s' % (
                            t.label(), taken[t.uuid], r))
                taken[t.uuid] = r
        self.row_tracks = row_tracks
        self.taken = taken
        self.proc_track = proc_track
        self.named = named

        # ---- per-track indices (lists reversed so that pop() takes the earliest)
        self.exact_idx = {}
        self.begin_idx = {}
        self.inst_idx = {}
        self.async_cache = {}
        for t in ck.tracks.values():
            if t.slices:
                exact = collections.defaultdict(list)
                for s in reversed(t.slices):
                    exact[(s.begin, s.end, s.name, s.cats, canon_args(s.args))].append(s)
                self.exact_idx[t.uuid] = exact
            if t.instants:
                t_inst = collections.defaultdict(list)
                for e in reversed(t.instants):
                    e.used = False
                    t_inst[(e.ts, e.name, e.cats, canon_args(e.args))].append(e)
                self.inst_idx[t.uuid] = t_inst
            for e in t.counters:
                e.used = False

        # ---- match
        unmatched = []
        async_open = collections.defaultdict(list)
        orphan_e = []
        b_left = []
        json_c = []
        json_flows = []
        for j in evs:
            ph = j.ph
            if ph == 'b':
                async_open[(j.cat, j.id)].append(j)
                continue
            if ph == 'e':
                st = async_open.get((j.cat, j.id))
                if st:
                    b = st.pop()
                    self.match_async(b, j, unmatched)
                else:
                    orphan_e.append(j)
                continue
            row = (j.pid, j.tid)
            tracks = row_tracks.get(row)
            if tracks is None:
                self.fail('JSON event #%d (%s "%s") is on row pid %s tid %s, which has no '
                          'thread_name' % (j.n, ph, j.name, j.pid, j.tid))
                continue
            if not tracks:
                unmatched.append((j, 'its row has no track'))
                continue
            if ph == 'X':
                key = (max(j.ts, 0), max(j.end, 0), j.name, (j.cat,), canon_args(j.args))
                if not self.take_exact(tracks, key):
                    unmatched.append((j, None))
            elif ph == 'B':
                b_left.append(j)
            elif ph == 'i':
                key = (max(j.ts, 0), j.name, (j.cat,), canon_args(j.args))
                if not self.take_instant(tracks, key):
                    unmatched.append((j, None))
            elif ph == 'C':
                json_c.append(j)
            else:
                json_flows.append(j)
        for st in async_open.values():
            b_left.extend(st)
        # B (pushes never popped) and b without e: any end
        for j in b_left:
            if j.ph == 'B':
                tracks = row_tracks.get((j.pid, j.tid)) or []
            else:
                tracks = self.async_tracks(j.pid, j.cat)
            key = (max(j.ts, 0), j.name, (j.cat,), canon_args(j.args))
            if not self.take_any_end(tracks, key):
                unmatched.append((j, 'any end accepted'))
        self.counters(json_c, unmatched)
        self.flow_events(json_flows, unmatched)
        explained = self.orphans(orphan_e, unmatched)
        ck.check_orphan_ends(explained)

        unmatched.sort(key=lambda x: x[0].n)
        for k, (j, why) in enumerate(unmatched):
            self.report_unmatched(j, why, hints=k < 2 * MAX_SHOWN)
        self.extras()

    # -- helpers

    def take_exact(self, tracks, key):
        for t in tracks:
            d = self.exact_idx.get(t.uuid)
            lst = d.get(key) if d else None
            while lst:
                s = lst.pop()
                if not s.used:
                    s.used = True
                    self.ck.json_matched += 1
                    return True
        return False

    def take_instant(self, tracks, key):
        for t in tracks:
            d = self.inst_idx.get(t.uuid)
            lst = d.get(key) if d else None
            if lst:
                lst.pop().used = True
                self.ck.json_matched += 1
                return True
        return False

    def take_any_end(self, tracks, key):
        """A slice with that begin, name, categories and args, whatever its end (a push
        never popped, a start never ended); the earliest in file order first."""
        for t in tracks:
            d = self.begin_idx.get(t.uuid)
            if d is None:
                d = self.begin_idx[t.uuid] = collections.defaultdict(list)
                for s in reversed(t.slices):
                    d[(s.begin, s.name, s.cats, canon_args(s.args))].append(s)
            lst = d.get(key)
            while lst:
                s = lst.pop()
                if not s.used:
                    s.used = True
                    self.ck.json_matched += 1
                    return True
        return False

    def async_tracks(self, pid, cat):
        key = (pid, cat)
        c = self.async_cache.get(key)
        if c is None:
            pt = self.proc_track.get(pid)
            c = []
            if pt is not None:
                c = [t for t in self.named.get((pt.uuid, cat), []) if t.uuid not in self.taken]
            self.async_cache[key] = c
        return c

    def match_async(self, b, e, unmatched):
        args = dict(b.args) if b.args else {}
        if e.args:
            args.update(e.args)
        key = (max(b.ts, 0), max(e.ts, 0), b.name, (b.cat,), canon_args(args))
        tracks = self.async_tracks(b.pid, b.cat)
        if self.take_exact(tracks, key):
            self.ck.json_matched += 1   # the pair is two JSON events
        else:
            j = JsonEv()
            j.ph, j.name, j.cat, j.ts, j.end, j.pid, j.tid, j.args, j.id, j.n = (
                'b/e', b.name, b.cat, b.ts, e.ts, b.pid, b.tid, args, b.id, b.n)
            unmatched.append((j, 'async pair ending at JSON event #%d' % e.n))

    def counters(self, json_c, unmatched):
        ck = self.ck
        idx = {}
        for t in ck.tracks.values():
            if t.kind == 'counter' and t.parent is not None:
                d = collections.defaultdict(list)
                for e in reversed(t.counters):
                    d[(e.ts, canon(e.value))].append(e)
                idx.setdefault((t.parent, t.name), []).append(d)
        for j in json_c:
            tracks = self.row_tracks.get((j.pid, j.tid)) or []
            args = j.args or {}
            if not args:
                self.fail('JSON event #%d: counter "%s" without values' % (j.n, j.name))
                continue
            for k, v in args.items():
                cname = j.name if len(args) == 1 else '%s %s' % (j.name, k)
                if isinstance(v, str) and v in ('nan', 'inf', '-inf'):
                    v = float(v)
                key = (max(j.ts, 0), canon(v))
                found = False
                for t in tracks:
                    for d in idx.get((t.uuid, cname), []):
                        lst = d.get(key)
                        if lst:
                            lst.pop().used = True
                            found = True
                            break
                    if found:
                        break
                if found:
                    ck.json_matched += 1
                else:
                    cj = JsonEv()
                    cj.ph, cj.name, cj.cat, cj.ts, cj.end, cj.pid, cj.tid, cj.id, cj.n = (
                        'C', cname, None, j.ts, None, j.pid, j.tid, j.id, j.n)
                    cj.args = {k: v}
                    unmatched.append((cj, 'counter track "%s" under the row\'s track' % cname))

    def flow_events(self, json_flows, unmatched):
        """A JSON s / f at ts matches a flow id of the row's track carried by an event at
        ts, or by the SLICE_END of a slice that begins at ts (the JSON writes flow events
        at the event's begin; the trace may end a flow at a whole range's end)."""
        ck = self.ck
        idx = {}
        self.flow_eps = []
        self.flows_on_lanes = 0
        for t in ck.tracks.values():
            if not t.flows:
                continue
            d = collections.defaultdict(list)
            for kind, ts, fid, anchor in reversed(t.flows):
                ep = [kind, ts, fid, anchor, False, t]
                self.flow_eps.append(ep)
                d[(kind, ts, fid)].append(ep)
                if anchor != ts:
                    d[(kind, anchor, fid)].append(ep)
            idx[t.uuid] = d
        def take(tracks, key):
            for t in tracks:
                d = idx.get(t.uuid)
                lst = d.get(key) if d else None
                while lst:
                    ep = lst.pop()
                    if not ep[4]:
                        ep[4] = True
                        return True
            return False

        for j in json_flows:
            key = (j.ph, max(j.ts, 0), j.id)
            found = take(self.row_tracks.get((j.pid, j.tid)) or [], key)
            if not found:
                # A start/end range (b/e) carries its flow ids on its lane, a track named
                # after the category under the process; the JSON writes the flow event on
                # the stream's row, with the event's category.
                found = take(self.async_tracks(j.pid, j.cat), key)
                if found:
                    self.flows_on_lanes += 1
            if found:
                ck.json_matched += 1
            else:
                unmatched.append((j, 'an event at that time on the row\'s track, or the end of '
                                  'a slice begun then, with the id in %s'
                                  % ('flow_ids' if j.ph == 's' else 'terminating_flow_ids')))

    def orphans(self, orphan_e, unmatched):
        ck = self.ck
        by_ts = collections.defaultdict(list)
        for t in ck.tracks.values():
            for e in t.orphan_ends:
                by_ts[e.ts].append((t, e))
        explained = set()
        for j in orphan_e:
            lst = by_ts.get(max(j.ts, 0), [])
            pick = None
            for i, (t, e) in enumerate(lst):
                if t.name == j.cat:
                    pick = i
                    break
            if pick is None and lst:
                pick = 0
            if pick is None:
                # The END may have closed a slice in Perfetto that the JSON could not pair.
                unmatched.append((j, 'an "e" without "b": a SLICE_END ending nothing at that '
                                  'time'))
                continue
            t, e = lst.pop(pick)
            explained.add(id(e))
            ck.orphan_end_explained += 1
            ck.json_matched += 1
        return explained

    def report_unmatched(self, j, why, hints=True):
        where = 'pid %s tid %s' % (j.pid, j.tid)
        desc = 'JSON %s #%d %s cat=%s ts=%d' % (j.ph, j.n, json.dumps(j.name, ensure_ascii=False),
                                                 j.cat, j.ts)
        if j.end is not None:
            desc += ' end=%d' % j.end
        if j.id is not None:
            desc += ' id=%s' % j.id
        if j.args:
            desc += ' args=%s' % show_args(j.args)
        msg = '%s on %s: no match in the trace' % (desc, where)
        if why:
            msg += ' (%s)' % why
        if not hints:
            self.fail(msg)
            return
        tracks = self.row_tracks.get((j.pid, j.tid)) or []
        if j.ph in ('b/e', 'b'):
            tracks = self.async_tracks(j.pid, j.cat)
        hints = []
        for t in tracks:
            for s in t.slices:
                if s.begin == max(j.ts, 0) or (s.name == j.name and j.end is not None and
                                               s.end == max(j.end, 0)):
                    hints.append('%s on %s%s' % (fmt_slice(s), t.label(),
                                                 '' if not s.used else ' (taken)'))
                    if len(hints) >= 2:
                        break
            for e in t.instants:
                if e.ts == max(j.ts, 0) and len(hints) < 3:
                    hints.append('instant %s args=%s on %s' % (
                        json.dumps(e.name, ensure_ascii=False), show_args(e.args), t.label()))
        if hints:
            msg += '; nearby: ' + '; '.join(hints[:3])
        self.fail(msg)

    def extras(self):
        ck = self.ck
        for t in ck.tracks.values():
            for s in t.slices:
                if not s.used:
                    self.fail('%s on %s has no JSON counterpart' % (fmt_slice(s), t.label()))
            for e in t.instants:
                if not e.used:
                    self.fail('instant %s cat=%s ts=%d args=%s on %s has no JSON counterpart' % (
                        json.dumps(e.name, ensure_ascii=False), ','.join(e.cats), e.ts,
                        show_args(e.args), t.label()))
            for e in t.counters:
                if not e.used:
                    self.fail('counter value %r at %d on %s has no JSON counterpart' % (
                        e.value, e.ts, t.label()))
        left = [ep for ep in self.flow_eps if not ep[4]]
        left.sort(key=lambda ep: (ep[1], ep[2]))
        for kind, ts, fid, anchor, _, t in left:
            self.fail('flow %s id %d at %d on %s has no JSON "%s" event' % (
                'start' if kind == 's' else 'end', fid, ts, t.label(), kind))


# --------------------------------------------------------------------------
# Driver


class _Fallback(Exception):
    pass


class JsonDoc:
    """The JSON output. With the documented container ('{"traceEvents":[' ... '],'
    ... '"otherData":{...}}') the events are scanned one at a time (little memory);
    anything else is parsed as a whole."""

    HEAD = '{"traceEvents":['

    def __init__(self, path, data=None):
        self.path = path
        if data is None:
            try:
                with open(path, 'rb') as f:
                    data = f.read()
            except OSError as e:
                raise UsageError('cannot read %s: %s' % (path, e))
        try:
            self.text = data.decode('utf-8')
        except UnicodeDecodeError as e:
            raise UsageError('%s is not UTF-8: %s' % (path, e))
        del data
        self.doc = None
        self.span = None
        self.decoder = json.JSONDecoder(parse_float=decimal.Decimal)
        text = self.text
        if text.startswith(self.HEAD):
            k = text.rfind(']')
            tail = text[k + 1:].strip() if k > 0 else ''
            try:
                if tail.startswith(','):
                    tail_obj = json.loads('{' + tail[1:], parse_float=decimal.Decimal)
                elif tail == '}':
                    tail_obj = {}
                else:
                    tail_obj = None
            except ValueError:
                tail_obj = None
            if isinstance(tail_obj, dict):
                self.span = (len(self.HEAD), k)
                self.other = tail_obj.get('otherData') or {}
                return
        self.whole()

    def whole(self):
        self.span = None
        try:
            self.doc = json.loads(self.text, parse_float=decimal.Decimal)
        except ValueError as e:
            raise UsageError('%s is not JSON: %s' % (self.path, e))
        doc = self.doc
        self.other = (doc.get('otherData') or {}) if isinstance(doc, dict) else {}

    def events(self):
        if self.span is None:
            doc = self.doc
            ev = doc if isinstance(doc, list) else (doc.get('traceEvents')
                                                    if isinstance(doc, dict) else None)
            if not isinstance(ev, list):
                raise UsageError('%s: no traceEvents array' % self.path)
            for e in ev:
                yield e
            return
        text = self.text
        pos, end = self.span
        scan = self.decoder.scan_once
        ws = ' \t\r\n'
        first = True
        while True:
            while pos < end and text[pos] in ws:
                pos += 1
            if pos >= end:
                return
            if not first:
                if text[pos] != ',':
                    raise _Fallback()
                pos += 1
                while pos < end and text[pos] in ws:
                    pos += 1
            first = False
            try:
                obj, pos = scan(text, pos)
            except (StopIteration, ValueError):
                raise _Fallback()
            if pos > end:
                raise _Fallback()
            yield obj


def load_json(path):
    return JsonDoc(path)


def load_trace(path, pb, fail):
    try:
        with open(path, 'rb') as f:
            data = f.read()
    except OSError as e:
        raise UsageError('cannot read %s: %s' % (path, e))
    return iter_packets(data, pb, fail)


def run_check(pb, packets, doc, json_path, strict, pre_failures=()):
    ck = Checker(pb, strict)
    ck.failures.extend(pre_failures)
    ck.interpret(packets)
    comp = None
    if doc is not None:
        comp = Comparator(ck, doc, json_path)
        comp.run()
    else:
        ck.check_orphan_ends(set())
    ck.comparator = comp
    return ck


def summary(ck):
    n_tracks = sum(1 for t in ck.tracks.values() if t.described)
    return '%d packets, %d tracks, %d slices, %d instants, %d counter values, %d flows' % (
        ck.n_packets, n_tracks, ck.n_slices, ck.n_instants, ck.n_counters, ck.n_flows)


def report(ck, out=sys.stdout):
    for msg in ck.failures[:MAX_SHOWN]:
        out.write('perfetto_check: FAIL: %s\n' % msg)
    if len(ck.failures) > MAX_SHOWN:
        out.write('perfetto_check: ... and %d more failures\n' % (len(ck.failures) - MAX_SHOWN))
    info = []
    if ck.n_open:
        info.append('%d slices open at the end' % ck.n_open)
    if ck.dangling_starts or ck.dangling_ends:
        info.append('%d flows never terminated, %d terminating ids without an active flow'
                    % (ck.dangling_starts, ck.dangling_ends))
    if ck.orphan_end_explained:
        info.append('%d SLICE_ENDs ending nothing, matching JSON "e" events without "b"'
                    % ck.orphan_end_explained)
    if ck.comparator is not None:
        if getattr(ck.comparator, 'flows_on_lanes', 0):
            info.append('%d JSON flow events matched on the lane of a start/end range'
                        % ck.comparator.flows_on_lanes)
        info.append('%d JSON events matched (of %d)' % (ck.json_matched, ck.comparator.n_json))
    if info:
        out.write('perfetto_check: note: %s\n' % '; '.join(info))
    if ck.failures:
        out.write('perfetto_check: %s: FAILED (%d failures)\n' % (summary(ck), len(ck.failures)))
    else:
        out.write('perfetto_check: %s: OK\n' % summary(ck))


# --------------------------------------------------------------------------
# Self-test


def build_sample(pb):
    """A small trace following the sink's contract, and its JSON."""
    TP = pb.TracePacket
    TE = pb.TrackEvent
    pkts = []

    def packet(**kw):
        p = TP()
        for k, v in kw.items():
            setattr(p, k, v)
        pkts.append(p)
        return p

    def desc(uuid, **kw):
        p = packet(trusted_packet_sequence_id=1)
        d = p.track_descriptor
        d.uuid = uuid
        for k, v in kw.items():
            if k == 'process':
                d.process.pid, d.process.process_name = v
            elif k == 'thread':
                d.thread.pid, d.thread.tid, d.thread.thread_name = v
            elif k == 'counter':
                d.counter.SetInParent()
            else:
                setattr(d, k, v)
        return d

    root = desc(0)
    root.process_ordering = pb.TrackDescriptor.PROCESS_ORDERING_EXPLICIT
    root.thread_ordering = pb.TrackDescriptor.THREAD_ORDERING_EXPLICIT
    desc(100, process=(2, 'proc'), sibling_order_rank=2)
    desc(101, name='worker', parent_uuid=100, sibling_order_rank=0)
    desc(102, thread=(2, 3, 'thr'), sibling_order_rank=1)
    desc(103, name='lanecat', parent_uuid=100)
    desc(104, name='mem', parent_uuid=101, counter=True)
    desc(105, name='task k1', parent_uuid=100)
    desc(106, name='load util', parent_uuid=102, counter=True)
    desc(107, name='load n', parent_uuid=102, counter=True)

    # sequence 2: incremental clock 64, interning
    p = packet(trusted_packet_sequence_id=2, sequence_flags=3)
    c = p.clock_snapshot.clocks.add()
    c.clock_id, c.timestamp, c.is_incremental = 64, 1000, True
    c = p.clock_snapshot.clocks.add()
    c.clock_id, c.timestamp = 6, 1000
    p.trace_packet_defaults.timestamp_clock_id = 64
    p.trace_packet_defaults.track_event_defaults.track_uuid = 101
    last = [1000]

    def ev2(ts, typ, name=None, track=None, anns=(), flows=(), cval=None):
        q = packet(trusted_packet_sequence_id=2, sequence_flags=2, timestamp=ts - last[0])
        last[0] = ts
        q.track_event.type = typ
        if track is not None:
            q.track_event.track_uuid = track
        if name is not None:
            q.track_event.name_iid = name
            q.track_event.category_iids.append(1 if track != 103 else 2)
        for a in anns:
            q.track_event.debug_annotations.append(a)
        q.track_event.flow_ids.extend(flows)
        if cval is not None:
            q.track_event.counter_value = cval
        return q

    def ann(name_iid, **kw):
        a = pb.DebugAnnotation()
        a.name_iid = name_iid
        for k, v in kw.items():
            setattr(a, k, v)
        return a

    o = ann(4)
    arr = o.dict_entries.add()
    arr.name = 'a'
    for v in (1, 2):
        arr.array_values.add().int_value = v
    q = ev2(1100, TE.TYPE_SLICE_BEGIN, 1,
            anns=[ann(1, int_value=1), ann(2, string_value='x'), ann(3, double_value=0.5), o,
                  ann(5, legacy_json_value='null')], flows=[7])
    idat = q.interned_data
    for i, n in ((1, 'outer'), (2, 'inner'), (3, 'mark'), (4, 'open'), (5, 'lr'), (6, 'job')):
        e = idat.event_names.add()
        e.iid, e.name = i, n
    for i, n in ((1, 'c'), (2, 'lanecat')):
        e = idat.event_categories.add()
        e.iid, e.name = i, n
    for i, n in ((1, 'n'), (2, 's'), (3, 'd'), (4, 'o'), (5, 'z'), (6, 'k'), (7, 'r'),
                 (8, 'id')):
        e = idat.debug_annotation_names.add()
        e.iid, e.name = i, n
    ev2(1150, TE.TYPE_SLICE_BEGIN, 2)
    ev2(1200, TE.TYPE_SLICE_END)
    ev2(1250, TE.TYPE_INSTANT, 3, anns=[ann(6, string_value='v')])
    ev2(1260, TE.TYPE_COUNTER, track=104, cval=5)
    ev2(1300, TE.TYPE_SLICE_END, anns=[ann(7, uint_value=2)])
    ev2(1400, TE.TYPE_SLICE_BEGIN, 4)
    ev2(1450, TE.TYPE_SLICE_BEGIN, 6, track=105)
    ev2(1480, TE.TYPE_SLICE_END, track=105)
    ev2(1500, TE.TYPE_SLICE_BEGIN, 5, track=103, anns=[ann(8, int_value=9)])
    ev2(1600, TE.TYPE_SLICE_END, track=103)

    # sequence 3: BOOTTIME timestamps, names as strings
    p = packet(trusted_packet_sequence_id=3, sequence_flags=3)
    p.trace_packet_defaults.track_event_defaults.track_uuid = 102
    q = packet(trusted_packet_sequence_id=3, sequence_flags=2, timestamp=1700)
    q.track_event.type = TE.TYPE_INSTANT
    q.track_event.name = 'recv'
    q.track_event.categories.append('c')
    q.track_event.terminating_flow_ids.append(7)
    for track, kw in ((106, {'double_counter_value': 0.25}), (107, {'counter_value': 3})):
        q = packet(trusted_packet_sequence_id=3, sequence_flags=2, timestamp=1710)
        q.track_event.type = TE.TYPE_COUNTER
        q.track_event.track_uuid = track
        for k, v in kw.items():
            setattr(q.track_event, k, v)

    text = '''{"traceEvents":[
{"name":"process_name","ph":"M","pid":2,"tid":0,"args":{"name":"proc"}},
{"name":"process_sort_index","ph":"M","pid":2,"tid":0,"args":{"sort_index":2}},
{"name":"thread_name","ph":"M","pid":2,"tid":1,"args":{"name":"worker"}},
{"name":"thread_sort_index","ph":"M","pid":2,"tid":1,"args":{"sort_index":0}},
{"name":"thread_name","ph":"M","pid":2,"tid":3,"args":{"name":"thr"}},
{"name":"thread_sort_index","ph":"M","pid":2,"tid":3,"args":{"sort_index":1}},
{"name":"thread_name","ph":"M","pid":2,"tid":4294967296,"args":{"name":"task k1"}},
{"name":"thread_sort_index","ph":"M","pid":2,"tid":4294967296,"args":{"sort_index":4294967296}},
{"name":"flow","cat":"c","ph":"s","ts":0.100,"pid":2,"tid":1,"id":"0x7"},
{"name":"inner","cat":"c","ph":"X","ts":0.150,"dur":0.050,"pid":2,"tid":1},
{"name":"mark","cat":"c","ph":"i","s":"t","ts":0.250,"pid":2,"tid":1,"args":{"k":"v"}},
{"name":"mem","ph":"C","ts":0.260,"pid":2,"tid":1,"id":"worker","args":{"value":5}},
{"name":"outer","cat":"c","ph":"X","ts":0.100,"dur":0.200,"pid":2,"tid":1,"cname":"good","args":{"n":1,"s":"x","d":0.5,"o":{"a":[1,2]},"z":null,"r":2}},
{"name":"job","cat":"c","ph":"X","ts":0.450,"dur":0.030,"pid":2,"tid":4294967296},
{"name":"lr","cat":"lanecat","ph":"b","ts":0.500,"pid":2,"tid":1,"id":"0x9","args":{"id":9}},
{"name":"lr","cat":"lanecat","ph":"e","ts":0.600,"pid":2,"tid":1,"id":"0x9"},
{"name":"open","cat":"c","ph":"B","ts":0.400,"pid":2,"tid":1},
{"name":"recv","cat":"c","ph":"i","s":"t","ts":0.700,"pid":2,"tid":3},
{"name":"flow","cat":"c","ph":"f","bp":"e","ts":0.700,"pid":2,"tid":3,"id":"0x7"},
{"name":"load","ph":"C","ts":0.710,"pid":2,"tid":3,"id":"thr","args":{"util":0.25,"n":3}}
],"displayTimeUnit":"ns","otherData":{"generator":"perfetto_check self-test","timestampBase_ns":1000}}'''
    doc = JsonDoc('<built-in JSON>', text.encode())
    return [(p, Loc(i, 0)) for i, p in enumerate(pkts)], doc


class Mutator:
    """Edits a copy of the decoded packet list, keeping the times of the packets it does
    not mean to change (deltas on an incremental clock are compensated)."""

    def __init__(self, pb, packets, base):
        self.pb = pb
        self.packets = packets
        self.base = base
        self.ts_of = {e.idx: e.ts for e in base.events}
        # per packet: (seq, clock id, incremental) for packets with a timestamp
        self.clock = {}
        defaults = {}
        incr = {}
        for i, (p, _) in enumerate(packets):
            seq = p.trusted_packet_sequence_id
            if p.sequence_flags & SEQ_CLEARED:
                defaults[seq] = 0
            if p.HasField('trace_packet_defaults'):
                defaults[seq] = p.trace_packet_defaults.timestamp_clock_id
            if p.HasField('clock_snapshot'):
                for c in p.clock_snapshot.clocks:
                    incr[(seq, c.clock_id)] = c.is_incremental
                self.clock[i] = ('snapshot', seq)
                continue
            if p.HasField('timestamp'):
                cid = p.timestamp_clock_id or defaults.get(seq, 0)
                self.clock[i] = (seq, cid, bool(incr.get((seq, cid))) and 64 <= cid < 128)

    def copy(self):
        return list(self.packets)

    def edit(self, lst, i):
        p = self.pb.TracePacket()
        p.CopyFrom(lst[i][0])
        lst[i] = (p, lst[i][1])
        return p

    def next_same_clock(self, i):
        info = self.clock.get(i)
        if not info or info[0] == 'snapshot' or not info[2]:
            return None
        seq, cid = info[0], info[1]
        for k in range(i + 1, len(self.packets)):
            x = self.clock.get(k)
            if x is None:
                continue
            if x[0] == 'snapshot' and x[1] == seq:
                return None
            if x[0] == seq and x[1] == cid and x[2]:
                return k
        return None

    def compensate(self, lst, i, delta):
        k = self.next_same_clock(i)
        if k is not None:
            q = self.edit(lst, k)
            q.timestamp = (q.timestamp + delta) % (1 << 64)

    def retime(self, lst, i, new_ts):
        info = self.clock.get(i)
        p = self.edit(lst, i)
        if info and info[0] != 'snapshot' and info[2]:
            self.compensate(lst, i, s64(p.timestamp))
        p.timestamp = new_ts
        p.timestamp_clock_id = BOOTTIME

    def drop(self, lst, i):
        info = self.clock.get(i)
        if info and info[0] != 'snapshot' and info[2]:
            self.compensate(lst, i, s64(lst[i][0].timestamp))
        lst[i] = None

    def events(self, types):
        return [e for e in self.base.events if e.type in types]


def mutations(pb, packets, base):
    m = Mutator(pb, packets, base)
    out = []

    def finish(lst):
        return [x for x in lst if x is not None]

    # 1. drop one event (an instant or counter value, else a whole slice's BEGIN)
    cands = m.events((T_INSTANT, T_COUNTER)) or m.events((T_BEGIN,))
    if cands:
        e = cands[len(cands) // 2]
        lst = m.copy()
        m.drop(lst, e.idx)
        out.append(('drop one event (%s, %s)' % (fmt_ev(e), e.loc), finish(lst)))
    # 2. shift one timestamp by 1 ns
    cands = m.events((T_BEGIN,)) or m.events((T_INSTANT, T_COUNTER))
    if cands:
        e = cands[len(cands) // 2]
        lst = m.copy()
        m.retime(lst, e.idx, e.ts + 1)
        out.append(('shift one timestamp by 1 ns (%s, %s)' % (fmt_ev(e), e.loc), finish(lst)))
    # 3. change one argument value
    for e in base.events:
        p = packets[e.idx][0]
        if not p.HasField('track_event'):
            continue
        done = None
        lst = None
        for k, a in enumerate(p.track_event.debug_annotations):
            kind = a.WhichOneof('value')
            if kind in ('int_value', 'uint_value', 'double_value', 'string_value', 'bool_value'):
                lst = m.copy()
                q = m.edit(lst, e.idx)
                b = q.track_event.debug_annotations[k]
                if kind == 'string_value':
                    b.string_value += '~'
                elif kind == 'bool_value':
                    b.bool_value = not b.bool_value
                elif kind == 'double_value':
                    b.double_value = b.double_value + 1.0 if math.isfinite(b.double_value) else 1.0
                else:
                    setattr(b, kind, getattr(b, kind) + 1)
                done = kind
                break
        if done:
            out.append(('change one argument (%s of %s, %s)' % (done, fmt_ev(e), e.loc), lst))
            break
    # 4. break one slice nesting: the inner slice's end moved past its parent's end, or
    #    (flat tracks) a slice's end moved inside the next sibling slice
    hit = None
    for t in base.tracks.values():
        for x in t.slices:
            if x.parent is not None and x.end_ev is not None and x.parent.end_ev is not None:
                hit = (x, x.parent.end + 1, 'its parent\'s end %d' % x.parent.end)
                break
        if hit:
            break
    if hit is None:
        for t in base.tracks.values():
            top = [x for x in t.slices if x.depth == 0 and x.end_ev is not None]
            for a, b in zip(top, top[1:]):
                if a.end <= b.begin and b.end is not None and b.end > b.begin + 1 and \
                        a.end_ev.seq == b.ev.seq:
                    hit = (a, b.begin + 1, 'the begin of the next slice %s at %d'
                           % (json.dumps(b.name), b.begin))
                    break
            if hit:
                break
    if hit is not None:
        x, new_end, what = hit
        lst = m.copy()
        m.retime(lst, x.end_ev.idx, new_end)
        out.append(('break one nesting (end of %s moved to %d, past %s)'
                    % (fmt_slice(x), new_end, what), finish(lst)))
    # 5. use an undefined iid
    for e in base.events:
        te = packets[e.idx][0].track_event
        if te.HasField('name_iid') or len(te.category_iids):
            lst = m.copy()
            q = m.edit(lst, e.idx)
            if te.HasField('name_iid'):
                q.track_event.name_iid = 987654321
                what = 'name_iid'
            else:
                q.track_event.category_iids[0] = 987654321
                what = 'category_iids'
            out.append(('use an undefined iid (%s of %s, %s)' % (what, fmt_ev(e), e.loc), lst))
            break
    # 6. drop the CLEARED flag of a sequence that has events
    seqs = {e.seq for e in base.events}
    for i, (p, loc) in enumerate(packets):
        if p.trusted_packet_sequence_id in seqs and p.sequence_flags & SEQ_CLEARED:
            lst = m.copy()
            q = m.edit(lst, i)
            q.sequence_flags &= ~SEQ_CLEARED
            out.append(('drop SEQ_INCREMENTAL_STATE_CLEARED (%s, sequence %d)'
                        % (loc, p.trusted_packet_sequence_id), lst))
            break
    return out


def signature(ck):
    """The interpreted model as a multiset, to compare a mutated trace with the original
    when there is no JSON."""
    sig = collections.Counter()
    for t in ck.tracks.values():
        for x in t.slices:
            sig[('slice', t.uuid, x.begin, x.end, x.name, x.cats, canon_args(x.args))] += 1
        for e in t.instants:
            sig[('instant', t.uuid, e.ts, e.name, e.cats, canon_args(e.args))] += 1
        for e in t.counters:
            sig[('counter', t.uuid, e.ts, canon(e.value))] += 1
        for f in t.flows:
            sig[('flow', t.uuid) + f] += 1
    return sig


def self_test(pb, trace_path, json_path, strict):
    pre = []
    if trace_path:
        packets = list(load_trace(trace_path, pb, pre.append))
        doc = load_json(json_path) if json_path else None
        src = trace_path
    else:
        packets, doc = build_sample(pb)
        json_path = '<built-in JSON>'
        src = 'the built-in sample'
    base = run_check(pb, packets, doc, json_path, strict, pre)
    if base.failures:
        print('perfetto_check: self-test: %s does not pass unmutated:' % src)
        report(base)
        return 1
    print('perfetto_check: self-test: %s passes: %s' % (src, summary(base)))
    bad = 0
    if not trace_path:
        # The same packets inside one zlib compressed_packets container read the same.
        inner = pb.Trace()
        for p, _ in packets:
            inner.packet.add().CopyFrom(p)
        outer = pb.Trace()
        outer.packet.add().compressed_packets = zlib.compress(inner.SerializeToString())
        fails = []
        lst = list(iter_packets(outer.SerializeToString(), pb, fails.append))
        ck = run_check(pb, lst, doc, json_path, strict, fails)
        if ck.failures or signature(ck) != signature(base):
            print('perfetto_check: self-test: compressed_packets (zlib) does not read as the '
                  'plain packets: %s' % (ck.failures[:3],))
            bad += 1
        else:
            print('perfetto_check: self-test: compressed_packets (zlib) reads as the plain '
                  'packets')
    base_sig = signature(base) if doc is None else None
    muts = mutations(pb, packets, base)
    wanted = 6
    for name, lst in muts:
        ck = run_check(pb, lst, doc, json_path, strict)
        if ck.failures:
            print('perfetto_check: self-test: detected: %s\n    -> %d failures, first: %s'
                  % (name, len(ck.failures), ck.failures[0][:300]))
            continue
        if base_sig is not None:
            sig = signature(ck)
            if sig != base_sig:
                gone = base_sig - sig
                new = sig - base_sig
                print('perfetto_check: self-test: detected: %s\n    -> the model differs from '
                      'the unmutated trace\'s: %d items gone (%s), %d new (%s)'
                      % (name, sum(gone.values()), str(next(iter(gone), ''))[:150],
                         sum(new.values()), str(next(iter(new), ''))[:150]))
                continue
        print('perfetto_check: self-test: NOT DETECTED: %s' % name)
        bad += 1
    if len(muts) < wanted:
        print('perfetto_check: self-test: only %d of %d mutations apply to %s'
              % (len(muts), wanted, src))
        bad += wanted - len(muts)
    print('perfetto_check: self-test: %s' % ('OK' if not bad else 'FAILED'))
    return 0 if not bad else 1


# --------------------------------------------------------------------------


def main(argv):
    # Millions of small containers and no reference cycles worth collecting: the cyclic
    # collector would rescan them over and over.
    gc.disable()
    ap = argparse.ArgumentParser(
        prog='perfetto_check.py',
        description='Interpret a Perfetto .pftrace by Perfetto\'s rules and compare it with '
                    'the JSON output of the same session.')
    ap.add_argument('--proto', required=True, help="Perfetto's perfetto_trace.proto")
    ap.add_argument('trace', nargs='?', help='the .pftrace file')
    ap.add_argument('--json', help='the JSON output (docs/chrome-json.md) of the same session')
    ap.add_argument('--dump', action='store_true', help='print the interpreted model')
    ap.add_argument('--strict', action='store_true', help='slices still open are errors')
    ap.add_argument('--self-test', action='store_true',
                    help='check that mutations of a trace are detected')
    try:
        args = ap.parse_args(argv)
    except SystemExit as e:
        return 2 if e.code else 0
    try:
        pb = load_schema(args.proto)
        if args.self_test:
            if args.json and not args.trace:
                raise UsageError('--self-test --json needs a TRACE')
            return self_test(pb, args.trace, args.json, args.strict)
        if not args.trace:
            raise UsageError('no trace given')
        pre = []
        packets = load_trace(args.trace, pb, pre.append)
        doc = load_json(args.json) if args.json else None
    except UsageError as e:
        sys.stderr.write('perfetto_check: %s\n' % e)
        return 2
    try:
        ck = run_check(pb, packets, doc, args.json, args.strict, pre)
    except UsageError as e:
        sys.stderr.write('perfetto_check: %s\n' % e)
        return 2
    if args.dump:
        ck.dump(sys.stdout)
    report(ck)
    return 1 if ck.failures else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
