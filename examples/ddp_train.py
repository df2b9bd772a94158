"""Example job for GPU Sanitizer: DistributedDataParallel training with a planted index bug.

Started by torchrun (NCCL, one process per GPU):

  torchrun --standalone --nproc_per_node=1 examples/ddp_train.py [--bug none|scatter]

or by torch.multiprocessing.spawn, all ranks on cuda:0 (gloo, so several ranks can share a GPU):

  python3 examples/ddp_train.py --spawn 2 --backend gloo --bug scatter

The model pools its hidden units into buckets with index_add_ (a segment sum). With --bug scatter
the bucket index of the last hidden unit is one past the last bucket from --bug-step on: a
device-side assert inside the ATen index_add kernel, in every rank. The job uses a DataLoader with
a DistributedSampler and worker processes, bf16 autocast (GradScaler with --scaler) and an
all_reduce of the accuracy. It prints "step N loss L it/s R" (rank 0).
"""
import argparse
import datetime
import os
import socket
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset, DistributedSampler


def parse_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--bug", default="none", choices=["none", "scatter"])
    p.add_argument("--bug-step", type=int, default=5)
    p.add_argument("--steps", type=int, default=60)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--samples", type=int, default=8192)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--backend", default="nccl", choices=["nccl", "gloo"])
    p.add_argument("--spawn", type=int, default=0, help="start N ranks with torch.multiprocessing.spawn, all on one GPU")
    p.add_argument("--scaler", action="store_true", help="use a GradScaler (not needed for bf16)")
    p.add_argument("--no-amp", action="store_true")
    p.add_argument("--pg-timeout", type=float, default=120.0, help="process group timeout, seconds")
    p.add_argument("--device", default="cuda", help="cuda (default) or cpu (for a dry run without a GPU)")
    p.add_argument("--log-every", type=int, default=10)
    return p.parse_args(argv)


class SyntheticFeatures(Dataset):
    """Fixed random features and labels (a stand-in for a real data set)."""

    def __init__(self, n, features, classes, seed=0):
        g = torch.Generator().manual_seed(seed)
        self.x = torch.randn(n, features, generator=g)
        w = torch.randn(features, classes, generator=g)
        self.y = (self.x @ w).argmax(1)

    def __len__(self):
        return self.x.shape[0]

    def __getitem__(self, i):
        return self.x[i], self.y[i]


class BucketNet(nn.Module):
    def __init__(self, features=64, hidden=512, buckets=64, classes=10):
        super().__init__()
        self.inp = nn.Linear(features, hidden)
        self.mid = nn.Linear(hidden, hidden)
        self.head = nn.Linear(buckets + hidden, classes)
        self.buckets = buckets
        self.register_buffer("bucket_of", torch.arange(hidden) % buckets, persistent=False)

    def forward(self, x, corrupt_index=False):
        h = F.gelu(self.inp(x))
        h = F.gelu(self.mid(h)) + h
        idx = self.bucket_of
        if corrupt_index:
            idx = idx.clone()
            idx[-1] = self.buckets  # bug: one past the last bucket
        pooled = torch.zeros(h.shape[0], self.buckets, device=h.device, dtype=h.dtype)
        pooled = pooled.index_add(1, idx, h)  # segment sum of hidden units per bucket
        return self.head(torch.cat([pooled, h], dim=1))


def make_scaler(enabled):
    if hasattr(torch, "amp") and hasattr(torch.amp, "GradScaler"):
        return torch.amp.GradScaler("cuda", enabled=enabled)
    return torch.cuda.amp.GradScaler(enabled=enabled)


def train(rank, world, args):
    if args.device == "cuda":
        local = 0 if args.spawn else int(os.environ.get("LOCAL_RANK", "0"))
        torch.cuda.set_device(local)
        device = torch.device("cuda", local)
    else:
        device = torch.device("cpu")
    dist.init_process_group(args.backend, rank=rank, world_size=world,
                            timeout=datetime.timedelta(seconds=args.pg_timeout))
    torch.manual_seed(0)
    data = SyntheticFeatures(args.samples, 64, 10)
    sampler = DistributedSampler(data, num_replicas=world, rank=rank, shuffle=True, seed=0)
    loader = DataLoader(data, batch_size=args.batch, sampler=sampler, num_workers=args.workers,
                        pin_memory=device.type == "cuda", drop_last=True)
    model = BucketNet().to(device)
    ddp = DDP(model, device_ids=[device.index] if device.type == "cuda" else None)
    opt = torch.optim.AdamW(ddp.parameters(), lr=1e-3)
    scaler = make_scaler(args.scaler and device.type == "cuda")
    amp = not args.no_amp
    step = 0
    start = time.time()
    epoch = 0
    while step < args.steps:
        sampler.set_epoch(epoch)
        for x, y in loader:
            x = x.to(device, non_blocking=True)
            y = y.to(device, non_blocking=True)
            fire = args.bug == "scatter" and step >= args.bug_step
            with torch.autocast(device_type=device.type, dtype=torch.bfloat16, enabled=amp):
                logits = ddp(x, corrupt_index=fire)
                loss = F.cross_entropy(logits.float(), y)
            opt.zero_grad(set_to_none=True)
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            correct = (logits.argmax(1) == y).sum().float()
            dist.all_reduce(correct)  # accuracy over all ranks
            if step % args.log_every == 0:
                acc = correct.item() / (args.batch * world)
                rate = step / max(time.time() - start, 1e-9)
                if rank == 0:
                    print(f"step {step} loss {loss.item():.4f} acc {acc:.3f} it/s {rate:.1f}", flush=True)
            step += 1
            if step >= args.steps:
                break
        epoch += 1
    if device.type == "cuda":
        torch.cuda.synchronize()
    if rank == 0:
        print(f"done {step} steps, world size {world}, backend {args.backend}", flush=True)
    dist.destroy_process_group()


def spawned(rank, world, args, port):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    train(rank, world, args)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    args = parse_args()
    if args.spawn:
        import torch.multiprocessing as mp
        mp.spawn(spawned, args=(args.spawn, args, free_port()), nprocs=args.spawn, join=True)
    else:
        train(int(os.environ.get("RANK", "0")), int(os.environ.get("WORLD_SIZE", "1")), args)


if __name__ == "__main__":
    main()
