"""Example job for GPU Sanitizer: a slow GPU memory leak (logits kept for an epoch-end metric).

A small MLP classifier that appends every step's logits to a Python list "to compute the epoch's
AUC at the end" and never clears it. The logits stay on the GPU: [batch, classes] float32, 75 KiB
a step at the defaults (batch 64, 300 classes), about 1.5 MiB/s at 20 steps/s. PyTorch's caching
allocator serves such small blocks from 2 MiB segments, so nvidia-smi sees the memory rise in
2 MiB steps, one every ~1.4 s.

  --keep detached   (default) history.append(logits.detach())
  --keep graph      history.append(logits) without detach(): each step's grad_fn nodes stay alive
                    too (their saved activations were already freed by backward(), so the rate
                    is about the same)
  --keep none       clean job

The loop runs for --seconds (wall time), paced to --rate steps/s like a job waiting on its input
pipeline. It prints "step N loss L it/s R".
"""
import argparse
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class MLP(nn.Module):
    def __init__(self, features=256, hidden=512, classes=300):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(features, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                                 nn.Linear(hidden, classes))

    def forward(self, x):
        return self.net(x)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--keep", default="detached", choices=["detached", "graph", "none"])
    p.add_argument("--seconds", type=float, default=30.0)
    p.add_argument("--rate", type=float, default=20.0, help="steps per second")
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--classes", type=int, default=300)
    args = p.parse_args()
    device = torch.device("cuda")
    torch.manual_seed(0)
    model = MLP(classes=args.classes).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x_all = torch.randn(8192, 256)
    y_all = torch.randint(0, args.classes, (8192,))
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x_all, y_all), batch_size=args.batch,
                                         shuffle=True, drop_last=True)
    history = []  # the leak: kept for an "epoch-end" metric that is never computed
    period = 1.0 / args.rate
    start = time.time()
    step = 0
    done = False
    while not done:
        for x, y in loader:
            t0 = time.time()
            x, y = x.to(device), y.to(device)
            logits = model(x)
            loss = F.cross_entropy(logits, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if args.keep == "detached":
                history.append(logits.detach())
            elif args.keep == "graph":
                history.append(logits)
            if step % 20 == 0:
                rate = step / max(time.time() - start, 1e-9)
                alloc = torch.cuda.memory_allocated() / 2**20
                reserved = torch.cuda.memory_reserved() / 2**20
                print(f"step {step} loss {loss.item():.4f} it/s {rate:.1f} allocated {alloc:.1f} MiB "
                      f"reserved {reserved:.1f} MiB kept {len(history)}", flush=True)
            step += 1
            if time.time() - start >= args.seconds:
                done = True
                break
            time.sleep(max(0.0, period - (time.time() - t0)))  # paced like a data pipeline
    torch.cuda.synchronize()
    print(f"done {step} steps in {time.time() - start:.1f} s, kept {len(history)} logits tensors", flush=True)


if __name__ == "__main__":
    main()
