"""Python stack samples of perfscope's Python hook (docs/python.md "Stack samples").

A thread of the hook's own, in each process the hook is installed in (the training process, each DataLoader
worker, whatever its start method: a forked child starts its own), wakes `hz` times a second, reads the Python
stacks of the process's other threads (sys._current_frames) and sends each one to the probe: the thread's OS id
(Thread.native_id, the id of perfscope's thread tables) and the ids of its innermost MAX_DEPTH frames, innermost
first, with the stack's full depth. A code location (file, line, function's qualified name) gets its id the first
time a sample meets it and is sent once (probe.py_frame) before the first sample that names it; the probe writes
both on the sampling thread's lane, so every definition precedes its uses in the ring.

Cost: the walk and one probe call per sampled thread (bench/python/stacks_overhead.sh). Nothing it does reaches the
program: an exception in a sample leaves that sample out and is counted (the `python stacks` mark's `errors`; the
first one logged to $PERFSCOPE_LOG); MAX_ERRORS of them, or any error outside a sample, end sampling in the process.
"""
import _thread
import array
import atexit
import os
import sys
import threading
import time

from . import core

DEFAULT_HZ = 20                 # record's default too (collector/include/collector/python_hook.h)
MAX_DEPTH = 64                  # frames sent per sample, the innermost (the probe takes up to 128)
MAX_LOCATIONS = 1 << 16         # code locations defined per process; past it sampling stops (logged)
_LOC_CACHE = 1 << 16            # (code, instruction) -> id entries kept before the cache is emptied
MAX_ERRORS = 100                # samples failed with an exception before sampling stops in the process
SWITCH_US = 50                  # the switch interval while the sampler waits for the GIL (microseconds)
_ENV_HZ = "PERFSCOPE_PYTHON_STACK_HZ"
THREAD_NAME = "perfscope-stack"  # 15 bytes: the most a Linux thread name holds

_state = {"sampler": None, "next_id": 1, "forks": False, "atexit": False}


def rate():
    """Samples per second record asked for (PERFSCOPE_PYTHON_STACK_HZ; DEFAULT_HZ when unset), 0 for none."""
    v = os.environ.get(_ENV_HZ)
    if v is None or v == "":
        return DEFAULT_HZ
    try:
        hz = float(v)
    except ValueError:
        hz = -1.0
    if not 0 <= hz <= 1000:
        core.log("%s=%r is not a rate from 0 to 1000: no stack samples" % (_ENV_HZ, v))
        return 0
    return hz


class _Stop(Exception):
    """Sampling cannot go on in this process (said once in the log)."""


