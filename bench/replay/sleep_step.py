"""A CPU training loop that sleeps inside each step: time.sleep(--sleep-ms, default 30 ms) before the forward, as a
rate limiter or a polling wait would (about 40 % of the step). --fixed: no sleep.

The planted cause: waiting (the step thread asleep). --truth FILE: the script's clock (bench/replay/planted.py
Clock): planted_ms is the time the step spent in time.sleep, as measured around it
(planted_runqueue_ms of it runnable after the wake-up, waiting for a CPU).
"""
import argparse
import sys
import time

import torch

import planted

BATCH = 16


def main():
    extra = argparse.ArgumentParser(add_help=False)
    extra.add_argument("--sleep-ms", type=float, default=30.0)
    e, rest = extra.parse_known_args()
    sys.argv[1:] = rest
    a = planted.parse_args(__doc__)
    planted.setup()
    model, opt = planted.model_and_optimizer()
    images = torch.randn(BATCH, 3, planted.SIZE, planted.SIZE)
    clock = planted.Clock()
    for k in range(a.steps):
        labels = torch.arange(k * BATCH, (k + 1) * BATCH) % planted.CLASSES
        if not a.fixed:
            t0, q0 = time.perf_counter_ns(), planted.runqueue_ns()
            time.sleep(e.sleep_ms / 1e3)
            clock.add(time.perf_counter_ns() - t0, planted.runqueue_ns() - q0)
        planted.train_step(model, opt, images, labels)
        clock.step_done()
    if a.truth:
        clock.write(a.truth, "none" if a.fixed else "time.sleep(%g ms) in each step" % e.sleep_ms)
    print("steps: %d" % len(clock.ends))


if __name__ == "__main__":
    main()
