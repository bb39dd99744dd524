#!/usr/bin/env python3
"""A small image-classification training run with a real torch DataLoader, for perfscope's PyTorch path
(docs/workloads.md). It holds no NVTX or perfscope code: `perfscope record -- python3 train_loader.py` finds its
steps and fetches through perfscope's Python hook.

Images are made on the fly from their index (a fixed pseudo-random pattern per index, handed over as a PIL image
like a JPEG folder would be), then transformed with torchvision: --heavy-transform runs a CPU-heavy augmentation
(random resized crop, colour jitter, rotation, blur) that makes the loader the bottleneck with few workers.
Without torchvision/PIL (a GPU host with PyTorch alone) the same steps run as torch operations on CPU tensors.

It prints the number of optimizer steps and the fraction of the loop's wall time it spent waiting for the
next batch (time inside next() on the loader's iterator / time from the first next() to the last step's end).
"""
import argparse
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

try:
    import numpy as np
    from PIL import Image
    from torchvision import transforms
except ImportError:
    transforms = None

CLASSES = 10


class SyntheticImages(Dataset):
    """`n` RGB images of `size` x `size`, each a function of its index; the label is index % CLASSES."""

    def __init__(self, n, size, transform):
        self.n, self.size, self.transform = n, size, transform

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if transforms is None:
            g = torch.Generator().manual_seed(i)
            return self.transform(torch.randint(0, 256, (3, self.size, self.size), generator=g, dtype=torch.uint8)), i % CLASSES
        rng = np.random.default_rng(i)
        pixels = rng.integers(0, 256, (self.size, self.size, 3), dtype=np.uint8)
        return self.transform(Image.fromarray(pixels)), i % CLASSES


def tensor_transform(heavy, size):
    """The torchvision pipeline's steps as torch operations on a uint8 CHW tensor (no torchvision)."""
    blur = torch.full((3, 1, 5, 5), 1 / 25.0)

    def apply(x):
        x = x.float() / 255
        if heavy:
            for _ in range(8):          # about the CPU time of the PIL pipeline
                crop = int(size * (0.7 + 0.3 * torch.rand(1).item()))
                top, left = torch.randint(0, size - crop + 1, (2,)).tolist()
                x = F.interpolate(x[None, :, top:top + crop, left:left + crop], size=(size, size),
                                  mode="bilinear", align_corners=False)[0]
                x = (x * (0.6 + 0.8 * torch.rand(3, 1, 1))).clamp(0, 1)
                x = F.conv2d(F.pad(x[None], (2, 2, 2, 2), mode="reflect"), blur, groups=3)[0]
        return (x - 0.5) / 0.25
    return apply


class SmallNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc = nn.Linear(32 * 8 * 8, CLASSES)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = F.adaptive_avg_pool2d(x, 8)
        return self.fc(torch.flatten(x, 1))


def make_transform(heavy, size):
    if transforms is None:
        return tensor_transform(heavy, size)
    normalize = transforms.Normalize((0.5, 0.5, 0.5), (0.25, 0.25, 0.25))
    if not heavy:
        return transforms.Compose([transforms.ToTensor(), normalize])
    return transforms.Compose([
        transforms.RandomResizedCrop(size, scale=(0.5, 1.0)),
        transforms.ColorJitter(0.4, 0.4, 0.4, 0.1),
        transforms.RandomRotation(15),
        transforms.GaussianBlur(5),
        transforms.ToTensor(),
        normalize,
    ])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workers", type=int, default=0, help="DataLoader num_workers (default 0)")
    ap.add_argument("--pin-memory", action="store_true", help="DataLoader pin_memory=True")
    ap.add_argument("--heavy-transform", action="store_true", help="CPU-heavy augmentation per image")
    ap.add_argument("--steps", type=int, default=40, help="optimizer steps (default 40)")
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--image-size", type=int, default=64)
    ap.add_argument("--device", choices=("cuda", "cpu"), default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--inference", action="store_true", help="evaluate only: no optimizer, no backward")
    a = ap.parse_args()

    torch.manual_seed(0)
    device = torch.device(a.device)
    data = SyntheticImages(a.steps * a.batch_size, a.image_size, make_transform(a.heavy_transform, a.image_size))
    loader = DataLoader(data, batch_size=a.batch_size, shuffle=True, num_workers=a.workers,
                        pin_memory=a.pin_memory, drop_last=True)
    model = SmallNet().to(device)
    opt = None if a.inference else torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    if a.inference:
        model.eval()

    steps = 0
    wait = 0.0
    it = iter(loader)
    loop_start = time.perf_counter()
    while steps < a.steps:
        t0 = time.perf_counter()
        try:
            images, labels = next(it)
        except StopIteration:
            break
        wait += time.perf_counter() - t0
        images = images.to(device, non_blocking=a.pin_memory)
        labels = labels.to(device, non_blocking=a.pin_memory)
        if a.inference:
            with torch.no_grad():
                model(images).argmax(1)
        else:
            loss = F.cross_entropy(model(images), labels)
            opt.zero_grad()
            loss.backward()
            opt.step()
        steps += 1
    if device.type == "cuda":
        torch.cuda.synchronize()
    loop = time.perf_counter() - loop_start
    print("steps: %d" % steps)
    print("data wait fraction: %.4f" % (wait / loop if loop > 0 else 0.0))
    print("loop seconds: %.3f" % loop)


if __name__ == "__main__":
    main()
