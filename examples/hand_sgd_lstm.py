"""Example job for GPU Sanitizer (issue #47): an LSTM trained with hand-written SGD, no torch.optim.

Each step: forward, loss.backward(), then every parameter updated by hand (p.add_(p.grad, alpha=-lr) under
torch.no_grad()). No optimizer is built and none steps, so the proof of work must see the backward passes.
Prints "step N loss L" every 10 steps and the last loss; the loss falls (the job learns to give back its input).
"""
import argparse

import torch
import torch.nn as nn

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=60)
parser.add_argument("--lr", type=float, default=0.5)
args = parser.parse_args()

torch.manual_seed(0)
dev = "cuda"
lstm = nn.LSTM(16, 32, batch_first=True).to(dev)
head = nn.Linear(32, 16).to(dev)
params = list(lstm.parameters()) + list(head.parameters())
first = None
for step in range(1, args.steps + 1):
    x = torch.randn(8, 20, 16, device=dev)
    out, _ = lstm(x)
    loss = nn.functional.mse_loss(head(out), x)
    loss.backward()
    with torch.no_grad():
        for p in params:
            p.add_(p.grad, alpha=-args.lr)
            p.grad = None
    value = loss.item()
    first = value if first is None else first
    if step % 10 == 0:
        print("step %d loss %.4f" % (step, value), flush=True)
print("first loss %.4f last loss %.4f" % (first, value), flush=True)
