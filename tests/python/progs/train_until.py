# A small training loop (DataLoader num_workers=0) that ends badly after --steps steps: `raise` raises a
# RuntimeError, `sigkill` kills its own process with SIGKILL. Prints one line per step.
import os
import signal
import sys

import torch
from torch.utils.data import DataLoader, TensorDataset

how, steps = sys.argv[1], int(sys.argv[2])
torch.manual_seed(0)
data = TensorDataset(torch.randn(256, 32), torch.randint(0, 4, (256,)))
model = torch.nn.Linear(32, 4)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for i, (x, y) in enumerate(DataLoader(data, batch_size=8)):
    loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("step", i + 1, flush=True)
    if i + 1 == steps:
        if how == "raise":
            raise RuntimeError("training failed on purpose at step %d" % steps)
        os.kill(os.getpid(), signal.SIGKILL)
