"""The Python hook's stack samples on against off inside one process, block by block (bench/python/stacks_overhead.sh):
on a machine shared with other jobs, whole runs of the shared example spread by +-20 % from one to the next, more
than the cost to measure; adjacent blocks of a few hundred ms share the machine's load, so the ratio of a block with
sampling to the block next to it without cancels most of it.

Run under `perfscope record --python-stack-hz 0` (the hook installed, no sampling of its own) with the hook's folder
and the rate: it trains workloads/pytorch/train_loader.py's SmallNet on its images with --heavy-transform and no
workers (the main thread runs the transforms, the model and the sampler's GIL hand-overs: the case sampling costs
most), PAIRS pairs of BLOCK steps, the order within a pair alternating, sampling started (stacks.start, as the hook
does) before each block with it and stopped after. Prints the median of the pairs' overhead in %, and the blocks'
times. Usage: stacks_ab.py HOOK_DIR HZ [PAIRS BLOCK]"""
import os
import sys
import time

sys.path.insert(0, sys.argv[1])        # the hook's folder (build/probe/python)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../workloads/pytorch"))
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.utils.data import DataLoader  # noqa: E402

import train_loader  # noqa: E402
from perfscope_hook import core, stacks  # noqa: E402

hz = float(sys.argv[2])
pairs = int(sys.argv[3]) if len(sys.argv) > 3 else 15
block = int(sys.argv[4]) if len(sys.argv) > 4 else 8
if core.p is None:
    sys.exit("stacks_ab.py: run it under perfscope record (the hook is not installed)")

torch.manual_seed(0)
size, batch = 64, 16
data = train_loader.SyntheticImages(1 << 20, size, train_loader.make_transform(True, size))
it = iter(DataLoader(data, batch_size=batch, shuffle=True, num_workers=0, drop_last=True))
model = train_loader.SmallNet()
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)


def run(n):
    t0 = time.perf_counter_ns()
    for _ in range(n):
        images, labels = next(it)
        loss = F.cross_entropy(model(images), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return time.perf_counter_ns() - t0


def sampled(n):
    stacks.start(core.p, hz)
    try:
        return run(n)
    finally:
        stacks.stop()


run(block)                              # warm-up
ratios, on, off = [], [], []
for i in range(pairs):
    if i % 2:
        b, a = sampled(block), run(block)
    else:
        a, b = run(block), sampled(block)
    off.append(a)
    on.append(b)
    ratios.append(100.0 * (b / a - 1))
print("overhead_pct=%.3f" % sorted(ratios)[pairs // 2])
print("block_ms off: %s" % " ".join("%.0f" % (x / 1e6) for x in off))
print("block_ms on: %s" % " ".join("%.0f" % (x / 1e6) for x in on))
