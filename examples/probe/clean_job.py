"""Probe example: a clean job, to measure what the probe costs.

A small embedding + MLP classifier whose every step calls two watched operators (embedding,
cross_entropy) and an AdamW step (torch.optim: on torch 2.x it imports torch._dynamo, the import the
regression-phase probe once broke). It prints its own throughput after a warm-up (`it/s N`), so the
phases can be compared with and without the probe (examples/h200/capture-probe.sh, docs/probe.md).
`--seconds S` times S seconds of steps instead of a number of steps (the same window in every phase).
"""
import argparse
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB = 5000
CLASSES = 100


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, 256)
        self.mlp = nn.Sequential(nn.Linear(256, 2048), nn.GELU(), nn.Linear(2048, 2048), nn.GELU())
        self.head = nn.Linear(2048, CLASSES)

    def forward(self, tokens):
        return self.head(self.mlp(self.emb(tokens).mean(1)))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=600)
    p.add_argument("--warmup", type=int, default=50)
    p.add_argument("--seconds", type=float, default=0, help="timed steps for this long instead of --steps")
    a = p.parse_args()
    torch.manual_seed(0)
    dev = "cuda"
    model = Model().to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    t0 = None
    step = 0
    while True:
        if step == a.warmup:
            torch.cuda.synchronize()
            t0 = time.perf_counter()
        tokens = torch.randint(0, VOCAB, (256, 64), device=dev)
        labels = torch.randint(0, CLASSES, (256,), device=dev)
        loss = F.cross_entropy(model(tokens), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        if a.seconds > 0:
            if t0 is not None and time.perf_counter() - t0 >= a.seconds:
                break
        elif step >= a.steps:
            break
    torch.cuda.synchronize()
    dt = time.perf_counter() - t0
    n = step - a.warmup
    print(f"loss {loss.item():.4f} steps {n} in {dt:.3f} s it/s {n / dt:.2f}")


if __name__ == "__main__":
    main()
