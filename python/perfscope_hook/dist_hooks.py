"""The torch.distributed side of perfscope's Python hook (docs/python.md "Distributed"): each collective and
point-to-point call made from Python is a range named as the PyTorch profiler names the backend's work
(`gloo:all_reduce`, `nccl:_all_gather_base`, ...; payload = bytes) preceded by a `collective` mark with its
details; each Work.wait() called from Python is a range `Work.wait#<that name>` whose payload is the collective's
id; DistributedDataParallel's gradient synchronisation, which its C++ reducer issues and waits for inside
backward, is written from the reducer's own timer (`ddp:gradient_allreduce`, `ddp:gradient_allreduce_wait`);
each process says its rank once its default process group exists (`distributed` mark).
"""
import functools
import inspect
import os
import threading
import weakref

from . import core

_tl = threading.local()     # .inside: a recorded call runs on this thread; .current: its (id, wait name)
_works = weakref.WeakKeyDictionary()    # Work returned by a recorded call -> (id, wait range name)
_ids = {"next": 1}
_groups = weakref.WeakKeyDictionary()   # ProcessGroup -> [name, backend, calls so far]
_ddp = weakref.WeakKeyDictionary()      # DistributedDataParallel -> CLOCK_REALTIME end of its last written sync
_ddp_timed = weakref.WeakSet()          # DDP modules whose reducer times every iteration (CPU)
_static = {}        # (op, group name, async, dtype, peer) -> (mark format, range name, wait range name)
_ddp_on = [True]    # False once reading DDP's internals failed: its ranges stop, the rest of the hook goes on
UNKNOWN_WAIT = b"Work.wait"
DDP_ALLREDUCE = b"ddp:gradient_allreduce"
DDP_WAIT = b"ddp:gradient_allreduce_wait"


def _ddp_off(where, e):
    if _ddp_on[0]:
        _ddp_on[0] = False
        core.log("cannot read DistributedDataParallel in %s (%r): its gradient sync is not recorded" % (where, e))


def _nbytes(t):
    return t.numel() * t.element_size()


def _total(tensors):
    return sum(_nbytes(t) for t in tensors) if tensors else 0


def _nested_total(lists):
    return sum(_total(ts) for ts in lists) if lists else 0


# op -> (parameter names this reads: tensors in, tensors out, group, async_op, peer or root; input bytes,
#        output bytes, (gloo name, nccl name) of the work as the PyTorch profiler records it).
# Bytes are of this rank's call: tensors are numel x element size, summed over lists; an in-place op's tensor is
# both its input and its output. A None parameter name: the op has no such argument. Names were read from torch 1.13's profiler on gloo (workloads/pytorch and
# docs/python.md say how); the nccl ones are ProcessGroupNCCL's profiling titles.
def _one(x):
    return _nbytes(x) if x is not None else 0


