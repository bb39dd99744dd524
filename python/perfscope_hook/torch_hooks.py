"""The PyTorch side of perfscope's Python hook: wraps a few torch entry points so that each records a range
through the probe (probe.py), named so that `perfscope report`'s default patterns (DESIGN §4) find them:

  enumerate(DataLoader)#<iterator class>.__next__   each fetch in the training process (the PyTorch
                                                    profiler's name); matches --data-range
  ProfilerStep#N                                    each step: optimizer.step to optimizer.step, or fetch to
                                                    fetch of one loader when no optimizer exists (inference)
  Optimizer.step#<class>.step, backward             optimizer step, autograd engine entry
  nn.Module: <class>                                forward of top-level modules (mode "modules")
  copy_to_device                                    Tensor.to / .cuda host-to-device copies; category names
                                                    the source memory and non_blocking, payload = bytes
  <fetcher>.fetch, <Dataset>.__getitem__, <collate> in every process that fetches (DataLoader workers too)

and marks in the NVTX domain "perfscope" with what the report's advice needs: each loader's settings
("DataLoader#1 num_workers=0 pin_memory=0 ..."), each worker's identity, the hook's own configuration.
Every wrapper calls the original whatever happens; a failure in our own code turns the hook off.
"""
import os
import sys
import threading
import weakref

from . import log
from .probe import Probe

DOMAIN = b"perfscope"
# NVTX categories of copy_to_device ranges (named in the trace: eventType 33).
COPY_CATEGORIES = {
    (False, False): (1, b"H2D from pageable memory, blocking"),
    (False, True): (2, b"H2D from pageable memory, non_blocking"),
    (True, False): (3, b"H2D from pinned memory, blocking"),
    (True, True): (4, b"H2D from pinned memory, non_blocking"),
}

_p = None           # the Probe; None: hook off
_names = {}         # str -> bytes kept alive (the probe caches strings by address)


def _b(s):
    b = _names.get(s)
    if b is None:
        b = _names[s] = s.encode("utf-8", "replace")
    return b


def _off(where, e):
    global _p
    if _p is not None:
        _p = None
        log("error in %s (%r): hook off for the rest of this process" % (where, e))


def _pop():
    p = _p
    if p is not None:
        try:
            p.pop()
        except Exception as e:
            _off("pop", e)


