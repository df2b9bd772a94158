"""Probe example: a cache of tensors that grows until the GPU is out of memory.

Every step caches a 1 GiB tensor (remember) and then needs a 6 GiB workspace (freed after the step).
The out-of-memory is raised at the workspace line, the line the traceback shows; what filled the card
is the cache: the probe names both, and writes the allocator snapshot next to the report.
"""
import argparse
import time

import torch

GiB = 1 << 30
cache = {}


def remember(step):
    cache[step] = torch.randn(GiB // 4, device="cuda")  # PROBE-SITE: what fills the card


def workspace():
    return torch.empty(6 * GiB // 4, device="cuda")  # PROBE-OOM: where the allocation fails


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=10000)
    p.add_argument("--sleep", type=float, default=0.08)
    a = p.parse_args()
    for step in range(a.steps):
        remember(step)
        w = workspace()
        w.fill_(1.0)
        del w
        if step % 10 == 0:
            print(f"step {step} cached {len(cache)} GiB", flush=True)
        time.sleep(a.sleep)


if __name__ == "__main__":
    main()
