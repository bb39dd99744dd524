"""Cost of perfscope's Python hook on torch.distributed calls (bench/python/run.sh): one process, a one-rank gloo
group (every call still goes through ProcessGroupGloo and its Work), timed under `perfscope record` with and
without the hook. Prints ns per synchronous dist.all_reduce of one float, per all_reduce(async_op=True) +
wait(), and per DistributedDataParallel step (forward, backward, SGD step of a 4x4 linear layer)."""
import os
import socket
import sys
import time

import torch
import torch.distributed as dist

n = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
dist.init_process_group("gloo", rank=0, world_size=1)
t = torch.ones(1)


def per_call(fn, calls):
    for _ in range(100):
        fn()
    t0 = time.perf_counter_ns()
    for _ in range(calls):
        fn()
    return (time.perf_counter_ns() - t0) // calls


print("ns_per_all_reduce=%d" % per_call(lambda: dist.all_reduce(t), n))
print("ns_per_async_all_reduce_wait=%d" % per_call(lambda: dist.all_reduce(t, async_op=True).wait(), n))
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(4, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x = torch.randn(8, 4)


def ddp_step():
    loss = model(x).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()


print("ns_per_ddp_step=%d" % per_call(ddp_step, n // 3))
dist.destroy_process_group()
