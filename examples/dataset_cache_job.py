"""Example job for GPU Sanitizer: a clean job that caches its dataset on the GPU, then trains flat.

Shaped like image-classification jobs that keep the decoded dataset in GPU memory: for --fill-seconds
it loads the dataset in chunks onto the GPU (--cache-mib in all), then trains a small MLP on batches
drawn from that cache for --train-seconds. GPU memory grows while the cache fills and stays flat
afterwards: the memory verdict must be flat after warm-up, and nothing may be said to "pile up"
(issue #25, 1: the gate told this job its cache piled up).

  --bug none    clean (the only mode: there is no bug to find)

It prints "step N loss L it/s R".
"""
import argparse
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

p = argparse.ArgumentParser()
p.add_argument("--cache-mib", type=int, default=960)
p.add_argument("--fill-seconds", type=float, default=15.0)
p.add_argument("--train-seconds", type=float, default=30.0)
p.add_argument("--chunks", type=int, default=30)
p.add_argument("--batch", type=int, default=512)
args = p.parse_args()

FEATURES = 1024  # one float32 sample is 4 KiB


def fill_cache(device):
    """Chunks of the dataset, moved to the GPU one by one, as a loader that decodes them would."""
    per_chunk = args.cache_mib * 1024 * 1024 // args.chunks // (FEATURES * 4)
    chunks, labels = [], []
    pause = args.fill_seconds / args.chunks
    for i in range(args.chunks):
        g = torch.Generator().manual_seed(i)
        x = torch.randn(per_chunk, FEATURES, generator=g)
        chunks.append(x.to(device, non_blocking=False))
        labels.append((x[:, 0] > 0).long().to(device))
        time.sleep(pause)  # decoding time of a real loader
    print(f"cached {args.cache_mib} MiB in {args.chunks} chunks", flush=True)
    return torch.cat(chunks), torch.cat(labels)


def main():
    device = torch.device("cuda")
    torch.manual_seed(0)
    data, target = fill_cache(device)
    model = nn.Sequential(nn.Linear(FEATURES, 512), nn.ReLU(), nn.Linear(512, 2)).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    start = time.time()
    step = 0
    while time.time() - start < args.train_seconds:
        idx = torch.randint(0, data.shape[0], (args.batch,), device=device)
        loss = F.cross_entropy(model(data[idx]), target[idx])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % 200 == 0:
            rate = step / max(time.time() - start, 1e-9)
            print(f"step {step} loss {loss.item():.4f} it/s {rate:.1f}", flush=True)
        step += 1
    torch.cuda.synchronize()
    print(f"done {step} steps", flush=True)


if __name__ == "__main__":
    main()
