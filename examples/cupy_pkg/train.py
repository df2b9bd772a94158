"""Example job for GPU Sanitizer: a training script whose augmentation op lives in a package module.

`trainer/ops.py` holds a CuPy RawKernel; the job imports it as `trainer.ops` and applies it to every
batch before a small MLP trains on it. `--bug oob` plants an out-of-bounds write in the kernel from
step `--bug-step` on. Issue #25, 4: the report must name the kernel's own source line (CuPy saves the
source beside its cache when CUPY_CACHE_SAVE_CUDA_SOURCE=1) and the launch by its path under the working
directory (examples/cupy_pkg/trainer/ops.py when run from the repository root), not the bare ops.py.

It prints "step N loss L it/s R".
"""
import argparse
import os
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from trainer import ops  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bug", default="none", choices=["none", "oob"])
    p.add_argument("--bug-step", type=int, default=5)
    p.add_argument("--steps", type=int, default=60)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--cols", type=int, default=256)
    args = p.parse_args()
    device = torch.device("cuda")
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(args.cols, 512), nn.ReLU(), nn.Linear(512, 10)).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    start = time.time()
    for step in range(args.steps):
        x = torch.randn(args.batch, args.cols, device=device)
        y = torch.randint(0, 10, (args.batch,), device=device)
        offsets = torch.randint(0, 8, (args.batch,), device=device, dtype=torch.int32)
        x = ops.jitter(x, offsets, planted_bug=args.bug == "oob" and step >= args.bug_step)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % 10 == 0:
            rate = step / max(time.time() - start, 1e-9)
            print(f"step {step} loss {loss.item():.4f} it/s {rate:.1f}", flush=True)
    torch.cuda.synchronize()
    print(f"done {args.steps} steps", flush=True)


if __name__ == "__main__":
    main()
