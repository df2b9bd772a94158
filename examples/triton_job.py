"""Example job for GPU Sanitizer: a Triton kernel whose store mask is one block too wide.

The kernel scales a vector; its grid has one program too many and its store mask allows
offsets up to n + BLOCK, so the last program writes BLOCK floats past the output buffer. The
normal run finishes with silently wrong memory; only compute-sanitizer (caching allocator off)
sees the write.
"""
import argparse

import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, x * 2.0, mask=offs < n + BLOCK)  # bug: should be offs < n


def scale(x):
    y = torch.empty_like(x)
    n = x.numel()
    scale_kernel[(triton.cdiv(n, 128) + 1,)](x, y, n, BLOCK=128)
    return y


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=20)
    args = parser.parse_args()
    w = torch.randn(1000, device="cuda", requires_grad=True)
    opt = torch.optim.SGD([w], lr=0.01)
    for step in range(args.steps):
        loss = (scale(w.detach()) * w).sum() ** 2 / 1e6
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 5 == 0:
            print(f"step {step} loss {loss.item():.4f}", flush=True)
    print(f"done {args.steps} steps", flush=True)


if __name__ == "__main__":
    main()
