#!/usr/bin/env python3
"""Write a PyTorch profiler (Kineto) trace with known shapes and kernel times, for the roofline and MFU tests.

usage: gen_roofline_trace.py OUT.json

Device: "NVIDIA H100 80GB HBM3" (H100 SXM: matrix bf16 989.4, matrix fp32 66.9 (CUDA cores), vector bf16 133.8
TFLOPS, 3350 GB/s; docs/gpu-peaks.md). Two steps, ProfilerStep#1 at [1000, 1420) us and ProfilerStep#2 at
[2000, 2420) us, every op and its kernel inside its step, kernels back to back 5 us apart (kernel-bound: 86 %). Ground truth (TraceLens' models, 1 TFLOPS = 1e3 FLOPs
per ns, 1 GB/s = 1 byte per ns):

  aten::mm bf16 [4096,4096] x [4096,4096], once per step, kernel 200 us each
      F = 2*4096^3 = 137,438,953,472; B = 3*4096^2*2 = 100,663,296 -> compute 138,911.414 ns (bound), memory
      30,048.745 ns; 2 calls: 400 us at 69.456 % of roofline, recoverable 122,177.171 ns
  aten::addmm fp32 bias [1024], [512,2048] x [2048,1024], step 2, kernel 64.2 us
      F = 2*512*1024*2048 + 512*1024 = 2,148,007,936; B = (512*2048 + 2048*1024 + 512*1024 + 1024)*4 = 14,684,160
      -> compute 32,107.742 ns at 66.9 TFLOPS: 50.012 %, recoverable 32,092.258 ns
  aten::add bf16 [4096,4096] + [4096,4096], step 1, kernel 60 us
      F = 16,777,216; B = 100,663,296 -> memory 30,048.745 ns (bound): 50.081 %, recoverable 29,951.255 ns
  aten::_softmax bf16 [4096,4096], once per step, kernel 100 us each: no model
  MFU = (2 * 138,911.414 + 32,107.742) ns / 840 us = 36.8965 %   (step 1: 33.0741 %, step 2: 40.7188 %)
  unmodeled GPU time 200 us = 23.81 % of the step time; TFLOPS/s of mm = 2F / 400 us = 687.195
"""
import json
import sys

BF16, F32 = "c10::BFloat16", "float"
OPS = [  # (step start us, name, dims, types, kernel name, kernel us)
    (1000, "aten::mm", [[4096, 4096], [4096, 4096]], [BF16, BF16],
     "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_cublas", 200.0),
    (1000, "aten::add", [[4096, 4096], [4096, 4096], []], [BF16, BF16, "Scalar"],
     "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>>", 60.0),
    (1000, "aten::_softmax", [[4096, 4096], [], []], [BF16, "Scalar", "Scalar"],
     "void at::native::(anonymous namespace)::cunn_SoftMaxForward<8, c10::BFloat16>", 100.0),
    (2000, "aten::mm", [[4096, 4096], [4096, 4096]], [BF16, BF16],
     "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_cublas", 200.0),
    (2000, "aten::addmm", [[1024], [512, 2048], [2048, 1024], [], []], [F32, F32, F32, "Scalar", "Scalar"],
     "ampere_sgemm_128x64_tn", 64.2),
    (2000, "aten::_softmax", [[4096, 4096], [], []], [BF16, "Scalar", "Scalar"],
     "void at::native::(anonymous namespace)::cunn_SoftMaxForward<8, c10::BFloat16>", 100.0),
]


def strides(dims):
    out = []
    for d in dims:
        s, acc = [], 1
        for n in reversed(d):
            s.insert(0, acc)
            acc *= n
        out.append(s)
    return out


def main(path):
    pid, tid = 4242, 4242
    ev = []
    ext, corr = 1, 100
    for step, start in ((1, 1000), (2, 2000)):
        ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{step}", "pid": pid, "tid": tid,
                   "ts": float(start), "dur": 420.0, "args": {"External id": ext, "Record function id": 0}})
        ext += 1
    host = {1000: 1002.0, 2000: 2002.0}
    gpu = {1000: 1040.0, 2000: 2040.0}
    for step_start, name, dims, types, kname, kus in OPS:
        t = host[step_start]
        ev.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": pid, "tid": tid, "ts": t, "dur": 8.0,
                   "args": {"External id": ext, "Record function id": 0, "Input Dims": dims, "Input type": types,
                            "Input Strides": strides(dims), "Concrete Inputs": [""] * len(dims)}})
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": pid, "tid": tid,
                   "ts": t + 2.0, "dur": 4.0, "args": {"External id": ext, "cbid": 211, "correlation": corr}})
        k0 = gpu[step_start]
        ev.append({"ph": "X", "cat": "kernel", "name": kname, "pid": 0, "tid": 7, "ts": k0, "dur": kus,
                   "args": {"External id": ext, "device": 0, "context": 1, "stream": 7, "correlation": corr,
                            "grid": [132, 1, 1], "block": [256, 1, 1]}})
        ev.append({"ph": "s", "id": corr, "pid": pid, "tid": tid, "ts": t + 2.0, "cat": "ac2g", "name": "ac2g"})
        ev.append({"ph": "f", "id": corr, "pid": 0, "tid": 7, "ts": k0, "cat": "ac2g", "name": "ac2g", "bp": "e"})
        host[step_start] = t + 10.0
        gpu[step_start] = k0 + kus + 5.0
        ext += 1
        corr += 1
    ev.append({"name": "process_name", "ph": "M", "ts": 0, "pid": pid, "tid": 0, "args": {"name": "python3"}})
    trace = {"schemaVersion": 1, "record_shapes": 1,
             "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85018279936,
                                   "computeMajor": 9, "computeMinor": 0, "numSms": 132}],
             "traceEvents": ev, "displayTimeUnit": "ms", "baseTimeNanoseconds": 1700000000000000000}
    with open(path, "w") as f:
        json.dump(trace, f)


if __name__ == "__main__":
    main(sys.argv[1])
