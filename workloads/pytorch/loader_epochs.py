#!/usr/bin/env python3
"""Several epochs of training through a DataLoader whose samples cost a known time, with the worker start method
chosen, for perfscope's DataLoader checks (docs/workloads.md). No perfscope code: under `perfscope record` the
Python hook finds its loaders, workers and steps.

Each sample costs --sample-ms (sleeping, or spinning on the CPU with --sample-cost cpu) in whichever process
fetches it; each step runs a small MLP's forward, backward and SGD step, plus --compute-ms of CPU spinning.
With W workers, a batch of B samples takes B x sample-ms in one worker, so in the steady state a step waits about
max(0, B x sample-ms / W - compute) for its batch; each epoch that starts workers (every epoch, or the first with
--persistent-workers) first waits for them to start: iter(loader) starts the processes, the first batch waits
for them to import torch (spawn, forkserver) and fetch.

It prints its own timers per epoch and in all: the time in iter(loader), the first batch's wait, the waits for
the other batches, the loop time, and the shares (`data wait fraction` counts every wait; `steady data wait
fraction` leaves out the start-up waits of the epochs that started workers, from both the waits and the loop).
"""
import argparse
import time

import torch
from torch.utils.data import DataLoader, Dataset


class CostlySamples(Dataset):
    """`n` samples of `features` floats; each costs `ms` milliseconds to make (sleep or CPU spin)."""

    def __init__(self, n, features, ms, cpu):
        self.n, self.features, self.ms, self.cpu = n, features, ms, cpu

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if self.cpu:
            spin(self.ms)
        elif self.ms > 0:
            time.sleep(self.ms / 1000.0)
        g = torch.Generator().manual_seed(i)
        return torch.randn(self.features, generator=g), i % 10


def spin(ms):
    end = time.perf_counter() + ms / 1000.0
    while time.perf_counter() < end:
        pass


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--start-method", choices=("fork", "spawn", "forkserver"), default="fork",
                    help="DataLoader multiprocessing_context (default fork)")
    ap.add_argument("--workers", type=int, default=2, help="num_workers (default 2)")
    ap.add_argument("--persistent-workers", action="store_true", help="persistent_workers=True")
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--steps-per-epoch", type=int, default=10)
    ap.add_argument("--batch-size", type=int, default=4)
    ap.add_argument("--sample-ms", type=float, default=5.0, help="cost of one sample in ms (default 5)")
    ap.add_argument("--sample-cost", choices=("sleep", "cpu"), default="sleep",
                    help="a sample's cost is a sleep (default) or CPU spinning")
    ap.add_argument("--compute-ms", type=float, default=5.0, help="CPU spinning per step on top of the model")
    ap.add_argument("--threads", type=int, default=0, help="torch.set_num_threads in the training process")
    a = ap.parse_args()

    if a.threads > 0:
        torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    n = a.steps_per_epoch * a.batch_size
    data = CostlySamples(n, 64, a.sample_ms, a.sample_cost == "cpu")
    loader = DataLoader(data, batch_size=a.batch_size, shuffle=True, num_workers=a.workers, drop_last=True,
                        persistent_workers=a.persistent_workers and a.workers > 0,
                        multiprocessing_context=a.start_method if a.workers > 0 else None)
    model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)

    print("start method: %s, workers %d, persistent %d, intra-op threads %d" % (
        a.start_method, a.workers, int(a.persistent_workers), torch.get_num_threads()))
    steps = 0
    startup = steady_wait = all_wait = 0.0
    loop_start = time.perf_counter()
    for epoch in range(1, a.epochs + 1):
        e0 = time.perf_counter()
        it = iter(loader)
        iter_s = time.perf_counter() - e0
        first_s = rest_s = 0.0
        k = 0
        while True:
            t0 = time.perf_counter()
            try:
                x, y = next(it)
            except StopIteration:
                break
            w = time.perf_counter() - t0
            if k == 0:
                first_s = w
            else:
                rest_s += w
            loss = torch.nn.functional.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            spin(a.compute_ms)
            opt.step()
            k += 1
        epoch_s = time.perf_counter() - e0
        started = a.workers > 0 and (epoch == 1 or not a.persistent_workers)
        if started:
            startup += iter_s + first_s
            steady_wait += rest_s
        else:
            steady_wait += iter_s + first_s + rest_s
        all_wait += iter_s + first_s + rest_s
        steps += k
        print("epoch %d: steps %d, started workers %d, iter() %.3f s, first batch wait %.3f s, other waits %.3f s, "
              "epoch %.3f s, data wait %.1f %%" % (epoch, k, int(started), iter_s, first_s, rest_s, epoch_s,
                                                  100.0 * (iter_s + first_s + rest_s) / epoch_s))
    loop = time.perf_counter() - loop_start
    print("steps: %d" % steps)
    print("start-up wait seconds: %.4f" % startup)
    print("data wait fraction: %.4f" % (all_wait / loop))
    print("steady data wait fraction: %.4f" % (steady_wait / (loop - startup)))
    print("loop seconds: %.3f" % loop)


if __name__ == "__main__":
    main()
