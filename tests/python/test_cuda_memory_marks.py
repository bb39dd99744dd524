#!/usr/bin/env python3
"""The hook's `cuda memory` marks (python/perfscope_hook/steps.py cuda_memory; docs/python.md) against a stand-in
torch.cuda with known allocator statistics: one mark per device the program used, with the current and peak figures
the statistics hold; none while CUDA is not initialised (the call must not initialise it) and none for a device
never allocated on. Runs without torch and without a GPU."""
import os
import sys
import types

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from perfscope_hook import core, steps  # noqa: E402


class Probe:
    def __init__(self):
        self.marks = []

    def mark(self, domain, text):
        self.marks.append(text.decode())


def stats(alloc, alloc_peak, res, res_peak):
    return {"allocated_bytes": {"all": {"current": alloc, "peak": alloc_peak}},
            "reserved_bytes": {"all": {"current": res, "peak": res_peak}}, "num_alloc_retries": 0, "num_ooms": 0}


calls = []
cuda = types.SimpleNamespace(initialized=False, device_count=lambda: 2)
cuda.is_initialized = lambda: cuda.initialized
per_device = {0: stats(1024, 4096, 8192, 8192), 1: stats(0, 0, 0, 0)}   # device 1: never used


def nested(d):
    calls.append(d)
    return per_device[d]


cuda.memory_stats_as_nested_dict = nested
sys.modules["torch"] = types.SimpleNamespace(cuda=cuda)
core.p = Probe()
fails = 0


def check(what, ok):
    global fails
    fails += not ok
    print("%s %s" % ("ok  " if ok else "FAIL", what))


steps.cuda_memory(1)
check("no mark and no statistics call while CUDA is not initialised", core.p.marks == [] and calls == [])
cuda.initialized = True
steps.cuda_memory(2)
check("one mark: device 0 only (device 1 never allocated)", len(core.p.marks) == 1)
want = "cuda memory step=2 device=0 allocated=1024 reserved=8192 max_allocated=4096 max_reserved=8192 " \
       "alloc_retries=0 ooms=0"
check("the mark's text: %r" % (core.p.marks[:1],), core.p.marks[:1] == [want])
cuda.memory_stats_as_nested_dict = None     # a torch without the call: no mark, no exception, the hook stays on
steps.cuda_memory(3)
check("a failing call leaves the hook on", core.p is not None and len(core.p.marks) == 1)
sys.exit(1 if fails else 0)
