"""Probe example: an embedding index past the vocabulary (a token id one past the table).

On the bad step one token id equals VOCAB. CUDA reports the device-side assert asynchronously, so the
normal run blames a later line; the blocking run names this file's `self.emb(tokens)` line and the
probe adds the operator's arguments: aten::embedding, index max 5000, weight has 5000 rows.
"""
import argparse
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB = 5000


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, 128)
        self.head = nn.Linear(128, 16)

    def forward(self, tokens):
        h = self.emb(tokens)  # PROBE-FAULT: the failing operator
        return self.head(h.mean(1))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=40)
    p.add_argument("--bad-step", type=int, default=20)
    a = p.parse_args()
    torch.manual_seed(0)
    dev = "cuda"
    model = Model().to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(a.steps):
        tokens = torch.randint(0, VOCAB, (32, 64), device=dev)
        if step == a.bad_step:
            tokens[3, 7] = VOCAB  # the bug: an id one past the vocabulary
        labels = torch.randint(0, 16, (32,), device=dev)
        loss = F.cross_entropy(model(tokens), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step} loss {loss.item():.4f}", flush=True)
        time.sleep(0.02)


if __name__ == "__main__":
    main()
