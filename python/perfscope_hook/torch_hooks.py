"""The PyTorch side of perfscope's Python hook: wraps a few torch entry points so that each records a range
through the probe (probe.py), named so that `perfscope report`'s default patterns (docs/report.md) find them:

  ProfilerStep#N                                    each step: optimizer.step to optimizer.step, or fetch to
                                                    fetch of one loader when no optimizer exists (steps.py)
  Optimizer.step#<class>.step, backward             optimizer step, autograd engine entry
  nn.Module: <class>                                forward of top-level modules (mode "modules"); without an
                                                    optimizer or a DataLoader, these forwards delimit the steps
  <record_function's name>                          each torch.autograd.profiler.record_function block
  aten::mm, dims = [[32, 64], [64, 16]], types = ...  each ATen op with its inputs' sizes, dtypes, strides and
                                                    scalars (mode "shapes": op_shapes.py)
  copy_to_device                                    Tensor.to / .cuda host-to-device copies; category names
                                                    the source memory and non_blocking, payload = bytes

DataLoader fetches, samples, collation and workers are loader_hooks.py's; torch.distributed collectives, their
waits and DistributedDataParallel's gradient synchronisation are dist_hooks.py's; Python stack samples
stacks.py's. Marks in the NVTX domain
"perfscope" (core.py) carry what the report's advice needs. Every wrapper calls the original whatever happens;
a failure in our own code turns the hook off. docs/python.md is the contract.
"""
import functools
import os
import sys
import threading

from . import armed_at_ns, core, log
from . import loader_hooks, op_shapes, stacks
from .probe import Probe
from .steps import steps

# NVTX categories of copy_to_device ranges (named in the trace: eventType 33).
COPY_CATEGORIES = {
    (False, False): (1, b"H2D from pageable memory, blocking"),
    (False, True): (2, b"H2D from pageable memory, non_blocking"),
    (True, False): (3, b"H2D from pinned memory, blocking"),
    (True, True): (4, b"H2D from pinned memory, non_blocking"),
}


def _wrap_optimizer_init(orig):
    def __init__(self, *args, **kwargs):
        orig(self, *args, **kwargs)
        if core.p is None:
            return
        try:
            steps.optimizer_made()
            cls = type(self)
            step = cls.__dict__.get("step")
            if step is not None and not getattr(step, "_perfscope", False):
                cls.step = _wrap_step(step, core.b("Optimizer.step#%s.step" % cls.__name__))
        except Exception as e:
            core.off("optimizer", e)
    return __init__


def _wrap_step(orig, name):
    @functools.wraps(orig)
    def step(self, *args, **kwargs):
        p = core.p
        if p is None:
            return orig(self, *args, **kwargs)
        try:
            p.push(name)
        except Exception as e:
            core.off("optimizer.step", e)
            return orig(self, *args, **kwargs)
        try:
            return orig(self, *args, **kwargs)
        finally:
            core.pop()
            try:
                if core.p is not None:
                    steps.optimizer_stepped(self, core.p.now())
            except Exception as e:
                core.off("optimizer.step", e)
    step._perfscope = True
    return step


def _wrap_copy(orig, torch, is_cuda_call):
    parse_to = torch._C._nn._parse_to
    copy = core.b("copy_to_device")

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
        p = core.p
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
            core.off("Tensor.to", e)
            return orig(self, *args, **kwargs)
        try:
            return orig(self, *args, **kwargs)
        finally:
            core.pop()
    to.__name__ = orig.__name__
    to.__doc__ = orig.__doc__
    return to


def _wrap_module_call(module_cls, orig, ranges):
    """nn.Module.__call__: the outermost forward on each thread (a module called while no other module runs on it)
    ends a step when nothing else delimits steps (steps.py), and with `ranges` (mode "modules") is a range
    `nn.Module: <class>`. Without `ranges`, once an optimizer or a DataLoader delimits the steps the original is
    put back: submodule calls then cost nothing (docs/python.md "Cost")."""
    tl = threading.local()

    def __call__(self, *args, **kwargs):
        p = core.p
        if p is None or getattr(tl, "inside", False):
            return orig(self, *args, **kwargs)
        try:
            if not ranges and steps.delimited():
                if module_cls.__dict__.get("__call__") is __call__:
                    module_cls.__call__ = orig
                return orig(self, *args, **kwargs)
            start = p.now()
            if ranges:
                p.push(core.b("nn.Module: %s" % type(self).__name__))
        except Exception as e:
            core.off("nn.Module", e)
            return orig(self, *args, **kwargs)
        tl.inside = True
        try:
            return orig(self, *args, **kwargs)
        finally:
            tl.inside = False
            if ranges:
                core.pop()
            p = core.p
            if p is not None:
                try:
                    steps.forward_done(self, start, p.now())
                except Exception as e:
                    core.off("nn.Module", e)
    return __call__


