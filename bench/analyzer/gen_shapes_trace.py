#!/usr/bin/env python3
"""Write a PyTorch profiler (Kineto) trace recorded with shapes, for the operator-model benchmarks
(bench/analyzer/op_model.sh).

usage: gen_shapes_trace.py steps N OUT.json
         N steps (ProfilerStep#1..N, 1 ms apart), each holding four ops with shapes (a bf16 aten::mm, an fp32
         aten::addmm, a bf16 aten::add, an aten::_softmax without a model), each op launching one kernel through
         cudaLaunchKernel with its ac2g flow: 4 host ops, 4 launches, 4 kernels and 8 flow events per step.
       gen_shapes_trace.py inputs N OUT.json
         one step holding four aten::add ops with N recorded inputs each (the first two bf16 [64, 64] tensors, the
         rest Scalars, each op its own values): a few MB of shape text (N = 100,000: about 8 MB).
The device is an H100 SXM (its name as Kineto writes it), so the report computes MFU per step."""
import json
import sys

BF16, F32 = "c10::BFloat16", "float"
OPS = [  # name, dims, types, kernel name, kernel µs
    ("aten::mm", [[1024, 1024], [1024, 1024]], [BF16, BF16],
     "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_cublas", 20.0),
    ("aten::addmm", [[1024], [512, 2048], [2048, 1024], [], []], [F32, F32, F32, "Scalar", "Scalar"],
     "ampere_sgemm_128x64_tn", 64.0),
    ("aten::add", [[1024, 1024], [1024, 1024], []], [BF16, BF16, "Scalar"],
     "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>>", 6.0),
    ("aten::_softmax", [[1024, 1024], [], []], [BF16, "Scalar", "Scalar"],
     "void at::native::(anonymous namespace)::cunn_SoftMaxForward<8, c10::BFloat16>", 10.0),
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


def write(path, steps, ops):
    """steps: number of steps; ops: (name, dims, types, concrete, kernel, µs) per step."""
    pid, tid = 4242, 4242
    ext, corr = 1, 100
    with open(path, "w") as f:
        f.write('{"schemaVersion": 1, "record_shapes": 1, "deviceProperties": [{"id": 0, "name": '
                '"NVIDIA H100 80GB HBM3", "totalGlobalMem": 85018279936, "computeMajor": 9, "computeMinor": 0, '
                '"numSms": 132}],\n"traceEvents": [\n')
        f.write(json.dumps({"name": "process_name", "ph": "M", "ts": 0, "pid": pid, "tid": 0,
                            "args": {"name": "python3"}}))
        for s in range(steps):
            start = 1000.0 + 1000.0 * s
            ev = [{"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{s + 1}", "pid": pid, "tid": tid,
                   "ts": start, "dur": 900.0, "args": {"External id": ext}}]
            ext += 1
            t, k0 = start + 2.0, start + 40.0
            for name, dims, types, concrete, kname, kus in ops:
                ev.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": pid, "tid": tid, "ts": t, "dur": 8.0,
                           "args": {"External id": ext, "Input Dims": dims, "Input type": types,
                                    "Input Strides": strides(dims), "Concrete Inputs": concrete}})
                ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": pid, "tid": tid,
                           "ts": t + 2.0, "dur": 4.0, "args": {"External id": ext, "correlation": corr}})
                ev.append({"ph": "X", "cat": "kernel", "name": kname, "pid": 0, "tid": 7, "ts": k0, "dur": kus,
                           "args": {"External id": ext, "device": 0, "stream": 7, "correlation": corr}})
                ev.append({"ph": "s", "id": corr, "pid": pid, "tid": tid, "ts": t + 2.0, "cat": "ac2g",
                           "name": "ac2g"})
                ev.append({"ph": "f", "id": corr, "pid": 0, "tid": 7, "ts": k0, "cat": "ac2g", "name": "ac2g",
                           "bp": "e"})
                t, k0 = t + 10.0, k0 + kus + 5.0
                ext, corr = ext + 1, corr + 1
            for e in ev:
                f.write(",\n")
                f.write(json.dumps(e))
        f.write('\n], "displayTimeUnit": "ms", "baseTimeNanoseconds": 1700000000000000000}\n')


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("steps", "inputs"):
        sys.exit(__doc__)
    n = int(sys.argv[2])
    if sys.argv[1] == "steps":
        write(sys.argv[3], n, [(name, d, t, [""] * len(d), k, us) for name, d, t, k, us in OPS])
    else:
        dims = [[64, 64], [64, 64]] + [[]] * (n - 2)
        types = [BF16, BF16] + ["Scalar"] * (n - 2)
        add = OPS[2][3]   # each op its own scalars, so that no two ops share their argument text
        write(sys.argv[3], 1, [("aten::add", dims, types, ["", ""] + [str(k + 1)] * (n - 2), add, 6.0)
                               for k in range(4)])


if __name__ == "__main__":
    main()