_OPS = {
    "all_reduce": (("tensor", "tensor", "group", "async_op", None), _one, _one, ("all_reduce", "all_reduce")),
    "all_reduce_coalesced": (("tensors", "tensors", "group", "async_op", None), _total, _total,
                             ("all_reduce", "all_reduce")),
    "all_gather": (("tensor", "tensor_list", "group", "async_op", None), _one, _total, ("all_gather", "all_gather")),
    "all_gather_into_tensor": (("input_tensor", "output_tensor", "group", "async_op", None), _one, _one,
                               ("all_gather", "_all_gather_base")),
    "_all_gather_base": (("input_tensor", "output_tensor", "group", "async_op", None), _one, _one,
                         ("all_gather", "_all_gather_base")),
    "all_gather_coalesced": (("input_tensor_list", "output_tensor_lists", "group", "async_op", None), _total,
                             _nested_total, ("all_gather", "all_gather")),
    "reduce_scatter": (("input_list", "output", "group", "async_op", None), _total, _one,
                       ("reduce_scatter", "reduce_scatter")),
    "reduce_scatter_tensor": (("input", "output", "group", "async_op", None), _one, _one,
                              ("reduce_scatter", "_reduce_scatter_base")),
    "_reduce_scatter_base": (("input", "output", "group", "async_op", None), _one, _one,
                             ("reduce_scatter", "_reduce_scatter_base")),
    "broadcast": (("tensor", "tensor", "group", "async_op", "src"), _one, _one, ("broadcast", "broadcast")),
    "reduce": (("tensor", "tensor", "group", "async_op", "dst"), _one, _one, ("reduce", "reduce")),
    "gather": (("tensor", "gather_list", "group", "async_op", "dst"), _one, _total, ("gather", "gather")),
    "scatter": (("scatter_list", "tensor", "group", "async_op", "src"), _total, _one, ("scatter", "scatter")),
    "all_to_all_single": (("input", "output", "group", "async_op", None), _one, _one, ("all_to_all", "all_to_all")),
    "all_to_all": (("input_tensor_list", "output_tensor_list", "group", "async_op", None), _total, _total,
                   ("all_to_all", "all_to_all")),
    "barrier": ((None, None, "group", "async_op", None), None, None, ("barrier", "all_reduce")),
    "send": (("tensor", None, "group", None, "dst"), _one, None, ("send", "send")),
    "recv": ((None, "tensor", "group", None, "src"), None, _one, ("recv", "recv")),
    "isend": (("tensor", None, "group", None, "dst"), _one, None, ("send", "send")),
    "irecv": ((None, "tensor", "group", None, "src"), None, _one, ("recv", "recv")),
}
_ALWAYS_ASYNC = ("isend", "irecv")
_POINT_TO_POINT = ("send", "recv", "isend", "irecv")


def _group_of(c10d, group):
    """The process group a call runs on, or None when this rank is not in it (torch then returns at once).
    Raises when there is no default group yet (torch raises too)."""
    if group is None:
        return c10d._get_default_group()
    return None if c10d._rank_not_in_group(group) else group


def _group(c10d, pg):
    """[name, backend, calls] of process group `pg`; marks it the first time (`process group`)."""
    g = _groups.get(pg)
    if g is not None:
        return g
    name = getattr(c10d, "_pg_names", {}).get(pg)
    backend = (getattr(c10d, "_pg_map", {}).get(pg) or ("unknown",))[0]
    ranks = sorted(getattr(c10d, "_pg_group_ranks", {}).get(pg) or ())
    g = _groups[pg] = [name if name not in (None, "") else "%x" % id(pg), str(backend).lower(), 0]
    core.mark("process group", [("pg", g[0]), ("backend", g[1]), ("size", pg.size()), ("rank", pg.rank()),
                                ("ranks", _runs(ranks) if ranks else None)])
    return g


def _runs(ranks):
    """Sorted ints as runs: [0, 1, 2, 5, 7, 8] -> "0-2,5,7-8" (a group of 1024 ranks fits in a mark)."""
    out, i = [], 0
    while i < len(ranks):
        j = i
        while j + 1 < len(ranks) and ranks[j + 1] == ranks[j] + 1:
            j += 1
        out.append(str(ranks[i]) if i == j else "%d-%d" % (ranks[i], ranks[j]))
        i = j + 1
    return ",".join(out)


def _dtype(t):
    if isinstance(t, (list, tuple)):
        t = t[0] if t else None
        if isinstance(t, (list, tuple)):
            t = t[0] if t else None
    return str(t.dtype).replace("torch.", "") if t is not None and hasattr(t, "dtype") else None


class _Call:
    """Reads one op's arguments by parameter name (bound once per op from its signature)."""

    def __init__(self, op, fn):
        (self.tin, self.tout, self.group, self.async_op, self.peer), self.fin, self.fout, self.names = _OPS[op]
        self.op = op
        params = list(inspect.signature(fn).parameters)
        self.pos = {}
        for k in (self.tin, self.tout, self.group, self.async_op, self.peer):
            if k is not None:
                if k not in params:
                    raise TypeError("%s has no parameter %s" % (op, k))
                self.pos[k] = params.index(k)
        self.defaults = {k: v.default for k, v in inspect.signature(fn).parameters.items()
                         if v.default is not inspect.Parameter.empty}

    def arg(self, k, args, kwargs):
        if k is None:
            return None
        i = self.pos[k]
        if i < len(args):
            return args[i]
        return kwargs.get(k, self.defaults.get(k))