class _Sampler:
    def __init__(self, probe, hz):
        self.p = probe
        self.interval_ns = max(int(1e9 / hz), 1000000)
        self.stopping = False
        self.done = _thread.allocate_lock()     # held while the thread runs
        self.at = {}                # (id(code), instruction offset) -> id: a frame's id without its line number
        self.keep = {}              # id(code) -> code, for the codes `at` names
        self.last = {}              # tid -> (its CPU time, frame ids, how many, depth) at the last sample
        self.ticks = self.stacks = self.walked = 0  # wake-ups that sampled; stacks written; stacks read
        self.errors = 0             # samples an exception cut short (swallowed; the first one logged)
        self.held_ns = 0            # wall time the thread held the GIL (from its wake-up to its next sleep)
        self.ids = {}               # (file, line, function) -> id, defined in the ring
        self.me = None
        self.shorten = _switch_setter()

    def start(self):
        self.done.acquire()
        try:
            # A bare thread: not in threading.enumerate(), so the program's own thread counts stay as they were.
            _thread.start_new_thread(self._run, ())
        except Exception:
            self.done.release()
            raise

    def stop(self, wait_s):
        """Ask the thread to end and wait for it up to `wait_s` (it ends at its next wake-up, 1/hz s at most)."""
        self.stopping = True
        if self.done.acquire(timeout=wait_s):
            self.done.release()

    def _run(self):
        try:
            self.me = _thread.get_ident()
            _name_thread()
            self._loop()
        except _Stop as e:
            core.log("stack samples off: %s" % e)
        except BaseException as e:              # never into the program: not even at its exit
            core.log("error in the stack sampler (%r): stack samples off for the rest of this process" % (e,))
        finally:
            try:
                self._mark()
            finally:
                self.done.release()

    def _mark(self):
        """The `python stacks` mark (docs/python.md "Marks"): what sampling did and cost in this process."""
        if core.p is not None and self.ticks:
            core.mark("python stacks", [("hz", "%g" % (1e9 / self.interval_ns)), ("ticks", self.ticks),
                                        ("stacks", self.stacks), ("walked", self.walked),
                                        ("errors", self.errors), ("gil_ns", self.held_ns),
                                        ("cpu_ns", time.thread_time_ns())])

    def _loop(self):
        p, interval, shorten = self.p, self.interval_ns, self.shorten
        due = time.monotonic_ns() + interval
        woke = 0
        while not self.stopping:
            # Without the GIL until the sample is due; then the thread running Python code hands the GIL over within
            # SWITCH_US (its switch interval, 5 ms by default, would let a sample land up to 5 ms late: at the next
            # call that lets go of the GIL, which takes the time of the pure Python code before it).
            saved = sys.getswitchinterval() if shorten else None
            if woke:
                self.held_ns += time.monotonic_ns() - woke
            p.sleep_until(due, shorten, SWITCH_US)
            woke = time.monotonic_ns()
            if shorten and sys.getswitchinterval() == SWITCH_US / 1e6:
                sys.setswitchinterval(saved)    # unless the program set its own meanwhile
            if self.stopping or core.p is None:  # the hook turned itself off
                return
            now = woke
            due += interval
            if due < now:                       # fell behind: no burst to catch up
                due = now + interval
            self.ticks += 1
            try:
                self._sample()
            except _Stop:
                raise
            except Exception as e:              # a thread or frame that changed under the walk: the next sample
                self.errors += 1
                if self.errors == 1:
                    core.log("error in a stack sample (%r): left out, sampling goes on" % (e,))
                if self.errors >= MAX_ERRORS:
                    raise _Stop("%d samples failed" % self.errors)

    def _define(self, code, line):
        """The id of (file, line, function), defined in the ring the first time; None when it could not be."""
        key = (code.co_filename, line, getattr(code, "co_qualname", code.co_name))
        i = self.ids.get(key)
        if i is not None:
            return i
        if len(self.ids) >= MAX_LOCATIONS:
            raise _Stop("more than %d code locations" % MAX_LOCATIONS)
        i = _state["next_id"]
        if self.p.py_frame(i, key[0].encode("utf-8", "replace"), line,
                           key[2].encode("utf-8", "replace")) != 0:
            return None                         # not written (ring full): this sample is left out
        _state["next_id"] = i + 1
        self.ids[key] = i
        return i

    def _sample(self):
        p, at, keep, me, last = self.p, self.at, self.keep, self.me, self.last
        seen = {}
        t = p.now()
        frames = sys._current_frames()
        active = getattr(threading, "_active", None)
        for ident, f in frames.items():
            if ident == me:
                continue
            th = active.get(ident) if active is not None else None
            tid = getattr(th, "native_id", None)
            if not tid:                         # a thread threading does not know: no OS id to name it by
                continue
            # A thread that has not run since the last sample (its CPU time has not moved: running Python code
            # takes CPU) has the same stack: sent again without a walk (idle threads are most of a process's).
            try:
                cpu = time.clock_gettime_ns(~tid << 3 | 6)  # its CPU clock (Linux: MAKE_THREAD_CPUCLOCK(tid, SCHED))
            except (OSError, AttributeError, OverflowError):
                cpu = None
            prev = last.get(tid)
            if cpu is not None and prev is not None and prev[0] == cpu:
                p.py_sample(t, tid, prev[1], prev[2], prev[3])
                seen[tid] = prev
                self.stacks += 1
                continue
            ids = []
            add = ids.append
            depth = 0
            while f is not None:
                if depth < MAX_DEPTH:
                    # keyed by the code's id (hashing a code object hashes its fields: twice the cost of the walk);
                    # `keep` holds the code, so that no other code object gets its id meanwhile
                    code = f.f_code
                    key = (id(code), f.f_lasti)
                    i = at.get(key)
                    if i is None:
                        i = self._define(code, f.f_lineno or 0)
                        if i is None:
                            break
                        if len(at) >= _LOC_CACHE:
                            at.clear()
                            keep.clear()
                        at[key] = i
                        keep[key[0]] = code
                    add(i)
                depth += 1
                f = f.f_back
            else:
                if ids:
                    b = array.array("I", ids).tobytes()
                    p.py_sample(t, tid, b, len(ids), depth)
                    self.stacks += 1
                    self.walked += 1
                    if cpu is not None:
                        seen[tid] = (cpu, b, len(ids), depth)
        self.last = seen
        del frames


def _name_thread():
    """Name the calling thread THREAD_NAME for the OS (top, /proc; the trace's ThreadNames): it is not the program's.
    Before its first probe call, which reports the name. Best effort."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(15, THREAD_NAME.encode(), 0, 0, 0)     # PR_SET_NAME (prctl(2))
    except Exception:
        pass


def _switch_setter():
    """The address of CPython's _PyEval_SetSwitchInterval (what sys.setswitchinterval calls), or None where it may
    not be called from a thread without the GIL (the samples may then be late). Up to 3.11 it only stores the
    interval in the runtime's one GIL (Python/ceval_gil.h: `_PyRuntime.ceval.gil.interval = microseconds`); from
    3.12 it finds the GIL through the calling thread's interpreter (`_PyInterpreterState_GET()`), which a thread
    without the GIL does not have: it would crash the program. Other implementations (PyPy) have no such call."""
    if sys.implementation.name != "cpython" or sys.version_info >= (3, 12):
        return None
    try:
        import ctypes
        return ctypes.cast(ctypes.pythonapi._PyEval_SetSwitchInterval, ctypes.c_void_p).value
    except Exception:
        return None


def stop():
    """Stop sampling in this process (at its exit; at the end of a DataLoader worker's loop, whose process ends
    without atexit): the sampling thread finishes the sample it is taking and writes its `python stacks` mark."""
    s = _state["sampler"]
    _state["sampler"] = None
    if s is not None:
        s.stop(0.5)


def _after_fork():
    """A forked child (a DataLoader worker): its own sampler, its own ring, its code locations defined again."""
    s = _state["sampler"]
    _state["sampler"] = None
    _state["next_id"] = 1
    if s is not None and core.p is not None:
        try:
            _start(s.p, 1e9 / s.interval_ns)
        except Exception as e:
            core.log("cannot sample stacks in this forked process (%r)" % (e,))


def _start(probe, hz):
    s = _Sampler(probe, hz)
    s.start()
    _state["sampler"] = s


def start(probe, hz):
    """Sample this process's Python stacks `hz` times a second through `probe` (from now on, and in forked
    children). Raises when it cannot (the caller logs it; the rest of the hook goes on)."""
    if hz <= 0 or probe.sleep_until is None or not hasattr(sys, "_current_frames"):
        return
    if not _state["forks"]:
        os.register_at_fork(after_in_child=_after_fork)
        _state["forks"] = True
    if not _state["atexit"]:
        atexit.register(stop)
        _state["atexit"] = True
    _start(probe, hz)
