"""What the hook adds to torch.autograd.profiler.record_function blocks and to nn.Module calls (docs/python.md
"Cost"): run under `perfscope record` and `perfscope record --no-python-hooks` (bench/python/stacks_overhead.sh).
Prints ns per `with record_function(name): pass`, per call of a model of 10 submodules (nn.Identity) while no
optimizer or DataLoader delimits the steps (each call ends a step), and per call of the same model once an optimizer
exists (the hook has put nn.Module.__call__ back). Medians of 9 batches."""
import time

import torch


def per_call(fn, n):
    batches = []
    for _ in range(9):
        t0 = time.perf_counter_ns()
        for _ in range(n):
            fn()
        batches.append((time.perf_counter_ns() - t0) // n)
    return sorted(batches)[4]


rf = torch.autograd.profiler.record_function


def label():
    with rf("preprocess"):
        pass


model = torch.nn.Sequential(*[torch.nn.Identity() for _ in range(10)])
x = torch.zeros(1)
print("record_function_ns=%d" % per_call(label, 2000))
print("model_call_steps_ns=%d" % per_call(lambda: model(x), 2000))
torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
model(x)                                # the hook puts nn.Module.__call__ back at the first call after this
print("model_call_ns=%d" % per_call(lambda: model(x), 2000))
