"""Example job for GPU Sanitizer: a clean training loop that prefetches the next batch on a side stream.

The pattern of NVIDIA's and many data loaders' "data prefetcher": while step N trains on the default
stream, batch N+1 is copied host-to-device (pinned memory, non_blocking) and normalised on a second
stream; the default stream waits for it and `record_stream` keeps the caching allocator from reusing
the batch's memory too early. There is no bug: the gate must PASS and say nothing false about it.

It prints "step N loss L it/s R".
"""
import argparse
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class Prefetcher:
    """Copies the next batch to the GPU on its own stream while the current one trains."""

    def __init__(self, xs, ys, batch, device):
        self.xs, self.ys, self.batch, self.device = xs, ys, batch, device
        self.stream = torch.cuda.Stream()
        self.mean = torch.tensor(0.5, device=device)
        self.i = 0
        self._load()

    def _load(self):
        n = self.xs.shape[0] // self.batch
        j = self.i % n
        self.i += 1
        with torch.cuda.stream(self.stream):
            x = self.xs[j * self.batch:(j + 1) * self.batch].to(self.device, non_blocking=True)
            y = self.ys[j * self.batch:(j + 1) * self.batch].to(self.device, non_blocking=True)
            self.next = ((x.float() / 255.0 - self.mean) / 0.25, y)

    def take(self):
        torch.cuda.current_stream().wait_stream(self.stream)
        x, y = self.next
        x.record_stream(torch.cuda.current_stream())
        y.record_stream(torch.cuda.current_stream())
        self._load()
        return x, y


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--seconds", type=float, default=8.0)
    p.add_argument("--batch", type=int, default=256)
    args = p.parse_args()
    device = torch.device("cuda")
    torch.manual_seed(0)
    xs = torch.randint(0, 256, (16384, 3, 32, 32), dtype=torch.uint8).pin_memory()
    ys = (xs[:, 0, :4, :4].float().mean((1, 2)) > 127).long().pin_memory()
    model = nn.Sequential(nn.Conv2d(3, 64, 3, padding=1), nn.ReLU(), nn.Conv2d(64, 64, 3, padding=1), nn.ReLU(),
                          nn.AdaptiveAvgPool2d(4), nn.Flatten(), nn.Linear(1024, 2)).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    loader = Prefetcher(xs, ys, args.batch, device)
    start = time.time()
    step = 0
    while time.time() - start < args.seconds:
        x, y = loader.take()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = F.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % 50 == 0:
            rate = step / max(time.time() - start, 1e-9)
            print(f"step {step} loss {loss.item():.4f} it/s {rate:.1f}", flush=True)
        step += 1
    torch.cuda.synchronize()
    print(f"done {step} steps", flush=True)


if __name__ == "__main__":
    main()
