# A program the stack sampler must never disturb (tests/python/python_tests.sh): threads that start and end all the
# time while it samples, a recursion 1000 frames deep (sampled at its bottom), a thread blocked for good in a C call
# (a lock no one releases), a thread that holds the GIL in C for 300 ms (a PyDLL call of usleep), a thread started
# with _thread (unknown to threading), sys._current_frames raising for its first 0.2 s (each sample the sampler takes
# then fails: counted, and sampling goes on), output on stdout and stderr and an exit status of its own. Its output
# must be the same with and without perfscope.
import _thread
import ctypes
import sys
import threading
import time

import torch  # noqa: F401  (the hook installs itself, and starts sampling, at this import)


def deep(k, until):
    if k:
        return deep(k - 1, until) + 1
    while time.perf_counter() < until:        # sampled here, 1000 frames below the loop
        pass
    return 0


def short_lived(i, out):
    out.append(sum(range(1000 + i)))


def broken():
    raise RuntimeError("sys._current_frames broken on purpose")


def main():
    sys.setrecursionlimit(5000)
    current_frames, sys._current_frames = sys._current_frames, broken
    time.sleep(0.2)
    sys._current_frames = current_frames
    blocked = threading.Lock()
    blocked.acquire()
    threading.Thread(target=blocked.acquire, daemon=True).start()             # blocked in C for good
    _thread.start_new_thread(time.sleep, (5,))                                # not in threading's tables
    libc = ctypes.PyDLL(None)                                                 # PyDLL: the GIL stays held
    gil = threading.Thread(target=libc.usleep, args=(300000,))
    out = []
    end = time.perf_counter() + 1.0
    started = 0
    gil.start()
    while time.perf_counter() < end:                                           # threads come and go
        ts = [threading.Thread(target=short_lived, args=(i, out)) for i in range(8)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        started += len(ts)
    gil.join()
    print("depth", deep(1000, time.perf_counter() + 0.5))
    print("threads", started == len(out), sum(out) > 0)
    print("to stderr", file=sys.stderr)
    sys.exit(3)


main()
