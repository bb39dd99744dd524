"""A CPU training loop that shares a lock with a background thread writing its metrics: after each step the loop
hands the step's loss over (waiting until the thread has taken it), and the thread writes it holding the lock
through the slow write (a sleep of --hold-ms, default 30 ms, standing for a write to a slow disk), while the next
step starts by reading the shared learning rate under the same lock, so it waits for the write (about 40 % of the
step). --fixed: the thread takes the lock only to swap the pending losses out, and writes outside it.

The planted cause: waiting (the step thread blocked on the lock). --truth FILE: the script's clock
(bench/replay/planted.py Clock): planted_ms is the time the step waited for the hand-over and to acquire the lock
(planted_runqueue_ms of it runnable after the wake-up, waiting for a CPU).
"""
import argparse
import sys
import threading
import time

import torch

import planted

BATCH = 16


class Shared:
    """State the loop and the metrics writer share under one lock: the learning rate, the losses not yet written."""

    def __init__(self, hold_s, fixed):
        self.lock = threading.Lock()
        self.lr, self.pending, self.written = 0.01, [], 0
        self.hold_s, self.fixed = hold_s, fixed
        self.ready, self.taken = threading.Event(), threading.Event()
        self.done = False
        self.thread = threading.Thread(target=self.writer, name="metrics-writer", daemon=True)

    def write(self, losses):
        time.sleep(self.hold_s)             # the slow write
        self.written += len(losses)

    def writer(self):
        while True:
            self.ready.wait()
            self.ready.clear()
            if self.done:
                return
            if self.fixed:
                with self.lock:
                    losses, self.pending = self.pending, []
                    self.taken.set()
                self.write(losses)
            else:
                with self.lock:
                    self.taken.set()
                    self.write(self.pending)
                    self.pending = []

    def log(self, loss):
        """Hand the loss over and wait until the writer has taken the lock to write it; the ns waited and the ns of
        it runnable."""
        with self.lock:
            self.pending.append(loss)
        t0, q0 = time.perf_counter_ns(), planted.runqueue_ns()
        self.ready.set()
        self.taken.wait()
        self.taken.clear()
        return time.perf_counter_ns() - t0, planted.runqueue_ns() - q0

    def learning_rate(self):
        """The learning rate, the ns waited for the lock and the ns of it runnable (planted.runqueue_ns)."""
        t0, q0 = time.perf_counter_ns(), planted.runqueue_ns()
        with self.lock:
            return self.lr, time.perf_counter_ns() - t0, planted.runqueue_ns() - q0


def main():
    extra = argparse.ArgumentParser(add_help=False)
    extra.add_argument("--hold-ms", type=float, default=30.0)
    e, rest = extra.parse_known_args()
    sys.argv[1:] = rest
    a = planted.parse_args(__doc__)
    planted.setup()
    model, opt = planted.model_and_optimizer()
    images = torch.randn(BATCH, 3, planted.SIZE, planted.SIZE)
    shared = Shared(e.hold_ms / 1e3, a.fixed)
    shared.thread.start()
    clock = planted.Clock()
    for k in range(a.steps):
        labels = torch.arange(k * BATCH, (k + 1) * BATCH) % planted.CLASSES
        lr, waited, runqueue = shared.learning_rate()
        clock.add(waited, runqueue)
        for group in opt.param_groups:
            group["lr"] = lr
        loss = torch.nn.functional.cross_entropy(model(images), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        clock.step_done()
        clock.add(*shared.log(loss.item()))
    shared.done = True
    shared.ready.set()
    shared.thread.join()
    if a.truth:
        clock.write(a.truth, "none (the write outside the lock)" if a.fixed else
                    "waiting for a lock held through a %g ms write" % e.hold_ms)
    print("steps: %d" % len(clock.ends))


if __name__ == "__main__":
    main()
