"""A CPU training loop fed by DataLoader(num_workers=0) whose Dataset decodes, blurs and resizes a PNG per sample
with PIL in __getitem__ (about 40 % of the step, inside the training loop: less than the model takes, so that one
worker keeps up). --fixed: the samples decoded once before the loop and the Dataset hands out the cached tensors
("cache preprocessed samples", the report's data-loading fix): the step no longer decodes, and nothing else competes
for the 2 cores (a worker process would, and on this machine's two vCPUs slows the model: bench/replay notes).

The planted cause: data loading. --truth FILE: the script's clock (bench/replay/planted.py Clock): planted_ms is
the time the step waited in next() on the loader's iterator.
"""
import time

from torch.utils.data import DataLoader, Dataset

import planted

BATCH = 16


class Images(Dataset):
    """`n` samples from a few distinct PNGs, as a folder of files would hand them over, decoded per sample (or once,
    cached, when `cached`)."""

    def __init__(self, n, pngs, cached=False):
        self.n, self.pngs = n, pngs
        self.cache = [planted.decode_augment(p) for p in pngs] if cached else None

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        k = i % len(self.pngs)
        return (self.cache[k] if self.cache else planted.decode_augment(self.pngs[k])), i % planted.CLASSES


def main():
    a = planted.parse_args(__doc__)
    planted.setup()
    pngs = [planted.encoded_image(s, side=112) for s in range(8)]
    model, opt = planted.model_and_optimizer()
    loader = DataLoader(Images(a.steps * BATCH, pngs, cached=a.fixed), batch_size=BATCH, num_workers=0)
    clock = planted.Clock()
    it = iter(loader)
    for _ in range(a.steps):
        t0 = time.perf_counter_ns()
        images, labels = next(it)
        clock.add(time.perf_counter_ns() - t0)
        planted.train_step(model, opt, images, labels)
        clock.step_done()
    if a.truth:
        clock.write(a.truth, "none (samples decoded once, cached)" if a.fixed else "DataLoader(num_workers=0) fetch")
    print("steps: %d" % len(clock.ends))


if __name__ == "__main__":
    main()
