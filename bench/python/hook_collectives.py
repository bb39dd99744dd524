"""Cost of perfscope's Python hook on torch.distributed calls (bench/python/run.sh), run under `perfscope record`:
one process, a one-rank gloo group (every call still goes through ProcessGroupGloo and its Work). The hook's
wrappers and the originals they wrap (functools.wraps keeps them as __wrapped__) are timed in alternating blocks
in this same process, so machine load hits both alike: for a synchronous dist.all_reduce of one float, an
all_reduce(async_op=True) + wait(), and a DistributedDataParallel step (forward, backward, SGD step of a 4x4
linear layer). Prints the median per call of each, as the calling thread's CPU time and as wall time. Gloo's
wait polls on the calling thread, so those medians move with how long gloo takes; the hook's own work alone is
timed too: its wrappers around functions that return at once (a collective with its mark, a wait), and the
reading of DDP's reducer timer with the writing of its two ranges, once per DDP step."""
import os
import socket
import statistics
import sys
import time

import torch
import torch.distributed as dist

blocks = int(sys.argv[1]) if len(sys.argv) > 1 else 15
with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
dist.init_process_group("gloo", rank=0, world_size=1)
DDP = torch.nn.parallel.DistributedDataParallel
hooked = {"all_reduce": dist.all_reduce, "wait": dist.Work.wait, "forward": DDP.forward}
if not all(hasattr(f, "__wrapped__") for f in hooked.values()):
    sys.exit("the hook is not installed: run under perfscope record")
bare = {k: f.__wrapped__ for k, f in hooked.items()}


def use(fns):
    dist.all_reduce, dist.Work.wait, DDP.forward = fns["all_reduce"], fns["wait"], fns["forward"]


t = torch.ones(1)
model = DDP(torch.nn.Linear(4, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x = torch.randn(8, 4)


def ddp_step():
    loss = model(x).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()


cases = [("all_reduce", lambda: dist.all_reduce(t), 300),
         ("async_all_reduce_wait", lambda: dist.all_reduce(t, async_op=True).wait(), 300),
         ("ddp_step", ddp_step, 100)]
for name, fn, calls in cases:
    per = {"hooked": ([], []), "bare": ([], [])}
    for b in range(2 * blocks + 2):
        which = "hooked" if b % 2 else "bare"
        use(hooked if which == "hooked" else bare)
        c0, w0 = time.thread_time_ns(), time.perf_counter_ns()
        for _ in range(calls):
            fn()
        if b >= 2:                  # the first pair warms up
            per[which][0].append((time.thread_time_ns() - c0) / calls)
            per[which][1].append((time.perf_counter_ns() - w0) / calls)
    use(hooked)
    (hc, hw), (bc, bw) = per["hooked"], per["bare"]
    print("%s_cpu_ns=%d %d" % (name, statistics.median(bc), statistics.median(hc)))
    print("%s_wall_ns=%d %d" % (name, statistics.median(bw), statistics.median(hw)))

# the hook's own work per call: its wrappers around originals that do nothing
from perfscope_hook import dist_hooks           # noqa: E402  (installed by the hook under record)
import torch.distributed.distributed_c10d as c10d  # noqa: E402


def noop_all_reduce(tensor, op=None, group=None, async_op=False):
    return None


class NoopWork:
    pass


wrapped_all_reduce = dist_hooks._wrap_collective(c10d, "all_reduce", noop_all_reduce)
wrapped_wait = dist_hooks._wrap_wait(lambda self: True)
work = NoopWork()
for name, fns, calls in (("hook_only_collective", (noop_all_reduce, wrapped_all_reduce), 2000),
                         ("hook_only_wait", (lambda w: True, wrapped_wait), 2000)):
    per = ([], [])
    for b in range(2 * blocks + 2):
        fn = fns[b % 2]
        arg = work if name == "hook_only_wait" else t
        c0 = time.thread_time_ns()
        for _ in range(calls):
            fn(arg)
        if b >= 2:
            per[b % 2].append((time.thread_time_ns() - c0) / calls)
    print("%s_cpu_ns=%d %d" % (name, statistics.median(per[0]), statistics.median(per[1])))


def ddp_sync():                     # what the DDP forward wrapper adds: read the reducer's timer, write 2 ranges
    dist_hooks._ddp[model] = 0      # as if this iteration's timings were new
    dist_hooks._ddp_sync(model)


samples = []
for b in range(blocks):
    c0 = time.thread_time_ns()
    for _ in range(500):
        ddp_sync()
    samples.append((time.thread_time_ns() - c0) / 500)
print("hook_only_ddp_sync_cpu_ns=0 %d" % statistics.median(samples))
dist.destroy_process_group()
