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


ONCE_MAX = 64                       # top-level modules remembered until one runs again (a bound, not a rule)


class Steps:
    """Training (an optimizer exists): a step ends when the step optimizer's step() returns (the first optimizer
    that steps; others, as in a GAN, are inside its steps) and the next one starts there; the first one starts
    at the first fetch after the optimizer was made. Inference (no optimizer): a step runs from one fetch of the
    first loader that fetched to its next fetch; the fetch that ends the epoch (StopIteration) ends the last.
    Neither (a loop that calls a model on data it makes itself): the first top-level module whose forward runs a
    second time marks the steps (a module called once while setting up never does): a step ends when one of its
    outermost forwards returns and the next one starts there; the first one starts at its first forward's start,
    so N calls give N steps. Not in DataLoader workers: their steps are the training process's."""

    def __init__(self):
        self.reset()

    def reset(self):
        self.training = False
        self.opt = None             # weakref to the step optimizer
        self.start = None           # probe ticks
        self.n = 0
        self.loader = None          # inference: number of the loader whose fetches delimit steps
        self.module = None          # neither: weakref to the module whose forwards delimit steps
        self.once = {}              # neither, until one repeats: id(module) -> (weakref, first forward's start, end)
        self.in_worker = False      # a DataLoader worker process: no steps of its own

    def _emit(self, end):
        self.n += 1
        core.p.range(("ProfilerStep#%d" % self.n).encode(), self.start, end)
        cuda_memory(self.n)

    def optimizer_made(self):
        if not self.training:
            self.training = True
            self.start = None
            self.once = {}

    def delimited(self):
        """True when an optimizer or a DataLoader delimits the steps (or this is a worker): forwards never will."""
        return self.training or self.loader is not None or self.in_worker

    def forward_done(self, module, start, end):
        """An outermost forward of `module` ran from `start` to `end` (probe ticks)."""
        if self.delimited():
            return
        if self.module is None:
            seen = self.once.get(id(module))
            if seen is None or seen[0]() is not module:
                if len(self.once) < ONCE_MAX:
                    self.once[id(module)] = (weakref.ref(module), start, end)
                return
            self.module, self.once = seen[0], {}
            self.start = seen[1]
            self._emit(seen[2])             # its first forward, written now that it repeats
            self.start = seen[2]
        elif self.module() is not module:
            return
        if self.start is None:
            self.start = start
        self._emit(end)
        self.start = end

    def fetch(self, loader, t):
        if self.training:
            if self.start is None:
                self.start = t
            return
        if self.loader is None:
            self.loader = loader
            self.start = None       # a step of forwards before it ends with them
            self.once = {}
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
