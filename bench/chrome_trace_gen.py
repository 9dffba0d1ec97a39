#!/usr/bin/env python3
"""Writes a PyTorch-profiler-style Chrome trace (Trace Event Format, object
form) of a chosen size to standard output, deterministically per seed.

    chrome_trace_gen.py [--steps N | --mb MB] [--seed S] [--truncate]

Each training step is a python_function span with cpu_op children, a
cuda_runtime launch with an "ac2g" flow to a kernel on a GPU stream (string
tid "stream 7"), a gpu_memcpy, a memory instant ("s":"t") and a user
annotation on the "Spans" pid. Timestamps are absolute microseconds with a
nanosecond fraction, as PyTorch writes them. Used by tests/cli/chrome_in_test.sh
(tests/data/pytorch_trace.json is `--steps 30`) and bench/README.md.
"""
import argparse
import json
import random
import sys

BASE_US = 1700000000123456  # absolute clock: needs exact decimal parsing


def fmt(us_ns):
    """ns integer -> microseconds with three decimals (exact)."""
    return "%d.%03d" % divmod(us_ns, 1000)


def header(out):
    out.write('{\n  "schemaVersion": 1,\n  "deviceProperties": [{"id": 0, "name": "NVIDIA A100", '
              '"totalGlobalMem": 42314694656, "computeMajor": 8, "computeMinor": 0}],\n'
              '  "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 1},\n'
              '  "traceEvents": [\n')
    meta = [
        {"name": "process_name", "ph": "M", "ts": fmt(BASE_US * 1000), "pid": 4242, "tid": 0,
         "args": {"name": "python3"}},
        {"name": "process_labels", "ph": "M", "ts": fmt(BASE_US * 1000), "pid": 4242, "tid": 0,
         "args": {"labels": "CPU"}},
        {"name": "process_sort_index", "ph": "M", "ts": fmt(BASE_US * 1000), "pid": 4242, "tid": 0,
         "args": {"sort_index": 4242}},
        {"name": "process_name", "ph": "M", "ts": fmt(BASE_US * 1000), "pid": 0, "tid": 0,
         "args": {"name": "python3"}},
        {"name": "process_labels", "ph": "M", "ts": fmt(BASE_US * 1000), "pid": 0, "tid": 0,
         "args": {"labels": "GPU 0"}},
        {"name": "process_sort_index", "ph": "M", "ts": fmt(BASE_US * 1000), "pid": 0, "tid": 0,
         "args": {"sort_index": 5000000}},
        {"name": "thread_name", "ph": "M", "ts": fmt(BASE_US * 1000), "pid": 4242, "tid": 4242,
         "args": {"name": "thread 4242 (python3)"}},
        {"name": "thread_sort_index", "ph": "M", "ts": fmt(BASE_US * 1000), "pid": 4242,
         "tid": 4242, "args": {"sort_index": 4242}},
    ]
    for m in meta:
        out.write("  " + json.dumps(m, separators=(",", ":")).replace('"ts":"', '"ts":')
                  .replace('","pid"', ',"pid"') + ",\n")


