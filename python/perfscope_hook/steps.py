"""ProfilerStep#N ranges of perfscope's Python hook (docs/python.md), written when each step ends through the
probe's range()."""
import sys
import weakref

from . import core


def cuda_memory(step):
    """A `cuda memory` mark per CUDA device this process has used, at a step boundary: the caching allocator's
    allocated and reserved bytes now and their peaks since the program started (never reset: the program's own
    numbers stay). Only when CUDA is already initialised (the call initialises nothing); one
    memory_stats_as_nested_dict per device, no flattening (docs/python.md "Cost")."""
    torch = sys.modules.get("torch")
    cuda = getattr(torch, "cuda", None) if torch is not None else None
    try:
        if cuda is None or not cuda.is_initialized():
            return
        for d in range(cuda.device_count()):
            s = cuda.memory_stats_as_nested_dict(d)
            a = (s.get("allocated_bytes") or {}).get("all") or {}
            r = (s.get("reserved_bytes") or {}).get("all") or {}
            if not a.get("peak") and not r.get("peak"):
                continue                    # a device this process never allocated on
            core.mark("cuda memory", [("step", step), ("device", d), ("allocated", a.get("current")),
                                      ("reserved", r.get("current")), ("max_allocated", a.get("peak")),
                                      ("max_reserved", r.get("peak")), ("alloc_retries", s.get("num_alloc_retries")),
                                      ("ooms", s.get("num_ooms"))])
    except Exception as e:                  # a torch without these calls: no marks, the rest goes on
        core.log_once("cuda memory statistics not recorded: %r" % (e,))


class Steps:
    """Training (an optimizer exists): a step ends when the step optimizer's step() returns (the first optimizer
    that steps; others, as in a GAN, are inside its steps) and the next one starts there; the first one starts
    at the first fetch after the optimizer was made. Inference (no optimizer): a step runs from one fetch of the
    first loader that fetched to its next fetch; the fetch that ends the epoch (StopIteration) ends the last."""

    def __init__(self):
        self.reset()

    def reset(self):
        self.training = False
        self.opt = None             # weakref to the step optimizer
        self.start = None           # probe ticks
        self.n = 0
        self.loader = None          # inference: number of the loader whose fetches delimit steps

    def _emit(self, end):
        self.n += 1
        core.p.range(("ProfilerStep#%d" % self.n).encode(), self.start, end)
        cuda_memory(self.n)

    def optimizer_made(self):
        if not self.training:
            self.training = True
            self.start = None

    def fetch(self, loader, t):
        if self.training:
            if self.start is None:
                self.start = t
            return
        if self.loader is None:
            self.loader = loader
        if loader != self.loader:
            return
        if self.start is not None:
            self._emit(t)
        self.start = t

    def epoch_end(self, loader):
        if not self.training and loader == self.loader:
            self.start = None

    def optimizer_stepped(self, opt, t):
        if self.opt is None:
            self.opt = weakref.ref(opt)
        elif self.opt() is not opt:
            return
        if self.start is not None:
            self._emit(t)
        self.start = t


steps = Steps()
