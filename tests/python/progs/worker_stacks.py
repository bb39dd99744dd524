# A DataLoader with one worker process (start method METHOD: fork, spawn or forkserver) whose samples take about
# 15 ms each in a Python function of their own, decode_sample(), while the training loop waits for them; for the
# hook's stack samples in workers (tests/python/python_tests.sh). Usage: worker_stacks.py METHOD BATCHES
import sys
import time

import torch
from torch.utils.data import DataLoader, Dataset


def decode_sample(i, seconds=0.015):
    """Pure Python for `seconds`: what a worker spends a sample on."""
    end = time.perf_counter() + seconds
    s = i
    while time.perf_counter() < end:
        s = (s * 31 + 7) % 1000003
    return s


class Samples(Dataset):
    def __len__(self):
        return 1 << 20

    def __getitem__(self, i):
        return torch.tensor([decode_sample(i)], dtype=torch.float32)


def main():
    method, batches = sys.argv[1], int(sys.argv[2])
    loader = DataLoader(Samples(), batch_size=2, num_workers=1, multiprocessing_context=method)
    n = 0
    for batch in loader:
        n += 1
        if n == batches:
            break
    print("batches: %d" % n)


if __name__ == "__main__":
    main()
