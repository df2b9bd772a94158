"""Example job for GPU Sanitizer: a clean bf16 TransformerEncoder training loop.

A small language-model-shaped job: token embedding, nn.TransformerEncoder (batch_first, bf16 autocast,
PyTorch's SDPA attention), a linear head, AdamW. There is no bug. Under `--tool initcheck` PyTorch's own
kernels report reads of memory that was allocated but not written (issue #25, 3): those findings are
PyTorch's, not this job's, and must never be blamed on its lines.

It prints "step N loss L it/s R".
"""
import argparse
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

p = argparse.ArgumentParser()
p.add_argument("--steps", type=int, default=30)
p.add_argument("--layers", type=int, default=2)
p.add_argument("--dim", type=int, default=256)
p.add_argument("--batch", type=int, default=8)
p.add_argument("--seq", type=int, default=128)
p.add_argument("--vocab", type=int, default=4096)
args = p.parse_args()


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(args.vocab, args.dim)
        layer = nn.TransformerEncoderLayer(args.dim, nhead=8, dim_feedforward=4 * args.dim, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=args.layers)
        self.head = nn.Linear(args.dim, args.vocab)

    def forward(self, tokens):
        return self.head(self.encoder(self.embed(tokens)))


def main():
    device = torch.device("cuda")
    torch.manual_seed(0)
    model = TinyLM().to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    # LIST_KERNELS=1: profile the last step and print each CUDA kernel's name and launch count
    # (bench/memcheck-vendor.sh); an environment variable, so that the lines above keep their numbers
    import os
    args.list_kernels = os.environ.get("LIST_KERNELS") == "1"
    print(f"parameters {sum(t.numel() for t in model.parameters())}", flush=True)
    start = time.time()
    first_done = None
    for step in range(args.steps):
        if args.list_kernels and step == args.steps - 1:
            profiler = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA])
            profiler.__enter__()
        tokens = torch.randint(0, args.vocab, (args.batch, args.seq + 1), device=device)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(tokens[:, :-1])
            loss = F.cross_entropy(logits.float().reshape(-1, args.vocab), tokens[:, 1:].reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % 10 == 0:
            rate = step / max(time.time() - start, 1e-9)
            print(f"step {step} loss {loss.item():.4f} it/s {rate:.1f}", flush=True)
        if step == 0:
            torch.cuda.synchronize()
            first_done = time.time()
    torch.cuda.synchronize()
    if args.list_kernels:
        profiler.__exit__(None, None, None)
        counts = {}
        for event in profiler.events():
            if event.device_type == torch.autograd.DeviceType.CUDA:
                counts[event.name] = counts.get(event.name, 0) + 1
        for name, count in sorted(counts.items(), key=lambda kv: -kv[1]):
            print(f"kernel {count} {name}", flush=True)
    if args.steps > 1:
        print(f"steady seconds/step {(time.time() - first_done) / (args.steps - 1):.4f}", flush=True)
    print(f"done {args.steps} steps", flush=True)


if __name__ == "__main__":
    main()
