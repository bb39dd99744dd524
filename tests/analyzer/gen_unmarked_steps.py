#!/usr/bin/env python3
"""Write a training trace without step markers whose true step boundaries are known, for the inferred steps' tests.

usage: gen_unmarked_steps.py FORMAT VARIANT SEED TRACE TRUTH
  FORMAT   kineto: a PyTorch profiler (Kineto) JSON trace, host work as cpu_op / python_function / user_annotation
           sqlite: a perfscope SQLite trace (Nsight Systems' tables), host work as NVTX push/pop ranges
  VARIANT  python_work: every iteration's Python work (data loading) is recorded as ranges
           empty_gaps:  nothing on the host but CUDA API calls (no range at all), as a trace without NVTX
           mixed:       each iteration at random: recorded Python work or nothing, with or without a sync at its end
           side_copy:   no range, as empty_gaps, and each batch is copied on a copy stream before the first kernel:
                        an iteration's first launch is not on the busiest stream
  TRUTH    JSON: {"period_ops", "iterations", "steps": [{"host_start_ns", "start_ns"}], "mean_period_ns",
           "warmup_end_ns"}

The program (times in whole µs, written as ns in SQLite): one process, the main thread launching the copies,
the forward and the optimizer, the autograd thread launching the backward, all on stream 7:
  warm-up  model loading (8 weight copies, cudaMalloc), an unrecorded pause, a first iteration whose kernel sequence
           differs (cuDNN autotuning probes, kernels 3x slower), a pause, then DataLoader.__iter__ (a 20-40 ms
           range without a launch, where ranges are recorded): none of it is a step;
  N = 16 iterations, each: host gap (below); optimizer.zero_grad (a range, no launch); the batch's H2D copy
           (side_copy: on stream 20, then cudaStreamWaitEvent); forward 10 kernels; loss 1; backward 10 kernels
           (autograd thread); optimizer 3 kernels in Optimizer.step#SGD.step, with a child range after its last
           launch; loss.item(): a D2H copy on stream 7, then at random a cudaStreamSynchronize (the host waits
           for the GPU), and a child range, inside the aten::item range. Period: 25 operations on stream 7 (side_copy: 24).
  host gap between iterations, of varying length: unrecorded work after the last launch (logging, 0-300 µs,
           the iteration's), an unrecorded wait (a sleep, 0-2000 µs), then the next iteration's Python work
           recorded as ranges (the DataLoader's __next__, 300-3000 µs, with nested ops) or nothing at all.
Every duration is jittered; kernels run 20-80 µs, so the GPU lags the host and often still runs the previous
iteration's work when the next one begins.

Ground truth (docs/report.md, "Steps inferred without markers"): iteration k's host start is its first recorded
host activity on the main thread — its first range (the Python work, else zero_grad's) or, with no range, its first
launch on any stream; a sync after the last launch and unrecorded time belong to the iteration before. Its step
window starts, as the tb plugin's rule makes it (event_parser.py _update_steps_duration), at max(host start, end
of the GPU work the previous iteration launched); the first step's at max(host start, end of the warm-up's GPU
work that finished before the first step's first GPU operation). The generator knows which iteration each event
belongs to, so none of this comes from the code under test.
"""
import json
import os
import random
import sqlite3
import sys

PID, MAIN, AUTOGRAD = 100, 100, 101
COMPUTE, COPY_STREAM = 7, 20
N = 16
FWD = ["conv_fwd_a", "bn_fwd", "relu_fwd", "conv_fwd_b", "bn_fwd", "relu_fwd", "pool_fwd", "fc_fwd", "softmax_fwd",
       "loss_fwd"]
BWD = ["loss_bwd", "softmax_bwd", "fc_bwd", "pool_bwd", "relu_bwd", "bn_bwd", "conv_bwd_b", "relu_bwd", "bn_bwd",
       "conv_bwd_a"]
OPT = ["sgd_mul", "sgd_add", "sgd_copy"]


