# What the planted-bottleneck scripts of bench/replay share: their arguments, a small CNN trained on 64x64 RGB
# images on one CPU thread, the PIL work they plant, and the script's own clock (--truth), which writes what the
# script planted per step as the Python hook delimits steps (from the end of one optimizer.step to the end of the
# next). Imported by preprocess_main.py, sleep_step.py, lock_wait.py and slow_loader.py (their folder is on
# sys.path when Python runs them).
import argparse
import io
import json
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from PIL import Image, ImageFilter

SIZE = 64       # the model's input: SIZE x SIZE RGB
CLASSES = 10


def parse_args(doc, steps=30):
    """--fixed, --truth FILE, --steps N (optimizer steps; the hook's steps are the N - 1 between them)."""
    ap = argparse.ArgumentParser(description=doc.strip().split("\n")[0])
    ap.add_argument("--fixed", action="store_true", help="run the fixed version (no planted bottleneck)")
    ap.add_argument("--fixed-workers", action="store_true",
                    help="preprocess_main: the fix in a DataLoader worker instead (needs a free core)")
    ap.add_argument("--truth", metavar="FILE", help="write the script's own clock as JSON to FILE")
    ap.add_argument("--steps", type=int, default=steps, help="optimizer steps (default %d)" % steps)
    return ap.parse_args()


def setup():
    """One intra-op thread (the second core stays free for a DataLoader worker or a background thread)."""
    torch.set_num_threads(1)
    torch.manual_seed(0)


class SmallCNN(nn.Module):
    """A frozen convolutional feature extractor (as when fine-tuning a pretrained one) and a trained head: most of
    the step is the extractor's forward, spread over its layers, so no one name of the model outweighs a planted
    function of ~40 % of the step."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 24, 3, padding=1)
        self.conv2 = nn.Conv2d(24, 32, 3, padding=1)
        self.conv3 = nn.Conv2d(32, 64, 3, padding=1)
        for p in (*self.conv1.parameters(), *self.conv2.parameters(), *self.conv3.parameters()):
            p.requires_grad_(False)
        self.head = nn.Sequential(nn.Linear(64 * 4 * 4, 128), nn.ReLU(), nn.Linear(128, CLASSES))

    def forward(self, x):
        with torch.no_grad():
            x = F.max_pool2d(F.relu(self.conv1(x)), 2)
            x = F.max_pool2d(F.relu(self.conv2(x)), 2)
            x = F.max_pool2d(F.relu(self.conv3(x)), 4)
        return self.head(torch.flatten(x, 1))


def model_and_optimizer():
    model = SmallCNN()
    return model, torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.01, momentum=0.9)


def train_step(model, opt, images, labels):
    """Forward, backward and optimizer step on one batch."""
    loss = F.cross_entropy(model(images), labels)
    opt.zero_grad()
    loss.backward()
    opt.step()


def encoded_image(seed, side=160):
    """A PNG of `side` x `side` noise: what a dataset on disk would hand over."""
    buf = io.BytesIO()
    Image.effect_noise((side, side), 40 + seed % 50).convert("RGB").save(buf, format="PNG")
    return buf.getvalue()


def decode_augment(png, blur_radius=2):
    """PIL decode, blur and resize of one image to a 3 x SIZE x SIZE float tensor."""
    img = Image.open(io.BytesIO(png)).convert("RGB")
    img = img.filter(ImageFilter.GaussianBlur(blur_radius)).resize((SIZE, SIZE))
    t = torch.frombuffer(bytearray(img.tobytes()), dtype=torch.uint8)
    return t.view(SIZE, SIZE, 3).permute(2, 0, 1).float().div(255)


def runqueue_ns():
    """ns this thread has spent runnable but waiting for a CPU (/proc/thread-self/schedstat, second field); 0 where
    the kernel does not say. Waiting scripts subtract the part of their wait spent so: after the wake-up the thread
    is runnable, which a thread-state sample sees as running, not waiting (docs/report.md "Where the step goes")."""
    try:
        with open("/proc/thread-self/schedstat") as f:
            return int(f.read().split()[1])
    except (OSError, IndexError, ValueError):
        return 0


class Clock:
    """The script's own clock for --truth: step(i) at the end of each optimizer.step, planted(ns) for the planted
    time of the current step. The hook's step k runs from the end of optimizer step k to the end of step k + 1, so
    the planted time before the first optimizer step belongs to no step and is left out."""

    def __init__(self):
        self.ends = []          # perf_counter_ns at the end of each optimizer.step
        self.planted = [0]      # planted ns before optimizer step 0, between steps 0 and 1, ...
        self.runqueue = [0]     # of which runnable, waiting for a CPU (runqueue_ns)

    def add(self, ns, runqueue=0):
        self.planted[-1] += ns
        self.runqueue[-1] += runqueue

    def step_done(self):
        self.ends.append(time.perf_counter_ns())
        self.planted.append(0)
        self.runqueue.append(0)

    def write(self, path, what, **extra):
        """JSON: steps, step_ms (mean), planted_ms (mean planted time per step), planted_runqueue_ms (of which
        runnable, waiting for a CPU: given by the waiting scripts), what (the planted code), and the per-step lists;
        extra keys as given."""
        steps = [(b - a) / 1e6 for a, b in zip(self.ends, self.ends[1:])]
        planted = [ns / 1e6 for ns in self.planted[1:len(self.ends)]]
        runqueue = [ns / 1e6 for ns in self.runqueue[1:len(self.ends)]]
        n = max(len(steps), 1)
        out = {"what": what, "steps": len(steps), "step_ms": sum(steps) / n, "planted_ms": sum(planted) / n,
               "planted_runqueue_ms": sum(runqueue) / n, "step_ms_each": steps, "planted_ms_each": planted}
        out.update(extra)
        with open(path, "w") as f:
            json.dump(out, f, indent=1)
            f.write("\n")
