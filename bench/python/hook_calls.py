"""Cost of one push + pop pair through the probe's PerfscopeHookApi from Python (ctypes), as perfscope's hook
makes them: run under `perfscope record` (bench/python/run.sh). Prints ns per pair over 200000 pairs."""
import sys
import time

sys.path.insert(0, sys.argv[1])        # the hook's folder (build/probe/python)
from perfscope_hook.probe import Probe  # noqa: E402

p = Probe()
name = b"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"
push, pop = p.push, p.pop
n = 200000
for _ in range(1000):
    push(name)
    pop()
t = time.perf_counter_ns()
for _ in range(n):
    push(name)
    pop()
print("ns_per_push_pop=%d" % ((time.perf_counter_ns() - t) // n))
