"""Kernel names that differ only by a NUL byte against the printable text \\x00 are two kernels: two rows in the
report, the NUL written as \\u0000 in JSON and shown as \\x00 in text. Usage: check_nul_in_names.py PERFSCOPE WORKDIR"""
import json
import os
import subprocess
import sys

perfscope, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
WITH_NUL, WITH_TEXT = "k\u0000x", "k\\x00x"          # 3 characters; 6 characters
events = [{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 0, "dur": 5,
           "args": {"correlation": 1}},
          {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 10, "dur": 5,
           "args": {"correlation": 2}},
          {"ph": "X", "cat": "kernel", "name": WITH_NUL, "pid": 0, "tid": 7, "ts": 20, "dur": 100,
           "args": {"correlation": 1, "device": 0, "stream": 7}},
          {"ph": "X", "cat": "kernel", "name": WITH_TEXT, "pid": 0, "tid": 7, "ts": 130, "dur": 30,
           "args": {"correlation": 2, "device": 0, "stream": 7}}]
trace = os.path.join(work, "nul_names.json")
with open(trace, "w") as f:
    json.dump({"traceEvents": events}, f)
failures = []
out = subprocess.run([perfscope, "report", "--format", "json", trace], capture_output=True, text=True)
kernels = {k["name"]: k for k in json.loads(out.stdout).get("kernels", [])} if out.returncode == 0 else {}
if set(kernels) != {WITH_NUL, WITH_TEXT}:
    failures.append(f"json kernels {sorted(kernels)!r}, want {[WITH_NUL, WITH_TEXT]!r}")
elif (kernels[WITH_NUL]["count"], kernels[WITH_TEXT]["count"]) != (1, 1):
    failures.append("each kernel once")
if '"k\\u0000x"' not in out.stdout:
    failures.append("JSON does not write the NUL as \\u0000")
text = subprocess.run([perfscope, "report", "--details", trace], capture_output=True, text=True).stdout
# the kernel table: count, total, avg, median, min, max, name
rows = [line.split() for line in text.splitlines() if line.rstrip().endswith("k\\x00x") and len(line.split()) == 7]
if sorted(r[1] for r in rows) != ["0.030", "0.100"]:
    failures.append(f"text: kernel rows {rows}, want one of 0.100 ms and one of 0.030 ms")
for f in failures:
    print("FAIL", f)
sys.exit(1 if failures else 0)
