"""What every part of perfscope's Python hook shares: the probe it records through (None once the hook is off),
the byte strings it names ranges with, and the marks' text (docs/python.md "Marks").

A mark's text is `SUBJECT key=value key=value ...`: SUBJECT is one of the fixed phrases documented in
docs/python.md, keys are [a-z_]+, a value never holds a space or `=` (kv() replaces them with `_`), and a key
the hook does not know is left out rather than written empty.
"""
import os
import time

from . import log  # noqa: F401  (re-exported: core.log)

DOMAIN = b"perfscope"

p = None            # the Probe; None: hook off
_names = {}         # str -> bytes kept alive (the probe caches strings by address)


def b(s):
    """`s` as the bytes object the hook always passes for it (the probe caches strings by address)."""
    v = _names.get(s)
    if v is None:
        v = _names[s] = s.encode("utf-8", "replace")
    return v


def off(where, e):
    """Turn the hook off for the rest of this process after an error in its own code."""
    global p
    if p is not None:
        p = None
        log("error in %s (%r): hook off for the rest of this process" % (where, e))


_logged = set()


def log_once(msg):
    """log(msg) the first time this process sees it."""
    if msg not in _logged:
        _logged.add(msg)
        log(msg)


def pop():
    probe = p
    if probe is not None:
        try:
            probe.pop()
        except Exception as e:
            off("pop", e)


def _value(v):
    if isinstance(v, bool):
        return "1" if v else "0"
    s = str(v)
    if not s:
        return "_"
    return s.replace(" ", "_").replace("=", "_").replace("\t", "_").replace("\n", "_")


def kv(subject, pairs):
    """Mark text: `subject` then ` key=value` for each (key, value) of `pairs` whose value is not None."""
    return subject + "".join(" %s=%s" % (k, _value(v)) for k, v in pairs if v is not None)


def mark(subject, pairs):
    """A mark in the perfscope domain (kv's text). Callers hold the hook on (p is not None)."""
    p.mark(DOMAIN, kv(subject, pairs).encode("utf-8", "replace"))


def cores():
    """CPUs this process may run on (its affinity mask), else os.cpu_count()."""
    try:
        return len(os.sched_getaffinity(0))
    except Exception:
        return os.cpu_count() or 0


def threads(torch):
    """(intra-op threads, inter-op threads) of this process's torch: what its operators may run on."""
    return torch.get_num_threads(), torch.get_num_interop_threads()


def env_int(name):
    v = os.environ.get(name)
    try:
        return int(v) if v is not None else None
    except ValueError:
        return None


class Clock:
    """Maps CLOCK_REALTIME ns (the clock PyTorch's own timers read, c10::getTime) to the probe's ticks (TSC or
    CLOCK_MONOTONIC ns, docs/probe.md): the tick rate comes from the probe's clock against CLOCK_MONOTONIC since
    `start()`, the realtime offset from a reading taken at the conversion."""

    def __init__(self):
        self.tick0 = self.mono0 = None

    def start(self):
        self.tick0, self.mono0 = p.now(), time.monotonic_ns()

    def ticks(self, wall_ns):
        """The probe ticks of each CLOCK_REALTIME ns in `wall_ns` (a list), or None when the probe's clock rate
        is not known yet (under 10 ms since start())."""
        t_a = p.now()
        mono, wall = time.monotonic_ns(), time.time_ns()
        t_b = p.now()
        if self.tick0 is None or mono - self.mono0 < 10000000:
            return None
        tick = (t_a + t_b) // 2
        rate = (tick - self.tick0) / (mono - self.mono0)
        return [int(tick - (wall - w) * rate) for w in wall_ns]


clock = Clock()


def now_ns():
    """CLOCK_MONOTONIC ns (the clock perfscope_hook.armed_at_ns reads)."""
    return time.monotonic_ns()