class _Steps:
    """ProfilerStep#N ranges, written when each step ends (the probe's range()).
    Training (an optimizer exists): a step ends when the step optimizer's step() returns (the first optimizer
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
        _p.range(("ProfilerStep#%d" % self.n).encode(), self.start, end)

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


_steps = _Steps()
_loader_numbers = weakref.WeakKeyDictionary()
_loader_state = {"next": 1, "current": 0}     # current: the loader whose iterator is being made (workers inherit it)
_worker = {"marked": False}


def _cores():
    try:
        return len(os.sched_getaffinity(0))
    except Exception:
        return os.cpu_count() or 0


def _loader_number(loader):
    try:
        n = _loader_numbers.get(loader)
        if n is None:
            n = _loader_numbers[loader] = _loader_state["next"]
            _loader_state["next"] += 1
        return n
    except TypeError:               # not weak-referenceable
        return 0


def _mark_loader(it, loader, n):
    def flag(v):
        return 1 if v else 0
    ctx = getattr(loader, "multiprocessing_context", None)
    ctx = getattr(ctx, "_name", None) or ("default" if ctx is None else type(ctx).__name__)
    text = ("DataLoader#%d iterator=%s num_workers=%d pin_memory=%d prefetch_factor=%s persistent_workers=%d "
            "batch_size=%s drop_last=%d dataset=%s multiprocessing_context=%s cores=%d cpu_count=%d" % (
                n, type(it).__name__, int(getattr(loader, "num_workers", 0) or 0),
                flag(getattr(loader, "pin_memory", False)), getattr(loader, "prefetch_factor", None),
                flag(getattr(loader, "persistent_workers", False)), getattr(loader, "batch_size", None),
                flag(getattr(loader, "drop_last", False)), type(getattr(loader, "dataset", None)).__name__,
                ctx, _cores(), os.cpu_count() or 0))
    _p.mark(DOMAIN, text.encode("utf-8", "replace"))


def _wrap_iter_init(orig):
    def __init__(self, loader, *args, **kwargs):
        n = 0
        if _p is not None:
            try:
                n = _loader_number(loader)
                _loader_state["current"] = n
            except Exception as e:
                _off("DataLoader iterator", e)
        orig(self, loader, *args, **kwargs)
        if _p is not None:
            try:
                self._perfscope_loader = n
                self._perfscope_name = _b("enumerate(DataLoader)#%s.__next__" % type(self).__name__)
                _mark_loader(self, loader, n)
            except Exception as e:
                _off("DataLoader iterator", e)
    return __init__


def _wrap_next(orig):
    def __next__(self):
        p = _p
        if p is None:
            return orig(self)
        try:
            name = self.__dict__.get("_perfscope_name") or _b("enumerate(DataLoader)#%s.__next__" % type(self).__name__)
            loader = self.__dict__.get("_perfscope_loader", 0)
            t = p.now()
            _steps.fetch(loader, t)
            p.push(name)
        except Exception as e:
            _off("DataLoader fetch", e)
            return orig(self)
        try:
            return orig(self)
        except StopIteration:
            _steps.epoch_end(loader)
            raise
        finally:
            _pop()
    return __next__


# ---- fetching: the main process with num_workers=0, and every worker process ----

def _timed(fn, name):
    def timed(*args, **kwargs):
        p = _p
        if p is None:
            return fn(*args, **kwargs)
        try:
            p.push(name)
        except Exception as e:
            _off(name.decode(), e)
            return fn(*args, **kwargs)
        try:
            return fn(*args, **kwargs)
        finally:
            _pop()
    return timed


class _SampleTimer:
    """Stands in for a map-style dataset inside a fetcher: each dataset[i] is a range; everything else is the
    dataset's own (attribute access, len)."""

    def __init__(self, dataset):
        object.__setattr__(self, "_perfscope_dataset", dataset)
        object.__setattr__(self, "_perfscope_name", _b("%s.__getitem__" % type(dataset).__name__))

    def __getitem__(self, index):
        p = _p
        d = self._perfscope_dataset
        if p is None:
            return d[index]
        try:
            p.push(self._perfscope_name)
        except Exception as e:
            _off("dataset", e)
            return d[index]
        try:
            return d[index]
        finally:
            _pop()

    def __len__(self):
        return len(self._perfscope_dataset)

    def __getattr__(self, attr):
        if attr.startswith("_perfscope"):    # not set yet (a copy or unpickling): never recurse
            raise AttributeError(attr)
        return getattr(self._perfscope_dataset, attr)


def _mark_worker():
    _worker["marked"] = True
    import torch.utils.data
    info = torch.utils.data.get_worker_info()
    if info is None:
        return
    _p.mark(DOMAIN, ("DataLoader worker id=%d num_workers=%d loader=%d" % (
        info.id, info.num_workers, _loader_state["current"])).encode())


def _wrap_fetcher_init(orig, map_style):
    def __init__(self, *args, **kwargs):
        orig(self, *args, **kwargs)
        if _p is None:
            return
        try:
            if not _worker["marked"]:
                _mark_worker()
            cf = self.collate_fn
            self.collate_fn = _timed(cf, _b(getattr(cf, "__qualname__", None) or type(cf).__name__))
            if map_style:
                self.dataset = _SampleTimer(self.dataset)
        except Exception as e:
            _off("fetcher", e)
    return __init__


# ---- training: optimizer steps, backward, copies, modules ----

def _wrap_optimizer_init(orig):
    def __init__(self, *args, **kwargs):
        orig(self, *args, **kwargs)
        if _p is None:
            return
        try:
            _steps.optimizer_made()
            cls = type(self)
            step = cls.__dict__.get("step")
            if step is not None and not getattr(step, "_perfscope", False):
                cls.step = _wrap_step(step, _b("Optimizer.step#%s.step" % cls.__name__))
        except Exception as e:
            _off("optimizer", e)
    return __init__


def _wrap_step(orig, name):
    import functools

    @functools.wraps(orig)
    def step(self, *args, **kwargs):
        p = _p
        if p is None:
            return orig(self, *args, **kwargs)
        try:
            p.push(name)
        except Exception as e:
            _off("optimizer.step", e)
            return orig(self, *args, **kwargs)
        try:
            return orig(self, *args, **kwargs)
        finally:
            _pop()
            try:
                if _p is not None:
                    _steps.optimizer_stepped(self, _p.now())
            except Exception as e:
                _off("optimizer.step", e)
    step._perfscope = True
    return step


