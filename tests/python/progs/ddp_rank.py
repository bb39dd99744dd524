# One rank of a two-process data-parallel training run (gloo, CPU): RANK, WORLD_SIZE, MASTER_ADDR and
# MASTER_PORT come from the environment. Debian's torchrun crashes on Python 3.11, so the test starts the
# ranks itself. Prints the steps it took.
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

dist.init_process_group("gloo")
torch.manual_seed(0)
data = TensorDataset(torch.randn(20 * 8 * 2, 32), torch.randint(0, 4, (20 * 8 * 2,)))
loader = DataLoader(data, batch_size=8, sampler=DistributedSampler(data))
model = DistributedDataParallel(torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 4)))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
steps = 0
for x, y in loader:
    loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    steps += 1
dist.destroy_process_group()
print("rank %s steps: %d" % (os.environ["RANK"], steps))
