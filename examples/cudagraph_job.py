"""Example job for GPU Sanitizer: a correct job that captures its whole training step in a CUDA graph.

PyTorch's documented whole-network capture recipe (torch.cuda.graphs, "Whole-network capture"):
static input and target tensors, a few warm-up iterations on a side stream, then
forward + loss + backward + optimizer.step() captured once with torch.cuda.graph(g) and replayed
for every batch after copying the batch into the static tensors. Clean: no bug is planted.

Note for the sanitizer phase: capture allocates from PyTorch's caching allocator's private
graph pool; with PYTORCH_NO_CUDA_MEMORY_CACHING=1 that pool does not exist and each allocation
is a cudaMalloc during capture. What happens then is what this example records.

It prints "step N loss L it/s R".
"""
import argparse
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--warmup", type=int, default=3)
    args = p.parse_args()
    device = torch.device("cuda")
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(512, 1024), nn.GELU(), nn.Dropout(0.1), nn.Linear(1024, 1024), nn.GELU(),
                          nn.Linear(1024, 10)).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)

    # a fixed synthetic data set on the host; batches are copied into the static tensors
    x_all = torch.randn(8192, 512).pin_memory()
    y_all = (x_all[:, :10] * 2 + x_all[:, 10:20]).argmax(1).pin_memory()

    static_x = torch.randn(args.batch, 512, device=device)
    static_y = torch.randint(0, 10, (args.batch,), device=device)

    # warm-up on a side stream (required before capture)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(args.warmup):
            opt.zero_grad(set_to_none=True)
            F.cross_entropy(model(static_x), static_y).backward()
            opt.step()
    torch.cuda.current_stream().wait_stream(s)

    # capture forward, backward and the optimizer step
    g = torch.cuda.CUDAGraph()
    opt.zero_grad(set_to_none=True)
    with torch.cuda.graph(g):
        static_loss = F.cross_entropy(model(static_x), static_y)
        static_loss.backward()
        opt.step()
    print("captured the training step in a CUDA graph", flush=True)

    n = x_all.shape[0] // args.batch
    start = time.time()
    for step in range(args.steps):
        i = step % n
        static_x.copy_(x_all[i * args.batch:(i + 1) * args.batch], non_blocking=True)
        static_y.copy_(y_all[i * args.batch:(i + 1) * args.batch], non_blocking=True)
        g.replay()
        if step % 20 == 0:
            rate = step / max(time.time() - start, 1e-9)
            print(f"step {step} loss {static_loss.item():.4f} it/s {rate:.1f}", flush=True)
    torch.cuda.synchronize()
    print(f"done {args.steps} steps", flush=True)


if __name__ == "__main__":
    main()
