"""ProfilerStep#N ranges of perfscope's Python hook (docs/python.md), written when each step ends through the
probe's range()."""
import weakref

from . import core


class Steps:
    """Training (an optimizer exists): a step ends when the step optimizer's step() returns (the first optimizer
    that steps; others, as in a GAN, are inside its steps) and the next one starts there; the first one starts
    at the first fetch after the optimizer was made. Inference (no optimizer): a step runs from one fetch of the
    first loader that fetched to its next fetch; the fetch that ends the epoch (StopIteration) ends the last."""

    def __init__(self):
        self.on_step = None         # called after each step's range (mode "shapes": torch_hooks.py)
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
        if self.on_step is not None:
            self.on_step()

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
