"""Probe example: a scatter with a bad index inside a torchrun job (2 ranks, gloo, any number of GPUs).

  python3 -m torch.distributed.run --standalone --nproc_per_node=2 examples/probe/scatter_ddp.py

Rank 1 routes one value to slot SLOTS (one past the last) on the bad step; the probe reports
aten::scatter_ with the rank, index max 64, input has 64 entries along dim 1.
"""
import argparse
import datetime
import os
import time

import torch
import torch.distributed as dist

SLOTS = 64


def route(out, slots, values):
    out.scatter_(1, slots, values)  # PROBE-FAULT: the failing operator
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--bad-step", type=int, default=15)
    a = p.parse_args()
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=30))  # no rank waits forever
    rank = dist.get_rank()
    dev = torch.device("cuda", int(os.environ.get("LOCAL_RANK", "0")) % torch.cuda.device_count())
    torch.cuda.set_device(dev)
    torch.manual_seed(rank)
    for step in range(a.steps):
        slots = torch.randint(0, SLOTS, (16, 8), device=dev)
        if rank == 1 and step == a.bad_step:
            slots[2, 3] = SLOTS  # the bug: one slot past the end
        values = torch.randn(16, 8, device=dev)
        out = route(torch.zeros(16, SLOTS, device=dev), slots, values)
        total = out.sum().cpu()
        dist.all_reduce(total)
        if rank == 0:
            print(f"step {step} total {total.item():.3f}", flush=True)
        time.sleep(0.02)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
