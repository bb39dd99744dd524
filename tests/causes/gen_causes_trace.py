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
  stream 8, starts at 7000 (stream 8's first op in step 0 only), runs to 9000; nothing [9000, 10000)

With --stream-wait instead, four steps of 10000 µs from b = 1000 + 10000 k, where stream 9 waits on stream 7 through
an event (causes.sh works them out); before them kernel warmup [120, 200) on stream 9 (so no op below is its stream's
or its device's first):
  cudaEventRecord [b+50, b+55)          an event recorded before this step's producer (the last step's: long over)
  cudaLaunchKernel [b+100, b+110)       producer_gemm [b+120, b+4120) on stream 7
  cudaEventRecord [b+200, b+205)        the event consumer_kernel waits on
  cudaStreamWaitEvent [b+300, b+303)    stream 9 waits on it: a cuda_sync "Stream Wait Event" at b+300 (stream 9,
                                        wait_on_stream 7, wait_on_cuda_event_record_corr_id: the record above)
  cudaLaunchKernel [b+400, b+410)       consumer_kernel [b+4150, b+6150) on stream 9
  cudaLaunchKernel [b+4100, b+4110)     decoy_kernel [b+4130, b+4140) on stream 11: of the other streams' ops, the one
                                        that ended last before consumer_kernel started (what the fallback names)
  cudaStreamWaitEvent [b+6160, b+6163)  stream 9 waits on the event of b+50 (a cuda_sync naming that record)
  cudaLaunchKernel [b+6200, b+6210)     late_kernel [b+6400, b+6900) on stream 9
With --pageable-copy instead, four steps of 10000 µs from b = 1000 + 10000 k (causes.sh works them out):
  cudaLaunchKernel [b, b+10)            loss_kernel [b+20, b+6020) on stream 7
  cpu_op aten::item [b+100, b+6200)     inside it cudaMemcpyAsync [b+110, b+6110), its copy Memcpy DtoH (Device ->
                                        Pageable) [b+6030, b+6040) on stream 7, 4 bytes: it returns once the copy ends
  nothing                               [b+6200, b+10000)

--no-sync-events leaves the cuda_sync events out (the cudaStreamWaitEvent calls stay); --hostile adds cuda_sync
"Stream Wait Event"s on stream 9 whose args are of the wrong type, negative, huge or name what the trace lacks."""
import json, sys

out = sys.argv[1]
startup_us = int(float(sys.argv[sys.argv.index("--startup-ms") + 1]) * 1000) if "--startup-ms" in sys.argv else 0
ev, t, corr = [], 1000, 1


def x(cat, name, ts, dur, **args):
    e = {"ph": "X", "cat": cat, "name": name, "pid": 1, "tid": 1, "ts": ts, "dur": dur}
    if args:
        e["args"] = args
    ev.append(e)


if "--stream-wait" in sys.argv:
    def call(name, ts, dur):
        global corr
        x("cuda_runtime", name, ts, dur, correlation=corr)
        corr += 1
        return corr - 1

    def kernel(name, stream, ts, dur, c):
        ev.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": stream, "ts": ts, "dur": dur,
                   "args": {"device": 0, "stream": stream, "correlation": c}})

    def wait(ts, c, args):
        if "--no-sync-events" not in sys.argv:
            a = {"device": 0, "stream": 9, "correlation": c, "cuda_sync_kind": "Stream Wait Event"}
            a.update(args)
            ev.append({"ph": "X", "cat": "cuda_sync", "name": "Stream Wait Event", "pid": 0, "tid": 9, "ts": ts,
                       "dur": 3, "args": a})

    kernel("warmup", 9, 120, 80, call("cudaLaunchKernel", 100, 10))
    for k in range(4):
        b = 1000 + k * 10000
        x("user_annotation", "ProfilerStep#%d" % k, b, 10000)
        old = call("cudaEventRecord", b + 50, 5)
        kernel("producer_gemm", 7, b + 120, 4000, call("cudaLaunchKernel", b + 100, 10))
        rec = call("cudaEventRecord", b + 200, 5)
        wait(b + 300, call("cudaStreamWaitEvent", b + 300, 3),
             {"wait_on_stream": 7, "wait_on_cuda_event_record_corr_id": rec})
        kernel("consumer_kernel", 9, b + 4150, 2000, call("cudaLaunchKernel", b + 400, 10))
        # ends nearest consumer_kernel's start
        kernel("decoy_kernel", 11, b + 4130, 10, call("cudaLaunchKernel", b + 4100, 10))
        wait(b + 6160, call("cudaStreamWaitEvent", b + 6160, 3),
             {"wait_on_stream": 7, "wait_on_cuda_event_record_corr_id": old})
        for at in (b + 301, b + 6170) if "--hostile" in sys.argv else ():   # consumer's and late_kernel's
            for i, (on, rec_id) in enumerate([("abc", "x"), (True, False), ([7], {"a": 1}), (1e30, 1.5),
                                              (-5, -1), (2**64, 2**64), (99999, 99999999), (9, rec),
                                              ("7", str(old)), (None, None), (7, 0)]):
                ev.append({"ph": "X", "cat": "cuda_sync", "name": "Stream Wait Event", "pid": 0, "tid": 9,
                           "ts": at + i * 0.001, "dur": 0, "args": {
                               "device": 0, "stream": 9, "cuda_sync_kind": "Stream Wait Event",
                               "wait_on_stream": on, "wait_on_cuda_event_record_corr_id": rec_id}})
        kernel("late_kernel", 9, b + 6400, 500, call("cudaLaunchKernel", b + 6200, 10))
    json.dump({"traceEvents": ev}, open(out, "w"))
    sys.exit(0)
if "--pageable-copy" in sys.argv:
    # four steps of 10000 µs from b = 1000 + 10000 k: the loss read back with .item() into pageable memory
    for k in range(4):
        b = 1000 + k * 10000
        x("user_annotation", "ProfilerStep#%d" % k, b, 10000)
        x("cuda_runtime", "cudaLaunchKernel", b, 10, correlation=corr)
        ev.append({"ph": "X", "cat": "kernel", "name": "loss_kernel", "pid": 0, "tid": 7, "ts": b + 20, "dur": 6000,
                   "args": {"device": 0, "stream": 7, "correlation": corr}})
        corr += 1
        x("cpu_op", "aten::item", b + 100, 6100)
        x("cuda_runtime", "cudaMemcpyAsync", b + 110, 6000, correlation=corr)
        ev.append({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoH (Device -> Pageable)", "pid": 0, "tid": 7,
                   "ts": b + 6030, "dur": 10, "args": {"device": 0, "stream": 7, "correlation": corr, "bytes": 4}})
        corr += 1
    json.dump({"traceEvents": ev}, open(out, "w"))
    sys.exit(0)
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