def step(out, r, i, t):
    """One step starting at t (ns); returns the next start."""
    ev = []
    ext = 100 + i * 10
    corr = 5000 + i * 2
    d_step = 900000 + r.randrange(100000)
    ev.append(("X", {"name": "ProfilerStep#%d" % i, "cat": "user_annotation", "ts": t,
                     "dur": d_step, "pid": 4242, "tid": 4242,
                     "args": {"External id": ext, "Record function id": 0, "Ev Idx": i * 10}}))
    ev.append(("X", {"name": "nn.Module: Linear_0", "cat": "python_function", "ts": t + 1000,
                     "dur": 400000, "pid": 4242, "tid": 4242,
                     "args": {"Python parent id": 1, "Python id": i + 2, "Python thread": 0}}))
    mm = t + 2000
    ev.append(("X", {"name": "aten::linear", "cat": "cpu_op", "ts": mm, "dur": 300000,
                     "pid": 4242, "tid": 4242,
                     "args": {"External id": ext + 1, "Sequence number": i, "Fwd thread id": 0,
                              "Record function id": 0, "Ev Idx": i * 10 + 1,
                              "Input Dims": [[64, 128], [256, 128], [256]],
                              "Input type": ["float", "float", "float"]}}))
    launch = mm + 250000 + r.randrange(1000)
    ev.append(("X", {"name": "cudaLaunchKernel", "cat": "cuda_runtime", "ts": launch,
                     "dur": 4321, "pid": 4242, "tid": 4242,
                     "args": {"External id": ext + 1, "cbid": 211, "correlation": corr}}))
    ev.append(("s", {"ph": "s", "id": corr, "pid": 4242, "tid": 4242, "ts": launch,
                     "cat": "ac2g", "name": "ac2g"}))
    kern = launch + 20000
    ev.append(("X", {"name": "ampere_sgemm_64x64_nn", "cat": "kernel", "ts": kern, "dur": 55555,
                     "pid": 0, "tid": "stream 7",
                     "args": {"queued": 0, "device": 0, "context": 1, "stream": 7,
                              "correlation": corr, "registers per thread": 90,
                              "shared memory": 16384, "blocks per SM": 0.5,
                              "warps per SM": 2.0, "grid": [2, 4, 1], "block": [128, 1, 1],
                              "est. achieved occupancy %": 12}}))
    ev.append(("f", {"ph": "f", "id": corr, "pid": 0, "tid": "stream 7", "ts": kern,
                     "cat": "ac2g", "name": "ac2g", "bp": "e"}))
    ev.append(("X", {"name": "Memcpy HtoD (Pageable -> Device)", "cat": "gpu_memcpy",
                     "ts": kern + 60000, "dur": 7000, "pid": 0, "tid": "stream 7",
                     "args": {"device": 0, "context": 1, "stream": 7, "correlation": corr + 1,
                              "bytes": 65536, "memory bandwidth (GB/s)": 9.362}}))
    ev.append(("i", {"name": "[memory]", "ph": "i", "s": "t", "cat": "cpu_instant_event",
                     "ts": mm + 5000, "pid": 4242, "tid": 4242,
                     "args": {"Total Reserved": 2097152, "Total Allocated": 65536 * (i % 7 + 1),
                              "Bytes": 65536, "Addr": 139700000000000 + i * 65536,
                              "Device Id": 0, "Device Type": 1}}))
    ev.append(("X", {"name": "train step", "cat": "user_annotation", "ts": t + 500,
                     "dur": d_step - 1000, "pid": "Spans", "tid": "PyTorch Profiler",
                     "args": {"External id": ext + 9}}))
    for ph, e in ev:
        e = dict(e)
        if ph == "X":
            e["ph"] = "X"
        line = json.dumps(e, separators=(",", ":"))
        line = line.replace('"ts":%d' % e["ts"], '"ts":' + fmt(BASE_US * 1000 + e["ts"]))
        if "dur" in e:
            line = line.replace('"dur":%d' % e["dur"], '"dur":' + fmt(e["dur"]))
        out.write("  " + line + ",\n")
    return t + d_step + 10000 + r.randrange(5000)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--steps", type=int, default=12)
    p.add_argument("--mb", type=float, default=0, help="approximate size instead of --steps")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--truncate", action="store_true",
                   help="stop after the last event's comma, as a cut Chrome trace")
    a = p.parse_args()
    steps = int(a.mb * 1e6 / 2084) if a.mb else a.steps
    r = random.Random(a.seed)
    out = sys.stdout
    header(out)
    t = 0
    for i in range(steps):
        t = step(out, r, i, t)
    if a.truncate:
        return
    out.write('  {"name":"PyTorch Profiler (0)","ph":"X","cat":"Trace","ts":%s,"dur":%s,'
              '"pid":"Spans","tid":"PyTorch Profiler","args":{"Op count":0}}\n' %
              (fmt(BASE_US * 1000), fmt(t)))
    out.write('  ],\n  "traceName": "trace.json",\n  "displayTimeUnit": "ms",\n'
              '  "baseTimeNanoseconds": 1700000000000000000\n}\n')


if __name__ == "__main__":
    main()
