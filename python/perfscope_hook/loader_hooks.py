"""The DataLoader side of perfscope's Python hook (docs/python.md): in the training process each iter(loader),
each iterator made and each batch taken; in every process that fetches (the training process with
num_workers=0, each worker otherwise) each fetch, sample and collation; in each worker who it is and which
iterator and training process started it, whatever the start method (fork, spawn, forkserver).

A worker links to its iterator by the iterator's base seed (torch hands it to every worker: `_worker_loop`'s
base_seed, WorkerInfo.seed - id) and to the training process by the pid multiprocessing recorded when the
worker's Process object was made there (multiprocessing.parent_process(): a forkserver worker's parent process
is the fork server, but its Process object, made in the training process, says who made it).
"""
import functools
import inspect
import multiprocessing
import os
import weakref

from . import core, stacks
from .steps import steps

ITER_RANGE = b"enumerate(DataLoader)#DataLoader.__iter__"

_loader_numbers = weakref.WeakKeyDictionary()   # DataLoader -> N (DataLoader#N), in the order first iterated
_epochs = weakref.WeakKeyDictionary()           # DataLoader -> iter() calls so far
# The training process's latest iterator: its loader, its id, and the pid they belong to. A worker forked from
# the training process inherits them; one forked from a fork server or spawned does not (pid differs).
_made = {"next_loader": 1, "next_iterator": 1, "loader": 0, "iterator": 0, "pid": None}
_worker = {"marked": False}


def forked():
    """In a forked child: it has not said who it is yet (a worker's mark is its own)."""
    _worker["marked"] = False


def _loader_number(loader):
    try:
        n = _loader_numbers.get(loader)
        if n is None:
            n = _loader_numbers[loader] = _made["next_loader"]
            _made["next_loader"] += 1
        return n
    except TypeError:               # not weak-referenceable
        return 0


def _start_method(loader):
    """How this loader's workers start: its multiprocessing_context's method, else the process default
    (read without fixing it: multiprocessing.get_start_method() with no argument would)."""
    ctx = getattr(loader, "multiprocessing_context", None)
    name = getattr(ctx, "_name", None)
    if name:
        return name
    return multiprocessing.get_start_method(allow_none=True) or multiprocessing.get_all_start_methods()[0]


def _mark_loader(it, loader, n, it_id):
    import torch
    workers = int(getattr(loader, "num_workers", 0) or 0)
    ctx = getattr(loader, "multiprocessing_context", None)
    ctx = getattr(ctx, "_name", None) or ("default" if ctx is None else type(ctx).__name__)
    intra, inter = core.threads(torch)
    core.mark("DataLoader#%d" % n, [
        ("iterator", type(it).__name__), ("num_workers", workers),
        ("pin_memory", bool(getattr(loader, "pin_memory", False))),
        ("prefetch_factor", getattr(loader, "prefetch_factor", None)),
        ("persistent_workers", bool(getattr(loader, "persistent_workers", False))),
        ("batch_size", getattr(loader, "batch_size", None)), ("drop_last", bool(getattr(loader, "drop_last", False))),
        ("dataset", type(getattr(loader, "dataset", None)).__name__), ("multiprocessing_context", ctx),
        ("cores", core.cores()), ("cpu_count", os.cpu_count() or 0), ("iterator_id", it_id),
        ("start_method", _start_method(loader) if workers > 0 else None),
        ("base_seed", getattr(it, "_base_seed", None) if workers > 0 else None),
        ("intra_op_threads", intra), ("interop_threads", inter)])


def _wrap_iter_init(orig):
    def __init__(self, loader, *args, **kwargs):
        n = it_id = 0
        if core.p is not None:
            try:
                n = _loader_number(loader)
                it_id = _made["next_iterator"]
                _made.update(next_iterator=it_id + 1, loader=n, iterator=it_id, pid=os.getpid())
            except Exception as e:
                core.off("DataLoader iterator", e)
        orig(self, loader, *args, **kwargs)
        if core.p is not None:
            try:
                self._perfscope_loader = n
                self._perfscope_iterator = it_id
                self._perfscope_name = core.b("enumerate(DataLoader)#%s.__next__" % type(self).__name__)
                _mark_loader(self, loader, n, it_id)
            except Exception as e:
                core.off("DataLoader iterator", e)
    return __init__