def _describe(c10d, call, args, kwargs):
    """(range name, wait name, id, bytes) of a call about to run, after its `collective` mark; None when it
    is not recorded (no default group yet, or this rank is not in the group: torch returns at once)."""
    pg = _group_of(c10d, call.arg(call.group, args, kwargs))
    if pg is None:
        return None
    g = _group(c10d, pg)
    tin, tout = call.arg(call.tin, args, kwargs), call.arg(call.tout, args, kwargs)
    nin = call.fin(tin) if call.fin else 0
    nout = call.fout(tout) if call.fout else 0
    is_async = call.op in _ALWAYS_ASYNC or bool(call.arg(call.async_op, args, kwargs))
    peer = call.arg(call.peer, args, kwargs)
    key = (call.op, g[0], is_async, _dtype(tin if tin is not None else tout), peer)
    static = _static.get(key)
    if static is None:      # the mark's text but its numbers, and the range names: made once per kind of call
        profiler_op = call.names[1] if g[1] == "nccl" else call.names[0]
        text = "collective id=%d seq=%d bytes=%d in_bytes=%d out_bytes=%d" + core.kv("", [
            ("op", call.op), ("backend", g[1]), ("pg", g[0]), ("async", is_async), ("dtype", key[3]),
            ("peer" if call.op in _POINT_TO_POINT else "root", peer)]).replace("%", "%%")
        static = _static[key] = (text, core.b("%s:%s" % (g[1], profiler_op)),
                                 core.b("Work.wait#%s:%s" % (g[1], profiler_op)))
    cid = _ids["next"]
    _ids["next"] = cid + 1
    g[2] += 1
    nbytes = max(nin, nout)
    core.p.mark(core.DOMAIN, (static[0] % (cid, g[2], nbytes, nin, nout)).encode())
    return static[1], static[2], cid, nbytes


def _wrap_collective(c10d, op, orig):
    call = _Call(op, orig)

    @functools.wraps(orig)
    def collective(*args, **kwargs):
        p = core.p
        if p is None or getattr(_tl, "inside", False):
            return orig(*args, **kwargs)
        try:
            what = _describe(c10d, call, args, kwargs)
        except Exception as e:      # a call torch will refuse (no process group yet, bad arguments): left to it
            core.log_once("cannot describe %s (%r): not recorded" % (op, e))
            what = None
        if what is None:
            return orig(*args, **kwargs)
        name, wait_name, cid, nbytes = what
        try:
            p.push_attr(name, 0, nbytes)
        except Exception as e:
            core.off(op, e)
            return orig(*args, **kwargs)
        _tl.inside, _tl.current = True, (cid, wait_name)
        try:
            work = orig(*args, **kwargs)
        finally:
            _tl.inside, _tl.current = False, None
            core.pop()
        if work is not None and core.p is not None:
            try:
                _works[work] = (cid, wait_name)
            except TypeError:       # a Work that cannot be weakly referenced: its wait is `Work.wait`
                pass
        return work
    return collective


def _wrap_broadcast_coalesced(orig):
    """dist._broadcast_coalesced(process_group, tensors, buffer_size, src), which DistributedDataParallel calls
    to broadcast its parameters at construction and its buffers before each forward (C++: no signature)."""
    @functools.wraps(orig)
    def _broadcast_coalesced(*args, **kwargs):
        p = core.p
        if p is None or getattr(_tl, "inside", False) or len(args) < 2 or kwargs:
            return orig(*args, **kwargs)
        try:
            g = _group(_c10d(), args[0])
            nbytes = _total(args[1])
            cid = _ids["next"]
            _ids["next"] = cid + 1
            g[2] += 1
            core.mark("collective", [("id", cid), ("op", "broadcast_coalesced"), ("backend", g[1]), ("pg", g[0]),
                                     ("seq", g[2]), ("bytes", nbytes), ("in_bytes", nbytes), ("out_bytes", nbytes),
                                     ("async", False), ("dtype", _dtype(args[1])),
                                     ("root", args[3] if len(args) > 3 else 0)])
            name = core.b("%s:broadcast" % g[1])
            p.push_attr(name, 0, nbytes)
        except Exception as e:
            core.off("_broadcast_coalesced", e)
            return orig(*args, **kwargs)
        _tl.inside, _tl.current = True, (cid, core.b("Work.wait#%s:broadcast" % g[1]))
        try:
            return orig(*args, **kwargs)
        finally:
            _tl.inside, _tl.current = False, None
            core.pop()
    return _broadcast_coalesced


