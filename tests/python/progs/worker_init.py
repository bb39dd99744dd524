# A program whose behaviour perfscope's hook must leave alone: it iterates a loader in-process, then chooses the
# start method (which fails if anything fixed the default one before), then a spawned worker runs the program's
# worker_init_fn, whose effect shows in the batches it returns. Prints every batch.
import multiprocessing

import torch
from torch.utils.data import DataLoader, Dataset

SEEN = {}


class Ids(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return torch.tensor([i, SEEN.get("init", -1)])


def init(worker_id):
    SEEN["init"] = 100 + worker_id


if __name__ == "__main__":
    for b in DataLoader(Ids(), batch_size=2):
        print("in-process", b.tolist())
    multiprocessing.set_start_method("spawn")
    for b in DataLoader(Ids(), batch_size=2, num_workers=1, worker_init_fn=init):
        print("worker", b.tolist())