def _mark_epoch(loader, it, first_new_id):
    e = _epochs.get(loader, 0) + 1
    _epochs[loader] = e
    it_id = getattr(it, "_perfscope_iterator", None)
    new = it_id is not None and it_id >= first_new_id
    pids = [w.pid for w in getattr(it, "_workers", ())] if new else []
    core.mark("DataLoader epoch", [
        ("loader", _loader_number(loader)), ("epoch", e), ("iterator_id", it_id), ("new_iterator", new),
        ("workers_started", len(pids)), ("worker_pids", ",".join(str(p) for p in pids) or None)])


def _wrap_loader_iter(orig):
    """DataLoader.__iter__: each epoch's iter(loader). With workers, a range around it (it starts the workers,
    or resumes persistent ones); then the `DataLoader epoch` mark."""
    @functools.wraps(orig)
    def __iter__(self):
        p = core.p
        if p is None:
            return orig(self)
        try:
            ranged = int(getattr(self, "num_workers", 0) or 0) > 0
            first_new_id = _made["next_iterator"]
            if ranged:
                p.push(ITER_RANGE)
        except Exception as e:
            core.off("DataLoader.__iter__", e)
            return orig(self)
        try:
            it = orig(self)
        finally:
            if ranged:
                core.pop()
        if core.p is not None:
            try:
                _mark_epoch(self, it, first_new_id)
            except Exception as e:
                core.off("DataLoader.__iter__", e)
        return it
    return __iter__


def _wrap_next(orig):
    def __next__(self):
        p = core.p
        if p is None:
            return orig(self)
        try:
            d = self.__dict__
            name = d.get("_perfscope_name") or core.b("enumerate(DataLoader)#%s.__next__" % type(self).__name__)
            loader = d.get("_perfscope_loader", 0)
            t = p.now()
            steps.fetch(loader, t)
            p.push_attr(name, 0, d.get("_perfscope_iterator", -1))
        except Exception as e:
            core.off("DataLoader fetch", e)
            return orig(self)
        try:
            return orig(self)
        except StopIteration:
            steps.epoch_end(loader)
            raise
        finally:
            core.pop()
    return __next__


# ---- fetching: the main process with num_workers=0, and every worker process ----

def timed(fn, name):
    """fn, recorded as a range named `name` (bytes) whenever the hook is on."""
    def timed(*args, **kwargs):
        p = core.p
        if p is None:
            return fn(*args, **kwargs)
        try:
            p.push(name)
        except Exception as e:
            core.off(name.decode(), e)
            return fn(*args, **kwargs)
        try:
            return fn(*args, **kwargs)
        finally:
            core.pop()
    return timed


class _SampleTimer:
    """Stands in for a map-style dataset inside a fetcher: each dataset[i] is a range; everything else is the
    dataset's own (attribute access, len)."""

    def __init__(self, dataset):
        object.__setattr__(self, "_perfscope_dataset", dataset)
        object.__setattr__(self, "_perfscope_name", core.b("%s.__getitem__" % type(dataset).__name__))

    def __getitem__(self, index):
        p = core.p
        d = self._perfscope_dataset
        if p is None:
            return d[index]
        try:
            p.push(self._perfscope_name)
        except Exception as e:
            core.off("dataset", e)
            return d[index]
        try:
            return d[index]
        finally:
            core.pop()

    def __len__(self):
        return len(self._perfscope_dataset)

    def __getattr__(self, attr):
        if attr.startswith("_perfscope"):    # not set yet (a copy or unpickling): never recurse
            raise AttributeError(attr)
        return getattr(self._perfscope_dataset, attr)


def _mark_worker(worker_id, num_workers, base_seed):
    """The `DataLoader worker` mark: who this worker is and what started it."""
    _worker["marked"] = True
    steps.in_worker = True
    me = multiprocessing.current_process()
    parent = multiprocessing.parent_process()
    training_pid = parent.pid if parent is not None else getattr(me, "_parent_pid", None)
    method = (getattr(me, "_start_method", None) or multiprocessing.get_start_method(allow_none=True) or
              multiprocessing.get_all_start_methods()[0])
    inherited = _made["pid"] is not None and _made["pid"] == training_pid   # forked from the training process
    core.mark("DataLoader worker", [
        ("id", worker_id), ("num_workers", num_workers),
        ("loader", _made["loader"] if inherited else None), ("iterator_id", _made["iterator"] if inherited else None),
        ("base_seed", base_seed), ("training_pid", training_pid), ("start_method", method)])


