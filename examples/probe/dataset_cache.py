"""Probe example (issue #25, 1): a clean job that fills a GPU dataset cache, then trains flat.

For its first `--fill-seconds` (15) it loads 960 MiB of samples onto the GPU, 64 MiB at a time
(PROBE-CACHE line), then trains a small classifier on batches drawn from that cache for `--seconds`
(30) more, its memory flat. The regression phase's curve is stable; the report must blame no
allocation site ("the memory curve shows no growth (stable): no allocation site is blamed"), where the
old comparison (the allocator a few seconds after start against the exit) said the cache "piles up".
Not yet captured on the H200: run it with examples/h200/capture-probe.sh's `run` line, e.g.
`gpu-sanitize run --phases regression -- python3 examples/probe/dataset_cache.py`.
"""
import argparse
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

MiB = 1 << 20
FEATURES = 1024
CLASSES = 10


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--fill-seconds", type=float, default=15)
    p.add_argument("--cache-mib", type=int, default=960)
    p.add_argument("--seconds", type=float, default=30)
    a = p.parse_args()
    torch.manual_seed(0)
    dev = "cuda"
    chunks = a.cache_mib // 64
    rows = 64 * MiB // (4 * FEATURES)
    cache = []
    for i in range(chunks):
        cache.append(torch.randn(rows, FEATURES, device=dev))  # PROBE-CACHE: the dataset cache, filled once
        time.sleep(a.fill_seconds / chunks)  # stands for reading the samples from disk
    model = nn.Sequential(nn.Linear(FEATURES, 512), nn.ReLU(), nn.Linear(512, CLASSES)).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    t0 = time.perf_counter()
    steps = 0
    while time.perf_counter() - t0 < a.seconds:
        chunk = cache[steps % chunks]
        idx = torch.randint(0, rows, (256,), device=dev)
        x = chunk[idx]
        y = (x[:, 0] > 0).long()
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        steps += 1
    torch.cuda.synchronize()
    print(f"steps {steps} cache {len(cache) * 64} MiB")


if __name__ == "__main__":
    main()