class Trace:
    def __init__(self, rng, ranges):
        self.rng, self.record_ranges = rng, ranges
        self.ranges, self.calls, self.ops = [], [], []   # (tid, kind, name, s, e) / (tid, name, s, e, corr) / dict
        self.corr = 1
        self.stream_free = {COMPUTE: 0, COPY_STREAM: 0}

    def j(self, us, share=0.3):
        return max(1, int(round(us * (1 + share * (2 * self.rng.random() - 1)))))

    def rng_range(self, tid, kind, name, s, e):
        if self.record_ranges:
            self.ranges.append((tid, kind, name, s, e))

    def call(self, tid, name, s, e):
        self.calls.append((tid, name, s, e, 0))

    def launch(self, tid, t, kind, name, dur, stream=COMPUTE, after=0, copy_kind=None):
        """A launch call at host time t (with an op range around it where ranges are recorded) and its GPU op;
        returns the host time after it."""
        api = {"kernel": "cudaLaunchKernel", "memcpy": "cudaMemcpyAsync"}[kind]
        op_s, call_s = t, t + self.j(2)
        call_e = call_s + self.j(4)
        op_e = call_e + self.j(2)
        op_name = {"kernel": "aten::" + name.split("_")[0], "memcpy": "aten::copy_"}[kind]
        self.rng_range(tid, "cpu_op", op_name, op_s, op_e)
        c = self.corr
        self.corr += 1
        self.calls.append((tid, api, call_s, call_e, c))
        g_s = max(call_e + 3, self.stream_free[stream], after)
        g_e = g_s + dur
        self.stream_free[stream] = g_e
        self.ops.append({"kind": kind, "name": name, "stream": stream, "s": g_s, "e": g_e, "corr": c,
                         "copy_kind": copy_kind})
        return op_e + self.j(3)


