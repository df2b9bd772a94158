"""Probe example: a list that keeps each step's outputs (logits kept "for later metrics").

GPU memory grows by one logits tensor (8 MiB) per step; nvidia-smi sees the curve rise, the probe
names the allocation site: the head's line in forward, called from the training loop.
"""
import argparse
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

CLASSES = 8192


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(512, 1024), nn.ReLU())
        self.head = nn.Linear(1024, CLASSES)

    def forward(self, x):
        return self.head(self.body(x))  # PROBE-SITE: the logits that pile up


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=600)
    a = p.parse_args()
    torch.manual_seed(0)
    dev = "cuda"
    model = Net().to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    history = []
    for step in range(a.steps):
        x = torch.randn(256, 512, device=dev)
        y = torch.randint(0, CLASSES, (256,), device=dev)
        logits = model(x)
        loss = F.cross_entropy(logits, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        history.append(logits)  # the bug: keeps every step's logits (and their memory) alive
        if step % 50 == 0:
            print(f"step {step} loss {loss.item():.4f} kept {len(history)}", flush=True)
        time.sleep(0.03)


if __name__ == "__main__":
    main()
