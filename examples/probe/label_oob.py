"""Probe example: a label equal to the class count (labels 1..C instead of 0..C-1 on one batch).

nll_loss's device-side assert `t >= 0 && t < n_classes` fires inside cross_entropy; the probe reports
aten::cross_entropy_loss, target max 10, input has 10 classes.
"""
import argparse
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

CLASSES = 10


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=40)
    p.add_argument("--bad-step", type=int, default=20)
    a = p.parse_args()
    torch.manual_seed(0)
    dev = "cuda"
    model = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, CLASSES)).to(dev)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for step in range(a.steps):
        x = torch.randn(128, 64, device=dev)
        labels = torch.randint(0, CLASSES, (128,), device=dev)
        if step == a.bad_step:
            labels = labels + 1  # the bug: 1-based labels on this batch, some equal CLASSES
        logits = model(x)
        loss = F.cross_entropy(logits, labels)  # PROBE-FAULT: the failing operator
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step} loss {loss.item():.4f}", flush=True)
        time.sleep(0.02)


if __name__ == "__main__":
    main()
