#!/usr/bin/env python3
"""A PyTorch profiler (Kineto) JSON trace whose steps' causes are known by construction (docs/report.md "Where the
step goes"). Usage: gen_causes_trace.py OUT [--startup-ms N]

Each step, in µs from its start (the expected causes, worked out by hand in tests/causes/causes.sh):
  python train.py(10): preprocess   [0, 200000), inside it PIL/Image.py(5): decode [10000, 160000)
  cudaLaunchKernel                  [200000, 200010)   its kernel [200020, 280020) on device 0 stream 7
  cudaStreamSynchronize             [200030, 280030)
  python train.py(20): log          [280040, 399000)
  nothing                           [399000, 400000)
With --startup-ms N the first step opens with N ms of python dataloader.py(1): _start_workers.

With --waits instead, four steps of 10000 µs whose GPU waits (causes.sh works them out):
  step 0 only: kernel_a launched [100, 110) on stream 7, starts at 3000 (its device's first op), runs to 4000
  steps 1..3: python train.py(30): augment [0, 4000)
  every step: data range enumerate(DataLoader)#_Iter.__next__ [4000, 6000); kernel_b launched [6000, 6010) on
  stream 8, starts at 7000 (stream 8's first op in step 0 only), runs to 9000; nothing [9000, 10000)"""
import json, sys

out = sys.argv[1]
startup_us = int(float(sys.argv[sys.argv.index("--startup-ms") + 1]) * 1000) if "--startup-ms" in sys.argv else 0
ev, t, corr = [], 1000, 1


def x(cat, name, ts, dur, **args):
    e = {"ph": "X", "cat": cat, "name": name, "pid": 1, "tid": 1, "ts": ts, "dur": dur}
    if args:
        e["args"] = args
    ev.append(e)


if "--waits" in sys.argv:
    for k in range(4):
        b = k * 10000
        x("user_annotation", "ProfilerStep#%d" % k, b, 10000)
        if k == 0:
            x("cuda_runtime", "cudaLaunchKernel", b + 100, 10, correlation=corr)
            ev.append({"ph": "X", "cat": "kernel", "name": "kernel_a", "pid": 0, "tid": 7, "ts": b + 3000,
                       "dur": 1000, "args": {"device": 0, "stream": 7, "correlation": corr}})
            corr += 1
        else:
            x("python_function", "train.py(30): augment", b, 4000)
        x("user_annotation", "enumerate(DataLoader)#_Iter.__next__", b + 4000, 2000)
        x("cuda_runtime", "cudaLaunchKernel", b + 6000, 10, correlation=corr)
        ev.append({"ph": "X", "cat": "kernel", "name": "kernel_b", "pid": 0, "tid": 8, "ts": b + 7000, "dur": 2000,
                   "args": {"device": 0, "stream": 8, "correlation": corr}})
        corr += 1
    json.dump({"traceEvents": ev}, open(out, "w"))
    sys.exit(0)
for k in range(5):
    extra = startup_us if k == 0 else 0
    x("user_annotation", "ProfilerStep#%d" % k, t, 400000 + extra)
    if extra:
        x("python_function", "torch/utils/data/dataloader.py(1): _start_workers", t, extra)
    b = t + extra
    x("python_function", "train.py(10): preprocess", b, 200000)
    x("python_function", "PIL/Image.py(5): decode", b + 10000, 150000)
    x("cuda_runtime", "cudaLaunchKernel", b + 200000, 10, correlation=corr)
    ev.append({"ph": "X", "cat": "kernel", "name": "gemm_kernel", "pid": 0, "tid": 7, "ts": b + 200020, "dur": 80000,
               "args": {"device": 0, "stream": 7, "correlation": corr}})
    x("cuda_runtime", "cudaStreamSynchronize", b + 200030, 80000)
    x("python_function", "train.py(20): log", b + 280040, 118960)
    corr += 1
    t = b + 400000
json.dump({"traceEvents": ev}, open(out, "w"))