def _wrap_wait(orig):
    def wait(self, *args, **kwargs):
        p = core.p
        if p is None:
            return orig(self, *args, **kwargs)
        try:
            link = _works.get(self) or getattr(_tl, "current", None)
            p.push_attr(link[1] if link else UNKNOWN_WAIT, 0, link[0] if link else -1)
        except Exception as e:
            core.off("Work.wait", e)
            return orig(self, *args, **kwargs)
        try:
            return orig(self, *args, **kwargs)
        finally:
            core.pop()
    wait.__name__ = "wait"
    wait.__doc__ = getattr(orig, "__doc__", None)
    wait.__wrapped__ = orig
    return wait


def _c10d():
    import torch.distributed.distributed_c10d as c10d
    return c10d


def _mark_rank(c10d):
    """The `distributed` mark: this process's rank, once its default process group exists."""
    pg = c10d._get_default_group()
    g = _group(c10d, pg)
    local = None
    for k in ("LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"):
        local = core.env_int(k)
        if local is not None:
            break
    core.mark("distributed", [("rank", pg.rank()), ("world_size", pg.size()), ("local_rank", local),
                              ("backend", g[1]), ("pg", g[0]), ("pid", os.getpid())])


def _wrap_init(c10d, orig):
    @functools.wraps(orig)
    def init_process_group(*args, **kwargs):
        r = orig(*args, **kwargs)
        if core.p is not None:
            try:
                _mark_rank(c10d)
            except Exception as e:
                core.log_once("cannot mark the rank (%r)" % (e,))
        return r
    return init_process_group


# ---- DistributedDataParallel: the reducer's allreduces, seen through its own timer ----

def _ddp_made(ddp):
    """At construction: the `DDP` mark, and on CPU modules the reducer's timer on every iteration (DDP's
    default samples iterations 1-10 and every 100th; on CUDA its timer synchronises on events, so the default
    is left alone there)."""
    params = [q for q in ddp.module.parameters() if q.requires_grad]
    device = getattr(ddp, "device_type", None) or (params[0].device.type if params else "cpu")
    every = None
    if device == "cpu":
        ddp.reducer._set_ddp_runtime_logging_sample_rate(1)
        every = 1
        _ddp_timed.add(ddp)
    g = _group(_c10d(), ddp.process_group)
    core.mark("DDP", [("module", type(ddp.module).__name__), ("pg", g[0]), ("backend", g[1]), ("device", device),
                      ("gradient_bytes", _total(params)), ("bucket_cap_bytes", getattr(ddp, "bucket_bytes_cap", None)),
                      ("find_unused_parameters", bool(getattr(ddp, "find_unused_parameters", False))),
                      ("timer_every", every)])
    _ddp[ddp] = 0


def _ddp_sync(ddp):
    """After a forward: the previous iteration's gradient synchronisation, when DDP's reducer timed it (it
    computes an iteration's timings at the start of the next forward). Its timestamps are CLOCK_REALTIME ns."""
    last = _ddp.get(ddp)
    if last is None:
        return
    d = ddp.logger._get_ddp_logging_data().ints_map
    start, end = d.get("backward_comm_time_start", -1), d.get("backward_comm_time_end", -1)
    compute_end = d.get("backward_compute_time_end", -1)
    if start <= 0 or end <= start or end == last or compute_end <= 0:
        return
    t = core.clock.ticks([start, end, max(start, compute_end)])
    if t is None:
        return
    _ddp[ddp] = end
    core.p.range(DDP_ALLREDUCE, t[0], t[1])
    if t[2] < t[1]:
        core.p.range(DDP_WAIT, t[2], t[1])


