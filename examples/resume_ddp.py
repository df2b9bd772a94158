"""Example job for GPU Sanitizer (issue #40): DDP training that resumes from its snapshot, as the PyTorch DDP
tutorial's multigpu_torchrun.py does (pytorch/examples distributed/ddp-tutorial-series), started by torchrun:

  torchrun --standalone --nproc_per_node=1 examples/resume_ddp.py [--epochs 6]

Each epoch trains on a DataLoader with worker processes, then rank 0 saves snapshot.pt (model, optimizer, epoch)
and writes out/epoch-N.json; a start that finds snapshot.pt loads it and goes on from the epoch after. Run three
times in one working directory, the second and third starts train nothing: the gate must give each run its own
copy. Prints "epoch N step S loss L it/s R" and, at the end, how many epochs this start trained.
"""
import argparse
import json
import os
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset, DistributedSampler


class Features(Dataset):
    def __init__(self, n=4096, dim=64, classes=10):
        g = torch.Generator().manual_seed(0)
        self.x = torch.randn(n, dim, generator=g)
        self.y = torch.randint(0, classes, (n,), generator=g)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=6)
    p.add_argument("--snapshot", default="snapshot.pt")
    p.add_argument("--workers", type=int, default=2)
    args = p.parse_args()
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    local = int(os.environ.get("LOCAL_RANK", 0))
    torch.cuda.set_device(local)
    model = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 10)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    start = 0
    if os.path.exists(args.snapshot):
        snap = torch.load(args.snapshot, map_location="cuda:%d" % local)
        model.load_state_dict(snap["model"])
        opt.load_state_dict(snap["optimizer"])
        start = snap["epoch"] + 1
        if rank == 0:
            print("resuming from snapshot at epoch", start, flush=True)
    ddp = DDP(model, device_ids=[local])
    data = Features()
    sampler = DistributedSampler(data)
    loader = DataLoader(data, batch_size=64, sampler=sampler, num_workers=args.workers, pin_memory=True)
    os.makedirs("out", exist_ok=True)
    t0 = time.time()
    steps = 0
    for epoch in range(start, args.epochs):
        sampler.set_epoch(epoch)
        for x, y in loader:
            x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
            loss = F.cross_entropy(ddp(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            steps += 1
        if rank == 0:
            torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "epoch": epoch}, args.snapshot)
            with open(os.path.join("out", "epoch-%d.json" % epoch), "w") as f:
                json.dump({"epoch": epoch, "loss": float(loss)}, f)
            print("epoch %d step %d loss %.4f it/s %.1f" % (epoch, steps, float(loss), steps / (time.time() - t0)),
                  flush=True)
    if rank == 0:
        print("this start trained %d epoch(s) (%d steps)" % (args.epochs - start, steps), flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