# record_function names the hook records itself, with its own ranges (torch's DataLoader and Optimizer.step wrap
# themselves in record_function, torch.profiler's schedule its steps): one range each, never two.
_OWN_RANGES = ("enumerate(DataLoader)#", "Optimizer.step#", "ProfilerStep#")
_RF_NAMES_MAX = 4096                # names kept as bytes (the probe caches by address); later ones are encoded per call


def _wrap_record_function(cls):
    """torch.autograd.profiler.record_function (also torch.profiler.record_function): its block is a push/pop
    range named as the record_function is, on the calling thread, whether a profiler runs or not (without one
    torch records nothing: a CPU run's labels would be lost). Pushed after torch's own enter, popped before its
    exit; an exit that is not the innermost of this thread's record_function ranges pops nothing."""
    enter, exit_ = cls.__enter__, cls.__exit__
    tl = threading.local()
    names = {}

    def __enter__(self):
        r = enter(self)
        p = core.p
        if p is None:
            return r
        try:
            name = self.name
            if not isinstance(name, str) or name.startswith(_OWN_RANGES):
                return r
            b = names.get(name)
            if b is None:
                b = name.encode("utf-8", "replace")
                if len(names) < _RF_NAMES_MAX:
                    names[name] = b
            stack = tl.__dict__.setdefault("stack", [])
            p.push(b)               # popped at exit whatever it returned, as every push of the hook
            stack.append(self)
        except Exception as e:
            core.off("record_function", e)
        return r

    def __exit__(self, exc_type, exc_value, traceback):
        try:
            stack = tl.__dict__.get("stack")
            if stack and stack[-1] is self:
                stack.pop()
                core.pop()
        except Exception as e:
            core.off("record_function", e)
        return exit_(self, exc_type, exc_value, traceback)
    __enter__.__wrapped__, __exit__.__wrapped__ = enter, exit_
    return [(cls, "__enter__", __enter__), (cls, "__exit__", __exit__)]


def _forked():
    """A forked child (a DataLoader worker) starts with no step of its own and says who it is again."""
    steps.reset()
    loader_hooks.forked()


def _mark_hook(torch, mode, import_ns, stack_hz):
    intra, inter = core.threads(torch)
    now = core.now_ns()
    core.mark("python hook", [
        ("mode", mode), ("torch", torch.__version__),
        ("python", "%d.%d.%d" % sys.version_info[:3]), ("cuda_build", getattr(torch.version, "cuda", None) or "none"),
        ("cores", core.cores()), ("cpu_count", os.cpu_count() or 0), ("pid", os.getpid()), ("ppid", os.getppid()),
        ("intra_op_threads", intra), ("interop_threads", inter), ("torch_import_ns", import_ns),
        ("since_start_ns", now - armed_at_ns() if armed_at_ns() else None),
        ("rank", core.env_int("RANK")), ("local_rank", core.env_int("LOCAL_RANK")),
        ("world_size", core.env_int("WORLD_SIZE")), ("stack_hz", "%g" % stack_hz)])


def install(torch, mode, import_ns=None):
    """Patch torch (already imported) for `mode` ("default", "modules" or "shapes"); `import_ns`: how long torch's import
    took (None: unknown). Raises on failure before any patch is made; the caller turns the hook off. The
    torch.distributed part is optional: when it cannot be patched the rest still is (logged)."""
    probe = Probe()
    import torch.optim
    patches = loader_hooks.patches(torch) + [
        (torch.optim.Optimizer, "__init__", _wrap_optimizer_init(torch.optim.Optimizer.__init__)),
        (torch.autograd, "backward", loader_hooks.timed(torch.autograd.backward, b"backward")),
        (torch.Tensor, "to", _wrap_copy(torch.Tensor.to, torch, False)),
        (torch.Tensor, "cuda", _wrap_copy(torch.Tensor.cuda, torch, True)),
    ]
    patches.append((torch.nn.Module, "__call__",
                    _wrap_module_call(torch.nn.Module, torch.nn.Module.__call__, mode == "modules")))
    patches += _wrap_record_function(torch.autograd.profiler.record_function)
    try:
        from . import dist_hooks
        patches += dist_hooks.patches(torch)
    except Exception as e:
        log("cannot hook torch.distributed (%r): its collectives are not recorded" % (e,))
    core.p = probe
    core.clock.start()
    for pinned_nb, (cat, name) in COPY_CATEGORIES.items():
        probe.name_category(cat, name)
    stack_hz = stacks.rate() if probe.py_frame is not None else 0
    _mark_hook(torch, mode, import_ns, stack_hz)
    for obj, attr, fn in patches:
        setattr(obj, attr, fn)
    os.register_at_fork(after_in_child=_forked)
    if mode == "shapes":
        op_shapes.enter(torch, core, log)
    try:
        stacks.start(probe, stack_hz)
    except Exception as e:
        log("cannot sample Python stacks (%r): the rest of the hook goes on" % (e,))
    log("hooked torch %s (mode %s)" % (torch.__version__, mode))