def iteration(tr, t, warmup, python_work, sync, side_copy):
    """One iteration starting at host time t (its first activity). Returns (host time after it, its ops' range
    in tr.ops, the time of its last launch's end)."""
    j = tr.j
    first_op = len(tr.ops)
    slow = 3 if warmup else 1
    if python_work:   # the DataLoader's __next__: python_function > cpu_op > aten::stack x2
        d = j(1600, 0.8)
        tr.rng_range(MAIN, "python_function", "torch/utils/data/dataloader.py(631): __next__", t, t + d)
        tr.rng_range(MAIN, "cpu_op", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", t + 2, t + d - 2)
        tr.rng_range(MAIN, "cpu_op", "aten::stack", t + d // 3, t + d // 3 + 40)
        tr.rng_range(MAIN, "cpu_op", "aten::stack", t + 2 * d // 3, t + 2 * d // 3 + 40)
        t += d + j(10)
    z = j(20)
    tr.rng_range(MAIN, "user_annotation", "Optimizer.zero_grad#SGD.zero_grad", t, t + z)
    t += z + j(5)
    copy_end = 0
    if side_copy:
        t = tr.launch(MAIN, t, "memcpy", "Memcpy HtoD (Pinned -> Device)", j(150), COPY_STREAM, copy_kind=1)
        copy_end = tr.ops[-1]["e"]
        tr.call(MAIN, "cudaStreamWaitEvent", t, t + j(2))
        t += j(5)
    else:
        t = tr.launch(MAIN, t, "memcpy", "Memcpy HtoD (Pinned -> Device)", j(60), copy_kind=1)
    for i, name in enumerate(FWD):
        t = tr.launch(MAIN, t, "kernel", name, j(50) * slow, after=copy_end)
        if warmup and i == 1:
            for _ in range(5):
                t = tr.launch(MAIN, t, "kernel", "cudnn_autotune_probe", j(200))
    # backward: the main thread waits in backward() while the autograd thread launches
    b0 = t
    ta = t + j(10)
    for name in BWD:
        r0 = ta
        ta = tr.launch(AUTOGRAD, ta + j(3), "kernel", name, j(50) * slow)
        tr.rng_range(AUTOGRAD, "cpu_op", "autograd::engine::evaluate_function: " + name, r0, ta)
        ta += j(4)
    t = ta + j(10)
    tr.rng_range(MAIN, "python_function", "torch/_tensor.py(522): backward", b0, t)
    t += j(5)
    o0 = t
    for name in OPT:
        t = tr.launch(MAIN, t, "kernel", name, j(30) * slow)
    t += j(5)
    tr.rng_range(MAIN, "cpu_op", "aten::detach", t, t + j(8))   # a child after the optimizer's last launch
    t += j(15)
    tr.rng_range(MAIN, "user_annotation", "Optimizer.step#SGD.step", o0, t)
    # loss.item(): the D2H copy, then (sync) the host waits for the GPU inside aten::item
    i0 = t
    t = tr.launch(MAIN, t + 2, "memcpy", "Memcpy DtoH (Device -> Pageable)", j(8), copy_kind=2)
    last_launch_end = tr.calls[-1][3]
    if sync:
        s0 = t
        t = max(t, tr.stream_free[COMPUTE]) + j(3)
        tr.call(MAIN, "cudaStreamSynchronize", s0, t)
        t += j(3)
    e0 = t   # a child after the last launch, inside aten::item: still this iteration's
    t += j(6)
    tr.rng_range(MAIN, "cpu_op", "aten::empty", e0, t)
    t += j(3)
    tr.rng_range(MAIN, "cpu_op", "aten::item", i0, t)
    return t, (first_op, len(tr.ops)), last_launch_end


def generate(variant, seed):
    rng = random.Random(seed * 7919 + {"python_work": 1, "empty_gaps": 2, "mixed": 3, "side_copy": 4}[variant])
    tr = Trace(rng, variant in ("python_work", "mixed"))
    j = tr.j
    # warm-up: model loading, a pause, DataLoader.__iter__, a pause
    t = 1000
    for _ in range(8):
        tr.call(MAIN, "cudaMalloc", t, t + j(30))
        t += j(40)
        r0 = t
        t = tr.launch(MAIN, t, "memcpy", "Memcpy HtoD (Pageable -> Device)", j(100), copy_kind=1)
        tr.rng_range(MAIN, "cpu_op", "aten::to", r0 - 1, t)
        t += j(100)
    t += j(5000)
    # a first iteration (autotuning): its kernel sequence differs, so it is warm-up
    t, _, _ = iteration(tr, t, True, tr.record_ranges, True, variant == "side_copy")
    # then the epoch's DataLoader is set up: a long range without a launch, after an unrecorded pause
    t += j(3000)
    it = j(30000)
    tr.rng_range(MAIN, "python_function", "torch/utils/data/dataloader.py(441): __iter__", t, t + it)
    t += it + j(500)
    warm_end = max(o["e"] for o in tr.ops)   # every warm-up op
    warm_ops = len(tr.ops)
    truth = []
    for k in range(N):
        # the gap: the previous iteration's unrecorded tail, an unrecorded wait, then (maybe) recorded Python work
        if variant in ("mixed", "side_copy"):
            t += rng.choice([0, j(150, 1.0)])
            t += rng.choice([0, j(1000, 1.0)])
            python_work, sync = variant == "mixed" and rng.random() < 0.5, rng.random() < 0.5
        else:
            t += j(1000, 1.0)
            python_work, sync = variant == "python_work", rng.random() < 0.5
        n_ranges, n_calls = len(tr.ranges), len(tr.calls)
        t, (o0, o1), _ = iteration(tr, t, False, python_work, sync, variant == "side_copy")
        # its first host activity on the main thread: a range, or a call that launched an op
        launched = {o["corr"] for o in tr.ops[o0:o1]}
        firsts = [r[3] for r in tr.ranges[n_ranges:] if r[0] == MAIN]
        firsts += [c[2] for c in tr.calls[n_calls:] if c[0] == MAIN and c[4] in launched]
        truth.append({"host_start": min(firsts), "ops": (o0, o1)})
    # windows as tb makes them
    steps = []
    for k, s in enumerate(truth):
        if k == 0:
            first_gpu = min(o["s"] for o in tr.ops[s["ops"][0]:s["ops"][1]])
            prev = s["host_start"]
            for o in tr.ops[:warm_ops]:
                if prev < o["e"] < first_gpu:
                    prev = o["e"]
            start = prev
        else:
            p = truth[k - 1]
            prev_gpu = max(o["e"] for o in tr.ops[p["ops"][0]:p["ops"][1]])
            start = max(s["host_start"], prev_gpu, steps[-1]["start_ns"] // 1000)
        steps.append({"host_start_ns": s["host_start"] * 1000, "start_ns": start * 1000})
    mean = (steps[-1]["start_ns"] - steps[0]["start_ns"]) / (N - 1)
    meta = {"period_ops": 24 if variant == "side_copy" else 25, "iterations": N, "steps": steps, "mean_period_ns": mean, "warmup_end_ns": warm_end * 1000}
    return tr, meta


def write_kineto(tr, path):
    ev = [{"name": "process_name", "ph": "M", "ts": 0, "pid": PID, "tid": 0, "args": {"name": "python3"}},
          {"name": "thread_name", "ph": "M", "ts": 0, "pid": PID, "tid": AUTOGRAD, "args": {"name": "autograd"}}]
    for tid, kind, name, s, e in tr.ranges:
        ev.append({"ph": "X", "cat": kind, "name": name, "pid": PID, "tid": tid, "ts": s, "dur": e - s, "args": {}})
    for tid, name, s, e, c in tr.calls:
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": name, "pid": PID, "tid": tid, "ts": s, "dur": e - s,
                   "args": {"correlation": c}})
        if c:
            ev.append({"ph": "s", "id": c, "pid": PID, "tid": tid, "ts": s, "cat": "ac2g", "name": "ac2g"})
    for o in tr.ops:
        args = {"device": 0, "context": 1, "stream": o["stream"], "correlation": o["corr"]}
        if o["kind"] == "memcpy":
            args["bytes"] = 1 << 20
            cat = "gpu_memcpy"
        else:
            args.update({"grid": [128, 1, 1], "block": [256, 1, 1]})
            cat = "kernel"
        ev.append({"ph": "X", "cat": cat, "name": o["name"], "pid": 0, "tid": o["stream"], "ts": o["s"],
                   "dur": o["e"] - o["s"], "args": args})
        ev.append({"ph": "f", "id": o["corr"], "pid": 0, "tid": o["stream"], "ts": o["s"], "cat": "ac2g",
                   "name": "ac2g", "bp": "e"})
    with open(path, "w") as f:
        json.dump({"schemaVersion": 1, "traceEvents": ev, "displayTimeUnit": "ms"}, f)


def write_sqlite(tr, path):
    if os.path.exists(path):
        os.unlink(path)
    db = sqlite3.connect(path)
    strings = {}

    def sid(s):
        return strings.setdefault(s, len(strings) + 1)

    gpid = (1 << 48) | (PID << 24)
    db.executescript("""
        CREATE TABLE StringIds(id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
          contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
          demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL);
        CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY(start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
          contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
          bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, srcKind INTEGER, dstKind INTEGER);
        CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INTEGER NOT NULL, end INTEGER NOT NULL,
          eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL,
          returnValue INTEGER NOT NULL);
        CREATE TABLE NVTX_EVENTS(start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER,
          category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER,
          domainId INTEGER);
        CREATE TABLE PROCESSES(globalPid INTEGER, pid INTEGER, name TEXT);
        CREATE TABLE ThreadNames(nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);
        CREATE TABLE PERFSCOPE_META(key TEXT NOT NULL, value TEXT);
    """)
    db.executemany("INSERT INTO NVTX_EVENTS VALUES (?, ?, 59, NULL, NULL, NULL, ?, ?, NULL, NULL, 0)",
                   [(s * 1000, e * 1000, name, gpid | tid) for tid, _, name, s, e in tr.ranges])
    db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 0, ?, ?, ?, 0)",
                   [(s * 1000, e * 1000, gpid | tid, c, sid(name + "_v3020")) for tid, name, s, e, c in tr.calls])
    for o in tr.ops:
        if o["kind"] == "memcpy":
            db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (?, ?, 0, 1, ?, ?, ?, ?, ?, 0, 2)",
                       (o["s"] * 1000, o["e"] * 1000, o["stream"], o["corr"], gpid, 1 << 20, o["copy_kind"]))
        else:
            n = sid(o["name"])
            db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, 0, 1, ?, ?, ?, ?, ?)",
                       (o["s"] * 1000, o["e"] * 1000, o["stream"], o["corr"], gpid, n, n))
    db.execute("INSERT INTO PROCESSES VALUES (?, ?, 'python3')", (gpid, PID))
    db.execute("INSERT INTO ThreadNames VALUES (?, 0, ?)", (sid("autograd"), gpid | AUTOGRAD))
    db.executemany("INSERT INTO StringIds VALUES (?, ?)", [(i, s) for s, i in strings.items()])
    db.executemany("INSERT INTO PERFSCOPE_META VALUES (?, ?)", [("schema_version", "1"), ("recording_complete", "1")])
    db.commit()
    db.close()


def main(fmt, variant, seed, trace_path, truth_path):
    tr, meta = generate(variant, int(seed))
    (write_kineto if fmt == "kineto" else write_sqlite)(tr, trace_path)
    with open(truth_path, "w") as f:
        json.dump(meta, f, indent=1)


if __name__ == "__main__":
    if len(sys.argv) != 6 or sys.argv[1] not in ("kineto", "sqlite") or \
            sys.argv[2] not in ("python_work", "empty_gaps", "mixed", "side_copy"):
        sys.exit(__doc__.split("\n\n")[1])
    main(*sys.argv[1:])
