# A plain inference loop, `for x in data: model(x)`, with no DataLoader and no optimizer: the steps are the model's
# forwards (docs/python.md, ProfilerStep#N). A module runs once before the loop (setting up: it must not mark the
# steps) and another after each call of the model (the model repeats first). Between forwards the loop works on the
# result in Python. Prints when each call of the model began and returned (CLOCK_MONOTONIC ns, the clock of
# PERFSCOPE_META origin_monotonic_ns), for tests/python/python_tests.sh. Usage: inference_loop.py N
import sys
import time

import torch

n = int(sys.argv[1])
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(128, 256), torch.nn.ReLU(), torch.nn.Linear(256, 10)).eval()
head = torch.nn.Softmax(dim=1)
with torch.no_grad():
    shift = torch.nn.Linear(16, 128)(torch.randn(1, 16))            # a module called once, before the loop
data = [torch.randn(32, 128) + shift for _ in range(n)]
forwards = []
with torch.no_grad():
    for x in data:
        t0 = time.monotonic_ns()
        y = model(x)
        forwards.append((t0, time.monotonic_ns()))
        y = head(y)
        sum(v * v for v in y.flatten().tolist())        # some Python work on the result
print("forwards: %d" % len(forwards))
print("forward ns: " + " ".join("%d:%d" % f for f in forwards))
