"""A training loop under torch.profiler that calls prof.step() at the end of each iteration, as the PyTorch
tutorials do: the profiler opens one ProfilerStep#N more than the loop runs and cuts it when it stops.
Usage: profiler_steps.py TRACE.json ITERATIONS. Writes the profiler's own Chrome trace to TRACE.json."""
import sys
import time

import torch
from torch.profiler import ProfilerActivity, profile, schedule

out, iterations = sys.argv[1], int(sys.argv[2])
model = torch.nn.Linear(128, 128)
x = torch.randn(32, 128)
with profile(activities=[ProfilerActivity.CPU], schedule=schedule(wait=0, warmup=0, active=iterations + 1)) as prof:
    for _ in range(iterations):
        model(x).relu().sum().backward()
        time.sleep(0.01)
        prof.step()
prof.export_chrome_trace(out)
