"""perfscope's Python hook: records a PyTorch program's DataLoader fetches, training steps, optimizer steps,
backward passes and host-to-device copies as NVTX-like ranges through libperfscope_probe.so, with no change to
the program (docs/python.md).

`perfscope record` sets PERFSCOPE_PYTHON_HOOKS ("1"; "modules" adds the forward of top-level modules, "shapes"
a range per ATen op with its inputs' sizes and dtypes: op_shapes.py) and
puts this package's folder on PYTHONPATH; sitecustomize.py calls arm(). arm() costs one entry on
sys.meta_path until `torch` is imported; then torch_hooks.install() patches torch. Any failure inside the hook
turns it off (logged to $PERFSCOPE_LOG when set) and leaves the program running as if it were absent.
"""
import os
import stat
import sys
import time

_ENV_MODE = "PERFSCOPE_PYTHON_HOOKS"
_ENV_LOG = "PERFSCOPE_LOG"
_armed = [0]        # CLOCK_MONOTONIC ns when arm() ran (interpreter start-up), 0 before


def armed_at_ns():
    """CLOCK_MONOTONIC ns when the hook was armed at the interpreter's start-up (sitecustomize), or 0."""
    return _armed[0]


def log(msg):
    """One line to $PERFSCOPE_LOG (a path, or "stderr"); silent when unset, as the probe is."""
    where = os.environ.get(_ENV_LOG)
    if not where:
        return
    line = "perfscope python hook[%d]: %s\n" % (os.getpid(), msg)
    try:
        if where == "stderr":
            sys.stderr.write(line)
            return
        # A regular file only, opened without waiting: open() of a FIFO without a reader blocks the program for
        # good (the probe's log does the same: common/ps_file.c).
        fd = os.open(where, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NONBLOCK | os.O_CLOEXEC, 0o600)
        try:
            if stat.S_ISREG(os.fstat(fd).st_mode):
                os.write(fd, line.encode("utf-8", "replace"))
        finally:
            os.close(fd)
    except Exception:
        pass


def mode():
    """The hook mode record asked for: "" (off), "default", "modules" or "shapes"."""
    m = os.environ.get(_ENV_MODE, "")
    if m in ("1", "default", "on"):
        return "default"
    return m if m in ("modules", "shapes") else ""


class _TorchWatcher:
    """A sys.meta_path finder that answers for `torch` only: it finds torch's spec through the other finders
    and wraps the loader's exec_module so that the hook installs right after torch's __init__ has run."""

    def find_spec(self, name, path=None, target=None):
        if name != "torch":
            return None
        try:
            sys.meta_path.remove(self)      # one shot: every later import costs nothing
        except ValueError:
            return None
        try:
            for finder in sys.meta_path:
                find = getattr(finder, "find_spec", None)
                spec = find(name, path, target) if find else None
                if spec is not None:
                    break
            else:
                return None
            loader = spec.loader
            exec_module = loader.exec_module

            def exec_then_hook(module):
                t0 = time.monotonic_ns()
                exec_module(module)         # torch's own errors propagate untouched
                _install(module, time.monotonic_ns() - t0)

            loader.exec_module = exec_then_hook
            return spec
        except Exception as e:
            log("cannot watch the import of torch (%r): hook off" % (e,))
            return None


def _install(torch, import_ns=None):
    try:
        from . import torch_hooks
        torch_hooks.install(torch, mode(), import_ns)
    except Exception as e:
        log("cannot hook torch (%r): hook off" % (e,))


def _forked():
    _armed[0] = time.monotonic_ns()


def arm():
    """Called at start-up: install the torch watcher when record asked for the hook."""
    if not mode() or not os.environ.get("PERFSCOPE_SESSION_DIR"):
        return
    _armed[0] = time.monotonic_ns()
    os.register_at_fork(after_in_child=_forked)     # a forked child (a fork server's) starts now
    if "torch" in sys.modules:
        _install(sys.modules["torch"])
    else:
        sys.meta_path.insert(0, _TorchWatcher())