def _first_grad_tensor(out):
    """The first tensor in a forward's output (a tensor, or one in a tuple, list or dict) that backward will
    reach; None when there is none."""
    import torch
    items = out.values() if isinstance(out, dict) else out if isinstance(out, (tuple, list)) else (out,)
    for t in items:
        if isinstance(t, torch.Tensor) and t.requires_grad:
            return t
    return None


def _at_end_of_backward(ddp, out):
    """Write this iteration's gradient synchronisation once its backward is done, rather than at the next
    forward (which the last iteration never has). DDP queues its own end-of-backward callback on the autograd
    engine (the one that waits for the bucket allreduces and stops its timer) when its last bucket is ready, late
    in backward. A hook on the forward's output runs first in backward and queues callback `first`; the engine
    runs callbacks in queue order, and one queued from a callback after all those queued before it (torch's
    GraphTask::exec_post_processing), so `first` queues the write, which then runs after DDP's callback. The write
    asks DDP's logger to compute the timings now (what its next forward would do; it does it again there for the
    same iteration, which _ddp_sync skips). CPU modules only: on CUDA reading the timer synchronises."""
    t = _first_grad_tensor(out)
    if t is None:
        return
    import torch
    engine = torch.autograd.Variable._execution_engine

    def write():
        if core.p is not None and _ddp_on[0]:
            try:
                ddp.logger.set_runtime_stats_and_log()
                _ddp_sync(ddp)
            except Exception as e:
                _ddp_off("the end of backward", e)

    def first():
        try:
            engine.queue_callback(write)
        except Exception as e:
            _ddp_off("the end of backward", e)

    def hook(grad):
        try:
            engine.queue_callback(first)
        except Exception as e:
            _ddp_off("the end of backward", e)

    t.register_hook(hook)


def _wrap_ddp_init(orig):
    @functools.wraps(orig)
    def __init__(self, *args, **kwargs):
        orig(self, *args, **kwargs)
        if core.p is not None and _ddp_on[0]:
            try:
                _ddp_made(self)
            except Exception as e:
                _ddp_off("its construction", e)
    return __init__


def _wrap_ddp_forward(orig):
    @functools.wraps(orig)
    def forward(self, *args, **kwargs):
        out = orig(self, *args, **kwargs)
        if core.p is not None and _ddp_on[0]:
            try:
                _ddp_sync(self)
                if self in _ddp_timed and getattr(self, "require_backward_grad_sync", True):
                    import torch
                    if torch.is_grad_enabled():
                        _at_end_of_backward(self, out)
            except Exception as e:
                _ddp_off("forward", e)
        return out
    return forward


def patches(torch):
    """(object, attribute, replacement) for torch.distributed's entry points; [] without torch.distributed.
    Each function is replaced in torch.distributed and in distributed_c10d (whose own functions call each
    other through its globals)."""
    import torch.distributed as dist
    if not dist.is_available():
        return []
    c10d = _c10d()
    out = []
    for op in _OPS:
        orig = getattr(c10d, op, None)
        if orig is None:
            continue
        try:
            fn = _wrap_collective(c10d, op, orig)
        except (TypeError, ValueError) as e:    # a torch whose signature this does not know: left alone
            core.log("not recording torch.distributed.%s (%r)" % (op, e))
            continue
        out.append((c10d, op, fn))
        if getattr(dist, op, None) is orig:
            out.append((dist, op, fn))
    bc = getattr(dist, "_broadcast_coalesced", None)
    if bc is not None:
        out.append((dist, "_broadcast_coalesced", _wrap_broadcast_coalesced(bc)))
    init = _wrap_init(c10d, c10d.init_process_group)
    out += [(c10d, "init_process_group", init), (dist, "init_process_group", init),
            (dist.Work, "wait", _wrap_wait(dist.Work.wait))]
    from torch.nn.parallel import DistributedDataParallel as DDP
    out += [(DDP, "__init__", _wrap_ddp_init(DDP.__init__)), (DDP, "forward", _wrap_ddp_forward(DDP.forward))]
    return out
