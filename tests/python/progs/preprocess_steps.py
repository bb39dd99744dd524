# A CPU training loop whose main thread spends about 70 % of each step in a Python function, preprocess() (PIL
# decode and augmentation of an image, and pure-Python work on its bytes), and the rest in a small model's forward,
# backward and optimizer step; preprocess runs inside torch.autograd.profiler.record_function("preprocess").
# No DataLoader: the steps are the optimizer's (optimizer.step to optimizer.step). Usage:
#   preprocess_steps.py TIMERS STEPS [PRE_MS MODEL_MS]
# TIMERS gets the script's own clock, for the steps the hook writes (ProfilerStep#k: from the end of optimizer step
# k to the end of step k + 1): `steps`, `step_ns` (their total), `preprocess_ns` (preprocess's time in them) and
# `preprocess_calls_ns` (every preprocess call, the first step's too).
import io
import sys
import time

import torch
from PIL import Image, ImageFilter

out, steps = sys.argv[1], int(sys.argv[2])
pre_s = float(sys.argv[3]) / 1e3 if len(sys.argv) > 3 else 0.07
model_s = float(sys.argv[4]) / 1e3 if len(sys.argv) > 4 else 0.03


def encoded_image():
    buf = io.BytesIO()
    Image.effect_noise((96, 96), 64).convert("RGB").save(buf, format="PNG")
    return buf.getvalue()


def checksum(data):
    """Pure Python: no call in it lets go of the GIL."""
    s = 0
    for b in data:
        s = (s * 31 + b) % 1000003
    return s


def preprocess(png, seconds):
    """Decode and augment the image with PIL, then work on its bytes in Python, until `seconds` have passed."""
    end = time.perf_counter() + seconds
    s = 0
    while True:
        img = Image.open(io.BytesIO(png)).convert("RGB")
        img = img.rotate(7).filter(ImageFilter.GaussianBlur(1)).resize((64, 64))
        s += checksum(img.tobytes()[:3000])
        if time.perf_counter() >= end:
            return s


def main():
    torch.manual_seed(0)
    png = encoded_image()
    model = torch.nn.Sequential(torch.nn.Linear(256, 256), torch.nn.ReLU(), torch.nn.Linear(256, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x, y = torch.randn(64, 256), torch.randint(0, 10, (64,))
    pre_ns = []
    step_end = []
    for _ in range(steps + 1):
        t0 = time.perf_counter_ns()
        with torch.autograd.profiler.record_function("preprocess"):
            preprocess(png, pre_s)
        pre_ns.append(time.perf_counter_ns() - t0)
        end = time.perf_counter() + model_s
        opt.zero_grad()
        while True:                     # forward and backward until model_s has passed; one optimizer step
            torch.nn.functional.cross_entropy(model(x), y).backward()
            if time.perf_counter() >= end:
                break
        opt.step()
        step_end.append(time.perf_counter_ns())
    with open(out, "w") as f:
        f.write("steps %d\n" % steps)
        f.write("step_ns %d\n" % (step_end[-1] - step_end[0]))
        f.write("preprocess_ns %d\n" % sum(pre_ns[1:]))
        f.write("preprocess_calls_ns %d\n" % sum(pre_ns))
    print("steps: %d" % steps)


main()
