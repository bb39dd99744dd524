"""A CPU training loop whose main thread runs preprocess() on each batch before the step: PIL decode, blur and
resize of each image, then eight augmented views of it (shifts, flips, colour jitter, blur) as torch operations (about 40 %
of the step). --fixed runs the same preprocess() for every batch once before the loop (preprocessed samples, cached:
the report's fix, "cache what it computes"), so the step no longer runs it and nothing competes for the cores.
--fixed-workers runs it in a Dataset served by DataLoader(num_workers=1) instead, overlapping the model on the
second core (preprocess takes less than the model, so one worker keeps up): its saving depends on a free core, and
on a machine whose two vCPUs slow each other it is smaller and varies from run to run (bench/replay notes).

The planted cause: host compute, named `preprocess` (its own lines, torch operations, hold most of its time; PIL's
functions the rest). --truth FILE: the script's clock (bench/replay/planted.py Clock): planted_ms is preprocess's time per
step in the main thread (0 with --fixed: it runs in the worker).
"""
import io
import time

import torch
from PIL import Image, ImageFilter
from torch.utils.data import DataLoader, Dataset

import planted

BATCH = 16      # images per step: VIEWS augmented views of each of BATCH // VIEWS decoded images
VIEWS = 8
ROUNDS = 4      # augmentation rounds per view
BLUR = torch.full((3, 1, 5, 5), 1 / 25.0)


def preprocess(png, seed):
    """One encoded image: PIL decode, blur and resize, then VIEWS augmented views of it, each ROUNDS rounds of a
    random shift and flip, a colour jitter and a 5 x 5 blur as torch operations on the CPU; a VIEWS x 3 x 64 x 64
    float tensor."""
    img = Image.open(io.BytesIO(png)).convert("RGB")
    img = img.filter(ImageFilter.GaussianBlur(1)).resize((planted.SIZE, planted.SIZE))
    x = torch.frombuffer(bytearray(img.tobytes()), dtype=torch.uint8)
    x = x.view(planted.SIZE, planted.SIZE, 3).permute(2, 0, 1).float().div(255)
    g = torch.Generator().manual_seed(seed)
    views = []
    for _ in range(VIEWS):
        v = x
        for _ in range(ROUNDS):
            # a random shift and flip, a colour jitter, a blur: tensor methods and torch.* functions only, so the
            # time is preprocess's own (a torch.nn.functional wrapper would be a Python frame of its own)
            dy, dx = torch.randint(-8, 9, (2,), generator=g).tolist()
            v = torch.roll(v, (dy, dx), (1, 2))
            if torch.rand(1, generator=g).item() < 0.5:
                v = v.flip(2)
            v = (v * (0.6 + 0.8 * torch.rand(3, 1, 1, generator=g))).clamp(0, 1)
            v = torch.conv2d(torch.constant_pad_nd(v[None], (2, 2, 2, 2)), BLUR, groups=3)[0]
        views.append((v - 0.5) / 0.25)
    return torch.stack(views)


class Images(Dataset):
    """`n` encoded images (a few distinct PNGs, as a folder of files would hand them over), preprocessed here."""

    def __init__(self, n, pngs):
        self.n, self.pngs = n, pngs

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return preprocess(self.pngs[i % len(self.pngs)], i)


def labels_of(k):
    return torch.arange(k * BATCH, (k + 1) * BATCH) % planted.CLASSES


def main():
    a = planted.parse_args(__doc__)
    planted.setup()
    pngs = [planted.encoded_image(s, side=72) for s in range(8)]
    model, opt = planted.model_and_optimizer()
    clock = planted.Clock()
    per_step = BATCH // VIEWS
    if a.fixed:
        batches = [torch.cat([preprocess(pngs[(k * per_step + j) % len(pngs)], k * per_step + j)
                              for j in range(per_step)]) for k in range(a.steps)]
        for k, images in enumerate(batches):
            planted.train_step(model, opt, images, labels_of(k))
            clock.step_done()
    elif a.fixed_workers:
        loader = DataLoader(Images(a.steps * per_step, pngs), batch_size=per_step, num_workers=1)
        for k, images in enumerate(loader):
            planted.train_step(model, opt, images.view(BATCH, 3, planted.SIZE, planted.SIZE), labels_of(k))
            clock.step_done()
    else:
        for k in range(a.steps):
            t0 = time.perf_counter_ns()
            images = torch.cat([preprocess(pngs[(k * per_step + j) % len(pngs)], k * per_step + j)
                                for j in range(per_step)])
            clock.add(time.perf_counter_ns() - t0)
            planted.train_step(model, opt, images, labels_of(k))
            clock.step_done()
    if a.truth:
        clock.write(a.truth, "none (preprocessed before the loop)" if a.fixed else
                    "none (preprocess in a worker)" if a.fixed_workers else "preprocess() in the main thread")
    print("steps: %d" % len(clock.ends))


if __name__ == "__main__":
    main()
