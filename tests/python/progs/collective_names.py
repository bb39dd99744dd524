# Two gloo ranks (torch.multiprocessing.spawn; MASTER_PORT from argv[1]) make each torch.distributed call once
# inside torch.profiler and print what the profiler named the backend's work: "rank R OP NAME[,NAME...]" (its
# "gloo:..." events). perfscope's hook must give its range for the same call that name (tests/python).
import os
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.profiler import ProfilerActivity, profile


def calls(rank):
    t = torch.ones(10)
    z = torch.zeros
    return [
        ("all_reduce", lambda: dist.all_reduce(t)),
        ("all_reduce_coalesced", lambda: dist.all_reduce_coalesced([t, t.clone()])),
        ("all_gather", lambda: dist.all_gather([z(10), z(10)], t)),
        ("all_gather_coalesced", lambda: dist.all_gather_coalesced([[z(10)], [z(10)]], [t])),
        ("broadcast", lambda: dist.broadcast(t, 0)),
        ("broadcast_coalesced", lambda: dist._broadcast_coalesced(dist.group.WORLD, [t], 1000, 0)),
        ("reduce", lambda: dist.reduce(t, 0)),
        ("gather", lambda: dist.gather(t, [z(10), z(10)] if rank == 0 else None, 0)),
        ("scatter", lambda: dist.scatter(t, [z(10), z(10)] if rank == 0 else None, 0)),
        ("all_to_all_single", lambda: dist.all_to_all_single(z(10), t)),
        ("barrier", lambda: dist.barrier()),
        ("send" if rank == 0 else "recv", lambda: dist.send(t, 1) if rank == 0 else dist.recv(t, 0)),
        ("isend" if rank == 0 else "irecv", lambda: (dist.isend(t, 1) if rank == 0 else dist.irecv(t, 0)).wait()),
    ]


def run(rank, port):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=port)
    dist.init_process_group("gloo", rank=rank, world_size=2)
    lines = []
    for op, call in calls(rank):
        with profile(activities=[ProfilerActivity.CPU]) as p:
            call()
        names = sorted({e.name for e in p.events() if e.name.startswith("gloo:")})
        lines.append("rank %d %s %s\n" % (rank, op, ",".join(names)))
    dist.barrier()
    dist.destroy_process_group()
    sys.stdout.write("".join(lines))
    sys.stdout.flush()


if __name__ == "__main__":
    mp.spawn(run, args=(sys.argv[1],), nprocs=2)