_WORKER_LOOP_ARGS = ("dataset_kind", "dataset", "index_queue", "data_queue", "done_event", "auto_collation",
                     "collate_fn", "drop_last", "base_seed", "init_fn", "worker_id", "num_workers")


def _wrap_worker_loop(orig):
    """torch.utils.data._utils.worker._worker_loop, the target of every worker process: marks the worker when
    its loop starts (torch imported, arguments unpickled) and records the user's worker_init_fn as a range.
    Same module and name as the original (functools.wraps), so spawn and forkserver pickle it by reference and
    a worker without the hook runs torch's own. None when its parameters are not the ones this reads."""
    if tuple(inspect.signature(orig).parameters)[:len(_WORKER_LOOP_ARGS)] != _WORKER_LOOP_ARGS:
        return None
    seed_at, init_at, id_at, n_at = (_WORKER_LOOP_ARGS.index(k) for k in ("base_seed", "init_fn", "worker_id",
                                                                           "num_workers"))

    @functools.wraps(orig)
    def _worker_loop(*args, **kwargs):
        if core.p is not None and len(args) > n_at:
            try:
                _mark_worker(args[id_at], args[n_at], args[seed_at])
                init = args[init_at]
                if init is not None:
                    name = getattr(init, "__qualname__", None) or type(init).__name__
                    args = args[:init_at] + (timed(init, core.b("worker_init_fn#" + name)),) + args[init_at + 1:]
            except Exception as e:
                core.off("DataLoader worker", e)
        try:
            return orig(*args, **kwargs)
        finally:
            stacks.stop()           # the worker's process ends with os._exit: no atexit
    return _worker_loop


def _mark_worker_from_info():
    """The worker mark when _worker_loop was not ours (a torch whose loop this hook does not know)."""
    import torch.utils.data
    info = torch.utils.data.get_worker_info()
    if info is None:
        _worker["marked"] = True    # the training process fetching itself (num_workers=0)
        return
    _mark_worker(info.id, info.num_workers, info.seed - info.id)


def _wrap_fetcher_init(orig, map_style):
    def __init__(self, *args, **kwargs):
        orig(self, *args, **kwargs)
        if core.p is None:
            return
        try:
            if not _worker["marked"]:
                _mark_worker_from_info()
            cf = self.collate_fn
            self.collate_fn = timed(cf, core.b(getattr(cf, "__qualname__", None) or type(cf).__name__))
            if map_style:
                self.dataset = _SampleTimer(self.dataset)
        except Exception as e:
            core.off("fetcher", e)
    return __init__


def patches(torch):
    """(object, attribute, replacement) for every DataLoader entry point the hook wraps."""
    from torch.utils.data import dataloader
    from torch.utils.data._utils import fetch, worker
    it = dataloader._BaseDataLoaderIter
    out = [
        (dataloader.DataLoader, "__iter__", _wrap_loader_iter(dataloader.DataLoader.__iter__)),
        (it, "__init__", _wrap_iter_init(it.__init__)),
        (it, "__next__", _wrap_next(it.__next__)),
        (fetch._MapDatasetFetcher, "__init__", _wrap_fetcher_init(fetch._MapDatasetFetcher.__init__, True)),
        (fetch._IterableDatasetFetcher, "__init__",
         _wrap_fetcher_init(fetch._IterableDatasetFetcher.__init__, False)),
        (fetch._MapDatasetFetcher, "fetch", timed(fetch._MapDatasetFetcher.fetch, b"_MapDatasetFetcher.fetch")),
        (fetch._IterableDatasetFetcher, "fetch",
         timed(fetch._IterableDatasetFetcher.fetch, b"_IterableDatasetFetcher.fetch")),
    ]
    loop = _wrap_worker_loop(worker._worker_loop)
    if loop is not None:
        out.append((worker, "_worker_loop", loop))
    return out
