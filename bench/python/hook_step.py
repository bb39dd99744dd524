"""A training loop that does almost nothing but go through what perfscope's Python hook wraps: a DataLoader
fetch (num_workers=0, batch of 8 tiny samples: 8 per-sample ranges + collate), a forward, backward and optimizer
step on a 4x4 linear layer, one Tensor.to. Prints ns per step over --steps steps (after 50 warm-up steps), so
`record` vs `record --no-python-hooks` gives the hook's own cost per step (bench/python/run.sh)."""
import sys
import time

import torch
from torch.utils.data import DataLoader, TensorDataset

steps = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
data = TensorDataset(torch.randn(8 * (steps + 50), 4), torch.randn(8 * (steps + 50), 4))
model = torch.nn.Linear(4, 4)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
it = iter(DataLoader(data, batch_size=8))
for i in range(steps + 50):
    if i == 50:
        t0 = time.perf_counter_ns()
    x, y = next(it)
    x = x.to(torch.float32)
    loss = ((model(x) - y) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
print("ns_per_step=%d" % ((time.perf_counter_ns() - t0) // steps))
