"""Example job for GPU Sanitizer: a clean conv classifier with cudnn.benchmark and late shape changes.

torch.backends.cudnn.benchmark = True makes cuDNN time its algorithms for every new input shape
and keep the fastest; the timing runs allocate workspaces. The job trains on 32x32 images for
about --seconds - 1 s, then in its last second feeds other resolutions (40, 48, 56, 64, ...), one
new shape per step: each triggers a new round of autotuning, so GPU memory rises in the last
second of a perfectly healthy job. Expected verdict: PASS.

It prints "step N loss L it/s R".
"""
import argparse
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class ConvNet(nn.Module):
    def __init__(self, classes=10, width=64):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU(),
            nn.Conv2d(width, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(width, 2 * width, 3, padding=1), nn.BatchNorm2d(2 * width), nn.ReLU(),
            nn.Conv2d(2 * width, 2 * width, 3, padding=1), nn.BatchNorm2d(2 * width), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1))
        self.head = nn.Linear(2 * width, classes)

    def forward(self, x):
        return self.head(torch.flatten(self.features(x), 1))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--change-window", type=float, default=1.0, help="seconds at the end with changing shapes")
    p.add_argument("--min-steps", type=int, default=5, help="steps at the base shape at least")
    p.add_argument("--min-changes", type=int, default=1, help="late shapes at least")
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--no-benchmark", action="store_true")
    args = p.parse_args()
    torch.backends.cudnn.benchmark = not args.no_benchmark
    device = torch.device("cuda")
    torch.manual_seed(0)
    model = ConvNet().to(device).to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)
    base = 32
    shapes = [40, 48, 56, 64, 72, 80, 88, 96]
    start = time.time()
    step = 0
    changed = 0
    while True:
        elapsed = time.time() - start
        late = step >= args.min_steps and elapsed >= args.seconds - args.change_window
        if late and (elapsed >= args.seconds or changed >= len(shapes)) and changed >= args.min_changes:
            break
        size = shapes[changed % len(shapes)] if late else base
        if late:
            changed += 1
        x = torch.randn(args.batch, 3, size, size, device=device).to(memory_format=torch.channels_last)
        y = torch.randint(0, 10, (args.batch,), device=device)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % 20 == 0 or late:
            torch.cuda.synchronize()
            rate = step / max(time.time() - start, 1e-9)
            print(f"step {step} loss {loss.item():.4f} it/s {rate:.1f} input {size}x{size} "
                  f"reserved {torch.cuda.memory_reserved() / 2**20:.0f} MiB", flush=True)
        step += 1
    torch.cuda.synchronize()
    print(f"done {step} steps in {time.time() - start:.1f} s, {changed} late shapes", flush=True)


if __name__ == "__main__":
    main()
