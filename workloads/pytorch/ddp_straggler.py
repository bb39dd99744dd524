#!/usr/bin/env python3
"""Data-parallel training on gloo (CPU) where one rank is slower by a known delay, for perfscope's straggler and
collective checks (docs/workloads.md). No perfscope code: under `perfscope record` the Python hook records the
collectives, their waits and the rank.

Ranks: with RANK and WORLD_SIZE in the environment (and MASTER_ADDR, MASTER_PORT) this process is that one rank
(start one per rank, e.g. each under its own `perfscope record`; Debian's torchrun fails on Python 3.11);
otherwise it starts --world-size ranks itself with torch.multiprocessing.spawn.

--slow-rank R --delay-ms D makes rank R sleep D ms per step: in its forward (--slow-in compute) or spread over the
samples of its batch in its dataset's __getitem__ (--slow-in data; the loader has no workers, so the rank waits
for it). Gradients are averaged by DistributedDataParallel (--sync ddp: the allreduce runs and is waited for
inside loss.backward()) or by one dist.all_reduce of the flattened gradients after backward (--sync allreduce).

Each rank prints its own timers: per step the step time, the time it spent waiting for the allreduce and the time
it actually slept (the delay as injected: on a loaded machine each sleep overruns), then
their means over the steps after the first (DDP's first step builds its buckets). The wait is measured by the
script: with --sync allreduce, the time inside dist.all_reduce; with --sync ddp, the time from the end of
backward's computation to the return of loss.backward(), which DDP spends waiting for its allreduces (the end of
the computation: an autograd-engine callback queued from a hook on the first layer's gradients, the last ones
backward computes; it runs when the graph is done, right before the callback in which DDP waits). The other
ranks should wait about D ms per step for rank R.
"""
import argparse
import os
import statistics
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

FEATURES = 256
SLEPT = [0.0]   # seconds the slow rank actually slept since the step began (a loaded machine overruns each sleep)


def sleep(s):
    t = time.perf_counter()
    time.sleep(s)
    SLEPT[0] += time.perf_counter() - t


class Samples(Dataset):
    """Deterministic samples; each waits `delay_s` when made (the slow rank's data)."""

    def __init__(self, n, delay_s):
        self.n, self.delay_s = n, delay_s

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if self.delay_s > 0:
            sleep(self.delay_s)
        g = torch.Generator().manual_seed(i)
        return torch.randn(FEATURES, generator=g), i % 10


class Net(torch.nn.Module):
    def __init__(self, sleep_s):
        super().__init__()
        self.body = torch.nn.Sequential(torch.nn.Linear(FEATURES, 512), torch.nn.ReLU(), torch.nn.Linear(512, 512),
                                        torch.nn.ReLU(), torch.nn.Linear(512, 10))
        self.sleep_s = sleep_s

    def forward(self, x):
        if self.sleep_s > 0:
            sleep(self.sleep_s)
        return self.body(x)


def ms(s):
    return "%.1f" % (s * 1e3)


def run(rank, world, a):
    if not dist.is_initialized():
        dist.init_process_group("gloo", rank=rank, world_size=world)
    slow = rank == a.slow_rank and a.delay_ms > 0
    delay = a.delay_ms / 1000.0 if slow else 0.0
    torch.manual_seed(0)
    n = a.steps * a.batch_size * world
    data = Samples(n, delay / a.batch_size if a.slow_in == "data" else 0.0)
    loader = DataLoader(data, batch_size=a.batch_size, sampler=DistributedSampler(data, shuffle=False),
                        num_workers=0, drop_last=True)
    net = Net(delay if a.slow_in == "compute" else 0.0)
    model = DistributedDataParallel(net) if a.sync == "ddp" else net
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    params = [p for p in net.parameters()]
    if a.sync == "allreduce":       # same starting weights everywhere, as DDP's constructor ensures
        for p in params:
            dist.broadcast(p.data, 0)
    it = iter(loader)
    computed = {"queued": False, "at": 0.0}     # when this step's backward computation ended

    def graph_done():
        computed["at"] = time.perf_counter()

    def last_gradients(g):
        if not computed["queued"]:
            computed["queued"] = True
            torch.autograd.Variable._execution_engine.queue_callback(graph_done)
    for p in net.body[0].parameters():
        p.register_hook(last_gradients)

    step_s, wait_s, slept_s = [], [], []
    for _ in range(a.steps):
        t0 = time.perf_counter()
        SLEPT[0] = 0.0
        x, y = next(it)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        computed["queued"] = False
        t1 = time.perf_counter()
        loss.backward()
        t2 = time.perf_counter()
        if a.sync == "ddp":
            wait = t2 - max(t1, computed["at"])
        else:
            flat = torch.cat([p.grad.reshape(-1) for p in params])
            t3 = time.perf_counter()
            dist.all_reduce(flat)
            wait = time.perf_counter() - t3
            flat /= world
            k = 0
            for p in params:
                p.grad.copy_(flat[k:k + p.numel()].view_as(p.grad))
                k += p.numel()
        opt.step()
        step_s.append(time.perf_counter() - t0)
        wait_s.append(wait)
        slept_s.append(SLEPT[0])
    dist.barrier()
    dist.destroy_process_group()
    tail_step, tail_wait = step_s[1:] or step_s, wait_s[1:] or wait_s
    how = "end of backward's computation to its return" if a.sync == "ddp" else "time inside dist.all_reduce"
    lines = [
        "steps: %d" % len(step_s),
        "slow: %s" % (("%s ms per step in %s" % (ms(delay), a.slow_in)) if slow else "no"),
        "step ms: %s" % " ".join(ms(s) for s in step_s),
        "allreduce wait ms: %s" % " ".join(ms(s) for s in wait_s),
        "slept ms: %s" % " ".join(ms(s) for s in slept_s),
        "mean step ms (steps 2-): %s" % ms(statistics.mean(tail_step)),
        "mean allreduce wait ms (steps 2-, %s): %s" % (how, ms(statistics.mean(tail_wait)))]
    print("".join("rank %d %s\n" % (rank, line) for line in lines), end="", flush=True)   # one write per rank


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--world-size", type=int, default=2, help="ranks to spawn without RANK/WORLD_SIZE (default 2)")
    ap.add_argument("--steps", type=int, default=12)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--slow-rank", type=int, default=-1, help="the rank made slow (default none)")
    ap.add_argument("--delay-ms", type=float, default=0.0, help="its delay per step in ms")
    ap.add_argument("--slow-in", choices=("compute", "data"), default="compute")
    ap.add_argument("--sync", choices=("ddp", "allreduce"), default="ddp")
    ap.add_argument("--port", type=int, default=29500, help="MASTER_PORT when the script spawns the ranks")
    a = ap.parse_args()
    if "RANK" in os.environ and "WORLD_SIZE" in os.environ:
        run(int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]), a)
        return
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", str(a.port))
    torch.multiprocessing.spawn(run, args=(a.world_size, a), nprocs=a.world_size)


if __name__ == "__main__":
    main()
