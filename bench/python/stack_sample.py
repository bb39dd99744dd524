"""What one Python stack sample of perfscope's hook costs (perfscope_hook/stacks.py), in CPU time of its sampling
thread: run under `perfscope record --python-stack-hz 0` (bench/python/stacks_overhead.sh) with the hook's folder as
the argument. Three threads wait DEPTH frames deep; every location is already defined (the steady state).
  wake_ns      one wake-up of the sampling loop with nothing to sample: the sleep until the sample is due (without the
               GIL), taking the GIL back, the loop's own work (what every sample pays, whatever the threads do)
  walk_ns      one sample reading the three stacks (as for threads that ran since the last sample)
  unchanged_ns one sample of the same three threads that have not run since (their stacks sent again, not read)
Each the median of 15 batches (other jobs on the machine inflate a mean)."""
import sys
import threading
import time

sys.path.insert(0, sys.argv[1])        # the hook's folder (build/probe/python)
from perfscope_hook import stacks     # noqa: E402
from perfscope_hook.probe import Probe  # noqa: E402

DEPTH, THREADS, BATCHES = 30, 3, 15


def nest(k, ev):
    if k == 0:
        ev.wait()
    else:
        nest(k - 1, ev)


def median_ns(fn, n):
    """CPU time of the calling thread per call of fn, median of BATCHES batches of n calls."""
    batches = []
    for _ in range(BATCHES):
        t0 = time.thread_time_ns()
        for _ in range(n):
            fn()
        batches.append((time.thread_time_ns() - t0) // n)
    return sorted(batches)[BATCHES // 2]


ev = threading.Event()
ts = [threading.Thread(target=nest, args=(DEPTH, ev)) for _ in range(THREADS)]
for t in ts:
    t.start()
time.sleep(0.1)
p = Probe()
s = stacks._Sampler(p, stacks.DEFAULT_HZ)
s.me = threading.get_ident()           # the caller stands in for the sampling thread
for _ in range(100):
    s._sample()


def walk():
    s.last = {}                         # as if every thread had run
    s._sample()


shorten = stacks._switch_setter()


def wake():
    saved = sys.getswitchinterval()
    p.sleep_until(time.monotonic_ns() + 1000000, shorten, stacks.SWITCH_US)   # 1 ms: a sample due
    if sys.getswitchinterval() == stacks.SWITCH_US / 1e6:
        sys.setswitchinterval(saved)


out = {"walk_ns": median_ns(walk, 500), "unchanged_ns": median_ns(s._sample, 500), "wake_ns": median_ns(wake, 40)}
ev.set()
for t in ts:
    t.join()
for k, v in out.items():
    print("%s=%d (%d threads %d frames deep)" % (k, v, THREADS, DEPTH + 2))