def _wrap_copy(orig, torch, is_cuda_call):
    parse_to = torch._C._nn._parse_to
    copy = _b("copy_to_device")

    def target(self, args, kwargs):
        """(non_blocking, bytes) when this call copies host memory to a CUDA device, else None."""
        if self.is_cuda:
            return None
        if is_cuda_call:
            nb = kwargs.get("non_blocking", args[1] if len(args) > 1 else False)
        else:
            device, _dtype, nb, _fmt = parse_to(*args, **kwargs)
            if device is None or device.type != "cuda":
                return None
        return bool(nb), self.element_size() * self.nelement()

    def to(self, *args, **kwargs):
        p = _p
        if p is None:
            return orig(self, *args, **kwargs)
        try:
            t = target(self, args, kwargs)
            if t is None:
                return orig(self, *args, **kwargs)
            try:
                pinned = bool(self.is_pinned())
            except Exception:       # a build without CUDA may not know
                pinned = False
            p.push_attr(copy, COPY_CATEGORIES[(pinned, t[0])][0], t[1])
        except Exception as e:
            _off("Tensor.to", e)
            return orig(self, *args, **kwargs)
        try:
            return orig(self, *args, **kwargs)
        finally:
            _pop()
    to.__name__ = orig.__name__
    to.__doc__ = orig.__doc__
    return to


def _wrap_module_call(orig):
    tl = threading.local()

    def __call__(self, *args, **kwargs):
        p = _p
        if p is None or getattr(tl, "inside", False):
            return orig(self, *args, **kwargs)
        try:
            p.push(_b("nn.Module: %s" % type(self).__name__))
        except Exception as e:
            _off("nn.Module", e)
            return orig(self, *args, **kwargs)
        tl.inside = True
        try:
            return orig(self, *args, **kwargs)
        finally:
            tl.inside = False
            _pop()
    return __call__


def _forked():
    """A forked child (a DataLoader worker) starts with no step of its own and says who it is again."""
    _steps.reset()
    _worker["marked"] = False


def install(torch, mode):
    """Patch torch (already imported) for `mode` ("default" or "modules"). Raises on failure before any patch
    is made; the caller turns the hook off."""
    global _p
    probe = Probe()
    import torch.optim
    import torch.utils.data
    from torch.utils.data import dataloader
    from torch.utils.data._utils import fetch
    it = dataloader._BaseDataLoaderIter
    patches = [
        (it, "__init__", _wrap_iter_init(it.__init__)),
        (it, "__next__", _wrap_next(it.__next__)),
        (fetch._MapDatasetFetcher, "__init__", _wrap_fetcher_init(fetch._MapDatasetFetcher.__init__, True)),
        (fetch._IterableDatasetFetcher, "__init__", _wrap_fetcher_init(fetch._IterableDatasetFetcher.__init__, False)),
        (fetch._MapDatasetFetcher, "fetch", _timed(fetch._MapDatasetFetcher.fetch, b"_MapDatasetFetcher.fetch")),
        (fetch._IterableDatasetFetcher, "fetch",
         _timed(fetch._IterableDatasetFetcher.fetch, b"_IterableDatasetFetcher.fetch")),
        (torch.optim.Optimizer, "__init__", _wrap_optimizer_init(torch.optim.Optimizer.__init__)),
        (torch.autograd, "backward", _timed(torch.autograd.backward, b"backward")),
        (torch.Tensor, "to", _wrap_copy(torch.Tensor.to, torch, False)),
        (torch.Tensor, "cuda", _wrap_copy(torch.Tensor.cuda, torch, True)),
    ]
    if mode == "modules":
        patches.append((torch.nn.Module, "__call__", _wrap_module_call(torch.nn.Module.__call__)))
    _p = probe
    for pinned_nb, (cat, name) in COPY_CATEGORIES.items():
        probe.name_category(cat, name)
    probe.mark(DOMAIN, ("python hook mode=%s torch=%s python=%d.%d.%d cuda_build=%s cores=%d cpu_count=%d" % (
        mode, torch.__version__, sys.version_info[0], sys.version_info[1], sys.version_info[2],
        getattr(torch.version, "cuda", None) or "none", _cores(), os.cpu_count() or 0)).encode())
    for obj, attr, fn in patches:
        setattr(obj, attr, fn)
    os.register_at_fork(after_in_child=_forked)
    log("hooked torch %s (mode %s)" % (torch.__version__, mode))
